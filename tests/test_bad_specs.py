"""Issue 31: a job spec llmft accepts is a job that runs and does what it says.

One row per class of bad spec (and its variants): `llmft render` exits 1, names the field and the fix, and never shows
a traceback. The rows whose rule belongs to the step (classes 1 and 2) also run the rendered step file through the
step's real `--check` in the training virtualenv, which must refuse it the same way: the rule is the step's own,
llmft only runs it early. The output-collision case runs for real with `llmft run --local`.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
import yaml

from config import load_config
from k8s_charts.values import PlatformValues
from llmft.build import build, step_file
from llmft.cli import main
from llmft.preflight import preflight
from llmft.spec import parse_spec

from .conftest import ROOT

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

EXAMPLES = ROOT / "examples" / "jobs"
TRAIN_PYTHON = ROOT / ".train-venv" / "bin" / "python"
SFT = yaml.safe_load((EXAMPLES / "04-sft-medical.yaml").read_text())
EVAL = yaml.safe_load((EXAMPLES / "05-evaluate.yaml").read_text())
GRPO = yaml.safe_load((EXAMPLES / "06-grpo-gsm8k.yaml").read_text())
DOWNLOAD = yaml.safe_load((EXAMPLES / "01-download-model.yaml").read_text())
PREPARE = yaml.safe_load((EXAMPLES / "02-prepare-medical.yaml").read_text())
CUSTOM_RAY = yaml.safe_load((EXAMPLES / "custom-ray.yaml").read_text())
SERVE = yaml.safe_load((EXAMPLES / "07-serve-medical.yaml").read_text())
SERVE_PROD = yaml.safe_load((EXAMPLES / "serve-production.yaml").read_text())
REGISTRY = ROOT / "examples" / "registry.yaml"  # the examples' snapshot of registered versions (llmft/registry.py)
CONFIG = load_config("dev")


def sft(**settings: Any) -> dict[str, Any]:
    return {**SFT, "settings": {**SFT["settings"], **settings}}


def grpo(**settings: Any) -> dict[str, Any]:
    return {**GRPO, "grpo": {**GRPO["grpo"], **settings}}


def evaluate(**settings: Any) -> dict[str, Any]:
    return {**EVAL, "settings": {**EVAL["settings"], **settings}}


# (case, spec, pattern of the message: the field and the fix, whether the step's own --check refuses it too)
ROWS: list[tuple[str, dict[str, Any], str, bool]] = [
    # 1. the step's own validation, at preflight
    ("1 bf16 and fp16", sft(fp16=True), r"settings.bf16, settings.fp16: both true.*remove fp16", True),
    (
        "1 fsdp_config value not a boolean",
        sft(fsdp=True, fsdp_config={"reshard_after_forward": "maybe"}),
        r"settings.fsdp_config.reshard_after_forward: 'maybe' is not true or false; write true or false",
        True,
    ),
    (
        "1 fsdp_config a file name",
        sft(fsdp=True, fsdp_config="fsdp.json"),
        r"settings.fsdp_config: 'fsdp.json' is a file name.*give fsdp_config as a mapping",
        True,
    ),
    (
        "1 fsdp_config wrap policy",
        sft(fsdp=True, fsdp_config={"auto_wrap_policy": "LAYER_WRAP"}),
        r"settings.fsdp_config.auto_wrap_policy: 'LAYER_WRAP'; use one of TRANSFORMER_BASED_WRAP",
        True,
    ),
    (
        "1 fsdp as a string",
        sft(fsdp="full_shard"),
        r"settings.fsdp: 'full_shard' as a string; write fsdp: true and put the sharding in fsdp_config",
        True,
    ),
    (
        "1 deepspeed",
        sft(deepspeed={"zero_optimization": {"stage": 2}}),
        r"settings.deepspeed: the platform's sft image has no DeepSpeed; shard with fsdp: true",
        True,
    ),
    (
        "1 comma in a GRPO data path",
        {**GRPO, "dataset": "/fsx/datasets/gsm8k,/fsx/datasets/other"},
        r"train_files '/fsx/datasets/gsm8k,/fsx/datasets/other/train.parquet' contains ',', which VeRL's Hydra "
        r"overrides would read as syntax \(a list of values\).*rename it",
        True,
    ),
    # 2. values that parse but make no sense: ranges in the step contract, with the reason
    (
        "2 negative learning rate",
        sft(learning_rate=-2e-4),
        r"settings.learning_rate: -0.0002 is out of range: use a value > 0 and <= 1 \(a learning rate of 0 or less",
        True,
    ),
    (
        "2 lora_r 0",
        sft(lora_r=0),
        r"settings.lora_r: 0 is out of range: use a value >= 1 .*\(rank 0 adapts nothing\)",
        True,
    ),
    (
        "2 batch size 0",
        sft(per_device_train_batch_size=0),
        r"settings.per_device_train_batch_size: 0 is out of range: use a value >= 1 \(a batch of 0 examples",
        True,
    ),
    (
        "2 accumulation 0",
        sft(gradient_accumulation_steps=0),
        r"settings.gradient_accumulation_steps: 0 is out of range: use a value >= 1",
        True,
    ),
    (
        "2 max_seq_length -1",
        sft(max_seq_length=-1),
        r"settings.max_seq_length: -1 is out of range: use a value >= 1",
        True,
    ),
    (
        "2 zero epochs",
        sft(num_train_epochs=0),
        r"settings.num_train_epochs: 0 is out of range: use a value > 0 \(0 epochs trains nothing, exits 0 and "
        r"registers the untrained base model\)",
        True,
    ),
    ("2 max_steps 0", sft(max_steps=0), r"settings.max_steps: 0 is out of range: use a value >= 1 or -1", True),
    (
        "2 save_steps beyond the run",
        {**sft(max_steps=50, save_steps=100), "tier": "production", "team": "hyperpod-platform"},
        r"settings.save_steps: 100 is more than max_steps 50, so the run writes no checkpoint and a restarted pod "
        r"starts from zero; use save_steps <= 50",
        True,
    ),
    (
        "2 production save_steps of an epoch-based run",
        {**SFT, "tier": "production", "team": "hyperpod-platform"},
        r"settings.save_steps: 100 steps in a production job that trains by epochs: .*restarts it from zero; give "
        r"save_steps as a fraction of the run \(e.g. 0.1: every 10%\), or set max_steps",
        False,
    ),
    (
        "2 production save_steps default",
        {**SFT, "tier": "production", "team": "hyperpod-platform", "settings": {"num_train_epochs": 1}},
        r"settings.save_steps: 500 \(the default\) steps in a production job",
        False,
    ),
    (
        "2 evaluate max_samples -10",
        evaluate(max_samples=-10),
        r"settings.max_samples: -10 is out of range: use a value >= 1 \(test examples to score",
        True,
    ),
    (
        "2 prepare-data max_samples -10",
        {**PREPARE, "settings": {**PREPARE.get("settings", {}), "max_samples": -10}},
        r"settings.max_samples: -10 is out of range",
        True,
    ),
    (
        "2 GRPO tensor parallel 0",
        grpo(tensor_parallel_size=0),
        r"grpo.tensor_parallel_size: 0 is out of range: use a value >= 1 and <= 8",
        True,
    ),
    (
        "2 GRPO negative tensor parallel",
        grpo(tensor_parallel_size=-2),
        r"grpo.tensor_parallel_size: -2 is out of range",
        True,
    ),
    ("2 GRPO mini batch 0", grpo(ppo_mini_batch_size=0), r"grpo.ppo_mini_batch_size: 0 is out of range", True),
    (
        "2 GRPO memory utilisation 1.5",
        grpo(rollout_gpu_memory_utilization=1.5),
        r"grpo.rollout_gpu_memory_utilization: 1.5 is out of range: use a value > 0 and <= 1 \(the fraction of GPU "
        r"memory",
        True,
    ),
    ("2 GRPO zero epochs", grpo(total_epochs=0), r"grpo.total_epochs: 0 is out of range: use a value >= 1", True),
    # 4. credentials and egress
    (
        "4 platform secret re-mapped",
        {**SFT, "secret_env": {"MY_PASS": {"secret": "mlflow-credentials", "key": "MLFLOW_TRACKING_PASSWORD"}}},
        r"secret_env: MY_PASS \(mlflow-credentials\) reads a Secret the platform owns.*cannot be copied",
        False,
    ),
    (
        "4 $(VAR) in an env value",
        {**SFT, "env": {"LEAK": "x$(MLFLOW_TRACKING_PASSWORD)"}},
        r"env.LEAK: .* contains \$\(MLFLOW_TRACKING_PASSWORD\), which Kubernetes replaces with another variable's "
        r"value; env values are literal: write \$\$\(\.\.\.\)",
        False,
    ),
    (
        "4 Hydra interpolation in a GRPO path",
        {**GRPO, "dataset": "/fsx/datasets/${oc.env:AWS_SECRET_ACCESS_KEY}"},
        r"train_files .* contains '\$\{', which VeRL's Hydra overrides would read as syntax \(an interpolation Hydra "
        r"resolves\)",
        True,
    ),
    (
        "4 push_to_hub",
        sft(push_to_hub=True),
        r"settings.push_to_hub: true would upload the team's weights to the Hugging Face Hub.*remove it",
        True,
    ),
    (
        "4 report_to wandb",
        sft(report_to="wandb"),
        r"settings.report_to: wandb would send the team's metrics outside the platform.*use none",
        True,
    ),
    ("4 report_to list", sft(report_to=["mlflow", "comet_ml"]), r"settings.report_to: comet_ml would send", True),
    (
        "4 built-in step in a foreign image",
        {**SFT, "image": "docker.io/someone/trainer:1.0"},
        r"image 'docker.io/someone/trainer:1.0': type sft runs the platform's sft image \(.*llmft-dev/sft:<tag>\).*"
        r"use type custom",
        False,
    ),
    # 5. pinning and formats
    (
        "5 Hub id as evaluate's base model",
        evaluate(base_model_path="Qwen/Qwen2.5-1.5B-Instruct"),
        r"settings.base_model_path 'Qwen/Qwen2.5-1.5B-Instruct' is not a path; .*unpinned: download it with a "
        r"download-model job",
        False,
    ),
    (
        "5 Hub id as the tokenizer",
        {**PREPARE, "settings": {**PREPARE.get("settings", {}), "tokenizer_path": "Qwen/Qwen2.5-1.5B-Instruct"}},
        r"settings.tokenizer_path 'Qwen/Qwen2.5-1.5B-Instruct' is not a path",
        False,
    ),
    (
        "5 built-in dataset at a branch",
        {**PREPARE, "settings": {"tokenizer_path": "/fsx/models/Qwen2.5-1.5B-Instruct", "revision": "main"}},
        r"revision 'main' is not a commit sha; a built-in dataset is read at a pinned commit .*set revision to the "
        r"40-hex commit of FreedomIntelligence/medical-o1-reasoning-SFT",
        True,
    ),
    (
        "5 local file without format",
        {**PREPARE, "dataset": "/fsx/raw/medical.jsonl"},
        r"format: a local file source \(/fsx/raw/medical.jsonl\) needs its format.*sft-r1 \(Question, Complex_CoT",
        True,
    ),
    (
        "5 local file of an unknown kind",
        {**PREPARE, "dataset": "/fsx/raw/medical.txt", "settings": {"format": "sft-r1"}},
        r"source '/fsx/raw/medical.txt' is neither a built-in dataset .* nor a .jsonl, .json, .parquet or .csv file",
        True,
    ),
    # 6. sizes
    # a spec file is at most 1,000,000 bytes (config.strict_yaml), but its step file is written with escapes: 400,000
    # 'é' (800 kB of UTF-8) become 1.6 MB of '\xE9'
    (
        "6 step file over the ConfigMap limit",
        sft(lora_target_modules=".*(q_proj|" + "\u00e9" * 400_000 + ")$"),  # a pattern that matches q_proj
        r"the step file is \d+ bytes as its ConfigMap medical-sft-step, more than the 1024 KiB Kubernetes stores",
        False,
    ),
    (
        "6 env value too large",
        {**SFT, "env": {"BIG": "x" * 200_000}},
        r"env.BIG: 200000 bytes, more than the 32 KiB an environment value may have.*put the data in a file",
        False,
    ),
    # 7. placement
    (
        "7 evaluate on several GPUs",
        {**EVAL, "gpus_per_node": 8},
        r"type evaluate is one process on one GPU .*use nodes: 1 and gpus_per_node: 1",
        False,
    ),
    # 8. a CPU-edited spec never becomes a GPU job that ignores its GPUs
    (
        "8 use_cpu in a spec",
        sft(use_cpu=True, bf16=False),
        r"settings.use_cpu: true makes the step ignore the GPUs the job holds; remove it \(`llmft run --local` adapts",
        False,
    ),
    # 9. messages that point at the problem
    (
        "9 look-alike letter in the name",
        {**SFT, "name": "medic\u0430l-sft"},
        r"name 'medic\u0430l-sft' is not a valid job name.*character 6 is U\+0430 CYRILLIC SMALL LETTER A, not ASCII",
        False,
    ),
    (
        "9 look-alike letter in a setting",
        {**SFT, "settings": {"l\u043era_r": 8}},
        r"settings.l\u043era_r: not a setting of the sft step \(character 2 is U\+043E CYRILLIC SMALL LETTER O",
        False,
    ),
    (
        "9 look-alike letter in the team",
        {**SFT, "team": "ml-r\u0435search"},
        r"unknown team 'ml-r\u0435search'.*character 5 is U\+0435 CYRILLIC SMALL LETTER IE",
        False,
    ),
    (
        "9 unknown key of a secret_env entry",
        {**SFT, "secret_env": {"HF_TOKEN": {"secret": "hf-token", "key": "token", "namespace": "other"}}},
        r"secret_env.HF_TOKEN.namespace: unknown key; remove it or fix its spelling \(known keys here: secret, key\)",
        False,
    ),
    (
        "9 the team's Studio path",
        {**SFT, "dataset": "/teams/ml-research/datasets/medical-o1"},
        r"dataset '/teams/ml-research/datasets/medical-o1' is your team's directory as your Studio space mounts it; "
        r".*write '/fsx/datasets/medical-o1'",
        False,
    ),
    (
        "9 bad ray_version",
        {
            **CUSTOM_RAY,
            "image": "rayproject/ray:2.55.1-gpu",
            "custom": {**CUSTOM_RAY["custom"], "ray_version": "latest"},
        },
        r"custom.ray_version 'latest' is not a Ray version; give the image's Ray release, e.g. 2.55.1",
        False,
    ),
    (
        "9 a list of LoRA modules",
        sft(lora_target_modules=["q_proj", "v_proj"]),
        r"settings.lora_target_modules: \['q_proj', 'v_proj'\] is a list; sft expects str \(one string: all-linear .*"
        r"regular expression",
        True,
    ),
    (
        "9 every problem at once (spec layer)",
        {**DOWNLOAD, "gpus": 8, "nodes": 2},
        r"gpus: unknown key.*\n.*type download-model is one CPU pod .*remove nodes",
        False,
    ),
    (
        "9 every problem at once (preflight layers)",
        {**sft(lora_r=0), "output": "/data/elsewhere"},
        r"output '/data/elsewhere' is outside the team's directory.*\n.*settings.lora_r: 0 is out of range",
        False,
    ),
    # 10: issue 41 (round 3): environment that redirects a built-in step, outputs over inputs, contradicting switches
    (
        "10 PYTHONPATH on a built-in step",
        {**SFT, "env": {"PYTHONPATH": "/fsx/hack"}},
        r"env: PYTHONPATH would load other code.*type custom",
        False,
    ),
    ("10 LD_PRELOAD on a built-in step", {**EVAL, "env": {"LD_PRELOAD": "/fsx/x.so"}}, r"env: LD_PRELOAD", False),
    (
        "10 CUDA_VISIBLE_DEVICES on a GPU job",
        {**SFT, "env": {"CUDA_VISIBLE_DEVICES": "0"}},
        r"env: CUDA_VISIBLE_DEVICES",
        False,
    ),
    (
        "10 HF_ENDPOINT beside a token",
        {
            **DOWNLOAD,
            "env": {"HF_ENDPOINT": "https://example.invalid"},
            "secret_env": {"HF_TOKEN": {"secret": "hf", "key": "token"}},
        },
        r"env: HF_ENDPOINT.*credentials elsewhere",
        False,
    ),
    (
        "10 merged model into its own base model",
        sft(merged_output_dir=SFT["model"]),
        r"output '/fsx/models/Qwen2.5-1.5B-Instruct' is the input",
        False,
    ),
    (
        "10 output on its own dataset",
        {**SFT, "output": SFT["dataset"]},
        r"output '/fsx/datasets/medical-o1' is around the input",
        False,
    ),
    (
        "10 output at the team root",
        {**SFT, "output": "/fsx/checkpoints"},
        r"output '/fsx/checkpoints' is the team's folder itself",
        False,
    ),
    (
        "10 liger off and use_liger_kernel on",
        sft(liger_kernel="false", use_liger_kernel=True),
        r"settings.liger_kernel: false and settings.use_liger_kernel: true contradict",
        True,
    ),
    # 11. what transformers refuses only in the pod, after queueing (llm_platform/step_enums.json, the step's rules)
    (
        "11 FSDP activation checkpointing with gradient_checkpointing",
        sft(fsdp=True, fsdp_config={"activation_checkpointing": True}, gradient_checkpointing=True),
        r"settings.fsdp_config.activation_checkpointing, settings.gradient_checkpointing: both true.*remove "
        r"gradient_checkpointing",
        True,
    ),
    (
        "11 attn_implementation typo",
        sft(attn_implementation="flash_attn_2"),
        r"settings.attn_implementation: 'flash_attn_2' is not one of auto and transformers .*did you mean "
        r"'flash_attention_2'",
        True,
    ),
    (
        "11 flash_attention_2 in an image without flash-attn",
        sft(attn_implementation="flash_attention_2"),
        r"settings.attn_implementation: 'flash_attention_2' needs flash-attn, which the sft image does not install "
        r"\(images/sft/requirements.lock\); use auto",
        True,
    ),
    (
        "11 max_seq_length beyond the model's positions",
        sft(max_seq_length=65536),
        r"settings.max_seq_length: 65536 is beyond the model's \d+ positions \(max_position_embeddings, .*use "
        r"max_seq_length <= \d+",
        True,
    ),
    (
        "11 LoRA target matching no module",
        sft(lora_target_modules=".*(query|value)$"),
        r"settings.lora_target_modules: '\.\*\(query\|value\)\$' matches no linear module of the qwen2 model.*use "
        r"all-linear or a pattern such as",
        True,
    ),
    ("11 optim typo", sft(optim="adamw"), r"settings.optim: 'adamw' is not one of TrainingArguments' optimizers", True),
    (
        "11 scheduler typo",
        sft(lr_scheduler_type="cosin"),
        r"settings.lr_scheduler_type: 'cosin' is not one of the scheduler types; did you mean 'cosine'",
        True,
    ),
]


def serve(base: dict[str, Any] | None = None, /, **fields: Any) -> dict[str, Any]:
    base = base or SERVE
    return {**base, "serve": {**base["serve"], **fields}}


def _render(spec_path: Path, *extra: str) -> tuple[int, str]:
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        code = main(["render", str(spec_path), "--env", "dev", *extra])
    return code, err.getvalue()


@pytest.mark.parametrize(("case", "data", "pattern", "step"), ROWS, ids=[r[0] for r in ROWS])
def test_bad_spec_exits_1_with_the_field_and_the_fix(
    tmp_path: Path, case: str, data: dict, pattern: str, step: bool
) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    code, err = _render(path)
    assert code == 1, f"{case}: accepted (exit {code}):\n{err}"
    assert "Traceback" not in err, err
    assert re.search(pattern, err), f"{case}: {pattern!r} not in:\n{err}"


# ---- type serve (issue 34): rendered with the examples' registry snapshot (--registry) ----------------------------
_NO_CHOICE = {k: v for k, v in SERVE["serve"].items() if k != "alias"}
SERVE_ROWS: list[tuple[str, dict[str, Any], str]] = [
    (
        "unknown model",
        serve(model="ml-research.no-such-model"),
        r"serve.model 'ml-research.no-such-model' is not a registered model .*register it first",
    ),
    (
        "unknown version",
        serve(alias=None, version=9),
        r"serve.version 9: ml-research.medical-sft has no version 9 \(its versions: 1, 2\); give one of them",
    ),
    (
        "unknown alias",
        serve(alias="champion"),
        r"serve.alias 'champion': ml-research.medical-sft has no alias 'champion' \(its aliases: evaluated\)",
    ),
    (
        "failed evaluation in production",
        serve(SERVE_PROD, alias=None, version=4),
        r"serve.version: hyperpod-platform.medical-sft version 4 is tagged llmft.evaluation=failed; tier production "
        r"serves only versions that passed evaluation \(llmft.evaluation=passed\)",
    ),
    (
        "unevaluated version in production",
        serve(SERVE_PROD, alias=None, version=5),
        r"version 5 has no tag llmft.evaluation; tier production serves only versions that passed evaluation",
    ),
    (
        "another team's model",
        serve(model="hyperpod-platform.medical-sft"),
        r"serve.model 'hyperpod-platform.medical-sft' is team hyperpod-platform's model; team ml-research serves only "
        r"its own registered models",
    ),
    (
        "tensor parallel beyond the node",
        {**serve(tensor_parallel=4), "gpus_per_node": None, "instance_type": "ml.g5.8xlarge"},
        r"serve.tensor_parallel 4 is more than the 1 GPUs per node of ml.g5.8xlarge .*multi-node serving is not "
        r"supported",
    ),
    (
        "tensor parallel not dividing the GPUs",
        {**serve(tensor_parallel=3), "gpus_per_node": 4},
        r"serve.tensor_parallel 3 does not divide gpus_per_node 4",
    ),
    (
        "min above max",
        serve(min_replicas=3, max_replicas=2),
        r"serve.min_replicas 3 is above serve.max_replicas 2; use min_replicas <= max_replicas",
    ),
    ("several nodes", {**SERVE, "nodes": 2}, r"nodes 2: multi-node serving is not supported.*use nodes: 1"),
    (
        "neither version nor alias",
        {**SERVE, "serve": _NO_CHOICE},
        r"serve: neither of version and alias given; give exactly one",
    ),
    ("both version and alias", serve(version=1), r"serve: both of version and alias given; give exactly one"),
    ("unknown engine", serve(engine="vllm"), r"serve.engine 'vllm' is not a serving engine; use one of sglang"),
    (
        "platform flag in engine_args",
        serve(engine_args=["--port", "8080"]),
        r"serve.engine_args: --port is set by the platform",
    ),
    (
        "scale to zero in production",
        serve(SERVE_PROD, min_replicas=0),
        r"serve.min_replicas 0 \(scale to zero\) is not allowed in tier production",
    ),
    (
        "a training field",
        {**SERVE, "dataset": "/fsx/datasets/medical-o1"},
        r"type serve takes its model under serve: .*remove dataset",
    ),
]


@pytest.mark.parametrize(("case", "data", "pattern"), SERVE_ROWS, ids=[r[0] for r in SERVE_ROWS])
def test_bad_serve_spec_exits_1_with_the_field_and_the_fix(tmp_path: Path, case: str, data: dict, pattern: str) -> None:
    path = tmp_path / "serve.yaml"
    path.write_text(yaml.safe_dump({k: v for k, v in data.items() if v is not None}, sort_keys=False))
    code, err = _render(path, "--registry", str(REGISTRY))
    assert code == 1, f"{case}: accepted (exit {code}):\n{err}"
    assert "Traceback" not in err, err
    assert re.search(pattern, err), f"{case}: {pattern!r} not in:\n{err}"


@pytest.mark.parametrize(
    ("engine_args", "pattern"),
    [
        (["--no-such-sglang-flag", "1"], r"serve.engine_args: .*--no-such-sglang-flag"),
        (["--mem-fraction-static", "abc"], r"serve.engine_args: .*mem-fraction-static.*abc"),
    ],
)
def test_engine_args_the_engine_rejects(tmp_path: Path, monkeypatch, engine_args: list[str], pattern: str) -> None:
    """SGLang's own argument parser (sglang==0.5.21, llm_platform.engine_args) refuses them; llmft's environment has
    no SGLang (as in Studio), so preflight runs the parser in the training interpreter ($LLMFT_ENGINE_PYTHON)."""
    monkeypatch.setenv("LLMFT_ENGINE_PYTHON", str(TRAIN_PYTHON))
    path = tmp_path / "serve.yaml"
    path.write_text(yaml.safe_dump(serve(engine_args=engine_args), sort_keys=False))
    code, err = _render(path, "--registry", str(REGISTRY))
    assert code == 1 and "Traceback" not in err, err
    assert re.search(pattern, err), err
    path.write_text(yaml.safe_dump(serve(engine_args=["--mem-fraction-static", "0.85"]), sort_keys=False))
    code, err = _render(path, "--registry", str(REGISTRY))
    assert code == 0, err  # a flag SGLang takes passes


def test_engine_args_unchecked_without_the_engine_say_so(tmp_path: Path, monkeypatch) -> None:
    """Without SGLang (Studio) the platform's allowlist still holds, in llmft's own process (issue 40: a prefix of a
    platform flag, dummy weights, remote code); only SGLang's own parser is skipped, and llmft says so."""
    monkeypatch.delenv("LLMFT_ENGINE_PYTHON", raising=False)
    monkeypatch.setitem(sys.modules, "llm_platform.engine_args", None)  # as in Studio: no engine to import here
    path = tmp_path / "serve.yaml"

    def submit(engine_args: list[str]) -> tuple[int, str]:
        path.write_text(yaml.safe_dump(serve(engine_args=engine_args), sort_keys=False))
        err = io.StringIO()
        with redirect_stderr(err), redirect_stdout(io.StringIO()):
            code = main(["submit", str(path), "--env", "dev", "--dry-run", "--registry", str(REGISTRY)])
        return code, err.getvalue()

    for attack, said in (
        (["--no-such-sglang-flag", "1"], "--no-such-sglang-flag is not an engine flag the platform allows"),
        (["--model-pa", "/fsx/other"], "did you mean --model-path?"),
        (["--load-format", "dummy"], "--load-format 'dummy' is not one of"),
        (["--trust-remote-code"], "--trust-remote-code is refused"),
        (["--tokenizer-path", "/fsx/other/tok"], "must be an absolute path inside /fsx/checkpoints/medical-sft/merged"),
    ):
        code, err = submit(attack)
        assert code == 1 and said in err and "Traceback" not in err, (attack, err)
    code, err = submit(["--mem-fraction-static", "0.85"])
    assert code == 0 and "engine_args not checked here" in err, err


