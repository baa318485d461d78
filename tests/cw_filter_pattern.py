"""CloudWatch Logs JSON filter patterns, evaluated on a log event: the subset the platform's metric filters use, with
the semantics of the CloudWatch Logs User Guide, "Filter and pattern syntax", "Matching JSON terms using metric
filters" (awsdocs/amazon-cloudwatch-logs-user-guide doc_source/FilterAndPatternSyntax.md):

- ``{ SELECTOR = STRING }`` / ``!=``: the selector (``$.a.b``) must point to a value node (string or number); an
  object, an array or a missing field never matches (either operator);
- STRING quoted or not; ``*`` matches any text at the start or the end ("``*Event`` will match PutEvent ...,
  ``Event*`` will match EventId ..., ``Ev*ent`` will only match the actual string Ev*ent");
- ``&&`` binds tighter than ``||``; parentheses group.

Anything else (arrays in selectors, numeric comparisons, IS NULL, EXISTS, regular expressions, term and
space-delimited patterns) raises ValueError, so a pattern that grows beyond the subset fails its test instead of being
evaluated wrongly."""

from __future__ import annotations

import json
import re
from typing import Any

TOKEN = re.compile(r'\s*(\(|\)|&&|\|\||!=|=|"(?:[^"\\]|\\.)*"|\$(?:\.[A-Za-z0-9_-]+)+|[^\s()=!&|"]+)')


def _tokens(body: str) -> list[str]:
    out, pos = [], 0
    while pos < len(body.rstrip()):
        match = TOKEN.match(body, pos)
        if not match:
            raise ValueError(f"unsupported filter pattern syntax at {body[pos:]!r}")
        out.append(match.group(1))
        pos = match.end()
    return out


def _value_matches(actual: Any, wanted: str) -> bool:
    if isinstance(actual, bool) or not isinstance(actual, (str, int, float)):
        return False  # not a value node (object, array, null, boolean)
    text = str(actual)
    starts, ends = wanted.endswith("*") and len(wanted) > 1, wanted.startswith("*") and len(wanted) > 1
    core = wanted[1 if ends else 0 : -1 if starts else None]
    if starts and ends:
        return core in text
    if starts:
        return text.startswith(core)
    if ends:
        return text.endswith(core)
    return text == wanted


def _select(event: Any, selector: str) -> tuple[bool, Any]:
    node = event
    for part in selector.split(".")[1:]:
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


class _Parser:
    def __init__(self, tokens: list[str], event: Any) -> None:
        self.tokens, self.pos, self.event = tokens, 0, event

    def _next(self) -> str:
        if self.pos >= len(self.tokens):
            raise ValueError("filter pattern ends early")
        self.pos += 1
        return self.tokens[self.pos - 1]

    def _peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def expression(self) -> bool:
        result = self.conjunction()
        while self._peek() == "||":
            self._next()
            result = self.conjunction() or result
        return result

    def conjunction(self) -> bool:
        result = self.term()
        while self._peek() == "&&":
            self._next()
            result = self.term() and result
        return result

    def term(self) -> bool:
        token = self._next()
        if token == "(":
            result = self.expression()
            if self._next() != ")":
                raise ValueError("unbalanced parentheses")
            return result
        if not token.startswith("$."):
            raise ValueError(f"expected a selector, got {token!r}")
        operator, value = self._next(), self._next()
        if operator not in ("=", "!="):
            raise ValueError(f"unsupported operator {operator!r}")
        wanted = json.loads(value) if value.startswith('"') else value
        found, actual = _select(self.event, token)
        if not found or isinstance(actual, (dict, list)):
            return False  # "the filter will not be applied because the log format doesn't match the filter"
        return _value_matches(actual, wanted) == (operator == "=")


def matches(pattern: str, message: str) -> bool:
    """Whether the JSON filter ``pattern`` matches the log event ``message`` (a non-JSON event never does)."""
    text = pattern.strip()
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError(f"not a JSON filter pattern: {pattern!r}")
    try:
        event = json.loads(message)
    except ValueError:
        return False
    parser = _Parser(_tokens(text[1:-1]), event)
    result = parser.expression()
    if parser.pos != len(parser.tokens):
        raise ValueError(f"unparsed rest of the pattern: {parser.tokens[parser.pos :]}")
    return result


def extract(event: str, selector: str) -> Any:
    """The value a metric filter's dimension ``$.a.b`` takes from ``event``."""
    found, value = _select(json.loads(event), selector)
    return value if found else None
