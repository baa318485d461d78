"""`<Env>-Mlflow`: configuration checks and assertions on the synthesized templates of dev and prod."""

from __future__ import annotations

import json
import re
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_iam as iam
from aws_cdk import aws_secretsmanager as sm
from aws_cdk.assertions import Template

from config import ConfigError

from .conftest import CDK_CONTEXT, ROOT, Synth, config_with, synthesize

TLS_POLICY = "ELBSecurityPolicy-TLS13-1-2-2021-06"


def _one(synth: Synth, type_: str) -> tuple[str, dict[str, Any]]:
    return synth.one("mlflow", type_)


def _container(synth: Synth) -> dict[str, Any]:
    _, task = _one(synth, "AWS::ECS::TaskDefinition")
    (container,) = task["Properties"]["ContainerDefinitions"]
    return container


def _env(synth: Synth) -> dict[str, Any]:
    return {e["Name"]: e["Value"] for e in _container(synth)["Environment"]}


def _cluster_id(synth: Synth) -> str:
    return _one(synth, "AWS::RDS::DBCluster")[0]


# ---- wiring and contract -------------------------------------------------------------------------------------
def test_stack_is_named_and_ordered(env_synth: Synth) -> None:
    names = [s.stack_name for s in env_synth.stacks.values()]
    prefix = env_synth.config.stack_prefix
    assert f"{prefix}-Mlflow" in names
    assert names.index(f"{prefix}-Mlflow") == names.index(f"{prefix}-Storage") + 1
    mlflow = env_synth.stacks["mlflow"]
    assert {d.stack_name for d in mlflow.dependencies} == {f"{prefix}-Network", f"{prefix}-Storage"}


def _team_secrets(synth: Synth) -> dict[str, str]:
    """Team name -> logical id of its credentials secret, found by the username template (`team-<team>`)."""
    out = {}
    for lid, secret in synth.resources("mlflow", "AWS::SecretsManager::Secret").items():
        template = secret["Properties"]["GenerateSecretString"].get("SecretStringTemplate")
        username = json.loads(template).get("username", "") if template else ""
        if username.startswith("team-"):
            out[username.removeprefix("team-")] = lid
    return out


def test_contract_attributes(env_synth: Synth) -> None:
    mlflow = env_synth.stacks["mlflow"]
    teams = [t.name for t in env_synth.config.kubernetes.teams]
    assert mlflow.tracking_uri == f"https://{env_synth.config.mlflow.endpoint.domain_name}"
    assert set(mlflow.team_credentials_secrets) == set(teams)
    assert all(isinstance(s, sm.Secret) for s in mlflow.team_credentials_secrets.values())  # ISecrets
    assert mlflow.load_balancer is not None
    outputs = env_synth.templates["mlflow"]["Outputs"]
    assert outputs["TrackingUri"]["Value"] == mlflow.tracking_uri
    secrets = _team_secrets(env_synth)
    for team in teams:
        output = "Team" + "".join(p.capitalize() for p in team.split("-")) + "CredentialsSecretArn"
        assert outputs[output]["Value"] == {"Ref": secrets[team]}
    assert not [o for o in outputs if "Client" in o], "no shared client credentials any more"


def test_one_generated_mlflow_user_per_team(env_synth: Synth) -> None:
    """Adding a team adds a secret: the set follows kubernetes.teams."""
    secrets = _team_secrets(env_synth)
    assert set(secrets) == {t.name for t in env_synth.config.kubernetes.teams}
    for lid in secrets.values():
        props = env_synth.templates["mlflow"]["Resources"][lid]["Properties"]
        gen = props["GenerateSecretString"]
        assert gen["GenerateStringKey"] == "password" and gen["PasswordLength"] >= 32
        assert "SecretString" not in props
    names = {s["Name"] for s in _container(env_synth)["Secrets"]}
    assert {n for n in names if n.startswith("MLFLOW_TEAM_")} == {
        f"MLFLOW_TEAM_{t.name.upper().replace('-', '_')}_{k}"
        for t in env_synth.config.kubernetes.teams
        for k in ("USERNAME", "PASSWORD")
    }


