"""Kueue: the queueing policy, asserted on the synthesized objects and derived from the config.

Expected values come from the config (capacities, teams, tiers, shares) and from Kueue's documented rules, never
from a copy of the output. Kueue's own matching rule for flavors (docs "Resource Flavor": a flavor can be assigned
to a pod set only if the pod's nodeSelector / required node affinity matches the flavor's nodeLabels, evaluated on
the flavor's own label keys) is applied with kube's NodeSelectorRequirement semantics in :func:`matches`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from config import ConfigError, load_config
from config.charts import KUEUE_CHART_VERSION
from config.kubernetes import TIER_PRIORITY_CLASSES
from config.queueing import TIER_CAPACITY_ORDER, capacities, tier_capacities
from config.versions import UPSTREAM
from k8s_charts.__main__ import write_dist
from k8s_charts.guardrails.common import KUBERAY_OPERATOR
from k8s_charts.queues import CAPACITY_LABEL, QUEUE_NAME_LABEL, ROOT_COHORT, TEAM_CAP_FLAVOR, TEAM_GPUS
from k8s_charts.serving import PRODUCTION_TIERS, PROMOTION_NAMESPACE
from k8s_charts.validation import CRD_DIR, crd_validators, embedded_pod_templates, validate, validators_from

from .cel import program
from .conftest import ENVIRONMENTS, Synth, config_with, raw_config, yaml_documents
from .guardrail_eval import TEAM_USER, request_of

ENVS = ENVIRONMENTS
GPU = "nvidia.com/gpu"
KUEUE_KINDS = ("ResourceFlavor", "Cohort", "ClusterQueue", "LocalQueue")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    out = tmp_path_factory.mktemp("dist")
    return {env: [d for f in write_dist(env, out) for d in yaml.safe_load_all(f.read_text()) if d] for env in ENVS}


def kind(docs: list[dict], k: str) -> dict[str, dict]:
    return {
        f"{d['metadata'].get('namespace', '')}/{d['metadata']['name']}".lstrip("/"): d for d in docs if d["kind"] == k
    }


def matches(requirements: list[dict], labels: dict[str, str]) -> bool:
    """Kubernetes NodeSelectorRequirement semantics (In, NotIn, Exists, DoesNotExist) against a label set."""
    for r in requirements:
        present, value = r["key"] in labels, labels.get(r["key"])
        ok = {
            "In": present and value in r.get("values", []),
            "NotIn": not present or value not in r.get("values", []),
            "Exists": present,
            "DoesNotExist": not present,
        }[r["operator"]]
        if not ok:
            return False
    return True


def flavor_fits(pod_spec: dict, flavor: dict) -> bool:
    """Kueue's rule: the pod's nodeSelector and required affinity, restricted to the flavor's own label keys,
    must match the flavor's nodeLabels (one term of the ORed nodeSelectorTerms suffices)."""
    labels = flavor["spec"].get("nodeLabels", {})
    keys = set(labels)
    selector = {k: v for k, v in pod_spec.get("nodeSelector", {}).items() if k in keys}
    if any(labels.get(k) != v for k, v in selector.items()):
        return False
    required = (
        pod_spec.get("affinity", {}).get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    )
    if not required:
        return True
    terms = [[e for e in t.get("matchExpressions", []) if e["key"] in keys] for t in required["nodeSelectorTerms"]]
    return any(not t for t in terms) or any(matches(t, labels) for t in terms)


def gpus(pod_spec: dict) -> int:
    return sum(int(c.get("resources", {}).get("requests", {}).get(GPU, 0)) for c in pod_spec["containers"])


def quota(resource: dict, key: str = "nominalQuota") -> int | None:
    return None if key not in resource else int(resource[key])


# ---- schemas -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env", ENVS)
def test_every_kueue_object_validates_against_its_crd(dist, env: str) -> None:
    validators = crd_validators()
    for k in KUEUE_KINDS:
        assert ("kueue.x-k8s.io/v1beta2", k) in validators  # served by the v0.19.2 CRD copies
    docs = [d for d in dist[env] if d["apiVersion"].startswith("kueue.x-k8s.io/")]
    assert {d["kind"] for d in docs} == set(KUEUE_KINDS)
    assert all(d["apiVersion"] == "kueue.x-k8s.io/v1beta2" for d in docs)  # the storage version
    assert [e for d in docs for e in validate(d, load_config(env).compute.kubernetes_version)] == []


def test_schema_validation_catches_kueue_mistakes(dist) -> None:
    cq = json.loads(json.dumps(next(iter(kind(dist["dev"], "ClusterQueue").values()))))
    cq["spec"]["preemption"]["withinClusterQueue"] = "Sometimes"
    cq["spec"]["cohort"] = "v1beta1-field"
    errors = validate(cq, load_config("dev").compute.kubernetes_version)
    assert any("'Sometimes' is not one of" in e for e in errors) and any("cohort" in e for e in errors)


def test_cel_rules_of_the_crds_hold(dist) -> None:
    """The CRDs' x-kubernetes-validations that concern fields we set (not evaluated by the JSON-schema validator):
    every flavor lists as many resources as coveredResources; flavorFungibility.preference only with both policies
    TryNextFlavor; borrowWithinCohort needs reclaimWithinCohort != Never; borrowingLimit needs a cohort."""
    for env in ENVS:
        for cq in kind(dist[env], "ClusterQueue").values():
            spec = cq["spec"]
            for group in spec["resourceGroups"]:
                assert all(len(f["resources"]) == len(group["coveredResources"]) for f in group["flavors"])
            ff = spec["flavorFungibility"]
            assert "preference" not in ff or ff["whenCanBorrow"] == ff["whenCanPreempt"] == "TryNextFlavor"
            assert spec["preemption"]["reclaimWithinCohort"] != "Never"
            assert spec.get("cohortName")


