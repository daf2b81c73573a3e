"""Certificates for the core's proofs: the reachable set as an inductive invariant that
excludes the property's targets, checked against the encoding every other engine uses
(`checker.encode`), each step split between Z3 and the decision diagrams.

The invariant `Inv` is the core's set of every reachable micro state (`all_micro`: stable,
in the middle of a resolution and stuck, with every bookkeeping variable and input as the
core computed it) conjoined with the variable domains. The fast core's set leaves the
resolution counter `_res` out (`core.py`); its heights `F_i` (the reachable states from
which `i` more micro steps can lead to a state where a rule may still fire) then bound the
counter, `x ∈ F_i → _res ≤ res_bound - 1 - i` for every i, which is what makes the set
inductive with the counter (one micro step goes down one height and up one count; an event
resets the count) and excludes every stuck state. `Inv` is translated from the BDD with
node sharing, one `If` term per BDD node over the bits of `reach/encode.py`, each bit read
back from the Z3 integer variable (`value - lo` in binary; a bit is a union of value
intervals).

Under a counted resource limit (`rlimit`) per solver call:

    initiation   Z3     I ∧ ¬Inv                         unsat: every initial state is in Inv
    refinement   Z3     D ∧ T ∧ sel = t ∧ ¬B_t           unsat, for every event and rule t:
                                                        every step the Z3 encoding takes is
                                                        one the decision diagrams' relation
                                                        `B_t` (with the counter, its frame,
                                                        and "stable" for an event) has
                                                        (`_refined`: asked as T[sel := t],
                                                        "stable" once for all events)
    closure      BDD    img_t(Inv) ⊆ Inv                 for every t (`Relations`, counted)
    exclusion    BDD    Inv ∧ P = ∅                      P: the property's targets as the
                                                        diagrams compile them
                 Z3     D ∧ target ∧ ¬P                  unsat: every target of the Z3
                                                        encoding (`Encoding.target`) is in P

with `T` the Z3 encoding's one-step relation of the whole system (`Encoding.trans`) and `D`
the domains. Refinement and closure together are consecution, `Inv ∧ T ⇒ Inv'`: every Z3
step is a step of the diagrams' relation (Z3), and those keep `Inv` (CUDD); the two halves
of exclusion are `Inv ∧ target = ∅` the same way. Every translation the proof rests on (each
relation, the initial states, each property) is thus checked by Z3 against the encoding all
the other engines use, and the set algebra is CUDD's. The split is what makes it
affordable: asked of Z3 in one call, `Inv ∧ T ∧ ¬Inv'` exhausted 200 M resource units on
Eldfall (41.7 million situations) and took 148 s split by transition, and `Inv ∧ target`
took minutes per property on the widened Bushido system; the refinement queries are over
one small relation or property each and take milliseconds. The idle step keeps every
state. A `sat` answer or a set that is not closed or holds a target is a bug
(`InternalError`); an exhausted limit is reported as such (`CertStatus` "unchecked"), never
read as a certified proof.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import z3  # noqa: TID251 - engines/ is one of the two packages allowed to import z3

from checker.encode import Answer, encode, make_solver
from checker.errors import InternalError
from checker.ir import Property, System, Var
from checker.options import Options

from .core import is_termination
from .encode import Encoding as BddEncoding
from .encode import Node
from .relation import Relations

CERT_RLIMIT = 200_000_000     # Z3 resource units per certificate query (a count)
CertStatus = Literal["certified", "unchecked"]


@dataclass(frozen=True)
class CertResult:
    status: CertStatus
    detail: str = ""


def bit_term(x: Any, v: Var, b: int) -> Any:
    """Bit `b` (LSB = 0) of `x - v.lo` as a Z3 Bool over the integer `x` (in the domain)."""
    span = v.hi - v.lo
    parts = []
    for start in range(1 << b, span + 1, 1 << (b + 1)):
        end = min(start + (1 << b) - 1, span)
        lo, hi = v.lo + start, v.lo + end
        parts.append(x == lo if lo == hi else z3.And(x >= lo, x <= hi))
    if not parts:
        return z3.BoolVal(False, x.ctx)
    return parts[0] if len(parts) == 1 else z3.Or(*parts)


def to_z3(bdd_enc: BddEncoding, u: Node, state: dict[str, Any], ctx: Any,
          memo: dict[Any, Any] | None = None, nxt: dict[str, Any] | None = None,
          keep: bool = True) -> Any:
    """The BDD `u` as a Z3 formula over the integer variables `state` (name → Z3 Int; its
    current bits) and `nxt` (its next bits, when given): one `If` per node (shared, also
    across the calls given one `memo`), complement edges as `Not`.

    A memo entry is keyed by the node's number, which is its address: CUDD reuses it once
    the node is collected, so a memo shared across calls may only learn nodes that stay
    alive as long as it does. `keep=False` (a diagram that is dropped after the call)
    reads the shared memo but writes the call's own nodes to a memo of the call. A
    reordering rebuilds the nodes below every root (only the roots keep their function),
    so the shared memo is emptied when CUDD has reordered since it was filled. (The nodes
    themselves are never kept: a `Function` in a reference cycle may outlive its manager
    when the cycle is collected, and CUDD then refuses to shut down.)"""
    system = bdd_enc.system
    bits: dict[str, Any] = {}
    for v in system.vars:
        for b, name in enumerate(bdd_enc.cur[v.name]):
            bits[name] = (state[v.name], v, b)
        if nxt is not None:
            for b, name in enumerate(bdd_enc.nxt[v.name]):
                bits[name] = (nxt[v.name], v, b)
    true, false = z3.BoolVal(True, ctx), z3.BoolVal(False, ctx)
    if memo is None:
        memo = {}
    reorderings = bdd_enc.reorderings()
    if memo.get("reorderings") != reorderings:
        memo.clear()
        memo["reorderings"] = reorderings
    bit_memo: dict[str, Any] = memo.setdefault("bits", {})
    shared, own = memo, (memo if keep else {})

    def bit(name: str) -> Any:
        if name not in bit_memo:
            if name not in bits:
                raise InternalError(f"certificate: the BDD reads {name!r}, not a known bit")
            x, v, b = bits[name]
            bit_memo[name] = bit_term(x, v, b)
        return bit_memo[name]

    def regular(node: Node) -> Any:
        key = int(node) & ~1
        hit = own.get(key)
        if hit is None:
            hit = shared.get(key)
        if hit is None:
            if node.var is None:
                hit = true
            else:
                hit = z3.If(bit(node.var), term(node.high), term(node.low))
            own[key] = hit
        return hit

    def term(node: Node) -> Any:
        if node == bdd_enc.bdd.true:
            return true
        if node == bdd_enc.bdd.false:
            return false
        body = regular(node)
        return z3.Not(body) if node.negated else body

    # iterative post-order (no deep recursion): children before parents
    stack: list[tuple[Node, bool]] = [(u, False)]
    while stack:
        node, done = stack.pop()
        if node.var is None or (int(node) & ~1) in own or (int(node) & ~1) in shared:
            continue
        if done:
            regular(node)
            continue
        stack.append((node, True))
        stack.append((node.high, False))
        stack.append((node.low, False))
    return term(u)


def with_counter(bdd_enc: BddEncoding, micro: Node, heights: list[Node]) -> Node:
    """The fast core's set `micro` (no counter) with the counter bounded by the heights
    (module docstring): `micro ∧ ⋀_i (F_i → _res ≤ res_bound - 1 - i)`, `_res` in its
    domain."""
    system = bdd_enc.system
    values = bdd_enc.var_map(system.res_var)
    out = micro & bdd_enc.domain(system.res_var)
    for i, level in enumerate(heights):
        low = bdd_enc.bdd.false
        for x, cube in values.items():
            if x <= system.res_bound - 1 - i:
                low |= cube
        out &= ~level | low
    return out


class Certifier:
    """The certificate of one complete core (`reach.Reach`): initiation and consecution
    checked once (`inductive`), then one query per property (`excludes`)."""

    def __init__(self, system: System, bdd_enc: BddEncoding, micro: Node, *,
                 rlimit: int = CERT_RLIMIT, timeout_ms: int = Options.timeout_ms,
                 heights: list[Node] | None = None,
                 relations: Relations | None = None) -> None:
        """`heights`: the fast core's `F_0, F_1, ...` when `micro` leaves the resolution
        counter out (module docstring); None when `micro` holds it. `relations`: the
        counted relations of `bdd_enc` if already built."""
        self.system = system      # the wall clock (`timeout_ms`) is only a safety net
        self.options = Options(rlimit=rlimit, timeout_ms=timeout_ms)
        self.ctx: Any = z3.Context()
        self.enc = encode(system, self.ctx)
        self.bdd_enc = bdd_enc
        self.rel = relations if relations is not None and relations.counter else \
            Relations(bdd_enc, counter=True)
        self.set = micro if heights is None else with_counter(bdd_enc, micro, heights)
        self.inv = z3.And(to_z3(bdd_enc, self.set, self.enc.cur, self.ctx),
                          self.enc.domain)
        self._inductive: CertResult | None = None
        self._memo: dict[Any, Any] = {}
        self._unstable_z3: Any = None

    def _ask(self, *formulas: Any) -> Answer | str:
        solver = make_solver(self.ctx, self.options)
        solver.add(*formulas)
        answer, why = solver.check()
        return why if answer is Answer.UNKNOWN else answer

    def inductive(self) -> CertResult:
        """Initiation and consecution of `Inv` (module docstring), once."""
        if self._inductive is None:
            self._inductive = self._check_inductive()
        return self._inductive

    def _check_inductive(self) -> CertResult:
        result = _certified(self._ask(self.enc.init, z3.Not(self.inv)), "initiation",
                            "the reachable set fails initiation in Z3 (the decision "
                            "diagrams and the Z3 encoding disagree)")
        if result.status != "certified":
            return result
        self._closed()
        return self._refined()

    def _closed(self) -> None:
        """Closure in the decision diagrams: every event from a stable state of the set and
        every rule where it may fire lead back into the set."""
        rel, false = self.rel, self.bdd_enc.bdd.false
        stable = rel.stable_part(self.set)
        for r, start in [*((e, stable) for e in rel.events),
                         *((r, self.set) for r in rel.rules)]:
            if rel.image(r, start) & ~self.set != false:
                raise InternalError(f"certificate: consecution: {r.transition.id} leads out "
                                    "of the reachable set (decision diagrams)")

    def _refined(self) -> CertResult:
        """Refinement in Z3: for each event and rule, a step the Z3 encoding takes that
        the diagrams' counted relation (with the frame, and "stable" for an event) lacks
        is unsatisfiable.

        Asked as `D ∧ T[sel := i] ∧ ¬(B_t ∧ frame)`: the relation with the selector
        replaced by the transition's number and simplified (the same formula as `T ∧ sel =
        i`, without every other transition's part in each query); and "stable" once for all
        events, `D ∧ stable ∧ unstable_B` unsat (the Z3 encoding's stable states are
        stable in the diagrams), since `T[sel := i]` of an event implies the encoding's
        `stable` (module docstring of `checker.encode.system`). Eldfall's base system:
        5.2 → 3.9 s of queries, all unsat as before."""
        enc, rel, ctx = self.enc, self.rel, self.ctx
        memo = self._memo
        if rel.events:
            result = _certified(self._ask(enc.domain, enc.stable, self._unstable()),
                                "consecution (stable states)",
                                "consecution: a state the Z3 encoding holds stable has a rule "
                                "the decision diagrams' relation enables")
            if result.status != "certified":
                return result
        for i, r in enumerate([*rel.events, *rel.rules]):
            written = {n for n, bits in self.bdd_enc.cur.items() if set(bits) & set(r.qcur)}
            frame = [enc.nxt[v.name] == enc.cur[v.name] for v in self.system.vars
                     if v.name not in written]
            step = [to_z3(self.bdd_enc, r.rel, enc.cur, ctx, memo, enc.nxt), *frame]
            trans = z3.simplify(z3.substitute(enc.trans, (enc.sel, z3.IntVal(i, ctx))))
            answer = self._ask(enc.domain, trans, z3.Not(z3.And(*step)))
            result = _certified(answer, f"consecution ({r.transition.id})",
                                f"consecution: the Z3 encoding takes a step of "
                                f"{r.transition.id!r} that the decision diagrams' relation "
                                "does not have")
            if result.status != "certified":
                return result
        return CertResult("certified")

    def excludes(self, prop: Property) -> CertResult:
        """No state of Inv is a target of `prop` (and Inv is inductive): the certificate of
        "no reachable state is a target of `prop`". Split as consecution is: the decision
        diagrams check that the set holds no state of their target (the property compiled
        by `reach/encode.py`; for termination the stuck states, rule by rule), and Z3 that
        every target state of its own encoding (`Encoding.target`) is one of those (the
        two compilations of the property agree where it matters)."""
        base = self.inductive()
        if base.status != "certified":
            return base
        enc, rel, false = self.enc, self.rel, self.bdd_enc.bdd.false
        stable_z3 = z3.Not(self._unstable())
        if is_termination(prop):
            if rel.stuck_part(self.set) != false:
                raise InternalError(f"certificate: the reachable set holds a target of "
                                    f"{prop.id!r} (decision diagrams)")
            cover = z3.And(self._z3(~rel.res_below), self._unstable())  # alive in rel
        else:
            holds = self.bdd_enc.compiler().boolean(prop.expr)
            bad = holds if prop.mode == "reachable" else ~holds
            inside = self.set & bad
            if prop.at != "all":
                inside = rel.stable_part(inside)
            if inside != false:
                raise InternalError(f"certificate: the reachable set holds a target of "
                                    f"{prop.id!r} (decision diagrams)")
            bad_z3 = self._z3(bad, keep=False)          # `bad` is dropped after this call
            cover = bad_z3 if prop.at == "all" else z3.And(bad_z3, stable_z3)
        answer = self._ask(enc.domain, enc.target(prop), z3.Not(cover))
        return _certified(answer, prop.id,
                          f"a target of {prop.id!r} in Z3 is not one in the decision "
                          "diagrams (the two compilations of the property disagree)")

    def _z3(self, u: Node, keep: bool = True) -> Any:
        """A diagram over current bits as a Z3 formula (node terms shared across calls;
        `keep=False` for a diagram that does not live as long as the certifier)."""
        return to_z3(self.bdd_enc, u, self.enc.cur, self.ctx, self._memo, keep=keep)

    def _unstable(self) -> Any:
        """Some rule is enabled, as Z3 reads the diagrams' per-rule `enabled` (never one
        diagram of all: on Bushido that one has millions of nodes)."""
        if self._unstable_z3 is None:
            rules = [self._z3(r.enabled) for r in self.rel.rules]
            self._unstable_z3 = z3.Or(*rules) if rules else z3.BoolVal(False, self.ctx)
        return self._unstable_z3


def _certified(answer: Answer | str, what: str, disagreement: str) -> CertResult:
    """Z3's answer to a certificate query that must be unsatisfiable: UNSAT certifies; SAT
    means the two encodings disagree (an InternalError saying `disagreement`); anything
    else (unknown, with its reason) leaves `what` unchecked."""
    if answer is Answer.SAT:
        raise InternalError(f"certificate: {disagreement}")
    if answer is not Answer.UNSAT:
        return CertResult("unchecked", f"{what}: {answer}")
    return CertResult("certified")
