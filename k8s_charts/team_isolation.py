"""What keeps one team's namespace apart from the others': who its pods may run as, and who may talk to them.

- ValidatingAdmissionPolicy + binding ``llmft-team-identity-<team>`` (admissionregistration.k8s.io/v1, GA since
  Kubernetes 1.30): every pod of the namespace runs as the team's uid/gid (``kubernetes.teams[].posix_uid`` /
  ``posix_gid``), pod- and container-level, no other fsGroup or supplemental group, and no inline FSx CSI volume
  (the only FSx access is the team's PVC, which mounts only ``/teams/<team>``). Pod Security `restricted` (the
  namespace label) keeps pods non-root, unprivileged and off hostPath; this policy pins the identity.
- NetworkPolicies (enforced by the VPC CNI's network policy agent, turned on in cdk_constructs/compute/eks_cluster.py):
  default deny in both directions, then allow: within the namespace (NCCL, torchrun rendezvous, Ray GCS/workers),
  the KubeRay operator to Ray head pods on the dashboard port (RayJob submission and status), DNS to CoreDNS, the EKS
  Pod Identity agent (169.254.170.23:80), and HTTPS anywhere (AWS endpoints, S3 through the gateway endpoint, the MLflow
  load balancer, Hugging Face). FSx for Lustre traffic is the node's kernel client, not pod traffic. The training
  operator and Kueue only talk to the API server.

- ValidatingAdmissionPolicy + binding ``llmft-team-supplemental-groups`` (one for all team namespaces): pods set
  ``securityContext.supplementalGroupsPolicy: Strict``, so a process gets only the groups of the pod spec, not the
  ones the image's /etc/group gives its uid (``Merge``, the default; kubernetes/kubernetes#112879, KEP-3619). The
  binding's actions are :data:`STRICT_GROUPS_ACTIONS`: ``Warn`` + ``Audit`` while it is unproven that every node's
  runtime supports the field (the kubelet rejects a ``Strict`` pod on a node whose
  ``status.features.supplementalGroupsPolicy`` is not true, since Kubernetes v1.33: kubernetes.io "Configure a
  Security Context", containerd >= 2.0 or CRI-O >= 1.31). ``tools/probe_isolation.sh`` reports every node's support;
  switch to ``Deny`` once it is true everywhere (HyperPod AMIs included). The file system a team pod can reach is its
  own tree only (PV subdirectory mount), so the groups an image adds cannot reach another team's files meanwhile.

There is no typed binding for admissionregistration.k8s.io/v1 in cdk8s-plus-28 (it has v1alpha1/v1beta1 only), so
the policy objects are plain ``ApiObject``s; tests validate them with kubernetes-validate for the cluster's version.
"""

from __future__ import annotations

import cdk8s
from cdk8s_plus_28 import k8s
from constructs import Construct

from config.kubernetes import TeamConfig
from k8s_charts import serving

FSX_CSI_DRIVER = "fsx.csi.aws.com"
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"  # set by the API server on every namespace (immutable)

# Who may reach pods of a team from outside its namespace, and on which ports.
KUBERAY_NAMESPACE = "kuberay"  # cdk_constructs/compute/kuberay_operator.py
KUBERAY_OPERATOR_LABELS = {"app.kubernetes.io/name": "kuberay-operator"}  # kuberay-operator chart _helpers.tpl
RAY_HEAD_LABELS = {"ray.io/node-type": "head"}  # KubeRay labels the head pod
RAY_DASHBOARD_PORT = 8265
RAY_GCS_PORT = 6379
RAY_CLIENT_PORT = 10001
# The only team pods scraped are served models: ``allow-serving-metrics`` admits the Prometheus scraper's namespace
# (k8s_charts/serving.py METRICS_AGENT_NAMESPACE) to pods labelled ``llmft.io/component: serve`` on the engine port
# (``http``) only. NetworkPolicies are the platform's alone (the team Role has no verb on them), so serve jobs render
# none. That scraper runs pod-networked for it (cdk_constructs/observability/container_insights.py
# PROMETHEUS_AGENT_HOST_NETWORK); the node agent keeps host networking (its traffic comes from node IPs, which a
# namespaceSelector never matches) and scrapes no team pod.
SERVING_METRICS_POLICY = "allow-serving-metrics"
DNS_NAMESPACE, DNS_LABELS = "kube-system", {"k8s-app": "kube-dns"}
POD_IDENTITY_AGENT = "169.254.170.23/32"  # EKS Pod Identity agent (IPv4), port 80
HTTPS_PORT = 443
STRICT_GROUPS_POLICY = "llmft-team-supplemental-groups"
STRICT_GROUPS_ACTIONS = ("Warn", "Audit")
"""validationActions of the supplementalGroupsPolicy binding (see the module docstring: ``Deny`` needs every node's
runtime to support Strict)."""


