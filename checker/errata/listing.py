"""The reviewed lists of the errata workflow (a baseline, an accept file): a JSON object with
a `format_version` and one list of entries, read with the diagnostics of a missing file
(RP101) or one that is not such a list (RP201)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from checker.diagnostics import Diagnostic, Location
from checker.errors import SpecError

T = TypeVar("T")


def read_listing(path: Path, key: str, version: int, entries: Callable[[list[Any]], T], *,
                 missing: str, kind: str) -> T:
    """The list under `key` of the file at `path` (of format `version`), turned into the
    caller's value by `entries`; a missing file is RP101 with the message `missing`, any
    other failure (including one in `entries`) RP201 "… is not `kind`"."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        items = data[key]
        if data.get("format_version") != version or not isinstance(items, list):
            raise ValueError("unsupported format_version")
        return entries(items)
    except FileNotFoundError:
        raise SpecError([Diagnostic("RP101", missing, Location(str(path), 1, 1))]) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SpecError([Diagnostic("RP201", f"{str(path)!r} is not {kind}: {exc}",
                                    Location(str(path), 1, 1))]) from None
