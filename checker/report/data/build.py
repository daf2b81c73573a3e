"""Building the view-model (`build_report`) from a `Run`: pure (no printing, no files, no
clock), the same run gives the same data; the words come from `checker.report.wording`."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from checker.diagnostics import CODES, Location
from checker.ir import Citation, Ruleset, lvars
from checker.options import Options
from checker.report import diagram
from checker.report.data.causes import Context, build_causes
from checker.report.data.views import (
    USER_KINDS,
    Change,
    Counts,
    CoverageView,
    DiagramView,
    ElementView,
    FindingView,
    FiredRule,
    LineView,
    PropertyView,
    QuoteView,
    ReportData,
    RulesetView,
    Segment,
    SentenceView,
    StateView,
    StepView,
    TraceView,
    Value,
    Where,
)
from checker.report.wording import explanation, property_message, status_label, tone
from checker.results import FINDING_KINDS, Finding, PropertyResult, Status, Step, Trace
from checker.results.codec import ruleset_result_to
from checker.results.coverage import Coverage
from checker.results.run import CheckedRuleset, Run

# ============================================================================ building

def build_report(run: Run, options: Options, *, base: Path | None = None) -> ReportData:
    """The view-model of `run`; paths relative to `base` (default: the working folder)."""
    root = base if base is not None else Path.cwd()
    pages: set[str] = {"index.html"}
    views = []
    for checked in run.checked:
        page = _page_name(checked.ruleset.id, pages)
        views.append(_ruleset_view(checked, options, root, page))
    totals = Counts()
    for v in views:
        totals = totals + v.counts
    return ReportData(tuple(views), options.timings, totals, _provenance(options),
                      tuple(_results(c, root, options.timings) for c in run.checked))


def _provenance(options: Options) -> dict[str, Any]:
    from checker.plan.store import code_version, options_key
    return {"code": code_version(), "options": options_key(options),
            "shard": list(options.shard)}


def _results(checked: CheckedRuleset, base: Path, timings: bool) -> dict[str, Any]:
    r = checked.ruleset
    raw = ruleset_result_to(checked.result)
    if not timings:         # the same input gives the same JSON, byte for byte
        raw["seconds"] = 0.0
        for p in raw["properties"]:
            p["seconds"] = 0.0
    return {"id": r.id, "file": relative(r.spec_file, base),
            "spec_sha256": hashlib.sha256(r.spec_text.encode()).hexdigest(),
            "source_sha256": hashlib.sha256(r.source.text.encode()).hexdigest(),
            "results": raw}


def anchor(prefix: str, ident: str) -> str:
    """An HTML id for `ident`, safe in a URL fragment without escaping (and one-to-one)."""
    return prefix + "-" + re.sub(r"[^A-Za-z0-9:.@-]", lambda m: f"_{ord(m.group()):x}_", ident)


def relative(path: str, base: Path) -> str:
    """`path` relative to `base`, normalized, with forward slashes."""
    p = Path(path)
    if p.is_absolute():
        try:
            p = Path(os.path.relpath(p, base))
        except ValueError:
            return p.as_posix()
    return Path(os.path.normpath(p)).as_posix()


def _page_name(ident: str, taken: set[str]) -> str:
    stem = re.sub(r"[^A-Za-z0-9_-]", "-", ident).strip("-") or "ruleset"
    name, n = f"{stem}.html", 1
    while name in taken:
        n += 1
        name = f"{stem}-{n}.html"
    taken.add(name)
    return name


class _Builder:
    """Everything one ruleset's views are built from."""

    def __init__(self, checked: CheckedRuleset, options: Options, base: Path) -> None:
        self.ruleset: Ruleset = checked.ruleset
        self.coverage: Coverage = checked.coverage
        self.options = options
        self.spec_file = relative(self.ruleset.spec_file, base)
        self.source_file = relative(self.ruleset.source_file, base)
        self.vars = {v.name: v for v in self.ruleset.system.vars}
        self.event_source = {e.id: e.source for e in self.ruleset.system.events}
        self.props = {p.id: p for p in self.ruleset.system.properties}
        self.listed = {e for e, el in self.ruleset.elements.items() if el.section != "informal"}
        self.cites: dict[str, list[Citation]] = {}
        for c in self.ruleset.citations:
            self.cites.setdefault(c.element, []).append(c)
        for term in self.ruleset.terms:       # the sentences a proposed term is used in
            self.cites.setdefault(f"term:{term.name}", []).extend(term.citations)
        self._line_starts = [0]
        for i, ch in enumerate(self.ruleset.source.text):
            if ch == "\n":
                self._line_starts.append(i + 1)

    # ------------------------------------------------------------------ places
    def where(self, loc: Location | None) -> Where:
        if loc is None:
            return Where(self.spec_file, 1, 1)
        return Where(self.spec_file, loc.line, loc.col)

    def element_where(self, ident: str) -> Where:
        el = self.ruleset.elements.get(ident)
        return self.where(el.location if el else None)

    def rule_anchor(self, ident: str) -> str | None:
        return anchor("r", ident) if ident in self.listed else None

    def _col(self, offset: int) -> tuple[int, int]:
        line = self.ruleset.source.line_of(offset)
        return line, offset - self._line_starts[line - 1] + 1

    def quotes(self, ident: str) -> tuple[QuoteView, ...]:
        out = []
        for c in self.cites.get(ident, []):
            line, col = self._col(c.start)
            end_line, end_col = self._col(max(c.start, c.end - 1))
            sentences = tuple(s.index for s in self.ruleset.source.sentences_in(c.start, c.end))
            out.append(QuoteView(ident, c.quote, line, col, end_line, end_col + 1, sentences))
        return tuple(out)

    # ------------------------------------------------------------------ traces
    def trace(self, trace: Trace | None) -> TraceView | None:
        if trace is None:
            return None
        steps = list(trace.steps)
        shown: dict[str, str] = {}
        initial: list[Value] = []
        initial_fired: tuple[str, ...] = ()
        if steps and steps[0].event == "":
            first = steps.pop(0)
            initial_fired = first.fired
            for name, raw in first.state:
                v = self.vars.get(name)
                if v is None or v.bookkeeping or v.kind == "input":
                    continue
                shown[name] = v.show(raw)
                if v.kind in ("state", "marker") and raw == 0:
                    continue
                initial.append(Value(name, v.show(raw), self._initial_text(name, v.show(raw))))
        views = []
        for i, step in enumerate(steps, start=1):
            views.append(self._step(i, step, shown))
        return TraceView(tuple(initial), tuple(views), trace.replayed, initial_fired)

    def _initial_text(self, name: str, value: str) -> str:
        v = self.vars[name]
        if v.kind == "state" and v.state:
            who = f"{v.model} " if v.model else ""
            return f"{who}is {v.state}" + (f" ×{value}" if value not in ("0", "1") else "")
        return f"{name} = {value}"

    def _step(self, index: int, step: Step, shown: dict[str, str]) -> StepView:
        changes = []
        for name, after in step.changed:
            before = shown.get(name)
            changes.append(Change(name, before, after, self._change_text(name, before, after)))
            shown[name] = after
        fired = []
        for inst in step.fired:
            element, _, model = inst.partition("@")
            fired.append(FiredRule(inst, element, model or None, self.rule_anchor(element)))
        return StepView(index, step.event, self._event_text(step.event), step.inputs,
                        tuple(fired), tuple(changes))

    def _event_text(self, event: str) -> str:
        element, _, model = event.partition("@")
        if self.event_source.get(event) == "phases" and element.endswith("-phase"):
            return f"{element.removesuffix('-phase')} phase begins"
        return f"{element} ({model})" if model else element

    def _change_text(self, name: str, before: str | None, after: str) -> str:
        v = self.vars.get(name)
        if v is not None and v.kind == "state" and v.state:
            who = f"{v.model} " if v.model else ""
            old = int(before) if before is not None and before.isdigit() else None
            new = int(after) if after.isdigit() else None
            if new == 0:
                return f"{who}is no longer {v.state}"
            if old == 0 and new == 1:
                return f"{who}becomes {v.state}"
            if new is not None and new > 1:
                return f"{who}has {v.state} ×{new}"
            return f"{who}becomes {v.state}"
        label = name
        if v is not None and v.kind == "marker" and v.state:
            shown = name.split(".", 1)[-1]
            value = shown.split(":", 1)[1] if ":" in shown else ""
            owner = f"{v.model}: " if v.model else ""
            label = f"{owner}{v.state} markers" + (f" (value {value})" if value else "")
        return f"{label} {before} → {after}" if before is not None else f"{label} = {after}"

    # ------------------------------------------------------------------ properties
    def property(self, r: PropertyResult) -> PropertyView:
        el = self.ruleset.elements.get(r.source)
        quotes = self.quotes(r.source) if el else ()
        text = r.text or r.id
        claim = quotes[0].quote if quotes and r.kind in USER_KINDS else text
        status = r.status
        trace = self.trace(r.trace)
        prop = self.props.get(r.id)
        relevant = lvars(prop.expr) if prop is not None else frozenset()
        seconds = r.seconds if self.options.timings else None
        return PropertyView(
            r.id, r.kind, status, status_label(r.kind, r.status), tone(r.status),
            r.method.value if r.method else None, r.reason, claim, text,
            property_message(r.kind, r.status, claim, trace, r.reason, relevant, r.readings),
            explanation(r.kind, r.status, trace, r.reason, relevant),
            self.element_where(r.source),
            r.source, quotes, r.states, trace, seconds,
            anchor("p", r.id), r.fingerprint(self.ruleset.id), r.readings)

    # ------------------------------------------------------------------ findings
    def finding(self, f: Finding) -> FindingView:
        citations = tuple(q for rule in f.rules for q in self.quotes(rule))
        resolved_quotes = tuple(q for rule in f.resolved_by for q in self.quotes(rule))
        first = next((r for r in f.rules if r in self.ruleset.elements), None) \
            or self._citing(citations)
        fp = f.fingerprint(self.ruleset.id)
        severity = "note" if f.resolved else CODES[f.code].severity.value
        return FindingView(
            fp, f.code, f.kind, severity, f.message, f.rules, f.states, citations, f.resolved,
            f.resolved_by, resolved_quotes, self.trace(f.trace), f.detail,
            self.element_where(first) if first else self.where(None), anchor("f", fp),
            tuple((r, self.rule_anchor(r)) for r in f.rules),
            tuple((label, view) for label, t in f.outcomes
                  if (view := self.trace(t)) is not None))

    def _citing(self, quotes: tuple[QuoteView, ...]) -> str | None:
        """The spec element that cites the first of `quotes`' sentences (where a term the
        text uses, and nothing declares, is reported)."""
        for q in quotes:
            for c in self.ruleset.citations:
                if c.element in self.ruleset.elements and c.line <= q.line <= \
                        self.ruleset.source.line_of(max(c.start, c.end - 1)):
                    return c.element
        return None

    # ------------------------------------------------------------------ coverage
    def coverage_view(self, findings: tuple[FindingView, ...]) -> CoverageView:
        by_sentence: dict[int, list[tuple[str, str, bool]]] = {}
        for f in findings:
            for idx in sorted({i for q in f.citations for i in q.sentences}):
                by_sentence.setdefault(idx, []).append((f.anchor, f.code, f.resolved))
        sentences = tuple(
            SentenceView(s.index, s.line, s.text, s.kind, s.status, s.elements,
                         tuple(by_sentence.get(s.index, ())), anchor("s", str(s.index)))
            for s in self.coverage.sentences)
        cov = self.coverage
        return CoverageView(cov.formalized, cov.informal, cov.uncovered,
                            round(cov.percent, 1), sentences, self._lines())

    def _lines(self) -> tuple[LineView, ...]:
        text = self.ruleset.source.text
        spans = sorted((s.start, s.end, s.index) for s in self.ruleset.source.sentences)
        out: list[LineView] = []
        k = 0
        for number, start in enumerate(self._line_starts, start=1):
            end = text.find("\n", start)
            end = len(text) if end == -1 else end
            segments: list[Segment] = []
            pos = start
            while k < len(spans) and spans[k][0] < end:
                s_start, s_end, idx = spans[k]
                if s_start > pos:
                    segments.append(Segment(text[pos:s_start], None))
                segments.append(Segment(text[s_start:min(s_end, end)], idx))
                pos = min(s_end, end)
                k += 1
            if pos < end:
                segments.append(Segment(text[pos:end], None))
            out.append(LineView(number, tuple(segments)))
        if out and not out[-1].segments and text.endswith("\n"):
            out.pop()
        return tuple(out)

    # ------------------------------------------------------------------ rules and diagram
    def diagram(self, unreachable: frozenset[str]) -> tuple[DiagramView, dict[str, set[str]]]:
        d = diagram.build(self.ruleset, unreachable)
        states_of: dict[str, set[str]] = {}
        views = []
        for node in d.nodes:
            if node.kind != "state":
                continue
            related = dict(d.related).get(node.label, ())
            for ident in related:
                states_of.setdefault(ident, set()).add(node.label)
            views.append(StateView(
                node.label, node.key, node.terminal, node.unreachable,
                tuple(a for a in (self.rule_anchor(i) for i in related) if a),
                d.edges_of(node.key)))
        return DiagramView(diagram.to_dot(d), tuple(views)), states_of

    def elements(self, states_of: dict[str, set[str]]) -> tuple[ElementView, ...]:
        order = [n for n in (v.state for v in self.ruleset.system.vars) if n]
        out = []
        for ident, el in self.ruleset.elements.items():
            if ident not in self.listed:
                continue
            states = tuple(sorted(states_of.get(ident, set()),
                                  key=lambda s: (order.index(s) if s in order else 0, s)))
            out.append(ElementView(ident, el.section, self.where(el.location),
                                   self.quotes(ident), states, anchor("r", ident), el.reason))
        return tuple(out)


