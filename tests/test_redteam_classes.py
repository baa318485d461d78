"""The classes a second red team got through (issue 30), each as rows derived from the upstream rule it abuses, run
against the rendered manifests of every environment (`python -m k8s_charts`) with admission semantics: operation,
the requesting user (``request.userInfo``), ``oldObject`` on UPDATE (tests/guardrail_eval.py).

1. Kueue bypass through ownership: Kueue does not queue an object whose *controller* ownerReference names a kind it
   manages (v0.19.2 jobframework ``IsOwnerManagedByKueueForObject``); teams may write ownerReferences.
2. Priority from ``spec.runPolicy.schedulingPolicy.priorityClass``: Kueue takes a Kubeflow job's and an MPIJob's
   workload priority from it first (v0.19.2 kubeflowjob_controller.go ``PriorityClass``).
3. CPU pods anywhere: tolerations and ``nodeName`` of pods without GPUs; the platform's controllers' priority.
4. Object counts: a ResourceQuota over every kind the team Role may create; batch Job parallelism.
5. Non-expiring ServiceAccount tokens: Secrets of type ``kubernetes.io/service-account-token``.
6. Production endpoints (issue 40): the ScaledObject, the Service and deleting the Deployment of a production
   endpoint by a team member; the promoter merging into objects a team planted under the endpoint's name.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from config import load_config
from config.kubernetes import TIER_PRIORITY_CLASSES
from k8s_charts.guardrails.common import (
    ALLOWED_CPU_TOLERATIONS,
    AUTOSCALING_POLICY,
    KUBERAY_OPERATOR,
    KUEUE_CONTROLLER,
    MAX_JOB_PARALLELISM,
    MAX_SERVE_REPLICAS,
    PLATFORM_CONTROLLERS,
    PRODUCTION_POLICY,
    PRODUCTION_TARGET_POLICY,
    SECRET_POLICY,
)
from k8s_charts.guardrails.production import HPA_CONTROLLER, KEDA_OPERATOR, NAMESPACE_CONTROLLER, PRODUCTION_WRITERS
from k8s_charts.priority_classes import CONTROLLER_PRIORITY_CLASS
from k8s_charts.queues import QUEUE_NAME_LABEL, local_queue_name
from k8s_charts.serving import PRODUCTION_TIERS, PROMOTER, SERVE_NAME_LABEL, TIER_LABEL
from k8s_charts.team_namespaces import OBJECT_QUOTA
from k8s_charts.tiers import CPU_JOBS_TAINT
from k8s_charts.values import team_group

from .conftest import ENVIRONMENTS, yaml_documents
from .guardrail_eval import admission_refusals, rbac_allows
from .test_team_guardrails import examples, first, ns_labels, team_manifests

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

SYSTEM_CLUSTER_CRITICAL = 2_000_000_000
"""Value of the built-in PriorityClass system-cluster-critical (kubernetes.io "Pod Priority and Preemption")."""


def kueue_owner_kinds() -> list[tuple[str, str]]:
    """(apiVersion, kind) of every job kind Kueue manages here: an owner Kueue would treat as the parent job."""
    from cdk_constructs.compute.kueue import INTEGRATIONS

    versions = {
        "kubeflow.org/pytorchjob": ("kubeflow.org/v1", "PyTorchJob"),
        "kubeflow.org/mpijob": ("kubeflow.org/v2beta1", "MPIJob"),
        "ray.io/rayjob": ("ray.io/v1", "RayJob"),
        "ray.io/raycluster": ("ray.io/v1", "RayCluster"),
        "deployment": ("apps/v1", "Deployment"),
        "pod": ("v1", "Pod"),
    }
    return [versions[i] for i in INTEGRATIONS]


def team_jobs(env: str) -> list[dict[str, Any]]:
    """One object of every job kind a team creates (the builders' examples), plus an MPIJob and a bare RayCluster
    built from them."""
    jobs = [copy.deepcopy(j) for j in examples(env)]
    pytorch = first(env, "PyTorchJob")
    mpi = {
        "apiVersion": "kubeflow.org/v2beta1",
        "kind": "MPIJob",
        "metadata": copy.deepcopy(pytorch["metadata"]),
        "spec": {
            "runPolicy": {},
            "mpiReplicaSpecs": {"Worker": copy.deepcopy(pytorch["spec"]["pytorchReplicaSpecs"]["Worker"])},
        },
    }
    ray = first(env, "RayJob")
    cluster = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": copy.deepcopy(ray["metadata"]),
        "spec": copy.deepcopy(ray["spec"]["rayClusterSpec"]),
    }
    return jobs + [mpi, cluster]


def refusals(env: str, obj: dict[str, Any], **kw) -> list[str]:
    ns = obj["metadata"]["namespace"]
    return [r.message for r in admission_refusals(team_manifests(env), obj, ns_labels(env, ns), **kw)]


def owned_by(obj: dict[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["metadata"]["ownerReferences"] = [
        {
            "apiVersion": api_version,
            "kind": kind,
            "name": "tiny-admitted",
            "uid": "0000",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    return out


# ---- 1. ownership ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_platform_jobs_pass_before_the_forgeries(env: str) -> None:
    for job in team_jobs(env):
        assert refusals(env, job) == [], job["kind"]


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("operation", ["CREATE", "UPDATE"])
def test_a_team_cannot_forge_ownership_of_any_job_kind(env: str, operation: str) -> None:
    """Every job kind a team writes, "owned" by every kind Kueue manages, is refused on create and on update; the
    same object from the platform's controllers passes the ownership rule."""
    for job in team_jobs(env):
        for api_version, kind in kueue_owner_kinds():
            forged = owned_by(job, api_version, kind)
            old = job if operation == "UPDATE" else None
            found = refusals(env, forged, operation=operation, old=old)
            assert any("ownerReferences" in m for m in found), (job["kind"], kind, operation)
            by_controller = refusals(env, forged, operation=operation, old=old, user=KUBERAY_OPERATOR)
            assert not any("ownerReferences" in m or "belongs to another job" in m for m in by_controller)
    # a controller ownerReference without `controller: true` (not what Kueue reads) is refused too: no exceptions
    loose = owned_by(first(env, "RayJob"), "ray.io/v1", "RayJob")
    del loose["metadata"]["ownerReferences"][0]["controller"]
    assert any("ownerReferences" in m for m in refusals(env, loose))


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_queue_name_exemption_is_the_kuberay_operators_only(env: str) -> None:
    """A RayCluster controlled by a RayJob and without a queue name: exempt from the queue policy only when the
    KubeRay operator creates it (what KubeRay does for an admitted RayJob), refused for a team member."""
    ray = first(env, "RayJob")
    cluster = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "rc", "namespace": ray["metadata"]["namespace"]},
        "spec": copy.deepcopy(ray["spec"]["rayClusterSpec"]),
    }
    forged = owned_by(cluster, "ray.io/v1", "RayJob")
    team = refusals(env, forged)
    assert any(QUEUE_NAME_LABEL in m for m in team) and any("ownerReferences" in m for m in team)
    assert refusals(env, forged, user=KUBERAY_OPERATOR) == []


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_rayjobs_cluster_cannot_be_scaled_by_the_team(env: str) -> None:
    """Patching the replicas of the RayCluster an admitted RayJob created (UPDATE, ownerReferences kept or
    dropped) is refused; KubeRay's own updates pass."""
    ray = first(env, "RayJob")
    stored = owned_by(
        {
            "apiVersion": "ray.io/v1",
            "kind": "RayCluster",
            "metadata": {"name": "rc", "namespace": ray["metadata"]["namespace"]},
            "spec": copy.deepcopy(ray["spec"]["rayClusterSpec"]),
        },
        "ray.io/v1",
        "RayJob",
    )
    scaled = copy.deepcopy(stored)
    for group in scaled["spec"].get("workerGroupSpecs", []):
        group["replicas"] = group["maxReplicas"] = 64
    dropped = copy.deepcopy(scaled)
    del dropped["metadata"]["ownerReferences"]
    for new in (scaled, dropped):
        assert any("belongs to another job" in m for m in refusals(env, new, operation="UPDATE", old=stored))
    assert refusals(env, scaled, operation="UPDATE", old=stored, user=KUBERAY_OPERATOR) == []


