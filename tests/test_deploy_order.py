"""Weak cross-stack references stay correct only if `make deploy` deploys every stack, producers first, and does
not skip an unchanged consumer (docs/deploying.md "Deploying an environment")."""

from __future__ import annotations

import json
import shlex
import subprocess
from typing import Any

from .conftest import ROOT, Synth


def stack_output_refs(value: Any) -> list[str]:
    """Stack names referenced by ``Fn::GetStackOutput`` anywhere in ``value``."""
    if isinstance(value, dict):
        if "Fn::GetStackOutput" in value:
            return [value["Fn::GetStackOutput"]["StackName"]]
        return [n for v in value.values() for n in stack_output_refs(v)]
    if isinstance(value, list):
        return [n for v in value for n in stack_output_refs(v)]
    return []


def test_every_cross_stack_reference_follows_a_declared_dependency(env_synth: Synth) -> None:
    """`cdk deploy --all` orders stacks by the assembly's dependencies; each stack a template reads from must be one
    of them (so it is deployed first), and no reference may be an export (which would lock the producer)."""
    manifest = json.loads((env_synth.outdir / "manifest.json").read_text())["artifacts"]
    for short, stack in env_synth.stacks.items():
        template = env_synth.templates[short]
        assert "Fn::ImportValue" not in json.dumps(template), f"{stack.stack_name} imports an export"
        produced_by = set(stack_output_refs(template)) - {stack.stack_name}
        declared = set(manifest[stack.artifact_id].get("dependencies", []))
        missing = produced_by - declared
        assert not missing, f"{stack.stack_name} reads {sorted(missing)} without depending on it"


def test_make_deploy_deploys_every_stack_in_order_without_skipping() -> None:
    out = subprocess.run(
        ["make", "-n", "deploy", "ENV=dev"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    ).stdout
    (line,) = [s for s in out.splitlines() if " deploy " in f" {s} " and "cdk" in s]
    argv = shlex.split(line)
    assert argv[argv.index("deploy") + 1 :].count("--all") == 1, line
    assert "--force" in argv, "CDK would skip a consumer whose template is unchanged but whose producer changed"
    assert argv[argv.index("--concurrency") + 1] == "1", "one stack at a time: a consumer waits for its producer"
    assert "--exclusively" not in argv and "-e" not in argv
    assert not [a for a in argv if a.startswith(("Dev-", "Prod-"))], "make deploy must not name single stacks"
