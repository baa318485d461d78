"""Our HyperPod prerequisites chart through the real helm binary (from the pinned kubectl layer): lint, render with the
values the stack passes, refuse bad values at render time, every object valid Kubernetes, and what AWS's HyperPod
chart installs accounted for."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from cdk_constructs.compute.hyperpod_prerequisites import (
    CHART_DIR,
    HEALTH_MONITORING_AGENT_ACCOUNTS,
    health_monitoring_agent_image,
)

from .conftest import ROOT, Synth, yaml_documents
from .helm_binary import helm_binary

# The chart's CRDs, upstream bytes: PyTorchJob as AWS's HyperPod chart vendors it (aws/sagemaker-hyperpod-cli commit
# 011ca927123e02b35a399935bbb3ab1905fe33c7, helm_chart/HyperPodHelmChart/charts/training-operators/crds/
# pytorchjobs.kubeflow.org-CustomResourceDefinition.yaml: training-operator v1.7.0), and MPIJob from
# kubeflow/mpi-operator v0.8.0 manifests/base/kubeflow.org_mpijobs.yaml, the same file as the vendored
# k8s_charts/crds/kubeflow.org_mpijobs.yaml (unchanged on the release-0.8 branch through v0.8.2, the operator version
# the chart runs).
CHART_CRD_SHA256 = {
    "kubeflow.org_pytorchjobs.yaml": (587240, "bc5144778e472f1b690d05dbf92b0143839bed777e9a27c7ead27ed7a1cfa2c5"),
    "kubeflow.org_mpijobs.yaml": (669830, "78b0131f931fcc8d99f6ce0407281f41b62527e443ec691d26d9634b390ad3bb"),
}

# AWS's chart's Chart.yaml at that commit (tests/upstream/SOURCES.md; its SHA-256 is checked in test_observability).
REFERENCE_CHART = ROOT / "tests" / "upstream" / "sagemaker-hyperpod-cli-011ca927" / "Chart.yaml"

# Every dependency of AWS's chart (aws/sagemaker-hyperpod-cli helm_chart/HyperPodHelmChart/Chart.yaml, commit
# 011ca927123e02b35a399935bbb3ab1905fe33c7). The chart README must say, for each, whether we include, replace or
# leave it out.
UPSTREAM_COMPONENTS = (
    "cert-manager",
    "training-operators",
    "mlflow",
    "nvidia-device-plugin",
    "aws-efa-k8s-device-plugin",
    "neuron-device-plugin",
    "storage",
    "health-monitoring-agent",
    "mpi-operator",
    "deep-health-check",
    "job-auto-restart",
    "cluster-role-and-bindings",
    "namespaced-role-and-bindings",
    "team-role-and-bindings",
    "hyperpod-inference-operator",
    "hyperpod-patching",
    "gpu-operator",
)
HYPERPOD_USER = "hyperpod-service-linked-role"
# What HyperPod's service-linked role does through AWS's job-auto-restart and hyperpod-patching RBAC (same commit):
# (apiGroup, resource, verb) triples our ClusterRoles must allow to that user.
HYPERPOD_NEEDS = {
    ("", "nodes", "get"),
    ("", "nodes", "list"),
    ("", "nodes", "watch"),
    ("", "nodes", "patch"),
    ("", "nodes/status", "patch"),
    ("", "pods", "get"),
    ("", "pods", "list"),
    ("", "pods", "watch"),
    ("", "pods", "delete"),
    ("", "pods", "deletecollection"),
    ("", "events", "create"),
    ("kubeflow.org", "pytorchjobs", "get"),
    ("kubeflow.org", "pytorchjobs", "list"),
    ("kubeflow.org", "pytorchjobs", "watch"),
    ("kubeflow.org", "pytorchjobs", "delete"),
    ("kubeflow.org", "pytorchjobs", "patch"),
    ("kubeflow.org", "pytorchjobs", "update"),
    ("kubeflow.org", "pytorchjobs/status", "patch"),
    ("kubeflow.org", "pytorchjobs/status", "update"),
    ("coordination.k8s.io", "leases", "create"),
    ("coordination.k8s.io", "leases", "update"),
    ("", "pods/eviction", "create"),
}
# Kueue v0.19.2 "Run an MPIJob" (site/content/en/docs/tasks/run/kubeflow/mpijobs.md): "The minimum required MPI
# Operator version is v0.8.0".
KUEUE_MPI_OPERATOR_MINIMUM = (0, 8, 0)
# What Kueue v0.19.2's MPIJob integration reads and writes on an MPIJob (pkg/controller/jobs/mpijob/
# mpijob_controller.go: IsSuspended/Suspend/RunWithPodSetsInfo use spec.runPolicy.suspend, PriorityClass reads
# spec.runPolicy.schedulingPolicy.priorityClass, the JobWithManagedBy methods spec.runPolicy.managedBy). A CRD without
# one of them prunes what Kueue writes.
KUEUE_MPIJOB_RUN_POLICY_FIELDS = ("suspend", "managedBy", "schedulingPolicy")
# The API calls of the v0.8.x MPIJob controller (kubeflow/mpi-operator release-0.8 pkg/controller/
# mpi_job_controller.go: informers list+watch configmaps, secrets, services, pods, jobs, mpijobs, priorityclasses;
# it creates/updates configmaps, secrets, services and launcher Jobs, creates/deletes worker pods, clears a resumed
# launcher's status.startTime with UpdateStatus, updates MPIJob status, records events; leader election on leases).
MPI_OPERATOR_NEEDS = {
    *{("", r, v) for r in ("configmaps", "secrets", "services") for v in ("list", "watch", "create", "update")},
    *{("", "pods", v) for v in ("list", "watch", "create", "delete")},
    *{("batch", "jobs", v) for v in ("list", "watch", "create", "update")},
    ("batch", "jobs/status", "update"),
    *{("kubeflow.org", "mpijobs", v) for v in ("get", "list", "watch", "update")},
    ("kubeflow.org", "mpijobs/status", "update"),
    ("", "events", "create"),
    ("", "events", "patch"),
    *{("coordination.k8s.io", "leases", v) for v in ("get", "create", "update")},
    ("scheduling.k8s.io", "priorityclasses", "list"),
    ("scheduling.k8s.io", "priorityclasses", "watch"),
}


def helm(*args: str) -> subprocess.CompletedProcess[str]:
    home = ROOT / ".cache" / "helm-home"
    env = {
        **os.environ,
        "HELM_CACHE_HOME": str(home / "cache"),
        "HELM_CONFIG_HOME": str(home / "config"),
        "HELM_DATA_HOME": str(home / "data"),
    }
    return subprocess.run([str(helm_binary()), *args], capture_output=True, text=True, timeout=120, env=env)


def stack_values(synth: Synth) -> dict[str, Any]:
    for res in synth.resources("compute", "Custom::AWSCDK-EKS-HelmChart").values():
        if res["Properties"]["Release"] == "hyperpod-prerequisites":
            return json.loads(res["Properties"]["Values"])
    raise AssertionError("no hyperpod-prerequisites release")


def template(values: dict[str, Any], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / f"values-{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps(values))
    return helm(
        "template", "hyperpod-prerequisites", str(CHART_DIR), "--namespace", "kube-system", "--values", str(path)
    )


def objects(text: str) -> list[dict[str, Any]]:
    return [o for o in yaml.safe_load_all(text) if o]


@pytest.fixture(scope="module")
def values(dev: Synth) -> dict[str, Any]:
    return stack_values(dev)


def test_helm_lint_passes_with_the_stack_values(values: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "values.json"
    path.write_text(json.dumps(values))
    proc = helm("lint", str(CHART_DIR), "--values", str(path))
    assert proc.returncode == 0 and "1 chart(s) linted, 0 chart(s) failed" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("broken", "field"),
    [
        ({}, "healthMonitoringAgent.nvidiaInstanceTypes"),  # the chart's own defaults (first of several errors)
        ({"healthMonitoringAgent": {"nvidiaInstanceTypes": ["ml.p5.48xlarge"]}}, "healthMonitoringAgent.image"),
        (
            {"healthMonitoringAgent": {"image": "x.dkr.ecr.us-east-1.amazonaws.com/a:b"}},
            "healthMonitoringAgent.nvidiaInstanceTypes",
        ),
        (
            {
                "healthMonitoringAgent": {
                    "image": "x.dkr.ecr.us-east-1.amazonaws.com/a:b",
                    "nvidiaInstanceTypes": ["ml.p5.48xlarge"],
                },
                "trainingOperator": {"image": ""},
            },
            "trainingOperator.image",
        ),
    ],
)
def test_bad_values_fail_at_render_time_naming_the_field(broken: dict[str, Any], field: str, tmp_path: Path) -> None:
    proc = template(broken, tmp_path)
    assert proc.returncode != 0, f"rendered without {field}:\n{proc.stdout[:2000]}"
    assert field in proc.stderr, proc.stderr


def node_selector_terms(obj: dict[str, Any]) -> list[dict[str, Any]]:
    spec = obj.get("spec", {}).get("template", {}).get("spec", {})
    affinity = spec.get("affinity", {}).get("nodeAffinity", {})
    return affinity.get("requiredDuringSchedulingIgnoredDuringExecution", {}).get("nodeSelectorTerms", [])


@pytest.mark.parametrize("neuron", [[], ["ml.trn1.32xlarge"]])
def test_every_in_expression_has_values(values: dict[str, Any], neuron: list[str], tmp_path: Path) -> None:
    """An `In`/`NotIn` with no values is rejected by the API server; the chart must never render one."""
    custom = json.loads(json.dumps(values))
    custom["healthMonitoringAgent"]["neuronInstanceTypes"] = neuron
    proc = template(custom, tmp_path)
    assert proc.returncode == 0, proc.stderr
    rendered = objects(proc.stdout)
    for obj in rendered:
        for term in node_selector_terms(obj):
            for expr in term["matchExpressions"]:
                if expr["operator"] in ("In", "NotIn"):
                    assert expr.get("values"), f"{obj['kind']}/{obj['metadata']['name']}: {expr}"
    neuron_agents = [o for o in rendered if o["metadata"]["name"] == "health-monitoring-agent-non-nvidia"]
    assert len(neuron_agents) == (1 if neuron else 0)


def allowed(rules: list[dict[str, Any]], group: str, resource: str, verb: str) -> bool:
    return any(
        group in r.get("apiGroups", [])
        and (resource in r.get("resources", []) or "*" in r["resources"])
        and (verb in r.get("verbs", []) or "*" in r["verbs"])
        for r in rules
    )


def test_hyperpod_service_role_can_auto_resume_jobs_and_patch_nodes(rendered: list[dict[str, Any]]) -> None:
    roles = {o["metadata"]["name"]: o for o in rendered if o["kind"] == "ClusterRole"}
    bound = [
        roles[b["roleRef"]["name"]]
        for b in rendered
        if b["kind"] == "ClusterRoleBinding"
        and any(s["kind"] == "User" and s["name"] == HYPERPOD_USER for s in b["subjects"])
    ]
    rules = [r for role in bound for r in role["rules"]]
    missing = sorted(need for need in HYPERPOD_NEEDS if not allowed(rules, *need))
    assert not missing, f"HyperPod's service-linked role ({HYPERPOD_USER}) cannot: {missing}"


def test_chart_readme_accounts_for_every_upstream_component() -> None:
    readme = (CHART_DIR / "README.md").read_text()
    rows = {m[1]: m[2].strip().lower() for m in re.finditer(r"^\| `([\w-]+)` \| ([^|]+)\|", readme, re.M)}
    for component in UPSTREAM_COMPONENTS:
        assert component in rows, f"charts/hyperpod-prerequisites/README.md does not mention {component}"
        assert rows[component].split()[0] in ("included", "replaced", "left"), (component, rows[component])


def test_upstream_component_list_matches_the_reference_copy() -> None:
    deps = {d["name"] for d in yaml.safe_load(REFERENCE_CHART.read_text())["dependencies"]}
    assert deps == set(UPSTREAM_COMPONENTS)


@pytest.fixture(scope="module")
def rendered(values: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The chart as the real helm renders it with the values the stack passes."""
    proc = template(values, tmp_path_factory.mktemp("helm"))
    assert proc.returncode == 0, proc.stderr
    return objects(proc.stdout)


def test_chart_metadata() -> None:
    chart = yaml.safe_load((CHART_DIR / "Chart.yaml").read_text())
    assert chart["apiVersion"] == "v2" and chart["name"] == "hyperpod-prerequisites"
    assert chart["appVersion"] == "1.7.0"  # a training-operator version HyperPod job auto-resume supports


def test_every_rendered_object_is_valid_kubernetes(rendered: list[dict[str, Any]], dev: Synth) -> None:
    version = dev.config.compute.kubernetes_version + ".0"
    for obj in rendered:
        kubernetes_validate.validate(obj, version, strict=True)


def test_chart_installs_what_hyperpod_needs(rendered: list[dict[str, Any]]) -> None:
    kinds = {(o["kind"], o["metadata"]["name"]) for o in rendered}
    assert ("Namespace", "aws-hyperpod") in kinds
    assert ("DaemonSet", "health-monitoring-agent") in kinds
    assert ("ServiceAccount", "deep-health-check-service-account") in kinds
    assert ("ClusterRoleBinding", "deep-health-check-service-account-role-binding") in kinds
    assert ("Deployment", "training-operator") in kinds
    assert ("Deployment", "mpi-operator") in kinds
    hma = next(o for o in rendered if o["kind"] == "DaemonSet" and o["metadata"]["name"] == "health-monitoring-agent")
    assert hma["metadata"]["namespace"] == "aws-hyperpod"
    (container,) = hma["spec"]["template"]["spec"]["containers"]
    assert container["image"] == health_monitoring_agent_image("us-east-1")


