"""Result cache, keyed by content hashes, so an unchanged re-run does no solving.

Two levels: a whole ruleset's results keyed by everything that can change them (the spec
text, the source text, the run options and the code of ruleproof), and single property
proofs keyed by the content of the property's cone of influence (`cone_key`), so editing
one rule re-proves only the properties whose cone contains it (`cone_proof` says which
results carry over; the conflict and order engines' reachability queries are properties
too, and are cached the same way). Entries are JSON files under `.ruleproof-cache/`; a
corrupt or foreign entry is ignored (and overwritten), never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from checker import __version__
from checker.options import Options

if TYPE_CHECKING:
    from checker.ir import Property, System
    from checker.results import PropertyResult

CACHE_DIR = Path(".ruleproof-cache")
SCHEMA = 2


def _code_fingerprint() -> str:
    """A hash of ruleproof's own source: results cached by another build are never reused."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parent.parent       # the `checker` package
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


def code_version() -> str:
    """ruleproof's version and a hash of its own source (16 hex digits): shards of one run
    carry the same one (`ruleproof merge`)."""
    return digest("code version")[:16]


def options_key(options: Options) -> str:
    return (f"timeout={options.timeout_ms} rlimit={options.rlimit} seed={options.seed} "
            f"depth={options.max_depth} explicit={options.explicit_limit}/"
            f"{options.search_states}/{options.explicit_seconds} nodes={options.node_budget} "
            f"widen={options.widen} cert={options.cert_rlimit}")


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


# ============================================================ per property: cone of influence

def canonical(system: System) -> str:
    """A deterministic text of everything in `system` (its `meta` set sorted: a frozenset's
    repr depends on the process's hash seed). Source locations are not in the IR, so moving
    or reindenting a rule does not change it."""
    import dataclasses
    return repr(dataclasses.replace(system, meta=frozenset())) + repr(sorted(system.meta))


def cone_key(system: System, prop: Property, options: Options) -> str:
    """The key of `prop`'s result: the content of its cone of influence (the slice every
    proof engine works on, `checker.graph.analyze.cone`), the property and the options."""
    from checker.graph.analyze import cone
    return digest("property", canonical(cone(system, prop)), repr(prop), options_key(options))


def cone_proof(result: PropertyResult) -> bool:
    """Is `result` a proof made on the cone (1-induction, Houdini, Spacer), and so valid for
    every system with the same cone? Those are the only results cached per property.

    Everything else depends on the whole system and is recomputed after an edit: a
    counterexample or witness (a rule outside the cone can block a path, or unblock a
    shorter one, so neither the trace nor its shortness would carry over), an exhaustive
    explicit search (its proof covers the whole system), and UNKNOWN."""
    from checker.results import Method, Status
    return (result.status in (Status.PROVED, Status.VIOLATED) and result.trace is None
            and result.method in (Method.K_INDUCTION, Method.SPACER))


def lookup(system: System, prop: Property, options: Options) -> PropertyResult | None:
    """`prop`'s cached cone proof, if it has one."""
    from checker.results.codec import property_from
    hit = Cache().get(cone_key(system, prop, options))
    if hit is None:
        return None
    try:
        result = property_from(hit)
    except (KeyError, TypeError, ValueError):
        return None      # damaged: recompute (and overwrite)
    return result if cone_proof(result) else None


def store(system: System, prop: Property, options: Options, result: PropertyResult) -> None:
    """Keep `result` under `prop`'s cone key, if it is a cone proof (`cone_proof`)."""
    if not cone_proof(result):
        return
    import dataclasses

    from checker.results.codec import property_to
    Cache().put(cone_key(system, prop, options),
                property_to(dataclasses.replace(result, seconds=0.0)))


@dataclass(frozen=True)
class ConeStore:
    """The per-property cache as the engines see it (`checker.engines.base.ProofStore`):
    cone proofs under `CACHE_DIR` (`lookup`, `store`), keyed with the run's `options`.
    Plain data, so it crosses into the worker processes (`checker.plan.executors`) as an
    argument."""

    options: Options

    def lookup(self, system: System, prop: Property) -> PropertyResult | None:
        return lookup(system, prop, self.options)

    def store(self, system: System, prop: Property, result: PropertyResult) -> None:
        store(system, prop, self.options, result)


# ============================================================ whole run: instant re-runs

def file_hash(path: Path) -> str | None:
    """sha256 of a file's bytes, None if it cannot be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def run_key(invocation: str, specs: list[Path]) -> str:
    """The key of a whole `check` run: ruleproof's code, the invocation (every option, the
    working folder, the colour and width of the terminal) and the bytes of every spec file.
    The other files the run read or wrote are recorded in the entry (`record_run`)."""
    return digest("run", invocation, *(f"{p}\0{file_hash(p)}" for p in specs))


def replay_run(key: str, root: Path = CACHE_DIR) -> tuple[str, int] | None:
    """(the terminal text, the exit code) of the run recorded under `key`, if every file
    it read (rulebook texts, baseline) and every file it wrote (the reports) is still
    byte for byte what it was; else None (the run is done again)."""
    entry = Cache(root).get(key)
    if not isinstance(entry, dict):
        return None
    try:
        files = [(Path(p), h) for p, h in entry["inputs"] + entry["outputs"]]
        text, code = str(entry["text"]), int(entry["exit"])
    except (KeyError, TypeError, ValueError):
        return None
    if not entry["outputs"] or any(file_hash(p) != h for p, h in files):
        return None
    return text, code


def record_run(key: str, inputs: list[Path], outputs: list[Path], text: str, code: int,
               root: Path = CACHE_DIR) -> None:
    """Record a finished run for `replay_run`."""
    def hashed(paths: list[Path]) -> list[list[str | None]]:
        return [[str(p), file_hash(p)] for p in sorted(set(paths))]
    Cache(root).put(key, {"inputs": hashed(inputs), "outputs": hashed(outputs),
                          "text": text, "exit": code})
