"""The light part of the training package, as the job builders see it from the main test environment."""

import shlex
import subprocess
import sys

from llm_platform.grpo_config import ENTRYPOINT

from k8s_charts.ray_job import GrpoParameters


def test_job_builders_do_not_import_the_heavy_stack() -> None:
    """The CDK app and the job builders import llm_platform.grpo_config: it must not pull torch or VeRL."""
    code = (
        "import sys, k8s_charts.ray_job, llm_platform.grpo_config; "
        "print(sorted(m for m in ('torch', 'transformers', 'verl', 'hydra') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_ray_job_runs_the_validated_configuration() -> None:
    params = GrpoParameters(
        model_path="/fsx/models/m",
        train_files="/fsx/datasets/t.parquet",
        val_files="/fsx/datasets/v.parquet",
        checkpoint_dir="/fsx/checkpoints/c",
        nodes=1,
        gpus_per_node=8,
    )
    assert shlex.split(params.entrypoint())[:3] == ENTRYPOINT.split()
    assert shlex.split(params.entrypoint())[3:] == params.overrides()
