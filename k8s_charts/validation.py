"""Offline validation of rendered manifests (used by the tests; needs the dev requirements).

- Custom resources: the `openAPIV3Schema` of their CRD version (copies in k8s_charts/crds/), made strict like
  `kubectl apply --validate=strict`: objects that list `properties` reject unknown fields unless the schema
  preserves unknown fields. CEL rules (`x-kubernetes-validations`) are not evaluated.
- Core kinds: kubernetes-validate's strict schemas for the cluster's Kubernetes version (the newest bundled
  version if that one is not bundled).
- Pod templates embedded in PyTorchJob/RayJob are also checked as core `PodTemplate` objects.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import yaml

CRD_DIR = Path(__file__).resolve().parent / "crds"

# JSON pointers (as key paths) of the pod templates inside each job kind.
EMBEDDED_POD_TEMPLATES: dict[str, tuple[tuple[str | int, ...], ...]] = {
    "PyTorchJob": (
        ("spec", "pytorchReplicaSpecs", "Worker", "template"),
        ("spec", "pytorchReplicaSpecs", "Master", "template"),
    ),
    "RayJob": (
        ("spec", "rayClusterSpec", "headGroupSpec", "template"),
        ("spec", "rayClusterSpec", "workerGroupSpecs", "*", "template"),
        ("spec", "submitterPodTemplate"),
    ),
    "MPIJob": (("spec", "mpiReplicaSpecs", "Launcher", "template"), ("spec", "mpiReplicaSpecs", "Worker", "template")),
}


def _strict(schema: Any) -> Any:
    if isinstance(schema, dict):
        out = {k: _strict(v) for k, v in schema.items()}
        if (
            "properties" in out
            and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")
        ):
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_strict(v) for v in schema]
    return schema


def validators_from(path: Path) -> dict[tuple[str, str], jsonschema.protocols.Validator]:
    """(apiVersion, kind) -> strict validator, for every served version of the CRD(s) in the YAML file ``path``."""
    validators = {}
    # libyaml's safe loader when PyYAML has it (the CRDs are megabytes of YAML), else the pure-Python one
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for crd in (d for d in yaml.load_all(path.read_text(), Loader=loader) if d):
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for version in crd["spec"]["versions"]:
            if version.get("served"):
                schema = _strict(copy.deepcopy(version["schema"]["openAPIV3Schema"]))
                validators[(f"{group}/{version['name']}", kind)] = jsonschema.Draft4Validator(schema)
    return validators


@lru_cache(maxsize=1)
def crd_validators() -> dict[tuple[str, str], jsonschema.protocols.Validator]:
    """(apiVersion, kind) -> validator, for every served version of every CRD in :data:`CRD_DIR`."""
    validators = {}
    for path in sorted(CRD_DIR.glob("*.yaml")):
        validators.update(validators_from(path))
    return validators


def kubernetes_schema_version(kubernetes_version: str) -> str:
    """``kubernetes_version`` (e.g. '1.34') as kubernetes-validate names it, or its newest bundled version."""
    wanted = kubernetes_version if kubernetes_version.count(".") == 2 else f"{kubernetes_version}.0"
    bundled = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / f"v{wanted}-local-strict"
    if bundled.is_dir():
        return wanted
    newest = kubernetes_validate.latest_version()
    warnings.warn(
        f"kubernetes-validate {kubernetes_validate.__version__} has no schemas for Kubernetes "
        f"{kubernetes_version}; validating core kinds against {newest}, the newest it bundles",
        stacklevel=2,
    )
    return newest


def embedded_pod_templates(doc: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path, template) of every pod template inside a job manifest."""

    def walk(node: Any, path: tuple[str | int, ...], done: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
        if not path:
            yield "/".join(done), node
            return
        head, rest = path[0], path[1:]
        if head == "*" and isinstance(node, list):
            for i, item in enumerate(node):
                yield from walk(item, rest, (*done, str(i)))
        elif isinstance(node, dict) and head in node:
            yield from walk(node[head], rest, (*done, str(head)))

    for path in EMBEDDED_POD_TEMPLATES.get(doc.get("kind", ""), ()):
        yield from walk(doc, path, ())


def as_pod_template(doc: dict[str, Any], path: str, template: dict[str, Any]) -> dict[str, Any]:
    """A job's embedded pod template as a standalone core PodTemplate object."""
    name = f"{doc['metadata']['name']}-{path.replace('/', '-').lower()}"[:253]
    return {
        "apiVersion": "v1",
        "kind": "PodTemplate",
        "metadata": {"name": name, "namespace": doc["metadata"].get("namespace", "default")},
        "template": template,
    }


def validate(doc: dict[str, Any], kubernetes_version: str) -> list[str]:
    """Every problem with one manifest (empty if valid)."""
    key = (doc.get("apiVersion", ""), doc.get("kind", ""))
    label = f"{key[1]} {doc.get('metadata', {}).get('name')}"
    validator = crd_validators().get(key)
    if validator is not None:
        errors = [f"{label}: {'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
        for path, template in embedded_pod_templates(doc):
            errors += validate(as_pod_template(doc, path, template), kubernetes_version)
        return errors
    try:
        kubernetes_validate.validate(doc, kubernetes_schema_version(kubernetes_version), strict=True)
    except kubernetes_validate.ValidationError as exc:
        return [f"{label}: {exc.message} at {'/'.join(map(str, exc.path))}"]
    except kubernetes_validate.SchemaNotFoundError:
        return [f"{label}: neither a core kind of Kubernetes {kubernetes_version} nor a CRD in {CRD_DIR}"]
    return []
