"""The benchmark runner: one command, one run, ratios rather than absolute times.

    python benchmarks/run.py [--quick] [--no-seeds] [--out benchmarks/results]

Measures, side by side in one run: the import floor (`python -c "import z3, networkx"`);
the start-up of `ruleproof --version` and `ruleproof schema`; the whole `ruleproof check`
of the seed rulesets in a scratch copy (fresh in one process, fresh with one worker per
core, an unchanged re-run answered from the cache, and a re-run after a one-rule erratum
that only the properties it can affect must pay for), with peak memory; on synthetic
rulesets of N = 10, 25, 30, 50, 100, 200 States (`generate.py`), the symbolic
engines against explicit breadth-first search and against plain Spacer; peak memory of each
worker. Writes `latest.json` and `latest.md` (a table) into the output folder.
Every measurement runs in a fresh subprocess, so imports and caches are counted honestly.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
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
    # every engine is imported before the clock starts: the import cost is the floor,
    # measured on its own; this compares the engines
    from checker.engines import check_property, spacer
    from checker.interpret import explore

    verdicts: dict[str, str] = {}
    times: dict[str, float] = {}
    if mode == "symbolic":
        for pid in ("hard-sync", "reach-last", "no-stacking:P0"):
            began = time.perf_counter()
            r = check_property(system, props[pid], options)
            times[pid] = time.perf_counter() - began
            verdicts[pid] = f"{r.status.value} ({r.method.value if r.method else '-'})"
    elif mode == "spacer":
        began = time.perf_counter()
        r = spacer.run(system, props["hard-sync"], options)
        times["hard-sync"] = time.perf_counter() - began
        verdicts["hard-sync"] = f"{r.status.value} ({r.reason[:80]})" if r.reason else \
            r.status.value
    elif mode == "explicit":
        began = time.perf_counter()
        e = explore(system, props["hard-sync"], max_states=5_000_000)
        times["hard-sync"] = time.perf_counter() - began
        verdicts["hard-sync"] = f"{e.verdict} ({e.states} states)"
    seconds = times["hard-sync"]     # the property all three modes decide: the ratio's basis
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"mode": mode, "n": n, "finished": True, "seconds": seconds,
                      "times": times,
                      "peak_mb": round(peak_kb / 1024, 1), "verdicts": verdicts,
                      "variables": len(system.vars)}))


# an erratum to one Bushido rule: "remove all Immobilised" becomes "remove 1 Immobilised"
# when another effect moves the model (rule `immobilised-moved`)
EDIT_FILE = "bushido.yaml"
EDIT_OLD = ("    on: moved-by-effect\n    when: Immobilised\n    do: [remove all Immobilised]\n")
EDIT_NEW = ("    on: moved-by-effect\n    when: Immobilised\n    do: [remove 1 Immobilised]\n")

PEAK = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], "
        "capture_output=True); print(p.returncode, "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def measured(cmd: list[str], cwd: Path, timeout: float = 3600) -> dict[str, Any]:
    """Wall time, exit code and peak memory (the largest single process: the CLI or one
    of its workers) of `cmd`."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", PEAK, *cmd], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    rc, peak_kb = proc.stdout.split()
    return {"seconds": seconds, "exit": int(rc), "peak_mb": round(int(peak_kb) / 1024, 1)}


