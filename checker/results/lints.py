"""Lints of how a spec cites its text (issue #15), as warning findings: an element that
formalizes several different sentences at once (`merged-statements`, RP416), and a rule
whose trigger does not match its sentence, "becomes" formalized as "while" or the reverse
(`trigger-wording`, RP417), and a rule about one model that exists once per model
(`one-model-rule`, RP422). No solver: they read the citations and the lowered rules."""

from __future__ import annotations

import re
from itertools import pairwise

from checker.ir import Assign, Citation, Const, Ruleset, Transition, lvars
from checker.results import Finding

LINTED = ("rules", "constraints", "facts", "modifiers")   # the kinds `restates` can link

# "becomes", "enters", "gains", "is … when" followed by a State the rule's condition reads:
# the sentence speaks of that State being gained (a State named after "becomes" that the
# rule only enters is its effect, not its trigger)
_EDGE = re.compile(r"\b(?:becomes?|becoming|enters?|entering|gains?|gaining)\b((?:\W+\w+){1,6})"
                   r"|\bis\b[^.;:]*?\bwhen\b([^.;:]*)", re.I)
_LEVEL = re.compile(r"\b(while|whilst)\b", re.I)
_WORDS = re.compile(r"[a-z0-9]+")


def lint_findings(ruleset: Ruleset) -> list[Finding]:
    """Every `merged-statements`, `trigger-wording` and `one-model-rule` warning of
    `ruleset`."""
    return [*_merged(ruleset), *_trigger_wording(ruleset), *_one_model_rules(ruleset)]


def _edge_word(quote: str, states: dict[str, str]) -> tuple[str, str]:
    """The edge word of `quote` ("becomes", ...) followed by one of `states` (lower case →
    name), and that State; ("", "") if none."""
    for m in _EDGE.finditer(quote):
        after = (m.group(1) or m.group(2) or "").lower()
        for w in _WORDS.findall(after):
            if w in states:
                return m.group(0).split()[0], states[w]
    return "", ""


def _watched(ruleset: Ruleset, rule: Transition) -> dict[str, str]:
    """What a rule's condition reads that a sentence can say it "becomes": its States (lower
    case → name) and the values of its enumerated variables (`downed` → `wound_state ==
    downed`), except a value the rule itself assigns (that is its effect, not its
    trigger)."""
    given = {(e.var, e.value.value) for e in rule.effects
             if isinstance(e, Assign) and isinstance(e.value, Const)}
    out: dict[str, str] = {}
    for n in sorted(lvars(rule.guard)):
        v = ruleset.system.var(n)
        if v.state:
            out[v.state.lower()] = v.state
        elif v.kind == "enum":
            local = n.split(".", 1)[1] if v.model and n.startswith(f"{v.model}.") else n
            for i, label in enumerate(v.labels):
                if (n, i) not in given:
                    out.setdefault(label.lower(), f"{local} == {label}")
    return out


def _lead_in_and_bullet(ruleset: Ruleset, hit: list[int]) -> bool:
    """Two sentences that are one clause: a sentence and one bullet of the list right after
    it ("… must perform a Toughness roll." and its "• Fail: The model suffers 1 Wound.").
    Two bullets of one list are two statements, and so is a lead-in with several."""
    if len(hit) != 2:
        return False
    every = ruleset.source.sentences
    first, bullet = every[hit[0]], every[hit[1]]
    if first.kind == "bullet" or bullet.kind != "bullet":
        return False
    return all(s.kind == "bullet" for s in every[hit[0] + 1:hit[1]])


# a sentence that opens with its own time or trigger ("During the End Phase", "When a model
# gains", "While", "At the start of") is a rule of its own, not a step of the one before
_OWN_TRIGGER = re.compile(r"(?:during|when|whenever|while|whilst|at the|before|each|every"
                          r"|once|in the|on the)\b", re.I)
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _one_paragraph_clause(ruleset: Ruleset, section: str, hit: list[int]) -> bool:
    """A rule's sentences that are one clause: a sentence and the sentences right after it
    in its paragraph that carry it on ("During the End Phase remove the highest value Bleed
    marker." / "The model suffers a number of wounds equal to ..." / "After this, if the
    model still has three or more Bleed markers, repeat the process, ..."; "... must take
    another Fear test ..." / "If successful ... remove all Frightened markers."). Only for a
    rule (a trigger, its effect and its repetition); every sentence from the first to the
    last cited must be a plain sentence of one paragraph (no blank line, no bullet, table row
    or heading between), and none after the first may open with a time or trigger of its
    own. Two modifiers' or constraints' sentences stay two statements."""
    if section != "rules" or len(hit) < 2:
        return False
    every = ruleset.source.sentences
    run = every[hit[0]:hit[-1] + 1]
    if any(s.kind != "sentence" for s in run):
        return False
    text = ruleset.source.text
    if any(_BLANK_LINE.search(text, a.end, b.start) for a, b in pairwise(run)):
        return False
    return not any(_OWN_TRIGGER.match(s.text) for s in run[1:])


