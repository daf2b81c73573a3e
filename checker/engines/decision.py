"""Shared helpers of the decision-point engines (`conflicts`, `order`): reachability with a
replayed witness, Z3 queries over the System's variable domains (`Z3Env`, with
`checker.encode`'s one LExpr → Z3 translation and solver factory), and the naming helpers
that turn IR objects back into spec element ids and States.

Reachability (`_reach`) is answered from the system's exact BDD reachability core
(`checker.engines.reach.shared_core`) when the system fits its node budget (an
"unreachable" only with its Z3 certificate, `checker.engines.reach.certify`; when the
certificate's resource limit runs out, only a complete explicit search still decides, else
the answer is undecided and says so); otherwise it
asks `checker.engines.check_property` for a `reachable` property when that engine exists;
when it does not (or answers UNKNOWN, or z3 fails) it falls back to explicit breadth-first
search, which is complete below `options.explicit_limit` states.
Within a run the explicit search is done once (`ExplicitIndex`) and every later query only
scans its states: the conflict and order engines ask many questions of one system.
Whatever answered, `Reacher.witness` replays the trace in the reference interpreter and
cuts it at the first step whose state satisfies the condition, so every reported trace
ends in the situation it claims (docs/semantics.md).

An answer that is neither "reachable" nor "unreachable" is kept as an `Undecided`: it is
never rounded to "no finding" silently.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import yaml
import z3  # noqa: TID251  (engines own their z3 contexts, DESIGN §2)

from checker.encode.solver import z3_solver
from checker.encode.terms import to_z3
from checker.engines.base import ProofStore
from checker.engines.reach import shared_core
from checker.interpret import (
    State,
    StateSpace,
    choices_of,
    compile_expr,
    evaluate,
    explore,
    replay,
    shared,
    trace_steps,
)
from checker.ir import LExpr, Property, Ruleset, System, disj, lvars
from checker.options import Options
from checker.results import Finding, Status, Trace

At = Literal["stable", "all"]


@dataclass(frozen=True)
class Undecided:
    """A candidate finding the engines could not decide (timeout, state limit...)."""

    kind: str
    rules: tuple[str, ...]
    reason: str


@dataclass
class Scan:
    """What an engine found: findings, and the candidates it could not decide."""

    findings: list[Finding] = field(default_factory=list)
    undecided: list[Undecided] = field(default_factory=list)


# the unreachable conditions of a batch are certified together in chunks of this many: one
# Z3 query for a whole batch ran out of its limit on Bushido (26 and 34 conditions) and
# Eldfall (124), where each condition alone was certified, at about 0.7 s each
CERT_CHUNK = 8

SCAN_PARTS = 4   # each scan (conflicts, order, ordering) is decided in this many parts


def scan_part(sources: Iterable[str]) -> int:
    """The part (0 ≤ part < SCAN_PARTS) that decides a candidate made of the rules
    `sources`: a hash of their names, so the split is the same on every machine and for
    every `--jobs`. Each part batches its own reachability queries; `merge_scans` joins
    the parts."""
    key = "\0".join(sorted(set(sources))).encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest()[:4], "big") % SCAN_PARTS


def merge_scans(parts: Iterable[Scan]) -> Scan:
    """The parts of one scan, in part order, as one: one finding per (kind, rules,
    States), an unresolved one before a resolved one, else the first; the findings
    sorted; the undecided candidates in part order."""
    kept: dict[tuple[str, tuple[str, ...], tuple[str, ...]], Finding] = {}
    undecided: list[Undecided] = []
    for scan in parts:
        for f in scan.findings:
            key = (f.kind, f.rules, f.states)
            if key not in kept or (kept[key].resolved and not f.resolved):
                kept[key] = f
        undecided += scan.undecided
    notes = [f for f in kept.values() if f.kind == "simultaneous-rules"]
    if len(notes) > 1:      # one note per ruleset: the parts' pairs together
        for f in notes:
            del kept[(f.kind, f.rules, f.states)]
        one = _joined_notes(notes)
        kept[(one.kind, one.rules, one.states)] = one
    return Scan(sorted(kept.values(), key=lambda f: (f.kind, f.rules, f.states)), undecided)


def _joined_notes(notes: list[Finding]) -> Finding:
    from checker.engines.order_rules import notice_message

    pairs = sorted({tuple(p.split(" / ")) for f in notes for label, value in f.detail
                    if label == "pairs" for p in value.split("; ")})
    rules = tuple(sorted({r for f in notes for r in f.rules}))
    quotes = {label: value for f in notes for label, value in f.detail if label != "pairs"}
    detail = (("pairs", "; ".join(" / ".join(p) for p in pairs)),
              *sorted(quotes.items()))
    return Finding("simultaneous-rules", rules, (), notice_message(pairs), detail=detail)


@dataclass(frozen=True)
class Witness:
    """`reachable` is True (with a replayed `trace` ending in `state`), False, or None."""

    reachable: bool | None
    trace: Trace | None = None
    state: State | None = None
    reason: str = ""


# ============================================================================ reachability

def _question(condition: LExpr, at: At) -> Property:
    """"Is some reachable state (stable unless `at == "all"`) one where `condition`
    holds?" as the property the engines answer."""
    return Property(id="decision-point", source="decision-point", kind="reachable",
                    mode="reachable", expr=condition, at=at)


