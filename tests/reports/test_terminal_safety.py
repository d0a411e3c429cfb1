"""Nothing in the input drives the terminal (issue 11: a test line retitled the terminal and cleared
the screen): control characters in ids, documents and OCR text are shown escaped."""

from __future__ import annotations

import json
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from semcer.reports.text import safe, table

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[H\u009b31m\u202eevil\r\n\t\x00\x7f"


def test_safe_escapes_every_control_and_separator():
    out = safe(HOSTILE)
    assert all(ch.isprintable() for ch in out)
    assert "\\x1b]0;pwned\\x07" in out and "\\u202e" in out and "\\r\\n\\t\\x00\\x7f" in out


DRIVERS = {*range(0x00, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, 0x200E, 0x200F, *range(0x202A, 0x202F),
           *range(0x2066, 0x206A),
           # invisible, so that two ids would look the same: ALM, ZWSP, word joiner and invisible operators,
           # deprecated format characters, BOM, interlinear annotation, tags
           0x061C, 0x200B, *range(0x2060, 0x2065), *range(0x206A, 0x2070), 0xFEFF, *range(0xFFF9, 0xFFFC),
           *range(0xE0000, 0xE0080)}


def test_zwj_and_zwnj_pass_unchanged():
    """Emoji sequences and Persian and Indic text need them."""
    assert safe("👩‍💻 می‌خواهم") == (
        "👩‍💻 می‌خواهم")


@given(st.text())
def test_safe_output_holds_no_control_and_plain_text_passes_unchanged(text):
    out = safe(text)
    assert not any(ord(ch) in DRIVERS for ch in out)
    if not any(ord(ch) in DRIVERS for ch in text):
        assert out == text


def test_table_cells_are_escaped_and_one_row_stays_one_line():
    text = table(["id", "CER"], [[HOSTILE, "1 %"]])
    assert "\x1b" not in text and len(text.splitlines()) == 3


def test_score_output_carries_no_escape_sequence(tmp_path):
    refs, hyps = tmp_path / "r.jsonl", tmp_path / "h.jsonl"
    hostile = HOSTILE.replace("\x00", "")  # a NUL is refused as input, rightly
    refs.write_text(json.dumps({"id": hostile, "doc": "\x1b[2J", "text": "abc\x1b[2J def"}) + "\n")
    hyps.write_text(json.dumps({"id": hostile, "doc": "\x1b[2J", "text": "abx\x1b]0;t\x07 def"}) + "\n")
    p = subprocess.run([sys.executable, "-m", "semcer", "score", str(refs), str(hyps), "--judge", "rubric"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout and "\x07" not in p.stdout and "\u009b" not in p.stdout
    assert "\\x1b" in p.stdout
