"""Explicit search over macro steps (an event and its whole resolution, in every order) for
many properties at once (`explore_macro`), on the breadth-first core of
`checker.interpret.search`."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from checker.interpret.evaluate import State
from checker.interpret.machine import Interpreter
from checker.interpret.search import breadth_first
from checker.ir import Property, System, lvars


@dataclass
class Verdicts:
    """The outcome of one shared explicit search over macro steps, for many properties."""

    complete: bool                      # every reachable stable state was visited
    macro_states: int
    hits: dict[str, tuple[State, list[tuple[str, tuple[int, ...]]]]]   # prop id → witness
    symbolic: bool = False              # visited as one set (decision diagrams), not one by one
    untraced: frozenset[str] = frozenset()   # reachability properties hit without a trace


def explore_macro(system: System, props: Sequence[Property], *,
                  max_states: int = 200_000, max_seconds: float | None = None,
                  reduce: bool = True) -> Verdicts:
    """Breadth-first search over *macro* steps (an event and its whole resolution), for all
    `props` at once. A property is "hit" when a reachable state violates it (invariants) or
    satisfies it (reachability); the hit comes with the shortest event path to it, counted in
    events. Stable states that differ only in bookkeeping and inputs (which the next event
    resets or re-rolls before anything reads them) are visited once: that is what makes this
    search fast, and it is why it counts events, not micro steps. A property that is not hit
    holds (or is unreachable) exactly when `complete` is true.

    Each event's resolution is followed in every order (`Interpreter.resolutions`): each of
    its distinct ends is a successor. With `reduce`, orders of independent rules are not
    interleaved (partial-order reduction, `checker.interpret.resolve`); the properties
    checked at every micro state make the variables they read visible."""
    visible: frozenset[str] = frozenset()
    for p in props:
        if p.at == "all":
            visible |= lvars(p.expr)
    interp = Interpreter(system, reduce=reduce, visible=visible)
    forget = [i for i, v in enumerate(system.vars)
              if v.kind in ("happened", "fired", "res", "was", "input")]
    termination = [p for p in props if p.kind == "termination"]
    others = [p for p in props if p.kind != "termination"]
    hits: dict[str, tuple[State, list[tuple[str, tuple[int, ...]]]]] = {}

    def key(s: State) -> State:
        out = list(s)
        for i in forget:
            out[i] = 0
        return tuple(out)

    def look(states: Sequence[State], stable_last: bool, start: State,
             path: list[tuple[str, tuple[int, ...]]]) -> None:
        for p in others:
            if p.id in hits:
                continue
            want = p.mode == "reachable"
            candidates = states if p.at == "all" else (states[-1:] if stable_last else ())
            if any(interp.holds(p, s) == want for s in candidates):
                hits[p.id] = (start, path)

    Node = tuple[State, State, list[tuple[str, tuple[int, ...]]]]   # (state, start, path)

    def roots() -> Iterator[tuple[State, Node]]:
        for s0 in interp.initial_states():
            # an initial state may be unstable: resolve it like an event would
            yield from outcomes(s0, s0, [])

    combos = list(itertools.product(*(range(v.lo, v.hi + 1) for v in interp.inputs)))

    def outcomes(s0: State, start: State, path: list[tuple[str, tuple[int, ...]]]
                 ) -> Iterator[tuple[State, Node]]:
        res = interp.resolutions(s0)
        if any(p.at == "all" and p.id not in hits for p in others):
            look(res.states, False, start, path)
        for end in res.finals:
            look([end], True, start, path)
        if res.stuck:
            for p in termination:
                hits.setdefault(p.id, (start, path))
        for end in res.finals:
            yield key(end), (end, start, path)

    def expand(node: Node) -> Iterator[tuple[State, Node]]:
        s, start, path = node
        for combo in combos:
            rolled = list(s)
            for v, val in zip(interp.inputs, combo, strict=True):
                rolled[interp.index[v.name]] = val
            pre = tuple(rolled)
            for ev in system.events:
                if not interp.event_enabled(ev, pre):
                    continue
                _, s0 = interp.after_event(s, ev.id, combo)
                yield from outcomes(s0, start, [*path, (ev.id, combo)])

    deadline = None if max_seconds is None else time.monotonic() + max_seconds

    def stop(node: Node) -> bool:
        return len(hits) == len(props) or (deadline is not None
                                           and time.monotonic() > deadline)

    found = breadth_first(roots(), expand, max_states=max_states, stop=stop)
    return Verdicts(found.complete, len(found.seen), hits)
