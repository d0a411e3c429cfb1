"""Reading reader studies (semcer.io.ratings): ratings (JSONL, CSV, TSV), rated items (labelled
edits and edit lists in JSONL, CSV and Parquet, with their stable edit_id), rated pairs; every user
mistake one line naming the file and the line."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from helpers import DATA, ROOT, jsonl, write

import semcer
from semcer.errors import InputError
from semcer.io.edits import write_edits
from semcer.io.labels import load_labelled
from semcer.io.ratings import read_items, read_pairs, read_ratings
from semcer.judges import FixedJudge
from semcer.judges.compact import CompactJudge

READERS = ROOT / "tests" / "fixtures" / "readers"


def test_the_fixtures_are_what_their_script_makes():
    spec = importlib.util.spec_from_file_location("make_readers", READERS / "make_readers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, text in module.build().items():
        assert (READERS / name).read_bytes().decode("utf-8") == text, name


def test_ratings_jsonl_and_csv_hold_the_same_ratings():
    rows = read_ratings(READERS / "ratings.jsonl")
    # r1, r2 rate all 30 items, r3 skips two, r4 rates the first 12 (make_readers.py)
    assert len(rows) == 30 + 30 + 28 + 12
    raw = [json.loads(line) for line in (READERS / "ratings.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(r.item, r.rater, r.value) for r in rows] == [(x["item"], x["rater"], x["level"] / 4) for x in raw]
    assert rows[0].where.endswith("ratings.jsonl:1")
    from_csv = read_ratings(READERS / "ratings.csv")
    assert [(r.item, r.rater, r.value) for r in from_csv] == [(r.item, r.rater, r.value) for r in rows]
    assert from_csv[0].where.endswith("ratings.csv:2")  # the header is line 1


def test_ratings_tsv_integers_and_both_fields(tmp_path):
    tsv = write(tmp_path / "r.tsv", "item\trater\tlevel\trating\n7\t3\t2\t0.5\nx\tann\t\t0.3\n")
    rows = read_ratings(tsv)
    assert [(r.item, r.rater, r.value) for r in rows] == [("7", "3", 0.5), ("x", "ann", 0.3)]
    js = write(tmp_path / "r.jsonl", jsonl({"item": 7, "rater": 3, "level": 4}, {"item": "y", "rater": "b", "rating": 1}))
    assert [(r.item, r.rater, r.value) for r in read_ratings(js)] == [("7", "3", 1.0), ("y", "b", 1.0)]


@pytest.mark.parametrize("content, words", [
    (jsonl({"rater": "a", "level": 1}), "ratings.jsonl:1: 'item' is missing"),
    (jsonl({"item": "i", "rater": "", "level": 1}), "'rater' is empty"),
    (jsonl({"item": "i", "rater": "a"}), "ratings.jsonl:1: no 'level'"),
    (jsonl({"item": "i", "rater": "a", "level": 5}), "'level' must be an integer 0-4"),
    (jsonl({"item": "i", "rater": "a", "level": "2"}), "'level' must be an integer 0-4"),
    (jsonl({"item": "i", "rater": "a", "level": True}), "'level' must be an integer 0-4"),
    (jsonl({"item": "i", "rater": "a", "rating": 1.5}), "'rating' must be a number in [0, 1]"),
    (jsonl({"item": "i", "rater": "a", "level": 2, "rating": 0.75}), "disagree (level k is rating k/4)"),
    (jsonl({"item": "i", "rater": "a", "level": 2}, {"item": "i", "rater": "a", "level": 3}),
     "ratings.jsonl:2: rater 'a' rated item 'i' twice (first at"),
    ("", "no records (the file is empty)"),
    ('[{"item": "i"}]\n', "a JSON array"),
    (b"\x89PNG\r\n\x1a\n....", "looks like a PNG image"),
])
def test_bad_ratings_are_one_line_errors(tmp_path, content, words):
    path = write(tmp_path / "ratings.jsonl", content)
    with pytest.raises(InputError) as exc:
        read_ratings(path)
    assert words in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize("content, words", [
    ("item,rater,level\ni,a,1\n\ni,b,2\n", "ratings.csv:3: blank line"),
    ("item,rater,level,level\ni,a,1,1\n", "column 'level' appears twice"),
    ("item,rater,level\ni,a\n", "ratings.csv:2: 2 fields, the header has 3"),
    ("item,rater,rating\ni,a,high\n", "'rating' must be a number in [0, 1], got 'high'"),
    ("item,rater,rating\ni,a,nan\n", "'rating' must be a number in [0, 1]"),
    ("item,rater,level\n", "a header and no records"),
    ('item,rater,level\n"i,a,1\n', "malformed row"),
])
def test_bad_csv_ratings(tmp_path, content, words):
    with pytest.raises(InputError, match=None) as exc:
        read_ratings(write(tmp_path / "ratings.csv", content))
    assert words in str(exc.value)


def test_labelled_items_are_keyed_by_id_and_judged_as_labelled():
    items = read_items(READERS / "items.jsonl")
    contexts, _ = load_labelled(READERS / "items.jsonl")
    assert len(items) == 30 and not items[0].edit_list
    rows = [json.loads(line) for line in (READERS / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [it.id for it in items] == [r["id"] for r in rows]
    assert [it.context() for it in items] == contexts
    assert items[0].number("severity") == rows[0]["severity"]


def test_item_errors(tmp_path):
    dev = DATA / "dev.jsonl"
    first = json.loads(dev.read_text(encoding="utf-8").splitlines()[0])
    dup = write(tmp_path / "items.jsonl", jsonl(first, first))
    with pytest.raises(InputError, match=r"items\.jsonl:2: duplicate item id"):
        read_items(dup)
    no_id = write(tmp_path / "noid.jsonl", jsonl({k: v for k, v in first.items() if k != "id"}))
    with pytest.raises(InputError, match=r"noid\.jsonl:1: 'id' is missing"):
        read_items(no_id)
    item = read_items(write(tmp_path / "ok.jsonl", jsonl({**first, "score": "high", "flag": True, "n": None})))[0]
    with pytest.raises(InputError, match="'score' is 'high', not a number"):
        item.number("score")
    with pytest.raises(InputError, match="'flag' must be a number, got a boolean"):
        item.number("flag")
    with pytest.raises(InputError, match="has no 'n' value"):
        item.number("n")
    with pytest.raises(InputError, match="has no 'nothing' value"):
        item.number("nothing")


# ---- edit lists as items: edit_id and the marked pair read back -----------------------------------

LINES = {
    "vi-1": ("Tấm Cám", "Tám Cám"),
    "marks": ("a ⟦x⟧ b ⟦x⟧ c", "a ⟦x⟧ b ⟦y⟧ c"),  # the marks themselves in the text
    "=formula": ("=SUM(A1)", "-SUM(A1)"),  # CSV neutralisation, undone on reading
    "long": ("a" * 150 + "b", "a" * 150 + "c"),  # longer than the judge's window of 100
    "mark-only": ("cafe\u0301", "cafe"),  # e + combining acute is one grapheme: a mark-only substitution
    "deleted": ("word", "wrd"),  # an empty side: an empty CSV cell is the empty string, not a missing field
    "inserted": ("wrd", "word"),
}


@pytest.fixture(scope="module")
def scored():
    refs = {k: v[0] for k, v in LINES.items()}
    hyps = {k: v[1] for k, v in LINES.items()}
    return semcer.evaluate(refs, hyps, langs=dict.fromkeys(LINES, "en") | {"vi-1": "vi"}, judge="compact", edits=True)


def test_edit_ids_are_line_op_and_whole_line_positions(tmp_path, scored):
    path = tmp_path / "e.jsonl"
    write_edits(path, scored.judged)
    rows = {r["line_id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
    assert rows["vi-1"]["edit_id"] == "vi-1:S1,1"  # ấ -> á, unit 1 of both lines
    assert rows["=formula"]["edit_id"] == "=formula:S0,0"
    # the window starts 100 units before the edit: the id counts in the whole line, ref_pos in the window
    assert rows["long"]["edit_id"] == "long:S150,150" and rows["long"]["ref_pos"] == 100
    # a second run, and another judge, give the same ids
    again = semcer.evaluate({k: v[0] for k, v in LINES.items()}, {k: v[1] for k, v in LINES.items()},
                            judge=FixedJudge(), edits=True)
    write_edits(tmp_path / "f.jsonl", again.judged)
    other = sorted(json.loads(x)["edit_id"] for x in (tmp_path / "f.jsonl").read_text(encoding="utf-8").splitlines())
    assert other == sorted(r["edit_id"] for r in map(json.loads, path.read_text(encoding="utf-8").splitlines()))
    assert len(set(other)) == len(other) == len(scored.judged)


@pytest.mark.parametrize("ext", [".jsonl", ".csv", ".parquet"])
def test_edit_lists_read_back_as_items_with_their_judge_contexts(tmp_path, scored, ext):
    if ext == ".parquet":
        pytest.importorskip("pyarrow")
    path = tmp_path / f"edits{ext}"
    write_edits(path, scored.judged)
    items = read_items(path)
    assert all(it.edit_list for it in items)
    by_id = {it.id: it for it in items}
    judge = CompactJudge()
    for je in scored.judged:
        key = f"{je.line_id}:{je.edit.op}{je.edit.ref_pos},{je.edit.hyp_pos}"
        it = by_id[key]
        ctx = it.context()
        c = je.context
        assert (ctx.lang, ctx.op, ctx.ref_unit, ctx.hyp_unit, ctx.ref_pos, ctx.hyp_pos, ctx.ref, ctx.hyp,
                ctx.marked_ref, ctx.marked_hyp) == (c.lang, c.op, c.ref_unit, c.hyp_unit, c.ref_pos, c.hyp_pos,
                                                    c.ref, c.hyp, c.marked_ref, c.marked_hyp), key
        assert ctx.content_key() == c.content_key()
        # judged again from the file, the edit gets the severity it got when scored
        assert judge.judge([ctx])[0].severity == pytest.approx(it.number("severity"), abs=1e-12)
    assert by_id["=formula:S0,0"].fields["line_id"] == "=formula"  # the leading quote of CSV removed


def test_an_edit_list_of_an_earlier_run_gives_its_tags_in_their_one_spelling(tmp_path, scored):
    """An edit list written before tags were read in one spelling holds ``zh_CN``: its items are judged
    (and keyed in a store) as a scored ``zh-CN`` line's edits are, not as a third language."""
    path = tmp_path / "e.jsonl"
    write_edits(path, scored.judged)
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    for r in rows:
        r["lang"] = "ZH_cn"
    old = write(tmp_path / "old.jsonl", jsonl(*rows))
    assert {it.context().lang for it in read_items(old)} == {"zh-CN"}


