"""Parquet collections: the rows of a file's id, text, doc and lang columns, read under JSONL's
record rules (the same items as the same records in JSONL), every bad file one line naming it."""

from __future__ import annotations

import builtins
import gzip
import json
import subprocess
import sys

import pytest
from helpers import EXAMPLES, jsonl, write
from helpers import read_error as error
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semcer.io.collections import detect_file_format, read_collection

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def parquet(path, table, **kwargs):
    pq.write_table(table if isinstance(table, pa.Table) else pa.table(table), path, **kwargs)
    return path


def _records(name: str) -> list[dict]:
    return [json.loads(line) for line in (EXAMPLES / name).read_text(encoding="utf-8").splitlines()]


def test_the_bundled_example_as_parquet_scores_as_the_readme_says(tmp_path):
    refs = parquet(tmp_path / "refs.parquet", pa.Table.from_pylist(_records("references.jsonl")), row_group_size=37)
    hyps = parquet(tmp_path / "hyps.pq", pa.Table.from_pylist(_records("tess_noisy.jsonl")))
    p = subprocess.run([sys.executable, "-m", "semcer", "cer", str(refs), str(hyps), "--json"],
                       capture_output=True, text=True, check=True)
    corpus = json.loads(p.stdout)["corpus"]
    # The README's figures for the JSONL files: 818 edits (521 S, 145 D, 152 I) over 8,890 units, 20 documents.
    assert (corpus["edits"], corpus["substitutions"], corpus["deletions"], corpus["insertions"]) == (818, 521, 145, 152)
    assert (corpus["units"], corpus["lines"], corpus["documents"]) == (8890, 240, 20)


record = st.fixed_dictionaries(
    {"id": st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=8),
     "text": st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30),
     "doc": st.none() | st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=5),
     "lang": st.none() | st.sampled_from(["en", "de", "vi", ""])})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(record, min_size=1, max_size=12, unique_by=lambda r: r["id"]), st.integers(1, 5))
def test_parquet_gives_the_items_jsonl_gives(tmp_path, records, group):
    pq_items = read_collection(parquet(tmp_path / "c.parquet", pa.Table.from_pylist(records), row_group_size=group)).items
    js_items = read_collection(write(tmp_path / "c.jsonl", jsonl(*records))).items
    assert [i[:4] for i in pq_items] == [i[:4] for i in js_items]
    assert [i.source for i in pq_items] == [f"{tmp_path / 'c.parquet'} row {n}" for n in range(1, len(records) + 1)]


def test_integer_ids_dictionary_columns_large_strings_and_extra_columns(tmp_path):
    table = pa.table({"page": [7, 8], "id": pa.array([10, 2], pa.int32()),
                      "text": pa.array(["a", "b"], pa.large_string()),
                      "lang": pa.array(["de", None]).dictionary_encode(), "image": [b"\x89PNG", b""]})
    items = read_collection(parquet(tmp_path / "t.parquet", table)).items
    assert [(i.id, i.text, i.doc, i.lang) for i in items] == [("10", "a", None, "de"), ("2", "b", None, None)]


def test_a_file_of_many_batches_is_read_whole_in_order(tmp_path, monkeypatch):
    monkeypatch.setattr("semcer.io.parquet.BATCH_ROWS", 1000)
    n = 4321
    table = pa.table({"id": [f"l{k}" for k in range(n)], "text": [str(k * 7) for k in range(n)]})
    items = read_collection(parquet(tmp_path / "big.parquet", table, row_group_size=999)).items
    assert len(items) == n and items[-1][:2] == ("l4320", "30240") and items[1234].source.endswith(" row 1235")


@pytest.mark.parametrize("table, expected", [
    ({"id": ["a", "b"], "text": ["x", None]}, "row 2: 'text' is missing (id 'b'); use \"\" for an empty text"),
    ({"id": ["a", None], "text": ["x", "y"]}, "row 2: 'id' is missing; every item needs a string id"),
    ({"id": ["a", ""], "text": ["x", "y"]}, "row 2: 'id' is empty"),
    ({"id": ["a", "a"], "text": ["x", "y"]}, "row 2: duplicate id 'a' (first at "),
    ({"id": ["a"], "text": ["x\x00y"]}, "row 1: the text holds a NUL character (id 'a')"),
    ({"id": [1.5], "text": ["x"]}, ": column 'id' is double, not a string or integer column"),
    ({"id": ["a"], "text": [b"x"]}, ": column 'text' is binary, not a string column"),
    ({"id": ["a"], "text": ["x"], "lang": [3]}, ": column 'lang' is int64, not a string column"),
    ({"ident": ["a"], "body": ["x"]}, ": no 'id' or 'text' column (columns: 'ident', 'body')"),
])
def test_a_bad_row_or_column_is_one_line_naming_it(tmp_path, table, expected):
    path = parquet(tmp_path / "bad.parquet", table)
    assert error(path).startswith(f"{path}{'' if expected.startswith(':') else ' '}{expected}")


