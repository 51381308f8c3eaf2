"""Concept co-occurrence rules: an attack is several ideas close together, in any language.

A phrase regex per language and paraphrase does not scale ("set aside everything you were told
before", "Vergiss alles, was man dir bisher gesagt hat", "انسَ كل ما قيل لك"). What these share
is a handful of ideas — dismiss + instructions you were given, remember + without asking, send +
stored secrets + an outside address — so a ``Concept`` is a named set of terms in many languages,
and a ``Combo`` fires when one term of each of its groups occurs within a window of characters
in the same sentence (or line). The terms of a concept are unions across languages, which also
catches code-switching ("Remember ça pour toujours: … sans confirmation").

Term syntax (all matched on the folded, lower-cased view, see ``_normalize``):

* ``word`` — a whole word; ``stem*`` — a word starting with the stem;
* ``two words`` — words separated by any whitespace;
* a term in a script written without spaces or with attached clitics (CJK, kana, Hangul, Arabic,
  Devanagari, Thai) matches as a plain substring;
* ``Concept.regex`` adds raw patterns, each gated by literal substrings (see ``Pattern``).

Cost: gating is a set lookup per distinct word of the text (plus substring tests for the scripts
the text contains), and only combos whose every group is present search the text, once per
concept, with linear regexes; finding a combo is a bisect per anchor occurrence.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise

from ._fold import fold_pattern
from ._rules import ScanText, compile_rx

# Scripts whose words are matched as substrings (no spaces between words, or clitics attached).
_SUBSTRING_SCRIPTS = (
    ("cjk", "[\u2e80-\u9fff\uf900-\ufaff\uff66-\uff9f]"),
    ("hangul", "[\u1100-\u11ff\uac00-\ud7af]"),
    ("arabic", "[\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff]"),
    ("indic", "[\u0900-\u0dff]"),
    ("thai", "[\u0e00-\u0e7f]"),
)
_SCRIPT_CHARS = "".join(chars[1:-1] for _, chars in _SUBSTRING_SCRIPTS)
_ISLAND = f"[{_SCRIPT_CHARS}](?:[{_SCRIPT_CHARS}]|\\s{{1,3}}(?=[{_SCRIPT_CHARS}]))*"
_ASCII_SEPARATORS = re.compile(r"[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+")
_SENTENCE_BREAK = r"[.!?。！？](?=\s|$)|\n"
_LINE_BREAK = r"\n"


# A raw pattern: its regex, the literal gates of which one must occur, and how far before a
# gate a match may start (the pattern is searched only in windows around its gates).
Pattern = tuple[str, tuple[str, ...], int]


def terms(text: str) -> tuple[str, ...]:
    """Split a "|"-separated list of terms (newlines allowed) for ``Concept``."""
    return tuple(t.strip() for t in text.replace("\n", "|").split("|") if t.strip())


def _script_of(term: str) -> str | None:
    for name, chars in _SUBSTRING_SCRIPTS:
        if compile_rx(chars).search(term):
            return name
    return None


class Concept:
    """A named set of terms (any language) that stand for one idea.

    Each term compiles to its own small regex that starts with a literal, so the regex engine
    can skip to candidate positions; a term is searched only when its gate (its longest word, a
    stem, or a substring) occurs in the text.
    """

    __slots__ = ("name", "patterns", "prefixes", "subs", "words")

    def __init__(
        self,
        name: str,
        *terms: str,
        regex: Sequence[Pattern] = (),
    ) -> None:
        self.name = name
        self.words: list[tuple[bytes, str]] = []  # (gate word, term regex)
        self.prefixes: list[tuple[bytes, str]] = []  # (gate stem, term regex)
        self.subs: list[tuple[str, str, str]] = []  # (script, substring, term regex)
        patterns: list[tuple[str, tuple[str, ...]]] = []
        for pattern, gate_list, back in regex:
            source, gates = fold_pattern(pattern), tuple(fold_pattern(g).lower() for g in gate_list)
            _WINDOWS[source] = (gates, back)
            patterns.append((source, gates))
        self.patterns = tuple(patterns)
        for raw in terms:
            term = fold_pattern(raw).lower()
            prefix = term.endswith("*")
            body = term.rstrip("*").strip()
            script = _script_of(body)
            if script is not None:
                source = re.escape(body)
                _LITERALS[source] = body
                self.subs.append((script, body, source))
                continue
            words = body.split()
            # The longest piece gates the term ("future" for "for all future"): common short words
            # would make nearly every text look like a candidate.
            pieces = [p for w in words for p in _ASCII_SEPARATORS.split(w) if p] or words
            k = max(range(len(pieces)), key=lambda j: (len(pieces[j].encode()), j))
            stem = prefix and k == len(pieces) - 1
            if stem and len(pieces[k].encode()) < _GATE and len(pieces) > 1:
                k = max(range(len(pieces) - 1), key=lambda j: (len(pieces[j].encode()), j))  # "api" for "api key*"
                stem = False
            (self.prefixes if stem else self.words).append((pieces[k].encode(), _term_regex(words, prefix)))

    def first_term_in(self, low: str, lo: int, hi: int) -> tuple[int, int] | None:
        """The span of the first (then longest) term of this concept inside ``low[lo:hi]``, or None."""
        sources = [s for _, s in self.words] + [s for _, s in self.prefixes] + [s for _, _, s in self.subs]
        sources += [s for s, _ in self.patterns]
        best: tuple[int, int] | None = None
        for source in sources:
            m = compile_rx(source, re.MULTILINE).search(low, lo, hi)
            if m is not None and (best is None or (m.start(), -m.end()) < (best[0], -best[1])):
                best = m.span()
        return best


def _term_regex(words: list[str], prefix: bool) -> str:
    # The word boundary before the term is checked after its first word, as a lookbehind over it,
    # so the pattern starts with a literal and the regex engine searches for that literal.
    first = re.escape(words[0])
    # Also not right after "@", "/" or a dot inside a name: "email" in jo@email.com is no verb.
    n = len(words[0])
    source = first + rf"(?<![\w@/].{{{n}}})(?<!\w\..{{{n}}})"
    for word in words[1:]:
        source += r"\s+" + re.escape(word)
    source = source if prefix else source + r"(?!\w)"
    _LITERALS[source] = words[0]
    return source


# The literal each term regex starts with: str.find locates it far faster than a regex scan.
_LITERALS: dict[str, str] = {}
# For a raw pattern, its gates and how far back a match may start (a regex scan of 64 KiB costs
# milliseconds per pattern; windows around a few gate occurrences cost microseconds).
_WINDOWS: dict[str, tuple[tuple[str, ...], int]] = {}
_AHEAD = 1000
_FEW = 32  # up to this many occurrences of the literal, each is tried with regex.match


def _occurrences(sources: Iterable[str], low: str, positions: dict[str, list[int] | None]) -> list[tuple[int, int]]:
    """(start, end) of every match of the term regexes in a lower-cased folded text, sorted.

    ``positions`` caches, per literal, where it occurs (None: too often to try one by one); many
    terms share a first word ("you were told", "you were given", …).
    """
    out: list[tuple[int, int]] = []
    for source in sources:
        rx = compile_rx(source, re.MULTILINE)
        literal = _LITERALS.get(source)
        if literal is not None:  # the usual few occurrences: str.find, then one match at each
            if literal not in positions:
                positions[literal] = _find_all(low, literal)
            found = positions[literal]
            if found is not None:
                for i in found:
                    m = rx.match(low, i)
                    if m is not None and m.end() > m.start():
                        out.append(m.span())
                continue
        elif source in _WINDOWS:
            windows = _gate_windows(low, *_WINDOWS[source])
            if windows is not None:
                seen = -1
                for lo, hi in windows:
                    for m in rx.finditer(low, lo, hi):
                        if m.end() > m.start() and m.start() > seen:
                            out.append(m.span())
                            seen = m.start()
                continue
        out += [m.span() for m in rx.finditer(low) if m.end() > m.start()]  # many: one regex pass
    out.sort()
    return out


def _find_all(low: str, literal: str) -> list[int] | None:
    found: list[int] = []
    i = low.find(literal)
    while i != -1:
        if len(found) == _FEW:
            return None
        found.append(i)
        i = low.find(literal, i + 1)
    return found


def _gate_windows(low: str, gates: tuple[str, ...], back: int) -> list[tuple[int, int]] | None:
    """Merged search windows around the gates' occurrences, or None when they are too many to be worth it."""
    found: list[int] = []
    for gate in gates:
        i = low.find(gate)
        while i != -1:
            found.append(i)
            if len(found) > _FEW:
                return None
            i = low.find(gate, i + 1)
    windows: list[tuple[int, int]] = []
    for p in sorted(found):
        lo, hi = max(0, p - back), min(len(low), p + _AHEAD)
        if windows and lo <= windows[-1][1]:
            windows[-1] = (windows[-1][0], hi)
        else:
            windows.append((lo, hi))
    return windows


