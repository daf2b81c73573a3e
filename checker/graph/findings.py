"""The structural findings of a ruleset (RP3xx), from its state machine (`machine`) and the
engines' verdicts on the same questions.

A structural fact is an over-approximation: "no edge enters State S" proves S unreachable,
but "rules r and s write what each other's condition reads" only says they *might* loop,
and "a transition assigns 0 to terminal State T" only that it *might* take a model out of
T. So each fact is reported only where the verdict of the property that decides the
precise question does not settle it the other way:

    unreachable-state (RP301)  State S (every model's copy) is entered by no event or rule
                               edge and is not set initially. With the state-reachable
                               property of S violated, the engine's finding says why (no
                               edge enters it); undecided, the structural fact is the
                               finding; proved reachable, nothing (it cannot be both).
    trigger-cycle (RP302)      a cycle of the rule dependency graph (`rule_graph`: r → s
                               when r writes what s's guard reads and does not falsify
                               it), when termination is not proved; when termination is
                               violated, only the cycles its counterexample goes round.
    leaves-terminal (RP303)    an edge out of a terminal State (it leaves, cancels, removes
                               or re-sets it), when that State's terminal property is not
                               proved.

Each finding is attached to the property result that decides it, so a sharded run reports
it once, in the shard that checks that property.
"""

from __future__ import annotations

from checker.graph.analyze import analyze, trigger_cycles
from checker.graph.build import machine
from checker.ir import System
from checker.results import Finding, PropertyResult, Status

MAX_CYCLE_FINDINGS = 10


def unenterable_message(state: str) -> str:
    return (f"no model can ever be {state}: no event or rule enters it, and no model is "
            f"{state} at the start")


def structural_findings(system: System, props: list[PropertyResult],
                        found: list[Finding]) -> list[Finding]:
    """`found` (the findings from the property verdicts) with the structural facts of
    `system` merged in (module docstring)."""
    facts = analyze(system, cycles=False)
    out = list(found)
    shut = set(facts.unenterable_states)
    for r in props:
        if r.kind != "state-reachable" or not r.states or r.states[0] not in shut:
            continue
        state = r.states[0]
        if r.status is Status.VIOLATED:
            out = [Finding(f.kind, f.rules, f.states, unenterable_message(state), f.resolved,
                           f.resolved_by, f.trace, f.detail)
                   if f.kind == "unreachable-state" and f.states == (state,) else f
                   for f in out]
        elif r.status is Status.UNKNOWN:
            out.append(Finding("unreachable-state", (r.source,), (state,),
                               unenterable_message(state)))
    for r in props:
        if r.kind == "termination" and r.status is not Status.PROVED:
            out += _cycles(system, r)
    terminal = {p.id: p.states for p in system.properties if p.kind == "terminal"}
    open_terminal = {s: r for r in props if r.id in terminal and r.status is not Status.PROVED
                     for s in terminal[r.id]}
    out += _exits(system, facts.terminal_exits, open_terminal)
    return out


def _cycles(system: System, termination: PropertyResult) -> list[Finding]:
    source = {r.id: r.source for r in system.rules}
    fired: tuple[str, ...] | None = None
    if termination.status is Status.VIOLATED and termination.trace is not None:
        fired = tuple(f for step in termination.trace.steps for f in step.fired)
    out: dict[tuple[str, ...], Finding] = {}
    for cycle in trigger_cycles(system):
        if fired is not None and not _fires_around(cycle, fired):
            continue
        names = tuple(source[r] for r in cycle)
        key = tuple(sorted(set(names)))
        if key in out:
            continue
        if len(names) == 1:
            what = (f"rule {names[0]!r} changes what its own condition reads, so it may "
                    "trigger itself again")
        else:
            what = ("rules " + " → ".join(repr(n) for n in (*names, names[0]))
                    + " each change what the next one's condition reads, so they may keep "
                    "triggering each other")
        why = ("and they do: the non-termination counterexample goes round this cycle"
               if fired is not None
               else f"and termination is not proved ({termination.reason or 'undecided'})")
        out[key] = Finding("trigger-cycle", key, (), f"{what}, {why}")
        if len(out) >= MAX_CYCLE_FINDINGS:
            break
    return list(out.values())


def _fires_around(cycle: tuple[str, ...], fired: tuple[str, ...]) -> bool:
    """`fired` fires the rules of `cycle` one after the other, all the way round and back
    to the first (some rotation of `cycle` + its first rule is a run of `fired`)."""
    n = len(cycle)
    for i in range(len(fired) - n):
        if fired[i] in cycle:
            k = cycle.index(fired[i])
            if all(fired[i + j] == cycle[(k + j) % n] for j in range(n + 1)):
                return True
    return False


def _exits(system: System, exits: tuple[tuple[str, str], ...],
           states: dict[str, PropertyResult]) -> list[Finding]:
    g = machine(system).graph
    by_id = {t.id: t for t in (*system.events, *system.rules)}
    out: dict[tuple[str, str], Finding] = {}
    for node, transition in exits:
        state = g.nodes[node]["state"]
        t = by_id[transition]
        if state not in states or (t.source, state) in out:
            continue
        kinds = {d["kind"] for _, _, d in g.in_edges(node, data=True)
                 if d["transition"] == transition} & {"leave", "cancels", "remove", "set"}
        what = "event" if t.kind == "event" else "rule"
        how = ("re-sets" if kinds <= {"set"} else "takes a model out of")
        r = states[state]
        verdict = (f"its terminal property {r.source or r.id!r} is violated"
                   if r.status is Status.VIOLATED else
                   f"its terminal property {r.source or r.id!r} is not proved "
                   f"({r.reason or 'undecided'})")
        out[(t.source, state)] = Finding(
            "leaves-terminal", (t.source,), (state,),
            f"{what} {t.source!r} {how} the terminal State {state}, and {verdict}")
    return list(out.values())
