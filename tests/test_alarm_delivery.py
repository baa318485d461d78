"""Every alarm of `<Env>-Observability` reaches the SNS topic: the synthesized topic policy and topic key policy are
evaluated for the request CloudWatch makes when an alarm fires (principal ``cloudwatch.amazonaws.com``, action
``sns:Publish``, context keys ``aws:SourceAccount`` / ``aws:SourceArn`` = the alarm's ARN, TLS), not string-matched.

How AWS evaluates a resource policy for a same-account service request (IAM User Guide, "Policy evaluation logic"):
an explicit Deny in any matching statement wins; otherwise the request is allowed if some Allow statement matches
(principal, action, resource and every condition). Condition operators used here follow "IAM JSON policy elements:
Condition operators": ``StringEquals`` (exact, case-sensitive), ``StringLike``/``ArnLike`` (``*`` and ``?``
wildcards; ArnLike per ARN component), ``Bool``. A condition key missing from the request fails every operator
except ``...IfExists``/``Null`` (none used here). The evaluator refuses any operator it does not implement, so a
policy change cannot silently pass.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import Synth

STACK = "observability"
CLOUDWATCH = "cloudwatch.amazonaws.com"
EVENTS = "events.amazonaws.com"


# ---- a small evaluator of the CloudFormation-rendered policies ---------------------------------------------------


def resolve(value: Any, synth: Synth, stack: str = STACK) -> Any:
    """Intrinsic functions of a synthesized template resolved to strings: pseudo parameters from the stack's
    environment, ``Ref`` of the topic to its ARN, ``Fn::Join``; anything else raises (the test would not know
    what it evaluates)."""
    cfg = synth.config
    template = synth.templates[stack]
    if isinstance(value, list):
        return [resolve(v, synth, stack) for v in value]
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        ((fn, arg),) = value.items()
        if fn == "Ref":
            pseudo = {
                "AWS::AccountId": cfg.account,
                "AWS::Region": cfg.region,
                "AWS::Partition": "aws",
                "AWS::URLSuffix": "amazonaws.com",
            }
            if arg in pseudo:
                return pseudo[arg]
            res = template["Resources"][arg]
            if res["Type"] == "AWS::SNS::Topic":
                return f"arn:aws:sns:{cfg.region}:{cfg.account}:{res['Properties']['TopicName']}"
            if res["Type"] == "AWS::KMS::Key":
                return f"arn:aws:kms:{cfg.region}:{cfg.account}:key/{arg}"
        if fn == "Fn::GetAtt" and template["Resources"][arg[0]]["Type"] == "AWS::KMS::Key" and arg[1] == "Arn":
            return f"arn:aws:kms:{cfg.region}:{cfg.account}:key/{arg[0]}"
        if fn == "Fn::Join":
            sep, parts = arg
            return sep.join(resolve(p, synth, stack) for p in parts)
    raise AssertionError(f"cannot resolve {value!r}")


def _wild(pattern: str, value: str, *, case: bool = True) -> bool:
    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, value, 0 if case else re.IGNORECASE) is not None


def _arn_like(pattern: str, value: str) -> bool:
    """ArnLike: the six colon-separated components match one by one (the last may hold colons)."""
    p, v = pattern.split(":", 5), value.split(":", 5)
    return len(p) == len(v) == 6 and all(_wild(a, b) for a, b in zip(p, v, strict=True))


_OPERATORS = {
    "StringEquals": lambda want, got: got == want,
    "StringLike": lambda want, got: _wild(want, got),
    "ArnLike": _arn_like,
    "ArnEquals": lambda want, got: got == want,
    "Bool": lambda want, got: got.lower() == str(want).lower(),
}


def condition_holds(condition: dict[str, dict[str, Any]], context: dict[str, str]) -> bool:
    for operator, keys in condition.items():
        assert operator in _OPERATORS, f"the evaluator does not implement condition operator {operator}"
        for key, wanted in keys.items():
            got = next((v for k, v in context.items() if k.lower() == key.lower()), None)
            wanted = wanted if isinstance(wanted, list) else [wanted]
            if got is None or not any(_OPERATORS[operator](w, got) for w in wanted):
                return False
    return True


def statement_matches(
    stmt: dict[str, Any], *, service: str, action: str, resource: str, context: dict[str, str]
) -> bool:
    principal = stmt["Principal"]
    if principal != "*" and principal != {"AWS": "*"}:
        services = principal.get("Service", [])
        if service not in (services if isinstance(services, list) else [services]):
            return False
    actions = stmt["Action"] if isinstance(stmt["Action"], list) else [stmt["Action"]]
    if not any(_wild(a, action, case=False) for a in actions):
        return False
    resources = stmt["Resource"] if isinstance(stmt["Resource"], list) else [stmt["Resource"]]
    if not any(_wild(r, resource) for r in resources):
        return False
    return condition_holds(stmt.get("Condition", {}), context)


def decide(statements: list[dict[str, Any]], **request: Any) -> str:
    """ "Deny" (explicit), "Allow", or "ImplicitDeny"."""
    matching = [s for s in statements if statement_matches(s, **request)]
    if any(s["Effect"] == "Deny" for s in matching):
        return "Deny"
    return "Allow" if any(s["Effect"] == "Allow" for s in matching) else "ImplicitDeny"


# ---- what the templates say ---------------------------------------------------------------------------------------


def topic_and_policy(synth: Synth) -> tuple[str, str, list[dict[str, Any]]]:
    (topic_id,) = synth.resources(STACK, "AWS::SNS::Topic")
    (policy,) = synth.resources(STACK, "AWS::SNS::TopicPolicy").values()
    assert policy["Properties"]["Topics"] == [{"Ref": topic_id}]
    statements = resolve_statements(policy["Properties"]["PolicyDocument"]["Statement"], synth)
    return topic_id, resolve({"Ref": topic_id}, synth), statements


def resolve_statements(statements: list[dict[str, Any]], synth: Synth) -> list[dict[str, Any]]:
    out = []
    for s in statements:
        s = dict(s)
        s["Resource"] = resolve(s["Resource"], synth)
        if "Condition" in s:
            s["Condition"] = {
                op: {k: resolve(v, synth) for k, v in keys.items()} for op, keys in s["Condition"].items()
            }
        out.append(s)
    return out


def alarm_arn(synth: Synth, name: str, account: str | None = None) -> str:
    cfg = synth.config
    return f"arn:aws:cloudwatch:{cfg.region}:{account or cfg.account}:alarm:{name}"


def alarm_publish(
    synth: Synth, topic_arn: str, source_arn: str, *, account: str | None = None, secure: bool = True
) -> dict[str, Any]:
    return dict(
        service=CLOUDWATCH,
        action="sns:Publish",
        resource=topic_arn,
        context={
            "aws:SourceAccount": account or synth.config.account,
            "aws:SourceArn": source_arn,
            "aws:SecureTransport": str(secure).lower(),
        },
    )


def synthesized_alarms(synth: Synth) -> dict[str, dict[str, Any]]:
    return {
        r["Properties"]["AlarmName"]: r["Properties"] for r in synth.resources(STACK, "AWS::CloudWatch::Alarm").values()
    }


# ---- the tests ------------------------------------------------------------------------------------------------------


def test_every_alarm_can_publish_to_the_topic(env_synth: Synth) -> None:
    """Each synthesized alarm names the topic as its action, and the topic policy lets CloudWatch publish for that
    alarm's ARN; the topic key lets CloudWatch encrypt the message (SNS Developer Guide, "Enable compatibility
    between event sources from AWS services and encrypted topics")."""
    topic_id, topic_arn, statements = topic_and_policy(env_synth)
    found = synthesized_alarms(env_synth)
    assert len(found) >= 9
    (key_id,) = [
        k
        for k, v in env_synth.resources(STACK, "AWS::KMS::Key").items()
        if v["Properties"].get("Description", "").endswith("alarm topic (SNS)")
    ]
    assert env_synth.templates[STACK]["Resources"][topic_id]["Properties"]["KmsMasterKeyId"] in (
        {"Fn::GetAtt": [key_id, "Arn"]},
        {"Ref": key_id},
    )
    key_statements = resolve_statements(
        env_synth.templates[STACK]["Resources"][key_id]["Properties"]["KeyPolicy"]["Statement"], env_synth
    )
    key_arn = resolve({"Fn::GetAtt": [key_id, "Arn"]}, env_synth)
    for name, props in found.items():
        assert {"Ref": topic_id} in props["AlarmActions"], name
        request = alarm_publish(env_synth, topic_arn, alarm_arn(env_synth, name))
        assert decide(statements, **request) == "Allow", f"{name} cannot publish to the alarm topic"
        for action in ("kms:GenerateDataKey", "kms:Decrypt"):
            kms_request = dict(request, action=action, resource=key_arn)
            assert decide(key_statements, **kms_request) == "Allow", f"{name}: {action} on the topic key"


