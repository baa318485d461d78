"""Node shapes: every kind of node a pod can land on, and what a pod may request there.

A *node kind* is one HyperPod instance group, one (Karpenter GPU pool, instance type) pair, one (Karpenter CPU
job pool, instance type) pair, or the system node group. For each, :func:`node_kinds` derives from the config and
config/data/instance_specs.yaml:

* **capacity** as the node reports it: vCPUs (HyperPod groups: EC2 vCPUs x threads_per_core / 2, so a p5 with
  threads_per_core 1 reports 96, not 192), memory less the VM/kernel overhead, GPUs, EFA interfaces;
* **reserved** by the kubelet: kube-reserved CPU and memory from the EKS-optimized AMI / Bottlerocket formulas
  plus the hard eviction threshold;
* **daemonsets**: the requests of the DaemonSets that run on that kind (:data:`DAEMONSETS`);
* **allocatable** = capacity - reserved - daemonsets: what job pods can take;
* the **tiers** whose pods may land there, its labels, zone and how many such nodes may exist.

Job builders size pods with :func:`pod_request` (a GPU-proportional share of the allocatable); the CLI preflight,
Kueue flavors and the examples use :func:`kinds_for` and :func:`fits` / :func:`why_not`.

Formulas (cited where they are implemented):

* kube-reserved memory = 11 MiB x max pods + 255 MiB; kube-reserved CPU = 6% of the first core, 1% of the next
  two, 0.5% of the next two, 0.25% of the rest, + 40m above 110 pods, rounded to 10m: Bottlerocket's `pluto`
  (bottlerocket-os, sources/api/pluto: `memory_mebibytes_to_reserve`, `cpu_millicores_to_reserve`), the same
  formula the EKS-optimized AMI (awslabs/amazon-eks-ami, nodeadm kubelet config) and Karpenter use (Bottlerocket's
  variant reserves up to 50m more CPU; we take it, to stay on the safe side).
* max pods: ENI-limited, from awslabs/amazon-eks-ami templates/shared/runtime/eni-max-pods.txt (in the specs file).
* eviction: kubelet's default hard threshold `memory.available<100Mi` (Kubernetes "Node-pressure Eviction").
* memory overhead: the nominal EC2 memory is not all visible to the OS; Karpenter estimates 7.5%
  (`VM_MEMORY_OVERHEAD_PERCENT`, default 0.075, Karpenter settings reference), which we use for every kind.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from config import EnvironmentConfig
from config.instances import InstanceSpec, instance_spec
from k8s_charts.tiers import (
    CPU_JOBS_ROLE,
    CPU_JOBS_TAINT,
    EFA_RESOURCE,
    GPU_RESOURCE,
    GPU_TYPE_LABEL,
    HYPERPOD,
    INSTANCE_TYPE_LABEL,
    JOB_TIERS,
    NODE_ROLE_LABEL,
    NODE_TYPE_LABEL,
    ZONE_LABEL,
)

SYSTEM = "system"
"""`source` and `node_type` of the system node group (controllers; small CPU pods such as Ray heads)."""

CPU_POOL = "karpenter-cpu"
"""`source` of the Karpenter CPU job pool (k8s_charts/karpenter.py CpuCapacityChart); its `node_type` is
`cpu-jobs`."""

SYSTEM_NODE_LABEL = (NODE_ROLE_LABEL, "system")  # cdk_constructs/compute/eks_cluster.py SYSTEM_NODE_LABEL
HYPERPOD_HEALTH_LABEL = "sagemaker.amazonaws.com/node-health-status"

EVICTION_HARD_MEMORY_MIB = 100
VM_MEMORY_OVERHEAD = 0.075


@dataclass(frozen=True, order=True)
class Resources:
    """An amount of node resources: CPU in millicores, memory in MiB, GPUs, EFA interfaces."""

    cpu_m: int = 0
    memory_mib: int = 0
    gpus: int = 0
    efa: int = 0

    def __add__(self, other: Resources) -> Resources:
        return Resources(
            self.cpu_m + other.cpu_m, self.memory_mib + other.memory_mib, self.gpus + other.gpus, self.efa + other.efa
        )

    def __sub__(self, other: Resources) -> Resources:
        return Resources(
            self.cpu_m - other.cpu_m, self.memory_mib - other.memory_mib, self.gpus - other.gpus, self.efa - other.efa
        )

    def within(self, other: Resources) -> bool:
        """Every amount is at most ``other``'s."""
        return (
            self.cpu_m <= other.cpu_m
            and self.memory_mib <= other.memory_mib
            and self.gpus <= other.gpus
            and self.efa <= other.efa
        )

    def describe(self) -> str:
        parts = [f"{self.cpu_m / 1000:g} CPU", f"{self.memory_mib / 1024:.1f} GiB"]
        if self.gpus:
            parts.append(f"{self.gpus} GPU")
        if self.efa:
            parts.append(f"{self.efa} EFA")
        return ", ".join(parts)


