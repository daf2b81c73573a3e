"""What a rules writer can do about each kind of finding: the decision the text must make,
a suggested errata sentence, and the spec-side options with their docs sections.

One table keyed by finding kind (`checker.diagnostics._FINDINGS`), with a default for any
kind not listed, so that a new kind gets sensible advice until it is given its own; and the
impact tier that orders the "What needs attention" list.
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.diagnostics import FINDINGS, Severity

SPEC_DOCS = "docs/spec-language.md"
ORDERING = ("an ordering rule", "ordering:", f"{SPEC_DOCS}#ordering-rules")
OVERRIDES = ("mark the rule that wins", "overrides:", f"{SPEC_DOCS}#decisions-and-constraints")
PREVENT_OVERRIDES = ("mark the rules the prevent beats, citing the sentence that says so",
                     "overrides:", f"{SPEC_DOCS}#prevents-immunities")
ADOPT = ("adopt one reading", "adopt:", "docs/formalizing.md"
         "#5-every-phrase-with-two-readings-gets-both")
BASELINE = ("accept it as intended (player choice)", "ruleproof baseline",
            "docs/ci.md#errata-workflow")
UNDEFINED = ("list the term as undefined", "undefined:", f"{SPEC_DOCS}#informal-and-undefined")
PROPERTY = ("fix the property or the rules it is about", "properties:",
            f"{SPEC_DOCS}#properties")


@dataclass(frozen=True)
class Advice:
    decision: str                          # what the text must decide, in words
    errata: str                            # a suggested sentence for the rulebook
    options: tuple[tuple[str, str, str], ...]   # (what, spec field, docs link)


_ADVICE: dict[str, Advice] = {
    "order-dependence": Advice(
        "The text must say which happens first.",
        "“When {a} and {b} apply at the same moment, resolve {a} first.”",
        (ORDERING, BASELINE)),
    "ambiguity": Advice(
        "The text must say which reading is meant.",
        "Reword the sentence so that only one reading is possible, e.g. “{a} applies only "
        "when …”.",
        (ADOPT, BASELINE)),
    "fact-contradiction": Advice(
        "The text must say which of the two rules wins when both apply.",
        "“While {a} applies, it takes precedence over {b}.”",
        (OVERRIDES, BASELINE)),
    "forbidden-obligation": Advice(
        "The text must say whether the “must” or the “cannot” wins.",
        "“If a rule says a model must do something that another rule says it cannot do, "
        "the ‘cannot’ wins; the model does what it can of the rest.”",
        (OVERRIDES, BASELINE)),
    "no-legal-action": Advice(
        "The text must give the model something it may do here.",
        "“A model that has no legal action may always declare Nothing.”",
        (OVERRIDES, BASELINE)),
    "deadlock": Advice(
        "The text must say how play goes on from this situation.",
        "“If no model can act, the phase ends.”",
        (OVERRIDES, BASELINE)),
    "unusable-permission": Advice(
        "The text must say when this permission can actually be used.",
        "“{a} may be used even while {b} applies.”",
        (OVERRIDES, BASELINE)),
    "inconsistent-restatement": Advice(
        "The two places that state this rule must say the same thing.",
        "Make the summary and the detailed rule agree (change whichever is wrong).",
        (ADOPT, BASELINE)),
    "scope-sensitive": Advice(
        "The result holds only for the sizes checked: the text must bound the value, or "
        "the spec must widen the range.",
        "“{a} can never exceed N.”",
        (BASELINE,)),
    "non-termination": Advice(
        "The text must say when this chain of effects stops.",
        "“Each effect triggers at most once per resolution.”",
        (ORDERING, BASELINE)),
    "blocked-effect": Advice(
        "The rule says the model enters the State; the prevent says it cannot. The text "
        "must say which wins.",
        "“Where {a} and {b} meet, the model does not enter the State.”",
        (PREVENT_OVERRIDES, BASELINE)),
    "dead-rule": Advice(
        "Either the rule's condition can never hold, or the spec formalizes it too narrowly.",
        "Check the condition of {a}: when does it apply?",
        (BASELINE,)),
    "dead-ordering-rule": Advice(
        "This ordering rule orders nothing: the rules it names never resolve together.",
        "Check which effects the sentence means to order.",
        (ORDERING, BASELINE)),
    "unreachable-state": Advice(
        "Nothing in the text puts a model in this State.",
        "Add the rule that enters it, or drop the State.",
        (BASELINE,)),
    "undefined-reference": Advice(
        "The text uses a term it never defines.",
        "Define the term, or point to where it is defined.",
        (UNDEFINED, BASELINE)),
    "vacuous-property": Advice(
        "The promise can never apply: its situation never arises.",
        "Check the situation the sentence describes.",
        (PROPERTY,)),
}

_DEFAULT = Advice("The text must settle this case.",
                  "Add a sentence that says what happens here.", (BASELINE,))

# impact tiers, most severe first (the order of "What needs attention")
TIERS = ("game-breaking", "contradiction", "no-legal-action", "restatement", "warning")
TIER_LABELS = {
    "game-breaking": "Game-breaking",
    "contradiction": "Contradiction",
    "no-legal-action": "No legal action",
    "restatement": "Restatement differs",
    "warning": "Warning",
}
_TIER_OF_KIND = {
    "order-dependence": "game-breaking", "ambiguity": "game-breaking",
    "scope-sensitive": "game-breaking", "non-termination": "game-breaking",
    "fact-contradiction": "contradiction", "forbidden-obligation": "contradiction",
    "unusable-permission": "contradiction",
    "no-legal-action": "no-legal-action", "deadlock": "no-legal-action",
    "inconsistent-restatement": "restatement",
}


def advice(kind: str) -> Advice:
    """The advice of `kind` (a sensible default for a kind without its own)."""
    return _ADVICE.get(kind, _DEFAULT)


def errata(kind: str, a: str, b: str) -> str:
    """The suggested errata sentence of `kind`, with the two element titles filled in."""
    return advice(kind).errata.replace("{a}", a).replace("{b}", b or a)


def tier(kind: str, *, terminal: bool = False) -> str:
    """The impact tier of a finding of `kind`; `terminal`: it involves a terminal State
    (a model's survival), which makes any error game-breaking."""
    code = FINDINGS.get(kind)
    if code is not None and code.severity is not Severity.ERROR:
        return "warning"
    named = _TIER_OF_KIND.get(kind)
    if terminal and named in (None, "contradiction", "no-legal-action"):
        return "game-breaking"
    if named is not None:
        return named
    return "contradiction" if code is None or code.severity is Severity.ERROR else "warning"
