"""Issue 40, step 3 as objects: the platform's gated evaluation (`llmft promote EVAL_SPEC --evaluate`,
llmft/promote_evaluate.py). For every environment, every team with a production tier and every tier of that team
(all read from config/), a team's gated `type: evaluate` spec (examples/jobs/05-evaluate.yaml, moved to that team)
is rendered by llmft as `llmft submit` would and then as the platform's Job; the result is fed to the real consumers:
the vendored CRDs and Kubernetes schemas, the rendered Kueue objects and Kueue's own configuration, the rendered
admission policies and RBAC (tests/guardrail_eval.py), and the step's own `--check` in the training interpreter.
"""

from __future__ import annotations

import functools
import io
import json
import os
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
import yaml

from config import load_config
from k8s_charts import serving
from k8s_charts.queues import QUEUE_NAME_LABEL, cluster_queue_name
from k8s_charts.team_storage import team_mount_name
from k8s_charts.validation import validate
from k8s_charts.values import MLFLOW_CONFIG_MAP, MLFLOW_CREDENTIALS_SECRET, PlatformValues
from llmft.promote_evaluate import HF_HOME, JUDGED_DIR, OUTPUT_DIR, evaluation_manifests, spec_problems

from .conftest import ENVIRONMENTS, ROOT
from .guardrail_eval import GROUP_OF, admission_refusals, label_selector_matches, rbac_allows, resource_of
from .test_serve import EXAMPLES, IMAGE
from .test_team_guardrails import ns_labels, team_manifests

pytestmark = pytest.mark.synth  # renders every environment's manifests through cdk8s (docs/testing.md "Tiers")

EVAL_EXAMPLE = EXAMPLES / "05-evaluate.yaml"
TRAIN_PYTHON = ROOT / ".train-venv" / "bin" / "python"
PLATFORM = serving.PROMOTION_NAMESPACE
ADMIN = "kubernetes-admin"  # a platform admin applies the Job (teams have no verb in the platform namespace)
TRAINING_OPERATOR = "system:serviceaccount:kubeflow:training-operator"  # creates the PyTorchJob's pods


def _production_teams(env: str) -> list[Any]:
    return [t for t in load_config(env).kubernetes.teams if set(t.allowed_tiers) & set(serving.PRODUCTION_TIERS)]


CASES = [
    (env, team.name, tier) for env in ENVIRONMENTS for team in _production_teams(env) for tier in team.allowed_tiers
]


def _team_spec(team: str, tier: str, **changes: Any):
    """The example's gated evaluation as ``team``'s own spec at ``tier`` (its model is the team's: ``<team>.``)."""
    from llmft.spec import load_spec

    spec = load_spec(EVAL_EXAMPLE)
    model = spec.settings["registered_model_name"].split(".", 1)[1]
    settings = {**spec.settings, "registered_model_name": f"{team}.{model}"}
    return spec.model_copy(update={"team": team, "tier": tier, "settings": settings, **changes})


@functools.cache
def _rendered(env: str, team: str, tier: str) -> tuple[Any, tuple[dict[str, Any], ...]]:
    """(llmft's plan of the team's spec, the platform's evaluation of it)."""
    from llmft.preflight import preflight

    config = load_config(env)
    values = PlatformValues.placeholders(config)
    result = preflight(_team_spec(team, tier), config=config, values=values, image=IMAGE)
    assert result.ok, result.report()
    assert spec_problems(result.plan.spec, result.plan.team) == []
    return result.plan, tuple(evaluation_manifests(result.plan))


def _pod(job: dict[str, Any]) -> dict[str, Any]:
    (replica,) = job["spec"]["pytorchReplicaSpecs"].values()
    return replica["template"]["spec"]


def _platform_objects(env: str) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (d["kind"], d["metadata"]["name"]): d for d in team_manifests(env) if d["metadata"].get("namespace") == PLATFORM
    }


