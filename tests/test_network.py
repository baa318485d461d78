"""Fine-grained assertions for `<Env>-Network`."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
import pytest

from .conftest import Synth


def lid(construct: Any) -> str:
    """Logical ID of a construct's CloudFormation resource."""
    res = construct if isinstance(construct, cdk.CfnElement) else construct.node.default_child
    return cdk.Stack.of(res).get_logical_id(res)


def rules(synth: Synth, type_: str, group: Any) -> list[dict[str, Any]]:
    gid = lid(group)
    return [
        r["Properties"]
        for r in synth.resources("network", type_).values()
        if r["Properties"]["GroupId"] == {"Fn::GetAtt": [gid, "GroupId"]}
    ]


def source(rule: dict[str, Any]) -> str:
    ref = rule.get("SourceSecurityGroupId") or rule.get("DestinationSecurityGroupId")
    return ref["Fn::GetAtt"][0] if ref else rule.get("CidrIp", "?")


def test_vpc_spans_configured_azs(env_synth: Synth) -> None:
    azs = env_synth.config.network.availability_zones
    subnets = env_synth.resources("network", "AWS::EC2::Subnet").values()
    by_az: dict[str, int] = {}
    for s in subnets:
        by_az[s["Properties"]["AvailabilityZone"]] = by_az.get(s["Properties"]["AvailabilityZone"], 0) + 1
    hp_az = env_synth.config.network.hyperpod.availability_zone
    assert by_az == {az: 3 + (az == hp_az) for az in azs}  # public, private, isolated (+ HyperPod)


def test_nat_gateways_per_environment(dev: Synth, prod: Synth) -> None:
    assert len(dev.resources("network", "AWS::EC2::NatGateway")) == 1
    assert len(prod.resources("network", "AWS::EC2::NatGateway")) == 3


def test_hyperpod_subnet_in_secondary_cidr(env_synth: Synth) -> None:
    net = env_synth.config.network
    stack = env_synth.stacks["network"]
    block = env_synth.resources("network", "AWS::EC2::VPCCidrBlock")
    assert [b["Properties"]["CidrBlock"] for b in block.values()] == [net.hyperpod.secondary_cidr]
    subnet_id = lid(stack.hyperpod.subnet.node.default_child)
    subnet = env_synth.templates["network"]["Resources"][subnet_id]
    assert subnet["Properties"]["AvailabilityZone"] == net.hyperpod.availability_zone
    assert subnet["Properties"]["CidrBlock"].endswith(f"/{net.hyperpod.subnet_mask}")
    assert subnet["Properties"]["MapPublicIpOnLaunch"] is False
    assert list(block)[0] in subnet["DependsOn"]
    routes = [
        r["Properties"]
        for r in env_synth.resources("network", "AWS::EC2::Route").values()
        if "NatGatewayId" in r["Properties"]
    ]
    hp_table = lid(stack.hyperpod.subnet.node.find_child("RouteTable"))
    assert any(r["RouteTableId"] == {"Ref": hp_table} and r["DestinationCidrBlock"] == "0.0.0.0/0" for r in routes)


def test_efa_group_allows_all_traffic_with_itself_both_ways(env_synth: Synth) -> None:
    sg = env_synth.stacks["network"].security_groups.efa
    me = lid(sg)
    ingress = rules(env_synth, "AWS::EC2::SecurityGroupIngress", sg)
    egress = rules(env_synth, "AWS::EC2::SecurityGroupEgress", sg)
    assert any(r["IpProtocol"] == "-1" and source(r) == me for r in ingress)
    assert any(r["IpProtocol"] == "-1" and source(r) == me for r in egress)
    template = env_synth.templates["network"]["Resources"][me]["Properties"]
    assert template["GroupDescription"]