def test_a_file_without_rows_is_an_empty_collection(tmp_path):
    path = parquet(tmp_path / "none.parquet", {"id": pa.array([], pa.string()), "text": pa.array([], pa.string())})
    c = read_collection(path)  # whether it is an error is the pairing's (an output under unmatched='empty' is not)
    assert c.items == () and c.empty == f"{path}: no items (the input is empty)"


def test_a_truncated_file_is_refused_as_parquet(tmp_path):
    whole = parquet(tmp_path / "whole.parquet", {"id": ["a"] * 1, "text": ["x" * 5000]}).read_bytes()
    cut = write(tmp_path / "cut.parquet", whole[: len(whole) // 2])
    assert error(cut).startswith(f"{cut}: not a readable Parquet file (")
    assert detect_file_format(cut) == "parquet"


def test_gzip_compressed_and_standard_input(tmp_path):
    whole = parquet(tmp_path / "r.parquet", {"id": ["a", "b"], "text": ["x", "y"]}).read_bytes()
    gz = write(tmp_path / "r.parquet.gz", gzip.compress(whole))
    assert [i.text for i in read_collection(gz).items] == ["x", "y"]
    p = subprocess.run([sys.executable, "-m", "semcer", "cer", "-", str(tmp_path / "r.parquet"), "--json"],
                       input=whole, capture_output=True, check=True)
    assert json.loads(p.stdout)["corpus"]["edits"] == 0


def test_without_pyarrow_the_error_names_the_extra(tmp_path, monkeypatch):
    path = parquet(tmp_path / "r.parquet", {"id": ["a"], "text": ["x"]})
    real = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    assert error(path) == f'{path}: reading Parquet needs pyarrow: pip install "semcer[parquet]"'


def test_a_directory_of_shards_is_one_collection_in_name_order(tmp_path):
    records = _records("references.jsonl")
    shards = tmp_path / "refs"
    (shards / "_temporary").mkdir(parents=True)
    for k in range(3):  # written out of order: read in name order
        parquet(shards / f"part-{2 - k:05d}.snappy.parquet", pa.Table.from_pylist(records[(2 - k) * 80:(3 - k) * 80]))
    write(shards / "_SUCCESS", "")
    parquet(shards / "_temporary" / "part-00009.parquet", {"id": ["stray"], "text": ["x"]})
    coll = read_collection(shards)
    assert coll.format == "parquet" and [i.id for i in coll.items] == [r["id"] for r in records]
    assert coll.items[80].source == f"{shards / 'part-00001.snappy.parquet'} row 1"
    hyps = parquet(tmp_path / "hyps.parquet", pa.Table.from_pylist(_records("tess_noisy.jsonl")))
    p = subprocess.run([sys.executable, "-m", "semcer", "cer", str(shards), str(hyps)], capture_output=True, text=True,
                       check=True)
    header = p.stdout.splitlines()[2].split()
    assert "lines" in header and "pages" not in header  # shards hold lines, not pages
    assert "9.20 %" in p.stdout.splitlines()[4]  # the README's CER of the example


def test_shards_with_one_id_twice_or_beside_pages_are_refused(tmp_path):
    shards = tmp_path / "s"
    shards.mkdir()
    parquet(shards / "part-0.parquet", {"id": ["a", "b"], "text": ["x", "y"]})
    parquet(shards / "part-1.parquet", {"id": ["c", "a"], "text": ["z", "w"]})
    assert error(shards) == (f"{shards / 'part-1.parquet'} row 2: duplicate id 'a' (first at "
                             f"{shards / 'part-0.parquet'} row 1)")
    (shards / "part-1.parquet").unlink()
    write(shards / "p1.txt", "x\n")
    assert error(shards).startswith(f"{shards}: holds Parquet shards (part-0.parquet) and pages (p1.txt); ")
