"""The cluster, through `kubectl` (the Studio lifecycle configuration installs a pinned one and sets the context).

Everything here is optional for `render` and `submit --dry-run`: with no cluster those work from the config alone.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any

GPU_QUOTA_KEY = "requests.nvidia.com/gpu"
IMAGES_CONFIG_MAP = "platform-images"  # one key per image name (contract with the images helper)
JOB_KINDS = ("pytorchjobs.kubeflow.org", "rayjobs.ray.io", "mpijobs.kubeflow.org", "jobs.batch")
SERVE_KIND = "deployments.apps"  # a serve job (llmft/serve_build.py): its Service, NetworkPolicy, ScaledObject are
# owned by the Deployment, so they go when it goes


class ClusterError(RuntimeError):
    """kubectl failed; the message carries its stderr."""


class JobExists(ClusterError):
    """A job (or its step ConfigMap) of that name is already in the namespace: llmft never changes a job."""


@dataclass
class Cluster:
    kubectl: str = "kubectl"
    timeout_s: int = 15

    def run(self, *args: str, stdin: str | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        try:
            proc = subprocess.run(
                [self.kubectl, f"--request-timeout={self.timeout_s}s", *args],
                input=stdin,
                capture_output=True,
                text=True,
                timeout=self.timeout_s + 5,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ClusterError(f"kubectl {' '.join(args)}: {exc}") from None
        if check and proc.returncode != 0:
            raise ClusterError(f"kubectl {' '.join(args)} failed: {proc.stderr.strip()}")
        return proc

    @classmethod
    def connect(cls, kubectl: str = "kubectl") -> Cluster | None:
        """A cluster if kubectl exists and the API server answers within a few seconds, else None."""
        if shutil.which(kubectl) is None:
            return None
        cluster = cls(kubectl=kubectl, timeout_s=5)
        try:
            cluster.run("get", "--raw", "/readyz")
        except ClusterError:
            return None
        cluster.timeout_s = 15
        return cluster

    @staticmethod
    def context_namespace(kubectl: str = "kubectl") -> str | None:
        """The namespace of the current kube context (works offline: it only reads the kubeconfig)."""
        if shutil.which(kubectl) is None:
            return None
        proc = subprocess.run(
            [kubectl, "config", "view", "--minify", "-o", "jsonpath={..namespace}"],
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        )
        return proc.stdout.strip() or None if proc.returncode == 0 else None

    def get_json(self, *args: str) -> dict[str, Any]:
        return json.loads(self.run("get", *args, "-o", "json").stdout)

    def gpu_quota(self, namespace: str) -> tuple[int, int] | None:
        """(used, hard) GPUs of the namespace's ResourceQuotas, or None when it has none."""
        items = self.get_json("resourcequota", "-n", namespace).get("items", [])
        pairs = [
            (int(q["status"].get("used", {}).get(GPU_QUOTA_KEY, 0)), int(q["status"]["hard"][GPU_QUOTA_KEY]))
            for q in items
            if GPU_QUOTA_KEY in q.get("status", {}).get("hard", {})
        ]
        return min(pairs, key=lambda p: p[1] - p[0]) if pairs else None

    def platform_images(self, namespace: str) -> dict[str, str]:
        try:
            return self.get_json("configmap", IMAGES_CONFIG_MAP, "-n", namespace).get("data", {})
        except ClusterError:
            return {}

    def create_job(self, config_map: dict[str, Any], job: dict[str, Any]) -> str:
        """Create the job, then its step ConfigMap owned by it; never patch anything.

        `kubectl apply` would change the step file under a running or auto-resumed job of the same name (its pods
        read it at every restart) or report a finished one "unchanged". So: refuse when the name is taken; create
        the job (``kubectl create``, which fails on a name taken in between); then create the ConfigMap, immutable,
        with an ownerReference to the job's uid, so it goes when the job goes. The job's pods wait for the
        ConfigMap volume (the kubelet retries the mount), and a ConfigMap that cannot be created takes the job
        back down."""
        import yaml

        name, namespace = job["metadata"]["name"], job["metadata"]["namespace"]
        taken = self.find(name, namespace) or (
            f"configmap/{config_map['metadata']['name']}"
            if self.exists("configmap", config_map["metadata"]["name"], namespace)
            else None
        )
        if taken:
            raise JobExists(
                f"{taken} already exists in namespace {namespace}; llmft never changes a submitted job. "
                f"Delete it with `llmft cancel {name}` (its checkpoints on /fsx stay) or give the spec a "
                f"new name"
            )
        created = json.loads(self.run("create", "-f", "-", "-o", "json", stdin=yaml.safe_dump(job)).stdout)
        owned = {
            **config_map,
            "immutable": True,
            "metadata": {
                **config_map["metadata"],
                "ownerReferences": [
                    {
                        "apiVersion": job["apiVersion"],
                        "kind": job["kind"],
                        "name": name,
                        "uid": created["metadata"]["uid"],
                        "blockOwnerDeletion": True,
                    }
                ],
            },
        }
        try:
            self.run("create", "-f", "-", stdin=yaml.safe_dump(owned))
        except ClusterError:
            self.run("delete", f"{created['kind'].lower()}/{name}", "-n", namespace, "--ignore-not-found", check=False)
            raise
        return f"{created['kind'].lower()}/{name} created\nconfigmap/{config_map['metadata']['name']} created\n"

    def create_serve(self, manifests: list[dict[str, Any]]) -> str:
        """Create a serve job: the Deployment (refused when the name is taken: llmft never changes a submitted
        job), then its Service, NetworkPolicy and ScaledObject, each owned by the Deployment; if one cannot be
        created the Deployment is deleted again (and its owned objects with it)."""
        import yaml

        deployment, *owned = manifests
        name, namespace = deployment["metadata"]["name"], deployment["metadata"]["namespace"]
        taken = self.find(name, namespace) or next(
            (
                f"{m['kind'].lower()}/{m['metadata']['name']}"
                for m in owned
                if self.exists(m["kind"].lower(), m["metadata"]["name"], namespace)
            ),
            None,
        )
        if taken:
            raise JobExists(
                f"{taken} already exists in namespace {namespace}; llmft never changes a submitted job. "
                f"Delete it with `llmft cancel {name}` or give the spec a new name"
            )
        created = json.loads(self.run("create", "-f", "-", "-o", "json", stdin=yaml.safe_dump(deployment)).stdout)
        owner = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": name,
            "uid": created["metadata"]["uid"],
            "blockOwnerDeletion": True,
        }
        out = f"deployment.apps/{name} created\n"
        for manifest in owned:
            with_owner = {**manifest, "metadata": {**manifest["metadata"], "ownerReferences": [owner]}}
            try:
                self.run("create", "-f", "-", stdin=yaml.safe_dump(with_owner))
            except ClusterError:
                self.run("delete", f"deployment.apps/{name}", "-n", namespace, "--ignore-not-found", check=False)
                raise
            out += f"{manifest['kind'].lower()}/{manifest['metadata']['name']} created\n"
        return out

    def wake(self, name: str, namespace: str, *, timeout_s: int = 1800) -> str | None:
        """Wake a serve job scaled to zero: pin its ScaledObject at one replica (KEDA's paused-replicas annotation,
        k8s_charts.serving.KEDA_PAUSED_REPLICAS, so KEDA does not scale the idle replica straight back to zero),
        scale the Deployment to 1 and wait until the replica is ready. None when it already runs replicas. The
        caller releases the pin with :meth:`release` when it is done."""
        from k8s_charts.serving import KEDA_PAUSED_REPLICAS

        deployment = self.get_json("deployment", name, "-n", namespace)
        if deployment.get("spec", {}).get("replicas", 1) != 0:
            return None
        self.run(
            "annotate", f"scaledobject.keda.sh/{name}", "-n", namespace, f"{KEDA_PAUSED_REPLICAS}=1", "--overwrite"
        )
        try:
            self.run("scale", f"deployment/{name}", "-n", namespace, "--replicas=1")
            waiter = Cluster(kubectl=self.kubectl, timeout_s=timeout_s)
            waiter.run("rollout", "status", f"deployment/{name}", "-n", namespace, f"--timeout={timeout_s}s")
        except (ClusterError, KeyboardInterrupt):
            self.release(name, namespace)  # never leave the endpoint pinned awake
            raise
        return "1 replica ready"

    def release(self, name: str, namespace: str) -> None:
        """Hand a woken serve job back to its autoscaler (remove the paused-replicas pin :meth:`wake` set)."""
        from k8s_charts.serving import KEDA_PAUSED_REPLICAS

        self.run("annotate", f"scaledobject.keda.sh/{name}", "-n", namespace, f"{KEDA_PAUSED_REPLICAS}-", check=False)

    def port_forward(self, name: str, namespace: str, *, local_port: int) -> int:
        """``kubectl port-forward svc/<name> <local_port>:80`` in the foreground, until interrupted."""
        from k8s_charts.serving import SERVICE_PORT

        try:
            return subprocess.call(
                [self.kubectl, "port-forward", f"svc/{name}", f"{local_port}:{SERVICE_PORT}", "-n", namespace]
            )
        except KeyboardInterrupt:
            return 0

    def serve_status(self, name: str, namespace: str) -> str:
        """Ready/desired replicas, the endpoint and the model version of a serve job."""
        from k8s_charts.serving import endpoint_url

        d = self.get_json("deployment", name, "-n", namespace)
        notes = d["metadata"].get("annotations") or {}
        ready, desired = d.get("status", {}).get("readyReplicas", 0), d.get("spec", {}).get("replicas", 0)
        alias = notes.get("llmft.io/model-alias")
        lines = [
            f"serve {name}: {ready}/{desired} replicas ready" + (" (asleep: scaled to zero)" if not desired else ""),
            f"endpoint: {endpoint_url(name, namespace)} (OpenAI API: /v1/chat/completions, /v1/models)",
            f"model: {notes.get('llmft.io/model', '?')} version {notes.get('llmft.io/model-version', '?')}"
            + (f" (alias {alias} at submit)" if alias else "")
            + f" from {notes.get('llmft.io/model-dir', '?')}",
        ]
        return "\n".join(lines) + "\n"

    def job_outputs(self, namespace: str) -> dict[str, list[str]]:
        """{job name: the directories it writes} of the namespace's llmft jobs (annotation ``llmft/outputs`` of
        their step ConfigMaps)."""
        data = self.get_json("configmap", "-n", namespace, "-l", "app.kubernetes.io/managed-by=llmft")
        out: dict[str, list[str]] = {}
        for item in data.get("items", []):
            meta = item.get("metadata", {})
            raw = (meta.get("annotations") or {}).get("llmft/outputs")
            job = (meta.get("labels") or {}).get("app.kubernetes.io/name")
            if raw and job:
                try:
                    out[job] = [str(p) for p in json.loads(raw)]
                except ValueError:
                    continue
        return out

    def step_files(self, namespace: str, name: str | None = None) -> dict[str, dict[str, Any]]:
        """{job name: its step file} of the namespace's llmft jobs (their ``<name>-step`` ConfigMaps), or of job
        ``name`` only."""
        import yaml

        selector = "app.kubernetes.io/managed-by=llmft" + (f",app.kubernetes.io/name={name}" if name else "")
        out: dict[str, dict[str, Any]] = {}
        for item in self.get_json("configmap", "-n", namespace, "-l", selector).get("items", []):
            job = ((item.get("metadata") or {}).get("labels") or {}).get("app.kubernetes.io/name")
            try:
                step = yaml.safe_load((item.get("data") or {}).get("step.yaml", "")) or {}
            except yaml.YAMLError:
                continue
            if job and isinstance(step, dict):
                out[job] = step
        return out

    def pods(self, name: str, namespace: str) -> list[dict[str, Any]]:
        """The job's pods (label ``app.kubernetes.io/name``), as JSON objects."""
        return self.get_json("pods", "-n", namespace, "-l", f"app.kubernetes.io/name={name}").get("items", [])

    def node_instance_types(self, nodes: set[str]) -> dict[str, str]:
        """{node: its ``node.kubernetes.io/instance-type`` label} of the nodes the caller may read (a team's user
        may not: those are left out, and the pods' node affinity names the type, llmft.progress.placement)."""
        out = {}
        for node in sorted(nodes):
            proc = self.run("get", "node", node, "-o", "json", check=False)
            if proc.returncode == 0:
                try:
                    labels = json.loads(proc.stdout).get("metadata", {}).get("labels") or {}
                except ValueError:
                    continue
                if "node.kubernetes.io/instance-type" in labels:
                    out[node] = labels["node.kubernetes.io/instance-type"]
        return out

    def exists(self, kind: str, name: str, namespace: str) -> bool:
        return (
            self.run("get", kind, name, "-n", namespace, "--ignore-not-found", "-o", "name", check=False).stdout.strip()
            != ""
        )

    def find(self, name: str, namespace: str) -> str | None:
        """`<kind>/<name>` of the job called ``name``, whichever kind it is."""
        for kind in (*JOB_KINDS, SERVE_KIND):
            if self.exists(kind, name, namespace):
                return f"{kind}/{name}"
        return None

    def delete(self, name: str, namespace: str) -> str:
        if self.exists(SERVE_KIND, name, namespace):  # a serve job: its owned objects go with the Deployment
            return self.run("delete", f"{SERVE_KIND}/{name}", "-n", namespace, "--ignore-not-found", check=False).stdout
        out = self.run(
            "delete",
            ",".join(JOB_KINDS),
            "-n",
            namespace,
            "-l",
            f"app.kubernetes.io/managed-by=llmft,app.kubernetes.io/name={name}",
            "--ignore-not-found",
            check=False,
        ).stdout
        out += self.run(
            "delete",
            ",".join((*JOB_KINDS, "configmap")),
            name,
            f"{name}-step",
            "-n",
            namespace,
            "--ignore-not-found",
            check=False,
        ).stdout
        return out

    def list_jobs(self, namespace: str) -> str:
        return self.run(
            "get",
            ",".join((*JOB_KINDS, SERVE_KIND)),
            "-n",
            namespace,
            "-l",
            "app.kubernetes.io/managed-by=llmft",
            "-o",
            "wide",
        ).stdout

    def status(self, name: str, namespace: str) -> str:
        target = self.find(name, namespace)
        if target is None:
            raise ClusterError(f"no job {name!r} in namespace {namespace}; `llmft list` shows the team's jobs")
        out = self.serve_status(name, namespace) if target.startswith(SERVE_KIND) else ""
        out += self.run("get", target, "-n", namespace, "-o", "wide").stdout
        out += self.run(
            "get", "pods", "-n", namespace, "-l", f"app.kubernetes.io/name={name}", "-o", "wide", check=False
        ).stdout
        return out

    def logs(self, name: str, namespace: str, *, follow: bool = False, tail: int = 200) -> int:
        args = [
            self.kubectl,
            "logs",
            "-n",
            namespace,
            "-l",
            f"app.kubernetes.io/name={name}",
            "--all-containers",
            "--prefix",
            f"--tail={tail}",
            "--max-log-requests=32",
        ]
        if follow:
            args.append("-f")
        return subprocess.call(args)