def test_the_serve_examples_render(tmp_path: Path) -> None:
    for path in (EXAMPLES / "07-serve-medical.yaml", EXAMPLES / "serve-production.yaml"):
        code, err = _render(path, "--registry", str(REGISTRY))
        assert code == 0, err


def test_every_class_has_rows() -> None:
    classes = {row[0].split()[0] for row in ROWS}
    assert classes == {"1", "2", "4", "5", "6", "7", "8", "9", "10", "11"}, classes  # 3: the tests below
    assert len(ROWS) >= 40


# ---- the step's own check refuses the same step files -----------------------------------------------------------
DRIVER = r"""
import contextlib, importlib, io, json, sys
results = []
for module, path in json.loads(sys.argv[1]):
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = importlib.import_module(module).main(["--config", path, "--check"])
        except BaseException as exc:  # a crash is what this test looks for
            import traceback
            traceback.print_exc(file=err)
            code = -1
    results.append({"code": code, "err": err.getvalue(), "out": out.getvalue()})
print(json.dumps(results))
"""


def _step_file(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    spec = parse_spec(data)
    team = CONFIG.kubernetes.team(spec.team or "ml-research")
    step, _ = step_file(spec, team, gpus_per_node=spec.gpus_per_node or 8)
    return spec.type, step


def test_the_steps_own_check_refuses_the_same_files(tmp_path: Path) -> None:
    """Classes 1 and 2 are the step's rules: its real `--check` (the first thing the pod runs), with the training
    stack installed, refuses each rendered step file with the same field, never with a traceback."""
    if not TRAIN_PYTHON.exists():
        pytest.skip(f"{TRAIN_PYTHON} is missing: run `make install`")
    from llm_platform.steps import STEPS

    rows = [r for r in ROWS if r[3]]
    jobs = []
    for i, (_case, data, _, _) in enumerate(rows):
        step_type, step = _step_file(data)
        path = tmp_path / f"{i}.yaml"
        path.write_text(yaml.safe_dump(step, sort_keys=False))
        jobs.append((STEPS[step_type].module, str(path)))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "training"), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(
        [str(TRAIN_PYTHON), "-c", DRIVER, json.dumps(jobs)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(results) == len(rows) >= 25
    for (case, _, pattern, _), got in zip(rows, results, strict=True):
        assert got["code"] == 1, f"{case}: the step's --check exit {got['code']}:\n{got['err']}{got['out']}"
        assert "Traceback" not in got["err"], f"{case}:\n{got['err']}"
        same = pattern.replace("settings.", "").replace("grpo.", "")  # the step file's keys have no section
        assert re.search(same, got["err"]), f"{case}: {same!r} not in the step's message:\n{got['err']}"


def test_crashing_settings_are_a_message_in_the_steps_check(tmp_path: Path) -> None:
    """What made `--check` itself crash (a deepspeed setting without DeepSpeed; GRPO sizes that divide by zero) is a
    refusal naming the field, in llmft's import of the contract and in the step."""
    from llm_platform.grpo_config import GrpoParameters
    from llm_platform.steps import problems

    step = _step_file(grpo(tensor_parallel_size=0))[1]
    assert problems("grpo", step) == [
        "tensor_parallel_size: 0 is out of range: use a value >= 1 and <= 8 (GPUs "
        "that shard one rollout engine, on one node)"
    ]
    with pytest.raises(ValueError, match="tensor_parallel_size: 0 is out of range"):
        GrpoParameters(**step)
    assert any("deepspeed" in p for p in problems("sft", _step_file(sft(deepspeed={"stage": 2}))[1]))


# ---- 3. outputs belong to one job ---------------------------------------------------------------------------------
class FakeCluster:
    def __init__(self, outputs: dict[str, list[str]]) -> None:
        self.outputs = outputs

    def job_outputs(self, namespace: str) -> dict[str, list[str]]:
        return self.outputs

    def gpu_quota(self, namespace: str):
        return None


def _preflight(data: dict[str, Any], cluster: Any):
    spec = parse_spec(data)
    return preflight(
        spec,
        config=CONFIG,
        values=PlatformValues.placeholders(CONFIG),
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/llmft-dev/sft:1.0-abc",
        cluster=cluster,
    )


def test_cluster_refuses_another_jobs_output() -> None:
    """The step ConfigMap of every job says what it writes (annotation llmft/outputs); a new job writing there, inside
    or around it is refused; the job itself (same name) is not."""
    plan = build(
        parse_spec(SFT),
        config=CONFIG,
        team=CONFIG.kubernetes.team("ml-research"),
        values=PlatformValues.placeholders(CONFIG),
        image="x.invalid/sft:1",
    )
    annotated = json.loads(plan.manifests[0]["metadata"]["annotations"]["llmft/outputs"])
    assert annotated == ["/fsx/checkpoints/medical-sft", "/fsx/checkpoints/medical-sft/merged"]
    # and the step in the pod marks its outputs with the job's name (llm_platform.steps.guard_outputs)
    from llmft.local import pod_environment

    assert pod_environment(plan)["PLATFORM_JOB_NAME"] == "medical-sft"
    cluster = FakeCluster({"medical-sft": annotated})
    thief = {**SFT, "name": "other-sft", "output": "/fsx/checkpoints/medical-sft", "experiment": "medical-sft"}
    result = _preflight(thief, cluster)
    assert [c.name for c in result.failures()] == ["outputs"], result.report()
    assert re.search(
        r"output '/fsx/checkpoints/medical-sft' belongs to job 'medical-sft' .*resume its checkpoints, "
        r"log into its MLflow run and overwrite its model; give this job its own output",
        result.failures()[0].message,
    )
    nested = {**SFT, "name": "other-sft", "output": "/fsx/checkpoints/medical-sft/again"}
    assert [c.name for c in _preflight(nested, cluster).failures()] == ["outputs"]
    assert _preflight(SFT, cluster).ok  # the same job: its own outputs
    assert _preflight({**SFT, "name": "other-sft"}, cluster).ok  # its default output is its own


def _local(spec: Path, fsx: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "training"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION": "1",
    }
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "llmft",
            "run",
            "--local",
            str(spec),
            "--env",
            "dev",
            "--fsx",
            str(fsx),
            "--python",
            str(TRAIN_PYTHON),
            *extra,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_local_run_refuses_another_jobs_output_for_real(tmp_path: Path) -> None:
    """`llmft run --local`: the first job's step marks its output (.llmft-job.json); a second job naming that output
    is refused (exit 1, the owner and the fix, nothing run); the first job runs again there (a resume)."""
    if not TRAIN_PYTHON.exists():
        pytest.skip(f"{TRAIN_PYTHON} is missing: run `make install`")

    fsx = tmp_path / "fsx"
    (fsx / "raw").mkdir(parents=True)
    rows = [
        {"question": f"{a} + {b}?", "answer": f"{a} + {b} = {a + b}\n#### {a + b}"} for a in range(5) for b in range(4)
    ]
    (fsx / "raw" / "gsm8k.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    first = {
        **yaml.safe_load((EXAMPLES / "03-prepare-gsm8k.yaml").read_text()),
        "dataset": "/fsx/raw/gsm8k.jsonl",
        "settings": {"format": "verl-gsm8k", "test_size": 0.2},
    }
    a = tmp_path / "a.yaml"
    a.write_text(yaml.safe_dump(first))
    proc = _local(a, fsx)
    assert proc.returncode == 0, proc.stderr[-3000:]
    output = fsx / "datasets" / first["name"]
    assert json.loads((output / ".llmft-job.json").read_text())["job"] == first["name"]
    assert (output / "train.parquet").is_file()
    b = tmp_path / "b.yaml"
    b.write_text(yaml.safe_dump({**first, "name": "other-gsm8k", "output": f"/fsx/datasets/{first['name']}"}))
    proc = _local(b, fsx)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert re.search(
        rf"\[FAIL\] outputs: output '/fsx/datasets/{first['name']}' belongs to job '{first['name']}'"
        rf".*give this job its own output",
        proc.stderr,
    ), proc.stderr
    assert _local(a, fsx).returncode == 0  # the same job again: reuse is explicit


def test_local_run_runs_the_steps_full_check_first(tmp_path: Path) -> None:
    """A step file the step's own check refuses at run time (here: a local source whose columns are not its
    format's, which only a machine that can read the file can see) fails with the step's message, nothing run."""
    if not TRAIN_PYTHON.exists():
        pytest.skip(f"{TRAIN_PYTHON} is missing: run `make install`")
    fsx = tmp_path / "fsx"
    (fsx / "raw").mkdir(parents=True)
    (fsx / "raw" / "medical.jsonl").write_text(
        json.dumps({"Question": "q", "Complex_CoT": "c", "Response": "r"}) + "\n"
    )
    spec = tmp_path / "p.yaml"
    spec.write_text(
        yaml.safe_dump({**PREPARE, "dataset": "/fsx/raw/medical.jsonl", "settings": {"format": "verl-gsm8k"}})
    )
    proc = _local(spec, fsx)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert re.search(
        r"the prepare-data step's own check refused .*format 'verl-gsm8k' reads the columns question, "
        r"answer, but medical.jsonl has Complex_CoT, Question, Response; it looks like format 'sft-r1'",
        proc.stderr,
        re.DOTALL,
    ), proc.stderr


# ---- 6. YAML that is no job spec ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        (
            "name: deep\ntier: research\ntype: custom\nsettings:\n  x: " + "[" * 450 + "]" * 450 + "\n",
            r"nested (more than 32 levels deep|too deeply to read)",
        ),
        (
            "base: &base {nodes: 1, tier: research}\nname: merged\ntype: evaluate\n<<: *base\ntier: production\n",
            r"YAML merge keys \(<<\) at line 4 override values silently",
        ),
    ],
)
def test_yaml_that_is_no_job_spec(tmp_path: Path, text: str, pattern: str) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(text)
    code, err = _render(path)
    assert code == 1 and "Traceback" not in err and re.search(pattern, err), err


def test_missing_spec_names_an_example_that_exists(tmp_path: Path) -> None:
    code, err = _render(tmp_path / "nope.yaml")
    example = re.search(r"such as (examples/jobs/\S+\.yaml)", err)
    assert code == 1 and example and (ROOT / example.group(1)).is_file(), err


# ---- 7. a step that is not distributed gets one process ------------------------------------------------------------
@pytest.mark.parametrize("env", ["dev", "prod"])
def test_evaluate_renders_one_process_on_one_gpu(env: str) -> None:
    """prod's GPU nodes have 8 GPUs: the evaluation still gets one, and one process (not 8 identical runs)."""
    config = load_config(env)
    data = {k: v for k, v in EVAL.items() if k not in ("gpus_per_node",)}
    data["team"] = "hyperpod-platform" if env == "prod" else "ml-research"
    data["tier"] = "development"
    spec = parse_spec(data)
    plan = build(
        spec,
        config=config,
        team=config.kubernetes.team(data["team"]),
        values=PlatformValues.placeholders(config),
        image="x.invalid/sft:1",
    )
    job = plan.manifests[-1]
    assert job["spec"]["nprocPerNode"] == "1", json.dumps(job)[:1500]
    template = job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    assert template["resources"]["limits"]["nvidia.com/gpu"] in (1, "1")
    assert plan.gpus == 1


