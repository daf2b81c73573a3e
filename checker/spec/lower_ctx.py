"""The lowering context: name tables and diagnostics shared by the `lower_*` modules."""

from __future__ import annotations

from typing import Any

from checker.diagnostics import Diagnostic
from checker.ir import LExpr, Modifier, PathKey, Stat, Var
from checker.spec.schema import SpecDoc
from checker.spec.source import SpecTree


class Ctx:
    """Name tables and the diagnostics collected while lowering one spec."""

    def __init__(self, doc: SpecDoc, tree: SpecTree) -> None:
        self.doc = doc
        self.rule_decls = {rd.id: rd for rd in reversed(doc.rules)}   # the first of an id
        self.tree = tree
        self.diags: list[Diagnostic] = []
        self.facts_reading: set[tuple[str | None, str]] = set()   # fact(...) being lowered
        self.facts_read: dict[tuple[str | None, str, str], LExpr] = {}   # fact(...) == v
        self.models: tuple[str, ...] = tuple(doc.models)
        self.vars: dict[str, Var] = {}
        self.state_kind: dict[str, str] = {}        # State → flag | marker | valued
        self.state_values: dict[str, tuple[int, ...]] = {}
        self.global_vars: set[str] = set()
        self.model_vars: set[str] = set()
        self.inputs: set[str] = set()
        self.conditions: dict[str, str] = dict(doc.conditions)   # named conditions
        self.expanding: list[str] = []              # the named conditions being lowered
        self.broken: set[str] = set()               # named conditions with an error
        self.checking = False                       # lowering `conditions:` themselves
        self.used: set[str] = set()                 # named conditions an element uses
        self.events: dict[str, Any] = {}
        # (owner model, State) -> (prevent id, the condition under which it blocks the State)
        self.prevents: dict[tuple[str | None, str], list[tuple[str, LExpr]]] = {}
        # while a rule's effects are lowered: (prevent id, owner, State, when that prevent
        # blocks an `enter`/`add` the effect would otherwise make); None outside rules
        self.block_log: list[tuple[str, str | None, str, LExpr]] | None = None
        self.effect_conds: list[LExpr] = []          # the `if COND:` around the effect
        # per rule instance: (rule id, instance id, prevent id, State, that condition)
        self.blocked_effects: list[tuple[str, str, str, str, LExpr]] = []
        # (event id, model or None for a global event) -> conditions under which a prevent
        # blocks that event (`blocks_events`)
        self.event_blocks: dict[tuple[str, str | None], list[LExpr]] = {}
        self.stacking_none: set[str] = set()
        self.happened_needed: set[str] = set()
        self.was_needed: dict[str, LExpr] = {}     # `_was:X` → X's count (enters/leaves)
        self.had_needed: dict[str, tuple[LExpr, int]] = {}   # `_had:X` → X's count, its most
        self.emitting: list[str] = []
        self.stats: dict[str, Stat] = {}                  # set once modifiers are lowered
        self.modifiers: list[Modifier] = []
        self.stat_uses: set[tuple[str, str | None]] = set()   # stat() in the expression
        self.allow_stat = False                           # only properties may use stat()
        self.options: dict[str, list[str]] = {}          # decision → its option names
        self.attrs: dict[str, dict[str, dict[str, str]]] = {}   # decision → option → attrs
        self.slots: dict[str, list[str]] = {}            # slotted decision → its slots
        # (decision, option, attribute) the text leaves open → (the global variable that
        # fixes it for the game, its values, the decision that declares it):
        # `{charge: {complex: [false, true]}}` is the variable `complex(charge)`, named as a
        # reader says it (`complex(action=charge)` where two decisions open it for `charge`)
        self.open_attrs: dict[tuple[str, str, str], tuple[str, tuple[str, ...], str]] = {}
        opened: dict[tuple[str, str], dict[str, tuple[str, ...]]] = {}
        for base, decl in doc.decisions.items():
            opts = decl if isinstance(decl, list) else decl.options
            dims = [base] if isinstance(decl, list) else [f"{base}.{s}" for s in decl.slots]
            if not isinstance(decl, list):
                self.slots[base] = dims
            for dim in dims:
                self.options[dim], self.attrs[dim] = [], {}
                for o in opts:
                    named = {o: {}} if isinstance(o, str) else o
                    for name, attrs in named.items():
                        self.options[dim].append(name)
                        self.attrs[dim][name] = {k: _word(v) for k, v in attrs.items()
                                                 if not isinstance(v, list)}
                        for k, v in attrs.items():
                            if isinstance(v, list):
                                opened.setdefault((name, k), {})[base] = \
                                    tuple(dict.fromkeys(map(_word, v)))
        for (name, k), bases in opened.items():
            for base, values in bases.items():
                var = f"{k}({name})" if len(bases) == 1 else f"{k}({base}={name})"
                for dim in self.slots.get(base, [base]):
                    self.open_attrs[(dim, name, k)] = (var, values, base)

    def err(self, code: str, message: str, path: PathKey, fix: str | None = None) -> None:
        d = Diagnostic(code, message, self.tree.source_map.at(path), fix)
        if d not in self.diags:  # with several models, one problem is found once per model
            self.diags.append(d)

    def q(self, model: str | None, name: str) -> str:
        return f"{model}.{name}" if model else name

    def instance(self, ident: str, model: str | None) -> str:
        return f"{ident}@{model}" if model else ident

    def per_model(self) -> tuple[str | None, ...]:
        return self.models if self.models else (None,)

    def owners(self, model: str | None) -> tuple[str | None, ...]:
        """The models an element declared with `model: model` has a copy for: every model
        when it names none, else that model alone; an unknown model gives no copy (it is
        reported where the element declares it)."""
        if model is None:
            return self.per_model()
        return (model,) if model in self.models else ()

    def rule_owners(self, rule: str) -> tuple[str | None, ...]:
        """The models spec rule `rule` has a copy for (`owners` of its `model:`)."""
        decl = self.rule_decls.get(rule)
        return self.owners(decl.model if decl is not None else None)

    def known_names(self) -> list[str]:
        return [*self.state_kind, *self.model_vars, *self.global_vars, *self.inputs,
                *self.conditions,
                *(lab for v in self.vars.values() for lab in v.labels)]


def _word(value: Any) -> str:
    """An attribute value as the spec writes it (`true`, `2`, `melee`)."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)
