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


class AppProject(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="appproject_ioargoproj.AppProject",
):
    '''AppProject provides a logical grouping of applications, providing controls for: where the apps may deploy to (cluster whitelist) what may be deployed (repository whitelist, resource whitelist/blacklist) who can access these applications (roles, OIDC group claims bindings) and what they can do (RBAC policies) automation access to these roles (JWT tokens).

    :schema: AppProject
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        metadata: typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]],
        spec: typing.Union["AppProjectSpec", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''Defines a "AppProject" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param metadata: 
        :param spec: AppProjectSpec is the specification of an AppProject.
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__0f4629b876903a138466c03a8f0b0e805b81225f340b1e2a55b6d1cde1407792)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = AppProjectProps(metadata=metadata, spec=spec)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        metadata: typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]],
        spec: typing.Union["AppProjectSpec", typing.Dict[builtins.str, typing.Any]],
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "AppProject".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param metadata: 
        :param spec: AppProjectSpec is the specification of an AppProject.
        '''
        props = AppProjectProps(metadata=metadata, spec=spec)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "AppProject".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectProps",
    jsii_struct_bases=[],
    name_mapping={"metadata": "metadata", "spec": "spec"},
)
class AppProjectProps:
    def __init__(
        self,
        *,
        metadata: typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]],
        spec: typing.Union["AppProjectSpec", typing.Dict[builtins.str, typing.Any]],
    ) -> None:
        '''AppProject provides a logical grouping of applications, providing controls for: * where the apps may deploy to (cluster whitelist) * what may be deployed (repository whitelist, resource whitelist/blacklist) * who can access these applications (roles, OIDC group claims bindings) * and what they can do (RBAC policies) * automation access to these roles (JWT tokens).

        :param metadata: 
        :param spec: AppProjectSpec is the specification of an AppProject.

        :schema: AppProject
        '''
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if isinstance(spec, dict):
            spec = AppProjectSpec(**spec)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__884179e65c50ac882d839288ee9f0d25247adb5773e9e5706575b51f8f1c1ed7)
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "metadata": metadata,
            "spec": spec,
        }

    @builtins.property
    def metadata(self) -> "_cdk8s_d3d9af27.ApiObjectMetadata":
        '''
        :schema: AppProject#metadata
        '''
        result = self._values.get("metadata")
        assert result is not None, "Required property 'metadata' is missing"
        return typing.cast("_cdk8s_d3d9af27.ApiObjectMetadata", result)

    @builtins.property
    def spec(self) -> "AppProjectSpec":
        '''AppProjectSpec is the specification of an AppProject.

        :schema: AppProject#spec
        '''
        result = self._values.get("spec")
        assert result is not None, "Required property 'spec' is missing"
        return typing.cast("AppProjectSpec", result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectSpec",
    jsii_struct_bases=[],
    name_mapping={
        "cluster_resource_blacklist": "clusterResourceBlacklist",
        "cluster_resource_whitelist": "clusterResourceWhitelist",
        "description": "description",
        "destinations": "destinations",
        "destination_service_accounts": "destinationServiceAccounts",
        "namespace_resource_blacklist": "namespaceResourceBlacklist",
        "namespace_resource_whitelist": "namespaceResourceWhitelist",
        "orphaned_resources": "orphanedResources",
        "permit_only_project_scoped_clusters": "permitOnlyProjectScopedClusters",
        "roles": "roles",
        "signature_keys": "signatureKeys",
        "source_namespaces": "sourceNamespaces",
        "source_repos": "sourceRepos",
        "sync_windows": "syncWindows",
    },
)
class AppProjectSpec:
    def __init__(
        self,
        *,
        cluster_resource_blacklist: typing.Optional[typing.Sequence[typing.Union["AppProjectSpecClusterResourceBlacklist", typing.Dict[builtins.str, typing.Any]]]] = None,
        cluster_resource_whitelist: typing.Optional[typing.Sequence[typing.Union["AppProjectSpecClusterResourceWhitelist", typing.Dict[builtins.str, typing.Any]]]] = None,
        description: typing.Optional[builtins.str] = None,
        destinations: typing.Optional[typing.Sequence[typing.Union["AppProjectSpecDestinations", typing.Dict[builtins.str, typing.Any]]]] = None,
        destination_service_accounts: typing.Optional[typing.Sequence[typing.Union["AppProjectSpecDestinationServiceAccounts", typing.Dict[builtins.str, typing.Any]]]] = None,
        namespace_resource_blacklist: typing.Optional[typing.Sequence[typing.Union["AppProjectSpecNamespaceResourceBlacklist", typing.Dict[builtins.str, typing.Any]]]] = None,
        namespace_resource_whitelist: typing.Optional[typing.Sequence[typing.Union["AppProjectSpecNamespaceResourceWhitelist", typing.Dict[builtins.str, typing.Any]]]] = None,
        orphaned_resources: typing.Optional[typing.Union["AppProjectSpecOrphanedResources", typing.Dict[builtins.str, typing.Any]]] = None,
        permit_only_project_scoped_clusters: typing.Optional[builtins.bool] = None,
        roles: typing.Optional[typing.Sequence[typing.Union["AppProjectSpecRoles", typing.Dict[builtins.str, typing.Any]]]] = None,
        signature_keys: typing.Optional[typing.Sequence[typing.Union["AppProjectSpecSignatureKeys", typing.Dict[builtins.str, typing.Any]]]] = None,
        source_namespaces: typing.Optional[typing.Sequence[builtins.str]] = None,
        source_repos: typing.Optional[typing.Sequence[builtins.str]] = None,
        sync_windows: typing.Optional[typing.Sequence[typing.Union["AppProjectSpecSyncWindows", typing.Dict[builtins.str, typing.Any]]]] = None,
    ) -> None:
        '''AppProjectSpec is the specification of an AppProject.

        :param cluster_resource_blacklist: ClusterResourceBlacklist contains list of blacklisted cluster level resources.
        :param cluster_resource_whitelist: ClusterResourceWhitelist contains list of whitelisted cluster level resources.
        :param description: Description contains optional project description.
        :param destinations: Destinations contains list of destinations available for deployment.
        :param destination_service_accounts: DestinationServiceAccounts holds information about the service accounts to be impersonated for the application sync operation for each destination.
        :param namespace_resource_blacklist: NamespaceResourceBlacklist contains list of blacklisted namespace level resources.
        :param namespace_resource_whitelist: NamespaceResourceWhitelist contains list of whitelisted namespace level resources.
        :param orphaned_resources: OrphanedResources specifies if controller should monitor orphaned resources of apps in this project.
        :param permit_only_project_scoped_clusters: PermitOnlyProjectScopedClusters determines whether destinations can only reference clusters which are project-scoped.
        :param roles: Roles are user defined RBAC roles associated with this project.
        :param signature_keys: SignatureKeys contains a list of PGP key IDs that commits in Git must be signed with in order to be allowed for sync.
        :param source_namespaces: SourceNamespaces defines the namespaces application resources are allowed to be created in.
        :param source_repos: SourceRepos contains list of repository URLs which can be used for deployment.
        :param sync_windows: SyncWindows controls when syncs can be run for apps in this project.

        :schema: AppProjectSpec
        '''
        if isinstance(orphaned_resources, dict):
            orphaned_resources = AppProjectSpecOrphanedResources(**orphaned_resources)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f27ffae4f1f81e4bcc1a49f685f78178526a3374d804abbea1e190b5314f1796)
            check_type(argname="argument cluster_resource_blacklist", value=cluster_resource_blacklist, expected_type=type_hints["cluster_resource_blacklist"])
            check_type(argname="argument cluster_resource_whitelist", value=cluster_resource_whitelist, expected_type=type_hints["cluster_resource_whitelist"])
            check_type(argname="argument description", value=description, expected_type=type_hints["description"])
            check_type(argname="argument destinations", value=destinations, expected_type=type_hints["destinations"])
            check_type(argname="argument destination_service_accounts", value=destination_service_accounts, expected_type=type_hints["destination_service_accounts"])
            check_type(argname="argument namespace_resource_blacklist", value=namespace_resource_blacklist, expected_type=type_hints["namespace_resource_blacklist"])
            check_type(argname="argument namespace_resource_whitelist", value=namespace_resource_whitelist, expected_type=type_hints["namespace_resource_whitelist"])
            check_type(argname="argument orphaned_resources", value=orphaned_resources, expected_type=type_hints["orphaned_resources"])
            check_type(argname="argument permit_only_project_scoped_clusters", value=permit_only_project_scoped_clusters, expected_type=type_hints["permit_only_project_scoped_clusters"])
            check_type(argname="argument roles", value=roles, expected_type=type_hints["roles"])
            check_type(argname="argument signature_keys", value=signature_keys, expected_type=type_hints["signature_keys"])
            check_type(argname="argument source_namespaces", value=source_namespaces, expected_type=type_hints["source_namespaces"])
            check_type(argname="argument source_repos", value=source_repos, expected_type=type_hints["source_repos"])
            check_type(argname="argument sync_windows", value=sync_windows, expected_type=type_hints["sync_windows"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if cluster_resource_blacklist is not None:
            self._values["cluster_resource_blacklist"] = cluster_resource_blacklist
        if cluster_resource_whitelist is not None:
            self._values["cluster_resource_whitelist"] = cluster_resource_whitelist
        if description is not None:
            self._values["description"] = description
        if destinations is not None:
            self._values["destinations"] = destinations
        if destination_service_accounts is not None:
            self._values["destination_service_accounts"] = destination_service_accounts
        if namespace_resource_blacklist is not None:
            self._values["namespace_resource_blacklist"] = namespace_resource_blacklist
        if namespace_resource_whitelist is not None:
            self._values["namespace_resource_whitelist"] = namespace_resource_whitelist
        if orphaned_resources is not None:
            self._values["orphaned_resources"] = orphaned_resources
        if permit_only_project_scoped_clusters is not None:
            self._values["permit_only_project_scoped_clusters"] = permit_only_project_scoped_clusters
        if roles is not None:
            self._values["roles"] = roles
        if signature_keys is not None:
            self._values["signature_keys"] = signature_keys
        if source_namespaces is not None:
            self._values["source_namespaces"] = source_namespaces
        if source_repos is not None:
            self._values["source_repos"] = source_repos
        if sync_windows is not None:
            self._values["sync_windows"] = sync_windows

    @builtins.property
    def cluster_resource_blacklist(
        self,
    ) -> typing.Optional[typing.List["AppProjectSpecClusterResourceBlacklist"]]:
        '''ClusterResourceBlacklist contains list of blacklisted cluster level resources.

        :schema: AppProjectSpec#clusterResourceBlacklist
        '''
        result = self._values.get("cluster_resource_blacklist")
        return typing.cast(typing.Optional[typing.List["AppProjectSpecClusterResourceBlacklist"]], result)

    @builtins.property
    def cluster_resource_whitelist(
        self,
    ) -> typing.Optional[typing.List["AppProjectSpecClusterResourceWhitelist"]]:
        '''ClusterResourceWhitelist contains list of whitelisted cluster level resources.

        :schema: AppProjectSpec#clusterResourceWhitelist
        '''
        result = self._values.get("cluster_resource_whitelist")
        return typing.cast(typing.Optional[typing.List["AppProjectSpecClusterResourceWhitelist"]], result)

    @builtins.property
    def description(self) -> typing.Optional[builtins.str]:
        '''Description contains optional project description.

        :schema: AppProjectSpec#description
        '''
        result = self._values.get("description")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def destinations(
        self,
    ) -> typing.Optional[typing.List["AppProjectSpecDestinations"]]:
        '''Destinations contains list of destinations available for deployment.

        :schema: AppProjectSpec#destinations
        '''
        result = self._values.get("destinations")
        return typing.cast(typing.Optional[typing.List["AppProjectSpecDestinations"]], result)

    @builtins.property
    def destination_service_accounts(
        self,
    ) -> typing.Optional[typing.List["AppProjectSpecDestinationServiceAccounts"]]:
        '''DestinationServiceAccounts holds information about the service accounts to be impersonated for the application sync operation for each destination.

        :schema: AppProjectSpec#destinationServiceAccounts
        '''
        result = self._values.get("destination_service_accounts")
        return typing.cast(typing.Optional[typing.List["AppProjectSpecDestinationServiceAccounts"]], result)

    @builtins.property
    def namespace_resource_blacklist(
        self,
    ) -> typing.Optional[typing.List["AppProjectSpecNamespaceResourceBlacklist"]]:
        '''NamespaceResourceBlacklist contains list of blacklisted namespace level resources.

        :schema: AppProjectSpec#namespaceResourceBlacklist
        '''
        result = self._values.get("namespace_resource_blacklist")
        return typing.cast(typing.Optional[typing.List["AppProjectSpecNamespaceResourceBlacklist"]], result)

    @builtins.property
    def namespace_resource_whitelist(
        self,
    ) -> typing.Optional[typing.List["AppProjectSpecNamespaceResourceWhitelist"]]:
        '''NamespaceResourceWhitelist contains list of whitelisted namespace level resources.

        :schema: AppProjectSpec#namespaceResourceWhitelist
        '''
        result = self._values.get("namespace_resource_whitelist")
        return typing.cast(typing.Optional[typing.List["AppProjectSpecNamespaceResourceWhitelist"]], result)

    @builtins.property
    def orphaned_resources(self) -> typing.Optional["AppProjectSpecOrphanedResources"]:
        '''OrphanedResources specifies if controller should monitor orphaned resources of apps in this project.

        :schema: AppProjectSpec#orphanedResources
        '''
        result = self._values.get("orphaned_resources")
        return typing.cast(typing.Optional["AppProjectSpecOrphanedResources"], result)

    @builtins.property
    def permit_only_project_scoped_clusters(self) -> typing.Optional[builtins.bool]:
        '''PermitOnlyProjectScopedClusters determines whether destinations can only reference clusters which are project-scoped.

        :schema: AppProjectSpec#permitOnlyProjectScopedClusters
        '''
        result = self._values.get("permit_only_project_scoped_clusters")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def roles(self) -> typing.Optional[typing.List["AppProjectSpecRoles"]]:
        '''Roles are user defined RBAC roles associated with this project.

        :schema: AppProjectSpec#roles
        '''
        result = self._values.get("roles")
        return typing.cast(typing.Optional[typing.List["AppProjectSpecRoles"]], result)

    @builtins.property
    def signature_keys(
        self,
    ) -> typing.Optional[typing.List["AppProjectSpecSignatureKeys"]]:
        '''SignatureKeys contains a list of PGP key IDs that commits in Git must be signed with in order to be allowed for sync.

        :schema: AppProjectSpec#signatureKeys
        '''
        result = self._values.get("signature_keys")
        return typing.cast(typing.Optional[typing.List["AppProjectSpecSignatureKeys"]], result)

    @builtins.property
    def source_namespaces(self) -> typing.Optional[typing.List[builtins.str]]:
        '''SourceNamespaces defines the namespaces application resources are allowed to be created in.

        :schema: AppProjectSpec#sourceNamespaces
        '''
        result = self._values.get("source_namespaces")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def source_repos(self) -> typing.Optional[typing.List[builtins.str]]:
        '''SourceRepos contains list of repository URLs which can be used for deployment.

        :schema: AppProjectSpec#sourceRepos
        '''
        result = self._values.get("source_repos")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def sync_windows(self) -> typing.Optional[typing.List["AppProjectSpecSyncWindows"]]:
        '''SyncWindows controls when syncs can be run for apps in this project.

        :schema: AppProjectSpec#syncWindows
        '''
        result = self._values.get("sync_windows")
        return typing.cast(typing.Optional[typing.List["AppProjectSpecSyncWindows"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectSpecClusterResourceBlacklist",
    jsii_struct_bases=[],
    name_mapping={"group": "group", "kind": "kind", "name": "name"},
)
class AppProjectSpecClusterResourceBlacklist:
    def __init__(
        self,
        *,
        group: builtins.str,
        kind: builtins.str,
        name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''ClusterResourceRestrictionItem is a cluster resource that is restricted by the project's whitelist or blacklist.

        :param group: 
        :param kind: 
        :param name: Name is the name of the restricted resource. Glob patterns using Go's filepath.Match syntax are supported. Unlike the group and kind fields, if no name is specified, all resources of the specified group/kind are matched.

        :schema: AppProjectSpecClusterResourceBlacklist
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a9416ecb27906bbe6e27df89c5cc6ea16c47fc95e6f53814c335b6b4c475fbe3)
            check_type(argname="argument group", value=group, expected_type=type_hints["group"])
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "group": group,
            "kind": kind,
        }
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def group(self) -> builtins.str:
        '''
        :schema: AppProjectSpecClusterResourceBlacklist#group
        '''
        result = self._values.get("group")
        assert result is not None, "Required property 'group' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def kind(self) -> builtins.str:
        '''
        :schema: AppProjectSpecClusterResourceBlacklist#kind
        '''
        result = self._values.get("kind")
        assert result is not None, "Required property 'kind' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name is the name of the restricted resource.

        Glob patterns using Go's filepath.Match syntax are supported.
        Unlike the group and kind fields, if no name is specified, all resources of the specified group/kind are matched.

        :schema: AppProjectSpecClusterResourceBlacklist#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectSpecClusterResourceBlacklist(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectSpecClusterResourceWhitelist",
    jsii_struct_bases=[],
    name_mapping={"group": "group", "kind": "kind", "name": "name"},
)
class AppProjectSpecClusterResourceWhitelist:
    def __init__(
        self,
        *,
        group: builtins.str,
        kind: builtins.str,
        name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''ClusterResourceRestrictionItem is a cluster resource that is restricted by the project's whitelist or blacklist.

        :param group: 
        :param kind: 
        :param name: Name is the name of the restricted resource. Glob patterns using Go's filepath.Match syntax are supported. Unlike the group and kind fields, if no name is specified, all resources of the specified group/kind are matched.

        :schema: AppProjectSpecClusterResourceWhitelist
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__35260dc642a97d7f406c52eef01d2162d6b59314457b52b482efe943c439ee40)
            check_type(argname="argument group", value=group, expected_type=type_hints["group"])
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "group": group,
            "kind": kind,
        }
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def group(self) -> builtins.str:
        '''
        :schema: AppProjectSpecClusterResourceWhitelist#group
        '''
        result = self._values.get("group")
        assert result is not None, "Required property 'group' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def kind(self) -> builtins.str:
        '''
        :schema: AppProjectSpecClusterResourceWhitelist#kind
        '''
        result = self._values.get("kind")
        assert result is not None, "Required property 'kind' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name is the name of the restricted resource.

        Glob patterns using Go's filepath.Match syntax are supported.
        Unlike the group and kind fields, if no name is specified, all resources of the specified group/kind are matched.

        :schema: AppProjectSpecClusterResourceWhitelist#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectSpecClusterResourceWhitelist(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectSpecDestinationServiceAccounts",
    jsii_struct_bases=[],
    name_mapping={
        "default_service_account": "defaultServiceAccount",
        "server": "server",
        "namespace": "namespace",
    },
)
class AppProjectSpecDestinationServiceAccounts:
    def __init__(
        self,
        *,
        default_service_account: builtins.str,
        server: builtins.str,
        namespace: typing.Optional[builtins.str] = None,
    ) -> None:
        '''ApplicationDestinationServiceAccount holds information about the service account to be impersonated for the application sync operation.

        :param default_service_account: DefaultServiceAccount to be used for impersonation during the sync operation.
        :param server: Server specifies the URL of the target cluster's Kubernetes control plane API.
        :param namespace: Namespace specifies the target namespace for the application's resources.

        :schema: AppProjectSpecDestinationServiceAccounts
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d098b017b6ebc725c3f888ddd9cfc7c2f37610629c52bbd3b265769f3e6a90d6)
            check_type(argname="argument default_service_account", value=default_service_account, expected_type=type_hints["default_service_account"])
            check_type(argname="argument server", value=server, expected_type=type_hints["server"])
            check_type(argname="argument namespace", value=namespace, expected_type=type_hints["namespace"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "default_service_account": default_service_account,
            "server": server,
        }
        if namespace is not None:
            self._values["namespace"] = namespace

    @builtins.property
    def default_service_account(self) -> builtins.str:
        '''DefaultServiceAccount to be used for impersonation during the sync operation.

        :schema: AppProjectSpecDestinationServiceAccounts#defaultServiceAccount
        '''
        result = self._values.get("default_service_account")
        assert result is not None, "Required property 'default_service_account' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def server(self) -> builtins.str:
        '''Server specifies the URL of the target cluster's Kubernetes control plane API.

        :schema: AppProjectSpecDestinationServiceAccounts#server
        '''
        result = self._values.get("server")
        assert result is not None, "Required property 'server' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def namespace(self) -> typing.Optional[builtins.str]:
        '''Namespace specifies the target namespace for the application's resources.

        :schema: AppProjectSpecDestinationServiceAccounts#namespace
        '''
        result = self._values.get("namespace")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectSpecDestinationServiceAccounts(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectSpecDestinations",
    jsii_struct_bases=[],
    name_mapping={"name": "name", "namespace": "namespace", "server": "server"},
)
class AppProjectSpecDestinations:
    def __init__(
        self,
        *,
        name: typing.Optional[builtins.str] = None,
        namespace: typing.Optional[builtins.str] = None,
        server: typing.Optional[builtins.str] = None,
    ) -> None:
        '''ApplicationDestination holds information about the application's destination.

        :param name: Name is an alternate way of specifying the target cluster by its symbolic name. This must be set if Server is not set.
        :param namespace: Namespace specifies the target namespace for the application's resources. The namespace will only be set for namespace-scoped resources that have not set a value for .metadata.namespace
        :param server: Server specifies the URL of the target cluster's Kubernetes control plane API. This must be set if Name is not set.

        :schema: AppProjectSpecDestinations
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a13385f4d97bc260e013e16e2acb82aa199aa1c9792ce19cc4869d0617a2c16c)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument namespace", value=namespace, expected_type=type_hints["namespace"])
            check_type(argname="argument server", value=server, expected_type=type_hints["server"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if name is not None:
            self._values["name"] = name
        if namespace is not None:
            self._values["namespace"] = namespace
        if server is not None:
            self._values["server"] = server

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name is an alternate way of specifying the target cluster by its symbolic name.

        This must be set if Server is not set.

        :schema: AppProjectSpecDestinations#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def namespace(self) -> typing.Optional[builtins.str]:
        '''Namespace specifies the target namespace for the application's resources.

        The namespace will only be set for namespace-scoped resources that have not set a value for .metadata.namespace

        :schema: AppProjectSpecDestinations#namespace
        '''
        result = self._values.get("namespace")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def server(self) -> typing.Optional[builtins.str]:
        '''Server specifies the URL of the target cluster's Kubernetes control plane API.

        This must be set if Name is not set.

        :schema: AppProjectSpecDestinations#server
        '''
        result = self._values.get("server")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectSpecDestinations(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectSpecNamespaceResourceBlacklist",
    jsii_struct_bases=[],
    name_mapping={"group": "group", "kind": "kind"},
)
class AppProjectSpecNamespaceResourceBlacklist:
    def __init__(self, *, group: builtins.str, kind: builtins.str) -> None:
        '''GroupKind specifies a Group and a Kind, but does not force a version.

        This is useful for identifying
        concepts during lookup stages without having partially valid types

        :param group: 
        :param kind: 

        :schema: AppProjectSpecNamespaceResourceBlacklist
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__cdce2bd55a1d0ba6ce5d0b69ac98eaf70eb22cd6b315fb7ba19af20ffe0d5131)
            check_type(argname="argument group", value=group, expected_type=type_hints["group"])
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "group": group,
            "kind": kind,
        }

    @builtins.property
    def group(self) -> builtins.str:
        '''
        :schema: AppProjectSpecNamespaceResourceBlacklist#group
        '''
        result = self._values.get("group")
        assert result is not None, "Required property 'group' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def kind(self) -> builtins.str:
        '''
        :schema: AppProjectSpecNamespaceResourceBlacklist#kind
        '''
        result = self._values.get("kind")
        assert result is not None, "Required property 'kind' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectSpecNamespaceResourceBlacklist(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectSpecNamespaceResourceWhitelist",
    jsii_struct_bases=[],
    name_mapping={"group": "group", "kind": "kind"},
)
class AppProjectSpecNamespaceResourceWhitelist:
    def __init__(self, *, group: builtins.str, kind: builtins.str) -> None:
        '''GroupKind specifies a Group and a Kind, but does not force a version.

        This is useful for identifying
        concepts during lookup stages without having partially valid types

        :param group: 
        :param kind: 

        :schema: AppProjectSpecNamespaceResourceWhitelist
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__1ec5493a1d1294ae176284655f43b21dc018f157bb99b06b06181973ee74e3f2)
            check_type(argname="argument group", value=group, expected_type=type_hints["group"])
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "group": group,
            "kind": kind,
        }

    @builtins.property
    def group(self) -> builtins.str:
        '''
        :schema: AppProjectSpecNamespaceResourceWhitelist#group
        '''
        result = self._values.get("group")
        assert result is not None, "Required property 'group' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def kind(self) -> builtins.str:
        '''
        :schema: AppProjectSpecNamespaceResourceWhitelist#kind
        '''
        result = self._values.get("kind")
        assert result is not None, "Required property 'kind' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectSpecNamespaceResourceWhitelist(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectSpecOrphanedResources",
    jsii_struct_bases=[],
    name_mapping={"ignore": "ignore", "warn": "warn"},
)
class AppProjectSpecOrphanedResources:
    def __init__(
        self,
        *,
        ignore: typing.Optional[typing.Sequence[typing.Union["AppProjectSpecOrphanedResourcesIgnore", typing.Dict[builtins.str, typing.Any]]]] = None,
        warn: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''OrphanedResources specifies if controller should monitor orphaned resources of apps in this project.

        :param ignore: Ignore contains a list of resources that are to be excluded from orphaned resources monitoring.
        :param warn: Warn indicates if warning condition should be created for apps which have orphaned resources.

        :schema: AppProjectSpecOrphanedResources
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5bef5e48bbe45a16edd154ded4128ef47a18c9716f12baca2f66e67c25ef9cc2)
            check_type(argname="argument ignore", value=ignore, expected_type=type_hints["ignore"])
            check_type(argname="argument warn", value=warn, expected_type=type_hints["warn"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if ignore is not None:
            self._values["ignore"] = ignore
        if warn is not None:
            self._values["warn"] = warn

    @builtins.property
    def ignore(
        self,
    ) -> typing.Optional[typing.List["AppProjectSpecOrphanedResourcesIgnore"]]:
        '''Ignore contains a list of resources that are to be excluded from orphaned resources monitoring.

        :schema: AppProjectSpecOrphanedResources#ignore
        '''
        result = self._values.get("ignore")
        return typing.cast(typing.Optional[typing.List["AppProjectSpecOrphanedResourcesIgnore"]], result)

    @builtins.property
    def warn(self) -> typing.Optional[builtins.bool]:
        '''Warn indicates if warning condition should be created for apps which have orphaned resources.

        :schema: AppProjectSpecOrphanedResources#warn
        '''
        result = self._values.get("warn")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectSpecOrphanedResources(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectSpecOrphanedResourcesIgnore",
    jsii_struct_bases=[],
    name_mapping={"group": "group", "kind": "kind", "name": "name"},
)
class AppProjectSpecOrphanedResourcesIgnore:
    def __init__(
        self,
        *,
        group: typing.Optional[builtins.str] = None,
        kind: typing.Optional[builtins.str] = None,
        name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''OrphanedResourceKey is a reference to a resource to be ignored from.

        :param group: 
        :param kind: 
        :param name: 

        :schema: AppProjectSpecOrphanedResourcesIgnore
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__786ed00c7d3ba579611ead8c5daaf68923858f1a8418ef56131d29c83374d62d)
            check_type(argname="argument group", value=group, expected_type=type_hints["group"])
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if group is not None:
            self._values["group"] = group
        if kind is not None:
            self._values["kind"] = kind
        if name is not None:
            self._values["name"] = name

    @builtins.property
    def group(self) -> typing.Optional[builtins.str]:
        '''
        :schema: AppProjectSpecOrphanedResourcesIgnore#group
        '''
        result = self._values.get("group")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def kind(self) -> typing.Optional[builtins.str]:
        '''
        :schema: AppProjectSpecOrphanedResourcesIgnore#kind
        '''
        result = self._values.get("kind")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''
        :schema: AppProjectSpecOrphanedResourcesIgnore#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectSpecOrphanedResourcesIgnore(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectSpecRoles",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "description": "description",
        "groups": "groups",
        "jwt_tokens": "jwtTokens",
        "policies": "policies",
    },
)
class AppProjectSpecRoles:
    def __init__(
        self,
        *,
        name: builtins.str,
        description: typing.Optional[builtins.str] = None,
        groups: typing.Optional[typing.Sequence[builtins.str]] = None,
        jwt_tokens: typing.Optional[typing.Sequence[typing.Union["AppProjectSpecRolesJwtTokens", typing.Dict[builtins.str, typing.Any]]]] = None,
        policies: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''ProjectRole represents a role that has access to a project.

        :param name: Name is a name for this role.
        :param description: Description is a description of the role.
        :param groups: Groups are a list of OIDC group claims bound to this role.
        :param jwt_tokens: JWTTokens are a list of generated JWT tokens bound to this role.
        :param policies: Policies Stores a list of casbin formatted strings that define access policies for the role in the project.

        :schema: AppProjectSpecRoles
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f307f406541db045a09a8010be2832ee627ea69396a61d71f52a3bd7bba749d9)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument description", value=description, expected_type=type_hints["description"])
            check_type(argname="argument groups", value=groups, expected_type=type_hints["groups"])
            check_type(argname="argument jwt_tokens", value=jwt_tokens, expected_type=type_hints["jwt_tokens"])
            check_type(argname="argument policies", value=policies, expected_type=type_hints["policies"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
        }
        if description is not None:
            self._values["description"] = description
        if groups is not None:
            self._values["groups"] = groups
        if jwt_tokens is not None:
            self._values["jwt_tokens"] = jwt_tokens
        if policies is not None:
            self._values["policies"] = policies

    @builtins.property
    def name(self) -> builtins.str:
        '''Name is a name for this role.

        :schema: AppProjectSpecRoles#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def description(self) -> typing.Optional[builtins.str]:
        '''Description is a description of the role.

        :schema: AppProjectSpecRoles#description
        '''
        result = self._values.get("description")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def groups(self) -> typing.Optional[typing.List[builtins.str]]:
        '''Groups are a list of OIDC group claims bound to this role.

        :schema: AppProjectSpecRoles#groups
        '''
        result = self._values.get("groups")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def jwt_tokens(
        self,
    ) -> typing.Optional[typing.List["AppProjectSpecRolesJwtTokens"]]:
        '''JWTTokens are a list of generated JWT tokens bound to this role.

        :schema: AppProjectSpecRoles#jwtTokens
        '''
        result = self._values.get("jwt_tokens")
        return typing.cast(typing.Optional[typing.List["AppProjectSpecRolesJwtTokens"]], result)

    @builtins.property
    def policies(self) -> typing.Optional[typing.List[builtins.str]]:
        '''Policies Stores a list of casbin formatted strings that define access policies for the role in the project.

        :schema: AppProjectSpecRoles#policies
        '''
        result = self._values.get("policies")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectSpecRoles(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectSpecRolesJwtTokens",
    jsii_struct_bases=[],
    name_mapping={"iat": "iat", "exp": "exp", "id": "id"},
)
class AppProjectSpecRolesJwtTokens:
    def __init__(
        self,
        *,
        iat: jsii.Number,
        exp: typing.Optional[jsii.Number] = None,
        id: typing.Optional[builtins.str] = None,
    ) -> None:
        '''JWTToken holds the issuedAt and expiresAt values of a token.

        :param iat: 
        :param exp: 
        :param id: 

        :schema: AppProjectSpecRolesJwtTokens
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__403fb1e7b7abbbd562b7bd5ab1ff2b74363066766eb16fa568ec21858744c6e8)
            check_type(argname="argument iat", value=iat, expected_type=type_hints["iat"])
            check_type(argname="argument exp", value=exp, expected_type=type_hints["exp"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "iat": iat,
        }
        if exp is not None:
            self._values["exp"] = exp
        if id is not None:
            self._values["id"] = id

    @builtins.property
    def iat(self) -> jsii.Number:
        '''
        :schema: AppProjectSpecRolesJwtTokens#iat
        '''
        result = self._values.get("iat")
        assert result is not None, "Required property 'iat' is missing"
        return typing.cast(jsii.Number, result)

    @builtins.property
    def exp(self) -> typing.Optional[jsii.Number]:
        '''
        :schema: AppProjectSpecRolesJwtTokens#exp
        '''
        result = self._values.get("exp")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def id(self) -> typing.Optional[builtins.str]:
        '''
        :schema: AppProjectSpecRolesJwtTokens#id
        '''
        result = self._values.get("id")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectSpecRolesJwtTokens(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectSpecSignatureKeys",
    jsii_struct_bases=[],
    name_mapping={"key_id": "keyId"},
)
class AppProjectSpecSignatureKeys:
    def __init__(self, *, key_id: builtins.str) -> None:
        '''SignatureKey is the specification of a key required to verify commit signatures with.

        :param key_id: The ID of the key in hexadecimal notation.

        :schema: AppProjectSpecSignatureKeys
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c8c45030d778bfebe083728bc563e92c18b0048492ed2022a9b7439114d42282)
            check_type(argname="argument key_id", value=key_id, expected_type=type_hints["key_id"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key_id": key_id,
        }

    @builtins.property
    def key_id(self) -> builtins.str:
        '''The ID of the key in hexadecimal notation.

        :schema: AppProjectSpecSignatureKeys#keyID
        '''
        result = self._values.get("key_id")
        assert result is not None, "Required property 'key_id' is missing"
        return typing.cast(builtins.str, result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectSpecSignatureKeys(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="appproject_ioargoproj.AppProjectSpecSyncWindows",
    jsii_struct_bases=[],
    name_mapping={
        "and_operator": "andOperator",
        "applications": "applications",
        "clusters": "clusters",
        "description": "description",
        "duration": "duration",
        "kind": "kind",
        "manual_sync": "manualSync",
        "namespaces": "namespaces",
        "schedule": "schedule",
        "time_zone": "timeZone",
    },
)
class AppProjectSpecSyncWindows:
    def __init__(
        self,
        *,
        and_operator: typing.Optional[builtins.bool] = None,
        applications: typing.Optional[typing.Sequence[builtins.str]] = None,
        clusters: typing.Optional[typing.Sequence[builtins.str]] = None,
        description: typing.Optional[builtins.str] = None,
        duration: typing.Optional[builtins.str] = None,
        kind: typing.Optional[builtins.str] = None,
        manual_sync: typing.Optional[builtins.bool] = None,
        namespaces: typing.Optional[typing.Sequence[builtins.str]] = None,
        schedule: typing.Optional[builtins.str] = None,
        time_zone: typing.Optional[builtins.str] = None,
    ) -> None:
        '''SyncWindow contains the kind, time, duration and attributes that are used to assign the syncWindows to apps.

        :param and_operator: UseAndOperator use AND operator for matching applications, namespaces and clusters instead of the default OR operator.
        :param applications: Applications contains a list of applications that the window will apply to.
        :param clusters: Clusters contains a list of clusters that the window will apply to.
        :param description: Description of the sync that will be applied to the schedule, can be used to add any information such as a ticket number for example.
        :param duration: Duration is the amount of time the sync window will be open.
        :param kind: Kind defines if the window allows or blocks syncs.
        :param manual_sync: ManualSync enables manual syncs when they would otherwise be blocked.
        :param namespaces: Namespaces contains a list of namespaces that the window will apply to.
        :param schedule: Schedule is the time the window will begin, specified in cron format.
        :param time_zone: TimeZone of the sync that will be applied to the schedule.

        :schema: AppProjectSpecSyncWindows
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b539d14d97f1b5ec1e2df8b5bb603f5e8383e212ff423952df833c495a01a198)
            check_type(argname="argument and_operator", value=and_operator, expected_type=type_hints["and_operator"])
            check_type(argname="argument applications", value=applications, expected_type=type_hints["applications"])
            check_type(argname="argument clusters", value=clusters, expected_type=type_hints["clusters"])
            check_type(argname="argument description", value=description, expected_type=type_hints["description"])
            check_type(argname="argument duration", value=duration, expected_type=type_hints["duration"])
            check_type(argname="argument kind", value=kind, expected_type=type_hints["kind"])
            check_type(argname="argument manual_sync", value=manual_sync, expected_type=type_hints["manual_sync"])
            check_type(argname="argument namespaces", value=namespaces, expected_type=type_hints["namespaces"])
            check_type(argname="argument schedule", value=schedule, expected_type=type_hints["schedule"])
            check_type(argname="argument time_zone", value=time_zone, expected_type=type_hints["time_zone"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if and_operator is not None:
            self._values["and_operator"] = and_operator
        if applications is not None:
            self._values["applications"] = applications
        if clusters is not None:
            self._values["clusters"] = clusters
        if description is not None:
            self._values["description"] = description
        if duration is not None:
            self._values["duration"] = duration
        if kind is not None:
            self._values["kind"] = kind
        if manual_sync is not None:
            self._values["manual_sync"] = manual_sync
        if namespaces is not None:
            self._values["namespaces"] = namespaces
        if schedule is not None:
            self._values["schedule"] = schedule
        if time_zone is not None:
            self._values["time_zone"] = time_zone

    @builtins.property
    def and_operator(self) -> typing.Optional[builtins.bool]:
        '''UseAndOperator use AND operator for matching applications, namespaces and clusters instead of the default OR operator.

        :schema: AppProjectSpecSyncWindows#andOperator
        '''
        result = self._values.get("and_operator")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def applications(self) -> typing.Optional[typing.List[builtins.str]]:
        '''Applications contains a list of applications that the window will apply to.

        :schema: AppProjectSpecSyncWindows#applications
        '''
        result = self._values.get("applications")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def clusters(self) -> typing.Optional[typing.List[builtins.str]]:
        '''Clusters contains a list of clusters that the window will apply to.

        :schema: AppProjectSpecSyncWindows#clusters
        '''
        result = self._values.get("clusters")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def description(self) -> typing.Optional[builtins.str]:
        '''Description of the sync that will be applied to the schedule, can be used to add any information such as a ticket number for example.

        :schema: AppProjectSpecSyncWindows#description
        '''
        result = self._values.get("description")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def duration(self) -> typing.Optional[builtins.str]:
        '''Duration is the amount of time the sync window will be open.

        :schema: AppProjectSpecSyncWindows#duration
        '''
        result = self._values.get("duration")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def kind(self) -> typing.Optional[builtins.str]:
        '''Kind defines if the window allows or blocks syncs.

        :schema: AppProjectSpecSyncWindows#kind
        '''
        result = self._values.get("kind")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def manual_sync(self) -> typing.Optional[builtins.bool]:
        '''ManualSync enables manual syncs when they would otherwise be blocked.

        :schema: AppProjectSpecSyncWindows#manualSync
        '''
        result = self._values.get("manual_sync")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def namespaces(self) -> typing.Optional[typing.List[builtins.str]]:
        '''Namespaces contains a list of namespaces that the window will apply to.

        :schema: AppProjectSpecSyncWindows#namespaces
        '''
        result = self._values.get("namespaces")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def schedule(self) -> typing.Optional[builtins.str]:
        '''Schedule is the time the window will begin, specified in cron format.

        :schema: AppProjectSpecSyncWindows#schedule
        '''
        result = self._values.get("schedule")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def time_zone(self) -> typing.Optional[builtins.str]:
        '''TimeZone of the sync that will be applied to the schedule.

        :schema: AppProjectSpecSyncWindows#timeZone
        '''
        result = self._values.get("time_zone")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "AppProjectSpecSyncWindows(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


__all__ = [
    "AppProject",
    "AppProjectProps",
    "AppProjectSpec",
    "AppProjectSpecClusterResourceBlacklist",
    "AppProjectSpecClusterResourceWhitelist",
    "AppProjectSpecDestinationServiceAccounts",
    "AppProjectSpecDestinations",
    "AppProjectSpecNamespaceResourceBlacklist",
    "AppProjectSpecNamespaceResourceWhitelist",
    "AppProjectSpecOrphanedResources",
    "AppProjectSpecOrphanedResourcesIgnore",
    "AppProjectSpecRoles",
    "AppProjectSpecRolesJwtTokens",
    "AppProjectSpecSignatureKeys",
    "AppProjectSpecSyncWindows",
]

publication.publish()

def _typecheckingstub__0f4629b876903a138466c03a8f0b0e805b81225f340b1e2a55b6d1cde1407792(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    metadata: typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]],
    spec: typing.Union[AppProjectSpec, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__884179e65c50ac882d839288ee9f0d25247adb5773e9e5706575b51f8f1c1ed7(
    *,
    metadata: typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]],
    spec: typing.Union[AppProjectSpec, typing.Dict[builtins.str, typing.Any]],
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f27ffae4f1f81e4bcc1a49f685f78178526a3374d804abbea1e190b5314f1796(
    *,
    cluster_resource_blacklist: typing.Optional[typing.Sequence[typing.Union[AppProjectSpecClusterResourceBlacklist, typing.Dict[builtins.str, typing.Any]]]] = None,
    cluster_resource_whitelist: typing.Optional[typing.Sequence[typing.Union[AppProjectSpecClusterResourceWhitelist, typing.Dict[builtins.str, typing.Any]]]] = None,
    description: typing.Optional[builtins.str] = None,
    destinations: typing.Optional[typing.Sequence[typing.Union[AppProjectSpecDestinations, typing.Dict[builtins.str, typing.Any]]]] = None,
    destination_service_accounts: typing.Optional[typing.Sequence[typing.Union[AppProjectSpecDestinationServiceAccounts, typing.Dict[builtins.str, typing.Any]]]] = None,
    namespace_resource_blacklist: typing.Optional[typing.Sequence[typing.Union[AppProjectSpecNamespaceResourceBlacklist, typing.Dict[builtins.str, typing.Any]]]] = None,
    namespace_resource_whitelist: typing.Optional[typing.Sequence[typing.Union[AppProjectSpecNamespaceResourceWhitelist, typing.Dict[builtins.str, typing.Any]]]] = None,
    orphaned_resources: typing.Optional[typing.Union[AppProjectSpecOrphanedResources, typing.Dict[builtins.str, typing.Any]]] = None,
    permit_only_project_scoped_clusters: typing.Optional[builtins.bool] = None,
    roles: typing.Optional[typing.Sequence[typing.Union[AppProjectSpecRoles, typing.Dict[builtins.str, typing.Any]]]] = None,
    signature_keys: typing.Optional[typing.Sequence[typing.Union[AppProjectSpecSignatureKeys, typing.Dict[builtins.str, typing.Any]]]] = None,
    source_namespaces: typing.Optional[typing.Sequence[builtins.str]] = None,
    source_repos: typing.Optional[typing.Sequence[builtins.str]] = None,
    sync_windows: typing.Optional[typing.Sequence[typing.Union[AppProjectSpecSyncWindows, typing.Dict[builtins.str, typing.Any]]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a9416ecb27906bbe6e27df89c5cc6ea16c47fc95e6f53814c335b6b4c475fbe3(
    *,
    group: builtins.str,
    kind: builtins.str,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__35260dc642a97d7f406c52eef01d2162d6b59314457b52b482efe943c439ee40(
    *,
    group: builtins.str,
    kind: builtins.str,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d098b017b6ebc725c3f888ddd9cfc7c2f37610629c52bbd3b265769f3e6a90d6(
    *,
    default_service_account: builtins.str,
    server: builtins.str,
    namespace: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a13385f4d97bc260e013e16e2acb82aa199aa1c9792ce19cc4869d0617a2c16c(
    *,
    name: typing.Optional[builtins.str] = None,
    namespace: typing.Optional[builtins.str] = None,
    server: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__cdce2bd55a1d0ba6ce5d0b69ac98eaf70eb22cd6b315fb7ba19af20ffe0d5131(
    *,
    group: builtins.str,
    kind: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__1ec5493a1d1294ae176284655f43b21dc018f157bb99b06b06181973ee74e3f2(
    *,
    group: builtins.str,
    kind: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5bef5e48bbe45a16edd154ded4128ef47a18c9716f12baca2f66e67c25ef9cc2(
    *,
    ignore: typing.Optional[typing.Sequence[typing.Union[AppProjectSpecOrphanedResourcesIgnore, typing.Dict[builtins.str, typing.Any]]]] = None,
    warn: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__786ed00c7d3ba579611ead8c5daaf68923858f1a8418ef56131d29c83374d62d(
    *,
    group: typing.Optional[builtins.str] = None,
    kind: typing.Optional[builtins.str] = None,
    name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f307f406541db045a09a8010be2832ee627ea69396a61d71f52a3bd7bba749d9(
    *,
    name: builtins.str,
    description: typing.Optional[builtins.str] = None,
    groups: typing.Optional[typing.Sequence[builtins.str]] = None,
    jwt_tokens: typing.Optional[typing.Sequence[typing.Union[AppProjectSpecRolesJwtTokens, typing.Dict[builtins.str, typing.Any]]]] = None,
    policies: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__403fb1e7b7abbbd562b7bd5ab1ff2b74363066766eb16fa568ec21858744c6e8(
    *,
    iat: jsii.Number,
    exp: typing.Optional[jsii.Number] = None,
    id: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c8c45030d778bfebe083728bc563e92c18b0048492ed2022a9b7439114d42282(
    *,
    key_id: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b539d14d97f1b5ec1e2df8b5bb603f5e8383e212ff423952df833c495a01a198(
    *,
    and_operator: typing.Optional[builtins.bool] = None,
    applications: typing.Optional[typing.Sequence[builtins.str]] = None,
    clusters: typing.Optional[typing.Sequence[builtins.str]] = None,
    description: typing.Optional[builtins.str] = None,
    duration: typing.Optional[builtins.str] = None,
    kind: typing.Optional[builtins.str] = None,
    manual_sync: typing.Optional[builtins.bool] = None,
    namespaces: typing.Optional[typing.Sequence[builtins.str]] = None,
    schedule: typing.Optional[builtins.str] = None,
    time_zone: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass
