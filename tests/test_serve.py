"""`type: serve` (issue 34): a registered model version behind an OpenAI-compatible SGLang endpoint.

The serve examples render in every environment into a Kueue-gated Deployment, its Service and KEDA
ScaledObject, each valid against its schema (core kinds: kubernetes-validate; the ScaledObject: KEDA's vendored CRD),
built from the serving contract (k8s_charts/serving.py); the registry rules (llmft/registry.py) and the CLI's
cluster commands (status, cancel, port-forward with wake) run against fakes.
"""

from __future__ import annotations

import io
import json
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
import yaml

from config import load_config
from k8s_charts import serving
from k8s_charts.validation import validate
from k8s_charts.values import PlatformValues
from llmft.cli import main
from llmft.preflight import preflight
from llmft.registry import FileRegistry, MlflowRegistry, ModelVersion, model_dir, resolve_model
from llmft.spec import load_spec

from .conftest import ENVIRONMENTS, ROOT

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

EXAMPLES = ROOT / "examples" / "jobs"
SERVE_EXAMPLES = (EXAMPLES / "07-serve-medical.yaml", EXAMPLES / "serve-production.yaml")
REGISTRY = ROOT / "examples" / "registry.yaml"
IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/llmft-dev/verl-sglang:1.0-abc"


def plan_of(path: Path, env: str = "dev"):
    config = load_config(env)
    result = preflight(
        load_spec(path),
        config=config,
        values=PlatformValues.placeholders(config),
        image=IMAGE,
        registry=FileRegistry.load(REGISTRY),
    )
    assert result.ok, result.report()
    return result.plan


def by_kind(plan) -> dict[str, dict[str, Any]]:
    return {m["kind"]: m for m in plan.manifests}


@pytest.mark.parametrize("env", ENVIRONMENTS)
@pytest.mark.parametrize("path", SERVE_EXAMPLES, ids=lambda p: p.stem)
def test_serve_examples_render_four_valid_objects(path: Path, env: str) -> None:
    plan = plan_of(path, env)
    assert [m["kind"] for m in plan.manifests] == ["Deployment", "Service", "ScaledObject"]
    version = load_config(env).compute.kubernetes_version
    for doc in plan.manifests:
        assert validate(doc, version) == [], doc["kind"]
        assert doc["metadata"]["namespace"] == plan.team.namespace
        assert doc["metadata"]["labels"][serving.SERVE_NAME_LABEL] == plan.spec.name
        assert doc["metadata"]["labels"][serving.COMPONENT_LABEL] == serving.SERVE_COMPONENT
    assert validate({**by_kind(plan)["ScaledObject"], "spec": {}}, version), "the CRD schema is applied"


def test_the_deployment_is_a_queued_engine_of_the_resolved_version() -> None:
    plan = plan_of(EXAMPLES / "07-serve-medical.yaml")
    deployment = by_kind(plan)["Deployment"]
    template = deployment["spec"]["template"]
    for labels in (deployment["metadata"]["labels"], template["metadata"]["labels"]):
        assert labels["kueue.x-k8s.io/queue-name"] == "development"
        assert labels[serving.COMPONENT_LABEL] == serving.SERVE_COMPONENT
        assert labels[serving.SERVE_NAME_LABEL] == "medical-chat"
    assert deployment["spec"]["selector"]["matchLabels"] == {serving.SERVE_NAME_LABEL: "medical-chat"}
    assert deployment["spec"]["replicas"] == 0  # min_replicas 0: rendered asleep
    notes = deployment["metadata"]["annotations"]
    assert (notes["llmft.io/model"], notes["llmft.io/model-version"]) == ("ml-research.medical-sft", "1")
    pod = template["spec"]
    (engine,) = pod["containers"]
    assert engine["image"] == IMAGE
    # the evaluated version's weights are checked against the evaluator's digest, then the engine is exec'ed
    digest = plan.model.digest
    assert digest and digest.startswith("sha256:")
    assert engine["command"] == [
        "python3",
        "-m",
        serving.DIGEST_CHECK_MODULE,
        "--verify=/fsx/checkpoints/medical-sft/merged",
        f"--digest={digest}",
        "--",
        "python3",
        "-m",
        "sglang.launch_server",
        "--model-path=/fsx/checkpoints/medical-sft/merged",
        "--tp-size=1",
        "--host=0.0.0.0",
        f"--port={serving.ENGINE_PORT}",
        "--enable-metrics",
        "--served-model-name=ml-research.medical-sft",
        "--context-length=4096",
    ]
    assert engine["ports"] == [{"containerPort": serving.ENGINE_PORT, "name": serving.ENGINE_PORT_NAME}]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert engine[probe]["httpGet"] == {"path": serving.HEALTH_PATH, "port": serving.ENGINE_PORT_NAME}
    assert engine["resources"]["limits"]["nvidia.com/gpu"] == engine["resources"]["requests"]["nvidia.com/gpu"] == 1
    assert {"name": "fsx", "mountPath": "/fsx", "readOnly": True} in engine["volumeMounts"]
    assert pod["priorityClassName"] == "high" and pod["securityContext"]["runAsUser"] == plan.team.posix_uid
    assert "envFrom" not in engine and not any(e["name"].startswith("MLFLOW_") for e in engine["env"])
    assert all("csi" not in v for v in pod["volumes"])  # no MLflow credentials: the engine never calls MLflow
    assert plan.gpus == 2  # max_replicas x 1 GPU: what the quota check counts


