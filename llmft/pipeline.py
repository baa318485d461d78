"""`llmft pipeline PIPELINE.yaml`: a list of job specs as one Argo Workflow (Argo Workflows v4.0.6, the CRD in
k8s_charts/crds/argoproj.io_workflows.yaml).

A pipeline file::

    name: medical                       # the Workflow's name (DNS-1123)
    inputs: [/fsx/models/base]          # optional: paths an earlier job wrote, read by steps here
    steps:
      - spec: ../jobs/01-download-model.yaml     # relative to the pipeline file
      - spec: ../jobs/05-evaluate.yaml
        gate: {metric: delta/rougeL, min: 0.0}   # evaluate only: whoever waits on it waits for its verdict
      - spec: ../jobs/06-grpo-gsm8k.yaml
        after: [medical-eval]                    # optional: wait on a step whose output it does not read

What the Workflow does, step by step:

- Each step is the job ``llmft render`` would write, created by a ``resource`` template (Argo Workflows
  docs/resource-template.md; workflow/executor/resource.go): first its immutable step ConfigMap, then the job itself.
  The job is the same PyTorchJob/RayJob/Job as ``llmft submit`` creates, with its team LocalQueue label, so Kueue
  still admits it against the team's quota and tier; the Workflow only waits on the job's status
  (``successCondition``/``failureCondition``: label-selector requirements over gjson paths of the live object,
  workflow/executor/resource.go ``matchConditions``).
- Dependencies are derived from the data flow, whatever the list's order (llmft/pipeline_graph.py): a step runs after
  every step that writes a path it reads (the step contract's inputs and outputs, llm_platform.steps.paths), after
  the steps it names in ``after``, and after the gate of every gated step it waits on. Cycles, inputs no step writes,
  inputs inside another step's output that it never writes and overlapping outputs are refused.
- Re-runs: the resource action is ``apply`` (not ``create``): resubmitting the Workflow, or ``argo retry``, re-applies
  unchanged manifests; a job that already succeeded meets its success condition at once, so completed steps are
  skipped and the run resumes where it failed. A failed job matches its failure condition again: delete it (``kubectl
  -n <team> delete <kind> <name>``) before ``argo retry``. The manifests carry no ``suspend`` field, so ``apply``
  never touches what Kueue sets.
- A gate is a small batch Job (the team's CPU job shape, guard-rail conform like every llmft job) that reads
  ``<evaluate output_dir>/rouge.json`` from the team's FSx tree and fails below the threshold.

The Workflow runs as the team's ServiceAccount :data:`PIPELINE_SERVICE_ACCOUNT` (k8s_charts/team_namespaces.py):
it may create only the job kinds the team Role allows, in the team's namespace.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:  # the CLI's --help must not load cdk8s, config or k8s_charts (tests/test_llmft.py)
    from config import EnvironmentConfig
    from k8s_charts.values import PlatformValues

PIPELINE_SERVICE_ACCOUNT = "llmft-pipelines"
"""k8s_charts.team_namespaces.PIPELINE_SERVICE_ACCOUNT (repeated here so the CLI loads light; a test checks both)."""

ROUGE_FILE = "rouge.json"
"""What the evaluate step writes into its output_dir (llm_platform.evaluate: ``rouge.json``)."""
NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")

# successCondition / failureCondition per job kind: requirements over the job's status (gjson paths).
CONDITIONS: dict[str, tuple[str, str]] = {
    # batch/v1 Job: status.succeeded counts succeeded pods; the Job fails after backoffLimit + 1 failed pods
    "Job": ("status.succeeded > 0", "status.failed > {backoff}"),
    # PyTorchJob (training-operator v1.9 JobStatus.replicaStatuses[<type>]); llmft's elastic jobs have Worker only.
    # This approximates the job's Succeeded/Failed condition, which a label-selector key cannot address
    # (`status.conditions` is a list): a multi-node job may be seen as done when its first worker succeeds.
    "PyTorchJob": ("status.replicaStatuses.Worker.succeeded > 0", "status.replicaStatuses.Worker.failed > 0"),
    # RayJob (KubeRay v1.7.0 RayJobStatus.jobStatus: SUCCEEDED, FAILED, STOPPED)
    "RayJob": ("status.jobStatus == SUCCEEDED", "status.jobStatus in (FAILED, STOPPED)"),
}


# The gate's program: fixed source; the file, the metric and the threshold are its arguments (data, never code).
GATE_SCRIPT = (
    "import json, sys; path, metric, low = sys.argv[1], sys.argv[2], float(sys.argv[3]); "
    "value = json.load(open(path))[metric]; print(metric, '=', value, '(min', low, ')'); "
    "sys.exit(0 if value >= low else 1)"
)


class PipelineError(ValueError):
    """The pipeline file cannot become a Workflow; the message names the fix."""


@dataclass
class Gate:
    metric: str
    min: float


@dataclass
class PipelineStep:
    path: Path
    gate: Gate | None = None
    after: tuple[str, ...] = ()
    plan: Any = None  # llmft.build.Plan


@dataclass
class Pipeline:
    name: str
    steps: list[PipelineStep]
    inputs: tuple[str, ...] = ()
    team: str = ""
    order: list[str] = field(default_factory=list)
    dependencies: dict[str, list[str]] = field(default_factory=dict)
    workflow: dict[str, Any] = field(default_factory=dict)

    def yaml(self) -> str:
        return yaml.safe_dump(self.workflow, sort_keys=False)

    def created_objects(self) -> list[dict[str, Any]]:
        """Every object the Workflow creates (the manifests of its resource templates), for guard-rail checks."""
        return [
            yaml.safe_load(t["resource"]["manifest"]) for t in self.workflow["spec"]["templates"] if "resource" in t
        ]


PIPELINE_KEYS = ("name", "inputs", "steps")
STEP_KEYS = ("spec", "gate", "after")


def gate_range(metric: str) -> tuple[float, float]:
    """The values ``metric`` of the evaluate step's rouge.json can take: ROUGE F-measures lie in [0, 1], so a
    ``delta/`` (fine-tuned minus base) in [-1, 1]."""
    return (-1.0, 1.0) if metric.startswith("delta/") else (0.0, 1.0)


def gate_problems(gate: Any, where: str) -> list[str]:
    """Why ``gate`` (a pipeline step's ``gate``) can never be judged: the metric must be one the evaluate step writes
    (llm_platform.evaluate.METRICS), ``min`` a number inside the metric's range."""
    from llm_platform.evaluate import METRICS

    if not isinstance(gate, dict) or set(gate) != {"metric", "min"}:
        return [f"{where}.gate needs exactly `metric` (a key of {ROUGE_FILE}, e.g. delta/rougeL) and `min` (a number)"]
    out = []
    metric, low = gate["metric"], gate["min"]
    if metric not in METRICS:
        out.append(
            f"{where}.gate.metric {metric!r} is not a score the evaluate step writes; use one of {', '.join(METRICS)}"
        )
    if isinstance(low, bool) or not isinstance(low, (int, float)):
        out.append(f"{where}.gate.min {low!r} is not a number; write e.g. 0.0")
    elif metric in METRICS:
        lo, hi = gate_range(metric)
        if not lo <= low <= hi:
            out.append(
                f"{where}.gate.min {low} is outside [{lo}, {hi}], the range of {metric} (a ROUGE F-measure"
                f"{', fine-tuned minus base' if metric.startswith('delta/') else ''}): the gate could "
                f"{'never pass' if low > hi else 'never fail'}; pick a threshold inside it"
            )
    return out


def _step_problems(i: int, s: Any) -> list[str]:
    where = f"steps[{i}]"
    if not isinstance(s, dict) or not isinstance(s.get("spec"), str):
        return [
            f"{where} must be `{{spec: <job spec file>, gate: {{metric, min}}, after: [<step>]}}` "
            "(gate and after optional)"
        ]
    out = [f"{where}: unknown key {k!r}; use {', '.join(STEP_KEYS)}" for k in s if k not in STEP_KEYS]
    if s.get("gate") is not None:
        out += gate_problems(s["gate"], where)
    after = s.get("after", [])
    if not isinstance(after, list) or not all(isinstance(a, str) for a in after):
        out.append(f"{where}.after must be a list of step (job) names, e.g. [medical-eval]")
    return out


def _pipeline_problems(data: Any) -> list[str]:
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list) or not data["steps"]:
        return ["a pipeline is a mapping with `name` and a non-empty list `steps` of `- spec: <job spec file>`"]
    out = [f"unknown key {k!r}; a pipeline has {', '.join(PIPELINE_KEYS)}" for k in data if k not in PIPELINE_KEYS]
    name = str(data.get("name", ""))
    if not NAME.fullmatch(name) or len(name) > 50:
        out.append(f"name {name!r} is not a DNS-1123 label of at most 50 characters")
    inputs = data.get("inputs", [])
    if not isinstance(inputs, list) or not all(isinstance(p, str) and p.startswith("/") for p in inputs):
        out.append(
            "inputs must be a list of absolute paths under /fsx that earlier jobs wrote, e.g. [/fsx/models/base]"
        )
    for i, s in enumerate(data["steps"]):
        out += _step_problems(i, s)
    return out