def identity_policy_name(team: TeamConfig) -> str:
    return f"llmft-team-identity-{team.name}"


def identity_rules(team: TeamConfig) -> list[dict[str, str]]:
    """The CEL validations of the team's identity policy (each a ``{expression, message}``)."""
    uid, gid, ns = team.posix_uid, team.posix_gid, team.namespace
    spec = "object.spec"

    def each_container(field: str, check: str) -> str:
        return f"!has({spec}.{field}) || {spec}.{field}.all(c, {check})"

    def unset_or(attr: str, value: int) -> str:
        return f"!has(c.securityContext) || !has(c.securityContext.{attr}) || c.securityContext.{attr} == {value}"

    rules = [
        (
            f"has({spec}.securityContext) && has({spec}.securityContext.runAsUser) && "
            f"{spec}.securityContext.runAsUser == {uid}",
            f"pods in namespace {ns} must set spec.securityContext.runAsUser: {uid} (the team's uid)",
        ),
        (
            f"has({spec}.securityContext) && has({spec}.securityContext.runAsGroup) && "
            f"{spec}.securityContext.runAsGroup == {gid}",
            f"pods in namespace {ns} must set spec.securityContext.runAsGroup: {gid} (the team's gid)",
        ),
        (
            f"!has({spec}.securityContext) || !has({spec}.securityContext.fsGroup) || "
            f"{spec}.securityContext.fsGroup == {gid}",
            f"pods in namespace {ns} may only use fsGroup {gid}",
        ),
        (
            f"!has({spec}.securityContext) || !has({spec}.securityContext.supplementalGroups) || "
            f"{spec}.securityContext.supplementalGroups.all(g, g == {gid})",
            f"pods in namespace {ns} may only add supplemental group {gid}",
        ),
    ]
    for field in ("containers", "initContainers", "ephemeralContainers"):
        rules.append(
            (
                each_container(field, unset_or("runAsUser", uid)),
                f"{field} in namespace {ns} may not run as a uid other than {uid}",
            )
        )
        rules.append(
            (
                each_container(field, unset_or("runAsGroup", gid)),
                f"{field} in namespace {ns} may not run with a gid other than {gid}",
            )
        )
    rules.append(
        (
            f"!has({spec}.volumes) || {spec}.volumes.all(v, !has(v.csi) || v.csi.driver != '{FSX_CSI_DRIVER}')",
            f"pods in namespace {ns} reach FSx only through the PVC fsx-claim (the team's own tree)",
        )
    )
    return [{"expression": e, "message": m} for e, m in rules]


