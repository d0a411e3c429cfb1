"""The Ray engine on a local Ray (``ray.init(num_cpus=2)``): the result and its signature are those
of the local engine, for the default judge and for the LLM judge run by Ray actors against the real
loopback server of the LLM-judge tests. Skipped only when Ray is not installed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from llm_server import ChatServer, fixed_backend

import semcer
import semcer.cli
from semcer.io.collections import read_collection
from semcer.io.pairing import pair_collections
from semcer.judges import resolve_judge
from semcer.scale.pipeline import StreamSettings, score_stream, unmatched_of

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'semcer[ray]')")

ROOT = Path(__file__).resolve().parents[2]
REFS, HYPS = ROOT / "examples" / "references.jsonl", ROOT / "examples" / "tess_noisy.jsonl"


KEY_ENV = "SEMCER_TEST_RAY_KEY"


@pytest.fixture(scope="module")
def local_ray():
    os.environ[KEY_ENV] = "secret-from-env"  # the workers' environment: set where they run, before they start
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()
    del os.environ[KEY_ENV]


@pytest.fixture(scope="module")
def paired():
    return pair_collections(read_collection(str(REFS)), read_collection(str(HYPS)))


def _ray(paired, judge, store=None):
    return score_stream(paired.pairs, judge=judge, store=store, unmatched=unmatched_of(paired),
                        settings=StreamSettings(engine="ray", workers=2, chunk_lines=40)).evaluation


def test_ray_engine_equals_the_local_engine_signature_included(local_ray, paired):
    local = semcer.evaluate(paired, judge="compact")
    with resolve_judge("compact") as judge:
        got = _ray(paired, judge)
    assert str(got.signature) == str(local.signature)
    assert got.to_dict(lines=True, by=("lang", "doc")) == local.to_dict(lines=True, by=("lang", "doc"))


def test_llm_judge_through_ray_actors(local_ray, paired, tmp_path):
    with ChatServer(fixed_backend()) as server:
        opts = {"endpoint": server.url, "model": "tiny", "concurrency": 4, "api_key_env": KEY_ENV}
        with resolve_judge("llm", **opts) as judge:
            local = semcer.evaluate(paired, judge=judge)
        local_requests = server.stats.requests
        server.reset()
        with resolve_judge("llm", **opts) as judge:
            assert "secret-from-env" not in judge.spec().to_json()  # the key travels by its variable's name
            got = _ray(paired, judge, store=tmp_path / "s.sqlite")
        assert server.stats.requests == local_requests == local.judge_summary["sent"]
        assert {h.get("authorization") for h in server.stats.headers} == {"Bearer secret-from-env"}
    assert str(got.signature) == str(local.signature)
    assert got.to_dict(lines=True) == local.to_dict(lines=True)  # the judge block too: requests summed over actors


def test_offline_judge_chunks_are_held_by_actors_and_the_parent_writes_the_store(local_ray, paired, tmp_path):
    from semcer.scale import pipeline
    from semcer.scale.ray_engine import RayHeldExecutor
    from semcer.store.sqlite import JudgedEditStore

    made = []
    real = pipeline._executor

    def spy(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    pipeline._executor = spy
    try:
        with resolve_judge("compact") as judge:
            got = _ray(paired, judge, store=tmp_path / "ray.sqlite")
    finally:
        pipeline._executor = real
    assert [type(e) for e in made] == [RayHeldExecutor]
    local = semcer.evaluate(paired, judge="compact", store=tmp_path / "local.sqlite")
    assert got.to_dict(lines=True) == local.to_dict(lines=True)
    with JudgedEditStore(tmp_path / "ray.sqlite", readonly=True) as a, \
            JudgedEditStore(tmp_path / "local.sqlite", readonly=True) as b:
        assert len(a) == len(b) == local.judge_summary["edits"]  # every distinct edit once, none missing


def test_the_command_line_starts_its_own_ray_quietly(tmp_path):
    """`semcer score --engine ray` with no Ray running starts a local one and says nothing of it on
    standard error (a new Ray announces there that it turned token authentication on), and its
    JSON is the local engine's; the run's Ray is shut down when it ends."""
    import json
    import subprocess
    import sys

    env = {**os.environ, "RAY_ADDRESS": ""}
    env.pop("RAY_AUTH_MODE", None)
    out, local = tmp_path / "ray.json", tmp_path / "local.json"
    run = subprocess.run([sys.executable, "-m", "semcer", "score", str(REFS), str(HYPS), "--engine", "ray", "--quiet",
                          "--json", "-o", str(out)], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    assert semcer.cli.main(["score", str(REFS), str(HYPS), "--quiet", "--json", "-o", str(local)]) == 0
    ray_doc, local_doc = json.loads(out.read_text()), json.loads(local.read_text())
    assert ray_doc["signature"] == local_doc["signature"] and ray_doc["corpus"] == local_doc["corpus"]

