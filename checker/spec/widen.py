"""Widening a ruleset's ranges for the scope re-check: the same spec with every bounded range
and marker maximum the text does not fix made larger, lowered again (`widened`).

What is widened, and to what (docs/semantics.md "The scope re-check"):
- a variable's `range: [lo, hi]` becomes `[lo, hi + (hi - lo) + 1]` (for `lo = 0`:
  `2*hi + 1`), at most `lo + 64` (the language's largest range);
- a State's `markers: {max: N}` becomes `max: 2*N + 1`.
Not widened: a declaration pinned `exact: true` (with the `cite` of the sentence that fixes
it), enumerations (`values:`), phases, inputs and flag States' 0..2 counts. Everything else
stays as written, including every constant of the spec (a single `init`, `hp == 3`, `add 2`):
only the domains grow, and everything lowering derives from a domain (the clamps of
`+=`/`-=`, the marker caps) follows, because the widened spec is lowered again. One
exception: an open start, an `init` list of numbers that reaches the range's top
(`range: [0, 2], init: [1, 2]`: "any start from 1 up"), grows with the range (`[1, 5]`),
since it says the start is as open as the range (`open_start`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from checker.ir import PathKey, Ruleset
from checker.spec.schema import SpecDoc

MAX_SPAN = 64     # `checker.spec.lower._domain`: a range spans at most 64 values


@dataclass(frozen=True)
class Range:
    """One widenable range of a spec: a variable's `range` or a State's marker `max`."""

    name: str                          # the variable or the State
    kind: Literal["var", "markers"]
    lo: int
    hi: int                            # as the spec gives it
    wide: int                          # the widened upper bound
    path: PathKey                      # where it is declared

    @property
    def noun(self) -> str:
        """How the report names it: `hp` or `Bleed markers`."""
        return self.name if self.kind == "var" else f"{self.name} markers"

    def bound(self) -> str:
        """The bound the spec gives: `hp ≤ 1`, `at most 2 Bleed markers`."""
        if self.kind == "var":
            return f"{self.name} ≤ {self.hi}"
        return f"at most {self.hi} {self.name} markers"

    def wider(self) -> str:
        """The widened bound: `hp up to 3`, `up to 5 Bleed markers`."""
        if self.kind == "var":
            return f"{self.name} up to {self.wide}"
        return f"up to {self.wide} {self.name} markers"


def ranges(doc: SpecDoc) -> list[Range]:
    """The ranges of `doc` the re-check widens, in declaration order (variables, then
    markers); pinned (`exact`) ones and ranges already at the largest span are left out."""
    out: list[Range] = []
    for name, vd in doc.vars.items():
        if vd.range is None or vd.exact:
            continue
        lo, hi = vd.range
        wide = min(hi + (hi - lo) + 1, lo + MAX_SPAN)
        if lo <= hi < wide:
            out.append(Range(name, "var", lo, hi, wide, ("vars", name, "range")))
    for name, sd in doc.states.items():
        if sd.markers is None or sd.markers.exact:
            continue
        m = sd.markers.max
        out.append(Range(name, "markers", 0, m, 2 * m + 1, ("states", name, "markers")))
    return out


def open_start(init: object, hi: int, wide: int) -> list[int] | None:
    """The widened starting values of a variable whose `init` is a list of numbers that
    reaches its range's top `hi` (an open start): those values and every one above `hi` up
    to `wide`. None for any other `init` (a single value, names, or a list below the top),
    which stays as written."""
    if not isinstance(init, list) or not init or \
            not all(isinstance(v, int) and not isinstance(v, bool) for v in init):
        return None
    values = [int(v) for v in init]
    if max(values) != hi:
        return None
    return sorted(set(values) | set(range(hi + 1, wide + 1)))


def widened_doc(doc: SpecDoc, which: Collection[Range]) -> SpecDoc:
    """`doc` with the ranges `which` widened and nothing else changed."""
    vars_ = dict(doc.vars)
    states = dict(doc.states)
    for r in which:
        if r.kind == "var":
            vd = vars_[r.name]
            update: dict[str, object] = {"range": (r.lo, r.wide)}
            start = open_start(vd.init, r.hi, r.wide)
            if start is not None:
                update["init"] = start
            vars_[r.name] = vd.model_copy(update=update)
        else:
            sd = states[r.name]
            assert sd.markers is not None
            markers = sd.markers.model_copy(update={"max": r.wide})
            states[r.name] = sd.model_copy(update={"markers": markers})
    return doc.model_copy(update={"vars": vars_, "states": states})


def widened(ruleset: Ruleset, which: Collection[Range] | None = None) -> Ruleset | None:
    """`ruleset` lowered again with the ranges `which` widened (None: every range of
    `ranges`); None when it keeps no spec to lower again or nothing is widened."""
    if ruleset.doc is None or ruleset.tree is None:
        return None
    chosen = ranges(ruleset.doc) if which is None else list(which)
    if not chosen:
        return None
    from checker.spec.readings import lower_doc  # readings lower through `lower` too

    return lower_doc(ruleset.tree, widened_doc(ruleset.doc, chosen), ruleset.choice)
