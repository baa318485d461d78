"""Kueue's metrics reach CloudWatch: the controller publishes the ClusterQueue resource metrics, and the platform's
Prometheus scrape finds the metrics Service exactly as the Kueue chart renders it with the values the compute stack
sends (real ``helm template`` on the vendored chart, tests/upstream/kueue-0.19.2), while the agent's built-in Kueue
scraper (its selector read from the vendored receiver source) would not - the reason the platform scrapes Kueue
itself."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

from cdk_constructs.observability.documented_metrics import DOCUMENTED_METRICS, PROMETHEUS
from config.versions import UPSTREAM as VERSIONS

from .conftest import Synth
from .helm_binary import helm_binary
from .test_observability import PROMETHEUS_AGENT, addon, agent_entry, emf_matches

UPSTREAM = Path(__file__).parent / "upstream"
KUEUE_CHART = UPSTREAM / VERSIONS["kueue"].vendored[0]
RECEIVER = UPSTREAM / "awscontainerinsightskueuereceiver" / "kueue_prometheus_scraper.go"
SERVICE_TEMPLATE = "templates/manager/auth_proxy_service.yaml"


def kueue_release(synth: Synth) -> dict[str, Any]:
    (release,) = [
        r["Properties"]
        for r in synth.resources("compute", "Custom::AWSCDK-EKS-HelmChart").values()
        if r["Properties"].get("Chart") == "kueue"
    ]
    return release


def render_metrics_service(
    release: dict[str, Any], tmp_path: Path, values: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The metrics Service as ``helm template`` renders the vendored chart with the release's own name, namespace
    and values (the JSON string the stack hands the Helm handler)."""
    path = tmp_path / "values.json"
    path.write_text(json.dumps(values if values is not None else json.loads(release["Values"])))
    proc = subprocess.run(
        [
            str(helm_binary()),
            "template",
            release["Release"],
            str(KUEUE_CHART),
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
    assert proc.returncode == 0, proc.stderr
    (service,) = [d for d in yaml.safe_load_all(proc.stdout) if d]
    assert service["kind"] == "Service"
    return service


def kueue_job(synth: Synth) -> dict[str, Any]:
    _, cfg = addon(synth)
    jobs = agent_entry(cfg, PROMETHEUS_AGENT)["prometheus"]["config"]["scrape_configs"]
    (job,) = [j for j in jobs if j["job_name"] == "kueue"]
    return job


def discovered_targets(job: dict[str, Any], service: dict[str, Any]) -> list[dict[str, str]]:
    """Prometheus ``kubernetes_sd_configs`` role ``endpoints`` over the Service's Endpoints (the endpoints controller
    names each endpoint port after its Service port), then the job's ``relabel_configs`` ``keep`` rules (source
    label values joined with ``;``, the regex anchored: Prometheus relabel semantics)."""
    (sd,) = job["kubernetes_sd_configs"]
    assert sd["role"] == "endpoints"
    namespace = service["metadata"]["namespace"]
    if namespace not in sd["namespaces"]["names"]:
        return []
    targets = []
    for port in service["spec"]["ports"]:
        meta = {
            "__meta_kubernetes_namespace": namespace,
            "__meta_kubernetes_service_name": service["metadata"]["name"],
            "__meta_kubernetes_endpoint_port_name": port.get("name", ""),
            "__address__": f"10.0.0.1:{port['targetPort']}",
        }
        meta.update(
            {
                f"__meta_kubernetes_service_label_{re.sub(r'[^a-zA-Z0-9_]', '_', k)}": v
                for k, v in service["metadata"]["labels"].items()
            }
        )
        kept = True
        for rule in job["relabel_configs"]:
            if rule.get("action") == "keep":
                value = ";".join(meta.get(label, "") for label in rule["source_labels"])
                kept &= re.fullmatch(rule["regex"], value) is not None
        if kept:
            targets.append(meta)
    return targets


def receiver_selector() -> tuple[str, dict[str, str], dict[str, str]]:
    """(namespace, label selector, field selector) of the agent's built-in Kueue scraper, from its source."""
    source = RECEIVER.read_text()
    consts = dict(re.findall(r'^\s*(kueue\w+)\s*=\s*"([^"]*)"', source, re.MULTILINE))
    assert 'fmt.Sprintf("%s,%s", kueueNameLabelSelector, kueueComponentLabelSelector)' in source

    def pairs(*selectors: str) -> dict[str, str]:
        return dict(s.split("=", 1) for s in selectors)

    return (
        consts["kueueNamespace"],
        pairs(consts["kueueNameLabelSelector"], consts["kueueComponentLabelSelector"]),
        pairs(consts["kueueServiceFieldSelector"]),
    )


# ---- the tests ------------------------------------------------------------------------------------------------------


def test_kueue_publishes_cluster_queue_resource_metrics(env_synth: Synth) -> None:
    """kueue_cluster_queue_resource_usage / _nominal_quota exist only with metrics.enableClusterQueueResources
    (kueue v0.19.2 cmd/kueue/main.go), and the dashboard reads the former."""
    values = json.loads(kueue_release(env_synth)["Values"])
    configuration = yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])
    assert configuration["metrics"]["enableClusterQueueResources"] is True
    assert configuration["metrics"]["bindAddress"] == ":8443"


