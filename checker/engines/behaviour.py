"""The behaviour diff of two versions of a ruleset (issue #20): the situations reachable in
one version and not the other, and the steps (situation, event, resulting situation)
possible in one and not the other, over the variables both versions share.

Both reachability cores (`reach.bounded.BoundedCore`, the counted layered one) are built in
**one** BDD manager, their bits interleaved variable by variable, with two ghost copies of
every shared variable over the union of its two domains: `z` (a situation before a step)
and `w` (after it). A set of one version is carried into ghost space by `∃x. S(x) ∧ x = z`
(an and-exists with the variable-wise equality, which is small because the copies sit next
to each other), so the comparison is plain set difference:

    situations:  S_new(z) ∧ ¬S_old(z)            (possible now) and the reverse (gone)
    steps:       T_new,e(z, w) ∧ ¬T_old,e(z, w) ∧ S_old(z) ∧ S_new(z)

where `T_v,e(z, w)` pairs each reachable stable situation `z` of version v with every stable
situation `w` event e leads to from it (the event's image from the situations tagged with
their own `z`, resolved to stability; `z` is untouched by every relation). Steps from a
situation only one version reaches are already told by the situation difference.

A difference is explained, not dumped: a picked member is shrunk to a minimal partial
assignment (greedy deletion of one variable at a time) that the other version never
shows — "a.Dead and a.Panicked" — and everything it covers is one group, with its count and
a shortest witness in the version where it happens, replayed by the reference interpreter.

Budgets are counted: the manager's live nodes (`node_budget`) and the groups reported per
kind (`MAX_GROUPS`). When a core cannot finish within the budget, the comparison is bounded
by the macro layers both cores completed, and says so (`BehaviourDiff.depth`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from dd import cudd

from checker.errors import InternalError
from checker.interpret import Interpreter, replay
from checker.ir import Const, LExpr, Op, Property, System, V, Var, conj
from checker.results import Trace

from .reach.bounded import BoundedCore
from .reach.encode import Encoding, Node, width
from .reach.order import force_order
from .reach.witness import first_layer, walk_back

MAX_GROUPS = 12          # groups reported per kind of difference and ruleset
PER_EVENT = 4            # step groups per event and direction (so that one event's many
#   groups do not hide another event's: a moved expiry is a step lost at one phase and a
#   step gained at another), at most 2 × MAX_GROUPS steps groups per direction in all


@dataclass(frozen=True)
class BehaviourChange:
    """One group of differences: `change` is "possible" (only in the new version) or
    "impossible" (only in the old one); `what` is "situation" or "step"."""

    change: str
    what: str
    event: str                                   # the step's event ("" for situations)
    where: tuple[tuple[str, str], ...]           # the minimal situation (variable, value)
    effect: tuple[tuple[str, str, str], ...]     # steps: (variable, before, after)
    count: int                                   # situations (or steps) in the group
    trace: Trace | None                          # in the version where it happens

    def key(self) -> str:
        """A stable identity for `--accept` files."""
        where = ",".join(f"{n}={v}" for n, v in self.where)
        effect = ",".join(f"{n}:{a}>{b}" for n, a, b in self.effect)
        return f"{self.change}|{self.what}|{self.event}|{where}|{effect}"


@dataclass(frozen=True)
class BehaviourDiff:
    changes: tuple[BehaviourChange, ...]
    shared: tuple[str, ...]                      # the variables compared
    only_old: tuple[str, ...]                    # variables of one version only
    only_new: tuple[str, ...]
    depth: int | None                            # None: exhaustive; k: within k steps
    note: str = ""                               # why it is bounded, or why it was not done
    kinds: tuple[tuple[str, str], ...] = ()      # shared variable → its kind (state, int …)


def _comparable(v: Var) -> bool:
    return not v.bookkeeping and v.kind != "input"


class Ghost:
    """A copy of one shared variable over the union of its two domains."""

    def __init__(self, bdd: object, name: str, lo: int, hi: int, bits: list[str]) -> None:
        self.bdd, self.name, self.lo, self.hi, self.bits = bdd, name, lo, hi, bits

    def cube(self, value: int) -> Node:
        k = value - self.lo
        return self.bdd.cube({b: bool(k >> j & 1) for j, b in enumerate(self.bits)})  # type: ignore[attr-defined]


class Joint:
    """One manager holding both versions' encodings and the ghost copies."""

    def __init__(self, old: System, new: System) -> None:
        bdd = cudd.BDD()
        bdd.configure(reordering=False)
        self.bdd = bdd
        new_names = {v.name: v for v in new.vars}
        self.shared = [v.name for v in old.vars if _comparable(v) and v.name in new_names
                       and _comparable(new_names[v.name])]
        shared = set(self.shared)
        order_old, order_new = force_order(old), force_order(new)
        idx_old = {v.name: i for i, v in enumerate(old.vars)}
        idx_new = {v.name: i for i, v in enumerate(new.vars)}
        self.z: dict[str, Ghost] = {}
        self.w: dict[str, Ghost] = {}
        for name in order_old + [n for n in order_new if n not in idx_old]:
            groups: list[list[str]] = []
            if name in shared:
                a, b = old.var(name), new.var(name)
                lo, hi = min(a.lo, b.lo), max(a.hi, b.hi)
                n = max(0, (hi - lo).bit_length())
                zb = [f"z_{name}_{j}" for j in range(n)]
                wb = [f"w_{name}_{j}" for j in range(n)]
                self.z[name] = Ghost(bdd, name, lo, hi, zb)
                self.w[name] = Ghost(bdd, name, lo, hi, wb)
                groups += [zb, wb]
            if name in idx_old:
                i, n = idx_old[name], width(old.vars[idx_old[name]])
                groups += [[f"ox{i}_{j}" for j in range(n)], [f"oy{i}_{j}" for j in range(n)]]
            if name in idx_new:
                i, n = idx_new[name], width(new.vars[idx_new[name]])
                groups += [[f"nx{i}_{j}" for j in range(n)], [f"ny{i}_{j}" for j in range(n)]]
            top = max((len(g) for g in groups), default=0)
            for j in reversed(range(top)):           # most significant bit first
                bdd.declare(*(g[j] for g in groups if j < len(g)))
        self.enc_old = Encoding(old, order=order_old, bdd=bdd, prefix="o")
        self.enc_new = Encoding(new, order=order_new, bdd=bdd, prefix="n")

    def eq(self, enc: Encoding, ghosts: dict[str, Ghost]) -> Node:
        """x = ghost, variable by variable, for the shared variables."""
        out = self.bdd.true
        for name in self.shared:
            v = enc.system.var(name)
            part = self.bdd.false
            for x in range(v.lo, v.hi + 1):
                part |= enc.value_cube(name, x) & ghosts[name].cube(x)
            out &= part
        return out

    def to_ghost(self, enc: Encoding, s: Node, ghosts: dict[str, Ghost], eq: Node) -> Node:
        """The projection of `s` (over `enc`'s current bits) onto the shared variables,
        carried into `ghosts`."""
        bits = [b for v in enc.system.vars for b in enc.cur[v.name]]
        return cudd.and_exists(s, eq, bits)

    def from_ghost(self, enc: Encoding, g: Node, ghosts: dict[str, Ghost], eq: Node) -> Node:
        bits = [b for name in self.shared for b in ghosts[name].bits]
        return cudd.and_exists(g, eq, bits)

    def pick(self, u: Node, ghosts: dict[str, Ghost]) -> dict[str, int]:
        care = {b for name in self.shared for b in ghosts[name].bits}
        other = sorted(self.bdd.support(u) - care)
        if other:
            u = self.bdd.exist(other, u)
        model = self.bdd.pick(u, care_vars=care)
        if model is None:
            raise InternalError("behaviour diff: pick from an empty set")
        out: dict[str, int] = {}
        for name in self.shared:
            g = ghosts[name]
            out[name] = g.lo + sum(1 << j for j, b in enumerate(g.bits) if model.get(b, False))
        return out

    def cube(self, lits: dict[str, int], ghosts: dict[str, Ghost]) -> Node:
        out = self.bdd.true
        for name, value in lits.items():
            out &= ghosts[name].cube(value)
        return out

    def count(self, u: Node, ghosts: list[dict[str, Ghost]]) -> int:
        n = sum(len(g[name].bits) for g in ghosts for name in self.shared)
        return int(self.bdd.count(u, nvars=n)) if u != self.bdd.false else 0


