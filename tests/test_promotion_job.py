"""Issue 40, the promotion Job (`llmft promote`, llmft/promote.py): docs/serving.md "The production promotion path"
step 4 as objects. Rendered from llmft's real output for examples/jobs/serve-production.yaml and checked, for every
environment, against the rendered admission policies and RBAC as the identity the Job runs as (tests/guardrail_eval.py):
the promoter is admitted and allowed for every object it applies, a team member applying the same objects is
refused, and no team may write the Job or its ConfigMap. Before it applies, the Job checks in the cluster, as the
platform, that MLflow passed what the Deployment serves (training/llm_platform/promotion_check.py; against the real
MLflow server: tests/test_mlflow_server_e2e.py ``test_the_promotion_check_asks_the_real_server``)."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

import pytest
import yaml
from llm_platform import promotion_check

from k8s_charts import serving
from k8s_charts.pods import MLFLOW_CREDENTIALS_VOLUME
from k8s_charts.values import MLFLOW_CONFIG_MAP, MLFLOW_CREDENTIALS_SECRET, MLFLOW_SECRET_PROVIDER_CLASS
from llmft.promote import CHECK_MODULE, ENDPOINT_KEY, MOUNT, promotion_manifests, retirement_manifests

from .conftest import ENVIRONMENTS
from .guardrail_eval import GROUP_OF, admission_refusals, rbac_allows, resource_of
from .test_serve import EXAMPLES, REGISTRY, plan_of
from .test_team_guardrails import ns_labels, team_manifests

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

KUBECTL = "registry.example/kubectl@sha256:" + "0" * 64
PROMOTER = {("ServiceAccount", f"{serving.PROMOTION_NAMESPACE}/{serving.PROMOTER_SERVICE_ACCOUNT}")}


def _promotion(env: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    plan = plan_of(EXAMPLES / "serve-production.yaml", env)
    return plan.manifests, promotion_manifests(plan.manifests, image=KUBECTL)


def _applied(config_map: dict[str, Any]) -> list[dict[str, Any]]:
    return list(yaml.safe_load_all(config_map["data"][ENDPOINT_KEY]))


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_job_runs_as_the_promoter_in_the_platform_namespace(env: str) -> None:
    endpoint, (config_map, job) = _promotion(env)
    assert {d["metadata"]["namespace"] for d in (config_map, job)} == {serving.PROMOTION_NAMESPACE}
    pod = job["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == serving.PROMOTER_SERVICE_ACCOUNT
    (container,) = pod["containers"]
    assert container["command"][:2] == ["kubectl", "apply"] and f"{MOUNT}/{ENDPOINT_KEY}" in container["command"]
    assert {v["configMap"]["name"] for v in pod["volumes"] if "configMap" in v} == {config_map["metadata"]["name"]}
    # the platform namespace enforces Pod Security "restricted" (k8s_charts/promotion.py)
    security = container["securityContext"]
    assert security["allowPrivilegeEscalation"] is False and security["capabilities"] == {"drop": ["ALL"]}
    assert security["runAsNonRoot"] is True and security["seccompProfile"] == {"type": "RuntimeDefault"}
    assert _applied(config_map) == endpoint


def _restricted(container: dict[str, Any]) -> None:
    security = container["securityContext"]
    assert security["allowPrivilegeEscalation"] is False and security["capabilities"] == {"drop": ["ALL"]}
    assert security["runAsNonRoot"] is True and security["seccompProfile"] == {"type": "RuntimeDefault"}


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_job_checks_with_mlflow_before_it_applies(env: str) -> None:
    """An init container (which must succeed before kubectl runs; backoffLimit 0: a refusal is final) runs the check
    in the Deployment's own serving image with the MLflow evaluator's credentials, which the platform namespace holds
    as a team namespace holds its own: the rendered ConfigMap and SecretProviderClass of the evaluator's secret."""
    endpoint, (_, job) = _promotion(env)
    pod = job["spec"]["template"]["spec"]
    assert job["spec"]["backoffLimit"] == 0
    (check,) = pod["initContainers"]
    (engine,) = endpoint[0]["spec"]["template"]["spec"]["containers"]
    assert check["image"] == engine["image"]
    assert check["command"][:3] == ["python3", "-m", CHECK_MODULE] and f"{MOUNT}/{ENDPOINT_KEY}" in check["command"]
    _restricted(check)
    refs = {next(iter(r.values()))["name"] for r in check["envFrom"]}
    assert refs == {MLFLOW_CONFIG_MAP, MLFLOW_CREDENTIALS_SECRET}
    (csi,) = [v["csi"] for v in pod["volumes"] if v["name"] == MLFLOW_CREDENTIALS_VOLUME]
    provider_class = csi["volumeAttributes"]["secretProviderClass"]
    platform = {
        (d["kind"], d["metadata"]["name"]): d
        for d in team_manifests(env)
        if d["metadata"].get("namespace") == serving.PROMOTION_NAMESPACE
    }
    assert ("ConfigMap", MLFLOW_CONFIG_MAP) in platform
    spc = platform[("SecretProviderClass", provider_class)]
    assert provider_class == MLFLOW_SECRET_PROVIDER_CLASS
    assert "MLFLOW_EVALUATOR_SECRET_ARN" in spc["spec"]["parameters"]["objects"]
    assert {o["secretName"] for o in spc["spec"]["secretObjects"]} == {MLFLOW_CREDENTIALS_SECRET}
    # the serving image is pulled on the CPU job pool, not on the system nodes
    assert pod["nodeSelector"] and pod["tolerations"]


