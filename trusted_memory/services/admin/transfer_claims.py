"""What an import file claims, for the person who is asked to confirm it.

An import file can be written by anything with file access, an agent included, and it may claim
trust: live `user_approved` atoms, pinned or critical ones, facts and user-model fields (always-on
context), `admin` acts in its history. The confirmation shows those claims, not just counts, so a
person decides on what would enter trusted memory. Pure: computed from the parsed plan alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model import LIVE_EPISODE_SOURCES, Atom, Event, FactEntry, SessionNote
from ...timefmt import iso_utc
from ...trust import is_trusted
from ...usermodel import normalize
from .transfer_records import (
    EpisodeRecord,
    GraphAtom,
    ImportKey,
    ImportPlan,
    Link,
    Nudge,
    SessionRecord,
    UserModelField,
    VectorRecord,
)


@dataclass(frozen=True, slots=True)
class ClaimedItem:
    """One record that would be trusted, pinned or critical, or that claims an admin act."""

    kind: str
    ref: str
    claims: str
    text: str


@dataclass(frozen=True, slots=True)
class ImportClaims:
    """Counts by (record kind, trust class), and every notable record."""

    counts: tuple[tuple[str, str, int], ...]
    notable: tuple[ClaimedItem, ...]


def _atom_class(atom: Atom) -> str:
    if atom.status != "live":
        return f"quarantined ({atom.quarantine_reason or 'tainted'})"
    if is_trusted(atom.source_class):
        return f"live {atom.source_class}"
    return f"live {atom.source_class} (will be held: untrusted source)"


def _atom_item(atom: Atom) -> ClaimedItem | None:
    flags = [f for f, on in (("pinned", atom.pinned), ("critical", atom.importance == "critical")) if on]
    if not flags and not (atom.status == "live" and is_trusted(atom.source_class)):
        return None
    return ClaimedItem("atom", atom.id, ", ".join([_atom_class(atom), *flags]), atom.text)


def _fact_item(entry: FactEntry) -> ClaimedItem:
    ref = f"{entry.target} fact" + (f" key={entry.key}" if entry.key else "")
    return ClaimedItem("fact", ref, "trusted context" + (", pinned" if entry.pinned else ""), entry.content)


def _field_class(item: UserModelField) -> str:
    if not is_trusted(item.source_class):
        return f"{item.source_class} (never trusted: dropped)"
    if normalize(item.field_path, item.value) != item.value:
        return f"{item.source_class} (not a valid field or value: dropped)"
    return item.source_class


def _event_item(event: Event) -> ClaimedItem:
    return ClaimedItem(
        "event",
        f"event {event.id}",
        f"claims actor admin: {event.kind} at {iso_utc(event.ts)}",
        " ".join(p for p in (event.subject or "", str(event.detail) if event.detail else "") if p),
    )


def _episode_class(item: EpisodeRecord) -> str:
    episode = item.episode
    if episode.status != "live":
        return "held (waits for review)"
    if episode.source_class not in LIVE_EPISODE_SOURCES:
        return f"live {episode.source_class} (will be held: not a summary's source)"
    return f"live {episode.source_class}"


def _session_class(item: SessionRecord) -> str:
    session = item.session
    if session.untrusted or session.relayed:
        return "untrusted"
    if session.ended_at is None and item.transcript:
        return "open, trusted (its transcript becomes a live episode when it ends)"
    return "trusted" if session.ended_at is None else "ended"


def _other(value: object, space: str) -> tuple[str, str] | None:
    """(kind, class) of the records with no trust of their own."""
    if isinstance(value, SessionNote):
        return "session_note", "context of its session (re-scanned)"
    if isinstance(value, Link):
        return "association", "ranking link (kept when both atoms are here)"
    if isinstance(value, VectorRecord):
        same = bool(space) and value.space == space
        return "vector", "kept (same embedding space)" if same else f"recomputed (built in {value.space})"
    if isinstance(value, Nudge):
        return "nudge", "shown-nudge log"
    if isinstance(value, ImportKey):
        return "import_key", "chat-import key"
    return None


def import_claims(plan: ImportPlan, *, trust_graph: bool, space: str = "") -> ImportClaims:
    """What the plan's records claim, and which of them a person must see before confirming.

    `space`: the embedding space this store embeds in (the file's vectors of another are recomputed).
    """
    counts: dict[tuple[str, str], int] = {}
    notable: list[ClaimedItem] = []

    def count(kind: str, trust: str) -> None:
        counts[(kind, trust)] = counts.get((kind, trust), 0) + 1

    for rec in plan.records:
        value = rec.value
        if isinstance(value, GraphAtom):
            kind = "relation" if rec.kind == "relation" else "observation"
            trust = "live user_approved (--trust-graph)" if trust_graph else "quarantined (file_read)"
            count(kind, trust)
            if trust_graph:
                notable.append(ClaimedItem(kind, f"line {rec.line}", trust, value.text))
        elif isinstance(value, FactEntry):
            count("fact", "trusted context")
            notable.append(_fact_item(value))
        elif isinstance(value, Atom):
            count("atom", _atom_class(value))
            item = _atom_item(value)
            if item is not None:
                notable.append(item)
        elif isinstance(value, UserModelField):
            count("user_model", _field_class(value))
            notable.append(ClaimedItem("user_model", value.field_path, _field_class(value), value.value))
        elif isinstance(value, Event):
            count("event", f"claims actor {value.actor} (recorded as imported)")
            if value.actor == "admin":
                notable.append(_event_item(value))
        elif isinstance(value, EpisodeRecord):
            trust = _episode_class(value)
            count("episode", trust)
            if value.episode.status == "live":
                notable.append(ClaimedItem("episode", value.episode.id, trust, value.episode.summary))
        elif isinstance(value, SessionRecord):
            trust = _session_class(value)
            count("session", trust)
            if trust.startswith("open, trusted"):
                text = " / ".join(t for r, t, _ in value.transcript if r == "user")
                notable.append(ClaimedItem("session", value.session.id, trust, text))
        elif (other := _other(value, space)) is not None:
            count(*other)
        else:
            count(rec.kind, "awaiting review")
    return ImportClaims(tuple((k, t, n) for (k, t), n in counts.items()), tuple(notable))
