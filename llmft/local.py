"""`llmft run --local SPEC`: a job spec's step on this machine, as its pod would run it.

Same preflight, same step file (the ConfigMap's `step.yaml`), same entry point and the same environment variables as
the pod's container; only the team's FSx tree is a local directory (`--fsx DIR`, default `./fsx`): every path under
`/fsx` in the step file and the environment is rewritten to it. Steps that run under torchrun in their PyTorchJob
(sft, evaluate) run under `python -m torch.distributed.run --standalone` with `--nproc` processes (default: the
GPUs `nvidia-smi` lists, else 1; on CPU, PyTorch uses gloo); evaluate, which is not distributed, is one process.
GRPO runs its `--check` only: VeRL needs GPUs.

Before the step runs: the outputs must not be another job's (the step's own ownership markers, checked here first,
llm_platform.steps.owner_problems), and the step's full `--check` runs with `--python` (the training stack is
installed there: what llmft's pure-Python check cannot see, transformers' own rules or a local source's columns);
a refusal stops there with the step's message. On a machine without GPUs the local step file is adapted (the type's
``cpu_adaptation``, llmft/job_types/: bf16/fp16 off, use_cpu on, no FSDP) and the run says what it changed; the
spec and its cluster job keep their settings.

What the pod gets from the cluster instead of the spec -- the MLflow tracking URI and the team's MLflow user
(ConfigMap `mlflow`, Secret `mlflow-credentials`) and secrets -- come from this shell's environment
(`MLFLOW_TRACKING_URI`, `MLFLOW_TRACKING_USERNAME`, `MLFLOW_TRACKING_PASSWORD`); without them, MLflow logs to
`<fsx>/mlruns` (a file store, :func:`mlflow_defaults`; a serve spec's model is resolved there too).

A ``type: serve`` spec is not a step: :func:`run_serve` serves the model directory the registry resolved (the
registered version's merged weights) with ``python -m llm_platform.serve`` (the CPU stand-in for the cluster's
SGLang, same OpenAI API, ``/health`` and ``/metrics``) on 127.0.0.1, and stops it by its PID on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from llm_platform import steps as step_contract
from llm_platform.paths import LOCAL_FSX_ENV, TEAM_MOUNT_PATH

from k8s_charts.serving import ENGINE_PORT, HEALTH_PATH
from llmft.build import Plan, pod_templates
from llmft.job_types.base import get as job_type

LOCAL_DIR = ".llmft-local"


def map_fsx(value: Any, fsx: Path) -> Any:
    """``value`` with every string path under /fsx rewritten to ``fsx``."""
    if isinstance(value, str):
        if value == TEAM_MOUNT_PATH or value.startswith(TEAM_MOUNT_PATH + "/"):
            return str(fsx) + value[len(TEAM_MOUNT_PATH) :]
        return value
    if isinstance(value, dict):
        return {k: map_fsx(v, fsx) for k, v in value.items()}
    if isinstance(value, list):
        return [map_fsx(v, fsx) for v in value]
    return value


def pod_environment(plan: Plan) -> dict[str, str]:
    """The literal environment variables of the job's step container (the first pod template, first container)."""
    job = plan.manifests[-1]
    _, template = pod_templates(job)[0]
    container = template["spec"]["containers"][0]
    return {e["name"]: str(e["value"]) for e in container.get("env", []) if "value" in e}


def local_devices() -> int:
    """GPUs on this machine (``nvidia-smi -L``), 0 without a driver."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return 0
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


def adapt_for_cpu(job_type_name: str, data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(the step file for a CPU, what changed): what the type's record says a step needs on a machine without GPUs,
    and why (``cpu_adaptation``, e.g. SFT: mixed precision off, use_cpu on, no FSDP sharding in one process).
    `llmft run --local` applies it and says so; the spec and its cluster job keep their settings, and preflight
    refuses use_cpu in a spec."""
    out, changed = dict(data), []
    for key, value in job_type(job_type_name).cpu_adaptation.items():
        if value is None:
            if out.pop(key, None) not in (None, False, "", {}):
                changed.append(f"{key} removed")
        elif key == "use_cpu":
            if out.get(key) is not True:
                out[key] = True
                changed.append("use_cpu: true")
        elif out.get(key):
            out[key] = value
            changed.append(f"{key}: {str(value).lower()}")
    return out, changed


def owner_problems(plan: Plan, fsx: Path) -> list[str]:
    """The step's own ownership rule (llm_platform.steps.owner_problems: an output directory whose
    ``.llmft-job.json`` names another job, in it or above it), checked before anything runs; the step writes the
    marker itself when it starts (PLATFORM_JOB_NAME is in the pod environment), so re-running the same job resumes."""
    fsx = fsx.resolve()

    def shown(directory: str) -> str:
        return TEAM_MOUNT_PATH + directory[len(str(fsx)) :] if directory.startswith(str(fsx)) else directory

    step = job_type(plan.spec.type).step or plan.spec.type
    return step_contract.owner_problems(step, map_fsx(plan.step, fsx), plan.spec.name, shown=shown)


def command(plan: Plan, step_path: Path, *, python: str, nproc: int, check: bool) -> list[str]:
    kind = job_type(plan.spec.type)
    step = step_contract.STEPS[kind.step]
    tail = ["-m", step.module, "--config", str(step_path)] + (["--check"] if check or kind.local_check_only else [])
    if step.distributed and not check:
        return [python, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(nproc), *tail]
    return [python, *tail]


def prepare(
    plan: Plan, *, fsx: Path, python: str, nproc: int | None, check: bool, base_env: dict[str, str] | None = None
) -> tuple[list[str], dict[str, str], Path]:
    """(command, environment, step file) of the local run of ``plan``; writes the step file under
    ``<fsx>/.llmft-local/<job>/``."""
    kind = job_type(plan.spec.type)
    if kind.step is None:
        raise ValueError(
            f"type {plan.spec.type} runs the spec's own image and command; run it with your own "
            f"tools (llmft run --local runs the training package's steps)"
        )
    fsx = fsx.resolve()
    work = fsx / LOCAL_DIR / plan.spec.name
    work.mkdir(parents=True, exist_ok=True)
    step_path = work / "step.yaml"
    # GRPO only runs its --check here, which reads no file, and GrpoParameters insists on /fsx paths (what every Ray
    # pod mounts): its step file keeps them.
    step_data = plan.step if kind.local_check_only else map_fsx(plan.step, fsx)
    devices = local_devices()
    if devices == 0 and kind.cpu_adaptation:
        step_data, changed = adapt_for_cpu(plan.spec.type, step_data)
        if changed:
            print(
                f"llmft: no GPU here: running {plan.spec.type} on the CPU with {', '.join(changed)} (the spec and "
                f"its cluster job keep their settings)",
                file=sys.stderr,
            )
    step_path.write_text(yaml.safe_dump(step_data, sort_keys=False))
    env = dict(base_env if base_env is not None else os.environ)
    env.update(map_fsx(pod_environment(plan), fsx))
    env.setdefault("HF_HOME", str(fsx / "hf-cache"))
    env[LOCAL_FSX_ENV] = str(fsx)  # what a step records for the cluster names /fsx, not this directory
    env.update(mlflow_defaults(fsx, env))
    wanted = nproc or max(devices, 1)
    if plan.spec.gpus_per_node:
        wanted = min(wanted, plan.spec.gpus_per_node)
    return command(plan, step_path, python=python, nproc=wanted, check=check), env, step_path


def mlflow_defaults(fsx: Path, env: Mapping[str, str]) -> dict[str, str]:
    """MLflow of a local run when the shell names none: a file store under the local /fsx (``DIR/mlruns``), which
    MLflow reads only with ``MLFLOW_ALLOW_FILE_STORE``; the steps log and register there, and a serve spec's
    registered model is resolved there (there is no server, so no registry gate either). {} when the shell sets
    ``MLFLOW_TRACKING_URI``."""
    if env.get("MLFLOW_TRACKING_URI"):
        return {}
    return {
        "MLFLOW_TRACKING_URI": (Path(fsx).resolve() / "mlruns").as_uri(),
        "MLFLOW_ALLOW_FILE_STORE": env.get("MLFLOW_ALLOW_FILE_STORE", "true"),
    }


def run(plan: Plan, *, fsx: Path, python: str | None = None, nproc: int | None = None, check: bool = False) -> int:
    problems = owner_problems(plan, fsx)
    if problems:
        print(
            f"llmft: {plan.spec.name} refused; nothing was run:\n"
            + "\n".join(f"  [FAIL] outputs: {p}" for p in problems),
            file=sys.stderr,
        )
        return 1
    cmd, env, step_path = prepare(plan, fsx=fsx, python=python or sys.executable, nproc=nproc, check=check)
    try:
        if "--check" not in cmd:
            # the step's full check first (the code the pod runs before anything else, with the training stack
            # installed here): a file it refuses fails in seconds with its message, never half-way
            full = [
                python or sys.executable,
                "-m",
                job_type(plan.spec.type).module,
                "--config",
                str(step_path),
                "--check",
            ]
            checked = subprocess.run(full, env=env, check=False, capture_output=True, text=True)
            if checked.returncode != 0:
                print(
                    f"llmft: the {plan.spec.type} step's own check refused {plan.spec.name}'s step file "
                    f"({step_path}); nothing was run:\n{checked.stderr.strip() or checked.stdout.strip()}",
                    file=sys.stderr,
                )
                return 1
        print(
            f"llmft: running {plan.spec.name} locally ({TEAM_MOUNT_PATH} -> {fsx.resolve()}, step file "
            f"{step_path}):\n  {' '.join(cmd)}",
            file=sys.stderr,
        )
        return subprocess.run(cmd, env=env, check=False).returncode
    except FileNotFoundError:
        print(
            f"llmft: {(python or sys.executable)} not found; pass --python with an interpreter that has the "
            f"training package and its dependencies (e.g. the sft image's, or .train-venv/bin/python)",
            file=sys.stderr,
        )
        return 2
    except OSError as exc:  # e.g. E2BIG: an environment larger than the kernel starts a process with
        print(
            f"llmft: could not start the step ({exc}); the environment of this shell and the spec's env together "
            f"may be too large (`env | wc -c`)",
            file=sys.stderr,
        )
        return 1


