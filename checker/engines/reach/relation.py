"""Partitioned transition relations: one BDD per event and per rule, and their images.

Each transition `t` gets a relation `R_t(x, y_W)` over the current bits and the next bits
of the variables it writes only (`W`); every other variable keeps its value, so there is no
frame conjunct at all (a disjunctively partitioned relation, Burch, Clarke, Long, McMillan
and Dill, "Symbolic model checking for sequential circuit verification", 1994):

    R_t = cond_t(x) ∧ ⋀_{w ∈ W} (y_w = post_w(x)) ∧ ⋀_{seen s} (y_s = x_s ∨ watched_s(x))

- an *event*: `cond` is its guard; `W` also holds every input, whose next copy is left free
  (within its domain): the roll. The guard and the effects read the inputs from the next
  copy (the rolled values); monitors read the pre-roll state, as the interpreter does.
- a *rule*: `cond` is `may_fire` (enabled — guard ∧ it changes something,
  `checker.ir.enabled` — and no rule the text orders before it enabled) and
  `_res < res_bound`; `W` also holds `_res`, with `_res' = _res + 1`. Without the counter
  (`counter=False`, the fast core, `core.py`) neither: no relation reads or writes `_res`
  (an event's reset of it included), so a set that does not depend on its bits never
  will. Stability is "no
  rule enabled" (`enabled`, kept per rule beside `cond`). The set of stable states is never
  built as one BDD: it is the negated disjunction of every rule's `enabled`, whose size can
  be exponential in an order that suits the rules one by one (the rewritten Bushido spec:
  2.4 million nodes where each rule's BDD has at most 61). `stable_part(S)` removes each
  rule's enabled states from a given set `S` in turn, which stays within the size of `S`.

Image by early quantification, `img_t(S) = (∃x_W. S ∧ R_t)[y_W := x_W]` (one CUDD
and-exists), and the preimage `pre_t(X) = ∃y_W. X[x_W := y_W] ∧ R_t` as the image under the
inverse relation, `R_t` with `x_W` and `y_W` swapped (built on first use):
`pre_t(X) = (∃x_W. X ∧ R_t^-1)[y_W := x_W]`. The same set, but the renaming is applied to
the result, which lies within `cond_t`, instead of to `X`: renaming a large `X` was most of
the termination bound's cost (Eldfall's base core: 3.69 → 1.39 s, every preimage equal).
"""

from __future__ import annotations

from dataclasses import dataclass

from dd import cudd

from checker.errors import InternalError
from checker.ir import Const, Transition, V, enabled, may_fire, post_state

from .encode import Compiler, Encoding, Node


class Unsupported(InternalError):
    """The system is outside what this engine encodes (e.g. an effect assigns an input)."""


@dataclass
class Relation:
    transition: Transition
    cond: Node                 # over current bits: when the transition may be taken
    enabled: Node              # rules: enabled (cond without the ordering rules)
    rel: Node                  # R_t(x, y_W)
    qcur: list[str]            # x_W
    qnext: list[str]           # y_W
    ren_next: dict[str, str]   # y_W → x_W
    ren_cur: dict[str, str]    # x_W → y_W
    # (index in the system's variables, value) of each variable the transition sets to a
    # constant: a state can only be reached by it where it holds those values, a test
    # that spares a walk back the preimages that cannot meet its state
    # (`witness._may_lead_to`)
    fixed: tuple[tuple[int, int], ...] = ()
    inverse: Node | None = None    # R_t with x_W and y_W swapped (`Relations.preimage`)


