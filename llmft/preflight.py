"""Preflight: everything that would stop a job from ever running is refused before anything is created.

| check      | refuses                                                                                         |
|------------|-------------------------------------------------------------------------------------------------|
| team       | a team the environment does not have (spec `team`, else the kube context's namespace)            |
| tier       | a tier the team may not use (kubernetes.teams[].allowed_tiers)                                    |
| priority   | a priority class the tier forbids                                                                |
| paths      | model/dataset/output/settings paths outside the team's tree (/fsx), `..`, another mount           |
| settings   | a step file its step would refuse (llm_platform.steps.check, the code the pod runs first):       |
|            | unknown or mistyped settings, missing inputs, values out of range (steps.LIMITS, with the reason),|
|            | contradicting settings, outbound reporting, an unpinned revision; `use_cpu` (run --local adapts); |
|            | values transformers refuses only in the pod (attention, optimizer, scheduler, flash-attn the image|
|            | lacks, FSDP + gradient checkpointing: steps.step_enums.json); max_seq_length and LoRA targets     |
|            | against the model's config.json where llmft can read it (Studio's /teams/<team>)                  |
|            | every problem at once, each with the field and the fix                                            |
| grpo       | VeRL settings VeRL would reject at start-up (GrpoParameters' own rules: batch sizes vs GPUs,     |
|            | tensor parallel vs GPUs per node), checked with the step file                                    |
| placement  | no node kind of the tier with the GPU type / instance type / GPUs per node; a multi-node job that  |
|            | no single node kind can hold (pods never split between HyperPod and EC2)                          |
| memory     | a model that cannot fit the GPUs of a node kind the job may land on (the type's `memory` hook:    |
|            | SFT and benchmark recipes even with checkpointing, evaluate's generation, serve's SGLang pool;     |
|            | llmft/memory_check.py, llm_platform.memory); a model of unknown shape; names the fix             |
| fit        | a pod that fits no node kind its placement allows (GPUs, CPU, memory, EFA: k8s_charts.node_shapes)|
| quota      | more GPUs than the team's quota (config), or than is left of it now (cluster, when reachable)     |
| image      | a built-in step in an image that is not the environment's repository for its type; an ECR image  |
|            | tag that does not exist (when AWS is reachable)                                                   |
| size       | a step ConfigMap over the 1 MiB Kubernetes stores in one object                                   |
| outputs    | (cluster) an output directory another job of the namespace writes (annotation llmft/outputs);     |
|            | `llmft run --local` and the step itself: the `.llmft-job.json` marker of another job              |
| registry   | serve: another team's model; an unknown model, version or alias; weights outside the team's      |
|            | storage; in production a version that did not pass evaluation (llmft/registry.py)                 |
| engine     | serve: engine_args the engine's own parser refuses (llm_platform.engine_args, when installed)     |
"""

from __future__ import annotations

import json
import os
import posixpath
import subprocess
from dataclasses import dataclass, field
from typing import Any

from llm_platform.steps import odd_characters

from config import EnvironmentConfig, TeamConfig
from k8s_charts.node_shapes import fits, pod_kinds, pod_request_of, why_not
from k8s_charts.team_storage import TEAM_MOUNT_PATH
from k8s_charts.values import PlatformValues
from llmft.build import BuildError, Plan, StepProblems, build
from llmft.cluster import Cluster, ClusterError
from llmft.job_types.base import get as job_type
from llmft.job_types.base import registered
from llmft.spec import JobSpec


@dataclass
class Check:
    name: str
    status: str  # "ok", "FAIL" or "skip"
    message: str


@dataclass
class Result:
    checks: list[Check] = field(default_factory=list)
    plan: Plan | None = None
    team: TeamConfig | None = None

    @property
    def ok(self) -> bool:
        return all(c.status != "FAIL" for c in self.checks)

    def add(self, name: str, status: str, message: str) -> None:
        self.checks.append(Check(name, status, message))

    def failures(self) -> list[Check]:
        return [c for c in self.checks if c.status == "FAIL"]

    def report(self) -> str:
        return "\n".join(f"  [{c.status:>4}] {c.name}: {c.message}" for c in self.checks)


