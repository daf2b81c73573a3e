"""The HTML report in a real browser: Debian's chromium, driven by Playwright.

Skipped only when /usr/bin/chromium or the playwright package is missing. Screenshots are
saved under tests/artifacts/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_report_support import ARTIFACTS, demo_run

from checker.options import Options
from checker.report import Outputs, render_all

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed at "
                       "/usr/bin/chromium (apt-get install chromium)"),
    pytest.mark.skipif(sync_playwright is None, reason="the playwright package is not "
                       "installed (pip install playwright)"),
]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("browser") / "reports"
    render_all(demo_run(), Options(), Outputs(html=folder, stream=io.StringIO()))
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


class Watched:
    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: self.requests.append(r.url))


@pytest.fixture
def page(browser: Browser) -> Iterator[Watched]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    w = Watched(ctx.new_page())
    yield w
    ctx.close()
    assert w.errors == [], f"console errors: {w.errors}"
    assert all(u.startswith("file://") for u in w.requests), w.requests


def test_index_links_reach_every_ruleset_page(report: Path, page: Watched) -> None:
    p = page.page
    p.goto((report / "index.html").as_uri())
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    p.screenshot(path=str(ARTIFACTS / "report-index.png"), full_page=True)
    links = p.locator("a.ruleset-link")
    assert links.count() == 2
    for i in range(links.count()):
        p.goto((report / "index.html").as_uri())
        link = p.locator("a.ruleset-link").nth(i)
        title = link.inner_text()
        link.click()
        p.wait_for_load_state()
        assert p.locator("h1").inner_text() == title
        assert p.locator("#properties").is_visible()


def test_a_findings_trace_can_be_opened(report: Path, page: Watched) -> None:
    p = page.page
    p.goto((report / "demo.html").as_uri())
    card = p.locator("article.cause").filter(has_text="Blinded vs Shrouded").first
    card.locator("details.underneath > summary").click()       # the findings underneath
    finding = card.locator("article.finding").first
    table = finding.locator("details.trace table.steps")
    assert not table.is_visible()
    finding.locator("details.trace > summary").click()
    assert table.is_visible()
    rows = table.locator("tbody tr")
    assert rows.count() == 3
    assert "become-blinded" in rows.nth(1).inner_text()
    assert "becomes Blinded" in rows.nth(1).inner_text()
    finding.screenshot(path=str(ARTIFACTS / "report-finding.png"))


def test_diagram_is_there_and_selecting_a_state_highlights_its_rules(
        report: Path, page: Watched) -> None:
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    p = page.page
    p.goto((report / "demo.html").as_uri())
    svg = p.locator("#diagram svg")
    assert svg.is_visible()
    assert svg.bounding_box()["width"] > 100  # type: ignore[index]
    assert p.locator("#diagram g.node.state").count() == 7
    assert p.locator("#diagram g.node.state.unreachable").count() == 1
    flying = p.locator("#diagram g.node.state", has_text="Flying")
    flying.click()
    assert "hl" in (flying.get_attribute("class") or "")
    assert p.locator("#r-crouched-cancels-flying.hl").count() == 1
    assert p.locator("#diagram g.edge.hl").count() >= 1
    assert "Flying" in p.locator("#state-caption").inner_text()
    p.locator('.state-btn', has_text="Blinded").click()
    assert p.locator("#r-blinded-no-los.hl").count() == 1
    assert p.locator("#r-crouched-cancels-flying.hl").count() == 0
    p.locator("#diagram-section").scroll_into_view_if_needed()
    p.locator("#diagram").screenshot(path=str(ARTIFACTS / "report-diagram.png"))
    p.screenshot(path=str(ARTIFACTS / "report-ruleset.png"), full_page=True)


def test_readable_on_a_phone(report: Path, browser: Browser) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    p = ctx.new_page()
    errors: list[str] = []
    p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    p.goto((report / "demo.html").as_uri())
    width = p.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width}px)"
    p.screenshot(path=str(ARTIFACTS / "report-phone.png"))
    ctx.close()
    assert errors == []


def test_printing_opens_every_trace(report: Path, page: Watched) -> None:
    p = page.page
    p.goto((report / "demo.html").as_uri())
    p.emulate_media(media="print")
    p.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert p.locator("details:not([open])").count() == 0
    assert p.locator("header.top nav").is_hidden()
    p.pdf(path=str(ARTIFACTS / "report-print.pdf"))


def test_filters_narrow_the_cards(report: Path, page: Watched) -> None:
    p = page.page
    p.goto((report / "demo.html").as_uri())
    cards = p.locator("article.cause")
    total = cards.count()
    visible = "article.cause:not([hidden])"
    assert total >= 4                    # 2 broken promises, 2 problems, 1 unknown, warnings
    p.select_option("#f-kind", "order-dependence")
    assert p.locator(visible).count() == 1
    assert "Crouched vs Incapacitated" in p.locator(visible).first.inner_text()
    p.select_option("#f-kind", "")
    p.select_option("#f-severity", "warning")
    assert 0 < p.locator(visible).count() < total
    assert all(c.get_attribute("data-severity") == "warning"
               for c in p.locator(visible).all())
    p.select_option("#f-severity", "")
    p.select_option("#f-state", "Shrouded")
    assert p.locator(visible).count() == 1
    p.select_option("#f-state", "")
    p.fill("#f-search", "Line of Sight")
    assert 0 < p.locator(visible).count() < total
    assert "shown" in p.locator("#f-count").inner_text()
    p.fill("#f-search", "")
    assert p.locator(visible).count() == total
    p.screenshot(path=str(ARTIFACTS / "report-attention.png"), full_page=False)


def test_the_keyboard_reaches_every_card(report: Path, page: Watched) -> None:
    p = page.page
    p.goto((report / "demo.html").as_uri())
    wanted = {c.get_attribute("id") for c in p.locator("article.cause").all()}
    reached: set[str | None] = set()
    for _ in range(300):
        p.keyboard.press("Tab")
        reached.add(p.evaluate("document.activeElement && document.activeElement.id"))
        if p.evaluate("""() => { const a = document.activeElement;
                return a.tagName === 'SUMMARY' && a.parentElement.matches('details.section')
                    && !a.parentElement.open; }"""):
            p.keyboard.press("Enter")        # a collapsed section opens from the keyboard
        if wanted <= reached:
            break
    assert wanted <= reached, f"never focused: {sorted(str(w) for w in wanted - reached)}"


def test_print_starts_with_what_needs_attention(report: Path, page: Watched) -> None:
    p = page.page
    p.goto((report / "demo.html").as_uri())
    p.emulate_media(media="print")
    first = p.evaluate("""() => Array.from(document.querySelectorAll('main h2'))
        .find(h => h.offsetParent !== null).textContent""")
    assert first == "What needs attention"
    assert p.locator(".filters").is_hidden()


def test_seed_like_matrix_card_links_each_cell_to_its_finding(report: Path,
                                                              page: Watched) -> None:
    p = page.page
    p.goto((report / "demo.html").as_uri())
    for a in p.locator("table.matrix td.hit a").all():   # none in the demo; seeds have them
        target = (a.get_attribute("href") or "#")[1:]
        assert p.locator(f"[id='{target}']").count() == 1
