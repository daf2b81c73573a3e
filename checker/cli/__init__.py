"""The `ruleproof` command line: argument parsing, the output funnel and exit codes.

Exit codes: 0 every property proved and no unresolved finding · 1 a violation or an
unresolved finding · 2 bad input or usage (`SpecError`), or an output that cannot be
written (`OutputError`) · 3 only UNKNOWN results stand in the way (unless --allow-unknown)
· 130 interrupted · 255 an internal error or any other exception (a bug in ruleproof:
with traceback), so that a crash never looks like a finding (1) to CI.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from checker import __version__
from checker.cli import text_commands
from checker.cli.exits import EXIT_FAIL, EXIT_INTERNAL, EXIT_OK, EXIT_UNKNOWN, EXIT_USAGE
from checker.errors import OutputError, SpecError
from checker.options import Options

if TYPE_CHECKING:
    from checker.errata.baseline import Entry

TIMEOUT_S = Options.timeout_ms / 1000     # per-engine, per-property wall-clock safety net



class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"ruleproof: error[usage]: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="ruleproof", description="Model-check the rules of tabletop games: "
                "prove what a ruleset promises, find contradictory interactions.")
    p.add_argument("--version", action="version", version=f"ruleproof {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    c = sub.add_parser("check", help="check rulesets and write reports")
    c.add_argument("paths", nargs="*", type=Path, default=[Path("spec")],
                   help="spec files or folders (default: spec/)")
    c.add_argument("--html", type=Path, default=Path("reports"), metavar="DIR",
                   help="HTML report folder (default: reports/)")
    c.add_argument("--json", type=Path, metavar="FILE", help="write the JSON report")
    c.add_argument("--sarif", type=Path, metavar="FILE", help="write SARIF 2.1.0")
    c.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    c.add_argument("--timeout", type=float, default=TIMEOUT_S, metavar="SECONDS",
                   help="wall-clock safety net per property and engine, not a budget: past "
                   "it the engine's answer is UNKNOWN (timeout) (default %(default)g)")
    c.add_argument("--rlimit", type=int, default=Options.rlimit, metavar="UNITS",
                   help="Z3 resource units per query: the counted budget of the Z3 engines, "
                   "the same on every machine (0 = none; default %(default)s)")
    c.add_argument("--cert-rlimit", type=int, default=Options.cert_rlimit, metavar="UNITS",
                   help="Z3 resource units per query of a decision-diagram proof's "
                   "certificate (default %(default)s)")
    c.add_argument("--max-depth", type=int, default=Options.max_depth,
                   help="bounded search depth, in steps (default %(default)s)")
    c.add_argument("--search-states", type=int, default=Options.search_states, metavar="N",
                   help="the shared explicit search (for a ruleset the decision diagrams "
                   "cannot take) stops after N situations (default %(default)s)")
    c.add_argument("--node-budget", type=int, default=Options.node_budget, metavar="N",
                   help="decision-diagram nodes the exact reachability core may use before a "
                   "ruleset falls back to the Z3 engines (a count, not a time; 0: never use "
                   "it); default %(default)s")
    c.add_argument("--explicit-limit", type=int, default=Options.explicit_limit, metavar="N",
                   help="explicit search gives up after N states (default %(default)d)")
    c.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="worker processes (default: the number of cores; 1 = no pool)")
    c.add_argument("--shard", type=_shard, default=(1, 1), metavar="K/N",
                   help="check only the K-th of N shares of the work (for a CI matrix; "
                        "the split is the same on every machine)")
    c.add_argument("--no-cache", action="store_true", help="re-check everything")
    c.add_argument("--timings", action="store_true", help="show timings in the reports")
    c.add_argument("--no-widen", action="store_true",
                   help="skip the scope re-check (every proved property decided again with "
                   "the ranges widened; docs/semantics.md) for a quick edit-check loop")
    c.add_argument("--allow-unknown", action="store_true",
                   help="do not fail when a result is UNKNOWN")
    c.add_argument("--strict", action="store_true",
                   help="also fail on warnings (dead rules, unreachable States, ...)")
    c.add_argument("--no-color", action="store_true", help="plain terminal output")
    c.add_argument("--verbose", "-v", action="store_true",
                   help="list every finding under its root cause, with quotes and traces")
    c.add_argument("--watch", action="store_true",
                   help="re-check on every save of a spec or rulebook file, printing only "
                   "what changed (Ctrl-C stops)")
    c.add_argument("--baseline", type=Path, metavar="FILE",
                   help="accepted findings: fail only on findings not listed in FILE")
    b = sub.add_parser("baseline", help="write the current findings as the accepted baseline")
    b.add_argument("paths", nargs="*", type=Path, default=[Path("spec")])
    b.add_argument("--output", type=Path, default=Path("spec/ruleproof-baseline.json"),
                   metavar="FILE", help="(default: spec/ruleproof-baseline.json)")
    b.add_argument("--timeout", type=float, default=TIMEOUT_S, metavar="SECONDS")
    df = sub.add_parser("diff", help="what a change to a ruleset does (semantic diff)")
    df.add_argument("old", type=Path, nargs="?", help="old spec file or folder")
    df.add_argument("new", type=Path, help="new spec file or folder")
    df.add_argument("--rev", metavar="REV", help="compare NEW against itself at git revision "
                    "REV (then OLD is not given)")
    df.add_argument("--json", type=Path, metavar="FILE", help="write the diff as JSON")
    df.add_argument("--sarif", type=Path, metavar="FILE",
                    help="write SARIF 2.1.0: each difference at the lines of NEW it changed")
    df.add_argument("--html", type=Path, default=Path("reports"), metavar="DIR",
                    help="folder of the HTML diff page DIR/diff.html (default: reports/)")
    df.add_argument("--timeout", type=float, default=TIMEOUT_S, metavar="SECONDS")
    df.add_argument("--accept", type=Path, metavar="FILE",
                    help="reviewed behaviour changes (fingerprints): they do not fail the gate")
    df.add_argument("--write-accept", type=Path, metavar="FILE",
                    help="write every behaviour change of this diff to FILE, for review")
    df.add_argument("--node-budget", type=int, default=2 * Options().node_budget, metavar="N",
                    help="decision-diagram nodes for the behaviour comparison, both versions' "
                    "cores in one manager (a count, not a time; past it the comparison is "
                    "bounded and says so; default: twice a check's core budget)")
    d = sub.add_parser("drift", help="check a spec's quotes against a new source text")
    d.add_argument("spec", type=Path)
    d.add_argument("--source", type=Path, required=True, metavar="TEXT",
                   help="the new version of the rulebook text")
    e = sub.add_parser("export", help="export a ruleset's transition system (Promela for SPIN)")
    e.add_argument("spec", type=Path, help="one spec file")
    e.add_argument("--promela", action="store_true", required=True,
                   help="write Promela, the input of the SPIN model checker (the only format)")
    e.add_argument("--property", metavar="ID", help="assert this property only (for a "
                   "'reachable' one an assertion violation is the witness); default: every "
                   "invariant")
    e.add_argument("-o", "--output", type=Path, metavar="FILE", help="write to FILE, not stdout")
    i = sub.add_parser("init", help="draft a spec from a rules text: States proposed from its "
                       "headings, every sentence listed as informal")
    i.add_argument("text", type=Path, metavar="TEXT", help="the rulebook text (UTF-8)")
    i.add_argument("--id", metavar="ID", help="the ruleset id (default: from the file name)")
    i.add_argument("-o", "--output", type=Path, metavar="SPEC",
                   help="the spec file to write (default: spec/ID.yaml)")
    i.add_argument("--force", action="store_true", help="overwrite an existing spec file")
    q = sub.add_parser("query", help="can a model ever be in a situation where EXPR holds? "
                       "a shortest trace, or a proof that none is reachable")
    q.add_argument("spec", type=Path, help="one spec file")
    q.add_argument("expr", metavar="EXPR", help='a condition, as in a spec: "Prone and Held"')
    q.add_argument("--node-budget", type=int, default=Options.node_budget, metavar="N",
                   help="decision-diagram nodes before the Z3 engines answer instead")
    q.add_argument("--timeout", type=float, default=TIMEOUT_S, metavar="SECONDS",
                   help="per-engine limit when the Z3 engines answer")
    ex = sub.add_parser("explain", help="print a finding's card (or a property's verdict) "
                        "by its fingerprint, as the JSON and SARIF reports give it")
    ex.add_argument("fingerprint", metavar="FINGERPRINT")
    ex.add_argument("paths", nargs="*", type=Path, default=[Path("spec")])
    sub.add_parser("lsp", help="run the language server for spec files (over stdin/stdout; "
                   "see docs/editors.md)")
    sub.add_parser("schema", help="print the JSON Schema of spec files")
    x = sub.add_parser("explain-code", help="explain a diagnostic code (RP403): what it "
                       "means, an example, how to fix it")
    x.add_argument("code", metavar="CODE", help="a code such as RP403")
    from checker.cli.merge import add_parser as add_merge
    add_merge(sub)
    v = sub.add_parser("validate", help="only load and validate specs (no verification)")
    v.add_argument("paths", nargs="*", type=Path, default=[Path("spec")])
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "schema":
            from checker.spec.schema import json_schema

            print(json_schema())
            return EXIT_OK
        commands = {"explain-code": text_commands.explain_code,
                    "validate": text_commands.validate, "drift": text_commands.drift,
                    "export": text_commands.export, "query": text_commands.query,
                    "init": text_commands.init, "baseline": _baseline, "diff": _diff,
                    "lsp": _lsp, "explain": text_commands.explain, "merge": _merge}
        return commands.get(args.command, _check)(args)
    except SpecError as exc:
        for d in exc.diagnostics:
            print(d.render(), file=sys.stderr)
        n = len(exc.diagnostics)
        print(f"ruleproof: {n} error{'s' if n != 1 else ''} in the input; nothing was checked "
              "and nothing was written", file=sys.stderr)
        return EXIT_USAGE
    except OutputError as exc:
        print(f"ruleproof: error[output]: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ruleproof: interrupted; reports were not changed", file=sys.stderr)
        return 130
    except Exception:       # InternalError, or any other exception: a bug, never a finding
        traceback.print_exc()
        print("ruleproof: internal error (this is a bug in ruleproof, not in your rules); "
              "please report it with the traceback above", file=sys.stderr)
        return EXIT_INTERNAL





def _shard(text: str) -> tuple[int, int]:
    """`--shard K/N`: 1 ≤ K ≤ N."""
    k, sep, n = text.partition("/")
    if sep and k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n):
        return int(k), int(n)
    raise argparse.ArgumentTypeError(f"{text!r} is not K/N with 1 ≤ K ≤ N (e.g. 2/4)")


def _cores() -> int:
    """The cores this process may run on (the default of `--jobs`)."""
    import os
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1





def _check(args: argparse.Namespace) -> int:
    color = not args.no_color and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    key = None
    if args.watch:
        return _watch(args)
    if not args.no_cache and not args.timings:
        key = _run_key(args, color)
        from checker.plan.store import replay_run
        hit = replay_run(key)
        if hit is not None:         # nothing changed since the last identical run
            sys.stdout.write(hit[0])
            sys.stdout.flush()
            return hit[1]
    from checker.plan.check import check, load_all

    options = _options(args)
    rulesets = load_all(args.paths)  # all input errors surface before any work or write
    accepted = None
    if args.baseline is not None:   # a bad baseline is bad input too: before any work
        from checker.errata import baseline

        accepted = baseline.load(args.baseline)
    from checker.report import render_all
    from checker.report.terminal import PlainProgress, TerminalProgress

    live = TerminalProgress(enabled=True) if color else PlainProgress()
    with live:
        run = check(args.paths, options, progress=live.update, rulesets=rulesets)
    from checker.report.render import Outputs

    outputs = Outputs(html=args.html, json=args.json, sarif=args.sarif, junit=args.junit,
                      accepted=frozenset(e.fingerprint for e in accepted or ()),
                      verbose=args.verbose)
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        render_all(run, options, outputs, color=color)
        if options.shard[1] > 1:
            from checker.plan.shards import shard_share
            props, all_props, scans, all_scans = shard_share(rulesets, options)
            print(f"shard {options.shard[0]}/{options.shard[1]}: this run checked {props} "
                  f"of {all_props} properties and {scans} of {all_scans} conflict/order "
                  "scans; the other shards check the rest")
        if accepted is not None:
            code = _gate_with_baseline(run, accepted, args)
        else:
            code = _exit_code(run, allow_unknown=args.allow_unknown, strict=args.strict)
    if key is not None:
        from checker.plan.store import record_run
        read = [Path(r.spec_file) for r in rulesets] + [Path(r.source_file) for r in rulesets]
        wrote = [f for f in args.html.rglob("*") if f.is_file()] + \
            [f for f in (args.json, args.sarif, args.junit) if f is not None]
        record_run(key, read + ([args.baseline] if args.baseline else []), wrote,
                   "".join(tee.parts), code)
    return code


def _merge(args: argparse.Namespace) -> int:
    from checker.cli.merge import merge
    return merge(args, _exit_code)


def _lsp(args: argparse.Namespace) -> int:
    from checker.cli.lsp import serve
    return serve(args)


def _options(args: argparse.Namespace) -> Options:
    return Options(timeout_ms=int(args.timeout * 1000), rlimit=max(0, args.rlimit),
                   cert_rlimit=max(0, args.cert_rlimit),
                   search_states=max(1, args.search_states),
                   max_depth=args.max_depth, explicit_limit=max(1, args.explicit_limit),
                   node_budget=max(0, args.node_budget),
                   jobs=max(1, args.jobs if args.jobs is not None else _cores()),
                   use_cache=not args.no_cache, timings=args.timings, shard=args.shard,
                   widen=not args.no_widen)


def _watch(args: argparse.Namespace) -> int:
    from checker.cli.watch import watch
    from checker.plan.check import check, load_all
    from checker.report import render_all
    from checker.report.render import Outputs
    from checker.results.run import Run

    options = _options(args)
    outputs = Outputs(html=args.html, json=args.json, sarif=args.sarif, junit=args.junit,
                      accepted=frozenset())

    def check_and_write() -> Run:
        run = check(args.paths, options, rulesets=load_all(args.paths))
        render_all(run, options, outputs, color=False)
        return run

    return watch(args, check_and_write)


def _run_key(args: argparse.Namespace, color: bool) -> str:
    """The whole-run cache key (`checker.plan.store.run_key`) of this `check` invocation."""
    import shutil

    from checker.plan.store import run_key
    from checker.spec.discover import discover

    width = shutil.get_terminal_size().columns if color else 0
    invocation = repr(sorted((k, str(v)) for k, v in vars(args).items()))
    return run_key(f"{invocation} cwd={Path.cwd()} color={color} width={width}",
                   discover(args.paths))


class _Tee(io.TextIOBase):
    """Standard output that also keeps what was written (the text an identical re-run
    shows again, `checker.plan.store.replay_run`)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", "utf-8")


