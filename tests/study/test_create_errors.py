"""`semcer study create` refuses what it cannot use before drawing anything, leaves no file behind
when it fails (all or nothing), and says in one line what is wrong: a reader's name, an option that
makes an empty study, a file of the wrong kind, score JSONs of a pair pool that were scored
differently or cover other lines; `study status` on a directory."""

from __future__ import annotations

import json

import pytest
from studyhelpers import write_edits

from semcer.cli import main
from semcer.errors import SemcerError
from semcer.study import create
from semcer.study.create import create_study, plan
from semcer.study.db import StudyDB

REFS = [("l1", "en", "is not valid"), ("l2", "en", "total 1,250 EUR"), ("l3", "en", "the quick brown fox")]
SYSTEMS = {"sysa": {"l1": "is not valid", "l2": "total 1,250 eur", "l3": "the quick brown fox"},
           "sysb": {"l1": "is now valid", "l2": "total 1,750 EUR", "l3": "the quick brown fox"}}


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _error(capsys) -> str:
    """The one line a refused command wrote (and nothing on standard output)."""
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "", out
    assert len(lines) == 1 and lines[0].startswith("semcer: error: ") and "Traceback" not in err, err
    return lines[0].removeprefix("semcer: error: ")


def _left(folder, name="s.study") -> list[str]:
    """What a study named ``name`` left in ``folder``: the file, its SQLite companions, temporary files."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith((name, f".{name}")))


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """sysa and sysb scored with the rubric judge, sysb also with the compact judge (sysb_compact)."""
    d = tmp_path_factory.mktemp("pairs")
    refs = _jsonl(d / "refs.jsonl", [{"id": i, "lang": lang, "text": t} for i, lang, t in REFS])
    out = {}
    for name, judge in (("sysa", "rubric"), ("sysb", "rubric"), ("sysb_compact", "compact")):
        hyps = SYSTEMS[name.split("_")[0]]
        h = _jsonl(d / f"{name}.hyp.jsonl", [{"id": i, "text": hyps[i]} for i, _, _ in REFS])
        out[name] = d / f"{name}.json"
        assert main(["score", str(refs), str(h), "--json", "--lines", "--spans", "1", "-o", str(out[name]),
                     "--judge", judge]) == 0
    return out


def _variant(scored, tmp_path, name, change):
    """A copy of sysb's score JSON, named ``name``, changed by ``change(doc)``."""
    doc = json.loads(scored["sysb"].read_text(encoding="utf-8"))
    change(doc)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


# -- 1. readers: checked before the draw; nothing left behind -----------------------------------------


@pytest.mark.parametrize("bad", ["bad\x01name", "", "x" * 65])
def test_a_bad_reader_name_leaves_no_study(tmp_path, capsys, bad):
    edits = write_edits(tmp_path / "edits.jsonl")
    path = tmp_path / "s.study"
    assert main(["study", "create", str(path), "--from", str(edits), "--reader", "ana", "--reader", bad]) == 2
    assert _error(capsys) == f"reader name {bad!r}: give 1 to 64 printable characters"
    assert _left(tmp_path) == []
    # a rerun with good names is not told the study "already exists"
    assert main(["study", "create", str(path), "--from", str(edits), "--reader", "ana", "--reader", "ben"]) == 0
    assert StudyDB(path).readers() == ["ana", "ben"]


def test_readers_are_checked_before_any_source_is_read(tmp_path, capsys):
    path = tmp_path / "s.study"
    assert main(["study", "create", str(path), "--from", str(tmp_path / "missing.jsonl"), "--reader", ""]) == 2
    assert _error(capsys) == "reader name '': give 1 to 64 printable characters"
    assert main(["study", "create", str(path), "--from", str(tmp_path / "missing.jsonl"), "--reader", "ana",
                 "--reader", "ana"]) == 2
    assert _error(capsys) == "--reader: each reader once"
    assert _left(tmp_path) == []


def test_create_study_refuses_a_bad_reader_without_a_file(tmp_path):
    edits = write_edits(tmp_path / "edits.jsonl")
    drawn = plan([str(edits)], [], None, None, 0, 1)
    with pytest.raises(SemcerError, match="reader name"):
        create_study(tmp_path / "s.study", drawn, ["ana", "b\nc"])
    assert _left(tmp_path) == []


def test_a_failure_while_creating_leaves_nothing(tmp_path, monkeypatch):
    edits = write_edits(tmp_path / "edits.jsonl")
    drawn = plan([str(edits)], [], None, None, 0, 1)
    added = []

    def failing(db, name):
        if added:
            raise KeyboardInterrupt  # Ctrl-C while the second reader is added
        added.append(name)
        return real(db, name)

    real = create.add_reader
    monkeypatch.setattr(create, "add_reader", failing)
    with pytest.raises(KeyboardInterrupt):
        create_study(tmp_path / "s.study", drawn, ["ana", "ben"])
    assert added == ["ana"] and _left(tmp_path) == []