def _ruleset_view(checked: CheckedRuleset, options: Options, base: Path,
                  page: str) -> RulesetView:
    b = _Builder(checked, options, base)
    result = checked.result
    order = {p.id: i for i, p in enumerate(checked.ruleset.system.properties)}
    props = sorted(result.properties, key=lambda r: (order.get(r.id, len(order)), r.id))
    properties = tuple(b.property(r) for r in props)
    kinds = list(FINDING_KINDS)
    findings = tuple(b.finding(f) for f in sorted(
        result.findings, key=lambda f: (kinds.index(f.kind) if f.kind in kinds else len(kinds),
                                        f.kind, f.rules, f.states, f.message)))
    unreachable = frozenset(p.states[0] if p.states else p.id.split(":", 1)[-1]
                            for p in result.properties
                            if p.kind == "state-reachable" and p.status is Status.VIOLATED)
    dview, states_of = b.diagram(unreachable)
    terminal = frozenset(s for p in checked.ruleset.system.properties
                         if p.kind == "terminal" for s in p.states)
    ctx = Context(checked.ruleset, b.quotes, b.rule_anchor, b.element_where, terminal)
    causes = build_causes(ctx, findings)
    open_causes = tuple(c for c in causes if not c.resolved)
    counts = Counts(
        len(properties),
        sum(1 for p in properties if p.status is Status.PROVED),
        sum(1 for p in properties if p.status is Status.VIOLATED),
        sum(1 for p in properties if p.status is Status.UNKNOWN),
        sum(1 for f in findings if not f.resolved),
        sum(1 for f in findings if f.resolved),
        len(open_causes), sum(1 for c in open_causes if c.severity == "error"))
    r = checked.ruleset
    return RulesetView(
        r.id, r.title, page, b.spec_file, b.source_file, properties, findings,
        b.coverage_view(findings), b.elements(states_of), dview, counts,
        result.seconds if options.timings else None, open_causes,
        tuple(c for c in causes if c.resolved))


class _Unlinked(_Builder):
    """Views for a page that does not carry the ruleset's rules and rulebook text (the
    diff page): no in-page links to rules or sentences."""

    def rule_anchor(self, ident: str) -> str | None:
        return None

    def quotes(self, ident: str) -> tuple[QuoteView, ...]:
        return tuple(replace(q, sentences=()) for q in super().quotes(ident))


class Views:
    """Finding and trace views of one checked ruleset, outside its own report page."""

    def __init__(self, checked: CheckedRuleset, options: Options,
                 base: Path | None = None) -> None:
        self._b = _Unlinked(checked, options, base if base is not None else Path.cwd())
        self.spec_file, self.source_file = self._b.spec_file, self._b.source_file

    def finding(self, f: Finding) -> FindingView:
        return self._b.finding(f)

    def trace(self, trace: Trace | None) -> TraceView | None:
        return self._b.trace(trace)