def _reach(system: System, condition: LExpr, options: Options | None = None,
           at: At = "stable", explicit: ExplicitIndex | None = None,
           store: ProofStore | None = None, why: list[str] | None = None
           ) -> tuple[bool | None, Trace | None]:
    """Is some reachable (stable, unless `at == "all"`) state satisfying `condition`?
    True comes with a witness trace that replays; None means the engines could not tell
    (the reason, when there is one beyond "unknown", appended to `why`).
    Symbolic engines first; explicit search (`explicit`, else `explore`) when they are
    missing or answer UNKNOWN. `store` keeps and reuses the engines' proofs."""
    opts = options or Options()
    prop = _question(condition, at)
    core = shared_core(system, opts.node_budget)
    uncertified = False
    if core is not None:       # the exact reachable set: the answer, with a shortest trace
        exact = core.check(prop)
        if exact.status == "reachable" and exact.trace is not None:
            return True, exact.trace
        if exact.status == "unreachable":
            # the exact set answers "unreachable" only with its Z3 certificate
            # (`reach.certify`), checked within its counted limit (it raises when Z3
            # refutes it). Past the limit the answer is not one of record: only the
            # explicit search, when it is complete, still decides (the Z3 engines, which
            # the certificate could not afford, would only spend their budgets).
            cert = core.certify(prop, opts.cert_rlimit, opts.timeout_ms)
            if cert.status == "certified":
                return False, None
            uncertified = True
            if why is not None:
                why.append(f"the decision diagrams find no such situation, but their Z3 "
                           f"certificate was not checked ({cert.detail})")
    check_property = None if uncertified else getattr(
        importlib.import_module("checker.engines"), "check_property", None)
    if check_property is not None:
        try:
            result = check_property(system, prop, opts, store=store)
        except z3.Z3Exception:
            result = None  # a solver failure is no answer: explicit search decides
        if result is not None and result.status == Status.PROVED and result.trace is not None:
            return True, result.trace
        if result is not None and result.status == Status.VIOLATED:
            return False, None
    if explicit is not None:
        verdict, start, path = explicit.find(condition, at)
    else:
        found = explore(system, prop, max_states=opts.explicit_limit)
        verdict, start, path = found.verdict, found.start, found.path
    if verdict == "holds" and start is not None and path is not None:
        return True, replay(system, start, path, prop, expect="witness")
    return (False, None) if verdict == "fails" else (None, None)


Events = list[tuple[str, tuple[int, ...]]]


class ExplicitIndex:
    """One breadth-first search over concrete states (`checker.interpret.StateSpace`, the
    same order as `explore`), built on first use and shared by every query of a run: each
    query is then a scan of the visited states with the condition compiled to a closure.
    A search cut at `limit` still proves reachability (with a shortest trace), never
    unreachability."""

    def __init__(self, system: System, limit: int) -> None:
        self.space = StateSpace(system, limit)
        self.interp = self.space.interp
        self._stable: dict[State, bool] = {}

    def find(self, condition: LExpr, at: At) -> tuple[str, State | None, Events | None]:
        test = _compile(condition, self.interp.index)
        s = self.space.first(lambda s: test(s) and (at == "all" or self._is_stable(s)))
        if s is not None:
            return "holds", *self.space.path(s)
        return ("fails" if self.space.complete else "limit"), None, None

    def _is_stable(self, s: State) -> bool:
        return self._stable[s] if s in self._stable else \
            self._stable.setdefault(s, self.interp.is_stable(s))


_compile = compile_expr     # the one closure compiler (`checker.interpret.compile_expr`)


class Reacher:
    """`_reach` with a cache and a shared explicit index, plus confirmation of every
    witness in the interpreter."""

    def __init__(self, system: System, options: Options,
                 store: ProofStore | None = None) -> None:
        self.system = system
        self.options = options
        self.store = store
        self.interp = shared(system)
        self.explicit = ExplicitIndex(system, options.explicit_limit)
        self._cache: dict[tuple[LExpr, str], Witness] = {}

    def witness(self, condition: LExpr, at: At = "stable") -> Witness:
        key = (condition, at)
        if key not in self._cache:
            self._cache[key] = self._witness(condition, at)
        return self._cache[key]

    def witness_many(self, conditions: list[LExpr], at: At = "stable") -> list[Witness]:
        """`witness` for each condition, batched: one query for "any of them", and each
        witness found settles every pending condition its trace shows, so k reachable
        conditions and the rest unreachable cost k + 1 queries (one unreachability proof
        instead of one per condition). An undecided batch falls back to single queries."""
        pending = [c for c in dict.fromkeys(conditions) if (c, at) not in self._cache]
        if len(pending) > 1 and not self._from_core(pending, at):
            self._batches(pending, at, lambda left: _reach(
                self.system, disj(*left), self.options, at, self.explicit, self.store))
        return [self.witness(c, at) for c in conditions]

    def _batches(self, pending: list[LExpr], at: At,
                 ask: Callable[[list[LExpr]], tuple[bool | None, Trace | None]]) -> None:
        """Ask "is any of the pending conditions reachable?" (`ask`) until one is left:
        False settles them all as unreachable; a trace settles every condition it shows;
        an undecided answer, or a trace that shows none, leaves the rest to single
        queries (`witness`)."""
        while len(pending) > 1:
            reachable, trace = ask(pending)
            if reachable is False:
                for c in pending:
                    self._cache[(c, at)] = Witness(False)
                return
            if reachable is None or trace is None:
                return
            settled = self._settle(trace, pending, at)
            if not settled:
                return
            pending = [c for c in pending if c not in settled]

    def _settle(self, trace: Trace, pending: list[LExpr], at: At) -> list[LExpr]:
        """The pending conditions `trace` shows, each cached with its own cut trace."""
        settled = []
        for c in pending:
            confirmed = self.confirm(trace, c, at)
            if confirmed is not None:
                self._cache[(c, at)] = Witness(True, *confirmed)
                settled.append(c)
        return settled

    def _from_core(self, pending: list[LExpr], at: At) -> bool:
        """`witness_many`'s batching answered from the complete reachability core, each
        condition compiled once: which conditions the reachable set meets is read off at
        once, the unreachable ones are certified together in chunks of `CERT_CHUNK`, and
        the reachable ones are batched as before, their union taken from the compiled
        diagrams (a batch compiled afresh every round cost Eldfall's order scans 157 s of
        1,662). The traces are the ones the batches found: the union of the reachable
        conditions meets the reachable set where the whole batch does. False (nothing
        done) when there is no complete core; else True: what the batches and the
        certificates leave goes to single queries (`witness`)."""
        core = shared_core(self.system, self.options.node_budget)
        targets = core.targets(pending, at) if core is not None else None
        if core is None or targets is None:
            return False
        false = core.core.enc.bdd.false
        compiled = {c: t for c, t in zip(pending, targets, strict=True) if t != false}
        unreachable = [c for c in pending if c not in compiled]
        for i in range(0, len(unreachable), CERT_CHUNK):
            chunk = unreachable[i:i + CERT_CHUNK]
            if core.certify(_question(disj(*chunk), at), self.options.cert_rlimit,
                            self.options.timeout_ms).status == "certified":
                for c in chunk:
                    self._cache[(c, at)] = Witness(False)
        # past its limit, a chunk's certificate says nothing: each of its conditions is
        # asked alone (`witness`), its own (smaller) certificate checked

        def ask(left: list[LExpr]) -> tuple[bool | None, Trace | None]:
            union = false
            for c in left:
                union |= compiled[c]
            found = core.check(_question(disj(*left), at), target=union)
            return (True, found.trace) if found.status == "reachable" else (None, None)

        left = [c for c in pending if c in compiled]
        self._batches(left, at, ask)
        return True

    def _witness(self, condition: LExpr, at: At) -> Witness:
        why: list[str] = []
        reachable, trace = _reach(self.system, condition, self.options, at, self.explicit,
                                  self.store, why)
        if reachable is None:
            cause = why[0] if why else "solver unknown"
            return Witness(None, reason=f"reachability undecided ({cause}; explicit search "
                           f"stopped at {self.options.explicit_limit} states)")
        if not reachable or trace is None:
            return Witness(False)
        confirmed = self.confirm(trace, condition, at)
        if confirmed is None:  # the engine's trace does not show it: ask explicit search
            verdict, start, path = self.explicit.find(condition, at)
            if verdict == "holds" and start is not None and path is not None:
                confirmed = self.confirm(replay(self.system, start, path), condition, at)
            if confirmed is None:
                return Witness(None, reason="witness trace does not replay")
        return Witness(True, confirmed[0], confirmed[1])

    def satisfies(self, state: State, condition: LExpr, at: At = "stable") -> bool:
        return (at == "all" or self.interp.is_stable(state)) and \
            bool(evaluate(condition, self.interp.env(state)))

    def confirm(self, trace: Trace, condition: LExpr, at: At) -> tuple[Trace, State] | None:
        """Replay `trace` and cut it after the first step that reaches a state satisfying
        `condition` (for `at == "stable"`: the step's final, stable state); that state."""
        interp = self.interp
        start, events = trace_steps(interp, trace)
        fired = choices_of(trace)
        micro, _ = interp.run_choices(start, fired[0])
        cur, hit, state = micro[-1], -1, None
        for s in (micro if at == "all" else micro[-1:]):
            if self.satisfies(s, condition, at):
                hit, state = 0, s
                break
        for i, (event, inputs) in enumerate(events):
            if hit >= 0:
                break
            m = interp.macro_step(cur, event, inputs, fired[i + 1])
            for s in (m.micro if at == "all" else m.micro[-1:]):
                if self.satisfies(s, condition, at):
                    hit, state = i + 1, s
                    break
            cur = m.micro[-1]
        if state is None:
            return None
        prop = Property("decision-point", "", "reachable", "reachable", condition, at)
        return replay(self.system, start, events[:hit], prop, expect="witness",
                      fired=fired[:hit + 1]), state


