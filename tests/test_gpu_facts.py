"""The platform's GPU facts and the training package's agree.

Two homes, one fact each: config/data/instance_specs.yaml (read by config/instances.py) says which GPU model, and how
many, an instance type has (the `gpu-type` label); training/llm_platform/mfu.py says what one GPU model peaks at
(dense BF16 TFLOPS, matched on the name NVML reports). The training package ships in images without config/, so it
cannot read the platform's table, and the platform has no use for peak FLOPS; this test is what ties them: every GPU
the platform can schedule a job on must yield an MFU without the job setting ``peak_tflops``.
"""

from __future__ import annotations

import pytest
from llm_platform import mfu

from config.instances import GPU_TYPE_BY_FAMILY, instance_specs


def nvml_name(gpu_type: str) -> str:
    """What NVML reports for a `gpu-type` label, as far as mfu's fragments go ('a100-80gb' -> 'NVIDIA A100-80GB')."""
    return f"NVIDIA {gpu_type.upper()}"


SCHEDULABLE = sorted({s.gpu_type for s in instance_specs().values() if s.is_gpu})
"""GPU models of the instance types pools and HyperPod groups may use (a type must be in instance_specs.yaml)."""


@pytest.mark.parametrize("gpu_type", SCHEDULABLE)
def test_every_schedulable_gpu_has_a_peak(gpu_type: str) -> None:
    assert mfu.peak_flops(nvml_name(gpu_type)) is not None, (
        f"gpu-type {gpu_type!r} (config/data/instance_specs.yaml) has no peak in training/llm_platform/mfu.py "
        f"PEAK_BF16_TFLOPS: add its dense BF16 datasheet figure there, with the source"
    )


def test_schedulable_gpus_are_known_families() -> None:
    assert set(SCHEDULABLE) <= set(GPU_TYPE_BY_FAMILY.values())
