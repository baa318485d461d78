"""Every client docs/deploying.md ("Reaching the private API endpoint") promises kubectl to reaches the private EKS
API endpoint on 443, from the templates.

The endpoint's ENIs carry the security groups in ``ResourcesVpcConfig.SecurityGroupIds`` plus the cluster security
group EKS creates, which admits traffic from itself (https://docs.aws.amazon.com/eks/latest/userguide/
sec-group-reqs.html). A client reaches the endpoint when one of those groups has an ingress rule on TCP 443 whose
source is a group the client sits in. Cross-stack references (``Fn::GetStackOutput``) are followed to the
producing stack's output, so the groups are compared by the resource that defines them.
"""

from __future__ import annotations

from typing import Any

from .conftest import Synth

HTTPS = 443


class Groups:
    def __init__(self, synth: Synth) -> None:
        self.synth = synth
        self.by_stack_name = {stack.stack_name: short for short, stack in synth.stacks.items()}

    def key(self, stack: str, ref: Any) -> str:
        """A canonical name for a security-group ID expression in ``stack``'s template."""
        if isinstance(ref, dict) and "Fn::GetStackOutput" in ref:
            out = ref["Fn::GetStackOutput"]
            producer = self.by_stack_name[out["StackName"]]
            return self.key(producer, self.synth.templates[producer]["Outputs"][out["OutputName"]]["Value"])
        if isinstance(ref, dict) and "Fn::ImportValue" in ref:
            raise AssertionError(f"unexpected export reference {ref}")
        if isinstance(ref, dict) and "Fn::GetAtt" in ref:
            lid, attr = ref["Fn::GetAtt"]
            return f"{stack}:{lid}" + ("" if attr == "GroupId" else f".{attr}")
        if isinstance(ref, dict) and "Ref" in ref:
            return f"{stack}:{ref['Ref']}"
        return str(ref)

    def rules(self) -> list[tuple[str, str, int, int]]:
        """(group, source group, from port, to port) of every SG-sourced ingress rule in every template."""
        out = []
        for stack, template in self.synth.templates.items():
            for lid, res in template["Resources"].items():
                props = res.get("Properties", {})
                inline = (
                    [(f"{stack}:{lid}", r) for r in props.get("SecurityGroupIngress", [])]
                    if res["Type"] == "AWS::EC2::SecurityGroup"
                    else []
                )
                if res["Type"] == "AWS::EC2::SecurityGroupIngress":
                    inline = [(self.key(stack, props["GroupId"]), props)]
                for group, rule in inline:
                    if "SourceSecurityGroupId" not in rule:
                        continue
                    low, high = (0, 65535) if str(rule["IpProtocol"]) == "-1" else (rule["FromPort"], rule["ToPort"])
                    out.append((group, self.key(stack, rule["SourceSecurityGroupId"]), low, high))
        return out


def endpoint_groups(synth: Synth, groups: Groups) -> tuple[set[str], str]:
    ((lid, cluster),) = [
        (k, v) for k, v in synth.templates["compute"]["Resources"].items() if v["Type"] == "AWS::EKS::Cluster"
    ]
    extra = {groups.key("compute", g) for g in cluster["Properties"]["ResourcesVpcConfig"].get("SecurityGroupIds", [])}
    cluster_sg = groups.key("compute", {"Fn::GetAtt": [lid, "ClusterSecurityGroupId"]})
    return extra | {cluster_sg}, cluster_sg


def reaches(client: set[str], synth: Synth) -> bool:
    groups = Groups(synth)
    targets, cluster_sg = endpoint_groups(synth, groups)
    rules = groups.rules() + [(cluster_sg, cluster_sg, 0, 65535)]  # EKS's own rule on the cluster group
    return any(group in targets and source in client and low <= HTTPS <= high for group, source, low, high in rules)


