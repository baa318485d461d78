"""Issue 44 item 6, case 2: the development fall-back controller (k8s_charts/fallback.py, training/llm_platform/
fallback_controller.py and fallback_rules.py; docs/queueing.md "Fallback when unschedulable").

The decisions on Workload objects as Kueue v0.19.2 writes them for the jobs llmft renders (validated against the
vendored Workload CRD), with an injected clock; the whole move over HTTP against a fake API server on 127.0.0.1 and a
small Kueue (tests/fallback_fakes.py), every request recorded and held against the rendered Role; the moved job fed
back through Kueue's flavor matching in every environment; the CronJob and its objects rendered and validated; the
setting's config errors."""

from __future__ import annotations

import copy
import json
import urllib.error
from dataclasses import replace

import cdk8s
import pytest
from llm_platform import fallback_controller as controller
from llm_platform.fallback_rules import ANNOTATION, MARK, Settings, burst_flavors, decide, gpu_templates

from config import EnvironmentConfig
from config.kueue import duration_seconds
from config.queueing import TIER_CAPACITY_ORDER
from k8s_charts import fallback
from k8s_charts.team_namespaces import TeamNamespacesChart
from k8s_charts.validation import validate
from llmft.spec import load_spec

from .conftest import ENVIRONMENTS, ROOT, config_fails, config_with
from .fallback_fakes import (
    FakeApi,
    json_patch,
    kueue_step,
    later,
    self_signed,
    serving,
    with_resource_version,
    workload_for,
)
from .guardrail_eval import rbac_allows
from .test_kueue import flavor_fits
from .test_llmft import CONFIGS, VALUES, run

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

EXAMPLES = ("04-sft-medical.yaml", "06-grpo-gsm8k.yaml")  # the development-tier GPU jobs: a PyTorchJob and a RayJob


def enabled(env: str) -> EnvironmentConfig:
    """``env``'s config with the controller on: as shipped, or with the setting a platform engineer adds to turn it
    on where the shipped config leaves it off (prod: its idle cost, config/prod.yaml)."""
    if CONFIGS[env].compute.kueue.development_fallback_after is not None:
        return CONFIGS[env]
    return config_with(env, {"compute": {"kueue": {"development_fallback_after": "10m"}}})


def _settings(env: str) -> Settings:
    data = fallback.fallback_settings(enabled(env))
    assert data is not None, env
    return Settings.from_json(json.loads(json.dumps(data)))


def _job(example: str, env: str) -> dict:
    result = run(load_spec(ROOT / "examples/jobs" / example), env)
    assert result.ok and result.plan.spec.tier == fallback.TIER, result.report()
    return with_resource_version(result.plan.manifests[-1])


def _queue(settings: Settings, job: dict):
    return next(q for q in settings.queues if q.namespace == job["metadata"]["namespace"])


def _reserved(queue, job: dict) -> str | None:
    """The reserved flavor the job's pods match (where Kueue may admit it), None when none does (then Kueue never
    admits it on reserved capacity, and there is nothing to fall back from)."""
    specs = [t["spec"] for _, t in gpu_templates(job)]
    fits = [
        f.name
        for f in queue.flavors
        if f.reserved and all(flavor_fits(s, {"spec": {"nodeLabels": f.node_labels}}) for s in specs)
    ]
    return fits[0] if fits else None


CASES = [
    (env, example)
    for example in EXAMPLES
    for env in ENVIRONMENTS
    if _reserved(_queue(_settings(env), _job(example, env)), _job(example, env))
]
"""(environment, example) where the development job can be admitted on reserved capacity."""


def test_every_example_job_can_wait_on_reserved_somewhere() -> None:
    assert {example for _, example in CASES} == set(EXAMPLES)


def _has_burst(job: dict, queue, settings: Settings) -> bool:
    return bool(burst_flavors(job, queue, settings.exclude))


# ---- the decisions ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("env", "example"), CASES)
def test_the_workloads_are_what_kueue_writes(env: str, example: str) -> None:
    settings = _settings(env)
    job = _job(example, env)
    queue = _queue(settings, job)
    for ready in ("WaitForStart", "WaitForRecovery", "Started"):
        wl = workload_for(job, queue, _reserved(queue, job), admitted_at=later(0), ready=ready)
        assert validate(wl, CONFIGS[env].compute.kubernetes_version) == []


