"""Node shapes (k8s_charts/node_shapes.py): allocatable per node kind, and every job pod written to dist/<env>/
fits every node kind its placement allows."""

from __future__ import annotations

import re

import pytest
import yaml

from config import load_config
from config.compute import GPU_TYPE_BY_FAMILY
from config.instances import instance_specs
from k8s_charts.node_shapes import (
    CPU_POOL,
    DAEMONSETS,
    SYSTEM,
    VM_MEMORY_OVERHEAD,
    Resources,
    fits,
    kinds_for,
    kube_reserved,
    node_kinds,
    pod_kinds,
    pod_request,
    pod_request_of,
    why_not,
)
from k8s_charts.validation import embedded_pod_templates

# module level: its tests join the `synth` xdist group
from .conftest import ENVIRONMENTS, ROOT, config_with, synthesize

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
    pool = next(p for p in PROD.kubernetes.gpu_node_pools if "p5.48xlarge" in p.instance_types)
    hyperpod, karpenter = kinds[f"hyperpod/{group.name}"], kinds[f"karpenter/{pool.name}/p5.48xlarge"]
    assert hyperpod.capacity.cpu_m == spec.vcpus * group.threads_per_core // 2 * 1000
    assert karpenter.capacity.cpu_m == spec.vcpus * 1000
    two_threads = node_kinds(
        config_with(
            "prod",
            {
                "compute": {
                    "hyperpod": {
                        "instance_groups": [
                            {**g, "threads_per_core": 2}
                            for g in yaml.safe_load((ROOT / "config/prod.yaml").read_text())["compute"]["hyperpod"][
                                "instance_groups"
                            ]
                        ]
                    }
                }
            },
        )
    )
    assert next(k for k in two_threads if k.name == hyperpod.name).capacity.cpu_m == spec.vcpus * 1000


def test_allocatable_is_capacity_less_reservations_and_daemonsets() -> None:
    for kind in node_kinds(PROD):
        vcpus = kind.spec.vcpus * kind.threads_per_core // 2
        expected_ds = [d for d in DAEMONSETS if kind.source in d.runs_on and (kind.spec.is_gpu or not d.gpu_nodes_only)]
        assert kind.daemonsets == sum((d.requests for d in expected_ds), Resources())
        assert kind.reserved.memory_mib == 11 * kind.spec.max_pods + 255 + 100
        assert kind.allocatable.cpu_m == vcpus * 1000 - kind.reserved.cpu_m - kind.daemonsets.cpu_m
        assert (
            kind.allocatable.memory_mib
            == int(kind.spec.memory_gib * 1024 * (1 - VM_MEMORY_OVERHEAD))
            - kind.reserved.memory_mib
            - kind.daemonsets.memory_mib
        )
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
        elif kind.source in (SYSTEM, CPU_POOL):
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


@pytest.mark.parametrize("env", ENVIRONMENTS)
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
                    assert fits(request, kind), (
                        f"{where} requests {request.describe()} but {kind.name} has "
                        f"{kind.allocatable.describe()}: {why_not(request, kind)}"
                    )
                checked += 1
    assert checked >= 5  # SFT and eval workers, the GRPO head, workers and submitter


def test_pod_kinds_follow_taints_and_affinity() -> None:
    kinds = node_kinds(PROD)
    cpu_pod = {"containers": [{"resources": {"requests": {"cpu": "1", "memory": "4Gi"}}}]}
    assert {k.source for k in pod_kinds(kinds, cpu_pod)} == {SYSTEM}
    cpu_job_pod = {
        **cpu_pod,
        "tolerations": [{"key": "llmft.io/cpu-jobs", "operator": "Equal", "value": "true", "effect": "NoSchedule"}],
    }
    assert {k.source for k in pod_kinds(kinds, cpu_job_pod)} == {SYSTEM, CPU_POOL}
    gpu_pod = {
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "node-type", "operator": "In", "values": ["eks-spot"]}]}
                    ]
                }
            }
        },
    }
    assert {k.node_type for k in pod_kinds(kinds, gpu_pod)} == {"eks-spot"}


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_cpu_pool_kinds_follow_the_config(env: str) -> None:
    """One kind per CPU pool instance type, in the HyperPod AZ, behind the pool's taint, as many nodes as the vCPU
    limit allows; CPU job pods (kinds_for gpu=False) may land on them and on the system nodes."""
    config = load_config(env)
    pool = config.kubernetes.cpu_node_pool
    kinds = node_kinds(config)
    cpu = [k for k in kinds if k.source == CPU_POOL]
    assert [k.instance_type for k in cpu] == list(pool.instance_types)
    for kind in cpu:
        assert kind.zone == config.network.hyperpod.availability_zone
        assert kind.taints == (("llmft.io/cpu-jobs", "true", "NoSchedule"),)
        assert kind.labels["llmft.io/node-role"] == "cpu-jobs" and not kind.spec.is_gpu
        assert kind.max_nodes == pool.cpu_limit // kind.spec.vcpus >= 1
    assert set(kinds_for(kinds, gpu=False)) == {k for k in kinds if k.source in (SYSTEM, CPU_POOL)}


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_cpu_pool_nodes_hold_two_of_the_largest_cpu_job_pod(k8s_dist, env: str) -> None:
    """Sizes with room: every CPU pool type holds at least two of the largest CPU job pod written to dist (a head
    and its submitter, or two llmft steps, share a node)."""
    kinds = [k for k in node_kinds(load_config(env)) if k.source == CPU_POOL]
    requests = [
        pod_request_of(t["spec"])
        for docs in k8s_dist[env].values()
        for doc in docs
        for _, t in embedded_pod_templates(doc)
        if CPU_POOL in {k.source for k in pod_kinds(kinds, t["spec"])}
    ]
    assert requests
    largest = Resources(max(r.cpu_m for r in requests), max(r.memory_mib for r in requests))
    for kind in kinds:
        assert fits(largest + largest, kind), f"{kind.name}: {why_not(largest + largest, kind)}"


