"""Fakes for the development fall-back controller's tests (tests/test_fallback_controller.py): Workload objects as
Kueue v0.19.2 writes them for a rendered job, a fake API server on 127.0.0.1 that records every request and applies
merge and JSON patches, and a small Kueue that reacts to the controller's changes as
pkg/controller/jobframework/reconciler.go does (evict and suspend on deactivation, update the suspended job's Workload
in place, admit on the first flavor the pods match)."""

from __future__ import annotations

import copy
import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from llm_platform.fallback_rules import JOB_KINDS, Queue, gpu_templates

from .test_kueue import flavor_fits

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


def stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _condition(kind: str, status: str, reason: str, at: datetime) -> dict[str, Any]:
    return {"type": kind, "status": status, "reason": reason, "message": reason, "lastTransitionTime": stamp(at)}


def _pod_sets(job: dict[str, Any]) -> list[dict[str, Any]]:
    """Kueue's pod sets of ``job``: PyTorchJob replica types lower-cased; a RayJob's head, worker groups and
    submitter (v0.19.2 pkg/controller/jobs/kubeflow, pkg/controller/jobs/rayjob ``PodSets``)."""
    spec = job["spec"]
    if job["kind"] == "PyTorchJob":
        found = [(k.lower(), r.get("replicas", 1), r["template"]) for k, r in spec["pytorchReplicaSpecs"].items()]
    else:
        ray = spec["rayClusterSpec"]
        found = [("head", 1, ray["headGroupSpec"]["template"])]
        found += [(g["groupName"], g.get("replicas", 1), g["template"]) for g in ray.get("workerGroupSpecs", [])]
        if "submitterPodTemplate" in spec:
            found.append(("submitter", 1, spec["submitterPodTemplate"]))
    return [{"name": n, "count": c, "template": copy.deepcopy(t)} for n, c, t in found]


def _has_gpus(template: dict[str, Any]) -> bool:
    return any("nvidia.com/gpu" in c.get("resources", {}).get("requests", {}) for c in template["spec"]["containers"])


def _assignments(sets: list[dict[str, Any]], flavor: str) -> list[dict[str, Any]]:
    """Kueue's podSetAssignments: the GPU flavor for the pod sets that request GPUs (only GPUs are quota-managed)."""
    return [
        {
            "name": p["name"],
            "count": p["count"],
            **({"flavors": {"nvidia.com/gpu": flavor}} if _has_gpus(p["template"]) else {}),
        }
        for p in sets
    ]


