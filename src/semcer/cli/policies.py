"""`semcer policies`: every preset and step, exactly."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("policies", help="list the text policies (presets and steps) exactly",
                       description="List every text-policy preset with its steps and hash, and every step.")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from semcer.io.json import dumps
    from semcer.reports.text import table
    from semcer.text.policy import PRESETS, STEPS, get_policy

    if args.json:
        print(dumps({"presets": {n: {**get_policy(n).to_dict(), "description": d} for n, (_, d) in PRESETS.items()},
                     "steps": {n: d for n, (_, d, _) in STEPS.items()}}))
        return 0
    rows = [[n, "+".join(s) or "(none)", get_policy(n).hash, d] for n, (s, d) in PRESETS.items()]
    print(table(["preset", "steps", "hash", "what it does"], rows, "llll"))
    print()
    print(table(["step", "what it does"], [[n, d] for n, (_, d, _) in STEPS.items()], "ll"))
    print("\nCompose steps with '+', e.g. --policy nfkc+collapse-ws+casefold; they apply in order.")
    return 0
