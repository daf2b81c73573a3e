"""Root causes: the findings that share one cause, told as one card (`CauseView`).

Findings share a cause when they name the same rules (the same clash for every model
instance, or the same rules under two kinds), or when they are a family of obligations ×
prohibitions that one precedence sentence would settle (one matrix card). The findings
underneath are kept one by one (fingerprints, baselines, SARIF and JSON do not change).
Headlines speak the rulebook's words: element titles (the spec's `title:`, or the heading
the cited sentence is under), States and events, never variable dumps.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from checker.ir import Ruleset
from checker.report import advice
from checker.report.data.views import (
    CauseView,
    FindingView,
    MatrixView,
    QuoteView,
    SideView,
    TraceView,
    Where,
)

MIN_MATRIX = 4            # forbidden-obligation causes that make a family one matrix card
STORY_STEPS = 4           # steps of a trace told on the card (the rest: in the trace table)


@dataclass(frozen=True)
class Context:
    """What the causes are built from: the ruleset and the builder's lookups."""

    ruleset: Ruleset
    quotes: Callable[[str], tuple[QuoteView, ...]]
    rule_anchor: Callable[[str], str | None]
    element_where: Callable[[str], Where]
    terminal: frozenset[str]            # terminal States (a model's survival)


# ============================================================================ titles

def _humanize(ident: str) -> str:
    words = re.sub(r"^[a-z]+:", "", ident).replace("-", " ").replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def heading_of(ruleset: Ruleset, line: int) -> str:
    """The nearest rulebook heading at or above `line` ("" when none)."""
    best = ""
    for s in ruleset.source.sentences:
        if s.line > line:
            break
        if s.kind == "heading":
            best = s.text.strip().strip("=#").strip().rstrip(":").strip()   # "Recovery:"
    return best


def _short(quote: str, words: int = 6) -> str:
    parts = quote.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def comment_of(ruleset: Ruleset, line: int) -> str:
    """The YAML comments on the spec element starting at `line`: the comment lines right
    above it and the comments inside its block."""
    lines = ruleset.spec_text.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    above: list[str] = []
    k = line - 2
    while k >= 0 and lines[k].strip().startswith("#"):
        above.insert(0, lines[k].strip().lstrip("#").strip())
        k -= 1
    first = lines[line - 1]
    indent = len(first) - len(first.lstrip(" -"))
    inside: list[str] = []
    for k, text in enumerate(lines[line - 1:], start=line):
        body = text.strip()
        if k > line and body and (len(text) - len(text.lstrip(" -")) < indent
                                  or (text.lstrip().startswith("- ") and
                                  len(text) - len(text.lstrip()) <= indent - 2)):
            break
        if "#" in text and not body.startswith("#"):
            at = text.find(" #")
            if at >= 0 and text[:at].count('"') % 2 == 0 and text[:at].count("'") % 2 == 0:
                inside.append(text[at + 2:].strip())
        elif body.startswith("#") and k > line:
            inside.append(body.lstrip("#").strip())
    said = [re.sub(r"[-=#*_~]{3,}", "", c).strip() for c in above + inside]   # no rulers
    said = [c for c in said if re.search(r"\w", c)]
    return " ".join(c for c in said if not c.startswith("yaml-language"))


def side(ctx: Context, element: str) -> SideView:
    el = ctx.ruleset.elements.get(element)
    quotes = ctx.quotes(element)
    q = quotes[0] if quotes else None
    heading = heading_of(ctx.ruleset, q.line) if q else ""
    row = _row_name(ctx.ruleset, q.quote, q.line) if q else ""
    if el is not None and el.title:
        title = el.title
    elif row:
        title = row
    elif heading and q is not None and _norm(heading) != _norm(q.quote):
        title = heading
    elif q is not None:
        title = _short(q.quote)
    else:
        title = _humanize(element)
    where = ctx.element_where(element)
    return SideView(element, title, heading, q.quote if q else "", q.line if q else None,
                    ctx.rule_anchor(element), comment_of(ctx.ruleset, where.line), where)


def _row_name(ruleset: Ruleset, quote: str, line: int) -> str:
    """The first cell of the table row `quote` is in ("" when it is not in a row)."""
    for s in ruleset.source.sentences:
        if s.line == line and s.kind == "row":
            return s.text.split("\t", 1)[0].strip()
    return ""


