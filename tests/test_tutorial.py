"""docs/tutorial.md cannot rot (issue #18): its files are written and its commands run in
an empty folder, in order, and each command's output and exit code must be exactly what
the page shows.

Blocks: ```` ```text file=PATH ```` / ```` ```yaml file=PATH ```` write PATH (with
`replaces=KEY`: the top-level KEY section of the file so far, to its end, is replaced by
the block); ```` ```console ```` holds `$ ruleproof ARGS` lines (optionally `# exit code N`,
else 0), each followed by its expected output."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "tutorial.md"
PROGRESS = re.compile(r"^checking .*\(\d+/\S+, \d+ s\)$|^checking… \(\d+ s\)$")
BLOCK = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```$", re.M | re.S)


def _steps() -> list[tuple[str, str, str]]:
    return [(m.group(1), m.group(2).strip(), m.group(3)) for m in BLOCK.finditer(
        PAGE.read_text(encoding="utf-8"))]


def _commands(body: str) -> list[tuple[list[str], int, str]]:
    out: list[tuple[list[str], int, str]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            command, _, comment = line[2:].partition("#")
            code = re.search(r"exit code (\d+)", comment)
            words = shlex.split(command)
            assert words[0] == "ruleproof", line
            out.append((words[1:], int(code.group(1)) if code else 0, ""))
        else:
            args, code, expected = out[-1]
            out[-1] = (args, code, expected + line + "\n")
    return out


def test_the_tutorial_runs_as_written(tmp_path: Path) -> None:
    steps = _steps()
    assert sum(kind == "console" for kind, _, _ in steps) >= 4
    for kind, info, body in steps:
        attrs = dict(a.split("=", 1) for a in info.split() if "=" in a)
        if "file" in attrs:
            path = tmp_path / attrs["file"]
            if "replaces" in attrs:
                before = path.read_text(encoding="utf-8")
                cut = before.index(f"\n{attrs['replaces']}:") + 1
                body = before[:cut] + body
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
        elif kind == "console":
            for args, code, expected in _commands(body):
                done = subprocess.run([sys.executable, "-m", "checker", *args], cwd=tmp_path,
                                      capture_output=True, text=True, timeout=300,
                                      check=False)
                # progress lines ("checking …", every 10 s off a terminal) depend on the clock
                err = "".join(line for line in done.stderr.splitlines(keepends=True)
                              if not PROGRESS.match(line))
                assert (done.stdout + err, done.returncode) == (expected, code), args