def test_grant_team_credentials_reaches_one_team_and_stays_in_the_grantee_stack() -> None:
    """A role of a later stack gets GetSecretValue on its team's secret only, and kms:Decrypt only for that secret's
    encryption context, by its own policy; Mlflow does not depend on it."""
    import app as platform_app

    app = cdk.App(context={**CDK_CONTEXT, "aws:cdk:bundling-stacks": []}, builtin_cloud_formation_validation=False)
    config = config_with("dev")
    stacks = platform_app.build(app, config)
    mlflow = stacks["mlflow"]
    team, other = (t.name for t in config.kubernetes.teams[:2])
    consumer = cdk.Stack(app, "Consumer", env=cdk.Environment(account=config.account, region=config.region))
    role = iam.Role(consumer, "Job", assumed_by=iam.ServicePrincipal("sagemaker.amazonaws.com"))
    mlflow.grant_team_credentials(team, role)
    with pytest.raises(KeyError, match="no credentials for team 'nobody'"):
        mlflow.grant_team_credentials("nobody", role)
    template = Template.from_stack(consumer)
    statements = [
        s
        for p in template.find_resources("AWS::IAM::Policy").values()
        for s in p["Properties"]["PolicyDocument"]["Statement"]
    ]
    resolve = consumer.resolve
    read = next(s for s in statements if "secretsmanager:GetSecretValue" in s["Action"])
    assert json.dumps(read["Resource"]) == json.dumps(resolve(mlflow.team_credentials_secrets[team].secret_arn))
    assert json.dumps(resolve(mlflow.team_credentials_secrets[other].secret_arn)) not in json.dumps(statements)
    kms = next(s for s in statements if s["Action"] == "kms:Decrypt")
    assert kms["Condition"]["StringEquals"]["kms:ViaService"] == "secretsmanager.us-east-1.amazonaws.com"
    assert json.dumps(kms["Condition"]["StringEquals"]["kms:EncryptionContext:SecretARN"]) == json.dumps(
        read["Resource"]
    )
    assert consumer not in mlflow.dependencies


# ---- no credentials in templates ----------------------------------------------------------------------------
def test_no_password_literal_anywhere(env_synth: Synth) -> None:
    for name, template in env_synth.templates.items():
        assert "password1234" not in json.dumps(template), f"{name} template"
    for path in (ROOT / "mlflow_image").rglob("*"):  # the entry point's app plugin metadata is a folder
        assert path.is_dir() or "password1234" not in path.read_text(), path


def test_secrets_are_generated_never_literal(env_synth: Synth) -> None:
    secrets = env_synth.resources("mlflow", "AWS::SecretsManager::Secret")
    assert len(secrets) == 4 + len(env_synth.config.kubernetes.teams), (
        "database, admin, Flask key, the platform's evaluator (issue 40), one per team"
    )
    for lid, secret in secrets.items():
        props = secret["Properties"]
        assert "SecretString" not in props and "GenerateSecretString" in props, lid
        assert props["KmsKeyId"] == {"Fn::GetAtt": ["SecretsKey317DCF94", "Arn"]}, lid
    _, cluster = _one(env_synth, "AWS::RDS::DBCluster")
    assert "{{resolve:secretsmanager:" in json.dumps(cluster["Properties"]["MasterUserPassword"])