def event_title(ruleset: Ruleset, event: str) -> str:
    """An event instance in words: its `title:`, or its id as words ("Become shrouded")."""
    element, _, model = event.partition("@")
    el = ruleset.elements.get(element)
    words = el.title if el is not None and el.title else _humanize(element)
    return f"{words} ({model})" if model else words


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text).strip().lower()


def _distinct(ruleset: Ruleset, sides: list[SideView]) -> list[SideView]:
    """Sides whose titles collide are told apart by the States their quotes name (or, when
    they name none, by a few words of the quote)."""
    seen: dict[str, int] = {}
    for s in sides:
        seen[s.title] = seen.get(s.title, 0) + 1
    names = {v.state for v in ruleset.system.vars if v.state}
    out = []
    for s in sides:
        if seen[s.title] > 1 and s.quote:
            words = set(re.findall(r"[A-Z][a-z]+", s.title))
            named = [w for w in dict.fromkeys(re.findall(r"[A-Z][a-z]+", s.quote))
                     if w in names and w not in words]
            same = [x.quote.split() for x in sides if x.title == s.title and x.quote]
            common = 0
            while all(len(q) > common + 1 and q[common] == same[0][common] for q in same):
                common += 1
            rest = " ".join(s.quote.split()[common:]).rstrip(".")
            extra = " and ".join(named[:2]) if named and common == 0 else _short(rest, 5)
            out.append(SideView(s.element, f"{s.title} ({extra})", s.heading,
                                s.quote, s.line, s.anchor, s.comment, s.location))
        else:
            out.append(s)
    titles = [s.title for s in out]
    return [s if titles.count(s.title) == 1 else
            SideView(s.element, f"{s.title.split(' (', 1)[0]} ({_humanize(s.element).lower()})",
                     s.heading, s.quote, s.line, s.anchor, s.comment, s.location)
            for s in out]


# ============================================================================ grouping

# kinds whose States name what the finding is about (a State, an undefined term): their
# findings share a cause only when they name the same
_NAMED = frozenset({"unreachable-state", "undefined-reference"})


def _key(f: FindingView) -> tuple[str, ...]:
    if f.kind in _NAMED:
        return (f.kind, *sorted(f.rules), "|", *sorted(f.states))
    return tuple(sorted({r.split("@", 1)[0] for r in f.rules}))


_SEVERITY = {"error": 0, "warning": 1, "note": 2}


def _models(f: FindingView) -> set[str]:
    found = set(re.findall(r"model '([^']+)'", f.message))
    for r in f.rules:
        if "@" in r:
            found.add(r.split("@", 1)[1])
    return found


def build_causes(ctx: Context, findings: tuple[FindingView, ...]) -> tuple[CauseView, ...]:
    """The root causes of `findings` (open and resolved apart), most severe first."""
    groups: dict[tuple[bool, tuple[str, ...]], list[FindingView]] = {}
    for f in findings:
        groups.setdefault((f.resolved, _key(f)), []).append(f)
    for group in groups.values():        # the most severe kind leads the cause
        group.sort(key=lambda f: _SEVERITY.get(f.severity, 3))
    causes = [_cause(ctx, group) for group in groups.values()]
    causes = _families(ctx, causes)
    causes.sort(key=lambda c: (c.resolved, advice.TIERS.index(c.tier),
                               "lives or dies" not in c.impact, -c.situations, c.headline))
    return tuple(_ranked(c, i) for i, c in enumerate(causes))


def _ranked(c: CauseView, rank: int) -> CauseView:
    from dataclasses import replace
    return replace(c, rank=rank)


