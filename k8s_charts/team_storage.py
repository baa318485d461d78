"""The team storage contract: one FSx for Lustre tree per team, what a pod of the team sees, and who it runs as.

On the file system every team owns ``/teams/<team>`` (uid/gid ``kubernetes.teams[].posix_uid``/``posix_gid``,
mode 2770: setgid, so everything created below keeps the team's group). Its own data repository association links
that directory, and nothing else, to ``s3://<data bucket>/<team prefix>`` (default ``teams/<team>/``), so an export
can only land in the team's own prefix. The team's PersistentVolume mounts only that subtree (Lustre subdirectory
mount ``<dns>@tcp:/<mountname>/teams/<team>``), so a pod of the team cannot even name another team's files, and
it is mounted at :data:`TEAM_MOUNT_PATH` in every pod. Studio users of the team mount the same directory
(``CustomFileSystemConfig.FileSystemPath``), so a path in Studio is the same path under ``/fsx`` in a job.

Layout under ``/fsx`` (= ``/teams/<team>``)::

    datasets/      prepared training data            models/       base and fine-tuned weights
    checkpoints/   training checkpoints              outputs/      evaluations, exported artifacts
    hf-cache/      HF_HOME (Hugging Face downloads)  users/<user>/ per-user Studio directories (mode 0700)

Pods of a team run as its uid/gid: :func:`team_security_context` sets it, and a ValidatingAdmissionPolicy per
team namespace (k8s_charts/team_isolation.py) refuses any other uid/gid.
"""

from __future__ import annotations

from dataclasses import dataclass

from cdk8s_plus_28 import k8s

from config import EnvironmentConfig
from config.kubernetes import TeamConfig

TEAM_MOUNT_PATH = "/fsx"  # where the team's PVC `fsx-claim` is mounted in every pod
TEAMS_ROOT = "/teams"  # parent of the team trees on the file system
TEAM_DIR_MODE = "2770"  # team tree and its top-level directories: team uid/gid rwx, setgid, nothing for others
USER_DIR_MODE = "0700"  # users/<user>/ in per-user Studio mode: the user only
TEAMS_ROOT_MODE = "0755"  # /teams itself (root): traversable so each team's subtree mount resolves
TOP_LEVEL_DIRS = ("datasets", "models", "checkpoints", "outputs", "hf-cache", "users")


def team_fs_path(team: TeamConfig | str) -> str:
    """The team's directory on the file system, e.g. ``/teams/ml-research`` (its DRA's FileSystemPath)."""
    name = team if isinstance(team, str) else team.name
    return f"{TEAMS_ROOT}/{name}"


def team_mount_name(mount_name: str, team: TeamConfig | str) -> str:
    """The PV's ``mountname`` volume attribute that mounts only the team's subtree.

    The FSx CSI driver mounts ``<dnsname>@tcp:/<mountname>`` verbatim (aws-fsx-csi-driver v1.7.0,
    pkg/driver/node.go NodePublishVolume), and Lustre mounts a subdirectory given after the mount name
    (https://docs.aws.amazon.com/fsx/latest/LustreGuide/mounting-from-fileset.html)."""
    return f"{mount_name}{team_fs_path(team)}"


@dataclass(frozen=True)
class TeamPaths:
    """Paths of the team's tree as a pod (or, relative to the mount, a Studio user) sees it."""

    root: str
    datasets: str
    models: str
    checkpoints: str
    outputs: str
    hf_cache: str
    users: str

    def user(self, user: str) -> str:
        return f"{self.users}/{user}"


def team_paths(team: TeamConfig | None = None, *, root: str = TEAM_MOUNT_PATH) -> TeamPaths:
    """The layout under ``root`` (default ``/fsx``). Every team sees the same paths: its PV mounts its own tree
    there. ``team`` is accepted so callers state whose tree they mean."""
    del team
    return TeamPaths(
        root=root,
        datasets=f"{root}/datasets",
        models=f"{root}/models",
        checkpoints=f"{root}/checkpoints",
        outputs=f"{root}/outputs",
        hf_cache=f"{root}/hf-cache",
        users=f"{root}/users",
    )


def team_security_context(team: TeamConfig) -> k8s.PodSecurityContext:
    """Pod-level security context of every pod of ``team``: its uid/gid (the only ones its namespace admits),
    the gid also as fsGroup (emptyDirs; the FSx CSI driver's fsGroupPolicy ReadWriteOnceWithFSType leaves the
    shared volume's ownership alone), non-root, RuntimeDefault seccomp (Pod Security `restricted`)."""
    return k8s.PodSecurityContext(
        run_as_non_root=True,
        run_as_user=team.posix_uid,
        run_as_group=team.posix_gid,
        fs_group=team.posix_gid,
        fs_group_change_policy="OnRootMismatch",
        seccomp_profile=k8s.SeccompProfile(type="RuntimeDefault"),
    )


def team_security_context_json(team: TeamConfig) -> dict:
    """:func:`team_security_context` in manifest form (for builders that write pod specs as dicts)."""
    return {
        "runAsNonRoot": True,
        "runAsUser": team.posix_uid,
        "runAsGroup": team.posix_gid,
        "fsGroup": team.posix_gid,
        "fsGroupChangePolicy": "OnRootMismatch",
        "seccompProfile": {"type": "RuntimeDefault"},
    }


@dataclass(frozen=True)
class Directory:
    """One directory the platform creates on the file system, with its owner and mode."""

    path: str  # absolute on the file system, e.g. /teams/ml-research/datasets
    uid: int
    gid: int
    mode: str


def team_directories(team: TeamConfig, *, users: dict[str, int] | None = None) -> list[Directory]:
    """The team's tree: ``/teams/<team>`` and its top-level directories (team uid/gid, 2770) and, for each
    ``users`` entry (name -> uid), ``users/<name>`` owned by that uid and the team's gid, mode 0700."""
    root = team_fs_path(team)
    dirs = [Directory(root, team.posix_uid, team.posix_gid, TEAM_DIR_MODE)]
    dirs += [Directory(f"{root}/{d}", team.posix_uid, team.posix_gid, TEAM_DIR_MODE) for d in TOP_LEVEL_DIRS]
    for name, uid in sorted((users or {}).items()):
        dirs.append(Directory(f"{root}/users/{name}", uid, team.posix_gid, USER_DIR_MODE))
    return dirs


def platform_directories(config: EnvironmentConfig) -> list[Directory]:
    """Every directory the platform owns on the file system: ``/teams`` (root, 0755) and each team's tree, with
    the private ``users/<name>`` of the team's Studio users in ``studio.fsx_mode: per-user``."""
    studio = config.studio
    dirs = [Directory(TEAMS_ROOT, 0, 0, TEAMS_ROOT_MODE)]
    for team in config.kubernetes.teams:
        users = (
            {p.name: studio.uid_of(p) for p in studio.user_profiles if p.team == team.name}
            if studio.enabled and studio.fsx_mode == "per-user"
            else {}
        )
        dirs += team_directories(team, users=users)
    return dirs
