"""`make gitops ENV=<env> [GITOPS_REPO=../platform-gitops] [WRITE=1]`: the platform's manifests as Argo CD will sync
them, and what would change in the Git path they go to - reviewed as a pull request before anything reaches a cluster.

1. Writes ``dist/<env>/`` (every chart, as `make synth` does).
2. Builds what Git holds: the platform charts of ``dist/<env>/`` (not the example jobs: Argo CD would run them),
   each ``${NAME}`` placeholder filled from the output ``GitOps<NAME>`` (of the stack owning it) in the outputs file
   (``make deploy`` writes ``cdk.out/outputs-<env>.json``; ``cdk deploy --outputs-file``).
3. Splits them as the Applications read them (k8s_charts.gitops.split_platform): shared objects in
   ``<platform_dir(path)>/<chart>.yaml`` (Application ``platform``), each team's platform objects in
   ``<platform_dir(path)>/teams/<team>/<chart>.yaml`` (Application ``platform-<team>``: no Application outgrows the
   managed capability's 150 resources), and prints a unified diff against ``<GITOPS_REPO>``, files added and
   removed included; every team's job folder gets a ``.gitkeep`` so it exists while it holds no job.
4. With ``--write`` (``WRITE=1``) replaces that folder's YAML files in the checkout, to commit and push as a pull
   request. Refused while a placeholder has no value (Argo CD would apply the literal ``${NAME}``).

No AWS calls: values come from the outputs file. Exit status: 0, or 1 when ``--exit-code`` is given and something
differs, 2 on an error (message names the fix).
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml

from config import ConfigError, load_config
from config.gitops import platform_dir, team_jobs_dir
from k8s_charts.gitops import KEEP_FILE, split_platform
from k8s_charts.values import PLACEHOLDER, gitops_output_key

ROOT = Path(__file__).resolve().parents[1]


class GitOpsError(Exception):
    """The tool cannot go on; the message says why and what to do."""


@dataclass
class Plan:
    """What Git should hold under ``target`` (file name -> text) and how it differs from what it holds."""

    target: Path
    files: dict[str, str]
    unresolved: list[str] = field(default_factory=list)
    diff: str = ""
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    base: str = ""
    """``platform_dir(path)``: ``target`` relative to the checkout."""
    keep: list[str] = field(default_factory=list)
    team_files: dict[str, list[str]] = field(default_factory=dict)
    """What each team's Application syncs from the checkout: team -> its job and pipeline (Workflow) files."""
    """Placeholder files (repository-relative) that keep every team's job folder in Git
    (k8s_charts.gitops.KEEP_FILE)."""

    @property
    def differs(self) -> bool:
        return bool(self.added or self.removed or self.changed)


def output_values(outputs: dict[str, dict[str, str]], stack_prefix: str) -> dict[str, str]:
    """Output key -> value of every stack ``<stack_prefix>-*`` in a `cdk deploy --outputs-file` JSON ({stack: {key:
    value}}): each GitOps output lives in the stack that owns the value (stacks/compute_stack.py)."""
    return {
        k: v for stack, values in outputs.items() if stack.startswith(f"{stack_prefix}-") for k, v in values.items()
    }


def fill(text: str, values: dict[str, str]) -> tuple[str, set[str]]:
    """``text`` with every ``${NAME}`` whose output ``GitOps<NAME>`` is in ``values`` replaced; the names left."""
    left: set[str] = set()

    def repl(m):  # type: ignore[no-untyped-def]
        key = gitops_output_key(m.group(1))
        if key in values:
            return values[key]
        left.add(m.group(1))
        return m.group(0)

    return PLACEHOLDER.sub(repl, text), left


