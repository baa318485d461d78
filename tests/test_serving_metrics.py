"""Served models' metrics reach CloudWatch where KEDA looks for them (issue 34): a serve example rendered by llmft
(the same path tests/test_serve.py uses) is discovered by the platform's scrape job, its engine's samples come out of
the relabelling and the EMF declarations as exactly the (namespace, metric, dimensions) its ScaledObject's
``aws-cloudwatch`` triggers query; the agent runs pod-networked (the real chart rendered by the real helm) and the
team namespace's NetworkPolicies with the serve job's own admit it on the engine port."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from cdk_constructs.observability.container_insights import (
    PROMETHEUS_AGENT,
    SERVING_JOB,
    SERVING_METRICS,
    serving_scrape_job,
)
from cdk_constructs.observability.documented_metrics import SERVING_NAMESPACE_SET, SERVING_SET
from k8s_charts import serving
from k8s_charts.team_isolation import SERVING_METRICS_POLICY

from .conftest import ENVIRONMENTS, Synth, synthesize
from .helm_binary import helm_binary
from .test_isolation_matrix import Pod, allowed, kube_manifests
from .test_observability import CHART, addon, agent_entry
from .test_pipeline_metrics import published
from .test_serve import EXAMPLES, by_kind, plan_of

EXAMPLE = EXAMPLES / "07-serve-medical.yaml"
ENGINE_LABELS = {
    "model_name": "ml-research.medical-sft",
    "engine_type": "unified",
    "tp_rank": "0",
    "pp_rank": "0",
    "moe_ep_rank": "0",
    "dp_rank": "0",
}
"""The labels SGLang 0.5.21 puts on the scheduler's gauges (SchedulerMetricsCollector.init_new; ``dp_rank`` with
``--dp-size``); the request counters add ``is_streaming``."""


@pytest.fixture(autouse=True)
def _no_engine_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The serve example's SGLang argument check (llmft/preflight.py, tested in tests/test_serve.py) needs sglang in
    this interpreter; what is tested here starts after it."""
    import llm_platform.engine_args as engine_args

    monkeypatch.setattr(engine_args, "check_engine_args", lambda engine, args: [])


def _prom_replace(rule: dict[str, Any], match: re.Match[str]) -> str:
    return match.expand(rule.get("replacement", "$1").replace("${1}", r"\1").replace("$1", r"\1"))


def relabel(rules: list[dict[str, Any]], labels: dict[str, str]) -> dict[str, str] | None:
    """Prometheus relabelling: source values joined with ``;``, the regex (default ``(.*)``) anchored; ``keep``
    drops a non-match, ``replace`` writes the expanded replacement to ``target_label``."""
    out = dict(labels)
    for rule in rules:
        value = ";".join(out.get(k, "") for k in rule.get("source_labels", []))
        match = re.fullmatch(rule.get("regex", "(.*)"), value)
        action = rule.get("action", "replace")
        if action == "keep" and not match:
            return None
        if action == "drop" and match:
            return None
        if action == "replace" and match:
            out[rule["target_label"]] = _prom_replace(rule, match)
    return out


def pod_targets(job: dict[str, Any], pod: dict[str, Any], namespace: str) -> list[dict[str, str]]:
    """kubernetes_sd_configs role ``pod``: one target per container port, meta labels as Prometheus names them, then
    the job's label selector and ``relabel_configs``; the target keeps the non-``__`` labels plus ``job``."""
    (sd,) = job["kubernetes_sd_configs"]
    assert sd["role"] == "pod"
    labels = pod["metadata"]["labels"]
    if namespace not in sd["namespaces"]["names"]:
        return []
    for selector in sd.get("selectors", []):
        assert selector["role"] == "pod"
        key, value = selector["label"].split("=")
        if labels.get(key) != value:
            return []
    targets = []
    for container in pod["spec"]["containers"]:
        for port in container.get("ports", []):
            meta = {
                "__meta_kubernetes_namespace": namespace,
                "__address__": f"10.0.0.7:{port['containerPort']}",
                "__meta_kubernetes_pod_container_port_name": port.get("name", ""),
                **{"__meta_kubernetes_pod_label_" + re.sub(r"[^a-zA-Z0-9_]", "_", k): v for k, v in labels.items()},
            }
            kept = relabel(job["relabel_configs"], meta)
            if kept is not None:
                targets.append(
                    {
                        **{k: v for k, v in kept.items() if not k.startswith("__")},
                        "job": job["job_name"],
                        "__address__": kept["__address__"],
                    }
                )
    return targets


