"""The HTML report: pages, links, self-containment, escaping, the diagram, determinism."""

from __future__ import annotations

import base64
import hashlib
import io
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_report_support import ROOT, demo_run, hostile_run

from checker.options import Options
from checker.report import Outputs, render_all
from checker.report.data import build_report
from checker.report.html import HtmlReporter
from checker.results.run import Run

pytestmark = pytest.mark.unit


def write(run: Run, folder: Path, options: Options | None = None, **kw: object) -> None:
    render_all(run, options or Options(), Outputs(html=folder, stream=io.StringIO(),
                                                  **kw))  # type: ignore[arg-type]


class Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.hrefs: list[str] = []
        self.srcs: list[str] = []
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(str(a["id"]))
        if tag == "a" and a.get("href"):
            self.hrefs.append(str(a["href"]))
        if a.get("src"):
            self.srcs.append(str(a["src"]))
        if tag == "script":
            self.scripts.append(a)


def parse(html: str) -> Collect:
    c = Collect()
    c.feed(html)
    return c


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("html") / "reports"
    write(demo_run(), folder)
    return folder


def test_index_and_one_page_per_ruleset(report: Path) -> None:
    assert sorted(p.name for p in report.iterdir()) == ["demo.html", "eldfall.html",
                                                          "index.html"]
    index = (report / "index.html").read_text(encoding="utf-8")
    links = parse(index).hrefs
    assert "demo.html" in links and "eldfall.html" in links
    assert "Eldfall States — report demo" in index


def test_every_link_resolves(report: Path) -> None:
    for page in report.glob("*.html"):
        c = parse(page.read_text(encoding="utf-8"))
        ids = set(c.ids)
        for href in c.hrefs:
            target, _, frag = href.partition("#")
            assert not re.match(r"^[a-z]+:", target), f"{page.name}: external link {href}"
            if target:
                assert (report / target).is_file(), f"{page.name}: broken link {href}"
            if frag and not target:
                assert frag in ids, f"{page.name}: no anchor #{frag}"


def test_self_contained_with_a_strict_content_security_policy(report: Path) -> None:
    for page in report.glob("*.html"):
        html = page.read_text(encoding="utf-8")
        c = parse(html)
        assert c.srcs == []
        assert "<link" not in html and "@import" not in html and "url(" not in html
        assert not re.search(r"(src|href)=\"(https?:)?//", html)
        csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
        assert csp and "default-src 'none'" in csp.group(1)
        code = re.search(r"<script>(.*?)</script>", html, re.S)
        assert code is not None
        digest = base64.b64encode(hashlib.sha256(code.group(1).encode()).digest()).decode()
        assert f"script-src 'sha256-{digest}'" in csp.group(1)
        assert all(s.get("type") == "application/json" for s in c.scripts if "id" in s)


def test_ruleset_page_sections(report: Path) -> None:
    html = (report / "demo.html").read_text(encoding="utf-8")
    for section in ("attention", "properties", "diagram-section", "rules", "rulebook"):
        assert f'id="{section}"' in html
    assert "Resolved by the text" in html
    assert 'class="s formalized"' in html and 'class="s uncovered"' in html
    assert 'class="s informal"' in html
    assert re.search(r'<a class="fmark" href="#f-[0-9a-f]{16}">RP401</a>', html)
    assert '<details class="trace">' in html
    assert "✗ never reachable" in html and "? unknown" in html


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_diagram_is_inline_svg(report: Path) -> None:
    html = (report / "demo.html").read_text(encoding="utf-8")
    svg = re.search(r'<div id="diagram">\s*(<svg.*?</svg>)', html, re.S)
    assert svg is not None
    assert 'class="node state terminal unreachable"' in svg.group(1)
    assert "Dead (unreachable)" in svg.group(1)


def test_missing_dot_is_reported_where_the_diagram_would_be(tmp_path: Path) -> None:
    write(demo_run(), tmp_path, dot="/nonexistent/dot")
    html = (tmp_path / "demo.html").read_text(encoding="utf-8")
    assert "<svg" not in html
    assert re.search(r'<div id="diagram">\s*<p class="note">The state diagram needs Graphviz',
                     html)


def test_hostile_text_is_shown_never_run(tmp_path: Path) -> None:
    write(hostile_run(), tmp_path)
    for page in ("index.html", "hostile.html"):
        html = (tmp_path / page).read_text(encoding="utf-8")
        body = re.sub(r"<script>.*?</script>", "", html, flags=re.S)
        body = re.sub(r'<script type="application/json" id="diagram-data">.*?</script>', "",
                      body, flags=re.S)
        assert "<script" not in body.lower()
        assert "<img" not in body and "onerror=" not in body.replace("onerror=alert", "")
        assert "&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt;" in html
    html = (tmp_path / "hostile.html").read_text(encoding="utf-8")
    assert "&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    assert "{{ 7 * 7 }}" in html and ">49<" not in html


def test_two_runs_are_byte_identical(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    write(demo_run(), a)
    write(demo_run(), b)
    for page in a.iterdir():
        assert page.read_bytes() == (b / page.name).read_bytes(), page.name


def test_timings_only_with_timings(tmp_path: Path) -> None:
    write(demo_run(), tmp_path / "plain")
    write(demo_run(), tmp_path / "timed", Options(timings=True))
    plain = (tmp_path / "plain" / "demo.html").read_text(encoding="utf-8")
    timed = (tmp_path / "timed" / "demo.html").read_text(encoding="utf-8")
    assert "<th>Time</th>" not in plain and " s</td>" not in plain
    assert "<th>Time</th>" in timed and "checked in 1.50 s" in timed


def test_render_returns_every_page() -> None:
    pages = HtmlReporter(dot="/nonexistent/dot").render(build_report(demo_run(), Options(),
                                                                     base=ROOT))
    assert list(pages) == ["index.html", "demo.html", "eldfall.html"]
