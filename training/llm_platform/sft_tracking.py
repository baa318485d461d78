"""What the SFT step reports while it trains (:mod:`llm_platform.sft`): tokens counted per batch on every rank,
throughput and MFU, GPU-hours and cost over the run's attempts, and the MLflow callback that logs them with the run's
parameters (rank 0). The metric names are a contract with ``llmft status`` (llmft/progress.py)."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any


class ThroughputMeter:
    """Counts non-padding tokens, sequences and token slots (the batch's size, padding included) between two logs
    (all ranks)."""

    def __init__(self) -> None:
        self.tokens = self.sequences = self.slots = 0
        self.since = time.perf_counter()

    def add(self, attention_mask) -> None:
        self.add_counts(int(attention_mask.sum()), int(attention_mask.shape[0]), int(attention_mask.numel()))

    def add_counts(self, tokens: int, sequences: int, slots: int) -> None:
        self.tokens += tokens
        self.sequences += sequences
        self.slots += slots

    def take(self, device) -> tuple[int, int, int, float]:
        import torch
        import torch.distributed as dist

        counts = torch.tensor([self.tokens, self.sequences, self.slots], dtype=torch.long, device=device)
        if dist.is_available() and dist.is_initialized():
            dist.all_reduce(counts)
        now = time.perf_counter()
        elapsed = now - self.since
        self.tokens = self.sequences = self.slots = 0
        self.since = now
        return int(counts[0]), int(counts[1]), int(counts[2]), elapsed


def counting_trainer(meter: ThroughputMeter):
    """A Trainer class that counts every training batch's tokens into the meter."""
    from transformers import Trainer

    class CountingTrainer(Trainer):
        def training_step(self, model, inputs, num_items_in_batch=None):
            if "num_tokens" in inputs:  # packed: counted by the collator, not model inputs
                inputs = dict(inputs)
                meter.add_counts(
                    int(inputs.pop("num_tokens")), int(inputs.pop("num_sequences")), int(inputs["input_ids"].numel())
                )
            else:
                meter.add(inputs["attention_mask"])
            return super().training_step(model, inputs, num_items_in_batch)

        def prediction_step(self, model, inputs, *a, **kw):
            inputs = {k: v for k, v in inputs.items() if k not in ("num_tokens", "num_sequences")}
            return super().prediction_step(model, inputs, *a, **kw)

    return CountingTrainer


TOTAL_STEPS_METRIC = "total_steps"  # read by llmft/progress.py: a contract with `llmft status`
GPU_HOURS_METRIC = "gpu_hours"
COST_METRIC = "cost_usd"


class GpuClock:
    """GPU-hours the run has used, over its attempts: this attempt's GPUs x its time since train begin, plus the
    last figure the resumed checkpoint's log history carries (the time between that log and the eviction is not
    counted: a lower bound by at most one checkpoint interval per eviction). ``gpus`` is 0 on CPU."""

    def __init__(self) -> None:
        self.since = time.monotonic()
        self.carried = 0.0
        self.gpus = 0

    def start(self, log_history: list[dict], *, gpus: int) -> None:
        self.since, self.gpus = time.monotonic(), gpus
        carried = [row[GPU_HOURS_METRIC] for row in log_history if GPU_HOURS_METRIC in row]
        self.carried = float(carried[-1]) if carried else 0.0

    def metrics(self, usd_per_gpu_hour: float | None) -> dict[str, float]:
        hours = self.carried + self.gpus * (time.monotonic() - self.since) / 3600
        out = {GPU_HOURS_METRIC: hours}
        if usd_per_gpu_hour is not None:
            out[COST_METRIC] = hours * usd_per_gpu_hour
        return out


def mlflow_callback(
    script: Any,
    *,
    meter: ThroughputMeter,
    shape,
    gpu: str | None,
    peak: float | None,
    step: Any,
    data: dict[str, int],
):
    """The callback that logs the run's parameters and its throughput and MFU metrics (MLflow on rank 0)."""
    from transformers import TrainerCallback

    from llm_platform import mfu as mfu_mod
    from llm_platform import mlflow_utils

    gpu_clock = GpuClock()

    class MlflowCallback(TrainerCallback):
        """MLflow on the main process; throughput and MFU computed on every rank (all_reduce)."""

        def on_train_begin(self, a, state, control, **kw):
            meter.since = time.perf_counter()
            gpu_clock.start(state.log_history, gpus=a.world_size if gpu else 0)
            if not state.is_world_process_zero or not script.mlflow_tracking:
                return
            mlflow_utils.start_run(
                experiment=script.mlflow_experiment_name,
                run_name=script.mlflow_run_name or Path(a.output_dir).name,
                resume_file=Path(a.output_dir) / "mlflow_run_id",
            )
            mlflow_utils.log_params_flat(
                {
                    "script": vars(script),
                    "training": {k: v for k, v in a.to_dict().items() if not k.startswith("_") and "token" not in k},
                    "model": {
                        "trainable_matmul_params": shape.trainable_matmul_params,
                        "frozen_matmul_params": shape.frozen_matmul_params,
                        "n_layers": shape.n_layers,
                        "d_model": shape.d_model,
                    },
                    "hardware": {
                        "gpu": gpu or "none",
                        "world_size": a.world_size,
                        "peak_flops_per_device": peak or "unknown",
                    },
                    "plan": step.params(),
                    "data": data,
                }
            )
            # the planned total, for `llmft status` (step/total and ETA, llmft/progress.py): state.max_steps is the
            # Trainer's own count (max_steps, or epochs x batches per epoch), known only from here on
            mlflow_utils.log_metrics({TOTAL_STEPS_METRIC: state.max_steps}, step=state.global_step)

        def on_log(self, a, state, control, logs=None, **kw):
            metrics = {k: v for k, v in (logs or {}).items() if isinstance(v, (int, float)) and math.isfinite(v)}
            if "loss" in metrics or "train_loss" in metrics:
                tokens, sequences, slots, elapsed = meter.take(a.device)
                if tokens and elapsed > 0:
                    tps = tokens / elapsed
                    seq_len = tokens / sequences
                    flops_per_token = shape.training_flops_per_token(int(round(seq_len)))
                    metrics.update(
                        tokens_per_second=tps,
                        mean_sequence_length=seq_len,
                        model_flops_per_token=flops_per_token,
                        padding_efficiency=tokens / slots,
                    )
                    if peak:
                        metrics["mfu"] = mfu_mod.mfu(
                            flops_per_token=flops_per_token,
                            tokens_per_second=tps,
                            n_gpus=a.world_size,
                            peak_flops_per_gpu=peak,
                        )
            if metrics:
                metrics.update(gpu_clock.metrics(script.gpu_usd_per_hour))
            if state.log_history and metrics:  # throughput/MFU also in the trainer's history (trainer_state.json)
                state.log_history[-1].update({k: v for k, v in metrics.items() if k not in state.log_history[-1]})
            if state.is_world_process_zero and metrics and script.mlflow_tracking:
                mlflow_utils.log_metrics(metrics, step=state.global_step)

    return MlflowCallback()