# ---- the system node group has room for the controllers pinned to it ----------------------------------------------
# The add-ons' pods come from their declarations (AddOn.system_pods, which cite the chart defaults they rely on).
CLOUDWATCH_AGENT_REQUESTS = Resources(cpu_m=250, memory_mib=128)
"""aws-observability/helm-charts amazon-cloudwatch-observability 6.4.0 (release commit 93a934e) values.yaml:751-754,
agent.resources.requests: the default of every agent the add-on runs (add-on v6.4.0-eksbuild.1)."""
# Deployments nobody pins that still can only run on the system nodes: every other node kind is tainted (HyperPod
# `dedicated=hyperpod`, Karpenter GPU pools `nvidia.com/gpu`, the CPU job pool its own taint) and these tolerate none of
# those taints.
SYSTEM_BOUND_PODS = [
    # EKS add-on coredns: 2 replicas; requests as kubernetes cluster/addons/dns/coredns/coredns.yaml.base (100m, 70Mi);
    # tolerations CriticalAddonsOnly and the control-plane taint only
    *[("coredns", Resources(cpu_m=100, memory_mib=70))] * 2,
    # the CloudWatch add-on's operator: chart 6.4.0 values.yaml manager.resources.requests (100m, 64Mi);
    # `manager.tolerations: []` overrides the chart's root tolerations (templates/_helpers.tpl common.tolerations)
    ("amazon-cloudwatch-observability-controller-manager", Resources(cpu_m=100, memory_mib=64)),
]


def _requests(resources: dict | None, default: Resources | None = None) -> Resources:
    from cdk_constructs.compute.addon import requests_of

    return requests_of(resources, default)


def _mentions(value, selector: dict) -> bool:
    """Whether ``value`` holds a nodeSelector-like map with every label of ``selector`` (e.g. the system nodes',
    with or without ``kubernetes.io/os: linux``)."""
    if isinstance(value, dict):
        pinned = all(value.get(k) == v for k, v in selector.items())
        return pinned or any(_mentions(v, selector) for v in value.values())
    if isinstance(value, list):
        return any(_mentions(v, selector) for v in value)
    return False


def pinned_controller_pods(env: str, tmp_path, overrides: dict | None = None) -> list[tuple[str, Resources]]:
    """One (name, requests) per pod of every Deployment the synthesized stacks pin to the system nodes (nodeSelector
    `llmft.io/node-role: system`): each registered add-on's ``system_pods`` from its Helm values as synthesized, our
    own charts (assets) as helm renders them."""
    import json

    from cdk_constructs.compute.addon import registered
    from cdk_constructs.compute.eks_cluster import SYSTEM_NODE_LABEL as EKS_SYSTEM_LABEL

    from .test_compute import helm_releases

    synth = synthesize(env, overrides)
    selector = dict([EKS_SYSTEM_LABEL])
    releases = {name: r["Values"] for name, r in helm_releases(synth).items()}
    pods = addon_system_pods(registered(synth.config), releases, selector, tmp_path)

    # the CloudWatch add-on's Prometheus scraper (a Deployment pinned to the system nodes)
    for template_ in synth.templates.values():
        for res in template_.get("Resources", {}).values():
            if res["Type"] == "AWS::EKS::Addon" and "ConfigurationValues" in res["Properties"]:
                configuration = res["Properties"]["ConfigurationValues"]
                if not isinstance(configuration, str):
                    continue
                for agent in json.loads(configuration).get("agents", []):
                    if agent.get("mode") == "deployment" and agent.get("nodeSelector") == selector:
                        pods += [
                            (agent["name"], _requests(agent.get("resources"), CLOUDWATCH_AGENT_REQUESTS))
                        ] * agent.get("replicas", 1)
    return pods