def _drop_order(system: System, lits: dict[str, int]) -> list[str]:
    """Which literals to try dropping first: numbers and enums, then absent States, then
    present States (a difference is best told by the States it involves)."""
    def rank(name: str) -> tuple[int, str]:
        v = system.var(name)
        if v.kind in ("state", "marker"):
            return (2 if lits[name] else 1, name)
        return (0, name)
    return sorted(lits, key=rank)


def _shrink(j: Joint, system: System, lits: dict[str, int], ghosts: dict[str, Ghost],
            forbidden: Node) -> dict[str, int]:
    """A small partial assignment of `lits` that meets nothing of `forbidden`: literals are
    added in order of preference (present States first) until it does, then the ones not
    needed are dropped, least preferred first."""
    prefer = list(reversed(_drop_order(system, lits)))
    keep: dict[str, int] = {}
    for name in prefer:
        if j.cube(keep, ghosts) & forbidden == j.bdd.false:
            break
        keep[name] = lits[name]
    for name in reversed(list(keep)):
        trial = {k: v for k, v in keep.items() if k != name}
        if j.cube(trial, ghosts) & forbidden == j.bdd.false:
            keep = trial
    return keep


def _common(j: Joint, system: System, group: Node, ghosts: dict[str, Ghost],
            lits: dict[str, int]) -> dict[str, int]:
    """`lits` plus every State (or marker count) that all of `group` shares and is present:
    where the difference happens, told by what the models there have."""
    out = dict(lits)
    for name in j.shared:
        if name in out or system.var(name).kind not in ("state", "marker"):
            continue
        g = ghosts[name]
        values = [x for x in range(g.lo, g.hi + 1) if group & g.cube(x) != j.bdd.false]
        if len(values) == 1 and values[0] != 0:
            out[name] = values[0]
    return out