def test_platform_scrape_finds_the_metrics_service_as_the_chart_renders_it(env_synth: Synth, tmp_path: Path) -> None:
    release = kueue_release(env_synth)
    service = render_metrics_service(release, tmp_path)
    job = kueue_job(env_synth)
    (target,) = discovered_targets(job, service)
    assert target["__address__"].endswith(":8443")
    # the controller serves /metrics over TLS behind authn/authz (SecureServing, WithAuthenticationAndAuthorization)
    assert job["scheme"] == "https"
    assert job["bearer_token_file"] == "/var/run/secrets/kubernetes.io/serviceaccount/token"
    assert job["tls_config"] == {"insecure_skip_verify": True}


def test_the_agents_builtin_kueue_scraper_would_not_find_it(env_synth: Synth, tmp_path: Path) -> None:
    """Why the platform scrapes Kueue itself: the receiver's field selector names the right Service, but its label
    selector wants app.kubernetes.io/component=controller and the chart renders metrics-service; the chart's
    metricsService.labels value, the would-be fix, is never read by the template."""
    release = kueue_release(env_synth)
    service = render_metrics_service(release, tmp_path)
    namespace, labels, fields = receiver_selector()
    assert service["metadata"]["namespace"] == namespace
    assert fields == {"metadata.name": service["metadata"]["name"]}
    rendered = service["metadata"]["labels"]
    assert not all(rendered.get(k) == v for k, v in labels.items())
    assert rendered["app.kubernetes.io/component"] == "metrics-service"
    values = json.loads(release["Values"])
    values["metricsService"] = {"labels": {"app.kubernetes.io/component": "controller"}}
    patched = render_metrics_service(release, tmp_path, values)
    assert patched["metadata"]["labels"] == rendered, "metricsService.labels is not applied by the chart"


def test_scrape_publishes_the_leaders_series_with_the_documented_dimensions(env_synth: Synth) -> None:
    """A sample as the scrape's metric_relabel_configs leave it: every documented Kueue dimension set is published
    for the leader's (or a single replica's) series and none for a follower's."""
    _, cfg = addon(env_synth)
    prom = agent_entry(cfg, PROMETHEUS_AGENT)
    emf = prom["config"]["logs"]["metrics_collected"]["prometheus"]["emf_processor"]
    job = kueue_job(env_synth)
    keep = next(r for r in job["metric_relabel_configs"] if r["action"] == "keep")
    renames = {
        r["source_labels"][0]: r["target_label"] for r in job["metric_relabel_configs"] if r["action"] == "replace"
    }
    raw = {
        "cluster_queue": "ml-research-production",
        "status": "active",
        "reason": "PodsReadyTimeout",
        "resource": "nvidia.com/gpu",
        "flavor": "hyperpod-ml.p5.48xlarge",
        "cohort": "ml-research",
    }
    for name in sorted(n for (ns, n) in DOCUMENTED_METRICS if ns == PROMETHEUS and n.startswith("kueue_")):
        assert re.fullmatch(keep["regex"], name), name
        for role, published in (("leader", True), ("standalone", True), ("follower", False)):
            labels = {
                **raw,
                "__name__": name,
                "job": "kueue",
                "replica_role": role,
                "ClusterName": env_synth.config.cluster_name,
            }
            labels.update({renames[k]: v for k, v in raw.items() if k in renames})
            sets = {
                frozenset(d)
                for decl in emf["metric_declaration"]
                if f"^{name}$" in decl["metric_selectors"] and emf_matches(decl, labels)
                for d in decl["dimensions"]
                if set(d) <= set(labels)
            }
            expected = set(DOCUMENTED_METRICS[(PROMETHEUS, name)].dimension_sets) if published else set()
            assert sets == expected, (name, role)