@pytest.mark.parametrize(("env", "example"), CASES)
def test_a_job_waiting_on_reserved_longer_than_the_setting_moves(env: str, example: str) -> None:
    settings = _settings(env)
    job = _job(example, env)
    queue = _queue(settings, job)
    flavor = _reserved(queue, job)
    after = duration_seconds(enabled(env).compute.kueue.development_fallback_after)
    assert settings.after_seconds == after
    wl = workload_for(job, queue, flavor, admitted_at=later(0), ready="WaitForStart")
    assert decide(wl, job, queue, settings, later(after / 60)).action == "none"  # not longer than the setting
    late = decide(wl, job, queue, settings, later(after / 60 + 1))
    if _has_burst(job, queue, settings):
        assert (late.action, late.flavor) == ("deactivate", flavor)
    else:  # pinned to a card the tier's burst pools lack (dev: an A10G job, the pool is H100): left alone, logged
        assert late.action == "none" and "left alone" in late.reason
    for ready in ("WaitForRecovery", "Started"):  # ran once: recoveryTimeout's, not the fall-back's
        other = workload_for(job, queue, flavor, admitted_at=later(0), ready=ready)
        assert decide(other, job, queue, settings, later(60)).action == "none"


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_only_reserved_admissions_of_development_queues_are_moved(env: str) -> None:
    settings = _settings(env)
    job = _job(EXAMPLES[0], env)
    queue = _queue(settings, job)
    burst = next(f.name for f in queue.flavors if not f.reserved)
    on_burst = workload_for(job, queue, burst, admitted_at=later(0), ready="WaitForStart")
    assert decide(on_burst, job, queue, settings, later(60)).action == "none"
    elsewhere = workload_for(job, queue, _reserved(queue, job), admitted_at=later(0), ready="WaitForStart")
    elsewhere["status"]["admission"]["clusterQueue"] = elsewhere["spec"]["queueName"] = "research"
    assert decide(elsewhere, job, queue, settings, later(60)).action == "none"
    assert not queue.holds(elsewhere)


# ---- the whole move over HTTP ----------------------------------------------------------------------------------------
def _setup(env: str, example: str, job: dict | None = None) -> tuple[FakeApi, str, str]:
    """A fake API server holding ``job`` (default: the example as llmft renders it) and its Workload, admitted on
    reserved capacity and waiting for its pods since ``later(0)``; returns the server and the Workload's and job's
    paths."""
    settings = _settings(env)
    job = job or _job(example, env)
    queue = _queue(settings, job)
    wl = workload_for(job, queue, _reserved(queue, _job(example, env)), admitted_at=later(0), ready="WaitForStart")
    ref = wl["metadata"]["ownerReferences"][0]
    api = FakeApi()
    job_path = controller.job_path(queue.namespace, ref)
    wl_path = controller.WORKLOADS.format(ns=queue.namespace) + "/" + wl["metadata"]["name"]
    api.put(job_path, job)
    api.put(wl_path, wl)
    return api, wl_path, job_path


def _run(env: str, api: FakeApi, kueue: list[tuple[str, str]], minutes: float, api_class=controller.Api) -> list[str]:
    """One controller run at ``later(minutes)`` against ``api``, Kueue reconciling the (Workload, job) paths of
    ``kueue`` between its passes; returns its log."""
    settings = _settings(env)
    log: list[str] = []

    def kueue_reacts(_seconds: float) -> None:
        for wl_path, job_path in kueue:
            queue = _queue(settings, api.objects[job_path])
            kueue_step(api, wl_path, job_path, queue, later(minutes))

    with serving(api) as base:
        controller.run(
            api_class(base, "test-token", None),
            settings,
            passes=6,
            interval=8,
            clock=lambda: later(minutes),
            sleep=kueue_reacts,
            log=log.append,
        )
    return log


def _move(env: str, example: str) -> tuple[FakeApi, str, str, list[str]]:
    """A job stuck on reserved, the controller run against the fake API server with Kueue reacting between its
    passes; returns the server, the Workload's and the job's paths, and the controller's log."""
    api, wl_path, job_path = _setup(env, example)
    return api, wl_path, job_path, _run(env, api, [(wl_path, job_path)], 30)