def test_trusted_controllers_are_the_platforms_own() -> None:
    """The identities the rules trust are the service accounts the platform installs its controllers with."""
    from cdk_constructs.compute.hyperpod_prerequisites import CHART_DIR
    from cdk_constructs.compute.kuberay_operator import KubeRayOperator
    from cdk_constructs.compute.kueue import KUEUE_NAMESPACE

    assert KUBERAY_OPERATOR in PLATFORM_CONTROLLERS
    assert f"system:serviceaccount:{KUEUE_NAMESPACE}:kueue-controller-manager" in PLATFORM_CONTROLLERS
    import inspect

    assert inspect.signature(KubeRayOperator.__init__).parameters["namespace"].default == KUBERAY_OPERATOR.split(":")[2]
    for template, sa in (
        ("training-operator.yaml", "kubeflow:training-operator"),
        ("mpi-operator.yaml", "mpi-operator:mpi-operator"),
    ):
        text = (CHART_DIR / "templates" / template).read_text()
        ns, name = sa.split(":")
        assert f"serviceAccountName: {name}" in text and f"namespace: {ns}" in text
        assert f"system:serviceaccount:{sa}" in PLATFORM_CONTROLLERS
    # no team identity is trusted: team groups and team service accounts are not in the list
    for env in ENVIRONMENTS:
        for team in load_config(env).kubernetes.teams:
            assert not any(f":{team.namespace}:" in user for user in PLATFORM_CONTROLLERS)


# ---- 2. priority from runPolicy --------------------------------------------------------------------------------------


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_run_policy_priority_class_is_bound_to_the_tier(env: str) -> None:
    config = load_config(env)
    classes = {c.name for c in config.kubernetes.priority_classes} | {"system-cluster-critical", "system-node-critical"}
    by_queue = {local_queue_name(t): set(c) for t, c in TIER_PRIORITY_CLASSES.items()}
    for job in (j for j in team_jobs(env) if j["kind"] in ("PyTorchJob", "MPIJob")):
        allowed = by_queue[job["metadata"]["labels"][QUEUE_NAME_LABEL]]
        for name in sorted(classes):
            forged = copy.deepcopy(job)
            forged["spec"].setdefault("runPolicy", {})["schedulingPolicy"] = {"priorityClass": name}
            found = [m for m in refusals(env, forged) if "runPolicy" in m]
            assert bool(found) == (name not in allowed), (job["kind"], allowed, name)


# ---- 3. CPU pods -----------------------------------------------------------------------------------------------------


def cpu_template(env: str) -> dict[str, Any]:
    """A CPU pod template of the platform's own (the RayJob submitter or head: CPU job pool toleration)."""
    ray = first(env, "RayJob")
    return copy.deepcopy(ray["spec"]["rayClusterSpec"]["headGroupSpec"]["template"])


