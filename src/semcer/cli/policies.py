"""`semcer policies`: every preset and step, exactly."""

from __future__ import annotations

import argparse
import shutil
import textwrap


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("policies", help="list the text policies (presets and steps) exactly",
                       description="List every text-policy preset with its steps and hash, and every step. A policy "
                       "is applied identically to references and outputs before alignment; its name and hash are in "
                       "every signature. Compose steps and presets with '+', e.g. --policy nfkc+collapse-ws+casefold or "
                       "strip-markdown+dinglehopper (a preset stands for its steps there; a name that is both, casefold or nfc, "
                       "is the step there, alone the preset).")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from semcer.io.json import dumps
    from semcer.text.policy import PRESETS, STEPS, get_policy

    if args.json:
        print(dumps({"presets": {n: {**get_policy(n).to_dict(), "description": d} for n, (_, d) in PRESETS.items()},
                     "steps": {n: d for n, (_, d, _) in STEPS.items()}}))
        return 0
    width = max(60, min(shutil.get_terminal_size((100, 24)).columns, 120))
    out = ["presets (name, steps, hash):"]
    for name, (steps, description) in PRESETS.items():
        out.append(f"  {name}  {'+'.join(steps) or '(no steps)'}  #{get_policy(name).hash}")
        out += textwrap.wrap(description, width, initial_indent="      ", subsequent_indent="      ")
    out.append("")
    out.append("steps:")
    pad = max(len(n) for n in STEPS) + 4
    for name, (_, description, _) in STEPS.items():
        out += textwrap.wrap(description, width, initial_indent=f"  {name:<{pad - 2}}", subsequent_indent=" " * pad)
    out.append("")
    out += textwrap.wrap("Compose steps and presets with '+', e.g. --policy nfkc+collapse-ws+casefold or "
                         "strip-markdown+dinglehopper; they apply in order, a preset standing for its steps (a name "
                         "that is both, casefold or nfc, is the step there).", width)
    print("\n".join(out))
    return 0
