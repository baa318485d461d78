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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from config.instances import find_spec, gpu_families
from config.pricing import PRICES_FILE, MissingPrice, Pricer, load_prices

__all__ = ["PRICES_FILE", "Pricer", "Report", "build_report", "delivery_templates_by_account", "load_prices", "render",
           "templates_from_assembly"]
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
    instance_type: str            # the allowed type with the highest hourly price
    usd_per_node_hour: float
    max_nodes: int                # the most nodes the vCPU limit allows (of the smallest allowed type)
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
    reserved_gpu: list[BurstLine] = field(default_factory=list)   # HyperPod instance groups (run while deployed)
    burst: list[BurstLine] = field(default_factory=list)          # Karpenter GPU pools at their limits
    cpu_pools: list[CpuPoolLine] = field(default_factory=list)    # Karpenter CPU pools (no idle cost)
    unpriced: list[Line] = field(default_factory=list)
    usage_based: list[Line] = field(default_factory=list)
    builds: list[BuildLine] = field(default_factory=list)         # CodeBuild projects (image builds)
    notes: list[str] = field(default_factory=list)
    gpu_unpriced: list[str] = field(default_factory=list)          # GPU capacities the maximum spend leaves out
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
        return round(sum(line.monthly_usd for line in self.idle
                         if line.stack.endswith("Observability") or line.type == "AWS::Logs::LogGroup"), 2)

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
            "env": self.env, "region": self.region, "price_version": self.price_version,
            "idle_monthly_usd": self.idle_total, "idle_monthly_usd_by_stack": self.idle_by_stack(),
            "reserved_gpu_usd_per_hour": self.reserved_gpu_per_hour,
            "karpenter_burst_usd_per_hour": self.karpenter_burst_per_hour,
            "max_burst_usd_per_hour": self.max_burst_per_hour,
            "max_burst_complete": self.max_burst_complete, "gpu_unpriced": list(self.gpu_unpriced),
            "cpu_pools_usd_per_hour_at_limit": self.cpu_pools_per_hour,
            "cpu_pools": [asdict(x) for x in self.cpu_pools],
            "idle": [asdict(x) for x in self.idle], "reserved_gpu": [asdict(x) for x in self.reserved_gpu],
            "burst": [asdict(x) for x in self.burst], "unpriced": [asdict(x) for x in self.unpriced],
            "usage_based": [asdict(x) for x in self.usage_based], "notes": self.notes,
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


