"""RayJob (KubeRay ray.io/v1) builder for VeRL GRPO reinforcement learning with SGLang rollouts."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from cdk8s import ApiObjectMetadata
from constructs import Construct

from config.kubernetes import TeamConfig
from k8s_charts.imports.rayjob.io import ray
from k8s_charts.pods import GpuNodeShape, PodSettings, image, job_pod_template, node_kinds_for, pod_template_json
from k8s_charts.pods import resolve_tier
from k8s_charts.pods import scratch_chart, team_dir, validate_job_name, with_pod_templates
from k8s_charts.tiers import JobTier
from k8s_charts.values import FSX_MOUNT_PATH, PlatformValues

# Ray in the training image (images/verl-sglang). Token authentication needs Ray >= 2.52.0
# (https://docs.ray.io/en/latest/ray-security/token-auth.html); KubeRay validates spec.rayVersion against it.
RAY_VERSION = "2.52.0"

# CPU and memory (GiB) of the pods without GPUs: the Ray head (GCS, dashboard, job driver) and the submitter.
# (CPU, GiB) of the CPU pods. They run on the system nodes (no GPU toleration); the head does no work
# (`num-cpus: 0`: tasks and actors go to the GPU workers), so 1 CPU / 4 GiB fits the smallest system node
# (k8s_charts.node_shapes; tests/test_node_shapes.py checks every rendered pod fits its node kinds).
CPU_POD_SIZES = {"head": (1, 4), "submitter": (1, 2)}


@dataclass(frozen=True)
class GrpoParameters:
    """Typed VeRL `main_ppo` settings for GRPO; :meth:`overrides` renders them as Hydra overrides.

    Paths must be on the FSx mount (/fsx/...), which every Ray pod mounts.
    """

    model_path: str
    train_files: str
    val_files: str
    checkpoint_dir: str
    nodes: int
    gpus_per_node: int
    rollout_n: int = 5
    tensor_parallel_size: int = 2
    save_freq: int = 20
    total_epochs: int = 15
    train_batch_size: int = 256
    ppo_mini_batch_size: int = 64
    max_prompt_length: int = 512
    max_response_length: int = 1024
    learning_rate: float = 1e-6
    kl_loss_coef: float = 0.001
    rollout_gpu_memory_utilization: float = 0.6
    project_name: str = "grpo"
    experiment_name: str = "grpo"

    def __post_init__(self) -> None:
        for attr in ("model_path", "train_files", "val_files", "checkpoint_dir"):
            path = getattr(self, attr)
            if not path.startswith(FSX_MOUNT_PATH + "/"):
                raise ValueError(f"{attr} {path!r} is not on the FSx mount; use a path under {FSX_MOUNT_PATH}/")
        if self.nodes < 1 or self.gpus_per_node < 1:
            raise ValueError(f"nodes {self.nodes} and gpus_per_node {self.gpus_per_node} must be at least 1")
        if self.rollout_n < 2:
            raise ValueError(f"rollout_n {self.rollout_n} must be at least 2: GRPO compares a group of responses "
                             f"per prompt")
        if self.gpus_per_node % self.tensor_parallel_size:
            raise ValueError(f"tensor_parallel_size {self.tensor_parallel_size} must divide gpus_per_node "
                             f"{self.gpus_per_node}: a rollout engine's shards stay on one node")
        if self.save_freq < 1:
            raise ValueError(f"save_freq {self.save_freq} must be at least 1 (steps between checkpoints)")
        if self.train_batch_size % self.ppo_mini_batch_size:
            raise ValueError(f"ppo_mini_batch_size {self.ppo_mini_batch_size} must divide train_batch_size "
                             f"{self.train_batch_size}")

    def overrides(self) -> list[str]:
        return [
            "algorithm.adv_estimator=grpo",
            f"data.train_files={self.train_files}",
            f"data.val_files={self.val_files}",
            f"data.train_batch_size={self.train_batch_size}",
            f"data.max_prompt_length={self.max_prompt_length}",
            f"data.max_response_length={self.max_response_length}",
            f"actor_rollout_ref.model.path={self.model_path}",
            "actor_rollout_ref.model.enable_gradient_checkpointing=True",
            f"actor_rollout_ref.actor.optim.lr={self.learning_rate}",
            f"actor_rollout_ref.actor.ppo_mini_batch_size={self.ppo_mini_batch_size}",
            "actor_rollout_ref.actor.use_kl_loss=True",
            f"actor_rollout_ref.actor.kl_loss_coef={self.kl_loss_coef}",
            "actor_rollout_ref.rollout.name=sglang",
            f"actor_rollout_ref.rollout.n={self.rollout_n}",
            f"actor_rollout_ref.rollout.tensor_model_parallel_size={self.tensor_parallel_size}",
            f"actor_rollout_ref.rollout.gpu_memory_utilization={self.rollout_gpu_memory_utilization}",
            "algorithm.use_kl_in_reward=False",
            f"trainer.nnodes={self.nodes}",
            f"trainer.n_gpus_per_node={self.gpus_per_node}",
            f"trainer.default_local_dir={self.checkpoint_dir}",
            f"trainer.save_freq={self.save_freq}",
            f"trainer.total_epochs={self.total_epochs}",
            f"trainer.project_name={self.project_name}",
            f"trainer.experiment_name={self.experiment_name}",
            "trainer.logger=['console','mlflow']",
        ]

    def entrypoint(self) -> str:
        return "python3 -m verl.trainer.main_ppo " + " ".join(shlex.quote(o) for o in self.overrides())


class VerlGrpoRayJob(Construct):
    """A RayJob that starts a Ray cluster (CPU head + one GPU worker group placed by tier), runs the VeRL GRPO
    entrypoint through a submitter Kubernetes Job (`K8sJobMode`) and deletes the cluster when it finishes.

    The head and the submitter are small CPU pods without GPU tolerations, so they run on the cluster's general
    nodes, never on a GPU node. Every pod carries the tier's PriorityClass (team quotas refuse pods without one),
    the restricted security context and `karpenter.sh/do-not-disrupt`.
    """

    def __init__(self, scope: Construct, construct_id: str, *, name: str, team: TeamConfig, tier: JobTier | str,
                 values: PlatformValues, instance_type: str, image_tag: str, params: GrpoParameters,
                 efa: bool | None = None, priority_class: str | None = None, env: Mapping[str, str] | None = None,
                 ttl_seconds_after_finished: int = 3600, active_deadline_seconds: int | None = None,
                 zone: str | None = None) -> None:
        super().__init__(scope, construct_id)
        validate_job_name(name)
        self.tier = resolve_tier(team, tier)
        self.priority_class = self.tier.priority_class_for(priority_class)
        self.shape = GpuNodeShape.of(instance_type, kinds=node_kinds_for(values, self.tier, instance_type),
                                     tier=self.tier.name, gpus=params.gpus_per_node, efa=efa)
        self.params = params
        img = image(values, image_tag)
        zone = zone or values.hyperpod_availability_zone
        env = {"CHECKPOINT_DIR": params.checkpoint_dir, "TEAM_DIR": team_dir(values, team), **(env or {})}

        def template(component: str, container: str, gpu: bool, restart: str | None = None) -> dict:
            cpu, memory_gib = CPU_POD_SIZES.get(component, (1, 2))
            return pod_template_json(job_pod_template(
                job_name=name, component=component, team=team, tier=self.tier, priority_class=self.priority_class,
                values=values, shape=self.shape if gpu else None, zone=zone, restart_policy=restart,
                cpu=cpu, memory_gib=memory_gib,
                settings=PodSettings(container_name=container, image=img, env=env,
                                     ports=[("gcs-server", 6379), ("dashboard", 8265), ("client", 10001)]
                                     if component == "head" else ())))

        typed = ray.RayJob(
            scratch_chart(), "Job",
            metadata=ApiObjectMetadata(name=name, namespace=team.namespace,
                                       labels={"platform/team": team.name, "platform/tier": self.tier.name}),
            spec=ray.RayJobSpec(
                entrypoint=params.entrypoint(),
                submission_mode="K8sJobMode",
                shutdown_after_job_finishes=True,
                ttl_seconds_after_finished=ttl_seconds_after_finished,
                active_deadline_seconds=active_deadline_seconds,
                backoff_limit=0,
                submitter_config=ray.RayJobSpecSubmitterConfig(backoff_limit=2),
                ray_cluster_spec=ray.RayJobSpecRayClusterSpec(
                    # Ray token authentication on the dashboard/Jobs API and GCS (Ray >= 2.52.0, KubeRay >= 1.5.1,
                    # which creates the token Secret and sets RAY_AUTH_MODE/RAY_AUTH_TOKEN on every Ray container;
                    # KubeRay refuses token mode without spec.rayVersion >= 2.52.0). The NetworkPolicies of the team
                    # namespace (k8s_charts/team_isolation.py) also keep both ports unreachable from other namespaces.
                    ray_version=RAY_VERSION,
                    auth_options=ray.RayJobSpecRayClusterSpecAuthOptions(
                        mode=ray.RayJobSpecRayClusterSpecAuthOptionsMode.TOKEN),
                    head_group_spec=ray.RayJobSpecRayClusterSpecHeadGroupSpec(
                        # no work on the head: tasks and actors go to the GPU workers
                        ray_start_params={"num-cpus": "0", "dashboard-host": "0.0.0.0"},
                        template=ray.RayJobSpecRayClusterSpecHeadGroupSpecTemplate()),
                    worker_group_specs=[ray.RayJobSpecRayClusterSpecWorkerGroupSpecs(
                        group_name="gpu", replicas=params.nodes, min_replicas=params.nodes,
                        max_replicas=params.nodes, ray_start_params={},
                        template=ray.RayJobSpecRayClusterSpecWorkerGroupSpecsTemplate())],
                ),
            ),
        )
        self.job = with_pod_templates(self, "Job", typed, {
            "/spec/rayClusterSpec/headGroupSpec/template": template("head", "ray-head", False),
            "/spec/rayClusterSpec/workerGroupSpecs/0/template": template("worker", "ray-worker", True),
            # KubeRay fills in the `ray job submit` command of the first container.
            "/spec/submitterPodTemplate": template("submitter", "ray-job-submitter", False, "Never"),
        })
