"""Pod templates of training jobs, written with the typed core `k8s` classes and shared by the job builders.

Every GPU pod: the tier's PriorityClass, node affinity and tolerations; requests equal to limits (CPU, memory,
GPUs, EFA devices); `/dev/shm` as a size-limited memory emptyDir; the team's FSx claim at /fsx (its own tree only,
k8s_charts/team_storage.py); NCCL (and EFA) environment; MLflow's tracking URI and the team's own MLflow
user as environment variables (:func:`mlflow_credentials`: no credentials in the manifest, none fetched by code); the
team's service account (EKS Pod Identity); the team's uid/gid and the `restricted`
Pod Security Standard; `karpenter.sh/do-not-disrupt`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cdk8s
from cdk8s_plus_28 import k8s
from constructs import Construct
from llm_platform.preemption import MAX_GRACE_SECONDS, MIN_GRACE_SECONDS

from config.kubernetes import TeamConfig, gpu_instance_type
from k8s_charts.node_shapes import NodeKind, Resources, kinds_for, pod_request, why_not
from k8s_charts.team_storage import team_paths, team_security_context
from k8s_charts.tiers import (
    EFA_RESOURCE,
    GPU_RESOURCE,
    JobTier,
    cpu_job_node_selector,
    cpu_job_tolerations,
    cpu_priority_class,
)
from k8s_charts.tiers import tier as tier_named
from k8s_charts.values import (
    FSX_CLAIM_NAME,
    FSX_MOUNT_PATH,
    MLFLOW_CONFIG_MAP,
    MLFLOW_CREDENTIALS_SECRET,
    MLFLOW_SECRET_PROVIDER_CLASS,
    TEAM_SERVICE_ACCOUNT,
    PlatformValues,
)

DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"

# Why checkov's long-running-service checks do not apply to training pods (read from the pod template's
# annotations, which tests/test_checkov.py scans as PodTemplates).
CHECKOV_SKIPS = {
    "checkov.io/skip1": "CKV_K8S_8=Batch training pods serve nothing; a liveness probe would kill ranks blocked in "
    "long NCCL collectives. The operator restarts failed pods (restartPolicy OnFailure)",
    "checkov.io/skip2": "CKV_K8S_9=No traffic is routed to training pods, so readiness gates nothing",
    "checkov.io/skip3": "CKV_K8S_43=The platform ECR repository has immutable tags: a tag names exactly one digest",
    "checkov.io/skip4": "CKV_K8S_15=Tags are immutable, so IfNotPresent never runs a stale image and spares "
    "re-pulling multi-GB images on every restart",
    "checkov.io/skip5": "CKV_K8S_35=MLflow clients (Hugging Face report_to mlflow, VeRL's logger) read the team's "
    "MLflow user only from MLFLOW_TRACKING_USERNAME/PASSWORD; the Secret holds nothing else",
}
_JOB_NAME = re.compile(r"[a-z]([-a-z0-9]{0,38}[a-z0-9])?")

# NCCL over EFA through the aws-ofi-nccl plugin shipped in the training image.
EFA_ENV = {"FI_PROVIDER": "efa", "FI_EFA_FORK_SAFE": "1"}
# FI_EFA_USE_DEVICE_RDMA=1 (GPUDirect RDMA) only where the EFA device has RDMA read; libfabric aborts with it on
# g5/g6e. The instance types are aws-ofi-nccl's `gdr_required` platform entries, in its order, first match wins
# (aws/aws-ofi-nccl src/platform-aws.cpp, platform_data_map); anything else (g5, g6e, ...) gets no GPUDirect RDMA.
EFA_GPUDIRECT_RDMA = (
    (r"p4d\.24xlarge", True),
    (r"p4de\.24xlarge", True),
    (r"p3dn\.24xlarge", False),
    (r"p5\.4xlarge", False),
    (r"p5e?\..*", True),
    (r"(p5en|p6-b200).*", True),
    (r"p6-b300.*", True),
    (r"p([5-9]|[0-9]{2,}).*", True),
    (r"g5\.48xlarge", False),
    (r"g7e\.8xlarge", False),
    (r"g7e\.(12|24|48)xlarge", True),
)


def efa_env(instance_type: str) -> dict[str, str]:
    """libfabric's variables for an EFA pod on ``instance_type`` (EC2 or HyperPod `ml.` name)."""
    name = instance_type.removeprefix("ml.")
    rdma = next((gdr for pattern, gdr in EFA_GPUDIRECT_RDMA if re.fullmatch(pattern, name)), False)
    return {**EFA_ENV, **({"FI_EFA_USE_DEVICE_RDMA": "1"} if rdma else {})}


NCCL_ENV = {"NCCL_DEBUG": "WARN", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1"}


MLFLOW_CREDENTIALS_VOLUME = "mlflow-credentials"
MLFLOW_CREDENTIALS_MOUNT_PATH = "/var/run/secrets/mlflow"
SECRETS_STORE_CSI_DRIVER = "secrets-store.csi.k8s.io"


@dataclass(frozen=True)
class PodWiring:
    """What a pod needs for one concern: container `envFrom` sources, pod volumes, container volume mounts."""

    env_from: tuple[k8s.EnvFromSource, ...] = ()
    volumes: tuple[k8s.Volume, ...] = ()
    volume_mounts: tuple[k8s.VolumeMount, ...] = ()


def mlflow_credentials() -> PodWiring:
    """MLflow for a container of a team pod, with no code: `MLFLOW_TRACKING_URI` from the namespace's ConfigMap
    `mlflow`, `MLFLOW_TRACKING_USERNAME`/`MLFLOW_TRACKING_PASSWORD` (the team's own MLflow user) from the Secret
    `mlflow-credentials`.

    That Secret exists only while a pod mounts the Secrets Store CSI volume of the namespace's SecretProviderClass
    `mlflow-credentials` (the driver creates it at mount time from the team's Secrets Manager secret, with the pod's
    Pod Identity), so the wiring includes that volume, mounted read-only. The kubelet mounts volumes before it
    creates containers, so the Secret is there when the container's environment is resolved. Job builders call this
    once per container (:func:`job_pod_template` does).
    """
    return PodWiring(
        env_from=(
            k8s.EnvFromSource(config_map_ref=k8s.ConfigMapEnvSource(name=MLFLOW_CONFIG_MAP)),
            k8s.EnvFromSource(secret_ref=k8s.SecretEnvSource(name=MLFLOW_CREDENTIALS_SECRET)),
        ),
        volumes=(
            k8s.Volume(
                name=MLFLOW_CREDENTIALS_VOLUME,
                csi=k8s.CsiVolumeSource(
                    driver=SECRETS_STORE_CSI_DRIVER,
                    read_only=True,
                    volume_attributes={"secretProviderClass": MLFLOW_SECRET_PROVIDER_CLASS},
                ),
            ),
        ),
        volume_mounts=(
            k8s.VolumeMount(name=MLFLOW_CREDENTIALS_VOLUME, mount_path=MLFLOW_CREDENTIALS_MOUNT_PATH, read_only=True),
        ),
    )


def q(value: str | int) -> k8s.Quantity:
    return k8s.Quantity.from_number(value) if isinstance(value, int) else k8s.Quantity.from_string(value)


def validate_job_name(name: str) -> str:
    if not _JOB_NAME.fullmatch(name):
        raise ValueError(
            f"job name {name!r} is not valid; use 1-40 lower-case letters, digits and '-', starting "
            f"with a letter (pods and services are named after it)"
        )
    return name


def resolve_tier(team: TeamConfig, tier: JobTier | str) -> JobTier:
    """The tier (by object or name) if ``team`` may use it, else a ValueError."""
    resolved = tier_named(tier) if isinstance(tier, str) else tier
    if resolved.name not in team.allowed_tiers:
        raise ValueError(
            f"team {team.name!r} may not submit {resolved.name!r} jobs; its allowed tiers "
            f"(kubernetes.teams[].allowed_tiers) are {', '.join(team.allowed_tiers)}"
        )
    return resolved


@dataclass(frozen=True)
class GpuNodeShape:
    """What one job pod takes of one GPU node, sized from the node kinds it may land on (k8s_charts.node_shapes)."""

    instance_type: str
    gpus: int
    efa_devices: int
    cpu: int
    memory_gib: int
    shm_gib: int
    kinds: tuple[NodeKind, ...] = field(repr=False)
    node_types: tuple[str, ...] | None = None
    """The `node-type`s the pod's affinity allows, when narrower than its tier's (set by :meth:`only`)."""

    def only(self, kinds: Sequence[NodeKind]) -> GpuNodeShape:
        """This shape, allowed only on ``kinds``: its affinity keeps just their `node-type`s and instance types.
        Kueue assigns one of their flavors to all pods of a pod set."""
        return replace(self, node_types=tuple(dict.fromkeys(k.node_type for k in kinds)), kinds=tuple(kinds))

    @classmethod
    def of(
        cls,
        instance_type: str,
        *,
        kinds: Sequence[NodeKind],
        tier: str = "",
        gpus: int | None = None,
        efa: bool | None = None,
        cpu: int | None = None,
        memory_gib: int | None = None,
        shm_gib: int | None = None,
    ) -> GpuNodeShape:
        """``kinds``: every node kind the pod's affinity allows (node_shapes.kinds_for(values.node_kinds, tier=...,
        instance_type=...)). Defaults: all GPUs of the instance, EFA when every kind has it, and a GPU-proportional
        share of the smallest allocatable (after kubelet reservations and DaemonSets) in whole cores and GiB; shm a
        quarter of memory up to 64 GiB. Explicit cpu/memory_gib must fit every kind."""
        info = gpu_instance_type("instance_type", instance_type)
        gpus = info.gpus if gpus is None else gpus
        if not 1 <= gpus <= info.gpus:
            raise ValueError(
                f"gpus_per_node {gpus} is not possible on {instance_type}, which has {info.gpus} GPUs; "
                f"use 1 to {info.gpus} or a larger instance type"
            )
        if not kinds:
            raise ValueError(
                f"no node of tier {tier!r} runs {instance_type} in this environment, so the pod could "
                f"never be scheduled; pick an instance type of the tier's HyperPod groups or GPU pools"
            )
        with_efa = [k for k in kinds if k.allocatable.efa]
        if efa and len(with_efa) < len(kinds):
            missing = ", ".join(k.name for k in kinds if not k.allocatable.efa)
            raise ValueError(
                f"efa was requested but {missing} ({instance_type}) has no EFA interfaces; use an EFA "
                f"node kind or efa=False"
            )
        efa = (len(with_efa) == len(kinds)) if efa is None else efa
        request = pod_request(kinds, gpus, efa=bool(efa))
        cpu = cpu or max(1, request.cpu_m // 1000)
        memory_gib = memory_gib or max(1, request.memory_mib // 1024)
        shm_gib = shm_gib or max(1, min(64, memory_gib // 4))
        if shm_gib >= memory_gib:
            raise ValueError(
                f"shm_gib {shm_gib} must be below memory_gib {memory_gib}: /dev/shm is memory the "
                f"container's limit counts"
            )
        wanted = Resources(cpu_m=cpu * 1000, memory_mib=memory_gib * 1024, gpus=gpus, efa=request.efa)
        for kind in kinds:
            problem = why_not(wanted, kind)
            if problem:
                raise ValueError(
                    f"a pod of {cpu} CPU / {memory_gib}Gi / {gpus} GPU does not fit {kind.name} "
                    f"({kind.instance_type}, allocatable {kind.allocatable.describe()}): {problem}"
                )
        return cls(instance_type, gpus, request.efa, cpu, memory_gib, shm_gib, tuple(kinds))

    @property
    def efa(self) -> bool:
        return self.efa_devices > 0

    def request(self) -> Resources:
        return Resources(cpu_m=self.cpu * 1000, memory_mib=self.memory_gib * 1024, gpus=self.gpus, efa=self.efa_devices)

    def resources(self) -> k8s.ResourceRequirements:
        amounts = {"cpu": q(self.cpu), "memory": q(f"{self.memory_gib}Gi"), GPU_RESOURCE: q(self.gpus)}
        if self.efa_devices:
            amounts[EFA_RESOURCE] = q(self.efa_devices)
        return k8s.ResourceRequirements(requests=amounts, limits=dict(amounts))


def node_kinds_for(values: PlatformValues, tier: JobTier, instance_type: str) -> tuple[NodeKind, ...]:
    """The node kinds a GPU pod of ``tier`` pinned to ``instance_type`` may land on."""
    if not values.node_kinds:
        raise ValueError(
            "values.node_kinds is empty; build the values with PlatformValues.placeholders(config) or "
            "pass node_kinds=node_shapes.node_kinds(config)"
        )
    return kinds_for(values.node_kinds, tier=tier.name, instance_type=instance_type)


def restricted_container_security() -> k8s.SecurityContext:
    return k8s.SecurityContext(
        allow_privilege_escalation=False,
        privileged=False,
        read_only_root_filesystem=True,
        run_as_non_root=True,
        capabilities=k8s.Capabilities(drop=["ALL"]),
        seccomp_profile=k8s.SeccompProfile(type="RuntimeDefault"),
    )


def restricted_container_security_json(user: int) -> dict[str, Any]:
    """:func:`restricted_container_security` in manifest form, running as ``user`` (for builders that write pod specs
    as dicts: the platform namespace's Jobs and CronJob, which Pod Security ``restricted`` admits)."""
    return {
        "allowPrivilegeEscalation": False,
        "privileged": False,
        "readOnlyRootFilesystem": True,
        "runAsNonRoot": True,
        "runAsUser": user,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def team_dir(values: PlatformValues, team: TeamConfig) -> str:
    """The root of the team's tree in a pod (``/fsx``: its PV mounts only /teams/<team>, linked to its S3 prefix).
    Prefer :func:`k8s_charts.team_storage.team_paths`."""
    del values
    return team_paths(team).root


def image(values: PlatformValues, image: str) -> str:
    """The URI of ``image``: a platform image name (``sft``, ``verl-sglang``; see k8s_charts/images.py) or a full
    ``registry/repository:tag`` (or ``@sha256:``) reference."""
    if image in values.images:
        return values.images[image]
    if not re.fullmatch(
        r"[^\s:/@]+(\.[^\s:/@]+)*(:\d+)?/[a-z0-9._/-]+(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}|@sha256:[0-9a-f]{64})", image
    ) or image.endswith(":latest"):
        known = ", ".join(values.images) or "none configured"
        raise ValueError(
            f"image {image!r} is neither a platform image ({known}) nor a pinned reference "
            f"registry/repository:tag; use a platform image name or an immutable tag"
        )
    return image


@dataclass(frozen=True)
class PodSettings:
    """Inputs of :func:`job_pod_template` that vary per container."""

    container_name: str
    image: str
    command: Sequence[str] | None = None
    args: Sequence[str] | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    ports: Sequence[tuple[str, int]] = ()
    # terminationGracePeriodSeconds: a training pod's is sized from its checkpoint (llm_platform.preemption)
    grace_seconds: int = MIN_GRACE_SECONDS
    # the container's preStop exec command: Kubernetes runs it before SIGTERM, within the grace period (a GRPO job's
    # Ray pods: llm_platform.grpo_stop)
    pre_stop: Sequence[str] | None = None

    def __post_init__(self) -> None:
        if self.grace_seconds > MAX_GRACE_SECONDS:  # the team guard rails would refuse the job (guardrails/common.py)
            raise ValueError(
                f"grace_seconds {self.grace_seconds} is above the platform's cap {MAX_GRACE_SECONDS} "
                f"(llm_platform.preemption.MAX_GRACE_SECONDS): team namespaces admit no longer grace period"
            )


def job_pod_template(
    *,
    job_name: str,
    component: str,
    team: TeamConfig,
    tier: JobTier,
    priority_class: str,
    values: PlatformValues,
    settings: PodSettings,
    shape: GpuNodeShape | None,
    zone: str | None,
    cpu: int | str = 2,
    memory_gib: int = 8,
    shm_gib: int | None = None,
    restart_policy: str | None = None,
) -> k8s.PodTemplateSpec:
    """A pod template of ``job_name``. With ``shape`` it is a GPU pod placed by ``tier``; without, a small CPU
    pod (Ray head, submitter, llmft CPU step) that runs on the Karpenter CPU pool's nodes only (its taint and its
    node label: k8s_charts/karpenter.py), never on GPU or system nodes, at its class's non-preempting CPU twin.
    ``cpu``: cores or a quantity such as ``"500m"``; requests equal limits."""
    env = _job_env(job_name, team=team, values=values, shape=shape, settings=settings)
    mlflow = mlflow_credentials()
    mounts, volumes = _job_volumes(mlflow, shape=shape, shm_gib=shm_gib, memory_gib=memory_gib)
    resources, affinity, tolerations = _job_placement(tier, shape, zone=zone, cpu=cpu, memory_gib=memory_gib)
    container = k8s.Container(
        name=settings.container_name,
        image=settings.image,
        image_pull_policy="IfNotPresent",
        command=list(settings.command) if settings.command else None,
        args=list(settings.args) if settings.args else None,
        env=[k8s.EnvVar(name=k, value=v) for k, v in env.items()],
        env_from=list(mlflow.env_from),
        ports=[k8s.ContainerPort(name=n, container_port=p) for n, p in settings.ports] or None,
        resources=resources,
        security_context=restricted_container_security(),
        volume_mounts=mounts,
        lifecycle=(
            k8s.Lifecycle(pre_stop=k8s.LifecycleHandler(exec=k8s.ExecAction(command=list(settings.pre_stop))))
            if settings.pre_stop
            else None
        ),
    )
    labels = {
        "app.kubernetes.io/name": job_name,
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/part-of": "llm-platform",
        "platform/team": team.name,
        "platform/tier": tier.name,
    }
    return k8s.PodTemplateSpec(
        metadata=k8s.ObjectMeta(labels=labels, annotations={DO_NOT_DISRUPT: "true", **CHECKOV_SKIPS}),
        spec=k8s.PodSpec(
            # a CPU pod uses the class's non-preempting twin (k8s_charts/tiers.py CPU_CLASS_SUFFIX)
            priority_class_name=priority_class if shape else cpu_priority_class(priority_class),
            service_account_name=TEAM_SERVICE_ACCOUNT,
            automount_service_account_token=False,
            security_context=team_security_context(team),
            affinity=affinity,
            node_selector=None if shape else cpu_job_node_selector(),  # the CPU pool, never the system nodes
            tolerations=tolerations,
            containers=[container],
            volumes=volumes,
            restart_policy=restart_policy,
            termination_grace_period_seconds=settings.grace_seconds,
        ),
    )


def _job_env(
    job_name: str, *, team: TeamConfig, values: PlatformValues, shape: GpuNodeShape | None, settings: PodSettings
) -> dict[str, str]:
    """The environment of a job's container: team paths, MLflow experiment, NCCL/EFA and the job's own."""
    data_dir = team_dir(values, team)
    env = {
        "HOME": "/tmp",
        "TEAM_DATA_DIR": data_dir,
        "HF_HOME": team_paths(team).hf_cache,
        "MLFLOW_EXPERIMENT_NAME": f"{team.name}/{job_name}",
        **NCCL_ENV,
        **(efa_env(shape.instance_type) if shape and shape.efa else {}),
        **settings.env,
    }
    return env


def _job_volumes(
    mlflow: PodWiring, *, shape: GpuNodeShape | None, shm_gib: int | None, memory_gib: int
) -> tuple[list[k8s.VolumeMount], list[k8s.Volume]]:
    """(mounts, volumes) of a job pod: FSx, /tmp, MLflow credentials and, where it has one, /dev/shm."""
    mounts = [
        k8s.VolumeMount(name="fsx", mount_path=FSX_MOUNT_PATH),
        k8s.VolumeMount(name="tmp", mount_path="/tmp"),
        *mlflow.volume_mounts,
    ]
    volumes = [
        k8s.Volume(
            name="fsx", persistent_volume_claim=k8s.PersistentVolumeClaimVolumeSource(claim_name=FSX_CLAIM_NAME)
        ),
        k8s.Volume(name="tmp", empty_dir=k8s.EmptyDirVolumeSource(size_limit=q("50Gi"))),
        *mlflow.volumes,
    ]
    shm_gib = shape.shm_gib if shape else shm_gib  # CPU pods get a /dev/shm only when asked (Ray heads)
    if shm_gib:
        if not shape and shm_gib >= memory_gib:
            raise ValueError(
                f"shm_gib {shm_gib} must be below memory_gib {memory_gib}: /dev/shm is memory the "
                f"container's limit counts"
            )
        mounts.append(k8s.VolumeMount(name="dshm", mount_path="/dev/shm"))
        volumes.append(
            k8s.Volume(name="dshm", empty_dir=k8s.EmptyDirVolumeSource(medium="Memory", size_limit=q(f"{shm_gib}Gi")))
        )
    return mounts, volumes


def _job_placement(
    tier: JobTier, shape: GpuNodeShape | None, *, zone: str | None, cpu: int | str, memory_gib: int
) -> tuple[k8s.ResourceRequirements, k8s.Affinity | None, list[k8s.Toleration]]:
    """(resources, affinity, tolerations): a GPU pod placed by ``tier``, else a CPU pod off the GPU nodes."""
    if shape:
        resources = shape.resources()
        affinity = tier.affinity(
            instance_type=shape.instance_type,
            zone=zone,
            extra=_health(tier),
            node_types=shape.node_types,
            instance_types=tuple(k.instance_type for k in shape.kinds),
        )
        tolerations = tier.tolerations()
    else:
        amounts = {"cpu": q(cpu), "memory": q(f"{memory_gib}Gi")}
        resources = k8s.ResourceRequirements(requests=amounts, limits=dict(amounts))
        affinity, tolerations = None, cpu_job_tolerations()
    return resources, affinity, tolerations


def _health(tier: JobTier) -> list[k8s.NodeSelectorRequirement]:
    """HyperPod-only tiers also require nodes that passed HyperPod's health checks (EC2 nodes lack the label,
    so tiers that may burst cannot require it; HyperPod taints unhealthy nodes anyway)."""
    if tier.node_types == ("hyperpod",):
        return [
            k8s.NodeSelectorRequirement(
                key="sagemaker.amazonaws.com/node-health-status", operator="In", values=["Schedulable"]
            )
        ]
    return []


def scratch_chart() -> cdk8s.Chart:
    """A chart outside any app that is synthesized: typed objects are rendered there, then copied."""
    return cdk8s.Chart(cdk8s.App(), "render")


def pod_template_json(template: k8s.PodTemplateSpec) -> dict:
    """The manifest form of a typed pod template, rendered by cdk8s itself (for CRD fields that embed one)."""
    return k8s.KubePodTemplate(scratch_chart(), "template", template=template).to_json()["template"]


def with_pod_templates(
    scope: Construct, construct_id: str, typed: cdk8s.ApiObject, templates: Mapping[str, dict]
) -> cdk8s.ApiObject:
    """Copy ``typed`` (a generated CRD object, built in a :func:`scratch_chart`) into ``scope`` and put the
    rendered pod ``templates`` at their JSON pointers (relative to the manifest root).

    Why: the job CRDs embed PodTemplateSpec; their generated classes re-map every field on output, which drops
    values of the core `k8s` Quantity type. So the CRD part is written with the generated classes, the pod part
    with the core `k8s` classes, and the two rendered manifests are joined here.
    """
    manifest = typed.to_json()
    for pointer, template in templates.items():
        *parents, last = pointer.strip("/").split("/")
        node = manifest
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[last] = template
    meta = manifest["metadata"]
    obj = cdk8s.ApiObject(
        scope,
        construct_id,
        api_version=manifest["apiVersion"],
        kind=manifest["kind"],
        metadata=cdk8s.ApiObjectMetadata(
            name=meta["name"],
            namespace=meta.get("namespace"),
            labels=meta.get("labels"),
            annotations=meta.get("annotations"),
        ),
    )
    obj.add_json_patch(cdk8s.JsonPatch.add("/spec", manifest["spec"]))
    return obj
