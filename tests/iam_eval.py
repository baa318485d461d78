"""An evaluator of IAM identity policies for one request (action, resource ARN, condition context), used by
tests/test_execution_policy.py to run the generated execution policies and boundary against what CloudFormation's
handlers and an attacker would request.

Semantics followed (IAM User Guide, "Policy evaluation logic" and "IAM JSON policy elements"): an explicit Deny in
any statement wins, else an Allow in some statement allows, else the request is implicitly denied. ``Action`` and
``NotAction`` match case-insensitively with ``*``/``?`` wildcards, ``Resource``/``NotResource`` case-sensitively;
every operator of a ``Condition`` must hold, one value of a list sufficing; a key absent from the request makes a
positive operator false and a negated one (``StringNotEquals``, ``ArnNotLike``, ...) true; ``Null`` tests presence.
Operators this file does not know raise, so a policy cannot pass by an unread condition.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable
from typing import Any


@functools.lru_cache(maxsize=None)
def _compiled(pattern: str, case: bool) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(pattern), 0 if case else re.IGNORECASE)


def _glob(pattern: str, value: str, *, case: bool) -> bool:
    return _compiled(pattern, case).match(value) is not None


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _operator_holds(operator: str, values: list[Any], actual: Any) -> bool:
    negated = "Not" in operator
    base = operator.replace("Not", "")
    if operator == "Null":
        return (actual is None) == (str(values[0]).lower() == "true")
    if actual is None:
        return negated
    actuals = [str(a) for a in _listed(actual)]
    if base in ("StringEquals", "ArnEquals"):
        hit = any(a == str(v) for a in actuals for v in values)
    elif base in ("StringLike", "ArnLike"):
        hit = any(_glob(str(v), a, case=True) for a in actuals for v in values)
    elif base == "StringEqualsIgnoreCase":
        hit = any(a.lower() == str(v).lower() for a in actuals for v in values)
    else:
        raise ValueError(f"condition operator {operator} is not evaluated by tests/iam_eval.py")
    return not hit if negated else hit


def conditions_hold(condition: dict[str, Any], context: dict[str, Any]) -> bool:
    for operator, keys in condition.items():
        for key, values in keys.items():
            if not _operator_holds(operator, _listed(values), context.get(key)):
                return False
    return True


def statement_applies(statement: dict[str, Any], action: str, resource: str, context: dict[str, Any]) -> bool:
    if "Action" in statement:
        if not any(_glob(a, action, case=False) for a in _listed(statement["Action"])):
            return False
    elif any(_glob(a, action, case=False) for a in _listed(statement["NotAction"])):
        return False
    if "Resource" in statement:
        if not any(_glob(r, resource, case=True) for r in _listed(statement["Resource"])):
            return False
    elif any(_glob(r, resource, case=True) for r in _listed(statement["NotResource"])):
        return False
    return conditions_hold(statement.get("Condition", {}), context)


def decide(
    documents: Iterable[dict[str, Any]], action: str, resource: str, context: dict[str, Any] | None = None
) -> tuple[str, str | None]:
    """("Allow" | "Deny" | "ImplicitDeny", the Sid of the deciding statement)."""
    context = context or {}
    allowed_by = None
    for document in documents:
        for statement in document["Statement"]:
            if not statement_applies(statement, action, resource, context):
                continue
            if statement["Effect"] == "Deny":
                return "Deny", statement.get("Sid")
            allowed_by = allowed_by or statement.get("Sid", "?")
    return ("Allow", allowed_by) if allowed_by else ("ImplicitDeny", None)
