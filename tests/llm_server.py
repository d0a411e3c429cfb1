"""A real OpenAI-compatible chat-completions server on loopback, for the LLM judge's tests and bench.

An asyncio HTTP/1.1 server (keep-alive, Content-Length bodies) on 127.0.0.1 with an ephemeral
port, running in a background thread (``ChatServer``) or as its own process (``python
tests/llm_server.py --fixed``, which prints its port); with an ``ssl_context`` it speaks HTTPS.
``POST /v1/chat/completions`` is answered by a backend function from the request body; faults can
be queued (429, 500, a hang past the client's timeout, a dropped connection, garbage, an answer
without probabilities, bodies of ``huge_bytes`` streamed in small pieces, a gzip bomb) or named by
the request itself (a ``test_fault`` field in its body, for clients in other processes); a
``handler`` can answer with any raw bytes; ``die_after`` makes the server stop listening and drop
every connection after that many answers. The server counts requests, the most requests in flight
at once, and keeps every request's headers and body, so a test can check what the client sent.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import math
import ssl
import sys
import threading
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

LABELS = ("0", "1", "2", "3", "4")

#: A backend maps a request body to (top (token, logprob) pairs at the answer position, answer text, prompt tokens).
Backend = Callable[[dict], "Answer"]
#: A handler maps (request headers, request body) to a complete raw HTTP response, or None for the usual answer.
Handler = Callable[[dict, dict], "bytes | None"]

#: The pieces huge bodies are written in: the server never holds more than this of one.
PIECE = 64 * 1024


@dataclass
class Answer:
    top: list[tuple[str, float]]
    text: str
    prompt_tokens: int = 0


@dataclass
class ServerStats:
    requests: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    headers: list[dict[str, str]] = field(default_factory=list)
    bodies: list[dict] = field(default_factory=list)
    faults_served: list[str] = field(default_factory=list)


def completion(answer: Answer, model: str, *, logprobs: bool = True, top_n: int = 20) -> dict:
    """A chat-completions response carrying ``answer`` (its first ``top_n`` tokens as top_logprobs)."""
    top = sorted(answer.top, key=lambda t: -t[1])[:top_n]
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": answer.text},
        "finish_reason": "length",
    }
    if logprobs:
        chosen = top[0] if top else (answer.text, 0.0)
        choice["logprobs"] = {"content": [{
            "token": chosen[0], "logprob": chosen[1], "bytes": list(chosen[0].encode()),
            "top_logprobs": [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in top],
        }]}
    else:
        choice["logprobs"] = None
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
        "choices": [choice],
        "usage": {"prompt_tokens": answer.prompt_tokens, "completion_tokens": 1,
                  "total_tokens": answer.prompt_tokens + 1},
    }


def fixed_backend(probs: tuple[float, ...] = (0.1, 0.2, 0.4, 0.2, 0.1), other: float = 0.0) -> Backend:
    """Always the same label distribution (plus one non-label token with probability ``other``)."""
    scale = 1.0 - other
    top = [(label, math.log(p * scale)) for label, p in zip(LABELS, probs) if p > 0]
    if other > 0:
        top.append(("the", math.log(other)))
    best = max(top, key=lambda t: t[1])[0]
    answer = Answer(top, best, 100)
    return lambda body: answer


def model_backend(model: Any, tokenizer: Any, *, top_n: int = 20) -> Backend:
    """A causal LM behind the endpoint, as vLLM serves one: the chat template renders the messages,
    the next-token log-softmax at the answer position gives ``top_n`` tokens (decoded) and the answer."""
    import torch

    lock = threading.Lock()

    def answer(body: dict) -> Answer:
        text = tokenizer.apply_chat_template(body["messages"], tokenize=False, add_generation_prompt=True)
        ids = tokenizer.encode(text, add_special_tokens=False)
        with lock, torch.inference_mode():
            logits = model(input_ids=torch.tensor([ids])).logits[0, -1].double()
            logp = torch.log_softmax(logits, dim=-1)
            values, indices = torch.topk(logp, top_n)
        top = [(tokenizer.decode([int(i)]), float(v)) for v, i in zip(values, indices)]
        return Answer(top, top[0][0], len(ids))

    return answer


class ChatServer:
    """The loopback server. ``with ChatServer(backend) as server: server.url`` is the client's base URL."""

    def __init__(self, backend: Backend, *, delay: float = 0.0, hang: float = 5.0,
                 ssl_context: ssl.SSLContext | None = None, port: int = 0) -> None:
        self.backend = backend
        self.delay = delay
        self.hang = hang
        self.ssl_context = ssl_context
        self.faults: collections.deque[str] = collections.deque()
        self.fault_all: str | None = None
        self.handler: Handler | None = None
        self.huge_bytes = 50 * 2**20
        self.die_after: int | None = None
        self.answered = 0
        self.dead = False
        self.stats = ServerStats()
        self.port = port  # 0: an ephemeral port
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.base_events.Server | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"{'https' if self.ssl_context else 'http'}://127.0.0.1:{self.port}/v1"

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> ChatServer:
        self._thread = threading.Thread(target=self._run, name="llm-test-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("test server did not start")
        return self

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", self.port,
                                                                              ssl=self.ssl_context))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    def stop(self) -> None:
        if self._loop is None:
            return

        async def shutdown() -> None:
            assert self._server is not None
            self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        assert self._thread is not None
        self._thread.join(5)
        self._loop = None

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def reset(self) -> None:
        self.stats = ServerStats()
        self.faults.clear()
        self.fault_all = None
        self.handler = None
        self.huge_bytes = 50 * 2**20
        self.die_after = None
        self.answered = 0

    def _die(self) -> None:
        """Stop listening and drop every connection: the port then refuses connections (for good:
        a test of a dying server starts its own, and may start another on the same port)."""
        self.dead = True
        assert self._server is not None
        self._server.close()
        for writer in list(self._writers):
            with contextlib.suppress(Exception):
                writer.transport.abort()

    # -- HTTP -----------------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                keep = await self._respond(writer, method, path, headers, body)
                await writer.drain()
                if not keep or headers.get("connection", "").lower() == "close":
                    break
        except (asyncio.IncompleteReadError, OSError, asyncio.CancelledError, asyncio.LimitOverrunError):
            pass
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()

    async def _respond(self, writer: asyncio.StreamWriter, method: str, path: str, headers: dict, raw: bytes) -> bool:
        stats = self.stats
        stats.requests += 1
        stats.in_flight += 1
        stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
        stats.headers.append(headers)
        try:
            if method != "POST" or not path.endswith("/chat/completions"):
                return self._send(writer, 404, {"error": {"message": f"no route {method} {path}"}})
            body = json.loads(raw)
            stats.bodies.append(body)
            if self.die_after is not None and self.answered >= self.die_after:
                self._die()
                return False
            self.answered += 1
            fault = self.faults.popleft() if self.faults else (body.get("test_fault") or self.fault_all)
            if fault:
                stats.faults_served.append(fault)
            if self.delay:
                await asyncio.sleep(self.delay)
            if self.handler is not None:
                payload = self.handler(headers, body)
                if payload is not None:
                    writer.write(payload)
                    return False
            if fault and fault.startswith("huge-"):
                await self._send_huge(writer, fault)
                return False
            if fault == "gzip-bomb":  # a small body that inflates to huge_bytes
                return self._send_raw(writer, 200, gzip_bomb(self.huge_bytes), b"content-encoding: gzip\r\n")
            if fault == "hang":
                await asyncio.sleep(self.hang)
                return False
            if fault == "drop":
                return False
            if fault and fault.isdigit():
                return self._send(writer, int(fault), {"error": {"message": f"injected {fault}"}})
            if fault == "echo-auth":  # a careless server that repeats the credentials in its error
                return self._send(writer, 400, {"error": {"message": f"bad request from {headers.get('authorization')}"}})
            if fault == "garbage":
                return self._send_raw(writer, 200, b"<html>not json</html>")
            if fault == "wrong-shape":
                return self._send(writer, 200, {"choices": []})
            answer = self.backend(body)
            if fault == "no-label":
                answer = Answer([("the", -0.1), ("a", -2.5)], "the", answer.prompt_tokens)
            want = bool(body.get("logprobs")) and fault != "no-logprobs"
            response = completion(answer, body.get("model", ""), logprobs=want, top_n=int(body.get("top_logprobs") or 0) or 1)
            return self._send(writer, 200, response)
        finally:
            stats.in_flight -= 1

    async def _send_huge(self, writer: asyncio.StreamWriter, fault: str) -> None:
        """``huge_bytes`` of a JSON string in PIECE-sized writes: with a Content-Length
        (``huge-length``), chunked (``huge-chunked``) or until the connection closes (``huge-close``)."""
        n = self.huge_bytes
        if fault == "huge-length":
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % n)
        elif fault == "huge-chunked":
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n")
        else:
            writer.write(b"HTTP/1.0 200 OK\r\ncontent-type: application/json\r\n\r\n")
        piece = b'"' + b"x" * (PIECE - 1)
        sent = 0
        while sent < n:
            part = piece[: min(PIECE, n - sent)]
            writer.write(b"%x\r\n%s\r\n" % (len(part), part) if fault == "huge-chunked" else part)
            sent += len(part)
            await writer.drain()  # raises once the client has hung up
        if fault == "huge-chunked":
            writer.write(b"0\r\n\r\n")
        await writer.drain()

    @staticmethod
    def _send(writer: asyncio.StreamWriter, status: int, obj: Any) -> bool:
        return ChatServer._send_raw(writer, status, json.dumps(obj).encode())

    @staticmethod
    def _send_raw(writer: asyncio.StreamWriter, status: int, payload: bytes, extra: bytes = b"") -> bool:
        writer.write(response_bytes(status, payload, extra))
        return True


def response_bytes(status: int, payload: bytes, extra: bytes = b"") -> bytes:
    """A complete HTTP/1.1 response with a Content-Length (``extra``: more header lines, each ending in CRLF)."""
    reason = {200: "OK", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error"}.get(status, "Status")
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(payload)}\r\n".encode()
            + extra + b"\r\n" + payload)


_BOMBS: dict[int, bytes] = {}


def gzip_bomb(n: int) -> bytes:
    """A gzip stream of ``n`` spaces (a valid JSON prefix), compressed about a thousandfold."""
    if n not in _BOMBS:
        z = zlib.compressobj(9, zlib.DEFLATED, 31)
        block = b" " * 2**20
        parts = [z.compress(block) for _ in range(n // len(block))]
        parts.append(z.compress(b" " * (n % len(block))))
        parts.append(z.flush())
        _BOMBS[n] = b"".join(parts)
    return _BOMBS[n]


def main() -> None:
    """Serve the fixed-answer backend until killed; print the port on the first line of stdout."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixed", action="store_true", help="fixed-answer backend (the only one here)")
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    server = ChatServer(fixed_backend(), delay=args.delay).start()
    print(server.port, flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        threading.Event().wait()
    sys.exit(0)


if __name__ == "__main__":
    main()
