"""Image builds in AWS: one ECR repository and one CodeBuild project per platform image (`<Env>-Storage`), the
stack outputs of the image URIs, and `make images` (tools/images/build.py) against botocore's Stubber."""

from __future__ import annotations

import json

import boto3
import pytest
import yaml
from botocore.stub import Stubber

from cdk_constructs.storage.image_build import buildspec
from k8s_charts.images import (
    IMAGE_NAMES,
    IMAGES,
    build_project_name,
    image_tag,
    image_uri,
    input_files,
    repository_name,
)
from tools.images import build as images_build

from .conftest import ROOT, Synth, config_with
from .test_network import lid


def _resolve(value, stack_resources: dict) -> str:
    """A Fn::Join/Ref of the template as text (Refs to repositories become their names)."""
    if isinstance(value, str):
        return value
    if "Ref" in value:
        ref = value["Ref"]
        return stack_resources.get(ref, {}).get("Properties", {}).get("RepositoryName", f"<{ref}>")
    if "Fn::Join" in value:
        sep, parts = value["Fn::Join"]
        return sep.join(_resolve(p, stack_resources) for p in parts)
    return f"<{next(iter(value))}>"


def projects(synth: Synth) -> dict[str, dict]:
    out = {}
    for res in synth.resources("storage", "AWS::CodeBuild::Project").values():
        env = {v["Name"]: v["Value"] for v in res["Properties"]["Environment"]["EnvironmentVariables"]}
        out[env["IMAGE_NAME"]] = res
    return out


def test_one_repository_per_image(env_synth: Synth) -> None:
    repos = env_synth.resources("storage", "AWS::ECR::Repository")
    assert sorted(r["Properties"]["RepositoryName"] for r in repos.values()) == sorted(
        repository_name(env_synth.config, name) for name in IMAGE_NAMES
    )
    for repo in repos.values():
        props = repo["Properties"]
        assert props["ImageTagMutability"] == "IMMUTABLE"
        assert props["ImageScanningConfiguration"] == {"ScanOnPush": True}
        assert props["EncryptionConfiguration"]["EncryptionType"] == "KMS"
        assert (
            f'"countNumber":{env_synth.config.storage.ecr.untagged_image_expiry_days}'
            in props["LifecyclePolicy"]["LifecyclePolicyText"]
        )
        assert repo["DeletionPolicy"] == "RetainExceptOnCreate" and repo["UpdateReplacePolicy"] == "Retain"


def test_build_projects_build_each_image_with_its_synth_time_tag(env_synth: Synth) -> None:
    stack = env_synth.stacks["storage"]
    res = env_synth.templates["storage"]["Resources"]
    found = projects(env_synth)
    assert set(found) == set(IMAGE_NAMES)
    for name, project in found.items():
        props = project["Properties"]
        env = {v["Name"]: v["Value"] for v in props["Environment"]["EnvironmentVariables"]}
        assert props["Name"] == build_project_name(env_synth.config, name)
        assert env["IMAGE_TAG"] == image_tag(name) and env["DOCKERFILE"] == f"images/{name}/Dockerfile"
        assert _resolve(env["REPOSITORY_NAME"], res) == repository_name(env_synth.config, name)
        assert props["Environment"]["PrivilegedMode"] is True
        # 72 vCPUs / 144 GiB / 824 GB SSD: room for a ~20-40 GB CUDA image and flash-attn's compile
        assert props["Environment"]["ComputeType"] == "BUILD_GENERAL1_2XLARGE"
        assert props["Environment"]["Image"] == "aws/codebuild/standard:7.0"
        assert props["EncryptionKey"] == {"Fn::GetAtt": [lid(stack.key), "Arn"]}
        assert props["TimeoutInMinutes"] >= IMAGES[name].expected_build_minutes
        assert props["Source"]["Type"] == "S3"
        group = props["LogsConfig"]["CloudWatchLogs"]
        assert group["Status"] == "ENABLED"
        log_group = res[group["GroupName"]["Ref"]]["Properties"]
        assert log_group["RetentionInDays"] == env_synth.config.storage.ecr.build_log_retention_days
        assert log_group["KmsKeyId"] == {"Fn::GetAtt": [lid(stack.key), "Arn"]}


