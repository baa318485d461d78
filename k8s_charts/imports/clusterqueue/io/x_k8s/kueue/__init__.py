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


class ClusterQueue(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueue",
):
    '''ClusterQueue is the Schema for the clusterQueue API.

    :schema: ClusterQueue
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ClusterQueue" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5a899b24cdaa7512083a615c568cd4a862eb4cc1d10825b428ffcf7cc373bef0)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ClusterQueueProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ClusterQueue".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.
        '''
        props = ClusterQueueProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ClusterQueue".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class ClusterQueueProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ClusterQueue is the Schema for the clusterQueue API.

        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.

        :schema: ClusterQueue
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = ClusterQueueSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__119b759d50e57951eca839d2d18d2573f087473ec7fd3fd557a404d12a90895a)
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
        :schema: ClusterQueue#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["ClusterQueueSpec"]:
        '''spec is the specification of the ClusterQueue.

        :schema: ClusterQueue#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["ClusterQueueSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpec",
    jsii_struct_bases=[],
    name_mapping={
        "admission_checks": "admissionChecks",
        "admission_checks_strategy": "admissionChecksStrategy",
        "admission_scope": "admissionScope",
        "cohort": "cohort",
        "fair_sharing": "fairSharing",
        "flavor_fungibility": "flavorFungibility",
        "namespace_selector": "namespaceSelector",
        "preemption": "preemption",
        "queueing_strategy": "queueingStrategy",
        "resource_groups": "resourceGroups",
        "stop_policy": "stopPolicy",
    },
)
class ClusterQueueSpec:
    def __init__(
        self,
        *,
        admission_checks: typing.Optional[typing.Sequence[builtins.str]] = None,
        admission_checks_strategy: typing.Optional[typing.Union["ClusterQueueSpecAdmissionChecksStrategy", typing.Dict[builtins.str, typing.Any]]] = None,
        admission_scope: typing.Optional[typing.Union["ClusterQueueSpecAdmissionScope", typing.Dict[builtins.str, typing.Any]]] = None,
        cohort: typing.Optional[builtins.str] = None,
        fair_sharing: typing.Optional[typing.Union["ClusterQueueSpecFairSharing", typing.Dict[builtins.str, typing.Any]]] = None,
        flavor_fungibility: typing.Optional[typing.Union["ClusterQueueSpecFlavorFungibility", typing.Dict[builtins.str, typing.Any]]] = None,
        namespace_selector: typing.Optional[typing.Union["ClusterQueueSpecNamespaceSelector", typing.Dict[builtins.str, typing.Any]]] = None,
        preemption: typing.Optional[typing.Union["ClusterQueueSpecPreemption", typing.Dict[builtins.str, typing.Any]]] = None,
        queueing_strategy: typing.Optional["ClusterQueueSpecQueueingStrategy"] = None,
        resource_groups: typing.Optional[typing.Sequence[typing.Union["ClusterQueueSpecResourceGroups", typing.Dict[builtins.str, typing.Any]]]] = None,
        stop_policy: typing.Optional["ClusterQueueSpecStopPolicy"] = None,
    ) -> None:
        '''spec is the specification of the ClusterQueue.

        :param admission_checks: admissionChecks lists the AdmissionChecks required by this ClusterQueue. Cannot be used along with AdmissionCheckStrategy.
        :param admission_checks_strategy: admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks. This property cannot be used in conjunction with the 'admissionChecks' property.
        :param admission_scope: admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.
        :param cohort: cohort that this ClusterQueue belongs to. CQs that belong to the same cohort can borrow unused resources from each other. A CQ can be a member of a single borrowing cohort. A workload submitted to a queue referencing this CQ can borrow quota from any CQ in the cohort. Only quota for the [resource, flavor] pairs listed in the CQ can be borrowed. If empty, this ClusterQueue cannot borrow from any other ClusterQueue and vice versa. A cohort is a name that links CQs together, but it doesn't reference any object.
        :param fair_sharing: fairSharing defines the properties of the ClusterQueue when participating in FairSharing. The values are only relevant if FairSharing is enabled in the Kueue configuration.
        :param flavor_fungibility: flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.
        :param namespace_selector: namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue. Beyond this basic support for policy, a policy agent like Gatekeeper should be used to enforce more advanced policies. Defaults to null which is a nothing selector (no namespaces eligible). If set to an empty selector ``{}``, then all namespaces are eligible. Default: null which is a nothing selector (no namespaces eligible).
        :param preemption: preemption defines the preemption policies.
        :param queueing_strategy: queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:. - StrictFIFO: workloads are ordered strictly by creation time. Older workloads that can't be admitted will block admitting newer workloads even if they fit available quota. - BestEffortFIFO: workloads are ordered by creation time, however older workloads that can't be admitted will not block admitting newer workloads that fit existing quota.
        :param resource_groups: resourceGroups describes groups of resources. Each resource group defines the list of resources and a list of flavors that provide quotas for these resources. Each resource and each flavor can only form part of one resource group. resourceGroups can be up to 16, with a max of 256 total flavors across all groups.
        :param stop_policy: stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made. Depending on its value, its associated workloads will: - None - Workloads are admitted - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation. - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: ClusterQueueSpec
        '''
        if isinstance(admission_checks_strategy, dict):
            admission_checks_strategy = ClusterQueueSpecAdmissionChecksStrategy(**admission_checks_strategy)
        if isinstance(admission_scope, dict):
            admission_scope = ClusterQueueSpecAdmissionScope(**admission_scope)
        if isinstance(fair_sharing, dict):
            fair_sharing = ClusterQueueSpecFairSharing(**fair_sharing)
        if isinstance(flavor_fungibility, dict):
            flavor_fungibility = ClusterQueueSpecFlavorFungibility(**flavor_fungibility)
        if isinstance(namespace_selector, dict):
            namespace_selector = ClusterQueueSpecNamespaceSelector(**namespace_selector)
        if isinstance(preemption, dict):
            preemption = ClusterQueueSpecPreemption(**preemption)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__30847d62ba9501f631073aca327c56f1e7731e852ebaed815b05c0a5001393c2)
            check_type(argname="argument admission_checks", value=admission_checks, expected_type=type_hints["admission_checks"])
            check_type(argname="argument admission_checks_strategy", value=admission_checks_strategy, expected_type=type_hints["admission_checks_strategy"])
            check_type(argname="argument admission_scope", value=admission_scope, expected_type=type_hints["admission_scope"])
            check_type(argname="argument cohort", value=cohort, expected_type=type_hints["cohort"])
            check_type(argname="argument fair_sharing", value=fair_sharing, expected_type=type_hints["fair_sharing"])
            check_type(argname="argument flavor_fungibility", value=flavor_fungibility, expected_type=type_hints["flavor_fungibility"])
            check_type(argname="argument namespace_selector", value=namespace_selector, expected_type=type_hints["namespace_selector"])
            check_type(argname="argument preemption", value=preemption, expected_type=type_hints["preemption"])
            check_type(argname="argument queueing_strategy", value=queueing_strategy, expected_type=type_hints["queueing_strategy"])
            check_type(argname="argument resource_groups", value=resource_groups, expected_type=type_hints["resource_groups"])
            check_type(argname="argument stop_policy", value=stop_policy, expected_type=type_hints["stop_policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if admission_checks is not None:
            self._values["admission_checks"] = admission_checks
        if admission_checks_strategy is not None:
            self._values["admission_checks_strategy"] = admission_checks_strategy
        if admission_scope is not None:
            self._values["admission_scope"] = admission_scope
        if cohort is not None:
            self._values["cohort"] = cohort
        if fair_sharing is not None:
            self._values["fair_sharing"] = fair_sharing
        if flavor_fungibility is not None:
            self._values["flavor_fungibility"] = flavor_fungibility
        if namespace_selector is not None:
            self._values["namespace_selector"] = namespace_selector
        if preemption is not None:
            self._values["preemption"] = preemption
        if queueing_strategy is not None:
            self._values["queueing_strategy"] = queueing_strategy
        if resource_groups is not None:
            self._values["resource_groups"] = resource_groups
        if stop_policy is not None:
            self._values["stop_policy"] = stop_policy

    @builtins.property
    def admission_checks(self) -> typing.Optional[typing.List[builtins.str]]:
        '''admissionChecks lists the AdmissionChecks required by this ClusterQueue.

        Cannot be used along with AdmissionCheckStrategy.

        :schema: ClusterQueueSpec#admissionChecks
        '''
        result = self._values.get("admission_checks")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def admission_checks_strategy(
        self,
    ) -> typing.Optional["ClusterQueueSpecAdmissionChecksStrategy"]:
        '''admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks.

        This property cannot be used in conjunction with the 'admissionChecks' property.

        :schema: ClusterQueueSpec#admissionChecksStrategy
        '''
        result = self._values.get("admission_checks_strategy")
        return typing.cast(typing.Optional["ClusterQueueSpecAdmissionChecksStrategy"], result)

    @builtins.property
    def admission_scope(self) -> typing.Optional["ClusterQueueSpecAdmissionScope"]:
        '''admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.

        :schema: ClusterQueueSpec#admissionScope
        '''
        result = self._values.get("admission_scope")
        return typing.cast(typing.Optional["ClusterQueueSpecAdmissionScope"], result)

    @builtins.property
    def cohort(self) -> typing.Optional[builtins.str]:
        '''cohort that this ClusterQueue belongs to. CQs that belong to the same cohort can borrow unused resources from each other.

        A CQ can be a member of a single borrowing cohort. A workload submitted
        to a queue referencing this CQ can borrow quota from any CQ in the cohort.
        Only quota for the [resource, flavor] pairs listed in the CQ can be
        borrowed.
        If empty, this ClusterQueue cannot borrow from any other ClusterQueue and
        vice versa.

        A cohort is a name that links CQs together, but it doesn't reference any
        object.

        :schema: ClusterQueueSpec#cohort
        '''
        result = self._values.get("cohort")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def fair_sharing(self) -> typing.Optional["ClusterQueueSpecFairSharing"]:
        '''fairSharing defines the properties of the ClusterQueue when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :schema: ClusterQueueSpec#fairSharing
        '''
        result = self._values.get("fair_sharing")
        return typing.cast(typing.Optional["ClusterQueueSpecFairSharing"], result)

    @builtins.property
    def flavor_fungibility(
        self,
    ) -> typing.Optional["ClusterQueueSpecFlavorFungibility"]:
        '''flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.

        :schema: ClusterQueueSpec#flavorFungibility
        '''
        result = self._values.get("flavor_fungibility")
        return typing.cast(typing.Optional["ClusterQueueSpecFlavorFungibility"], result)

    @builtins.property
    def namespace_selector(
        self,
    ) -> typing.Optional["ClusterQueueSpecNamespaceSelector"]:
        '''namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue.

        Beyond this basic support for policy, a policy agent like
        Gatekeeper should be used to enforce more advanced policies.
        Defaults to null which is a nothing selector (no namespaces eligible).
        If set to an empty selector ``{}``, then all namespaces are eligible.

        :default: null which is a nothing selector (no namespaces eligible).

        :schema: ClusterQueueSpec#namespaceSelector
        '''
        result = self._values.get("namespace_selector")
        return typing.cast(typing.Optional["ClusterQueueSpecNamespaceSelector"], result)

    @builtins.property
    def preemption(self) -> typing.Optional["ClusterQueueSpecPreemption"]:
        '''preemption defines the preemption policies.

        :schema: ClusterQueueSpec#preemption
        '''
        result = self._values.get("preemption")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemption"], result)

    @builtins.property
    def queueing_strategy(self) -> typing.Optional["ClusterQueueSpecQueueingStrategy"]:
        '''queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:.

        - StrictFIFO: workloads are ordered strictly by creation time.
          Older workloads that can't be admitted will block admitting newer
          workloads even if they fit available quota.
        - BestEffortFIFO: workloads are ordered by creation time,
          however older workloads that can't be admitted will not block
          admitting newer workloads that fit existing quota.

        :schema: ClusterQueueSpec#queueingStrategy
        '''
        result = self._values.get("queueing_strategy")
        return typing.cast(typing.Optional["ClusterQueueSpecQueueingStrategy"], result)

    @builtins.property
    def resource_groups(
        self,
    ) -> typing.Optional[typing.List["ClusterQueueSpecResourceGroups"]]:
        '''resourceGroups describes groups of resources.

        Each resource group defines the list of resources and a list of flavors
        that provide quotas for these resources.
        Each resource and each flavor can only form part of one resource group.
        resourceGroups can be up to 16, with a max of 256 total flavors across all groups.

        :schema: ClusterQueueSpec#resourceGroups
        '''
        result = self._values.get("resource_groups")
        return typing.cast(typing.Optional[typing.List["ClusterQueueSpecResourceGroups"]], result)

    @builtins.property
    def stop_policy(self) -> typing.Optional["ClusterQueueSpecStopPolicy"]:
        '''stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made.

        Depending on its value, its associated workloads will:

        - None - Workloads are admitted
        - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
        - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: ClusterQueueSpec#stopPolicy
        '''
        result = self._values.get("stop_policy")
        return typing.cast(typing.Optional["ClusterQueueSpecStopPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecAdmissionChecksStrategy",
    jsii_struct_bases=[],
    name_mapping={"admission_checks": "admissionChecks"},
)
class ClusterQueueSpecAdmissionChecksStrategy:
    def __init__(
        self,
        *,
        admission_checks: typing.Optional[typing.Sequence[typing.Union["ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks", typing.Dict[builtins.str, typing.Any]]]] = None,
    ) -> None:
        '''admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks.

        This property cannot be used in conjunction with the 'admissionChecks' property.

        :param admission_checks: admissionChecks is a list of strategies for AdmissionChecks.

        :schema: ClusterQueueSpecAdmissionChecksStrategy
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d781696d37c24c664be97b6c92ad06fdf5447a74e6f9139fa21d5a3dfa5f50aa)
            check_type(argname="argument admission_checks", value=admission_checks, expected_type=type_hints["admission_checks"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if admission_checks is not None:
            self._values["admission_checks"] = admission_checks

    @builtins.property
    def admission_checks(
        self,
    ) -> typing.Optional[typing.List["ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks"]]:
        '''admissionChecks is a list of strategies for AdmissionChecks.

        :schema: ClusterQueueSpecAdmissionChecksStrategy#admissionChecks
        '''
        result = self._values.get("admission_checks")
        return typing.cast(typing.Optional[typing.List["ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecAdmissionChecksStrategy(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "on_flavors": "onFlavors"},
)
class ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks:
    def __init__(
        self,
        *,
        name: builtins.str,
        on_flavors: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''AdmissionCheckStrategyRule defines rules for a single AdmissionCheck.

        :param name: name is an AdmissionCheck's name.
        :param on_flavors: onFlavors is a list of ResourceFlavors' names that this AdmissionCheck should run for. If empty, the AdmissionCheck will run for all workloads submitted to the ClusterQueue.

        :schema: ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__edce727de556fb490cf8a492b4b7a9566a4d30f9bec795ee88d6fd5b517ed732)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument on_flavors", value=on_flavors, expected_type=type_hints["on_flavors"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
        }
        if on_flavors is not None:
            self._values["on_flavors"] = on_flavors

    @builtins.property
    def name(self) -> builtins.str:
        '''name is an AdmissionCheck's name.

        :schema: ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def on_flavors(self) -> typing.Optional[typing.List[builtins.str]]:
        '''onFlavors is a list of ResourceFlavors' names that this AdmissionCheck should run for.

        If empty, the AdmissionCheck will run for all workloads submitted to the ClusterQueue.

        :schema: ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks#onFlavors
        '''
        result = self._values.get("on_flavors")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecAdmissionScope",
    jsii_struct_bases=[],
    name_mapping={"admission_mode": "admissionMode"},
)
class ClusterQueueSpecAdmissionScope:
    def __init__(self, *, admission_mode: builtins.str) -> None:
        '''admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.

        :param admission_mode: admissionMode indicates which mode for AdmissionFairSharing should be used in the AdmissionScope. Possible values are: - UsageBasedAdmissionFairSharing - NoAdmissionFairSharing

        :schema: ClusterQueueSpecAdmissionScope
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b0ec5621432a272ce813a313705c499f8ce7b2350479a2881ed0bb802462bb0c)
            check_type(argname="argument admission_mode", value=admission_mode, expected_type=type_hints["admission_mode"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "admission_mode": admission_mode,
        }

    @builtins.property
    def admission_mode(self) -> builtins.str:
        '''admissionMode indicates which mode for AdmissionFairSharing should be used in the AdmissionScope.

        Possible values are:

        - UsageBasedAdmissionFairSharing
        - NoAdmissionFairSharing

        :schema: ClusterQueueSpecAdmissionScope#admissionMode
        '''
        result = self._values.get("admission_mode")
        assert result is not None, "Required property 'admission_mode' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecAdmissionScope(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecFairSharing",
    jsii_struct_bases=[],
    name_mapping={"weight": "weight"},
)
class ClusterQueueSpecFairSharing:
    def __init__(
        self,
        *,
        weight: typing.Optional["ClusterQueueSpecFairSharingWeight"] = None,
    ) -> None:
        '''fairSharing defines the properties of the ClusterQueue when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :param weight: weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort. The share is based on the dominant resource usage above nominal quotas for each resource, divided by the weight. Admission prioritizes scheduling workloads from ClusterQueues and Cohorts with the lowest share and preempting workloads from the ClusterQueues and Cohorts with the highest share. A zero weight implies infinite share value, meaning that this Node will always be at disadvantage against other ClusterQueues and Cohorts. When not 0, Weight must be greater than 10^-9.

        :schema: ClusterQueueSpecFairSharing
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7d21ace9f1774c2d46cb0e4b1c6102c66fb026085928262ecbccc4a9998c70d6)
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def weight(self) -> typing.Optional["ClusterQueueSpecFairSharingWeight"]:
        '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

        The share is based on the dominant resource usage
        above nominal quotas for each resource, divided by the
        weight.  Admission prioritizes scheduling workloads from
        ClusterQueues and Cohorts with the lowest share and
        preempting workloads from the ClusterQueues and Cohorts
        with the highest share.  A zero weight implies infinite
        share value, meaning that this Node will always be at
        disadvantage against other ClusterQueues and Cohorts.
        When not 0, Weight must be greater than 10^-9.

        :schema: ClusterQueueSpecFairSharing#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional["ClusterQueueSpecFairSharingWeight"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecFairSharing(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ClusterQueueSpecFairSharingWeight(
    metaclass=jsii.JSIIMeta,
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecFairSharingWeight",
):
    '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

    The share is based on the dominant resource usage
    above nominal quotas for each resource, divided by the
    weight.  Admission prioritizes scheduling workloads from
    ClusterQueues and Cohorts with the lowest share and
    preempting workloads from the ClusterQueues and Cohorts
    with the highest share.  A zero weight implies infinite
    share value, meaning that this Node will always be at
    disadvantage against other ClusterQueues and Cohorts.
    When not 0, Weight must be greater than 10^-9.

    :schema: ClusterQueueSpecFairSharingWeight
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "ClusterQueueSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f4ec8b5acdf6938b871dfbc1ea3c8243881fced5b6856541d3eee6ad90b1c845)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecFairSharingWeight", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "ClusterQueueSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7696d1384d770c6060006035a7d274970936644ab7bc4e179dc64d660c27ed58)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecFairSharingWeight", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecFlavorFungibility",
    jsii_struct_bases=[],
    name_mapping={
        "preference": "preference",
        "when_can_borrow": "whenCanBorrow",
        "when_can_preempt": "whenCanPreempt",
    },
)
class ClusterQueueSpecFlavorFungibility:
    def __init__(
        self,
        *,
        preference: typing.Optional["ClusterQueueSpecFlavorFungibilityPreference"] = None,
        when_can_borrow: typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanBorrow"] = None,
        when_can_preempt: typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanPreempt"] = None,
    ) -> None:
        '''flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.

        :param preference: preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both. The possible values are: - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption when such a choice is possible. More technically it minimizes the borrowing distance in the cohort tree, and solves tie-breaks by preferring better preemption mode (reclaim over preemption within ClusterQueue). - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing when such a choice is possible. More technically it optimizes the preemption mode (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing the borrowing distance in the cohort tree.
        :param when_can_borrow: whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:. - ``MayStopSearch`` (default): stop the search for candidate flavors if workload fits or requires borrowing to fit. - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit. - ``Borrow`` (deprecated): old name for ``MayStopSearch``; please use new name.
        :param when_can_preempt: whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:. - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires preemption to fit. - ``TryNextFlavor`` (default): try next flavor if workload requires preemption to fit in current flavor. - ``Preempt`` (deprecated): old name for ``MayStopSearch``; please use new name.

        :schema: ClusterQueueSpecFlavorFungibility
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ed6f35f6089bc38b75bf8d30141ebbb40580454cf201f48a4fbd7e37414566d2)
            check_type(argname="argument preference", value=preference, expected_type=type_hints["preference"])
            check_type(argname="argument when_can_borrow", value=when_can_borrow, expected_type=type_hints["when_can_borrow"])
            check_type(argname="argument when_can_preempt", value=when_can_preempt, expected_type=type_hints["when_can_preempt"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if preference is not None:
            self._values["preference"] = preference
        if when_can_borrow is not None:
            self._values["when_can_borrow"] = when_can_borrow
        if when_can_preempt is not None:
            self._values["when_can_preempt"] = when_can_preempt

    @builtins.property
    def preference(
        self,
    ) -> typing.Optional["ClusterQueueSpecFlavorFungibilityPreference"]:
        '''preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both.

        The possible values are:

        - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption
          when such a choice is possible. More technically it minimizes the borrowing distance
          in the cohort tree, and solves tie-breaks by preferring better preemption mode
          (reclaim over preemption within ClusterQueue).
        - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing
          when such a choice is possible.  More technically it optimizes the preemption mode
          (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing
          the borrowing distance in the cohort tree.

        :schema: ClusterQueueSpecFlavorFungibility#preference
        '''
        result = self._values.get("preference")
        return typing.cast(typing.Optional["ClusterQueueSpecFlavorFungibilityPreference"], result)

    @builtins.property
    def when_can_borrow(
        self,
    ) -> typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanBorrow"]:
        '''whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:.

        - ``MayStopSearch`` (default): stop the search for candidate flavors if workload
          fits or requires borrowing to fit.
        - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit.
        - ``Borrow`` (deprecated): old name for ``MayStopSearch``; please use new name.

        :schema: ClusterQueueSpecFlavorFungibility#whenCanBorrow
        '''
        result = self._values.get("when_can_borrow")
        return typing.cast(typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanBorrow"], result)

    @builtins.property
    def when_can_preempt(
        self,
    ) -> typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanPreempt"]:
        '''whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:.

        - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires
          preemption to fit.
        - ``TryNextFlavor`` (default): try next flavor if workload requires preemption
          to fit in current flavor.
        - ``Preempt`` (deprecated): old name for ``MayStopSearch``; please use new name.

        :schema: ClusterQueueSpecFlavorFungibility#whenCanPreempt
        '''
        result = self._values.get("when_can_preempt")
        return typing.cast(typing.Optional["ClusterQueueSpecFlavorFungibilityWhenCanPreempt"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecFlavorFungibility(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecFlavorFungibilityPreference"
)
class ClusterQueueSpecFlavorFungibilityPreference(enum.Enum):
    '''preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both.

    The possible values are:

    - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption
      when such a choice is possible. More technically it minimizes the borrowing distance
      in the cohort tree, and solves tie-breaks by preferring better preemption mode
      (reclaim over preemption within ClusterQueue).
    - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing
      when such a choice is possible.  More technically it optimizes the preemption mode
      (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing
      the borrowing distance in the cohort tree.

    :schema: ClusterQueueSpecFlavorFungibilityPreference
    '''

    BORROWING_OVER_PREEMPTION = "BORROWING_OVER_PREEMPTION"
    '''BorrowingOverPreemption.'''
    PREEMPTION_OVER_BORROWING = "PREEMPTION_OVER_BORROWING"
    '''PreemptionOverBorrowing.'''


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecFlavorFungibilityWhenCanBorrow"
)
class ClusterQueueSpecFlavorFungibilityWhenCanBorrow(enum.Enum):
    '''whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:.

    - ``MayStopSearch`` (default): stop the search for candidate flavors if workload
      fits or requires borrowing to fit.
    - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit.
    - ``Borrow`` (deprecated): old name for ``MayStopSearch``; please use new name.

    :schema: ClusterQueueSpecFlavorFungibilityWhenCanBorrow
    '''

    MAY_STOP_SEARCH = "MAY_STOP_SEARCH"
    '''MayStopSearch.'''
    TRY_NEXT_FLAVOR = "TRY_NEXT_FLAVOR"
    '''TryNextFlavor.'''
    BORROW = "BORROW"
    '''Borrow.'''


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecFlavorFungibilityWhenCanPreempt"
)
class ClusterQueueSpecFlavorFungibilityWhenCanPreempt(enum.Enum):
    '''whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:.

    - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires
      preemption to fit.
    - ``TryNextFlavor`` (default): try next flavor if workload requires preemption
      to fit in current flavor.
    - ``Preempt`` (deprecated): old name for ``MayStopSearch``; please use new name.

    :schema: ClusterQueueSpecFlavorFungibilityWhenCanPreempt
    '''

    MAY_STOP_SEARCH = "MAY_STOP_SEARCH"
    '''MayStopSearch.'''
    TRY_NEXT_FLAVOR = "TRY_NEXT_FLAVOR"
    '''TryNextFlavor.'''
    PREEMPT = "PREEMPT"
    '''Preempt.'''


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecNamespaceSelector",
    jsii_struct_bases=[],
    name_mapping={
        "match_expressions": "matchExpressions",
        "match_labels": "matchLabels",
    },
)
class ClusterQueueSpecNamespaceSelector:
    def __init__(
        self,
        *,
        match_expressions: typing.Optional[typing.Sequence[typing.Union["ClusterQueueSpecNamespaceSelectorMatchExpressions", typing.Dict[builtins.str, typing.Any]]]] = None,
        match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue.

        Beyond this basic support for policy, a policy agent like
        Gatekeeper should be used to enforce more advanced policies.
        Defaults to null which is a nothing selector (no namespaces eligible).
        If set to an empty selector ``{}``, then all namespaces are eligible.

        :param match_expressions: matchExpressions is a list of label selector requirements. The requirements are ANDed.
        :param match_labels: matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value". The requirements are ANDed.

        :default: null which is a nothing selector (no namespaces eligible).

        :schema: ClusterQueueSpecNamespaceSelector
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__bc8407745932982f0a9ec1e1d8dd2c4c2cd0001b7a9eb5dd6ed83b9962dd6f72)
            check_type(argname="argument match_expressions", value=match_expressions, expected_type=type_hints["match_expressions"])
            check_type(argname="argument match_labels", value=match_labels, expected_type=type_hints["match_labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if match_expressions is not None:
            self._values["match_expressions"] = match_expressions
        if match_labels is not None:
            self._values["match_labels"] = match_labels

    @builtins.property
    def match_expressions(
        self,
    ) -> typing.Optional[typing.List["ClusterQueueSpecNamespaceSelectorMatchExpressions"]]:
        '''matchExpressions is a list of label selector requirements.

        The requirements are ANDed.

        :schema: ClusterQueueSpecNamespaceSelector#matchExpressions
        '''
        result = self._values.get("match_expressions")
        return typing.cast(typing.Optional[typing.List["ClusterQueueSpecNamespaceSelectorMatchExpressions"]], result)

    @builtins.property
    def match_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''matchLabels is a map of {key,value} pairs.

        A single {key,value} in the matchLabels
        map is equivalent to an element of matchExpressions, whose key field is "key", the
        operator is "In", and the values array contains only "value". The requirements are ANDed.

        :schema: ClusterQueueSpecNamespaceSelector#matchLabels
        '''
        result = self._values.get("match_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecNamespaceSelector(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecNamespaceSelectorMatchExpressions",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "operator": "operator", "values": "values"},
)
class ClusterQueueSpecNamespaceSelectorMatchExpressions:
    def __init__(
        self,
        *,
        key: builtins.str,
        operator: builtins.str,
        values: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.

        :param key: key is the label key that the selector applies to.
        :param operator: operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.
        :param values: values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.

        :schema: ClusterQueueSpecNamespaceSelectorMatchExpressions
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f28c9c5a52d6d69d0f73a019a62c9fc2c8d2d95755424bdef2aa9d9b3e94dbd0)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument operator", value=operator, expected_type=type_hints["operator"])
            check_type(argname="argument values", value=values, expected_type=type_hints["values"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "operator": operator,
        }
        if values is not None:
            self._values["values"] = values

    @builtins.property
    def key(self) -> builtins.str:
        '''key is the label key that the selector applies to.

        :schema: ClusterQueueSpecNamespaceSelectorMatchExpressions#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def operator(self) -> builtins.str:
        '''operator represents a key's relationship to a set of values.

        Valid operators are In, NotIn, Exists and DoesNotExist.

        :schema: ClusterQueueSpecNamespaceSelectorMatchExpressions#operator
        '''
        result = self._values.get("operator")
        assert result is not None, "Required property 'operator' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def values(self) -> typing.Optional[typing.List[builtins.str]]:
        '''values is an array of string values.

        If the operator is In or NotIn,
        the values array must be non-empty. If the operator is Exists or DoesNotExist,
        the values array must be empty. This array is replaced during a strategic
        merge patch.

        :schema: ClusterQueueSpecNamespaceSelectorMatchExpressions#values
        '''
        result = self._values.get("values")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecNamespaceSelectorMatchExpressions(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecPreemption",
    jsii_struct_bases=[],
    name_mapping={
        "borrow_within_cohort": "borrowWithinCohort",
        "reclaim_within_cohort": "reclaimWithinCohort",
        "within_cluster_queue": "withinClusterQueue",
    },
)
class ClusterQueueSpecPreemption:
    def __init__(
        self,
        *,
        borrow_within_cohort: typing.Optional[typing.Union["ClusterQueueSpecPreemptionBorrowWithinCohort", typing.Dict[builtins.str, typing.Any]]] = None,
        reclaim_within_cohort: typing.Optional["ClusterQueueSpecPreemptionReclaimWithinCohort"] = None,
        within_cluster_queue: typing.Optional["ClusterQueueSpecPreemptionWithinClusterQueue"] = None,
    ) -> None:
        '''preemption defines the preemption policies.

        :param borrow_within_cohort: borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing. May only be configured with Classical Preemption, and **not** with Fair Sharing.
        :param reclaim_within_cohort: reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota. The possible values are: - ``Never`` (default): do not preempt Workloads in the cohort. - ``LowerPriority``: **Classic Preemption** if the pending Workload fits within the nominal quota of its ClusterQueue, only preempt Workloads in the cohort that have lower priority than the pending Workload. **Fair Sharing** only preempt Workloads in the cohort that have lower priority than the pending Workload and that satisfy the Fair Sharing preemptionStategies. - ``Any``: **Classic Preemption** if the pending Workload fits within the nominal quota of its ClusterQueue, preempt any Workload in the cohort, irrespective of priority. **Fair Sharing** preempt Workloads in the cohort that satisfy the Fair Sharing preemptionStrategies.
        :param within_cluster_queue: withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue. The possible values are: - ``Never`` (default): do not preempt Workloads in the ClusterQueue. - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have lower priority than the pending Workload. - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that either have a lower priority than the pending workload or equal priority and are newer than the pending workload.

        :schema: ClusterQueueSpecPreemption
        '''
        if isinstance(borrow_within_cohort, dict):
            borrow_within_cohort = ClusterQueueSpecPreemptionBorrowWithinCohort(**borrow_within_cohort)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b9da0ee2640c5951fd2609e3be586f5cda26dd59b11094c94401fb5f08b0974d)
            check_type(argname="argument borrow_within_cohort", value=borrow_within_cohort, expected_type=type_hints["borrow_within_cohort"])
            check_type(argname="argument reclaim_within_cohort", value=reclaim_within_cohort, expected_type=type_hints["reclaim_within_cohort"])
            check_type(argname="argument within_cluster_queue", value=within_cluster_queue, expected_type=type_hints["within_cluster_queue"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if borrow_within_cohort is not None:
            self._values["borrow_within_cohort"] = borrow_within_cohort
        if reclaim_within_cohort is not None:
            self._values["reclaim_within_cohort"] = reclaim_within_cohort
        if within_cluster_queue is not None:
            self._values["within_cluster_queue"] = within_cluster_queue

    @builtins.property
    def borrow_within_cohort(
        self,
    ) -> typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohort"]:
        '''borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing.

        May only be configured with Classical Preemption, and **not** with Fair Sharing.

        :schema: ClusterQueueSpecPreemption#borrowWithinCohort
        '''
        result = self._values.get("borrow_within_cohort")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohort"], result)

    @builtins.property
    def reclaim_within_cohort(
        self,
    ) -> typing.Optional["ClusterQueueSpecPreemptionReclaimWithinCohort"]:
        '''reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota.

        The possible values are:

        - ``Never`` (default): do not preempt Workloads in the cohort.
        - ``LowerPriority``: **Classic Preemption** if the pending Workload
          fits within the nominal quota of its ClusterQueue, only preempt
          Workloads in the cohort that have lower priority than the pending
          Workload. **Fair Sharing** only preempt Workloads in the cohort that
          have lower priority than the pending Workload and that satisfy the
          Fair Sharing preemptionStategies.
        - ``Any``: **Classic Preemption** if the pending Workload fits within
          the nominal quota of its ClusterQueue, preempt any Workload in the
          cohort, irrespective of priority. **Fair Sharing** preempt Workloads
          in the cohort that satisfy the Fair Sharing preemptionStrategies.

        :schema: ClusterQueueSpecPreemption#reclaimWithinCohort
        '''
        result = self._values.get("reclaim_within_cohort")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemptionReclaimWithinCohort"], result)

    @builtins.property
    def within_cluster_queue(
        self,
    ) -> typing.Optional["ClusterQueueSpecPreemptionWithinClusterQueue"]:
        '''withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue.

        The possible values are:

        - ``Never`` (default): do not preempt Workloads in the ClusterQueue.
        - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have
          lower priority than the pending Workload.
        - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that
          either have a lower priority than the pending workload or equal priority
          and are newer than the pending workload.

        :schema: ClusterQueueSpecPreemption#withinClusterQueue
        '''
        result = self._values.get("within_cluster_queue")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemptionWithinClusterQueue"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecPreemption(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecPreemptionBorrowWithinCohort",
    jsii_struct_bases=[],
    name_mapping={
        "max_priority_threshold": "maxPriorityThreshold",
        "policy": "policy",
    },
)
class ClusterQueueSpecPreemptionBorrowWithinCohort:
    def __init__(
        self,
        *,
        max_priority_threshold: typing.Optional[jsii.Number] = None,
        policy: typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohortPolicy"] = None,
    ) -> None:
        '''borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing.

        May only be configured with Classical Preemption, and **not** with Fair Sharing.

        :param max_priority_threshold: maxPriorityThreshold allows to restrict the set of workloads which might be preempted by a borrowing workload, to only workloads with priority less than or equal to the specified threshold priority. When the threshold is not specified, then any workload satisfying the policy can be preempted by the borrowing workload.
        :param policy: policy determines the policy for preemption to reclaim quota within cohort while borrowing. Possible values are: - ``Never`` (default): do not allow for preemption, in other ClusterQueues within the cohort, for a borrowing workload. - ``LowerPriority``: allow preemption, in other ClusterQueues within the cohort, for a borrowing workload, but only if the preempted workloads are of lower priority.

        :schema: ClusterQueueSpecPreemptionBorrowWithinCohort
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b641b852262d369033faa9d60215ac81e62d5b4e8641b1f5b748e64f2e52ce23)
            check_type(argname="argument max_priority_threshold", value=max_priority_threshold, expected_type=type_hints["max_priority_threshold"])
            check_type(argname="argument policy", value=policy, expected_type=type_hints["policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if max_priority_threshold is not None:
            self._values["max_priority_threshold"] = max_priority_threshold
        if policy is not None:
            self._values["policy"] = policy

    @builtins.property
    def max_priority_threshold(self) -> typing.Optional[jsii.Number]:
        '''maxPriorityThreshold allows to restrict the set of workloads which might be preempted by a borrowing workload, to only workloads with priority less than or equal to the specified threshold priority.

        When the threshold is not specified, then any workload satisfying the
        policy can be preempted by the borrowing workload.

        :schema: ClusterQueueSpecPreemptionBorrowWithinCohort#maxPriorityThreshold
        '''
        result = self._values.get("max_priority_threshold")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def policy(
        self,
    ) -> typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohortPolicy"]:
        '''policy determines the policy for preemption to reclaim quota within cohort while borrowing.

        Possible values are:

        - ``Never`` (default): do not allow for preemption, in other
          ClusterQueues within the cohort, for a borrowing workload.
        - ``LowerPriority``: allow preemption, in other ClusterQueues
          within the cohort, for a borrowing workload, but only if
          the preempted workloads are of lower priority.

        :schema: ClusterQueueSpecPreemptionBorrowWithinCohort#policy
        '''
        result = self._values.get("policy")
        return typing.cast(typing.Optional["ClusterQueueSpecPreemptionBorrowWithinCohortPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecPreemptionBorrowWithinCohort(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecPreemptionBorrowWithinCohortPolicy"
)
class ClusterQueueSpecPreemptionBorrowWithinCohortPolicy(enum.Enum):
    '''policy determines the policy for preemption to reclaim quota within cohort while borrowing.

    Possible values are:

    - ``Never`` (default): do not allow for preemption, in other
      ClusterQueues within the cohort, for a borrowing workload.
    - ``LowerPriority``: allow preemption, in other ClusterQueues
      within the cohort, for a borrowing workload, but only if
      the preempted workloads are of lower priority.

    :schema: ClusterQueueSpecPreemptionBorrowWithinCohortPolicy
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecPreemptionReclaimWithinCohort"
)
class ClusterQueueSpecPreemptionReclaimWithinCohort(enum.Enum):
    '''reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota.

    The possible values are:

    - ``Never`` (default): do not preempt Workloads in the cohort.
    - ``LowerPriority``: **Classic Preemption** if the pending Workload
      fits within the nominal quota of its ClusterQueue, only preempt
      Workloads in the cohort that have lower priority than the pending
      Workload. **Fair Sharing** only preempt Workloads in the cohort that
      have lower priority than the pending Workload and that satisfy the
      Fair Sharing preemptionStategies.
    - ``Any``: **Classic Preemption** if the pending Workload fits within
      the nominal quota of its ClusterQueue, preempt any Workload in the
      cohort, irrespective of priority. **Fair Sharing** preempt Workloads
      in the cohort that satisfy the Fair Sharing preemptionStrategies.

    :schema: ClusterQueueSpecPreemptionReclaimWithinCohort
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''
    ANY = "ANY"
    '''Any.'''


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecPreemptionWithinClusterQueue"
)
class ClusterQueueSpecPreemptionWithinClusterQueue(enum.Enum):
    '''withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue.

    The possible values are:

    - ``Never`` (default): do not preempt Workloads in the ClusterQueue.
    - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have
      lower priority than the pending Workload.
    - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that
      either have a lower priority than the pending workload or equal priority
      and are newer than the pending workload.

    :schema: ClusterQueueSpecPreemptionWithinClusterQueue
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''
    LOWER_OR_NEWER_EQUAL_PRIORITY = "LOWER_OR_NEWER_EQUAL_PRIORITY"
    '''LowerOrNewerEqualPriority.'''


@jsii.enum(jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecQueueingStrategy")
class ClusterQueueSpecQueueingStrategy(enum.Enum):
    '''queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:.

    - StrictFIFO: workloads are ordered strictly by creation time.
      Older workloads that can't be admitted will block admitting newer
      workloads even if they fit available quota.
    - BestEffortFIFO: workloads are ordered by creation time,
      however older workloads that can't be admitted will not block
      admitting newer workloads that fit existing quota.

    :schema: ClusterQueueSpecQueueingStrategy
    '''

    STRICT_FIFO = "STRICT_FIFO"
    '''StrictFIFO.'''
    BEST_EFFORT_FIFO = "BEST_EFFORT_FIFO"
    '''BestEffortFIFO.'''


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecResourceGroups",
    jsii_struct_bases=[],
    name_mapping={"covered_resources": "coveredResources", "flavors": "flavors"},
)
class ClusterQueueSpecResourceGroups:
    def __init__(
        self,
        *,
        covered_resources: typing.Sequence[builtins.str],
        flavors: typing.Sequence[typing.Union["ClusterQueueSpecResourceGroupsFlavors", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param covered_resources: coveredResources is the list of resources covered by the flavors in this group. Examples: cpu, memory, vendor.com/gpu. The list cannot be empty and it can contain up to 64 resources. With a total of up to 256 covered resources across all resource groups in the ClusterQueue.
        :param flavors: flavors is the list of flavors that provide the resources of this group. Typically, different flavors represent different hardware models (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot cpus). Each flavor MUST list all the resources listed for this group in the same order as the .resources field. The list cannot be empty and it can contain up to 64 flavors, with a max of 256 total flavors across all resource groups in the ClusterQueue.

        :schema: ClusterQueueSpecResourceGroups
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7f0dbf5a90320ba0aa0d768aa874d2215d4bc6747abb86f04231661a3ad919c0)
            check_type(argname="argument covered_resources", value=covered_resources, expected_type=type_hints["covered_resources"])
            check_type(argname="argument flavors", value=flavors, expected_type=type_hints["flavors"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "covered_resources": covered_resources,
            "flavors": flavors,
        }

    @builtins.property
    def covered_resources(self) -> typing.List[builtins.str]:
        '''coveredResources is the list of resources covered by the flavors in this group.

        Examples: cpu, memory, vendor.com/gpu.
        The list cannot be empty and it can contain up to 64 resources. With a total
        of up to 256 covered resources across all resource groups in the ClusterQueue.

        :schema: ClusterQueueSpecResourceGroups#coveredResources
        '''
        result = self._values.get("covered_resources")
        assert result is not None, "Required property 'covered_resources' is missing"
        return typing.cast(typing.List[builtins.str], result)

    @builtins.property
    def flavors(self) -> typing.List["ClusterQueueSpecResourceGroupsFlavors"]:
        '''flavors is the list of flavors that provide the resources of this group.

        Typically, different flavors represent different hardware models
        (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot
        cpus).
        Each flavor MUST list all the resources listed for this group in the same
        order as the .resources field.
        The list cannot be empty and it can contain up to 64 flavors, with a max of
        256 total flavors across all resource groups in the ClusterQueue.

        :schema: ClusterQueueSpecResourceGroups#flavors
        '''
        result = self._values.get("flavors")
        assert result is not None, "Required property 'flavors' is missing"
        return typing.cast(typing.List["ClusterQueueSpecResourceGroupsFlavors"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecResourceGroups(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecResourceGroupsFlavors",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "resources": "resources"},
)
class ClusterQueueSpecResourceGroupsFlavors:
    def __init__(
        self,
        *,
        name: builtins.str,
        resources: typing.Sequence[typing.Union["ClusterQueueSpecResourceGroupsFlavorsResources", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param name: name of this flavor. The name should match the .metadata.name of a ResourceFlavor. If a matching ResourceFlavor does not exist, the ClusterQueue will have an Active condition set to False.
        :param resources: resources is the list of quotas for this flavor per resource. There could be up to 64 resources.

        :schema: ClusterQueueSpecResourceGroupsFlavors
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__03e91ce8cc0c9fb5988146c4f6f530d1c94e97d25829b3ec8aa207e0f50a10d4)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument resources", value=resources, expected_type=type_hints["resources"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "resources": resources,
        }

    @builtins.property
    def name(self) -> builtins.str:
        '''name of this flavor.

        The name should match the .metadata.name of a
        ResourceFlavor. If a matching ResourceFlavor does not exist, the
        ClusterQueue will have an Active condition set to False.

        :schema: ClusterQueueSpecResourceGroupsFlavors#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def resources(
        self,
    ) -> typing.List["ClusterQueueSpecResourceGroupsFlavorsResources"]:
        '''resources is the list of quotas for this flavor per resource.

        There could be up to 64 resources.

        :schema: ClusterQueueSpecResourceGroupsFlavors#resources
        '''
        result = self._values.get("resources")
        assert result is not None, "Required property 'resources' is missing"
        return typing.cast(typing.List["ClusterQueueSpecResourceGroupsFlavorsResources"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecResourceGroupsFlavors(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecResourceGroupsFlavorsResources",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "nominal_quota": "nominalQuota",
        "borrowing_limit": "borrowingLimit",
        "lending_limit": "lendingLimit",
    },
)
class ClusterQueueSpecResourceGroupsFlavorsResources:
    def __init__(
        self,
        *,
        name: builtins.str,
        nominal_quota: "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota",
        borrowing_limit: typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit"] = None,
        lending_limit: typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit"] = None,
    ) -> None:
        '''
        :param name: name of this resource.
        :param nominal_quota: nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time. The nominalQuota must be non-negative. nominalQuota should represent the resources in the cluster available for running jobs (after discounting resources consumed by system components and pods not managed by kueue). In an autoscaled cluster, nominalQuota should account for resources that can be provided by a component such as Kubernetes cluster-autoscaler. If the ClusterQueue belongs to a cohort, the sum of the quotas for each (flavor, resource) combination defines the maximum quantity that can be allocated by a ClusterQueue in the cohort.
        :param borrowing_limit: borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort. In total, at a given time, Workloads in a ClusterQueue can consume a quantity of quota equal to nominalQuota+borrowingLimit, assuming the other ClusterQueues in the cohort have enough unused quota. If null, it means that there is no borrowing limit. If not null, it must be non-negative. borrowingLimit must be null if spec.cohort is empty.
        :param lending_limit: lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort. In total, at a given time, ClusterQueue reserves for its exclusive use a quantity of quota equals to nominalQuota - lendingLimit. If null, it means that there is no lending limit, meaning that all the nominalQuota can be borrowed by other clusterQueues in the cohort. If not null, it must be non-negative. lendingLimit must be null if spec.cohort is empty. This field is in beta stage and is enabled by default.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__10657964befce50c76ac9b692568315786f3848f181930967e568ba47cce03a2)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument nominal_quota", value=nominal_quota, expected_type=type_hints["nominal_quota"])
            check_type(argname="argument borrowing_limit", value=borrowing_limit, expected_type=type_hints["borrowing_limit"])
            check_type(argname="argument lending_limit", value=lending_limit, expected_type=type_hints["lending_limit"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "nominal_quota": nominal_quota,
        }
        if borrowing_limit is not None:
            self._values["borrowing_limit"] = borrowing_limit
        if lending_limit is not None:
            self._values["lending_limit"] = lending_limit

    @builtins.property
    def name(self) -> builtins.str:
        '''name of this resource.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def nominal_quota(
        self,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time.

        The nominalQuota must be non-negative.
        nominalQuota should represent the resources in the cluster available for
        running jobs (after discounting resources consumed by system components
        and pods not managed by kueue). In an autoscaled cluster, nominalQuota
        should account for resources that can be provided by a component such as
        Kubernetes cluster-autoscaler.

        If the ClusterQueue belongs to a cohort, the sum of the quotas for each
        (flavor, resource) combination defines the maximum quantity that can be
        allocated by a ClusterQueue in the cohort.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources#nominalQuota
        '''
        result = self._values.get("nominal_quota")
        assert result is not None, "Required property 'nominal_quota' is missing"
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota", result)

    @builtins.property
    def borrowing_limit(
        self,
    ) -> typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit"]:
        '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

        In total, at a given time, Workloads in a ClusterQueue can consume a
        quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
        ClusterQueues in the cohort have enough unused quota.
        If null, it means that there is no borrowing limit.
        If not null, it must be non-negative.
        borrowingLimit must be null if spec.cohort is empty.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources#borrowingLimit
        '''
        result = self._values.get("borrowing_limit")
        return typing.cast(typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit"], result)

    @builtins.property
    def lending_limit(
        self,
    ) -> typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit"]:
        '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

        In total, at a given time, ClusterQueue reserves for its exclusive use
        a quantity of quota equals to nominalQuota - lendingLimit.
        If null, it means that there is no lending limit, meaning that
        all the nominalQuota can be borrowed by other clusterQueues in the cohort.
        If not null, it must be non-negative.
        lendingLimit must be null if spec.cohort is empty.
        This field is in beta stage and is enabled by default.

        :schema: ClusterQueueSpecResourceGroupsFlavorsResources#lendingLimit
        '''
        result = self._values.get("lending_limit")
        return typing.cast(typing.Optional["ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueSpecResourceGroupsFlavorsResources(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit",
):
    '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

    In total, at a given time, Workloads in a ClusterQueue can consume a
    quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
    ClusterQueues in the cohort have enough unused quota.
    If null, it means that there is no borrowing limit.
    If not null, it must be non-negative.
    borrowingLimit must be null if spec.cohort is empty.

    :schema: ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5ff6e3480a90a70fe42dab412a24b211ed556c78f8f2e98c31272223574bb1f8)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a38b32345fcf152bdee414042dca4bd987117ccd59d4ca02a3ff524f91ad2082)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit",
):
    '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

    In total, at a given time, ClusterQueue reserves for its exclusive use
    a quantity of quota equals to nominalQuota - lendingLimit.
    If null, it means that there is no lending limit, meaning that
    all the nominalQuota can be borrowed by other clusterQueues in the cohort.
    If not null, it must be non-negative.
    lendingLimit must be null if spec.cohort is empty.
    This field is in beta stage and is enabled by default.

    :schema: ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f91eab67b3e046aedb48dfd137ed956fd69241bdfba1045e6c58ec54b440e0ae)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0afda67d52bb91544057ae71e87807e793af6ed8ccb41be811092120abea9cc5)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota(
    metaclass=jsii.JSIIMeta,
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota",
):
    '''nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time.

    The nominalQuota must be non-negative.
    nominalQuota should represent the resources in the cluster available for
    running jobs (after discounting resources consumed by system components
    and pods not managed by kueue). In an autoscaled cluster, nominalQuota
    should account for resources that can be provided by a component such as
    Kubernetes cluster-autoscaler.

    If the ClusterQueue belongs to a cohort, the sum of the quotas for each
    (flavor, resource) combination defines the maximum quantity that can be
    allocated by a ClusterQueue in the cohort.

    :schema: ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__cc37d3d01702b00dbdd5360ba1c92009fb0ff489660056eecac5e0ac42b6ecd8)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__439aaa727ec59d6e1360b530f451682212c2572f8205327f0ce4ac2e45b8b311)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.enum(jsii_type="clusterqueue_iox-k8skueue.ClusterQueueSpecStopPolicy")
class ClusterQueueSpecStopPolicy(enum.Enum):
    '''stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made.

    Depending on its value, its associated workloads will:

    - None - Workloads are admitted
    - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
    - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

    :schema: ClusterQueueSpecStopPolicy
    '''

    NONE = "NONE"
    '''None.'''
    HOLD = "HOLD"
    '''Hold.'''
    HOLD_AND_DRAIN = "HOLD_AND_DRAIN"
    '''HoldAndDrain.'''


class ClusterQueueV1Beta2(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2",
):
    '''ClusterQueue is the Schema for the clusterQueue API.

    :schema: ClusterQueueV1Beta2
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "ClusterQueueV1Beta2" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b2a6d8df57e68612230b4dd0c95081e4f1dd42bc927e6c837afb5fee5e4cc2de)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = ClusterQueueV1Beta2Props(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "ClusterQueueV1Beta2".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.
        '''
        props = ClusterQueueV1Beta2Props(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "ClusterQueueV1Beta2".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2Props",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class ClusterQueueV1Beta2Props:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["ClusterQueueV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ClusterQueue is the Schema for the clusterQueue API.

        :param metadata: 
        :param spec: spec is the specification of the ClusterQueue.

        :schema: ClusterQueueV1Beta2
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = ClusterQueueV1Beta2Spec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7e8e50e30d88cdcaf735ede034ce4e537967ccea132263c850da15caf95cd81c)
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
        :schema: ClusterQueueV1Beta2#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["ClusterQueueV1Beta2Spec"]:
        '''spec is the specification of the ClusterQueue.

        :schema: ClusterQueueV1Beta2#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2Spec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2Props(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2Spec",
    jsii_struct_bases=[],
    name_mapping={
        "admission_checks_strategy": "admissionChecksStrategy",
        "admission_scope": "admissionScope",
        "cohort_name": "cohortName",
        "concurrent_admission_policy": "concurrentAdmissionPolicy",
        "fair_sharing": "fairSharing",
        "flavor_fungibility": "flavorFungibility",
        "namespace_selector": "namespaceSelector",
        "preemption": "preemption",
        "queueing_strategy": "queueingStrategy",
        "resource_groups": "resourceGroups",
        "stop_policy": "stopPolicy",
    },
)
class ClusterQueueV1Beta2Spec:
    def __init__(
        self,
        *,
        admission_checks_strategy: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecAdmissionChecksStrategy", typing.Dict[builtins.str, typing.Any]]] = None,
        admission_scope: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecAdmissionScope", typing.Dict[builtins.str, typing.Any]]] = None,
        cohort_name: typing.Optional[builtins.str] = None,
        concurrent_admission_policy: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy", typing.Dict[builtins.str, typing.Any]]] = None,
        fair_sharing: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecFairSharing", typing.Dict[builtins.str, typing.Any]]] = None,
        flavor_fungibility: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecFlavorFungibility", typing.Dict[builtins.str, typing.Any]]] = None,
        namespace_selector: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecNamespaceSelector", typing.Dict[builtins.str, typing.Any]]] = None,
        preemption: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecPreemption", typing.Dict[builtins.str, typing.Any]]] = None,
        queueing_strategy: typing.Optional["ClusterQueueV1Beta2SpecQueueingStrategy"] = None,
        resource_groups: typing.Optional[typing.Sequence[typing.Union["ClusterQueueV1Beta2SpecResourceGroups", typing.Dict[builtins.str, typing.Any]]]] = None,
        stop_policy: typing.Optional["ClusterQueueV1Beta2SpecStopPolicy"] = None,
    ) -> None:
        '''spec is the specification of the ClusterQueue.

        :param admission_checks_strategy: admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks.
        :param admission_scope: admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.
        :param cohort_name: cohortName that this ClusterQueue belongs to. CQs that belong to the same cohort can borrow unused resources from each other. A CQ can be a member of a single borrowing cohort. A workload submitted to a queue referencing this CQ can borrow quota from any CQ in the cohort. Only quota for the [resource, flavor] pairs listed in the CQ can be borrowed. If empty, this ClusterQueue cannot borrow from any other ClusterQueue and vice versa. A cohort is a name that links CQs together, but it doesn't reference any object.
        :param concurrent_admission_policy: concurrentAdmissionPolicy defines the configuration for ConcurrentAdmission feature. Its main capability is to allow Workloads pursuing multiple flavors at the same time, and starting on the first flavor that led to admission. Additionally after the admission, Workloads can still try to pursue capacity on the more preferable flavors while running. It enables them to migrate to more preferable, whenever capacity appears.
        :param fair_sharing: fairSharing defines the properties of the ClusterQueue when participating in FairSharing. The values are only relevant if FairSharing is enabled in the Kueue configuration.
        :param flavor_fungibility: flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.
        :param namespace_selector: namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue. Beyond this basic support for policy, a policy agent like Gatekeeper should be used to enforce more advanced policies. Defaults to null which is a nothing selector (no namespaces eligible). If set to an empty selector ``{}``, then all namespaces are eligible. Default: null which is a nothing selector (no namespaces eligible).
        :param preemption: preemption defines the preemption policies.
        :param queueing_strategy: queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:. - StrictFIFO: workloads are ordered strictly by creation time. Older workloads that can't be admitted will block admitting newer workloads even if they fit available quota. - BestEffortFIFO: workloads are ordered by creation time, however older workloads that can't be admitted will not block admitting newer workloads that fit existing quota.
        :param resource_groups: resourceGroups describes groups of resources. Each resource group defines the list of resources and a list of flavors that provide quotas for these resources. Each resource and each flavor can only form part of one resource group. resourceGroups can be up to 16, with a max of 256 total flavors across all groups.
        :param stop_policy: stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made. Depending on its value, its associated workloads will: - None - Workloads are admitted - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation. - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: ClusterQueueV1Beta2Spec
        '''
        if isinstance(admission_checks_strategy, dict):
            admission_checks_strategy = ClusterQueueV1Beta2SpecAdmissionChecksStrategy(**admission_checks_strategy)
        if isinstance(admission_scope, dict):
            admission_scope = ClusterQueueV1Beta2SpecAdmissionScope(**admission_scope)
        if isinstance(concurrent_admission_policy, dict):
            concurrent_admission_policy = ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy(**concurrent_admission_policy)
        if isinstance(fair_sharing, dict):
            fair_sharing = ClusterQueueV1Beta2SpecFairSharing(**fair_sharing)
        if isinstance(flavor_fungibility, dict):
            flavor_fungibility = ClusterQueueV1Beta2SpecFlavorFungibility(**flavor_fungibility)
        if isinstance(namespace_selector, dict):
            namespace_selector = ClusterQueueV1Beta2SpecNamespaceSelector(**namespace_selector)
        if isinstance(preemption, dict):
            preemption = ClusterQueueV1Beta2SpecPreemption(**preemption)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5dc525aa9754700203f8f45a33e908129ed30a9cab2f6ec3d3316a12cd861ed8)
            check_type(argname="argument admission_checks_strategy", value=admission_checks_strategy, expected_type=type_hints["admission_checks_strategy"])
            check_type(argname="argument admission_scope", value=admission_scope, expected_type=type_hints["admission_scope"])
            check_type(argname="argument cohort_name", value=cohort_name, expected_type=type_hints["cohort_name"])
            check_type(argname="argument concurrent_admission_policy", value=concurrent_admission_policy, expected_type=type_hints["concurrent_admission_policy"])
            check_type(argname="argument fair_sharing", value=fair_sharing, expected_type=type_hints["fair_sharing"])
            check_type(argname="argument flavor_fungibility", value=flavor_fungibility, expected_type=type_hints["flavor_fungibility"])
            check_type(argname="argument namespace_selector", value=namespace_selector, expected_type=type_hints["namespace_selector"])
            check_type(argname="argument preemption", value=preemption, expected_type=type_hints["preemption"])
            check_type(argname="argument queueing_strategy", value=queueing_strategy, expected_type=type_hints["queueing_strategy"])
            check_type(argname="argument resource_groups", value=resource_groups, expected_type=type_hints["resource_groups"])
            check_type(argname="argument stop_policy", value=stop_policy, expected_type=type_hints["stop_policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if admission_checks_strategy is not None:
            self._values["admission_checks_strategy"] = admission_checks_strategy
        if admission_scope is not None:
            self._values["admission_scope"] = admission_scope
        if cohort_name is not None:
            self._values["cohort_name"] = cohort_name
        if concurrent_admission_policy is not None:
            self._values["concurrent_admission_policy"] = concurrent_admission_policy
        if fair_sharing is not None:
            self._values["fair_sharing"] = fair_sharing
        if flavor_fungibility is not None:
            self._values["flavor_fungibility"] = flavor_fungibility
        if namespace_selector is not None:
            self._values["namespace_selector"] = namespace_selector
        if preemption is not None:
            self._values["preemption"] = preemption
        if queueing_strategy is not None:
            self._values["queueing_strategy"] = queueing_strategy
        if resource_groups is not None:
            self._values["resource_groups"] = resource_groups
        if stop_policy is not None:
            self._values["stop_policy"] = stop_policy

    @builtins.property
    def admission_checks_strategy(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecAdmissionChecksStrategy"]:
        '''admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks.

        :schema: ClusterQueueV1Beta2Spec#admissionChecksStrategy
        '''
        result = self._values.get("admission_checks_strategy")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecAdmissionChecksStrategy"], result)

    @builtins.property
    def admission_scope(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecAdmissionScope"]:
        '''admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.

        :schema: ClusterQueueV1Beta2Spec#admissionScope
        '''
        result = self._values.get("admission_scope")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecAdmissionScope"], result)

    @builtins.property
    def cohort_name(self) -> typing.Optional[builtins.str]:
        '''cohortName that this ClusterQueue belongs to. CQs that belong to the same cohort can borrow unused resources from each other.

        A CQ can be a member of a single borrowing cohort. A workload submitted
        to a queue referencing this CQ can borrow quota from any CQ in the cohort.
        Only quota for the [resource, flavor] pairs listed in the CQ can be
        borrowed.
        If empty, this ClusterQueue cannot borrow from any other ClusterQueue and
        vice versa.

        A cohort is a name that links CQs together, but it doesn't reference any
        object.

        :schema: ClusterQueueV1Beta2Spec#cohortName
        '''
        result = self._values.get("cohort_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def concurrent_admission_policy(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy"]:
        '''concurrentAdmissionPolicy defines the configuration for ConcurrentAdmission feature.

        Its main capability is to allow Workloads pursuing multiple flavors at the same time, and starting on the first flavor that led to admission.
        Additionally after the admission, Workloads can still try to pursue capacity on the more preferable flavors while running.
        It enables them to migrate to more preferable, whenever capacity appears.

        :schema: ClusterQueueV1Beta2Spec#concurrentAdmissionPolicy
        '''
        result = self._values.get("concurrent_admission_policy")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy"], result)

    @builtins.property
    def fair_sharing(self) -> typing.Optional["ClusterQueueV1Beta2SpecFairSharing"]:
        '''fairSharing defines the properties of the ClusterQueue when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :schema: ClusterQueueV1Beta2Spec#fairSharing
        '''
        result = self._values.get("fair_sharing")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecFairSharing"], result)

    @builtins.property
    def flavor_fungibility(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibility"]:
        '''flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.

        :schema: ClusterQueueV1Beta2Spec#flavorFungibility
        '''
        result = self._values.get("flavor_fungibility")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibility"], result)

    @builtins.property
    def namespace_selector(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecNamespaceSelector"]:
        '''namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue.

        Beyond this basic support for policy, a policy agent like
        Gatekeeper should be used to enforce more advanced policies.
        Defaults to null which is a nothing selector (no namespaces eligible).
        If set to an empty selector ``{}``, then all namespaces are eligible.

        :default: null which is a nothing selector (no namespaces eligible).

        :schema: ClusterQueueV1Beta2Spec#namespaceSelector
        '''
        result = self._values.get("namespace_selector")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecNamespaceSelector"], result)

    @builtins.property
    def preemption(self) -> typing.Optional["ClusterQueueV1Beta2SpecPreemption"]:
        '''preemption defines the preemption policies.

        :schema: ClusterQueueV1Beta2Spec#preemption
        '''
        result = self._values.get("preemption")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecPreemption"], result)

    @builtins.property
    def queueing_strategy(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecQueueingStrategy"]:
        '''queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:.

        - StrictFIFO: workloads are ordered strictly by creation time.
          Older workloads that can't be admitted will block admitting newer
          workloads even if they fit available quota.
        - BestEffortFIFO: workloads are ordered by creation time,
          however older workloads that can't be admitted will not block
          admitting newer workloads that fit existing quota.

        :schema: ClusterQueueV1Beta2Spec#queueingStrategy
        '''
        result = self._values.get("queueing_strategy")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecQueueingStrategy"], result)

    @builtins.property
    def resource_groups(
        self,
    ) -> typing.Optional[typing.List["ClusterQueueV1Beta2SpecResourceGroups"]]:
        '''resourceGroups describes groups of resources.

        Each resource group defines the list of resources and a list of flavors
        that provide quotas for these resources.
        Each resource and each flavor can only form part of one resource group.
        resourceGroups can be up to 16, with a max of 256 total flavors across all groups.

        :schema: ClusterQueueV1Beta2Spec#resourceGroups
        '''
        result = self._values.get("resource_groups")
        return typing.cast(typing.Optional[typing.List["ClusterQueueV1Beta2SpecResourceGroups"]], result)

    @builtins.property
    def stop_policy(self) -> typing.Optional["ClusterQueueV1Beta2SpecStopPolicy"]:
        '''stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made.

        Depending on its value, its associated workloads will:

        - None - Workloads are admitted
        - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
        - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

        :schema: ClusterQueueV1Beta2Spec#stopPolicy
        '''
        result = self._values.get("stop_policy")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecStopPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2Spec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecAdmissionChecksStrategy",
    jsii_struct_bases=[],
    name_mapping={"admission_checks": "admissionChecks"},
)
class ClusterQueueV1Beta2SpecAdmissionChecksStrategy:
    def __init__(
        self,
        *,
        admission_checks: typing.Sequence[typing.Union["ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''admissionChecksStrategy defines a list of strategies to determine which ResourceFlavors require AdmissionChecks.

        :param admission_checks: admissionChecks is a list of strategies for AdmissionChecks.

        :schema: ClusterQueueV1Beta2SpecAdmissionChecksStrategy
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1d14210cfc5fb5d7fec71c3a8a20befc47410b69dfb1ad329d05b60355c5bda2)
            check_type(argname="argument admission_checks", value=admission_checks, expected_type=type_hints["admission_checks"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "admission_checks": admission_checks,
        }

    @builtins.property
    def admission_checks(
        self,
    ) -> typing.List["ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks"]:
        '''admissionChecks is a list of strategies for AdmissionChecks.

        :schema: ClusterQueueV1Beta2SpecAdmissionChecksStrategy#admissionChecks
        '''
        result = self._values.get("admission_checks")
        assert result is not None, "Required property 'admission_checks' is missing"
        return typing.cast(typing.List["ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecAdmissionChecksStrategy(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "on_flavors": "onFlavors"},
)
class ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks:
    def __init__(
        self,
        *,
        name: builtins.str,
        on_flavors: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''AdmissionCheckStrategyRule defines rules for a single AdmissionCheck.

        :param name: name is an AdmissionCheck's name.
        :param on_flavors: onFlavors is a list of ResourceFlavors' names that this AdmissionCheck should run for. If empty, the AdmissionCheck will run for all workloads submitted to the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c87e50ab75161e589482f2290e2915922ba87222695159083e24b3532f29e462)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument on_flavors", value=on_flavors, expected_type=type_hints["on_flavors"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
        }
        if on_flavors is not None:
            self._values["on_flavors"] = on_flavors

    @builtins.property
    def name(self) -> builtins.str:
        '''name is an AdmissionCheck's name.

        :schema: ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def on_flavors(self) -> typing.Optional[typing.List[builtins.str]]:
        '''onFlavors is a list of ResourceFlavors' names that this AdmissionCheck should run for.

        If empty, the AdmissionCheck will run for all workloads submitted to the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks#onFlavors
        '''
        result = self._values.get("on_flavors")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecAdmissionScope",
    jsii_struct_bases=[],
    name_mapping={"admission_mode": "admissionMode"},
)
class ClusterQueueV1Beta2SpecAdmissionScope:
    def __init__(
        self,
        *,
        admission_mode: "ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode",
    ) -> None:
        '''admissionScope indicates whether ClusterQueue uses the Admission Fair Sharing.

        :param admission_mode: admissionMode indicates which mode for AdmissionFairSharing should be used in the AdmissionScope. Possible values are: - UsageBasedAdmissionFairSharing - NoAdmissionFairSharing

        :schema: ClusterQueueV1Beta2SpecAdmissionScope
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7aa546fba830008faaa7e2ec9bcbfc3443a5bfde9a0f9e485d58526cf522822f)
            check_type(argname="argument admission_mode", value=admission_mode, expected_type=type_hints["admission_mode"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "admission_mode": admission_mode,
        }

    @builtins.property
    def admission_mode(self) -> "ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode":
        '''admissionMode indicates which mode for AdmissionFairSharing should be used in the AdmissionScope.

        Possible values are:

        - UsageBasedAdmissionFairSharing
        - NoAdmissionFairSharing

        :schema: ClusterQueueV1Beta2SpecAdmissionScope#admissionMode
        '''
        result = self._values.get("admission_mode")
        assert result is not None, "Required property 'admission_mode' is missing"
        return typing.cast("ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecAdmissionScope(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode"
)
class ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode(enum.Enum):
    '''admissionMode indicates which mode for AdmissionFairSharing should be used in the AdmissionScope.

    Possible values are:

    - UsageBasedAdmissionFairSharing
    - NoAdmissionFairSharing

    :schema: ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode
    '''

    USAGE_BASED_ADMISSION_FAIR_SHARING = "USAGE_BASED_ADMISSION_FAIR_SHARING"
    '''UsageBasedAdmissionFairSharing.'''
    NO_ADMISSION_FAIR_SHARING = "NO_ADMISSION_FAIR_SHARING"
    '''NoAdmissionFairSharing.'''


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy",
    jsii_struct_bases=[],
    name_mapping={"migration": "migration"},
)
class ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy:
    def __init__(
        self,
        *,
        migration: typing.Union["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''concurrentAdmissionPolicy defines the configuration for ConcurrentAdmission feature.

        Its main capability is to allow Workloads pursuing multiple flavors at the same time, and starting on the first flavor that led to admission.
        Additionally after the admission, Workloads can still try to pursue capacity on the more preferable flavors while running.
        It enables them to migrate to more preferable, whenever capacity appears.

        :param migration: migration defines the constraints on Workload's migration. The mechanism itself creates "Variants" of the same Workload, each pursuing a different flavor. All Variants belong to the same "Parent" Workload, and are picked up by Kueue scheduler independently. Once one of the Variants is admitted, the Parent Workload gets also admitted. The Variants that pursue more favorable flavors keep trying to get admitted and if they succeed, the Workload migrates to the new flavor. The Variants that pursue less favorable flavors are deactivated. Flavor preferences are expressed through the order of flavors in the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy
        '''
        if isinstance(migration, dict):
            migration = ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration(**migration)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__85b7e5405b62e66aacfa30509ef9511fcab5cf30579006196759e89d30cfe873)
            check_type(argname="argument migration", value=migration, expected_type=type_hints["migration"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "migration": migration,
        }

    @builtins.property
    def migration(self) -> "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration":
        '''migration defines the constraints on Workload's migration.

        The mechanism itself creates "Variants" of the same Workload, each pursuing a different flavor.
        All Variants belong to the same "Parent" Workload, and are picked up by Kueue scheduler independently.
        Once one of the Variants is admitted, the Parent Workload gets also admitted. The Variants that pursue more
        favorable flavors keep trying to get admitted and if they succeed, the Workload migrates to the new flavor.
        The Variants that pursue less favorable flavors are deactivated.
        Flavor preferences are expressed through the order of flavors in the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy#migration
        '''
        result = self._values.get("migration")
        assert result is not None, "Required property 'migration' is missing"
        return typing.cast("ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration",
    jsii_struct_bases=[],
    name_mapping={"mode": "mode", "constraints": "constraints"},
)
class ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration:
    def __init__(
        self,
        *,
        mode: "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode",
        constraints: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''migration defines the constraints on Workload's migration.

        The mechanism itself creates "Variants" of the same Workload, each pursuing a different flavor.
        All Variants belong to the same "Parent" Workload, and are picked up by Kueue scheduler independently.
        Once one of the Variants is admitted, the Parent Workload gets also admitted. The Variants that pursue more
        favorable flavors keep trying to get admitted and if they succeed, the Workload migrates to the new flavor.
        The Variants that pursue less favorable flavors are deactivated.
        Flavor preferences are expressed through the order of flavors in the ClusterQueue.

        :param mode: mode defines the mode of Workload's migration. The possible values are: - ``TryPreferredFlavors`` (default): a Workload will try to migrate to the preferred flavor after it's admitted and running. - ``RetainFirstAdmission``: a Workload, once admitted to a flavor, will stick to a flavor and will not be migrated.
        :param constraints: constraints defines the constraints of Workload's migration.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration
        '''
        if isinstance(constraints, dict):
            constraints = ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints(**constraints)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__6f234483e0df74581b623cb846f259726fc8443458ece75612a5afffa393996c)
            check_type(argname="argument mode", value=mode, expected_type=type_hints["mode"])
            check_type(argname="argument constraints", value=constraints, expected_type=type_hints["constraints"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "mode": mode,
        }
        if constraints is not None:
            self._values["constraints"] = constraints

    @builtins.property
    def mode(self) -> "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode":
        '''mode defines the mode of Workload's migration.

        The possible values are:

        - ``TryPreferredFlavors`` (default): a Workload will try to migrate to the preferred flavor after it's admitted and running.
        - ``RetainFirstAdmission``: a Workload, once admitted to a flavor, will stick to a flavor and will not be migrated.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration#mode
        '''
        result = self._values.get("mode")
        assert result is not None, "Required property 'mode' is missing"
        return typing.cast("ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode", result)

    @builtins.property
    def constraints(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints"]:
        '''constraints defines the constraints of Workload's migration.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration#constraints
        '''
        result = self._values.get("constraints")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints",
    jsii_struct_bases=[],
    name_mapping={"last_acceptable_flavor_name": "lastAcceptableFlavorName"},
)
class ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints:
    def __init__(
        self,
        *,
        last_acceptable_flavor_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''constraints defines the constraints of Workload's migration.

        :param last_acceptable_flavor_name: lastAcceptableFlavorName defines the last acceptable flavor a Workload can migrate to. The order is based on the order of flavors in ClusterQueue. It can only be used if the Mode is ``TryPreferredFlavors``. If the Mode is ``TryPreferredFlavors`` and LastAcceptableFlavorName is not specified, then Workload can migrate to any flavor that is more preferable than the one it was admitted to.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__57af55a459f47196ceb0861979229121fcb6519f97f61fb5f71e7a6c724c2324)
            check_type(argname="argument last_acceptable_flavor_name", value=last_acceptable_flavor_name, expected_type=type_hints["last_acceptable_flavor_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if last_acceptable_flavor_name is not None:
            self._values["last_acceptable_flavor_name"] = last_acceptable_flavor_name

    @builtins.property
    def last_acceptable_flavor_name(self) -> typing.Optional[builtins.str]:
        '''lastAcceptableFlavorName defines the last acceptable flavor a Workload can migrate to.

        The order is based on the order of flavors in ClusterQueue.
        It can only be used if the Mode is ``TryPreferredFlavors``.
        If the Mode is ``TryPreferredFlavors`` and LastAcceptableFlavorName is not specified, then
        Workload can migrate to any flavor that is more preferable than the one it was admitted to.

        :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints#lastAcceptableFlavorName
        '''
        result = self._values.get("last_acceptable_flavor_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode"
)
class ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode(enum.Enum):
    '''mode defines the mode of Workload's migration.

    The possible values are:

    - ``TryPreferredFlavors`` (default): a Workload will try to migrate to the preferred flavor after it's admitted and running.
    - ``RetainFirstAdmission``: a Workload, once admitted to a flavor, will stick to a flavor and will not be migrated.

    :schema: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode
    '''

    TRY_PREFERRED_FLAVORS = "TRY_PREFERRED_FLAVORS"
    '''TryPreferredFlavors.'''
    RETAIN_FIRST_ADMISSION = "RETAIN_FIRST_ADMISSION"
    '''RetainFirstAdmission.'''


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecFairSharing",
    jsii_struct_bases=[],
    name_mapping={"weight": "weight"},
)
class ClusterQueueV1Beta2SpecFairSharing:
    def __init__(
        self,
        *,
        weight: typing.Optional["ClusterQueueV1Beta2SpecFairSharingWeight"] = None,
    ) -> None:
        '''fairSharing defines the properties of the ClusterQueue when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :param weight: weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort. The share is based on the dominant resource usage above nominal quotas for each resource, divided by the weight. Admission prioritizes scheduling workloads from ClusterQueues and Cohorts with the lowest share and preempting workloads from the ClusterQueues and Cohorts with the highest share. A zero weight implies infinite share value, meaning that this Node will always be at disadvantage against other ClusterQueues and Cohorts. When not 0, Weight must be greater than 10^-9.

        :schema: ClusterQueueV1Beta2SpecFairSharing
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d1085bb1642b96c13a27939fe0d35c725a284cb7600a1fbc45bbbe35a7a5cdeb)
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def weight(self) -> typing.Optional["ClusterQueueV1Beta2SpecFairSharingWeight"]:
        '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

        The share is based on the dominant resource usage
        above nominal quotas for each resource, divided by the
        weight.  Admission prioritizes scheduling workloads from
        ClusterQueues and Cohorts with the lowest share and
        preempting workloads from the ClusterQueues and Cohorts
        with the highest share.  A zero weight implies infinite
        share value, meaning that this Node will always be at
        disadvantage against other ClusterQueues and Cohorts.
        When not 0, Weight must be greater than 10^-9.

        :schema: ClusterQueueV1Beta2SpecFairSharing#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecFairSharingWeight"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecFairSharing(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ClusterQueueV1Beta2SpecFairSharingWeight(
    metaclass=jsii.JSIIMeta,
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecFairSharingWeight",
):
    '''weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort.

    The share is based on the dominant resource usage
    above nominal quotas for each resource, divided by the
    weight.  Admission prioritizes scheduling workloads from
    ClusterQueues and Cohorts with the lowest share and
    preempting workloads from the ClusterQueues and Cohorts
    with the highest share.  A zero weight implies infinite
    share value, meaning that this Node will always be at
    disadvantage against other ClusterQueues and Cohorts.
    When not 0, Weight must be greater than 10^-9.

    :schema: ClusterQueueV1Beta2SpecFairSharingWeight
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueV1Beta2SpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__df36a6ac21999b8fa717cb3de8253aba6c7ea0cd9e8e776b585ecc1b1a25c65a)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecFairSharingWeight", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueV1Beta2SpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e9e23572351f81a3bc4f4e27dad242f276e418cafbe5b526cfc968d7d3632316)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecFairSharingWeight", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecFlavorFungibility",
    jsii_struct_bases=[],
    name_mapping={
        "preference": "preference",
        "when_can_borrow": "whenCanBorrow",
        "when_can_preempt": "whenCanPreempt",
    },
)
class ClusterQueueV1Beta2SpecFlavorFungibility:
    def __init__(
        self,
        *,
        preference: typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityPreference"] = None,
        when_can_borrow: typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow"] = None,
        when_can_preempt: typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt"] = None,
    ) -> None:
        '''flavorFungibility defines whether a workload should try the next flavor before borrowing or preempting in the flavor being evaluated.

        :param preference: preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both. The possible values are: - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption when such a choice is possible. More technically it minimizes the borrowing distance in the cohort tree, and solves tie-breaks by preferring better preemption mode (reclaim over preemption within ClusterQueue). - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing when such a choice is possible. More technically it optimizes the preemption mode (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing the borrowing distance in the cohort tree.
        :param when_can_borrow: whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:. - ``MayStopSearch`` (default): stop the search for candidate flavors if workload fits or requires borrowing to fit. - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit.
        :param when_can_preempt: whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:. - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires preemption to fit. - ``TryNextFlavor`` (default): try next flavor if workload requires preemption to fit in current flavor.

        :schema: ClusterQueueV1Beta2SpecFlavorFungibility
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3d09da23a4735cce3ff989dd66e9137359cfaa44a8f4127776687bccc5cd0ee3)
            check_type(argname="argument preference", value=preference, expected_type=type_hints["preference"])
            check_type(argname="argument when_can_borrow", value=when_can_borrow, expected_type=type_hints["when_can_borrow"])
            check_type(argname="argument when_can_preempt", value=when_can_preempt, expected_type=type_hints["when_can_preempt"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if preference is not None:
            self._values["preference"] = preference
        if when_can_borrow is not None:
            self._values["when_can_borrow"] = when_can_borrow
        if when_can_preempt is not None:
            self._values["when_can_preempt"] = when_can_preempt

    @builtins.property
    def preference(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityPreference"]:
        '''preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both.

        The possible values are:

        - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption
          when such a choice is possible. More technically it minimizes the borrowing distance
          in the cohort tree, and solves tie-breaks by preferring better preemption mode
          (reclaim over preemption within ClusterQueue).
        - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing
          when such a choice is possible.  More technically it optimizes the preemption mode
          (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing
          the borrowing distance in the cohort tree.

        :schema: ClusterQueueV1Beta2SpecFlavorFungibility#preference
        '''
        result = self._values.get("preference")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityPreference"], result)

    @builtins.property
    def when_can_borrow(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow"]:
        '''whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:.

        - ``MayStopSearch`` (default): stop the search for candidate flavors if workload
          fits or requires borrowing to fit.
        - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit.

        :schema: ClusterQueueV1Beta2SpecFlavorFungibility#whenCanBorrow
        '''
        result = self._values.get("when_can_borrow")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow"], result)

    @builtins.property
    def when_can_preempt(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt"]:
        '''whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:.

        - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires
          preemption to fit.
        - ``TryNextFlavor`` (default): try next flavor if workload requires preemption
          to fit in current flavor.

        :schema: ClusterQueueV1Beta2SpecFlavorFungibility#whenCanPreempt
        '''
        result = self._values.get("when_can_preempt")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecFlavorFungibility(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecFlavorFungibilityPreference"
)
class ClusterQueueV1Beta2SpecFlavorFungibilityPreference(enum.Enum):
    '''preference guides the choosing of the flavor for admission in case all candidate flavors require either preemption, borrowing, or both.

    The possible values are:

    - ``BorrowingOverPreemption`` (default): prefer to use borrowing rather than preemption
      when such a choice is possible. More technically it minimizes the borrowing distance
      in the cohort tree, and solves tie-breaks by preferring better preemption mode
      (reclaim over preemption within ClusterQueue).
    - ``PreemptionOverBorrowing``: prefer to use preemption rather than borrowing
      when such a choice is possible.  More technically it optimizes the preemption mode
      (reclaim over preemption within ClusterQueue), and solves tie-breaks by minimizing
      the borrowing distance in the cohort tree.

    :schema: ClusterQueueV1Beta2SpecFlavorFungibilityPreference
    '''

    BORROWING_OVER_PREEMPTION = "BORROWING_OVER_PREEMPTION"
    '''BorrowingOverPreemption.'''
    PREEMPTION_OVER_BORROWING = "PREEMPTION_OVER_BORROWING"
    '''PreemptionOverBorrowing.'''


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow"
)
class ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow(enum.Enum):
    '''whenCanBorrow determines whether a workload should try the next flavor before borrowing in current flavor. The possible values are:.

    - ``MayStopSearch`` (default): stop the search for candidate flavors if workload
      fits or requires borrowing to fit.
    - ``TryNextFlavor``: try next flavor if workload requires borrowing to fit.

    :schema: ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow
    '''

    MAY_STOP_SEARCH = "MAY_STOP_SEARCH"
    '''MayStopSearch.'''
    TRY_NEXT_FLAVOR = "TRY_NEXT_FLAVOR"
    '''TryNextFlavor.'''


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt"
)
class ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt(enum.Enum):
    '''whenCanPreempt determines whether a workload should try the next flavor before preempting in current flavor. The possible values are:.

    - ``MayStopSearch``: stop the search for candidate flavors if workload fits or requires
      preemption to fit.
    - ``TryNextFlavor`` (default): try next flavor if workload requires preemption
      to fit in current flavor.

    :schema: ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt
    '''

    MAY_STOP_SEARCH = "MAY_STOP_SEARCH"
    '''MayStopSearch.'''
    TRY_NEXT_FLAVOR = "TRY_NEXT_FLAVOR"
    '''TryNextFlavor.'''


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecNamespaceSelector",
    jsii_struct_bases=[],
    name_mapping={
        "match_expressions": "matchExpressions",
        "match_labels": "matchLabels",
    },
)
class ClusterQueueV1Beta2SpecNamespaceSelector:
    def __init__(
        self,
        *,
        match_expressions: typing.Optional[typing.Sequence[typing.Union["ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions", typing.Dict[builtins.str, typing.Any]]]] = None,
        match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''namespaceSelector defines which namespaces are allowed to submit workloads to this clusterQueue.

        Beyond this basic support for policy, a policy agent like
        Gatekeeper should be used to enforce more advanced policies.
        Defaults to null which is a nothing selector (no namespaces eligible).
        If set to an empty selector ``{}``, then all namespaces are eligible.

        :param match_expressions: matchExpressions is a list of label selector requirements. The requirements are ANDed.
        :param match_labels: matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value". The requirements are ANDed.

        :default: null which is a nothing selector (no namespaces eligible).

        :schema: ClusterQueueV1Beta2SpecNamespaceSelector
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__13d494bde397fcf2eef668d8c86f4d21e0e068db04724a27d6eec134ca0af5f8)
            check_type(argname="argument match_expressions", value=match_expressions, expected_type=type_hints["match_expressions"])
            check_type(argname="argument match_labels", value=match_labels, expected_type=type_hints["match_labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if match_expressions is not None:
            self._values["match_expressions"] = match_expressions
        if match_labels is not None:
            self._values["match_labels"] = match_labels

    @builtins.property
    def match_expressions(
        self,
    ) -> typing.Optional[typing.List["ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions"]]:
        '''matchExpressions is a list of label selector requirements.

        The requirements are ANDed.

        :schema: ClusterQueueV1Beta2SpecNamespaceSelector#matchExpressions
        '''
        result = self._values.get("match_expressions")
        return typing.cast(typing.Optional[typing.List["ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions"]], result)

    @builtins.property
    def match_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''matchLabels is a map of {key,value} pairs.

        A single {key,value} in the matchLabels
        map is equivalent to an element of matchExpressions, whose key field is "key", the
        operator is "In", and the values array contains only "value". The requirements are ANDed.

        :schema: ClusterQueueV1Beta2SpecNamespaceSelector#matchLabels
        '''
        result = self._values.get("match_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecNamespaceSelector(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "operator": "operator", "values": "values"},
)
class ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions:
    def __init__(
        self,
        *,
        key: builtins.str,
        operator: builtins.str,
        values: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.

        :param key: key is the label key that the selector applies to.
        :param operator: operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.
        :param values: values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.

        :schema: ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e357dae5536fe4737539afa4af6363d0b8e1486e49b0ec3ce64d11ee35173f17)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument operator", value=operator, expected_type=type_hints["operator"])
            check_type(argname="argument values", value=values, expected_type=type_hints["values"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "operator": operator,
        }
        if values is not None:
            self._values["values"] = values

    @builtins.property
    def key(self) -> builtins.str:
        '''key is the label key that the selector applies to.

        :schema: ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def operator(self) -> builtins.str:
        '''operator represents a key's relationship to a set of values.

        Valid operators are In, NotIn, Exists and DoesNotExist.

        :schema: ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions#operator
        '''
        result = self._values.get("operator")
        assert result is not None, "Required property 'operator' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def values(self) -> typing.Optional[typing.List[builtins.str]]:
        '''values is an array of string values.

        If the operator is In or NotIn,
        the values array must be non-empty. If the operator is Exists or DoesNotExist,
        the values array must be empty. This array is replaced during a strategic
        merge patch.

        :schema: ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions#values
        '''
        result = self._values.get("values")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecPreemption",
    jsii_struct_bases=[],
    name_mapping={
        "borrow_within_cohort": "borrowWithinCohort",
        "reclaim_within_cohort": "reclaimWithinCohort",
        "within_cluster_queue": "withinClusterQueue",
    },
)
class ClusterQueueV1Beta2SpecPreemption:
    def __init__(
        self,
        *,
        borrow_within_cohort: typing.Optional[typing.Union["ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort", typing.Dict[builtins.str, typing.Any]]] = None,
        reclaim_within_cohort: typing.Optional["ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort"] = None,
        within_cluster_queue: typing.Optional["ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue"] = None,
    ) -> None:
        '''preemption defines the preemption policies.

        :param borrow_within_cohort: borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing. May only be configured with Classical Preemption, and **not** with Fair Sharing.
        :param reclaim_within_cohort: reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota. The possible values are: - ``Never`` (default): do not preempt Workloads in the cohort. - ``LowerPriority``: **Classic Preemption** if the pending Workload fits within the nominal quota of its ClusterQueue, only preempt Workloads in the cohort that have lower priority than the pending Workload. **Fair Sharing** only preempt Workloads in the cohort that have lower priority than the pending Workload and that satisfy the Fair Sharing preemptionStategies. - ``Any``: **Classic Preemption** if the pending Workload fits within the nominal quota of its ClusterQueue, preempt any Workload in the cohort, irrespective of priority. **Fair Sharing** preempt Workloads in the cohort that satisfy the Fair Sharing preemptionStrategies.
        :param within_cluster_queue: withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue. The possible values are: - ``Never`` (default): do not preempt Workloads in the ClusterQueue. - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have lower priority than the pending Workload. - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that either have a lower priority than the pending workload or equal priority and are newer than the pending workload.

        :schema: ClusterQueueV1Beta2SpecPreemption
        '''
        if isinstance(borrow_within_cohort, dict):
            borrow_within_cohort = ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort(**borrow_within_cohort)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0f5298f22e7d42769486222b5dfc024a450eeb1bd60f93340a6256b0b0d0befb)
            check_type(argname="argument borrow_within_cohort", value=borrow_within_cohort, expected_type=type_hints["borrow_within_cohort"])
            check_type(argname="argument reclaim_within_cohort", value=reclaim_within_cohort, expected_type=type_hints["reclaim_within_cohort"])
            check_type(argname="argument within_cluster_queue", value=within_cluster_queue, expected_type=type_hints["within_cluster_queue"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if borrow_within_cohort is not None:
            self._values["borrow_within_cohort"] = borrow_within_cohort
        if reclaim_within_cohort is not None:
            self._values["reclaim_within_cohort"] = reclaim_within_cohort
        if within_cluster_queue is not None:
            self._values["within_cluster_queue"] = within_cluster_queue

    @builtins.property
    def borrow_within_cohort(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort"]:
        '''borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing.

        May only be configured with Classical Preemption, and **not** with Fair Sharing.

        :schema: ClusterQueueV1Beta2SpecPreemption#borrowWithinCohort
        '''
        result = self._values.get("borrow_within_cohort")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort"], result)

    @builtins.property
    def reclaim_within_cohort(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort"]:
        '''reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota.

        The possible values are:

        - ``Never`` (default): do not preempt Workloads in the cohort.
        - ``LowerPriority``: **Classic Preemption** if the pending Workload
          fits within the nominal quota of its ClusterQueue, only preempt
          Workloads in the cohort that have lower priority than the pending
          Workload. **Fair Sharing** only preempt Workloads in the cohort that
          have lower priority than the pending Workload and that satisfy the
          Fair Sharing preemptionStategies.
        - ``Any``: **Classic Preemption** if the pending Workload fits within
          the nominal quota of its ClusterQueue, preempt any Workload in the
          cohort, irrespective of priority. **Fair Sharing** preempt Workloads
          in the cohort that satisfy the Fair Sharing preemptionStrategies.

        :schema: ClusterQueueV1Beta2SpecPreemption#reclaimWithinCohort
        '''
        result = self._values.get("reclaim_within_cohort")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort"], result)

    @builtins.property
    def within_cluster_queue(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue"]:
        '''withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue.

        The possible values are:

        - ``Never`` (default): do not preempt Workloads in the ClusterQueue.
        - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have
          lower priority than the pending Workload.
        - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that
          either have a lower priority than the pending workload or equal priority
          and are newer than the pending workload.

        :schema: ClusterQueueV1Beta2SpecPreemption#withinClusterQueue
        '''
        result = self._values.get("within_cluster_queue")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecPreemption(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort",
    jsii_struct_bases=[],
    name_mapping={
        "max_priority_threshold": "maxPriorityThreshold",
        "policy": "policy",
    },
)
class ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort:
    def __init__(
        self,
        *,
        max_priority_threshold: typing.Optional[jsii.Number] = None,
        policy: typing.Optional["ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy"] = None,
    ) -> None:
        '''borrowWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort if the workload requires borrowing.

        May only be configured with Classical Preemption, and **not** with Fair Sharing.

        :param max_priority_threshold: maxPriorityThreshold allows to restrict the set of workloads which might be preempted by a borrowing workload, to only workloads with priority less than or equal to the specified threshold priority. When the threshold is not specified, then any workload satisfying the policy can be preempted by the borrowing workload.
        :param policy: policy determines the policy for preemption to reclaim quota within cohort while borrowing. Possible values are: - ``Never`` (default): do not allow for preemption, in other ClusterQueues within the cohort, for a borrowing workload. - ``LowerPriority``: allow preemption, in other ClusterQueues within the cohort, for a borrowing workload, but only if the preempted workloads are of lower priority.

        :schema: ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__53483d7c7e7ac4b0a661716d0d282c0412db614d888a02f1753aadc9c85b7706)
            check_type(argname="argument max_priority_threshold", value=max_priority_threshold, expected_type=type_hints["max_priority_threshold"])
            check_type(argname="argument policy", value=policy, expected_type=type_hints["policy"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if max_priority_threshold is not None:
            self._values["max_priority_threshold"] = max_priority_threshold
        if policy is not None:
            self._values["policy"] = policy

    @builtins.property
    def max_priority_threshold(self) -> typing.Optional[jsii.Number]:
        '''maxPriorityThreshold allows to restrict the set of workloads which might be preempted by a borrowing workload, to only workloads with priority less than or equal to the specified threshold priority.

        When the threshold is not specified, then any workload satisfying the
        policy can be preempted by the borrowing workload.

        :schema: ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort#maxPriorityThreshold
        '''
        result = self._values.get("max_priority_threshold")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def policy(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy"]:
        '''policy determines the policy for preemption to reclaim quota within cohort while borrowing.

        Possible values are:

        - ``Never`` (default): do not allow for preemption, in other
          ClusterQueues within the cohort, for a borrowing workload.
        - ``LowerPriority``: allow preemption, in other ClusterQueues
          within the cohort, for a borrowing workload, but only if
          the preempted workloads are of lower priority.

        :schema: ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort#policy
        '''
        result = self._values.get("policy")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy"
)
class ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy(enum.Enum):
    '''policy determines the policy for preemption to reclaim quota within cohort while borrowing.

    Possible values are:

    - ``Never`` (default): do not allow for preemption, in other
      ClusterQueues within the cohort, for a borrowing workload.
    - ``LowerPriority``: allow preemption, in other ClusterQueues
      within the cohort, for a borrowing workload, but only if
      the preempted workloads are of lower priority.

    :schema: ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort"
)
class ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort(enum.Enum):
    '''reclaimWithinCohort determines whether a pending Workload can preempt Workloads from other ClusterQueues in the cohort that are using more than their nominal quota.

    The possible values are:

    - ``Never`` (default): do not preempt Workloads in the cohort.
    - ``LowerPriority``: **Classic Preemption** if the pending Workload
      fits within the nominal quota of its ClusterQueue, only preempt
      Workloads in the cohort that have lower priority than the pending
      Workload. **Fair Sharing** only preempt Workloads in the cohort that
      have lower priority than the pending Workload and that satisfy the
      Fair Sharing preemptionStategies.
    - ``Any``: **Classic Preemption** if the pending Workload fits within
      the nominal quota of its ClusterQueue, preempt any Workload in the
      cohort, irrespective of priority. **Fair Sharing** preempt Workloads
      in the cohort that satisfy the Fair Sharing preemptionStrategies.

    :schema: ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''
    ANY = "ANY"
    '''Any.'''


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue"
)
class ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue(enum.Enum):
    '''withinClusterQueue determines whether a pending Workload that doesn't fit within the nominal quota for its ClusterQueue, can preempt active Workloads in the ClusterQueue.

    The possible values are:

    - ``Never`` (default): do not preempt Workloads in the ClusterQueue.
    - ``LowerPriority``: only preempt Workloads in the ClusterQueue that have
      lower priority than the pending Workload.
    - ``LowerOrNewerEqualPriority``: only preempt Workloads in the ClusterQueue that
      either have a lower priority than the pending workload or equal priority
      and are newer than the pending workload.

    :schema: ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue
    '''

    NEVER = "NEVER"
    '''Never.'''
    LOWER_PRIORITY = "LOWER_PRIORITY"
    '''LowerPriority.'''
    LOWER_OR_NEWER_EQUAL_PRIORITY = "LOWER_OR_NEWER_EQUAL_PRIORITY"
    '''LowerOrNewerEqualPriority.'''


@jsii.enum(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecQueueingStrategy"
)
class ClusterQueueV1Beta2SpecQueueingStrategy(enum.Enum):
    '''queueingStrategy indicates the queueing strategy of the workloads across the queues in this ClusterQueue. Current Supported Strategies:.

    - StrictFIFO: workloads are ordered strictly by creation time.
      Older workloads that can't be admitted will block admitting newer
      workloads even if they fit available quota.
    - BestEffortFIFO: workloads are ordered by creation time,
      however older workloads that can't be admitted will not block
      admitting newer workloads that fit existing quota.

    :schema: ClusterQueueV1Beta2SpecQueueingStrategy
    '''

    STRICT_FIFO = "STRICT_FIFO"
    '''StrictFIFO.'''
    BEST_EFFORT_FIFO = "BEST_EFFORT_FIFO"
    '''BestEffortFIFO.'''


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecResourceGroups",
    jsii_struct_bases=[],
    name_mapping={"covered_resources": "coveredResources", "flavors": "flavors"},
)
class ClusterQueueV1Beta2SpecResourceGroups:
    def __init__(
        self,
        *,
        covered_resources: typing.Sequence[builtins.str],
        flavors: typing.Sequence[typing.Union["ClusterQueueV1Beta2SpecResourceGroupsFlavors", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param covered_resources: coveredResources is the list of resources covered by the flavors in this group. Examples: cpu, memory, vendor.com/gpu. The list cannot be empty and it can contain up to 64 resources. With a total of up to 256 covered resources across all resource groups in the ClusterQueue.
        :param flavors: flavors is the list of flavors that provide the resources of this group. Typically, different flavors represent different hardware models (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot cpus). Each flavor MUST list all the resources listed for this group in the same order as the .resources field. The list cannot be empty and it can contain up to 64 flavors, with a max of 256 total flavors across all resource groups in the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecResourceGroups
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a85058741a4369784234f183d0762012ee1efae177e68bb981a86d94fe7c3892)
            check_type(argname="argument covered_resources", value=covered_resources, expected_type=type_hints["covered_resources"])
            check_type(argname="argument flavors", value=flavors, expected_type=type_hints["flavors"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "covered_resources": covered_resources,
            "flavors": flavors,
        }

    @builtins.property
    def covered_resources(self) -> typing.List[builtins.str]:
        '''coveredResources is the list of resources covered by the flavors in this group.

        Examples: cpu, memory, vendor.com/gpu.
        The list cannot be empty and it can contain up to 64 resources. With a total
        of up to 256 covered resources across all resource groups in the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecResourceGroups#coveredResources
        '''
        result = self._values.get("covered_resources")
        assert result is not None, "Required property 'covered_resources' is missing"
        return typing.cast(typing.List[builtins.str], result)

    @builtins.property
    def flavors(self) -> typing.List["ClusterQueueV1Beta2SpecResourceGroupsFlavors"]:
        '''flavors is the list of flavors that provide the resources of this group.

        Typically, different flavors represent different hardware models
        (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot
        cpus).
        Each flavor MUST list all the resources listed for this group in the same
        order as the .resources field.
        The list cannot be empty and it can contain up to 64 flavors, with a max of
        256 total flavors across all resource groups in the ClusterQueue.

        :schema: ClusterQueueV1Beta2SpecResourceGroups#flavors
        '''
        result = self._values.get("flavors")
        assert result is not None, "Required property 'flavors' is missing"
        return typing.cast(typing.List["ClusterQueueV1Beta2SpecResourceGroupsFlavors"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecResourceGroups(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecResourceGroupsFlavors",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "resources": "resources"},
)
class ClusterQueueV1Beta2SpecResourceGroupsFlavors:
    def __init__(
        self,
        *,
        name: builtins.str,
        resources: typing.Sequence[typing.Union["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param name: name of this flavor. The name should match the .metadata.name of a ResourceFlavor. If a matching ResourceFlavor does not exist, the ClusterQueue will have an Active condition set to False.
        :param resources: resources is the list of quotas for this flavor per resource. There could be up to 64 resources.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavors
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__66a303336352288f886a2abda13fc4b5202b9c5d47aa69c266f55a9875dee66d)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument resources", value=resources, expected_type=type_hints["resources"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "resources": resources,
        }

    @builtins.property
    def name(self) -> builtins.str:
        '''name of this flavor.

        The name should match the .metadata.name of a
        ResourceFlavor. If a matching ResourceFlavor does not exist, the
        ClusterQueue will have an Active condition set to False.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavors#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def resources(
        self,
    ) -> typing.List["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources"]:
        '''resources is the list of quotas for this flavor per resource.

        There could be up to 64 resources.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavors#resources
        '''
        result = self._values.get("resources")
        assert result is not None, "Required property 'resources' is missing"
        return typing.cast(typing.List["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecResourceGroupsFlavors(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "nominal_quota": "nominalQuota",
        "borrowing_limit": "borrowingLimit",
        "lending_limit": "lendingLimit",
    },
)
class ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources:
    def __init__(
        self,
        *,
        name: builtins.str,
        nominal_quota: "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota",
        borrowing_limit: typing.Optional["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit"] = None,
        lending_limit: typing.Optional["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit"] = None,
    ) -> None:
        '''
        :param name: name of this resource.
        :param nominal_quota: nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time. The nominalQuota must be non-negative. nominalQuota should represent the resources in the cluster available for running jobs (after discounting resources consumed by system components and pods not managed by kueue). In an autoscaled cluster, nominalQuota should account for resources that can be provided by a component such as Kubernetes cluster-autoscaler. If the ClusterQueue belongs to a cohort, the sum of the quotas for each (flavor, resource) combination defines the maximum quantity that can be allocated by a ClusterQueue in the cohort.
        :param borrowing_limit: borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort. In total, at a given time, Workloads in a ClusterQueue can consume a quantity of quota equal to nominalQuota+borrowingLimit, assuming the other ClusterQueues in the cohort have enough unused quota. If null, it means that there is no borrowing limit. If not null, it must be non-negative. borrowingLimit must be null if spec.cohortName is empty.
        :param lending_limit: lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort. In total, at a given time, ClusterQueue reserves for its exclusive use a quantity of quota equals to nominalQuota - lendingLimit. If null, it means that there is no lending limit, meaning that all the nominalQuota can be borrowed by other clusterQueues in the cohort. If not null, it must be non-negative. lendingLimit must be null if spec.cohortName is empty. This field is in beta stage and is enabled by default.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__bd9fb2711da7e50e63bc27930cc1d01fb538ec7417148d0ac87ba2e262b361da)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument nominal_quota", value=nominal_quota, expected_type=type_hints["nominal_quota"])
            check_type(argname="argument borrowing_limit", value=borrowing_limit, expected_type=type_hints["borrowing_limit"])
            check_type(argname="argument lending_limit", value=lending_limit, expected_type=type_hints["lending_limit"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
            "nominal_quota": nominal_quota,
        }
        if borrowing_limit is not None:
            self._values["borrowing_limit"] = borrowing_limit
        if lending_limit is not None:
            self._values["lending_limit"] = lending_limit

    @builtins.property
    def name(self) -> builtins.str:
        '''name of this resource.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def nominal_quota(
        self,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota":
        '''nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time.

        The nominalQuota must be non-negative.
        nominalQuota should represent the resources in the cluster available for
        running jobs (after discounting resources consumed by system components
        and pods not managed by kueue). In an autoscaled cluster, nominalQuota
        should account for resources that can be provided by a component such as
        Kubernetes cluster-autoscaler.

        If the ClusterQueue belongs to a cohort, the sum of the quotas for each
        (flavor, resource) combination defines the maximum quantity that can be
        allocated by a ClusterQueue in the cohort.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources#nominalQuota
        '''
        result = self._values.get("nominal_quota")
        assert result is not None, "Required property 'nominal_quota' is missing"
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota", result)

    @builtins.property
    def borrowing_limit(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit"]:
        '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

        In total, at a given time, Workloads in a ClusterQueue can consume a
        quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
        ClusterQueues in the cohort have enough unused quota.
        If null, it means that there is no borrowing limit.
        If not null, it must be non-negative.
        borrowingLimit must be null if spec.cohortName is empty.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources#borrowingLimit
        '''
        result = self._values.get("borrowing_limit")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit"], result)

    @builtins.property
    def lending_limit(
        self,
    ) -> typing.Optional["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit"]:
        '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

        In total, at a given time, ClusterQueue reserves for its exclusive use
        a quantity of quota equals to nominalQuota - lendingLimit.
        If null, it means that there is no lending limit, meaning that
        all the nominalQuota can be borrowed by other clusterQueues in the cohort.
        If not null, it must be non-negative.
        lendingLimit must be null if spec.cohortName is empty.
        This field is in beta stage and is enabled by default.

        :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources#lendingLimit
        '''
        result = self._values.get("lending_limit")
        return typing.cast(typing.Optional["ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit",
):
    '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

    In total, at a given time, Workloads in a ClusterQueue can consume a
    quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
    ClusterQueues in the cohort have enough unused quota.
    If null, it means that there is no borrowing limit.
    If not null, it must be non-negative.
    borrowingLimit must be null if spec.cohortName is empty.

    :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__59ed3b36d62e8820910af06ed70b5559608fcddb2027728d27b4e63fe49f37d0)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ee062c6c38755fd278734f6c001224138c4782cb4884556f5033c2ac4f01a459)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit",
):
    '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

    In total, at a given time, ClusterQueue reserves for its exclusive use
    a quantity of quota equals to nominalQuota - lendingLimit.
    If null, it means that there is no lending limit, meaning that
    all the nominalQuota can be borrowed by other clusterQueues in the cohort.
    If not null, it must be non-negative.
    lendingLimit must be null if spec.cohortName is empty.
    This field is in beta stage and is enabled by default.

    :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7ab9668bd38fd43d83d338643ba4bb4ceb71e7a69650ed69e960f7c363153f02)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0baf38a2144f8dec2dcb06632660d66fd4863e62a04b513d17f6f0cff81f0b7e)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota(
    metaclass=jsii.JSIIMeta,
    jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota",
):
    '''nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time.

    The nominalQuota must be non-negative.
    nominalQuota should represent the resources in the cluster available for
    running jobs (after discounting resources consumed by system components
    and pods not managed by kueue). In an autoscaled cluster, nominalQuota
    should account for resources that can be provided by a component such as
    Kubernetes cluster-autoscaler.

    If the ClusterQueue belongs to a cohort, the sum of the quotas for each
    (flavor, resource) combination defines the maximum quantity that can be
    allocated by a ClusterQueue in the cohort.

    :schema: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1e66e87690d2a7a0f2467e42c78ca9e7d453e0f788b2a9c9b7601954c00c92bd)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c68c2cb6d4942f2604f19ea36b13b9f645226b381003954176a2e3b75a3ad124)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.enum(jsii_type="clusterqueue_iox-k8skueue.ClusterQueueV1Beta2SpecStopPolicy")
class ClusterQueueV1Beta2SpecStopPolicy(enum.Enum):
    '''stopPolicy - if set to a value different from None, the ClusterQueue is considered Inactive, no new reservation being made.

    Depending on its value, its associated workloads will:

    - None - Workloads are admitted
    - HoldAndDrain - Admitted workloads are evicted and Reserving workloads will cancel the reservation.
    - Hold - Admitted workloads will run to completion and Reserving workloads will cancel the reservation.

    :schema: ClusterQueueV1Beta2SpecStopPolicy
    '''

    NONE = "NONE"
    '''None.'''
    HOLD = "HOLD"
    '''Hold.'''
    HOLD_AND_DRAIN = "HOLD_AND_DRAIN"
    '''HoldAndDrain.'''


__all__ = [
    "ClusterQueue",
    "ClusterQueueProps",
    "ClusterQueueSpec",
    "ClusterQueueSpecAdmissionChecksStrategy",
    "ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks",
    "ClusterQueueSpecAdmissionScope",
    "ClusterQueueSpecFairSharing",
    "ClusterQueueSpecFairSharingWeight",
    "ClusterQueueSpecFlavorFungibility",
    "ClusterQueueSpecFlavorFungibilityPreference",
    "ClusterQueueSpecFlavorFungibilityWhenCanBorrow",
    "ClusterQueueSpecFlavorFungibilityWhenCanPreempt",
    "ClusterQueueSpecNamespaceSelector",
    "ClusterQueueSpecNamespaceSelectorMatchExpressions",
    "ClusterQueueSpecPreemption",
    "ClusterQueueSpecPreemptionBorrowWithinCohort",
    "ClusterQueueSpecPreemptionBorrowWithinCohortPolicy",
    "ClusterQueueSpecPreemptionReclaimWithinCohort",
    "ClusterQueueSpecPreemptionWithinClusterQueue",
    "ClusterQueueSpecQueueingStrategy",
    "ClusterQueueSpecResourceGroups",
    "ClusterQueueSpecResourceGroupsFlavors",
    "ClusterQueueSpecResourceGroupsFlavorsResources",
    "ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit",
    "ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit",
    "ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota",
    "ClusterQueueSpecStopPolicy",
    "ClusterQueueV1Beta2",
    "ClusterQueueV1Beta2Props",
    "ClusterQueueV1Beta2Spec",
    "ClusterQueueV1Beta2SpecAdmissionChecksStrategy",
    "ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks",
    "ClusterQueueV1Beta2SpecAdmissionScope",
    "ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode",
    "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy",
    "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration",
    "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints",
    "ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode",
    "ClusterQueueV1Beta2SpecFairSharing",
    "ClusterQueueV1Beta2SpecFairSharingWeight",
    "ClusterQueueV1Beta2SpecFlavorFungibility",
    "ClusterQueueV1Beta2SpecFlavorFungibilityPreference",
    "ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow",
    "ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt",
    "ClusterQueueV1Beta2SpecNamespaceSelector",
    "ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions",
    "ClusterQueueV1Beta2SpecPreemption",
    "ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort",
    "ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy",
    "ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort",
    "ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue",
    "ClusterQueueV1Beta2SpecQueueingStrategy",
    "ClusterQueueV1Beta2SpecResourceGroups",
    "ClusterQueueV1Beta2SpecResourceGroupsFlavors",
    "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources",
    "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit",
    "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit",
    "ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota",
    "ClusterQueueV1Beta2SpecStopPolicy",
]

publication.publish()

def _typecheckingstub__5a899b24cdaa7512083a615c568cd4a862eb4cc1d10825b428ffcf7cc373bef0(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ClusterQueueSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__119b759d50e57951eca839d2d18d2573f087473ec7fd3fd557a404d12a90895a(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ClusterQueueSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__30847d62ba9501f631073aca327c56f1e7731e852ebaed815b05c0a5001393c2(
    *,
    admission_checks: typing.Optional[typing.Sequence[builtins.str]] = None,
    admission_checks_strategy: typing.Optional[typing.Union[ClusterQueueSpecAdmissionChecksStrategy, typing.Dict[builtins.str, typing.Any]]] = None,
    admission_scope: typing.Optional[typing.Union[ClusterQueueSpecAdmissionScope, typing.Dict[builtins.str, typing.Any]]] = None,
    cohort: typing.Optional[builtins.str] = None,
    fair_sharing: typing.Optional[typing.Union[ClusterQueueSpecFairSharing, typing.Dict[builtins.str, typing.Any]]] = None,
    flavor_fungibility: typing.Optional[typing.Union[ClusterQueueSpecFlavorFungibility, typing.Dict[builtins.str, typing.Any]]] = None,
    namespace_selector: typing.Optional[typing.Union[ClusterQueueSpecNamespaceSelector, typing.Dict[builtins.str, typing.Any]]] = None,
    preemption: typing.Optional[typing.Union[ClusterQueueSpecPreemption, typing.Dict[builtins.str, typing.Any]]] = None,
    queueing_strategy: typing.Optional[ClusterQueueSpecQueueingStrategy] = None,
    resource_groups: typing.Optional[typing.Sequence[typing.Union[ClusterQueueSpecResourceGroups, typing.Dict[builtins.str, typing.Any]]]] = None,
    stop_policy: typing.Optional[ClusterQueueSpecStopPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d781696d37c24c664be97b6c92ad06fdf5447a74e6f9139fa21d5a3dfa5f50aa(
    *,
    admission_checks: typing.Optional[typing.Sequence[typing.Union[ClusterQueueSpecAdmissionChecksStrategyAdmissionChecks, typing.Dict[builtins.str, typing.Any]]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__edce727de556fb490cf8a492b4b7a9566a4d30f9bec795ee88d6fd5b517ed732(
    *,
    name: builtins.str,
    on_flavors: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b0ec5621432a272ce813a313705c499f8ce7b2350479a2881ed0bb802462bb0c(
    *,
    admission_mode: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7d21ace9f1774c2d46cb0e4b1c6102c66fb026085928262ecbccc4a9998c70d6(
    *,
    weight: typing.Optional[ClusterQueueSpecFairSharingWeight] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f4ec8b5acdf6938b871dfbc1ea3c8243881fced5b6856541d3eee6ad90b1c845(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7696d1384d770c6060006035a7d274970936644ab7bc4e179dc64d660c27ed58(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ed6f35f6089bc38b75bf8d30141ebbb40580454cf201f48a4fbd7e37414566d2(
    *,
    preference: typing.Optional[ClusterQueueSpecFlavorFungibilityPreference] = None,
    when_can_borrow: typing.Optional[ClusterQueueSpecFlavorFungibilityWhenCanBorrow] = None,
    when_can_preempt: typing.Optional[ClusterQueueSpecFlavorFungibilityWhenCanPreempt] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__bc8407745932982f0a9ec1e1d8dd2c4c2cd0001b7a9eb5dd6ed83b9962dd6f72(
    *,
    match_expressions: typing.Optional[typing.Sequence[typing.Union[ClusterQueueSpecNamespaceSelectorMatchExpressions, typing.Dict[builtins.str, typing.Any]]]] = None,
    match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f28c9c5a52d6d69d0f73a019a62c9fc2c8d2d95755424bdef2aa9d9b3e94dbd0(
    *,
    key: builtins.str,
    operator: builtins.str,
    values: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b9da0ee2640c5951fd2609e3be586f5cda26dd59b11094c94401fb5f08b0974d(
    *,
    borrow_within_cohort: typing.Optional[typing.Union[ClusterQueueSpecPreemptionBorrowWithinCohort, typing.Dict[builtins.str, typing.Any]]] = None,
    reclaim_within_cohort: typing.Optional[ClusterQueueSpecPreemptionReclaimWithinCohort] = None,
    within_cluster_queue: typing.Optional[ClusterQueueSpecPreemptionWithinClusterQueue] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b641b852262d369033faa9d60215ac81e62d5b4e8641b1f5b748e64f2e52ce23(
    *,
    max_priority_threshold: typing.Optional[jsii.Number] = None,
    policy: typing.Optional[ClusterQueueSpecPreemptionBorrowWithinCohortPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7f0dbf5a90320ba0aa0d768aa874d2215d4bc6747abb86f04231661a3ad919c0(
    *,
    covered_resources: typing.Sequence[builtins.str],
    flavors: typing.Sequence[typing.Union[ClusterQueueSpecResourceGroupsFlavors, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__03e91ce8cc0c9fb5988146c4f6f530d1c94e97d25829b3ec8aa207e0f50a10d4(
    *,
    name: builtins.str,
    resources: typing.Sequence[typing.Union[ClusterQueueSpecResourceGroupsFlavorsResources, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__10657964befce50c76ac9b692568315786f3848f181930967e568ba47cce03a2(
    *,
    name: builtins.str,
    nominal_quota: ClusterQueueSpecResourceGroupsFlavorsResourcesNominalQuota,
    borrowing_limit: typing.Optional[ClusterQueueSpecResourceGroupsFlavorsResourcesBorrowingLimit] = None,
    lending_limit: typing.Optional[ClusterQueueSpecResourceGroupsFlavorsResourcesLendingLimit] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5ff6e3480a90a70fe42dab412a24b211ed556c78f8f2e98c31272223574bb1f8(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a38b32345fcf152bdee414042dca4bd987117ccd59d4ca02a3ff524f91ad2082(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f91eab67b3e046aedb48dfd137ed956fd69241bdfba1045e6c58ec54b440e0ae(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0afda67d52bb91544057ae71e87807e793af6ed8ccb41be811092120abea9cc5(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__cc37d3d01702b00dbdd5360ba1c92009fb0ff489660056eecac5e0ac42b6ecd8(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__439aaa727ec59d6e1360b530f451682212c2572f8205327f0ce4ac2e45b8b311(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b2a6d8df57e68612230b4dd0c95081e4f1dd42bc927e6c837afb5fee5e4cc2de(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ClusterQueueV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7e8e50e30d88cdcaf735ede034ce4e537967ccea132263c850da15caf95cd81c(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[ClusterQueueV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5dc525aa9754700203f8f45a33e908129ed30a9cab2f6ec3d3316a12cd861ed8(
    *,
    admission_checks_strategy: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecAdmissionChecksStrategy, typing.Dict[builtins.str, typing.Any]]] = None,
    admission_scope: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecAdmissionScope, typing.Dict[builtins.str, typing.Any]]] = None,
    cohort_name: typing.Optional[builtins.str] = None,
    concurrent_admission_policy: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecConcurrentAdmissionPolicy, typing.Dict[builtins.str, typing.Any]]] = None,
    fair_sharing: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecFairSharing, typing.Dict[builtins.str, typing.Any]]] = None,
    flavor_fungibility: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecFlavorFungibility, typing.Dict[builtins.str, typing.Any]]] = None,
    namespace_selector: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecNamespaceSelector, typing.Dict[builtins.str, typing.Any]]] = None,
    preemption: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecPreemption, typing.Dict[builtins.str, typing.Any]]] = None,
    queueing_strategy: typing.Optional[ClusterQueueV1Beta2SpecQueueingStrategy] = None,
    resource_groups: typing.Optional[typing.Sequence[typing.Union[ClusterQueueV1Beta2SpecResourceGroups, typing.Dict[builtins.str, typing.Any]]]] = None,
    stop_policy: typing.Optional[ClusterQueueV1Beta2SpecStopPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1d14210cfc5fb5d7fec71c3a8a20befc47410b69dfb1ad329d05b60355c5bda2(
    *,
    admission_checks: typing.Sequence[typing.Union[ClusterQueueV1Beta2SpecAdmissionChecksStrategyAdmissionChecks, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c87e50ab75161e589482f2290e2915922ba87222695159083e24b3532f29e462(
    *,
    name: builtins.str,
    on_flavors: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7aa546fba830008faaa7e2ec9bcbfc3443a5bfde9a0f9e485d58526cf522822f(
    *,
    admission_mode: ClusterQueueV1Beta2SpecAdmissionScopeAdmissionMode,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__85b7e5405b62e66aacfa30509ef9511fcab5cf30579006196759e89d30cfe873(
    *,
    migration: typing.Union[ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigration, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__6f234483e0df74581b623cb846f259726fc8443458ece75612a5afffa393996c(
    *,
    mode: ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationMode,
    constraints: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecConcurrentAdmissionPolicyMigrationConstraints, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__57af55a459f47196ceb0861979229121fcb6519f97f61fb5f71e7a6c724c2324(
    *,
    last_acceptable_flavor_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d1085bb1642b96c13a27939fe0d35c725a284cb7600a1fbc45bbbe35a7a5cdeb(
    *,
    weight: typing.Optional[ClusterQueueV1Beta2SpecFairSharingWeight] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__df36a6ac21999b8fa717cb3de8253aba6c7ea0cd9e8e776b585ecc1b1a25c65a(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e9e23572351f81a3bc4f4e27dad242f276e418cafbe5b526cfc968d7d3632316(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3d09da23a4735cce3ff989dd66e9137359cfaa44a8f4127776687bccc5cd0ee3(
    *,
    preference: typing.Optional[ClusterQueueV1Beta2SpecFlavorFungibilityPreference] = None,
    when_can_borrow: typing.Optional[ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow] = None,
    when_can_preempt: typing.Optional[ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__13d494bde397fcf2eef668d8c86f4d21e0e068db04724a27d6eec134ca0af5f8(
    *,
    match_expressions: typing.Optional[typing.Sequence[typing.Union[ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions, typing.Dict[builtins.str, typing.Any]]]] = None,
    match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e357dae5536fe4737539afa4af6363d0b8e1486e49b0ec3ce64d11ee35173f17(
    *,
    key: builtins.str,
    operator: builtins.str,
    values: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0f5298f22e7d42769486222b5dfc024a450eeb1bd60f93340a6256b0b0d0befb(
    *,
    borrow_within_cohort: typing.Optional[typing.Union[ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort, typing.Dict[builtins.str, typing.Any]]] = None,
    reclaim_within_cohort: typing.Optional[ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort] = None,
    within_cluster_queue: typing.Optional[ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__53483d7c7e7ac4b0a661716d0d282c0412db614d888a02f1753aadc9c85b7706(
    *,
    max_priority_threshold: typing.Optional[jsii.Number] = None,
    policy: typing.Optional[ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a85058741a4369784234f183d0762012ee1efae177e68bb981a86d94fe7c3892(
    *,
    covered_resources: typing.Sequence[builtins.str],
    flavors: typing.Sequence[typing.Union[ClusterQueueV1Beta2SpecResourceGroupsFlavors, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__66a303336352288f886a2abda13fc4b5202b9c5d47aa69c266f55a9875dee66d(
    *,
    name: builtins.str,
    resources: typing.Sequence[typing.Union[ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__bd9fb2711da7e50e63bc27930cc1d01fb538ec7417148d0ac87ba2e262b361da(
    *,
    name: builtins.str,
    nominal_quota: ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota,
    borrowing_limit: typing.Optional[ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit] = None,
    lending_limit: typing.Optional[ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__59ed3b36d62e8820910af06ed70b5559608fcddb2027728d27b4e63fe49f37d0(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ee062c6c38755fd278734f6c001224138c4782cb4884556f5033c2ac4f01a459(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7ab9668bd38fd43d83d338643ba4bb4ceb71e7a69650ed69e960f7c363153f02(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0baf38a2144f8dec2dcb06632660d66fd4863e62a04b513d17f6f0cff81f0b7e(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1e66e87690d2a7a0f2467e42c78ca9e7d453e0f788b2a9c9b7601954c00c92bd(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c68c2cb6d4942f2604f19ea36b13b9f645226b381003954176a2e3b75a3ad124(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass
