"""A study file damaged outside semcer (an item's data that is not JSON or not an item, a rating out
of range or of no item, a setting that is not a number): export, status, add-reader and the app
each give one line naming the study and the item, exit 2, and export leaves its folder as it was."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sqlite3

import pytest
from studyhelpers import LINES, edit_record

from semcer.cli import main
from semcer.errors import InputError
from semcer.study.create import add_reader
from semcer.study.db import Item, StudyDB
from semcer.study.sampling import Slot

PAIR = {"pair": "p1", "line_id": "l1", "lang": "vi", "ref": "Tấm Cám đi chợ", "a": "TẤM CÁM đi chợ",
        "b": "Tám Cám đi chợ", "a_system": "sysa", "b_system": "sysb"}


@pytest.fixture
def study(tmp_path):
    """A study of 12 edits (several scripts) and one pair, one reader with every first showing rated."""
    items = [Item(r["edit_id"], "edit", r["lang"], r["lang"], r) for r in (edit_record(*row) for row in LINES)]
    items.append(Item("p1", "pair", "vi", "vi", PAIR))
    path = tmp_path / "s.study"
    meta = {"seed": "0", "repeats": "1", "semcer_version": "test", "edits": "12", "pairs": "1"}
    db = StudyDB.create(path, meta, items)
    add_reader(db, "ana")
    while (found := db.next_slot("ana")) is not None:
        kind = db.item(found[1].item).kind
        db.rate("ana", found[1], **({"level": 2} if kind == "edit" else {"choice": "b"}))
    return path


def _sql(path, sql, *args):
    """A change as a hand edit makes it: no foreign keys, no CHECK constraints."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA ignore_check_constraints = ON")
        conn.execute(sql, args)
        conn.commit()


def _first_edit(path) -> str:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT id FROM items WHERE kind = 'edit' ORDER BY rowid LIMIT 1").fetchone()[0]


def _one_line_error(capsys) -> str:
    _, err = capsys.readouterr()
    assert "Traceback" not in err and err.startswith("semcer: error: ") and err.count("\n") == 1, err
    return err


