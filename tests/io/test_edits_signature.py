"""A Parquet edit list carries the run's signature and judge identity in its schema metadata.

Defect (user audit): `--edits e.parquet` wrote `severity` and `p` with no judge identity and no signature,
so the numbers travelled without the conventions and the judge that made them.
"""

from __future__ import annotations

import json

import pytest

import semcer
from semcer.io.edits import FIELDS, PARQUET_JUDGE, PARQUET_SIGNATURE, ranked_rows, write_edit_rows, write_edits
from semcer.judges import FixedJudge
from semcer.metrics.signature import Signature

pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def run():
    return semcer.evaluate({"a": "Total 120", "b": "ab"}, {"a": "Totl 128", "b": "xy"},
                           judge=FixedJudge(name="audit"), edits=True)


def test_the_parquet_schema_holds_the_signature_and_the_judge(tmp_path, run):
    path = tmp_path / "e.parquet"
    assert write_edits(path, run.judged, signature=run.signature) == 4  # a: D, S; b: S, S
    meta = pq.read_schema(path).metadata
    assert meta[PARQUET_SIGNATURE].decode() == str(run.signature)
    assert meta[b"semcer.judge"] == b"audit:p=0,0,0,0,1"  # FixedJudge's identity, written out by hand
    sig = Signature.parse(meta[b"semcer.signature"].decode())
    assert (sig.unit, sig.empty_ref, sig.judge) == ("grapheme", "error", "audit:p=0,0,0,0,1")
    assert len(pq.read_table(path)) == 4 and pq.read_table(path).column_names == list(FIELDS)


def test_streamed_rows_carry_it_too_and_every_row_group_reads_it(tmp_path, run, monkeypatch):
    monkeypatch.setattr("semcer.io.edits.PARQUET_BATCH", 1)  # one row group per edit
    path = tmp_path / "e.parquet"
    assert write_edit_rows(path, iter(ranked_rows(run.judged)), signature=run.signature) == 4
    f = pq.ParquetFile(path)
    assert f.metadata.num_row_groups == 4
    assert f.schema_arrow.metadata[PARQUET_JUDGE] == b"audit:p=0,0,0,0,1"
    assert pq.read_table(path).schema.metadata[PARQUET_SIGNATURE] == str(run.signature).encode()


def test_no_signature_no_metadata_and_no_judge_key_without_a_judge(tmp_path, run):
    plain = tmp_path / "plain.parquet"
    write_edits(plain, run.judged)
    meta = pq.read_schema(plain).metadata or {}
    assert PARQUET_SIGNATURE not in meta and PARQUET_JUDGE not in meta
    unjudged = semcer.evaluate(["ab"], ["ab"]).signature  # a CER run: no judge field
    path = tmp_path / "e.parquet"
    write_edits(path, run.judged, signature=unjudged)
    meta = pq.read_schema(path).metadata
    assert meta[PARQUET_SIGNATURE] == str(unjudged).encode() and PARQUET_JUDGE not in meta


@pytest.mark.parametrize("name", ["e.jsonl", "e.csv"])
def test_jsonl_and_csv_rows_keep_their_fields(tmp_path, run, name):
    """The row formats are unchanged: no field repeating the signature on every edit."""
    path = tmp_path / name
    write_edits(path, run.judged, signature=run.signature)
    text = path.read_bytes().decode("utf-8")  # CSV rows end in CRLF
    if name.endswith(".csv"):
        assert text.split("\r\n", 1)[0] == ",".join(FIELDS)
    else:
        assert [list(json.loads(line)) for line in text.splitlines()] == [list(FIELDS)] * 4
    assert "semcer:" not in text
