"""The benchmark runner: one command, one run, ratios rather than absolute times.

    python benchmarks/run.py [--quick] [--out benchmarks/results]

Measures, side by side in one run: the import floor (`python -c "import z3, networkx"`);
the whole `ruleproof check` of the seed rulesets (fresh, and an unchanged re-run answered
from the cache); on synthetic rulesets of N = 10, 25, 30, 50, 100, 200 States, the symbolic
engines against explicit breadth-first search and against plain Spacer; peak memory of each
worker. Writes `latest.json` and `latest.md` (a table) into the output folder.
Every measurement runs in a fresh subprocess, so imports and caches are counted honestly.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SIZES = [10, 25, 30, 50, 100, 200]
EXPLICIT_TIMEOUT_S = 120
SPACER_TIMEOUT_S = 60


def wall(cmd: list[str], *, cwd: Path = ROOT, timeout: float = 900) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return time.perf_counter() - start, proc.returncode


def median_wall(cmd: list[str], n: int) -> float:
    return statistics.median(wall(cmd)[0] for _ in range(n))


def worker(mode: str, n: int, timeout_s: float) -> dict[str, Any]:
    """Run one measurement in a subprocess; returns its JSON (or a did-not-finish record)."""
    cmd = [sys.executable, str(Path(__file__)), "--worker", mode, str(n)]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return {"mode": mode, "n": n, "finished": False, "seconds": timeout_s,
                "reason": f"stopped after {timeout_s:.0f} s"}
    if proc.returncode != 0:
        return {"mode": mode, "n": n, "finished": False,
                "seconds": time.perf_counter() - start,
                "reason": (proc.stderr.strip().splitlines() or ["failed"])[-1][:200]}
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def _worker_main(mode: str, n: int) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from generate import write

    from checker.options import Options
    from checker.spec.load import load_ruleset

    folder = Path(tempfile.mkdtemp(prefix="rp-bench-"))
    system = load_ruleset(write(folder, n)).system
    props = {p.id: p for p in system.properties}
    options = Options(timeout_ms=SPACER_TIMEOUT_S * 1000)
    start = time.perf_counter()
    verdicts: dict[str, str] = {}
    if mode == "symbolic":
        from checker.engines import check_property

        for pid in ("hard-sync", "reach-last", "no-stacking:P0"):
            r = check_property(system, props[pid], options)
            verdicts[pid] = f"{r.status.value} ({r.method.value if r.method else '-'})"
    elif mode == "spacer":
        from checker.engines import spacer

        r = spacer.run(system, props["hard-sync"], options)
        verdicts["hard-sync"] = f"{r.status.value} ({r.reason[:80]})" if r.reason else \
            r.status.value
    elif mode == "explicit":
        from checker.interpret import explore

        e = explore(system, props["hard-sync"], max_states=5_000_000)
        verdicts["hard-sync"] = f"{e.verdict} ({e.states} states)"
    seconds = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"mode": mode, "n": n, "finished": True, "seconds": seconds,
                      "peak_mb": round(peak_kb / 1024, 1), "verdicts": verdicts,
                      "variables": len(system.vars)}))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument("--quick", action="store_true", help="N = 10, 25, 30 only")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        _worker_main(args.worker[0], int(args.worker[1]))
        return 0
    py = sys.executable
    floor = median_wall([py, "-c", "import z3, networkx"], 5)
    with tempfile.TemporaryDirectory() as tmp:
        cache_env = dict(os.environ)
        fresh, rc = wall([py, "-m", "checker", "check", "spec", "--no-cache", "--html", tmp])
        wall([py, "-m", "checker", "check", "spec", "--html", tmp])   # fill the cache
        cached = median_wall([py, "-m", "checker", "check", "spec", "--html", tmp], 3)
        del cache_env
    rows: list[dict[str, Any]] = []
    for n in SIZES[:3] if args.quick else SIZES:
        sym = worker("symbolic", n, 600)
        exp = worker("explicit", n, EXPLICIT_TIMEOUT_S)
        spa = worker("spacer", n, SPACER_TIMEOUT_S + 30)
        rows.append({"n": n, "symbolic": sym, "explicit": exp, "spacer": spa})
    report = {
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                 capture_output=True, text=True).stdout.strip(),
        "floor_s": floor,
        "seeds_fresh_s": fresh, "seeds_exit": rc, "seeds_cached_s": cached,
        "seeds_fresh_over_floor": fresh / floor, "seeds_cached_over_floor": cached / floor,
        "sizes": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "latest.json").write_text(json.dumps(report, indent=2) + "\n", "utf-8")
    table = _table(report)
    (args.out / "latest.md").write_text(table, "utf-8")
    print(table)
    return 0


def _cell(r: dict[str, Any]) -> str:
    if not r.get("finished"):
        return f"did not finish ({r.get('reason', '')})"
    v = "; ".join(f"{k}: {x}" for k, x in r.get("verdicts", {}).items())
    return f"{r['seconds']:.2f} s, {r['peak_mb']} MB — {v}"


def _table(rep: dict[str, Any]) -> str:
    lines = [f"# ruleproof benchmarks (commit {rep['commit']})", "",
             f"- import floor `python -c \"import z3, networkx\"`: {rep['floor_s']:.3f} s",
             f"- seed rulesets, fresh check: {rep['seeds_fresh_s']:.2f} s = "
             f"{rep['seeds_fresh_over_floor']:.1f}× the floor (target ≤ 10×)",
             f"- seed rulesets, unchanged re-run (cache): {rep['seeds_cached_s']:.3f} s = "
             f"{rep['seeds_cached_over_floor']:.2f}× the floor (target ≤ 1.5×)", "",
             "| N | symbolic engines | explicit BFS | plain Spacer | explicit / symbolic |",
             "|---|---|---|---|---|"]
    for row in rep["sizes"]:
        s, e = row["symbolic"], row["explicit"]
        ratio = (f"{e['seconds'] / s['seconds']:.0f}×" if s.get("finished") and
                 e.get("finished") and s["seconds"] > 0 else "—")
        lines.append(f"| {row['n']} | {_cell(s)} | {_cell(e)} | {_cell(row['spacer'])} | "
                     f"{ratio} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
