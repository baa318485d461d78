"""Job spec -> Kubernetes manifests, with the k8s_charts builders (the same code as the GitOps examples).

What each `type:` becomes (a PyTorchJob, a RayJob, a CPU Job, a served Deployment; its step module, image, default
output and spec rules) is its record in llmft/job_types/ (one module per type, docs/extending.md "Add a job type");
this module renders any record, and names no type.

The step file is built from the spec with the training package's step contract (`llm_platform.steps`): the spec's
model/dataset/output become the schema's own fields (`model_id`, `train_dataset_path`, `local_dir`, ...), the spec's
`settings` (`grpo` for GRPO) are added, and the result is checked against the schema before anything renders, so a
renamed field or a typo fails here with the field named, never in the pod. It goes into a ConfigMap `<name>-step`,
mounted read-only at /etc/llmft in every pod; the step reads it with `--config /etc/llmft/step.yaml`.
MLflow names carry the team (the server refuses others, mlflow_image/entrypoint.py): experiments
`<team>/<experiment>`, registered models `<team>.<job name>`.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

import cdk8s
import yaml
from cdk8s_plus_28 import k8s
from llm_platform import steps as step_contract

from config import EnvironmentConfig, TeamConfig
from k8s_charts.node_shapes import NodeKind, kinds_for
from k8s_charts.pods import PodSettings, job_pod_template, resolve_tier
from k8s_charts.tiers import JobTier
from k8s_charts.values import PlatformValues
from llmft.job_types.base import FieldContext, experiment_name, registered_model_name
from llmft.job_types.base import get as job_type
from llmft.resolution import Resolution
from llmft.spec import JobSpec

__all__ = ["Resolution", "experiment_name", "registered_model_name"]  # the builders' names, from where they live

STEP_CONFIG_DIR = step_contract.STEP_DIR
STEP_CONFIG_FILE = step_contract.STEP_FILE
MANAGED_BY = {"app.kubernetes.io/managed-by": "llmft"}
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
CPU_JOB_SIZE = (1, 4)  # CPU, GiB of download-model / prepare-data pods (system nodes or the Karpenter CPU pool)
_BUILD_IMAGE = "llmft.invalid/build:llmft"  # builders need an image; the resolved one replaces it afterwards


class BuildError(ValueError):
    """The spec cannot become a job in this environment; the message says why and what to change."""


class SizeError(BuildError):
    """A rendered object over a Kubernetes size limit."""

    check = "size"


class StepProblems(BuildError):
    """The step file built from the spec would be refused by its step (llm_platform.steps); one line a field."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


# The API server refuses an object over 1 MiB (etcd's request limit, 1.5 MiB, less its overhead: Kubernetes documents
# 1 MiB for ConfigMaps); the step ConfigMap's metadata takes a few hundred bytes of it.
CONFIG_MAP_LIMIT = 1024 * 1024
OUTPUTS_ANNOTATION = "llmft/outputs"


def outputs_of(plan: Plan) -> list[str]:
    """The directories ``plan``'s job writes (the step contract's outputs; custom jobs: the spec's output; a serve
    job writes none)."""
    kind = job_type(plan.spec.type)
    if kind.workload == "deployment":
        return []
    if kind.step is None:
        return [plan.step["output_dir"]]
    return [o for o in step_contract.paths(kind.step, plan.step)[1] if o] or []


def overlaps(a: str, b: str) -> bool:
    """Whether directory ``a`` is ``b``, inside it or around it."""
    a, b = a.rstrip("/"), b.rstrip("/")
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def default_image_name(spec: JobSpec) -> str:
    """The platform image a spec runs when it names none: the type's (llmft/job_types/), or for custom jobs the
    kind's (a Ray job: the image with Ray; a PyTorchJob names its own image)."""
    kind = job_type(spec.type)
    if kind.image is None:
        return "verl-sglang" if spec.custom and spec.custom.kind == "ray" else "sft"
    return kind.image