def test_build_role_may_push_to_its_own_repository_only(env_synth: Synth) -> None:
    res = env_synth.templates["storage"]["Resources"]
    repos = {r["Properties"]["RepositoryName"]: lid_ for lid_, r in res.items() if r["Type"] == "AWS::ECR::Repository"}
    for name, project in projects(env_synth).items():
        role = project["Properties"]["ServiceRole"]["Fn::GetAtt"][0]
        policies = [
            r for r in res.values() if r["Type"] == "AWS::IAM::Policy" and {"Ref": role} in r["Properties"]["Roles"]
        ]
        statements = [s for p in policies for s in p["Properties"]["PolicyDocument"]["Statement"]]
        actions = {a for s in statements for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}
        assert not any("*" in a for a in actions), actions
        assert "ecr:PutImage" in actions and not any(a.startswith(("iam:", "ecr:Delete", "s3:Put")) for a in actions)
        ecr_targets = {
            json.dumps(s["Resource"])
            for s in statements
            if any(
                a.startswith("ecr:") and a != "ecr:GetAuthorizationToken"
                for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
            )
        }
        assert ecr_targets == {json.dumps({"Fn::GetAtt": [repos[repository_name(env_synth.config, name)], "Arn"]})}
        star = [s for s in statements if s["Resource"] == "*"]
        assert [s["Action"] for s in star] == ["ecr:GetAuthorizationToken"]


def test_stack_outputs_each_image_uri(env_synth: Synth) -> None:
    outputs = env_synth.templates["storage"]["Outputs"]
    res = env_synth.templates["storage"]["Resources"]
    for name in IMAGE_NAMES:
        value = outputs[f"ImageUri{name.replace('-', '')}"]["Value"]
        text = _resolve(value, res)
        # the registry part is the repository ARN's account/region; the rest is what image_uri() computes
        assert text.endswith(
            ".dkr.ecr.<Fn::Select>.<Ref>/" + image_uri(env_synth.config, name).split("/", 1)[1]
        ) or text.endswith("/" + image_uri(env_synth.config, name).split("/", 1)[1])


def test_source_asset_holds_exactly_the_build_inputs(dev: Synth) -> None:
    """The asset CodeBuild downloads contains every file the image hashes cover, and nothing outside images/ and
    training/ (no virtualenvs, node_modules or secrets from the working tree)."""
    stack = dev.stacks["storage"]
    staged = (
        dev.outdir / stack.image_source.asset_path
        if not stack.image_source.asset_path.startswith("/")
        else stack.image_source.asset_path
    )
    from pathlib import Path

    staged = Path(staged)
    files = {p.relative_to(staged).as_posix() for p in staged.rglob("*") if p.is_file()}
    assert files, "the asset is empty"
    assert {p.split("/")[0] for p in files} <= {"images", "training"}
    hashed = {p.relative_to(ROOT).as_posix() for name in IMAGE_NAMES for p in input_files(name)}
    assert hashed <= files
    assert not any("__pycache__" in p or p.endswith(".pyc") for p in files)


def test_buildspec_skips_existing_tags_and_pushes_only_after_a_successful_build() -> None:
    spec = buildspec()
    commands = [c for phase in spec["phases"].values() for c in phase["commands"]]
    text = "\n".join(commands)
    assert "docker login" in commands[0] and "ecr get-login-password" in commands[0]
    assert "describe-images" in text and "ALREADY_PUSHED" in text
    push = spec["phases"]["post_build"]["commands"][0]
    assert "CODEBUILD_BUILD_SUCCEEDING" in push and "docker push" in push
    assert spec["phases"]["build"]["commands"][0].count('--file "$DOCKERFILE"') == 1
    yaml.safe_dump(spec)  # serialisable as a buildspec


# ---- make images ---------------------------------------------------------------------------------------------
CFG = config_with("dev")


def clients():
    codebuild = boto3.client("codebuild", region_name=CFG.region, aws_access_key_id="x", aws_secret_access_key="x")
    ecr = boto3.client("ecr", region_name=CFG.region, aws_access_key_id="x", aws_secret_access_key="x")
    return codebuild, ecr


def _project(name: str, tag: str) -> dict:
    return {
        "projects": [
            {
                "name": build_project_name(CFG, name),
                "environment": {
                    "type": "LINUX_CONTAINER",
                    "image": "aws/codebuild/standard:7.0",
                    "computeType": "BUILD_GENERAL1_2XLARGE",
                    "environmentVariables": [{"name": "IMAGE_TAG", "value": tag, "type": "PLAINTEXT"}],
                },
            }
        ]
    }


