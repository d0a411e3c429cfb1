"""The LLM judge: prompt, distribution read-out, OpenAI-compatible client, HF and vLLM backends, CLI.

A real HTTP server on loopback (tests/llm_server.py) answers chat completions with logprobs, either
from a fixed distribution (fast; faults injected on demand) or from a tiny causal LM built here
(random weights from a fixed seed, a BPE tokenizer trained on the prompts; nothing downloaded).
The model-backed tests need torch and transformers and are skipped without them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import math
import os
import sqlite3
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from helpers import ROOT
from llm_server import ChatServer, fixed_backend, model_backend

import semcer
from semcer.alignment.context import EditContext, edit_contexts
from semcer.cli import main as cli_main
from semcer.errors import JudgeError
from semcer.io.collections import read_collection
from semcer.io.pairing import pair_collections
from semcer.judges import resolve_judge
from semcer.judges.distribution import RATINGS
from semcer.judges.llm import (
    LLMJudge,
    MassSummary,
    OpenAIConfig,
    Reading,
    judgement_from,
    label_mass,
)
from semcer.judges.llm.judge import label_probs_from_top
from semcer.judges.llm.openai_backend import HTTP11Transport, parse_chat_completion
from semcer.judges.llm.prompt import TEMPLATE_VERSION, build_prompt, needs_code_points, resolve_labels
from semcer.store.cached import judge_cached
from semcer.store.judging import line_contexts
from semcer.store.sqlite import JudgedEditStore

DIGITS = ("0", "1", "2", "3", "4")

#: Real lines in several scripts: a tone mark making another name, digits in an amount, an
#: ideograph, a lost negation, a Devanagari vowel sign, a ZWJ and a space.
PAIRS = [
    ("Tấm Cám đi chợ hôm nay", "Tám Cám đi chơ hôm nav", "vi"),
    ("Der Betrag ist 1.250 Euro", "Der Betrag ist 1.750 Euro.", "de"),
    ("这是一个中文句子", "这是一个中又句子", "zh"),
    ("This is not valid", "This is now valid", "en"),
    ("क्षत्रिय राजा", "क्षत्रय राजा", "hi"),
    ("नमस्ते दुनिया", "नमस्\u200dते दुनिया", "hi"),
    ("Das ist nicht gültig", "Das istnicht gultig", "de"),
]


def contexts_of(pairs=PAIRS):
    out = []
    for k, (ref, hyp, lang) in enumerate(pairs):
        al = semcer.align(ref, hyp)
        out += edit_contexts(al.edits, al.ref_units, al.hyp_units, lang=lang, line_id=str(k))
    return out


def many_contexts(n: int):
    """``n`` distinct edit contexts (distinct store keys)."""
    base = contexts_of()
    return [dataclasses.replace(base[i % len(base)], marked_hyp=base[i % len(base)].marked_hyp + f" #{i}")
            for i in range(n)]


def llm_judge(server: ChatServer, **options) -> LLMJudge:
    # a generous timeout: the model servers run a torch model on a shared 2-core machine (tests of
    # timeouts pass their own)
    opts = {"concurrency": 4, "timeout": 30.0, "max_retries": 3, "backoff_base": 0.01, "backoff_max": 0.05}
    opts.update(options)
    return resolve_judge("llm", endpoint=server.url, model="tiny", **opts)


@pytest.fixture(scope="module")
def fixed_server():
    with ChatServer(fixed_backend()) as server:
        yield server


@pytest.fixture
def server(fixed_server):
    fixed_server.reset()
    fixed_server.delay = 0.0
    yield fixed_server
    fixed_server.reset()


# -- the prompt ----------------------------------------------------------------------------------


def test_prompt_puts_what_a_line_shares_before_the_edit():
    ctxs = [c for c in contexts_of() if c.line_id == "0"]
    assert len(ctxs) >= 2
    a, b = (build_prompt(c, DIGITS) for c in ctxs[:2])
    assert a.system == b.system
    assert a.user[: a.shared] == b.user[: b.shared]
    assert a.user[a.shared:] != b.user[b.shared:]
    shared = a.user[: a.shared]
    assert "REF: Tấm Cám đi chợ hôm nay" in shared and "OUT: Tám Cám đi chơ hôm nav" in shared
    assert "Language: vi (Vietnamese)" in shared
    assert "«T⟦ấ⟧m»" in a.user and "«T⟦á⟧m»" in a.user
    # the rubric: five levels, examples with digits, names, negations and tone marks, and the labels
    for needle in ("0 = level 0", "4 = level 4", "$1,250", "is not valid", "Tấm", "one of: 0, 1, 2, 3, 4"):
        assert needle in a.system
    assert a.plain().endswith("Answer:")


def test_prompt_spells_out_invisible_and_confusable_units():
    text = "\n".join(build_prompt(c, DIGITS).user for c in contexts_of())
    assert "U+200D ZERO WIDTH JOINER" in text
    assert "U+093F DEVANAGARI VOWEL SIGN I" in text
    assert "U+0020 SPACE" in text
    assert "U+1EA5 LATIN SMALL LETTER A WITH CIRCUMFLEX AND ACUTE" in text  # ấ vs á: marks only
    assert needs_code_points("O", "0") and needs_code_points("o", "\u043e") and needs_code_points("Ａ", "A")
    assert not needs_code_points("文", "又") and not needs_code_points("b", "h")


def test_prompt_template_is_pinned_to_its_version():
    """Changing the prompt's wording must bump TEMPLATE_VERSION (store keys depend on it)."""
    fixed = [  # built by hand, so that only the template can change the hash
        EditContext("vi", "S", "ấ", "á", 1, 1, "Tấm Cám", "Tám Cám", "T⟦ấ⟧m Cám", "T⟦á⟧m Cám"),
        EditContext("de", "D", " ", "", 3, 3, "ist nicht", "istnicht", "ist⟦ ⟧nicht", "ist⟦⟧nicht", lang_source="script"),
        EditContext("und", "I", "", "\u200d", 2, 2, "ab", "a\u200db", "a⟦⟧b", "a⟦\u200d⟧b"),
    ]
    text = "\n\n".join(build_prompt(c, labels).system + build_prompt(c, labels).user
                        for c in fixed for labels in (DIGITS, ("A", "B", "C", "D", "E")))
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    assert (TEMPLATE_VERSION, digest) == ("2", "910730cad8a783a2"), digest  # 2: the same text for these


