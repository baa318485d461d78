"""Idle monthly cost and maximum GPU burst per hour of one environment, from its synthesized output only.

Inputs: the CloudFormation templates in a cloud assembly (``cdk.out/``) and the Kubernetes manifests written for
GitOps (``dist/<env>/``). No AWS calls. Prices come from ``config/data/prices.yaml`` (read by config/pricing.py,
which the app's budget check and burst alarm use too).

Every resource type is classified: priced (a line with its figure), usage-based ($0 while idle), free, or
**unpriced** (a type nobody has reviewed yet, or a region or item the price table lacks: reported, never silently
counted as zero). A GPU capacity without a price makes the maximum GPU spend *incomplete*, and the report says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from config.instances import find_spec, gpu_families
from config.kueue import duration_seconds
from config.pricing import PRICES_FILE, MissingPrice, Pricer, load_prices

__all__ = [
    "PRICES_FILE",
    "Pricer",
    "Report",
    "build_report",
    "delivery_templates_by_account",
    "load_prices",
    "render",
    "templates_from_assembly",
]
GPU_RESOURCE = "nvidia.com/gpu"
CLOUDWATCH_ADDON = "amazon-cloudwatch-observability"
# Values of Karpenter's `karpenter.k8s.aws/instance-gpu-name` label (the GPU model, lower case) that a NodePool may
# require and the report resolves to instance families; any other value is reported as unresolved, never guessed.
KARPENTER_GPU_NAMES = ("a100", "a10g", "h100", "h200", "l40s")
# Tag the image build projects carry (cdk_constructs/storage/image_build.py): a clean build's typical duration.
EXPECTED_BUILD_MINUTES_TAG = "llmft:expected-build-minutes"


@dataclass
class Line:
    stack: str
    resource: str
    type: str
    item: str
    monthly_usd: float
    detail: str = ""


@dataclass
class BurstLine:
    source: str
    name: str
    gpus: int
    usd_per_gpu_hour: float
    usd_per_hour: float
    detail: str = ""


@dataclass
class CpuPoolLine:
    """One Karpenter NodePool of CPU nodes (limit in vCPUs): what one node costs while it runs, and the pool at its
    limit. It has no idle cost: Karpenter launches nodes only for pending pods and consolidates empty ones."""

    name: str
    cpu_limit: int
    instance_type: str  # the allowed type with the highest hourly price
    usd_per_node_hour: float
    max_nodes: int  # the most nodes the vCPU limit allows (of the smallest allowed type)
    usd_per_hour_at_limit: float  # the worst case over the allowed types
    detail: str = ""


@dataclass
class BuildLine:
    """One CodeBuild project: what one build costs (per build minute, never idle)."""

    stack: str
    project: str
    compute_type: str
    usd_per_minute: float
    expected_minutes: int | None
    timeout_minutes: int

    @property
    def expected_usd(self) -> float | None:
        return None if self.expected_minutes is None else round(self.expected_minutes * self.usd_per_minute, 2)

    @property
    def max_usd(self) -> float:
        return round(self.timeout_minutes * self.usd_per_minute, 2)


@dataclass
class Report:
    env: str
    region: str
    price_version: str
    idle: list[Line] = field(default_factory=list)
    reserved_gpu: list[BurstLine] = field(default_factory=list)  # HyperPod instance groups (run while deployed)
    burst: list[BurstLine] = field(default_factory=list)  # Karpenter GPU pools at their limits
    cpu_pools: list[CpuPoolLine] = field(default_factory=list)  # Karpenter CPU pools (no idle cost)
    unpriced: list[Line] = field(default_factory=list)
    usage_based: list[Line] = field(default_factory=list)
    builds: list[BuildLine] = field(default_factory=list)  # CodeBuild projects (image builds)
    notes: list[str] = field(default_factory=list)
    gpu_unpriced: list[str] = field(default_factory=list)  # GPU capacities the maximum spend leaves out
    templates: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)

    @property
    def idle_total(self) -> float:
        return round(sum(line.monthly_usd for line in self.idle), 2)

    def idle_by_stack(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for line in self.idle:
            out[line.stack] = round(out.get(line.stack, 0.0) + line.monthly_usd, 2)
        return out

    @property
    def observability_total(self) -> float:
        """What watching the platform costs per month: the observability stack plus every log group."""
        return round(
            sum(
                line.monthly_usd
                for line in self.idle
                if line.stack.endswith("Observability") or line.type == "AWS::Logs::LogGroup"
            ),
            2,
        )

    @property
    def reserved_gpu_per_hour(self) -> float:
        return round(sum(b.usd_per_hour for b in self.reserved_gpu), 2)

    @property
    def karpenter_burst_per_hour(self) -> float:
        return round(sum(b.usd_per_hour for b in self.burst), 2)

    @property
    def cpu_pools_per_hour(self) -> float:
        """Most the CPU pools can cost per hour, every one at its vCPU limit (not idle: nodes run only for jobs)."""
        return round(sum(c.usd_per_hour_at_limit for c in self.cpu_pools), 2)

    @property
    def max_burst_complete(self) -> bool:
        """Whether every GPU capacity (Karpenter GPU pool, HyperPod group) is priced in the maximum GPU spend."""
        return not self.gpu_unpriced

    @property
    def max_burst_per_hour(self) -> float:
        """Most the GPUs can cost per hour: every Karpenter pool at its limit plus the HyperPod groups."""
        return round(self.karpenter_burst_per_hour + self.reserved_gpu_per_hour, 2)

    def to_json(self) -> dict[str, Any]:
        return {
            "env": self.env,
            "region": self.region,
            "price_version": self.price_version,
            "idle_monthly_usd": self.idle_total,
            "idle_monthly_usd_by_stack": self.idle_by_stack(),
            "reserved_gpu_usd_per_hour": self.reserved_gpu_per_hour,
            "karpenter_burst_usd_per_hour": self.karpenter_burst_per_hour,
            "max_burst_usd_per_hour": self.max_burst_per_hour,
            "max_burst_complete": self.max_burst_complete,
            "gpu_unpriced": list(self.gpu_unpriced),
            "cpu_pools_usd_per_hour_at_limit": self.cpu_pools_per_hour,
            "cpu_pools": [asdict(x) for x in self.cpu_pools],
            "idle": [asdict(x) for x in self.idle],
            "reserved_gpu": [asdict(x) for x in self.reserved_gpu],
            "burst": [asdict(x) for x in self.burst],
            "unpriced": [asdict(x) for x in self.unpriced],
            "usage_based": [asdict(x) for x in self.usage_based],
            "notes": self.notes,
            "builds": [{**asdict(b), "expected_usd": b.expected_usd, "max_usd": b.max_usd} for b in self.builds],
            "observability_monthly_usd": self.observability_total,
        }


def _ref(value: Any) -> str | None:
    if isinstance(value, dict):
        if "Ref" in value:
            return value["Ref"]
        if "Fn::GetAtt" in value:
            return value["Fn::GetAtt"][0]
    return None


def _mentions(value: Any, logical_id: str) -> bool:
    return logical_id in json.dumps(value)


def _launch_template_disk(resources: dict[str, dict[str, Any]], nodegroup: dict[str, Any]) -> int:
    """Total EBS GiB of the node group's launch template, 0 when it has none."""
    template = resources.get(_ref(nodegroup.get("LaunchTemplate", {}).get("Id")) or "", {})
    mappings = template.get("Properties", {}).get("LaunchTemplateData", {}).get("BlockDeviceMappings", [])
    return sum(int(m.get("Ebs", {}).get("VolumeSize", 0)) for m in mappings)


