"""`semcer study create | add-reader | status | export` end to end, from every kind of source, and
the pair pool (near misses of two scored systems) through the app."""

from __future__ import annotations

import json
import re

import pytest
from studyhelpers import LINES, write_edits

from semcer.cli import main
from semcer.study.create import add_reader
from semcer.study.db import StudyDB

LONG = "lorem ipsum " * 25  # 300 units on each side of l5's edit: longer than the judge's window (100)
REFS = [("l1", "vi", "Tấm Cám đi chợ"), ("l2", "en", "is not valid"), ("l3", "en", "total 1,250 EUR"),
        ("l4", "en", "the quick brown fox"), ("l5", "en", LONG + "form" + LONG)]
# system a: harmless case slips (l1: 4 edits, l3: 3 edits) vs b: one edit that makes another name or number
A = {"l1": "TẤM CÁM đi chợ", "l2": "is not valid", "l3": "total 1,250 eur", "l4": "the quick brown fox"}
B = {"l1": "Tám Cám đi chợ", "l2": "is now valid", "l3": "total 1,750 EUR", "l4": "the quick brown fox"}
A["l5"] = B["l5"] = LONG + "farm" + LONG  # the same output of both systems: no pair


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    d = tmp_path_factory.mktemp("study-cli")
    refs = _jsonl(d / "refs.jsonl", [{"id": i, "lang": lang, "text": t} for i, lang, t in REFS])
    out = {}
    for name, hyps in (("sysa", A), ("sysb", B)):
        h = _jsonl(d / f"{name}.hyp.jsonl", [{"id": i, "text": hyps[i]} for i, _, _ in REFS])
        out[name] = d / f"{name}.json"
        assert main(["score", str(refs), str(h), "--json", "--lines", "--spans", "1", "-o", str(out[name]),
                     "--judge", "rubric", "--store", str(d / "store.sqlite")]) == 0
    return d, out


def test_create_from_each_source(scored, tmp_path, capsys):
    d, files = scored
    edits = write_edits(tmp_path / "edits.jsonl")
    for k, source in enumerate((edits, files["sysb"], d / "store.sqlite")):
        path = tmp_path / f"s{k}.study"
        assert main(["study", "create", str(path), "--from", str(source), "--reader", "ana", "--repeats", "1"]) == 0
        printed = capsys.readouterr().out
        token = re.search(r"ana\s+(\S+)", printed.split("reader tokens")[1]).group(1)
        db = StudyDB(path)
        assert db.reader_for_token(token) == "ana"
        assert len(db.items()) >= 3 and all(i.kind == "edit" for i in db.items())
    # the score JSON's edits are the marked pairs of its lines: l1's b edit is the tone mark of Tấm
    items = {i.id: i.data for i in StudyDB(tmp_path / "s1.study").items()}
    assert items["l1:S1,1"]["marked_ref"] == "T⟦ấ⟧m Cám đi chợ" and items["l1:S1,1"]["marked_hyp"] == "T⟦á⟧m Cám đi chợ"
    # on a long line, the page shows what the judge saw: 100 units on each side of the edited unit
    # (o, unit 301: 99 units of LONG and "f" before it, "rm" and 98 units of LONG after it)
    long = items["l5:S301,301"]
    assert long["marked_ref"] == LONG[-99:] + "f⟦o⟧rm" + LONG[:98] and long["ref_pos"] == 100
    assert long["marked_hyp"] == LONG[-99:] + "f⟦a⟧rm" + LONG[:98] and long["hyp_pos"] == 100
    # exported items of every source are meta-eval items a judge can read back (their marked pairs)
    for k in range(3):
        db = StudyDB(tmp_path / f"s{k}.study")
        for n, slot in enumerate(db.slot("ana", pos) for pos in range(len(db.items()) + 1)):
            db.rate("ana", slot, level=n % 5)
        add_reader(db, "ben")
        for n, slot in enumerate(db.slot("ben", pos) for pos in range(len(db.items()) + 1)):
            db.rate("ben", slot, level=(n * 3) % 5)
        out = tmp_path / f"x{k}"
        assert main(["study", "export", str(db.path), "-o", str(out)]) == 0
        assert main(["meta-eval", "--ratings", str(out / "ratings.jsonl"), "--items", str(out / "items.jsonl"),
                     "--judge", "rubric", "--n-boot", "0", "--json", "-o", str(out / "m.json")]) == 0
        got = json.loads((out / "m.json").read_text())
        assert got["items"]["rated"] == len(db.items()) and got["items"]["failed"] == 0


