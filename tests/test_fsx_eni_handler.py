"""The FSx ENI security-group custom resource handler (lambda/fsx_eni_security_groups), fault by fault.

EC2 is moto; FSx DescribeFileSystems (which moto answers with an empty list for an unknown ID, unlike the real
service) is botocore's Stubber. Faults are injected as real HTTP error responses at ``before-send``, so they pass
through botocore's adaptive retry exactly as in Lambda. Every test asserts the end state of the interfaces.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from botocore.stub import Stubber
from moto import mock_aws

HANDLER_PATH = Path(__file__).resolve().parents[1] / "lambda" / "fsx_eni_security_groups" / "index.py"
REGION = "us-east-1"
FS_ID = "fs-0123456789abcdef0"
OTHER_FS_ID = "fs-0fedcba9876543210"
STACK_ID = "arn:aws:cloudformation:us-east-1:123456789012:stack/Dev-Studio/abc"

# One session for every client: botocore loads each service model once instead of once per test.
_SESSION = boto3.Session()


def load_handler():
    spec = importlib.util.spec_from_file_location("fsx_eni_security_groups_index", HANDLER_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


handler = load_handler()


class _Raw:
    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any):
        yield self._body


def ec2_error(code: str, status: int = 400) -> AWSResponse:
    body = (f"<Response><Errors><Error><Code>{code}</Code><Message>injected {code}</Message></Error></Errors>"
            f"<RequestID>test</RequestID></Response>").encode()
    return AWSResponse("https://ec2.amazonaws.com/", status, {"Content-Type": "text/xml"}, _Raw(body))


def json_response(status: int, payload: dict[str, Any]) -> AWSResponse:
    return AWSResponse("https://fsx.amazonaws.com/", status, {"Content-Type": "application/x-amz-json-1.1"},
                       _Raw(json.dumps(payload).encode()))


class Calls:
    """Counts EC2 write calls that reach the wire (after retries), per operation."""

    def __init__(self, client) -> None:
        self.counts: dict[str, int] = {}
        client.meta.events.register("before-send.ec2", self._count)

    def _count(self, request, **_: Any) -> None:
        action = parse_qs(_body(request)).get("Action", ["?"])[0]
        self.counts[action] = self.counts.get(action, 0) + 1

    def writes(self) -> int:
        return sum(n for a, n in self.counts.items() if not a.startswith("Describe"))


def _body(request) -> str:
    body = request.body or b""
    return body.decode() if isinstance(body, bytes) else body


def inject(client, operation: str, fault: Callable[[dict[str, str]], Any]) -> None:
    """Before each ``operation`` request is sent, call ``fault(params)``; a returned response replaces AWS's."""

    def hook(request, **_: Any):
        params = {k: v[0] for k, v in parse_qs(_body(request)).items()}
        return fault(params)

    client.meta.events.register_first(f"before-send.ec2.{operation}", hook)


