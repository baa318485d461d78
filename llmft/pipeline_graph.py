"""A pipeline's order from its data flow (issue 41): every step declares what it reads and writes (the training
package's step contract, ``llm_platform.steps.paths``); a step runs after the steps that write what it reads, after
the steps it names in ``after:``, and after the gate of any gated step it waits for, whatever the order of the list.
Everything that would make the graph wrong is refused with the step and the field named: a cycle, an input no step
writes (unless the pipeline lists it under ``inputs:``), an input inside another step's output that the step never
writes, two steps writing into one directory, a step reading its own output, a name that collides with a generated
one, and a graph larger than :data:`MAX_STEPS` steps or :data:`MAX_FAN_OUT` dependents of one step.

Pure functions over :class:`Node`; :mod:`llmft.pipeline` builds the nodes from the rendered plans."""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_STEPS = 32
"""Steps of one pipeline. Every step's manifests are embedded in the one Workflow object, which the API server stores
whole (etcd's request limit, 1.5 MiB); a 32-step pipeline of the example's steps is a few hundred KiB."""
MAX_FAN_OUT = 16
"""Steps that may wait on one step: each runs as its own job against the team's quota at once when it finishes."""
GENERATED_SUFFIXES = ("-config", "-gate")
"""Names the Workflow gives a step's ConfigMap template and its gate (llmft/pipeline.py)."""


@dataclass(frozen=True)
class Node:
    """One step: its job name, where it was written (for messages), the paths it reads, the directories it writes
    into (``roots``) and what it writes there (``written``: files or folders), the steps it names in ``after``."""

    name: str
    source: str
    inputs: tuple[str, ...] = ()
    roots: tuple[str, ...] = ()
    written: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    gated: bool = False


@dataclass
class Graph:
    """``dependencies``: task name -> the task names it waits for (a gated step's gate is a task of its own);
    ``order``: the step names in a topological order (ties by name, so the list's order never matters)."""

    dependencies: dict[str, list[str]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def inside(path: str, directory: str) -> bool:
    """``path`` is ``directory`` or inside it."""
    path, directory = path.rstrip("/"), directory.rstrip("/")
    return path == directory or path.startswith(directory + "/")


def gate_name(step: str) -> str:
    return f"{step}-gate"


def _name_problems(nodes: list[Node]) -> list[str]:
    names = [n.name for n in nodes]
    out = [
        f"two steps have the job name {n!r}; give each step its own name"
        for n in sorted(set(names))
        if names.count(n) > 1
    ]
    for node in nodes:
        for suffix in GENERATED_SUFFIXES:
            if node.name.endswith(suffix) and node.name.removesuffix(suffix) in names:
                out.append(
                    f"{node.source}: name {node.name!r} is the name the Workflow gives step "
                    f"{node.name.removesuffix(suffix)!r}'s {suffix[1:]} task; rename it"
                )
    return out


def _output_problems(nodes: list[Node]) -> list[str]:
    out = []
    for i, a in enumerate(nodes):
        for b in nodes[i + 1 :]:
            for ra in a.roots or a.written:
                clash = next((rb for rb in b.roots or b.written if inside(ra, rb) or inside(rb, ra)), None)
                if clash:
                    out.append(
                        f"{a.source} and {b.source}: both write into {ra if len(ra) >= len(clash) else clash} "
                        f"(output {ra!r} and {clash!r}); two steps would overwrite each other: give each its own output"
                    )
        for item in a.inputs:
            own = next((r for r in a.roots or a.written if inside(item, r) or inside(r, item)), None)
            if own:
                out.append(
                    f"{a.source}: reads {item!r}, which is its own output {own!r} or around it; a step never "
                    f"writes where it reads: give it another output"
                )
    return out


def _reads_from(item: str, written: str, node: Node) -> bool:
    """``item`` is what ``node`` writes at ``written``: that path itself, or inside it when it is a product of its own
    (a merged model, a split file), not the whole output folder, whose other contents (checkpoints, a merged model
    the settings never write) are not promised."""
    return item.rstrip("/") == written.rstrip("/") or (inside(item, written) and written not in node.roots)


def _producers(item: str, reader: Node, nodes: list[Node], external: tuple[str, ...]) -> tuple[list[str], str | None]:
    """(the steps that write ``item``, the problem when none may)."""
    found = [n.name for n in nodes if n is not reader and any(_reads_from(item, w, n) for w in n.written)]
    if found:
        return found, None
    owner = next((n for n in nodes if n is not reader and any(inside(item, r) for r in n.roots)), None)
    if owner is not None:
        return [], (
            f"{reader.source}: reads {item!r} inside the output of step {owner.name!r}, which never writes it "
            f"({owner.name} writes {', '.join(owner.written) or 'nothing there'}); point the input at what that "
            f"step writes, or change that step's settings so it writes this"
        )
    if any(inside(item, e) for e in external):
        return [], None
    return [], (
        f"{reader.source}: reads {item!r}, which no step of this pipeline writes (a typo?); point it at a step's "
        f"output, or list it under the pipeline's `inputs:` when an earlier job already wrote it"
    )


def _order(nodes: list[Node], deps: dict[str, set[str]]) -> tuple[list[str], list[str]]:
    """(the names in topological order, ties by name; the names on a cycle, empty when none)."""
    remaining = {n.name: set(deps[n.name]) for n in nodes}
    order: list[str] = []
    while True:
        ready = sorted(n for n, d in remaining.items() if not d)
        if not ready:
            break
        for n in ready:
            order.append(n)
            del remaining[n]
        for d in remaining.values():
            d.difference_update(ready)
    return order, sorted(remaining)


def link(nodes: list[Node], *, external: tuple[str, ...] = ()) -> Graph:
    """The pipeline's graph, or its problems (every one at once)."""
    graph = Graph()
    graph.problems += _name_problems(nodes)
    if len(nodes) > MAX_STEPS:
        graph.problems.append(f"{len(nodes)} steps: a pipeline has at most {MAX_STEPS}; split it into pipelines")
    graph.problems += _output_problems(nodes)
    by_name = {n.name: n for n in nodes}
    deps: dict[str, set[str]] = {n.name: set() for n in nodes}
    for node in nodes:
        for item in node.inputs:
            found, problem = _producers(item, node, nodes, external)
            deps[node.name].update(found)
            if problem:
                graph.problems.append(problem)
        for name in node.after:
            if name not in by_name or name == node.name:
                graph.problems.append(
                    f"{node.source}: after names {name!r}, which is not another step of this pipeline "
                    f"(steps: {', '.join(sorted(by_name))})"
                )
            else:
                deps[node.name].add(name)
    for name in deps:
        fan_out = [n for n, d in deps.items() if name in d]
        if len(fan_out) > MAX_FAN_OUT:
            graph.problems.append(
                f"{len(fan_out)} steps wait on {name!r}: at most {MAX_FAN_OUT} may (each is a job started at once)"
            )
    order, cycle = _order(nodes, deps)
    if cycle:
        graph.problems.append(
            f"the steps {', '.join(cycle)} wait on each other in a circle (each reads what another writes, or "
            f"names it in after); no order can run them: break the circle"
        )
        return graph
    graph.order = order
    for name in order:
        waits = set(deps[name]) | {gate_name(d) for d in deps[name] if by_name[d].gated}
        graph.dependencies[name] = sorted(waits)
        if by_name[name].gated:
            graph.dependencies[gate_name(name)] = [name]
    return graph
