"""Check properties of a `System` with SPIN: an independent cross-check of the engines.

`run_spin` writes the Promela model (`checker.export.promela`), generates the verifier
(`spin -a`), compiles it for an exhaustive safety search (`-DSAFETY`, memory bounded by
`-DMEMLIM`; never `-DBITSTATE`, which can miss states) and runs `./pan -m<depth>`. An
assertion violation is a counterexample for an invariant and a witness for a reachability
property. Anything that makes the search incomplete (the depth limit, the memory bound, the
timeout, a tool failure) is "unknown", never "holds". `run_spin_all` checks several
properties with one compilation (one never claim per property, chosen by `./pan -N`).
`cc_flags` passes further compile-time options to pan (e.g. `-DCOLLAPSE`, lossless state
compression for large systems; not the lossy `-DHC<n>` hash compaction); `idle_monitors`
exports a cone-of-influence slice with its idle step, `macro` the reduced model
(`checker.export.promela`).
A stuck resolution blocks at the loop's `end` label, so pan needs no `-E`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from checker.export.promela import to_promela, to_promela_claims
from checker.ir import Property, System

Verdict = Literal["holds", "fails", "unknown"]

_ERRORS = re.compile(r"errors:\s*(\d+)")
_STORED = re.compile(r"(\d+)\s+states, stored")
_VECTOR = re.compile(r"State-vector\s+(\d+)\s+byte")
_MEMORY = re.compile(r"([\d.]+)\s+total actual memory usage")
_TRUNCATED = ("max search depth too small", "depth limit reached")
_INCOMPLETE = ("out of memory", "memlim", "vectorsz", "search not completed", "pan: wrong")


@dataclass(frozen=True)
class SpinResult:
    verdict: Verdict
    detail: str
    states: int     # states stored by pan (0 when it did not run); includes its start state
    memory_mb: float = field(default=0.0, compare=False)  # pan's "total actual memory usage"
    seconds: float = field(default=0.0, compare=False)    # wall time of the pan run


def spin_available() -> str | None:
    """None when `spin` and `gcc` are on PATH, else what is missing."""
    missing = [tool for tool in ("spin", "gcc") if shutil.which(tool) is None]
    return f"{' and '.join(missing)} not found on PATH" if missing else None


def run_spin(system: System, prop: Property, *, workdir: Path, timeout_s: float = 120.0,
             max_depth: int = 1_000_000, memlim_mb: int = 2048, hash_bits: int = 20,
             cc_opt: str = "-O1", cc_flags: Sequence[str] = (),
             idle_monitors: bool = False, macro: bool = False) -> SpinResult:
    """Decide `prop` on `system` with an exhaustive SPIN safety search in `workdir`, on the
    model `to_promela(system, prop)` (the property as `assert`s).

    "holds"/"fails" mean what they mean for `checker.interpret.explore`; "unknown" comes with
    the reason (tool missing or failing, search truncated by `max_depth` or memory, timeout).
    `hash_bits` only sizes pan's hash table (collisions are chained: the search stays
    exhaustive); `cc_opt` is gcc's optimisation flag ("-O0" compiles fastest); `cc_flags`
    are further options for gcc (module docstring); `idle_monitors` for a sliced `system`;
    `macro` checks the reduced model (`checker.export.promela`: atomic macro steps, dead
    variables reset), which has the same verdicts and far fewer states.
    """
    run = _Run(workdir, timeout_s, [f"-m{max_depth}", f"-w{hash_bits}", "-n"])
    failed = run.build(to_promela(system, prop, idle_monitors=idle_monitors, macro=macro),
                       len(system.vars) + 4, memlim_mb, cc_opt, list(cc_flags))
    if failed is not None:
        return failed
    return run.pan([], prop)


def run_spin_all(system: System, props: Sequence[Property], *, workdir: Path,
                 timeout_s: float = 600.0, max_depth: int = 1_000_000, memlim_mb: int = 2048,
                 hash_bits: int = 20, cc_opt: str = "-O1", cc_flags: Sequence[str] = (),
                 idle_monitors: bool = False) -> list[SpinResult]:
    """`run_spin` for several properties (results in `props` order) with one compilation:
    the model of `to_promela_claims` has one never claim per property and `./pan -N c<k>`
    checks property k. `timeout_s` bounds the whole batch."""
    if not props:
        return []
    run = _Run(workdir, timeout_s, [f"-m{max_depth}", f"-w{hash_bits}", "-n"])
    text, claims = to_promela_claims(system, props, idle_monitors=idle_monitors)
    failed = run.build(text, len(system.vars) + len(props) + 4, memlim_mb, cc_opt,
                       ["-DNOREDUCE", *cc_flags])
    if failed is not None:
        return [failed] * len(props)
    return [run.pan(["-N", claim], prop) for claim, prop in zip(claims, props, strict=True)]


class _Run:
    """One working directory: write the model, `spin -a`, gcc, then any number of pan runs,
    all within one deadline."""

    def __init__(self, workdir: Path, timeout_s: float, pan_args: list[str]) -> None:
        self.workdir = workdir
        self.timeout_s = timeout_s
        self.deadline = time.monotonic() + timeout_s
        self.pan_args = pan_args

    def _call(self, tool: str, cmd: list[str]) -> tuple[int, str] | SpinResult:
        left = self.deadline - time.monotonic()
        if left <= 0:
            return SpinResult("unknown", f"timeout ({self.timeout_s:g} s) before {tool}", 0)
        try:
            done = subprocess.run(cmd, cwd=self.workdir, capture_output=True, text=True,
                                  timeout=left, check=False)
        except subprocess.TimeoutExpired:
            return SpinResult("unknown", f"timeout ({self.timeout_s:g} s) in {tool}", 0)
        return done.returncode, done.stdout + done.stderr

    def build(self, text: str, nvars: int, memlim_mb: int, cc_opt: str,
              extra: list[str]) -> SpinResult | None:
        """Write and compile the model (`nvars` variables at most 4 bytes each, for pan's
        state vector bound); a result only when that failed."""
        missing = spin_available()
        if missing is not None:
            return SpinResult("unknown", missing, 0)
        self.workdir.mkdir(parents=True, exist_ok=True)
        (self.workdir / "model.pml").write_text(text, encoding="utf-8")
        vectorsz = max(1024, 8 * nvars + 256)
        steps = [("spin", ["spin", "-a", "model.pml"]),
                 ("gcc", ["gcc", cc_opt, "-w", "-DSAFETY", f"-DMEMLIM={memlim_mb}",
                          f"-DVECTORSZ={vectorsz}", *extra, "-o", "pan", "pan.c"])]
        for tool, cmd in steps:
            got = self._call(tool, cmd)
            if isinstance(got, SpinResult):
                return got
            if got[0] != 0:
                return SpinResult("unknown", f"{tool} failed ({got[0]}): {_tail(got[1])}", 0)
        return None

    def pan(self, args: list[str], prop: Property) -> SpinResult:
        start = time.monotonic()
        got = self._call("pan", ["./pan", *self.pan_args, *args])
        result = got if isinstance(got, SpinResult) else parse_pan(got[1], prop)
        return replace(result, seconds=time.monotonic() - start)


def parse_pan(out: str, prop: Property) -> SpinResult:
    """The verdict for `prop` from the output of `./pan`."""
    errors = _ERRORS.search(out)
    stored = _STORED.search(out)
    states = int(stored.group(1)) if stored else 0
    vector = _VECTOR.search(out)
    size = f", state vector {vector.group(1)} bytes" if vector else ""
    memory = _MEMORY.search(out)
    mb = float(memory.group(1)) if memory else 0.0
    return replace(_verdict(out, prop, errors, states, size), memory_mb=mb)


def _verdict(out: str, prop: Property, errors: re.Match[str] | None, states: int,
             size: str) -> SpinResult:
    if errors is None:
        return SpinResult("unknown", f"pan did not finish: {_tail(out)}", states)
    if int(errors.group(1)) > 0:
        if "assertion violated" not in out:
            return SpinResult("unknown", f"pan reported an error that is not an assertion: "
                              f"{_tail(out)}", states)
        if prop.mode == "invariant":
            return SpinResult("fails", f"assertion violated: a counterexample ({states} states"
                              f"{size})", states)
        return SpinResult("holds", f"assertion violated: a witness ({states} states{size})",
                          states)
    lower = out.lower()
    for marker in _TRUNCATED:
        if marker in lower:
            return SpinResult("unknown", f"search truncated ({marker}) after {states} states",
                              states)
    for marker in _INCOMPLETE:
        if marker.lower() in lower:
            return SpinResult("unknown", f"search incomplete ({marker}): {_tail(out)}", states)
    verdict: Verdict = "holds" if prop.mode == "invariant" else "fails"
    what = "no counterexample" if verdict == "holds" else "no witness"
    return SpinResult(verdict, f"exhaustive search, {what} ({states} states{size})", states)


def _tail(out: str, lines: int = 6) -> str:
    return " | ".join(line.strip() for line in out.strip().splitlines()[-lines:])
