"""`<Env>-Observability` and the logs of every stack: the add-on, log groups, the dashboard's metrics against the
documented table, alarms and their thresholds, config errors."""

from __future__ import annotations

import hashlib
import json
import math
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from cdk_constructs.observability.container_insights import (
    ARGO_WORKFLOWS_METRICS,
    CI_AGENT,
    PROMETHEUS_AGENT,
    SCRAPE_INTERVAL_SECONDS,
)
from cdk_constructs.observability.documented_metrics import (
    CONTAINER_INSIGHTS,
    DOCUMENTED_METRICS,
    JOB_LOGS,
    PROMETHEUS,
    job_logs_namespace,
    lookup,
)
from config._base import LOG_RETENTION_DAYS

from .conftest import Synth, config_fails, config_with
from .helm_binary import helm_binary

STACK = "observability"


def untoken(value: Any) -> str:
    """A string property with CloudFormation expressions inside ``Fn::Join`` replaced by ``<token>``."""
    if isinstance(value, str):
        return value
    return "".join(p if isinstance(p, str) else "<token>" for p in value["Fn::Join"][1])


def from_stack(value: Any, stack_name: str) -> bool:
    """True if ``value`` is a reference to an output of ``stack_name`` (Fn::ImportValue or Fn::GetStackOutput)."""
    text = json.dumps(value)
    return ("Fn::ImportValue" in text and stack_name in text) or f'"StackName": "{stack_name}"' in text


def one(synth: Synth, type_: str, stack: str = STACK) -> dict[str, Any]:
    return synth.one(stack, type_)[1]


# ---- config errors -----------------------------------------------------------------------------------------


def _fails(overrides: dict[str, Any], *patterns: str) -> None:
    config_fails({"observability": overrides}, *patterns)


@pytest.mark.parametrize("address", ["oncall", "oncall@", "on call@example.com", "oncall@example"])
def test_bad_email_is_rejected(address: str) -> None:
    _fails(
        {"alarm_emails": ["ok@example.com", address]},
        rf"observability\.alarm_emails \[{re.escape(repr(address))}\] are not e-mail addresses; use the form",
    )


def test_duplicate_email_is_rejected() -> None:
    _fails({"alarm_emails": ["a@example.com", "A@example.com"]}, r"lists \['a@example\.com'\] more than once")


@pytest.mark.parametrize("days", [0, 2, 45, 4000])
def test_retention_cloudwatch_does_not_offer_is_rejected(days: int) -> None:
    assert days not in LOG_RETENTION_DAYS
    _fails(
        {"log_retention_days": days},
        rf"observability\.log_retention_days {days} is not a CloudWatch Logs retention; use one of 1, 3, 5, 7",
    )


@pytest.mark.parametrize(
    "version,pattern",
    [
        ("6.4.0", r"'6\.4\.0' is not an EKS add-on version; use the form 'v6\.4\.0-eksbuild\.1'"),
        (
            "v3.0.9-eksbuild.2",
            r"'v3\.0\.9-eksbuild\.2' predates EKS Pod Identity support in the add-on; use "
            r"v3\.1\.0-eksbuild\.1 or later",
        ),
    ],
)
def test_bad_addon_version_is_rejected(version: str, pattern: str) -> None:
    _fails({"addon_version": version}, pattern)


@pytest.mark.parametrize(
    "field,value,bound",
    [
        ("fsx_free_capacity_percent", 0, "greater than or equal to 1"),
        ("fsx_free_capacity_percent", 95, "less than or equal to 90"),
        ("aurora_acu_percent", 120, "less than or equal to 100"),
        ("reserved_idle_hours", 0, "greater than or equal to 1"),
        ("reserved_idle_hours", 100, "less than or equal to 72"),
        ("spot_interruptions_per_hour", 0, "greater than or equal to 1"),
        ("burst_usd_per_hour", -5, "greater than 0"),
        ("training_hangs_per_hour", 0, "greater than or equal to 1"),
    ],
)
def test_threshold_out_of_range_is_rejected(field: str, value: float, bound: str) -> None:
    _fails(
        {"thresholds": {field: value}},
        rf"observability\.thresholds\.{field}: Input should be {bound} \(got {value}\); fix the value in",
    )


def test_unknown_threshold_is_rejected_with_the_known_ones() -> None:
    _fails(
        {"thresholds": {"gpu_idle": 3}},
        r"observability\.thresholds\.gpu_idle: unknown key .*known keys here: "
        r"aurora_acu_percent, burst_usd_per_hour",
    )


def test_burst_threshold_defaults_to_the_gpu_budget() -> None:
    cfg = config_with("dev")
    assert cfg.observability.thresholds.burst_usd_per_hour is None
    assert cfg.burst_alarm_usd_per_hour == cfg.cost.max_burst_usd_per_hour
    assert (
        config_with("dev", {"observability": {"thresholds": {"burst_usd_per_hour": 50}}}).burst_alarm_usd_per_hour == 50
    )


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
    assert (tags["aws:RequestTag/kubernetes-namespace"], tags["aws:RequestTag/kubernetes-service-account"]) == (
        "amazon-cloudwatch",
        "cloudwatch-agent",
    )
    assert sorted(statement["Action"]) == ["sts:AssumeRole", "sts:TagSession"]
    assert [untoken(a) for a in role["ManagedPolicyArns"]] == [
        "arn:<token>:iam::aws:policy/CloudWatchAgentServerPolicy"
    ]
    assert "ServiceAccountRoleArn" not in props, "IRSA and Pod Identity at once"


def agent_entry(cfg: dict[str, Any], name: str) -> dict[str, Any]:
    (entry,) = [a for a in cfg["agents"] if a["name"] == name]
    return entry


def test_addon_runs_on_every_node_kind_and_collects_gpu_kueue_and_logs(env_synth: Synth) -> None:
    """A toleration with operator Exists and no key tolerates every taint (Kubernetes taint/toleration rules), so
    the agents run on HyperPod nodes, tainted Karpenter GPU pools and system nodes alike."""
    _, cfg = addon(env_synth)
    assert {"operator": "Exists"} in cfg["tolerations"]
    assert all("key" not in t and "effect" not in t for t in cfg["tolerations"] if t.get("operator") == "Exists")
    k8s = agent_entry(cfg, CI_AGENT)["config"]["logs"]["metrics_collected"]["kubernetes"]
    assert k8s == {"enhanced_container_insights": True, "accelerated_compute_metrics": True}, (
        "Kueue is scraped by the Prometheus agent (tests/test_kueue_metrics.py), not the built-in Kueue scraper"
    )
    assert cfg["containerLogs"]["enabled"] is True
    assert cfg["manager"]["applicationSignals"]["autoMonitor"]["monitorAllServices"] is False
    names = [a["name"] for a in cfg["agents"]]
    assert names == [CI_AGENT, PROMETHEUS_AGENT], (
        "no cloudwatch-agent-cluster-scraper entry: the chart skips it without otelContainerInsights"
    )
    prom = agent_entry(cfg, PROMETHEUS_AGENT)
    assert prom["mode"] == "deployment" and prom["replicas"] == 1, "one scraper, or every counter is counted twice"
    collected = prom["config"]["logs"]["metrics_collected"]["prometheus"]
    assert collected["cluster_name"] == env_synth.config.cluster_name
    jobs = prom["prometheus"]["config"]["scrape_configs"]
    assert [j["job_name"] for j in jobs] == ["karpenter", "kueue", "llmft-serve"]
    assert prom["hostNetwork"] is False, "pod-networked: the serving pods' NetworkPolicy admits its namespace"
    for job in jobs:
        assert {"target_label": "ClusterName", "replacement": env_synth.config.cluster_name} in job["relabel_configs"]
    assert prom["prometheus"]["config"]["global"]["scrape_interval"] == f"{SCRAPE_INTERVAL_SECONDS}s", (
        "the GPU-count math (Sum x interval / PERIOD) assumes this interval"
    )


