"""`<Env>-Compute`: fine-grained assertions on the synthesized templates of every shipped environment."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cdk_constructs.compute.addon import registered
from cdk_constructs.compute.hyperpod_cluster import HYPERPOD_LABEL, HYPERPOD_TAINT
from cdk_constructs.compute.karpenter import INTERRUPTION_EVENTS
from config.compute import nvidia_hyperpod_instance_types
from k8s_charts.promotion import team_claim_name, team_volume_name
from k8s_charts.queues import evaluates_in_platform
from k8s_charts.serving import PROMOTION_NAMESPACE

from .conftest import Synth, synthesize

STACK = "compute"
HELM = "Custom::AWSCDK-EKS-HelmChart"
MANIFEST = "Custom::AWSCDK-EKS-KubernetesResource"


def only(synth: Synth, type_: str) -> tuple[str, dict[str, Any]]:
    return synth.one(STACK, type_)


def untoken(value: Any) -> str:
    """A string property, with CloudFormation expressions inside ``Fn::Join`` replaced by ``<token>``."""
    if isinstance(value, str):
        return value
    parts = value["Fn::Join"][1]
    return "".join(p if isinstance(p, str) else "<token>" for p in parts)


def helm_releases(synth: Synth) -> dict[str, dict[str, Any]]:
    """Release name -> properties (``Values`` decoded)."""
    out = {}
    for lid, res in synth.resources(STACK, HELM).items():
        props = dict(res["Properties"])
        props["Values"] = json.loads(untoken(props["Values"])) if "Values" in props else {}
        props["LogicalId"] = lid
        props["DependsOn"] = res.get("DependsOn", [])
        out[props["Release"]] = props
    return out


# ---- EKS -----------------------------------------------------------------------------------------------------


def test_cluster_is_native_with_api_authentication_and_no_creator_admin(env_synth: Synth) -> None:
    _, cluster = only(env_synth, "AWS::EKS::Cluster")
    props = cluster["Properties"]
    assert props["Name"] == env_synth.config.cluster_name
    assert props["AccessConfig"] == {"AuthenticationMode": "API", "BootstrapClusterCreatorAdminPermissions": False}
    assert props["Version"] == env_synth.config.compute.kubernetes_version
    assert not env_synth.resources(STACK, "Custom::AWSCDK-EKS-Cluster"), "must be AWS::EKS::Cluster, not aws_eks"
    assert cluster["DeletionPolicy"] == "RetainExceptOnCreate"


def test_endpoint_is_private_only(env_synth: Synth) -> None:
    _, cluster = only(env_synth, "AWS::EKS::Cluster")
    vpc = cluster["Properties"]["ResourcesVpcConfig"]
    assert vpc["EndpointPrivateAccess"] is True
    assert vpc["EndpointPublicAccess"] is False
    assert "PublicAccessCidrs" not in vpc


def test_all_control_plane_logs_and_secrets_encryption(env_synth: Synth) -> None:
    lid, cluster = only(env_synth, "AWS::EKS::Cluster")
    props = cluster["Properties"]
    types = {t["Type"] for t in props["Logging"]["ClusterLogging"]["EnabledTypes"]}
    assert types == {"api", "audit", "authenticator", "controllerManager", "scheduler"}
    (enc,) = props["EncryptionConfig"]
    assert enc["Resources"] == ["secrets"]
    key_lid = enc["Provider"]["KeyArn"]["Fn::GetAtt"][0]
    key = env_synth.templates[STACK]["Resources"][key_lid]
    assert key["Type"] == "AWS::KMS::Key" and key["Properties"]["EnableKeyRotation"] is True


def test_admins_from_config_get_cluster_admin_access_entries(env_synth: Synth) -> None:
    entries = [r["Properties"] for r in env_synth.resources(STACK, "AWS::EKS::AccessEntry").values()]
    admins = {e["PrincipalArn"] for e in entries if isinstance(e["PrincipalArn"], str)}
    assert admins == set(env_synth.config.compute.admin_role_arns)
    for entry in entries:
        if isinstance(entry["PrincipalArn"], str):
            (policy,) = entry["AccessPolicies"]
            assert policy["AccessScope"] == {"Type": "cluster"}
            assert untoken(policy["PolicyArn"]).endswith("AmazonEKSClusterAdminPolicy")


def test_addons_are_pinned_to_the_configured_versions(env_synth: Synth) -> None:
    addons = {
        r["Properties"]["AddonName"]: r["Properties"] for r in env_synth.resources(STACK, "AWS::EKS::Addon").values()
    }
    pinned = env_synth.config.compute.addons
    assert {name: p["AddonVersion"] for name, p in addons.items()} == {
        "vpc-cni": pinned.vpc_cni,
        "coredns": pinned.coredns,
        "kube-proxy": pinned.kube_proxy,
        "eks-pod-identity-agent": pinned.eks_pod_identity_agent,
        "aws-fsx-csi-driver": pinned.aws_fsx_csi_driver,
    }
    assert json.loads(addons["vpc-cni"]["ConfigurationValues"]) == {"enableNetworkPolicy": "true"}
    _, cluster = only(env_synth, "AWS::EKS::Cluster")
    assert cluster["Properties"]["BootstrapSelfManagedAddons"] is False


def test_system_node_group_private_imdsv2_encrypted(env_synth: Synth) -> None:
    _, group = only(env_synth, "AWS::EKS::Nodegroup")
    props = group["Properties"]
    assert props["Labels"] == {"llmft.io/node-role": "system"}
    sizes = env_synth.config.compute.system_nodes
    assert props["ScalingConfig"] == {
        "MinSize": sizes.min_size,
        "DesiredSize": sizes.desired_size,
        "MaxSize": sizes.max_size,
    }
    private = {o for o in json.dumps(props["Subnets"]).split('"') if "PrivateSubnet" in o}
    assert len(private) == len(env_synth.config.network.availability_zones)
    lt_lid = props["LaunchTemplate"]["Id"]["Ref"]
    data = env_synth.templates[STACK]["Resources"][lt_lid]["Properties"]["LaunchTemplateData"]
    assert data["MetadataOptions"] == {"HttpTokens": "required", "HttpPutResponseHopLimit": 1}
    (device,) = data["BlockDeviceMappings"]
    assert device["Ebs"]["Encrypted"] is True


# ---- HyperPod ---------------------------------------------------------------------------------------------------


def test_hyperpod_cluster_properties(env_synth: Synth) -> None:
    _, res = only(env_synth, "AWS::SageMaker::Cluster")
    props = res["Properties"]
    eks_lid, _ = only(env_synth, "AWS::EKS::Cluster")
    assert props["Orchestrator"] == {"Eks": {"ClusterArn": {"Fn::GetAtt": [eks_lid, "Arn"]}}}
    assert props["NodeRecovery"] == "Automatic"
    assert props["NodeProvisioningMode"] == "Continuous"
    assert "HyperPodSubnet" in json.dumps(props["VpcConfig"]["Subnets"])
    assert "SecurityGroupsEfa" in json.dumps(props["VpcConfig"]["SecurityGroupIds"])
    assert res["DeletionPolicy"] == "RetainExceptOnCreate"


def test_hyperpod_instance_groups_follow_config(env_synth: Synth) -> None:
    _, res = only(env_synth, "AWS::SageMaker::Cluster")
    groups = {g["InstanceGroupName"]: g for g in res["Properties"]["InstanceGroups"]}
    configured = env_synth.config.compute.hyperpod.instance_groups
    assert list(groups) == [g.name for g in configured]
    for want in configured:
        got = groups[want.name]
        assert got["InstanceType"] == want.instance_type
        assert got["InstanceCount"] == want.count
        assert got["ThreadsPerCore"] == want.threads_per_core
        assert got["InstanceStorageConfigs"] == [{"EbsVolumeConfig": {"VolumeSizeInGB": want.ebs_volume_size_gb}}]
        assert got["LifeCycleConfig"]["OnCreate"] == "on_create.sh"
        assert got["LifeCycleConfig"]["SourceS3Uri"].startswith("s3://sagemaker-")
        labels = got["KubernetesConfig"]["Labels"]
        assert labels[HYPERPOD_LABEL[0]] == HYPERPOD_LABEL[1]
        assert labels["gpu-type"] == want.node_gpu_type
        key, value, effect = HYPERPOD_TAINT
        assert got["KubernetesConfig"]["Taints"] == [{"Key": key, "Value": value, "Effect": effect}]
        if want.run_deep_health_checks:
            assert got["OnStartDeepHealthChecks"] == ["InstanceStress", "InstanceConnectivity"]
        else:
            assert "OnStartDeepHealthChecks" not in got


def test_gpu_groups_get_a_gpu_type_label_and_deep_health_checks(prod: Synth) -> None:
    _, res = only(prod, "AWS::SageMaker::Cluster")
    groups = {g["InstanceType"]: g for g in res["Properties"]["InstanceGroups"]}
    assert groups["ml.p5.48xlarge"]["KubernetesConfig"]["Labels"]["gpu-type"] == "h100"
    assert "OnStartDeepHealthChecks" in groups["ml.p5.48xlarge"]
    assert groups["ml.m7i.4xlarge"]["KubernetesConfig"]["Labels"]["gpu-type"] == "none"
    assert "OnStartDeepHealthChecks" not in groups["ml.m7i.4xlarge"]


def test_hyperpod_is_created_after_every_prerequisite(env_synth: Synth) -> None:
    """The CloudFormation dependency, not only construct order: HyperPod checks the cluster on create."""
    _, res = only(env_synth, "AWS::SageMaker::Cluster")
    depends = set(res["DependsOn"])
    releases = helm_releases(env_synth)
    for release in ("hyperpod-prerequisites", "nvidia-device-plugin", "aws-efa-k8s-device-plugin"):
        assert releases[release]["LogicalId"] in depends, f"HyperPod does not wait for {release}"
    addons = {r["Properties"]["AddonName"]: lid for lid, r in env_synth.resources(STACK, "AWS::EKS::Addon").items()}
    assert addons["vpc-cni"] in depends
    deployments = env_synth.resources(STACK, "Custom::CDKBucketDeployment")
    assert set(deployments) <= depends, "the lifecycle scripts must be in S3 before the nodes start"


def test_prerequisites_chart_comes_from_an_s3_asset(env_synth: Synth) -> None:
    chart = helm_releases(env_synth)["hyperpod-prerequisites"]
    assert chart["ChartAssetURL"].startswith("s3://") and "Repository" not in chart
    values = chart["Values"]
    hma = values["healthMonitoringAgent"]
    region = env_synth.config.region
    assert hma["image"].split("/")[0].endswith(f".dkr.ecr.{region}.amazonaws.com")
    assert "ml.p5.48xlarge" in hma["nvidiaInstanceTypes"]
    assert values["trainingOperator"]["nodeSelector"] == {"llmft.io/node-role": "system"}


def test_execution_role_policies(env_synth: Synth) -> None:
    _, res = only(env_synth, "AWS::SageMaker::Cluster")
    role_lid = res["Properties"]["InstanceGroups"][0]["ExecutionRole"]["Fn::GetAtt"][0]
    resources = env_synth.templates[STACK]["Resources"]
    role = resources[role_lid]["Properties"]
    managed = {untoken(a).rsplit("/", 1)[-1] for a in role["ManagedPolicyArns"]}
    assert managed == {
        "AmazonSageMakerClusterInstanceRolePolicy",
        "AmazonEKS_CNI_Policy",
        "AmazonEC2ContainerRegistryPullOnly",
    }
    assert role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": "sagemaker.amazonaws.com"}
    inline = [
        s
        for lid, r in resources.items()
        if r["Type"] == "AWS::IAM::Policy" and {"Ref": role_lid} in r["Properties"]["Roles"]
        for s in r["Properties"]["PolicyDocument"]["Statement"]
    ]
    actions = {a for s in inline for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}
    assert "fsx:DescribeFileSystems" in actions, "without it the Lustre client falls back from EFA to TCP"
    assert {"s3:GetObject", "s3:ListBucket"} <= actions
    assert not any(a.startswith("s3:Put") or a.startswith("s3:Delete") for a in actions)


# AWS's reference HyperPod EKS execution role: aws-samples/awsome-distributed-training @7217859,
# 1.architectures/7.sagemaker-hyperpod-eks/cfn-templates/nested-stacks/sagemaker-iam-role-stack.yaml (inline policy;
# its managed policies are AmazonSageMakerClusterInstanceRolePolicy and AmazonEKS_CNI_Policy).
REFERENCE_EXECUTION_ROLE_ACTIONS = {
    "ec2:AssignPrivateIpAddresses",
    "ec2:CreateNetworkInterface",
    "ec2:CreateNetworkInterfacePermission",
    "ec2:DeleteNetworkInterface",
    "ec2:DeleteNetworkInterfacePermission",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeVpcs",
    "ec2:DescribeDhcpOptions",
    "ec2:DescribeSubnets",
    "ec2:DescribeSecurityGroups",
    "ec2:DetachNetworkInterface",
    "ec2:ModifyNetworkInterfaceAttribute",
    "ec2:UnassignPrivateIpAddresses",
    "ecr:BatchCheckLayerAvailability",
    "ecr:BatchGetImage",
    "ecr:GetAuthorizationToken",
    "ecr:GetDownloadUrlForLayer",
    "eks-auth:AssumeRoleForPodIdentity",
    "cloudwatch:DescribeAlarms",
    "ec2:CreateTags",
    "s3:ListBucket",
    "s3:GetObject",
}
DELIBERATELY_OMITTED = {
    "ecr:BatchCheckLayerAvailability": "used by pushes only; AmazonEC2ContainerRegistryPullOnly leaves it out"
}


def managed_policy_actions(name: str) -> set[str]:
    """Allowed actions of an AWS-managed policy, from the policy documents moto ships (a copy of IAM's)."""
    from moto.iam.aws_managed_policies import aws_managed_policies_data

    doc = json.loads(aws_managed_policies_data)[name]["Document"]
    return {
        a
        for s in doc["Statement"]
        if s["Effect"] == "Allow"
        for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
    }


def test_execution_role_covers_the_reference_role(env_synth: Synth) -> None:
    _, res = only(env_synth, "AWS::SageMaker::Cluster")
    role_lid = res["Properties"]["InstanceGroups"][0]["ExecutionRole"]["Fn::GetAtt"][0]
    resources = env_synth.templates[STACK]["Resources"]
    role = resources[role_lid]["Properties"]
    allowed = set()
    for arn in role["ManagedPolicyArns"]:
        allowed |= managed_policy_actions(untoken(arn).rsplit("/", 1)[-1])
    statements = [
        s
        for r in resources.values()
        if r["Type"] == "AWS::IAM::Policy" and {"Ref": role_lid} in r["Properties"]["Roles"]
        for s in r["Properties"]["PolicyDocument"]["Statement"]
    ]
    for s in statements:
        allowed |= set([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
    missing = REFERENCE_EXECUTION_ROLE_ACTIONS - allowed - set(DELIBERATELY_OMITTED)
    assert not missing, f"HyperPod's execution role lacks what AWS's reference role grants: {sorted(missing)}"
    # What we add on "*" is held to the environment's region.
    for s in statements:
        if s["Resource"] == "*" and not s["Action"] == "fsx:DescribeFileSystems":
            assert s["Condition"] == {"StringEquals": {"aws:RequestedRegion": env_synth.config.region}}, s


def test_lifecycle_bucket_name_matches_the_managed_policy(env_synth: Synth) -> None:
    buckets = [r["Properties"] for r in env_synth.resources(STACK, "AWS::S3::Bucket").values()]
    (bucket,) = buckets
    assert bucket["BucketName"].startswith("sagemaker-")  # AmazonSageMakerClusterInstanceRolePolicy reads sagemaker-*
    assert bucket["PublicAccessBlockConfiguration"]["BlockPublicPolicy"] is True


# ---- device plugins: both node kinds ---------------------------------------------------------------------------

HYPERPOD_GPU_NODE = {"node.kubernetes.io/instance-type": "ml.p5.48xlarge", "node-type": "hyperpod", "gpu-type": "h100"}
KARPENTER_GPU_NODE = {
    "node.kubernetes.io/instance-type": "p5.48xlarge",
    "karpenter.k8s.aws/instance-gpu-manufacturer": "nvidia",
    "karpenter.sh/nodepool": "h100",
}
SYSTEM_NODE = {"node.kubernetes.io/instance-type": "m7i.xlarge", "llmft.io/node-role": "system"}
GPU_TAINTS = [
    {"key": "dedicated", "value": "hyperpod", "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
]


def matches(terms: list[dict[str, Any]], labels: dict[str, str]) -> bool:
    """Kubernetes required node affinity: terms are ORed, expressions in a term ANDed."""

    def expr_ok(e: dict[str, Any]) -> bool:
        if e["operator"] == "In":
            return labels.get(e["key"]) in e["values"]
        if e["operator"] == "Exists":
            return e["key"] in labels
        raise AssertionError(f"unexpected operator {e['operator']}")

    return any(all(expr_ok(e) for e in t["matchExpressions"]) for t in terms)


def tolerates(tolerations: list[dict[str, Any]], taint: dict[str, str]) -> bool:
    for t in tolerations:
        if t.get("effect") not in (None, "", taint["effect"]):
            continue
        if t.get("operator") == "Exists" and t.get("key") in (None, taint["key"]):
            return True
        if t.get("key") == taint["key"] and t.get("value") == taint["value"]:
            return True
    return False


def nvidia_plugins_on(node: dict[str, str], values: dict[str, Any], karpenter_ami_alias: str) -> int:
    """How many NVIDIA device plugins run on ``node``: ours if its affinity admits the node, plus the AMI's own on
    a Karpenter node whose AMI brings one (Bottlerocket NVIDIA variants do: settings.kubelet-device-plugins.nvidia;
    the EKS AL2023 NVIDIA AMI does not)."""
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    ours = int(matches(terms, node))
    from_ami = int("karpenter.sh/nodepool" in node and karpenter_ami_alias.startswith("bottlerocket@"))
    return ours + from_ami


def test_every_gpu_node_kind_runs_exactly_one_nvidia_device_plugin(env_synth: Synth) -> None:
    values = helm_releases(env_synth)["nvidia-device-plugin"]["Values"]
    alias = env_synth.config.kubernetes.karpenter.ami_alias
    assert nvidia_plugins_on(HYPERPOD_GPU_NODE, values, alias) == 1
    assert nvidia_plugins_on(KARPENTER_GPU_NODE, values, alias) == 1, f"Karpenter GPU nodes on {alias}"
    assert nvidia_plugins_on(SYSTEM_NODE, values, alias) == 0
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert all(tolerates(values["tolerations"], t) for t in GPU_TAINTS)
    for instance_type in nvidia_hyperpod_instance_types():
        assert matches(terms, {"node.kubernetes.io/instance-type": instance_type})


@pytest.mark.parametrize("alias", ["bottlerocket@latest", "bottlerocket@v1.44.0", "al2023@latest"])
def test_either_ami_family_gets_exactly_one_nvidia_device_plugin(alias: str) -> None:
    """The other family than the shipped configs use: the affinity the construct would render for it."""
    from cdk_constructs.compute.hyperpod_prerequisites import gpu_node_affinity, karpenter_ami_ships_nvidia_plugin

    values = {
        "affinity": gpu_node_affinity(["ml.p5.48xlarge"], karpenter_nodes=not karpenter_ami_ships_nvidia_plugin(alias))
    }
    assert nvidia_plugins_on(KARPENTER_GPU_NODE, values, alias) == 1
    assert nvidia_plugins_on(HYPERPOD_GPU_NODE, values, alias) == 1


def test_efa_device_plugin_covers_hyperpod_and_karpenter_gpu_nodes(env_synth: Synth) -> None:
    values = helm_releases(env_synth)["aws-efa-k8s-device-plugin"]["Values"]
    labels = values["supportedInstanceLabels"]
    # The chart renders one nodeSelectorTerm per key, each `In` the shared value list.
    terms = [{"matchExpressions": [{"key": k, "operator": "In", "values": labels["values"]}]} for k in labels["keys"]]
    assert matches(terms, HYPERPOD_GPU_NODE) and matches(terms, KARPENTER_GPU_NODE)
    assert not matches(terms, SYSTEM_NODE)
    assert all(tolerates(values["tolerations"], t) for t in GPU_TAINTS)


def test_charts_are_pinned_to_official_repositories(env_synth: Synth) -> None:
    releases = helm_releases(env_synth)
    pins = {name: (r.get("Repository"), r.get("Chart"), r.get("Version")) for name, r in releases.items()}
    # Whether each is a pullable chart reference is tests/test_helm_targets.py's job (it runs the handler).
    # Every registered add-on this environment enables is its declaration's release, at the version the environment
    # asks for (compute.charts overrides, else config/versions.py).
    for addon in registered(env_synth.config):
        if addon.repository is not None:
            assert pins[addon.release] == (addon.repository, addon.chart, addon.version_in(env_synth.config))
    for name, (repo, _, version) in pins.items():
        if name != "hyperpod-prerequisites":
            assert version, f"{name} is not pinned"
            assert "github.com" not in repo


# ---- Karpenter -----------------------------------------------------------------------------------------------


def test_karpenter_interruption_queue_rules(env_synth: Synth) -> None:
    (queue_lid,) = env_synth.resources(STACK, "AWS::SQS::Queue")
    patterns = set()
    for rule in env_synth.resources(STACK, "AWS::Events::Rule").values():
        props = rule["Properties"]
        (target,) = props["Targets"]
        assert target["Arn"] == {"Fn::GetAtt": [queue_lid, "Arn"]}
        patterns.add((props["EventPattern"]["source"][0], props["EventPattern"]["detail-type"][0]))
    assert patterns == set(INTERRUPTION_EVENTS.values())
    assert helm_releases(env_synth)["karpenter"]["Values"]["settings"] == {
        "clusterName": env_synth.config.cluster_name,
        "interruptionQueue": "<token>",
    }


def test_karpenter_uses_pod_identity_and_an_ec2_linux_node_entry(env_synth: Synth) -> None:
    (assoc,) = [
        r
        for lid, r in env_synth.resources(STACK, "AWS::EKS::PodIdentityAssociation").items()
        if lid.startswith("KarpenterPodIdentity")
    ]
    assert (assoc["Properties"]["Namespace"], assoc["Properties"]["ServiceAccount"]) == ("kube-system", "karpenter")
    role = env_synth.templates[STACK]["Resources"][assoc["Properties"]["RoleArn"]["Fn::GetAtt"][0]]
    (statement,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert statement["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert set(statement["Action"]) == {"sts:AssumeRole", "sts:TagSession"}
    node_entries = [
        r["Properties"]
        for r in env_synth.resources(STACK, "AWS::EKS::AccessEntry").values()
        if r["Properties"].get("Type") == "EC2_LINUX"
    ]
    assert len(node_entries) == 1 and "AccessPolicies" not in node_entries[0]
    controller = helm_releases(env_synth)["karpenter"]
    assert controller["Values"]["nodeSelector"] == {"llmft.io/node-role": "system"}
    assert helm_releases(env_synth)["karpenter-crd"]["LogicalId"] in controller["DependsOn"]


def test_karpenter_can_launch_spot_in_an_account_that_never_used_spot(env_synth: Synth) -> None:
    """A NodePool that allows Spot needs AWSServiceRoleForEC2Spot; EC2 creates it with the controller's credentials
    (karpenter-provider-aws v1.14.1 docs/troubleshooting.md, "Missing Service Linked Role")."""
    (gpu,) = [r for lid, r in env_synth.resources(STACK, MANIFEST).items() if lid.startswith("EksClusterGpuCapacity")]
    objects = json.loads(untoken(gpu["Properties"]["Manifest"]))
    spot_pools = [
        o["metadata"]["name"]
        for o in objects
        if o["kind"] == "NodePool"
        and any(
            r["key"] == "karpenter.sh/capacity-type" and "spot" in r.get("values", [])
            for r in o["spec"]["template"]["spec"]["requirements"]
        )
    ]
    assert spot_pools, "the shipped configs have spot tiers; this test needs a Spot NodePool to mean anything"
    (policy,) = [
        r
        for lid, r in env_synth.resources(STACK, "AWS::IAM::ManagedPolicy").items()
        if lid.startswith("KarpenterControllerPolicy")
    ]
    grants = [
        s
        for s in policy["Properties"]["PolicyDocument"]["Statement"]
        if "iam:CreateServiceLinkedRole" in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
    ]
    assert len(grants) == 1, f"Spot pools {spot_pools} cannot launch until AWSServiceRoleForEC2Spot exists"
    (grant,) = grants
    assert grant["Condition"] == {"StringEquals": {"iam:AWSServiceName": "spot.amazonaws.com"}}
    assert untoken(grant["Resource"]).endswith(":role/aws-service-role/spot.amazonaws.com/AWSServiceRoleForEC2Spot")


def test_karpenter_policy_covers_every_node_class_and_pool(env_synth: Synth) -> None:
    """The controller launches for every EC2NodeClass/NodePool the charts apply (the GPU pools and the CPU job pool):
    no statement names one pool or node class, the tag conditions on them are wildcards, and PassRole allows the one
    node role every node class names."""
    manifests = [
        r
        for lid, r in env_synth.resources(STACK, MANIFEST).items()
        if lid.startswith(("EksClusterGpuCapacity", "EksClusterCpuCapacity"))
    ]
    objects = [o for m in manifests for o in json.loads(untoken(m["Properties"]["Manifest"]))]
    config = env_synth.config
    pools = {o["metadata"]["name"] for o in objects if o["kind"] == "NodePool"}
    classes = {o["metadata"]["name"]: o["spec"]["role"] for o in objects if o["kind"] == "EC2NodeClass"}
    assert (
        pools
        == set(classes)
        == {*(p.name for p in config.kubernetes.gpu_node_pools), config.kubernetes.cpu_node_pool.name}
    )
    assert len(set(json.dumps(r, sort_keys=True) for r in classes.values())) == 1  # one node role
    (policy,) = [
        r
        for lid, r in env_synth.resources(STACK, "AWS::IAM::ManagedPolicy").items()
        if lid.startswith("KarpenterControllerPolicy")
    ]
    text = json.dumps(policy["Properties"]["PolicyDocument"])
    assert not [name for name in pools if f'"{name}"' in text or f"/{name}" in text]
    for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
        for condition in statement.get("Condition", {}).values():
            for key, value in condition.items():
                if key.endswith(("karpenter.sh/nodepool", "karpenter.k8s.aws/ec2nodeclass")):
                    assert value == "*", (statement["Sid"], key, value)


def test_discovery_tags_name_the_cluster(env_synth: Synth) -> None:
    stack = env_synth.stacks[STACK]
    assert stack.cluster_name == env_synth.config.cluster_name
    assert stack.karpenter.discovery_tag == {"karpenter.sh/discovery": env_synth.config.cluster_name}


# ---- FSx volume and contracts ----------------------------------------------------------------------------------


def test_fsx_claims_bind_one_volume_per_namespace(env_synth: Synth) -> None:
    manifests = [
        json.loads(untoken(r["Properties"]["Manifest"])) for r in env_synth.resources(STACK, MANIFEST).values()
    ]
    objects = [o for m in manifests for o in m]
    pvs = {o["metadata"]["name"]: o for o in objects if o["kind"] == "PersistentVolume"}
    claims = [o for o in objects if o["kind"] == "PersistentVolumeClaim"]
    # the platform namespace holds, read-only, the tree of each team it evaluates (issue 40, k8s_charts/promotion.py)
    platform = {o["metadata"]["name"]: o for o in claims if o["metadata"]["namespace"] == PROMOTION_NAMESPACE}
    teams = [t for t in env_synth.config.kubernetes.teams if evaluates_in_platform(t)]
    assert set(platform) == {team_claim_name(t.name) for t in teams}
    for team in teams:
        pvc = platform[team_claim_name(team.name)]
        assert pvc["spec"]["volumeName"] == team_volume_name(team.name)
        assert pvs[team_volume_name(team.name)]["spec"]["csi"]["readOnly"] is True
    pvcs = {o["metadata"]["namespace"]: o for o in claims if o["metadata"]["namespace"] != PROMOTION_NAMESPACE}
    assert set(env_synth.config.compute.fsx_claim_namespaces) <= set(pvcs)  # team namespaces come from the charts
    for namespace, pvc in pvcs.items():
        assert pvc["metadata"]["name"] == "fsx-claim"
        assert pvc["spec"]["volumeName"] == f"fsx-{namespace}" and pvc["spec"]["storageClassName"] == ""
        pv = pvs[f"fsx-{namespace}"]["spec"]
        assert pv["csi"]["driver"] == "fsx.csi.aws.com"
        assert pv["csi"]["volumeHandle"] == "<token>"
        assert set(pv["csi"]["volumeAttributes"]) == {"dnsname", "mountname"}
        assert pv["accessModes"] == ["ReadWriteMany"] and pv["persistentVolumeReclaimPolicy"] == "Retain"
        assert pv["storageClassName"] == ""


def test_stack_exposes_the_contracts(dev: Synth) -> None:
    from aws_cdk import aws_eks_v2 as eks
    from aws_cdk import aws_iam as iam
    from aws_cdk import aws_kms as kms

    stack = dev.stacks[STACK]
    assert isinstance(stack.cluster, eks.Cluster)
    assert isinstance(stack.karpenter_node_role, iam.Role) and isinstance(stack.hyperpod_execution_role, iam.Role)
    assert isinstance(stack.encryption_key, kms.Key)
    # what the platform charts wait for: the releases of every add-on declared with provides_platform_crds
    releases = {c.node.path for c in stack.crd_dependencies}
    providers = [a for a in registered(dev.config) if a.provides_platform_crds]
    assert providers and releases == {r.node.path for a in providers for r in stack.addons[a.name]}
    assert not [a.name for a in registered(dev.config) if a.name not in stack.addon_constructs], "not installed"
    with pytest.raises(ValueError, match="already has"):
        stack.fsx_volume.add_claim("default")


def test_public_endpoint_only_for_the_configured_cidrs() -> None:
    """compute.public_access_cidrs turns the public endpoint on for exactly those CIDRs (private stays on)."""
    import aws_cdk as cdk
    from aws_cdk import aws_ec2 as ec2
    from aws_cdk import aws_kms as kms

    from cdk_constructs.compute.eks_cluster import PlatformEksCluster

    app = cdk.App()
    stack = cdk.Stack(app, "Probe", env=cdk.Environment(account="123456789012", region="us-east-1"))
    vpc = ec2.Vpc(
        stack,
        "Vpc",
        nat_gateways=0,
        availability_zones=["us-east-1a", "us-east-1b"],
        subnet_configuration=[ec2.SubnetConfiguration(name="p", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)],
    )
    eks = PlatformEksCluster(
        stack,
        "Eks",
        cluster_name="probe",
        version="1.34",
        vpc=vpc,
        subnets=vpc.isolated_subnets,
        control_plane_security_group=ec2.SecurityGroup(stack, "Sg", vpc=vpc),
        encryption_key=kms.Key(stack, "Key"),
        addon_versions={
            "vpc-cni": "v1.20.4-eksbuild.1",
            "coredns": "v1.12.3-eksbuild.1",
            "kube-proxy": "v1.34.0-eksbuild.2",
            "eks-pod-identity-agent": "v1.3.9-eksbuild.3",
            "aws-fsx-csi-driver": "v1.7.0-eksbuild.1",
        },
        public_access_cidrs=["203.0.113.0/24"],
    )
    vpc_config = stack.resolve(eks.cluster.node.default_child.resources_vpc_config)  # no synthesis needed
    assert vpc_config["endpointPublicAccess"] is True and vpc_config["endpointPrivateAccess"] is True
    assert vpc_config["publicAccessCidrs"] == ["203.0.113.0/24"]


def test_chart_version_overrides_reach_the_helm_releases() -> None:
    """compute.charts is per environment: an override (an upgrade tried in one environment) is what the HelmChart
    resources install (the defaults are test_charts_are_pinned_to_official_repositories'). KubeRay is not
    overridable: Helm never upgrades its CRDs (tests/test_versions_move_together.py)."""
    from config.charts import ChartVersionsConfig

    overrides = {"karpenter": "1.14.2", "kueue": "0.19.3", "secrets_store": "3.1.2"}
    defaults = ChartVersionsConfig()
    assert all(getattr(defaults, k) != v for k, v in overrides.items()), "pick versions other than the defaults"
    pins = {
        name: r.get("Version")
        for name, r in helm_releases(synthesize("dev", {"compute": {"charts": overrides}})).items()
    }
    assert pins["karpenter"] == pins["karpenter-crd"] == overrides["karpenter"]
    assert pins["kueue"] == overrides["kueue"]
    assert pins["kueue"] == helm_releases(synthesize("dev", {"compute": {"charts": overrides}}))["kueue"]["Values"][
        "controllerManager"
    ]["manager"]["image"]["tag"].removeprefix("v")
    assert pins["secrets-store-csi-driver-provider-aws"] == overrides["secrets_store"]
