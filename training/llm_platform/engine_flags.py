"""A serve spec's ``engine_args`` by allowlist (issue 40): exact flag names, every value checked, standard library
only, so llmft checks them in its own process (Studio has no SGLang) and the admission policy for production
checks the same list (k8s_charts/guardrails/production.py reads :data:`ALLOWED` and :data:`PLATFORM`).

Why an allowlist and not SGLang's parser alone (llm_platform/engine_args.py still runs it where SGLang is
installed): argparse expands an unambiguous prefix (``--model-pa`` is ``--model-path``, so a platform flag could be
given again under another spelling), and the parser accepts, as it should for its own users, flags that break the
platform's promises: ``--trust-remote-code`` runs the repository's Python, ``--load-format dummy`` serves random
weights under the model's name, ``--lora-paths`` loads adapters the evaluation never saw, a Hub id in
``--tokenizer-path`` fetches from outside, ``--revision``/``--download-dir`` name other weights.

Rules (each problem names the flag, the value and the fix):

- a flag is one of :data:`ALLOWED` exactly (``--flag value`` or ``--flag=value``; a switch takes no value);
  :data:`PLATFORM` flags are the platform's; :data:`REFUSED` flags are refused with their reason; anything else
  (a prefix, an unknown flag, a bare value) is refused;
- a flag appears once;
- values: integers and numbers in range, one of the listed choices, and paths only absolute and inside the served
  version's directory (no ``..``), which is what the weights digest covers.

The names and choices are SGLang 0.5.21's (``sglang/srt/server_args.py`` ``ServerArgs.add_cli_args``; the training
tests check every entry against the installed parser: training/tests/test_engine_flags.py).
"""

from __future__ import annotations

import difflib
import math
import posixpath
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """What a flag's value may be: ``kind`` is ``switch`` (no value), ``int``, ``float``, ``choice``, ``name`` (a
    parser name: letters, digits, ``_``, ``-``, ``.``) or ``path`` (inside the served version)."""

    kind: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()


def _int(low: int | None = 1, high: int | None = None) -> Rule:
    return Rule("int", low, high)


SWITCH = Rule("switch")
ALLOWED: dict[str, Rule] = {
    "--context-length": _int(),
    "--mem-fraction-static": Rule("float", 0.05, 0.99),
    "--max-running-requests": _int(),
    "--max-queued-requests": _int(),
    "--max-total-tokens": _int(),
    "--max-prefill-tokens": _int(),
    "--chunked-prefill-size": _int(-1),
    "--schedule-policy": Rule("choice", choices=("lpm", "random", "fcfs", "dfs-weight", "lof", "priority")),
    "--schedule-conservativeness": Rule("float", 0.0, 100.0),
    "--dtype": Rule("choice", choices=("auto", "half", "float16", "bfloat16", "float", "float32")),
    "--kv-cache-dtype": Rule("choice", choices=("auto", "fp8_e5m2", "fp8_e4m3", "bf16", "bfloat16")),
    "--quantization": Rule("choice", choices=("fp8", "awq", "gptq", "awq_marlin", "gptq_marlin")),
    "--attention-backend": Rule("choice", choices=("triton", "torch_native", "flashinfer", "fa3")),
    "--grammar-backend": Rule("choice", choices=("xgrammar", "outlines", "llguidance", "none")),
    "--load-format": Rule("choice", choices=("auto", "safetensors")),
    "--tokenizer-mode": Rule("choice", choices=("auto", "slow")),
    "--log-level": Rule("choice", choices=("debug", "info", "warning", "error")),
    "--reasoning-parser": Rule("name"),
    "--tool-call-parser": Rule("name"),
    "--chat-template": Rule("path"),
    "--tokenizer-path": Rule("path"),
    "--random-seed": _int(0, 2**31 - 1),
    "--stream-interval": _int(),
    "--decode-log-interval": _int(),
    "--torch-compile-max-bs": _int(),
    "--watchdog-timeout": Rule("float", 1.0, 86400.0),
    "--enable-torch-compile": SWITCH,
    "--disable-radix-cache": SWITCH,
    "--enable-mixed-chunk": SWITCH,
    "--enable-cache-report": SWITCH,
    "--log-requests": SWITCH,
    "--skip-server-warmup": SWITCH,
}
"""The engine flags a serve spec may give, each with the rule for its value."""