def _gate_with_baseline(run: object, accepted: list[Entry], args: argparse.Namespace) -> int:
    from checker.diagnostics import CODES, Severity
    from checker.errata import baseline
    from checker.results import Status
    from checker.results.run import Run

    assert isinstance(run, Run)
    comparison = baseline.compare(run, accepted)
    for rid, f in comparison.new:
        print(f"new finding not in the baseline: {rid}: {f.kind}: {', '.join(f.rules)} — "
              f"{f.message}")
    rulesets = {c.ruleset.id: c.ruleset for c in run.checked}
    for rid, p in comparison.new_violations:
        print(f"new violation not in the baseline: {rid}: {p.kind} {p.id!r} — "
              f"{baseline.claim(rulesets[rid], p)}")
    sharded = args.shard[1] > 1      # an entry may belong to another shard's share
    for e in () if sharded else comparison.gone:
        print(f"baseline entry no longer occurs (remove it): {e.ruleset}: {e.summary}")
    new = len(comparison.new) + len(comparison.new_violations)
    gone = "entries that no longer occur are listed by an unsharded run" if sharded else \
        f"{len(comparison.gone)} no longer occurring"
    print(f"baseline: {comparison.accepted} accepted, {new} new, {gone}")
    failing_new = [f for _, f in comparison.new
                   if CODES[f.code].severity is Severity.ERROR or args.strict]
    if failing_new or comparison.new_violations:
        return EXIT_FAIL
    unknown = any(p.status is Status.UNKNOWN for c in run.checked for p in c.result.properties)
    return EXIT_UNKNOWN if unknown and not args.allow_unknown else EXIT_OK


