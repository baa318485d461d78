"""The step contract (llm_platform/steps.py) against the real steps: every schema, the pinned transformers, the
entry points' --check, and the runtime fixes that ride on it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from llm_platform import grpo, sft, sft_checkpoints, steps

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def test_training_arguments_file_matches_the_installed_transformers() -> None:
    from importlib.metadata import version

    data = json.loads(steps.TRAINING_ARGUMENTS_FILE.read_text())
    assert data["transformers"] == version("transformers"), (
        "regenerate: python -c 'from llm_platform import steps; steps.write_training_arguments()'"
    )
    assert data["fields"] == steps.training_argument_kinds()


def test_every_step_schema_is_importable_without_torch() -> None:
    """llmft imports the schemas in a virtualenv without torch: a child interpreter with torch hidden."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['torch'] = None; sys.modules['transformers'] = None\n"
        "from llm_platform import steps\n"
        "for t in steps.STEPS: print(t, len(steps.schema_fields(t)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert len(out.stdout.splitlines()) == len(steps.STEPS)


@pytest.mark.parametrize(
    "step_type,data,expected",
    [
        (
            "sft",
            {"model_id": "/fsx/m", "train_dataset_path": "/fsx/d", "output_dir": "/fsx/c", "lora_rr": 8},
            r"lora_rr: not a setting of the sft step; did you mean 'lora_r'",
        ),
        (
            "sft",
            {"model_id": "/fsx/m", "train_dataset_path": "/fsx/d", "output_dir": "/fsx/c", "learning_rate": "2e-4"},
            r"learning_rate: '2e-4' is a str; sft expects float",
        ),
        ("sft", {"train_dataset_path": "/fsx/d", "output_dir": "/fsx/c"}, r"model_id: required by the sft step"),
        (
            "download-model",
            {"repo_id": "Qwen/Qwen2.5-1.5B", "revision": "main", "local_dir": "/fsx/models/q"},
            r"revision 'main' is not a commit sha",
        ),
        ("prepare-data", {"source": "gsm8k", "output_dir": "/fsx/datasets/g", "test_size": 2}, r"test_size 2"),
        (
            "evaluate",
            {
                "base_model_path": "/fsx/m",
                "finetuned_model_path": "/fsx/f",
                "test_dataset_path": "/fsx/d",
                "output_dir": "/fsx/o",
                "batch_size": True,
            },
            r"batch_size: True is a bool; evaluate expects int",
        ),
    ],
)
def test_problems_name_the_field_value_and_fix(step_type, data, expected) -> None:
    import re

    found = steps.problems(step_type, data, prefix="settings.")
    assert any(re.search(expected, p) for p in found), found


def test_every_problem_is_reported_at_once() -> None:
    found = steps.problems("sft", {"lora_rr": 8, "bf16": "yes", "output_dir": "/fsx/c"})
    assert len(found) == 4, found  # unknown key, wrong type, two missing fields


@pytest.mark.parametrize(
    "module,step_type",
    [
        ("download_model", "download-model"),
        ("prepare_data", "prepare-data"),
        ("evaluate", "evaluate"),
        ("sft", "sft"),
        ("bench", "benchmark"),
    ],
)
def test_check_flag_parses_and_exits(tmp_path, capsys, module, step_type) -> None:
    import importlib

    import yaml

    entry = importlib.import_module(f"llm_platform.{module}")
    good = {
        "download-model": {"repo_id": "org/m", "revision": "a" * 40, "local_dir": str(tmp_path / "m")},
        "prepare-data": {"source": "gsm8k", "output_dir": str(tmp_path / "d"), "revision": "a" * 40},
        "evaluate": {
            "base_model_path": "/fsx/m",
            "finetuned_model_path": "/fsx/f",
            "test_dataset_path": "/fsx/d",
            "output_dir": "/fsx/o",
        },
        "sft": {
            "model_id": "/fsx/m",
            "train_dataset_path": "/fsx/d",
            "output_dir": str(tmp_path / "c"),
            "use_cpu": True,
        },
        "benchmark": {"shape": "tiny", "output_dir": str(tmp_path / "b"), "recipe": {"lora_r": 4}},
    }[step_type]
    path = tmp_path / "step.yaml"
    path.write_text(yaml.safe_dump(good))
    assert entry.main(["--config", str(path), "--check"]) == 0
    assert "is valid" in capsys.readouterr().out
    path.write_text(yaml.safe_dump({**good, "no_such_setting": 1}))
    assert entry.main(["--config", str(path), "--check"]) == 1
    err = capsys.readouterr().err
    assert "no_such_setting: not a setting" in err and "Traceback" not in err
    path.write_bytes(b"\xff\xfe not utf-8")
    assert entry.main(["--config", str(path), "--check"]) == 1
    assert "cannot read the step file" in capsys.readouterr().err