STUDIO_TEAMS_ROOT = "/teams"  # Studio spaces mount the team's tree at /teams/<team> (k8s_charts/team_storage.py)


def _path_problem(field_name: str, value: str, team: str | None = None) -> str | None:
    """Why ``value`` is not a path inside the team's tree, or None (also None for non-paths such as HF ids)."""
    if not value.startswith("/"):
        return None
    normal = posixpath.normpath(value)
    studio = f"{STUDIO_TEAMS_ROOT}/{team}" if team else None
    if studio and ".." not in value.split("/") and (normal == studio or normal.startswith(studio + "/")):
        return (
            f"{field_name} {value!r} is your team's directory as your Studio space mounts it; a job's pods "
            f"mount the same tree at {TEAM_MOUNT_PATH}: write {TEAM_MOUNT_PATH + normal[len(studio) :]!r}"
        )
    if ".." in value.split("/") or not (normal == TEAM_MOUNT_PATH or normal.startswith(TEAM_MOUNT_PATH + "/")):
        return (
            f"{field_name} {value!r} is outside the team's directory; jobs see only their team's tree at "
            f"{TEAM_MOUNT_PATH} (e.g. {TEAM_MOUNT_PATH}/datasets/..., {TEAM_MOUNT_PATH}/models/...)"
        )
    return None


def _walk_strings(prefix: str, value: Any) -> list[tuple[str, str]]:
    if isinstance(value, str):
        return [(prefix, value)]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _walk_strings(f"{prefix}.{k}", v)]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in _walk_strings(f"{prefix}[{i}]", v)]
    return []


def check_paths(spec: JobSpec, team: str | None = None) -> list[str]:
    problems = []
    fields = [("model", spec.model), ("dataset", spec.dataset), ("output", spec.output)]
    fields += _walk_strings("settings", spec.settings) + _walk_strings("grpo", spec.grpo)
    for name, value in fields:
        if value is None:
            continue
        problem = _path_problem(name, value, team)
        if problem:
            problems.append(problem + odd_characters(value))
    for name, need in job_type(spec.type).needs.items():
        value = getattr(spec, name)
        if need == "path" and value and not value.startswith("/"):
            fetchers = [n for n, k in registered().items() if k.needs.get(name) in ("hub-id", "source")]
            problems.append(
                f"{name} {value!r} is not a path; {spec.type} jobs read from the team's FSx tree, so "
                f"fetch it first with a {' or '.join(fetchers)} job and point {name} at {TEAM_MOUNT_PATH}/..."
            )
    # a step input given in settings (evaluate's base_model_path, prepare-data's tokenizer_path) is pinned like model:
    # a file under /fsx that a download-model job wrote at a pinned commit, never a Hub id fetched at run time
    from llm_platform.steps import STEPS

    step = STEPS.get(job_type(spec.type).step or "")
    for key in step.inputs if step else ():
        value = spec.settings.get(key)
        if isinstance(value, str) and value and not value.startswith("/"):
            problems.append(
                f"settings.{key} {value!r} is not a path; the step would fetch it from the Hugging Face "
                f"Hub at run time, unpinned: download it with a download-model job (pinned revision) and "
                f"point settings.{key} at {TEAM_MOUNT_PATH}/models/..."
            )
    return problems


# Settings a spec may not give: what makes a GPU job run on the CPU. `llmft run --local` adapts a spec for a machine
# without GPUs itself (llmft/local.py); on the cluster the job would hold its GPUs and not use them.
CPU_ONLY_SETTINGS = ("use_cpu", "no_cuda")


def check_settings(spec: JobSpec) -> list[str]:
    """Rules of the settings that depend on the job, not only on the step (the step's own are llm_platform.steps)."""
    out = []
    for key in CPU_ONLY_SETTINGS:
        if spec.settings.get(key):
            out.append(
                f"settings.{key}: true makes the step ignore the GPUs the job holds; remove it (`llmft run "
                f"--local` adapts the spec for a CPU by itself and says so)"
            )
    kind = job_type(spec.type)
    out += kind.settings_rules(spec) if kind.settings_rules else []
    return out


