"""`check(paths, options)`: every stage composed, from spec files to results (the entry
point of the plan). Never prints; progress is reported through an optional callback."""

from __future__ import annotations

from pathlib import Path

from checker.diagnostics import Diagnostic, Location
from checker.errors import SpecError
from checker.ir import Ruleset
from checker.options import Options
from checker.plan.tasks import check_ruleset
from checker.results.run import Progress, Run
from checker.spec.discover import discover
from checker.spec.load import load_ruleset


def load_all(paths: list[Path]) -> list[Ruleset]:
    """Load every spec; collect the diagnostics of all files before failing."""
    rulesets: list[Ruleset] = []
    diags: list[Diagnostic] = []
    for path in discover(paths):
        try:
            rulesets.append(load_ruleset(path, _display(path)))
        except SpecError as exc:
            diags.extend(exc.diagnostics)
    seen: dict[str, str] = {}
    for r in rulesets:
        if r.id in seen:
            diags.append(Diagnostic("RP204", f"ruleset id {r.id!r} is also used by "
                                    f"{seen[r.id]}", Location(r.spec_file, 1, 1)))
        seen[r.id] = r.spec_file
    if diags:
        raise SpecError(diags)
    return rulesets


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def check(paths: list[Path], options: Options, progress: Progress | None = None, *,
          rulesets: list[Ruleset] | None = None) -> Run:
    """Load (unless `rulesets` are given, already loaded from `paths`) and check."""
    loaded = load_all(paths) if rulesets is None else rulesets
    if options.jobs > 1:
        from checker.plan.executors import check_parallel
        return Run(check_parallel(loaded, options, progress))
    return Run([check_ruleset(r, options, progress) for r in loaded])