# --- type: serve ----------------------------------------------------------------------------------------------------

SERVE_MODULE = "llm_platform.serve"
SERVE_HOST = "127.0.0.1"


def serve_command(model_dir: Path, served_name: str, port: int, python: str, digest: str | None = None) -> list[str]:
    """The local server of ``model_dir`` as ``served_name`` (what clients send as ``model``), on 127.0.0.1; with the
    evaluated weights' ``digest``, which the server verifies before it loads."""
    return [
        python,
        "-m",
        SERVE_MODULE,
        "--model-path",
        str(model_dir),
        "--served-model-name",
        served_name,
        "--host",
        SERVE_HOST,
        "--port",
        str(port),
        *(["--weights-digest", digest] if digest else []),
    ]


def wait_healthy(proc: subprocess.Popen, port: int, timeout: float) -> bool:
    """Whether ``proc`` answers ``/health`` with 200 within ``timeout`` seconds (False as soon as it exits)."""
    deadline = time.monotonic() + timeout
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1, never through a proxy
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with direct.open(f"http://{SERVE_HOST}:{port}{HEALTH_PATH}", timeout=2) as r:
                if r.status == 200:
                    return True
        except (urllib.error.URLError, OSError):
            time.sleep(0.3)
    return False


def stop(proc: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGTERM to ``proc``'s PID, SIGKILL after ``grace`` seconds."""
    if proc.poll() is not None:
        return
    os.kill(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def run_serve(
    model_dir: Path,
    served_name: str,
    *,
    port: int = ENGINE_PORT,
    python: str | None = None,
    env: dict[str, str] | None = None,
    start_timeout: float = 300.0,
    digest: str | None = None,
) -> int:
    """Serve ``model_dir`` here until Ctrl-C (or until the server exits): starts it, waits for ``/health``, prints
    the URL, and stops the server by its PID."""
    if not (Path(model_dir) / "config.json").is_file():
        print(
            f"llmft: {model_dir} is not a Hugging Face model directory (no config.json); nothing was served",
            file=sys.stderr,
        )
        return 1
    cmd = serve_command(Path(model_dir), served_name, port, python or sys.executable, digest)
    print(f"llmft: serving {served_name} locally:\n  {' '.join(cmd)}", file=sys.stderr, flush=True)
    # before the server starts: it inherits the signal mask (unblocked here) and, for our handlers, the default
    # dispositions, so the SIGTERM of `stop` ends it at once instead of waiting out the grace period for SIGKILL
    previous = _signals_interrupt()
    proc: subprocess.Popen | None = None
    try:
        try:
            proc = subprocess.Popen(cmd, env=env)
        except FileNotFoundError:
            print(
                f"llmft: {cmd[0]} not found; pass --python with an interpreter that has the training package",
                file=sys.stderr,
            )
            return 2
        # its PID at once: a caller that stops llmft before the server is healthy (a script's `kill %1` after its
        # own request got through) still knows which process must be gone
        print(f"llmft: started the server (PID {proc.pid}); waiting for {HEALTH_PATH}", file=sys.stderr, flush=True)
        if not wait_healthy(proc, port, start_timeout):
            print(
                f"llmft: the server of {served_name} did not become healthy (exit code {proc.poll()})", file=sys.stderr
            )
            return 1
        print(
            f"llmft: {served_name} is served at http://{SERVE_HOST}:{port}/v1 (OpenAI API; {HEALTH_PATH}, "
            f"/metrics); Ctrl-C stops it (PID {proc.pid})",
            file=sys.stderr,
            flush=True,
        )
        return proc.wait()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM (_signals_interrupt)
        return 0
    finally:
        if proc is not None:
            stop(proc)
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _signals_interrupt() -> dict[int, Any]:
    """Ctrl-C (SIGINT) and SIGTERM (a `kill`, a closing terminal, a supervisor) to `llmft run --local` of a serve
    spec interrupt it, so the server it started is stopped by its PID instead of outliving it, whatever llmft
    inherited: a process may start with SIGINT ignored (a background job of a non-interactive shell) or with the
    signals blocked (a parent's signal mask is inherited across exec), and Python then raises no KeyboardInterrupt.
    Returns the previous handlers to restore ({} off the main thread, where Python sets no handlers)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    return {signum: signal.signal(signum, _interrupt) for signum in STOP_SIGNALS}
