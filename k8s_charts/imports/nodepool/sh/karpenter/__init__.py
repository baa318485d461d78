from __future__ import annotations

from pkgutil import extend_path
__path__ = extend_path(__path__, __name__)

import abc
import builtins
import datetime
import enum
import typing

import jsii
import publication
import typing_extensions

from jsii._type_checking import cached_type_hints, check_type


from ._jsii import *

class _LazyImport:
    def __init__(self, module_name: str) -> None:
        self._module_name = module_name
        self._module: typing.Any = None
    def __getattr__(self, name: str) -> typing.Any:
        if self._module is None:
            import importlib
            self._module = importlib.import_module(self._module_name)
        return getattr(self._module, name)

if typing.TYPE_CHECKING:

    import cdk8s as _cdk8s_d3d9af27
    import constructs as _constructs_77d1e7e8
else:

    _cdk8s_d3d9af27 = _LazyImport("cdk8s")
    _constructs_77d1e7e8 = _LazyImport("constructs")


class NodePool(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="nodepool_shkarpenter.NodePool",
):
    '''NodePool is the Schema for the NodePools API.

    :schema: NodePool
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        spec: typing.Union["NodePoolSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "NodePool" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param spec: NodePoolSpec is the top level nodepool specification. Nodepools launch nodes in response to pods that are unschedulable. A single nodepool is capable of managing a diverse set of nodes. Node properties are determined from a combination of nodepool and pod scheduling constraints.
        :param metadata: 
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__cdfc22c611adf81f01a9ca0bb1d8937705720a0ab0cc951dbfa028516d85c708)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = NodePoolProps(spec=spec, metadata=metadata)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        spec: typing.Union["NodePoolSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "NodePool".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param spec: NodePoolSpec is the top level nodepool specification. Nodepools launch nodes in response to pods that are unschedulable. A single nodepool is capable of managing a diverse set of nodes. Node properties are determined from a combination of nodepool and pod scheduling constraints.
        :param metadata: 
        '''
        props = NodePoolProps(spec=spec, metadata=metadata)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "NodePool".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="nodepool_shkarpenter.NodePoolProps",
    jsii_struct_bases=[],
    name_mapping={"spec": "spec", "metadata": "metadata"},
)
class NodePoolProps:
    def __init__(
        self,
        *,
        spec: typing.Union["NodePoolSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''NodePool is the Schema for the NodePools API.

        :param spec: NodePoolSpec is the top level nodepool specification. Nodepools launch nodes in response to pods that are unschedulable. A single nodepool is capable of managing a diverse set of nodes. Node properties are determined from a combination of nodepool and pod scheduling constraints.
        :param metadata: 

        :schema: NodePool
        '''
        if isinstance(spec, dict):
            spec = NodePoolSpec(**spec)
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7022c043ab5e67777019ac8bc8a0f41a5e310a0ac73dcd4fc0f26dd9d80d4071)
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "spec": spec,
        }
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def spec(self) -> "NodePoolSpec":
        '''NodePoolSpec is the top level nodepool specification.

        Nodepools
        launch nodes in response to pods that are unschedulable. A single nodepool
        is capable of managing a diverse set of nodes. Node properties are determined
        from a combination of nodepool and pod scheduling constraints.

        :schema: NodePool#spec
        '''
        result = self._values.get("spec")
        assert result is not None, "Required property 'spec' is missing"
        return typing.cast("NodePoolSpec", result)

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: NodePool#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodePoolProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nodepool_shkarpenter.NodePoolSpec",
    jsii_struct_bases=[],
    name_mapping={
        "template": "template",
        "disruption": "disruption",
        "limits": "limits",
        "replicas": "replicas",
        "weight": "weight",
    },
)
class NodePoolSpec:
    def __init__(
        self,
        *,
        template: typing.Union["NodePoolSpecTemplate", typing.Dict[builtins.str, typing.Any]],
        disruption: typing.Optional[typing.Union["NodePoolSpecDisruption", typing.Dict[builtins.str, typing.Any]]] = None,
        limits: typing.Optional[typing.Mapping[builtins.str, "NodePoolSpecLimits"]] = None,
        replicas: typing.Optional[jsii.Number] = None,
        weight: typing.Optional[jsii.Number] = None,
    ) -> None:
        '''NodePoolSpec is the top level nodepool specification.

        Nodepools
        launch nodes in response to pods that are unschedulable. A single nodepool
        is capable of managing a diverse set of nodes. Node properties are determined
        from a combination of nodepool and pod scheduling constraints.

        :param template: Template contains the template of possibilities for the provisioning logic to launch a NodeClaim with. NodeClaims launched from this NodePool will often be further constrained than the template specifies.
        :param disruption: Disruption contains the parameters that relate to Karpenter's disruption logic.
        :param limits: Limits define a set of bounds for provisioning capacity. Limits other than limits.nodes is not supported when replicas is set.
        :param replicas: Replicas is the desired number of nodes for the NodePool. When specified, the NodePool will maintain this fixed number of replicas rather than scaling based on pod demand. When replicas is set: - The following fields are ignored: - disruption.consolidationPolicy - disruption.consolidateAfter - Only limits.nodes is supported; other resource limits (e.g., CPU, memory) must not be specified. - Weight is not supported. Note: This field is alpha.
        :param weight: Weight is the priority given to the nodepool during scheduling. A higher numerical weight indicates that this nodepool will be ordered ahead of other nodepools with lower weights. A nodepool with no weight will be treated as if it is a nodepool with a weight of 0. Weight is not supported when replicas is set.

        :schema: NodePoolSpec
        '''
        if isinstance(template, dict):
            template = NodePoolSpecTemplate(**template)
        if isinstance(disruption, dict):
            disruption = NodePoolSpecDisruption(**disruption)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d04b6b70c68c65875ce3c22076bf00e592b1009af9393f5cb136ace185297038)
            check_type(argname="argument template", value=template, expected_type=type_hints["template"])
            check_type(argname="argument disruption", value=disruption, expected_type=type_hints["disruption"])
            check_type(argname="argument limits", value=limits, expected_type=type_hints["limits"])
            check_type(argname="argument replicas", value=replicas, expected_type=type_hints["replicas"])
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "template": template,
        }
        if disruption is not None:
            self._values["disruption"] = disruption
        if limits is not None:
            self._values["limits"] = limits
        if replicas is not None:
            self._values["replicas"] = replicas
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def template(self) -> "NodePoolSpecTemplate":
        '''Template contains the template of possibilities for the provisioning logic to launch a NodeClaim with.

        NodeClaims launched from this NodePool will often be further constrained than the template specifies.

        :schema: NodePoolSpec#template
        '''
        result = self._values.get("template")
        assert result is not None, "Required property 'template' is missing"
        return typing.cast("NodePoolSpecTemplate", result)

    @builtins.property
    def disruption(self) -> typing.Optional["NodePoolSpecDisruption"]:
        '''Disruption contains the parameters that relate to Karpenter's disruption logic.

        :schema: NodePoolSpec#disruption
        '''
        result = self._values.get("disruption")
        return typing.cast(typing.Optional["NodePoolSpecDisruption"], result)

    @builtins.property
    def limits(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, "NodePoolSpecLimits"]]:
        '''Limits define a set of bounds for provisioning capacity.

        Limits other than limits.nodes is not supported when replicas is set.

        :schema: NodePoolSpec#limits
        '''
        result = self._values.get("limits")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, "NodePoolSpecLimits"]], result)

    @builtins.property
    def replicas(self) -> typing.Optional[jsii.Number]:
        '''Replicas is the desired number of nodes for the NodePool.

        When specified, the NodePool will
        maintain this fixed number of replicas rather than scaling based on pod demand.
        When replicas is set:

        - The following fields are ignored:
        - disruption.consolidationPolicy
        - disruption.consolidateAfter
        - Only limits.nodes is supported; other resource limits (e.g., CPU, memory) must not be specified.
        - Weight is not supported.
          Note: This field is alpha.

        :schema: NodePoolSpec#replicas
        '''
        result = self._values.get("replicas")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def weight(self) -> typing.Optional[jsii.Number]:
        '''Weight is the priority given to the nodepool during scheduling.

        A higher
        numerical weight indicates that this nodepool will be ordered
        ahead of other nodepools with lower weights. A nodepool with no weight
        will be treated as if it is a nodepool with a weight of 0.
        Weight is not supported when replicas is set.

        :schema: NodePoolSpec#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional[jsii.Number], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodePoolSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nodepool_shkarpenter.NodePoolSpecDisruption",
    jsii_struct_bases=[],
    name_mapping={
        "consolidate_after": "consolidateAfter",
        "budgets": "budgets",
        "consolidation_policy": "consolidationPolicy",
    },
)
class NodePoolSpecDisruption:
    def __init__(
        self,
        *,
        consolidate_after: builtins.str,
        budgets: typing.Optional[typing.Sequence[typing.Union["NodePoolSpecDisruptionBudgets", typing.Dict[builtins.str, typing.Any]]]] = None,
        consolidation_policy: typing.Optional["NodePoolSpecDisruptionConsolidationPolicy"] = None,
    ) -> None:
        '''Disruption contains the parameters that relate to Karpenter's disruption logic.

        :param consolidate_after: ConsolidateAfter is the duration the controller will wait before attempting to terminate nodes that are underutilized. Refer to ConsolidationPolicy for how underutilization is considered. When replicas is set, ConsolidateAfter is simply ignored
        :param budgets: Budgets is a list of Budgets. If there are multiple active budgets, Karpenter uses the most restrictive value. If left undefined, this will default to one budget with a value to 10%.
        :param consolidation_policy: ConsolidationPolicy describes which nodes Karpenter can disrupt through its consolidation algorithm. This policy defaults to "WhenEmptyOrUnderutilized" if not specified. Valid values: "WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced". When replicas is set, ConsolidationPolicy is simply ignored.

        :schema: NodePoolSpecDisruption
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5d6991b3f1af40e2aa24d02ad17bfc6e216fc901860130cba23d9c153493fede)
            check_type(argname="argument consolidate_after", value=consolidate_after, expected_type=type_hints["consolidate_after"])
            check_type(argname="argument budgets", value=budgets, expected_type=type_hints["budgets"])
            check_type(argname="argument consolidation_policy", value=consolidation_policy, expected_type=type_hints["consolidation_policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "consolidate_after": consolidate_after,
        }
        if budgets is not None:
            self._values["budgets"] = budgets
        if consolidation_policy is not None:
            self._values["consolidation_policy"] = consolidation_policy

    @builtins.property
    def consolidate_after(self) -> builtins.str:
        '''ConsolidateAfter is the duration the controller will wait before attempting to terminate nodes that are underutilized.

        Refer to ConsolidationPolicy for how underutilization is considered.
        When replicas is set, ConsolidateAfter is simply ignored

        :schema: NodePoolSpecDisruption#consolidateAfter
        '''
        result = self._values.get("consolidate_after")
        assert result is not None, "Required property 'consolidate_after' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def budgets(self) -> typing.Optional[typing.List["NodePoolSpecDisruptionBudgets"]]:
        '''Budgets is a list of Budgets.

        If there are multiple active budgets, Karpenter uses
        the most restrictive value. If left undefined,
        this will default to one budget with a value to 10%.

        :schema: NodePoolSpecDisruption#budgets
        '''
        result = self._values.get("budgets")
        return typing.cast(typing.Optional[typing.List["NodePoolSpecDisruptionBudgets"]], result)

    @builtins.property
    def consolidation_policy(
        self,
    ) -> typing.Optional["NodePoolSpecDisruptionConsolidationPolicy"]:
        '''ConsolidationPolicy describes which nodes Karpenter can disrupt through its consolidation algorithm.

        This policy defaults to "WhenEmptyOrUnderutilized" if not specified.
        Valid values: "WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced".
        When replicas is set, ConsolidationPolicy is simply ignored.

        :schema: NodePoolSpecDisruption#consolidationPolicy
        '''
        result = self._values.get("consolidation_policy")
        return typing.cast(typing.Optional["NodePoolSpecDisruptionConsolidationPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodePoolSpecDisruption(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nodepool_shkarpenter.NodePoolSpecDisruptionBudgets",
    jsii_struct_bases=[],
    name_mapping={
        "nodes": "nodes",
        "duration": "duration",
        "reasons": "reasons",
        "schedule": "schedule",
    },
)
class NodePoolSpecDisruptionBudgets:
    def __init__(
        self,
        *,
        nodes: builtins.str,
        duration: typing.Optional[builtins.str] = None,
        reasons: typing.Optional[typing.Sequence["NodePoolSpecDisruptionBudgetsReasons"]] = None,
        schedule: typing.Optional[builtins.str] = None,
    ) -> None:
        '''Budget defines when Karpenter will restrict the number of Node Claims that can be terminating simultaneously.

        :param nodes: Nodes dictates the maximum number of NodeClaims owned by this NodePool that can be terminating at once. This is calculated by counting nodes that have a deletion timestamp set, or are actively being deleted by Karpenter. This field is required when specifying a budget. This cannot be of type intstr.IntOrString since kubebuilder doesn't support pattern checking for int nodes for IntOrString nodes. Ref: https://github.com/kubernetes-sigs/controller-tools/blob/55efe4be40394a288216dab63156b0a64fb82929/pkg/crd/markers/validation.go#L379-L388
        :param duration: Duration determines how long a Budget is active since each Schedule hit. Only minutes and hours are accepted, as cron does not work in seconds. If omitted, the budget is always active. This is required if Schedule is set. This regex has an optional 0s at the end since the duration.String() always adds a 0s at the end.
        :param reasons: reasons is a list of disruption methods that this budget applies to. If Reasons is not set, this budget applies to all methods. Otherwise, this will apply to each reason defined. allowed reasons are Underutilized, Empty, and Drifted.
        :param schedule: Schedule specifies when a budget begins being active, following the upstream cronjob syntax. If omitted, the budget is always active. Timezones are not supported. This field is required if Duration is set.

        :schema: NodePoolSpecDisruptionBudgets
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__bfeb98805ee8a7ed4f89c4760317eefa5a0525a33a1ee0dcb7af23a8d647dd05)
            check_type(argname="argument nodes", value=nodes, expected_type=type_hints["nodes"])
            check_type(argname="argument duration", value=duration, expected_type=type_hints["duration"])
            check_type(argname="argument reasons", value=reasons, expected_type=type_hints["reasons"])
            check_type(argname="argument schedule", value=schedule, expected_type=type_hints["schedule"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "nodes": nodes,
        }
        if duration is not None:
            self._values["duration"] = duration
        if reasons is not None:
            self._values["reasons"] = reasons
        if schedule is not None:
            self._values["schedule"] = schedule

    @builtins.property
    def nodes(self) -> builtins.str:
        '''Nodes dictates the maximum number of NodeClaims owned by this NodePool that can be terminating at once.

        This is calculated by counting nodes that
        have a deletion timestamp set, or are actively being deleted by Karpenter.
        This field is required when specifying a budget.
        This cannot be of type intstr.IntOrString since kubebuilder doesn't support pattern
        checking for int nodes for IntOrString nodes.
        Ref: https://github.com/kubernetes-sigs/controller-tools/blob/55efe4be40394a288216dab63156b0a64fb82929/pkg/crd/markers/validation.go#L379-L388

        :schema: NodePoolSpecDisruptionBudgets#nodes
        '''
        result = self._values.get("nodes")
        assert result is not None, "Required property 'nodes' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def duration(self) -> typing.Optional[builtins.str]:
        '''Duration determines how long a Budget is active since each Schedule hit.

        Only minutes and hours are accepted, as cron does not work in seconds.
        If omitted, the budget is always active.
        This is required if Schedule is set.
        This regex has an optional 0s at the end since the duration.String() always adds
        a 0s at the end.

        :schema: NodePoolSpecDisruptionBudgets#duration
        '''
        result = self._values.get("duration")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def reasons(
        self,
    ) -> typing.Optional[typing.List["NodePoolSpecDisruptionBudgetsReasons"]]:
        '''reasons is a list of disruption methods that this budget applies to.

        If Reasons is not set, this budget applies to all methods.
        Otherwise, this will apply to each reason defined.
        allowed reasons are Underutilized, Empty, and Drifted.

        :schema: NodePoolSpecDisruptionBudgets#reasons
        '''
        result = self._values.get("reasons")
        return typing.cast(typing.Optional[typing.List["NodePoolSpecDisruptionBudgetsReasons"]], result)

    @builtins.property
    def schedule(self) -> typing.Optional[builtins.str]:
        '''Schedule specifies when a budget begins being active, following the upstream cronjob syntax.

        If omitted, the budget is always active.
        Timezones are not supported.
        This field is required if Duration is set.

        :schema: NodePoolSpecDisruptionBudgets#schedule
        '''
        result = self._values.get("schedule")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodePoolSpecDisruptionBudgets(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="nodepool_shkarpenter.NodePoolSpecDisruptionBudgetsReasons")
class NodePoolSpecDisruptionBudgetsReasons(enum.Enum):
    '''DisruptionReason defines valid reasons for disruption budgets.

    :schema: NodePoolSpecDisruptionBudgetsReasons
    '''

    UNDERUTILIZED = "UNDERUTILIZED"
    '''Underutilized.'''
    EMPTY = "EMPTY"
    '''Empty.'''
    DRIFTED = "DRIFTED"
    '''Drifted.'''


@jsii.enum(jsii_type="nodepool_shkarpenter.NodePoolSpecDisruptionConsolidationPolicy")
class NodePoolSpecDisruptionConsolidationPolicy(enum.Enum):
    '''ConsolidationPolicy describes which nodes Karpenter can disrupt through its consolidation algorithm.

    This policy defaults to "WhenEmptyOrUnderutilized" if not specified.
    Valid values: "WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced".
    When replicas is set, ConsolidationPolicy is simply ignored.

    :schema: NodePoolSpecDisruptionConsolidationPolicy
    '''

    WHEN_EMPTY = "WHEN_EMPTY"
    '''WhenEmpty.'''
    WHEN_EMPTY_OR_UNDERUTILIZED = "WHEN_EMPTY_OR_UNDERUTILIZED"
    '''WhenEmptyOrUnderutilized.'''
    BALANCED = "BALANCED"
    '''Balanced.'''


class NodePoolSpecLimits(
    metaclass=jsii.JSIIMeta,
    jsii_type="nodepool_shkarpenter.NodePoolSpecLimits",
):
    '''
    :schema: NodePoolSpecLimits
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "NodePoolSpecLimits":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__44e00c3de0eb9ed7d28809cbeceb120612c1a793c813178fb6ad3bc7f6c59f89)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("NodePoolSpecLimits", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "NodePoolSpecLimits":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b1bb53f1a52f226023426bf71ea8db0f8f1e65c7d2c658386a0c8a8ef9572430)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("NodePoolSpecLimits", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="nodepool_shkarpenter.NodePoolSpecTemplate",
    jsii_struct_bases=[],
    name_mapping={"spec": "spec", "metadata": "metadata"},
)
class NodePoolSpecTemplate:
    def __init__(
        self,
        *,
        spec: typing.Union["NodePoolSpecTemplateSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["NodePoolSpecTemplateMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Template contains the template of possibilities for the provisioning logic to launch a NodeClaim with.

        NodeClaims launched from this NodePool will often be further constrained than the template specifies.

        :param spec: NodeClaimTemplateSpec describes the desired state of the NodeClaim in the Nodepool NodeClaimTemplateSpec is used in the NodePool's NodeClaimTemplate, with the resource requests omitted since users are not able to set resource requests in the NodePool.
        :param metadata: 

        :schema: NodePoolSpecTemplate
        '''
        if isinstance(spec, dict):
            spec = NodePoolSpecTemplateSpec(**spec)
        if isinstance(metadata, dict):
            metadata = NodePoolSpecTemplateMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7195012aa8fe52cdddd9f0d8338516d2976f03055a74c65c1cdc209539f4c88d)
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "spec": spec,
        }
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def spec(self) -> "NodePoolSpecTemplateSpec":
        '''NodeClaimTemplateSpec describes the desired state of the NodeClaim in the Nodepool NodeClaimTemplateSpec is used in the NodePool's NodeClaimTemplate, with the resource requests omitted since users are not able to set resource requests in the NodePool.

        :schema: NodePoolSpecTemplate#spec
        '''
        result = self._values.get("spec")
        assert result is not None, "Required property 'spec' is missing"
        return typing.cast("NodePoolSpecTemplateSpec", result)

    @builtins.property
    def metadata(self) -> typing.Optional["NodePoolSpecTemplateMetadata"]:
        '''
        :schema: NodePoolSpecTemplate#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["NodePoolSpecTemplateMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodePoolSpecTemplate(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nodepool_shkarpenter.NodePoolSpecTemplateMetadata",
    jsii_struct_bases=[],
    name_mapping={"annotations": "annotations", "labels": "labels"},
)
class NodePoolSpecTemplateMetadata:
    def __init__(
        self,
        *,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''
        :param annotations: annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations
        :param labels: labels is a map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: NodePoolSpecTemplateMetadata
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6ae6fdb9dc297618ab0100b64983576b64f73512f6a47e689fb921f15d8c4034)
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if annotations is not None:
            self._values["annotations"] = annotations
        if labels is not None:
            self._values["labels"] = labels

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.

        They are not
        queryable and should be preserved when modifying objects.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations

        :schema: NodePoolSpecTemplateMetadata#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''labels is a map of string keys and values that can be used to organize and categorize (scope and select) objects.

        May match selectors of replication controllers
        and services.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels

        :schema: NodePoolSpecTemplateMetadata#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodePoolSpecTemplateMetadata(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nodepool_shkarpenter.NodePoolSpecTemplateSpec",
    jsii_struct_bases=[],
    name_mapping={
        "node_class_ref": "nodeClassRef",
        "requirements": "requirements",
        "expire_after": "expireAfter",
        "startup_taints": "startupTaints",
        "taints": "taints",
        "termination_grace_period": "terminationGracePeriod",
    },
)
class NodePoolSpecTemplateSpec:
    def __init__(
        self,
        *,
        node_class_ref: typing.Union["NodePoolSpecTemplateSpecNodeClassRef", typing.Dict[builtins.str, typing.Any]],
        requirements: typing.Sequence[typing.Union["NodePoolSpecTemplateSpecRequirements", typing.Dict[builtins.str, typing.Any]]],
        expire_after: typing.Optional[builtins.str] = None,
        startup_taints: typing.Optional[typing.Sequence[typing.Union["NodePoolSpecTemplateSpecStartupTaints", typing.Dict[builtins.str, typing.Any]]]] = None,
        taints: typing.Optional[typing.Sequence[typing.Union["NodePoolSpecTemplateSpecTaints", typing.Dict[builtins.str, typing.Any]]]] = None,
        termination_grace_period: typing.Optional[builtins.str] = None,
    ) -> None:
        '''NodeClaimTemplateSpec describes the desired state of the NodeClaim in the Nodepool NodeClaimTemplateSpec is used in the NodePool's NodeClaimTemplate, with the resource requests omitted since users are not able to set resource requests in the NodePool.

        :param node_class_ref: NodeClassRef is a reference to an object that defines provider specific configuration.
        :param requirements: Requirements are layered with GetLabels and applied to every node.
        :param expire_after: ExpireAfter is the duration the controller will wait before terminating a node, measured from when the node is created. This is useful to implement features like eventually consistent node upgrade, memory leak protection, and disruption testing.
        :param startup_taints: startupTaints are taints that are applied to nodes upon startup which are expected to be removed automatically within a short period of time, typically by a DaemonSet that tolerates the taint. These are commonly used by daemonsets to allow initialization and enforce startup ordering. StartupTaints are ignored for provisioning purposes in that pods are not required to tolerate a StartupTaint in order to have nodes provisioned for them.
        :param taints: taints will be applied to the NodeClaim's node.
        :param termination_grace_period: TerminationGracePeriod is the maximum duration the controller will wait before forcefully deleting the pods on a node, measured from when deletion is first initiated. Warning: this feature takes precedence over a Pod's terminationGracePeriodSeconds value, and bypasses any blocked PDBs or the karpenter.sh/do-not-disrupt annotation. This field is intended to be used by cluster administrators to enforce that nodes can be cycled within a given time period. When set, drifted nodes will begin draining even if there are pods blocking eviction. Draining will respect PDBs and the do-not-disrupt annotation until the TGP is reached. Karpenter will preemptively delete pods so their terminationGracePeriodSeconds align with the node's terminationGracePeriod. If a pod would be terminated without being granted its full terminationGracePeriodSeconds prior to the node timeout, that pod will be deleted at T = node timeout - pod terminationGracePeriodSeconds. The feature can also be used to allow maximum time limits for long-running jobs which can delay node termination with preStop hooks. If left undefined, the controller will wait indefinitely for pods to be drained.

        :schema: NodePoolSpecTemplateSpec
        '''
        if isinstance(node_class_ref, dict):
            node_class_ref = NodePoolSpecTemplateSpecNodeClassRef(**node_class_ref)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6ec2d4bb41c6ad8e96751bd2eac659ddc67ff5fdd9686d93721d76a35e9c9b77)
            check_type(argname="argument node_class_ref", value=node_class_ref, expected_type=type_hints["node_class_ref"])
            check_type(argname="argument requirements", value=requirements, expected_type=type_hints["requirements"])
            check_type(argname="argument expire_after", value=expire_after, expected_type=type_hints["expire_after"])
            check_type(argname="argument startup_taints", value=startup_taints, expected_type=type_hints["startup_taints"])
            check_type(argname="argument taints", value=taints, expected_type=type_hints["taints"])
            check_type(argname="argument termination_grace_period", value=termination_grace_period, expected_type=type_hints["termination_grace_period"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "node_class_ref": node_class_ref,
            "requirements": requirements,
        }
        if expire_after is not None:
            self._values["expire_after"] = expire_after
        if startup_taints is not None:
            self._values["startup_taints"] = startup_taints
        if taints is not None:
            self._values["taints"] = taints
        if termination_grace_period is not None:
            self._values["termination_grace_period"] = termination_grace_period

    @builtins.property
    def node_class_ref(self) -> "NodePoolSpecTemplateSpecNodeClassRef":
        '''NodeClassRef is a reference to an object that defines provider specific configuration.

        :schema: NodePoolSpecTemplateSpec#nodeClassRef
        '''
        result = self._values.get("node_class_ref")
        assert result is not None, "Required property 'node_class_ref' is missing"
        return typing.cast("NodePoolSpecTemplateSpecNodeClassRef", result)

    @builtins.property
    def requirements(self) -> typing.List["NodePoolSpecTemplateSpecRequirements"]:
        '''Requirements are layered with GetLabels and applied to every node.

        :schema: NodePoolSpecTemplateSpec#requirements
        '''
        result = self._values.get("requirements")
        assert result is not None, "Required property 'requirements' is missing"
        return typing.cast(typing.List["NodePoolSpecTemplateSpecRequirements"], result)

    @builtins.property
    def expire_after(self) -> typing.Optional[builtins.str]:
        '''ExpireAfter is the duration the controller will wait before terminating a node, measured from when the node is created.

        This
        is useful to implement features like eventually consistent node upgrade,
        memory leak protection, and disruption testing.

        :schema: NodePoolSpecTemplateSpec#expireAfter
        '''
        result = self._values.get("expire_after")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def startup_taints(
        self,
    ) -> typing.Optional[typing.List["NodePoolSpecTemplateSpecStartupTaints"]]:
        '''startupTaints are taints that are applied to nodes upon startup which are expected to be removed automatically within a short period of time, typically by a DaemonSet that tolerates the taint.

        These are commonly used by
        daemonsets to allow initialization and enforce startup ordering.  StartupTaints are ignored for provisioning
        purposes in that pods are not required to tolerate a StartupTaint in order to have nodes provisioned for them.

        :schema: NodePoolSpecTemplateSpec#startupTaints
        '''
        result = self._values.get("startup_taints")
        return typing.cast(typing.Optional[typing.List["NodePoolSpecTemplateSpecStartupTaints"]], result)

    @builtins.property
    def taints(self) -> typing.Optional[typing.List["NodePoolSpecTemplateSpecTaints"]]:
        '''taints will be applied to the NodeClaim's node.

        :schema: NodePoolSpecTemplateSpec#taints
        '''
        result = self._values.get("taints")
        return typing.cast(typing.Optional[typing.List["NodePoolSpecTemplateSpecTaints"]], result)

    @builtins.property
    def termination_grace_period(self) -> typing.Optional[builtins.str]:
        '''TerminationGracePeriod is the maximum duration the controller will wait before forcefully deleting the pods on a node, measured from when deletion is first initiated.

        Warning: this feature takes precedence over a Pod's terminationGracePeriodSeconds value, and bypasses any blocked PDBs or the karpenter.sh/do-not-disrupt annotation.

        This field is intended to be used by cluster administrators to enforce that nodes can be cycled within a given time period.
        When set, drifted nodes will begin draining even if there are pods blocking eviction. Draining will respect PDBs and the do-not-disrupt annotation until the TGP is reached.

        Karpenter will preemptively delete pods so their terminationGracePeriodSeconds align with the node's terminationGracePeriod.
        If a pod would be terminated without being granted its full terminationGracePeriodSeconds prior to the node timeout,
        that pod will be deleted at T = node timeout - pod terminationGracePeriodSeconds.

        The feature can also be used to allow maximum time limits for long-running jobs which can delay node termination with preStop hooks.
        If left undefined, the controller will wait indefinitely for pods to be drained.

        :schema: NodePoolSpecTemplateSpec#terminationGracePeriod
        '''
        result = self._values.get("termination_grace_period")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodePoolSpecTemplateSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nodepool_shkarpenter.NodePoolSpecTemplateSpecNodeClassRef",
    jsii_struct_bases=[],
    name_mapping={"group": "group", "kind": "kind", "name": "name"},
)
class NodePoolSpecTemplateSpecNodeClassRef:
    def __init__(
        self,
        *,
        group: builtins.str,
        kind: builtins.str,
        name: builtins.str,
    ) -> None:
        '''NodeClassRef is a reference to an object that defines provider specific configuration.

        :param group: API version of the referent.
        :param kind: Kind of the referent; More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
        :param name: Name of the referent; More info: http://kubernetes.io/docs/user-guide/identifiers#names

        :schema: NodePoolSpecTemplateSpecNodeClassRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ed21da7f149d76e30f04eb32f2490fe04a6eed5523dff1a84670e178f9ac2d10)
            check_type(argname="argument group", value=group, expected_type=type_hints["group"])
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "group": group,
            "kind": kind,
            "name": name,
        }

    @builtins.property
    def group(self) -> builtins.str:
        '''API version of the referent.

        :schema: NodePoolSpecTemplateSpecNodeClassRef#group
        '''
        result = self._values.get("group")
        assert result is not None, "Required property 'group' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def kind(self) -> builtins.str:
        '''Kind of the referent;

        More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"

        :schema: NodePoolSpecTemplateSpecNodeClassRef#kind
        '''
        result = self._values.get("kind")
        assert result is not None, "Required property 'kind' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> builtins.str:
        '''Name of the referent;

        More info: http://kubernetes.io/docs/user-guide/identifiers#names

        :schema: NodePoolSpecTemplateSpecNodeClassRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodePoolSpecTemplateSpecNodeClassRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nodepool_shkarpenter.NodePoolSpecTemplateSpecRequirements",
    jsii_struct_bases=[],
    name_mapping={
        "key": "key",
        "operator": "operator",
        "min_values": "minValues",
        "values": "values",
    },
)
class NodePoolSpecTemplateSpecRequirements:
    def __init__(
        self,
        *,
        key: builtins.str,
        operator: "NodePoolSpecTemplateSpecRequirementsOperator",
        min_values: typing.Optional[jsii.Number] = None,
        values: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''A node selector requirement is a selector that contains values, a key, an operator that relates the key and values and minValues that represent the requirement to have at least that many values.

        :param key: The label key that the selector applies to.
        :param operator: Represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists, DoesNotExist. Gt, Lt, Gte, and Lte.
        :param min_values: This field is ALPHA and can be dropped or replaced at any time MinValues is the minimum number of unique values required to define the flexibility of the specific requirement.
        :param values: An array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. If the operator is Gt, Lt, Gte, or Lte, the values array must have a single element, which will be interpreted as an integer. This array is replaced during a strategic merge patch.

        :schema: NodePoolSpecTemplateSpecRequirements
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__67fe6fadd59a54cef5c868d1a6cc0fef71e4c3940bd92c0a99757f185997eb80)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument operator", value=operator, expected_type=type_hints["operator"])
            check_type(argname="argument min_values", value=min_values, expected_type=type_hints["min_values"])
            check_type(argname="argument values", value=values, expected_type=type_hints["values"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "operator": operator,
        }
        if min_values is not None:
            self._values["min_values"] = min_values
        if values is not None:
            self._values["values"] = values

    @builtins.property
    def key(self) -> builtins.str:
        '''The label key that the selector applies to.

        :schema: NodePoolSpecTemplateSpecRequirements#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def operator(self) -> "NodePoolSpecTemplateSpecRequirementsOperator":
        '''Represents a key's relationship to a set of values.

        Valid operators are In, NotIn, Exists, DoesNotExist. Gt, Lt, Gte, and Lte.

        :schema: NodePoolSpecTemplateSpecRequirements#operator
        '''
        result = self._values.get("operator")
        assert result is not None, "Required property 'operator' is missing"
        return typing.cast("NodePoolSpecTemplateSpecRequirementsOperator", result)

    @builtins.property
    def min_values(self) -> typing.Optional[jsii.Number]:
        '''This field is ALPHA and can be dropped or replaced at any time MinValues is the minimum number of unique values required to define the flexibility of the specific requirement.

        :schema: NodePoolSpecTemplateSpecRequirements#minValues
        '''
        result = self._values.get("min_values")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def values(self) -> typing.Optional[typing.List[builtins.str]]:
        '''An array of string values.

        If the operator is In or NotIn,
        the values array must be non-empty. If the operator is Exists or DoesNotExist,
        the values array must be empty. If the operator is Gt, Lt, Gte, or Lte, the values
        array must have a single element, which will be interpreted as an integer.
        This array is replaced during a strategic merge patch.

        :schema: NodePoolSpecTemplateSpecRequirements#values
        '''
        result = self._values.get("values")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodePoolSpecTemplateSpecRequirements(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="nodepool_shkarpenter.NodePoolSpecTemplateSpecRequirementsOperator"
)
class NodePoolSpecTemplateSpecRequirementsOperator(enum.Enum):
    '''Represents a key's relationship to a set of values.

    Valid operators are In, NotIn, Exists, DoesNotExist. Gt, Lt, Gte, and Lte.

    :schema: NodePoolSpecTemplateSpecRequirementsOperator
    '''

    GTE = "GTE"
    '''Gte.'''
    LTE = "LTE"
    '''Lte.'''
    IN = "IN"
    '''In.'''
    NOT_IN = "NOT_IN"
    '''NotIn.'''
    EXISTS = "EXISTS"
    '''Exists.'''
    DOES_NOT_EXIST = "DOES_NOT_EXIST"
    '''DoesNotExist.'''
    GT = "GT"
    '''Gt.'''
    LT = "LT"
    '''Lt.'''


@jsii.data_type(
    jsii_type="nodepool_shkarpenter.NodePoolSpecTemplateSpecStartupTaints",
    jsii_struct_bases=[],
    name_mapping={
        "effect": "effect",
        "key": "key",
        "time_added": "timeAdded",
        "value": "value",
    },
)
class NodePoolSpecTemplateSpecStartupTaints:
    def __init__(
        self,
        *,
        effect: "NodePoolSpecTemplateSpecStartupTaintsEffect",
        key: builtins.str,
        time_added: typing.Optional[datetime.datetime] = None,
        value: typing.Optional[builtins.str] = None,
    ) -> None:
        '''The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.

        :param effect: Required. The effect of the taint on pods that do not tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute.
        :param key: Required. The taint key to be applied to a node.
        :param time_added: TimeAdded represents the time at which the taint was added.
        :param value: The taint value corresponding to the taint key.

        :schema: NodePoolSpecTemplateSpecStartupTaints
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__224daf302f6aa71494258be5b41a803b84e9071d25c66f526c32a1e0d0acff81)
            check_type(argname="argument effect", value=effect, expected_type=type_hints["effect"])
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument time_added", value=time_added, expected_type=type_hints["time_added"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "effect": effect,
            "key": key,
        }
        if time_added is not None:
            self._values["time_added"] = time_added
        if value is not None:
            self._values["value"] = value

    @builtins.property
    def effect(self) -> "NodePoolSpecTemplateSpecStartupTaintsEffect":
        '''Required.

        The effect of the taint on pods
        that do not tolerate the taint.
        Valid effects are NoSchedule, PreferNoSchedule and NoExecute.

        :schema: NodePoolSpecTemplateSpecStartupTaints#effect
        '''
        result = self._values.get("effect")
        assert result is not None, "Required property 'effect' is missing"
        return typing.cast("NodePoolSpecTemplateSpecStartupTaintsEffect", result)

    @builtins.property
    def key(self) -> builtins.str:
        '''Required.

        The taint key to be applied to a node.

        :schema: NodePoolSpecTemplateSpecStartupTaints#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def time_added(self) -> typing.Optional[datetime.datetime]:
        '''TimeAdded represents the time at which the taint was added.

        :schema: NodePoolSpecTemplateSpecStartupTaints#timeAdded
        '''
        result = self._values.get("time_added")
        return typing.cast(typing.Optional[datetime.datetime], result)

    @builtins.property
    def value(self) -> typing.Optional[builtins.str]:
        '''The taint value corresponding to the taint key.

        :schema: NodePoolSpecTemplateSpecStartupTaints#value
        '''
        result = self._values.get("value")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodePoolSpecTemplateSpecStartupTaints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="nodepool_shkarpenter.NodePoolSpecTemplateSpecStartupTaintsEffect"
)
class NodePoolSpecTemplateSpecStartupTaintsEffect(enum.Enum):
    '''Required.

    The effect of the taint on pods
    that do not tolerate the taint.
    Valid effects are NoSchedule, PreferNoSchedule and NoExecute.

    :schema: NodePoolSpecTemplateSpecStartupTaintsEffect
    '''

    NO_SCHEDULE = "NO_SCHEDULE"
    '''NoSchedule.'''
    PREFER_NO_SCHEDULE = "PREFER_NO_SCHEDULE"
    '''PreferNoSchedule.'''
    NO_EXECUTE = "NO_EXECUTE"
    '''NoExecute.'''