def load_pipeline(path: Path) -> Pipeline:
    """The pipeline file, or a PipelineError naming every problem of it at once (field, value, fix)."""
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise PipelineError(f"{path}: cannot read the pipeline file: {exc}") from None
    problems = _pipeline_problems(data)
    if problems:
        raise PipelineError(f"{path}: " + "\n  - ".join(problems))
    steps = [
        PipelineStep(
            path=(path.parent / s["spec"]).resolve(),
            gate=Gate(metric=s["gate"]["metric"], min=float(s["gate"]["min"])) if s.get("gate") is not None else None,
            after=tuple(s.get("after", [])),
        )
        for s in data["steps"]
    ]
    return Pipeline(name=str(data["name"]), steps=steps, inputs=tuple(data.get("inputs", [])))


def _preflight_steps(
    pipeline: Pipeline, *, config: EnvironmentConfig, values: PlatformValues, image: str | Callable[[Any], str]
) -> list[Any]:
    """Preflight every step, keep its plan on the step, and return the plans (a serve step or a failure raises)."""
    from llmft.preflight import preflight
    from llmft.spec import load_spec

    plans = []
    for step in pipeline.steps:
        spec = load_spec(step.path)
        if spec.type == "serve":  # a Deployment never finishes: nothing after it could run
            raise PipelineError(
                f"{step.path.name}: type serve is an endpoint that runs until cancelled, not a step "
                f"that finishes; remove it from the pipeline and `llmft submit` it after the pipeline "
                f"(docs/serving.md)"
            )
        result = preflight(spec, config=config, values=values, image=image(spec) if callable(image) else image)
        if not result.ok:
            raise PipelineError(f"{step.path.name}: preflight failed:\n{result.report()}")
        step.plan = result.plan
        plans.append(result.plan)
    return plans


