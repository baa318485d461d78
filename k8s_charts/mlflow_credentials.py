"""A team's MLflow credentials in its namespace: a SecretProviderClass that syncs the team's Secrets Manager secret into
the Kubernetes Secret `mlflow-credentials` (Secrets Store CSI driver + AWS provider, EKS Pod Identity).

How it works (secrets-store-csi-driver docs, "Sync as Kubernetes Secret"; aws/secrets-store-csi-driver-provider-aws
README, "SecretProviderClass options"): when a pod mounts a `secrets-store.csi.k8s.io` volume naming this class, the
driver asks the AWS provider for the secret with the pod's own service-account identity (`usePodIdentity`: the team's
`training` service account -> the team's IAM role, which may read only this team's secret), writes the two JSON fields
as files into the pod's tmpfs volume and creates/updates the Secret `mlflow-credentials` from them. The Secret lives
as long as some pod mounts the volume. Pods get it through `k8s_charts.pods.mlflow_credentials()` (env + volume).
"""

from __future__ import annotations

import json

import cdk8s
from constructs import Construct

from k8s_charts.imports.secretproviderclass.io.x_k8s.csi import secrets_store as sscsi
from k8s_charts.values import MLFLOW_CREDENTIALS_SECRET, MLFLOW_SECRET_PROVIDER_CLASS

USERNAME_KEY = "MLFLOW_TRACKING_USERNAME"
PASSWORD_KEY = "MLFLOW_TRACKING_PASSWORD"
# File names of the two fields inside the CSI volume (objectAlias) = the objects the Secret is synced from.
_FIELDS = {"username": USERNAME_KEY, "password": PASSWORD_KEY}


def provider_objects(secret_arn: str) -> str:
    """The AWS provider's `objects` parameter: the secret by ARN, its two JSON fields as files readable only by
    root (the pod reads them from the synced Secret, never from the files)."""
    return json.dumps(
        [
            {
                "objectName": secret_arn,
                "objectType": "secretsmanager",
                "filePermission": "0400",
                "jmesPath": [{"path": field, "objectAlias": field, "filePermission": "0400"} for field in _FIELDS],
            }
        ]
    )


class MlflowCredentials(Construct):
    """SecretProviderClass `mlflow-credentials` in ``namespace`` for the secret ``secret_arn`` (``region``).

    :param namespace: the team namespace. Required.
    :param secret_arn: the team's MLflow credentials secret (may be a CDK token or a `${VAR}` placeholder). Required.
    :param region: region of the secret (saves the provider a node lookup per mount). Required.
    :param labels: labels of the class and of the synced Secret. Default none.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        namespace: str,
        secret_arn: str,
        region: str,
        labels: dict[str, str] | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        labels = dict(labels or {})
        self.secret_provider_class = sscsi.SecretProviderClass(
            self,
            "SecretProviderClass",
            metadata=cdk8s.ApiObjectMetadata(name=MLFLOW_SECRET_PROVIDER_CLASS, namespace=namespace, labels=labels),
            spec=sscsi.SecretProviderClassSpec(
                provider="aws",
                parameters={"region": region, "usePodIdentity": "true", "objects": provider_objects(secret_arn)},
                secret_objects=[
                    sscsi.SecretProviderClassSpecSecretObjects(
                        secret_name=MLFLOW_CREDENTIALS_SECRET,
                        type="Opaque",
                        labels=labels or None,
                        data=[
                            sscsi.SecretProviderClassSpecSecretObjectsData(object_name=alias, key=key)
                            for alias, key in _FIELDS.items()
                        ],
                    )
                ],
            ),
        )
