"""Kueue objects: ResourceFlavors, Cohorts, ClusterQueues and LocalQueues, plus the admission policy that refuses
jobs without a queue in team namespaces. Names and structure: k8s_charts/queues.py; semantics: docs/queueing.md.

Written with the typed bindings `cdk8s import` generated from the Kueue v0.19.2 CRDs (kueue.x-k8s.io/v1beta2).
"""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
from constructs import Construct

from config import EnvironmentConfig
from config.kubernetes import TeamConfig
from config.queueing import Capacity, tier_capacities
from k8s_charts.guardrails.common import KUBERAY_OPERATOR, QUEUED_JOB_RULES
from k8s_charts.imports.clusterqueue.io.x_k8s import kueue as cq
from k8s_charts.imports.cohort.io.x_k8s import kueue as co
from k8s_charts.imports.localqueue.io.x_k8s import kueue as lq
from k8s_charts.imports.resourceflavor.io.x_k8s import kueue as rf
from k8s_charts.queues import (
    MANAGED_NAMESPACE_LABEL,
    QUEUE_NAME_LABEL,
    ROOT_COHORT,
    TEAM_CAP_FLAVOR,
    TEAM_GPUS,
    cluster_queue_name,
    cluster_queue_namespaces,
    environment_capacities,
    evaluates_in_platform,
    flavor_node_labels,
    local_queue_name,
    platform_local_queue_name,
    team_cohort_name,
)
from k8s_charts.serving import PROMOTION_NAMESPACE
from k8s_charts.tiers import GPU_RESOURCE, JOB_TIERS

PART_OF = {"app.kubernetes.io/part-of": "llm-platform"}

REQUIRE_QUEUE_POLICY = "require-kueue-queue-name"


def _tolerations(capacity: Capacity) -> list[rf.ResourceFlavorV1Beta2SpecTolerations]:
    """What Kueue adds to admitted pods: the GPU taint of every GPU node, plus HyperPod's dedicated taint."""
    effect = "NoSchedule"
    out = [rf.ResourceFlavorV1Beta2SpecTolerations(key=GPU_RESOURCE, operator="Exists", effect=effect)]
    if capacity.kind == "reserved":
        out.append(
            rf.ResourceFlavorV1Beta2SpecTolerations(key="dedicated", operator="Equal", value="hyperpod", effect=effect)
        )
    return out