# ---- what the chart does with the configuration (real chart templates, real helm) -------------------------------

UPSTREAM = Path(__file__).parent / "upstream"
CHART = UPSTREAM / "amazon-cloudwatch-observability-6.4.0"
AGENT_GOLDEN = UPSTREAM / "amazon-cloudwatch-agent-v1.300070.0"
UPSTREAM_SHA256 = {
    "amazon-cloudwatch-agent-v1.300070.0/emf_and_kubernetes_with_gpu_config.json": (
        "0e5fdc6f967a7f3d5237b9c9c85dea150ee98e39b6de39f6795f2a06c1d43d81"
    ),
    "amazon-cloudwatch-agent-v1.300070.0/emf_and_kubernetes_with_gpu_config.yaml": (
        "2ac5cb63d2f7b15070bf8409b3ee548dbc27d89086facb7da4e210c2df1fab96"
    ),
    "amazon-cloudwatch-agent-v1.300070.0/emf_and_kubernetes_with_kueue_config.json": (
        "5f75b7bc50e4bde7441d04ccac138df19b28656cb1f04ab4524b19f679a036bf"
    ),
    "amazon-cloudwatch-agent-v1.300070.0/emf_and_kubernetes_with_kueue_config.yaml": (
        "448c9b34ebf7f440cce935fd79b3684f26989f58fc128f308c6e1e72ecaa3e47"
    ),
    "amazon-cloudwatch-observability-6.4.0/Chart.yaml": (
        "6cc3852512783c033672739fab6e012b57c0e633c1355f3e2f48730fd5c6b354"
    ),
    "amazon-cloudwatch-observability-6.4.0/templates/_helpers.tpl": (
        "e644f643a30d6b21f054c2aaa248f4a8e6a2107b0077c732994a1e1d58b8efef"
    ),
    "amazon-cloudwatch-observability-6.4.0/templates/linux/cloudwatch-agent-custom-resource.yaml": (
        "39a99a44ea626099dd99ff4ea99e8fb3e06c28fa5b3bf64f673bd07d64f3fd27"
    ),
    "amazon-cloudwatch-observability-6.4.0/values.yaml": (
        "451a7eaee8dc3be6d6b3cab5366ea99c24362044cf59568c9aab11f6623256c6"
    ),
    "kueue-0.19.2/Chart.yaml": "8bb13af25a6d9a72490b4b09bd547bd59c648eb54c734bedce633963d851a128",
    "kueue-0.19.2/values.yaml": "b09fa9b4ab3db548fab0cddffae88f71599f4f3697b3635a044c2d531b2e97c0",
    "kueue-0.19.2/templates/_helpers.tpl": "6e5ba25476e96fec20385b618a72874b5ed8e11a0ea2546f0aa0e5d9f7d8a102",
    "kueue-0.19.2/templates/manager/auth_proxy_service.yaml": (
        "fff56c7d6b53c69177f4577869453d004d280275502ae7759fc93a5f835dc906"
    ),
    "awscontainerinsightskueuereceiver/kueue_prometheus_scraper.go": (
        "32ef6d03411193be03e98be1a3a2384c1e4c584a6e3bbf48d8a950432b3678b7"
    ),
    "sagemaker-hyperpod-cli-011ca927/Chart.yaml": "09af7cc28919751996160b9557b711f247dc595317b2d1d3e3629e43c9ae85f0",
    "argo-workflows-1.0.18/Chart.yaml": "895610993d02c960042cc1c2b284492b5ecb903ab9ebb7a89a3be7e35925130a",
    "argo-workflows-1.0.18/values.yaml": "767fffe7ffa99d1d92a5cf51ef61315e6df63c79420195055eac3d28ce1796ed",
    "argo-workflows-1.0.18/templates/_helpers.tpl": "da2670d7235f74cdbe71981968ca77d4b4e35943aca618cfe6da5021a5966b9a",
    "argo-workflows-1.0.18/templates/controller/workflow-controller-service.yaml": (
        "9e2fb4fc174d1d6b354d1c269d3ccba445c23fffb99c103a0d0af8cebae46850"
    ),
    "keda-2.19.0/Chart.yaml": "7a730ac583d2326a05e51739dcd12ff0ad180e3ee9b0f8e462ddd378379beabc",
    "keda-2.19.0/values.yaml": "0675ee5518b3de9b66338f9e2c5ee16eef764fd822fb4d17f82572866a86ec63",
}


def test_upstream_copies_are_unmodified() -> None:
    """tests/upstream/SOURCES.md: tag, path and commit of each file."""
    found = {
        p.relative_to(UPSTREAM).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in UPSTREAM.rglob("*")
        if p.is_file() and p.name != "SOURCES.md"
    }
    assert found == UPSTREAM_SHA256
    sources = (UPSTREAM / "SOURCES.md").read_text()
    assert all(f"| {name} |" in sources for name in UPSTREAM_SHA256)
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert (chart["name"], chart["version"]) == ("amazon-cloudwatch-observability", "6.4.0")
    assert env_addon_chart_version() == chart["version"]
    agent_tag = yaml.safe_load((CHART / "values.yaml").read_text())["agent"]["image"]["tag"]
    assert agent_tag.startswith("1.300070.0"), "the chart ships the agent whose declarations are vendored"


def env_addon_chart_version() -> str:
    """Add-on v<chart version>-eksbuild.N: the add-on packages the chart of the same version."""
    return re.fullmatch(r"v(\d+\.\d+\.\d+)-eksbuild\.\d+", config_with("dev").observability.addon_version)[1]


