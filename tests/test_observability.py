"""`<Env>-Observability` and the logs of every stack: the add-on, log groups, the dashboard's metrics against the
documented table, alarms and their thresholds, config errors."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from cdk_constructs.documented_metrics import DOCUMENTED_METRICS
from config import ConfigError
from config._base import LOG_RETENTION_DAYS

from .conftest import ROOT, Synth, config_fails, config_with

STACK = "observability"


def untoken(value: Any) -> str:
    """A string property with CloudFormation expressions inside ``Fn::Join`` replaced by ``<token>``."""
    if isinstance(value, str):
        return value
    return "".join(p if isinstance(p, str) else "<token>" for p in value["Fn::Join"][1])


def from_stack(value: Any, stack_name: str) -> bool:
    """True if ``value`` is a reference to an output of ``stack_name`` (Fn::ImportValue or Fn::GetStackOutput)."""
    text = json.dumps(value)
    return ("Fn::ImportValue" in text and stack_name in text) or \
        f'"StackName": "{stack_name}"' in text


def one(synth: Synth, type_: str, stack: str = STACK) -> dict[str, Any]:
    found = synth.resources(stack, type_)
    assert len(found) == 1, f"expected one {type_} in {stack}, found {sorted(found)}"
    return next(iter(found.values()))


# ---- config errors -----------------------------------------------------------------------------------------

def _fails(overrides: dict[str, Any], *patterns: str) -> None:
    config_fails({"observability": overrides}, *patterns)


@pytest.mark.parametrize("address", ["oncall", "oncall@", "on call@example.com", "oncall@example"])
def test_bad_email_is_rejected(address: str) -> None:
    _fails({"alarm_emails": ["ok@example.com", address]},
           rf"observability\.alarm_emails \[{re.escape(repr(address))}\] are not e-mail addresses; use the form")


def test_duplicate_email_is_rejected() -> None:
    _fails({"alarm_emails": ["a@example.com", "A@example.com"]}, r"lists \['a@example\.com'\] more than once")


@pytest.mark.parametrize("days", [0, 2, 45, 4000])
def test_retention_cloudwatch_does_not_offer_is_rejected(days: int) -> None:
    assert days not in LOG_RETENTION_DAYS
    _fails({"log_retention_days": days},
           rf"observability\.log_retention_days {days} is not a CloudWatch Logs retention; use one of 1, 3, 5, 7")


@pytest.mark.parametrize("version,pattern", [
    ("6.4.0", r"'6\.4\.0' is not an EKS add-on version; use the form 'v6\.4\.0-eksbuild\.1'"),
    ("v3.0.9-eksbuild.2", r"'v3\.0\.9-eksbuild\.2' predates EKS Pod Identity support in the add-on; use "
                          r"v3\.1\.0-eksbuild\.1 or later"),
])
def test_bad_addon_version_is_rejected(version: str, pattern: str) -> None:
    _fails({"addon_version": version}, pattern)


@pytest.mark.parametrize("field,value,bound", [
    ("fsx_free_capacity_percent", 0, "greater than or equal to 1"),
    ("fsx_free_capacity_percent", 95, "less than or equal to 90"),
    ("aurora_acu_percent", 120, "less than or equal to 100"),
    ("reserved_idle_hours", 0, "greater than or equal to 1"),
    ("reserved_idle_hours", 100, "less than or equal to 72"),
    ("spot_interruptions_per_hour", 0, "greater than or equal to 1"),
    ("burst_usd_per_hour", -5, "greater than 0"),
])
def test_threshold_out_of_range_is_rejected(field: str, value: float, bound: str) -> None:
    _fails({"thresholds": {field: value}},
           rf"observability\.thresholds\.{field}: Input should be {bound} \(got {value}\); fix the value in")


def test_unknown_threshold_is_rejected_with_the_known_ones() -> None:
    _fails({"thresholds": {"gpu_idle": 3}}, r"observability\.thresholds\.gpu_idle: unknown key .*known keys here: "
                                            r"aurora_acu_percent, burst_usd_per_hour")


def test_burst_threshold_defaults_to_the_gpu_budget() -> None:
    cfg = config_with("dev")
    assert cfg.observability.thresholds.burst_usd_per_hour is None
    assert cfg.burst_alarm_usd_per_hour == cfg.cost.max_burst_usd_per_hour
    assert config_with("dev", {"observability": {"thresholds": {"burst_usd_per_hour": 50}}}).burst_alarm_usd_per_hour \
        == 50


# ---- the add-on ------------------------------------------------------------------------------------------------

def addon(synth: Synth) -> tuple[dict[str, Any], dict[str, Any]]:
    res = one(synth, "AWS::EKS::Addon")
    return res, json.loads(res["Properties"]["ConfigurationValues"])


def test_addon_is_pinned_with_pod_identity(env_synth: Synth) -> None:
    res, _ = addon(env_synth)
    props = res["Properties"]
    assert props["AddonName"] == "amazon-cloudwatch-observability"
    assert props["AddonVersion"] == env_synth.config.observability.addon_version
    assoc_id, assoc = next(iter(env_synth.resources(STACK, "AWS::EKS::PodIdentityAssociation").items()))
    assoc = assoc["Properties"]
    assert (assoc["Namespace"], assoc["ServiceAccount"]) == ("amazon-cloudwatch", "cloudwatch-agent")
    assert assoc_id in res["DependsOn"], "the agent's identity exists before its pods"
    role_id = assoc["RoleArn"]["Fn::GetAtt"][0]
    role = env_synth.templates[STACK]["Resources"][role_id]["Properties"]
    (statement,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert statement["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    tags = statement["Condition"]["StringEquals"]
    assert (tags["aws:RequestTag/kubernetes-namespace"], tags["aws:RequestTag/kubernetes-service-account"]) == \
        ("amazon-cloudwatch", "cloudwatch-agent")
    assert sorted(statement["Action"]) == ["sts:AssumeRole", "sts:TagSession"]
    assert [untoken(a) for a in role["ManagedPolicyArns"]] == \
        ["arn:<token>:iam::aws:policy/CloudWatchAgentServerPolicy"]
    assert "ServiceAccountRoleArn" not in props, "IRSA and Pod Identity at once"


def test_addon_runs_on_every_node_kind_and_collects_gpu_kueue_and_logs(env_synth: Synth, tmp_path) -> None:
    """A toleration with operator Exists and no key tolerates every taint (Kubernetes taint/toleration rules), so
    the agents run on HyperPod nodes, tainted Karpenter GPU pools and system nodes alike."""
    _, cfg = addon(env_synth)
    assert {"operator": "Exists"} in cfg["tolerations"]
    assert all("key" not in t and "effect" not in t for t in cfg["tolerations"] if t.get("operator") == "Exists")
    k8s = cfg["agent"]["config"]["logs"]["metrics_collected"]["kubernetes"]
    assert k8s == {"enhanced_container_insights": True, "accelerated_compute_metrics": True,
                   "kueue_container_insights": True}
    assert cfg["containerLogs"]["enabled"] is True
    assert cfg["manager"]["applicationSignals"]["autoMonitor"]["monitorAllServices"] is False
    names = [a["name"] for a in cfg["agents"]]
    assert names[:2] == ["cloudwatch-agent", "cloudwatch-agent-cluster-scraper"], "the chart's default agents"
    prom = next(a for a in cfg["agents"] if a["name"] == "cloudwatch-agent-prometheus")
    assert prom["mode"] == "deployment" and prom["replicas"] == 1, "one scraper, or every counter is counted twice"
    collected = prom["config"]["logs"]["metrics_collected"]["prometheus"]
    assert collected["cluster_name"] == env_synth.config.cluster_name
    (job,) = prom["prometheus"]["config"]["scrape_configs"]
    assert {"target_label": "ClusterName", "replacement": env_synth.config.cluster_name} in job["relabel_configs"]


def test_prometheus_declarations_are_the_documented_dimensions(env_synth: Synth) -> None:
    """What the scraper publishes (its EMF declarations) is what the dashboard and alarms may reference."""
    _, cfg = addon(env_synth)
    prom = next(a for a in cfg["agents"] if a["name"] == "cloudwatch-agent-prometheus")
    emf = prom["config"]["logs"]["metrics_collected"]["prometheus"]["emf_processor"]
    published = {}
    for decl in emf["metric_declaration"]:
        for selector in decl["metric_selectors"]:
            published[selector.strip("^$")] = {frozenset(d) for d in decl["dimensions"]}
    documented = {name: set(m.dimension_sets) for (ns, name), m in DOCUMENTED_METRICS.items()
                  if ns == emf["metric_namespace"]}
    assert published == documented


def test_container_log_groups_exist_before_the_addon(env_synth: Synth) -> None:
    res, _ = addon(env_synth)
    groups = env_synth.resources(STACK, "AWS::Logs::LogGroup")
    cluster = env_synth.config.cluster_name
    names = {lid: g["Properties"].get("LogGroupName") for lid, g in groups.items()}
    expected = {f"/aws/containerinsights/{cluster}/{k}"
                for k in ("application", "dataplane", "host", "performance", "prometheus")}
    assert expected <= set(names.values())
    assert {lid for lid, n in names.items() if n in expected} <= set(res["DependsOn"])


# ---- logs in every template --------------------------------------------------------------------------------------

def test_every_log_group_has_a_retention_and_a_kms_key(env_synth: Synth) -> None:
    """Every group any stack creates expires, and is encrypted with a customer key - except where the key cannot
    exist yet (the network stack precedes the storage stack's key), which must say so beside the resource."""
    retention = env_synth.config.observability.log_retention_days
    assert retention in LOG_RETENTION_DAYS
    problems = []
    for stack, template in env_synth.templates.items():
        for lid, res in template["Resources"].items():
            if res["Type"] != "AWS::Logs::LogGroup":
                continue
            props = res["Properties"]
            if props.get("RetentionInDays") not in LOG_RETENTION_DAYS:
                problems.append(f"{stack}/{lid}: no retention")
            skips = {s["id"] for s in res.get("Metadata", {}).get("checkov", {}).get("skip", [])}
            if "KmsKeyId" not in props and "CKV_AWS_158" not in skips:
                problems.append(f"{stack}/{lid}: not encrypted with a KMS key and no reason given")
    assert not problems, "\n".join(problems)


def test_every_lambda_function_logs_to_a_group_with_the_configured_retention(env_synth: Synth) -> None:
    """Lambda creates `/aws/lambda/<function>` on first invocation, never expiring, unless the function names a log
    group (LoggingConfig.LogGroup) or the template creates that group itself."""
    problems = []
    for stack, template in env_synth.templates.items():
        resources = template["Resources"]
        groups = {lid: r["Properties"] for lid, r in resources.items() if r["Type"] == "AWS::Logs::LogGroup"}
        for lid, res in resources.items():
            if res["Type"] != "AWS::Lambda::Function":
                continue
            target = res["Properties"].get("LoggingConfig", {}).get("LogGroup")
            named = [g for g, p in groups.items() if f'"Ref": "{lid}"' in json.dumps(p.get("LogGroupName"))]
            group = target["Ref"] if isinstance(target, dict) and "Ref" in target else (named[0] if named else None)
            if group is None:
                problems.append(f"{stack}/{lid}: Lambda would create a never-expiring /aws/lambda group")
            elif groups[group].get("RetentionInDays") not in LOG_RETENTION_DAYS:
                problems.append(f"{stack}/{lid}: its group {group} has no retention")
    assert not problems, "\n".join(problems)


def test_cdk_handler_logs_follow_the_observability_retention(env_synth: Synth) -> None:
    days = env_synth.config.observability.log_retention_days
    for stack in ("network", "compute"):
        for lid, res in env_synth.resources(stack, "AWS::Logs::LogGroup").items():
            name = json.dumps(res["Properties"].get("LogGroupName"))
            if "/aws/lambda/" in name or "Handler" in lid or "onEvent" in lid:
                assert res["Properties"]["RetentionInDays"] == days, f"{stack}/{lid}"


def test_eks_control_plane_log_group_precedes_the_cluster(env_synth: Synth) -> None:
    resources = env_synth.templates["compute"]["Resources"]
    cluster_id, cluster = next((k, v) for k, v in resources.items() if v["Type"] == "AWS::EKS::Cluster")
    name = f"/aws/eks/{env_synth.config.cluster_name}/cluster"
    (lid,) = [k for k, v in resources.items()
              if v["Type"] == "AWS::Logs::LogGroup" and v["Properties"].get("LogGroupName") == name]
    group = resources[lid]["Properties"]
    assert lid in cluster["DependsOn"], f"{cluster_id} must wait for {lid}"
    assert group["RetentionInDays"] == env_synth.config.observability.log_retention_days
    assert from_stack(group["KmsKeyId"], f"{env_synth.config.stack_prefix}-Storage"), "the platform key"
    assert set(cluster["Properties"]["Logging"]["ClusterLogging"]["EnabledTypes"][0]) == {"Type"}


def test_hyperpod_log_group_gets_retention_and_key_after_the_cluster_exists(env_synth: Synth) -> None:
    """`/aws/sagemaker/Clusters/<name>/<id>`: created if missing (HyperPod may have created it first), then the
    configured retention and the platform key are set on it."""
    calls = {}
    for res in env_synth.resources("compute", "Custom::AWS").values():
        create = json.loads(untoken(res["Properties"]["Create"]))
        calls[create["action"]] = (create, res)
    assert set(calls) == {"createLogGroup", "putRetentionPolicy", "associateKmsKey"}
    name = f"/aws/sagemaker/Clusters/{env_synth.stacks['compute'].hyperpod.cluster.cluster_name}/<token>"
    for action, (call, _) in calls.items():
        assert call["service"] == "CloudWatchLogs" and call["parameters"]["logGroupName"] == name, action
    assert calls["createLogGroup"][0]["ignoreErrorCodesMatching"] == "ResourceAlreadyExistsException"
    assert calls["putRetentionPolicy"][0]["parameters"]["retentionInDays"] == \
        env_synth.config.observability.log_retention_days
    assert calls["associateKmsKey"][0]["parameters"]["kmsKeyId"] == "<token>"
    create_id = next(lid for lid, r in env_synth.resources("compute", "Custom::AWS").items()
                     if r is calls["createLogGroup"][1])
    for action in ("putRetentionPolicy", "associateKmsKey"):
        assert create_id in calls[action][1]["DependsOn"], action
        assert "Update" in calls[action][1]["Properties"], f"{action} must re-apply when the config changes"


# ---- dashboard -----------------------------------------------------------------------------------------------

SEARCH = re.compile(r"SEARCH\('\{([^}]*)\} MetricName=\\?\"(\w+)\\?\"(.*?)', '(\w+)', (\d+)\)")


def dashboard_widgets(synth: Synth) -> list[dict[str, Any]]:
    body = one(synth, "AWS::CloudWatch::Dashboard")["Properties"]["DashboardBody"]
    return json.loads(untoken(body))["widgets"]


def referenced_metrics(widget_metrics: list[list[Any]]) -> list[tuple[str, str, frozenset[str], dict[str, str]]]:
    """(namespace, name, dimension names, dimension values) of every metric a widget or alarm draws, SEARCH
    expressions included."""
    out = []
    for row in widget_metrics:
        if isinstance(row[-1], dict) and "expression" in row[-1]:
            for schema, name, terms, _, _ in SEARCH.findall(row[-1]["expression"]):
                namespace, *dims = [p.strip('"') for p in schema.split(",")]
                values = dict(re.findall(r'(\w+)="?([\w.\-/<>]+)"?', terms))
                out.append((namespace, name, frozenset(dims), values))
            continue
        namespace, name, *rest = [x for x in row if not isinstance(x, dict)]
        if namespace == ".":
            continue
        dims = dict(zip(rest[::2], rest[1::2]))
        out.append((namespace, name, frozenset(dims), dims))
    return out


def test_dashboard_references_only_documented_metrics_and_dimensions(env_synth: Synth) -> None:
    problems, seen = [], 0
    for widget in dashboard_widgets(env_synth):
        props = widget["properties"]
        for namespace, name, dims, values in referenced_metrics(props.get("metrics", [])):
            seen += 1
            entry = DOCUMENTED_METRICS.get((namespace, name))
            if entry is None:
                problems.append(f"{props['title']}: {namespace}/{name} is emitted by no collector")
            elif dims not in entry.dimension_sets:
                problems.append(f"{props['title']}: {namespace}/{name} is not published with {sorted(dims)}")
            if "ClusterName" in values and values["ClusterName"] != env_synth.config.cluster_name:
                problems.append(f"{props['title']}: ClusterName {values['ClusterName']}")
    assert not problems, "\n".join(problems)
    assert seen >= 30


def test_dashboard_shows_what_the_issue_asks_for(env_synth: Synth) -> None:
    titles = [w["properties"].get("title") or w["properties"]["markdown"].splitlines()[0]
              for w in dashboard_widgets(env_synth)]
    text = " | ".join(titles).lower()
    for needle in ("gpu utilization by capacity kind", "gpu memory utilization by capacity kind",
                   "gpu utilization by team", "reserved capacity utilization", "karpenter nodes launched / terminated",
                   "spot interruptions", "pending", "fsx throughput and iops", "fsx free capacity",
                   "mlflow alb requests and 5xx", "aurora acus", "burst spend per hour", "ray dashboard"):
        assert needle in text, f"no widget for {needle!r}: {titles}"


def test_dashboard_covers_every_team_and_capacity_kind(env_synth: Synth) -> None:
    body = json.dumps(dashboard_widgets(env_synth))
    cfg = env_synth.config
    for team in cfg.kubernetes.teams:
        assert f'"Namespace", "{team.name}"' in body
    for pool in cfg.kubernetes.gpu_node_pools:
        for itype in pool.instance_types:
            assert f'InstanceType=\\\\\\"{itype}\\\\\\"' in body or f'InstanceType=\\"{itype}\\"' in body, itype
    assert "NodeName=hyperpod" in body


def test_burst_spend_uses_the_price_file(env_synth: Synth) -> None:
    from tools.cost.report import Pricer, load_prices

    pricer = Pricer(load_prices(), env_synth.config.region)
    (spend,) = [w for w in dashboard_widgets(env_synth) if w["properties"].get("title", "").startswith("Burst spend")]
    expression = spend["properties"]["metrics"][0][0]["expression"]
    for pool in env_synth.config.kubernetes.gpu_node_pools:
        for itype in pool.instance_types:
            entry = pricer.instance(itype)
            assert f"{entry['usd'] / entry['gpus']:.4f}" in expression, itype


# ---- alarms ----------------------------------------------------------------------------------------------------

def alarms(synth: Synth) -> dict[str, dict[str, Any]]:
    return {r["Properties"]["AlarmName"].removeprefix(f"{synth.config.resource_prefix}-"): r["Properties"]
            for r in synth.resources(STACK, "AWS::CloudWatch::Alarm").values()}


def expected_thresholds(synth: Synth) -> dict[str, float]:
    """Each alarm's threshold, derived from the config (and the price file for GPU counts)."""
    from stacks.observability_stack import gpu_prices

    cfg = synth.config
    t = cfg.observability.thresholds
    _, reserved_gpus, _ = gpu_prices(cfg)
    out = {
        "FsxFreeCapacityLow": round(t.fsx_free_capacity_percent / 100 * cfg.storage.fsx.storage_capacity_gib * 2**30),
        "MlflowUnhealthyTargets": t.mlflow_unhealthy_targets,
        "Mlflow5xx": t.mlflow_5xx_per_5_minutes,
        "AuroraAtMaxAcu": t.aurora_acu_percent,
        "HyperPodNodeEvents": t.hyperpod_node_events_per_hour,
        "KarpenterErrors": t.karpenter_errors_per_15_minutes,
        "SpotInterruptions": t.spot_interruptions_per_hour,
    }
    if reserved_gpus:
        out["ReservedGpusIdle"] = t.reserved_idle_gpus
    if cfg.burst_alarm_usd_per_hour is not None:
        out["BurstSpendOverBudget"] = cfg.burst_alarm_usd_per_hour
    return out


def test_every_alarm_has_an_action_and_its_threshold_from_config(env_synth: Synth) -> None:
    found = alarms(env_synth)
    expected = expected_thresholds(env_synth)
    assert set(found) == set(expected)
    topic = next(iter(env_synth.resources(STACK, "AWS::SNS::Topic")))
    for name, props in found.items():
        assert props["AlarmActions"] == [{"Ref": topic}], name
        assert props["Threshold"] == pytest.approx(expected[name]), name
    idle = found.get("ReservedGpusIdle")
    if idle:
        assert idle["EvaluationPeriods"] == env_synth.config.observability.thresholds.reserved_idle_hours
        assert idle["Metrics"][-1]["Period"] == 3600 if "Period" in idle["Metrics"][-1] else True


def test_alarms_watch_documented_metrics(env_synth: Synth) -> None:
    for name, props in alarms(env_synth).items():
        stats = [m["MetricStat"]["Metric"] for m in props.get("Metrics", []) if "MetricStat" in m]
        if "MetricName" in props:
            stats.append(props)
        assert stats, name
        for m in stats:
            dims = frozenset(d["Name"] for d in m.get("Dimensions", []))
            entry = DOCUMENTED_METRICS.get((m["Namespace"], m["MetricName"]))
            assert entry is not None and dims in entry.dimension_sets, f"{name}: {m['Namespace']}/{m['MetricName']}"


def test_alarm_topic_is_encrypted_and_subscribes_the_configured_addresses(env_synth: Synth) -> None:
    topic = one(env_synth, "AWS::SNS::Topic")["Properties"]
    assert "KmsMasterKeyId" in topic
    subs = sorted(s["Properties"]["Endpoint"] for s in env_synth.resources(STACK, "AWS::SNS::Subscription").values())
    assert subs == sorted(env_synth.config.observability.alarm_emails)


def test_hyperpod_events_rule_matches_this_clusters_instance_events(env_synth: Synth) -> None:
    rules = [r["Properties"] for r in env_synth.resources(STACK, "AWS::Events::Rule").values()]
    (rule,) = [r for r in rules if r["EventPattern"].get("source") == ["aws.sagemaker"]]
    pattern = rule["EventPattern"]
    assert pattern["detail-type"] == ["SageMaker HyperPod Cluster Event"]
    assert pattern["detail"]["EventDetails"]["ResourceType"] == ["Instance"]
    assert from_stack(pattern["resources"], f"{env_synth.config.stack_prefix}-Compute")


def test_readme_has_a_runbook_line_per_alarm(env_synth: Synth) -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### Alarms and runbooks", 1)[1].split("\n## ", 1)[0]
    for name in alarms(env_synth):
        assert re.search(rf"^\| `{name}` \|.+\|.+\|.+\|$", section, re.MULTILINE), f"no runbook row for {name}"


# ---- cost -----------------------------------------------------------------------------------------------------

def test_make_cost_prices_what_observability_costs(env_synth: Synth) -> None:
    from .test_cost import report_for

    report = report_for(env_synth.config.name)
    items = {line.item for line in report.idle if line.stack.endswith("Observability")}
    assert {"CloudWatch dashboard", "CloudWatch alarm", "Container Insights observations (estimate)",
            "Prometheus custom metrics (estimate)", "Log ingestion (estimate)"} <= items
    alarms_cost = sum(line.monthly_usd for line in report.idle if line.item == "CloudWatch alarm")
    metrics = sum(max(1, sum("MetricStat" in m for m in a.get("Metrics", [])))
                  for a in alarms(env_synth).values())
    assert alarms_cost == pytest.approx(metrics * 0.10), "one alarm metric costs $0.10 (prices.yaml)"
    assert 0 < report.observability_total < report.idle_total
