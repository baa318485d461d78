"""Issue 40 (third red team), the system nodes reachable by team pods: team CPU pods (and workflow steps) without
node affinity landed on the system nodes and could starve the priority-0 platform pods there (the metrics scraper
every serving autoscaler depends on, the Argo controller). Closed at admission, not with a taint (docs/queueing.md
says why): every pod without GPUs in a team namespace selects the CPU job pool's nodes (``nodeSelector
llmft.io/node-role: cpu-jobs``, k8s_charts/tiers.py ``cpu_job_node_selector``), which the pod policy requires
whoever creates the pod (k8s_charts/team_guardrails.py). The platform's CPU pods carry it (k8s_charts/pods.py), and so
do Argo's Workflow pods, through the controller's ``workflowDefaults`` (cdk_constructs/compute/argo_workflows.py).

Admission semantics (tests/guardrail_eval.py) for every environment, on the rendered objects."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from cdk_constructs.compute.argo_workflows import helm_values
from cdk_constructs.compute.eks_cluster import SYSTEM_NODE_LABEL
from k8s_charts.tiers import NODE_ROLE_LABEL
from llmft.build import pod_templates

from .conftest import ENVIRONMENTS
from .guardrail_eval import admission_refusals
from .test_redteam_cpu_priority import _cpu_jobs, _uses_accelerators
from .test_team_guardrails import ns_labels, pod_of, team_manifests

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

CPU_POOL = "runs on the CPU job pool only"


def _system_selector() -> dict[str, str]:
    key, value = SYSTEM_NODE_LABEL
    return {key: value}


def _refused(m, doc, labels) -> bool:
    return any(CPU_POOL in r.message for r in admission_refusals(m, doc, labels))


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_platforms_cpu_pods_select_the_cpu_pool_not_the_system_nodes(env: str) -> None:
    m = team_manifests(env)
    key, system = SYSTEM_NODE_LABEL
    assert key == NODE_ROLE_LABEL
    for job in _cpu_jobs(env):
        ns = job["metadata"]["namespace"]
        labels = ns_labels(env, ns)
        assert not _refused(m, job, labels)
        for where, template in pod_templates(job):
            if _uses_accelerators(template):
                continue
            selector = template["spec"]["nodeSelector"]
            assert selector.get(key) not in (None, system), where  # a system node never matches
            assert not _refused(m, pod_of(template, ns), labels), where


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_a_cpu_pod_aimed_at_the_system_nodes_is_refused(env: str) -> None:
    """The attacks, as the job and as the pod its controller creates: no nodeSelector (the scheduler's choice,
    system nodes included), the system nodes' label, another value, and the pool's label moved into a preferred
    affinity that the scheduler may ignore."""
    m = team_manifests(env)
    (step,) = [j for j in _cpu_jobs(env) if j["kind"] == "Job"]
    ns = step["metadata"]["namespace"]
    labels = ns_labels(env, ns)

    def variant(change) -> dict[str, Any]:
        job = copy.deepcopy(step)
        change(job["spec"]["template"]["spec"])
        return job

    def preferred(spec: dict[str, Any]) -> None:
        selector = spec.pop("nodeSelector")
        term = {"matchExpressions": [{"key": k, "operator": "In", "values": [v]} for k, v in selector.items()]}
        spec["affinity"] = {
            "nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": term}]}
        }

    attacks = {
        "no selector": lambda s: s.pop("nodeSelector"),
        "system nodes": lambda s: s.update(nodeSelector=_system_selector()),
        "another value": lambda s: s.update(nodeSelector={NODE_ROLE_LABEL: "anything"}),
        "preferred only": preferred,
    }
    for name, change in attacks.items():
        job = variant(change)
        assert _refused(m, job, labels), name
        assert _refused(m, pod_of(job["spec"]["template"], ns, owner=job), labels), name


def _workflow_pod(workflow: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """The pod Argo's controller creates for a resource template of ``workflow``: its spec merged over the
    controller's ``workflowDefaults`` (the Workflow's own fields win), scheduling constraints as v4.0.6
    workflow/controller/workflowpod.go ``addSchedulingConstraints`` sets them (the template's, else the Workflow's)."""
    spec = {**copy.deepcopy(defaults.get("spec", {})), **workflow["spec"]}
    template = next(t for t in spec["templates"] if "resource" in t)
    pod_spec: dict[str, Any] = {
        "serviceAccountName": spec["serviceAccountName"],
        "securityContext": spec["securityContext"],
        "containers": [{"name": "main", "image": "quay.io/argoproj/argoexec", "command": ["argoexec", "resource"]}],
    }
    for field in ("nodeSelector", "affinity", "tolerations"):
        value = template.get(field) or spec.get(field)
        if value:
            pod_spec[field] = copy.deepcopy(value)
    meta = {"name": f"{workflow['metadata']['name']}-x", "namespace": workflow["metadata"]["namespace"]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_workflow_pods_run_on_the_cpu_pool(env: str) -> None:
    from config import load_config
    from k8s_charts.values import PlatformValues
    from llmft.pipeline import load_pipeline, render

    from .test_examples_chain import IMAGE
    from .test_pipelines import MEDICAL

    config = load_config(env)
    workflow = render(load_pipeline(MEDICAL), config=config, values=PlatformValues.placeholders(config), image=IMAGE)
    wf = workflow.workflow
    m, labels = team_manifests(env), ns_labels(env, wf["metadata"]["namespace"])
    defaults = helm_values({})["controller"]["workflowDefaults"]
    assert not _refused(m, _workflow_pod(wf, defaults), labels)
    assert _refused(m, _workflow_pod(wf, {}), labels)  # without the controller's defaults: the system nodes
    # a team's Workflow that sets its own nodeSelector wins over the defaults, and its pods are refused
    own = copy.deepcopy(wf)
    own["spec"]["nodeSelector"] = _system_selector()
    assert _refused(m, _workflow_pod(own, defaults), labels)


def test_the_workflow_defaults_key_is_the_charts() -> None:
    """Helm ignores a misspelt key without a word: ``controller.workflowDefaults`` is in the vendored chart's
    values.yaml (argo-workflows 1.0.18, tests/upstream), where the chart writes it into the controller's ConfigMap."""
    import yaml

    from .conftest import ROOT

    upstream = yaml.safe_load((ROOT / "tests/upstream/argo-workflows-1.0.18/values.yaml").read_text())
    assert "workflowDefaults" in upstream["controller"]
    assert set(helm_values({})["controller"]["workflowDefaults"]) == {"spec"}
