"""The MLflow tracking server: an ECS Fargate service behind an HTTPS load balancer."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import jsii
from aws_cdk import (
    Acknowledgment,
    Duration,
    RemovalPolicy,
    Stack,
    Validations,
)
from aws_cdk import (
    aws_ec2 as ec2,
)
from aws_cdk import (
    aws_ecr_assets as ecr_assets,
)
from aws_cdk import (
    aws_ecs as ecs,
)
from aws_cdk import (
    aws_elasticloadbalancingv2 as elbv2,
)
from aws_cdk import (
    aws_iam as iam,
)
from aws_cdk import (
    aws_kms as kms,
)
from aws_cdk import (
    aws_logs as logs,
)
from aws_cdk import (
    aws_s3 as s3,
)
from aws_cdk import (
    aws_secretsmanager as sm,
)
from constructs import Construct, IValidation

from cdk_constructs.mlflow.https_load_balancer import HttpsLoadBalancer
from cdk_constructs.mlflow.mlflow_database import AUTH_DATABASE, TRACKING_DATABASE, MlflowDatabase
from cdk_constructs.mlflow.mlflow_database import PORT as DB_PORT

IMAGE_DIRECTORY = Path(__file__).resolve().parents[2] / "mlflow_image"
CONTAINER_NAME = "mlflow"
CONTAINER_PORT = 5000
HEALTH_PATH = "/health"


def team_env_prefix(team: str) -> str:
    """``MLFLOW_TEAM_<TEAM>_``: the prefix of the variables that carry ``team``'s MLflow user into the task (team
    names are DNS labels, so upper-casing and ``-`` -> ``_`` cannot make two teams collide). The entry point finds
    the teams by this pattern."""
    return "MLFLOW_TEAM_" + team.upper().replace("-", "_") + "_"


@jsii.implements(IValidation)
class _AcknowledgeResolvedWildcard:
    """Acknowledge cdk-nag's IAM5 finding ``Resource::<arn><suffix>`` of ``target`` for a token ``arn``.

    Runs as a construct validation: after CDK resolved cross-stack references (so ``arn`` renders exactly as in
    the template, e.g. as ``Fn::GetStackOutput``) and before the validation plugins read the acknowledgements.
    """

    def __init__(self, target: Construct, arn: str, suffix: str, *, reason: str) -> None:
        self._target, self._arn, self._suffix, self._reason = target, arn, suffix, reason

    def validate(self) -> list[str]:
        resolved = Stack.of(self._target).resolve(self._arn)
        rendered = resolved if isinstance(resolved, str) else json.dumps(resolved, separators=(",", ":"))
        Validations.of(self._target).acknowledge(
            Acknowledgment(
                id=f"AwsSolutions::AwsSolutions-IAM5[Resource::{rendered}{self._suffix}]", reason=self._reason
            )
        )
        return []


def _environment(
    *,
    database: MlflowDatabase,
    load_balancer: HttpsLoadBalancer,
    basic_auth: bool,
    default_permission: str,
    artifacts_destination: str,
    workers: int,
    pooled_connections: bool,
    region: str,
) -> dict[str, str]:
    """The MLflow container's environment: only non-secret settings."""
    environment = {
        "MLFLOW_DB_HOST": database.endpoint_host,
        "MLFLOW_DB_PORT": str(DB_PORT),
        "MLFLOW_DB_NAME": TRACKING_DATABASE,
        "MLFLOW_AUTH_DB_NAME": AUTH_DATABASE,
        "MLFLOW_AUTH": "basic-auth" if basic_auth else "none",
        "MLFLOW_AUTH_DEFAULT_PERMISSION": default_permission,
        "MLFLOW_ARTIFACTS_DESTINATION": artifacts_destination,
        "MLFLOW_SERVER_ALLOWED_HOSTS": f"{load_balancer.domain_name},{load_balancer.domain_name}:443",
        "MLFLOW_WORKERS": str(workers),
        "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false",  # no GenAI job runner polling the database
        # No usage telemetry from the server (MLflow 3.x reads this in mlflow/telemetry/utils.py).
        "MLFLOW_DISABLE_TELEMETRY": "true",
        "DO_NOT_TRACK": "true",
        "AWS_DEFAULT_REGION": region,
    }
    if not pooled_connections:
        environment["MLFLOW_SQLALCHEMYSTORE_POOLCLASS"] = "NullPool"
    return environment