def _idle_nodes(templates: dict[str, dict[str, Any]]) -> int:
    """Nodes running in an idle environment: managed node groups at their desired size plus HyperPod instances."""
    nodes = 0
    for template in templates.values():
        for res in template.get("Resources", {}).values():
            props = res.get("Properties", {})
            if res["Type"] == "AWS::EKS::Nodegroup":
                scaling = props.get("ScalingConfig", {})
                nodes += int(scaling.get("DesiredSize", scaling.get("MinSize", 1)))
            elif res["Type"] == "AWS::SageMaker::Cluster":
                nodes += sum(int(g.get("InstanceCount", 0)) for g in props.get("InstanceGroups", []))
    return nodes


@dataclass(frozen=True)
class _Priced:
    """One template resource being priced: its identity, properties and where its lines go."""

    stack: str
    lid: str
    type: str
    props: dict[str, Any]
    resources: dict[str, dict[str, Any]]  # every resource of its template
    p: Pricer
    report: Report

    def add(self, item: str, monthly: float, *, detail: str = "") -> None:
        """Add an idle monthly cost line for this resource."""
        self.report.idle.append(Line(self.stack, self.lid, self.type, item, round(monthly, 2), detail))

    def zero(self, item: str, detail: str = "") -> Line:
        """A $0 line for this resource (usage-based or unpriced)."""
        return Line(self.stack, self.lid, self.type, item, 0.0, detail)


