"""`make deploy`'s pre-deploy check against the EKS API as botocore's Stubber plays it (the real client, its real
request validation and error classes; no network, no credentials)."""

from __future__ import annotations

import re
from pathlib import Path

import boto3
import pytest
from botocore.stub import Stubber

from tools.predeploy import TASK_GOVERNANCE_ADDON, Refused, check

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = "llmft-dev"


@pytest.fixture()
def eks():
    client = boto3.client("eks", region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="x")
    with Stubber(client) as stub:
        yield client, stub
        stub.assert_no_pending_responses()


def test_refuses_when_task_governance_is_installed(eks) -> None:
    client, stub = eks
    stub.add_response("list_addons", {"addons": ["vpc-cni", "coredns"], "nextToken": "p2"}, {"clusterName": CLUSTER})
    stub.add_response("list_addons", {"addons": [TASK_GOVERNANCE_ADDON]}, {"clusterName": CLUSTER, "nextToken": "p2"})
    with pytest.raises(
        Refused,
        match=rf"{TASK_GOVERNANCE_ADDON}.*kueue-system.*delete-addon --cluster-name "
        rf"{CLUSTER}",
    ):
        check(client, CLUSTER)


def test_passes_without_task_governance(eks) -> None:
    client, stub = eks
    stub.add_response(
        "list_addons", {"addons": ["vpc-cni", "amazon-cloudwatch-observability"]}, {"clusterName": CLUSTER}
    )
    assert "2 add-on(s)" in check(client, CLUSTER)


def test_first_deploy_passes_when_the_cluster_does_not_exist(eks) -> None:
    client, stub = eks
    stub.add_client_error(
        "list_addons",
        service_error_code="ResourceNotFoundException",
        service_message="No cluster found for name: llmft-dev.",
        http_status_code=404,
        expected_params={"clusterName": CLUSTER},
    )
    assert "does not exist yet" in check(client, CLUSTER)


def test_other_api_errors_are_not_swallowed(eks) -> None:
    client, stub = eks
    stub.add_client_error(
        "list_addons",
        service_error_code="AccessDeniedException",
        http_status_code=403,
        expected_params={"clusterName": CLUSTER},
    )
    with pytest.raises(client.exceptions.ClientError):
        check(client, CLUSTER)


def test_make_deploy_runs_the_check_before_cdk_deploy() -> None:
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^deploy:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)[1].splitlines()
    check_line = next(i for i, line in enumerate(recipe) if "tools.predeploy" in line)
    deploy_line = next(i for i, line in enumerate(recipe) if "deploy --all" in line)
    assert check_line < deploy_line and "--env $(ENV)" in recipe[check_line]
