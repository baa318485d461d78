"""`python -m tools.cost --env dev [--cdk-out cdk.out] [--dist dist/dev] [--json]`"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from config import load_config

from .report import build_report, render, templates_from_assembly


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--env", default="dev")
    parser.add_argument("--cdk-out", type=Path, default=Path("cdk.out"))
    parser.add_argument("--dist", type=Path, default=None, help="manifests folder (default dist/<env>)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args(argv)
    config = load_config(args.env)
    templates = templates_from_assembly(args.cdk_out)
    prefix = f"{config.stack_prefix}-"
    if not any(name.startswith(prefix) for name in templates):
        print(f"{args.cdk_out} holds no {prefix}* stacks: run `make synth ENV={args.env}` first", file=sys.stderr)
        return 2
    templates = {k: v for k, v in templates.items() if k.startswith(prefix)}
    report = build_report(config.name, config.region, templates, args.dist or Path("dist") / config.name)
    print(json.dumps(report.to_json(), indent=2) if args.json else render(report), end="" if not args.json else "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
