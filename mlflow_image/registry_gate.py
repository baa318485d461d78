"""The production gate, enforced by the MLflow server (issue 40): only the platform's evaluator may say a model
version passed evaluation.

What production serves is decided by three things on a registered model version (k8s_charts/serving.py, the
serving side's one home of these names; this module repeats them because the image has no copy of the platform):

- the tags ``llmft.evaluation`` and every ``llmft.evaluation.*`` (the verdict, its metric, value, minimum, run and
  the content digest of the evaluated weights, :data:`GATE_TAG_PREFIX`);
- the alias ``evaluated`` (:data:`GATE_ALIAS`), which the evaluate step moves to the newest version that passed;
- the tag ``llmft.model_dir`` (:data:`MODEL_DIR_TAG`): the FSx directory the serving pods load.

Before this module a team's own MLflow user (whose password every pod of the team holds) could set, delete or move
all three through the REST API, so a team vouched for itself. Now a request by a user who is not an MLflow admin
is refused (403 ``PERMISSION_DENIED``) when it:

- sets or deletes a gate tag on a model version (``model-versions/set-tag``, ``model-versions/delete-tag``), or
  creates a version that already carries one (``model-versions/create`` ``tags``);
- sets or deletes the alias ``evaluated`` (``registered-models/alias``, POST and DELETE: MLflow 3.17.2
  mlflow/server/handlers.py ``_set_registered_model_alias``/``_delete_registered_model_alias``);
- deletes ``llmft.model_dir``, or sets it to another value on a version that has one already: the training step
  sets it once, right after registering (llm_platform/mlflow_utils.py ``tag_model_dir``; a restarted job sets the
  same value again), and nobody re-points it afterwards.

Tag keys and alias names are compared trimmed and case-insensitively, so ``LLMFT.Evaluation`` is refused too; the
key or alias is read from the JSON body or, for DELETE without a body, from the query string (MLflow's
``_get_request_message`` reads either).

Who may: MLflow admins, and the platform's evaluator user (``MLFLOW_EVALUATOR_USERNAME``, an admin-flagged user
the entry point creates from its own Secrets Manager secret, which only the platform's promotion Job in the
platform namespace can read: docs/serving.md "The production promotion path"). MLflow 3.17.2 has no grant "EDIT on
every registered model" short of admin (``default_permission`` applies to every user), and the evaluator reads and
tags every team's models; so it is an admin that may not manage users or permissions
(:func:`evaluator_refusal`). The evaluator verifies the weights it judged with a content digest
(``llmft.evaluation.digest``), which the serving pod checks before the engine loads.

Pure functions (no Flask, no MLflow): the unit tests call them directly; :func:`check_request` is the adapter the
entry point's ``authenticate_team_request`` calls with Flask's request and MLflow's stores.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping

GATE_TAG_PREFIX = "llmft.evaluation"
MODEL_DIR_TAG = "llmft.model_dir"
GATE_ALIAS = "evaluated"
SET_TAG = "/mlflow/model-versions/set-tag"
DELETE_TAG = "/mlflow/model-versions/delete-tag"
ALIAS = "/mlflow/registered-models/alias"
CREATE_VERSION = "/mlflow/model-versions/create"
GATE_PATHS = (SET_TAG, DELETE_TAG, ALIAS, CREATE_VERSION)
"""REST paths (after ``/api/2.0``, ``/ajax-api/2.0``, ...) whose requests can write the gate."""
EVALUATOR_USERNAME_VARIABLE = "MLFLOW_EVALUATOR_USERNAME"
EVALUATOR_PASSWORD_VARIABLE = "MLFLOW_EVALUATOR_PASSWORD"
EVALUATOR_FORBIDDEN_PATH_PARTS = ("/mlflow/users/", "/permissions/")
"""What the evaluator (an admin of MLflow's) still may not do: create, change or delete users, grant or revoke."""

HOW = (
    "only the platform's evaluator records evaluation verdicts and the alias 'evaluated' (the promotion step, "
    "docs/serving.md 'The production promotion path'); evaluate with your own user to see the scores"
)


def _norm(text: object) -> str:
    return str(text).strip().lower()


def is_gate_tag(key: object) -> bool:
    """``llmft.evaluation`` or one of its ``llmft.evaluation.*`` details, in any case and spacing."""
    return isinstance(key, str) and _norm(key).startswith(GATE_TAG_PREFIX)


def is_model_dir_tag(key: object) -> bool:
    return isinstance(key, str) and _norm(key) == MODEL_DIR_TAG


def gate_refusal(
    *,
    privileged: bool,
    method: str,
    path: str,
    fields: Mapping | None,
    version_tags: Callable[[str, str], Mapping[str, str]] | None = None,
) -> str | None:
    """Why a request may not change the gate (None: it may). ``fields`` is the request's JSON body or, without
    one, its query arguments; ``version_tags(name, version)`` the current tags of a version (for the set-once rule
    of ``llmft.model_dir``)."""
    if privileged:
        return None
    fields = fields or {}
    if path.endswith(ALIAS) and method in ("POST", "DELETE"):
        alias = fields.get("alias")
        if isinstance(alias, str) and _norm(alias) == GATE_ALIAS:
            verb = "move" if method == "POST" else "delete"
            return f"a team user may not {verb} the alias {GATE_ALIAS!r}: {HOW}"
        return None
    if path.endswith(CREATE_VERSION) and method == "POST":
        tags = fields.get("tags")
        keys = [t.get("key") for t in tags if isinstance(t, Mapping)] if isinstance(tags, list) else []
        bad = sorted({str(k) for k in keys if is_gate_tag(k)})
        return f"a new model version may not carry the tags {bad}: {HOW}" if bad else None
    if not (path.endswith(SET_TAG) and method == "POST") and not (path.endswith(DELETE_TAG) and method == "DELETE"):
        return None
    key = fields.get("key")
    if is_gate_tag(key):
        return f"a team user may not set or delete the tag {key!r}: {HOW}"
    if not is_model_dir_tag(key):
        return None
    if method == "DELETE":
        return f"{MODEL_DIR_TAG} is set once, when the version is registered; it cannot be deleted"
    current = version_tags(str(fields.get("name")), str(fields.get("version"))) if version_tags else {}
    if any(is_model_dir_tag(k) and v != fields.get("value") for k, v in current.items()):
        return (
            f"{MODEL_DIR_TAG} is set once, when the version is registered, and this version has it already; "
            f"register a new version for other weights"
        )
    return None


def evaluator_refusal(username: str, evaluator: str, path: str) -> str | None:
    """The evaluator is an MLflow admin for reading and tagging every team's models, nothing more."""
    if evaluator and username == evaluator and any(p in path for p in EVALUATOR_FORBIDDEN_PATH_PARTS):
        return f"user {evaluator!r} is the platform's evaluator: it may not manage users or permissions"
    return None


def request_fields(method: str, raw_body: bytes, args: Mapping[str, str]) -> Mapping | None:
    """The fields of a request as MLflow's ``_get_request_message`` reads them: the JSON body (a JSON string decoded
    once more), or the query arguments when there is no body."""
    if raw_body.strip():
        value = json.loads(raw_body)
        value = json.loads(value) if isinstance(value, str) else value
        return value if isinstance(value, dict) else None
    return dict(args)


def concerns(path: str, username: str) -> bool:
    """Whether :func:`check_request` has anything to say about a request of ``username`` to ``path``."""
    evaluator = os.environ.get(EVALUATOR_USERNAME_VARIABLE, "")
    return any(path.endswith(p) for p in GATE_PATHS) or (bool(evaluator) and username == evaluator)


def check_request(request, username: str, is_admin: bool) -> str | None:
    """The refusal of a Flask ``request`` by ``username`` (None: let MLflow handle it)."""
    refusal = evaluator_refusal(username, os.environ.get(EVALUATOR_USERNAME_VARIABLE, ""), request.path)
    if refusal or not any(request.path.endswith(p) for p in GATE_PATHS):
        return refusal
    fields = request_fields(request.method, request.get_data(cache=True), request.args)
    return gate_refusal(
        privileged=is_admin, method=request.method, path=request.path, fields=fields, version_tags=_version_tags
    )


def _version_tags(name: str, version: str) -> Mapping[str, str]:
    from mlflow.exceptions import MlflowException
    from mlflow.server.handlers import _get_model_registry_store

    try:
        return dict(_get_model_registry_store().get_model_version(name, version).tags or {})
    except MlflowException:
        return {}  # no such version: MLflow answers the request itself
