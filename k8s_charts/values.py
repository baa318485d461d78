"""Values the charts take: everything that comes from AWS resources, in one immutable object.

Inside the compute stack the fields are CDK tokens (resolved when CloudFormation applies the manifests); in tests
and in `dist/<env>/` they are placeholders. :func:`PlatformValues.placeholders` uses `${NAME}` placeholders, the
syntax of `envsubst` and of Flux post-build substitution, so a GitOps pipeline fills them from the stack outputs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING

from config import EnvironmentConfig
from k8s_charts.images import image_uris

if TYPE_CHECKING:
    from k8s_charts.node_shapes import NodeKind

from k8s_charts.team_storage import TEAM_MOUNT_PATH

# Where the team's FSx claim (its own tree /teams/<team>, linked to its S3 prefix) is mounted in every job pod.
FSX_MOUNT_PATH = TEAM_MOUNT_PATH
FSX_CLAIM_NAME = "fsx-claim"
MLFLOW_CONFIG_MAP = "mlflow"
MLFLOW_CREDENTIALS_SECRET = "mlflow-credentials"
"""Kubernetes Secret (MLFLOW_TRACKING_USERNAME/PASSWORD) synced from the team's Secrets Manager secret."""
MLFLOW_SECRET_PROVIDER_CLASS = "mlflow-credentials"
TEAM_SERVICE_ACCOUNT = "training"


def team_group(team: str) -> str:
    """Kubernetes group of a team's people (Studio users' EKS access entries carry it; the team namespace binds it
    to the `team-member` Role, their only Kubernetes permission; k8s_charts/team_namespaces.py)."""
    return f"llmft:team:{team}"


def fsx_volume_name(namespace: str) -> str:
    """Name of the static PersistentVolume of ``namespace`` (agreed with the compute stack)."""
    return f"fsx-{namespace}"


def mlflow_secret_arn_placeholder(team: str) -> str:
    """`${MLFLOW_TEAM_<TEAM>_SECRET_ARN}`: the ARN of a team's MLflow credentials in `dist/<env>/` (stack output
    `Team<Team>CredentialsSecretArn` of `<Env>-Mlflow`)."""
    return "${MLFLOW_TEAM_" + team.upper().replace("-", "_") + "_SECRET_ARN}"


EVALUATOR_SECRET_ARN_PLACEHOLDER = "${MLFLOW_EVALUATOR_SECRET_ARN}"
"""The evaluator's MLflow credentials in `dist/<env>/` (the promotion Job's check, k8s_charts/promotion.py)."""


@dataclass(frozen=True)
class MlflowValues:
    """Where jobs log: the tracking URI and, per team name, the ARN of the Secrets Manager secret holding that
    team's own MLflow user (`{"username", "password"}`)."""

    tracking_uri: str
    team_secret_arns: Mapping[str, str] = field(default_factory=dict)
    evaluator_secret_arn: str | None = None
    """The platform evaluator's MLflow user (``<Env>-Mlflow`` ``EvaluatorCredentials``), synced into the platform
    namespace for the promotion Job's check (k8s_charts/promotion.py); None without basic-auth."""


@dataclass(frozen=True)
class PlatformValues:
    """Deploy-time values the charts need. Strings may be CDK tokens."""

    cluster_name: str
    region: str
    hyperpod_availability_zone: str
    node_role_name: str
    kms_key_arn: str
    fsx_file_system_id: str
    fsx_dns_name: str
    fsx_mount_name: str
    fsx_storage_capacity_gib: int
    # platform image name -> URI (k8s_charts/images.py); known at synth, not a deploy-time value
    images: Mapping[str, str] = field(default_factory=dict)
    mlflow: MlflowValues | None = None  # without it team namespaces get no `mlflow` ConfigMap
    node_kinds: tuple[NodeKind, ...] = ()  # k8s_charts.node_shapes.node_kinds(config): job builders size pods

    @classmethod
    def placeholders(cls, config: EnvironmentConfig) -> PlatformValues:
        """Values known from the config; `${VAR}` placeholders for what exists only after deployment."""
        from k8s_charts.node_shapes import node_kinds

        return cls(
            cluster_name=config.cluster_name,
            region=config.region,
            hyperpod_availability_zone=config.network.hyperpod.availability_zone,
            node_role_name="${KARPENTER_NODE_ROLE_NAME}",
            kms_key_arn="${PLATFORM_KMS_KEY_ARN}",
            fsx_file_system_id="${FSX_FILE_SYSTEM_ID}",
            fsx_dns_name="${FSX_DNS_NAME}",
            fsx_mount_name="${FSX_MOUNT_NAME}",
            fsx_storage_capacity_gib=config.storage.fsx.storage_capacity_gib,
            images=image_uris(config),
            mlflow=MlflowValues(
                tracking_uri="${MLFLOW_TRACKING_URI}",
                team_secret_arns={t.name: mlflow_secret_arn_placeholder(t.name) for t in config.kubernetes.teams},
                evaluator_secret_arn=(
                    EVALUATOR_SECRET_ARN_PLACEHOLDER if config.mlflow.authentication == "basic-auth" else None
                ),
            ),
            node_kinds=node_kinds(config),
        )


PLACEHOLDER = re.compile(r"\$\{([A-Z][A-Z0-9_]*)\}")


def gitops_output_key(name: str) -> str:
    """Output key (alphanumeric, CloudFormation's rule for logical IDs) of the compute stack's output carrying the
    value of placeholder ``${name}`` in argocd delivery mode; `make gitops` fills dist/<env>/ from these outputs."""
    return "GitOps" + name.replace("_", "")


def deploy_time_values(placeholders: PlatformValues, actual: PlatformValues) -> dict[str, str]:
    """Placeholder name -> the value it stands for: every ``${NAME}`` field of ``placeholders`` (see
    :meth:`PlatformValues.placeholders`) paired with the same field of ``actual`` (CDK tokens in the stack)."""
    out: dict[str, str] = {}

    def pair(p: object, a: object) -> None:
        m = PLACEHOLDER.fullmatch(p) if isinstance(p, str) else None
        if m:
            out[m.group(1)] = a  # type: ignore[assignment]

    for f in fields(PlatformValues):
        pair(getattr(placeholders, f.name), getattr(actual, f.name))
    if placeholders.mlflow is not None and actual.mlflow is not None:
        pair(placeholders.mlflow.tracking_uri, actual.mlflow.tracking_uri)
        for team, arn in placeholders.mlflow.team_secret_arns.items():
            pair(arn, actual.mlflow.team_secret_arns.get(team))
        pair(placeholders.mlflow.evaluator_secret_arn, actual.mlflow.evaluator_secret_arn)
    return {k: v for k, v in out.items() if v is not None}
