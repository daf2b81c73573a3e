"""`Session`: the z3 context and encodings one property check shares among its engines.

A check of one property owns one fresh `z3.Context()` (z3-notes: determinism, and Z3
terms never cross processes); its engines run in that context one after another, in a
fixed order, so the run is deterministic. Creating a context and parsing the encoding
into it are then paid once per property instead of once per engine.
"""

from __future__ import annotations

from typing import Any

import z3  # noqa: TID251 - engines/ is one of the two packages allowed to import z3

from checker.encode import Encoding, encode
from checker.graph import cone
from checker.ir import Property, System


class Session:
    def __init__(self, system: System, prop: Property) -> None:
        self.system = system
        self.prop = prop
        self.ctx: Any = z3.Context()
        self._full: Encoding | None = None
        self._sliced: Encoding | None = None

    def full(self) -> Encoding:
        """The exact encoding of the whole system (BMC: traces must replay)."""
        if self._full is None:
            self._full = encode(self.system, self.ctx)
        return self._full

    def sliced(self) -> Encoding:
        """The encoding of the property's cone (`checker.graph.cone`), for proofs; a sliced
        system idles with its monitors running (see `checker.encode.system`)."""
        if self._sliced is None:
            sliced = cone(self.system, self.prop)
            self._sliced = self.full() if sliced is self.system else \
                encode(sliced, self.ctx, idle_monitors=True)
        return self._sliced


def session_for(system: System, prop: Property, session: Session | None) -> Session:
    if session is not None and session.system is system and session.prop is prop:
        return session
    return Session(system, prop)