@pytest.mark.parametrize(("env", "team", "tier"), CASES)
def test_the_evaluation_is_llmfts_job_moved_to_the_platform(env: str, team: str, tier: str) -> None:
    """Valid against the schemas and the vendored PyTorchJob CRD; the same image, command, GPUs, placement, priority
    and user as the team's own job; the same step file but its output; no retries; created suspended for Kueue."""
    plan, (config_map, job) = _rendered(env, team, tier)
    version = load_config(env).compute.kubernetes_version
    assert [validate(d, version) for d in (config_map, job)] == [[], []]
    assert {d["metadata"]["namespace"] for d in (config_map, job)} == {PLATFORM}
    team_step, team_job = (next(m for m in plan.manifests if m["kind"] == k) for k in ("ConfigMap", "PyTorchJob"))
    step = yaml.safe_load(config_map["data"]["step.yaml"])
    team_file = yaml.safe_load(team_step["data"]["step.yaml"])
    assert step == {**team_file, "output_dir": OUTPUT_DIR, "finetuned_model_path": JUDGED_DIR, "production": True}
    pod, team_pod = _pod(job), _pod(team_job)
    for key in ("affinity", "tolerations", "priorityClassName", "securityContext", "nodeSelector"):
        assert pod.get(key) == team_pod.get(key), key
    for mine, theirs in zip(pod["containers"], team_pod["containers"], strict=True):
        for key in ("image", "command", "args", "resources", "securityContext", "envFrom"):
            assert mine.get(key) == theirs.get(key), key
    # Pod Security "restricted" (the platform namespace enforces it): every container, init containers included
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    for container in [*pod.get("initContainers", []), *pod["containers"]]:
        security = container["securityContext"]
        assert security["allowPrivilegeEscalation"] is False and security["capabilities"] == {"drop": ["ALL"]}
    assert all({"configMap", "emptyDir", "csi", "persistentVolumeClaim"} & set(v) for v in pod["volumes"])
    assert job["spec"]["runPolicy"]["backoffLimit"] == 0 and job["spec"]["runPolicy"]["suspend"] is True
    assert job["spec"]["elasticPolicy"]["maxRestarts"] == 0
    assert {r["restartPolicy"] for r in job["spec"]["pytorchReplicaSpecs"].values()} == {"Never"}


@pytest.mark.parametrize(("env", "team", "tier"), CASES)
def test_kueue_admits_it_in_the_teams_queue(env: str, team: str, tier: str) -> None:
    """Its queue is a LocalQueue of the platform namespace in the team's ClusterQueue of the tier; that ClusterQueue
    selects the platform namespace (its rendered labels), and Kueue's configuration manages the namespace (v0.19
    reconciles no job elsewhere, k8s_charts/queues.py PLATFORM_MANAGED_VALUE)."""
    from cdk_constructs.compute.kueue import manager_configuration

    _, (_, job) = _rendered(env, team, tier)
    queues = {
        (d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]): d
        for d in team_manifests(env)
        if d["kind"] in ("LocalQueue", "ClusterQueue")
    }
    local = queues[("LocalQueue", PLATFORM, job["metadata"]["labels"][QUEUE_NAME_LABEL])]
    assert local["spec"]["clusterQueue"] == cluster_queue_name(team, tier)
    cluster = queues[("ClusterQueue", None, cluster_queue_name(team, tier))]
    labels = ns_labels(env, PLATFORM)
    assert label_selector_matches(cluster["spec"]["namespaceSelector"], labels)
    selector = manager_configuration(load_config(env).compute.kueue)["managedJobsNamespaceSelector"]
    assert label_selector_matches(selector, labels)
    for t in load_config(env).kubernetes.teams:  # and every team namespace still
        assert label_selector_matches(selector, ns_labels(env, t.namespace)), t.name
    gpus = [c["resources"]["requests"].get("nvidia.com/gpu") for c in _pod(job)["containers"]]
    assert any(gpus), "a GPU job: Kueue counts it against the team's quota"


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_cluster_queues_admit_the_platform_and_no_other_namespace(env: str) -> None:
    """Every team ClusterQueue selects its team's namespace, and the platform namespace exactly when the team has a
    production tier; no other rendered namespace (another team's), nor a namespace named like a system one."""
    config = load_config(env)
    namespaces = {
        d["metadata"]["name"]: ns_labels(env, d["metadata"]["name"])
        for d in team_manifests(env)
        if d["kind"] == "Namespace"
    }
    for name in ("default", "kube-system", "kueue-system", "kubeflow", "argocd", "llmft-platform-x"):
        namespaces.setdefault(name, {"kubernetes.io/metadata.name": name})
    production = {t.name for t in _production_teams(env)}
    for team in config.kubernetes.teams:
        for tier in team.allowed_tiers:
            (cq,) = [
                d
                for d in team_manifests(env)
                if d["kind"] == "ClusterQueue" and d["metadata"]["name"] == cluster_queue_name(team.name, tier)
            ]
            selected = {
                n for n, labels in namespaces.items() if label_selector_matches(cq["spec"]["namespaceSelector"], labels)
            }
            assert selected == {team.namespace} | ({PLATFORM} if team.name in production else set()), (team.name, tier)