def test_service_and_no_network_policy() -> None:
    """A ClusterIP Service; no NetworkPolicy (the namespace's are the platform's: tests/test_serving_metrics.py
    evaluates the one that admits the metrics scraper)."""
    plan = plan_of(EXAMPLES / "07-serve-medical.yaml")
    service = by_kind(plan)["Service"]
    assert service["spec"]["type"] == "ClusterIP"
    assert service["spec"]["ports"] == [
        {"name": "http", "port": serving.SERVICE_PORT, "protocol": "TCP", "targetPort": serving.ENGINE_PORT_NAME}
    ]
    assert service["spec"]["selector"] == {serving.SERVE_NAME_LABEL: "medical-chat"}
    assert "NetworkPolicy" not in by_kind(plan)


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_scaled_object_follows_the_demand_metrics(env: str) -> None:
    plan = plan_of(EXAMPLES / "07-serve-medical.yaml", env)
    so = by_kind(plan)["ScaledObject"]["spec"]
    assert so["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "medical-chat"}
    assert (so["minReplicaCount"], so["maxReplicaCount"]) == (0, 2)
    config = load_config(env)
    assert [t["metadata"]["metricName"] for t in so["triggers"]] == list(serving.DEMAND_METRICS)
    for trigger in so["triggers"]:
        meta = trigger["metadata"]
        assert trigger["type"] == "aws-cloudwatch" and meta["identityOwner"] == "operator"
        assert meta["namespace"] == serving.METRICS_NAMESPACE
        assert meta["dimensionName"].split(";") == list(serving.METRIC_DIMENSIONS)
        assert meta["dimensionValue"].split(";") == [config.cluster_name, "ml-research", "medical-chat"]
        assert meta["awsRegion"] == config.region
    modifiers = so["advanced"]["scalingModifiers"]
    assert modifiers["formula"] == " + ".join(t["name"] for t in so["triggers"])
    assert (modifiers["target"], modifiers["metricType"]) == ("8", "AverageValue")


def test_production_keeps_a_replica_and_serves_the_evaluated_version() -> None:
    plan = plan_of(EXAMPLES / "serve-production.yaml")
    deployment = by_kind(plan)["Deployment"]
    assert deployment["spec"]["replicas"] == 1 and by_kind(plan)["ScaledObject"]["spec"]["minReplicaCount"] == 1
    assert deployment["metadata"]["annotations"]["llmft.io/model-version"] == "3"
    assert deployment["spec"]["template"]["spec"]["priorityClassName"] == "critical"


def test_tensor_parallel_below_the_gpus_runs_data_parallel_engines() -> None:
    from llmft.serve_build import engine_command
    from llmft.spec import parse_spec

    spec = parse_spec(
        {
            "name": "x",
            "tier": "development",
            "type": "serve",
            "gpus_per_node": 8,
            "serve": {"model": "ml-research.m", "version": 1, "tensor_parallel": 2},
        }
    )
    command = engine_command(spec, model_dir="/fsx/m", tp=2, gpus=8)
    assert "--tp-size=2" in command and "--dp-size=4" in command


def test_preflight_runs_the_engines_own_argument_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """llm_platform.engine_args.check_engine_args (the engine's parser, another change) is called with the spec's
    engine and flags; each problem it returns is a refusal naming serve.engine_args. Here a stand-in module."""
    import sys
    import types

    calls = []
    module = types.ModuleType("llm_platform.engine_args")
    module.check_engine_args = lambda engine, args: (
        calls.append((engine, args)) or ["--context-length: the engine says no"]
    )
    monkeypatch.setitem(sys.modules, "llm_platform.engine_args", module)
    from llmft.spec import parse_spec

    data = yaml.safe_load((EXAMPLES / "07-serve-medical.yaml").read_text())
    data["serve"]["engine_args"] = ["--context-length", "4096"]  # the allowlist takes it (llmft/spec.py)
    config = load_config("dev")
    result = preflight(
        parse_spec(data),
        config=config,
        values=PlatformValues.placeholders(config),
        image=IMAGE,
        registry=FileRegistry.load(REGISTRY),
    )
    assert calls == [("sglang", ["--context-length", "4096"])]
    assert [(c.name, c.message) for c in result.failures()] == [
        ("engine", "serve.engine_args: --context-length: the engine says no")
    ]


# ---- the registry -------------------------------------------------------------------------------------------------
def _team(name: str = "ml-research"):
    return load_config("dev").kubernetes.team(name)


@pytest.mark.parametrize(
    ("source", "tags", "expected"),
    [
        ("models:/m-1", {serving.MODEL_DIR_TAG: "/fsx/checkpoints/a/merged"}, "/fsx/checkpoints/a/merged"),
        ("/fsx/models/a", {}, "/fsx/models/a"),
        ("file:///fsx/models/a", {}, "/fsx/models/a"),
        ("s3://data-bucket/teams/ml-research/models/a", {}, "/fsx/models/a"),
    ],
)
def test_weights_on_the_teams_storage_are_served_from_its_fsx(source: str, tags: dict, expected: str) -> None:
    assert model_dir(ModelVersion("ml-research.a", 1, source, tags), _team()) == (expected, None)


@pytest.mark.parametrize(
    ("source", "tags", "pattern"),
    [
        ("models:/m-1", {}, "has no tag llmft.model_dir"),
        ("s3://data-bucket/teams/hyperpod-platform/models/a", {}, "outside team ml-research's prefix"),
        ("/data/models/a", {}, "not on team ml-research's storage"),
        ("/fsx/../teams/hyperpod-platform/models/a", {}, "not on team ml-research's storage"),
        ("runs:/abc/model", {serving.MODEL_DIR_TAG: "/teams/hyperpod-platform/models/a"}, "not on team"),
    ],
)
def test_weights_elsewhere_are_refused(source: str, tags: dict, pattern: str) -> None:
    directory, why = model_dir(ModelVersion("ml-research.a", 1, source, tags), _team())
    assert directory is None and pattern in why and why.startswith("serve.model:")


class _Missing(Exception):
    error_code = "RESOURCE_DOES_NOT_EXIST"


class FakeMlflowClient:
    """The MlflowClient calls MlflowRegistry makes, over one model with versions 1 and 2 and alias evaluated -> 2."""

    def get_registered_model(self, name: str):
        if name != "ml-research.medical-sft":
            raise _Missing(f"Registered Model with name={name} not found")
        return type("RM", (), {"aliases": {"evaluated": "2"}})()

    def _version(self, v: str):
        if v not in ("1", "2"):
            raise _Missing(f"Model Version (name=ml-research.medical-sft, version={v}) not found")
        tags = {serving.MODEL_DIR_TAG: f"/fsx/checkpoints/v{v}/merged", serving.EVALUATION_TAG: "passed"}
        return type(
            "MV",
            (),
            {"version": v, "source": f"models:/m-{v}", "tags": tags, "aliases": ["evaluated"] if v == "2" else []},
        )()

    def get_model_version(self, name: str, version: str):
        return self._version(version)

    def get_model_version_by_alias(self, name: str, alias: str):
        if alias != "evaluated":
            raise _Missing(f"alias {alias} not found")
        return self._version("2")

    def search_model_versions(self, query: str):
        return [self._version("1"), self._version("2")]


@pytest.mark.parametrize(
    ("serve", "expected"),
    [
        ({"alias": "evaluated"}, (2, "/fsx/checkpoints/v2/merged", None)),
        ({"version": 1}, (1, "/fsx/checkpoints/v1/merged", None)),
        ({"version": 7}, "serve.version 7: ml-research.medical-sft has no version 7 (its versions: 1, 2)"),
        ({"alias": "champion"}, "serve.alias 'champion': ml-research.medical-sft has no alias 'champion'"),
        ({"model": "ml-research.other", "version": 1}, "serve.model 'ml-research.other' is not a registered model"),
    ],
)
def test_the_mlflow_registry_resolves_through_the_client(serve: dict, expected: Any) -> None:
    from llmft.spec import parse_spec

    spec = parse_spec(
        {
            "name": "x",
            "team": "ml-research",
            "tier": "development",
            "type": "serve",
            "serve": {"model": "ml-research.medical-sft", **serve},
        }
    )
    model, problems = resolve_model(spec, _team(), MlflowRegistry(FakeMlflowClient()))
    if isinstance(expected, tuple):
        assert problems == [] and (model.version, model.model_dir, None) == expected
    else:
        assert model is None and len(problems) == 1 and problems[0].startswith(expected), problems


def test_without_mlflow_render_says_how_to_proceed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        code = main(["render", str(EXAMPLES / "07-serve-medical.yaml"), "--env", "dev"])
    assert code == 1 and "Traceback" not in err.getvalue()
    assert "MLFLOW_TRACKING_URI is not set" in err.getvalue() and "--registry FILE" in err.getvalue()


def test_submit_refuses_a_snapshot_for_a_real_submit() -> None:
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        code = main(["submit", str(EXAMPLES / "07-serve-medical.yaml"), "--registry", str(REGISTRY)])
    assert code == 1 and "drop --registry, or add --dry-run" in err.getvalue()


# ---- the cluster commands -----------------------------------------------------------------------------------------
class FakeKubectl:
    """Records kubectl calls; a Deployment `medical-chat` with ``replicas`` replicas exists when ``exists``."""

    def __init__(self, *, exists: bool = False, replicas: int = 0) -> None:
        self.calls: list[tuple[str, ...]] = []
        self.stdin: list[dict] = []
        self.exists, self.replicas = exists, replicas

    def __call__(self, cluster, *args: str, stdin: str | None = None, check: bool = True):
        self.calls.append(args)
        if stdin:
            self.stdin.append(yaml.safe_load(stdin))
        out = ""
        if args[0] == "get" and "--ignore-not-found" in args:
            out = f"{args[1]}/{args[2]}" if self.exists and args[1] == "deployments.apps" else ""
        elif args[0] == "get" and args[1] == "deployment":
            out = json.dumps(
                {
                    "metadata": {
                        "annotations": {
                            "llmft.io/model": "ml-research.medical-sft",
                            "llmft.io/model-version": "1",
                            "llmft.io/model-alias": "evaluated",
                            "llmft.io/model-dir": "/fsx/checkpoints/x/merged",
                        }
                    },
                    "spec": {"replicas": self.replicas},
                    "status": {"readyReplicas": self.replicas},
                }
            )
        elif args[0] == "get" and args[-2:] == ("-o", "json"):  # quotas, images, other jobs' outputs: none
            out = json.dumps({"items": [], "data": {}})
        elif args[0] == "create":
            out = json.dumps({"kind": "Deployment", "metadata": {"uid": "uid-1"}})
        return subprocess.CompletedProcess(args, 0, out, "")


def _cli(monkeypatch: pytest.MonkeyPatch, fake: FakeKubectl, argv: list[str]) -> tuple[int, str, str]:
    from llmft.cluster import Cluster

    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, kubectl="kubectl": cls()))
    monkeypatch.setattr(Cluster, "run", lambda self, *args, **kwargs: fake(self, *args, **kwargs))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_submit_creates_the_deployment_then_the_objects_it_owns(monkeypatch: pytest.MonkeyPatch) -> None:
    from llmft.registry import MlflowRegistry as Real

    monkeypatch.setattr(Real, "from_environment", classmethod(lambda cls: FileRegistry.load(REGISTRY)))
    fake = FakeKubectl()
    code, _, err = _cli(monkeypatch, fake, ["submit", str(EXAMPLES / "07-serve-medical.yaml"), "--env", "dev"])
    assert code == 0, err
    assert [d["kind"] for d in fake.stdin] == ["Deployment", "Service", "ScaledObject"]
    owner = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "medical-chat",
        "uid": "uid-1",
        "blockOwnerDeletion": True,
    }
    assert all(d["metadata"]["ownerReferences"] == [owner] for d in fake.stdin[1:])
    assert not [c for c in fake.calls if c[0] in ("apply", "patch", "replace")]


