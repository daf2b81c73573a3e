"""Stage `load`: a spec file's bytes → `SpecTree` (plain data plus a source map).

The YAML is composed into nodes by PyYAML's safe loader, never constructed into arbitrary
objects. Aliases are refused (they are how "billion laughs" documents expand), as are
documents nested deeper than `MAX_DEPTH` or with more than `MAX_NODES` nodes, and files
larger than `MAX_BYTES` or not UTF-8. The source map records where every value starts, keyed
by its path in the tree (`("rules", 3, "cite")`), so later stages can locate anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from checker.diagnostics import Diagnostic, Location
from checker.errors import SpecError
from checker.ir import PathKey

MAX_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 40
MAX_NODES = 20_000



@dataclass(frozen=True)
class SourceMap:
    file: str
    locations: dict[PathKey, Location]

    def at(self, path: PathKey) -> Location:
        """The location of `path`, or of its nearest located ancestor."""
        p = tuple(path)
        while p:
            if p in self.locations:
                return self.locations[p]
            p = p[:-1]
        return self.locations.get((), Location(self.file, 1, 1))


@dataclass(frozen=True)
class SpecTree:
    path: Path
    display: str
    data: Any
    source_map: SourceMap
    text: str


class _TooComplex(Exception):
    def __init__(self, message: str, mark: Any) -> None:
        super().__init__(message)
        self.mark = mark


class _GuardedLoader(yaml.SafeLoader):
    """A safe loader that refuses aliases and counts depth and nodes while composing."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise _TooComplex("YAML aliases (*name) are not allowed in spec files",
                              event.start_mark)
        self._depth += 1
        self._nodes += 1
        if self._depth > MAX_DEPTH:
            raise _TooComplex(f"nesting deeper than {MAX_DEPTH} levels",
                              self.peek_event().start_mark)  # type: ignore[no-untyped-call]
        if self._nodes > MAX_NODES:
            raise _TooComplex(f"more than {MAX_NODES} YAML nodes",
                              self.peek_event().start_mark)  # type: ignore[no-untyped-call]
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _loc(display: str, mark: Any) -> Location:
    return Location(display, mark.line + 1, mark.column + 1)


def read_text_file(path: Path, display: str, *, code_missing: str = "RP101",
                   max_bytes: int = MAX_BYTES) -> str:
    """Read a UTF-8 text file with the size and encoding checks every input gets."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SpecError([Diagnostic(code_missing, f"cannot read {display!r}: "
                                    f"{exc.strerror or exc}", Location(display, 1, 1))]) from None
    if size > max_bytes:
        raise SpecError([Diagnostic("RP102", f"{display!r} is {size:,} bytes; the limit is "
                                    f"{max_bytes:,}", Location(display, 1, 1))])
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SpecError([Diagnostic(code_missing, f"cannot read {display!r}: "
                                    f"{exc.strerror or exc}", Location(display, 1, 1))]) from None
    if b"\x00" in raw:
        raise SpecError([Diagnostic("RP103", f"{display!r} is a binary file, not text",
                                    Location(display, 1, 1))])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SpecError([Diagnostic("RP103", f"{display!r} is not UTF-8 text (byte "
                                    f"{raw[exc.start]:#04x})",
                                    Location(display, line, 1))]) from None


def load_spec(path: Path, display: str | None = None) -> SpecTree:
    """Parse the spec file at `path` into a `SpecTree`; raise `SpecError` on bad input."""
    shown = display or str(path)
    text = read_text_file(path, shown)
    try:
        loader = _GuardedLoader(text)
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise SpecError([Diagnostic("RP103", f"{shown!r} contains the control character "
                                    f"{exc.character!r}, which YAML does not allow",
                                    Location(shown, line, 1))]) from None
    try:
        node = loader.get_single_node()
    except _TooComplex as exc:
        raise SpecError([Diagnostic("RP105", str(exc), _loc(shown, exc.mark))]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = _loc(shown, mark) if mark else Location(shown, 1, 1)
        problem = exc.problem or exc.context or "invalid YAML"
        raise SpecError([Diagnostic("RP104", f"YAML syntax: {problem}", where)]) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise SpecError([Diagnostic("RP103", f"{shown!r} contains the control character "
                                    f"{exc.character!r}, which YAML does not allow",
                                    Location(shown, line, 1))]) from None
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "invalid YAML"
        raise SpecError([Diagnostic("RP104", f"YAML syntax: {first}",
                                    Location(shown, 1, 1))]) from None
    finally:
        loader.dispose()
    locations: dict[PathKey, Location] = {}
    data = _to_data(node, (), shown, locations, loader) if node is not None else None
    return SpecTree(path, shown, data, SourceMap(shown, locations), text)


def _to_data(node: Any, path: PathKey, shown: str, locations: dict[PathKey, Location],
             loader: yaml.SafeLoader) -> Any:
    locations[path] = _loc(shown, node.start_mark)
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise SpecError([Diagnostic("RP201", "a mapping key must be a plain name",
                                            _loc(shown, key_node.start_mark))])
            key = str(key_node.value)
            if key in out:
                raise SpecError([Diagnostic("RP204", f"key {key!r} appears twice in this "
                                            "mapping", _loc(shown, key_node.start_mark))])
            child = (*path, key)
            out[key] = _to_data(value_node, child, shown, locations, loader)
            locations[(*child, "<key>")] = _loc(shown, key_node.start_mark)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_to_data(item, (*path, i), shown, locations, loader)
                for i, item in enumerate(node.value)]
    try:
        value = loader.construct_object(node, deep=True)
    except yaml.MarkedYAMLError as exc:
        problem = exc.problem or exc.context or "invalid value"
        raise SpecError([Diagnostic("RP104", f"YAML value: {problem}",
                                    _loc(shown, node.start_mark))]) from None
    except yaml.YAMLError as exc:
        first = (str(exc).strip().splitlines() or ["invalid value"])[0]
        raise SpecError([Diagnostic("RP104", f"YAML value: {first}",
                                    _loc(shown, node.start_mark))]) from None
    if not isinstance(value, str | int | float | bool) and value is not None:
        # timestamps, binary and sets are not part of the spec language
        return str(node.value)
    return value
