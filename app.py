#!/usr/bin/env python3
"""CDK entry point: load one environment's config (`-c env=NAME`, default `dev`) and wire its stacks; or, with
`-c delivery=pipeline` (`make synth-delivery`), the multi-account delivery pipeline of
config/organization/accounts.yaml, whose stages wire each environment's stacks with the same ``build()``."""

from __future__ import annotations

import gc
import sys

# Garbage collection (measured with `make bench` on the dev synth, 2 cores): the objects that loading aws-cdk-lib's,
# cdk8s's and the CRDs' Python bindings creates (about 300,000) live until the process ends, yet CPython's cyclic
# collector walked them again on every full collection while modules loaded, and once more at interpreter exit:
# 1.1 s of a 7.4 s synth, against 0.06 s for the benchmark's empty app. Collection is therefore paused while the
# modules load; what they created is then frozen out of every later collection (gc.freeze), and so is what the
# synth built, at the end of main(), before the interpreter's exit collection. Cycles created while the stacks are
# built are still collected as usual.
gc.disable()
import aws_cdk as cdk  # noqa: E402  (the imports follow gc.disable() on purpose)
from cdk_nag import AwsSolutionsChecks  # noqa: E402
from constructs import Construct  # noqa: E402

from cdk_constructs.governance.permissions_boundary import apply_platform_boundary  # noqa: E402
from cdk_constructs.governance.trust_conditions import ServiceTrustConditions  # noqa: E402
from config import (  # noqa: E402
    DEFAULT_ENV,
    ConfigError,
    EnvironmentConfig,
    ExistingClusterConfig,
    OrganizationConfig,
    load_config,
    load_existing_config,
    load_organization,
)
from stacks._base import output_deploy_time_values  # noqa: E402
from stacks.compute_stack import ComputeStack  # noqa: E402
from stacks.existing_studio_stack import ExistingClusterStudioStack  # noqa: E402
from stacks.mlflow_stack import MlflowStack  # noqa: E402
from stacks.network_stack import NetworkStack  # noqa: E402
from stacks.observability_stack import ObservabilityStack  # noqa: E402
from stacks.storage_stack import StorageStack  # noqa: E402
from stacks.studio_stack import StudioStack  # noqa: E402

gc.freeze()
gc.enable()


def _foundation_stacks(app: cdk.App | cdk.Stage, config: EnvironmentConfig) -> dict[str, cdk.Stack]:
    """Add the network, storage, MLflow and compute stacks (compute's deploy-time values as outputs)."""
    p = config.stack_prefix
    network = NetworkStack(app, f"{p}-Network", config=config)
    storage = StorageStack(
        app,
        f"{p}-Storage",
        config=config,
        file_system_subnet=network.hyperpod_subnet,
        file_system_security_group=network.security_groups.fsx,
    )
    mlflow = MlflowStack(
        app,
        f"{p}-Mlflow",
        config=config,
        vpc=network.vpc,
        security_groups=network.security_groups,
        client_cidrs=network.client_cidrs,
        encryption_key=storage.key,
        artifacts_bucket=storage.artifacts_bucket,
        access_logs_bucket=storage.access_logs_bucket,
    )
    compute = ComputeStack(
        app,
        f"{p}-Compute",
        config=config,
        vpc=network.vpc,
        private_subnets=network.vpc.private_subnets,
        hyperpod_subnet=network.hyperpod_subnet,
        security_groups=network.security_groups,
        file_system=storage.file_system,
        data_bucket=storage.data_bucket,
        mlflow=mlflow,
        log_encryption_key=storage.key,
    )
    # argocd mode: each deploy-time value of dist/<env>/ becomes an output of the stack that owns it
    output_deploy_time_values(compute.deploy_time_values, default_owner=compute)
    return {"network": network, "storage": storage, "mlflow": mlflow, "compute": compute}


