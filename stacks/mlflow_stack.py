"""`<Env>-Mlflow`: the MLflow tracking server (Aurora PostgreSQL Serverless v2, ECS Fargate, HTTPS ALB)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_cdk import (
    CfnOutput,
    Duration,
    RemovalPolicy,
    Stack,
    aws_ec2 as ec2,
    aws_elasticloadbalancingv2 as elbv2,
    aws_iam as iam,
    aws_kms as kms,
    aws_route53 as route53,
    aws_s3 as s3,
    aws_secretsmanager as sm,
)
from constructs import Construct

from cdk_constructs.generated_credential import GeneratedCredential
from cdk_constructs.https_load_balancer import HttpsLoadBalancer
from cdk_constructs.log_retention import retention
from cdk_constructs.mlflow_database import MlflowDatabase
from cdk_constructs.mlflow_server import MlflowServer
from cdk_constructs.platform_security_groups import PlatformSecurityGroups
from config import EnvironmentConfig

from ._base import PlatformStack

ADMIN_USERNAME = "admin"
CLIENT_USERNAME = "mlflow-client"


class MlflowStack(PlatformStack):
    """Private, authenticated MLflow for training jobs and Studio users.

    Contract for other stacks:

    - ``tracking_uri``: ``https://<mlflow.endpoint.domain_name>`` (a plain string);
    - ``client_credentials_secret``: Secrets Manager secret, JSON ``{"username", "password"}`` of the non-admin
      MLflow user that workloads log with;
    - ``grant_client_access(grantee)``: lets a role read that secret (``GetSecretValue`` + ``kms:Decrypt``);
    - ``load_balancer``: the internal (by default) HTTPS Application Load Balancer.

    A workload whose role was granted the secret, with ``MLFLOW_TRACKING_URI`` and ``MLFLOW_CREDENTIALS_SECRET_ARN``
    in its environment (the team namespaces' ConfigMap ``mlflow``), authenticates with two lines::

        arn = os.environ["MLFLOW_CREDENTIALS_SECRET_ARN"]; creds = json.loads(boto3.client("secretsmanager", region_name=arn.split(":")[3]).get_secret_value(SecretId=arn)["SecretString"])
        os.environ.update(MLFLOW_TRACKING_USERNAME=creds["username"], MLFLOW_TRACKING_PASSWORD=creds["password"])

    MLflow reads the tracking URI and the basic-auth credentials from those variables; the region comes from the
    ARN, so pods need no AWS_REGION.
    """

    def __init__(self, scope: Construct, construct_id: str, *, config: EnvironmentConfig, vpc: ec2.IVpc,
                 security_groups: PlatformSecurityGroups, client_cidrs: Sequence[str], encryption_key: kms.IKey,
                 artifacts_bucket: s3.IBucket, access_logs_bucket: s3.IBucket, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, config=config, stateful=True, **kwargs,
                         description=f"LLM fine-tuning platform ({config.name}): MLflow tracking server on ECS "
                                     f"Fargate, Aurora PostgreSQL Serverless v2, HTTPS load balancer")
        ml = config.mlflow
        db, svc, ep = ml.database, ml.service, ml.endpoint
        basic_auth = ml.authentication == "basic-auth"

        # Credentials get a key of this stack: ECS grants its execution role through the key policy, which on the
        # storage key would make Storage depend on this stack. Workloads are granted by IAM policy only.
        self.secrets_key = kms.Key(
            self, "SecretsKey", alias=f"alias/{config.resource_prefix}-mlflow-secrets", enable_key_rotation=True,
            description=f"{config.resource_prefix}: MLflow credentials (database, admin, client, Flask key)",
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        self.database = MlflowDatabase(
            self,
            "Database",
            vpc=vpc,
            security_group=security_groups.aurora,
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

        no_rotation = ("Generated once and injected into the MLflow tasks at start; the entry point re-applies it "
                       "to the MLflow user store on every start, so rotating means updating the secret and "
                       "forcing a new deployment (documented runbook), not a rotation function.")
        self.admin_credentials = GeneratedCredential(
            self, "AdminCredentials", encryption_key=self.secrets_key, username=ADMIN_USERNAME,
            description=f"MLflow {config.name}: basic-auth admin user (operators only)", rotation_reason=no_rotation)
        self.client_credentials = GeneratedCredential(
            self, "ClientCredentials", encryption_key=self.secrets_key, username=CLIENT_USERNAME,
            description=f"MLflow {config.name}: non-admin client user for training jobs and Studio",
            rotation_reason=no_rotation)
        self.flask_secret_key = GeneratedCredential(
            self, "FlaskSecretKey", encryption_key=self.secrets_key, length=64,
            description=f"MLflow {config.name}: Flask secret key (CSRF tokens), shared by every task",
            rotation_reason="A signing key for short-lived CSRF tokens shared by all tasks; replacing it only "
                            "invalidates open browser forms, so it is changed by updating the secret and redeploying.")
        self.client_credentials_secret: sm.ISecret = self.client_credentials.secret
        self.admin_credentials_secret: sm.ISecret = self.admin_credentials.secret

        hosted_zone = None
        if ep.hosted_zone_id and ep.hosted_zone_name:
            hosted_zone = route53.HostedZone.from_hosted_zone_attributes(
                self, "Zone", hosted_zone_id=ep.hosted_zone_id, zone_name=ep.hosted_zone_name)
        self.endpoint = HttpsLoadBalancer(
            self,
            "Endpoint",
            vpc=vpc,
            security_group=security_groups.alb,
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

        self.server = MlflowServer(
            self,
            "Server",
            vpc=vpc,
            security_group=security_groups.mlflow_tasks,
            database=self.database,
            load_balancer=self.endpoint,
            artifacts_bucket=artifacts_bucket,
            encryption_key=encryption_key,
            admin_secret=self.admin_credentials_secret if basic_auth else None,
            client_secret=self.client_credentials_secret if basic_auth else None,
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
        self.tracking_uri: str = ml.tracking_uri

        CfnOutput(self, "TrackingUri", value=self.tracking_uri,
                  description="MLFLOW_TRACKING_URI for training jobs and Studio")
        CfnOutput(self, "ClientCredentialsSecretArn", value=self.client_credentials_secret.secret_arn,
                  description="MLFLOW_CREDENTIALS_SECRET_ARN: JSON {username, password} of the non-admin client")
        CfnOutput(self, "AdminCredentialsSecretArn", value=self.admin_credentials_secret.secret_arn,
                  description="MLflow admin user (operators only)")
        CfnOutput(self, "LoadBalancerDnsName", value=self.load_balancer.load_balancer_dns_name,
                  description=f"Point {ep.domain_name} here (CNAME/alias) when the stack manages no DNS record")

    def grant_client_access(self, grantee: iam.IGrantable) -> iam.Grant:
        """Let ``grantee`` read the client credentials: ``secretsmanager:GetSecretValue``/``DescribeSecret`` on the
        secret and ``kms:Decrypt`` of its key through Secrets Manager.

        Both go into the grantee's own IAM policy (the key policy trusts the account's IAM), never into the key
        policy, so a grantee in a later stack (Compute, Studio) creates no dependency back onto this one.
        """
        region = Stack.of(self).region
        grant = iam.Grant.add_to_principal(grantee=grantee,
                                           actions=["secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"],
                                           resource_arns=[self.client_credentials_secret.secret_arn])
        grantee.grant_principal.add_to_principal_policy(iam.PolicyStatement(
            actions=["kms:Decrypt"],
            resources=[self.secrets_key.key_arn],
            conditions={"StringEquals": {"kms:ViaService": f"secretsmanager.{region}.amazonaws.com"}},
        ))
        return grant
