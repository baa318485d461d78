"""A team cannot hold GPUs after preemption through its own grace period (issue 44, security review).

When Kueue preempts a job (it suspends the job, the operator deletes its pods) or Karpenter drains a node (eviction),
each pod keeps its node and GPUs until its containers end: the kubelet runs the preStop hook, sends SIGTERM and kills
at the end of ``terminationGracePeriodSeconds`` (the countdown includes the hook: kubernetes.io API reference
``Lifecycle.preStop``, "Pod termination"); Kueue releases the evicted job's quota only once its pods are gone
(kubernetes-sigs/kueue pkg/controller/jobframework/reconciler.go, "handle eviction": ``!job.IsActive()``). A grace
period of days plus ``preStop: sleep 999999`` in a team's own PyTorchJob, RayJob, MPIJob, RayCluster, batch Job or
Pod would make preemption wait days. The rows below, with admission semantics (a team member's CREATE, and UPDATE
with ``oldObject``), in every environment: one pod template (or a pod) above the cap is refused with a message
naming the field and the cap; at the cap, with any preStop hook, it is admitted; llmft's own jobs, sized up to the
cap, are admitted. The cap is the constant the rule reads, never a literal here.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from llm_platform import grpo_stop, preemption

from config import load_config
from k8s_charts.guardrails.common import MAX_GRACE_SECONDS
from k8s_charts.values import PlatformValues
from llmft.build import build, grace_for
from llmft.spec import parse_spec

from .conftest import ENVIRONMENTS, ROOT
from .test_examples_chain import IMAGE
from .test_redteam_classes import refusals, team_jobs
from .test_team_guardrails import first, pod_of, workload

pytestmark = pytest.mark.synth  # renders every environment's manifests through cdk8s (docs/testing.md "Tiers")

FIELD = "terminationGracePeriodSeconds"
SLEEP_FOREVER = {"preStop": {"exec": {"command": ["sleep", "999999"]}}}


def templates_of(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """Every pod template of ``obj`` (references into it): the kinds the workload policy walks, and a Pod."""
    if obj["kind"] == "Pod":
        return [obj]  # a pod is its own template
    spec, kind = obj["spec"], obj["kind"]
    if kind == "PyTorchJob":
        return [r["template"] for r in spec["pytorchReplicaSpecs"].values()]
    if kind == "MPIJob":
        return [r["template"] for r in spec["mpiReplicaSpecs"].values()]
    if kind in ("RayJob", "RayCluster"):
        cluster = spec["rayClusterSpec"] if kind == "RayJob" else spec
        out = [cluster["headGroupSpec"]["template"], *(w["template"] for w in cluster.get("workerGroupSpecs", []))]
        return out + ([spec["submitterPodTemplate"]] if "submitterPodTemplate" in spec else [])
    if kind == "CronJob":
        return [spec["jobTemplate"]["spec"]["template"]]
    return [spec["template"]]


def with_grace(obj: dict[str, Any], seconds: int, *, only: int | None = None, hook: bool = False) -> dict[str, Any]:
    """A copy of ``obj`` whose pod templates (or only template number ``only``) ask for ``seconds`` of grace, and with
    ``hook`` a preStop hook that sleeps for days in every container."""
    out = copy.deepcopy(obj)
    for i, template in enumerate(templates_of(out)):
        if only is None or i == only:
            template["spec"][FIELD] = seconds
        if hook:
            for container in template["spec"]["containers"]:
                container["lifecycle"] = copy.deepcopy(SLEEP_FOREVER)
    return out


def grace_refusals(messages: list[str]) -> list[str]:
    return [m for m in messages if FIELD in m]


def names_the_cap(messages: list[str]) -> bool:
    return bool(messages) and all(FIELD in m and str(MAX_GRACE_SECONDS) in m for m in messages)


def test_the_cap_is_the_platforms_longest_grace() -> None:
    """One figure: the guard rails read llmft's own cap, which is at least its minimum."""
    assert MAX_GRACE_SECONDS == preemption.MAX_GRACE_SECONDS >= preemption.MIN_GRACE_SECONDS


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("operation", ["CREATE", "UPDATE"])
def test_a_job_template_above_the_cap_is_refused(env: str, operation: str) -> None:
    """Each pod template of every job kind a team writes, one at a time, one second above the cap: refused naming the
    field and the cap (CREATE, and UPDATE of the admitted job)."""
    for job in team_jobs(env):
        for i, _ in enumerate(templates_of(job)):
            over = with_grace(job, MAX_GRACE_SECONDS + 1, only=i)
            old = job if operation == "UPDATE" else None
            found = grace_refusals(refusals(env, over, operation=operation, old=old))
            assert names_the_cap(found), (job["kind"], i, operation, found)


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("operation", ["CREATE", "UPDATE"])
def test_a_job_at_the_cap_with_any_prestop_is_admitted(env: str, operation: str) -> None:
    """At the cap every template is admitted, whatever its preStop hook does: the hook runs inside the grace period,
    so the cap bounds it (a days-long sleep included)."""
    for job in team_jobs(env):
        at_cap = with_grace(job, MAX_GRACE_SECONDS, hook=True)
        old = job if operation == "UPDATE" else None
        assert refusals(env, at_cap, operation=operation, old=old) == [], job["kind"]


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize(("kind", "api_version"), [("Job", "batch/v1"), ("CronJob", "batch/v1")])
def test_a_batch_job_above_the_cap_is_refused(env: str, kind: str, api_version: str) -> None:
    """The CPU kinds too: a batch Job and a CronJob of the RayJob submitter's (CPU) pod template."""
    ray = first(env, "RayJob")
    cpu = copy.deepcopy(ray["spec"]["submitterPodTemplate"])
    batch = workload(kind, api_version, cpu, ray["metadata"]["namespace"])
    assert refusals(env, with_grace(batch, MAX_GRACE_SECONDS, hook=True)) == []
    assert names_the_cap(grace_refusals(refusals(env, with_grace(batch, MAX_GRACE_SECONDS + 1))))


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("probe", ["livenessProbe", "startupProbe"])
@pytest.mark.parametrize("containers", ["containers", "initContainers"])
def test_a_probe_grace_above_the_cap_is_refused(env: str, probe: str, containers: str) -> None:
    """A failing probe's kill uses the probe's own grace (a sidecar init container has probes too): the same cap, in
    a job's template and in a pod."""
    job = first(env, "PyTorchJob")
    template = templates_of(job)[0]
    target = template["spec"]["containers"][0]
    if containers == "initContainers":
        target = copy.deepcopy(target) | {"name": "sidecar", "restartPolicy": "Always"}
        template["spec"]["initContainers"] = [target]
    target[probe] = {"exec": {"command": ["false"]}, FIELD: MAX_GRACE_SECONDS}
    pod = pod_of(template, job["metadata"]["namespace"], {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"})
    assert grace_refusals(refusals(env, job)) == grace_refusals(refusals(env, pod)) == []
    target[probe][FIELD] = MAX_GRACE_SECONDS + 1
    pod["spec"] = copy.deepcopy(template["spec"])
    assert names_the_cap(grace_refusals(refusals(env, job)))
    assert names_the_cap(grace_refusals(refusals(env, pod)))


def job_pods(env: str) -> list[dict[str, Any]]:
    """The pods every job kind a team writes leads to, each with its controller as owner: GPU workers of a PyTorchJob
    and an MPIJob, the Ray head, workers and submitter (CPU and GPU)."""
    owners = {
        "PyTorchJob": {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"},
        "MPIJob": {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob"},
        "RayJob": {"apiVersion": "ray.io/v1", "kind": "RayCluster"},
        "RayCluster": {"apiVersion": "ray.io/v1", "kind": "RayCluster"},
        "Job": {"apiVersion": "batch/v1", "kind": "Job"},
    }
    return [
        pod_of(t, job["metadata"]["namespace"], owners[job["kind"]])
        for job in team_jobs(env)
        for t in templates_of(job)
    ]


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("operation", ["CREATE", "UPDATE"])
def test_a_pod_above_the_cap_is_refused_whoever_made_it(env: str, operation: str) -> None:
    """The pod policy is what holds, for pods of any kind (an operator copies the template; an Argo step, a serving
    pod): GPU and CPU pods above the cap are refused, at the cap with a days-long preStop they are admitted."""
    for pod in job_pods(env):
        old = pod if operation == "UPDATE" else None
        found = refusals(env, with_grace(pod, MAX_GRACE_SECONDS + 1), operation=operation, old=old)
        assert names_the_cap(grace_refusals(found)), (pod["spec"]["containers"][0]["name"], found)
        at_cap = with_grace(pod, MAX_GRACE_SECONDS, hook=True)
        assert refusals(env, at_cap, operation=operation, old=old) == [], pod["spec"]["containers"][0]["name"]


# ---- llmft's own jobs, up to the cap -------------------------------------------------------------------------------


def _plan(env: str, example: str, **changes):
    config = load_config(env)
    spec = parse_spec({**yaml.safe_load((ROOT / "examples" / "jobs" / example).read_text()), **changes})
    team = config.kubernetes.team(spec.team)
    return config, build(spec, config=config, team=team, values=PlatformValues.placeholders(config), image=IMAGE)


OWNERS = {
    "PyTorchJob": ("kubeflow.org/v1", "PyTorchJob"),
    "RayJob": ("ray.io/v1", "RayCluster"),
    "Job": ("batch/v1", "Job"),
}


def _admitted_with_its_pods(env: str, plan) -> None:
    """The plan's manifests and the pods they lead to (owned by their controller) pass every policy."""
    api_version, kind = OWNERS[plan.manifests[-1]["kind"]]
    for doc in plan.manifests:
        assert refusals(env, doc) == [], doc["kind"]
    for where, pod_spec in plan.pod_specs():
        assert pod_spec.get(FIELD, 30) <= MAX_GRACE_SECONDS, where
        pod = pod_of({"spec": pod_spec}, plan.team.namespace, {"apiVersion": api_version, "kind": kind})
        assert refusals(env, pod) == [], where


def _slow(config):
    """``config`` with a file system so slow that every checkpoint's save outlasts the cap."""
    fsx = config.storage.fsx.model_copy(update={"throughput_mib_per_tib": 1, "storage_capacity_gib": 1})
    return config.model_copy(update={"storage": config.storage.model_copy(update={"fsx": fsx})})


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_llmft_renders_at_most_the_cap_and_is_admitted_there(env: str) -> None:
    """llmft's longest grace is the cap, for SFT and GRPO alike, and a job rendered there is admitted: GRPO's Ray pods
    with their preStop hook (budget: the grace less Ray's exit), SFT's workers with torchrun's shutdown timeout."""
    config, sft = _plan(env, "04-sft-medical.yaml")
    slow = _slow(config)
    assert grace_for(sft.spec, sft.step, slow) == MAX_GRACE_SECONDS
    team = slow.kubernetes.team(sft.spec.team)
    capped = build(sft.spec, config=slow, team=team, values=PlatformValues.placeholders(slow), image=IMAGE)
    worker = capped.manifests[-1]["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]
    assert worker[FIELD] == MAX_GRACE_SECONDS
    _admitted_with_its_pods(env, capped)
    config, grpo = _plan(env, "06-grpo-gsm8k.yaml")
    assert grace_for(grpo.spec, grpo.step, slow, grpo.allowed) == MAX_GRACE_SECONDS
    team = slow.kubernetes.team(grpo.spec.team)
    capped = build(grpo.spec, config=slow, team=team, values=PlatformValues.placeholders(slow), image=IMAGE)
    head = capped.manifests[-1]["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]
    hook = grpo_stop.hook_command(capped.step["checkpoint_dir"], MAX_GRACE_SECONDS - grpo_stop.RAY_EXIT_SECONDS)
    assert head[FIELD] == MAX_GRACE_SECONDS
    assert head["containers"][0]["lifecycle"] == {"preStop": {"exec": {"command": hook}}}
    _admitted_with_its_pods(env, capped)


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_llmft_example_stays_within_the_cap_and_is_admitted(env: str) -> None:
    """Every examples/jobs spec llmft builds (serving aside: tests/test_serve.py), GRPO with its sized grace and
    preStop hook included, as rendered for the environment."""
    for path in sorted((ROOT / "examples" / "jobs").glob("*.yaml")):
        if yaml.safe_load(path.read_text()).get("type") == "serve":
            continue
        _, plan = _plan(env, path.name)
        _admitted_with_its_pods(env, plan)