@pytest.mark.parametrize(("env", "example"), CASES)
def test_the_move_over_http_lands_on_a_burst_flavor(env: str, example: str) -> None:
    settings = _settings(env)
    original = _job(example, env)
    queue = _queue(settings, original)
    api, wl_path, job_path, log = _move(env, example)
    job, wl = api.objects[job_path], api.objects[wl_path]
    if not _has_burst(original, queue, settings):
        assert job == original and [r[0] for r in api.requests if r[0] != "GET"] == [] and "left alone" in log[0]
        return
    left = _reserved(queue, original)
    assert job["metadata"]["annotations"][ANNOTATION] == left
    assert wl["spec"]["active"] is True
    # the Workload was marked in the patch that deactivated it and unmarked in the one that reactivated it
    patches = [r[3] for r in api.requests if r[:2] == ("PATCH", wl_path)]
    assert [(p["spec"]["active"], p["metadata"]["annotations"]) for p in patches] == [
        (False, {MARK: left}),
        (True, {MARK: None}),
    ]
    assert all(p["metadata"]["resourceVersion"] for p in patches)
    assert MARK not in wl["metadata"].get("annotations", {})
    flavor = wl["status"]["admission"]["podSetAssignments"]
    assigned = {a["flavors"]["nvidia.com/gpu"] for a in flavor if "flavors" in a}
    reserved = {f.name for f in queue.flavors if f.reserved}
    assert assigned and not assigned & reserved, assigned
    # the moved job's GPU pods match no reserved flavor and every burst flavor of the tier they matched before
    for _, template in gpu_templates(job):
        for f in queue.flavors:
            fits = flavor_fits(template["spec"], {"spec": {"nodeLabels": f.node_labels}})
            if f.reserved:
                assert not fits, f.name
            elif f.name in burst_flavors(original, queue, settings.exclude):
                assert fits, f.name
    # nothing but the affinity of the GPU pod templates and the annotation changed
    restored = copy.deepcopy(job)
    for pointer, template in gpu_templates(original):
        node = restored
        for key in pointer.strip("/").split("/"):
            node = node[int(key)] if isinstance(node, list) else node[key]
        node["spec"]["affinity"] = template["spec"]["affinity"]
    del restored["metadata"]["annotations"][ANNOTATION]
    if not restored["metadata"]["annotations"] and "annotations" not in original["metadata"]:
        del restored["metadata"]["annotations"]
    for doc in (restored, original):
        doc["metadata"].pop("resourceVersion")
        doc["spec"].get("runPolicy", doc["spec"]).pop("suspend", None)
    assert restored == original
    assert validate(job, CONFIGS[env].compute.kubernetes_version) == []
    assert validate(wl, CONFIGS[env].compute.kubernetes_version) == []


@pytest.mark.parametrize(("env", "example"), CASES)
def test_a_moved_job_is_left_alone(env: str, example: str) -> None:
    """A second run, with the moved job stuck on its burst flavor as long as it was on reserved: no change."""
    api, wl_path, job_path, _ = _move(env, example)
    settings = _settings(env)
    wl = api.objects[wl_path]
    for c in wl["status"]["conditions"]:
        c["lastTransitionTime"] = "2026-01-05T09:00:00Z"
    wl["status"]["conditions"] = [c for c in wl["status"]["conditions"] if c["type"] != "PodsReady"]
    before, api.requests[:] = copy.deepcopy(api.objects), []
    with serving(api) as base:
        steps = controller.run(
            controller.Api(base, "test-token", None),
            settings,
            passes=3,
            interval=8,
            clock=lambda: later(600),
            sleep=lambda _s: None,
            log=[].append,
        )
    assert steps == 0 and api.objects == before
    assert {r[0] for r in api.requests} == {"GET"}


# ---- deactivated by someone else: never reactivated (security review M1) ------------------------------------------
def _team_moved(job: dict, env: str) -> dict:
    """``job`` as a team could submit or patch it itself: the fall-back's annotation and exclusion, written by the
    team (its Role has every verb on its jobs)."""
    annotated = json_patch(job, controller._annotation_ops(job, "gpu-workers"))
    return json_patch(annotated, controller._exclusion_ops(annotated, _settings(env)))


