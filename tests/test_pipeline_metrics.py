"""Argo Workflows' phase counts reach CloudWatch (``pipelines.enabled``): the chart's controller Service, as the
vendored argo-workflows 1.0.18 chart renders it with the values the compute stack sends (real ``helm template``,
tests/upstream/argo-workflows-1.0.18), is what the platform's scrape job finds; the job's allow-list and renames
produce the metric the EMF declarations publish; the dashboard and one alarm per team read exactly that metric; and
with pipelines off none of it exists. One extra synthesis: dev with ``pipelines.enabled`` (the one
tests/test_pipelines.py uses too)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from cdk_constructs.observability.platform_dashboard import PIPELINE_PHASES
from config.charts import ARGO_WORKFLOWS_CHART_VERSION

from .conftest import Synth, synthesize
from .helm_binary import helm_binary
from .test_kueue_metrics import discovered_targets
from .test_observability import (
    PROMETHEUS_AGENT,
    STACK,
    addon,
    agent_entry,
    alarm_metrics,
    alarm_state,
    alarms,
    dashboard_widgets,
    emf_matches,
    evaluate_alarm,
    expected_thresholds,
    referenced_metrics,
)

ARGO_CHART = Path(__file__).parent / "upstream" / f"argo-workflows-{ARGO_WORKFLOWS_CHART_VERSION}"
SERVICE_TEMPLATE = "templates/controller/workflow-controller-service.yaml"
PIPELINES = {"pipelines": {"enabled": True}}
METRIC = "argo_workflows_total_count"
"""Argo Workflows v4.0.6 docs/metrics.md: ``total_count`` (prefix ``argo_workflows_``), attributes ``phase`` and
``namespace``."""


@pytest.fixture(scope="module")
def piped() -> Synth:
    return synthesize("dev", PIPELINES)


def argo_release(synth: Synth) -> dict[str, Any]:
    (release,) = [
        r["Properties"]
        for r in synth.resources("compute", "Custom::AWSCDK-EKS-HelmChart").values()
        if r["Properties"].get("Chart") == "argo-workflows"
    ]
    return release


def render_controller_service(
    release: dict[str, Any], tmp_path: Path, values: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    path = tmp_path / "values.json"
    path.write_text(json.dumps(values if values is not None else json.loads(release["Values"])))
    proc = subprocess.run(
        [
            str(helm_binary()),
            "template",
            release["Release"],
            str(ARGO_CHART),
            "--namespace",
            release["Namespace"],
            "--values",
            str(path),
            "--show-only",
            SERVICE_TEMPLATE,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    if proc.returncode != 0 and "could not find template" in proc.stderr:
        return []  # the template rendered nothing
    assert proc.returncode == 0, proc.stderr
    return [d for d in yaml.safe_load_all(proc.stdout) if d]


def scrape_job(synth: Synth) -> dict[str, Any]:
    _, cfg = addon(synth)
    jobs = agent_entry(cfg, PROMETHEUS_AGENT)["prometheus"]["config"]["scrape_configs"]
    (job,) = [j for j in jobs if j["job_name"] == "argo-workflows"]
    return job


def emf(synth: Synth) -> dict[str, Any]:
    _, cfg = addon(synth)
    return agent_entry(cfg, PROMETHEUS_AGENT)["config"]["logs"]["metrics_collected"]["prometheus"]["emf_processor"]


def scraped(job: dict[str, Any], sample: dict[str, str]) -> dict[str, str] | None:
    """A sample after the job's target labels and ``metric_relabel_configs`` (Prometheus relabel semantics: source
    values joined with ``;``, anchored regex; ``keep`` drops a non-match, ``replace`` writes the expanded group)."""
    labels = {**sample, "job": job["job_name"]}
    labels.update(
        {
            r["target_label"]: r["replacement"]
            for r in job["relabel_configs"]
            if "target_label" in r and "source_labels" not in r
        }
    )
    for rule in job["metric_relabel_configs"]:
        value = ";".join(labels.get(k, "") for k in rule["source_labels"])
        match = re.fullmatch(rule["regex"], value)
        if rule["action"] == "keep" and not match:
            return None
        if rule["action"] == "replace" and match:
            labels[rule["target_label"]] = match.expand(rule["replacement"].replace("${1}", r"\1"))
    return labels


def published(synth: Synth, labels: dict[str, str]) -> set[tuple[str, str, frozenset[tuple[str, str]]]]:
    """(namespace, metric, dimensions with values) the EMF declarations publish for one scraped sample."""
    e = emf(synth)
    return {
        (e["metric_namespace"], labels["__name__"], frozenset((k, labels[k]) for k in dims))
        for decl in e["metric_declaration"]
        if any(re.fullmatch(s.strip("^$"), labels["__name__"]) for s in decl["metric_selectors"])
        and emf_matches(decl, labels)
        for dims in decl["dimensions"]
        if set(dims) <= set(labels)
    }


def emitted(synth: Synth, namespace: str, phase: str) -> set[tuple[str, str, frozenset[tuple[str, str]]]]:
    """What the controller's ``total_count`` sample of a team namespace and phase becomes in CloudWatch."""
    labels = scraped(scrape_job(synth), {"__name__": METRIC, "namespace": namespace, "phase": phase})
    assert labels is not None
    return published(synth, labels)


