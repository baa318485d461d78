"""Issue 40, the promotion Job (`llmft promote`, llmft/promote.py): docs/serving.md "The production promotion path"
step 4 as objects. Rendered from llmft's real output for examples/jobs/serve-production.yaml and checked, for every
environment, against the rendered admission policies and RBAC as the identity the Job runs as (tests/guardrail_eval.py):
the promoter is admitted and allowed for every object it applies, a team member applying the same objects is
refused, and no team may write the Job or its ConfigMap."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

import pytest
import yaml

from k8s_charts import serving
from llmft.promote import ENDPOINT_KEY, MOUNT, promotion_manifests

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


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_what_the_job_applies_is_admitted_and_allowed_for_the_promoter_only(env: str) -> None:
    m = team_manifests(env)
    _, (config_map, _) = _promotion(env)
    applied = _applied(config_map)
    namespace = applied[0]["metadata"]["namespace"]
    labels = ns_labels(env, namespace)
    for doc in applied:
        assert doc["metadata"]["namespace"] == namespace
        assert admission_refusals(m, doc, labels, user=serving.PROMOTER) == [], doc["kind"]
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
