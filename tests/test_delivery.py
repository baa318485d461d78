"""Multi-account delivery (config/accounts.py, stacks/pipeline_stack.py, stacks/logging_stack.py,
stacks/delivery_stack.py): the pipeline's stages, waves, approvals and cross-account trust, the OAM sink and links,
the log archive and the central alarms, checked on a synthesized organisation of an automation account, a logging
account and one workload account per shipped environment (tests/conftest.py ``delivery_organization``).

The delivery app is synthesized once per session (``delivery`` fixture); the synth step's commands are read from the
synthesized buildspec (nothing runs ``make``). Snapshots: ``--snapshot-update`` on this file after a reviewed change.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from syrupy.extensions.json import JSONSnapshotExtension

from cdk_constructs.delivery import (
    IMAGES_ROLE,
    OAM_RESOURCE_TYPES,
    PREDEPLOY_ROLE,
    WORKLOAD_IMAGES_ROLE,
    alarm_bus_arn,
    archive_bucket_name,
    archive_key_alias_arn,
    bootstrap_role_arn,
)
from config import ConfigError, known_environments, parse_organization
from config.accounts import EXAMPLE_FILE, ORGANIZATION_FILE, approval_before
from stacks.pipeline_stack import DELIVERY_OUT

from .conftest import (
    ROOT,
    DeliverySynth,
    config_with,
    delivered_environments,
    delivery_accounts,
    delivery_organization,
    moved_config,
    one_of_type,
)
from .test_snapshots import mask

pytestmark = (
    pytest.mark.synth
)  # renders every environment's manifests through cdk8s or synthesizes a CDK app (docs/testing.md "Tiers")


DELIVERED = delivered_environments()
"""The environments the example organisation delivers (those in its logging region), in config order."""


def _resources(template: dict[str, Any], type_: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in template["Resources"].items() if v["Type"] == type_}


def _pipeline(delivery: DeliverySynth) -> dict[str, Any]:
    return one_of_type(delivery.templates["pipeline"]["Resources"], "AWS::CodePipeline::Pipeline")[1]["Properties"]


def _stage(delivery: DeliverySynth, name: str) -> list[dict[str, Any]]:
    stages = {s["Name"]: s["Actions"] for s in _pipeline(delivery)["Stages"]}
    return stages[name]


def _role_arn(value: Any) -> str:
    """A role ARN the pipelines module renders as Fn::Join of the partition, as a plain string (partition `aws`)."""
    if isinstance(value, str):
        return value
    parts = value["Fn::Join"][1]
    return "".join("aws" if p == {"Ref": "AWS::Partition"} else p for p in parts)


def _buildspec(delivery: DeliverySynth, step: str) -> dict[str, Any]:
    """The buildspec of the CodeBuild project behind the pipeline action named ``step``."""
    actions = {a["Name"]: a for s in _pipeline(delivery)["Stages"] for a in s["Actions"]}
    project = actions[step]["Configuration"]["ProjectName"]["Ref"]
    return json.loads(delivery.templates["pipeline"]["Resources"][project]["Properties"]["Source"]["BuildSpec"])


def _policy_statements(template: dict[str, Any], role_logical_id: str) -> list[dict[str, Any]]:
    return [
        s
        for p in _resources(template, "AWS::IAM::Policy").values()
        if {"Ref": role_logical_id} in p["Properties"]["Roles"]
        for s in p["Properties"]["PolicyDocument"]["Statement"]
    ]


def _role_named(template: dict[str, Any], name: str) -> tuple[str, dict[str, Any]]:
    found = [
        (k, v) for k, v in _resources(template, "AWS::IAM::Role").items() if v["Properties"].get("RoleName") == name
    ]
    assert len(found) == 1, f"expected one role named {name}, found {[k for k, _ in found]}"
    return found[0]


# ---- configuration ----------------------------------------------------------------------------------------------


def test_organization_file_is_not_an_environment() -> None:
    """config/organization/ is below config/, so known_environments (every config/*.yaml) never lists it, while
    every shipped environment is still found."""
    files = {p.stem for p in ORGANIZATION_FILE.parent.glob("*.yaml")}
    assert EXAMPLE_FILE.is_file() and files
    assert not files & set(known_environments())
    assert set(known_environments()) == {p.stem for p in ORGANIZATION_FILE.parents[1].glob("*.yaml")}


def _environments() -> dict[str, Any]:
    accounts = delivery_accounts()
    return {env: moved_config(env, accounts[env]) for env in DELIVERED}


def _refused(overrides: dict[str, Any], *patterns: str, environments: dict[str, Any] | None = None) -> str:
    with pytest.raises(ConfigError) as info:
        parse_organization(delivery_organization(overrides), environments or _environments())
    message = str(info.value)
    for pattern in patterns:
        assert re.search(pattern, message), f"{pattern!r} not in:\n{message}"
    assert "Traceback" not in message
    return message


def test_load_organization_reads_the_file_and_the_environments(tmp_path: Path) -> None:
    from config import load_organization

    with pytest.raises(ConfigError, match=r"does not exist; .*copy config/organization/accounts\.example\.yaml"):
        load_organization(tmp_path / "accounts.yaml")
    shipped = {e: config_with(e) for e in DELIVERED}
    data = delivery_organization({"allow_shared_production_account": True})
    path = tmp_path / "accounts.yaml"
    path.write_text(yaml.safe_dump(data))
    if len({c.account for c in shipped.values()}) < len(shipped) and any(c.protect_stateful for c in shipped.values()):
        # the shipped environments share an account: allowed here only because the file says so
        path.write_text(yaml.safe_dump({**data, "allow_shared_production_account": False}))
        with pytest.raises(ConfigError, match="allow_shared_production_account: true"):
            load_organization(path)
        path.write_text(yaml.safe_dump(data))
    org, environments = load_organization(path)
    assert set(environments) == set(DELIVERED) == set(org.environment_names)


def test_the_organization_file_if_any_is_valid() -> None:
    """CI validates config/organization/accounts.yaml with the environments' own files before the pipeline uses it."""
    from config import load_organization

    if not ORGANIZATION_FILE.is_file():
        pytest.skip("config/organization/accounts.yaml absent: the delivery pipeline is not configured")
    org, environments = load_organization()
    assert set(org.environment_names) == set(environments)


def test_example_organization_is_valid() -> None:
    org = parse_organization(delivery_organization(), _environments())
    assert org.environment_names == DELIVERED


@pytest.mark.parametrize("field", ["automation", "logging"])
def test_account_must_be_twelve_digits(field: str) -> None:
    _refused({field: {"account": "12345"}}, rf"{field}\.account '12345' is not a 12-digit AWS account ID")


def test_environment_may_not_share_the_logging_account() -> None:
    env = DELIVERED[0]
    logging = delivery_accounts()["logging"]
    environments = {**_environments(), env: moved_config(env, logging)}
    _refused(
        {},
        rf"waves\[0\]\.environments\[0\]: environment '{env}' deploys to account {logging} "
        rf"\(config/{env}\.yaml account\), which is logging\.account",
        environments=environments,
    )


def test_production_may_not_share_an_account_unless_allowed() -> None:
    environments = _environments()
    prods = [e for e in DELIVERED if environments[e].protect_stateful]
    others = [e for e in DELIVERED if not environments[e].protect_stateful]
    assert prods and others, "the shipped environments have a production and a non-production one"
    prod, other = prods[0], others[0]
    shared = {**environments, prod: moved_config(prod, environments[other].account)}
    _refused(
        {},
        rf"production environment '{prod}' .* and '{other}' both deploy to account "
        rf"{environments[other].account}",
        "allow_shared_production_account: true",
        environments=shared,
    )
    allowed = parse_organization(delivery_organization({"allow_shared_production_account": True}), shared)
    assert allowed.allow_shared_production_account


def test_every_problem_at_once_naming_field_and_fix() -> None:
    message = _refused(
        {
            "automation": {"account": "abc"},
            "logging": {"sink_arn": "arn:aws:oam:us-east-1:000000000000:sink/x"},
            "waves": [{"name": "a", "environments": ["nope"]}],
        },
        r"automation\.account 'abc'",
        r"logging\.sink_arn .* is not an OAM sink of account",
    )
    assert message.count("\n  - ") >= 2


def test_unknown_and_repeated_environments_are_refused() -> None:
    env = DELIVERED[0]
    _refused(
        {"waves": [{"name": "one", "environments": [env]}, {"name": "two", "environments": [env, "nope"]}]},
        rf"waves\[1\]\.environments: '{env}' is already in waves\[0\]",
    )
    _refused(
        {"waves": [{"name": "one", "environments": ["nope"]}]},
        r"waves\[0\]\.environments\[0\]: unknown environment 'nope'",
    )


def test_connection_must_be_the_automation_accounts() -> None:
    other = delivery_accounts()["logging"]
    _refused(
        {"source": {"connection_arn": f"arn:aws:codeconnections:us-east-1:{other}:connection/abc"}},
        rf"source\.connection_arn .* is in account {other}",
    )
    _refused(
        {"source": {"connection_arn": "github.com/example"}}, r"source\.connection_arn 'github.com/example' is not"
    )


def test_unknown_key_names_the_known_ones() -> None:
    _refused({"logging": {"archiv": {}}}, r"logging\.archiv: unknown key", "known keys here: .*archive")


# ---- pipeline ---------------------------------------------------------------------------------------------------


def test_pipeline_is_v2_and_reads_the_configured_connection(delivery: DeliverySynth) -> None:
    props = _pipeline(delivery)
    assert props["PipelineType"] == "V2"
    src = delivery.organization.source
    (action,) = _stage(delivery, "Source")
    assert action["ActionTypeId"]["Provider"] == "CodeStarSourceConnection"
    assert action["Configuration"]["ConnectionArn"] == src.connection_arn
    assert action["Configuration"]["FullRepositoryId"] == src.repository
    assert action["Configuration"]["BranchName"] == src.branch


def test_source_role_may_use_the_connection(delivery: DeliverySynth) -> None:
    """IAM matches a connection only under its own service prefix (Developer Tools console User Guide, "Connections
    rename"), so the source action's role holds `<prefix>:UseConnection` for the configured ARN's prefix."""
    arn = delivery.organization.source.connection_arn
    prefix = arn.split(":")[2]
    pipeline = delivery.templates["pipeline"]
    (action,) = _stage(delivery, "Source")
    role = action["RoleArn"]["Fn::GetAtt"][0]
    granted = [
        s
        for s in _policy_statements(pipeline, role)
        if f"{prefix}:UseConnection" in (s["Action"] if isinstance(s["Action"], list) else [s["Action"]])
    ]
    assert [s["Resource"] for s in granted] == [arn]


def test_synth_runs_the_readme_commands_then_the_delivery_assembly(delivery: DeliverySynth) -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", readme, re.S)
    assert block
    readme_commands = [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.startswith("make ")]
    assert readme_commands, "README's first bash block names the commands a newcomer runs"
    spec = _buildspec(delivery, "Synth")
    commands = spec["phases"]["build"]["commands"]
    assert commands[: len(readme_commands)] == readme_commands
    assert commands[-1] == "make synth-delivery"
    makefile = (ROOT / "Makefile").read_text()
    target = re.search(r"^synth-delivery:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert target and f"-o {DELIVERY_OUT}" in target.group(1) and "-c delivery=" in target.group(1)
    assert spec["artifacts"]["base-directory"] == DELIVERY_OUT


def test_stages_follow_the_waves_with_approval_before_production(delivery: DeliverySynth) -> None:
    names = [s["Name"] for s in _pipeline(delivery)["Stages"]]
    org, envs = delivery.organization, delivery.environments
    assert names[:2] == ["Source", "Build"] and "UpdatePipeline" in names
    deploy = names[names.index("Logging") :]
    assert deploy == ["Logging", *[envs[w.environments[0]].stack_prefix for w in org.waves]]
    for wave in org.waves:
        actions = _stage(delivery, envs[wave.environments[0]].stack_prefix)
        manual = [a for a in actions if a["ActionTypeId"]["Category"] == "Approval"]
        if approval_before(wave, envs):
            assert len(manual) == 1 and manual[0]["RunOrder"] == 1, wave.name
            assert min(a["RunOrder"] for a in actions if a is not manual[0]) > 1
        else:
            assert not manual, wave.name
    assert any(envs[e].protect_stateful for e in org.environment_names), "a production wave is exercised"


def test_each_environment_deploys_into_its_account_through_its_bootstrap_roles(delivery: DeliverySynth) -> None:
    for env, config in delivery.environments.items():
        stack_actions = [
            a for a in _stage(delivery, config.stack_prefix) if a["ActionTypeId"]["Provider"] == "CloudFormation"
        ]
        assert stack_actions
        deploy_role = bootstrap_role_arn("deploy", config.account, config.region)
        exec_role = bootstrap_role_arn("cfn-exec", config.account, config.region)
        for action in stack_actions:
            assert _role_arn(action["RoleArn"]) == deploy_role, action["Name"]
            if action["Configuration"]["ActionMode"] == "CHANGE_SET_REPLACE":
                assert _role_arn(action["Configuration"]["RoleArn"]) == exec_role
        stacks = {a["Configuration"]["StackName"] for a in stack_actions}
        assert stacks == {s.stack_name for s in delivery.pipeline.stages[env].stacks.values()}
        assert stacks == {
            s.node.id for s in delivery.pipeline.stages[env].stacks.values()
        }  # as `make deploy` names them
    lg = delivery.organization.logging
    assert {_role_arn(a["RoleArn"]) for a in _stage(delivery, "Logging")} == {
        bootstrap_role_arn("deploy", lg.account, lg.region)
    }


def test_predeploy_runs_first_and_images_before_the_stacks_that_read_them(delivery: DeliverySynth) -> None:
    for env, config in delivery.environments.items():
        actions = _stage(delivery, config.stack_prefix)
        order = {a["Name"]: a["RunOrder"] for a in actions}
        predeploy, images = f"Predeploy-{env}", f"Storage.Images-{env}"
        stacks = [n for n in order if n.endswith((".Prepare", ".Deploy"))]
        assert order[predeploy] < min(order[n] for n in stacks)
        assert order["Storage.Deploy"] < order[images]
        storage = delivery.pipeline.stages[env].stacks["storage"]
        readers = [
            s.node.id.removeprefix(f"{config.stack_prefix}-")
            for s in delivery.pipeline.stages[env].stacks.values()
            if storage in s.dependencies
        ]
        assert readers, "some stack reads the Storage stack (its image tags, buckets)"
        for reader in readers:
            assert order[f"{reader}.Prepare"] > order[images], reader
        assert _buildspec(delivery, predeploy)["phases"]["build"]["commands"][-1].endswith(
            f"-m tools.predeploy --env {env}"
        )
        assert _buildspec(delivery, images)["phases"]["build"]["commands"][-1].endswith(f"make images ENV={env}")


def test_cross_account_step_roles_and_the_trust_they_need(delivery: DeliverySynth) -> None:
    pipeline = delivery.templates["pipeline"]
    auto = delivery.organization.automation.account
    images_id, _ = _role_named(pipeline, IMAGES_ROLE)
    predeploy_id, _ = _role_named(pipeline, PREDEPLOY_ROLE)
    assumed = {
        rid: {
            r
            for s in _policy_statements(pipeline, rid)
            if s["Action"] == "sts:AssumeRole"
            for r in (s["Resource"] if isinstance(s["Resource"], list) else [s["Resource"]])
        }
        for rid in (images_id, predeploy_id)
    }
    envs = delivery.environments
    assert assumed[predeploy_id] == {bootstrap_role_arn("lookup", c.account, c.region) for c in envs.values()}
    assert assumed[images_id] == {
        f"arn:aws:iam::{c.account}:role/{WORKLOAD_IMAGES_ROLE.format(env=e)}" for e, c in envs.items()
    }
    for env in envs:
        template = delivery.templates[f"{env}-delivery"]
        _, role = _role_named(template, WORKLOAD_IMAGES_ROLE.format(env=env))
        (statement,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
        principal = json.dumps(statement["Principal"])
        assert f":iam::{auto}:root" in principal
        assert statement["Condition"] == {"ArnEquals": {"aws:PrincipalArn": f"arn:aws:iam::{auto}:role/{IMAGES_ROLE}"}}


def test_service_roles_carry_confused_deputy_conditions(delivery: DeliverySynth) -> None:
    """Every role a service assumes in the new stacks names the account it acts for (aws:SourceAccount), unless
    cdk_constructs/governance/trust_conditions.py lists the service as trusted without conditions, with the reason."""
    from cdk_constructs.governance.trust_conditions import EXEMPTION_METADATA, UNCONDITIONED

    bare = []
    for name, template in delivery.templates.items():
        for lid, role in _resources(template, "AWS::IAM::Role").items():
            if len(role.get("Metadata", {}).get(EXEMPTION_METADATA, "")) >= 40:
                continue  # exempt, with the reason in the template
            for statement in role["Properties"]["AssumeRolePolicyDocument"]["Statement"]:
                services = statement.get("Principal", {}).get("Service", [])
                services = [services] if isinstance(services, str) else services
                for service in services:
                    if service not in UNCONDITIONED and "aws:SourceAccount" not in json.dumps(
                        statement.get("Condition", {})
                    ):
                        bare.append(f"{name}/{lid}: {service}")
    assert not bare, "service roles without aws:SourceAccount:\n" + "\n".join(bare)


def test_no_long_lived_credentials(delivery: DeliverySynth) -> None:
    for name, template in delivery.templates.items():
        kinds = {r["Type"] for r in template["Resources"].values()}
        assert not kinds & {"AWS::IAM::User", "AWS::IAM::AccessKey", "AWS::IAM::UserToGroupAddition"}, name


# ---- central logging --------------------------------------------------------------------------------------------


def test_oam_sink_admits_exactly_the_workload_accounts(delivery: DeliverySynth) -> None:
    _, sink = one_of_type(delivery.templates["logging"]["Resources"], "AWS::Oam::Sink")
    policy = sink["Properties"]["Policy"]
    policy = json.loads(policy) if isinstance(policy, str) else policy
    (statement,) = policy["Statement"]
    workload = {c.account for c in delivery.environments.values()}
    assert set(statement["Principal"]["AWS"]) == workload
    assert sorted(statement["Action"]) == ["oam:CreateLink", "oam:UpdateLink"]
    assert statement["Condition"] == {"ForAllValues:StringEquals": {"oam:ResourceTypes": list(OAM_RESOURCE_TYPES)}}


def test_each_workload_account_links_what_the_platform_emits(delivery: DeliverySynth) -> None:
    """Metrics and log groups; no X-Ray traces (nothing of the platform sends any, and sharing them needs xray:Link:
    the registry schema of AWS::Oam::Link)."""
    assert "AWS::XRay::Trace" not in OAM_RESOURCE_TYPES
    for env in delivery.environments:
        _, link = one_of_type(delivery.templates[f"{env}-delivery"]["Resources"], "AWS::Oam::Link")
        assert sorted(link["Properties"]["ResourceTypes"]) == sorted(OAM_RESOURCE_TYPES)
        assert link["Properties"]["SinkIdentifier"] == delivery.organization.logging.sink_arn


def _physical_names(template: dict[str, Any]) -> list[tuple[str, str]]:
    """(type, name) of every resource whose name property (``<Kind>Name`` of type ``AWS::<ns>::<Kind>``, or
    ``Name``) is a literal."""
    names = []
    for r in template["Resources"].values():
        if r["Type"] == "AWS::IAM::Policy":
            continue  # an inline policy's name is its role's, not the account's
        kind = r["Type"].split("::")[-1]
        for prop in (f"{kind}Name", "Name"):
            value = r.get("Properties", {}).get(prop)
            if isinstance(value, str):
                names.append((r["Type"], value))
    return names


def test_two_environments_in_one_account_do_not_collide() -> None:
    """The config check lets two (non-production) environments share a workload account; the account-wide
    resources (the trail of fixed name, the one OAM link an account may have to a sink) are then created by the first
    of them in the waves only, and every other name is the environment's own."""
    import aws_cdk as cdk
    from aws_cdk.assertions import Template

    from stacks.delivery_stack import WorkloadDeliveryStack
    from stacks.pipeline_stack import account_wide_environments

    environments = _environments()
    first, second = DELIVERED[:2]
    shared = {first: environments[first], second: moved_config(second, environments[first].account)}
    org = parse_organization(delivery_organization({"allow_shared_production_account": True}), shared)
    assert account_wide_environments(org, shared) == {first}
    app = cdk.App()
    stacks = []
    for name, config in shared.items():
        stacks.append(
            WorkloadDeliveryStack(
                app,
                f"{config.stack_prefix}-Delivery",
                config=config,
                organization=org,
                vpc_id="vpc-0123456789abcdef0",
                account_wide=name in account_wide_environments(org, shared),
            )
        )
    templates = [Template.from_stack(stack).to_json() for stack in stacks]
    names = [n for t in templates for n in _physical_names(t)]
    assert len(names) == len(set(names)), f"names used twice in account {shared[first].account}: {sorted(names)}"
    kinds = [r["Type"] for t in templates for r in t["Resources"].values()]
    assert kinds.count("AWS::CloudTrail::Trail") == 1 and kinds.count("AWS::Oam::Link") == 1


def test_no_link_before_the_sink_arn_is_configured() -> None:
    import aws_cdk as cdk

    from stacks.delivery_stack import WorkloadDeliveryStack

    envs = _environments()
    org = parse_organization(delivery_organization(sink=False), envs)
    stack = WorkloadDeliveryStack(
        cdk.App(), "Probe", config=envs[DELIVERED[0]], organization=org, vpc_id="vpc-0123456789abcdef0"
    )
    assert stack.link is None
    assert not [c for c in stack.node.find_all() if c.node.id == "Link"]


def test_trail_and_flow_logs_reach_the_archive(delivery: DeliverySynth) -> None:
    org = delivery.organization
    bucket = archive_bucket_name(org)
    for env in delivery.environments:
        resources = delivery.templates[f"{env}-delivery"]["Resources"]
        _, trail = one_of_type(resources, "AWS::CloudTrail::Trail")
        assert trail["Properties"]["S3BucketName"] == bucket
        assert trail["Properties"]["KMSKeyId"] == archive_key_alias_arn(org)
        assert trail["Properties"]["IsMultiRegionTrail"] and trail["Properties"]["EnableLogFileValidation"]
        archive_logs = [
            r
            for r in _resources(delivery.templates[f"{env}-delivery"], "AWS::EC2::FlowLog").values()
            if r["Properties"].get("LogDestinationType") == "s3"
        ]
        assert len(archive_logs) == 1 and archive_logs[0]["Properties"]["LogDestination"].startswith(
            f"arn:aws:s3:::{bucket}/"
        )
    _, archive = next(
        (k, v)
        for k, v in _resources(delivery.templates["logging"], "AWS::S3::Bucket").items()
        if v["Properties"].get("BucketName") == bucket
    )
    props, cfg = archive["Properties"], org.logging.archive
    rule = props["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]["ServerSideEncryptionByDefault"]
    assert rule["SSEAlgorithm"] == "aws:kms"
    assert props["ObjectLockEnabled"] is (cfg.object_lock_mode is not None)
    retention = props["ObjectLockConfiguration"]["Rule"]["DefaultRetention"]
    assert retention == {"Mode": cfg.object_lock_mode, "Days": cfg.object_lock_days}
    assert {r.get("ExpirationInDays") for r in props["LifecycleConfiguration"]["Rules"]} == {cfg.retention_days}
    # the archive's policy lets the services write only for the workload accounts
    policy = next(
        p
        for p in _resources(delivery.templates["logging"], "AWS::S3::BucketPolicy").values()
        if "Archive" in json.dumps(p["Properties"]["Bucket"])
        and "AccessLogs" not in json.dumps(p["Properties"]["Bucket"])
    )
    writes = [s for s in policy["Properties"]["PolicyDocument"]["Statement"] if s.get("Sid", "").endswith("Write")]
    workload = {c.account for c in delivery.environments.values()}
    assert writes
    for statement in writes:
        prefixed = {re.search(r"/AWSLogs/([0-9]{12})/", json.dumps(r)).group(1) for r in statement["Resource"]}
        assert prefixed == workload


def test_trail_creators_may_decrypt_with_the_archive_key(delivery: DeliverySynth) -> None:
    """The archive bucket has an S3 Bucket Key, so creating or updating a trail into it needs kms:Decrypt of the
    creator (CloudTrail User Guide, "Configure AWS KMS key policies for CloudTrail"): the workload accounts' CDK
    execution roles, and no one else."""
    keys = _resources(delivery.templates["logging"], "AWS::KMS::Key").values()
    statements = [
        s for k in keys for s in k["Properties"]["KeyPolicy"]["Statement"] if s.get("Sid") == "TrailWritersDecrypt"
    ]
    (statement,) = statements
    assert statement["Action"] == "kms:Decrypt"
    envs = delivery.environments.values()
    assert sorted(statement["Condition"]["ArnEquals"]["aws:PrincipalArn"]) == sorted(
        bootstrap_role_arn("cfn-exec", c.account, c.region) for c in envs
    )


def test_alarms_of_every_environment_reach_one_topic(delivery: DeliverySynth) -> None:
    logging = delivery.templates["logging"]
    workload = {c.account for c in delivery.environments.values()}
    (bus_policy,) = _resources(logging, "AWS::Events::EventBusPolicy").values()
    statement = bus_policy["Properties"]["Statement"]
    assert statement["Effect"] == "Allow" and statement["Action"] == "events:PutEvents"
    admitted = [
        re.fullmatch(r"arn:aws:iam::([0-9]{12}):root", _role_arn(p)).group(1) for p in statement["Principal"]["AWS"]
    ]
    assert sorted(admitted) == sorted(workload)
    _, rule = one_of_type(logging["Resources"], "AWS::Events::Rule")
    assert rule["Properties"]["EventPattern"]["detail-type"] == ["CloudWatch Alarm State Change"]
    topic_id, _ = one_of_type(logging["Resources"], "AWS::SNS::Topic")
    assert rule["Properties"]["Targets"][0]["Arn"] == {"Ref": topic_id}
    for env, config in delivery.environments.items():
        _, forward = one_of_type(delivery.templates[f"{env}-delivery"]["Resources"], "AWS::Events::Rule")
        assert forward["Properties"]["Targets"][0]["Arn"] == alarm_bus_arn(delivery.organization)
        assert forward["Properties"]["EventPattern"]["detail"]["alarmName"] == [
            {"prefix": f"{config.resource_prefix}-"}
        ]


def test_dashboard_shows_every_environment(delivery: DeliverySynth) -> None:
    _, dashboard = one_of_type(delivery.templates["logging"]["Resources"], "AWS::CloudWatch::Dashboard")
    body = json.dumps(dashboard["Properties"]["DashboardBody"])
    for config in delivery.environments.values():
        assert config.account in body and config.cluster_name in body


# ---- compliance and snapshots -----------------------------------------------------------------------------------


def test_cdk_nag_and_cfn_lint_are_clean(delivery: DeliverySynth) -> None:
    report = delivery.validation_report or {"pluginReports": []}
    findings = [
        f"{v['ruleName']} at {c['constructPath']}"
        for p in report["pluginReports"]
        for v in p["violations"]
        for c in v["violatingConstructs"]
    ]
    assert not findings and delivery.error is None, "\n".join(findings) or delivery.error
    cfn_lint = Path(sys.executable).with_name("cfn-lint")
    files = [str(p) for p in delivery.template_files.values()]
    proc = subprocess.run(
        [str(cfn_lint), "--format", "parseable", *files], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and not proc.stdout.strip(), f"cfn-lint findings:\n{proc.stdout}{proc.stderr}"


def test_cost_counts_what_each_account_adds(delivery: DeliverySynth, capsys: pytest.CaptureFixture[str]) -> None:
    from tools.cost.__main__ import main

    assert main(["--delivery", "--cdk-out", str(delivery.outdir), "--json"]) == 0
    reports = json.loads(capsys.readouterr().out)
    org = delivery.organization
    expected = {
        f"automation account {org.automation.account}",
        f"logging account {org.logging.account}",
        *{f"workload account {c.account}" for c in delivery.environments.values()},
    }
    assert set(reports) == expected
    for label, report in reports.items():
        assert not report["unpriced"], f"{label}: {report['unpriced']}"
    stacks = {s for r in reports.values() for line in r["idle"] for s in [line["stack"]]}
    assert "Delivery-Logging" in stacks  # its keys and dashboard are priced


def test_images_step_outlasts_the_builds_it_waits_for(delivery: DeliverySynth) -> None:
    """The image step waits for every build `make images` starts: its CodeBuild timeout is at least the longest a
    build of that environment may queue and run (the image projects' own limits, read from the Storage template)."""
    from tools.execution_policy import stacks

    by_name = {s.name: s.template for s in stacks(delivery.outdir)}
    for env, config in delivery.environments.items():
        storage = by_name[f"{config.stack_prefix}-Storage"]
        builds = [
            r["Properties"]
            for r in storage["Resources"].values()
            if r["Type"] == "AWS::CodeBuild::Project" and "IMAGE_TAG" in json.dumps(r["Properties"]["Environment"])
        ]
        assert builds, env
        longest = max(b.get("QueuedTimeoutInMinutes", 480) + b.get("TimeoutInMinutes", 60) for b in builds)
        actions = {a["Name"]: a for a in _stage(delivery, config.stack_prefix)}
        project = actions[f"Storage.Images-{env}"]["Configuration"]["ProjectName"]["Ref"]
        step = delivery.templates["pipeline"]["Resources"][project]["Properties"]
        assert step["TimeoutInMinutes"] > longest, env


def test_images_role_may_wait_for_or_stop_a_running_build(delivery: DeliverySynth) -> None:
    for env in delivery.environments:
        template = delivery.templates[f"{env}-delivery"]
        role_id, _ = _role_named(template, WORKLOAD_IMAGES_ROLE.format(env=env))
        actions = {a for s in _policy_statements(template, role_id) for a in json.dumps(s["Action"]).split('"')}
        assert {"codebuild:StartBuild", "codebuild:ListBuildsForProject", "codebuild:StopBuild"} <= actions


@pytest.fixture
def snapshot_json(snapshot):
    return snapshot.use_extension(JSONSnapshotExtension)


# cdk-assets destinations end in 8 hex digits of a digest of the destination, which holds the asset's hash (content-
# addressed, like the hashes test_snapshots.mask replaces).
_DESTINATION = re.compile(r'(:[0-9]{12}-[a-z]{2}(?:-gov|-iso[a-z]*)?-[a-z]+-[0-9])-[0-9a-f]{8}(\\?")')


def _masked(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return _DESTINATION.sub(r"\1-<digest>\2", value) if isinstance(value, str) else value


def test_delivery_snapshots(delivery: DeliverySynth, snapshot_json) -> None:
    for name, template in sorted(delivery.templates.items()):
        assert _masked(mask(template)) == snapshot_json(name=f"delivery-{name}"), f"{name} changed"


# ---- update path ------------------------------------------------------------------------------------------------


def test_attached_managed_policy_is_changed_in_place() -> None:
    """Permission sets attach the presigned-URL policy by name, and a change of a create-only property of
    AWS::IAM::ManagedPolicy (the registry schema's createOnlyProperties, cfn-lint's bundled copy) replaces it under a
    new generated name, leaving the old policy attached and its deletion failing. Its create-only properties stay
    those it was first deployed with (commit 96bfcd6: its Description, Path /, no ManagedPolicyName); its statements
    change in place."""
    import types

    import aws_cdk as cdk
    from aws_cdk.assertions import Template

    from cdk_constructs.studio.studio_user_profile import presigned_url_policy
    from tools.execution_policy import SCHEMAS, _provider

    schema = json.loads(
        (SCHEMAS / "resources" / f"{_provider('us-east-1')['AWS::IAM::ManagedPolicy']}.json").read_text()
    )
    create_only = {p.removeprefix("/properties/") for p in schema["createOnlyProperties"]}
    assert create_only == {"ManagedPolicyName", "Description", "Path"}
    stack = cdk.Stack(cdk.App(), "Probe", env=cdk.Environment(account="123456789012", region="us-east-1"))
    presigned_url_policy(stack, "P", domain=types.SimpleNamespace(domain_id="d-abc"), sign_ins={"alice": "alice"})
    (policy,) = Template.from_stack(stack).find_resources("AWS::IAM::ManagedPolicy").values()
    deployed = {
        "Description": "Open only one's own SageMaker Studio profile (tag studio-user-profile = principal tag "
        "studio-user-profile)",
        "Path": "/",
    }
    assert {k: v for k, v in policy["Properties"].items() if k in create_only} == deployed