# ---- flavors -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env", ENVS)
def test_one_flavor_per_capacity_pins_its_nodes(dist, env: str) -> None:
    config = load_config(env)
    caps = capacities(config.compute, config.kubernetes)
    flavors = kind(dist[env], "ResourceFlavor")
    assert set(flavors) == {c.name for c in caps} | {TEAM_CAP_FLAVOR}
    node_type = {"reserved": "hyperpod", "on-demand": "eks-on-demand", "spot": "eks-spot"}
    for cap in caps:
        spec = flavors[cap.name]["spec"]
        assert spec["nodeLabels"] == {
            "node-type": node_type[cap.kind],
            "gpu-type": cap.gpu_type,
            CAPACITY_LABEL: cap.name,
        }
        tolerations = {(t["key"], t.get("value")) for t in spec["tolerations"]}
        assert (GPU, None) in tolerations
        assert (("dedicated", "hyperpod") in tolerations) is (cap.kind == "reserved")
    # no two flavors select the same nodes: the capacity label differs
    assert len({flavors[c.name]["spec"]["nodeLabels"][CAPACITY_LABEL] for c in caps}) == len(caps)
    assert "spec" not in flavors[TEAM_CAP_FLAVOR] or not flavors[TEAM_CAP_FLAVOR]["spec"].get("nodeLabels")


@pytest.mark.parametrize("env", ENVS)
def test_nodes_carry_the_labels_their_flavor_selects(dist, env: str, request: pytest.FixtureRequest) -> None:
    """Karpenter pools label their nodes with the flavor's labels; HyperPod groups get them from the compute stack
    (checked on the synthesized SageMaker cluster in test_hyperpod_groups_carry_capacity_label)."""
    flavors = kind(dist[env], "ResourceFlavor")
    for name, pool in kind(dist[env], "NodePool").items():
        if GPU not in pool["spec"]["limits"]:
            assert name not in flavors  # the CPU job pool: CPU is not quota-managed (IgnoreUndeclared)
            continue
        assert pool["spec"]["template"]["metadata"]["labels"] == flavors[name]["spec"]["nodeLabels"]


# ---- cluster queues ------------------------------------------------------------------------------------------
def gpu_flavors(cq: dict) -> list[str]:
    (group,) = [g for g in cq["spec"]["resourceGroups"] if GPU in g["coveredResources"]]
    assert group["coveredResources"] == [GPU]
    return [f["name"] for f in group["flavors"]]


@pytest.mark.parametrize("env", ENVS)
def test_cluster_queue_per_team_and_tier_with_the_tier_flavor_order(dist, env: str) -> None:
    config = load_config(env)
    caps = capacities(config.compute, config.kubernetes)
    queues = kind(dist[env], "ClusterQueue")
    assert set(queues) == {f"{t.name}-{tier}" for t in config.kubernetes.teams for tier in t.allowed_tiers}
    for team in config.kubernetes.teams:
        for tier in team.allowed_tiers:
            cq = queues[f"{team.name}-{tier}"]
            order = gpu_flavors(cq)
            kinds = {c.name: c.kind for c in caps}
            # the kinds appear in the tier's order (reserved before on-demand/spot) ...
            seen = [kinds[f] for f in order]
            assert seen == sorted(seen, key=TIER_CAPACITY_ORDER[tier].index)
            # ... and every capacity of those kinds is listed, none of any other kind
            assert set(order) == {c.name for c in caps if c.kind in TIER_CAPACITY_ORDER[tier]}
            assert cq["spec"]["cohortName"] == team.name
            # the team's namespace, and the platform namespace where the platform evaluates a production team's
            # models (issue 40; tests/test_platform_evaluation.py evaluates the selector against every namespace)
            names = [team.namespace] + (
                [PROMOTION_NAMESPACE] if set(team.allowed_tiers) & set(PRODUCTION_TIERS) else []
            )
            assert cq["spec"]["namespaceSelector"] == {
                "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": names}]
            }


@pytest.mark.parametrize("env", ENVS)
def test_flavors_a_tier_can_never_reach(dist, env: str) -> None:
    config = load_config(env)
    caps = {c.name: c for c in capacities(config.compute, config.kubernetes)}
    never = {
        "production": {"on-demand", "spot"},
        "development": {"spot"},
        "research": {"on-demand"},
        "experiment": {"reserved", "on-demand"},
    }
    for name, cq in kind(dist[env], "ClusterQueue").items():
        tier = cq["metadata"]["labels"]["platform/tier"]
        assert not {caps[f].kind for f in gpu_flavors(cq)} & never[tier], name


@pytest.mark.parametrize("env", ENVS)
def test_borrowing_preemption_and_fungibility(dist, env: str) -> None:
    for cq in kind(dist[env], "ClusterQueue").values():
        spec = cq["spec"]
        # nothing is owned by a tier queue: everything is borrowed from the team cohort (shares) or the root
        for group in spec["resourceGroups"]:
            for flavor in group["flavors"]:
                assert [(r["name"], quota(r), quota(r, "borrowingLimit")) for r in flavor["resources"]] == [
                    (group["coveredResources"][0], 0, None)
                ]
        # strictly lower priorities only, in the queue, in the cohort, and while borrowing
        assert spec["preemption"] == {
            "withinClusterQueue": "LowerPriority",
            "reclaimWithinCohort": "LowerPriority",
            "borrowWithinCohort": {"policy": "LowerPriority"},
        }
        # first flavor with room wins; a flavor that would need preemption is passed over for the next one
        assert spec["flavorFungibility"] == {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}
        assert spec["queueingStrategy"] == "BestEffortFIFO"


