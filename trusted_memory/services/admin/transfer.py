"""Export the whole store as JSONL, and import it back (or the reference memory server's graph).

Native format, version 2: a header line, then one record per line (version 1 files, and those
of the old name `mcp-memory-export`, hold the first four kinds and events, and still import).

    {"kind":"header","format":"trusted-memory-export","version":2,"schema_version":12,"exported_at":T,
     "embedding_space":"hash:v4:512"}
    {"kind":"fact", ...every FactEntry field}
    {"kind":"atom", ...every Atom field (turns too: type `turn`, with `cue` and `dates`)}
    {"kind":"pending", ...every PendingReview field}
    {"kind":"user_model","field_path":...,"value":...,"source_class":...,"updated_at":...}
    {"kind":"session", ...every Session field, "buffer":[line, ...], "transcript":[[role, text, ts], ...]}
    {"kind":"session_note", ...every SessionNote field}
    {"kind":"episode", ...every Episode field, "scale":S|null, "vec":BASE64|null}
    {"kind":"association","src":ATOM_ID,"dst":ATOM_ID,"link_kind":...,"weight":...}
    {"kind":"vector","atom_id":...,"space":...,"scale":...,"vec":BASE64}
    {"kind":"nudge","id":...,"nudge_kind":...,"subject":...,"session_id":...,"shown_at":...}
    {"kind":"import_key","key":...,"session_id":...,"imported_at":...}
    {"kind":"event","event_kind":..., ...every other Event field}

`kind` names the record, so an event's own kind travels as `event_kind` (and a link's as
`link_kind`, a nudge's as `nudge_kind`). Vectors are int8 with one scale, as stored. Exporting and importing
into an empty store reproduces every record field for field. Importing into a store that already
holds data merges, and importing the same file twice changes nothing:

- fact: skipped when the same entry, its key, or its normalised text is already in the target;
  inserted under its own id, or under a new one when that id is taken by a different entry.
- atom: skipped when its id is present, or its normalised text was already stored before this
  import. A `live` atom is re-scanned: failing text is held in quarantine (`scan_rejected`), and a
  live atom with an untrusted source class is held as `tainted`, so an edited export cannot put
  anything into trusted memory that a human could not have approved. A quarantined atom is never
  pinned, and waits at most `quarantine_ttl_days` from now (transfer_records.quarantine_expiry).
- pending: skipped when its id or its (field, value) is present; dropped when the scanner flags it.
- user_model: re-validated as every load validates it (usermodel.normalize), and only a
  `user_said` or `user_approved` field is kept; others are dropped and counted. The newer
  `updated_at` wins.
- event: recorded as imported (transfer_records.as_imported: actor `system`, kind
  `imported_event`, the file's actor, kind and detail kept as detail), because a file can claim any
  history, `admin` acts included. Skipped when the same event is present (as the file has it, or as
  imported); renumbered when its id is taken by another one.
- session: skipped when its id is present; buffer lines with a finding are dropped (the write
  path drops them), transcripts are redacted of credentials, a flagged frozen facts block is dropped.
- session_note: dropped when the scanner flags it; skipped when its session has the same text.
- episode: skipped when its id or its session's episode is present. A live one is re-scanned and
  must be a session summary or a person's promotion; otherwise it is held (`agent_generated`). A
  held one waits at most `quarantine_ttl_days` from now, like a quarantined atom.
- association: kept when both atoms are in the store; vector: kept when the file's embedding space
  is the one this store embeds in and its atom is live without one; otherwise the atom waits on
  the embed queue (a server or `reindex` embeds it). Episode vectors of another space are
  recomputed during the import.
- nudge, import_key: skipped when the same one is present (an import key: the same owner's).
- owners: the operator's import keeps every record's owner as the file names it; an event or import
  key from a file written before they named one gets the owner of the record it is about in the
  file (its subject, its session), else the implicit owner. `--as MEMBER import` makes every record
  the member's, whatever the file names: a member's file is their own memory (their own export, or
  a single-person store's, where every record is `local`'s), and refusing other owners would refuse
  both; keeping them would let a member plant records under another person's name. Their `project`
  atoms must be of projects they belong to (otherwise nothing is imported, and the error names the
  project), and their live `global` atoms wait for an admin (`team_review`), as their agent's
  writes do. Their notes go only into their own sessions, links and vectors only onto atoms they see
  (vectors: their own).
- facts and user-model fields are always-on trusted context with no quarantine of their own, so
  one that fails the content scan fails the import, naming its line.

The CLI shows what a file claims (transfer_claims.py) before the person confirms it.

The reference server (`@modelcontextprotocol/server-memory`) writes entity and relation lines; each
observation becomes a `fact` atom "<name>: <observation>" (a `note` past 300 characters) and each
relation an atom "<from> <relation type> <to>". Anything can write such a file, so they land in
quarantine (`file_read`) unless the person passes `trust_graph` (`--trust-graph`): then they are
`user_approved` memory (transfer_reference.graph_atom). Duplicates by normalised text are skipped.
The format is detected from the first non-empty line. Every import validates every line first, then
applies all of it in one write transaction with one `import` event (actor admin): a bad line
changes nothing. Atoms, events, links and vectors, which a store holds by the thousand, are applied
in runs of `BATCH` records of one kind, in the file's order: one look-up of what the store already
holds and one insert run each (the store's triggers keep keyword search and the embed queue in step,
row by row), with the same outcome as one record at a time. The runs share the one transaction, so
a record the store refuses in any run (a constraint the validation missed, a lost connection) rolls
back every run before it, and the error names the run's lines. It is one transaction and not one
per run because a half-applied import could not be taken back: the audit log cannot be rewritten.
While it runs it holds the store's write lock: other processes' writes wait for it (on PostgreSQL
at most `store.lock_timeout_s`, then they fail as busy and may be retried).

This module detects the format, parses, and applies an import. The record types and the validation
of a native line are in transfer_records.py, the reference graph's lines in transfer_reference.py,
and the export in transfer_export.py.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from typing import cast

from ...errors import InvalidInput, MemoryServerError
from ...model import LIVE_EPISODE_SOURCES, Atom, Event, FactEntry, PendingReview, SessionNote
from ...people import LOCAL, Viewer, acting_owner, restricting_viewer
from ...scan import describe, normalize_for_dedup, redact_credentials, scan
from ...store.base import Tx, now
from ...store.events import same_key
from ...store.privileged import PrivilegedOps
from ...trust import TEAM_REVIEW, is_trusted
from ...usermodel import normalize
from ..atoms import DAY
from ..facts import preview
from ..runtime import Runtime
from .transfer_export import PAGE, dumps, export_jsonl, to_record
from .transfer_records import (
    FORMAT,
    NATIVE_KINDS,
    UNSTATED,
    VERSION,
    BadLine,
    EpisodeRecord,
    ExportReport,
    GraphAtom,
    Header,
    ImportFormat,
    ImportKey,
    ImportPlan,
    ImportReport,
    Link,
    Nudge,
    ProgressSink,
    Record,
    SessionRecord,
    UserModelField,
    Value,
    VectorRecord,
    as_imported,
    load_line,
    parse_header,
    quarantine_expiry,
)
from .transfer_reference import GRAPH_CONFIDENCE, graph_atom, graph_atoms, slug

# The names this module has always offered; the export, the records and the reference graph now
# live in transfer_export, transfer_records and transfer_reference.
__all__ = [
    "FORMAT",
    "GRAPH_CONFIDENCE",
    "NATIVE_KINDS",
    "PAGE",
    "VERSION",
    "ExportReport",
    "GraphAtom",
    "Header",
    "ImportFormat",
    "ImportPlan",
    "ImportReport",
    "ProgressSink",
    "Record",
    "UserModelField",
    "Value",
    "apply_import",
    "dumps",
    "export_jsonl",
    "parse_import",
    "slug",
    "to_record",
]

# Records of one kind applied together (atoms, events, links, vectors): one look-up and one insert
# run each, instead of a few round trips a record (on PostgreSQL a round trip is the cost of a record).
BATCH = 2000

# --- parsing ----------------------------------------------------------------------------------

# The server's own start of a buffer line (services/session.py): its clock and the speaker.
_BUFFER_PREFIX = re.compile(r"^\d{2}:\d{2} (?:user|assistant) ")


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
            body = load_line(raw)
            if fmt is None:
                if body.get("kind") == "header":
                    fmt, header = "trusted-memory", parse_header(body)
                    continue
                if body.get("type") in ("entity", "relation"):
                    fmt = "reference-graph"
                else:
                    raise BadLine(
                        "this is neither a trusted-memory export (its first line is a header with "
                        f"format {FORMAT!r}) nor a reference memory-server graph (entity/relation lines)"
                    )
            if fmt == "reference-graph":
                kind = str(body.get("type"))
                records.extend(Record(number, kind, atom) for atom in graph_atoms(body))
                continue
            kind_value = body.pop("kind", None)
            if kind_value == "header":
                raise BadLine("a header may only be the first line")
            if not isinstance(kind_value, str) or kind_value not in NATIVE_KINDS:
                raise BadLine(f"unknown record kind {kind_value!r} (expected one of {', '.join(NATIVE_KINDS)})")
            records.append(Record(number, kind_value, NATIVE_KINDS[kind_value](body)))
    except (BadLine, MemoryServerError) as exc:
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

    def __init__(
        self,
        runtime: Runtime,
        plan: ImportPlan,
        tx: Tx,
        ts: float,
        *,
        trust_graph: bool,
        episode_vectors: dict[str, tuple[float, bytes]] | None = None,
    ) -> None:
        self.settings = runtime.settings
        space = runtime.recall.embedder().space
        self.space, self.dims = space.fingerprint(), space.dims
        # The file's vectors are kept only when they were built in the space this store embeds in.
        self.same_space = plan.header is not None and plan.header.embedding_space == self.space
        self.episode_vectors = episode_vectors or {}
        self.recomputed = 0
        self.held_episodes = 0
        self.plan = plan
        self.tx = tx
        self.ts = ts
        self.trust_graph = trust_graph
        self.ttl_s = runtime.settings.quarantine_ttl_days * DAY
        self.added: dict[str, int] = {}
        self.skipped: dict[str, int] = {}
        self.quarantined: dict[str, int] = {}
        self.dropped = 0
        self.dropped_user_model = 0
        self.renumbered = 0
        self.inserted_atoms: set[str] = set()
        self.deferred: list[Event] = []
        self.facts: list[FactEntry] = []
        self.model: dict[tuple[str, str], tuple[str, str, float]] = {}

    def count(self, kind: str, added: bool) -> None:
        target = self.added if added else self.skipped
        target[kind] = target.get(kind, 0) + 1

    async def load(self) -> None:
        self.facts = await self.tx.facts.list()
        self.model = {
            (owner, path): (value, source, ts)
            for owner, path, value, source, ts, _ in await self.tx.pending.model_fields_of_everyone()
        }

    def refuse(self, rec: Record, what: str, text: str) -> None:
        findings = scan(text)
        if findings:
            raise BadLine(
                f"this {what} fails the content scan ({describe(findings)}); trusted context never holds "
                f"such text. Remove or fix line {rec.line} and import again"
            )

    async def fact(self, rec: Record, entry: FactEntry) -> None:
        self.refuse(rec, "fact", "\n".join((entry.content, entry.key or "", " ".join(entry.keywords))))
        norm = normalize_for_dedup(entry.content)
        if any(
            e.target == entry.target
            and e.owner == entry.owner
            and ((entry.key is not None and e.key == entry.key) or normalize_for_dedup(e.content) == norm)
            for e in self.facts
        ):
            self.count("fact", False)
            return
        if any(e.id == entry.id for e in self.facts):
            # The id is taken by a different entry (another store's history): keep both.
            entry = await self.tx.facts.insert(
                entry.target,
                entry.content,
                key=entry.key,
                pinned=entry.pinned,
                keywords=entry.keywords,
                ts=entry.created_at,
                owner=entry.owner,
            )
            self.renumbered += 1
        else:
            await self.tx.facts.insert_raw(entry)
        self.facts.append(entry)
        self.count("fact", True)

    def hold(self, atom: Atom, reason: str, findings: str | None) -> Atom:
        self.quarantined[reason] = self.quarantined.get(reason, 0) + 1
        return dataclasses.replace(
            atom,
            status="quarantined",
            quarantine_reason=reason,
            findings=findings,
            pinned=False,
            expires_at=self.ts + self.ttl_s,
        )

    async def atoms(self, run: Sequence[Record]) -> None:
        """A run of atoms: one look-up of their ids and texts, one insert run, in the file's order.

        Skipped as one at a time would skip them: when the id is stored (or came earlier in the
        file), or when an atom of the same owner with the same normalised text was stored before
        this import (one brought by this import does not count: find_by_norm's rule).
        """
        atoms = [cast(Atom, rec.value) for rec in run]
        present = await self.tx.atoms.present([a.id for a in atoms])
        norms = [normalize_for_dedup(a.text) for a in atoms]
        twins: dict[tuple[str, str], list[str]] = {}
        for norm, owner, atom_id in await self.tx.atoms.norm_owners(sorted(set(norms))):
            twins.setdefault((norm, owner), []).append(atom_id)
        rows: list[tuple[Atom, str]] = []
        held_events: list[tuple[Atom, Atom]] = []
        for atom, norm in zip(atoms, norms, strict=True):
            if atom.id in present or any(i not in self.inserted_atoms for i in twins.get((norm, atom.owner), ())):
                self.count("atom", False)
                continue
            held = self.placed(atom)
            rows.append((held, norm))
            present.add(atom.id)
            self.inserted_atoms.add(atom.id)
            if atom.status == "live" and held.status != "live":
                held_events.append((atom, held))
            self.count("atom", True)
        await self.tx.atoms.insert_raw_many(rows)
        for atom, held in held_events:
            await self.quarantined_event(atom, held)

    def placed(self, atom: Atom) -> Atom:
        """The atom as this store keeps it: a live one re-scanned, a held one held as the write path holds."""
        held = atom
        if atom.status == "live":
            findings = scan(_scan_text(atom))
            if findings:
                held = self.hold(atom, "scan_rejected", describe(findings))
            elif not is_trusted(atom.source_class):
                held = self.hold(atom, "tainted", None)
            elif atom.scope == "global" and restricting_viewer() is not None:
                # The team's memory: a member's file waits for an admin, as their agent's write does.
                held = self.hold(atom, TEAM_REVIEW, None)
        else:
            # Held as the file says, but as the write path holds: unpinned, for one review window.
            held = dataclasses.replace(
                atom,
                pinned=False,
                quarantine_reason=atom.quarantine_reason
                if atom.quarantine_reason in ("tainted", "scan_rejected", "strict_mode")
                else "tainted",
                expires_at=quarantine_expiry(atom.expires_at, self.ts, self.ttl_s),
            )
        return held

    async def quarantined_event(self, atom: Atom, held: Atom) -> None:
        await self.tx.events.append(
            "admin",
            "atom_quarantined",
            f"atom:{atom.id}",
            {
                "type": atom.type,
                "source_class": atom.source_class,
                "reason": held.quarantine_reason,
                "findings": held.findings,
                "preview": preview(atom.text, 80),
                "import": self.plan.source,
            },
            owner=atom.owner,
        )

    async def pending(self, item: PendingReview) -> None:
        if scan(f"{item.field_path}\n{item.value}\n{item.evidence}"):
            # The write path never queues flagged inferences either (AtomsService.propose).
            self.dropped += 1
            return
        self.count("pending", await self.tx.pending.insert(item))

    async def user_model(self, rec: Record, item: UserModelField) -> None:
        self.refuse(rec, "user-model field", f"{item.field_path}\n{item.value}\n{item.evidence}")
        if normalize(item.field_path, item.value) != item.value or not is_trusted(item.source_class):
            # Not a field this model has, a value it would not store, or one nobody trusted: every
            # load would drop it anyway (usermodel.load_model), so it is not stored at all.
            self.dropped_user_model += 1
            return
        current = self.model.get((item.owner, item.field_path))
        if current is not None and current[2] >= item.updated_at:
            self.count("user_model", False)
            return
        await PrivilegedOps(self.tx.conn).set_user_model(
            item.field_path, item.value, item.source_class, item.updated_at, item.evidence, item.owner
        )
        self.model[(item.owner, item.field_path)] = (item.value, item.source_class, item.updated_at)
        self.count("user_model", True)

    async def event(self, claimed: Event) -> None:
        event = as_imported(claimed)
        existing = await self.tx.events.get(event.id)
        # Already here as imported, or this very store's own event (its export coming back).
        if (
            existing in (event, claimed)
            or await self.tx.events.find_same(event) is not None
            or await self.tx.events.find_same(claimed) is not None
        ):
            self.count("event", False)
            return
        if existing is None:
            await self.tx.events.insert_raw(event)
            self.count("event", True)
        else:
            # Its id belongs to another event here: append it after every id the file brings, so
            # the new number cannot take the id of an event later in the file.
            self.deferred.append(event)

    async def events(self, run: Sequence[Record]) -> None:
        """A run of events: one look-up of their ids and of the same events, one insert run (see event)."""
        claimed = [cast(Event, rec.value) for rec in run]
        imported = [as_imported(e) for e in claimed]
        existing = await self.tx.events.get_many([e.id for e in imported])
        same = await self.tx.events.same_keys([*imported, *claimed])
        rows: list[Event] = []
        for event, original in zip(imported, claimed, strict=True):
            have = existing.get(event.id)
            if have in (event, original) or same_key(event) in same or same_key(original) in same:
                self.count("event", False)
            elif have is None:
                rows.append(event)
                existing[event.id] = event
                same.add(same_key(event))
                self.count("event", True)
            else:
                self.deferred.append(event)
        await self.tx.events.insert_raw_many(rows)

    async def renumber_deferred(self) -> None:
        for event in self.deferred:
            await self.tx.events.append(
                event.actor, event.kind, event.subject, event.detail, ts=event.ts, owner=event.owner
            )
            self.renumbered += 1
            self.count("event", True)
        self.deferred.clear()

    async def graph_atom(self, item: GraphAtom) -> None:
        norm = normalize_for_dedup(item.text)
        if await self.tx.atoms.find_by_norm(norm) is not None:
            self.count("atom", False)
            return
        atom = graph_atom(item, self.ts, trusted=self.trust_graph, quarantine_until=self.ts + self.ttl_s)
        atom = dataclasses.replace(atom, owner=acting_owner())
        findings = scan(_scan_text(atom))
        if findings:
            atom = self.hold(atom, "scan_rejected", describe(findings))
        elif atom.status != "live":
            self.quarantined["tainted"] = self.quarantined.get("tainted", 0) + 1
        await self.tx.atoms.insert(atom, norm)
        await self.tx.events.append(
            "admin",
            "atom_added" if atom.status == "live" else "atom_quarantined",
            f"atom:{atom.id}",
            {
                "type": atom.type,
                "source_class": atom.source_class,
                "reason": atom.quarantine_reason,
                "findings": atom.findings,
                "preview": preview(atom.text, 80),
                "import": self.plan.source,
            },
        )
        self.count("atom", True)

    async def session(self, item: SessionRecord) -> None:
        # The write path keeps no buffer line with a finding, and no credential in a transcript. Like
        # the write path, the words are scanned, not the "HH:MM user|assistant " prefix (round 8).
        buffer = [line for line in item.buffer if not scan(_BUFFER_PREFIX.sub("", line, count=1))]
        self.dropped += len(item.buffer) - len(buffer)
        transcript = [(role, redact_credentials(text), ts) for role, text, ts in item.transcript]
        session = item.session
        if session.frozen_facts is not None and scan(session.frozen_facts):
            # The facts block a session first saw is shown as trusted context; a flagged one is
            # dropped and the session sees the current facts instead.
            session = dataclasses.replace(session, frozen_facts=None)
            self.dropped += 1
        self.count("session", await self.tx.transfer.insert_session(session, buffer, transcript))

    async def note(self, note: SessionNote) -> None:
        if scan(note.text):
            self.dropped += 1  # the write path drops notes with a finding (services/session._read_turn)
            return
        self.count("session_note", await self.tx.transfer.insert_note(note))

    async def episode(self, item: EpisodeRecord) -> None:
        episode = item.episode
        if await self.tx.transfer.has_episode(episode):
            self.count("episode", False)
            return
        reason = None
        if episode.status == "live":
            findings = scan(episode.summary)
            if findings:
                reason = f"scan_rejected: {describe(findings)}"
            elif episode.source_class not in LIVE_EPISODE_SOURCES:
                # A live episode is a session summary or a person's promotion; one claiming to be
                # the user's own words (or any other class) is held like an untrusted session's.
                reason = f"a live episode cannot be {episode.source_class}"
        held = episode.status != "live" or reason is not None
        if held:
            self.held_episodes += 1
            episode = dataclasses.replace(
                episode,
                status="held",
                source_class=episode.source_class
                if episode.status == "held" and episode.source_class not in (*LIVE_EPISODE_SOURCES, "user_said")
                else "agent_generated",
                expires_at=quarantine_expiry(episode.expires_at, self.ts, self.ttl_s),
            )
        scale, vec = item.scale, item.vec
        if not self.same_space or vec is None or len(vec) != self.dims:
            fresh = self.episode_vectors.get(episode.id)
            scale, vec = fresh if fresh is not None else (None, None)
            if item.vec is not None:
                self.recomputed += 1
        await self.tx.sessions.add_episode(episode, scale, vec)
        if reason is not None:
            await self.tx.events.append(
                owner=episode.owner,
                actor="admin",
                kind="episode_held",
                subject=f"episode:{episode.id}",
                detail={"session_id": episode.session_id, "reason": reason, "import": self.plan.source},
            )
        self.count("episode", True)

    def count_many(self, kind: str, added: int, skipped: int) -> None:
        for target, n in ((self.added, added), (self.skipped, skipped)):
            if n:
                target[kind] = target.get(kind, 0) + n

    async def links(self, run: Sequence[Record]) -> None:
        """A run of associations: one look-up of their atoms, one insert run (see link)."""
        items = [cast(Link, rec.value) for rec in run]
        nums = await self.tx.transfer.atom_nums([end for x in items for end in (x.src, x.dst)])
        rows = [(nums[x.src], nums[x.dst], x.link_kind, x.weight) for x in items if x.src in nums and x.dst in nums]
        added = await self.tx.transfer.insert_links(rows)
        self.count_many("association", added, len(items) - added)

    async def vectors(self, run: Sequence[Record]) -> None:
        """A run of atom vectors: one look-up of their atoms, one insert run (see vector)."""
        items = [cast(VectorRecord, rec.value) for rec in run]
        targets = await self.tx.transfer.vector_targets([x.atom_id for x in items])
        rows: list[tuple[int, str, float, bytes]] = []
        for item in items:
            target = targets.get(item.atom_id)
            if target is None or target[1]:
                self.count("vector", False)
            elif item.space != self.space or len(item.vec) != self.dims:
                self.recomputed += 1
            else:
                rows.append((target[0], item.space, item.scale, item.vec))
                targets[item.atom_id] = (target[0], True)
                self.count("vector", True)
        if rows:
            await self.tx.recall.put_vectors(rows)

    def batched(self, kind: str) -> Callable[[Sequence[Record]], Awaitable[None]] | None:
        """The handler of a run of records of this kind, for the kinds a store holds by the thousand."""
        return {"atom": self.atoms, "event": self.events, "association": self.links, "vector": self.vectors}.get(kind)

    async def link(self, link: Link) -> None:
        added = await self.tx.transfer.insert_link((link.src, link.dst, link.link_kind, link.weight))
        self.count("association", bool(added))

    async def vector(self, item: VectorRecord) -> None:
        target = await self.tx.transfer.vector_target(item.atom_id)
        if target is None or target[1]:
            # The atom is not here, not live (held atoms have no vector), or already has one.
            self.count("vector", False)
            return
        if item.space != self.space or len(item.vec) != self.dims:
            # Another embedding space: the atom stays queued and is embedded in this store's space.
            self.recomputed += 1
            return
        await self.tx.recall.put_vectors([(target[0], item.space, item.scale, item.vec)])
        self.count("vector", True)

    async def nudge(self, item: Nudge) -> None:
        row = (item.id, item.nudge_kind, item.subject, item.session_id, item.shown_at)
        self.count("nudge", await self.tx.transfer.insert_nudge(row))

    async def import_key(self, item: ImportKey) -> None:
        added = await self.tx.transfer.record_keys([(item.key, item.session_id, item.imported_at)], owner=item.owner)
        self.count("import_key", added > 0)

    async def apply(self, rec: Record) -> None:
        value = rec.value
        if isinstance(value, SessionRecord):
            await self.session(value)
        elif isinstance(value, SessionNote):
            await self.note(value)
        elif isinstance(value, EpisodeRecord):
            await self.episode(value)
        elif isinstance(value, Link):
            await self.link(value)
        elif isinstance(value, VectorRecord):
            await self.vector(value)
        elif isinstance(value, Nudge):
            await self.nudge(value)
        elif isinstance(value, ImportKey):
            await self.import_key(value)
        elif isinstance(value, GraphAtom):
            await self.graph_atom(value)
        elif isinstance(value, FactEntry):
            await self.fact(rec, value)
        elif isinstance(value, Atom):
            await self.atoms([rec])
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
                    f"`trusted-memory-admin facts remove {target} TEXT`"
                )
        return tuple(out)


async def _apply_one(importer: _Importer, rec: Record) -> None:
    """Apply one record, naming its line in any error."""
    try:
        await importer.apply(rec)
    except BadLine as exc:
        raise InvalidInput(f"{importer.plan.source} line {rec.line}: {exc}; nothing was imported") from exc
    except MemoryServerError:
        raise
    except Exception as exc:
        # A constraint the validator missed: still name the line; the transaction rolls back.
        raise InvalidInput(
            f"{importer.plan.source} line {rec.line}: the store refused this {rec.kind} ({exc}); nothing was imported"
        ) from exc


def runs(records: Sequence[Record], size: int) -> Iterator[list[Record]]:
    """The records in order, as runs of one kind of at most `size` records each."""
    run: list[Record] = []
    for rec in records:
        if run and (rec.kind != run[0].kind or len(run) >= size):
            yield run
            run = []
        run.append(rec)
    if run:
        yield run


async def _apply_all(importer: _Importer, records: Sequence[Record], progress: ProgressSink | None) -> None:
    """Apply records in order: the kinds a store holds by the thousand a run at a time, the rest one by one."""
    for run in runs(records, BATCH):
        handler = importer.batched(run[0].kind) if isinstance(run[0].value, (Atom, Event, Link, VectorRecord)) else None
        if handler is None:
            for rec in run:
                await _apply_one(importer, rec)
                if progress:
                    progress.advance()
            continue
        try:
            await handler(run)
        except MemoryServerError:
            raise
        except Exception as exc:
            # A constraint the validator missed: name the lines of the run; the transaction rolls back.
            raise InvalidInput(
                f"{importer.plan.source} lines {run[0].line}-{run[-1].line}: the store refused these {run[0].kind} "
                f"records ({exc}); nothing was imported"
            ) from exc
        if progress:
            progress.advance(len(run))


async def apply_import(
    runtime: Runtime, plan: ImportPlan, progress: ProgressSink | None = None, *, trust_graph: bool = False
) -> ImportReport:
    """Apply a validated plan in one write transaction, with one `import` event; all or nothing.

    `trust_graph`: the person vouches for a reference graph, whose atoms then land live as
    `user_approved` instead of in quarantine.
    """
    # Vectors are kept when the file was embedded in this store's space. Otherwise an atom waits on
    # the embed queue (a server embeds it, or `reindex`), and an episode, which has no queue, is
    # embedded here, before the transaction.
    space = runtime.recall.embedder().space.fingerprint()
    same_space = plan.header is not None and plan.header.embedding_space == space
    episode_vectors: dict[str, tuple[float, bytes]] = {}
    for rec in plan.records:
        if isinstance(rec.value, EpisodeRecord) and not (same_space and rec.value.vec is not None):
            vector = await runtime.recall.vector_for(rec.value.episode.summary)
            if vector is not None:
                episode_vectors[rec.value.episode.id] = (vector[1], vector[2])
    if progress:
        progress.start(len(plan.records), "import")
    async with runtime.store.write() as tx:
        if plan.header is not None and plan.header.schema_version > await tx.schema_version():
            raise InvalidInput(
                f"{plan.source} was exported from a newer store (schema {plan.header.schema_version}); "
                "upgrade trusted-memory before importing it"
            )
        plan = dataclasses.replace(plan, records=_owned(plan, restricting_viewer()))
        importer = _Importer(runtime, plan, tx, now(), trust_graph=trust_graph, episode_vectors=episode_vectors)
        await importer.load()
        # Events first, so the few events the import itself appends number after the file's own.
        await _apply_all(importer, [r for r in plan.records if r.kind == "event"], progress)
        await importer.renumber_deferred()
        await _apply_all(importer, [r for r in plan.records if r.kind != "event"], progress)
        warnings = importer.warnings()
        event_id = await tx.events.append(
            "admin",
            "import",
            f"import:{plan.source}",
            {
                "format": plan.format,
                "added": importer.added,
                "skipped": importer.skipped,
                "quarantined": importer.quarantined,
                "dropped": importer.dropped,
                "dropped_user_model": importer.dropped_user_model,
                "renumbered": importer.renumbered,
                "vectors_recomputed": importer.recomputed,
                "held_episodes": importer.held_episodes,
                "trust_graph": trust_graph,
                "warnings": list(warnings),
            },
        )
    if progress:
        progress.close()
    return ImportReport(
        plan.source,
        plan.format,
        _ordered(importer.added),
        _ordered(importer.skipped),
        importer.quarantined,
        importer.dropped,
        importer.dropped_user_model,
        importer.renumbered,
        warnings,
        event_id,
        importer.recomputed,
        importer.held_episodes,
    )


def _subject_owners(records: Sequence[Record]) -> dict[str, str]:
    """The owner of each record of a file, by the subject an event names it with."""
    owners: dict[str, str] = {}
    for rec in records:
        value = rec.value
        if isinstance(value, Atom):
            owners[f"atom:{value.id}"] = value.owner
        elif isinstance(value, FactEntry):
            owners[f"fact:{value.id}"] = value.owner
        elif isinstance(value, PendingReview):
            owners[f"pending:{value.id}"] = value.owner
        elif isinstance(value, SessionRecord):
            owners[f"session:{value.session.id}"] = value.session.owner
        elif isinstance(value, EpisodeRecord):
            owners[f"episode:{value.episode.id}"] = value.episode.owner
    return owners


def _as_member(rec: Record, person: Viewer, source: str) -> Value:
    """A record of a member's import as theirs; refuses an atom shared with a project they are not in."""
    value = rec.value
    if isinstance(value, SessionRecord):
        return dataclasses.replace(value, session=dataclasses.replace(value.session, owner=person.name))
    if isinstance(value, EpisodeRecord):
        return dataclasses.replace(value, episode=dataclasses.replace(value.episode, owner=person.name))
    if isinstance(value, Atom) and value.scope == "project" and not person.may_share_with(value.project or ""):
        raise InvalidInput(
            f"{source} line {rec.line}: atom {value.id} is shared with project {value.project!r}, which "
            f"{person.name} is not a member of; an admin can add them (`trusted-memory-admin users grant "
            f'{person.name} {value.project}`), or give the atom scope "user" in the file; nothing was imported'
        )
    if isinstance(value, (Atom, FactEntry, PendingReview, UserModelField, Event, ImportKey, SessionNote)):
        return dataclasses.replace(value, owner=person.name)
    return value


def _owned(plan: ImportPlan, person: Viewer | None) -> tuple[Record, ...]:
    """The plan's records with the owners this import writes (the module docstring's "owners")."""
    if person is not None:
        return tuple(dataclasses.replace(rec, value=_as_member(rec, person, plan.source)) for rec in plan.records)
    subjects = _subject_owners(plan.records)
    out: list[Record] = []
    for rec in plan.records:
        value = rec.value
        if isinstance(value, Event) and value.owner == UNSTATED:
            value = dataclasses.replace(value, owner=subjects.get(value.subject or "", LOCAL))
        elif isinstance(value, (ImportKey, SessionNote)) and value.owner == UNSTATED:
            value = dataclasses.replace(value, owner=subjects.get(f"session:{value.session_id}", LOCAL))
        out.append(rec if value is rec.value else dataclasses.replace(rec, value=value))
    return tuple(out)


def _ordered(counts: dict[str, int]) -> dict[str, int]:
    """Counts in the order records appear in an export."""
    return {kind: counts[kind] for kind in (*NATIVE_KINDS, *counts) if kind in counts}