def _one_team(pipeline: Pipeline, plans: list[Any]) -> Any:
    """The one team every step runs as (set on the pipeline); raises when the steps name several or share a name."""
    teams = {p.team.name for p in plans}
    if len(teams) != 1:
        raise PipelineError(f"one pipeline runs in one team's namespace; the steps name teams {sorted(teams)}")
    team = plans[0].team
    pipeline.team = team.name
    names = [p.spec.name for p in plans]
    if len(set(names)) != len(names):
        raise PipelineError(f"two steps have the same job name: {names}")
    return team


def _node(step: PipelineStep) -> Any:
    """The step as a node of the data-flow graph: what it reads, the directories it writes into and what it writes."""
    from llm_platform import steps as contract

    from llmft.job_types.base import get as job_type
    from llmft.pipeline_graph import Node

    plan = step.plan
    kind = job_type(plan.spec.type)
    if kind.step is None:  # custom: its output folder, whose layout is its own; nothing known of what it reads
        output = plan.step.get("output_dir")
        inputs, roots, written = [], [], [output] if output else []
    else:
        inputs, written = contract.paths(kind.step, plan.step)
        roots = contract.output_dirs(kind.step, plan.step)
    return Node(
        name=plan.spec.name,
        source=step.path.name,
        inputs=tuple(i for i in inputs if i.startswith("/")),  # a built-in dataset name or Hub id is no file here
        roots=tuple(roots),
        written=tuple(written),
        after=step.after,
        gated=step.gate is not None,
    )