class World:
    """A VPC with an FSx-like set of interfaces, and the two clients the handler uses."""

    def __init__(self) -> None:
        self.ec2 = _SESSION.client("ec2", region_name=REGION, config=handler.RETRY_CONFIG)
        self.admin = _SESSION.client("ec2", region_name=REGION)  # side channel, no fault hooks
        self.fsx = _SESSION.client("fsx", region_name=REGION, config=handler.RETRY_CONFIG)
        self.stub = Stubber(self.fsx)
        self.stub.activate()
        vpc = self.admin.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
        self.subnet = self.admin.create_subnet(VpcId=vpc, CidrBlock="10.0.0.0/20")["Subnet"]["SubnetId"]

        def sg(name: str) -> str:
            return self.admin.create_security_group(GroupName=name, Description=name, VpcId=vpc)["GroupId"]

        self.fsx_sg, self.other_sg, self.studio_sg, self.studio2_sg = (sg(n) for n in ("fsx", "other", "studio",
                                                                                       "studio2"))
        self.file_systems: dict[str, list[str]] = {}

    def make_file_system(self, fs_id: str = FS_ID, count: int = 3, groups: list[str] | None = None) -> list[str]:
        enis = [self.admin.create_network_interface(SubnetId=self.subnet, Groups=groups or [self.fsx_sg],
                                                    Description=f"ENI for {fs_id}")["NetworkInterface"]
                ["NetworkInterfaceId"] for _ in range(count)]
        self.file_systems[fs_id] = enis
        return enis

    def groups(self, eni: str) -> list[str]:
        return [g["GroupId"] for g in self._eni(eni)["Groups"]]

    def tags(self, eni: str) -> dict[str, str]:
        return {t["Key"]: t["Value"] for t in self._eni(eni).get("TagSet", [])}

    def _eni(self, eni: str) -> dict[str, Any]:
        return self.admin.describe_network_interfaces(NetworkInterfaceIds=[eni])["NetworkInterfaces"][0]

    def expect_describe(self, fs_id: str = FS_ID) -> None:
        self.stub.add_response(
            "describe_file_systems",
            {"FileSystems": [{"FileSystemId": fs_id, "FileSystemType": "LUSTRE", "Lifecycle": "AVAILABLE",
                              "NetworkInterfaceIds": self.file_systems[fs_id]}]},
            {"FileSystemIds": [fs_id]},
        )

    def invoke(self, request: str, groups: Any = None, *, fs_id: str = FS_ID, old: dict[str, Any] | None = None,
               props: dict[str, Any] | None = None, logical_id: str = "FsxAccess", describe: bool = True,
               ec2=None) -> dict[str, Any]:
        if props is None:
            props = {"FileSystemId": fs_id, "SecurityGroupIds": groups or [self.studio_sg]}
        event = {"RequestType": request, "ResourceProperties": {"ServiceToken": "arn:x", **props},
                 "StackId": STACK_ID, "LogicalResourceId": logical_id, "RequestId": "r1"}
        if request != "Create":
            event["PhysicalResourceId"] = handler.physical_id(fs_id)
        if old is not None:
            event["OldResourceProperties"] = old
        if describe:
            self.expect_describe(props.get("FileSystemId", fs_id))
        return handler.handle(event, ec2 or self.ec2, self.fsx, handler.Deadline(None))


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch):
    with mock_aws():
        w = World()
        yield w
        w.stub.assert_no_pending_responses()


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    recorded: list[float] = []
    monkeypatch.setattr(handler, "_sleep", recorded.append)
    return recorded


def assert_attached(world: World, enis: list[str], original: list[str], added: list[str]) -> None:
    for eni in enis:
        assert world.groups(eni) == original + added, eni


def assert_pristine(world: World, enis: list[str], original: list[str]) -> None:
    for eni in enis:
        assert world.groups(eni) == original, eni
        assert not any(k.startswith(handler.TAG_PREFIX) for k in world.tags(eni)), world.tags(eni)


# ---- the happy path and idempotency ---------------------------------------------------------------------------

def test_create_adds_the_group_to_every_interface_and_records_the_original(world: World) -> None:
    enis = world.make_file_system(count=3)
    result = world.invoke("Create")
    assert result["PhysicalResourceId"] == f"fsx-eni-sg-{FS_ID}"
    assert result["Data"]["NetworkInterfaceCount"] == "3"
    assert_attached(world, enis, [world.fsx_sg], [world.studio_sg])
    for eni in enis:
        status, owners = handler.parse_record(world.tags(eni)[handler.TAG_PREFIX + world.studio_sg])
        assert status == "added" and len(owners) == 1


def test_repeated_create_changes_nothing(world: World) -> None:
    enis = world.make_file_system(count=3)
    world.invoke("Create")
    tags_before = {e: world.tags(e) for e in enis}
    calls = Calls(world.ec2)
    world.invoke("Create")
    assert calls.writes() == 0, calls.counts
    assert_attached(world, enis, [world.fsx_sg], [world.studio_sg])
    assert {e: world.tags(e) for e in enis} == tags_before