@jsii.data_type(
    jsii_type="nodepool_shkarpenter.NodePoolSpecTemplateSpecTaints",
    jsii_struct_bases=[],
    name_mapping={
        "effect": "effect",
        "key": "key",
        "time_added": "timeAdded",
        "value": "value",
    },
)
class NodePoolSpecTemplateSpecTaints:
    def __init__(
        self,
        *,
        effect: "NodePoolSpecTemplateSpecTaintsEffect",
        key: builtins.str,
        time_added: typing.Optional[datetime.datetime] = None,
        value: typing.Optional[builtins.str] = None,
    ) -> None:
        '''The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.

        :param effect: Required. The effect of the taint on pods that do not tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute.
        :param key: Required. The taint key to be applied to a node.
        :param time_added: TimeAdded represents the time at which the taint was added.
        :param value: The taint value corresponding to the taint key.

        :schema: NodePoolSpecTemplateSpecTaints
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8251e184f149ec5a2c1abc1979a6fd51d0a412d4e9a771ba9fcf7f29641312ce)
            check_type(argname="argument effect", value=effect, expected_type=type_hints["effect"])
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument time_added", value=time_added, expected_type=type_hints["time_added"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "effect": effect,
            "key": key,
        }
        if time_added is not None:
            self._values["time_added"] = time_added
        if value is not None:
            self._values["value"] = value

    @builtins.property
    def effect(self) -> "NodePoolSpecTemplateSpecTaintsEffect":
        '''Required.

        The effect of the taint on pods
        that do not tolerate the taint.
        Valid effects are NoSchedule, PreferNoSchedule and NoExecute.

        :schema: NodePoolSpecTemplateSpecTaints#effect
        '''
        result = self._values.get("effect")
        assert result is not None, "Required property 'effect' is missing"
        return typing.cast("NodePoolSpecTemplateSpecTaintsEffect", result)

    @builtins.property
    def key(self) -> builtins.str:
        '''Required.

        The taint key to be applied to a node.

        :schema: NodePoolSpecTemplateSpecTaints#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def time_added(self) -> typing.Optional[datetime.datetime]:
        '''TimeAdded represents the time at which the taint was added.

        :schema: NodePoolSpecTemplateSpecTaints#timeAdded
        '''
        result = self._values.get("time_added")
        return typing.cast(typing.Optional[datetime.datetime], result)

    @builtins.property
    def value(self) -> typing.Optional[builtins.str]:
        '''The taint value corresponding to the taint key.

        :schema: NodePoolSpecTemplateSpecTaints#value
        '''
        result = self._values.get("value")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "NodePoolSpecTemplateSpecTaints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="nodepool_shkarpenter.NodePoolSpecTemplateSpecTaintsEffect")
