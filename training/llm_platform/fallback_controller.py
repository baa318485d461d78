"""``python -m llm_platform.fallback_controller --config FILE``: one run of the development fall-back controller
(docs/queueing.md "Fallback when unschedulable", case 2), started every minute by the platform's CronJob
(k8s_charts/fallback.py). The decisions are :mod:`llm_platform.fallback_rules`; this module only talks to the API
server: over HTTPS with the pod's ServiceAccount token and CA (kubernetes.io "Accessing the Kubernetes API from a
Pod"), standard library only, no Kubernetes client.

Requests (and nothing else, the ServiceAccount's Roles grant exactly these): list Workloads
(``kueue.x-k8s.io/v1beta2``) of each development queue's namespace; get the owning PyTorchJob or RayJob; patch the
job (JSON patch guarded by a ``test`` of its resourceVersion: the annotation, then the affinity); patch the Workload's
``spec.active`` with the controller's mark (merge patch carrying its resourceVersion, so a Workload Kueue changed in
between is not overwritten). A Workload or job that cannot be read or moved (an API error, a timeout, a malformed
team object) is logged with its namespace and name and skipped: the others are still moved. A run makes up to
``--passes`` passes, ``--interval`` seconds apart, so one job usually moves within one run; what is left is taken up
by the next run.
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from llm_platform.fallback_rules import (
    ANNOTATION,
    JOB_KINDS,
    MARK,
    Decision,
    Queue,
    Settings,
    decide,
    excluded,
    gpu_templates,
    marked,
    owner,
)

SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"
WORKLOADS = "/apis/kueue.x-k8s.io/v1beta2/namespaces/{ns}/workloads"


class Api:
    """The few API calls the controller makes. ``base``: the API server's URL; ``token``: a bearer token; ``context``:
    the TLS context (None for a plain-HTTP test server)."""

    def __init__(self, base: str, token: str, context: ssl.SSLContext | None) -> None:
        self.base, self.token, self.context = base.rstrip("/"), token, context

    @classmethod
    def in_cluster(cls) -> Api:
        host, port = os.environ["KUBERNETES_SERVICE_HOST"], os.environ["KUBERNETES_SERVICE_PORT"]
        with open(f"{SERVICE_ACCOUNT}/token", encoding="utf-8") as f:
            token = f.read().strip()
        host = f"[{host}]" if ":" in host else host
        return cls(f"https://{host}:{port}", token, ssl.create_default_context(cafile=f"{SERVICE_ACCOUNT}/ca.crt"))

    def call(self, method: str, path: str, body: Any = None, content_type: str = "application/json") -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", content_type)
        with urllib.request.urlopen(request, context=self.context, timeout=20) as response:  # noqa: S310 - our URL
            return json.loads(response.read() or b"{}")


def job_path(namespace: str, ref: dict[str, Any]) -> str:
    group, version, resource = JOB_KINDS[ref["kind"]]
    return f"/apis/{group}/{version}/namespaces/{namespace}/{resource}/{ref['name']}"


def _annotation_ops(job: dict[str, Any], flavor: str) -> list[dict[str, Any]]:
    if "annotations" not in job["metadata"]:
        return [{"op": "add", "path": "/metadata/annotations", "value": {ANNOTATION: flavor}}]
    return [
        {
            "op": "add",
            "path": "/metadata/annotations/" + ANNOTATION.replace("~", "~0").replace("/", "~1"),
            "value": flavor,
        }
    ]


def _exclusion_ops(job: dict[str, Any], settings: Settings) -> list[dict[str, Any]]:
    ops = []
    for pointer, template in gpu_templates(job):
        affinity = excluded(template.get("spec", {}), settings.exclude)
        if affinity is not None:
            ops.append({"op": "add", "path": f"{pointer}/spec/affinity", "value": affinity})
    return ops


def workload_patch(decision: Decision, workload: dict[str, Any]) -> dict[str, Any] | None:
    """The merge patch of ``decision`` on the Workload, carrying its resourceVersion (a Workload Kueue changed in
    between is not overwritten): ``spec.active`` and the controller's mark (:data:`MARK`) together, so the mark is on
    exactly the Workloads the controller deactivated; None when the decision does not touch the Workload."""
    mark = {"deactivate": decision.flavor or "", "reactivate": None, "unmark": None}
    if decision.action not in mark:
        return None
    meta = {"resourceVersion": workload["metadata"]["resourceVersion"], "annotations": {MARK: mark[decision.action]}}
    if decision.action == "unmark":
        return {"metadata": meta}
    return {"metadata": meta, "spec": {"active": decision.action == "reactivate"}}


def act(
    api: Api, decision: Decision, workload: dict[str, Any], job: dict[str, Any], path: str, settings: Settings
) -> None:
    """Carry out ``decision`` on ``workload`` and its ``job`` (at API ``path``)."""
    meta = workload["metadata"]
    wl_path = WORKLOADS.format(ns=meta["namespace"]) + "/" + meta["name"]
    guard = [{"op": "test", "path": "/metadata/resourceVersion", "value": job["metadata"]["resourceVersion"]}]
    patch = "application/json-patch+json"
    if decision.action == "deactivate":
        api.call("PATCH", path, guard + _annotation_ops(job, decision.flavor or ""), patch)
    if decision.action == "exclude":
        api.call("PATCH", path, guard + _exclusion_ops(job, settings), patch)
    body = workload_patch(decision, workload)
    if body is not None:
        api.call("PATCH", wl_path, body, "application/merge-patch+json")


SKIPPED = (OSError, KeyError, IndexError, TypeError, ValueError, AttributeError)
"""What one Workload's or namespace's handling may raise without stopping the pass: ``OSError`` covers the API's
``HTTPError``/``URLError`` and timeouts, the others a malformed object (a team's job is whatever its CRD admits, e.g. a
PyTorchJob replica spec without ``template``; ``ValueError`` also a response that is not JSON)."""


def _name(namespace: str, obj: Any) -> str:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return f"{namespace}/{meta.get('name', '?') if isinstance(meta, dict) else '?'}"


def run_pass(api: Api, settings: Settings, now: datetime, log: Callable[[str], None]) -> int:
    """One look at every development queue's Workloads; returns how many steps it took. A namespace that cannot be
    listed or a Workload that cannot be handled is logged and skipped; the rest of the pass goes on."""
    steps = 0
    for queue in settings.queues:
        try:
            workloads = api.call("GET", WORKLOADS.format(ns=queue.namespace)).get("items", [])
        except SKIPPED as error:
            log(f"{queue.namespace}: Workloads not listed ({type(error).__name__}: {error}); skipped this pass")
            continue
        for workload in workloads:
            try:
                steps += _one(api, queue, workload, settings, now, log)
            except SKIPPED as error:
                log(f"{_name(queue.namespace, workload)}: skipped ({type(error).__name__}: {error})")
    return steps


def _one(
    api: Api, queue: Queue, workload: dict[str, Any], settings: Settings, now: datetime, log: Callable[[str], None]
) -> int:
    name = f"{queue.namespace}/{workload['metadata']['name']}"
    admitted = (workload.get("status", {}).get("admission") or {}).get("clusterQueue") == queue.cluster_queue
    inactive = workload.get("spec", {}).get("active", True) is False
    if not queue.holds(workload) or not (admitted or inactive or marked(workload)):
        return 0  # another tier's, or pending and not marked: not the controller's to touch
    ref = owner(workload)
    if ref is None:
        log(f"{name}: owned by no PyTorchJob or RayJob: left alone")
        return 0
    path = job_path(queue.namespace, ref)
    try:
        job = api.call("GET", path)
    except urllib.error.HTTPError as error:
        log(f"{name}: {ref['kind']} {ref['name']}: {error.code}")
        return 0
    decision = decide(workload, job, queue, settings, now)
    if decision.action == "none":
        if "left alone" in decision.reason:
            log(f"{name} ({ref['kind']} {ref['name']}): {decision.reason}")
        return 0
    log(f"{name} ({ref['kind']} {ref['name']}): {decision.action}: {decision.reason}")
    try:
        act(api, decision, workload, job, path, settings)
    except urllib.error.HTTPError as error:  # 409/422: changed in between; the next pass reads it again
        log(f"{name}: {decision.action} not applied ({error.code}); retried next pass")
        return 0
    return 1


def run(
    api: Api,
    settings: Settings,
    *,
    passes: int,
    interval: float,
    clock: Callable[[], datetime],
    sleep: Callable[[float], None],
    log: Callable[[str], None],
) -> int:
    """Up to ``passes`` passes, ``interval`` seconds apart, until one takes no step; the steps taken."""
    total = 0
    for i in range(passes):
        steps = run_pass(api, settings, clock(), log)
        total += steps
        if steps == 0:
            break
        if i + 1 < passes:
            sleep(interval)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", required=True, help="the controller's JSON settings (k8s_charts/fallback.py)")
    parser.add_argument("--passes", type=int, default=4)
    parser.add_argument("--interval", type=float, default=8.0)
    args = parser.parse_args(argv)
    with open(args.config, encoding="utf-8") as f:
        settings = Settings.from_json(json.load(f))
    steps = run(
        Api.in_cluster(),
        settings,
        passes=args.passes,
        interval=args.interval,
        clock=lambda: datetime.now(timezone.utc),
        sleep=time.sleep,
        log=lambda line: print(line, flush=True),
    )
    print(f"{steps} step(s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