def _deactivate(api: FakeApi, wl_path: str, job_path: str, env: str, reason: str) -> None:
    """Someone other than the controller sets ``spec.active: false`` (no mark); Kueue evicts, suspends the job and
    updates the Workload's pod sets to the job's."""
    queue = _queue(_settings(env), api.objects[job_path])
    with api.lock:
        api.objects[wl_path]["spec"]["active"] = False
    for _ in range(2):
        kueue_step(api, wl_path, job_path, queue, later(40))
    conditions = api.objects[wl_path]["status"]["conditions"]
    next(c for c in conditions if c["type"] == "Evicted")["reason"] = reason


DEACTIVATED_BY = {
    # Kueue's requeuing limit, after a real move (the job keeps the annotation and the exclusion for good)
    "Kueue's requeue limit, after a move": ("moved", "InactiveWorkloadRequeuingLimitExceeded"),
    "an administrator, before any move": ("rendered", "Deactivated"),
    "an administrator, the team wrote the annotation and exclusion": ("team", "Deactivated"),
    "Kueue's requeue limit, the team wrote only the annotation": (
        "annotated",
        "InactiveWorkloadRequeuingLimitExceeded",
    ),
}


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_only_the_controller_may_write_workloads_in_team_namespaces(env: str) -> None:
    """Why the mark is out of a team's reach: of every subject bound in the team namespaces chart (the team groups,
    the pipelines' ServiceAccount, ...), only the controller's may change a Workload (the team Role reads Workloads,
    k8s_charts/team_namespaces.py ``team_member_rules``)."""
    docs = _chart(env)
    bindings = [d for d in docs if d["kind"] in ("RoleBinding", "ClusterRoleBinding")]
    subjects = {
        (s["kind"], s["name"] if s["kind"] != "ServiceAccount" else f"{s['namespace']}/{s['name']}")
        for b in bindings
        for s in b.get("subjects", [])
    }
    controller_sa = ("ServiceAccount", f"{fallback.serving.PROMOTION_NAMESPACE}/{fallback.SERVICE_ACCOUNT}")
    assert controller_sa in subjects and any(kind == "Group" for kind, _ in subjects)
    for team in enabled(env).kubernetes.teams:
        for verb in ("create", "update", "patch", "delete", "deletecollection"):
            writers = {
                s for s in subjects if rbac_allows(docs, {s}, verb, "kueue.x-k8s.io", "workloads", team.namespace)
            }
            expected = {controller_sa} if verb == "patch" and fallback.TIER in team.allowed_tiers else set()
            assert writers == expected, (team.name, verb, writers)


@pytest.mark.parametrize(("env", "example"), CASES)
@pytest.mark.parametrize("row", sorted(DEACTIVATED_BY))
def test_a_workload_deactivated_by_anyone_else_is_never_reactivated(env: str, example: str, row: str) -> None:
    job_state, reason = DEACTIVATED_BY[row]
    rendered = _job(example, env)
    if job_state == "moved":
        if not _has_burst(rendered, _queue(_settings(env), rendered), _settings(env)):
            pytest.skip("no burst flavor: the job is never moved")
        api, wl_path, job_path, _ = _move(env, example)
    else:
        job = {
            "rendered": rendered,
            "team": _team_moved(rendered, env),
            "annotated": json_patch(rendered, controller._annotation_ops(rendered, "gpu-workers")),
        }[job_state]
        api, wl_path, job_path = _setup(env, example, job)
    _deactivate(api, wl_path, job_path, env, reason)
    assert MARK not in api.objects[wl_path]["metadata"].get("annotations", {})
    before, api.requests[:] = copy.deepcopy(api.objects), []
    for minutes in (41, 120, 600):  # runs long after: still left as it is
        _run(env, api, [(wl_path, job_path)], minutes)
    assert {r[0] for r in api.requests} == {"GET"}
    assert api.objects[wl_path]["spec"]["active"] is False
    assert api.objects[job_path] == before[job_path]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_a_marked_workload_someone_else_reactivated_is_unmarked(env: str) -> None:
    """An administrator reactivates a Workload in the middle of a move, and its pods start: the controller drops its
    mark (so a later deactivation by anyone else is not taken for its move), and touches nothing else."""
    settings = _settings(env)
    job = _job(EXAMPLES[0], env)
    queue = _queue(settings, job)
    wl = workload_for(job, queue, _reserved(queue, job), admitted_at=later(0), ready="Started")
    wl["metadata"]["annotations"] = {MARK: "gpu-workers"}
    decision = decide(wl, job, queue, settings, later(30))
    assert decision.action == "unmark"
    assert controller.workload_patch(decision, wl) == {
        "metadata": {"resourceVersion": "1", "annotations": {MARK: None}}
    }
    del wl["metadata"]["annotations"]
    assert decide(wl, job, queue, settings, later(30)).action == "none"
    # over HTTP, also while it waits in the queue (reactivated, not admitted yet): only the mark goes
    api, wl_path, job_path = _setup(env, EXAMPLES[0])
    stored = api.objects[wl_path]
    stored["metadata"]["annotations"] = {MARK: "gpu-workers", "kueue.x-k8s.io/other": "kept"}
    del stored["status"]["admission"]
    before = copy.deepcopy(api.objects)
    _run(env, api, [], 30)
    assert [r[:2] for r in api.requests if r[0] != "GET"] == [("PATCH", wl_path)]
    after = api.objects[wl_path]
    assert after["metadata"]["annotations"] == {"kueue.x-k8s.io/other": "kept"}
    after["metadata"]["annotations"] = before[wl_path]["metadata"]["annotations"]
    after["metadata"]["resourceVersion"] = "1"
    assert api.objects == before


# ---- one bad Workload does not stop the pass (security review L3) ---------------------------------------------------
class _Failing(controller.Api):
    """The API, except that any request for the job named ``broken`` fails with :attr:`error`."""

    error: Exception = TimeoutError("timed out")

    def call(self, method: str, path: str, body=None, content_type: str = "application/json"):
        if path.endswith("/broken"):
            raise self.error
        return super().call(method, path, body, content_type)


def _malformed(job: dict) -> dict:
    """``job`` named ``broken`` without the pod template of its first GPU replica spec (the CRD allows it)."""
    out = copy.deepcopy(job)
    out["metadata"]["name"] = "broken"
    pointer, _ = gpu_templates(job)[0]
    *parents, last = pointer.strip("/").split("/")
    node = out
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    del node[last]
    return out


FAILURES = {
    "a malformed job (KeyError)": None,
    "a timeout": TimeoutError("timed out"),
    "a connection refused": urllib.error.URLError(ConnectionRefusedError(111, "Connection refused")),
    "a response that is not JSON": ValueError("Expecting value: line 1 column 1 (char 0)"),
}


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("example", EXAMPLES)
def test_one_bad_workload_does_not_stop_the_others(example: str, failure: str) -> None:
    env = next(
        e for e, x in CASES if x == example and _has_burst(_job(x, e), _queue(_settings(e), _job(x, e)), _settings(e))
    )
    api, wl_path, job_path = _setup(env, example)
    good = api.objects[job_path]
    bad = (
        _malformed(good)
        if FAILURES[failure] is None
        else {**copy.deepcopy(good), "metadata": {**good["metadata"], "name": "broken"}}
    )
    bad_wl = copy.deepcopy(api.objects[wl_path])
    bad_wl["metadata"]["name"] = "a-broken"  # listed first
    bad_wl["metadata"]["ownerReferences"][0]["name"] = "broken"
    bad_job_path = controller.job_path(good["metadata"]["namespace"], {**bad_wl["metadata"]["ownerReferences"][0]})
    bad_wl_path = wl_path.rsplit("/", 1)[0] + "/a-broken"
    api.put(bad_job_path, bad)
    api.put(bad_wl_path, bad_wl)
    failing = type("Failing", (_Failing,), {"error": FAILURES[failure] or KeyError("never raised")})
    api_class = controller.Api if FAILURES[failure] is None else failing
    log = _run(env, api, [(wl_path, job_path)], 30, api_class)
    wl = api.objects[wl_path]
    assigned = {
        a["flavors"]["nvidia.com/gpu"] for a in wl["status"]["admission"]["podSetAssignments"] if "flavors" in a
    }
    assert wl["spec"]["active"] is True and not assigned & {
        f.name for f in _queue(_settings(env), good).flavors if f.reserved
    }
    assert api.objects[bad_wl_path] == bad_wl and api.objects[bad_job_path] == bad
    namespace = good["metadata"]["namespace"]
    assert any(line.startswith(f"{namespace}/a-broken: skipped (") for line in log), log