def price_template(stack: str, template: dict[str, Any], p: Pricer, report: Report) -> None:
    resources: dict[str, dict[str, Any]] = template.get("Resources", {})
    hours = p.hours

    def add(lid: str, type_: str, item: str, monthly: float, detail: str = "") -> None:
        report.idle.append(Line(stack, lid, type_, item, round(monthly, 2), detail))

    def one(lid: str, res: dict[str, Any]) -> None:
        t, props = res["Type"], res.get("Properties", {})
        if t == "AWS::EKS::Cluster":
            add(lid, t, "EKS control plane", p.hourly("eks_cluster") * hours)
        elif t == "AWS::EC2::NatGateway":
            add(lid, t, "NAT gateway", p.hourly("nat_gateway") * hours)
        elif t == "AWS::EC2::EIP":
            add(lid, t, "Public IPv4 address", p.hourly("public_ipv4") * hours)
        elif t == "AWS::EC2::VPCEndpoint":
            if props.get("VpcEndpointType", "Gateway") == "Interface":
                azs = len(props.get("SubnetIds", [])) or 1
                name = props.get("ServiceName")
                name = name.split(".", 3)[-1] if isinstance(name, str) else "endpoint"  # com.amazonaws.<region>.X
                add(lid, t, f"Interface endpoint {name}",
                    p.hourly("interface_endpoint_az") * azs * hours, f"{azs} AZ")
            else:
                report.usage_based.append(Line(stack, lid, t, "Gateway endpoint (free)", 0.0))
        elif t == "AWS::ElasticLoadBalancingV2::LoadBalancer":
            kind = props.get("Type", "application")
            add(lid, t, "Application Load Balancer" if kind == "application" else "Network Load Balancer",
                p.hourly("alb" if kind == "application" else "nlb") * hours, "LCUs excluded")
        elif t == "AWS::ECS::Service":
            task = resources.get(_ref(props.get("TaskDefinition")) or "", {}).get("Properties", {})
            vcpu = float(task.get("Cpu", 256)) / 1024
            gb = float(task.get("Memory", 512)) / 1024
            count = props.get("DesiredCount")
            if count is None:
                targets = [r["Properties"] for r in resources.values()
                           if r["Type"] == "AWS::ApplicationAutoScaling::ScalableTarget"
                           and _mentions(r["Properties"].get("ResourceId"), lid)]
                count = targets[0]["MinCapacity"] if targets else 1
            per_task = (vcpu * p.hourly("fargate_vcpu") + gb * p.hourly("fargate_gb")) * hours
            add(lid, t, "Fargate tasks", per_task * int(count), f"{count} x {vcpu:g} vCPU / {gb:g} GB")
        elif t == "AWS::RDS::DBCluster":
            scaling = props.get("ServerlessV2ScalingConfiguration", {})
            floor = float(scaling.get("MinCapacity", 0))
            instances = [r for r in resources.values() if r["Type"] == "AWS::RDS::DBInstance"
                         and _ref(r["Properties"].get("DBClusterIdentifier")) == lid
                         and r["Properties"].get("DBInstanceClass") == "db.serverless"]
            n = len(instances) or 1
            add(lid, t, "Aurora Serverless v2 ACU floor", floor * n * p.hourly("aurora_serverless_acu") * hours,
                f"{n} instance(s) x {floor:g} ACU")
            gb = p.assume["aurora_storage_gb"]
            add(lid, t, "Aurora storage (assumed)", gb * p.monthly("aurora_storage_gb"), f"{gb} GB")
        elif t == "AWS::RDS::DBInstance" and props.get("DBInstanceClass") == "db.serverless":
            return  # priced on its cluster (ACU floor x instances)
        elif t == "AWS::FSx::FileSystem":
            lustre = props.get("LustreConfiguration", {})
            tput = str(lustre.get("PerUnitStorageThroughput"))
            entry = p.table("fsx_lustre_gb_month").get(tput)
            if entry is None or lustre.get("DeploymentType") != "PERSISTENT_2":
                report.unpriced.append(Line(stack, lid, t, f"FSx {lustre.get('DeploymentType')} {tput}", 0.0))
                return
            cap = int(props["StorageCapacity"])
            add(lid, t, "FSx for Lustre capacity", cap * entry["usd"], f"{cap} GiB x {tput} MB/s/TiB")
        elif t == "AWS::KMS::Key":
            add(lid, t, "KMS key", p.monthly("kms_key"))
        elif t == "AWS::SecretsManager::Secret":
            add(lid, t, "Secrets Manager secret", p.monthly("secret"))
        elif t == "AWS::CloudWatch::Alarm":
            # billed per metric the alarm evaluates (a metric math alarm over two metrics costs two)
            n = sum(1 for m in props.get("Metrics", []) if "MetricStat" in m) or 1
            add(lid, t, "CloudWatch alarm", n * p.monthly("cloudwatch_alarm"), f"{n} metric(s)")
        elif t == "AWS::CloudWatch::Dashboard":
            add(lid, t, "CloudWatch dashboard", p.monthly("cloudwatch_dashboard"))
        elif t == "AWS::EKS::Addon" and props.get("AddonName") == CLOUDWATCH_ADDON:
            nodes = _idle_nodes(report.templates)
            obs = nodes * p.assume["container_insights_observations_per_node_month"]
            add(lid, t, "Container Insights observations (estimate)",
                obs / 1e6 * p.per_million("container_insights_observation"), f"{nodes} idle nodes, {obs / 1e6:g}M obs")
            n = p.assume["prometheus_custom_metrics"]
            add(lid, t, "Prometheus custom metrics (estimate)", n * p.monthly("custom_metric"), f"{n} metrics")
        elif t == "AWS::Route53::HostedZone":
            add(lid, t, "Route 53 hosted zone", p.monthly("hosted_zone"))
        elif t == "AWS::Logs::LogGroup":
            gb = p.assume["log_ingest_gb_per_group_month"]
            add(lid, t, "Log ingestion (estimate)", gb * p.monthly("log_ingest_gb"), f"{gb} GB/month assumed")
        elif t == "AWS::EKS::Nodegroup":
            scaling = props.get("ScalingConfig", {})
            count = int(scaling.get("DesiredSize", scaling.get("MinSize", 1)))
            types = props.get("InstanceTypes") or ["m5.large"]
            entry = p.instance(types[0])
            if entry is None:
                report.unpriced.append(Line(stack, lid, t, f"node group {types[0]}", 0.0, f"{count} nodes"))
                return
            disk = int(props.get("DiskSize") or _launch_template_disk(resources, props) or
                       p.assume["node_root_volume_gb"])
            add(lid, t, "EKS system nodes", count * entry["usd"] * hours, f"{count} x {types[0]}")
            add(lid, t, "EKS node volumes", count * disk * p.monthly("ebs_gp3_gb"), f"{count} x {disk} GB gp3")
        elif t == "AWS::CodeBuild::Project":
            compute = props["Environment"]["ComputeType"]
            rate = p.table("codebuild_build_minute").get(compute)
            if rate is None:
                report.unpriced.append(Line(stack, lid, t, f"CodeBuild {compute}", 0.0, "per build minute"))
                return
            tags = {tag["Key"]: tag["Value"] for tag in props.get("Tags", [])}
            expected = tags.get(EXPECTED_BUILD_MINUTES_TAG)
            name = props.get("Name") if isinstance(props.get("Name"), str) else lid
            report.builds.append(BuildLine(stack, name, compute, rate["usd"], int(expected) if expected else None,
                                           int(props.get("TimeoutInMinutes", 60))))
        elif t == "AWS::SageMaker::Cluster":
            for group in props.get("InstanceGroups", []):
                itype, count = group["InstanceType"], int(group.get("InstanceCount", 0))
                entry = p.instance(itype)
                if entry is None:
                    report.unpriced.append(Line(stack, lid, t, f"HyperPod {itype}", 0.0,
                                                f"{count} instances; {p.missing_note(itype)}"))
                    spec = find_spec(itype)
                    if spec is None or spec.is_gpu:
                        report.gpu_unpriced.append(f"HyperPod group {group['InstanceGroupName']} ({itype})")
                    continue
                gpus = entry["gpus"] * count
                report.reserved_gpu.append(BurstLine(
                    "HyperPod", f"{group['InstanceGroupName']} ({itype})", gpus,
                    round(entry["usd"] / entry["gpus"], 3) if entry["gpus"] else 0.0,
                    round(entry["usd"] * count, 2), f"{count} x {itype}"))
        else:
            kind = p.classify(t)
            if kind == "usage":
                report.usage_based.append(Line(stack, lid, t, "usage-based", 0.0))
            elif kind == "other":
                report.unpriced.append(Line(stack, lid, t, "no price rule", 0.0))

    for lid, res in resources.items():
        try:
            one(lid, res)
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
    for path in sorted(manifest_dir.glob("*.yaml")) + sorted(manifest_dir.glob("*.yml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if not doc or doc.get("kind") != "NodePool":
                continue
            name = doc["metadata"]["name"]
            spec = doc.get("spec", {})
            limit = spec.get("limits", {}).get(GPU_RESOURCE)
            reqs = spec.get("template", {}).get("spec", {}).get("requirements", [])
            if limit is None and spec.get("limits", {}).get("cpu") is not None:
                _price_cpu_pool(name, int(spec["limits"]["cpu"]), reqs, p, report)
                continue
            types, unresolved = _gpu_instance_types(reqs, p)
            if limit is None:
                report.unpriced.append(Line("k8s", name, "NodePool", "no nvidia.com/gpu limit: spend is unbounded",
                                            0.0))
                report.gpu_unpriced.append(f"Karpenter pool {name} (no GPU limit)")
                continue
            if unresolved or not types:
                what = ", ".join(unresolved) or "any GPU instance type"
                report.unpriced.append(Line("k8s", name, "NodePool", f"no price for {unresolved or 'any type'}",
                                            0.0, p.missing_note(what)))
                report.gpu_unpriced.append(f"Karpenter pool {name} ({what})")
                continue
            per_gpu = {t: p.table("ec2_instance_hour")[t]["usd"] / p.table("ec2_instance_hour")[t]["gpus"]
                       for t in types}
            worst = max(per_gpu, key=per_gpu.__getitem__)
            gpus = int(limit)
            report.burst.append(BurstLine(
                "Karpenter", name, gpus, round(per_gpu[worst], 3), round(gpus * per_gpu[worst], 2),
                f"limit {gpus} GPUs x {worst} (most expensive allowed per GPU; spot never exceeds on-demand)"))


def _price_cpu_pool(name: str, cpu_limit: int, requirements: list[dict[str, Any]], p: Pricer,
                    report: Report) -> None:
    """A NodePool with a `cpu` limit: priced per node from its `node.kubernetes.io/instance-type` list (CPU types
    only; vCPUs from config/data/instance_specs.yaml)."""
    types = next((r.get("values", []) for r in requirements
                  if r.get("key") == "node.kubernetes.io/instance-type" and r.get("operator") == "In"), [])
    table = p.table("ec2_instance_hour")
    unresolved = [t for t in types if t not in table or table[t]["gpus"] or find_spec(t) is None]
    if not types or unresolved:
        report.unpriced.append(Line("k8s", name, "NodePool", f"no CPU price or specs for {unresolved or 'any type'} "
                                                              f"(list instance types In a CPU pool)", 0.0))
        return
    at_limit = {t: (cpu_limit // find_spec(t).vcpus) * table[t]["usd"] for t in types}
    priciest = max(types, key=lambda t: table[t]["usd"])
    worst = max(types, key=at_limit.__getitem__)
    nodes = max(cpu_limit // find_spec(t).vcpus for t in types)
    report.cpu_pools.append(CpuPoolLine(
        name, cpu_limit, priciest, table[priciest]["usd"], nodes, round(at_limit[worst], 2),
        f"{', '.join(types)}; at the limit: {cpu_limit // find_spec(worst).vcpus} x {worst}"))


def build_report(env: str, region: str, templates: dict[str, dict[str, Any]], manifest_dir: Path | None,
                 prices: dict[str, Any] | None = None) -> Report:
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
    report.notes.append("Excluded from idle: GPU instances (below), Studio apps (billed per running app-hour), data "
                        "transfer, S3/ECR storage and requests (usage-based).")
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
                    (folder / artifact["properties"]["templateFile"]).read_text())
                roles.setdefault(account, "automation" if name == "Delivery-Pipeline" else
                                 "logging" if name == "Delivery-Logging" else "workload")

    visit(cdk_out)
    return [(f"{roles[account]} account {account}", region, templates)
            for (account, region), templates in sorted(groups.items(), key=lambda kv: (
                ["automation", "logging", "workload"].index(roles[kv[0][0]]), kv[0]))]


def render(report: Report) -> str:
    rows = [f"Idle monthly cost - {report.env} ({report.region}, prices {report.price_version})", ""]
    width = max([len(line.item) for line in report.idle] + [20])
    for stack, total in report.idle_by_stack().items():
        rows.append(f"{stack}  ${total:,.2f}/month")
        for line in (x for x in report.idle if x.stack == stack):
            rows.append(f"    {line.item:<{width}}  {line.monthly_usd:>10,.2f}  {line.detail}")
    rows += ["", f"TOTAL idle (excluding GPUs and Studio apps): ${report.idle_total:,.2f}/month",
             f"  of which observability (dashboard, alarms, Container Insights, every log group): "
             f"${report.observability_total:,.2f}/month", ""]
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
        rows += ["", "Karpenter CPU job pools (no idle cost: nodes run only while CPU job pods find no room on the "
                     "system nodes; empty nodes are consolidated)"]
        for c in report.cpu_pools:
            rows.append(f"    {c.name:<{width}}  {c.usd_per_node_hour:>10,.4f}/h per node ({c.instance_type}), "
                        f"${c.usd_per_hour_at_limit:,.2f}/h at the {c.cpu_limit}-vCPU limit ({c.detail})")
    if report.builds:
        rows += ["", "Image builds (CodeBuild, billed per build minute while `make images` runs; not idle)"]
        for b in report.builds:
            typical = (f"~${b.expected_usd:,.2f} per build ({b.expected_minutes} min)" if b.expected_usd is not None
                       else "typical duration unknown")
            rows.append(f"    {b.project:<{width}}  {typical}; at most ${b.max_usd:,.2f} ({b.timeout_minutes} min "
                        f"timeout) on {b.compute_type} at ${b.usd_per_minute}/min")
        total = sum(b.expected_usd or 0 for b in report.builds)
        rows.append(f"    all images once: ~${total:,.2f}")
    if report.unpriced:
        rows += ["", "UNPRICED (not counted; add a price rule or a free/usage classification):"]
        rows += [f"    {u.stack}/{u.resource} {u.type}: {u.item} {u.detail}" for u in report.unpriced]
    rows += [""] + [f"note: {n}" for n in report.notes]
    return "\n".join(rows) + "\n"