class QueueingChart(cdk8s.Chart):
    """Every Kueue object of one environment. Attributes: ``flavors``, ``cohorts``, ``cluster_queues``
    (keyed by (team, tier)), ``local_queues`` (keyed by (team, tier)), ``platform_local_queues`` (keyed by (team,
    tier): the LocalQueues of the platform namespace where the platform evaluates a production team's models,
    k8s_charts/queues.py :func:`~k8s_charts.queues.cluster_queue_namespaces`), ``admission_policy``."""

    def __init__(self, scope: Construct, construct_id: str, *, config: EnvironmentConfig) -> None:
        super().__init__(scope, construct_id, disable_resource_name_hashes=True)
        caps = environment_capacities(config)
        teams = config.kubernetes.teams
        self.flavors: dict[str, cdk8s.ApiObject] = {}
        for cap in caps:
            self.flavors[cap.name] = rf.ResourceFlavorV1Beta2(
                self,
                f"flavor-{cap.name}",
                metadata=cdk8s.ApiObjectMetadata(name=cap.name, labels={**PART_OF, "platform/capacity-kind": cap.kind}),
                spec=rf.ResourceFlavorV1Beta2Spec(node_labels=flavor_node_labels(cap), tolerations=_tolerations(cap)),
            )
        self.flavors[TEAM_CAP_FLAVOR] = rf.ResourceFlavorV1Beta2(
            self, f"flavor-{TEAM_CAP_FLAVOR}", metadata=cdk8s.ApiObjectMetadata(name=TEAM_CAP_FLAVOR, labels=PART_OF)
        )

        self.cohorts: dict[str, cdk8s.ApiObject] = {}
        self.cohorts[ROOT_COHORT] = co.CohortV1Beta2(
            self,
            "cohort-root",
            metadata=cdk8s.ApiObjectMetadata(name=ROOT_COHORT, labels=PART_OF),
            spec=co.CohortV1Beta2Spec(
                resource_groups=[
                    self._gpu_group(caps, lambda c: c.gpus - sum(t.gpu_shares.get(c.name, 0) for t in teams))
                ]
            ),
        )
        self.cluster_queues: dict[tuple[str, str], cdk8s.ApiObject] = {}
        self.local_queues: dict[tuple[str, str], cdk8s.ApiObject] = {}
        self.platform_local_queues: dict[tuple[str, str], cdk8s.ApiObject] = {}
        for team in teams:
            self.cohorts[team.name] = self._team_cohort(team, caps)
            for tier in team.allowed_tiers:
                self.cluster_queues[(team.name, tier)] = self._cluster_queue(team, tier, caps)
                self.local_queues[(team.name, tier)] = lq.LocalQueueV1Beta2(
                    self,
                    f"lq-{team.name}-{tier}",
                    metadata=cdk8s.ApiObjectMetadata(
                        name=local_queue_name(tier),
                        namespace=team.namespace,
                        labels={**PART_OF, "platform/team": team.name, "platform/tier": tier},
                    ),
                    spec=lq.LocalQueueV1Beta2Spec(cluster_queue=cluster_queue_name(team.name, tier)),
                )
                if evaluates_in_platform(team):
                    self.platform_local_queues[(team.name, tier)] = self._platform_local_queue(team, tier)
        self.admission_policy, self.admission_policy_binding = self._require_queue_name()

    def _platform_local_queue(self, team: TeamConfig, tier: str) -> cdk8s.ApiObject:
        """The LocalQueue of ``team``'s ``tier`` in the platform namespace: the platform's gated evaluation of the
        team's model (llmft/promote_evaluate.py) queues there, in the team's ClusterQueue of that tier."""
        return lq.LocalQueueV1Beta2(
            self,
            f"lq-platform-{team.name}-{tier}",
            metadata=cdk8s.ApiObjectMetadata(
                name=platform_local_queue_name(team.name, tier),
                namespace=PROMOTION_NAMESPACE,
                labels={**PART_OF, "platform/team": team.name, "platform/tier": tier},
            ),
            spec=lq.LocalQueueV1Beta2Spec(cluster_queue=cluster_queue_name(team.name, tier)),
        )

    @staticmethod
    def _gpu_group(caps: Sequence[Capacity], nominal, borrowing_limit=None) -> co.CohortV1Beta2SpecResourceGroups:
        res = co.CohortV1Beta2SpecResourceGroupsFlavorsResources
        return co.CohortV1Beta2SpecResourceGroups(
            covered_resources=[GPU_RESOURCE],
            flavors=[
                co.CohortV1Beta2SpecResourceGroupsFlavors(
                    name=c.name,
                    resources=[
                        res(
                            name=GPU_RESOURCE,
                            nominal_quota=co.CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota.from_number(
                                nominal(c)
                            ),
                            borrowing_limit=None
                            if borrowing_limit is None
                            else co.CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit.from_number(
                                borrowing_limit
                            ),
                        )
                    ],
                )
                for c in caps
            ],
        )

    def _team_cohort(self, team: TeamConfig, caps: Sequence[Capacity]) -> cdk8s.ApiObject:
        """The team's shares (nominal quota per flavor; borrowingLimit 0 unless the team may borrow) and its hard
        cap: `gpu_quota` of :data:`TEAM_GPUS`, lent to nobody and borrowed from nobody."""
        reachable = {c.name for tier in team.allowed_tiers for c in tier_capacities(tier, tuple(caps))}
        zero = co.CohortV1Beta2SpecResourceGroupsFlavorsResourcesBorrowingLimit.from_number(0)
        cap_group = co.CohortV1Beta2SpecResourceGroups(
            covered_resources=[TEAM_GPUS],
            flavors=[
                co.CohortV1Beta2SpecResourceGroupsFlavors(
                    name=TEAM_CAP_FLAVOR,
                    resources=[
                        co.CohortV1Beta2SpecResourceGroupsFlavorsResources(
                            name=TEAM_GPUS,
                            nominal_quota=co.CohortV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota.from_number(
                                team.gpu_quota
                            ),
                            borrowing_limit=zero,
                            lending_limit=co.CohortV1Beta2SpecResourceGroupsFlavorsResourcesLendingLimit.from_number(0),
                        )
                    ],
                )
            ],
        )
        return co.CohortV1Beta2(
            self,
            f"cohort-{team.name}",
            metadata=cdk8s.ApiObjectMetadata(
                name=team_cohort_name(team.name), labels={**PART_OF, "platform/team": team.name}
            ),
            spec=co.CohortV1Beta2Spec(
                parent_name=ROOT_COHORT,
                resource_groups=[
                    self._gpu_group(
                        [c for c in caps if c.name in reachable],
                        lambda c: team.gpu_shares.get(c.name, 0),
                        borrowing_limit=None if team.borrowing else 0,
                    ),
                    cap_group,
                ],
            ),
        )

    def _cluster_queue(self, team: TeamConfig, tier: str, caps: Sequence[Capacity]) -> cdk8s.ApiObject:
        zero = cq.ClusterQueueV1Beta2SpecResourceGroupsFlavorsResourcesNominalQuota.from_number(0)

        def flavor(name: str, resource: str) -> cq.ClusterQueueV1Beta2SpecResourceGroupsFlavors:
            return cq.ClusterQueueV1Beta2SpecResourceGroupsFlavors(
                name=name,
                resources=[cq.ClusterQueueV1Beta2SpecResourceGroupsFlavorsResources(name=resource, nominal_quota=zero)],
            )

        policy = cq.ClusterQueueV1Beta2SpecPreemptionWithinClusterQueue.LOWER_PRIORITY
        return cq.ClusterQueueV1Beta2(
            self,
            f"cq-{team.name}-{tier}",
            metadata=cdk8s.ApiObjectMetadata(
                name=cluster_queue_name(team.name, tier),
                labels={**PART_OF, "platform/team": team.name, "platform/tier": tier},
            ),
            spec=cq.ClusterQueueV1Beta2Spec(
                cohort_name=team_cohort_name(team.name),
                # the team's namespace, and the platform namespace where the platform evaluates the team's model
                # (by name: kubernetes.io/metadata.name is set by the API server and cannot be changed)
                namespace_selector=cq.ClusterQueueV1Beta2SpecNamespaceSelector(
                    match_expressions=[
                        cq.ClusterQueueV1Beta2SpecNamespaceSelectorMatchExpressions(
                            key="kubernetes.io/metadata.name",
                            operator="In",
                            values=list(cluster_queue_namespaces(team)),
                        )
                    ]
                ),
                queueing_strategy=cq.ClusterQueueV1Beta2SpecQueueingStrategy.BEST_EFFORT_FIFO,
                resource_groups=[
                    cq.ClusterQueueV1Beta2SpecResourceGroups(
                        covered_resources=[GPU_RESOURCE],
                        flavors=[flavor(c.name, GPU_RESOURCE) for c in tier_capacities(tier, tuple(caps))],
                    ),
                    cq.ClusterQueueV1Beta2SpecResourceGroups(
                        covered_resources=[TEAM_GPUS], flavors=[flavor(TEAM_CAP_FLAVOR, TEAM_GPUS)]
                    ),
                ],
                flavor_fungibility=cq.ClusterQueueV1Beta2SpecFlavorFungibility(
                    when_can_borrow=cq.ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanBorrow.MAY_STOP_SEARCH,
                    when_can_preempt=cq.ClusterQueueV1Beta2SpecFlavorFungibilityWhenCanPreempt.TRY_NEXT_FLAVOR,
                ),
                preemption=cq.ClusterQueueV1Beta2SpecPreemption(
                    within_cluster_queue=policy,
                    reclaim_within_cohort=cq.ClusterQueueV1Beta2SpecPreemptionReclaimWithinCohort.LOWER_PRIORITY,
                    borrow_within_cohort=cq.ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohort(
                        policy=cq.ClusterQueueV1Beta2SpecPreemptionBorrowWithinCohortPolicy.LOWER_PRIORITY
                    ),
                ),
            ),
        )

    def _require_queue_name(self) -> tuple[cdk8s.ApiObject, cdk8s.ApiObject]:
        """ValidatingAdmissionPolicy refusing PyTorchJobs, MPIJobs, RayJobs and RayClusters without a queue name in
        namespaces labelled :data:`MANAGED_NAMESPACE_LABEL` (the pattern of Kueue's "Setup a Job Admission Policy"
        task). A RayCluster the KubeRay operator creates for a RayJob is controlled by it and admitted with it, so it
        is exempt; nothing else is: the exemption asks who makes the request (a team may write ownerReferences
        itself; k8s_charts/team_guardrails.py refuses that too)."""
        policy = cdk8s.ApiObject(
            self,
            "require-queue-name",
            api_version="admissionregistration.k8s.io/v1",
            kind="ValidatingAdmissionPolicy",
            metadata=cdk8s.ApiObjectMetadata(name=REQUIRE_QUEUE_POLICY, labels=PART_OF),
        )
        policy.add_json_patch(cdk8s.JsonPatch.add("/spec", _require_queue_name_spec()))
        binding = self._require_queue_name_binding()
        binding.add_dependency(policy)
        return policy, binding

    def _require_queue_name_binding(self) -> cdk8s.ApiObject:
        """The binding of the queue-name policy to the namespaces labelled :data:`MANAGED_NAMESPACE_LABEL`."""
        binding = cdk8s.ApiObject(
            self,
            "require-queue-name-binding",
            api_version="admissionregistration.k8s.io/v1",
            kind="ValidatingAdmissionPolicyBinding",
            metadata=cdk8s.ApiObjectMetadata(name=REQUIRE_QUEUE_POLICY, labels=PART_OF),
        )
        binding.add_json_patch(
            cdk8s.JsonPatch.add(
                "/spec",
                {
                    "policyName": REQUIRE_QUEUE_POLICY,
                    "validationActions": ["Deny"],
                    "matchResources": {"namespaceSelector": {"matchLabels": {MANAGED_NAMESPACE_LABEL: "true"}}},
                },
            )
        )
        return binding