def test_a_study_created_meanwhile_is_kept(tmp_path, monkeypatch):
    """Another run that created the same study while this one drew: this one fails, theirs stays."""
    edits = write_edits(tmp_path / "edits.jsonl")
    drawn = plan([str(edits)], [], None, None, 0, 1)
    path = tmp_path / "s.study"
    real = create.add_reader

    def racing(db, name):
        monkeypatch.setattr(create, "add_reader", real)
        create_study(path, drawn, ["theirs"])
        return real(db, name)

    monkeypatch.setattr(create, "add_reader", racing)
    with pytest.raises(SemcerError, match="already exists"):
        create_study(path, drawn, ["ours"])
    assert StudyDB(path).readers() == ["theirs"] and _left(tmp_path) == ["s.study"]


def test_a_created_study_is_one_file(tmp_path, capsys):
    edits = write_edits(tmp_path / "edits.jsonl")
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(edits), "--reader", "ana"]) == 0
    assert _left(tmp_path) == ["s.study"]
    assert StudyDB(tmp_path / "s.study").readers() == ["ana"]


# -- 6. sizes that make an empty study, or apply to nothing ---------------------------------------------


@pytest.mark.parametrize(("args", "message"), [
    (["-n", "0"], "-n 0: a study needs at least one item"),
    (["--edits", "0"], "-n 0: a study needs at least one item"),
    (["-n", "0", "--pairs-from", "a.json", "--pairs-from", "b.json", "--pairs", "0"],
     "-n 0 and --pairs 0: a study needs at least one item"),
    (["--pairs", "3"], "--pairs 3: give the systems to pair (--pairs-from, two or more)"),
])
def test_sizes_are_checked_before_drawing(tmp_path, capsys, args, message):
    edits = write_edits(tmp_path / "edits.jsonl")
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(edits), *args]) == 2
    assert _error(capsys) == message
    assert _left(tmp_path) == []


def test_n_without_edits_to_draw_from(scored, tmp_path, capsys):
    assert main(["study", "create", str(tmp_path / "s.study"), "--pairs-from", str(scored["sysa"]),
                 "--pairs-from", str(scored["sysb"]), "-n", "4"]) == 2
    assert _error(capsys) == "-n 4: give the edits to draw from (--from)"


def test_n_zero_beside_pairs_is_a_pair_study(scored, tmp_path, capsys):
    edits = write_edits(tmp_path / "edits.jsonl")
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(edits), "-n", "0", "--pairs-from",
                 str(scored["sysa"]), "--pairs-from", str(scored["sysb"]), "--repeats", "0"]) == 0
    assert {i.kind for i in StudyDB(tmp_path / "s.study").items()} == {"pair"}


# -- 3. a file of no kind --from reads --------------------------------------------------------------


@pytest.mark.parametrize("text", ["hello world\n", "a,b\n", "edit_id,lang\nx,en\n"])
def test_a_file_named_sqlite_that_is_none(tmp_path, capsys, text):
    src = tmp_path / "notsqlite.sqlite"
    src.write_text(text, encoding="utf-8")
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(src), "--reader", "ana"]) == 2
    msg = _error(capsys)
    assert msg.startswith(f"--from {src}: not an edit list, a score JSON or a judged-edit store"), msg
    assert "semcer score --edits FILE" in msg and "--json --lines" in msg and "SQLite" in msg
    assert "header" not in msg and _left(tmp_path) == []


def test_a_folder_given_as_from(tmp_path, capsys):
    (tmp_path / "edits").mkdir()
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(tmp_path / "edits")]) == 2
    assert _error(capsys).startswith(f"--from {tmp_path / 'edits'}: a directory; --from takes an edit list")


# -- 4. a broken score JSON: study's message, not report's ----------------------------------------------


def test_a_truncated_pair_source(scored, tmp_path, capsys):
    cut = tmp_path / "sp_trunc.json"
    cut.write_text(scored["sysb"].read_text(encoding="utf-8")[:300], encoding="utf-8")
    assert main(["study", "create", str(tmp_path / "s.study"), "--pairs-from", str(scored["sysa"]),
                 "--pairs-from", str(cut)]) == 2
    msg = _error(capsys)
    assert msg.startswith(f"--pairs-from {cut}: not a `semcer score --json --lines` output (malformed JSON"), msg
    assert msg.endswith("write one with semcer score REFS HYPS --json --lines --spans 1 -o SCORE.json")
    assert "semcer report" not in msg and _left(tmp_path) == []


def test_a_truncated_edit_source(scored, tmp_path, capsys):
    cut = tmp_path / "score.json"
    cut.write_text(scored["sysb"].read_text(encoding="utf-8")[:300], encoding="utf-8")
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(cut)]) == 2
    msg = _error(capsys)
    assert msg.startswith(f"--from {cut}: not a `semcer score --json --lines` output") and "semcer report" not in msg


# -- 2. pair pools: scored alike, on the same lines ----------------------------------------------------


def test_pairs_of_different_judges_are_refused(scored, tmp_path, capsys):
    a, b = scored["sysa"], scored["sysb_compact"]
    assert main(["study", "create", str(tmp_path / "s.study"), "--pairs-from", str(a), "--pairs-from", str(b)]) == 2
    msg = _error(capsys)
    assert msg.startswith(f"--pairs-from {b}: its signature differs from {a}'s: judge 'compact-"), msg
    assert f"({a}: 'rubric-" in msg and "policy" not in msg and _left(tmp_path) == []


@pytest.mark.parametrize(("field", "value"), [("policy", "nfkc"), ("unit", "codepoint"), ("empty_ref", "skip"),
                                              ("version", "0.0.1"), ("dialect", "dinglehopper")])
def test_pairs_of_other_scoring_options_are_refused(scored, tmp_path, capsys, field, value):
    b = _variant(scored, tmp_path, "sysb2", lambda doc: doc["signature_fields"].update({field: value}))
    assert main(["study", "create", str(tmp_path / "s.study"), "--pairs-from", str(scored["sysa"]),
                 "--pairs-from", str(b)]) == 2
    assert f"its signature differs from {scored['sysa']}'s: {field} '{value}' (" in _error(capsys)


def test_pairs_may_differ_in_what_is_a_systems_own(scored, tmp_path, capsys):
    """--unmatched and --hyphen describe a system's outputs; the pairs are those of equal signatures."""
    b = _variant(scored, tmp_path, "sysb2", lambda doc: doc["signature_fields"].update(unmatched="empty", hyphen="join"))
    for n, (x, y) in enumerate(((scored["sysa"], scored["sysb"]), (scored["sysa"], b))):
        assert main(["study", "create", str(tmp_path / f"s{n}.study"), "--pairs-from", str(x), "--pairs-from", str(y),
                     "--repeats", "0"]) == 0
    capsys.readouterr()
    # l2: a has a case slip (CER: worse), b another number (semCER: worse); l1: only b has an edit
    assert [i.data["line_id"] for i in StudyDB(tmp_path / "s1.study").items()] == \
        [i.data["line_id"] for i in StudyDB(tmp_path / "s0.study").items()] == ["l2"]


def test_pairs_on_other_lines_are_refused(scored, tmp_path, capsys):
    a = scored["sysa"]
    fewer = _variant(scored, tmp_path, "fewer", lambda doc: doc.update(lines=doc["lines"][:2]))
    for x, y, counts, only in ((a, fewer, "1 missing, 0 extra", f"line 'l3' only in {a}"),
                               (fewer, a, "0 missing, 1 extra", f"line 'l3' only in {a}")):
        assert main(["study", "create", str(tmp_path / "s.study"), "--pairs-from", str(x), "--pairs-from", str(y)]) == 2
        msg = _error(capsys)
        assert msg.startswith(f"--pairs-from {y} covers other lines than {x} ({counts}; e.g. {only})"), msg
        assert "same references" in msg
    assert _left(tmp_path) == []


def test_pairs_of_other_references_are_refused(scored, tmp_path, capsys):
    """Also a line whose outputs are equal (no pair): the files are not of the same references."""
    def other_ref(doc):
        doc["lines"][2]["ref"] = "the quick brown cat"

    b = _variant(scored, tmp_path, "sysb2", other_ref)
    assert main(["study", "create", str(tmp_path / "s.study"), "--pairs-from", str(scored["sysa"]),
                 "--pairs-from", str(b)]) == 2
    assert _error(capsys) == (f"--pairs-from {b}: line 'l3' has another reference than in {scored['sysa']}; "
                              "pairs need score JSONs of the same references")


# -- 5. status of a directory ---------------------------------------------------------------------------


@pytest.mark.parametrize("action", [["status", "DIR"], ["export", "DIR", "-o", "out"], ["add-reader", "DIR", "ana"]])
def test_a_directory_is_not_a_study(tmp_path, capsys, action):
    folder = tmp_path / "emptydir"
    folder.mkdir()
    assert main(["study", *(str(folder) if a == "DIR" else a for a in action)]) == 2
    assert _error(capsys) == f"{folder}: a directory, not a study file (a study is one file, made by semcer study create)"


def test_a_study_that_cannot_be_written_is_one_line_and_no_file(tmp_path, capsys, monkeypatch):
    """A full disk or a read-only folder while writing: one line, and no temporary file is left."""
    import sqlite3

    from semcer.study import db

    def full(path, meta, items):
        path.write_bytes(b"half a database")
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(db, "_write_new", full)
    edits = write_edits(tmp_path / "edits.jsonl")
    assert main(["study", "create", str(tmp_path / "s.study"), "--from", str(edits), "--reader", "ana"]) == 2
    assert _error(capsys) == f"{tmp_path / 's.study'}: cannot write the study (database or disk is full)"
    assert _left(tmp_path) == []