def test_submit_refuses_a_taken_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MlflowRegistry, "from_environment", classmethod(lambda cls: FileRegistry.load(REGISTRY)))
    fake = FakeKubectl(exists=True)
    code, _, err = _cli(monkeypatch, fake, ["submit", str(EXAMPLES / "07-serve-medical.yaml"), "--env", "dev"])
    assert code == 2 and "deployments.apps/medical-chat already exists" in err
    assert not [c for c in fake.calls if c[0] == "create"]


def test_status_shows_replicas_endpoint_and_version(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = _cli(
        monkeypatch, FakeKubectl(exists=True, replicas=2), ["status", "medical-chat", "--team", "ml-research"]
    )
    assert code == 0, err
    assert "serve medical-chat: 2/2 replicas ready" in out
    assert "endpoint: http://medical-chat.ml-research.svc" in out
    assert "model: ml-research.medical-sft version 1 (alias evaluated at submit)" in out


def test_cancel_deletes_the_deployment_and_with_it_what_it_owns(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeKubectl(exists=True)
    code, _, err = _cli(monkeypatch, fake, ["cancel", "medical-chat", "--team", "ml-research"])
    assert code == 0, err
    assert [c for c in fake.calls if c[0] == "delete"] == [
        ("delete", "deployments.apps/medical-chat", "-n", "ml-research", "--ignore-not-found")
    ]


@pytest.mark.parametrize("replicas", [0, 1])
def test_port_forward_wakes_a_sleeping_endpoint(monkeypatch: pytest.MonkeyPatch, replicas: int) -> None:
    forwarded = []
    monkeypatch.setattr(subprocess, "call", lambda args: forwarded.append(args) or 0)
    fake = FakeKubectl(exists=True, replicas=replicas)
    code, _, err = _cli(
        monkeypatch, fake, ["port-forward", "medical-chat", "--team", "ml-research", "--local-port", "8001"]
    )
    assert code == 0, err
    woke = [c for c in fake.calls if c[0] in ("annotate", "scale", "rollout")]
    pin = ("annotate", "scaledobject.keda.sh/medical-chat", "-n", "ml-research")
    if replicas:
        assert woke == [] and "woke" not in err
    else:  # pinned at 1 (KEDA would scale the idle replica straight back), woken, waited for, handed back
        assert woke[0] == (*pin, f"{serving.KEDA_PAUSED_REPLICAS}=1", "--overwrite")
        assert woke[1] == ("scale", "deployment/medical-chat", "-n", "ml-research", "--replicas=1")
        assert woke[2][:4] == ("rollout", "status", "deployment/medical-chat", "-n") and "woke it" in err
        assert woke[3] == (*pin, f"{serving.KEDA_PAUSED_REPLICAS}-")
    assert forwarded == [["kubectl", "port-forward", "svc/medical-chat", "8001:80", "-n", "ml-research"]]


def test_a_wake_that_fails_leaves_no_pin(monkeypatch: pytest.MonkeyPatch) -> None:
    from llmft.cluster import ClusterError

    fake = FakeKubectl(exists=True, replicas=0)

    def failing(cluster, *args, **kwargs):
        if args[0] == "rollout":
            raise ClusterError("kubectl rollout status failed: timed out")
        return fake(cluster, *args, **kwargs)

    from llmft.cluster import Cluster

    monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, kubectl="kubectl": cls()))
    monkeypatch.setattr(Cluster, "run", failing)
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert main(["port-forward", "medical-chat", "--team", "ml-research"]) == 2
    assert fake.calls[-1][-1] == f"{serving.KEDA_PAUSED_REPLICAS}-"


