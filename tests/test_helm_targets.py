"""What the EKS Helm handler will really pull and install, for every Helm release in every synthesized template.

The kubectl provider's Helm handler (aws-cdk-lib ``custom-resource-handlers/dist/aws-eks-v2/kubectl-handler/helm``,
staged by the synth as a Lambda asset) is loaded from the synthesized cloud assembly and run on each
``Custom::AWSCDK-EKS-HelmChart`` resource's properties, with ``subprocess`` recorded instead of executed. What it
does, read from its code:

- ``oci://`` repository: ``helm pull <Repository> --version <Version> --untar`` (``Chart`` is ignored), then
  ``helm upgrade <release> <tmpdir>/<last path segment of Repository> --install`` without ``--repo``/``--version``;
- other repository: ``helm upgrade <release> <Chart> --install --repo <Repository> --version <Version>``;
- ``ChartAssetURL``: ``aws s3 cp`` of the zip, extracted, ``helm upgrade <release> <dir> --install``.

The test asserts that the pulled or installed target is a chart: an OCI reference whose last segment is the chart
name (and, on ECR Public, ``public.ecr.aws/<alias>/<repository>``: a bare alias is a namespace, not a chart), a bare
chart name in an HTTP repository, or a directory with a ``Chart.yaml``. New releases are covered automatically.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import types
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import Synth

HELM_TYPE = "Custom::AWSCDK-EKS-HelmChart"
EXACT_VERSION = re.compile(r"^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$")


def shipped_handler(synth: Synth) -> Path:
    """The Helm handler as staged into the cloud assembly (the Lambda asset the kubectl provider runs)."""
    found = [p for p in synth.outdir.glob("asset.*/helm/__init__.py") if "def helm_handler" in p.read_text()]
    assert len(found) == 1, f"expected one staged kubectl handler with helm/__init__.py, found {found}"
    return found[0]


def resolve(value: Any) -> Any:
    """CloudFormation intrinsics -> strings as the handler would see them (unknown values become ``<token>``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "Fn::Join" in value:
        sep, parts = value["Fn::Join"]
        return sep.join(str(resolve(p)) for p in parts)
    if isinstance(value, dict):
        return "<token>"
    if isinstance(value, bool):  # CloudFormation hands custom resources strings
        return "true" if value else "false"
    return str(value)


class Recorder:
    """Stands in for the ``subprocess`` calls of the handler; records each command."""

    def __init__(self, outdir: Path, assets: Path) -> None:
        self.commands: list[list[str]] = []
        self.outdir, self.assets = outdir, assets

    def check_call(self, cmd: list[str], **_: Any) -> int:
        self.commands.append(list(cmd))
        if cmd[:3] == ["aws", "s3", "cp"]:  # the chart asset: zip the staged asset directory, as CDK uploads it
            asset_hash = cmd[3].rsplit("/", 1)[-1].removesuffix(".zip")
            source = self.assets / f"asset.{asset_hash}"
            assert source.is_dir(), f"{cmd[3]} is not a staged directory asset"
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as zf:
                for f in sorted(source.rglob("*")):
                    zf.write(f, f.relative_to(source))
            Path(cmd[4]).write_bytes(buf.getvalue())
        return 0

    def check_output(self, cmd: list[str], **_: Any) -> bytes:
        self.commands.append(list(cmd))
        return b""

    def popen(self, cmd: list[str], **_: Any) -> Any:
        self.commands.append(list(cmd))
        return types.SimpleNamespace(
            stdout=io.BytesIO(), stderr=io.BytesIO(), returncode=0, communicate=lambda: (b"", b""), wait=lambda: 0
        )


def run_handler(
    handler_file: Path, props: dict[str, Any], tmp: Path, assets: Path, monkeypatch: pytest.MonkeyPatch
) -> list[list[str]]:
    monkeypatch.setenv("PATH", os.environ["PATH"])  # the module prepends /opt/helm to PATH on import
    monkeypatch.setenv("TEST_OUTDIR", str(tmp))
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    spec = importlib.util.spec_from_file_location(f"cdk_helm_handler_{tmp.name}", handler_file)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    recorder = Recorder(tmp, assets)
    monkeypatch.setattr(subprocess, "check_call", recorder.check_call)
    monkeypatch.setattr(subprocess, "check_output", recorder.check_output)
    monkeypatch.setattr(subprocess, "Popen", recorder.popen)
    module.helm_handler({"RequestType": "Create", "ResourceProperties": props}, None)
    sys.modules.pop(spec.name, None)
    return recorder.commands


def helm_resources(synth: Synth) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (stack, lid, {k: resolve(v) for k, v in res["Properties"].items() if k != "ServiceToken"})
        for stack, template in synth.templates.items()
        for lid, res in template["Resources"].items()
        if res["Type"] == HELM_TYPE
    ]


