"""Fixtures of the study tests: a small edit list in several scripts, with markup in the OCR text."""

from __future__ import annotations

import json
from pathlib import Path

from semcer.alignment.context import mark
from semcer.text.units import graphemes

#: (line id, lang, reference, output, position of the substituted unit, edit class, severity)
LINES = [
    ("vi-1", "vi", "Tấm Cám", "Tám Cám", 1, "mark", 0.9),
    ("vi-2", "vi", "đấng cứu thế", "đáng cứu thế", 1, "mark", 0.3),
    ("vi-3", "vi", "Hà Nội 1945", "Hà Nội 1946", 10, "digit", 1.0),
    ("en-1", "en", "is not valid", "is now valid", 5, "letter", 1.0),
    ("en-2", "en", "receive", "reoeive", 2, "letter", 0.25),
    ("en-3", "en", "Paris", "PARIS", 1, "case", 0.0),
    ("en-4", "en", "<script>alert(1)</script> x", "<script>alert(1)</script> y", 26, "letter", 0.5),
    ("en-5", "en", "total 1,250", "total 1,750", 8, "digit", 1.0),
    ("zh-1", "zh", "北京大学", "北京大字", 3, "ideograph", 0.75),
    ("zh-2", "zh", "中华人民", "中华人氏", 3, "ideograph", 0.5),
    ("en-6", "en", 'a "b" <img src=x onerror=alert(2)>', 'a "c" <img src=x onerror=alert(2)>', 3, "letter", 0.6),
    ("en-7", "en", "form", "farm", 1, "letter", 0.95),
]


def edit_record(line_id: str, lang: str, ref: str, hyp: str, pos: int, cls: str, severity: float) -> dict:
    r, h = graphemes(ref), graphemes(hyp)
    assert r[pos] != h[pos], (line_id, r[pos])
    return {"edit_id": f"{line_id}:S{pos},{pos}", "line_id": line_id, "doc": line_id.split("-")[0], "lang": lang,
            "op": "S", "ref_unit": r[pos], "hyp_unit": h[pos], "ref_pos": pos, "hyp_pos": pos,
            "marked_ref": mark(r, pos, True), "marked_hyp": mark(h, pos, True), "edit_class": cls,
            "p": None, "severity": severity, "mode": round(severity * 4), "flags": "", "failure": ""}


def write_edits(path: Path, lines=LINES) -> Path:
    with open(path, "w", encoding="utf-8") as fh:
        for row in lines:
            fh.write(json.dumps(edit_record(*row), ensure_ascii=False) + "\n")
    return path
