"""What the rules promise, compared between two versions of a ruleset (issue #20, parts 2
and 3): the situations that break a property violated in both versions (new ways to break
it, and ways that disappeared), and what the decision-point constraints permit and require
in the situations both versions reach (a restriction that permits more, an obligation
dropped). Built on the joint manager of `checker.engines.behaviour`."""

from __future__ import annotations

from collections.abc import Sequence

from checker.ir import Constraint, LExpr, Property, System, allowed_expr, conj, disj, neg

from .behaviour import BehaviourChange, Joint, Version, situation_groups
from .reach import is_termination
from .reach.encode import Node


def compare_violations(j: Joint, a: Version, b: Version,
                       props: Sequence[tuple[Property, Property]],
                       depth: int | None) -> list[BehaviourChange]:
    out: list[BehaviourChange] = []
    for pa, pb in props:
        if pa.mode != "invariant" or pb.mode != "invariant":
            continue
        bad = []
        for ver, p in ((a, pa), (b, pb)):
            states = ver.stable_states(depth, p.at)
            if is_termination(p):     # its violations: the stuck states (`Reach._target`)
                states = ver.core.rel.stuck_part(states)
            else:
                states &= ~ver.enc.compiler().boolean(p.expr)
            bad.append(j.to_ghost(ver.enc, ver.core.canon(states), j.z, ver.eq_z))
        bad_a, bad_b = bad
        out += situation_groups(j, "possible", bad_b & ~bad_a, bad_a, b, what="violation",
                                label=pb.id, limit=3)
        out += situation_groups(j, "impossible", bad_a & ~bad_b, bad_b, a, what="violation",
                                label=pa.id, limit=3)
    return out


def required_expr(constraints: Sequence[Constraint], dim: str, option: str,
                  model: str | None) -> LExpr:
    """Option `option` of decision `dim` is required of `model` by an effective `must`; `dim`
    a slotted decision's name: `option` is among those an effective `at_least_one` requires
    of one of its slots."""
    everyone = [c for c in constraints if c.model == model]
    parts: list[LExpr] = []
    for c in constraints:
        if c.kind not in ("must", "some") or c.decision != dim or c.model != model or \
                option not in c.options:
            continue
        overriders = [o.when for o in everyone if c.source in o.overrides]
        parts.append(conj(c.when, *(neg(w) for w in overriders)))
    return disj(*parts)


def _options(system: System) -> set[tuple[str, str, str | None]]:
    models: list[str | None] = list(system.models) or [None]
    owners = {c.model for c in system.constraints} | set(models)
    return {(d.name, o, m) for d in system.decisions for o in d.options for m in owners}


def _slotted(system: System) -> dict[tuple[str, str, str | None], str]:
    """(slotted decision, option, model) of each `at_least_one` → the decision's first slot:
    "required" then means required of one of its slots."""
    return {(c.decision, o, c.model): c.slots[0] for c in system.constraints
            if c.kind == "some" for d in system.decisions if d.name == c.slots[0]
            for o in d.options}


def compare_decisions(j: Joint, a: Version, b: Version, both: Node,
                      depth: int | None) -> list[BehaviourChange]:
    """Where an option became allowed or forbidden, required or not, in the situations both
    versions reach."""
    out: list[BehaviourChange] = []
    common = _options(a.system) & _options(b.system)
    slotted = {k for k, first in {**_slotted(a.system), **_slotted(b.system)}.items()
               if (first, k[1], k[2]) in common}   # either version's `at_least_one`
    for dim, option, model in sorted(common | slotted,
                                     key=lambda t: (t[0], t[1], t[2] or "")):
        label = f"{dim}: {option}" + (f" (model {model})" if model else "")
        for what, expr in (("allowed", allowed_expr), ("required", required_expr)):
            sets = []
            for ver in (a, b):
                e = expr(ver.system.constraints, dim, option, model)
                states = ver.stable_states(depth) & ver.enc.compiler().boolean(e)
                sets.append(j.to_ghost(ver.enc, ver.core.canon(states), j.z, ver.eq_z) & both)
            old, new = sets
            if old == new:
                continue
            out += situation_groups(j, "possible", new & ~old, old, b, what=what,
                                    label=label, limit=2)
            out += situation_groups(j, "impossible", old & ~new, new, a, what=what,
                                    label=label, limit=2)
    return out