@dataclass(frozen=True)
class DaemonSet:
    """Requests of one DaemonSet per node, and the node sources it runs on."""

    name: str
    runs_on: tuple[str, ...]  # node sources: "hyperpod", "karpenter", "karpenter-cpu", "system"
    requests: Resources
    source: str
    gpu_nodes_only: bool = False  # runs only on nodes with accelerators


DAEMONSETS: tuple[DaemonSet, ...] = (
    DaemonSet(
        "aws-node",
        ("hyperpod", "karpenter", CPU_POOL, SYSTEM),
        Resources(cpu_m=50),
        "EKS vpc-cni add-on DaemonSet: containers aws-node and aws-eks-nodeagent request cpu 25m each",
    ),
    DaemonSet(
        "kube-proxy",
        ("hyperpod", "karpenter", CPU_POOL, SYSTEM),
        Resources(cpu_m=100),
        "EKS kube-proxy add-on DaemonSet: requests cpu 100m",
    ),
    DaemonSet(
        "hyperpod-health-monitoring-agent",
        ("hyperpod",),
        Resources(cpu_m=500, memory_mib=512),
        "charts/hyperpod-prerequisites/templates/health-monitoring-agent.yaml (requests 500m / 512Mi)",
        gpu_nodes_only=True,
    ),
    # The observability add-on (amazon-cloudwatch-observability v6.4.0-eksbuild.1 = chart 6.4.0 values.yaml; its root
    # tolerations `[{operator: Exists}]` put these on every node, cdk_constructs/observability/container_insights.py)
    DaemonSet(
        "cloudwatch-agent",
        ("hyperpod", "karpenter", CPU_POOL, SYSTEM),
        Resources(cpu_m=250, memory_mib=128),
        "chart 6.4.0 values.yaml agent.resources.requests 250m / 128Mi",
    ),
    DaemonSet(
        "fluent-bit",
        ("hyperpod", "karpenter", CPU_POOL, SYSTEM),
        Resources(cpu_m=50, memory_mib=25),
        "chart 6.4.0 values.yaml containerLogs.fluentBit.resources.requests 50m / 25Mi",
    ),
    DaemonSet(
        "dcgm-exporter",
        ("hyperpod", "karpenter"),
        Resources(cpu_m=250, memory_mib=128),
        "chart 6.4.0 values.yaml dcgmExporter.resources.requests 250m / 128Mi (NVIDIA GPU nodes)",
        gpu_nodes_only=True,
    ),
    # Secrets Store CSI driver 1.6.0 (charts/secrets-store-csi-driver/values.yaml linux.driver 50m/100Mi, registrar
    # 10m/20Mi, livenessProbe 10m/20Mi) and the AWS provider chart 3.1.1 (values.yaml resources 50m/100Mi), on every
    # node a team pod can use (cdk_constructs/compute/secrets_store_csi_driver.py)
    DaemonSet(
        "secrets-store-csi-driver",
        ("hyperpod", "karpenter", CPU_POOL, SYSTEM),
        Resources(cpu_m=70, memory_mib=140),
        "driver chart 1.6.0 values.yaml linux.{driver,registrar,livenessProbe}",
    ),
    DaemonSet(
        "secrets-store-csi-driver-provider-aws",
        ("hyperpod", "karpenter", CPU_POOL, SYSTEM),
        Resources(cpu_m=50, memory_mib=100),
        "provider chart 3.1.1 values.yaml resources.requests 50m / 100Mi",
    ),
    DaemonSet(
        "add-on agents without pinned requests",
        ("hyperpod", "karpenter", CPU_POOL, SYSTEM),
        Resources(cpu_m=250, memory_mib=512),
        "allowance for eks-pod-identity-agent, the FSx CSI node plugin and the NVIDIA/EFA device plugins, "
        "whose requests are not pinned in this repository",
    ),
)


