"""Custom resource: add security groups to every network interface of an FSx file system, in place.

CloudFormation cannot change the security groups of an existing FSx for Lustre file system without replacing it
(``SecurityGroupIds`` is a replacement property), but the groups of its network interfaces can be changed with
``ec2:ModifyNetworkInterfaceAttribute``. This handler does that for the SageMaker Studio domain's group, so
Studio apps can mount the file system.

Runs behind the CDK Provider framework (``on_event`` returns ``{"PhysicalResourceId", "Data"}`` or raises;
the framework talks to CloudFormation). Uses only the boto3 that ships with the Lambda Python runtime.

Properties (every shape ever deployed stays accepted, see :func:`parse_properties`):

- ``FileSystemId``: ``fs-...``.
- ``SecurityGroupIds``: list of ``sg-...`` (or a comma-separated string); legacy ``SecurityGroupId`` (one id).

How the original group sets are recorded
-----------------------------------------
ModifyNetworkInterfaceAttribute replaces the whole set, so each change is read-modify-write. Before the first
change to an interface, the handler tags the interface with one tag per managed group,
``fsx-eni-sg/<sg-id>`` = ``added:<owners>`` (the group was not in the original set) or ``preexisting:<owners>``
(it was); owners are short hashes of stack ID + logical ID of the resources relying on the group. The status is
written before the modify call and never overwritten, so:

- it survives Lambda retries, timeouts and crashes (the record lives on the interface, not in the memory of an
  invocation that may die; CloudFormation does not hand a custom resource's ``Data`` back on later events, and
  a ``PhysicalResourceId`` has a size limit and replaces the resource when it changes);
- a repeated Create cannot overwrite the record with an already-modified set;
- Delete restores the exact original set by removing only the groups marked ``added`` (groups another party
  added meanwhile are left alone), then removes the tags;
- several resources on one file system (another stack, or this one after a logical-ID rename: Create of the new
  resource, then Delete of the old) keep the group until its last owner is deleted.

Faults: an interface or file system that no longer exists counts as done; throttling is retried by botocore's
adaptive retry mode; "in use"/incorrect-state errors are retried here with capped exponential backoff and jitter
within the invocation's remaining time. Every step is idempotent, so a run that failed midway is completed by
the next one (CloudFormation's retry, rollback, or the next deploy).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import time
from typing import Any, Callable, Iterable

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

LOG = logging.getLogger()
LOG.setLevel(os.environ.get("LOG_LEVEL", "INFO"))

TAG_PREFIX = "fsx-eni-sg/"
ADDED = "added"
PREEXISTING = "preexisting"

RETRY_CONFIG = Config(retries={"mode": "adaptive", "total_max_attempts": 10}, connect_timeout=5, read_timeout=20)
"""Adaptive mode: client-side rate limiting plus exponential backoff on throttling and transient errors."""

GONE_CODES = frozenset({"InvalidNetworkInterfaceID.NotFound", "InvalidNetworkInterfaceId.NotFound"})
FS_GONE_CODES = frozenset({"FileSystemNotFound"})
BUSY_CODES = frozenset({"ResourceInUse", "IncorrectState", "InvalidNetworkInterface.InUse", "ConcurrentTagAccess",
                        "ResourceNotReady"})
"""Conditions that clear by themselves (another change in progress on the interface or file system)."""

DESCRIBE_PAGE_SIZE = 100
FILTER_CHUNK = 100  # network-interface-id filter values per DescribeNetworkInterfaces call
SAFETY_MARGIN_MS = 10_000
DEFAULT_BUDGET_MS = 120_000

_sleep: Callable[[float], None] = time.sleep


class PropertiesError(ValueError):
    """The resource properties cannot be understood."""


# ---- properties ----------------------------------------------------------------------------------------------

def parse_properties(props: dict[str, Any] | None) -> tuple[str, tuple[str, ...]]:
    """``(file_system_id, security_group_ids)`` from any property shape this resource was deployed with."""
    props = props or {}
    fs_id = props.get("FileSystemId")
    if not isinstance(fs_id, str) or not fs_id.startswith("fs-"):
        raise PropertiesError(f"FileSystemId {fs_id!r} is not an FSx file system ID (fs-...)")
    raw: Any = props.get("SecurityGroupIds", props.get("SecurityGroupId"))
    if isinstance(raw, str):
        raw = [s for s in (p.strip() for p in raw.split(",")) if s]
    if not isinstance(raw, (list, tuple)) or not raw:
        raise PropertiesError(f"SecurityGroupIds {raw!r} must name at least one security group (sg-...)")
    groups = tuple(dict.fromkeys(str(g).strip() for g in raw))  # de-duplicated, order kept
    bad = [g for g in groups if not g.startswith("sg-")]
    if bad:
        raise PropertiesError(f"SecurityGroupIds {bad!r} are not security group IDs (sg-...)")
    return fs_id, groups


def physical_id(fs_id: str) -> str:
    """One resource per file system: a different file system is a replacement (CloudFormation then deletes the
    old one with its old properties, which restores the old file system's interfaces)."""
    return f"fsx-eni-sg-{fs_id}"


# ---- AWS helpers ----------------------------------------------------------------------------------------------

def _code(exc: ClientError) -> str:
    return exc.response.get("Error", {}).get("Code", "")


class Deadline:
    """Remaining time of the invocation, so backoff never outlives the function."""

    def __init__(self, context: Any = None) -> None:
        remaining = getattr(context, "get_remaining_time_in_millis", None)
        self._remaining = remaining if callable(remaining) else None
        self._end = time.monotonic() + DEFAULT_BUDGET_MS / 1000

    def seconds_left(self) -> float:
        if self._remaining is not None:
            return (self._remaining() - SAFETY_MARGIN_MS) / 1000
        return self._end - time.monotonic()


def _retry_busy(call: Callable[[], Any], deadline: Deadline, what: str) -> Any:
    """Run ``call``, retrying BUSY_CODES with capped exponential backoff and full jitter."""
    attempt = 0
    while True:
        try:
            return call()
        except ClientError as exc:
            if _code(exc) not in BUSY_CODES:
                raise
            delay = random.uniform(0, min(20.0, 1.0 * 2 ** attempt))
            if deadline.seconds_left() < delay:
                raise
            attempt += 1
            _log("busy", what=what, code=_code(exc), attempt=attempt, delay=round(delay, 2))
            _sleep(delay)


def file_system_interfaces(fsx: Any, fs_id: str, deadline: Deadline) -> list[str] | None:
    """The file system's network interface IDs, or None if the file system does not exist."""
    try:
        resp = _retry_busy(lambda: fsx.describe_file_systems(FileSystemIds=[fs_id]), deadline, fs_id)
    except ClientError as exc:
        if _code(exc) in FS_GONE_CODES:
            return None
        raise
    systems = resp.get("FileSystems", [])
    if not systems:
        return None
    return list(systems[0].get("NetworkInterfaceIds", []))


def describe_interfaces(ec2: Any, eni_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """``{eni_id: {"groups": [...], "tags": {...}}}`` for the interfaces that still exist (all pages).

    A filter instead of ``NetworkInterfaceIds`` so one missing interface does not fail the whole call.
    """
    ids = list(dict.fromkeys(eni_ids))
    out: dict[str, dict[str, Any]] = {}
    for start in range(0, len(ids), FILTER_CHUNK):
        kwargs: dict[str, Any] = {
            "Filters": [{"Name": "network-interface-id", "Values": ids[start:start + FILTER_CHUNK]}],
            "MaxResults": DESCRIBE_PAGE_SIZE,
        }
        while True:
            page = ec2.describe_network_interfaces(**kwargs)
            for eni in page.get("NetworkInterfaces", []):
                out[eni["NetworkInterfaceId"]] = {
                    "groups": [g["GroupId"] for g in eni.get("Groups", [])],
                    "tags": {t["Key"]: t["Value"] for t in eni.get("TagSet", []) or []},
                }
            token = page.get("NextToken")
            if not token:
                break
            kwargs["NextToken"] = token
    return out


def _tolerate_gone(call: Callable[[], Any], deadline: Deadline, what: str) -> bool:
    """Run a write; False if the interface has disappeared (deleted with its file system, or replaced)."""
    try:
        _retry_busy(call, deadline, what)
        return True
    except ClientError as exc:
        if _code(exc) in GONE_CODES:
            _log("interface-gone", eni=what)
            return False
        raise


# ---- the record on each interface ----------------------------------------------------------------------------

def parse_record(value: str | None) -> tuple[str, list[str]] | None:
    """Tag value ``"added:owner1 owner2"`` -> ``("added", ["owner1", "owner2"])``; None if absent."""
    if value is None:
        return None
    status, _, owners = value.partition(":")
    return status, owners.split()


def format_record(status: str, owners: list[str]) -> str:
    return f"{status}:{' '.join(sorted(set(owners)))}"


def owner_of(event: dict[str, Any]) -> str:
    """Short stable ID of this resource (stack + logical ID): the record counts its owners, so a renamed logical
    ID (Create of the new resource, then Delete of the old) or a second stack on the same file system never
    removes a group another resource still needs."""
    key = f"{event.get('StackId', '')}/{event.get('LogicalResourceId', '')}"
    return hashlib.sha256(key.encode()).hexdigest()[:12]


# ---- the two operations ----------------------------------------------------------------------------------------

def ensure_groups(ec2: Any, eni_ids: list[str], groups: tuple[str, ...], owner: str, deadline: Deadline) -> int:
    """Make every interface's set contain ``groups``; record what was there first. Returns interfaces changed."""
    changed = 0
    for eni_id, eni in describe_interfaces(ec2, eni_ids).items():
        current = eni["groups"]
        tags = []
        for g in groups:
            record = parse_record(eni["tags"].get(TAG_PREFIX + g))
            if record is None:  # first touch: remember whether the group was in the original set
                tags.append({"Key": TAG_PREFIX + g, "Value": format_record(PREEXISTING if g in current else ADDED,
                                                                            [owner])})
            elif owner not in record[1]:
                tags.append({"Key": TAG_PREFIX + g, "Value": format_record(record[0], record[1] + [owner])})
        if tags and not _tolerate_gone(lambda: ec2.create_tags(Resources=[eni_id], Tags=tags), deadline, eni_id):
            continue
        desired = current + [g for g in groups if g not in current]
        if desired == current:
            continue
        if _tolerate_gone(lambda: ec2.modify_network_interface_attribute(NetworkInterfaceId=eni_id, Groups=desired),
                          deadline, eni_id):
            changed += 1
            _log("added", eni=eni_id, before=current, after=desired)
    return changed


def release_groups(ec2: Any, eni_ids: list[str], groups: tuple[str, ...], owner: str, deadline: Deadline) -> int:
    """Drop ``owner`` from the records of ``groups``; a group whose last owner leaves is removed if it was
    ``added`` (never if it was there before), then its record is deleted. Returns interfaces changed."""
    changed = 0
    for eni_id, eni in describe_interfaces(ec2, eni_ids).items():
        current = eni["groups"]
        remove: set[str] = set()
        finished: list[str] = []  # records to delete (no owner left)
        rewrite: list[dict[str, str]] = []  # records that keep other owners
        for g in groups:
            record = parse_record(eni["tags"].get(TAG_PREFIX + g))
            if record is None:
                continue  # never touched by this resource (or already released)
            status, owners = record
            others = [o for o in owners if o != owner]
            if others:
                if owner in owners:
                    rewrite.append({"Key": TAG_PREFIX + g, "Value": format_record(status, others)})
                continue
            finished.append(g)
            if status == ADDED:
                remove.add(g)
        if rewrite and not _tolerate_gone(lambda: ec2.create_tags(Resources=[eni_id], Tags=rewrite), deadline,
                                          eni_id):
            continue
        desired = [g for g in current if g not in remove]
        if desired != current:
            if not desired:  # an interface needs a group; cannot happen unless someone stripped the others
                raise RuntimeError(f"{eni_id}: removing {sorted(remove)} would leave no security group")
            if not _tolerate_gone(
                    lambda: ec2.modify_network_interface_attribute(NetworkInterfaceId=eni_id, Groups=desired),
                    deadline, eni_id):
                continue
            changed += 1
            _log("restored", eni=eni_id, before=current, after=desired)
        if finished:
            _tolerate_gone(lambda: ec2.delete_tags(Resources=[eni_id],
                                                   Tags=[{"Key": TAG_PREFIX + g} for g in finished]),
                           deadline, eni_id)
    return changed


# ---- Provider framework entry point ---------------------------------------------------------------------------

def _clients() -> tuple[Any, Any]:
    return boto3.client("ec2", config=RETRY_CONFIG), boto3.client("fsx", config=RETRY_CONFIG)


def _log(event: str, **fields: Any) -> None:
    LOG.info(json.dumps({"event": event, **fields}, default=str))


def handle(event: dict[str, Any], ec2: Any, fsx: Any, deadline: Deadline) -> dict[str, Any]:
    request = event["RequestType"]
    owner = owner_of(event)
    if request == "Delete":
        try:
            fs_id, groups = parse_properties(event.get("ResourceProperties"))
        except PropertiesError as exc:  # nothing this resource could have changed; never block a stack delete
            _log("delete-skipped", reason=str(exc))
            return {"PhysicalResourceId": event.get("PhysicalResourceId") or "fsx-eni-sg-invalid"}
        _log("request", type=request, file_system=fs_id, groups=list(groups), owner=owner)
        enis = file_system_interfaces(fsx, fs_id, deadline)
        restored = 0 if enis is None else release_groups(ec2, enis, groups, owner, deadline)
        return {"PhysicalResourceId": event.get("PhysicalResourceId") or physical_id(fs_id),
                "Data": {"Restored": str(restored)}}

    if request not in ("Create", "Update"):
        raise ValueError(f"unknown RequestType {request!r}")
    fs_id, groups = parse_properties(event.get("ResourceProperties"))
    _log("request", type=request, file_system=fs_id, groups=list(groups), owner=owner)
    enis = file_system_interfaces(fsx, fs_id, deadline)
    if enis is None:
        raise RuntimeError(f"file system {fs_id} does not exist; check FileSystemId")
    try:
        changed = ensure_groups(ec2, enis, groups, owner, deadline)
        if request == "Update":
            try:
                old_fs, old_groups = parse_properties(event.get("OldResourceProperties"))
            except PropertiesError:
                old_fs, old_groups = fs_id, ()
            stale = tuple(g for g in old_groups if g not in groups)
            # Same file system, a group was dropped: release it (removed only if this resource added it). A new
            # file system gets a new physical ID; CloudFormation then deletes the old one with its old properties.
            if old_fs == fs_id and stale:
                changed += release_groups(ec2, enis, stale, owner, deadline)
    except Exception:
        if request == "Create":
            # The Provider framework skips the Delete that follows a failed Create, so undo here (best effort;
            # if this fails too, the records let the next Create or a Delete finish the job).
            try:
                release_groups(ec2, enis, groups, owner, deadline)
            except Exception as undo_exc:  # noqa: BLE001 - the original error is the one to report
                _log("undo-failed", error=str(undo_exc))
        raise
    return {
        "PhysicalResourceId": physical_id(fs_id),
        "Data": {"FileSystemId": fs_id, "SecurityGroupIds": ",".join(groups),
                 "NetworkInterfaceCount": str(len(enis)), "Changed": str(changed)},
    }


def on_event(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    ec2, fsx = _clients()
    return handle(event, ec2, fsx, Deadline(context))
