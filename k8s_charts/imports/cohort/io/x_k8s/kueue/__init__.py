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


class Cohort(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="cohort_iox-k8skueue.Cohort",
):
    '''Cohort defines the Cohorts API.

    :schema: Cohort
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["CohortSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "Cohort" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the Cohort.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c978e8bfd7942ffcb65e4d06c001ed638717f312141ad45024961b7a51d9dac8)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = CohortProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["CohortSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "Cohort".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the Cohort.
        '''
        props = CohortProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "Cohort".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="cohort_iox-k8skueue.CohortProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class CohortProps:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["CohortSpec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Cohort defines the Cohorts API.

        :param metadata: 
        :param spec: spec is the specification of the Cohort.

        :schema: Cohort
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = CohortSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__74cef28ed39f92f6d20d1c47afbb15c140ac421ca4e80dc98c4e4edfe728d6c0)
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
        :schema: Cohort#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["CohortSpec"]:
        '''spec is the specification of the Cohort.

        :schema: Cohort#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["CohortSpec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="cohort_iox-k8skueue.CohortSpec",
    jsii_struct_bases=[],
    name_mapping={
        "fair_sharing": "fairSharing",
        "parent_name": "parentName",
        "resource_groups": "resourceGroups",
    },
)
class CohortSpec:
    def __init__(
        self,
        *,
        fair_sharing: typing.Optional[typing.Union["CohortSpecFairSharing", typing.Dict[builtins.str, typing.Any]]] = None,
        parent_name: typing.Optional[builtins.str] = None,
        resource_groups: typing.Optional[typing.Sequence[typing.Union["CohortSpecResourceGroups", typing.Dict[builtins.str, typing.Any]]]] = None,
    ) -> None:
        '''spec is the specification of the Cohort.

        :param fair_sharing: fairSharing defines the properties of the Cohort when participating in FairSharing. The values are only relevant if FairSharing is enabled in the Kueue configuration.
        :param parent_name: parentName references the name of the Cohort's parent, if any. It satisfies one of three cases: 1. Unset. This Cohort is the root of its Cohort tree. 2. References a non-existent Cohort. We use default Cohort (no borrowing/lending limits). 3. References an existent Cohort. If a cycle is created, we disable all members of the Cohort, including ClusterQueues, until the cycle is removed. We prevent further admission while the cycle exists.
        :param resource_groups: resourceGroups describes groupings of Resources and Flavors. Each ResourceGroup defines a list of Resources and a list of Flavors which provide quotas for these Resources. Each Resource and each Flavor may only form part of one ResourceGroup. There may be up to 16 ResourceGroups within a Cohort. Please note that nominalQuota defined at the Cohort level represents additional resources on top of those defined by ClusterQueues within the Cohort. The Cohort's nominalQuota may be thought of as a shared pool for the ClusterQueues within it. Additionally, this quota may also be lent out to parent Cohort(s), subject to LendingLimit. BorrowingLimit limits how much members of this Cohort subtree can borrow from the parent subtree. LendingLimit limits how much members of this Cohort subtree can lend to the parent subtree. Borrowing and Lending limits must only be set when the Cohort has a parent. Otherwise, the Cohort create/update will be rejected by the webhook.

        :schema: CohortSpec
        '''
        if isinstance(fair_sharing, dict):
            fair_sharing = CohortSpecFairSharing(**fair_sharing)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e7293d887a3bd88cbd331a92e98587394bf7002ca3e3b6e05e36b260275528ec)
            check_type(argname="argument fair_sharing", value=fair_sharing, expected_type=type_hints["fair_sharing"])
            check_type(argname="argument parent_name", value=parent_name, expected_type=type_hints["parent_name"])
            check_type(argname="argument resource_groups", value=resource_groups, expected_type=type_hints["resource_groups"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if fair_sharing is not None:
            self._values["fair_sharing"] = fair_sharing
        if parent_name is not None:
            self._values["parent_name"] = parent_name
        if resource_groups is not None:
            self._values["resource_groups"] = resource_groups

    @builtins.property
    def fair_sharing(self) -> typing.Optional["CohortSpecFairSharing"]:
        '''fairSharing defines the properties of the Cohort when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :schema: CohortSpec#fairSharing
        '''
        result = self._values.get("fair_sharing")
        return typing.cast(typing.Optional["CohortSpecFairSharing"], result)

    @builtins.property
    def parent_name(self) -> typing.Optional[builtins.str]:
        '''parentName references the name of the Cohort's parent, if any.

        It satisfies one of three cases:

        1. Unset. This Cohort is the root of its Cohort tree.
        2. References a non-existent Cohort. We use default Cohort (no borrowing/lending limits).
        3. References an existent Cohort.

        If a cycle is created, we disable all members of the
        Cohort, including ClusterQueues, until the cycle is
        removed.  We prevent further admission while the cycle
        exists.

        :schema: CohortSpec#parentName
        '''
        result = self._values.get("parent_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def resource_groups(
        self,
    ) -> typing.Optional[typing.List["CohortSpecResourceGroups"]]:
        '''resourceGroups describes groupings of Resources and Flavors.

        Each ResourceGroup defines a list of Resources
        and a list of Flavors which provide quotas for these
        Resources. Each Resource and each Flavor may only form part
        of one ResourceGroup.  There may be up to 16 ResourceGroups
        within a Cohort.

        Please note that nominalQuota defined at the Cohort level
        represents additional resources on top of those defined by
        ClusterQueues within the Cohort. The Cohort's nominalQuota
        may be thought of as a shared pool for the ClusterQueues
        within it. Additionally, this quota may also be lent out to
        parent Cohort(s), subject to LendingLimit.

        BorrowingLimit limits how much members of this Cohort
        subtree can borrow from the parent subtree.

        LendingLimit limits how much members of this Cohort subtree
        can lend to the parent subtree.

        Borrowing and Lending limits must only be set when the
        Cohort has a parent.  Otherwise, the Cohort create/update
        will be rejected by the webhook.

        :schema: CohortSpec#resourceGroups
        '''
        result = self._values.get("resource_groups")
        return typing.cast(typing.Optional[typing.List["CohortSpecResourceGroups"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="cohort_iox-k8skueue.CohortSpecFairSharing",
    jsii_struct_bases=[],
    name_mapping={"weight": "weight"},
)
class CohortSpecFairSharing:
    def __init__(
        self,
        *,
        weight: typing.Optional["CohortSpecFairSharingWeight"] = None,
    ) -> None:
        '''fairSharing defines the properties of the Cohort when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :param weight: weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort. The share is based on the dominant resource usage above nominal quotas for each resource, divided by the weight. Admission prioritizes scheduling workloads from ClusterQueues and Cohorts with the lowest share and preempting workloads from the ClusterQueues and Cohorts with the highest share. A zero weight implies infinite share value, meaning that this Node will always be at disadvantage against other ClusterQueues and Cohorts. When not 0, Weight must be greater than 10^-9.

        :schema: CohortSpecFairSharing
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a56322687f655bcff88c65b44bf520ac77373de42997117213364b3e2d4ba997)
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def weight(self) -> typing.Optional["CohortSpecFairSharingWeight"]:
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

        :schema: CohortSpecFairSharing#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional["CohortSpecFairSharingWeight"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortSpecFairSharing(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class CohortSpecFairSharingWeight(
    metaclass=jsii.JSIIMeta,
    jsii_type="cohort_iox-k8skueue.CohortSpecFairSharingWeight",
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

    :schema: CohortSpecFairSharingWeight
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "CohortSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5d4e2f3823700f702f6d2776c3df55beeff68df95f34691ef6187f71f9ba0766)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecFairSharingWeight", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "CohortSpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a55c50ea7c0cd43f04d67e73b9fce7127ae3d0dda1d1653bf189b0cbed9b36d3)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecFairSharingWeight", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="cohort_iox-k8skueue.CohortSpecResourceGroups",
    jsii_struct_bases=[],
    name_mapping={"covered_resources": "coveredResources", "flavors": "flavors"},
)
class CohortSpecResourceGroups:
    def __init__(
        self,
        *,
        covered_resources: typing.Sequence[builtins.str],
        flavors: typing.Sequence[typing.Union["CohortSpecResourceGroupsFlavors", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param covered_resources: coveredResources is the list of resources covered by the flavors in this group. Examples: cpu, memory, vendor.com/gpu. The list cannot be empty and it can contain up to 64 resources. With a total of up to 256 covered resources across all resource groups in the ClusterQueue.
        :param flavors: flavors is the list of flavors that provide the resources of this group. Typically, different flavors represent different hardware models (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot cpus). Each flavor MUST list all the resources listed for this group in the same order as the .resources field. The list cannot be empty and it can contain up to 64 flavors, with a max of 256 total flavors across all resource groups in the ClusterQueue.

        :schema: CohortSpecResourceGroups
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__df095fdda84d1a9a2017d106905995148babba64bf7b6d00d2b1aa489d8fe7f0)
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

        :schema: CohortSpecResourceGroups#coveredResources
        '''
        result = self._values.get("covered_resources")
        assert result is not None, "Required property 'covered_resources' is missing"
        return typing.cast(typing.List[builtins.str], result)

    @builtins.property
    def flavors(self) -> typing.List["CohortSpecResourceGroupsFlavors"]:
        '''flavors is the list of flavors that provide the resources of this group.

        Typically, different flavors represent different hardware models
        (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot
        cpus).
        Each flavor MUST list all the resources listed for this group in the same
        order as the .resources field.
        The list cannot be empty and it can contain up to 64 flavors, with a max of
        256 total flavors across all resource groups in the ClusterQueue.

        :schema: CohortSpecResourceGroups#flavors
        '''
        result = self._values.get("flavors")
        assert result is not None, "Required property 'flavors' is missing"
        return typing.cast(typing.List["CohortSpecResourceGroupsFlavors"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortSpecResourceGroups(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="cohort_iox-k8skueue.CohortSpecResourceGroupsFlavors",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "resources": "resources"},
)
class CohortSpecResourceGroupsFlavors:
    def __init__(
        self,
        *,
        name: builtins.str,
        resources: typing.Sequence[typing.Union["CohortSpecResourceGroupsFlavorsResources", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param name: name of this flavor. The name should match the .metadata.name of a ResourceFlavor. If a matching ResourceFlavor does not exist, the ClusterQueue will have an Active condition set to False.
        :param resources: resources is the list of quotas for this flavor per resource. There could be up to 64 resources.

        :schema: CohortSpecResourceGroupsFlavors
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__4ca8453737616f71f0ba9e791902fa5963bbf6a33606cea31fa0fcc067ef13e5)
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

        :schema: CohortSpecResourceGroupsFlavors#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def resources(self) -> typing.List["CohortSpecResourceGroupsFlavorsResources"]:
        '''resources is the list of quotas for this flavor per resource.

        There could be up to 64 resources.

        :schema: CohortSpecResourceGroupsFlavors#resources
        '''
        result = self._values.get("resources")
        assert result is not None, "Required property 'resources' is missing"
        return typing.cast(typing.List["CohortSpecResourceGroupsFlavorsResources"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortSpecResourceGroupsFlavors(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="cohort_iox-k8skueue.CohortSpecResourceGroupsFlavorsResources",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "nominal_quota": "nominalQuota",
        "borrowing_limit": "borrowingLimit",
        "lending_limit": "lendingLimit",
    },
)
class CohortSpecResourceGroupsFlavorsResources:
    def __init__(
        self,
        *,
        name: builtins.str,
        nominal_quota: "CohortSpecResourceGroupsFlavorsResourcesNominalQuota",
        borrowing_limit: typing.Optional["CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit"] = None,
        lending_limit: typing.Optional["CohortSpecResourceGroupsFlavorsResourcesLendingLimit"] = None,
    ) -> None:
        '''
        :param name: name of this resource.
        :param nominal_quota: nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time. The nominalQuota must be non-negative. nominalQuota should represent the resources in the cluster available for running jobs (after discounting resources consumed by system components and pods not managed by kueue). In an autoscaled cluster, nominalQuota should account for resources that can be provided by a component such as Kubernetes cluster-autoscaler. If the ClusterQueue belongs to a cohort, the sum of the quotas for each (flavor, resource) combination defines the maximum quantity that can be allocated by a ClusterQueue in the cohort.
        :param borrowing_limit: borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort. In total, at a given time, Workloads in a ClusterQueue can consume a quantity of quota equal to nominalQuota+borrowingLimit, assuming the other ClusterQueues in the cohort have enough unused quota. If null, it means that there is no borrowing limit. If not null, it must be non-negative. borrowingLimit must be null if spec.cohort is empty.
        :param lending_limit: lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort. In total, at a given time, ClusterQueue reserves for its exclusive use a quantity of quota equals to nominalQuota - lendingLimit. If null, it means that there is no lending limit, meaning that all the nominalQuota can be borrowed by other clusterQueues in the cohort. If not null, it must be non-negative. lendingLimit must be null if spec.cohort is empty. This field is in beta stage and is enabled by default.

        :schema: CohortSpecResourceGroupsFlavorsResources
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__06c54732a70821fe649d7fa8e4d4906d32860c876fca742e0e96dc2274138f71)
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

        :schema: CohortSpecResourceGroupsFlavorsResources#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def nominal_quota(self) -> "CohortSpecResourceGroupsFlavorsResourcesNominalQuota":
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

        :schema: CohortSpecResourceGroupsFlavorsResources#nominalQuota
        '''
        result = self._values.get("nominal_quota")
        assert result is not None, "Required property 'nominal_quota' is missing"
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesNominalQuota", result)

    @builtins.property
    def borrowing_limit(
        self,
    ) -> typing.Optional["CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit"]:
        '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

        In total, at a given time, Workloads in a ClusterQueue can consume a
        quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
        ClusterQueues in the cohort have enough unused quota.
        If null, it means that there is no borrowing limit.
        If not null, it must be non-negative.
        borrowingLimit must be null if spec.cohort is empty.

        :schema: CohortSpecResourceGroupsFlavorsResources#borrowingLimit
        '''
        result = self._values.get("borrowing_limit")
        return typing.cast(typing.Optional["CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit"], result)

    @builtins.property
    def lending_limit(
        self,
    ) -> typing.Optional["CohortSpecResourceGroupsFlavorsResourcesLendingLimit"]:
        '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

        In total, at a given time, ClusterQueue reserves for its exclusive use
        a quantity of quota equals to nominalQuota - lendingLimit.
        If null, it means that there is no lending limit, meaning that
        all the nominalQuota can be borrowed by other clusterQueues in the cohort.
        If not null, it must be non-negative.
        lendingLimit must be null if spec.cohort is empty.
        This field is in beta stage and is enabled by default.

        :schema: CohortSpecResourceGroupsFlavorsResources#lendingLimit
        '''
        result = self._values.get("lending_limit")
        return typing.cast(typing.Optional["CohortSpecResourceGroupsFlavorsResourcesLendingLimit"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortSpecResourceGroupsFlavorsResources(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="cohort_iox-k8skueue.CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit",
):
    '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

    In total, at a given time, Workloads in a ClusterQueue can consume a
    quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
    ClusterQueues in the cohort have enough unused quota.
    If null, it means that there is no borrowing limit.
    If not null, it must be non-negative.
    borrowingLimit must be null if spec.cohort is empty.

    :schema: CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3bcd1123b543abbee3c0fb8517eeaa77c4f539fe40a0b7819d670ae63191ae37)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f88c4f1ba08492e9c85a1f231fe4b8719d0b90251770341658b5ad6be1aaf8b7)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class CohortSpecResourceGroupsFlavorsResourcesLendingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="cohort_iox-k8skueue.CohortSpecResourceGroupsFlavorsResourcesLendingLimit",
):
    '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

    In total, at a given time, ClusterQueue reserves for its exclusive use
    a quantity of quota equals to nominalQuota - lendingLimit.
    If null, it means that there is no lending limit, meaning that
    all the nominalQuota can be borrowed by other clusterQueues in the cohort.
    If not null, it must be non-negative.
    lendingLimit must be null if spec.cohort is empty.
    This field is in beta stage and is enabled by default.

    :schema: CohortSpecResourceGroupsFlavorsResourcesLendingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "CohortSpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0fb69a91b1b710948a6ffff45765b9299419c0cf5864d2531ea2243411b557ca)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "CohortSpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9bd94e2deaad3b3048dfcaa0a20680410d6bf522bf16684431ff9b2e0da43c3c)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class CohortSpecResourceGroupsFlavorsResourcesNominalQuota(
    metaclass=jsii.JSIIMeta,
    jsii_type="cohort_iox-k8skueue.CohortSpecResourceGroupsFlavorsResourcesNominalQuota",
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

    :schema: CohortSpecResourceGroupsFlavorsResourcesNominalQuota
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "CohortSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1fed939e159fdddb4c5651e6692d442a518c7e64d8ba4d2f306e69c29c5319d2)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "CohortSpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f26701aa4f163f3dcd0c7d84e0a88d884141c3c982f98c66faa2bfdc228afdc9)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortSpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class CohortV1Beta2(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="cohort_iox-k8skueue.CohortV1Beta2",
):
    '''Cohort defines the Cohorts API.

    :schema: CohortV1Beta2
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["CohortV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "CohortV1Beta2" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: spec is the specification of the Cohort.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1fadedfe02ef922c2f635c19aba7916f143a654d4f662a0ec2d8b7900ce236d8)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = CohortV1Beta2Props(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["CohortV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "CohortV1Beta2".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: spec is the specification of the Cohort.
        '''
        props = CohortV1Beta2Props(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "CohortV1Beta2".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="cohort_iox-k8skueue.CohortV1Beta2Props",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class CohortV1Beta2Props:
    def __init__(
        self,
        *,
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        spec: typing.Optional[typing.Union["CohortV1Beta2Spec", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Cohort defines the Cohorts API.

        :param metadata: 
        :param spec: spec is the specification of the Cohort.

        :schema: CohortV1Beta2
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = CohortV1Beta2Spec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f5945cfd0055fa3bef0a1ce4a2b6e48cc76040f664d6343180d6a3d946fff7b6)
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
        :schema: CohortV1Beta2#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    @builtins.property
    def spec(self) -> typing.Optional["CohortV1Beta2Spec"]:
        '''spec is the specification of the Cohort.

        :schema: CohortV1Beta2#spec
        '''
        result = self._values.get("spec")
        return typing.cast(typing.Optional["CohortV1Beta2Spec"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortV1Beta2Props(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="cohort_iox-k8skueue.CohortV1Beta2Spec",
    jsii_struct_bases=[],
    name_mapping={
        "fair_sharing": "fairSharing",
        "parent_name": "parentName",
        "resource_groups": "resourceGroups",
    },
)
class CohortV1Beta2Spec:
    def __init__(
        self,
        *,
        fair_sharing: typing.Optional[typing.Union["CohortV1Beta2SpecFairSharing", typing.Dict[builtins.str, typing.Any]]] = None,
        parent_name: typing.Optional[builtins.str] = None,
        resource_groups: typing.Optional[typing.Sequence[typing.Union["CohortV1Beta2SpecResourceGroups", typing.Dict[builtins.str, typing.Any]]]] = None,
    ) -> None:
        '''spec is the specification of the Cohort.

        :param fair_sharing: fairSharing defines the properties of the Cohort when participating in FairSharing. The values are only relevant if FairSharing is enabled in the Kueue configuration.
        :param parent_name: parentName references the name of the Cohort's parent, if any. It satisfies one of three cases: 1. Unset. This Cohort is the root of its Cohort tree. 2. References a non-existent Cohort. We use default Cohort (no borrowing/lending limits). 3. References an existent Cohort. If a cycle is created, we disable all members of the Cohort, including ClusterQueues, until the cycle is removed. We prevent further admission while the cycle exists.
        :param resource_groups: resourceGroups describes groupings of Resources and Flavors. Each ResourceGroup defines a list of Resources and a list of Flavors which provide quotas for these Resources. Each Resource and each Flavor may only form part of one ResourceGroup. There may be up to 16 ResourceGroups within a Cohort. Please note that nominalQuota defined at the Cohort level represents additional resources on top of those defined by ClusterQueues within the Cohort. The Cohort's nominalQuota may be thought of as a shared pool for the ClusterQueues within it. Additionally, this quota may also be lent out to parent Cohort(s), subject to LendingLimit. BorrowingLimit limits how much members of this Cohort subtree can borrow from the parent subtree. LendingLimit limits how much members of this Cohort subtree can lend to the parent subtree. Borrowing and Lending limits must only be set when the Cohort has a parent. Otherwise, the Cohort create/update will be rejected by the webhook.

        :schema: CohortV1Beta2Spec
        '''
        if isinstance(fair_sharing, dict):
            fair_sharing = CohortV1Beta2SpecFairSharing(**fair_sharing)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__4d84e59fc81b499e72c234cb10574bcd10944b2c4a57e292bd44700e5fbc4580)
            check_type(argname="argument fair_sharing", value=fair_sharing, expected_type=type_hints["fair_sharing"])
            check_type(argname="argument parent_name", value=parent_name, expected_type=type_hints["parent_name"])
            check_type(argname="argument resource_groups", value=resource_groups, expected_type=type_hints["resource_groups"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if fair_sharing is not None:
            self._values["fair_sharing"] = fair_sharing
        if parent_name is not None:
            self._values["parent_name"] = parent_name
        if resource_groups is not None:
            self._values["resource_groups"] = resource_groups

    @builtins.property
    def fair_sharing(self) -> typing.Optional["CohortV1Beta2SpecFairSharing"]:
        '''fairSharing defines the properties of the Cohort when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :schema: CohortV1Beta2Spec#fairSharing
        '''
        result = self._values.get("fair_sharing")
        return typing.cast(typing.Optional["CohortV1Beta2SpecFairSharing"], result)

    @builtins.property
    def parent_name(self) -> typing.Optional[builtins.str]:
        '''parentName references the name of the Cohort's parent, if any.

        It satisfies one of three cases:

        1. Unset. This Cohort is the root of its Cohort tree.
        2. References a non-existent Cohort. We use default Cohort (no borrowing/lending limits).
        3. References an existent Cohort.

        If a cycle is created, we disable all members of the
        Cohort, including ClusterQueues, until the cycle is
        removed.  We prevent further admission while the cycle
        exists.

        :schema: CohortV1Beta2Spec#parentName
        '''
        result = self._values.get("parent_name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def resource_groups(
        self,
    ) -> typing.Optional[typing.List["CohortV1Beta2SpecResourceGroups"]]:
        '''resourceGroups describes groupings of Resources and Flavors.

        Each ResourceGroup defines a list of Resources
        and a list of Flavors which provide quotas for these
        Resources. Each Resource and each Flavor may only form part
        of one ResourceGroup.  There may be up to 16 ResourceGroups
        within a Cohort.

        Please note that nominalQuota defined at the Cohort level
        represents additional resources on top of those defined by
        ClusterQueues within the Cohort. The Cohort's nominalQuota
        may be thought of as a shared pool for the ClusterQueues
        within it. Additionally, this quota may also be lent out to
        parent Cohort(s), subject to LendingLimit.

        BorrowingLimit limits how much members of this Cohort
        subtree can borrow from the parent subtree.

        LendingLimit limits how much members of this Cohort subtree
        can lend to the parent subtree.

        Borrowing and Lending limits must only be set when the
        Cohort has a parent.  Otherwise, the Cohort create/update
        will be rejected by the webhook.

        :schema: CohortV1Beta2Spec#resourceGroups
        '''
        result = self._values.get("resource_groups")
        return typing.cast(typing.Optional[typing.List["CohortV1Beta2SpecResourceGroups"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortV1Beta2Spec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="cohort_iox-k8skueue.CohortV1Beta2SpecFairSharing",
    jsii_struct_bases=[],
    name_mapping={"weight": "weight"},
)
class CohortV1Beta2SpecFairSharing:
    def __init__(
        self,
        *,
        weight: typing.Optional["CohortV1Beta2SpecFairSharingWeight"] = None,
    ) -> None:
        '''fairSharing defines the properties of the Cohort when participating in FairSharing.

        The values are only relevant
        if FairSharing is enabled in the Kueue configuration.

        :param weight: weight gives a comparative advantage to this ClusterQueue or Cohort when competing for unused resources in the Cohort. The share is based on the dominant resource usage above nominal quotas for each resource, divided by the weight. Admission prioritizes scheduling workloads from ClusterQueues and Cohorts with the lowest share and preempting workloads from the ClusterQueues and Cohorts with the highest share. A zero weight implies infinite share value, meaning that this Node will always be at disadvantage against other ClusterQueues and Cohorts. When not 0, Weight must be greater than 10^-9.

        :schema: CohortV1Beta2SpecFairSharing
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__cf0887a6df84cdf760482df742bb48a31755007d85f59aabf6419578c75f3b58)
            check_type(argname="argument weight", value=weight, expected_type=type_hints["weight"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if weight is not None:
            self._values["weight"] = weight

    @builtins.property
    def weight(self) -> typing.Optional["CohortV1Beta2SpecFairSharingWeight"]:
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

        :schema: CohortV1Beta2SpecFairSharing#weight
        '''
        result = self._values.get("weight")
        return typing.cast(typing.Optional["CohortV1Beta2SpecFairSharingWeight"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortV1Beta2SpecFairSharing(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class CohortV1Beta2SpecFairSharingWeight(
    metaclass=jsii.JSIIMeta,
    jsii_type="cohort_iox-k8skueue.CohortV1Beta2SpecFairSharingWeight",
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

    :schema: CohortV1Beta2SpecFairSharingWeight
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "CohortV1Beta2SpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9d6e3b19a355281d35f951f5b34dbbf8fcb323a10caf4daf6783671ceeba600f)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortV1Beta2SpecFairSharingWeight", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "CohortV1Beta2SpecFairSharingWeight":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__684751b34853fd6c9e95faca53d3efaafe853fa4431d602e6124a85ad02e30b3)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortV1Beta2SpecFairSharingWeight", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="cohort_iox-k8skueue.CohortV1Beta2SpecResourceGroups",
    jsii_struct_bases=[],
    name_mapping={"covered_resources": "coveredResources", "flavors": "flavors"},
)
class CohortV1Beta2SpecResourceGroups:
    def __init__(
        self,
        *,
        covered_resources: typing.Sequence[builtins.str],
        flavors: typing.Sequence[typing.Union["CohortV1Beta2SpecResourceGroupsFlavors", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param covered_resources: coveredResources is the list of resources covered by the flavors in this group. Examples: cpu, memory, vendor.com/gpu. The list cannot be empty and it can contain up to 64 resources. With a total of up to 256 covered resources across all resource groups in the ClusterQueue.
        :param flavors: flavors is the list of flavors that provide the resources of this group. Typically, different flavors represent different hardware models (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot cpus). Each flavor MUST list all the resources listed for this group in the same order as the .resources field. The list cannot be empty and it can contain up to 64 flavors, with a max of 256 total flavors across all resource groups in the ClusterQueue.

        :schema: CohortV1Beta2SpecResourceGroups
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c371ec50b4e9f774adb0f0a3b097e84fabd4a278ed4408c69482cccb7058cd3b)
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

        :schema: CohortV1Beta2SpecResourceGroups#coveredResources
        '''
        result = self._values.get("covered_resources")
        assert result is not None, "Required property 'covered_resources' is missing"
        return typing.cast(typing.List[builtins.str], result)

    @builtins.property
    def flavors(self) -> typing.List["CohortV1Beta2SpecResourceGroupsFlavors"]:
        '''flavors is the list of flavors that provide the resources of this group.

        Typically, different flavors represent different hardware models
        (e.g., gpu models, cpu architectures) or pricing models (on-demand vs spot
        cpus).
        Each flavor MUST list all the resources listed for this group in the same
        order as the .resources field.
        The list cannot be empty and it can contain up to 64 flavors, with a max of
        256 total flavors across all resource groups in the ClusterQueue.

        :schema: CohortV1Beta2SpecResourceGroups#flavors
        '''
        result = self._values.get("flavors")
        assert result is not None, "Required property 'flavors' is missing"
        return typing.cast(typing.List["CohortV1Beta2SpecResourceGroupsFlavors"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortV1Beta2SpecResourceGroups(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="cohort_iox-k8skueue.CohortV1Beta2SpecResourceGroupsFlavors",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "resources": "resources"},
)
class CohortV1Beta2SpecResourceGroupsFlavors:
    def __init__(
        self,
        *,
        name: builtins.str,
        resources: typing.Sequence[typing.Union["CohortV1Beta2SpecResourceGroupsFlavorsResources", typing.Dict[builtins.str, typing.Any]]],
    ) -> None:
        '''
        :param name: name of this flavor. The name should match the .metadata.name of a ResourceFlavor. If a matching ResourceFlavor does not exist, the ClusterQueue will have an Active condition set to False.
        :param resources: resources is the list of quotas for this flavor per resource. There could be up to 64 resources.

        :schema: CohortV1Beta2SpecResourceGroupsFlavors
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5fc584cf54d2a25ff37a6964d9753dad3dcf5ed51516ef35087e602f0b3086e1)
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

        :schema: CohortV1Beta2SpecResourceGroupsFlavors#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def resources(
        self,
    ) -> typing.List["CohortV1Beta2SpecResourceGroupsFlavorsResources"]:
        '''resources is the list of quotas for this flavor per resource.

        There could be up to 64 resources.

        :schema: CohortV1Beta2SpecResourceGroupsFlavors#resources
        '''
        result = self._values.get("resources")
        assert result is not None, "Required property 'resources' is missing"
        return typing.cast(typing.List["CohortV1Beta2SpecResourceGroupsFlavorsResources"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortV1Beta2SpecResourceGroupsFlavors(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="cohort_iox-k8skueue.CohortV1Beta2SpecResourceGroupsFlavorsResources",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "nominal_quota": "nominalQuota",
        "borrowing_limit": "borrowingLimit",
        "lending_limit": "lendingLimit",
    },
)
class CohortV1Beta2SpecResourceGroupsFlavorsResources:
    def __init__(
        self,
        *,
        name: builtins.str,
        nominal_quota: "CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota",
        borrowing_limit: typing.Optional["CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit"] = None,
        lending_limit: typing.Optional["CohortV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit"] = None,
    ) -> None:
        '''
        :param name: name of this resource.
        :param nominal_quota: nominalQuota is the quantity of this resource that is available for Workloads admitted by this ClusterQueue at a point in time. The nominalQuota must be non-negative. nominalQuota should represent the resources in the cluster available for running jobs (after discounting resources consumed by system components and pods not managed by kueue). In an autoscaled cluster, nominalQuota should account for resources that can be provided by a component such as Kubernetes cluster-autoscaler. If the ClusterQueue belongs to a cohort, the sum of the quotas for each (flavor, resource) combination defines the maximum quantity that can be allocated by a ClusterQueue in the cohort.
        :param borrowing_limit: borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort. In total, at a given time, Workloads in a ClusterQueue can consume a quantity of quota equal to nominalQuota+borrowingLimit, assuming the other ClusterQueues in the cohort have enough unused quota. If null, it means that there is no borrowing limit. If not null, it must be non-negative. borrowingLimit must be null if spec.cohortName is empty.
        :param lending_limit: lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort. In total, at a given time, ClusterQueue reserves for its exclusive use a quantity of quota equals to nominalQuota - lendingLimit. If null, it means that there is no lending limit, meaning that all the nominalQuota can be borrowed by other clusterQueues in the cohort. If not null, it must be non-negative. lendingLimit must be null if spec.cohortName is empty. This field is in beta stage and is enabled by default.

        :schema: CohortV1Beta2SpecResourceGroupsFlavorsResources
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__9904b3efccb84a00840ffe758b2097cc3188ed9b498b4cd87126c38e6d92e68d)
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

        :schema: CohortV1Beta2SpecResourceGroupsFlavorsResources#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def nominal_quota(
        self,
    ) -> "CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota":
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

        :schema: CohortV1Beta2SpecResourceGroupsFlavorsResources#nominalQuota
        '''
        result = self._values.get("nominal_quota")
        assert result is not None, "Required property 'nominal_quota' is missing"
        return typing.cast("CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota", result)

    @builtins.property
    def borrowing_limit(
        self,
    ) -> typing.Optional["CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit"]:
        '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

        In total, at a given time, Workloads in a ClusterQueue can consume a
        quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
        ClusterQueues in the cohort have enough unused quota.
        If null, it means that there is no borrowing limit.
        If not null, it must be non-negative.
        borrowingLimit must be null if spec.cohortName is empty.

        :schema: CohortV1Beta2SpecResourceGroupsFlavorsResources#borrowingLimit
        '''
        result = self._values.get("borrowing_limit")
        return typing.cast(typing.Optional["CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit"], result)

    @builtins.property
    def lending_limit(
        self,
    ) -> typing.Optional["CohortV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit"]:
        '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

        In total, at a given time, ClusterQueue reserves for its exclusive use
        a quantity of quota equals to nominalQuota - lendingLimit.
        If null, it means that there is no lending limit, meaning that
        all the nominalQuota can be borrowed by other clusterQueues in the cohort.
        If not null, it must be non-negative.
        lendingLimit must be null if spec.cohortName is empty.
        This field is in beta stage and is enabled by default.

        :schema: CohortV1Beta2SpecResourceGroupsFlavorsResources#lendingLimit
        '''
        result = self._values.get("lending_limit")
        return typing.cast(typing.Optional["CohortV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "CohortV1Beta2SpecResourceGroupsFlavorsResources(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="cohort_iox-k8skueue.CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit",
):
    '''borrowingLimit is the maximum amount of quota for the [flavor, resource] combination that this ClusterQueue is allowed to borrow from the unused quota of other ClusterQueues in the same cohort.

    In total, at a given time, Workloads in a ClusterQueue can consume a
    quantity of quota equal to nominalQuota+borrowingLimit, assuming the other
    ClusterQueues in the cohort have enough unused quota.
    If null, it means that there is no borrowing limit.
    If not null, it must be non-negative.
    borrowingLimit must be null if spec.cohortName is empty.

    :schema: CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b24f992eee6cdc8b72a562cd52cf885be1f0fe2c89a1ec23b4cb8d50c682c77a)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f7c339059be6e7a7f648d3bb94894c3d04b4abd0b6635066e343276818737937)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class CohortV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit(
    metaclass=jsii.JSIIMeta,
    jsii_type="cohort_iox-k8skueue.CohortV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit",
):
    '''lendingLimit is the maximum amount of unused quota for the [flavor, resource] combination that this ClusterQueue can lend to other ClusterQueues in the same cohort.

    In total, at a given time, ClusterQueue reserves for its exclusive use
    a quantity of quota equals to nominalQuota - lendingLimit.
    If null, it means that there is no lending limit, meaning that
    all the nominalQuota can be borrowed by other clusterQueues in the cohort.
    If not null, it must be non-negative.
    lendingLimit must be null if spec.cohortName is empty.
    This field is in beta stage and is enabled by default.

    :schema: CohortV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "CohortV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__744916c7532b6808f5f8ac780057e4aa320e0e71c8089e5d4d0153bac7dcaab6)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "CohortV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__337f01651c56a85c32b3895bd793750a473ffb1ccb315102f9860190e79eb442)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


class CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota(
    metaclass=jsii.JSIIMeta,
    jsii_type="cohort_iox-k8skueue.CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota",
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

    :schema: CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1fb0abe59b92f7e8822de35bc135dc98742ac2a4758802828b053fc2f68fa0e5)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2caeee8be06e8279f747a6e0ea62068e7efd68e72599df254421b81b9be5f01d)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


__all__ = [
    "Cohort",
    "CohortProps",
    "CohortSpec",
    "CohortSpecFairSharing",
    "CohortSpecFairSharingWeight",
    "CohortSpecResourceGroups",
    "CohortSpecResourceGroupsFlavors",
    "CohortSpecResourceGroupsFlavorsResources",
    "CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit",
    "CohortSpecResourceGroupsFlavorsResourcesLendingLimit",
    "CohortSpecResourceGroupsFlavorsResourcesNominalQuota",
    "CohortV1Beta2",
    "CohortV1Beta2Props",
    "CohortV1Beta2Spec",
    "CohortV1Beta2SpecFairSharing",
    "CohortV1Beta2SpecFairSharingWeight",
    "CohortV1Beta2SpecResourceGroups",
    "CohortV1Beta2SpecResourceGroupsFlavors",
    "CohortV1Beta2SpecResourceGroupsFlavorsResources",
    "CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit",
    "CohortV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit",
    "CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota",
]

publication.publish()

def _typecheckingstub__c978e8bfd7942ffcb65e4d06c001ed638717f312141ad45024961b7a51d9dac8(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[CohortSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__74cef28ed39f92f6d20d1c47afbb15c140ac421ca4e80dc98c4e4edfe728d6c0(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[CohortSpec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e7293d887a3bd88cbd331a92e98587394bf7002ca3e3b6e05e36b260275528ec(
    *,
    fair_sharing: typing.Optional[typing.Union[CohortSpecFairSharing, typing.Dict[builtins.str, typing.Any]]] = None,
    parent_name: typing.Optional[builtins.str] = None,
    resource_groups: typing.Optional[typing.Sequence[typing.Union[CohortSpecResourceGroups, typing.Dict[builtins.str, typing.Any]]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a56322687f655bcff88c65b44bf520ac77373de42997117213364b3e2d4ba997(
    *,
    weight: typing.Optional[CohortSpecFairSharingWeight] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5d4e2f3823700f702f6d2776c3df55beeff68df95f34691ef6187f71f9ba0766(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a55c50ea7c0cd43f04d67e73b9fce7127ae3d0dda1d1653bf189b0cbed9b36d3(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__df095fdda84d1a9a2017d106905995148babba64bf7b6d00d2b1aa489d8fe7f0(
    *,
    covered_resources: typing.Sequence[builtins.str],
    flavors: typing.Sequence[typing.Union[CohortSpecResourceGroupsFlavors, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__4ca8453737616f71f0ba9e791902fa5963bbf6a33606cea31fa0fcc067ef13e5(
    *,
    name: builtins.str,
    resources: typing.Sequence[typing.Union[CohortSpecResourceGroupsFlavorsResources, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__06c54732a70821fe649d7fa8e4d4906d32860c876fca742e0e96dc2274138f71(
    *,
    name: builtins.str,
    nominal_quota: CohortSpecResourceGroupsFlavorsResourcesNominalQuota,
    borrowing_limit: typing.Optional[CohortSpecResourceGroupsFlavorsResourcesBorrowingLimit] = None,
    lending_limit: typing.Optional[CohortSpecResourceGroupsFlavorsResourcesLendingLimit] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3bcd1123b543abbee3c0fb8517eeaa77c4f539fe40a0b7819d670ae63191ae37(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f88c4f1ba08492e9c85a1f231fe4b8719d0b90251770341658b5ad6be1aaf8b7(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__0fb69a91b1b710948a6ffff45765b9299419c0cf5864d2531ea2243411b557ca(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9bd94e2deaad3b3048dfcaa0a20680410d6bf522bf16684431ff9b2e0da43c3c(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1fed939e159fdddb4c5651e6692d442a518c7e64d8ba4d2f306e69c29c5319d2(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f26701aa4f163f3dcd0c7d84e0a88d884141c3c982f98c66faa2bfdc228afdc9(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1fadedfe02ef922c2f635c19aba7916f143a654d4f662a0ec2d8b7900ce236d8(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[CohortV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f5945cfd0055fa3bef0a1ce4a2b6e48cc76040f664d6343180d6a3d946fff7b6(
    *,
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    spec: typing.Optional[typing.Union[CohortV1Beta2Spec, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__4d84e59fc81b499e72c234cb10574bcd10944b2c4a57e292bd44700e5fbc4580(
    *,
    fair_sharing: typing.Optional[typing.Union[CohortV1Beta2SpecFairSharing, typing.Dict[builtins.str, typing.Any]]] = None,
    parent_name: typing.Optional[builtins.str] = None,
    resource_groups: typing.Optional[typing.Sequence[typing.Union[CohortV1Beta2SpecResourceGroups, typing.Dict[builtins.str, typing.Any]]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__cf0887a6df84cdf760482df742bb48a31755007d85f59aabf6419578c75f3b58(
    *,
    weight: typing.Optional[CohortV1Beta2SpecFairSharingWeight] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9d6e3b19a355281d35f951f5b34dbbf8fcb323a10caf4daf6783671ceeba600f(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__684751b34853fd6c9e95faca53d3efaafe853fa4431d602e6124a85ad02e30b3(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c371ec50b4e9f774adb0f0a3b097e84fabd4a278ed4408c69482cccb7058cd3b(
    *,
    covered_resources: typing.Sequence[builtins.str],
    flavors: typing.Sequence[typing.Union[CohortV1Beta2SpecResourceGroupsFlavors, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5fc584cf54d2a25ff37a6964d9753dad3dcf5ed51516ef35087e602f0b3086e1(
    *,
    name: builtins.str,
    resources: typing.Sequence[typing.Union[CohortV1Beta2SpecResourceGroupsFlavorsResources, typing.Dict[builtins.str, typing.Any]]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__9904b3efccb84a00840ffe758b2097cc3188ed9b498b4cd87126c38e6d92e68d(
    *,
    name: builtins.str,
    nominal_quota: CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota,
    borrowing_limit: typing.Optional[CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit] = None,
    lending_limit: typing.Optional[CohortV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b24f992eee6cdc8b72a562cd52cf885be1f0fe2c89a1ec23b4cb8d50c682c77a(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f7c339059be6e7a7f648d3bb94894c3d04b4abd0b6635066e343276818737937(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__744916c7532b6808f5f8ac780057e4aa320e0e71c8089e5d4d0153bac7dcaab6(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__337f01651c56a85c32b3895bd793750a473ffb1ccb315102f9860190e79eb442(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1fb0abe59b92f7e8822de35bc135dc98742ac2a4758802828b053fc2f68fa0e5(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2caeee8be06e8279f747a6e0ea62068e7efd68e72599df254421b81b9be5f01d(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass
