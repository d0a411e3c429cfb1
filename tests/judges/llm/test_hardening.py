"""The OpenAI-compatible client against hostile or broken servers (issue 11, items 9-11).

Every server here is a real one on loopback (tests/llm_server.py), over HTTP and, where the code
paths differ, over HTTPS with a certificate made for the test: a server that echoes the API key
in every place an error text can come from, bodies of 50 MB (with a Content-Length, chunked, until
close, gzip-inflated), a port with nothing listening, a server that answers some requests and then
dies, and answers of every wrong shape. None of them may leak part of the key, exhaust memory,
charge an edit 0 or end in a traceback.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from llm_server import Answer as ServerAnswer
from llm_server import ChatServer, completion, fixed_backend, response_bytes

import semcer
from semcer.alignment.context import edit_contexts
from semcer.cli import main as cli_main
from semcer.errors import JudgeError
from semcer.judges import resolve_judge
from semcer.judges.llm import OPENAI_OPTIONS, openai_backend
from semcer.reports.text import render_judge_run
from semcer.store.judging import judge_into_store
from semcer.store.sqlite import JudgedEditStore

#: The label distribution the fixed server answers.
FIXED = (0.1, 0.2, 0.4, 0.2, 0.1)
#: A key whose 8-character pieces occur in no message the client writes.
KEY = "sk-live-Q7v9Lx2mZ4pR8tW1nB6cY3dF5gH0jK2s"


def grams(key: str, n: int = 8) -> set[str]:
    return {key[i:i + n] for i in range(len(key) - n + 1)}


def leaked(text: str, key: str = KEY) -> list[str]:
    """The 8-character pieces of ``key`` found in ``text``."""
    return sorted(g for g in grams(key) if g in text)


def many_contexts(n: int):
    al = semcer.align("Der Betrag ist 1.250 Euro", "Der Betrag ist 1.750 Eur0")
    base = edit_contexts(al.edits, al.ref_units, al.hyp_units, lang="de", line_id="0")
    return [dataclasses.replace(base[i % len(base)], marked_hyp=base[i % len(base)].marked_hyp + f" #{i}")
            for i in range(n)]


def closed_port() -> int:
    """A loopback port with nothing listening (bound, then released)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def judge_for(url: str, **options):
    opts = {"concurrency": 4, "timeout": 10.0, "max_retries": 2, "backoff_base": 0.01, "backoff_max": 0.05}
    opts.update(options)
    return resolve_judge("llm", endpoint=url, model="tiny", **opts)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1, made with the openssl command line."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem")],
                   check=True, capture_output=True)
    return d / "cert.pem", d / "key.pem"


@pytest.fixture(scope="module")
def servers(certificate):
    import ssl

    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(*certificate)
    with ChatServer(fixed_backend()) as plain, ChatServer(fixed_backend(), ssl_context=ctx) as tls:
        yield {"http": plain, "https": tls}


