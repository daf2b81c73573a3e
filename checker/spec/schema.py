"""The spec file format as pydantic models: structural validation and the JSON Schema.

`parse_spec(tree)` turns a `SpecTree` into a `SpecDoc` or raises `SpecError` with every
structural problem located in the file. `json_schema()` is what `ruleproof schema` prints.
Names, expressions and quotes are checked later, by `checker.spec.lower`.
"""

from __future__ import annotations

import difflib
import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from checker.diagnostics import Diagnostic
from checker.errors import SpecError
from checker.spec.source import SpecTree


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class CiteRef(_Strict):
    """A quote with `occurrence` (1-based) for text that appears more than once."""

    quote: str
    occurrence: int | None = Field(default=None, ge=1)


Cite = str | CiteRef | list[str | CiteRef]


class MarkerDecl(_Strict):
    max: int = Field(ge=1, le=12)
    values: list[int] | None = None
    exact: bool = False    # the text fixes `max`: the scope re-check does not widen it
    cite: Cite | None = None   # the sentence that fixes `max` (required with `exact`)


class StateDecl(_Strict):
    terminal: bool = False
    init: bool | int | list[int] | None = None   # has it at the start (markers: how many)
    markers: MarkerDecl | None = None
    stacking: Literal["none", "stack"] | None = None
    model: str | None = None   # a State only one model instance has
    cite: Cite | None = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it


class VarDecl(_Strict):
    range: tuple[int, int] | None = None
    values: list[str] | None = None
    init: int | str | list[int | str] | None = None
    scope: Literal["model", "global"] = "model"
    exact: bool = False    # the text fixes `range`: the scope re-check does not widen it
    cite: Cite | None = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it

    @model_validator(mode="after")
    def _one_domain(self) -> VarDecl:
        if (self.range is None) == (self.values is None):
            raise ValueError("give exactly one of 'range' or 'values'")
        return self


InputDomain = list[str] | Literal["bool"] | VarDecl


# another element whose sentence uses the same words: this one's readings have the same
# labels and are read as that element's are (docs/spec-language.md "Readings")
ReadWith = Annotated[str | None, Field(description="another element whose sentence uses the "
                                       "same words: this one's readings have the same labels "
                                       "and are read as that element's are")]


class AdoptDecl(_Strict):
    """Which reading resolves an ambiguous sentence, and what says so: a quote of the source
    text (`cite`: an FAQ, a designer's ruling, the text's own example) or a `ruling:` note."""

    label: str
    cite: Cite | None = None
    ruling: str | None = None


class EventReading(_Strict):
    label: str | None = None
    when: str = "true"
    do: list[str] = []


class EventDecl(_Strict):
    id: str
    when: str = "true"
    do: list[str] = []
    scope: Literal["model", "global"] = "model"
    declares: dict[str, str] | None = Field(
        default=None, description="the decision options this event declares, {decision: "
        "option} (a global event of several models names the model: {a.action: dodge}); "
        "the event is enabled only where the constraints permit them")
    cite: Cite | None = None
    readings: list[EventReading] = []
    adopt: AdoptDecl | None = None
    read_with: ReadWith = None


class RuleReading(_Strict):
    label: str | None = None
    on: str | list[str] | None = None
    when: str = "true"
    do: list[str] = []
    repeat_while: str | None = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it


class RuleDecl(_Strict):
    id: str
    on: str | list[str] | None = None
    when: str = "true"
    do: list[str] | None = None       # required unless the rule has `readings`
    repeat_while: str | None = None
    tags: list[str] = []          # kinds of effect an ordering rule can name (`removal`)
    restates: str | None = None     # another statement of the same rule (table ↔ detail)
    cite: Cite | None = None
    readings: list[RuleReading] = []
    adopt: AdoptDecl | None = None
    read_with: ReadWith = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it


class PreventDecl(_Strict):
    id: str
    when: str = "true"
    blocks: list[str]
    cite: Cite | None = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it


Scalar = bool | int | str
Restriction = dict[str, list[str] | Scalar]   # {decision: [options]} or {attribute: value}
# `at_least_one`: {decision: [options]} or {decision: {attribute: value}} over a slotted
# decision's name: at least one of its slots takes one of the options
AtLeastOne = dict[str, list[str] | str | dict[str, list[Scalar] | Scalar]]