def _baseline(args: argparse.Namespace) -> int:
    from checker.errata import baseline
    from checker.plan.check import check
    from checker.report.write import write_text_atomic

    run = check(args.paths, Options(timeout_ms=int(args.timeout * 1000), jobs=_cores()))
    items = baseline.entries(run)
    write_text_atomic(args.output, baseline.dumps(items))
    print(f"wrote {len(items)} accepted finding(s) to {args.output}")
    return EXIT_OK


def _diff(args: argparse.Namespace) -> int:
    import subprocess
    import tempfile

    from checker.errata import accept
    from checker.errata.diff import diff_runs
    from checker.plan.check import check

    accepted = accept.load(args.accept) if args.accept is not None else frozenset()
    options = Options(timeout_ms=int(args.timeout * 1000), jobs=_cores())
    if args.rev:
        if args.old is not None:
            print("ruleproof: error[usage]: give either OLD NEW or --rev REV NEW",
                  file=sys.stderr)
            return EXIT_USAGE
        with tempfile.TemporaryDirectory(prefix="ruleproof-rev-") as tmp:
            top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                                 text=True, check=False)
            if top.returncode != 0:
                print("ruleproof: error[usage]: --rev needs a git repository",
                      file=sys.stderr)
                return EXIT_USAGE
            root = Path(top.stdout.strip())
            archive = subprocess.run(["git", "-C", str(root), "archive", args.rev],
                                     capture_output=True, check=False)
            if archive.returncode != 0:
                print(f"ruleproof: error[usage]: unknown revision {args.rev!r}",
                      file=sys.stderr)
                return EXIT_USAGE
            subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
            rel = args.new.resolve().relative_to(root.resolve())
            old_run = check([Path(tmp) / rel], options)
            old_label = f"{rel} at {args.rev}"
    else:
        if args.old is None:
            print("ruleproof: error[usage]: give OLD and NEW, or --rev REV NEW", file=sys.stderr)
            return EXIT_USAGE
        old_run = check([args.old], options)
        old_label = str(args.old)
    new_run = check([args.new], options)
    result = diff_runs(old_run, new_run, node_budget=args.node_budget, accepted=accepted)
    from checker.report.diff import behaviour_words, diff_page, render_diff
    from checker.report.write import write_text_atomic

    produced = result.behaviour_changes()
    if args.accept is not None:
        accept.unknown(args.accept, accepted, {fp for _, _, fp in produced})
    if args.write_accept is not None:
        kinds = {rid: dict(b.kinds) for rid, b in result.behaviour}
        write_text_atomic(args.write_accept, accept.dumps(
            [(fp, rid, behaviour_words(c, kinds[rid])) for rid, c, fp in produced]))

    page = diff_page(result, old_run, new_run, options, old_label=old_label,
                     new_label=str(args.new))
    render_diff(result, json_path=args.json, html_path=args.html / "diff.html", page=page)
    if args.sarif is not None:
        from checker.report.diff_sarif import diff_sarif
        write_text_atomic(args.sarif, diff_sarif(result, old_run, new_run))
    return EXIT_FAIL if result.introduces_problems else EXIT_OK


def _exit_code(run: object, *, allow_unknown: bool, strict: bool) -> int:
    from checker.diagnostics import CODES, Severity
    from checker.results import Status, gate_violations
    from checker.results.run import Run

    assert isinstance(run, Run)
    failed = unknown = False
    for c in run.checked:
        unknown = unknown or any(p.status is Status.UNKNOWN for p in c.result.properties)
        failed = failed or bool(gate_violations(c.result.properties))
        for f in c.result.findings:
            if f.resolved:
                continue
            if CODES[f.code].severity is Severity.ERROR or strict:
                failed = True
    if failed:
        return EXIT_FAIL
    if unknown and not allow_unknown:
        return EXIT_UNKNOWN
    return EXIT_OK
