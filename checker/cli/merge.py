"""`ruleproof merge SHARD.json ...`: the JSON reports of `check --shard K/N` runs joined into
the reports and exit code an unsharded check gives (`checker.plan.merge`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from checker.cli.exits import EXIT_USAGE
from checker.options import Options
from checker.results.run import Run


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    m = sub.add_parser("merge", help="join the JSON reports of `check --shard K/N` runs into "
                       "the reports and exit code of one unsharded check")
    m.add_argument("shards", nargs="+", type=Path, metavar="SHARD.json")
    m.add_argument("--html", type=Path, default=Path("reports"), metavar="DIR",
                   help="HTML report folder (default: reports/)")
    m.add_argument("--json", type=Path, metavar="FILE", help="write the joined JSON report")
    m.add_argument("--sarif", type=Path, metavar="FILE", help="write SARIF 2.1.0")
    m.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    m.add_argument("--allow-unknown", action="store_true",
                   help="do not fail when a result is UNKNOWN")
    m.add_argument("--strict", action="store_true", help="also fail on warnings")
    m.add_argument("--no-color", action="store_true", help="plain terminal output")
    m.add_argument("--verbose", "-v", action="store_true", help="list every finding")


def merge(args: argparse.Namespace, exit_code: Callable[..., int]) -> int:
    from checker.plan.merge import MergeError, merge_shards
    from checker.report import render_all
    from checker.report.render import Outputs

    docs = []
    for path in args.shards:
        try:
            docs.append((str(path), json.loads(path.read_text(encoding="utf-8"))))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            print(f"ruleproof: error[merge]: cannot read {path}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    try:
        run: Run = merge_shards(docs)
    except MergeError as exc:
        print(f"ruleproof: error[merge]: {exc}; nothing was written", file=sys.stderr)
        return EXIT_USAGE
    color = not args.no_color and sys.stdout.isatty()
    render_all(run, Options(), Outputs(html=args.html, json=args.json, sarif=args.sarif,
                                       junit=args.junit, verbose=args.verbose), color=color)
    return exit_code(run, allow_unknown=args.allow_unknown, strict=args.strict)
