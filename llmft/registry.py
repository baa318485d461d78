"""Which registered model version a ``type: serve`` spec serves, and where its weights are: resolved once, at render
and submit time, so the manifests name one exact version and one directory (an alias that moves later changes
nothing that runs).

Two registries behind one interface (:class:`Registry`, one method, :meth:`Registry.model_version`):

- :class:`MlflowRegistry`: the platform's MLflow server through ``mlflow.MlflowClient``, which reads
  ``MLFLOW_TRACKING_URI`` and the team's user (``MLFLOW_TRACKING_USERNAME``/``_PASSWORD``) from the environment, the
  variables the team's pods and the Studio terminal have (llmft/local.py reads the same ones). The server lets a
  team's user read only its own ``<team>.<name>`` models (mlflow_image/entrypoint.py, issue 21).
- :class:`FileRegistry`: a YAML snapshot of registered versions (``llmft render --registry FILE``), for rendering
  without MLflow (CI, a GitOps review, the tests). ``examples/registry.yaml`` is the examples' snapshot::

      ml-research.medical-sft:            # <team>.<name>
        aliases: {evaluated: 1}
        versions:
          1:
            source: models:/m-0123abcd     # what MLflow stores
            tags: {llmft.model_dir: /fsx/checkpoints/medical-sft/merged, llmft.evaluation: passed}

Rules (:func:`resolve_model`), each refusal naming the spec field and the fix:

- ``serve.model`` is the spec's team's own model (``<team>.`` prefix: the MLflow server's own rule for names);
- the model, the version (``serve.version``) or the alias (``serve.alias``) exist;
- the weights are on the team's own storage (:func:`model_dir`): a path under the team's ``/fsx``, an ``s3://`` URI
  under the team's prefix of the data bucket (``kubernetes.teams[].s3_prefix``, linked to its FSx tree by its data
  repository association, so the same files are at ``/fsx/<rest>``), or, for an MLflow reference (``models:/``,
  ``runs:/``, ``mlflow-artifacts:/``: the only sources a team user may register, mlflow_image/entrypoint.py
  ``TEAM_SOURCE_SCHEMES``), the directory the version's tag ``llmft.model_dir`` names. Another team's prefix, another
  mount or ``..`` are refused;
- in a production tier (k8s_charts/serving.py ``PRODUCTION_TIERS``) only a version tagged ``llmft.evaluation`` =
  ``passed`` with the digest of its evaluated weights (``llmft.evaluation.digest``) is served; the pods verify the
  digest before the engine loads. Only the platform's evaluator writes these tags (the MLflow server's rule,
  mlflow_image/registry_gate.py), and only the platform's promotion identity creates production serving objects
  (k8s_charts/team_guardrails.py): this check is llmft's courtesy, not the guard.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from config.kubernetes import TeamConfig
from k8s_charts.serving import (
    EVALUATED_ALIAS,
    EVALUATION_DIGEST_TAG,
    EVALUATION_PASSED,
    EVALUATION_TAG,
    MODEL_DIR_TAG,
    PRODUCTION_TIERS,
)
from k8s_charts.team_storage import TEAM_MOUNT_PATH

MLFLOW_REFERENCES = ("models:/", "runs:/", "mlflow-artifacts:/")  # = mlflow_image/entrypoint.py TEAM_SOURCE_SCHEMES


@dataclass(frozen=True)
class ModelVersion:
    """One registered model version, as the registry has it."""

    name: str
    version: int
    source: str
    tags: Mapping[str, str] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()


class NotRegistered(LookupError):
    """The registry has no such model, version or alias; ``field`` is the spec field that named it."""

    def __init__(self, field_name: str, message: str) -> None:
        self.field = field_name
        super().__init__(message)


class RegistryUnavailable(RuntimeError):
    """The registry could not be asked (no tracking URI, server unreachable, client missing)."""


class Registry(Protocol):
    """Where registered model versions are looked up."""

    def model_version(self, name: str, *, version: int | None = None, alias: str | None = None) -> ModelVersion:
        """The version ``version`` of ``name``, or the one ``alias`` points at; NotRegistered naming the field."""
        ...


def _unknown_version(name: str, version: int, known: list[int]) -> NotRegistered:
    listed = ", ".join(str(v) for v in sorted(known)[-10:]) or "none"
    return NotRegistered(
        "serve.version",
        f"serve.version {version}: {name} has no version {version} (its versions: "
        f"{listed}); give one of them, or alias: {EVALUATED_ALIAS}",
    )


def _unknown_alias(name: str, alias: str, known: list[str]) -> NotRegistered:
    return NotRegistered(
        "serve.alias",
        f"serve.alias {alias!r}: {name} has no alias {alias!r} (its aliases: "
        f"{', '.join(sorted(known)) or 'none'}); give one of them, or a version",
    )


def _unknown_model(name: str) -> NotRegistered:
    return NotRegistered(
        "serve.model",
        f"serve.model {name!r} is not a registered model (or not your team's); "
        f"register it first (an sft job registers <team>.<job name>), or fix the name",
    )


@dataclass
class FileRegistry:
    """Registered versions from a YAML snapshot (module docstring): ``{name: {versions: {n: {source, tags}},
    aliases: {alias: n}}}``."""

    models: Mapping[str, Mapping]

    @classmethod
    def load(cls, path: str | Path) -> FileRegistry:
        from config.strict_yaml import load_yaml

        path = Path(path)
        if not path.is_file():
            raise RegistryUnavailable(
                f"registry snapshot {path} does not exist; pass a YAML file such as examples/registry.yaml"
            )
        data = load_yaml(path.read_bytes(), source=str(path)) or {}
        if not isinstance(data, dict):
            raise RegistryUnavailable(f"registry snapshot {path}: a mapping of <team>.<name> to versions and aliases")
        return cls(data)

    def model_version(self, name: str, *, version: int | None = None, alias: str | None = None) -> ModelVersion:
        model = self.models.get(name)
        if not isinstance(model, Mapping):
            raise _unknown_model(name)
        versions = {int(k): v or {} for k, v in (model.get("versions") or {}).items()}
        aliases = {str(k): int(v) for k, v in (model.get("aliases") or {}).items()}
        if alias is not None:
            if alias not in aliases:
                raise _unknown_alias(name, alias, list(aliases))
            version = aliases[alias]
        if version not in versions:
            raise _unknown_version(name, version or 0, list(versions))
        entry = versions[version]
        return ModelVersion(
            name=name,
            version=version,
            source=str(entry.get("source", "")),
            tags={str(k): str(v) for k, v in (entry.get("tags") or {}).items()},
            aliases=tuple(a for a, v in aliases.items() if v == version),
        )


@dataclass
class MlflowRegistry:
    """The platform's MLflow server (``mlflow.MlflowClient``; tracking URI and user from the environment)."""

    client: object

    @classmethod
    def from_environment(cls) -> MlflowRegistry:
        import os

        if not os.environ.get("MLFLOW_TRACKING_URI"):
            raise RegistryUnavailable(
                "MLFLOW_TRACKING_URI is not set, so the registered model cannot be looked up; "
                "run llmft where the team's MLflow variables are set (the Studio terminal), or "
                "render from a snapshot with --registry FILE (see docs/serving.md)"
            )
        try:
            from mlflow import MlflowClient
        except ImportError:
            raise RegistryUnavailable(
                "the mlflow package is not installed here; install requirements-cli.txt, or "
                "render from a snapshot with --registry FILE"
            ) from None
        return cls(MlflowClient())

    def model_version(self, name: str, *, version: int | None = None, alias: str | None = None) -> ModelVersion:
        # MlflowException (mlflow.exceptions) carries error_code RESOURCE_DOES_NOT_EXIST for what is not there; any
        # other failure (network, permission) is the registry being unavailable, never a refusal of the spec
        client = self.client
        try:
            client.get_registered_model(name)
        except Exception as exc:  # noqa: BLE001 - classified by _not_found
            if _not_found(exc):
                raise _unknown_model(name) from None
            raise RegistryUnavailable(f"MLflow: {exc}") from None
        try:
            mv = (
                client.get_model_version_by_alias(name, alias)
                if alias is not None
                else client.get_model_version(name, str(version))
            )
        except Exception as exc:  # noqa: BLE001 - classified by _not_found
            if not _not_found(exc):
                raise RegistryUnavailable(f"MLflow: {exc}") from None
            if alias is not None:
                raise _unknown_alias(
                    name, alias, list(getattr(client.get_registered_model(name), "aliases", {}))
                ) from None
            known = [int(v.version) for v in client.search_model_versions(f"name='{name}'")]
            raise _unknown_version(name, version or 0, known) from None
        return ModelVersion(
            name=name,
            version=int(mv.version),
            source=mv.source or "",
            tags=dict(mv.tags or {}),
            aliases=tuple(getattr(mv, "aliases", None) or ()),
        )


