"""Instance types, the bottom of config/: specs (vCPUs, memory, GPUs, EFA interfaces, max pods) from one data file,
config/data/instance_specs.yaml, the EC2 names botocore knows, GPU families and EBS bounds. compute.py,
kubernetes.py and queueing.py all import from here, and this module imports none of them.

HyperPod names instances `ml.<ec2 type>`; the hardware is the EC2 type's, so both look up the same entry.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

SPECS_FILE = Path(__file__).parent / "data" / "instance_specs.yaml"


@dataclass(frozen=True)
class InstanceSpec:
    """One instance type as EC2 documents it (threads_per_core 2: the vCPUs EC2 lists)."""

    name: str  # EC2 name, no `ml.` prefix
    vcpus: int
    memory_gib: int
    max_pods: int  # ENI-limited pods (eni-max-pods.txt): sizes kube-reserved memory
    gpus: int = 0
    gpu_type: str = "none"  # `gpu-type` node label value
    efa_interfaces: int = 0  # network cards that take an EFA interface (0 = no EFA)
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
        raise ValueError(
            f"{field} {instance_type!r} has no specs in config/data/instance_specs.yaml (vCPUs, memory, "
            f"GPUs, EFA, max pods), so pods cannot be sized for it; add it there with its figures from the EC2 "
            f"instance type pages, or use one of {', '.join(sorted(instance_specs()))}"
        )
    return spec


# EBS volumes (gp3, the type every node volume here uses) are at most 16 TiB = 16,384 GiB ("Amazon EBS volume
# types", EBS User Guide: gp3 volume size 1 GiB - 16 TiB).
EBS_MAX_GIB = 16_384

_NVIDIA_FAMILY = re.compile(r"ml\.(p[0-9][a-z]*(-[a-z0-9]+)?|g[0-9][a-z]*|gr[0-9])")


def botocore_enum(service: str, shape: str) -> tuple[str, ...]:
    """The values of the string shape ``shape`` in the installed botocore's ``service`` model (read offline)."""
    return tuple(botocore_shape(service, shape)["enum"])


@lru_cache(maxsize=16)
def botocore_shape(service: str, shape: str) -> dict:
    """The top-level shape ``shape`` of the installed botocore's ``service`` model (read offline), as the model
    file writes it (``{"type": "string", "enum": [...]}``, ``{"type": "integer", "min": 1, "max": 6758}``).

    The EC2 model is half a megabyte compressed, and parsing all of it was a tenth of a synth; a top-level shape is
    one block of the pretty-printed file, so only that block is parsed. Falls back to the full model if the file
    ever looks different."""
    import gzip
    import importlib.util
    import json

    try:
        spec = importlib.util.find_spec("botocore")  # botocore's own data folder, without importing botocore
        data = Path(next(iter(spec.submodule_search_locations))) / "data" / service  # type: ignore[union-attr]
        version = max(
            p.name for p in data.iterdir() if (p / "service-2.json.gz").is_file() or (p / "service-2.json").is_file()
        )  # API versions are dates: the newest, as botocore picks
        base = data / version / "service-2.json"
        for path, opener in ((base.with_suffix(".json.gz"), gzip.open), (base, open)):
            if path.is_file():
                with opener(path, "rt", encoding="utf-8") as handle:
                    text = handle.read()
                match = re.search(
                    rf'\n    "{re.escape(shape)}":\{{.*?\n    \}}', text[text.index('\n  "shapes"') :], re.S
                )
                if match:
                    return json.loads(match.group(0).split(":", 1)[1])
    except (ValueError, KeyError, OSError, StopIteration, TypeError):
        pass
    import botocore.session

    model = botocore.session.get_session().get_service_model(service)
    return model._service_description["shapes"][shape]  # the same dict, from the full model


