"""tests/cel.py keeps cel-python's results: its two shortcuts checked against the installed cel-python and against
the tree as cel-python parses it, on the platform's own policies and objects."""

from __future__ import annotations

import copy
import inspect
from typing import Any

import pytest

from . import guardrail_eval
from .cel import CAST_ONLY_ALIASES, cast_only_alias_uses, program
from .test_team_guardrails import examples, ns_labels, team_manifests


def test_the_aliases_replaced_are_only_ever_cast_types_in_the_installed_cel_python() -> None:
    import celpy.evaluation

    assert cast_only_alias_uses(inspect.getsource(celpy.evaluation)) == [], (
        "celpy.evaluation uses a typing alias tests/cel.py replaces otherwise than as a cast's type: take it out of "
        "CAST_ONLY_ALIASES"
    )
    assert set(CAST_ONLY_ALIASES) <= set(vars(celpy.evaluation))


def test_the_alias_check_sees_what_would_make_the_replacement_unsound() -> None:
    source = "def f(x):\n    y = cast(Union[int, str], x)\n    return isinstance(y, List) or Tuple\n"
    assert cast_only_alias_uses(source) == ["line 3: List in isinstance()", "line 3: bare List", "line 3: bare Tuple"]


def test_collapsed_trees_give_the_parsed_trees_values_on_hand_written_expressions() -> None:
    import celpy

    activation = {"object": celpy.json_to_cel({"a": {"b": [1, 2, 3]}, "s": "x-y", "m": {"k": "v"}})}
    for expression in (
        "object.a.b.all(i, i > 0) && size(object.a.b) == 3",
        "has(object.a.c) ? 1 : -(2 * 3 + 4 % 3)",
        "!(object.s.startsWith('x') || object.s in ['a']) && object.m.exists(k, object.m[k] == 'v')",
        "object.a.b.map(i, i * 2).filter(i, i > 2)[0] == 4",
        "object.missing.field == 1",
    ):
        collapsed, parsed = (_outcome(program(expression, collapse=c), activation) for c in (True, False))
        assert collapsed == parsed, expression


def _outcome(prog: Any, activation: dict[str, Any]) -> tuple[str, str]:
    try:
        value = prog.evaluate(activation)
    except Exception as exc:  # noqa: BLE001 - an evaluation error is an outcome to compare
        return ("error", type(exc).__name__)
    return ("error", type(value).__name__) if isinstance(value, Exception) else (type(value).__name__, repr(value))


class _BothWays:
    """A program that evaluates ``expression`` collapsed and as parsed, records a difference, returns the former."""

    def __init__(self, expression: str, seen: list[str], differences: list[str]) -> None:
        self.expression, self.seen, self.differences = expression, seen, differences

    def evaluate(self, activation: dict[str, Any]) -> Any:
        collapsed, parsed = (_outcome(program(self.expression, collapse=c), activation) for c in (True, False))
        self.seen.append(self.expression)
        if collapsed != parsed:
            self.differences.append(f"{self.expression}: {collapsed} != {parsed}")
        return program(self.expression).evaluate(activation)


def _variants(job: dict[str, Any]) -> list[dict[str, Any]]:
    """The example job as rendered, and one with what the guard rails refuse (no queue label, a privileged
    container with a hostPath volume), so both branches of the rules run."""
    bad = copy.deepcopy(job)
    bad["metadata"]["labels"] = {}
    for spec in _pod_specs(bad):
        spec["containers"][0]["securityContext"] = {"privileged": True}
        spec.setdefault("volumes", []).append({"name": "host", "hostPath": {"path": "/"}})
    return [job, bad]


def _pod_specs(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """Every pod spec inside a rendered job (PyTorchJob replica specs, RayJob head and worker groups, Job)."""
    found = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "containers" in node:
                found.append(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(obj)
    return found


@pytest.mark.synth  # renders the environment's manifests through cdk8s (docs/testing.md "Tiers")
def test_every_policy_expression_evaluates_alike_collapsed_and_as_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    differences: list[str] = []
    monkeypatch.setattr(guardrail_eval, "program", lambda expression: _BothWays(expression, seen, differences))
    env = "dev"
    manifests = team_manifests(env)
    for job in examples(env):
        labels = ns_labels(env, job["metadata"]["namespace"])
        for obj in _variants(job):
            guardrail_eval.admission_refusals(manifests, obj, labels)
            guardrail_eval.admission_refusals(manifests, obj, labels, operation="UPDATE", old=obj)
    policies = [d for d in manifests if d["kind"] == "ValidatingAdmissionPolicy"]
    assert len(set(seen)) >= len(policies), "the policies' expressions were evaluated"
    assert differences == []
