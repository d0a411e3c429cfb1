"""Make docs/report.png, the README's screenshot of the HTML report, with the project's own command.

    python tools/report_screenshot.py            # -> docs/report.png
    python tools/report_screenshot.py --out x.png

It runs ``semcer report examples/references.jsonl examples/tess_noisy.jsonl --html TMP`` (the
working tree's semcer), opens the page in headless Chromium (Debian's ``/usr/bin/chromium``, driven
by Playwright), and stacks two views into one PNG: the top of the ranked list (the most severe
error spans with their marked pairs, filters and sorting) and the line view it links to (the
reference and the output aligned, each edit shaded by its severity). Needs playwright and Pillow
(``pip install ".[test]"``) and Chromium; the screenshot shows the fonts of the machine that makes
it (the bundled example has Chinese lines: install a CJK font first, e.g. Debian's
fonts-wqy-microhei). The PNG is reduced to a 256-colour palette to stay small.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
WIDTH = 1280


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "report.png")
    ap.add_argument("--list-height", type=int, default=720, help="pixels of the ranked list")
    ap.add_argument("--line-height", type=int, default=520, help="pixels of the line view")
    ap.add_argument("--line", default="ex-vi-01-07", help="the line the view jumps to (default: %(default)s)")
    args = ap.parse_args(argv)

    from PIL import Image
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        page_path = Path(tmp) / "report.html"
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        subprocess.run([sys.executable, "-m", "semcer", "report", "examples/references.jsonl",
                        "examples/tess_noisy.jsonl", "--html", str(page_path), "-q"], cwd=ROOT, env=env, check=True)
        shots = []
        with sync_playwright() as p:
            ctx = p.chromium.launch_persistent_context(str(Path(tmp) / "profile"), executable_path=CHROMIUM,
                                                       headless=True, args=ARGS,
                                                       viewport={"width": WIDTH, "height": args.list_height})
            page = ctx.new_page()
            page.goto(page_path.as_uri())
            page.wait_for_selector("html[data-ready='1']")
            page.evaluate("document.getElementById('ranked').scrollIntoView()")
            shots.append(page.screenshot())
            page.set_viewport_size({"width": WIDTH, "height": args.line_height})
            link = page.locator("#ranked-body a.jump", has_text=args.line)  # a line with every kind of edit
            (link.first if link.count() else page.locator("#ranked-body a.jump").first).click()
            page.wait_for_timeout(200)
            shots.append(page.screenshot())
            ctx.close()

    images = [Image.open(io.BytesIO(s)).convert("RGB") for s in shots]
    out = Image.new("RGB", (WIDTH, sum(im.height for im in images) + 6), (32, 33, 36))
    y = 0
    for im in images:
        out.paste(im, (0, y))
        y += im.height + 6
    args.out.parent.mkdir(parents=True, exist_ok=True)
    out.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(args.out, optimize=True)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1000:.0f} KB, {out.width}x{out.height})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