def test_task_definition_takes_credentials_from_secrets_manager(env_synth: Synth) -> None:
    container = _container(env_synth)
    env = _env(env_synth)
    assert not [k for k in env if re.search(r"PASSWORD|SECRET|TOKEN", k)], "credentials in plain environment"
    secrets = {s["Name"]: json.dumps(s["ValueFrom"]) for s in container["Secrets"]}
    team_secrets = _team_secrets(env_synth)
    teams = {t.name: "MLFLOW_TEAM_" + t.name.upper().replace("-", "_") for t in env_synth.config.kubernetes.teams}
    assert set(secrets) == {
        "MLFLOW_DB_USERNAME",
        "MLFLOW_DB_PASSWORD",
        "MLFLOW_AUTH_ADMIN_USERNAME",
        "MLFLOW_AUTH_ADMIN_PASSWORD",
        "MLFLOW_FLASK_SERVER_SECRET_KEY",
        "MLFLOW_EVALUATOR_USERNAME",
        "MLFLOW_EVALUATOR_PASSWORD",
        *(f"{v}_{k}" for v in teams.values() for k in ("USERNAME", "PASSWORD")),
    }
    assert "DatabaseClusterSecretAttachment" in secrets["MLFLOW_DB_PASSWORD"]
    # the production gate's writer (issue 40): its own secret, which no team's role or Studio user reads
    assert "EvaluatorCredentialsSecret" in secrets["MLFLOW_EVALUATOR_PASSWORD"]
    assert "AdminCredentialsSecret" in secrets["MLFLOW_AUTH_ADMIN_PASSWORD"]
    assert "FlaskSecretKeySecret" in secrets["MLFLOW_FLASK_SERVER_SECRET_KEY"]
    for team, prefix in teams.items():  # each team's pair comes from that team's own secret
        assert json.loads(secrets[f"{prefix}_PASSWORD"]) == {
            "Fn::Join": ["", [{"Ref": team_secrets[team]}, ":password::"]]
        }
        assert json.loads(secrets[f"{prefix}_USERNAME"]) == {
            "Fn::Join": ["", [{"Ref": team_secrets[team]}, ":username::"]]
        }


def test_teams_see_only_their_own_experiments_and_telemetry_is_off(env_synth: Synth) -> None:
    env = _env(env_synth)
    assert env["MLFLOW_AUTH_DEFAULT_PERMISSION"] == "NO_PERMISSIONS"
    # MLflow 3.x: mlflow/telemetry/utils.py is_telemetry_disabled() reads both.
    assert env["MLFLOW_DISABLE_TELEMETRY"] == "true" and env["DO_NOT_TRACK"] == "true"


# ---- server ---------------------------------------------------------------------------------------------------
def test_backend_is_aurora_postgresql_and_auth_store_too(env_synth: Synth) -> None:
    _, cluster = _one(env_synth, "AWS::RDS::DBCluster")
    assert cluster["Properties"]["Engine"] == "aurora-postgresql"
    env = _env(env_synth)
    assert env["MLFLOW_DB_HOST"] == {"Fn::GetAtt": [_cluster_id(env_synth), "Endpoint.Address"]}
    assert env["MLFLOW_DB_PORT"] == "5432" and env["MLFLOW_DB_NAME"] == "mlflow"
    assert env["MLFLOW_AUTH"] == "basic-auth", "MLflow's basic-auth app"
    assert env["MLFLOW_AUTH_DB_NAME"] == "mlflow_auth", "user store: a database in the same Aurora cluster"


def test_artifacts_are_proxied_to_the_artifact_bucket(env_synth: Synth) -> None:
    dest = json.dumps(_env(env_synth)["MLFLOW_ARTIFACTS_DESTINATION"])
    assert '"s3://"' in dest and "ArtifactsBucket" in dest and dest.endswith('"/mlflow"]]}')


def test_allowed_hosts_are_the_dns_name(env_synth: Synth) -> None:
    domain = env_synth.config.mlflow.endpoint.domain_name
    assert _env(env_synth)["MLFLOW_SERVER_ALLOWED_HOSTS"] == f"{domain},{domain}:443"


def test_connection_pool_off_only_where_the_database_pauses(dev: Synth, prod: Synth) -> None:
    assert _env(dev)["MLFLOW_SQLALCHEMYSTORE_POOLCLASS"] == "NullPool"
    assert "MLFLOW_SQLALCHEMYSTORE_POOLCLASS" not in _env(prod)
    for synth in (dev, prod):
        assert _env(synth)["MLFLOW_SERVER_ENABLE_JOB_EXECUTION"] == "false"


