"""The JUnit XML report, for CI dashboards: one test suite per ruleset, one test case per
property (violated: failure; unknown: error, never a pass) and per finding (open: failure;
resolved by the text: pass, saying what resolves it). Times only when asked for."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from checker.report.data import FindingView, PropertyView, ReportData, RulesetView, TraceView
from checker.results import Status

# characters XML 1.0 cannot carry at all, even escaped
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _x(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class JunitReporter:
    report_type = "junit"

    def render(self, data: ReportData) -> str:
        suites = ET.Element("testsuites", name="ruleproof")
        totals = [0, 0, 0]
        for r in data.rulesets:
            counts = self._suite(suites, r, data.timings)
            totals = [a + b for a, b in zip(totals, counts, strict=True)]
        suites.set("tests", str(totals[0]))
        suites.set("failures", str(totals[1]))
        suites.set("errors", str(totals[2]))
        ET.indent(suites)
        body = ET.tostring(suites, encoding="unicode")
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"

    def _suite(self, parent: ET.Element, r: RulesetView, timings: bool) -> list[int]:
        suite = ET.SubElement(parent, "testsuite", name=_x(r.id))
        failures = errors = 0
        for p in r.properties:
            case = ET.SubElement(suite, "testcase", classname=_x(f"{r.id}.properties"),
                                 name=_x(p.id), file=_x(p.location.file),
                                 line=str(p.location.line))
            if timings and p.seconds is not None:
                case.set("time", f"{p.seconds:.3f}")
            body = self._property_body(p)
            if p.status is Status.VIOLATED:           # JUnit: a failure
                failures += 1
                tag = ET.SubElement(case, "failure", type=p.code or "RP501",
                                    message=_x(p.message))
                tag.text = _x(body)
            elif p.status is Status.UNKNOWN:          # an error, never a pass
                errors += 1
                tag = ET.SubElement(case, "error", type="RP502", message=_x(p.message))
                tag.text = _x(body)
            else:
                ET.SubElement(case, "system-out").text = _x(p.message)
        for f in r.findings:
            name = f"{f.code} {f.kind}: {', '.join(f.rules)}"
            case = ET.SubElement(suite, "testcase", classname=_x(f"{r.id}.findings"),
                                 name=_x(name), file=_x(f.location.file),
                                 line=str(f.location.line))
            body = self._finding_body(f, r.source_file)
            if f.resolved:
                ET.SubElement(case, "system-out").text = _x(body)
            else:
                failures += 1
                tag = ET.SubElement(case, "failure", type=f.code, message=_x(f.message))
                tag.text = _x(body)
        tests = len(r.properties) + len(r.findings)
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", str(errors))
        suite.set("skipped", "0")
        if timings and r.seconds is not None:
            suite.set("time", f"{r.seconds:.3f}")
        return [tests, failures, errors]

    def _property_body(self, p: PropertyView) -> str:
        lines = [f"{p.location}: {p.message}"]
        if p.method:
            lines.append(f"method: {p.method}")
        if p.reason:
            lines.append(f"reason: {p.reason}")
        lines += _trace_lines(p.trace)
        return "\n".join(lines)

    def _finding_body(self, f: FindingView, source: str) -> str:
        lines = [f"{f.location}: {f.message}"]
        for q in f.citations:
            lines.append(f"  {q.element}: \"{q.quote}\" ({source}:{q.line})")
        if f.resolved:
            lines.append("resolved by: " + (", ".join(f.resolved_by) or "the ruleset"))
        for label, value in f.detail:
            lines.append(f"  {label}: {value}")
        lines += _trace_lines(f.trace)
        return "\n".join(lines)


def _trace_lines(t: TraceView | None) -> list[str]:
    if t is None:
        return []
    out = ["trace:"]
    if t.initial:
        out.append("  start: " + ", ".join(v.text for v in t.initial))
    for s in t.steps:
        fired = f" [rules: {', '.join(r.instance for r in s.fired)}]" if s.fired else ""
        changes = ", ".join(c.text for c in s.changes) or "nothing changes"
        out.append(f"  {s.index}. {s.text}{fired}: {changes}")
    return out