@lru_cache(maxsize=1)
def ec2_instance_types() -> frozenset[str]:
    """Every EC2 `InstanceType` the pinned botocore's EC2 model knows (read offline; pinned in requirements.txt)."""
    return frozenset(botocore_enum("ec2", "InstanceType"))


def check_ec2_instance_type(field: str, value: str) -> str:
    """``value`` if the pinned EC2 model lists it, else a ValueError with close matches of the same family."""
    known = ec2_instance_types()
    if value in known:
        return value
    family = value.split(".", 1)[0]
    sizes = sorted(t for t in known if t.split(".", 1)[0] == family)
    hint = (
        f"{family} comes in {', '.join(sizes)}"
        if sizes
        else f"close matches: {', '.join(difflib.get_close_matches(value, sorted(known), n=5, cutoff=0.6)) or 'none'}"
    )
    raise ValueError(f"{field} {value!r} is not an EC2 instance type (botocore's EC2 model); {hint}")


# The one table of NVIDIA GPU families: EC2 instance family -> the value of the `gpu-type` node label (HyperPod groups
# by their `ml.` names, Karpenter pools, `llmft`, the cost report). config/data/instance_specs.yaml gives each
# instance type it lists the same gpu_type (tests/test_node_shapes.py checks both agree).
GPU_TYPE_BY_FAMILY: dict[str, str] = {
    "p4d": "a100",
    "p4de": "a100-80gb",
    "p5": "h100",
    "p5e": "h200",
    "p5en": "h200",
    "p6-b200": "b200",
    "p6-b300": "b300",
    "p6e-gb200": "gb200",
    "g4dn": "t4",
    "g5": "a10g",
    "g6": "l4",
    "gr6": "l4",
    "g6e": "l40s",
    "g7e": "rtx-pro-6000",
}


def gpu_families(gpu_name: str) -> tuple[str, ...]:
    """EC2 families whose GPU is ``gpu_name`` as Karpenter's `karpenter.k8s.aws/instance-gpu-name` label names it
    (the GPU model, lower case: `a100` covers the 40 and 80 GB families)."""
    return tuple(f for f, t in GPU_TYPE_BY_FAMILY.items() if t == gpu_name or t.removesuffix("-80gb") == gpu_name)


def instance_family(instance_type: str) -> str:
    """`ml.p5.48xlarge` -> `ml.p5`."""
    return instance_type.rsplit(".", 1)[0]


def is_nvidia_gpu(instance_type: str) -> bool:
    return bool(_NVIDIA_FAMILY.fullmatch(instance_family(instance_type)))


@dataclass(frozen=True)
class GpuInstanceType:
    """Facts about one GPU instance type (EC2 name without the HyperPod `ml.` prefix)."""

    gpu_type: str  # value of the `gpu-type` node label
    gpus: int
    efa_network_cards: int  # 0 = no EFA; else network cards that each take an EFA-only interface
    instance_store: bool  # NVMe instance store present (RAID0 for ephemeral storage)
    vcpus: int
    memory_gib: int


# EC2 GPU instance types the platform knows: the `gpu` section of config/data/instance_specs.yaml (with sources).
GPU_INSTANCE_TYPES: dict[str, GpuInstanceType] = {
    name: GpuInstanceType(
        spec.gpu_type, spec.gpus, spec.efa_interfaces, spec.instance_store, spec.vcpus, spec.memory_gib
    )
    for name, spec in instance_specs().items()
    if spec.is_gpu
}


def gpu_instance_type(field: str, name: str) -> GpuInstanceType:
    """Facts about ``name`` (``ml.`` prefix allowed, as HyperPod names them), or a message naming ``field``."""
    info = GPU_INSTANCE_TYPES.get(name.removeprefix("ml."))
    if info is None:
        raise ValueError(
            f"{field} {name!r} is not a known GPU instance type; use one of "
            f"{', '.join(GPU_INSTANCE_TYPES)} (or add it to config.kubernetes.GPU_INSTANCE_TYPES)"
        )
    return info
