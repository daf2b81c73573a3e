"""The state diagram of a ruleset: DOT text built from its `System`, rendered to SVG by
Graphviz's `dot`.

Nodes are the States (terminal ones double-bordered, unreachable ones dashed and grey);
an edge is a rule or event whose effects enter (solid) or leave (dashed, flat head) a
State, drawn from the States its condition requires, else from the event that triggers it,
else from "any situation". The rules and events, with their effects, are read off the
ruleset's state machine (`checker.graph.machine`), the graph the encoder and the
structural findings use. Node and edge ids in the DOT are generated (`st0`, `ed0`), so no
spec text ever becomes an SVG id, comment or title; spec text appears only in labels.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass

from checker.graph import clauses, machine
from checker.ir import Assign, Const, LExpr, Op, Ruleset, System, Transition, V, lvars

DOT_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Node:
    key: str                      # DOT id: st0, ev0, any
    label: str
    kind: str                     # state | event | any
    terminal: bool = False
    unreachable: bool = False


@dataclass(frozen=True)
class Edge:
    key: str                      # DOT id: ed0 ...
    tail: str
    head: str
    elements: tuple[str, ...]     # spec element ids of the rules or events, in spec order
    effect: str                   # enter | leave


@dataclass(frozen=True)
class Diagram:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    related: tuple[tuple[str, tuple[str, ...]], ...]   # State → spec element ids mentioning it

    def state_key(self, name: str) -> str:
        return next(n.key for n in self.nodes if n.kind == "state" and n.label == name)

    def edges_of(self, key: str) -> tuple[str, ...]:
        return tuple(e.key for e in self.edges if key in (e.tail, e.head))


@dataclass(frozen=True)
class Rendered:
    svg: str | None               # an <svg> element, or None with a note why not
    note: str = ""


# ============================================================================ building

def state_of_var(system: System) -> dict[str, str]:
    """Variable name → the State it counts (flag and marker variables only)."""
    return {v.name: v.state for v in system.vars
            if v.state is not None and v.kind in ("state", "marker")}


def states_in(e: LExpr, owner: dict[str, str]) -> set[str]:
    return {owner[n] for n in lvars(e) if n in owner}


def required_states(e: LExpr, owner: dict[str, str], positive: bool = True) -> set[str]:
    """The States `e` requires to be present (`Crouched`, `Crouched and hp > 0`), not the
    ones it requires absent (`not Dead`)."""
    match e:
        case Op("not", (a,)):
            return required_states(a, owner, not positive)
        case Op("implies", (a, b)):
            return required_states(a, owner, not positive) | required_states(b, owner, positive)
        case Op("and" | "or", args):
            out: set[str] = set()
            for a in args:
                out |= required_states(a, owner, positive)
            return out
        case Op("ge" | "gt", _) if positive:
            return states_in(e, owner)
    return set()


def _effect_kind(a: Assign) -> str:
    if a.value == Const(0):
        return "leave"
    return "leave" if _has_op(a.value, ("sub", "neg")) and not _has_op(a.value, ("add",)) \
        else "enter"


def _has_op(e: LExpr, ops: tuple[str, ...]) -> bool:
    if isinstance(e, Op):
        return e.op in ops or any(_has_op(a, ops) for a in e.args)
    return False


def _effects_on_states(t: Transition, owner: dict[str, str]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for a in t.effects:
        state = owner.get(a.var)
        if state is not None and a.value != V(a.var):
            item = (state, _effect_kind(a))
            if item not in out:
                out.append(item)
    return out


def _event_label(instance: str, source: str) -> str:
    """Generated phase events are named by the phase event, others by their spec id."""
    return instance if source == "phases" else source


def build(ruleset: Ruleset, unreachable: frozenset[str] = frozenset()) -> Diagram:
    """The diagram of `ruleset`; `unreachable` names the States proved unreachable."""
    system = ruleset.system
    owner = state_of_var(system)
    names: list[str] = []
    for v in system.vars:
        if v.name in owner and owner[v.name] not in names:
            names.append(owner[v.name])
    terminal = {s for p in system.properties if p.kind == "terminal" for s in p.states}
    nodes = [Node(f"st{i}", name, "state", name in terminal, name in unreachable)
             for i, name in enumerate(names)]
    key_of = {n.label: n.key for n in nodes}
    event_source = {e.id: e.source for e in system.events}
    extra: dict[str, Node] = {}

    def trigger_node(label: str, kind: str) -> str:
        ident = f"{kind}:{label}"
        if ident not in extra:
            events = sum(1 for x in extra.values() if x.kind == "event")
            key = "any" if kind == "any" else f"ev{events}"
            extra[ident] = Node(key, label, kind)
        return extra[ident].key

    edges: dict[tuple[str, str, str], list[str]] = {}
    related: dict[str, set[str]] = {n: set() for n in names}
    events, rules = clauses(machine(system).graph)
    for t in (*events, *rules):
        for s in states_in(t.guard, owner):
            related[s].add(t.source)
        changed = _effects_on_states(t, owner)
        if not changed:
            continue
        tails = sorted(required_states(t.guard, owner), key=names.index)
        for state, effect in changed:
            related[state].add(t.source)
            sources = [key_of[s] for s in tails if s != state]
            if not sources:
                if t.kind == "event":
                    sources = [trigger_node(_event_label(t.id, t.source), "event")]
                elif t.on:
                    sources = [trigger_node(_event_label(e, event_source.get(e, e)), "event")
                               for e in t.on]
                else:
                    sources = [trigger_node("any situation", "any")]
            for tail in sources:
                names_on = edges.setdefault((tail, key_of[state], effect), [])
                if t.source not in names_on:
                    names_on.append(t.source)
    conditions: list[tuple[str, LExpr]] = [
        *((c.source, c.when) for c in system.constraints),
        *((f.source, f.when) for f in system.facts),
        *((m.source, m.when) for m in system.modifiers)]
    for source, when in conditions:
        for s in states_in(when, owner):
            related[s].add(source)
    for p in system.properties:
        for s in p.states:
            if s in related:
                related[s].add(p.source)
    return Diagram(
        (*nodes, *extra.values()),
        tuple(Edge(f"ed{i}", tail, head, tuple(names), effect)
              for i, ((tail, head, effect), names) in enumerate(edges.items())),
        tuple((n, tuple(sorted(related[n]))) for n in names))


# ============================================================================ DOT

def _escape(text: str) -> str:
    text = re.sub(r"[\x00-\x1f\x7f]", " ", text)
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;")


def _q(*lines: str) -> str:
    """A DOT quoted string whose label shows `lines` literally, one per line."""
    return '"' + "\\n".join(_escape(line) for line in lines) + '"'


def to_dot(diagram: Diagram) -> str:
    lines = [
        "digraph states {",
        '  graph [rankdir=LR, bgcolor="transparent", nodesep=0.35, ranksep=0.6, '
        'fontname="Helvetica,Arial,sans-serif"];',
        '  node [fontname="Helvetica,Arial,sans-serif", fontsize=12, shape=ellipse, '
        'style=filled, fillcolor="#ffffff", color="#334155", fontcolor="#0f172a"];',
        '  edge [fontname="Helvetica,Arial,sans-serif", fontsize=10, color="#334155", '
        'fontcolor="#334155"];',
    ]
    for n in diagram.nodes:
        label = n.label + (" (unreachable)" if n.unreachable else "")
        attrs = [f"id={_q(n.key)}", f"label={_q(label)}"]
        if n.kind == "state":
            classes = ["state"]
            if n.terminal:
                attrs.append("peripheries=2")
                classes.append("terminal")
            if n.unreachable:
                attrs += ['style="dashed,filled"', 'fillcolor="#f1f5f9"', 'color="#94a3b8"',
                          'fontcolor="#64748b"']
                classes.append("unreachable")
            attrs.append(f"class={_q(' '.join(classes))}")
        elif n.kind == "event":
            attrs += ['shape=box', 'style="rounded,filled"', 'fillcolor="#e2e8f0"',
                      'color="#94a3b8"', "fontsize=10", 'class="event"']
        else:
            attrs += ["shape=plaintext", 'style=""', "fontsize=10", 'fontcolor="#64748b"',
                      'class="any"']
        lines.append(f"  {n.key} [{', '.join(attrs)}];")
    events = {n.key: n.label for n in diagram.nodes if n.kind == "event"}
    for e in diagram.edges:
        shown = [x for x in e.elements if x != events.get(e.tail)]
        attrs = [f"id={_q(e.key)}", f"label={_q(*shown)}"]
        if e.effect == "leave":
            attrs += ["style=dashed", "arrowhead=tee", 'color="#b91c1c"',
                      'fontcolor="#b91c1c"', 'class="leave"']
        else:
            attrs.append('class="enter"')
        lines.append(f"  {e.tail} -> {e.head} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ============================================================================ rendering

_PROLOG = re.compile(r"<\?xml.*?\?>|<!DOCTYPE.*?>|<!--.*?-->", re.S)
_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][\w:.-]*)([^>]*)>")
_SAFE_TAGS = frozenset({"svg", "g", "title", "desc", "polygon", "polyline", "ellipse", "circle",
                        "path", "text", "tspan", "rect", "line", "defs"})
_UNSAFE_ATTR = re.compile(r"(^|\s)on[a-z]+\s*=|javascript:|href\s*=", re.I)
NO_DOT_NOTE = ("The state diagram needs Graphviz, and its 'dot' program was not found. "
               "Install Graphviz (on Debian: apt-get install graphviz) and run the check again.")


def render_svg(dot_text: str, *, dot: str | None = None,
               timeout: float = DOT_TIMEOUT_S) -> Rendered:
    """`dot_text` as an inline <svg> element; a note instead when `dot` is missing or fails."""
    exe = dot or shutil.which("dot")
    if exe is None:
        return Rendered(None, NO_DOT_NOTE)
    try:
        done = subprocess.run([exe, "-Tsvg"], input=dot_text.encode("utf-8"),
                              capture_output=True, timeout=timeout, check=False)
    except FileNotFoundError:
        return Rendered(None, NO_DOT_NOTE)
    except subprocess.TimeoutExpired:
        return Rendered(None, f"Graphviz took longer than {timeout:g} s to draw the state "
                        "diagram, so it is left out.")
    except OSError as exc:
        return Rendered(None, f"Graphviz could not be run to draw the state diagram "
                        f"({exc.strerror or exc}).")
    if done.returncode != 0:
        first = done.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
        why = f": {first[0]}" if first else ""
        return Rendered(None, f"Graphviz failed to draw the state diagram{why}.")
    svg = _PROLOG.sub("", done.stdout.decode("utf-8", "replace")).strip()
    if not svg.startswith("<svg") or not _is_safe(svg):
        return Rendered(None, "Graphviz produced a drawing that cannot be shown safely.")
    return Rendered(svg)


def _is_safe(svg: str) -> bool:
    """Only the drawing elements Graphviz emits, with no event handlers or links."""
    for m in _TAG.finditer(svg):
        if m.group(2).lower() not in _SAFE_TAGS or _UNSAFE_ATTR.search(m.group(3)):
            return False
    return "<!" not in svg and "<?" not in svg
