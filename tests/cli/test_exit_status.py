"""The exit statuses `semcer --help` lists are the ones the code returns."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import semcer.cli
from semcer.cli.compare import GATE_FAILED


def test_the_help_lists_the_statuses_the_code_returns(capsys):
    with pytest.raises(SystemExit):
        semcer.cli.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    stopped = f"{128 + signal.SIGINT}, {128 + signal.SIGTERM}, {128 + signal.SIGHUP} stopped by Ctrl-C, SIGTERM, SIGHUP"
    assert stopped in text
    assert f"{GATE_FAILED} a `compare` gate tripped" in text
    assert "2 an error, said in one line" in text


def test_a_stop_signal_outside_a_command_keeps_its_default_action():
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}
    assert semcer.cli.main(["policies"]) == 0
    assert {sig: signal.getsignal(sig) for sig in before} == before  # restored after the command


def test_the_program_freezes_what_is_left_before_it_exits(monkeypatch):
    """`semcer` (the console script and `python -m semcer`) is `run`: the command's status, and
    everything left alive frozen, so that the interpreter's last collection walks none of it."""
    import gc
    import tomllib
    from pathlib import Path

    scripts = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["semcer"] == "semcer.cli:run"
    monkeypatch.setattr(semcer.cli, "main", lambda argv=None: 3)
    assert gc.get_freeze_count() == 0
    try:
        assert semcer.cli.run() == 3
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_the_program_shows_a_warning_as_one_line(monkeypatch, capsys):
    """A warning raised under `semcer` (a judge's answers without probabilities, say) is one line
    naming semcer, not Python's two lines with a source file of semcer's and its code."""
    import warnings

    def command(argv=None):
        warnings.warn("2 of 2 edits came back without token probabilities", RuntimeWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(semcer.cli, "main", command)
    monkeypatch.setattr(semcer.cli, "freeze_for_exit", lambda: None)
    before = warnings.showwarning
    assert semcer.cli.run() == 0
    assert capsys.readouterr().err == "semcer: warning: 2 of 2 edits came back without token probabilities\n"
    assert warnings.showwarning is before  # put back after the command


_EXAMPLES = Path(__file__).parents[2] / "examples"
_CER = [sys.executable, "-m", "semcer", "cer", str(_EXAMPLES / "references.jsonl"), str(_EXAMPLES / "tess_noisy.jsonl")]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", [[], ["--json"]])
def test_standard_output_on_a_full_disk_is_one_line_and_status_2(command):
    with open("/dev/full", "w") as full:
        p = subprocess.run([*_CER, *command], stdout=full, stderr=subprocess.PIPE, text=True)
    assert (p.returncode, p.stderr) == (2, "semcer: error: cannot write standard output (No space left on device)\n")


def test_closed_standard_output_is_refused_unless_the_output_goes_to_a_file(tmp_path):
    p = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *_CER], capture_output=False, stderr=subprocess.PIPE,
                       text=True)
    assert (p.returncode, p.stderr) == (2, "semcer: error: standard output is closed: redirect it (> FILE) or give "
                                           "-o FILE\n")
    out = tmp_path / "cer.json"
    p = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *_CER, "--json", "-o", str(out)], stderr=subprocess.PIPE,
                       text=True)
    assert p.returncode == 0, p.stderr
    assert json.loads(out.read_text())["corpus"]["edits"] == 818  # the README's figure for the example


def test_a_reader_that_stops_early_is_not_an_error(tmp_path):
    """`semcer cer ... | head -1`: status 0 and nothing on standard error (no 'Exception ignored');
    the output (about 1 MB) is far more than a pipe holds, so the reader's close breaks the pipe."""
    for name, text in (("r.jsonl", "reference {}"), ("h.jsonl", "refrence {}")):
        lines = (json.dumps({"id": f"l{i}", "text": text.format(i)}) for i in range(5000))
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    cer = [sys.executable, "-m", "semcer", "cer", str(tmp_path / "r.jsonl"), str(tmp_path / "h.jsonl")]
    p = subprocess.Popen([*cer, "--json", "--lines"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout is not None and p.stdout.read(10)
    p.stdout.close()
    _, err = p.communicate()
    assert (p.returncode, err) == (0, b"")


def test_the_program_starts_without_the_engine_so_an_early_ctrl_c_is_answered():
    """`import semcer.cli` (what the console script does before any of semcer's code runs) loads
    neither numpy nor the engine: they are imported inside `run`, where Ctrl-C is exit status 130
    and one line (it used to be a traceback from an import for the first 0.3 s)."""
    code = "import sys, semcer.cli, semcer; print(sorted(m for m in ('numpy', 'semcer.api', 'regex') if m in sys.modules))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert p.stdout.strip() == "[]"


def test_the_public_names_still_resolve_from_the_package_root():
    import semcer

    assert semcer.cer("110-2", "11O-2") == 0.2  # the package docstring's example
    assert all(hasattr(semcer, name) for name in semcer.__all__)
    assert semcer.Evaluation.__module__ == "semcer.metrics.results"