def test_delete_restores_the_exact_original_groups(world: World) -> None:
    enis = world.make_file_system(count=2, groups=[world.other_sg, world.fsx_sg])
    world.invoke("Create")
    assert_attached(world, enis, [world.other_sg, world.fsx_sg], [world.studio_sg])
    world.invoke("Delete")
    assert_pristine(world, enis, [world.other_sg, world.fsx_sg])


def test_delete_keeps_a_group_that_was_there_before(world: World) -> None:
    enis = world.make_file_system(count=2, groups=[world.fsx_sg, world.studio_sg])
    world.invoke("Create")
    for eni in enis:
        assert world.tags(eni)[handler.TAG_PREFIX + world.studio_sg].startswith("preexisting:")
    world.invoke("Delete")
    assert_pristine(world, enis, [world.fsx_sg, world.studio_sg])


def test_delete_leaves_groups_others_added_meanwhile(world: World) -> None:
    enis = world.make_file_system(count=1)
    world.invoke("Create")
    world.admin.modify_network_interface_attribute(NetworkInterfaceId=enis[0],
                                                   Groups=[world.fsx_sg, world.studio_sg, world.other_sg])
    world.invoke("Delete")
    assert world.groups(enis[0]) == [world.fsx_sg, world.other_sg]


# ---- updates ---------------------------------------------------------------------------------------------------

def test_update_to_a_different_group_removes_the_old_one_only(world: World) -> None:
    enis = world.make_file_system(count=3, groups=[world.fsx_sg, world.other_sg])
    world.invoke("Create", [world.studio_sg])
    result = world.invoke("Update", [world.studio2_sg],
                          old={"FileSystemId": FS_ID, "SecurityGroupIds": [world.studio_sg]})
    assert result["PhysicalResourceId"] == handler.physical_id(FS_ID)  # in place, no replacement
    assert_attached(world, enis, [world.fsx_sg, world.other_sg], [world.studio2_sg])
    for eni in enis:
        assert set(world.tags(eni)) == {handler.TAG_PREFIX + world.studio2_sg}
    world.invoke("Delete", [world.studio2_sg])
    assert_pristine(world, enis, [world.fsx_sg, world.other_sg])


def test_update_away_from_a_preexisting_group_keeps_it(world: World) -> None:
    enis = world.make_file_system(count=1, groups=[world.fsx_sg, world.studio_sg])
    world.invoke("Create", [world.studio_sg])
    world.invoke("Update", [world.studio2_sg], old={"FileSystemId": FS_ID, "SecurityGroupIds": [world.studio_sg]})
    assert world.groups(enis[0]) == [world.fsx_sg, world.studio_sg, world.studio2_sg]


def test_update_to_another_file_system_is_a_replacement(world: World) -> None:
    old_enis = world.make_file_system(FS_ID, count=2)
    new_enis = world.make_file_system(OTHER_FS_ID, count=2)
    world.invoke("Create")
    result = world.invoke("Update", fs_id=OTHER_FS_ID, old={"FileSystemId": FS_ID,
                                                            "SecurityGroupIds": [world.studio_sg]})
    assert result["PhysicalResourceId"] == handler.physical_id(OTHER_FS_ID)
    assert_attached(world, new_enis, [world.fsx_sg], [world.studio_sg])
    assert_attached(world, old_enis, [world.fsx_sg], [world.studio_sg])  # until CloudFormation deletes the old
    world.invoke("Delete", fs_id=FS_ID)  # CloudFormation's clean-up of the old physical ID, old properties
    assert_pristine(world, old_enis, [world.fsx_sg])
    assert_attached(world, new_enis, [world.fsx_sg], [world.studio_sg])


