"""Conflicts at decision points: `fact-contradiction`, `forbidden-obligation`,
`no-legal-action` (DESIGN §4 "Conflicts", docs/semantics.md "Decision points").

At a reachable stable state, every active constraint and fact of one model is an assertion
over that model's decision and attribute variables (one Int per decision, over its
options; one Int per fact attribute, over the values the facts use):

    only   d ∈ {o…}        forbid  d ∉ {o…}        must  d = o        fact  a = v

and the situation is a conflict when they are jointly UNSAT. Every assertion reads a single
variable but one: `at_least_one` (a disjunction across the slots of a slotted decision,
`action.first ∈ {o…} or action.second ∈ {o…}`) reads every slot of its decision, so the
slot variables of a decision with an `at_least_one` are one group, of several variables.
A minimal unsatisfiable set (MUS) always lives on one group: per (model, group) the MUSes
are enumerated completely with MARCO (Liffiton & Malik, "Enumerating
infeasibility: finding multiple MUSes quickly", CPAIOR 2013) over the tracked assertions —
shrink an unsat core by deletion to a MUS and block its supersets, grow a satisfiable seed
to a maximal satisfiable set and block its subsets. This replaces the size-≤3 scan of
z3-notes.md: it is exact for any size (three forbids and an `only` are found too) and stays
cheap because each variable has few rules.

A MUS is a conflict only where its members are active together: the conjunction of their
`when`s with `stable` must be satisfiable over the variable domains (Z3), and then
reachable (`decision.Reacher`), which yields the witness trace, replayed and cut at the
first state showing the situation. Resolution, in this order:
- a member `overrides` another member → resolved by that member;
- `meta: resolves: prevent-beats-force` and the MUS is one `must` against `only`/`forbid`
  members → resolved by the meta entry;
- rules outside the MUS that override a member resolve it only where they are active: the
  conflict is unresolved if it is reachable with all of them inactive, else resolved by
  those active in the witness.
Resolved findings are reported with `resolved=True`. Candidates whose satisfiability or
reachability is UNKNOWN are kept in `Scan.undecided`, never dropped as "no conflict".
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import z3  # noqa: TID251  (engines own their z3 contexts, DESIGN §2)

from checker.encode.solver import z3_solver
from checker.engines.base import ProofStore
from checker.engines.decision import (
    SCAN_PARTS,
    Reacher,
    Scan,
    Undecided,
    Witness,
    Z3Env,
    cited,
    merge_scans,
    meta_id,
    scan_part,
    show_state,
    states_of,
    visible,
)
from checker.engines.declarations import scan_declarations
from checker.errors import InternalError
from checker.interpret import evaluate
from checker.ir import Constraint, LExpr, Ruleset, System, conj, lvars, neg, stable
from checker.options import Options
from checker.results import Finding

MAX_MARCO_ROUNDS = 5_000


@dataclass(frozen=True)
class _Item:
    """One tracked assertion: a constraint on one decision, or one fact."""

    ident: str                    # instance id (`id@model/decision`)
    source: str                   # spec element id
    kind: str                     # only | forbid | must | some | fact
    var: str                      # the group: "decision:<name>" or "fact:<attribute>"
    size: int                     # each variable's domain is 0 .. size-1
    allowed: frozenset[int]
    when: LExpr
    overrides: tuple[str, ...]
    model: str | None
    text: str
    slots: tuple[int, ...] = (0,)  # the group's variables it reads: holds if one is allowed
    width: int = 1                 # how many variables the group has (the slots)


def find_conflicts(ruleset: Ruleset, options: Options) -> list[Finding]:
    """Every distinct minimal conflict reachable at a decision point (see module doc)."""
    return scan_conflicts(ruleset, options).findings


def scan_conflicts(ruleset: Ruleset, options: Options, part: int | None = None,
                   store: ProofStore | None = None) -> Scan:
    """`find_conflicts` with the candidates that could not be decided (`Scan.undecided`);
    only the decisions and attributes of `part` (`decision.scan_part` of the rules that
    constrain them) if given, else every part in turn, merged."""
    if part is None:
        return merge_scans(scan_conflicts(ruleset, options, k, store)
                           for k in range(SCAN_PARTS))
    system = ruleset.system
    reacher = Reacher(system, options, store)
    scan = Scan()
    candidates: list[_Candidate] = []
    for items in _groups(system).values():
        by_var: dict[str, list[_Item]] = {}
        for it in items:
            by_var.setdefault(it.var, []).append(it)
        mine = [var for var in sorted(by_var)
                if scan_part(i.source for i in by_var[var]) == part]
        if not mine:
            continue
        env = Z3Env(system, options)
        steady = env.expr(stable(system))
        for var in mine:
            vitems = by_var[var]
            muses, reason = _muses(vitems, options)
            if vitems[0].width > 1:
                muses = _fewest_rules(vitems, muses)
            if reason:
                scan.undecided.append(Undecided("conflict", tuple(sorted({
                    i.source for i in vitems})), f"{var}: {reason}"))
            for mus in muses:
                cand = _candidate(ruleset, env, steady, items, [vitems[i] for i in mus], scan)
                if cand is not None:
                    candidates.append(cand)
    # reachability, batched: first where nothing outside the clash overrides it, then
    # (only for clashes that never occur unresolved) anywhere
    first = reacher.witness_many([c.primary for c in candidates])
    again = [c for c, w in zip(candidates, first, strict=True)
             if w.reachable is False and c.external and not c.resolvers]
    second = dict(zip((id(c) for c in again),
                      reacher.witness_many([c.situation for c in again]), strict=True))
    kept: dict[tuple[str, tuple[str, ...], tuple[str, ...]], Finding] = {}
    for cand, w in zip(candidates, first, strict=True):
        resolvers = list(cand.resolvers)
        if id(cand) in second:
            w = second[id(cand)]
            if w.state is not None:
                final = reacher.interp.env(w.state)
                resolvers = sorted({z.source for z in cand.external if evaluate(z.when, final)})
        finding = _finding(ruleset, reacher, cand, w, resolvers, scan)
        if finding is not None:  # one per rule set (models, decisions); unresolved first
            key = (finding.kind, finding.rules, finding.states)
            if key not in kept or (kept[key].resolved and not finding.resolved):
                kept[key] = finding
    extra = scan_declarations(ruleset, reacher, part)
    for finding in extra.findings:
        key = (finding.kind, finding.rules, finding.states)
        if key not in kept or (kept[key].resolved and not finding.resolved):
            kept[key] = finding
    scan.undecided += extra.undecided
    scan.findings = sorted(kept.values(), key=lambda f: (f.kind, f.rules, f.states))
    return scan


# ============================================================================ items

def _groups(system: System) -> dict[str | None, list[_Item]]:
    """The tracked assertions of each model instance (None: a single-model ruleset)."""
    decisions = {d.name: d.options for d in system.decisions}
    values: dict[str, list[str]] = {}
    for f in system.facts:
        values.setdefault(f.attribute, [])
        if f.value not in values[f.attribute]:
            values[f.attribute].append(f.value)
    # a slot of a decision with an `at_least_one`: (model, slot) → (decision, index, slots)
    slot_of: dict[tuple[str | None, str], tuple[str, int, int]] = {}
    for c in system.constraints:
        if c.kind == "some":
            for i, s in enumerate(c.slots):
                slot_of[(c.model, s)] = (c.decision, i, len(c.slots))
    out: dict[str | None, list[_Item]] = {}
    for c in system.constraints:
        if c.kind == "some":
            out.setdefault(c.model, []).append(_some_item(c, decisions[c.slots[0]]))
        elif c.decision in decisions:
            out.setdefault(c.model, []).append(_constraint_item(
                c, decisions[c.decision], slot_of.get((c.model, c.decision))))
        else:
            raise InternalError(f"constraint {c.id} names no decision ({c.decision!r})")
    for f in system.facts:
        vals = sorted(values[f.attribute])
        out.setdefault(f.model, []).append(_Item(
            f.id, f.source, "fact", f"fact:{f.attribute}", len(vals),
            frozenset({vals.index(f.value)}), f.when, f.overrides, f.model,
            f"{f.attribute} = {f.value}"))
    return out


def _constraint_item(c: Constraint, options: tuple[str, ...],
                     slot: tuple[str, int, int] | None = None) -> _Item:
    """`slot`: (decision, index, slots) when `c` is on a slot of a decision grouped with
    an `at_least_one`; its variable is then the slot's of that group."""
    chosen = frozenset(options.index(o) for o in c.options if o in options)
    allowed = frozenset(range(len(options))) - chosen if c.kind == "forbid" else chosen
    shown = ", ".join(c.options)
    text = {"only": f"{c.decision} only among {{{shown}}}",
            "forbid": f"{c.decision} not {{{shown}}}",
            "must": f"{c.decision} must be {shown}"}[c.kind]
    if slot is None:
        return _Item(c.id, c.source, c.kind, f"decision:{c.decision}", len(options),
                     allowed, c.when, c.overrides, c.model, text)
    base, index, width = slot
    return _Item(c.id, c.source, c.kind, f"decision:{base}", len(options), allowed, c.when,
                 c.overrides, c.model, text, (index,), width)


def _some_item(c: Constraint, options: tuple[str, ...]) -> _Item:
    """`at_least_one`: one of the slots (variables 0 .. len(slots)-1) takes an option."""
    allowed = frozenset(options.index(o) for o in c.options if o in options)
    text = (f"at least one of {', '.join(c.slots)} among {{{', '.join(c.options)}}}"
            if c.options else f"at least one of {', '.join(c.slots)} among no option")
    return _Item(c.id, c.source, "some", f"decision:{c.decision}", len(options), allowed,
                 c.when, c.overrides, c.model, text, tuple(range(len(c.slots))),
                 len(c.slots))


def _fewest_rules(items: list[_Item], muses: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The MUSes of a group of slots whose rules do not include another MUS's rules: one
    rule restricts every slot (an item per slot), so "Panic and Stunned" is a clash of two
    rules and "Panic, Slowed on the first action and Stunned" adds nothing to it (the
    items of one rule share its `when`: the larger clash is active only where the smaller
    is)."""
    rules = [frozenset(items[i].source for i in mus) for mus in muses]
    return [mus for mus, r in zip(muses, rules, strict=True) if not any(o < r for o in rules)]


# ============================================================================ MARCO

def _muses(items: list[_Item], options: Options) -> tuple[list[tuple[int, ...]], str]:
    """All minimal unsatisfiable subsets of `items` (one group: one variable, or the slot
    variables of a decision), as sorted index tuples, and a reason when the enumeration
    stopped early."""
    ctx = z3.Context()
    width = items[0].width
    if any(it.width != width or max(it.slots) >= width for it in items):
        raise InternalError(f"group {items[0].var} mixes variables of different groups")
    xs = [z3.Int(f"x{k}", ctx) for k in range(width)]
    sel = [z3.Bool(f"s{i}", ctx) for i in range(len(items))]

    def solver() -> z3.Solver:
        return z3_solver(ctx, options)

    sub = solver()
    for x in xs:
        sub.add(x >= 0, x < items[0].size)
    for s_i, it in zip(sel, items, strict=True):
        cells = [xs[k] == v for k in it.slots for v in sorted(it.allowed)]
        member = z3.Or(*cells) if cells else z3.BoolVal(False, ctx)
        sub.add(z3.Implies(s_i, member))

    def check(subset: list[int]) -> z3.CheckSatResult:
        return sub.check(*[sel[i] for i in subset])

    by_name = {str(s): i for i, s in enumerate(sel)}
    mapper = solver()
    found: list[tuple[int, ...]] = []
    for _ in range(MAX_MARCO_ROUNDS):
        r = mapper.check()
        if r == z3.unsat:
            return sorted(found), ""
        if r != z3.sat:
            return sorted(found), f"unknown ({mapper.reason_unknown()})"
        model = mapper.model()
        seed = [i for i in range(len(items))
                if z3.is_true(model.eval(sel[i], model_completion=True))]
        r = check(seed)
        if r == z3.sat:
            grown = _grow(seed, len(items), check)
            if grown is None:
                return sorted(found), "unknown while growing a satisfiable set"
            rest = [sel[j] for j in range(len(items)) if j not in grown]
            mapper.add(z3.Or(*rest) if rest else z3.BoolVal(False, ctx))
        elif r == z3.unsat:
            core = sorted(by_name[str(c)] for c in sub.unsat_core())
            mus = _shrink(core, check)
            if mus is None:
                return sorted(found), "unknown while shrinking a core"
            found.append(tuple(mus))
            mapper.add(z3.Or(*[z3.Not(sel[j]) for j in mus]))
        else:
            return sorted(found), f"unknown ({sub.reason_unknown()})"
    return sorted(found), f"more than {MAX_MARCO_ROUNDS} MARCO rounds"


def _grow(seed: list[int], n: int,
          check: Callable[[list[int]], z3.CheckSatResult]) -> set[int] | None:
    grown = list(seed)
    for j in range(n):
        if j not in grown:
            r = check([*grown, j])
            if r == z3.sat:
                grown.append(j)
            elif r != z3.unsat:
                return None
    return set(grown)


def _shrink(core: list[int],
            check: Callable[[list[int]], z3.CheckSatResult]) -> list[int] | None:
    """Deletion-based minimization: drop each member whose removal keeps the set UNSAT."""
    mus = list(core)
    for i in list(core):
        trial = [j for j in mus if j != i]
        r = check(trial)
        if r == z3.unsat:
            mus = trial
        elif r != z3.sat:
            return None
    return mus


# ============================================================================ one MUS

def _kind(members: list[_Item]) -> str:
    if members[0].kind == "fact":
        return "fact-contradiction"
    if any(m.kind in ("must", "some") for m in members):
        return "forbidden-obligation"
    return "no-legal-action"


@dataclass(frozen=True)
class _Candidate:
    """A MUS whose members can be active together (over the variable domains)."""

    members: tuple[_Item, ...]
    kind: str
    rules: tuple[str, ...]
    situation: LExpr              # every member active
    resolvers: tuple[str, ...]    # an overriding member, the prevent-beats-force meta entry
    external: tuple[_Item, ...]   # rules outside the MUS that override a member

    @property
    def primary(self) -> LExpr:
        """Where the clash would be unresolved: no external overrider active."""
        if self.resolvers or not self.external:
            return self.situation
        return conj(self.situation, *(neg(z.when) for z in self.external))


def _candidate(ruleset: Ruleset, env: Z3Env, steady: z3.BoolRef, group: list[_Item],
               members: list[_Item], scan: Scan) -> _Candidate | None:
    system = ruleset.system
    kind = _kind(members)
    rules = tuple(sorted({m.source for m in members}))
    situation = conj(*(m.when for m in members))
    status, _ = env.check(env.expr(situation), steady)
    if status == "unsat":
        return None
    if status != "sat":
        scan.undecided.append(Undecided(kind, rules, f"activity: {status}"))
        return None
    resolvers = sorted({x.source for x in members for y in members
                        if x.source != y.source and y.source in x.overrides})
    if ("prevent-beats-force" in system.meta and kind == "forbidden-obligation"
            and any(m.kind in ("only", "forbid") for m in members)):
        resolvers.append(meta_id(ruleset, "prevent-beats-force"))
    external = tuple(z for z in group if z.source not in rules
                     and any(m.source in z.overrides for m in members))
    return _Candidate(tuple(members), kind, rules, situation, tuple(resolvers), external)


def _finding(ruleset: Ruleset, reacher: Reacher, cand: _Candidate, w: Witness,
             resolvers: list[str], scan: Scan) -> Finding | None:
    system = ruleset.system
    members = list(cand.members)
    if w.reachable is None:
        scan.undecided.append(Undecided(cand.kind, cand.rules, w.reason))
        return None
    if not w.reachable or w.trace is None or w.state is None:
        return None
    final = reacher.interp.env(w.state)
    if not all(evaluate(m.when, final) for m in members):
        raise AssertionError("witness does not show the situation")  # confirm() guarantees
    confirm_clash(members)
    states = states_of(system, [m.when for m in members])
    read = set().union(*(lvars(m.when) for m in members))
    situation = show_state(system, w.state, [n for n in visible(system) if n in read])
    held = tuple(sorted({st for n in read if (st := system.var(n).state) and final[n] > 0}))
    message = _message(cand.kind, members, held, situation, len(w.trace) - 1, resolvers)
    return Finding(cand.kind, cand.rules, states, message, bool(resolvers),
                   tuple(sorted(set(resolvers))), w.trace,
                   _detail(ruleset, members, resolvers))


def confirm_clash(members: list[_Item]) -> None:
    """Independently of z3, confirm that the clash is real and minimal: the members (all
    active in the witness state, checked above) leave their decision or fact no allowed
    value (their slots no allowed assignment, enumerated), and without any one of them some
    value is allowed. A clash that fails this is a bug in the engine (`InternalError`),
    never a finding."""
    def left(items: list[_Item]) -> bool:
        width = items[0].width
        return any(all(any(values[k] in it.allowed for k in it.slots) for it in items)
                   for values in itertools.product(range(items[0].size), repeat=width))

    if len({m.var for m in members}) != 1 or len({m.width for m in members}) != 1 or \
            left(members):
        raise InternalError(f"conflict {[m.ident for m in members]} is not confirmed by "
                            "the interpreter: some value satisfies every rule")
    for i in range(len(members)):
        rest = members[:i] + members[i + 1:]
        if rest and not left(rest):
            raise InternalError(f"conflict {[m.ident for m in members]} is not minimal: "
                                f"it holds without {members[i].ident}")


def _message(kind: str, members: list[_Item], states: tuple[str, ...], situation: str,
             steps: int, resolvers: list[str]) -> str:
    """`states`: the States the model has in the witness (the ones the rules require)."""
    model = members[0].model
    who = f"model {model!r}" if model else "a model"
    where = (f"{who} can be {' and '.join(states)}{' at once' if len(states) > 1 else ''}"
             if states else f"{who} can reach this decision point")
    where += f" ({situation}; trace: {steps} steps)" if situation else \
        f" (trace: {steps} steps)"
    said = " and ".join(f"{m.text} ({m.source!r})" for m in sorted(members,
                                                                  key=lambda m: m.source))
    what = {"fact-contradiction": f"the rules give it {said}",
            "forbidden-obligation": f"the rules demand {said}, which cannot all hold",
            "no-legal-action": f"no legal choice is left: {said}"}[kind]
    tail = f"; resolved by {', '.join(sorted(set(resolvers)))}" if resolvers else ""
    return f"{where}; {what}{tail}"


def _detail(ruleset: Ruleset, members: list[_Item],
            resolvers: list[str]) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    for m in sorted(members, key=lambda m: (m.source, m.ident)):
        quote = cited(ruleset, m.source)
        out.append((m.source, f"{m.text} — {quote}" if quote else m.text))
    for r in sorted(set(resolvers)):
        quote = cited(ruleset, r)
        out.append(("resolved by", f"{r} — {quote}" if quote else r))
    return tuple(out)
