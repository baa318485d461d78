"""KEDA, the autoscaler of served models (issue 34): the chart that ships the KEDA release whose ScaledObject CRD llmft
renders against, on the system nodes, with values the chart really has (the vendored kedacore/charts v2.19.0
values.yaml, tests/upstream/SOURCES.md), and an operator identity that may call exactly what the aws-cloudwatch scaler
calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from cdk_constructs.compute.eks_cluster import SYSTEM_NODE_LABEL
from cdk_constructs.compute.keda import (
    KEDA_CHART,
    KEDA_NAMESPACE,
    KEDA_REPOSITORY,
    OPERATOR_SERVICE_ACCOUNT,
    SCALER_ACTIONS,
    helm_values,
)
from config.charts import KEDA_CHART_VERSION
from k8s_charts import serving

from .conftest import ROOT, Synth
from .test_compute import STACK, helm_releases

UPSTREAM = Path(__file__).parent / "upstream" / f"keda-{KEDA_CHART_VERSION}"
CRD = ROOT / "k8s_charts" / "crds" / "keda.sh_scaledobjects.yaml"


def keda_release(synth: Synth) -> dict[str, Any]:
    return helm_releases(synth)["keda"]


def operator_association(synth: Synth) -> tuple[str, dict[str, Any]]:
    ((lid, assoc),) = [
        (lid, r)
        for lid, r in synth.resources(STACK, "AWS::EKS::PodIdentityAssociation").items()
        if r["Properties"]["Namespace"] == KEDA_NAMESPACE
    ]
    return lid, assoc["Properties"]


def role_statements(synth: Synth, role_id: str) -> list[dict[str, Any]]:
    """Every statement of the policies attached to ``role_id`` (inline policies and AWS::IAM::Policy resources)."""
    resources = synth.templates[STACK]["Resources"]
    out = [s for p in resources[role_id]["Properties"].get("Policies", []) for s in p["PolicyDocument"]["Statement"]]
    for res in resources.values():
        if res["Type"] == "AWS::IAM::Policy" and {"Ref": role_id} in res["Properties"].get("Roles", []):
            out += res["Properties"]["PolicyDocument"]["Statement"]
    return out


def _paths(values: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(values, dict) and values:
        return [p for k, v in values.items() for p in _paths(v, (*prefix, k))]
    return [prefix]


def test_the_chart_ships_the_keda_release_whose_crd_llmft_renders_against() -> None:
    chart = yaml.safe_load((UPSTREAM / "Chart.yaml").read_text())
    assert (chart["name"], chart["version"]) == (KEDA_CHART, KEDA_CHART_VERSION)
    assert chart["appVersion"] == serving.KEDA_VERSION
    assert CRD.exists()
    assert f"v{serving.KEDA_VERSION}" in (ROOT / "k8s_charts" / "crds" / "SOURCES.md").read_text()


def test_keda_runs_on_the_system_nodes_with_pinned_requests(env_synth: Synth) -> None:
    release = keda_release(env_synth)
    assert (release["Repository"], release["Chart"], release["Version"]) == (
        KEDA_REPOSITORY,
        KEDA_CHART,
        KEDA_CHART_VERSION,
    )
    assert release["Namespace"] == KEDA_NAMESPACE and release["CreateNamespace"] is True
    values = release["Values"]
    assert values["nodeSelector"] == dict([SYSTEM_NODE_LABEL])
    assert values["priorityClassName"] == "system-cluster-critical"
    assert values["webhooks"]["enabled"] is False
    for component in ("operator", "metricServer"):
        assert set(values["resources"][component]["requests"]) == {"cpu", "memory"}, component
        assert set(values["resources"][component]["limits"]) == {"memory"}, "the chart's CPU limit (1) is kept"
    assert values["serviceAccount"]["operator"]["name"] == OPERATOR_SERVICE_ACCOUNT
    assert not any(v["enabled"] for v in values["prometheus"].values())


def test_every_value_set_is_a_value_of_the_chart() -> None:
    """A misspelt key would be ignored by Helm without a word: each path set must exist in the chart's values.yaml
    (``nodeSelector``/``serviceAccount.operator`` exist with a mapping default)."""
    upstream = yaml.safe_load((UPSTREAM / "values.yaml").read_text())
    for path in _paths(helm_values({"a": "b"})):
        node: Any = upstream
        for i, key in enumerate(path):
            assert isinstance(node, dict) and key in node, f"{'.'.join(path[: i + 1])} is not a keda chart value"
            node = node[key]
            if node == {}:
                break
    upstream_sa = upstream["serviceAccount"]["operator"]["name"]
    assert upstream_sa == OPERATOR_SERVICE_ACCOUNT, "the association names the chart's own service account"
    assert upstream["webhooks"]["failurePolicy"] == "Ignore", "the webhook left out would guarantee nothing"


def test_the_operator_may_read_metric_data_and_nothing_else(env_synth: Synth) -> None:
    lid, assoc = operator_association(env_synth)
    assert assoc["ServiceAccount"] == OPERATOR_SERVICE_ACCOUNT
    role_id = assoc["RoleArn"]["Fn::GetAtt"][0]
    role = env_synth.templates[STACK]["Resources"][role_id]["Properties"]
    (trust,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    tags = trust["Condition"]["StringEquals"]
    assert (tags["aws:RequestTag/kubernetes-namespace"], tags["aws:RequestTag/kubernetes-service-account"]) == (
        KEDA_NAMESPACE,
        OPERATOR_SERVICE_ACCOUNT,
    )
    assert "ManagedPolicyArns" not in role
    statements = role_statements(env_synth, role_id)
    actions = {a for s in statements for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}
    assert actions == set(SCALER_ACTIONS) == {"cloudwatch:GetMetricData"}
    assert all(s["Effect"] == "Allow" and s["Resource"] == "*" for s in statements)
    # the operator's first pod gets the credentials: the association exists before the release
    assert lid in keda_release(env_synth)["DependsOn"]


def test_keda_comes_after_the_pod_identity_agent_and_before_custom_resources(env_synth: Synth) -> None:
    release = keda_release(env_synth)
    addons = {r["Properties"]["AddonName"]: lid for lid, r in env_synth.resources(STACK, "AWS::EKS::Addon").items()}
    assert addons["eks-pod-identity-agent"] in release["DependsOn"]
    compute = env_synth.stacks[STACK]
    assert any(
        getattr(d, "node", None) is not None and d.node.path.endswith("Keda/Release") for d in compute.crd_dependencies
    ), "ScaledObjects synced by Argo CD need KEDA's CRDs first"