def kube_reserved(vcpus: int, max_pods: int) -> Resources:
    """kube-reserved CPU and memory of a node with ``vcpus`` reported CPUs (see the module docstring)."""
    tenth_m = 0  # tenths of millicores, as pluto counts them
    for cpu in range(vcpus):
        tenth_m += 600 if cpu == 0 else 100 if cpu in (1, 2) else 50 if cpu in (3, 4) else 25
    if max_pods > 110:
        tenth_m += 400
    cpu_m = round(tenth_m / 100) * 10
    return Resources(cpu_m=cpu_m, memory_mib=11 * max_pods + 255)


@dataclass(frozen=True)
class NodeKind:
    """One kind of node. ``instance_type`` is the value of the node's `node.kubernetes.io/instance-type` label
    (`ml.` names for HyperPod)."""

    name: str
    source: str  # "hyperpod", "karpenter", "karpenter-cpu" or "system"
    node_type: str  # value of the `node-type` label (system: "system", CPU pool: "cpu-jobs")
    instance_type: str
    spec: InstanceSpec = field(repr=False)
    threads_per_core: int
    capacity: Resources
    reserved: Resources
    daemonsets: Resources
    tiers: tuple[str, ...]
    gpu_type: str
    zone: str | None
    max_nodes: int | None  # HyperPod: the group's count; Karpenter: gpu_limit // GPUs (CPU pool:
    # cpu_limit // vCPUs); system: max_size
    weight: int = 0  # Karpenter GPU pool: its NodePool `spec.weight` (higher is tried first;
    # no weight counts as 0, karpenter.sh_nodepools.yaml); others: 0

    @property
    def allocatable(self) -> Resources:
        """What job pods can request on one node of this kind."""
        return self.capacity - self.reserved - self.daemonsets

    @property
    def ec2_type(self) -> str:
        return self.instance_type.removeprefix("ml.")

    @property
    def labels(self) -> dict[str, str]:
        """Labels every node of this kind carries (that pods select on). Zone: absent when the kind may be in
        any AZ."""
        labels = {INSTANCE_TYPE_LABEL: self.instance_type}
        if self.source == SYSTEM:
            labels[SYSTEM_NODE_LABEL[0]] = SYSTEM_NODE_LABEL[1]
        elif self.source == CPU_POOL:
            labels[NODE_ROLE_LABEL] = CPU_JOBS_ROLE
        else:
            labels.update({NODE_TYPE_LABEL: self.node_type, GPU_TYPE_LABEL: self.gpu_type})
        if self.source == "hyperpod":
            labels[HYPERPOD_HEALTH_LABEL] = "Schedulable"  # set by HyperPod on healthy nodes
        if self.zone:
            labels[ZONE_LABEL] = self.zone
        return labels

    @property
    def taints(self) -> tuple[tuple[str, str, str], ...]:
        """(key, value, effect) of the NoSchedule taints of this kind (cdk_constructs/compute/hyperpod_cluster.py,
        k8s_charts/karpenter.py)."""
        if self.source == "hyperpod":
            return (("dedicated", HYPERPOD, "NoSchedule"),)
        if self.source == "karpenter":
            return ((GPU_RESOURCE, "true", "NoSchedule"),)
        if self.source == CPU_POOL:
            return (CPU_JOBS_TAINT,)
        return ()


