"""`python -m tools.cost --env dev [--cdk-out cdk.out] [--dist dist/dev] [--json]`, or
`python -m tools.cost --delivery [--cdk-out cdk.out/delivery] [--json]`: what multi-account delivery adds to each
account (the automation account's pipeline, the logging account, each workload account's `<Env>-Delivery` stack),
from the assembly `make synth-delivery` writes."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from config import load_config

from .report import build_report, delivery_templates_by_account, render, templates_from_assembly


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--env", default="dev")
    parser.add_argument("--cdk-out", type=Path, default=Path("cdk.out"))
    parser.add_argument("--dist", type=Path, default=None, help="manifests folder (default dist/<env>)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument(
        "--delivery",
        action="store_true",
        help="per account: what the delivery pipeline, the logging account and each environment's "
        "<Env>-Delivery stack add (reads cdk.out/delivery unless --cdk-out is given)",
    )
    args = parser.parse_args(argv)
    if args.delivery:
        return _delivery(args.cdk_out if args.cdk_out != Path("cdk.out") else Path("cdk.out/delivery"), args.json)
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


def _delivery(cdk_out: Path, as_json: bool) -> int:
    if not (cdk_out / "manifest.json").is_file():
        print(f"{cdk_out} holds no cloud assembly: run `make synth-delivery` first", file=sys.stderr)
        return 2
    reports = [
        build_report(label, region, templates, None)
        for label, region, templates in delivery_templates_by_account(cdk_out)
    ]
    for report in reports:
        report.notes = [n for n in report.notes if not n.startswith("no manifests")]
    if as_json:
        print(json.dumps({r.env: r.to_json() for r in reports}, indent=2))
    else:
        print("\n".join(render(r) for r in reports), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