Group = tuple[Concept, ...]
Check = Callable[[ScanText, int, int], bool]

_NEGATION = (
    r"\b(?:never|not|no|don't|do not|must not|mustn't|shouldn't|should not|avoid|nunca|nie|niemals|jamais|nobody"
    r"|no one|no-one)\b"
)


def not_negated(t: ScanText, start: int, end: int) -> bool:
    """A check for ``Combo``: no negation inside the match ("remember to never print API keys")."""
    return compile_rx(_NEGATION).search(t.low, start, end) is None


# A sentence that forbids what it names ("Never paste untrusted content into an agent … without
# review"): a rule for people, however far its verb stands from the phrase that matched.
_PROHIBITION = (
    r"\s*(?:['\"“‘(*-]\s*)*(?:(?:please|pls|and|but|so)[\s,]+)?(?:never|do\s+not|don't|must\s+not|should\s+not|avoid)\b"
)
# "Someone committed an API key to our public repo last night": a report of a leak, not a request.
_LEAK_REPORT = (
    r"\b(?:someone|somebody|we|i|he|she|they|a\s+colleague|accidentally|by\s+mistake|mistakenly"
    r"|(?:a|an|one|our)\s+(?:developer|engineer|contractor|intern|employee|teammate|dev|colleague))\s+(?:\w+\s+)?"
    r"(?:committed|pushed|leaked|posted|published|exposed|pasted|uploaded|checked\s+in)\b"
)


