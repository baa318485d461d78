"""The compute stack deploys the platform charts (after the CRD releases) and the teams' Pod Identity roles."""

from __future__ import annotations

import json
import re

import pytest

from k8s_charts import serving

from .conftest import ENVIRONMENTS, Synth, synthesize

MANIFEST = "Custom::AWSCDK-EKS-KubernetesResource"


def manifests(synth: Synth) -> dict[str, dict]:
    return {
        k: v
        for k, v in synth.resources("compute", MANIFEST).items()
        if any(k.startswith(f"EksCluster{n}") for n in ("PriorityClasses", "GpuCapacity", "TeamNamespaces"))
    }


def rendered(resource: dict) -> str:
    return json.dumps(resource["Properties"]["Manifest"])


def test_platform_charts_are_deployed_in_order(env_synth: Synth) -> None:
    found = manifests(env_synth)
    by_chart = {
        n: next(v for k, v in found.items() if k.startswith(f"EksCluster{n}"))
        for n in ("PriorityClasses", "GpuCapacity", "TeamNamespaces")
    }
    crd_releases = [
        k
        for k in env_synth.templates["compute"]["Resources"]
        if re.fullmatch(
            r"(KarpenterCrds|KarpenterController|KubeRayRelease|HyperPodPrerequisitesDependencies|SecretsStoreRelease)"
            r"[0-9A-F]{8}",
            k,
        )
    ]
    assert len(crd_releases) == 5
    assert crd_releases and set(crd_releases) <= set(by_chart["GpuCapacity"]["DependsOn"])
    # Team namespaces hold SecretProviderClasses: applied after the release that installs that CRD.
    assert set(crd_releases) <= set(by_chart["TeamNamespaces"]["DependsOn"])
    assert any(d.startswith("EksClusterPriorityClasses") for d in by_chart["TeamNamespaces"]["DependsOn"])
    assert '\\"kind\\":\\"NodePool\\"' in rendered(by_chart["GpuCapacity"])
    assert '\\"kind\\":\\"PriorityClass\\"' in rendered(by_chart["PriorityClasses"])
    for team in env_synth.config.kubernetes.teams:
        assert f'\\"name\\":\\"{team.name}\\"' in rendered(by_chart["TeamNamespaces"])
    namespaces = rendered(by_chart["TeamNamespaces"])
    assert '\\"MLFLOW_TRACKING_URI\\":\\"https://' in namespaces
    # one SecretProviderClass per team namespace, and the promotion namespace's (the MLflow evaluator's, issue 40)
    spc = re.findall(r'SecretProviderClass\\",\\"metadata\\":\{.*?\\"namespace\\":\\"([a-z0-9-]+)\\"', namespaces)
    teams = {t.name for t in env_synth.config.kubernetes.teams}
    assert len(spc) == len(set(spc)) and teams <= set(spc) and set(spc) - teams <= {serving.PROMOTION_NAMESPACE}, spc


def test_gpu_nodes_use_the_karpenter_role_and_compute_key(env_synth: Synth) -> None:
    gpu = next(v for k, v in manifests(env_synth).items() if k.startswith("EksClusterGpuCapacity"))
    text = rendered(gpu)
    role = next(k for k in env_synth.resources("compute", "AWS::IAM::Role") if k.startswith("KarpenterNodeRole"))
    key = next(k for k in env_synth.resources("compute", "AWS::KMS::Key") if k.startswith("EncryptionKey"))
    assert f'"Ref": "{role}"' in text and f'"Fn::GetAtt": ["{key}", "Arn"]' in text
    assert "${" not in text  # no dist placeholders left in what CloudFormation applies


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_team_pod_identity(env: str) -> None:
    synth: Synth = synthesize(env)
    associations = synth.resources("compute", "AWS::EKS::PodIdentityAssociation")
    teams = {a["Properties"]["Namespace"]: a["Properties"] for a in associations.values()}
    assert set(teams) >= {t.name for t in synth.config.kubernetes.teams}
    for team in synth.config.kubernetes.teams:
        assert teams[team.name]["ServiceAccount"] == "training"
        role_id = teams[team.name]["RoleArn"]["Fn::GetAtt"][0]
        role = synth.templates["compute"]["Resources"][role_id]["Properties"]
        principal = role["AssumeRolePolicyDocument"]["Statement"][0]
        assert principal["Principal"] == {"Service": "pods.eks.amazonaws.com"}
        assert set(principal["Action"]) == {"sts:AssumeRole", "sts:TagSession"}
        policy = next(
            p["Properties"]["PolicyDocument"]
            for p in synth.resources("compute", "AWS::IAM::Policy").values()
            if p["Properties"]["Roles"] == [{"Ref": role_id}]
        )
        statements = {s.get("Sid"): s for s in policy["Statement"]}
        assert statements["ListTeamPrefix"]["Condition"] == {
            "StringLike": {"s3:prefix": [team.data_prefix, f"{team.data_prefix}*"]}
        }
        objects = json.dumps(statements["ReadWriteTeamObjects"]["Resource"])
        assert objects.endswith(f'"/{team.data_prefix}*"]]}}')
        assert "s3:*" not in json.dumps(policy)
        # The team's own MLflow credentials (read by the Secrets Store CSI driver with the pod's identity), and the
        # key only for that secret; no other team's secret appears in the policy.
        read = statements["ReadTeamMlflowCredentials"]
        assert read["Action"] == ["secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue"]
        own = "Team" + "".join(p.capitalize() for p in team.name.split("-")) + "CredentialsSecret"
        assert f"{synth.config.stack_prefix}-Mlflow" in json.dumps(read["Resource"]) and own in json.dumps(
            read["Resource"]
        )
        others = [
            "Team" + "".join(p.capitalize() for p in t.name.split("-")) + "CredentialsSecret"
            for t in synth.config.kubernetes.teams
            if t.name != team.name
        ]
        assert not [o for o in others if o in json.dumps(policy)]
        key = statements["MlflowSecretKeyThroughSecretsManager"]["Condition"]["StringEquals"]
        assert key["kms:EncryptionContext:SecretARN"] == read["Resource"]
