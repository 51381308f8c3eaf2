"""The JSONL records of an export or import, and the validation of one native export line.

Every check here is pure: a bad line raises BadLine, which services/transfer.parse_import turns
into InvalidInput naming the file and line. The reports and the progress protocol that export and
import share live here too, so both sides import them from one place.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ...model import (
    IMPORTANCE_LEVELS,
    LIVE_EPISODE_SOURCES,
    NOTE_CATEGORIES,
    SCOPES,
    SOURCE_CLASSES,
    STORED_ATOM_TYPES,
    TARGETS,
    TURN_TYPE,
    Atom,
    Episode,
    Event,
    FactEntry,
    PendingReview,
    Session,
    SessionNote,
)
from ...people import NAME_RULE
from ...store.recall import LINK_KINDS
from ..atoms import ATOM_TEXT_MAX, NOTE_TEXT_MAX
from ..facts import MAX_FIELD_BYTES, preview

FORMAT = "trusted-memory-export"
# How an event read from a file is recorded: the file's word for who did what is a claim, not history
# this store saw, so it never lands as an `admin` (or `agent`) act (as_imported).
IMPORTED_EVENT = "imported_event"
# Exports written before the rename carry the old name; they import unchanged.
ACCEPTED_FORMATS = frozenset({FORMAT, "mcp-memory-export"})
# Version 2 added sessions (with buffer and transcript), session notes, episodes, associations,
# vectors, nudges shown and chat-import keys; version 1 files (facts, atoms, pending, user model,
# events) still import.
VERSION = 2
READABLE_VERSIONS = (1, 2)
_HEX_ID = re.compile(r"^[0-9a-f]{32}$")
# The owner of an event or import key from a file written before they had one (never a person's
# name): the import gives it the owner of its record (services/admin/transfer.py).
UNSTATED = ""
ImportFormat = Literal["trusted-memory", "reference-graph"]


class ProgressSink(Protocol):
    """Where long work reports how far it got (the CLI draws a bar; None draws nothing)."""

    def start(self, total: int, label: str) -> None:
        """Begin a phase of `total` steps."""

    def advance(self, step: int = 1) -> None:
        """Count `step` more steps done."""

    def close(self) -> None:
        """End the current phase."""


@dataclass(frozen=True, slots=True)
class UserModelField:
    """A confirmed user-model field as it travels in an export."""

    field_path: str
    value: str
    source_class: str
    updated_at: float
    evidence: str = ""
    owner: str = "local"


@dataclass(frozen=True, slots=True)
class Header:
    """The first line of a native export."""

    version: int
    schema_version: int
    exported_at: float
    # The embedding space the file's vectors were built in ("" when unknown: a version 1 file).
    embedding_space: str = ""


@dataclass(frozen=True, slots=True)
class GraphAtom:
    """An atom to create from one observation or relation of a reference-server graph."""

    type: str
    text: str
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """A session with its context buffer and its kept transcript ((role, text, ts) turns)."""

    session: Session
    buffer: tuple[str, ...]
    transcript: tuple[tuple[str, str, float], ...]


@dataclass(frozen=True, slots=True)
class EpisodeRecord:
    """An episode with its stored vector (scale and int8 bytes, or None)."""

    episode: Episode
    scale: float | None
    vec: bytes | None


@dataclass(frozen=True, slots=True)
class Link:
    """An association between two atoms, by their ids."""

    src: str
    dst: str
    link_kind: str
    weight: float


@dataclass(frozen=True, slots=True)
class VectorRecord:
    """An atom's stored vector, in the embedding space it was built in."""

    atom_id: str
    space: str
    scale: float
    vec: bytes


@dataclass(frozen=True, slots=True)
class Nudge:
    """One proactive nudge shown (its caps and cool-downs count from these)."""

    id: int
    nudge_kind: str
    subject: str
    session_id: str | None
    shown_at: float


@dataclass(frozen=True, slots=True)
class ImportKey:
    """The key of one conversation or turn brought in by import-chats (so it is not imported twice)."""

    key: str
    session_id: str
    imported_at: float
    owner: str = "local"  # whose import it was (migration 20)