@pytest.mark.parametrize("env", ENVS)
def test_cohorts_hold_shares_unassigned_capacity_and_the_team_cap(dist, env: str) -> None:
    config = load_config(env)
    caps = capacities(config.compute, config.kubernetes)
    cohorts = kind(dist[env], "Cohort")
    assert set(cohorts) == {ROOT_COHORT} | {t.name for t in config.kubernetes.teams}
    root = cohorts[ROOT_COHORT]["spec"]
    assert "parentName" not in root
    (group,) = root["resourceGroups"]
    unassigned = {c.name: c.gpus - sum(t.gpu_shares.get(c.name, 0) for t in config.kubernetes.teams) for c in caps}
    assert {f["name"]: quota(f["resources"][0]) for f in group["flavors"]} == unassigned
    # root + team shares = what each capacity holds, so Kueue never hands out more GPUs than exist
    for team in config.kubernetes.teams:
        spec = cohorts[team.name]["spec"]
        assert spec["parentName"] == ROOT_COHORT
        gpu_group, cap_group = spec["resourceGroups"]
        reachable = {c.name for tier in team.allowed_tiers for c in tier_capacities(tier, caps)}
        shares = {f["name"]: f["resources"][0] for f in gpu_group["flavors"]}
        assert set(shares) == reachable
        for name, res in shares.items():
            assert quota(res) == team.gpu_shares.get(name, 0)
            assert quota(res, "borrowingLimit") == (None if team.borrowing else 0)
        (cap,) = cap_group["flavors"]
        assert cap["name"] == TEAM_CAP_FLAVOR
        assert [
            (r["name"], quota(r), quota(r, "borrowingLimit"), quota(r, "lendingLimit")) for r in cap["resources"]
        ] == [(TEAM_GPUS, team.gpu_quota, 0, 0)]
    for cap in caps:
        assert unassigned[cap.name] + sum(t.gpu_shares.get(cap.name, 0) for t in config.kubernetes.teams) == cap.gpus


def test_team_that_may_not_borrow_is_capped_at_its_shares() -> None:
    import cdk8s

    from k8s_charts.queueing import QueueingChart

    cfg = config_with(
        "dev",
        {
            "kubernetes": {
                "teams": [
                    {
                        "name": "ml-research",
                        "gpu_quota": 16,
                        "allowed_tiers": ["research"],
                        "gpu_shares": {"a100-spot": 8},
                        "borrowing": False,
                    },
                    {"name": "hyperpod-platform", "gpu_quota": 1, "allowed_tiers": ["production"]},
                ]
            }
        },
    )
    docs = QueueingChart(cdk8s.App(), "q", config=cfg).to_json()
    cohort = next(d for d in docs if d["kind"] == "Cohort" and d["metadata"]["name"] == "ml-research")
    limits = {
        f["name"]: (quota(f["resources"][0]), quota(f["resources"][0], "borrowingLimit"))
        for f in cohort["spec"]["resourceGroups"][0]["flavors"]
    }
    research = tier_capacities("research", capacities(cfg.compute, cfg.kubernetes))
    assert limits == {c.name: (8, 0) if c.name == "a100-spot" else (0, 0) for c in research}


# ---- local queues and jobs -----------------------------------------------------------------------------------
@pytest.mark.parametrize("env", ENVS)
def test_local_queue_per_team_namespace_and_tier(dist, env: str) -> None:
    config = load_config(env)
    lqs = kind(dist[env], "LocalQueue")
    teams = {f"{t.name}/{tier}": f"{t.name}-{tier}" for t in config.kubernetes.teams for tier in t.allowed_tiers}
    # and, for a team with a production tier, one per tier in the platform namespace, in the same ClusterQueue
    # (the platform's gated evaluation, issue 40: tests/test_platform_evaluation.py)
    platform = {
        f"{PROMOTION_NAMESPACE}/{t.name}-{tier}": f"{t.name}-{tier}"
        for t in config.kubernetes.teams
        if set(t.allowed_tiers) & set(PRODUCTION_TIERS)
        for tier in t.allowed_tiers
    }
    assert {k: v["spec"]["clusterQueue"] for k, v in lqs.items()} == teams | platform
    namespaces = kind(dist[env], "Namespace")
    for team in config.kubernetes.teams:
        assert namespaces[team.name]["metadata"]["labels"]["platform/kueue-managed"] == "true"


