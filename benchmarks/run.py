"""The benchmark runner: one command, one run, ratios rather than absolute times.

    python3 benchmarks/run.py [--quick] [--no-seeds] [--no-spin] [--with-cache-runs]
        [--out benchmarks/results] [--markdown benchmarks/results.md]

Measures, side by side in one run (never from the unit tests): the import floor
(`python -c "import z3, networkx"`); the start-up of `ruleproof --version` and `ruleproof
schema`; the fresh `ruleproof check` of each seed ruleset in a scratch copy, one process
(`--jobs 1 --no-cache`), and of all three with `--jobs 2 --no-cache`, each with its
verdicts and methods, its wall time as a ratio of the floor and its peak memory (the
largest single process, `resource.getrusage(RUSAGE_CHILDREN)`); optionally
(`--with-cache-runs`) an unchanged re-run answered from the cache and a re-run after a
one-rule erratum; on synthetic rulesets of N = 10, 25, 30, 50, 100, 200 States
(`generate.py`) the decision-diagram core, the symbolic (Z3 per-query) engines, explicit
breadth-first search and plain Spacer; SPIN on the Promela export of each seed (`spin -a`,
`gcc -O2 -DSAFETY`, `./pan -c0`: time and states stored until it finishes or its budget
ends); the per-query cost of the core (median and maximum, `reach.py`). `--quick`: N = 10,
25, 30, no Bushido, shorter SPIN budgets. Writes `latest.json` into the output folder and
the table as Markdown (`--markdown`) and on stdout.
Every measurement runs in a fresh subprocess, so imports and caches are counted honestly.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# every subprocess imports this checkout's `checker`, whatever the installed one is
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
SIZES = [10, 25, 30, 50, 100, 200]
EXPLICIT_TIMEOUT_S = 120
SPACER_TIMEOUT_S = 60


def wall(cmd: list[str], *, cwd: Path = ROOT, timeout: float = 900) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=ENV)
    return time.perf_counter() - start, proc.returncode


def median_wall(cmd: list[str], n: int) -> float:
    return statistics.median(wall(cmd)[0] for _ in range(n))


def worker(mode: str, n: int, timeout_s: float) -> dict[str, Any]:
    """Run one measurement in a subprocess; returns its JSON (or a did-not-finish record)."""
    cmd = [sys.executable, str(Path(__file__)), "--worker", mode, str(n)]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s,
                              env=ENV)
    except subprocess.TimeoutExpired:
        return {"mode": mode, "n": n, "finished": False, "seconds": timeout_s,
                "reason": f"stopped after {timeout_s:.0f} s"}
    if proc.returncode != 0:
        return {"mode": mode, "n": n, "finished": False,
                "seconds": time.perf_counter() - start,
                "reason": (proc.stderr.strip().splitlines() or ["failed"])[-1][:200]}
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def own_peak_kb() -> int:
    """This process's own peak resident memory, in KiB: `VmHWM`, the high-water mark of
    its address space since its `exec`. Not `getrusage(RUSAGE_SELF).ru_maxrss`: Linux keeps
    that across `exec`, and Python starts a subprocess with vfork, so a child launched by
    this runner reported the runner's peak (9,156.9 MB in every synthetic row of an earlier
    run)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text("utf-8").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


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
    elif mode == "core":
        from checker.engines.reach import Reach
        began = time.perf_counter()
        core = Reach(system, node_budget=5_000_000)
        for pid in ("hard-sync", "reach-last", "no-stacking:P0"):
            q = time.perf_counter()
            verdicts[pid] = core.check(props[pid]).status
            times[pid] = time.perf_counter() - q
        times["hard-sync"] = time.perf_counter() - began      # with the fixpoint itself
        verdicts["situations"] = str(core.stable_count())
    elif mode == "explicit":
        began = time.perf_counter()
        e = explore(system, props["hard-sync"], max_states=5_000_000)
        times["hard-sync"] = time.perf_counter() - began
        verdicts["hard-sync"] = f"{e.verdict} ({e.states} states)"
    seconds = times["hard-sync"]     # the property all three modes decide: the ratio's basis
    peak_kb = own_peak_kb()
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
        "capture_output=True, text=True); print(p.stdout); print(p.returncode, "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime + "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime)")


