"""``python -m llm_platform.bench`` on CPU with the tiny shape: the harness the GPU benchmark runs (figures are not
checked: they depend on the machine)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llm_platform import bench, bench_data, memory

pytestmark = pytest.mark.e2e  # trains/serves the tiny model or starts processes (docs/testing.md "Tiers")

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def test_synthetic_rows_follow_the_medical_lengths_in_the_sft_r1_layout() -> None:
    rows = bench_data.synthetic_rows(200, words=100)
    lengths = bench_data.medical_lengths(200)
    assert [len(r["text"].split()) + 1 for r in rows] == lengths  # + the end-of-sequence token
    assert all(r["text"].startswith(r["prompt"] + " ") for r in rows)
    assert 700 < sum(lengths) / len(lengths) < 1250 and max(lengths) <= bench_data.MAX_TOKENS


def test_every_shape_builds_a_config_transformers_accepts() -> None:
    from transformers import AutoConfig

    for name, values in memory.SHAPES.items():
        values = dict(values)
        config = AutoConfig.for_model(values.pop("model_type"), **values)
        assert config.hidden_size == values["hidden_size"], name


def test_cpu_run_prints_the_table_writes_json_and_logs_to_mlflow(tmp_path, capsys, monkeypatch) -> None:
    import mlflow

    store = (tmp_path / "mlruns").as_uri()
    monkeypatch.setenv("MLFLOW_TRACKING_URI", store)
    mlflow.set_tracking_uri(store)
    out = tmp_path / "bench.json"
    rc = bench.main(
        [
            "--shape",
            "tiny",
            "--config",
            str(CONFIGS / "sft.yaml"),
            "--steps",
            "2",
            "--warmup",
            "1",
            "--cpu",
            "--in-process",
            "--rows",
            "24",
            "--work",
            str(tmp_path),
            "--json",
            str(out),
            "--instance-type",
            "g5.2xlarge",
            "--mlflow-experiment",
            "bench-test",
            "--variant",
            "fast:max_seq_length=256,max_tokens_per_step=512,tokens_per_optimizer_step=512",
            "--variant",
            "padded:packing=false,max_seq_length=256,per_device_train_batch_size=2,gradient_accumulation_steps=1",
        ]
    )
    printed = capsys.readouterr().out
    assert rc == 0, printed
    assert "MFU" in printed and "tok/s" in printed and "pad eff" in printed and "epoch $" in printed
    results = {r["name"]: r for r in json.loads(out.read_text())["results"]}
    fast, padded = results["fast"], results["padded"]
    assert fast["steps"] == padded["steps"] == 2
    assert fast["tokens_per_micro_step"] == 512 and not fast["liger"]  # no CUDA: Liger falls back
    assert fast["tokens_per_second"] > 0 and fast["epoch_usd"] > 0 and fast["seconds_per_step"] > 0
    assert fast["padding_efficiency"] > 0.9
    runs = mlflow.search_runs(experiment_names=["bench-test"], output_format="list")
    by_name = {r.info.run_name: r for r in runs}
    assert set(by_name) == {"bench/fast", "bench/padded"}
    assert by_name["bench/fast"].data.metrics["tokens_per_second"] == pytest.approx(fast["tokens_per_second"])
    assert by_name["bench/fast"].data.params["recipe.max_tokens_per_step"] == "512"


def test_real_rows_can_bring_their_own_tokenizer(tmp_path) -> None:
    from transformers import AutoTokenizer

    bench_data.build_tokenizer(tmp_path / "tok", words=50)
    model = bench_data.build_model("tiny", tmp_path / "model", device="cpu", tokenizer_dir=str(tmp_path / "tok"))
    assert len(AutoTokenizer.from_pretrained(model)) == 54
    assert (model / "config.json").is_file()


# --- the step of a `type: benchmark` job (llmft renders its step file; llm_platform.steps contract) ---------------
def _step_file(tmp_path: Path, **changes) -> Path:
    import yaml

    data = {
        "shape": "tiny",
        "output_dir": str(tmp_path / "out"),
        "steps": 2,
        "warmup": 1,
        "rows": 24,
        "instance_type": "g5.2xlarge",
        "mlflow_experiment_name": "ml-research/bench-test",
        "mlflow_run_name": "medical-bench",
        "recipe": {"max_seq_length": 256, "max_tokens_per_step": 512, "tokens_per_optimizer_step": 512},
        "variants": ["fast:lora_r=4"],
        **changes,
    }
    path = tmp_path / "step.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_step_check_names_every_refused_field(tmp_path, capsys) -> None:
    assert bench.main(["--config", str(_step_file(tmp_path)), "--check"]) == 0
    out = capsys.readouterr().out
    assert "is valid" in out and "writes: " + str(tmp_path / "out") in out and "tiny for 2 optimizer steps" in out
    bad = _step_file(
        tmp_path,
        shape="huge",
        steps=0,
        variants=["a:lora_rr=1", "b c:"],
        recipe={"train_dataset_path": "/x", "lora_r": "eight"},
    )
    assert bench.main(["--config", str(bad), "--check"]) == 1
    err = capsys.readouterr().err
    for line in (
        "shape: 'huge' is not a known shape; use one of",
        "steps: 0 is outside 1-",
        "recipe.train_dataset_path: set by the benchmark",
        "recipe.lora_r: 'eight' is a str; sft expects int",
        "variants[1]: recipe name 'b c' must be",
    ):
        assert line in err, err
    assert "Traceback" not in err


def test_step_runs_on_cpu_from_its_step_file_and_logs_to_the_teams_experiment(tmp_path, capsys, monkeypatch) -> None:
    import mlflow
    from llm_platform import team_names

    store = (tmp_path / "mlruns").as_uri()
    monkeypatch.setenv("MLFLOW_TRACKING_URI", store)
    monkeypatch.setenv("MLFLOW_TRACKING_USERNAME", team_names.TEAM_USER_PREFIX + "ml-research")
    monkeypatch.setenv("RANK", "3")  # what the job's torchrun sets: the recipe's own torchrun must not inherit it
    monkeypatch.setenv("LOCAL_RANK", "0")
    mlflow.set_tracking_uri(store)
    rc = bench.main(["--config", str(_step_file(tmp_path))])
    printed = capsys.readouterr().out
    assert rc == 0, printed
    assert "tok/s" in printed and "epoch $" in printed
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    (fast,) = saved["results"]
    assert fast["name"] == "fast" and fast["steps"] == 2 and fast["error"] is None
    assert saved["instance_type"] == "g5.2xlarge" and fast["epoch_usd"] > 0
    (run,) = mlflow.search_runs(experiment_names=["ml-research/bench-test"], output_format="list")
    assert run.info.run_name == "medical-bench/fast"
    assert run.data.params["recipe.lora_r"] == "4" and run.data.params["shape"] == "tiny"
    assert run.data.metrics["tokens_per_second"] == pytest.approx(fast["tokens_per_second"])


def test_step_without_mlflow_logs_nothing(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    argv = bench.step_argv(bench.BenchConfig(shape="tiny", output_dir=str(tmp_path)), tmp_path / "recipe.yaml")
    assert "--mlflow-experiment" not in argv
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://mlflow")
    argv = bench.step_argv(
        bench.BenchConfig(shape="tiny", output_dir=str(tmp_path), mlflow_tracking=False), tmp_path / "recipe.yaml"
    )
    assert "--mlflow-experiment" not in argv


def _live_members(group: int) -> list[str]:
    """Processes of process group ``group`` that still run (a zombie, dead and waiting to be reaped by PID 1, holds
    nothing): from /proc/<pid>/stat (state is field 3, the process group field 5, after the parenthesised name)."""
    live = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[2]) == group and fields[0] not in ("Z", "X"):
            live.append(f"{stat.parent.name} {fields[0]}")
    return live


def test_sigterm_stops_the_recipe_at_once_and_exits_retryably(tmp_path) -> None:
    """Eviction of a benchmark job (issue 44): SIGTERM while a recipe runs stops its process group, writes no result
    and exits 143 (retryable) with one line saying why; nothing waits for the grace period."""
    import os
    import signal
    import subprocess
    import sys

    from llm_platform.preemption import EXIT_PREEMPTED

    step = _step_file(tmp_path, steps=bench.MAX_STEPS, mlflow_tracking=False)
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["PYTHONPATH"] = str(Path(bench.__file__).parents[1])
    proc = subprocess.Popen(
        [sys.executable, "-m", "llm_platform.bench", "--config", str(step)],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        lines, group = [], None
        for line in proc.stderr:  # the harness names the recipe's process group once it has started it
            lines.append(line)
            if " runs as process group " in line:
                group = int(line.rsplit(" ", 1)[1])
                break
        assert group, "".join(lines)
        proc.send_signal(signal.SIGTERM)
        rest = proc.stderr.read()
        rc = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert rc == EXIT_PREEMPTED, rest
    assert "llmp-benchmark: signal SIGTERM: the pod is being evicted" in rest and f"exiting {EXIT_PREEMPTED}" in rest
    assert "Traceback" not in rest
    assert _live_members(group) == [], "the recipe's processes outlived the harness"
    assert not (tmp_path / "out" / "results.json").exists()
    assert not (tmp_path / "out" / "work" / "fast.json").exists(), "the recipe ran to its end before it was stopped"
