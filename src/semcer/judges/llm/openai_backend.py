"""OpenAI-compatible chat completions (vLLM, SGLang, llama.cpp server, Ollama, hosted APIs) over httpx.

One request per edit: ``max_tokens: 1``, ``temperature: 0``, ``logprobs: true``,
``top_logprobs: 20``. Requests run concurrently on an event loop of the backend's own thread (so
the judge works the same from scripts, notebooks and async code), at most ``concurrency`` at once,
each with a timeout, and are retried with exponential backoff and full jitter on 429, 5xx,
timeouts, connection errors and malformed answers. An edit still unanswered after the last retry is
a failure (``Judgement.p is None``), never a 0.

A dead endpoint stops the run: after ``max_connection_failures`` connection failures in a row
(nothing listening, a name that does not resolve, a connect timeout) with no answer ever, the judge
raises one :class:`~semcer.errors.JudgeError` naming the endpoint. An endpoint that answered before
and stops (a circuit breaker): the edits left fail at once, without more requests, and the next
batch first sends one request to see whether the endpoint is back.

An answer body is read within ``max_response_bytes`` (1 MiB by default; a chat completion with
top-20 log-probabilities for one token is a few KB), counted while reading and, for a compressed
body, while inflating: a longer one fails its edit at once (not retried: an endpoint that sends
megabytes for one token is broken, and would send them again).

The API key is read from an environment variable when the first request is made and lives only in
the request headers: it is never logged, cached, put in the identity or written anywhere. Every text
that comes from the server or from an exception (error messages, bodies, tokens, answers) has every
piece of 8 characters or more of the key masked before it is cut to length (:func:`redact`), so
that a server echoing the Authorization header puts none of it into a failure reason or an error.

Plain-HTTP endpoints (a local vLLM or llama.cpp server, where throughput matters) go through
:class:`HTTP11Transport`, a lean keep-alive HTTP/1.1 transport for httpx: httpx's default
connection pool costs about 2 ms of CPU per request, which would cap a client at a few hundred
requests per second; ``https://`` endpoints (hosted APIs: TLS, proxies) use httpx's own client.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import math
import os
import random
import socket
import threading
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any
from urllib.parse import urlsplit

from semcer.errors import JudgeError, first_line, quoted
from semcer.judges.base import JudgeSpec, JudgeStats, whole_number
from semcer.judges.llm.judge import Reading, label_probs_from_top
from semcer.judges.llm.prompt import Prompt

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
#: The default cap on an answer's body, in bytes.
DEFAULT_MAX_RESPONSE_BYTES = 2**20
#: The default number of connection failures in a row that stop the run.
DEFAULT_MAX_CONNECTION_FAILURES = 3

#: Statuses retried with backoff; other 4xx are either fatal (below) or a failure of that one edit.
_RETRY_STATUSES = frozenset({408, 409, 425, 429})
#: Statuses that mean the configuration is wrong (key, endpoint, model): the run stops at once.
_FATAL_STATUSES = frozenset({401, 403, 404, 405})

#: Pieces of the key this long or longer are masked wherever they occur (a shorter key: the whole key).
SECRET_PIECE = 8
_MASK = "***"
#: How much of a server's text a failure reason or an error message quotes, in characters.
_ERROR_CHARS = 200
_SNIPPET_CHARS = 120
_DETAIL_CHARS = 120
_TOKEN_CHARS = 40
#: Interim (1xx) responses skipped before an answer, at most.
_MAX_INTERIM = 8
#: Control characters (C0, DEL, C1) and line separators, to their escapes.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0))} | {0x2028: "\\u2028", 0x2029: "\\u2029"}


def redact(text: str, secret: str | None, limit: int) -> str:
    """``text`` with every piece of ``secret`` of 8 characters or more masked (``***``), then cut to
    ``limit`` characters (``…`` marks a cut).

    Masking comes first and cutting second, so that a key just before the cut leaves no end of
    itself behind; and since every 8-character piece is masked, not only whole occurrences, neither
    does a key that the server itself cut, nor one split by the cut. A key shorter than 8
    characters is masked where it occurs whole. Work is proportional to ``limit``, not to ``text``.
    """
    limit = max(0, limit)
    cut = len(text) > limit
    if not secret or not text:
        return text[:limit] + "…" if cut else text
    piece = min(SECRET_PIECE, len(secret))
    pieces = {secret[i:i + piece] for i in range(len(secret) - piece + 1)}
    # Every occurrence of the key that starts before the cut ends inside this window; what the
    # window itself cuts starts after the cut.
    window = text[: limit + len(secret) + piece]
    masked = bytearray(len(window))
    for i in range(len(window) - piece + 1):
        if window[i:i + piece] in pieces:
            masked[i:i + piece] = b"\x01" * piece
    out: list[str] = []
    i = 0
    end = min(limit, len(window))
    while i < end:
        if masked[i]:
            out.append(_MASK)
            while i < len(window) and masked[i]:
                i += 1
        else:
            j = i
            while j < end and not masked[j]:
                j += 1
            out.append(window[i:j])
            i = j
    result = "".join(out) + ("…" if cut else "")
    if "*" in secret and result != text:  # the marks could join into a new piece of such a key
        again = redact(result, secret, len(result))
        if again != result:
            return again
    return result


def check_endpoint(endpoint: object) -> None:
    """Refuse an endpoint the client could not send to, with one :class:`JudgeError` naming
    ``--endpoint``: a scheme other than http/https, no host, a port outside 1-65535, a query string
    or fragment (``/chat/completions`` is appended to the path), whitespace or control characters.
    Checked when the configuration is built, before any request."""
    problem = _endpoint_problem(endpoint)
    if problem:
        raise JudgeError(f"--endpoint {quoted(endpoint)}: {problem}; give the server's base URL, "
                         "e.g. http://127.0.0.1:8000/v1")


def _endpoint_problem(endpoint: object) -> str:
    """What is wrong with ``endpoint`` as the client's base URL, in words ("" when nothing)."""
    if not isinstance(endpoint, str):
        return f"not a URL but {type(endpoint).__name__}"
    if any(c.isspace() or not c.isprintable() for c in endpoint):
        return "it holds whitespace or control characters"
    try:
        parts = urlsplit(endpoint)
    except ValueError as exc:  # a broken [IPv6] host
        return f"not a valid URL ({first_line(exc, 80)})"
    if parts.scheme not in ("http", "https") or not endpoint.lower().startswith(parts.scheme + "://"):
        return "the scheme must be http:// or https://"
    if not parts.hostname:
        return "no host"
    try:
        port = parts.port
    except ValueError:  # not a number, or over 65535
        port = 0
    if port == 0:
        return f"the port must be a number from 1 to 65535, not {quoted(parts.netloc.rpartition(':')[2])}"
    if "?" in endpoint or "#" in endpoint:
        return "a query string or fragment cannot be part of it (/chat/completions is appended to the path)"
    return ""