@pytest.mark.parametrize(("env", "team", "tier"), CASES)
def test_the_teams_tree_is_mounted_read_only(env: str, team: str, tier: str) -> None:
    """The claim is the platform namespace's PV of the team's own subtree (the same file system and mount name as
    the team's volume), read-only at the PV (the CSI driver mounts with ``ro``) and in the pod; everything the pod
    may write is an emptyDir (outputs, caches)."""
    _, (_, job) = _rendered(env, team, tier)
    pod = _pod(job)
    m = team_manifests(env)
    claims = [v for v in pod["volumes"] if "persistentVolumeClaim" in v]
    assert claims and all(v["persistentVolumeClaim"]["readOnly"] is True for v in claims)
    (claim,) = claims
    pvc = _platform_objects(env)[("PersistentVolumeClaim", claim["persistentVolumeClaim"]["claimName"])]
    pvs = {d["metadata"]["name"]: d for d in m if d["kind"] == "PersistentVolume"}
    pv = pvs[pvc["spec"]["volumeName"]]
    assert pv["spec"]["claimRef"] == {"namespace": PLATFORM, "name": pvc["metadata"]["name"]}
    assert pv["spec"]["csi"]["readOnly"] is True
    config = load_config(env)
    values = PlatformValues.placeholders(config)
    assert pv["spec"]["csi"]["volumeAttributes"]["mountname"] == team_mount_name(values.fsx_mount_name, team)
    (own,) = [p for p in pvs.values() if p["spec"]["claimRef"]["namespace"] == config.kubernetes.team(team).namespace]
    assert pv["spec"]["csi"]["volumeHandle"] == own["spec"]["csi"]["volumeHandle"]
    assert pv["spec"]["csi"]["volumeAttributes"] == own["spec"]["csi"]["volumeAttributes"]
    writable = {
        v["name"]
        for v in pod["volumes"]
        if not ("emptyDir" in v or "configMap" in v or v.get("csi", {}).get("readOnly"))
    }
    for container in pod["containers"]:
        for mount in container["volumeMounts"]:
            assert mount["name"] not in writable or mount.get("readOnly") is True, mount
        env_ = {e["name"]: e.get("value") for e in container["env"]}
        tmp = next(mt["mountPath"] for mt in container["volumeMounts"] if mt["name"] == "tmp")
        assert env_["HF_HOME"] == HF_HOME and HF_HOME.startswith(tmp + "/") and OUTPUT_DIR.startswith(tmp + "/")


@pytest.mark.parametrize(("env", "team", "tier"), CASES)
def test_the_judged_weights_are_a_private_copy(env: str, team: str, tier: str) -> None:
    """Before the step starts (an init container), the team's weights directory (the spec's ``model``, where its own
    job reads them) is copied, links kept as links, from the read-only team mount into an emptyDir that only this
    pod has; the step loads and digests that copy (its step file says so) and cannot change it (read-only mount)."""
    plan, (config_map, job) = _rendered(env, team, tier)
    pod = _pod(job)
    team_step = yaml.safe_load(next(m for m in plan.manifests if m["kind"] == "ConfigMap")["data"]["step.yaml"])
    (copy,) = pod["initContainers"]
    assert copy["command"] == ["cp", "-R", "-P", "--", team_step["finetuned_model_path"], JUDGED_DIR]
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["name"]: m for m in copy["volumeMounts"]}
    fsx = next(v["name"] for v in volumes.values() if "persistentVolumeClaim" in v)
    assert mounts[fsx]["readOnly"] is True and mounts[fsx]["mountPath"] == "/fsx"
    (judged,) = [m for m in copy["volumeMounts"] if JUDGED_DIR.startswith(m["mountPath"] + "/")]
    assert "emptyDir" in volumes[judged["name"]] and not judged.get("readOnly")
    for container in pod["containers"]:
        (mine,) = [m for m in container["volumeMounts"] if m["name"] == judged["name"]]
        assert mine["readOnly"] is True and mine["mountPath"] == judged["mountPath"]
    assert (
        copy["image"] == pod["containers"][0]["image"]
        and copy["securityContext"] == pod["containers"][0]["securityContext"]
    )
    assert yaml.safe_load(config_map["data"]["step.yaml"])["finetuned_model_path"] == JUDGED_DIR