# ---- the guard rails ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_serve_examples_pass_the_guard_rails(env: str) -> None:
    """What `llmft submit` creates for a serve spec passes every policy bound to the team namespace (cel-python), and
    its pods, owned by the Deployment's ReplicaSet and gated by Kueue's pod webhook (which runs before validating
    admission), pass the pod policy."""
    from .guardrail_eval import admission_refusals, kueue_gated, quota_refusals
    from .test_team_guardrails import ns_labels, pod_of, team_manifests

    m = team_manifests(env)
    for path in SERVE_EXAMPLES:
        plan = plan_of(path, env)
        labels = ns_labels(env, plan.team.namespace)
        production = plan.spec.tier in serving.PRODUCTION_TIERS  # the promotion identity's (issue 40)
        user = {"user": serving.PROMOTER} if production else {}
        for doc in plan.manifests:
            assert admission_refusals(m, doc, labels, **user) == [], (path.name, doc["kind"])
        if production:  # the same Deployment from a team member (kubectl, or its GitOps folder) is refused
            refused = admission_refusals(m, by_kind(plan)["Deployment"], labels)
            assert [r.message for r in refused if "promotion step" in r.message], refused
        template = by_kind(plan)["Deployment"]["spec"]["template"]
        pod = kueue_gated(pod_of(template, plan.team.namespace, {"apiVersion": "apps/v1", "kind": "ReplicaSet"}))
        assert admission_refusals(m, pod, labels) == [], path.name
        assert quota_refusals(m, plan.team.namespace, template["spec"]) == [], path.name


