"""`<Env>-Compute` applies the FSx directories Job only after what its pod needs exists - the system node group it is
pinned to and the FSx CSI driver add-on that mounts its claim - by following the template's DependsOn chain, and
its deadlines fit the handler that waits for it."""

from __future__ import annotations

import json
from typing import Any

from cdk_constructs.compute.fsx_directories import MAX_WAIT, NAMESPACE

from .conftest import Synth

STACK = "compute"


def depends_closure(resources: dict[str, dict[str, Any]], start: str) -> set[str]:
    """Every resource ``start`` waits for: DependsOn, Ref and Fn::GetAtt, transitively (CloudFormation creates a
    resource after all of them)."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        res = resources[todo.pop()]
        deps = res.get("DependsOn", [])
        deps = [deps] if isinstance(deps, str) else list(deps)
        text = json.dumps(res.get("Properties", {}))
        deps += [r for r in resources if f'"Ref": "{r}"' in text or f'"Fn::GetAtt": ["{r}"' in text]
        for dep in deps:
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def manifests(res: dict[str, Any]) -> list[dict[str, Any]]:
    raw = res["Properties"].get("Manifest")
    return json.loads(raw) if isinstance(raw, str) else []


def test_fsx_directories_job_waits_for_the_csi_addon_and_the_system_nodes(env_synth: Synth) -> None:
    resources = env_synth.templates[STACK]["Resources"]
    (job_id,) = [
        k
        for k, v in resources.items()
        if v["Type"] == "Custom::AWSCDK-EKS-KubernetesResource"
        and any(m.get("kind") == "Job" and m["metadata"].get("namespace") == NAMESPACE for m in manifests(v))
    ]
    before = depends_closure(resources, job_id)
    kinds = {resources[r]["Type"] for r in before}
    addons = {resources[r]["Properties"]["AddonName"] for r in before if resources[r]["Type"] == "AWS::EKS::Addon"}
    assert "aws-fsx-csi-driver" in addons, "the Job's claim is mounted by the FSx CSI driver"
    assert {"vpc-cni", "coredns"} <= addons
    assert "AWS::EKS::Nodegroup" in kinds, "the Job's pod runs on a system node"
    (wait_id,) = [
        k
        for k, v in resources.items()
        if v["Type"] == "Custom::AWSCDK-EKS-KubernetesObjectValue"
        and v["Properties"].get("ObjectNamespace") == NAMESPACE
    ]
    assert job_id in depends_closure(resources, wait_id)


def test_fsx_directories_deadlines_fit_the_waiting_handler(env_synth: Synth) -> None:
    """The wait polls inside a 15-minute Lambda function; the Job stops trying no later than the wait ends."""
    resources = env_synth.templates[STACK]["Resources"]
    (wait,) = [
        v["Properties"]
        for v in resources.values()
        if v["Type"] == "Custom::AWSCDK-EKS-KubernetesObjectValue"
        and v["Properties"].get("ObjectNamespace") == NAMESPACE
    ]
    (job,) = [
        m
        for v in resources.values()
        if v["Type"] == "Custom::AWSCDK-EKS-KubernetesResource"
        for m in manifests(v)
        if m.get("kind") == "Job" and m["metadata"].get("namespace") == NAMESPACE
    ]
    timeout = int(wait["TimeoutSeconds"])
    assert timeout == MAX_WAIT.to_seconds() < 15 * 60
    assert job["spec"]["activeDeadlineSeconds"] <= timeout


def test_a_wait_longer_than_the_handler_can_poll_is_refused() -> None:
    import aws_cdk as cdk
    import pytest
    from aws_cdk import Duration

    from cdk_constructs.compute.fsx_directories import FsxDirectories

    stack = cdk.Stack(cdk.App())
    with pytest.raises(ValueError, match="15-minute limit"):
        FsxDirectories(
            stack,
            "D",
            cluster=None,
            directories=[],
            volume=lambda ns: [],
            image="x",  # type: ignore[arg-type]
            timeout=Duration.minutes(20),
        )