# Resource types priced at a flat rate: (item, "hourly" or "monthly", price key).
_FLAT_RATES: dict[str, tuple[str, str, str]] = {
    "AWS::EKS::Cluster": ("EKS control plane", "hourly", "eks_cluster"),
    "AWS::EC2::NatGateway": ("NAT gateway", "hourly", "nat_gateway"),
    "AWS::EC2::EIP": ("Public IPv4 address", "hourly", "public_ipv4"),
    "AWS::KMS::Key": ("KMS key", "monthly", "kms_key"),
    "AWS::SecretsManager::Secret": ("Secrets Manager secret", "monthly", "secret"),
    "AWS::CloudWatch::Dashboard": ("CloudWatch dashboard", "monthly", "cloudwatch_dashboard"),
    "AWS::Route53::HostedZone": ("Route 53 hosted zone", "monthly", "hosted_zone"),
}


def _price_flat(r: _Priced) -> None:
    """Price a resource billed at a flat hourly or monthly rate."""
    item, period, key = _FLAT_RATES[r.type]
    r.add(item, r.p.hourly(key) * r.p.hours if period == "hourly" else r.p.monthly(key))


def _price_vpc_endpoint(r: _Priced) -> None:
    """Price an interface endpoint per AZ; a gateway endpoint is free."""
    if r.props.get("VpcEndpointType", "Gateway") == "Interface":
        azs = len(r.props.get("SubnetIds", [])) or 1
        name = r.props.get("ServiceName")
        name = name.split(".", 3)[-1] if isinstance(name, str) else "endpoint"  # com.amazonaws.<region>.X
        r.add(f"Interface endpoint {name}", r.p.hourly("interface_endpoint_az") * azs * r.p.hours, detail=f"{azs} AZ")
    else:
        r.report.usage_based.append(r.zero("Gateway endpoint (free)"))


def _price_load_balancer(r: _Priced) -> None:
    """Price an application or network load balancer by the hour (LCUs excluded)."""
    kind = r.props.get("Type", "application")
    r.add(
        "Application Load Balancer" if kind == "application" else "Network Load Balancer",
        r.p.hourly("alb" if kind == "application" else "nlb") * r.p.hours,
        detail="LCUs excluded",
    )


def _price_ecs_service(r: _Priced) -> None:
    """Price a Fargate service's tasks at its desired count (or its scaling floor)."""
    task = r.resources.get(_ref(r.props.get("TaskDefinition")) or "", {}).get("Properties", {})
    vcpu = float(task.get("Cpu", 256)) / 1024
    gb = float(task.get("Memory", 512)) / 1024
    count = r.props.get("DesiredCount")
    if count is None:
        targets = [
            res["Properties"]
            for res in r.resources.values()
            if res["Type"] == "AWS::ApplicationAutoScaling::ScalableTarget"
            and _mentions(res["Properties"].get("ResourceId"), r.lid)
        ]
        count = targets[0]["MinCapacity"] if targets else 1
    per_task = (vcpu * r.p.hourly("fargate_vcpu") + gb * r.p.hourly("fargate_gb")) * r.p.hours
    r.add("Fargate tasks", per_task * int(count), detail=f"{count} x {vcpu:g} vCPU / {gb:g} GB")


def _price_aurora_cluster(r: _Priced) -> None:
    """Price an Aurora Serverless v2 cluster: the ACU floor of its instances plus assumed storage."""
    scaling = r.props.get("ServerlessV2ScalingConfiguration", {})
    floor = float(scaling.get("MinCapacity", 0))
    instances = [
        res
        for res in r.resources.values()
        if res["Type"] == "AWS::RDS::DBInstance"
        and _ref(res["Properties"].get("DBClusterIdentifier")) == r.lid
        and res["Properties"].get("DBInstanceClass") == "db.serverless"
    ]
    n = len(instances) or 1
    r.add(
        "Aurora Serverless v2 ACU floor",
        floor * n * r.p.hourly("aurora_serverless_acu") * r.p.hours,
        detail=f"{n} instance(s) x {floor:g} ACU",
    )
    gb = r.p.assume["aurora_storage_gb"]
    r.add("Aurora storage (assumed)", gb * r.p.monthly("aurora_storage_gb"), detail=f"{gb} GB")