def _files(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.exists() else {}


EDIT_DAMAGE = [
    ("{not json", "its data is not valid JSON (Expecting property name enclosed in double quotes"),
    ("[1, 2]", "its data is list, not a JSON object"),
    ("null", "its data is null, not a JSON object"),
    ('{"edit_id": "x", "severity": NaN}', "its data holds NaN or Infinity"),
    ('{"lang": "vi"}', "the edit has no 'edit_id'"),
    ('{"edit_id": "ID", "lang": "vi", "op": "S"}', "the edit's 'ref_unit' is missing"),
    ('{"edit_id": "ID", "lang": "vi", "op": "X", "ref_unit": "a", "hyp_unit": "b", "marked_ref": "⟦a⟧", '
     '"marked_hyp": "⟦b⟧", "ref_pos": 0, "hyp_pos": 0}', "the edit's 'op' is 'X', expected S, D or I"),
    ('{"edit_id": "x", "lang": "vi"}', "its edit_id 'x' is not the item's id"),
]


@pytest.mark.parametrize("data, problem", EDIT_DAMAGE)
def test_export_of_a_damaged_edit_is_one_line_and_writes_nothing(study, tmp_path, capsys, data, problem):
    item = _first_edit(study)
    _sql(study, "UPDATE items SET data = ? WHERE id = ?", data.replace('"ID"', json.dumps(item)), item)
    out = tmp_path / "exp"
    assert main(["study", "export", str(study), "-o", str(out)]) == 2
    err = _one_line_error(capsys)
    assert err.startswith(f"semcer: error: {study}: item {item!r} is damaged: ") and problem in err, err
    assert not out.exists()


def test_a_damaged_item_leaves_an_earlier_export_as_it_was(study, tmp_path, capsys):
    out = tmp_path / "exp"
    assert main(["study", "export", str(study), "-o", str(out)]) == 0
    before = _files(out)
    assert set(before) == {"ratings.jsonl", "items.jsonl", "pairs.jsonl", "repeats.jsonl"}
    capsys.readouterr()
    _sql(study, "UPDATE items SET data = '{\"pair\": \"p1\", \"a\": 1}' WHERE id = 'p1'")
    assert main(["study", "export", str(study), "-o", str(out)]) == 2
    err = _one_line_error(capsys)
    assert f"{study}: item 'p1' is damaged: the pair has no text 'ref', 'a', 'b', 'lang'" in err
    assert _files(out) == before


def test_a_failed_write_leaves_no_file_renamed_and_no_temporary(study, tmp_path, monkeypatch, capsys):
    out = tmp_path / "exp"
    assert main(["study", "export", str(study), "-o", str(out)]) == 0
    before = _files(out)
    _sql(study, "UPDATE ratings SET level = 4 WHERE level = 2")  # a new export would differ
    real, calls = os.fsync, []

    def full_disk(fd):
        calls.append(fd)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        real(fd)

    monkeypatch.setattr("semcer.study.export.os.fsync", full_disk)
    assert main(["study", "export", str(study), "-o", str(out)]) == 2
    err = _one_line_error(capsys)
    assert re.search(r"-o .*exp: cannot write .*pairs\.jsonl \(No space left on device\)", err), err
    assert _files(out) == before  # ratings.jsonl and items.jsonl were complete, yet not swapped in alone
    new = tmp_path / "new" / "exp"
    calls.clear()
    assert main(["study", "export", str(study), "-o", str(new)]) == 2
    assert not new.exists() and (tmp_path / "new").is_dir()  # the folder made for the export is removed


RATING_DAMAGE = [
    ("UPDATE ratings SET level = 9 WHERE rowid = 1", "its level is 9, not 0 to 4"),
    ("UPDATE ratings SET level = 'two' WHERE rowid = 1", "its level is 'two', not 0 to 4"),
    ("UPDATE ratings SET verdict = 'maybe' WHERE rowid = 1", "its verdict is 'maybe'"),
    ("UPDATE ratings SET rep = 7 WHERE rowid = 1", "its repeat number is 7, not 0 or 1"),
    ("UPDATE ratings SET level = NULL WHERE rowid = 1", "a rating needs exactly one of a level and a choice"),
    ("UPDATE ratings SET choice = 'z', level = NULL WHERE rowid = 1", "its choice is 'z'"),
]


@pytest.mark.parametrize("sql, problem", RATING_DAMAGE)
@pytest.mark.parametrize("action", ["export", "status"])
def test_a_damaged_rating_is_one_line_in_export_and_status(study, tmp_path, capsys, sql, problem, action):
    with contextlib.closing(sqlite3.connect(study)) as conn:
        item = conn.execute("SELECT item FROM ratings WHERE rowid = 1").fetchone()[0]
    _sql(study, sql)
    args = ["-o", str(tmp_path / "exp")] if action == "export" else []
    assert main(["study", action, str(study), *args]) == 2
    err = _one_line_error(capsys)
    assert f"{study}: the rating of reader 'ana' on item {item!r} is damaged: {problem}" in err, err
    assert not (tmp_path / "exp").exists()


def test_a_rating_of_no_item_or_of_the_wrong_kind_is_named(study, tmp_path, capsys):
    _sql(study, "UPDATE ratings SET item = 'ghost' WHERE item = ?", _first_edit(study))
    assert main(["study", "export", str(study), "-o", str(tmp_path / "exp")]) == 2
    assert "the rating of reader 'ana' on item 'ghost' names no item of the study" in _one_line_error(capsys)
    _sql(study, "DELETE FROM ratings WHERE item = 'ghost'")
    _sql(study, "UPDATE ratings SET choice = NULL, level = 1 WHERE item = 'p1'")
    assert main(["study", "export", str(study), "-o", str(tmp_path / "exp")]) == 2
    assert "on item 'p1' is damaged: it needs a choice (a pair)" in _one_line_error(capsys)
    assert not (tmp_path / "exp").exists()


@pytest.mark.parametrize("value", ["x", "-1", "", None])
def test_a_damaged_setting_is_named(study, capsys, value):
    if value is None:
        _sql(study, "DELETE FROM meta WHERE name = 'edits'")
    else:
        _sql(study, "UPDATE meta SET value = ? WHERE name = 'edits'", value)
    assert main(["study", "status", str(study), "--json"]) == 2
    assert f"{study}: the study's 'edits' setting is damaged" in _one_line_error(capsys)


def test_add_reader_names_a_damaged_item(study, capsys):
    _sql(study, "UPDATE items SET data = '{not json' WHERE id = 'p1'")
    assert main(["study", "add-reader", str(study), "ben"]) == 2
    assert f"{study}: item 'p1' is damaged" in _one_line_error(capsys)
    assert StudyDB(study).readers() == ["ana"]


def test_a_rating_needs_its_answer():
    with pytest.raises(InputError, match="exactly one of them"):
        StudyDB.rate(None, "ana", Slot("x", 0))  # type: ignore[arg-type]  # refused before the file is opened
    with pytest.raises(InputError, match="exactly one of them"):
        StudyDB.rate(None, "ana", Slot("x", 0), level=1, choice="a")  # type: ignore[arg-type]


# -- the app -------------------------------------------------------------------------------------

starlette = pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from semcer.study.web import create_app  # noqa: E402


def test_the_app_refuses_a_damaged_study_before_serving(study):
    _sql(study, "UPDATE items SET data = '{not json' WHERE id = 'p1'")
    with pytest.raises(InputError, match=r"s\.study: item 'p1' is damaged: its data is not valid JSON"):
        create_app(StudyDB(study))


def test_an_item_damaged_while_serving_is_a_page_not_a_traceback(study, caplog):
    db = StudyDB(study)
    token = add_reader(db, "ben")
    client = TestClient(create_app(db), raise_server_exceptions=True)
    pre = re.search(r'name="csrf" value="([^"]+)"', client.get("/signin").text).group(1)
    assert client.post("/signin", data={"csrf": pre, "token": token}, follow_redirects=False).status_code == 303
    page = client.get("/rate")
    assert page.status_code == 200
    shown = db.next_slot("ben")[1].item
    _sql(study, "UPDATE items SET data = '{not json' WHERE id = ?", shown)
    with caplog.at_level(logging.ERROR, logger="semcer.study"):
        page = client.get("/rate")
    assert page.status_code == 500 and "The study file cannot be read" in page.text
    assert str(study) not in page.text and "JSON" not in page.text  # the reader is not shown the file's path
    assert [r.getMessage() for r in caplog.records] == [
        f"{study}: item {shown!r} is damaged: its data is not valid JSON (Expecting property name enclosed in "
        "double quotes: line 1 column 2 (char 1)); restore the study file from a copy (semcer never writes such a "
        "value)"]
    assert page.headers["content-security-policy"].startswith("default-src 'none'")
    assert json.loads(db.meta()["edits"]) == 12