class ConstraintReading(_Strict):
    label: str | None = None
    when: str = "true"
    only: Restriction | None = None
    forbid: Restriction | None = None
    must: dict[str, str] | None = None
    at_least_one: AtLeastOne | None = None
    # a reading under which this sentence settles a clash (added to the element's own)
    overrides: list[str] = []


class ConstraintDecl(_Strict):
    id: str
    when: str = "true"
    only: Restriction | None = None
    forbid: Restriction | None = None
    must: dict[str, str] | None = None
    at_least_one: AtLeastOne | None = None
    overrides: list[str] = []
    restates: str | None = None
    cite: Cite | None = None
    readings: list[ConstraintReading] = []
    adopt: AdoptDecl | None = None
    read_with: ReadWith = None


OptionList = list[str | dict[str, dict[str, Scalar]]]   # options, `{name: {attr: value}}`


class DecisionDecl(_Strict):
    """A decision a model takes several times in one activation: one decision per slot
    (`action.first`, `action.second`), each over `options`."""

    options: OptionList
    slots: list[str] = Field(min_length=1)


class PermissionReading(_Strict):
    label: str | None = None
    when: str = "true"
    grants: dict[str, list[str | dict[str, Any]] | str] | None = None


class PermissionDecl(_Strict):
    """`may:` what the text grants: the options of `grants` while `when` holds. An item
    may be an attribute mapping (`{kind: crawl}`): one grant of every option it selects."""

    id: str
    when: str = "true"
    grants: dict[str, list[str | dict[str, Any]] | str] | None = None  # unless `readings`
    overrides: list[str] = []
    cite: Cite | None = None
    readings: list[PermissionReading] = []
    adopt: AdoptDecl | None = None
    read_with: ReadWith = None


class FactReading(_Strict):
    label: str | None = None
    when: str = "true"
    set: dict[str, str]
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it


class FactDecl(_Strict):
    id: str
    when: str = "true"
    set: dict[str, str] | None = None   # required unless the fact has `readings`
    overrides: list[str] = []
    restates: str | None = None
    cite: Cite | None = None
    readings: list[FactReading] = []
    adopt: AdoptDecl | None = None
    read_with: ReadWith = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it


class StatDecl(_Strict):
    base: int
    round: Literal["down", "up"] = "down"
    cite: Cite | None = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it


class ModifierDecl(_Strict):
    id: str
    when: str = "true"
    stat: str
    op: str = Field(description="halve | double | add N | set N | cap N | floor N")
    restates: str | None = None
    cite: Cite | None = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it


class StepDecl(_Strict):
    id: str
    if_: str = Field(default="true", alias="if")
    only: Restriction | None = None
    forbid: Restriction | None = None
    must: dict[str, str] | None = None
    at_least_one: AtLeastOne | None = None
    cite: Cite | None = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it


class ProcedureDecl(_Strict):
    id: str
    when: str = "true"
    steps: list[StepDecl]
    cite: Cite | None = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it


def _one_property_kind(decl: PropertyDecl | PropertyReading) -> None:
    given = [k for k in ("always", "never", "reachable", "terminal") if getattr(decl, k)]
    if len(given) != 1:
        raise ValueError("give exactly one of 'always', 'never', 'reachable', 'terminal'")
    if decl.after is not None and given[0] not in ("always", "never"):
        raise ValueError("'after' goes with 'always' or 'never'")


class PropertyReading(_Strict):
    label: str | None = None
    always: str | None = None
    never: str | None = None
    reachable: str | None = None
    terminal: str | None = None
    after: str | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> PropertyReading:
        _one_property_kind(self)
        return self


class PropertyDecl(_Strict):
    id: str
    always: str | None = None
    never: str | None = None
    reachable: str | None = None
    terminal: str | None = None
    after: str | None = None      # an event: the claim is about the situation right after it
    cite: Cite | None = None
    readings: list[PropertyReading] = []
    adopt: AdoptDecl | None = None
    read_with: ReadWith = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it

    @model_validator(mode="after")
    def _one_kind(self) -> PropertyDecl:
        if not self.readings:    # with readings, each reading gives the kind
            _one_property_kind(self)
        return self


class RulingDecl(_Strict):
    """A published ruling pinned as an expectation: in every reachable situation where `when`
    holds, the legal declarations are exactly `expect` (one option per decision)."""

    id: str
    when: str
    expect: dict[str, str]
    cite: Cite | None = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it


