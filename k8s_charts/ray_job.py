"""RayJob (KubeRay ray.io/v1) builder for VeRL GRPO reinforcement learning with SGLang rollouts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cdk8s import ApiObjectMetadata
from constructs import Construct

# The GRPO configuration lives in the training package (standard library only), which validates it against
# VeRL's own schema and checks (training/tests/test_grpo_config.py); the RayJob runs exactly its entrypoint.
from llm_platform.grpo_config import GrpoParameters  # noqa: E402,I001
from llm_platform.grpo_stop import RAY_EXIT_SECONDS, hook_command  # noqa: E402,I001
from llm_platform.paths import TEAM_UMASK  # noqa: E402,I001
from llm_platform.preemption import MIN_GRACE_SECONDS  # noqa: E402,I001

from config.kubernetes import TeamConfig
from k8s_charts.images import locked_version
from k8s_charts.imports.rayjob.io import ray
from k8s_charts.node_shapes import NodeKind
from k8s_charts.pods import (
    GpuNodeShape,
    PodSettings,
    job_pod_template,
    node_kinds_for,
    pod_template_json,
    resolve_tier,
    scratch_chart,
    team_dir,
    validate_job_name,
    with_pod_templates,
)
from k8s_charts.pods import image as image_ref
from k8s_charts.queues import queue_labels
from k8s_charts.tiers import JobTier
from k8s_charts.values import PlatformValues

__all__ = ["GrpoParameters", "PlatformRayJob", "VerlGrpoRayJob", "MIN_TOKEN_AUTH_RAY"]

# Ray in the training image (images/verl-sglang/requirements.lock: 2.55.1, the line KubeRay v1.7.0 tests). Token
# authentication needs Ray >= 2.52.0 (https://docs.ray.io/en/latest/ray-security/token-auth.html); KubeRay validates
# spec.rayVersion against it.
RAY_VERSION = locked_version("verl-sglang", "ray")
MIN_TOKEN_AUTH_RAY = (2, 52, 0)


def version_tuple(version: str) -> tuple[int, ...]:
    """(2, 55, 1) of '2.55.1' (pre-release and local suffixes ignored); ValueError when it is not a version."""
    import re

    match = re.match(r"^(\d+)\.(\d+)(?:\.(\d+))?", version)
    if not match:
        raise ValueError(f"ray version {version!r} is not a version such as 2.55.1")
    return tuple(int(p or 0) for p in match.groups())


def check_ray_version(version: str) -> str:
    """``version`` if it supports the token authentication every platform RayJob uses, else a ValueError."""
    if version_tuple(version) < MIN_TOKEN_AUTH_RAY:
        minimum = ".".join(map(str, MIN_TOKEN_AUTH_RAY))
        raise ValueError(
            f"Ray {version} is older than {minimum}, the first release with token authentication, "
            f"which every platform RayJob uses (KubeRay refuses authOptions.mode token below it); use an "
            f"image with Ray >= {minimum} (the platform's verl-sglang image has {RAY_VERSION})"
        )
    return version


# (CPU, GiB) of the pods without GPUs, requests equal to limits. They tolerate only the Karpenter CPU pool's taint:
# a system node with room, else a CPU pool node (k8s_charts/karpenter.py). The head runs `num-cpus: 0` (tasks and
# actors go to the GPU workers): GCS, dashboard and the job driver, which imports VeRL/torch, so half a core but
# 4 GiB (1 of them /dev/shm). The submitter only runs `ray job submit` and tails the logs: KubeRay's default
# submitter requests 500m CPU and limits memory to 1Gi (ray-project/kuberay v1.7.0
# ray-operator/controllers/ray/common/job.go GetDefaultSubmitterContainer, lines 230-245).
# tests/test_node_shapes.py checks every rendered pod fits every node kind it may land on.
CPU_POD_SIZES = {"head": ("500m", 4), "submitter": ("500m", 1)}
# Ray's object store lives in /dev/shm (it falls back to slow /tmp when /dev/shm is smaller than the store): each
# Ray pod gets a memory-backed /dev/shm and `--object-store-memory` is this share of it (the rest is left to NCCL,
# which also uses /dev/shm for intra-node transport). The head stores next to nothing (no tasks run there).
HEAD_SHM_GIB = 1
# What the Ray head and workers run before `ray start`: KubeRay v1.7.0 (controllers/ray/common/pod.go BuildPod) makes
# the Ray container `/bin/bash -c -- "<our args> && ulimit -n ...; ray start ..."`, so the umask is inherited by the
# raylet and every Ray worker process (VeRL's actors write the checkpoints): group read-write on the team tree,
# like the training package's entry points (llm_platform.paths.TEAM_UMASK).
RAY_NODE_ARGS = {node: [f"umask {TEAM_UMASK:04o}"] for node in ("head", "worker")}
OBJECT_STORE_SHARE_OF_SHM = 0.8


def object_store_bytes(shm_gib: int) -> str:
    """`--object-store-memory` for a pod whose /dev/shm is ``shm_gib`` GiB."""
    return str(int(shm_gib * 2**30 * OBJECT_STORE_SHARE_OF_SHM))


class PlatformRayJob(Construct):
    """A RayJob that starts a Ray cluster (CPU head + one GPU worker group placed by tier), runs ``entrypoint`` on
    the head through a submitter Kubernetes Job (`K8sJobMode`) and deletes the cluster when it finishes. Any Ray
    program: :class:`VerlGrpoRayJob` is this with VeRL's GRPO entrypoint; `llmft` custom Ray jobs run the user's.

    The head and the submitter are small CPU pods without GPU tolerations: they run on a system node with room or
    on the Karpenter CPU pool, never on a GPU node. Every pod carries the tier's PriorityClass (team quotas refuse pods
    without one), the restricted security context and `karpenter.sh/do-not-disrupt`. The RayJob names the tier's
    LocalQueue; Kueue admits the head, the GPU workers and the submitter as one workload (the RayCluster it creates is
    owned by the RayJob and needs no queue of its own).

    ``grace_seconds`` and ``pre_stop`` are the head's and the GPU workers' ``terminationGracePeriodSeconds`` and
    ``preStop`` command (the Ray processes of both must outlive a save on eviction: :class:`VerlGrpoRayJob`); the
    submitter only follows the driver's log (the driver runs on the head) and keeps the platform's minimum.

    ``ttl_seconds_after_finished`` (default 0) is how long the Ray cluster outlives the job. Kueue releases the
    job's quota as soon as KubeRay marks it Complete or Failed (Kueue v0.19.2 rayjob_controller.go `Finished`), while
    KubeRay deletes the cluster only at end time + TTL (KubeRay v1.7.0 rayjob_controller.go
    `handleShutdownAfterJobFinishes`): any TTL is time in which the GPU workers hold capacity Kueue has already given
    to the next job. The submitter Job, with the driver's logs, is kept either way; metrics and checkpoints are on
    MLflow and FSx.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        name: str,
        team: TeamConfig,
        tier: JobTier | str,
        values: PlatformValues,
        instance_type: str,
        image: str,
        entrypoint: str,
        nodes: int,
        gpus_per_node: int,
        efa: bool | None = None,
        priority_class: str | None = None,
        env: Mapping[str, str] | None = None,
        ttl_seconds_after_finished: int = 0,
        active_deadline_seconds: int | None = None,
        zone: str | None = None,
        ray_version: str | None = None,
        node_kinds: Sequence[NodeKind] | None = None,
        grace_seconds: int = MIN_GRACE_SECONDS,
        pre_stop: Sequence[str] | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        validate_job_name(name)
        self.tier = resolve_tier(team, tier)
        self.priority_class = self.tier.priority_class_for(priority_class)
        self.shape = GpuNodeShape.of(
            instance_type,
            kinds=node_kinds or node_kinds_for(values, self.tier, instance_type),
            tier=self.tier.name,
            gpus=gpus_per_node,
            efa=efa,
        )
        if node_kinds:  # resolved by the caller (llmft): the pods may use exactly these kinds
            self.shape = self.shape.only(node_kinds)
        self.ray_version = check_ray_version(ray_version or RAY_VERSION)
        ray_node = dict(grace_seconds=grace_seconds, pre_stop=pre_stop)  # head and GPU workers, not the submitter
        pods = dict(
            name=name,
            team=team,
            values=values,
            zone=zone or values.hyperpod_availability_zone,
            image=image_ref(values, image),
            env={
                "TEAM_DIR": team_dir(values, team),
                # MLflow samples CPU/GPU/memory of every process that opens the run (llmp-grpo, VeRL's logger)
                "MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING": "true",
                **(env or {}),
            },
        )
        typed = self._typed_job(
            name=name,
            team=team,
            entrypoint=entrypoint,
            nodes=nodes,
            ttl_seconds_after_finished=ttl_seconds_after_finished,
            active_deadline_seconds=active_deadline_seconds,
        )
        self.job = with_pod_templates(
            self,
            "Job",
            typed,
            {
                "/spec/rayClusterSpec/headGroupSpec/template": self._pod_template(
                    "head", "ray-head", **ray_node, **pods
                ),
                "/spec/rayClusterSpec/workerGroupSpecs/0/template": self._pod_template(
                    "worker", "ray-worker", gpu=True, **ray_node, **pods
                ),
                # KubeRay fills in the `ray job submit` command of the first container.
                "/spec/submitterPodTemplate": self._pod_template(
                    "submitter", "ray-job-submitter", restart="Never", **pods
                ),
            },
        )

    def _typed_job(
        self,
        *,
        name: str,
        team: TeamConfig,
        entrypoint: str,
        nodes: int,
        ttl_seconds_after_finished: int,
        active_deadline_seconds: int | None,
    ) -> ray.RayJob:
        """The RayJob without its pod templates: queue labels, submission, shutdown and the Ray cluster."""
        return ray.RayJob(
            scratch_chart(),
            "Job",
            metadata=ApiObjectMetadata(
                name=name,
                namespace=team.namespace,
                labels={"platform/team": team.name, "platform/tier": self.tier.name, **queue_labels(self.tier.name)},
            ),
            spec=ray.RayJobSpec(
                entrypoint=entrypoint,
                submission_mode="K8sJobMode",
                shutdown_after_job_finishes=True,
                ttl_seconds_after_finished=ttl_seconds_after_finished,
                active_deadline_seconds=active_deadline_seconds,
                backoff_limit=0,
                submitter_config=ray.RayJobSpecSubmitterConfig(backoff_limit=2),
                ray_cluster_spec=self._ray_cluster_spec(nodes),
            ),
        )

    def _ray_cluster_spec(self, nodes: int) -> ray.RayJobSpecRayClusterSpec:
        """The Ray cluster: token auth, a CPU head that runs no work and ``nodes`` GPU workers."""
        return ray.RayJobSpecRayClusterSpec(
            # Ray token authentication on the dashboard/Jobs API and GCS (Ray >= 2.52.0, KubeRay >= 1.5.1,
            # which creates the token Secret and sets RAY_AUTH_MODE/RAY_AUTH_TOKEN on every Ray container;
            # KubeRay refuses token mode without spec.rayVersion >= 2.52.0). The NetworkPolicies of the team
            # namespace (k8s_charts/team_isolation.py) also keep both ports unreachable from other namespaces.
            ray_version=self.ray_version,
            auth_options=ray.RayJobSpecRayClusterSpecAuthOptions(
                mode=ray.RayJobSpecRayClusterSpecAuthOptionsMode.TOKEN
            ),
            head_group_spec=ray.RayJobSpecRayClusterSpecHeadGroupSpec(
                # no work on the head: tasks and actors go to the GPU workers
                ray_start_params={
                    "num-cpus": "0",
                    "dashboard-host": "0.0.0.0",
                    "object-store-memory": object_store_bytes(HEAD_SHM_GIB),
                },
                template=ray.RayJobSpecRayClusterSpecHeadGroupSpecTemplate(),
            ),
            worker_group_specs=[
                ray.RayJobSpecRayClusterSpecWorkerGroupSpecs(
                    group_name="gpu",
                    replicas=nodes,
                    min_replicas=nodes,
                    max_replicas=nodes,
                    ray_start_params={"object-store-memory": object_store_bytes(self.shape.shm_gib)},
                    template=ray.RayJobSpecRayClusterSpecWorkerGroupSpecsTemplate(),
                )
            ],
        )

    def _pod_template(
        self,
        component: str,
        container: str,
        *,
        name: str,
        team: TeamConfig,
        values: PlatformValues,
        zone: str,
        image: str,
        env: Mapping[str, str],
        gpu: bool = False,
        restart: str | None = None,
        grace_seconds: int = MIN_GRACE_SECONDS,
        pre_stop: Sequence[str] | None = None,
    ) -> dict:
        """The JSON pod template of the head, the GPU workers or the submitter."""
        cpu, memory_gib = CPU_POD_SIZES.get(component, (1, 2))
        shm_gib = HEAD_SHM_GIB if component == "head" else None
        return pod_template_json(
            job_pod_template(
                job_name=name,
                component=component,
                team=team,
                tier=self.tier,
                priority_class=self.priority_class,
                values=values,
                shape=self.shape if gpu else None,
                zone=zone,
                restart_policy=restart,
                cpu=cpu,
                memory_gib=memory_gib,
                shm_gib=shm_gib,
                settings=PodSettings(
                    container_name=container,
                    image=image,
                    env=env,
                    args=RAY_NODE_ARGS.get(component),
                    ports=[("gcs-server", 6379), ("dashboard", 8265), ("client", 10001)] if component == "head" else (),
                    grace_seconds=grace_seconds,
                    pre_stop=pre_stop,
                ),
            )
        )


class VerlGrpoRayJob(PlatformRayJob):
    """:class:`PlatformRayJob` running VeRL GRPO with SGLang rollouts: exactly :meth:`GrpoParameters.entrypoint`,
    with the Ray cluster sized by ``params`` (nodes x GPUs per node) and ``CHECKPOINT_DIR`` in every pod.

    Save on eviction (issue 44): the head and every GPU worker run ``python3 -m llm_platform.grpo_stop`` as their
    ``preStop`` hook, which asks the run to save at the end of its current step and waits for VeRL's checkpoint
    (``llm_platform.grpo_save``) for the grace period (``grace_seconds``: ``llmft.build.grace_for`` sizes it from a
    step and the save) less :data:`~llm_platform.grpo_stop.RAY_EXIT_SECONDS` for Ray's exit after SIGTERM."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        params: GrpoParameters,
        env: Mapping[str, str] | None = None,
        grace_seconds: int = MIN_GRACE_SECONDS,
        **kwargs,
    ) -> None:
        self.params = params
        super().__init__(
            scope,
            construct_id,
            entrypoint=params.entrypoint(),
            nodes=params.nodes,
            gpus_per_node=params.gpus_per_node,
            env={"CHECKPOINT_DIR": params.checkpoint_dir, **(env or {})},
            grace_seconds=grace_seconds,
            pre_stop=hook_command(params.checkpoint_dir, grace_seconds - RAY_EXIT_SECONDS),
            **kwargs,
        )