# ---- 8. `llmft run --local` adapts a GPU spec for the CPU and says so ---------------------------------------------
def test_local_cpu_adaptation_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from llmft import local

    monkeypatch.setattr(local, "local_devices", lambda: 0)
    plan = build(
        parse_spec(sft(fsdp=True, fsdp_config={"reshard_after_forward": True})),
        config=CONFIG,
        team=CONFIG.kubernetes.team("ml-research"),
        values=PlatformValues.placeholders(CONFIG),
        image="x.invalid/sft:1",
    )
    err = io.StringIO()
    with redirect_stderr(err):
        _, _, step_path = local.prepare(plan, fsx=tmp_path, python="python", nproc=None, check=False)
    step = yaml.safe_load(step_path.read_text())
    assert step["bf16"] is False and step["use_cpu"] is True and "fsdp" not in step
    assert (
        "no GPU here: running sft on the CPU with bf16: false, use_cpu: true, fsdp removed, fsdp_config "
        "removed (the spec and its cluster job keep their settings)" in err.getvalue()
    )
    assert plan.step["bf16"] is True  # the cluster's step file is the spec's


def test_the_specs_copies_of_platform_constants_are_the_platforms() -> None:
    """llmft/spec.py loads without cdk8s, so it keeps copies: the Ray minimum and the platform's Secrets."""
    from k8s_charts.ray_job import MIN_TOKEN_AUTH_RAY
    from k8s_charts.values import MLFLOW_CREDENTIALS_SECRET
    from llmft import spec

    assert spec.MIN_TOKEN_AUTH_RAY == MIN_TOKEN_AUTH_RAY
    assert MLFLOW_CREDENTIALS_SECRET in spec.PLATFORM_SECRETS