def test_labels():
    assert resolve_labels("letters") == ("A", "B", "C", "D", "E")
    assert resolve_labels("a,b,c,d,e") == ("a", "b", "c", "d", "e")
    for bad in ("0,1,2", "a,a,b,c,d", "digitz"):
        with pytest.raises(JudgeError):
            resolve_labels(bad)
    assert "one of: A, B, C, D, E" in build_prompt(contexts_of()[0], resolve_labels("letters")).system


# -- reading the distribution --------------------------------------------------------------------


def test_label_probabilities_are_renormalised_and_the_mass_is_recorded():
    top = [("2", math.log(0.5)), (" 2", math.log(0.1)), ("0", math.log(0.2)), ("the", math.log(0.15)),
           ("4", math.log(0.05)), ("2", math.log(0.5))]  # a repeated token counts once
    probs, missing = label_probs_from_top(top, DIGITS)
    assert probs == pytest.approx((0.2, 0.0, 0.6, 0.0, 0.05)) and missing == 2
    j = judgement_from(Reading(label_probs=probs, missing=missing), DIGITS)
    assert j.p == pytest.approx((0.2 / 0.85, 0.0, 0.6 / 0.85, 0.0, 0.05 / 0.85))
    assert j.severity == pytest.approx(sum(p * r for p, r in zip(j.p, RATINGS)))
    assert j.mode == 2
    assert label_mass(j) == pytest.approx(0.85, abs=1e-4) and "labels_missing=2" in j.flags
    one_hot = judgement_from(Reading(answer=" 3"), DIGITS)
    assert one_hot.p == (0, 0, 0, 1, 0) and "one-hot" in one_hot.flags and label_mass(one_hot) is None
    assert judgement_from(Reading(answer="maybe"), DIGITS).p is None
    assert judgement_from(Reading(label_probs=(0, 0, 0, 0, 0)), DIGITS).p is None
    summary = MassSummary.of([j, one_hot, judgement_from(Reading(label_probs=(0.1, 0.1, 0.1, 0.1, 0.0)), DIGITS)])
    assert summary.n == 2 and summary.min == pytest.approx(0.4) and summary.below_half == 1


