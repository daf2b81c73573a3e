"""Synthetic rulesets for the benchmarks, seeded and reproducible.

`ring(n, seed)` builds a ruleset with n States: a token that moves around a ring of
`n - n // 2` position States (exactly one is held: the hard case, whose invariant "at most one
position" needs pairwise mutual-exclusion lemmas to be inductive) plus `n // 2` free flag
States toggled by their own events (they make the concrete state space grow as 2^(n/2), so
explicit search stops being feasible well before n = 50), and triggered rules linking flags
to positions. Properties: the hard invariant, one easy cap per flag group, and a
reachability target.
"""

from __future__ import annotations

import random
from pathlib import Path

SOURCE = "Synthetic rules.\nEach rule in this file is generated.\n"


def ring(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    positions = max(3, n - n // 2)
    flags = n - positions
    lines = [f"ruleset: synth-{n}-{seed}", "source: synthetic.txt", "states:"]
    lines += [f"  P{i}: {{}}" for i in range(positions)]
    lines += [f"  F{i}: {{}}" for i in range(flags)]
    lines.append("meta:")
    lines.append('  - {id: no-stacking, stacking: none, cite: "Each rule in this file is '
                 'generated."}')
    lines.append("events:")
    lines.append("  - {id: start, when: \"not any_pos\", do: [enter P0]}".replace(
        "not any_pos", " and ".join(f"not P{i}" for i in range(positions))))
    for i in range(positions):
        j = (i + 1) % positions
        lines.append(f"  - {{id: move-{i}, when: \"P{i}\", do: [leave P{i}, enter P{j}]}}")
    for i in range(flags):
        lines.append(f"  - {{id: set-{i}, when: \"not F{i}\", do: [enter F{i}]}}")
        lines.append(f"  - {{id: clear-{i}, when: \"F{i}\", do: [leave F{i}]}}")
    lines.append("rules:")
    for i in range(min(flags, positions)):
        p = rng.randrange(positions)
        lines.append(f"  - {{id: link-{i}, when: \"F{i} and P{p}\", do: [leave F{i}]}}")
    lines.append("properties:")
    pairs = " and ".join(f"not (P{i} and P{j})" for i in range(positions)
                         for j in range(i + 1, positions))
    lines.append(f"  - {{id: one-position, always: \"{pairs}\"}}")
    lines.append(f"  - {{id: reach-last, reachable: \"P{positions - 1}\"}}")
    return "\n".join(lines) + "\n"


def write(folder: Path, n: int, seed: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "synthetic.txt").write_text(SOURCE, encoding="utf-8")
    path = folder / f"synth-{n}-{seed}.yaml"
    path.write_text(ring(n, seed), encoding="utf-8")
    return path