def test_topic_policy_refuses_other_alarms_and_plain_http(env_synth: Synth) -> None:
    """The controls: the same evaluator denies an alarm of another environment (name outside the prefix), an alarm
    of another account, and a publish without TLS - so the test above really exercises the conditions."""
    _, topic_arn, statements = topic_and_policy(env_synth)
    name = next(iter(synthesized_alarms(env_synth)))
    other_env = alarm_arn(env_synth, "llmft-other-FsxFreeCapacityLow")
    assert decide(statements, **alarm_publish(env_synth, topic_arn, other_env)) == "ImplicitDeny"
    foreign = alarm_arn(env_synth, name, account="210987654321")
    assert decide(statements, **alarm_publish(env_synth, topic_arn, foreign, account="210987654321")) == "ImplicitDeny"
    assert decide(statements, **alarm_publish(env_synth, topic_arn, alarm_arn(env_synth, name), secure=False)) == "Deny"


def test_eventbridge_rule_still_reaches_the_topic(env_synth: Synth) -> None:
    """The HyperPod instance-events rule targets the topic directly; the statement CloudWatch needed must not cost
    EventBridge its own."""
    _, topic_arn, statements = topic_and_policy(env_synth)
    rules = [
        r
        for r in env_synth.resources(STACK, "AWS::Events::Rule").values()
        if any(
            t["Arn"] == {"Ref": next(iter(env_synth.resources(STACK, "AWS::SNS::Topic")))}
            for t in r["Properties"].get("Targets", [])
        )
    ]
    assert rules, "the HyperPod events rule targets the topic"
    cfg = env_synth.config
    request = dict(
        service=EVENTS,
        action="sns:Publish",
        resource=topic_arn,
        context={
            "aws:SourceAccount": cfg.account,
            "aws:SecureTransport": "true",
            "aws:SourceArn": f"arn:aws:events:{cfg.region}:{cfg.account}:rule/x",
        },
    )
    assert decide(statements, **request) == "Allow"


@pytest.mark.parametrize(
    "pattern,value,expected",
    [
        ("arn:aws:cloudwatch:eu-west-1:1:alarm:llmft-dev-*", "arn:aws:cloudwatch:eu-west-1:1:alarm:llmft-dev-A", True),
        ("arn:aws:cloudwatch:eu-west-1:1:alarm:llmft-dev-*", "arn:aws:cloudwatch:eu-west-1:2:alarm:llmft-dev-A", False),
        ("arn:aws:cloudwatch:*:1:alarm:*", "arn:aws:cloudwatch:us-east-1:1:alarm:x", True),
        (
            "arn:aws:cloudwatch:eu-west-1:1:alarm:llmft-dev-*",
            "arn:aws:cloudwatch:eu-west-1:1:alarm:llmft-prod-A",
            False,
        ),
    ],
)
def test_arn_like_matches_component_wise(pattern: str, value: str, expected: bool) -> None:
    assert _arn_like(pattern, value) is expected
