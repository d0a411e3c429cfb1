"""What the command line says matches what it does (a user audit): the --store help for each kind of
judge, meta-eval's judges without items, one rule for every output's folder, errors that name the
flag, the report reading meta-eval's ratings, an option naming one file given twice, --by-edit where
it shows nothing, and a run in which every line was skipped ending with an error."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys

import pytest
from helpers import EXAMPLES, ROOT, jsonl, write

import semcer
from semcer.cli import main

REFS, NOISY, CLEAN = (str(EXAMPLES / n) for n in ("references.jsonl", "tess_noisy.jsonl", "tess_clean.jsonl"))
READERS = ROOT / "tests" / "fixtures" / "readers"
PAGES = EXAMPLES / "pages"


def _run(capsys, *args):
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # a usage mistake, found by argparse
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def _help(command: str) -> str:
    p = subprocess.run([sys.executable, "-m", "semcer", *command.split(), "--help"], capture_output=True, text=True,
                       env={**os.environ, "COLUMNS": "200"})
    assert p.returncode == 0, p.stderr
    return " ".join(p.stdout.split())


def _error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("semcer: error: "), err
    return lines[0]


# --- 1. --store: read back by the LLM and student judges, only written by the offline ones --------


@pytest.mark.parametrize("command", ["score", "compare", "report", "meta-eval", "judge-eval", "analyze"])
def test_store_help_says_which_judges_read_it(command):
    text = _help(command)
    assert "reused across runs" not in text and "store to reuse" not in text
    assert "student:DIR reads it back" in text and "not judged again" in text
    assert "the offline judges (compact, rubric) only write it" in text and "never read back" in text
    assert "semcer study create --from STORE" in text


def test_judge_help_says_the_offline_judges_are_judged_again():
    text = _help("judge")
    assert "the offline judges (compact, rubric) judge every edit again" in text
    assert "a later `semcer score --store` judges every edit again" in text


def test_the_default_judge_writes_the_store_and_does_not_read_it(capsys, tmp_path):
    """What the help now says, as it happens: the second run judges every edit again."""
    store = tmp_path / "s.sqlite"
    runs = [json.loads(_run(capsys, "score", REFS, NOISY, "--store", store, "--json", "-q")[1]) for _ in range(2)]
    first, second = (r["judge"] for r in runs)
    assert first["judged"] == second["judged"] == first["unique_edits"] > 0 and second["cache_hits"] == 0
    from semcer.store.sqlite import JudgedEditStore

    with JudgedEditStore(store, readonly=True) as s:
        assert len(s) == first["unique_edits"]  # written: what study create --from STORE draws from


# --- 2. meta-eval: the judges score the items only with --items ---------------------------------


def test_ratings_without_items_say_the_judges_need_items(capsys):
    code, out, err = _run(capsys, "meta-eval", "--ratings", READERS / "ratings.csv", "--n-boot", "0")
    assert code == 0 and "judges:none" in out  # the panel's reliability, as asked
    assert err.strip().splitlines() == [
        "semcer: note: --ratings without --items: the rated edits get the panel's reliability only; the judges "
        "(default compact) and --score-column score them only with --items FILE"]
    code, _, err = _run(capsys, "meta-eval", "--ratings", READERS / "ratings.csv", "--judge", "rubric")
    assert code == 2 and "--judge and --score-column score the rated items: give them with --items FILE" in _error(err)
    code, _, err = _run(capsys, "meta-eval", "--ratings", READERS / "ratings.csv", "--items", READERS / "items.jsonl",
                        "--n-boot", "0", "--n-permutations", "19")
    assert code == 0 and "note" not in err


def test_transcriptions_get_the_default_judge(capsys):
    code, out, _ = _run(capsys, "meta-eval", "--transcriptions", READERS / "transcriptions.jsonl", "--n-boot", "0",
                        "--n-permutations", "19", "--json")
    assert code == 0
    d = json.loads(out)
    assert list(d["judges"]) == ["compact"]
    assert "|judges:compact=compact-" in d["signature"]


# --- 3. errors: one rule for every output's folder; what is true; the flag named ----------------


@pytest.mark.parametrize("args", [
    ["cer", REFS, CLEAN, "-o", "{f}/x.json"],
    ["cer", REFS, CLEAN, "-o", "{f}/sub/x.json"],
    ["score", REFS, CLEAN, "--plots", "{f}/plots"],
    ["score", REFS, CLEAN, "--plots", "{f}/sub/plots"],
    ["score", REFS, CLEAN, "--edits", "{f}/e.jsonl"],
    ["study", "create", "{f}/x.study", "--from", REFS],
])
def test_a_folder_that_is_a_file_is_said_so_by_every_output(capsys, tmp_path, args):
    afile = write(tmp_path / "afile", "text")
    code, _, err = _run(capsys, *[a.replace("{f}", str(afile)) for a in args])
    line = _error(err)
    assert code == 2 and line.endswith(f": {afile} is a file, not a folder"), line
    assert "mkdir" not in line and "does not exist" not in line


def test_a_missing_folder_is_still_said_with_the_mkdir(capsys, tmp_path):
    code, _, err = _run(capsys, "score", REFS, CLEAN, "--plots", tmp_path / "no" / "plots")
    assert code == 2 and _error(err).endswith(f"folder {tmp_path / 'no'} does not exist; create it first "
                                              f"(mkdir -p {tmp_path / 'no'})")


@pytest.mark.parametrize("number, words", [(errno.ENOENT, "the file system there takes no new files"),
                                           (errno.EROFS, "a read-only file system"),
                                           (errno.EACCES, "no permission")])
def test_a_refused_file_creation_says_what_the_error_is(capsys, tmp_path, monkeypatch, number, words):
    """/proc refuses new files with ENOENT: not a missing file, nor a permission."""
    import tempfile

    def refuse(*args, **kwargs):
        raise OSError(number, os.strerror(number))

    target = write(tmp_path / "version", "old")
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    code, _, err = _run(capsys, "cer", REFS, CLEAN, "-o", target)
    assert code == 2 and _error(err) == (f"semcer: error: --output {target}: cannot write into {tmp_path} ({words}); "
                                         "the output is written to a new file there, then renamed over version")


@pytest.mark.skipif(not os.path.isfile("/proc/version"), reason="needs Linux's /proc")
def test_output_into_proc(capsys):
    code, _, err = _run(capsys, "cer", REFS, CLEAN, "-o", "/proc/version")
    line = _error(err)
    assert code == 2 and line.startswith("semcer: error: --output /proc/version: cannot write into /proc (")
    assert "No such file or directory" not in line and "no permission, or" not in line


def test_dinglehopper_rules_on_hocr_name_the_flag(capsys):
    gt, hocr = PAGES / "invoice.gt.xml", PAGES / "invoice.hocr"
    code, _, err = _run(capsys, "cer", gt, hocr, "--policy", "dinglehopper")
    assert code == 2 and "dinglehopper reads no hOCR" in err
    assert _error(err).endswith("command line: --page-dialect semcer); --policy dinglehopper reads page files with "
                                "dinglehopper's rules unless --page-dialect says otherwise")
    code, _, err = _run(capsys, "cer", gt, hocr, "--page-dialect", "dinglehopper")
    assert code == 2 and _error(err).endswith("use the semcer dialect (dialect='semcer'; command line: --page-dialect semcer)")
    assert _run(capsys, "cer", gt, hocr, "--policy", "dinglehopper", "--page-dialect", "semcer")[0] == 0


def test_report_reads_the_ratings_that_meta_eval_reads(capsys, tmp_path):
    edits = tmp_path / "edits.jsonl"
    assert _run(capsys, "score", REFS, NOISY, "--edits", edits, "--top", "0", "-q")[0] == 0
    ids = [json.loads(line)["edit_id"] for line in edits.read_text(encoding="utf-8").splitlines()[:6]]
    csv = write(tmp_path / "ratings.csv", "item,rater,level\n" + "".join(f'"{i}",r{r},{(k + r) % 5}\n'  # ids hold commas
                                                                        for k, i in enumerate(ids) for r in (1, 2)))
    assert _run(capsys, "meta-eval", "--ratings", csv, "--n-boot", "0")[0] == 0
    out = tmp_path / "r.html"
    code, _, err = _run(capsys, "report", REFS, NOISY, "--html", out, "--ratings", csv)
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    assert 'id="plot-top-of-list"' in page and "6 rated edits (0 rated items are not edits" in page
    # the report's own format before: JSON Lines without a rater, an item rated several times (averaged)
    lines = write(tmp_path / "ratings.jsonl", "".join(json.dumps({"item": i, "rating": r}) + "\n"
                                                      for i in ids[:2] for r in (0.25, 0.75)))
    from semcer.api.report import read_ratings

    assert read_ratings(str(lines)) == {ids[0]: 0.5, ids[1]: 0.5}
    assert _run(capsys, "report", REFS, NOISY, "--html", out, "--ratings", lines)[0] == 0


# --- 4. options: one path per option; --by-edit where it shows something; fewer drawn than asked -


@pytest.mark.parametrize("args, flag", [
    (["score", REFS, CLEAN, "--edits", "{t}/a.csv", "--edits", "{t}/b.jsonl"], "--edits"),
    (["cer", REFS, CLEAN, "-o", "{t}/a.json", "--output", "{t}/b.json"], "--output/-o"),
    (["score", REFS, CLEAN, "--html", "{t}/a.html", "--html", "{t}/b.html"], "--html"),
    (["score", REFS, CLEAN, "--plots", "{t}/a", "--plots", "{t}/b"], "--plots"),
    (["score", REFS, CLEAN, "--store", "{t}/a.sqlite", "--store", "{t}/b.sqlite"], "--store"),
    (["meta-eval", "--ratings", str(READERS / "ratings.csv"), "--ratings", str(READERS / "ratings.jsonl")], "--ratings"),
])
def test_an_option_naming_one_path_given_twice_is_refused(capsys, tmp_path, args, flag):
    code, _, err = _run(capsys, *[a.replace("{t}", str(tmp_path)) for a in args])
    line = _error(err)
    assert code == 2 and f"argument {flag}: given twice (" in line and "it takes one path: give it once" in line
    assert list(tmp_path.iterdir()) == []  # nothing written, neither path


def test_the_same_path_twice_is_one(capsys, tmp_path):
    out = tmp_path / "r.json"
    assert _run(capsys, "cer", REFS, CLEAN, "--json", "-o", out, "-o", out)[0] == 0 and out.is_file()
    spelled = f"{tmp_path}/./r.json"  # the same path spelled otherwise
    assert _run(capsys, "cer", REFS, CLEAN, "--json", "-o", out, "-o", spelled)[0] == 0


@pytest.mark.parametrize("extra, words", [
    (["--top", "0"], "--by-edit lists single edits in the top list, and --top 0 hides it"),
    (["--json"], "--by-edit lists single edits in the top list, and --json prints none: leave --by-edit out"),
])
def test_by_edit_where_no_top_list_is_shown_is_refused(capsys, extra, words):
    code, out, err = _run(capsys, "score", REFS, CLEAN, "--by-edit", *extra)
    assert code == 2 and out == "" and words in _error(err)


def test_study_create_says_when_fewer_were_drawn_than_asked(capsys, tmp_path):
    edits = tmp_path / "edits.jsonl"
    assert _run(capsys, "score", REFS, NOISY, "--edits", edits, "--top", "0", "-q")[0] == 0
    n = len(edits.read_text(encoding="utf-8").splitlines())
    code, out, err = _run(capsys, "study", "create", tmp_path / "a.study", "--from", edits, "-n", "100000")
    assert code == 0 and f"{n} single edits (of {n})" in out
    assert f"note: -n 100000: drew {n} single edits of the 100000 asked (all the {n} the sources hold)" in err
    code, out, err = _run(capsys, "study", "create", tmp_path / "b.study", "--from", edits, "-n", "150",
                          "--per-language")
    per_language = dict(part.split() for part in out.splitlines()[1].removeprefix("items per language: ").split(", "))
    short = ", ".join(f"{lang} {k}" for lang, k in sorted(per_language.items()) if int(k) < 150)
    assert code == 0 and short
    assert f"note: -n 150 per language: drew fewer single edits than asked in {short.count(',') + 1} language(s), " \
           f"all they hold: {short}" in err
    code, _, err = _run(capsys, "study", "create", tmp_path / "c.study", "--from", edits, "-n", "10")
    assert code == 0 and "drew" not in err


# --- 5. every line skipped: an error, nothing written ---------------------------------------------


@pytest.fixture
def punctuation(tmp_path):
    refs = write(tmp_path / "in" / "refs.jsonl", jsonl({"id": "a", "text": "..."}, {"id": "b", "text": "!?"}))
    hyps = write(tmp_path / "in" / "hyps.jsonl", jsonl({"id": "a", "text": "x"}, {"id": "b", "text": "y"}))
    return str(refs), str(hyps)


NOTHING = ("semcer: error: nothing was scored: all 2 lines have an empty reference after --policy alnum, and "
           "--empty-ref skip left every one out (each number would be n/a); check the references and the --policy")


@pytest.mark.parametrize("args", [
    ["cer", "{r}", "{h}", "-o", "{t}/out.txt"],
    ["cer", "{r}", "{h}", "--json", "-o", "{t}/out.json"],
    ["score", "{r}", "{h}", "-o", "{t}/out.txt", "--edits", "{t}/e.csv", "--html", "{t}/r.html", "--store", "{t}/s.db"],
    ["score", "{r}", "{h}", "--json", "--lines", "--spans", "3", "-o", "{t}/o.json", "--edits", "{t}/e.jsonl"],
    ["compare", "{r}", "{h}", "{h2}", "--fail-if-worse", "cer", "-o", "{t}/c.txt"],
    ["report", "{r}", "{h}", "--html", "{t}/r.html"],
    ["report", "{r}", "{h}", "--no-judge", "--html", "{t}/r.html"],
    ["report", "{r}", "{h}", "{h2}", "--html", "{t}/r.html"],
])
def test_every_line_skipped_is_an_error_and_writes_nothing(capsys, tmp_path, punctuation, args):
    refs, hyps = punctuation
    hyps2 = write(tmp_path / "in" / "hyps2.jsonl", jsonl({"id": "a", "text": "x"}, {"id": "b", "text": "z"}))
    out = tmp_path / "out"
    out.mkdir()
    args = [a.replace("{r}", refs).replace("{h2}", str(hyps2)).replace("{h}", hyps).replace("{t}", str(out))
            for a in args]
    code, stdout, err = _run(capsys, *args, "--policy", "alnum", "--empty-ref", "skip")
    assert (code, stdout, _error(err)) == (2, "", NOTHING)
    assert list(out.iterdir()) == []


def test_one_line_skipped_of_one_and_the_api_still_returns_the_result(capsys, tmp_path):
    refs = write(tmp_path / "r.jsonl", jsonl({"id": "a", "text": "..."}))
    hyps = write(tmp_path / "h.jsonl", jsonl({"id": "a", "text": "x"}))
    code, _, err = _run(capsys, "cer", refs, hyps, "--policy", "alnum", "--empty-ref", "skip")
    assert code == 2 and "nothing was scored: the only line has an empty reference after --policy alnum" in err
    ev = semcer.evaluate(["..."], ["x"], policy="alnum", empty_ref="skip")
    assert ev.corpus.lines == 0 and ev.corpus.cer is None and ev.skipped_empty == ("1",)


def test_some_lines_skipped_still_score(capsys, tmp_path):
    refs = write(tmp_path / "r.jsonl", jsonl({"id": "a", "text": "..."}, {"id": "b", "text": "ab"}))
    hyps = write(tmp_path / "h.jsonl", jsonl({"id": "a", "text": "x"}, {"id": "b", "text": "ab"}))
    code, out, _ = _run(capsys, "cer", refs, hyps, "--policy", "alnum", "--empty-ref", "skip", "--json")
    assert code == 0 and json.loads(out)["corpus"]["lines"] == 1