def not_prohibited(t: ScanText, start: int, end: int) -> bool:
    """A check for ``Combo``: the match is not inside a sentence that opens with a prohibition."""
    lo = max(0, start - 160)
    cut = max(t.low.rfind(c, lo, start) for c in ".!?:;\n")
    return compile_rx(_PROHIBITION).match(t.low, cut + 1 if cut != -1 else lo) is None


def not_a_leak_report(t: ScanText, start: int, end: int) -> bool:
    """A check for ``Combo``: no past-tense report of a leak just before or inside the match."""
    return compile_rx(_LEAK_REPORT).search(t.low, max(0, start - 60), end) is None


# The user speaking of their own consent ("Remember that I allow you to run the tests without
# asking", "Save to memory: I'm fine with you reformatting files"): memory is where users say this.
_FIRST_PERSON = (
    r"(?:^|[\s:;,(\"'])(?:(?-i:I)|(?-i:I)'m|(?-i:I)'ve|(?-i:I)'d|(?-i:I)'ll|we|we're|we've|ich|j'|yo|eu|io|ik|я|мы)"
    r"(?=[\s,.;:!?'])|(?:我|私は|私が|나는|내가|저는|제가)"
    # "Don't ask me before running the tests": the writer waives their own confirmation.
    r"|\b(?:ask|asking|check\s+with|confirm\s+with|bother)\s+me\b"
)
_THIRD_PARTY = (
    r"\b(?:the|this|our|your|a)\s+(?:user|owner|admin|administrator|operator|developer)s?\b|\bthey\b"
    r"|\b(?:l'utente|de gebruiker|der nutzer|der benutzer|l'utilisateur|el usuario|o usuário|o usuario)\b"
    r"|пользовател|用户|ユーザー|사용자"
)


_PAST_END = 4


def not_first_person(t: ScanText, start: int, end: int) -> bool:
    """A check for ``Combo``: no first-person subject in the match (unless it also claims a third party)."""
    lo = max(0, start - 40)
    # A few characters past the match: "without asking" ends it, and the "me" that follows it says
    # whose confirmation is waived ("you can run the linter without asking me each time").
    hi = min(len(t.text), end + _PAST_END)
    # On the text as written: the English "I" is a capital, the Italian article "i" is not.
    if compile_rx(_FIRST_PERSON, re.IGNORECASE).search(t.text, lo, hi) is None:
        return True
    return compile_rx(_THIRD_PARTY, re.IGNORECASE).search(t.text, lo, hi) is not None


def no_first_person(t: ScanText, start: int, end: int) -> bool:
    """A check for ``Combo``: no first-person subject in the match, even beside "the user" (round 12).

    "The user wants that from now on I answer in Spanish" is the writer's own note of a preference.
    """
    lo, hi = max(0, start - 40), min(len(t.text), end + _PAST_END)
    return compile_rx(_FIRST_PERSON, re.IGNORECASE).search(t.text, lo, hi) is None


_SCOPED_LIMIT = r"\b(?:restrictions?|limits?|limitations?|filters?|rules)\s+(?:on|of|for|regarding|about|in|to)\b"


def unscoped(t: ScanText, start: int, end: int) -> bool:
    """A check for ``Combo``: "without restrictions on length" limits one thing, not the agent's rules."""
    return compile_rx(_SCOPED_LIMIT).search(t.low, start, min(len(t.low), end + 24)) is None


_QUOTE = "'\"`"


def _crosses_strings(low: str, chosen: list[tuple[int, int]]) -> bool:
    # Terms in different string literals ("... LIKE '%ignore previous%' OR body LIKE '%system prompt%'")
    # are not one sentence: two quotes of a kind between neighbouring terms, apostrophes excepted.
    ordered = sorted(chosen)
    for (_, a_end), (b_start, _) in pairwise(ordered):
        between = low[a_end:b_start]
        for q in _QUOTE:
            n = sum(1 for k, c in enumerate(between) if c == q and not _is_apostrophe(between, k))
            # A quoted word in prose ('when the user says "backup", zip …') is no string literal.
            if n >= 2 and compile_rx(_LITERAL_EDGE).search(between) is not None:
                return True
    return False


# Where code opens or closes a string: "LIKE '%x%' OR", "('a', 'b')", "= 'x' +".
_LITERAL_EDGE = r"['\"`]\s*(?:[)+|;\]}]|,\s*['\"`]|\bor\b|\band\b)|(?:[(=\[{]|\blike)\s*['\"`]|%"


def _is_apostrophe(s: str, k: int) -> bool:
    return 0 < k < len(s) - 1 and s[k - 1].isalpha() and s[k + 1].isalpha()


class Combo:
    """Fires when a term of every group occurs within ``window`` characters, inside one ``scope``.

    ``scope`` is "sentence" (no . ! ? or newline between the terms), "line" or "text". A group is
    one concept or a tuple of alternatives. ``check`` may veto a match given its span.
    """

    __slots__ = ("check", "groups", "label", "scope", "window")

    def __init__(
        self,
        label: str,
        *groups: Concept | Group,
        window: int = 160,
        scope: str = "sentence",
        check: Check | None = None,
    ) -> None:
        self.label = label
        self.groups: tuple[Group, ...] = tuple(g if isinstance(g, tuple) else (g,) for g in groups)
        self.window = window
        self.scope = scope
        self.check = check


_GATE = 4  # bytes of a stem that gate it: a superset test, made exact by the concept's regex


