"""`semcer report`, `--html`/`--plots` on `semcer score` and `semcer compare`, and `semcer score
--json --spans N`: what is written, that the standard output is unchanged, the report made from a
score JSON, the top-of-list curve with reader ratings, and the mistakes that stop at once (one
line, exit 2, nothing written)."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import textwrap

import pytest
from helpers import EXAMPLES

from semcer.cli import main

REFS, NOISY, CLEAN = (str(EXAMPLES / n) for n in ("references.jsonl", "tess_noisy.jsonl", "tess_clean.jsonl"))


def _run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _client(page: str) -> dict:
    blob = re.search(r'<script type="application/json" id="semcer-data">(.*?)</script>', page, re.S).group(1)
    return json.loads(blob)


def _cell(page: str, key: str, system: int = 0) -> str:
    m = re.search(rf'data-key="{re.escape(key)}" data-value="([^"]*)" data-system="{system}"', page)
    assert m, key
    return html.unescape(m.group(1))


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    folder = tmp_path_factory.mktemp("small")
    r, h = folder / "r.jsonl", folder / "h.jsonl"
    r.write_text(json.dumps({"id": "1", "lang": "de", "text": "Nicht verbunden, bitte 12 Euro"}) + "\n"
                 + json.dumps({"id": "2", "lang": "de", "text": "Alles gut"}) + "\n", encoding="utf-8")
    h.write_text(json.dumps({"id": "1", "lang": "de", "text": "verbunden, bitte 17 Euro"}) + "\n"
                 + json.dumps({"id": "2", "lang": "de", "text": "Alles gut"}) + "\n", encoding="utf-8")
    return str(r), str(h)


def test_report_of_one_system(capsys, tmp_path):
    out = tmp_path / "r.html"
    code, stdout, _ = _run(capsys, "report", REFS, NOISY, "--judge", "rubric", "--html", str(out), "--report-lines", "7")
    assert code == 0
    page = out.read_text(encoding="utf-8")
    score = json.loads(_run(capsys, "score", REFS, NOISY, "--judge", "rubric", "--json")[1])
    assert float(_cell(page, "corpus.semcer")) == score["corpus"]["semcer"]
    assert float(_cell(page, "document_mean.cer")) == score["document_mean"]["cer"]
    data = _client(page)
    assert len(data["lines"]) == 7
    assert f"{len(data['spans'])} of {len(data['spans'])} error spans, 7 of 240 lines" in stdout


def test_score_and_compare_write_the_report_after_an_unchanged_score(capsys, tmp_path):
    plain = _run(capsys, "score", REFS, NOISY, "--judge", "rubric", "--json")[1]
    code, stdout, stderr = _run(capsys, "score", REFS, NOISY, "--judge", "rubric", "--json", "--html",
                                str(tmp_path / "s.html"), "--plots", str(tmp_path / "plots"))
    assert code == 0 and stdout == plain
    assert "wrote" in stderr and (tmp_path / "s.html").stat().st_size > 10_000
    names = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert names == sorted(f"{k}.{e}" for k in ("severity", "documents", "languages") for e in ("png", "svg"))
    assert (tmp_path / "plots" / "severity.png").read_bytes().startswith(b"\x89PNG")

    args = ["compare", REFS, CLEAN, NOISY, "--judge", "rubric", "--n-resamples", "200", "--json", "--names", "c,n"]
    plain = _run(capsys, *args)[1]
    code, stdout, _ = _run(capsys, *args, "--html", str(tmp_path / "c.html"))
    assert code == 0 and stdout == plain
    page = (tmp_path / "c.html").read_text(encoding="utf-8")
    cmp = json.loads(plain)
    assert float(_cell(page, "cmp.semcer.corpus.difference", 1)) == cmp["systems"]["n"]["semcer"]["corpus"]["difference"]
    data = _client(page)
    assert data["systems"] == ["c", "n"] and data["differ"]
    assert all(len(ln["sys"]) == 2 and all(v["segs"] is not None for v in ln["sys"]) for ln in data["lines"])


def test_compare_without_a_judge_says_so(capsys, tmp_path):
    code, _, _ = _run(capsys, "report", REFS, CLEAN, NOISY, "--no-judge", "--n-resamples", "100",
                      "--html", str(tmp_path / "c.html"))
    assert code == 0
    page = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert "No judge was run" in page
    data = _client(page)
    assert data["spans"] == [] and data["lines"]
    assert all(seg[3] is None for ln in data["lines"] for v in ln["sys"] for seg in v["segs"] if not isinstance(seg, str))


def test_score_json_spans_and_line_texts(capsys, small):
    code, out, _ = _run(capsys, "score", *small, "--judge", "rubric", "--json", "--lines", "--spans", "5")
    assert code == 0
    d = json.loads(out)
    assert len(d["spans"]) == 2  # "Nicht " (6 deletions) and 2 -> 7
    first = next(s for s in d["spans"] if s["ref_text"] == "Nicht ")
    assert first["hyp_text"] == "" and len(first["edit_ids"]) == 6
    assert first["ref_parts"] == ["", "Nicht ", "verbunden, bitte 12 Euro"]
    assert first["hyp_parts"] == ["", "", "verbunden, bitte 17 Euro"]
    assert first["level"] in range(5) and first["classes"]
    keys = [(s["max_severity"], s["severity"]) for s in d["spans"]]
    assert keys == sorted(keys, reverse=True)
    row = d["lines"][0]
    assert (row["ref"], row["hyp"]) == ("Nicht verbunden, bitte 12 Euro", "verbunden, bitte 17 Euro")
    assert [e["ref_at"] for e in row["edits"]] == [0, 1, 2, 3, 4, 5, 24]  # "2" stands at code point 24
    assert [e["op"] for e in row["edits"]] == ["D"] * 6 + ["S"]
    assert row["edits"][-1]["edit_id"] == "1:S24,18"
    assert {i for s in d["spans"] for i in s["edit_ids"]} == {e["edit_id"] for e in row["edits"]}
    assert d["lines"][1]["edits"] == []
    plain = json.loads(_run(capsys, "score", *small, "--judge", "rubric", "--json", "--lines")[1])
    assert "spans" not in plain and "ref" not in plain["lines"][0]


def test_report_from_a_score_json(capsys, tmp_path):
    score = tmp_path / "score.json"
    assert _run(capsys, "score", REFS, NOISY, "--judge", "rubric", "--json", "--lines", "--spans", "40",
                "-o", str(score))[0] == 0
    d = json.loads(score.read_text(encoding="utf-8"))
    code, stdout, _ = _run(capsys, "report", str(score), "--html", str(tmp_path / "j.html"))
    assert code == 0 and "40 of 40 error spans" in stdout
    page = (tmp_path / "j.html").read_text(encoding="utf-8")
    assert float(_cell(page, "corpus.semcer")) == d["corpus"]["semcer"]
    assert float(_cell(page, "document_mean.semcer")) == d["document_mean"]["semcer"]
    data = _client(page)
    assert [s["id"] for s in data["spans"]] == [s["span_id"] for s in d["spans"]]
    rows = {r["id"]: r for r in d["lines"]}
    for ln in data["lines"]:
        segs = ln["sys"][0]["segs"]
        assert "".join(s if isinstance(s, str) else s[2] for s in segs) == rows[ln["id"]]["hyp"]
    assert "the file holds the 40 most severe spans" in page

    bare = tmp_path / "bare.json"
    _run(capsys, "score", REFS, NOISY, "--judge", "rubric", "--json", "--by", "lang", "-o", str(bare))
    assert _run(capsys, "report", str(bare), "--html", str(tmp_path / "b.html"))[0] == 0
    page = (tmp_path / "b.html").read_text(encoding="utf-8")
    cannot = page.split("What this page cannot show", 1)[1].split("</ul>", 1)[0]
    assert "ranked list" in cannot and "line view" in cannot and "severity distribution" in cannot
    assert "per-language" not in cannot  # --by lang gives it
    assert 'id="lang-table"' in page


def test_ratings_draw_the_top_of_list_curve(capsys, tmp_path, small):
    score = json.loads(_run(capsys, "score", *small, "--judge", "rubric", "--json", "--lines", "--spans", "5")[1])
    edits = score["lines"][0]["edits"]
    ratings = tmp_path / "ratings.jsonl"
    rated = {edits[0]["edit_id"]: 0.25, edits[-1]["edit_id"]: 1.0, "elsewhere:S0,0": 0.5}
    ratings.write_text("".join(json.dumps({"item": k, "rating": v, "rater": "r1"}) + "\n" for k, v in rated.items())
                       + json.dumps({"item": edits[0]["edit_id"], "level": 3, "rater": "r2"}) + "\n", encoding="utf-8")
    out = tmp_path / "r.html"
    assert _run(capsys, "report", *small, "--judge", "rubric", "--html", str(out), "--ratings", str(ratings))[0] == 0
    page = out.read_text(encoding="utf-8")
    assert 'id="plot-top-of-list"' in page
    assert "2 rated edits (1 rated items are not edits of these results)" in page
    assert "at 10 % of the list the judge's order catches" in html.unescape(page)

    from semcer.api.evaluation import evaluate
    from semcer.api.report import evaluation_report, read_ratings

    ev = evaluate(*small, judge="rubric", edits=True)
    means = read_ratings(str(ratings))
    assert means[edits[0]["edit_id"]] == (0.25 + 0.75) / 2
    curve = next(p for p in evaluation_report(ev, ratings=means)["plots"] if p["id"] == "top-of-list")
    by_judge = sorted(((e["severity"], means[e["edit_id"]]) for e in (edits[0], edits[-1])), reverse=True)
    total = 0.5 + 1.0
    assert curve["series"][0]["points"] == [[0.0, 0.0], [0.5, by_judge[0][1] / total], [1.0, 1.0]]
    assert curve["series"][1]["points"] == [[0.0, 0.0], [0.5, 1.0 / total], [1.0, 1.0]]  # the readers' own order


def test_without_ratings_the_page_says_the_curve_needs_them(capsys, tmp_path, small):
    _run(capsys, "report", *small, "--judge", "rubric", "--html", str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "plot-top-of-list" not in page and "it appears with reader ratings (--ratings FILE" in page


@pytest.mark.parametrize("args,message", [
    (["report", REFS, NOISY], "give --html FILE"),
    (["report", REFS, NOISY, "--html", "{tmp}"], "--html {tmp}: is a directory"),
    (["report", REFS, NOISY, "--html", REFS], "is REFS"),
    (["report", REFS, NOISY, "--html", "{tmp}/no/such/r.html"], "does not exist"),
    (["report", REFS, NOISY, "--html", "{tmp}/r.html", "--report-lines", "-1"], "--report-lines must be at least 0"),
    (["report", REFS, NOISY, "--html", "{tmp}/r.html", "--plots", REFS], "is a file; give a folder"),
    (["report", REFS, NOISY, "--html", "{tmp}/r.html", "--ratings", REFS], "'item' is missing"),
    (["report", REFS, "--html", "{tmp}/r.html"], "not a `semcer score --json` output"),
    (["score", REFS, NOISY, "--spans", "5"], "--spans N adds the spans to the JSON: give --json too"),
])
def test_mistakes_stop_at_once(capsys, tmp_path, args, message):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code, _, err = _run(capsys, *args)
    assert code == 2
    assert message.replace("{tmp}", str(tmp_path)) in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("content,message", [
    ("[1, 2]", "expected a JSON object"),
    ('{"systems": {}, "baseline": "a"}', "a `semcer compare --json` output holds no lines"),
    ('{"signature": "x", "corpus": {"cer": "high"}, "document_mean": {}}', "corpus.cer must be a number"),
    ('{"signature": "x", "corpus": {}, "document_mean": {}, "lines": [{"id": 1}]}', "lines[0].id must be a string"),
    ('{"signature": "x", "corpus": {}, "document_mean": {}, "spans": [{"ref_parts": "<b>"}]}', "spans[0].ref_parts"),
])
def test_a_hostile_score_json_is_refused_in_one_line(capsys, tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    code, _, err = _run(capsys, "report", str(bad), "--html", str(tmp_path / "r.html"))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r.html").exists()


def test_plots_without_matplotlib_fail_at_once_naming_the_extra(tmp_path):
    code = textwrap.dedent("""
        import sys
        sys.modules["matplotlib"] = None  # as on a plain `pip install .`
        from semcer.cli import main
        sys.exit(main(sys.argv[1:]))
    """)
    p = subprocess.run([sys.executable, "-c", code, "score", REFS, NOISY, "--plots", str(tmp_path / "plots"),
                        "--html", str(tmp_path / "r.html")], capture_output=True, text=True, timeout=300)
    assert p.returncode == 2
    assert 'semcer[plots]' in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert p.stdout == ""  # before any work: no score printed
    assert not (tmp_path / "plots").exists() and not (tmp_path / "r.html").exists()


def test_the_html_report_needs_no_matplotlib(tmp_path):
    code = textwrap.dedent("""
        import sys
        sys.modules["matplotlib"] = None
        from semcer.cli import main
        sys.exit(main(sys.argv[1:]))
    """)
    p = subprocess.run([sys.executable, "-c", code, "report", REFS, NOISY, "--judge", "rubric", "--html",
                        str(tmp_path / "r.html")], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "<svg" in (tmp_path / "r.html").read_text(encoding="utf-8")
