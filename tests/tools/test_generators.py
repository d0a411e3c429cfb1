"""The table generators in tools/ write the tables semcer ships (src/semcer/text/tables/)."""

import runpy
import subprocess
import sys
import unicodedata

import pytest
import regex
from helpers import ROOT, SRC

from semcer.text.scan import nfc_tables, ranges
from semcer.text.tables import joiners, nfc_suspects
from semcer.text.units import joiner_ranges_from_regex

TABLES = SRC / "semcer" / "text" / "tables"


def _generate(tool: str, out) -> dict:
    done = subprocess.run([sys.executable, str(ROOT / "tools" / tool), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert str(out) in done.stdout
    return runpy.run_path(str(out))


def test_gen_joiners(tmp_path):
    out = tmp_path / "joiners.py"
    table = _generate("gen_joiners.py", out)
    assert table["RANGES"] == joiner_ranges_from_regex() and table["REGEX_VERSION"] == regex.__version__
    if regex.__version__ != joiners.REGEX_VERSION:
        pytest.skip(f"the shipped table is for regex {joiners.REGEX_VERSION}, installed is {regex.__version__}")
    assert out.read_text(encoding="utf-8") == (TABLES / "joiners.py").read_text(encoding="utf-8")


def test_gen_nfc_suspects(tmp_path):
    out = tmp_path / "nfc_suspects.py"
    table = _generate("gen_nfc_suspects.py", out)
    hard, _order, _pair, composable, trailing = nfc_tables()
    assert table["HARD"] == tuple(ranges(hard)) and table["COMPOSABLE"] == tuple(composable)
    assert table["TRAILING"] == tuple(trailing) and table["UNIDATA_VERSION"] == unicodedata.unidata_version
    if unicodedata.unidata_version != nfc_suspects.UNIDATA_VERSION:
        pytest.skip(f"the shipped table is for Unicode {nfc_suspects.UNIDATA_VERSION}")
    assert out.read_text(encoding="utf-8") == (TABLES / "nfc_suspects.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("tool, table", [("gen_joiners.py", "joiners.py"), ("gen_nfc_suspects.py", "nfc_suspects.py"),
                                         ("gen_ugrapheme_gaps.py", "ugrapheme_gaps.py")])
def test_default_output_is_the_shipped_table(tool, table):
    text = (ROOT / "tools" / tool).read_text(encoding="utf-8")
    assert f'"src" / "semcer" / "text" / "tables" / "{table}"' in text
    assert (TABLES / table).is_file()
