"""`<Env>-Mlflow`: the MLflow tracking server (Aurora PostgreSQL Serverless v2, ECS Fargate, HTTPS ALB)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from aws_cdk import (
    CfnOutput,
    Duration,
    RemovalPolicy,
    Stack,
)
from aws_cdk import (
    aws_ec2 as ec2,
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
    aws_route53 as route53,
)
from aws_cdk import (
    aws_s3 as s3,
)
from aws_cdk import (
    aws_secretsmanager as sm,
)
from constructs import Construct

from cdk_constructs.governance.log_retention import retention
from cdk_constructs.mlflow.generated_credential import GeneratedCredential
from cdk_constructs.mlflow.https_load_balancer import HttpsLoadBalancer
from cdk_constructs.mlflow.mlflow_database import MlflowDatabase
from cdk_constructs.mlflow.mlflow_server import MlflowServer
from cdk_constructs.network.platform_security_groups import PlatformSecurityGroups
from cdk_constructs.teams.team import Team
from config import EnvironmentConfig

from ._base import PlatformStack

ADMIN_USERNAME = "admin"
EVALUATOR_USERNAME = "platform-evaluator"
"""The platform's evaluator (mlflow_image/registry_gate.py): the only user besides admins that records evaluation
verdicts, the alias ``evaluated`` and a version's ``llmft.model_dir``; its secret is the platform's, no team pod's."""


@runtime_checkable
class MlflowConnection(Protocol):
    """What a consumer stack needs of MLflow (``MlflowStack`` is one): the tracking URI and each team's credentials
    secret. ``ComputeStack(mlflow=...)`` takes this and refuses anything else."""

    tracking_uri: str
    team_credentials_secrets: Mapping[str, sm.ISecret]


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("-"))


