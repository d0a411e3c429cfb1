"""What provenance costs: `semcer score` on PAGE-XML references against hOCR outputs, with and without
naming every edit's elements.

    python bench/provenance.py                    # 20 pages of 20,000 characters
    python bench/provenance.py --pages 5 --chars 5000 --repeats 3

The pages are bench/pages.py's (seeded multilingual lines, OCR-like noise), written as PAGE-XML
(regions of five lines) for the references and as Tesseract-shaped hOCR (``ocr_par``/``ocr_line``)
for the outputs, read and paired as `semcer score` reads a directory of each. Then, in this process,
with the default judge and no store:

- ``evaluate``: :func:`semcer.api.evaluation.evaluate` (``edits=True``, what ``--edits``/``--html``
  use) on the pairs without provenance and with it, alternately, ``--repeats`` times each after one
  warm-up; and the provenance step alone (:meth:`Provenance.attach` on the judged edits);
- ``streamed``: :func:`semcer.scale.pipeline.score_stream` writing ``--edits`` (5 pages a chunk),
  without and with provenance, alternately;
- ``offsets``: the road not taken, aligning with original offsets during scoring
  (``align_lines(..., offsets=True)``) against the usual alignment (``offsets=False``).

Medians and ranges of the wall times are printed; the machine is shared, so compare the ratios of
one run.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))

import pages as page_bench  # noqa: E402

NS = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
LINES_PER_REGION = 5


def _xml_text(s: str) -> str:
    """Text that XML 1.0 can hold (control characters other than tab left out), escaped."""
    return escape("".join(c for c in s if c == "\t" or ord(c) >= 0x20))


def page_xml(lines: list[str]) -> str:
    regions = []
    for r in range(0, len(lines), LINES_PER_REGION):
        body = "".join(
            f'<TextLine id="r{r}l{k}"><Coords points="0,{10 * k} 900,{10 * k} 900,{10 * k + 9} 0,{10 * k + 9}"/>'
            f"<TextEquiv><Unicode>{_xml_text(t)}</Unicode></TextEquiv></TextLine>"
            for k, t in enumerate(lines[r:r + LINES_PER_REGION], start=r))
        regions.append(f'<TextRegion id="r{r}"><Coords points="0,0 900,0 900,9 0,9"/>{body}</TextRegion>')
    return (f'<?xml version="1.0" encoding="UTF-8"?><PcGts xmlns="{NS}"><Page imageFilename="p.png" imageWidth="1000" '
            f'imageHeight="100000">{"".join(regions)}</Page></PcGts>')


def hocr(lines: list[str]) -> str:
    pars = []
    for r in range(0, len(lines), LINES_PER_REGION):
        body = "".join(
            f'<span class="ocr_line" id="line_{k}" title="bbox 0 {10 * k} 900 {10 * k + 9}">'
            + " ".join(f'<span class="ocrx_word" id="word_{k}_{w}" title="bbox 0 0 1 1">{_xml_text(word)}</span>'
                       for w, word in enumerate(t.split()))
            + "</span>"
            for k, t in enumerate(lines[r:r + LINES_PER_REGION], start=r))
        pars.append(f'<p class="ocr_par" id={quoteattr(f"par_{r}")} title="bbox 0 0 900 9">{body}</p>')
    return ('<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head>'
            '<meta name="ocr-system" content="tesseract 5"/></head><body><div class="ocr_page" id="page_1" '
            f'title="bbox 0 0 1000 100000"><div class="ocr_carea" id="block_1">{"".join(pars)}</div></div></body></html>')


def write_pages(folder: Path, n: int, chars: int, seed: int) -> tuple[Path, Path]:
    refs, hyps = page_bench.pages(n, chars, seed)
    gt, ocr = folder / "gt", folder / "ocr"
    gt.mkdir()
    ocr.mkdir()
    for r, h in zip(refs, hyps):
        (gt / f"{r['id']}.gt.xml").write_text(page_xml(r["text"].split("\n")), encoding="utf-8")
        (ocr / f"{h['id']}.hocr").write_text(hocr(h["text"].split("\n")), encoding="utf-8")
    return gt, ocr


def _timed(fn: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _alternate(repeats: int, without: Any, with_: Any) -> tuple[list[float], list[float], Any]:
    """Wall times of ``without`` and ``with_`` run alternately (after one warm-up of each)."""
    without()
    last = with_()
    a, b = [], []
    for _ in range(repeats):
        a.append(_timed(without)[0])
        t, last = _timed(with_)
        b.append(t)
    return a, b, last


def _show(name: str, a: list[float], b: list[float]) -> None:
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"| {name} | {ma:.3f} ({min(a):.3f}-{max(a):.3f}) | {mb:.3f} ({min(b):.3f}-{max(b):.3f}) | "
          f"{100 * (mb - ma) / ma:+.1f} % |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=20)
    ap.add_argument("--chars", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)

    from semcer.alignment.engine import align_lines
    from semcer.api.evaluation import evaluate
    from semcer.io.collections import read_collection
    from semcer.io.pairing import pair_collections
    from semcer.scale.gc import collector_paused
    from semcer.scale.pipeline import StreamSettings, score_stream
    from semcer.text.policy import get_policy

    with tempfile.TemporaryDirectory() as tmp, collector_paused():
        gt, ocr = write_pages(Path(tmp), args.pages, args.chars, args.seed)
        t_read, paired = _timed(lambda: pair_collections(read_collection(gt), read_collection(ocr)))
        plain = dataclasses.replace(paired, provenance=None)
        chars = sum(len(p.ref) for p in paired.pairs)
        print(f"{len(paired.pairs)} pages, {chars:,} reference characters; read and paired in {t_read:.2f} s\n")
        print("| step | without provenance, s (range) | with provenance, s (range) | cost |")
        print("|---|---:|---:|---:|")

        def ev(p: Any) -> Any:
            return evaluate(p, judge="compact", edits=True)

        a, b, result = _alternate(args.repeats, lambda: ev(plain), lambda: ev(paired))
        _show("evaluate (align, judge, aggregate)", a, b)
        pol = get_policy(None)
        attach = [_timed(lambda: paired.provenance.attach(result.judged, "grapheme", pol))[0]
                  for _ in range(args.repeats)]
        named = sum(1 for j in result.judged if j.ref_element is not None)
        print(f"| attach alone ({len(result.judged):,} edits, {named:,} with a reference element) | | "
              f"{statistics.median(attach):.3f} ({min(attach):.3f}-{max(attach):.3f}) | |")

        def streamed(prov: Any) -> Any:
            out = Path(tmp) / "edits.jsonl"
            return score_stream(paired.pairs, judge="compact", provenance=prov,
                                settings=StreamSettings(chunk_lines=5, edits=str(out)))

        a, b, _ = _alternate(args.repeats, lambda: streamed(None), lambda: streamed(paired.provenance))
        _show("score_stream writing --edits", a, b)
        pairs = list(paired.pairs)
        a, b, _ = _alternate(args.repeats, lambda: align_lines(pairs, "grapheme", pol, "error", edits=True, offsets=False),
                             lambda: align_lines(pairs, "grapheme", pol, "error", edits=True, offsets=True))
        _show("alignment alone, offsets=False vs offsets=True (not used)", a, b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