@dataclass(frozen=True)
class OpenAIConfig:
    """How to reach an OpenAI-compatible server.

    ``endpoint`` is the client's base URL (``http://127.0.0.1:8000/v1``); requests go to
    ``{endpoint}/chat/completions``. ``model_revision`` pins what the model name alone does not
    (weights revision, quantisation): it goes into the identity, so a new revision never reuses
    another's cached judgements. ``extra_body`` is merged into every request (e.g.
    ``{"chat_template_kwargs": {"enable_thinking": false}}``) and its hash joins the identity.

    ``max_response_bytes`` caps an answer's body (after inflating a compressed one): a longer
    answer fails its edit at once. ``max_connection_failures`` connection failures in a row stop
    the run: with a :class:`~semcer.errors.JudgeError` when the endpoint never answered, by failing
    the rest of the batch without sending it when it did (0: never stop early; every edit is then
    retried as any other failure). Neither changes a judgement, so neither is in the identity.
    """

    endpoint: str
    model: str
    api_key_env: str = DEFAULT_API_KEY_ENV
    concurrency: int = 16
    timeout: float = 60.0
    max_retries: int = 5
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    model_revision: str = ""
    top_logprobs: int = 20
    extra_body: Mapping[str, Any] | None = field(default=None, hash=False)
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_connection_failures: int = DEFAULT_MAX_CONNECTION_FAILURES

    def __post_init__(self) -> None:
        check_endpoint(self.endpoint)
        if not self.model:
            raise JudgeError("no model name: give the served model's name (--model), as the server lists it at /v1/models")
        self._whole("concurrency", 1)
        self._whole("max_retries", 0)
        self._whole("top_logprobs", 1, 20)
        self._whole("max_response_bytes", 1)
        self._whole("max_connection_failures", 0)
        self._seconds("timeout", zero=False)  # no time at all to answer could only fail every edit
        self._seconds("backoff_base")
        self._seconds("backoff_max")
        if self.extra_body is not None and not isinstance(self.extra_body, Mapping):
            raise JudgeError("extra_body must be a JSON object")

    def _whole(self, name: str, least: int, most: int | None = None) -> None:
        object.__setattr__(self, name, whole_number(name, getattr(self, name), least, most))

    def _seconds(self, name: str, *, zero: bool = True) -> None:
        """A duration: a number of seconds, 0 or more (``zero``) or more than 0; one message for every
        value refused (negative, 0 where it is not allowed, NaN, not a number)."""
        value = getattr(self, name)
        number = not isinstance(value, bool) and isinstance(value, (int, float))
        if not number or not (value >= 0 if zero else value > 0):
            raise JudgeError(f"{name} must be a number of seconds, {'0 or more' if zero else 'more than 0'}; "
                             f"got {value!r}")

    @property
    def url(self) -> str:
        base = self.endpoint.rstrip("/")
        return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


