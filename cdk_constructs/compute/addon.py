"""The one shape of a Helm-installed cluster add-on (:class:`AddOn`) and the install order the compute stack derives
from what each add-on declares it needs (:func:`install_order`).

An add-on is described once, frozen: its name (what others name in ``needs``), its chart, repository and default
version (from the versions table, config/versions.py), the release and namespace, its chart values as a function of
the cluster context, the names it must come after, the stack step it belongs to (:data:`STAGES`), the installer that
builds it (default: its chart alone, :class:`HelmAddOn`) and the pods it pins to the system nodes. Constructs with
logic of their own (IAM, queues, a chart asset) install their add-ons from these descriptions too
(:meth:`AddOn.helm_chart`), so chart, repository and version are never written twice.

The registry works like the job types' (llmft/job_types/): each add-on module of this package calls :func:`register`
when imported, :func:`registered` imports every module of the package (:func:`discover`) and returns the records, and
the compute stack installs what it returns. Adding an add-on is one module here and its row in config/versions.py
(docs/extending.md "Adding a cluster add-on").
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from aws_cdk import Duration
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3_assets as s3_assets
from constructs import Construct, IDependable

from config import EnvironmentConfig
from k8s_charts.node_shapes import Resources, parse_quantity
from k8s_charts.values import PlatformValues

SYSTEM_NODES = "system-nodes"
"""What every controller needs first: the system node group with its networking (``vpc-cni``) and DNS (``coredns``).
The other names an add-on may need without declaring them are the cluster's EKS add-ons (``eks-pod-identity-agent``,
``aws-fsx-csi-driver``, ...), by their EKS names."""

PLATFORM_CRDS = "platform-crds"
"""Every add-on with ``provides_platform_crds`` (what anything applying the platform's custom resources comes after)."""

Stage = Literal["hyperpod", "controllers", "delivery"]
STAGES: tuple[Stage, ...] = ("hyperpod", "controllers", "delivery")
"""The compute stack's steps that install add-ons, in construct order: ``hyperpod`` before the HyperPod cluster (which
waits for every release of this step), ``controllers`` before the platform charts (whose custom resources are the
controllers'), ``delivery`` after the platform charts (its installers may read their values,
:attr:`AddOnSite.platform_values`). Within a step the order comes from the declared needs; an add-on never needs
one of a later step."""


@dataclass(frozen=True, kw_only=True)
class AddOnContext:
    """What an add-on's chart values are computed from.

    :param config: the environment.
    :param node_selector: nodeSelector of the system nodes (where controllers run). Default: any node.
    """

    config: EnvironmentConfig
    node_selector: Mapping[str, str] = field(default_factory=dict)


def no_values(_context: AddOnContext) -> dict[str, Any]:
    """The chart's own defaults."""
    return {}


def always(_config: EnvironmentConfig) -> bool:
    """Installed in every environment."""
    return True


@dataclass(frozen=True)
class SystemPod:
    """A pod an add-on runs on the system nodes: its name, its requests and how many replicas (each on its own node
    when there are several: tests/test_node_shapes.py packs them)."""

    name: str
    requests: Resources
    replicas: int = 1


def requests_of(resources: Mapping[str, Any] | None, default: Resources | None = None) -> Resources:
    """The ``requests`` of a chart's ``resources`` value as :class:`~k8s_charts.node_shapes.Resources`; ``default``
    (the chart's own default, cited where it is declared) when the values set none.

    :raises ValueError: no requests and no default.
    """
    requested = (resources or {}).get("requests")
    if not requested:
        if default is None:
            raise ValueError(f"no requests in {resources!r} and no chart default given")
        return default
    return Resources(
        cpu_m=parse_quantity(requested.get("cpu", 0), cpu=True),
        memory_mib=parse_quantity(requested.get("memory", 0), cpu=False),
    )


@dataclass(frozen=True, kw_only=True)
class AddOn:
    """One Helm-installed add-on.

    :param name: the name other add-ons list in ``needs`` (e.g. ``kueue``). Required.
    :param chart: the chart name. Required.
    :param release: the Helm release name. Required.
    :param namespace: the release's namespace (created when missing). Required.
    :param repository: the Helm repository URL, or the full ``oci://`` chart path (aws_eks_v2 pulls an OCI chart by
        its repository alone). Default None: the chart comes as an S3 asset given to :meth:`helm_chart`.
    :param version: the exact chart version, from config/charts.py. Default None (an asset has none).
    :param version_setting: the ``compute.charts`` field that overrides ``version`` per environment. Default None:
        every environment installs ``version``.
    :param values: chart values as a function of the cluster context. Default: the chart's defaults.
    :param needs: names of the add-ons (or :data:`SYSTEM_NODES`, or EKS add-ons) installed before this one.
        Default none.
    :param enabled: whether ``config`` installs it. Default: every environment.
    :param wait: minutes Helm waits for the release to be ready (``--wait --timeout``). Default 10; None: no wait.
    :param skip_crds: install without the chart's crds/ folder. Default False.
    :param provides_platform_crds: the release installs CustomResourceDefinitions whose custom resources the
        platform itself applies or admits (the cdk8s charts of the stack, Argo CD's objects, what llmft renders), so
        it joins :data:`PLATFORM_CRDS`: every chart the stack applies (``ComputeStack.crd_dependencies``) and every
        add-on needing ``platform-crds`` waits for it. It says nothing about whether the chart ships CRDs: a chart
        whose CRDs the platform never uses leaves it False, and nothing waits for it. Default False.
    :param stage: the stack step that installs it (:data:`STAGES`). Default ``controllers``.
    :param installer: builds the add-on and records its releases (:data:`Installer`, e.g. Karpenter's IAM and
        queue, KEDA's Pod Identity role); one installer may install several declarations of its module (it records
        each with ``site.installed.add``). Default None: the chart alone (:func:`install_chart`, a
        :class:`HelmAddOn` named :func:`construct_id`).
    :param system_pods: the pods the release pins to the system nodes, from its chart values as synthesized (what
        tests/test_node_shapes.py packs onto the system node group); a chart default it relies on is cited where it
        is written. Default None: it pins none there (a release whose values name the system nodes without it fails
        that test). Our own chart assets (no ``repository``) are rendered by helm there instead.
    """

    name: str
    chart: str
    release: str
    namespace: str
    repository: str | None = None
    version: str | None = None
    version_setting: str | None = None
    values: Callable[[AddOnContext], Mapping[str, Any]] = no_values
    needs: tuple[str, ...] = ()
    enabled: Callable[[EnvironmentConfig], bool] = always
    wait: int | None = 10
    skip_crds: bool = False
    provides_platform_crds: bool = False
    stage: Stage = "controllers"
    installer: Installer | None = None
    system_pods: Callable[[Mapping[str, Any]], list[SystemPod]] | None = None

    def version_in(self, config: EnvironmentConfig) -> str | None:
        """The chart version ``config`` installs: its ``compute.charts.<version_setting>``, else :attr:`version`."""
        if self.version_setting is None:
            return self.version
        return getattr(config.compute.charts, self.version_setting)

    def helm_chart(
        self,
        scope: Construct,
        construct_id: str,
        *,
        cluster: eks.ICluster,
        context: AddOnContext | None = None,
        version: str | None = None,
        values: Mapping[str, Any] | None = None,
        chart_asset: s3_assets.Asset | None = None,
        after: Sequence[IDependable] = (),
    ) -> eks.HelmChart:
        """The release, as ``scope``/``construct_id``, after ``after``.

        :param context: computes the values (and the version, through ``context.config``). Default None: ``values``
            or the chart's defaults, and ``version`` or :attr:`version`.
        :param version: overrides the version. Default: from the context, else :attr:`version`.
        :param values: overrides :attr:`values` (for constructs whose values name their own resources). Default None.
        :param chart_asset: the chart as an S3 asset (for an add-on without ``repository``). Default None.
        :param after: what the release is installed after. Default nothing.
        """
        if version is None:
            version = self.version_in(context.config) if context is not None else self.version
        if values is None:
            values = self.values(context) if context is not None else {}
        release = eks.HelmChart(
            scope,
            construct_id,
            cluster=cluster,
            chart_asset=chart_asset,
            repository=self.repository,
            chart=None if chart_asset is not None else self.chart,
            version=version,
            release=self.release,
            namespace=self.namespace,
            skip_crds=self.skip_crds or None,
            wait=self.wait is not None or None,
            timeout=Duration.minutes(self.wait) if self.wait is not None else None,
            values=dict(values) or None,
        )
        if after:
            release.node.add_dependency(*after)
        return release


class AddOnOrderError(ValueError):
    """The declared needs name an unknown add-on or form a cycle."""


def install_order(addons: Sequence[AddOn], *, provided: Iterable[str] = ()) -> list[AddOn]:
    """``addons`` so that each comes after every add-on it needs (topological order; ties keep the given order, which
    for the stack is :func:`registered`'s, by name: construct order only, logical IDs do not depend on it).

    :param provided: names that exist before any add-on (:data:`SYSTEM_NODES`, EKS add-ons, HyperPod's prerequisites).
    :raises AddOnOrderError: an add-on needs a name that is neither provided nor declared (naming both) or one of a
        later stage (:data:`STAGES`), two add-ons share a name, or the needs form a cycle (naming the add-ons on it).
    """
    provided = set(provided)
    by_name: dict[str, AddOn] = {}
    for addon in addons:
        if addon.name in by_name or addon.name in provided or addon.name == PLATFORM_CRDS:
            raise AddOnOrderError(f"add-on {addon.name!r} is declared twice (or is also provided by the cluster)")
        by_name[addon.name] = addon
    needs = {a.name: _needs(a, addons) for a in addons}
    problems = [p for a in addons for n in needs[a.name] if (p := _need_problem(a, n, by_name, provided))]
    if problems:
        raise AddOnOrderError("; ".join(problems))
    ordered: list[AddOn] = []
    placed: set[str] = set()
    pending = list(addons)
    while pending:
        ready = next((a for a in pending if all(n in placed or n in provided for n in needs[a.name])), None)
        if ready is None:
            raise AddOnOrderError(f"add-ons need each other in a cycle: {_cycle(pending, needs)}")
        ordered.append(ready)
        placed.add(ready.name)
        pending.remove(ready)
    return ordered


def _need_problem(addon: AddOn, need: str, by_name: Mapping[str, AddOn], provided: set[str]) -> str | None:
    """What is wrong with ``addon`` needing ``need`` (naming both and the fix), or None."""
    if need not in by_name and need not in provided:
        return (
            f"add-on {addon.name!r} needs {need!r}, which is neither an add-on ({', '.join(by_name)}) nor provided "
            f"by the cluster ({', '.join(sorted(provided))})"
        )
    if need in by_name and STAGES.index(by_name[need].stage) > STAGES.index(addon.stage):
        later = by_name[need].stage
        return (
            f"add-on {addon.name!r} (stage {addon.stage!r}) needs {need!r}, installed later (stage {later!r}); "
            f"move {addon.name!r} to stage {later!r} or drop the need"
        )
    return None


def _needs(addon: AddOn, addons: Sequence[AddOn]) -> list[str]:
    """``addon.needs`` with :data:`PLATFORM_CRDS` replaced by the other add-ons that provide CRDs."""
    out = [n for n in addon.needs if n != PLATFORM_CRDS]
    if PLATFORM_CRDS in addon.needs:
        out += [a.name for a in addons if a.provides_platform_crds and a.name != addon.name and a.name not in out]
    return out


def _cycle(pending: Sequence[AddOn], needs: Mapping[str, Sequence[str]]) -> str:
    """One cycle among ``pending`` (each of which needs another of them), as ``a -> b -> a``."""
    names = {a.name for a in pending}
    path = [pending[0].name]
    while True:
        step = next(n for n in needs[path[-1]] if n in names)
        if step in path:
            return " -> ".join([*path[path.index(step) :], step])
        path.append(step)


class InstalledAddOns:
    """What is installed so far, by name: the cluster's provided names and every installed add-on's releases.

    :param provided: name -> the constructs that stand for it (e.g. :data:`SYSTEM_NODES` -> node group, CNI, DNS).
    """

    def __init__(self, provided: Mapping[str, Sequence[IDependable]]) -> None:
        self._installed: dict[str, list[IDependable]] = {n: list(d) for n, d in provided.items()}
        self._crds: list[IDependable] = []

    def names(self) -> list[str]:
        return list(self._installed)

    def add(self, addon: AddOn, releases: Sequence[IDependable]) -> None:
        """Record ``addon`` as installed by ``releases``."""
        self._installed[addon.name] = list(releases)
        if addon.provides_platform_crds:
            self._crds.extend(releases)

    def after(self, addon: AddOn) -> list[IDependable]:
        """What ``addon`` is installed after: the constructs of every name it needs, in its order."""
        missing = [n for n in addon.needs if n not in self._installed and n != PLATFORM_CRDS]
        if missing:
            raise AddOnOrderError(f"add-on {addon.name!r} needs {', '.join(missing)}, not installed before it")
        return [d for n in addon.needs for d in (self._crds if n == PLATFORM_CRDS else self._installed[n])]

    def after_all(self, addons: Sequence[AddOn]) -> list[IDependable]:
        """What a construct installing all of ``addons`` comes after: their needs outside ``addons`` (the construct
        orders its own releases), without repeats."""
        own = {a.name for a in addons}
        out: list[IDependable] = []
        for addon in addons:
            outside = replace(addon, needs=tuple(n for n in addon.needs if n not in own))
            out += [d for d in self.after(outside) if not any(d is seen for seen in out)]
        return out

    def __contains__(self, name: object) -> bool:
        return name in self._installed

    def __getitem__(self, name: str) -> list[IDependable]:
        return self._installed[name]

    @property
    def crd_releases(self) -> list[IDependable]:
        """The releases of the add-ons with ``provides_platform_crds``, in install order."""
        return list(self._crds)


class HelmAddOn(Construct):
    """An add-on that is its chart alone: ``<construct_id>/Release`` (attribute ``release``), the chart of
    ``addon`` with its values for ``context``, after ``after``.

    :param addon: the declaration. Required.
    :param cluster: the EKS cluster. Required.
    :param context: the environment and the system nodes. Required.
    :param after: what the release comes after. Default nothing.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        addon: AddOn,
        cluster: eks.ICluster,
        context: AddOnContext,
        after: Sequence[IDependable] = (),
    ) -> None:
        super().__init__(scope, construct_id)
        self.addon = addon
        self.release = addon.helm_chart(self, "Release", cluster=cluster, context=context, after=after)


def construct_id(addon: AddOn) -> str:
    """The construct id of a :class:`HelmAddOn` in the stack: its name in CamelCase (``keda`` -> ``Keda``,
    ``argo-events`` -> ``ArgoEvents``): stable as long as the name is."""
    return "".join(part.capitalize() for part in addon.name.split("-"))


@dataclass(frozen=True, kw_only=True)
class AddOnSite:
    """What the compute stack gives an add-on's installer.

    :param scope: where the add-on's constructs go (the stack: construct ids are logical IDs, keep them). Required.
    :param cluster: the EKS cluster. Required.
    :param context: the environment and the system nodes' nodeSelector. Required.
    :param installed: what is installed so far; an installer reads what it comes after (``installed.after(addon)``,
        ``installed.after_all(addons)``) and records each declaration it installs (``installed.add``). Required.
    :param encryption_key: the compute KMS key (e.g. Karpenter's node volumes). Default None.
    :param platform_values: the platform charts' values (stage ``delivery`` only). Default None.
    """

    scope: Construct
    cluster: eks.Cluster
    context: AddOnContext
    installed: InstalledAddOns
    encryption_key: kms.IKey | None = None
    platform_values: PlatformValues | None = None

    @property
    def config(self) -> EnvironmentConfig:
        return self.context.config

    @property
    def node_selector(self) -> dict[str, str]:
        return dict(self.context.node_selector)


Installer = Callable[[AddOnSite, AddOn], Construct]
"""``(site, addon) -> construct``: builds ``addon`` (and any sibling declaration of its module) in ``site.scope``,
each release after ``site.installed.after(...)``, records every declaration it installs with
``site.installed.add(declaration, releases)`` and returns the construct (``ComputeStack.addon_constructs``)."""


def install_chart(site: AddOnSite, addon: AddOn) -> HelmAddOn:
    """The default installer: ``addon``'s chart alone, as :class:`HelmAddOn` ``construct_id(addon)``."""
    installed = HelmAddOn(
        site.scope,
        construct_id(addon),
        addon=addon,
        cluster=site.cluster,
        context=site.context,
        after=site.installed.after(addon),
    )
    site.installed.add(addon, [installed.release])
    return installed


# --- the registry ---------------------------------------------------------------------------------------------------
_REGISTRY: dict[str, AddOn] = {}
ADDON_PACKAGE = __name__.rpartition(".")[0]
"""The package whose modules declare the add-ons (``cdk_constructs.compute``): :func:`discover` imports each."""


def register(addon: AddOn) -> AddOn:
    """Add ``addon`` to the registry (its module does this when imported); a name registers once."""
    if addon.name in _REGISTRY and _REGISTRY[addon.name] is not addon:
        raise AddOnOrderError(f"add-on {addon.name!r} is registered twice; give one of them another name")
    if addon.stage not in STAGES:
        raise AddOnOrderError(f"add-on {addon.name!r} has stage {addon.stage!r}; use one of {', '.join(STAGES)}")
    _REGISTRY[addon.name] = addon
    return addon


def unregister(name: str) -> None:
    """Remove an add-on (tests that register a toy add-on clean up with this)."""
    _REGISTRY.pop(name, None)


def discover(package: str = ADDON_PACKAGE) -> None:
    """Import every module of ``package`` (sorted by name), so that each registers its add-ons: the folder is the
    list, nobody keeps one by hand."""
    root = importlib.import_module(package)
    for module in sorted(m.name for m in pkgutil.iter_modules(root.__path__)):
        importlib.import_module(f"{package}.{module}")


def registered(config: EnvironmentConfig | None = None) -> list[AddOn]:
    """Every registered add-on (after :func:`discover`), by name (whatever the order modules were imported in: the
    name only breaks ties of :func:`install_order`); with ``config`` only those it enables."""
    discover()
    return [a for _, a in sorted(_REGISTRY.items()) if config is None or a.enabled(config)]