def test_make_images_starts_missing_builds_and_skips_existing_tags() -> None:
    codebuild, ecr = clients()
    with Stubber(codebuild) as cb, Stubber(ecr) as er:
        cb.add_response(
            "batch_get_projects", _project("sft", image_tag("sft")), {"names": [build_project_name(CFG, "sft")]}
        )
        er.add_response(
            "describe_images",
            {"imageDetails": [{"imageTags": [image_tag("sft")]}]},
            {"repositoryName": repository_name(CFG, "sft"), "imageIds": [{"imageTag": image_tag("sft")}]},
        )
        cb.add_response(
            "batch_get_projects",
            _project("verl-sglang", image_tag("verl-sglang")),
            {"names": [build_project_name(CFG, "verl-sglang")]},
        )
        er.add_client_error("describe_images", "ImageNotFoundException")
        cb.add_response(
            "list_builds_for_project",
            {"ids": ["llmft-dev-image-verl-sglang:0"]},
            {"projectName": build_project_name(CFG, "verl-sglang"), "sortOrder": "DESCENDING"},
        )
        cb.add_response(  # the previous build has finished: start one
            "batch_get_builds",
            {"builds": [{"id": "llmft-dev-image-verl-sglang:0", "buildStatus": "FAILED"}]},
            {"ids": ["llmft-dev-image-verl-sglang:0"]},
        )
        cb.add_response(
            "start_build",
            {"build": {"id": "llmft-dev-image-verl-sglang:1", "buildStatus": "IN_PROGRESS"}},
            {"projectName": build_project_name(CFG, "verl-sglang")},
        )
        cb.add_response(
            "batch_get_builds",
            {
                "builds": [
                    {"id": "llmft-dev-image-verl-sglang:1", "buildStatus": "IN_PROGRESS", "currentPhase": "BUILD"}
                ]
            },
            {"ids": ["llmft-dev-image-verl-sglang:1"]},
        )
        cb.add_response(
            "batch_get_builds",
            {
                "builds": [
                    {
                        "id": "llmft-dev-image-verl-sglang:1",
                        "buildStatus": "FAILED",
                        "currentPhase": "COMPLETED",
                        "phases": [{"phaseType": "BUILD", "phaseStatus": "FAILED"}],
                        "logs": {"deepLink": "https://console/logs"},
                    }
                ]
            },
            {"ids": ["llmft-dev-image-verl-sglang:1"]},
        )
        lines: list[str] = []
        outcomes = images_build.start(CFG, IMAGE_NAMES, codebuild=codebuild, ecr=ecr, log=lines.append)
        outcomes = images_build.wait(outcomes, codebuild=codebuild, sleep=lambda s: None, log=lines.append)
    status = {o.image: o for o in outcomes}
    assert status["sft"].status == "UP_TO_DATE" and status["sft"].detail == image_uri(CFG, "sft")
    assert status["verl-sglang"].status == "FAILED"
    assert status["verl-sglang"].detail == "BUILD FAILED: https://console/logs"
    assert lines == [
        "verl-sglang: started llmft-dev-image-verl-sglang:1",
        "verl-sglang: BUILD",
        "verl-sglang: COMPLETED",
    ]
    assert "UP_TO_DATE" in images_build.report(outcomes)


@pytest.mark.parametrize("deployed,expected", [(None, "NO_PROJECT"), ("1.0.0-000000000000", "STALE_PROJECT")])
def test_make_images_refuses_a_project_that_builds_another_checkout(deployed: str | None, expected: str) -> None:
    codebuild, ecr = clients()
    with Stubber(codebuild) as cb:
        cb.add_response(
            "batch_get_projects",
            {"projects": []} if deployed is None else _project("sft", deployed),
            {"names": [build_project_name(CFG, "sft")]},
        )
        (outcome,) = images_build.start(CFG, ["sft"], codebuild=codebuild, ecr=ecr, log=lambda s: None)
    assert outcome.status == expected and "make deploy ENV=dev" in outcome.detail


def test_make_images_waits_for_a_running_build_instead_of_starting_one() -> None:
    """A retried pipeline step finds its first build still running: the project admits one build at a time
    (ConcurrentBuildLimit 1), so it waits for that build instead of failing to start another."""
    codebuild, ecr = clients()
    project = build_project_name(CFG, "verl-sglang")
    with Stubber(codebuild) as cb, Stubber(ecr) as er:
        cb.add_response("batch_get_projects", _project("verl-sglang", image_tag("verl-sglang")), {"names": [project]})
        er.add_client_error("describe_images", "ImageNotFoundException")
        cb.add_response(
            "list_builds_for_project",
            {"ids": [f"{project}:7", f"{project}:6"]},
            {"projectName": project, "sortOrder": "DESCENDING"},
        )
        cb.add_response(
            "batch_get_builds",
            {"builds": [{"id": f"{project}:7", "buildStatus": "IN_PROGRESS"}]},
            {"ids": [f"{project}:7"]},
        )
        lines: list[str] = []
        (outcome,) = images_build.start(CFG, ["verl-sglang"], codebuild=codebuild, ecr=ecr, log=lines.append)
        cb.assert_no_pending_responses()
    assert outcome.build_id == f"{project}:7" and outcome.status == "IN_PROGRESS"
    assert lines == [f"verl-sglang: waiting for the running {project}:7"]
