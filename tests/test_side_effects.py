"""Library calls leave the interpreter as they found it (issue 10): no collector switch, no logging
filter installed at import, every cache bounded and cleared by one call, judges built from a name
closed, no module named like a public function."""

from __future__ import annotations

import ast
import gc
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import semcer
from semcer.caches import cache_sizes, clear_caches
from semcer.judges import FixedJudge

SRC = Path(semcer.__file__).resolve().parent


def test_evaluate_does_not_touch_the_collector():
    refs = ["ab" * 20] * 3000
    hyps = ["ax" * 20] * 3000
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    threshold = gc.get_threshold()
    semcer.evaluate(refs, hyps, edits=True)
    semcer.evaluate(refs[:50], hyps[:50], judge=FixedJudge())
    assert gc.isenabled() and gc.get_freeze_count() == frozen and gc.get_threshold() == threshold
    gc.disable()
    try:
        semcer.evaluate(refs, hyps)
        assert not gc.isenabled()  # and it does not switch it back on either
    finally:
        gc.enable()


def test_collector_pause_is_explicit_and_restores_the_state():
    from semcer.scale.gc import collector_paused

    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_importing_every_module_installs_no_logging_filter_or_handler():
    code = (
        # scipy.stats loads charset_normalizer, which adds its own handler on import: not semcer's doing
        "import logging, pkgutil, importlib, scipy.stats, semcer\n"
        "before = {n: (list(l.filters), list(l.handlers), l.level) for n, l in logging.root.manager.loggerDict.items()"
        " if isinstance(l, logging.Logger)}\n"
        "skip = ('semcer.judges.llm.vllm_backend', 'semcer.training', 'semcer.judges.student.model')\n"
        "for m in pkgutil.walk_packages(semcer.__path__, 'semcer.'):\n"
        "    if not m.name.startswith(skip) and not m.name.endswith('__main__'): importlib.import_module(m.name)\n"
        "changed = [n for n, l in logging.root.manager.loggerDict.items() if isinstance(l, logging.Logger)"
        " and (l.filters or l.handlers) and before.get(n) != (list(l.filters), list(l.handlers), l.level)]\n"
        "print(changed, logging.root.filters, logging.root.handlers)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[] [] []"


def test_chinese_lexicon_lookups_leave_no_filter_behind():
    import logging

    from semcer.judges.rubric.lexicon import zipf

    zipf.cache_clear()
    zipf("大于", "zh")
    assert logging.getLogger("jieba").filters == []


def test_every_cache_is_bounded_and_cleared_by_one_call():
    semcer.evaluate(["Tấm Cám 12", "đấng"], ["Tám Cám 13", "đáng"], judge="compact")
    sizes = cache_sizes()
    assert len(sizes) >= 30
    assert all(isinstance(maxsize, int) and maxsize >= 1 for _, maxsize in sizes.values())
    assert any(n for n, _ in sizes.values())
    clear_caches()
    assert all(n == 0 for n, _ in cache_sizes().values())
    # and results are the same afterwards
    a = semcer.evaluate(["Tấm Cám 12"], ["Tám Cám 13"], judge="compact").corpus.severity
    clear_caches()
    assert semcer.evaluate(["Tấm Cám 12"], ["Tám Cám 13"], judge="compact").corpus.severity == a


def test_no_unregistered_cache_or_global_statement_in_the_package():
    """Every cache goes through semcer.caches (bounded, cleared by clear_caches); no `global`."""
    offenders = []
    for path in SRC.rglob("*.py"):
        if path.name == "caches.py" or "tables" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                offenders.append(f"{path.name}:{node.lineno}: global")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for d in node.decorator_list:
                    name = ast.unparse(d)
                    if "lru_cache" in name or name in ("cache", "functools.cache") or name.startswith("functools."):
                        offenders.append(f"{path.name}:{node.lineno}: @{name}")
    assert offenders == []


def test_a_judge_built_from_a_name_is_closed(monkeypatch):
    closed = []

    class Tracked(FixedJudge):
        def close(self) -> None:
            closed.append(True)

    import semcer.api.evaluation

    monkeypatch.setattr(semcer.api.evaluation, "resolve_judge", lambda spec: Tracked() if isinstance(spec, str) else spec)
    semcer.evaluate(["ab"], ["ax"], judge="anything")
    assert closed == [True]
    mine = Tracked()
    semcer.evaluate(["ab"], ["ax"], judge=mine)  # a judge object given by the caller stays open
    assert closed == [True]


def test_no_module_is_named_like_a_public_function():
    """``semcer.evaluate`` is the function: no module or package of the root shadows a public name."""
    names = {m.name for m in pkgutil.iter_modules(semcer.__path__)}
    public_functions = {n for n in semcer.__all__ if callable(getattr(semcer, n)) and not isinstance(getattr(semcer, n), type)}
    assert {"cer", "align", "evaluate"} <= public_functions
    assert names.isdisjoint(public_functions)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("semcer.evaluate")
    assert callable(semcer.evaluate)


def test_import_semcer_loads_no_scipy_and_the_statistics_api_on_first_use():
    code = ("import sys, semcer, semcer.cli.score\n"  # nor does the score command, until a statistic needs it
            "before = sorted(m for m in sys.modules if m == 'scipy' or m in ('semcer.api.meta', 'semcer.api.analysis'))\n"
            "from semcer import MetaEvaluation, analyze, meta_eval\n"
            "import semcer.api.analysis, semcer.api.meta\n"
            "ok = meta_eval is semcer.api.meta.meta_eval and analyze is semcer.api.analysis.analyze\n"
            "ok = ok and MetaEvaluation is semcer.api.meta.MetaEvaluation and semcer.Analysis is semcer.api.Analysis\n"
            "print(before, ok, 'scipy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["[]", "True", "True"], out.stderr
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        semcer.nope  # noqa: B018
    assert {"meta_eval", "analyze", "MetaEvaluation", "Analysis"} <= set(semcer.__all__)
