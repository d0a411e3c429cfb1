"""A line's layout (unit kinds, word runs, number runs, offsets) computed in C
(``_lexicon_speedups.layout``) is the one the Python loops and regular expressions give: on random
code strings over every code character, on real lines of the bundled corpus and the twelve-script
Tesseract set, and by hand on a few lines whose runs are known."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from semcer.judges.rubric import lexicon
from semcer.judges.rubric.lexicon import KIND_CODES, line_info

try:
    from semcer.judges.rubric import _lexicon_speedups
except ImportError:  # pragma: no cover - built by every install that has a compiler
    _lexicon_speedups = None

needs_c = pytest.mark.skipif(_lexicon_speedups is None, reason="_lexicon_speedups was not built")
ROOT = Path(__file__).resolve().parents[3]
CODES = "".join(KIND_CODES.values())
ALPHABET = CODES + CODES.upper()


def _c(text, units, codes):
    return _lexicon_speedups.layout(units, codes, lexicon._KIND_BY_ORD, lexicon._WORD_MASK)


@needs_c
@given(st.lists(st.tuples(st.sampled_from(ALPHABET), st.text(min_size=1, max_size=3)), max_size=60))
def test_c_layout_equals_the_python_one_on_any_codes(cells):
    codes = "".join(c for c, _ in cells)
    units = tuple(u for _, u in cells)
    text = "".join(units)
    assert _c(text, units, codes) == lexicon._python_layout(text, units, codes)


def _corpus_lines():
    texts = []
    for path in [ROOT / "examples" / "references.jsonl", ROOT / "examples" / "tess_noisy.jsonl"]:
        texts += [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines()]
    more = Path(ROOT).parent / "shared" / "data" / "examples" / "more_languages"
    for path in sorted(more.glob("**/*.jsonl"))[:24] if more.is_dir() else []:
        texts += [json.loads(line).get("text", "") for line in path.read_text(encoding="utf-8").splitlines()[:50]]
    return [t for t in texts if isinstance(t, str)]


@needs_c
def test_c_layout_equals_the_python_one_on_real_lines():
    texts = _corpus_lines()
    assert len(texts) >= 480
    for text in texts:
        units = lexicon.graphemes(text)
        codes = lexicon.unit_codes(text, units)
        assert _c(text, units, codes) == lexicon._python_layout(text, units, codes), text


def test_runs_by_hand(monkeypatch):
    for pure in ("1", ""):
        monkeypatch.setenv("SEMCER_PURE_PYTHON", pure)
        lexicon._fast_layout.cache_clear()
        lexicon.line_info.cache_clear()
        line = line_info("Ab 1,250.5x 7")
        # units: A b ␠ 1 , 2 5 0 . 5 x ␠ 7
        assert line.word_run[:2] == ((0, 2),) * 2 and line.word_run[2] is None
        assert line.num_run[3:10] == ((3, 10),) * 7  # 1,250.5: separators between digits belong to it
        assert line.num_run[10] is None and line.num_run[12] == (12, 13)
        assert line.has_digit and line.offsets == tuple(range(14))
        assert line.kinds[:4] == ("letter", "letter", "space", "digit")
        no_digit = line_info("नमस्ते दुनिया")  # clusters of several code points
        assert not no_digit.has_digit and set(no_digit.num_run) == {None}
        assert no_digit.offsets[-1] == len("नमस्ते दुनिया") and len(no_digit.offsets) == len(no_digit.units) + 1
    lexicon._fast_layout.cache_clear()
    lexicon.line_info.cache_clear()


@needs_c
def test_c_layout_refuses_what_it_cannot_read():
    with pytest.raises(ValueError, match="one code per unit"):
        lexicon._fast_layout()(("a", "b"), "l", lexicon._KIND_BY_ORD, lexicon._WORD_MASK)
    with pytest.raises(ValueError, match="without a kind"):
        lexicon._fast_layout()(("a",), "!", lexicon._KIND_BY_ORD, lexicon._WORD_MASK)
    with pytest.raises(TypeError):
        lexicon._fast_layout()(["a"], "l", lexicon._KIND_BY_ORD, lexicon._WORD_MASK)
