"""Pre-deploy check run by `make deploy`: refuses to deploy when the SageMaker HyperPod task governance add-on is
installed on the environment's EKS cluster.

Why: the add-on ``amazon-sagemaker-hyperpod-taskgovernance`` packages its own Kueue (v1.6.0-eksbuild.1: Kueue v0.19.2;
SageMaker Developer Guide, "Upgrade the task governance add-on") in ``kueue-system`` - the namespace, CRDs and
webhooks this platform's Kueue release owns (cdk_constructs/compute/kueue.py). Two owners of one controller overwrite
each other's configuration on every deploy or add-on update. docs/deploying.md "Deploying an environment" says how to
choose.

Only read calls (``eks:ListAddons``); a cluster that does not exist yet (first deploy) passes. Usage:
``python -m tools.predeploy --env dev``; exit 0 = go, 1 = refused (message names the add-on and the fix),
2 = the check could not run (credentials, permissions, network).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

TASK_GOVERNANCE_ADDON = "amazon-sagemaker-hyperpod-taskgovernance"


class Refused(Exception):
    """The deploy must not run."""


def installed_addons(eks: Any, cluster_name: str) -> list[str] | None:
    """The add-ons of ``cluster_name`` (every page), or None if the cluster does not exist."""
    names: list[str] = []
    token: str | None = None
    while True:
        kwargs = {"clusterName": cluster_name, **({"nextToken": token} if token else {})}
        try:
            page = eks.list_addons(**kwargs)
        except eks.exceptions.ResourceNotFoundException:
            return None
        names += page.get("addons", [])
        token = page.get("nextToken")
        if not token:
            return names


def check(eks: Any, cluster_name: str) -> str:
    """Raises :class:`Refused` if the task governance add-on is on the cluster; else returns what was checked."""
    addons = installed_addons(eks, cluster_name)
    if addons is None:
        return f"EKS cluster {cluster_name} does not exist yet: nothing installed on it"
    if TASK_GOVERNANCE_ADDON in addons:
        raise Refused(
            f"EKS cluster {cluster_name} has the add-on {TASK_GOVERNANCE_ADDON} (SageMaker HyperPod task governance), "
            f"which installs its own Kueue in kueue-system, where this platform's Kueue release lives. Deploying "
            f"would fight over the same controller. Either remove the add-on (aws eks delete-addon --cluster-name "
            f"{cluster_name} --addon-name {TASK_GOVERNANCE_ADDON}) and keep the platform's Kueue, or keep task "
            f'governance and remove the platform\'s Kueue first (docs/deploying.md "Deploying an environment").'
        )
    return f"EKS cluster {cluster_name}: {len(addons)} add-on(s), no {TASK_GOVERNANCE_ADDON}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", required=True, help="environment name (config/<env>.yaml)")
    args = parser.parse_args(argv)

    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    from config import load_config

    config = load_config(args.env)
    eks = boto3.client("eks", region_name=config.region)
    try:
        print(f"pre-deploy: {check(eks, config.cluster_name)}")
    except Refused as exc:
        print(f"pre-deploy: refused: {exc}", file=sys.stderr)
        return 1
    except (BotoCoreError, ClientError) as exc:
        print(
            f"pre-deploy: could not list the add-ons of {config.cluster_name} in {config.region} ({exc}); the "
            f"deploy needs eks:ListAddons and credentials for account {config.account}",
            file=sys.stderr,
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
