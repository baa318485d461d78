"""The platform's security groups and the rules between them (least privilege, each with a description)."""

from __future__ import annotations

from aws_cdk import aws_ec2 as ec2
from constructs import Construct

LUSTRE_PORTS = (ec2.Port.tcp(988), ec2.Port.tcp_range(1018, 1023))
"""FSx for Lustre: 988 (LNet) and 1018-1023 (client/server connections)."""

HTTPS = ec2.Port.tcp(443)
POSTGRES = ec2.Port.tcp(5432)
NFS = ec2.Port.tcp(2049)


class PlatformSecurityGroups(Construct):
    """Creates every security group the platform's layers share, wired to each other.

    Attributes (all ``ec2.SecurityGroup``):

    - ``efa``: HyperPod nodes and EFA-enabled GPU nodes. All traffic to and from itself in both directions
      (EFA's requirement), all traffic within the VPC's CIDRs, HTTPS out (AWS APIs, registries).
    - ``eks_nodes``: EKS system and Karpenter nodes. All traffic with itself and with ``efa`` (pod to pod).
    - ``fsx``: the FSx for Lustre file system. TCP 988 and 1018-1023 only, from itself and the client groups.
    - ``studio``: SageMaker Studio apps. Inbound NFS (2049) from itself; Lustre client of ``fsx``.
    - ``alb``: the MLflow load balancer. HTTPS in from the VPC's CIDRs; out only to ``mlflow_tasks``.
    - ``mlflow_tasks``: MLflow Fargate tasks. ``mlflow_port`` in from ``alb``; out HTTPS and PostgreSQL.
    - ``aurora``: the MLflow database. PostgreSQL in only from ``mlflow_tasks``; no egress.

    :param vpc: the platform VPC.
    :param client_cidrs: CIDRs of the VPC (primary and secondary) allowed to reach the ALB and the nodes' open
        ports. Default: the VPC's primary CIDR block.
    :param mlflow_port: container port of the MLflow server. Default 5000.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        vpc: ec2.IVpc,
        client_cidrs: list[str] | None = None,
        mlflow_port: int = 5000,
    ) -> None:
        super().__init__(scope, construct_id)
        cidrs = client_cidrs or [vpc.vpc_cidr_block]
        self.mlflow_port = mlflow_port

        def group(cid: str, description: str) -> ec2.SecurityGroup:
            return ec2.SecurityGroup(self, cid, vpc=vpc, description=description, allow_all_outbound=False)

        self.efa = group("Efa", "HyperPod and EFA GPU nodes: all traffic with itself (EFA), VPC, HTTPS out")
        self.eks_nodes = group("EksNodes", "EKS system and Karpenter nodes: all traffic with itself and EFA nodes")
        self.fsx = group("Fsx", "FSx for Lustre: TCP 988 and 1018-1023 from Lustre clients only")
        self.studio = ec2.SecurityGroup(
            self,
            "Studio",
            vpc=vpc,
            allow_all_outbound=True,
            description="SageMaker Studio apps: inbound NFS from itself, FSx client",
        )
        self.alb = group("Alb", "MLflow load balancer: HTTPS from inside the VPC, forwards to MLflow tasks")
        self.mlflow_tasks = group("MlflowTasks", "MLflow Fargate tasks: from the ALB; HTTPS and PostgreSQL out")
        self.aurora = group("Aurora", "MLflow Aurora PostgreSQL: 5432 from the MLflow tasks only, no egress")

        # --- compute nodes ------------------------------------------------------------------------------
        for node_sg in (self.efa, self.eks_nodes):
            node_sg.add_ingress_rule(node_sg, ec2.Port.all_traffic(), "All traffic from itself")
            node_sg.add_egress_rule(node_sg, ec2.Port.all_traffic(), "All traffic to itself")
            for cidr in cidrs:
                node_sg.add_egress_rule(
                    ec2.Peer.ipv4(cidr), ec2.Port.all_traffic(), f"Pods and services inside the VPC ({cidr})"
                )
            node_sg.add_egress_rule(ec2.Peer.any_ipv4(), HTTPS, "HTTPS to AWS APIs and registries")
        self.efa.connections.allow_from(self.eks_nodes, ec2.Port.all_traffic(), "Pods on EKS nodes")
        self.eks_nodes.connections.allow_from(self.efa, ec2.Port.all_traffic(), "Pods on HyperPod/EFA nodes")

        # --- FSx for Lustre -------------------------------------------------------------------------------
        for port in LUSTRE_PORTS:
            self.fsx.add_ingress_rule(self.fsx, port, f"Lustre {port.to_string()} between file servers")
            self.fsx.add_egress_rule(self.fsx, port, f"Lustre {port.to_string()} between file servers")
            for name, client in (
                ("HyperPod/EFA nodes", self.efa),
                ("EKS nodes", self.eks_nodes),
                ("Studio apps", self.studio),
            ):
                self.fsx.connections.allow_from(client, port, f"Lustre {port.to_string()} from {name}")
                self.fsx.connections.allow_to(client, port, f"Lustre {port.to_string()} to {name}")

        # --- Studio -------------------------------------------------------------------------------------
        self.studio.add_ingress_rule(self.studio, NFS, "NFS between Studio apps and the domain's home volume")

        # --- MLflow -------------------------------------------------------------------------------------
        for cidr in cidrs:
            self.alb.add_ingress_rule(ec2.Peer.ipv4(cidr), HTTPS, f"HTTPS from inside the VPC ({cidr})")
        self.mlflow_tasks.connections.allow_from(self.alb, ec2.Port.tcp(mlflow_port), "MLflow from the ALB")
        self.mlflow_tasks.add_egress_rule(ec2.Peer.any_ipv4(), HTTPS, "HTTPS to S3, Secrets Manager, ECR, logs")
        self.aurora.connections.allow_from(self.mlflow_tasks, POSTGRES, "PostgreSQL from the MLflow tasks")

    @property
    def lustre_clients(self) -> list[ec2.ISecurityGroup]:
        """Groups allowed to mount the file system."""
        return [self.efa, self.eks_nodes, self.studio]