class ComboSet:
    """Combos with one index from gate words, stems and substrings to the terms they gate."""

    __slots__ = (
        "_combos_of",
        "_concepts",
        "_groups",
        "_last",
        "_partners",
        "_patterns",
        "_stems",
        "_subs",
        "_words",
        "combos",
    )

    def __init__(self, *combos: Combo) -> None:
        self.combos = combos
        # The gates found in the last text `run` read: the learned model asks for the same text's
        # concept names right after (one tuple, replaced whole, so threads never see half of one).
        self._last: tuple[str, frozenset[int]] | None = None
        self._concepts: list[Concept] = []
        seen: dict[int, int] = {}
        for combo in combos:
            for group in combo.groups:
                for concept in group:
                    if id(concept) not in seen:
                        seen[id(concept)] = len(self._concepts)
                        self._concepts.append(concept)
        # Per combo, per group, the indexes of its concepts.
        self._groups = tuple(tuple(frozenset(seen[id(c)] for c in g) for g in combo.groups) for combo in combos)
        # For each concept, the combos one of whose groups it is in: a text with few concepts present
        # tests those few combos, not all fifty.
        combos_of: dict[int, set[int]] = {}
        for combo_index, combo_groups in enumerate(self._groups):
            for concept_group in combo_groups:
                for member in concept_group:
                    combos_of.setdefault(member, set()).add(combo_index)
        self._combos_of = {member: frozenset(found) for member, found in combos_of.items()}
        self._words: dict[bytes, list[tuple[int, str]]] = {}
        # Stems are keyed by their first _GATE bytes: a cheap superset test, made exact by the regex.
        self._stems: dict[bytes, list[tuple[int, str]]] = {}
        self._subs: dict[str, list[tuple[str, int, str]]] = {}
        self._patterns: dict[int, list[tuple[str, str]]] = {}  # concept → (gate, pattern)
        for i, concept in enumerate(self._concepts):
            for word, source in concept.words:
                self._words.setdefault(word, []).append((i, source))
            for stem, source in concept.prefixes:
                table = self._stems if len(stem) >= _GATE else self._words  # a short stem gates as a word
                table.setdefault(stem[:_GATE], []).append((i, source))
            for script, sub, source in concept.subs:
                self._subs.setdefault(script, []).append((sub, i, source))
            if concept.patterns:
                self._patterns[i] = [(gate, source) for source, gates in concept.patterns for gate in gates]
        # For each concept, the pattern concepts of the combos it is part of.
        self._partners: dict[int, frozenset[int]] = {}
        for groups in self._groups:
            members = frozenset().union(*groups)
            for i in members:
                self._partners[i] = self._partners.get(i, frozenset()) | (members & self._patterns.keys())

    def _present(self, t: ScanText) -> dict[int, set[str]]:
        """For each concept with a gate in the text, the term regexes worth searching."""
        present: dict[int, set[str]] = {}
        words = t.words
        # Iterate over the text's words, not the 1,600 gate words: a short segment has few.
        table, stems = self._words, self._stems
        hits = [table[w] for w in words if w in table]
        hits += [stems[k] for k in {w[:_GATE] for w in words} if k in stems]
        for hit in hits:
            for i, source in hit:
                present.setdefault(i, set()).add(source)
        low = t.low
        if not low.isascii():
            # Substring terms are searched in the runs of those scripts only (with their spaces),
            # so 64 KiB of Latin text with one Chinese word costs one regex pass, not 300 scans.
            islands = "\n".join(compile_rx(_ISLAND).findall(low))
            chars = set(islands)  # a term needs all its characters present; repetitive text has few
            # Most non-ASCII text ("€", "—", accents) has no run of these scripts: no term can occur.
            for script, _ in _SUBSTRING_SCRIPTS if islands else ():
                for sub, i, source in self._subs.get(script, ()):
                    if chars.issuperset(sub) and sub in islands:
                        present.setdefault(i, set()).add(source)
        return present

    def names(self) -> list[str]:
        """The names of every concept of the set, sorted."""
        return sorted(concept.name for concept in self._concepts)

    def present_names(self, t: ScanText) -> list[str]:
        """The names of the concepts one of whose gates occurs in the text (a superset of those that match).

        The learned model reads these as features: a concept is an idea in many languages, so a
        weight learned for "dismiss" in English texts also counts for "vergiss" and "忽略". Concepts
        gated by a raw pattern ("system line", "outside", "url slot": an "@", "://" or "SYSTEM:")
        count too, once a concept they share a combo with is present (round 6: out of author that
        raised the model alone from 59.5 % to 63.1 % of the seven newest authors' injections).
        """
        last = self._last
        if last is not None and last[0] == t.low:
            return sorted(self._concepts[i].name for i in last[1])
        present = self._present(t)
        if present:
            self._add_patterns(t, present)
        return sorted(self._concepts[i].name for i in present)

    def _add_patterns(self, t: ScanText, present: dict[int, set[str]]) -> None:
        # Raw patterns' gates ("@", "://", "|" …) are tested only for concepts that share a combo
        # with a concept already present: a typical note needs few of them.
        wanted: set[int] = set()
        for i in present:
            wanted |= self._partners[i]
        for i in wanted:
            for gate, source in self._patterns[i]:
                if gate in t.low:
                    present.setdefault(i, set()).add(source)

    def run(self, t: ScanText) -> list[tuple[str, int, int]]:
        """(label, start, end) for each combo that fires, offsets of the view ``t`` was built from."""
        present = self._present(t)
        if not present:
            self._last = (t.low, frozenset())
            return []
        self._add_patterns(t, present)
        self._last = (t.low, frozenset(present))
        keys = present.keys()
        found: dict[int, list[tuple[int, int]]] = {}
        positions: dict[str, list[int] | None] = {}
        breaks: dict[str, list[int]] = {}
        out: list[tuple[str, int, int]] = []
        combos_of = self._combos_of
        candidates: set[int] = set()
        for i in keys:
            candidates |= combos_of.get(i, frozenset())
        for c in sorted(candidates):  # in declaration order, as when every combo was tested
            combo, groups = self.combos[c], self._groups[c]
            if any(keys.isdisjoint(group) for group in groups):
                continue
            lists = []
            for group in groups:
                merged: list[tuple[int, int]] = []
                for i in keys & group:
                    if i not in found:
                        found[i] = _occurrences(sorted(present[i]), t.low, positions)
                    merged.extend(found[i])
                if not merged:
                    break
                merged.sort()
                lists.append(merged)
            else:
                if combo.scope not in breaks and combo.scope != "text":
                    pattern = _SENTENCE_BREAK if combo.scope == "sentence" else _LINE_BREAK
                    breaks[combo.scope] = [m.start() for m in compile_rx(pattern).finditer(t.low)]
                span = _first_match(lists, combo.window, breaks.get(combo.scope, []), combo.check, t)
                if span is not None:
                    out.append((combo.label, *span))
        return out