def test_training_operator_is_a_version_hyperpod_auto_resume_supports(rendered: list[dict[str, Any]]) -> None:
    deployment = next(o for o in rendered if o["kind"] == "Deployment" and o["metadata"]["name"] == "training-operator")
    spec = deployment["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    assert container["image"] == "kubeflow/training-operator:v1-855e096"  # the v1.7.0 release image
    assert "--enable-scheme=pytorchjob" in container["command"]
    assert spec["nodeSelector"] == {"llmft.io/node-role": "system"}


def test_operators_run_on_system_nodes(rendered: list[dict[str, Any]]) -> None:
    for obj in rendered:
        if obj["kind"] == "Deployment":
            assert obj["spec"]["template"]["spec"]["nodeSelector"] == {"llmft.io/node-role": "system"}


def test_crds_are_the_hyperpod_vendored_ones() -> None:
    crds = {p.name: yaml_documents(p) for p in (CHART_DIR / "crds").glob("*.yaml")}
    names = {doc["metadata"]["name"] for docs in crds.values() for doc in docs if doc}
    assert names == {"pytorchjobs.kubeflow.org", "mpijobs.kubeflow.org"}


def test_crds_are_the_upstream_bytes() -> None:
    found = {p.name: p.read_bytes() for p in (CHART_DIR / "crds").glob("*.yaml")}
    assert sorted(found) == sorted(CHART_CRD_SHA256)
    for name, (size, sha256) in CHART_CRD_SHA256.items():
        assert (len(found[name]), hashlib.sha256(found[name]).hexdigest()) == (size, sha256), name
    vendored = ROOT / "k8s_charts" / "crds" / "kubeflow.org_mpijobs.yaml"
    assert found["kubeflow.org_mpijobs.yaml"] == vendored.read_bytes(), "one MPIJob CRD for the chart and the imports"


def test_mpi_operator_is_a_version_kueue_supports(rendered: list[dict[str, Any]]) -> None:
    """Kueue gang-admits MPIJobs only with MPI Operator >= v0.8.0; AWS's HyperPod chart ships v0.5.0."""
    deployment = next(o for o in rendered if o["kind"] == "Deployment" and o["metadata"]["name"] == "mpi-operator")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    match = re.fullmatch(r"mpioperator/mpi-operator:v?(\d+)\.(\d+)\.(\d+)", container["image"])
    assert match, f"{container['image']}: pin an exact mpioperator/mpi-operator release"
    assert tuple(map(int, match.groups())) >= KUEUE_MPI_OPERATOR_MINIMUM, container["image"]


def test_mpijob_crd_has_every_field_kueue_sets() -> None:
    (crd,) = yaml_documents(CHART_DIR / "crds" / "kubeflow.org_mpijobs.yaml")
    for version in crd["spec"]["versions"]:
        run_policy = version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["runPolicy"]
        missing = [f for f in KUEUE_MPIJOB_RUN_POLICY_FIELDS if f not in run_policy["properties"]]
        assert not missing, f"MPIJob {version['name']} runPolicy lacks {missing}: Kueue's writes would be pruned"


def test_mpi_operator_can_do_what_its_controller_calls(rendered: list[dict[str, Any]]) -> None:
    roles = {o["metadata"]["name"]: o for o in rendered if o["kind"] == "ClusterRole"}
    bound = [
        roles[b["roleRef"]["name"]]
        for b in rendered
        if b["kind"] == "ClusterRoleBinding"
        and any(s["kind"] == "ServiceAccount" and s["name"] == "mpi-operator" for s in b["subjects"])
    ]
    rules = [r for role in bound for r in role["rules"]]
    missing = sorted(need for need in MPI_OPERATOR_NEEDS if not allowed(rules, *need))
    assert not missing, f"the MPI operator's service account cannot: {missing}"


def test_health_monitoring_agent_image_per_region() -> None:
    assert health_monitoring_agent_image("us-west-2").startswith("905418368575.dkr.ecr.us-west-2.amazonaws.com/")
    assert len(HEALTH_MONITORING_AGENT_ACCOUNTS) >= 10
    with pytest.raises(ValueError, match="no image in region 'af-south-1'; supported regions: ap-northeast-1"):
        health_monitoring_agent_image("af-south-1")


def test_chart_is_self_contained() -> None:
    """Nothing in the chart fetches from git at install time (no dependencies, no remote references)."""
    chart = yaml.safe_load((CHART_DIR / "Chart.yaml").read_text())
    assert "dependencies" not in chart
    for path in Path(CHART_DIR, "templates").glob("*.yaml"):
        assert "github.com" not in path.read_text()


def test_docker_hub_images_are_documented_with_their_risk(rendered: list[dict[str, Any]]) -> None:
    """Images without a registry host come from Docker Hub (anonymous pulls rate-limited per NAT IP); each must be
    named in the chart README's risk section, which says why there is no other registry."""
    section = (CHART_DIR / "README.md").read_text().split("## Images from Docker Hub", 1)[1].split("\n## ", 1)[0]
    images = {
        c["image"]
        for o in rendered
        if o["kind"] in ("Deployment", "DaemonSet")
        for c in o["spec"]["template"]["spec"]["containers"]
    }
    docker_hub = {i for i in images if "." not in i.split("/")[0] or i.startswith("docker.io/")}
    assert docker_hub, "nothing from Docker Hub any more: drop the README section and this test"
    for image in docker_hub:
        assert f"`{image}`" in section, f"{image} comes from Docker Hub; document it (or move it) in the chart README"