class NodePoolSpecTemplateSpecTaintsEffect(enum.Enum):
    '''Required.

    The effect of the taint on pods
    that do not tolerate the taint.
    Valid effects are NoSchedule, PreferNoSchedule and NoExecute.

    :schema: NodePoolSpecTemplateSpecTaintsEffect
    '''

    NO_SCHEDULE = "NO_SCHEDULE"
    '''NoSchedule.'''
    PREFER_NO_SCHEDULE = "PREFER_NO_SCHEDULE"
    '''PreferNoSchedule.'''
    NO_EXECUTE = "NO_EXECUTE"
    '''NoExecute.'''


__all__ = [
    "NodePool",
    "NodePoolProps",
    "NodePoolSpec",
    "NodePoolSpecDisruption",
    "NodePoolSpecDisruptionBudgets",
    "NodePoolSpecDisruptionBudgetsReasons",
    "NodePoolSpecDisruptionConsolidationPolicy",
    "NodePoolSpecLimits",
    "NodePoolSpecTemplate",
    "NodePoolSpecTemplateMetadata",
    "NodePoolSpecTemplateSpec",
    "NodePoolSpecTemplateSpecNodeClassRef",
    "NodePoolSpecTemplateSpecRequirements",
    "NodePoolSpecTemplateSpecRequirementsOperator",
    "NodePoolSpecTemplateSpecStartupTaints",
    "NodePoolSpecTemplateSpecStartupTaintsEffect",
    "NodePoolSpecTemplateSpecTaints",
    "NodePoolSpecTemplateSpecTaintsEffect",
]

