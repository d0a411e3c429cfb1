"""Parquet export and import of the judged-edit store (semcer.store.parquet): exact round trips,
bad rows and schemas refused whole, atomic writes, a clear message without pyarrow."""

from __future__ import annotations

import math
import os
import sys

import pytest
from helpers import dump, fill_store, make_ctx, p_of

from semcer.errors import StoreError
from semcer.judges.base import FixedJudge
from semcer.judges.distribution import Judgement
from semcer.store.sqlite import JudgedEditStore


@pytest.fixture
def filled_store(tmp_path):
    return fill_store(tmp_path / "filled.sqlite")


def test_parquet_round_trip_is_exact(tmp_path, filled_store):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "edits.parquet"
    with JudgedEditStore(filled_store, readonly=True) as store:
        assert store.export_parquet(out) == (190, 0)  # written, corrupt
    table = pq.read_table(out)
    for name in ("key", "judge", "lang", "op", "ref_unit", "hyp_unit", "ref_pos", "hyp_pos",
                 "marked_ref", "marked_hyp", "p", "severity", "mode", "edit_class", "flags"):
        assert name in table.column_names
    row = table.slice(0, 1).to_pylist()[0]
    assert len(row["p"]) == 5 and row["severity"] == pytest.approx(Judgement(tuple(row["p"])).severity)
    assert row["mode"] == Judgement(tuple(row["p"])).mode

    with JudgedEditStore(tmp_path / "fresh.sqlite") as fresh:
        assert fresh.import_parquet(out) == (190, 0, 0, 0)  # inserted, present, deterministic, one-hot
        assert fresh.import_parquet(out) == (0, 190, 0, 0)
    assert dump(tmp_path / "fresh.sqlite") == dump(filled_store)

    only = tmp_path / "thirds.parquet"
    with JudgedEditStore(filled_store, readonly=True) as store:
        identity = FixedJudge(p=(1 / 3, 1 / 3, 1 / 3, 0.0, 0.0), name="thirds").identity
        assert store.export_parquet(only, judge_identity=identity).written == 40
    assert set(pq.read_table(only).column("judge").to_pylist()) == {identity}


def _broken_copy(tmp_path, source, name, mutate):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = pq.read_table(source).to_pylist()
    schema = mutate(rows)
    path = tmp_path / name
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


@pytest.mark.parametrize(
    "name, change, message",
    [
        ("short-p.parquet", {"p": [0.5, 0.5, 0.0, 0.0]}, "p has 4 values"),
        ("sum.parquet", {"p": [0.5, 0.3, 0.1, 0.0, 0.0]}, "sums to"),
        ("negative.parquet", {"p": [1.2, -0.2, 0.0, 0.0, 0.0]}, "outside"),
        ("nan.parquet", {"p": [math.nan, 1.0, 0.0, 0.0, 0.0]}, "finite"),
        ("null-p.parquet", {"p": None}, "p is missing"),
        ("op.parquet", {"op": "X"}, "op is 'X'"),
        ("key.parquet", {"lang": "xx"}, "key does not match"),
        # derived columns that disagree with p: refused as judge-eval refuses them in a label file
        ("severity.parquet", {"p": [0.0, 0.0, 0.0, 0.5, 0.5], "severity": 0.1},
         r"severity 0\.1 disagrees with p, whose expected rating \(Σ p_k·k/4\) is 0\.875"),
        ("nan-severity.parquet", {"severity": math.nan}, "severity nan disagrees with p"),
        ("mode.parquet", {"p": [0.0, 0.0, 0.0, 0.5, 0.5], "severity": 0.875, "mode": 4},
         r"mode 4 disagrees with p, whose most likely level is 3 \(of equally likely levels the lowest\)"),
    ],
)
def test_import_rejects_bad_rows_and_imports_nothing(tmp_path, filled_store, name, change, message):
    pytest.importorskip("pyarrow")
    good = tmp_path / "good.parquet"
    with JudgedEditStore(filled_store, readonly=True) as store:
        store.export_parquet(good)

    def mutate(rows):
        rows[7].update(change)
        return None

    bad = _broken_copy(tmp_path, good, name, mutate)
    with JudgedEditStore(tmp_path / "target.sqlite") as target:
        with pytest.raises(StoreError, match=rf"{name}: row 7 .*{message}"):
            target.import_parquet(bad)
        assert len(target) == 0


def test_import_rejects_wrong_schema_and_non_parquet(tmp_path, filled_store):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    good = tmp_path / "good.parquet"
    with JudgedEditStore(filled_store, readonly=True) as store:
        store.export_parquet(good)
    table = pq.read_table(good)
    pq.write_table(table.drop_columns(["p", "marked_hyp"]), tmp_path / "missing.parquet")
    as_text = table.set_column(table.schema.get_field_index("p"), "p", pa.array([str(p) for p in table.column("p").to_pylist()]))
    pq.write_table(as_text, tmp_path / "text-p.parquet")
    (tmp_path / "notes.parquet").write_text("not parquet at all")
    with JudgedEditStore(tmp_path / "target.sqlite") as target:
        with pytest.raises(StoreError, match=r"missing.parquet: .*missing column 'marked_hyp'.*missing column 'p'"):
            target.import_parquet(tmp_path / "missing.parquet")
        with pytest.raises(StoreError, match=r"text-p.parquet: .*column 'p' is string"):
            target.import_parquet(tmp_path / "text-p.parquet")
        with pytest.raises(StoreError, match=r"notes.parquet: not a readable Parquet file"):
            target.import_parquet(tmp_path / "notes.parquet")
        assert len(target) == 0


def test_import_accepts_derived_columns_that_agree_with_p_or_are_null(tmp_path, filled_store):
    pytest.importorskip("pyarrow")
    good = tmp_path / "good.parquet"
    with JudgedEditStore(filled_store, readonly=True) as store:
        store.export_parquet(good)

    def mutate(rows):
        rows[0].update(p=[0.0, 0.0, 0.0, 0.5, 0.5], severity=0.875, mode=3)  # severity rounded: 0.87504 too
        rows[1].update(p=[0.0, 0.0, 0.0, 0.5, 0.5], severity=0.87504, mode=None)
        rows[2].update(severity=None)
        return None

    rounded = _broken_copy(tmp_path, good, "rounded.parquet", mutate)
    with JudgedEditStore(tmp_path / "target.sqlite") as target:
        assert target.import_parquet(rounded) == (190, 0, 0, 0)


def test_import_of_labelled_data_layout_without_store_extras(tmp_path, filled_store):
    pq = pytest.importorskip("pyarrow.parquet")
    good = tmp_path / "good.parquet"
    with JudgedEditStore(filled_store, readonly=True) as store:
        store.export_parquet(good)
    lean = pq.read_table(good).drop_columns(["edit_class", "flags", "created", "severity", "mode"])
    pq.write_table(lean, tmp_path / "lean.parquet")
    with JudgedEditStore(tmp_path / "target.sqlite") as target:
        assert target.import_parquet(tmp_path / "lean.parquet") == (190, 0, 0, 0)
        hit = target.get_many([JudgedEditStore.key("counting:v1", make_ctx(0))])
        assert next(iter(hit.values())) == Judgement(p_of(make_ctx(0)))


def test_export_is_atomic(tmp_path, filled_store, monkeypatch):
    pytest.importorskip("pyarrow")
    import semcer.store.parquet as store_module

    out = tmp_path / "out" / "edits.parquet"
    out.parent.mkdir()
    out.write_bytes(b"PAR1 previous export")

    def explode(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(store_module, "_rows_to_table", explode)
    with JudgedEditStore(filled_store, readonly=True) as store, pytest.raises(OSError, match="disk full"):
        store.export_parquet(out)
    assert out.read_bytes() == b"PAR1 previous export"
    assert os.listdir(out.parent) == ["edits.parquet"]  # no temporary file left behind


def test_parquet_needs_pyarrow(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with JudgedEditStore(tmp_path / "s.sqlite") as store:
        with pytest.raises(StoreError, match=r'pip install "semcer\[parquet\]"'):
            store.export_parquet(tmp_path / "x.parquet")
        with pytest.raises(StoreError, match=r'pip install "semcer\[parquet\]"'):
            store.import_parquet(tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()


# -- where an export may go (issue 11, item 3a) --------------------------------------------------


def test_export_never_overwrites_the_store_however_it_is_spelled(tmp_path, filled_store):
    pytest.importorskip("pyarrow")
    before = dump(filled_store)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.sqlite").symlink_to(filled_store)
    os.link(filled_store, tmp_path / "hard.sqlite")
    spellings = [filled_store, str(filled_store), tmp_path / "sub" / ".." / filled_store.name, tmp_path / "link.sqlite",
                 tmp_path / "hard.sqlite"]
    with JudgedEditStore(filled_store, readonly=True) as store:
        for out in spellings:
            with pytest.raises(StoreError, match=r"is the store .*filled\.sqlite itself; give the Parquet file another name"):
                store.export_parquet(out)
    assert dump(filled_store) == before
    assert (tmp_path / "link.sqlite").is_symlink()
    with JudgedEditStore(filled_store) as store:
        assert len(store) == 190


def test_export_overwrites_a_parquet_file_but_no_other_file(tmp_path, filled_store):
    pq = pytest.importorskip("pyarrow.parquet")
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    other_store = fill_store(tmp_path / "other.sqlite")
    with JudgedEditStore(filled_store, readonly=True) as store:
        for out in (notes, other_store):
            with pytest.raises(StoreError, match=r"exists and is not a Parquet file; not overwritten"):
                store.export_parquet(out)
        with pytest.raises(StoreError, match=r"is a directory"):
            store.export_parquet(tmp_path)
        assert notes.read_text() == "my notes\n" and len(dump(other_store)) == 190

        previous = tmp_path / "previous.parquet"
        store.export_parquet(previous, judge_identity="counting:v1")
        assert store.export_parquet(previous).written == 190  # an earlier export is replaced
        assert pq.read_table(previous).num_rows == 190
        empty = tmp_path / "empty.parquet"
        empty.touch()  # e.g. made by mktemp
        assert store.export_parquet(empty).written == 190


def test_export_into_a_missing_directory_is_a_store_error(tmp_path, filled_store):
    pytest.importorskip("pyarrow")
    with JudgedEditStore(filled_store, readonly=True) as store, pytest.raises(StoreError, match=r"no such directory"):
        store.export_parquet(tmp_path / "missing" / "out.parquet")