class _Fatal(Exception):
    """A configuration error reported by the server, or an endpoint never reached; stops the whole batch."""


class ResponseTooLarge(Exception):
    """An answer whose body is longer than the cap (raised while reading, before the rest arrives)."""

    def __init__(self, limit: int, status: int) -> None:
        super().__init__(f"HTTP {status}: answer over the {limit}-byte limit (max_response_bytes)")
        self.limit = limit
        self.status = status


class _Undecodable(Exception):
    """An answer in a content encoding the client cannot read."""


class _LoopThread:
    """An asyncio event loop in a daemon thread, so that synchronous callers can run coroutines."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="semcer-llm-http", daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self.loop.is_closed()

    def run(self, coro: Any, timeout: float | None = None) -> Any:
        if not self.alive:
            coro.close()
            raise RuntimeError("the judge's event loop has stopped")
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except BaseException:  # Ctrl-C or a timeout here: stop the requests still running
            future.cancel()
            raise

    def stop(self, wait: bool = True) -> None:
        if self.loop.is_closed():
            return
        try:
            self.loop.call_soon_threadsafe(self.loop.stop)
        except RuntimeError:
            return
        if wait:
            self._thread.join(timeout=5)
            if not self._thread.is_alive():
                self.loop.close()


class OpenAIBackend:
    """Reads label probabilities from an OpenAI-compatible ``/chat/completions`` endpoint."""

    name = "openai"

    def __init__(self, config: OpenAIConfig) -> None:
        self.config = config
        self._loop: _LoopThread | None = None
        self._client: Any = None
        self._transport: HTTP11Transport | None = None
        self._send: Any = None
        self._url: Any = None
        self._headers: Any = None
        self._extensions: dict[str, Any] = {}
        self._sem: asyncio.Semaphore | None = None
        self._key: str | None = None
        self._labels: tuple[str, ...] = ()
        self._extra = json.dumps(dict(config.extra_body), sort_keys=True) if config.extra_body else ""
        # the breaker: connection failures since the last answer, whether any request was ever
        # answered, why the breaker is open ("" while closed) and the event that wakes backoffs
        self._connect_failures = 0
        self._answered = False
        self._broken = ""
        self._tripped: asyncio.Event | None = None
        self._stop = ""  # why this batch stops (a fatal answer, an endpoint never reached): send no more

    @property
    def identity(self) -> str:
        """Backend, model name, revision and the hash of any extra request fields; not the URL or key."""
        c = self.config
        model = f"{c.model}@{c.model_revision}" if c.model_revision else c.model
        extra = f":extra={hashlib.sha256(self._extra.encode()).hexdigest()[:10]}" if self._extra else ""
        return f"{self.name}:model={model}{extra}"

    @property
    def preferred_batch_size(self) -> int:
        return max(256, 8 * self.config.concurrency)

    def __repr__(self) -> str:
        return f"OpenAIBackend(url={self.config.url!r}, model={self.config.model!r})"

    def spec(self) -> JudgeSpec:
        """``llm`` with the configuration's non-default options (the key only by its variable's name)."""
        cfg = self.config
        options = {f.name: getattr(cfg, f.name) for f in fields(cfg)
                   if f.name in ("endpoint", "model") or getattr(cfg, f.name) != f.default}
        if options.get("extra_body") is not None:
            options["extra_body"] = dict(options["extra_body"])
        return JudgeSpec("llm", options)

    def prepare(self, labels: Sequence[str]) -> None:
        """Remote tokenizers cannot be checked; the answers are matched to the labels as they come."""
        self._labels = tuple(labels)

    # -- running ---------------------------------------------------------------------------

    def read(self, prompts: Sequence[Prompt], labels: Sequence[str], stats: JudgeStats) -> list[Reading]:
        if self._loop is None:
            self._loop = _LoopThread()
        return self._loop.run(self._read_all(prompts, tuple(labels), stats))

    async def _read_all(self, prompts: Sequence[Prompt], labels: tuple[str, ...], stats: JudgeStats) -> list[Reading]:
        send = self._ensure_client()
        self._stop = ""
        if not prompts:
            return []
        tasks: list[asyncio.Future[Reading]] = []
        try:
            first: list[Reading] = []
            if self._broken:  # the endpoint stopped answering in an earlier batch: one request first
                self._close_breaker(probing=True)
                first = [await self._read_one(send, prompts[0], labels, stats)]
            tasks = [asyncio.ensure_future(self._read_one(send, p, labels, stats)) for p in prompts[len(first):]]
            return first + list(await asyncio.gather(*tasks))
        except _Fatal as exc:
            self._stop = str(exc)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise JudgeError(self._clean(str(exc))) from None

    def _ensure_client(self) -> Any:
        """Build the sender on first use (inside the loop thread): headers, timeouts, connections."""
        if self._send is not None:
            return self._send
        try:
            import httpx
        except ImportError:
            raise JudgeError('the LLM judge needs httpx: pip install "semcer[llm]"') from None
        c = self.config
        headers = {"content-type": "application/json", "accept": "application/json", "accept-encoding": "identity",
                   "user-agent": "semcer-llm-judge"}
        key = os.environ.get(c.api_key_env, "")
        if not key and c.api_key_env != DEFAULT_API_KEY_ENV:
            raise JudgeError(f"environment variable {c.api_key_env} (--api-key-env) is not set or empty")
        if key:
            headers["authorization"] = f"Bearer {key}"
        self._key = key or None
        self._url = httpx.URL(c.url)
        self._headers = httpx.Headers(headers)
        self._extensions = {"timeout": {"connect": c.timeout, "read": c.timeout, "write": c.timeout, "pool": c.timeout}}
        if self._url.scheme == "http":
            self._transport = HTTP11Transport(max_idle=c.concurrency, max_body=c.max_response_bytes)
            self._send = self._transport.handle_async_request
        else:
            limits = httpx.Limits(max_connections=c.concurrency, max_keepalive_connections=c.concurrency)
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(c.timeout), limits=limits, follow_redirects=False)
            self._send = functools.partial(self._client.send, stream=True)
        self._sem = asyncio.Semaphore(c.concurrency)
        self._tripped = asyncio.Event()
        if self._broken:
            self._tripped.set()
        return self._send

    def _body(self, prompt: Prompt) -> bytes:
        c = self.config
        body: dict[str, Any] = {
            "model": c.model,
            "messages": prompt.messages(),
            "max_tokens": 1,
            "temperature": 0,
            "logprobs": True,
            "top_logprobs": c.top_logprobs,
        }
        if c.extra_body:
            body.update(c.extra_body)
        return json.dumps(body, ensure_ascii=False).encode("utf-8")

    async def _read_one(self, send: Any, prompt: Prompt, labels: tuple[str, ...], stats: JudgeStats) -> Reading:
        body = self._body(prompt)
        assert self._sem is not None
        problem = ""
        retry_after = 0.0
        attempt = 0
        for attempt in range(self.config.max_retries + 1):
            if attempt:
                await self._pause(self._delay(attempt, retry_after))
            retry_after = 0.0
            async with self._sem:
                if self._stop:
                    raise _Fatal(self._stop)
                if self._broken:
                    break
                if attempt:
                    stats.retries += 1
                answer, problem, give_up = await self._attempt(send, body, stats)
            if give_up:
                break
            if answer is None:
                continue
            self._reached()
            status, headers, content = answer
            if status == 200:
                reading = self._parse(content, labels, stats)
                if not reading.failure:
                    stats.edits += 1
                    return reading
                problem = reading.failure
                continue
            problem, retry_after, retry = self._http_problem(status, headers, content)
            if not retry:
                break
        stats.edits += 1
        if self._broken:
            return Reading(failure=self._broken)
        attempts = f" after {attempt + 1} attempt{'s' if attempt else ''}"
        return Reading(failure=self._clean(f"{problem}{attempts}"))

    async def _attempt(self, send: Any, body: bytes, stats: JudgeStats) -> tuple[tuple[int, Any, bytes] | None, str, bool]:
        """One request: the answer, or None with the problem and whether retrying is pointless."""
        import httpx

        stats.requests += 1
        stats.in_flight += 1
        try:
            return await self._exchange(send, body), "", False
        except ResponseTooLarge as exc:
            self._reached()
            return None, str(exc), True  # an endpoint that sends megabytes for one token would send them again
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            problem = f"connection failed ({self._redact(str(exc) or type(exc).__name__, _DETAIL_CHARS)})"
            self._connection_failed(problem)
            return None, problem, False
        except httpx.TimeoutException:
            return None, f"no answer within {self.config.timeout:g} s", False
        except httpx.TransportError as exc:
            return None, f"connection error ({type(exc).__name__}: {self._redact(str(exc), 80)})", False
        except _Undecodable as exc:
            self._reached()
            return None, f"malformed answer: {self._redact(str(exc), _DETAIL_CHARS)}", False
        finally:
            stats.in_flight -= 1

    def _http_problem(self, status: int, headers: Any, content: bytes) -> tuple[str, float, bool]:
        """A non-200 answer: the problem, the Retry-After wait, and whether to retry (a fatal status stops the run)."""
        message = self._redact(self._error_text(content), _ERROR_CHARS)
        if status in _FATAL_STATUSES:
            hint = ""
            if status in (404, 405):
                hint = " (is the endpoint the base URL, e.g. http://127.0.0.1:8000/v1, and the model name right?)"
            self._stop = f"{self.config.url}: HTTP {status}: {message}{hint}"
            raise _Fatal(self._stop)
        problem = f"HTTP {status}: {message}"
        if status in _RETRY_STATUSES or status >= 500:
            return problem, _retry_after(headers.get("retry-after")), True
        return problem, 0.0, False  # another 4xx (e.g. 400, prompt too long): retrying would not help

    async def _exchange(self, send: Any, body: bytes) -> tuple[int, Any, bytes]:
        """Send one request; the status, headers and body (inflated, within the cap) of the answer."""
        import httpx

        cap = self.config.max_response_bytes
        request = httpx.Request("POST", self._url, headers=self._headers, content=body, extensions=self._extensions)
        response = await send(request)
        try:
            status = response.status_code
            length = response.headers.get("content-length", "")
            if length.isdigit() and int(length) > cap:
                raise ResponseTooLarge(cap, status)
            parts: list[bytes] = []
            size = 0
            async for part in response.aiter_raw():
                size += len(part)
                if size > cap:
                    raise ResponseTooLarge(cap, status)
                parts.append(part)
        finally:
            await response.aclose()
        raw = b"".join(parts)
        return status, response.headers, _decode(raw, response.headers.get("content-encoding", ""), cap, status)

    # -- the breaker --------------------------------------------------------------------------

    def _reached(self) -> None:
        """The endpoint answered (whatever it said): it is reachable."""
        self._answered = True
        self._connect_failures = 0

    def _connection_failed(self, problem: str) -> None:
        """Count one failure to connect; at the limit, stop the run or open the breaker."""
        c = self.config
        self._connect_failures += 1
        n = self._connect_failures
        if not c.max_connection_failures or n < c.max_connection_failures or self._broken:
            return
        if not self._answered:
            self._connect_failures = 0  # a later call (the server started meanwhile) tries afresh
            self._stop = (f"cannot reach {c.url}: {problem} ({n} attempts in a row, none answered); "
                          "is the server running? is --endpoint right?")
            raise _Fatal(self._stop)
        self._broken = self._clean(f"not judged: {c.url} stopped answering ({problem}; {n} connection failures in a row)")
        if self._tripped is not None:
            self._tripped.set()

    def _close_breaker(self, *, probing: bool = False) -> None:
        """Close the breaker; ``probing``: one more connection failure opens it again."""
        self._broken = ""
        if self._tripped is not None:
            self._tripped.clear()
        self._connect_failures = max(0, self.config.max_connection_failures - 1) if probing else 0

    async def _pause(self, seconds: float) -> None:
        """Sleep before a retry; cut short when the breaker opens."""
        if seconds <= 0 or self._tripped is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._tripped.wait(), seconds)

    def _delay(self, attempt: int, retry_after: float) -> float:
        """Full-jitter exponential backoff; a server's Retry-After is honoured up to the cap."""
        c = self.config
        cap = min(c.backoff_max, c.backoff_base * (2 ** (attempt - 1)))
        return max(min(retry_after, c.backoff_max), random.uniform(0.0, cap))

    # -- reading answers ----------------------------------------------------------------------

    def _parse(self, content: bytes, labels: tuple[str, ...], stats: JudgeStats) -> Reading:
        try:
            data = json.loads(content)
        except (ValueError, RecursionError):
            return Reading(failure=f"malformed answer: not JSON ({self._snippet(content)})")
        try:
            reading = parse_chat_completion(data, labels, secret=self._key)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            return Reading(failure=f"malformed answer: {type(exc).__name__} {self._redact(str(exc), _DETAIL_CHARS)}")
        usage = data.get("usage") if isinstance(data, dict) else None
        if isinstance(usage, dict):
            prompt_tokens, completion_tokens = usage.get("prompt_tokens"), usage.get("completion_tokens")
            if isinstance(prompt_tokens, int) and not isinstance(prompt_tokens, bool) and prompt_tokens >= 0:
                stats.prompt_tokens += prompt_tokens
                stats.tokens_reported = True
            if isinstance(completion_tokens, int) and not isinstance(completion_tokens, bool) and completion_tokens >= 0:
                stats.completion_tokens += completion_tokens
        return reading

    def _error_text(self, content: bytes) -> str:
        """The message of an error answer: ``error.message`` of a JSON body, else a snippet of it."""
        try:
            data = json.loads(content)
            err = data.get("error", data) if isinstance(data, dict) else data
            msg = err.get("message", err) if isinstance(err, dict) else err
            return msg if isinstance(msg, str) else json.dumps(msg, ensure_ascii=False)
        except Exception:  # not JSON, too deep, not serialisable again: quote the body
            return self._snippet(content)

    def _snippet(self, content: bytes) -> str:
        """The start of a body, masked, cut and quoted."""
        window = content[: 4 * (_SNIPPET_CHARS + len(self._key or "") + SECRET_PIECE)]
        text = self._redact(window.decode("utf-8", "replace"), _SNIPPET_CHARS)
        return repr(text.replace("\n", " "))

    def _redact(self, text: str, limit: int) -> str:
        """``text`` with every piece of the API key masked, then cut to ``limit`` characters."""
        return redact(text, self._key, limit)

    def _clean(self, text: str) -> str:
        """``text`` with every piece of the API key masked and every control character escaped (the
        last pass over every failure reason and error message: one line, nothing that drives a terminal)."""
        return redact(text, self._key, len(text)).translate(_CONTROLS)

    # -- closing ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connections and stop the event loop thread (the backend restarts them if used again)."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        for closer in (self._client, self._transport):
            if closer is not None:
                with contextlib.suppress(Exception):
                    loop.run(closer.aclose(), timeout=5)
        self._client = self._transport = self._send = None
        self._tripped = None
        loop.stop()

    def __del__(self) -> None:
        # Never wait here: at interpreter exit the loop thread may already be gone.
        loop = getattr(self, "_loop", None)
        if loop is not None:
            loop.stop(wait=False)


