"""lambda/fsx_network_interfaces: the custom resource that adds the Studio NFS security group to an existing FSx for
Lustre file system's network interfaces, run against botocore's Stubber (real request/response shapes of the
pinned botocore, validated by the Stubber against the service models; no network)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import boto3
import pytest
from botocore.stub import Stubber

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")

ROOT = Path(__file__).resolve().parents[1]
HANDLER = ROOT / "lambda" / "fsx_network_interfaces" / "index.py"
FS, SG, OTHER, THIRD = "fs-0123456789abcdef0", "sg-0studio000000000a", "sg-0fsxowner0000000b", "sg-0third00000000000c"


def handler():
    spec = importlib.util.spec_from_file_location("fsx_network_interfaces", HANDLER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


H = handler()


class Clients:
    def __init__(self) -> None:
        self.fsx = boto3.client("fsx", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")
        self.ec2 = boto3.client("ec2", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y")
        self.fsx_stub, self.ec2_stub = Stubber(self.fsx), Stubber(self.ec2)
        self.sleeps: list[float] = []
        self.logs: list[str] = []

    def reconciler(self):
        return H.Reconciler(self.fsx, self.ec2, sleep=self.sleeps.append, log=self.logs.append)

    def file_system(self, enis: list[str]) -> None:
        self.fsx_stub.add_response(
            "describe_file_systems",
            {"FileSystems": [{"FileSystemId": FS, "FileSystemType": "LUSTRE", "NetworkInterfaceIds": enis}]},
            {"FileSystemIds": [FS]},
        )

    def interfaces(self, groups: dict[str, list[str]]) -> None:
        self.ec2_stub.add_response(
            "describe_network_interfaces",
            {
                "NetworkInterfaces": [
                    {"NetworkInterfaceId": eni, "Groups": [{"GroupId": g, "GroupName": g} for g in gs]}
                    for eni, gs in groups.items()
                ]
            },
            {"NetworkInterfaceIds": list(groups)},
        )

    def modify(self, eni: str, groups: list[str]) -> None:
        self.ec2_stub.add_response(
            "modify_network_interface_attribute", {}, {"NetworkInterfaceId": eni, "Groups": sorted(groups)}
        )

    def __enter__(self):
        self.fsx_stub.activate()
        self.ec2_stub.activate()
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is None:
            self.fsx_stub.assert_no_pending_responses()
            self.ec2_stub.assert_no_pending_responses()
        self.fsx_stub.deactivate()
        self.ec2_stub.deactivate()


def event(kind: str, physical: str | None = None, fs: str = FS, sg: str = SG) -> dict:
    out = {
        "RequestType": kind,
        "ResourceProperties": {"ServiceToken": "arn", "FileSystemId": fs, "SecurityGroupId": sg},
    }
    if physical:
        out["PhysicalResourceId"] = physical
    return out


def test_create_adds_the_group_keeping_every_existing_one() -> None:
    with Clients() as c:
        c.file_system(["eni-0aaaaaaaaaaaaaaaa", "eni-0bbbbbbbbbbbbbbbb"])
        c.interfaces({"eni-0aaaaaaaaaaaaaaaa": [OTHER], "eni-0bbbbbbbbbbbbbbbb": [OTHER, THIRD]})
        c.modify("eni-0aaaaaaaaaaaaaaaa", [OTHER, SG])
        c.modify("eni-0bbbbbbbbbbbbbbbb", [OTHER, THIRD, SG])
        out = H.handle(event("Create"), c.reconciler())
    assert out["PhysicalResourceId"] == f"{FS}/{SG}"
    assert out["Data"] == {
        "NetworkInterfaceIds": "eni-0aaaaaaaaaaaaaaaa,eni-0bbbbbbbbbbbbbbbb",
        "Changed": "eni-0aaaaaaaaaaaaaaaa,eni-0bbbbbbbbbbbbbbbb",
    }


def test_create_is_idempotent_and_reaches_interfaces_that_appeared_later() -> None:
    """Re-run (Update with the same properties, or a redeploy): interfaces that already carry the group are not
    touched, a new one (the file system scaled up) is; the physical id stays, so CloudFormation deletes nothing."""
    with Clients() as c:
        c.file_system(["eni-0aaaaaaaaaaaaaaaa", "eni-0bbbbbbbbbbbbbbbb", "eni-0dddddddddddddddd"])
        c.interfaces(
            {
                "eni-0aaaaaaaaaaaaaaaa": [OTHER, SG],
                "eni-0bbbbbbbbbbbbbbbb": [SG, OTHER],
                "eni-0dddddddddddddddd": [OTHER],
            }
        )
        c.modify("eni-0dddddddddddddddd", [OTHER, SG])
        out = H.handle(event("Update", physical=f"{FS}/{SG}"), c.reconciler())
    assert out["PhysicalResourceId"] == f"{FS}/{SG}" and out["Data"]["Changed"] == "eni-0dddddddddddddddd"
    with Clients() as c:
        c.file_system(["eni-0aaaaaaaaaaaaaaaa"])
        c.interfaces({"eni-0aaaaaaaaaaaaaaaa": [OTHER, SG]})
        out = H.handle(event("Create"), c.reconciler())  # no modify call stubbed: any call would fail
    assert out["Data"]["Changed"] == ""


def test_delete_removes_exactly_its_group() -> None:
    with Clients() as c:
        c.file_system(["eni-0aaaaaaaaaaaaaaaa", "eni-0bbbbbbbbbbbbbbbb", "eni-0cccccccccccccccc"])
        c.interfaces(
            {
                "eni-0aaaaaaaaaaaaaaaa": [OTHER, SG],
                "eni-0bbbbbbbbbbbbbbbb": [OTHER, THIRD, SG],
                "eni-0cccccccccccccccc": [OTHER],
            }
        )
        c.modify("eni-0aaaaaaaaaaaaaaaa", [OTHER])
        c.modify("eni-0bbbbbbbbbbbbbbbb", [OTHER, THIRD])
        out = H.handle(event("Delete", physical=f"{FS}/{SG}"), c.reconciler())
    assert out == {
        "PhysicalResourceId": f"{FS}/{SG}",
        "Data": {"Changed": "eni-0aaaaaaaaaaaaaaaa,eni-0bbbbbbbbbbbbbbbb"},
    }


def test_delete_never_leaves_an_interface_without_groups() -> None:
    with Clients() as c:
        c.file_system(["eni-0aaaaaaaaaaaaaaaa"])
        c.interfaces({"eni-0aaaaaaaaaaaaaaaa": [SG]})
        out = H.handle(event("Delete", physical=f"{FS}/{SG}"), c.reconciler())
    assert out["Data"]["Changed"] == "" and any("only group" in line for line in c.logs)


def test_delete_uses_the_pair_it_created_after_a_property_change() -> None:
    """An Update to another group returns a new physical id; CloudFormation then deletes the old pair, and the
    Delete acts on the old group (from the physical id), not on the new properties."""
    with Clients() as c:
        c.file_system(["eni-0aaaaaaaaaaaaaaaa"])
        c.interfaces({"eni-0aaaaaaaaaaaaaaaa": [OTHER, SG, THIRD]})
        c.modify("eni-0aaaaaaaaaaaaaaaa", [OTHER, THIRD])
        H.handle(event("Delete", physical=f"{FS}/{SG}", sg=THIRD), c.reconciler())
    with Clients() as c:
        c.file_system(["eni-0aaaaaaaaaaaaaaaa"])
        c.interfaces({"eni-0aaaaaaaaaaaaaaaa": [OTHER]})
        c.modify("eni-0aaaaaaaaaaaaaaaa", [OTHER, THIRD])
        out = H.handle(event("Update", physical=f"{FS}/{SG}", sg=THIRD), c.reconciler())
    assert out["PhysicalResourceId"] == f"{FS}/{THIRD}"


def test_missing_file_system() -> None:
    with Clients() as c:
        c.fsx_stub.add_client_error(
            "describe_file_systems",
            service_error_code="FileSystemNotFound",
            service_message="File system 'fs-0123456789abcdef0' does not exist.",
        )
        with pytest.raises(RuntimeError, match=f"{FS} does not exist.*studio.existing_cluster.file_system_id"):
            H.handle(event("Create"), c.reconciler())
    with Clients() as c:  # Delete of a file system that is gone: nothing to undo, the stack is not stuck
        c.fsx_stub.add_client_error("describe_file_systems", service_error_code="FileSystemNotFound")
        out = H.handle(event("Delete", physical=f"{FS}/{SG}"), c.reconciler())
    assert out["Data"] == {"Changed": ""}
    # a Create that failed before returning an id: Delete changes nothing and calls nothing
    with Clients() as c:
        assert H.handle(event("Delete", physical="some-request-id"), c.reconciler())["Data"] == {}


def test_throttling_is_retried_with_backoff_then_fails_clearly() -> None:
    with Clients() as c:
        c.fsx_stub.add_client_error("describe_file_systems", service_error_code="ThrottlingException")
        c.file_system(["eni-0aaaaaaaaaaaaaaaa"])
        c.ec2_stub.add_client_error("describe_network_interfaces", service_error_code="RequestLimitExceeded")
        c.interfaces({"eni-0aaaaaaaaaaaaaaaa": [OTHER]})
        c.modify("eni-0aaaaaaaaaaaaaaaa", [OTHER, SG])
        H.handle(event("Create"), c.reconciler())
    assert c.sleeps == [1, 1]
    with Clients() as c:
        c.file_system(["eni-0aaaaaaaaaaaaaaaa"])
        c.interfaces({"eni-0aaaaaaaaaaaaaaaa": [OTHER]})
        for _ in range(H.ATTEMPTS):
            c.ec2_stub.add_client_error("modify_network_interface_attribute", service_error_code="RequestLimitExceeded")
        with pytest.raises(RuntimeError, match="eni-0a+.*RequestLimitExceeded"):
            H.handle(event("Create"), c.reconciler())
    assert c.sleeps == [1, 2, 4, 8, 16]


def test_other_errors_fail_with_the_interface_and_call_named() -> None:
    with Clients() as c:
        c.file_system(["eni-0aaaaaaaaaaaaaaaa"])
        c.interfaces({"eni-0aaaaaaaaaaaaaaaa": [OTHER]})
        c.ec2_stub.add_client_error(
            "modify_network_interface_attribute",
            service_error_code="UnauthorizedOperation",
            service_message="You are not authorized",
        )
        with pytest.raises(RuntimeError, match=r"ModifyNetworkInterfaceAttribute on eni-0a+ \(add .*UnauthorizedOp"):
            H.handle(event("Create"), c.reconciler())
    assert c.sleeps == []


@pytest.mark.parametrize(("fs", "sg"), [("", SG), (FS, ""), ("vol-1", SG), (FS, "group")])
def test_bad_properties(fs: str, sg: str) -> None:
    with pytest.raises(ValueError, match="must look like fs-"):
        H.handle(event("Create", fs=fs, sg=sg), H.Reconciler(None, None))


# ---- the construct ---------------------------------------------------------------------------------------------------


def test_construct_deploys_this_handler_with_least_privilege() -> None:
    import aws_cdk as cdk
    from aws_cdk import assertions
    from aws_cdk import aws_ec2 as ec2
    from cdk_nag import AwsSolutionsChecks

    from cdk_constructs.studio.existing_file_system import HANDLER_DIR, ExistingFileSystemAccess

    app = cdk.App()
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    stack = cdk.Stack(app, "Existing", env=cdk.Environment(account="111122223333", region="us-east-1"))
    vpc = ec2.Vpc.from_vpc_attributes(
        stack,
        "Vpc",
        vpc_id="vpc-0123456789abcdef0",
        availability_zones=["us-east-1a"],
        private_subnet_ids=["subnet-0123456789abcdef0"],
    )
    group = ec2.SecurityGroup(stack, "Nfs", vpc=vpc, description="Studio NFS")
    access = ExistingFileSystemAccess(stack, "FsxAccess", file_system_id=FS, security_group=group, vpc=vpc)
    template = assertions.Template.from_stack(stack)
    (props,) = [r["Properties"] for r in template.find_resources("Custom::FsxNetworkInterfaces").values()]
    assert props["FileSystemId"] == FS and props["SecurityGroupId"] == {
        "Fn::GetAtt": [stack.get_logical_id(group.node.default_child), "GroupId"]
    }
    assert HANDLER_DIR == HANDLER.parent and access.function.runtime.name.startswith("python3.")
    statements = [
        s
        for p in template.find_resources("AWS::IAM::Policy").values()
        for s in p["Properties"]["PolicyDocument"]["Statement"]
    ]
    modify = [s for s in statements if s["Action"] == "ec2:ModifyNetworkInterfaceAttribute"]
    assert len(modify) == 2 and all("ec2:Vpc" in s["Condition"]["StringEquals"] for s in modify)
    (describe,) = [s for s in statements if s["Action"] == "fsx:DescribeFileSystems"]
    assert FS in str(describe["Resource"])
    assert not [s for s in statements if s["Action"] in ("ec2:*", "fsx:*", "*")]
    assert app.synth() is not None
    report = cdk.Validations.of(app)  # noqa: F841 - cdk-nag findings surface as synth errors below