def sample(job: dict[str, Any], target: dict[str, str], name: str, labels: dict[str, str]) -> dict[str, str] | None:
    """One scraped sample: the target's labels over the metric's own (no overlap: nothing ``exported_``), then
    ``metric_relabel_configs``."""
    assert not set(labels) & set(target), "a metric label would be renamed exported_*"
    return relabel(job["metric_relabel_configs"], {**labels, **target, "__name__": name})


def serving_job(synth: Synth) -> dict[str, Any]:
    _, cfg = addon(synth)
    jobs = agent_entry(cfg, PROMETHEUS_AGENT)["prometheus"]["config"]["scrape_configs"]
    (job,) = [j for j in jobs if j["job_name"] == SERVING_JOB]
    return job


def rendered_target(env: str) -> tuple[Any, dict[str, str]]:
    plan = plan_of(EXAMPLE, env)
    template = by_kind(plan)["Deployment"]["spec"]["template"]
    (target,) = pod_targets(serving_job(synthesize(env)), template, plan.team.namespace)
    return plan, target


# ---- the tests ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_scrape_finds_the_engine_llmft_renders(env: str) -> None:
    plan, target = rendered_target(env)
    assert target["__address__"].endswith(f":{serving.ENGINE_PORT}")
    assert (target["serve"], target["Namespace"]) == (plan.spec.name, plan.team.namespace)
    assert target["ClusterName"] == synthesize(env).config.cluster_name
    job = serving_job(synthesize(env))
    assert (job["scheme"], job["metrics_path"]) == ("http", serving.METRICS_PATH)
    # every team namespace is scraped; a pod without the serve component label is not
    assert job["kubernetes_sd_configs"][0]["namespaces"]["names"] == sorted(
        t.namespace for t in synthesize(env).config.kubernetes.teams
    )
    template = by_kind(plan)["Deployment"]["spec"]["template"]
    other = {**template, "metadata": {"labels": {**template["metadata"]["labels"], serving.COMPONENT_LABEL: "train"}}}
    assert pod_targets(job, other, plan.team.namespace) == []


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_each_trigger_of_the_scaled_object_reads_what_the_agent_publishes(env: str) -> None:
    """The acceptance check of the contract: for every trigger llmft renders, the engine's gauge of that name, as
    scraped and declared, is a CloudWatch metric in the trigger's namespace with exactly the trigger's dimensions."""
    synth = synthesize(env)
    plan, target = rendered_target(env)
    triggers = by_kind(plan)["ScaledObject"]["spec"]["triggers"]
    assert [t["metadata"]["metricName"] for t in triggers] == list(serving.DEMAND_METRICS)
    for trigger in triggers:
        meta = trigger["metadata"]
        wanted = (
            meta["namespace"],
            meta["metricName"],
            frozenset(zip(meta["dimensionName"].split(";"), meta["dimensionValue"].split(";"), strict=True)),
        )
        labels = sample(serving_job(synth), target, meta["metricName"], ENGINE_LABELS)
        assert labels is not None, meta["metricName"]
        emitted = published(synth, labels)
        assert wanted in emitted, (wanted, emitted)
        assert {frozenset(k for k, _ in dims) for _, _, dims in emitted} == {
            frozenset(SERVING_SET),
            frozenset(SERVING_NAMESPACE_SET),
        }


def test_what_is_kept_and_what_the_agent_would_drop_anyway(dev: Synth) -> None:
    """The allow-list keeps the gauges and counters; histograms (latency) never pass it - the agent drops them
    whole (aws/amazon-cloudwatch-agent@v1.300070.0 plugins/inputs/prometheus/metrics_filter.go)."""
    _, target = rendered_target("dev")
    job = serving_job(dev)
    for name in SERVING_METRICS:
        assert sample(job, target, name, {**ENGINE_LABELS, "is_streaming": "false"}) is not None, name
    for name in (
        "sglang:e2e_request_latency_seconds_sum",
        "sglang:e2e_request_latency_seconds_count",
        "sglang:time_to_first_token_seconds_bucket",
        "sglang:token_usage",
        "python_gc_objects_collected_total",
    ):
        assert sample(job, target, name, ENGINE_LABELS) is None, name
    assert set(serving.DEMAND_METRICS) | {serving.THROUGHPUT_METRIC, *serving.REQUEST_METRICS} == set(SERVING_METRICS)
    assert (tuple(SERVING_SET), tuple(SERVING_NAMESPACE_SET)) == (
        serving.METRIC_DIMENSIONS,
        serving.NAMESPACE_DIMENSIONS,
    )


def test_without_team_namespaces_there_is_no_serving_job() -> None:
    assert serving_scrape_job("c", ["b", "a"])["kubernetes_sd_configs"][0]["namespaces"]["names"] == ["a", "b"]


