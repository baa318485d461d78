"""Node shapes (k8s_charts/node_shapes.py): allocatable per node kind, and every job pod written to dist/<env>/
fits every node kind its placement allows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from config import load_config
from config.compute import GPU_TYPE_BY_FAMILY
from config.instances import instance_specs
from k8s_charts.node_shapes import (
    DAEMONSETS, SYSTEM, VM_MEMORY_OVERHEAD, Resources, fits, kinds_for, kube_reserved, node_kinds, pod_kinds,
    pod_request, pod_request_of, why_not,
)
from k8s_charts.validation import embedded_pod_templates

from .conftest import ROOT, config_with

DEV, PROD = load_config("dev"), load_config("prod")


# The cases of Bottlerocket pluto's own unit tests (bottlerocket-os, sources/api/pluto: kube-reserved).
@pytest.mark.parametrize(("max_pods", "vcpus", "cpu_m", "memory_mib"), [(4, 2, 70, 299), (250, 96, 360, 3005)])
def test_kube_reserved_matches_upstream_cases(max_pods: int, vcpus: int, cpu_m: int, memory_mib: int) -> None:
    assert kube_reserved(vcpus, max_pods) == Resources(cpu_m=cpu_m, memory_mib=memory_mib)


def test_hyperpod_threads_per_core_halves_vcpus() -> None:
    """prod runs ml.p5.48xlarge with threads_per_core 1 (96 vCPUs) and a Karpenter p5 pool (192)."""
    kinds = {k.name: k for k in node_kinds(PROD)}
    group = next(g for g in PROD.compute.hyperpod.instance_groups if g.instance_type == "ml.p5.48xlarge")
    spec = instance_specs()["p5.48xlarge"]
    hyperpod, karpenter = kinds[f"hyperpod/{group.name}"], kinds["karpenter/h100-on-demand/p5.48xlarge"]
    assert hyperpod.capacity.cpu_m == spec.vcpus * group.threads_per_core // 2 * 1000
    assert karpenter.capacity.cpu_m == spec.vcpus * 1000
    two_threads = node_kinds(config_with("prod", {"compute": {"hyperpod": {"instance_groups": [
        {**g, "threads_per_core": 2} for g in yaml.safe_load((ROOT / "config/prod.yaml").read_text())["compute"][
            "hyperpod"]["instance_groups"]]}}}))
    assert next(k for k in two_threads if k.name == hyperpod.name).capacity.cpu_m == spec.vcpus * 1000


def test_allocatable_is_capacity_less_reservations_and_daemonsets() -> None:
    for kind in node_kinds(PROD):
        vcpus = kind.spec.vcpus * kind.threads_per_core // 2
        expected_ds = [d for d in DAEMONSETS if kind.source in d.runs_on and (kind.spec.is_gpu or not d.gpu_nodes_only)]
        assert kind.daemonsets == sum((d.requests for d in expected_ds), Resources())
        assert kind.reserved.memory_mib == 11 * kind.spec.max_pods + 255 + 100
        assert kind.allocatable.cpu_m == vcpus * 1000 - kind.reserved.cpu_m - kind.daemonsets.cpu_m
        assert kind.allocatable.memory_mib == int(kind.spec.memory_gib * 1024 * (1 - VM_MEMORY_OVERHEAD)) \
            - kind.reserved.memory_mib - kind.daemonsets.memory_mib
        assert kind.allocatable.gpus == kind.spec.gpus


def test_health_agent_requests_match_the_chart() -> None:
    """The DaemonSet table must follow the chart that renders the agent."""
    template = (ROOT / "charts/hyperpod-prerequisites/templates/health-monitoring-agent.yaml").read_text()
    requests = re.findall(r"requests:\s*\n\s*cpu:\s*(\S+)\s*\n\s*memory:\s*(\S+)", template)
    agent = next(d for d in DAEMONSETS if d.name == "hyperpod-health-monitoring-agent")
    assert requests and {(f"{agent.requests.cpu_m}m", f"{agent.requests.memory_mib}Mi")} == set(requests)


def test_specs_agree_with_gpu_type_labels() -> None:
    for name, spec in instance_specs().items():
        if spec.is_gpu:
            assert GPU_TYPE_BY_FAMILY[f"ml.{name.split('.')[0]}"] == spec.gpu_type, name


def test_tiers_reach_only_their_node_kinds() -> None:
    for kind in node_kinds(PROD):
        if kind.source == "hyperpod":
            assert kind.tiers == ("production", "development", "research")
        elif kind.source == SYSTEM:
            assert kind.tiers == ()
        elif kind.node_type == "eks-on-demand":
            assert kind.tiers == ("development",)
        else:
            assert kind.tiers == ("research", "experiment")


def test_pod_request_fits_every_kind_and_is_gpu_proportional() -> None:
    kinds = kinds_for(node_kinds(PROD), tier="development", instance_type="p5.48xlarge")
    assert {k.source for k in kinds} == {"hyperpod", "karpenter"}  # reserved and on-demand p5
    whole, half = pod_request(kinds, 8), pod_request(kinds, 4, efa=False)
    assert all(fits(whole, k) for k in kinds) and whole.efa == 32
    assert half.cpu_m * 2 <= whole.cpu_m + 1000 and all(fits(half + half, k) for k in kinds)
    hyperpod = next(k for k in kinds if k.source == "hyperpod")
    assert whole.cpu_m <= hyperpod.allocatable.cpu_m < 96_000  # sized from the 96 vCPUs HyperPod reports


def test_why_not_names_each_shortfall() -> None:
    kind = next(k for k in node_kinds(DEV) if k.source == "hyperpod")
    message = why_not(Resources(cpu_m=163_000, memory_mib=10**6, gpus=8, efa=32), kind)
    assert message and all(word in message for word in ("GPUs 8 > 1", "CPU 163 >", "memory", "EFA 32 > 1"))


def test_old_85_percent_sizing_would_not_fit_hyperpod() -> None:
    """The bug this module fixes: 85% of the EC2 vCPUs (p5: 163) does not fit a threads_per_core 1 node."""
    hyperpod = next(k for k in node_kinds(PROD) if k.instance_type == "ml.p5.48xlarge")
    assert not fits(Resources(cpu_m=163_000, gpus=8), hyperpod)


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_every_job_pod_in_dist_fits_every_node_kind_it_may_land_on(k8s_dist, env: str) -> None:
    kinds = node_kinds(load_config(env))
    checked = 0
    for docs in k8s_dist[env].values():
        for doc in docs:
            for path, template in embedded_pod_templates(doc):
                spec = template["spec"]
                where = f"{doc['kind']} {doc['metadata']['name']} {path}"
                allowed = pod_kinds(kinds, spec)
                assert allowed, f"{where}: no node kind of {env} matches its placement"
                request = pod_request_of(spec)
                for kind in allowed:
                    assert fits(request, kind), (f"{where} requests {request.describe()} but {kind.name} has "
                                                 f"{kind.allocatable.describe()}: {why_not(request, kind)}")
                checked += 1
    assert checked >= 5  # SFT and eval workers, the GRPO head, workers and submitter


def test_pod_kinds_follow_taints_and_affinity() -> None:
    kinds = node_kinds(PROD)
    cpu_pod = {"containers": [{"resources": {"requests": {"cpu": "1", "memory": "4Gi"}}}]}
    assert {k.source for k in pod_kinds(kinds, cpu_pod)} == {SYSTEM}
    gpu_pod = {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
               "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                   {"matchExpressions": [{"key": "node-type", "operator": "In", "values": ["eks-spot"]}]}]}}}}
    assert {k.node_type for k in pod_kinds(kinds, gpu_pod)} == {"eks-spot"}