BAD_TOLERATIONS = [
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
    {"key": "dedicated", "operator": "Equal", "value": "hyperpod", "effect": "NoSchedule"},
    {"operator": "Exists"},  # tolerates every taint
    {"key": "llmft.io/cpu-jobs", "operator": "Exists"},  # every effect, NoExecute included
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"},
]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_cpu_pods_stay_off_gpu_nodes(env: str) -> None:
    ns = first(env, "RayJob")["metadata"]["namespace"]
    base = cpu_template(env)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": ns}, "spec": base["spec"]}
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": ns},
        "spec": {"template": copy.deepcopy(base)},
    }
    assert refusals(env, pod) == [] and refusals(env, job) == []
    # what the DefaultTolerationSeconds admission plugin adds before validation stays allowed
    defaults = [
        {"key": k, "operator": "Exists", "effect": e, "tolerationSeconds": 300}
        for k, e in ALLOWED_CPU_TOLERATIONS
        if e == "NoExecute"
    ]
    key, value, effect = CPU_JOBS_TAINT
    ok = [{"key": key, "operator": "Equal", "value": value, "effect": effect}] + defaults
    for obj, spec in ((pod, pod["spec"]), (job, job["spec"]["template"]["spec"])):
        spec["tolerations"] = ok
        assert refusals(env, obj) == [], obj["kind"]
        for bad in BAD_TOLERATIONS:
            spec["tolerations"] = ok + [bad]
            assert any("CPU job pool" in m for m in refusals(env, obj)), (obj["kind"], bad)
        spec["tolerations"] = ok
        spec["nodeName"] = "ip-10-1-2-3.ec2.internal"
        assert any("nodeName" in m for m in refusals(env, obj)), obj["kind"]
        del spec["nodeName"]
    # a scheduled pod (nodeName set by the binding) can still be updated by controllers
    pod["spec"]["nodeName"] = "ip-10-1-2-3.ec2.internal"
    assert (
        refusals(env, pod, operation="UPDATE", old=pod, user="system:serviceaccount:kube-system:job-controller") == []
    )


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_gpu_job_templates_cannot_pin_nodes_either(env: str) -> None:
    job = first(env, "PyTorchJob")
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["nodeName"] = "ip-10-1-2-3.ec2.internal"
    assert any("nodeName" in m for m in refusals(env, job))


def test_platform_controllers_outrank_every_team_priority() -> None:
    """Kueue, KubeRay and the training and MPI operators run at system-cluster-critical, above every PriorityClass
    any environment defines, so no team pod can preempt them; teams cannot use that class (their quota admits pods
    only of their tiers' classes)."""
    from cdk_constructs.compute.hyperpod_prerequisites import CHART_DIR

    from .conftest import synthesize
    from .test_compute import helm_releases

    assert CONTROLLER_PRIORITY_CLASS == "system-cluster-critical"
    for env in ENVIRONMENTS:
        config = load_config(env)
        assert max(c.value for c in config.kubernetes.priority_classes) < SYSTEM_CLUSTER_CRITICAL
        for team in config.kubernetes.teams:
            assert CONTROLLER_PRIORITY_CLASS not in team.allowed_priority_classes
    releases = {name: r["Values"] for name, r in helm_releases(synthesize("dev")).items()}
    assert releases["kueue"]["controllerManager"]["manager"]["priorityClassName"] == CONTROLLER_PRIORITY_CLASS
    assert releases["kuberay-operator"]["priorityClassName"] == CONTROLLER_PRIORITY_CLASS
    for template in ("training-operator.yaml", "mpi-operator.yaml"):
        assert f"priorityClassName: {CONTROLLER_PRIORITY_CLASS}" in (CHART_DIR / "templates" / template).read_text()


# ---- 4. object counts ------------------------------------------------------------------------------------------------


def _quota_key(group: str, resource: str) -> set[str]:
    """The keys an object count quota accepts for (group, resource) (kubernetes.io "Resource Quotas")."""
    core = {
        "pods",
        "configmaps",
        "secrets",
        "services",
        "persistentvolumeclaims",
        "replicationcontrollers",
        "resourcequotas",
    }
    if not group:
        return {f"count/{resource}"} | ({resource} if resource in core else set())
    return {f"count/{resource}.{group}"}


def _creatable(manifests: list[dict[str, Any]], namespace: str) -> set[tuple[str, str]]:
    """(group, resource) of every object kind some Role or ClusterRole bound in ``namespace`` (to anyone: the team's
    groups, its ServiceAccounts) lets its subjects create; subresources (``pods/exec``) are requests, not objects."""
    roles = {(d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]): d for d in manifests}
    out = set()
    for binding in manifests:
        if binding["kind"] != "RoleBinding" or binding["metadata"].get("namespace") != namespace:
            continue
        ref = binding["roleRef"]
        role = roles.get((ref["kind"], namespace if ref["kind"] == "Role" else None, ref["name"]))
        assert role is not None, f"{namespace}: {binding['metadata']['name']} binds {ref} that is not rendered"
        for rule in role.get("rules", []):
            if {"create", "*"} & set(rule.get("verbs", [])):
                out |= {(g, r) for g in rule.get("apiGroups", []) for r in rule.get("resources", []) if "/" not in r}
    return out


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_kind_a_team_creates_is_counted(env: str) -> None:
    """Issue 40: the kinds come from the rendered Roles and their bindings (Workflows, WorkflowTemplates and the
    pipelines' WorkflowTaskResults were missed by a fixed list), never from a list kept here."""
    manifests = team_manifests(env)
    for team in load_config(env).kubernetes.teams:
        (quota,) = [
            d
            for d in manifests
            if d["kind"] == "ResourceQuota"
            and d["metadata"]["name"] == "objects"
            and d["metadata"]["namespace"] == team.namespace
        ]
        hard = quota["spec"]["hard"]
        assert {k: int(v) for k, v in hard.items()} == OBJECT_QUOTA
        creatable = _creatable(manifests, team.namespace)
        assert ("argoproj.io", "workflows") in creatable and ("argoproj.io", "workflowtaskresults") in creatable
        for group, resource in sorted(creatable):
            assert "*" not in (group, resource), (team.name, group, resource)
            assert _quota_key(group, resource) & set(hard), (team.name, group, resource)
        assert "pods" in hard  # pods are created by the team's jobs' controllers