def check_image_is_platform(spec: JobSpec, config: EnvironmentConfig) -> str | None:
    """The built-in steps (every type but custom) run the platform's images: the spec may pin another build of the
    type's image (a tag or digest of the environment's repository), never another repository or registry."""
    if job_type(spec.type).image is None or not spec.image:
        return None
    from k8s_charts.images import registry, repository_name
    from llmft.build import default_image_name

    repository = f"{registry(config)}/{repository_name(config, default_image_name(spec))}"
    given = spec.image.split("@", 1)[0]
    given = given.rsplit(":", 1)[0] if ":" in given.rsplit("/", 1)[-1] else given
    if given != repository:
        return (
            f"image {spec.image!r}: type {spec.type} runs the platform's {default_image_name(spec)} image "
            f"({repository}:<tag>), which has the training package and nothing else; leave image out, or use "
            f"type custom to run your own image"
        )
    return None


def check_image(image: str) -> Check:
    """Whether an ECR image tag exists (AWS reachable), else skipped."""
    if ".dkr.ecr." not in image or ":" not in image.rsplit("/", 1)[-1]:
        return Check("image", "skip", f"{image} is not an ECR image reference with a tag; not checked")
    registry, rest = image.split("/", 1)
    repository, tag = rest.rsplit(":", 1)
    region = registry.split(".")[3]
    try:
        import boto3

        client = boto3.client("ecr", region_name=region)
        client.describe_images(
            registryId=registry.split(".")[0], repositoryName=repository, imageIds=[{"imageTag": tag}]
        )
    except ImportError:
        return Check("image", "skip", "boto3 is not installed; image not checked")
    except Exception as exc:  # noqa: BLE001 - any AWS error: report what it says
        name = type(exc).__name__
        if "ImageNotFound" in name or "ImageNotFound" in str(exc) or "RepositoryNotFound" in str(exc):
            return Check(
                "image", "FAIL", f"{image} does not exist in ECR ({exc}); build it (`make images`) or fix the tag"
            )
        return Check("image", "skip", f"could not reach ECR ({name}); image not checked")
    return Check("image", "ok", f"{image} exists in ECR")


ENGINE_PYTHON_ENV = "LLMFT_ENGINE_PYTHON"
"""An interpreter with the training package and the serving engine (SGLang), for checking ``engine_args`` with the
engine's own parser where llmft's environment lacks the engine (Studio's llmft virtualenv does: SGLang and triton
are hundreds of MB); ``llmft run --local`` sets it to its ``--python``."""


def engine_problems(engine: str, args: list[str]) -> list[str] | None:
    """What the engine's own argument parser (llm_platform.engine_args) says of ``args``: here if the engine is
    installed, else through ``$LLMFT_ENGINE_PYTHON``; None when neither can run it."""
    try:
        from llm_platform.engine_args import check_engine_args

        return check_engine_args(engine, args)
    except ImportError:  # the module, or the engine it imports
        pass
    python = os.environ.get(ENGINE_PYTHON_ENV)
    if not python:
        return None
    try:
        proc = subprocess.run(
            [python, "-m", "llm_platform.engine_args", "--engine", engine, "--", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def check_serve(spec: JobSpec, team: TeamConfig, registry: Any, result: Result) -> Any:
    """The model version a serve job serves (llmft.registry.ResolvedModel), or a stand-in after adding every
    registry and engine problem to ``result`` (the placement is still checked with the stand-in)."""
    from llm_platform.engine_flags import flag_problems

    from llmft.registry import RegistryUnavailable, ResolvedModel, resolve_model

    stand_in = ResolvedModel(name=spec.serve.model, version=0, model_dir="/fsx/models/unresolved", source="")
    args = list(spec.serve.engine_args)  # the allowlist took them already (llmft/spec.py, no engine needed)
    problems = engine_problems(spec.serve.engine, args) if args else []
    if problems is None:
        result.add(
            "engine",
            "skip",
            f"engine_args not checked here: {spec.serve.engine} is not installed in this "
            f"environment; set {ENGINE_PYTHON_ENV} to an interpreter with the training "
            f"package and {spec.serve.engine} (e.g. .train-venv/bin/python) to check them "
            f"with the engine's own parser (the engine also refuses them when it starts)",
        )
    for problem in problems or []:
        result.add("engine", "FAIL", f"serve.engine_args: {problem}")
    if problems == []:
        result.add("engine", "ok", f"{spec.serve.engine} accepts engine_args {args}" if args else "no engine_args")
    if registry is None:
        result.add(
            "registry",
            "FAIL",
            "no model registry to resolve serve.model: run llmft where MLFLOW_TRACKING_URI "
            "is set (the Studio terminal), or render from a snapshot with --registry FILE",
        )
        return stand_in
    try:
        model, problems = resolve_model(spec, team, registry)
    except RegistryUnavailable as exc:
        result.add("registry", "FAIL", str(exc))
        return stand_in
    for problem in problems:
        result.add("registry", "FAIL", problem)
    if model is None:
        return stand_in
    chosen = f" (alias {model.alias})" if model.alias else ""
    result.add("registry", "ok", f"{model.name} version {model.version}{chosen} from {model.model_dir}")
    for problem in flag_problems(args, model_dir=model.model_dir):  # paths inside the resolved version only
        result.add("engine", "FAIL", f"serve.{problem}")
    return model


def _team_of(
    spec: JobSpec, *, config: EnvironmentConfig, context_namespace: str | None, result: Result
) -> TeamConfig | None:
    """The job's team (from the spec or the kube context), or None after adding why there is none."""
    team_name = spec.team or context_namespace
    if not team_name:
        result.add(
            "team",
            "FAIL",
            "no team: set team in the spec or use a kube context whose namespace is your "
            "team's (the Studio terminal is set up so)",
        )
        return None
    try:
        team = config.kubernetes.team(team_name)
    except ValueError as exc:
        result.add("team", "FAIL", f"{exc}{odd_characters(team_name)}; set team in the spec")
        return None
    result.team = team
    result.add("team", "ok", f"{team.name} (namespace {team.namespace})")
    return team


def _check_team_rules(spec: JobSpec, *, team: TeamConfig, config: EnvironmentConfig, result: Result) -> None:
    """Check the spec against the team's rules: its tier and priority class, paths, image and settings."""
    if spec.tier not in team.allowed_tiers:
        result.add(
            "tier",
            "FAIL",
            f"team {team.name!r} may not submit {spec.tier!r} jobs; its allowed tiers "
            f"(kubernetes.teams[].allowed_tiers) are {', '.join(team.allowed_tiers)}",
        )
    else:
        result.add("tier", "ok", spec.tier)
    if spec.tier in team.allowed_tiers:
        from k8s_charts.tiers import tier as tier_named

        try:
            tier_named(spec.tier).priority_class_for(spec.priority_class)
        except ValueError as exc:
            result.add("priority", "FAIL", str(exc))
    path_problems = check_paths(spec, team.name)
    for problem in path_problems:
        result.add("paths", "FAIL", problem)
    if not path_problems:
        result.add("paths", "ok", f"inside {TEAM_MOUNT_PATH} (the team's tree)")
    foreign = check_image_is_platform(spec, config)
    if foreign:
        result.add("image", "FAIL", foreign)
    for problem in check_settings(spec):
        result.add("settings", "FAIL", problem)


def _plan_of(
    spec: JobSpec,
    *,
    config: EnvironmentConfig,
    team: TeamConfig,
    values: PlatformValues,
    image: str,
    registry: Any,
    result: Result,
) -> Plan | None:
    """The job's plan, or None after adding its step file's and placement's problems."""
    model = check_serve(spec, team, registry, result) if spec.serve else None
    # every problem at once: the step file and the placement are checked even when a rule above failed
    try:
        return build(spec, config=config, team=team, values=values, image=image, model=model)
    except StepProblems as exc:
        for problem in exc.problems:
            result.add(job_type(spec.type).settings_section, "FAIL", problem)
    except BuildError as exc:
        if str(exc) not in [c.message for c in result.failures()]:  # e.g. the priority class, reported above
            result.add(getattr(exc, "check", "placement"), "FAIL", str(exc))
    return None


def _check_fit(plan: Plan, *, config: EnvironmentConfig, values: PlatformValues, result: Result) -> None:
    """Check that every pod of the plan fits every node kind it may land on."""
    for where, pod in plan.pod_specs():
        request = pod_request_of(pod)
        kinds = pod_kinds(values.node_kinds, pod)
        if not kinds:
            result.add("fit", "FAIL", f"{where}: no node kind of {config.name} matches its placement")
            continue
        misses = [f"{k.name} ({why_not(request, k)})" for k in kinds if not fits(request, k)]
        if misses:
            result.add(
                "fit",
                "FAIL",
                f"{where} requests {request.describe()}, more than {'; '.join(misses)} can "
                f"allocate; lower cpu/memory_gib/gpus_per_node",
            )
    if all(c.name != "fit" for c in result.checks):
        result.add("fit", "ok", f"every pod fits every node kind it may land on ({len(plan.pod_specs())} pods)")


def _check_quota(plan: Plan, *, team: TeamConfig, cluster: Cluster | None, result: Result) -> None:
    """Check the job's GPUs against the team's quota, and against its usage when a cluster is given."""
    if plan.gpus > team.gpu_quota:
        result.add(
            "quota",
            "FAIL",
            f"the job needs {plan.gpus} GPUs at once but team {team.name!r} may hold at most "
            f"{team.gpu_quota} (kubernetes.teams[].gpu_quota); use fewer nodes or GPUs",
        )
    elif cluster is not None:
        try:
            quota = cluster.gpu_quota(team.namespace)
        except ClusterError as exc:
            result.add("quota", "skip", f"cluster quota not read ({exc})")
        else:
            if quota and quota[0] + plan.gpus > quota[1]:
                result.add(
                    "quota",
                    "FAIL",
                    f"the job needs {plan.gpus} GPUs but the team already uses {quota[0]} "
                    f"of {quota[1]}; wait for a job to finish or cancel one (`llmft list`)",
                )
            else:
                result.add(
                    "quota",
                    "ok",
                    f"{plan.gpus} GPUs within the team's quota" + (f" ({quota[0]}/{quota[1]} in use)" if quota else ""),
                )
    else:
        result.add("quota", "ok", f"{plan.gpus} GPUs <= team quota {team.gpu_quota} (cluster usage not checked)")


def preflight(
    spec: JobSpec,
    *,
    config: EnvironmentConfig,
    values: PlatformValues,
    image: str,
    context_namespace: str | None = None,
    cluster: Cluster | None = None,
    check_registry: bool = False,
    registry: Any = None,
) -> Result:
    """Every check of the module docstring. ``registry``: where a serve job's model is looked up
    (llmft.registry.Registry; serve jobs only)."""
    result = Result()
    team = _team_of(spec, config=config, context_namespace=context_namespace, result=result)
    if team is None:
        return result
    _check_team_rules(spec, team=team, config=config, result=result)
    if spec.tier not in team.allowed_tiers:
        return result  # nothing below means anything for a tier the team cannot use

    plan = _plan_of(spec, config=config, team=team, values=values, image=image, registry=registry, result=result)
    if plan is None or not result.ok:
        return result
    result.plan = plan
    for problem in check_outputs(plan):
        result.add("outputs", "FAIL", problem)
    for problem in check_model_settings(plan):
        if problem not in [c.message for c in result.checks]:
            result.add(job_type(spec.type).settings_section, "FAIL", problem)
    if cluster is not None:
        for problem in check_ownership(plan, cluster):
            result.add("outputs", "FAIL", problem)
    if plan.kinds:
        where = ", ".join(k.name for k in plan.allowed or plan.kinds)
        result.add("placement", "ok", f"{plan.kinds[0].instance_type} on {where}")

    memory = job_type(spec.type).memory  # the type's own check (llmft/memory_check.py, llm_platform.memory)
    if memory is not None and plan.kinds:
        for instance_type in dict.fromkeys(k.instance_type for k in plan.allowed or plan.kinds):
            status, message = memory(plan, instance_type)
            if message not in [c.message for c in result.checks]:  # e.g. a model of unknown shape: said once
                result.add("memory", status, message)
    _check_fit(plan, config=config, values=values, result=result)
    _check_quota(plan, team=team, cluster=cluster, result=result)
    if check_registry:
        result.checks.append(check_image(image))
    return result


def check_model_settings(plan: Plan) -> list[str]:
    """The sft step's rules that depend on the model (max_seq_length against its positions, LoRA targets against its
    linear modules: llm_platform.steps.model_problems) with its config.json read where llmft sees the team's tree
    (Studio's /teams/<team>, run --local's stand-in): the step file's own check reads it only under /fsx."""
    from llm_platform import steps

    from llmft.memory_check import readable_copies

    if plan.spec.type != "sft" or "model_id" not in plan.step:
        return []
    model = str(plan.step["model_id"])
    facts = steps.model_facts(model, readable_copies(model, plan.team.name))
    return steps.model_problems(plan.step, "settings.", facts)


def check_outputs(plan: Plan) -> list[str]:
    """Where a job writes never damages what it or its team reads (issue 41): no output folder equal to or around one
    of the job's own inputs (a merged model written into its base model's folder, an output on its dataset), and none
    at the team's root or one of the team's top folders (models, datasets, checkpoints, outputs) itself."""
    from llm_platform import steps as contract

    from k8s_charts.team_storage import team_paths

    kind = job_type(plan.spec.type)
    if kind.step is None or not plan.step:
        return []
    inputs, _ = contract.paths(kind.step, plan.step)
    roots = contract.output_dirs(kind.step, plan.step)
    paths = team_paths()
    top = {
        TEAM_MOUNT_PATH,
        *(str(getattr(paths, f)).rstrip("/") for f in ("models", "datasets", "checkpoints", "outputs")),
    }
    out = []
    for root in roots:
        if root.rstrip("/") in top:
            out.append(
                f"output {root!r} is the team's folder itself: the job would write among every other job's files; "
                f"give it a folder of its own, e.g. {root.rstrip('/')}/{plan.spec.name}"
            )
        for item in inputs:
            if item.startswith("/") and (posixpath.normpath(item) + "/").startswith(posixpath.normpath(root) + "/"):
                out.append(
                    f"output {root!r} is {'the' if item.rstrip('/') == root.rstrip('/') else 'around the'} "
                    f"input {item!r} of this job: it would overwrite what it reads; give it another output"
                )
    return out


def check_ownership(plan: Plan, cluster: Cluster) -> list[str]:
    """A job's outputs are its own: refused when another llmft job of the namespace (its step ConfigMap, annotation
    ``llmft/outputs``) writes the same directory, one inside it or one around it. A job of the same name is refused
    by the cluster itself (llmft.cluster.create_job: never two jobs of one name)."""
    from llmft.build import OUTPUTS_ANNOTATION, outputs_of, overlaps

    mine = outputs_of(plan)
    try:
        others = cluster.job_outputs(plan.team.namespace)
    except ClusterError as exc:
        return (
            []
            if "not found" in str(exc)
            else [f"the outputs of the namespace's jobs could not be read ({exc}); retry, or check your kube context"]
        )
    out = []
    for job, paths in sorted(others.items()):
        if job == plan.spec.name:
            continue
        clash = [(m, o) for m in mine for o in paths if overlaps(m, o)]
        if clash:
            m, o = clash[0]
            out.append(
                f"output {m!r} belongs to job {job!r} (it writes {o!r}, ConfigMap annotation "
                f"{OUTPUTS_ANNOTATION}): a second job there would resume its checkpoints, log into its MLflow "
                f"run and overwrite its model; give this job its own output, or resubmit {job!r} itself to "
                f"resume it"
            )
    return out
