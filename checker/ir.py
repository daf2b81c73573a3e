"""The lowered IR: a finite transition system every engine works on (`System`).

`checker.spec.lower` produces it from a validated spec. Everything is an integer variable
with a bounded domain (flags are 0..1, a State is a count 0..2 so that stacking is
observable, enums are indices into their labels); expressions are a small typed AST
(`LExpr`). The semantics (docs/semantics.md) is defined over this IR once, and implemented
twice: concretely by `checker.interpret`, symbolically by `checker.encode`.

One step of the system is either
- an *event step* (only from a stable state): an enabled event is chosen, every input is
  given a fresh value, the event's assignments run in order, the bookkeeping resets
  (`happened` of this event set, all `fired` cleared, the resolution counter to 0); or
- a *micro step* (only from an unstable state): ANY rule that may fire (`may_fire`) runs its
  assignments and the resolution counter goes up by one. The choice is free: resolution is
  unordered, spec order (the order of `System.rules`) carries no meaning, and every order
  is checked; the orders the text gives are `precedence` (`Precedence`) and the choices it
  leaves to a player `order_choices` (`OrderChoice`).
A rule is *enabled* when its guard holds and running it would change the state; it *may
fire* when it is enabled and no rule a `Precedence` puts before it is enabled; a state is
*stable* when no rule is enabled. A resolution that reaches `res_bound` micro steps without
becoming stable is stuck: that is the non-termination finding. A trace names the rules
fired in each step (the choice made), and `checker.interpret.replay` checks each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from checker.diagnostics import Location
from checker.text import SourceText

if TYPE_CHECKING:
    from checker.spec.schema import SpecDoc
    from checker.spec.source import SpecTree

PathKey = tuple[str | int, ...]     # a path into the spec tree (source map key)

# ----------------------------------------------------------------------------- expressions

BoolOps = Literal["not", "and", "or", "implies", "eq", "ne", "lt", "le", "gt", "ge"]
IntOps = Literal["add", "sub", "mul", "neg", "ite", "min", "max"]


@dataclass(frozen=True)
class Const:
    value: int | bool


@dataclass(frozen=True)
class V:
    """The current value of integer variable `name`."""

    name: str


@dataclass(frozen=True)
class Op:
    """`op` applied to `args`. Bool results: not and or implies eq ne lt le gt ge.
    Int results: add sub mul neg min max; `ite` takes (bool, x, y) and returns x's sort."""

    op: str
    args: tuple[LExpr, ...]


LExpr = Const | V | Op

BOOL_OPS = frozenset({"not", "and", "or", "implies", "eq", "ne", "lt", "le", "gt", "ge"})
TRUE = Const(True)
FALSE = Const(False)


def lvars(e: LExpr) -> frozenset[str]:
    """The variables `e` reads."""
    match e:
        case Const():
            return frozenset()
        case V(name):
            return frozenset({name})
        case Op(_, args):
            out: frozenset[str] = frozenset()
            for a in args:
                out |= lvars(a)
            return out
    raise AssertionError(e)


def conj(*parts: LExpr) -> LExpr:
    keep = [p for p in parts if p != TRUE]
    if any(p == FALSE for p in keep):
        return FALSE
    if not keep:
        return TRUE
    return keep[0] if len(keep) == 1 else Op("and", tuple(keep))


def disj(*parts: LExpr) -> LExpr:
    keep = [p for p in parts if p != FALSE]
    if any(p == TRUE for p in keep):
        return TRUE
    if not keep:
        return FALSE
    return keep[0] if len(keep) == 1 else Op("or", tuple(keep))


def neg(e: LExpr) -> LExpr:
    if isinstance(e, Const):
        return Const(not e.value)
    return Op("not", (e,))


# ----------------------------------------------------------------------------- system

VarKind = Literal["state", "marker", "int", "enum", "input", "happened", "fired", "res", "seen",
                  "was"]


