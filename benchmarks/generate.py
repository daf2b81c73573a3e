"""Synthetic rulesets for the benchmarks, seeded and reproducible.

`synth(n, seed)` builds a ruleset with n States in three groups:
- two rings P0..P(r-1) and Q0..Q(r-1) (r = n // 4) whose tokens move together (event
  `move-i`: P_i → P_i+1 and Q_i → Q_i+1). The *hard* invariant "P_last implies Q_last" is
  true but not inductive: proving it needs the r lemmas P_i → Q_i (a many-clause
  strengthening), the case the design notes measured Spacer struggling with;
- free flags F0.. (the rest, n/2), each toggled by its own events; they make the concrete
  state space grow as r·2^(n/2): about 49,000 states at n = 25, the size the design notes'
  prototype measured (about 37,000), so explicit search stops being feasible before
  n = 50 (with r = n // 3 it had only 5,680 states at 25 and 13,920 at 30);
- seeded triggered rules that clear a flag when the token reaches a position.
Properties: the hard invariant, an easy one (no position stacks), a reachability target.
"""

from __future__ import annotations

import random
from pathlib import Path

SOURCE = "Synthetic rules.\nEach rule in this file is generated.\n"


def synth(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    r = max(3, n // 4)
    flags = max(0, n - 2 * r)
    out = [f"ruleset: synth-{n}-{seed}", "source: synthetic.txt", "states:"]
    out += [f"  P{i}: {{}}" for i in range(r)]
    out += [f"  Q{i}: {{}}" for i in range(r)]
    out += [f"  F{i}: {{}}" for i in range(flags)]
    out += ["meta:", '  - {id: no-stacking, stacking: none, cite: "Each rule in this file '
            'is generated."}', "events:"]
    empty = " and ".join(f"not P{i}" for i in range(r))
    out.append(f'  - {{id: start, when: "{empty}", do: [enter P0, enter Q0]}}')
    for i in range(r):
        j = (i + 1) % r
        out.append(f'  - {{id: move-{i}, when: "P{i}", do: [leave P{i}, enter P{j}, '
                   f'leave Q{i}, enter Q{j}]}}')
    for i in range(flags):
        out.append(f'  - {{id: set-{i}, when: "not F{i}", do: [enter F{i}]}}')
        out.append(f'  - {{id: clear-{i}, when: "F{i}", do: [leave F{i}]}}')
    out.append("rules:")
    for i in range(flags):
        out.append(f'  - {{id: link-{i}, when: "F{i} and P{rng.randrange(r)}", '
                   f"do: [leave F{i}]}}")
    if not flags:
        out[-1] = "rules: []"
    out += ["properties:",
            f'  - {{id: hard-sync, always: "P{r - 1} implies Q{r - 1}"}}',
            f'  - {{id: reach-last, reachable: "P{r - 1} and Q{r - 1}"}}']
    return "\n".join(out) + "\n"


def write(folder: Path, n: int, seed: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "synthetic.txt").write_text(SOURCE, encoding="utf-8")
    path = folder / f"synth-{n}-{seed}.yaml"
    path.write_text(synth(n, seed), encoding="utf-8")
    return path
