"""Bit-level encoding of a `System` into BDD variables, and expressions compiled to BDDs.

Every bounded integer variable `lo..hi` is stored offset-binary (`value - lo`) in
`ceil(log2(hi - lo + 1))` bits; each bit has a current copy `x<i>_<b>` and a next copy
`y<i>_<b>`, declared next to each other (interleaved), variables in FORCE order
(`order.py`), most significant bit first; a variable's bits form one reordering group.
Encodings above `hi` are excluded by a domain constraint wherever a variable is left free
(rolled inputs, the initial set).

Expressions (`checker.ir.LExpr`) compile to BDDs over the current bits. An integer term is
represented exactly as a map *value → BDD of the states where the term has that value*
(the maps' BDDs are disjoint and cover every state in the domain); arithmetic and
comparisons combine the maps value by value. That is exact and cheap because every domain
is small. A compiler can read a chosen set of variables from their *next* copy: that is how
an event's guard and effects see the freshly rolled inputs.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from dd import cudd

from checker.ir import Const, LExpr, Op, System, V, Var

from .order import force_order

BDD = Any          # dd.cudd.BDD (no stubs)
Node = Any         # dd.cudd.Function
State = tuple[int, ...]
ValueMap = dict[int, Node]


def width(v: Var) -> int:
    return max(0, (v.hi - v.lo).bit_length())


CACHE_ENTRIES = 262_144   # CUDD's initial computed-table size (`dd.cudd.BDD()`)


class Encoding:
    """The BDD manager, the bits of every variable, and value cubes."""

    def __init__(self, system: System, *, reorder: bool = False,
                 order: list[str] | None = None, bdd: BDD | None = None,
                 prefix: str = "") -> None:
        """With `bdd` (a manager shared with other encodings, `checker.engines.behaviour`)
        the bits are named with `prefix` and must already be declared there."""
        self.system = system
        self.bdd: BDD = bdd if bdd is not None else cudd.BDD()
        if bdd is None:
            # the computed table (a memo: results do not depend on it) may not grow past
            # its initial size: left to grow it reached 2 million entries per manager, and
            # with one manager per reading variant that was most of a check's memory
            # (Eldfall's 10 cores 776 → 392 MB, built in 64 → 53 s; Bushido's 5 cores
            # 388 → 189 MB, 57 → 37 s)
            self.bdd.configure(reordering=False, max_cache_hard=CACHE_ENTRIES)
        self.index = {v.name: i for i, v in enumerate(system.vars)}
        self.order = order if order is not None else force_order(system)
        self.cur: dict[str, list[str]] = {}     # var name → current bit names, LSB first
        self.nxt: dict[str, list[str]] = {}
        for name in self.order:
            i = self.index[name]
            n = width(system.vars[i])
            self.cur[name] = [f"{prefix}x{i}_{b}" for b in range(n)]
            self.nxt[name] = [f"{prefix}y{i}_{b}" for b in range(n)]
            if bdd is None and n:
                for b in reversed(range(n)):
                    self.bdd.declare(self.cur[name][b], self.nxt[name][b])
                # one group per variable: sifting moves its bits, current and next, as
                # one block (`core.py`)
                self.bdd.group({self.cur[name][n - 1]: 2 * n})
        self.all_cur = [b for v in system.vars for b in self.cur[v.name]]
        self.to_next = {c: n for v in system.vars
                        for c, n in zip(self.cur[v.name], self.nxt[v.name], strict=True)}
        self.to_cur = {n: c for c, n in self.to_next.items()}
        self._maps: dict[tuple[str, bool], ValueMap] = {}
        if reorder:
            self.bdd.configure(reordering=True)

    # ------------------------------------------------------------------ cubes and values
    def value_cube(self, name: str, value: int, *, primed: bool = False) -> Node:
        v = self.system.vars[self.index[name]]
        bits = (self.nxt if primed else self.cur)[name]
        k = value - v.lo
        return self.bdd.cube({b: bool(k >> j & 1) for j, b in enumerate(bits)})

    def var_map(self, name: str, *, primed: bool = False) -> ValueMap:
        """value → cube, for every value in the variable's domain."""
        key = (name, primed)
        hit = self._maps.get(key)
        if hit is None:
            v = self.system.vars[self.index[name]]
            hit = self._maps[key] = {x: self.value_cube(name, x, primed=primed)
                                     for x in range(v.lo, v.hi + 1)}
        return hit

    def domain(self, name: str, *, primed: bool = False) -> Node:
        out = self.bdd.false
        for cube in self.var_map(name, primed=primed).values():
            out |= cube
        return out

    def state_cube(self, state: State, names: Iterable[str] | None = None) -> Node:
        """The single state `state` (restricted to `names` when given)."""
        chosen = set(names) if names is not None else None
        assignment: dict[str, bool] = {}
        for v, value in zip(self.system.vars, state, strict=True):
            if chosen is not None and v.name not in chosen:
                continue
            k = value - v.lo
            for j, b in enumerate(self.cur[v.name]):
                assignment[b] = bool(k >> j & 1)
        return self.bdd.cube(assignment)

    def pick(self, u: Node, names: Iterable[str] | None = None) -> State:
        """The least state of `u` (variables in the system's order, values ascending; the
        variables outside `names` read as their `lo`). The least, not the diagram's first
        path: a pick that depended on the variable order would make the witnesses depend on
        when the diagrams were sifted, and so on how a check was split over processes."""
        chosen = set(names) if names is not None else {v.name for v in self.system.vars}
        if u == self.bdd.false:
            raise ValueError("pick from the empty set")
        out: list[int] = []
        for v in self.system.vars:
            if v.name not in chosen or not self.cur[v.name]:
                out.append(v.lo)
                continue
            bits = self.cur[v.name]
            for x in range(v.lo, v.hi + 1):
                k = x - v.lo
                rest = self.bdd.let({b: bool(k >> j & 1) for j, b in enumerate(bits)}, u)
                if rest != self.bdd.false:
                    out.append(x)
                    u = rest
                    break
            else:
                raise ValueError(f"pick: no value of {v.name} in its domain")
        return tuple(out)

    def count(self, u: Node, nbits: int | None = None) -> int:
        n = len(self.all_cur) if nbits is None else nbits
        return int(self.bdd.count(u, nvars=n)) if u != self.bdd.false else 0

    def initial(self) -> Node:
        out = self.bdd.true
        for v in self.system.vars:
            part = self.bdd.false
            for x in v.init:
                part |= self.value_cube(v.name, x)
            out &= part
        return out

    def nodes(self) -> int:
        """Nodes in the manager's unique table (CUDD's `n_nodes`, dead nodes not yet
        collected included): the counted budget. Read from the statistics, which costs a
        tenth of `len(bdd)` (that one collects garbage first); both are deterministic."""
        with warnings.catch_warnings():     # dd 0.5.7+ warns about the unit of 'mem'
            warnings.simplefilter("ignore", UserWarning)
            return int(self.bdd.statistics()["n_nodes"])

    def reorderings(self) -> int:
        """How many times CUDD has reordered the variables so far. A reordering keeps the
        function of every referenced node but rebuilds the nodes below it: a node number
        seen inside a diagram before may afterwards name another function."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return int(self.bdd.statistics()["n_reorderings"])

    def compiler(self, primed: frozenset[str] = frozenset()) -> Compiler:
        return Compiler(self, primed)


_CMP: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
}
_ARITH: dict[str, Callable[[int, int], int]] = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "min": min, "max": max,
}


class Compiler:
    """LExpr → BDD over current bits (the variables in `primed` read from next bits)."""

    def __init__(self, enc: Encoding, primed: frozenset[str]) -> None:
        self.enc = enc
        self.bdd = enc.bdd
        self.primed = primed
        self._bools: dict[LExpr, Node] = {}
        self._ints: dict[LExpr, ValueMap] = {}

    def boolean(self, e: LExpr) -> Node:
        hit = self._bools.get(e)
        if hit is None:
            hit = self._bools[e] = self._boolean(e)
        return hit

    def _boolean(self, e: LExpr) -> Node:
        bdd = self.bdd
        match e:
            case Const(value):
                return bdd.true if value else bdd.false
            case V():
                return _nonzero(bdd, self.integer(e))
            case Op("not", (a,)):
                return ~self.boolean(a)
            case Op("and", args):
                out = bdd.true
                for a in args:
                    out &= self.boolean(a)
                    if out == bdd.false:
                        break
                return out
            case Op("or", args):
                out = bdd.false
                for a in args:
                    out |= self.boolean(a)
                    if out == bdd.true:
                        break
                return out
            case Op("implies", (a, b)):
                return ~self.boolean(a) | self.boolean(b)
            case Op("ite", (c, a, b)):
                cond = self.boolean(c)
                return (cond & self.boolean(a)) | (~cond & self.boolean(b))
            case Op(op, (a, b)) if op in _CMP:
                return _compare(bdd, _CMP[op], self.integer(a), self.integer(b))
            case Op():
                return _nonzero(bdd, self.integer(e))
        raise AssertionError(e)

    def integer(self, e: LExpr) -> ValueMap:
        hit = self._ints.get(e)
        if hit is None:
            hit = self._ints[e] = self._integer(e)
        return hit

    def _integer(self, e: LExpr) -> ValueMap:
        bdd = self.bdd
        match e:
            case Const(value):
                return {int(value): bdd.true}
            case V(name):
                return self.enc.var_map(name, primed=name in self.primed)
            case Op("neg", (a,)):
                return {-x: f for x, f in self.integer(a).items()}
            case Op("ite", (c, a, b)):
                cond = self.boolean(c)
                out: ValueMap = {}
                for x, f in self.integer(a).items():
                    _add(bdd, out, x, cond & f)
                for x, f in self.integer(b).items():
                    _add(bdd, out, x, ~cond & f)
                return out
            case Op(op, args) if op in _ARITH and args:
                acc = self.integer(args[0])
                for a in args[1:]:
                    acc = _combine(bdd, _ARITH[op], acc, self.integer(a))
                return acc
            case Op(op) if op in _CMP or op in ("not", "and", "or", "implies"):
                f = self.boolean(e)
                return {k: g for k, g in ((1, f), (0, ~f)) if g != bdd.false}
        raise AssertionError(e)


def _add(bdd: BDD, out: ValueMap, x: int, f: Node) -> None:
    if f == bdd.false:
        return
    out[x] = out[x] | f if x in out else f


def _combine(bdd: BDD, fn: Callable[[int, int], int], a: ValueMap, b: ValueMap) -> ValueMap:
    out: ValueMap = {}
    for x, f in a.items():
        for y, g in b.items():
            _add(bdd, out, fn(x, y), f & g)
    return out


def _compare(bdd: BDD, fn: Callable[[int, int], bool], a: ValueMap, b: ValueMap) -> Node:
    out = bdd.false
    for x, f in a.items():
        for y, g in b.items():
            if fn(x, y):
                out |= f & g
    return out


def _nonzero(bdd: BDD, m: Mapping[int, Node]) -> Node:
    out = bdd.false
    for x, f in m.items():
        if x != 0:
            out |= f
    return out
