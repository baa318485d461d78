"""llmp-sft on CPU with a tiny model: LoRA for a few steps, a crash, a restart that resumes from the checkpoint on
"FSx", the LoRA merge, and what lands in MLflow (a local file store)."""

from __future__ import annotations

from pathlib import Path

import pytest
from llm_platform import sft, sft_tracking

pytestmark = pytest.mark.e2e  # trains/serves the tiny model or starts processes (docs/testing.md "Tiers")

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
PEAK_TFLOPS = 0.5


def _gpu_hour_price() -> float:
    """One GPU-hour of a p5.48xlarge from config/data/prices.yaml, as llmft would put in the step file."""
    from llm_platform.bench import hourly_price

    usd, gpus = hourly_price("p5.48xlarge")
    return usd / gpus


GPU_HOUR_PRICE = _gpu_hour_price()


class CrashAt:
    """A TrainerCallback that kills the run at a step, like a node failure."""

    def __init__(self, step: int) -> None:
        self.step = step

    def __getattr__(self, name):  # every other TrainerCallback event is a no-op
        return lambda *a, **k: None

    def on_step_end(self, args, state, control, **kw):
        if state.global_step == self.step:
            raise RuntimeError(f"simulated node failure at step {self.step}")


def sft_config(root: Path, **overrides) -> dict:
    return {
        "model_id": str(root / "models/tiny"),
        "train_dataset_path": str(root / "datasets/medical/train.jsonl"),
        "output_dir": str(root / "checkpoints/tiny-sft"),
        "merged_output_dir": str(root / "outputs/merged"),
        "max_seq_length": 512,
        "max_tokens_per_step": 1024,
        "lora_r": 8,
        "lora_alpha": 16,
        "lora_dropout": 0.0,
        "mlflow_experiment_name": "sft-test",
        "registered_model_name": "tiny-sft",
        "peak_tflops": PEAK_TFLOPS,
        "max_steps": 8,
        "save_steps": 4,
        "logging_steps": 1,
        "per_device_train_batch_size": 6,
        "learning_rate": 1e-2,
        "lr_scheduler_type": "constant",
        "use_cpu": True,
        "bf16": False,
        "seed": 0,
        "gradient_checkpointing": True,
        "gradient_checkpointing_kwargs": {"use_reentrant": False},
        "dataloader_num_workers": 0,
        "disable_tqdm": True,
        **overrides,
    }


@pytest.fixture(scope="module")
def trained(workspace, tmp_path_factory):
    import mlflow

    store = tmp_path_factory.mktemp("mlruns")
    mp = pytest.MonkeyPatch()
    mp.setenv("MLFLOW_TRACKING_URI", store.as_uri())
    mp.setenv("MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING", "true")
    # An interval no test run reaches: the system metrics that land are the ones llm_platform.mlflow_utils.end_run
    # flushes, whatever the machine's speed (MLflow itself would publish only after the interval).
    mp.setenv("MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL", "3600")
    mp.setenv("MLFLOW_SYSTEM_METRICS_SAMPLES_BEFORE_LOGGING", "1")
    mlflow.set_tracking_uri(store.as_uri())
    # the run stands in for one GPU: the step's clock counts GPUs x time (0 on a CPU), so each attempt counts one
    one_gpu = pytest.MonkeyPatch()
    start = sft_tracking.GpuClock.start
    one_gpu.setattr(sft_tracking.GpuClock, "start", lambda self, history, *, gpus: start(self, history, gpus=1))
    config = sft_config(workspace, gpu_usd_per_hour=GPU_HOUR_PRICE)
    try:
        with pytest.raises(RuntimeError, match="simulated node failure at step 6"):
            sft.train(config, callbacks=[CrashAt(6)])
        mlflow.end_run()  # the crashed process would be gone; its run stays open on the server
        after_crash = sorted(p.name for p in (workspace / "checkpoints/tiny-sft").glob("checkpoint-*"))
        result = sft.train(config)  # the restarted pod: same config
    finally:
        one_gpu.undo()
    yield {"result": result, "after_crash": after_crash, "root": workspace, "config": config}
    mp.undo()


def test_crash_leaves_a_checkpoint_and_restart_resumes_from_it(trained) -> None:
    assert trained["after_crash"] == ["checkpoint-4"]
    checkpoint = trained["root"] / "checkpoints/tiny-sft/checkpoint-4"
    for name in ("adapter_model.safetensors", "optimizer.pt", "scheduler.pt", "trainer_state.json"):
        assert (checkpoint / name).is_file(), name
    result = trained["result"]
    assert result["resumed_from"] == str(checkpoint)
    assert result["global_step"] == 8
    assert (trained["root"] / "checkpoints/tiny-sft/checkpoint-8").is_dir()


