"""The behaviour diff (`ruleproof diff`, issue #20): what an errata makes possible or
impossible, whether or not a property watches it. Each test plants one erratum in the
Eldfall excerpt (docs/example-mini.yaml); the expected group is written from the edit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from checker.cli import main

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
MINI = (ROOT / "docs" / "example-mini.yaml").read_text("utf-8")
IMMUNE = MINI + """prevents:
  - id: incapacitated-no-bleeding
    cite: "Triggered when the model's HP reaches 0."
    when: Incapacitated
    blocks: [Bleeding]
"""


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _tree(tmp_path: Path, name: str, spec: str) -> Path:
    folder = tmp_path / name
    (folder / "spec").mkdir(parents=True, exist_ok=True)
    (folder / "seeds").mkdir(exist_ok=True)
    shutil.copy(ROOT / "seeds" / "eldfall-states.txt", folder / "seeds")
    (folder / "spec" / "eldfall.yaml").write_text(spec, "utf-8")
    return folder / "spec" / "eldfall.yaml"


def _diff(tmp_path: Path, old: str, new: str, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    a, b = _tree(tmp_path, "old", old), _tree(tmp_path, "new", new)
    out = tmp_path / "diff.json"
    rc = main(["diff", str(a), str(b), "--json", str(out), "--html", str(tmp_path / "page"),
               *extra])
    if not out.exists():
        return rc, []
    data = json.loads(out.read_text("utf-8"))
    return rc, [c for r in data["behaviour"] for c in r["changes"]]


def _sarif_diff(tmp_path: Path, new: str) -> dict[str, Any]:
    """`ruleproof diff --sarif` from the excerpt to `new` (which must fail the gate): the
    SARIF document."""
    a, b = _tree(tmp_path, "old", MINI), _tree(tmp_path, "new", new)
    out = tmp_path / "diff.sarif"
    assert main(["diff", str(a), str(b), "--sarif", str(out),
                 "--html", str(tmp_path / "page")]) == 1
    doc: dict[str, Any] = json.loads(out.read_text("utf-8"))
    return doc


def _line_of(text: str, line: str) -> int:
    """The number of the first line of `text` that is `line`."""
    return next(n for n, got in enumerate(text.splitlines(), start=1) if got == line)


def test_expiry_moved_changes_steps_not_situations(tmp_path: Path) -> None:
    # the Bleeding roll moved from the Strategic Phase to the Activation Phase: every
    # situation stays reachable, only what happens at each phase changes
    new = MINI.replace("    on: strategic-phase\n    when: Bleeding", "    on: activation-phase\n"
                       "    when: Bleeding")
    rc, changes = _diff(tmp_path, MINI, new)
    assert rc == 1
    assert {c["what"] for c in changes} == {"step"}
    events = {(c["change"], c["event"]) for c in changes}
    assert ("possible", "activation-phase") in events        # now a wound at activation
    assert ("impossible", "strategic-phase") in events       # no longer at the strategic
    for c in changes:
        assert c["trace"] is not None and c["trace"]["replayed"] is True


def test_deleted_immunity_lets_incapacitated_gain_bleeding(tmp_path: Path) -> None:
    rc, changes = _diff(tmp_path, IMMUNE, MINI)
    assert rc == 1
    gains = [c for c in changes if c["change"] == "possible" and c["event"] == "become-bleeding"]
    assert gains, changes
    assert ["Incapacitated", "1"] in gains[0]["where"]
    assert ["Bleeding", "0", "1"] in gains[0]["effect"]
    assert "gains Bleeding" in gains[0]["words"]


def test_restriction_permitting_more_fails_the_gate_until_accepted(tmp_path: Path) -> None:
    new = MINI.replace("only: {action: [assist_self, dodge, nothing]}",
                       "only: {action: [assist_self, dodge, nothing, melee_attack]}")
    accept = tmp_path / "accept.json"
    rc, changes = _diff(tmp_path, MINI, new, "--write-accept", str(accept))
    assert rc == 1
    allowed = [c for c in changes if c["what"] == "allowed"]
    assert [(c["change"], c["event"]) for c in allowed] == [("possible", "action: melee_attack")]
    assert ["Crouched", "1"] in allowed[0]["where"]
    rc, changes = _diff(tmp_path, MINI, new, "--accept", str(accept))
    assert rc == 0 and all(c["accepted"] for c in changes)


def test_stacking_made_possible_is_a_new_situation(tmp_path: Path) -> None:
    new = MINI.replace("  - id: no-stacking\n    stacking: none\n", "  - id: no-stacking\n")
    rc, changes = _diff(tmp_path, MINI, new)
    assert rc == 1
    twice = [c for c in changes if c["what"] == "situation" and c["change"] == "possible"]
    assert any(w[1] == "2" for c in twice for w in c["where"]), twice


def test_accept_file_that_does_not_parse_is_refused_before_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "accept.json"
    bad.write_text("{not json", "utf-8")
    rc, _ = _diff(tmp_path, MINI, MINI, "--accept", str(bad))
    assert rc == 2
    err = capsys.readouterr().err
    assert "RP201" in err and "not a ruleproof accept file" in err
    assert not (tmp_path / "diff.json").exists()


def test_accept_file_naming_unknown_difference_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "accept.json"
    stale.write_text(json.dumps({"format_version": 1, "accepted": [
        {"fingerprint": "0123456789abcdef"}]}), "utf-8")
    rc, _ = _diff(tmp_path, MINI, MINI, "--accept", str(stale))
    assert rc == 2
    assert "0123456789abcdef" in capsys.readouterr().err


def test_unchanged_has_no_behaviour_change(tmp_path: Path) -> None:
    rc, changes = _diff(tmp_path, MINI, MINI)
    assert rc == 0 and changes == []


def test_sarif_points_at_the_lines_the_errata_changed(tmp_path: Path) -> None:
    """`diff --sarif`: the behaviour changes of a moved expiry are located at the changed
    line of NEW (the `on:` of bleeding-roll), which the SARIF schema accepts."""
    import jsonschema

    new = MINI.replace("    on: strategic-phase\n    when: Bleeding", "    on: activation-phase\n"
                       "    when: Bleeding")
    changed = _line_of(new, "    on: activation-phase")
    doc = _sarif_diff(tmp_path, new)
    schema = json.loads((ROOT / "tests" / "golden" / "sarif-schema-2.1.0.json")
                        .read_text("utf-8"))
    jsonschema.Draft4Validator(schema).validate(doc)
    results = doc["runs"][0]["results"]
    behaviour = [r for r in results if r["ruleId"] == "RP603"]
    assert behaviour and {r["level"] for r in behaviour} >= {"error"}
    for r in behaviour:
        region = r["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["endLine"]) == (changed, changed)
        assert r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == \
            "new/spec/eldfall.yaml"        # relative to the folder the diff ran in
    assert any("activation-phase" in r["message"]["text"] for r in behaviour)


def test_changed_lines_of_new() -> None:
    from checker.errata.lines import Hunk, changed_lines

    old = "a\nb\nc\nd\n"
    assert changed_lines(old, old) == ()
    assert changed_lines(old, "a\nB\nc\nd\n") == (Hunk(2, 2, 1),)              # replaced
    assert changed_lines(old, "a\nb\nx\ny\nc\nd\n") == (Hunk(3, 4, 0),)        # inserted
    assert changed_lines(old, "a\nd\n") == (Hunk(1, 1, 2, deletion=True),)     # b, c gone
    assert changed_lines(old, "b\nc\nd\n") == (Hunk(1, 1, 1, deletion=True),)  # first gone


def test_sarif_locates_a_new_finding_at_the_changed_lines(tmp_path: Path) -> None:
    """An errata that makes Incapacitated unreachable (its trigger now needs HP below 0,
    which the range never has): the new finding is a SARIF result at the changed line."""
    new = MINI.replace("    when: hp == 0 and not Dead\n", "    when: hp < 0 and not Dead\n")
    changed = _line_of(new, "    when: hp < 0 and not Dead")
    results = _sarif_diff(tmp_path, new)["runs"][0]["results"]
    found = [r for r in results if r["ruleId"] not in ("RP603", "RP604")]
    assert any("unreachable-state" in r["message"]["text"] and "new" in r["message"]["text"]
               for r in found), [r["message"]["text"] for r in results]
    for r in results:
        region = r["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["endLine"]) == (changed, changed)


def test_an_at_least_one_added_is_a_requirement_on_the_slotted_decision(
        tmp_path: Path) -> None:
    # two action slots; the erratum obliges a Crouched model to Dodge with one of them
    old = MINI.replace("  action: [melee_attack, assist_self, dodge, nothing, perceive]",
                       "  action:\n    slots: [first, second]\n"
                       "    options: [melee_attack, assist_self, dodge, nothing, perceive]")
    new = old.replace("constraints:\n", "constraints:\n  - id: crouched-dodges\n"
                      "    cite: \"The model immediately enters the Crouched State and retains"
                      " all other States.\"\n    when: Crouched\n"
                      "    at_least_one: {action: [dodge]}\n")
    rc, changes = _diff(tmp_path, old, new)
    assert rc == 1
    required = [c for c in changes if c["what"] == "required"]
    assert [(c["change"], c["event"]) for c in required] == [("possible", "action: dodge")]
    assert ["Crouched", "1"] in required[0]["where"]
    assert not [c for c in changes if c["what"] == "allowed"]   # it forbids nothing