@dataclass(frozen=True)
class Var:
    name: str
    lo: int
    hi: int
    init: tuple[int, ...]          # allowed initial values (several = free initial choice)
    kind: VarKind
    labels: tuple[str, ...] = ()  # enum/input labels, value i ↔ labels[i]
    model: str | None = None       # owning model instance, None for globals
    state: str | None = None       # owning State (for State and marker variables)
    decl: str = ""                 # spec element id that declared it

    @property
    def bookkeeping(self) -> bool:
        return self.kind in ("happened", "fired", "res", "seen", "was")

    def show(self, value: int) -> str:
        if self.labels and 0 <= value < len(self.labels):
            return self.labels[value]
        return str(value)


@dataclass(frozen=True)
class Assign:
    var: str
    value: LExpr


@dataclass(frozen=True)
class Transition:
    """An event (external) or a rule (triggered). `id` is unique in the system (a per-model
    copy is suffixed `@model`); `source` is the spec element id it comes from."""

    id: str
    source: str
    kind: Literal["event", "rule"]
    guard: LExpr
    effects: tuple[Assign, ...]
    model: str | None = None
    on: tuple[str, ...] = ()      # rules: the event ids (instances) that trigger them
    declares: tuple[tuple[str, str, str | None], ...] = ()  # events: (decision, option,
    #   model) each declares; `guard` then includes that the constraints permit them
    unrestricted: LExpr | None = None   # events that declare: the guard as written, before
    #   the constraints' permission of the declared options was added
    edges: tuple[str, ...] = ()   # rules: `enters X` / `leaves X` triggers (State variables)


@dataclass(frozen=True)
class Decision:
    """A choice a model makes at a decision point (`action`, `movement`), with its options
    and each option's attributes (`charge: {complex: true}`; values as written)."""

    name: str
    options: tuple[str, ...]
    attributes: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()


@dataclass(frozen=True)
class Constraint:
    """`only`/`forbid`/`must` over one decision, active when `when` holds; or `some`
    (`at_least_one`): `decision` is a slotted decision's name (`action`) and at least one of
    its `slots` (`action.first`, `action.second`) must take one of `options`."""

    id: str
    source: str
    kind: Literal["only", "forbid", "must", "some"]
    decision: str
    options: tuple[str, ...]
    when: LExpr
    overrides: tuple[str, ...] = ()   # constraint sources this one overrides
    model: str | None = None
    slots: tuple[str, ...] = ()       # `some`: the slot decisions it ranges over


@dataclass(frozen=True)
class Permission:
    """`may:` the text grants `options` of `decision` to `model` while `when` holds."""

    id: str
    source: str
    decision: str
    options: tuple[str, ...]
    when: LExpr
    overrides: tuple[str, ...] = ()   # constraint sources this permission overrides
    model: str | None = None
    # what is granted, one group per item of `grants` ("may use Crawl" is every crawl
    # option, whichever way it moves); empty = each option on its own
    groups: tuple[tuple[str, ...], ...] = ()

    def granted(self) -> tuple[tuple[str, ...], ...]:
        return self.groups or tuple((o,) for o in self.options)


@dataclass(frozen=True)
class Fact:
    """A derived fact `attribute = value`, holding when `when` holds."""

    id: str
    source: str
    attribute: str
    value: str
    when: LExpr
    overrides: tuple[str, ...] = ()
    model: str | None = None


@dataclass(frozen=True)
class Modifier:
    """A stat modifier: `op` is halve, double, add, set, cap, floor with argument `arg`."""

    id: str
    source: str
    stat: str
    op: str
    arg: int
    when: LExpr
    model: str | None = None
    restates: str = ""    # the modifier this one states again (`restates:`): counted once


@dataclass(frozen=True)
class Stat:
    """A numeric characteristic. Where the text gives no value the base is every integer
    from `base` to `top`; where it gives no rounding of halves, `rounding` is "either"
    (both are checked). `cases` lists the concrete stats (one base, one rounding)."""

    name: str
    base: int
    rounding: Literal["down", "up", "either"] = "down"
    top: int | None = None

    def cases(self) -> list[Stat]:
        """One concrete stat per base and rounding the text leaves open: lowest base first,
        down before up."""
        roundings: tuple[Literal["down", "up"], ...] = \
            ("down", "up") if self.rounding == "either" else (self.rounding,)
        top = self.base if self.top is None else self.top
        return [Stat(self.name, b, r) for b in range(self.base, top + 1) for r in roundings]

    def shown(self) -> str:
        """The base and rounding of a concrete stat, as a report shows them."""
        return f"base {self.base}, halves round {self.rounding}"