def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORDS.findall(text.lower()))


def _merged(ruleset: Ruleset) -> list[Finding]:
    out: list[Finding] = []
    by_element: dict[str, list[Citation]] = {}
    for c in ruleset.citations:
        by_element.setdefault(c.element, []).append(c)
    sentences = [s for s in ruleset.source.sentences
                 if s.kind != "heading" and not s.text.rstrip().endswith(":")]
    for ident, element in sorted(ruleset.elements.items()):
        if element.section not in LINTED:
            continue
        cites = by_element.get(ident, [])
        hit: dict[int, Citation] = {}
        for c in cites:
            for s in sentences:
                if c.start < s.end and s.start < c.end:
                    hit.setdefault(s.index, c)
        texts = {_words(c.quote) for c in hit.values()}
        if (len(hit) < 2 or len(texts) < 2 or _lead_in_and_bullet(ruleset, sorted(hit))
                or _one_paragraph_clause(ruleset, element.section, sorted(hit))):
            continue
        quoted = sorted(hit.values(), key=lambda c: c.start)
        shown = "; ".join(f"“{c.quote}” (line {c.line})" for c in quoted)
        out.append(Finding(
            "merged-statements", (ident,), (),
            f"{element.section[:-1]} {ident!r} formalizes {len(hit)} different sentences at "
            f"once ({shown}): a difference between them vanishes; formalize each as its own "
            "element and link them with `restates`",
            detail=tuple((f"line {c.line}", c.quote) for c in quoted)))
    return out


def _trigger_wording(ruleset: Ruleset) -> list[Finding]:
    out: list[Finding] = []
    seen: set[str] = set()
    for rule in ruleset.system.rules:
        ident = rule.source
        if ident in seen or ident not in ruleset.elements:
            continue
        seen.add(ident)
        quotes = [c.quote for c in ruleset.citations if c.element == ident]
        read = _watched(ruleset, rule)
        edge = [q for q in quotes if _edge_word(q, read)[0]]
        level = [q for q in quotes if _LEVEL.search(q) and not _edge_word(q, read)[0]]
        if not rule.on and not rule.edges and edge:
            said, state = _edge_word(edge[0], read)
            what = "a State being gained" if " == " not in state else "a value being taken"
            out.append(Finding(
                "trigger-wording", (ident,), (),
                f"rule {ident!r} fires while its condition holds (level), but its sentence "
                f"says “{said}” (“{edge[0]}”): {what} is an edge; if the text "
                f"means the moment it is gained, write `on: enters {state}`",
                detail=tuple(("cites", q) for q in edge)))
        elif rule.edges and level and not edge:
            out.append(Finding(
                "trigger-wording", (ident,), (),
                f"rule {ident!r} fires when a State is gained or lost (`on: enters` / "
                f"`leaves`), but its sentence says “while” (“{level[0]}”): "
                "a condition that holds for a while is a level; write `when:` without `on:`",
                detail=tuple(("cites", q) for q in level)))
    return out


def _one_model_rules(ruleset: Ruleset) -> list[Finding]:
    """A rule with a copy per model whose copies are the same rule (each reads and writes
    only the same named model's names, `a.Engaged`, and globals): every copy fires, so the
    effect happens once per model (an `add` twice, `hp -= 1` twice), and the orders tried
    double. The sentence is about one model: `model: a`."""
    copies: dict[str, list[Transition]] = {}
    for rule in ruleset.system.rules:
        if rule.model is not None:
            copies.setdefault(rule.source, []).append(rule)
    out: list[Finding] = []
    for ident, rules in copies.items():
        if len(rules) < 2 or ident not in ruleset.elements:
            continue
        shapes = {repr((r.guard, r.effects, r.on, r.edges)).replace(r.id, "\0")
                  for r in rules}
        if len(shapes) != 1:
            continue
        named = sorted({n.split(".", 1)[0] for r in rules[:1]
                        for n in (*lvars(r.guard), *(e.var for e in r.effects))
                        if "." in n and n.split(".", 1)[0] in {x.model for x in rules}})
        whose = f"model {named[0]!r}" if len(named) == 1 else "one model"
        fix = f"model: {named[0]}" if len(named) == 1 else "model: <the model>"
        out.append(Finding(
            "one-model-rule", (ident,), (),
            f"rule {ident!r} exists once per model ({', '.join(r.id for r in rules)}), but "
            f"every copy reads and changes the same thing (it names {whose} only): each "
            "copy fires, so its effect is applied once per model; if the sentence is about "
            f"{whose}, write `{fix}`",
            detail=tuple(("copy", r.id) for r in rules)))
    return out