def image_placeholder(name: str) -> str:
    """`${PLATFORM_IMAGE_SFT}`: what a dry run without cluster writes for the platform image ``name``."""
    return "${PLATFORM_IMAGE_" + name.upper().replace("-", "_") + "}"


def resolve_image(spec: JobSpec, *, config: EnvironmentConfig, namespace: str, cluster: Any = None) -> str:
    """The spec's image, else the platform's image for the type: from the team namespace's `platform-images`
    ConfigMap (``cluster``: an llmft.cluster.Cluster), else from k8s_charts.images, else a placeholder."""
    if spec.image:
        return spec.image
    name = default_image_name(spec)
    if cluster is not None:
        uri = cluster.platform_images(namespace).get(name)
        if uri:
            return uri
    from k8s_charts.images import image_uri

    try:
        return image_uri(config, name)
    except Exception:  # noqa: BLE001 - an unknown image name or missing build: fall back to the placeholder
        return image_placeholder(name)


def default_output(spec: JobSpec) -> str:
    """The directory a job writes when its spec names no output (its type's record)."""
    return job_type(spec.type).output_for(spec)


def _step_fields(
    spec: JobSpec,
    team: TeamConfig,
    *,
    output: str,
    gpus_per_node: int,
    instance_type: str | None,
    usd_per_gpu_hour: float | None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """(the fields the spec sets in the step file of a step's type, the spec field each comes from): the type's own
    mapping (its record's ``fields``)."""
    kind = job_type(spec.type)
    if kind.fields is None:
        raise BuildError(f"type {spec.type} has a step ({kind.step}) but no mapping of the spec to its step file")
    ctx = FieldContext(
        team=team,
        output=output,
        experiment=experiment_name(team, spec),
        gpus_per_node=gpus_per_node,
        instance_type=instance_type,
        usd_per_gpu_hour=usd_per_gpu_hour,
    )
    return kind.fields(spec, ctx)


def step_file(
    spec: JobSpec,
    team: TeamConfig,
    *,
    gpus_per_node: int = 1,
    instance_type: str | None = None,
    usd_per_gpu_hour: float | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """(the step file of ``spec``, the problems its step would refuse). Each line names the spec field (``settings.x``,
    ``grpo.x``) and the fix. Custom jobs get a free-form file: the spec's paths and settings, unchecked.
    ``usd_per_gpu_hour``: the price of the job's placement (:func:`gpu_hour_price`), for the types that log cost."""
    output = spec.output or default_output(spec)
    kind = job_type(spec.type)
    if kind.step is None:
        free = {"model": spec.model, "dataset": spec.dataset, "output_dir": output, **spec.settings}
        return {k: v for k, v in free.items() if v is not None}, []
    data, origin = _step_fields(
        spec,
        team,
        output=output,
        gpus_per_node=gpus_per_node,
        instance_type=instance_type,
        usd_per_gpu_hour=usd_per_gpu_hour,
    )
    section = kind.settings_section
    extra = getattr(spec, section)
    problems = [
        f"{section}.{key}: set by the spec's {origin[key]} ({data.get(key)!r}); remove it from {section}"
        for key in extra
        if key in origin
    ]
    data.update({k: v for k, v in extra.items() if k not in origin})
    if not problems:
        problems = step_contract.problems(kind.step, data, prefix=f"{section}.")
    return data, problems


@dataclass
class Plan:
    """What a spec becomes: the team, tier, node kinds its GPU pods may use and the manifests."""

    spec: JobSpec
    team: TeamConfig
    tier: JobTier
    image: str
    kinds: tuple[NodeKind, ...] = ()  # node kinds of the GPU pods (empty: CPU job)
    allowed: tuple[NodeKind, ...] = ()  # the kinds that can hold the whole job: Kueue picks one of them
    step: dict[str, Any] = field(default_factory=dict)  # the step file (/etc/llmft/step.yaml)
    manifests: list[dict[str, Any]] = field(default_factory=list)
    gpus_per_node: int = 0  # as resolved (a step that is not distributed: 1)
    model: Any = None  # serve: the version served (llmft.registry.ResolvedModel)

    @property
    def gpus(self) -> int:
        """GPUs the job holds at its largest."""
        if not self.kinds:
            return 0
        replicas = self.spec.serve.max_replicas if self.spec.serve else 1  # a serve job at its most replicas
        return (
            replicas
            * self.spec.node_range[1]
            * (self.gpus_per_node or gpus_per_node(self.spec) or self.kinds[0].spec.gpus)
        )

    def pod_specs(self) -> list[tuple[str, dict[str, Any]]]:
        """(where, pod spec) of every pod template in the manifests."""
        return [
            (f"{d['kind']} {d['metadata']['name']} {path}", t["spec"])
            for d in self.manifests
            for path, t in pod_templates(d)
        ]

    def yaml(self) -> str:
        return yaml.safe_dump_all(self.manifests, sort_keys=False)


def gpus_per_node(spec: JobSpec) -> int | None:
    """GPUs per node the spec asks for (None: all of the node): a benchmark measures one GPU, and a step that is
    not distributed (evaluate) is one process on one GPU, whatever the node has."""
    if spec.gpus_per_node:
        return spec.gpus_per_node
    kind = job_type(spec.type)
    if kind.workload == "deployment":
        return spec.serve.tensor_parallel if spec.serve else None  # one engine of tensor_parallel GPUs
    if kind.fixed_gpus_per_node:
        return kind.fixed_gpus_per_node
    if kind.workload == "pytorch" and kind.step and not kind.distributed:
        return 1
    return None


def candidate_kinds(spec: JobSpec, values: PlatformValues, tier: JobTier) -> tuple[NodeKind, ...]:
    """GPU node kinds of the tier matching the spec's gpu_type / instance_type / GPUs per node."""
    kinds = kinds_for(values.node_kinds, tier=tier.name, instance_type=spec.instance_type, gpu_type=spec.gpu_type)
    need = spec.gpus_per_node or (spec.serve.tensor_parallel if spec.serve else None)
    if need:
        kinds = tuple(k for k in kinds if k.spec.gpus >= need)
    return kinds


def holds(kind: NodeKind, nodes: int) -> bool:
    """Whether ``kind`` can have ``nodes`` nodes at once (a HyperPod group's size, a Karpenter pool's GPU limit)."""
    return (kind.max_nodes or 0) >= nodes


def choose_instance(spec: JobSpec, kinds: tuple[NodeKind, ...]) -> str:
    """The instance type of the job's GPU pods: one a kind can hold the whole job on, reserved capacity (HyperPod)
    first, then the most GPUs per node; between equal fits the Karpenter pool with the highest weight, the pool
    Karpenter itself tries first (NodePool `spec.weight`: "a higher numerical weight indicates that this nodepool
    will be ordered ahead of other nodepools with lower weights"), then the instance type's name."""
    nodes = spec.node_range[1]
    ranked = sorted(
        kinds, key=lambda k: (not holds(k, nodes), k.source != "hyperpod", -k.spec.gpus, -k.weight, k.instance_type)
    )
    return ranked[0].instance_type


def placement_kinds(spec: JobSpec, candidates: tuple[NodeKind, ...], instance: str) -> tuple[NodeKind, ...]:
    """The kinds the job's pods may use, ``instance``'s first: with instance_type or gpu_type in the spec, only the
    kinds of that instance type; without, also every other kind of the tier with the chosen kind's GPUs per node,
    so a job that does not name its GPU falls back from the reserved nodes to the tier's pools in Kueue's flavor
    order (docs/jobs.md's tier table; the pods' affinity lists each kind's instance and GPU type). Kueue assigns a
    flavor whose labels match the pods' required node affinity and adds its labels as their nodeSelector
    (kubernetes-sigs/kueue site/content/en/docs/concepts/resource_flavor.md, "ResourceFlavor labels")."""
    chosen = tuple(k for k in candidates if k.ec2_type == instance.removeprefix("ml."))
    if spec.instance_type or spec.gpu_type or not chosen:
        return chosen
    need = gpus_per_node(spec) or chosen[0].spec.gpus
    return chosen + tuple(k for k in candidates if k not in chosen and k.spec.gpus >= need)


def for_git(plan: Plan) -> str:
    """The manifests as a GitOps repository holds them: without the finished-job TTLs. Argo CD (self-heal) recreates
    what Git holds and the cluster lacks, so a job the cluster deleted 7 days after it finished would run again; in
    Git a job lives until its file is removed (Kueue frees its quota when it finishes either way). The RayJob's TTL
    is the Ray cluster's, not the RayJob's, and stays."""
    import copy

    out = copy.deepcopy(plan.manifests)
    for manifest in out:
        if manifest["kind"] == "Job":
            manifest["spec"].pop("ttlSecondsAfterFinished", None)
        elif manifest["kind"] in ("PyTorchJob", "MPIJob"):
            manifest["spec"].get("runPolicy", {}).pop("ttlSecondsAfterFinished", None)
    return yaml.safe_dump_all(out, sort_keys=False)


def pod_templates(manifest: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(path, template) of every pod template in a job manifest (PyTorchJob, RayJob, batch/v1 Job). Same paths as
    k8s_charts.validation.EMBEDDED_POD_TEMPLATES, without importing the validators (not installed in Studio)."""
    spec = manifest.get("spec", {})
    kind = manifest.get("kind")
    if kind in ("Job", "Deployment"):
        return [("spec/template", spec["template"])]
    if kind == "PyTorchJob":
        return [
            (f"spec/pytorchReplicaSpecs/{r}/template", s["template"])
            for r, s in spec.get("pytorchReplicaSpecs", {}).items()
        ]
    if kind == "RayJob":
        cluster = spec.get("rayClusterSpec", {})
        out = [("spec/rayClusterSpec/headGroupSpec/template", cluster["headGroupSpec"]["template"])]
        out += [
            (f"spec/rayClusterSpec/workerGroupSpecs/{i}/template", g["template"])
            for i, g in enumerate(cluster.get("workerGroupSpecs", []))
        ]
        if "submitterPodTemplate" in spec:
            out.append(("spec/submitterPodTemplate", spec["submitterPodTemplate"]))
        return out
    return []


def _finish(
    manifest: dict[str, Any],
    *,
    image: str,
    config_map: str,
    command: list[str] | None = None,
    queue: str | None,
    secret_env: dict[str, Any] | None = None,
    job_name: str | None = None,
) -> None:
    """Image, step-config volume, optional command, Secret-backed variables, labels."""
    manifest["metadata"].setdefault("labels", {}).update(MANAGED_BY)
    if queue:
        manifest["metadata"]["labels"].setdefault(QUEUE_LABEL, queue)
    for _, template in pod_templates(manifest):
        spec = template["spec"]
        spec.setdefault("volumes", []).append({"name": "step-config", "configMap": {"name": config_map}})
        for container in spec["containers"]:
            container["image"] = image
            container.setdefault("volumeMounts", []).append(
                {"name": "step-config", "mountPath": STEP_CONFIG_DIR, "readOnly": True}
            )
            if command is not None:
                container.pop("args", None)
                container["command"] = list(command)
            if job_name is not None:  # the step marks its outputs as this job's (llm_platform.steps.guard_outputs)
                env = container.setdefault("env", [])
                if not any(e.get("name") == step_contract.JOB_ENV for e in env):
                    env.append({"name": step_contract.JOB_ENV, "value": job_name})
            for name, ref in (secret_env or {}).items():
                container.setdefault("env", []).append(
                    {"name": name, "valueFrom": {"secretKeyRef": {"name": ref.secret, "key": ref.key}}}
                )


def _queue(tier: JobTier) -> str:
    """The team's LocalQueue of the tier (k8s_charts/queues.py)."""
    from k8s_charts.queues import local_queue_name

    return local_queue_name(tier.name)


def resolve(
    spec: JobSpec,
    *,
    config: EnvironmentConfig,
    team: TeamConfig,
    values: PlatformValues,
    image: str,
    ray_version: str | None = None,
) -> Resolution:
    """Tier, priority, queue, output path, step file, instance type, node kinds and GPUs per node of ``spec``, or a
    BuildError (StepProblems for the step file) naming the fix."""
    try:
        tier = resolve_tier(team, spec.tier)
        priority = tier.priority_class_for(spec.priority_class)
    except ValueError as exc:
        raise BuildError(str(exc)) from None
    common = dict(
        tier=tier,
        priority_class=priority,
        queue=_queue(tier),
        output=spec.output or default_output(spec),
        image=spec.image or image,
        ray_version=spec.custom.ray_version if spec.custom and spec.custom.ray_version else ray_version,
    )
    kind = job_type(spec.type)
    if kind.workload == "deployment":
        _serve_fits(spec, values, tier, config)
    if not spec.uses_gpus:
        step, problems = step_file(spec, team)
        if problems:
            raise StepProblems(problems)
        return Resolution(step=step, **common)
    candidates = candidate_kinds(spec, values, tier)
    if not candidates:
        wanted = " ".join(
            f"{k} {v}"
            for k, v in (
                ("gpu_type", spec.gpu_type),
                ("instance_type", spec.instance_type),
                ("gpus_per_node", spec.gpus_per_node),
            )
            if v
        )
        offered = sorted(
            {
                f"{k.instance_type} ({k.gpu_type}, {k.spec.gpus} GPUs)"
                for k in kinds_for(values.node_kinds, tier=tier.name)
            }
        )
        raise BuildError(
            f"no node kind of tier {tier.name!r} matches {wanted or 'a GPU job'}; the tier's GPU "
            f"nodes in {config.name} are: {', '.join(offered) or 'none'}"
        )
    instance = spec.instance_type or choose_instance(spec, candidates)
    kinds = placement_kinds(spec, candidates, instance)
    high = spec.node_range[1]
    allowed = tuple(k for k in kinds if holds(k, high))
    if not allowed:
        sizes = ", ".join(f"{k.name}: {k.max_nodes}" for k in kinds)
        raise BuildError(
            f"{high} nodes of {instance} do not fit one node kind of tier {tier.name!r} "
            f"(nodes each kind can have: {sizes}); a multi-node job never spans HyperPod and "
            f"EC2, so lower nodes/max_nodes or pick another instance_type"
        )
    per_node = gpus_per_node(spec) or kinds[0].spec.gpus
    if kind.workload == "deployment":  # no step file: the engine's command line is the spec's (llmft/serve_build.py)
        tp = spec.serve.tensor_parallel or per_node
        return Resolution(
            step={}, kinds=kinds, allowed=allowed, instance_type=instance, gpus_per_node=per_node, tp=tp, **common
        )
    price = gpu_hour_price(allowed, config)
    step, problems = step_file(spec, team, gpus_per_node=per_node, instance_type=instance, usd_per_gpu_hour=price)
    if problems:
        raise StepProblems(problems)
    return Resolution(
        step=step,
        kinds=kinds,
        allowed=allowed,
        instance_type=instance,
        gpus_per_node=per_node,
        grace_seconds=grace_for(spec, step, config, allowed),
        **common,
    )


def gpu_hour_price(kinds: tuple[NodeKind, ...], config: EnvironmentConfig) -> float | None:
    """On-demand USD per GPU-hour of the dearest instance type among ``kinds`` (the node kinds Kueue may place the
    job on: it picks the flavor, so the step is told the upper bound, as `llmft status` prices a job whose pods may
    land on several types), from config/data/prices.yaml for the environment's region (HyperPod's ``ml.`` types from
    its SageMaker table); None when none of them is priced."""
    from config.pricing import Pricer

    pricer = Pricer.of(config.region)
    prices = [p for k in kinds if (p := pricer.usd_per_gpu_hour(k.instance_type)) is not None]
    return max(prices) if prices else None


def grace_for(spec: JobSpec, step: dict[str, Any], config: EnvironmentConfig, kinds: tuple[NodeKind, ...] = ()) -> int:
    """The training pods' grace period after SIGTERM (issue 44), from the memory model's shape of the model and the
    file system's throughput (storage.fsx: MiB/s per TiB x TiB). SFT: the checkpoint the step writes then (a LoRA
    adapter in fp32 and its two AdamW moments, 12 bytes per adapter parameter), by
    llm_platform.preemption.grace_seconds. GRPO: one step on the slowest GPU of ``kinds`` (the node kinds the job may
    be placed on) and VeRL's save of the actor, by llm_platform.preemption.grpo_grace_seconds (its figures and their
    sources are there). The platform's minimum where the step writes no such checkpoint or the shape is unknown."""
    from llm_platform import preemption

    from llmft.memory_check import spec_dims

    kind = job_type(spec.type).step
    if kind not in ("sft", "grpo"):
        return preemption.MIN_GRACE_SECONDS
    model = step.get("model_id" if kind == "sft" else "model_path", "")
    dims, _ = spec_dims(spec, spec.team or "", str(model))  # the memory check's own shape
    if dims is None:
        return preemption.MIN_GRACE_SECONDS
    fsx = config.storage.fsx
    write_mb_s = fsx.throughput_mib_per_tib * fsx.storage_capacity_gib / 1024 * 1.048576
    if kind == "grpo":
        return _grpo_grace(step, dims.params, kinds, write_mb_s)
    lora_r = int(step.get("lora_r", 8))
    return preemption.grace_seconds(12 * dims.lora_params(lora_r), write_mb_s=write_mb_s)


def _grpo_grace(step: dict[str, Any], params: int, kinds: tuple[NodeKind, ...], write_mb_s: float) -> int:
    """A GRPO job's grace period: its step file's batch on the slowest GPU among ``kinds`` (an unknown GPU counts as
    the slowest llm_platform.mfu knows)."""
    from llm_platform import mfu, preemption
    from llm_platform.grpo_config import GrpoParameters

    grpo = GrpoParameters(**step)
    slowest = min(tflops for _, tflops, _ in mfu.PEAK_BF16_TFLOPS) * 1e12
    peak = min((mfu.peak_flops(k.gpu_type) or slowest for k in kinds), default=slowest)
    return preemption.grpo_grace_seconds(
        params,
        tokens_per_step=grpo.train_batch_size * grpo.rollout_n * (grpo.max_prompt_length + grpo.max_response_length),
        gpus=grpo.nodes * grpo.gpus_per_node,
        peak_flops_per_gpu=peak,
        write_mb_s=write_mb_s,
    )


def _serve_fits(spec: JobSpec, values: PlatformValues, tier: JobTier, config: EnvironmentConfig) -> None:
    """A serve job's engine fits one node of the kinds it asks for (multi-node serving is not supported)."""
    tp = spec.serve.tensor_parallel if spec.serve else None
    kinds = kinds_for(values.node_kinds, tier=tier.name, instance_type=spec.instance_type, gpu_type=spec.gpu_type)
    most = max((k.spec.gpus for k in kinds), default=0)
    if tp and kinds and tp > most:
        raise BuildError(
            f"serve.tensor_parallel {tp} is more than the {most} GPUs per node of "
            f"{spec.instance_type or spec.gpu_type or 'the GPU nodes'} in tier {tier.name} "
            f"({config.name}); multi-node serving is not supported: use tensor_parallel <= {most}, or "
            f"an instance_type with more GPUs"
        )


def _render_serve(plan: Plan, *, team: TeamConfig, values: PlatformValues, r: Resolution, model: Any) -> Plan:
    """A serve job's plan: the manifests that serve ``model``."""
    from llmft import serve_build

    if model is None:
        raise BuildError(
            "type serve: the registered model version is not resolved; llmft resolves it from "
            "MLflow (or --registry FILE) before it renders"
        )
    plan.model = model
    try:
        plan.manifests = serve_build.render(plan.spec, team=team, values=values, r=r, model=model, image=r.image)
    except ValueError as exc:
        raise BuildError(str(exc)) from None
    return plan


def _add_gpu_job(
    chart: cdk8s.Chart, spec: JobSpec, *, team: TeamConfig, values: PlatformValues, r: Resolution
) -> list[str] | None:
    """Add a GPU job's RayJob or PyTorchJob to ``chart``; returns a custom job's command (else None)."""
    low, high = spec.node_range
    common: dict[str, Any] = dict(
        name=spec.name,
        team=team,
        tier=r.tier,
        values=values,
        instance_type=r.instance_type,
        priority_class=r.priority_class,
        env=spec.env or None,
        node_kinds=r.allowed,
    )
    kind = job_type(spec.type)
    custom_kind = spec.custom.kind if spec.custom and kind.workload == "custom" else None
    # Builders are imported for the kind they build: the RayJob bindings alone take seconds to load.
    try:
        if kind.workload == "ray":
            from k8s_charts.ray_job import GrpoParameters, VerlGrpoRayJob

            VerlGrpoRayJob(
                chart,
                "Job",
                image=_BUILD_IMAGE,
                params=GrpoParameters(**r.step),
                grace_seconds=r.grace_seconds,
                **common,
            )
        elif custom_kind == "ray":
            from k8s_charts.ray_job import PlatformRayJob  # a plain RayJob: the user's entrypoint, no VeRL

            PlatformRayJob(
                chart,
                "Job",
                image=_BUILD_IMAGE,
                entrypoint=shlex.join(spec.custom.command),
                nodes=high,
                gpus_per_node=r.gpus_per_node,
                ray_version=r.ray_version,
                **common,
            )
        else:
            from k8s_charts.pytorch_job import ElasticPyTorchJob

            module = kind.module
            single = kind.step is not None and not kind.distributed  # one process, one GPU
            extra: dict[str, Any] = {"procs_per_node": 1} if single or kind.one_process else {}
            if not kind.efa:
                extra["efa"] = False
            ElasticPyTorchJob(
                chart,
                "Job",
                image=_BUILD_IMAGE,
                entrypoint=["-m", module, "--config", STEP_CONFIG_FILE] if module else ["-c", ""],
                min_nodes=low,
                max_nodes=high,
                gpus_per_node=r.gpus_per_node if single else gpus_per_node(spec),
                cpu=spec.cpu,
                memory_gib=spec.memory_gib,
                grace_seconds=r.grace_seconds,
                **extra,
                **common,
            )
            if custom_kind and spec.custom:
                return list(spec.custom.command)
    except ValueError as exc:
        raise BuildError(str(exc)) from None
    return None


def _add_cpu_job(chart: cdk8s.Chart, spec: JobSpec, *, team: TeamConfig, values: PlatformValues, r: Resolution) -> None:
    """Add a CPU job's plain Kubernetes Job to ``chart``."""
    cpu, memory = spec.cpu or CPU_JOB_SIZE[0], spec.memory_gib or CPU_JOB_SIZE[1]
    module = job_type(spec.type).module
    template = job_pod_template(
        job_name=spec.name,
        component="step",
        team=team,
        tier=r.tier,
        priority_class=r.priority_class,
        values=values,
        shape=None,
        zone=None,
        cpu=cpu,
        memory_gib=memory,
        restart_policy="Never",
        settings=PodSettings(
            container_name="step",
            image="placeholder:llmft",
            command=["python", "-m", module, "--config", STEP_CONFIG_FILE],
            env=spec.env,
        ),
    )
    k8s.KubeJob(
        chart,
        "Job",
        metadata=k8s.ObjectMeta(
            name=spec.name, namespace=team.namespace, labels={"platform/team": team.name, "platform/tier": r.tier.name}
        ),
        spec=k8s.JobSpec(backoff_limit=2, ttl_seconds_after_finished=7 * 24 * 3600, template=template),
    )


def _step_config_map(plan: Plan, *, team: TeamConfig, r: Resolution) -> dict[str, Any]:
    """The job's immutable step file ConfigMap (with the outputs it writes), or a SizeError when too large."""
    spec = plan.spec
    # Immutable: a job's step file never changes under it (a new step file is a new job, llmft.cluster.create_job).
    step_text = yaml.safe_dump(r.step, sort_keys=False)
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": f"{spec.name}-step",
            "namespace": team.namespace,
            "labels": {"app.kubernetes.io/name": spec.name, **MANAGED_BY},
        },
        "immutable": True,
        "data": {"step.yaml": step_text},
    }
    outputs = outputs_of(plan)
    if outputs:  # what this job writes, so that preflight can refuse another job writing there (llmft.preflight)
        import json

        config_map["metadata"]["annotations"] = {OUTPUTS_ANNOTATION: json.dumps(outputs)}
    size = len(yaml.safe_dump(config_map).encode())
    if size > CONFIG_MAP_LIMIT:
        raise SizeError(
            f"the step file is {size} bytes as its ConfigMap {spec.name}-step, more than the "
            f"{CONFIG_MAP_LIMIT // 1024} KiB Kubernetes stores in one object; the settings are far too "
            f"large for settings: put data in files under /fsx and pass their paths"
        )
    return config_map


def build(
    spec: JobSpec,
    *,
    config: EnvironmentConfig,
    team: TeamConfig,
    values: PlatformValues,
    image: str,
    ray_version: str | None = None,
    model: Any = None,
) -> Plan:
    """The manifests of ``spec`` for ``team`` in ``config``'s environment: :func:`resolve`, then the builders render
    that resolution. ``image`` is the platform image for the type (the spec's own image wins); ``ray_version``: the
    Ray of a custom Ray job's image (default: the spec's ``custom.ray_version``, else the platform image's lock).
    Raises BuildError with the fix. A serve job needs ``model``, the version it serves (llmft.registry.ResolvedModel).
    """
    r = resolve(spec, config=config, team=team, values=values, image=image, ray_version=ray_version)
    plan = Plan(
        spec=spec,
        team=team,
        tier=r.tier,
        image=r.image,
        kinds=r.kinds,
        allowed=r.allowed,
        step=r.step,
        gpus_per_node=r.gpus_per_node,
    )
    if job_type(spec.type).workload == "deployment":
        return _render_serve(plan, team=team, values=values, r=r, model=model)
    chart = cdk8s.Chart(cdk8s.App(), "llmft", disable_resource_name_hashes=True)
    custom_command: list[str] | None = None
    if spec.uses_gpus:
        custom_command = _add_gpu_job(chart, spec, team=team, values=values, r=r)
    else:
        _add_cpu_job(chart, spec, team=team, values=values, r=r)

    job = [m for m in chart.to_json()]
    config_map = _step_config_map(plan, team=team, r=r)
    for manifest in job:
        _finish(
            manifest,
            image=r.image,
            config_map=config_map["metadata"]["name"],
            command=custom_command,
            queue=r.queue,
            secret_env=spec.secret_env,
            job_name=spec.name if job_type(spec.type).step else None,
        )
    plan.manifests = [config_map, *job]
    return plan
