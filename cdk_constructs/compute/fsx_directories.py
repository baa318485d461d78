"""The platform's directories on the shared FSx file system (the teams' trees ``/teams/<team>`` and Studio users'
``users/<user>``), created with their ownership and mode by a Kubernetes Job."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from aws_cdk import Duration
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IDependable

from k8s_charts.team_storage import Directory

NAMESPACE = "studio-partitions"
CLAIM_NAME = "fsx-claim"
MOUNT_PATH = "/fsx"
_PATH = re.compile(r"(/[A-Za-z0-9][A-Za-z0-9._-]{0,62})+")
_MODE = re.compile(r"[0-7]{3,4}")


_RECONCILE = """set -u
ROOT=%(root)s
refused=0
refuse() { echo "REFUSED $ROOT$1: $2" >&2; refused=$((refused + 1)); }
# reconcile PATH UID GID MODE CLEAR: create PATH (relative to ROOT) one component at a time and set its owner and
# mode, never following a symbolic link: each component is checked with [ -L ] before it is entered, entered with
# `cd -P`, and the resolved working directory must then be exactly the expected path (a component swapped for a
# link between the check and the cd lands elsewhere and is refused). chown -h and chmod act on "." - the directory
# that was verified - never on a name that could be re-pointed.
reconcile() {
    cd -P "$ROOT" || { refuse "$1" "cannot enter $ROOT"; return 0; }
    here=$(pwd -P)
    set -f; old_ifs=$IFS; IFS=/
    for name in ${1#/}; do
        IFS=$old_ifs
        if [ -L "$name" ]; then refuse "$1" "$here/$name is a symbolic link (never followed; remove it)"; \
set +f; return 0; fi
        [ -e "$name" ] || mkdir "$name" 2>/dev/null || true
        if [ -L "$name" ] || [ ! -d "$name" ]; then refuse "$1" "$here/$name is not a directory"; set +f; return 0; fi
        cd -P -- "$name" || { refuse "$1" "cannot enter $here/$name"; set +f; return 0; }
        here="$here/$name"
        if [ "$(pwd -P)" != "$here" ]; then refuse "$1" "$here resolved to $(pwd -P) while entered"; \
set +f; return 0; fi
        IFS=/
    done
    IFS=$old_ifs; set +f
    chown -h "$2:$3" . && chmod "$4" . || { refuse "$1" "chown/chmod failed"; return 0; }
    if [ "$5" = clear ]; then chmod u-s,g-s . || { refuse "$1" "chmod u-s,g-s failed"; return 0; }; fi
    # the kernel drops a requested setgid bit without CAP_FSETID when the caller is not in the directory's group:
    # report what the directory has, never what was asked
    mode=$(stat -c %%a .) || { refuse "$1" "stat failed"; return 0; }
    if [ "$5" = keep ] && [ "$mode" != "${4#0}" ]; then refuse "$1" "mode is $mode after chmod $4"; return 0; fi
    echo "ok $ROOT$1 $2:$3 $mode"
}
"""


def partition_script(directories: Sequence[Directory], *, root: str = MOUNT_PATH) -> str:
    """POSIX sh that creates each directory if missing and (re)sets its owner and mode, parents first. Never
    deletes, never recurses (files inside keep whatever ownership their writers gave them) and never follows a
    symbolic link: a path that is or passes through one is refused (issue 21: a team member who replaces a directory
    of its tree with a link to another team's tree must not get that tree re-owned). Every other path is still
    reconciled; the script then exits 1 naming the refused paths (the Job fails, and so does the deployment that
    waits for it, until an admin removes the link)."""
    if not _PATH.fullmatch(root):
        raise ValueError(f"root {root!r} must be an absolute path of plain names")
    lines = [_RECONCILE % {"root": root}]
    for d in sorted(directories, key=lambda d: d.path):
        if not _PATH.fullmatch(d.path):
            raise ValueError(f"directory {d.path!r} must be an absolute path of plain names")
        if not _MODE.fullmatch(d.mode):
            raise ValueError(f"directory mode {d.mode!r} must be octal, e.g. '2770'")
        # chmod keeps a directory's setgid bit (inherited from a 2770 parent) on a numeric mode that lacks it
        # (GNU coreutils; busybox alike), so it is cleared explicitly when the mode has no special bits.
        clear = "clear" if len(d.mode) == 3 or d.mode[0] == "0" else "keep"
        lines.append(f"reconcile {d.path} {d.uid} {d.gid} {d.mode} {clear}")  # validated: nothing for the shell
    lines.append(
        'if [ "$refused" -gt 0 ]; then echo "$refused directories refused (see REFUSED above)" >&2; exit 1; fi'
    )
    lines.append(f'echo "{len(directories)} directories reconciled"')
    return "\n".join(lines) + "\n"


MAX_WAIT = Duration.minutes(14)
"""The longest wait for the Job: ``KubernetesObjectValue`` polls inside the kubectl handler, a Lambda function with a
15-minute timeout (aws-cdk-lib 2.275.0 aws-eks-v2/lib/kubectl-provider.js ``timeout: Duration.minutes(15)``;
custom-resource-handlers aws-eks-v2/kubectl-handler/get ``wait_for_output``). The Job is applied only after its
node group and the FSx CSI add-on exist (``after``), so the whole budget is left for the pod itself."""


class FsxDirectories(Construct):
    """Creates the platform's directories on the shared FSx for Lustre file system before anything mounts them.

    A Job in namespace ``studio-partitions`` (Pod Security ``baseline``: it needs root with CHOWN/FOWNER/
    DAC_OVERRIDE, which team namespaces under ``restricted`` refuse) mounts the claim ``fsx-claim`` and runs
    :func:`partition_script` over **every** configured directory (k8s_charts/team_storage.py: team trees 2770 with
    the team's uid/gid, Studio users' private directories 0700), so directories that existed before are reconciled
    too. Removing a team or user only drops it from the next run; no directory is ever deleted.

    The Job's name carries a hash of its spec (Jobs are immutable): any change of users, uid/gid, mode, image or
    ``revision`` starts a new Job. The stack waits for ``.status.succeeded`` of that Job
    (``KubernetesObjectValue``, ``timeout``) and fails the deployment if it does not succeed; ``wait_handle`` is
    what user profiles depend on.

    :param cluster: the EKS cluster (its kubectl provider applies the manifests).
    :param directories: the directories to reconcile (absolute paths on the file system).
    :param volume: ``(namespace) -> [PersistentVolume, PersistentVolumeClaim]`` for the FSx claim in the Job's
        namespace (the compute stack's FSx volume builders).
    :param image: container image pinned by digest, with ``sh``, ``mkdir``, ``chown``, ``chmod``.
    :param node_selector: where the Job may run (the system nodes). Default: anywhere.
    :param revision: bump to force a new run. Default 1.
    :param timeout: how long the stack waits for the Job to succeed, and the Job's ``activeDeadlineSeconds`` (pod
        scheduling, image pull, the kubelet's FSx mount retries and the script). At most :data:`MAX_WAIT`. Default
        :data:`MAX_WAIT`.
    :param after: what the Job's pod needs before it can run, created first (template ``DependsOn``): the node
        group its ``node_selector`` picks and the FSx CSI driver add-on that mounts the claim. Default: none.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.ICluster,
        directories: Sequence[Directory],
        volume: Callable[[str], Sequence[Mapping[str, Any]]],
        image: str,
        node_selector: Mapping[str, str] | None = None,
        revision: int = 1,
        timeout: Duration = MAX_WAIT,
        after: Sequence[IDependable] = (),
    ) -> None:
        if timeout.to_seconds() > MAX_WAIT.to_seconds():
            raise ValueError(
                f"FsxDirectories timeout {timeout.to_minutes()} min exceeds {MAX_WAIT.to_minutes()} min: "
                f"the kubectl handler that waits is a Lambda function with a 15-minute limit"
            )
        super().__init__(scope, construct_id)
        labels = {"app.kubernetes.io/part-of": "llm-platform", "app.kubernetes.io/component": "fsx-directories"}
        self._add_namespace_and_claim(cluster=cluster, volume=volume, labels=labels, after=after)

        self.directories = tuple(directories)
        self.script = partition_script(self.directories)
        job_spec = {
            "backoffLimit": 3,
            "activeDeadlineSeconds": int(timeout.to_seconds()),
            "template": {"metadata": {"labels": labels}, "spec": self._pod_spec(image, node_selector)},
        }
        self._add_job(
            cluster=cluster, job_spec=job_spec, labels=labels, revision=revision, timeout=timeout, after=after
        )

    def _add_namespace_and_claim(
        self,
        *,
        cluster: eks.ICluster,
        volume: Callable[[str], Sequence[Mapping[str, Any]]],
        labels: Mapping[str, str],
        after: Sequence[IDependable],
    ) -> None:
        """Apply the job's namespace (Pod Security baseline) and its claim on the file system."""
        pss = {f"pod-security.kubernetes.io/{m}": "baseline" for m in ("enforce", "audit", "warn")}
        self.namespace = eks.KubernetesManifest(
            self,
            "Namespace",
            cluster=cluster,
            overwrite=True,
            manifest=[
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE, "labels": {**labels, **pss}}},
            ],
        )
        self.claim = eks.KubernetesManifest(
            self, "Claim", cluster=cluster, overwrite=True, manifest=list(volume(NAMESPACE))
        )
        self.claim.node.add_dependency(self.namespace)
        for manifest in (self.namespace, self.claim):
            manifest.node.add_dependency(*after)

    def _pod_spec(self, image: str, node_selector: Mapping[str, str] | None) -> dict[str, Any]:
        """The pod that runs :attr:`script` as root with only the capabilities it needs, the file system mounted."""
        pod_spec: dict[str, Any] = {
            "restartPolicy": "Never",
            "automountServiceAccountToken": False,
            "securityContext": {
                "runAsUser": 0,
                "runAsGroup": 0,
                "runAsNonRoot": False,
                "seccompProfile": {"type": "RuntimeDefault"},
            },
            "containers": [
                {
                    "name": "partitions",
                    "image": image,
                    "command": ["/bin/sh", "-c", self.script],
                    "securityContext": {
                        "allowPrivilegeEscalation": False,
                        "readOnlyRootFilesystem": True,
                        "privileged": False,
                        # FSETID: chmod 2770 on a directory chowned to the team's gid keeps the setgid bit
                        "capabilities": {"drop": ["ALL"], "add": ["CHOWN", "FOWNER", "DAC_OVERRIDE", "FSETID"]},
                    },
                    "resources": {
                        "requests": {"cpu": "50m", "memory": "32Mi"},
                        "limits": {"cpu": "200m", "memory": "64Mi"},
                    },
                    "volumeMounts": [{"name": "fsx", "mountPath": MOUNT_PATH}],
                }
            ],
            "volumes": [{"name": "fsx", "persistentVolumeClaim": {"claimName": CLAIM_NAME}}],
        }
        if node_selector:
            pod_spec["nodeSelector"] = dict(node_selector)
        return pod_spec

    def _add_job(
        self,
        *,
        cluster: eks.ICluster,
        job_spec: Mapping[str, Any],
        labels: Mapping[str, str],
        revision: int,
        timeout: Duration,
        after: Sequence[IDependable],
    ) -> None:
        """Apply the Job (named by a digest of its spec) and wait for it to succeed."""
        digest = hashlib.sha256(json.dumps([job_spec, revision], sort_keys=True).encode()).hexdigest()[:10]
        self.job_name = f"studio-partitions-{digest}"
        self.job = eks.KubernetesManifest(
            self,
            "Job",
            cluster=cluster,
            manifest=[
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "metadata": {"name": self.job_name, "namespace": NAMESPACE, "labels": labels},
                    "spec": job_spec,
                }
            ],
        )
        self.job.node.add_dependency(self.claim, *after)
        self.succeeded = eks.KubernetesObjectValue(
            self,
            "Succeeded",
            cluster=cluster,
            object_type="job",
            object_name=self.job_name,
            object_namespace=NAMESPACE,
            json_path=".status.succeeded",
            timeout=timeout,
        )
        self.succeeded.node.add_dependency(self.job)

    @property
    def wait_handle(self) -> Construct:
        """Depend on this to run after the directories exist."""
        return self.succeeded
