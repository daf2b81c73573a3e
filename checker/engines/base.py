"""What every engine returns (`Outcome`) and how it becomes a `PropertyResult`.

Engines are polarity-free: each asks about the *target* states of a property
(`Encoding.target`: the violations of an invariant, the witnesses of a reachability
property) and answers FOUND (with a replayed trace), UNREACHABLE (proved, with a
certificate) or UNKNOWN (with the `StopReason` and a detail). `to_result` applies the
convention of `checker.results`: for an invariant FOUND is VIOLATED and UNREACHABLE is
PROVED; for a reachability property FOUND is PROVED ("reachable") and UNREACHABLE is
VIOLATED. UNKNOWN stays UNKNOWN.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from checker.ir import Property, System
from checker.results import Method, PropertyResult, Status, StopReason, Trace

MAX_CERTIFICATE = 4000


class Kind(StrEnum):
    FOUND = "found"
    UNREACHABLE = "unreachable"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Outcome:
    kind: Kind
    method: Method
    trace: Trace | None = None
    stop: StopReason | None = None
    detail: str = ""
    certificate: str = ""
    depth_hint: int = 0          # Spacer: the target is reachable in the (sliced) system here
    steps: int = 0               # BMC: the length of the path found (events + micro steps)

    @property
    def decided(self) -> bool:
        return self.kind is not Kind.UNKNOWN


def found(method: Method, trace: Trace, steps: int = 0) -> Outcome:
    return Outcome(Kind.FOUND, method, trace=trace, steps=steps)


def unreachable(method: Method, certificate: str, detail: str = "") -> Outcome:
    return Outcome(Kind.UNREACHABLE, method, certificate=truncate(certificate), detail=detail)


def unknown(method: Method, stop: StopReason, detail: str, depth_hint: int = 0) -> Outcome:
    return Outcome(Kind.UNKNOWN, method, stop=stop, detail=detail, depth_hint=depth_hint)


def truncate(text: str, limit: int = MAX_CERTIFICATE) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … [{len(text) - limit} more characters]"


class ProofStore(Protocol):
    """Where proofs made earlier are kept (`checker.plan.store.ConeStore`: per cone of
    influence, on disk). Engines are given one by the pipeline; called directly they
    keep nothing."""

    def lookup(self, system: System, prop: Property) -> PropertyResult | None:
        """A result for `prop` on `system` found earlier, None if there is none."""
        ...

    def store(self, system: System, prop: Property, result: PropertyResult) -> None:
        """Keep `result` (the store decides whether it is worth keeping)."""
        ...


class Budget:
    """A wall-clock allowance for one engine on one property (`Options.timeout_ms`)."""

    def __init__(self, timeout_ms: int) -> None:
        self.timeout_ms = timeout_ms
        self.deadline = time.monotonic() + timeout_ms / 1000

    def remaining_ms(self) -> int:
        return int((self.deadline - time.monotonic()) * 1000)

    @property
    def expired(self) -> bool:
        return self.remaining_ms() <= 0


def status_of(prop: Property, kind: Kind) -> Status:
    if kind is Kind.UNKNOWN:
        return Status.UNKNOWN
    invariant = prop.mode == "invariant"
    if kind is Kind.FOUND:
        return Status.VIOLATED if invariant else Status.PROVED
    return Status.PROVED if invariant else Status.VIOLATED


def to_result(prop: Property, outcome: Outcome, seconds: float = 0.0) -> PropertyResult:
    status = status_of(prop, outcome.kind)
    reason = ""
    if outcome.kind is Kind.UNKNOWN:
        assert outcome.stop is not None
        reason = outcome.stop.describe(outcome.detail)
    elif outcome.detail:
        reason = outcome.detail
    return PropertyResult(
        id=prop.id, kind=prop.kind, status=status,
        method=outcome.method if outcome.decided else None, reason=reason,
        trace=outcome.trace, states=prop.states, source=prop.source, text=prop.text,
        seconds=seconds, invariant=outcome.certificate)