@pytest.mark.parametrize("env", ENVS)
def test_every_job_names_its_tier_queue_and_its_gpu_pods_fit_one_flavor(dist, env: str) -> None:
    docs = dist[env]
    lqs, cqs, flavors = kind(docs, "LocalQueue"), kind(docs, "ClusterQueue"), kind(docs, "ResourceFlavor")
    jobs = [d for d in docs if d["kind"] in ("PyTorchJob", "RayJob")]
    assert jobs
    for job in jobs:
        meta = job["metadata"]
        tier = meta["labels"]["platform/tier"]
        lq = lqs[f"{meta['namespace']}/{meta['labels'][QUEUE_NAME_LABEL]}"]
        cq = cqs[lq["spec"]["clusterQueue"]]
        assert cq["metadata"]["labels"] == {
            **cq["metadata"]["labels"],
            "platform/tier": tier,
            "platform/team": meta["namespace"],
        }
        templates = dict(embedded_pod_templates(job))
        gpu_sets = {p: t["spec"] for p, t in templates.items() if gpus(t["spec"])}
        # one GPU pod set per job: Kueue assigns one flavor to it, so every GPU pod gets one flavor's selector
        assert len(gpu_sets) == 1, meta["name"]
        (spec,) = gpu_sets.values()
        fitting = [f for f in gpu_flavors(cq) if flavor_fits(spec, flavors[f])]
        assert fitting, f"{meta['name']}: no flavor of {cq['metadata']['name']} matches its pods"
        # a flavor outside the tier's queue never matches the pods either (the pods' own node-type affinity)
        others = set(flavors) - set(gpu_flavors(cq)) - {TEAM_CAP_FLAVOR}
        assert not [f for f in others if flavor_fits(spec, flavors[f])]
        # whatever Kueue picks, the nodeSelector it adds still satisfies the pods' own required affinity
        for f in fitting:
            required = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
            node = {**flavors[f]["spec"]["nodeLabels"]}
            exprs = [e for e in required["nodeSelectorTerms"][0]["matchExpressions"] if e["key"] in node]
            assert matches(exprs, node)


@pytest.mark.parametrize("env", ENVS)
def test_every_job_fits_in_one_flavor_it_may_get(dist, env: str) -> None:
    """Kueue admits a job only when all its GPUs fit in one flavor at once; a job larger than every flavor it matches
    would wait forever. Flavor sizes come from the config (group count x GPUs, pool gpu_limit)."""
    config = load_config(env)
    size = {c.name: c.gpus for c in capacities(config.compute, config.kubernetes)}
    docs = dist[env]
    lqs, cqs, flavors = kind(docs, "LocalQueue"), kind(docs, "ClusterQueue"), kind(docs, "ResourceFlavor")
    for job in (d for d in docs if d["kind"] in ("PyTorchJob", "RayJob")):
        meta = job["metadata"]
        cq = cqs[lqs[f"{meta['namespace']}/{meta['labels'][QUEUE_NAME_LABEL]}"]["spec"]["clusterQueue"]]
        total, spec = 0, None
        if job["kind"] == "PyTorchJob":
            worker = job["spec"]["pytorchReplicaSpecs"]["Worker"]
            spec, total = worker["template"]["spec"], worker["replicas"] * gpus(worker["template"]["spec"])
        else:
            for group in job["spec"]["rayClusterSpec"]["workerGroupSpecs"]:
                if gpus(group["template"]["spec"]):
                    spec, total = group["template"]["spec"], group["replicas"] * gpus(group["template"]["spec"])
        fitting = [f for f in gpu_flavors(cq) if flavor_fits(spec, flavors[f])]
        assert any(total <= size[f] for f in fitting), (meta["name"], total, {f: size[f] for f in fitting})


@pytest.mark.parametrize("env", ENVS)
def test_flavors_agree_with_the_node_kinds(env: str) -> None:
    """Every GPU node kind of k8s_charts/node_shapes carries its flavor's node-type and gpu-type, and belongs to
    the capacity the flavor names, so a pod pinned to the flavor lands on exactly that kind's nodes."""
    from k8s_charts.node_shapes import node_kinds
    from k8s_charts.queues import flavor_node_labels

    config = load_config(env)
    caps = {c.name: c for c in capacities(config.compute, config.kubernetes)}
    for node_kind in node_kinds(config):
        if node_kind.source == "system" or not node_kind.spec.gpus:
            continue
        cap = caps[node_kind.name.split("/")[1]]
        labels = flavor_node_labels(cap)
        assert {k: node_kind.labels[k] for k in ("node-type", "gpu-type")} == {
            k: labels[k] for k in ("node-type", "gpu-type")
        }
        assert set(node_kind.tiers) == {t for t, kinds in TIER_CAPACITY_ORDER.items() if cap.kind in kinds}


def test_pods_without_gpus_get_no_flavor(dist) -> None:
    """Only nvidia.com/gpu and the team cap are covered (quotaCheckStrategy IgnoreUndeclared), so the Ray head and
    submitter request nothing Kueue assigns a flavor for: they keep running on the system nodes."""
    for job in kind(dist["dev"], "RayJob").values():
        cpu_only = [t for _, t in embedded_pod_templates(job) if not gpus(t["spec"])]
        assert len(cpu_only) == 2
        for tpl in cpu_only:
            assert set(tpl["spec"]["containers"][0]["resources"]["requests"]) <= {"cpu", "memory"}


def test_production_jobs_keep_hyperpod_auto_resume(dist) -> None:
    for env in ENVS:
        for job in kind(dist[env], "PyTorchJob").values():
            if job["metadata"]["labels"]["platform/tier"] == "production":
                assert job["metadata"]["annotations"]["sagemaker.amazonaws.com/enable-job-auto-resume"] == "true"
                assert job["metadata"]["namespace"].startswith("hyperpod")


@pytest.mark.parametrize("env", ENVS)
def test_jobs_without_a_queue_are_refused_in_team_namespaces(dist, env: str) -> None:
    policy = kind(dist[env], "ValidatingAdmissionPolicy")["require-kueue-queue-name"]["spec"]
    binding = kind(dist[env], "ValidatingAdmissionPolicyBinding")["require-kueue-queue-name"]["spec"]
    resources = {
        (g, r)
        for rule in policy["matchConstraints"]["resourceRules"]
        for g in rule["apiGroups"]
        for r in rule["resources"]
    }
    assert resources == {
        ("kubeflow.org", "pytorchjobs"),
        ("kubeflow.org", "mpijobs"),
        ("ray.io", "rayjobs"),
        ("ray.io", "rayclusters"),
    }
    assert policy["failurePolicy"] == "Fail" and binding["validationActions"] == ["Deny"]
    assert QUEUE_NAME_LABEL in policy["validations"][0]["expression"]
    assert binding["matchResources"]["namespaceSelector"] == {"matchLabels": {"platform/kueue-managed": "true"}}
    assert binding["policyName"] == "require-kueue-queue-name"


