"""Make docs/study.png, the screenshot of a reader study's rating page, with the project's own commands.

    python tools/study_screenshot.py            # -> docs/study.png
    python tools/study_screenshot.py --out x.png

It writes an edit list of the bundled example (``semcer score examples/references.jsonl
examples/tess_noisy.jsonl --edits TMP``), draws a study from it (``semcer study create``, one reader),
serves it on a free loopback port (``semcer study serve``), signs in with headless Chromium
(Debian's ``/usr/bin/chromium``, driven by Playwright), answers a few items with the keyboard and
takes the rating page of a substitution in the language ``--lang`` (Vietnamese by default). Needs playwright
and Pillow (``pip install ".[test]"``), the study extra and Chromium. The PNG is reduced to a
256-colour palette to stay small.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


def _semcer(*args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "semcer", *args], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True).stdout


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(port: int) -> None:
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the study server did not start")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "study.png")
    ap.add_argument("--lang", default="vi", help="the page shows a substitution of this language (default: %(default)s)")
    args = ap.parse_args(argv)

    from PIL import Image
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        edits, study = Path(tmp) / "edits.jsonl", Path(tmp) / "demo.study"
        _semcer("score", "examples/references.jsonl", "examples/tess_noisy.jsonl", "--edits", str(edits), "-q")
        printed = _semcer("study", "create", str(study), "--from", str(edits), "-n", "40", "--reader", "ana",
                          "--repeats", "3", "--seed", "1")
        token = re.search(r"^\s+ana\s+(\S+)$", printed, re.M).group(1)  # type: ignore[union-attr]
        port = _port()
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        server = subprocess.Popen([sys.executable, "-m", "semcer", "study", "serve", str(study), "--port", str(port)],
                                  cwd=ROOT, env=env)
        try:
            _wait(port)
            shot = _shoot(sync_playwright, port, token, study, args.lang)
        finally:
            server.terminate()
            server.wait(10)
    image = Image.open(io.BytesIO(shot)).convert("RGB")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(args.out, optimize=True)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1000:.0f} KB, {image.width}x{image.height})")
    return 0


def _shoot(sync_playwright, port: int, token: str, study: Path, lang: str) -> bytes:
    sys.path.insert(0, str(ROOT / "src"))
    from semcer.study.db import StudyDB

    db = StudyDB(study)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1100, "height": 640})
        page.goto(f"http://127.0.0.1:{port}/signin")
        page.fill("#token", token)
        with page.expect_navigation():
            page.press("#token", "Enter")
        with page.expect_navigation():
            page.click("#start")
        for key in "2130":  # a few answers with the keyboard: the progress bar moves
            page.wait_for_selector("#rate-form")
            page.wait_for_selector("html[data-ready='1']")  # the shortcuts' script has run
            with page.expect_navigation():
                page.keyboard.press(key)
        slots = [db.slot("ana", k) for k in range(len(db.items()) + 3)]
        wanted = [k for k, s in enumerate(slots) if k > 3 and s is not None and s.rep == 0
                  and db.item(s.item).data["op"] == "S" and db.item(s.item).lang == lang]
        wanted.sort(key=lambda k: db.item(slots[k].item).data["edit_class"] not in ("mark", "letter"))  # type: ignore[union-attr]
        if wanted:
            page.goto(f"http://127.0.0.1:{port}/rate?pos={wanted[0]}")
        page.wait_for_selector("html[data-ready='1']")
        shot = page.screenshot(full_page=True)
        browser.close()
    return shot


if __name__ == "__main__":
    sys.exit(main())
