"""Instance specs (vCPUs, memory, GPUs, EFA interfaces, max pods) from one data file, config/data/instance_specs.yaml.

HyperPod names instances `ml.<ec2 type>`; the hardware is the EC2 type's, so both look up the same entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

SPECS_FILE = Path(__file__).parent / "data" / "instance_specs.yaml"


@dataclass(frozen=True)
class InstanceSpec:
    """One instance type as EC2 documents it (threads_per_core 2: the vCPUs EC2 lists)."""

    name: str                 # EC2 name, no `ml.` prefix
    vcpus: int
    memory_gib: int
    max_pods: int             # ENI-limited pods (eni-max-pods.txt): sizes kube-reserved memory
    gpus: int = 0
    gpu_type: str = "none"    # `gpu-type` node label value
    efa_interfaces: int = 0   # network cards that take an EFA interface (0 = no EFA)
    instance_store: bool = False

    @property
    def is_gpu(self) -> bool:
        return self.gpus > 0


@lru_cache(maxsize=1)
def instance_specs() -> dict[str, InstanceSpec]:
    """Every instance type in config/data/instance_specs.yaml, by EC2 name."""
    data = yaml.safe_load(SPECS_FILE.read_text())
    out: dict[str, InstanceSpec] = {}
    for section in ("gpu", "cpu"):
        for name, fields in data[section].items():
            out[name] = InstanceSpec(name=name, **fields)
    return out


def find_spec(instance_type: str) -> InstanceSpec | None:
    """The spec of ``instance_type`` (EC2 or HyperPod `ml.` name), or None."""
    return instance_specs().get(instance_type.removeprefix("ml."))


def instance_spec(field: str, instance_type: str) -> InstanceSpec:
    """The spec of ``instance_type``, or a ValueError naming ``field`` and the data file."""
    spec = find_spec(instance_type)
    if spec is None:
        raise ValueError(f"{field} {instance_type!r} has no specs in config/data/instance_specs.yaml (vCPUs, memory, "
                         f"GPUs, EFA, max pods), so pods cannot be sized for it; add it there with its figures from the EC2 "
                         f"instance type pages, or use one of {', '.join(sorted(instance_specs()))}")
    return spec
