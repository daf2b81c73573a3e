"""Export a `System` to Promela, the input language of the SPIN model checker.

The model means exactly what `checker.interpret` does (docs/semantics.md):

- every variable is a global with the smallest Promela type that holds its range, initialised
  to its first allowed value; variables with several allowed initial values are chosen
  nondeterministically before anything is checked;
- a global `fe` is 0 in a stable state, else the index (1-based) of some enabled rule (the
  first: it is only used as "unstable"). It is a function of the state (it adds no states),
  recomputed after the initial choice and after every step by the shared `d_step` that
  also checks the property;
- one `active proctype` loops over two kinds of step, each an `atomic` ending in that check:
  * an *event step*, only when `fe == 0`: fresh input values are chosen nondeterministically
    into local slots (`n_*`), then one event whose guard holds for those inputs; its `d_step`
    installs the inputs, runs the event's assignments in order and updates the monitors. If
    no event is enabled for the chosen inputs the slots are cleared again: a stutter back to
    the same state, so a state without events is not an "invalid end state";
  * a *micro step*, only when `fe != 0 && _res < res_bound`: ANY rule that may fire
    (`MAY_k`: enabled, and no rule an ordering rule puts before it enabled; SPIN's `if`
    chooses among the true guards nondeterministically — unordered resolution) runs its
    assignments in a `d_step`, then `_res` goes up by one;
- a stuck state (unstable, `_res >= res_bound`) has no step; the loop carries an `end`
  label, so SPIN does not report it as an invalid end state;
- a cone-of-influence slice (`checker.graph.analyze.cone`) has no `_res` variable: its micro
  steps are unbounded (the slice does not model the bound, an over-approximation), and with
  `idle_monitors` a third kind of step, the *idle step*, only updates the monitors (it stands
  for a step of the sliced-away part, during which the monitors still run: exactly the
  `idle_monitors` of `checker.encode.system`);
- monitors (`seen' = seen || watched(pre)`) are evaluated on the pre-state of every step into
  `hidden` temporaries (not part of the state vector; only used inside one `d_step`).

With `macro` (`to_promela` only) the model is reduced, without changing any verdict, for
systems too large otherwise:

- a *macro step* (an event step and the whole resolution after it, micro step by micro step
  until stable or stuck) is one `atomic`: SPIN stores only the states between macro steps,
  and still runs every micro step and checks the property after each;
- in the stable state at the end of a macro step the *dead* variables are reset to their
  first initial value (`dead_variables`: the inputs, and the bookkeeping that every event
  overwrites without any event reading it). Stable states that differ only in dead
  variables have the same successors, and the property was checked on the state itself
  before the reset, so one representative of them suffices; `fe` stays 0 there;
- a slice's idle step adds no state of its own: the property is checked in place, also on
  the state whose monitors have run (`seen || watched`), which has the same successors as
  the state itself because nothing but the properties reads a monitor (checked);
- a slice's resolution is bounded by a hidden counter at `res_bound` micro steps: the slice
  fires at most as many rules as the system does, which stops at `res_bound`, so this keeps
  the over-approximation.

`enabled(rule)` and `stable` are emitted as `#define`s from `checker.ir.enabled`/`stable`
(guard and "the post-state differs in some variable other than `_res` and the monitors").
Every `d_step` is straight-line code or one small `if` (SPIN limits jumps inside a `d_step`).

The property is checked by `assert`s right after the initial state is chosen and at the end of
every step, i.e. in every reachable state: invariants as `assert(P)` (`fe != 0 || P` when only
stable states count); reachability properties as `assert(!P)` (`!(fe == 0 && P)`), so that an
assertion violation is a witness. Without a property every invariant property of the system is
asserted (each in its own `assert`, so SPIN names the one that fails).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from checker.ir import (
    Const,
    LExpr,
    Op,
    Property,
    System,
    Transition,
    V,
    Var,
    enabled,
    lvars,
    post_state,
)

_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_ARITH = {"add": "+", "sub": "-", "mul": "*"}
_SELECT_LIMIT = 32   # input domains up to this size are chosen by an explicit `if`


def promela_type(lo: int, hi: int) -> str:
    """The smallest Promela integer type holding every value in [lo, hi]."""
    if lo >= 0 and hi <= 1:
        return "bit"
    if lo >= 0 and hi <= 255:
        return "byte"
    if lo >= -32768 and hi <= 32767:
        return "short"
    return "int"


def identifiers(system: System) -> dict[str, str]:
    """A Promela identifier for every variable: `v_` + the name with every character that is
    not a letter, digit or underscore replaced by `_` (made unique with a numeric suffix)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for v in system.vars:
        base = "v_" + re.sub(r"[^A-Za-z0-9_]", "_", v.name)
        ident, n = base, 1
        while ident in used:
            n += 1
            ident = f"{base}_{n}"
        used.add(ident)
        out[v.name] = ident
    return out