def test_stratified_sample_size(tmp_path, capsys):
    edits = write_edits(tmp_path / "edits.jsonl")
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(edits), "-n", "6", "--seed", "3",
                 "--reader", "ana"]) == 0
    db = StudyDB(tmp_path / "s.study")
    # 12 edits in 11 strata (en|letter|L4 holds two); 6 of 11 strata get one each
    assert len(db.items()) == 6 and len({i.stratum for i in db.items()}) == 6
    assert "6 single edits (of 12)" in capsys.readouterr().out


def test_per_language(tmp_path, capsys):
    edits = write_edits(tmp_path / "edits.jsonl")  # vi 3, en 7, zh 2 edits
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(edits), "-n", "2", "--per-language"]) == 0
    assert "items per language: en 2, vi 2, zh 2" in capsys.readouterr().out
    assert sorted(i.lang for i in StudyDB(tmp_path / "s.study").items()) == ["en", "en", "vi", "vi", "zh", "zh"]


def test_two_spellings_of_one_tag_are_one_language(tmp_path, capsys):
    """An edit list (or a store filled before tags were read in one spelling) holding ``zh_CN`` beside
    ``zh-CN`` is one language for the strata and the counts: two pools of one language drew twice."""
    lines = [(i, ("zh_CN" if i.endswith("1") else "zh-CN") if lang == "zh" else lang, *rest) for i, lang, *rest in LINES]
    edits = write_edits(tmp_path / "edits.jsonl", lines)
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(edits), "-n", "2", "--per-language"]) == 0
    assert "items per language: en 2, vi 2, zh-CN 2" in capsys.readouterr().out


def test_user_mistakes_are_one_line(tmp_path, capsys):
    edits = write_edits(tmp_path / "edits.jsonl")
    path = tmp_path / "s.study"
    assert main(["study", "create", str(path), "--from", str(tmp_path / "missing.jsonl")]) == 2
    assert main(["study", "create", str(path)]) == 2
    assert main(["study", "create", str(path), "--from", str(edits), "--repeats", "99"]) == 2
    assert not path.exists()
    assert main(["study", "create", str(path), "--from", str(edits), "--reader", "ana"]) == 0
    assert main(["study", "create", str(path), "--from", str(edits)]) == 2
    assert main(["study", "add-reader", str(path), "ana"]) == 2
    assert main(["study", "status", str(edits)]) == 2
    assert main(["study", "export", str(path), "-o", str(edits)]) == 2
    err = capsys.readouterr().err
    assert all(line.startswith("semcer: error: ") for line in err.strip().splitlines()), err
    assert "Traceback" not in err