def _not_found(exc: Exception) -> bool:
    return (
        getattr(exc, "error_code", "") in ("RESOURCE_DOES_NOT_EXIST", "INVALID_PARAMETER_VALUE")
        or "not found" in str(exc).lower()
    )


@dataclass(frozen=True)
class ResolvedModel:
    """What a serve job serves: one exact version and the directory its pods load it from."""

    name: str
    version: int
    model_dir: str  # under /fsx, as the team's pods see it
    source: str
    alias: str | None = None
    evaluation: str | None = None
    digest: str | None = None  # the evaluated weights' content digest: the serving pod verifies it before loading


def model_dir(mv: ModelVersion, team: TeamConfig) -> tuple[str | None, str | None]:
    """(the version's weights under the team's ``/fsx``, None) or (None, why not)."""
    where = mv.source
    if mv.source.startswith(MLFLOW_REFERENCES):
        where = mv.tags.get(MODEL_DIR_TAG, "")
        if not where:
            return None, (
                f"serve.model: {mv.name} version {mv.version} is stored only in MLflow's artifact store "
                f"(source {mv.source!r}) and has no tag {MODEL_DIR_TAG}; serving loads weights from the "
                f"team's FSx: tag the version with {MODEL_DIR_TAG}=<the /fsx directory it was registered "
                f"from> (e.g. /fsx/checkpoints/<sft job>/merged)"
            )
    if where.startswith("s3://"):
        bucket_key = where.removeprefix("s3://").split("/", 1)
        key = bucket_key[1] if len(bucket_key) == 2 else ""
        if not key.startswith(team.data_prefix):
            return None, (
                f"serve.model: {mv.name} version {mv.version} is stored at {where!r}, outside team "
                f"{team.name}'s prefix s3://<data bucket>/{team.data_prefix}; a team serves only weights "
                f"on its own storage: register a copy under its prefix or its /fsx tree"
            )
        where = f"{TEAM_MOUNT_PATH}/{key[len(team.data_prefix) :]}"
    where = where.removeprefix("file://")
    normal = posixpath.normpath(where) if where else ""
    if not where or ".." in where.split("/") or not normal.startswith(TEAM_MOUNT_PATH + "/"):
        return None, (
            f"serve.model: {mv.name} version {mv.version} is stored at {where or mv.source!r}, which is not "
            f"on team {team.name}'s storage; a team serves only weights under its own {TEAM_MOUNT_PATH} "
            f"(or its S3 prefix {team.data_prefix})"
        )
    return normal, None


