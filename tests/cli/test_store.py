"""`semcer store info|export|import` (in process)."""

from __future__ import annotations

import json
import sqlite3

import pytest
from helpers import dump, fill_store, make_ctx

from semcer.cli import main
from semcer.store.sqlite import SCHEMA_VERSION


@pytest.fixture
def filled_store(tmp_path):
    return fill_store(tmp_path / "filled.sqlite")


def test_cli_info_export_import(tmp_path, filled_store, capsys):
    pytest.importorskip("pyarrow")
    assert main(["store", "info", str(filled_store)]) == 0
    out = capsys.readouterr().out
    assert "edits: 190" in out and "150  counting:v1" in out and f"schema version: {SCHEMA_VERSION}" in out

    parquet = tmp_path / "all.parquet"
    assert main(["store", "export", str(filled_store), str(parquet)]) == 0
    assert "exported 190" in capsys.readouterr().out
    assert main(["store", "export", str(filled_store), str(tmp_path / "one.parquet"), "--judge", "counting:v1"]) == 0
    assert "exported 150" in capsys.readouterr().out

    target = tmp_path / "new.sqlite"
    assert main(["store", "import", str(target), str(parquet)]) == 0
    assert "imported 190" in capsys.readouterr().out
    assert dump(target) == dump(filled_store)


