"""The peer of ``semcer cer --json`` in the end-to-end benchmark: the small script a jiwer user would write.

    python bench/jiwer_script.py REFS.jsonl HYPS.jsonl --output result.json

Reads the two JSONL files (``id``, ``text``), pairs the outputs with the references by id, calls
``jiwer.cer`` once on the two lists (corpus CER over code points, jiwer's default transform) and
writes ``{"cer": ..., "lines": ...}`` as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys

import jiwer


def read_jsonl(path: str) -> dict[str, str]:
    with open(path, encoding="utf-8") as f:
        rows = (json.loads(line) for line in f if line.strip())
        return {str(r["id"]): r["text"] for r in rows}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("refs")
    ap.add_argument("hyps")
    ap.add_argument("--output", required=True)
    args = ap.parse_args()
    refs, hyps = read_jsonl(args.refs), read_jsonl(args.hyps)
    ids = list(refs)
    cer = jiwer.cer([refs[i] for i in ids], [hyps[i] for i in ids])
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump({"cer": cer, "lines": len(ids)}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