def test_the_team_role_lets_its_people_run_a_serve_job() -> None:
    """`llmft submit` (create each object), `llmft port-forward` (wake: scale the Deployment; forward: pods/portforward)
    and `llmft render -o CHECKOUT` (the team's AppProject whitelist follows the Role) as a team member. Except the
    NetworkPolicy: a team namespace's NetworkPolicies are the platform's (its `allow-same-namespace` already admits
    the team's pods to the engine port), so llmft is to stop rendering one (docs/serving.md)."""
    from k8s_charts.gitops import allows_create, team_role_rules

    plan = plan_of(EXAMPLES / "07-serve-medical.yaml")
    rules = team_role_rules(plan.team, PlatformValues.placeholders(load_config("dev")))
    wanted = [
        (m["apiVersion"].rsplit("/", 1)[0] if "/" in m["apiVersion"] else "", f"{m['kind'].lower()}s")
        for m in plan.manifests
    ]
    assert not allows_create(rules, "networking.k8s.io", "networkpolicies")
    wanted = [(g, r) for g, r in wanted if r != "networkpolicys"]
    missing = [f"{g}/{r}" for g, r in [*wanted, ("", "pods/portforward")] if not allows_create(rules, g, r)]
    assert missing == []
    for group, resource in (("apps", "deployments/scale"), ("keda.sh", "scaledobjects")):  # wake: scale, pin
        assert any(
            group in r.get("apiGroups", []) and resource in r.get("resources", []) and "patch" in r.get("verbs", [])
            for r in rules
        ), resource


def test_the_training_steps_write_the_tags_llmft_reads() -> None:
    """The training package cannot import k8s_charts: its copies of the registry names (what the SFT step tags, what
    the evaluate step tags and aliases) must be the ones llmft's registry reads."""
    from llm_platform import evaluate, mlflow_utils

    assert mlflow_utils.MODEL_DIR_TAG == serving.MODEL_DIR_TAG
    assert (evaluate.EVALUATION_TAG, evaluate.EVALUATION_PASSED, evaluate.EVALUATED_ALIAS) == (
        serving.EVALUATION_TAG,
        serving.EVALUATION_PASSED,
        serving.EVALUATED_ALIAS,
    )