@pytest.mark.parametrize("example", EXAMPLES)
def test_the_role_grants_exactly_the_requests_the_controller_makes(example: str) -> None:
    env = next(
        e for e in ENVIRONMENTS if _has_burst(_job(example, e), _queue(_settings(e), _job(example, e)), _settings(e))
    )
    api, *_ = _move(env, example)
    docs = _chart(env)
    namespace = _job(example, env)["metadata"]["namespace"]
    subject = {("ServiceAccount", f"{fallback.serving.PROMOTION_NAMESPACE}/{fallback.SERVICE_ACCOUNT}")}
    used = set()
    for method, path, _, _ in api.requests:
        parts = path.strip("/").split("/")  # apis/<group>/<version>/namespaces/<ns>/<resource>[/<name>]
        verb = {"GET": "get" if len(parts) == 7 else "list", "PATCH": "patch"}[method]
        used.add((verb, parts[1], parts[5]))
    granted = {
        (verb, group, resource)
        for rule in fallback.fallback_rules()
        for group in rule.api_groups
        for resource in rule.resources
        for verb in rule.verbs
    }
    assert used <= granted
    for verb, group, resource in granted:
        assert rbac_allows(docs, subject, verb, group, resource, namespace)
    for verb in ("create", "delete", "update", "watch"):
        assert not any(rbac_allows(docs, subject, verb, g, r, namespace) for _, g, r in granted), verb
    assert not rbac_allows(docs, subject, "get", "", "secrets", namespace)
    kinds = {r for _, _, r in granted} - {"workloads"}
    assert kinds == {"pytorchjobs", "rayjobs"}


def test_in_the_cluster_it_calls_over_https_with_the_pods_token_and_ca(tmp_path, monkeypatch) -> None:
    """``Api.in_cluster``: the API server's address from the pod's environment, the ServiceAccount's token as the
    bearer, TLS verified against the mounted CA (a server whose certificate that CA did not sign is refused)."""
    import ssl
    import urllib.error

    crt, key = self_signed(tmp_path)
    account = tmp_path / "serviceaccount"
    account.mkdir()
    (account / "token").write_text("test-token\n")
    (account / "ca.crt").write_bytes(crt.read_bytes())
    monkeypatch.setattr(controller, "SERVICE_ACCOUNT", str(account))
    api = FakeApi()
    path = controller.WORKLOADS.format(ns="ml-research")
    with serving(api, tls=(crt, key)) as base:
        monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
        monkeypatch.setenv("KUBERNETES_SERVICE_PORT", base.rsplit(":", 1)[1])
        assert controller.Api.in_cluster().call("GET", path) == {"items": []}
        other = tmp_path / "other"
        other.mkdir()
        (account / "ca.crt").write_bytes(self_signed(other)[0].read_bytes())
        with pytest.raises(urllib.error.URLError) as refused:
            controller.Api.in_cluster().call("GET", path)
        assert isinstance(refused.value.reason, ssl.SSLCertVerificationError)
    assert [r[:2] for r in api.requests] == [("GET", path)]