def assert_oci_chart_reference(ref: str, chart: str | None) -> None:
    m = re.fullmatch(r"oci://([^/]+)/(.+)", ref)
    assert m, f"{ref!r} is not an oci://<registry>/<path> reference"
    registry, path = m[1], m[2].split("/")
    # ECR Public: public.ecr.aws/<registry alias>/<repository>; the alias alone names no repository
    # (https://docs.aws.amazon.com/AmazonECR/latest/public/public-repositories.html).
    minimum = 2 if registry == "public.ecr.aws" else 1
    assert len(path) >= minimum and all(path), (
        f"helm would pull {ref!r}, a registry namespace, not a chart: use {ref}/{chart}"
    )
    assert path[-1] == chart, (
        f"helm pulls {ref!r} (Chart {chart!r} is ignored for OCI); the chart directory it "
        f"untars is named after the chart, the handler installs <tmp>/{path[-1]}"
    )


def test_every_helm_release_pulls_and_installs_a_chart(
    env_synth: Synth, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handler = shipped_handler(env_synth)
    resources = helm_resources(env_synth)
    assert resources, "no Helm releases synthesized"
    for stack, lid, props in resources:
        work = tmp_path / lid
        work.mkdir()
        commands = run_handler(handler, props, work, env_synth.outdir, monkeypatch)
        where = f"{stack}/{lid} (release {props['Release']})"
        upgrades = [c for c in commands if c[:2] == ["helm", "upgrade"]]
        assert len(upgrades) == 1, f"{where}: {commands}"
        (upgrade,) = upgrades
        assert upgrade[2] == props["Release"] and upgrade[4] == "--install", where
        target = upgrade[3]
        pulls = [c for c in commands if c[:2] == ["helm", "pull"]]
        repository = props.get("Repository")
        if repository and repository.startswith("oci://"):
            (pull,) = pulls
            assert pull[3:5] == ["--version", props["Version"]], where
            assert EXACT_VERSION.match(props["Version"]), f"{where}: pin an exact chart version"
            assert_oci_chart_reference(pull[2], props.get("Chart"))
            assert Path(target).name == props["Chart"] and "--repo" not in upgrade, where
        elif repository:
            assert not pulls, where
            assert repository.startswith("https://"), f"{where}: {repository}"
            assert target == props["Chart"] and re.fullmatch(r"[a-z0-9][a-z0-9-]*", target), (
                f"{where}: with --repo, the chart argument must be the bare chart name, not {target!r}"
            )
            assert upgrade[upgrade.index("--repo") + 1] == repository, where
            version = upgrade[upgrade.index("--version") + 1]
            assert EXACT_VERSION.match(version), f"{where}: pin an exact chart version, not {version!r}"
        else:
            assert props.get("ChartAssetURL", "").startswith("s3://"), where
            chart_yaml = Path(target) / "Chart.yaml"
            assert chart_yaml.is_file(), f"{where}: the asset does not unpack to a chart directory"
            assert yaml.safe_load(chart_yaml.read_text())["apiVersion"] == "v2", where
        if props.get("Values") not in (None, ""):
            json.loads(props["Values"])  # the handler json.loads the Values property
