"""The promotion Job's own check (issue 40): before the platform applies a production endpoint, the platform itself asks
MLflow that the Deployment serves what the evaluator passed.

``llmft promote`` (a platform admin's laptop) resolves the version too, but that is a courtesy: what it printed could
have been edited before ``kubectl apply``. So the promotion Job (llmft/promote.py) runs this module first, as an init
container in the platform namespace ``llmft-platform`` with the MLflow evaluator's credentials (the namespace's
``mlflow`` ConfigMap and ``mlflow-credentials`` Secret, synced from the evaluator's Secrets Manager secret, which only
the promoter's Pod Identity role reads: cdk_constructs/compute/promotion_identity.py)::

    python3 -m llm_platform.promotion_check --endpoint /promotion/endpoint.yaml

It reads the Deployment of the endpoint (the ConfigMap the Job mounts), asks MLflow for the model version the
Deployment names (annotations ``llmft.io/model`` and ``llmft.io/model-version``) and refuses, exit status 1 with
every reason on stderr, unless:

- the version is tagged ``llmft.evaluation`` = ``passed`` (only the platform's evaluator and MLflow admins write
  that tag: the MLflow server's gate, mlflow_image/registry_gate.py);
- the Deployment's weights digest (the ``--digest=`` of the digest check in front of the engine) is the version's
  ``llmft.evaluation.digest``, the digest of the weights the evaluator judged;
- the Deployment's model directory (annotation ``llmft.io/model-dir``, the engine's ``--model-path=`` and the digest
  check's ``--verify=``) is the version's ``llmft.model_dir`` (set once, by the training step: the server refuses
  re-pointing it), or, for a version registered from a path, that path under ``/fsx``;
- the model is the Deployment's team's (``<team>.<name>``, label ``platform/team``), served in that team's namespace.

MLflow cannot be asked (no tracking URI, server down, the version missing): refused as well, exit status 2. The
Job has ``backoffLimit: 0``, so a refusal is final and ``kubectl apply`` never runs.

Only the standard library, PyYAML and the MLflow client: it runs in the serving image ``verl-sglang`` (the image the
Deployment itself names, which has both pinned, images/verl-sglang/requirements.in), so the promotion needs no image
of its own.
"""

from __future__ import annotations

import argparse
import posixpath
import sys
from collections.abc import Mapping
from typing import Any

EVALUATION_TAG = "llmft.evaluation"
EVALUATION_PASSED = "passed"
DIGEST_TAG = "llmft.evaluation.digest"
MODEL_DIR_TAG = "llmft.model_dir"
MODEL_ANNOTATION = "llmft.io/model"
VERSION_ANNOTATION = "llmft.io/model-version"
MODEL_DIR_ANNOTATION = "llmft.io/model-dir"
TEAM_LABEL = "platform/team"
TEAM_MOUNT = "/fsx"
"""Names shared with the platform (k8s_charts/serving.py, llmft/serve_build.py, k8s_charts/team_storage.py); the
image has no copy of them, tests/test_promotion_job.py checks they are the same."""
REFUSED, UNAVAILABLE = 1, 2


def deployment_of(endpoint: list[dict[str, Any]]) -> dict[str, Any]:
    """The one Deployment of the endpoint's manifests."""
    found = [d for d in endpoint if isinstance(d, dict) and d.get("kind") == "Deployment"]
    if len(found) != 1:
        raise ValueError(f"the endpoint holds {len(found)} Deployments; a promotion applies exactly one")
    return found[0]


def _flag_values(command: list[str], flag: str) -> list[str]:
    return [a.split("=", 1)[1] for a in command if a.startswith(f"--{flag}=")]


def served_dirs(deployment: Mapping[str, Any]) -> tuple[set[str], set[str]]:
    """(every model directory the Deployment names, every weights digest it checks), over all its containers."""
    containers = deployment.get("spec", {}).get("template", {}).get("spec", {}).get("containers", [])
    annotations = deployment.get("metadata", {}).get("annotations", {}) or {}
    dirs, digests = {annotations.get(MODEL_DIR_ANNOTATION, "")}, set()
    for c in containers:
        command = [*(c.get("command") or []), *(c.get("args") or [])]
        dirs |= set(_flag_values(command, "model-path")) | set(_flag_values(command, "verify"))
        digests |= set(_flag_values(command, "digest"))
    return dirs, digests


