"""Every order of one resolution (`resolve`), and the partial-order reduction searches may
use (`Independence.ample`), docs/semantics.md "One step".

A resolution from a state s0 is the graph of micro steps from s0: from an unstable state
below `res_bound`, each rule that may fire (`Interpreter.firable`) gives one successor.
The counter `_res` grows by one on every micro step, so the graph is acyclic and finite;
its ends are its stable states (the outcomes) and its stuck states (unstable at
`res_bound`). `resolve` enumerates it breadth-first, each state once, so orders that meet
again in one state are not followed twice.

Partial-order reduction. Two rules are *independent* when neither writes a variable the
other reads (its guard, its effects, whether it would change anything, and the
enabledness of the rules ordered before it) or writes; then neither can enable or disable
the other and firing both in either order gives the same state. Dependence is taken over
ALL rules, enabled or not, and closed transitively: the rules of one connected component
of the dependence graph. In a state, the ample set is the rules that may fire in one
component (the first, in spec order, that qualifies): every rule outside the component is
independent of every rule inside it, now and after any steps outside it, so the set is
persistent (Godefroid 1996) and the ends of the reduced graph are exactly the ends of the
full one (in an acyclic graph every maximal order is a permutation of one through the
ample set). A set that fires a *visible* rule (one writing a variable a monitor or an
every-micro-state property reads) is only used when it is all the rules that may fire
(condition C2 of Peled's ample sets), so the visible values along a resolution are seen
up to stuttering. The cycle proviso (C3) is not needed: the micro-step graph has no
cycles.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from checker.interpret.evaluate import State
from checker.ir import System, Transition, enabled, lvars, may_fire

if TYPE_CHECKING:
    from checker.interpret.machine import Interpreter


@dataclass
class Resolution:
    """The micro-step graph from `start`: every state reached with one predecessor (the
    breadth-first one: a fewest-steps order), the stable ends and the stuck ends, each in
    the order found."""

    start: State
    parent: dict[State, tuple[State, str] | None]
    finals: tuple[State, ...]
    stuck: tuple[State, ...]
    stuck_set: frozenset[State] = field(default_factory=frozenset)

    @property
    def states(self) -> list[State]:
        return list(self.parent)

    def path(self, end: State) -> tuple[tuple[State, ...], tuple[str, ...]]:
        """The states from `start` to `end` and the rules fired on the way."""
        states, fired = [end], []
        cur = end
        while (link := self.parent[cur]) is not None:
            cur, rule = link
            states.append(cur)
            fired.append(rule)
        return tuple(reversed(states)), tuple(reversed(fired))


def resolve(interp: Interpreter, s0: State) -> Resolution:
    """Every order of the resolution from `s0` (with the interpreter's reduction, if on)."""
    parent: dict[State, tuple[State, str] | None] = {s0: None}
    finals: list[State] = []
    stuck: list[State] = []
    queue = deque([s0])
    bound = interp.system.res_bound
    res = interp.index[interp.system.res_var]
    while queue:
        s = queue.popleft()
        if interp.is_stable(s):
            finals.append(s)
            continue
        if s[res] >= bound:
            stuck.append(s)
            continue
        for rule in interp.ample(s):
            nxt = interp.fire(rule, s)
            if nxt not in parent:
                parent[nxt] = (s, rule.id)
                queue.append(nxt)
    return Resolution(s0, parent, tuple(finals), tuple(stuck), frozenset(stuck))


def footprint(system: System, rule: Transition) -> tuple[frozenset[str], frozenset[str]]:
    """(reads, writes) of `rule` for independence: the resolution counter and the monitors
    are left out (every rule moves the counter by one; monitors are the visibility
    condition's business)."""
    skip = frozenset(v.name for v in system.vars if v.kind in ("res", "seen"))
    reads = set(lvars(may_fire(system, rule))) | set(lvars(enabled(system, rule)))
    for a in rule.effects:
        reads |= lvars(a.value)
    writes = {a.var for a in rule.effects}
    return frozenset(reads - skip), frozenset(writes - skip)


class Independence:
    """The static dependence components of a system's rules, and the ample sets."""

    def __init__(self, system: System, visible: frozenset[str] = frozenset()) -> None:
        rules = list(system.rules)
        prints = {r.id: footprint(system, r) for r in rules}
        watched: set[str] = set(visible)
        for _, w in system.monitors:
            watched |= lvars(w)
        self.visible = frozenset(r.id for r in rules if prints[r.id][1] & watched)
        comp = {r.id: i for i, r in enumerate(rules)}

        def find(x: int) -> int:
            while comp[rules[x].id] != x:
                x = comp[rules[x].id]
            return x

        for i, a in enumerate(rules):
            ra, wa = prints[a.id]
            for b in rules[i + 1:]:
                rb, wb = prints[b.id]
                if wa & (rb | wb) or wb & ra:
                    x, y = find(comp[a.id]), find(comp[b.id])
                    if x != y:
                        comp[rules[max(x, y)].id] = min(x, y)
        self.component = {r.id: find(comp[r.id]) for r in rules}

    def dependent(self, a: str, b: str) -> bool:
        """`a` and `b` are in one dependence component (they may not commute)."""
        return self.component[a] == self.component[b]

    def ample(self, firable: list[Transition]) -> list[Transition]:
        """A persistent subset of `firable` (module docstring), else all of it."""
        groups: dict[int, list[Transition]] = {}
        for r in firable:
            groups.setdefault(self.component[r.id], []).append(r)
        if len(groups) == 1:
            return firable
        for group in groups.values():
            if not any(r.id in self.visible for r in group):
                return group
        return firable
