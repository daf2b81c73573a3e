"""The commands that work on one spec or text without a full report: `validate`, `query`,
`explain`, `init`, `drift`, `export`, `explain-code` (`checker.cli.main` dispatches to
them)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from checker.cli.exits import EXIT_FAIL, EXIT_OK, EXIT_UNKNOWN, EXIT_USAGE
from checker.errors import SpecError


def validate(args: argparse.Namespace) -> int:
    from checker.plan.check import load_all
    from checker.spec.coverage import coverage

    for r in load_all(args.paths):
        cov = coverage(r)
        print(f"{r.id}: valid · {len(r.system.rules)} rules, {len(r.system.constraints)} "
              f"constraints, {len(r.system.properties)} properties · "
              f"formalized {cov.formalized} · informal {cov.informal} · uncovered {cov.uncovered}"
              " · not verified (run 'ruleproof check')")
    return EXIT_OK


def explain_code(args: argparse.Namespace) -> int:
    from checker.diagnostics import CODES, explanation

    asked = args.code.strip()
    by_name = {c.slug: c.code for c in CODES.values()}
    code = by_name.get(asked.lower(), asked.upper())
    if code not in CODES:
        close = close_codes(code, list(CODES), by_name)
        hint = f" — did you mean {' or '.join(close)}?" if close else \
            f" (the codes are {min(CODES)} … {max(CODES)}; see docs/codes.md)"
        print(f"ruleproof: error[usage]: unknown code {asked!r}{hint}", file=sys.stderr)
        return EXIT_USAGE
    print(explanation(code), end="")
    return EXIT_OK


def close_codes(asked: str, codes: list[str], by_name: dict[str, str]) -> list[str]:
    """Registered codes one typo away from `asked` (one digit wrong, two digits swapped),
    else the codes of the closest names."""
    import difflib

    def near(code: str) -> bool:
        if len(code) != len(asked):
            return False
        diff = [i for i, (a, b) in enumerate(zip(code, asked, strict=True)) if a != b]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and code[diff[0]] == asked[diff[1]]
                                  and code[diff[1]] == asked[diff[0]])

    return [c for c in codes if near(c)] or \
        [by_name[n] for n in difflib.get_close_matches(asked.lower(), by_name, n=3)]


def export(args: argparse.Namespace) -> int:
    from checker.export.promela import to_promela
    from checker.report.write import write_atomic
    from checker.spec.load import load_ruleset

    system = load_ruleset(args.spec).system
    prop = None
    if args.property is not None:
        prop = next((p for p in system.properties if p.id == args.property), None)
        if prop is None:
            known = ", ".join(p.id for p in system.properties)
            print(f"ruleproof: error[usage]: no property {args.property!r} in {args.spec} "
                  f"(known: {known})", file=sys.stderr)
            return EXIT_USAGE
    text = to_promela(system, prop)
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_atomic(args.output, text)
        print(f"ruleproof: wrote {args.output}; check it with: spin -a {args.output} && "
              "gcc -DSAFETY -o pan pan.c && ./pan -m1000000", file=sys.stderr)
    return EXIT_OK


def init(args: argparse.Namespace) -> int:
    import os
    import re

    from checker.errors import InternalError
    from checker.report.write import write_atomic
    from checker.spec.draft import draft, propose_states, ruleset_id
    from checker.spec.load import load_ruleset
    from checker.spec.lower import MAX_SOURCE_BYTES
    from checker.spec.source import read_text_file
    from checker.text import SourceText

    ident = args.id if args.id is not None else ruleset_id(args.text)
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", ident):
        print(f"ruleproof: error[usage]: --id {ident!r} is not a ruleset id (lower case "
              "letters, digits, '-' and '_', starting with a letter)", file=sys.stderr)
        return EXIT_USAGE
    out: Path = args.output if args.output is not None else Path("spec") / f"{ident}.yaml"
    if out.exists() and not args.force:
        print(f"ruleproof: error[usage]: {out} exists; pass --force to overwrite it",
              file=sys.stderr)
        return EXIT_USAGE
    text = read_text_file(args.text, str(args.text), max_bytes=MAX_SOURCE_BYTES)
    source = SourceText(text, str(args.text))
    folder = out.resolve().parent
    ref = Path(os.path.relpath(args.text.resolve(), folder)).as_posix()
    write_atomic(out, draft(source, ident, ref))
    try:
        load_ruleset(out, str(out))
    except SpecError as exc:       # the draft is ours: a draft that does not load is a bug
        raise InternalError(f"the draft of {args.text} does not validate: "
                            f"{exc.diagnostics[0].render()}") from exc
    states = len(propose_states(source))
    sentences = sum(1 for s in source.sentences if s.kind != "heading")
    print(f"wrote {out}: {states} States proposed, {sentences} sentences listed as informal "
          f"(0 uncovered). Next: replace informal entries with rules, then "
          f"'ruleproof check {out}'")
    return EXIT_OK


def drift(args: argparse.Namespace) -> int:
    from checker.diagnostics import Diagnostic, Location
    from checker.errata.drift import drift

    result = drift(args.spec, args.source)
    for d in result.diagnostics:
        print(d.render())
    for s in result.uncovered:
        print(Diagnostic("RP602", f"no spec element cites {s.text!r}",
                         Location(str(args.source), s.line, 1)).render())
    print(f"{result.quotes} quotes checked: {len(result.diagnostics)} no longer match, "
          f"{len(result.uncovered)} sentences of the new text are not accounted for")
    return EXIT_OK if result.clean else EXIT_FAIL



def query(args: argparse.Namespace) -> int:
    from checker.options import Options
    from checker.plan.query import query as ask
    from checker.report.data import Views
    from checker.results import RulesetResult
    from checker.results.run import CheckedRuleset
    from checker.spec.coverage import coverage

    options = Options(node_budget=max(0, args.node_budget),
                      timeout_ms=max(1, int(args.timeout * 1000)), use_cache=False)
    a = ask(args.spec, args.expr, options)
    asked = f"can {args.expr!r} ever hold?"
    if a.answer == "unknown":
        print(f"{asked} unknown: {a.how}. Try a larger --timeout or --node-budget.")
        return EXIT_UNKNOWN
    if a.answer == "unreachable":
        print(f"{asked} no: {a.how}.")
        return EXIT_OK
    assert a.trace is not None
    checked = CheckedRuleset(a.ruleset, RulesetResult(a.ruleset.id), coverage(a.ruleset))
    story = Views(checked, options).trace(a.trace)
    assert story is not None
    n = len(story.steps)
    print(f"{asked} yes, after {n} step{'s' if n != 1 else ''} ({a.how}):")
    start = ", ".join(v.text for v in story.initial) or "the starting situation"
    print(f"  start: {start}")
    for st in story.steps:
        changes = ", ".join(c.text for c in st.changes) or "nothing visible changes"
        rolled = ", ".join(f"{k} {v}" for k, v in st.inputs)
        print(f"  {st.index}. {st.text}" + (f" [{rolled}]" if rolled else "") + f": {changes}")
    return EXIT_OK


def explain(args: argparse.Namespace) -> int:
    """A finding's card (or a property's verdict) by its fingerprint, from a check of the
    given specs (answered from the result cache after a `ruleproof check`)."""
    from checker.options import Options
    from checker.plan.check import check
    from checker.report.data import Views

    run = check(args.paths, Options(jobs=1))
    wanted = args.fingerprint.lower()
    for c in run.checked:
        views = Views(c, Options())
        for f in c.result.findings:
            if f.fingerprint(c.ruleset.id) == wanted:
                card = views.finding(f)
                state = "resolved" if card.resolved else card.severity
                print(f"{card.code} {card.kind} · {state} · {c.ruleset.id} · {card.location}")
                print(f"  {card.message}")
                for q in card.citations:
                    print(f"  {q.element}: \"{q.quote}\" (rulebook line {q.line})")
                for r, q in zip(card.resolved_by, card.resolved_quotes, strict=False):
                    print(f"  resolved by {r}: \"{q.quote}\" (rulebook line {q.line})")
                _story(card.trace)
                return EXIT_OK
        for p in c.result.properties:
            if p.fingerprint(c.ruleset.id) == wanted:
                print(f"property {p.id!r} · {p.status.value} · {c.ruleset.id}: {p.text}")
                if p.reason:
                    print(f"  {p.reason}")
                _story(views.trace(p.trace))
                return EXIT_OK
    print(f"ruleproof: error[usage]: no finding or property has the fingerprint "
          f"{args.fingerprint!r} in {', '.join(map(str, args.paths))} (fingerprints are in "
          "the JSON and SARIF reports)", file=sys.stderr)
    return EXIT_USAGE


def _story(trace: object) -> None:
    from checker.report.data import TraceView

    if not isinstance(trace, TraceView):
        return
    n = len(trace.steps)
    print(f"  trace, {n} step{'s' if n != 1 else ''}"
          + (" (replayed by the reference interpreter):" if trace.replayed else ":"))
    print(f"    start: {', '.join(v.text for v in trace.initial) or 'the starting situation'}")
    for st in trace.steps:
        changes = ", ".join(c.text for c in st.changes) or "nothing visible changes"
        print(f"    {st.index}. {st.text}: {changes}")