def _link_steps(pipeline: Pipeline) -> None:
    """Each step's dependencies from the data flow (llmft/pipeline_graph.py), whatever the list's order."""
    from llmft.pipeline_graph import link

    for step in pipeline.steps:
        if step.gate is not None and step.plan.spec.type != "evaluate":
            raise PipelineError(
                f"{step.path.name}: only an evaluate step can gate (it writes {ROUGE_FILE}); "
                f"remove `gate` from this {step.plan.spec.type} step"
            )
    graph = link([_node(s) for s in pipeline.steps], external=pipeline.inputs)
    if graph.problems:
        raise PipelineError("the steps do not make a graph that can run:\n  - " + "\n  - ".join(graph.problems))
    pipeline.dependencies = graph.dependencies
    pipeline.order = graph.order


def _dag(
    pipeline: Pipeline, *, config: EnvironmentConfig, values: PlatformValues
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The Workflow's resource templates and DAG tasks: each step's ConfigMap and job, and its gate's job."""
    templates: list[dict[str, Any]] = []
    tasks: list[dict[str, Any]] = []
    by_name = {s.plan.spec.name: s for s in pipeline.steps}
    for step in (by_name[n] for n in pipeline.order):
        plan = step.plan
        config_map, *jobs = plan.manifests
        (job,) = jobs
        templates.append(_resource(f"{plan.spec.name}-config", config_map, None))
        templates.append(_resource(plan.spec.name, job, _conditions(job)))
        tasks.append({"name": f"{plan.spec.name}-config", "template": f"{plan.spec.name}-config"})
        tasks.append(
            {
                "name": plan.spec.name,
                "template": plan.spec.name,
                "dependencies": [f"{plan.spec.name}-config", *pipeline.dependencies[plan.spec.name]],
            }
        )
        if step.gate is not None:
            gate_job = _gate_job(step, config=config, values=values)
            templates.append(_resource(gate_job["metadata"]["name"], gate_job, _conditions(gate_job)))
            tasks.append(
                {
                    "name": gate_job["metadata"]["name"],
                    "template": gate_job["metadata"]["name"],
                    "dependencies": [plan.spec.name],
                }
            )
    return templates, tasks


def render(
    pipeline: Pipeline, *, config: EnvironmentConfig, values: PlatformValues, image: str | Callable[[Any], str]
) -> Pipeline:
    """Preflight every step (as `llmft render` does) and build the Workflow; raises PipelineError naming the fix.

    :param image: the platform image of a step (a function of its JobSpec, as `llmft render` resolves it), or one
        image for all."""
    plans = _preflight_steps(pipeline, config=config, values=values, image=image)
    team = _one_team(pipeline, plans)
    _link_steps(pipeline)
    templates, tasks = _dag(pipeline, config=config, values=values)
    pipeline.workflow = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Workflow",
        "metadata": {
            "name": pipeline.name,
            "namespace": team.namespace,
            "labels": {
                "platform/team": team.name,
                "app.kubernetes.io/managed-by": "llmft",
                "llmft.io/pipeline": pipeline.name,
            },
        },
        "spec": {
            "entrypoint": "pipeline",
            "serviceAccountName": PIPELINE_SERVICE_ACCOUNT,
            # the executor pods run as the team (the pod-level securityContext of the team's own job pods, which
            # the team's guard rails admit)
            "securityContext": _team_security_context(plans),
            "templates": [{"name": "pipeline", "dag": {"tasks": tasks}}, *templates],
        },
    }
    _typed(pipeline.workflow)
    return pipeline


def _team_security_context(plans: list[Any]) -> dict[str, Any]:
    from llmft.build import pod_templates

    for plan in plans:
        for manifest in plan.manifests:
            for _, template in pod_templates(manifest):
                ctx = template["spec"].get("securityContext")
                if ctx:
                    return copy.deepcopy(ctx)
    raise PipelineError("no step has a pod securityContext to run the Workflow's pods with")  # pragma: no cover


