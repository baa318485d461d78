"""checkov in the gate: every synthesized template, every manifest written for GitOps, and every PyTorchJob/RayJob
pod template (checkov skips those kinds, so each is extracted as a PodTemplate).

checkov lives in its own virtualenv (`.checkov-venv`, made by `make install`) because it pins boto3. It runs with
--skip-download (no network). Every skip sits beside its resource: CloudFormation `Metadata.checkov.skip` (see
cdk_constructs/governance/compliance.py) or a `checkov.io/skip*` annotation on the Kubernetes object.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import ENVIRONMENTS, ROOT, manifests, synthesize

CHECKOV = ROOT / ".checkov-venv" / "bin" / "checkov"
JOB_KINDS = ("PyTorchJob", "RayJob", "RayCluster", "MPIJob")


def run_checkov(target: Path) -> dict[str, dict[str, list[str]]]:
    """One checkov run over ``target`` (CloudFormation and Kubernetes). Returns, per top-level folder of
    ``target``, the passed and failed checks."""
    assert CHECKOV.exists(), "checkov is not installed: run `make install` (it creates .checkov-venv)"
    proc = subprocess.run(
        [
            str(CHECKOV),
            "-d",
            str(target),
            "--framework",
            "cloudformation",
            "kubernetes",
            "--skip-download",
            "--compact",
            "-o",
            "json",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        # checkov's default fork runner drains its workers through pipes and was seen to hang for good under load
        # (parent blocked in pipe_write, workers zombies; checkov/common/parallelizer/parallel_runner.py, 3.3.30):
        # threads give the same findings without the pipes.
        env={**os.environ, "CHECKOV_PARALLELIZATION_TYPE": "thread"},
    )
    if not proc.stdout.strip():
        raise AssertionError(f"checkov produced no output (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    data = json.loads(proc.stdout)
    groups: dict[str, dict[str, list[str]]] = {}
    for report in data if isinstance(data, list) else [data]:
        if not isinstance(report, dict):
            continue
        for outcome in ("passed", "failed"):
            for check in report.get("results", {}).get(f"{outcome}_checks", []):
                group = Path(check["file_path"].lstrip("/")).parts[0]
                groups.setdefault(group, {"passed": [], "failed": []})[outcome].append(
                    f"{check['check_id']} {check['check_name']}: {check['resource']} ({check['file_path']})"
                )
    return groups


def _pod_templates(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    spec = doc.get("spec", {})
    found: list[tuple[str, dict[str, Any]]] = []
    if doc["kind"] == "PyTorchJob":
        for role, replica in spec.get("pytorchReplicaSpecs", {}).items():
            found.append((role.lower(), replica["template"]))
    elif doc["kind"] == "MPIJob":
        for role, replica in spec.get("mpiReplicaSpecs", {}).items():
            found.append((role.lower(), replica["template"]))
    else:
        cluster = spec.get("rayClusterSpec", spec) if doc["kind"] == "RayJob" else spec
        found.append(("head", cluster["headGroupSpec"]["template"]))
        for group in cluster.get("workerGroupSpecs", []):
            found.append((group["groupName"], group["template"]))
        if doc["kind"] == "RayJob" and "submitterPodTemplate" in spec:
            found.append(("submitter", spec["submitterPodTemplate"]))
    return found


def extract_pod_templates(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each job's pod templates as v1 PodTemplates. The job's checkov.io annotations carry over, so a skip written
    beside the job applies to its pods."""
    out = []
    for doc in docs:
        if doc.get("kind") not in JOB_KINDS:
            continue
        job_ann = {k: v for k, v in (doc["metadata"].get("annotations") or {}).items() if k.startswith("checkov.io/")}
        for role, template in _pod_templates(doc):
            ann = {**job_ann, **((template.get("metadata") or {}).get("annotations") or {})}
            meta = {
                "name": f"{doc['metadata']['name']}-{role}",
                "namespace": doc["metadata"].get("namespace", "default"),
                "annotations": ann,
            }
            out.append({"apiVersion": "v1", "kind": "PodTemplate", "metadata": meta, "template": template})
    return out


def test_pod_template_extraction_finds_every_role() -> None:
    job = {
        "kind": "PyTorchJob",
        "metadata": {"name": "sft", "namespace": "t", "annotations": {"checkov.io/skip1": "CKV_K8S_1=why"}},
        "spec": {"pytorchReplicaSpecs": {"Master": {"template": {"spec": {}}}, "Worker": {"template": {}}}},
    }
    ray = {
        "kind": "RayJob",
        "metadata": {"name": "grpo"},
        "spec": {
            "rayClusterSpec": {
                "headGroupSpec": {"template": {}},
                "workerGroupSpecs": [{"groupName": "gpu", "template": {}}],
            }
        },
    }
    names = [(p["metadata"]["name"], p["metadata"]["annotations"]) for p in extract_pod_templates([job, ray])]
    assert names == [
        ("sft-master", {"checkov.io/skip1": "CKV_K8S_1=why"}),
        ("sft-worker", {"checkov.io/skip1": "CKV_K8S_1=why"}),
        ("grpo-head", {}),
        ("grpo-gpu", {}),
    ]


@pytest.fixture(scope="session")
def checkov_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, list[str]]]:
    """Lay out, for every environment, its templates, its GitOps manifests and its jobs' pod templates, then run
    checkov once over all of it (one run: checkov's start-up dominates)."""
    root = tmp_path_factory.mktemp("checkov")
    for env in ENVIRONMENTS:
        synth = synthesize(env)
        (root / f"cfn-{env}").mkdir()
        for stack in synth.stacks.values():
            (root / f"cfn-{env}" / stack.template_file).write_text((synth.outdir / stack.template_file).read_text())
        k8s = root / f"k8s-{env}"
        k8s.mkdir()
        for f in sorted(manifests(env).glob("*.yaml")):
            (k8s / f.name).write_text(f.read_text())
        docs = [d for f in sorted(k8s.glob("*.yaml")) for d in yaml.safe_load_all(f.read_text()) if d]
        (root / f"pods-{env}").mkdir()
        (root / f"pods-{env}" / "pod-templates.yaml").write_text(
            yaml.safe_dump_all(extract_pod_templates(docs), sort_keys=False)
        )
    return run_checkov(root)


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("kind", ["cfn", "k8s", "pods"])
def test_checkov_passes(checkov_results: dict[str, dict[str, list[str]]], kind: str, env: str) -> None:
    group = checkov_results.get(f"{kind}-{env}", {"passed": [], "failed": []})
    assert group["passed"], f"checkov scanned nothing in {kind}-{env}: the input is missing or empty"
    assert not group["failed"], (
        f"checkov findings in {kind}-{env} (fix them, or skip beside the resource with "
        f"a reason):\n" + "\n".join(group["failed"])
    )
