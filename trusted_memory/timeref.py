"""Relative time in what people say ("yesterday", "last Friday", "two weeks ago"), resolved to dates.

A memory keeps when it was said; a phrase like "yesterday" inside it only means something against
that moment, so it is resolved when the memory is formed and kept beside the words. Questions
("what did I do last May?") are resolved against the moment they are asked, giving a range that
recall favours. `dateparser` does this too, but it costs ~0.4 s to import and tens of
milliseconds a call with its language detection; the expressions people use in chat are few, so
one pass of one compiled pattern over the text (linear time, bounded per match) does the work here.

Dates are calendar dates in the speaker's local time (naive), which is what a person means by
"yesterday"; ranges are inclusive `[first, last]` days.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

__all__ = ["TimeRef", "asks_when", "label_refs", "query_range", "resolve"]

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(MONTHS)} | {"sept": 9}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
}
_SEASONS = {"spring": (3, 5), "summer": (6, 8), "autumn": (9, 11), "fall": (9, 11), "winter": (12, 2)}
_MONTH_RX = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY_RX = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?"
_NUM_RX = (
    r"(?:\d{1,3}|a\ couple(?:\ of)?|couple\ of|a\ few|few|an?"
    r"|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
)
_UNIT_RX = r"(?:day|week|month|year|yr)s?"
_SEASON_RX = r"(?:spring|summer|autumn|fall|winter)"
_ORD_RX = r"(?:[0-3]?\d)(?:st|nd|rd|th)?"

# One alternation, each branch bounded: finditer over it is linear in the text.
_PATTERN = re.compile(
    rf"""\b(?:
      (?P<daybefore>the\ day\ before\ yesterday)
    | (?P<dayafter>the\ day\ after\ tomorrow)
    | (?P<yesterday>yesterday|yday|last\ night)
    | (?P<today>today|tonight|this\ (?:morning|afternoon|evening))
    | (?P<tomorrow>tomorrow|tmrw|tmr)
    | (?P<ago>{_NUM_RX})\ (?P<ago_unit>{_UNIT_RX})\ ago
    | in\ (?P<in>{_NUM_RX})\ (?P<in_unit>{_UNIT_RX})
    | (?P<rel>last|next|this|past|coming)\ (?P<rel_what>week(?:end)?|month|year|{_DAY_RX}|{_MONTH_RX}|{_SEASON_RX})
    | (?P<md_month>{_MONTH_RX})\.?\ (?P<md_day>{_ORD_RX})(?:,?\ (?P<md_year>(?:19|20)\d\d))?(?![\d:])
    | (?:the\ )?(?P<dm_day>{_ORD_RX})\ (?:of\ )?(?P<dm_month>{_MONTH_RX})(?:,?\ (?P<dm_year>(?:19|20)\d\d))?
    | (?P<my_month>{_MONTH_RX})\ (?P<my_year>(?:19|20)\d\d)
    | (?:in|during|since|until|over|by)\ (?P<in_month>{_MONTH_RX})\b(?!\ \d)
    | (?:on\ )?(?P<on_day>{_DAY_RX})\b
    | (?P<iso>(?:19|20)\d\d-[01]\d-[0-3]\d)
    | on\ the\ (?P<nth>[0-3]?\d)(?:st|nd|rd|th)
    | (?:in|during|since)\ (?P<in_year>(?:19|20)\d\d)
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
_FUTURE = re.compile(
    r"\b(?:will|won'?t|gonna|going to|'ll|plan(?:ning)?|hope|want to|wanna|next|tomorrow|upcoming|soon|shall)\b|'ll\b",
    re.I,
)
_PAST = re.compile(
    r"\b(?:was|were|went|did|had|got|came|saw|met|made|took|gave|told|said|bought|tried|started|finished)\b|\w{3,}ed\b",
    re.I,
)
_WHEN = re.compile(r"\b(?:when|what (?:day|date|time|month|year)|how long ago|since when)\b", re.I)


@dataclass(frozen=True, slots=True)
class TimeRef:
    """One phrase of the text and the days it means: `first` to `last`, inclusive."""

    phrase: str
    first: date
    last: date

    @property
    def label(self) -> str:
        """The date the phrase means, as a person would write it (a day, a month, or a span)."""
        if self.first == self.last:
            return self.first.isoformat()
        if self.first.day == 1 and (self.last + timedelta(days=1)).day == 1 and self.first.month == self.last.month:
            return self.first.strftime("%Y-%m")
        if self.first == date(self.first.year, 1, 1) and self.last == date(self.first.year, 12, 31):
            return str(self.first.year)
        return f"{self.first.isoformat()}..{self.last.isoformat()}"


def _number(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _NUMBERS.get(word, 1)


def _month_number(word: str) -> int:
    return _MONTH_ABBR[word.lower().rstrip(".")[:4] if word.lower().startswith("sept") else word.lower()[:3]]


def _weekday(word: str) -> int:
    low = word.lower()[:2]
    return next(i for i, name in enumerate(WEEKDAYS) if name.startswith(low))


def _month_span(year: int, month: int) -> tuple[date, date]:
    first = date(year, month, 1)
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    return first, nxt - timedelta(days=1)


def _shift_months(day: date, months: int) -> tuple[int, int]:
    index = day.year * 12 + day.month - 1 + months
    return index // 12, index % 12 + 1


def _day_of(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _season(base: date, name: str, rel: str) -> tuple[date, date]:
    start_month, end_month = _SEASONS[name.lower()]
    year = base.year
    in_season = (
        start_month <= base.month <= end_month
        if start_month <= end_month
        else base.month >= start_month or base.month <= end_month
    )
    if rel in ("last", "past"):
        # "last summer" in August means the summer before this one; in November, this year's.
        year -= 1 if in_season or (start_month <= end_month and base.month < start_month) else 0
        if start_month > end_month and base.month <= end_month and not in_season:
            year -= 1
    elif rel in ("next", "coming") and (in_season or base.month > end_month):
        year += 1
    first = date(year, start_month, 1)
    end_year = year + 1 if start_month > end_month else year
    return first, _month_span(end_year, end_month)[1]


def _resolve_match(m: re.Match[str], base: date, future: bool) -> tuple[date, date] | None:
    g = m.groupdict()
    if g["daybefore"]:
        d = base - timedelta(days=2)
    elif g["dayafter"]:
        d = base + timedelta(days=2)
    elif g["yesterday"]:
        d = base - timedelta(days=1)
    elif g["today"]:
        d = base
    elif g["tomorrow"]:
        d = base + timedelta(days=1)
    elif g["ago"] or g["in"]:
        n = _number(g["ago"] or g["in"]) * (-1 if g["ago"] else 1)
        unit = (g["ago_unit"] or g["in_unit"]).lower().rstrip("s")
        if unit == "day":
            d = base + timedelta(days=n)
        elif unit == "week":
            start = base + timedelta(weeks=n)
            return start - timedelta(days=start.weekday()), start + timedelta(days=6 - start.weekday())
        elif unit == "month":
            return _month_span(*_shift_months(base, n))
        else:
            return date(base.year + n, 1, 1), date(base.year + n, 12, 31)
    elif g["rel"]:
        rel, what = g["rel"].lower(), g["rel_what"].lower()
        step = {"last": -1, "past": -1, "next": 1, "coming": 1, "this": 0}[rel]
        if what == "week":
            monday = base - timedelta(days=base.weekday()) + timedelta(weeks=step)
            return monday, monday + timedelta(days=6)
        if what == "weekend":
            saturday = base + timedelta(days=(5 - base.weekday()) % 7)
            if step < 0:
                saturday -= timedelta(weeks=1)
            elif step > 0 and base.weekday() >= 5:
                saturday += timedelta(weeks=1)
            return saturday, saturday + timedelta(days=1)
        if what == "month":
            return _month_span(*_shift_months(base, step))
        if what == "year":
            return date(base.year + step, 1, 1), date(base.year + step, 12, 31)
        if what in _SEASONS:
            return _season(base, what, rel)
        if re.fullmatch(_MONTH_RX, what, re.I):
            month = _month_number(what)
            year = base.year
            if step < 0 and month >= base.month:
                year -= 1
            elif step > 0 and month <= base.month:
                year += 1
            return _month_span(year, month)
        wd = _weekday(what)
        if step < 0:
            d = base - timedelta(days=(base.weekday() - wd) % 7 or 7)
        elif step > 0:
            # "next Friday" on a Monday is this week's Friday to most people; on a Saturday, the coming one.
            d = base + timedelta(days=(wd - base.weekday()) % 7 or 7)
        else:
            d = base - timedelta(days=base.weekday()) + timedelta(days=wd)
    elif g["md_month"] or g["dm_month"]:
        month = _month_number(g["md_month"] or g["dm_month"])
        day = int(re.match(r"\d+", g["md_day"] or g["dm_day"]).group(0))  # type: ignore[union-attr]
        year_text = g["md_year"] or g["dm_year"]
        year = int(year_text) if year_text else base.year
        found = _day_of(year, month, day)
        if found is None:
            return None
        if not year_text and future and found < base - timedelta(days=30):
            found = _day_of(year + 1, month, day) or found
        elif not year_text and not future and found > base + timedelta(days=30):
            found = _day_of(year - 1, month, day) or found
        d = found
    elif g["my_month"]:
        return _month_span(int(g["my_year"]), _month_number(g["my_month"]))
    elif g["in_month"]:
        month = _month_number(g["in_month"])
        year = base.year
        if future and month < base.month:
            year += 1
        elif not future and month > base.month:
            year -= 1
        return _month_span(year, month)
    elif g["on_day"]:
        wd = _weekday(g["on_day"])
        if future:
            d = base + timedelta(days=(wd - base.weekday()) % 7)
        else:
            d = base - timedelta(days=(base.weekday() - wd) % 7)
    elif g["iso"]:
        try:
            d = date.fromisoformat(g["iso"])
        except ValueError:
            return None
    elif g["nth"]:
        found = _day_of(base.year, base.month, int(g["nth"]))
        if found is None:
            return None
        if future and found < base:
            year, month = _shift_months(base, 1)
            found = _day_of(year, month, found.day) or found
        d = found
    elif g["in_year"]:
        year = int(g["in_year"])
        return date(year, 1, 1), date(year, 12, 31)
    else:  # pragma: no cover - every branch of the pattern is handled above
        return None
    return d, d


def _clauses(text: str) -> list[tuple[int, str]]:
    """The text's clauses with their offsets: tense is judged per clause, not per message."""
    out, start = [], 0
    for m in re.finditer(r"[.!?;\n]+", text):
        out.append((start, text[start : m.start()]))
        start = m.end()
    out.append((start, text[start:]))
    return out


def resolve(text: str, said_at: datetime, *, limit: int = 8) -> list[TimeRef]:
    """The relative (and absolute) time phrases of `text`, resolved against when it was said."""
    base = said_at.date()
    refs: list[TimeRef] = []
    for offset, clause in _clauses(text[:8192]):
        if not clause.strip():
            continue
        future = bool(_FUTURE.search(clause)) and not _PAST.search(clause)
        for m in _PATTERN.finditer(clause):
            phrase = m.group(0)
            if m.group("on_day") and not phrase.lower().startswith("on ") and not _bare_day_ok(clause, m):
                continue
            span = _resolve_match(m, base, future)
            if span is not None:
                refs.append(TimeRef(text[offset + m.start() : offset + m.end()], *span))
            if len(refs) >= limit:
                return refs
    return refs


def _bare_day_ok(clause: str, m: re.Match[str]) -> bool:
    # A bare weekday name is a date in "saw her friday", not in "Friday's standup is cancelled" or "fridays".
    after = clause[m.end() : m.end() + 2]
    return not after.startswith(("'", "s", "’")) and len(m.group("on_day")) > 3


def label_refs(refs: list[TimeRef]) -> str:
    """How a memory shows its resolved dates: ' (yesterday = 2023-05-07; last month = 2023-04)'."""
    seen: list[str] = []
    for ref in refs:
        if ref.phrase.lower() == ref.label:
            continue
        item = f"{ref.phrase} = {ref.label}"
        if item not in seen:
            seen.append(item)
    return f" ({'; '.join(seen)})" if seen else ""


def query_range(question: str, asked_at: datetime) -> tuple[date, date] | None:
    """The span of days a question is about ("what did I do last May?"), or None."""
    refs = [r for r in resolve(question, asked_at) if r.phrase.lower() not in ("today", "tonight")]
    if not refs:
        return None
    return min(r.first for r in refs), max(r.last for r in refs)


def asks_when(question: str) -> bool:
    """Whether the question asks for a time ("when did I start painting?")."""
    return bool(_WHEN.search(question))