def _denied(policy: dict, obj: dict, user: str = TEAM_USER) -> list[str] | None:
    """Messages of the policy's validations ``obj`` fails when ``user`` creates it, evaluated with a CEL interpreter
    (cel-python); None when a matchCondition exempts the object."""
    import celpy

    activation = {"object": celpy.json_to_cel(obj), "request": celpy.json_to_cel(request_of("CREATE", user))}
    for condition in policy["spec"].get("matchConditions", []):
        if not program(condition["expression"]).evaluate(activation):
            return None
    return [v["message"] for v in policy["spec"]["validations"] if not program(v["expression"]).evaluate(activation)]


def test_queue_name_policy_evaluated(dist) -> None:
    policy = kind(dist["dev"], "ValidatingAdmissionPolicy")["require-kueue-queue-name"]
    job = next(iter(kind(dist["dev"], "PyTorchJob").values()))
    assert _denied(policy, job) == []  # the builders' jobs pass
    unlabelled = json.loads(json.dumps(job))
    del unlabelled["metadata"]["labels"][QUEUE_NAME_LABEL]
    (message,) = _denied(policy, unlabelled)
    assert QUEUE_NAME_LABEL in message and "production, development, research, experiment" in message
    unlabelled["metadata"]["labels"][QUEUE_NAME_LABEL] = ""
    assert _denied(policy, unlabelled)
    del unlabelled["metadata"]["labels"]
    assert _denied(policy, unlabelled)
    owned = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {
            "name": "rc",
            "ownerReferences": [
                {"apiVersion": "ray.io/v1", "kind": "RayJob", "name": "j", "uid": "u", "controller": True}
            ],
        },
    }
    assert _denied(policy, owned, KUBERAY_OPERATOR) is None  # created by the KubeRay operator for an admitted RayJob
    # the same object written by a team member is not exempt: ownerReferences are a field anyone may write, and Kueue
    # would not queue a RayCluster whose controller is a RayJob (jobframework IsOwnerManagedByKueueForObject)
    assert _denied(policy, owned)
    # any other owner, or an ownerReference without `controller`, does not exempt (and does not make CEL fail)
    for ref in (
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "r", "uid": "u", "controller": True},
        {"apiVersion": "ray.io/v1", "kind": "RayJob", "name": "j", "uid": "u"},
        {"apiVersion": "ray.io/v1", "kind": "RayJob", "name": "j", "uid": "u", "controller": False},
    ):
        other = {**owned, "metadata": {"name": "rc", "ownerReferences": [ref]}}
        assert _denied(policy, other, KUBERAY_OPERATOR), ref


def test_an_mpijob_from_a_team_pod_template_is_gang_admissible(dist) -> None:
    """MPIJobs are the third gang-admitted kind (MPI Operator v0.8.2 from charts/hyperpod-prerequisites). An MPIJob a
    team writes from a builder's GPU pod template (CPU-only launcher, GPU workers) is valid against the MPIJob CRD
    the chart installs, passes the queue policy only with a queue name, and its only GPU pod set (the workers) fits
    exactly the flavors of the builder's job, so all its GPU pods land on one capacity."""
    from cdk_constructs.compute.hyperpod_prerequisites import CHART_DIR

    validator = validators_from(CHART_DIR / "crds" / "kubeflow.org_mpijobs.yaml")[("kubeflow.org/v2beta1", "MPIJob")]
    policy = kind(dist["dev"], "ValidatingAdmissionPolicy")["require-kueue-queue-name"]
    flavors = kind(dist["dev"], "ResourceFlavor")
    job = next(iter(kind(dist["dev"], "PyTorchJob").values()))
    worker = json.loads(json.dumps(job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]))
    launcher = json.loads(json.dumps(worker))
    for container in launcher["spec"]["containers"]:
        container["resources"] = {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "2Gi"}}
    launcher["spec"].pop("affinity", None)
    launcher["spec"].pop("nodeSelector", None)
    mpijob = {
        "apiVersion": "kubeflow.org/v2beta1",
        "kind": "MPIJob",
        "metadata": {
            "name": "nccl-allreduce",
            "namespace": job["metadata"]["namespace"],
            "labels": dict(job["metadata"]["labels"]),
        },
        "spec": {
            "slotsPerWorker": gpus(worker["spec"]),
            "runPolicy": {"cleanPodPolicy": "Running"},
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "template": launcher},
                "Worker": {"replicas": 2, "template": worker},
            },
        },
    }
    assert not sorted(e.message for e in validator.iter_errors(mpijob))
    assert _denied(policy, mpijob) == []
    unlabelled = json.loads(json.dumps(mpijob))
    del unlabelled["metadata"]["labels"][QUEUE_NAME_LABEL]
    assert _denied(policy, unlabelled)
    # one GPU pod set (the launcher requests no GPU, so it gets no flavor under IgnoreUndeclared)
    gpu_sets = [t["spec"] for _, t in embedded_pod_templates(mpijob) if gpus(t["spec"])]
    assert len(gpu_sets) == 1 and gpu_sets[0] is worker["spec"]
    lq = kind(dist["dev"], "LocalQueue")[
        f"{job['metadata']['namespace']}/{job['metadata']['labels'][QUEUE_NAME_LABEL]}"
    ]
    cq = kind(dist["dev"], "ClusterQueue")[lq["spec"]["clusterQueue"]]
    assert [f for f in gpu_flavors(cq) if flavor_fits(worker["spec"], flavors[f])]
    others = set(flavors) - set(gpu_flavors(cq)) - {TEAM_CAP_FLAVOR}
    assert not [f for f in others if flavor_fits(worker["spec"], flavors[f])]