def test_parse_chat_completion_shapes():
    ok = {"choices": [{"message": {"content": "1"}, "logprobs": {"content": [
        {"token": "1", "logprob": -0.1, "top_logprobs": [{"token": "1", "logprob": -0.1}, {"token": "0", "logprob": -2.4}]}]}}]}
    r = parse_chat_completion(ok, DIGITS)
    assert r.label_probs[1] == pytest.approx(math.exp(-0.1)) and r.missing == 3
    assert parse_chat_completion({"choices": [{"message": {"content": "4"}, "logprobs": None}]}, DIGITS).answer == "4"
    for bad in ({"choices": []}, {"nothing": 1}, {"choices": [{"message": {}}]}):
        with pytest.raises((KeyError, IndexError, TypeError, ValueError)):
            parse_chat_completion(bad, DIGITS)


# -- the OpenAI-compatible client against the loopback server -----------------------------------


def test_fixed_server_distribution_and_request_shape(server):
    ctxs = contexts_of()
    with llm_judge(server) as judge:
        out = judge.judge(ctxs)
    assert all(j.p == pytest.approx((0.1, 0.2, 0.4, 0.2, 0.1)) for j in out)
    assert all(j.severity == pytest.approx(0.5) for j in out)
    assert server.stats.requests == len(ctxs)
    body = server.stats.bodies[0]
    assert body["max_tokens"] == 1 and body["temperature"] == 0
    assert body["logprobs"] is True and body["top_logprobs"] == 20 and body["model"] == "tiny"
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert judge.stats.prompt_tokens == 100 * len(ctxs) and judge.stats.tokens_reported


@pytest.mark.parametrize("limit", [1, 3])
def test_concurrency_never_exceeds_the_limit(server, limit):
    server.delay = 0.03
    with llm_judge(server, concurrency=limit) as judge:
        out = judge.judge(many_contexts(12))
    assert all(j.p is not None for j in out)
    assert server.stats.max_in_flight == limit


def test_429_5xx_dropped_connections_and_timeouts_are_retried(server):
    server.hang = 2.0
    server.faults.extend(["429", "500", "drop", "hang", "503"])
    with llm_judge(server, concurrency=1, timeout=0.3, max_retries=5) as judge:
        started = time.monotonic()
        (j,) = judge.judge(contexts_of()[:1])
    assert j.p == pytest.approx((0.1, 0.2, 0.4, 0.2, 0.1))
    # the dropped keep-alive connection is replaced once inside the transport (as any HTTP client
    # does); the other four faults each cost one retry
    assert server.stats.requests == 6 and judge.stats.retries == 4 and judge.stats.requests == 5
    assert time.monotonic() - started < 1.9  # the hung request was abandoned at the client's timeout


@pytest.mark.parametrize("fault, reason", [
    ("garbage", "not JSON"), ("wrong-shape", "malformed answer"), ("no-label", "no label among the top"),
    ("500", "HTTP 500"),
])
def test_a_malformed_answer_ends_as_a_recorded_failure_never_a_zero(server, tmp_path, fault, reason):
    server.fault_all = fault
    with llm_judge(server, max_retries=2) as judge, JudgedEditStore(tmp_path / "s.sqlite") as store:
        (j,), stats = judge_cached(judge, contexts_of()[:1], store)
        assert len(store) == 0  # not stored: the next run tries again
    assert j.p is None and j.severity is None
    assert reason in j.failure and "after 3 attempts" in j.failure
    assert server.stats.requests == 3 and stats.failures == 1


