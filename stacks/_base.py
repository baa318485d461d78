"""Common base for every platform stack."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import aws_cdk as cdk
from constructs import Construct

from config import EnvironmentConfig, ExistingClusterConfig
from k8s_charts.values import gitops_output_key


class PlatformStack(cdk.Stack):
    """A stack bound to one environment's account and region.

    The stack's availability zones come from the validated config instead of a context lookup, so
    synthesis never needs credentials; the config check has already proved they belong to the region.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: EnvironmentConfig | ExistingClusterConfig,
        description: str,
        stateful: bool = False,
        **kwargs: Any,
    ) -> None:
        self._config_azs = list(config.availability_zones)
        # The stack name is the construct ID in the delivery pipeline's stage too (a stage would prefix it with its
        # own name), so the pipeline deploys the very stacks `make deploy` made.
        kwargs.setdefault("stack_name", construct_id)
        super().__init__(
            scope,
            construct_id,
            env=cdk.Environment(account=config.account, region=config.region),
            description=description,
            termination_protection=stateful and config.protect_stateful,
            **kwargs,
        )
        self.config = config
        for key, value in config.tags.items():
            cdk.Tags.of(self).add(key, value)

    def output_deploy_time_value(self, name: str, value: str) -> cdk.CfnOutput:
        """Output ``GitOps<NAME>``: the deploy-time value ``${NAME}`` of the GitOps manifests in dist/<env>/ that this
        stack owns (`make gitops` reads it). The owner outputs it: in any other stack the value would be an import,
        which an output cannot hold (:func:`output_deploy_time_values` finds the owner)."""
        return cdk.CfnOutput(
            self,
            gitops_output_key(name),
            value=value,
            description=f"${{{name}}} in dist/{self.config.name}/ (make gitops fills it in)",
        )

    @property
    def availability_zones(self) -> list[str]:  # overrides the context lookup of cdk.Stack
        return self._config_azs


def output_deploy_time_values(values: Mapping[str, str], *, default_owner: PlatformStack) -> None:
    """Have the stack that owns each of ``values`` (``${NAME}`` -> value, ``ComputeStack.deploy_time_values``)
    output it: the stack of the resource a token refers to, else ``default_owner`` (plain strings, values computed
    there)."""
    for name, value in values.items():
        ref = cdk.Tokenization.reverse(value) if cdk.Token.is_unresolved(value) else None
        owner = cdk.Stack.of(ref.target) if isinstance(ref, cdk.Reference) else default_owner
        if not isinstance(owner, PlatformStack):
            raise TypeError(f"deploy-time value {name} belongs to {owner.node.path}, not a platform stack")
        owner.output_deploy_time_value(name, value)
