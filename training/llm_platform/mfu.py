"""Model FLOPs utilisation: model FLOPs per token x tokens/s / peak FLOPS of the GPUs doing the work.

MFU (PaLM, Chowdhery et al. 2022, appendix B, https://arxiv.org/abs/2204.02311) counts the FLOPs the model needs,
not what the hardware ran: recomputation from gradient checkpointing is excluded. Per token of a training step:

* every matrix multiply with a weight of ``n`` parameters costs ``2n`` FLOPs forward;
* backward costs ``2n`` more for the activation gradient, and ``2n`` more for the weight gradient only when the
  weight is trained: ``6n`` for trained weights, ``4n`` for frozen ones (the LoRA base model);
* attention scores and the weighted sum add ``2 * 2 * d_model * seq_len`` per layer forward, three times that
  with backward: ``12 * n_layers * d_model * seq_len`` (PaLM's ``12 L H Q T``).

Peak FLOPS are the dense (no 2:4 sparsity) BF16 tensor-core figures of NVIDIA's datasheets; an unknown GPU yields
no MFU unless the job sets ``peak_tflops``. VeRL's own MFU (``perf/mfu/actor`` in GRPO runs) uses the same
figures for A100/H100/H200 (verl 0.9.1 verl/utils/flops_counter.py).
"""

from __future__ import annotations

from dataclasses import dataclass

# GPU name fragment (as reported by CUDA / NVML, matched case-insensitively, first match wins) -> dense BF16
# TFLOPS per GPU, with the datasheet it comes from.
PEAK_BF16_TFLOPS: tuple[tuple[str, float, str], ...] = (
    (
        "H200",
        989.0,
        "NVIDIA H200 datasheet: BF16 Tensor Core 1,979 TFLOPS with sparsity (989 dense), "
        "https://www.nvidia.com/en-us/data-center/h200/",
    ),
    # NVML names: "NVIDIA H100 80GB HBM3" (SXM), "NVIDIA H100 PCIe", "NVIDIA H100 NVL": the variants first.
    (
        "H100 PCIE",
        756.0,
        "NVIDIA H100 datasheet, PCIe: BF16 Tensor Core 1,513 TFLOPS with sparsity (756 dense), "
        "https://www.nvidia.com/en-us/data-center/h100/",
    ),
    (
        "H100 NVL",
        835.0,
        "NVIDIA H100 datasheet, NVL: BF16 Tensor Core 1,671 TFLOPS with sparsity (835 dense), "
        "https://www.nvidia.com/en-us/data-center/h100/",
    ),
    (
        "H100",
        989.0,
        "NVIDIA H100 SXM datasheet: BF16 Tensor Core 1,979 TFLOPS with sparsity (989 dense), "
        "https://www.nvidia.com/en-us/data-center/h100/",
    ),
    (
        "B200",
        2250.0,
        "NVIDIA HGX B200: 36 PFLOPS FP16/BF16 with sparsity for 8 GPUs (2.25 PFLOPS dense per GPU), "
        "https://www.nvidia.com/en-us/data-center/hgx/",
    ),
    (
        "A100",
        312.0,
        "NVIDIA A100 datasheet: BF16 Tensor Core 312 TFLOPS (624 with sparsity), "
        "https://www.nvidia.com/en-us/data-center/a100/",
    ),
    (
        "A10G",
        70.0,
        "AWS's A10G (g5, dev's GPU; NVIDIA publishes no datasheet for it): BF16 Tensor Core 70 TFLOPS "
        "dense, vs 125 for the A10 (Baseten, 'NVIDIA A10 vs A10G for ML model inference', spec table), "
        "https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/",
    ),
    (
        "L40S",
        362.05,
        "NVIDIA L40S datasheet: BF16 Tensor Core 362.05 TFLOPS (733 with sparsity), "
        "https://www.nvidia.com/en-us/data-center/l40s/",
    ),
    (
        "L4",
        121.0,
        "NVIDIA L4 datasheet: BF16 Tensor Core 242 TFLOPS with sparsity (121 dense), "
        "https://www.nvidia.com/en-us/data-center/l4/",
    ),
)


def peak_flops(gpu_name: str) -> float | None:
    """Dense BF16 peak FLOPS of one GPU named ``gpu_name`` (e.g. 'NVIDIA H100 80GB HBM3'), None if unknown."""
    upper = gpu_name.upper()
    for fragment, tflops, _source in PEAK_BF16_TFLOPS:
        if fragment in upper:
            return tflops * 1e12
    return None


def detect_gpu_name() -> str | None:
    """The name of GPU 0 from NVML (nvidia-ml-py), else from torch, else None (CPU)."""
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            name = pynvml.nvmlDeviceGetName(pynvml.nvmlDeviceGetHandleByIndex(0))
            return name.decode() if isinstance(name, bytes) else name
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # noqa: BLE001 - no driver / no GPU
        pass
    try:
        import torch

        if torch.cuda.is_available():
            return torch.cuda.get_device_name(0)
    except Exception:  # noqa: BLE001
        pass
    return None


@dataclass(frozen=True)
class ModelShape:
    """What the FLOPs count needs from a model."""

    trainable_matmul_params: int
    frozen_matmul_params: int
    n_layers: int
    d_model: int

    def training_flops_per_token(self, seq_len: int) -> float:
        return (
            6 * self.trainable_matmul_params
            + 4 * self.frozen_matmul_params
            + 12 * self.n_layers * self.d_model * seq_len
        )

    def inference_flops_per_token(self, seq_len: int) -> float:
        return (
            2 * (self.trainable_matmul_params + self.frozen_matmul_params) + 4 * self.n_layers * self.d_model * seq_len
        )


def model_shape(model) -> ModelShape:
    """Count the weights of every ``nn.Linear`` (projections, MLP, LM head, LoRA A/B), split by requires_grad.

    Embedding lookups are gathers, not matmuls; norms and biases are negligible. A LM head tied to the embedding
    is still a matmul and is counted through its Linear module.
    """
    import torch

    trainable = frozen = 0
    for module in model.modules():
        if isinstance(module, torch.nn.Linear):
            n = module.weight.numel()
            # bitsandbytes 4-bit weights are packed two per byte; count the logical matrix
            if getattr(module.weight, "quant_state", None) is not None:
                n = module.in_features * module.out_features
            if module.weight.requires_grad:
                trainable += n
            else:
                frozen += n
    cfg = getattr(model, "config", None)
    text_cfg = getattr(cfg, "text_config", None) or cfg
    return ModelShape(
        trainable_matmul_params=trainable,
        frozen_matmul_params=frozen,
        n_layers=int(getattr(text_cfg, "num_hidden_layers", 0) or 0),
        d_model=int(getattr(text_cfg, "hidden_size", 0) or 0),
    )


def mfu(*, flops_per_token: float, tokens_per_second: float, n_gpus: int, peak_flops_per_gpu: float) -> float:
    """Fraction of the GPUs' peak the model's FLOPs reach at ``tokens_per_second`` (all GPUs together)."""
    if n_gpus < 1 or peak_flops_per_gpu <= 0:
        raise ValueError(f"n_gpus {n_gpus} and peak_flops_per_gpu {peak_flops_per_gpu} must be positive")
    return flops_per_token * tokens_per_second / (n_gpus * peak_flops_per_gpu)