def test_container_is_hardened_with_health_check_and_logs(env_synth: Synth) -> None:
    c = _container(env_synth)
    assert c["ReadonlyRootFilesystem"] is True
    assert c["MountPoints"] == [{"ContainerPath": "/tmp", "ReadOnly": False, "SourceVolume": "tmp"}]
    assert "/health" in " ".join(c["HealthCheck"]["Command"])
    assert c["LogConfiguration"]["LogDriver"] == "awslogs"
    assert c["PortMappings"][0]["ContainerPort"] == 5000
    groups = env_synth.resources("mlflow", "AWS::Logs::LogGroup")
    svc_days = env_synth.config.mlflow.service.log_retention_days
    assert svc_days in {g["Properties"]["RetentionInDays"] for g in groups.values()}
    assert all("KmsKeyId" in g["Properties"] for g in groups.values())


def test_image_is_an_asset_built_at_deploy(env_synth: Synth) -> None:
    manifest = json.loads(
        next(env_synth.outdir.glob(f"{env_synth.config.stack_prefix}-Mlflow.assets.json")).read_text()
    )
    (image,) = manifest["dockerImages"].values()
    assert image["source"]["directory"].startswith("asset.")
    assert image["source"].get("platform") == "linux/amd64"


def test_cluster_and_service(env_synth: Synth) -> None:
    svc_cfg = env_synth.config.mlflow.service
    _, cluster = _one(env_synth, "AWS::ECS::Cluster")
    assert {"Name": "containerInsights", "Value": "enabled"} in cluster["Properties"]["ClusterSettings"]
    _, service = _one(env_synth, "AWS::ECS::Service")
    props = service["Properties"]
    assert props["DesiredCount"] == svc_cfg.min_tasks
    assert props["LaunchType"] == "FARGATE"
    net = props["NetworkConfiguration"]["AwsvpcConfiguration"]
    assert net["AssignPublicIp"] == "DISABLED"
    assert "MlflowTasks" in json.dumps(net["SecurityGroups"])
    assert "PrivateSubnet" in json.dumps(net["Subnets"])
    assert props["DeploymentConfiguration"]["DeploymentCircuitBreaker"] == {"Enable": True, "Rollback": True}
    _, target = _one(env_synth, "AWS::ApplicationAutoScaling::ScalableTarget")
    assert (target["Properties"]["MinCapacity"], target["Properties"]["MaxCapacity"]) == (
        svc_cfg.min_tasks,
        svc_cfg.max_tasks,
    )
    metrics = {
        p["Properties"]["TargetTrackingScalingPolicyConfiguration"]["PredefinedMetricSpecification"][
            "PredefinedMetricType"
        ]
        for p in env_synth.resources("mlflow", "AWS::ApplicationAutoScaling::ScalingPolicy").values()
    }
    assert metrics == {"ECSServiceAverageCPUUtilization", "ALBRequestCountPerTarget"}


def test_prod_runs_at_least_two_tasks_in_at_least_two_azs(prod: Synth) -> None:
    _, service = _one(prod, "AWS::ECS::Service")
    assert service["Properties"]["DesiredCount"] >= 2
    assert len(service["Properties"]["NetworkConfiguration"]["AwsvpcConfiguration"]["Subnets"]) >= 2


def test_task_role_reaches_only_its_prefix_and_the_key(env_synth: Synth) -> None:
    template = env_synth.templates["mlflow"]
    _, task = _one(env_synth, "AWS::ECS::TaskDefinition")
    role_id = task["Properties"]["TaskRoleArn"]["Fn::GetAtt"][0]
    statements = [
        s
        for p in env_synth.resources("mlflow", "AWS::IAM::Policy").values()
        if {"Ref": role_id} in p["Properties"].get("Roles", [])
        for s in p["Properties"]["PolicyDocument"]["Statement"]
    ]
    by_sid = {s["Sid"]: s for s in statements}
    assert set(by_sid) == {"ListArtifactPrefix", "ArtifactObjects", "ArtifactEncryption"}
    assert by_sid["ListArtifactPrefix"]["Condition"] == {"StringLike": {"s3:prefix": ["mlflow", "mlflow/*"]}}
    assert json.dumps(by_sid["ArtifactObjects"]["Resource"]).endswith('"/mlflow/*"]]}')
    assert "EncryptionKey" in json.dumps(by_sid["ArtifactEncryption"]["Resource"])
    assert (
        by_sid["ArtifactEncryption"]["Condition"]["StringEquals"]["kms:ViaService"]
        == f"s3.{env_synth.config.region}.amazonaws.com"
    )
    assert not any(s.get("Resource") == "*" for s in statements)
    assert template["Resources"][role_id]["Properties"].get("ManagedPolicyArns") is None