def test_client_errors_fail_the_edit_or_stop_the_run(server):
    server.faults.append("400")  # e.g. a prompt over the context length: that edit fails, no retry
    with llm_judge(server) as judge:
        (j,) = judge.judge(contexts_of()[:1])
        assert j.p is None and "HTTP 400" in j.failure and server.stats.requests == 1
        server.fault_all = "401"  # a wrong key is a configuration error: stop with one clear message
        with pytest.raises(JudgeError, match="HTTP 401"):
            judge.judge(contexts_of()[:3])


def test_answers_without_probabilities_are_one_hot_and_loud(server):
    server.fault_all = "no-logprobs"
    with llm_judge(server) as judge, pytest.warns(RuntimeWarning, match="without token probabilities"):
        out = judge.judge(contexts_of()[:3])
    assert all(j.p == (0.0, 0.0, 1.0, 0.0, 0.0) and "one-hot" in j.flags for j in out)
    assert judge.stats.one_hot == 3


def test_a_second_run_sends_nothing(server, tmp_path):
    ctxs = contexts_of() * 2  # duplicates are judged once
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        with llm_judge(server) as judge:
            first, s1 = judge_cached(judge, ctxs, store)
        sent = server.stats.requests
        assert sent == len(contexts_of()) and s1.judged == sent
        with llm_judge(server) as judge:
            second, s2 = judge_cached(judge, ctxs, store)
    assert server.stats.requests == sent and s2.hits == s2.unique and s2.judged == 0
    assert [j.p for j in second] == [j.p for j in first]  # SQLite REAL keeps doubles exactly
    assert all(label_mass(j) == pytest.approx(1.0) for j in second)  # flags survive the store


def test_identity_pins_model_revision_template_and_labels_but_not_url_or_key(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-do-not-leak")
    base = llm_judge(server)
    assert base.identity == f"llm/t{TEMPLATE_VERSION}:openai:model=tiny:labels=0|1|2|3|4:ctx=100"
    other_port = resolve_judge("llm", endpoint="http://127.0.0.1:9/v1", model="tiny")
    assert other_port.identity == base.identity
    variants = {
        llm_judge(server, model_revision="abc123").identity,
        llm_judge(server, labels="letters").identity,
        resolve_judge("llm", endpoint=server.url, model="other").identity,
        llm_judge(server, extra_body={"chat_template_kwargs": {"enable_thinking": False}}).identity,
    }
    assert len(variants) == 4 and base.identity not in variants
    assert "sk-do-not-leak" not in repr(base) + base.identity + repr(base.backend)


def test_resolve_judge_errors():
    with pytest.raises(JudgeError, match="endpoint and model"):
        resolve_judge("llm")
    with pytest.raises(JudgeError, match="does not take"):
        resolve_judge("llm", endpoint="http://127.0.0.1:9/v1", model="m", device="cpu")
    with pytest.raises(JudgeError, match="base URL"):
        resolve_judge("llm", endpoint="127.0.0.1:8000", model="m")
    with pytest.raises(JudgeError, match="local model directory"):
        resolve_judge("hf:/no/such/model")
    config = OpenAIConfig("http://127.0.0.1:9/v1", "m", concurrency=2)
    assert resolve_judge("llm", config=config).backend.config is config


def test_the_api_key_goes_only_into_the_authorization_header(server, tmp_path, monkeypatch, capsys, caplog):
    secret = "sk-test-5f3c9a1e7b"
    monkeypatch.setenv("SEMCER_TEST_KEY", secret)
    refs, hyps = write_corpus(tmp_path, PAIRS)
    server.faults.append("echo-auth")  # a server that repeats the key in an error message
    caplog.set_level(logging.DEBUG)
    rc = cli_main(["judge", str(refs), str(hyps), "--endpoint", server.url, "--model", "tiny",
                   "--api-key-env", "SEMCER_TEST_KEY", "--store", str(tmp_path / "s.sqlite"), "--json", "-q"])
    out, err = capsys.readouterr()
    assert rc == 1  # the echoed request failed (400 is not retried)
    assert all(h.get("authorization") == f"Bearer {secret}" for h in server.stats.headers)
    summary = json.loads(out)
    assert summary["failures"] == 1 and "***" in next(iter(summary["failure_reasons"]))
    files = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("s.sqlite"))
    for where in (out, err, caplog.text, files.decode("utf-8", "replace")):
        assert secret not in where
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.reset()
    with llm_judge(server) as judge:
        judge.judge(contexts_of()[:1])
    assert "authorization" not in server.stats.headers[0]
    with pytest.raises(JudgeError, match="NO_SUCH_VAR"):
        llm_judge(server, api_key_env="NO_SUCH_VAR").judge(contexts_of()[:1])