def test_liger_kernel_false_the_documented_off_switch_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(sft(liger_kernel=False), sort_keys=False))
    code, err = _render(path)
    assert code == 0, err


@pytest.mark.parametrize("settings", [{"save_steps": 0.1}, {"max_steps": 200, "save_steps": 50}])
def test_a_production_sft_that_checkpoints_passes(tmp_path: Path, settings: dict) -> None:
    """The production rule leaves the two ways to be sure of checkpoints: a fraction of the run, or a fixed length."""
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump({**sft(**settings), "tier": "production", "team": "hyperpod-platform"}))
    code, err = _render(path)
    assert code == 0, err


# ---- issue 41: GPU memory from the model itself, for every type that loads weights ---------------------------------
BENCH = yaml.safe_load((EXAMPLES / "04-benchmark-medical.yaml").read_text())
# meta-llama/Llama-3.3-70B-Instruct config.json: the dimensions a team would copy into model_shape
LLAMA_70B = {
    "hidden_size": 8192,
    "intermediate_size": 28672,
    "num_hidden_layers": 80,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
}
MEMORY_ROWS: list[tuple[str, dict[str, Any], str]] = [
    (
        "sft 70B on one A10G",
        {**SFT, "model": "/fsx/models/Llama-3.3-70B-Instruct"},
        r"ml.g5.8xlarge: ~70B .*does not fit: needs .*; (set load_in_4bit: true|shard it with fsdp|use a GPU with "
        r"more memory)[^[]* \[shape: .*from the parameter count in 'Llama-3.3-70B-Instruct' \(an over-estimate\)",
    ),
    (
        "sft 72B unsharded on a p5",
        {**SFT, "model": "/fsx/models/Qwen2.5-72B-Instruct", "instance_type": "p5.48xlarge"},
        r"p5.48xlarge: ~72B .*does not fit: needs .* GiB .*; (set load_in_4bit: true|shard it with fsdp)",
    ),
    (
        "sft of a model of unknown shape",
        {**SFT, "model": "/fsx/models/team-model"},
        r"model /fsx/models/team-model: its config.json is not readable here .*set model_shape in the spec",
    ),
    (
        "evaluate 70B on one A10G",
        {**EVAL, "settings": {**EVAL["settings"], "base_model_path": "/fsx/models/Llama-3.3-70B-Instruct"}},
        r"~70B .* generating 8 x .*: needs ~\d+.* GiB, more than the .* GiB planned .*use a GPU with more memory",
    ),
    (
        "evaluate batch too large",
        {**EVAL, "settings": {**EVAL["settings"], "batch_size": 256, "max_new_tokens": 4096}},
        r"qwen2.5-1.5b generating 256 x .* needs .*; set settings.batch_size: \d+",
    ),
    (
        "benchmark 14B on one A10G",
        {**BENCH, "settings": {**BENCH["settings"], "shape": "qwen2.5-14b"}},
        r"recipe packed: ml.g5.8xlarge: qwen2.5-14b LoRA r8 on 24 GiB GPU: does not fit.*set load_in_4bit: true",
    ),
    (
        "serve 70B on one A10G",
        {**SERVE, "model_shape": LLAMA_70B},
        r"model_shape on 1 x 24 GiB GPU\(s\): 131.* GiB weights .*more than SGLang's .* static pool; use a GPU with "
        r"more memory",
    ),
    (
        "serve 8B with its whole 128k context on one A10G",
        {**SERVE, "model_shape": "llama-3.1-8b", "serve": {**SERVE["serve"], "engine_args": []}},
        r"llama-3.1-8b on 1 x 24 GiB GPU\(s\): .* 131072-token context .*; add --context-length \d+ to "
        r"serve.engine_args",
    ),
    (
        "serve mem-fraction-static without headroom",
        {**SERVE, "serve": {**SERVE["serve"], "engine_args": ["--mem-fraction-static", "0.99"]}},
        r"--mem-fraction-static 0.99 leaves less than 8% of the GPU .*; use 0.92 or less",
    ),
    (  # the merge loads the whole base model on the CPU (llm_platform.sft), so the pod must hold its weights
        "sft pod memory below the weights it merges",
        {**SFT, "model": "/fsx/models/Llama-3.1-8B-Instruct", "memory_gib": 8},
        r"memory_gib: the pod has 8 GiB of memory but merging the adapter \(merge_weights\) holds the llama-3.1-8b "
        r"weights in host memory \(1\d.\d GiB in bf16.*set memory_gib to at least \d+ or leave it unset",
    ),
    (
        "evaluate pod memory below the weights it loads",
        {**EVAL, "memory_gib": 4, "model_shape": "llama-3.1-8b"},
        r"memory_gib: the pod has 4 GiB of memory but loading the model .* holds the .* weights in host memory",
    ),
    (
        "model_shape not a known shape",
        {**SFT, "model_shape": "llama-99b"},
        r"model_shape 'llama-99b' is not a known shape; use one of llama-3.1-8b, .*or give the model's config.json "
        r"dimensions",
    ),
    (
        "model_shape heads that do not divide",
        {**SFT, "model_shape": {**LLAMA_70B, "num_key_value_heads": 5}},
        r"model_shape.num_key_value_heads 5 does not divide num_attention_heads 64; copy both",
    ),
    (
        "model_shape on a type that loads no weights",
        {**PREPARE, "model_shape": "qwen2.5-1.5b"},
        r"model_shape applies to the types whose GPU memory preflight checks \(.*sft.*\); remove it",
    ),
    (
        "model_shape on a benchmark",
        {**BENCH, "model_shape": "qwen2.5-1.5b"},
        r"model_shape: a benchmark builds the shape settings.shape names .*; remove model_shape",
    ),
]


@pytest.mark.parametrize(("case", "data", "pattern"), MEMORY_ROWS, ids=[r[0] for r in MEMORY_ROWS])
def test_a_model_that_does_not_fit_exits_1_with_the_field_and_the_fix(
    tmp_path: Path, case: str, data: dict, pattern: str
) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    code, err = _render(path, "--registry", str(REGISTRY))
    assert code == 1, f"{case}: accepted (exit {code}):\n{err}"
    assert "Traceback" not in err, err
    assert re.search(pattern, err, re.S), f"{case}: {pattern!r} not in:\n{err}"


@pytest.mark.parametrize(
    ("data", "shape"),
    [
        ({**SFT, "model": "/fsx/models/team-model", "model_shape": "qwen2.5-1.5b"}, r"model_shape qwen2.5-1.5b"),
        ({**SFT, "model": "/fsx/models/SmolLM2-360M"}, r"from the parameter count in 'SmolLM2-360M'"),
        (  # the same 72B the rows above refuse unsharded: sharded over the p5's 8 GPUs it fits
            {**sft(fsdp=True), "model": "/fsx/models/Qwen2.5-72B-Instruct", "instance_type": "p5.48xlarge"},
            r"~72B .* x8 FSDP: \d+ tokens per micro-step",
        ),
        ({**SERVE, "model_shape": {**LLAMA_70B, "num_hidden_layers": 2}}, r"model_shape"),
        (  # the floor is the weights plus the process: a pod sized just above it is accepted, merge or not
            {**SFT, "model": "/fsx/models/Llama-3.1-8B-Instruct", "memory_gib": 18},
            r"llama-3.1-8b",
        ),
        ({**sft(merge_weights=False), "model": "/fsx/models/Llama-3.1-8B-Instruct", "memory_gib": 8}, r"llama-3.1-8b"),
    ],
)
def test_a_model_that_fits_is_accepted_saying_where_its_shape_came_from(data: dict, shape: str) -> None:
    from llmft.registry import FileRegistry

    result = _preflight_with_registry(data, FileRegistry.load(REGISTRY))
    memory = [c for c in result.checks if c.name == "memory"]
    assert result.ok and memory and all(c.status == "ok" for c in memory), result.report()
    assert all(re.search(shape, c.message) for c in memory), result.report()