def _kind(
    *,
    name: str,
    source: str,
    node_type: str,
    instance_type: str,
    spec: InstanceSpec,
    threads_per_core: int,
    efa: int,
    tiers: tuple[str, ...],
    gpu_type: str,
    zone: str | None,
    max_nodes: int | None,
    weight: int = 0,
) -> NodeKind:
    vcpus = spec.vcpus * threads_per_core // 2
    capacity = Resources(
        cpu_m=vcpus * 1000,
        memory_mib=math.floor(spec.memory_gib * 1024 * (1 - VM_MEMORY_OVERHEAD)),
        gpus=spec.gpus,
        efa=efa,
    )
    reserved = kube_reserved(vcpus, spec.max_pods) + Resources(memory_mib=EVICTION_HARD_MEMORY_MIB)
    daemonsets = Resources()
    for ds in DAEMONSETS:
        if source in ds.runs_on and (spec.is_gpu or not ds.gpu_nodes_only):
            daemonsets = daemonsets + ds.requests
    return NodeKind(
        name=name,
        source=source,
        node_type=node_type,
        instance_type=instance_type,
        spec=spec,
        threads_per_core=threads_per_core,
        capacity=capacity,
        reserved=reserved,
        daemonsets=daemonsets,
        tiers=tiers,
        gpu_type=gpu_type,
        zone=zone,
        max_nodes=max_nodes,
        weight=weight,
    )


def _tiers_on(node_type: str) -> tuple[str, ...]:
    return tuple(t.name for t in JOB_TIERS.values() if node_type in t.node_types)


def node_kinds(config: EnvironmentConfig) -> tuple[NodeKind, ...]:
    """Every node kind of the environment: HyperPod groups, (Karpenter pool, instance type) pairs (GPU pools and the
    CPU job pool), system nodes."""
    kinds: list[NodeKind] = []
    hyperpod_az = config.network.hyperpod.availability_zone
    for group in config.compute.hyperpod.instance_groups:
        spec = instance_spec(f"compute.hyperpod.instance_groups[{group.name}].instance_type", group.instance_type)
        kinds.append(
            _kind(
                name=f"hyperpod/{group.name}",
                source="hyperpod",
                node_type=HYPERPOD,
                instance_type=group.instance_type,
                spec=spec,
                threads_per_core=group.threads_per_core,
                efa=spec.efa_interfaces,
                tiers=_tiers_on(HYPERPOD),
                gpu_type=group.node_gpu_type,
                zone=hyperpod_az,
                max_nodes=group.count,
            )
        )
    for pool in config.kubernetes.gpu_node_pools:
        for itype in pool.instance_types:
            spec = instance_spec(f"kubernetes.gpu_node_pools[{pool.name}].instance_types", itype)
            kinds.append(
                _kind(
                    name=f"karpenter/{pool.name}/{itype}",
                    source="karpenter",
                    node_type=pool.node_type,
                    instance_type=itype,
                    spec=spec,
                    threads_per_core=2,
                    efa=spec.efa_interfaces if pool.efa else 0,
                    tiers=_tiers_on(pool.node_type),
                    gpu_type=pool.gpu_type,
                    zone=hyperpod_az if pool.efa else None,
                    max_nodes=pool.gpu_limit // spec.gpus,
                    weight=pool.weight,
                )
            )
    cpu_pool = config.kubernetes.cpu_node_pool
    for itype in cpu_pool.instance_types:
        spec = instance_spec("kubernetes.cpu_node_pool.instance_types", itype)
        kinds.append(
            _kind(
                name=f"karpenter/{cpu_pool.name}/{itype}",
                source=CPU_POOL,
                node_type=CPU_JOBS_ROLE,
                instance_type=itype,
                spec=spec,
                threads_per_core=2,
                efa=0,
                tiers=(),
                gpu_type="none",
                zone=hyperpod_az,
                max_nodes=cpu_pool.cpu_limit // spec.vcpus,
            )
        )
    system = config.compute.system_nodes
    for itype in system.instance_types:
        spec = instance_spec("compute.system_nodes.instance_types", itype)
        kinds.append(
            _kind(
                name=f"system/{itype}",
                source=SYSTEM,
                node_type=SYSTEM,
                instance_type=itype,
                spec=spec,
                threads_per_core=2,
                efa=0,
                tiers=(),
                gpu_type="none",
                zone=None,
                max_nodes=system.max_size,
            )
        )
    return tuple(kinds)