def _price_db_instance(r: _Priced) -> None:
    """Skip a serverless Aurora instance (priced on its cluster); classify any other."""
    if r.props.get("DBInstanceClass") != "db.serverless":
        _classify(r)


def _price_fsx(r: _Priced) -> None:
    """Price an FSx for Lustre PERSISTENT_2 file system by capacity; any other is unpriced."""
    lustre = r.props.get("LustreConfiguration", {})
    tput = str(lustre.get("PerUnitStorageThroughput"))
    entry = r.p.table("fsx_lustre_gb_month").get(tput)
    if entry is None or lustre.get("DeploymentType") != "PERSISTENT_2":
        r.report.unpriced.append(r.zero(f"FSx {lustre.get('DeploymentType')} {tput}"))
        return
    cap = int(r.props["StorageCapacity"])
    r.add("FSx for Lustre capacity", cap * entry["usd"], detail=f"{cap} GiB x {tput} MB/s/TiB")


def _price_alarm(r: _Priced) -> None:
    """Price a CloudWatch alarm per metric it evaluates."""
    # billed per metric the alarm evaluates (a metric math alarm over two metrics costs two)
    n = sum(1 for m in r.props.get("Metrics", []) if "MetricStat" in m) or 1
    r.add("CloudWatch alarm", n * r.p.monthly("cloudwatch_alarm"), detail=f"{n} metric(s)")


def _price_addon(r: _Priced) -> None:
    """Estimate the CloudWatch observability add-on's observations and metrics; classify any other add-on."""
    if r.props.get("AddonName") != CLOUDWATCH_ADDON:
        _classify(r)
        return
    nodes = _idle_nodes(r.report.templates)
    obs = nodes * r.p.assume["container_insights_observations_per_node_month"]
    r.add(
        "Container Insights observations (estimate)",
        obs / 1e6 * r.p.per_million("container_insights_observation"),
        detail=f"{nodes} idle nodes, {obs / 1e6:g}M obs",
    )
    n = r.p.assume["prometheus_custom_metrics"]
    r.add("Prometheus custom metrics (estimate)", n * r.p.monthly("custom_metric"), detail=f"{n} metrics")


def _price_log_group(r: _Priced) -> None:
    """Estimate a log group's ingestion at the assumed volume."""
    gb = r.p.assume["log_ingest_gb_per_group_month"]
    r.add("Log ingestion (estimate)", gb * r.p.monthly("log_ingest_gb"), detail=f"{gb} GB/month assumed")


def _price_nodegroup(r: _Priced) -> None:
    """Price a managed node group's nodes and their volumes at its desired size."""
    scaling = r.props.get("ScalingConfig", {})
    count = int(scaling.get("DesiredSize", scaling.get("MinSize", 1)))
    types = r.props.get("InstanceTypes") or ["m5.large"]
    entry = r.p.instance(types[0])
    if entry is None:
        r.report.unpriced.append(r.zero(f"node group {types[0]}", f"{count} nodes"))
        return
    disk = int(
        r.props.get("DiskSize") or _launch_template_disk(r.resources, r.props) or r.p.assume["node_root_volume_gb"]
    )
    r.add("EKS system nodes", count * entry["usd"] * r.p.hours, detail=f"{count} x {types[0]}")
    r.add("EKS node volumes", count * disk * r.p.monthly("ebs_gp3_gb"), detail=f"{count} x {disk} GB gp3")


def _price_codebuild(r: _Priced) -> None:
    """Record a CodeBuild project's per-build cost (never idle)."""
    compute = r.props["Environment"]["ComputeType"]
    rate = r.p.table("codebuild_build_minute").get(compute)
    if rate is None:
        r.report.unpriced.append(r.zero(f"CodeBuild {compute}", "per build minute"))
        return
    tags = {tag["Key"]: tag["Value"] for tag in r.props.get("Tags", [])}
    expected = tags.get(EXPECTED_BUILD_MINUTES_TAG)
    name = r.props.get("Name") if isinstance(r.props.get("Name"), str) else r.lid
    r.report.builds.append(
        BuildLine(
            r.stack,
            name,
            compute,
            rate["usd"],
            int(expected) if expected else None,
            int(r.props.get("TimeoutInMinutes", 60)),
        )
    )