Value = (
    FactEntry
    | Atom
    | PendingReview
    | UserModelField
    | Event
    | GraphAtom
    | SessionRecord
    | SessionNote
    | EpisodeRecord
    | Link
    | VectorRecord
    | Nudge
    | ImportKey
)


@dataclass(frozen=True, slots=True)
class Record:
    """One validated record and the line it came from."""

    line: int
    kind: str
    value: Value


@dataclass(frozen=True, slots=True)
class ImportPlan:
    """A fully validated import file, not yet applied."""

    source: str
    format: ImportFormat
    records: tuple[Record, ...]
    header: Header | None = None

    def counts(self) -> dict[str, int]:
        """How many records of each kind the file holds."""
        out: dict[str, int] = {}
        for rec in self.records:
            name = _graph_kind(rec) if isinstance(rec.value, GraphAtom) else rec.kind
            out[name] = out.get(name, 0) + 1
        return out


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import did, per record kind."""

    source: str
    format: ImportFormat
    added: dict[str, int]
    skipped: dict[str, int]
    quarantined: dict[str, int] = field(default_factory=dict)
    dropped: int = 0
    dropped_user_model: int = 0
    renumbered: int = 0
    warnings: tuple[str, ...] = ()
    event_id: int = 0
    # Vectors of the file not kept (built in another embedding space): recomputed in this one.
    vectors_recomputed: int = 0
    held_episodes: int = 0


@dataclass(frozen=True, slots=True)
class ExportReport:
    """What an export wrote."""

    counts: dict[str, int]
    schema_version: int
    exported_at: float


def as_imported(event: Event) -> Event:
    """An event of an import file as this store records it: actor `system`, kind `imported_event`,
    the file's actor, kind and detail kept as the detail (an event an earlier import recorded so
    already stays as it is). Its id and time stay the file's, so re-importing finds it again."""
    if event.actor == "system" and event.kind == IMPORTED_EVENT:
        return event
    detail: dict[str, object] = {"actor": event.actor, "kind": event.kind, "detail": event.detail}
    return Event(event.id, event.ts, "system", IMPORTED_EVENT, event.subject, detail, event.owner)


def quarantine_expiry(claimed: float | None, ts: float, ttl_s: float) -> float:
    """When an imported quarantined atom expires: the file's expiry if it is still within a fresh
    review window (so a round trip keeps it), else a fresh window from now. A file can neither keep
    untrusted text forever (no expiry, or one years away) nor hand over one already expired, which
    the review listing would never show."""
    fresh = ts + ttl_s
    return claimed if claimed is not None and ts < claimed <= fresh else fresh


def _graph_kind(rec: Record) -> str:
    return "relation" if rec.kind == "relation" else "observation"


# --- validation -------------------------------------------------------------------------------


class BadLine(Exception):
    """A line problem; parse_import adds the file name and line number."""


def _no_constant(name: str) -> object:
    raise BadLine(f"{name} is not a JSON number")


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadLine(f"{name} must be a number, not {_json_type(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise BadLine(f"{name} must be a finite number")
    return float(value)


def _json_type(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value),
        "a number" if isinstance(value, int | float) else type(value).__name__,
    )


def _check(annotation: str, name: str, value: object) -> object:
    """Check one JSON value against a model field's annotation; returns the field value."""
    optional = annotation.endswith(" | None")
    base = annotation.removesuffix(" | None")
    if value is None:
        if optional:
            return None
        raise BadLine(f"{name} may not be null")
    if base in ("str", "Target", "Actor", "AtomStatus"):
        if not isinstance(value, str):
            raise BadLine(f"{name} must be a string, not {_json_type(value)}")
        return value
    if base == "float":
        return _number(name, value)
    if base == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadLine(f"{name} must be an integer, not {_json_type(value)}")
        return value
    if base == "bool":
        if not isinstance(value, bool):
            raise BadLine(f"{name} must be true or false, not {_json_type(value)}")
        return value
    if base == "tuple[str, ...]":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise BadLine(f"{name} must be a list of strings")
        return tuple(value)
    if base == "tuple[tuple[str, str], ...]":
        pairs = value if isinstance(value, list) else None
        if pairs is None or not all(
            isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v) for v in pairs
        ):
            raise BadLine(f"{name} must be a list of [string, string] pairs")
        return tuple((str(a), str(b)) for a, b in pairs)
    if base == "dict[str, object]":
        if not isinstance(value, dict):
            raise BadLine(f"{name} must be an object, not {_json_type(value)}")
        return value
    # A new model field of a type this validator does not know: fail loudly in tests, not silently.
    raise BadLine(f"{name} has an unsupported field type {annotation}")


