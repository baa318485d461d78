"""Elastic PyTorchJob (Kubeflow kubeflow.org/v1) builder."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cdk8s import ApiObjectMetadata
from cdk8s_plus_28 import k8s
from constructs import Construct
from llm_platform.preemption import MIN_GRACE_SECONDS

from config.kubernetes import TeamConfig
from k8s_charts.imports.pytorchjob.org import kubeflow as kf
from k8s_charts.node_shapes import NodeKind
from k8s_charts.pods import (
    GpuNodeShape,
    PodSettings,
    job_pod_template,
    node_kinds_for,
    pod_template_json,
    resolve_tier,
    scratch_chart,
    validate_job_name,
    with_pod_templates,
)
from k8s_charts.pods import image as image_ref
from k8s_charts.queues import queue_labels
from k8s_charts.tiers import JobTier
from k8s_charts.values import PlatformValues

C10D_PORT = 29400
# HyperPod job auto-resume (Kubeflow PyTorchJob with restartPolicy OnFailure). HyperPod applies it to jobs in
# the `kubeflow` namespace or namespaces whose name starts with `hyperpod`.
AUTO_RESUME = "sagemaker.amazonaws.com/enable-job-auto-resume"
AUTO_RESUME_RETRIES = "sagemaker.amazonaws.com/job-max-retry-count"
CLEAN_POD_POLICY = "Running"


# torchrun (PID 1 of a worker pod) forwards SIGTERM to its workers and waits TORCH_ELASTIC_SHUTDOWN_TIMEOUT seconds
# (default 30) before it kills them (torch 2.13 torch/distributed/launcher/api.py LaunchConfig.shutdown_timeout): the
# platform gives them the pod's grace period less the agent's own exit, so a checkpoint started on SIGTERM finishes.
SHUTDOWN_TIMEOUT_ENV = "TORCH_ELASTIC_SHUTDOWN_TIMEOUT"
AGENT_EXIT_SECONDS = 15


class ElasticPyTorchJob(Construct):
    """A PyTorchJob that runs ``torchrun`` elastically (c10d rendezvous) on ``min_nodes``-``max_nodes`` pods,
    one per GPU node, ``procs_per_node`` processes each.

    Args (keyword-only):
        name: job name (1-40 chars, DNS-1123); pods are `<name>-worker-<i>`.
        team: the submitting team; its namespace, service account, FSx claim and MLflow ConfigMap are used.
        tier: a :class:`JobTier` or its name; must be one of the team's allowed tiers. The job names the tier's
            LocalQueue (`kueue.x-k8s.io/queue-name`), so Kueue admits all its pods together on one flavor.
        values: platform values (image repository, FSx mount, HyperPod AZ).
        instance_type: GPU instance type (EC2 or HyperPod `ml.` name); sizes the pod and pins placement.
        entrypoint: what torchrun runs, e.g. ``["-m", "llm_platform.sft"]``; ``args`` follow it.
        image: a platform image name (``sft``, ``verl-sglang``: the URI comes from ``values.images``, see
            k8s_charts/images.py) or a full ``registry/repository:tag`` reference.
        min_nodes / max_nodes: elastic bounds (default 1 / min_nodes).
        gpus_per_node: default all GPUs of the instance; procs_per_node default gpus_per_node.
        efa: default True where the instance type has EFA.
        priority_class: default the tier's class; must be one the tier allows.
        max_restarts: torchrun restarts of the worker group before the pod fails (default 3).
        backoff_limit: pod failures before the job fails (default 10); auto_resume_retries: HyperPod job
            restarts after node failures (production tier; default 3).
        zone: availability zone for every pod (default the HyperPod AZ, where FSx and EFA pools are).
        grace_seconds: the pods' terminationGracePeriodSeconds (default the platform's minimum, 120): time to save
            a checkpoint after SIGTERM (llm_platform.preemption.grace_seconds sizes it from the checkpoint); torchrun
            waits that long, less :data:`AGENT_EXIT_SECONDS`, for its workers (TORCH_ELASTIC_SHUTDOWN_TIMEOUT).
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
        entrypoint: Sequence[str],
        image: str,
        args: Sequence[str] = (),
        min_nodes: int = 1,
        max_nodes: int | None = None,
        gpus_per_node: int | None = None,
        procs_per_node: int | None = None,
        efa: bool | None = None,
        priority_class: str | None = None,
        env: Mapping[str, str] | None = None,
        max_restarts: int = 3,
        backoff_limit: int = 10,
        auto_resume_retries: int = 3,
        zone: str | None = None,
        cpu: int | None = None,
        memory_gib: int | None = None,
        shm_gib: int | None = None,
        node_kinds: Sequence[NodeKind] | None = None,
        grace_seconds: int = MIN_GRACE_SECONDS,
    ) -> None:
        super().__init__(scope, construct_id)
        validate_job_name(name)
        self.tier = resolve_tier(team, tier)
        self.priority_class = self.tier.priority_class_for(priority_class)
        max_nodes = min_nodes if max_nodes is None else max_nodes
        _check_elastic_range(min_nodes, max_nodes)
        self.shape = GpuNodeShape.of(
            instance_type,
            kinds=node_kinds or node_kinds_for(values, self.tier, instance_type),
            tier=self.tier.name,
            gpus=gpus_per_node,
            efa=efa,
            cpu=cpu,
            memory_gib=memory_gib,
            shm_gib=shm_gib,
        )
        if node_kinds:  # resolved by the caller (llmft): the pods may use exactly these kinds
            self.shape = self.shape.only(node_kinds)
        procs = self.shape.gpus if procs_per_node is None else procs_per_node
        _check_procs_and_entrypoint(procs, gpus=self.shape.gpus, entrypoint=entrypoint)
        self.min_nodes, self.max_nodes, self.procs_per_node = min_nodes, max_nodes, procs

        template = self._worker_template(
            name=name,
            team=team,
            values=values,
            zone=zone or values.hyperpod_availability_zone,
            settings=PodSettings(
                container_name="pytorch",
                image=image_ref(values, image),
                command=["torchrun"],
                args=[*entrypoint, *args],
                env={**(env or {}), SHUTDOWN_TIMEOUT_ENV: str(grace_seconds - AGENT_EXIT_SECONDS)},
                ports=[("c10d", C10D_PORT)],
                grace_seconds=grace_seconds,
            ),
        )
        typed = self._typed_job(
            name=name,
            team=team,
            max_restarts=max_restarts,
            backoff_limit=backoff_limit,
            auto_resume_retries=auto_resume_retries,
        )
        # The pod template is written with the core `k8s` types (shared with the RayJob builder).
        self.job = with_pod_templates(
            self, "Job", typed, {"/spec/pytorchReplicaSpecs/Worker/template": pod_template_json(template)}
        )

    def _worker_template(
        self, *, name: str, team: TeamConfig, values: PlatformValues, zone: str, settings: PodSettings
    ) -> k8s.PodTemplateSpec:
        """The pod template of every worker: one per GPU node, running ``settings``' container."""
        return job_pod_template(
            job_name=name,
            component="worker",
            team=team,
            tier=self.tier,
            priority_class=self.priority_class,
            values=values,
            shape=self.shape,
            zone=zone,
            settings=settings,
        )

    def _typed_job(
        self, *, name: str, team: TeamConfig, max_restarts: int, backoff_limit: int, auto_resume_retries: int
    ) -> kf.PyTorchJob:
        """The PyTorchJob without its pod template: elastic policy, run policy, queue and auto-resume."""
        annotations = {}
        if self.tier.uses_hyperpod and self.tier.name == "production":
            annotations = {AUTO_RESUME: "true", AUTO_RESUME_RETRIES: str(auto_resume_retries)}
        return kf.PyTorchJob(
            scratch_chart(),
            "Job",
            metadata=ApiObjectMetadata(
                name=name,
                namespace=team.namespace,
                annotations=annotations or None,
                labels={"platform/team": team.name, "platform/tier": self.tier.name, **queue_labels(self.tier.name)},
            ),
            spec=kf.PyTorchJobSpec(
                nproc_per_node=str(self.procs_per_node),
                elastic_policy=kf.PyTorchJobSpecElasticPolicy(
                    rdzv_backend="c10d",
                    rdzv_port=C10D_PORT,
                    min_replicas=self.min_nodes,
                    max_replicas=self.max_nodes,
                    max_restarts=max_restarts,
                ),
                # Running: once the job is finished its still-running pods are deleted (completed pods and their logs
                # stay until the TTL). The operator marks an elastic job Succeeded when any one worker completes
                # (training-operator v1-855e096 pytorchjob_controller.go) and Kueue then gives its GPUs to the next
                # job, so a straggler must not keep them; the training steps hold every rank until rank 0's final
                # write (training/llm_platform/rank_zero.py), so no work is cut short.
                run_policy=kf.PyTorchJobSpecRunPolicy(
                    clean_pod_policy=CLEAN_POD_POLICY,
                    backoff_limit=backoff_limit,
                    ttl_seconds_after_finished=7 * 24 * 3600,
                ),
                pytorch_replica_specs={
                    "Worker": kf.PyTorchJobSpecPytorchReplicaSpecs(replicas=self.max_nodes, restart_policy="OnFailure")
                },
            ),
        )


def _check_elastic_range(min_nodes: int, max_nodes: int) -> None:
    """ValueError unless 1 <= ``min_nodes`` <= ``max_nodes``."""
    if min_nodes < 1 or min_nodes > max_nodes:
        raise ValueError(
            f"min_nodes {min_nodes} / max_nodes {max_nodes} are not a valid elastic range; use "
            f"1 <= min_nodes <= max_nodes"
        )


def _check_procs_and_entrypoint(procs: int, *, gpus: int, entrypoint: Sequence[str]) -> None:
    """ValueError unless 1 <= ``procs`` <= ``gpus`` and ``entrypoint`` is not empty."""
    if not 1 <= procs <= gpus:
        raise ValueError(
            f"procs_per_node {procs} must be 1 to gpus_per_node ({gpus}): torchrun starts one process per GPU"
        )
    if not entrypoint:
        raise ValueError("entrypoint is empty; give torchrun a script or module, e.g. ['-m', 'llm_platform.sft']")
