"""The HTML report: `index.html` over all rulesets and one page per ruleset, rendered from
package-data Jinja2 templates with autoescape. Self-contained: the CSS, the script and the
state diagrams (Graphviz SVG) are inline, a Content-Security-Policy forbids loading anything
else, and only the page's own script (by its hash) may run."""

from __future__ import annotations

import base64
import hashlib
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from checker.report import diagram
from checker.report.data import KIND_TITLES, METHODS, ReportData, RulesetView, SentenceView, anchor


def _asset(name: str) -> str:
    return resources.files("checker.report").joinpath("templates", name).read_text("utf-8")


def _sentence_title(s: SentenceView) -> str:
    if s.status == "formalized":
        return "formalized by " + ", ".join(e for e in s.elements
                                           if not e.startswith(("informal:", "undefined:")))
    if s.status == "informal":
        return "listed as informal: cited, but not checked"
    if s.status == "uncovered":
        return "uncovered: no spec element cites this sentence"
    return "heading"


class HtmlReporter:
    report_type = "html"

    def __init__(self, *, dot: str | None = None) -> None:
        self.dot = dot
        self.env = Environment(loader=PackageLoader("checker.report", "templates"),
                               autoescape=True, trim_blocks=True, lstrip_blocks=True,
                               undefined=StrictUndefined, keep_trailing_newline=True)
        js = _asset("report.js")
        digest = base64.b64encode(hashlib.sha256(js.encode("utf-8")).digest()).decode()
        self.env.globals.update(
            css=Markup(_asset("report.css")), js=Markup(js), script_hash=f"sha256-{digest}",
            anchor=anchor, methods=METHODS, kind_titles=KIND_TITLES, sentence_title=_sentence_title)

    def render(self, data: ReportData) -> dict[str, str]:
        """File name → HTML for every page, index first."""
        pages = {"index.html": self.env.get_template("index.html.j2").render(data=data)}
        template = self.env.get_template("ruleset.html.j2")
        for r in data.rulesets:
            pages[r.page] = template.render(data=data, r=r, **self._diagram(r))
        return pages

    def _diagram(self, r: RulesetView) -> dict[str, Any]:
        if not r.diagram.states:
            drawn = diagram.Rendered(None, "This ruleset declares no States, so there is no "
                                     "state diagram.")
        else:
            drawn = diagram.render_svg(r.diagram.dot, dot=self.dot)
        rules_of = {e.anchor: e.id for e in r.elements}
        data = {s.key: {"name": s.name, "edges": list(s.edges), "rules": list(s.elements),
                        "labels": [rules_of[a] for a in s.elements if a in rules_of]}
                for s in r.diagram.states}
        return {"svg": Markup(drawn.svg) if drawn.svg else None, "diagram_note": drawn.note,
                "diagram_data": data}
