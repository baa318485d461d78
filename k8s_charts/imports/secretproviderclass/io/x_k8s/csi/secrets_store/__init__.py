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


class SecretProviderClass(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="secretproviderclass_iox-k8scsisecrets-store.SecretProviderClass",
):
    '''SecretProviderClass is the Schema for the secretproviderclasses API.

    :schema: SecretProviderClass
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["SecretProviderClassSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "SecretProviderClass" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: SecretProviderClassSpec defines the desired state of SecretProviderClass.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d423dd890044cee78a20f29a621f7a75dddbbba26728618527cf73c901a40d56)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = SecretProviderClassProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["SecretProviderClassSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "SecretProviderClass".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: SecretProviderClassSpec defines the desired state of SecretProviderClass.
        '''
        props = SecretProviderClassProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "SecretProviderClass".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="secretproviderclass_iox-k8scsisecrets-store.SecretProviderClassProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class SecretProviderClassProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["SecretProviderClassSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''SecretProviderClass is the Schema for the secretproviderclasses API.

        :param metadata: 
        :param spec: SecretProviderClassSpec defines the desired state of SecretProviderClass.

        :schema: SecretProviderClass
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = SecretProviderClassSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a429c8dd09244242e367d7905a77f540a4edcb5b3a41b96e1b5d46578530e722)
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
        :schema: SecretProviderClass#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["SecretProviderClassSpec"]:
        '''SecretProviderClassSpec defines the desired state of SecretProviderClass.

        :schema: SecretProviderClass#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["SecretProviderClassSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "SecretProviderClassProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="secretproviderclass_iox-k8scsisecrets-store.SecretProviderClassSpec",
    jsii_struct_bases=[],
    name_mapping={
        "parameters": "parameters",
        "provider": "provider",
        "secret_objects": "secretObjects",
    },
)
class SecretProviderClassSpec:
    def __init__(
        self,
        *,
        parameters: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        provider: typing.Optional[builtins.str] = None,
        secret_objects: typing.Optional[typing.Sequence[typing.Union["SecretProviderClassSpecSecretObjects", typing.Dict[builtins.str, typing.Any]]]] = None,
    ) -> None:
        '''SecretProviderClassSpec defines the desired state of SecretProviderClass.

        :param parameters: Configuration for specific provider.
        :param provider: Configuration for provider name.
        :param secret_objects: 

        :schema: SecretProviderClassSpec
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6b26e170c1e7b33d06af9ed6a5d5e7fff94d308e4e0175bba62a8f56878e5517)
            check_type(argname="argument parameters", value=parameters, expected_type=type_hints["parameters"])
            check_type(argname="argument provider", value=provider, expected_type=type_hints["provider"])
            check_type(argname="argument secret_objects", value=secret_objects, expected_type=type_hints["secret_objects"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if parameters is not None:
            self._values["parameters"] = parameters
        if provider is not None:
            self._values["provider"] = provider
        if secret_objects is not None:
            self._values["secret_objects"] = secret_objects

    @builtins.property
    def parameters(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Configuration for specific provider.

        :schema: SecretProviderClassSpec#parameters
        '''
        result = self._values.get("parameters")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def provider(self) -> typing.Optional[builtins.str]:
        '''Configuration for provider name.

        :schema: SecretProviderClassSpec#provider
        '''
        result = self._values.get("provider")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def secret_objects(
        self,
    ) -> typing.Optional[typing.List["SecretProviderClassSpecSecretObjects"]]:
        '''
        :schema: SecretProviderClassSpec#secretObjects
        '''
        result = self._values.get("secret_objects")
        return typing.cast(typing.Optional[typing.List["SecretProviderClassSpecSecretObjects"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "SecretProviderClassSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="secretproviderclass_iox-k8scsisecrets-store.SecretProviderClassSpecSecretObjects",
    jsii_struct_bases=[],
    name_mapping={
        "annotations": "annotations",
        "data": "data",
        "labels": "labels",
        "secret_name": "secretName",
        "type": "type",
    },
)
class SecretProviderClassSpecSecretObjects:
    def __init__(
        self,
        *,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        data: typing.Optional[typing.Sequence[typing.Union["SecretProviderClassSpecSecretObjectsData", typing.Dict[builtins.str, typing.Any]]]] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        secret_name: typing.Optional[builtins.str] = None,
        type: typing.Optional[builtins.str] = None,
    ) -> None:
        '''SecretObject defines the desired state of synced K8s secret objects.

        :param annotations: annotations of k8s secret object.
        :param data: 
        :param labels: labels of K8s secret object.
        :param secret_name: name of the K8s secret object.
        :param type: type of K8s secret object.

        :schema: SecretProviderClassSpecSecretObjects
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__34599c124688a6e64bb13daf8c8c992f9b7f896960ee594e2b68207a2e138121)
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument data", value=data, expected_type=type_hints["data"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
            check_type(argname="argument secret_name", value=secret_name, expected_type=type_hints["secret_name"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if annotations is not None:
            self._values["annotations"] = annotations
        if data is not None:
            self._values["data"] = data
        if labels is not None:
            self._values["labels"] = labels
        if secret_name is not None:
            self._values["secret_name"] = secret_name
        if type is not None:
            self._values["type"] = type

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''annotations of k8s secret object.

        :schema: SecretProviderClassSpecSecretObjects#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def data(
        self,
    ) -> typing.Optional[typing.List["SecretProviderClassSpecSecretObjectsData"]]:
        '''
        :schema: SecretProviderClassSpecSecretObjects#data
        '''
        result = self._values.get("data")
        return typing.cast(typing.Optional[typing.List["SecretProviderClassSpecSecretObjectsData"]], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''labels of K8s secret object.

        :schema: SecretProviderClassSpecSecretObjects#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def secret_name(self) -> typing.Optional[builtins.str]:
        '''name of the K8s secret object.

        :schema: SecretProviderClassSpecSecretObjects#secretName
        '''
        result = self._values.get("secret_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def type(self) -> typing.Optional[builtins.str]:
        '''type of K8s secret object.

        :schema: SecretProviderClassSpecSecretObjects#type
        '''
        result = self._values.get("type")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "SecretProviderClassSpecSecretObjects(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="secretproviderclass_iox-k8scsisecrets-store.SecretProviderClassSpecSecretObjectsData",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "object_name": "objectName"},
)
class SecretProviderClassSpecSecretObjectsData:
    def __init__(
        self,
        *,
        key: typing.Optional[builtins.str] = None,
        object_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''SecretObjectData defines the desired state of synced K8s secret object data.

        :param key: data field to populate.
        :param object_name: name of the object to sync.

        :schema: SecretProviderClassSpecSecretObjectsData
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9aa26cece25869cf3f2b662285a885539b51977e9323c0148ace06f29737d85e)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument object_name", value=object_name, expected_type=type_hints["object_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if key is not None:
            self._values["key"] = key
        if object_name is not None:
            self._values["object_name"] = object_name

    @builtins.property
    def key(self) -> typing.Optional[builtins.str]:
        '''data field to populate.

        :schema: SecretProviderClassSpecSecretObjectsData#key
        '''
        result = self._values.get("key")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def object_name(self) -> typing.Optional[builtins.str]:
        '''name of the object to sync.

        :schema: SecretProviderClassSpecSecretObjectsData#objectName
        '''
        result = self._values.get("object_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "SecretProviderClassSpecSecretObjectsData(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class SecretProviderClassV1Alpha1(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="secretproviderclass_iox-k8scsisecrets-store.SecretProviderClassV1Alpha1",
):
    '''SecretProviderClass is the Schema for the secretproviderclasses API.

    :schema: SecretProviderClassV1Alpha1
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["SecretProviderClassV1Alpha1Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "SecretProviderClassV1Alpha1" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: SecretProviderClassSpec defines the desired state of SecretProviderClass.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b73c51ce123b09469f047bfbb50e2b31e3fd19ef2f974ed52a98b842797661fd)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = SecretProviderClassV1Alpha1Props(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["SecretProviderClassV1Alpha1Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "SecretProviderClassV1Alpha1".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: SecretProviderClassSpec defines the desired state of SecretProviderClass.
        '''
        props = SecretProviderClassV1Alpha1Props(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "SecretProviderClassV1Alpha1".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="secretproviderclass_iox-k8scsisecrets-store.SecretProviderClassV1Alpha1Props",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class SecretProviderClassV1Alpha1Props:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["SecretProviderClassV1Alpha1Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''SecretProviderClass is the Schema for the secretproviderclasses API.

        :param metadata: 
        :param spec: SecretProviderClassSpec defines the desired state of SecretProviderClass.

        :schema: SecretProviderClassV1Alpha1
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = SecretProviderClassV1Alpha1Spec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__562b5dc40b4cca19da057db714b54c24c29fd6fe6f4f09d7fb0a49f81c230ae1)
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
        :schema: SecretProviderClassV1Alpha1#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["SecretProviderClassV1Alpha1Spec"]:
        '''SecretProviderClassSpec defines the desired state of SecretProviderClass.

        :schema: SecretProviderClassV1Alpha1#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["SecretProviderClassV1Alpha1Spec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "SecretProviderClassV1Alpha1Props(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="secretproviderclass_iox-k8scsisecrets-store.SecretProviderClassV1Alpha1Spec",
    jsii_struct_bases=[],
    name_mapping={
        "parameters": "parameters",
        "provider": "provider",
        "secret_objects": "secretObjects",
    },
)
class SecretProviderClassV1Alpha1Spec:
    def __init__(
        self,
        *,
        parameters: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        provider: typing.Optional[builtins.str] = None,
        secret_objects: typing.Optional[typing.Sequence[typing.Union["SecretProviderClassV1Alpha1SpecSecretObjects", typing.Dict[builtins.str, typing.Any]]]] = None,
    ) -> None:
        '''SecretProviderClassSpec defines the desired state of SecretProviderClass.

        :param parameters: Configuration for specific provider.
        :param provider: Configuration for provider name.
        :param secret_objects: 

        :schema: SecretProviderClassV1Alpha1Spec
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__37d917e0a0f1af73d11b4942af321c791f0feb423f808322130a78d9c4779a8e)
            check_type(argname="argument parameters", value=parameters, expected_type=type_hints["parameters"])
            check_type(argname="argument provider", value=provider, expected_type=type_hints["provider"])
            check_type(argname="argument secret_objects", value=secret_objects, expected_type=type_hints["secret_objects"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if parameters is not None:
            self._values["parameters"] = parameters
        if provider is not None:
            self._values["provider"] = provider
        if secret_objects is not None:
            self._values["secret_objects"] = secret_objects

    @builtins.property
    def parameters(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''Configuration for specific provider.

        :schema: SecretProviderClassV1Alpha1Spec#parameters
        '''
        result = self._values.get("parameters")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def provider(self) -> typing.Optional[builtins.str]:
        '''Configuration for provider name.

        :schema: SecretProviderClassV1Alpha1Spec#provider
        '''
        result = self._values.get("provider")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def secret_objects(
        self,
    ) -> typing.Optional[typing.List["SecretProviderClassV1Alpha1SpecSecretObjects"]]:
        '''
        :schema: SecretProviderClassV1Alpha1Spec#secretObjects
        '''
        result = self._values.get("secret_objects")
        return typing.cast(typing.Optional[typing.List["SecretProviderClassV1Alpha1SpecSecretObjects"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "SecretProviderClassV1Alpha1Spec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="secretproviderclass_iox-k8scsisecrets-store.SecretProviderClassV1Alpha1SpecSecretObjects",
    jsii_struct_bases=[],
    name_mapping={
        "annotations": "annotations",
        "data": "data",
        "labels": "labels",
        "secret_name": "secretName",
        "type": "type",
    },
)
class SecretProviderClassV1Alpha1SpecSecretObjects:
    def __init__(
        self,
        *,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        data: typing.Optional[typing.Sequence[typing.Union["SecretProviderClassV1Alpha1SpecSecretObjectsData", typing.Dict[builtins.str, typing.Any]]]] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        secret_name: typing.Optional[builtins.str] = None,
        type: typing.Optional[builtins.str] = None,
    ) -> None:
        '''SecretObject defines the desired state of synced K8s secret objects.

        :param annotations: annotations of k8s secret object.
        :param data: 
        :param labels: labels of K8s secret object.
        :param secret_name: name of the K8s secret object.
        :param type: type of K8s secret object.

        :schema: SecretProviderClassV1Alpha1SpecSecretObjects
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__36b64da4941cb65ee5f24e412c879f4725f9506b7e2fc9a71e06e3820dbc3190)
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument data", value=data, expected_type=type_hints["data"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
            check_type(argname="argument secret_name", value=secret_name, expected_type=type_hints["secret_name"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if annotations is not None:
            self._values["annotations"] = annotations
        if data is not None:
            self._values["data"] = data
        if labels is not None:
            self._values["labels"] = labels
        if secret_name is not None:
            self._values["secret_name"] = secret_name
        if type is not None:
            self._values["type"] = type

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''annotations of k8s secret object.

        :schema: SecretProviderClassV1Alpha1SpecSecretObjects#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def data(
        self,
    ) -> typing.Optional[typing.List["SecretProviderClassV1Alpha1SpecSecretObjectsData"]]:
        '''
        :schema: SecretProviderClassV1Alpha1SpecSecretObjects#data
        '''
        result = self._values.get("data")
        return typing.cast(typing.Optional[typing.List["SecretProviderClassV1Alpha1SpecSecretObjectsData"]], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''labels of K8s secret object.

        :schema: SecretProviderClassV1Alpha1SpecSecretObjects#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def secret_name(self) -> typing.Optional[builtins.str]:
        '''name of the K8s secret object.

        :schema: SecretProviderClassV1Alpha1SpecSecretObjects#secretName
        '''
        result = self._values.get("secret_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def type(self) -> typing.Optional[builtins.str]:
        '''type of K8s secret object.

        :schema: SecretProviderClassV1Alpha1SpecSecretObjects#type
        '''
        result = self._values.get("type")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "SecretProviderClassV1Alpha1SpecSecretObjects(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="secretproviderclass_iox-k8scsisecrets-store.SecretProviderClassV1Alpha1SpecSecretObjectsData",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "object_name": "objectName"},
)
class SecretProviderClassV1Alpha1SpecSecretObjectsData:
    def __init__(
        self,
        *,
        key: typing.Optional[builtins.str] = None,
        object_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''SecretObjectData defines the desired state of synced K8s secret object data.

        :param key: data field to populate.
        :param object_name: name of the object to sync.

        :schema: SecretProviderClassV1Alpha1SpecSecretObjectsData
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__fe3926e76065f5f513e5928c0f20253f8a960aacf70045df760a5fc47f51bc72)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument object_name", value=object_name, expected_type=type_hints["object_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if key is not None:
            self._values["key"] = key
        if object_name is not None:
            self._values["object_name"] = object_name

    @builtins.property
    def key(self) -> typing.Optional[builtins.str]:
        '''data field to populate.

        :schema: SecretProviderClassV1Alpha1SpecSecretObjectsData#key
        '''
        result = self._values.get("key")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def object_name(self) -> typing.Optional[builtins.str]:
        '''name of the object to sync.

        :schema: SecretProviderClassV1Alpha1SpecSecretObjectsData#objectName
        '''
        result = self._values.get("object_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "SecretProviderClassV1Alpha1SpecSecretObjectsData(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


__all__ = [
    "SecretProviderClass",
    "SecretProviderClassProps",
    "SecretProviderClassSpec",
    "SecretProviderClassSpecSecretObjects",
    "SecretProviderClassSpecSecretObjectsData",
    "SecretProviderClassV1Alpha1",
    "SecretProviderClassV1Alpha1Props",
    "SecretProviderClassV1Alpha1Spec",
    "SecretProviderClassV1Alpha1SpecSecretObjects",
    "SecretProviderClassV1Alpha1SpecSecretObjectsData",
]

publication.publish()

def _typecheckingstub__d423dd890044cee78a20f29a621f7a75dddbbba26728618527cf73c901a40d56(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[SecretProviderClassSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a429c8dd09244242e367d7905a77f540a4edcb5b3a41b96e1b5d46578530e722(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[SecretProviderClassSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6b26e170c1e7b33d06af9ed6a5d5e7fff94d308e4e0175bba62a8f56878e5517(
    *,
    parameters: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    provider: typing.Optional[builtins.str] = None,
    secret_objects: typing.Optional[typing.Sequence[typing.Union[SecretProviderClassSpecSecretObjects, typing.Dict[builtins.str, typing.Any]]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__34599c124688a6e64bb13daf8c8c992f9b7f896960ee594e2b68207a2e138121(
    *,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    data: typing.Optional[typing.Sequence[typing.Union[SecretProviderClassSpecSecretObjectsData, typing.Dict[builtins.str, typing.Any]]]] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    secret_name: typing.Optional[builtins.str] = None,
    type: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9aa26cece25869cf3f2b662285a885539b51977e9323c0148ace06f29737d85e(
    *,
    key: typing.Optional[builtins.str] = None,
    object_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b73c51ce123b09469f047bfbb50e2b31e3fd19ef2f974ed52a98b842797661fd(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[SecretProviderClassV1Alpha1Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__562b5dc40b4cca19da057db714b54c24c29fd6fe6f4f09d7fb0a49f81c230ae1(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[SecretProviderClassV1Alpha1Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__37d917e0a0f1af73d11b4942af321c791f0feb423f808322130a78d9c4779a8e(
    *,
    parameters: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    provider: typing.Optional[builtins.str] = None,
    secret_objects: typing.Optional[typing.Sequence[typing.Union[SecretProviderClassV1Alpha1SpecSecretObjects, typing.Dict[builtins.str, typing.Any]]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__36b64da4941cb65ee5f24e412c879f4725f9506b7e2fc9a71e06e3820dbc3190(
    *,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    data: typing.Optional[typing.Sequence[typing.Union[SecretProviderClassV1Alpha1SpecSecretObjectsData, typing.Dict[builtins.str, typing.Any]]]] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    secret_name: typing.Optional[builtins.str] = None,
    type: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__fe3926e76065f5f513e5928c0f20253f8a960aacf70045df760a5fc47f51bc72(
    *,
    key: typing.Optional[builtins.str] = None,
    object_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass
