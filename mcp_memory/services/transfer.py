"""Export the whole store as JSONL, and import it back (or the reference memory server's graph).

Native format, version 1: a header line, then one record per line.

    {"kind":"header","format":"mcp-memory-export","version":1,"schema_version":2,"exported_at":T}
    {"kind":"fact", ...every FactEntry field}
    {"kind":"atom", ...every Atom field}
    {"kind":"pending", ...every PendingReview field}
    {"kind":"user_model","field_path":...,"value":...,"source_class":...,"updated_at":...}
    {"kind":"event","event_kind":..., ...every other Event field}

`kind` names the record, so an event's own kind travels as `event_kind`. Exporting and importing
into an empty store reproduces every record field for field. Importing into a store that already
holds data merges, and importing the same file twice changes nothing:

- fact: skipped when the same entry, its key, or its normalised text is already in the target;
  inserted under its own id, or under a new one when that id is taken by a different entry.
- atom: skipped when its id is present, or its normalised text was already stored before this
  import. A `live` atom is re-scanned: failing text is held in quarantine (`scan_rejected`), and a
  live atom with an untrusted source class is held as `tainted`, so an edited export cannot put
  anything into trusted memory that a human could not have approved.
- pending: skipped when its id or its (field, value) is present; dropped when the scanner flags it.
- user_model: the newer `updated_at` wins.
- event: skipped when the same event is present; renumbered when its id is taken by another one.
- facts and user-model fields are always-on trusted context with no quarantine of their own, so
  one that fails the content scan fails the import, naming its line.

The reference server (`@modelcontextprotocol/server-memory`) writes entity and relation lines; each
observation becomes a `fact` atom "<name>: <observation>" (a `note` past 300 characters) and each
relation an atom "<from> <relation type> <to>", as `user_approved` memory because a human chose to
import their own graph; duplicates by normalised text are skipped. The format is detected from the
first non-empty line. Every import validates every line first, then applies all of it in one write
transaction with one `import` event (actor admin): a bad line changes nothing.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ..errors import InvalidInput, MemoryServerError
from ..model import (
    ATOM_TYPES, FALLBACK_ATOM_TYPE, IMPORTANCE_LEVELS, SCOPES, SOURCE_CLASSES, TARGETS, Atom,
    Event, FactEntry, PendingReview,
)
from ..scan import describe, normalize_for_dedup, scan
from ..store.atoms import AtomFilter
from ..store.db import Tx, now
from ..store.privileged import PrivilegedOps
from ..trust import is_trusted
from .atoms import ATOM_TEXT_MAX, DAY, NOTE_TEXT_MAX, check_tags, new_id
from .facts import MAX_FIELD_BYTES, preview
from .runtime import Runtime

FORMAT = "mcp-memory-export"
VERSION = 1
PAGE = 1000
GRAPH_CONFIDENCE = 0.8
_HEX_ID = re.compile(r"^[0-9a-f]{32}$")
_SLUG = re.compile(r"[^\w]+")
ImportFormat = Literal["mcp-memory", "reference-graph"]


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


@dataclass(frozen=True, slots=True)
class Header:
    """The first line of a native export."""

    version: int
    schema_version: int
    exported_at: float


@dataclass(frozen=True, slots=True)
class GraphAtom:
    """An atom to create from one observation or relation of a reference-server graph."""

    type: str
    text: str
    tags: tuple[str, ...]


Value = FactEntry | Atom | PendingReview | UserModelField | Event | GraphAtom


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
    renumbered: int = 0
    warnings: tuple[str, ...] = ()
    event_id: int = 0


@dataclass(frozen=True, slots=True)
class ExportReport:
    """What an export wrote."""

    counts: dict[str, int]
    schema_version: int
    exported_at: float


# --- export -----------------------------------------------------------------------------------


def _plain(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


def to_record(kind: str, value: object) -> dict[str, object]:
    """The export record of a domain value: `kind` first, then every dataclass field."""
    rename = {"kind": "event_kind"} if isinstance(value, Event) else {}
    body = {rename.get(f.name, f.name): _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}  # type: ignore[arg-type]
    return {"kind": kind, **body}


def dumps(record: Mapping[str, object]) -> str:
    """One JSONL line."""
    # ASCII escapes keep hidden or bidi characters of quarantined text visible, and inert,
    # when someone reads the file in a terminal or an editor.
    return json.dumps(record, ensure_ascii=True, separators=(",", ":"))


async def export_jsonl(
    runtime: Runtime, write: Callable[[str], object], progress: ProgressSink | None = None,
) -> ExportReport:
    """Write every record of the store as JSONL lines (each ending in a newline) through `write`."""
    store = runtime.store
    counts = {"fact": 0, "atom": 0, "pending": 0, "user_model": 0, "event": 0}
    everything = AtomFilter(status=None, include_expired=True)
    ts = now()
    # One read snapshot: the file is consistent even while servers keep writing.
    async with store.read() as rx:
        schema = await rx.schema_version()
        facts = await rx.facts.list()
        pending = await rx.pending.list(now=ts, include_expired=True)
        model = await rx.pending.model_fields()
        n_atoms = await rx.atoms.count(everything, now=ts)
        n_events = await rx.events.count()
        if progress:
            progress.start(len(facts) + n_atoms + len(pending) + len(model) + n_events, "export")

        def emit(kind: str, record: Mapping[str, object]) -> None:
            write(dumps(record) + "\n")
            counts[kind] += 1
            if progress:
                progress.advance()

        write(dumps({"kind": "header", "format": FORMAT, "version": VERSION,
                     "schema_version": schema, "exported_at": ts}) + "\n")
        for entry in facts:
            emit("fact", to_record("fact", entry))
        offset = 0
        while batch := await rx.atoms.list(everything, now=ts, limit=PAGE, offset=offset, newest_first=False):
            for atom in batch:
                emit("atom", to_record("atom", atom))
            offset += len(batch)
        for item in pending:
            emit("pending", to_record("pending", item))
        for path, value, source_class, updated_at, evidence in model:
            emit("user_model", to_record("user_model", UserModelField(path, value, source_class, updated_at, evidence)))
        after = 0
        while events := await rx.events.list(after_id=after, limit=PAGE):
            for event in events:
                emit("event", to_record("event", event))
            after = events[-1].id
    if progress:
        progress.close()
    return ExportReport(counts, schema, ts)


# --- parsing and validation -------------------------------------------------------------------


class _Bad(Exception):
    """A line problem; parse_import adds the file name and line number."""


def _no_constant(name: str) -> object:
    raise _Bad(f"{name} is not a JSON number")


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Bad(f"{name} must be a number, not {_json_type(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise _Bad(f"{name} must be a finite number")
    return float(value)


def _json_type(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__,
    )


def _check(annotation: str, name: str, value: object) -> object:
    """Check one JSON value against a model field's annotation; returns the field value."""
    optional = annotation.endswith(" | None")
    base = annotation.removesuffix(" | None")
    if value is None:
        if optional:
            return None
        raise _Bad(f"{name} may not be null")
    if base in ("str", "Target", "Actor", "AtomStatus"):
        if not isinstance(value, str):
            raise _Bad(f"{name} must be a string, not {_json_type(value)}")
        return value
    if base == "float":
        return _number(name, value)
    if base == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Bad(f"{name} must be an integer, not {_json_type(value)}")
        return value
    if base == "bool":
        if not isinstance(value, bool):
            raise _Bad(f"{name} must be true or false, not {_json_type(value)}")
        return value
    if base == "tuple[str, ...]":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _Bad(f"{name} must be a list of strings")
        return tuple(value)
    if base == "dict[str, object]":
        if not isinstance(value, dict):
            raise _Bad(f"{name} must be an object, not {_json_type(value)}")
        return value
    # A new model field of a type this validator does not know: fail loudly in tests, not silently.
    raise _Bad(f"{name} has an unsupported field type {annotation}")


