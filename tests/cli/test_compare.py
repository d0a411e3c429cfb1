"""`semcer compare` end to end, against `semcer score` on the same inputs (the reference): --lang,
--by, the notes on unmatched ids, a gate that cannot apply refused before any work, and the names of
the systems."""

from __future__ import annotations

import json
import shutil

import pytest
from helpers import EXAMPLES, jsonl, write

from semcer.cli import main

#: German-looking lines without a ``lang``: the judge's severities depend on the language it is told.
GERMAN_REFS = ["Die Straße ist schön und grün.", "Über den Bergen liegt Schnee.", "Der Bär frißt Äpfel."]
GERMAN_HYPS = ["Die Strasse ist schon und grun.", "Uber den Bergen liegt Schnee", "Der Bar frisst Apfel."]
FAST = ("--n-resamples", "100")


def _run(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _json(capsys, *args) -> dict:
    code, out, err = _run(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def forty(tmp_path_factory):
    """ref40, c40, n40 (every sixth line of the bundled example, 40 lines of its 20 documents: enough
    documents for an interval) and n30 (n40's first 30 lines)."""
    d = tmp_path_factory.mktemp("forty")
    out = {}
    for key, name in (("ref", "references"), ("c", "tess_clean"), ("n", "tess_noisy")):
        lines = (EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)[::6][:40]
        out[key] = write(d / f"{key}40.jsonl", "".join(lines))
        if key == "n":
            out["n30"] = write(d / "n30.jsonl", "".join(lines[:30]))
    return out


@pytest.fixture()
def german(tmp_path):
    refs = write(tmp_path / "r2.jsonl", jsonl(*({"id": str(k), "text": t} for k, t in enumerate(GERMAN_REFS))))
    hyps = write(tmp_path / "h2.jsonl", jsonl(*({"id": str(k), "text": t} for k, t in enumerate(GERMAN_HYPS))))
    return refs, hyps


def test_lang_is_honoured_as_by_score(capsys, german):
    refs, hyps = german
    with_de = _json(capsys, "score", refs, hyps, "--lang", "de")
    without = _json(capsys, "score", refs, hyps)
    assert with_de["corpus"]["semcer"] != without["corpus"]["semcer"]  # else this test could not fail
    cmp = _json(capsys, "compare", refs, hyps, hyps, "--names", "a,b", "--lang", "de", *FAST)
    for name in ("a", "b"):
        assert cmp["systems"][name]["semcer"]["corpus"]["value"] == with_de["corpus"]["semcer"]
        assert cmp["systems"][name]["semcer"]["document_mean"]["value"] == with_de["document_mean"]["semcer"]
    assert cmp["signature"].startswith(with_de["signature"].split("|unicode:")[0])
    plain = _json(capsys, "compare", refs, hyps, hyps, "--names", "a,b", *FAST)
    assert plain["systems"]["a"]["semcer"]["corpus"]["value"] == without["corpus"]["semcer"]


def test_by_doc_and_lang_give_score_s_groups_for_every_system(capsys, forty):
    cmp = _json(capsys, "compare", forty["ref"], forty["c"], forty["n"], "--by", "doc", "--by", "lang", *FAST)
    for sys_ in ("c", "n"):
        score = _json(capsys, "score", forty["ref"], forty[sys_], "--by", "doc", "--by", "lang")
        assert cmp["by_doc"][str(forty[sys_])] == score["by_doc"]
        assert cmp["by_lang"][str(forty[sys_])] == score["by_lang"]
    assert [g["doc"] for g in cmp["by_doc"][str(forty["c"])]] == [  # the example's documents that every sixth line meets
        "en/gettext-tools", "en/elfutils", "en/findutils", "en/gsettings-desktop-schemas", "de/libidn2", "de/avahi",
        "de/mit-krb5", "de/apt", "vi/libapt-pkg6.0", "vi/xz", "vi/adduser", "vi/shadow", "zh_CN/psql-15",
        "zh_CN/findutils", "zh_CN/libc", "zh_CN/pgscripts-15"]

    code, out, _ = _run(capsys, "compare", forty["ref"], forty["c"], forty["n"], "--by", "doc", *FAST)
    assert code == 0 and "per document:" in out and "per language:" not in out
    rows = [line.split() for line in out.splitlines()]
    for sys_ in ("c", "n"):
        for group in _json(capsys, "score", forty["ref"], forty[sys_], "--by", "doc")["by_doc"]:
            cer, sem = f"{100 * group['cer']:.2f}", f"{100 * group['semcer']:.2f}"
            assert [str(forty[sys_]), cer, "%", sem, "%", str(group["edits"]), str(group["units"]),
                    str(group["lines"])] in [r[-8:] for r in rows], (sys_, group["doc"])
    code, out, _ = _run(capsys, "compare", forty["ref"], forty["c"], forty["n"], *FAST)
    assert code == 0 and "per document:" not in out  # only when asked


def test_unmatched_empty_is_noted_per_system_as_score_notes_it(capsys, forty):
    note = "10 reference(s) without an output scored against an empty output (--unmatched empty)"
    code, out, _ = _run(capsys, "score", forty["ref"], forty["n30"], "--unmatched", "empty", "--top", "0")
    assert code == 0 and f"note: {note}" in out
    cmp = _json(capsys, "compare", forty["ref"], forty["c"], forty["n30"], "--unmatched", "empty", *FAST)
    assert cmp["notes"] == [f"{forty['n30']}: {note}"]
    code, out, _ = _run(capsys, "compare", forty["ref"], forty["c"], forty["n30"], "--unmatched", "empty", *FAST)
    assert code == 0 and f"note: {forty['n30']}: {note}" in out.splitlines()


def test_the_note_names_the_policy_that_was_used(capsys, forty, tmp_path):
    extra = json.dumps({"id": "not-a-reference", "text": "x"}) + "\n"
    n30x = write(tmp_path / "n30x.jsonl", forty["n30"].read_text(encoding="utf-8") + extra)
    code, out, _ = _run(capsys, "score", forty["ref"], n30x, "--unmatched", "empty", "--top", "0")
    assert code == 0
    assert "note: dropped unmatched ids: 0 only in references, 1 only in outputs (--unmatched empty)" in out
    assert "--unmatched drop" not in out
    cmp = _json(capsys, "compare", forty["ref"], forty["c"], n30x, "--unmatched", "empty", *FAST)
    assert cmp["notes"] == [f"{n30x}: dropped unmatched ids: 0 only in references, 1 only in outputs "
                            "(--unmatched empty)",
                            f"{n30x}: 10 reference(s) without an output scored against an empty output "
                            "(--unmatched empty)"]
    n40x = write(tmp_path / "n40x.jsonl", forty["n"].read_text(encoding="utf-8") + extra)
    for policy in ("drop", "empty"):  # the same ids dropped: the note names the policy asked for
        cmp = _json(capsys, "compare", forty["ref"], forty["c"], n40x, "--unmatched", policy, *FAST)
        assert cmp["notes"] == [f"{n40x}: dropped unmatched ids: 0 only in references, 1 only in outputs "
                                f"(--unmatched {policy})"]


def test_a_semcer_gate_without_a_judge_is_refused_before_any_work(capsys, forty):
    code, out, err = _run(capsys, "compare", forty["ref"], forty["c"], forty["n"], "--fail-if-worse", "semcer",
                          "--no-judge", *FAST)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("semcer: error: --fail-if-worse semcer:") and "--no-judge" in lines[0]
    code, out, err = _run(capsys, "compare", forty["ref"], forty["c"], forty["n"], "--fail-if-worse", "cer:0.5",
                          "--no-judge", *FAST)
    assert code == 0 and "corpus" in out and err == ""  # a CER gate still applies


@pytest.mark.parametrize("spelling", ["same", "dotted"])
def test_one_file_twice_is_named_as_such(capsys, forty, monkeypatch, spelling):
    monkeypatch.chdir(forty["c"].parent)
    second = "c40.jsonl" if spelling == "same" else "./c40.jsonl"
    code, out, err = _run(capsys, "compare", "ref40.jsonl", "c40.jsonl", second, *FAST)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "systems 1 and 2 are the same file (c40.jsonl" in lines[0], err
    assert "distinct names" not in err
    code, out, err = _run(capsys, "compare", "ref40.jsonl", "c40.jsonl", second, "--names", "a,b", *FAST)
    assert code == 0, err  # named, a file may be compared with itself


def test_files_of_the_same_name_in_other_folders_get_distinct_names(capsys, forty, tmp_path, monkeypatch):
    for folder, key in (("a", "c"), ("b", "n")):
        (tmp_path / folder).mkdir()
        shutil.copy(forty[key], tmp_path / folder / "x.jsonl")
    shutil.copy(forty["ref"], tmp_path / "ref.jsonl")
    monkeypatch.chdir(tmp_path)
    cmp = _json(capsys, "compare", "ref.jsonl", "a/x.jsonl", "b/x.jsonl", *FAST)
    assert list(cmp["systems"]) == ["a/x.jsonl", "b/x.jsonl"] and cmp["baseline"] == "a/x.jsonl"
    noisy = _json(capsys, "score", "ref.jsonl", "b/x.jsonl")
    assert cmp["systems"]["b/x.jsonl"]["semcer"]["corpus"]["value"] == noisy["corpus"]["semcer"]


def test_one_document_gives_no_interval_and_a_gate_that_cannot_decide(capsys, tmp_path):
    refs = write(tmp_path / "r.jsonl", jsonl({"id": "1", "text": "hello world", "doc": "D"},
                                            {"id": "2", "text": "second line", "doc": "D"}))
    a = write(tmp_path / "a.jsonl", jsonl({"id": "1", "text": "hallo world"}, {"id": "2", "text": "second line"}))
    b = write(tmp_path / "b.jsonl", jsonl({"id": "1", "text": "hallo warld"}, {"id": "2", "text": "sec0nd line"}))
    cmp = _json(capsys, "compare", refs, a, b, "--no-judge", *FAST)
    r = cmp["systems"][str(b)]["cer"]["corpus"]
    assert r["difference"] == pytest.approx(2 / 22) and r["interval"] is None  # +9.09 points, 22 reference units
    assert any(n.startswith("only 1 document(s) to resample, fewer than 5") for n in cmp["notes"])
    code, out, err = _run(capsys, "compare", refs, a, b, "--no-judge", "--fail-if-worse", "cer:0.01", *FAST)
    assert code == 2 and "+9.09 " in out and "*" not in out.split("Δ = ")[0]
    assert err.startswith("semcer: error: --fail-if-worse cer: no interval for ") and "cannot decide" in err


@pytest.mark.parametrize(("option", "message"), [
    (["--n-resamples", "39"], "n_resamples must be from 40 (so that each tail of a 95% interval holds one resample)"),
    (["--n-resamples", "19", "--confidence", "0.9"], "n_resamples must be from 20 (so that each tail of a 90% interval"),
    (["--n-resamples", "1000001"], "to 1,000,000 (command line: --n-resamples), got 1000001"),
])
def test_resampling_options_are_checked_before_any_scoring(capsys, forty, option, message):
    for command in ("compare", "report"):
        more = ["--html", str(forty["ref"].parent / "never.html")] if command == "report" else []
        code, out, err = _run(capsys, command, forty["ref"], forty["c"], forty["n"], "--no-judge", *option, *more)
        assert code == 2 and out == "" and err.startswith("semcer: error: ") and message in err, (command, err)
    assert not (forty["ref"].parent / "never.html").exists()


@pytest.mark.parametrize("command", [["compare", "r", "a", "b"], ["report", "r", "a", "b", "--html", "x.html"],
                                     ["analyze", "r", "a", "b"], ["judge-eval", "labels.jsonl"],
                                     ["meta-eval", "--ratings", "r.jsonl"], ["study", "create", "s.study"],
                                     ["distill", "store.sqlite"]])
@pytest.mark.parametrize("value", ["-1", "4294967296", "1.5"])
def test_every_seed_takes_a_whole_number_from_0_to_2_to_the_32_minus_1(capsys, command, value):
    """numpy's seeds are unsigned 32-bit numbers; compare used to take 2**32 and more."""
    with pytest.raises(SystemExit) as info:
        main([*command, "--seed", value])
    err = capsys.readouterr().err
    assert info.value.code == 2 and "argument --seed: must be " in err and "from 0 to 4294967295, got " in err
