"""The exit statuses `semcer --help` lists are the ones the code returns."""

from __future__ import annotations

import signal

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