def clients(synth: Synth) -> dict[str, set[str]]:
    groups = Groups(synth)
    out: dict[str, set[str]] = {}
    (domain,) = [r for r in synth.templates["studio"]["Resources"].values() if r["Type"] == "AWS::SageMaker::Domain"]
    settings = domain["Properties"]["DefaultUserSettings"]
    out["Studio apps (lifecycle configuration's kubectl)"] = {
        groups.key("studio", g) for g in settings["SecurityGroups"]
    }
    handlers = [
        r
        for k, r in synth.templates["compute"]["Resources"].items()
        if r["Type"] == "AWS::Lambda::Function" and k.startswith("EksClusterKubectlProviderHandler")
    ]
    assert len(handlers) == 1
    out["kubectl/helm handler (CDK manifests and Helm releases)"] = {
        groups.key("compute", g) for g in handlers[0]["Properties"]["VpcConfig"]["SecurityGroupIds"]
    }
    templates = [
        r
        for r in synth.templates["compute"]["Resources"].values()
        if r["Type"] == "AWS::EC2::LaunchTemplate" and "SecurityGroupIds" in r["Properties"]["LaunchTemplateData"]
    ]
    out["administrators through SSM port forwarding on a system node (docs/deploying.md)"] = {
        groups.key("compute", g) for t in templates for g in t["Properties"]["LaunchTemplateData"]["SecurityGroupIds"]
    }
    return out


def test_every_promised_kubectl_client_reaches_the_private_endpoint(env_synth: Synth) -> None:
    unreachable = [name for name, sgs in clients(env_synth).items() if not reaches(sgs, env_synth)]
    assert not unreachable, f"cannot reach the EKS API endpoint on {HTTPS}: {unreachable}"


def test_the_admin_path_exists(env_synth: Synth) -> None:
    """SSM port forwarding needs the SSM agent's permissions on the system nodes; a public endpoint, if configured,
    is limited to the configured CIDRs."""
    resources = env_synth.templates["compute"]["Resources"]
    (nodegroup,) = [r for k, r in resources.items() if r["Type"] == "AWS::EKS::Nodegroup" and "System" in k]
    role = resources[nodegroup["Properties"]["NodeRole"]["Fn::GetAtt"][0]]["Properties"]
    managed = " ".join(str(a) for a in role["ManagedPolicyArns"])
    assert "AmazonSSMManagedInstanceCore" in managed
    (cluster,) = [r for r in resources.values() if r["Type"] == "AWS::EKS::Cluster"]
    vpc = cluster["Properties"]["ResourcesVpcConfig"]
    cidrs = list(env_synth.config.compute.public_access_cidrs)
    assert vpc["EndpointPublicAccess"] is bool(cidrs)
    assert vpc.get("PublicAccessCidrs", []) == cidrs


LUSTRE = ((988, 988), (1018, 1023))  # FSx for Lustre User Guide, "File system access control with Amazon VPC"


def test_studio_mounts_fsx_through_security_group_rules_alone(env_synth: Synth) -> None:
    """The FSx group admits the Studio group on every Lustre port and the Studio group admits FSx back, so Studio
    needs no place on the file system's interfaces."""
    groups = Groups(env_synth)
    network = env_synth.stacks["network"]
    key = {
        name: f"network:{network.get_logical_id(sg.node.default_child)}"
        for name, sg in (("fsx", network.security_groups.fsx), ("studio", network.security_groups.studio))
    }
    rules = groups.rules()
    for low, high in LUSTRE:
        for target, source in (("fsx", "studio"), ("studio", "fsx")):
            assert any(g == key[target] and s == key[source] and lo <= low and high <= hi for g, s, lo, hi in rules), (
                f"{target} does not admit {source} on {low}-{high}"
            )


def test_nothing_modifies_network_interfaces(env_synth: Synth) -> None:
    """Security groups on FSx's interfaces are FSx's to manage; no custom resource or policy of ours changes them."""
    for stack, template in env_synth.templates.items():
        for lid, res in template["Resources"].items():
            if res["Type"] in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
                text = str(res["Properties"]["PolicyDocument"])
                assert "ec2:ModifyNetworkInterfaceAttribute" not in text, f"{stack}/{lid} may change interfaces"
            assert res["Type"] != "Custom::FsxEniSecurityGroups", f"{stack}/{lid}"