def _build(cls: type[Any], body: dict[str, object], renames: Mapping[str, str] | None = None) -> Any:
    """Construct a model dataclass from a JSON object, field by field, refusing unknown fields."""
    renames = renames or {}
    known = {renames.get(f.name, f.name): f for f in dataclasses.fields(cls)}
    unknown = sorted(set(body) - set(known))
    if unknown:
        raise BadLine(f"unknown field {unknown[0]!r}")
    values: dict[str, object] = {}
    for json_name, f in known.items():
        if json_name not in body:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise BadLine(f"missing field {json_name!r}")
            continue
        values[f.name] = _check(str(f.type), json_name, body[json_name])
    return cls(**values)


def _in(name: str, value: str, allowed: Iterable[str]) -> None:
    allowed = tuple(allowed)
    if value not in allowed:
        raise BadLine(f"{name} must be one of {', '.join(allowed)}; got {preview(value, 40)!r}")


def _unit(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise BadLine(f"{name} must be between 0 and 1; got {value}")


def _hex_id(value: str) -> None:
    if not _HEX_ID.match(value):
        raise BadLine(f"id {preview(value, 40)!r} is not 32 lower-case hex characters")


def _text(name: str, value: str, limit: int) -> None:
    if not value.strip():
        raise BadLine(f"{name} is empty")
    if len(value) > limit:
        raise BadLine(f"{name} is {len(value):,} characters; the limit is {limit:,}")


def _fact(body: dict[str, object]) -> FactEntry:
    entry: FactEntry = _build(FactEntry, body)
    _in("target", entry.target, TARGETS)
    if entry.id < 1:
        raise BadLine("id must be 1 or more")
    if not entry.content.strip() or len(entry.content.encode("utf-8")) > MAX_FIELD_BYTES:
        raise BadLine(f"content must be 1-{MAX_FIELD_BYTES:,} bytes")
    _owner(entry.owner)
    return entry


def _atom(body: dict[str, object]) -> Atom:
    atom: Atom = _build(Atom, body)
    _hex_id(atom.id)
    _in("type", atom.type, STORED_ATOM_TYPES)
    _text("text", atom.text, NOTE_TEXT_MAX if atom.type in ("note", TURN_TYPE) else ATOM_TEXT_MAX)
    if atom.cue is not None and len(atom.cue) > ATOM_TEXT_MAX:
        raise BadLine(f"cue is {len(atom.cue):,} characters; the limit is {ATOM_TEXT_MAX:,}")
    _in("source_class", atom.source_class, SOURCE_CLASSES)
    _unit("confidence", atom.confidence)
    _in("importance", atom.importance, IMPORTANCE_LEVELS)
    _in("scope", atom.scope, SCOPES)
    _in("status", atom.status, ("live", "quarantined"))
    if atom.recall_count < 0 or (atom.turn is not None and atom.turn < 0):
        raise BadLine("recall_count and turn must be 0 or more")
    _owner(atom.owner)
    return atom


def _owner(name: str) -> None:
    if not NAME_RULE.fullmatch(name):
        raise BadLine(f"owner {name[:60]!r} is not a person's name (1-40 of a-z, 0-9, '.', '_', '-')")


def _pending(body: dict[str, object]) -> PendingReview:
    item: PendingReview = _build(PendingReview, body)
    _hex_id(item.id)
    _unit("confidence", item.confidence)
    _text("field_path", item.field_path, MAX_FIELD_BYTES)
    _text("value", item.value, MAX_FIELD_BYTES)
    _owner(item.owner)
    return item


def _user_model(body: dict[str, object]) -> UserModelField:
    item: UserModelField = _build(UserModelField, body)
    _text("field_path", item.field_path, MAX_FIELD_BYTES)
    _text("value", item.value, MAX_FIELD_BYTES)
    if len(item.evidence) > MAX_FIELD_BYTES:
        raise BadLine(f"evidence is {len(item.evidence):,} characters; the limit is {MAX_FIELD_BYTES:,}")
    _in("source_class", item.source_class, SOURCE_CLASSES)
    _owner(item.owner)
    return item


def _event(body: dict[str, object]) -> Event:
    event: Event = _build(Event, body, {"kind": "event_kind"})
    _in("actor", event.actor, ("agent", "admin", "system"))
    if event.id < 1:
        raise BadLine("id must be 1 or more")
    if "owner" not in body:
        return dataclasses.replace(event, owner=UNSTATED)
    _owner(event.owner)
    return event


_SESSION_ID = re.compile(r"^[\w.:@/+-]{1,128}$")
MAX_BUFFER_LINES = 1000
MAX_TRANSCRIPT_TURNS = 1000


def _session_id(name: str, value: str) -> None:
    if not _SESSION_ID.match(value):
        raise BadLine(f"{name} {preview(value, 40)!r} is not a session id (1-128 letters, digits or . : @ / + - _)")


def encode_blob(blob: bytes | None) -> str | None:
    """A vector's bytes as they travel in a file (base64)."""
    return None if blob is None else base64.b64encode(blob).decode("ascii")


def _blob(name: str, value: object) -> bytes:
    if not isinstance(value, str):
        raise BadLine(f"{name} must be a base64 string, not {_json_type(value)}")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise BadLine(f"{name} is not valid base64 ({exc})") from exc


def _session(body: dict[str, object]) -> SessionRecord:
    buffer = body.pop("buffer", [])
    transcript = body.pop("transcript", [])
    session: Session = _build(Session, body)
    _session_id("id", session.id)
    if session.turns < 0:
        raise BadLine("turns must be 0 or more")
    _owner(session.owner)
    if not isinstance(buffer, list) or not all(isinstance(v, str) for v in buffer):
        raise BadLine("buffer must be a list of strings")
    if len(buffer) > MAX_BUFFER_LINES:
        raise BadLine(f"buffer holds {len(buffer):,} lines; the limit is {MAX_BUFFER_LINES:,}")
    turns: list[tuple[str, str, float]] = []
    if not isinstance(transcript, list) or len(transcript) > MAX_TRANSCRIPT_TURNS:
        raise BadLine(f"transcript must be a list of at most {MAX_TRANSCRIPT_TURNS:,} [role, text, time] turns")
    for turn in transcript:
        if not (isinstance(turn, list) and len(turn) == 3 and isinstance(turn[0], str) and isinstance(turn[1], str)):
            raise BadLine("each transcript turn must be [role, text, time]")
        _in("transcript role", turn[0], ("user", "assistant"))
        if len(turn[1].encode("utf-8")) > MAX_FIELD_BYTES * 4:
            raise BadLine(f"a transcript turn is over {MAX_FIELD_BYTES * 4:,} bytes")
        turns.append((turn[0], turn[1], _number("transcript time", turn[2])))
    return SessionRecord(session, tuple(buffer), tuple(turns))


def _note(body: dict[str, object]) -> SessionNote:
    note: SessionNote = _build(SessionNote, body)
    _session_id("session_id", note.session_id)
    _in("category", note.category, NOTE_CATEGORIES)
    _text("text", note.text, MAX_FIELD_BYTES)
    if "owner" not in body:
        note = dataclasses.replace(note, owner=UNSTATED)
    else:
        _owner(note.owner)
    if note.id < 1:
        raise BadLine("id must be 1 or more")
    return note


def _episode(body: dict[str, object]) -> EpisodeRecord:
    scale, vec = body.pop("scale", None), body.pop("vec", None)
    episode: Episode = _build(Episode, body)
    _hex_id(episode.id)
    _session_id("session_id", episode.session_id)
    _in("status", episode.status, ("live", "held"))
    _in("source_class", episode.source_class, (*LIVE_EPISODE_SOURCES, *SOURCE_CLASSES))
    _text("summary", episode.summary, MAX_FIELD_BYTES * 2)
    _owner(episode.owner)
    if episode.turns < 0:
        raise BadLine("turns must be 0 or more")
    if (scale is None) != (vec is None):
        raise BadLine("scale and vec go together: both numbers/base64, or both null")
    if scale is None:
        return EpisodeRecord(episode, None, None)
    return EpisodeRecord(episode, _number("scale", scale), _blob("vec", vec))


def _link(body: dict[str, object]) -> Link:
    link: Link = _build(Link, body)
    _hex_id(link.src)
    _hex_id(link.dst)
    _in("link_kind", link.link_kind, LINK_KINDS)
    _unit("weight", link.weight)
    return link


def _vector(body: dict[str, object]) -> VectorRecord:
    record: _VectorBody = _build(_VectorBody, body)
    _hex_id(record.atom_id)
    if not record.space.strip():
        raise BadLine("space is empty")
    return VectorRecord(record.atom_id, record.space, record.scale, _blob("vec", record.vec))


@dataclass(frozen=True, slots=True)
class _VectorBody:
    """A vector line's fields before its base64 is decoded."""

    atom_id: str
    space: str
    scale: float
    vec: str


def _nudge(body: dict[str, object]) -> Nudge:
    nudge: Nudge = _build(Nudge, body)
    if nudge.id < 1:
        raise BadLine("id must be 1 or more")
    _text("nudge_kind", nudge.nudge_kind, 64)
    _text("subject", nudge.subject, MAX_FIELD_BYTES)
    return nudge


def _import_key(body: dict[str, object]) -> ImportKey:
    key: ImportKey = _build(ImportKey, body)
    _text("key", key.key, 512)
    _session_id("session_id", key.session_id)
    if "owner" not in body:
        return dataclasses.replace(key, owner=UNSTATED)
    _owner(key.owner)
    return key


# In export order: what a later record refers to (an atom of a link, a session of a note) comes first.
NATIVE_KINDS: dict[str, Callable[[dict[str, object]], Value]] = {
    "fact": _fact,
    "atom": _atom,
    "pending": _pending,
    "user_model": _user_model,
    "session": _session,
    "session_note": _note,
    "episode": _episode,
    "association": _link,
    "vector": _vector,
    "nudge": _nudge,
    "import_key": _import_key,
    "event": _event,
}


def parse_header(body: dict[str, object]) -> Header:
    """Validate the header line of a native export."""
    if body.get("format") not in ACCEPTED_FORMATS:
        raise BadLine(f"the header's format must be {FORMAT!r}")
    version = body.get("version")
    if version not in READABLE_VERSIONS or isinstance(version, bool) or not isinstance(version, int):
        raise BadLine(
            f"export format version {version!r} is not supported (this trusted-memory reads versions "
            f"{', '.join(map(str, READABLE_VERSIONS))}); upgrade trusted-memory to import it"
        )
    schema = body.get("schema_version")
    if isinstance(schema, bool) or not isinstance(schema, int):
        raise BadLine("the header's schema_version must be an integer")
    space = body.get("embedding_space", "")
    if not isinstance(space, str):
        raise BadLine("the header's embedding_space must be a string")
    return Header(version, schema, _number("exported_at", body.get("exported_at")), space)


def load_line(raw: str | bytes) -> dict[str, object]:
    """Decode one import line into a JSON object."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadLine(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise BadLine(f"not valid JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(data, dict):
        raise BadLine(f"each line must be a JSON object, not {_json_type(data)}")
    return data