def test_merged_weights_load_and_equal_base_plus_adapter(trained) -> None:
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    root = trained["root"]
    merged = AutoModelForCausalLM.from_pretrained(trained["result"]["merged_dir"]).eval()
    base = AutoModelForCausalLM.from_pretrained(root / "models/tiny").eval()
    with_adapter = PeftModel.from_pretrained(base, str(trained["result"]["adapter_dir"])).eval()
    tokenizer = AutoTokenizer.from_pretrained(trained["result"]["merged_dir"])
    ids = tokenizer("Case 3 : a patient has pain linked to the kidney .", return_tensors="pt")["input_ids"]
    with torch.no_grad():
        merged_logits, adapter_logits = merged(ids).logits, with_adapter(ids).logits
        base_logits = AutoModelForCausalLM.from_pretrained(root / "models/tiny")(ids).logits
    assert torch.allclose(merged_logits, adapter_logits, atol=1e-4)
    assert not torch.allclose(merged_logits, base_logits, atol=1e-3)  # training changed the model
    assert not any("lora" in name for name, _ in merged.named_parameters())


def test_mlflow_run_contents(trained) -> None:
    import mlflow
    from mlflow import MlflowClient

    client = MlflowClient()
    experiment = client.get_experiment_by_name("sft-test")
    runs = client.search_runs([experiment.experiment_id])
    assert len(runs) == 1  # the restart continued the same run
    run = runs[0]
    params = run.data.params
    assert params["script.lora_r"] == "8" and params["script.lora_alpha"] == "16"
    assert params["training.learning_rate"] == "0.01" and params["training.max_steps"] == "8"
    assert int(params["model.trainable_matmul_params"]) == 2 * 4096  # LoRA A+B on 7 linear layers x 2 layers
    assert params["hardware.world_size"] == "1"
    history = client.get_metric_history(run.info.run_id, "loss")
    assert sorted(m.step for m in history) == list(range(1, 9)), "steps replayed after the resume are not repeated"
    loss = {m.step: m.value for m in history}
    # the resumed run's train_loss is the mean over all 8 steps, not the resumed steps' sum over 8 (issue 32)
    mean = sum(loss.values()) / len(loss)
    assert trained["result"]["train_loss"] == pytest.approx(mean, rel=1e-3)
    assert run.data.metrics["train_loss"] == pytest.approx(mean, rel=1e-3)
    assert run.info.status == "FINISHED"
    # the restart continued at the same data position: step 5 ran before the crash (its loss is the run's) and again
    # after the resume from checkpoint-4 (the trainer's history), on the same packed rows with the same weights
    replayed = [e["loss"] for e in trained["result"]["log_history"] if e.get("step") == 5 and "loss" in e]
    assert replayed and replayed[-1] == pytest.approx(loss[5], rel=1e-6), (replayed, loss[5])
    assert params["plan.rows"] == "2" and params["plan.row_tokens"] == "512"
    assert int(params["data.train_rows"]) < int(params["data.train_examples"])  # examples were packed
    pad = [m.value for m in client.get_metric_history(run.info.run_id, "padding_efficiency")]
    assert pad and all(0.5 < p <= 1.0 for p in pad)
    # the loss goes down: each of the last three steps (second epoch onwards) is below every one of the first three
    assert max(loss[6], loss[7], loss[8]) < min(loss[1], loss[2], loss[3]), loss
    assert loss[8] < loss[1] - 0.15, loss
    tps = {m.step: m.value for m in client.get_metric_history(run.info.run_id, "tokens_per_second")}
    flops = {m.step: m.value for m in client.get_metric_history(run.info.run_id, "model_flops_per_token")}
    mfu = {m.step: m.value for m in client.get_metric_history(run.info.run_id, "mfu")}
    assert set(tps) == set(mfu) == set(range(1, 9))
    for step in mfu:  # MFU = model FLOPs per token x tokens/s / (devices x peak)
        assert mfu[step] == pytest.approx(flops[step] * tps[step] / (1 * PEAK_TFLOPS * 1e12), rel=1e-9)
    assert any(key.startswith("system/") for key in run.data.metrics), sorted(run.data.metrics)
    # what `llmft status` reads (llmft/progress.py): the Trainer's planned total, logged at each train begin
    totals = [m.value for m in client.get_metric_history(run.info.run_id, sft_tracking.TOTAL_STEPS_METRIC)]
    assert totals and set(totals) == {float(params["training.max_steps"])}
    _assert_cost_metrics(client, run, trained["root"] / "checkpoints/tiny-sft/checkpoint-4")
    versions = client.search_model_versions("name='tiny-sft'")
    assert [str(v.version) for v in versions] == ["1"]
    loaded = mlflow.transformers.load_model(f"models:/tiny-sft/1", return_type="components")
    assert loaded["model"].config.num_hidden_layers == 2


def _assert_cost_metrics(client, run, checkpoint: Path) -> None:
    """GPU-hours and their cost at every logged step (the metrics' cadence), cost = GPU-hours x the step file's
    price, and the resumed attempt counting on from the checkpoint's figure instead of from zero."""
    import json

    loss_steps = {m.step for m in client.get_metric_history(run.info.run_id, "loss")}
    hours = {m.step: m.value for m in client.get_metric_history(run.info.run_id, sft_tracking.GPU_HOURS_METRIC)}
    cost = {m.step: m.value for m in client.get_metric_history(run.info.run_id, sft_tracking.COST_METRIC)}
    assert set(hours) == set(cost) == loss_steps == set(range(1, 9))
    for step in cost:
        assert cost[step] == pytest.approx(hours[step] * GPU_HOUR_PRICE, rel=1e-9)
    assert all(hours[s] > 0 for s in hours)
    assert all(hours[a] <= hours[b] for a, b in ((1, 2), (2, 3), (3, 4), (7, 8)))  # within an attempt: a clock
    history = json.loads((checkpoint / "trainer_state.json").read_text())["log_history"]
    saved = [
        row[sft_tracking.GPU_HOURS_METRIC]
        for row in history
        if sft_tracking.GPU_HOURS_METRIC in row and row.get("step") == 4
    ]
    assert saved and saved[-1] == pytest.approx(hours[4], rel=1e-9)  # the checkpoint carries the run's figure
    assert hours[7] > hours[4], "the resumed attempt started from zero instead of the checkpoint's GPU-hours"
    assert float(run.data.params["script.gpu_usd_per_hour"]) == pytest.approx(GPU_HOUR_PRICE)


def test_restart_after_registration_registers_no_second_version(trained) -> None:
    """The pod is killed after registering and restarted: it resumes at the last step, merges again, and finds the
    version of its run instead of registering a second one (issue 32)."""
    from llm_platform.mlflow_utils import MODEL_DIR_TAG
    from mlflow import MlflowClient

    client = MlflowClient()
    client.delete_model_version_tag("tiny-sft", "1", MODEL_DIR_TAG)  # a kill between registering and tagging
    merged = Path(trained["result"]["merged_dir"])
    before = {p.name: p.stat().st_mtime_ns for p in merged.iterdir()}
    run_id = client.search_model_versions("name='tiny-sft'")[0].run_id
    again = sft.train(trained["config"])
    assert again["resumed_from"].endswith("checkpoint-8")
    assert again["global_step"] == trained["config"]["max_steps"]  # nothing trained past max_steps
    checkpoints = sorted(p.name for p in (trained["root"] / "checkpoints/tiny-sft").glob("checkpoint-*"))
    assert checkpoints[-1] == f"checkpoint-{trained['config']['max_steps']}"
    assert {p.name: p.stat().st_mtime_ns for p in merged.iterdir()} == before  # the merged model untouched
    versions = client.search_model_versions("name='tiny-sft'")
    assert [str(v.version) for v in versions] == ["1"]
    assert client.get_model_version("tiny-sft", "1").tags[MODEL_DIR_TAG] == str(merged)  # the tag completed
    history = client.get_metric_history(run_id, "loss")
    assert sorted(m.step for m in history) == list(range(1, trained["config"]["max_steps"] + 1))


def shipped(**overrides) -> dict:
    """The shipped config; use_cpu only so TrainingArguments accepts bf16 on this GPU-less machine."""
    return {**_yaml(CONFIGS / "sft.yaml"), "use_cpu": True, **overrides}


def test_shipped_config_parses_with_fsdp_full_shard_auto_wrap() -> None:
    script, args = sft.parse_config(shipped(sharding="fsdp"))
    assert script.model_id.startswith("/fsx/models/") and args.output_dir.startswith("/fsx/checkpoints/")
    plugin = args.fsdp_plugin_args
    assert plugin["reshard_after_forward"] is True  # full shard
    assert plugin["auto_wrap_policy"] == "TRANSFORMER_BASED_WRAP"
    assert args.bf16 and args.save_steps == 50
    # the fast path: packing, dropout 0, checkpointing left to the memory model (not in the file)
    assert script.packing and script.lora_dropout == 0.0 and script.max_tokens_per_step is None
    assert "gradient_checkpointing" not in _yaml(CONFIGS / "sft.yaml")
    _, offload = sft.parse_config(
        shipped(sharding="fsdp", fsdp_config={**_yaml(CONFIGS / "sft.yaml")["fsdp_config"], "cpu_offload": True})
    )
    assert offload.fsdp_plugin_args["cpu_offload"] is True


def test_sharding_auto_shards_only_where_it_is_needed(monkeypatch) -> None:
    """One process: nothing to shard (FSDP on one H100 cost 0.003 MFU and, with Liger's fused loss, crashed);
    several: data parallel when the unsharded step fits one GPU, the recipe's FSDP when it does not."""
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    script, args = sft.parse_config(shipped())
    assert script.sharding == "auto" and not sft.fsdp_enabled(args) and "one process" in args._llmp_sharding
    decide = sft.sharding_decision
    monkeypatch.setenv("WORLD_SIZE", "8")  # only the decision reads it (TrainingArguments would start 8 processes)
    for fits, sharded in ((True, False), (False, True), (None, True)):
        monkeypatch.setattr(sft, "_fits_unsharded", lambda script, world, fits=fits, **_: fits)
        shard, why = decide(script, recipe_shards=True)
        assert shard is sharded and ("8" in why or fits is None), why
    assert decide(script, recipe_shards=False)[0] is False
    monkeypatch.delenv("WORLD_SIZE")
    monkeypatch.setattr(sft, "sharding_decision", lambda script, **kw: (True, "several processes, too big"))
    assert sft.fsdp_enabled(sft.parse_config(shipped())[1])  # the decision is what parse_config applies
    monkeypatch.setattr(sft, "sharding_decision", decide)
    assert not sft.fsdp_enabled(sft.parse_config(shipped(sharding="none"))[1])
    with pytest.raises(ValueError, match="sharding: 'zero3'"):
        sft.parse_config(shipped(sharding="zero3"))


def test_the_sharding_decision_plans_with_the_steps_own_liger_and_checkpointing(monkeypatch) -> None:
    """Whether the unsharded step fits depends on Liger (fp32 logits without it) and checkpointing: the decision gets
    what the step will use, not a guess."""
    seen: list[dict] = []
    monkeypatch.setattr(sft, "sharding_decision", lambda script, **kw: seen.append(kw) or (False, "recorded"))
    sft.parse_config(shipped(liger_kernel="false", gradient_checkpointing=True))
    sft.parse_config(shipped())  # CPU here: auto has no CUDA, so no Liger; checkpointing left to the memory model
    assert [(kw["liger"], kw["checkpointing"]) for kw in seen] == [(False, True), (False, None)]
    sft.parse_config(shipped(use_liger_kernel=True))
    assert seen[-1]["liger"] is True  # the recipe insists


def test_fsdp_turns_off_liger_fused_linear_cross_entropy() -> None:
    """Under FSDP2 lm_head.weight is a sharded DTensor outside lm_head's forward, where Liger's fused loss reads it
    (the H100 run failed with "aten.mm.out got mixed torch.Tensor and DTensor"): Liger's plain cross-entropy then."""
    _, args = sft.parse_config(shipped(sharding="fsdp"))
    assert args.liger_kernel_config == {"fused_linear_cross_entropy": False, "cross_entropy": True}
    _, args = sft.parse_config(shipped(sharding="fsdp", liger_kernel_config={"rope": False}))
    assert args.liger_kernel_config == {"rope": False}  # the recipe's own choice stays
    _, args = sft.parse_config(shipped())
    assert not args.liger_kernel_config


def test_qlora_quantization_is_nf4_with_bf16_storage_for_fsdp() -> None:
    import torch

    script, _ = sft.parse_config(shipped(load_in_4bit=True))
    q = sft.quantization_config(script, torch.bfloat16)
    assert q.load_in_4bit and q.bnb_4bit_quant_type == "nf4" and q.bnb_4bit_use_double_quant
    assert q.bnb_4bit_compute_dtype == torch.bfloat16 and q.bnb_4bit_quant_storage == torch.bfloat16
    assert sft.quantization_config(sft.parse_config(shipped())[0], torch.bfloat16) is None


