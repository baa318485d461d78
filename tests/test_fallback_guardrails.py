"""Issue 44 item 6, case 2: the team guard rails admit the development fall-back controller's change of a team job
(the annotation and the reserved nodes' exclusion, k8s_charts/guardrails/fallback.py) from its identity and nothing
else from it; a team member making the same change is treated as before. Evaluated with tests/guardrail_eval.py on
the rendered policies, with the requesting identity, the operation and the stored object."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
from llm_platform import fallback_controller as controller
from llm_platform.fallback_rules import ANNOTATION, MARK, Decision, gpu_templates

from k8s_charts import fallback

from .fallback_fakes import json_patch, merge_patch, workload_for
from .guardrail_eval import TEAM_USER, admission_refusals
from .test_fallback_controller import CASES, EXAMPLES, _chart, _job, _queue, _reserved, _settings, later

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

RULE = "the development fall-back controller may only move"
WORKLOAD_RULE = "the development fall-back controller may change a Workload only by"
KUEUE = "system:serviceaccount:kueue-system:kueue-controller-manager"


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


# ---- Workloads (security review L2) ---------------------------------------------------------------------------------
def _workload(env: str, example: str) -> dict:
    job = _job(example, env)
    queue = _queue(_settings(env), job)
    wl = workload_for(job, queue, _reserved(queue, job), admitted_at=later(0), ready="WaitForStart")
    wl["metadata"]["annotations"] = {"kueue.x-k8s.io/some-annotation": "kept"}
    wl["metadata"]["labels"] = {"kueue.x-k8s.io/job-uid": "0b1c2d3e-job"}
    wl["metadata"]["finalizers"] = ["kueue.x-k8s.io/resource-in-use"]
    return wl


def _patched(wl: dict, action: str) -> dict:
    """``wl`` after the controller's merge patch for ``action`` (llm_platform/fallback_controller.py), as stored."""
    body = controller.workload_patch(Decision(action, "test", "gpu-workers"), wl)
    assert body is not None
    out = merge_patch(wl, body)
    out["metadata"]["resourceVersion"] = str(int(wl["metadata"]["resourceVersion"]) + 1)
    return out


def _workload_steps(wl: dict) -> list[tuple[str, dict, dict]]:
    """(step, stored, updated) of each of the controller's Workload patches in a move, and an abandoned one."""
    deactivated = _patched(wl, "deactivate")
    reactivated = _patched(deactivated, "reactivate")
    reactivated_by_admin = merge_patch(deactivated, {"spec": {"active": True}})
    return [
        ("deactivate", wl, deactivated),
        ("reactivate", deactivated, reactivated),
        ("unmark", reactivated_by_admin, _patched(reactivated_by_admin, "unmark")),
        ("a retry that changes nothing", reactivated, reactivated),
    ]


@pytest.mark.parametrize(("env", "example"), CASES)
def test_the_controllers_workload_patches_are_admitted(env: str, example: str) -> None:
    wl = _workload(env, example)
    steps = _workload_steps(wl)
    assert steps[0][2]["metadata"]["annotations"] == {"kueue.x-k8s.io/some-annotation": "kept", MARK: "gpu-workers"}
    assert steps[1][2]["metadata"]["annotations"] == {"kueue.x-k8s.io/some-annotation": "kept"}
    for step, old, new in steps:
        assert _refusals(env, new, old, fallback.USER) == [], step


def _other_workload_changes() -> dict[str, Callable[[dict], None]]:
    """Changes of a Workload the controller's identity may not make (each on top of its deactivating patch)."""
    first_template = lambda w: w["spec"]["podSets"][0]["template"]["spec"]  # noqa: E731
    return {
        "queue name": lambda w: w["spec"].update(queueName="production"),
        "priority": lambda w: w["spec"].update(priority=1000000),
        "priority class": lambda w: w["spec"].update(
            priorityClassRef={"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": "critical"}
        ),
        "maximum execution time": lambda w: w["spec"].update(maximumExecutionTimeSeconds=1),
        "pod set count": lambda w: w["spec"]["podSets"][0].update(count=64),
        "pod set template": lambda w: first_template(w).setdefault("tolerations", []).append({"operator": "Exists"}),
        "pod set node selector": lambda w: first_template(w).update(nodeSelector={"node-type": "hyperpod"}),
        "preemption gates": lambda w: w["spec"].update(preemptionGates=[{"name": "example.com/gate"}]),
        "label": lambda w: w["metadata"]["labels"].update({"kueue.x-k8s.io/queue-name": "production"}),
        "another annotation": lambda w: w["metadata"]["annotations"].update({"llmft.io/other": "x"}),
        "a removed annotation": lambda w: w["metadata"]["annotations"].pop("kueue.x-k8s.io/some-annotation"),
        "owner": lambda w: w["metadata"].update(
            ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u"}]
        ),
        "finalizers": lambda w: w["metadata"].update(finalizers=[]),
    }


@pytest.mark.parametrize(("env", "example"), CASES[:1])
@pytest.mark.parametrize("change", sorted(_other_workload_changes()))
def test_the_controller_may_change_nothing_else_of_a_workload(env: str, example: str, change: str) -> None:
    wl = _workload(env, example)
    edited = _patched(wl, "deactivate")
    _other_workload_changes()[change](edited)
    assert edited != _patched(wl, "deactivate"), change
    assert any(WORKLOAD_RULE in m for m in _refusals(env, edited, wl, fallback.USER)), change
    # Kueue's own writes (and anyone else's) never meet the rule: it selects the controller's requests only
    for user in (KUEUE, TEAM_USER):
        assert not any(WORKLOAD_RULE in m for m in _refusals(env, edited, wl, user)), (change, user)


def test_the_controller_creates_and_deletes_no_workload() -> None:
    env, example = CASES[0]
    wl = _workload(env, example)
    assert any(WORKLOAD_RULE in m for m in _refusals(env, wl, None, fallback.USER, operation="CREATE"))
    assert any(WORKLOAD_RULE in m for m in _refusals(env, None, wl, fallback.USER, operation="DELETE"))
    assert not any(WORKLOAD_RULE in m for m in _refusals(env, None, wl, KUEUE, operation="DELETE"))


def test_kueues_in_place_update_of_a_marked_workload_is_not_the_rules_business() -> None:
    """Kueue updates the pod sets of the suspended job's Workload (step 2): a change the controller may not make,
    which Kueue's identity makes unhindered."""
    env, example = CASES[0]
    deactivated = _patched(_workload(env, example), "deactivate")
    updated = copy.deepcopy(deactivated)
    updated["spec"]["podSets"][0]["template"]["spec"]["nodeSelector"] = {"example": "changed"}
    assert _refusals(env, updated, deactivated, KUEUE) == []
    assert any(WORKLOAD_RULE in m for m in _refusals(env, updated, deactivated, fallback.USER))