def test_the_checks_names_are_the_platforms() -> None:
    """The image has no copy of the platform: the check's tag, annotation and label names are the ones llmft renders
    and the MLflow gate guards."""
    from k8s_charts.team_storage import TEAM_MOUNT_PATH
    from llmft.serve_build import MODEL_ANNOTATIONS

    c = promotion_check
    assert (c.EVALUATION_TAG, c.EVALUATION_PASSED, c.DIGEST_TAG, c.MODEL_DIR_TAG) == (
        serving.EVALUATION_TAG,
        serving.EVALUATION_PASSED,
        serving.EVALUATION_DIGEST_TAG,
        serving.MODEL_DIR_TAG,
    )
    assert {c.MODEL_ANNOTATION, c.VERSION_ANNOTATION, c.MODEL_DIR_ANNOTATION} <= set(MODEL_ANNOTATIONS)
    assert c.MODEL_DIR_ANNOTATION == serving.MODEL_DIR_ANNOTATION and c.TEAM_MOUNT == TEAM_MOUNT_PATH


def _version_of(deployment: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """(source, tags) of the version the Deployment names, from the registry snapshot llmft rendered it from."""
    annotations = deployment["metadata"]["annotations"]
    snapshot = yaml.safe_load(REGISTRY.read_text())
    version = snapshot[annotations["llmft.io/model"]]["versions"][int(annotations["llmft.io/model-version"])]
    return version["source"], dict(version["tags"])


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_check_passes_what_llmft_rendered_and_nothing_else(env: str) -> None:
    """llmft's real Deployment against its registry version: passes; every edit between `llmft promote` and the
    apply (other weights, another digest, another model) and every version that is not the evaluated one: refused,
    each reason naming what differs."""
    endpoint, (config_map, _) = _promotion(env)
    deployment = promotion_check.deployment_of(_applied(config_map))
    source, tags = _version_of(deployment)
    assert promotion_check.refusals(deployment, source=source, tags=tags) == []
    model_dir = deployment["metadata"]["annotations"][serving.MODEL_DIR_ANNOTATION]

    def edited(change) -> dict[str, Any]:
        out = yaml.safe_load(yaml.safe_dump(deployment))
        (container,) = out["spec"]["template"]["spec"]["containers"]
        container["command"] = [change(a) for a in container["command"]]
        return out

    other_digest = "sha256:" + "f" * 64
    deployments = {
        "other digest": edited(lambda a: "--digest=" + other_digest if a.startswith("--digest=") else a),
        "other weights": edited(lambda a: a.replace(model_dir, "/fsx/other")),
        "other engine dir only": edited(lambda a: a.replace(model_dir, "/fsx/other") if "model-path" in a else a),
    }
    another_team = yaml.safe_load(yaml.safe_dump(deployment))
    another_team["metadata"]["annotations"]["llmft.io/model"] = "someone-else.model"
    deployments["another team's model"] = another_team
    other_namespace = yaml.safe_load(yaml.safe_dump(deployment))
    other_namespace["metadata"]["namespace"] = "someone-else"  # the team's model, served in another namespace
    deployments["another namespace"] = other_namespace
    for name, d in deployments.items():
        assert promotion_check.refusals(d, source=source, tags=tags), name
    versions = {
        "failed": {**tags, serving.EVALUATION_TAG: "failed"},
        "never evaluated": {k: v for k, v in tags.items() if not k.startswith(serving.EVALUATION_TAG)},
        "re-evaluated weights": {**tags, serving.EVALUATION_DIGEST_TAG: other_digest},
        "other directory": {**tags, serving.MODEL_DIR_TAG: "/fsx/other"},
        "outside /fsx": {**tags, serving.MODEL_DIR_TAG: "/etc"},
    }
    for name, t in versions.items():
        problems = promotion_check.refusals(deployment, source=source, tags=t)
        assert problems and all(deployment["metadata"]["annotations"]["llmft.io/model"] in p for p in problems), name


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_what_the_job_applies_is_admitted_and_allowed_for_the_promoter_only(env: str) -> None:
    m = team_manifests(env)
    _, (config_map, _) = _promotion(env)
    applied = _applied(config_map)
    namespace = applied[0]["metadata"]["namespace"]
    labels = ns_labels(env, namespace)
    for doc in applied:
        assert doc["metadata"]["namespace"] == namespace
        # the Deployment is applied first: its ScaledObject and Service are then a production Deployment's names
        assert admission_refusals(m, doc, labels, user=serving.PROMOTER, cluster=[applied[0]]) == [], doc["kind"]
        group, resource = GROUP_OF[doc["kind"]], resource_of(doc["kind"])
        for verb in ("create", "patch", "get"):  # kubectl apply: get, then create or patch
            assert rbac_allows(m, PROMOTER, verb, group, resource, namespace), (doc["kind"], verb)
    # the same Deployment applied by a team member (kubectl or its GitOps folder) is refused
    assert any("promotion step" in r.message for r in admission_refusals(m, applied[0], labels))


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_no_team_writes_the_promotion(env: str) -> None:
    from config import load_config

    m = team_manifests(env)
    for team in load_config(env).kubernetes.teams:
        groups = {
            ("Group", s["name"])
            for d in m
            if d["kind"] == "RoleBinding" and d["metadata"].get("namespace") == team.namespace
            for s in d.get("subjects", [])
            if s["kind"] == "Group"
        }
        for verb in ("create", "update", "patch"):
            for group, resource in (("", "configmaps"), ("batch", "jobs"), ("", "pods")):
                assert not rbac_allows(m, groups, verb, group, resource, serving.PROMOTION_NAMESPACE), (team.name, verb)
        # nor read the evaluator's credentials the check uses (the synced Secret, its SecretProviderClass)
        for group, resource in (("", "secrets"), ("secrets-store.csi.x-k8s.io", "secretproviderclasses")):
            allowed = rbac_allows(m, groups, "get", group, resource, serving.PROMOTION_NAMESPACE)
            assert not allowed, (team.name, resource)


def _cli(monkeypatch: pytest.MonkeyPatch, argv: list[str], registry=REGISTRY) -> tuple[int, str, str]:
    from llmft.cli import main
    from llmft.registry import FileRegistry, MlflowRegistry

    monkeypatch.setattr(MlflowRegistry, "from_environment", classmethod(lambda cls: FileRegistry.load(registry)))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_llmft_promote_prints_the_job(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = _cli(monkeypatch, ["promote", str(EXAMPLES / "serve-production.yaml"), "--image", KUBECTL])
    assert code == 0, err
    assert [d["kind"] for d in yaml.safe_load_all(out)] == ["ConfigMap", "Job"]
    assert serving.PROMOTION_NAMESPACE in err


def test_llmft_promote_refuses_what_is_not_production(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = _cli(monkeypatch, ["promote", str(EXAMPLES / "07-serve-medical.yaml"), "--image", KUBECTL])
    assert code == 1 and out == "" and "llmft submit" in err


def test_llmft_promote_refuses_a_version_that_did_not_pass(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from llmft.spec import load_spec

    serve = load_spec(EXAMPLES / "serve-production.yaml").serve
    snapshot = yaml.safe_load(REGISTRY.read_text())
    model = snapshot[serve.model]
    model["versions"][model["aliases"][serve.alias]]["tags"][serving.EVALUATION_TAG] = "failed"
    failed = tmp_path / "registry.yaml"
    failed.write_text(yaml.safe_dump(snapshot))
    code, out, err = _cli(monkeypatch, ["promote", str(EXAMPLES / "serve-production.yaml"), "--image", KUBECTL], failed)
    assert code == 1 and out == "" and "preflight refused" in err


# ---- retiring a production endpoint: the promoter deletes what it applied; a team cannot ---------------------------
def _target(doc: dict[str, Any]) -> str:
    """kubectl's ``<resource>.<group>/<name>`` of a manifest."""
    group = GROUP_OF[doc["kind"]]
    return f"{resource_of(doc['kind'])}{'.' + group if group else ''}/{doc['metadata']['name']}"


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_retirement_deletes_what_the_promotion_applied_as_the_promoter_only(env: str) -> None:
    m = team_manifests(env)
    _, (config_map, _) = _promotion(env)
    applied = _applied(config_map)
    deployment = applied[0]
    namespace, name = deployment["metadata"]["namespace"], deployment["metadata"]["name"]
    (job,) = retirement_manifests(name, namespace, image=KUBECTL)
    pod = job["spec"]["template"]["spec"]
    assert job["metadata"]["namespace"] == serving.PROMOTION_NAMESPACE
    assert pod["serviceAccountName"] == serving.PROMOTER_SERVICE_ACCOUNT
    containers = [*pod["initContainers"], *pod["containers"]]  # init containers run in order, each to completion
    targets = []
    for container in containers:
        _restricted(container)
        command = container["command"]
        assert command[:2] == ["kubectl", "delete"] and command[command.index("--namespace") + 1] == namespace
        targets += [c for c in command if "/" in c]
    assert sorted(targets) == sorted(_target(d) for d in applied)  # every object the promotion applied, by name
    assert targets[0].startswith("scaledobjects."), "the autoscaler goes first: nothing scales the Deployment back"
    labels = ns_labels(env, namespace)
    for doc in applied:
        group, resource = GROUP_OF[doc["kind"]], resource_of(doc["kind"])
        assert rbac_allows(m, PROMOTER, "delete", group, resource, namespace), doc["kind"]
        promoter = admission_refusals(
            m, None, labels, operation="DELETE", old=doc, user=serving.PROMOTER, cluster=applied
        )
        assert promoter == [], (doc["kind"], promoter)
        assert admission_refusals(m, None, labels, operation="DELETE", old=doc, cluster=applied), doc["kind"]


def test_llmft_promote_retire_prints_the_job_without_mlflow(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = str(EXAMPLES / "serve-production.yaml")
    code, out, err = _cli(monkeypatch, ["promote", spec, "--image", KUBECTL, "--retire"], registry=None)
    assert code == 0, err
    (job,) = yaml.safe_load_all(out)
    assert job["kind"] == "Job" and job["metadata"]["name"].startswith("retire-")
    code, out, err = _cli(
        monkeypatch, ["promote", str(EXAMPLES / "07-serve-medical.yaml"), "--image", KUBECTL, "--retire"]
    )
    assert code == 1 and out == "" and "llmft cancel" in err
