"""Third red team (issue 40): the classes beyond production serving, each as rows run for every environment with
admission semantics (requesting identity, operation, ``oldObject``, DeleteOptions; tests/guardrail_eval.py) against
the rendered policies, the attacked surfaces derived from the upstream CRDs vendored in k8s_charts/crds.

- Argo Workflows v4.0.6 ``synchronization`` naming another namespace's mutex or semaphore, in every place the
  Workflow and WorkflowTemplate CRDs have a ``synchronization`` block; ``volumeClaimTemplates``.
- training operator v1.7.0 ``elasticPolicy.metrics`` (an HPA the operator creates raises a job Kueue admitted).
- ``kubectl delete --cascade=orphan`` of a serving Deployment.
(The object quota's kinds, derived from the rendered Roles: tests/test_redteam_classes.py
``test_every_kind_a_team_creates_is_counted``.)"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from .conftest import ENVIRONMENTS, ROOT, yaml_documents
from .guardrail_eval import admission_refusals
from .test_serve import EXAMPLES, by_kind, plan_of
from .test_team_guardrails import first, ns_labels, team_manifests

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

CRDS = ROOT / "k8s_charts" / "crds"
LOCKS = "mutexes and semaphores are its own namespace's"


def synchronization_paths(crd: Path) -> list[list[str]]:
    """Every path to a ``synchronization`` property under ``spec`` of ``crd``'s schema (``[]`` for list items)."""
    schema = yaml_documents(crd)[0]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    found: list[list[str]] = []

    def walk(node: dict[str, Any], path: list[str]) -> None:
        for key, child in (node.get("properties") or {}).items():
            if key == "synchronization":
                found.append([*path, key])
            else:
                walk(child, [*path, key])
        if isinstance(node.get("items"), dict):
            walk(node["items"], [*path, "[]"])

    walk(schema["properties"]["spec"], ["spec"])
    return found


def _put(obj: dict[str, Any], path: list[str], value: Any) -> dict[str, Any]:
    node: Any = obj
    for key, following in zip(path, [*path[1:], None], strict=True):
        if key == "[]":
            node.append({"name": "t"})
            node = node[-1]
            continue
        if following is None:
            node[key] = value
        else:
            node = node.setdefault(key, [] if following == "[]" else {})
    return obj


def _workflow(env: str, kind: str) -> dict[str, Any]:
    ns = first(env, "PyTorchJob")["metadata"]["namespace"]
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": kind, "metadata": {"name": "p", "namespace": ns}, "spec": {}}


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("kind", ["Workflow", "WorkflowTemplate"])
def test_workflow_locks_stay_in_the_namespace(env: str, kind: str) -> None:
    paths = synchronization_paths(CRDS / f"argoproj.io_{kind.lower()}s.yaml")
    assert len(paths) >= 3, paths  # spec, templateDefaults, templates[]: what v4.0.6 has
    m = team_manifests(env)
    base = _workflow(env, kind)
    labels = ns_labels(env, base["metadata"]["namespace"])
    other = "kube-system"
    for path in paths:
        for sync in (
            {"mutexes": [{"name": "deploy", "namespace": other}]},
            {"semaphores": [{"configMapKeyRef": {"name": "limits", "key": "k"}, "namespace": other}]},
            {"mutexes": [{"name": "ok"}, {"name": "db", "database": True, "namespace": other}]},
        ):
            attack = _put(copy.deepcopy(base), path, sync)
            assert any(LOCKS in r.message for r in admission_refusals(m, attack, labels)), (path, sync)
        own = {"mutexes": [{"name": "deploy", "namespace": base["metadata"]["namespace"]}, {"name": "plain"}]}
        assert admission_refusals(m, _put(copy.deepcopy(base), path, own), labels) == [], path


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_workflows_create_no_claims_and_the_pipeline_passes(env: str) -> None:
    from llmft.pipeline import load_pipeline, render

    from .test_examples_chain import IMAGE
    from .test_pipelines import MEDICAL

    m = team_manifests(env)
    base = _workflow(env, "Workflow")
    labels = ns_labels(env, base["metadata"]["namespace"])
    claims = {**base, "spec": {"volumeClaimTemplates": [{"metadata": {"name": "w"}, "spec": {}}]}}
    assert any("volumeClaimTemplates" in r.message for r in admission_refusals(m, claims, labels))
    from config import load_config
    from k8s_charts.values import PlatformValues

    config = load_config(env)
    workflow = render(load_pipeline(MEDICAL), config=config, values=PlatformValues.placeholders(config), image=IMAGE)
    wf = workflow.workflow
    assert admission_refusals(m, wf, ns_labels(env, wf["metadata"]["namespace"])) == []


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_no_autoscaler_behind_kueues_back(env: str) -> None:
    job = copy.deepcopy(first(env, "PyTorchJob"))
    m, labels = team_manifests(env), ns_labels(env, job["metadata"]["namespace"])
    assert admission_refusals(m, job, labels) == []
    policy = job["spec"].setdefault("elasticPolicy", {"minReplicas": 1, "maxReplicas": 2})
    assert admission_refusals(m, job, labels) == []  # elastic without an HPA: the replicas Kueue admitted
    policy["metrics"] = [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization"}}}]
    assert any("elasticPolicy.metrics" in r.message for r in admission_refusals(m, job, labels))


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_a_serving_deployment_is_not_orphan_deleted(env: str) -> None:
    plan = plan_of(EXAMPLES / "07-serve-medical.yaml", env)
    deployment = by_kind(plan)["Deployment"]
    m, labels = team_manifests(env), ns_labels(env, plan.team.namespace)

    def delete(options: dict[str, Any] | None) -> list[str]:
        refused = admission_refusals(m, None, labels, operation="DELETE", old=deployment, options=options)
        return [r.message for r in refused]

    for options in (None, {}, {"propagationPolicy": "Background"}, {"propagationPolicy": "Foreground"}):
        assert delete(options) == [], options
    for options in ({"propagationPolicy": "Orphan"}, {"orphanDependents": True}):
        assert any("--cascade=orphan" in x for x in delete(options)), options