def _preflight_with_registry(data: dict[str, Any], registry: Any):
    return preflight(
        parse_spec(data),
        config=CONFIG,
        values=PlatformValues.placeholders(CONFIG),
        image="123456789012.dkr.ecr.us-east-1.amazonaws.com/llmft-dev/sft:1.0-abc",
        registry=registry,
    )


def test_config_json_is_read_where_the_team_tree_is_mounted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model's own config.json wins over its name: under `llmft run --local` the team's /fsx is
    $LLMFT_LOCAL_FSX; a "small"-named 70B is refused, a 70B-named small model accepted."""
    from llm_platform.paths import LOCAL_FSX_ENV

    monkeypatch.setenv(LOCAL_FSX_ENV, str(tmp_path))
    for name, config in (("small-model", LLAMA_70B), ("Llama-3.3-70B-pruned", {**LLAMA_70B, "num_hidden_layers": 2})):
        (tmp_path / "models" / name).mkdir(parents=True)
        (tmp_path / "models" / name / "config.json").write_text(json.dumps(config))
    big = _preflight_with_registry({**SFT, "model": "/fsx/models/small-model"}, None)
    assert not big.ok and any(c.name == "memory" and "does not fit" in c.message for c in big.failures()), big.report()
    small = _preflight_with_registry({**SFT, "model": "/fsx/models/Llama-3.3-70B-pruned"}, None)
    memory = [c for c in small.checks if c.name == "memory"]
    assert small.ok and all(f"{tmp_path}/models/Llama-3.3-70B-pruned/config.json" in c.message for c in memory)


def test_the_studio_mount_of_the_team_tree_is_where_fsx_paths_are_read() -> None:
    from k8s_charts.team_storage import team_fs_path
    from llmft.memory_check import readable_copies

    copies = readable_copies("/fsx/models/x", "ml-research")
    assert f"{team_fs_path('ml-research')}/models/x" in copies and copies[-1] == "/fsx/models/x"
    assert readable_copies("Qwen/Qwen2.5-1.5B", "ml-research") == ("Qwen/Qwen2.5-1.5B",)


def test_local_run_reads_config_json_under_its_fsx(tmp_path: Path) -> None:
    """`llmft run --local --fsx DIR`: a /fsx model path is read under DIR, so the config.json of a 70B model in a
    directory whose name says nothing is refused before anything runs."""
    (tmp_path / "fsx" / "models" / "team-model").mkdir(parents=True)
    (tmp_path / "fsx" / "models" / "team-model" / "config.json").write_text(json.dumps(LLAMA_70B))
    spec = tmp_path / "job.yaml"
    spec.write_text(yaml.safe_dump({**SFT, "model": "/fsx/models/team-model"}, sort_keys=False))
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        code = main(["run", "--local", str(spec), "--env", "dev", "--fsx", str(tmp_path / "fsx"), "--check"])
    assert code == 1 and "Traceback" not in err.getvalue(), err.getvalue()
    assert re.search(r"\[FAIL\] memory: .*does not fit.*\[shape: .*fsx/models/team-model/config.json\]", err.getvalue())


def test_model_rules_read_config_json_where_the_team_tree_is_mounted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Class 11's model rules take the model's own config.json where llmft reads the team's tree: a model named like
    no known shape (its name gives neither positions nor family) is still refused a max_seq_length beyond its
    max_position_embeddings and a LoRA pattern its family's linear modules do not match; the same spec within
    them is accepted."""
    from llm_platform.paths import LOCAL_FSX_ENV

    monkeypatch.setenv(LOCAL_FSX_ENV, str(tmp_path))
    config = {**LLAMA_70B, "model_type": "llama", "num_hidden_layers": 2, "max_position_embeddings": 4096}
    (tmp_path / "models" / "team-model").mkdir(parents=True)
    (tmp_path / "models" / "team-model" / "config.json").write_text(json.dumps(config))
    model = {"model": "/fsx/models/team-model"}
    bad = _preflight_with_registry({**sft(max_seq_length=8192, lora_target_modules=".*qkv_proj$"), **model}, None)
    messages = "\n".join(c.message for c in bad.failures())
    assert re.search(r"settings.max_seq_length: 8192 is beyond the model's 4096 positions .*config.json", messages)
    assert re.search(r"settings.lora_target_modules: '\.\*qkv_proj\$' matches no linear module of the llama", messages)
    good = _preflight_with_registry({**sft(max_seq_length=4096, lora_target_modules=".*q_proj$"), **model}, None)
    assert not [c for c in good.failures() if c.name == "settings"], good.report()
