"""Atoms: small typed memories with provenance, placed by the trust rules (agent side)."""

from __future__ import annotations

import dataclasses
import re
import secrets
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..config import Settings
from ..errors import InvalidInput, NotFound, TrustRefused
from ..model import (
    ATOM_TYPES,
    FALLBACK_ATOM_TYPE,
    IMPORTANCE_LEVELS,
    SCOPES,
    TURN_TYPE,
    Actor,
    Atom,
    PendingReview,
)
from ..people import acting_owner, restricting_viewer
from ..projects import project_name
from ..queries import AtomFilter
from ..scan import describe, normalize_for_dedup, scan
from ..store.base import Store, Tx, now
from ..trust import AGENT_DECLARABLE, TEAM_REVIEW, Placement, is_trusted, place
from .budget import StoreBudget
from .facts import check_field, preview
from .recall import SESSION_LINKS, RecallService
from .recall_types import RecallQuery
from .turns import CUE_MAX_CHARS

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

ATOM_TEXT_MAX = 300
NOTE_TEXT_MAX = 4000
MAX_TAGS = 12
MAX_TAG_CHARS = 40
MAX_PENDING = 20
DAY = 86400.0
# What one atom write adds to the store at most, WAL frames included (~16 pages of 4 KiB: the row,
# its indexes, FTS segments, the vector, the event): the size cap is checked against this.
WRITE_FOOTPRINT = 64 * 1024
# How close an earlier memory must be to the corrected statement to count as what it corrects.
SUPERSEDE_MIN_RELEVANCE = 0.35
_ID_RE = re.compile(r"^[0-9a-f]{32}$")
_TAG_RE = re.compile(r"[^\w:./-]+")


@dataclass(frozen=True, slots=True)
class AtomDraft:
    """What a caller asks to store, before validation and placement."""

    content: str
    source: str
    atom_type: str | None = None
    confidence: float | None = None
    importance: str | None = None
    tags: Sequence[str] = ()
    why: str | None = None
    how_to_apply: str | None = None
    pinned: bool = False
    scope: str | None = None
    project: str | None = None
    session_id: str | None = None
    turn: int | None = None
    # Set only by observe, never from an agent's add_atom: when the words were said (replayed history
    # keeps its dates), the user turn kept whole, the assistant's question it answers, resolved dates.
    said_at: float | None = None
    turn_memory: bool = False
    cue: str | None = None
    dates: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class AtomWrite:
    """What an atom write did: stored live, quarantined, or found already present."""

    status: str
    atom: Atom
    message: str
    embedded: bool = False  # a live atom written with its vector (not left in the embed queue)


def footprint(texts: Sequence[str]) -> int:
    """What writing atoms of these texts may add to the store at most (the size cap is checked against it)."""
    return sum(WRITE_FOOTPRINT + len(text.encode("utf-8")) * 3 for text in texts)


def new_id() -> str:
    """A fresh 128-bit random atom id in hex."""
    return secrets.token_hex(16)


def check_atom_id(atom_id: str) -> str:
    """Validate the shape of an atom id."""
    atom_id = atom_id.strip().lower().lstrip("#")
    if not _ID_RE.match(atom_id):
        raise InvalidInput(f"{preview(atom_id, 40)!r} is not an atom id (32 hex characters, as returned by add_atom)")
    return atom_id


def normalise_type(atom_type: str | None) -> str:
    """A known atom type, or the fallback for anything else."""
    if not atom_type:
        return "fact"
    name = atom_type.strip().lower()
    return name if name in ATOM_TYPES else FALLBACK_ATOM_TYPE


def check_tags(tags: Sequence[str]) -> tuple[str, ...]:
    """Lower-cased, slug-like, unique tags."""
    if len(tags) > MAX_TAGS:
        raise InvalidInput(f"at most {MAX_TAGS} tags per atom; got {len(tags)}")
    out: list[str] = []
    for raw in tags:
        tag = _TAG_RE.sub("-", str(raw).strip().lower()).strip("-")
        if not tag or len(tag) > MAX_TAG_CHARS:
            raise InvalidInput(f"each tag must be 1-{MAX_TAG_CHARS} letters, digits or - _ : . /; got {raw!r}")
        if tag not in out:
            out.append(tag)
    return tuple(out)


def check_text(text: str, atom_type: str) -> str:
    """Enforce the per-type length limit; never cut silently."""
    limit = NOTE_TEXT_MAX if atom_type == "note" else ATOM_TEXT_MAX
    if len(text) > limit:
        raise InvalidInput(
            f"atom text is {len(text):,} characters; a {atom_type} atom holds at most {limit:,}. "
            + (
                "Split it into several atoms, one statement each, or store it as atom_type='note'."
                if atom_type != "note"
                else "Split it into several notes."
            )
        )
    return text


def _optional(name: str, value: str | None) -> str | None:
    return (check_field(name, value, required=False) or None) if value else None


def build_atom(draft: AtomDraft, settings: Settings, *, strict: bool) -> tuple[Atom, str]:
    """Validate a draft and place it by the trust rules; returns the atom and its dedup key."""
    atom_type = TURN_TYPE if draft.turn_memory else normalise_type(draft.atom_type)
    # The atom's own length limits (300, notes 4,000) replace the generic 2,048-byte field cap.
    text = check_text(draft.content.strip(), "note" if draft.turn_memory else atom_type)
    if not text:
        raise InvalidInput("content is empty; give the memory to store")
    source = draft.source.strip().lower()
    if source == "user_approved":
        raise TrustRefused(
            "source 'user_approved' is set only when a human approves memory with trusted-memory-admin; "
            "declare source='user_said' for the user's own words, or the class it came from."
        )
    if source not in AGENT_DECLARABLE:
        raise InvalidInput(f"source must be one of {', '.join(AGENT_DECLARABLE)}; got {draft.source!r}")
    confidence = 0.8 if draft.confidence is None else float(draft.confidence)
    if not 0.0 <= confidence <= 1.0:
        raise InvalidInput(f"confidence must be between 0 and 1; got {draft.confidence}")
    importance = (draft.importance or "medium").strip().lower()
    if importance not in IMPORTANCE_LEVELS:
        raise InvalidInput(f"importance must be one of {', '.join(IMPORTANCE_LEVELS)}; got {draft.importance!r}")
    project = project_name(_optional("project", draft.project))
    scope = (draft.scope or ("project" if project else "user")).strip().lower()
    if scope not in SCOPES:
        raise InvalidInput(f"scope must be one of {', '.join(SCOPES)}; got {draft.scope!r}")
    if scope == "project" and not project:
        raise InvalidInput("scope='project' needs project= (the project's path or name)")
    viewer = restricting_viewer()
    if viewer is not None and scope == "project" and project and not viewer.may_share_with(project):
        raise InvalidInput(
            f"{viewer.name} is not a member of project {project!r}, so cannot write to its shared memory: "
            f"store it with scope='user', or ask an admin to run `trusted-memory-admin users grant {viewer.name} "
            f"{project}`."
        )
    tags = check_tags(draft.tags)
    why = _optional("why", draft.why)
    how = _optional("how_to_apply", draft.how_to_apply)
    session_id = _optional("session_id", draft.session_id)
    if draft.turn is not None and not 0 <= draft.turn <= 10**9:
        raise InvalidInput(f"turn must be between 0 and 1,000,000,000; got {draft.turn}")

    cue = draft.cue.strip()[:CUE_MAX_CHARS] if draft.cue else None
    parts = (text, why or "", how or "", " ".join(tags), project or "", cue or "")
    findings = scan("\n".join(part for part in parts if part))
    placement = place(source, scan_failed=bool(findings), strict_agent_writes=strict)
    if viewer is not None and scope == "global" and not placement.quarantined:
        # The team's memory reaches every person's agent: an admin decides what enters it.
        placement = Placement("quarantined", TEAM_REVIEW)
    ts = now() if draft.said_at is None else draft.said_at
    atom = Atom(
        id=new_id(),
        type=atom_type,
        text=text,
        source_class=source,
        confidence=confidence,
        importance=importance,
        pinned=bool(draft.pinned) and not placement.quarantined,
        tags=tags,
        scope=scope,
        status="quarantined" if placement.quarantined else "live",
        created_at=ts,
        updated_at=ts,
        why=why,
        how_to_apply=how,
        project=project,
        session_id=session_id,
        turn=draft.turn,
        quarantine_reason=placement.reason,
        findings=describe(findings) if findings else None,
        # Quarantine's review window runs from now, also for replayed history.
        expires_at=now() + settings.quarantine_ttl_days * DAY if placement.quarantined else None,
        cue=cue,
        dates=draft.dates,
        owner=acting_owner(),
    )
    # A short answer is the same memory only with the same question: "yes" to two questions is two.
    key = f"{text} | {cue}" if cue else text
    return atom, normalize_for_dedup(key)