def _price_hyperpod(r: _Priced) -> None:
    """Price each HyperPod instance group as reserved GPU capacity, or report it unpriced."""
    for group in r.props.get("InstanceGroups", []):
        itype, count = group["InstanceType"], int(group.get("InstanceCount", 0))
        entry = r.p.instance(itype)
        if entry is None:
            r.report.unpriced.append(r.zero(f"HyperPod {itype}", f"{count} instances; {r.p.missing_note(itype)}"))
            spec = find_spec(itype)
            if spec is None or spec.is_gpu:
                r.report.gpu_unpriced.append(f"HyperPod group {group['InstanceGroupName']} ({itype})")
            continue
        gpus = entry["gpus"] * count
        r.report.reserved_gpu.append(
            BurstLine(
                "HyperPod",
                f"{group['InstanceGroupName']} ({itype})",
                gpus,
                round(entry["usd"] / entry["gpus"], 3) if entry["gpus"] else 0.0,
                round(entry["usd"] * count, 2),
                f"{count} x {itype}",
            )
        )


def _classify(r: _Priced) -> None:
    """File a type without a price rule as usage-based, free or unpriced."""
    kind = r.p.classify(r.type)
    if kind == "usage":
        r.report.usage_based.append(r.zero("usage-based"))
    elif kind == "other":
        r.report.unpriced.append(r.zero("no price rule"))


# The price rule of each resource type that has one (any other type is classified).
_PRICE_RULES: dict[str, Callable[[_Priced], None]] = {
    **dict.fromkeys(_FLAT_RATES, _price_flat),
    "AWS::EC2::VPCEndpoint": _price_vpc_endpoint,
    "AWS::ElasticLoadBalancingV2::LoadBalancer": _price_load_balancer,
    "AWS::ECS::Service": _price_ecs_service,
    "AWS::RDS::DBCluster": _price_aurora_cluster,
    "AWS::RDS::DBInstance": _price_db_instance,
    "AWS::FSx::FileSystem": _price_fsx,
    "AWS::CloudWatch::Alarm": _price_alarm,
    "AWS::EKS::Addon": _price_addon,
    "AWS::Logs::LogGroup": _price_log_group,
    "AWS::EKS::Nodegroup": _price_nodegroup,
    "AWS::CodeBuild::Project": _price_codebuild,
    "AWS::SageMaker::Cluster": _price_hyperpod,
}


def price_template(stack: str, template: dict[str, Any], p: Pricer, report: Report) -> None:
    resources: dict[str, dict[str, Any]] = template.get("Resources", {})
    for lid, res in resources.items():
        r = _Priced(stack, lid, res["Type"], res.get("Properties", {}), resources, p, report)
        try:
            _PRICE_RULES.get(r.type, _classify)(r)
        except MissingPrice as missing:
            report.unpriced.append(Line(stack, lid, res["Type"], f"no price for {missing}", 0.0))


def _gpu_instance_types(requirements: list[dict[str, Any]], p: Pricer) -> tuple[list[str], list[str]]:
    """EC2 GPU instance types a NodePool may launch; second list: values that could not be resolved."""
    candidates = {k: v for k, v in p.table("ec2_instance_hour").items() if v["gpus"] > 0}
    allowed = set(candidates)
    unresolved: list[str] = []
    for req in requirements:
        key, op, values = req.get("key"), req.get("operator"), req.get("values", [])
        if op != "In":
            continue
        if key == "node.kubernetes.io/instance-type":
            unresolved += [v for v in values if v not in candidates]
            allowed &= set(values)
        elif key == "karpenter.k8s.aws/instance-family":
            allowed &= {t for t in candidates if t.split(".")[0] in values}
        elif key == "karpenter.k8s.aws/instance-gpu-name":
            # the GPU names Karpenter's label is known to take, resolved through config/instances.py's family table
            names = {n: tuple(f"{f}." for f in gpu_families(n)) for n in KARPENTER_GPU_NAMES}
            prefixes = tuple(px for v in values for px in names.get(v, ()))
            unresolved += [v for v in values if not names.get(v)]
            allowed &= {t for t in candidates if t.startswith(prefixes)}
    return sorted(allowed), unresolved