def _cause(ctx: Context, group: list[FindingView]) -> CauseView:
    first = group[0]
    kinds = tuple(dict.fromkeys(f.kind for f in group))
    rules = tuple(sorted({r.split("@", 1)[0] for f in group for r in f.rules}))
    states = tuple(sorted({s for f in group for s in f.states}))
    ends = " ".join(_outcome_states(group[0]))
    # a model's survival: the outcomes differ in a terminal State (the States a clash
    # reads, "not Dead" in a guard, are not at stake)
    terminal = any(re.search(rf"\b{re.escape(t)}\b", ends) for t in ctx.terminal) \
        or "alive" in ends
    tier = advice.tier(kinds[0], terminal=terminal)
    sides = _distinct(ctx.ruleset, [side(ctx, r) for r in rules if r in ctx.ruleset.elements])
    titles = [s.title for s in sides] or [_humanize(r) for r in rules]
    kind = kinds[0]
    tip = advice.advice(kind)
    a, b = [*titles, ""][:2]
    models = tuple(sorted(set().union(*(_models(f) for f in group))))
    named = {x.element: x.title for x in sides}
    for f in group[:1]:
        for _, v in f.detail:
            for ident in re.findall(r"[a-z][\w-]*(?=@|\b)", v):
                if ident not in named and ident in ctx.ruleset.elements and "-" in ident:
                    named[ident] = side(ctx, ident).title
    outcomes = tuple((k, _words(v, named))
                     for f in group[:1] for k, v in f.detail
                     if k.startswith(("order ", "reading ")))
    marked = frozenset(v.name for v in ctx.ruleset.system.vars
                       if v.kind in ("state", "marker"))
    story, hidden = _story(first.trace, marked)
    return CauseView(
        anchor="c-" + first.fingerprint, tier=tier, tier_label=advice.TIER_LABELS[tier],
        rank=0, severity=first.severity, kinds=kinds,
        codes=tuple(dict.fromkeys(f.code for f in group)),
        headline=_headline(ctx, kind, titles, first, states),
        short=_headline(ctx, kind, titles, first, states, moment=False),
        subject=_subject(titles),
        impact=_impact(kind, tier, terminal),
        situation=_situation(ctx, first, states), sides=tuple(sides), outcomes=outcomes,
        decision=tip.decision, errata=advice.errata(kind, a, b), options=tip.options,
        findings=tuple(group), models=models, states=states, rules=rules, matrix=None,
        story=story, hidden_steps=hidden, resolved=first.resolved,
        location=first.location)


def _subject(titles: list[str]) -> str:
    pair = " vs ".join(titles[:3]) + (" …" if len(titles) > 3 else "")
    heads = {t.split(" (", 1)[0] for t in titles}
    if len(titles) > 1 and len(heads) == 1 and all(t.endswith(")") for t in titles):
        inner = [t.split(" (", 1)[1][:-1] for t in titles]      # one heading, two sentences
        pair = f"{heads.pop()}: " + " vs ".join(f"“{x}”" for x in inner[:3])
    return pair


def _headline(ctx: Context, kind: str, titles: list[str], f: FindingView,
              states: tuple[str, ...], *, moment: bool = True) -> str:
    """The situation, then the question; `moment`: with the moment it happens."""
    pair = _subject(titles)
    when = _when(ctx, f) if moment else ""
    lead = f"{pair}: {when}, " if when else f"{pair}: "
    if kind == "order-dependence":
        ends = _outcome_states(f)
        if len(ends) == 2 and not moment:
            return f"{pair}: which resolves first? ({ends[0]} or {ends[1]})"
        if len(ends) == 2:
            return f"{lead}which resolves first — does the model end up {ends[0]} or {ends[1]}?"
        return f"{lead}which resolves first? The result depends on it."
    if kind == "forbidden-obligation":
        return f"{lead}“must” against “cannot” — which wins?"
    if kind == "fact-contradiction":
        return f"{lead}the rules say opposite things — which applies?"
    if kind == "no-legal-action":
        held = " and ".join(states)
        who = f"a {held} model" if held else "the model"
        return f"{lead}what may {who} do? Every choice is forbidden."
    if kind == "ambiguity":
        return f"{lead}the sentence has two readings that play differently — which is meant?"
    if kind == "undefined-reference" and f.states:
        return f"“{f.states[0]}” is used but never defined ({titles[0] if titles else ''})"
    if kind == "unreachable-state" and f.states:
        return f"No rule or event ever makes a model {f.states[0]}"
    if kind == "dead-rule" and titles:
        return f"{titles[0]}: this rule can never apply"
    return f"{pair}: {_registry_title(kind)}" if titles else _registry_title(kind)


def _registry_title(kind: str) -> str:
    from checker.diagnostics import FINDINGS
    code = FINDINGS.get(kind)
    return code.title if code is not None else kind.replace("-", " ")


def _when(ctx: Context, f: FindingView) -> str:
    """The moment of the finding in words: the event of the trace's last step."""
    if f.trace is None or not f.trace.steps:
        return ""
    step = f.trace.steps[-1]
    m = re.match(r"(.+) phase begins$", step.text)
    if m:
        return f"at the start of the {m.group(1).replace('-', ' ').title()} Phase"
    return f"after “{event_title(ctx.ruleset, step.event)}”"