def _require_queue_name_spec() -> dict:
    """The spec of the policy refusing queued job kinds without a queue name (owned RayClusters exempt)."""
    rules = [dict(rule) for rule in QUEUED_JOB_RULES]
    tiers = ", ".join(local_queue_name(t) for t in JOB_TIERS)
    return {
        "failurePolicy": "Fail",
        "matchConstraints": {"resourceRules": rules},
        "matchConditions": [
            {
                # only a RayCluster its RayJob controls; `controller` is optional in an ownerReference, and
                # reading an absent field is a CEL error, which failurePolicy Fail turns into a refusal
                "name": "exclude-owned-by-a-job",
                "expression": f"!(request.userInfo.username == '{KUBERAY_OPERATOR}' && "
                "has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists("
                "o, o.kind == 'RayJob' && o.apiVersion.startsWith('ray.io/') && has(o.controller) && "
                "o.controller == true))",
            }
        ],
        "validations": [
            {
                "expression": f"has(object.metadata.labels) && '{QUEUE_NAME_LABEL}' in "
                f"object.metadata.labels && object.metadata.labels['{QUEUE_NAME_LABEL}'] != ''",
                "message": f"Jobs in team namespaces are queued by Kueue: set the label {QUEUE_NAME_LABEL} "
                f"to the LocalQueue of the job's tier ({tiers}); the job builders and llmft do this",
            }
        ],
    }
