"""The state diagram: DOT from the System, SVG from Graphviz, a note when dot is missing."""

from __future__ import annotations

import shutil

import pytest
from test_report_support import load

from checker.report import diagram

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def demo_diagram() -> diagram.Diagram:
    return diagram.build(load("tests/fixtures/report/demo.yaml"), frozenset({"Dead"}))


def test_nodes_are_the_states_with_terminal_and_unreachable_marked(
        demo_diagram: diagram.Diagram) -> None:
    states = [n for n in demo_diagram.nodes if n.kind == "state"]
    assert [n.label for n in states] == ["Crouched", "Flying", "Incapacitated", "Dead",
                                         "Bleeding", "Blinded", "Shrouded"]
    dead = next(n for n in states if n.label == "Dead")
    assert dead.terminal and dead.unreachable
    dot = diagram.to_dot(demo_diagram)
    line = next(x for x in dot.splitlines() if f" {dead.key} [" in x)
    assert "peripheries=2" in line and "dashed" in line and "(unreachable)" in line


def test_edges_enter_and_leave_states_labelled_with_rule_ids(
        demo_diagram: diagram.Diagram) -> None:
    key = {n.label: n.key for n in demo_diagram.nodes}
    edges = {(e.tail, e.head, x, e.effect) for e in demo_diagram.edges for x in e.elements}
    assert (key["Incapacitated"], key["Crouched"], "incapacitated-crouches", "enter") in edges
    assert (key["Crouched"], key["Flying"], "crouched-cancels-flying", "leave") in edges
    assert (key["any situation"], key["Incapacitated"], "incapacitated-at-0", "enter") in edges
    assert (key["take-flight"], key["Flying"], "take-flight", "enter") in edges
    dot = diagram.to_dot(demo_diagram)
    assert 'label="crouched-cancels-flying"' in dot and "arrowhead=tee" in dot


def test_related_rules_per_state(demo_diagram: diagram.Diagram) -> None:
    related = dict(demo_diagram.related)
    assert {"blinded-actions", "blinded-no-perceive", "blinded-no-los",
            "become-blinded"} <= set(related["Blinded"])


def test_dot_quotes_spec_text() -> None:
    d = diagram.Diagram((diagram.Node("st0", 'a"b\\c&d<e>\n', "state"),), (), ())
    dot = diagram.to_dot(d)
    assert 'label="a\\"b\\\\c&amp;d<e> "' in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_svg_is_inline_ready_and_escapes_labels() -> None:
    d = diagram.Diagram((diagram.Node("st0", "<script>alert(1)</script>", "state"),
                         diagram.Node("st1", "B & C", "state")),
                        (diagram.Edge("ed0", "st0", "st1", ("r<1>",), "leave"),), ())
    out = diagram.render_svg(diagram.to_dot(d))
    assert out.svg is not None, out.note
    assert out.svg.startswith("<svg") and "<!--" not in out.svg and "<?xml" not in out.svg
    assert "<script" not in out.svg and "&lt;script&gt;" in out.svg
    assert 'id="st0"' in out.svg and 'id="ed0"' in out.svg and "B &amp; C" in out.svg


def test_missing_dot_gives_a_note_not_an_error() -> None:
    out = diagram.render_svg("digraph states {}", dot="/nonexistent/dot")
    assert out.svg is None and "Graphviz" in out.note and "apt-get install graphviz" in out.note


def test_failing_dot_gives_a_note() -> None:
    false = shutil.which("false")
    assert false is not None
    out = diagram.render_svg("digraph states {}", dot=false)
    assert out.svg is None and "failed" in out.note


def test_unsafe_svg_is_refused() -> None:
    assert diagram._is_safe('<svg><g id="a"><text>x</text></g></svg>')
    assert not diagram._is_safe('<svg><script>alert(1)</script></svg>')
    assert not diagram._is_safe('<svg><g onclick="x()"></g></svg>')
    assert not diagram._is_safe('<svg><a href="javascript:x"></a></svg>')