def test_renamed_logical_id_does_not_lose_the_group(world: World) -> None:
    """Create of the new resource, then Delete of the old one: the group stays until its last owner goes."""
    enis = world.make_file_system(count=2)
    world.invoke("Create", logical_id="OldName")
    world.invoke("Create", logical_id="NewName")
    world.invoke("Delete", logical_id="OldName")
    assert_attached(world, enis, [world.fsx_sg], [world.studio_sg])
    world.invoke("Delete", logical_id="NewName")
    assert_pristine(world, enis, [world.fsx_sg])


# ---- property shapes -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [
    lambda sg: {"SecurityGroupIds": [sg]},
    lambda sg: {"SecurityGroupIds": sg},
    lambda sg: {"SecurityGroupIds": f" {sg} , "},
    lambda sg: {"SecurityGroupId": sg},
], ids=["list", "string", "comma-string", "legacy-singular"])
def test_every_property_shape_is_accepted(world: World, shape) -> None:
    enis = world.make_file_system(count=1)
    props = {"FileSystemId": FS_ID, **shape(world.studio_sg)}
    world.invoke("Create", props=props)
    assert_attached(world, enis, [world.fsx_sg], [world.studio_sg])
    world.invoke("Delete", props=props)
    assert_pristine(world, enis, [world.fsx_sg])


def test_update_from_an_old_property_shape(world: World) -> None:
    enis = world.make_file_system(count=1)
    world.invoke("Create", props={"FileSystemId": FS_ID, "SecurityGroupId": world.studio_sg})
    world.invoke("Update", [world.studio2_sg], old={"FileSystemId": FS_ID, "SecurityGroupId": world.studio_sg})
    assert_attached(world, enis, [world.fsx_sg], [world.studio2_sg])


@pytest.mark.parametrize("props", [{}, {"FileSystemId": "nope", "SecurityGroupIds": ["sg-1"]},
                                   {"FileSystemId": FS_ID, "SecurityGroupIds": []},
                                   {"FileSystemId": FS_ID, "SecurityGroupIds": ["default"]}])
def test_bad_properties_fail_create_but_never_block_delete(world: World, props) -> None:
    with pytest.raises(handler.PropertiesError):
        world.invoke("Create", props=props, describe=False)
    assert world.invoke("Delete", props=props, describe=False)["PhysicalResourceId"]


# ---- faults ----------------------------------------------------------------------------------------------------

def test_throttling_then_success(world: World) -> None:
    enis = world.make_file_system(count=2)
    remaining = {"ModifyNetworkInterfaceAttribute": 2, "CreateTags": 1}
    calls = Calls(world.ec2)
    for op in remaining:
        inject(world.ec2, op, lambda p, op=op: (remaining.__setitem__(op, remaining[op] - 1) or
                                                ec2_error("RequestLimitExceeded", 503)) if remaining[op] > 0 else None)
    world.invoke("Create")
    assert remaining == {"ModifyNetworkInterfaceAttribute": 0, "CreateTags": 0}
    assert calls.counts["ModifyNetworkInterfaceAttribute"] == len(enis) + 2  # two retried by botocore
    assert_attached(world, enis, [world.fsx_sg], [world.studio_sg])


def test_fsx_throttling_then_success(world: World) -> None:
    """DescribeFileSystems throttled once, retried by the adaptive retry mode (served without the Stubber)."""
    enis = world.make_file_system(count=1)
    fsx = _SESSION.client("fsx", region_name=REGION, config=handler.RETRY_CONFIG)
    answers = [json_response(400, {"__type": "ThrottlingException", "message": "Rate exceeded"}),
               json_response(200, {"FileSystems": [{"FileSystemId": FS_ID, "NetworkInterfaceIds": enis}]})]
    fsx.meta.events.register_first("before-send.fsx.DescribeFileSystems", lambda **_: answers.pop(0))
    world.fsx = fsx
    world.invoke("Create", describe=False)
    assert answers == []
    assert_attached(world, enis, [world.fsx_sg], [world.studio_sg])


