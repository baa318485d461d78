"""k8s charts: every manifest of dist/<env>/ validates; tiers, priorities, node pools, namespaces, job pods."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import cdk8s
import pytest

from config import load_config
from config.instances import find_spec
from config.kubernetes import GPU_INSTANCE_TYPES, TIER_PRIORITY_CLASSES, TIERS
from k8s_charts.images import image_uri
from k8s_charts.pytorch_job import ElasticPyTorchJob
from k8s_charts.ray_job import GrpoParameters, VerlGrpoRayJob
from k8s_charts.tiers import JOB_TIERS
from k8s_charts.validation import CRD_DIR, embedded_pod_templates, kubernetes_schema_version, validate
from k8s_charts.values import PlatformValues

from .conftest import ENVIRONMENTS, ROOT, config_with

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

CHARTS = {
    "priority-classes",
    "gpu-capacity",
    "cpu-capacity",
    "team-namespaces",
    "queueing",
    "example-sft",
    "example-eval",
    "example-grpo",
}


@pytest.fixture(scope="module")
def dist(k8s_dist) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """env -> chart -> manifests, written by the same code `make synth` runs (tests/conftest.py)."""
    return k8s_dist


def objects(dist_env: dict[str, list[dict]], kind: str) -> dict[str, dict]:
    return {
        f"{d['metadata'].get('namespace', '')}/{d['metadata']['name']}".lstrip("/"): d
        for docs in dist_env.values()
        for d in docs
        if d["kind"] == kind
    }


def pod_specs(doc: dict) -> dict[str, dict]:
    return {path: tpl for path, tpl in embedded_pod_templates(doc)}


def build(factory) -> dict:
    """Render one construct built by ``factory(chart)`` and return its single manifest."""
    chart = cdk8s.Chart(cdk8s.App(), "test")
    factory(chart)
    docs = chart.to_json()
    assert len(docs) == 1
    return docs[0]


DEV = load_config("dev")
VALUES = PlatformValues.placeholders(DEV)


def first_team(config, tier: str, *, without: str | None = None):
    """The first configured team that may submit ``tier`` (and not ``without``): the examples pick teams this way."""
    return next(t for t in config.kubernetes.teams if tier in t.allowed_tiers and without not in t.allowed_tiers)


RESEARCH = first_team(DEV, "research", without="production")
PLATFORM = first_team(DEV, "production")
P4D_POOL = next(p.name for p in DEV.kubernetes.gpu_node_pools if "p4d.24xlarge" in p.instance_types)
PROD = load_config("prod")
PROD_VALUES = PlatformValues.placeholders(PROD)
# An instance type each tier can run in dev (HyperPod group, on-demand pool, spot pool).
DEV_INSTANCE = {
    "production": "ml.g5.8xlarge",
    "development": "p5.48xlarge",
    "research": "p4d.24xlarge",
    "experiment": "p4d.24xlarge",
}


def pytorch_job(chart, **overrides) -> ElasticPyTorchJob:
    args = dict(
        name="job",
        team=PLATFORM,
        tier="development",
        values=VALUES,
        instance_type="p5.48xlarge",
        entrypoint=["-m", "train"],
        image="sft",
    )
    return ElasticPyTorchJob(chart, "Job", **{**args, **overrides})


GRPO = dict(
    model_path="/fsx/data/m",
    train_files="/fsx/data/t.parquet",
    val_files="/fsx/data/v.parquet",
    checkpoint_dir="/fsx/data/ckpt",
    nodes=2,
    gpus_per_node=8,
)


# ---- dist and validation -------------------------------------------------------------------------------------
@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_dist_holds_every_chart(dist, env: str) -> None:
    assert set(dist[env]) == CHARTS


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_manifest_validates(dist, env: str) -> None:
    version = load_config(env).compute.kubernetes_version
    docs = [d for chart in dist[env].values() for d in chart]
    errors = [e for d in docs for e in validate(d, version)]
    assert errors == []
    kinds = {d["kind"] for d in docs}
    assert {
        "NodePool",
        "EC2NodeClass",
        "PyTorchJob",
        "RayJob",
        "PriorityClass",
        "Namespace",
        "ResourceQuota",
        "LimitRange",
        "ServiceAccount",
        "PersistentVolume",
        "PersistentVolumeClaim",
        "ConfigMap",
        "ResourceFlavor",
        "Cohort",
        "ClusterQueue",
        "LocalQueue",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
    } <= kinds
    assert kubernetes_schema_version(version) == f"{version}.0"  # the configured version's schemas are bundled


def test_validation_catches_mistakes(dist) -> None:
    dev, version = dist["dev"], DEV.compute.kubernetes_version
    pool = copy.deepcopy(objects(dev, "NodePool")[DEV.kubernetes.gpu_node_pools[0].name])
    pool["spec"]["disruption"]["consolidateAfterr"] = "1m"
    pool["spec"]["weight"] = "high"
    errors = validate(pool, version)
    assert any("consolidateAfterr" in e for e in errors) and any("'high' is not of type 'integer'" in e for e in errors)
    job = copy.deepcopy(next(iter(objects(dev, "PyTorchJob").values())))
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["resources"]["limits"] = 8
    assert any("is not of type 'object'" in e for e in validate(job, version))
    quota = copy.deepcopy(objects(dev, "ResourceQuota")[f"{DEV.kubernetes.teams[0].namespace}/compute"])
    quota["spec"]["hardd"] = {}
    assert validate(quota, version)
    assert validate({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "x"}}, version)


def test_no_null_values(dist) -> None:
    def walk(node: Any, path: str) -> list[str]:
        if node is None:
            return [path]
        if isinstance(node, dict):
            return [p for k, v in node.items() for p in walk(v, f"{path}/{k}")]
        if isinstance(node, list):
            return [p for i, v in enumerate(node) for p in walk(v, f"{path}/{i}")]
        return []

    assert [p for env in dist.values() for docs in env.values() for d in docs for p in walk(d, d["kind"])] == []


def _vendored_crds() -> dict[str, tuple[int, str]]:
    """File -> (size, SHA-256) of every vendored CRD (the k8s_charts/crds/SOURCES.md table)."""
    rows = [
        line.split("|")
        for line in (CRD_DIR / "SOURCES.md").read_text().splitlines()
        if line.startswith("| ") and line.split("|")[1].strip().endswith(".yaml") and line.count("|") >= 9
    ]
    return {r[1].strip(): (int(r[7].strip()), r[8].strip()) for r in rows}


def test_vendored_crds_are_the_upstream_bytes() -> None:
    """Every CRD in k8s_charts/crds is listed with its upstream tag, size and SHA-256: any edit, and any file without
    a row (or a row without its file), fails here."""
    vendored = _vendored_crds()
    assert sorted(vendored) == sorted(p.name for p in CRD_DIR.glob("*.yaml"))
    for name, (size, sha256) in vendored.items():
        data = (CRD_DIR / name).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (size, sha256), f"{name} is not the upstream file"


def test_vendored_crds_are_what_the_table_says() -> None:
    """Each file is one apiextensions.k8s.io/v1 CRD of the group, kind and scope its SOURCES.md row names."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    rows = [
        line.split("|")
        for line in (CRD_DIR / "SOURCES.md").read_text().splitlines()
        if line.startswith("| ") and line.split("|")[1].strip().endswith(".yaml") and line.count("|") >= 9
    ]
    for row in rows:
        name, group_kind = row[1].strip(), row[5].strip()
        (crd,) = [d for d in yaml.load_all((CRD_DIR / name).read_text(), Loader=loader) if d]
        assert (crd["apiVersion"], crd["kind"]) == ("apiextensions.k8s.io/v1", "CustomResourceDefinition"), name
        spec = crd["spec"]
        assert group_kind == f"{spec['group']} / {spec['names']['kind']} ({spec['scope']})", name


