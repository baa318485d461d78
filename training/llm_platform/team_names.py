"""MLflow names of a team's experiments and registered models (issue 21; the server enforces the same contract,
mlflow_image/entrypoint.py):

- experiment ``<team>/<name>``;
- registered model ``<team>.<name>`` (MLflow refuses '/' in model names: ``models:/<name>/<version>``); a job
  registers ``<team>.<job name>`` (llmft's ``registered_model_name``).

The team is the one whose MLflow user the pod was given (``MLFLOW_TRACKING_USERNAME`` = ``team-<team>``, from the
namespace's ``mlflow-credentials`` Secret). A name that already carries the team's prefix is kept; without a team
user (MLflow without auth, local runs) names are used as given.
"""

from __future__ import annotations

import os

TEAM_USER_PREFIX = "team-"
EXPERIMENT_SEPARATOR = "/"
MODEL_SEPARATOR = "."


def team() -> str | None:
    user = os.environ.get("MLFLOW_TRACKING_USERNAME", "")
    return user[len(TEAM_USER_PREFIX) :] if user.startswith(TEAM_USER_PREFIX) else None


def _bare(name: str, owner: str) -> str:
    for sep in (EXPERIMENT_SEPARATOR, MODEL_SEPARATOR):
        if name.startswith(owner + sep):
            return name[len(owner) + 1 :]
    return name


def experiment_name(name: str) -> str:
    """``<team>/<name>`` (``name`` may already be either form of the team's prefix)."""
    owner = team()
    return f"{owner}{EXPERIMENT_SEPARATOR}{_bare(name, owner)}" if owner else name


def registered_model_name(name: str) -> str:
    """``<team>.<name>``; a '/' left in ``name`` becomes '-' (model names may not contain it)."""
    owner = team()
    bare = _bare(name, owner) if owner else name
    bare = bare.replace(EXPERIMENT_SEPARATOR, "-")
    return f"{owner}{MODEL_SEPARATOR}{bare}" if owner else bare
