"""Structural validation of a spec file: `parse_spec(tree)` turns a `SpecTree` into a
`SpecDoc` (checker.spec.schema) or raises `SpecError` with every structural problem located
in the file, each with a fix where one can be said."""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import BaseModel, ValidationError

from checker.diagnostics import Diagnostic
from checker.errors import SpecError
from checker.spec.schema import (
    AdoptDecl,
    CiteRef,
    ConstraintDecl,
    ConstraintReading,
    DecisionDecl,
    EventDecl,
    EventReading,
    FactDecl,
    FactReading,
    InformalDecl,
    MarkerDecl,
    MetaDecl,
    ModifierDecl,
    OrderingDecl,
    PermissionDecl,
    PermissionReading,
    PreventDecl,
    ProcedureDecl,
    PropertyDecl,
    PropertyReading,
    RuleDecl,
    RuleReading,
    RuleSelection,
    RulingDecl,
    SpecDoc,
    StatDecl,
    StateDecl,
    StepDecl,
    UndefinedDecl,
    VarDecl,
)
from checker.spec.source import SpecTree

_MESSAGES = {
    "extra_forbidden": ("RP202", "unknown field {name!r}"),
    "missing": ("RP209", "missing required field {name!r}"),
}


def parse_spec(tree: SpecTree) -> SpecDoc:
    """Validate the structure of `tree`; every problem becomes a located diagnostic."""
    if not isinstance(tree.data, dict):
        found = type(tree.data).__name__ if tree.data is not None else "an empty file"
        raise SpecError([Diagnostic("RP201", f"a spec file must be a mapping with 'ruleset', "
                                    f"'source', ...; found {found}", tree.source_map.at(()))])
    missing = _missing_formal(tree)
    try:
        doc = SpecDoc.model_validate(tree.data)
    except ValidationError as exc:
        diags = _diagnostics(exc, tree)
        raise SpecError(diags + [d for d in missing if d not in diags]) from None
    if missing:
        raise SpecError(missing)
    return doc


# fields an element must give itself unless its `readings` give them
_REQUIRED_UNLESS_READINGS = {"rules": "do", "facts": "set", "may": "grants"}


def _missing_formal(tree: SpecTree) -> list[Diagnostic]:
    out = []
    for section, name in _REQUIRED_UNLESS_READINGS.items():
        items = tree.data.get(section)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            if isinstance(item, dict) and name not in item and "readings" not in item:
                out.append(Diagnostic("RP209", f"missing required field {name!r} in "
                                      f"{_element((section, i), tree)}",
                                      tree.source_map.at((section, i))))
    return out


def _diagnostics(exc: ValidationError, tree: SpecTree) -> list[Diagnostic]:
    """One diagnostic per spec element: for fields that accept several shapes (a `cite`
    string or mapping), the error that got furthest into the value is the informative one."""
    best: dict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = {}
    order: list[tuple[Any, ...]] = []
    for err in exc.errors():
        loc = tuple(p for p in err["loc"] if not _is_union_tag(p))
        key = loc[:2]
        if key not in best:
            order.append(key)
            best[key] = (loc, err)
        elif len(loc) > len(best[key][0]):
            best[key] = (loc, err)
    return [_diagnostic(loc, err, tree) for loc, err in (best[k] for k in order)]


def _diagnostic(loc: tuple[Any, ...], err: Any, tree: SpecTree) -> Diagnostic:
    name = str(loc[-1]) if loc else ""
    code, template = _MESSAGES.get(err["type"], ("RP201", ""))
    fix = None
    if template:
        message = template.format(name=name) + f" in {_element(loc[:-1], tree)}"
        if err["type"] == "extra_forbidden" and name in _field_names():
            owner = _SECTIONS.get(str(loc[0])) if len(loc) > 3 else None
            on_element = ("readings" in map(str, loc) and owner is not None
                          and name in owner.model_fields)
            fix = (f"{name!r} is a field of other elements, not of this one"
                   + (": a reading gives only the fields that differ between readings; "
                      "give it on the element" if on_element else ""))
        elif err["type"] == "extra_forbidden":
            close = difflib.get_close_matches(name, sorted(_field_names()), n=1, cutoff=0.6)
            fix = f"did you mean {close[0]!r}?" if close else None
        elif name == "cite":
            fix = "add 'cite:' with the sentence of the text this formalizes"
    elif err["type"] == "string_pattern_mismatch" and loc[:1] in _PATTERNS:
        what, fix = _PATTERNS[loc[:1]]
        message = what.format(name=name, value=err.get("input"))
    else:
        value = err.get("input")
        shown = (repr(value)[:80] if not isinstance(value, dict | list)
                 else "a mapping" if isinstance(value, dict) else "a list")
        message = (f"{_element(loc, tree)}: {_should(err)}" if err["type"] == "value_error"
                   else f"{_element(loc, tree)} {_should(err)} (got {shown})")
        if err["type"] == "list_type" and isinstance(value, str | int):
            fix = f"write {name}: [{value}]"
    path = loc if err["type"] != "extra_forbidden" else (*loc, "<key>")
    return Diagnostic(code, message, tree.source_map.at(path), fix)


