"""The tests' one way to run CEL (cel-python): compiled once per process, evaluated with two costs removed.

cel-python 0.5 interprets its parse tree; two of its costs are not the expression's and are removed here:

* **Pass-through levels.** Its grammar wraps every operand in one node per precedence level (expr > conditionalor >
  conditionaland > relation > addition > multiplication > unary > member), and its ``Evaluator`` returns the only
  child's value for each of these levels when the node has one child (celpy/evaluation.py: each of those methods'
  ``len(tree.children) == 1`` branch). A field access such as ``object.metadata.name`` is ten visits of which seven
  only pass a value up; :func:`without_pass_through_levels` drops them (``member`` stays: ``member_object`` reads
  its child's rule name).
* **Typing aliases built at every cast.** The evaluator calls ``cast(Union[...], value)`` / ``cast(Tuple[...], ...)``
  on its hot paths; building and hashing those aliases was about a third of each evaluation. ``typing.cast``
  returns its value whatever the type, so in ``celpy.evaluation`` the names of :data:`CAST_ONLY_ALIASES` are
  replaced by a stand-in whose subscript costs nothing. :func:`cast_only_alias_uses` reads the installed module's
  source and lists every use that would make that unsound (a bare name, an ``isinstance``/``issubclass``):
  tests/test_cel.py requires the list empty, so an upgrade that uses them otherwise fails there, not silently.

tests/test_cel.py also evaluates every rendered policy's expressions both ways and requires the same results.
"""

from __future__ import annotations

import ast
import functools
from typing import Any

CAST_ONLY_ALIASES = ("Union", "Tuple", "List", "Iterable", "Callable", "Optional", "Type")
"""typing names that celpy.evaluation's functions use only as the type argument of ``cast`` or in annotations."""

PASS_THROUGH_LEVELS = frozenset(
    {"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary"}
)


class _FreeSubscript:
    """Stands for a typing alias where only ``typing.cast`` reads it: any subscript gives ``object``."""

    def __getitem__(self, item: Any) -> type:
        return object


def cast_only_alias_uses(source: str) -> list[str]:
    """Where a function of ``source`` uses a name of :data:`CAST_ONLY_ALIASES` other than as the base of a
    subscript (``Union[...]``), or inside ``isinstance``/``issubclass``; module-level code runs before the stand-in
    is installed and is not listed."""
    out = []
    for func in (n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        bases = {id(n.value) for n in ast.walk(func) if isinstance(n, ast.Subscript)}
        for node in ast.walk(func):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("isinstance", "issubclass"):
                names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                out += [f"line {node.lineno}: {name} in {node.func.id}()" for name in names & set(CAST_ONLY_ALIASES)]
            elif isinstance(node, ast.Name) and node.id in CAST_ONLY_ALIASES and id(node) not in bases:
                out.append(f"line {node.lineno}: bare {node.id}")
    return sorted(set(out))


@functools.cache
def _install_free_casts() -> None:
    import celpy.evaluation

    for name in CAST_ONLY_ALIASES:
        setattr(celpy.evaluation, name, _FreeSubscript())


def without_pass_through_levels(tree: Any) -> Any:
    """``tree`` with every one-child node of :data:`PASS_THROUGH_LEVELS` replaced by its child."""
    import lark

    while tree.data in PASS_THROUGH_LEVELS and len(tree.children) == 1 and isinstance(tree.children[0], lark.Tree):
        tree = tree.children[0]
    tree.children = [without_pass_through_levels(c) if isinstance(c, lark.Tree) else c for c in tree.children]
    return tree


@functools.lru_cache(maxsize=None)
def program(expression: str, *, collapse: bool = True) -> Any:
    """The compiled CEL program of ``expression``, once per process (a program is stateless: each ``evaluate``
    takes its own activation); ``collapse=False``: the tree exactly as cel-python parses it."""
    import celpy

    _install_free_casts()
    env = celpy.Environment()
    tree = env.compile(expression)
    return env.program(without_pass_through_levels(tree) if collapse else tree)
