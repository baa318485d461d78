"""Stateful resources keep their logical IDs: a changed ID makes CloudFormation replace (delete) the resource.

The committed baseline lists (logical ID, type) of every stateful resource per environment and stack. After a
deliberate change, regenerate it with ``make snapshots`` and review the diff.
"""

from __future__ import annotations

import json
import os

from .conftest import ENVIRONMENTS, ROOT, synthesize

BASELINE = ROOT / "tests" / "baselines" / "stateful_resources.json"

STATEFUL_TYPES = {
    "AWS::KMS::Key",
    "AWS::S3::Bucket",
    "AWS::FSx::FileSystem",
    "AWS::FSx::DataRepositoryAssociation",
    "AWS::ECR::Repository",
    "AWS::EKS::Cluster",
    "AWS::SageMaker::Cluster",
    "AWS::RDS::DBCluster",
    "AWS::RDS::DBInstance",
    "AWS::SageMaker::Domain",
    "AWS::SageMaker::UserProfile",
    "AWS::SecretsManager::Secret",
}


def current() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for env in ENVIRONMENTS:
        synth = synthesize(env)
        for short, stack in synth.stacks.items():
            resources = synth.templates[short]["Resources"]
            found = {lid: r["Type"] for lid, r in sorted(resources.items()) if r["Type"] in STATEFUL_TYPES}
            if found:
                out[stack.stack_name] = found
    return out


def test_stateful_logical_ids_match_baseline() -> None:
    now = current()
    if os.environ.get("UPDATE_BASELINE") == "1":
        BASELINE.write_text(json.dumps(now, indent=2, sort_keys=True) + "\n")
    baseline = json.loads(BASELINE.read_text())
    problems = []
    for stack in sorted(set(baseline) | set(now)):
        before, after = baseline.get(stack, {}), now.get(stack, {})
        for lid, type_ in sorted(before.items()):
            if lid not in after:
                problems.append(
                    f"{stack}: {type_} {lid} is gone or renamed - CloudFormation would DELETE it "
                    f"(and create a new one under the new ID), losing its data"
                )
            elif after[lid] != type_:
                problems.append(f"{stack}: {lid} changed type {type_} -> {after[lid]}: a replacement")
        for lid in sorted(set(after) - set(before)):
            problems.append(f"{stack}: new stateful resource {after[lid]} {lid} is not in the baseline")
    assert not problems, (
        "Stateful logical IDs differ from tests/baselines/stateful_resources.json:\n  "
        + "\n  ".join(problems)
        + "\nA changed construct ID or path replaces the resource. Restore the old ID, or if the replacement is "
        "intended (or the resource is new), run `make snapshots` and commit the reviewed diff."
    )


SNAPSHOT_TYPES = {"AWS::RDS::DBCluster"}
"""Types whose data CloudFormation can snapshot on delete; the MLflow Aurora cluster keeps SNAPSHOT."""


def test_stateful_resources_are_retained_except_when_their_create_rolls_back() -> None:
    """Every stateful resource survives stack deletion and replacement, but a create that rolls back removes it.

    ``RetainExceptOnCreate`` (CDK ``RETAIN_ON_UPDATE_OR_DELETE``): a failed first deploy would otherwise leave the
    named EKS cluster, HyperPod cluster (still billing), buckets, ECR repository and log groups behind, and the retry
    fails with "already exists" (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/
    aws-attribute-deletionpolicy.html). Aurora keeps ``Snapshot`` (a final snapshot, then deletion). UpdateReplacePolicy
    has no RetainExceptOnCreate; it stays ``Retain`` (``Snapshot`` for Aurora). Plain ``Retain`` is refused on any
    resource, stateful or not (e.g. children of the EKS cluster inherit its policy).
    """
    wrong = []
    for env in ENVIRONMENTS:
        synth = synthesize(env)
        for name, template in synth.templates.items():
            for lid, res in template["Resources"].items():
                policies = (res.get("DeletionPolicy"), res.get("UpdateReplacePolicy"))
                where = f"{env}/{name}: {res['Type']} {lid} has {policies}"
                if res.get("DeletionPolicy") == "Retain":
                    wrong.append(f"{where}: plain Retain orphans it when the create rolls back")
                if res["Type"] not in STATEFUL_TYPES:
                    continue
                if res["Type"] == "AWS::RDS::DBInstance" and "DBClusterIdentifier" in res.get("Properties", {}):
                    continue  # an Aurora cluster member holds no data; its cluster is the one snapshotted
                expected = [("RetainExceptOnCreate", "Retain")]
                if res["Type"] in SNAPSHOT_TYPES:
                    expected = [("Snapshot", "Snapshot")]
                if policies not in expected:
                    wrong.append(f"{where}, expected {expected[0]}")
    assert not wrong, "removal policies:\n" + "\n".join(wrong)