def expr(e: LExpr, names: dict[str, str]) -> str:
    """`e` as a fully parenthesised Promela expression (booleans are 0/1)."""
    match e:
        case Const(value):
            n = int(value)
            return str(n) if n >= 0 else f"({n})"
        case V(name):
            return names[name]
        case Op(op, args):
            return _op(op, [expr(a, names) for a in args])
    raise ValueError(f"not an expression: {e!r}")


def _op(op: str, a: list[str]) -> str:
    if op == "not":
        return f"(!{a[0]})"
    if op in ("and", "or"):
        if not a:
            return "1" if op == "and" else "0"
        return "(" + (" && " if op == "and" else " || ").join(a) + ")"
    if op == "implies":
        return f"(!{a[0]} || {a[1]})"
    if op in _CMP:
        return f"({a[0]} {_CMP[op]} {a[1]})"
    if op in _ARITH:
        if len(a) != 2:
            raise ValueError(f"{op} takes two arguments, got {len(a)}")
        return f"({a[0]} {_ARITH[op]} {a[1]})"
    if op == "neg":
        return f"(-{a[0]})"
    if op == "ite":
        return f"({a[0]} -> {a[1]} : {a[2]})"
    if op in ("min", "max"):
        out = a[0]
        rel = "<=" if op == "min" else ">="
        for b in a[1:]:
            out = f"(({out} {rel} {b}) -> {out} : {b})"
        return out
    raise ValueError(f"unknown operator {op!r}")


def check_expr(system: System, prop: Property, *, stable: str = "(fe == 0)",
               names: dict[str, str] | None = None) -> str:
    """The asserted condition for `prop` as Promela (over the macro `BOUND` and `stable`, an
    expression for "no rule is enabled", by default the model's `fe == 0`): an assertion
    violation is a counterexample (invariants) or a witness (reachability). `names` maps
    variables to Promela expressions (default `identifiers(system)`)."""
    names = identifiers(system) if names is None else names
    body = expr(prop.expr, names)
    if prop.kind == "termination":
        body = f"({body} && ({stable} || {names[system.res_var]} < BOUND))"
    if prop.mode == "invariant":
        return body if prop.at == "all" else f"(!{stable} || {body})"
    return f"(!{body})" if prop.at == "all" else f"(!({stable} && {body}))"


def to_promela(system: System, prop: Property | None = None, *,
               idle_monitors: bool = False, macro: bool = False) -> str:
    """One Promela model of `system`; with `prop`, an `assert` that fails exactly when the
    property fails (invariant) or holds (reachability), see the module docstring;
    `idle_monitors` adds the idle step of a cone-sliced system; `macro` reduces the model
    (module docstring)."""
    return _Writer(system, claims=False, idle_monitors=idle_monitors, macro=macro).model(prop)


def dead_variables(system: System) -> list[Var]:
    """The variables whose value in a stable state cannot matter to what follows it (the
    `macro` reduction): inputs (every event step rolls them afresh; guards and effects read
    the rolled values) and bookkeeping variables (`happened`, `fired`, `res`) that every
    event overwrites, that no event guard reads and no event effect reads; minus what the
    monitors read (they run on the state before the event). The properties do not count:
    they are checked on the stable state itself, before the reset."""
    kept: set[str] = set()
    for _, watched in system.monitors:
        kept |= lvars(watched)
    inputs = {v.name for v in system.vars if v.kind == "input"}
    book = {v.name for v in system.vars if v.kind in ("happened", "fired", "res", "was")}
    for ev in system.events:
        post = post_state(ev.effects)
        book &= post.keys()
        book -= lvars(ev.guard)
        for value in post.values():
            book -= lvars(value)   # conservative: a value read by any effect stays
    return [v for v in system.vars if v.name in (inputs | book) - kept]