def resolve_model(spec, team: TeamConfig, registry: Registry) -> tuple[ResolvedModel | None, list[str]]:
    """(the model version ``spec`` serves, []) or (None, every reason it cannot be served, each naming the field)."""
    serve = spec.serve
    owner = serve.model.split(".", 1)[0]
    if owner != team.name:
        return None, [
            f"serve.model {serve.model!r} is team {owner}'s model; team {team.name} serves only its own "
            f"registered models ({team.name}.<name>): register it in your team, or submit as team {owner}"
        ]
    try:
        mv = registry.model_version(serve.model, version=serve.version, alias=serve.alias)
    except NotRegistered as exc:
        return None, [str(exc)]
    problems = []
    directory, why = model_dir(mv, team)
    if why:
        problems.append(why)
    evaluation = mv.tags.get(EVALUATION_TAG)
    if spec.tier in PRODUCTION_TIERS and evaluation != EVALUATION_PASSED:
        said = f"is tagged {EVALUATION_TAG}={evaluation}" if evaluation else f"has no tag {EVALUATION_TAG}"
        chosen = f"alias {serve.alias!r} -> version {mv.version}" if serve.alias else f"version {mv.version}"
        problems.append(
            f"serve.{'alias' if serve.alias else 'version'}: {serve.model} {chosen} {said}; tier "
            f"{spec.tier} serves only versions that passed evaluation ({EVALUATION_TAG}="
            f"{EVALUATION_PASSED}): evaluate it first (an evaluate job), or serve alias: "
            f"{EVALUATED_ALIAS}"
        )
    digest = mv.tags.get(EVALUATION_DIGEST_TAG)
    if spec.tier in PRODUCTION_TIERS and evaluation == EVALUATION_PASSED and not _is_digest(digest):
        problems.append(
            f"serve.model: {mv.name} version {mv.version} passed evaluation without a weights digest "
            f"({EVALUATION_DIGEST_TAG}={digest!r}); tier {spec.tier} serves only pinned weights: have the "
            f"platform's evaluator evaluate it again (it records the digest)"
        )
    if problems:
        return None, problems
    return ResolvedModel(
        name=mv.name,
        version=mv.version,
        model_dir=directory or "",
        source=mv.source,
        alias=serve.alias,
        evaluation=evaluation,
        digest=digest if _is_digest(digest) else None,
    ), []


def _is_digest(value: str | None) -> bool:
    """``sha256:`` + 64 hex digits (training/llm_platform/weights_digest.py)."""
    import re

    return bool(value) and re.fullmatch(r"sha256:[0-9a-f]{64}", value) is not None