def _secrets(
    database: MlflowDatabase,
    *,
    basic_auth: bool,
    admin_secret: sm.ISecret | None,
    flask_secret: sm.ISecret | None,
    team_secrets: Mapping[str, sm.ISecret] | None,
    evaluator_secret: sm.ISecret | None = None,
) -> dict[str, ecs.Secret]:
    """The MLflow container's ECS secrets: the database user and, with basic auth, the admin, the Flask key and
    one user per team."""
    secrets = {
        "MLFLOW_DB_USERNAME": ecs.Secret.from_secrets_manager(database.secret, "username"),
        "MLFLOW_DB_PASSWORD": ecs.Secret.from_secrets_manager(database.secret, "password"),
    }
    if basic_auth:
        assert admin_secret and flask_secret
        secrets.update(
            {
                "MLFLOW_AUTH_ADMIN_USERNAME": ecs.Secret.from_secrets_manager(admin_secret, "username"),
                "MLFLOW_AUTH_ADMIN_PASSWORD": ecs.Secret.from_secrets_manager(admin_secret, "password"),
                "MLFLOW_FLASK_SERVER_SECRET_KEY": ecs.Secret.from_secrets_manager(flask_secret),
            }
        )
        for team, secret in sorted((team_secrets or {}).items()):
            prefix = team_env_prefix(team)
            secrets[f"{prefix}USERNAME"] = ecs.Secret.from_secrets_manager(secret, "username")
            secrets[f"{prefix}PASSWORD"] = ecs.Secret.from_secrets_manager(secret, "password")
        if evaluator_secret is not None:
            secrets["MLFLOW_EVALUATOR_USERNAME"] = ecs.Secret.from_secrets_manager(evaluator_secret, "username")
            secrets["MLFLOW_EVALUATOR_PASSWORD"] = ecs.Secret.from_secrets_manager(evaluator_secret, "password")
    return secrets


