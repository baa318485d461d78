"""An Application Load Balancer that speaks HTTPS only (TLS 1.2+), with a DNS name and access logs."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import (
    Duration,
)
from aws_cdk import (
    aws_certificatemanager as acm,
)
from aws_cdk import (
    aws_ec2 as ec2,
)
from aws_cdk import (
    aws_elasticloadbalancingv2 as elbv2,
)
from aws_cdk import (
    aws_route53 as route53,
)
from aws_cdk import (
    aws_route53_targets as route53_targets,
)
from aws_cdk import (
    aws_s3 as s3,
)
from constructs import Construct

TLS_POLICY = elbv2.SslPolicy.RECOMMENDED_TLS
"""ELBSecurityPolicy-TLS13-1-2-2021-06: TLS 1.3 and 1.2 with forward secrecy only."""


class HttpsLoadBalancer(Construct):
    """An ALB with one HTTPS listener and an HTTP listener that only redirects to it.

    The certificate is ``certificate_arn`` when given, else a new ACM certificate for ``domain_name`` validated
    through ``hosted_zone``. With a hosted zone, an alias record ``domain_name`` -> the ALB is created too (the zone
    is referenced by ID and name, never looked up). Invalid header fields are dropped, access logs go to
    ``access_logs_bucket`` (it must use SSE-S3; the ELB log-delivery permission is added to its policy).
    Ingress: rules this construct adds to ``security_group`` (in its own stack) for the given CIDRs; the group may
    already admit HTTPS from elsewhere (the VPC). Egress to the targets is wired by ``add_targets``.

    :param vpc: the VPC. Required.
    :param security_group: the ALB's group. Required.
    :param domain_name: the name clients use; the tracking URI is ``https://<domain_name>``. Required.
    :param https_ingress_cidrs: IPv4 CIDRs to admit on 443 in addition to what the group admits. Default: none.
    :param http_ingress_cidrs: IPv4 CIDRs to admit on 80, which only redirects to 443. Default: none.
    :param access_logs_bucket: SSE-S3 bucket for access logs. Required.
    :param access_logs_prefix: default ``alb``.
    :param certificate_arn: existing ACM certificate. Default: create one (then ``hosted_zone`` is required).
    :param hosted_zone: the Route 53 zone of ``domain_name``. Default: none (no record, no created certificate).
    :param internet_facing: default False (internal, in the private subnets).
    :param idle_timeout: default 300 seconds.
    :param deletion_protection: default False.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        vpc: ec2.IVpc,
        security_group: ec2.ISecurityGroup,
        domain_name: str,
        access_logs_bucket: s3.IBucket,
        https_ingress_cidrs: Sequence[str] = (),
        http_ingress_cidrs: Sequence[str] = (),
        access_logs_prefix: str = "alb",
        certificate_arn: str | None = None,
        hosted_zone: route53.IHostedZone | None = None,
        internet_facing: bool = False,
        idle_timeout: Duration | None = None,
        deletion_protection: bool = False,
    ) -> None:
        super().__init__(scope, construct_id)
        if certificate_arn is None and hosted_zone is None:
            raise ValueError("HttpsLoadBalancer needs certificate_arn or a hosted_zone to create a certificate")
        self.domain_name = domain_name
        self.load_balancer = self._build_load_balancer(
            vpc=vpc,
            security_group=security_group,
            internet_facing=internet_facing,
            idle_timeout=idle_timeout,
            deletion_protection=deletion_protection,
        )
        self.load_balancer.log_access_logs(access_logs_bucket, access_logs_prefix)
        self.certificate = self._certificate(domain_name, certificate_arn, hosted_zone)
        self._add_listeners()
        self._add_ingress_rules(security_group, https_ingress_cidrs, http_ingress_cidrs)

        self.alias_record: route53.ARecord | None = None
        if hosted_zone is not None:
            self.alias_record = route53.ARecord(
                self,
                "Alias",
                zone=hosted_zone,
                record_name=domain_name,
                target=route53.RecordTarget.from_alias(route53_targets.LoadBalancerTarget(self.load_balancer)),
            )

    def _build_load_balancer(
        self,
        *,
        vpc: ec2.IVpc,
        security_group: ec2.ISecurityGroup,
        internet_facing: bool,
        idle_timeout: Duration | None,
        deletion_protection: bool,
    ) -> elbv2.ApplicationLoadBalancer:
        """Create the ALB in public or private subnets, dropping invalid header fields."""
        return elbv2.ApplicationLoadBalancer(
            self,
            "LoadBalancer",
            vpc=vpc,
            internet_facing=internet_facing,
            vpc_subnets=ec2.SubnetSelection(
                subnet_type=ec2.SubnetType.PUBLIC if internet_facing else ec2.SubnetType.PRIVATE_WITH_EGRESS
            ),
            security_group=security_group,
            drop_invalid_header_fields=True,
            idle_timeout=idle_timeout or Duration.seconds(300),
            deletion_protection=deletion_protection,
        )

    def _certificate(
        self, domain_name: str, certificate_arn: str | None, hosted_zone: route53.IHostedZone | None
    ) -> acm.ICertificate:
        """Import the certificate by ARN, or create one validated by DNS in ``hosted_zone``."""
        if certificate_arn:
            return acm.Certificate.from_certificate_arn(self, "Certificate", certificate_arn)
        return acm.Certificate(
            self, "Certificate", domain_name=domain_name, validation=acm.CertificateValidation.from_dns(hosted_zone)
        )

    def _add_listeners(self) -> None:
        """Add the HTTPS listener and the HTTP listener that redirects to it."""
        self.https_listener = self.load_balancer.add_listener(
            "Https",
            port=443,
            protocol=elbv2.ApplicationProtocol.HTTPS,
            certificates=[elbv2.ListenerCertificate.from_certificate_manager(self.certificate)],
            ssl_policy=TLS_POLICY,
            open=False,  # ingress rules below; the default action comes with add_targets()
        )
        self.http_listener = self.load_balancer.add_listener(
            "HttpRedirect",
            port=80,
            protocol=elbv2.ApplicationProtocol.HTTP,
            open=False,
            default_action=elbv2.ListenerAction.redirect(protocol="HTTPS", port="443", permanent=True),
        )

    def _add_ingress_rules(
        self, security_group: ec2.ISecurityGroup, https_cidrs: Sequence[str], http_cidrs: Sequence[str]
    ) -> None:
        """Allow HTTPS and HTTP from the given CIDRs, as separate ingress resources in this stack."""
        # Ingress rules live in this stack as separate resources, so the group's own stack stays untouched.
        rules = [(443, "Https", "HTTPS", c) for c in https_cidrs]
        rules += [(80, "Http", "HTTP (redirected to HTTPS)", c) for c in http_cidrs]
        for port, cid, what, cidr in rules:
            ec2.CfnSecurityGroupIngress(
                self,
                f"{cid}From{cidr.replace('.', '-').replace('/', '-')}",
                group_id=security_group.security_group_id,
                ip_protocol="tcp",
                from_port=port,
                to_port=port,
                cidr_ip=cidr,
                description=f"{what} from {cidr}",
            )

    @property
    def url(self) -> str:
        return f"https://{self.domain_name}"

    def add_targets(self, construct_id: str, **props) -> elbv2.ApplicationTargetGroup:
        """Forward every HTTPS request to a new target group (``props`` as for ``add_targets``); returns it."""
        return self.https_listener.add_targets(construct_id, **props)