class Relations:
    """The relations of every event and rule of `enc.system`, and the stability BDDs."""

    def __init__(self, enc: Encoding, *, counter: bool = True) -> None:
        self.enc = enc
        self.counter = counter
        system = enc.system
        self.inputs = frozenset(v.name for v in system.vars if v.kind == "input")
        self.seen = {name: watched for name, watched in system.monitors}
        self._pos = {v.name: i for i, v in enumerate(system.vars)}
        for t in (*system.events, *system.rules):
            bad = self.inputs & {a.var for a in t.effects}
            if bad:
                raise Unsupported(f"{t.id} assigns the input(s) {sorted(bad)}")
        plain = enc.compiler()
        self._monitor = self._monitors(plain)
        self.events = [self._relation(t, enc.compiler(self.inputs), plain) for t in
                       system.events]
        self.rules = [self._relation(t, plain, plain) for t in system.rules]
        res = system.res_var
        self.res_below = enc.bdd.false if counter else enc.bdd.true
        for x, cube in enc.var_map(res).items():
            if counter and x < system.res_bound:
                self.res_below |= cube

    def _monitors(self, comp: Compiler) -> Node:
        enc = self.enc
        out = enc.bdd.true
        for name, watched in self.seen.items():
            now = comp.boolean(V(name))
            after = comp.boolean(watched) | now
            nxt = enc.value_cube(name, 1, primed=True)
            out &= (nxt & after) | (~nxt & ~after)
        return out

    def _relation(self, t: Transition, comp: Compiler, plain: Compiler) -> Relation:
        enc, system = self.enc, self.enc.system
        bdd = enc.bdd
        written: list[str] = []
        rel = bdd.true
        if t.kind == "event":
            cond = en = comp.boolean(t.guard)
            for name in sorted(self.inputs):
                rel &= enc.domain(name, primed=True)
                written.append(name)
        else:
            en = plain.boolean(enabled(system, t))
            cond = plain.boolean(may_fire(system, t)) if system.precedence else en
            if self.counter:
                res = system.res_var
                step = bdd.false
                for x, cube in enc.var_map(res).items():
                    if x < system.res_bound:
                        step |= cube & enc.value_cube(res, x + 1, primed=True)
                rel &= step
                written.append(res)
        rel &= cond
        skip = set() if self.counter else {system.res_var}
        fixed: list[tuple[int, int]] = []
        for name, value in sorted(post_state(t.effects).items()):
            if name in self.seen or name in written or name in skip or value == V(name):
                continue
            v = system.var(name)
            if isinstance(value, Const):
                eq = enc.value_cube(name, int(value.value), primed=True)
                fixed.append((self._pos[name], int(value.value)))
            else:
                eq = bdd.false
                for x, f in comp.integer(value).items():
                    if v.lo <= x <= v.hi:       # the lowering clamps; out of range: no step
                        eq |= f & enc.value_cube(name, x, primed=True)
            rel &= eq
            written.append(name)
        if self.seen:
            rel &= self._monitor
            written.extend(n for n in sorted(self.seen) if n not in written)
        qcur = [b for n in written for b in enc.cur[n]]
        qnext = [b for n in written for b in enc.nxt[n]]
        return Relation(t, cond, en, rel, qcur, qnext, dict(zip(qnext, qcur, strict=True)),
                        dict(zip(qcur, qnext, strict=True)), tuple(fixed))

    def stable_part(self, s: Node) -> Node:
        """The stable states of `s` (no rule enabled), one rule at a time (module doc)."""
        false = self.enc.bdd.false
        for r in self.rules:
            if s == false:
                break
            s = s & ~r.enabled
        return s

    def unstable_part(self, s: Node) -> Node:
        """The states of `s` where some rule is enabled."""
        return s & ~self.stable_part(s)

    def stuck_part(self, s: Node) -> Node:
        """The stuck states of `s`: a rule is still enabled but the resolution counter is
        at `res_bound` (the violations of `termination`)."""
        return self.unstable_part(s & ~self.res_below)

    # ------------------------------------------------------------------ images
    def image(self, r: Relation, s: Node) -> Node:
        if s == self.enc.bdd.false:
            return s
        return self.enc.bdd.let(r.ren_next, cudd.and_exists(s, r.rel, r.qcur))

    def preimage(self, r: Relation, x: Node) -> Node:
        if x == self.enc.bdd.false:
            return x
        if r.inverse is None:
            r.inverse = self.enc.bdd.let({**r.ren_cur, **r.ren_next}, r.rel)
        return self.enc.bdd.let(r.ren_next, cudd.and_exists(x, r.inverse, r.qcur))

    def event_image(self, s: Node) -> Node:
        out = self.enc.bdd.false
        for r in self.events:
            out |= self.image(r, s)
        return out

    def micro_image(self, unstable: Node, resolution: str) -> Node:
        """Successors of `unstable` (states with `_res < res_bound`) by one micro step: any
        rule that may fire (`"any"`, the semantics), or the first enabled rule in rule
        order (`"first"`, the former semantics, kept for comparison benchmarks)."""
        bdd = self.enc.bdd
        out = bdd.false
        remaining = unstable
        for r in self.rules:
            part = remaining & r.cond
            if part != bdd.false:
                out |= self.image(r, part)
            if resolution == "first":
                remaining &= ~r.enabled
                if remaining == bdd.false:
                    break
        return out