def parse_chat_completion(data: Any, labels: Sequence[str], *, secret: str | None = None) -> Reading:
    """A reading from a chat-completions response: label probabilities at the first generated token.

    Uses ``choices[0].logprobs.content[0]``: its ``top_logprobs`` plus the chosen token. Without
    probabilities, the answer text is used (a one-hot reading). Raises ValueError on a response of
    the wrong shape: anything but an object where one is expected, a token that is not a string, a
    log-probability that is not a number (``false`` is not 0, ``"-0.1"`` is not -0.1). Server text
    quoted in a failure has every piece of ``secret`` (the API key) masked.
    """
    if not isinstance(data, dict):
        raise ValueError("the answer is not a JSON object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ValueError("the answer has no choices")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise ValueError("choices[0] is not an object")
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if content:
        if not isinstance(content, list) or not isinstance(content[0], dict):
            raise ValueError("logprobs.content[0] is not an object")
        first = content[0]
        entries = first.get("top_logprobs") or []
        if not isinstance(entries, list):
            raise ValueError("logprobs.content[0].top_logprobs is not a list")
        top = [_token_logprob(t, secret) for t in entries]
        if "token" in first and "logprob" in first:
            top.append(_token_logprob(first, secret))
        if not top:
            raise ValueError("logprobs.content[0] has no tokens")
        probs, missing = label_probs_from_top(top, labels)
        if math.fsum(probs) <= 0.0:
            shown = ", ".join(repr(redact(t, secret, _TOKEN_CHARS)) for t, _ in top[:5])
            return Reading(failure=f"no label among the top {len(top)} tokens (first: {shown})")
        return Reading(label_probs=probs, missing=missing)
    message = choice.get("message") or {}
    text = message.get("content") if isinstance(message, dict) else None
    if not isinstance(text, str):
        raise ValueError("the answer has neither logprobs nor message.content")
    if text.strip() not in labels:
        shown = repr(redact(text.strip(), secret, _TOKEN_CHARS))
        return Reading(failure=f"answer {shown} is not a label and came without probabilities")
    return Reading(answer=text)


def _token_logprob(entry: Any, secret: str | None) -> tuple[str, float]:
    """``(token, logprob)`` of one log-probability entry, checked (ValueError when malformed)."""
    if not isinstance(entry, dict):
        raise ValueError("a log-probability entry is not an object")
    token, logprob = entry.get("token"), entry.get("logprob")
    if not isinstance(token, str):
        raise ValueError(f"token {redact(repr(token), secret, _TOKEN_CHARS)} is not a string")
    shown = repr(redact(token, secret, _TOKEN_CHARS))
    if isinstance(logprob, bool) or not isinstance(logprob, (int, float)):
        raise ValueError(f"the log-probability of token {shown} is not a number: {redact(repr(logprob), secret, _TOKEN_CHARS)}")
    try:
        value = float(logprob)
    except OverflowError:
        raise ValueError(f"the log-probability of token {shown} is out of range") from None
    if math.isnan(value) or value > 1e-6:
        raise ValueError(f"the log-probability {value!r} of token {shown} is not a log-probability")
    return token, value


def _decode(raw: bytes, encoding: str, cap: int, status: int) -> bytes:
    """``raw`` inflated by its Content-Encoding (identity, gzip or deflate), never past ``cap`` bytes."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return raw
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise _Undecodable(f"content-encoding {encoding[:40]!r}, which the client does not read (it asked for identity)")
    for wbits in ((47,) if encoding != "deflate" else (47, -15)):  # 47: a gzip or zlib header; -15: raw deflate
        inflater = zlib.decompressobj(wbits)
        try:
            out = inflater.decompress(raw, cap + 1)
        except zlib.error as exc:
            error = exc
            continue
        if len(out) > cap:
            raise ResponseTooLarge(cap, status)
        if not inflater.eof:
            raise _Undecodable(f"content-encoding {encoding}: the compressed body is cut short")
        return out
    raise _Undecodable(f"content-encoding {encoding}: the body does not inflate ({error})")


def _retry_after(value: str | None) -> float:
    if not value:
        return 0.0
    try:
        seconds = float(value)
    except ValueError:
        return 0.0
    return seconds if math.isfinite(seconds) and seconds > 0 else 0.0


class HTTP11Transport:
    """A lean keep-alive HTTP/1.1 transport for httpx over asyncio streams (plain HTTP only).

    Implements ``httpx.AsyncBaseTransport``'s interface (``handle_async_request``, ``aclose``), so it
    can also be mounted in an ``httpx.AsyncClient``. Bodies are read whole (Content-Length, chunked,
    or until the server closes) and handed on as they came (a compressed body is inflated by whoever
    reads the response); with ``max_body``, a body longer than that many bytes raises
    :class:`ResponseTooLarge` as soon as its length is known or its reading passes the limit (the
    connection is closed, the rest never read). Interim (1xx) responses are skipped. Connections
    are reused; a reused connection that the server closed meanwhile is replaced once,
    transparently. Other errors are httpx's: ``ConnectError``, ``ConnectTimeout``, ``ReadTimeout``,
    ``ReadError``, ``RemoteProtocolError``.
    """

    def __init__(self, *, max_idle: int = 64, max_body: int | None = None) -> None:
        self.max_idle = max_idle
        self.max_body = max_body
        self._idle: dict[tuple[str, int], list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]] = {}
        self._closed = False

    async def handle_async_request(self, request: Any) -> Any:
        import httpx

        url = request.url
        if url.scheme != "http":
            raise httpx.UnsupportedProtocol(f"HTTP11Transport speaks plain http only, not {url.scheme}")
        key = (url.host, url.port or 80)
        timeouts = request.extensions.get("timeout", {})
        payload = _request_bytes(request)
        for attempt in (0, 1):
            conn, reused = await self._acquire(key, timeouts.get("connect"), request)
            reader, writer = conn
            started = False
            try:
                async with asyncio.timeout(timeouts.get("read")):
                    writer.write(payload)
                    head = await reader.readuntil(b"\r\n\r\n")
                    started = True
                    status, headers, length, chunked, keep = _parse_head(head)
                    for _ in range(_MAX_INTERIM):
                        if not (100 <= status < 200 and status != 101):
                            break
                        head = await reader.readuntil(b"\r\n\r\n")  # an interim answer: the real one follows
                        status, headers, length, chunked, keep = _parse_head(head)
                    if 100 <= status < 200:
                        raise ValueError(f"status {status} where an answer was due")
                    body = await _read_body(reader, status, length, chunked, self.max_body)
            except TimeoutError:
                writer.close()
                raise httpx.ReadTimeout("no answer within the timeout", request=request) from None
            except (asyncio.IncompleteReadError, ConnectionError, OSError) as exc:
                writer.close()
                if reused and not started and attempt == 0:
                    continue  # the server closed an idle connection: retry once on a fresh one
                raise httpx.ReadError(f"{type(exc).__name__}: {exc}", request=request) from None
            except (ValueError, asyncio.LimitOverrunError) as exc:
                writer.close()
                raise httpx.RemoteProtocolError(f"malformed HTTP response: {exc}", request=request) from None
            except BaseException:  # ResponseTooLarge among them: the rest of the body is never read
                writer.close()
                raise
            if keep and not self._closed and len(self._idle.get(key, ())) < self.max_idle:
                self._idle.setdefault(key, []).append(conn)
            else:
                writer.close()
            return httpx.Response(status, headers=headers, stream=httpx.ByteStream(body), request=request,
                                  extensions={"http_version": b"HTTP/1.1"})
        raise AssertionError("unreachable")  # pragma: no cover

    async def _acquire(self, key: tuple[str, int], timeout: float | None, request: Any) -> tuple[Any, bool]:
        import httpx

        idle = self._idle.get(key)
        while idle:
            reader, writer = idle.pop()
            if not writer.is_closing() and not reader.at_eof():
                return (reader, writer), True
            writer.close()
        try:
            async with asyncio.timeout(timeout):
                conn = await asyncio.open_connection(key[0], key[1])
        except TimeoutError:
            raise httpx.ConnectTimeout(f"could not connect to {key[0]}:{key[1]} within the timeout", request=request) from None
        except OSError as exc:
            raise httpx.ConnectError(f"could not connect to {key[0]}:{key[1]}: {_os_reason(exc)}", request=request) from None
        return conn, False

    async def __aenter__(self) -> HTTP11Transport:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self._closed = True
        for conns in self._idle.values():
            for _, writer in conns:
                writer.close()
        self._idle.clear()


def _os_reason(exc: OSError) -> str:
    """Why a connection failed, in words: "Connection refused", "Name or service not known"."""
    if isinstance(exc, socket.gaierror) and exc.strerror:
        return exc.strerror
    if exc.errno and exc.errno > 0:
        return os.strerror(exc.errno)
    return str(exc) or type(exc).__name__


def _request_bytes(request: Any) -> bytes:
    """The request line, headers and body of an httpx request with an in-memory body."""
    parts = [b"%s %s HTTP/1.1\r\n" % (request.method.encode("ascii"), request.url.raw_path)]
    for name, value in request.headers.raw:
        parts.append(b"%s: %s\r\n" % (name, value))
    parts.append(b"\r\n")
    parts.append(request.content)
    return b"".join(parts)


def _parse_head(head: bytes) -> tuple[int, list[tuple[bytes, bytes]], int | None, bool, bool]:
    """Status, headers, content length, chunked?, keep-alive? of a response head (ValueError if malformed)."""
    lines = head[:-4].split(b"\r\n")
    version, _, rest = lines[0].partition(b" ")
    code = rest[:3]
    if not version.startswith(b"HTTP/1.") or not (code.isdigit() and len(code) == 3) or rest[3:4] not in (b"", b" "):
        raise ValueError(f"status line {lines[0][:60]!r}")
    status = int(code)
    keep = version == b"HTTP/1.1"
    length: int | None = None
    chunked = False
    headers = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep:
            raise ValueError(f"header line {line[:60]!r}")
        name, value = name.strip().lower(), value.strip()
        if name == b"content-length":
            if not value.isdigit() or (length is not None and int(value) != length):
                raise ValueError(f"content-length {value[:30]!r}")
            length = int(value)
        elif name == b"transfer-encoding":
            chunked = b"chunked" in value.lower()
            continue
        elif name == b"connection":
            keep = value.lower() == b"keep-alive" or (keep and value.lower() != b"close")
        headers.append((name, value))
    if chunked:
        length = None  # Transfer-Encoding wins over Content-Length (RFC 9112, 6.3)
        headers = [(n, v) for n, v in headers if n != b"content-length"]
    elif length is None and status not in (204, 304) and not 100 <= status < 200:
        keep = False  # the body runs until the server closes the connection
    return status, headers, length, chunked, keep


_HEX = frozenset(b"0123456789abcdefABCDEF")


async def _read_body(reader: asyncio.StreamReader, status: int, length: int | None, chunked: bool,
                     limit: int | None = None) -> bytes:
    """The body after a response head, never reading more than ``limit`` bytes of it (ResponseTooLarge)."""
    if status in (204, 304) or 100 <= status < 200:
        return b""
    cap = limit if limit is not None else math.inf
    if chunked:
        chunks: list[bytes] = []
        total = 0
        while True:
            line = (await reader.readuntil(b"\r\n")).split(b";")[0].strip()
            if not line or not set(line) <= _HEX:
                raise ValueError(f"chunk size {line[:30]!r}")
            size = int(line, 16)
            if size == 0:
                while (trailer := await reader.readuntil(b"\r\n")) != b"\r\n":
                    total += len(trailer)
                    if total > cap:
                        raise ResponseTooLarge(int(cap), status)
                return b"".join(chunks)
            total += size
            if total > cap:
                raise ResponseTooLarge(int(cap), status)
            chunk = await reader.readexactly(size + 2)
            if chunk[-2:] != b"\r\n":
                raise ValueError("a chunk is not followed by CRLF")
            chunks.append(chunk[:-2])
    if length is not None:
        if length > cap:
            raise ResponseTooLarge(int(cap), status)
        return await reader.readexactly(length)
    parts: list[bytes] = []
    total = 0
    while part := await reader.read(64 * 1024):
        total += len(part)
        if total > cap:
            raise ResponseTooLarge(int(cap), status)
        parts.append(part)
    return b"".join(parts)