def test_the_chart_runs_the_scraper_pod_networked(dev: Synth, tmp_path: Path) -> None:
    """The add-on's chart deep-merges root ``agent`` (``hostNetwork: true``) into every entry: rendered with the real
    template and helm, the scraper's entry value wins, the node agent keeps host networking."""
    _, cfg = addon(dev)
    values = tmp_path / "values.json"
    values.write_text(json.dumps(cfg))
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
            f"clusterName={dev.config.cluster_name}",
            "--set-string",
            f"region={dev.config.region}",
            "--show-only",
            "templates/linux/cloudwatch-agent-custom-resource.yaml",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    agents = {
        d["metadata"]["name"]: d["spec"]
        for d in yaml.safe_load_all(proc.stdout)
        if d and d["kind"] == "AmazonCloudWatchAgent"
    }
    assert agents[PROMETHEUS_AGENT]["hostNetwork"] is False
    assert agents["cloudwatch-agent"]["hostNetwork"] is True
    assert yaml.safe_load((CHART / "values.yaml").read_text())["agent"]["hostNetwork"] is True


def _named_ports(policy: dict[str, Any], ports: dict[str, int]) -> dict[str, Any]:
    """A NetworkPolicy with its named ports resolved against the destination pod's container ports (a named port
    matches the port of that name on the selected pod)."""
    spec = json.loads(json.dumps(policy["spec"]))
    for rule in spec.get("ingress", []):
        for port in rule.get("ports", []):
            port["port"] = ports.get(port.get("port"), port.get("port"))
    return {**policy, "spec": spec}


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_team_namespace_admits_the_agent_on_the_engine_port_only(env: str) -> None:
    """The team namespace's policies (NetworkPolicy semantics over the manifests; llmft renders none): a pod of the
    agent's namespace reaches the engine's ``http`` port, not another port; another team's pod does not reach it at
    all; without the platform's ``allow-serving-metrics`` the default deny blocks the scrape."""
    synth = synthesize(env)
    plan = plan_of(EXAMPLE, env)
    manifests = kube_manifests(synth.templates["compute"])
    team_policies = [d for d in manifests if d["kind"] == "NetworkPolicy"]
    assert [p for p in team_policies if p["metadata"]["namespace"] == plan.team.namespace], "default deny is there"
    assert "NetworkPolicy" not in by_kind(plan)
    policies = [_named_ports(p, {serving.ENGINE_PORT_NAME: serving.ENGINE_PORT}) for p in team_policies]
    without = [p for p in policies if p["metadata"]["name"] != SERVING_METRICS_POLICY]
    ns_labels = {
        n: {"kubernetes.io/metadata.name": n}
        for n in {serving.METRICS_AGENT_NAMESPACE, *(t.namespace for t in synth.config.kubernetes.teams)}
    }
    for d in manifests:
        if d["kind"] == "Namespace":
            ns_labels[d["metadata"]["name"]] = {
                **d["metadata"].get("labels", {}),
                "kubernetes.io/metadata.name": d["metadata"]["name"],
            }
    labels = by_kind(plan)["Deployment"]["spec"]["template"]["metadata"]["labels"]
    engine = Pod(plan.team.namespace, tuple(labels.items()), "10.1.0.20")
    agent = Pod(serving.METRICS_AGENT_NAMESPACE, (("app.kubernetes.io/name", "cloudwatch-agent"),), "10.1.0.30")
    assert allowed(policies, "ingress", engine, agent, serving.ENGINE_PORT, ns_labels)
    assert not allowed(policies, "ingress", engine, agent, 22, ns_labels)
    assert not allowed(without, "ingress", engine, agent, serving.ENGINE_PORT, ns_labels), (
        "without the platform's serving rule the default deny blocks the scrape: that rule is what admits it"
    )
    for other in synth.config.kubernetes.teams:
        if other.namespace != plan.team.namespace:
            stranger = Pod(other.namespace, (("app", "x"),), "10.1.0.40")
            assert not allowed(policies, "ingress", engine, stranger, serving.ENGINE_PORT, ns_labels)


# ---- dashboard and alarms ------------------------------------------------------------------------------------------