@pytest.mark.parametrize(("env", "team", "tier"), CASES)
def test_it_carries_the_evaluators_credentials_and_no_token(env: str, team: str, tier: str) -> None:
    """As the promoter (whose Pod Identity role alone reads the evaluator's secret), with the platform namespace's
    ConfigMap and SecretProviderClass, which sync the evaluator's secret and no team's; no API token mounted."""
    _, (_, job) = _rendered(env, team, tier)
    pod = _pod(job)
    assert pod["serviceAccountName"] == serving.PROMOTER_SERVICE_ACCOUNT
    assert pod["automountServiceAccountToken"] is False
    platform = _platform_objects(env)
    for container in pod["containers"]:
        refs = {next(iter(r.values()))["name"] for r in container["envFrom"]}
        assert refs == {MLFLOW_CONFIG_MAP, MLFLOW_CREDENTIALS_SECRET}
        assert ("ConfigMap", MLFLOW_CONFIG_MAP) in platform
    (csi,) = [v["csi"] for v in pod["volumes"] if "csi" in v]
    spc = platform[("SecretProviderClass", csi["volumeAttributes"]["secretProviderClass"])]
    objects = spc["spec"]["parameters"]["objects"]
    assert "MLFLOW_EVALUATOR_SECRET_ARN" in objects
    teams = PlatformValues.placeholders(load_config(env)).mlflow.team_secret_arns
    assert not any(arn in objects for arn in teams.values())


@pytest.mark.parametrize(("env", "team", "tier"), CASES)
def test_admitted_for_the_platform_and_out_of_every_teams_reach(env: str, team: str, tier: str) -> None:
    """The rendered admission policies admit the ConfigMap and PyTorchJob (a platform admin) and the pod (the
    training operator) in the platform namespace; no team subject (groups and ServiceAccounts bound in team
    namespaces) may write them, nor anything its Roles grant in its own namespace."""
    _, manifests = _rendered(env, team, tier)
    m = team_manifests(env)
    labels = ns_labels(env, PLATFORM)
    for doc in manifests:
        assert admission_refusals(m, doc, labels, user=ADMIN) == [], doc["kind"]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{manifests[1]['metadata']['name']}-worker-0",
            "namespace": PLATFORM,
            "ownerReferences": [
                {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "name": "x", "uid": "u", "controller": True}
            ],
        },
        "spec": _pod(manifests[1]),
    }
    assert admission_refusals(m, pod, labels, user=TRAINING_OPERATOR) == []
    teams = load_config(env).kubernetes.teams
    namespaces = {t.namespace for t in teams}
    for t in teams:
        bindings = [d for d in m if d["kind"] == "RoleBinding" and d["metadata"].get("namespace") == t.namespace]
        subjects = {
            (
                s["kind"],
                s["name"] if s["kind"] != "ServiceAccount" else f"{s.get('namespace', t.namespace)}/{s['name']}",
            )
            for b in bindings
            for s in b.get("subjects", [])
            if s["kind"] != "ServiceAccount" or s.get("namespace", t.namespace) in namespaces
        }
        roles = [d for d in m if d["kind"] == "Role" and d["metadata"].get("namespace") == t.namespace]
        granted = {
            (g, r, v)
            for role in roles
            for rule in role["rules"]
            for g in rule["apiGroups"]
            for r in rule["resources"]
            for v in rule["verbs"]
        }
        granted |= {
            (GROUP_OF[d["kind"]], resource_of(d["kind"]), v) for d in manifests for v in ("create", "update", "patch")
        }
        granted |= {("", "pods", "create"), ("", "persistentvolumeclaims", "get"), ("", "secrets", "get")}
        for group, resource, verb in sorted(granted):
            assert not rbac_allows(m, subjects, verb, group, resource, PLATFORM), (t.name, group, resource, verb)