def test_grpo_check_refuses_an_unknown_setting(tmp_path, capsys) -> None:
    import yaml

    data = yaml.safe_load((CONFIGS / "grpo.yaml").read_text())
    path = tmp_path / "step.yaml"
    path.write_text(yaml.safe_dump({**data, "rollout": 5}))
    assert grpo.main(["--config", str(path), "--check"]) == 1
    assert "rollout: not a setting of the grpo step; did you mean 'rollout_n'" in capsys.readouterr().err


def _checkpoint(root: Path, step: int, state_step: int | None) -> None:
    path = root / f"checkpoint-{step}"
    path.mkdir(parents=True)
    (path / "adapter_model.safetensors").write_bytes(b"x")
    if state_step is not None:
        (path / sft_checkpoints.TRAINER_STATE).write_text(json.dumps({"global_step": state_step}))


def test_resume_skips_a_checkpoint_cut_short_by_a_lost_node(tmp_path) -> None:
    _checkpoint(tmp_path, 100, 100)
    _checkpoint(tmp_path, 200, None)  # node lost during the save: no trainer_state.json yet
    assert sft_checkpoints.last_checkpoint(tmp_path) == str(tmp_path / "checkpoint-100")
    (tmp_path / "checkpoint-200" / sft_checkpoints.TRAINER_STATE).write_text("{trunc")
    assert sft_checkpoints.last_checkpoint(tmp_path) == str(tmp_path / "checkpoint-100")
    _checkpoint(tmp_path, 300, 300)
    assert sft_checkpoints.last_checkpoint(tmp_path) == str(tmp_path / "checkpoint-300")
    assert sft_checkpoints.last_checkpoint(tmp_path / "missing") is None


def test_fsdp_loading_environment_comes_from_the_shipped_config() -> None:
    import yaml

    data = {**yaml.safe_load((CONFIGS / "sft.yaml").read_text()), "use_cpu": True, "sharding": "fsdp"}
    _, args = sft.parse_config(data)
    assert sft.fsdp_loading_environment(args) == {
        "ACCELERATE_USE_FSDP": "true",
        "FSDP_CPU_RAM_EFFICIENT_LOADING": "true",
    }
    data.pop("fsdp")
    data.pop("fsdp_config")
    assert sft.fsdp_loading_environment(sft.parse_config(data)[1]) == {}


def test_fsdp_loading_environment_is_what_transformers_reads() -> None:
    """transformers' own is_fsdp_enabled() turns true with exactly these variables (and a process group)."""
    from unittest import mock

    from transformers.integrations import fsdp

    env = {"ACCELERATE_USE_FSDP": "true", "FSDP_CPU_RAM_EFFICIENT_LOADING": "true"}
    with mock.patch.dict(os.environ, env), mock.patch("torch.distributed.is_initialized", return_value=True):
        assert fsdp.is_fsdp_enabled()
    with (
        mock.patch.dict(os.environ, {"ACCELERATE_USE_FSDP": "true"}),
        mock.patch("torch.distributed.is_initialized", return_value=True),
    ):
        os.environ.pop("FSDP_CPU_RAM_EFFICIENT_LOADING", None)
        assert not fsdp.is_fsdp_enabled()


def test_ray_runtime_env_never_carries_mlflow_credentials(monkeypatch) -> None:
    for key in ("MLFLOW_TRACKING_URI", "MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD"):
        monkeypatch.setenv(key, "secret-" + key)
    monkeypatch.setenv("MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING", "true")
    env = grpo.run_env("run-1")
    assert env == {"MLFLOW_RUN_ID": "run-1", "MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING": "true"}
    assert not any("secret-" in v for v in env.values())


def test_grpo_merge_runs_as_a_one_gpu_ray_task(tmp_path) -> None:
    """The merge is a Ray task that asks for a GPU (only workers have one), not a process on the head."""
    calls = {}

    class FakeRay:
        @staticmethod
        def is_initialized():
            return True

        @staticmethod
        def remote(**options):
            calls["options"] = options

            def wrap(fn):
                class Task:
                    @staticmethod
                    def remote(*args):
                        calls["args"] = args
                        return fn.__name__, args

                return Task

            return wrap

        @staticmethod
        def get(ref):
            return ref[1][1]

    out = grpo.merge_on_gpu_worker(tmp_path / "actor", tmp_path / "hf", ray_module=FakeRay)
    assert calls["options"]["num_gpus"] == 1
    assert out == tmp_path / "hf"
    command = grpo.merge_command(tmp_path / "actor", tmp_path / "hf")
    assert command[1:6] == ["-m", "verl.model_merger", "merge", "--backend", "fsdp"]


def test_a_step_refuses_another_jobs_outputs_and_claims_its_own(tmp_path, monkeypatch, capsys) -> None:
    """Issue 31, in the pod: the step marks its output directories with its job (PLATFORM_JOB_NAME, set by llmft)
    and refuses one that another job's marker claims -- in it or above it -- before anything runs."""
    import yaml
    from llm_platform import download_model

    out = tmp_path / "models" / "m"
    step = {"repo_id": "org/m", "revision": "a" * 40, "local_dir": str(out)}
    path = tmp_path / "step.yaml"
    path.write_text(yaml.safe_dump(step))
    monkeypatch.setenv(steps.JOB_ENV, "first")
    steps.guard_outputs("download-model", step, str(path))
    assert json.loads((out / steps.OWNER_MARKER).read_text())["job"] == "first"
    steps.guard_outputs("download-model", step, str(path))  # the same job again: a resume
    monkeypatch.setenv(steps.JOB_ENV, "second")
    for data in (step, {**step, "local_dir": str(out / "inside")}):
        path.write_text(yaml.safe_dump(data))
        assert download_model.main(["--config", str(path)]) == 1
        err = capsys.readouterr().err
        assert f"output '{data['local_dir']}' belongs to job 'first'" in err and "Traceback" not in err, err
    assert download_model.main(["--config", str(path), "--check"]) == 0  # --check writes and refuses nothing


def test_grpo_refuses_another_jobs_checkpoints(tmp_path, monkeypatch, capsys) -> None:
    """The RayJob runs `llmp-grpo <overrides>` (no step file): the guard reads trainer.default_local_dir."""
    from llm_platform.grpo_config import GrpoParameters

    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / steps.OWNER_MARKER).write_text(json.dumps({"job": "first"}))
    params = GrpoParameters(
        model_path="/fsx/models/m",
        train_files="/fsx/datasets/g/train.parquet",
        val_files="/fsx/datasets/g/test.parquet",
        checkpoint_dir="/fsx/checkpoints/x",
        nodes=1,
        gpus_per_node=8,
    )
    overrides = [o for o in params.overrides() if not o.startswith("trainer.default_local_dir=")]
    monkeypatch.setenv(steps.JOB_ENV, "second")
    monkeypatch.setattr(grpo, "run", lambda cfg: pytest.fail("training started"))
    assert grpo.main([*overrides, f"trainer.default_local_dir={ckpt}"]) == 1
    assert f"output '{ckpt}' belongs to job 'first'" in capsys.readouterr().err


def test_liger_kernel_takes_yaml_booleans_and_refuses_a_contradicting_use_liger_kernel() -> None:
    """`liger_kernel: false`, the documented off switch, is a YAML boolean: accepted (issue 41); the step's switch and
    TrainingArguments' use_liger_kernel saying opposite things is refused (preflight would plan one, the run use the
    other)."""
    base = {"model_id": "/fsx/m", "train_dataset_path": "/fsx/d/train.jsonl", "output_dir": "/fsx/o"}
    assert steps.problems("sft", {**base, "liger_kernel": False}) == []
    assert steps.problems("sft", {**base, "liger_kernel": True, "use_liger_kernel": True}) == []
    (problem,) = steps.problems("sft", {**base, "liger_kernel": "false", "use_liger_kernel": True}, prefix="settings.")
    assert "settings.liger_kernel: false and settings.use_liger_kernel: true contradict each other" in problem