# ---- load balancer --------------------------------------------------------------------------------------------
def test_https_only_listener_and_redirect(env_synth: Synth) -> None:
    listeners = {
        r["Properties"]["Port"]: r["Properties"]
        for r in env_synth.resources("mlflow", "AWS::ElasticLoadBalancingV2::Listener").values()
    }
    assert set(listeners) == {443, 80}
    https = listeners[443]
    assert https["Protocol"] == "HTTPS" and https["SslPolicy"] == TLS_POLICY and https["Certificates"]
    assert [a["Type"] for a in https["DefaultActions"]] == ["forward"]
    http = listeners[80]
    assert http["DefaultActions"] == [
        {"Type": "redirect", "RedirectConfig": {"Port": "443", "Protocol": "HTTPS", "StatusCode": "HTTP_301"}}
    ]
    groups = env_synth.resources("mlflow", "AWS::ElasticLoadBalancingV2::TargetGroup")
    (group,) = groups.values()
    assert group["Properties"]["HealthCheckPath"] == "/health"


def test_load_balancer_is_internal_drops_bad_headers_and_logs(env_synth: Synth) -> None:
    _, alb = _one(env_synth, "AWS::ElasticLoadBalancingV2::LoadBalancer")
    attrs = {a["Key"]: a["Value"] for a in alb["Properties"]["LoadBalancerAttributes"]}
    assert alb["Properties"]["Scheme"] == "internal"
    assert attrs["routing.http.drop_invalid_header_fields.enabled"] == "true"
    assert attrs["access_logs.s3.enabled"] == "true"
    assert "AccessLogsBucket" in json.dumps(attrs["access_logs.s3.bucket"])
    storage = json.dumps(env_synth.templates["storage"])
    assert f"{env_synth.config.resource_prefix}-mlflow-alb/AWSLogs/" in storage, "ELB log delivery policy"


def test_certificate_from_config(dev: Synth, prod: Synth) -> None:
    listener = next(
        r
        for r in dev.resources("mlflow", "AWS::ElasticLoadBalancingV2::Listener").values()
        if r["Properties"]["Port"] == 443
    )
    assert listener["Properties"]["Certificates"] == [{"CertificateArn": dev.config.mlflow.endpoint.certificate_arn}]
    assert not dev.resources("mlflow", "AWS::CertificateManager::Certificate")
    (cert,) = prod.resources("mlflow", "AWS::CertificateManager::Certificate").values()
    ep = prod.config.mlflow.endpoint
    assert cert["Properties"]["DomainName"] == ep.domain_name
    assert cert["Properties"]["DomainValidationOptions"] == [
        {"DomainName": ep.domain_name, "HostedZoneId": ep.hosted_zone_id}
    ]
    (record,) = prod.resources("mlflow", "AWS::Route53::RecordSet").values()
    assert record["Properties"]["Name"] == ep.domain_name + "." and record["Properties"]["Type"] == "A"
    assert record["Properties"]["HostedZoneId"] == ep.hosted_zone_id


