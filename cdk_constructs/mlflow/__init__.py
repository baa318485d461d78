"""MLflow layer (<Env>-Mlflow): Aurora PostgreSQL, the tracking server on Fargate behind an HTTPS load balancer,
generated credentials."""

from __future__ import annotations

from cdk_constructs.mlflow.generated_credential import GeneratedCredential
from cdk_constructs.mlflow.https_load_balancer import HttpsLoadBalancer
from cdk_constructs.mlflow.mlflow_database import MlflowDatabase
from cdk_constructs.mlflow.mlflow_server import MlflowServer

__all__ = ["GeneratedCredential", "HttpsLoadBalancer", "MlflowDatabase", "MlflowServer"]