def test_the_step_file_passes_the_steps_own_check(tmp_path: Path) -> None:
    """The step file the Job carries, through `llmp-evaluate --check` in the training interpreter (the first thing
    the pod runs), for every case."""
    if not TRAIN_PYTHON.exists():
        pytest.skip(f"{TRAIN_PYTHON} is missing: run `make install`")
    paths = []
    for i, case in enumerate(CASES):
        _, (config_map, _) = _rendered(*case)
        path = tmp_path / f"{i}.yaml"
        path.write_text(config_map["data"]["step.yaml"])
        paths.append(str(path))
    driver = (
        "import json, sys\nfrom llm_platform import evaluate\n"
        "print(json.dumps([evaluate.main(['--config', p, '--check']) for p in sys.argv[1:]]))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "training"), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(
        [str(TRAIN_PYTHON), "-c", driver, *paths], capture_output=True, text=True, timeout=600, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [0] * len(paths), proc.stderr[-4000:]


# ---- the command -----------------------------------------------------------------------------------------------------
def _cli(argv: list[str]) -> tuple[int, str, str]:
    from llmft.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _spec_file(tmp_path: Path, team: str, **changes: Any) -> str:
    data = yaml.safe_load(EVAL_EXAMPLE.read_text())
    model = data["settings"]["registered_model_name"].split(".", 1)[1]
    data |= {"team": team, **changes}
    if "registered_model_name" in data["settings"]:
        data["settings"]["registered_model_name"] = f"{team}.{model}"
    path = tmp_path / "eval.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def test_llmft_promote_evaluate_prints_the_job(tmp_path: Path) -> None:
    team = _production_teams("dev")[0].name
    code, out, err = _cli(["promote", _spec_file(tmp_path, team), "--evaluate"])
    assert code == 0, err
    assert [d["kind"] for d in yaml.safe_load_all(out)] == ["ConfigMap", "PyTorchJob"]
    assert PLATFORM in err


def test_llmft_promote_evaluate_refuses_every_problem_at_once(tmp_path: Path) -> None:
    """What would run in a pod holding the evaluator's credentials (the team's image, env, secret_env) and a spec
    without a gate are refused together, each naming the field; a team without a production tier and another type
    are refused too; never a traceback."""
    team = _production_teams("dev")[0].name
    data = yaml.safe_load(EVAL_EXAMPLE.read_text())
    settings = {
        k: v
        for k, v in data["settings"].items()
        if k not in ("gate", "registered_model_name", "registered_model_version")
    }
    bad = _spec_file(
        tmp_path,
        team,
        image="registry.example/mine:1",
        env={"EVAL_VERBOSE": "1"},
        settings=settings,
    )
    code, out, err = _cli(["promote", bad, "--evaluate"])
    assert code == 1 and out == "" and "Traceback" not in err
    for field in ("settings.gate", "image:", "env:"):
        assert field in err, (field, err)
    others = [
        t.name for t in load_config("dev").kubernetes.teams if t.name not in {p.name for p in _production_teams("dev")}
    ]
    if others:
        code, out, err = _cli(["promote", _spec_file(tmp_path, others[0]), "--evaluate"])
        assert code == 1 and out == "" and "production tier" in err
    code, out, err = _cli(["promote", str(EXAMPLES / "serve-production.yaml"), "--evaluate", "--image", "x"])
    assert code == 1 and out == ""


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"registered_model_name": "another-team.medical-sft"}, "settings.registered_model_name"),
        ({"gate": {"metric": "finetuned/rouge1", "min": 0.0}}, "settings.gate.metric"),
        ({"gate": {"metric": "base/rougeL", "min": 0.0}}, "settings.gate.metric"),
        ({"gate": {"metric": "delta/rougeL", "min": -1.0}}, "settings.gate.min"),
        ({"max_samples": 1}, "settings.max_samples"),
    ],
    ids=["another-teams-model", "absolute-score", "base-score", "below-the-floor", "a-handful-of-rows"],
)
def test_a_production_verdict_needs_the_teams_model_a_delta_gate_and_enough_rows(settings, field) -> None:
    """What a team writes into the spec the platform's evaluator runs: the evaluator may tag any team's version, and
    a gate on an absolute score (min 0), below the production floor or on a handful of rows would pass anything."""
    from llm_platform.evaluate import MIN_PRODUCTION_ROWS, PRODUCTION_GATE_FLOOR, PRODUCTION_GATE_PREFIX

    team = _production_teams("dev")[0]
    spec = _team_spec(team.name, team.allowed_tiers[0])
    spec = spec.model_copy(update={"settings": {**spec.settings, **settings}})
    problems = spec_problems(spec, team)
    assert len(problems) == 1 and problems[0].startswith(field), problems
    fix = {
        "settings.registered_model_name": f"{team.name}.",
        "settings.gate.metric": PRODUCTION_GATE_PREFIX,
        "settings.gate.min": str(PRODUCTION_GATE_FLOOR),
        "settings.max_samples": str(MIN_PRODUCTION_ROWS),
    }[field]
    assert fix in problems[0]
