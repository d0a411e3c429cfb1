"""A usage mistake is one line and exit status 2, like every other user error, for every subcommand."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest


@pytest.mark.parametrize("args", [
    ["cer", "a", "b", "--unit", "foo"],
    ["score", "a", "b", "--top", "many"],
    ["score", "a", "b", "--context-window", "x"],
    ["judge-eval"],
    ["store", "export"],
    ["nonsense"],
    ["cer", "--no-such-flag", "a", "b"],
])
def test_argparse_errors_are_one_line(args):
    p = subprocess.run([sys.executable, "-m", "semcer", *args], capture_output=True, text=True)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("semcer: error:"), p.stderr
    assert "--help" in lines[0]


def test_a_bad_context_window_is_a_judge_error(tmp_path):
    ref = tmp_path / "r.txt"
    ref.write_text("abc\n")
    p = subprocess.run([sys.executable, "-m", "semcer", "score", str(ref), str(ref), "--context-window", "0"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "context_window must be" in p.stderr and len(p.stderr.strip().splitlines()) == 1


# Options that contradict each other or do not apply (semcer.cli.options.USAGE_RULES, check_page_options):
# refused as one line, exit status 2, before any input is read (the inputs here do not exist).
@pytest.mark.parametrize("args, message", [
    (["cer", "nope/r.jsonl", "nope/h.jsonl", "--lines"], "--lines adds one row per line to the JSON: give --json too"),
    (["score", "nope/r.jsonl", "nope/h.jsonl", "--lines"], "--lines adds one row per line to the JSON: give --json too"),
    (["cer", "nope/r.jsonl", "nope/h.jsonl", "--tokenizer", "uax29"],
     "--tokenizer chooses the words of --wer: give --wer too"),
    (["score", "nope/r.jsonl", "nope/h.jsonl", "--tokenizer", "whitespace", "--json"],
     "--tokenizer chooses the words of --wer: give --wer too"),
    (["cer", "nope/r.jsonl", "nope/h.jsonl", "--quiet", "--verbose"],
     "--quiet and --verbose contradict each other: give one of them"),
    (["compare", "nope/r.jsonl", "nope/a.jsonl", "nope/b.jsonl", "-q", "-v"],
     "--quiet and --verbose contradict each other: give one of them"),
    (["compare", "nope/r.jsonl", "nope/a.jsonl", "nope/b.jsonl", "--no-judge", "--store", "s.sqlite"],
     "--store keeps judged edits, and --no-judge judges none: leave one of them out"),
    (["report", "nope/r.jsonl", "nope/a.jsonl", "nope/b.jsonl", "--workers", "2", "--html", "r.html"],
     "--workers, --engine ray and --ray-address run the streamed scoring of one system with a judge; with "
     "--no-judge, several systems or a SCORE.json nothing is streamed: leave them out"),
    (["report", "nope/r.jsonl", "nope/h.jsonl", "--no-judge", "--engine", "ray", "--html", "r.html"],
     "--workers, --engine ray and --ray-address run the streamed scoring of one system with a judge; with "
     "--no-judge, several systems or a SCORE.json nothing is streamed: leave them out"),
    (["report", "nope/r.jsonl", "nope/h.jsonl", "--no-judge", "--work-dir", "wd", "--html", "r.html"],
     "--work-dir resumes the streamed scoring of one system with a judge; with --no-judge, several systems or a "
     "SCORE.json nothing is streamed: leave it out"),
    (["report", "nope/r.jsonl", "nope/a.jsonl", "nope/b.jsonl", "--work-dir", "wd", "--html", "r.html"],
     "--work-dir resumes the streamed scoring of one system with a judge; with --no-judge, several systems or a "
     "SCORE.json nothing is streamed: leave it out"),
])
def test_contradictory_options_are_refused_before_any_work(args, message, capsys):
    from semcer.cli import main

    assert main(args) == 2
    assert capsys.readouterr().err == f"semcer: error: {message}\n"


PAGE_ONLY = "to page files only (PAGE-XML, ALTO, hOCR), and no input is one: leave"


def _page_only(flags: str) -> str:
    """The refusal of page-file options, its verb and pronoun agreeing with how many are named."""
    return f"{flags} applies {PAGE_ONLY} it out" if "," not in flags else f"{flags} apply {PAGE_ONLY} them out"


@pytest.mark.parametrize("command", ["cer", "score", "compare", "report", "analyze"])
@pytest.mark.parametrize("option, flags", [(["--level", "region"], "--level"), (["--by-line"], "--by-line"),
                                           (["--hyphen", "join", "--level", "line"], "--level, --hyphen"),
                                           (["--page-dialect", "dinglehopper"], "--page-dialect")])
def test_page_options_without_a_page_file_are_refused(tmp_path, capsys, command, option, flags):
    from semcer.cli import main

    ref, hyp = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    ref.write_text('{"id": "1", "text": "abc"}\n')
    hyp.write_text('{"id": "1", "text": "abd"}\n')
    more = ["--html", str(tmp_path / "r.html")] if command == "report" else []
    hyps = [str(hyp), str(hyp)] if command in ("compare", "analyze") else [str(hyp)]
    assert main([command, str(ref), *hyps, *option, *more]) == 2
    assert capsys.readouterr().err == f"semcer: error: {_page_only(flags)}\n"
    assert not (tmp_path / "r.html").exists()


KEEP_GOING = ("--keep-going applies to folders of pages (a malformed page is listed and the others scored), and no "
              "input is a folder: leave it out")


@pytest.mark.parametrize("command", ["cer", "score", "compare"])
def test_keep_going_without_a_folder_is_refused(tmp_path, capsys, command):
    from semcer.cli import main

    ref, hyp = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    ref.write_text('{"id": "1", "text": "abc"}\n')
    hyp.write_text('{"id": "1", "text": "abd"}\n')
    hyps = [str(hyp), str(hyp)] if command == "compare" else [str(hyp)]
    assert main([command, str(ref), *hyps, "--keep-going"]) == 2  # before any scoring
    assert capsys.readouterr().err == f"semcer: error: {KEEP_GOING}\n"
    (tmp_path / "R").mkdir()
    (tmp_path / "R" / "1.txt").write_text("abc\n")  # one folder is enough: its pages are read on
    assert main(["cer", str(tmp_path / "R"), str(tmp_path / "R"), "--keep-going", "--json"]) == 0


def test_page_options_are_refused_once_a_directory_or_stdin_is_read(tmp_path, capsys, monkeypatch):
    # A directory of .txt pages (or standard input) is known not to be page files only once read:
    # refused then, before scoring.
    from semcer.cli import main

    for side in ("R", "H"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "p.txt").write_text("hello world\n")
    assert main(["cer", str(tmp_path / "R"), str(tmp_path / "H"), "--by-line", "--json"]) == 2
    assert capsys.readouterr() == ("", f"semcer: error: {_page_only('--by-line')}\n")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"hello world\n")))
    assert main(["cer", "-", str(tmp_path / "R" / "p.txt"), "--hyphen", "keep"]) == 2
    assert capsys.readouterr() == ("", f"semcer: error: {_page_only('--hyphen')}\n")


@pytest.mark.parametrize("args", [
    ["cer", "examples/pages/invoice.gt.xml", "examples/pages/invoice.hocr", "--level", "line", "--hyphen", "join"],
    ["cer", "examples/references.jsonl", "examples/pages/invoice.hocr", "--by-line"],  # one side a page file
    ["cer", "r.jsonl", "h.jsonl", "--format", "alto", "--level", "line"],  # forced: read as page files
    ["cer", "r.jsonl", "h.jsonl", "--wer", "--tokenizer", "whitespace", "--json", "--lines", "--lang", "zh-Hant-TW"],
    ["cer", "r.jsonl", "h.jsonl", "--quiet"],
    ["report", "r.jsonl", "h.jsonl", "--work-dir", "wd", "--html", "r.html"],  # streamed: one system, judged
])
def test_options_that_apply_pass_the_usage_checks(args):
    from semcer.cli import build_parser
    from semcer.cli.options import check_usage

    check_usage(build_parser().parse_args(args))  # raises nothing


@pytest.mark.parametrize("command", ["cer", "score", "compare", "report", "analyze"])
@pytest.mark.parametrize("tag", ["not a tag!", "x", "de__DE", "zh-", "d1", "english-language-tag-toolong"])
def test_lang_must_be_a_language_tag(command, tag, capsys):
    from semcer.cli import main

    with pytest.raises(SystemExit) as exc:
        main([command, "nope/r.jsonl", "nope/h.jsonl", "--lang", tag])
    assert exc.value.code == 2
    assert capsys.readouterr().err == (f"semcer: error: {command}: argument --lang: {tag!r} is not a language tag "
                                       "(BCP 47 such as de, vi, zh-CN, or a locale name such as zh_CN) "
                                       f"(see `semcer {command} --help`)\n")


@pytest.mark.parametrize("tag", ["de", "zh-CN", "zh_CN", "sr-Latn-RS", "x-private", "i-klingon", "und"])
def test_lang_takes_bcp_47_tags_private_use_included(tag):
    from semcer.cli import build_parser
    from semcer.cli.options import check_usage

    args = build_parser().parse_args(["cer", "r.jsonl", "h.jsonl", "--lang", tag])
    check_usage(args)
    assert args.lang == tag


LLM = ["--judge", "llm", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m"]


@pytest.mark.parametrize("option, values, message", [
    ("--timeout", ["0", "-1"], "timeout must be a number of seconds, more than 0; got {}"),
    ("--concurrency", ["0", "-1"], "concurrency must be a whole number at least 1, got {}"),
    ("--max-retries", ["-1", "-2"], "max_retries must be a whole number at least 0, got {}"),
    ("--max-response-bytes", ["0", "-1"], "max_response_bytes must be a whole number at least 1, got {}"),
    ("--max-connection-failures", ["-1", "-2"], "max_connection_failures must be a whole number at least 0, got {}"),
    ("--context-window", ["0", "-1"], "context_window must be a whole number of grapheme units at least 1, got {}"),
])
def test_the_llm_judges_numbers_are_refused_in_one_set_of_words(option, values, message, capsys):
    # Defect: --timeout -1 said "0 or more" and --timeout 0 said "must be positive".
    from semcer.cli import main

    for value in values:
        assert main(["score", "examples/references.jsonl", "examples/tess_noisy.jsonl", *LLM, option, value]) == 2
        shown = f"{float(value)}" if option == "--timeout" else value
        assert capsys.readouterr().err == f"semcer: error: {message.format(shown)}\n"


@pytest.mark.parametrize("value", ["0", "-1"])
def test_hf_batch_size_is_refused_in_one_set_of_words(tmp_path, value, capsys):
    from semcer.cli import main

    (tmp_path / "config.json").write_text("{}")
    argv = ["score", "examples/references.jsonl", "examples/tess_noisy.jsonl", "--judge", f"hf:{tmp_path}"]
    assert main([*argv, "--batch-size", value]) == 2
    assert capsys.readouterr().err == f"semcer: error: batch_size must be a whole number at least 1, got {value}\n"


CONFIDENCE = "semcer: error: confidence must be strictly between 0 and 1 (command line: --confidence), got {}\n"


@pytest.mark.parametrize("command", ["compare", "report"])
@pytest.mark.parametrize("value", ["0", "1", "-0.5", "1.5", "nan"])
def test_confidence_is_strictly_between_0_and_1(tmp_path, command, value, capsys):
    # Defect: --confidence 0 said "must be between 0 and 1", which 0 is (the bounds are excluded).
    from semcer.cli import main

    more = ["--html", str(tmp_path / "r.html")] if command == "report" else []
    hyps = ["examples/tess_noisy.jsonl", "examples/tess_noisy.jsonl"]
    assert main([command, "examples/references.jsonl", *hyps, "--no-judge", "--confidence", value, *more]) == 2
    assert capsys.readouterr().err == CONFIDENCE.format(float(value))


def test_the_statistics_refuse_confidence_in_the_same_words():
    import numpy as np

    from semcer.statistics.bootstrap import check_confidence
    from semcer.statistics.paired import paired_bootstrap

    with pytest.raises(ValueError, match=r"^confidence must be strictly between 0 and 1, got 1.0$"):
        check_confidence(1.0)
    ones = np.ones((5, 2))
    with pytest.raises(ValueError, match=r"^confidence must be strictly between 0 and 1, got 0.0$"):
        paired_bootstrap(ones, ones[:, 0], "corpus", confidence=0.0)


def test_more_workers_than_cores_is_noted_and_the_result_is_the_same(capsys, monkeypatch):
    """`--workers 200` on two cores ran 25 times slower with no word; it still runs, and says why it may be slow."""
    import json

    from helpers import EXAMPLES

    from semcer.cli import main
    from semcer.scale import executors

    refs, hyps = str(EXAMPLES / "references.jsonl"), str(EXAMPLES / "tess_noisy.jsonl")
    monkeypatch.setattr(executors, "all_cores", lambda: 1)
    assert main(["score", refs, hyps, "--json", "-q", "--workers", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ("semcer: note: --workers 2 is more than the 1 core(s) this process may use: the workers "
                            "share them (the result is the same, only slower than with --workers 1)\n")
    assert json.loads(captured.out)["corpus"]["edits"] == 818  # the README's figure for the example


def test_a_judge_is_refused_on_code_points_before_any_work(tmp_path, capsys):
    """The judges lay lines out in graphemes: a code point position on a line with multi-code-point
    graphemes (Bengali ি, a vowel sign) pointed elsewhere, and the store keyed both units' judgements
    alike (each run overwrote the other's rows)."""
    import semcer
    from semcer.cli import main

    missing = str(tmp_path / "missing.jsonl")
    assert main(["score", missing, missing, "--unit", "codepoint"]) == 2
    assert capsys.readouterr().err.startswith("semcer: error: --unit codepoint with a judge: semCER charges grapheme")
    with pytest.raises(semcer.InputError, match=r"^unit 'codepoint' with a judge: semCER charges grapheme edits"):
        semcer.evaluate(["কবিতা লিখি"], ["কবিতা লিখী"], langs=["bn"], unit="codepoint", judge="compact")
    cer = semcer.evaluate(["কবিতা লিখি"], ["কবিতা লিখী"], unit="codepoint")  # CER alone: as before
    assert cer.corpus.edits == 1 and cer.corpus.units == len("কবিতা লিখি")