def kinds_for(
    kinds: Iterable[NodeKind],
    *,
    tier: str | None = None,
    instance_type: str | None = None,
    gpu_type: str | None = None,
    gpu: bool = True,
) -> tuple[NodeKind, ...]:
    """The kinds a pod may land on: GPU pods (``gpu``) of ``tier`` go to the tier's GPU kinds, optionally narrowed
    to one instance type (EC2 or `ml.` name) or GPU type; CPU job pods (no GPU toleration, the CPU pool's) go to the
    system kinds and the CPU pool's."""
    out = []
    for kind in kinds:
        if not gpu:
            if kind.source in (SYSTEM, CPU_POOL):
                out.append(kind)
            continue
        if not kind.spec.is_gpu or (tier is not None and tier not in kind.tiers):
            continue
        if instance_type is not None and kind.ec2_type != instance_type.removeprefix("ml."):
            continue
        if gpu_type is not None and kind.gpu_type != gpu_type:
            continue
        out.append(kind)
    return tuple(out)


def why_not(request: Resources, kind: NodeKind) -> str | None:
    """None if ``request`` fits one node of ``kind``, else what does not fit, e.g. 'CPU 163 > 93.9'."""
    alloc = kind.allocatable
    misses = []
    if request.gpus > alloc.gpus:
        misses.append(f"GPUs {request.gpus} > {alloc.gpus}")
    if request.efa > alloc.efa:
        misses.append(f"EFA {request.efa} > {alloc.efa}")
    if request.cpu_m > alloc.cpu_m:
        misses.append(f"CPU {request.cpu_m / 1000:g} > {alloc.cpu_m / 1000:g}")
    if request.memory_mib > alloc.memory_mib:
        misses.append(f"memory {request.memory_mib / 1024:.1f}Gi > {alloc.memory_mib / 1024:.1f}Gi")
    return "; ".join(misses) or None


def fits(request: Resources, kind: NodeKind) -> bool:
    """Whether a pod requesting ``request`` fits one (empty) node of ``kind``."""
    return why_not(request, kind) is None


def pod_request(kinds: Sequence[NodeKind], gpus: int, *, efa: bool = True) -> Resources:
    """The largest request a pod with ``gpus`` GPUs fits on every one of ``kinds``: a GPU-proportional share of
    the smallest allocatable, CPU in whole cores and memory in whole GiB (so `gpus` pods per node fit side by
    side). ``efa``: also request every EFA interface of the kind (whole-node pods only)."""
    if not kinds:
        raise ValueError("no node kind to size the pod for")
    requests = []
    for kind in kinds:
        alloc = kind.allocatable
        if gpus > alloc.gpus or gpus < 1:
            raise ValueError(f"{gpus} GPUs per pod do not fit {kind.name} ({kind.instance_type}, {alloc.gpus} GPUs)")
        share = gpus / alloc.gpus
        requests.append(
            Resources(
                cpu_m=math.floor(alloc.cpu_m * share / 1000) * 1000,
                memory_mib=math.floor(alloc.memory_mib * share / 1024) * 1024,
                gpus=gpus,
                efa=alloc.efa if efa and gpus == alloc.gpus else 0,
            )
        )
    smallest = requests[0]
    for r in requests[1:]:
        smallest = Resources(
            min(smallest.cpu_m, r.cpu_m), min(smallest.memory_mib, r.memory_mib), gpus, min(smallest.efa, r.efa)
        )
    return smallest


