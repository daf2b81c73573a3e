"""Rules terms the text uses that nothing declares: the candidates for `undefined-reference`.

A term is a run of capitalized words in a sentence ("Melee Pool", "Line of Sight"), or a
word before marker/token/test/check ("rout tests"); a lone sentence-initial word that the
text also writes in lower case ("Fighters") is an ordinary word, not a term. A term is
*declared* when its words (singular or plural, any case) occur in the name of a spec
element — a State, var or value, input, stat, decision or option, phase, model or the id
of an event, rule, constraint ... ("End Phase" is declared by the event `end-phase`), with
or without its kind word ("Berserk Marker" by the State `Berserk`). It is *defined* by the
text when a heading names it (its section defines it) or a sentence says what it is ("X
is/are ...", "is considered to be X", "becomes X when"). What is left is proposed; the
spec's `undefined:` confirms a proposal and `not-a-term:` dismisses it.

Only the sentences the spec cites (formally or under `informal`) are scanned: an uncovered
sentence is reported as uncovered first, and its terms once it is cited.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from checker.ir import Citation, TermUse
from checker.spec.lower_ctx import Ctx
from checker.spec.schema import DecisionDecl, SpecDoc
from checker.text import Sentence, SourceText

Key = tuple[str, ...]

# words that end a term's name and say what kind of thing it is ("Bleed marker")
KIND_WORDS = frozenset({"state", "marker", "token", "test", "check", "action", "trait",
                        "roll", "phase", "step", "keyword", "table", "card", "model"})
_LOWER_KINDS = r"markers?|tokens?|tests?|checks?"
# lower-case words that may stand inside a term ("Line of Sight", "Out of Action")
_INNER = frozenset({"of"})
# words that never start a term at a sentence start, whether or not the text writes them
# in lower case elsewhere
_COMMON = frozenset({"a", "an", "the", "if", "when", "whenever", "while", "whilst", "this",
    "that", "these", "those", "it", "its", "they", "their", "them", "he", "she", "his", "her",
    "during", "at", "after", "before", "each", "any", "all", "no", "not", "only", "once", "on",
    "in", "for", "from", "with", "without", "as", "unless", "until", "both", "do", "does",
    "can", "cannot", "may", "must", "is", "are", "has", "have", "there", "then", "also",
    "however", "otherwise", "instead", "some", "every", "either", "neither", "such", "where",
    "which", "who", "what", "how", "yes"})
_ROMAN = re.compile(r"^[IVX]+$")
_STOP_LOWER = _COMMON | frozenset({"one", "two", "three", "more", "other", "another", "same",
    "further", "enough", "multiple", "named", "set", "several", "many", "most", "own",
    # verbs that act on markers or tokens ("remove markers", "gains tokens"): not a name
    "remove", "removes", "add", "adds", "gain", "gains", "lose", "loses", "place", "places",
    "take", "takes", "discard", "discards", "spend", "spends", "receive", "receives",
    "make", "makes", "pass", "passes", "fail", "fails"})
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'\u2019]*")
_BULLET = re.compile(r"^(?:[•*\-\u2013\u2022\u25e6]|\d{1,3}[.)]|\(\d{1,3}\)|\(?[a-z]\))\s+")
_LABEL = re.compile(r"^([A-Z][^.:;!?]{0,40}?):\s+")      # "Fail: ...", "Auto-cancellation: ..."
_BREAK = re.compile(r"[,.;:!?()\[\]{}/\"\u201c\u201d|+=<>\u00d7\u2014\u2013]|\s-\s|\t")


def stem(word: str) -> str:
    """A word's simple singular, lower case: Markers → marker, abilities → ability."""
    w = word.lower().replace("\u2019", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith(("ches", "shes", "sses", "xes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def key_of(name: str, camel: bool = False) -> Key:
    """The words of a term or (with `camel`) of a spec name, stemmed: "DeathSentence",
    "death-sentence" and "Death Sentence markers" share ("death", "sentence"[, "marker"])."""
    words: list[str] = []
    for part in re.split(r"[\s_\-/]+", name.replace("\u2019", "'")):
        if camel and part[:1].isupper() and not part.isupper() and re.search(r"[a-z][A-Z]", part):
            words += re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", part)
        else:
            words += re.findall(r"[A-Za-z0-9]+(?:'s)?", part)
    return tuple(stem(w) for w in words if w)


def bare(key: Key) -> Key:
    """A key without its kind word ("bleed marker" → "bleed")."""
    return key[:-1] if len(key) > 1 and key[-1] in KIND_WORDS else key


def _contains(outer: Key, inner: Key) -> bool:
    n = len(inner)
    return n > 0 and any(outer[i:i + n] == inner for i in range(len(outer) - n + 1))


# ============================================================================ extraction

@dataclass(frozen=True)
class Use:
    name: str          # as the text writes it
    key: Key
    sentence: Sentence


def _segments(s: Sentence) -> list[tuple[int, str]]:
    """The parts of a sentence that each start like a sentence: table cells, the text after
    a bullet mark or an inline label ("Fail: ..."), with their offsets in the sentence."""
    cells = re.split(r"(\t+|\s*\|\s*)", s.text) if s.kind == "row" else [s.text]
    out: list[tuple[int, str]] = []
    at = 0
    for cell in cells:
        start = at
        at += len(cell)
        if not cell.strip() or cell.strip() == "|" or "\t" in cell:
            continue
        body = cell
        for pat in (_BULLET, _LABEL, _BULLET):
            m = pat.match(body)
            if m:
                start += m.end()
                body = body[m.end():]
        out.append((start, body))
    return out


def uses_in(s: Sentence, mid_caps: frozenset[str]) -> list[Use]:
    """The term uses of one sentence. `mid_caps`: the (stemmed) words the text capitalizes
    inside a sentence somewhere; a capital that starts a sentence counts only if it is one
    of them ("Fighters who ..." is an ordinary word, "Death Sentence markers ..." a term)."""
    out: list[Use] = []
    for _, seg in _segments(s):
        for chunk in _clauses(seg):
            out += _runs(chunk, s, mid_caps)
        for m in re.finditer(rf"\b([a-z][a-z'-]+)\s+({_LOWER_KINDS})\b", seg):
            if m.group(1) not in _STOP_LOWER and stem(m.group(1)) not in KIND_WORDS:
                name = m.group(0)
                out.append(Use(name, key_of(name), s))
    return out


def mid_capitals(source: SourceText) -> frozenset[str]:
    """The words the text capitalizes somewhere inside a sentence (not at its start)."""
    found: set[str] = set()
    for s in source.sentences:
        if s.kind == "heading":
            continue
        for _, seg in _segments(s):
            for initial, text in _clauses(seg):
                words = _WORD.findall(text)
                found |= {stem(w) for w in words[1 if initial else 0:] if w[:1].isupper()}
    return frozenset(found)


def _clauses(seg: str) -> list[tuple[bool, str]]:
    """Split at punctuation; each piece says whether it starts the sentence (or a clause
    after `:` / `;` / `—`, which starts like one)."""
    pieces: list[tuple[bool, str]] = []
    pos, first = 0, True
    for m in _BREAK.finditer(seg):
        pieces.append((first, seg[pos:m.start()]))
        first = m.group(0).strip() in (":", ";", "\u2014", ".", "!", "?")
        pos = m.end()
    pieces.append((first, seg[pos:]))
    return pieces


def _runs(chunk: tuple[bool, str], s: Sentence, mid_caps: frozenset[str]) -> list[Use]:
    initial, text = chunk
    words = _WORD.findall(text)
    out: list[Use] = []
    run: list[str] = []
    lead = initial

    def close() -> None:
        nonlocal lead
        while run and run[-1].lower() in _INNER:
            run.pop()
        if run and lead:
            head = run[0].lower()
            if head in _COMMON or stem(head) not in mid_caps:
                run.pop(0)          # "The ...", "Fighters who ...", "Retains their ..."
            while run and run[0].lower() in _INNER:
                run.pop(0)
        if run and not (len(run) == 1 and (len(run[0]) == 1 or stem(run[0]) in KIND_WORDS)):
            name = " ".join(run)
            out.append(Use(name, key_of(name), s))
        run.clear()
        lead = False

    for w in words:
        w = re.sub(r"['\u2019]s$", "", w)
        if w[:1].isupper() or (run and w in _INNER):
            run.append(w)
        elif run and stem(w) in KIND_WORDS:
            run.append(w)          # "Bleed markers", "Aggressive trait"
            close()
        else:
            close()
            lead = False
    close()
    return out


class Declared:
    """The names a spec declares, as word keys; `split` cuts a term into what they cover
    and what is left ("Disguised Enemy": the State Disguised, and "Enemy")."""

    def __init__(self, names: Iterable[str]) -> None:
        self.keys: list[Key] = []
        self.abbrev: set[str] = set()
        for n in names:
            for k in {key_of(n, camel=True), key_of(n)}:
                if k:
                    self.keys.append(k)
            if n.isupper() and 2 <= len(n) <= 4:
                self.abbrev.add(n.lower())
        self.short = {w for k in self.keys for w in k if 2 <= len(w) <= 4}

    def covers(self, key: Key) -> bool:
        if not key:
            return True
        if len(key) == 1 and any(_abbreviates(a, key[0]) for a in self.abbrev):
            return True                                  # SPD: Speed
        if len(key) >= 2 and "".join(w[0] for w in key) in self.short:
            return True                                  # AP: Activation Points, los
        return any(_inside(d, key) for d in self.keys) or any(
            _inside(d, bare(key)) for d in self.keys)

    def names(self, key: Key) -> bool:
        """`key` is a whole declared name (not only a word inside one), kind word aside."""
        if len(key) == 1 and key[0] in KIND_WORDS:
            return False
        return any(len(d) == len(k) and _inside(d, k) for d in self.keys
                   for k in {key, bare(key)})

    def split(self, key: Key) -> list[tuple[int, int]]:
        """The spans of `key`'s words left when the whole declared names in it are cut out."""
        left: list[tuple[int, int]] = []
        i, start = 0, 0
        while i < len(key):
            j = next((j for j in range(len(key), i, -1) if self.names(key[i:j])), None)
            if j is None:
                i += 1
                continue
            if start < i:
                left.append((start, i))
            i = start = j
        if start < len(key):
            left.append((start, len(key)))
        return left


def _abbreviates(abbrev: str, word: str) -> bool:
    if len(word) <= len(abbrev) or word[0] != abbrev[0]:
        return False
    it = iter(word)
    return all(c in it for c in abbrev)


def _same(term_word: str, declared_word: str) -> bool:
    k, d = term_word, declared_word
    return k == d or (len(d) >= 4 and k.startswith(d)) or (len(k) >= 4 and d.startswith(k))


def _inside(outer: Key, inner: Key) -> bool:
    n = len(inner)
    return n > 0 and any(all(_same(k, d) for k, d in zip(inner, outer[i:i + n], strict=True))
                         for i in range(len(outer) - n + 1))


# ============================================================================ the spec's names

def declared_names(doc: SpecDoc) -> list[str]:
    """Every name the spec declares."""
    names: list[str] = [*doc.states, *doc.vars, *doc.inputs, *doc.stats, *doc.decisions,
                        *doc.phases, *doc.models]
    for var in doc.vars.values():
        names += var.values or []
    for dom in doc.inputs.values():
        if isinstance(dom, list):
            names += [str(v) for v in dom]
    for options in doc.decisions.values():
        listed = options.options if isinstance(options, DecisionDecl) else options
        for o in listed:       # an option is a name, or {name: {attribute: value}}
            names += [o] if isinstance(o, str) else list(o)
        if isinstance(options, DecisionDecl):
            names += options.slots
    for section in ("meta", "events", "rules", "ordering", "prevents", "constraints", "may",
                    "facts", "modifiers", "procedures", "properties", "rulings"):
        names += [item.id for item in getattr(doc, section)]
    for proc in doc.procedures:
        names += [st.id for st in proc.steps]
    return names


def _defined(source: SourceText, title: str) -> tuple[list[Key], set[str]]:
    """Keys the text defines by a heading (each part of "Fear, Panic, and Insanity"), and
    the words of the title."""
    heads: list[Key] = []
    for s in source.sentences:
        if s.kind != "heading":
            continue
        text = s.text.strip("=#:!? ").replace(" and ", ", ")
        heads += [key_of(p) for p in re.split(r",|/|\u2014", text) if p.strip()]
    first = source.sentences[0].text if source.sentences else ""
    title_words = {stem(w) for w in _WORD.findall(f"{title} {first}")}
    return [h for h in heads if h], title_words


def _defines(s: Sentence, name: str) -> bool:
    n = re.escape(name)
    text = s.text
    return bool(re.match(rf"^(?:[-•*]\s+)?(?:(?:An?|The)\s+)?{n}\s+(?:(?:is|are)(?: an?| the)?"
                         rf" [\w-]+ (?:that|who|which)|means|refers to)\b", text)
                or re.search(rf"\b(?:is|are) considered (?:to be )?(?:an? )?{n}\b", text)
                or re.search(rf"\b(?:is|are|becomes?) {n} when\b", text)
                or re.search(rf"\b(?:called|named|known as) [\"\u201c]?{n}\b", text))


# ============================================================================ proposals

def propose(ctx: Ctx, source: SourceText, citations: Iterable[Citation]) -> tuple[TermUse, ...]:
    """Every candidate term of the cited sentences, with its status: `proposed` (a finding),
    `confirmed` (listed under `undefined:`) or `dismissed` (listed under `not-a-term:`).
    A `not-a-term` entry the text does not contain is RP220."""
    doc = ctx.doc
    text_keys = [key_of(" ".join(_WORD.findall(s.text))) for s in source.sentences]
    dismissed: list[Key] = []
    for i, name in enumerate(doc.not_a_term):
        k = key_of(name)
        if not k or not any(_contains(t, k) for t in text_keys):
            ctx.err("RP220", f"'not-a-term' lists {name!r}, which the text never uses",
                    ("not-a-term", i), "remove it, or write the term as the text does")
        dismissed.append(k)
    cited = sorted({s.index for c in citations for s in source.sentences_in(c.start, c.end)
                    if s.kind != "heading" and not _header_row(source, s)})
    mid_caps = mid_capitals(source)
    heads, title_words = _defined(source, doc.title)
    declared = Declared(declared_names(doc))
    undefined = [key_of(u.name) for u in doc.undefined]
    groups: dict[Key, list[Use]] = {}
    for idx in cited:
        for use in uses_in(source.sentences[idx], mid_caps):
            words = use.name.split()
            if declared.covers(use.key) or len(words) != len(use.key) or any(
                    use.key == h for h in heads):
                continue                             # declared; a section's own heading
            for i, j in declared.split(use.key):
                piece = words[i:j]
                while piece and (piece[0].lower() in _INNER or _ROMAN.match(piece[0])):
                    piece = piece[1:]
                while piece and (piece[-1].lower() in _INNER or _ROMAN.match(piece[-1])):
                    piece = piece[:-1]
                k = bare(key_of(" ".join(piece)))
                if not k or (len(k) == 1 and (len(k[0]) <= 1 or k[0] in KIND_WORDS)) \
                        or declared.covers(k):
                    continue
                groups.setdefault(k, []).append(Use(" ".join(piece), k, use.sentence))
    out: list[TermUse] = []
    for k, uses in groups.items():
        if all(w in title_words for w in k):
            continue
        if any(_defines(s, u.name) for u in uses for s in source.sentences):
            continue
        name = uses[0].name
        status = "proposed"
        if any(k in (d, bare(d)) for d in dismissed):
            status = "dismissed"
        if any(_contains(u, k) or _contains(bare(u), k) for u in undefined):
            status = "confirmed"
        sentences = sorted({u.sentence.index: u.sentence for u in uses}.values(),
                           key=lambda s: s.index)
        cites = tuple(_citation(f"term:{name}", s) for s in sentences)
        out.append(TermUse(name, " ".join(k), status, cites))
    return tuple(sorted(out, key=lambda t: (t.citations[0].start, t.name)))


def _citation(element: str, s: Sentence) -> Citation:
    """A sentence as a quote, without its bullet mark (layout, not rule)."""
    mark = _BULLET.match(s.text)
    cut = mark.end() if mark and not mark.group(0)[0].isalnum() else 0
    return Citation(element, s.text[cut:], s.start + cut, s.end, s.line)


def _header_row(source: SourceText, s: Sentence) -> bool:
    """The first row of a table names its columns."""
    if s.kind != "row" or s.index == 0:
        return s.kind == "row"
    before = source.sentences[s.index - 1]
    return before.kind != "row" or before.line < s.line - 1