def to_promela_claims(system: System, props: Sequence[Property], *,
                      idle_monitors: bool = False) -> tuple[str, list[str]]:
    """One model for several properties, compiled once and checked one property per pan run
    (`./pan -N <claim>`), and the claim names in `props` order.

    Property k is tracked by a global `bit ok_k` (initially 1), recomputed as `CHECK_k` after
    the initial choice and at the end of every step (a function of the state: it adds no
    states), and watched by the claim `never c<k> { do :: assert(ok_k) od }` (the claim
    steps in lockstep with the model; SPIN's `ltl` syntax has no conditional expression,
    hence the bits). Where the claim may look inside a step's `atomic`, the bits are those
    of the state before the step, itself reachable; a stuck state stutters, so the claim
    sees it too."""
    text = _Writer(system, claims=True, idle_monitors=idle_monitors).model(None, list(props))
    return text, [f"c{k}" for k in range(len(props))]


class _Writer:
    def __init__(self, system: System, *, claims: bool, idle_monitors: bool = False,
                 macro: bool = False) -> None:
        if claims and macro:
            raise ValueError("the macro reduction is for one model per property (to_promela)")
        self.s = system
        self.claims = claims
        self.macro = macro
        self.idle = idle_monitors and bool(system.monitors)
        self.names = identifiers(system)
        self.res = self.names.get(system.res_var)   # None in a slice: no micro-step bound
        self.dead: list[Var] = []
        if macro and self.idle:
            _monitors_unread(system)
        self.inputs = [v for v in system.vars if v.kind == "input"]
        self.slot = {v.name: f"n_{self.names[v.name][2:]}" for v in self.inputs}
        self.lines: list[str] = []

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    # ------------------------------------------------------------------ the model
    def model(self, prop: Property | None, claimed: list[Property] | None = None) -> str:
        s, n = self.s, self.names
        if claimed is not None:
            props = claimed
        elif prop is not None:
            props = [prop]
        else:
            props = [p for p in s.properties if p.mode == "invariant"]
        self.emit(0, f"/* ruleproof export of ruleset {_comment(s.ruleset)}: "
                  f"{len(s.vars)} variables, {len(s.events)} events, {len(s.rules)} rules */")
        if claimed is not None:
            self.emit(0, "/* one claim per property: an assertion violation in claim c<k> is a "
                      "violation (invariant) or a witness (reachable) of property k */")
        elif prop is not None:
            verb = "a violation" if prop.mode == "invariant" else "a witness"
            self.emit(0, f"/* property {_comment(prop.id)} ({prop.kind}, {prop.mode}, "
                      f"at {prop.at}): an assertion violation is {verb} */")
        else:
            rest = [p.id for p in s.properties if p.mode != "invariant"]
            self.emit(0, "/* every invariant property is asserted; not asserted "
                      f"(reachability): {_comment(', '.join(rest) or 'none')} */")
        self.emit(0, f"#define BOUND {s.res_bound}")
        first = "0"
        for k in reversed(range(len(s.rules))):
            first = f"(EN_{k} -> {k + 1} : {first})"
        for k, r in enumerate(s.rules):
            self.emit(0, f"/* rule {_comment(r.id)} */")
            self.emit(0, f"#define EN_{k} {expr(enabled(s, r), n)}")
            before = [j for j, b in enumerate(s.rules)
                      if any(p.first == b.id and p.then == r.id for p in s.precedence)]
            may = " && ".join([f"EN_{k}", *(f"!EN_{j}" for j in before)])
            self.emit(0, f"#define MAY_{k} ({may})")
        self.emit(0, f"#define FIRST {first}")
        if self.macro:
            self.dead = dead_variables(s)
            self.emit(0, "/* macro steps (an event and its resolution) are atomic; dead in a "
                      "stable state, reset after each: "
                      f"{_comment(', '.join(v.name for v in self.dead) or 'none')} */")
        idled = {**n, **{seen: f"({n[seen]} || {expr(w, n)})" for seen, w in s.monitors}}
        for k, p in enumerate(props):
            self.emit(0, f"/* {_comment(p.id)}: {_comment(p.text or p.kind)} */")
            check = check_expr(s, p)
            if self.macro and self.idle:   # also after an idle step (module docstring)
                check = f"({check} && {check_expr(s, p, names=idled)})"
            self.emit(0, f"#define CHECK_{k} {check}")
        self.emit(0, "")
        for v in s.vars:
            self.emit(0, f"{promela_type(v.lo, v.hi)} {n[v.name]} = {v.init[0]};"
                      f"\t/* {_comment(v.name)}: {v.kind} {v.lo}..{v.hi} */")
        self.emit(0, f"{promela_type(0, len(s.rules))} fe;\t/* FIRST: an enabled rule, "
                  "0 = stable */")
        if self.claims:
            for k, p in enumerate(props):
                self.emit(0, f"bit ok_{k} = 1;\t/* {_comment(p.id)} */")
        for j, _ in enumerate(s.monitors):
            self.emit(0, f"hidden byte t_m{j};")
        if self.res is not None:
            self.emit(0, f"hidden {promela_type(0, s.res_bound + 1)} t_res;")
        elif self.macro:
            self.emit(0, f"hidden {promela_type(0, s.res_bound + 1)} t_steps;\t/* micro steps "
                      "of this resolution (a slice has no _res) */")
        if self.macro:
            self.emit(0, "hidden byte t_ev;\t/* the event step ran an event (not a stutter) */")
        self.emit(0, "")
        self.emit(0, "active proctype ruleset() {")
        for v in self.inputs:
            self.emit(1, f"{promela_type(min(v.lo, 0), max(v.hi, 0))} {self.slot[v.name]} = 0;")
        self.emit(1, "atomic {")
        for v in s.vars:
            if len(v.init) > 1:
                self.emit(2, "if " + " ".join(f":: {n[v.name]} = {x}" for x in v.init) + " fi;")
        self._after_step(2, len(props))
        if self.macro:
            self._resolve(2, len(props))
        self.emit(1, "}")
        self.emit(0, "end_loop:")
        self.emit(1, "do")
        if s.events:
            self._event_step(len(props))
        if s.rules and not self.macro:
            self._micro_step(len(props))
            if self.claims and self.res is not None:
                self.emit(1, f":: d_step {{ fe != 0 && {self.res} >= BOUND -> skip }}"
                          "  /* stuck: stutter, so that the claim sees it */")
        if self.idle and not self.macro:
            self._idle_step(len(props))
        if not s.events and (self.macro or not s.rules) and (self.macro or not self.idle):
            self.emit(1, ":: false")
        self.emit(1, "od")
        self.emit(0, "}")
        if self.claims:
            for k in range(len(props)):
                self.emit(0, f"never c{k} {{ do :: assert(ok_{k}) od }}")
        return "\n".join(self.lines) + "\n"

    def _after_step(self, depth: int, count: int) -> None:
        """The shared check: recompute `fe`, then check (or record) every property."""
        self.emit(depth, "d_step {")
        self.emit(depth + 1, "fe = FIRST;")
        for k in range(count):
            self.emit(depth + 1, f"ok_{k} = CHECK_{k};" if self.claims
                      else f"assert(CHECK_{k});")
        self.emit(depth, "}")

    # ------------------------------------------------------------------ steps
    def _event_step(self, nprops: int) -> None:
        s, n = self.s, self.names
        self.emit(1, ":: atomic { fe == 0 ->")
        for v in self.inputs:
            slot = self.slot[v.name]
            if v.hi - v.lo + 1 <= _SELECT_LIMIT:
                self.emit(2, "if " + " ".join(f":: {slot} = {x}"
                                              for x in range(v.lo, v.hi + 1)) + " fi;")
            else:
                self.emit(2, f"select({slot} : {v.lo} .. {v.hi});")
        rolled = {**n, **self.slot}
        self.emit(2, "if")
        for ev in s.events:
            self.emit(2, f":: {expr(ev.guard, rolled)} -> d_step {{  /* event "
                      f"{_comment(ev.id)} */")
            self._monitors_pre(3)
            for v in self.inputs:
                self.emit(3, f"{n[v.name]} = {self.slot[v.name]}; {self.slot[v.name]} = 0;")
            self._effects(3, ev)
            self._monitors_post(3)
            if self.macro:
                self.emit(3, "t_ev = 1;")
            self.emit(2, "}")
        clear = " ".join(f"{self.slot[v.name]} = 0;" for v in self.inputs) or "skip;"
        if self.macro:
            clear += " t_ev = 0;"
        self.emit(2, f":: else -> {clear}  /* no event for these inputs: stutter */")
        self.emit(2, "fi;")
        if not self.macro:
            self._after_step(2, nprops)
        else:   # a stutter leaves the stable representative as it is: no `fe = FIRST` on it
            self.emit(2, "if")
            self.emit(2, ":: t_ev ->")
            self._after_step(3, nprops)
            self._resolve(3, nprops)
            self.emit(2, ":: else -> skip")
            self.emit(2, "fi")
        self.emit(1, "}")

    def _resolve(self, depth: int, nprops: int) -> None:
        """`macro`: the micro steps until stable or stuck, each checked; then, if stable,
        the dead variables are reset (inside the caller's `atomic`)."""
        s, res = self.s, self.res
        if s.rules:
            if res is None:
                self.emit(depth, "t_steps = 0;")
            bound = f"{res} < BOUND" if res is not None else "t_steps < BOUND"
            self.emit(depth, "do")
            self.emit(depth, f":: fe != 0 && {bound} ->")
            self.emit(depth + 1, "if")
            for k, rule in enumerate(s.rules):
                self.emit(depth + 1, f":: MAY_{k} -> d_step {{  /* rule "
                          f"{_comment(rule.id)} */")
                self._monitors_pre(depth + 2)
                if res is not None:
                    self.emit(depth + 2, f"t_res = {res};")
                self._effects(depth + 2, rule)
                self.emit(depth + 2, f"{res} = t_res + 1;" if res is not None
                          else "t_steps = t_steps + 1;")
                self._monitors_post(depth + 2)
                self.emit(depth + 1, "}")
            self.emit(depth + 1, "fi;")
            self._after_step(depth + 1, nprops)
        reset = ""
        if self.dead:   # (a `break` may not jump to a d_step: the reset precedes it)
            resets = " ".join(f"{self.names[v.name]} = {v.init[0]};" for v in self.dead)
            reset = f"d_step {{ if :: fe == 0 -> {resets} :: else -> skip fi }}"
        if s.rules:
            self.emit(depth, f":: else -> {reset + '; ' if reset else ''}break"
                      "  /* stable or stuck; if stable, reset the dead variables */")
            self.emit(depth, "od")
        elif reset:
            self.emit(depth, f"{reset}  /* stable: reset the dead variables */")
        else:
            self.emit(depth, "skip")

    def _micro_step(self, nprops: int) -> None:
        s, res = self.s, self.res
        bound = "" if res is None else f" && {res} < BOUND"
        self.emit(1, f":: atomic {{ fe != 0{bound} ->")
        self.emit(2, "if")
        for k, rule in enumerate(s.rules):
            self.emit(2, f":: MAY_{k} -> d_step {{  /* rule {_comment(rule.id)} */")
            self._monitors_pre(3)
            if res is not None:
                self.emit(3, f"t_res = {res};")
            self._effects(3, rule)
            if res is not None:
                self.emit(3, f"{res} = t_res + 1;")
            self._monitors_post(3)
            self.emit(2, "}")
        self.emit(2, "fi;")
        self._after_step(2, nprops)
        self.emit(1, "}")

    def _idle_step(self, nprops: int) -> None:
        """A step of the sliced-away part: only the monitors run (any time)."""
        self.emit(1, ":: atomic { d_step {  /* idle: a step outside the slice */")
        self._monitors_pre(3)
        self._monitors_post(3)
        self.emit(2, "}")
        self._after_step(2, nprops)
        self.emit(1, "}")

    def _effects(self, depth: int, t: Transition) -> None:
        for a in t.effects:
            self.emit(depth, f"{self.names[a.var]} = {expr(a.value, self.names)};")
        if not t.effects:
            self.emit(depth, "skip;")

    def _monitors_pre(self, depth: int) -> None:
        for j, (seen, watched) in enumerate(self.s.monitors):
            self.emit(depth, f"t_m{j} = ({self.names[seen]} || {expr(watched, self.names)});")

    def _monitors_post(self, depth: int) -> None:
        for j, (seen, _) in enumerate(self.s.monitors):
            self.emit(depth, f"{self.names[seen]} = t_m{j};")


def _monitors_unread(system: System) -> None:
    """The macro reduction checks a slice's idle step in place: only sound when nothing but
    the properties reads a monitor (true of every lowered system); else ValueError."""
    seen = {name for name, _ in system.monitors}
    reads: set[str] = set()
    for t in (*system.events, *system.rules):
        reads |= lvars(t.guard)
        for a in t.effects:
            reads |= lvars(a.value)
    for _, watched in system.monitors:
        reads |= lvars(watched)
    if reads & seen:
        raise ValueError(f"a rule, event or monitor reads a monitor: {sorted(reads & seen)}")


def _comment(text: str) -> str:
    return text.replace("*/", "* /").replace("\n", " ")