def _check_owner(atom: Atom, verb: str) -> None:
    """In a team's store an agent changes only its own person's atoms; shared ones are changed by their owner."""
    viewer = restricting_viewer()
    if viewer is not None and atom.owner != viewer.name:
        raise TrustRefused(
            f"atom {atom.id} is {atom.owner}'s ({atom.scope} scope); only its owner's agent can {verb} it, "
            f"or an admin with `trusted-memory-admin`."
        )


def _protected_chars(atom: Atom) -> int:
    return len(atom.text) + len(atom.why or "") + len(atom.how_to_apply or "")


def _write_message(atom: Atom) -> str:
    if atom.status == "live":
        return f"added atom {atom.id} ({atom.type})."
    why = {
        "scan_rejected": f"the content scanner flagged it ({atom.findings})",
        "tainted": f"source '{atom.source_class}' is not the user's own words",
        "strict_mode": "this store quarantines every agent-declared write (trust.agent_writes = quarantine)",
        TEAM_REVIEW: "scope='global' is the team's shared memory, and an admin approves what enters it",
    }.get(atom.quarantine_reason or "", "it needs review")
    if atom.quarantine_reason == TEAM_REVIEW:
        return (
            f"quarantined until an admin approves it: {why} (`trusted-memory-admin --as ADMIN promote "
            f"{atom.id}`). To keep it for yourself now, add it with scope='user'."
        )
    return (
        f"quarantined for human review, not added to memory: {why}. It will not be recalled unless the "
        f"user approves it with `trusted-memory-admin promote {atom.id}`."
    )


def _existing(atom: Atom) -> AtomWrite:
    if atom.status == "quarantined":
        message = (
            f"this text is already held in quarantine as {atom.id}; adding it again does "
            f"not make it trusted. Only the user can: `trusted-memory-admin promote {atom.id}`."
        )
    else:
        message = f"already remembered as atom {atom.id}; nothing stored twice."
    return AtomWrite("existing", atom, message)


def _check_proposal(field_path: str, value: str, evidence: str) -> tuple[str, str, str]:
    return (
        check_field("field_path", field_path),
        check_field("value", value),
        check_field("evidence", evidence, required=False),
    )