def test_resource_in_use_then_success(world: World, sleeps: list[float]) -> None:
    enis = world.make_file_system(count=2)
    busy = {enis[1]: 2}

    def fault(params: dict[str, str]):
        eni = params["NetworkInterfaceId"]
        if busy.get(eni, 0) > 0:
            busy[eni] -= 1
            return ec2_error("ResourceInUse")
        return None

    inject(world.ec2, "ModifyNetworkInterfaceAttribute", fault)
    world.invoke("Create")
    assert busy[enis[1]] == 0 and len(sleeps) == 2
    assert_attached(world, enis, [world.fsx_sg], [world.studio_sg])


def test_busy_longer_than_the_invocation_fails_and_undoes(world: World, sleeps: list[float],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    enis = world.make_file_system(count=2)
    clock = iter([60.0, 30.0, 5.0, 0.0] + [0.0] * 50)
    monkeypatch.setattr(handler.Deadline, "seconds_left", lambda self: next(clock))
    inject(world.ec2, "ModifyNetworkInterfaceAttribute",
           lambda p: ec2_error("IncorrectState") if p["NetworkInterfaceId"] == enis[1] and
           "SecurityGroupId.2" in p else None)
    with pytest.raises(Exception, match="IncorrectState"):
        world.invoke("Create")
    assert_pristine(world, enis, [world.fsx_sg])


def test_interface_deleted_between_describe_and_modify(world: World) -> None:
    enis = world.make_file_system(count=3)

    def vanish(params: dict[str, str]):
        if params["NetworkInterfaceId"] == enis[1]:
            world.admin.delete_network_interface(NetworkInterfaceId=enis[1])
        return None

    inject(world.ec2, "ModifyNetworkInterfaceAttribute", vanish)
    result = world.invoke("Create")
    assert result["Data"]["Changed"] == "2"
    assert_attached(world, [enis[0], enis[2]], [world.fsx_sg], [world.studio_sg])
    remaining = world.admin.describe_network_interfaces(
        Filters=[{"Name": "network-interface-id", "Values": enis}])["NetworkInterfaces"]
    assert sorted(e["NetworkInterfaceId"] for e in remaining) == sorted([enis[0], enis[2]])


def test_interface_deleted_before_tagging(world: World) -> None:
    """Real EC2 rejects CreateTags on a missing interface (moto does not): that interface counts as done."""
    enis = world.make_file_system(count=2)

    def vanish(params: dict[str, str]):
        if params["ResourceId.1"] == enis[0]:
            world.admin.delete_network_interface(NetworkInterfaceId=enis[0])
            return ec2_error("InvalidNetworkInterfaceID.NotFound")
        return None

    inject(world.ec2, "CreateTags", vanish)
    world.invoke("Create")
    assert_attached(world, [enis[1]], [world.fsx_sg], [world.studio_sg])


def test_delete_when_the_file_system_is_gone(world: World) -> None:
    enis = world.make_file_system(count=2)
    world.invoke("Create")
    world.stub.add_client_error("describe_file_systems", service_error_code="FileSystemNotFound",
                                http_status_code=400, expected_params={"FileSystemIds": [FS_ID]})
    calls = Calls(world.ec2)
    result = world.invoke("Delete", describe=False)
    assert result["PhysicalResourceId"] == handler.physical_id(FS_ID)
    assert calls.counts == {}  # nothing left to restore, nothing touched


def test_delete_when_the_interfaces_are_gone(world: World) -> None:
    enis = world.make_file_system(count=2)
    world.invoke("Create")
    for eni in enis:
        world.admin.delete_network_interface(NetworkInterfaceId=eni)
    calls = Calls(world.ec2)
    world.invoke("Delete")
    assert calls.writes() == 0


def test_create_fails_when_the_file_system_does_not_exist(world: World) -> None:
    world.stub.add_client_error("describe_file_systems", service_error_code="FileSystemNotFound",
                                http_status_code=400)
    with pytest.raises(RuntimeError, match="does not exist"):
        world.invoke("Create", describe=False)


def test_many_interfaces_are_read_page_by_page(world: World) -> None:
    enis = world.make_file_system(count=230)

    class Paging:
        """moto ignores MaxResults: serve its answer in pages of 40 with NextToken, as EC2 does."""

        def __init__(self, real) -> None:
            self.real, self.pages = real, 0

        def describe_network_interfaces(self, MaxResults: int, NextToken: str | None = None, **kw):
            assert MaxResults <= 1000
            found = sorted(self.real.describe_network_interfaces(**kw)["NetworkInterfaces"],
                           key=lambda e: e["NetworkInterfaceId"])
            start = int(NextToken or 0)
            self.pages += 1
            page = {"NetworkInterfaces": found[start:start + 40]}
            if start + 40 < len(found):
                page["NextToken"] = str(start + 40)
            return page

        def __getattr__(self, name: str):
            return getattr(self.real, name)

    paging = Paging(world.ec2)
    result = world.invoke("Create", ec2=paging)
    assert result["Data"] == {"FileSystemId": FS_ID, "SecurityGroupIds": world.studio_sg,
                              "NetworkInterfaceCount": "230", "Changed": "230"}
    assert paging.pages >= 230 // 40 + 1
    assert_attached(world, enis, [world.fsx_sg], [world.studio_sg])
    world.invoke("Delete", ec2=Paging(world.ec2))
    assert_pristine(world, enis, [world.fsx_sg])


def test_failure_midway_is_undone_and_the_next_create_completes(world: World) -> None:
    enis = world.make_file_system(count=3)
    broken = {"on": True}
    inject(world.ec2, "ModifyNetworkInterfaceAttribute",
           lambda p: ec2_error("UnauthorizedOperation", 403)
           if broken["on"] and p["NetworkInterfaceId"] == enis[1] and "SecurityGroupId.2" in p else None)
    with pytest.raises(Exception, match="UnauthorizedOperation"):
        world.invoke("Create")
    assert_pristine(world, enis, [world.fsx_sg])  # the framework skips Delete after a failed Create: undone here
    broken["on"] = False
    world.invoke("Create")
    assert_attached(world, enis, [world.fsx_sg], [world.studio_sg])


class Killed(BaseException):
    """The Lambda runtime stopping the function (timeout): no except clause runs."""


def kill_when(condition: Callable[[dict[str, str]], bool]) -> Callable[[dict[str, str]], None]:
    def fault(params: dict[str, str]) -> None:
        if condition(params):
            raise Killed()
    return fault


def test_killed_midway_leaves_a_state_the_next_attempt_completes(world: World) -> None:
    enis = world.make_file_system(count=3)
    armed = {"on": True}

    def kill(params: dict[str, str]):
        if armed["on"] and params["NetworkInterfaceId"] == enis[1]:
            raise Killed()

    inject(world.ec2, "ModifyNetworkInterfaceAttribute", kill)
    with pytest.raises(Killed):
        world.invoke("Create")
    # Half done: first interface attached, second recorded but unchanged, third untouched.
    assert world.groups(enis[0]) == [world.fsx_sg, world.studio_sg]
    assert world.groups(enis[1]) == [world.fsx_sg] and handler.TAG_PREFIX + world.studio_sg in world.tags(enis[1])
    assert world.groups(enis[2]) == [world.fsx_sg] and not world.tags(enis[2])
    armed["on"] = False
    world.invoke("Create")  # CloudFormation's retry / the next deploy
    assert_attached(world, enis, [world.fsx_sg], [world.studio_sg])
    world.invoke("Delete")
    assert_pristine(world, enis, [world.fsx_sg])


def test_killed_midway_then_deleted_restores_everything(world: World) -> None:
    enis = world.make_file_system(count=3)
    inject(world.ec2, "ModifyNetworkInterfaceAttribute", kill_when(lambda p: p["NetworkInterfaceId"] == enis[2]))
    with pytest.raises(Killed):
        world.invoke("Create")
    world.ec2 = _SESSION.client("ec2", region_name=REGION, config=handler.RETRY_CONFIG)
    world.invoke("Delete")
    assert_pristine(world, enis, [world.fsx_sg])


def test_killed_during_delete_then_delete_again(world: World) -> None:
    enis = world.make_file_system(count=2)
    world.invoke("Create")
    inject(world.ec2, "DeleteTags", kill_when(lambda p: True))
    with pytest.raises(Killed):
        world.invoke("Delete")
    assert world.groups(enis[0]) == [world.fsx_sg]  # group removed, record still there
    world.ec2 = _SESSION.client("ec2", region_name=REGION, config=handler.RETRY_CONFIG)
    world.invoke("Delete")
    assert_pristine(world, enis, [world.fsx_sg])


# ---- entry point -----------------------------------------------------------------------------------------------

def test_on_event_uses_adaptive_retry_clients(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    assert handler.RETRY_CONFIG.retries == {"mode": "adaptive", "total_max_attempts": 10}
    enis = world.make_file_system(count=1)
    world.expect_describe()
    monkeypatch.setattr(handler, "_clients", lambda: (world.ec2, world.fsx))

    class Context:
        @staticmethod
        def get_remaining_time_in_millis() -> int:
            return 300_000

    out = handler.on_event({"RequestType": "Create", "StackId": STACK_ID, "LogicalResourceId": "X",
                            "ResourceProperties": {"FileSystemId": FS_ID, "SecurityGroupIds": [world.studio_sg]}},
                           Context())
    assert set(out) == {"PhysicalResourceId", "Data"}
    assert_attached(world, enis, [world.fsx_sg], [world.studio_sg])


def test_handler_needs_nothing_beyond_the_lambda_runtime() -> None:
    source = HANDLER_PATH.read_text()
    imports = {line.split()[1].split(".")[0] for line in source.splitlines()
               if line.startswith(("import ", "from ")) and not line.startswith("from __future__")}
    assert imports <= {"boto3", "botocore", "hashlib", "json", "logging", "os", "random", "time", "typing"}
    assert "urllib.request" not in source and "pip" not in source and "cfnresponse" not in source


def test_repeated_update_changes_nothing(world: World) -> None:
    enis = world.make_file_system(count=2)
    world.invoke("Create", [world.studio_sg])
    old = {"FileSystemId": FS_ID, "SecurityGroupIds": [world.studio_sg]}
    world.invoke("Update", [world.studio2_sg], old=old)
    calls = Calls(world.ec2)
    world.invoke("Update", [world.studio2_sg], old=old)  # CloudFormation retried the same update
    assert calls.writes() == 0, calls.counts
    assert_attached(world, enis, [world.fsx_sg], [world.studio2_sg])


def test_update_rollback_restores_the_previous_group(world: World) -> None:
    """UPDATE_ROLLBACK sends an Update with the old properties as the new ones."""
    enis = world.make_file_system(count=2)
    world.invoke("Create", [world.studio_sg])
    world.invoke("Update", [world.studio2_sg], old={"FileSystemId": FS_ID, "SecurityGroupIds": [world.studio_sg]})
    world.invoke("Update", [world.studio_sg], old={"FileSystemId": FS_ID, "SecurityGroupIds": [world.studio2_sg]})
    assert_attached(world, enis, [world.fsx_sg], [world.studio_sg])
    world.invoke("Delete", [world.studio_sg])
    assert_pristine(world, enis, [world.fsx_sg])
