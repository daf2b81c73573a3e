"""`ruleproof check --watch`: check, then re-check on every save of a spec or rulebook file,
printing only what changed since the previous check (verdicts, findings, new errors). The
reports are rewritten each time; the result cache makes an unchanged ruleset instant and an
edited one re-prove only what its edit can affect."""

from __future__ import annotations

import argparse
import contextlib
import io
from collections.abc import Callable, Iterable
from pathlib import Path

from checker.errors import SpecError
from checker.results.run import Run

Snapshot = tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]


def snapshot(run: Run) -> Snapshot:
    """(ruleset, property) → verdict, and (ruleset, finding fingerprint) → its headline."""
    verdicts = {(c.ruleset.id, p.id): p.status.value for c in run.checked
                for p in c.result.properties}
    findings = {(c.ruleset.id, f.fingerprint(c.ruleset.id)): f"{f.kind}: {f.message}"
                for c in run.checked for f in c.result.findings if not f.resolved}
    return verdicts, findings


def changes(before: Snapshot, after: Snapshot) -> list[str]:
    """What changed between two checks, one line each: verdicts, then findings."""
    out: list[str] = []
    (v0, f0), (v1, f1) = before, after
    for key in sorted(v0.keys() | v1.keys()):
        if v0.get(key) != v1.get(key):
            was, now = v0.get(key, "absent"), v1.get(key, "absent")
            out.append(f"  {key[0]}: '{key[1]}' {was} → {now}")
    for key in sorted(f1.keys() - f0.keys()):
        out.append(f"  {key[0]}: new finding {f1[key]}")
    for key in sorted(f0.keys() - f1.keys()):
        out.append(f"  {key[0]}: finding gone {f0[key]}")
    return out


def watched(paths: Iterable[Path], run: Run | None) -> tuple[list[Path], set[Path]]:
    """The folders to watch, and the files in them that matter: every spec file asked for
    (or found in a folder asked for) and every rulebook text read. Folders, not files, are
    watched, so an editor that saves by replacing the file is still seen."""
    files = {p.resolve() for p in paths if not p.is_dir()}
    folders = {p.resolve() for p in paths if p.is_dir()}
    if run is not None:
        files |= {Path(c.ruleset.source_file).resolve() for c in run.checked}
        files |= {Path(c.ruleset.spec_file).resolve() for c in run.checked}
    return sorted(folders | {f.parent for f in files}), files


def watch(args: argparse.Namespace, check_and_write: Callable[[], Run]) -> int:
    """Check, then re-check on every change under `args.paths` (and the rulebook texts)
    until interrupted. Each line says what changed; a spec that does not load prints its
    errors and the previous results stand until it loads again."""
    from watchfiles import watch as file_changes

    def attempt() -> Run | None:
        quiet = io.StringIO()
        try:
            with contextlib.redirect_stdout(quiet):
                return check_and_write()
        except SpecError as exc:
            for d in exc.diagnostics:
                print(d.render(), flush=True)
            return None

    run = attempt()
    last = snapshot(run) if run is not None else ({}, {})
    n = 1
    if run is not None:
        verdicts, findings = last
        print(f"[check {n}] {len(verdicts)} verdicts, {len(findings)} open findings; "
              f"reports in {args.html}. Watching for changes (Ctrl-C stops).", flush=True)
    folders, files = watched(args.paths, run)
    asked = {p.resolve() for p in args.paths if p.is_dir()}

    def relevant(_change: object, path: str) -> bool:
        p = Path(path)
        return p in files or (p.suffix in (".yaml", ".yml") and
                              any(a in p.parents for a in asked))

    for _ in file_changes(*folders, watch_filter=relevant, debounce=200,
                          raise_interrupt=True):
        n += 1
        again = attempt()
        if again is None:
            print(f"[check {n}] the spec does not load; the results above still stand",
                  flush=True)
            continue
        now = snapshot(again)
        lines = changes(last, now) or ["  nothing changed"]
        print(f"[check {n}] since the last check:", *lines, sep="\n", flush=True)
        last, run = now, again
    return 0