def test_security_group_rules(env_synth: Synth) -> None:
    """ALB 443 from the VPC (network stack) + 80 redirect added here; tasks from the ALB; Aurora from tasks only."""
    ingress = list(env_synth.resources("mlflow", "AWS::EC2::SecurityGroupIngress").values())
    assert {(r["Properties"]["FromPort"], r["Properties"]["CidrIp"]) for r in ingress} == {
        (80, cidr) for cidr in env_synth.stacks["network"].client_cidrs
    }
    assert all("SecurityGroupsAlb" in json.dumps(r["Properties"]["GroupId"]) for r in ingress)

    network = env_synth.templates["network"]["Resources"]
    aurora_rules = [
        r["Properties"]
        for r in network.values()
        if r["Type"] == "AWS::EC2::SecurityGroupIngress"
        and r["Properties"]["GroupId"] == {"Fn::GetAtt": ["SecurityGroupsAurora9F07737D", "GroupId"]}
    ]
    assert len(aurora_rules) == 1, aurora_rules
    rule = aurora_rules[0]
    assert (rule["FromPort"], rule["ToPort"]) == (5432, 5432)
    assert rule["SourceSecurityGroupId"] == {"Fn::GetAtt": ["SecurityGroupsMlflowTasksAFF141C1", "GroupId"]}
    aurora = network["SecurityGroupsAurora9F07737D"]["Properties"]
    assert "SecurityGroupIngress" not in aurora
    task_rules = [
        r["Properties"]
        for r in network.values()
        if r["Type"] == "AWS::EC2::SecurityGroupIngress"
        and r["Properties"]["GroupId"] == {"Fn::GetAtt": ["SecurityGroupsMlflowTasksAFF141C1", "GroupId"]}
    ]
    assert [(r["FromPort"], r["SourceSecurityGroupId"]["Fn::GetAtt"][0]) for r in task_rules] == [
        (5000, "SecurityGroupsAlbFB2F0AE8")
    ]


# ---- database ---------------------------------------------------------------------------------------------------
def test_aurora_encryption_backups_and_protection(env_synth: Synth) -> None:
    cfg = env_synth.config
    lid, cluster = _one(env_synth, "AWS::RDS::DBCluster")
    props = cluster["Properties"]
    assert props["StorageEncrypted"] is True
    assert "EncryptionKey" in json.dumps(props["KmsKeyId"]), "the platform's customer-managed key"
    assert props["BackupRetentionPeriod"] == cfg.mlflow.database.backup_retention_days >= 7
    assert props["DeletionProtection"] is cfg.protect_stateful
    assert cluster["DeletionPolicy"] == cluster["UpdateReplacePolicy"] == "Snapshot"
    assert "SecurityGroupsAurora" in json.dumps(props["VpcSecurityGroupIds"])
    _, subnets = _one(env_synth, "AWS::RDS::DBSubnetGroup")
    assert all("IsolatedSubnet" in json.dumps(s) for s in subnets["Properties"]["SubnetIds"])
    _, params = _one(env_synth, "AWS::RDS::DBClusterParameterGroup")
    assert params["Properties"]["Parameters"] == {"rds.force_ssl": "1"}
    for instance in env_synth.resources("mlflow", "AWS::RDS::DBInstance").values():
        # Aurora instances hold no data (the cluster volume does, and it is snapshotted); a retained instance
        # would block the cluster's deletion and keep billing after a replacement.
        assert instance["Properties"]["DBInstanceClass"] == "db.serverless"
        assert instance["Properties"]["DBClusterIdentifier"] == {"Ref": lid}


def test_dev_scales_to_zero_prod_keeps_a_floor_and_a_reader(dev: Synth, prod: Synth) -> None:
    dev_scaling = _one(dev, "AWS::RDS::DBCluster")[1]["Properties"]["ServerlessV2ScalingConfiguration"]
    assert dev_scaling == {"MinCapacity": 0, "MaxCapacity": 2, "SecondsUntilAutoPause": 600}
    prod_scaling = _one(prod, "AWS::RDS::DBCluster")[1]["Properties"]["ServerlessV2ScalingConfiguration"]
    assert prod_scaling["MinCapacity"] >= 0.5 and "SecondsUntilAutoPause" not in prod_scaling
    assert len(dev.resources("mlflow", "AWS::RDS::DBInstance")) == 1
    assert len(prod.resources("mlflow", "AWS::RDS::DBInstance")) == 1 + prod.config.mlflow.database.readers


# ---- configuration ------------------------------------------------------------------------------------------------
DEV_TEAMS = [t.name for t in config_with("dev").kubernetes.teams]
"""dev's teams in configuration order (each an MLflow user of its own)."""