def test_the_lean_transport_speaks_http11(server):
    """Keep-alive reuse, chunked and close-delimited bodies, and a server that closed an idle connection."""
    import asyncio

    import httpx

    async def scenario():
        transport = HTTP11Transport(max_idle=2)
        async with httpx.AsyncClient(transport=transport) as client:
            for _ in range(3):
                r = await client.post(server.url + "/chat/completions", json={"model": "m", "messages": [], "logprobs": True})
                assert r.status_code == 200 and r.json()["choices"][0]["message"]["content"] == "2"
            assert len(transport._idle[("127.0.0.1", server.port)]) == 1
            # the server drops the connection on the next request: a fresh connection is tried once
            for _reader, writer in transport._idle[("127.0.0.1", server.port)]:
                writer.transport.abort()
            r = await client.post(server.url + "/chat/completions", json={"model": "m", "messages": []})
            assert r.status_code == 200

        async def serve(reader, writer):
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
            writer.write(b"HTTP/1.0 200 OK\r\n\r\nuntil close")
            await writer.drain()
            writer.close()

        srv = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = srv.sockets[0].getsockname()[1]
        async with httpx.AsyncClient(transport=HTTP11Transport()) as client:
            r = await client.get(f"http://127.0.0.1:{port}/")
            assert r.content == b"hello world"
        srv.close()
        with pytest.raises(httpx.ConnectError):
            await HTTP11Transport().handle_async_request(httpx.Request("GET", f"http://127.0.0.1:{port}/"))

    asyncio.run(scenario())


# -- the command line -----------------------------------------------------------------------------


def write_corpus(tmp_path, pairs):
    refs, hyps = tmp_path / "refs.jsonl", tmp_path / "hyps.jsonl"
    refs.write_text("".join(json.dumps({"id": str(k), "text": r, "lang": lang}, ensure_ascii=False) + "\n"
                            for k, (r, _, lang) in enumerate(pairs)), encoding="utf-8")
    hyps.write_text("".join(json.dumps({"id": str(k), "text": h}, ensure_ascii=False) + "\n"
                            for k, (_, h, _) in enumerate(pairs)), encoding="utf-8")
    return refs, hyps


def test_cli_judge_prejudges_into_the_store_and_reruns_for_free(server, tmp_path, capsys):
    refs, hyps = write_corpus(tmp_path, PAIRS)
    store = tmp_path / "judged.sqlite"
    args = ["judge", str(refs), str(hyps), "--judge", "llm", "--endpoint", server.url, "--model", "tiny",
            "--store", str(store), "--concurrency", "3", "--timeout", "5", "--max-retries", "2", "--json", "-q"]
    assert cli_main(args) == 0
    first = json.loads(capsys.readouterr().out)
    n = len(contexts_of())
    assert first["edits"] == n and first["judged"] == n and first["cache_hits"] == 0 and first["failures"] == 0
    assert first["requests"] == n and first["prompt_tokens"] == 100 * n
    assert first["label_mass"]["n"] == n and first["label_mass"]["min"] == pytest.approx(1.0)
    assert cli_main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["judged"] == 0 and second["cache_hits"] == n and second["requests"] == 0
    assert server.stats.requests == n
    assert cli_main(args[:-2] + ["-q"]) == 0
    text = capsys.readouterr().out
    assert "cache hits" in text and "label mass" in text and "min 1.000" in text