def test_kueue_crd_cel_rules_hold(dist) -> None:
    """Evaluate every x-kubernetes-validations rule of the Kueue CRDs (v0.19.2) on our objects with cel-python, at
    the schema node it is attached to (the JSON-schema validation does not run CEL)."""
    import celpy

    schemas = {}
    for path in CRD_DIR.glob("kueue.x-k8s.io_*.yaml"):
        (crd,) = yaml_documents(path)
        (version,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1beta2"]
        schemas[crd["spec"]["names"]["kind"]] = version["schema"]["openAPIV3Schema"]

    def walk(schema: dict, node: Any, where: str, failures: list[str], counted: list[int]) -> None:
        for rule in schema.get("x-kubernetes-validations", []):
            if "oldSelf" in rule["rule"]:
                continue  # transition rules run on updates only (Kubernetes "Transition rules"); these are creates
            counted[0] += 1
            if not program(rule["rule"]).evaluate({"self": celpy.json_to_cel(node)}):
                failures.append(f"{where}: {rule['message']}")
        if isinstance(node, dict):
            for key, value in node.items():
                if key in schema.get("properties", {}):
                    walk(schema["properties"][key], value, f"{where}.{key}", failures, counted)
        elif isinstance(node, list) and "items" in schema:
            for i, item in enumerate(node):
                walk(schema["items"], item, f"{where}[{i}]", failures, counted)

    for env_name in ENVS:
        for k in KUEUE_KINDS:
            for name, obj in kind(dist[env_name], k).items():
                failures, counted = [], [0]
                walk(schemas[k], obj, f"{k} {name}", failures, counted)
                assert failures == []
                if k == "ClusterQueue":
                    assert counted[0] >= 3  # the rules on spec, resource groups and flavor fungibility ran
    # and the evaluator does reject what the CRD forbids
    cq = json.loads(json.dumps(next(iter(kind(dist["dev"], "ClusterQueue").values()))))
    cq["spec"]["flavorFungibility"]["preference"] = "BorrowingOverPreemption"
    failures: list[str] = []
    walk(schemas["ClusterQueue"], cq, "cq", failures, [0])
    assert any("preference can only be set" in f for f in failures)


# ---- config errors -------------------------------------------------------------------------------------------
def teams(*entries: dict) -> dict:
    return {"kubernetes": {"teams": list(entries)}}


RESEARCH = {"name": "ml-research", "gpu_quota": 16, "allowed_tiers": ["development", "research", "experiment"]}
PLATFORM = {"name": "hyperpod-platform", "gpu_quota": 8, "allowed_tiers": ["production", "development"]}
_DEV = load_config("dev")
RESEARCH_CAPACITIES = ", ".join(c.name for c in tier_capacities("research", capacities(_DEV.compute, _DEV.kubernetes)))
"""What the research tier may run on in dev, in flavor order (from the configuration, not a copy of it)."""


@pytest.mark.parametrize(
    "overrides,message",
    [
        (
            teams({**RESEARCH, "gpu_shares": {"h100-spot": 4}}, PLATFORM),
            r"kubernetes\.teams\[ml-research\]\.gpu_shares names unknown capacity \['h100-spot'\]; shares are keyed by "
            r"a GPU instance group .* gpu-workers, h100-on-demand, a100-spot",
        ),
        (
            teams(
                {**RESEARCH, "gpu_shares": {"h100-on-demand": 12}}, {**PLATFORM, "gpu_shares": {"h100-on-demand": 8}}
            ),
            r"gpu_shares on 'h100-on-demand' add up to 20 GPUs \(ml-research: 12, hyperpod-platform: 8\), more than "
            r"the 16 GPUs 'h100-on-demand' can hold \(kubernetes\.gpu_node_pools\); lower the shares or raise the "
            r"gpu_limit",
        ),
        (
            teams(RESEARCH, {**PLATFORM, "gpu_shares": {"gpu-workers": 2}}),
            r"gpu_shares on 'gpu-workers' add up to 2 GPUs .* more than the 1 GPUs 'gpu-workers' can hold "
            r"\(compute\.hyperpod\.instance_groups\); lower the shares or raise the instance count",
        ),
        (
            teams({**RESEARCH, "gpu_shares": {"h100-on-demand": 10, "a100-spot": 10}}, PLATFORM),
            r"gpu_shares add up to 20 GPUs, more than the team's gpu_quota 16",
        ),
        (
            teams({**RESEARCH, "allowed_tiers": ["experiment"], "gpu_shares": {"h100-on-demand": 4}}, PLATFORM),
            r"gives GPUs on \['h100-on-demand'\], which none of the team's tiers \(experiment\) can use",
        ),
        (
            teams({**RESEARCH, "allowed_tiers": ["research"], "borrowing": False, "gpu_shares": {}}, PLATFORM),
            r"kubernetes\.teams\[ml-research\] may not borrow \(borrowing: false\) and has no gpu_shares on any "
            rf"capacity of its 'research' tier \({re.escape(RESEARCH_CAPACITIES)}\)",
        ),
        (
            teams({**RESEARCH, "gpu_shares": {"a100-spot": -1}}, PLATFORM),
            r"gpu_shares \{'a100-spot': -1\} are negative",
        ),
    ],
)
def test_queueing_config_errors(overrides: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_with("dev", overrides)


def test_tier_with_no_flavor_is_rejected() -> None:
    # no HyperPod GPU group: production (reserved only) has nothing to run on
    cpu_only = {
        "compute": {
            "hyperpod": {"instance_groups": [{"name": "cpu-workers", "instance_type": "ml.m7i.4xlarge", "count": 1}]}
        }
    }
    with pytest.raises(
        ConfigError,
        match=r"kubernetes\.teams\[hyperpod-platform\]\.allowed_tiers has 'production', "
        r"but no reserved GPU capacity is configured for it to run on",
    ):
        config_with("dev", {**cpu_only, **teams(RESEARCH, PLATFORM)})


def test_capacity_names_must_be_unique_flavor_names() -> None:
    pools = raw_config("dev")["kubernetes"]["gpu_node_pools"]
    renamed = [{**pools[0], "name": "gpu-workers"}, *pools[1:]]
    with pytest.raises(ConfigError, match=r"both name 'gpu-workers'; each GPU capacity becomes a Kueue ResourceFlavor"):
        config_with("dev", {"kubernetes": {"gpu_node_pools": renamed, "teams": [RESEARCH, PLATFORM]}})


def test_hyperpod_groups_may_not_set_the_capacity_label() -> None:
    group = {"name": "gpu-workers", "instance_type": "ml.g5.8xlarge", "count": 1, "labels": {"platform/capacity": "x"}}
    with pytest.raises(ConfigError, match=r"labels must not set 'platform/capacity'"):
        config_with("dev", {"compute": {"hyperpod": {"instance_groups": [group]}}})


def test_tier_flavor_order_matches_the_tiers_node_types() -> None:
    from k8s_charts.tiers import JOB_TIERS

    node_type = {"reserved": "hyperpod", "on-demand": "eks-on-demand", "spot": "eks-spot"}
    for name, tier in JOB_TIERS.items():
        assert tier.node_types == tuple(node_type[k] for k in TIER_CAPACITY_ORDER[name])
        assert tier.priority_classes == TIER_PRIORITY_CLASSES[name]


# ---- the controller ------------------------------------------------------------------------------------------
def test_kueue_release_and_configuration(env_synth: Synth) -> None:
    from cdk_constructs.compute.kueue import INTEGRATIONS

    from .test_compute import STACK, helm_releases

    release = helm_releases(env_synth)["kueue"]
    assert (release["Repository"], release["Chart"], release["Version"], release["Namespace"]) == (
        "oci://registry.k8s.io/kueue/charts/kueue",
        "kueue",
        KUEUE_CHART_VERSION,
        "kueue-system",
    )
    values = release["Values"]
    manager = values["controllerManager"]
    assert manager["manager"]["image"] == {
        "repository": "registry.k8s.io/kueue/kueue",
        "tag": f"v{KUEUE_CHART_VERSION}",
        "pullPolicy": "IfNotPresent",
    }
    kueue = env_synth.config.compute.kueue
    assert manager["replicas"] == kueue.replicas
    assert manager["podDisruptionBudget"]["enabled"] is (kueue.replicas > 1)
    assert manager["nodeSelector"] == dict(env_synth.stacks[STACK].system_node_selector)  # the system nodes
    # more than one replica: one per node (the chart's pods carry app.kubernetes.io/name=kueue and
    # control-plane=controller-manager, v0.19.2 charts/kueue/templates/_helpers.tpl kueue.selectorLabels)
    spread = manager.get("topologySpreadConstraints", [])
    assert bool(spread) is (kueue.replicas > 1)
    for constraint in spread:
        assert constraint["topologyKey"] == "kubernetes.io/hostname" and constraint["maxSkew"] == 1
        assert constraint["whenUnsatisfiable"] == "DoNotSchedule"
        assert (
            constraint["labelSelector"]["matchLabels"].items()
            <= {
                "app.kubernetes.io/name": "kueue",
                "app.kubernetes.io/instance": release["Release"],
                "control-plane": "controller-manager",
            }.items()
        )
    conf = yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])
    assert conf["apiVersion"] == "config.kueue.x-k8s.io/v1beta2" and conf["kind"] == "Configuration"
    # false: with the pod integration on, true would gate (forever) every pod of a team namespace whose owner Kueue
    # does not manage, e.g. llmft's CPU-step batch Jobs; unqueued jobs are refused by admission policies instead
    assert conf["manageJobsWithoutQueueName"] is False
    # team namespaces ("true") and the platform namespace ("platform": its gated evaluations, issue 40)
    assert conf["managedJobsNamespaceSelector"] == {
        "matchExpressions": [{"key": "platform/kueue-managed", "operator": "In", "values": ["true", "platform"]}]
    }
    # serving Deployments (issue 34): `deployment`, and `pod` listed so the chart makes its pod webhook fail closed
    assert (
        set(conf["integrations"]["frameworks"])
        == set(INTEGRATIONS)
        == {"kubeflow.org/pytorchjob", "kubeflow.org/mpijob", "ray.io/rayjob", "ray.io/raycluster", "deployment", "pod"}
    )
    ready = conf["waitForPodsReady"]
    assert (ready["timeout"], ready["recoveryTimeout"]) == (kueue.pods_ready_timeout, kueue.pods_ready_recovery_timeout)
    assert ready["requeuingStrategy"]["timestamp"] == "Eviction"
    assert ("backoffLimitCount" in ready["requeuingStrategy"]) is (kueue.requeue_limit is not None)
    assert conf["resources"] == {
        "quotaCheckStrategy": "IgnoreUndeclared",
        "transformations": [{"input": GPU, "strategy": "Retain", "outputs": {TEAM_GPUS: "1"}}],
    }