BAD_CONFIGS = [
    ("dev", {"mlflow": {"endpoint": {"internet_facing": True}}}, r"internet_facing is true but ingress_cidrs"),
    (
        "dev",
        {
            "mlflow": {
                "authentication": "none",
                "endpoint": {"internet_facing": True, "ingress_cidrs": ["203.0.113.0/24"]},
            }
        },
        r"mlflow.authentication 'none' with mlflow.endpoint.internet_facing",
    ),
    ("dev", {"mlflow": {"endpoint": {"certificate_arn": None}}}, r"mlflow.endpoint has no certificate"),
    (
        "dev",
        {"mlflow": {"database": {"min_capacity_acu": 4, "max_capacity_acu": 2}}},
        r"min_capacity_acu 4 exceeds max_capacity_acu 2",
    ),
    ("dev", {"mlflow": {"database": {"max_capacity_acu": 512}}}, r"max_capacity_acu 512.0 is outside"),
    ("dev", {"mlflow": {"database": {"min_capacity_acu": 0.25}}}, r"multiple of 0.5 from 0 to 256"),
    ("dev", {"mlflow": {"database": {"max_capacity_acu": 0.5}}}, r"from 1 to 256"),
    ("dev", {"mlflow": {"database": {"backup_retention_days": 0}}}, r"backup_retention_days 0 is outside 1-35"),
    ("dev", {"mlflow": {"database": {"backup_retention_days": 36}}}, r"backup_retention_days 36 is outside 1-35"),
    (
        "prod",
        {"mlflow": {"database": {"deletion_protection": False}}},
        r"deletion_protection is false in an environment with protect_stateful",
    ),
    ("prod", {"mlflow": {"database": {"min_capacity_acu": 0}}}, r"would let the production database pause"),
    ("prod", {"mlflow": {"service": {"min_tasks": 1}}}, r"min_tasks 1 is a single point of failure"),
    (
        "dev",
        {"mlflow": {"endpoint": {"certificate_arn": "arn:aws:acm:us-east-1:123456789012:cert/abc"}}},
        r"is not an ACM certificate ARN",
    ),
    (
        "dev",
        {
            "mlflow": {
                "endpoint": {
                    "certificate_arn": (
                        "arn:aws:acm:eu-west-1:123456789012:certificate/00000000-0000-4000-8000-000000000000"
                    )
                }
            }
        },
        r"is in region eu-west-1, but the load balancer is in us-east-1",
    ),
    (
        "dev",
        {
            "mlflow": {
                "endpoint": {
                    "certificate_arn": (
                        "arn:aws:acm:us-east-1:210987654321:certificate/00000000-0000-4000-8000-000000000000"
                    )
                }
            }
        },
        r"belongs to account 210987654321",
    ),
    ("dev", {"mlflow": {"endpoint": {"hosted_zone_id": "Z0123456789EXAMPLE0AB"}}}, r"go together"),
    ("prod", {"mlflow": {"endpoint": {"hosted_zone_name": "other.example.com"}}}, r"is not inside hosted_zone_name"),
    ("dev", {"mlflow": {"endpoint": {"domain_name": "https://mlflow.example.com"}}}, r"is not a lower-case DNS name"),
    (
        "dev",
        {"mlflow": {"endpoint": {"internet_facing": True, "ingress_cidrs": ["0.0.0.0/0"]}}},
        r"opens MLflow to a /0",
    ),
    ("dev", {"mlflow": {"database": {"engine_version": "12.4"}}}, r"engine_version '12.4' is not offered"),
    ("dev", {"mlflow": {"database": {"auto_pause_seconds": 60}}}, r"auto_pause_seconds 60 is outside 300-86400"),
    ("dev", {"mlflow": {"service": {"cpu": 1024, "memory_mib": 1024}}}, r"memory_mib 1024 is not valid with cpu"),
    ("dev", {"mlflow": {"service": {"min_tasks": 3, "max_tasks": 2}}}, r"min_tasks 3 exceeds max_tasks 2"),
    ("prod", {"mlflow": {"authentication": "none"}}, r"'none' is not allowed when protect_stateful"),
    # dev ships several teams: each logs as its own user, so anything that lets one see another's experiments is
    # refused (the teams named from dev's own configuration).
    (
        "dev",
        {"mlflow": {"service": {"default_permission": "READ"}}},
        rf"default_permission 'READ' lets each of the {len(DEV_TEAMS)} teams \({re.escape(', '.join(DEV_TEAMS))}\) "
        r"use the others'",
    ),
    ("dev", {"mlflow": {"authentication": "none"}}, rf"'none' gives the {len(DEV_TEAMS)} teams .* one shared identity"),
]


