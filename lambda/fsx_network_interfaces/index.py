"""Custom resource handler (aws-cdk-lib ``custom_resources.Provider`` onEvent): give a security group access to an
existing FSx for Lustre file system by adding it to every network interface of the file system.

Properties: ``FileSystemId`` (``fs-...``) and ``SecurityGroupId`` (``sg-...``).

- **Create / Update**: ``fsx:DescribeFileSystems`` lists the file system's ``NetworkInterfaceIds``;
  ``ec2:DescribeNetworkInterfaces`` gives each interface's groups; every interface that lacks the group gets
  ``ec2:ModifyNetworkInterfaceAttribute`` with the union of its current groups and this one (the call replaces the
  whole set, so nothing else is ever dropped). Idempotent: an interface that has the group is left alone, so the
  resource can be re-run (an Update, or a redeploy) to reach interfaces that appeared later when the file system
  scaled. An Update that changes neither property keeps the physical id (no replacement, no delete of the old one).
- **Delete**: removes exactly this group from the interfaces that carry it and nothing else; an interface whose only
  group it is keeps it (EC2 refuses an interface without groups; logged), and a file system that no longer exists
  means there is nothing to undo. Delete never fails a stack on a missing file system or interface.

Throttling (``RequestLimitExceeded``, ``ThrottlingException``...) is retried with backoff a bounded number of times;
any other error fails the event with a message naming the file system, the interface and the call, so the stack
rolls back instead of hanging.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from typing import Any

import boto3
from botocore.exceptions import ClientError

THROTTLING = {
    "RequestLimitExceeded",
    "Throttling",
    "ThrottlingException",
    "TooManyRequestsException",
    "ServiceUnavailable",
    "InternalError",
}
ATTEMPTS = 6
"""Tries per call: backoff 1, 2, 4, 8, 16 s between them (31 s at most per call, well inside the function's
timeout)."""


def physical_id(file_system_id: str, security_group_id: str) -> str:
    return f"{file_system_id}/{security_group_id}"


def call(fn: Callable[..., Any], *, sleep: Callable[[float], None] = time.sleep, **kwargs) -> Any:
    """``fn(**kwargs)``, retried on throttling with exponential backoff."""
    for attempt in range(ATTEMPTS):
        try:
            return fn(**kwargs)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            if code not in THROTTLING or attempt == ATTEMPTS - 1:
                raise
            sleep(2**attempt)
    raise AssertionError("unreachable")


class Reconciler:
    """The calls of one event, with injectable clients (tests pass clients stubbed with botocore's Stubber)."""

    def __init__(self, fsx, ec2, *, sleep: Callable[[float], None] = time.sleep, log: Callable[[str], None] = print):
        self.fsx, self.ec2, self.sleep, self.log = fsx, ec2, sleep, log

    def interfaces(self, file_system_id: str, *, missing_ok: bool) -> list[dict[str, Any]]:
        """The file system's network interfaces as EC2 describes them; [] if it is gone and ``missing_ok``."""
        try:
            found = call(self.fsx.describe_file_systems, sleep=self.sleep, FileSystemIds=[file_system_id])
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "FileSystemNotFound":
                if missing_ok:
                    self.log(f"{file_system_id}: file system not found; nothing to change")
                    return []
                raise RuntimeError(
                    f"FSx file system {file_system_id} does not exist in this account and region "
                    f"(config: studio.existing_cluster.file_system_id)"
                ) from None
            raise
        systems = found.get("FileSystems", [])
        if not systems:
            if missing_ok:
                return []
            raise RuntimeError(f"FSx file system {file_system_id} does not exist in this account and region")
        ids = systems[0].get("NetworkInterfaceIds", [])
        if not ids:
            return []
        try:
            described = call(self.ec2.describe_network_interfaces, sleep=self.sleep, NetworkInterfaceIds=ids)
        except ClientError as exc:
            if missing_ok and exc.response.get("Error", {}).get("Code") == "InvalidNetworkInterfaceID.NotFound":
                return []
            raise
        return described.get("NetworkInterfaces", [])

    def _set_groups(self, interface: dict[str, Any], groups: Iterable[str], action: str) -> None:
        eni = interface["NetworkInterfaceId"]
        try:
            call(
                self.ec2.modify_network_interface_attribute,
                sleep=self.sleep,
                NetworkInterfaceId=eni,
                Groups=sorted(groups),
            )
        except ClientError as exc:
            error = exc.response.get("Error", {})
            raise RuntimeError(
                f"ec2:ModifyNetworkInterfaceAttribute on {eni} ({action}) failed: "
                f"{error.get('Code')}: {error.get('Message')}"
            ) from None

    def add(self, file_system_id: str, group: str) -> dict[str, Any]:
        changed = []
        found = self.interfaces(file_system_id, missing_ok=False)
        for interface in found:
            current = {g["GroupId"] for g in interface.get("Groups", [])}
            if group in current:
                continue
            self._set_groups(interface, current | {group}, f"add {group}")
            changed.append(interface["NetworkInterfaceId"])
            self.log(f"{interface['NetworkInterfaceId']}: added {group} to {sorted(current)}")
        return {"NetworkInterfaceIds": ",".join(i["NetworkInterfaceId"] for i in found), "Changed": ",".join(changed)}

    def remove(self, file_system_id: str, group: str) -> dict[str, Any]:
        changed = []
        for interface in self.interfaces(file_system_id, missing_ok=True):
            current = {g["GroupId"] for g in interface.get("Groups", [])}
            if group not in current:
                continue
            if current == {group}:
                self.log(
                    f"{interface['NetworkInterfaceId']}: {group} is its only group; left in place (EC2 needs "
                    f"at least one)"
                )
                continue
            self._set_groups(interface, current - {group}, f"remove {group}")
            changed.append(interface["NetworkInterfaceId"])
            self.log(f"{interface['NetworkInterfaceId']}: removed {group}, kept {sorted(current - {group})}")
        return {"Changed": ",".join(changed)}


def handle(event: dict[str, Any], reconciler: Reconciler) -> dict[str, Any]:
    """The Provider framework's onEvent contract: returns ``PhysicalResourceId`` and ``Data``."""
    props = event.get("ResourceProperties", {})
    fs, group = props.get("FileSystemId", ""), props.get("SecurityGroupId", "")
    if not fs.startswith("fs-") or not group.startswith("sg-"):
        raise ValueError(f"FileSystemId {fs!r} and SecurityGroupId {group!r} must look like fs-... and sg-...")
    kind = event["RequestType"]
    if kind == "Delete":
        old = event.get("PhysicalResourceId", "")
        if "/" not in old:  # a Create that failed before returning an id: nothing was changed
            return {"PhysicalResourceId": old or physical_id(fs, group), "Data": {}}
        old_fs, old_group = old.split("/", 1)
        return {"PhysicalResourceId": old, "Data": reconciler.remove(old_fs, old_group)}
    # Create, or Update: reconcile onto the current properties. When they are unchanged the id is the same and
    # CloudFormation sends no Delete; when they changed, the new id makes it delete the old pair afterwards.
    return {"PhysicalResourceId": physical_id(fs, group), "Data": reconciler.add(fs, group)}


def on_event(event: dict[str, Any], context: Any) -> dict[str, Any]:  # the Lambda entry point
    del context
    print(json.dumps({k: v for k, v in event.items() if k != "ResponseURL"}))
    from botocore.config import Config

    config = Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=10, read_timeout=30)
    return handle(event, Reconciler(boto3.client("fsx", config=config), boto3.client("ec2", config=config)))