def _words(text: str, titles: dict[str, str]) -> str:
    """An outcome in words: rule ids as their titles, `X=1` as "X", `X=0` as "not X",
    `hp=2` as "hp 2", the sequence arrows as "then"."""
    for ident, title in sorted(titles.items(), key=lambda kv: -len(kv[0])):
        text = re.sub(rf"(?<![\w-]){re.escape(ident)}(?:@\w+)?(?![\w-])", title, text)
    text = re.sub(r"\b(?:(\w+)\.)?([A-Z][A-Za-z]*)=1\b",
                  lambda m: (f"{m.group(1)} " if m.group(1) else "") + m.group(2), text)
    text = re.sub(r"\b(?:(\w+)\.)?([A-Z][A-Za-z]*)=0\b",
                  lambda m: (f"{m.group(1)} " if m.group(1) else "") + "not " + m.group(2),
                  text)
    return re.sub(r"\b([a-z][\w.]*)=(\w+)", r"\1 \2", text)


def _pairs(outcome: str) -> dict[str, str]:
    tail = outcome.rsplit(": ", 1)[-1]
    chain = re.fullmatch(r"(\w+) \d+(?: → \d+)* → (\d+)", tail.strip())
    if chain:                       # a stat through its modifiers: "strength 5 → 2 → 4"
        return {chain.group(1): chain.group(2)}
    return dict(re.findall(r"([\w.]+)=(\w+)", tail))


def _outcome_states(f: FindingView) -> list[str]:
    """For two orders, what differs between their outcomes, in words (one phrase each)."""
    outs = [v for k, v in f.detail if k.startswith("order ")]
    if len(outs) != 2:
        return []
    a, b = _pairs(outs[0]), _pairs(outs[1])
    differ = [n for n in a if n in b and a[n] != b[n]]
    if not differ:
        return []

    states = [n for n in differ if n.split(".", 1)[-1][:1].isupper()]
    differ = states or differ

    def said(d: dict[str, str]) -> str:
        out = []
        for n in differ[:2]:
            name = n.split(".", 1)[-1]
            if name[:1].isupper() and d[n] in ("0", "1"):
                out.append(name if d[n] == "1" else
                           "alive" if name == "Dead" else f"not {name}")
            else:
                out.append(f"with {name} {d[n]}")
        return " and ".join(out)
    return [said(a), said(b)]


def _impact(kind: str, tier: str, terminal: bool) -> str:
    if tier == "game-breaking":
        if terminal:
            return "a model lives or dies depending on this"
        if kind in ("order-dependence",):
            return "the result depends on the order effects resolve"
        return "the outcome of play depends on it"
    return {"contradiction": "the rules contradict each other",
            "no-legal-action": "a model is left with no legal action",
            "restatement": "two places in the text say different things"}.get(tier, "")


def _situation(ctx: Context, f: FindingView, states: tuple[str, ...]) -> str:
    parts = []
    if f.kind == "blocked-effect" and states:   # the State is the one it would enter
        parts.append(f"a model would become {' and '.join(states)} but cannot")
    elif states:
        parts.append(f"a model is {' and '.join(states)}")
    when = _when(ctx, f)
    if when:
        parts.append(when)
    return ", ".join(parts)


def _story(trace: TraceView | None, marked: frozenset[str] = frozenset()
           ) -> tuple[tuple[str, ...], int]:
    """The trace as steps of play: each event in its own words with what it changed; steps
    that change nothing but the phase are left out."""
    if trace is None:
        return (), 0
    out: list[str] = []
    hidden = 0
    for s in trace.steps:
        # what matters: States, markers and numbers; not the phase or a procedure's step
        changes = [c.text for c in s.changes if "phase" not in c.name
                   and (c.name in marked or c.after.lstrip("-").isdigit())]
        if not changes and s is not trace.steps[-1]:
            hidden += 1
            continue
        text = s.text[:1].upper() + s.text[1:]
        rolled = [f"{n} = {v}" for n, v in s.inputs if n in {c.name for c in s.changes}]
        line = text + (f" (rolled {', '.join(rolled)})" if rolled else "")
        out.append(line + (": " + ", ".join(changes[:4]) if changes else "") + ".")
    if len(out) > STORY_STEPS:
        hidden += len(out) - STORY_STEPS
        out = out[-STORY_STEPS:]
    return tuple(out), hidden


# ============================================================================ families