def test_an_edit_list_with_a_broken_marked_pair(tmp_path, scored):
    path = tmp_path / "e.jsonl"
    write_edits(path, scored.judged)
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    rows[0]["marked_ref"] = rows[0]["marked_ref"].replace("⟦", "")
    bad = write(tmp_path / "bad.jsonl", jsonl(*rows))
    item = read_items(bad)[0]
    with pytest.raises(InputError, match=r"bad\.jsonl:1: 'marked_ref' does not hold the edit"):
        item.context()


# ---- pairs ---------------------------------------------------------------------------------------

def test_pairs_fixture():
    pairs = read_pairs(READERS / "pairs.jsonl")
    assert len(pairs) == 21 and pairs[0].id == "p01" and pairs[-1].id == "h5"
    h2 = next(p for p in pairs if p.id == "h2")
    assert (h2.ref, h2.a, h2.b, h2.lang) == ("Tấm Cám", "Tám Cám", "Tấm  Cám!", "vi")
    assert h2.choices == {"q1": "a", "q2": "a", "q3": "equal"}
    assert next(p for p in pairs if p.id == "p03").choices["q3"] is None


@pytest.mark.parametrize("row, words", [
    ({"pair": "x", "ref": "r", "a": "a", "b": "b", "choices": {"q": "A"}}, "rater 'q' answered 'A'"),
    ({"pair": "x", "ref": "r", "a": "a", "choices": {}}, "'b' is missing"),
    ({"pair": "x", "ref": "r", "a": "a", "b": 3, "choices": {}}, "'b' is a number"),
    ({"pair": "x", "ref": "r", "a": "a", "b": "b", "choices": ["a"]}, "'choices' is an array"),
    ({"pair": "x", "ref": "r", "a": "a", "b": "b"}, "'choices' is missing"),
    ({"pair": "x", "ref": "r", "a": "a", "b": "b", "lang": 5, "choices": {}}, "'lang' must be a string"),
    ({"ref": "r", "a": "a", "b": "b", "choices": {}}, "'pair' is missing"),
])
def test_bad_pairs(tmp_path, row, words):
    with pytest.raises(InputError) as exc:
        read_pairs(write(tmp_path / "pairs.jsonl", jsonl(row)))
    assert words in str(exc.value) and "pairs.jsonl:1" in str(exc.value)


def test_duplicate_pairs(tmp_path):
    row = {"pair": 1, "ref": "r", "a": "a", "b": "b", "choices": {"q": None}}
    with pytest.raises(InputError, match=r"pairs\.jsonl:2: duplicate pair '1' \(first at .*pairs\.jsonl:1\)"):
        read_pairs(write(tmp_path / "pairs.jsonl", jsonl(row, row)))


def test_paths_that_are_not_files(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_ratings(tmp_path / "missing.jsonl")
    with pytest.raises(InputError, match="is a directory"):
        read_pairs(tmp_path)
    with pytest.raises(InputError, match="Parquet is read for --items only"):
        read_ratings(Path(tmp_path / "r.parquet"))
