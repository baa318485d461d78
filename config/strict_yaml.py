"""A strict YAML loader for configuration files and job specs.

PyYAML's ``safe_load`` has three behaviours that turn a typo into a silently different configuration:

* a key repeated in one mapping keeps the last value (``account`` twice: the first one is ignored);
* aliases are shared, so an "alias bomb" (``a: &a [x, x]``, ``b: &b [*a, *a]``, ... nine levels) is a few hundred
  bytes of YAML that expands to a billion nodes once anything walks it (validation, JSON rendering);
* YAML 1.1 resolves unquoted scalars by shape: ``012345670123`` is an octal int, ``1:30`` is 90 (base 60),
  ``1.30`` is the float 1.3, ``yes``/``on`` are booleans, ``2026-01-01`` is a date.

:func:`load_yaml` refuses duplicate keys (with both line numbers), refuses documents whose expanded size or alias
count exceeds a bound before anything is constructed (memory stays proportional to the file), and returns ints
and floats that remember the text they were read from (:class:`YamlInt`, :class:`YamlFloat`), so a validation
error can say "the YAML value 012345670123 was read as the number 1402433619; quote it".
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ._base import ConfigError

MAX_BYTES = 1_000_000
"""Largest file accepted (configs and job specs are a few KB)."""
MAX_EXPANDED_NODES = 100_000
"""Most nodes the document may have once every alias is expanded (the shipped configs have ~400)."""
MAX_ALIASES = 1_000


class YamlInt(int):
    """An int read from YAML; ``text`` is the scalar as written (``012345670123``, ``1:30``)."""

    text: str = ""


class YamlFloat(float):
    """A float read from YAML; ``text`` is the scalar as written (``1.30``)."""

    text: str = ""


def yaml_text(value: Any) -> str | None:
    """The scalar text ``value`` was read from, when the strict loader produced it."""
    return getattr(value, "text", None) or None


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate keys and keeps the source text of numbers."""

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *base`; explicit keys may override merged ones
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:  # unhashable key; SafeLoader reports it below
                continue
            if first is not None:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    f"found duplicate key {key!r} (first at line {first.start_mark.line + 1}); YAML would keep only "
                    f"the last value, so remove or rename one of them",
                    key_node.start_mark,
                )
            seen[key] = key_node
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node: ScalarNode) -> YamlInt:
        out = YamlInt(super().construct_yaml_int(node))
        out.text = node.value
        return out

    def construct_yaml_float(self, node: ScalarNode) -> YamlFloat | float:
        value = super().construct_yaml_float(node)
        out = YamlFloat(value)
        out.text = node.value
        return out


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _StrictLoader.construct_yaml_float)


def _expanded_size(root: Node, source: str) -> int:
    """Nodes in the document with every alias expanded, computed on the (shared) node graph without expanding
    it; stops as soon as the bound is passed. Recursive aliases are refused."""
    sizes: dict[int, int] = {}
    visiting: set[int] = set()
    aliases = 0

    def size(node: Node) -> int:
        nonlocal aliases
        key = id(node)
        if key in sizes:
            aliases += 1
            if aliases > MAX_ALIASES:
                raise ConfigError(
                    f"{source}: more than {MAX_ALIASES} aliases; write the values out instead of repeating anchors"
                )
            return sizes[key]
        if key in visiting:
            raise ConfigError(
                f"{source}: line {node.start_mark.line + 1}: an alias refers to its own anchor "
                f"(a recursive structure); remove the alias"
            )
        visiting.add(key)
        total = 1
        if isinstance(node, SequenceNode):
            children: list[Node] = list(node.value)
        elif isinstance(node, MappingNode):
            children = [n for pair in node.value for n in pair]
        else:
            children = []
        for child in children:
            total += size(child)
            if total > MAX_EXPANDED_NODES:
                raise ConfigError(
                    f"{source}: the document expands to more than {MAX_EXPANDED_NODES:,} values once "
                    f"its aliases are resolved (an alias bomb?); write the values out or split "
                    f"the file"
                )
        visiting.discard(key)
        sizes[key] = total
        return total

    return size(root)


def load_yaml(text: str | bytes, *, source: str) -> Any:
    """Parse one YAML document strictly (see the module docstring); errors are :class:`ConfigError` naming
    ``source`` and the line."""
    if len(text) > MAX_BYTES:
        raise ConfigError(f"{source} is {len(text):,} bytes, more than the {MAX_BYTES:,} a configuration may have")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = text[: exc.start].count(b"\n") + 1
            raise ConfigError(
                f"{source} is not UTF-8 text (byte 0x{text[exc.start]:02x} at line {line}); save it as UTF-8"
            ) from None
    try:
        loader = _StrictLoader(text)
    except yaml.YAMLError as exc:  # the reader refuses characters YAML does not allow (control bytes)
        raise ConfigError(f"{source} is not valid YAML: {exc}") from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, source)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source} is not valid YAML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{source} nests mappings/lists too deeply to be a configuration") from None
    finally:
        loader.dispose()


# Values read by the loader dump as plain numbers (job specs pass settings through to step configs).
yaml.add_representer(YamlInt, yaml.representer.SafeRepresenter.represent_int, Dumper=yaml.SafeDumper)
yaml.add_representer(YamlFloat, yaml.representer.SafeRepresenter.represent_float, Dumper=yaml.SafeDumper)