def workload_for(
    job: dict[str, Any], queue: Queue, flavor: str, *, admitted_at: datetime, ready: str
) -> dict[str, Any]:
    """The Workload of ``job`` admitted on ``flavor`` at ``admitted_at``; ``ready``: the PodsReady reason
    (``WaitForStart``, ``WaitForRecovery`` or ``Started``, which is True)."""
    group, version, _ = JOB_KINDS[job["kind"]]
    sets = _pod_sets(job)
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": f"{job['kind'].lower()}-{job['metadata']['name']}-1a2b3",
            "namespace": job["metadata"]["namespace"],
            "resourceVersion": "1",
            "ownerReferences": [
                {
                    "apiVersion": f"{group}/{version}",
                    "kind": job["kind"],
                    "name": job["metadata"]["name"],
                    "uid": "0b1c2d3e-job",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {"active": True, "queueName": queue.local_queue, "podSets": sets},
        "status": {
            "admission": {"clusterQueue": queue.cluster_queue, "podSetAssignments": _assignments(sets, flavor)},
            "conditions": [
                _condition("QuotaReserved", "True", "QuotaReserved", admitted_at),
                _condition("Admitted", "True", "Admitted", admitted_at),
                _condition("PodsReady", "True" if ready == "Started" else "False", ready, admitted_at),
            ],
        },
    }


def with_resource_version(job: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(job)
    out["metadata"]["resourceVersion"] = "1"
    return out


# ---- the fake API server ---------------------------------------------------------------------------------------------


def _pointer(path: str) -> list[str]:
    return [p.replace("~1", "/").replace("~0", "~") for p in path.lstrip("/").split("/")]


def json_patch(doc: dict[str, Any], ops: list[dict[str, Any]]) -> dict[str, Any]:
    """RFC 6902 ``add``/``replace``/``test`` on object keys and list indexes; ValueError when a test fails."""
    out = copy.deepcopy(doc)
    for op in ops:
        *parents, last = _pointer(op["path"])
        node: Any = out
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        key: Any = int(last) if isinstance(node, list) else last
        if op["op"] == "test":
            if node[key] != op["value"]:
                raise ValueError(op["path"])
        elif op["op"] in ("add", "replace"):
            node[key] = copy.deepcopy(op["value"])
        else:
            raise ValueError(op["op"])
    return out


def merge_patch(doc: Any, patch: Any) -> Any:
    """RFC 7386."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(doc) if isinstance(doc, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


class FakeApi:
    """Objects by API path; ``requests``: (method, path, content type, body) of every request."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}
        self.requests: list[tuple[str, str, str, Any]] = []
        self.lock = threading.Lock()

    def put(self, path: str, obj: dict[str, Any]) -> None:
        self.objects[path] = obj

    def handle(self, method: str, path: str, content_type: str, body: Any) -> tuple[int, Any]:
        with self.lock:
            self.requests.append((method, path, content_type, body))
            if method == "GET" and path in self.objects:
                return 200, self.objects[path]
            if method == "GET":
                items = [o for p, o in sorted(self.objects.items()) if p.rsplit("/", 1)[0] == path]
                return (200, {"items": items}) if items or path.endswith("s") else (404, {})
            if method != "PATCH" or path not in self.objects:
                return 405, {}
            old = self.objects[path]
            try:
                if content_type == "application/json-patch+json":
                    new = json_patch(old, body)
                else:
                    wanted = body.get("metadata", {}).get("resourceVersion")
                    if wanted is not None and wanted != old["metadata"]["resourceVersion"]:
                        return 409, {}
                    new = merge_patch(old, body)
            except (ValueError, KeyError, IndexError):
                return 422, {}
            new["metadata"]["resourceVersion"] = str(int(old["metadata"]["resourceVersion"]) + 1)
            self.objects[path] = new
            return 200, new


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 (IP SAN, its own CA) and its key, written to ``directory``."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(T0 - timedelta(days=1))
        .not_valid_after(T0 + timedelta(days=36500))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    crt, pem = directory / "tls.crt", directory / "tls.key"
    crt.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pem.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return crt, pem


@contextmanager
def serving(api: FakeApi, tls: tuple[Path, Path] | None = None) -> Iterator[str]:
    """``api`` behind an HTTP server bound to 127.0.0.1 (an ephemeral port), HTTPS with ``tls`` (certificate, key);
    yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def _reply(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else None
            assert self.headers.get("Authorization") == "Bearer test-token"
            status, payload = api.handle(self.command, self.path, self.headers.get("Content-Type", ""), body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_PATCH = _reply  # noqa: N815 - http.server's names

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*map(str, tls))
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# ---- a small Kueue ---------------------------------------------------------------------------------------------------


def _set_suspend(job: dict[str, Any], value: bool) -> None:
    if job["kind"] == "PyTorchJob":
        job["spec"].setdefault("runPolicy", {})["suspend"] = value
    else:
        job["spec"]["suspend"] = value


def kueue_step(api: FakeApi, wl_path: str, job_path: str, queue: Queue, now: datetime) -> None:
    """One reconcile of Kueue over the Workload and its job, as v0.19.2 does it."""
    with api.lock:
        wl, job = api.objects[wl_path], api.objects[job_path]
        active = wl["spec"].get("active", True)
        conditions = {c["type"]: c for c in wl["status"]["conditions"]}
        if not active and wl["status"].get("admission"):  # evicted (Deactivated), job stopped, admission cleared
            _set_suspend(job, True)
            del wl["status"]["admission"]
            conditions["QuotaReserved"] = _condition("QuotaReserved", "False", "Pending", now)
            conditions["Admitted"] = _condition("Admitted", "False", "NoReservation", now)
            conditions["Evicted"] = _condition("Evicted", "True", "Deactivated", now)
        elif not active and _pod_sets(job) != wl["spec"]["podSets"]:  # updateWorkloadToMatchJob, active kept
            wl["spec"]["podSets"] = _pod_sets(job)
        elif active and not wl["status"].get("admission"):  # admitted on the first flavor every GPU pod set matches
            specs = [t["spec"] for _, t in gpu_templates(job)]
            flavor = next(
                f for f in queue.flavors if all(flavor_fits(s, {"spec": {"nodeLabels": f.node_labels}}) for s in specs)
            )
            assignments = _assignments(wl["spec"]["podSets"], flavor.name)
            wl["status"]["admission"] = {"clusterQueue": queue.cluster_queue, "podSetAssignments": assignments}
            conditions["QuotaReserved"] = _condition("QuotaReserved", "True", "QuotaReserved", now)
            conditions["Admitted"] = _condition("Admitted", "True", "Admitted", now)
            conditions.pop("Evicted", None)
            _set_suspend(job, False)
        wl["status"]["conditions"] = list(conditions.values())
        for obj in (wl, job):
            obj["metadata"]["resourceVersion"] = str(int(obj["metadata"]["resourceVersion"]) + 1)


def later(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)