# ---- the tests ------------------------------------------------------------------------------------------------------


def test_without_pipelines_nothing_of_it_exists(dev: Synth) -> None:
    assert not dev.config.pipelines.enabled
    _, cfg = addon(dev)
    jobs = agent_entry(cfg, PROMETHEUS_AGENT)["prometheus"]["config"]["scrape_configs"]
    assert "argo-workflows" not in [j["job_name"] for j in jobs]
    assert not [d for d in emf(dev)["metric_declaration"] if f"^{METRIC}$" in d["metric_selectors"]]
    assert not [n for n in alarms(dev) if n.startswith("FailedPipelines")]
    assert METRIC not in json.dumps(dashboard_widgets(dev))


def test_scrape_finds_the_controller_metrics_service_as_the_chart_renders_it(piped: Synth, tmp_path: Path) -> None:
    chart = yaml.safe_load((ARGO_CHART / "Chart.yaml").read_text())
    assert (chart["name"], chart["version"]) == ("argo-workflows", ARGO_WORKFLOWS_CHART_VERSION)
    release = argo_release(piped)
    values = json.loads(release["Values"])
    (service,) = render_controller_service(release, tmp_path)
    job = scrape_job(piped)
    (target,) = discovered_targets(job, service)
    # Service port -> the controller's metrics port (metricsConfig.port), plain HTTP (secure: false)
    assert target["__address__"].endswith(
        f":{yaml.safe_load((ARGO_CHART / 'values.yaml').read_text())['controller']['metricsConfig']['port']}"
    )
    assert job["scheme"] == "http" and values["controller"]["metricsConfig"]["secure"] is False
    # the chart default (metricsConfig.enabled: false) renders no Service at all: nothing to scrape
    values["controller"]["metricsConfig"]["enabled"] = False
    assert render_controller_service(release, tmp_path, values) == []


def test_with_pipelines_every_documented_prometheus_metric_is_published(piped: Synth) -> None:
    from .test_observability import test_prometheus_declarations_are_the_documented_dimensions as check

    assert piped.config.pipelines.enabled
    check(piped)  # with pipelines on, nothing is left out of the documented = published comparison


def test_every_pipelines_alarm_has_its_runbook_line(piped: Synth) -> None:
    from .test_observability import test_readme_has_a_runbook_line_per_alarm as check

    check(piped)


def test_allow_list_keeps_the_phase_counter_only(piped: Synth) -> None:
    job = scrape_job(piped)
    assert scraped(job, {"__name__": METRIC, "namespace": "x", "phase": "Failed"}) is not None
    for other in ("argo_workflows_gauge", "argo_workflows_pods_total_count", "argo_workflows_k8s_request_total"):
        assert scraped(job, {"__name__": other, "phase": "Failed"}) is None, other