def version_dir(source: str, tags: Mapping[str, str]) -> str | None:
    """The directory a version's weights are in under ``/fsx``: its ``llmft.model_dir``, else a path source."""
    where = tags.get(MODEL_DIR_TAG) or source.removeprefix("file://")
    normal = posixpath.normpath(where) if where else ""
    if ".." in where.split("/") or not normal.startswith(TEAM_MOUNT + "/"):
        return None
    return normal


def refusals(deployment: Mapping[str, Any], *, source: str, tags: Mapping[str, str]) -> list[str]:
    """Every reason the Deployment may not serve the model version (``source``, ``tags``: what MLflow holds)."""
    meta = deployment.get("metadata", {})
    annotations, labels = meta.get("annotations", {}) or {}, meta.get("labels", {}) or {}
    model, version = annotations.get(MODEL_ANNOTATION, ""), annotations.get(VERSION_ANNOTATION, "")
    what = f"{model} version {version}"
    out = []
    verdict = tags.get(EVALUATION_TAG)
    if verdict != EVALUATION_PASSED:
        out.append(
            f"{what}: tag {EVALUATION_TAG}={verdict!r}, not {EVALUATION_PASSED!r}; have the platform's evaluator "
            f"evaluate it with the gate (docs/serving.md 'The production promotion path', step 3)"
        )
    dirs, digests = served_dirs(deployment)
    evaluated = tags.get(DIGEST_TAG)
    if not evaluated or digests != {evaluated}:
        out.append(
            f"{what}: the Deployment checks the weights digest {sorted(digests)}, the evaluator recorded "
            f"{DIGEST_TAG}={evaluated!r}; promote again from the spec (llmft promote renders the recorded digest)"
        )
    expected = version_dir(source, tags)
    if expected is None or dirs != {expected}:
        out.append(
            f"{what}: the Deployment serves {sorted(dirs)}, the version's weights are in {expected!r} ("
            f"{MODEL_DIR_TAG}, else its source {source!r}); promote again from the spec"
        )
    team = labels.get(TEAM_LABEL, "")
    if not team or not model.startswith(f"{team}."):
        out.append(f"{what} is not team {team!r}'s model ({team}.<name>): a team serves only its own models")
    namespace = meta.get("namespace", "")
    if namespace != team:  # a team's namespace is named after it (config.kubernetes.TeamConfig.namespace)
        out.append(
            f"{what}: the Deployment is in namespace {namespace!r} but labelled team {team!r}: an endpoint serves "
            f"its team's model in its team's namespace; promote again from the spec"
        )
    return out


def _ask_mlflow(model: str, version: str) -> tuple[str, dict[str, str]]:
    """(source, tags) of the version, with MlflowClient (MLFLOW_TRACKING_URI/_USERNAME/_PASSWORD from the env)."""
    from mlflow import MlflowClient

    mv = MlflowClient().get_model_version(model, version)
    return mv.source or "", dict(mv.tags or {})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m llm_platform.promotion_check", description=__doc__.split("\n")[0])
    parser.add_argument("--endpoint", required=True, help="the endpoint's manifests (YAML, the Deployment among them)")
    args = parser.parse_args(argv)
    import yaml

    try:
        with open(args.endpoint, encoding="utf-8") as fh:
            deployment = deployment_of(list(yaml.safe_load_all(fh)))
    except (OSError, ValueError, yaml.YAMLError) as exc:
        print(f"promotion refused: {args.endpoint}: {exc}", file=sys.stderr)
        return REFUSED
    annotations = deployment.get("metadata", {}).get("annotations", {}) or {}
    model, version = annotations.get(MODEL_ANNOTATION), annotations.get(VERSION_ANNOTATION)
    if not model or not version:
        print(f"promotion refused: the Deployment has no {MODEL_ANNOTATION}/{VERSION_ANNOTATION}", file=sys.stderr)
        return REFUSED
    try:
        source, tags = _ask_mlflow(model, str(version))
    except Exception as exc:  # noqa: BLE001 - any failure to ask is a refusal, with what the client said
        print(f"promotion refused: MLflow could not be asked for {model} version {version}: {exc}", file=sys.stderr)
        return UNAVAILABLE
    problems = refusals(deployment, source=source, tags=tags)
    for problem in problems:
        print(f"promotion refused: {problem}", file=sys.stderr)
    if not problems:
        print(f"promotion checked: {model} version {version} passed evaluation; digest and directory match")
    return REFUSED if problems else 0


if __name__ == "__main__":
    sys.exit(main())
