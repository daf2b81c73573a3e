"""The spec file format as pydantic models and the JSON Schema.

`checker.spec.parse.parse_spec(tree)` validates a `SpecTree` against these models.
`json_schema()` is what `ruleproof schema` prints. Names, expressions and quotes are checked
later, by `checker.spec.lower`.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


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


ConditionName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
                                      description="a name expressions use, as a State's")]
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
    model: str | None = Field(
        default=None, description="the one model the sentence is about (\"the enemy "
        "model\", a rule written with `a.` names only): the rule exists for that model "
        "alone, not once per model")
    cite: Cite | None = None
    readings: list[RuleReading] = []
    adopt: AdoptDecl | None = None
    read_with: ReadWith = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it


class PreventDecl(_Strict):
    id: str
    when: str = "true"
    blocks: list[str] = []
    blocks_events: list[str] = Field(
        default=[], description="events that cannot happen while `when` holds (\"cannot "
        "be moved\", \"cannot regain HP\"): what is done to the model, not declared by it")
    scope: Literal["model", "global"] = "model"
    overrides: list[str] = Field(
        default=[], description="rules whose `enter`/`add` the text says this prevent "
        "beats: their `blocked-effect` findings are resolved (cite the sentence that says so)")
    cite: Cite | None = None
    title: str | None = Field(default=None, max_length=120)   # the name a report gives it

    @model_validator(mode="after")
    def _blocks_something(self) -> PreventDecl:
        if not self.blocks and not self.blocks_events:
            raise ValueError("give 'blocks' (States it cannot gain) or 'blocks_events' "
                             "(events that cannot happen to it), or both")
        if self.scope == "global" and self.blocks:
            raise ValueError("a global prevent blocks events only ('blocks_events'); "
                             "'blocks' (States) needs a model prevent")
        return self


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


# options, `{name: {attr: value}}`; a list of values where the text leaves the option's
# attribute open (`{charge: {complex: [false, true]}}`: one of them, fixed for the game)
OptionList = list[str | dict[str, dict[str, Scalar | list[Scalar]]]]


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


class BaseRange(_Strict):
    """A base the text does not give: every integer from `range[0]` to `range[1]`."""

    range: tuple[int, int]


MAX_BASES = 64   # bases per stat: each is checked with every order of its modifiers


class StatDecl(_Strict):
    # a number, or {range: [lo, hi]} where the text gives none
    base: int | BaseRange
    # how halves round; [down, up] where the text does not say (both are checked)
    round: Literal["down", "up"] | Annotated[list[Literal["down", "up"]],
                                             Field(min_length=1)] = "down"

    @model_validator(mode="before")
    @classmethod
    def _base(cls, data: Any) -> Any:
        """One message for a base that is neither a number nor a range of at most
        MAX_BASES values, or a list of roundings that is not one (a union's errors would
        say less)."""
        rounding = data.get("round") if isinstance(data, dict) else None
        if isinstance(rounding, list) and not (rounding and set(rounding) <= {"down", "up"}):
            raise ValueError("'round' is down, up, or [down, up] where the text does not say")
        base = data.get("base") if isinstance(data, dict) else None
        if base is None or isinstance(base, int):
            return data
        span = base.get("range") if isinstance(base, dict) and len(base) == 1 else None
        if not (isinstance(span, list) and len(span) == 2
                and all(isinstance(x, int) for x in span) and 0 <= span[1] - span[0] < MAX_BASES):
            raise ValueError(f"'base' is a number, or {{range: [lowest, highest]}} where the "
                             f"text gives none (at most {MAX_BASES} values)")
        return data
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
    # named conditions: a name for a condition the text writes as one word ("Enemy"),
    # usable wherever a condition is (docs/spec-language.md "Named conditions")
    conditions: dict[ConditionName, str] = {}
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


def json_schema() -> str:
    schema = SpecDoc.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "ruleproof spec"
    return json.dumps(schema, indent=2, sort_keys=True)