def _typed(workflow: dict[str, Any]) -> None:
    """The Workflow through its typed binding (k8s_charts/imports/workflow, `make imports`): a field the CRD does not
    have fails here, before any schema check."""
    import cdk8s

    from k8s_charts.imports.workflow.io import argoproj as wf

    chart = cdk8s.Chart(cdk8s.App(), "pipeline", disable_resource_name_hashes=True)
    spec = workflow["spec"]
    wf.Workflow(
        chart,
        "Workflow",
        metadata=cdk8s.ApiObjectMetadata(
            name=workflow["metadata"]["name"],
            namespace=workflow["metadata"]["namespace"],
            labels=workflow["metadata"]["labels"],
        ),
        spec=wf.WorkflowSpec(
            entrypoint=spec["entrypoint"],
            service_account_name=spec["serviceAccountName"],
            security_context=_typed_security_context(wf, spec["securityContext"]),
            templates=[_typed_template(wf, t) for t in spec["templates"]],
        ),
    )
    (rendered,) = chart.to_json()
    if rendered != workflow:
        raise AssertionError("the typed Workflow differs from the rendered one")  # pragma: no cover


def _typed_security_context(wf: Any, ctx: dict[str, Any]) -> Any:
    known = {
        "runAsNonRoot": "run_as_non_root",
        "runAsUser": "run_as_user",
        "runAsGroup": "run_as_group",
        "fsGroup": "fs_group",
        "supplementalGroups": "supplemental_groups",
        "fsGroupChangePolicy": "fs_group_change_policy",
    }
    kwargs = {known[k]: v for k, v in ctx.items() if k in known}
    if "seccompProfile" in ctx:
        kwargs["seccomp_profile"] = wf.WorkflowSpecSecurityContextSeccompProfile(
            **{
                {"type": "type", "localhostProfile": "localhost_profile"}[k]: v
                for k, v in ctx["seccompProfile"].items()
            }
        )
    unknown = set(ctx) - set(known) - {"seccompProfile"}
    if unknown:
        raise PipelineError(f"securityContext fields {sorted(unknown)} are not mapped to the typed Workflow")
    return wf.WorkflowSpecSecurityContext(**kwargs)


def _typed_template(wf: Any, t: dict[str, Any]) -> Any:
    if "dag" in t:
        return wf.WorkflowSpecTemplates(
            name=t["name"],
            dag=wf.WorkflowSpecTemplatesDag(
                tasks=[
                    wf.WorkflowSpecTemplatesDagTasks(
                        name=x["name"], template=x["template"], dependencies=x.get("dependencies")
                    )
                    for x in t["dag"]["tasks"]
                ]
            ),
        )
    r = t["resource"]
    return wf.WorkflowSpecTemplates(
        name=t["name"],
        resource=wf.WorkflowSpecTemplatesResource(
            action=wf.WorkflowSpecTemplatesResourceAction[r["action"].upper()],
            manifest=r["manifest"],
            success_condition=r.get("successCondition"),
            failure_condition=r.get("failureCondition"),
        ),
    )


def _conditions(job: dict[str, Any]) -> tuple[str, str]:
    success, failure = CONDITIONS[job["kind"]]
    return success, failure.format(backoff=job.get("spec", {}).get("backoffLimit", 6))


def _resource(name: str, manifest: dict[str, Any], conditions: tuple[str, str] | None) -> dict[str, Any]:
    resource: dict[str, Any] = {"action": "apply", "manifest": yaml.safe_dump(manifest, sort_keys=False)}
    if conditions is not None:
        resource["successCondition"], resource["failureCondition"] = conditions
    return {"name": name, "resource": resource}


