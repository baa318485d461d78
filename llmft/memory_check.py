"""Preflight's memory check of every job type that loads weights (the ``memory`` hook of its record,
llmft/job_types/): whether the model fits the GPUs of a node kind the job may land on, with the training package's
own memory model (:mod:`llm_platform.memory`). Each hook takes the job's plan and one instance type and returns
("ok" | "FAIL", message); a model whose shape cannot be found is a failure naming the fix, never a skip.

The model's shape, in this order (:func:`llm_platform.memory.resolve_dims`): its ``config.json`` where llmft can
read it (a path under the pods' ``/fsx`` is the team's FSx tree: ``$LLMFT_LOCAL_FSX`` under `llmft run --local`,
``/teams/<team>`` in SageMaker Studio, ``/fsx`` itself inside a pod); the spec's ``model_shape``; a known shape in
the model's name; a parameter count in the name (a conservative stand-in); else refused.
"""

from __future__ import annotations

import math
import os
from dataclasses import fields
from typing import Any

from llm_platform import memory as mem
from llm_platform.paths import LOCAL_FSX_ENV, TEAM_MOUNT_PATH
from llm_platform.steps import STEPS

Status = tuple[str, str]


def readable_copies(path: str, team: str) -> tuple[str, ...]:
    """Where ``path`` (as the team's pods name it) can be read from here: under /fsx, the local stand-in of a
    `llmft run --local` (``$LLMFT_LOCAL_FSX``), the Studio mount of the team's tree (``/teams/<team>``, the same
    directory the pods mount at /fsx: k8s_charts.team_storage) and /fsx itself; any other path as it is."""
    from k8s_charts.team_storage import team_fs_path

    if path != TEAM_MOUNT_PATH and not path.startswith(TEAM_MOUNT_PATH + "/"):
        return (path,)
    rest = path[len(TEAM_MOUNT_PATH) :]
    local = os.environ.get(LOCAL_FSX_ENV)
    return ((local.rstrip("/") + rest,) if local else ()) + (team_fs_path(team) + rest, path)


def model_dims(plan: Any, model: str) -> tuple[mem.ModelDims | None, str]:
    """(the shape of ``model``, where it came from) or (None, why not and the fix) for the job of ``plan``."""
    return spec_dims(plan.spec, plan.team.name, model)


def spec_dims(spec: Any, team: str, model: str) -> tuple[mem.ModelDims | None, str]:
    """:func:`model_dims` before a plan exists: the spec's ``model_shape`` and the team's readable copies."""
    shape = spec.model_shape
    if shape is not None and not isinstance(shape, str):
        shape = shape.model_dump(exclude_none=True)
    return mem.resolve_dims(model, readable=readable_copies(model, team), shape=shape)


def _gpu_gib(instance_type: str) -> float:
    memory, _ = mem.gpu_memory_gib(instance_type)
    return memory


def _defaults(step: str) -> dict[str, Any]:
    return {f.name: f.default for f in fields(STEPS[step].schema_class())}


HOST_OVERHEAD_GIB = 2.0
"""The step's process beside the weights in host memory: Python, torch and transformers imported, the tokenizer."""


def pod_memory_gib(plan: Any) -> float | None:
    """Memory of the job's largest pod as rendered (the containers' limits, else requests), in GiB; None: unset."""
    from k8s_charts.node_shapes import parse_quantity

    largest = 0
    for _, pod in plan.pod_specs():
        total = 0
        for container in pod.get("containers", []):
            resources = container.get("resources", {})
            amount = resources.get("limits", {}).get("memory") or resources.get("requests", {}).get("memory")
            total += parse_quantity(amount, cpu=False) if amount else 0
        largest = max(largest, total)
    return largest / 1024 if largest else None


def host_memory(plan: Any, dims: mem.ModelDims, why: str) -> Status | None:
    """A FAIL when the pod's memory is below one bf16 copy of the weights plus the process (issue 41's "pod memory
    floor from the weights"): ``why`` names the step's load that holds that copy in host memory. None: it fits."""
    pod = pod_memory_gib(plan)
    floor = mem.weights_gib(dims) + HOST_OVERHEAD_GIB
    if pod is None or pod >= floor:
        return None
    return (
        "FAIL",
        f"memory_gib: the pod has {pod:g} GiB of memory but {why} holds the {dims.name} weights in host memory "
        f"({mem.weights_gib(dims):.1f} GiB in bf16, plus ~{HOST_OVERHEAD_GIB:g} GiB for the process): set "
        f"memory_gib to at least {math.ceil(floor)} or leave it unset (sized from the node kind)",
    )


def sft(plan: Any, instance_type: str) -> Status:
    """The SFT step's own plan (micro-step tokens, checkpointing) for the model on this GPU; the pod's memory against
    the merge of the adapter into the base model, which loads the whole base model on the CPU (llm_platform.sft)."""
    dims, source = model_dims(plan, str(plan.step.get("model_id", "")))
    if dims is None:
        return "FAIL", source
    merges = plan.step.get("merge_weights", _defaults("sft").get("merge_weights", True))
    host = host_memory(plan, dims, "merging the adapter (merge_weights)") if merges else None
    if host is not None:
        return host
    status, message = mem.preflight_check(plan.step, instance_type=instance_type, gpus=plan.gpus, dims=dims)
    return status, f"{message} [shape: {source}]"


def evaluate(plan: Any, instance_type: str) -> Status:
    """Generation with the fine-tuned model, then the base model (one at a time, llm_platform.evaluate); a
    fine-tuned model whose own shape is not found has its base model's."""
    step, defaults = plan.step, _defaults("evaluate")
    tuned, source = model_dims(plan, str(step.get("finetuned_model_path", "")))
    base, base_source = model_dims(plan, str(step.get("base_model_path", "")))
    if tuned is None and base is not None:
        tuned, source = base, f"{base_source}, the base model's (a fine-tune keeps its base's shape)"
    if tuned is None:
        return "FAIL", source
    host = host_memory(plan, tuned, "loading the model (on the CPU, then moved to the GPU: llm_platform.evaluate)")
    if host is not None:
        return host
    try:
        gpu = _gpu_gib(instance_type)
    except ValueError as exc:
        return "FAIL", f"{exc}; add it to config/data/instance_specs.yaml"
    batch = int(step.get("batch_size", defaults["batch_size"]))
    new = int(step.get("max_new_tokens", defaults["max_new_tokens"]))
    results = [(tuned, source)] + ([(base, base_source)] if base is not None and base != tuned else [])
    lines = []
    for dims, where in results:
        fits, message = mem.generation_check(dims, gpu, batch=batch, new_tokens=new)
        if not fits:
            return "FAIL", f"{instance_type}: {message} [shape: {where}]"
        lines.append(f"{message} [shape: {where}]")
    return "ok", f"{instance_type}: " + "; ".join(lines)


def benchmark(plan: Any, instance_type: str) -> Status:
    """Every recipe the benchmark runs (its recipe + each variant's overrides) with the SFT step's plan for the
    shape it builds (settings.shape), on the one GPU it measures."""
    from llm_platform.bench import split_variant

    step = plan.step
    dims = mem.shape_named(step["shape"])
    failed, fine = [], []
    for variant in step.get("variants") or ["recipe:"]:
        name, overrides = split_variant(variant)
        recipe = {**(step.get("recipe") or {}), **overrides, "model_id": step["shape"]}
        status, message = mem.preflight_check(recipe, instance_type=instance_type, gpus=1, dims=dims)
        (fine if status == "ok" else failed).append(f"recipe {name}: {message}")
    if failed:
        return "FAIL", "; ".join(failed) + " (settings.recipe / settings.variants)"
    return "ok", "; ".join(fine)


ENGINE_MODULE = "sglang.launch_server"  # the engine's module in the rendered command (llmft/serve_build.py)
TP_FLAGS = ("--tp-size", "--tp", "--tensor-parallel-size")  # SGLang 0.5.21's names of one setting (engine_flags.py)


def _engine_command(plan: Any) -> list[str]:
    """The engine's command line as rendered in the Deployment (the platform's flags + serve.engine_args)."""
    for doc in plan.manifests:
        if doc.get("kind") == "Deployment":
            for container in doc["spec"]["template"]["spec"].get("containers", []):
                if ENGINE_MODULE in container.get("command", []):
                    return [str(part) for part in container["command"]]
    return []


def _flag(command: list[str], name: str) -> str | None:
    """The value of ``name`` in an argparse-style command line (``--name v`` or ``--name=v``; the last one wins)."""
    value = None
    for i, part in enumerate(command):
        if part == name and i + 1 < len(command):
            value = command[i + 1]
        elif part.startswith(name + "="):
            value = part.split("=", 1)[1]
    return value


def serve(plan: Any, instance_type: str) -> Status:
    """SGLang's static pool on one GPU of the kind: the weights / tensor parallel and the KV cache of one request
    of the whole context (``--context-length``, else the model's ``max_position_embeddings``)."""
    dims, source = model_dims(plan, plan.model.model_dir)
    if dims is None:
        return "FAIL", source
    try:
        gpu = _gpu_gib(instance_type)
    except ValueError as exc:
        return "FAIL", f"{exc}; add it to config/data/instance_specs.yaml"
    command = _engine_command(plan)
    tp = int(next((v for v in (_flag(command, f) for f in TP_FLAGS) if v), 1))
    context, fraction = _flag(command, "--context-length"), _flag(command, "--mem-fraction-static")
    try:
        fits, message = mem.serve_check(
            dims,
            gpu,
            tp=tp,
            context_length=int(context) if context else None,
            mem_fraction_static=float(fraction) if fraction else None,
        )
    except ValueError:  # engine_args the engine's parser refuses: the engine check reports them
        return (
            "FAIL",
            f"serve.engine_args: --context-length {context!r} / --mem-fraction-static {fraction!r} are not numbers",
        )
    return ("ok" if fits else "FAIL"), f"{instance_type}: {message} [shape: {source}]"
