"""A pipeline runs in the order its data flows (llmft/pipeline_graph.py, issue 41): the graph from the steps' declared
inputs and outputs whatever the list's order, and every way the graph could be wrong refused with the step and the
field named; gates checked when the pipeline loads. The graph rules on nodes first, then on rendered example specs."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from config import load_config
from k8s_charts.values import PlatformValues
from llmft.pipeline import GATE_SCRIPT, PipelineError, load_pipeline, render
from llmft.pipeline_graph import MAX_FAN_OUT, MAX_STEPS, Node, link

from .conftest import ROOT
from .test_examples_chain import IMAGE

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

JOBS = ROOT / "examples" / "jobs"
MEDICAL = ROOT / "examples" / "pipelines" / "medical.yaml"
ENV = "dev"


def n(name: str, *, reads=(), writes=(), into=None, after=(), gated=False) -> Node:
    return Node(
        name=name,
        source=f"{name}.yaml",
        inputs=tuple(reads),
        roots=tuple(into if into is not None else writes),
        written=tuple(writes),
        after=tuple(after),
        gated=gated,
    )


# ---- the graph's rules -------------------------------------------------------------------------------------------
def test_order_follows_the_data_not_the_list() -> None:
    nodes = [
        n("sft", reads=["/fsx/d/train.jsonl"], writes=["/fsx/c"]),
        n("prep", writes=["/fsx/d/train.jsonl"], into=["/fsx/d"]),
    ]
    graph = link(nodes)
    assert graph.problems == [] and graph.order == ["prep", "sft"] and graph.dependencies["sft"] == ["prep"]


def test_a_cycle_is_refused_naming_its_steps() -> None:
    graph = link([n("a", reads=["/fsx/b"], writes=["/fsx/a"]), n("b", reads=["/fsx/a"], writes=["/fsx/b"])])
    assert any("a, b wait on each other in a circle" in p for p in graph.problems), graph.problems


def test_an_input_no_step_writes_is_refused_unless_the_pipeline_lists_it() -> None:
    nodes = [n("sft", reads=["/fsx/datasets/medicl/train.jsonl"], writes=["/fsx/c"])]
    (problem,) = link(nodes).problems
    assert "sft.yaml: reads '/fsx/datasets/medicl/train.jsonl', which no step of this pipeline writes" in problem
    assert "inputs:" in problem
    assert link(nodes, external=("/fsx/datasets/medicl",)).problems == []


def test_an_input_inside_another_steps_output_that_it_never_writes_is_refused() -> None:
    nodes = [
        n("prep", writes=["/fsx/d/train.parquet", "/fsx/d/test.parquet"], into=["/fsx/d"]),
        n("sft", reads=["/fsx/d/train.jsonl"], writes=["/fsx/c"]),
    ]
    (problem,) = link(nodes).problems
    assert "reads '/fsx/d/train.jsonl' inside the output of step 'prep', which never writes it" in problem
    assert "/fsx/d/train.parquet" in problem


def test_overlapping_outputs_and_reading_its_own_output_are_refused() -> None:
    problems = link([n("a", writes=["/fsx/out"]), n("b", writes=["/fsx/out/sub"])]).problems
    assert any("both write into" in p for p in problems), problems
    problems = link([n("a", reads=["/fsx/out/x"], writes=["/fsx/out"])]).problems
    assert any("its own output" in p for p in problems), problems


def test_names_that_collide_with_generated_tasks_are_refused() -> None:
    problems = link([n("eval", writes=["/fsx/e"], gated=True), n("eval-gate", writes=["/fsx/g"])]).problems
    assert any("'eval-gate' is the name the Workflow gives step 'eval''s gate task" in p for p in problems), problems
    problems = link([n("x", writes=["/fsx/a"]), n("x", writes=["/fsx/b"])]).problems
    assert any("two steps have the job name 'x'" in p for p in problems)


def test_size_and_fan_out_are_bounded() -> None:
    many = [n(f"s{i}", writes=[f"/fsx/o{i}"]) for i in range(MAX_STEPS + 1)]
    assert any(f"a pipeline has at most {MAX_STEPS}" in p for p in link(many).problems)
    fan = [n("root", writes=["/fsx/r"])] + [
        n(f"c{i}", reads=["/fsx/r"], writes=[f"/fsx/o{i}"]) for i in range(MAX_FAN_OUT + 1)
    ]
    assert any(f"steps wait on 'root': at most {MAX_FAN_OUT}" in p for p in link(fan).problems)


def test_after_and_gates_hold_the_waiting_steps() -> None:
    nodes = [
        n("eval", writes=["/fsx/e"], gated=True),
        n("grpo", writes=["/fsx/g"], after=["eval"]),
        n("next", reads=["/fsx/g"], writes=["/fsx/n"]),
    ]
    graph = link(nodes)
    assert graph.dependencies["eval-gate"] == ["eval"]
    assert graph.dependencies["grpo"] == ["eval", "eval-gate"]
    assert graph.dependencies["next"] == ["grpo"]  # and so after the gate, transitively
    assert any("after names 'nope'" in p for p in link([n("a", writes=["/fsx/a"], after=["nope"])]).problems)


# ---- rendered specs -----------------------------------------------------------------------------------------------
def _render(path: Path):
    config = load_config(ENV)
    return render(load_pipeline(path), config=config, values=PlatformValues.placeholders(config), image=IMAGE)


def _pipeline(tmp_path: Path, steps: list[dict], **extra) -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump({"name": "p", **extra, "steps": steps}))
    return path


def _spec(tmp_path: Path, example: str, **changes) -> str:
    data = yaml.safe_load((JOBS / example).read_text())
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    out = tmp_path / f"{data['name']}.yaml"
    out.write_text(yaml.safe_dump(data))
    return str(out)


def test_a_shuffled_pipeline_renders_the_same_workflow(tmp_path: Path) -> None:
    data = yaml.safe_load(MEDICAL.read_text())
    for step in data["steps"]:
        step["spec"] = str((MEDICAL.parent / step["spec"]).resolve())
    random.Random(7).shuffle(data["steps"])
    shuffled = _pipeline(tmp_path, data["steps"])
    original = _render(MEDICAL)
    again = _render(shuffled)
    assert again.dependencies == original.dependencies and again.order == original.order
    assert again.workflow["spec"] == original.workflow["spec"]


def test_sft_on_a_parquet_prepare_output_is_refused(tmp_path: Path) -> None:
    prep = _spec(tmp_path, "03-prepare-gsm8k.yaml")
    sft = _spec(tmp_path, "04-sft-medical.yaml", dataset="/fsx/datasets/gsm8k")
    download = str(JOBS / "01-download-model.yaml")
    with pytest.raises(
        PipelineError, match=r"reads '/fsx/datasets/gsm8k/train.jsonl' inside the output of step 'gsm8k'"
    ):
        _render(_pipeline(tmp_path, [{"spec": download}, {"spec": sft}, {"spec": prep}]))


def test_evaluate_of_a_merged_model_that_is_never_written_is_refused(tmp_path: Path) -> None:
    steps = [
        {"spec": str(JOBS / "01-download-model.yaml")},
        {"spec": str(JOBS / "02-prepare-medical.yaml")},
        {"spec": _spec(tmp_path, "04-sft-medical.yaml", settings={"merge_weights": False})},
        {"spec": str(JOBS / "05-evaluate.yaml")},
    ]
    with pytest.raises(PipelineError, match=r"reads '/fsx/checkpoints/medical-sft/merged' inside the output of step"):
        _render(_pipeline(tmp_path, steps))


def test_a_typo_in_an_input_is_refused(tmp_path: Path) -> None:
    steps = [
        {"spec": str(JOBS / "01-download-model.yaml")},
        {"spec": str(JOBS / "02-prepare-medical.yaml")},
        {"spec": _spec(tmp_path, "04-sft-medical.yaml", dataset="/fsx/datasets/medical-01")},
    ]
    with pytest.raises(PipelineError, match=r"'/fsx/datasets/medical-01/train.jsonl', which no step of this pipeline"):
        _render(_pipeline(tmp_path, steps))


@pytest.mark.parametrize(
    ("gate", "message"),
    [
        ({"metric": "delta/rougeX", "min": 0}, r"gate.metric 'delta/rougeX' is not a score the evaluate step writes"),
        ({"metric": "finetuned/rougeL", "min": 1.5}, r"gate.min 1.5 is outside \[0.0, 1.0\].*never pass"),
        ({"metric": "delta/rougeL", "min": -2}, r"gate.min -2 is outside \[-1.0, 1.0\].*never fail"),
        ({"metric": "delta/rougeL'); import os; ('", "min": 0}, r"is not a score the evaluate step writes"),
        ({"metric": "delta/rougeL", "min": "high"}, r"gate.min 'high' is not a number"),
        ({"metric": "delta/rougeL", "min": True}, r"gate.min True is not a number"),
    ],
)
def test_a_gate_that_can_never_be_judged_is_refused_when_it_loads(tmp_path: Path, gate: dict, message: str) -> None:
    path = _pipeline(tmp_path, [{"spec": str(JOBS / "05-evaluate.yaml"), "gate": gate}])
    with pytest.raises(PipelineError, match=message):
        load_pipeline(path)


def test_every_problem_of_the_file_at_once_and_unknown_keys(tmp_path: Path) -> None:
    path = _pipeline(
        tmp_path,
        [{"spec": str(JOBS / "05-evaluate.yaml"), "gate": {"metric": "x", "min": "y"}, "when": 1}],
        schedule="daily",
    )
    with pytest.raises(PipelineError) as err:
        load_pipeline(path)
    text = str(err.value)
    for part in ("unknown key 'schedule'", "steps[0]: unknown key 'when'", "gate.metric 'x'", "gate.min 'y'"):
        assert part in text, text


def test_the_gate_job_runs_fixed_code_with_the_threshold_as_data() -> None:
    p = _render(MEDICAL)
    (gate,) = [s for s in p.steps if s.gate]
    job = next(d for d in p.created_objects() if d["metadata"]["name"] == f"{gate.plan.spec.name}-gate")
    command = job["spec"]["template"]["spec"]["containers"][0]["command"]
    assert command[:3] == ["python", "-c", GATE_SCRIPT]
    assert command[3:] == [f"{gate.plan.step['output_dir']}/rouge.json", gate.gate.metric, repr(gate.gate.min)]
    compile(GATE_SCRIPT, "gate", "exec")  # the program is Python whatever the metric's name
