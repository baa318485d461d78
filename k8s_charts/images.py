"""The platform's container images: names, immutable tags and URIs, known at synth.

Each image is built by its CodeBuild project (cdk_constructs/storage/image_build.py) from ``images/<name>/`` and the
training package in ``training/``, and pushed to its own ECR repository ``<resource prefix>/<name>`` with the tag
``<version>-<content hash>``: the version from ``images/<name>/VERSION``, the hash over every file the build reads.
A change to any input gives a new tag (ECR tags are immutable), so a URI always names one build.

    image_uri(config, "verl-sglang")  # 123456789012.dkr.ecr.us-east-1.amazonaws.com/llmft-dev/verl-sglang:1.0.0-3f2a..
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from config import EnvironmentConfig

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY_ROOT = ROOT
IMAGES_DIR = ROOT / "images"
# ConfigMap in every team namespace: one key per image name, the value its URI (``envFrom`` turns the keys into
# variables only where they are valid names, so jobs read it with ``valueFrom``/``configMapKeyRef`` or the CLI).
CONFIG_MAP = "platform-images"
HASH_LENGTH = 12
# Files that never reach a build (caches, editor and packaging leftovers).
_IGNORED_PARTS = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "build", "dist", ".venv", ".git"}
_IGNORED_SUFFIXES = (".pyc", ".pyo", ".egg-info")


@dataclass(frozen=True)
class ImageSpec:
    """One platform image: where it is defined and what its build reads."""

    name: str
    inputs: tuple[str, ...]  # repository folders the Dockerfile COPYs (plus the image folder itself)
    expected_build_minutes: int  # one clean CodeBuild run, for `make cost`
    description: str

    @property
    def folder(self) -> Path:
        return IMAGES_DIR / self.name

    @property
    def dockerfile(self) -> str:
        return f"images/{self.name}/Dockerfile"

    @property
    def version(self) -> str:
        return (self.folder / "VERSION").read_text().strip()


IMAGES: dict[str, ImageSpec] = {
    spec.name: spec
    for spec in (
        ImageSpec(
            "sft",
            ("images/sft", "training"),
            30,
            "PyTorch + transformers + peft + trl + bitsandbytes: SFT (torchrun/FSDP), evaluation, data prep",
        ),
        # flash-attn is compiled from source for sm_80 and sm_90 (most of the build time).
        ImageSpec(
            "verl-sglang",
            ("images/verl-sglang", "training"),
            90,
            "VeRL + SGLang + Ray (KubeRay), nccl-tests: GRPO RayJobs and NCCL health checks",
        ),
    )
}
IMAGE_NAMES = tuple(IMAGES)


def spec(name: str) -> ImageSpec:
    if name not in IMAGES:
        raise ValueError(
            f"image {name!r} is not a platform image; the platform builds {', '.join(IMAGE_NAMES)} "
            f"(images/<name>/Dockerfile)"
        )
    return IMAGES[name]


def input_files(name: str) -> list[Path]:
    """Every file the build of ``name`` reads, in a stable order."""
    files: list[Path] = []
    for folder in spec(name).inputs:
        base = ROOT / folder
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(ROOT)
            if (
                path.is_dir()
                or set(rel.parts) & _IGNORED_PARTS
                or any(part.endswith(_IGNORED_SUFFIXES) for part in rel.parts)
            ):
                continue
            files.append(path)
    return files


@cache
def content_hash(name: str) -> str:
    """First 12 hex digits of the SHA-256 over the relative path and bytes of each input file."""
    digest = hashlib.sha256()
    for path in input_files(name):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:HASH_LENGTH]


def image_tag(name: str) -> str:
    """``<version>-<content hash>``, e.g. ``1.0.0-3f2a9c81d0e4``."""
    version = spec(name).version
    if not re.fullmatch(r"[0-9A-Za-z][0-9A-Za-z._]{0,100}", version):
        raise ValueError(f"images/{name}/VERSION {version!r} is not a valid tag prefix; use e.g. 1.0.0")
    return f"{version}-{content_hash(name)}"


# The CodeBuild source asset: the repository root minus everything but the image inputs (CDK glob ignore syntax,
# later patterns win, `!` re-includes).
IMAGE_SOURCE_EXCLUDE = [
    "*",
    ".*",
    "!images",
    "!images/**",
    "!training",
    "!training/**",
    *(f"**/{part}" for part in sorted(_IGNORED_PARTS)),
    "**/*.pyc",
    "**/*.pyo",
    "**/*.egg-info",
]


def build_project_name(config: EnvironmentConfig, name: str) -> str:
    """Name of the CodeBuild project that builds ``name`` (`make images` starts it by this name)."""
    return f"{config.resource_prefix}-image-{spec(name).name}"


def repository_name(config: EnvironmentConfig, name: str) -> str:
    """The ECR repository of ``name`` in ``config``'s environment."""
    return f"{config.resource_prefix}/{spec(name).name}"


def registry(config: EnvironmentConfig) -> str:
    suffix = "amazonaws.com.cn" if config.region.startswith("cn-") else "amazonaws.com"
    return f"{config.account}.dkr.ecr.{config.region}.{suffix}"


def image_uri(config: EnvironmentConfig, name: str) -> str:
    """Full URI (registry/repository:tag) of platform image ``name`` in ``config``'s environment."""
    return f"{registry(config)}/{repository_name(config, name)}:{image_tag(name)}"


def image_uris(config: EnvironmentConfig) -> dict[str, str]:
    """Every platform image's URI, by name (the data of the ``platform-images`` ConfigMap)."""
    return {name: image_uri(config, name) for name in IMAGE_NAMES}


def platform_image(config: EnvironmentConfig, uri: str) -> str | None:
    """The platform image name of ``uri`` if it is one this environment builds (same repository and tag)."""
    return next((name for name, own in image_uris(config).items() if own == uri), None)


def locked_version(name: str, package: str) -> str:
    """The version of ``package`` in ``images/<name>/requirements.lock`` (what the image installs)."""
    from .image_locks import locked_version as version_in

    return version_in(
        (spec(name).folder / "requirements.lock").read_text(), package, f"images/{name}/requirements.lock"
    )