def _build(cls: type[Any], body: dict[str, object], renames: Mapping[str, str] | None = None) -> Any:
    """Construct a model dataclass from a JSON object, field by field, refusing unknown fields."""
    renames = renames or {}
    known = {renames.get(f.name, f.name): f for f in dataclasses.fields(cls)}
    unknown = sorted(set(body) - set(known))
    if unknown:
        raise _Bad(f"unknown field {unknown[0]!r}")
    values: dict[str, object] = {}
    for json_name, f in known.items():
        if json_name not in body:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise _Bad(f"missing field {json_name!r}")
            continue
        values[f.name] = _check(str(f.type), json_name, body[json_name])
    return cls(**values)


def _in(name: str, value: str, allowed: Iterable[str]) -> None:
    allowed = tuple(allowed)
    if value not in allowed:
        raise _Bad(f"{name} must be one of {', '.join(allowed)}; got {preview(value, 40)!r}")


def _unit(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise _Bad(f"{name} must be between 0 and 1; got {value}")


def _hex_id(value: str) -> None:
    if not _HEX_ID.match(value):
        raise _Bad(f"id {preview(value, 40)!r} is not 32 lower-case hex characters")


def _text(name: str, value: str, limit: int) -> None:
    if not value.strip():
        raise _Bad(f"{name} is empty")
    if len(value) > limit:
        raise _Bad(f"{name} is {len(value):,} characters; the limit is {limit:,}")


def _fact(body: dict[str, object]) -> FactEntry:
    entry: FactEntry = _build(FactEntry, body)
    _in("target", entry.target, TARGETS)
    if entry.id < 1:
        raise _Bad("id must be 1 or more")
    if not entry.content.strip() or len(entry.content.encode("utf-8")) > MAX_FIELD_BYTES:
        raise _Bad(f"content must be 1-{MAX_FIELD_BYTES:,} bytes")
    return entry


def _atom(body: dict[str, object]) -> Atom:
    atom: Atom = _build(Atom, body)
    _hex_id(atom.id)
    _in("type", atom.type, (*ATOM_TYPES, FALLBACK_ATOM_TYPE))
    _text("text", atom.text, NOTE_TEXT_MAX if atom.type == "note" else ATOM_TEXT_MAX)
    _in("source_class", atom.source_class, SOURCE_CLASSES)
    _unit("confidence", atom.confidence)
    _in("importance", atom.importance, IMPORTANCE_LEVELS)
    _in("scope", atom.scope, SCOPES)
    _in("status", atom.status, ("live", "quarantined"))
    if atom.recall_count < 0 or (atom.turn is not None and atom.turn < 0):
        raise _Bad("recall_count and turn must be 0 or more")
    return atom


def _pending(body: dict[str, object]) -> PendingReview:
    item: PendingReview = _build(PendingReview, body)
    _hex_id(item.id)
    _unit("confidence", item.confidence)
    _text("field_path", item.field_path, MAX_FIELD_BYTES)
    _text("value", item.value, MAX_FIELD_BYTES)
    return item


def _user_model(body: dict[str, object]) -> UserModelField:
    item: UserModelField = _build(UserModelField, body)
    _text("field_path", item.field_path, MAX_FIELD_BYTES)
    _text("value", item.value, MAX_FIELD_BYTES)
    if len(item.evidence) > MAX_FIELD_BYTES:
        raise _Bad(f"evidence is {len(item.evidence):,} characters; the limit is {MAX_FIELD_BYTES:,}")
    _in("source_class", item.source_class, SOURCE_CLASSES)
    return item


def _event(body: dict[str, object]) -> Event:
    event: Event = _build(Event, body, {"kind": "event_kind"})
    _in("actor", event.actor, ("agent", "admin", "system"))
    if event.id < 1:
        raise _Bad("id must be 1 or more")
    return event


NATIVE_KINDS: dict[str, Callable[[dict[str, object]], Value]] = {
    "fact": _fact, "atom": _atom, "pending": _pending, "user_model": _user_model, "event": _event,
}


def _header(body: dict[str, object]) -> Header:
    if body.get("format") != FORMAT:
        raise _Bad(f"the header's format must be {FORMAT!r}")
    version = body.get("version")
    if version != VERSION or isinstance(version, bool):
        raise _Bad(f"export format version {version!r} is not supported (this mcp-memory reads version {VERSION})")
    schema = body.get("schema_version")
    if isinstance(schema, bool) or not isinstance(schema, int):
        raise _Bad("the header's schema_version must be an integer")
    return Header(VERSION, schema, _number("exported_at", body.get("exported_at")))


def slug(text: str) -> str:
    """A tag made from free text: lower-case words joined by '-', at most 40 characters."""
    return _SLUG.sub("-", text.strip().lower()).strip("-_")[:40].rstrip("-_")


def _graph_text(text: str) -> str:
    kind = "fact" if len(text) <= ATOM_TEXT_MAX else "note"
    if len(text) > NOTE_TEXT_MAX:
        raise _Bad(f"the atom text would be {len(text):,} characters; a note holds at most {NOTE_TEXT_MAX:,}")
    return kind


def _graph_str(body: Mapping[str, object], name: str, *, required: bool = True) -> str:
    value = body.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise _Bad(f"{name!r} must be a non-empty string")
    return " ".join(value.split())


def _graph(body: dict[str, object]) -> list[GraphAtom]:
    kind = body.get("type")
    if kind == "entity":
        name = _graph_str(body, "name")
        entity_type = _graph_str(body, "entityType", required=False)
        observations = body.get("observations", [])
        if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
            raise _Bad("'observations' must be a list of strings")
        tags = check_tags([t for t in (slug(entity_type), slug(name)) if t])
        out = []
        for observation in observations:
            if not observation.strip():
                continue
            text = f"{name}: {observation.strip()}"
            out.append(GraphAtom(_graph_text(text), text, tags))
        return out
    if kind == "relation":
        source, target = _graph_str(body, "from"), _graph_str(body, "to")
        relation = _graph_str(body, "relationType").replace("_", " ")
        text = f"{source} {relation} {target}"
        tags = check_tags([t for t in ("relation", slug(source), slug(target)) if t])
        return [GraphAtom(_graph_text(text), text, tags)]
    raise _Bad(f"unknown record type {kind!r} (a reference-server graph holds 'entity' and 'relation' lines)")


def _graph_kind(rec: Record) -> str:
    return "relation" if rec.kind == "relation" else "observation"


def _load(raw: str | bytes) -> dict[str, object]:
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _Bad(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise _Bad(f"not valid JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(data, dict):
        raise _Bad(f"each line must be a JSON object, not {_json_type(data)}")
    return data


def parse_import(lines: Iterable[str | bytes], source: str) -> ImportPlan:
    """Validate every line of an import file; any problem raises InvalidInput naming the line."""
    fmt: ImportFormat | None = None
    header: Header | None = None
    records: list[Record] = []
    number = 0
    try:
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            body = _load(raw)
            if fmt is None:
                if body.get("kind") == "header":
                    fmt, header = "mcp-memory", _header(body)
                    continue
                if body.get("type") in ("entity", "relation"):
                    fmt = "reference-graph"
                else:
                    raise _Bad(
                        "this is neither an mcp-memory export (its first line is a header with "
                        f"format {FORMAT!r}) nor a reference memory-server graph (entity/relation lines)"
                    )
            if fmt == "reference-graph":
                kind = str(body.get("type"))
                records.extend(Record(number, kind, atom) for atom in _graph(body))
                continue
            kind_value = body.pop("kind", None)
            if kind_value == "header":
                raise _Bad("a header may only be the first line")
            if not isinstance(kind_value, str) or kind_value not in NATIVE_KINDS:
                raise _Bad(f"unknown record kind {kind_value!r} (expected one of {', '.join(NATIVE_KINDS)})")
            records.append(Record(number, kind_value, NATIVE_KINDS[kind_value](body)))
    except (_Bad, MemoryServerError) as exc:
        reason = exc.message if isinstance(exc, MemoryServerError) else str(exc)
        raise InvalidInput(f"{source} line {number}: {reason}; nothing was imported") from exc
    if fmt is None:
        raise InvalidInput(f"{source} is empty; nothing to import")
    return ImportPlan(source, fmt, tuple(records), header)


# --- applying ---------------------------------------------------------------------------------


def _scan_text(atom: Atom) -> str:
    # The same fields the write path scans (services/atoms.build_atom).
    parts = (atom.text, atom.why or "", atom.how_to_apply or "", " ".join(atom.tags), atom.project or "")
    return "\n".join(p for p in parts if p)


class _Importer:
    """Applies one plan inside one write transaction, counting what it did."""

    def __init__(self, runtime: Runtime, plan: ImportPlan, tx: Tx, ts: float) -> None:
        self.settings = runtime.settings
        self.plan = plan
        self.tx = tx
        self.ts = ts
        self.added: dict[str, int] = {}
        self.skipped: dict[str, int] = {}
        self.quarantined: dict[str, int] = {}
        self.dropped = 0
        self.renumbered = 0
        self.inserted_atoms: set[str] = set()
        self.deferred: list[Event] = []
        self.facts: list[FactEntry] = []
        self.model: dict[str, tuple[str, str, float]] = {}

    def count(self, kind: str, added: bool) -> None:
        target = self.added if added else self.skipped
        target[kind] = target.get(kind, 0) + 1

    async def load(self) -> None:
        self.facts = await self.tx.facts.list()
        self.model = await self.tx.pending.user_model()

    def refuse(self, rec: Record, what: str, text: str) -> None:
        findings = scan(text)
        if findings:
            raise _Bad(
                f"this {what} fails the content scan ({describe(findings)}); trusted context never holds "
                f"such text. Remove or fix line {rec.line} and import again"
            )

    async def fact(self, rec: Record, entry: FactEntry) -> None:
        self.refuse(rec, "fact", "\n".join((entry.content, entry.key or "", " ".join(entry.keywords))))
        norm = normalize_for_dedup(entry.content)
        if any(
            e.target == entry.target
            and ((entry.key is not None and e.key == entry.key) or normalize_for_dedup(e.content) == norm)
            for e in self.facts
        ):
            self.count("fact", False)
            return
        if any(e.id == entry.id for e in self.facts):
            # The id is taken by a different entry (another store's history): keep both.
            entry = await self.tx.facts.insert(
                entry.target, entry.content, key=entry.key, pinned=entry.pinned,
                keywords=entry.keywords, ts=entry.created_at,
            )
            self.renumbered += 1
        else:
            await self.tx.facts.insert_raw(entry)
        self.facts.append(entry)
        self.count("fact", True)

    def hold(self, atom: Atom, reason: str, findings: str | None) -> Atom:
        self.quarantined[reason] = self.quarantined.get(reason, 0) + 1
        return dataclasses.replace(
            atom, status="quarantined", quarantine_reason=reason, findings=findings, pinned=False,
            expires_at=self.ts + self.settings.quarantine_ttl_days * DAY,
        )

    async def atom(self, atom: Atom) -> None:
        if await self.tx.atoms.get(atom.id) is not None:
            self.count("atom", False)
            return
        norm = normalize_for_dedup(atom.text)
        twin = await self.tx.atoms.find_by_norm(norm)
        if twin is not None and twin.id not in self.inserted_atoms:
            self.count("atom", False)
            return
        held = atom
        if atom.status == "live":
            findings = scan(_scan_text(atom))
            if findings:
                held = self.hold(atom, "scan_rejected", describe(findings))
            elif not is_trusted(atom.source_class):
                held = self.hold(atom, "tainted", None)
        await self.tx.atoms.insert_raw(held, norm)
        self.inserted_atoms.add(atom.id)
        if held is not atom:
            await self.tx.events.append(
                "admin", "atom_quarantined", f"atom:{atom.id}",
                {"type": atom.type, "source_class": atom.source_class, "reason": held.quarantine_reason,
                 "findings": held.findings, "preview": preview(atom.text, 80), "import": self.plan.source},
            )
        self.count("atom", True)

    async def pending(self, item: PendingReview) -> None:
        if scan(f"{item.field_path}\n{item.value}\n{item.evidence}"):
            # The write path never queues flagged inferences either (AtomsService.propose).
            self.dropped += 1
            return
        self.count("pending", await self.tx.pending.insert(item))

    async def user_model(self, rec: Record, item: UserModelField) -> None:
        self.refuse(rec, "user-model field", f"{item.field_path}\n{item.value}\n{item.evidence}")
        current = self.model.get(item.field_path)
        if current is not None and current[2] >= item.updated_at:
            self.count("user_model", False)
            return
        await PrivilegedOps(self.tx.conn).set_user_model(item.field_path, item.value, item.source_class, item.updated_at,
                                                         item.evidence)
        self.model[item.field_path] = (item.value, item.source_class, item.updated_at)
        self.count("user_model", True)

    async def event(self, event: Event) -> None:
        existing = await self.tx.events.get(event.id)
        if existing == event or await self.tx.events.find_same(event) is not None:
            self.count("event", False)
            return
        if existing is None:
            await self.tx.events.insert_raw(event)
            self.count("event", True)
        else:
            # Its id belongs to another event here: append it after every id the file brings, so
            # the new number cannot take the id of an event later in the file.
            self.deferred.append(event)

    async def renumber_deferred(self) -> None:
        for event in self.deferred:
            await self.tx.events.append(event.actor, event.kind, event.subject, event.detail, ts=event.ts)
            self.renumbered += 1
            self.count("event", True)
        self.deferred.clear()

    async def graph_atom(self, item: GraphAtom) -> None:
        norm = normalize_for_dedup(item.text)
        if await self.tx.atoms.find_by_norm(norm) is not None:
            self.count("atom", False)
            return
        atom = Atom(
            id=new_id(), type=item.type, text=item.text, source_class="user_approved",
            confidence=GRAPH_CONFIDENCE, importance="medium", pinned=False, tags=item.tags, scope="user",
            status="live", created_at=self.ts, updated_at=self.ts,
        )
        findings = scan(_scan_text(atom))
        if findings:
            atom = self.hold(atom, "scan_rejected", describe(findings))
        await self.tx.atoms.insert(atom, norm)
        await self.tx.events.append(
            "admin", "atom_quarantined" if findings else "atom_added", f"atom:{atom.id}",
            {"type": atom.type, "source_class": atom.source_class, "reason": atom.quarantine_reason,
             "findings": atom.findings, "preview": preview(atom.text, 80), "import": self.plan.source},
        )
        self.count("atom", True)

    async def apply(self, rec: Record) -> None:
        value = rec.value
        if isinstance(value, GraphAtom):
            await self.graph_atom(value)
        elif isinstance(value, FactEntry):
            await self.fact(rec, value)
        elif isinstance(value, Atom):
            await self.atom(value)
        elif isinstance(value, PendingReview):
            await self.pending(value)
        elif isinstance(value, UserModelField):
            await self.user_model(rec, value)
        else:
            await self.event(value)

    def warnings(self) -> tuple[str, ...]:
        caps = {"user": self.settings.facts.user_cap, "env": self.settings.facts.env_cap}
        out = []
        for target, cap in caps.items():
            used = sum(len(e.content) for e in self.facts if e.target == target)
            if used > cap:
                out.append(
                    f"{target} facts now hold {used:,} of {cap:,} chars; remove entries with "
                    f"`mcp-memory-admin facts remove {target} TEXT`"
                )
        return tuple(out)


async def _apply_one(importer: _Importer, rec: Record) -> None:
    """Apply one record, naming its line in any error."""
    try:
        await importer.apply(rec)
    except _Bad as exc:
        raise InvalidInput(f"{importer.plan.source} line {rec.line}: {exc}; nothing was imported") from exc
    except MemoryServerError:
        raise
    except Exception as exc:
        # A constraint the validator missed: still name the line; the transaction rolls back.
        raise InvalidInput(
            f"{importer.plan.source} line {rec.line}: the store refused this {rec.kind} ({exc}); "
            "nothing was imported"
        ) from exc


async def apply_import(runtime: Runtime, plan: ImportPlan, progress: ProgressSink | None = None) -> ImportReport:
    """Apply a validated plan in one write transaction, with one `import` event; all or nothing."""
    if progress:
        progress.start(len(plan.records), "import")
    async with runtime.store.write() as tx:
        if plan.header is not None and plan.header.schema_version > await tx.schema_version():
            raise InvalidInput(
                f"{plan.source} was exported from a newer store (schema {plan.header.schema_version}); "
                "upgrade mcp-memory before importing it"
            )
        importer = _Importer(runtime, plan, tx, now())
        await importer.load()
        # Events first, so the few events the import itself appends number after the file's own.
        events = [r for r in plan.records if r.kind == "event"]
        for rec in events:
            await _apply_one(importer, rec)
            if progress:
                progress.advance()
        await importer.renumber_deferred()
        for rec in plan.records:
            if rec.kind == "event":
                continue
            await _apply_one(importer, rec)
            if progress:
                progress.advance()
        warnings = importer.warnings()
        event_id = await tx.events.append(
            "admin", "import", f"import:{plan.source}",
            {"format": plan.format, "added": importer.added, "skipped": importer.skipped,
             "quarantined": importer.quarantined, "dropped": importer.dropped,
             "renumbered": importer.renumbered, "warnings": list(warnings)},
        )
    if progress:
        progress.close()
    return ImportReport(
        plan.source, plan.format, _ordered(importer.added), _ordered(importer.skipped), importer.quarantined,
        importer.dropped, importer.renumbered, warnings, event_id,
    )


def _ordered(counts: dict[str, int]) -> dict[str, int]:
    """Counts in the order records appear in an export."""
    return {kind: counts[kind] for kind in (*NATIVE_KINDS, *counts) if kind in counts}