def render_agents(
    configuration: dict[str, Any], cluster_name: str, region: str, tmp_path: Path
) -> dict[str, dict[str, Any]]:
    """AmazonCloudWatchAgent name -> its ``spec.config`` (parsed), as the chart renders ``configuration`` (the
    add-on's configurationValues; EKS supplies clusterName and region)."""
    values = tmp_path / "values.json"
    values.write_text(json.dumps(configuration))
    proc = subprocess.run(
        [
            str(helm_binary()),
            "template",
            "amazon-cloudwatch-observability",
            str(CHART),
            "--namespace",
            "amazon-cloudwatch",
            "--values",
            str(values),
            "--set-string",
            f"clusterName={cluster_name}",
            "--set-string",
            f"region={region}",
            "--show-only",
            "templates/linux/cloudwatch-agent-custom-resource.yaml",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    return {
        d["metadata"]["name"]: json.loads(d["spec"]["config"])
        for d in yaml.safe_load_all(proc.stdout)
        if d and d["kind"] == "AmazonCloudWatchAgent"
    }


def test_prometheus_scraper_does_not_inherit_container_insights(env_synth: Synth, tmp_path: Path) -> None:
    """The chart deep-merges root ``agent`` into every ``agents[]`` entry (mergeOverwrite): rendered with the real
    template and helm, only the Container Insights DaemonSet collects ``kubernetes``; the scraper collects only
    ``prometheus``."""
    _, cfg = addon(env_synth)
    cluster = env_synth.config.cluster_name
    agents = render_agents(cfg, cluster, env_synth.config.region, tmp_path)
    assert set(agents) == {CI_AGENT, PROMETHEUS_AGENT}, "the cluster scraper is skipped without otelContainerInsights"
    assert set(agents[PROMETHEUS_AGENT]["logs"]["metrics_collected"]) == {"prometheus"}
    ci = agents[CI_AGENT]["logs"]["metrics_collected"]
    assert set(ci) == {"kubernetes"}
    assert ci["kubernetes"] == {
        "enhanced_container_insights": True,
        "accelerated_compute_metrics": True,
        "cluster_name": cluster,
    }


def test_the_render_detects_a_root_agent_config_leak(env_synth: Synth, tmp_path: Path) -> None:
    """Control for the test above: the same settings given as root ``agent.config`` (the layout before) do reach
    the Prometheus scraper in the rendered chart - so the render really exercises the merge."""
    _, cfg = addon(env_synth)
    ci_config = agent_entry(cfg, CI_AGENT).pop("config")
    cfg["agent"] = {"config": ci_config}
    agents = render_agents(cfg, env_synth.config.cluster_name, env_synth.config.region, tmp_path)
    assert set(agents[PROMETHEUS_AGENT]["logs"]["metrics_collected"]) == {"kubernetes", "prometheus"}


# ---- which metrics exist: the agent's own translated configuration ---------------------------------------------


def agent_declarations() -> dict[tuple[str, str], set[frozenset[str]]]:
    """(namespace, metric) -> dimension sets, from the awsemf exporters of the agent's golden translations."""
    out: dict[tuple[str, str], set[frozenset[str]]] = {}
    for name, exporter in (
        ("emf_and_kubernetes_with_gpu_config", "awsemf/containerinsights"),
        ("emf_and_kubernetes_with_kueue_config", "awsemf/kueueContainerInsights"),
    ):
        emf = yaml.safe_load((AGENT_GOLDEN / f"{name}.yaml").read_text())["exporters"][exporter]
        for decl in emf["metric_declarations"]:
            for metric_name in decl["metric_name_selectors"]:
                out.setdefault((emf["namespace"], metric_name.strip("^$")), set()).update(
                    frozenset(d) for d in decl["dimensions"]
                )
    return out


def test_golden_translations_have_our_switches(env_synth: Synth) -> None:
    """The vendored translations were made from agent configs with the switches our DaemonSet agent gets."""
    _, cfg = addon(env_synth)
    ours = agent_entry(cfg, CI_AGENT)["config"]["logs"]["metrics_collected"]["kubernetes"]
    gpu = json.loads((AGENT_GOLDEN / "emf_and_kubernetes_with_gpu_config.json").read_text())
    gpu_k8s = gpu["logs"]["metrics_collected"]["kubernetes"]
    assert gpu_k8s["enhanced_container_insights"] is ours["enhanced_container_insights"] is True
    assert gpu_k8s.get("accelerated_compute_metrics", True) is ours["accelerated_compute_metrics"] is True
    assert "kueue_container_insights" not in ours


def test_documented_container_insights_and_kueue_metrics_are_declared_by_the_agent() -> None:
    """Every Container Insights / Kueue row of documented_metrics.py, name and every dimension set, is an EMF
    declaration of the agent the add-on ships. (The review's metrics - node_gpu_request, cluster_gpu_total, ... - and
    sets - pod_gpu_request by Namespace, node_gpu_limit by InstanceType - fail here.) The Kueue rows are published by
    the platform's own scrape (KUEUE_DECLARATIONS), with the agent's Kueue names and sets, so a dashboard built for
    the agent's Kueue metrics (CloudWatch User Guide) reads the same series."""
    declared = agent_declarations()
    rows = [m for m in DOCUMENTED_METRICS.values() if m.namespace == CONTAINER_INSIGHTS or m.name.startswith("kueue_")]
    assert len(rows) >= 15
    problems = []
    for m in rows:
        sets = declared.get((m.namespace, m.name))
        if sets is None:
            problems.append(f"{m.namespace}/{m.name}: the agent declares no such metric in that namespace")
        else:
            problems += [
                f"{m.namespace}/{m.name}: no declaration with {sorted(d)}" for d in m.dimension_sets if d not in sets
            ]
    assert not problems, "\n".join(problems)


KARPENTER_NODE_GAUGE_LABELS = {
    "node_name",
    "phase",
    "managed",  # controller.go l.45-49, nodeLabelNames l.154-163
    "resource_type",  # nodeLabelNamesWithResourceType l.147-152
    # well-known labels (pkg/apis/v1/labels.go l.75-84), "<prefix>/<a-b>" -> "a_b" (controller.go l.291-302)
    "nodepool",
    "zone",
    "region",
    "instance_type",
    "arch",
    "os",
    "capacity_type",
    "windows_build",
}
"""Labels of karpenter_nodes_allocatable / karpenter_nodes_total_pod_requests (sigs.k8s.io/karpenter 6e7eab7a0f48,
pkg/controllers/metrics/node/controller.go), plus the provider's extra well-known labels (not used here)."""


def emf_matches(decl: dict[str, Any], labels: dict[str, str]) -> bool:
    """awsemfexporter label_matchers: the source labels' values (missing: empty) joined with ';' match the regex;
    a dimension set is published only if the sample has every dimension."""
    joined = ";".join(labels.get(k, "") for k in decl["source_labels"])
    return re.search(decl["label_matcher"], joined) is not None


def test_prometheus_declarations_are_the_documented_dimensions(env_synth: Synth) -> None:
    """What the scraper publishes (its EMF declarations) is what the dashboard and alarms may reference, and every
    dimension is a label the scraped Karpenter series really carry (or the ClusterName the scrape adds)."""
    _, cfg = addon(env_synth)
    prom = agent_entry(cfg, PROMETHEUS_AGENT)
    emf = prom["config"]["logs"]["metrics_collected"]["prometheus"]["emf_processor"]
    assert emf["metric_namespace"] == PROMETHEUS
    published: dict[str, set[frozenset[str]]] = {}
    for decl in emf["metric_declaration"]:
        for selector in decl["metric_selectors"]:
            published.setdefault(selector.strip("^$"), set()).update(frozenset(d) for d in decl["dimensions"])
    documented = {name: set(m.dimension_sets) for (ns, name), m in DOCUMENTED_METRICS.items() if ns == PROMETHEUS}
    if not env_synth.config.pipelines.enabled:  # the Argo Workflows controller runs only then
        documented = {n: d for n, d in documented.items() if n not in ARGO_WORKFLOWS_METRICS}
    assert published == documented
    for decl in emf["metric_declaration"]:
        if any(s.startswith("^karpenter_nodes_") for s in decl["metric_selectors"]):
            for dims in decl["dimensions"]:
                assert set(dims) - {"ClusterName"} <= KARPENTER_NODE_GAUGE_LABELS, dims


@pytest.mark.parametrize(
    "node,hyperpod,burst",
    [
        ({"instance_type": "ml.p5.48xlarge", "resource_type": "nvidia.com/gpu"}, True, False),
        (
            {
                "instance_type": "p5.48xlarge",
                "capacity_type": "on-demand",
                "resource_type": "nvidia.com/gpu",
                "nodepool": "h100-on-demand",
            },
            False,
            True,
        ),
        ({"instance_type": "p4d.24xlarge", "capacity_type": "spot", "resource_type": "nvidia.com/gpu"}, False, True),
        ({"instance_type": "ml.p5.48xlarge", "resource_type": "cpu"}, False, False),
        ({"instance_type": "p5.48xlarge", "capacity_type": "spot", "resource_type": "cpu"}, False, False),
    ],
)
def test_gpu_gauges_are_split_by_node_kind(env_synth: Synth, node: dict[str, str], hyperpod: bool, burst: bool) -> None:
    """A HyperPod node (``ml.*`` instance type, no Karpenter capacity type) lands only in the per-HyperPod-type
    series, a Karpenter node only in the burst series, anything that is not a GPU in neither."""
    _, cfg = addon(env_synth)
    emf = agent_entry(cfg, PROMETHEUS_AGENT)["config"]["logs"]["metrics_collected"]["prometheus"]["emf_processor"]
    labels = {"job": "karpenter", "ClusterName": env_synth.config.cluster_name, "node_name": "n", **node}
    published = {
        frozenset(d)
        for decl in emf["metric_declaration"]
        if "^karpenter_nodes_allocatable$" in decl["metric_selectors"] and emf_matches(decl, labels)
        for d in decl["dimensions"]
        if set(d) <= set(labels)
    }
    assert (frozenset({"ClusterName", "instance_type", "resource_type"}) in published) is hyperpod
    assert (frozenset({"ClusterName", "capacity_type", "instance_type", "resource_type"}) in published) is burst


def test_container_log_groups_exist_before_the_addon(env_synth: Synth) -> None:
    res, _ = addon(env_synth)
    groups = env_synth.resources(STACK, "AWS::Logs::LogGroup")
    cluster = env_synth.config.cluster_name
    names = {lid: g["Properties"].get("LogGroupName") for lid, g in groups.items()}
    expected = {
        f"/aws/containerinsights/{cluster}/{k}"
        for k in ("application", "dataplane", "host", "performance", "prometheus")
    }
    assert expected <= set(names.values())
    assert {lid for lid, n in names.items() if n in expected} <= set(res["DependsOn"])


# ---- logs in every template --------------------------------------------------------------------------------------


def test_every_log_group_has_a_retention_and_a_kms_key(env_synth: Synth) -> None:
    """Every group any stack creates expires, and is encrypted with a customer key (the network stack, which
    precedes the platform key, has its own); a group without one must say why beside the resource."""
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
    (lid,) = [
        k
        for k, v in resources.items()
        if v["Type"] == "AWS::Logs::LogGroup" and v["Properties"].get("LogGroupName") == name
    ]
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
    assert (
        calls["putRetentionPolicy"][0]["parameters"]["retentionInDays"]
        == env_synth.config.observability.log_retention_days
    )
    assert calls["associateKmsKey"][0]["parameters"]["kmsKeyId"] == "<token>"
    create_id = next(
        lid for lid, r in env_synth.resources("compute", "Custom::AWS").items() if r is calls["createLogGroup"][1]
    )
    for action in ("putRetentionPolicy", "associateKmsKey"):
        assert create_id in calls[action][1]["DependsOn"], action
        assert "Update" in calls[action][1]["Properties"], f"{action} must re-apply when the config changes"


# ---- dashboard -----------------------------------------------------------------------------------------------

SEARCH = re.compile(r"SEARCH\('\{([^}]*)\} MetricName=\\?\"([\w:]+)\\?\"(.*?)', '(\w+)', (\d+)\)")


def dashboard_widgets(synth: Synth) -> list[dict[str, Any]]:
    body = one(synth, "AWS::CloudWatch::Dashboard")["Properties"]["DashboardBody"]
    return json.loads(untoken(body))["widgets"]


METRICS_INSIGHTS = re.compile(
    r"SELECT\s+\w+\((\w+)\)\s+FROM\s+SCHEMA\(([^)]*)\)(?:\s+WHERE\s+(.*?))?"
    r"(?:\s+GROUP BY.*|\s+ORDER BY.*|\s+LIMIT.*)?$",
    re.IGNORECASE | re.DOTALL,
)


def expression_metrics(expression: str) -> list[tuple[str, str, frozenset[str], dict[str, str]]]:
    """The metrics a math expression reads by itself: each SEARCH (schema = exact dimension set, terms = values) and
    a Metrics Insights query (metric, SCHEMA, WHERE values). Ids of other queries are not metrics."""
    out = []
    searches = SEARCH.findall(expression)
    assert len(searches) == expression.count("SEARCH("), f"unparsed SEARCH in {expression}"
    for schema, name, terms, _, _ in searches:
        namespace, *dims = [p.strip('"') for p in schema.split(",")]
        out.append((namespace, name, frozenset(dims), dict(re.findall(r'(\w+)="?([\w.\-/<>]+)"?', terms))))
    if re.search(r"\bSELECT\b", expression, re.IGNORECASE):
        match = METRICS_INSIGHTS.search(expression.strip())
        assert match, f"unparsed Metrics Insights query: {expression}"
        name, schema, where = match.groups()
        namespace, *dims = [p.strip().strip('"') for p in schema.split(",")]
        out.append((namespace, name, frozenset(dims), dict(re.findall(r"(\w+)\s*=\s*'([^']*)'", where or ""))))
    return out


def referenced_metrics(widget_metrics: list[list[Any]]) -> list[tuple[str, str, frozenset[str], dict[str, str]]]:
    """(namespace, name, dimension names, dimension values) of every metric a widget draws, SEARCH expressions and
    Metrics Insights queries included."""
    out = []
    for row in widget_metrics:
        if isinstance(row[-1], dict) and "expression" in row[-1]:
            out += expression_metrics(row[-1]["expression"])
            continue
        namespace, name, *rest = [x for x in row if not isinstance(x, dict)]
        assert namespace != ".", "shorthand rows would hide a metric from this check"
        dims = dict(zip(rest[::2], rest[1::2], strict=True))
        out.append((namespace, name, frozenset(dims), dims))
    return out


def alarm_metrics(props: dict[str, Any]) -> list[tuple[str, str, frozenset[str], dict[str, str]]]:
    """The same for an alarm: single metric, MetricStat entries, Metrics Insights expressions; SEARCH is refused
    (alarms cannot use it, PutMetricAlarm)."""
    out = []
    if "MetricName" in props:
        dims = {d["Name"]: d["Value"] for d in props.get("Dimensions", [])}
        out.append((props["Namespace"], props["MetricName"], frozenset(dims), dims))
    for query in props.get("Metrics", []):
        if "MetricStat" in query:
            m = query["MetricStat"]["Metric"]
            dims = {d["Name"]: d["Value"] for d in m.get("Dimensions", [])}
            out.append((m["Namespace"], m["MetricName"], frozenset(dims), dims))
        else:
            assert "SEARCH(" not in query["Expression"], "an alarm cannot evaluate a SEARCH expression"
            out += expression_metrics(query["Expression"])
    return out


def undocumented(
    where: str, refs: list[tuple[str, str, frozenset[str], dict[str, str]]], cluster_name: str
) -> list[str]:
    problems = []
    for namespace, name, dims, values in refs:
        entry = lookup(namespace, name)
        if entry is None:
            problems.append(f"{where}: {namespace}/{name} is emitted by no collector")
        elif dims not in entry.dimension_sets:
            problems.append(f"{where}: {namespace}/{name} is not published with {sorted(dims)}")
        if "ClusterName" in values and values["ClusterName"] != cluster_name:
            problems.append(f"{where}: ClusterName {values['ClusterName']}")
        if namespace.startswith(f"{JOB_LOGS}/") and namespace != job_logs_namespace(cluster_name):
            problems.append(f"{where}: {namespace} is another cluster's job-log namespace")
    return problems


def test_metric_reference_parsing_catches_what_the_review_found() -> None:
    """The helpers the dashboard and alarm tests rely on see through SEARCH and Metrics Insights."""
    bad = [
        [
            {
                "expression": "SUM(SEARCH('{ContainerInsights,ClusterName,InstanceId,InstanceType,NodeName} "
                "MetricName=\"node_gpu_request\" ClusterName=c', 'Maximum', 300))"
            }
        ],
        [
            {
                "expression": "SELECT SUM(pod_gpu_request) FROM SCHEMA(ContainerInsights, ClusterName, Namespace) "
                "WHERE ClusterName = 'c' GROUP BY Namespace"
            }
        ],
        ["ContainerInsights", "cluster_gpu_request", "ClusterName", "c", {"stat": "Maximum"}],
    ]
    problems = undocumented("w", referenced_metrics(bad), "c")
    assert len(problems) == 3, problems
    assert "pod_gpu_request is not published with ['ClusterName', 'Namespace']" in problems[1]
    with pytest.raises(AssertionError, match="cannot evaluate a SEARCH"):
        alarm_metrics({"Metrics": [{"Id": "e", "Expression": bad[0][0]["expression"]}]})


def test_dashboard_references_only_documented_metrics_and_dimensions(env_synth: Synth) -> None:
    problems, seen = [], 0
    for widget in dashboard_widgets(env_synth):
        props = widget["properties"]
        refs = referenced_metrics(props.get("metrics", []))
        seen += len(refs)
        problems += undocumented(props.get("title", "?"), refs, env_synth.config.cluster_name)
    assert not problems, "\n".join(problems)
    assert seen >= 30


def test_dashboard_shows_what_the_issue_asks_for(env_synth: Synth) -> None:
    titles = [
        w["properties"].get("title") or w["properties"]["markdown"].splitlines()[0]
        for w in dashboard_widgets(env_synth)
    ]
    text = " | ".join(titles).lower()
    for needle in (
        "gpu utilization by capacity kind",
        "gpu memory utilization by capacity kind",
        "gpu utilization by team",
        "reserved capacity utilization",
        "karpenter nodes launched / terminated",
        "spot interruptions",
        "pending",
        "fsx throughput and iops",
        "fsx free capacity",
        "mlflow alb requests and 5xx",
        "aurora acus",
        "burst spend per hour",
        "ray dashboard",
    ):
        assert needle in text, f"no widget for {needle!r}: {titles}"


def test_dashboard_covers_every_team_and_capacity_kind(env_synth: Synth) -> None:
    body = json.dumps(dashboard_widgets(env_synth))
    cfg = env_synth.config
    for team in cfg.kubernetes.teams:
        assert f'"Namespace", "{team.name}"' in body
        # allocation: one series per pod (FullPodName), the team by exact Namespace value
        assert re.search(
            r"\{ContainerInsights,ClusterName,FullPodName,Namespace,PodName\} "
            r'MetricName=\\+"pod_gpu_request\\+" ClusterName=\S+ Namespace=\\+"' + re.escape(team.name),
            body,
        ), team.name
    for pool in cfg.kubernetes.gpu_node_pools:
        for itype in pool.instance_types:
            assert f'InstanceType=\\\\\\"{itype}\\\\\\"' in body or f'InstanceType=\\"{itype}\\"' in body, itype
    assert "NodeName=hyperpod" in body


def test_burst_spend_uses_the_price_file(env_synth: Synth) -> None:
    """Every Karpenter GPU instance type is priced at its on-demand price per GPU, and the widget draws the same
    expression the BurstSpendOverBudget alarm watches."""
    from config.pricing import Pricer, load_prices

    pricer = Pricer(load_prices(), env_synth.config.region)
    if not burst_priced(env_synth):  # nothing priced (a region the price table lacks): no spend to draw or alarm on
        assert "BurstSpendOverBudget" not in alarms(env_synth)
        return
    (spend,) = [w for w in dashboard_widgets(env_synth) if w["properties"].get("title", "").startswith("Burst spend")]
    expressions = " ".join(
        row[-1]["expression"]
        for row in spend["properties"]["metrics"]
        if isinstance(row[-1], dict) and "expression" in row[-1]
    )
    alarm = alarms(env_synth)["BurstSpendOverBudget"]
    alarm_expressions = " ".join(q["Expression"] for q in alarm["Metrics"] if "Expression" in q)
    for pool in env_synth.config.kubernetes.gpu_node_pools:
        for itype in pool.instance_types:
            entry = pricer.instance(itype)
            if entry is None:  # unpriced: named in the alarm's description instead (docs/cost.md)
                assert itype in alarm["AlarmDescription"], itype
                continue
            assert f"{entry['usd'] / entry['gpus']:.4f}" in expressions, itype
            assert f"{entry['usd'] / entry['gpus']:.4f}" in alarm_expressions, itype


# ---- alarms ----------------------------------------------------------------------------------------------------


def burst_priced(synth: Synth) -> bool:
    """Whether any Karpenter GPU type has a price in the environment's region (the burst alarm sums only those)."""
    from stacks.observability_stack import burst_prices, gpu_prices

    return bool(burst_prices(synth.config, gpu_prices(synth.config)[0]))


def alarms(synth: Synth) -> dict[str, dict[str, Any]]:
    return {
        r["Properties"]["AlarmName"].removeprefix(f"{synth.config.resource_prefix}-"): r["Properties"]
        for r in synth.resources(STACK, "AWS::CloudWatch::Alarm").values()
    }


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
        out["HyperPodGpuMetricsMissing"] = 1
    for team in cfg.kubernetes.teams:
        for tier in team.allowed_tiers:
            out[f"JobsPendingTooLong-{team.name}-{tier}"] = 1
            out[f"PodsReadyTimeoutEvictions-{team.name}-{tier}"] = t.pods_ready_timeout_evictions_per_hour
    if cfg.burst_alarm_usd_per_hour is not None and burst_priced(synth):
        out["BurstSpendOverBudget"] = cfg.burst_alarm_usd_per_hour
    if cfg.pipelines.enabled:
        out.update({f"FailedPipelines-{team.namespace}": t.failed_pipelines_per_hour for team in cfg.kubernetes.teams})
    for team in cfg.kubernetes.teams:
        out[f"ServingQueueBacklog-{team.namespace}"] = t.serving_queued_requests
        out[f"ServingAbortedRequests-{team.namespace}"] = t.serving_aborted_requests_per_15_minutes
        out[f"TrainingHangs-{team.namespace}"] = t.training_hangs_per_hour
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
    problems = []
    for name, props in alarms(env_synth).items():
        refs = alarm_metrics(props)
        assert refs, name
        problems += undocumented(name, refs, env_synth.config.cluster_name)
    assert not problems, "\n".join(problems)


def test_each_team_has_a_hang_metric_filter_on_the_application_logs_and_its_alarm(env_synth: Synth) -> None:
    """Issue 44: a hang of a team's training pod (the line tests/test_training_hangs.py feeds to this pattern) counts
    into that team's series, which its TrainingHangs alarm reads; the filter reads the Container Insights application
    log group of this stack."""
    from cdk_constructs.observability.documented_metrics import TRAINING_HANGS, job_logs_namespace

    cfg = env_synth.config
    (app_group,) = [
        lid
        for lid, r in env_synth.resources(STACK, "AWS::Logs::LogGroup").items()
        if r["Properties"].get("LogGroupName") == f"/aws/containerinsights/{cfg.cluster_name}/application"
    ]
    filters = env_synth.resources(STACK, "AWS::Logs::MetricFilter").values()
    found = alarms(env_synth)
    for team in cfg.kubernetes.teams:
        (f,) = [f["Properties"] for f in filters if f'"{team.namespace}"' in f["Properties"]["FilterPattern"]]
        assert f["LogGroupName"] == {"Ref": app_group}
        (t,) = f["MetricTransformations"]
        alarm = found[f"TrainingHangs-{team.namespace}"]
        assert (alarm["Namespace"], alarm["MetricName"]) == (t["MetricNamespace"], t["MetricName"])
        assert (t["MetricNamespace"], t["MetricName"]) == (job_logs_namespace(cfg.cluster_name), TRAINING_HANGS)
        assert alarm["Dimensions"] == [{"Name": "Namespace", "Value": team.namespace}]
        assert [d["Key"] for d in t["Dimensions"]] == ["Namespace"]
        assert alarm["Statistic"] == "Sum" and alarm["TreatMissingData"] == "notBreaching"


def test_alarm_windows_are_within_cloudwatch_limits(env_synth: Synth) -> None:
    """PutMetricAlarm: Period x EvaluationPeriods at most 7 days (periods of an hour or more) or 1 day; an alarm
    on a Metrics Insights query evaluates at most the latest 3 hours (alarm-limits.html); metric math: at most 10
    MetricStat and 10 expressions."""
    for name, props in alarms(env_synth).items():
        periods = (
            [props["Period"]]
            if "Period" in props
            else [q["MetricStat"]["Period"] for q in props["Metrics"] if "MetricStat" in q]
        )
        assert len(set(periods)) == 1, f"{name}: every metric of an alarm uses the same period"
        window = periods[0] * props["EvaluationPeriods"]
        assert window <= (7 * 86400 if periods[0] >= 3600 else 86400), name
        if any(re.search(r"\bSELECT\b", q.get("Expression", "")) for q in props.get("Metrics", [])):
            assert window <= 3 * 3600, f"{name}: Metrics Insights alarms evaluate at most 3 hours"
        metrics = props.get("Metrics", [])
        assert sum("MetricStat" in q for q in metrics) <= 10 and sum("Expression" in q for q in metrics) <= 10, name


# ---- alarm behaviour: the synthesized metric math evaluated on what the collectors would report -------------------


class _Val:
    """One period's value of a query; None = no data. Arithmetic with no data has no data (CloudWatch metric
    math); SUM([..]) of an array adds the series that have a value and has none if none has."""

    def __init__(self, v: float | None) -> None:
        self.v = v

    def _op(self, other: Any, f: Any) -> _Val:
        o = other.v if isinstance(other, _Val) else other
        return _Val(None if self.v is None or o is None else f(self.v, o))

    def __add__(self, o: Any) -> _Val:
        return self._op(o, lambda a, b: a + b)

    def __radd__(self, o: Any) -> _Val:
        return self._op(o, lambda a, b: b + a)

    def __sub__(self, o: Any) -> _Val:
        return self._op(o, lambda a, b: a - b)

    def __rsub__(self, o: Any) -> _Val:
        return self._op(o, lambda a, b: b - a)

    def __mul__(self, o: Any) -> _Val:
        return self._op(o, lambda a, b: a * b)

    def __rmul__(self, o: Any) -> _Val:
        return self._op(o, lambda a, b: b * a)

    def __truediv__(self, o: Any) -> _Val:
        return self._op(o, lambda a, b: a / b)

    def __rtruediv__(self, o: Any) -> _Val:
        return self._op(o, lambda a, b: b / a)


def evaluate_alarm(
    props: dict[str, Any], data: dict[tuple[str, frozenset[tuple[str, str]], str], float]
) -> float | None:
    """The value the alarm compares with its threshold for one period. ``data``: (metric name, dimensions,
    statistic) -> that period's statistic; a metric absent from ``data`` has no data point."""
    queries = {q["Id"]: q for q in props["Metrics"]}
    cache: dict[str, _Val] = {}

    def value(qid: str) -> _Val:
        if qid not in cache:
            q = queries[qid]
            if "MetricStat" in q:
                m = q["MetricStat"]["Metric"]
                key = (
                    m["MetricName"],
                    frozenset((d["Name"], d["Value"]) for d in m["Dimensions"]),
                    q["MetricStat"]["Stat"],
                )
                cache[qid] = _Val(data.get(key))
            else:
                expr = q["Expression"]
                assert re.fullmatch(r"[\w\s.+\-*/()\[\],]+", expr), expr
                ids = set(re.findall(r"\b([a-z]\w*)\b", expr)) - {"SUM", "PERIOD", "FILL"}
                scope = {i: value(i) for i in ids}
                scope["SUM"] = lambda xs: _Val(
                    sum(x.v for x in xs if x.v is not None) if any(x.v is not None for x in xs) else None
                )
                scope["FILL"] = lambda x, c: _Val(c if x.v is None else x.v)
                scope["PERIOD"] = lambda x: next(
                    q2["MetricStat"]["Period"]
                    for i2, q2 in queries.items()
                    if "MetricStat" in q2 and cache.get(i2) is x
                )
                cache[qid] = eval(expr, {"__builtins__": {}}, scope)  # noqa: S307 - parsed above: ids, numbers, + - * /
        return cache[qid]

    (watched,) = [q["Id"] for q in props["Metrics"] if q.get("ReturnData", True)]
    return value(watched).v


def alarm_state(props: dict[str, Any], value: float | None) -> str:
    if value is None:
        return {"breaching": "ALARM", "notBreaching": "OK"}.get(
            props.get("TreatMissingData", "missing"), "INSUFFICIENT_DATA"
        )
    op = {
        "GreaterThanOrEqualToThreshold": lambda v, t: v >= t,
        "GreaterThanThreshold": lambda v, t: v > t,
        "LessThanThreshold": lambda v, t: v < t,
    }[props["ComparisonOperator"]]
    return "ALARM" if op(value, props["Threshold"]) else "OK"


def hyperpod_gauges(synth: Synth, allocated_share: float | None) -> dict[Any, float]:
    """What the scraper publishes over one hour for the HyperPod GPU nodes: per HyperPod GPU type, the Sum of 60
    per-minute samples of each node's GPUs and of its pods' GPU requests (no requests sample without requests)."""
    from config.instances import find_spec
    from stacks.observability_stack import hyperpod_gpu_instance_types

    cfg = synth.config
    scrapes = 3600 // SCRAPE_INTERVAL_SECONDS
    data: dict[Any, float] = {}
    for itype in hyperpod_gpu_instance_types(cfg):
        gpus = sum(
            find_spec(g.instance_type).gpus * g.count  # GPUs from the instance specs, priced or not (gpu_prices)
            for g in cfg.compute.hyperpod.instance_groups
            if g.instance_type == itype
        )
        dims = frozenset(
            {("ClusterName", cfg.cluster_name), ("instance_type", itype), ("resource_type", "nvidia.com/gpu")}
        )
        data[("karpenter_nodes_allocatable", dims, "Sum")] = gpus * scrapes
        if allocated_share:
            data[("karpenter_nodes_total_pod_requests", dims, "Sum")] = gpus * allocated_share * scrapes
    return data


def test_reserved_gpus_idle_is_ok_when_the_reservation_is_busy(env_synth: Synth) -> None:
    from stacks.observability_stack import gpu_prices

    props = alarms(env_synth)["ReservedGpusIdle"]
    _, reserved, _ = gpu_prices(env_synth.config)
    busy = evaluate_alarm(props, hyperpod_gauges(env_synth, 1.0))
    assert busy == pytest.approx(0) and alarm_state(props, busy) == "OK"
    idle = evaluate_alarm(props, hyperpod_gauges(env_synth, None))
    assert idle == pytest.approx(reserved), "no requests series at all: every HyperPod GPU is idle"
    assert alarm_state(props, idle) == "ALARM", "no pod requests any HyperPod GPU: the reservation is idle"
    half = evaluate_alarm(props, hyperpod_gauges(env_synth, 0.5))
    assert half == pytest.approx(reserved / 2)
    assert alarm_state(props, half) == ("ALARM" if reserved / 2 >= props["Threshold"] else "OK")


def test_no_gpu_metrics_is_its_own_alarm_not_an_idle_reservation(env_synth: Synth) -> None:
    """Scraper or Karpenter down, or HyperPod nodes not joined yet: no GPU gauge at all. ReservedGpusIdle stays OK
    (not an idle reservation) and HyperPodGpuMetricsMissing fires; with the gauges back it is OK again."""
    found = alarms(env_synth)
    idle, missing = found["ReservedGpusIdle"], found["HyperPodGpuMetricsMissing"]
    assert alarm_state(idle, evaluate_alarm(idle, {})) == "OK"
    assert alarm_state(missing, evaluate_alarm(missing, {})) == "ALARM"
    assert alarm_state(missing, evaluate_alarm(missing, hyperpod_gauges(env_synth, None))) == "OK"
    assert missing["EvaluationPeriods"] == env_synth.config.observability.thresholds.gpu_metrics_missing_hours


def queue_names(synth: Synth) -> list[str]:
    return [f"{team.name}-{tier}" for team in synth.config.kubernetes.teams for tier in team.allowed_tiers]


def test_jobs_pending_too_long_per_cluster_queue(env_synth: Synth) -> None:
    """One alarm per ClusterQueue; it sees the fewest workloads pending (active + inadmissible) in each 5 minutes
    and needs the whole configured window of such periods."""
    cfg = env_synth.config
    found = alarms(env_synth)
    for cq in queue_names(env_synth):
        props = found[f"JobsPendingTooLong-{cq}"]

        def data(active: float, inadmissible: float, cq: str = cq) -> dict[Any, float]:
            dims = {("ClusterName", cfg.cluster_name), ("ClusterQueue", cq)}
            return {
                ("kueue_pending_workloads", frozenset(dims | {("Status", "active")}), "Minimum"): active,
                ("kueue_pending_workloads", frozenset(dims | {("Status", "inadmissible")}), "Minimum"): inadmissible,
            }

        assert alarm_state(props, evaluate_alarm(props, data(1, 0))) == "ALARM"
        assert alarm_state(props, evaluate_alarm(props, data(0, 2))) == "ALARM"
        assert alarm_state(props, evaluate_alarm(props, data(0, 0))) == "OK"
        assert alarm_state(props, evaluate_alarm(props, {})) == "OK", "no scrape is not a stuck queue"
        period = next(q["MetricStat"]["Period"] for q in props["Metrics"] if "MetricStat" in q)
        assert props["EvaluationPeriods"] * period >= cfg.observability.thresholds.pending_minutes * 60
        assert props["DatapointsToAlarm"] == props["EvaluationPeriods"]


def test_pods_ready_timeout_evictions_per_cluster_queue(env_synth: Synth) -> None:
    cfg = env_synth.config
    found = alarms(env_synth)
    threshold = cfg.observability.thresholds.pods_ready_timeout_evictions_per_hour
    for cq in queue_names(env_synth):
        props = found[f"PodsReadyTimeoutEvictions-{cq}"]
        dims = {d["Name"]: d["Value"] for d in props["Dimensions"]}
        assert dims == {"ClusterName": cfg.cluster_name, "ClusterQueue": cq, "Reason": "PodsReadyTimeout"}
        assert (props["Statistic"], props["Period"]) == ("Sum", 3600)
        assert props["Threshold"] == threshold and props["TreatMissingData"] == "notBreaching"


def test_fsx_free_capacity_counts_every_storage_target(env_synth: Synth) -> None:
    """Two storage targets, one nearly full: the file system still has room, so no alarm (Minimum would fire);
    both low: alarm. FreeDataStorageCapacity has one point per target and minute (fs-metrics.html)."""
    cfg = env_synth.config
    props = alarms(env_synth)["FsxFreeCapacityLow"]
    props = json.loads(json.dumps(props))
    (query,) = [q for q in props["Metrics"] if "MetricStat" in q]
    for d in query["MetricStat"]["Metric"]["Dimensions"]:
        d["Value"] = (
            untoken(d["Value"])
            if isinstance(d["Value"], (str, dict)) and "Fn::Join" in str(d["Value"])
            else json.dumps(d["Value"])
        )
    assert query["MetricStat"]["Stat"] == "Sum"
    minutes = query["MetricStat"]["Period"] // 60
    dims = frozenset({(d["Name"], d["Value"]) for d in query["MetricStat"]["Metric"]["Dimensions"]})
    half = cfg.storage.fsx.storage_capacity_gib * 2**30 / 2

    def state(*free_per_target: float) -> str:
        return alarm_state(
            props, evaluate_alarm(props, {("FreeDataStorageCapacity", dims, "Sum"): sum(free_per_target) * minutes})
        )

    assert state(half * 0.01, half) == "OK"
    assert state(half * 0.01, half * 0.01) == "ALARM"


def test_burst_spend_alarm_fires_over_budget_and_not_under(env_synth: Synth) -> None:
    """Karpenter GPU nodes of one kind running (the other kinds have no data): the alarm sees their GPUs x price
    and fires once that exceeds the budget; with no burst node at all it stays OK."""
    from stacks.observability_stack import burst_prices, gpu_prices

    cfg = env_synth.config
    if cfg.burst_alarm_usd_per_hour is None or not burst_priced(env_synth):
        assert "BurstSpendOverBudget" not in alarms(env_synth)  # no budget, or nothing priced to sum (docs/cost.md)
        return
    props = alarms(env_synth)["BurstSpendOverBudget"]
    period = next(q["MetricStat"]["Period"] for q in props["Metrics"] if "MetricStat" in q)
    per_gpu, _, _ = gpu_prices(cfg)
    itype, capacity_type, usd = max(burst_prices(cfg, per_gpu), key=lambda p: p[2])
    nodes_gpus = next(
        cfg_pool.gpu_limit
        for cfg_pool in cfg.kubernetes.gpu_node_pools
        if itype in cfg_pool.instance_types and cfg_pool.capacity_type == capacity_type
    )
    dims = frozenset(
        {
            ("ClusterName", cfg.cluster_name),
            ("capacity_type", capacity_type),
            ("instance_type", itype),
            ("resource_type", "nvidia.com/gpu"),
        }
    )

    def running(gpus: int) -> float | None:
        return evaluate_alarm(
            props, {("karpenter_nodes_allocatable", dims, "Sum"): gpus * period / SCRAPE_INTERVAL_SECONDS}
        )

    assert running(nodes_gpus) == pytest.approx(nodes_gpus * usd, rel=1e-3)
    over = math.ceil(props["Threshold"] / usd + 1e-9)
    assert alarm_state(props, running(over)) == "ALARM"
    assert alarm_state(props, running(over - 1)) == "OK"
    assert alarm_state(props, evaluate_alarm(props, {})) == "OK"


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
    from .conftest import doc_section

    section = doc_section("observability.md", "Alarms and runbooks")
    for name in alarms(env_synth):
        for cq in queue_names(env_synth):
            name = name.replace(f"-{cq}", "-<cluster queue>") if name.endswith(f"-{cq}") else name
        for per_team in ("FailedPipelines", "ServingQueueBacklog", "ServingAbortedRequests", "TrainingHangs"):
            teams = {f"{per_team}-{t.namespace}" for t in env_synth.config.kubernetes.teams}
            name = f"{per_team}-<team>" if name in teams else name
        assert re.search(rf"^\| `{name}` \|.+\|.+\|.+\|$", section, re.MULTILINE), f"no runbook row for {name}"


# ---- cost -----------------------------------------------------------------------------------------------------


def test_make_cost_prices_what_observability_costs(env_synth: Synth) -> None:
    from config.pricing import priced_regions

    from .test_cost import report_for

    report = report_for(env_synth.config.name)
    items = {line.item for line in report.idle if line.stack.endswith("Observability")}
    if env_synth.config.region not in priced_regions():  # listed unpriced, never priced as $0
        unpriced = {u.type for u in report.unpriced if u.stack.endswith("Observability")}
        assert not items and {"AWS::CloudWatch::Dashboard", "AWS::CloudWatch::Alarm"} <= unpriced, unpriced
        return
    assert {
        "CloudWatch dashboard",
        "CloudWatch alarm",
        "Container Insights observations (estimate)",
        "Prometheus custom metrics (estimate)",
        "Log ingestion (estimate)",
    } <= items
    alarms_cost = sum(line.monthly_usd for line in report.idle if line.item == "CloudWatch alarm")
    metrics = sum(max(1, sum("MetricStat" in m for m in a.get("Metrics", []))) for a in alarms(env_synth).values())
    assert alarms_cost == pytest.approx(metrics * 0.10), "one alarm metric costs $0.10 (prices.yaml)"
    assert 0 < report.observability_total < report.idle_total


def test_gpu_alarm_math_stays_within_the_10_metric_alarm_limit() -> None:
    """CloudWatch refuses a metric-math alarm that references more than 10 metrics (alarm-limits): the builders fail
    at synth with a message naming the config field instead of CloudFormation failing at deploy."""
    from aws_cdk import Duration

    from cdk_constructs.observability.gpu_capacity import MAX_ALARM_METRICS, burst_usd_per_hour, hyperpod_idle_gpus

    def leaves(expression) -> set[str]:
        """The distinct metrics (by their rendered id: CDK renders a metric shared by nested expressions once)."""
        out = set()
        for key, m in expression.using_metrics.items():
            out |= leaves(m) if hasattr(m, "using_metrics") else {key}
        return out

    def metrics(expression) -> int:
        return len(leaves(expression))

    types = [f"ml.p5.{i}xlarge" for i in range(MAX_ALARM_METRICS)]
    fitting = hyperpod_idle_gpus("c", types[: MAX_ALARM_METRICS // 2], 80, Duration.hours(1))
    assert metrics(fitting) <= MAX_ALARM_METRICS
    with pytest.raises(ValueError, match="compute.hyperpod.instance_groups"):
        hyperpod_idle_gpus("c", types[: MAX_ALARM_METRICS // 2 + 1], 80, Duration.hours(1))
    prices = [(f"p5.{i}xlarge", "spot", 1.0) for i in range(MAX_ALARM_METRICS)]
    assert metrics(burst_usd_per_hour("c", prices[: MAX_ALARM_METRICS - 1], Duration.hours(1))) <= MAX_ALARM_METRICS
    with pytest.raises(ValueError, match="gpu_node_pools"):
        burst_usd_per_hour("c", prices, Duration.hours(1))
