"""NetworkPolicies of the team namespaces (k8s_charts/team_isolation.py), evaluated with NetworkPolicy semantics over
the manifests the compute stack applies: what a team's pods may reach, and who may reach them."""

from __future__ import annotations

import ipaddress

import pytest

from config.kubernetes import RESERVED_NAMESPACES
from k8s_charts.team_isolation import KUBERAY_NAMESPACE, KUBERAY_OPERATOR_LABELS

from .conftest import Synth, config_with
from .test_isolation_matrix import RAY_HEAD_LABELS, Pod, allowed, kube_manifests


@pytest.fixture(scope="module")
def net(request: pytest.FixtureRequest) -> dict:
    synth: Synth = request.getfixturevalue("dev")
    manifests = kube_manifests(synth.templates["compute"])
    subnet = ipaddress.ip_network(synth.config.network.hyperpod.secondary_cidr)
    return {
        "policies": [d for d in manifests if d["kind"] == "NetworkPolicy"],
        "ns_labels": {
            d["metadata"]["name"]: {
                **d["metadata"].get("labels", {}),
                "kubernetes.io/metadata.name": d["metadata"]["name"],
            }
            for d in manifests
            if d["kind"] == "Namespace"
        },
        "ip": lambda n: str(subnet[n]),
        "vpc_ip": str(ipaddress.ip_network(synth.config.network.vpc_cidr)[50]),
        "teams": [t.namespace for t in synth.config.kubernetes.teams],
    }


def reach(net: dict, src: Pod, dst: Pod, port: int) -> bool:
    labels = {**net["ns_labels"]}
    for ns in (src.namespace, dst.namespace):  # namespaces outside the chart (kube-system, kuberay) get their name
        labels.setdefault(ns, {"kubernetes.io/metadata.name": ns})
    return allowed(net["policies"], "egress", src, dst, port, labels) and allowed(
        net["policies"], "ingress", dst, src, port, labels
    )


def pod(namespace: str, ip: str, **labels: str) -> Pod:
    return Pod(namespace, tuple(labels.items()), ip)


def test_every_team_namespace_denies_by_default(net: dict) -> None:
    for ns in net["teams"]:
        deny = [
            p for p in net["policies"] if p["metadata"]["namespace"] == ns and p["metadata"]["name"] == "default-deny"
        ]
        assert len(deny) == 1 and deny[0]["spec"] == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}


def test_kuberay_operator_reaches_only_the_dashboard_of_ray_heads(net: dict) -> None:
    team = net["teams"][0]
    operator = pod(KUBERAY_NAMESPACE, net["ip"](5), **KUBERAY_OPERATOR_LABELS)
    head = pod(team, net["ip"](6), **RAY_HEAD_LABELS)
    worker = pod(team, net["ip"](7), **{"ray.io/node-type": "worker"})
    assert reach(net, operator, head, 8265)
    assert not reach(net, operator, head, 6379)
    assert not reach(net, operator, worker, 8265)
    # another pod in the operator's namespace is not the operator
    assert not reach(net, pod(KUBERAY_NAMESPACE, net["ip"](8), app="other"), head, 8265)


def test_no_other_namespace_reaches_team_pods_metrics_or_dashboard(net: dict) -> None:
    team = net["teams"][0]
    outsider = pod("amazon-cloudwatch", net["ip"](9))
    head = pod(team, net["ip"](6), **RAY_HEAD_LABELS)
    assert not reach(net, outsider, head, 8080)
    assert not reach(net, outsider, head, 8265)


def test_team_pods_reach_dns_pod_identity_and_https_only(net: dict) -> None:
    team = net["teams"][0]
    job = pod(team, net["ip"](10))
    dns = pod("kube-system", net["ip"](11), **{"k8s-app": "kube-dns"})
    assert reach(net, job, dns, 53)
    assert not reach(net, job, pod("kube-system", net["ip"](12), app="metrics-server"), 53)
    assert reach(net, job, pod("node", "169.254.170.23"), 80)  # EKS Pod Identity agent
    assert not reach(net, job, pod("node", "169.254.169.254"), 80)  # instance metadata
    assert reach(net, job, pod("vpc", net["vpc_ip"]), 443)  # MLflow ALB, interface endpoints
    assert reach(net, job, pod("internet", "52.216.0.10"), 443)  # S3 (gateway endpoint), Hugging Face
    assert not reach(net, job, pod("vpc", net["vpc_ip"]), 5432)  # e.g. Aurora
    peer = pod(team, net["ip"](13))
    assert reach(net, job, peer, 29500) and reach(net, job, peer, 6379)  # torchrun, NCCL, Ray inside the team


def test_namespaces_that_may_reach_team_pods_cannot_be_teams() -> None:
    for ns in (KUBERAY_NAMESPACE,):
        assert ns in RESERVED_NAMESPACES
        with pytest.raises(ValueError, match="is a system namespace"):
            config_with("dev", {"kubernetes": {"teams": [{"name": ns}]}})