def measured(cmd: list[str], cwd: Path, timeout: float = 3600,
             keep_output: bool = False) -> dict[str, Any]:
    """Wall time, exit code and peak memory (the largest single process: the CLI or one
    of its workers) of `cmd`; with `keep_output`, its stdout too."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", PEAK, *cmd], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=ENV)
    seconds = time.perf_counter() - start
    lines = proc.stdout.splitlines()
    rc, peak_kb, cpu = lines[-1].split()
    out: dict[str, Any] = {"seconds": seconds, "exit": int(rc), "cpu_s": float(cpu),
                           "peak_mb": round(int(peak_kb) / 1024, 1)}
    if keep_output:
        out["output"] = "\n".join(lines[:-1])
    return out


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


SEEDS = ["noctvale", "eldfall", "bushido"]


def _verdicts(report: Path) -> dict[str, Any]:
    """Counts of (status, method) over every property of a check's JSON report."""
    out: dict[str, int] = {}
    try:
        data = json.loads(report.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    for r in data.get("rulesets", []):
        for p in r.get("properties", []):
            key = f"{p.get('status')} ({p.get('method') or '-'})"
            out[key] = out.get(key, 0) + 1
    return dict(sorted(out.items()))


def fresh_seeds(py: str, names: list[str], out_dir: Path) -> dict[str, Any]:
    """The fresh check of each seed in one process, then of all of them with two workers
    (`--jobs 2 --no-cache`), in a scratch copy; the JSON reports are kept in `out_dir`."""
    res: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="rp-bench-fresh-") as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "spec", work / "spec")
        shutil.copytree(ROOT / "seeds", work / "seeds")
        base = [py, "-m", "checker", "check", "--no-color", "--no-cache", "--html", "reports"]
        for name in names:
            report = out_dir / f"{name}.json"
            m = measured([*base, f"spec/{name}.yaml", "--jobs", "1", "--json", str(report)],
                         work)
            m["verdicts"] = _verdicts(report)
            res[name] = m
            _partial(out_dir, "fresh", res)
        report = out_dir / "all-jobs2.json"
        m = measured([*base, *[f"spec/{n}.yaml" for n in names], "--jobs", "2",
                      "--json", str(report)], work)
        m["verdicts"] = _verdicts(report)
        res["all --jobs 2"] = m
    return res


def _partial(out_dir: Path, what: str, data: Any) -> None:
    """Measurements so far (a long run can be read before it ends)."""
    (out_dir / f"partial-{what}.json").write_text(json.dumps(data, indent=1) + "\n", "utf-8")