class MlflowStack(PlatformStack):
    """Private, authenticated MLflow for training jobs and Studio users, one MLflow user per team.

    Contract for other stacks:

    - ``tracking_uri``: ``https://<mlflow.endpoint.domain_name>`` (a plain string);
    - ``team_credentials_secrets``: per team name, the Secrets Manager secret (JSON ``{"username", "password"}``)
      of that team's own MLflow user (``team-<team>``); the server's entry point creates or resets each user from
      it at every start, and a team's jobs and Studio users log with it;
    - ``evaluator_credentials_secret``: the secret of the platform's evaluator (``platform-evaluator``, the only
      non-admin user that writes the production gate, mlflow_image/registry_gate.py; None without basic auth), read
      only by the promotion step's Pod Identity (cdk_constructs/compute/promotion_identity.py);
    - ``grant_team_credentials(team, grantee)``: lets a role read that one team's secret (``GetSecretValue`` +
      ``kms:Decrypt`` through Secrets Manager), nothing of other teams;
    - ``load_balancer``: the internal (by default) HTTPS Application Load Balancer.

    Workloads never fetch the secret themselves: team namespaces sync it into the Kubernetes Secret
    ``mlflow-credentials`` (Secrets Store CSI driver, see ``k8s_charts/mlflow_credentials.py``) and Studio's
    lifecycle configuration exports it, so ``MLFLOW_TRACKING_URI``, ``MLFLOW_TRACKING_USERNAME`` and
    ``MLFLOW_TRACKING_PASSWORD`` are simply in the environment.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        vpc: ec2.IVpc,
        security_groups: PlatformSecurityGroups,
        client_cidrs: Sequence[str],
        encryption_key: kms.IKey,
        artifacts_bucket: s3.IBucket,
        access_logs_bucket: s3.IBucket,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            config=config,
            stateful=True,
            **kwargs,
            description=f"LLM fine-tuning platform ({config.name}): MLflow tracking server on ECS "
            f"Fargate, Aurora PostgreSQL Serverless v2, HTTPS load balancer",
        )
        ml = config.mlflow
        basic_auth = ml.authentication == "basic-auth"

        # Credentials get a key of this stack: ECS grants its execution role through the key policy, which on the
        # storage key would make Storage depend on this stack. Workloads are granted by IAM policy only.
        self.secrets_key = kms.Key(
            self,
            "SecretsKey",
            alias=f"alias/{config.resource_prefix}-mlflow-secrets",
            enable_key_rotation=True,
            description=f"{config.resource_prefix}: MLflow credentials (database, admin, teams, Flask key)",
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        self._add_database(config, vpc=vpc, security_group=security_groups.aurora, encryption_key=encryption_key)
        self._add_credentials(config, basic_auth=basic_auth)
        self._add_endpoint(
            config,
            vpc=vpc,
            security_group=security_groups.alb,
            client_cidrs=client_cidrs,
            access_logs_bucket=access_logs_bucket,
        )
        self._add_server(
            config,
            vpc=vpc,
            security_group=security_groups.mlflow_tasks,
            artifacts_bucket=artifacts_bucket,
            encryption_key=encryption_key,
            basic_auth=basic_auth,
        )
        self.tracking_uri: str = ml.tracking_uri

        self._add_outputs(config)

    def _add_database(
        self, config: EnvironmentConfig, *, vpc: ec2.IVpc, security_group: ec2.ISecurityGroup, encryption_key: kms.IKey
    ) -> None:
        """Add the Aurora PostgreSQL Serverless v2 cluster of the tracking and auth databases."""
        ml = config.mlflow
        db = ml.database
        self.database = MlflowDatabase(
            self,
            "Database",
            vpc=vpc,
            security_group=security_group,
            encryption_key=encryption_key,
            secret_encryption_key=self.secrets_key,
            version=db.engine_version,
            identifier=f"{config.resource_prefix}-mlflow",
            min_capacity_acu=db.min_capacity_acu,
            max_capacity_acu=db.max_capacity_acu,
            auto_pause=Duration.seconds(db.auto_pause_seconds),
            readers=db.readers,
            backup_retention_days=db.backup_retention_days,
            deletion_protection=ml.deletion_protection(config.protect_stateful),
            log_retention=retention(db.log_retention_days),
        )

    def _add_credentials(self, config: EnvironmentConfig, *, basic_auth: bool) -> None:
        """Add the generated credentials: the admin, one MLflow user per team (basic auth) and the Flask key."""
        no_rotation = (
            "Generated once and injected into the MLflow tasks at start; the entry point re-applies it "
            "to the MLflow user store on every start, so rotating means updating the secret and "
            "forcing a new deployment (documented runbook), not a rotation function."
        )
        self.admin_credentials = GeneratedCredential(
            self,
            "AdminCredentials",
            encryption_key=self.secrets_key,
            username=ADMIN_USERNAME,
            description=f"MLflow {config.name}: basic-auth admin user (operators only)",
            rotation_reason=no_rotation,
        )
        # One user per team: the secret is the source of truth, the entry point reconciles the user store from the
        # secrets at every start (a new team means a new secret, hence a new task definition and deployment).
        self.team_credentials: dict[str, GeneratedCredential] = (
            {
                team.name: team.mlflow_user(
                    self, encryption_key=self.secrets_key, environment=config.name, rotation_reason=no_rotation
                )
                for team in Team.all(config.kubernetes.teams)
            }
            if basic_auth
            else {}
        )
        self.evaluator_credentials: GeneratedCredential | None = (
            GeneratedCredential(
                self,
                "EvaluatorCredentials",
                encryption_key=self.secrets_key,
                username=EVALUATOR_USERNAME,
                description=f"MLflow {config.name}: the platform's evaluator (production gate; platform jobs only)",
                rotation_reason=no_rotation,
            )
            if basic_auth
            else None
        )
        self.flask_secret_key = GeneratedCredential(
            self,
            "FlaskSecretKey",
            encryption_key=self.secrets_key,
            length=64,
            description=f"MLflow {config.name}: Flask secret key (CSRF tokens), shared by every task",
            rotation_reason="A signing key for short-lived CSRF tokens shared by all tasks; replacing it only "
            "invalidates open browser forms, so it is changed by updating the secret and redeploying.",
        )
        self.team_credentials_secrets: dict[str, sm.ISecret] = {
            name: credential.secret for name, credential in self.team_credentials.items()
        }
        self.admin_credentials_secret: sm.ISecret = self.admin_credentials.secret
        self.evaluator_credentials_secret: sm.ISecret | None = (
            self.evaluator_credentials.secret if self.evaluator_credentials else None
        )

    def _add_endpoint(
        self,
        config: EnvironmentConfig,
        *,
        vpc: ec2.IVpc,
        security_group: ec2.ISecurityGroup,
        client_cidrs: Sequence[str],
        access_logs_bucket: s3.IBucket,
    ) -> None:
        """Add the HTTPS load balancer of the MLflow endpoint (in the configured hosted zone, if any)."""
        ep = config.mlflow.endpoint
        hosted_zone = None
        if ep.hosted_zone_id and ep.hosted_zone_name:
            hosted_zone = route53.HostedZone.from_hosted_zone_attributes(
                self, "Zone", hosted_zone_id=ep.hosted_zone_id, zone_name=ep.hosted_zone_name
            )
        self.endpoint = HttpsLoadBalancer(
            self,
            "Endpoint",
            vpc=vpc,
            security_group=security_group,
            domain_name=ep.domain_name,
            access_logs_bucket=access_logs_bucket,
            access_logs_prefix=f"{config.resource_prefix}-mlflow-alb",
            https_ingress_cidrs=ep.ingress_cidrs,
            http_ingress_cidrs=[*client_cidrs, *ep.ingress_cidrs],
            certificate_arn=ep.certificate_arn,
            hosted_zone=hosted_zone,
            internet_facing=ep.internet_facing,
            idle_timeout=Duration.seconds(ep.idle_timeout_seconds),
            deletion_protection=config.protect_stateful,
        )
        self.load_balancer: elbv2.ApplicationLoadBalancer = self.endpoint.load_balancer

    def _add_server(
        self,
        config: EnvironmentConfig,
        *,
        vpc: ec2.IVpc,
        security_group: ec2.ISecurityGroup,
        artifacts_bucket: s3.IBucket,
        encryption_key: kms.IKey,
        basic_auth: bool,
    ) -> None:
        """Add the MLflow server on Fargate behind the endpoint, sized by the service settings."""
        ml = config.mlflow
        db, svc = ml.database, ml.service
        self.server = MlflowServer(
            self,
            "Server",
            vpc=vpc,
            security_group=security_group,
            database=self.database,
            load_balancer=self.endpoint,
            artifacts_bucket=artifacts_bucket,
            encryption_key=encryption_key,
            admin_secret=self.admin_credentials_secret if basic_auth else None,
            team_secrets=self.team_credentials_secrets,
            evaluator_secret=self.evaluator_credentials.secret if self.evaluator_credentials else None,
            flask_secret=self.flask_secret_key.secret if basic_auth else None,
            basic_auth=basic_auth,
            cpu=svc.cpu,
            memory_mib=svc.memory_mib,
            workers=svc.workers,
            min_tasks=svc.min_tasks,
            max_tasks=svc.max_tasks,
            cpu_target_percent=svc.cpu_target_percent,
            requests_per_task=svc.requests_per_task,
            pooled_connections=not db.scales_to_zero,
            default_permission=svc.default_permission,
            log_retention=retention(svc.log_retention_days),
        )

    def _add_outputs(self, config: EnvironmentConfig) -> None:
        """Output the tracking URI, the credential secrets' ARNs and the load balancer's DNS name."""
        ep = config.mlflow.endpoint
        CfnOutput(
            self, "TrackingUri", value=self.tracking_uri, description="MLFLOW_TRACKING_URI for training jobs and Studio"
        )
        for name, secret in self.team_credentials_secrets.items():
            CfnOutput(
                self,
                f"Team{_pascal(name)}CredentialsSecretArn",
                value=secret.secret_arn,
                description=f"MLflow user of team {name}: JSON {{username, password}} (synced into the "
                f"namespace's Secret mlflow-credentials)",
            )
        CfnOutput(
            self,
            "AdminCredentialsSecretArn",
            value=self.admin_credentials_secret.secret_arn,
            description="MLflow admin user (operators only)",
        )
        CfnOutput(
            self,
            "LoadBalancerDnsName",
            value=self.load_balancer.load_balancer_dns_name,
            description=f"Point {ep.domain_name} here (CNAME/alias) when the stack manages no DNS record",
        )

    def grant_team_credentials(self, team: str, grantee: iam.IGrantable) -> iam.Grant:
        """Let ``grantee`` read ``team``'s MLflow credentials: ``secretsmanager:GetSecretValue``/``DescribeSecret``
        on that one secret and ``kms:Decrypt`` of its key through Secrets Manager.

        Both go into the grantee's own IAM policy (the key policy trusts the account's IAM), never into the key
        policy, so a grantee in a later stack (Compute, Studio) creates no dependency back onto this one.
        """
        if team not in self.team_credentials_secrets:
            raise KeyError(
                f"MLflow has no credentials for team {team!r}; known teams: "
                f"{', '.join(sorted(self.team_credentials_secrets)) or 'none (authentication none)'}"
            )
        secret = self.team_credentials_secrets[team]
        region = Stack.of(self).region
        grant = iam.Grant.add_to_principal(
            grantee=grantee,
            actions=["secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"],
            resource_arns=[secret.secret_arn],
        )
        # Secrets Manager decrypts with the encryption context {"SecretARN": <arn>, ...}: the key is usable for this
        # one secret only (https://docs.aws.amazon.com/secretsmanager/latest/userguide/security-encryption.html).
        grantee.grant_principal.add_to_principal_policy(
            iam.PolicyStatement(
                actions=["kms:Decrypt"],
                resources=[self.secrets_key.key_arn],
                conditions={
                    "StringEquals": {
                        "kms:ViaService": f"secretsmanager.{region}.amazonaws.com",
                        "kms:EncryptionContext:SecretARN": secret.secret_arn,
                    }
                },
            )
        )
        return grant