def _team_groups(manifests: list[dict[str, Any]], namespace: str) -> set[str]:
    return {
        s["name"]
        for d in manifests
        if d["kind"] == "RoleBinding" and d["metadata"].get("namespace") == namespace
        for s in d.get("subjects", [])
        if s["kind"] == "Group"
    }


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_batch_job_parallelism_is_capped(env: str) -> None:
    ns = first(env, "RayJob")["metadata"]["namespace"]
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": ns},
        "spec": {"template": cpu_template(env)},
    }
    for parallelism, refused in (
        (1, False),
        (MAX_JOB_PARALLELISM, False),
        (MAX_JOB_PARALLELISM + 1, True),
        (100_000, True),
    ):
        job["spec"]["parallelism"] = parallelism
        assert any("parallelism" in m for m in refusals(env, job)) == refused, parallelism
    assert MAX_JOB_PARALLELISM <= OBJECT_QUOTA["pods"]


# ---- 5. ServiceAccount tokens ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_no_long_lived_service_account_tokens(env: str) -> None:
    ns = first(env, "RayJob")["metadata"]["namespace"]
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": "forever",
            "namespace": ns,
            "annotations": {"kubernetes.io/service-account.name": "training"},
        },
        "type": "kubernetes.io/service-account-token",
    }
    for operation in ("CREATE", "UPDATE"):
        assert any(
            "service-account-token" in m
            for m in refusals(env, secret, operation=operation, old=secret if operation == "UPDATE" else None)
        )
    for kind in ("Opaque", None):
        plain = copy.deepcopy(secret)
        plain["type"] = kind
        if kind is None:
            del plain["type"]
        assert refusals(env, plain) == []
    assert any(
        d["kind"] == "ValidatingAdmissionPolicy" and d["metadata"]["name"] == SECRET_POLICY for d in team_manifests(env)
    )


# ---- MPIJob launchers ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_an_mpijob_launcher_with_gpus_is_refused_at_create(env: str) -> None:
    """MPI Operator v0.8 runs the launcher as a batch Job, whose GPU pods the pod policy refuses: such an MPIJob
    would be requeued forever, so the workload policy refuses it up front; a CPU launcher passes."""
    (mpi,) = [j for j in team_jobs(env) if j["kind"] == "MPIJob"]
    worker = mpi["spec"]["mpiReplicaSpecs"]["Worker"]["template"]
    cpu = copy.deepcopy(cpu_template(env))
    mpi["spec"]["mpiReplicaSpecs"]["Launcher"] = {"replicas": 1, "template": cpu}
    assert not any("launcher" in m for m in refusals(env, mpi))
    gpu = copy.deepcopy(mpi)
    gpu["spec"]["mpiReplicaSpecs"]["Launcher"]["template"] = copy.deepcopy(worker)
    assert any("launcher" in m for m in refusals(env, gpu))
    as_worker = copy.deepcopy(mpi)
    as_worker["spec"]["runLauncherAsWorker"] = True
    assert any("launcher" in m for m in refusals(env, as_worker))


# ---- serving (issue 34): GPUs only through Kueue, autoscaling only of the endpoint's own demand ----------------------


def serve_objects(env: str) -> dict[str, dict[str, Any]]:
    """An llmft serving endpoint as the cluster sees it (llmft/serve_build.py): the Deployment (the builders' GPU worker
    template, named after the SFT job's queue), the ReplicaSet the Deployment controller creates, a pod of it as
    Kueue's webhooks leave it (gated), the ScaledObject and the Service."""
    from .guardrail_eval import kueue_gated
    from .test_team_guardrails import gpu_template, pod_of

    job = first(env, "PyTorchJob")
    ns = job["metadata"]["namespace"]
    team = next(t for t in load_config(env).kubernetes.teams if t.namespace == ns)
    # a tier the team may use that is not production: production endpoints are the promotion identity's (issue 40,
    # tests/test_redteam_production.py)
    tier = next(t for t in team.allowed_tiers if t not in PRODUCTION_TIERS)
    queue = local_queue_name(tier)
    labels = {QUEUE_NAME_LABEL: queue, "llmft.io/component": "serve", "llmft.io/serve": "chat"}
    template = gpu_template(env)
    template["spec"]["priorityClassName"] = TIER_PRIORITY_CLASSES[tier][0]
    template["metadata"] = {"labels": dict(labels)}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "chat", "namespace": ns, "labels": dict(labels)},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"llmft.io/serve": "chat"}}, "template": template},
    }
    replica_set = owned_by({**copy.deepcopy(deployment), "kind": "ReplicaSet"}, "apps/v1", "Deployment")
    pod = kueue_gated(pod_of(template, ns, {"apiVersion": "apps/v1", "kind": "ReplicaSet"}))
    trigger = {
        "type": "aws-cloudwatch",
        "name": "queued",
        "metadata": {
            "namespace": "ContainerInsights/Prometheus",
            "metricName": "sglang:num_queue_reqs",
            "dimensionName": "ClusterName;Namespace;serve",
            "dimensionValue": f"{load_config(env).cluster_name};{ns};chat",
            "targetMetricValue": "8",
            "minMetricValue": "0",
            "awsRegion": load_config(env).region,
            "identityOwner": "operator",
        },
    }
    scaled = owned_by(
        {
            "apiVersion": "keda.sh/v1alpha1",
            "kind": "ScaledObject",
            "metadata": {
                "name": "chat",
                "namespace": ns,
                "labels": {"llmft.io/component": "serve", "llmft.io/serve": "chat"},
            },
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "chat"},
                "minReplicaCount": 0,
                "maxReplicaCount": 4,
                "triggers": [trigger],
            },
        },
        "apps/v1",
        "Deployment",
    )
    scaled["metadata"]["ownerReferences"][0]["name"] = "chat"
    service = owned_by(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "chat", "namespace": ns},
            "spec": {"type": "ClusterIP", "selector": {"llmft.io/serve": "chat"}, "ports": [{"port": 80}]},
        },
        "apps/v1",
        "Deployment",
    )
    return {"Deployment": deployment, "ReplicaSet": replica_set, "Pod": pod, "ScaledObject": scaled, "Service": service}


