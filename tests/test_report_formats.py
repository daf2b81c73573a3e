"""The JSON, SARIF, JUnit and terminal writers."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import jsonschema
import pytest
from test_report_support import GOLDEN, ROOT, demo_run, hostile_run

from checker.diagnostics import CODES
from checker.options import Options
from checker.report import terminal
from checker.report.data import ReportData, build_report
from checker.report.json_report import FORMAT_VERSION, JsonReporter
from checker.report.junit import JunitReporter
from checker.report.sarif import SarifReporter

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def data() -> ReportData:
    return build_report(demo_run(), Options(), base=ROOT)


@pytest.fixture(scope="module")
def hostile() -> ReportData:
    return build_report(hostile_run(), Options(), base=ROOT)


# ============================================================================ JSON

def test_json_shape(data: ReportData) -> None:
    doc = json.loads(JsonReporter().render(data))
    assert list(doc) == ["format_version", "rulesets"] and doc["format_version"] == 1
    assert FORMAT_VERSION == 1
    demo = doc["rulesets"][0]
    assert list(demo) == ["id", "title", "file", "source", "summary", "properties",
                          "findings", "coverage"]
    assert (demo["id"], demo["file"], demo["source"]) == (
        "demo", "tests/fixtures/report/demo.yaml", "seeds/eldfall-states.txt")
    prop = next(p for p in demo["properties"] if p["id"] == "hp-positive")
    assert {"id", "kind", "status", "method", "reason", "trace"} <= set(prop)
    assert prop["status"] == "violated" and prop["method"] == "explicit"
    assert prop["trace"]["initial"] == {"phase": "strategic", "hp": "2"}
    assert prop["trace"]["steps"][1]["changed"] == {"Crouched": "1", "Incapacitated": "1",
                                                    "hp": "0"}
    finding = next(f for f in demo["findings"] if f["kind"] == "fact-contradiction")
    assert {"fingerprint", "code", "kind", "states", "rules", "citations", "resolved",
            "resolved_by", "trace"} <= set(finding)
    assert finding["citations"][0] == {
        "rule": "blinded-no-los", "quote": "The model has no Line of Sight (except to itself).",
        "file": "seeds/eldfall-states.txt", "line": 38, "col": 3}
    assert set(demo["coverage"]) >= {"formalized", "informal", "uncovered"}
    statuses = {p["status"] for r in doc["rulesets"] for p in r["properties"]}
    assert statuses == {"proved", "violated", "unknown"}


def test_json_is_stable_and_untimed_by_default(data: ReportData) -> None:
    again = build_report(demo_run(), Options(), base=ROOT)
    assert JsonReporter().render(data) == JsonReporter().render(again)
    assert '"seconds"' not in JsonReporter().render(data)
    timed = JsonReporter().render(build_report(demo_run(), Options(timings=True), base=ROOT))
    assert '"seconds": 1.5' in timed


def test_json_documented_fields_are_in_the_doc(data: ReportData) -> None:
    doc = json.loads(JsonReporter().render(build_report(demo_run(), Options(timings=True),
                                                        base=ROOT)))
    documented = set(re.findall(r"^\| `([a-z_]+)`", (ROOT / "docs" / "json-format.md")
                                .read_text(encoding="utf-8"), re.M))

    def keys(node: Any, skip: bool = False) -> set[str]:
        out: set[str] = set()
        if isinstance(node, dict):
            for k, v in node.items():
                if not skip:
                    out.add(k)
                # inputs / changed / initial map variable names, not fields
                out |= keys(v, skip=k in ("inputs", "changed", "initial"))
        elif isinstance(node, list):
            for v in node:
                out |= keys(v)
        return out

    assert keys(doc) - documented == set()


# ============================================================================ SARIF

def sarif_schema() -> dict[str, Any]:
    return json.loads((GOLDEN / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("which", ["data", "hostile"])
def test_sarif_validates_against_the_schema(which: str, request: pytest.FixtureRequest) -> None:
    doc = json.loads(SarifReporter().render(request.getfixturevalue(which)))
    jsonschema.Draft4Validator(sarif_schema()).validate(doc)
    assert doc["version"] == "2.1.0"


def test_sarif_rules_are_codes_and_locations_point_at_spec_and_text(data: ReportData) -> None:
    run = json.loads(SarifReporter().render(data))["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert all(r["id"] in CODES for r in rules)
    results = run["results"]
    assert {r["ruleId"] for r in results} == {"RP301", "RP304", "RP401", "RP402", "RP404",
                                              "RP417", "RP501", "RP502"}
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
    clash = next(r for r in results if r["ruleId"] == "RP401")
    uris = [loc["physicalLocation"]["artifactLocation"]["uri"] for loc in clash["locations"]]
    assert uris == ["tests/fixtures/report/demo.yaml", "seeds/eldfall-states.txt",
                    "seeds/eldfall-states.txt"]
    text = clash["locations"][1]["physicalLocation"]["region"]
    assert (text["startLine"], text["startColumn"]) == (38, 3)
    assert text["snippet"]["text"] == "The model has no Line of Sight (except to itself)."
    resolved = next(r for r in results if r["ruleId"] == "RP402")
    assert resolved["suppressions"][0]["justification"] == "resolved by blinded-actions"
    unknown = next(r for r in results if r["ruleId"] == "RP502")
    assert unknown["level"] == "warning"
    assert all(not re.match(r"^(/|[a-z]+:)", u) for u in uris)


# ============================================================================ JUnit

def test_junit_has_a_case_per_property_and_finding(data: ReportData) -> None:
    root = ET.fromstring(JunitReporter().render(data))
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["demo", "eldfall"]
    demo = data.rulesets[0]
    cases = suites[0].findall("testcase")
    assert len(cases) == len(demo.properties) + len(demo.findings)
    assert suites[0].get("tests") == str(len(cases))
    by_name = {c.get("name"): c for c in cases}
    assert by_name["hp-positive"].find("failure") is not None
    unknown = by_name["no-stacking:Bleeding"]
    assert unknown.find("error") is not None and unknown.find("failure") is None
    resolved = next(c for c in cases if c.get("name", "").startswith("RP402"))
    assert resolved.find("failure") is None
    assert "resolved by: blinded-actions" in (resolved.findtext("system-out") or "")
    assert all("time" not in el.attrib for el in root.iter())


def test_junit_escapes_hostile_text(hostile: ReportData) -> None:
    xml = JunitReporter().render(hostile)
    root = ET.fromstring(xml)  # well-formed despite control characters and markup
    assert "<script" not in xml
    names = [c.get("name") for c in root.iter("testcase")]
    assert 'prop-"quoted"-<x>' in names
    assert any("<script>alert('quote')</script>" in (f.text or "")
               for f in root.iter("failure"))


# ============================================================================ terminal

class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def render_terminal(data: ReportData, stream: io.StringIO) -> str:
    terminal.print_report(data, terminal.console_for(stream), ["report: reports/index.html"])
    return stream.getvalue()


def test_terminal_summary_and_diagnostic_lines(data: ReportData) -> None:
    out = render_terminal(data, io.StringIO())
    lines = out.splitlines()
    # the demo: 5 open findings, each its own root cause (2 errors, 3 warnings: the State
    # nothing enters, the term "Reaction", "becomes Crouched" written as a level), 1 resolved
    assert lines[0].startswith("demo     25 properties: 21 proved, 3 violated, 1 unknown · "
                               "2 problems, 3 warnings (5 findings, 1 resolved) · "
                               "uncovered 117")
    assert lines[2] == "Problems to fix, most severe first:"
    # the order dependence (game-breaking) first, then the broken promises (one line
    # each, clipped), then the contradiction
    assert lines[3].startswith("tests/fixtures/report/demo.yaml:46:5: error[RP404]: "
                               "Entering/Leaving Crouched vs Incapacitated: ")  # titles
    assert lines[4].startswith("tests/fixtures/report/demo.yaml:81:5: error[RP501]: violated: "
                               "'always hp >= 1' — after 2 steps")
    rp401 = next(i for i, line in enumerate(lines) if "error[RP401]" in line)
    assert rp401 == 6
    # errors before warnings, the unknown says what to try
    warn = lines.index("Warnings:")
    assert all("error[" not in line for line in lines[warn:])
    assert any(re.match(r"^tests/fixtures/report/demo\.yaml:\d+:\d+: warning\[RP502\]: "
                        r"unknown: .* — try a larger --timeout or --node-budget$", line)
               for line in lines)
    assert lines[-3].startswith("total: 2 problems, 2 broken promises, 6 warnings, 1 unknown")
    assert re.fullmatch(r"start here: Entering/Leaving Crouched vs Incapacitated — "
                        r"reports/demo\.html#c-[0-9a-f]{16}", lines[-2])
    assert lines[-1] == "report: reports/index.html"
    assert all(len(line) <= terminal.WIDTH for line in lines[2:-1])
    assert "\x1b[" not in out


def test_terminal_verbose_lists_every_finding_with_quotes(data: ReportData) -> None:
    stream = io.StringIO()
    terminal.print_report(data, terminal.console_for(stream), [], verbose=True)
    lines = stream.getvalue().splitlines()
    assert '    blinded-no-los: "The model has no Line of Sight (except to itself)." ' \
           "(seeds/eldfall-states.txt:38)" in lines
    assert any(line.startswith("    what to do: The text must say which happens first.")
               for line in lines)


def test_plain_progress_prints_a_line_while_a_check_runs() -> None:
    stream = io.StringIO()
    with terminal.PlainProgress(stream, every=0.05) as live:
        import time

        live.update("demo", "hp-positive", 1, 3)
        time.sleep(0.3)
    assert "checking demo: hp-positive (1/3, " in stream.getvalue()
    quiet = io.StringIO()
    with terminal.PlainProgress(quiet, every=10.0) as live:
        live.update("demo", "hp-positive", 1, 3)
    assert quiet.getvalue() == ""          # a short check prints nothing


def test_terminal_colours_only_a_terminal(data: ReportData, monkeypatch:
                                          pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    out = render_terminal(data, Tty())
    assert "\x1b[" in out


def test_terminal_never_reads_spec_text_as_markup(hostile: ReportData) -> None:
    stream = io.StringIO()
    terminal.print_report(hostile, terminal.console_for(stream), [], verbose=True)
    out = stream.getvalue()
    assert "rule-<script>alert(3)</script>" in out
    assert "\x07" not in out and "\x1b" not in out and "\\x07" in out


def test_progress_is_silent_off_a_terminal() -> None:
    stream = io.StringIO()
    with terminal.progress(stream) as tick:
        tick("demo", "hp-positive", 1, 3)
    assert stream.getvalue() == ""


def test_progress_shows_what_is_being_checked_on_a_terminal() -> None:
    stream = Tty()
    with terminal.progress(stream, delay=0.0) as tick:
        import time

        for i in range(3):
            tick("demo", f"property-{i}", i, 3)
            time.sleep(0.15)
    assert "demo: checking property-" in stream.getvalue()


def test_terminal_progress_object_for_the_command_line() -> None:
    stream = Tty()
    with terminal.TerminalProgress(enabled=False, stream=stream) as live:
        live.update("demo", "hp-positive", 1, 3)
    assert stream.getvalue() == ""
    stream = Tty()
    with terminal.TerminalProgress(enabled=True, stream=stream, delay=0.0) as live:
        import time

        live.update("demo", "hp-positive", 1, 3)
        time.sleep(0.2)
    assert "demo: checking hp-positive" in stream.getvalue()