# what a section's entries are called in a message (`rules.3.do` → "rule 'x': 'do'")
_NOUNS = {"states": "State", "vars": "variable", "inputs": "input", "stats": "stat",
          "decisions": "decision", "conditions": "named condition", "events": "event",
          "rules": "rule", "constraints": "constraint", "may": "permission", "facts": "fact",
          "modifiers": "modifier", "prevents": "prevent", "procedures": "procedure",
          "properties": "property", "ordering": "ordering rule", "rulings": "ruling",
          "meta": "meta entry", "informal": "informal entry", "undefined": "undefined term"}


def _element(loc: tuple[Any, ...], tree: SpecTree) -> str:
    """Where a value is, in the spec's words: "State 'Dead': 'terminal'", "rule
    'crouched-cancels-flying': 'do'", "rule 2: 'id'", "'res_bound'"."""
    if not loc:
        return "the spec"
    section, rest = str(loc[0]), loc[1:]
    noun = _NOUNS.get(section)
    if noun is None or not rest:
        return "'" + ".".join(map(str, loc)) + "'"
    key = rest[0]
    if isinstance(key, int):
        items = tree.data.get(section) if isinstance(tree.data, dict) else None
        item = items[key] if isinstance(items, list) and key < len(items) else None
        ident = item.get("id") if isinstance(item, dict) else None
        head = f"{noun} {ident!r}" if isinstance(ident, str) else f"{noun} {key + 1}"
    else:
        head = f"{noun} {key!r}"
    field = ".".join(map(str, rest[1:]))
    return f"{head}: '{field}'" if field else head


def _should(err: Any) -> str:
    """What the value must be, in words, for pydantic's error `err`."""
    kind, ctx = err["type"], err.get("ctx") or {}
    said = {
        "list_type": "must be a list, written [a, b]",
        "bool_type": "must be true or false", "bool_parsing": "must be true or false",
        "int_type": "must be a whole number", "int_parsing": "must be a whole number",
        "int_from_float": "must be a whole number",
        "string_type": "must be text (quoted if it could be read as a number or a list)",
        "dict_type": "must be a mapping of fields (key: value; {} for none)",
        "model_type": "must be a mapping of fields (key: value; {} for none)",
        "model_attributes_type": "must be a mapping of fields (key: value; {} for none)",
    }
    if kind in said:
        return said[kind]
    if kind in ("less_than_equal", "less_than", "greater_than_equal", "greater_than"):
        bound = {"less_than_equal": ("at most", "le"), "less_than": ("less than", "lt"),
                 "greater_than_equal": ("at least", "ge"),
                 "greater_than": ("more than", "gt")}[kind]
        return f"must be {bound[0]} {ctx.get(bound[1])}"
    if kind == "too_short":
        return f"must have at least {ctx.get('min_length')} item(s)"
    if kind == "too_long":
        return f"must have at most {ctx.get('max_length')} item(s)"
    if kind in ("literal_error", "enum"):
        return f"must be {ctx.get('expected')}"
    if kind == "value_error":
        return str(err["msg"]).removeprefix("Value error, ")
    return str(err["msg"]).lower()


# a value that does not match its field's pattern, said in words (the first part of its
# location → the message, with `{name}` the key and `{value}` the value, and the fix)
_PATTERNS: dict[tuple[Any, ...], tuple[str, str]] = {
    ("conditions",): ("the named condition {name!r} is not a name an expression can use",
                      "use letters, digits and '_', starting with a letter (same_warband)"),
    ("ruleset",): ("ruleset: {value!r} cannot be a ruleset id (ids name the ruleset in "
                   "reports, baselines and file names)",
                   "use lower-case letters, digits, '-' and '_', starting with a letter "
                   "(eldfall)"),
}


# the element each list section of a spec holds (for messages about its readings)
_SECTIONS: dict[str, type[BaseModel]] = {
    "events": EventDecl, "rules": RuleDecl, "constraints": ConstraintDecl, "may": PermissionDecl,
    "facts": FactDecl, "properties": PropertyDecl}


def _field_names() -> set[str]:
    names: set[str] = set()
    for model in (SpecDoc, CiteRef, MarkerDecl, StateDecl, VarDecl, EventDecl, RuleDecl,
                  PreventDecl, ConstraintDecl, DecisionDecl, PermissionDecl, FactDecl, StatDecl,
                  ModifierDecl, StepDecl, ProcedureDecl, PropertyDecl, RulingDecl, MetaDecl,
                  InformalDecl, UndefinedDecl, RuleSelection, OrderingDecl, AdoptDecl,
                  EventReading, RuleReading, ConstraintReading, FactReading, PropertyReading,
                  PermissionReading):
        for fname, f in model.model_fields.items():
            names.add(f.alias or fname)
    return names


def _is_union_tag(part: Any) -> bool:
    return isinstance(part, str) and ("[" in part or part in {"str", "int", "list", "bool"}
                                      or part.endswith(("Decl", "Reading"))
                                      or part in ("CiteRef", "RuleSelection"))