def _gate_job(step: PipelineStep, *, config: EnvironmentConfig, values: PlatformValues) -> dict[str, Any]:
    """A batch Job that fails unless ``<output_dir>/rouge.json``'s ``metric`` is at least ``min``: the CPU job of a
    download-model step of the same team and tier (guard-rail conform), with another command."""
    from llmft.build import build
    from llmft.spec import JobSpec

    plan, gate = step.plan, step.gate
    assert gate is not None
    probe = JobSpec.model_validate(
        {
            "name": f"{plan.spec.name}-gate",
            "team": plan.team.name,
            "tier": plan.tier.name,
            "type": "download-model",
            "model": "gate/unused",
            "output": plan.step["output_dir"],
            "settings": {"revision": "0" * 40},
        }
    )
    manifests = build(probe, config=config, team=plan.team, values=values, image=plan.image).manifests
    job = copy.deepcopy(next(m for m in manifests if m["kind"] == "Job"))
    template = job["spec"]["template"]["spec"]
    template["volumes"] = [v for v in template.get("volumes", []) if v["name"] != "step-config"]
    arguments = [f"{plan.step['output_dir']}/{ROUGE_FILE}", gate.metric, repr(float(gate.min))]
    for c in template["containers"]:
        c["command"] = ["python", "-c", GATE_SCRIPT, *arguments]
        c.pop("args", None)
        c["volumeMounts"] = [m for m in c.get("volumeMounts", []) if m["name"] != "step-config"]
    job["spec"]["backoffLimit"] = 0
    return job


def pipeline_file(path: str, team: str, name: str) -> str:
    """Where a pipeline goes in the GitOps checkout: the team's folder (its Application syncs Workflows too)."""
    from config.gitops import team_job_file

    return team_job_file(path, team, f"pipeline-{name}")


def cmd_pipeline(args: Any) -> int:
    """`llmft pipeline PIPELINE.yaml [--env E] [-o FILE|CHECKOUT/] [--dry-run]`: preflight every step, print the
    Workflow (or write it: a directory is a GitOps checkout, as for `llmft render -o`)."""
    import sys

    from config import load_config
    from k8s_charts.values import PlatformValues
    from llmft.build import resolve_image

    config = load_config(args.env)
    values = PlatformValues.placeholders(config)
    try:
        pipeline = render(
            load_pipeline(Path(args.pipeline)),
            config=config,
            values=values,
            image=lambda spec: resolve_image(spec, config=config, namespace=spec.team or "", cluster=None),
        )
    except PipelineError as exc:
        print(f"llmft: {exc}; nothing was written", file=sys.stderr)
        return 1
    print(describe(pipeline), file=sys.stderr)
    text = pipeline.yaml()
    if args.output and (Path(args.output).is_dir() or args.output.endswith("/")):
        target = Path(args.output) / pipeline_file(config.gitops_path, pipeline.team, pipeline.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        print(
            f"wrote {target}: commit and push it; Argo CD's application team-{pipeline.team} creates the Workflow",
            file=sys.stderr,
        )
    elif args.output:
        Path(args.output).write_text(text)
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    if args.dry_run:
        print("dry run: nothing created (argo submit / kubectl create -f the output to run it)", file=sys.stderr)
    return 0


def add_subcommand(sub: Any, common: Any) -> None:
    """The `pipeline` subcommand (llmft/cli.py `parser()` calls this: the only hook there)."""
    p = sub.add_parser("pipeline", parents=[common], help="a list of job specs as one Argo Workflow")
    p.add_argument("pipeline", help="pipeline file (examples/pipelines/medical.yaml)")
    p.add_argument(
        "-o",
        "--output",
        help="write to this file; a directory (a checkout of delivery.repository) "
        "gets <delivery.path>/teams/<team>/pipeline-<name>.yaml",
    )
    p.add_argument("--dry-run", action="store_true", help="render only (the default: llmft creates no Workflow)")
    p.set_defaults(func=cmd_pipeline)


def describe(pipeline: Pipeline) -> str:
    lines = [f"pipeline {pipeline.name} (team {pipeline.team}): {len(pipeline.steps)} steps"]
    for name, deps in pipeline.dependencies.items():
        lines.append(f"  {name}" + (f" <- {', '.join(deps)}" if deps else ""))
    return "\n".join(lines)


__all__ = ["PIPELINE_SERVICE_ACCOUNT", "Pipeline", "PipelineError", "describe", "load_pipeline", "render"]
