"""libfabric's EFA variables per instance type: GPUDirect RDMA (FI_EFA_USE_DEVICE_RDMA=1) only where the EFA device
has RDMA read (aws-ofi-nccl's `gdr_required` platforms, aws/aws-ofi-nccl src/platform-aws.cpp); libfabric aborts
with it on g5/g6e."""

from __future__ import annotations

import pytest

from config.kubernetes import GPU_INSTANCE_TYPES
from k8s_charts.pods import EFA_ENV, efa_env

from .test_k8s_charts import build, pytorch_job

# aws-ofi-nccl's platform_data_map: gdr_required = true for p4d.24xlarge, p4de.24xlarge, p5/p5e (not p5.4xlarge),
# p5en, p6-b200, p6-b300 and later p-series; false for g5.48xlarge, p3dn.24xlarge, p5.4xlarge; no entry for g6e.
RDMA_READ_FAMILIES = ("p4d", "p4de", "p5", "p5e", "p5en", "p6")
NO_RDMA_READ_FAMILIES = ("g5", "g6e")
WITH_EFA = sorted(name for name, info in GPU_INSTANCE_TYPES.items() if info.efa_network_cards)


def family(instance_type: str) -> str:
    return instance_type.removeprefix("ml.").split(".")[0].split("-")[0]


def test_every_efa_instance_type_is_classified() -> None:
    assert WITH_EFA and {family(t) for t in WITH_EFA} <= set(RDMA_READ_FAMILIES + NO_RDMA_READ_FAMILIES), WITH_EFA


@pytest.mark.parametrize("instance_type", WITH_EFA)
def test_gpudirect_rdma_only_with_rdma_read(instance_type: str) -> None:
    env = efa_env(instance_type)
    assert env.items() >= EFA_ENV.items() and env["FI_PROVIDER"] == "efa"
    assert ("FI_EFA_USE_DEVICE_RDMA" in env) == (family(instance_type) in RDMA_READ_FAMILIES), env
    assert efa_env(f"ml.{instance_type}") == env  # HyperPod names


def test_upstream_exceptions() -> None:
    """Entries that aws-ofi-nccl lists before the broader p5 pattern, and a p-series type newer than the table."""
    assert "FI_EFA_USE_DEVICE_RDMA" not in efa_env("p5.4xlarge")
    assert "FI_EFA_USE_DEVICE_RDMA" not in efa_env("g5.48xlarge")
    assert efa_env("p6e-gb200.36xlarge")["FI_EFA_USE_DEVICE_RDMA"] == "1"


@pytest.mark.parametrize(
    ("tier", "instance_type", "rdma"), [("development", "p5.48xlarge", True), ("production", "ml.g5.8xlarge", False)]
)
def test_rendered_worker_environment(tier: str, instance_type: str, rdma: bool) -> None:
    gpus = GPU_INSTANCE_TYPES[instance_type.removeprefix("ml.")].gpus
    doc = build(
        lambda c: pytorch_job(c, tier=tier, instance_type=instance_type, gpus_per_node=gpus, procs_per_node=gpus)
    )
    container = doc["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["FI_PROVIDER"] == "efa" and container["resources"]["limits"].get("vpc.amazonaws.com/efa")
    assert ("FI_EFA_USE_DEVICE_RDMA" in env) == rdma
