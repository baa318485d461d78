"""Issue 33: `llmft pipeline` (llmft/pipeline.py) - the example chain as one Argo Workflow, validated against the
vendored Workflow CRD, with every object it creates passing the team's guard rails and RBAC; Argo Workflows as the
platform installs it."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from llm_platform import steps
from llm_platform.paths import TEAM_MOUNT_PATH

from config import load_config
from k8s_charts.team_namespaces import PIPELINE_SERVICE_ACCOUNT
from k8s_charts.validation import CRD_DIR, crd_validators, validate
from k8s_charts.values import PlatformValues
from llmft.pipeline import CONDITIONS, PipelineError, load_pipeline, render

from .conftest import ROOT, synthesize
from .guardrail_eval import admission_refusals, rbac_allows
from .test_examples_chain import IMAGE
from .test_team_guardrails import ns_labels, pod_of, team_manifests

MEDICAL = ROOT / "examples" / "pipelines" / "medical.yaml"
ENV = "dev"


@functools.cache
def medical():
    config = load_config(ENV)
    return render(load_pipeline(MEDICAL), config=config, values=PlatformValues.placeholders(config), image=IMAGE)


def test_the_example_pipeline_is_the_example_chain() -> None:
    """Every job spec of examples/jobs' numbered chain is one step, in file order (serving the result is not a step:
    an endpoint never finishes, docs/serving.md)."""
    from llmft.spec import load_spec

    chain = sorted(
        p.resolve() for p in (ROOT / "examples" / "jobs").glob("[0-9][0-9]-*.yaml") if load_spec(p).type != "serve"
    )
    assert [s.path for s in medical().steps] == chain


def test_workflow_validates_against_the_crd() -> None:
    assert ("argoproj.io/v1alpha1", "Workflow") in crd_validators()
    wf = medical().workflow
    assert validate(wf, load_config(ENV).compute.kubernetes_version) == []
    # and the check can fail: a field the CRD does not know
    broken = {**wf, "spec": {**wf["spec"], "entrypont": "typo"}}
    assert validate(broken, load_config(ENV).compute.kubernetes_version)


def test_every_input_comes_from_a_dependency() -> None:
    """The DAG is the chain check of tests/test_examples_chain.py: every path a step reads on the team's FSx is
    written by a step it (transitively) depends on."""
    p = medical()
    tasks = {t["name"]: t.get("dependencies", []) for t in p.workflow["spec"]["templates"][0]["dag"]["tasks"]}

    def ancestors(name: str) -> set[str]:
        out: set[str] = set()
        for d in tasks[name]:
            out |= {d} | ancestors(d)
        return out

    outputs = {s.plan.spec.name: steps.paths(s.plan.spec.type, s.plan.step)[1] for s in p.steps}
    for s in p.steps:
        inputs, _ = steps.paths(s.plan.spec.type, s.plan.step)
        written = [w for a in ancestors(s.plan.spec.name) for w in outputs.get(a, [])]
        for item in inputs:
            if item.startswith(TEAM_MOUNT_PATH + "/"):
                assert any(item == w or item.startswith(w.rstrip("/") + "/") for w in written), (s.path.name, item)
        assert f"{s.plan.spec.name}-config" in tasks[s.plan.spec.name]  # its step file exists first


def test_each_step_creates_the_job_llmft_render_would() -> None:
    """The job objects are the `llmft render` manifests: same queue label (Kueue admits each against the team's
    quota and tier), same team namespace."""
    p = medical()
    created = {(d["kind"], d["metadata"]["name"]): d for d in p.created_objects()}
    for s in p.steps:
        for manifest in s.plan.manifests:
            assert created[(manifest["kind"], manifest["metadata"]["name"])] == manifest
    for d in created.values():
        assert d["metadata"]["namespace"] == p.workflow["metadata"]["namespace"]
        if d["kind"] != "ConfigMap":
            assert d["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]


def test_resource_templates_wait_on_the_job_status() -> None:
    """successCondition/failureCondition are label-selector requirements over gjson paths (Argo Workflows v4.0.6
    workflow/executor/resource.go: labels.Parse, gjsonLabels): every key must be a valid label key, and the path
    must exist in the job kind's status schema (the vendored CRDs; batch/v1 Job status from Kubernetes)."""
    key = re.compile(r"([a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?)")
    for t in medical().workflow["spec"]["templates"]:
        if "resource" not in t or t["name"].endswith("-config"):
            continue
        r = t["resource"]
        manifest = yaml.safe_load(r["manifest"])
        assert r["action"] == "apply"
        for condition in (r["successCondition"], r["failureCondition"]):
            path = condition.split()[0]
            assert key.fullmatch(path) and len(path) <= 63, condition
            assert _status_path_exists(manifest["kind"], path), condition
    assert set(CONDITIONS) >= {d["kind"] for d in medical().created_objects() if d["kind"] != "ConfigMap"}


def _status_path_exists(kind: str, path: str) -> bool:
    if kind == "Job":
        return path in ("status.succeeded", "status.failed")  # batch/v1 JobStatus
    file = {"PyTorchJob": "kubeflow.org_pytorchjobs.yaml", "RayJob": "ray.io_rayjobs.yaml"}[kind]
    crd = yaml.load((CRD_DIR / file).read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    (version,) = [v for v in crd["spec"]["versions"] if v.get("storage")]
    node: dict[str, Any] = version["schema"]["openAPIV3Schema"]
    for part in path.split("."):
        if part in node.get("properties", {}):
            node = node["properties"][part]
        elif "additionalProperties" in node:  # a map (replicaStatuses: {Worker: ...})
            node = (
                node["additionalProperties"]["properties"][part]
                if part not in ("Worker", "Master")
                else node["additionalProperties"]
            )
        else:
            return False
    return True


def test_gate_blocks_the_steps_that_wait_on_the_gated_step() -> None:
    p = medical()
    tasks = {t["name"]: t.get("dependencies", []) for t in p.workflow["spec"]["templates"][0]["dag"]["tasks"]}
    gated = [s for s in p.steps if s.gate]
    assert gated and all(s.plan.spec.type == "evaluate" for s in gated)
    for s in gated:
        gate = f"{s.plan.spec.name}-gate"
        assert tasks[gate] == [s.plan.spec.name]
        waiting = [name for name, deps in tasks.items() if s.plan.spec.name in deps and name != gate]
        assert waiting and all(gate in tasks[name] for name in waiting)
        job = next(d for d in p.created_objects() if d["metadata"]["name"] == gate)
        command = " ".join(job["spec"]["template"]["spec"]["containers"][0]["command"])
        assert f"{s.plan.step['output_dir']}/rouge.json" in command and s.gate.metric in command


def test_gate_only_on_evaluate(tmp_path: Path) -> None:
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text(
        yaml.safe_dump(
            {
                "name": "x",
                "steps": [
                    {
                        "spec": str(ROOT / "examples/jobs/01-download-model.yaml"),
                        "gate": {"metric": "delta/rougeL", "min": 0},
                    }
                ],
            }
        )
    )
    config = load_config(ENV)
    with pytest.raises(PipelineError, match="only an evaluate step can gate"):
        render(load_pipeline(pipeline), config=config, values=PlatformValues.placeholders(config), image=IMAGE)
    pipeline.write_text("name: Bad_Name\nsteps: []\n")
    with pytest.raises(PipelineError, match="non-empty list"):
        load_pipeline(pipeline)


# ---- tenancy ---------------------------------------------------------------------------------------------------
def test_a_serve_step_is_refused(tmp_path: Path) -> None:
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text(
        yaml.safe_dump({"name": "x", "steps": [{"spec": str(ROOT / "examples/jobs/07-serve-medical.yaml")}]})
    )
    config = load_config(ENV)
    with pytest.raises(PipelineError, match="type serve is an endpoint that runs until cancelled.*llmft submit"):
        render(load_pipeline(pipeline), config=config, values=PlatformValues.placeholders(config), image=IMAGE)


def test_what_the_workflow_creates_passes_the_guard_rails() -> None:
    """CEL of every ValidatingAdmissionPolicy bound to the team namespace (tests/guardrail_eval.py), for every object
    the Workflow creates and every pod those jobs make, requested by the Workflow's ServiceAccount."""
    p = medical()
    ns = p.workflow["metadata"]["namespace"]
    m, labels = team_manifests(ENV), ns_labels(ENV, ns)
    user = f"system:serviceaccount:{ns}:{PIPELINE_SERVICE_ACCOUNT}"
    owners = {
        "PyTorchJob": {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"},
        "RayJob": {"apiVersion": "ray.io/v1", "kind": "RayCluster"},
        "Job": {"apiVersion": "batch/v1", "kind": "Job"},
    }
    from llmft.build import pod_templates

    for d in p.created_objects():
        assert admission_refusals(m, d, labels, user=user) == [], (d["kind"], d["metadata"]["name"])
        for where, template in pod_templates(d):
            pod = pod_of(template, ns, owners[d["kind"]])
            assert admission_refusals(m, pod, labels, user=user) == [], (d["metadata"]["name"], where)
    # the Workflow's own pods run with the team's pod securityContext
    executor = pod_of(
        {
            "spec": {
                "serviceAccountName": PIPELINE_SERVICE_ACCOUNT,
                "securityContext": p.workflow["spec"]["securityContext"],
                "containers": [],
            }
        },
        ns,
    )
    assert executor["spec"]["securityContext"]["runAsNonRoot"] is True


def test_pipeline_service_account_creates_only_what_the_team_may() -> None:
    """RBAC of `llmft-pipelines` (tests/guardrail_eval.py rbac_allows): the job kinds each step needs in its own
    namespace and nothing another team owns, no Secrets, pods, RBAC or deletes."""
    m = team_manifests(ENV)
    p = medical()
    teams = [t for t in load_config(ENV).kubernetes.teams]
    plural = {
        "PyTorchJob": ("kubeflow.org", "pytorchjobs"),
        "RayJob": ("ray.io", "rayjobs"),
        "Job": ("batch", "jobs"),
        "ConfigMap": ("", "configmaps"),
    }
    for team in teams:
        sa = {("ServiceAccount", f"{team.namespace}/{PIPELINE_SERVICE_ACCOUNT}")}
        for kind, (group, resource) in plural.items():
            for verb in ("get", "create", "patch"):
                assert rbac_allows(m, sa, verb, group, resource, team.namespace), (team.name, kind, verb)
            assert not rbac_allows(m, sa, "delete", group, resource, team.namespace)
            for other in teams:
                if other.name != team.name:
                    assert not rbac_allows(m, sa, "create", group, resource, other.namespace)
        for group, resource in (
            ("", "secrets"),
            ("", "pods"),
            ("", "serviceaccounts"),
            ("rbac.authorization.k8s.io", "rolebindings"),
            ("argoproj.io", "workflows"),
        ):
            assert not rbac_allows(m, sa, "create", group, resource, team.namespace), resource
        assert rbac_allows(m, sa, "create", "argoproj.io", "workflowtaskresults", team.namespace)
    kinds = {d["kind"] for d in p.created_objects()}
    assert kinds <= set(plural)


def test_workflow_runs_as_the_team_service_account_in_its_namespace() -> None:
    """A pod can only use a ServiceAccount of its own namespace (Kubernetes), so a Workflow in team A's namespace
    can never run as team B's account; the rendered Workflow names the team's pipeline account."""
    from llmft import pipeline

    assert pipeline.PIPELINE_SERVICE_ACCOUNT == PIPELINE_SERVICE_ACCOUNT  # the CLI's copy is the chart's name
    wf = medical().workflow
    assert wf["spec"]["serviceAccountName"] == PIPELINE_SERVICE_ACCOUNT
    assert wf["metadata"]["namespace"] == medical().steps[0].plan.team.namespace


# ---- Argo Workflows as installed -------------------------------------------------------------------------------
def test_argo_workflows_install() -> None:
    from cdk_constructs.compute.argo_workflows import ARGO_WORKFLOWS_NAMESPACE
    from config.charts import ARGO_WORKFLOWS_CHART_VERSION

    from .test_compute import helm_releases

    assert "argo-workflows" not in helm_releases(synthesize("dev"))  # opt-in
    synth = synthesize("dev", {"pipelines": {"enabled": True}})
    release = helm_releases(synth)["argo-workflows"]
    assert (release["Repository"], release["Chart"], release["Version"]) == (
        "https://argoproj.github.io/argo-helm",
        "argo-workflows",
        ARGO_WORKFLOWS_CHART_VERSION,
    )
    assert release["Namespace"] == ARGO_WORKFLOWS_NAMESPACE
    values = release["Values"]
    selector = synth.stacks["compute"].system_node_selector
    for component in ("controller", "server"):
        assert selector.items() <= values[component]["nodeSelector"].items()
        assert {"cpu", "memory"} <= set(values[component]["resources"]["requests"])
    assert values["server"]["serviceType"] == "ClusterIP" and values["server"]["authModes"] == ["client"]
    assert values["crds"]["full"] is False
    # the vendored CRDs are the chart's appVersion (SOURCES.md names both)
    sources = (CRD_DIR / "SOURCES.md").read_text()
    assert f"argo-workflows-{ARGO_WORKFLOWS_CHART_VERSION}" in sources
    assert "| argoproj.io_workflows.yaml | argoproj/argo-workflows |" in sources


def test_pipeline_to_a_checkout_is_what_the_team_project_accepts(tmp_path: Path) -> None:
    """`llmft pipeline P -o CHECKOUT/` writes the Workflow into the team's Git folder, and the team's AppProject (built
    from the team Role) whitelists its kind in the team's namespace."""
    import io
    from contextlib import redirect_stderr

    from config.gitops import team_jobs_dir
    from k8s_charts.gitops import team_delivery_kinds, team_role_rules
    from llmft.cli import main

    config = load_config(ENV)
    with redirect_stderr(io.StringIO()):
        assert main(["pipeline", str(MEDICAL), "--env", ENV, "-o", f"{tmp_path}/"]) == 0
    (written,) = (tmp_path / team_jobs_dir(config.gitops_path, "ml-research")).glob("*.yaml")
    (doc,) = [d for d in yaml.safe_load_all(written.read_text()) if d]
    team = next(t for t in config.kubernetes.teams if t.name == "ml-research")
    kinds = {(k.group, k.kind) for k in team_delivery_kinds(team_role_rules(team, PlatformValues.placeholders(config)))}
    assert (doc["apiVersion"].rpartition("/")[0], doc["kind"]) in kinds
    assert doc["metadata"]["namespace"] == team.namespace
