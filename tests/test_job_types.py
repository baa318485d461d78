"""The job-type registry (llmft/job_types/): every table llmft keeps about types is derived from it, an unknown type is
refused, and a new type is one module: a toy type (and its toy step) registered through the registry alone renders a
valid job, its step file is checked by its own schema, and nothing else in llmft names it."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from llm_platform import steps as step_contract

from config import load_config
from k8s_charts.validation import validate
from k8s_charts.values import PlatformValues
from llmft.build import STEP_CONFIG_FILE, BuildError, StepProblems, build, default_image_name, default_output
from llmft.job_types import FieldContext, JobType, get, register, registered, unregister
from llmft.job_types.base import files, present
from llmft.spec import job_types, parse_spec

from .conftest import ROOT

IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/llmft-dev/sft:1.0-abc"
TOY = "toy-dpo"
TOY_STEP_MODULE = "toy_dpo_step"


def test_every_registered_type_is_one_module_of_the_package() -> None:
    modules = {p.stem.replace("_", "-") for p in (ROOT / "llmft" / "job_types").glob("*.py")} - {"--init--", "base"}
    assert set(registered()) == modules
    assert job_types() == tuple(registered())


def test_every_type_with_a_step_names_a_step_of_the_training_package_and_maps_the_spec_to_it() -> None:
    for name, kind in registered().items():
        if kind.step is None:
            continue
        assert kind.step in step_contract.STEPS, name
        assert kind.fields is not None, f"{name} has a step but no spec -> step file mapping"
        assert kind.module == step_contract.STEPS[kind.step].module


def test_an_unknown_type_is_refused_with_the_registered_ones() -> None:
    with pytest.raises(Exception) as err:
        parse_spec({"name": "x", "team": "ml-research", "tier": "development", "type": "dpo"})
    assert "type 'dpo' is not a job type; use one of " + ", ".join(registered()) in str(err.value)
    with pytest.raises(KeyError, match="is not a job type"):
        get("dpo")


def test_a_type_with_a_step_but_no_mapping_is_refused_at_build_not_given_another_types_fields() -> None:
    """Before the registry an unknown type silently got GRPO's step fields (llmft/build.py `_step_fields`)."""
    register(JobType(name="no-fields", summary="toy", workload="pytorch", gpus=True, step="sft"))
    try:
        spec = parse_spec({"name": "x", "team": "ml-research", "tier": "development", "type": "no-fields"})
        config = load_config("dev")
        with pytest.raises(BuildError, match="no mapping of the spec to its step file"):
            build(
                spec,
                config=config,
                team=config.kubernetes.teams[0],
                values=PlatformValues.placeholders(config),
                image=IMAGE,
            )
    finally:
        unregister("no-fields")


@dataclass
class ToyConfig:
    """The toy step's schema: what a DPO step file would hold."""

    model_path: str
    train_files: str
    output_dir: str
    beta: float = 0.1

    def __post_init__(self) -> None:
        if not 0 < self.beta <= 1:
            raise ValueError(f"beta {self.beta} is outside (0, 1]; use e.g. 0.1")


def _toy_fields(spec, ctx: FieldContext):
    (train,) = files(spec.dataset or "", ("train.jsonl",))
    data = present(model_path=spec.model, train_files=train, output_dir=ctx.output)
    return data, {"model_path": "model", "train_files": "dataset", "output_dir": "output"}