def seeds(py: str, jobs: int) -> dict[str, Any]:
    """The whole check of the three seed rulesets in a scratch copy (its own cache):
    fresh in one process, fresh with `jobs` workers (filling the cache), an unchanged
    re-run, and a re-run after a one-rule erratum."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="rp-bench-seeds-") as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "spec", work / "spec")
        shutil.copytree(ROOT / "seeds", work / "seeds")
        check = [py, "-m", "checker", "check", "spec", "--no-color", "--html", "reports"]
        out["fresh_jobs1"] = measured([*check, "--no-cache", "--jobs", "1"], work)
        out["fresh"] = measured([*check, "--jobs", str(jobs)], work)
        out["cached"] = [measured(check, work) for _ in range(3)]
        spec = work / "spec" / EDIT_FILE
        text = spec.read_text(encoding="utf-8")
        assert text.count(EDIT_OLD) == 1, "the benchmark's erratum no longer applies"
        spec.write_text(text.replace(EDIT_OLD, EDIT_NEW), encoding="utf-8")
        out["after_edit"] = measured([*check, "--jobs", str(jobs)], work)
        out["jobs"] = jobs
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument("--quick", action="store_true", help="N = 10, 25, 30 only")
    ap.add_argument("--no-seeds", action="store_true", help="skip the seed rulesets")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        _worker_main(args.worker[0], int(args.worker[1]))
        return 0
    py = sys.executable
    floor = median_wall([py, "-c", "import z3, networkx"], 5)
    startup = {"--version": median_wall([py, "-m", "checker", "--version"], 5),
               "schema": median_wall([py, "-m", "checker", "schema"], 5)}
    jobs = len(os.sched_getaffinity(0))
    seed_runs = None if args.no_seeds else seeds(py, jobs)
    rows: list[dict[str, Any]] = []
    for n in SIZES[:3] if args.quick else SIZES:
        sym = worker("symbolic", n, 600)
        exp = worker("explicit", n, EXPLICIT_TIMEOUT_S)
        spa = worker("spacer", n, SPACER_TIMEOUT_S + 30)
        rows.append({"n": n, "symbolic": sym, "explicit": exp, "spacer": spa})
    report = {
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                 capture_output=True, text=True).stdout.strip(),
        "cores": jobs, "floor_s": floor, "startup_s": startup, "seeds": seed_runs,
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
    times = r.get("times", {})
    v = "; ".join(f"{k}: {x}" + (f" in {times[k]:.3f} s" if k in times else "")
                  for k, x in r.get("verdicts", {}).items())
    return f"{r['peak_mb']} MB — {v}"


def _table(rep: dict[str, Any]) -> str:
    floor = rep["floor_s"]

    def x(seconds: float) -> str:
        return f"{seconds:.2f} s = {seconds / floor:.1f}× the floor"

    lines = [f"# ruleproof benchmarks (commit {rep['commit']}, {rep['cores']} cores)", "",
             f"- import floor `python -c \"import z3, networkx\"`: {floor:.3f} s",
             f"- `ruleproof --version`: {x(rep['startup_s']['--version'])}; "
             f"`ruleproof schema`: {x(rep['startup_s']['schema'])}"]
    s = rep.get("seeds")
    if s:
        cached = statistics.median(c["seconds"] for c in s["cached"])
        lines += [
            f"- seed rulesets, fresh check, one process: {x(s['fresh_jobs1']['seconds'])}, "
            f"peak {s['fresh_jobs1']['peak_mb']} MB (target ≤ 10×)",
            f"- seed rulesets, fresh check, {s['jobs']} workers: {x(s['fresh']['seconds'])}, "
            f"peak {s['fresh']['peak_mb']} MB per process "
            f"({s['fresh_jobs1']['seconds'] / s['fresh']['seconds']:.2f}× faster)",
            f"- unchanged re-run (cache), median of 3: {x(cached)} (target ≤ 1.5×)",
            f"- re-run after a one-rule erratum in {EDIT_FILE}: {x(s['after_edit']['seconds'])}"
            f" ({s['after_edit']['seconds'] / s['fresh']['seconds']:.0%} of the fresh check)"]
    lines += ["", "Synthetic rulesets (`benchmarks/generate.py`); the ratio compares the times "
              "of `hard-sync`, the one property all three decide:", "",
              "| N | symbolic engines | explicit BFS | plain Spacer | explicit / symbolic |",
              "|---|---|---|---|---|"]
    for row in rep["sizes"]:
        sym, e = row["symbolic"], row["explicit"]
        if sym.get("finished") and e.get("finished") and sym["seconds"] > 0:
            ratio = f"{e['seconds'] / sym['seconds']:.2g}×"
        elif sym.get("finished") and sym["seconds"] > 0:     # explicit search was stopped
            ratio = f"> {e['seconds'] / sym['seconds']:.2g}× (explicit did not finish)"
        else:
            ratio = "—"
        lines.append(f"| {row['n']} | {_cell(sym)} | {_cell(e)} | {_cell(row['spacer'])} | "
                     f"{ratio} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
