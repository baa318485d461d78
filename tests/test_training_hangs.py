"""The training-hang metric (issue 44): the line a hung rank really prints (training/llm_platform/preemption.py, run
here on a stalled process) is fed, as the JSON event Fluent Bit writes to the application log group, to the metric
filter pattern CloudFormation receives, evaluated with CloudWatch's documented JSON-pattern semantics
(tests/cw_filter_pattern.py). So the marker and the pattern cannot drift apart, and one team's hang never counts for
another. The alarms per team are checked on every environment's synthesis in tests/test_observability.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from aws_cdk import App, Stack
from aws_cdk import aws_logs as logs
from aws_cdk.assertions import Template

from cdk_constructs.observability.documented_metrics import TRAINING_HANGS, job_logs_namespace
from cdk_constructs.observability.training_hangs import hang_metric_filter
from config import load_config

from .conftest import ROOT
from .cw_filter_pattern import extract, matches

pytestmark = pytest.mark.synth  # synthesizes a CDK stack

# The watchdog as a training step runs it (floor 1 s instead of 900 s), on a process whose "collective" never returns
STALLING = textwrap.dedent(
    """
    import time
    from llm_platform.preemption import Watchdog
    dog = Watchdog(factor=5, floor_seconds=1.0, warmup_steps=2, poll_seconds=0.05)
    dog.start()
    for _ in range(4):
        time.sleep(0.05)
        dog.stepped()
    time.sleep(60)
    """
)
EXIT_HUNG = 142  # llm_platform.preemption.EXIT_HUNG


@pytest.fixture(scope="module")
def hung_stderr() -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "training"), "RANK": "2"}
    proc = subprocess.run(
        [sys.executable, "-c", STALLING], capture_output=True, text=True, timeout=50, env=env, check=False
    )
    assert proc.returncode == EXIT_HUNG, proc.stderr
    return proc.stderr.splitlines()


def fluent_bit_event(line: str, namespace: str) -> str:
    """One container log line as Fluent Bit's cloudwatch_logs output sends it (chart 6.4.0 application-log.conf:
    the cri parser's ``log``/``stream``/``_p``, the kubernetes filter's ``kubernetes`` map; Labels/Annotations off)."""
    return json.dumps(
        {
            "time": "2026-11-28T13:00:00.000000000Z",
            "stream": "stderr",
            "_p": "F",
            "log": line,
            "kubernetes": {
                "pod_name": "medical-sft-worker-0",
                "namespace_name": namespace,
                "pod_id": "0b7c7d8e-0000-4000-8000-000000000000",
                "host": "hyperpod-i-0abc",
                "container_name": "pytorch",
                "docker_id": "d" * 64,
                "container_hash": "sha256:" + "e" * 64,
                "container_image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/llmft-dev/sft:1.0-abc",
            },
        }
    )


@pytest.fixture(scope="module")
def filters() -> dict[str, dict]:
    """The synthesized AWS::Logs::MetricFilter of each dev team, by namespace."""
    config = load_config("dev")
    stack = Stack(App(), "Hangs")
    group = logs.LogGroup(stack, "Application", log_group_name=f"/aws/containerinsights/{config.cluster_name}/app")
    for team in config.kubernetes.teams:
        hang_metric_filter(
            stack, f"F-{team.namespace}", log_group=group, cluster_name=config.cluster_name, namespace=team.namespace
        )
    found = Template.from_stack(stack).find_resources("AWS::Logs::MetricFilter")
    by_ns = {}
    for props in (r["Properties"] for r in found.values()):
        (transformation,) = props["MetricTransformations"]
        (dimension,) = transformation["Dimensions"]
        ns = next(t.namespace for t in config.kubernetes.teams if f'"{t.namespace}"' in props["FilterPattern"])
        by_ns[ns] = {**props, "transformation": transformation, "dimension": dimension, "cluster": config.cluster_name}
    assert set(by_ns) == {t.namespace for t in config.kubernetes.teams}
    return by_ns


def test_the_hung_ranks_line_counts_once_for_its_own_team_only(hung_stderr: list[str], filters: dict) -> None:
    assert len(filters) >= 2, "dev needs two teams for the cross-team check"
    for ns, f in filters.items():
        mine = [line for line in hung_stderr if matches(f["FilterPattern"], fluent_bit_event(line, ns))]
        assert len(mine) == 1, (ns, mine)  # the hang line; not the stacks, not the exit line
        assert "rank 2: no optimizer step for" in mine[0]
        for other in (o for o in filters if o != ns):
            assert not any(matches(f["FilterPattern"], fluent_bit_event(line, other)) for line in hung_stderr)


def test_the_line_counts_with_the_docker_parsers_newline_too(hung_stderr: list[str], filters: dict) -> None:
    """The docker (json-file) parser keeps the line's newline in ``log``: the trailing wildcard covers it."""
    ns, f = next(iter(filters.items()))
    assert sum(matches(f["FilterPattern"], fluent_bit_event(line + "\n", ns)) for line in hung_stderr) == 1