def _broken(breaks: list[int], lo: int, hi: int) -> bool:
    # Whether a sentence (or line) ends between lo and hi; a term may end in the break's own character.
    k = bisect_left(breaks, lo)
    return k < len(breaks) and breaks[k] < hi - 1


def _nearest(
    occurrences: list[tuple[int, int]], starts: list[int], anchor: tuple[int, int], window: int, breaks: list[int]
) -> list[tuple[int, int]]:
    # Candidates within the window and the anchor's sentence, nearest first, not overlapping the anchor.
    lo = bisect_left(starts, anchor[0] - window)
    hi = bisect_right(starts, anchor[1] + window)
    near = [
        o
        for o in occurrences[lo:hi]
        if (o[1] <= anchor[0] or o[0] >= anchor[1]) and not _broken(breaks, min(o[0], anchor[0]), max(o[1], anchor[1]))
    ]
    near.sort(key=lambda o: abs(o[0] - anchor[0]))
    return near[:3]


def _first_match(
    lists: list[list[tuple[int, int]]], window: int, breaks: list[int], check: Check | None, t: ScanText
) -> tuple[int, int] | None:
    order = sorted(range(len(lists)), key=lambda k: len(lists[k]))
    anchors, others = lists[order[0]], [lists[k] for k in order[1:]]
    starts = [[o[0] for o in occ] for occ in others]
    for anchor in anchors:
        chosen = [anchor]
        for occ, occ_starts in zip(others, starts):
            near = _nearest(occ, occ_starts, anchor, window, breaks)
            pick = next((o for o in near if all(o[1] <= c[0] or o[0] >= c[1] for c in chosen)), None)
            if pick is None:
                break
            chosen.append(pick)
        else:
            lo, hi = min(c[0] for c in chosen), max(c[1] for c in chosen)
            if hi - lo > window + 60 or _broken(breaks, lo, hi) or _crosses_strings(t.low, chosen):
                continue
            if check is None or check(t, lo, hi):
                return lo, hi
    return None
