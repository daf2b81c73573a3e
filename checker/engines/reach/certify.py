"""Z3 certificates for the core's proofs: the reachable micro-state set as an inductive
invariant, checked by Z3 on the encoding every other engine uses (`checker.encode`).

The invariant `Inv` is the core's set of every reachable micro state (`Core.all_micro`:
stable, in the middle of a resolution and stuck, with every bookkeeping variable and input
as the core computed it) conjoined with the variable domains. It is translated from the BDD
with node sharing, one `If` term per BDD node over the bits of `reach/encode.py`, each bit
read back from the Z3 integer variable (`value - lo` in binary; a bit is a union of value
intervals). Then, under a counted resource limit (`rlimit`), one solver call each:

    initiation    I ∧ ¬Inv                    unsat: every initial state is in Inv
    consecution   Inv ∧ T ∧ ¬Inv'             unsat: every step (event, micro, idle) stays
    the property  Inv ∧ target                unsat: no state of Inv is a target (one
                                              incremental solver holds Inv for all of them)

with `T` the Z3 encoding's one-step relation of the whole system (`Encoding.trans`), so
the certificate is independent of the core's image computation. A `sat` answer is a bug
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

from .encode import Encoding as BddEncoding
from .encode import Node

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


def to_z3(bdd_enc: BddEncoding, u: Node, state: dict[str, Any], ctx: Any) -> Any:
    """The BDD `u` over current bits as a Z3 formula over the integer variables `state`
    (name → Z3 Int): one `If` per node (shared), complement edges as `Not`."""
    system = bdd_enc.system
    bits: dict[str, Any] = {}
    for v in system.vars:
        for b, name in enumerate(bdd_enc.cur[v.name]):
            bits[name] = (state[v.name], v, b)
    true, false = z3.BoolVal(True, ctx), z3.BoolVal(False, ctx)
    memo: dict[int, Any] = {}
    bit_memo: dict[str, Any] = {}

    def bit(name: str) -> Any:
        if name not in bit_memo:
            if name not in bits:
                raise InternalError(f"certificate: the BDD reads {name!r}, not a current bit")
            x, v, b = bits[name]
            bit_memo[name] = bit_term(x, v, b)
        return bit_memo[name]

    def regular(node: Node) -> Any:
        key = int(node) & ~1
        hit = memo.get(key)
        if hit is None:
            if node.var is None:
                hit = true
            else:
                hit = z3.If(bit(node.var), term(node.high), term(node.low))
            memo[key] = hit
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
        if node.var is None or (int(node) & ~1) in memo:
            continue
        if done:
            regular(node)
            continue
        stack.append((node, True))
        stack.append((node.high, False))
        stack.append((node.low, False))
    return term(u)


class Certifier:
    """The certificate of one complete core (`reach.Reach`): initiation and consecution
    checked once (`inductive`), then one query per property (`excludes`)."""

    def __init__(self, system: System, bdd_enc: BddEncoding, micro: Node, *,
                 rlimit: int = CERT_RLIMIT, timeout_ms: int = Options.timeout_ms) -> None:
        self.system = system      # the wall clock (`timeout_ms`) is only a safety net
        self.options = Options(rlimit=rlimit, timeout_ms=timeout_ms)
        self.ctx: Any = z3.Context()
        self.enc = encode(system, self.ctx)
        self.inv = z3.And(to_z3(bdd_enc, micro, self.enc.cur, self.ctx), self.enc.domain)
        self._inductive: CertResult | None = None
        self._queries: Any = None      # one incremental solver holding Inv, for `excludes`

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
        enc = self.enc
        for what, formulas in (
                ("initiation", (enc.init, z3.Not(self.inv))),
                ("consecution", (self.inv, enc.trans, z3.Not(enc.at(self.inv, 1))))):
            result = _certified(self._ask(*formulas), what,
                                f"the reachable set fails {what} in Z3 (the decision diagrams "
                                "and the Z3 encoding disagree)")
            if result.status != "certified":
                return result
        return CertResult("certified")

    def excludes(self, prop: Property) -> CertResult:
        """Inv ∧ target(prop) is unsatisfiable (and Inv is inductive): the certificate of
        "no reachable state is a target of `prop`"."""
        base = self.inductive()
        if base.status != "certified":
            return base
        if self._queries is None:
            self._queries = make_solver(self.ctx, self.options)
            self._queries.add(self.inv)
        self._queries.push()
        self._queries.add(self.enc.target(prop))
        verdict, why = self._queries.check()
        self._queries.pop()
        return _certified(why if verdict is Answer.UNKNOWN else verdict, prop.id,
                          f"a reachable state is a target of {prop.id!r} in Z3, but not in "
                          "the decision diagrams")


def _certified(answer: Answer | str, what: str, disagreement: str) -> CertResult:
    """Z3's answer to a certificate query that must be unsatisfiable: UNSAT certifies; SAT
    means the two encodings disagree (an InternalError saying `disagreement`); anything
    else (unknown, with its reason) leaves `what` unchecked."""
    if answer is Answer.SAT:
        raise InternalError(f"certificate: {disagreement}")
    if answer is not Answer.UNSAT:
        return CertResult("unchecked", f"{what}: {answer}")
    return CertResult("certified")