def test_fsx_group_admits_only_lustre_ports_from_clients(env_synth: Synth) -> None:
    groups = env_synth.stacks["network"].security_groups
    ingress = rules(env_synth, "AWS::EC2::SecurityGroupIngress", groups.fsx)
    allowed_sources = {lid(g) for g in (groups.fsx, groups.efa, groups.eks_nodes, groups.studio)}
    ports = {(r["FromPort"], r["ToPort"]) for r in ingress}
    assert ports == {(988, 988), (1018, 1023)}
    assert all(r["IpProtocol"] == "tcp" for r in ingress)
    assert {source(r) for r in ingress} == allowed_sources  # no CIDR sources at all
    assert len(ingress) == 2 * len(allowed_sources)


def test_aurora_admits_postgres_only_from_mlflow_tasks(env_synth: Synth) -> None:
    groups = env_synth.stacks["network"].security_groups
    ingress = rules(env_synth, "AWS::EC2::SecurityGroupIngress", groups.aurora)
    assert [(r["FromPort"], r["ToPort"], source(r)) for r in ingress] == [(5432, 5432, lid(groups.mlflow_tasks))]
    props = env_synth.templates["network"]["Resources"][lid(groups.aurora)]["Properties"]
    # allow_all_outbound=False: CDK writes a deny-all placeholder egress rule.
    assert props["SecurityGroupEgress"][0]["CidrIp"] == "255.255.255.255/32"


def test_alb_admits_https_from_vpc_only(env_synth: Synth) -> None:
    groups = env_synth.stacks["network"].security_groups
    inline = env_synth.templates["network"]["Resources"][lid(groups.alb)]["Properties"]["SecurityGroupIngress"]
    assert not rules(env_synth, "AWS::EC2::SecurityGroupIngress", groups.alb)
    net = env_synth.config.network
    assert {(r["FromPort"], r.get("CidrIp")) for r in inline} == {
        (443, net.vpc_cidr),
        (443, net.hyperpod.secondary_cidr),
    }


def test_no_group_is_open_to_the_internet(env_synth: Synth) -> None:
    resources = env_synth.templates["network"]["Resources"].values()
    inline = [
        rule
        for r in resources
        if r["Type"] == "AWS::EC2::SecurityGroup"
        for rule in r["Properties"].get("SecurityGroupIngress", [])
    ]
    standalone = [r["Properties"] for r in resources if r["Type"] == "AWS::EC2::SecurityGroupIngress"]
    assert not [r for r in inline + standalone if r.get("CidrIp") == "0.0.0.0/0"]


def test_every_group_and_rule_has_a_description(env_synth: Synth) -> None:
    for r in env_synth.templates["network"]["Resources"].values():
        if r["Type"] in ("AWS::EC2::SecurityGroupIngress", "AWS::EC2::SecurityGroupEgress"):
            assert r["Properties"].get("Description"), r
        if r["Type"] == "AWS::EC2::SecurityGroup":
            assert r["Properties"]["GroupDescription"]


def endpoint_services(synth: Synth) -> dict[str, str]:
    out = {}
    for r in synth.resources("network", "AWS::EC2::VPCEndpoint").values():
        name = r["Properties"]["ServiceName"]
        if isinstance(name, dict):  # {"Fn::Join": ["", ["com.amazonaws.", {"Ref": "AWS::Region"}, ".s3"]]}
            name = "".join(p if isinstance(p, str) else "<region>" for p in name["Fn::Join"][1])
        out[name.rsplit(".", 1)[-1] if ".s3" in name[-3:] else name] = r["Properties"]["VpcEndpointType"]
    return out


@pytest.mark.parametrize(("env", "interfaces"), [("dev", 0), ("prod", 14)])
def test_endpoints_per_profile(env: str, interfaces: int) -> None:
    from .conftest import synthesize

    synth = synthesize(env)
    types = [
        r["Properties"].get("VpcEndpointType", "Gateway")
        for r in synth.resources("network", "AWS::EC2::VPCEndpoint").values()
    ]
    assert types.count("Gateway") == 1
    assert types.count("Interface") == interfaces
    names = {
        r["Properties"]["ServiceName"] if isinstance(r["Properties"]["ServiceName"], str) else "s3"
        for r in synth.resources("network", "AWS::EC2::VPCEndpoint").values()
    }
    if interfaces:
        region = synth.config.region
        assert {f"com.amazonaws.{region}.{s}" for s in synth.config.network.interface_endpoints} <= names
        for r in synth.resources("network", "AWS::EC2::VPCEndpoint").values():
            if r["Properties"]["VpcEndpointType"] == "Interface":
                assert r["Properties"]["PrivateDnsEnabled"] is True
                assert len(r["Properties"]["SubnetIds"]) == len(synth.config.network.availability_zones)


def test_s3_gateway_endpoint_serves_the_hyperpod_subnet(env_synth: Synth) -> None:
    stack = env_synth.stacks["network"]
    gw = next(
        r
        for r in env_synth.resources("network", "AWS::EC2::VPCEndpoint").values()
        if r["Properties"]["VpcEndpointType"] == "Gateway"
    )
    assert {"Ref": lid(stack.hyperpod.subnet.node.find_child("RouteTable"))} in gw["Properties"]["RouteTableIds"]


def test_flow_logs_with_retention(env_synth: Synth) -> None:
    flow = list(env_synth.resources("network", "AWS::EC2::FlowLog").values())
    assert len(flow) == 1 and flow[0]["Properties"]["TrafficType"] == "ALL"
    groups = env_synth.resources("network", "AWS::Logs::LogGroup")
    target = flow[0]["Properties"]["LogGroupName"]["Ref"]
    assert groups[target]["Properties"]["RetentionInDays"] == env_synth.config.network.flow_logs_retention_days


def test_karpenter_discovery_tags(env_synth: Synth) -> None:
    stack = env_synth.stacks["network"]
    name = env_synth.config.cluster_name
    res = env_synth.templates["network"]["Resources"]
    for subnet in stack.vpc.private_subnets:
        assert {"Key": "karpenter.sh/discovery", "Value": name} in res[lid(subnet.node.default_child)]["Properties"][
            "Tags"
        ]
    assert {"Key": "karpenter.sh/discovery", "Value": name} in res[lid(stack.security_groups.eks_nodes)]["Properties"][
        "Tags"
    ]
    hp_tags = res[lid(stack.hyperpod.subnet.node.default_child)]["Properties"]["Tags"]
    assert not [t for t in hp_tags if t["Key"] == "karpenter.sh/discovery"]  # HyperPod keeps its subnet


def test_network_log_groups_use_the_network_logs_key(env_synth: Synth) -> None:
    """Every log group of the network stack (flow logs, the default-SG handler's) is encrypted with the stack's own
    key, which CloudWatch Logs may use only for this account's log groups in this region."""
    template = env_synth.templates["network"]["Resources"]
    keys = {k: v for k, v in template.items() if v["Type"] == "AWS::KMS::Key"}
    (key_id,) = keys
    assert keys[key_id]["Properties"]["EnableKeyRotation"] is True
    groups = {k: v for k, v in template.items() if v["Type"] == "AWS::Logs::LogGroup"}
    assert len(groups) >= 2
    for lid, res in groups.items():
        assert res["Properties"]["KmsKeyId"] == {"Fn::GetAtt": [key_id, "Arn"]}, lid
        assert res["Properties"]["RetentionInDays"] > 0, lid
    (logs_statement,) = [
        s
        for s in keys[key_id]["Properties"]["KeyPolicy"]["Statement"]
        if s.get("Principal", {}).get("Service") == f"logs.{env_synth.config.region}.amazonaws.com"
    ]
    assert "kms:GenerateDataKey*" in logs_statement["Action"]
    assert "kms:EncryptionContext:aws:logs:arn" in logs_statement["Condition"]["ArnLike"]