def test_step_enums_file_matches_the_installed_transformers_and_the_sft_image() -> None:
    """step_enums.json (attention implementations, optimizers, schedulers, each family's linear modules, flash-attn
    in the sft image's lock) is what the pinned transformers and images/sft/requirements.lock say today."""
    assert json.loads(steps.STEP_ENUMS_FILE.read_text()) == steps.step_enums(), (
        "regenerate: python -c 'from llm_platform import steps; steps.write_step_enums()'"
    )


def test_the_step_enums_are_what_transformers_accepts() -> None:
    """Every shipped optimizer and scheduler constructs TrainingArguments (the pod's parse), and a value outside them
    is refused by transformers and by the step's check alike: the enums are neither wider nor narrower."""
    from transformers import TrainingArguments
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

    enums = json.loads(steps.STEP_ENUMS_FILE.read_text())
    evaluated = {"eval_strategy": "steps", "eval_steps": 10}  # greedy and reduce_lr_on_plateau step on eval
    for optim in enums["optim"]:
        TrainingArguments(output_dir="/tmp/x", use_cpu=True, optim=optim)
    for scheduler in enums["lr_scheduler_type"]:
        TrainingArguments(output_dir="/tmp/x", use_cpu=True, lr_scheduler_type=scheduler, **evaluated)
    for key, wrong in (("optim", "adamw"), ("lr_scheduler_type", "cosin")):
        with pytest.raises(ValueError):
            TrainingArguments(output_dir="/tmp/x", use_cpu=True, **{key: wrong})
        assert steps.problems("sft", {**_SFT_MIN, key: wrong})
    assert set(enums["attn_implementation"]) == {"eager", *ALL_ATTENTION_FUNCTIONS.valid_keys()}


def test_flash_attention_in_the_sft_image_follows_its_lock(tmp_path: Path) -> None:
    """A lock with flash-attn makes flash_attention_2 acceptable; the real sft lock decides the shipped value."""
    repo = Path(__file__).resolve().parents[2]
    real = steps.lock_distributions(repo / steps.SFT_IMAGE_LOCK)
    shipped = json.loads(steps.STEP_ENUMS_FILE.read_text())["sft_image_flash"]
    assert shipped["flash_attention_2"] == ("flash-attn" in real)
    lock = tmp_path / "requirements.lock"
    lock.write_text("flash-attn==2.8.3 \\\n    --hash=sha256:00\ntorch==2.9.0\n")
    assert steps.lock_distributions(lock) == {"flash-attn", "torch"}


_SFT_MIN = {"model_id": "/fsx/models/none", "train_dataset_path": "/fsx/d/train.jsonl", "output_dir": "/fsx/c/x"}


def test_lora_targets_are_matched_as_peft_matches_them(tmp_path: Path) -> None:
    """The rule fullmatches the pattern against the names of the model built from its config.json (what PEFT's
    match_target_against_key sees), so a pattern the rule refuses matches nothing in the real model either."""
    import re

    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.for_model(
        "qwen2",
        num_hidden_layers=2,
        hidden_size=64,
        intermediate_size=128,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=256,
    )
    config.save_pretrained(tmp_path)
    facts = steps.model_facts(str(tmp_path))
    with torch.device("meta"):
        names = [
            n for n, m in AutoModelForCausalLM.from_config(config).named_modules() if isinstance(m, torch.nn.Linear)
        ]
    for pattern in (r".*(q_proj|v_proj)$", r".*layers\.1\.mlp\.down_proj", r".*(query|value)$", r"lm_head"):
        matched = any(re.fullmatch(pattern, n) for n in names)
        refused = steps.model_problems({"lora_target_modules": pattern}, "", facts)
        assert bool(refused) == (not matched), (pattern, refused)
