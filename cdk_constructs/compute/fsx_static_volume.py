"""The shared FSx for Lustre file system as statically provisioned Kubernetes volumes, one claim per namespace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IDependable

CSI_DRIVER = "fsx.csi.aws.com"
CLAIM_NAME = "fsx-claim"


def volume_name(namespace: str) -> str:
    """Name of the cluster-scoped PersistentVolume bound to ``namespace``'s claim."""
    return f"fsx-{namespace}"


class FsxStaticVolume(Construct):
    """Binds the FSx for Lustre file system to claims named :data:`CLAIM_NAME` through the FSx CSI driver.

    A static PersistentVolume binds to exactly one claim, so each namespace gets its own PV ``fsx-<namespace>``
    (ReadWriteMany, reclaim policy Retain, storage class ``""``, ``volumeHandle`` = file system ID, attributes
    ``dnsname`` + ``mountname``) and a PVC ``fsx-claim`` with ``volumeName`` set. Every job mounts the shared file
    system by that one well-known claim name. The k8s charts create the same pair for team namespaces with
    :func:`persistent_volume` / :func:`persistent_volume_claim` naming.

    :param cluster: the EKS cluster.
    :param file_system_id: FSx file system ID (``fs-...``).
    :param dns_name: its DNS name.
    :param mount_name: its Lustre mount name.
    :param storage_capacity_gib: capacity written on the PV/PVC (informational for Lustre). Default 1200.
    :param after: constructs every claim waits for (the FSx CSI driver add-on).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.ICluster,
        file_system_id: str,
        dns_name: str,
        mount_name: str,
        storage_capacity_gib: int = 1200,
        after: Sequence[IDependable] = (),
    ) -> None:
        super().__init__(scope, construct_id)
        self._cluster = cluster
        self._after = list(after)
        self.file_system_id = file_system_id
        self.dns_name = dns_name
        self.mount_name = mount_name
        self.storage = f"{storage_capacity_gib}Gi"
        self.claims: dict[str, eks.KubernetesManifest] = {}

    def persistent_volume(self, namespace: str) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": volume_name(namespace), "labels": {"llmft.io/volume": "fsx"}},
            "spec": {
                "capacity": {"storage": self.storage},
                "volumeMode": "Filesystem",
                "accessModes": ["ReadWriteMany"],
                "persistentVolumeReclaimPolicy": "Retain",
                "storageClassName": "",
                "mountOptions": ["flock"],
                "claimRef": {"namespace": namespace, "name": CLAIM_NAME},
                "csi": {
                    "driver": CSI_DRIVER,
                    "volumeHandle": self.file_system_id,
                    "volumeAttributes": {"dnsname": self.dns_name, "mountname": self.mount_name},
                },
            },
        }

    def persistent_volume_claim(self, namespace: str) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": CLAIM_NAME, "namespace": namespace},
            "spec": {
                "accessModes": ["ReadWriteMany"],
                "storageClassName": "",
                "volumeName": volume_name(namespace),
                "resources": {"requests": {"storage": self.storage}},
            },
        }

    def add_claim(self, namespace: str) -> eks.KubernetesManifest:
        """Create PV ``fsx-<namespace>`` and PVC ``fsx-claim`` in ``namespace`` (which must exist); returns them."""
        if namespace in self.claims:
            raise ValueError(f"namespace {namespace!r} already has an {CLAIM_NAME}")
        manifest = eks.KubernetesManifest(
            self,
            f"Claim{''.join(p.title() for p in namespace.split('-'))}",
            cluster=self._cluster,
            manifest=[self.persistent_volume(namespace), self.persistent_volume_claim(namespace)],
            overwrite=True,
        )
        manifest.node.add_dependency(*self._after)
        self.claims[namespace] = manifest
        return manifest
