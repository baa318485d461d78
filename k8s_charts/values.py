"""Values the charts take: everything that comes from AWS resources, in one immutable object.

Inside the compute stack the fields are CDK tokens (resolved when CloudFormation applies the manifests); in tests
and in `dist/<env>/` they are placeholders. :func:`PlatformValues.placeholders` uses `${NAME}` placeholders, the
syntax of `envsubst` and of Flux post-build substitution, so a GitOps pipeline fills them from the stack outputs.
"""

from __future__ import annotations

from dataclasses import dataclass

from config import EnvironmentConfig

# Where the FSx for Lustre claim is mounted in every job pod; the data bucket appears at <mount>/<file_system_path>.
FSX_MOUNT_PATH = "/fsx"
FSX_CLAIM_NAME = "fsx-claim"
MLFLOW_CONFIG_MAP = "mlflow"
TEAM_SERVICE_ACCOUNT = "training"


def team_group(team: str) -> str:
    """Kubernetes group of a team's people (Studio users' EKS access entries carry it; the team namespace binds it
    to the `job-submitter` Role, because EKS access policies do not cover custom resources such as PyTorchJob)."""
    return f"llmft:team:{team}"


def fsx_volume_name(namespace: str) -> str:
    """Name of the static PersistentVolume of ``namespace`` (agreed with the compute stack)."""
    return f"fsx-{namespace}"


@dataclass(frozen=True)
class MlflowValues:
    """Where jobs log: the tracking URI and the ARN of the Secrets Manager secret with client credentials."""

    tracking_uri: str
    credentials_secret_arn: str


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
    fsx_data_path: str               # FSx directory linked to the data bucket, e.g. "/data"
    training_image_uri: str = ""     # ECR repository URI (no tag); only the job builders need it
    mlflow: MlflowValues | None = None  # without it team namespaces get no `mlflow` ConfigMap

    @property
    def data_mount_path(self) -> str:
        """Where the data bucket appears inside a pod (e.g. /fsx/data)."""
        return FSX_MOUNT_PATH + self.fsx_data_path

    @classmethod
    def placeholders(cls, config: EnvironmentConfig) -> PlatformValues:
        """Values known from the config; `${VAR}` placeholders for what exists only after deployment."""
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
            fsx_data_path=config.storage.fsx.file_system_path,
            training_image_uri="${TRAINING_IMAGE_URI}",
            mlflow=MlflowValues(tracking_uri="${MLFLOW_TRACKING_URI}",
                                credentials_secret_arn="${MLFLOW_CREDENTIALS_SECRET_ARN}"),
        )