def test_make_imports_reads_only_vendored_crds() -> None:
    """`make imports` regenerates every binding from a file in k8s_charts/crds (a fresh clone has nothing beside
    it), and checks every input before it deletes a binding."""
    makefile = (ROOT / "Makefile").read_text()
    assert "../" not in makefile.split("\nimports:", 1)[1].split("\n\n", 1)[0]
    inputs = {m.split(":=")[1] for m in makefile.split("K8S_IMPORTS :=", 1)[1].split("\n\n", 1)[0].split() if ":=" in m}
    assert inputs and inputs <= set(_vendored_crds()), inputs - set(_vendored_crds())
    recipe = makefile.split("\nimports:", 1)[1].split("\n\n", 1)[0]
    assert recipe.index("test -f") < recipe.index("rm -rf"), "check the inputs before deleting the bindings"


def test_generated_imports_are_committed_for_each_crd() -> None:
    imports = ROOT / "k8s_charts" / "imports"
    for module in (
        "nodepool/sh/karpenter",
        "ec2nodeclass/aws/k8s/karpenter",
        "pytorchjob/org/kubeflow",
        "mpijob/org/kubeflow",
        "rayjob/io/ray",
        "raycluster/io/ray",
        "resourceflavor/io/x_k8s/kueue",
        "cohort/io/x_k8s/kueue",
        "clusterqueue/io/x_k8s/kueue",
        "localqueue/io/x_k8s/kueue",
        "secretproviderclass/io/x_k8s/csi/secrets_store",
        "scaledobject/sh/keda",
    ):
        assert (imports / module / "__init__.py").is_file(), module


# ---- PriorityClasses -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_priority_classes(dist, env: str) -> None:
    """The configured classes with their values; the tiers' order (production first) is the values' order."""
    config = load_config(env)
    classes = objects(dist[env], "PriorityClass")
    from k8s_charts.tiers import cpu_priority_class

    # each configured class and its non-preempting CPU twin (issue 40: CPU pods never preempt across teams)
    configured = {p.name: p.value for p in config.kubernetes.priority_classes}
    twins = {cpu_priority_class(n): v for n, v in configured.items()}
    assert {n: c["value"] for n, c in classes.items()} == {**configured, **twins}
    assert {classes[t]["preemptionPolicy"] for t in twins} == {"Never"}
    defaults = [classes[TIER_PRIORITY_CLASSES[tier][0]]["value"] for tier in TIERS]
    assert defaults == sorted(defaults, reverse=True), "each tier's default class outranks the next tier's"
    for c in classes.values():
        assert c["globalDefault"] is False
        assert c["preemptionPolicy"] in ("PreemptLowerPriority", "Never")
        assert len(c["description"]) > 30
    assert classes["preemptible"]["preemptionPolicy"] == "Never"
    assert classes["critical"]["preemptionPolicy"] == "PreemptLowerPriority"


# ---- Karpenter -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_node_pools_never_evict_training(dist, env: str) -> None:
    """Every configured GPU pool, as configured: limits, disruption, weight, labels Kueue selects on, EFA zone."""
    config = load_config(env)
    pools = objects(dist[env], "NodePool")
    assert set(pools) == {p.name for p in config.kubernetes.gpu_node_pools} | {config.kubernetes.cpu_node_pool.name}
    for pool in config.kubernetes.gpu_node_pools:
        spec = pools[pool.name]["spec"]
        assert spec["disruption"]["consolidationPolicy"] == "WhenEmpty"
        assert spec["disruption"]["consolidateAfter"] == pool.consolidate_after
        assert spec["template"]["spec"]["expireAfter"] == pool.expire_after
        assert spec["template"]["spec"]["terminationGracePeriod"] == pool.termination_grace_period
        assert spec["limits"] == {"nvidia.com/gpu": pool.gpu_limit}
        assert spec["weight"] == pool.weight
        assert spec["template"]["spec"]["taints"] == [
            {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
        ]
        (gpu_type,) = {find_spec(t).gpu_type for t in pool.instance_types}
        assert spec["template"]["metadata"]["labels"] == {
            "node-type": f"eks-{pool.capacity_type}",
            "gpu-type": gpu_type,
            "platform/capacity": pool.name,
        }
        reqs = {r["key"]: r["values"] for r in spec["template"]["spec"]["requirements"]}
        assert reqs["karpenter.sh/capacity-type"] == [pool.capacity_type]
        assert reqs["node.kubernetes.io/instance-type"] == list(pool.instance_types)
        # EFA needs the HyperPod AZ (one placement for the interconnect); other pools may use any AZ
        assert reqs.get("topology.kubernetes.io/zone") == (
            [config.network.hyperpod.availability_zone] if pool.efa else None
        )


def test_ec2_node_classes(dist) -> None:
    classes = objects(dist["dev"], "EC2NodeClass")
    classes.pop(DEV.kubernetes.cpu_node_pool.name)  # test_cpu_job_pool
    for nc in classes.values():
        spec = nc["spec"]
        assert spec["amiSelectorTerms"] == [{"alias": "bottlerocket@latest"}]
        assert spec["metadataOptions"]["httpTokens"] == "required"
        assert spec["metadataOptions"]["httpPutResponseHopLimit"] == 1
        tags = {"karpenter.sh/discovery": "llmft-dev-eks"}
        assert spec["subnetSelectorTerms"] == [{"tags": tags}]
        assert spec["securityGroupSelectorTerms"] == [{"tags": tags}]
        assert [d["deviceName"] for d in spec["blockDeviceMappings"]] == ["/dev/xvda", "/dev/xvdb"]
        assert all(
            d["ebs"]["encrypted"] and d["ebs"]["kmsKeyID"] == "${PLATFORM_KMS_KEY_ARN}"
            for d in spec["blockDeviceMappings"]
        )
        assert spec["instanceStorePolicy"] == "RAID0"
        assert spec["role"] == "${KARPENTER_NODE_ROLE_NAME}"
    for pool in DEV.kubernetes.gpu_node_pools:
        spec = classes[pool.name]["spec"]
        if not pool.efa:
            assert "networkInterfaces" not in spec
            continue
        nics = spec["networkInterfaces"]
        assert nics[0] == {"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"}
        # one EFA interface per network card of the instance type (config/data/instance_specs.yaml)
        cards = {find_spec(t).efa_interfaces for t in pool.instance_types}
        assert len([n for n in nics if n["interfaceType"] == "efa-only"]) == min(cards) > 0


def _cpu_job_templates(docs: list[dict]) -> list[tuple[str, dict]]:
    """Every pod template of a job without GPUs in the manifests (Ray heads and submitters, llmft CPU steps)."""
    out = []
    for doc in docs:
        for path, template in embedded_pod_templates(doc):
            resources = [c.get("resources", {}) for c in template["spec"]["containers"]]
            if not any("nvidia.com/gpu" in r.get("limits", {}) for r in resources):
                out.append((f"{doc['kind']} {doc['metadata']['name']} {path}", template))
    return out


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_cpu_job_pool(dist, env: str) -> None:
    """The Karpenter pool of the CPU job pods follows kubernetes.cpu_node_pool, launches on-demand nodes only in the
    HyperPod AZ, caps vCPUs, consolidates idle nodes, and only the CPU job pods tolerate its taint."""
    from k8s_charts.pods import DO_NOT_DISRUPT
    from k8s_charts.tiers import CPU_JOBS_TAINT, cpu_job_node_selector

    config = load_config(env)
    pool_config = config.kubernetes.cpu_node_pool
    docs = [d for chart_docs in dist[env].values() for d in chart_docs]
    pool = objects(dist[env], "NodePool")[pool_config.name]["spec"]
    node_class = objects(dist[env], "EC2NodeClass")[pool_config.name]["spec"]
    key, value, effect = CPU_JOBS_TAINT
    assert pool["template"]["spec"]["taints"] == [{"key": key, "value": value, "effect": effect}]
    assert pool["limits"] == {"cpu": pool_config.cpu_limit}
    assert pool["disruption"]["consolidationPolicy"] == "WhenEmptyOrUnderutilized"
    assert pool["disruption"]["consolidateAfter"] == pool_config.consolidate_after
    assert (pool["template"]["spec"]["expireAfter"], pool["template"]["spec"]["terminationGracePeriod"]) == (
        pool_config.expire_after,
        pool_config.termination_grace_period,
    )
    requirements = {r["key"]: (r["operator"], r["values"]) for r in pool["template"]["spec"]["requirements"]}
    assert requirements == {
        "node.kubernetes.io/instance-type": ("In", list(pool_config.instance_types)),
        "karpenter.sh/capacity-type": ("In", ["on-demand"]),
        "kubernetes.io/os": ("In", ["linux"]),
        "topology.kubernetes.io/zone": ("In", [config.network.hyperpod.availability_zone]),
    }
    assert pool["template"]["spec"]["nodeClassRef"] == {
        "group": "karpenter.k8s.aws",
        "kind": "EC2NodeClass",
        "name": pool_config.name,
    }
    # the GPU node classes' AMI alias (Karpenter v1.14.1 resolves its standard variant for types without GPUs),
    # subnets, security group, role and IMDS; no EFA interfaces or instance store RAID
    gpu_class = objects(dist[env], "EC2NodeClass")[config.kubernetes.gpu_node_pools[0].name]["spec"]
    for field in ("amiSelectorTerms", "subnetSelectorTerms", "securityGroupSelectorTerms", "role", "metadataOptions"):
        assert node_class[field] == gpu_class[field], field
    assert "networkInterfaces" not in node_class and "instanceStorePolicy" not in node_class
    data = next(d for d in node_class["blockDeviceMappings"] if d.get("rootVolume"))
    assert data["ebs"]["volumeSize"] == f"{pool_config.data_volume_gib}Gi" and data["ebs"]["encrypted"]

    cpu_pods = _cpu_job_templates(docs)
    assert {path.split()[-1].lstrip("/") for path, _ in cpu_pods} >= {
        "spec/rayClusterSpec/headGroupSpec/template",
        "spec/submitterPodTemplate",
    }
    toleration = {"key": key, "operator": "Equal", "value": value, "effect": effect}
    for where, template in cpu_pods:
        assert toleration in template["spec"]["tolerations"], where
        assert template["spec"]["nodeSelector"] == cpu_job_node_selector(), where  # never the system nodes
        # consolidation never takes a node from under a running job pod
        assert template["metadata"]["annotations"][DO_NOT_DISRUPT] == "true", where
    for doc in docs:  # nothing else tolerates the taint, so nothing else makes Karpenter launch a CPU node
        for path, template in embedded_pod_templates(doc):
            if (f"{doc['kind']} {doc['metadata']['name']} {path}", template) not in cpu_pods:
                assert key not in {t.get("key") for t in template["spec"].get("tolerations") or []}, path


# ---- team namespaces -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_team_namespace(dist, env: str) -> None:
    """Every team of the environment, as configured: restricted namespace, GPU quota, only its tiers' priority
    classes, its own FSx tree."""
    from k8s_charts.tiers import cpu_priority_class

    docs = dist[env]
    quotas = objects(docs, "ResourceQuota")
    for team in load_config(env).kubernetes.teams:
        ns, name = team.namespace, team.name
        labels = objects(docs, "Namespace")[ns]["metadata"]["labels"]
        assert {labels[f"pod-security.kubernetes.io/{m}"] for m in ("enforce", "audit", "warn")} == {"restricted"}
        # CPU/memory: test_team_guardrails
        assert quotas[f"{ns}/compute"]["spec"]["hard"]["requests.nvidia.com/gpu"] == team.gpu_quota
        guard = quotas[f"{ns}/disallowed-priority-classes"]["spec"]
        assert guard["hard"] == {"pods": 0}
        assert guard["scopeSelector"]["matchExpressions"] == [
            {
                "scopeName": "PriorityClass",
                "operator": "NotIn",
                "values": [c for pc in team.allowed_priority_classes for c in (pc, cpu_priority_class(pc))],
            }
        ]
        assert f"{ns}/container-defaults" in objects(docs, "LimitRange")
        assert objects(docs, "ServiceAccount")[f"{ns}/training"]["automountServiceAccountToken"] is False
        pv = objects(docs, "PersistentVolume")[f"fsx-{name}"]["spec"]
        # only the team's own tree (a Lustre subdirectory mount; k8s_charts/team_storage.py)
        assert pv["csi"] == {
            "driver": "fsx.csi.aws.com",
            "volumeHandle": "${FSX_FILE_SYSTEM_ID}",
            "volumeAttributes": {"dnsname": "${FSX_DNS_NAME}", "mountname": f"${{FSX_MOUNT_NAME}}/teams/{name}"},
        }
        assert pv["claimRef"] == {"namespace": ns, "name": "fsx-claim"}
        assert (pv["storageClassName"], pv["accessModes"], pv["persistentVolumeReclaimPolicy"]) == (
            "",
            ["ReadWriteMany"],
            "Retain",
        )
        pvc = objects(docs, "PersistentVolumeClaim")[f"{ns}/fsx-claim"]["spec"]
        assert (pvc["volumeName"], pvc["storageClassName"]) == (f"fsx-{name}", "")
        assert set(objects(docs, "ConfigMap")[f"{ns}/mlflow"]["data"]) == {"MLFLOW_TRACKING_URI"}


def test_each_team_syncs_only_its_own_mlflow_user(dist) -> None:
    """Per configured team: a SecretProviderClass that fetches that team's secret (and no other) with the pod's own
    Pod Identity and syncs it into the Secret the job pods read as MLFLOW_TRACKING_USERNAME/PASSWORD. The platform
    namespace's one (the promotion Job's check, issue 40) fetches the evaluator's secret and nothing else."""
    from k8s_charts.serving import PROMOTION_NAMESPACE
    from k8s_charts.values import EVALUATOR_SECRET_ARN_PLACEHOLDER, mlflow_secret_arn_placeholder

    for env, docs in dist.items():
        config = load_config(env)
        classes = objects(docs, "SecretProviderClass")
        platform = f"{PROMOTION_NAMESPACE}/mlflow-credentials"
        evaluator = {platform} if config.mlflow.authentication == "basic-auth" else set()
        assert set(classes) == {f"{t.namespace}/mlflow-credentials" for t in config.kubernetes.teams} | evaluator
        if evaluator:
            (obj,) = json.loads(classes[platform]["spec"]["parameters"]["objects"])
            assert obj["objectName"] == EVALUATOR_SECRET_ARN_PLACEHOLDER
        for team in config.kubernetes.teams:
            spec = classes[f"{team.namespace}/mlflow-credentials"]["spec"]
            assert spec["provider"] == "aws"
            assert spec["parameters"]["usePodIdentity"] == "true" and spec["parameters"]["region"] == config.region
            (obj,) = json.loads(spec["parameters"]["objects"])
            assert obj["objectName"] == mlflow_secret_arn_placeholder(team.name)
            assert {j["path"]: j["objectAlias"] for j in obj["jmesPath"]} == {
                "username": "username",
                "password": "password",
            }
            (synced,) = spec["secretObjects"]
            assert synced["secretName"] == "mlflow-credentials" and synced["type"] == "Opaque"
            assert {d["key"]: d["objectName"] for d in synced["data"]} == {
                "MLFLOW_TRACKING_USERNAME": "username",
                "MLFLOW_TRACKING_PASSWORD": "password",
            }


# ---- tiers ---------------------------------------------------------------------------------------------------
def _placement(spec: dict) -> tuple[list[str], set[tuple]]:
    affinity = spec["affinity"]["nodeAffinity"]
    required = {
        e["key"]: e["values"]
        for e in affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchExpressions"]
    }
    assert "preferredDuringSchedulingIgnoredDuringExecution" not in affinity  # Kueue's flavor order decides
    tolerations = {(t["key"], t.get("value"), t["effect"]) for t in spec["tolerations"]}
    return required["node-type"], tolerations


@pytest.mark.parametrize(
    "tier,priority,required,hyperpod_toleration",
    [
        ("production", "critical", ["hyperpod"], True),
        ("development", "high", ["hyperpod", "eks-on-demand"], True),
        ("research", "medium", ["hyperpod", "eks-spot"], True),
        ("experiment", "low", ["eks-spot"], False),
    ],
)
def test_tier_placement(tier: str, priority: str, required: list[str], hyperpod_toleration: bool) -> None:
    doc = build(lambda c: pytorch_job(c, tier=tier, instance_type=DEV_INSTANCE[tier]))
    spec = doc["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]
    node_types, tolerations = _placement(spec)
    assert (spec["priorityClassName"], node_types) == (priority, required)
    assert ("nvidia.com/gpu", None, "NoSchedule") in tolerations
    assert (("dedicated", "hyperpod", "NoSchedule") in tolerations) is hyperpod_toleration
    assert JOB_TIERS[tier].priority_class == priority
    assert doc["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == tier


def test_production_tier_requires_healthy_hyperpod_nodes_and_auto_resume() -> None:
    doc = build(
        lambda c: pytorch_job(
            c,
            tier="production",
            instance_type="ml.p5.48xlarge",
            values=PROD_VALUES,
            team=first_team(PROD, "production"),
        )
    )
    reqs = {
        e["key"]: e["values"]
        for e in doc["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"
        ]["nodeSelectorTerms"][0]["matchExpressions"]
    }
    assert reqs["sagemaker.amazonaws.com/node-health-status"] == ["Schedulable"]
    assert reqs["node.kubernetes.io/instance-type"] == ["p5.48xlarge", "ml.p5.48xlarge"]
    assert doc["metadata"]["annotations"]["sagemaker.amazonaws.com/enable-job-auto-resume"] == "true"


def test_experiment_may_be_preemptible() -> None:
    doc = build(lambda c: pytorch_job(c, tier="experiment", priority_class="preemptible", instance_type="p4d.24xlarge"))
    assert doc["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["priorityClassName"] == "preemptible"


# ---- job pods ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_pytorch_job_is_elastic_torchrun(dist, env: str) -> None:
    job = objects(dist[env], "PyTorchJob")[f"{first_team(load_config(env), 'production').namespace}/llama-sft-lora"]
    # production runs on the first HyperPod GPU group: its instance type, at most 2 of its nodes
    group = load_config(env).compute.hyperpod.instance_groups[0]
    nodes, gpus = min(2, group.count), GPU_INSTANCE_TYPES[group.instance_type.removeprefix("ml.")].gpus
    assert job["spec"]["elasticPolicy"] == {
        "rdzvBackend": "c10d",
        "rdzvPort": 29400,
        "minReplicas": 1,
        "maxReplicas": nodes,
        "maxRestarts": 3,
    }
    assert job["spec"]["nprocPerNode"] == str(gpus)
    worker = job["spec"]["pytorchReplicaSpecs"]["Worker"]
    assert (worker["restartPolicy"], worker["replicas"]) == ("OnFailure", nodes)
    container = worker["template"]["spec"]["containers"][0]
    assert container["command"] == ["torchrun"] and container["name"] == "pytorch"
    assert container["args"][:3] == ["-m", "llm_platform.sft", "--config"]
    assert container["image"] == image_uri(load_config(env), "sft")
    # finished = quota released by Kueue: no pod may keep running (and holding GPUs) after that
    assert job["spec"]["runPolicy"]["cleanPodPolicy"] in ("Running", "All")


def test_job_pods_are_secure_and_complete(dist) -> None:
    from k8s_charts.tiers import cpu_priority_class

    jobs = [*objects(dist["dev"], "PyTorchJob").values(), *objects(dist["dev"], "RayJob").values()]
    templates = [(job["metadata"]["name"], path, tpl) for job in jobs for path, tpl in pod_specs(job).items()]
    assert len(templates) == 2 + 3  # two PyTorchJobs (Worker) + RayJob (head, worker group, submitter)
    for name, path, tpl in templates:
        spec = tpl["spec"]
        assert tpl["metadata"]["annotations"]["karpenter.sh/do-not-disrupt"] == "true", (name, path)
        assert spec["securityContext"]["runAsNonRoot"] is True
        assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        assert spec["automountServiceAccountToken"] is False and spec["serviceAccountName"] == "training"
        classes = ("critical", "high", "medium")  # GPU pods; CPU pods (Ray head, submitter): their CPU twins
        assert spec["priorityClassName"] in (*classes, *map(cpu_priority_class, classes))
        assert all("hostPath" not in v for v in spec["volumes"])
        assert {"name": "fsx", "persistentVolumeClaim": {"claimName": "fsx-claim"}} in spec["volumes"]
        # The Secret exists only while a pod mounts a CSI volume of the class that syncs it.
        assert {
            "name": "mlflow-credentials",
            "csi": {
                "driver": "secrets-store.csi.k8s.io",
                "readOnly": True,
                "volumeAttributes": {"secretProviderClass": "mlflow-credentials"},
            },
        } in spec["volumes"]
        for c in spec["containers"]:
            sc = c["securityContext"]
            assert (
                sc["allowPrivilegeEscalation"],
                sc["privileged"],
                sc["readOnlyRootFilesystem"],
                sc["capabilities"],
            ) == (False, False, True, {"drop": ["ALL"]})
            assert c["resources"]["requests"] == c["resources"]["limits"]
            # MLflow without code: tracking URI from the ConfigMap, the team's user from the synced Secret.
            assert c["envFrom"] == [{"configMapRef": {"name": "mlflow"}}, {"secretRef": {"name": "mlflow-credentials"}}]
            assert {"name": "mlflow-credentials", "mountPath": "/var/run/secrets/mlflow", "readOnly": True} in c[
                "volumeMounts"
            ]
            assert not any(
                e["name"].startswith(("MLFLOW_TRACKING_PASSWORD", "MLFLOW_TRACKING_TOKEN", "AWS_SECRET"))
                for e in c["env"]
            )
        gpus = spec["containers"][0]["resources"]["limits"].get("nvidia.com/gpu")
        if gpus:
            shm = next(v for v in spec["volumes"] if v["name"] == "dshm")
            assert shm["emptyDir"]["medium"] == "Memory" and shm["emptyDir"]["sizeLimit"].endswith("Gi")
            assert any(t["key"] == "nvidia.com/gpu" for t in spec["tolerations"])
        else:
            # head and submitter stay off GPU nodes: they tolerate only the CPU job pool's taint
            assert [t["key"] for t in spec["tolerations"]] == ["llmft.io/cpu-jobs"]


def test_efa_requests_and_environment() -> None:
    doc = build(lambda c: pytorch_job(c))
    container = doc["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"]["vpc.amazonaws.com/efa"] == 32
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 8
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["FI_PROVIDER"] == "efa" and env["NCCL_DEBUG"] == "WARN"
    doc = build(lambda c: pytorch_job(c, efa=False, gpus_per_node=4, procs_per_node=4))
    container = doc["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    assert "vpc.amazonaws.com/efa" not in container["resources"]["limits"]
    assert "FI_PROVIDER" not in {e["name"] for e in container["env"]}


def test_ray_nodes_write_group_writable_files(dist, tmp_path) -> None:
    """KubeRay v1.7.0 runs the Ray container as `/bin/bash -c -- "<args> && ulimit ...; ray start ..."` (common/
    pod.go BuildPod): our args, run by a real bash the same way, leave what Ray's processes create group read-write
    and closed to others (Studio users of the team share its gid, not its uid)."""
    import stat
    import subprocess

    grpo = objects(dist["dev"], "RayJob")[f"{first_team(DEV, 'development').namespace}/qwen-grpo"]
    spec = grpo["spec"]["rayClusterSpec"]
    for i, tpl in enumerate([spec["headGroupSpec"]["template"], *(g["template"] for g in spec["workerGroupSpecs"])]):
        (args,) = tpl["spec"]["containers"][0]["args"]
        out = tmp_path / str(i)
        script = f"{args} && ulimit -n 1024; mkdir -p {out}/ckpt && touch {out}/ckpt/model.safetensors"
        subprocess.run(["/bin/bash", "-c", "--", f"umask 022; {script}"], check=True, timeout=30)
        for path in (out / "ckpt", out / "ckpt" / "model.safetensors"):
            mode = stat.S_IMODE(path.stat().st_mode)
            assert mode & 0o060 == 0o060 and mode & 0o007 == 0, (path, oct(mode))


def test_ray_job(dist) -> None:
    job = objects(dist["dev"], "RayJob")[f"{first_team(DEV, 'development').namespace}/qwen-grpo"]
    spec = job["spec"]
    # the Ray cluster goes with the job: Kueue releases the quota the moment the RayJob finishes, so GPU workers
    # kept for a TTL would hold capacity already given to the next job
    assert (spec["submissionMode"], spec["shutdownAfterJobFinishes"], spec["ttlSecondsAfterFinished"]) == (
        "K8sJobMode",
        True,
        0,
    )
    # llmp-grpo composes these with VeRL's defaults and runs VeRL's checks before Ray starts
    # (training/tests/test_grpo_config.py validates the same overrides against the pinned VeRL).
    assert spec["entrypoint"].startswith("python3 -m llm_platform.grpo algorithm.adv_estimator=grpo ")
    for override in (
        "actor_rollout_ref.rollout.name=sglang",
        "actor_rollout_ref.rollout.n=5",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16",
        "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=16",
        "trainer.resume_mode=auto",
        "trainer.checkpoint_callback_class=llm_platform.grpo_save.SaveOnEviction",  # save on eviction (issue 44)
        "actor_rollout_ref.rollout.tensor_model_parallel_size=2",
        "trainer.nnodes=2",
        "trainer.n_gpus_per_node=8",
        "trainer.save_freq=20",
        "trainer.default_local_dir=/fsx/checkpoints/qwen-grpo",
    ):
        assert f" {override} " in f" {spec['entrypoint']} "
    group = spec["rayClusterSpec"]["workerGroupSpecs"][0]
    assert (group["replicas"], group["minReplicas"], group["maxReplicas"]) == (2, 2, 2)
    # Ray token auth: KubeRay (>= 1.5.1, pinned 1.7.0) refuses mode token unless rayVersion >= 2.52.0
    cluster = spec["rayClusterSpec"]
    assert cluster["authOptions"] == {"mode": "token"}
    assert tuple(int(p) for p in cluster["rayVersion"].split(".")) >= (2, 52, 0)
    worker = group["template"]["spec"]
    assert _placement(worker)[0] == ["hyperpod", "eks-on-demand"]
    assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "development"
    assert worker["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == 8
    head = spec["rayClusterSpec"]["headGroupSpec"]
    assert head["rayStartParams"]["num-cpus"] == "0" and "affinity" not in head["template"]["spec"]
    assert spec["submitterPodTemplate"]["spec"]["restartPolicy"] == "Never"
    # save on eviction (issue 44): the Ray processes outlive SIGTERM's delivery until the run saved
    # (tests/test_grace_period.py checks the hook and the sized grace as llmft renders them)
    for pod in (head["template"]["spec"], worker):
        assert pod["containers"][0]["lifecycle"]["preStop"]["exec"]["command"][:3] == [
            "python3",
            "-m",
            "llm_platform.grpo_stop",
        ]


# ---- bad input -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "overrides,message",
    [
        ({"tier": "gold"}, r"unknown job tier 'gold'; use one of production, development, research, experiment"),
        ({"team": RESEARCH, "tier": "production"}, rf"team '{RESEARCH.name}' may not submit 'production' jobs"),
        ({"min_nodes": 3, "max_nodes": 2}, r"min_nodes 3 / max_nodes 2 are not a valid elastic range"),
        ({"min_nodes": 0}, r"min_nodes 0 / max_nodes 0 are not a valid elastic range"),
        ({"gpus_per_node": 16}, r"gpus_per_node 16 is not possible on p5.48xlarge, which has 8 GPUs"),
        ({"instance_type": "g5.2xlarge"}, r"no node of tier 'development' runs g5.2xlarge in this environment"),
        (
            {"instance_type": "p4d.24xlarge", "team": RESEARCH, "tier": "research", "efa": True},
            rf"efa was requested but karpenter/{P4D_POOL}/p4d.24xlarge \(p4d.24xlarge\) has no EFA interfaces",
        ),
        ({"instance_type": "m7i.large"}, r"instance_type 'm7i.large' is not a known GPU instance type"),
        ({"priority_class": "critical"}, r"priority class 'critical' is not allowed in tier 'development'"),
        ({"procs_per_node": 9}, r"procs_per_node 9 must be 1 to gpus_per_node \(8\)"),
        ({"name": "Bad_Name"}, r"job name 'Bad_Name' is not valid"),
        ({"image": "a b"}, r"image 'a b' is neither a platform image \(sft, verl-sglang\) nor a pinned reference"),
        ({"image": "public.ecr.aws/x/y:latest"}, r"is neither a platform image"),
        ({"image": "trainer"}, r"image 'trainer' is neither a platform image"),
        ({"entrypoint": []}, r"entrypoint is empty"),
    ],
)
def test_pytorch_job_bad_input(overrides: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build(lambda c: pytorch_job(c, **overrides))


@pytest.mark.parametrize(
    "overrides,message",
    [
        ({"tensor_parallel_size": 3}, r"tensor_parallel_size 3 must divide gpus_per_node 8"),
        ({"rollout_n": 1}, r"rollout_n: 1 is out of range: use a value >= 2"),
        ({"model_path": "/data/m"}, r"model_path '/data/m' is not on the FSx mount"),
        ({"nodes": 0}, r"nodes: 0 is out of range: use a value >= 1"),
        ({"ppo_mini_batch_size": 100}, r"ppo_mini_batch_size 100 must divide train_batch_size 256"),
    ],
)
def test_grpo_parameters_bad_input(overrides: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GrpoParameters(**{**GRPO, **overrides})


def test_ray_job_gpus_beyond_instance() -> None:
    with pytest.raises(ValueError, match=r"gpus_per_node 8 is not possible on g5.12xlarge, which has 4 GPUs"):
        build(
            lambda c: VerlGrpoRayJob(
                c,
                "Job",
                name="rl",
                team=RESEARCH,
                tier="research",
                values=VALUES,
                instance_type="g5.12xlarge",
                image="verl-sglang",
                params=GrpoParameters(**GRPO),
            )
        )


def test_examples_follow_configured_teams(tmp_path: Path) -> None:
    cfg = config_with(
        "dev",
        {
            "kubernetes": {
                "teams": [
                    {"name": "ml-research", "allowed_tiers": ["research"]},
                    {"name": "hyperpod-platform", "allowed_tiers": ["research"]},
                ]
            }
        },
    )
    from k8s_charts.examples import example_charts

    charts = example_charts(cdk8s.App(), cfg, PlatformValues.placeholders(cfg))
    assert set(charts) == {"example-eval"}


def test_team_namespace_without_mlflow_has_no_config_map() -> None:
    from dataclasses import replace

    from k8s_charts.team_namespaces import TeamNamespacesChart

    chart = TeamNamespacesChart(cdk8s.App(), "t", teams=DEV.kubernetes.teams, values=replace(VALUES, mlflow=None))
    objs = chart.to_json()
    assert "SecretProviderClass" not in {d["kind"] for d in objs}
    assert "mlflow" not in {d["metadata"]["name"] for d in objs if d["kind"] == "ConfigMap"}


def test_team_namespaces_get_the_platform_image_uris(dist) -> None:
    """ConfigMap platform-images in every team namespace: one key per image, the URI the environment builds."""
    for env in ENVIRONMENTS:
        cfg = load_config(env)
        maps = objects(dist[env], "ConfigMap")
        for team in cfg.kubernetes.teams:
            data = maps[f"{team.namespace}/platform-images"]["data"]
            assert data == {name: image_uri(cfg, name) for name in ("sft", "verl-sglang")}
            assert all(
                uri.startswith(f"{cfg.account}.dkr.ecr.{cfg.region}.amazonaws.com/llmft-{env}/")
                for uri in data.values()
            )


def test_gpu_type_labels_match_hyperpod_nodes() -> None:
    from config.compute import GPU_TYPE_BY_FAMILY
    from config.kubernetes import GPU_INSTANCE_TYPES

    for name, info in GPU_INSTANCE_TYPES.items():
        assert GPU_TYPE_BY_FAMILY["ml." + name.rsplit(".", 1)[0]] == info.gpu_type


def test_job_builders_take_platform_image_names_or_pinned_references() -> None:
    """A platform image name resolves to the URI the environment builds; a pinned foreign reference passes as is."""
    from dataclasses import replace

    pod = lambda job: job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]  # noqa: E731
    assert pod(build(lambda c: pytorch_job(c, image="verl-sglang")))["image"] == image_uri(DEV, "verl-sglang")
    pinned = "123456789012.dkr.ecr.us-east-1.amazonaws.com/other/trainer@sha256:" + "a" * 64
    assert pod(build(lambda c: pytorch_job(c, image=pinned)))["image"] == pinned
    with pytest.raises(ValueError, match=r"neither a platform image \(none configured\)"):
        build(lambda c: pytorch_job(c, values=replace(VALUES, images={})))


def test_unbundled_kubernetes_version_falls_back_to_newest_with_a_warning() -> None:
    import kubernetes_validate

    with pytest.warns(UserWarning, match=r"no schemas for Kubernetes 9.99; validating core kinds against"):
        assert kubernetes_schema_version("9.99") == kubernetes_validate.latest_version()


# ---- examples ------------------------------------------------------------------------------------------------
ENTRY_POINTS = {
    "llm_platform.download_model",
    "llm_platform.prepare_data",
    "llm_platform.sft",
    "llm_platform.evaluate",
    "llm_platform.grpo",
}


def _gpus(pod: dict) -> int:
    return sum(int(c["resources"].get("limits", {}).get("nvidia.com/gpu", 0)) for c in pod["spec"]["containers"])


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_examples_run_the_training_package_in_platform_images_within_quota(dist, env: str) -> None:
    """Derived from every example job of the environment: its image is one the platform builds (the URI of
    k8s_charts/images.py for this environment), PyTorchJobs run an llm_platform entry point under torchrun,
    RayJobs run VeRL's GRPO and declare the image's Ray, and all its GPU pods together fit the team's GPU quota.
    (That every pod fits the node kinds of its tier is tests/test_node_shapes.py's check over all of dist/.)"""
    from k8s_charts.images import image_uris, locked_version

    cfg = load_config(env)
    built = set(image_uris(cfg).values())
    examples = {name: docs for name, docs in dist[env].items() if name.startswith("example-")}
    assert examples
    for docs in examples.values():
        for job in (d for d in docs if d["kind"] in ("PyTorchJob", "RayJob")):
            team = cfg.kubernetes.team(job["metadata"]["namespace"])
            gpus = 0
            for path, tpl in pod_specs(job).items():
                for container in tpl["spec"]["containers"]:
                    assert container["image"] in built, (job["metadata"]["name"], container["image"])
                if job["kind"] == "PyTorchJob":
                    args = tpl["spec"]["containers"][0]["args"]
                    assert args[0] == "-m" and args[1] in ENTRY_POINTS and args[2] == "--config", args
                    gpus += _gpus(tpl) * job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"]
                elif "workerGroupSpecs" in path:
                    gpus += _gpus(tpl) * job["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["replicas"]
            if job["kind"] == "RayJob":
                assert job["spec"]["entrypoint"].startswith(("python3 -m llm_platform.grpo", "llmp-grpo"))
                assert job["spec"]["rayClusterSpec"]["rayVersion"] == locked_version("verl-sglang", "ray")
            assert 0 < gpus <= team.gpu_quota, (job["metadata"]["name"], gpus, team.gpu_quota)


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_ray_object_store_fits_each_pods_shared_memory(dist, env: str) -> None:
    """Every Ray pod has a memory-backed /dev/shm and its object store (`object-store-memory`) fits in it."""
    from k8s_charts.node_shapes import parse_quantity

    for job in objects(dist[env], "RayJob").values():
        cluster = job["spec"]["rayClusterSpec"]
        groups = [("head", cluster["headGroupSpec"])] + [("worker", g) for g in cluster["workerGroupSpecs"]]
        for name, group in groups:
            shm = next(v for v in group["template"]["spec"]["volumes"] if v["name"] == "dshm")["emptyDir"]
            assert shm["medium"] == "Memory"
            shm_mib = parse_quantity(shm["sizeLimit"], cpu=False)
            store_mib = int(group["rayStartParams"]["object-store-memory"]) / 2**20
            assert 0.5 * shm_mib <= store_mib < shm_mib, (name, store_mib, shm_mib)
            mounts = {m["mountPath"] for m in group["template"]["spec"]["containers"][0]["volumeMounts"]}
            assert "/dev/shm" in mounts


def test_cpu_pod_shared_memory_must_leave_room_for_the_process() -> None:
    from k8s_charts.pods import PodSettings, job_pod_template
    from k8s_charts.tiers import tier as tier_named

    with pytest.raises(ValueError, match=r"shm_gib 4 must be below memory_gib 4"):
        job_pod_template(
            job_name="j",
            component="head",
            team=RESEARCH,
            tier=tier_named("research"),
            priority_class="medium",
            values=VALUES,
            settings=PodSettings("c", "img"),
            shape=None,
            zone=None,
            cpu=1,
            memory_gib=4,
            shm_gib=4,
        )