# ---- the CronJob and its objects -------------------------------------------------------------------------------------
def _chart(env: str) -> list[dict]:
    config = enabled(env)
    chart = TeamNamespacesChart(
        cdk8s.App(),
        "team-namespaces",
        teams=config.kubernetes.teams,
        values=VALUES[env],
        fallback=fallback.fallback_settings(config),
    )
    return chart.to_json()


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_the_cron_job_is_rendered_and_valid(env: str) -> None:
    config = enabled(env)
    docs = _chart(env)
    ours = [d for d in docs if d["metadata"].get("name") == fallback.SERVICE_ACCOUNT]
    for doc in ours:
        assert validate(doc, config.compute.kubernetes_version) == [], doc["kind"]
    (cron,) = [d for d in ours if d["kind"] == "CronJob"]
    spec = cron["spec"]
    assert cron["metadata"]["namespace"] == fallback.serving.PROMOTION_NAMESPACE
    assert (spec["schedule"], spec["concurrencyPolicy"]) == ("* * * * *", "Forbid")
    pod = spec["jobTemplate"]["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == fallback.SERVICE_ACCOUNT
    assert pod["nodeSelector"] == {"llmft.io/node-role": "cpu-jobs"}
    (container,) = pod["containers"]
    assert container["image"] == VALUES[env].images[fallback.IMAGE]
    assert container["command"][:3] == ["python", "-m", controller.__name__]
    resources = container["resources"]  # what checkov and the CPU pool's scheduling read
    assert resources["requests"]["cpu"] and resources["requests"]["memory"] and resources["limits"]["memory"]
    security = container["securityContext"]
    assert security["runAsNonRoot"] and not security["allowPrivilegeEscalation"]
    assert security["capabilities"]["drop"] == ["ALL"] and security["seccompProfile"]["type"] == "RuntimeDefault"
    (namespace,) = [
        d for d in docs if d["kind"] == "Namespace" and d["metadata"]["name"] == cron["metadata"]["namespace"]
    ]
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    (settings_map,) = [d for d in ours if d["kind"] == "ConfigMap"]
    settings = Settings.from_json(json.loads(settings_map["data"][fallback.SETTINGS_KEY]))
    teams = [t for t in config.kubernetes.teams if fallback.TIER in t.allowed_tiers]
    assert {q.namespace for q in settings.queues} == {t.namespace for t in teams}
    assert {d["metadata"]["namespace"] for d in ours if d["kind"] == "Role"} == {t.namespace for t in teams}
    for queue in settings.queues:  # the tier's order: reserved first
        kinds = ["reserved" if f.reserved else "burst" for f in queue.flavors]
        assert (
            kinds == sorted(kinds, key=["reserved", "burst"].index)
            and TIER_CAPACITY_ORDER[fallback.TIER][0] == "reserved"
        )


# ---- the setting -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["20m", "25m", "1h", "0m"])
def test_the_fallback_must_act_before_kueues_own_eviction(value: str) -> None:
    config_fails(
        {"compute": {"kueue": {"development_fallback_after": value, "pods_ready_timeout": "20m"}}},
        r"compute\.kueue\.development_fallback_after",
        repr(value),
        r"below compute\.kueue\.pods_ready_timeout '20m'",
        r"use e\.g\. '10m'",
    )


def test_the_fallback_setting_is_a_duration() -> None:
    config_fails(
        {"compute": {"kueue": {"development_fallback_after": "ten minutes"}}},
        r"compute\.kueue\.development_fallback_after 'ten minutes' is not a duration",
    )


@pytest.mark.parametrize(("env", "example"), CASES)
def test_a_job_pinned_to_a_card_without_a_burst_flavor_is_left_alone(env: str, example: str) -> None:
    """The same tier with its burst flavors of another card: the job waits on reserved, and nothing changes."""
    settings = _settings(env)
    job = _job(example, env)
    queue = _queue(settings, job)
    other = [
        f if f.reserved else replace(f, node_labels={**f.node_labels, "gpu-type": "no-such-card"})
        for f in queue.flavors
    ]
    queue = replace(queue, flavors=tuple(other))
    wl = workload_for(job, queue, _reserved(queue, job), admitted_at=later(0), ready="WaitForStart")
    decision = decide(wl, job, queue, replace(settings, queues=(queue,)), later(600))
    assert decision.action == "none" and "left alone" in decision.reason and queue.cluster_queue in decision.reason


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_null_turns_the_controller_off(env: str) -> None:
    """`compute.kueue.development_fallback_after: null`: no settings, so no CronJob, Role or idle CPU node."""
    config = config_with(env, {"compute": {"kueue": {"development_fallback_after": None}}})
    assert fallback.fallback_settings(config) is None
    chart = TeamNamespacesChart(
        cdk8s.App(), "team-namespaces", teams=config.kubernetes.teams, values=VALUES[env], fallback=None
    )
    assert not [d for d in chart.to_json() if d["metadata"].get("name") == fallback.SERVICE_ACCOUNT]
