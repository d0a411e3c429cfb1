"""OpenAI-compatible chat completions (vLLM, SGLang, llama.cpp server, Ollama, hosted APIs) over httpx.

One request per edit: ``max_tokens: 1``, ``temperature: 0``, ``logprobs: true``,
``top_logprobs: 20``. Requests run concurrently on an event loop of the backend's own thread (so
the judge works the same from scripts, notebooks and async code), at most ``concurrency`` at once,
each with a timeout, and are retried with exponential backoff and full jitter on 429, 5xx,
timeouts, connection errors and malformed answers. An edit still unanswered after the last retry is
a failure (``Judgement.p is None``), never a 0.

The API key is read from an environment variable when the first request is made and lives only in
the request headers: it is never logged, cached, put in the identity or written anywhere.

Plain-HTTP endpoints (a local vLLM or llama.cpp server, where throughput matters) go through
:class:`HTTP11Transport`, a lean keep-alive HTTP/1.1 transport for httpx: httpx's default
connection pool costs about 2 ms of CPU per request, which would cap a client at a few hundred
requests per second; ``https://`` endpoints (hosted APIs: TLS, proxies) use httpx's own client.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import math
import os
import random
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from semcer.errors import JudgeError
from semcer.judges.base import JudgeSpec, JudgeStats
from semcer.judges.llm.judge import Reading, label_probs_from_top
from semcer.judges.llm.prompt import Prompt

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"

#: Statuses retried with backoff; other 4xx are either fatal (below) or a failure of that one edit.
_RETRY_STATUSES = frozenset({408, 409, 425, 429})
#: Statuses that mean the configuration is wrong (key, endpoint, model): the run stops at once.
_FATAL_STATUSES = frozenset({401, 403, 404, 405})


@dataclass(frozen=True)
class OpenAIConfig:
    """How to reach an OpenAI-compatible server.

    ``endpoint`` is the client's base URL (``http://127.0.0.1:8000/v1``); requests go to
    ``{endpoint}/chat/completions``. ``model_revision`` pins what the model name alone does not
    (weights revision, quantisation): it goes into the identity, so a new revision never reuses
    another's cached judgements. ``extra_body`` is merged into every request (e.g.
    ``{"chat_template_kwargs": {"enable_thinking": false}}``) and its hash joins the identity.
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

    def __post_init__(self) -> None:
        if not self.endpoint or not self.endpoint.startswith(("http://", "https://")):
            raise JudgeError(f"endpoint {self.endpoint!r}: give the server's base URL, e.g. http://127.0.0.1:8000/v1")
        if not self.model:
            raise JudgeError("no model name: give the served model's name (--model), as the server lists it at /v1/models")
        if self.concurrency < 1:
            raise JudgeError(f"concurrency must be at least 1, got {self.concurrency}")
        if not self.timeout > 0:
            raise JudgeError(f"timeout must be positive, got {self.timeout}")
        if self.max_retries < 0:
            raise JudgeError(f"max_retries must be 0 or more, got {self.max_retries}")
        if not 1 <= self.top_logprobs <= 20:
            raise JudgeError(f"top_logprobs must be between 1 and 20, got {self.top_logprobs}")
        if self.extra_body is not None and not isinstance(self.extra_body, Mapping):
            raise JudgeError("extra_body must be a JSON object")

    @property
    def url(self) -> str:
        base = self.endpoint.rstrip("/")
        return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