# ============================================================================ z3

class Z3Env:
    """One fresh `z3.Context` with an Int per System variable (created on first use, with
    its domain asserted by `domains`), and solvers with the run's seed and limits
    (`checker.encode.solver.z3_solver`)."""

    def __init__(self, system: System, options: Options) -> None:
        self.ctx = z3.Context()
        self.system = system
        self.options = options
        self.vars: dict[str, z3.ArithRef] = {}
        self._domains: tuple[int, z3.BoolRef] | None = None   # (len(vars), their domains)

    def solver(self) -> z3.Solver:
        return z3_solver(self.ctx, self.options)

    def var(self, name: str) -> z3.ArithRef:
        if name not in self.vars:
            self.vars[name] = z3.Int(name, self.ctx)
        return self.vars[name]

    def domains(self) -> z3.BoolRef:
        """Every variable created so far within its domain; built again only when a
        variable was added (variables are never removed): the order scan asks thousands of
        checks of one context."""
        if self._domains is not None and self._domains[0] == len(self.vars):
            return self._domains[1]
        parts = []
        for n in sorted(self.vars):
            v, x = self.system.var(n), self.var(n)
            parts.append(z3.And(x >= v.lo, x <= v.hi))
        term = z3.And(*parts) if parts else z3.BoolVal(True, self.ctx)
        self._domains = (len(self.vars), term)
        return term

    def expr(self, e: LExpr) -> Any:
        """The condition `e` as a Z3 term over this context's variables
        (`checker.encode.terms.to_z3`, the one LExpr → Z3 translation)."""
        return to_z3(self.ctx, e, {n: self.var(n) for n in sorted(lvars(e))})

    def check(self, *formulas: Any) -> tuple[str, z3.ModelRef | None]:
        """sat / unsat / unknown of `formulas` with every variable in its domain."""
        s = self.solver()
        for f in formulas:
            s.add(f)
        s.add(self.domains())
        r = s.check()
        if r == z3.sat:
            return "sat", s.model()
        if r == z3.unsat:
            return "unsat", None
        return "unknown: " + s.reason_unknown(), None


# ============================================================================ naming

def states_of(system: System, exprs: Iterable[LExpr]) -> tuple[str, ...]:
    """The State names the expressions read, sorted."""
    names: set[str] = set()
    for e in exprs:
        for n in lvars(e):
            st = system.var(n).state
            if st:
                names.add(st)
    return tuple(sorted(names))


def meta_id(ruleset: Ruleset, resolves: str) -> str:
    """The id of the meta entry that declares `resolves: <name>` (the name itself when the
    spec text cannot be read back)."""
    try:
        data = yaml.safe_load(ruleset.spec_text) if ruleset.spec_text else None
    except yaml.YAMLError:
        data = None
    for m in (data or {}).get("meta", []) if isinstance(data, dict) else []:
        if isinstance(m, dict) and m.get("resolves") == resolves and m.get("id"):
            return str(m["id"])
    return resolves


def cited(ruleset: Ruleset, element: str) -> str:
    """`“quote” (rulebook line N)` for a spec element, or "" when it cites nothing."""
    for c in ruleset.citations:
        if c.element == element:
            return f"“{c.quote}” (rulebook line {c.line})"  # no path: cached results move
    return ""


def show_state(system: System, state: State, names: Iterable[str]) -> str:
    values = dict(zip((v.name for v in system.vars), state, strict=True))
    return ", ".join(f"{n}={system.var(n).show(values[n])}" for n in names)


def visible(system: System) -> tuple[str, ...]:
    """The variables a user sees (no bookkeeping, no inputs), in System order."""
    return tuple(v.name for v in system.vars if not v.bookkeeping and v.kind != "input")