def price_manifests(manifest_dir: Path, p: Pricer, report: Report) -> None:
    docs = [
        doc
        for path in sorted(manifest_dir.glob("*.yaml")) + sorted(manifest_dir.glob("*.yml"))
        for doc in yaml.safe_load_all(path.read_text())
        if doc
    ]
    _price_node_pools([d for d in docs if d.get("kind") == "NodePool"], p, report)
    _price_always_on_cron_jobs(docs, p, report)


def _price_node_pools(pools: list[dict[str, Any]], p: Pricer, report: Report) -> None:
    for doc in pools:
        name = doc["metadata"]["name"]
        spec = doc.get("spec", {})
        limit = spec.get("limits", {}).get(GPU_RESOURCE)
        reqs = spec.get("template", {}).get("spec", {}).get("requirements", [])
        if limit is None and spec.get("limits", {}).get("cpu") is not None:
            _price_cpu_pool(name, int(spec["limits"]["cpu"]), reqs, p, report)
            continue
        types, unresolved = _gpu_instance_types(reqs, p)
        if limit is None:
            report.unpriced.append(Line("k8s", name, "NodePool", "no nvidia.com/gpu limit: spend is unbounded", 0.0))
            report.gpu_unpriced.append(f"Karpenter pool {name} (no GPU limit)")
            continue
        if unresolved or not types:
            what = ", ".join(unresolved) or "any GPU instance type"
            report.unpriced.append(
                Line("k8s", name, "NodePool", f"no price for {unresolved or 'any type'}", 0.0, p.missing_note(what))
            )
            report.gpu_unpriced.append(f"Karpenter pool {name} ({what})")
            continue
        per_gpu = {t: p.table("ec2_instance_hour")[t]["usd"] / p.table("ec2_instance_hour")[t]["gpus"] for t in types}
        worst = max(per_gpu, key=per_gpu.__getitem__)
        gpus = int(limit)
        report.burst.append(
            BurstLine(
                "Karpenter",
                name,
                gpus,
                round(per_gpu[worst], 3),
                round(gpus * per_gpu[worst], 2),
                f"limit {gpus} GPUs x {worst} (most expensive allowed per GPU; spot never exceeds on-demand)",
            )
        )


