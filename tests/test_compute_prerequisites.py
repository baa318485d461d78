"""Our HyperPod prerequisites chart: renders with the values the stack passes, and every object is valid Kubernetes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from cdk_constructs.hyperpod_prerequisites import (
    CHART_DIR, HEALTH_MONITORING_AGENT_ACCOUNTS, health_monitoring_agent_image,
)

from .conftest import ROOT, Synth

SHARED_CRDS = ROOT.parent / "shared" / "crds" / "hyperpod-helm-chart"
_TO_YAML = re.compile(r"\{\{-\s*toYaml\s+\.Values\.([\w.]+)\s*\|\s*nindent\s+(\d+)\s*\}\}")
_VALUE = re.compile(r"\{\{\s*\.Values\.([\w.]+)\s*\}\}")


def lookup(values: dict[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        values = values[part]
    return values


def render(template: str, values: dict[str, Any]) -> str:
    """The subset of Helm templating the chart uses: `{{ .Values.x }}` and `{{- toYaml .Values.x | nindent N }}`."""
    def to_yaml(m: re.Match[str]) -> str:
        dumped = yaml.safe_dump(lookup(values, m[1]), default_flow_style=False).rstrip("\n")
        return "\n" + "\n".join(" " * int(m[2]) + line for line in dumped.splitlines())

    out = re.sub(r"[ \t]*" + _TO_YAML.pattern, to_yaml, template)  # `{{-` trims the whitespace before it
    out = _VALUE.sub(lambda m: str(lookup(values, m[1])), out)
    assert "{{" not in out, f"template uses Helm features the test renderer does not know:\n{out}"
    return out


def deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in extra.items():
        out[k] = deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def stack_values(synth: Synth) -> dict[str, Any]:
    for res in synth.resources("compute", "Custom::AWSCDK-EKS-HelmChart").values():
        if res["Properties"]["Release"] == "hyperpod-prerequisites":
            return json.loads(res["Properties"]["Values"])
    raise AssertionError("no hyperpod-prerequisites release")


@pytest.fixture(scope="module")
def rendered(dev: Synth) -> list[dict[str, Any]]:
    values = deep_merge(yaml.safe_load((CHART_DIR / "values.yaml").read_text()), stack_values(dev))
    objects = []
    for template in sorted((CHART_DIR / "templates").glob("*.yaml")):
        objects += [o for o in yaml.safe_load_all(render(template.read_text(), values)) if o]
    return objects


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
    crds = {p.name: yaml.safe_load_all(p.read_text()) for p in (CHART_DIR / "crds").glob("*.yaml")}
    names = {doc["metadata"]["name"] for docs in crds.values() for doc in docs if doc}
    assert names == {"pytorchjobs.kubeflow.org", "mpijobs.kubeflow.org"}


@pytest.mark.skipif(not SHARED_CRDS.exists(), reason="shared/crds is not beside the repository")
def test_crds_match_the_shared_copies_byte_for_byte() -> None:
    pairs = {"kubeflow.org_pytorchjobs.yaml": "pytorchjobs.kubeflow.org-CustomResourceDefinition.yaml",
             "kubeflow.org_mpijobs.yaml": "mpijob-crd.yaml"}
    for ours, shared in pairs.items():
        assert (CHART_DIR / "crds" / ours).read_bytes() == (SHARED_CRDS / shared).read_bytes(), ours


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
