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


class ScaledObject(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="scaledobject_shkeda.ScaledObject",
):
    '''ScaledObject is a specification for a ScaledObject resource.

    :schema: ScaledObject
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        spec: typing.Union["ScaledObjectSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ScaledObject" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param spec: ScaledObjectSpec is the spec for a ScaledObject resource.
        :param metadata: 
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1a13b928fb44c940ca6f756288f97137738148ce22c09b410f4ac309676b7b04)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ScaledObjectProps(spec=spec, metadata=metadata)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        spec: typing.Union["ScaledObjectSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ScaledObject".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param spec: ScaledObjectSpec is the spec for a ScaledObject resource.
        :param metadata: 
        '''
        props = ScaledObjectProps(spec=spec, metadata=metadata)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ScaledObject".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectProps",
    jsii_struct_bases=[],
    name_mapping={"spec": "spec", "metadata": "metadata"},
)
class ScaledObjectProps:
    def __init__(
        self,
        *,
        spec: typing.Union["ScaledObjectSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ScaledObject is a specification for a ScaledObject resource.

        :param spec: ScaledObjectSpec is the spec for a ScaledObject resource.
        :param metadata: 

        :schema: ScaledObject
        '''
        if isinstance(spec, dict):
            spec = ScaledObjectSpec(**spec)
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8f7a03581124444630a3a53fbe34045aba691bb92a94e7a6528c0dc0379dfeae)
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "spec": spec,
        }
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def spec(self) -> "ScaledObjectSpec":
        '''ScaledObjectSpec is the spec for a ScaledObject resource.

        :schema: ScaledObject#spec
        '''
        result = self._values.get("spec")
        assert result is not None, "Required property 'spec' is missing"
        return typing.cast("ScaledObjectSpec", result)

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: ScaledObject#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectSpec",
    jsii_struct_bases=[],
    name_mapping={
        "scale_target_ref": "scaleTargetRef",
        "triggers": "triggers",
        "advanced": "advanced",
        "cooldown_period": "cooldownPeriod",
        "fallback": "fallback",
        "idle_replica_count": "idleReplicaCount",
        "initial_cooldown_period": "initialCooldownPeriod",
        "max_replica_count": "maxReplicaCount",
        "min_replica_count": "minReplicaCount",
        "polling_interval": "pollingInterval",
    },
)
class ScaledObjectSpec:
    def __init__(
        self,
        *,
        scale_target_ref: typing.Union["ScaledObjectSpecScaleTargetRef", typing.Dict[builtins.str, typing.Any]],
        triggers: typing.Sequence[typing.Union["ScaledObjectSpecTriggers", typing.Dict[builtins.str, typing.Any]]],
        advanced: typing.Optional[typing.Union["ScaledObjectSpecAdvanced", typing.Dict[builtins.str, typing.Any]]] = None,
        cooldown_period: typing.Optional[jsii.Number] = None,
        fallback: typing.Optional[typing.Union["ScaledObjectSpecFallback", typing.Dict[builtins.str, typing.Any]]] = None,
        idle_replica_count: typing.Optional[jsii.Number] = None,
        initial_cooldown_period: typing.Optional[jsii.Number] = None,
        max_replica_count: typing.Optional[jsii.Number] = None,
        min_replica_count: typing.Optional[jsii.Number] = None,
        polling_interval: typing.Optional[jsii.Number] = None,
    ) -> None:
        '''ScaledObjectSpec is the spec for a ScaledObject resource.

        :param scale_target_ref: ScaleTarget holds the reference to the scale target Object.
        :param triggers: 
        :param advanced: AdvancedConfig specifies advance scaling options.
        :param cooldown_period: 
        :param fallback: Fallback is the spec for fallback options.
        :param idle_replica_count: 
        :param initial_cooldown_period: 
        :param max_replica_count: 
        :param min_replica_count: 
        :param polling_interval: 

        :schema: ScaledObjectSpec
        '''
        if isinstance(scale_target_ref, dict):
            scale_target_ref = ScaledObjectSpecScaleTargetRef(**scale_target_ref)
        if isinstance(advanced, dict):
            advanced = ScaledObjectSpecAdvanced(**advanced)
        if isinstance(fallback, dict):
            fallback = ScaledObjectSpecFallback(**fallback)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8254689e43dc29f7cb4c59f9ae2ec6d52b8b593b018289545e5b54cf783ccad5)
            check_type(argname="argument scale_target_ref", value=scale_target_ref, expected_type=type_hints["scale_target_ref"])
            check_type(argname="argument triggers", value=triggers, expected_type=type_hints["triggers"])
            check_type(argname="argument advanced", value=advanced, expected_type=type_hints["advanced"])
            check_type(argname="argument cooldown_period", value=cooldown_period, expected_type=type_hints["cooldown_period"])
            check_type(argname="argument fallback", value=fallback, expected_type=type_hints["fallback"])
            check_type(argname="argument idle_replica_count", value=idle_replica_count, expected_type=type_hints["idle_replica_count"])
            check_type(argname="argument initial_cooldown_period", value=initial_cooldown_period, expected_type=type_hints["initial_cooldown_period"])
            check_type(argname="argument max_replica_count", value=max_replica_count, expected_type=type_hints["max_replica_count"])
            check_type(argname="argument min_replica_count", value=min_replica_count, expected_type=type_hints["min_replica_count"])
            check_type(argname="argument polling_interval", value=polling_interval, expected_type=type_hints["polling_interval"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "scale_target_ref": scale_target_ref,
            "triggers": triggers,
        }
        if advanced is not None:
            self._values["advanced"] = advanced
        if cooldown_period is not None:
            self._values["cooldown_period"] = cooldown_period
        if fallback is not None:
            self._values["fallback"] = fallback
        if idle_replica_count is not None:
            self._values["idle_replica_count"] = idle_replica_count
        if initial_cooldown_period is not None:
            self._values["initial_cooldown_period"] = initial_cooldown_period
        if max_replica_count is not None:
            self._values["max_replica_count"] = max_replica_count
        if min_replica_count is not None:
            self._values["min_replica_count"] = min_replica_count
        if polling_interval is not None:
            self._values["polling_interval"] = polling_interval

    @builtins.property
    def scale_target_ref(self) -> "ScaledObjectSpecScaleTargetRef":
        '''ScaleTarget holds the reference to the scale target Object.

        :schema: ScaledObjectSpec#scaleTargetRef
        '''
        result = self._values.get("scale_target_ref")
        assert result is not None, "Required property 'scale_target_ref' is missing"
        return typing.cast("ScaledObjectSpecScaleTargetRef", result)

    @builtins.property
    def triggers(self) -> typing.List["ScaledObjectSpecTriggers"]:
        '''
        :schema: ScaledObjectSpec#triggers
        '''
        result = self._values.get("triggers")
        assert result is not None, "Required property 'triggers' is missing"
        return typing.cast(typing.List["ScaledObjectSpecTriggers"], result)

    @builtins.property
    def advanced(self) -> typing.Optional["ScaledObjectSpecAdvanced"]:
        '''AdvancedConfig specifies advance scaling options.

        :schema: ScaledObjectSpec#advanced
        '''
        result = self._values.get("advanced")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvanced"], result)

    @builtins.property
    def cooldown_period(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: ScaledObjectSpec#cooldownPeriod
        '''
        result = self._values.get("cooldown_period")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def fallback(self) -> typing.Optional["ScaledObjectSpecFallback"]:
        '''Fallback is the spec for fallback options.

        :schema: ScaledObjectSpec#fallback
        '''
        result = self._values.get("fallback")
        return typing.cast(typing.Optional["ScaledObjectSpecFallback"], result)

    @builtins.property
    def idle_replica_count(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: ScaledObjectSpec#idleReplicaCount
        '''
        result = self._values.get("idle_replica_count")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def initial_cooldown_period(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: ScaledObjectSpec#initialCooldownPeriod
        '''
        result = self._values.get("initial_cooldown_period")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def max_replica_count(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: ScaledObjectSpec#maxReplicaCount
        '''
        result = self._values.get("max_replica_count")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def min_replica_count(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: ScaledObjectSpec#minReplicaCount
        '''
        result = self._values.get("min_replica_count")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def polling_interval(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: ScaledObjectSpec#pollingInterval
        '''
        result = self._values.get("polling_interval")
        return typing.cast(typing.Optional[jsii.Number], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectSpecAdvanced",
    jsii_struct_bases=[],
    name_mapping={
        "horizontal_pod_autoscaler_config": "horizontalPodAutoscalerConfig",
        "restore_to_original_replica_count": "restoreToOriginalReplicaCount",
        "scaling_modifiers": "scalingModifiers",
    },
)
class ScaledObjectSpecAdvanced:
    def __init__(
        self,
        *,
        horizontal_pod_autoscaler_config: typing.Optional[typing.Union["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig", typing.Dict[builtins.str, typing.Any]]] = None,
        restore_to_original_replica_count: typing.Optional[builtins.bool] = None,
        scaling_modifiers: typing.Optional[typing.Union["ScaledObjectSpecAdvancedScalingModifiers", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''AdvancedConfig specifies advance scaling options.

        :param horizontal_pod_autoscaler_config: HorizontalPodAutoscalerConfig specifies horizontal scale config.
        :param restore_to_original_replica_count: 
        :param scaling_modifiers: ScalingModifiers describes advanced scaling logic options like formula.

        :schema: ScaledObjectSpecAdvanced
        '''
        if isinstance(horizontal_pod_autoscaler_config, dict):
            horizontal_pod_autoscaler_config = ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig(**horizontal_pod_autoscaler_config)
        if isinstance(scaling_modifiers, dict):
            scaling_modifiers = ScaledObjectSpecAdvancedScalingModifiers(**scaling_modifiers)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__236e1abc67ab0735372b26d12ab8e7ad23ae63176924a9f21bf1ccd6733a1e68)
            check_type(argname="argument horizontal_pod_autoscaler_config", value=horizontal_pod_autoscaler_config, expected_type=type_hints["horizontal_pod_autoscaler_config"])
            check_type(argname="argument restore_to_original_replica_count", value=restore_to_original_replica_count, expected_type=type_hints["restore_to_original_replica_count"])
            check_type(argname="argument scaling_modifiers", value=scaling_modifiers, expected_type=type_hints["scaling_modifiers"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if horizontal_pod_autoscaler_config is not None:
            self._values["horizontal_pod_autoscaler_config"] = horizontal_pod_autoscaler_config
        if restore_to_original_replica_count is not None:
            self._values["restore_to_original_replica_count"] = restore_to_original_replica_count
        if scaling_modifiers is not None:
            self._values["scaling_modifiers"] = scaling_modifiers

    @builtins.property
    def horizontal_pod_autoscaler_config(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig"]:
        '''HorizontalPodAutoscalerConfig specifies horizontal scale config.

        :schema: ScaledObjectSpecAdvanced#horizontalPodAutoscalerConfig
        '''
        result = self._values.get("horizontal_pod_autoscaler_config")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig"], result)

    @builtins.property
    def restore_to_original_replica_count(self) -> typing.Optional[builtins.bool]:
        '''
        :schema: ScaledObjectSpecAdvanced#restoreToOriginalReplicaCount
        '''
        result = self._values.get("restore_to_original_replica_count")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def scaling_modifiers(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedScalingModifiers"]:
        '''ScalingModifiers describes advanced scaling logic options like formula.

        :schema: ScaledObjectSpecAdvanced#scalingModifiers
        '''
        result = self._values.get("scaling_modifiers")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedScalingModifiers"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvanced(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig",
    jsii_struct_bases=[],
    name_mapping={"behavior": "behavior", "name": "name"},
)
class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig:
    def __init__(
        self,
        *,
        behavior: typing.Optional[typing.Union["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior", typing.Dict[builtins.str, typing.Any]]] = None,
        name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''HorizontalPodAutoscalerConfig specifies horizontal scale config.

        :param behavior: HorizontalPodAutoscalerBehavior configures the scaling behavior of the target in both Up and Down directions (scaleUp and scaleDown fields respectively).
        :param name: 

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig
        '''
        if isinstance(behavior, dict):
            behavior = ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior(**behavior)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1c8d0fc4d981c4f370d2f15d5aae687d7ce6d374b1e544af07cc760db556522c)
            check_type(argname="argument behavior", value=behavior, expected_type=type_hints["behavior"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if behavior is not None:
            self._values["behavior"] = behavior
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def behavior(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior"]:
        '''HorizontalPodAutoscalerBehavior configures the scaling behavior of the target in both Up and Down directions (scaleUp and scaleDown fields respectively).

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig#behavior
        '''
        result = self._values.get("behavior")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior"], result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior",
    jsii_struct_bases=[],
    name_mapping={"scale_down": "scaleDown", "scale_up": "scaleUp"},
)
class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior:
    def __init__(
        self,
        *,
        scale_down: typing.Optional[typing.Union["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown", typing.Dict[builtins.str, typing.Any]]] = None,
        scale_up: typing.Optional[typing.Union["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''HorizontalPodAutoscalerBehavior configures the scaling behavior of the target in both Up and Down directions (scaleUp and scaleDown fields respectively).

        :param scale_down: scaleDown is scaling policy for scaling Down. If not set, the default value is to allow to scale down to minReplicas pods, with a 300 second stabilization window (i.e., the highest recommendation for the last 300sec is used).
        :param scale_up: scaleUp is scaling policy for scaling Up. If not set, the default value is the higher of: - increase no more than 4 pods per 60 seconds - double the number of pods per 60 seconds No stabilization is used.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior
        '''
        if isinstance(scale_down, dict):
            scale_down = ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown(**scale_down)
        if isinstance(scale_up, dict):
            scale_up = ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp(**scale_up)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d15374c27a29c30b346384d40216b7eae91c5a0419d3376b6f043cc22a278243)
            check_type(argname="argument scale_down", value=scale_down, expected_type=type_hints["scale_down"])
            check_type(argname="argument scale_up", value=scale_up, expected_type=type_hints["scale_up"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if scale_down is not None:
            self._values["scale_down"] = scale_down
        if scale_up is not None:
            self._values["scale_up"] = scale_up

    @builtins.property
    def scale_down(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown"]:
        '''scaleDown is scaling policy for scaling Down.

        If not set, the default value is to allow to scale down to minReplicas pods, with a
        300 second stabilization window (i.e., the highest recommendation for
        the last 300sec is used).

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior#scaleDown
        '''
        result = self._values.get("scale_down")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown"], result)

    @builtins.property
    def scale_up(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp"]:
        '''scaleUp is scaling policy for scaling Up.

        If not set, the default value is the higher of:

        - increase no more than 4 pods per 60 seconds
        - double the number of pods per 60 seconds
          No stabilization is used.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior#scaleUp
        '''
        result = self._values.get("scale_up")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown",
    jsii_struct_bases=[],
    name_mapping={
        "policies": "policies",
        "select_policy": "selectPolicy",
        "stabilization_window_seconds": "stabilizationWindowSeconds",
        "tolerance": "tolerance",
    },
)
class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown:
    def __init__(
        self,
        *,
        policies: typing.Optional[typing.Sequence[typing.Union["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies", typing.Dict[builtins.str, typing.Any]]]] = None,
        select_policy: typing.Optional[builtins.str] = None,
        stabilization_window_seconds: typing.Optional[jsii.Number] = None,
        tolerance: typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance"] = None,
    ) -> None:
        '''scaleDown is scaling policy for scaling Down.

        If not set, the default value is to allow to scale down to minReplicas pods, with a
        300 second stabilization window (i.e., the highest recommendation for
        the last 300sec is used).

        :param policies: policies is a list of potential scaling polices which can be used during scaling. If not set, use the default values: - For scale up: allow doubling the number of pods, or an absolute change of 4 pods in a 15s window. - For scale down: allow all pods to be removed in a 15s window.
        :param select_policy: selectPolicy is used to specify which policy should be used. If not set, the default value Max is used.
        :param stabilization_window_seconds: stabilizationWindowSeconds is the number of seconds for which past recommendations should be considered while scaling up or scaling down. StabilizationWindowSeconds must be greater than or equal to zero and less than or equal to 3600 (one hour). If not set, use the default values: - For scale up: 0 (i.e. no stabilization is done). - For scale down: 300 (i.e. the stabilization window is 300 seconds long).
        :param tolerance: tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas (e.g. 0.01 for 1%). Must be greater than or equal to zero. If not set, the default cluster-wide tolerance is applied (by default 10%). For example, if autoscaling is configured with a memory consumption target of 100Mi, and scale-down and scale-up tolerances of 5% and 1% respectively, scaling will be triggered when the actual consumption falls below 95Mi or exceeds 101Mi. This is an alpha field and requires enabling the HPAConfigurableTolerance feature gate.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d88eac50bd5d05aca0382666d88e551f24a7745044b9d40849286e567b3d05b8)
            check_type(argname="argument policies", value=policies, expected_type=type_hints["policies"])
            check_type(argname="argument select_policy", value=select_policy, expected_type=type_hints["select_policy"])
            check_type(argname="argument stabilization_window_seconds", value=stabilization_window_seconds, expected_type=type_hints["stabilization_window_seconds"])
            check_type(argname="argument tolerance", value=tolerance, expected_type=type_hints["tolerance"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if policies is not None:
            self._values["policies"] = policies
        if select_policy is not None:
            self._values["select_policy"] = select_policy
        if stabilization_window_seconds is not None:
            self._values["stabilization_window_seconds"] = stabilization_window_seconds
        if tolerance is not None:
            self._values["tolerance"] = tolerance

    @builtins.property
    def policies(
        self,
    ) -> typing.Optional[typing.List["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies"]]:
        '''policies is a list of potential scaling polices which can be used during scaling.

        If not set, use the default values:

        - For scale up: allow doubling the number of pods, or an absolute change of 4 pods in a 15s window.
        - For scale down: allow all pods to be removed in a 15s window.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown#policies
        '''
        result = self._values.get("policies")
        return typing.cast(typing.Optional[typing.List["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies"]], result)

    @builtins.property
    def select_policy(self) -> typing.Optional[builtins.str]:
        '''selectPolicy is used to specify which policy should be used.

        If not set, the default value Max is used.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown#selectPolicy
        '''
        result = self._values.get("select_policy")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def stabilization_window_seconds(self) -> typing.Optional[jsii.Number]:
        '''stabilizationWindowSeconds is the number of seconds for which past recommendations should be considered while scaling up or scaling down.

        StabilizationWindowSeconds must be greater than or equal to zero and less than or equal to 3600 (one hour).
        If not set, use the default values:

        - For scale up: 0 (i.e. no stabilization is done).
        - For scale down: 300 (i.e. the stabilization window is 300 seconds long).

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown#stabilizationWindowSeconds
        '''
        result = self._values.get("stabilization_window_seconds")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def tolerance(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance"]:
        '''tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas (e.g. 0.01 for 1%). Must be greater than or equal to zero. If not set, the default cluster-wide tolerance is applied (by default 10%).

        For example, if autoscaling is configured with a memory consumption target of 100Mi,
        and scale-down and scale-up tolerances of 5% and 1% respectively, scaling will be
        triggered when the actual consumption falls below 95Mi or exceeds 101Mi.

        This is an alpha field and requires enabling the HPAConfigurableTolerance
        feature gate.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown#tolerance
        '''
        result = self._values.get("tolerance")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies",
    jsii_struct_bases=[],
    name_mapping={"period_seconds": "periodSeconds", "type": "type", "value": "value"},
)
class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies:
    def __init__(
        self,
        *,
        period_seconds: jsii.Number,
        type: builtins.str,
        value: jsii.Number,
    ) -> None:
        '''HPAScalingPolicy is a single policy which must hold true for a specified past interval.

        :param period_seconds: periodSeconds specifies the window of time for which the policy should hold true. PeriodSeconds must be greater than zero and less than or equal to 1800 (30 min).
        :param type: type is used to specify the scaling policy.
        :param value: value contains the amount of change which is permitted by the policy. It must be greater than zero

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2154d8ed479f5c90197b6a8bef61e94c945a35acbbf3fb843694825cf4e8160d)
            check_type(argname="argument period_seconds", value=period_seconds, expected_type=type_hints["period_seconds"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "period_seconds": period_seconds,
            "type": type,
            "value": value,
        }

    @builtins.property
    def period_seconds(self) -> jsii.Number:
        '''periodSeconds specifies the window of time for which the policy should hold true.

        PeriodSeconds must be greater than zero and less than or equal to 1800 (30 min).

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies#periodSeconds
        '''
        result = self._values.get("period_seconds")
        assert result is not None, "Required property 'period_seconds' is missing"
        return typing.cast(jsii.Number, result)

    @builtins.property
    def type(self) -> builtins.str:
        '''type is used to specify the scaling policy.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies#type
        '''
        result = self._values.get("type")
        assert result is not None, "Required property 'type' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def value(self) -> jsii.Number:
        '''value contains the amount of change which is permitted by the policy.

        It must be greater than zero

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies#value
        '''
        result = self._values.get("value")
        assert result is not None, "Required property 'value' is missing"
        return typing.cast(jsii.Number, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance(
    metaclass=jsii.JSIIMeta,
    jsii_type="scaledobject_shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance",
):
    '''tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas (e.g. 0.01 for 1%). Must be greater than or equal to zero. If not set, the default cluster-wide tolerance is applied (by default 10%).

    For example, if autoscaling is configured with a memory consumption target of 100Mi,
    and scale-down and scale-up tolerances of 5% and 1% respectively, scaling will be
    triggered when the actual consumption falls below 95Mi or exceeds 101Mi.

    This is an alpha field and requires enabling the HPAConfigurableTolerance
    feature gate.

    :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6cd0f9298b0989f5658de3ade07776330cb07d240802c5b560fa5c4f1563907a)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__60f37f78d724be6930cdfc3d86498fbf8532cacae20f431c5d3bb63b9bfcaacd)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp",
    jsii_struct_bases=[],
    name_mapping={
        "policies": "policies",
        "select_policy": "selectPolicy",
        "stabilization_window_seconds": "stabilizationWindowSeconds",
        "tolerance": "tolerance",
    },
)
class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp:
    def __init__(
        self,
        *,
        policies: typing.Optional[typing.Sequence[typing.Union["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies", typing.Dict[builtins.str, typing.Any]]]] = None,
        select_policy: typing.Optional[builtins.str] = None,
        stabilization_window_seconds: typing.Optional[jsii.Number] = None,
        tolerance: typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance"] = None,
    ) -> None:
        '''scaleUp is scaling policy for scaling Up.

        If not set, the default value is the higher of:

        - increase no more than 4 pods per 60 seconds
        - double the number of pods per 60 seconds
          No stabilization is used.

        :param policies: policies is a list of potential scaling polices which can be used during scaling. If not set, use the default values: - For scale up: allow doubling the number of pods, or an absolute change of 4 pods in a 15s window. - For scale down: allow all pods to be removed in a 15s window.
        :param select_policy: selectPolicy is used to specify which policy should be used. If not set, the default value Max is used.
        :param stabilization_window_seconds: stabilizationWindowSeconds is the number of seconds for which past recommendations should be considered while scaling up or scaling down. StabilizationWindowSeconds must be greater than or equal to zero and less than or equal to 3600 (one hour). If not set, use the default values: - For scale up: 0 (i.e. no stabilization is done). - For scale down: 300 (i.e. the stabilization window is 300 seconds long).
        :param tolerance: tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas (e.g. 0.01 for 1%). Must be greater than or equal to zero. If not set, the default cluster-wide tolerance is applied (by default 10%). For example, if autoscaling is configured with a memory consumption target of 100Mi, and scale-down and scale-up tolerances of 5% and 1% respectively, scaling will be triggered when the actual consumption falls below 95Mi or exceeds 101Mi. This is an alpha field and requires enabling the HPAConfigurableTolerance feature gate.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d60da7a822621bb28d85a31208f054f5c5b8cdd2739316b89fa7933acaddbc67)
            check_type(argname="argument policies", value=policies, expected_type=type_hints["policies"])
            check_type(argname="argument select_policy", value=select_policy, expected_type=type_hints["select_policy"])
            check_type(argname="argument stabilization_window_seconds", value=stabilization_window_seconds, expected_type=type_hints["stabilization_window_seconds"])
            check_type(argname="argument tolerance", value=tolerance, expected_type=type_hints["tolerance"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if policies is not None:
            self._values["policies"] = policies
        if select_policy is not None:
            self._values["select_policy"] = select_policy
        if stabilization_window_seconds is not None:
            self._values["stabilization_window_seconds"] = stabilization_window_seconds
        if tolerance is not None:
            self._values["tolerance"] = tolerance

    @builtins.property
    def policies(
        self,
    ) -> typing.Optional[typing.List["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies"]]:
        '''policies is a list of potential scaling polices which can be used during scaling.

        If not set, use the default values:

        - For scale up: allow doubling the number of pods, or an absolute change of 4 pods in a 15s window.
        - For scale down: allow all pods to be removed in a 15s window.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp#policies
        '''
        result = self._values.get("policies")
        return typing.cast(typing.Optional[typing.List["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies"]], result)

    @builtins.property
    def select_policy(self) -> typing.Optional[builtins.str]:
        '''selectPolicy is used to specify which policy should be used.

        If not set, the default value Max is used.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp#selectPolicy
        '''
        result = self._values.get("select_policy")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def stabilization_window_seconds(self) -> typing.Optional[jsii.Number]:
        '''stabilizationWindowSeconds is the number of seconds for which past recommendations should be considered while scaling up or scaling down.

        StabilizationWindowSeconds must be greater than or equal to zero and less than or equal to 3600 (one hour).
        If not set, use the default values:

        - For scale up: 0 (i.e. no stabilization is done).
        - For scale down: 300 (i.e. the stabilization window is 300 seconds long).

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp#stabilizationWindowSeconds
        '''
        result = self._values.get("stabilization_window_seconds")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def tolerance(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance"]:
        '''tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas (e.g. 0.01 for 1%). Must be greater than or equal to zero. If not set, the default cluster-wide tolerance is applied (by default 10%).

        For example, if autoscaling is configured with a memory consumption target of 100Mi,
        and scale-down and scale-up tolerances of 5% and 1% respectively, scaling will be
        triggered when the actual consumption falls below 95Mi or exceeds 101Mi.

        This is an alpha field and requires enabling the HPAConfigurableTolerance
        feature gate.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp#tolerance
        '''
        result = self._values.get("tolerance")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies",
    jsii_struct_bases=[],
    name_mapping={"period_seconds": "periodSeconds", "type": "type", "value": "value"},
)
class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies:
    def __init__(
        self,
        *,
        period_seconds: jsii.Number,
        type: builtins.str,
        value: jsii.Number,
    ) -> None:
        '''HPAScalingPolicy is a single policy which must hold true for a specified past interval.

        :param period_seconds: periodSeconds specifies the window of time for which the policy should hold true. PeriodSeconds must be greater than zero and less than or equal to 1800 (30 min).
        :param type: type is used to specify the scaling policy.
        :param value: value contains the amount of change which is permitted by the policy. It must be greater than zero

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b620867833b2ec63663278cc31526ca62f57435ef4a3ab59cb0384a6b29f3f0d)
            check_type(argname="argument period_seconds", value=period_seconds, expected_type=type_hints["period_seconds"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "period_seconds": period_seconds,
            "type": type,
            "value": value,
        }

    @builtins.property
    def period_seconds(self) -> jsii.Number:
        '''periodSeconds specifies the window of time for which the policy should hold true.

        PeriodSeconds must be greater than zero and less than or equal to 1800 (30 min).

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies#periodSeconds
        '''
        result = self._values.get("period_seconds")
        assert result is not None, "Required property 'period_seconds' is missing"
        return typing.cast(jsii.Number, result)

    @builtins.property
    def type(self) -> builtins.str:
        '''type is used to specify the scaling policy.

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies#type
        '''
        result = self._values.get("type")
        assert result is not None, "Required property 'type' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def value(self) -> jsii.Number:
        '''value contains the amount of change which is permitted by the policy.

        It must be greater than zero

        :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies#value
        '''
        result = self._values.get("value")
        assert result is not None, "Required property 'value' is missing"
        return typing.cast(jsii.Number, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance(
    metaclass=jsii.JSIIMeta,
    jsii_type="scaledobject_shkeda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance",
):
    '''tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas (e.g. 0.01 for 1%). Must be greater than or equal to zero. If not set, the default cluster-wide tolerance is applied (by default 10%).

    For example, if autoscaling is configured with a memory consumption target of 100Mi,
    and scale-down and scale-up tolerances of 5% and 1% respectively, scaling will be
    triggered when the actual consumption falls below 95Mi or exceeds 101Mi.

    This is an alpha field and requires enabling the HPAConfigurableTolerance
    feature gate.

    :schema: ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__75a0de2c706c8fc7401feb6f8950cf3b234fadf903e6db03e071a2eac31ab5d0)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8ea223abefbd92b8e27100be8b4a74714a757d7db146e0e56063440565fd3432)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectSpecAdvancedScalingModifiers",
    jsii_struct_bases=[],
    name_mapping={
        "activation_target": "activationTarget",
        "formula": "formula",
        "metric_type": "metricType",
        "target": "target",
    },
)
class ScaledObjectSpecAdvancedScalingModifiers:
    def __init__(
        self,
        *,
        activation_target: typing.Optional[builtins.str] = None,
        formula: typing.Optional[builtins.str] = None,
        metric_type: typing.Optional["ScaledObjectSpecAdvancedScalingModifiersMetricType"] = None,
        target: typing.Optional[builtins.str] = None,
    ) -> None:
        '''ScalingModifiers describes advanced scaling logic options like formula.

        :param activation_target: 
        :param formula: 
        :param metric_type: MetricTargetType specifies the type of metric being targeted, and should be either "Value", "AverageValue", or "Utilization".
        :param target: 

        :schema: ScaledObjectSpecAdvancedScalingModifiers
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9d06258e3835fc2b7fee0b00d4d2994809fe83f388b36e191aea927f1d747146)
            check_type(argname="argument activation_target", value=activation_target, expected_type=type_hints["activation_target"])
            check_type(argname="argument formula", value=formula, expected_type=type_hints["formula"])
            check_type(argname="argument metric_type", value=metric_type, expected_type=type_hints["metric_type"])
            check_type(argname="argument target", value=target, expected_type=type_hints["target"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if activation_target is not None:
            self._values["activation_target"] = activation_target
        if formula is not None:
            self._values["formula"] = formula
        if metric_type is not None:
            self._values["metric_type"] = metric_type
        if target is not None:
            self._values["target"] = target

    @builtins.property
    def activation_target(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecAdvancedScalingModifiers#activationTarget
        '''
        result = self._values.get("activation_target")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def formula(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecAdvancedScalingModifiers#formula
        '''
        result = self._values.get("formula")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def metric_type(
        self,
    ) -> typing.Optional["ScaledObjectSpecAdvancedScalingModifiersMetricType"]:
        '''MetricTargetType specifies the type of metric being targeted, and should be either "Value", "AverageValue", or "Utilization".

        :schema: ScaledObjectSpecAdvancedScalingModifiers#metricType
        '''
        result = self._values.get("metric_type")
        return typing.cast(typing.Optional["ScaledObjectSpecAdvancedScalingModifiersMetricType"], result)

    @builtins.property
    def target(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecAdvancedScalingModifiers#target
        '''
        result = self._values.get("target")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecAdvancedScalingModifiers(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="scaledobject_shkeda.ScaledObjectSpecAdvancedScalingModifiersMetricType"
)
class ScaledObjectSpecAdvancedScalingModifiersMetricType(enum.Enum):
    '''MetricTargetType specifies the type of metric being targeted, and should be either "Value", "AverageValue", or "Utilization".

    :schema: ScaledObjectSpecAdvancedScalingModifiersMetricType
    '''

    AVERAGE_VALUE = "AVERAGE_VALUE"
    '''AverageValue.'''
    VALUE = "VALUE"
    '''Value.'''


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectSpecFallback",
    jsii_struct_bases=[],
    name_mapping={
        "failure_threshold": "failureThreshold",
        "replicas": "replicas",
        "behavior": "behavior",
    },
)
class ScaledObjectSpecFallback:
    def __init__(
        self,
        *,
        failure_threshold: jsii.Number,
        replicas: jsii.Number,
        behavior: typing.Optional["ScaledObjectSpecFallbackBehavior"] = None,
    ) -> None:
        '''Fallback is the spec for fallback options.

        :param failure_threshold: 
        :param replicas: 
        :param behavior: 

        :schema: ScaledObjectSpecFallback
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__59ad8456d0cfb5123406e589c472f774cc97be0cea61e9f1958021326df5194f)
            check_type(argname="argument failure_threshold", value=failure_threshold, expected_type=type_hints["failure_threshold"])
            check_type(argname="argument replicas", value=replicas, expected_type=type_hints["replicas"])
            check_type(argname="argument behavior", value=behavior, expected_type=type_hints["behavior"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "failure_threshold": failure_threshold,
            "replicas": replicas,
        }
        if behavior is not None:
            self._values["behavior"] = behavior

    @builtins.property
    def failure_threshold(self) -> jsii.Number:
        '''
        :schema: ScaledObjectSpecFallback#failureThreshold
        '''
        result = self._values.get("failure_threshold")
        assert result is not None, "Required property 'failure_threshold' is missing"
        return typing.cast(jsii.Number, result)

    @builtins.property
    def replicas(self) -> jsii.Number:
        '''
        :schema: ScaledObjectSpecFallback#replicas
        '''
        result = self._values.get("replicas")
        assert result is not None, "Required property 'replicas' is missing"
        return typing.cast(jsii.Number, result)

    @builtins.property
    def behavior(self) -> typing.Optional["ScaledObjectSpecFallbackBehavior"]:
        '''
        :schema: ScaledObjectSpecFallback#behavior
        '''
        result = self._values.get("behavior")
        return typing.cast(typing.Optional["ScaledObjectSpecFallbackBehavior"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecFallback(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(jsii_type="scaledobject_shkeda.ScaledObjectSpecFallbackBehavior")
class ScaledObjectSpecFallbackBehavior(enum.Enum):
    '''
    :schema: ScaledObjectSpecFallbackBehavior
    '''

    STATIC = "STATIC"
    '''static.'''
    CURRENT_REPLICAS = "CURRENT_REPLICAS"
    '''currentReplicas.'''
    CURRENT_REPLICAS_IF_HIGHER = "CURRENT_REPLICAS_IF_HIGHER"
    '''currentReplicasIfHigher.'''
    CURRENT_REPLICAS_IF_LOWER = "CURRENT_REPLICAS_IF_LOWER"
    '''currentReplicasIfLower.'''


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectSpecScaleTargetRef",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "api_version": "apiVersion",
        "env_source_container_name": "envSourceContainerName",
        "kind": "kind",
    },
)
class ScaledObjectSpecScaleTargetRef:
    def __init__(
        self,
        *,
        name: builtins.str,
        api_version: typing.Optional[builtins.str] = None,
        env_source_container_name: typing.Optional[builtins.str] = None,
        kind: typing.Optional[builtins.str] = None,
    ) -> None:
        '''ScaleTarget holds the reference to the scale target Object.

        :param name: 
        :param api_version: 
        :param env_source_container_name: 
        :param kind: 

        :schema: ScaledObjectSpecScaleTargetRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a3ce7d3ccf440b29d1e59c9f78146c414c488906ad5b78d9bdbc995c8b315046)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument api_version", value=api_version, expected_type=type_hints["api_version"])
            check_type(argname="argument env_source_container_name", value=env_source_container_name, expected_type=type_hints["env_source_container_name"])
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
        }
        if api_version is not None:
            self._values["api_version"] = api_version
        if env_source_container_name is not None:
            self._values["env_source_container_name"] = env_source_container_name
        if kind is not None:
            self._values["kind"] = kind

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: ScaledObjectSpecScaleTargetRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def api_version(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecScaleTargetRef#apiVersion
        '''
        result = self._values.get("api_version")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def env_source_container_name(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecScaleTargetRef#envSourceContainerName
        '''
        result = self._values.get("env_source_container_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def kind(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecScaleTargetRef#kind
        '''
        result = self._values.get("kind")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecScaleTargetRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectSpecTriggers",
    jsii_struct_bases=[],
    name_mapping={
        "metadata": "metadata",
        "type": "type",
        "authentication_ref": "authenticationRef",
        "metric_type": "metricType",
        "name": "name",
        "use_cached_metrics": "useCachedMetrics",
    },
)
class ScaledObjectSpecTriggers:
    def __init__(
        self,
        *,
        metadata: typing.Mapping[builtins.str, builtins.str],
        type: builtins.str,
        authentication_ref: typing.Optional[typing.Union["ScaledObjectSpecTriggersAuthenticationRef", typing.Dict[builtins.str, typing.Any]]] = None,
        metric_type: typing.Optional[builtins.str] = None,
        name: typing.Optional[builtins.str] = None,
        use_cached_metrics: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''ScaleTriggers reference the scaler that will be used.

        :param metadata: 
        :param type: 
        :param authentication_ref: AuthenticationRef points to the TriggerAuthentication or ClusterTriggerAuthentication object that is used to authenticate the scaler with the environment.
        :param metric_type: MetricTargetType specifies the type of metric being targeted, and should be either "Value", "AverageValue", or "Utilization".
        :param name: 
        :param use_cached_metrics: 

        :schema: ScaledObjectSpecTriggers
        '''
        if isinstance(authentication_ref, dict):
            authentication_ref = ScaledObjectSpecTriggersAuthenticationRef(**authentication_ref)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3aef0544c305c1ff207863757889c8fa40ddc588601ababfa8422e4c8b7eae02)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
            check_type(argname="argument authentication_ref", value=authentication_ref, expected_type=type_hints["authentication_ref"])
            check_type(argname="argument metric_type", value=metric_type, expected_type=type_hints["metric_type"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument use_cached_metrics", value=use_cached_metrics, expected_type=type_hints["use_cached_metrics"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "metadata": metadata,
            "type": type,
        }
        if authentication_ref is not None:
            self._values["authentication_ref"] = authentication_ref
        if metric_type is not None:
            self._values["metric_type"] = metric_type
        if name is not None:
            self._values["name"] = name
        if use_cached_metrics is not None:
            self._values["use_cached_metrics"] = use_cached_metrics

    @builtins.property
    def metadata(self) -> typing.Mapping[builtins.str, builtins.str]:
        '''
        :schema: ScaledObjectSpecTriggers#metadata
        '''
        result = self._values.get("metadata")
        assert result is not None, "Required property 'metadata' is missing"
        return typing.cast(typing.Mapping[builtins.str, builtins.str], result)

    @builtins.property
    def type(self) -> builtins.str:
        '''
        :schema: ScaledObjectSpecTriggers#type
        '''
        result = self._values.get("type")
        assert result is not None, "Required property 'type' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def authentication_ref(
        self,
    ) -> typing.Optional["ScaledObjectSpecTriggersAuthenticationRef"]:
        '''AuthenticationRef points to the TriggerAuthentication or ClusterTriggerAuthentication object that is used to authenticate the scaler with the environment.

        :schema: ScaledObjectSpecTriggers#authenticationRef
        '''
        result = self._values.get("authentication_ref")
        return typing.cast(typing.Optional["ScaledObjectSpecTriggersAuthenticationRef"], result)

    @builtins.property
    def metric_type(self) -> typing.Optional[builtins.str]:
        '''MetricTargetType specifies the type of metric being targeted, and should be either "Value", "AverageValue", or "Utilization".

        :schema: ScaledObjectSpecTriggers#metricType
        '''
        result = self._values.get("metric_type")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''
        :schema: ScaledObjectSpecTriggers#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def use_cached_metrics(self) -> typing.Optional[builtins.bool]:
        '''
        :schema: ScaledObjectSpecTriggers#useCachedMetrics
        '''
        result = self._values.get("use_cached_metrics")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecTriggers(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="scaledobject_shkeda.ScaledObjectSpecTriggersAuthenticationRef",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "kind": "kind"},
)
class ScaledObjectSpecTriggersAuthenticationRef:
    def __init__(
        self,
        *,
        name: builtins.str,
        kind: typing.Optional[builtins.str] = None,
    ) -> None:
        '''AuthenticationRef points to the TriggerAuthentication or ClusterTriggerAuthentication object that is used to authenticate the scaler with the environment.

        :param name: 
        :param kind: Kind of the resource being referred to. Defaults to TriggerAuthentication. Default: TriggerAuthentication.

        :schema: ScaledObjectSpecTriggersAuthenticationRef
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__26f3c79222d591f2bfecd67d90b72fc06b1ba0397d6aa1ead60cdef30d152089)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
        }
        if kind is not None:
            self._values["kind"] = kind

    @builtins.property
    def name(self) -> builtins.str:
        '''
        :schema: ScaledObjectSpecTriggersAuthenticationRef#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def kind(self) -> typing.Optional[builtins.str]:
        '''Kind of the resource being referred to.

        Defaults to TriggerAuthentication.

        :default: TriggerAuthentication.

        :schema: ScaledObjectSpecTriggersAuthenticationRef#kind
        '''
        result = self._values.get("kind")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ScaledObjectSpecTriggersAuthenticationRef(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


__all__ = [
    "ScaledObject",
    "ScaledObjectProps",
    "ScaledObjectSpec",
    "ScaledObjectSpecAdvanced",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies",
    "ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance",
    "ScaledObjectSpecAdvancedScalingModifiers",
    "ScaledObjectSpecAdvancedScalingModifiersMetricType",
    "ScaledObjectSpecFallback",
    "ScaledObjectSpecFallbackBehavior",
    "ScaledObjectSpecScaleTargetRef",
    "ScaledObjectSpecTriggers",
    "ScaledObjectSpecTriggersAuthenticationRef",
]

publication.publish()

def _typecheckingstub__1a13b928fb44c940ca6f756288f97137738148ce22c09b410f4ac309676b7b04(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    spec: typing.Union[ScaledObjectSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8f7a03581124444630a3a53fbe34045aba691bb92a94e7a6528c0dc0379dfeae(
    *,
    spec: typing.Union[ScaledObjectSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8254689e43dc29f7cb4c59f9ae2ec6d52b8b593b018289545e5b54cf783ccad5(
    *,
    scale_target_ref: typing.Union[ScaledObjectSpecScaleTargetRef, typing.Dict[builtins.str, typing.Any]],
    triggers: typing.Sequence[typing.Union[ScaledObjectSpecTriggers, typing.Dict[builtins.str, typing.Any]]],
    advanced: typing.Optional[typing.Union[ScaledObjectSpecAdvanced, typing.Dict[builtins.str, typing.Any]]] = None,
    cooldown_period: typing.Optional[jsii.Number] = None,
    fallback: typing.Optional[typing.Union[ScaledObjectSpecFallback, typing.Dict[builtins.str, typing.Any]]] = None,
    idle_replica_count: typing.Optional[jsii.Number] = None,
    initial_cooldown_period: typing.Optional[jsii.Number] = None,
    max_replica_count: typing.Optional[jsii.Number] = None,
    min_replica_count: typing.Optional[jsii.Number] = None,
    polling_interval: typing.Optional[jsii.Number] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__236e1abc67ab0735372b26d12ab8e7ad23ae63176924a9f21bf1ccd6733a1e68(
    *,
    horizontal_pod_autoscaler_config: typing.Optional[typing.Union[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig, typing.Dict[builtins.str, typing.Any]]] = None,
    restore_to_original_replica_count: typing.Optional[builtins.bool] = None,
    scaling_modifiers: typing.Optional[typing.Union[ScaledObjectSpecAdvancedScalingModifiers, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1c8d0fc4d981c4f370d2f15d5aae687d7ce6d374b1e544af07cc760db556522c(
    *,
    behavior: typing.Optional[typing.Union[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior, typing.Dict[builtins.str, typing.Any]]] = None,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d15374c27a29c30b346384d40216b7eae91c5a0419d3376b6f043cc22a278243(
    *,
    scale_down: typing.Optional[typing.Union[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown, typing.Dict[builtins.str, typing.Any]]] = None,
    scale_up: typing.Optional[typing.Union[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d88eac50bd5d05aca0382666d88e551f24a7745044b9d40849286e567b3d05b8(
    *,
    policies: typing.Optional[typing.Sequence[typing.Union[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies, typing.Dict[builtins.str, typing.Any]]]] = None,
    select_policy: typing.Optional[builtins.str] = None,
    stabilization_window_seconds: typing.Optional[jsii.Number] = None,
    tolerance: typing.Optional[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownTolerance] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2154d8ed479f5c90197b6a8bef61e94c945a35acbbf3fb843694825cf4e8160d(
    *,
    period_seconds: jsii.Number,
    type: builtins.str,
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6cd0f9298b0989f5658de3ade07776330cb07d240802c5b560fa5c4f1563907a(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__60f37f78d724be6930cdfc3d86498fbf8532cacae20f431c5d3bb63b9bfcaacd(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d60da7a822621bb28d85a31208f054f5c5b8cdd2739316b89fa7933acaddbc67(
    *,
    policies: typing.Optional[typing.Sequence[typing.Union[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies, typing.Dict[builtins.str, typing.Any]]]] = None,
    select_policy: typing.Optional[builtins.str] = None,
    stabilization_window_seconds: typing.Optional[jsii.Number] = None,
    tolerance: typing.Optional[ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpTolerance] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b620867833b2ec63663278cc31526ca62f57435ef4a3ab59cb0384a6b29f3f0d(
    *,
    period_seconds: jsii.Number,
    type: builtins.str,
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__75a0de2c706c8fc7401feb6f8950cf3b234fadf903e6db03e071a2eac31ab5d0(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8ea223abefbd92b8e27100be8b4a74714a757d7db146e0e56063440565fd3432(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9d06258e3835fc2b7fee0b00d4d2994809fe83f388b36e191aea927f1d747146(
    *,
    activation_target: typing.Optional[builtins.str] = None,
    formula: typing.Optional[builtins.str] = None,
    metric_type: typing.Optional[ScaledObjectSpecAdvancedScalingModifiersMetricType] = None,
    target: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__59ad8456d0cfb5123406e589c472f774cc97be0cea61e9f1958021326df5194f(
    *,
    failure_threshold: jsii.Number,
    replicas: jsii.Number,
    behavior: typing.Optional[ScaledObjectSpecFallbackBehavior] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a3ce7d3ccf440b29d1e59c9f78146c414c488906ad5b78d9bdbc995c8b315046(
    *,
    name: builtins.str,
    api_version: typing.Optional[builtins.str] = None,
    env_source_container_name: typing.Optional[builtins.str] = None,
    kind: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3aef0544c305c1ff207863757889c8fa40ddc588601ababfa8422e4c8b7eae02(
    *,
    metadata: typing.Mapping[builtins.str, builtins.str],
    type: builtins.str,
    authentication_ref: typing.Optional[typing.Union[ScaledObjectSpecTriggersAuthenticationRef, typing.Dict[builtins.str, typing.Any]]] = None,
    metric_type: typing.Optional[builtins.str] = None,
    name: typing.Optional[builtins.str] = None,
    use_cached_metrics: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__26f3c79222d591f2bfecd67d90b72fc06b1ba0397d6aa1ead60cdef30d152089(
    *,
    name: builtins.str,
    kind: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass
