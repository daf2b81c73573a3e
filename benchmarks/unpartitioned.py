"""Benchmark the reachability core on Eldfall *without* its `scenario` partition.

    PYTHONPATH=. python benchmarks/unpartitioned.py [--node-budget N] [--sift-at N]
        [--queries] [--json out.json]

Written while `spec/eldfall.yaml` still split its model into four `scenario`s (a free
initial choice gating which States can be inflicted), to measure what the core would do with
the gates removed before the spec dropped them: every `scenario == X` / `scenario != X`
comparison in a `when:` is removed (a guard that was only the gate with it) and the
`scenario` variable is fixed to one value, in a copy of the spec written beside `spec/` (so
that its `source:` path still resolves) and removed afterwards. Since commit f71c192 the spec
has no partition, so on it this benchmark changes nothing and measures the spec as it is
(run it on tests/fixtures/eldfall-partitioned.yaml's history for the old comparison).
Reported: layers, micro states, stable situations, peak and final live nodes, siftings, CPU
seconds and peak RSS; with `--queries`, every property's verdict and the query times.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GATE = re.compile(r"\(?scenario\s*[!=]=\s*\w+(\s+or\s+scenario\s*[!=]=\s*\w+)*\s*\)?")


def unpartitioned(text: str) -> str:
    """The spec text with every scenario gate replaced by `true` (module docstring)."""
    out = []
    for line in text.splitlines():
        if re.match(r"\s*when:.*scenario", line):
            line = GATE.sub("true", line).replace(" and true", "")
            if line.strip() == "when: true":     # the whole guard was the gate
                continue
        if re.match(r"\s*init: \[sight, panic, stats, attrition\]", line):
            line = line.replace("[sight, panic, stats, attrition]", "sight")
        out.append(line)
    if any("scenario" in ln and "when:" in ln for ln in out):
        raise SystemExit("unpartitioned: a scenario gate was not rewritten")
    return "\n".join(out) + "\n"


def measure(node_budget: int, sift_at: int, queries: bool) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT))
    from checker.engines.reach import Reach
    from checker.spec.load import load_ruleset

    folder = Path(tempfile.mkdtemp(prefix="unpartitioned-", dir=ROOT))
    try:
        path = folder / "eldfall.yaml"
        path.write_text(unpartitioned((ROOT / "spec" / "eldfall.yaml").read_text()))
        system = load_ruleset(path, "spec/eldfall.yaml (unpartitioned)").system
    finally:
        shutil.rmtree(folder)
    c0 = time.process_time()
    core = Reach(system, node_budget=node_budget, sift_at=sift_at)
    progress = core.run()
    c1 = time.process_time()
    out: dict[str, Any] = {
        "complete": progress.complete, "reason": progress.reason, "layers": progress.layers,
        "reachable": core.core.enc.count(core.core.all_micro),
        "stable": core.core.stable_count_of(core.core.visited),
        "peak_nodes": progress.peak_nodes, "live_nodes": core.nodes(),
        "set_nodes": core.core.all_micro.dag_size, "siftings": progress.siftings,
        "reach_cpu_s": round(c1 - c0, 1),
    }
    if queries and progress.complete:
        times: list[float] = []
        verdicts: Counter[str] = Counter()
        for prop in system.properties:
            q0 = time.process_time()
            verdicts[core.check(prop).status] += 1
            times.append(time.process_time() - q0)
        out.update(queries=len(times), query_median_s=round(statistics.median(times), 3),
                   query_max_s=round(max(times), 3), query_total_s=round(sum(times), 1),
                   verdicts=dict(verdicts))
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--node-budget", type=int, default=5_000_000)
    ap.add_argument("--sift-at", type=int, default=100_000)
    ap.add_argument("--queries", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    result = measure(args.node_budget, args.sift_at, args.queries)
    print(json.dumps(result, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