def test_other_step_lines_are_not_hangs(filters: dict) -> None:
    ns, f = next(iter(filters.items()))
    for line in (
        "llmp-preemption: SIGTERM: finishing this optimizer step, then saving a checkpoint",
        "{'loss': 1.2, 'grad_norm': 0.4, 'learning_rate': 0.0001, 'epoch': 0.1}",
        "llmp-sft: packed 17,734 examples into 8,120 rows",
        "see llmp-hang: in the docs",  # the marker not at the start
    ):
        assert not matches(f["FilterPattern"], fluent_bit_event(line, ns)), line
    assert not matches(f["FilterPattern"], "llmp-hang: rank 0: not JSON")  # only Fluent Bit's JSON events count


def test_the_metric_is_the_alarms_metric_of_the_team(hung_stderr: list[str], filters: dict) -> None:
    """1 per line, in the cluster's namespace, with the dimension the per-team alarm reads (the event's namespace)."""
    for ns, f in filters.items():
        t = f["transformation"]
        assert (t["MetricNamespace"], t["MetricName"], t["MetricValue"]) == (
            job_logs_namespace(f["cluster"]),
            TRAINING_HANGS,
            "1",
        )
        assert "DefaultValue" not in t  # no hang, no data point: the alarm treats missing data as OK
        assert f["dimension"]["Key"] == "Namespace"
        hang = next(line for line in hung_stderr if matches(f["FilterPattern"], fluent_bit_event(line, ns)))
        assert extract(fluent_bit_event(hang, ns), f["dimension"]["Value"]) == ns


@pytest.mark.parametrize(
    "pattern,expected",
    [  # the examples of the CloudWatch Logs User Guide, "Filter and pattern syntax" (JSON metric filter examples)
        ('{ $.eventType = "UpdateTrail" }', True),
        ("{ $.sourceIPAddress != 123.123.* }", True),
        ("{ $.sourceIPAddress = 111.111.* }", True),
        ("{ $.eventType = *Trail }", True),
        ("{ $.eventType = Up*ail }", False),  # a wildcard inside the term is a literal
        ("{ $.arrayKey = value }", False),  # an array is not a value node
        ('{ ($.user.id = 1) && ($.users = "x") }', False),
        ('{ $.user.email = "John.Stiles@example.com" || $.eventType = nomatch && $.user.id = 2 }', True),
        ('{ ($.user.email = "John.Stiles@example.com" || $.eventType = nomatch) && $.user.id = 2 }', False),
    ],
)
def test_the_evaluator_follows_the_documented_examples(pattern: str, expected: bool) -> None:
    event = json.dumps(
        {
            "eventType": "UpdateTrail",
            "sourceIPAddress": "111.111.111.111",
            "arrayKey": ["value", "another value"],
            "user": {"id": 1, "email": "John.Stiles@example.com"},
        }
    )
    assert matches(pattern, event) is expected