class _Fatal(Exception):
    """A configuration error reported by the server; stops the whole batch."""


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
        tasks = [asyncio.ensure_future(self._read_one(send, p, labels, stats)) for p in prompts]
        try:
            return list(await asyncio.gather(*tasks))
        except _Fatal as exc:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise JudgeError(str(exc)) from None

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
            self._transport = HTTP11Transport(max_idle=c.concurrency)
            self._send = self._transport.handle_async_request
        else:
            limits = httpx.Limits(max_connections=c.concurrency, max_keepalive_connections=c.concurrency)
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(c.timeout), limits=limits, follow_redirects=False)
            self._send = self._client.send
        self._sem = asyncio.Semaphore(c.concurrency)
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
        import httpx

        c = self.config
        body = self._body(prompt)
        assert self._sem is not None
        problem = ""
        retry_after = 0.0
        for attempt in range(c.max_retries + 1):
            if attempt:
                stats.retries += 1
                await asyncio.sleep(self._delay(attempt, retry_after))
            retry_after = 0.0
            async with self._sem:
                stats.requests += 1
                stats.in_flight += 1
                try:
                    request = httpx.Request("POST", self._url, headers=self._headers, content=body,
                                            extensions=self._extensions)
                    response = await send(request)
                except httpx.TimeoutException:
                    problem = f"no answer within {c.timeout:g} s"
                    continue
                except httpx.TransportError as exc:
                    problem = f"connection error ({type(exc).__name__}: {self._scrub(str(exc))[:80]})"
                    continue
                finally:
                    stats.in_flight -= 1
            status = response.status_code
            if status == 200:
                reading = self._parse(response.content, labels, stats)
                if not reading.failure:
                    stats.edits += 1
                    return reading
                problem = reading.failure
                continue
            message = self._scrub(_error_message(response))
            if status in _FATAL_STATUSES:
                hint = ""
                if status in (404, 405):
                    hint = " (is the endpoint the base URL, e.g. http://127.0.0.1:8000/v1, and the model name right?)"
                raise _Fatal(f"{c.url}: HTTP {status}: {message}{hint}")
            problem = f"HTTP {status}: {message}"
            if status in _RETRY_STATUSES or status >= 500:
                retry_after = _retry_after(response)
                continue
            break  # another 4xx (e.g. 400, prompt too long): this edit fails, retrying would not help
        stats.edits += 1
        attempts = f" after {attempt + 1} attempt{'s' if attempt else ''}"
        return Reading(failure=f"{problem}{attempts}")

    def _delay(self, attempt: int, retry_after: float) -> float:
        """Full-jitter exponential backoff; a server's Retry-After is honoured up to the cap."""
        c = self.config
        cap = min(c.backoff_max, c.backoff_base * (2 ** (attempt - 1)))
        return max(min(retry_after, c.backoff_max), random.uniform(0.0, cap))

    def _parse(self, content: bytes, labels: tuple[str, ...], stats: JudgeStats) -> Reading:
        try:
            data = json.loads(content)
        except (ValueError, UnicodeDecodeError):
            return Reading(failure=f"malformed answer: not JSON ({self._scrub(_snippet(content))})")
        try:
            reading = parse_chat_completion(data, labels)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            return Reading(failure=f"malformed answer: {type(exc).__name__} {self._scrub(str(exc))[:120]}")
        usage = data.get("usage") if isinstance(data, dict) else None
        if isinstance(usage, dict):
            prompt_tokens, completion_tokens = usage.get("prompt_tokens"), usage.get("completion_tokens")
            if isinstance(prompt_tokens, int):
                stats.prompt_tokens += prompt_tokens
                stats.tokens_reported = True
            if isinstance(completion_tokens, int):
                stats.completion_tokens += completion_tokens
        return reading

    def _scrub(self, text: str) -> str:
        """``text`` with the API key blanked, should a server ever echo it."""
        return text.replace(self._key, "***") if self._key else text

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
        loop.stop()

    def __del__(self) -> None:
        # Never wait here: at interpreter exit the loop thread may already be gone.
        loop = getattr(self, "_loop", None)
        if loop is not None:
            loop.stop(wait=False)


def parse_chat_completion(data: Any, labels: Sequence[str]) -> Reading:
    """A reading from a chat-completions response: label probabilities at the first generated token.

    Uses ``choices[0].logprobs.content[0]``: its ``top_logprobs`` plus the chosen token. Without
    probabilities, the answer text is used (a one-hot reading). Raises KeyError/TypeError/ValueError
    on a response of the wrong shape.
    """
    choice = data["choices"][0]
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if content:
        first = content[0]
        top = [(t["token"], t["logprob"]) for t in (first.get("top_logprobs") or [])]
        if "token" in first and "logprob" in first:
            top.append((first["token"], first["logprob"]))
        if not top:
            raise ValueError("logprobs.content[0] has no tokens")
        probs, missing = label_probs_from_top(top, labels)
        if math.fsum(probs) <= 0.0:
            shown = ", ".join(repr(t) for t, _ in top[:5])
            return Reading(failure=f"no label among the top {len(top)} tokens (first: {shown})")
        return Reading(label_probs=probs, missing=missing)
    message = choice.get("message") or {}
    text = message.get("content")
    if not isinstance(text, str):
        raise ValueError("the answer has neither logprobs nor message.content")
    if text.strip() not in labels:
        return Reading(failure=f"answer {text.strip()[:40]!r} is not a label and came without probabilities")
    return Reading(answer=text)


def _error_message(response: Any) -> str:
    try:
        data = response.json()
        err = data.get("error", data) if isinstance(data, dict) else data
        msg = err.get("message", err) if isinstance(err, dict) else err
        return str(msg)[:200]
    except Exception:
        return _snippet(response.content)


def _snippet(content: bytes) -> str:
    text = content[:120].decode("utf-8", "replace").replace("\n", " ")
    return repr(text)


def _retry_after(response: Any) -> float:
    value = response.headers.get("retry-after")
    if not value:
        return 0.0
    try:
        return max(0.0, float(value))
    except ValueError:
        return 0.0


class HTTP11Transport:
    """A lean keep-alive HTTP/1.1 transport for httpx over asyncio streams (plain HTTP only).

    Implements ``httpx.AsyncBaseTransport``'s interface (``handle_async_request``, ``aclose``), so it
    can also be mounted in an ``httpx.AsyncClient``. Bodies are read whole (Content-Length, chunked,
    or until the server closes). Connections are reused; a reused connection that the server closed
    meanwhile is replaced once, transparently. Errors are httpx's: ``ConnectError``,
    ``ConnectTimeout``, ``ReadTimeout``, ``ReadError``, ``RemoteProtocolError``.
    """

    def __init__(self, *, max_idle: int = 64) -> None:
        self.max_idle = max_idle
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
                    body = await _read_body(reader, status, length, chunked)
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
            except BaseException:
                writer.close()
                raise
            if keep and not self._closed and len(self._idle.get(key, ())) < self.max_idle:
                self._idle.setdefault(key, []).append(conn)
            else:
                writer.close()
            return httpx.Response(status, headers=headers, content=body, request=request,
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
            raise httpx.ConnectError(f"could not connect to {key[0]}:{key[1]}: {exc.strerror or exc}", request=request) from None
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
    if not version.startswith(b"HTTP/1."):
        raise ValueError(f"status line {lines[0][:60]!r}")
    status = int(rest[:3])
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
            length = int(value)
        elif name == b"transfer-encoding":
            chunked = b"chunked" in value.lower()
            continue
        elif name == b"connection":
            keep = value.lower() == b"keep-alive" or (keep and value.lower() != b"close")
        headers.append((name, value))
    if length is None and not chunked and status not in (204, 304):
        keep = False  # the body runs until the server closes the connection
    return status, headers, length, chunked, keep


async def _read_body(reader: asyncio.StreamReader, status: int, length: int | None, chunked: bool) -> bytes:
    if chunked:
        chunks: list[bytes] = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip(), 16)
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                    pass
                return b"".join(chunks)
            chunks.append((await reader.readexactly(size + 2))[:-2])
    if length is not None:
        return await reader.readexactly(length)
    if status in (204, 304) or 100 <= status < 200:
        return b""
    return await reader.read()