def _price_cpu_pool(name: str, cpu_limit: int, requirements: list[dict[str, Any]], p: Pricer, report: Report) -> None:
    """A NodePool with a `cpu` limit: priced per node from its `node.kubernetes.io/instance-type` list (CPU types
    only; vCPUs from config/data/instance_specs.yaml)."""
    types = next(
        (
            r.get("values", [])
            for r in requirements
            if r.get("key") == "node.kubernetes.io/instance-type" and r.get("operator") == "In"
        ),
        [],
    )
    table = p.table("ec2_instance_hour")
    unresolved = [t for t in types if t not in table or table[t]["gpus"] or find_spec(t) is None]
    if not types or unresolved:
        report.unpriced.append(
            Line(
                "k8s",
                name,
                "NodePool",
                f"no CPU price or specs for {unresolved or 'any type'} (list instance types In a CPU pool)",
                0.0,
            )
        )
        return
    at_limit = {t: (cpu_limit // find_spec(t).vcpus) * table[t]["usd"] for t in types}
    priciest = max(types, key=lambda t: table[t]["usd"])
    worst = max(types, key=at_limit.__getitem__)
    nodes = max(cpu_limit // find_spec(t).vcpus for t in types)
    report.cpu_pools.append(
        CpuPoolLine(
            name,
            cpu_limit,
            priciest,
            table[priciest]["usd"],
            nodes,
            round(at_limit[worst], 2),
            f"{', '.join(types)}; at the limit: {cpu_limit // find_spec(worst).vcpus} x {worst}",
        )
    )


def _interval_minutes(schedule: str) -> int | None:
    """Minutes between a cron schedule's runs when it fires on a fixed minute step every hour of every day
    (``* * * * *``, ``*/5 * * * *``); None for any other schedule (it may leave a node idle long enough to go)."""
    fields = schedule.split()
    if len(fields) != 5 or fields[1:] != ["*"] * 4:
        return None
    if fields[0] == "*":
        return 1
    m = re.fullmatch(r"\*/([0-9]+)", fields[0])
    return int(m.group(1)) if m else None


def _price_always_on_cron_jobs(docs: list[dict[str, Any]], p: Pricer, report: Report) -> None:
    """A CronJob whose pods land on a Karpenter CPU pool more often than the pool consolidates an empty node keeps
    one node of it up around the clock: idle cost, at the pool's cheapest allowed type (the one Karpenter launches
    for a small pod)."""
    table = p.table("ec2_instance_hour")
    for cron in (d for d in docs if d.get("kind") == "CronJob"):
        every = _interval_minutes(cron["spec"]["schedule"])
        selector = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"].get("nodeSelector") or {}
        for pool in (d for d in docs if d.get("kind") == "NodePool" and "cpu" in d["spec"].get("limits", {})):
            labels = pool["spec"]["template"].get("metadata", {}).get("labels", {})
            consolidate = pool["spec"].get("disruption", {}).get("consolidateAfter", "0s")
            if every is None or not selector or any(labels.get(k) != v for k, v in selector.items()):
                continue
            if every * 60 > duration_seconds(consolidate):
                continue
            types = next(
                (
                    r["values"]
                    for r in pool["spec"]["template"]["spec"].get("requirements", [])
                    if r.get("key") == "node.kubernetes.io/instance-type" and r.get("operator") == "In"
                ),
                [],
            )
            priced = [t for t in types if t in table]
            if not priced:
                continue  # the pool itself is listed unpriced (_price_cpu_pool)
            cheapest = min(priced, key=lambda t: table[t]["usd"])
            name = cron["metadata"]["name"]
            report.idle.append(
                Line(
                    "k8s",
                    f"{cron['metadata'].get('namespace', '')}/{name}",
                    "CronJob",
                    f"keeps 1 {cheapest} of NodePool {pool['metadata']['name']} up",
                    round(table[cheapest]["usd"] * p.hours, 2),
                    f"runs every {every} min, the pool consolidates an empty node after {consolidate}",
                )
            )


def build_report(
    env: str,
    region: str,
    templates: dict[str, dict[str, Any]],
    manifest_dir: Path | None,
    prices: dict[str, Any] | None = None,
) -> Report:
    prices = prices or load_prices()
    p = Pricer(prices, region)
    report = Report(env=env, region=region, price_version=str(prices["version"]), templates=templates)
    if not p.priced_region:
        report.notes.append(p.missing_note("every priced item") + ": the figures below are incomplete")
    for stack, template in sorted(templates.items()):
        price_template(stack, template, p, report)
    if manifest_dir and manifest_dir.is_dir():
        price_manifests(manifest_dir, p, report)
    else:
        report.notes.append(f"no manifests at {manifest_dir}: Karpenter burst not computed (run make synth)")
    report.notes.append(
        "Excluded from idle: GPU instances (below), Studio apps (billed per running app-hour), data "
        "transfer, S3/ECR storage and requests (usage-based)."
    )
    return report


def templates_from_assembly(cdk_out: Path) -> dict[str, dict[str, Any]]:
    manifest = json.loads((cdk_out / "manifest.json").read_text())
    out = {}
    for name, artifact in manifest["artifacts"].items():
        if artifact.get("type") == "aws:cloudformation:stack":
            out[name] = json.loads((cdk_out / artifact["properties"]["templateFile"]).read_text())
    return out


def delivery_templates_by_account(cdk_out: Path) -> list[tuple[str, str, dict[str, dict[str, Any]]]]:
    """(label, region, stack -> template) per account of the delivery assembly (``make synth-delivery``): the
    automation account's pipeline stack, the logging account's stack and, per workload account, only the
    ``<Env>-Delivery`` stacks (the environment's own stacks are what ``make cost ENV=<env>`` reports). An account's
    stacks come from the environment (``aws://<account>/<region>``) the assembly records for each."""
    groups: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    roles: dict[str, str] = {}

    def visit(folder: Path) -> None:
        manifest = json.loads((folder / "manifest.json").read_text())
        for artifact in manifest["artifacts"].values():
            if artifact.get("type") == "cdk:cloud-assembly":
                visit(folder / artifact["properties"]["directoryName"])
            elif artifact.get("type") == "aws:cloudformation:stack":
                name = artifact.get("displayName", "").split("/")[-1] or artifact["properties"]["templateFile"]
                name = artifact["properties"].get("stackName", name)
                if not (name.startswith("Delivery-") or name.endswith("-Delivery")):
                    continue
                account, region = artifact["environment"].removeprefix("aws://").split("/")
                groups.setdefault((account, region), {})[name] = json.loads(
                    (folder / artifact["properties"]["templateFile"]).read_text()
                )
                roles.setdefault(
                    account,
                    "automation"
                    if name == "Delivery-Pipeline"
                    else "logging"
                    if name == "Delivery-Logging"
                    else "workload",
                )

    visit(cdk_out)
    return [
        (f"{roles[account]} account {account}", region, templates)
        for (account, region), templates in sorted(
            groups.items(), key=lambda kv: (["automation", "logging", "workload"].index(roles[kv[0][0]]), kv[0])
        )
    ]


def render(report: Report) -> str:
    rows = [f"Idle monthly cost - {report.env} ({report.region}, prices {report.price_version})", ""]
    width = max([len(line.item) for line in report.idle] + [20])
    for stack, total in report.idle_by_stack().items():
        rows.append(f"{stack}  ${total:,.2f}/month")
        for line in (x for x in report.idle if x.stack == stack):
            rows.append(f"    {line.item:<{width}}  {line.monthly_usd:>10,.2f}  {line.detail}")
    rows += [
        "",
        f"TOTAL idle (excluding GPUs and Studio apps): ${report.idle_total:,.2f}/month",
        f"  of which observability (dashboard, alarms, Container Insights, every log group): "
        f"${report.observability_total:,.2f}/month",
        "",
    ]
    rows.append("HyperPod instance groups (reserved capacity, billed while deployed; excluded from idle)")
    for b in report.reserved_gpu:
        rows.append(f"    {b.name:<{width}}  {b.usd_per_hour:>10,.2f}/h  {b.detail}")
    rows.append(f"    total ${report.reserved_gpu_per_hour:,.2f}/hour")
    rows += ["", "Maximum GPU burst (every Karpenter GPU pool at its GPU limit)"]
    for b in report.burst:
        rows.append(f"    {b.name:<{width}}  {b.usd_per_hour:>10,.2f}/h  {b.detail}")
    rows.append(f"    total ${report.karpenter_burst_per_hour:,.2f}/hour")
    rows += ["", f"MAXIMUM GPU SPEND (pools at their limits + HyperPod groups): ${report.max_burst_per_hour:,.2f}/hour"]
    if report.gpu_unpriced:
        rows.append(f"    INCOMPLETE: not counted, no price: {'; '.join(report.gpu_unpriced)} (see UNPRICED below)")
    if report.cpu_pools:
        rows += [
            "",
            "Karpenter CPU job pools (no idle cost: nodes run only while CPU job pods find no room on the "
            "system nodes; empty nodes are consolidated)",
        ]
        for c in report.cpu_pools:
            rows.append(
                f"    {c.name:<{width}}  {c.usd_per_node_hour:>10,.4f}/h per node ({c.instance_type}), "
                f"${c.usd_per_hour_at_limit:,.2f}/h at the {c.cpu_limit}-vCPU limit ({c.detail})"
            )
    if report.builds:
        rows += ["", "Image builds (CodeBuild, billed per build minute while `make images` runs; not idle)"]
        for b in report.builds:
            typical = (
                f"~${b.expected_usd:,.2f} per build ({b.expected_minutes} min)"
                if b.expected_usd is not None
                else "typical duration unknown"
            )
            rows.append(
                f"    {b.project:<{width}}  {typical}; at most ${b.max_usd:,.2f} ({b.timeout_minutes} min "
                f"timeout) on {b.compute_type} at ${b.usd_per_minute}/min"
            )
        total = sum(b.expected_usd or 0 for b in report.builds)
        rows.append(f"    all images once: ~${total:,.2f}")
    if report.unpriced:
        rows += ["", "UNPRICED (not counted; add a price rule or a free/usage classification):"]
        rows += [f"    {u.stack}/{u.resource} {u.type}: {u.item} {u.detail}" for u in report.unpriced]
    rows += [""] + [f"note: {n}" for n in report.notes]
    return "\n".join(rows) + "\n"
