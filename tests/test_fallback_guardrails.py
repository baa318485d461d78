"""Issue 44 item 6, case 2: the team guard rails admit the development fall-back controller's change of a team job
(the annotation and the reserved nodes' exclusion, k8s_charts/guardrails/fallback.py) from its identity and nothing
else from it; a team member making the same change is treated as before. Evaluated with tests/guardrail_eval.py on
the rendered policies, with the requesting identity, the operation and the stored object."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
from llm_platform import fallback_controller as controller
from llm_platform.fallback_rules import ANNOTATION, gpu_templates

from k8s_charts import fallback

from .fallback_fakes import json_patch
from .guardrail_eval import TEAM_USER, admission_refusals
from .test_fallback_controller import CASES, EXAMPLES, _chart, _job, _settings

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

RULE = "the development fall-back controller may only move"


def _moved(job: dict, env: str) -> dict:
    """``job`` after the controller's two patches (llm_platform/fallback_controller.py), as the API server stores it."""
    settings = _settings(env)
    annotated = json_patch(job, controller._annotation_ops(job, "gpu-workers"))
    return json_patch(annotated, controller._exclusion_ops(annotated, settings))


def _labels(docs: list[dict], namespace: str) -> dict[str, str]:
    (ns,) = [d for d in docs if d["kind"] == "Namespace" and d["metadata"]["name"] == namespace]
    return {**ns["metadata"]["labels"], "kubernetes.io/metadata.name": namespace}


def _refusals(env: str, new: dict | None, old: dict | None, user: str, operation: str = "UPDATE") -> list[str]:
    docs = _chart(env)
    subject = new if new is not None else old
    labels = _labels(docs, subject["metadata"]["namespace"])
    return [r.message for r in admission_refusals(docs, new, labels, operation=operation, old=old, user=user)]


@pytest.mark.parametrize(("env", "example"), CASES)
def test_the_fallback_is_admitted_from_the_controller_and_as_before_from_a_team_member(env: str, example: str) -> None:
    job = _job(example, env)
    moved = _moved(job, env)
    assert moved != job and moved["metadata"]["annotations"][ANNOTATION] == "gpu-workers"
    assert _refusals(env, moved, job, fallback.USER) == []
    assert _refusals(env, moved, job, TEAM_USER) == _refusals(env, job, job, TEAM_USER) == []
    assert _refusals(env, moved, moved, fallback.USER) == []  # a patch that changes nothing (a retry)
    # the controller's two patches one at a time: the annotation (step 1), then the exclusion (step 2)
    annotated = json_patch(job, controller._annotation_ops(job, "gpu-workers"))
    assert _refusals(env, annotated, job, fallback.USER) == []
    assert _refusals(env, moved, annotated, fallback.USER) == []


def _gpu_spec(job: dict) -> dict:
    pointer, _ = gpu_templates(job)[0]
    node = job
    for key in pointer.strip("/").split("/"):
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node["spec"]


def _term(job: dict) -> dict:
    return _gpu_spec(job)["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]


def _other_changes() -> dict[str, Callable[[dict], None]]:
    """Changes the controller's identity may not make (each on top of the fall-back itself)."""
    x = fallback.exclusion()
    return {
        "image": lambda j: _gpu_spec(j)["containers"][0].update(image="attacker/image:1"),
        "command": lambda j: _gpu_spec(j)["containers"][0].update(command=["sh", "-c", "curl evil"]),
        "toleration": lambda j: _gpu_spec(j).setdefault("tolerations", []).append({"operator": "Exists"}),
        "service account": lambda j: _gpu_spec(j).update(serviceAccountName="default"),
        "priority class": lambda j: _gpu_spec(j).update(priorityClassName="critical"),
        "node selector": lambda j: _gpu_spec(j).update(nodeSelector={"node-type": "hyperpod"}),
        "a widening term": lambda j: _term(j)["nodeSelectorTerms"].append({"matchExpressions": [dict(x)]}),
        "another requirement": lambda j: _term(j)["nodeSelectorTerms"][0]["matchExpressions"].append(
            {"key": "gpu-type", "operator": "In", "values": ["h100"]}
        ),
        "a dropped requirement": lambda j: _term(j)["nodeSelectorTerms"][0]["matchExpressions"].pop(0),
        "pod anti-affinity": lambda j: _gpu_spec(j)["affinity"].update(podAntiAffinity={}),
        "queue label": lambda j: j["metadata"]["labels"].update({"kueue.x-k8s.io/queue-name": "production"}),
        "another annotation": lambda j: j["metadata"]["annotations"].update({"llmft.io/other": "x"}),
        "owner": lambda j: j["metadata"].update(
            ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u"}]
        ),
        "suspend": lambda j: (j["spec"].get("runPolicy", j["spec"])).update(suspend=False),
    }


@pytest.mark.parametrize(("env", "example"), CASES)
@pytest.mark.parametrize("change", sorted(_other_changes()))
def test_the_controller_may_make_no_other_change(env: str, example: str, change: str) -> None:
    job = _job(example, env)
    edited = _moved(job, env)
    _other_changes()[change](edited)
    assert any(RULE in m for m in _refusals(env, edited, job, fallback.USER)), change
    # the same edit by a team member: whatever the other rules said before, never this rule
    assert not any(RULE in m for m in _refusals(env, edited, job, TEAM_USER)), change


@pytest.mark.parametrize("example", EXAMPLES)
def test_the_controller_creates_nothing(example: str) -> None:
    env = next(e for e, x in CASES if x == example)
    job = _job(example, env)
    assert any(RULE in m for m in _refusals(env, job, None, fallback.USER, operation="CREATE"))
    assert not any(RULE in m for m in _refusals(env, job, None, TEAM_USER, operation="CREATE"))


def test_the_controller_changes_no_other_kind() -> None:
    env, example = CASES[0]
    job = _job(example, env)
    other = copy.deepcopy(job)
    other["kind"], other["apiVersion"] = "MPIJob", "kubeflow.org/v2beta1"
    other["spec"] = {"mpiReplicaSpecs": {"Worker": job["spec"]["pytorchReplicaSpecs"]["Worker"]}}
    assert any(RULE in m for m in _refusals(env, other, other, fallback.USER))