def test_pairs_status_and_export(scored, tmp_path, capsys):
    from starlette.testclient import TestClient

    from semcer.study.web import create_app

    _, files = scored
    path = tmp_path / "p.study"
    assert main(["study", "create", str(path), "--pairs-from", str(files["sysa"]), "--pairs-from", str(files["sysb"]),
                 "--reader", "ana", "--reader", "ben", "--repeats", "0"]) == 0
    db = StudyDB(path)
    pairs = db.items()
    # l1 and l3: a has more edits (case slips, CER calls it worse), b one edit the rubric charges (semCER: b)
    # l2: only b has an edit (both agree), l4: no edit in either: no near miss
    assert sorted(p.data["line_id"] for p in pairs) == ["l1", "l3"]
    assert all({p.data["a_system"], p.data["b_system"]} == {"sysa", "sysb"} for p in pairs)
    worse = {p.id: "a" if p.data["a_system"] == "sysb" else "b" for p in pairs}
    capsys.readouterr()
    assert main(["study", "add-reader", str(path), "cy"]) == 0
    token = capsys.readouterr().out.split()[-1]
    c = TestClient(create_app(db))
    pre = re.search(r'name="csrf" value="([^"]+)"', c.get("/signin").text).group(1)
    c.post("/signin", data={"csrf": pre, "token": token})
    for pos in range(2):
        page = c.get("/rate").text
        assert 'data-kind="pair"' in page and '<span class="lab">A</span>' in page and "sysa" not in page
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        item = db.slot("cy", pos).item
        assert c.post("/rate", data={"csrf": csrf, "pos": str(pos), "choice": worse[item]},
                      follow_redirects=False).status_code == 303
    assert 'id="done"' in c.get("/rate").text
    assert main(["study", "status", str(path), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert [(r["reader"], r["done"], r["slots"]) for r in status["readers"]] == [("ana", 0, 2), ("ben", 0, 2), ("cy", 2, 2)]
    assert main(["study", "status", str(path)]) == 0
    assert re.search(r"^cy\s+2\s+2\s+2\s+0\s+0", capsys.readouterr().out, re.M)
    out = tmp_path / "export"
    assert main(["study", "export", str(path), "-o", str(out)]) == 0
    rows = [json.loads(x) for x in (out / "pairs.jsonl").read_text().splitlines()]
    assert {r["pair"]: r["choices"] for r in rows} == {k: {"cy": v} for k, v in worse.items()}
    assert {r["ref"] for r in rows} == {"Tấm Cám đi chợ", "total 1,250 EUR"}
    assert main(["meta-eval", "--pairs", str(out / "pairs.jsonl"), "--judge", "rubric", "--n-boot", "0",
                 "--n-permutations", "19", "--json", "-o", str(tmp_path / "m.json")]) == 0


def test_serve_checks_before_listening(tmp_path, capsys):
    from semcer.study.listen import resolve_host

    assert [resolve_host(h).loopback for h in ("127.0.0.1", "127.5.0.1", "::1", "[::1]", "localhost")] == [True] * 5
    assert [resolve_host(h).loopback for h in ("0.0.0.0", "192.168.1.4", "::")] == [False] * 3
    edits = write_edits(tmp_path / "edits.jsonl")
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(edits)]) == 0
    assert main(["study", "serve", str(tmp_path / "s.study"), "--port", "0"]) == 2
    assert main(["study", "serve", str(tmp_path / "s.study")]) == 2
    err = capsys.readouterr().err
    assert "--port must be from 1 to 65535" in err and "has no reader" in err


def test_serve_without_the_extra_names_it(tmp_path, capsys, monkeypatch):
    edits = write_edits(tmp_path / "edits.jsonl")
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(edits), "--reader", "ana"]) == 0
    monkeypatch.setitem(__import__("sys").modules, "uvicorn", None)  # as if not installed
    assert main(["study", "serve", str(tmp_path / "s.study")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ['semcer: error: semcer study serve needs starlette and uvicorn: pip install "semcer[study]"']


def test_serve_on_a_port_in_use_is_one_line_and_status_2(tmp_path):
    """uvicorn exits with status 3 (the status of a tripped compare gate) when its port is taken; semcer
    binds the port itself first and says it in one line."""
    import socket
    import subprocess
    import sys

    edits = write_edits(tmp_path / "edits.jsonl")
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(edits), "--reader", "ana"]) == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "semcer", "study", "serve", str(tmp_path / "s.study"), "--port",
                              str(port)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [f"semcer: error: cannot listen on 127.0.0.1:{port}: Address already in use"]


def test_serve_on_another_loopback_address_answers_there(tmp_path):
    """127.0.0.2 is loopback, so the app only takes requests for loopback names: its own address must
    be one of them (every request to the printed address was refused with 400)."""
    import os
    import socket
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request

    edits = write_edits(tmp_path / "edits.jsonl")
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(edits), "--reader", "ana"]) == 0
    with socket.socket() as s:
        s.bind(("127.0.0.2", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "semcer", "study", "serve", str(tmp_path / "s.study"), "--host",
                             "127.0.0.2", "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.2:{port}/", timeout=2).close()
            except urllib.error.HTTPError as answer:  # the app's answer: no session yet, not a refused Host (400)
                assert answer.code == 401
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize(("args", "message"), [
    (["-n", "-1"], "--edits must be at least 0, got -1"),
    (["--pairs", "-2"], "--pairs must be at least 0, got -2"),
])
def test_create_names_the_option_it_refuses(tmp_path, capsys, args, message):
    edits = write_edits(tmp_path / "edits.jsonl")
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(edits), *args]) == 2
    assert capsys.readouterr().err == f"semcer: error: {message}\n"
    assert not (tmp_path / "s.study").exists()