PLATFORM: dict[str, str] = {
    "--model-path": "the registered model version's weights",
    "--model": "the registered model version's weights",
    "--port": "the serving contract's port (30000)",
    "--host": "the pod's address",
    "--tp-size": "the serve section's tensor_parallel",
    "--tensor-parallel-size": "the serve section's tensor_parallel",
    "--tp": "the serve section's tensor_parallel",
    "--dp-size": "gpus_per_node / tensor_parallel",
    "--data-parallel-size": "gpus_per_node / tensor_parallel",
    "--dp": "gpus_per_node / tensor_parallel",
    "--served-model-name": "the registered model's name (<team>.<name>)",
    "--enable-metrics": "always on: the autoscaler reads /metrics",
    "--config": "the pod has no such file: give the flags themselves",
    "--nnodes": "multi-node serving is not supported: one node per replica",
    "--node-rank": "multi-node serving is not supported: one node per replica",
    "--dist-init-addr": "multi-node serving is not supported: one node per replica",
}
"""Flags the platform sets itself (or forbids) -> what sets them."""

REFUSED: dict[str, str] = {
    "--trust-remote-code": "it runs Python from the model's repository: production runs no remote code",
    "--lora-paths": "the serve spec declares no adapters: serve the merged model (adapters were not evaluated)",
    "--enable-lora": "the serve spec declares no adapters: serve the merged model (adapters were not evaluated)",
    "--revision": "the weights are the registered version's, not a Hub revision",
    "--download-dir": "the weights are the registered version's directory; nothing is downloaded",
    "--speculative-draft-model-path": "it loads another model, which was not evaluated",
    "--json-model-override-args": "it changes the evaluated model's configuration",
    "--model-loader-extra-config": "it changes how the evaluated weights are loaded",
    "--api-key": "the endpoint's access is the namespace's network policy, not a key in the pod's arguments",
}
"""Flags SGLang accepts that break a promise of the platform -> why they are refused."""

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def _fix(flag: str) -> str:
    near = difflib.get_close_matches(flag, [*ALLOWED, *PLATFORM, *REFUSED], n=1, cutoff=0.6)
    hint = f" (did you mean {near[0]}? flags are matched exactly, never by prefix)" if near else ""
    return f"{hint}; the allowed flags are listed in docs/serving-local.md 'Engine flags'"


def _number(flag: str, rule: Rule, value: str) -> str | None:
    try:
        number = int(value) if rule.kind == "int" else float(value)
    except ValueError:
        return f"engine_args: {flag} {value!r} is not {'an integer' if rule.kind == 'int' else 'a number'}"
    if isinstance(number, float) and not math.isfinite(number):
        return f"engine_args: {flag} {value!r} is not a finite number"
    if (rule.low is not None and number < rule.low) or (rule.high is not None and number > rule.high):
        return f"engine_args: {flag} {value!r} is outside {rule.low}..{rule.high}"
    return None


def _path(flag: str, value: str, model_dir: str | None) -> str | None:
    normal = posixpath.normpath(value) if value.startswith("/") else ""
    inside = model_dir is None or normal.startswith(posixpath.normpath(model_dir) + "/")
    if not normal or ".." in value.split("/") or not inside:
        where = model_dir or "the served version's directory"
        return (
            f"engine_args: {flag} {value!r} must be an absolute path inside {where} (the evaluated, digest-pinned "
            f"files), e.g. {where.rstrip('/')}/tokenizer.json; no Hub ids, no other directories"
        )
    return None


