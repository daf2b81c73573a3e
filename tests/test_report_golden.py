"""Golden files for every report format (tests/golden/README.md).

Regenerate after a deliberate change, then review the diff:
    RULEPROOF_UPDATE_GOLDENS=1 python -m pytest tests/test_report_golden.py
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable

import pytest
from test_report_support import ARTIFACTS, GOLDEN, ROOT, demo_run, load

from checker import __version__
from checker.options import Options
from checker.report import diagram, terminal
from checker.report.data import ReportData, build_report
from checker.report.html import HtmlReporter
from checker.report.json_report import JsonReporter
from checker.report.junit import JunitReporter
from checker.report.sarif import SarifReporter

pytestmark = pytest.mark.corpus

UPDATE = os.environ.get("RULEPROOF_UPDATE_GOLDENS") == "1"

Scrub = tuple[str, str]
HTML_SCRUBS: list[Scrub] = [
    (r"<svg.*?</svg>", "<svg><!-- scrubbed: Graphviz output --></svg>"),
    (r'<p class="note">The state diagram needs Graphviz.*?</p>',
     "<svg><!-- scrubbed: Graphviz output --></svg>"),
    (r"<style>.*?</style>", "<style>/* scrubbed */</style>"),
    (r"<script>.*?</script>", "<script>/* scrubbed */</script>"),
    (r"'sha256-[A-Za-z0-9+/=]+'", "'sha256-scrubbed'"),
]


def compare(name: str, actual: str, scrubs: list[Scrub] = ()) -> None:  # type: ignore[assignment]
    for pattern, replacement in scrubs:
        actual = re.sub(pattern, replacement, actual, flags=re.S)
    golden = GOLDEN / name
    if UPDATE:
        golden.write_text(actual, encoding="utf-8")
        return
    if not golden.exists() or golden.read_text(encoding="utf-8") != actual:
        saved = ARTIFACTS / "golden-actual" / name
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(actual, encoding="utf-8")
        pytest.fail(f"{name} differs from tests/golden/{name}; the actual output is in "
                    f"{saved.relative_to(ROOT)}. If the change is intended, regenerate with "
                    "RULEPROOF_UPDATE_GOLDENS=1 and review the diff.")


@pytest.fixture(scope="module")
def data() -> ReportData:
    return build_report(demo_run(), Options(), base=ROOT)


def _terminal(data: ReportData) -> str:
    stream = io.StringIO()
    terminal.print_report(data, terminal.console_for(stream), ["report: reports/index.html"])
    return stream.getvalue()


WRITERS: dict[str, Callable[[ReportData], str]] = {
    "demo.json": lambda d: JsonReporter().render(d),
    "demo.sarif": lambda d: SarifReporter().render(d).replace(
        f'"version": "{__version__}"', '"version": "<ruleproof version>"'),
    "demo.junit.xml": lambda d: JunitReporter().render(d),
    "demo.terminal.txt": _terminal,
}


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_golden(name: str, data: ReportData) -> None:
    compare(name, WRITERS[name](data))


@pytest.mark.parametrize("page", ["index.html", "demo.html"])
def test_golden_html(page: str, data: ReportData) -> None:
    pages = HtmlReporter().render(data)
    compare(f"page-{page}", pages[page], HTML_SCRUBS)


def test_golden_dot() -> None:
    d = diagram.build(load("tests/fixtures/report/demo.yaml"), frozenset({"Dead"}))
    compare("demo.dot", diagram.to_dot(d))
