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


class ResourceFlavor(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="resourceflavor_iox-k8skueue.ResourceFlavor",
):
    '''ResourceFlavor is the Schema for the resourceflavors API.

    :schema: ResourceFlavor
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ResourceFlavor" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1e8d3cbdff6cad59646aa9abf313f159902fc98b368b50075246847528e714eb)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ResourceFlavorProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ResourceFlavor".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.
        '''
        props = ResourceFlavorProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ResourceFlavor".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="resourceflavor_iox-k8skueue.ResourceFlavorProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class ResourceFlavorProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ResourceFlavor is the Schema for the resourceflavors API.

        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.

        :schema: ResourceFlavor
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = ResourceFlavorSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__626a8b87b75ac3877b5971f0bc186f3014a830d968cd449db4fb091d62a2cadc)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: ResourceFlavor#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["ResourceFlavorSpec"]:
        '''spec is the specification of the ResourceFlavor.

        :schema: ResourceFlavor#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["ResourceFlavorSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="resourceflavor_iox-k8skueue.ResourceFlavorSpec",
    jsii_struct_bases=[],
    name_mapping={
        "node_labels": "nodeLabels",
        "node_taints": "nodeTaints",
        "tolerations": "tolerations",
        "topology_name": "topologyName",
    },
)
class ResourceFlavorSpec:
    def __init__(
        self,
        *,
        node_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        node_taints: typing.Optional[typing.Sequence[typing.Union["ResourceFlavorSpecNodeTaints", typing.Dict[builtins.str, typing.Any]]]] = None,
        tolerations: typing.Optional[typing.Sequence[typing.Union["ResourceFlavorSpecTolerations", typing.Dict[builtins.str, typing.Any]]]] = None,
        topology_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''spec is the specification of the ResourceFlavor.

        :param node_labels: nodeLabels are labels that associate the ResourceFlavor with Nodes that have the same labels. When a Workload is admitted, its podsets can only get assigned ResourceFlavors whose nodeLabels match the nodeSelector and nodeAffinity fields. Once a ResourceFlavor is assigned to a podSet, the ResourceFlavor's nodeLabels should be injected into the pods of the Workload by the controller that integrates with the Workload object. nodeLabels can be up to 8 elements.
        :param node_taints: nodeTaints are taints that the nodes associated with this ResourceFlavor have. Workloads' podsets must have tolerations for these nodeTaints in order to get assigned this ResourceFlavor during admission. When this ResourceFlavor has also set the matching tolerations (in .spec.tolerations), then the nodeTaints are not considered during admission. Only the 'NoSchedule' and 'NoExecute' taint effects are evaluated, while 'PreferNoSchedule' is ignored. An example of a nodeTaint is cloud.provider.com/preemptible="true":NoSchedule nodeTaints can be up to 8 elements.
        :param tolerations: tolerations are extra tolerations that will be added to the pods admitted in the quota associated with this resource flavor. An example of a toleration is cloud.provider.com/preemptible="true":NoSchedule tolerations can be up to 8 elements.
        :param topology_name: topologyName indicates topology for the TAS ResourceFlavor. When specified, it enables scraping of the topology information from the nodes matching to the Resource Flavor node labels.

        :schema: ResourceFlavorSpec
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__61c2eb2f6316ed0f63d2305d27aa7c58dc6658c28b57a15bf5437a76dd7218aa)
            check_type(argname="argument node_labels", value=node_labels, expected_type=type_hints["node_labels"])
            check_type(argname="argument node_taints", value=node_taints, expected_type=type_hints["node_taints"])
            check_type(argname="argument tolerations", value=tolerations, expected_type=type_hints["tolerations"])
            check_type(argname="argument topology_name", value=topology_name, expected_type=type_hints["topology_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if node_labels is not None:
            self._values["node_labels"] = node_labels
        if node_taints is not None:
            self._values["node_taints"] = node_taints
        if tolerations is not None:
            self._values["tolerations"] = tolerations
        if topology_name is not None:
            self._values["topology_name"] = topology_name

    @builtins.property
    def node_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''nodeLabels are labels that associate the ResourceFlavor with Nodes that have the same labels.

        When a Workload is admitted, its podsets can only get assigned
        ResourceFlavors whose nodeLabels match the nodeSelector and nodeAffinity
        fields.
        Once a ResourceFlavor is assigned to a podSet, the ResourceFlavor's
        nodeLabels should be injected into the pods of the Workload by the
        controller that integrates with the Workload object.

        nodeLabels can be up to 8 elements.

        :schema: ResourceFlavorSpec#nodeLabels
        '''
        result = self._values.get("node_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def node_taints(
        self,
    ) -> typing.Optional[typing.List["ResourceFlavorSpecNodeTaints"]]:
        '''nodeTaints are taints that the nodes associated with this ResourceFlavor have.

        Workloads' podsets must have tolerations for these nodeTaints in order to
        get assigned this ResourceFlavor during admission.
        When this ResourceFlavor has also set the matching tolerations (in .spec.tolerations),
        then the nodeTaints are not considered during admission.
        Only the 'NoSchedule' and 'NoExecute' taint effects are evaluated,
        while 'PreferNoSchedule' is ignored.

        An example of a nodeTaint is
        cloud.provider.com/preemptible="true":NoSchedule

        nodeTaints can be up to 8 elements.

        :schema: ResourceFlavorSpec#nodeTaints
        '''
        result = self._values.get("node_taints")
        return typing.cast(typing.Optional[typing.List["ResourceFlavorSpecNodeTaints"]], result)

    @builtins.property
    def tolerations(
        self,
    ) -> typing.Optional[typing.List["ResourceFlavorSpecTolerations"]]:
        '''tolerations are extra tolerations that will be added to the pods admitted in the quota associated with this resource flavor.

        An example of a toleration is
        cloud.provider.com/preemptible="true":NoSchedule

        tolerations can be up to 8 elements.

        :schema: ResourceFlavorSpec#tolerations
        '''
        result = self._values.get("tolerations")
        return typing.cast(typing.Optional[typing.List["ResourceFlavorSpecTolerations"]], result)

    @builtins.property
    def topology_name(self) -> typing.Optional[builtins.str]:
        '''topologyName indicates topology for the TAS ResourceFlavor.

        When specified, it enables scraping of the topology information from the
        nodes matching to the Resource Flavor node labels.

        :schema: ResourceFlavorSpec#topologyName
        '''
        result = self._values.get("topology_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="resourceflavor_iox-k8skueue.ResourceFlavorSpecNodeTaints",
    jsii_struct_bases=[],
    name_mapping={
        "effect": "effect",
        "key": "key",
        "time_added": "timeAdded",
        "value": "value",
    },
)
class ResourceFlavorSpecNodeTaints:
    def __init__(
        self,
        *,
        effect: builtins.str,
        key: builtins.str,
        time_added: typing.Optional[datetime.datetime] = None,
        value: typing.Optional[builtins.str] = None,
    ) -> None:
        '''The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.

        :param effect: Required. The effect of the taint on pods that do not tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute.
        :param key: Required. The taint key to be applied to a node.
        :param time_added: TimeAdded represents the time at which the taint was added.
        :param value: The taint value corresponding to the taint key.

        :schema: ResourceFlavorSpecNodeTaints
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__57ac4f9102736fbf6b411ab95d8e1519f148c52ecaa0e325d2d7d38548a8fb15)
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
    def effect(self) -> builtins.str:
        '''Required.

        The effect of the taint on pods
        that do not tolerate the taint.
        Valid effects are NoSchedule, PreferNoSchedule and NoExecute.

        :schema: ResourceFlavorSpecNodeTaints#effect
        '''
        result = self._values.get("effect")
        assert result is not None, "Required property 'effect' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def key(self) -> builtins.str:
        '''Required.

        The taint key to be applied to a node.

        :schema: ResourceFlavorSpecNodeTaints#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def time_added(self) -> typing.Optional[datetime.datetime]:
        '''TimeAdded represents the time at which the taint was added.

        :schema: ResourceFlavorSpecNodeTaints#timeAdded
        '''
        result = self._values.get("time_added")
        return typing.cast(typing.Optional[datetime.datetime], result)

    @builtins.property
    def value(self) -> typing.Optional[builtins.str]:
        '''The taint value corresponding to the taint key.

        :schema: ResourceFlavorSpecNodeTaints#value
        '''
        result = self._values.get("value")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorSpecNodeTaints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="resourceflavor_iox-k8skueue.ResourceFlavorSpecTolerations",
    jsii_struct_bases=[],
    name_mapping={
        "effect": "effect",
        "key": "key",
        "operator": "operator",
        "toleration_seconds": "tolerationSeconds",
        "value": "value",
    },
)
class ResourceFlavorSpecTolerations:
    def __init__(
        self,
        *,
        effect: typing.Optional[builtins.str] = None,
        key: typing.Optional[builtins.str] = None,
        operator: typing.Optional[builtins.str] = None,
        toleration_seconds: typing.Optional[jsii.Number] = None,
        value: typing.Optional[builtins.str] = None,
    ) -> None:
        '''The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator .

        :param effect: Effect indicates the taint effect to match. Empty means match all taint effects. When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute.
        :param key: Key is the taint key that the toleration applies to. Empty means match all taint keys. If the key is empty, operator must be Exists; this combination means to match all values and all keys.
        :param operator: Operator represents a key's relationship to the value. Valid operators are Exists, Equal, Lt, and Gt. Defaults to Equal. Exists is equivalent to wildcard for value, so that a pod can tolerate all taints of a particular category. Lt and Gt perform numeric comparisons (requires feature gate TaintTolerationComparisonOperators). Default: Equal.
        :param toleration_seconds: TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint. By default, it is not set, which means tolerate the taint forever (do not evict). Zero and negative values will be treated as 0 (evict immediately) by the system.
        :param value: Value is the taint value the toleration matches to. If the operator is Exists, the value should be empty, otherwise just a regular string.

        :schema: ResourceFlavorSpecTolerations
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__27115e252fd5b19f41f454d963131ae16626758b217000a8c6bb0a3655911cd2)
            check_type(argname="argument effect", value=effect, expected_type=type_hints["effect"])
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument operator", value=operator, expected_type=type_hints["operator"])
            check_type(argname="argument toleration_seconds", value=toleration_seconds, expected_type=type_hints["toleration_seconds"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if effect is not None:
            self._values["effect"] = effect
        if key is not None:
            self._values["key"] = key
        if operator is not None:
            self._values["operator"] = operator
        if toleration_seconds is not None:
            self._values["toleration_seconds"] = toleration_seconds
        if value is not None:
            self._values["value"] = value

    @builtins.property
    def effect(self) -> typing.Optional[builtins.str]:
        '''Effect indicates the taint effect to match.

        Empty means match all taint effects.
        When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute.

        :schema: ResourceFlavorSpecTolerations#effect
        '''
        result = self._values.get("effect")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def key(self) -> typing.Optional[builtins.str]:
        '''Key is the taint key that the toleration applies to.

        Empty means match all taint keys.
        If the key is empty, operator must be Exists; this combination means to match all values and all keys.

        :schema: ResourceFlavorSpecTolerations#key
        '''
        result = self._values.get("key")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def operator(self) -> typing.Optional[builtins.str]:
        '''Operator represents a key's relationship to the value.

        Valid operators are Exists, Equal, Lt, and Gt. Defaults to Equal.
        Exists is equivalent to wildcard for value, so that a pod can
        tolerate all taints of a particular category.
        Lt and Gt perform numeric comparisons (requires feature gate TaintTolerationComparisonOperators).

        :default: Equal.

        :schema: ResourceFlavorSpecTolerations#operator
        '''
        result = self._values.get("operator")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def toleration_seconds(self) -> typing.Optional[jsii.Number]:
        '''TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint.

        By default,
        it is not set, which means tolerate the taint forever (do not evict). Zero and
        negative values will be treated as 0 (evict immediately) by the system.

        :schema: ResourceFlavorSpecTolerations#tolerationSeconds
        '''
        result = self._values.get("toleration_seconds")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def value(self) -> typing.Optional[builtins.str]:
        '''Value is the taint value the toleration matches to.

        If the operator is Exists, the value should be empty, otherwise just a regular string.

        :schema: ResourceFlavorSpecTolerations#value
        '''
        result = self._values.get("value")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorSpecTolerations(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ResourceFlavorV1Beta2(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="resourceflavor_iox-k8skueue.ResourceFlavorV1Beta2",
):
    '''ResourceFlavor is the Schema for the resourceflavors API.

    :schema: ResourceFlavorV1Beta2
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ResourceFlavorV1Beta2" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b417a25b542faa3556c8f7db9a128d45bb8628545941cf796b9b0185db6eb1c7)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ResourceFlavorV1Beta2Props(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ResourceFlavorV1Beta2".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.
        '''
        props = ResourceFlavorV1Beta2Props(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ResourceFlavorV1Beta2".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="resourceflavor_iox-k8skueue.ResourceFlavorV1Beta2Props",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class ResourceFlavorV1Beta2Props:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ResourceFlavorV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ResourceFlavor is the Schema for the resourceflavors API.

        :param metadata: 
        :param spec: spec is the specification of the ResourceFlavor.

        :schema: ResourceFlavorV1Beta2
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = ResourceFlavorV1Beta2Spec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9b4e145203ed2cb45bca41ed5636b2fb2f5256a5bdb1f74bfc596460c0a5d0d0)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if metadata is not None:
            self._values["metadata"] = metadata
        if spec is not None:
            self._values["spec"] = spec

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: ResourceFlavorV1Beta2#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["ResourceFlavorV1Beta2Spec"]:
        '''spec is the specification of the ResourceFlavor.

        :schema: ResourceFlavorV1Beta2#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["ResourceFlavorV1Beta2Spec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorV1Beta2Props(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="resourceflavor_iox-k8skueue.ResourceFlavorV1Beta2Spec",
    jsii_struct_bases=[],
    name_mapping={
        "node_labels": "nodeLabels",
        "node_taints": "nodeTaints",
        "tolerations": "tolerations",
        "topology_name": "topologyName",
    },
)
class ResourceFlavorV1Beta2Spec:
    def __init__(
        self,
        *,
        node_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        node_taints: typing.Optional[typing.Sequence[typing.Union["ResourceFlavorV1Beta2SpecNodeTaints", typing.Dict[builtins.str, typing.Any]]]] = None,
        tolerations: typing.Optional[typing.Sequence[typing.Union["ResourceFlavorV1Beta2SpecTolerations", typing.Dict[builtins.str, typing.Any]]]] = None,
        topology_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''spec is the specification of the ResourceFlavor.

        :param node_labels: nodeLabels are labels that associate the ResourceFlavor with Nodes that have the same labels. When a Workload is admitted, its podsets can only get assigned ResourceFlavors whose nodeLabels match the nodeSelector and nodeAffinity fields. Once a ResourceFlavor is assigned to a podSet, the ResourceFlavor's nodeLabels should be injected into the pods of the Workload by the controller that integrates with the Workload object. nodeLabels can be up to 8 elements.
        :param node_taints: nodeTaints are taints that the nodes associated with this ResourceFlavor have. Workloads' podsets must have tolerations for these nodeTaints in order to get assigned this ResourceFlavor during admission. When this ResourceFlavor has also set the matching tolerations (in .spec.tolerations), then the nodeTaints are not considered during admission. Only the 'NoSchedule' and 'NoExecute' taint effects are evaluated, while 'PreferNoSchedule' is ignored. An example of a nodeTaint is cloud.provider.com/preemptible="true":NoSchedule nodeTaints can be up to 8 elements.
        :param tolerations: tolerations are extra tolerations that will be added to the pods admitted in the quota associated with this resource flavor. An example of a toleration is cloud.provider.com/preemptible="true":NoSchedule tolerations can be up to 8 elements.
        :param topology_name: topologyName indicates topology for the TAS ResourceFlavor. When specified, it enables scraping of the topology information from the nodes matching to the Resource Flavor node labels.

        :schema: ResourceFlavorV1Beta2Spec
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__707b8d3e35b886da3814c7e8aacc3dd2d08ec035e6fb69f8fdd45b0b30d23eb1)
            check_type(argname="argument node_labels", value=node_labels, expected_type=type_hints["node_labels"])
            check_type(argname="argument node_taints", value=node_taints, expected_type=type_hints["node_taints"])
            check_type(argname="argument tolerations", value=tolerations, expected_type=type_hints["tolerations"])
            check_type(argname="argument topology_name", value=topology_name, expected_type=type_hints["topology_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if node_labels is not None:
            self._values["node_labels"] = node_labels
        if node_taints is not None:
            self._values["node_taints"] = node_taints
        if tolerations is not None:
            self._values["tolerations"] = tolerations
        if topology_name is not None:
            self._values["topology_name"] = topology_name

    @builtins.property
    def node_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''nodeLabels are labels that associate the ResourceFlavor with Nodes that have the same labels.

        When a Workload is admitted, its podsets can only get assigned
        ResourceFlavors whose nodeLabels match the nodeSelector and nodeAffinity
        fields.
        Once a ResourceFlavor is assigned to a podSet, the ResourceFlavor's
        nodeLabels should be injected into the pods of the Workload by the
        controller that integrates with the Workload object.

        nodeLabels can be up to 8 elements.

        :schema: ResourceFlavorV1Beta2Spec#nodeLabels
        '''
        result = self._values.get("node_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def node_taints(
        self,
    ) -> typing.Optional[typing.List["ResourceFlavorV1Beta2SpecNodeTaints"]]:
        '''nodeTaints are taints that the nodes associated with this ResourceFlavor have.

        Workloads' podsets must have tolerations for these nodeTaints in order to
        get assigned this ResourceFlavor during admission.
        When this ResourceFlavor has also set the matching tolerations (in .spec.tolerations),
        then the nodeTaints are not considered during admission.
        Only the 'NoSchedule' and 'NoExecute' taint effects are evaluated,
        while 'PreferNoSchedule' is ignored.

        An example of a nodeTaint is
        cloud.provider.com/preemptible="true":NoSchedule

        nodeTaints can be up to 8 elements.

        :schema: ResourceFlavorV1Beta2Spec#nodeTaints
        '''
        result = self._values.get("node_taints")
        return typing.cast(typing.Optional[typing.List["ResourceFlavorV1Beta2SpecNodeTaints"]], result)

    @builtins.property
    def tolerations(
        self,
    ) -> typing.Optional[typing.List["ResourceFlavorV1Beta2SpecTolerations"]]:
        '''tolerations are extra tolerations that will be added to the pods admitted in the quota associated with this resource flavor.

        An example of a toleration is
        cloud.provider.com/preemptible="true":NoSchedule

        tolerations can be up to 8 elements.

        :schema: ResourceFlavorV1Beta2Spec#tolerations
        '''
        result = self._values.get("tolerations")
        return typing.cast(typing.Optional[typing.List["ResourceFlavorV1Beta2SpecTolerations"]], result)

    @builtins.property
    def topology_name(self) -> typing.Optional[builtins.str]:
        '''topologyName indicates topology for the TAS ResourceFlavor.

        When specified, it enables scraping of the topology information from the
        nodes matching to the Resource Flavor node labels.

        :schema: ResourceFlavorV1Beta2Spec#topologyName
        '''
        result = self._values.get("topology_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorV1Beta2Spec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="resourceflavor_iox-k8skueue.ResourceFlavorV1Beta2SpecNodeTaints",
    jsii_struct_bases=[],
    name_mapping={
        "effect": "effect",
        "key": "key",
        "time_added": "timeAdded",
        "value": "value",
    },
)
class ResourceFlavorV1Beta2SpecNodeTaints:
    def __init__(
        self,
        *,
        effect: builtins.str,
        key: builtins.str,
        time_added: typing.Optional[datetime.datetime] = None,
        value: typing.Optional[builtins.str] = None,
    ) -> None:
        '''The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.

        :param effect: Required. The effect of the taint on pods that do not tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute.
        :param key: Required. The taint key to be applied to a node.
        :param time_added: TimeAdded represents the time at which the taint was added.
        :param value: The taint value corresponding to the taint key.

        :schema: ResourceFlavorV1Beta2SpecNodeTaints
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__53aba07fdc6550fc331a6333e3c5a841007cf05b79d1f5da5810da285f13bac9)
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
    def effect(self) -> builtins.str:
        '''Required.

        The effect of the taint on pods
        that do not tolerate the taint.
        Valid effects are NoSchedule, PreferNoSchedule and NoExecute.

        :schema: ResourceFlavorV1Beta2SpecNodeTaints#effect
        '''
        result = self._values.get("effect")
        assert result is not None, "Required property 'effect' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def key(self) -> builtins.str:
        '''Required.

        The taint key to be applied to a node.

        :schema: ResourceFlavorV1Beta2SpecNodeTaints#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def time_added(self) -> typing.Optional[datetime.datetime]:
        '''TimeAdded represents the time at which the taint was added.

        :schema: ResourceFlavorV1Beta2SpecNodeTaints#timeAdded
        '''
        result = self._values.get("time_added")
        return typing.cast(typing.Optional[datetime.datetime], result)

    @builtins.property
    def value(self) -> typing.Optional[builtins.str]:
        '''The taint value corresponding to the taint key.

        :schema: ResourceFlavorV1Beta2SpecNodeTaints#value
        '''
        result = self._values.get("value")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorV1Beta2SpecNodeTaints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="resourceflavor_iox-k8skueue.ResourceFlavorV1Beta2SpecTolerations",
    jsii_struct_bases=[],
    name_mapping={
        "effect": "effect",
        "key": "key",
        "operator": "operator",
        "toleration_seconds": "tolerationSeconds",
        "value": "value",
    },
)
class ResourceFlavorV1Beta2SpecTolerations:
    def __init__(
        self,
        *,
        effect: typing.Optional[builtins.str] = None,
        key: typing.Optional[builtins.str] = None,
        operator: typing.Optional[builtins.str] = None,
        toleration_seconds: typing.Optional[jsii.Number] = None,
        value: typing.Optional[builtins.str] = None,
    ) -> None:
        '''The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator .

        :param effect: Effect indicates the taint effect to match. Empty means match all taint effects. When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute.
        :param key: Key is the taint key that the toleration applies to. Empty means match all taint keys. If the key is empty, operator must be Exists; this combination means to match all values and all keys.
        :param operator: Operator represents a key's relationship to the value. Valid operators are Exists, Equal, Lt, and Gt. Defaults to Equal. Exists is equivalent to wildcard for value, so that a pod can tolerate all taints of a particular category. Lt and Gt perform numeric comparisons (requires feature gate TaintTolerationComparisonOperators). Default: Equal.
        :param toleration_seconds: TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint. By default, it is not set, which means tolerate the taint forever (do not evict). Zero and negative values will be treated as 0 (evict immediately) by the system.
        :param value: Value is the taint value the toleration matches to. If the operator is Exists, the value should be empty, otherwise just a regular string.

        :schema: ResourceFlavorV1Beta2SpecTolerations
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__494ebcb0c1d905ebadbbf62a1e730571b42aec666120f3edb2ce5fe7c377656e)
            check_type(argname="argument effect", value=effect, expected_type=type_hints["effect"])
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument operator", value=operator, expected_type=type_hints["operator"])
            check_type(argname="argument toleration_seconds", value=toleration_seconds, expected_type=type_hints["toleration_seconds"])
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if effect is not None:
            self._values["effect"] = effect
        if key is not None:
            self._values["key"] = key
        if operator is not None:
            self._values["operator"] = operator
        if toleration_seconds is not None:
            self._values["toleration_seconds"] = toleration_seconds
        if value is not None:
            self._values["value"] = value

    @builtins.property
    def effect(self) -> typing.Optional[builtins.str]:
        '''Effect indicates the taint effect to match.

        Empty means match all taint effects.
        When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute.

        :schema: ResourceFlavorV1Beta2SpecTolerations#effect
        '''
        result = self._values.get("effect")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def key(self) -> typing.Optional[builtins.str]:
        '''Key is the taint key that the toleration applies to.

        Empty means match all taint keys.
        If the key is empty, operator must be Exists; this combination means to match all values and all keys.

        :schema: ResourceFlavorV1Beta2SpecTolerations#key
        '''
        result = self._values.get("key")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def operator(self) -> typing.Optional[builtins.str]:
        '''Operator represents a key's relationship to the value.

        Valid operators are Exists, Equal, Lt, and Gt. Defaults to Equal.
        Exists is equivalent to wildcard for value, so that a pod can
        tolerate all taints of a particular category.
        Lt and Gt perform numeric comparisons (requires feature gate TaintTolerationComparisonOperators).

        :default: Equal.

        :schema: ResourceFlavorV1Beta2SpecTolerations#operator
        '''
        result = self._values.get("operator")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def toleration_seconds(self) -> typing.Optional[jsii.Number]:
        '''TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint.

        By default,
        it is not set, which means tolerate the taint forever (do not evict). Zero and
        negative values will be treated as 0 (evict immediately) by the system.

        :schema: ResourceFlavorV1Beta2SpecTolerations#tolerationSeconds
        '''
        result = self._values.get("toleration_seconds")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def value(self) -> typing.Optional[builtins.str]:
        '''Value is the taint value the toleration matches to.

        If the operator is Exists, the value should be empty, otherwise just a regular string.

        :schema: ResourceFlavorV1Beta2SpecTolerations#value
        '''
        result = self._values.get("value")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ResourceFlavorV1Beta2SpecTolerations(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


__all__ = [
    "ResourceFlavor",
    "ResourceFlavorProps",
    "ResourceFlavorSpec",
    "ResourceFlavorSpecNodeTaints",
    "ResourceFlavorSpecTolerations",
    "ResourceFlavorV1Beta2",
    "ResourceFlavorV1Beta2Props",
    "ResourceFlavorV1Beta2Spec",
    "ResourceFlavorV1Beta2SpecNodeTaints",
    "ResourceFlavorV1Beta2SpecTolerations",
]

publication.publish()

def _typecheckingstub__1e8d3cbdff6cad59646aa9abf313f159902fc98b368b50075246847528e714eb(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ResourceFlavorSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__626a8b87b75ac3877b5971f0bc186f3014a830d968cd449db4fb091d62a2cadc(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ResourceFlavorSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__61c2eb2f6316ed0f63d2305d27aa7c58dc6658c28b57a15bf5437a76dd7218aa(
    *,
    node_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    node_taints: typing.Optional[typing.Sequence[typing.Union[ResourceFlavorSpecNodeTaints, typing.Dict[builtins.str, typing.Any]]]] = None,
    tolerations: typing.Optional[typing.Sequence[typing.Union[ResourceFlavorSpecTolerations, typing.Dict[builtins.str, typing.Any]]]] = None,
    topology_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__57ac4f9102736fbf6b411ab95d8e1519f148c52ecaa0e325d2d7d38548a8fb15(
    *,
    effect: builtins.str,
    key: builtins.str,
    time_added: typing.Optional[datetime.datetime] = None,
    value: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__27115e252fd5b19f41f454d963131ae16626758b217000a8c6bb0a3655911cd2(
    *,
    effect: typing.Optional[builtins.str] = None,
    key: typing.Optional[builtins.str] = None,
    operator: typing.Optional[builtins.str] = None,
    toleration_seconds: typing.Optional[jsii.Number] = None,
    value: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b417a25b542faa3556c8f7db9a128d45bb8628545941cf796b9b0185db6eb1c7(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ResourceFlavorV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9b4e145203ed2cb45bca41ed5636b2fb2f5256a5bdb1f74bfc596460c0a5d0d0(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ResourceFlavorV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__707b8d3e35b886da3814c7e8aacc3dd2d08ec035e6fb69f8fdd45b0b30d23eb1(
    *,
    node_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    node_taints: typing.Optional[typing.Sequence[typing.Union[ResourceFlavorV1Beta2SpecNodeTaints, typing.Dict[builtins.str, typing.Any]]]] = None,
    tolerations: typing.Optional[typing.Sequence[typing.Union[ResourceFlavorV1Beta2SpecTolerations, typing.Dict[builtins.str, typing.Any]]]] = None,
    topology_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__53aba07fdc6550fc331a6333e3c5a841007cf05b79d1f5da5810da285f13bac9(
    *,
    effect: builtins.str,
    key: builtins.str,
    time_added: typing.Optional[datetime.datetime] = None,
    value: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__494ebcb0c1d905ebadbbf62a1e730571b42aec666120f3edb2ce5fe7c377656e(
    *,
    effect: typing.Optional[builtins.str] = None,
    key: typing.Optional[builtins.str] = None,
    operator: typing.Optional[builtins.str] = None,
    toleration_seconds: typing.Optional[jsii.Number] = None,
    value: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass
