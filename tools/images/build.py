"""Start the platform image builds in AWS CodeBuild and report their status.

    python -m tools.images.build --env dev [--image sft] [--no-wait]     (`make images ENV=dev [IMAGES=sft]`)

Needs AWS credentials for the environment's account (nothing else does). For each image it checks that the
deployed CodeBuild project builds the tag this checkout computes (else the deployed stack is older or newer than
the checkout: `make deploy` first), skips an image whose tag is already in ECR (tags are immutable), waits for a
build of the project that is still running (a retried pipeline step; the projects run one build at a time), starts the
others and, unless ``--no-wait``, polls until every build has finished, printing each phase change.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from config import EnvironmentConfig, load_config
from k8s_charts.images import IMAGE_NAMES, build_project_name, image_tag, image_uri, repository_name

FINAL = {"SUCCEEDED", "FAILED", "FAULT", "TIMED_OUT", "STOPPED"}


@dataclass
class Outcome:
    image: str
    status: str  # UP_TO_DATE, STALE_PROJECT, SUCCEEDED, FAILED, ...
    detail: str = ""
    build_id: str | None = None


def _project_tag(codebuild, project: str) -> str | None:
    projects = codebuild.batch_get_projects(names=[project])["projects"]
    if not projects:
        return None
    variables = projects[0]["environment"].get("environmentVariables", [])
    return next((v["value"] for v in variables if v["name"] == "IMAGE_TAG"), None)


def _tag_exists(ecr, repository: str, tag: str) -> bool:
    try:
        ecr.describe_images(repositoryName=repository, imageIds=[{"imageTag": tag}])
        return True
    except ecr.exceptions.ImageNotFoundException:
        return False


def _running_build(codebuild, project: str) -> str | None:
    """The ID of the project's newest build if it is still running."""
    ids = codebuild.list_builds_for_project(projectName=project, sortOrder="DESCENDING").get("ids", [])[:1]
    if not ids:
        return None
    (build,) = codebuild.batch_get_builds(ids=ids)["builds"]
    return build["id"] if build["buildStatus"] == "IN_PROGRESS" else None


def start(
    config: EnvironmentConfig, images: Sequence[str], *, codebuild, ecr, log: Callable[[str], None] = print
) -> list[Outcome]:
    """Start the builds that are needed; returns one outcome per image (build_id set for started builds)."""
    outcomes = []
    for name in images:
        project, tag = build_project_name(config, name), image_tag(name)
        deployed = _project_tag(codebuild, project)
        if deployed is None:
            outcomes.append(
                Outcome(
                    name,
                    "NO_PROJECT",
                    f"CodeBuild project {project} does not exist: run `make deploy ENV={config.name}` first",
                )
            )
        elif deployed != tag:
            outcomes.append(
                Outcome(
                    name,
                    "STALE_PROJECT",
                    f"{project} builds {deployed} but this checkout is {tag}: "
                    f"run `make deploy ENV={config.name}` to upload it",
                )
            )
        elif _tag_exists(ecr, repository_name(config, name), tag):
            outcomes.append(Outcome(name, "UP_TO_DATE", image_uri(config, name)))
        elif running := _running_build(codebuild, project):
            # a retried step finds the build it started still running: the project admits one build at a time
            # (ConcurrentBuildLimit 1) and builds the same tag, so wait for that one instead of starting another
            outcomes.append(Outcome(name, "IN_PROGRESS", image_uri(config, name), running))
            log(f"{name}: waiting for the running {running}")
        else:
            build = codebuild.start_build(projectName=project)["build"]
            outcomes.append(
                Outcome(name, build.get("buildStatus", "IN_PROGRESS"), image_uri(config, name), build["id"])
            )
            log(f"{name}: started {build['id']}")
    return outcomes


def wait(
    outcomes: list[Outcome],
    *,
    codebuild,
    poll_seconds: float = 30.0,
    sleep: Callable[[float], None] = time.sleep,
    log: Callable[[str], None] = print,
) -> list[Outcome]:
    """Poll the started builds until each is final, logging phase changes."""
    phases: dict[str, str] = {}
    running = [o for o in outcomes if o.build_id and o.status not in FINAL]
    while running:
        builds = codebuild.batch_get_builds(ids=[o.build_id for o in running])["builds"]
        by_id = {b["id"]: b for b in builds}
        for outcome in running:
            build = by_id[outcome.build_id]
            phase = build.get("currentPhase", "")
            if phases.get(outcome.build_id) != phase:
                phases[outcome.build_id] = phase
                log(f"{outcome.image}: {phase}")
            outcome.status = build["buildStatus"]
            if outcome.status in FINAL and outcome.status != "SUCCEEDED":
                failed = [p for p in build.get("phases", []) if p.get("phaseStatus") not in (None, "SUCCEEDED")]
                logs_link = build.get("logs", {}).get("deepLink", "")
                outcome.detail = (
                    f"{failed[0]['phaseType']} {failed[0]['phaseStatus']}: " if failed else ""
                ) + logs_link
        running = [o for o in running if o.status not in FINAL]
        if running:
            sleep(poll_seconds)
    return outcomes


def report(outcomes: list[Outcome]) -> str:
    width = max(len(o.image) for o in outcomes)
    return "\n".join(f"{o.image:<{width}}  {o.status:<13}  {o.detail}" for o in outcomes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.images.build", description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="dev")
    parser.add_argument("--image", action="append", choices=IMAGE_NAMES, help="default: every image")
    parser.add_argument("--no-wait", action="store_true", help="start the builds and return")
    args = parser.parse_args(argv)
    config = load_config(args.env)
    import boto3  # only here: nothing else in the repository talks to AWS

    session = boto3.Session(region_name=config.region)
    account = session.client("sts").get_caller_identity()["Account"]
    if account != config.account:
        print(
            f"credentials are for account {account}, config/{args.env}.yaml deploys to {config.account}",
            file=sys.stderr,
        )
        return 2
    codebuild, ecr = session.client("codebuild"), session.client("ecr")
    outcomes = start(config, args.image or IMAGE_NAMES, codebuild=codebuild, ecr=ecr)
    if not args.no_wait:
        outcomes = wait(outcomes, codebuild=codebuild)
    print(report(outcomes))
    return 0 if all(o.status in ("UP_TO_DATE", "SUCCEEDED", "IN_PROGRESS") for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