def spin(py: str, names: list[str], budget_s: float) -> dict[str, Any]:
    """SPIN on each seed's Promela export: `spin -a`, `gcc -O2 -DSAFETY`, `./pan -c0`;
    wall time of each stage, states stored, and whether the search finished within
    `budget_s` (exhaustive: `-m10000000`)."""
    out: dict[str, Any] = {}
    if shutil.which("spin") is None or shutil.which("gcc") is None:
        return {n: {"finished": False, "reason": "spin or gcc not installed"} for n in names}
    for name in names:
        with tempfile.TemporaryDirectory(prefix="rp-bench-spin-") as tmp:
            work = Path(tmp)
            row: dict[str, Any] = {}
            began = time.perf_counter()
            model = work / f"{name}.pml"
            subprocess.run([py, "-m", "checker", "export", str(ROOT / "spec" / f"{name}.yaml"),
                            "--promela", "-o", str(model)], cwd=ROOT, capture_output=True,
                           check=True, env=ENV)
            row["export_s"] = time.perf_counter() - began
            t = time.perf_counter()
            subprocess.run(["spin", "-a", model.name], cwd=work, capture_output=True,
                           check=True)
            subprocess.run(["gcc", "-O2", "-DSAFETY", "-o", "pan", "pan.c"], cwd=work,
                           capture_output=True, check=True)
            row["compile_s"] = time.perf_counter() - t
            t = time.perf_counter()
            # pan itself, so that an interrupt (SIGINT: pan prints its statistics and stops)
            # reaches it when the budget ends
            pan = subprocess.Popen(["./pan", "-m10000000", "-c0", "-n"], cwd=work,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            try:
                text, _ = pan.communicate(timeout=budget_s)
                row.update(finished=True)
            except subprocess.TimeoutExpired:
                pan.send_signal(signal.SIGINT)
                try:
                    text, _ = pan.communicate(timeout=60)
                except subprocess.TimeoutExpired:
                    pan.kill()
                    text, _ = pan.communicate()
                row.update(finished=False, reason=f"stopped after {budget_s:.0f} s")
            row["pan_s"] = time.perf_counter() - t
            for line in text.splitlines():
                if "states, stored" in line:
                    row["states"] = int(float(line.split()[0]))
                if "errors:" in line:
                    row["errors"] = line.strip()
                if "total actual memory usage" in line:
                    row["peak_mb"] = float(line.split()[0])
            row["total_s"] = time.perf_counter() - began
            out[name] = row
    return out


def core_queries(py: str, names: list[str]) -> list[dict[str, Any]]:
    """The decision-diagram core's per-property query cost (`reach.py`, first resolution,
    the check's node budget)."""
    with tempfile.TemporaryDirectory(prefix="rp-bench-reach-") as tmp:
        out = Path(tmp) / "reach.json"
        subprocess.run([py, str(ROOT / "benchmarks" / "reach.py"), "--seeds", *names,
                        "--resolution", "first", "--node-budget", "500000", "--json",
                        str(out)], cwd=ROOT, capture_output=True, timeout=3600,
                       env=ENV)
        try:
            rows: list[dict[str, Any]] = json.loads(out.read_text("utf-8"))
        except (OSError, ValueError):
            return []
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    ap.add_argument("--markdown", type=Path, default=ROOT / "benchmarks" / "results.md")
    ap.add_argument("--quick", action="store_true",
                    help="N = 10, 25, 30 only; no Bushido; SPIN budget 30 s")
    ap.add_argument("--no-seeds", action="store_true", help="skip the seed rulesets")
    ap.add_argument("--no-spin", action="store_true", help="skip SPIN")
    ap.add_argument("--with-cache-runs", action="store_true",
                    help="also the cached re-run and the re-run after a one-rule erratum")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        _worker_main(args.worker[0], int(args.worker[1]))
        return 0
    py = sys.executable
    args.out.mkdir(parents=True, exist_ok=True)
    names = SEEDS[:2] if args.quick else SEEDS
    floor = median_wall([py, "-c", "import z3, networkx"], 5)
    startup = {"--version": median_wall([py, "-m", "checker", "--version"], 5),
               "schema": median_wall([py, "-m", "checker", "schema"], 5)}
    jobs = len(os.sched_getaffinity(0))
    report: dict[str, Any] = {
        "commit": os.environ.get("RULEPROOF_COMMIT") or subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
            text=True).stdout.strip(),     # RULEPROOF_COMMIT: a snapshot outside git
        "cores": jobs, "floor_s": floor, "startup_s": startup}
    report["queries"] = core_queries(py, ["noctvale", "eldfall"])
    _partial(args.out, "report", report)
    report["spin"] = None if args.no_spin else spin(py, names, 30 if args.quick else 120)
    _partial(args.out, "report", report)
    report["fresh"] = None if args.no_seeds else fresh_seeds(py, names, args.out)
    report["seeds"] = seeds(py, jobs) if args.with_cache_runs and not args.no_seeds else None
    _partial(args.out, "report", report)
    rows: list[dict[str, Any]] = []
    for n in SIZES[:3] if args.quick else SIZES:
        core = worker("core", n, 600)
        sym = worker("symbolic", n, 600)
        exp = worker("explicit", n, EXPLICIT_TIMEOUT_S)
        spa = worker("spacer", n, SPACER_TIMEOUT_S + 30)
        rows.append({"n": n, "core": core, "symbolic": sym, "explicit": exp, "spacer": spa})
        report["sizes"] = rows
        _partial(args.out, "report", report)
    (args.out / "latest.json").write_text(json.dumps(report, indent=2) + "\n", "utf-8")
    table = _table(report)
    (args.out / "latest.md").write_text(table, "utf-8")
    args.markdown.write_text(table, "utf-8")
    print(table)
    return 0


def _num(x: Any) -> str:
    return f"{x:,}" if isinstance(x, int) else "?"


def _cell(r: dict[str, Any]) -> str:
    if not r.get("finished"):
        return f"did not finish ({r.get('reason', '')})"
    times = r.get("times", {})
    v = "; ".join(f"{k}: {x}" + (f" in {times[k]:.3f} s" if k in times else "")
                  for k, x in r.get("verdicts", {}).items())
    return f"{r['peak_mb']} MB — {v}"


def _table_head(intro: str, header: str) -> list[str]:
    """The start of a table in `_table`: a blank line, `intro`, a blank line, the `header`
    row and the rule under it (a `---` cell for each of its columns)."""
    return ["", intro, "", header, "|" + "---|" * (header.count("|") - 1)]