def _families(ctx: Context, causes: list[CauseView]) -> list[CauseView]:
    """Open two-rule clashes of one family become one matrix card when there are at least
    `MIN_MATRIX` of them: "must" × "cannot" (forbidden obligations, and the no-legal-action
    clashes of a "must"), then the permissions and restrictions that leave no legal action."""
    must = {c.source for c in ctx.ruleset.system.constraints if c.kind in ("must", "some")}
    musts = [c for c in causes if not c.resolved and "forbidden-obligation" in c.kinds
             and set(c.kinds) <= {"forbidden-obligation", "no-legal-action"}
             and len(c.rules) == 2 and len(set(c.rules) & must) == 1]
    out = causes
    if len(musts) >= MIN_MATRIX:
        out = [_matrix(ctx, musts, lambda c: next(r for r in c.rules if r in must),
                       "forbidden-obligation"), *(c for c in out if c not in musts)]
    none_left = [c for c in out if not c.resolved and c.kinds == ("no-legal-action",)
                 and len(c.rules) == 2]
    if len(none_left) >= MIN_MATRIX:
        count: dict[str, int] = {}
        for c in none_left:
            for r in c.rules:
                count[r] = count.get(r, 0) + 1
        out = [*(c for c in out if c not in none_left and c.matrix is not None),
               _matrix(ctx, none_left, lambda c: min(c.rules, key=lambda r: (-count[r], r)),
                       "no-legal-action"),
               *(c for c in out if c not in none_left and c.matrix is None)]
    return out


def _matrix(ctx: Context, family: list[CauseView], row_of: Callable[[CauseView], str],
            kind: str) -> CauseView:
    rows = sorted({row_of(c) for c in family})
    cols = sorted({r for c in family for r in c.rules if r != row_of(c)})
    every = sorted(set(rows) | set(cols))
    title = {s.element: s.title
             for s in _distinct(ctx.ruleset, [side(ctx, r) for r in every
                                              if r in ctx.ruleset.elements])}
    cells = tuple(tuple(tuple(f.anchor for c in family
                              if row_of(c) == r and set(c.rules) == {r, k}
                              for f in c.findings) for k in cols) for r in rows)
    findings = tuple(f for c in family for f in c.findings)
    first = family[0]
    tip = advice.advice(kind)
    rt = [title.get(r, _humanize(r)) for r in rows]
    ct = [title.get(k, _humanize(k)) for k in cols]
    if kind == "forbidden-obligation":
        headline = (f"{len(rt)} “must” rules ({_names(rt)}) clash with {len(ct)} restrictions "
                    f"({_names(ct)}): the text never says whether a “must” or a “cannot” wins")
        subject = f"{len(findings)} “must” × “cannot” clashes"
        short = f"{subject}: the text never says which wins"
        situation = "a rule says a model must do something another rule says it cannot do"
        head = ("must…", "cannot…")
    else:
        headline = (f"{len(rt)} rules ({_names(rt)}) against {len(ct)} others "
                    f"({_names(ct)}) leave a model no legal action: the text never says what "
                    "it may still do")
        subject = f"{len(findings)} situations with no legal action"
        short = f"{subject}: the text never says what a model may still do"
        situation = "two rules each allow or forbid actions, and together they allow none"
        head = ("rule…", "together with…")
    return CauseView(
        anchor="c-" + first.findings[0].fingerprint, tier=first.tier,
        tier_label=first.tier_label, rank=0, severity=first.severity,
        kinds=tuple(dict.fromkeys(k for c in family for k in c.kinds)),
        codes=tuple(dict.fromkeys(k for c in family for k in c.codes)), headline=headline,
        short=short, subject=subject,
        impact=f"{len(findings)} findings, 1 missing rule", situation=situation,
        sides=(), outcomes=(), decision=tip.decision, errata=tip.errata, options=tip.options,
        findings=findings, models=tuple(sorted({m for c in family for m in c.models})),
        states=tuple(sorted({s for c in family for s in c.states})),
        rules=tuple(rows + cols),
        matrix=MatrixView(tuple(zip(rows, rt, strict=True)),
                          tuple(zip(cols, ct, strict=True)), cells, head),
        story=(), hidden_steps=0, resolved=False, location=first.location)


def _names(names: list[str], most: int = 3) -> str:
    heads = list(dict.fromkeys(n.split(" (", 1)[0] for n in names))
    return ", ".join(heads[:most]) + (", …" if len(heads) > most else "")