def addon_system_pods(
    addons: list, releases: dict[str, dict], selector: dict[str, str], tmp_path
) -> list[tuple[str, Resources]]:
    """The system-node pods of ``addons`` (registered AddOns), from their releases' values (release name ->
    values); a release pinned to the system nodes whose add-on declares no pods fails, naming it."""
    from .test_compute_prerequisites import objects, template

    pods: list[tuple[str, Resources]] = []
    counted: set[str] = set()
    for addon in addons:
        values = releases.get(addon.release)
        if values is None:
            continue
        if addon.repository is None:  # our own chart: rendered by the real helm with the values the stack passes
            proc = template(values, tmp_path)
            assert proc.returncode == 0, proc.stderr
            for obj in objects(proc.stdout):
                spec = obj.get("spec", {}).get("template", {}).get("spec", {})
                if obj["kind"] == "Deployment" and spec.get("nodeSelector") == selector:
                    request = sum((_requests(c.get("resources")) for c in spec["containers"]), Resources())
                    pods += [(obj["metadata"]["name"], request)] * obj["spec"].get("replicas", 1)
            counted.add(addon.release)
        elif addon.system_pods is not None:
            assert _mentions(values, selector), f"{addon.name} declares system pods but its values do not pin them"
            pods += [(p.name, p.requests) for p in addon.system_pods(values) for _ in range(p.replicas)]
            counted.add(addon.release)
    unhandled = [name for name, values in releases.items() if name not in counted and _mentions(values, selector)]
    assert not unhandled, (
        f"Helm releases pinned to the system nodes whose add-on declares no system_pods: {unhandled} (give the "
        f"AddOn its system_pods, docs/extending.md)"
    )
    return pods


def pack(pods: list[tuple[str, Resources]], allocatable: Resources, nodes: int) -> list[list[str]] | None:
    """Largest pods first (CPU, then memory), each onto the fitting node with the most free CPU - the spreading the
    default scheduler's NodeResourcesFit `LeastAllocated` scoring does - into ``nodes`` nodes of ``allocatable``, or
    None. Replicas of one Deployment go to different nodes: Karpenter's chart requires it (v1.14.1
    charts/karpenter/values.yaml:100-102, podAntiAffinity on kubernetes.io/hostname), Kueue's spread does with 2
    replicas (cdk_constructs/compute/kueue.py SPREAD_BY_NODE, maxSkew 1), the other controllers run one replica."""
    free = [allocatable] * nodes
    placed: list[list[str]] = [[] for _ in range(nodes)]
    for name, request in sorted(pods, key=lambda p: (p[1].cpu_m, p[1].memory_mib), reverse=True):
        fitting = [i for i, f in enumerate(free) if request.within(f) and name not in placed[i]]
        if not fitting:
            return None
        target = max(fitting, key=lambda i: (free[i].cpu_m, free[i].memory_mib))
        free[target] = free[target] - request
        placed[target].append(name)
    return placed


@pytest.mark.parametrize(
    ("env", "overrides"),
    [*((env, None) for env in ENVIRONMENTS), ("dev", {"pipelines": {"enabled": True}})],
    ids=[*ENVIRONMENTS, "dev-pipelines"],
)
def test_system_nodes_have_room_for_every_pinned_controller(env: str, overrides: dict | None, tmp_path) -> None:
    """The fixed system node group (min_size nodes of its smallest type, allocatable after kubelet reservations and
    DaemonSets) holds every controller Deployment pinned to it (each registered add-on's declared pods; with the
    opt-in add-ons too). CPU job pods do not count: when the system nodes are full they go to the Karpenter CPU
    pool."""
    config = config_with(env, overrides)
    pods = pinned_controller_pods(env, tmp_path, overrides) + SYSTEM_BOUND_PODS
    names = {name for name, _ in pods}
    assert {"training-operator", "mpi-operator"} <= names, names  # our chart, as helm renders it
    system = [k for k in node_kinds(config) if k.source == SYSTEM]
    smallest = min(system, key=lambda k: (k.allocatable.cpu_m, k.allocatable.memory_mib))
    nodes = config.compute.system_nodes.min_size
    total = sum((r for _, r in pods), Resources())
    placed = pack(pods, smallest.allocatable, nodes)
    assert placed is not None, (
        f"{env}: {len(pods)} controller pods requesting {total.describe()} do not fit "
        f"{nodes} x {smallest.name} ({smallest.allocatable.describe()} each): "
        f"{sorted((n, r.describe()) for n, r in pods)}"
    )
