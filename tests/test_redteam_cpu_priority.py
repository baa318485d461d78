"""Issue 40 (third red team), CPU pods preempting across teams: a team's batch Job (no queue needed) at its highest
PriorityClass, or ``critical``, preempted other teams' Ray heads and submitters and the platform's pods on the system
nodes. Now every class has a CPU twin with the same value and ``preemptionPolicy: Never`` (k8s_charts/tiers.py
``cpu_priority_class``, k8s_charts/priority_classes.py), the platform's CPU pods use it, and the pod policy refuses a
preempting pod without GPUs in a team namespace (k8s_charts/team_guardrails.py).

Admission semantics (tests/guardrail_eval.py), for every environment, on the rendered objects: the pods are what the
API server validates after the Priority admission plugin, simulated by :func:`admitted` from the rendered
PriorityClasses (kubernetes.io "Pod Priority and Preemption": the plugin resolves ``priorityClassName`` into
``spec.priority`` and ``spec.preemptionPolicy``; without a class and without a global default, priority 0 and
``PreemptLowerPriority``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from config import load_config
from config.kubernetes import TIER_PRIORITY_CLASSES
from k8s_charts.tiers import cpu_priority_class
from llmft.build import pod_templates

from .conftest import ENVIRONMENTS
from .guardrail_eval import admission_refusals
from .test_serve import EXAMPLES, plan_of
from .test_team_guardrails import EFA, GPU, docs, examples, ns_labels, pod_of, team_manifests

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

NEVER_PREEMPTS = "never preempts"


def classes(env: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs(env, "priority-classes") if d["kind"] == "PriorityClass"}


def admitted(pod: dict[str, Any], env: str) -> dict[str, Any]:
    """``pod`` as the Priority admission plugin leaves it (no PriorityClass is the global default here)."""
    out = copy.deepcopy(pod)
    name = out["spec"].get("priorityClassName")
    pc = classes(env)[name] if name else {"value": 0}
    out["spec"]["priority"] = pc["value"]
    out["spec"]["preemptionPolicy"] = pc.get("preemptionPolicy", "PreemptLowerPriority")
    return out


def _uses_accelerators(template: dict[str, Any]) -> bool:
    spec = template["spec"]
    return any(
        r in (c.get("resources") or {}).get(part, {})
        for c in spec.get("containers", []) + spec.get("initContainers", [])
        for part in ("requests", "limits")
        for r in (GPU, EFA)
    )


def _cpu_jobs(env: str) -> list[dict[str, Any]]:
    """The platform's jobs with CPU pods: the builders' examples (Ray head and submitter) and llmft's CPU step."""
    step = plan_of(EXAMPLES / "02-prepare-medical.yaml", env).manifests[-1]
    assert step["kind"] == "Job"
    return [*examples(env), step]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_class_has_a_non_preempting_cpu_twin(env: str) -> None:
    rendered = classes(env)
    for pc in load_config(env).kubernetes.priority_classes:
        twin = rendered[cpu_priority_class(pc.name)]
        assert twin["value"] == pc.value and twin["preemptionPolicy"] == "Never", pc.name
        assert rendered[pc.name]["preemptionPolicy"] == pc.preemption_policy


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_platforms_cpu_pods_never_preempt_and_are_admitted(env: str) -> None:
    m = team_manifests(env)
    seen = 0
    for job in _cpu_jobs(env):
        ns = job["metadata"]["namespace"]
        labels = ns_labels(env, ns)
        assert admission_refusals(m, job, labels) == [], job["metadata"]["name"]
        for where, template in pod_templates(job):
            if _uses_accelerators(template):
                continue
            seen += 1
            pod = admitted(pod_of(template, ns), env)
            assert pod["spec"]["preemptionPolicy"] == "Never", where
            assert not [r for r in admission_refusals(m, pod, labels) if NEVER_PREEMPTS in r.message], where
    assert seen >= 3  # Ray head, Ray submitter, llmft CPU step


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_kueue_queues_a_job_with_cpu_pods_at_its_tiers_priority(env: str) -> None:
    """Kueue's Workload priority of a RayJob is its head's class's value (kubernetes-sigs/kueue@v0.19.2: RayJob
    ``PriorityClass`` takes the head's class first; pkg/util/priority ``GetPriorityFromPriorityClass`` reads the
    value only): the CPU twin keeps the tier's priority, and the queue's tier rule admits it."""
    rendered = classes(env)
    rays = [j for j in examples(env) if j["kind"] == "RayJob"]
    assert rays
    for job in rays:
        head = job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["priorityClassName"]
        workers = {
            w["template"]["spec"]["priorityClassName"] for w in job["spec"]["rayClusterSpec"]["workerGroupSpecs"]
        }
        assert [cpu_priority_class(w) for w in workers] == [head]
        assert {rendered[w]["value"] for w in workers} == {rendered[head]["value"]}


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_a_cpu_pod_at_a_preempting_class_is_refused(env: str) -> None:
    """The attack: a batch Job (no queue) at each class the team may use, `critical` included where allowed, as the
    Job and as the pod its controller creates (whoever creates it: the pod policy binds the namespace)."""
    m = team_manifests(env)
    step = plan_of(EXAMPLES / "02-prepare-medical.yaml", env).manifests[-1]
    ns = step["metadata"]["namespace"]
    labels = ns_labels(env, ns)
    team = next(t for t in load_config(env).kubernetes.teams if t.namespace == ns)
    preempting = [c for c in team.allowed_priority_classes if classes(env)[c].get("preemptionPolicy") != "Never"]
    assert preempting
    for name in preempting:
        job = copy.deepcopy(step)
        job["spec"]["template"]["spec"]["priorityClassName"] = name
        assert any("CPU twin" in r.message for r in admission_refusals(m, job, labels)), name
        pod = admitted(pod_of(job["spec"]["template"], ns, owner=job), env)
        assert any(NEVER_PREEMPTS in r.message for r in admission_refusals(m, pod, labels)), name
    # a pod that names no class (priority 0, e.g. an Argo executor pod) preempts nothing the platform runs
    plain = copy.deepcopy(step["spec"]["template"])
    plain["spec"].pop("priorityClassName")
    pod = admitted(pod_of(plain, ns), env)
    assert not [r for r in admission_refusals(m, pod, labels) if NEVER_PREEMPTS in r.message]
    # GPU pods keep their tier's class: Kueue's queue and the scheduler's preemption among GPU jobs stay as they were
    assert all(c in classes(env) for pcs in TIER_PRIORITY_CLASSES.values() for c in pcs)