@pytest.fixture
def toy_type(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A new job type exactly as docs/extending.md "Add a job type" says: a step (module + schema) registered in the
    training package's contract, and one JobType record; nothing else is edited."""
    module = type(sys)(TOY_STEP_MODULE)
    module.ToyConfig = ToyConfig
    monkeypatch.setitem(sys.modules, TOY_STEP_MODULE, module)
    step_contract.register(
        step_contract.Step(
            TOY,
            TOY_STEP_MODULE,
            "ToyConfig",
            distributed=True,
            inputs=("model_path", "train_files"),
            outputs=("output_dir",),
        )
    )
    kind = register(
        JobType(
            name=TOY,
            summary="toy preference tuning",
            workload="pytorch",
            gpus=True,
            step=TOY,
            needs={"model": "path", "dataset": "path"},
            elastic=True,
            fields=_toy_fields,
        )
    )
    try:
        yield kind
    finally:
        unregister(TOY)
        step_contract.unregister(TOY)


def _toy_spec(**settings) -> dict:
    return {
        "name": "toy-run",
        "team": "ml-research",
        "tier": "development",
        "type": TOY,
        "model": "/fsx/models/tiny",
        "dataset": "/fsx/datasets/prefs",
        "settings": settings,
    }


def test_a_toy_type_registered_alone_renders_a_valid_job_with_its_checked_step_file(toy_type: JobType) -> None:
    config = load_config("dev")
    team = next(t for t in config.kubernetes.teams if t.name == "ml-research")
    spec = parse_spec(_toy_spec(beta=0.2))
    assert spec.uses_gpus and default_image_name(spec) == "sft"
    assert default_output(spec) == "/fsx/checkpoints/toy-run"
    plan = build(spec, config=config, team=team, values=PlatformValues.placeholders(config), image=IMAGE)
    for doc in plan.manifests:
        assert validate(doc, config.compute.kubernetes_version) == [], doc["kind"]
    config_map, job = plan.manifests[0], plan.manifests[-1]
    assert job["kind"] == "PyTorchJob"
    assert plan.step == {
        "model_path": "/fsx/models/tiny",
        "train_files": "/fsx/datasets/prefs/train.jsonl",
        "output_dir": "/fsx/checkpoints/toy-run",
        "beta": 0.2,
    }
    assert config_map["metadata"]["name"] == "toy-run-step"
    commands = [c.get("args", []) + c.get("command", []) for _, pod in plan.pod_specs() for c in pod["containers"]]
    assert any(TOY_STEP_MODULE in part for cmd in commands for part in cmd), commands
    assert any(STEP_CONFIG_FILE in part for cmd in commands for part in cmd), commands


def test_a_toy_types_settings_are_checked_by_its_own_schema_and_its_spec_fields_by_its_record(toy_type) -> None:
    config = load_config("dev")
    team = next(t for t in config.kubernetes.teams if t.name == "ml-research")
    with pytest.raises(StepProblems) as err:
        build(
            parse_spec(_toy_spec(beta=5, output_dir="/x")),
            config=config,
            team=team,
            values=PlatformValues.placeholders(config),
            image=IMAGE,
        )
    assert "settings.output_dir: set by the spec's output" in "; ".join(err.value.problems)
    with pytest.raises(StepProblems) as err:
        build(
            parse_spec(_toy_spec(beta=5)),
            config=config,
            team=team,
            values=PlatformValues.placeholders(config),
            image=IMAGE,
        )
    assert "beta 5 is outside (0, 1]" in "; ".join(err.value.problems)
    with pytest.raises(Exception, match="type toy-dpo needs dataset"):
        parse_spec({k: v for k, v in _toy_spec().items() if k != "dataset"})


def test_preflight_runs_a_types_own_memory_hook_for_each_instance_type(toy_type: JobType) -> None:
    """Preflight names no type: the record's ``memory`` hook is called with the plan and each instance type the job
    may land on, and its verdict is the `memory` check (issue 41)."""
    from dataclasses import replace

    from llmft.job_types import base
    from llmft.preflight import preflight

    calls: list[str] = []

    def hook(plan, instance_type: str) -> tuple[str, str]:
        calls.append(instance_type)
        return "FAIL", f"{plan.step['model_path']} is too big for {instance_type}; use a toy GPU"

    monkeypatched = replace(toy_type, memory=hook)
    base._REGISTRY[TOY] = monkeypatched
    config = load_config("dev")
    result = preflight(
        parse_spec(_toy_spec(beta=0.2)), config=config, values=PlatformValues.placeholders(config), image=IMAGE
    )
    assert calls and not result.ok
    assert [c.message for c in result.failures()] == [
        f"/fsx/models/tiny is too big for {t}; use a toy GPU" for t in calls
    ]
    assert all(c.name == "memory" for c in result.failures())