class TeamIdentityPolicy(Construct):
    """ValidatingAdmissionPolicy + binding (action Deny) that pins the pods of ``team``'s namespace to its uid/gid.

    The binding selects the namespace by ``kubernetes.io/metadata.name``, which the API server sets and nobody can
    change, and both objects are cluster-scoped, out of reach of a team's namespace-scoped permissions.
    Attributes: ``policy``, ``binding`` (``cdk8s.ApiObject``)."""

    def __init__(self, scope: Construct, construct_id: str, *, team: TeamConfig, labels: dict[str, str]) -> None:
        super().__init__(scope, construct_id)
        name = identity_policy_name(team)
        self.policy = cdk8s.ApiObject(
            self,
            "Policy",
            api_version="admissionregistration.k8s.io/v1",
            kind="ValidatingAdmissionPolicy",
            metadata=cdk8s.ApiObjectMetadata(name=name, labels=labels),
        )
        self.policy.add_json_patch(
            cdk8s.JsonPatch.add(
                "/spec",
                {
                    "failurePolicy": "Fail",
                    "matchConstraints": {
                        "resourceRules": [
                            {
                                "apiGroups": [""],
                                "apiVersions": ["v1"],
                                "operations": ["CREATE", "UPDATE"],
                                "resources": ["pods", "pods/ephemeralcontainers"],
                            }
                        ]
                    },
                    "validations": identity_rules(team),
                },
            )
        )
        self.binding = cdk8s.ApiObject(
            self,
            "Binding",
            api_version="admissionregistration.k8s.io/v1",
            kind="ValidatingAdmissionPolicyBinding",
            metadata=cdk8s.ApiObjectMetadata(name=name, labels=labels),
        )
        self.binding.add_json_patch(
            cdk8s.JsonPatch.add(
                "/spec",
                {
                    "policyName": name,
                    "validationActions": ["Deny"],
                    "matchResources": {"namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: team.namespace}}},
                },
            )
        )
        self.binding.add_dependency(self.policy)


def strict_groups_rules() -> list[dict[str, str]]:
    return [
        {
            "expression": "has(object.spec.securityContext) && "
            "has(object.spec.securityContext.supplementalGroupsPolicy) && "
            "object.spec.securityContext.supplementalGroupsPolicy == 'Strict'",
            "message": "pods in team namespaces must set spec.securityContext.supplementalGroupsPolicy: Strict (the "
            "image's /etc/group may not add groups)",
        }
    ]


class StrictSupplementalGroups(Construct):
    """ValidatingAdmissionPolicy + binding :data:`STRICT_GROUPS_POLICY` over the namespaces labelled
    ``selector`` (actions :data:`STRICT_GROUPS_ACTIONS`). Attributes: ``policy``, ``binding``."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        selector: dict[str, str],
        labels: dict[str, str],
        actions: tuple[str, ...] = STRICT_GROUPS_ACTIONS,
    ) -> None:
        super().__init__(scope, construct_id)
        self.policy = cdk8s.ApiObject(
            self,
            "Policy",
            api_version="admissionregistration.k8s.io/v1",
            kind="ValidatingAdmissionPolicy",
            metadata=cdk8s.ApiObjectMetadata(name=STRICT_GROUPS_POLICY, labels=labels),
        )
        self.policy.add_json_patch(
            cdk8s.JsonPatch.add(
                "/spec",
                {
                    "failurePolicy": "Fail",
                    "matchConstraints": {
                        "resourceRules": [
                            {
                                "apiGroups": [""],
                                "apiVersions": ["v1"],
                                "operations": ["CREATE", "UPDATE"],
                                "resources": ["pods"],
                            }
                        ]
                    },
                    "validations": strict_groups_rules(),
                },
            )
        )
        self.binding = cdk8s.ApiObject(
            self,
            "Binding",
            api_version="admissionregistration.k8s.io/v1",
            kind="ValidatingAdmissionPolicyBinding",
            metadata=cdk8s.ApiObjectMetadata(name=STRICT_GROUPS_POLICY, labels=labels),
        )
        self.binding.add_json_patch(
            cdk8s.JsonPatch.add(
                "/spec",
                {
                    "policyName": STRICT_GROUPS_POLICY,
                    "validationActions": list(actions),
                    "matchResources": {"namespaceSelector": {"matchLabels": dict(selector)}},
                },
            )
        )
        self.binding.add_dependency(self.policy)


def _ns(name: str) -> k8s.LabelSelector:
    return k8s.LabelSelector(match_labels={NAMESPACE_NAME_LABEL: name})


def _ports(*ports: int, protocol: str = "TCP") -> list[k8s.NetworkPolicyPort]:
    return [k8s.NetworkPolicyPort(port=k8s.IntOrString.from_number(p), protocol=protocol) for p in ports]


class TeamNetworkPolicies(Construct):
    """The NetworkPolicies of ``team``'s namespace (see the module docstring). Attribute ``policies``: name ->
    ``k8s.KubeNetworkPolicy``."""

    def __init__(self, scope: Construct, construct_id: str, *, team: TeamConfig, labels: dict[str, str]) -> None:
        super().__init__(scope, construct_id)
        ns = team.namespace
        every_pod = k8s.LabelSelector()
        self.policies: dict[str, k8s.KubeNetworkPolicy] = {}

        def policy(name: str, spec: k8s.NetworkPolicySpec) -> None:
            self.policies[name] = k8s.KubeNetworkPolicy(
                self, name, metadata=k8s.ObjectMeta(name=name, namespace=ns, labels=labels), spec=spec
            )

        policy("default-deny", k8s.NetworkPolicySpec(pod_selector=every_pod, policy_types=["Ingress", "Egress"]))
        policy(
            "allow-same-namespace",
            k8s.NetworkPolicySpec(
                pod_selector=every_pod,
                policy_types=["Ingress", "Egress"],
                ingress=[k8s.NetworkPolicyIngressRule(from_=[k8s.NetworkPolicyPeer(pod_selector=every_pod)])],
                egress=[k8s.NetworkPolicyEgressRule(to=[k8s.NetworkPolicyPeer(pod_selector=every_pod)])],
            ),
        )
        policy(
            "allow-kuberay-operator",
            k8s.NetworkPolicySpec(
                pod_selector=k8s.LabelSelector(match_labels=RAY_HEAD_LABELS),
                policy_types=["Ingress"],
                ingress=[
                    k8s.NetworkPolicyIngressRule(
                        from_=[
                            k8s.NetworkPolicyPeer(
                                namespace_selector=_ns(KUBERAY_NAMESPACE),
                                pod_selector=k8s.LabelSelector(match_labels=KUBERAY_OPERATOR_LABELS),
                            )
                        ],
                        ports=_ports(RAY_DASHBOARD_PORT),
                    )
                ],
            ),
        )
        policy(
            SERVING_METRICS_POLICY,
            k8s.NetworkPolicySpec(
                pod_selector=k8s.LabelSelector(match_labels={serving.COMPONENT_LABEL: serving.SERVE_COMPONENT}),
                policy_types=["Ingress"],
                ingress=[
                    k8s.NetworkPolicyIngressRule(
                        from_=[k8s.NetworkPolicyPeer(namespace_selector=_ns(serving.METRICS_AGENT_NAMESPACE))],
                        ports=[
                            k8s.NetworkPolicyPort(
                                port=k8s.IntOrString.from_string(serving.ENGINE_PORT_NAME), protocol="TCP"
                            )
                        ],
                    )
                ],
            ),
        )
        policy(
            "allow-egress-platform",
            k8s.NetworkPolicySpec(
                pod_selector=every_pod,
                policy_types=["Egress"],
                egress=[
                    k8s.NetworkPolicyEgressRule(
                        to=[
                            k8s.NetworkPolicyPeer(
                                namespace_selector=_ns(DNS_NAMESPACE),
                                pod_selector=k8s.LabelSelector(match_labels=DNS_LABELS),
                            )
                        ],
                        ports=_ports(53, protocol="UDP") + _ports(53),
                    ),
                    k8s.NetworkPolicyEgressRule(
                        to=[k8s.NetworkPolicyPeer(ip_block=k8s.IpBlock(cidr=POD_IDENTITY_AGENT))], ports=_ports(80)
                    ),
                    k8s.NetworkPolicyEgressRule(
                        to=[k8s.NetworkPolicyPeer(ip_block=k8s.IpBlock(cidr="0.0.0.0/0"))], ports=_ports(HTTPS_PORT)
                    ),
                ],
            ),
        )
