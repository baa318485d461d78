"""The examples are one pipeline of one team, and every step file llmft renders is accepted by its step.

* The chain is derived from the specs: in file order (`examples/jobs/NN-*.yaml`), every path a step reads on the
  team's FSx (its step file's input fields, llm_platform.steps) is a path an earlier step writes.
* Every rendered step file (every example, in every environment) is handed to its step's own `--check` in the
  training virtualenv (`.train-venv`, the image's library stack): the real parser, not a key list.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml
from llm_platform import steps
from llm_platform.paths import TEAM_MOUNT_PATH

from config import load_config
from k8s_charts.values import PlatformValues
from llmft.preflight import preflight
from llmft.spec import load_spec

from .conftest import ENVIRONMENTS, ROOT

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

EXAMPLES = sorted((ROOT / "examples" / "jobs").glob("*.yaml"))
PIPELINE = [p for p in EXAMPLES if p.name[:2].isdigit()]
TRAIN_PYTHON = ROOT / ".train-venv" / "bin" / "python"
IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/llmft-dev/sft:1.0-abc"


def plan_of(path: Path, env: str = "dev"):
    from llmft.registry import FileRegistry  # a serve example's model: the examples' registry snapshot

    config = load_config(env)
    result = preflight(
        load_spec(path),
        config=config,
        values=PlatformValues.placeholders(config),
        image=IMAGE,
        registry=FileRegistry.load(ROOT / "examples" / "registry.yaml"),
    )
    assert result.ok, f"{path.name} in {env}:\n{result.report()}"
    return result.plan


def _under(path: str, written: list[str]) -> bool:
    return any(path == w or path.startswith(w.rstrip("/") + "/") for w in written)


def test_the_pipeline_covers_every_training_step_in_one_team() -> None:
    specs = [load_spec(p) for p in PIPELINE]
    (team,) = {s.team for s in specs}  # one team runs the whole chain, a team every environment has
    assert all(team in {t.name for t in load_config(env).kubernetes.teams} for env in ENVIRONMENTS)
    assert {s.type for s in specs} == {*steps.STEPS, "serve"}  # the training steps, then serving the result


def test_every_input_is_the_output_of_an_earlier_example() -> None:
    written: list[str] = []
    for path in PIPELINE:
        plan = plan_of(path)
        if plan.spec.type == "serve":  # it reads the registered version's directory (examples/registry.yaml)
            model_dir = plan.manifests[0]["metadata"]["annotations"]["llmft.io/model-dir"]
            assert _under(model_dir, written), f"{path.name} serves {model_dir}, which no earlier example writes"
            continue
        inputs, outputs = steps.paths(plan.spec.type, plan.step)
        for item in inputs:
            if item.startswith(TEAM_MOUNT_PATH + "/"):
                assert _under(item, written), f"{path.name} reads {item}, which no earlier example writes: {written}"
        written += outputs
    assert len(written) >= len(PIPELINE)


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    """The chain check fails when a step reads what nobody wrote (here: evaluate reads the adapter, not merged)."""
    evaluate = yaml.safe_load((ROOT / "examples/jobs/05-evaluate.yaml").read_text())
    evaluate["model"] = "/fsx/checkpoints/medical-sft-v2/merged"
    broken = tmp_path / "05-evaluate.yaml"
    broken.write_text(yaml.safe_dump(evaluate))
    written: list[str] = []
    for path in [p for p in PIPELINE if p.name < "05"]:
        plan = plan_of(path)
        written += steps.paths(plan.spec.type, plan.step)[1]
    inputs, _ = steps.paths("evaluate", plan_of(broken).step)
    assert not all(_under(i, written) for i in inputs if i.startswith("/fsx/"))


def _check_all(step_files: list[tuple[str, Path]]) -> list[dict]:
    """Runs each step's --check in one training-venv interpreter (one import of transformers, not one per file)."""
    runner = (
        "import contextlib, importlib, io, json, sys\n"
        "from llm_platform import steps\n"
        "out = []\n"
        "for step_type, path in json.loads(sys.argv[1]):\n"
        "    module = importlib.import_module(steps.STEPS[step_type].module)\n"
        "    o, e = io.StringIO(), io.StringIO()\n"
        "    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):\n"
        "        code = module.main(['--config', path, '--check'])\n"
        "    out.append({'type': step_type, 'path': path, 'code': code, 'out': o.getvalue(), 'err': e.getvalue()})\n"
        "print(json.dumps(out))\n"
    )
    # PYTHONPATH: this checkout's training package (the venv's editable install may be another checkout's)
    proc = subprocess.run(
        [str(TRAIN_PYTHON), "-c", runner, json.dumps([(t, str(p)) for t, p in step_files])],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={
            "PATH": "/usr/bin:/bin",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "PYTHONPATH": str(ROOT / "training"),
        },
    )  # this checkout's package
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


def readme_specs(tmp_path: Path) -> list[Path]:
    """The job specs of the README's walkthrough: every ```yaml block with name, tier and type."""
    import re

    text = "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    out = []
    for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", text, re.S)):
        data = yaml.safe_load(block)
        if isinstance(data, dict) and {"name", "tier", "type"} <= set(data):
            path = tmp_path / f"readme-{i}.yaml"
            path.write_text(block)
            out.append(path)
    return out


def test_every_rendered_step_file_passes_its_steps_own_check(tmp_path: Path) -> None:
    if not TRAIN_PYTHON.exists():
        pytest.fail(f"{TRAIN_PYTHON} is missing: run `make install`")
    files = []
    walkthrough = readme_specs(tmp_path)
    assert walkthrough, "the README's walkthrough has no job spec"
    for env in ENVIRONMENTS:
        for path in [*PIPELINE, *walkthrough]:
            plan = plan_of(path, env)
            if plan.spec.type == "serve":  # no step file
                continue
            rendered = plan.manifests[0]["data"]["step.yaml"]  # the ConfigMap the pod mounts, as rendered
            assert yaml.safe_load(rendered) == plan.step
            target = tmp_path / env / f"{path.stem}.yaml"
            target.parent.mkdir(exist_ok=True)
            target.write_text(rendered)
            files.append((plan.spec.type, target))
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({**yaml.safe_load(files[-1][1].read_text()), "rollout_engine": "vllm"}))
    results = _check_all(files + [("grpo", bad)])
    for r in results[:-1]:
        assert r["code"] == 0 and "is valid" in r["out"] + r["err"], json.dumps(r, indent=1)
    assert results[-1]["code"] == 1 and "rollout_engine: not a setting of the grpo step" in results[-1]["err"]