def emitted_for(synth: Synth, namespace: str, name: str, serve: str = "medical-chat") -> set[tuple[str, str, Any]]:
    """What one engine sample of ``name`` from endpoint ``serve`` in ``namespace`` becomes in CloudWatch."""
    target = {
        "job": SERVING_JOB,
        "serve": serve,
        "Namespace": namespace,
        "ClusterName": synth.config.cluster_name,
        "__address__": "10.0.0.7:30000",
    }
    labels = sample(serving_job(synth), target, name, {**ENGINE_LABELS, "is_streaming": "true"})
    assert labels is not None, name
    return published(synth, labels)


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_dashboard_row_searches_every_endpoint_of_every_team(env: str) -> None:
    from .test_observability import dashboard_widgets, referenced_metrics

    synth = synthesize(env)
    widgets = [w for w in dashboard_widgets(synth) if w["properties"].get("title", "").startswith("Served models")]
    assert len(widgets) == 4, [w["properties"].get("title") for w in widgets]
    drawn = {(ns, name, dims) for w in widgets for ns, name, dims, _ in referenced_metrics(w["properties"]["metrics"])}
    per_serve = {(serving.METRICS_NAMESPACE, m, frozenset(serving.METRIC_DIMENSIONS)) for m in SERVING_METRICS}
    assert per_serve <= drawn
    assert {
        ("ContainerInsights", m, frozenset({"ClusterName", "Namespace", "PodName"}))
        for m in ("replicas_ready", "replicas_desired")
    } <= drawn
    expressions = [row[-1]["expression"] for w in widgets for row in w["properties"]["metrics"]]
    teams = [t.namespace for t in synth.config.kubernetes.teams]
    for expression in expressions:
        assert "SEARCH(" in expression, "serve names are unknown at synth time: every line is a search"
        assert all(f'Namespace="{t}"' in expression or f"Namespace={t}" in expression for t in teams), expression
        assert synth.config.cluster_name in expression
    # what an endpoint emits is what the row searches (same schema: the metric exists with exactly these dimensions)
    for name in SERVING_METRICS:
        ((_, _, dims),) = [e for e in emitted_for(synth, teams[0], name) if len(e[2]) == 3]
        assert frozenset(k for k, _ in dims) == frozenset(serving.METRIC_DIMENSIONS)


def _single_metric_state(props: dict[str, Any], data: dict[Any, float]) -> str:
    key = (props["MetricName"], frozenset((d["Name"], d["Value"]) for d in props["Dimensions"]), props["Statistic"])
    from .test_observability import alarm_state

    return alarm_state(props, data.get(key))


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_serving_alarms_per_team_read_what_the_engines_emit(env: str) -> None:
    from .test_observability import STACK, alarm_metrics, alarm_state, alarms, evaluate_alarm

    synth = synthesize(env)
    t = synth.config.observability.thresholds
    found = alarms(synth)
    topic = next(iter(synth.resources(STACK, "AWS::SNS::Topic")))
    for team in synth.config.kubernetes.teams:
        ns = team.namespace
        backlog, aborted = found[f"ServingQueueBacklog-{ns}"], found[f"ServingAbortedRequests-{ns}"]
        for props in (backlog, aborted):
            assert props["AlarmActions"] == [{"Ref": topic}]
            assert props["TreatMissingData"] == "notBreaching", "an endpoint asleep at 0 replicas is no incident"
        # each reads exactly the per-namespace metric an engine of the team emits (no SEARCH, no serve dimension)
        queued = {(n, name, frozenset(v.items())) for n, name, _, v in alarm_metrics(backlog)}
        assert queued <= emitted_for(synth, ns, serving.DEMAND_METRICS[1])
        assert {(n, name, frozenset(v.items())) for n, name, _, v in alarm_metrics(aborted)} <= emitted_for(
            synth, ns, serving.ABORTED_REQUESTS_METRIC
        )
        assert all(frozenset(k for k, _ in dims) == frozenset(serving.NAMESPACE_DIMENSIONS) for _, _, dims in queued)
        assert backlog["EvaluationPeriods"] == backlog["DatapointsToAlarm"] == -(-t.serving_queue_minutes // 5)
        # behaviour: the 5-minute Sum of one sample per engine and minute, back to the average queue
        ((_, name, dims),) = queued
        for per_minute, state in ((t.serving_queued_requests, "ALARM"), (t.serving_queued_requests / 2, "OK")):
            value = evaluate_alarm(backlog, {(name, dims, "Sum"): per_minute * 5})
            assert value == pytest.approx(per_minute) and alarm_state(backlog, value) == state
        assert alarm_state(backlog, evaluate_alarm(backlog, {})) == "OK"
        ((_, aname, adims),) = {(n, name, frozenset(v.items())) for n, name, _, v in alarm_metrics(aborted)}
        assert aborted["Period"] == 900 and aborted["Statistic"] == "Sum"
        assert (
            _single_metric_state(aborted, {(aname, adims, "Sum"): t.serving_aborted_requests_per_15_minutes}) == "ALARM"
        )
        assert _single_metric_state(aborted, {(aname, adims, "Sum"): 0}) == "OK"