class MetaDecl(_Strict):
    id: str
    stacking: Literal["none", "stack"] | None = None
    resolves: Literal["prevent-beats-force", "active-player-orders",
                      "prohibition-beats-permission"] | None = None
    cite: Cite | None = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it


class RuleSelection(_Strict):
    """Rules named by id and/or by tag: every rule listed, and every rule with a tag listed."""

    rules: list[str] = []
    tags: list[str] = []

    @model_validator(mode="after")
    def _some(self) -> RuleSelection:
        if not self.rules and not self.tags:
            raise ValueError("name at least one rule ('rules') or tag ('tags')")
        return self


Selection = list[str] | RuleSelection


class OrderingDecl(_Strict):
    """An order the text gives to simultaneous effects: each rule of `first` resolves before
    each rule of `then`; or, with `chosen_by`, the player chooses the order of `rules` and
    `tags`. `across_models`: also between different models' copies of the rules."""

    id: str
    first: Selection | None = None
    then: Selection | None = None
    chosen_by: Literal["active-player"] | None = None
    rules: list[str] = []
    tags: list[str] = []
    across_models: bool = False
    cite: Cite
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it

    @model_validator(mode="after")
    def _one_form(self) -> OrderingDecl:
        precedence = self.first is not None or self.then is not None
        choice = self.chosen_by is not None or bool(self.rules or self.tags)
        if precedence == choice or (precedence and (self.first is None or self.then is None)):
            raise ValueError("give either 'first' and 'then', or 'chosen_by' with 'rules' "
                             "and/or 'tags'")
        if choice and (self.chosen_by is None or not (self.rules or self.tags)):
            raise ValueError("'chosen_by' needs the rules it orders: 'rules' and/or 'tags'")
        if (isinstance(self.first, list) and not self.first) or \
                (isinstance(self.then, list) and not self.then):
            raise ValueError("'first' and 'then' each name at least one rule")
        return self


class InformalDecl(_Strict):
    cite: Cite
    reason: str


class UndefinedDecl(_Strict):
    name: str
    cite: Cite


class SpecDoc(_Strict):
    """One ruleset. See docs/spec-language.md for every field with an example."""

    schema_: str | None = Field(default=None, alias="$schema")
    ruleset: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    title: str = ""
    source: str
    models: list[str] = []
    phases: list[str] = []
    res_bound: int = Field(default=0, ge=0, le=200)
    meta: list[MetaDecl] = []
    vars: dict[str, VarDecl] = {}
    inputs: dict[str, InputDomain] = {}
    states: dict[str, StateDecl] = {}
    events: list[EventDecl] = []
    rules: list[RuleDecl] = []
    ordering: list[OrderingDecl] = []
    prevents: list[PreventDecl] = []
    decisions: dict[str, OptionList | DecisionDecl] = {}
    constraints: list[ConstraintDecl] = []
    may: list[PermissionDecl] = []
    facts: list[FactDecl] = []
    stats: dict[str, StatDecl] = {}
    modifiers: list[ModifierDecl] = []
    procedures: list[ProcedureDecl] = []
    properties: list[PropertyDecl] = []
    rulings: list[RulingDecl] = []
    informal: list[InformalDecl] = []
    undefined: list[UndefinedDecl] = []
    not_a_term: list[str] = Field(default=[], alias="not-a-term")


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
                                      f"{section}.{i}", tree.source_map.at((section, i))))
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
    where = ".".join(str(p) for p in loc) or "the file"
    name = str(loc[-1]) if loc else ""
    code, template = _MESSAGES.get(err["type"], ("RP201", ""))
    fix = None
    if template:
        message = template.format(name=name) + f" in {'.'.join(map(str, loc[:-1])) or 'the spec'}"
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
    else:
        value = err.get("input")
        shown = repr(value) if not isinstance(value, dict | list) else type(value).__name__
        message = f"{where}: {err['msg'].lower()} (got {shown[:80]})"
    path = loc if err["type"] != "extra_forbidden" else (*loc, "<key>")
    return Diagnostic(code, message, tree.source_map.at(path), fix)


# the element each list section of a spec holds (for messages about its readings)
_SECTIONS: dict[str, type[_Strict]] = {
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


def json_schema() -> str:
    schema = SpecDoc.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "ruleproof spec"
    return json.dumps(schema, indent=2, sort_keys=True)
