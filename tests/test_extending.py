"""Extending the platform as docs/extending.md ("Extending a construct") shows: the example itself passes cdk-nag across
stacks, the constructs' own grants are scoped, and the stacks' props refuse wrong objects."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_iam as iam
from cdk_nag import AwsSolutionsChecks

from cdk_constructs.storage.platform_key import PlatformKey
from cdk_constructs.storage.secure_bucket import SecureBucket

from .conftest import CDK_CONTEXT, ROOT, config_with

ENV = cdk.Environment(account="123456789012", region="us-east-1")


def readme_example(marker: str) -> str:
    """The code block of docs/extending.md that contains ``marker``."""
    section = (ROOT / "docs" / "extending.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    found = [b for b in blocks if marker in b]
    assert len(found) == 1, f"docs/extending.md has {len(found)} python blocks with {marker!r}"
    return found[0]


def _app() -> cdk.App:
    app = cdk.App(
        outdir=tempfile.mkdtemp(prefix="extending-"), context={**CDK_CONTEXT}, builtin_cloud_formation_validation=False
    )
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app


def _synth(app: cdk.App) -> str | None:
    """cdk-nag's report when synthesis fails on findings, else None."""
    try:
        app.synth()
    except RuntimeError as exc:
        return str(exc)
    return None


def _two_stacks() -> tuple[cdk.App, cdk.Stack, SimpleNamespace, iam.Role]:
    """A storage stack (platform key, access-log bucket) and another stack with a team role, as in the app."""
    app = _app()
    storage_stack = cdk.Stack(app, "Storage", env=ENV)
    key = PlatformKey(storage_stack, "Key", alias="extending")
    logs = SecureBucket(storage_stack, "AccessLogs").bucket
    # a bucket that logs into it (cdk-nag accepts an access-log target without logging of its own, as in the app)
    SecureBucket(storage_stack, "Data", encryption_key=key.key, server_access_logs_bucket=logs)
    other = cdk.Stack(app, "Team", env=ENV)
    role = iam.Role(other, "TeamRole", assumed_by=iam.ServicePrincipal("pods.eks.amazonaws.com"))
    return app, storage_stack, SimpleNamespace(key=key.key, platform_key=key, access_logs_bucket=logs), role


def _policy_statements(app: cdk.App, stack: str) -> list[dict[str, Any]]:
    template = json.loads((Path(app.outdir) / f"{stack}.template.json").read_text())
    return [
        s
        for r in template["Resources"].values()
        if r["Type"] == "AWS::IAM::Policy"
        for s in r["Properties"]["PolicyDocument"]["Statement"]
    ]


def test_the_readme_grant_example_passes_cdk_nag_across_stacks() -> None:
    app, storage_stack, storage, role = _two_stacks()
    namespace = {
        "self": storage_stack,
        "storage": storage,
        "compute": SimpleNamespace(team_roles={"ml-research": role}),
    }
    exec(readme_example("grant_read"), namespace)  # noqa: S102 - the page's own code, run as written
    assert _synth(app) is None
    statements = _policy_statements(app, "Team")
    s3_resources = [r for s in statements if any(a.startswith("s3:") for a in s["Action"]) for r in s["Resource"]]
    objects = [json.dumps(r) for r in s3_resources if "/" in json.dumps(r)]
    assert objects and all("/evals/*" in o for o in objects), objects  # the prefix only, never the whole bucket


def test_the_same_grant_through_aws_cdk_lib_fails_cdk_nag() -> None:
    """Why the constructs have grants of their own: the library's grant leaves four IAM5 findings."""
    app, storage_stack, storage, role = _two_stacks()
    evals = SecureBucket(
        storage_stack, "Evaluations", encryption_key=storage.key, server_access_logs_bucket=storage.access_logs_bucket
    )
    evals.bucket.grant_read(role)
    report = _synth(app)
    assert report is not None and report.count("AwsSolutions-IAM5") >= 4


def test_read_write_grant_is_scoped_to_the_prefix() -> None:
    app, storage_stack, storage, role = _two_stacks()
    bucket = SecureBucket(
        storage_stack, "Scratch", encryption_key=storage.key, server_access_logs_bucket=storage.access_logs_bucket
    )
    grant = bucket.grant_read_write(role, prefix="teams/a/")
    assert grant.success
    assert _synth(app) is None
    statements = _policy_statements(app, "Team")
    writes = [s for s in statements if "s3:PutObject" in s["Action"]]
    assert writes and all("/teams/a/*" in json.dumps(s["Resource"]) for s in writes)


def test_a_grant_prefix_must_be_a_folder() -> None:
    _, storage_stack, storage, role = _two_stacks()
    bucket = SecureBucket(storage_stack, "Scratch", server_access_logs_bucket=storage.access_logs_bucket)
    with pytest.raises(ValueError, match=r"prefix 'teams/a' must end with '/'"):
        bucket.grant_read(role, prefix="teams/a")


def test_platform_key_grants_this_key_only_and_pass_cdk_nag() -> None:
    app, _, storage, role = _two_stacks()
    storage.platform_key.grant_encrypt_decrypt(role)
    storage.platform_key.grant_decrypt(role)
    assert _synth(app) is None
    kms = [s for s in _policy_statements(app, "Team") if any(a.startswith("kms:") for a in s["Action"])]
    assert kms and all("Key" in json.dumps(s["Resource"]) and s["Resource"] != "*" for s in kms)


def test_compute_stack_refuses_a_wrong_mlflow_object() -> None:
    from stacks.compute_stack import ComputeStack
    from stacks.mlflow_stack import MlflowConnection

    app = cdk.App(context={**CDK_CONTEXT})
    config = config_with("dev")
    with pytest.raises(TypeError, match=r"mlflow must be an MlflowConnection .*got str"):
        ComputeStack(
            app,
            "Wrong",
            config=config,
            vpc=None,
            private_subnets=[],
            hyperpod_subnet=None,
            security_groups=None,
            file_system=None,
            mlflow="https://mlflow.example.com",
        )
    assert isinstance(SimpleNamespace(tracking_uri="https://x", team_credentials_secrets={}), MlflowConnection)


def test_compute_stack_contract_lists_what_it_exposes() -> None:
    """Every public attribute other stacks read off ComputeStack in app.py, and the team roles, is in its
    contract docstring."""
    import ast

    from stacks.compute_stack import ComputeStack

    doc = ComputeStack.__doc__ or ""
    tree = ast.parse((ROOT / "app.py").read_text())
    used = {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "compute"
    }
    missing = sorted(a for a in used | {"team_roles"} if f"``{a}``" not in doc)
    assert not missing, f"ComputeStack's contract docstring does not list {missing}"