def value_problem(flag: str, value: str, model_dir: str | None = None) -> str | None:
    """Why ``value`` is not a value of the allowed ``flag`` (None: it is)."""
    rule = ALLOWED[flag]
    if rule.kind in ("int", "float"):
        return _number(flag, rule, value)
    if rule.kind == "choice" and value not in rule.choices:
        return f"engine_args: {flag} {value!r} is not one of {', '.join(rule.choices)}"
    if rule.kind == "name" and not _NAME.fullmatch(value):
        return f"engine_args: {flag} {value!r} is not a parser name (letters, digits, _ - .)"
    if rule.kind == "path":
        return _path(flag, value, model_dir)
    return None


def _refusal(flag: str) -> str:
    if flag in PLATFORM:
        return f"engine_args: {flag} is set by the platform ({PLATFORM[flag]}); remove it"
    if flag in REFUSED:
        return f"engine_args: {flag} is refused: {REFUSED[flag]}"
    if not flag.startswith("--"):
        return f"engine_args: {flag!r} is not a flag (a value must follow the flag that takes it){_fix(flag)}"
    return f"engine_args: {flag} is not an engine flag the platform allows{_fix(flag)}"


def flag_problems(args: list[str], *, model_dir: str | None = None) -> list[str]:
    """Every problem of ``args`` (a serve spec's ``engine_args``); empty when the allowlist takes them.
    ``model_dir``: the served version's directory (paths must lie inside it); None before it is resolved."""
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return [f"engine_args: {args!r} must be a list of strings, e.g. [--mem-fraction-static, '0.85']"]
    problems, seen, i = [], set(), 0
    while i < len(args):
        flag, joined, value = args[i].partition("=")
        i += 1
        if flag not in ALLOWED:
            problems.append(_refusal(flag if flag.startswith("--") else args[i - 1]))
            while flag.startswith("--") and i < len(args) and not args[i].startswith("--"):
                i += 1  # its values: one problem per refused flag
            continue
        if flag in seen:
            problems.append(f"engine_args: {flag} is given twice; give it once")
        seen.add(flag)
        if ALLOWED[flag].kind == "switch":
            if joined:
                problems.append(f"engine_args: {flag} is a switch and takes no value ({args[i - 1]!r})")
            continue
        if not joined:
            if i >= len(args) or args[i].startswith("--"):
                problems.append(f"engine_args: {flag} needs a value")
                continue
            value, i = args[i], i + 1
        problems += [p for p in [value_problem(flag, value, model_dir)] if p]
    return problems


def joined(args: list[str]) -> list[str]:
    """``args`` (which :func:`flag_problems` took) with every value joined to its flag (``--flag=value``): the form
    the platform renders, so that each token of the engine's command line can be checked on its own at admission."""
    out, i = [], 0
    while i < len(args):
        token = args[i]
        i += 1
        if token in ALLOWED and ALLOWED[token].kind != "switch" and i < len(args):
            token, i = f"{token}={args[i]}", i + 1
        out.append(token)
    return out


def admission_patterns() -> dict[str, object]:
    """What the production admission rule (k8s_charts/guardrails/production.py) accepts as one engine token, from
    :data:`ALLOWED`: exact tokens (switches and every ``--flag=choice``), and one regular expression per value kind
    (RE2 syntax, as Kubernetes CEL's ``matches``). Paths are checked against the served directory separately."""

    def flags(kind: str) -> str:
        return "|".join(f for f, r in ALLOWED.items() if r.kind == kind)  # letters and '-': nothing to escape

    exact = [f for f, r in ALLOWED.items() if r.kind == "switch"]
    exact += [f"{f}={c}" for f, r in ALLOWED.items() if r.kind == "choice" for c in r.choices]
    return {
        "exact": exact,
        "int": f"^({flags('int')})=-?[0-9]{{1,12}}$",
        "float": f"^({flags('float')})=[0-9]{{1,6}}([.][0-9]{{1,6}})?$",
        "name": f"^({flags('name')})=[A-Za-z0-9][A-Za-z0-9_.-]{{0,63}}$",
        "path_flags": [f for f, r in ALLOWED.items() if r.kind == "path"],
    }