class MlflowServer(Construct):
    """``mlflow server`` on Fargate: PostgreSQL backend, artifacts proxied to S3, MLflow's basic-auth app.

    The image is built from ``mlflow_image/`` at deploy time (a CDK image asset; synthesis only hashes the folder).
    Every credential reaches the container as an ECS secret: the database user, the admin, one MLflow user per team
    (``MLFLOW_TEAM_<TEAM>_USERNAME``/``_PASSWORD``, see :func:`team_env_prefix`) and the Flask secret key. The entry
    point serializes bootstrap and schema migrations across tasks and creates/resets every user from them before
    serving, so MLflow's historical default admin password is never usable. The task role may only read and write
    ``s3://<artifacts_bucket>/<artifacts_prefix>/`` and use ``encryption_key`` through S3.

    :param vpc: the VPC. Required.
    :param security_group: the tasks' group (port ``CONTAINER_PORT`` from the ALB, PostgreSQL out). Required.
    :param database: the cluster, reached through its writer endpoint. Required.
    :param load_balancer: forwards HTTPS to the tasks. Required.
    :param artifacts_bucket: artifact store (SSE-KMS with ``encryption_key``). Required.
    :param encryption_key: bucket, log and secret key. Required.
    :param admin_secret: ``{"username", "password"}`` of the MLflow admin. Required with ``basic_auth``.
    :param team_secrets: team name -> ``{"username", "password"}`` of that team's MLflow user. Default: none.
    :param evaluator_secret: ``{"username", "password"}`` of the platform's evaluator, the user that records
        evaluation verdicts (mlflow_image/registry_gate.py). Default: none (only admins record them).
    :param flask_secret: Flask secret key (CSRF). Required with ``basic_auth``.
    :param basic_auth: run MLflow's basic-auth app. Default True.
    :param artifacts_prefix: default ``mlflow``.
    :param cpu: default 1024. ``memory_mib``: default 2048. ``workers``: uvicorn workers, default 2.
    :param min_tasks: default 1. ``max_tasks``: default 2.
    :param cpu_target_percent: default 60. ``requests_per_task``: ALB requests per task per minute, default 600.
    :param pooled_connections: keep a SQLAlchemy pool. Default True; False (``NullPool``) closes every connection
        after use so an auto-paused Aurora cluster can pause.
    :param default_permission: basic-auth default permission. Default ``NO_PERMISSIONS`` (teams see only what they
        created or were granted).
    :param subnets: default: the VPC's private subnets with egress.
    :param log_retention: default one month.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        vpc: ec2.IVpc,
        security_group: ec2.ISecurityGroup,
        database: MlflowDatabase,
        load_balancer: HttpsLoadBalancer,
        artifacts_bucket: s3.IBucket,
        encryption_key: kms.IKey,
        admin_secret: sm.ISecret | None = None,
        team_secrets: Mapping[str, sm.ISecret] | None = None,
        evaluator_secret: sm.ISecret | None = None,
        flask_secret: sm.ISecret | None = None,
        basic_auth: bool = True,
        artifacts_prefix: str = "mlflow",
        cpu: int = 1024,
        memory_mib: int = 2048,
        workers: int = 2,
        min_tasks: int = 1,
        max_tasks: int = 2,
        cpu_target_percent: int = 60,
        requests_per_task: int = 600,
        pooled_connections: bool = True,
        default_permission: str = "NO_PERMISSIONS",
        subnets: ec2.SubnetSelection | None = None,
        log_retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH,
    ) -> None:
        super().__init__(scope, construct_id)
        if basic_auth and not (admin_secret and flask_secret):
            raise ValueError("basic_auth needs admin_secret and flask_secret")
        region = Stack.of(self).region

        self.cluster = ecs.Cluster(self, "Cluster", vpc=vpc, container_insights_v2=ecs.ContainerInsights.ENABLED)
        self.log_group = logs.LogGroup(
            self,
            "Logs",
            retention=log_retention,
            encryption_key=encryption_key,
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        self.image = ecr_assets.DockerImageAsset(
            self, "Image", directory=str(IMAGE_DIRECTORY), platform=ecr_assets.Platform.LINUX_AMD64
        )

        self._add_task_definition(cpu=cpu, memory_mib=memory_mib)
        self.artifacts_destination = f"s3://{artifacts_bucket.bucket_name}/{artifacts_prefix}"
        environment = _environment(
            database=database,
            load_balancer=load_balancer,
            basic_auth=basic_auth,
            default_permission=default_permission,
            artifacts_destination=self.artifacts_destination,
            workers=workers,
            pooled_connections=pooled_connections,
            region=region,
        )
        secrets = _secrets(
            database,
            basic_auth=basic_auth,
            admin_secret=admin_secret,
            flask_secret=flask_secret,
            team_secrets=team_secrets,
            evaluator_secret=evaluator_secret,
        )
        self._add_container(environment=environment, secrets=secrets)
        self._add_service(
            security_group, database=database, load_balancer=load_balancer, min_tasks=min_tasks, subnets=subnets
        )
        self._add_scaling(
            min_tasks=min_tasks,
            max_tasks=max_tasks,
            cpu_target_percent=cpu_target_percent,
            requests_per_task=requests_per_task,
        )

        self._grant_artifacts(artifacts_bucket, artifacts_prefix, encryption_key, region)

    def _add_task_definition(self, *, cpu: int, memory_mib: int) -> None:
        """Add the task role and the Fargate task definition (x86-64 Linux, a /tmp volume)."""
        self.task_role = iam.Role(
            self,
            "TaskRole",
            assumed_by=iam.ServicePrincipal("ecs-tasks.amazonaws.com"),
            description="MLflow server: its artifact prefix in S3 and the key, nothing else",
        )
        self.task_definition = ecs.FargateTaskDefinition(
            self,
            "Task",
            cpu=cpu,
            memory_limit_mib=memory_mib,
            task_role=self.task_role,
            runtime_platform=ecs.RuntimePlatform(
                cpu_architecture=ecs.CpuArchitecture.X86_64, operating_system_family=ecs.OperatingSystemFamily.LINUX
            ),
            volumes=[ecs.Volume(name="tmp")],
        )

    def _add_container(self, *, environment: dict[str, str], secrets: dict[str, ecs.Secret]) -> None:
        """Add the MLflow container (read-only root, /tmp mounted, health check) and its cdk-nag notes."""
        self.container = self.task_definition.add_container(
            "Mlflow",
            container_name=CONTAINER_NAME,
            image=ecs.ContainerImage.from_docker_image_asset(self.image),
            essential=True,
            port_mappings=[ecs.PortMapping(container_port=CONTAINER_PORT, name="http")],
            environment=environment,
            secrets=secrets,
            readonly_root_filesystem=True,
            logging=ecs.LogDrivers.aws_logs(stream_prefix="mlflow", log_group=self.log_group),
            health_check=ecs.HealthCheck(
                command=[
                    "CMD",
                    "python",
                    "-c",
                    f"import urllib.request; urllib.request.urlopen('http://127.0.0.1:{CONTAINER_PORT}"
                    f"{HEALTH_PATH}', timeout=4)",
                ],
                interval=Duration.seconds(30),
                timeout=Duration.seconds(5),
                retries=3,
                start_period=Duration.seconds(180),
            ),
            stop_timeout=Duration.seconds(30),
        )
        self.container.add_mount_points(ecs.MountPoint(container_path="/tmp", source_volume="tmp", read_only=False))
        Validations.of(self.task_definition.obtain_execution_role()).acknowledge(
            Acknowledgment(
                id="AwsSolutions::AwsSolutions-IAM5[Resource::*]",
                reason="ecr:GetAuthorizationToken, which ECS needs to pull the image asset, has no resource-level "
                "permissions; every other statement of the execution role names its repository, log group or "
                "secret.",
            )
        )
        Validations.of(self.task_definition).acknowledge(
            Acknowledgment(
                id="AwsSolutions::AwsSolutions-ECS2",
                reason="The environment holds only non-secret settings (database host and names, S3 destination, "
                "allowed hosts, worker count); every credential is an ECS secret from Secrets Manager.",
            )
        )

    def _add_service(
        self,
        security_group: ec2.ISecurityGroup,
        *,
        database: MlflowDatabase,
        load_balancer: HttpsLoadBalancer,
        min_tasks: int,
        subnets: ec2.SubnetSelection | None,
    ) -> None:
        """Add the Fargate service behind the load balancer, depending only on what orders its start."""
        self.service = ecs.FargateService(
            self,
            "Service",
            cluster=self.cluster,
            task_definition=self.task_definition,
            desired_count=min_tasks,
            min_healthy_percent=100,
            max_healthy_percent=200,
            vpc_subnets=subnets or ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS),
            security_groups=[security_group],
            assign_public_ip=False,
            circuit_breaker=ecs.DeploymentCircuitBreaker(enable=True, rollback=True),
            health_check_grace_period=Duration.seconds(180),
            propagate_tags=ecs.PropagatedTagSource.SERVICE,
            enable_ecs_managed_tags=True,
        )
        self.target_group = load_balancer.add_targets(
            "Mlflow",
            port=CONTAINER_PORT,
            protocol=elbv2.ApplicationProtocol.HTTP,
            targets=[self.service.load_balancer_target(container_name=CONTAINER_NAME, container_port=CONTAINER_PORT)],
            health_check=elbv2.HealthCheck(
                path=HEALTH_PATH,
                healthy_http_codes="200",
                interval=Duration.seconds(30),
                timeout=Duration.seconds(5),
                healthy_threshold_count=2,
                unhealthy_threshold_count=3,
            ),
            deregistration_delay=Duration.seconds(30),
        )
        # CDK makes the service depend on the target group it already references (cfn-lint W3005); keep only the
        # dependencies that order anything: the listener (the group must be attached first), the task role, and the
        # database's writer instance. The cluster resource completes before any instance exists, and only the
        # writer accepts connections: without it the first tasks of a fresh deploy fail their bootstrap and trip
        # the deployment circuit breaker.
        cfn_service = self.service.node.default_child
        stack = Stack.of(self)
        cfn_service.add_override(
            "DependsOn",
            sorted(
                stack.get_logical_id(c.node.default_child)
                for c in (load_balancer.https_listener, self.task_role, database.writer_instance)
            ),
        )

    def _add_scaling(self, *, min_tasks: int, max_tasks: int, cpu_target_percent: int, requests_per_task: int) -> None:
        """Scale the service on CPU utilization and on ALB requests per task."""
        self.scaling = self.service.auto_scale_task_count(min_capacity=min_tasks, max_capacity=max_tasks)
        self.scaling.scale_on_cpu_utilization(
            "Cpu",
            target_utilization_percent=cpu_target_percent,
            scale_in_cooldown=Duration.minutes(5),
            scale_out_cooldown=Duration.minutes(1),
        )
        self.scaling.scale_on_request_count(
            "Requests",
            requests_per_target=requests_per_task,
            target_group=self.target_group,
            scale_in_cooldown=Duration.minutes(5),
            scale_out_cooldown=Duration.minutes(1),
        )

    def _grant_artifacts(self, bucket: s3.IBucket, prefix: str, key: kms.IKey, region: str) -> None:
        """Read/write/delete under ``prefix/`` only; list only that prefix; the key only through S3."""
        policy = iam.Policy(
            self,
            "ArtifactsPolicy",
            statements=[
                iam.PolicyStatement(
                    sid="ListArtifactPrefix",
                    actions=["s3:ListBucket"],
                    resources=[bucket.bucket_arn],
                    conditions={"StringLike": {"s3:prefix": [prefix, f"{prefix}/*"]}},
                ),
                iam.PolicyStatement(
                    sid="ArtifactObjects",
                    actions=[
                        "s3:GetObject",
                        "s3:PutObject",
                        "s3:DeleteObject",
                        "s3:AbortMultipartUpload",
                        "s3:ListMultipartUploadParts",
                    ],
                    resources=[bucket.arn_for_objects(f"{prefix}/*")],
                ),
                iam.PolicyStatement(
                    sid="ArtifactEncryption",
                    actions=["kms:Decrypt", "kms:GenerateDataKey"],
                    resources=[key.key_arn],
                    conditions={"StringEquals": {"kms:ViaService": f"s3.{region}.amazonaws.com"}},
                ),
            ],
        )
        policy.attach_to_role(self.task_role)
        # cdk-nag names the finding after the rendered resource, which for a bucket of another stack is only known
        # once CDK has resolved cross-stack references; the acknowledgement is therefore added at validation time.
        policy.node.add_validation(
            _AcknowledgeResolvedWildcard(
                policy,
                bucket.bucket_arn,
                f"/{prefix}/*",
                reason="MLflow writes run artifacts under keys it generates; the only wildcard is the object ARN "
                "<artifacts bucket>/<prefix>/*, confined to the MLflow prefix of the artifacts bucket.",
            )
        )

    @property
    def grant_principal(self) -> iam.IPrincipal:
        return self.task_role
