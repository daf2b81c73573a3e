"""Benchmark the BDD reachability core (`checker.engines.reach`) on the seed specs.

    PYTHONPATH=. python benchmarks/reach.py [--seeds noctvale eldfall bushido]
        [--resolution first any] [--node-budget N] [--layer-budget N] [--reorder]
        [--no-queries] [--json out.json]

Each (seed, resolution) runs in its own subprocess so that peak RSS is its own. Reported:
encode time (manager, order, relations), reachability time, layers, reachable micro states,
stable situations, stuck states (and, when a budget stops the layers, the same
from the exact chained fixpoint), live BDD nodes after the fixpoint and at peak, node count
of the reachable set, per-property query time (median / max) and the verdicts, total time.
A run that stops at a budget says how far it got (layers, situations, nodes per layer).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def measure(seed: str, resolution: str, node_budget: int, layer_budget: int, reorder: bool,
            queries: bool) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT))
    from checker.engines.reach import Reach
    from checker.spec.load import load_ruleset

    system = load_ruleset(ROOT / "spec" / f"{seed}.yaml", f"spec/{seed}.yaml").system
    t0 = time.perf_counter()
    core = Reach(system, resolution=resolution,  # type: ignore[arg-type]
                 node_budget=node_budget, layer_budget=layer_budget, reorder=reorder)
    t1 = time.perf_counter()
    progress = core.run()
    t2 = time.perf_counter()
    out: dict[str, Any] = {
        "seed": seed, "resolution": resolution, "reorder": reorder,
        "vars": len(system.vars), "bits": len(core.core.enc.all_cur),
        "encode_s": round(t1 - t0, 3), "reach_s": round(t2 - t1, 3),
        "complete": progress.complete, "reason": progress.reason,
        "layers": progress.layers, "micro_rings": progress.micro_rings,
        "reachable": core.core.enc.count(core.core.all_micro),
        "stable": core.core.stable_count_of(core.core.visited),
        "stuck": core.core.enc.count(core.core.all_stuck),
        "live_nodes": core.nodes(), "peak_nodes": progress.peak_nodes,
        "set_nodes": core.core.all_micro.dag_size,
        "history": progress.history,
    }
    if not progress.complete:
        s0 = time.perf_counter()
        exact = core.exact()
        sat = exact.saturated if exact is not None else None
        out["saturate_s"] = round(time.perf_counter() - s0, 3)
        out["saturated"] = sat is not None
        if exact is not None and sat is not None:
            enc = exact.enc
            out.update(sat_sweeps=sat.sweeps, sat_reachable=enc.count(sat.micro),
                       sat_stable=exact.stable_count_of(sat.stable_canon),
                       sat_stuck=enc.count(sat.stuck), sat_set_nodes=sat.micro.dag_size,
                       sat_stable_nodes=sat.stable_canon.dag_size,
                       sat_live_nodes=enc.nodes())
    times: list[float] = []
    verdicts: Counter[str] = Counter()
    if queries:
        for prop in system.properties:
            q0 = time.perf_counter()
            verdicts[core.check(prop).status] += 1
            times.append(time.perf_counter() - q0)
    out["queries"] = len(times)
    out["query_median_s"] = round(statistics.median(times), 4) if times else None
    out["query_max_s"] = round(max(times), 4) if times else None
    out["verdicts"] = dict(verdicts)
    out["total_s"] = round(time.perf_counter() - t0, 3)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", nargs="+", default=["noctvale", "eldfall", "bushido"])
    ap.add_argument("--resolution", nargs="+", default=["first", "any"])
    ap.add_argument("--node-budget", type=int, default=5_000_000)
    ap.add_argument("--layer-budget", type=int, default=10_000)
    ap.add_argument("--reorder", action="store_true")
    ap.add_argument("--no-queries", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        seed, resolution = args.child
        print(json.dumps(measure(seed, resolution, args.node_budget, args.layer_budget,
                                 args.reorder, not args.no_queries)))
        return
    rows = []
    for seed in args.seeds:
        for resolution in args.resolution:
            cmd = [sys.executable, __file__, "--child", seed, resolution,
                   "--node-budget", str(args.node_budget),
                   "--layer-budget", str(args.layer_budget)]
            cmd += ["--reorder"] if args.reorder else []
            cmd += ["--no-queries"] if args.no_queries else []
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                print(f"{seed}/{resolution} failed:\n{done.stderr}", file=sys.stderr)
                continue
            row = json.loads(done.stdout.strip().splitlines()[-1])
            rows.append(row)
            report(row)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")


def report(r: dict[str, Any]) -> None:
    state = "complete" if r["complete"] else f"STOPPED: {r['reason']}"
    print(f"{r['seed']} resolution={r['resolution']} reorder={r['reorder']} "
          f"({r['vars']} vars, {r['bits']} bits): {state}")
    print(f"  encode {r['encode_s']} s, reach {r['reach_s']} s, {r['layers']} layers, "
          f"{r['micro_rings']} micro rings")
    print(f"  reachable micro {r['reachable']:,}, stable situations {r['stable']:,}, "
          f"stuck {r['stuck']:,}")
    print(f"  BDD nodes: live {r['live_nodes']:,}, peak {r['peak_nodes']:,}, "
          f"reachable set {r['set_nodes']:,}")
    if r.get("saturated"):
        print(f"  chained fixpoint: {r['sat_sweeps']} sweeps in {r['saturate_s']} s: "
              f"reachable micro {r['sat_reachable']:,}, stable situations "
              f"{r['sat_stable']:,}, stuck {r['sat_stuck']:,}; set nodes micro "
              f"{r['sat_set_nodes']:,} / stable {r['sat_stable_nodes']:,}, live "
              f"{r['sat_live_nodes']:,}")
    elif "saturated" in r:
        print(f"  chained fixpoint: over budget after {r['saturate_s']} s")
    if r["queries"]:
        print(f"  {r['queries']} queries: median {r['query_median_s']} s, "
              f"max {r['query_max_s']} s; {r['verdicts']}")
    print(f"  total {r['total_s']} s, peak RSS {r['peak_rss_mb']} MB")
    if not r["complete"]:
        tail = ", ".join(f"L{k}: +{new:,} ({nodes:,} nodes)" for k, new, nodes in
                         r["history"][-6:])
        print(f"  last layers: {tail}")


if __name__ == "__main__":
    main()