def test_a_killed_run_resumes_without_duplicates(server, tmp_path):
    pairs = [(f"Zeile {k}: Betrag {k}.250 Euro", f"Zeile {k}: Betrag {k}.750 Eur0", "de") for k in range(40)]
    refs, hyps = write_corpus(tmp_path, pairs)
    store = tmp_path / "judged.sqlite"
    server.delay = 0.02
    cmd = [sys.executable, "-m", "semcer", "judge", str(refs), str(hyps), "--endpoint", server.url, "--model", "tiny",
           "--store", str(store), "--concurrency", "2", "--commit-every", "4", "-q"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    stored = 0
    while time.monotonic() < deadline and proc.poll() is None:
        stored = _count(store)
        if stored >= 12:
            break
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    assert 12 <= stored < 80, proc.stderr.read().decode()
    kept = _count(store)
    first_requests = _settled_requests(server)  # a request the killed run sent may still sit unread in the server's socket
    server.reset()
    server.delay = 0.0
    with JudgedEditStore(store) as s:
        ctxs = _contexts_of_files(refs, hyps)
        with llm_judge(server) as judge:
            keys_before = set(s.get_many([JudgedEditStore.key(judge.identity, c) for c in ctxs]))
            out, stats = judge_cached(judge, ctxs, s)
        assert len(s) == stats.unique == 80
    assert stats.hits == kept and stats.judged == 80 - kept == server.stats.requests
    assert first_requests - kept <= 4 + 2  # the killed run lost at most its batch in flight
    sent = {b["messages"][1]["content"] for b in server.stats.bodies}
    stored_prompts = {judge.prompt(c).user for c in ctxs if JudgedEditStore.key(judge.identity, c) in keys_before}
    assert not sent & stored_prompts and all(j.p is not None for j in out)


def _settled_requests(server, quiet_s: float = 0.3) -> int:
    """The server's request count once it has not moved for ``quiet_s`` (at most 10 s)."""
    deadline = time.monotonic() + 10
    seen, since = server.stats.requests, time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - since < quiet_s:
        time.sleep(0.02)
        if server.stats.requests != seen:
            seen, since = server.stats.requests, time.monotonic()
    return seen


def _count(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as conn:
            return conn.execute("SELECT count(*) FROM judged_edits").fetchone()[0]
    except sqlite3.Error:
        return 0


def _contexts_of_files(refs, hyps):
    """The contexts `semcer judge` sends for two files: those of semcer.evaluate(..., edits=True)."""
    paired = pair_collections(read_collection(str(refs)), read_collection(str(hyps)))
    result = semcer.evaluate(paired, unit="grapheme", policy="nfc", empty_ref="error", edits=True)
    return line_contexts(result.lines)[0]


# -- a tiny causal LM behind the server, and the local backends --------------------------------


def _label_variants(tokenizer, labels=DIGITS):
    """Every token id that decodes to a label once white space is stripped (computed independently)."""
    out = [[] for _ in labels]
    for token_id in range(len(tokenizer)):
        text = tokenizer.decode([token_id]).strip()
        if text in labels:
            out[labels.index(text)].append(token_id)
    return out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A 2-layer Llama with random weights and a BPE tokenizer trained on the judge's prompts, saved
    to a local directory. The output layer favours the label tokens (and the " 1"-style variants
    that answer them too), so that all of them are among the top 20, with varied probabilities."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    prompts = [build_prompt(c, DIGITS) for c in contexts_of()]
    corpus = [prompts[0].system] + [p.user for p in prompts]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1500, special_tokens=["<s>", "</s>", "<pad>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(corpus * 3, trainer)
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>")
    tokenizer.chat_template = (
        "{% for m in messages %}<s>{{ m['role'] }}\n{{ m['content'] }}</s>\n{% endfor %}"
        "{% if add_generation_prompt %}<s>assistant\n{% endif %}"
    )
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048, tie_word_embeddings=False,
        bos_token_id=0, eos_token_id=1, pad_token_id=2, initializer_range=0.3,
    )
    torch.manual_seed(1234)
    model = transformers.LlamaForCausalLM(config).eval()
    variants = _label_variants(tokenizer)
    favoured = [i for ids in variants for i in ids]
    assert len(favoured) <= 15 and any(len(ids) > 1 for ids in variants)  # all within the top 20; " 1" and the like exist
    with torch.no_grad():
        # Dimension 0 of the residual stream is a constant no layer writes to; the final norm scales
        # it up and the output layer adds it to the favoured tokens' logits and takes it from the rest.
        model.model.embed_tokens.weight[:, 0] = 3.0
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight[0, :] = 0.0
            layer.mlp.down_proj.weight[0, :] = 0.0
        model.model.norm.weight[0] = 30.0
        model.lm_head.weight[:, 0] = -1.0
        model.lm_head.weight[favoured, 0] = 1.5
    path = tmp_path_factory.mktemp("tiny-llm")
    tokenizer.save_pretrained(path)
    model.save_pretrained(path)
    return types.SimpleNamespace(path=path, model=model, tokenizer=tokenizer, variants=variants, torch=torch)


@pytest.fixture(scope="module")
def model_server(tiny):
    with ChatServer(model_backend(tiny.model, tiny.tokenizer)) as server:
        yield server


def _expected(tiny, prompt):
    """The model's softmax over the label tokens at the answer position, computed here directly."""
    torch = tiny.torch
    text = tiny.tokenizer.apply_chat_template(prompt.messages(), tokenize=False, add_generation_prompt=True)
    ids = tiny.tokenizer.encode(text, add_special_tokens=False)
    with torch.inference_mode():
        probs = torch.softmax(tiny.model(input_ids=torch.tensor([ids])).logits[0, -1].double(), dim=-1)
    label = [float(sum(probs[i] for i in ids_)) for ids_ in tiny.variants]
    return [x / sum(label) for x in label], sum(label)


def test_the_distribution_read_back_is_the_models_softmax_over_the_labels(tiny, model_server):
    ctxs = contexts_of()
    with llm_judge(model_server) as judge:
        out = judge.judge(ctxs)
    modes = set()
    for ctx, j in zip(ctxs, out):
        expected, mass = _expected(tiny, judge.prompt(ctx))
        assert j.p == pytest.approx(expected, abs=1e-5)
        assert j.severity == pytest.approx(sum(p * r for p, r in zip(expected, RATINGS)), abs=1e-5)
        assert label_mass(j) == pytest.approx(mass, abs=1e-4) and 0.5 < mass < 1.0
        assert not any(f.startswith("labels_missing") for f in j.flags)
        modes.add(j.mode)
    assert len(modes) > 1  # the distributions differ from edit to edit


def test_hf_backend_reads_what_the_server_reads(tiny, model_server):
    ctxs = contexts_of()
    with llm_judge(model_server) as judge:
        served = judge.judge(ctxs)
    local = resolve_judge(f"hf:{tiny.path}", device="cpu", batch_size=4)
    assert local.identity.startswith(f"llm/t{TEMPLATE_VERSION}:hf:{Path(tiny.path).name}@")
    assert local.identity.endswith(":dtype=float32:labels=0|1|2|3|4:ctx=100")
    read = local.judge(ctxs)  # batches of 4 prompts of different lengths: left padding
    one_by_one = resolve_judge(f"hf:{tiny.path}", device="cpu", batch_size=1).judge(ctxs)
    for s, r, o in zip(served, read, one_by_one):
        assert r.p == pytest.approx(s.p, abs=1e-5) and o.p == pytest.approx(r.p, abs=1e-5)
        assert label_mass(r) == pytest.approx(label_mass(s), abs=2e-4)
    assert local.stats.prompt_tokens > 0


def test_hf_label_check_and_fingerprint(tiny, tmp_path):
    import shutil

    from semcer.judges.llm.hf_backend import model_fingerprint

    with pytest.raises(JudgeError, match="encodes to"):
        resolve_judge(f"hf:{tiny.path}", labels="cosmetic,typo,variant,garbled,false")
    copy = tmp_path / "copy"
    shutil.copytree(tiny.path, copy)
    assert model_fingerprint(copy) == model_fingerprint(tiny.path)  # copying keeps the identity
    weights = copy / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1
    weights.write_bytes(bytes(data))
    assert model_fingerprint(copy) != model_fingerprint(tiny.path)


def test_vllm_backend_reads_label_logprobs(tiny, monkeypatch):
    """The vLLM code path against a stand-in ``vllm`` module that runs the tiny model (no GPU here)."""
    torch = tiny.torch

    class Logprob:
        def __init__(self, logprob):
            self.logprob = logprob

    class LLM:
        def __init__(self, **kwargs):
            self.kwargs = kwargs

        def get_tokenizer(self):
            return tiny.tokenizer

        def generate(self, prompts, params, use_tqdm=True):
            assert params.max_tokens == 1 and params.logprobs == 20
            outs = []
            for p in prompts:
                with torch.inference_mode():
                    logits = tiny.model(input_ids=torch.tensor([p["prompt_token_ids"]])).logits[0, -1]
                    logp = torch.log_softmax(logits.double(), -1)
                values, indices = torch.topk(logp, 20)
                top = {int(i): Logprob(float(v)) for v, i in zip(values, indices)}
                outs.append(types.SimpleNamespace(outputs=[types.SimpleNamespace(logprobs=[top])]))
            return outs

    fake = types.ModuleType("vllm")
    fake.LLM = LLM
    fake.SamplingParams = lambda **kw: types.SimpleNamespace(**kw)
    monkeypatch.setitem(sys.modules, "vllm", fake)
    judge = resolve_judge(f"vllm:{tiny.path}")
    assert judge.backend.llm.kwargs["enable_prefix_caching"] is True
    ctxs = contexts_of()
    hf = resolve_judge(f"hf:{tiny.path}", device="cpu").judge(ctxs)
    for a, b in zip(judge.judge(ctxs), hf):
        assert a.p == pytest.approx(b.p, abs=1e-5)


def test_a_vllm_engine_that_does_not_start_is_one_line(monkeypatch, tmp_path):
    from semcer.errors import JudgeError

    class LLM:
        def __init__(self, **kwargs):
            raise RuntimeError("CUDA out of memory.\nTried to allocate 2.00 GiB\n(more lines)")

    fake = types.ModuleType("vllm")
    fake.LLM = LLM
    monkeypatch.setitem(sys.modules, "vllm", fake)
    with pytest.raises(JudgeError) as info:
        resolve_judge("vllm:org/model")
    assert str(info.value) == "vllm:org/model: could not load the engine (CUDA out of memory.)"


def test_vllm_engine_for_real(tiny):
    """Runs only where vLLM and a GPU are installed."""
    pytest.importorskip("vllm")
    if not tiny.torch.cuda.is_available():
        pytest.skip("vLLM needs a GPU")
    judge = resolve_judge(f"vllm:{tiny.path}", engine_kwargs={"gpu_memory_utilization": 0.2, "enforce_eager": True})
    hf = resolve_judge(f"hf:{tiny.path}", device="cpu")
    ctxs = contexts_of()
    for a, b in zip(judge.judge(ctxs), hf.judge(ctxs)):
        assert a.p == pytest.approx(b.p, abs=2e-2)  # bf16/fp32 kernels differ slightly


def test_score_with_the_llm_judge_end_to_end(server, tmp_path, capsys):
    """`semcer score --judge llm`: semCER from the served distribution, then a free rerun from the store."""
    refs, hyps = write_corpus(tmp_path, PAIRS)
    store = tmp_path / "judged.sqlite"
    args = ["score", str(refs), str(hyps), "--judge", "llm", "--endpoint", server.url, "--model", "tiny",
            "--store", str(store), "--concurrency", "4", "--json", "-q"]
    assert cli_main(args) == 0
    first = json.loads(capsys.readouterr().out)
    sent = server.stats.requests
    assert sent == first["judge"]["judged"] > 0 and first["judge"]["failures"] == 0
    assert first["signature_fields"]["judge"].startswith("llm/") and "tiny" in first["signature_fields"]["judge"]
    assert first["corpus"]["semcer"] is not None and first["corpus"]["semcer"] <= first["corpus"]["cer"]
    assert cli_main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert server.stats.requests == sent and second["judge"]["cache_hits"] == second["judge"]["edits"]
    assert second["corpus"]["semcer"] == first["corpus"]["semcer"]
