"""Result cache, keyed by content hashes, so an unchanged re-run does no solving.

Two levels: a whole ruleset's results keyed by everything that can change them (the spec
text, the source text, the run options and the ruleset version of ruleproof), and single
property results keyed by the property's cone of influence, so editing one rule re-checks
only the properties it can affect. Entries are JSON files under `.ruleproof-cache/`; a
corrupt or foreign entry is ignored (and overwritten), never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from checker import __version__
from checker.options import Options

CACHE_DIR = Path(".ruleproof-cache")
SCHEMA = 1


def _code_fingerprint() -> str:
    """A hash of ruleproof's own source: results cached by another build are never reused."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for f in sorted(root.rglob("*")):
        if f.suffix in (".py", ".lark") and f.is_file():
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


_CODE: list[str] = []


def digest(*parts: str) -> str:
    if not _CODE:
        _CODE.append(_code_fingerprint())
    h = hashlib.sha256()
    for p in (f"ruleproof {__version__} cache {SCHEMA} code {_CODE[0]}", *parts):
        h.update(p.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()


def options_key(options: Options) -> str:
    return f"timeout={options.timeout_ms} rlimit={options.rlimit} seed={options.seed} " \
           f"depth={options.max_depth} explicit={options.explicit_limit}/{options.explicit_seconds}"


class Cache:
    def __init__(self, root: Path = CACHE_DIR, *, enabled: bool = True) -> None:
        self.root = root
        self.enabled = enabled

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        if not self.enabled:
            return None
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        return data.get("value")

    def put(self, key: str, value: Any) -> None:
        if not self.enabled:
            return
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"key": key, "value": value}, fh, sort_keys=True)
            os.replace(tmp, path)
        except OSError:
            return  # a read-only or full disk only costs speed, never correctness
