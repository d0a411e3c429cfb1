"""The endpoint is checked when the LLM judge is built, before any request: a port out of range, a
query string or fragment, a URL without a host, another scheme are each one JudgeError naming
--endpoint; every usable form still reaches a real loopback server."""

from __future__ import annotations

import json
import time

import pytest
from llm_server import ChatServer, fixed_backend

import semcer
from semcer.alignment.context import edit_contexts
from semcer.cli import main as cli_main
from semcer.errors import JudgeError
from semcer.judges import resolve_judge
from semcer.judges.llm import OpenAIConfig

BAD = [
    ("http://127.0.0.1:99999/v1", "the port must be a number from 1 to 65535, not '99999'"),
    ("http://127.0.0.1:0/v1", "the port must be a number from 1 to 65535, not '0'"),
    ("http://127.0.0.1:abc/v1", "the port must be a number from 1 to 65535, not 'abc'"),
    ("http://127.0.0.1:-1/v1", "the port must be a number from 1 to 65535, not '-1'"),
    ("http://[::1]:70000/v1", "the port must be a number from 1 to 65535, not '70000'"),
    ("http://127.0.0.1:9/v1?x=1", "a query string or fragment cannot be part of it"),
    ("http://127.0.0.1:9/v1?", "a query string or fragment cannot be part of it"),
    ("http://127.0.0.1:9/v1#top", "a query string or fragment cannot be part of it"),
    ("http://", "no host"),
    ("https://", "no host"),
    ("http://:8000/v1", "no host"),
    ("http:///v1", "no host"),
    ("ftp://127.0.0.1/v1", "the scheme must be http:// or https://"),
    ("127.0.0.1:8000/v1", "the scheme must be http:// or https://"),
    ("http:/127.0.0.1/v1", "the scheme must be http:// or https://"),
    ("http://[::1/v1", "not a valid URL"),
    ("http://127.0.0.1:8000/v1\n", "it holds whitespace or control characters"),
    ("http://127.0.0.1:8000/ v1", "it holds whitespace or control characters"),
]


@pytest.mark.parametrize("endpoint, problem", BAD)
def test_a_bad_endpoint_is_one_line_naming_the_option(endpoint, problem):
    for build in (lambda: OpenAIConfig(endpoint, "m"), lambda: resolve_judge("llm", endpoint=endpoint, model="m")):
        with pytest.raises(JudgeError) as info:
            build()
        message = str(info.value)
        assert message.startswith(f"--endpoint {endpoint!r}: {problem}"), message
        assert "\n" not in message and message.endswith("e.g. http://127.0.0.1:8000/v1")


def test_a_long_endpoint_is_quoted_bounded():
    with pytest.raises(JudgeError) as info:
        OpenAIConfig("http://127.0.0.1:9/v1?" + "x" * 100_000, "m")
    assert len(str(info.value)) < 400 and "100,022 characters" in str(info.value)


@pytest.fixture(scope="module")
def server():
    with ChatServer(fixed_backend()) as s:
        yield s


def _contexts():
    al = semcer.align("Tấm Cám đi chợ", "Tám Cám đi chợ")
    return edit_contexts(al.edits, al.ref_units, al.hyp_units, lang="vi", line_id="vi-1")


@pytest.mark.parametrize("form", ["{url}", "{url}/", "HTTP://127.0.0.1:{port}/v1", "http://localhost:{port}/v1",
                                  "{url}/chat/completions"])
def test_every_usable_form_reaches_the_server(server, form):
    server.reset()
    endpoint = form.format(url=server.url, port=server.port)
    with resolve_judge("llm", endpoint=endpoint, model="tiny", max_retries=0, timeout=10.0) as judge:
        out = judge.judge(_contexts())
    assert [j.p for j in out] == [pytest.approx((0.1, 0.2, 0.4, 0.2, 0.1))]
    assert server.stats.requests == 1


def test_a_refused_endpoint_sends_nothing(server):
    server.reset()
    for endpoint in (f"{server.url}?x=1", f"{server.url}#f", f"http://127.0.0.1:{server.port + 65536}/v1"):
        with pytest.raises(JudgeError, match=r"^--endpoint "):
            resolve_judge("llm", endpoint=endpoint, model="tiny")
    assert server.stats.requests == 0


@pytest.mark.parametrize("endpoint", ["http://127.0.0.1:99999/v1", "http://127.0.0.1:9/v1?x=1", "http://"])
@pytest.mark.parametrize("command", ["score", "judge"])
def test_the_cli_refuses_a_bad_endpoint_in_one_line_before_any_work(tmp_path, capsys, endpoint, command):
    refs, hyps = tmp_path / "refs.jsonl", tmp_path / "hyps.jsonl"
    refs.write_text("".join(json.dumps({"id": str(k), "text": f"Zeile {k}: 1.250 Euro"}) + "\n" for k in range(20)))
    hyps.write_text("".join(json.dumps({"id": str(k), "text": f"Zeile {k}: 1.750 Eur0"}) + "\n" for k in range(20)))
    store = tmp_path / "s.sqlite"
    started = time.monotonic()
    rc = cli_main([command, str(refs), str(hyps), "--judge", "llm", "--endpoint", endpoint, "--model", "m",
                   "--store", str(store), "-q"] if command == "score" else
                  [command, str(refs), str(hyps), "--endpoint", endpoint, "--model", "m", "--store", str(store), "-q"])
    out, err = capsys.readouterr()
    assert rc == 2 and time.monotonic() - started < 10
    assert err.startswith(f"semcer: error: --endpoint {endpoint!r}: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and out == ""
    assert not store.exists()


def test_the_command_line_checks_the_endpoint_before_reading_the_inputs(tmp_path, capsys):
    from semcer.cli import main

    missing = str(tmp_path / "missing.jsonl")
    assert main(["score", missing, missing, "--judge", "llm", "--endpoint", "http://127.0.0.1:99999/v1",
                 "--model", "m"]) == 2
    assert capsys.readouterr().err.startswith("semcer: error: --endpoint 'http://127.0.0.1:99999/v1': the port")