class AtomsService:
    """Agent-side atom use cases."""

    def __init__(
        self, store: Store, settings: Settings, recall: RecallService | None = None, budget: StoreBudget | None = None
    ) -> None:
        self._store = store
        self._settings = settings
        self._recall = recall
        self._budget = budget or StoreBudget(store, settings)

    async def add(self, draft: AtomDraft, *, actor: Actor = "agent", strict: bool | None = None) -> AtomWrite:
        """Validate, scan and place an atom; re-adding the same normalised text returns the existing one."""
        atom, norm = self.build(draft, strict=strict)
        # Embedding happens before the write lock is taken; if the embedder is down the atom is
        # still stored and waits in the embed queue.
        vector = (
            await self._recall.vector_for(atom.embedding_input, atom.session_id)
            if self._recall and atom.status == "live"
            else None
        )
        await self._budget.make_room(footprint([atom.text]))
        async with self.writing() as tx:
            write = await self._insert(tx, atom, norm, vector, actor)
        if write.status == "existing":
            return write
        if self._recall is not None and vector is not None:
            self._recall.note_indexed_write()
        await self._budget.settle()
        return write

    def build(self, draft: AtomDraft, *, strict: bool | None = None) -> tuple[Atom, str]:
        """Validate and place a draft (build_atom with this store's strict mode unless `strict` says)."""
        if strict is None:
            strict = self._settings.trust.agent_writes == "quarantine"
        return build_atom(draft, self._settings, strict=strict)

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[Tx]:
        """A write transaction for atom writes (Store.write): if it rolls back, the vectors its writes put
        in the in-memory index leave it again."""
        held: Tx | None = None
        try:
            async with self._store.write() as tx:
                held = tx
                yield tx
        except BaseException:
            if self._recall is not None and held is not None:
                self._recall.discard_staged(held)
            raise
        if self._recall is not None and held is not None:
            self._recall.commit_staged(held)

    async def add_in(self, tx: Tx, atom: Atom, norm: str, *, actor: Actor = "agent") -> AtomWrite:
        """Store a built atom inside the caller's write transaction (opened with `writing`, the size cap
        checked before it for `footprint` of what it writes); embedded in that transaction's view."""
        # One round trip for what the write reads before its insert: a duplicate ends it there.
        existing, context, recent = await tx.recall.before_write(norm, atom.session_id, SESSION_LINKS, atom.owner)
        if existing is not None:
            return _existing(existing)
        vector = (
            await self._recall.vector_in(tx, atom.embedding_input, context)
            if self._recall and atom.status == "live"
            else None
        )
        return await self._insert(tx, atom, norm, vector, actor, recent=recent, checked=True)

    async def _insert(
        self,
        tx: Tx,
        atom: Atom,
        norm: str,
        vector: tuple[str, float, bytes, npt.NDArray[np.float32]] | None,
        actor: Actor,
        *,
        recent: Sequence[int] | None = None,
        checked: bool = False,
    ) -> AtomWrite:
        """Insert an atom with its vector, links and event (`checked`: the caller found no duplicate)."""
        existing = None if checked else await tx.atoms.find_by_norm(norm)
        if existing is not None:
            return _existing(existing)
        if actor == "agent" and atom.status == "live" and (atom.pinned or atom.importance == "critical"):
            self._budget.check_protected(*await tx.atoms.protected_usage(), adding_chars=_protected_chars(atom))
        seq = None
        if checked and vector is not None and self._recall is not None and atom.status == "live":
            num, seq = await tx.recall.insert_with_vector(atom, norm, *vector[:3])
        else:
            num = await tx.atoms.insert(atom, norm)
        if self._recall is not None and atom.status == "live":
            await self._recall.index_written(tx, num, vector, atom.session_id, recent, seq)
        kind = "atom_quarantined" if atom.status == "quarantined" else "atom_added"
        detail = {
            "type": atom.type,
            "source_class": atom.source_class,
            "reason": atom.quarantine_reason,
            "findings": atom.findings,
            "preview": preview(atom.text, 80),
        }
        # Absent means none: a live write has no quarantine reason or findings (~35 bytes a turn).
        await tx.events.record(
            actor,
            kind,
            f"atom:{atom.id}",
            {k: v for k, v in detail.items() if v is not None},
            atom_text=atom.text,  # just inserted: no read-back
        )
        status = atom.status if atom.status == "quarantined" else "added"
        return AtomWrite(status, atom, _write_message(atom), embedded=vector is not None)

    async def prepare(self, texts: Sequence[str]) -> None:
        """Before a transaction that will add atoms of these texts with add_in (RecallService.prepare)."""
        if self._recall is not None:
            await self._recall.prepare(texts)

    @property
    def budget(self) -> StoreBudget:
        """The size cap these writes are checked against."""
        return self._budget

    def note_turn_written(self, writes: Sequence[AtomWrite]) -> None:
        """After one committed transaction that held a turn and these atom writes (see note_indexed_write):
        the index is still current unless a live atom went to the embed queue instead."""
        if self._recall is not None and all(w.embedded for w in writes if w.status == "added"):
            self._recall.note_indexed_write()

    def note_write_without_atoms(self) -> None:
        """After a committed write of this process that changed no atom (RecallService.note_write_without_atoms)."""
        if self._recall is not None:
            self._recall.note_write_without_atoms()

    async def supersede(self, newer: Atom, statement: str, *, actor: Actor = "agent") -> Atom | None:
        """The user corrected an earlier memory with `newer`: link them and let the newer one rank first.

        The earlier memory stays findable (the user may ask what they first said); its confidence is
        halved, which lowers its retention and so its rank, and a full-weight link ties the two.
        """
        if self._recall is None or newer.status != "live":
            return None
        result = await self._recall.search(
            RecallQuery(
                statement,
                k=3,
                filters=AtomFilter(until=newer.created_at - 0.001),
                expand=False,
                touch=False,
            )
        )
        older = next(
            (h.atom for h in result.hits if h.atom.id != newer.id and h.relevance >= SUPERSEDE_MIN_RELEVANCE), None
        )
        if older is None:
            return None
        async with self._store.write() as tx:
            new_num, old_num = await tx.recall.num_of(newer.id), await tx.recall.num_of(older.id)
            current = await tx.atoms.get(older.id)
            if new_num is None or old_num is None or current is None:
                return None
            # A full-weight semantic link: recalling either brings the other along (the links table
            # knows temporal, task and semantic kinds; the event records that it is a correction).
            await tx.recall.link([(new_num, old_num, "semantic", 1.0)])
            await tx.atoms.set_confidence(older.id, round(current.confidence / 2, 3))
            await tx.events.record(actor, "atom_superseded", f"atom:{older.id}", {"by": newer.id}, owner=current.owner)
        return older

    async def view(self, atom_id: str) -> Atom:
        """A live atom by id; quarantined content is shown only by the quarantine listing."""
        atom_id = check_atom_id(atom_id)
        async with self._store.read() as rx:
            atom = await rx.atoms.get(atom_id)
        if atom is None:
            raise NotFound(f"no atom {atom_id}; search or list atoms to find ids")
        if atom.status != "live":
            raise TrustRefused(
                f"atom {atom_id} is quarantined (untrusted); its content is shown only by list_quarantine, "
                "and only the user can release it with trusted-memory-admin."
            )
        return atom

    async def forget(self, atom_id: str, *, actor: Actor = "agent", refuse_trusted: str | None = None) -> Atom:
        """Delete an atom; a pinned one needs the user to unpin it first.

        With `refuse_trusted` (strict mode), a live trusted atom is refused with that explanation:
        checked inside the write, so the atom cannot change status in between.
        """
        atom_id = check_atom_id(atom_id)
        async with self._store.write() as tx:
            atom = await tx.atoms.get(atom_id)
            if atom is None:
                raise NotFound(f"no atom {atom_id}; nothing to forget")
            _check_owner(atom, "forget")
            if refuse_trusted is not None and atom.status == "live" and is_trusted(atom.source_class):
                raise TrustRefused(
                    f"this store is in strict mode (trust.agent_writes = quarantine): agents cannot {refuse_trusted}"
                )
            if atom.pinned and actor == "agent":
                raise TrustRefused(
                    f"atom {atom_id} is pinned; only the user can unpin it (`trusted-memory-admin unpin {atom_id}`), "
                    "after which it can be forgotten."
                )
            await tx.atoms.delete(atom_id)
            await tx.events.record(
                actor,
                "atom_forgotten",
                f"atom:{atom_id}",
                {"status": atom.status, "source_class": atom.source_class, "text": atom.text},
                owner=atom.owner,
            )
        return atom

    async def pin(self, atom_id: str, *, actor: Actor = "agent") -> Atom:
        """Pin a live atom so it is never evicted."""
        atom_id = check_atom_id(atom_id)
        async with self._store.write() as tx:
            atom = await tx.atoms.get(atom_id)
            if atom is None:
                raise NotFound(f"no atom {atom_id}; nothing to pin")
            _check_owner(atom, "pin")
            if atom.status != "live":
                raise TrustRefused(f"atom {atom_id} is quarantined; only approved memory can be pinned")
            if not atom.pinned:
                if actor == "agent" and atom.importance != "critical":  # a critical one is counted already
                    self._budget.check_protected(*await tx.atoms.protected_usage(), adding_chars=_protected_chars(atom))
                ts = now()
                await tx.atoms.set_pinned(atom_id, ts)
                await tx.events.record(actor, "atom_pinned", f"atom:{atom_id}", {}, owner=atom.owner)
                atom = await tx.atoms.get(atom_id) or atom
        return atom

    async def list_live(self, f: AtomFilter, *, limit: int = 50) -> list[Atom]:
        """Trusted atoms matching a filter, newest first."""
        async with self._store.read() as rx:
            return await rx.atoms.list(dataclasses.replace(f, status="live"), now=now(), limit=limit)

    async def list_quarantine(self, *, limit: int = 50) -> list[Atom]:
        """Quarantined atoms still inside their review window, newest first."""
        async with self._store.read() as rx:
            return await rx.atoms.list(AtomFilter(status="quarantined"), now=now(), limit=limit)

    async def list_pending(self) -> list[PendingReview]:
        """Inferences about the user waiting for review."""
        async with self._store.read() as rx:
            return await rx.pending.list(now=now())

    async def reject_pending(self, review_id: str, *, actor: Actor = "agent") -> PendingReview:
        """Drop a pending inference (rejecting never raises trust, so the agent may do it)."""
        review_id = check_atom_id(review_id)
        async with self._store.write() as tx:
            item = await tx.pending.get(review_id)
            if item is None:
                raise NotFound(f"no pending review {review_id}; call list_pending_review for ids")
            await tx.pending.delete(review_id)
            await tx.events.record(
                actor,
                "pending_rejected",
                f"pending:{review_id}",
                {"field_path": item.field_path, "value": item.value, "owner": item.owner},
                owner=item.owner,
            )
        return item

    async def propose(
        self,
        field_path: str,
        value: str,
        *,
        evidence: str,
        confidence: float,
        actor: Actor = "system",
    ) -> PendingReview | None:
        """Queue a speculative inference about the user (re-inferring refreshes it); None if scan-rejected."""
        field_path, value, evidence = _check_proposal(field_path, value, evidence)
        if scan(f"{field_path}\n{value}\n{evidence}"):
            return None
        async with self._store.write() as tx:
            return await self._queue(tx, field_path, value, evidence, confidence, actor)

    async def propose_in(
        self, tx: Tx, field_path: str, value: str, *, evidence: str, confidence: float, actor: Actor = "system"
    ) -> PendingReview | None:
        """`propose` inside the caller's write transaction."""
        field_path, value, evidence = _check_proposal(field_path, value, evidence)
        if scan(f"{field_path}\n{value}\n{evidence}"):
            return None
        return await self._queue(tx, field_path, value, evidence, confidence, actor)

    async def _queue(
        self, tx: Tx, field_path: str, value: str, evidence: str, confidence: float, actor: Actor
    ) -> PendingReview | None:
        ts = now()
        expires = ts + self._settings.pending_max_age_days * DAY
        existing = await tx.pending.find(field_path, value)
        if existing is not None:
            await tx.pending.refresh(existing.id, evidence=evidence, confidence=confidence, ts=ts, expires_at=expires)
            await tx.events.record(actor, "pending_refreshed", f"pending:{existing.id}", {"field_path": field_path})
            return await tx.pending.get(existing.id)
        queue = await tx.pending.list(now=ts, include_expired=True)
        for old in queue[: max(0, len(queue) - MAX_PENDING + 1)]:
            await tx.pending.delete(old.id)
            await tx.events.record(
                "system", "pending_evicted", f"pending:{old.id}", {"field_path": old.field_path}, owner=old.owner
            )
        item = PendingReview(new_id(), field_path, value, evidence, confidence, ts, ts, expires, acting_owner())
        await tx.pending.insert(item)
        await tx.events.record(actor, "pending_added", f"pending:{item.id}", {"field_path": field_path, "value": value})
        return item
