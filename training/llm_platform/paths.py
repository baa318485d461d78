"""The team storage contract: what a pod sees under /fsx (the team's own FSx subtree, PVC ``fsx-claim``).

Kept free of heavy imports: the Kubernetes job builders use these names too.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

TEAM_MOUNT_PATH = "/fsx"
DATASETS = f"{TEAM_MOUNT_PATH}/datasets"
MODELS = f"{TEAM_MOUNT_PATH}/models"
CHECKPOINTS = f"{TEAM_MOUNT_PATH}/checkpoints"
OUTPUTS = f"{TEAM_MOUNT_PATH}/outputs"
HF_HOME = f"{TEAM_MOUNT_PATH}/hf-cache"

TEAM_UMASK = 0o007
"""What a job creates is read-write for the team's group and closed to others. Jobs run as the team's uid; Studio
users of the team have their own uid and the team's gid, and the team tree is setgid (mode 2770,
k8s_charts/team_storage.py), so with this umask they can update and delete job outputs, as jobs can theirs. The
default 022 would leave every checkpoint and model a job writes read-only to the team's people."""


def on_team_mount(path: str) -> bool:
    """True when ``path`` is an absolute path inside the team mount (no ``..`` escaping it)."""
    p = PurePosixPath(path)
    return p.is_absolute() and ".." not in p.parts and p.parts[:2] == ("/", TEAM_MOUNT_PATH.strip("/"))


def set_hf_home() -> None:
    """Point the Hugging Face caches at the team's FSx cache unless the pod already chose one."""
    if os.path.isdir(TEAM_MOUNT_PATH):
        os.environ.setdefault("HF_HOME", HF_HOME)


def share_with_team() -> int:
    """Set this process's umask to :data:`TEAM_UMASK` (every process it starts inherits it); returns the old one.
    Each entry point calls it first."""
    return os.umask(TEAM_UMASK)


LOCAL_FSX_ENV = "LLMFT_LOCAL_FSX"
"""Set by ``llmft run --local`` to the local directory standing for the team's /fsx (llmft/local.py)."""


def as_pods_see_it(path: str | Path) -> str:
    """``path`` as the team's pods name it: a path under the local stand-in of /fsx (``$LLMFT_LOCAL_FSX``, a local
    run) rewritten to /fsx; any other path unchanged. What a step records for later jobs (e.g. the model directory
    a serve job loads) must be the cluster's path, not the laptop's."""
    local = os.environ.get(LOCAL_FSX_ENV)
    text = str(path)
    if local:
        root = str(Path(local).resolve())
        resolved = str(Path(text).resolve())
        if resolved == root or resolved.startswith(root + "/"):
            return TEAM_MOUNT_PATH + resolved[len(root) :]
    return text