def _observability_stack(
    app: cdk.App | cdk.Stage,
    *,
    config: EnvironmentConfig,
    storage: StorageStack,
    mlflow: MlflowStack,
    compute: ComputeStack,
) -> ObservabilityStack:
    """Add the observability stack over the cluster, file system, MLflow and HyperPod."""
    return ObservabilityStack(
        app,
        f"{config.stack_prefix}-Observability",
        config=config,
        cluster=compute.cluster,
        encryption_key=storage.key,
        file_system_id=storage.file_system.file_system_id,
        load_balancer=mlflow.load_balancer,
        target_group=mlflow.server.target_group,
        database_cluster=mlflow.database.cluster,
        hyperpod_cluster_arn=compute.hyperpod.cluster.attr_cluster_arn,
        spot_interruption_rule_name=compute.karpenter.rules["SpotInterruption"].rule_name,
        system_node_selector=compute.system_node_selector,
        addon_after=[compute.eks.system_nodegroup, compute.eks.addons["eks-pod-identity-agent"]],
    )


def _studio_stack(
    app: cdk.App | cdk.Stage,
    *,
    config: EnvironmentConfig,
    network: NetworkStack,
    storage: StorageStack,
    mlflow: MlflowStack,
    compute: ComputeStack,
) -> StudioStack:
    """Add the SageMaker Studio stack, on the cluster, the file system and the training images."""
    return StudioStack(
        app,
        f"{config.stack_prefix}-Studio",
        config=config,
        vpc=network.vpc,
        subnets=network.vpc.private_subnets,
        studio_security_group=network.security_groups.studio,
        encryption_key=storage.key,
        data_bucket=storage.data_bucket,
        file_system=storage.file_system,
        training_images=storage.training_images,
        cluster=compute.cluster,
        directories_ready=compute.fsx_directories.wait_handle,
        mlflow=mlflow,
    )


def _delivery_stack(
    app: cdk.App | cdk.Stage,
    *,
    config: EnvironmentConfig,
    organization: OrganizationConfig,
    network: NetworkStack,
    storage: StorageStack,
    account_wide: bool,
) -> cdk.Stack:
    """Add the environment's delivery stack, which Storage (whose post step builds the images) deploys after."""
    from stacks.delivery_stack import WorkloadDeliveryStack

    delivery = WorkloadDeliveryStack(
        app,
        f"{config.stack_prefix}-Delivery",
        config=config,
        organization=organization,
        vpc_id=network.vpc.vpc_id,
        account_wide=account_wide,
    )
    storage.add_stack_dependency(
        delivery, "the pipeline's image step (a post step of Storage) assumes the images role this stack creates"
    )
    return delivery


def build(
    app: cdk.App | cdk.Stage,
    config: EnvironmentConfig,
    organization: OrganizationConfig | None = None,
    *,
    account_wide: bool = True,
) -> dict[str, cdk.Stack]:
    """Add every stack of ``config``'s environment to ``app`` (the app, or the pipeline's stage of the environment);
    returns them by short name. With ``organization`` (the delivery pipeline, config/organization/accounts.yaml) the
    environment also gets its ``<Env>-Delivery`` stack: OAM link, CloudTrail and flow logs to the log archive, alarm
    forwarding, and the role the pipeline's image step assumes (deployed before Storage, whose post step builds the
    images). ``account_wide`` (default True): this environment creates its account's OAM link and trail (False when
    an earlier environment of the waves shares the account)."""
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))  # before the stacks: it visits them as added
    stacks = _foundation_stacks(app, config)
    network, storage, mlflow, compute = stacks["network"], stacks["storage"], stacks["mlflow"], stacks["compute"]
    stacks["observability"] = _observability_stack(app, config=config, storage=storage, mlflow=mlflow, compute=compute)
    if config.studio.enabled:
        stacks["studio"] = _studio_stack(
            app, config=config, network=network, storage=storage, mlflow=mlflow, compute=compute
        )
    if organization is not None:
        stacks["delivery"] = _delivery_stack(
            app,
            config=config,
            organization=organization,
            network=network,
            storage=storage,
            account_wide=account_wide,
        )
        # the pipeline's execution policy admits roles only with the platform's boundary (tools/execution_policy.py)
        apply_platform_boundary(stacks.values(), account=config.account, region=config.region)
    # Confused-deputy conditions on every service role, once every construct exists (one walk of the tree; as an
    # aspect it would cost a call back into Python per construct at synth)
    ServiceTrustConditions().apply_to(app)
    return stacks


