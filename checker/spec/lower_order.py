"""Lowering ordering rules (`ordering:`): the orders a text gives to simultaneous effects,
as IR `Precedence` and `OrderChoice` over rule copies.

An entry `{first: A, then: B}` puts each rule of A before each rule of B, for the copies of
the same model (`across_models: true`: for every pair of copies); `{chosen_by:
active-player, rules/tags: C}` lets the player order C. Rules are named by id or by tag.
Checked here: unknown rules and tags (RP203), a rule ordered before itself or two entries
that order one pair both ways, or order a pair the player chooses (RP212), and longer cycles
of orders (RP210).
"""

from __future__ import annotations

from collections.abc import Iterator

from checker.ir import OrderChoice, PathKey, Precedence
from checker.spec.lower_ctx import Ctx
from checker.spec.lower_expr import did_you_mean
from checker.spec.schema import CiteRef, OrderingDecl, Selection

Edge = tuple[str, str]        # (first, then): spec rule ids
MAX_CYCLES = 10               # cycles reported per spec (each names its orders)


def lower_ordering(ctx: Ctx) -> tuple[tuple[Precedence, ...], tuple[OrderChoice, ...]]:
    """The ordering entries of the spec as `Precedence`s and `OrderChoice`s (transition ids),
    with every problem reported in `ctx`."""
    tags = _tags(ctx)
    edges: dict[Edge, int] = {}          # each ordered pair → the first entry that orders it
    chosen: dict[frozenset[str], int] = {}
    precedence: list[Precedence] = []
    choices: list[OrderChoice] = []
    for i, od in enumerate(ctx.doc.ordering):
        path: PathKey = ("ordering", i)
        if od.chosen_by is not None:
            rules = _select(ctx, tags, od.rules, od.tags, path)
            for a in rules:
                for b in rules:
                    if a < b:
                        chosen.setdefault(frozenset((a, b)), i)
            choices += _choices(ctx, od, rules)
            continue
        assert od.first is not None and od.then is not None   # the schema guarantees both
        first = _selection(ctx, tags, od.first, (*path, "first"))
        then = _selection(ctx, tags, od.then, (*path, "then"))
        for a in first:
            for b in then:
                if a == b:
                    ctx.err("RP212", f"ordering {od.id!r} puts rule {a!r} before itself (it is "
                            "in both 'first' and 'then')", path,
                            "a rule cannot resolve before itself: take it out of one side")
                    continue
                edges.setdefault((a, b), i)
                pairs = list(_pairs(ctx, od, a, b))
                if not pairs and ctx.rule_owners(a) and ctx.rule_owners(b):
                    ctx.err("RP212", f"ordering {od.id!r} puts rule {a!r} (model "
                            f"{_owner(ctx, a)}) before {b!r} (model {_owner(ctx, b)}): they "
                            "have no copies of the same model, so it orders nothing", path,
                            "if the text orders them across models, add 'across_models: "
                            "true'")
                precedence += pairs
    _contradictions(ctx, edges, chosen)
    _cycles(ctx, edges)
    return tuple(precedence), tuple(choices)


# ============================================================================ naming rules

def _tags(ctx: Ctx) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for rd in ctx.doc.rules:
        for t in rd.tags:
            if rd.id not in out.setdefault(t, []):
                out[t].append(rd.id)
    return out


def _selection(ctx: Ctx, tags: dict[str, list[str]], sel: Selection,
               path: PathKey) -> list[str]:
    if isinstance(sel, list):
        return _select(ctx, tags, sel, [], path, flat=True)
    return _select(ctx, tags, sel.rules, sel.tags, path)


def _select(ctx: Ctx, tags: dict[str, list[str]], rules: list[str], tagged: list[str],
            path: PathKey, flat: bool = False) -> list[str]:
    """The spec rule ids named by `rules` and `tagged`, in spec order, each once."""
    known = [rd.id for rd in ctx.doc.rules]
    where = str(path[-1]) if path[-1] in ("first", "then") else "rules"
    named: set[str] = set()
    for k, r in enumerate(rules):
        if r in known:
            named.add(r)
            continue
        at = (*path, k) if flat else (*path, "rules", k)
        ctx.err("RP203", f"unknown rule {r!r} in '{where}'", at,
                did_you_mean(r, known))
    for k, t in enumerate(tagged):
        if t in tags:
            named.update(tags[t])
            continue
        side = where if where in ("first", "then") else "tags"
        ctx.err("RP203", f"unknown tag {t!r} in '{side}': no rule has it", (*path, "tags", k),
                did_you_mean(t, sorted(tags)) or "add it to the 'tags' of the rules it means")
    return [r for r in known if r in named]