def test_one_failed_pipelines_alarm_per_team_on_the_topic(piped: Synth) -> None:
    cfg = piped.config
    found = {n: p for n, p in alarms(piped).items() if n.startswith("FailedPipelines")}
    expected = {n: v for n, v in expected_thresholds(piped).items() if n.startswith("FailedPipelines")}
    assert set(found) == set(expected) == {f"FailedPipelines-{t.namespace}" for t in cfg.kubernetes.teams}
    assert len(found) == len(cfg.kubernetes.teams) > 0
    topic = next(iter(piped.resources(STACK, "AWS::SNS::Topic")))
    for team in cfg.kubernetes.teams:
        props = found[f"FailedPipelines-{team.namespace}"]
        assert props["AlarmActions"] == [{"Ref": topic}]
        assert props["Threshold"] == expected[f"FailedPipelines-{team.namespace}"]
        # the alarm reads exactly what the scrape emits for this team's Failed and Error workflows
        reads = {(ns, name, frozenset(values.items())) for ns, name, _, values in alarm_metrics(props)}
        assert reads == emitted(piped, team.namespace, "Failed") | emitted(piped, team.namespace, "Error")
        # behaviour: a failed (or errored) workflow of the team in the hour fires it; none: no data, OK
        for phase in ("Failed", "Error"):
            ((_, name, dims),) = emitted(piped, team.namespace, phase)
            value = evaluate_alarm(props, {(name, dims, "Sum"): cfg.observability.thresholds.failed_pipelines_per_hour})
            assert alarm_state(props, value) == "ALARM", phase
        assert alarm_state(props, evaluate_alarm(props, {})) == "OK"
        ((_, name, other_team),) = emitted(piped, "someone-else", "Failed")
        assert alarm_state(props, evaluate_alarm(props, {(name, other_team, "Sum"): 5})) == "OK"


def test_dashboard_draws_each_teams_phase_counts_as_emitted(piped: Synth) -> None:
    cfg = piped.config
    drawn = {
        (ns, name, frozenset(values.items()))
        for w in dashboard_widgets(piped)
        for ns, name, _, values in referenced_metrics(w["properties"].get("metrics", []))
        if name == METRIC
    }
    expected = set().union(
        *(emitted(piped, t.namespace, phase) for t in cfg.kubernetes.teams for phase in PIPELINE_PHASES)
    )
    assert drawn == expected
    assert {"Running", "Succeeded", "Failed", "Error"} == set(PIPELINE_PHASES)


def test_cfn_lint_and_cdk_nag_stay_clean_with_pipelines(piped: Synth) -> None:
    """tests/test_compliance.py's checks on the shipped environments, run on this variant (its new alarms and agent
    configuration)."""
    from .test_compliance import test_cdk_nag_has_no_unacknowledged_findings, test_cfn_lint_is_clean

    test_cfn_lint_is_clean(piped)
    test_cdk_nag_has_no_unacknowledged_findings(piped)


def test_the_shipped_environments_alarm_and_dashboard_checks_hold_with_pipelines(piped: Synth) -> None:
    """tests/test_observability.py's generic checks (documented metrics only, CloudWatch alarm windows, every alarm
    on the topic with its config threshold) on this variant."""
    from .test_observability import (
        test_alarm_windows_are_within_cloudwatch_limits,
        test_alarms_watch_documented_metrics,
        test_dashboard_references_only_documented_metrics_and_dimensions,
        test_every_alarm_has_an_action_and_its_threshold_from_config,
    )

    for check in (
        test_alarm_windows_are_within_cloudwatch_limits,
        test_alarms_watch_documented_metrics,
        test_dashboard_references_only_documented_metrics_and_dimensions,
        test_every_alarm_has_an_action_and_its_threshold_from_config,
    ):
        check(piped)