def build_existing(app: cdk.App, config: ExistingClusterConfig) -> dict[str, cdk.Stack]:
    """Existing-cluster mode (``-c existing=NAME``, config/existing/NAME.yaml): only ``<Name>-Studio``, on the
    imported HyperPod/EKS cluster, VPC and FSx file system (stacks/existing_studio_stack.py)."""
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    stacks: dict[str, cdk.Stack] = {
        "studio": ExistingClusterStudioStack(app, f"{config.stack_prefix}-Studio", config=config)
    }
    ServiceTrustConditions().apply_to(app)
    return stacks


class PlatformStage(cdk.Stage):
    """One environment as a stage of the delivery pipeline: the stacks ``build()`` wires (the same function
    ``cdk synth -c env=<name>`` runs), in the environment's workload account. Attribute ``stacks``."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig,
        organization: OrganizationConfig,
        account_wide: bool = True,
    ) -> None:
        """:param account_wide: default True; False where an earlier environment holds the account's link and trail."""
        super().__init__(scope, construct_id, env=cdk.Environment(account=config.account, region=config.region))
        self.stacks = build(self, config, organization, account_wide=account_wide)


class LoggingStage(cdk.Stage):
    """The logging account's stage (``Delivery-Logging``); the pipeline deploys it before the first wave."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        organization: OrganizationConfig,
        environments: dict[str, EnvironmentConfig],
    ) -> None:
        from stacks.logging_stack import LoggingStack

        lg = organization.logging
        super().__init__(scope, construct_id, env=cdk.Environment(account=lg.account, region=lg.region))
        self.stack = LoggingStack(self, "Delivery-Logging", organization=organization, environments=environments)
        apply_platform_boundary([self.stack], account=lg.account, region=lg.region)


def build_delivery(
    app: cdk.App, organization: OrganizationConfig, environments: dict[str, EnvironmentConfig]
) -> cdk.Stack:
    """The automation account's pipeline stack (``-c delivery=pipeline``); its stages hold the logging stack and
    every environment of the waves."""
    from stacks.pipeline_stack import DeliveryPipelineStack

    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    pipeline = DeliveryPipelineStack(
        app,
        "Delivery-Pipeline",
        organization=organization,
        environments=environments,
        stage_factory=PlatformStage,
        logging_stage_factory=lambda scope, cid: LoggingStage(
            scope, cid, organization=organization, environments=environments
        ),
    )
    # self-mutation deploys this stack through the automation account's execution role: the same boundary
    auto = organization.automation
    apply_platform_boundary([pipeline], account=auto.account, region=auto.region)
    return pipeline


def main() -> None:
    app = cdk.App()
    env, existing = app.node.try_get_context("env"), app.node.try_get_context("existing")
    try:
        if existing and env:
            raise ConfigError(f"-c env={env} and -c existing={existing} pick two different deployments; pass one")
        if app.node.try_get_context("delivery"):
            # The delivery pipeline (config/organization/accounts.yaml); never read for `-c env=<name>`.
            organization, environments = load_organization()
            build_delivery(app, organization, environments)
        elif existing:
            build_existing(app, load_existing_config(existing))
        else:
            build(app, load_config(env or DEFAULT_ENV))
    except ConfigError as exc:
        # A config error is the user's to fix, not a crash: print it as it is (it names field, value and fix).
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    app.synth()
    gc.freeze()  # nothing is collected any more: skip the interpreter's exit collection over all of it


if __name__ == "__main__":
    main()
