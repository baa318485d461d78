"""One fine-tune from job spec to registered model, for real, on CPU.

The shipped pipeline (examples/jobs/01..06) runs through `llmft run --local` -- the same preflight, step file,
entry point and pod environment as on the cluster -- with /fsx mapped to a temp directory, the training package in
the training virtualenv (the images' library stack), and MLflow = the MLflow image's entry point with the image's
pinned MLflow on PostgreSQL + an S3 stand-in (tests/test_mlflow_server_e2e.py's environment), authenticated as
the team's own MLflow user. What changes against the shipped specs is only what a CPU and a tiny model need:

* the base model is a tiny Llama made here and saved where the download step puts it (the Hub is unreachable;
  the download step keeps its own tests), and the sources are small local samples in the source's format;
* SFT settings for a few CPU steps (``max_steps``, short sequences; `llmft run --local` itself turns bf16 off and
  use_cpu on, as it does for any spec on a machine without GPUs), 2 processes over gloo;
* evaluation of a few samples with short generations; GRPO runs its ``--check`` (VeRL needs GPUs).

Asserted: the registered model version and its source run, loss going down, MFU logged, the ROUGE scores in the
same experiment as the SFT run, and the merged model loading; tests/serve_e2e.py (collected here, on the same
pipeline) serves the evaluated version and calls it with OpenAI's client.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import yaml

from .conftest import ROOT
from .test_mlflow_server_e2e import _start_tasks, _team_users, stack  # noqa: F401 - `stack` is a fixture
from .train_python import TrainPython

pytestmark = pytest.mark.e2e  # docs/testing.md "Tiers"

TRAIN_PYTHON = ROOT / ".train-venv" / "bin" / "python"
EXAMPLES = ROOT / "examples" / "jobs"
TEAM = "ml-research"
TINY = ROOT / "training" / "tests"

SFT_ON_CPU = {
    "gradient_checkpointing": False,
    "max_steps": 8,
    "save_steps": 4,
    "logging_steps": 1,
    "per_device_train_batch_size": 3,
    "gradient_accumulation_steps": 1,
    "learning_rate": 1.0e-2,
    "lr_scheduler_type": "constant",
    "max_seq_length": 128,
    "lora_dropout": 0.0,
    "peak_tflops": 0.5,
    "seed": 0,
    "dataloader_num_workers": 0,
    "disable_tqdm": True,
}
# the evaluate step judges the registered version (issue 34): a pass tags it and points the alias `evaluated` at it
EVALUATE_ON_CPU = {
    "max_new_tokens": 8,
    "max_samples": 4,
    "batch_size": 4,
    "registered_model_name": f"{TEAM}.medical-sft",
    "registered_model_version": 1,
    "gate": {"metric": "finetuned/rouge1", "min": 0.0},
}


def _spec(tmp: Path, example: str, **changes: Any) -> Path:
    data = yaml.safe_load((EXAMPLES / example).read_text())
    settings = changes.pop("settings", None)
    data.update(changes)
    if settings is not None:
        data["settings"] = {**data.get("settings", {}), **settings}
    path = tmp / "specs" / example
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _llmft(spec: Path, fsx: Path, env: dict[str, str], *extra: str, timeout: int = 600) -> subprocess.CompletedProcess:
    started = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "llmft",
            "run",
            "--local",
            str(spec),
            "--env",
            "dev",
            "--fsx",
            str(fsx),
            "--python",
            str(TRAIN_PYTHON),
            *extra,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    print(
        f"--- llmft run --local {spec.name} {' '.join(extra)}: rc {proc.returncode} in "
        f"{time.monotonic() - started:.1f}s\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    )
    assert proc.returncode == 0, f"{spec.name}:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    return proc


@pytest.fixture(scope="module")
def train_python(tmp_path_factory) -> Iterator[TrainPython]:
    """The module's one training interpreter (tests/train_python.py): the tiny model built, the merged model loaded
    and OpenAI's client run in one start of torch and transformers instead of three."""
    if not TRAIN_PYTHON.exists():
        pytest.fail(f"{TRAIN_PYTHON} is missing: run `make install`")
    env = {"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(TINY)}
    helper = TrainPython(TRAIN_PYTHON, cwd=TINY, env=env, log=tmp_path_factory.mktemp("train-python") / "log")
    try:
        yield helper
    finally:
        helper.close()


MAKE_INPUTS = """
import json, sys
from pathlib import Path
from tiny import build_model, gsm8k_rows, medical_rows, write_jsonl
from llm_platform import prepare_data

model_dir, raw = Path(sys.argv[1]), Path(sys.argv[2])
raw.mkdir(parents=True, exist_ok=True)
rows = medical_rows(24)
corpus = [prepare_data.R1_PROMPT.format(question=r["Question"]) + " " + prepare_data.R1_RESPONSE.format(
    reasoning=r["Complex_CoT"], answer=r["Response"]) for r in rows]
build_model(model_dir, corpus)
write_jsonl(raw / "medical-o1.jsonl", rows)      # FreedomIntelligence/medical-o1-reasoning-SFT's columns
write_jsonl(raw / "gsm8k.jsonl", gsm8k_rows())   # openai/gsm8k's columns
"""

LOAD_MERGED = """
import json, sys, torch
from transformers import AutoModelForCausalLM, AutoTokenizer
model = AutoModelForCausalLM.from_pretrained(sys.argv[1]).eval()
tok = AutoTokenizer.from_pretrained(sys.argv[1])
ids = tok("a patient has pain linked to the heart", return_tensors="pt")["input_ids"]
with torch.no_grad():
    logits = model(ids).logits
print(json.dumps({"layers": model.config.num_hidden_layers, "finite": bool(torch.isfinite(logits).all()),
                  "lora": any("lora" in name for name, _ in model.named_parameters())}))
"""


class Mlflow:
    def __init__(self, port: int, auth: tuple[str, str]) -> None:
        self.base, self.auth = f"http://127.0.0.1:{port}", auth

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        r = requests.get(self.base + path, params=params, auth=self.auth, timeout=30)
        assert r.status_code == 200, (path, r.status_code, r.text[:500])
        return r.json()

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        r = requests.post(self.base + path, json=body, auth=self.auth, timeout=30)
        assert r.status_code == 200, (path, r.status_code, r.text[:500])
        return r.json()

    def history(self, run_id: str, key: str) -> dict[int, float]:
        data = self.get("/api/2.0/mlflow/metrics/get-history", run_id=run_id, metric_key=key, max_results=1000)
        return {int(m.get("step", 0)): float(m["value"]) for m in data.get("metrics", [])}


@pytest.fixture(scope="module")
def pipeline(stack, train_python: TrainPython, tmp_path_factory) -> dict[str, Any]:  # noqa: F811 - imported fixture
    tmp = tmp_path_factory.mktemp("pipeline")
    fsx = tmp / "fsx"
    plain, _ = stack["task"].environment()
    # The MLflow client here reaches the task directly, not through the load balancer's name: add 127.0.0.1. One
    # server worker: the pipeline's steps call it one at a time, and each worker process imports MLflow's server
    # (CPU the assertions here do not need; the deployed worker count is tests/test_mlflow_server_e2e.py's).
    ports = _start_tasks(
        stack,
        ["pipeline"],
        overrides={
            "MLFLOW_SERVER_ALLOWED_HOSTS": plain["MLFLOW_SERVER_ALLOWED_HOSTS"] + ",127.0.0.1:*",
            "MLFLOW_WORKERS": "1",
        },
    )
    user, password = _team_users(stack)[TEAM]
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "MLFLOW_TRACKING_URI": f"http://127.0.0.1:{ports['pipeline']}",
        "MLFLOW_TRACKING_USERNAME": user,
        "MLFLOW_TRACKING_PASSWORD": password,
        "MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING": "false",
        "OMP_NUM_THREADS": "1",
        "JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION": "1",
        "PYTHONPATH": str(ROOT / "training"),
    }  # this checkout's training package, whatever is installed
    timings: dict[str, float] = {}

    def step(name: str, spec: Path, *extra: str, as_user: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        started = time.monotonic()
        proc = _llmft(spec, fsx, {**env, **(as_user or {})}, *extra)
        timings[name] = time.monotonic() - started
        return proc

    # 1. what the download step would leave: the base model at the step's own local_dir
    download = yaml.safe_load((EXAMPLES / "01-download-model.yaml").read_text())
    model_dir = fsx / "models" / download["model"].rsplit("/", 1)[-1]
    started = time.monotonic()
    train_python.run(MAKE_INPUTS, str(model_dir), str(fsx / "raw"))
    timings["tiny model"] = time.monotonic() - started
    step("download --check", _spec(tmp, "01-download-model.yaml"), "--check")
    # 2-3. prepare-data on local samples in the sources' formats
    step(
        "prepare medical",
        _spec(
            tmp,
            "02-prepare-medical.yaml",
            dataset="/fsx/raw/medical-o1.jsonl",
            settings={"format": "sft-r1", "test_size": 0.25},
        ),
    )
    step(
        "prepare gsm8k",
        _spec(
            tmp,
            "03-prepare-gsm8k.yaml",
            dataset="/fsx/raw/gsm8k.jsonl",
            settings={"format": "verl-gsm8k", "test_size": 0.2},
        ),
    )
    # 4. SFT with 2 processes (gloo), 5. evaluation, 6. GRPO's check
    sft = step("sft", _spec(tmp, "04-sft-medical.yaml", settings=SFT_ON_CPU), "--nproc", "2")
    # the gate's verdict is the platform's: the promotion step evaluates as the evaluator, whose credentials no team
    # pod holds (issue 40; the team's own user gets 403 on the verdict, tests/test_mlflow_server_e2e.py)
    evaluator = {
        "MLFLOW_TRACKING_USERNAME": stack["secrets"]["MLFLOW_EVALUATOR_USERNAME"],
        "MLFLOW_TRACKING_PASSWORD": stack["secrets"]["MLFLOW_EVALUATOR_PASSWORD"],
    }
    evaluate = step("evaluate", _spec(tmp, "05-evaluate.yaml", settings=EVALUATE_ON_CPU), as_user=evaluator)
    grpo = step("grpo --check", _spec(tmp, "06-grpo-gsm8k.yaml"))
    return {
        "fsx": fsx,
        "mlflow": Mlflow(ports["pipeline"], (user, password)),
        "sft": sft,
        "evaluate": evaluate,
        "grpo": grpo,
        "timings": timings,
        "env": env,
        "train_python": train_python,
    }


def test_spec_to_registered_model(pipeline) -> None:
    mlflow: Mlflow = pipeline["mlflow"]
    fsx: Path = pipeline["fsx"]
    print("timings (s):", json.dumps({k: round(v, 1) for k, v in pipeline["timings"].items()}))
    for split in ("train", "test"):
        assert (fsx / "datasets/medical-o1" / f"{split}.jsonl").is_file()
        assert (fsx / "datasets/gsm8k" / f"{split}.parquet").is_file()

    experiment = mlflow.get("/api/2.0/mlflow/experiments/get-by-name", experiment_name=f"{TEAM}/medical-sft")[
        "experiment"
    ]
    runs = mlflow.post("/api/2.0/mlflow/runs/search", {"experiment_ids": [experiment["experiment_id"]]})["runs"]
    by_name = {r["info"]["run_name"]: r for r in runs}
    assert set(by_name) == {"medical-sft", "medical-eval"}, sorted(by_name)
    sft_run = by_name["medical-sft"]["info"]["run_id"]

    loss = mlflow.history(sft_run, "loss")
    print("loss per step:", json.dumps({k: round(v, 4) for k, v in sorted(loss.items())}))
    assert sorted(loss) == list(range(1, 9))
    assert sum(loss[s] for s in (6, 7, 8)) / 3 < sum(loss[s] for s in (1, 2, 3)) / 3 - 0.1, loss
    mfu = mlflow.history(sft_run, "mfu")
    assert set(mfu) == set(range(1, 9)) and all(0 < v for v in mfu.values()), mfu
    params = {p["key"]: p["value"] for p in by_name["medical-sft"]["data"]["params"]}
    assert params["hardware.world_size"] == "2"  # two processes, one gradient

    eval_metrics = {m["key"]: m["value"] for m in by_name["medical-eval"]["data"]["metrics"]}
    rouge = {k: v for k, v in eval_metrics.items() if "rouge" in k}
    print("ROUGE:", json.dumps({k: round(v, 4) for k, v in sorted(rouge.items())}))
    for label in ("base", "finetuned", "delta"):
        for kind in ("rouge1", "rouge2", "rougeL", "rougeLsum"):
            assert f"{label}/{kind}" in rouge
    assert all(0.0 <= rouge[f"finetuned/{k}"] <= 1.0 for k in ("rouge1", "rougeL"))

    name = f"{TEAM}.medical-sft"
    versions = mlflow.get("/api/2.0/mlflow/model-versions/search", filter=f"name='{name}'")["model_versions"]
    print("registered:", [(v["name"], v["version"], v["run_id"]) for v in versions])
    assert [(v["version"], v["run_id"]) for v in versions] == [("1", sft_run)]


def test_the_merged_model_loads(pipeline) -> None:
    merged = pipeline["fsx"] / "checkpoints/medical-sft/merged"
    out = json.loads(pipeline["train_python"].run(LOAD_MERGED, str(merged)).splitlines()[-1])
    assert out == {"layers": 2, "finite": True, "lora": False}


def test_grpo_runs_its_check_locally(pipeline) -> None:
    out = pipeline["grpo"].stdout + pipeline["grpo"].stderr
    assert "llmp-grpo:" in out and "is valid" in out and f"experiment '{TEAM}/qwen-grpo'" in out


from .serve_e2e import test_the_evaluated_model_serves_the_openai_api  # noqa: E402, F401 - runs on this pipeline


def test_llmft_status_reads_the_real_sft_run(pipeline, monkeypatch: pytest.MonkeyPatch) -> None:
    """`llmft status` (llmft/progress.py) on the SFT run the pipeline logged to the MLflow server, as the team's user,
    with a fake cluster holding the job llmft renders for the same spec: step/total from the step's own
    ``total_steps``, tokens/s and GPU-hours (0 on CPU) as logged."""
    import io
    from contextlib import redirect_stdout

    from llmft.cli import main
    from llmft.cluster import Cluster

    from .test_progress import FakeCluster, pods_of, rendered_job

    config_map, job = rendered_job()
    fake = FakeCluster(config_map, job, pods_of(job, node="n1"), {})
    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, kubectl="kubectl": cls()))
    monkeypatch.setattr(Cluster, "run", lambda self, *a, **kw: fake(self, *a, **kw))
    for key in ("MLFLOW_TRACKING_URI", "MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD"):
        monkeypatch.setenv(key, pipeline["env"][key])
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["status", "medical-sft", "--team", TEAM, "--env", "dev"]) == 0
    text = out.getvalue()
    print(text)
    steps = SFT_ON_CPU["max_steps"]
    assert f"step {steps}/{steps} (100%)" in text, text
    assert "FINISHED" in text and "ETA 0m" in text
    assert "0.00 GPU-hours" in text and "$0.00" in text  # CPU processes hold no GPU