def _shown(system: System, lits: dict[str, int]) -> tuple[tuple[str, str], ...]:
    return tuple((n, system.var(n).show(x)) for n, x in sorted(lits.items()))


class Version:
    def __init__(self, j: Joint, enc: Encoding, node_budget: int, resolution: str) -> None:
        self.system = enc.system
        self.core = BoundedCore(enc.system, node_budget=node_budget, enc=enc,
                         resolution=resolution)  # type: ignore[arg-type]
        self.progress = self.core.run()
        self.eq_z = j.eq(enc, j.z)
        self.eq_w = j.eq(enc, j.w)
        self.enc = enc
        self.j = j

    def stable_states(self, depth: int | None, at: str = "stable") -> Node:
        """Every reachable stable state (every micro state with `at="all"`), bookkeeping
        and inputs included (within `depth` macro layers, if given)."""
        if depth is None or depth + 1 >= len(self.core.layers):
            return self.core.all_micro if at == "all" else self.core.all_stable
        reached = self.core.reached(depth)
        return reached if at == "all" else self.core.rel.stable_part(reached)

    def situations(self, depth: int | None) -> Node:
        """The canonical stable situations (within `depth` macro layers, if given)."""
        if depth is None:
            return self.core.visited
        out = self.j.bdd.false
        for layer in self.core.layers[:depth + 1]:
            out |= layer.frontier
        return out

    def steps(self, event: str, situations: Node) -> Node:
        """T_e(z, w) from the given situations (over x)."""
        rel = next((r for r in self.core.rel.events if r.transition.id == event), None)
        if rel is None:
            return self.j.bdd.false
        start = situations & self.eq_z
        after = self.core.rel.image(rel, start)
        post, _ = self.core.resolve(after, counted=False)
        post = self.core.canon(self.core.rel.stable_part(post))
        keep_bits = [b for v in self.system.vars for b in self.enc.cur[v.name]]
        return cudd.and_exists(post, self.eq_w, keep_bits)

    def witness(self, goal_x: Node, where: dict[str, int],
                tail: tuple[str, dict[str, int]] | None = None) -> Trace | None:
        """A shortest replayed trace to a stable situation of `goal_x` (which satisfies
        `where`); with `tail` (event, effect), one more step of that event giving the
        effect."""
        k = first_layer(self.core, goal_x, "stable")
        if k is None:
            return None
        segments = walk_back(self.core, k, goal_x, "stable")
        start = segments[0].micro[0]
        events = [(s.event, s.inputs) for s in segments[1:] if s.event is not None]
        fired = [s.fired for s in segments]
        interp = Interpreter(self.system)
        target = _literals(where)
        if tail is not None:
            event, effect = tail
            last = segments[-1].micro[-1]
            ev = next(e for e in self.system.events if e.id == event)
            found = None
            for combo in itertools.product(*(range(v.lo, v.hi + 1) for v in interp.inputs)):
                rolled = list(last)
                for v, val in zip(interp.inputs, combo, strict=True):
                    rolled[interp.index[v.name]] = val
                if not interp.event_enabled(ev, tuple(rolled)):
                    continue
                for m in interp.macro_steps(last, event, combo):   # every order's outcome
                    end = m.micro[-1]
                    if not m.stuck and all(end[interp.index[n]] == x
                                           for n, x in effect.items()):
                        found = (combo, m.fired)
                        break
                if found is not None:
                    break
            if found is None:
                return None
            events.append((event, found[0]))
            fired.append(found[1])
            target = _literals(effect)
        prop = Property("behaviour-diff", "", "reachable", "reachable", target)
        return replay(self.system, start, events, prop, expect="witness", fired=fired)


def _literals(lits: dict[str, int]) -> LExpr:
    return conj(*(Op("eq", (V(n), Const(x))) for n, x in sorted(lits.items())))


def behaviour_diff(old: System, new: System, *, node_budget: int,
                   resolution: str = "any",
                   props: Sequence[tuple[Property, Property]] = ()) -> BehaviourDiff:
    """Everything the new version makes possible or impossible (module docstring); `props`
    are the properties violated in both versions, compared by their violations."""
    from .promises import compare_decisions, compare_violations
    j = Joint(old, new)
    a = Version(j, j.enc_old, node_budget, resolution)
    b = Version(j, j.enc_new, node_budget, resolution)
    only_old = tuple(sorted(v.name for v in old.vars if _comparable(v) and v.name not in j.shared))
    only_new = tuple(sorted(v.name for v in new.vars if _comparable(v) and v.name not in j.shared))
    kinds = tuple((n, new.var(n).kind) for n in j.shared)
    depth: int | None = None
    note = ""
    if not (a.progress.complete and b.progress.complete):
        depth = min(len(a.core.layers), len(b.core.layers)) - 1
        if depth < 0:
            return BehaviourDiff((), tuple(j.shared), only_old, only_new, 0,
                                 "not compared: " + (a.progress.reason or b.progress.reason),
                                 kinds)
        note = (f"compared within {depth} steps only: "
                f"{a.progress.reason or b.progress.reason}")
    sa_x, sb_x = a.situations(depth), b.situations(depth)
    sa, sb = j.to_ghost(a.enc, sa_x, j.z, a.eq_z), j.to_ghost(b.enc, sb_x, j.z, b.eq_z)
    changes: list[BehaviourChange] = []
    for change, here, there, ver in (("possible", sb, sa, b), ("impossible", sa, sb, a)):
        changes += situation_groups(j, change, here & ~there, there, ver)
    both = sa & sb
    events = sorted({e.id for e in old.events} | {e.id for e in new.events})
    untold: list[str] = []
    for change, mine, other in (("possible", b, a), ("impossible", a, b)):
        found = left = 0
        for event in events:
            t_mine = mine.steps(event, mine.situations(depth))
            t_other = other.steps(event, other.situations(depth))
            diff = t_mine & ~t_other & both
            room = min(PER_EVENT, 2 * MAX_GROUPS - found)
            groups, rest = _step_groups(j, change, event, diff, t_other & both, mine, room)
            found += len(groups)
            changes += groups
            if rest != j.bdd.false:
                left += j.count(rest, [j.z, j.w])
        if left:
            now = "now possible" if change == "possible" else "no longer possible"
            untold.append(f"{left} more step(s) {now}, not grouped (at most {PER_EVENT} "
                          "groups per event are told)")
    if untold:
        note = "; ".join(x for x in (note, *untold) if x)
    changes += compare_violations(j, a, b, props, depth)
    changes += compare_decisions(j, a, b, both, depth)
    return BehaviourDiff(tuple(changes), tuple(j.shared), only_old, only_new, depth, note,
                         kinds)


def situation_groups(j: Joint, change: str, diff: Node, other: Node, ver: Version, *,
                     what: str = "situation", label: str = "",
                     limit: int = MAX_GROUPS) -> list[BehaviourChange]:
    """`diff` (a set of situations over `z`) told as groups, each a small partial
    assignment that meets nothing of `other`, with a witness in `ver`."""
    out: list[BehaviourChange] = []
    while diff != j.bdd.false and len(out) < limit:
        lits = _shrink(j, ver.system, j.pick(diff, j.z), j.z, other)
        group = diff & j.cube(lits, j.z)
        lits = _common(j, ver.system, group, j.z, lits)
        goal = j.from_ghost(ver.enc, j.cube(lits, j.z), j.z, ver.eq_z)
        out.append(BehaviourChange(change, what, label, _shown(ver.system, lits), (),
                                   j.count(group, [j.z]), ver.witness(goal, lits)))
        diff &= ~j.cube(lits, j.z)
    return out


def _step_groups(j: Joint, change: str, event: str, diff: Node, other: Node, ver: Version,
                 limit: int) -> tuple[list[BehaviourChange], Node]:
    """Up to `limit` groups of the steps `diff` (over `z`, `w`), and the steps left."""
    out: list[BehaviourChange] = []
    while diff != j.bdd.false and len(out) < limit:
        pre = j.pick(diff, j.z)
        post = j.pick(diff & j.cube(pre, j.z), j.w)
        changed = {n: x for n, x in post.items() if x != pre[n]}
        effect = j.cube(changed, j.w)
        for n in j.shared:
            if n not in changed:
                same = j.bdd.false
                for x in range(j.z[n].lo, j.z[n].hi + 1):
                    same |= j.z[n].cube(x) & j.w[n].cube(x)
                effect &= same
        lits = _shrink(j, ver.system, pre, j.z, other & effect)
        where = j.cube(lits, j.z)
        group = diff & where & effect
        lits = _common(j, ver.system, group, j.z, lits)
        goal = j.from_ghost(ver.enc, cudd.and_exists(
            group, j.bdd.true, [b for n in j.shared for b in j.w[n].bits]), j.z, ver.eq_z)
        shown = tuple((n, ver.system.var(n).show(pre[n]), ver.system.var(n).show(x))
                      for n, x in sorted(changed.items()))
        out.append(BehaviourChange(change, "step", event, _shown(ver.system, lits), shown,
                                   j.count(group, [j.z, j.w]),
                                   ver.witness(goal, lits, (event, changed))))
        diff &= ~(where & effect)
    return out, diff