DEPLOYMENT_CONTROLLER = "system:serviceaccount:kube-system:deployment-controller"
REPLICASET_CONTROLLER = "system:serviceaccount:kube-system:replicaset-controller"


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_a_serving_endpoint_passes_before_the_attacks(env: str) -> None:
    objs = serve_objects(env)
    for kind in ("Deployment", "ScaledObject", "Service"):
        assert refusals(env, objs[kind]) == [], kind
    assert refusals(env, objs["ReplicaSet"], user=DEPLOYMENT_CONTROLLER) == []
    assert refusals(env, objs["Pod"], user=REPLICASET_CONTROLLER) == []


def _foreign_queue(env: str, ns: str) -> str:
    """A LocalQueue name the team namespace ``ns`` does not have (a tier of another team, or none at all)."""
    team = next(t for t in load_config(env).kubernetes.teams if t.namespace == ns)
    return next((local_queue_name(t) for t in TIER_PRIORITY_CLASSES if t not in team.allowed_tiers), "elsewhere")


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_a_gpu_deployment_must_be_a_queued_serving_one(env: str) -> None:
    """No queue label, a queue this namespace does not have, a pod template that names another queue (or none), no
    serve label, a WorkloadPriorityClass on the template, too many replicas: each is refused."""
    base = serve_objects(env)["Deployment"]
    ns = base["metadata"]["namespace"]
    serve = "Deployments in team namespaces are llmft serve endpoints"

    def variant(edit) -> list[str]:
        d = copy.deepcopy(base)
        edit(d)
        return refusals(env, d)

    assert any(serve in m for m in variant(lambda d: d["metadata"]["labels"].pop(QUEUE_NAME_LABEL)))
    foreign = _foreign_queue(env, ns)
    for where in (lambda d: d["metadata"], lambda d: d["spec"]["template"]["metadata"]):
        assert any(serve in m for m in variant(lambda d, w=where: w(d)["labels"].update({QUEUE_NAME_LABEL: foreign})))
    assert any(serve in m for m in variant(lambda d: d["spec"]["template"]["metadata"]["labels"].pop(QUEUE_NAME_LABEL)))
    assert any(serve in m for m in variant(lambda d: d["metadata"]["labels"].update({"llmft.io/component": "x"})))
    both = variant(
        lambda d: [
            m["labels"].update({QUEUE_NAME_LABEL: foreign}) for m in (d["metadata"], d["spec"]["template"]["metadata"])
        ]
    )
    assert any("workload controllers run on CPU" in m for m in both)
    assert any(
        "priority-class" in m
        for m in variant(
            lambda d: d["spec"]["template"]["metadata"]["labels"].update({"kueue.x-k8s.io/priority-class": "x"})
        )
    )
    assert any("at most" in m for m in variant(lambda d: d["spec"].update({"replicas": 1000})))
    # UPDATE dropping the queue label (Kueue would stop gating the new pods) is refused like a CREATE
    dropped = copy.deepcopy(base)
    for meta in (dropped["metadata"], dropped["spec"]["template"]["metadata"]):
        meta["labels"].pop(QUEUE_NAME_LABEL)
    assert any(serve in m for m in refusals(env, dropped, operation="UPDATE", old=base))


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("kind", ["StatefulSet", "DaemonSet", "ReplicaSet"])
def test_other_workload_controllers_with_gpus_stay_refused_even_serve_labelled(env: str, kind: str) -> None:
    objs = serve_objects(env)
    other = {**copy.deepcopy(objs["Deployment"]), "kind": kind}
    assert any("workload controllers run on CPU" in m for m in refusals(env, other))
    # a ReplicaSet "of a Deployment" is the Deployment controller's only: a team writing the ownerReference is refused
    assert any("ownerReferences" in m for m in refusals(env, objs["ReplicaSet"]))


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_a_serving_pod_must_pass_through_kueue(env: str) -> None:
    """A ReplicaSet's GPU pod without Kueue's gate, without the managed label, with a queue of another namespace; an
    UPDATE dropping the queue label; the gate lifted by anyone but Kueue: each is refused."""
    pod = serve_objects(env)["Pod"]
    ns = pod["metadata"]["namespace"]
    rs = REPLICASET_CONTROLLER
    ungated = copy.deepcopy(pod)
    ungated["spec"]["schedulingGates"] = []
    assert any("scheduling gate" in m for m in refusals(env, ungated, user=rs))
    for edit in ({"kueue.x-k8s.io/managed": "false"}, {QUEUE_NAME_LABEL: _foreign_queue(env, ns)}):
        bad = copy.deepcopy(pod)
        bad["metadata"]["labels"].update(edit)
        assert any("only through Kueue" in m for m in refusals(env, bad, user=rs)), edit
    unlabelled = copy.deepcopy(pod)
    unlabelled["metadata"]["labels"].pop(QUEUE_NAME_LABEL)
    assert any("only through Kueue" in m for m in refusals(env, unlabelled, operation="UPDATE", old=pod, user=rs))
    for user in (rs, "alice@example.com", KUBERAY_OPERATOR):
        assert any("only Kueue removes" in m for m in refusals(env, ungated, operation="UPDATE", old=pod, user=user))
    assert refusals(env, ungated, operation="UPDATE", old=pod, user=KUEUE_CONTROLLER) == []


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_a_scaled_object_scales_its_own_endpoint_on_its_own_demand(env: str) -> None:
    """A ScaledObject that targets another Deployment or kind, reads another namespace's metric (or any metric,
    with `expression`), brings its own credentials, lets KEDA's default of 100 replicas or a paused-replicas pin
    past the cap, or claims another owner: each is refused."""
    base = serve_objects(env)["ScaledObject"]
    ns = base["metadata"]["namespace"]

    def variant(edit) -> list[str]:
        so = copy.deepcopy(base)
        edit(so)
        return refusals(env, so)

    trig = lambda so: so["spec"]["triggers"][0]["metadata"]  # noqa: E731
    attacks = {
        "non-serve target": lambda so: so["spec"]["scaleTargetRef"].update({"name": "someone-elses"}),
        "statefulset target": lambda so: so["spec"]["scaleTargetRef"].update({"kind": "StatefulSet"}),
        "job target": lambda so: so["spec"]["scaleTargetRef"].update(
            {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"}
        ),
        "other namespace": lambda so: trig(so).update({"dimensionValue": "llm-platform;other-team;chat"}),
        "extra dimension": lambda so: trig(so).update({"dimensionValue": f"x;y;{ns};chat"}),
        # issue 40: another cluster's or region's metrics of the same names, read with KEDA's role
        "other cluster": lambda so: trig(so).update({"dimensionValue": f"another-cluster;{ns};chat"}),
        "other region": lambda so: trig(so).update(
            {"awsRegion": "eu-north-1" if trig(so)["awsRegion"] != "eu-north-1" else "us-west-2"}
        ),
        "no region (KEDA's default)": lambda so: trig(so).pop("awsRegion"),
        "other dimensions": lambda so: trig(so).update({"dimensionName": "ClusterName;Namespace"}),
        "other metric": lambda so: trig(so).update({"metricName": "node_cpu_utilization"}),
        "metrics insights": lambda so: trig(so).update({"expression": "SELECT SUM(x) FROM y"}),
        "cross account": lambda so: trig(so).update({"awsAccountId": "111122223333"}),
        "custom endpoint": lambda so: trig(so).update({"awsEndpoint": "https://attacker.example"}),
        "pod identity": lambda so: trig(so).update({"identityOwner": "pod"}),
        "trigger auth": lambda so: so["spec"]["triggers"][0].update(
            {"authenticationRef": {"name": "platform", "kind": "ClusterTriggerAuthentication"}}
        ),
        "other scaler": lambda so: so["spec"]["triggers"][0].update({"type": "prometheus"}),
        "keda default max": lambda so: so["spec"].pop("maxReplicaCount"),
        "above the cap": lambda so: so["spec"].update({"maxReplicaCount": 1000}),
        "pinned past max": lambda so: so["metadata"].update(
            {"annotations": {"autoscaling.keda.sh/paused-replicas": "500"}}
        ),
        "pin not a number": lambda so: so["metadata"].update(
            {"annotations": {"autoscaling.keda.sh/paused-replicas": "1e3"}}
        ),
        "owned by a job": lambda so: so["metadata"]["ownerReferences"][0].update(
            {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"}
        ),
    }
    for name, edit in attacks.items():
        assert variant(edit), name
    assert (
        variant(lambda so: so["metadata"].update({"annotations": {"autoscaling.keda.sh/paused-replicas": "1"}})) == []
    )  # llmft port-forward's wake pin


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_scaling_a_deployment_by_hand_stays_under_the_cap(env: str) -> None:
    """`kubectl scale` (PATCH deployments/scale, an autoscaling/v1 Scale) past the cap is refused."""
    from .guardrail_eval import policy_refusals

    (policy,) = [
        d
        for d in team_manifests(env)
        if d["kind"] == "ValidatingAdmissionPolicy" and d["metadata"]["name"] == AUTOSCALING_POLICY
    ]
    assert any(r["resources"] == ["deployments/scale"] for r in policy["spec"]["matchConstraints"]["resourceRules"])
    scale = {
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": {"name": "chat", "namespace": "x"},
        "spec": {"replicas": MAX_SERVE_REPLICAS + 1},
    }
    assert policy_refusals(policy, scale, old=scale)
    scale["spec"]["replicas"] = 1
    assert policy_refusals(policy, scale, old=scale) == []


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_services_and_network_policies_of_serving(env: str) -> None:
    """A team Service may be owned only by a Deployment; NetworkPolicies stay the platform's (no team verb)."""
    service = serve_objects(env)["Service"]
    ns = service["metadata"]["namespace"]
    forged = owned_by(service, "kubeflow.org/v1", "PyTorchJob")
    assert any("owned only by a Deployment" in m for m in refusals(env, forged))
    team = next(t for t in load_config(env).kubernetes.teams if t.namespace == ns)
    me = {("Group", team_group(team.name))}
    for verb in ("create", "patch", "delete"):
        assert not rbac_allows(team_manifests(env), me, verb, "networking.k8s.io", "networkpolicies", ns), verb


def test_the_replica_cap_is_llmfts() -> None:
    from llmft.spec import ServeSection

    (le,) = [m.le for m in ServeSection.model_fields["max_replicas"].metadata if hasattr(m, "le")]
    assert le == MAX_SERVE_REPLICAS


# ---- production endpoints (issue 40): the Service and ScaledObject are the promoter's as the Deployment is ----------


def production_endpoint(env: str) -> dict[str, dict[str, Any]]:
    """llmft's real production endpoint (examples/jobs/serve-production.yaml): Deployment, Service, ScaledObject."""
    from .test_serve import EXAMPLES, by_kind, plan_of

    plan = plan_of(EXAMPLES / "serve-production.yaml", env)
    assert plan.spec.tier in PRODUCTION_TIERS
    return copy.deepcopy(by_kind(plan))


def development_twin(obj: dict[str, Any]) -> dict[str, Any]:
    """The same object in a non-production tier: what a team plants under the endpoint's name."""
    out = copy.deepcopy(obj)
    tier = next(t for t in TIER_PRIORITY_CLASSES if t not in PRODUCTION_TIERS)
    for meta in (out["metadata"], out.get("spec", {}).get("template", {}).get("metadata")):
        if meta and "labels" in meta:
            meta["labels"][TIER_LABEL] = tier
            if QUEUE_NAME_LABEL in meta["labels"]:
                meta["labels"][QUEUE_NAME_LABEL] = local_queue_name(tier)
    return out


def production_refusals(env: str, obj: dict[str, Any] | None, **kw) -> list[str]:
    """Messages of the production rules only (the production policy and the workload policy's production rules)."""
    subject = obj if obj is not None else kw["old"]
    ns = subject["metadata"]["namespace"]
    found = admission_refusals(team_manifests(env), obj, ns_labels(env, ns), **kw)
    return [r.message for r in found if PRODUCTION_POLICY in r.by or "promotion step" in r.message]


def crd_spec_fields(kind_file: str) -> dict[str, dict[str, Any]]:
    """The top-level spec properties of a vendored CRD (k8s_charts/crds, upstream byte-for-byte: SOURCES.md)."""
    import k8s_charts

    (crd,) = yaml_documents(Path(k8s_charts.__file__).parent / "crds" / kind_file)
    (version,) = [v for v in crd["spec"]["versions"] if v["storage"]]
    return version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]


def _changed(value: dict[str, Any]) -> Any:
    return {"integer": 3, "string": "x", "boolean": True, "array": [], "object": {}}.get(value.get("type"), "x")


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_a_production_scaled_object_is_the_promoters(env: str) -> None:
    """Every field of KEDA v2.19's ScaledObject spec (the vendored CRD), its labels (out of production) and the
    object itself, by a team member: refused on create, update and delete. The promoter, KEDA's operator (its
    finalizer) and the namespace controller (deleting the namespace) pass the production rule."""
    scaled = production_endpoint(env)["ScaledObject"]
    promotion = "created, changed and deleted only by the platform's promotion step"
    assert production_refusals(env, scaled, user=PROMOTER) == []
    assert any(promotion in m for m in production_refusals(env, scaled))
    fields = crd_spec_fields("keda.sh_scaledobjects.yaml")
    assert {"minReplicaCount", "maxReplicaCount", "triggers", "idleReplicaCount", "advanced"} <= set(fields)
    for name, schema in fields.items():
        edited = copy.deepcopy(scaled)
        edited["spec"][name] = _changed(schema)
        assert any(promotion in m for m in production_refusals(env, edited, operation="UPDATE", old=scaled)), name
        assert production_refusals(env, edited, operation="UPDATE", old=scaled, user=PROMOTER) == [], name
    demoted = development_twin(scaled)
    assert any(promotion in m for m in production_refusals(env, demoted, operation="UPDATE", old=scaled))
    assert any(promotion in m for m in production_refusals(env, None, operation="DELETE", old=scaled))
    finalized = copy.deepcopy(scaled)
    finalized["metadata"]["finalizers"] = ["finalizer.keda.sh"]
    assert production_refusals(env, finalized, operation="UPDATE", old=scaled, user=KEDA_OPERATOR) == []
    for user in (PROMOTER, NAMESPACE_CONTROLLER):
        assert production_refusals(env, None, operation="DELETE", old=scaled, user=user) == [], user


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_a_production_service_and_deployment_delete_are_the_promoters(env: str) -> None:
    """A production endpoint's Service (its selector would send production callers to the team's own pods) and the
    deletion of its Deployment (after which a development Deployment of the same name would receive the production
    Service's traffic and the ScaledObject's replicas) are refused to a team member."""
    endpoint = production_endpoint(env)
    service, deployment = endpoint["Service"], endpoint["Deployment"]
    promotion = "created, changed and deleted only by the platform's promotion step"
    assert production_refusals(env, service, user=PROMOTER) == []
    assert any(promotion in m for m in production_refusals(env, service))
    hijacked = copy.deepcopy(service)
    hijacked["spec"]["selector"] = {"llmft.io/serve": "my-dev-endpoint"}
    assert any(promotion in m for m in production_refusals(env, hijacked, operation="UPDATE", old=service))
    for old in (service, deployment):
        assert any(promotion in m for m in production_refusals(env, None, operation="DELETE", old=old)), old["kind"]
        assert production_refusals(env, None, operation="DELETE", old=old, user=PROMOTER) == [], old["kind"]
    # a development endpoint stays the team's: create, change and delete
    for obj in (development_twin(o) for o in endpoint.values()):
        assert production_refusals(env, obj) == [], obj["kind"]
        assert production_refusals(env, obj, operation="UPDATE", old=obj) == [], obj["kind"]
        assert production_refusals(env, None, operation="DELETE", old=obj) == [], obj["kind"]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_promoter_takes_over_nothing_a_team_planted(env: str) -> None:
    """A team creates a development Deployment, Service or ScaledObject under the endpoint's name before the
    promotion (its own env, sidecars, idleReplicaCount): the promoter's apply, an UPDATE of that object, is refused
    rather than merged into it; re-applying its own production objects passes."""
    for kind, obj in production_endpoint(env).items():
        planted = development_twin(obj)
        assert any(
            "does not take over" in m
            for m in production_refusals(env, obj, operation="UPDATE", old=planted, user=PROMOTER)
        ), kind
        assert production_refusals(env, obj, operation="UPDATE", old=obj, user=PROMOTER) == [], kind


def test_the_production_writers_are_the_platforms() -> None:
    """KEDA's operator is the one the platform installs; no team identity is among the writers."""
    from cdk_constructs.compute.keda import KEDA_NAMESPACE, OPERATOR_SERVICE_ACCOUNT

    assert KEDA_OPERATOR == f"system:serviceaccount:{KEDA_NAMESPACE}:{OPERATOR_SERVICE_ACCOUNT}"
    assert set(PRODUCTION_WRITERS) == {PROMOTER, *PLATFORM_CONTROLLERS, KEDA_OPERATOR, NAMESPACE_CONTROLLER}
    assert all(w.startswith("system:serviceaccount:") for w in PRODUCTION_WRITERS)


def _pod_templates(obj: Any) -> list[dict[str, Any]]:
    """Every pod template inside a job object (a dict with a ``spec.containers``), found by walking it."""
    if isinstance(obj, list):
        return [t for x in obj for t in _pod_templates(x)]
    if not isinstance(obj, dict):
        return []
    own = [obj] if isinstance(obj.get("spec"), dict) and "containers" in obj["spec"] else []
    return own + [t for v in obj.values() for t in _pod_templates(v)]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_no_job_pod_answers_for_an_endpoint(env: str) -> None:
    """A job's pod labelled ``llmft.io/serve: <the production endpoint>`` would receive the endpoint's Service
    traffic: every job kind a team writes with the label on a pod template is refused, and so is such a pod itself
    (created by the training operator); the serving Deployment's own pods keep the label."""
    name = production_endpoint(env)["Service"]["spec"]["selector"][SERVE_NAME_LABEL]
    said = f"the label {SERVE_NAME_LABEL} is a serving Deployment's"
    for job in team_jobs(env):
        labelled = copy.deepcopy(job)
        templates = _pod_templates(labelled)
        assert templates, job["kind"]
        for t in templates:
            t.setdefault("metadata", {}).setdefault("labels", {})[SERVE_NAME_LABEL] = name
        assert any(said in m for m in refusals(env, labelled)), job["kind"]
    from .test_team_guardrails import pod_of

    job = first(env, "PyTorchJob")
    (template, *_) = _pod_templates(copy.deepcopy(job))
    template.setdefault("metadata", {}).setdefault("labels", {})[SERVE_NAME_LABEL] = name
    pod = pod_of(template, job["metadata"]["namespace"], {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"})
    operator = "system:serviceaccount:kubeflow:training-operator"
    assert any(said in m for m in refusals(env, pod, user=operator))
    serve_pod = serve_objects(env)["Pod"]
    assert serve_pod["metadata"]["labels"][SERVE_NAME_LABEL]
    assert not any(said in m for m in refusals(env, serve_pod, user=REPLICASET_CONTROLLER))


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_a_production_endpoints_name_is_the_promoters(env: str) -> None:
    """With the production Deployment in the namespace (the binding's paramRef finds it, tests/guardrail_eval.py),
    a team's ScaledObject or Service of its name, whatever tier label it carries, and a team's `kubectl scale` of it
    are refused; the promoter and the autoscalers pass; other names and a namespace without the production
    Deployment are untouched. The paramRef selects llmft's rendered production Deployment and not a development one."""
    from .guardrail_eval import binding_params, policy_refusals
    from .test_serve import EXAMPLES, by_kind, plan_of

    endpoint = production_endpoint(env)
    deployment = endpoint["Deployment"]
    ns = deployment["metadata"]["namespace"]
    m = team_manifests(env)
    (policy,) = [
        d for d in m if d["kind"] == "ValidatingAdmissionPolicy" and d["metadata"]["name"] == PRODUCTION_TARGET_POLICY
    ]
    (binding,) = [
        d
        for d in m
        if d["kind"] == "ValidatingAdmissionPolicyBinding" and d["metadata"]["name"] == PRODUCTION_TARGET_POLICY
    ]
    development = by_kind(plan_of(EXAMPLES / "07-serve-medical.yaml", env))["Deployment"]
    development["metadata"]["namespace"] = ns
    assert binding_params(policy, binding, ns, [deployment, development]) == [deployment]
    said = "this name is a production endpoint's"

    def refused(obj, cluster, **kw) -> list[str]:
        found = admission_refusals(m, obj, ns_labels(env, ns), cluster=cluster, **kw)
        return [r.message for r in found if said in r.message]

    for kind in ("ScaledObject", "Service"):
        planted = development_twin(endpoint[kind])
        assert refused(planted, [deployment]), kind
        assert refused(None, [deployment], operation="DELETE", old=planted), kind
        assert refused(planted, [development]) == [], kind  # no production Deployment of this name
        other = copy.deepcopy(planted)
        other["metadata"]["name"] = "another-endpoint"
        assert refused(other, [deployment]) == [], kind
        assert refused(endpoint[kind], [deployment], user=PROMOTER) == [], kind
    scale = {
        "apiVersion": "autoscaling/v1",
        "kind": "Scale",
        "metadata": {"name": deployment["metadata"]["name"], "namespace": ns},
        "spec": {"replicas": 2},
    }
    from .guardrail_eval import request_of

    def scale_refused(user: str) -> list[str]:
        request = request_of("UPDATE", user, namespace=ns)
        return policy_refusals(policy, scale, old=scale, request=request, params=deployment)

    assert scale_refused("alice@example.com")
    for user in (HPA_CONTROLLER, KEDA_OPERATOR, PROMOTER):
        assert scale_refused(user) == [], user