def test_unknown_setting_is_refused() -> None:
    with pytest.raises(ValueError, match="lora_rank"):
        sft.parse_config(shipped(lora_rank=8))


def _yaml(path: Path) -> dict:
    import yaml

    return yaml.safe_load(path.read_text())


def test_memory_plan_for_the_shipped_recipe() -> None:
    """The shipped 8B recipe planned for an H100 and an A10G (no CUDA here: Liger falls back, and says so)."""
    script, args = sft.parse_config(shipped())
    h100 = sft.plan_step(script, args, gpu_memory_gib=80)
    assert not h100.gradient_checkpointing and h100.tokens_per_micro_step >= 4096
    assert h100.rows * h100.row_tokens == h100.tokens_per_micro_step and h100.row_tokens == 2048
    assert not h100.use_liger_kernel and any("liger" in r.lower() for r in h100.reasons)
    assert h100.gradient_accumulation_steps == max(1, round(8192 / h100.tokens_per_micro_step))
    script, args = sft.parse_config(shipped(liger_kernel="true"))  # the image has it: A10G fits with Liger
    a10g = sft.plan_step(script, args, gpu_memory_gib=24)
    assert a10g.gradient_checkpointing and a10g.use_liger_kernel
    script, args = sft.parse_config(shipped(gradient_checkpointing=False, liger_kernel="true"))
    with pytest.raises(ValueError, match="gradient_checkpointing: true"):
        sft.plan_step(script, args, gpu_memory_gib=24)
    script, args = sft.parse_config(shipped(max_tokens_per_step=4096, gradient_accumulation_steps=3))
    fixed = sft.plan_step(script, args, gpu_memory_gib=80)
    assert fixed.tokens_per_micro_step == 4096 and fixed.gradient_accumulation_steps == 3


def test_fast_path_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="liger_kernel"):
        sft.parse_config(shipped(liger_kernel="maybe"))
    with pytest.raises(ValueError, match="max_tokens_per_step: 2048 or more"):
        sft.parse_config(shipped(max_tokens_per_step=1000))


class DiskFullAt(CrashAt):
    """A checkpoint write that fails as torch.save does on a full disk (a C++ stream error, no errno)."""

    def on_step_end(self, args, state, control, **kw):
        if state.global_step == self.step:
            raise RuntimeError("[enforce fail at inline_container.cc:664] . unexpected pos; basic_ios::clear")


def test_a_full_disk_during_training_names_the_path_and_the_space(workspace, tmp_path, monkeypatch) -> None:
    from llm_platform import data_check

    monkeypatch.setenv("MLFLOW_TRACKING_URI", (tmp_path / "mlruns").as_uri())
    config = sft_config(
        workspace, output_dir=str(tmp_path / "ckpt"), merged_output_dir=str(tmp_path / "merged"), mlflow_tracking=False
    )
    with pytest.raises(data_check.DataError) as raised:
        sft.train(config, callbacks=[DiskFullAt(1)])
    message = str(raised.value)
    assert str(tmp_path / "ckpt") in message and "MiB free, a checkpoint needs" in message
    assert "basic_ios::clear" in message and "lower save_total_limit" in message


def test_gpu_clock_carries_the_resumed_checkpoints_gpu_hours(monkeypatch) -> None:
    """A resumed attempt adds its own GPUs x time to the last figure the checkpoint's log history carries."""
    now = [1000.0]
    monkeypatch.setattr(sft_tracking.time, "monotonic", lambda: now[0])
    clock = sft_tracking.GpuClock()
    clock.start([{"loss": 1.0, sft_tracking.GPU_HOURS_METRIC: 2.5, "step": 4}, {"eval_loss": 1.0, "step": 4}], gpus=8)
    now[0] += 1800
    assert clock.metrics(None) == {sft_tracking.GPU_HOURS_METRIC: pytest.approx(2.5 + 8 * 0.5)}
    assert clock.metrics(4.0)[sft_tracking.COST_METRIC] == pytest.approx((2.5 + 8 * 0.5) * 4.0)
    clock.start([], gpus=0)  # a CPU run: no GPU-hours
    now[0] += 3600
    assert clock.metrics(None) == {sft_tracking.GPU_HOURS_METRIC: 0.0}
