"""Explicit-state search: the one breadth-first core (`breadth_first`) and the searches over
single steps built on it: `explore` (one property, stopping at the first target, the
oracle the symbolic engines are tested against), `StateSpace` (every reachable state,
enumerated once and queried many times) and `reachable_states`. The macro-step search of
`checker.interpret.macro` runs on the same core. Every search visits states in one fixed
order (initial states in `Interpreter.initial_states` order, then breadth-first in
`Interpreter.successors` order), so its answers and traces are deterministic.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from checker.interpret.evaluate import State
from checker.interpret.machine import Interpreter, shared
from checker.ir import Property, System, lvars

K = TypeVar("K", bound=Hashable)
N = TypeVar("N")
Events = list[tuple[str, tuple[int, ...]]]


@dataclass
class Search(Generic[K, N]):
    """What `breadth_first` visited: every node by key, in visiting order."""

    seen: dict[K, N]
    complete: bool              # nothing reachable was left out (no limit, no stop)
    hit: N | None = None        # the node `stop` accepted, if it did
    stopped: bool = False


def breadth_first(roots: Iterable[tuple[K, N]], expand: Callable[[N], Iterable[tuple[K, N]]],
                  *, max_states: int, stop: Callable[[N], bool] | None = None
                  ) -> Search[K, N]:
    """Breadth-first search from `roots` ((key, node) pairs; a key seen before is skipped),
    expanding each node with `expand` in queue order. A node is visited once per key. The
    search stops when a node is dequeued that `stop` accepts (`hit`), or when a new key
    would make more than `max_states` (the roots are always taken); either way it is
    incomplete."""
    seen: dict[K, N] = {}
    queue: deque[N] = deque()
    for key, node in roots:
        if key not in seen:
            seen[key] = node
            queue.append(node)
    while queue:
        node = queue.popleft()
        if stop is not None and stop(node):
            return Search(seen, False, node, True)
        for key, nxt in expand(node):
            if key not in seen:
                if len(seen) >= max_states:
                    return Search(seen, False)
                seen[key] = nxt
                queue.append(nxt)
    return Search(seen, True)


# a visited concrete state: (state, its BFS parent or None, the step's label, its inputs)
Visit = tuple[State, State | None, str, tuple[int, ...]]


def state_search(interp: Interpreter, *, max_states: int,
                 stop: Callable[[State], bool] | None = None,
                 starts: Iterable[State] | None = None) -> Search[State, Visit]:
    """`breadth_first` over single steps (events and micro steps) from `starts` (default:
    the initial states), remembering each state's parent for `path`."""
    roots = interp.initial_states() if starts is None else starts

    def expand(visit: Visit) -> Iterable[tuple[State, Visit]]:
        s = visit[0]
        for label, inputs, nxt in interp.successors(s):
            yield nxt, (nxt, s, label, inputs)

    return breadth_first(((s, (s, None, "", ())) for s in roots), expand,
                         max_states=max_states,
                         stop=None if stop is None else (lambda v: stop(v[0])))


def path(seen: dict[State, Visit], s: State, event_ids: frozenset[str]) -> tuple[State, Events]:
    """The initial state a search reached `s` from, and the event steps (not the micro
    steps) on the way."""
    labels: Events = []
    cur = s
    while True:
        _, parent, label, inputs = seen[cur]
        if parent is None:
            break
        labels.append((label, inputs))
        cur = parent
    labels.reverse()
    return cur, [(label, inputs) for label, inputs in labels if label in event_ids]


def is_target(interp: Interpreter, prop: Property, s: State) -> bool:
    """Is `s` a target of `prop`: a violation of an invariant (a stuck resolution for
    `termination`), a witness of a reachability property?"""
    want = prop.mode == "reachable"
    if interp.checked_here(prop, s) and interp.holds(prop, s) == want:
        return True
    return prop.kind == "termination" and interp.is_stuck(s)


@dataclass(frozen=True)
class Explored:
    """The result of explicit search for one property."""

    verdict: str                          # "holds" | "fails" | "limit"
    states: int
    path: Events | None = None            # events from an initial state
    start: State | None = None


def explore(system: System, prop: Property, *, max_states: int = 200_000,
            reduce: bool = False) -> Explored:
    """Breadth-first search over concrete states. For an invariant, "fails" comes with
    a shortest event path to a violating state; for a reachability property, "holds" comes
    with a shortest witness path. `reduce`: partial-order reduction of the micro steps
    (`checker.interpret.resolve`; the variables of an every-micro-state property are
    visible), which keeps every verdict and the event count of shortest paths."""
    interp = Interpreter(system, reduce=reduce,
                         visible=lvars(prop.expr) if prop.at == "all" else frozenset())
    want = prop.mode == "reachable"
    found = state_search(interp, max_states=max_states,
                         stop=lambda s: is_target(interp, prop, s))
    if found.hit is not None:
        start, events = path(found.seen, found.hit[0], _event_ids(system))
        return Explored("holds" if want else "fails", len(found.seen), events, start)
    if not found.complete:
        return Explored("limit", len(found.seen))
    return Explored("fails" if want else "holds", len(found.seen))


class StateSpace:
    """The reachable states of a system (at most `limit`; `complete` says whether that was
    all of them), enumerated breadth-first on first use and shared by many queries. A
    space cut at `limit` still shows reachability (with a shortest path), never
    unreachability. Its interpreter is the process's shared one of the system unless one
    is given."""

    def __init__(self, system: System, limit: int, interp: Interpreter | None = None) -> None:
        self.system = system
        self.interp = interp if interp is not None else shared(system)
        self.limit = limit
        self._search: Search[State, Visit] | None = None

    def _searched(self) -> Search[State, Visit]:
        if self._search is None:
            self._search = state_search(self.interp, max_states=self.limit)
        return self._search

    @property
    def complete(self) -> bool:
        return self._searched().complete

    def states(self) -> Iterable[State]:
        """The states, in breadth-first order."""
        return self._searched().seen.keys()

    def __len__(self) -> int:
        return len(self._searched().seen)

    def first(self, test: Callable[[State], object]) -> State | None:
        """The first state (breadth-first: one at the least depth) passing `test`."""
        return next((s for s in self.states() if test(s)), None)

    def path(self, s: State) -> tuple[State, Events]:
        """The initial state and the event steps of a shortest path to `s`."""
        return path(self._searched().seen, s, _event_ids(self.system))


def reachable_states(system: System, *, max_states: int = 200_000) -> tuple[set[State], bool]:
    """All reachable states (stable or not), and whether the search was complete."""
    interp = Interpreter(system)
    # the initial states in set order: the prefix a cut search keeps (Houdini's samples,
    # `checker.engines.lemmas`) is the one it has always been
    found = state_search(interp, max_states=max_states, starts=set(interp.initial_states()))
    return set(found.seen), found.complete


def _event_ids(system: System) -> frozenset[str]:
    return frozenset(e.id for e in system.events)