# ---- manifests: which kinds a rendered pod may land on, and what it requests ---------------------------------------
_UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}


def parse_quantity(value: str | int | float, *, cpu: bool) -> int:
    """A Kubernetes quantity as millicores (``cpu``) or MiB (memory), rounded up."""
    text = str(value)
    if cpu:
        return math.ceil(float(text[:-1])) if text.endswith("m") else math.ceil(float(text) * 1000)
    for suffix, factor in _UNITS.items():
        if text.endswith(suffix):
            return math.ceil(float(text[: -len(suffix)]) * factor / 2**20)
    return math.ceil(float(text) / 2**20)


def pod_request_of(pod_spec: dict) -> Resources:
    """The effective request of a rendered pod spec: sum over containers, at least the largest init container."""

    def one(container: dict) -> Resources:
        req = {**container.get("resources", {}).get("limits", {}), **container.get("resources", {}).get("requests", {})}
        return Resources(
            cpu_m=parse_quantity(req["cpu"], cpu=True) if "cpu" in req else 0,
            memory_mib=parse_quantity(req["memory"], cpu=False) if "memory" in req else 0,
            gpus=int(req.get(GPU_RESOURCE, 0)),
            efa=int(req.get(EFA_RESOURCE, 0)),
        )

    total = Resources()
    for c in pod_spec.get("containers", []):
        total = total + one(c)
    for c in pod_spec.get("initContainers", []):
        r = one(c)
        total = Resources(
            max(total.cpu_m, r.cpu_m),
            max(total.memory_mib, r.memory_mib),
            max(total.gpus, r.gpus),
            max(total.efa, r.efa),
        )
    return total


def _tolerates(tolerations: list[dict], taint: tuple[str, str, str]) -> bool:
    key, value, effect = taint
    for t in tolerations:
        if t.get("effect") not in (None, "", effect):
            continue
        if t.get("operator") == "Exists" and t.get("key") in (None, "", key):
            return True
        if t.get("key") == key and t.get("value", "") == value:
            return True
    return False


def _matches(expression: dict, labels: dict[str, str], kind: NodeKind) -> bool:
    key, op, values = expression["key"], expression["operator"], expression.get("values", [])
    if key == ZONE_LABEL and key not in labels:
        return True  # the kind may launch in any AZ: some node of it matches
    present = key in labels
    if op == "In":
        return present and labels[key] in values
    if op == "NotIn":
        return not present or labels[key] not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    raise ValueError(f"node affinity operator {op!r} is not supported by node_shapes")


def pod_kinds(kinds: Iterable[NodeKind], pod_spec: dict) -> tuple[NodeKind, ...]:
    """The kinds a rendered pod spec may be scheduled on: it tolerates every NoSchedule taint of the kind and its
    nodeSelector and required node affinity match the kind's labels."""
    out = []
    tolerations = pod_spec.get("tolerations") or []
    required = (
        ((pod_spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
        or {}
    ).get("nodeSelectorTerms") or [{}]
    for kind in kinds:
        labels = kind.labels
        if not all(_tolerates(tolerations, taint) for taint in kind.taints):
            continue
        if any(labels.get(k) != v for k, v in (pod_spec.get("nodeSelector") or {}).items()):
            continue
        if any(all(_matches(e, labels, kind) for e in term.get("matchExpressions", [])) for term in required):
            out.append(kind)
    return tuple(out)