def test_kueue_is_not_bumped_past_its_pytorchjob_integration() -> None:
    """Kueue v0.19 deprecates the Kubeflow Trainer v1 (PyTorchJob) integration, removal "tentatively v0.20"
    (v0.19.2 site/content/en/docs/tasks/run/kubeflow/pytorchjobs.md). The builders and llmft submit PyTorchJobs, so a
    version without it would run every PyTorchJob unqueued (or refuse it, k8s_charts/queueing.py)."""
    from cdk_constructs.compute.kueue import INTEGRATIONS, KUEUE_VERSION

    major, minor = (int(x) for x in KUEUE_VERSION.split(".")[:2])
    if "kubeflow.org/pytorchjob" in INTEGRATIONS:
        assert (major, minor) <= (0, 19), (
            f"Kueue {KUEUE_VERSION} may have dropped the PyTorchJob integration: move the job builders to TrainJob or "
            f"JobSet first (see cdk_constructs/compute/kueue.py INTEGRATIONS)"
        )


def test_queueing_chart_waits_for_kueue_and_the_namespaces(env_synth: Synth) -> None:
    from .test_compute import STACK, helm_releases

    kueue_lid = helm_releases(env_synth)["kueue"]["LogicalId"]
    manifests = env_synth.resources(STACK, "Custom::AWSCDK-EKS-KubernetesResource")
    (queueing,) = [(lid, r) for lid, r in manifests.items() if "ClusterQueue" in json.dumps(r["Properties"])]
    depends = queueing[1].get("DependsOn", [])
    assert kueue_lid in depends
    assert any("TeamNamespaces" in d for d in depends)