@pytest.fixture(params=["http", "https"])
def server(request, servers, certificate, monkeypatch):
    """The loopback server over plain HTTP (the lean transport) and over HTTPS (httpx's client)."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    s = servers[request.param]
    s.reset()
    yield s
    s.reset()


@pytest.fixture
def plain(servers):
    s = servers["http"]
    s.reset()
    yield s
    s.reset()


# -- item 9: no part of the key in any message --------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_redact_masks_every_piece_of_the_key_before_and_after_cutting(data):
    key = data.draw(st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZ0123456789-_", min_size=8, max_size=48), label="key")
    filler = st.text(alphabet="abcdefghijklmnopqrstuvwxyz \"':{}", max_size=30)
    pieces = []
    for _ in range(data.draw(st.integers(0, 8), label="pieces")):
        if data.draw(st.booleans()):
            pieces.append(data.draw(filler))
        else:  # a piece of the key: the whole of it, or a fragment of any length
            i = data.draw(st.integers(0, len(key) - 1))
            j = data.draw(st.integers(i + 1, len(key)))
            pieces.append(key[i:j])
    text = "".join(pieces)
    limit = data.draw(st.integers(0, 250), label="limit")
    out = openai_backend.redact(text, key, limit)
    assert leaked(out, key) == []
    assert len(out) <= limit + 3  # a mark "***" may start just before the cut; "…" marks the cut
    if not leaked(text, key):  # nothing to mask: a plain cut
        assert out == (text if len(text) <= limit else text[:limit] + "…")


@settings(max_examples=200, deadline=None)
@given(key=st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", min_size=8, max_size=48),
       before=st.integers(0, 260), after=st.integers(0, 40), limit=st.integers(0, 250))
def test_redact_masks_first_so_a_cut_leaves_no_end_of_the_key(key, before, after, limit):
    """A whole key near the cut leaves not even a short piece: masking comes before cutting."""
    out = openai_backend.redact("a" * before + key + "b" * after, key, limit)
    assert not set(out) & set(key), out


def _completion(**choice) -> bytes:
    return json.dumps({"choices": [{"index": 0, **choice}]}).encode()


def _leak_scenarios(bearer: str) -> list[bytes]:
    """Raw responses that put ``bearer`` (or pieces of it) at every offset around the client's cuts
    (answer texts at 40, status and header lines at 60, connection errors at 80, snippets at 120,
    error messages at 200): in a JSON error, a plain-text error, a body that is not JSON, a
    log-probability that is not a number, a token, an answer without probabilities, a status line
    and a header line."""
    key = bearer.removeprefix("Bearer ")
    pieces = [(o, bearer) for o in range(0, 240)]
    pieces += [(o, key[i:]) for o in (0, 33, 53, 73, 113, 193) for i in range(0, len(key) - 7, 4)]
    pieces += [(o, key[:j]) for o in (0, 33, 53, 73, 113, 193) for j in range(8, len(key), 4)]
    out = []
    for o, piece in pieces:
        text = "x" * o + piece + " and more text after it"
        out += [
            response_bytes(400, json.dumps({"error": {"message": text}}).encode()),
            response_bytes(400, text.encode()),
            response_bytes(200, text.encode()),
            response_bytes(200, _completion(logprobs={"content": [{"token": "1", "logprob": text}]})),
            response_bytes(200, _completion(logprobs={"content": [{"token": text, "logprob": -0.1,
                                                                   "top_logprobs": [{"token": text, "logprob": -0.1}]}]})),
            response_bytes(200, _completion(message={"content": text}, logprobs=None)),
            b"HTTQ/1.1 200 " + text.encode() + b"\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 200 OK\r\n" + text.encode() + b"\r\ncontent-length: 0\r\n\r\n",
        ]
    return out


def test_no_part_of_the_key_reaches_a_failure_reason_a_summary_or_an_error(plain, tmp_path, monkeypatch):
    monkeypatch.setenv("SEMCER_LEAK_KEY", KEY)
    bearer = f"Bearer {KEY}"
    queue = _leak_scenarios(bearer)
    n = len(queue)
    pending = list(reversed(queue))

    def echo(headers, body):
        assert headers["authorization"] == bearer
        return pending.pop() if pending else None

    plain.handler = echo
    judge = judge_for(plain.url, api_key_env="SEMCER_LEAK_KEY", concurrency=1, max_retries=0)
    with judge, JudgedEditStore(tmp_path / "s.sqlite") as store:
        judgements, summary = judge_into_store(judge, many_contexts(n), store)
    assert not pending  # every scenario was served, one per edit
    assert all(j.p is None for j in judgements) and summary["failures"] == n
    reasons = [j.failure for j in judgements]
    bad = [r for r in reasons if leaked(r)]
    assert not bad, bad[:3]
    # masked, not dropped: the reasons still say what happened (scenarios 0-7: the whole key at offset 0)
    assert reasons[:3] == ["HTTP 400: Bearer *** and more text after it after 1 attempt",
                           "HTTP 400: 'Bearer *** and more text after it' after 1 attempt",
                           "malformed answer: not JSON ('Bearer *** and more text after it') after 1 attempt"]
    assert reasons[4] == "no label among the top 2 tokens (first: 'Bearer ***…', 'Bearer ***…') after 1 attempt"
    assert reasons[5] == "answer 'Bearer ***…' is not a label and came without probabilities after 1 attempt"
    for where in (json.dumps(summary, ensure_ascii=False), render_judge_run(summary)):
        assert not leaked(where)

    # the errors that stop a run carry the server's message too
    for status in (401, 403, 404):
        for o in range(0, 240, 3):
            plain.handler = lambda h, b, o=o, status=status: response_bytes(
                status, json.dumps({"error": {"message": "x" * o + bearer + " is not valid"}}).encode())
            with pytest.raises(JudgeError) as err:
                judge.judge(many_contexts(1))
            assert f"HTTP {status}" in str(err.value) and not leaked(str(err.value)), str(err.value)


# -- item 10: a cap on the response body --------------------------------------------------------


def test_max_response_bytes_is_an_option_of_the_python_api_and_is_checked():
    assert "max_response_bytes" in OPENAI_OPTIONS and "max_connection_failures" in OPENAI_OPTIONS
    judge = resolve_judge("llm", endpoint="http://127.0.0.1:9/v1", model="m", max_response_bytes=4096)
    assert judge.backend.config.max_response_bytes == 4096
    assert judge.spec().options["max_response_bytes"] == 4096  # a worker process rebuilds the same cap
    assert resolve_judge("llm", endpoint="http://127.0.0.1:9/v1", model="m").backend.config.max_response_bytes == 2**20
    for bad in (0, -1, 1.5, True):
        with pytest.raises(JudgeError, match="max_response_bytes"):
            resolve_judge("llm", endpoint="http://127.0.0.1:9/v1", model="m", max_response_bytes=bad)


@pytest.mark.parametrize("fault", ["huge-length", "huge-chunked", "huge-close", "gzip-bomb"])
def test_an_answer_over_the_cap_fails_that_edit_at_once(server, fault):
    server.huge_bytes = 3 * 2**20
    server.faults.append(fault)
    with judge_for(server.url, max_response_bytes=2**20, concurrency=1) as judge:
        bad, good = judge.judge(many_contexts(2))
    assert bad.p is None and bad.severity is None
    assert "over the 1048576-byte limit (max_response_bytes)" in bad.failure, bad.failure
    assert server.stats.faults_served == [fault]  # not retried: the next request is the next edit's
    assert good.p == pytest.approx(FIXED)  # the connection after an oversized answer is a fresh one


def test_an_ordinary_answer_fits_a_small_cap(server):
    size = len(json.dumps(completion(fixed_backend()({}), "tiny", top_n=20)))
    assert size < 4096  # a chat completion with top-20 logprobs for one token: a few KB
    with judge_for(server.url, max_response_bytes=4096) as judge:
        out = judge.judge(many_contexts(3))
    assert all(j.p == pytest.approx(FIXED) for j in out)
    server.reset()
    server.faults.append("huge-length")
    server.huge_bytes = 4097
    with judge_for(server.url, max_response_bytes=4096, concurrency=1) as judge:
        (j,) = judge.judge(many_contexts(1))
    assert j.p is None and "4096-byte limit" in j.failure


_MEMORY_SCRIPT = r"""
import json, sys
import semcer
from semcer.alignment.context import edit_contexts
from semcer.judges import resolve_judge