PropertyKind = Literal["always", "never", "reachable", "terminal", "no-stacking", "cap", "ruling",
                       "termination", "state-reachable", "rule-fires", "vacuity", "blocked-effect"]


@dataclass(frozen=True)
class Property:
    """A property over the system.

    `mode="invariant"`: `expr` holds in every reachable state (every stable one when
    `at == "stable"`). `mode="reachable"`: some reachable (stable) state satisfies `expr`.
    """

    id: str
    source: str
    kind: PropertyKind
    mode: Literal["invariant", "reachable"]
    expr: LExpr
    at: Literal["stable", "all"] = "stable"
    states: tuple[str, ...] = ()
    text: str = ""                  # the property as the user wrote it, for messages


@dataclass(frozen=True)
class Precedence:
    """An ordering rule the text states: while rule `first` is enabled in a resolution, rule
    `then` may not fire (ids are rule transition ids, per-model copies included). `source`
    is the spec element (the ordering rule) that says so, for citing it."""

    first: str
    then: str
    source: str


@dataclass(frozen=True)
class OrderChoice:
    """"The active player chooses the order" for `rules` (transition ids): resolution stays
    nondeterministic, and an order-dependence among them is reported as resolved by
    `source`, with the consequences of each choice."""

    rules: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class System:
    ruleset: str
    vars: tuple[Var, ...]
    events: tuple[Transition, ...]
    rules: tuple[Transition, ...]
    res_bound: int
    properties: tuple[Property, ...] = ()
    decisions: tuple[Decision, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    facts: tuple[Fact, ...] = ()
    stats: tuple[Stat, ...] = ()
    modifiers: tuple[Modifier, ...] = ()
    models: tuple[str, ...] = ()
    meta: frozenset[str] = field(default_factory=frozenset)  # declared meta-rules by name
    monitors: tuple[tuple[str, LExpr], ...] = ()  # (seen var, watched expr): after every
    #   step, seen' = seen or watched(pre-state); used for "terminal" properties
    precedence: tuple[Precedence, ...] = ()   # the orders the text gives (issue #14)
    order_choices: tuple[OrderChoice, ...] = ()
    permissions: tuple[Permission, ...] = ()   # `may:` what the text grants

    def var(self, name: str) -> Var:
        for v in self.vars:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def res_var(self) -> str:
        return "_res"


# ----------------------------------------------------------------------------- derived

def substitute(e: LExpr, env: dict[str, LExpr]) -> LExpr:
    """`e` with every `V(x)` for x in `env` replaced by `env[x]`."""
    match e:
        case Const():
            return e
        case V(name):
            return env.get(name, e)
        case Op(op, args):
            return Op(op, tuple(substitute(a, env) for a in args))
    raise AssertionError(e)


def post_state(effects: tuple[Assign, ...]) -> dict[str, LExpr]:
    """The value of every assigned variable after `effects` run in order, as expressions
    over the pre-state (sequential assignment by substitution)."""
    env: dict[str, LExpr] = {}
    for a in effects:
        env[a.var] = substitute(a.value, env)
    return env


def changes(effects: tuple[Assign, ...], ignore: frozenset[str] = frozenset()) -> LExpr:
    """True in a state where running `effects` would change some variable not in `ignore`."""
    post = post_state(effects)
    return disj(*(Op("ne", (value, V(name))) for name, value in sorted(post.items())
                  if name not in ignore and value != V(name)))


def enabled(system: System, rule: Transition) -> LExpr:
    """`rule` is enabled: its guard holds and it would change the (non-bookkeeping) state."""
    ignore = frozenset(v.name for v in system.vars if v.kind in ("res", "seen"))
    return conj(rule.guard, changes(rule.effects, ignore))


def may_fire(system: System, rule: Transition) -> LExpr:
    """`rule` may fire now: it is enabled and no rule the text orders before it is enabled
    (unordered resolution: any such rule may be the next one, docs/semantics.md)."""
    before = {p.first for p in system.precedence if p.then == rule.id}
    blockers = [enabled(system, r) for r in system.rules if r.id in before]
    return conj(enabled(system, rule), *(neg(b) for b in blockers))


def stable(system: System) -> LExpr:
    """No rule is enabled."""
    return neg(disj(*(enabled(system, r) for r in system.rules)))


def effective_expr(c: Constraint, constraints: list[Constraint] | tuple[Constraint, ...],
                   permissions: tuple[Permission, ...] = ()) -> LExpr:
    """Constraint `c` is in force: active and not overridden by an active constraint or
    permission of the same model."""
    overriders = [o.when for o in (*constraints, *permissions)
                  if o.model == c.model and c.source in o.overrides]
    return conj(c.when, *(neg(w) for w in overriders))


def allowed_expr(constraints: list[Constraint] | tuple[Constraint, ...], dim: str, option: str,
                 model: str | None, permissions: tuple[Permission, ...] = ()) -> LExpr:
    """Option `option` of decision `dim` is allowed for `model` by the effective constraints
    (those not overridden by another active constraint or permission of the same model).
    An `at_least_one` (`some`) obliges a slot among several and forbids no option of any
    one decision: it never restricts what is allowed."""
    mine = [c for c in constraints
            if c.decision == dim and c.model == model and c.kind != "some"]
    parts: list[LExpr] = []
    for c in mine:
        effective = effective_expr(c, constraints, permissions)
        permits = option not in c.options if c.kind == "forbid" else option in c.options
        if not permits:
            parts.append(neg(effective))
    return conj(*parts)


# ----------------------------------------------------------------------------- the ruleset

@dataclass(frozen=True)
class Citation:
    element: str          # spec element id
    quote: str
    start: int
    end: int
    line: int


@dataclass(frozen=True)
class Element:
    """A cited spec element: a rule, constraint, State, property, informal entry ..."""

    id: str
    section: str          # "rules", "constraints", "states", "informal", ...
    path: PathKey
    location: Location
    quotes: tuple[str, ...]
    reason: str = ""      # informal entries: why the sentence is not formalized
    restates: str = ""    # the element this one restates (`restates:`, table ↔ detail)
    title: str = ""       # the spec's `title:` (empty: the report takes words from the text)


@dataclass(frozen=True)
class TermUse:
    """A rules term the text uses in cited sentences that no spec element declares and no
    sentence defines (`checker.spec.terms`)."""

    name: str                          # as the text first writes it
    key: str                           # its stemmed words ("bleed marker" → "bleed")
    status: str                        # proposed | confirmed (undefined:) | dismissed (not-a-term:)
    citations: tuple[Citation, ...]    # element "term:<name>": the sentences that use it


@dataclass(frozen=True)
class Reading:
    """A spec element whose sentence has several readings (`readings:`), each an
    alternative formalization of the same cite (docs/spec-language.md "Readings")."""

    element: str                  # spec element id
    section: str                  # "rules", "events", "constraints", "facts", "properties"
    labels: tuple[str, ...]       # each reading's label, in spec order
    base: int = 0                 # the reading of the base selection: the adopted one, else 0
    adopted: str = ""             # the adopted label ("" while open)
    adopt_note: str = ""          # what adopts it: the quote or the ruling note
    identical: tuple[tuple[str, str], ...] = ()   # pairs of labels that lower identically
    read_with: tuple[str, ...] = ()   # elements whose same words are read as this one's


Choice = tuple[tuple[str, int], ...]   # (element id, reading index), sorted by element


@dataclass(frozen=True)
class Ruleset:
    id: str
    title: str
    spec_file: str
    source_file: str
    source: SourceText
    system: System
    elements: dict[str, Element]
    citations: tuple[Citation, ...]
    undefined: tuple[tuple[str, str], ...] = ()   # (name, element id)
    spec_text: str = field(default="", repr=False)
    doc: SpecDoc | None = field(default=None, repr=False, compare=False)
    tree: SpecTree | None = field(default=None, repr=False, compare=False)  # to lower again
    terms: tuple[TermUse, ...] = ()                # candidate terms found in the text
    readings: tuple[Reading, ...] = ()            # elements with several readings
    choice: Choice = ()                           # this variant's readings (() = the base)
    variants: tuple[tuple[Choice, System], ...] = field(default=(), repr=False, compare=False)
    # the named conditions (`conditions:`) some element's expression uses, in this lowering
    conditions_used: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
