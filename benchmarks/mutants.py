"""Mutation benchmark for `ruleproof diff` (issue #20): plant each erratum of
benchmarks/mutants.yaml in a copy of its seed spec, run `ruleproof diff BASE MUTANT`, and
count how many are caught with exit 1. Each mutant's `expect` line was written from the
text and the edit before running; the table prints it beside the diff's first lines so a
reviewer can compare them.

    python3 benchmarks/mutants.py            # every mutant (Bushido's take minutes each)
    python3 benchmarks/mutants.py --quick    # Noctvale and Eldfall only
    python3 benchmarks/mutants.py ID ...     # the named mutants
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("ids", nargs="*")
    ap.add_argument("--quick", action="store_true", help="skip the Bushido mutants")
    args = ap.parse_args()
    mutants = yaml.safe_load((ROOT / "benchmarks" / "mutants.yaml").read_text())["mutants"]
    if args.ids:
        mutants = [m for m in mutants if m["id"] in args.ids]
    if args.quick:
        mutants = [m for m in mutants if m["spec"] != "bushido"]
    caught = 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="ruleproof-mutants-") as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "seeds", work / "seeds")
        (work / "spec").mkdir()
        (work / "mut").mkdir()
        for m in mutants:
            base = (ROOT / "spec" / f"{m['spec']}.yaml").read_text(encoding="utf-8")
            if base.count(m["replace"]) != 1:
                print(f"{m['id']}: the text to replace occurs {base.count(m['replace'])} times "
                      f"in spec/{m['spec']}.yaml — update benchmarks/mutants.yaml",
                      file=sys.stderr)
                return 2
            (work / "spec" / f"{m['spec']}.yaml").write_text(base, encoding="utf-8")
            mutant = work / "mut" / f"{m['id']}.yaml"
            mutant.write_text(base.replace(m["replace"], m["with"]).replace(
                "source: ../seeds/", "source: ../seeds/"), encoding="utf-8")
            out = work / f"{m['id']}.json"
            t = time.monotonic()
            proc = subprocess.run(
                [sys.executable, "-m", "checker", "diff", str(work / "spec" / f"{m['spec']}.yaml"),
                 str(mutant), "--json", str(out), "--html", str(work / "html")],
                capture_output=True, text=True, cwd=ROOT, check=False)
            seconds = time.monotonic() - t
            first = ""
            if out.exists():
                data = json.loads(out.read_text(encoding="utf-8"))
                changes = [c["words"] for b in data.get("behaviour", []) for c in b["changes"]]
                first = changes[0] if changes else "(no behaviour change)"
            equivalent = "equivalent" in m
            caught += proc.returncode == 1 and not equivalent
            expect = m["expect"] + (f" (equivalent: {m['equivalent']})" if equivalent else "")
            rows.append((m["id"], m["spec"], proc.returncode, seconds, expect, first))
            print(f"{m['id']:32} exit {proc.returncode}  {seconds:6.1f} s", flush=True)
    print()
    print("| mutant | spec | exit | seconds | expected (written before) | diff's first change |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.1f} | {r[4]} | {r[5]} |")
    real = sum(1 for m in mutants if "equivalent" not in m)
    print(f"\ncaught with exit 1: {caught} of {real} non-equivalent mutants "
          f"({len(rows) - real} equivalent, argued in benchmarks/mutants.yaml)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