# ============================================================================ the IR

def _pairs(ctx: Ctx, od: OrderingDecl, a: str, b: str) -> Iterator[Precedence]:
    """`a` before `b` for each model's copies (every pair of copies `across_models`)."""
    has_a, has_b = ctx.rule_owners(a), ctx.rule_owners(b)   # (a rule of one model: its copy)
    for m in ctx.per_model():
        for n in (ctx.per_model() if od.across_models else (m,)):
            if m in has_a and n in has_b:
                yield Precedence(ctx.instance(a, m), ctx.instance(b, n), od.id)


def _owner(ctx: Ctx, rule: str) -> str:
    """The models a rule has copies for, for a message ("'a'", "'a', 'b'")."""
    return ", ".join(repr(m) for m in ctx.rule_owners(rule))


def _choices(ctx: Ctx, od: OrderingDecl, rules: list[str]) -> list[OrderChoice]:
    """One choice per model (one over every model's copies `across_models`)."""
    if od.across_models:
        return [OrderChoice(tuple(ctx.instance(r, m) for m in ctx.per_model() for r in rules
                                  if m in ctx.rule_owners(r)), od.id)]
    return [OrderChoice(tuple(ctx.instance(r, m) for r in rules if m in ctx.rule_owners(r)),
                        od.id) for m in ctx.per_model()]


# ============================================================================ consistency

def _quote(od: OrderingDecl) -> str:
    cite = od.cite[0] if isinstance(od.cite, list) and od.cite else od.cite
    text = cite.quote if isinstance(cite, CiteRef) else str(cite) if cite else ""
    return text if len(text) <= 100 else text[:97] + "..."


def _contradictions(ctx: Ctx, edges: dict[Edge, int], chosen: dict[frozenset[str], int]
                    ) -> None:
    entries = ctx.doc.ordering
    for (a, b), i in sorted(edges.items(), key=lambda kv: kv[1]):
        j = edges.get((b, a))
        if j is not None and (j > i or (j == i and a < b)):
            x, y = entries[i], entries[j]
            ctx.err("RP212", f"ordering {y.id!r} puts rule {b!r} before {a!r} "
                    f"({_quote(y)!r}), but {x.id!r} puts {a!r} before {b!r} "
                    f"({_quote(x)!r})", ("ordering", j),
                    "keep the order the text gives, or cite the ruling that settles it")
        k = chosen.get(frozenset((a, b)))
        if k is not None:
            x, c = entries[i], entries[k]
            ctx.err("RP212", f"ordering {x.id!r} puts rule {a!r} before {b!r} "
                    f"({_quote(x)!r}), but {c.id!r} lets the active player choose their order "
                    f"({_quote(c)!r})", ("ordering", max(i, k)),
                    "keep the one the text says for these two rules")


def _cycles(ctx: Ctx, edges: dict[Edge, int]) -> None:
    """Each cycle of three or more rules, once (two-rule cycles are contradictions)."""
    succ: dict[str, list[str]] = {}
    for a, b in edges:
        if (b, a) not in edges:
            succ.setdefault(a, []).append(b)
    seen: set[tuple[str, ...]] = set()
    for start in sorted(succ):
        for cycle in _cycles_from(start, succ):
            key = _canonical(cycle)
            if len(seen) >= MAX_CYCLES:
                return
            if key in seen:
                continue
            seen.add(key)
            hops = list(zip(key, (*key[1:], key[0]), strict=True))
            at = max(edges[h] for h in hops)
            shown = " → ".join((*key, key[0]))
            which = ", ".join(f"{ctx.doc.ordering[edges[h]].id!r} puts {h[0]!r} before "
                              f"{h[1]!r}" for h in hops)
            ctx.err("RP210", f"ordering rules put rules in a cycle: {shown} ({which})",
                    ("ordering", at), "drop or reverse one of these orders: the text cannot "
                    "mean all of them")


def _cycles_from(start: str, succ: dict[str, list[str]]) -> Iterator[tuple[str, ...]]:
    """Simple cycles through `start` whose other rules sort after it (each cycle once)."""
    stack: list[tuple[str, tuple[str, ...]]] = [(start, (start,))]
    while stack:
        node, path = stack.pop()
        for nxt in sorted(succ.get(node, [])):
            if nxt == start and len(path) > 2:
                yield path
            elif nxt > start and nxt not in path:
                stack.append((nxt, (*path, nxt)))


def _canonical(cycle: tuple[str, ...]) -> tuple[str, ...]:
    k = cycle.index(min(cycle))
    return (*cycle[k:], *cycle[:k])