@pytest.mark.parametrize(
    ("env", "overrides", "message"), BAD_CONFIGS, ids=[re.sub(r"\W+", "-", m)[:40] for _, _, m in BAD_CONFIGS]
)
def test_bad_config_is_refused(env: str, overrides: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        config_with(env, overrides)


def test_missing_mlflow_section_names_the_file() -> None:
    from config import parse_config

    from .conftest import raw_config

    data = raw_config("dev")
    del data["mlflow"]
    with pytest.raises(ConfigError, match=r"mlflow: required field is missing; add it to config/dev.yaml"):
        parse_config("dev", data, source="config/dev.yaml")


def test_internet_facing_with_allowed_cidrs_synthesizes_in_public_subnets() -> None:
    synth = synthesize("dev", {"mlflow": {"endpoint": {"internet_facing": True, "ingress_cidrs": ["203.0.113.0/24"]}}})
    assert synth.error is None, synth.error
    _, alb = _one(synth, "AWS::ElasticLoadBalancingV2::LoadBalancer")
    assert alb["Properties"]["Scheme"] == "internet-facing"
    assert all("PublicSubnet" in json.dumps(s) for s in alb["Properties"]["Subnets"])
    rules = {
        (r["Properties"]["FromPort"], r["Properties"]["CidrIp"])
        for r in synth.resources("mlflow", "AWS::EC2::SecurityGroupIngress").values()
    }
    assert {(443, "203.0.113.0/24"), (80, "203.0.113.0/24")} <= rules
    assert not any(cidr == "0.0.0.0/0" for _, cidr in rules)


def test_service_starts_only_after_the_database_writer(env_synth: Synth) -> None:
    """Tasks connect at start: the service waits for the cluster's writer instance, not only for the cluster
    (CloudFormation completes AWS::RDS::DBCluster before any instance that accepts connections exists)."""
    resources = env_synth.templates["mlflow"]["Resources"]
    cluster_id = _cluster_id(env_synth)
    instances = {
        k: v
        for k, v in resources.items()
        if v["Type"] == "AWS::RDS::DBInstance" and v["Properties"]["DBClusterIdentifier"] == {"Ref": cluster_id}
    }
    # Aurora makes the first instance created the writer: the one that waits for no other instance of the cluster
    # (CDK makes readers depend on it), with failover tier 0.
    writers = [
        k
        for k, v in instances.items()
        if not set(v.get("DependsOn", [])) & set(instances) and v["Properties"].get("PromotionTier") == 0
    ]
    assert len(writers) == 1, f"expected exactly one writer among {sorted(instances)}"
    service_id, service = _one(env_synth, "AWS::ECS::Service")
    depends = set(service.get("DependsOn", []))
    assert writers[0] in depends, f"{service_id} must depend on the writer instance {writers[0]}"
    assert all(resources[d]["Type"] != "AWS::ElasticLoadBalancingV2::TargetGroup" for d in depends), "W3005"


def test_only_the_promotion_identity_reads_the_evaluator_secret(env_synth: Synth) -> None:
    """Issue 40: the evaluator's secret is read by the Pod Identity role of llmft-platform/llmft-promoter and by no
    team's role (each reads its own team's secret only)."""
    policies = env_synth.resources("compute", "AWS::IAM::Policy")
    readers = [lid for lid, p in policies.items() if "EvaluatorCredentialsSecret" in json.dumps(p["Properties"])]
    assert len(readers) == 1 and "PromotionIdentity" in readers[0], readers
    (association,) = [
        r["Properties"]
        for lid, r in env_synth.resources("compute", "AWS::EKS::PodIdentityAssociation").items()
        if "PromotionIdentity" in lid
    ]
    assert (association["Namespace"], association["ServiceAccount"]) == ("llmft-platform", "llmft-promoter")
