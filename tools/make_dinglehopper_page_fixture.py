"""Record dinglehopper's page CER on the PAGE-XML and ALTO pairs of ``tests/fixtures/pages/``.

Run it with dinglehopper's own interpreter (see bench/README.md for the venv):

    bench/.venv-dh/bin/python tools/make_dinglehopper_page_fixture.py          # writes the fixture
    bench/.venv-dh/bin/python tools/make_dinglehopper_page_fixture.py --print  # prints it (the live test)

For every ``NAME.gt.xml`` / ``NAME.ocr.xml`` pair and each of dinglehopper's two text levels
(``region``, ``line``; ALTO has only lines in dinglehopper, so both levels read the same there), the
fixture ``tests/fixtures/pages/dinglehopper_cer.json`` holds what dinglehopper's command line
computes (``dinglehopper.cli.process``): the texts it extracts (``ocr_files.extract``, which applies
its ``substitute_equivalences`` normalisation), its ``character_error_rate_n`` (CER and reference
grapheme count), its grapheme ``distance``, its words (``words_normalized``) and
``word_error_rate_n``; and the words dinglehopper finds in each of ``WORD_TEXTS``.
``tests/io/formats/test_dinglehopper_pages.py`` and ``tests/text/test_words.py`` check semcer against
it. This script imports only dinglehopper and the standard library (semcer is not installed in that
venv).
"""

from __future__ import annotations

import json
import math
import platform
import sys
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "tests" / "fixtures" / "pages"
FIXTURE = PAGES / "dinglehopper_cer.json"
COMMAND = "bench/.venv-dh/bin/python tools/make_dinglehopper_page_fixture.py"


#: Texts whose words (``words_normalized``) are recorded too: semcer's ``uax29`` tokenizer is meant to
#: be this definition (tests/text/test_words.py). Escapes where a character is invisible or confusable.
WORD_TEXTS = [
    "Hello, world! Don't stop: 3.14 and 1,000,000 e.g. U.S.A. (really?)",
    "Die Finſterniſſe des 1801ſten Jahrs \u2014 ſo daß es \u201eſichtbar\u201c iſt.",
    "Sonnen- und Mondfinsternis, well-known, re-read; l\u2019homme, l'eau",
    "\u00abguillemets\u00bb \u2039single\u203a [brackets] {braces} <angles>",
    "https://ocr-d.de/en/spec and info@example.org",
    "10km 5.5% $100 \u20ac20 3\u00bd 2\u00b3 #7 @user snake_case",
    "w\ue72bber \ue72b \ueba2ehr q\uf50e",
    "\u05e9\u05c1\u05b8\u05dc\u05d5\u05b9\u05dd \u05e2\u05d5\u05b9\u05dc\u05b8\u05dd \u05d1\u05f4\u05d4",
    "\u0645\u0631\u062d\u0628\u0627\u060c \u0628\u0627\u0644\u0639\u0627\u0644\u0645!",
    "\u6211\u4eec\u5728\u5317\u4eac\u5927\u5b66\u8bfb\u4e66\u3002",
    "\u6771\u4eac\u5927\u5b66\u3067\u52c9\u5f37\u3057\u3066\u3044\u307e\u3059\u3002\u30ab\u30bf\u30ab\u30ca",
    "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35\u0e04\u0e23\u0e31\u0e1a \u0e02\u0e2d\u0e1a\u0e04\u0e38\u0e13",
    "\ud55c\uad6d\uc5b4 \ud14d\uc2a4\ud2b8",
    "I \u2764\ufe0f OCR \U0001f44d\U0001f3fd !!! ... -- \u2013 \u2026",
    "Tie\u0302\u0301ng Vie\u0323\u0302t co\u0301 da\u0302\u0301u",
    "tab\tseparated\u00a0nbsp\u2009thin\u3000ideographic  two",
    "",
]


def _finite(x: float) -> float | None:
    return None if math.isinf(x) else x


def cases() -> list[dict]:
    from dinglehopper.character_error_rate import character_error_rate_n
    from dinglehopper.edit_distance import distance
    from dinglehopper.ocr_files import extract
    from dinglehopper.word_error_rate import word_error_rate_n, words_normalized

    out = []
    for gt in sorted(PAGES.glob("*.gt.xml")):
        ocr = gt.with_name(gt.name[: -len(".gt.xml")] + ".ocr.xml")
        if not ocr.exists():
            raise SystemExit(f"{gt}: no {ocr.name} to pair it with")
        for level in ("region", "line"):
            gt_text = extract(str(gt), textequiv_level=level)
            ocr_text = extract(str(ocr), textequiv_level=level)
            cer, n = character_error_rate_n(gt_text, ocr_text)
            gt_words = list(words_normalized(gt_text))
            ocr_words = list(words_normalized(ocr_text))
            wer, n_words = word_error_rate_n(gt_words, ocr_words)
            out.append({
                "id": f"{gt.name[: -len('.gt.xml')]}/{level}",
                "gt": gt.name,
                "ocr": ocr.name,
                "level": level,
                "cer": _finite(cer),
                "ref_graphemes": n,
                "distance": distance(gt_text, ocr_text),
                "gt_text": gt_text.text,
                "ocr_text": ocr_text.text,
                "gt_graphemes": len(gt_text.grapheme_clusters),
                "gt_words": gt_words,
                "ocr_words": ocr_words,
                "wer": _finite(wer),
                "ref_words": n_words,
            })
    return out


def words() -> list[dict]:
    from dinglehopper.word_error_rate import words_normalized

    return [{"text": t, "words": list(words_normalized(t))} for t in WORD_TEXTS]


def main() -> None:
    data = {
        "command": COMMAND,
        "dinglehopper": version("dinglehopper"),
        "uniseg": version("uniseg"),
        "python": platform.python_version(),
        "cases": cases(),
        "words": words(),
    }
    text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    if "--print" in sys.argv[1:]:
        sys.stdout.write(text)
    else:
        FIXTURE.write_text(text, encoding="utf-8")
        print(f"wrote {len(data['cases'])} cases to {FIXTURE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