def test_hyperpod_groups_carry_capacity_label(env_synth: Synth) -> None:
    from .test_compute import STACK

    (cluster,) = env_synth.resources(STACK, "AWS::SageMaker::Cluster").values()
    for group in cluster["Properties"]["InstanceGroups"]:
        labels = group["KubernetesConfig"]["Labels"]
        assert labels[CAPACITY_LABEL] == group["InstanceGroupName"]


def test_kueue_crd_copies_are_listed_in_sources() -> None:
    sources = (Path(__file__).resolve().parents[1] / "k8s_charts" / "crds" / "SOURCES.md").read_text()
    for path in (Path(__file__).resolve().parents[1] / "k8s_charts" / "crds").glob("kueue.x-k8s.io_*.yaml"):
        assert path.name in sources
    assert f"| {UPSTREAM['kueue'].ref} (" in sources  # every row's tag: tests/test_versions.py


# ---- serving under Kueue (issue 34) ----------------------------------------------------------------------------
@pytest.mark.parametrize("env", ENVS)
def test_a_burst_of_inference_during_training_hours(dist, env: str) -> None:
    """Where serving replicas land and whom they may preempt (docs/serving.md, "A burst of requests during training
    hours"). Each replica is one plain-pod Workload of the Deployment integration (cdk_constructs/compute/kueue.py
    INTEGRATIONS), queued in its tier's ClusterQueue like a one-pod training job, so a burst is admitted replica by
    replica, by the same flavor order, cap and preemption rules:

    - production replicas land only on the reserved (HyperPod) flavors: the production tier has no Karpenter flavor,
      so beyond reserved capacity a burst waits gated (or preempts, below) and never launches a Karpenter node;
    - they may preempt training of strictly lower PriorityClasses on those flavors (development, research jobs that
      borrowed reserved GPUs), never production training (same priority) and never beyond the team's GPU cap;
    - development replicas try reserved, then on-demand (Karpenter) flavors, and preempt only research and
      experiment work."""
    config = load_config(env)
    caps = {c.name: c for c in capacities(config.compute, config.kubernetes)}
    value = {pc.name: pc.value for pc in config.kubernetes.priority_classes}
    queues = kind(dist[env], "ClusterQueue")
    for team in config.kubernetes.teams:
        for tier in team.allowed_tiers:
            queue = queues[f"{team.name}-{tier}"]
            cq = queue["spec"]
            landing = [caps[f].kind for f in gpu_flavors(queue)]
            if tier == "production":
                assert set(landing) == {"reserved"}, landing  # HyperPod only: no Karpenter burst flavor
            elif tier == "development":  # reserved first, then the on-demand Karpenter pools
                assert landing == sorted(landing, key=["reserved", "on-demand"].index), landing
            # a replica preempts only strictly lower priorities, whether reclaiming or borrowing
            assert cq["preemption"]["borrowWithinCohort"]["policy"] == "LowerPriority"
            assert cq["preemption"]["reclaimWithinCohort"] == "LowerPriority"
            mine = value[TIER_PRIORITY_CLASSES[tier][0]]
            victims = {t for t in TIER_PRIORITY_CLASSES if value[TIER_PRIORITY_CLASSES[t][0]] < mine}
            expected = {
                "production": {"development", "research", "experiment"},
                "development": {"research", "experiment"},
                "research": {"experiment"},
                "experiment": set(),
            }
            assert victims == expected[tier], (tier, victims)
            # the team cap (platform/team-gpus) counts every replica too: a burst never exceeds gpu_quota
            assert TEAM_GPUS in {r for g in cq["resourceGroups"] for r in g["coveredResources"]}