publication.publish()

def _typecheckingstub__cdfc22c611adf81f01a9ca0bb1d8937705720a0ab0cc951dbfa028516d85c708(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    spec: typing.Union[NodePoolSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7022c043ab5e67777019ac8bc8a0f41a5e310a0ac73dcd4fc0f26dd9d80d4071(
    *,
    spec: typing.Union[NodePoolSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d04b6b70c68c65875ce3c22076bf00e592b1009af9393f5cb136ace185297038(
    *,
    template: typing.Union[NodePoolSpecTemplate, typing.Dict[builtins.str, typing.Any]],
    disruption: typing.Optional[typing.Union[NodePoolSpecDisruption, typing.Dict[builtins.str, typing.Any]]] = None,
    limits: typing.Optional[typing.Mapping[builtins.str, NodePoolSpecLimits]] = None,
    replicas: typing.Optional[jsii.Number] = None,
    weight: typing.Optional[jsii.Number] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5d6991b3f1af40e2aa24d02ad17bfc6e216fc901860130cba23d9c153493fede(
    *,
    consolidate_after: builtins.str,
    budgets: typing.Optional[typing.Sequence[typing.Union[NodePoolSpecDisruptionBudgets, typing.Dict[builtins.str, typing.Any]]]] = None,
    consolidation_policy: typing.Optional[NodePoolSpecDisruptionConsolidationPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__bfeb98805ee8a7ed4f89c4760317eefa5a0525a33a1ee0dcb7af23a8d647dd05(
    *,
    nodes: builtins.str,
    duration: typing.Optional[builtins.str] = None,
    reasons: typing.Optional[typing.Sequence[NodePoolSpecDisruptionBudgetsReasons]] = None,
    schedule: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__44e00c3de0eb9ed7d28809cbeceb120612c1a793c813178fb6ad3bc7f6c59f89(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b1bb53f1a52f226023426bf71ea8db0f8f1e65c7d2c658386a0c8a8ef9572430(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7195012aa8fe52cdddd9f0d8338516d2976f03055a74c65c1cdc209539f4c88d(
    *,
    spec: typing.Union[NodePoolSpecTemplateSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[NodePoolSpecTemplateMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6ae6fdb9dc297618ab0100b64983576b64f73512f6a47e689fb921f15d8c4034(
    *,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6ec2d4bb41c6ad8e96751bd2eac659ddc67ff5fdd9686d93721d76a35e9c9b77(
    *,
    node_class_ref: typing.Union[NodePoolSpecTemplateSpecNodeClassRef, typing.Dict[builtins.str, typing.Any]],
    requirements: typing.Sequence[typing.Union[NodePoolSpecTemplateSpecRequirements, typing.Dict[builtins.str, typing.Any]]],
    expire_after: typing.Optional[builtins.str] = None,
    startup_taints: typing.Optional[typing.Sequence[typing.Union[NodePoolSpecTemplateSpecStartupTaints, typing.Dict[builtins.str, typing.Any]]]] = None,
    taints: typing.Optional[typing.Sequence[typing.Union[NodePoolSpecTemplateSpecTaints, typing.Dict[builtins.str, typing.Any]]]] = None,
    termination_grace_period: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ed21da7f149d76e30f04eb32f2490fe04a6eed5523dff1a84670e178f9ac2d10(
    *,
    group: builtins.str,
    kind: builtins.str,
    name: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__67fe6fadd59a54cef5c868d1a6cc0fef71e4c3940bd92c0a99757f185997eb80(
    *,
    key: builtins.str,
    operator: NodePoolSpecTemplateSpecRequirementsOperator,
    min_values: typing.Optional[jsii.Number] = None,
    values: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__224daf302f6aa71494258be5b41a803b84e9071d25c66f526c32a1e0d0acff81(
    *,
    effect: NodePoolSpecTemplateSpecStartupTaintsEffect,
    key: builtins.str,
    time_added: typing.Optional[datetime.datetime] = None,
    value: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8251e184f149ec5a2c1abc1979a6fd51d0a412d4e9a771ba9fcf7f29641312ce(
    *,
    effect: NodePoolSpecTemplateSpecTaintsEffect,
    key: builtins.str,
    time_added: typing.Optional[datetime.datetime] = None,
    value: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass
