"""A serve spec's ``engine_args``, checked by the engine's own argument parser before anything is deployed.

The cluster starts ``python3 -m sglang.launch_server <platform flags> <engine_args>`` (``sglang==0.5.21``,
images/verl-sglang/requirements.lock). SGLang builds its command line in ``sglang/srt/server_args.py``:
``prepare_server_args`` makes ``argparse.ArgumentParser(prog="sglang serve")`` and ``ServerArgs.add_cli_args(parser)``
adds every flag. :func:`check_engine_args` builds the same parser from the installed SGLang and parses the spec's
list with it, so an unknown flag or a value of the wrong type is refused with SGLang's own message (argparse's, with
its prefix matching: ``--tp`` is ``--tp-size`` there too). It checks the command line only; what
``ServerArgs.__post_init__`` decides from the GPUs and the model is left to the engine.

The flags the platform sets itself (:data:`PLATFORM_FLAGS`: the model, where it listens, tensor parallelism from
the spec's ``tensor_parallel``, the served name, metrics for the autoscaler) are refused in ``engine_args``, in
any spelling the parser accepts. Before the parser runs, the platform's allowlist (llm_platform/engine_flags.py:
exact names, checked values, no SGLang needed) must take every flag; the parser then checks what SGLang itself
would refuse.

Importing the parser on a machine without GPUs: ``sglang.srt.server_args`` imports ``sglang.srt.utils.common``
(torch, triton, pyzmq, msgspec, pybase64 -- importing triton needs no GPU), all in the training tests' lock; the
package's own ``sglang/__init__.py`` is the frontend language (``sglang.lang``: IPython) and Hugging Face patches,
which the parser never uses. So the ``sglang`` package is registered from its spec without running that
``__init__`` (:func:`server_args_class`); every module below it is SGLang's own, at the pinned version.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys

from llm_platform.engine_flags import flag_problems

ENGINES = ("sglang",)
PLATFORM_FLAGS: dict[str, str] = {
    "model_path": "the registered model version's weights",
    "port": "the serving contract's port (30000)",
    "host": "the pod's address",
    "tp_size": "the serve section's tensor_parallel",
    "served_model_name": "the registered model's name (<team>.<name>)",
    "enable_metrics": "always on: the autoscaler reads /metrics",
    "config": "the pod has no such file: give the flags themselves",
}
"""``ServerArgs`` destinations the platform sets (or forbids) -> why."""

_UNSET = object()


class ParseRefused(Exception):
    """What SGLang's parser said instead of exiting."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would print the usage and exit 2
        raise ParseRefused(message)

    def exit(self, status: int = 0, message: str | None = None):  # --version
        raise ParseRefused(message or f"the parser exited ({status}): engine_args are flags for the server")


def server_args_class() -> type:
    """SGLang's ``ServerArgs`` (``sglang/srt/server_args.py``), imported without ``sglang/__init__.py``."""
    if "sglang" not in sys.modules:
        spec = importlib.util.find_spec("sglang")
        if spec is None:
            raise ModuleNotFoundError("sglang is not installed (the training tests' lock pins sglang==0.5.21)")
        sys.modules["sglang"] = importlib.util.module_from_spec(spec)  # the package, its __init__ not run
    from sglang.srt.server_args import ServerArgs

    return ServerArgs


def sglang_parser() -> argparse.ArgumentParser:
    """SGLang's command line parser (as ``prepare_server_args`` builds it) with the platform's flags made optional
    and marked, so that any spelling of them shows in the result."""
    parser = _Parser(prog="sglang serve", add_help=False)  # --help is not a flag for a server in a pod
    server_args_class().add_cli_args(parser)
    for action in parser._actions:
        if action.dest in PLATFORM_FLAGS:
            action.default, action.required = _UNSET, False
    return parser


def check_engine_args(engine: str, args: list[str]) -> list[str]:
    """The problems of ``args`` (a serve spec's ``engine_args``) for ``engine``; empty when the engine takes them."""
    if engine not in ENGINES:
        return [f"engine: {engine!r} is not an engine of the platform; use one of {', '.join(ENGINES)}"]
    allowlist = flag_problems(args)  # exact names and checked values first (llm_platform/engine_flags.py)
    if allowlist:
        return allowlist
    parser = sglang_parser()
    try:
        given = vars(parser.parse_args(args))
    except ParseRefused as exc:
        return platform_problems(parser, [a.split("=", 1)[0] for a in args]) + [
            f"engine_args: sglang refuses them: {str(exc).strip()}"
        ]
    return platform_problems(
        parser, [a.dest for a in parser._actions if a.dest in PLATFORM_FLAGS and given.get(a.dest) is not _UNSET]
    )


def platform_problems(parser: argparse.ArgumentParser, given: list[str]) -> list[str]:
    """One line per platform flag among ``given`` (destinations or option strings)."""
    out = []
    for action in parser._actions:
        if action.dest in PLATFORM_FLAGS and (action.dest in given or set(action.option_strings) & set(given)):
            out.append(
                f"engine_args: {'/'.join(action.option_strings)} is set by the platform "
                f"({PLATFORM_FLAGS[action.dest]}); remove it"
            )
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m llm_platform.engine_args --engine sglang -- ARGS...``: the problems as a JSON list on stdout (exit
    0), or exit 3 when the engine is not installed in this interpreter. llmft runs it with an interpreter that has
    SGLang (``LLMFT_ENGINE_PYTHON``; ``llmft run --local`` uses its ``--python``) when its own has not."""
    import json
    import sys

    argv = list(sys.argv[1:] if argv is None else argv)
    split = argv.index("--") if "--" in argv else len(argv)
    head, args = argv[:split], argv[split + 1 :]
    engine = head[head.index("--engine") + 1] if "--engine" in head else "sglang"
    try:
        problems = check_engine_args(engine, args)
    except ModuleNotFoundError as exc:
        print(f"llm_platform.engine_args: {exc}", file=sys.stderr)
        return 3
    print(json.dumps(problems))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