def _table(rep: dict[str, Any]) -> str:
    floor = rep["floor_s"]

    def x(seconds: float) -> str:
        return f"{seconds:.2f} s = {seconds / floor:.1f}× the floor"

    lines = [f"# ruleproof benchmarks (commit {rep['commit']}, {rep['cores']} cores)", "",
             f"- import floor `python -c \"import z3, networkx\"`: {floor:.3f} s",
             f"- `ruleproof --version`: {x(rep['startup_s']['--version'])}; "
             f"`ruleproof schema`: {x(rep['startup_s']['schema'])}"]
    fresh = rep.get("fresh")
    if fresh:
        lines += _table_head("Fresh check (`ruleproof check --no-cache`), wall time as a ratio "
                             "of the floor, peak memory of the largest process:",
                             "| seed | jobs | wall | × floor | CPU (all processes) | peak MB | "
                             "exit | verdicts (method) |")
        for name, m in fresh.items():
            j = "2" if "jobs 2" in name else "1"
            v = ", ".join(f"{k}: {n}" for k, n in m.get("verdicts", {}).items())
            lines.append(f"| {name.replace(' --jobs 2', '')} | {j} | {m['seconds']:.1f} s | "
                         f"{m['seconds'] / floor:.0f}× | {m.get('cpu_s', 0):.1f} s | "
                         f"{m['peak_mb']} | {m['exit']} | {v} |")
    s = rep.get("seeds")
    if s:
        cached = statistics.median(c["seconds"] for c in s["cached"])
        lines += [
            "",
            f"- unchanged re-run (cache), median of 3: {x(cached)} (target ≤ 1.5×)",
            f"- re-run after a one-rule erratum in {EDIT_FILE}: {x(s['after_edit']['seconds'])}"
            f" ({s['after_edit']['seconds'] / s['fresh']['seconds']:.0%} of the fresh check)"]
    spin_rows = rep.get("spin")
    if spin_rows:
        lines += _table_head("SPIN 6.5 on `ruleproof export --promela` (`spin -a`, "
                             "`gcc -O2 -DSAFETY`, `./pan -m10000000 -c0 -n`):",
                             "| seed | export + spin -a + gcc | pan | states stored | peak MB | "
                             "finished |")
        for name, r in spin_rows.items():
            if "pan_s" not in r:
                lines.append(f"| {name} | — | — | — | — | {r.get('reason', 'no')} |")
                continue
            lines.append(f"| {name} | {r['export_s'] + r['compile_s']:.1f} s | "
                         f"{r['pan_s']:.2f} s | {_num(r.get('states'))} | "
                         f"{r.get('peak_mb', '?')} | "
                         f"{'yes' if r['finished'] else r.get('reason', 'no')} |")
    queries = rep.get("queries")
    if queries:
        lines += _table_head("The decision-diagram core (`benchmarks/reach.py`, first "
                             "resolution, node budget 500,000):",
                             "| seed | reach | layers | micro states | situations | set nodes | "
                             "queries | median query | max query | peak MB |")
        for q in queries:
            lines.append(f"| {q['seed']} | {q['reach_s']:.2f} s | {q['layers']} | "
                         f"{q['reachable']:,} | {q['stable']:,} | {q['set_nodes']:,} | "
                         f"{q['queries']} | {q['query_median_s']} s | {q['query_max_s']} s | "
                         f"{q['peak_rss_mb']} |")
    if rep.get("sizes"):
        lines += _table_head("Synthetic rulesets (`benchmarks/generate.py`); the ratio "
                             "compares the times of `hard-sync`, the one property all decide "
                             "(the core's time includes its fixpoint):",
                             "| N | decision diagrams | symbolic engines | explicit BFS | "
                             "plain Spacer | explicit / symbolic | symbolic / core |")
    for row in rep.get("sizes", []):
        sym, e, core = row["symbolic"], row["explicit"], row.get("core", {})
        if sym.get("finished") and e.get("finished") and sym["seconds"] > 0:
            ratio = f"{e['seconds'] / sym['seconds']:.2g}×"
        elif sym.get("finished") and sym["seconds"] > 0:     # explicit search was stopped
            ratio = f"> {e['seconds'] / sym['seconds']:.2g}× (explicit did not finish)"
        else:
            ratio = "—"
        vs_core = f"{sym['seconds'] / core['seconds']:.2g}×" if sym.get("finished") and \
            core.get("finished") and core["seconds"] > 0 else "—"
        lines.append(f"| {row['n']} | {_cell(core)} | {_cell(sym)} | {_cell(e)} | "
                     f"{_cell(row['spacer'])} | {ratio} | {vs_core} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
