"""One library stack: the training tests run the versions the images install.

Parses the real locks: both images' environment locks (and the build/flash-attn locks installed beside them) and
the training tests' lock (training/requirements-test.lock, installed --no-deps into .train-venv). Every package that
two of them share must have one version; PyTorch is the same release (the tests get its CPU build)."""

from __future__ import annotations

from pathlib import Path

import pytest

from k8s_charts.images import IMAGE_NAMES
from tools.images import lock

from .conftest import ROOT

TEST_LOCK = ROOT / lock.TEST_LOCK.where


def image_versions(name: str) -> dict[str, str]:
    """What the image installs from its locks: name -> version (every lock of the image, checked consistent)."""
    out: dict[str, str] = {}
    for spec in (s for s in lock.IMAGE_LOCKS if s.image == name):
        for package, (version, _) in lock.locked_entries((spec.folder / spec.lock).read_text()).items():
            assert out.setdefault(package, version) == version, f"images/{name}: {package} locked twice"
    return out


def training_versions() -> dict[str, str]:
    return lock.pins(TEST_LOCK.read_text())


def differences(a: dict[str, str], b: dict[str, str]) -> list[str]:
    return [f"{p}: {a[p]} != {b[p]}" for p in sorted(set(a) & set(b)) if a[p] != b[p]]


def test_the_images_agree_on_every_shared_package() -> None:
    sft, verl = image_versions("sft"), image_versions("verl-sglang")
    shared = set(sft) & set(verl)
    assert {"torch", "transformers", "numpy", "accelerate", "peft", "datasets", "nvidia-nccl-cu13"} <= shared
    assert differences(sft, verl) == []


@pytest.mark.parametrize("name", IMAGE_NAMES)
def test_training_tests_install_the_image_versions(name: str) -> None:
    image, tests = image_versions(name), training_versions()
    assert "torch" in tests and tests["torch"] == image["torch"], "the tests' CPU torch is the images' release"
    assert differences(tests, image) == []


def test_training_tests_cover_the_heavy_stack() -> None:
    """The packages whose versions matter to the tests' verdicts are all shared with an image (so compared)."""
    images = set(image_versions("sft")) | set(image_versions("verl-sglang"))
    heavy = {
        "torch",
        "transformers",
        "peft",
        "accelerate",
        "datasets",
        "mlflow-skinny",
        "verl",
        "tensordict",
        "ray",
        "hydra-core",
        "omegaconf",
        "numpy",
        "pandas",
        "pyarrow",
        "safetensors",
        "tokenizers",
    }
    assert heavy <= set(training_versions()) & images


def test_a_difference_is_reported(tmp_path: Path) -> None:
    """The comparison reads versions from the files: a lock edited to another version fails it."""
    text = TEST_LOCK.read_text()
    version = training_versions()["transformers"]
    edited = tmp_path / "requirements-test.lock"
    edited.write_text(text.replace(f"transformers=={version}", "transformers==5.9.0"))
    assert differences(lock.pins(edited.read_text()), image_versions("sft")) == [f"transformers: 5.9.0 != {version}"]


def test_training_lock_is_resolved_from_the_image_locks() -> None:
    """The tests' lock is compiled by tools/images/lock.py with both image locks as constraints, for the tests'
    interpreter, and is in sync with its input (offline check)."""
    spec = lock.TEST_LOCK
    assert {(spec.folder / c).resolve() for c in spec.constraints} == {
        (s.folder / s.lock).resolve() for s in lock.IMAGE_LOCKS if s.lock == lock.MAIN_LOCK
    }
    assert spec.python_version == lock.TEST_PYTHON_VERSION and not spec.hashes
    assert lock.problems(spec) == []
