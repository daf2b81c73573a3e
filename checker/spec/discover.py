"""Which spec files a run reads (`discover`): light, so that an unchanged re-run can be
recognized (`checker.plan.store.run_key`) before anything heavy is imported."""

from __future__ import annotations

from pathlib import Path

from checker.diagnostics import Diagnostic, Location
from checker.errors import SpecError


def discover(paths: list[Path]) -> list[Path]:
    """Spec files named by `paths` (folders are searched for *.yaml / *.yml, sorted)."""
    found: list[Path] = []
    for p in paths:
        if p.is_dir():
            found.extend(sorted(q for q in p.iterdir() if q.suffix in (".yaml", ".yml")
                                and q.is_file()))
        elif p.exists():
            found.append(p)
        else:
            raise SpecError([Diagnostic("RP101", f"no such file or folder: {str(p)!r}",
                                        Location(str(p), 1, 1))])
    if not found:
        shown = ", ".join(repr(str(p)) for p in paths)
        raise SpecError([Diagnostic("RP107", f"no spec files (*.yaml) in {shown}",
                                    Location(str(paths[0]) if paths else ".", 1, 1))])
    return found