def hwm_kb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))

url, faults = sys.argv[1], sys.argv[2].split(",")
al = semcer.align("Der Betrag ist 1.250 Euro", "Der Betrag ist 1.750 Euro")
(ctx,) = edit_contexts(al.edits, al.ref_units, al.hyp_units, lang="de", line_id="0")
with resolve_judge("llm", endpoint=url, model="tiny", max_retries=0) as warm:
    (w,) = warm.judge([ctx])  # imports, the loop thread, TLS, a connection: all before the baseline
    assert w.p is not None
out = {"baseline_kb": hwm_kb(), "runs": []}
for fault in faults:
    with resolve_judge("llm", endpoint=url, model="tiny", max_retries=2, backoff_base=0.01,
                       extra_body={"test_fault": fault}) as judge:
        (j,) = judge.judge([ctx])
    out["runs"].append({"fault": fault, "p": j.p, "failure": j.failure, "hwm_kb": hwm_kb()})
print(json.dumps(out))
"""


def test_a_huge_answer_is_never_held_in_memory(server, certificate):
    """50 MB answers (Content-Length, chunked, until close, gzip) to a client in its own process,
    whose peak resident memory (VmHWM) is read before and after: it grows by a few MB at most."""
    if not os.path.exists("/proc/self/status"):
        pytest.skip("needs /proc (Linux)")
    server.huge_bytes = 50 * 2**20
    faults = ["huge-length", "huge-chunked", "huge-close", "gzip-bomb"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "SSL_CERT_FILE": str(certificate[0])}
    proc = subprocess.run([sys.executable, "-c", _MEMORY_SCRIPT, server.url, ",".join(faults)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    growth = {r["fault"]: (r["hwm_kb"] - report["baseline_kb"]) / 1024 for r in report["runs"]}
    assert max(growth.values()) < 12, growth  # MiB; the unbounded client took 100+ MiB
    for r in report["runs"]:
        assert r["p"] is None and "max_response_bytes" in r["failure"], r


# -- item 11: a dead endpoint stops the run, a dying one trips a breaker ------------------------


def test_nothing_listening_stops_the_run_at_once_with_one_clear_error():
    port = closed_port()
    url = f"http://127.0.0.1:{port}/v1"
    judge = judge_for(url, max_retries=5, backoff_base=0.5, backoff_max=30.0, concurrency=4)
    started = time.monotonic()
    with judge, pytest.raises(JudgeError) as err:
        judge.judge(many_contexts(200))
    elapsed = time.monotonic() - started
    message = str(err.value)
    assert elapsed < 3.0, elapsed
    assert f"127.0.0.1:{port}" in message and "is the server running" in message and "--endpoint" in message
    assert "\n" not in message
    assert judge.stats.requests <= 3 + 4  # three failures in a row, and what was already in flight


def test_a_name_that_does_not_resolve_stops_the_run_too():
    judge = judge_for("http://no-such-host.invalid:8000/v1", max_retries=5, backoff_base=0.5)
    started = time.monotonic()
    with judge, pytest.raises(JudgeError, match=r"no-such-host\.invalid.*is the server running"):
        judge.judge(many_contexts(50))
    assert time.monotonic() - started < 30  # a few resolver round trips, not 50 edits x 6 attempts


def test_max_connection_failures_sets_how_many_failures_in_a_row_stop_the_run():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with judge_for(url, max_retries=9, concurrency=1, max_connection_failures=7) as judge, \
            pytest.raises(JudgeError, match="7 attempts"):
        judge.judge(many_contexts(5))
    assert judge.stats.requests == 7
    for bad in (-1, 1.5, "3"):
        with pytest.raises(JudgeError, match="max_connection_failures"):
            resolve_judge("llm", endpoint=url, model="m", max_connection_failures=bad)


def test_the_cli_prints_one_line_and_exits_2_against_a_dead_endpoint(tmp_path, capsys):
    refs, hyps = tmp_path / "refs.jsonl", tmp_path / "hyps.jsonl"
    refs.write_text("".join(json.dumps({"id": str(k), "text": f"Zeile {k}: 1.250 Euro"}) + "\n" for k in range(30)))
    hyps.write_text("".join(json.dumps({"id": str(k), "text": f"Zeile {k}: 1.750 Eur0"}) + "\n" for k in range(30)))
    url = f"http://127.0.0.1:{closed_port()}/v1"
    started = time.monotonic()
    rc = cli_main(["judge", str(refs), str(hyps), "--endpoint", url, "--model", "tiny",
                   "--store", str(tmp_path / "s.sqlite"), "-q"])
    out, err = capsys.readouterr()
    assert rc == 2 and time.monotonic() - started < 10
    assert err.count("\n") == 1 and "Traceback" not in err and "is the server running" in err, err
    assert "judged now" not in out


def _own_server(**kwargs) -> ChatServer:
    return ChatServer(fixed_backend(), **kwargs).start()


def test_a_server_that_dies_trips_the_breaker_failures_counted_never_zero():
    server = _own_server()
    server.die_after = 10
    try:
        judge = judge_for(server.url, max_retries=5, concurrency=2)
        started = time.monotonic()
        out = judge.judge(many_contexts(60))
        elapsed = time.monotonic() - started
    finally:
        server.stop()
    ok = [j for j in out if j.p is not None]
    failed = [j for j in out if j.p is None]
    assert len(ok) == 10 and all(j.p == pytest.approx(FIXED) for j in ok)
    assert len(failed) == 50 and all(j.severity is None for j in failed)
    assert all("stopped answering" in j.failure for j in failed), {j.failure for j in failed}
    assert judge.stats.failures == 50 and judge.stats.edits == 60
    # the breaker: a few requests after the death, not 50 edits x 6 attempts, and no waiting out backoffs
    assert judge.stats.requests <= 10 + 2 + 3 + 2, judge.stats.requests
    assert elapsed < 5
    # the next batch sends one request to see whether the endpoint is back, and fails at once when not
    before = judge.stats.requests
    again = judge.judge(many_contexts(30))
    assert all(j.p is None and "stopped answering" in j.failure for j in again)
    assert judge.stats.requests == before + 1
    judge.close()


def test_the_breaker_closes_when_the_endpoint_is_back():
    first = _own_server()
    first.die_after = 5
    port = first.port
    try:
        judge = judge_for(first.url, max_retries=3, concurrency=2)
        out = judge.judge(many_contexts(20))
        assert sum(j.p is not None for j in out) == 5 and sum(j.p is None for j in out) == 15
    finally:
        first.stop()
    second = ChatServer(fixed_backend(), port=port)  # the server came back after a restart
    try:
        second.start()
        out = judge.judge(many_contexts(20))
        assert all(j.p == pytest.approx(FIXED) for j in out)
        assert second.stats.requests == 20
    finally:
        second.stop()
        judge.close()


def test_the_summary_counts_failures_as_failures(tmp_path):
    server = _own_server()
    server.die_after = 10
    try:
        with judge_for(server.url, max_retries=5, concurrency=2) as judge, \
                JudgedEditStore(tmp_path / "s.sqlite") as store:
            ctxs = many_contexts(60)
            _, summary = judge_into_store(judge, ctxs, store)
            stored = len(store)
    finally:
        server.stop()
    assert summary["edits"] == summary["unique_edits"] == 60 and summary["cache_hits"] == 0
    assert summary["judged"] == 10 == stored  # only edits that got a distribution
    assert summary["failures"] == 50 and summary["sent"] == 60
    seconds = summary["seconds"]  # rounded to the millisecond; the rate to a tenth, from the unrounded time
    assert 10 / (seconds + 0.0005) - 0.05 <= summary["edits_per_second"] <= 10 / max(seconds - 0.0005, 1e-9) + 0.05
    text = render_judge_run(summary)
    (judged_line,) = [line for line in text.splitlines() if line.startswith("judged now")]
    assert judged_line.split()[2] == "10" and "60" in judged_line and "50 failed" in judged_line, judged_line


# -- other ways an answer could become a zero or a traceback ------------------------------------


def _logprob_answer(token, logprob) -> bytes:
    return response_bytes(200, _completion(logprobs={"content": [{"token": token, "logprob": logprob}]}))


@pytest.mark.parametrize("raw, reason", [
    (response_bytes(200, json.dumps({"choices": ["x"]}).encode()), "malformed answer"),
    (response_bytes(200, json.dumps({"choices": [{"message": "x"}]}).encode()), "malformed answer"),
    (response_bytes(200, _completion(logprobs={"content": ["x"]})), "malformed answer"),
    (response_bytes(200, _completion(logprobs={"content": [{"top_logprobs": "abc"}]})), "malformed answer"),
    (_logprob_answer(5, -0.1), "malformed answer"),
    (_logprob_answer("0", False), "malformed answer"),  # false is not a log-probability of 0
    (_logprob_answer("0", None), "malformed answer"),
    (_logprob_answer("0", "-0.0"), "malformed answer"),
    (response_bytes(200, b'{"choices": [{"logprobs": {"content": [{"token": "0", "logprob": -1' + b"0" * 400 + b'}]}}]}'),
     "malformed answer"),  # an integer no float can hold
    (response_bytes(200, b"[" * 200_000), "not JSON"),  # nested deeper than the parser's recursion
    (response_bytes(200, b'{"choices": [{"logprobs": {"content": [{"token": "0", "logprob": NaN}]}}]}'), "malformed answer"),
    (response_bytes(200, b"not gzip at all", b"content-encoding: gzip\r\n"), "content-encoding"),
    (response_bytes(200, b"\x00\x01", b"content-encoding: br\r\n"), "content-encoding"),
    (response_bytes(200, b"garbage", b"content-length: 7\r\ncontent-length: 70\r\n"), ""),
    (b"HTTP/1.1 200 OK\r\ncontent-length: -5\r\n\r\n", "malformed HTTP"),
    (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n", "malformed HTTP"),
    (b"HTTP/1.1 abc OK\r\n\r\n", "malformed HTTP"),
], ids=["choice-not-object", "message-not-object", "content-entry-not-object", "top-not-list", "token-not-string",
        "logprob-false", "logprob-null", "logprob-string", "logprob-huge-int", "json-too-deep", "logprob-nan",
        "gzip-garbage", "brotli", "two-content-lengths", "negative-length", "bad-chunk-size", "bad-status"])
def test_a_malformed_answer_is_a_failure_never_a_traceback_or_a_zero(plain, raw, reason):
    pending = [raw]
    plain.handler = lambda h, b: pending.pop() if pending else None
    with judge_for(plain.url, max_retries=0, concurrency=1) as judge:
        (j,) = judge.judge(many_contexts(1))
    assert not pending
    assert j.p is None and j.severity is None and reason in j.failure, j.failure


def test_a_compressed_answer_is_read_within_the_cap(server):
    body = json.dumps(completion(ServerAnswer([("3", -0.01), ("4", -4.6)], "3"), "tiny")).encode()
    server.handler = lambda h, b: response_bytes(200, gzip.compress(body), b"content-encoding: gzip\r\n")
    with judge_for(server.url, concurrency=1) as judge:
        (j,) = judge.judge(many_contexts(1))
    assert j.p is not None and j.mode == 3


def test_an_interim_1xx_answer_is_skipped_and_never_answers_the_next_edit(plain):
    """A 103 before the answer: the answer that follows is this edit's, not the next one's."""
    answers = iter([ServerAnswer([("4", -0.01)], "4"), ServerAnswer([("0", -0.01)], "0")])

    def early_hints(headers, body):
        ans = next(answers, None)
        if ans is None:
            return None
        payload = json.dumps(completion(ans, "tiny")).encode()
        return b"HTTP/1.1 103 Early Hints\r\nlink: </x>; rel=preload\r\n\r\n" + response_bytes(200, payload)

    plain.handler = early_hints
    with judge_for(plain.url, concurrency=1, max_retries=0) as judge:
        first, second = judge.judge(many_contexts(2))
    assert first.p is not None and first.mode == 4, first.failure
    assert second.p is not None and second.mode == 0, second.failure


def test_a_failure_reason_is_one_line_without_control_characters(plain):
    """A server's message that would clear the terminal and start new lines stays one printable line."""
    message = "bad\x1b[2J\x1b]0;owned\x07 request\r\nsecond line\u2028third\x85"
    plain.handler = lambda h, b: response_bytes(400, json.dumps({"error": {"message": message}}).encode())
    with judge_for(plain.url, max_retries=0) as judge:
        (j,) = judge.judge(many_contexts(1))
    assert j.p is None and j.failure.startswith("HTTP 400: bad\\x1b[2J\\x1b]0;owned\\x07 request\\x0d\\x0asecond line")
    assert not any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 or ch in "\u2028\u2029" for ch in j.failure), j.failure