def plan(env: str, repo: Path, *, dist: Path, outputs: dict[str, dict[str, str]] | None) -> Plan:
    """Write dist/<env>/ and compare its platform charts (filled from ``outputs``) with ``repo``'s platform folder."""
    from k8s_charts.__main__ import write_dist

    config = load_config(env)
    write_dist(env, dist)
    platform_only = dist / ".gitops" / env
    names = {p.name for p in write_dist(env, dist / ".gitops", examples=False)}
    values = output_values(outputs or {}, config.stack_prefix)
    path = config.gitops_path
    loaded = {name: [d for d in yaml.safe_load_all((platform_only / name).read_text()) if d] for name in sorted(names)}
    files: dict[str, str] = {}
    unresolved: set[str] = set()
    base = platform_dir(path)
    for rel, docs in sorted(split_platform(loaded, path, config.kubernetes.teams).items()):
        text, left = fill(yaml.safe_dump_all(docs, sort_keys=False), values)
        files[rel.removeprefix(f"{base}/")] = text
        unresolved |= left
    target = repo / base
    result = Plan(
        target=target,
        files=files,
        unresolved=sorted(unresolved),
        base=base,
        keep=[f"{team_jobs_dir(path, t.name)}/{KEEP_FILE}" for t in config.kubernetes.teams],
    )
    current = (
        {p.relative_to(target).as_posix(): p.read_text() for p in sorted(target.rglob("*.yaml"))}
        if target.is_dir()
        else {}
    )
    chunks = []
    for name in sorted(set(files) | set(current)):
        old, new = current.get(name), files.get(name)
        if old == new:
            continue
        (result.added if old is None else result.removed if new is None else result.changed).append(name)
        rel = f"{base}/{name}"
        chunks.append(
            "".join(
                difflib.unified_diff(
                    (old or "").splitlines(keepends=True),
                    (new or "").splitlines(keepends=True),
                    fromfile=f"a/{rel}" if old is not None else "/dev/null",
                    tofile=f"b/{rel}" if new is not None else "/dev/null",
                )
            )
        )
    for t in config.kubernetes.teams:
        folder = repo / team_jobs_dir(path, t.name)
        result.team_files[t.name] = sorted(p.name for p in folder.glob("*.yaml")) if folder.is_dir() else []
    missing_keep = [k for k in result.keep if not (repo / k).exists()]
    result.added += missing_keep
    result.diff = "".join(chunks)
    return result


def write(result: Plan) -> None:
    """Make ``result.target`` hold exactly ``result.files`` (its other YAML files are removed)."""
    if result.unresolved:
        raise GitOpsError(
            f"placeholders without a value: {', '.join('${' + n + '}' for n in result.unresolved)}; Argo CD would "
            f"apply them literally. Deploy the environment once in argocd mode (make deploy writes "
            f"cdk.out/outputs-<env>.json with the outputs {', '.join(gitops_output_key(n) for n in result.unresolved)})"
            f" and pass that file as GITOPS_OUTPUTS"
        )
    result.target.mkdir(parents=True, exist_ok=True)
    for name in result.removed:
        (result.target / name).unlink()
    for name, text in result.files.items():
        (result.target / name).parent.mkdir(parents=True, exist_ok=True)
        (result.target / name).write_text(text)
    repo = result.target.parents[len(PurePosixPath(result.base).parts) - 1]
    for rel in result.keep:
        keep = repo / rel
        keep.parent.mkdir(parents=True, exist_ok=True)
        if not keep.exists():
            keep.write_text(
                "# keeps this folder in Git while it holds no job (Argo CD reads only *.yaml/*.yml/*.json)\n"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.gitops", description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True, help="environment (config/<env>.yaml)")
    parser.add_argument("--repo", required=True, type=Path, help="local checkout of delivery.repository")
    parser.add_argument("--outputs", type=Path, help="`cdk deploy --outputs-file` JSON (values of the placeholders)")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder, default dist")
    parser.add_argument("--write", action="store_true", help="update the checkout (then commit and open a PR)")
    parser.add_argument("--exit-code", action="store_true", help="exit 1 when the checkout differs")
    args = parser.parse_args(argv)
    try:
        if not args.repo.is_dir():
            raise GitOpsError(f"{args.repo} is not a folder; clone delivery.repository there or pass GITOPS_REPO")
        outputs = None
        if args.outputs is not None:
            if args.outputs.is_file():
                outputs = json.loads(args.outputs.read_text())
            else:
                print(
                    f"note: {args.outputs} does not exist (no deploy in argocd mode yet): placeholders stay",
                    file=sys.stderr,
                )
        result = plan(args.env, args.repo, dist=args.dist, outputs=outputs)
        sys.stdout.write(result.diff)
        print(
            f"{result.target}: {len(result.added)} added, {len(result.changed)} changed, {len(result.removed)} removed",
            file=sys.stderr,
        )
        for team, names in result.team_files.items():
            pipelines = [n for n in names if n.startswith("pipeline-")]
            print(
                f"teams/{team}: {len(names) - len(pipelines)} job file(s), {len(pipelines)} pipeline(s)"
                + (f" ({', '.join(pipelines)})" if pipelines else ""),
                file=sys.stderr,
            )
        if result.unresolved:
            print(f"unresolved placeholders: {', '.join(result.unresolved)}", file=sys.stderr)
        if args.write:
            write(result)
            print(f"wrote {result.target}; review with git diff, commit and open a pull request", file=sys.stderr)
    except (GitOpsError, ConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 1 if args.exit_code and result.differs else 0


if __name__ == "__main__":
    sys.exit(main())