def test_cli_errors_are_one_line(tmp_path, filled_store, capsys):
    assert main(["store", "info", str(tmp_path / "missing.sqlite")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("semcer: error:") and "missing.sqlite" in err and err.count("\n") == 1

    assert main(["store", "export", str(filled_store), str(tmp_path / "x.parquet"), "--judge", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "no edits of judge 'nobody'" in err and "counting:v1" in err
    assert not (tmp_path / "x.parquet").exists()


def _one_line_error(capsys, *needles):
    err = capsys.readouterr().err
    assert err.startswith("semcer: error:") and err.count("\n") == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err
    return err


def test_cli_export_onto_the_store_itself_is_refused(tmp_path, filled_store, capsys):
    pytest.importorskip("pyarrow")
    before = dump(filled_store)
    assert main(["store", "export", str(filled_store), str(filled_store)]) == 2
    _one_line_error(capsys, "is the store", "give the Parquet file another name")
    assert main(["store", "export", str(filled_store), str(tmp_path / "." / "filled.sqlite")]) == 2
    _one_line_error(capsys, "is the store")
    assert dump(filled_store) == before
    assert main(["store", "info", str(filled_store)]) == 0
    assert "edits: 190" in capsys.readouterr().out


@pytest.mark.parametrize("name, ext", [("out.csv", "'.csv'"), ("out.jsonl", "'.jsonl'"), ("out", "'(none)'")])
def test_cli_export_to_a_name_that_is_not_parquet_is_refused_first(tmp_path, filled_store, capsys, name, ext):
    # the export is always Parquet: a Parquet file named .csv would mislead whoever opens it
    out = tmp_path / name
    assert main(["store", "export", str(filled_store), str(out)]) == 2
    _one_line_error(capsys, f"{out}: unknown extension {ext} for an export, which is always Parquet; name it "
                    ".parquet (e.g. out.parquet)")
    assert not out.exists()
    # checked before the store is opened: a missing store is not even looked for
    assert main(["store", "export", str(tmp_path / "missing.sqlite"), str(out)]) == 2
    _one_line_error(capsys, "unknown extension")
    assert not (tmp_path / "missing.sqlite").exists()


def test_cli_export_accepts_any_case_of_parquet(tmp_path, filled_store, capsys):
    pytest.importorskip("pyarrow")
    assert main(["store", "export", str(filled_store), str(tmp_path / "OUT.PARQUET")]) == 0
    assert "exported 190" in capsys.readouterr().out


def _tamper(path, assignment, where=""):
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE judged_edits SET {assignment} {where}")
    conn.close()


def test_cli_corrupt_rows_are_refused_by_export_and_found_by_check(tmp_path, filled_store, capsys):
    pytest.importorskip("pyarrow")
    keys = sorted(r[0] for r in dump(filled_store))
    _tamper(filled_store, "p2 = 'half'", f"WHERE key = '{keys[0]}'")
    _tamper(filled_store, "p0 = 10, p1 = 0, p2 = 0, p3 = 0, p4 = 0", f"WHERE key = '{keys[1]}'")
    out = tmp_path / "out.parquet"
    assert main(["store", "export", str(filled_store), str(out)]) == 2
    _one_line_error(capsys, "2 corrupt rows of 190", "nothing exported", "--skip-corrupt", "store check")
    assert not out.exists()
    assert main(["store", "export", str(filled_store), str(out), "--skip-corrupt"]) == 0
    text = capsys.readouterr().out
    assert "exported 188 judged edits" in text and "(2 corrupt rows left out)" in text

    assert main(["store", "check", str(filled_store)]) == 1
    text = capsys.readouterr().out
    assert "rows checked: 190" in text and "corrupt: 2" in text
    assert f"{keys[0][:16]}  p2 is text 'half', not a number" in text and keys[1][:16] in text
    assert main(["store", "check", str(filled_store), "--delete"]) == 0
    assert "deleted: 2" in capsys.readouterr().out
    assert main(["store", "check", str(filled_store)]) == 0
    assert "corrupt: 0" in capsys.readouterr().out
    assert len(dump(filled_store)) == 188


def test_cli_score_with_text_in_a_probability_column(tmp_path, capsys):
    refs = tmp_path / "refs.txt"
    hyps = tmp_path / "hyps.txt"
    refs.write_text("110-2\nTấm Cám\nhello world\n", encoding="utf-8")
    hyps.write_text("11O-2\nTám Cám\nhello wrld\n", encoding="utf-8")
    store = tmp_path / "s.sqlite"
    argv = ["score", str(refs), str(hyps), "--judge", "fixed", "--store", str(store), "--json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["corpus"]["cer"] == pytest.approx(3 / 23) and first["corpus"]["semcer"] == pytest.approx(3 / 23)
    _tamper(store, "p4 = 'one'")
    assert main(argv) == 0  # no traceback: the rows are judged again
    second = json.loads(capsys.readouterr().out)
    assert second["corpus"]["semcer"] == first["corpus"]["semcer"] and second["judge"]["judged"] == 3
    _tamper(store, "p0 = 10, p1 = 0, p2 = 0, p3 = 0, p4 = 0")
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["corpus"]["semcer"] == first["corpus"]["semcer"]


def test_cli_import_reports_skipped_deterministic_rows(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from semcer.judges import resolve_judge
    from semcer.store.keys import edit_key

    identity = resolve_judge("compact").identity
    ctxs = [make_ctx(i) for i in range(5)]
    rows = [{"key": edit_key(identity, c.content_key()), "judge": identity, "lang": c.lang, "op": c.op,
             "ref_unit": c.ref_unit, "hyp_unit": c.hyp_unit, "ref_pos": c.ref_pos, "hyp_pos": c.hyp_pos,
             "marked_ref": c.marked_ref, "marked_hyp": c.marked_hyp, "p": [1.0, 0.0, 0.0, 0.0, 0.0]} for c in ctxs]
    forged = tmp_path / "forged.parquet"
    pq.write_table(pa.Table.from_pylist(rows), forged)
    assert main(["store", "import", str(tmp_path / "s.sqlite"), str(forged)]) == 0
    out = capsys.readouterr().out
    assert "imported 0 judged edits" in out and "now holds 0" in out
    assert "skipped 5 rows of deterministic built-in judges" in out and "recomputed locally" in out


# -- a failed import or run leaves no new store; files that are no store say what they are ----------


def _no_store(path):
    return not any(p.name.startswith(path.name) for p in path.parent.iterdir())


def _bad_row_parquet(tmp_path, filled_store):
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    good = tmp_path / "good.parquet"
    assert main(["store", "export", str(filled_store), str(good)]) == 0
    table = pq.read_table(good)
    rows = table.to_pylist()
    rows[7]["p"] = [0.5, 0.5, 0.5, 0.0, 0.0]
    bad = tmp_path / "bad.parquet"
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), bad)
    return bad


@pytest.mark.parametrize("source", ["missing", "not-parquet", "directory", "bad-row"])
def test_cli_failed_import_creates_no_store(tmp_path, filled_store, capsys, source):
    pytest.importorskip("pyarrow")
    path = tmp_path / "src.parquet"
    if source == "not-parquet":
        path.write_text("hello\n")
    elif source == "directory":
        path.mkdir()
    elif source == "bad-row":
        path = _bad_row_parquet(tmp_path, filled_store)
    capsys.readouterr()
    target = tmp_path / "new.sqlite"
    assert main(["store", "import", str(target), str(path)]) == 2
    err = _one_line_error(capsys, str(path))
    if source == "missing":
        assert err == f"semcer: error: {path}: no such file\n"
    elif source == "bad-row":
        assert "row 7" in err
    assert _no_store(target)


def test_cli_failed_import_leaves_an_existing_store_as_it_was(tmp_path, filled_store, capsys):
    bad = _bad_row_parquet(tmp_path, filled_store)
    before = dump(filled_store)
    for source in (bad, tmp_path / "missing.parquet"):
        assert main(["store", "import", str(filled_store), str(source)]) == 2
        _one_line_error(capsys, str(source))
        assert dump(filled_store) == before


def test_cli_score_whose_judge_fails_leaves_no_new_store(tmp_path, filled_store, capsys):
    from helpers import EXAMPLES

    argv = ["score", str(EXAMPLES / "references.jsonl"), str(EXAMPLES / "tess_noisy.jsonl"), "--judge", "llm",
            "--endpoint", "http://127.0.0.1:9/v1", "--model", "x", "--timeout", "1", "--max-retries", "0", "--quiet"]
    store = tmp_path / "llm.sqlite"
    assert main([*argv, "--store", str(store)]) == 2
    _one_line_error(capsys, "cannot reach")
    assert _no_store(store)
    before = dump(filled_store)
    assert main([*argv, "--store", str(filled_store)]) == 2  # a store that existed is kept, whatever it holds
    capsys.readouterr()
    assert dump(filled_store) == before


@pytest.mark.parametrize("content, message", [(b"", "an empty file, not a judged-edit store"),
                                              (b"{\"id\": 1}\n", "not an SQLite file, so not a judged-edit store")])
@pytest.mark.parametrize("command", [["info"], ["check"], ["check", "--delete"], ["export", "out.parquet"]])
def test_cli_store_commands_name_a_file_that_is_no_store(tmp_path, capsys, monkeypatch, content, message, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.jsonl").write_bytes(content)
    assert main(["store", command[0], "empty.jsonl", *command[1:]]) == 2
    assert capsys.readouterr().err == f"semcer: error: empty.jsonl: {message}\n"
    assert (tmp_path / "empty.jsonl").read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.jsonl"]


def test_cli_check_delete_does_not_create_a_store(tmp_path, capsys):
    missing = tmp_path / "missing.sqlite"
    assert main(["store", "check", str(missing), "--delete"]) == 2
    _one_line_error(capsys, "no such store")
    assert _no_store(missing)


def test_cli_check_says_clearly_why_a_cut_pair_is_corrupt(tmp_path, filled_store, capsys):
    key = sorted(r[0] for r in dump(filled_store))[0]
    _tamper(filled_store, "pair = substr(pair, 1, 1)", f"WHERE key = '{key}'")  # the codec byte alone
    assert main(["store", "check", str(filled_store)]) == 1
    out = capsys.readouterr().out
    assert f"{key[:16]}  marked pair ends inside its length header (the value is cut short)" in out
