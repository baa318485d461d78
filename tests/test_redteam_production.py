"""Third red team (issue 40), production serving: the rendered production endpoint (llmft's real output for
examples/jobs/serve-production.yaml) through every environment's admission policies with admission semantics
(requesting identity, operation, ``oldObject``; tests/guardrail_eval.py). Only the platform's promotion identity
creates or changes it, and even it only with the pinned weights and allowed engine flags."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from k8s_charts import serving
from k8s_charts.guardrails.common import PLATFORM_CONTROLLERS
from k8s_charts.queues import QUEUE_NAME_LABEL, local_queue_name

from .conftest import ENVIRONMENTS
from .guardrail_eval import admission_refusals
from .test_serve import EXAMPLES, by_kind, plan_of
from .test_team_guardrails import ns_labels, team_manifests

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

PROMOTION = "promotion step"
ENGINE = "a production engine runs behind the weights digest check"


def _production(env: str) -> tuple[dict[str, Any], dict[str, str], list[dict[str, Any]]]:
    plan = plan_of(EXAMPLES / "serve-production.yaml", env)
    assert plan.spec.tier in serving.PRODUCTION_TIERS
    return by_kind(plan)["Deployment"], ns_labels(env, plan.team.namespace), team_manifests(env)


def _messages(m, doc, labels, **kw) -> list[str]:
    return [r.message for r in admission_refusals(m, doc, labels, **kw)]


def _engine(deployment: dict[str, Any]) -> list[str]:
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return container["command"]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_only_the_promotion_identity_creates_or_changes_production(env: str) -> None:
    deployment, labels, m = _production(env)
    assert _messages(m, deployment, labels, user=serving.PROMOTER) == []
    assert any(PROMOTION in x for x in _messages(m, deployment, labels)), "a team member creating it"
    changed = copy.deepcopy(deployment)
    changed["spec"]["replicas"] = 2
    assert any(PROMOTION in x for x in _messages(m, changed, labels, operation="UPDATE", old=deployment))
    # moving it out of production in one update is still a change of a production endpoint
    development = local_queue_name("development")
    moved = copy.deepcopy(deployment)
    for meta in (moved["metadata"], moved["spec"]["template"]["metadata"]):
        meta["labels"][QUEUE_NAME_LABEL] = development
    assert any(PROMOTION in x for x in _messages(m, moved, labels, operation="UPDATE", old=deployment))
    # the platform's controllers (the garbage collector's finalizer updates) are not refused by this rule
    gc = next(u for u in PLATFORM_CONTROLLERS if u.endswith("generic-garbage-collector"))
    assert not [x for x in _messages(m, changed, labels, operation="UPDATE", old=deployment, user=gc) if PROMOTION in x]


def _with_command(deployment: dict[str, Any], change) -> dict[str, Any]:
    out = copy.deepcopy(deployment)
    (container,) = out["spec"]["template"]["spec"]["containers"]
    container["command"] = change(list(container["command"]))
    return out


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_promotion_identity_too_runs_only_pinned_weights_with_allowed_flags(env: str) -> None:
    deployment, labels, m = _production(env)
    model_dir = deployment["metadata"]["annotations"][serving.MODEL_DIR_ANNOTATION]
    start = _engine(deployment).index("--") + 1  # the engine after the digest check
    attacks = {
        "prefix of --model-path": lambda c: [*c, "--model-pa=/fsx/other"],
        "dummy weights": lambda c: [*c, "--load-format=dummy"],
        "remote code": lambda c: [*c, "--trust-remote-code"],
        "adapters": lambda c: [*c, f"--lora-paths=a={model_dir}"],
        "Hub tokenizer": lambda c: [*c, "--tokenizer-path=Qwen/Qwen2.5-7B"],
        "template elsewhere": lambda c: [*c, "--chat-template=/fsx/other/t.jinja"],
        "template via ..": lambda c: [*c, f"--chat-template={model_dir}/../../x.jinja"],
        "other weights": lambda c: [x if not x.startswith("--model-path=") else "--model-path=/fsx/other" for x in c],
        "no digest check": lambda c: c[start:],
        "a value as its own token": lambda c: [*c, "--context-length", "4096"],
        "a shell": lambda c: ["sh", "-c", " ".join(c)],
    }
    for name, change in attacks.items():
        refused = _messages(m, _with_command(deployment, change), labels, user=serving.PROMOTER)
        assert any(ENGINE in x for x in refused), name
    with_args = copy.deepcopy(deployment)
    with_args["spec"]["template"]["spec"]["containers"][0]["args"] = ["--trust-remote-code"]
    with_init = copy.deepcopy(deployment)
    with_init["spec"]["template"]["spec"]["initContainers"] = [{"name": "x", "image": "busybox", "command": ["true"]}]
    for doc in (with_args, with_init):
        assert any(ENGINE in x for x in _messages(m, doc, labels, user=serving.PROMOTER))
    good = _with_command(deployment, lambda c: [*c, "--context-length=8192", f"--chat-template={model_dir}/t.jinja"])
    assert _messages(m, good, labels, user=serving.PROMOTER) == []


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_development_endpoints_stay_the_teams(env: str) -> None:
    plan = plan_of(EXAMPLES / "07-serve-medical.yaml", env)
    labels = ns_labels(env, plan.team.namespace)
    assert admission_refusals(team_manifests(env), by_kind(plan)["Deployment"], labels) == []


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_promotion_identity_is_the_platforms_and_reaches_only_serving(env: str) -> None:
    """RBAC of the rendered manifests: the promoter (k8s_charts/promotion.py) creates serving objects in every team
    namespace with a production tier and nothing else; no team group has a verb in the platform namespace, so no
    team runs a pod as the promoter or reads its credentials."""
    from config import load_config

    from .guardrail_eval import rbac_allows

    m = team_manifests(env)
    promoter = {("ServiceAccount", f"{serving.PROMOTION_NAMESPACE}/{serving.PROMOTER_SERVICE_ACCOUNT}")}
    for team in load_config(env).kubernetes.teams:
        production = bool(set(team.allowed_tiers) & set(serving.PRODUCTION_TIERS))
        for group, resource in (("apps", "deployments"), ("", "services"), ("keda.sh", "scaledobjects")):
            assert bool(rbac_allows(m, promoter, "create", group, resource, team.namespace)) == production
        for group, resource in (
            ("", "secrets"),
            ("batch", "jobs"),
            ("", "pods"),
            ("rbac.authorization.k8s.io", "rolebindings"),
        ):
            assert not rbac_allows(m, promoter, "create", group, resource, team.namespace), resource
        groups = {
            ("Group", s["name"])
            for d in m
            if d["kind"] == "RoleBinding" and d["metadata"].get("namespace") == team.namespace
            for s in d.get("subjects", [])
            if s["kind"] == "Group"
        }
        for verb, group, resource in (("create", "", "pods"), ("get", "", "secrets"), ("create", "batch", "jobs")):
            assert not rbac_allows(m, groups, verb, group, resource, serving.PROMOTION_NAMESPACE), (team.name, resource)
