"""The admin-side service: what only a human, through trusted-memory-admin, may do.

Only the admin CLI constructs this class; nothing under server/ may import it (a test checks).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...errors import InvalidInput, NotFound, TrustRefused
from ...model import Atom, Episode, Event, PendingReview, Target
from ...people import acting_viewer
from ...queries import AtomFilter
from ...scan import normalize_for_dedup
from ...store.atoms import dedup_digest
from ...store.base import now
from ...store.counts import StoreCounts, count_records
from ...store.privileged import PrivilegedOps
from ...usermodel import UserModel
from ..atoms import check_text
from ..facts import ConsolidateResult, FactsView, FactWrite, check_target
from ..nudges import NudgePreview
from ..recall_types import RecallQuery, RecallResult
from ..runtime import Runtime
from ..stats import StoreStats, store_stats
from ..user_state import InferenceReport
from ..wiring import build_services


@dataclass(frozen=True, slots=True)
class PruneReport:
    """What a prune removed."""

    quarantine_expired: int
    pending_expired: int


def _check_may_change(atom: Atom, verb: str) -> None:
    """A member at the desk decides only on their own atoms: a shared atom they can see is its owner's."""
    viewer = acting_viewer()
    if viewer is not None and viewer.team and atom.owner != viewer.name:
        raise TrustRefused(
            f"atom {atom.id} is {atom.owner}'s ({atom.scope} scope); only its owner or an admin can {verb} it."
        )


def _check_may_approve(atom: Atom) -> None:
    """Team-wide memory reaches every person's agent: only an admin approves what enters it."""
    _check_may_change(atom, "approve")
    viewer = acting_viewer()
    if viewer is not None and viewer.team and not viewer.is_admin and atom.scope == "global":
        raise TrustRefused(
            f"atom {atom.id} is for the team's global memory, and only an admin approves team-wide memory; "
            f"ask one to run `trusted-memory-admin --as ADMIN promote {atom.id}`."
        )


class AdminService:
    """Use cases of the human operator; every change is an event with actor `admin`."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._store = runtime.store
        services = build_services(runtime)
        self._facts = services.facts
        self._atoms = services.atoms
        self._episodes = services.episodes
        self._user_state = services.user_state
        self._nudges = services.nudges

    @property
    def runtime(self) -> Runtime:
        """The opened store and settings (for export, import and doctor)."""
        return self._runtime

    async def stats(self) -> StoreStats:
        """Sizes and counts of the store."""
        return await store_stats(self._runtime, self._facts)

    async def counts(self) -> StoreCounts:
        """How many atoms (by type, status, source), turns, sessions, notes, episodes and reviews there are."""
        async with self._store.read() as rx:
            return await count_records(rx.conn)

    # facts ---------------------------------------------------------------------------------
    async def facts(self, target: Target) -> FactsView:
        """Entries of one target."""
        return await self._facts.view(target)

    async def add_fact(
        self,
        target: str,
        content: str,
        *,
        key: str | None = None,
        pinned: bool = False,
        keywords: Sequence[str] | None = None,
    ) -> FactWrite:
        """Add (or upsert by key) a facts entry as the operator."""
        return await self._facts.add(
            check_target(target),
            content,
            key=key,
            pinned=pinned,
            keywords=keywords,
            actor="admin",
        )

    async def replace_fact(self, target: str, old_text: str, content: str) -> FactWrite:
        """Rewrite the entry `old_text` names with `content`, as the operator."""
        return await self._facts.replace(check_target(target), old_text, content, actor="admin")

    async def remove_fact(self, target: str, old_text: str) -> FactWrite:
        """Remove the entry that `old_text` names, as the operator."""
        return await self._facts.remove(check_target(target), old_text, actor="admin")

    # atoms ---------------------------------------------------------------------------------
    async def atoms(self, f: AtomFilter, *, limit: int = 50) -> list[Atom]:
        """Atoms of any status matching a filter, newest first."""
        async with self._store.read() as rx:
            return await rx.atoms.list(f, now=now(), limit=limit)

    async def atom(self, atom_id: str) -> Atom:
        """Any atom by id (an unambiguous id prefix of 6+ characters also works)."""
        async with self._store.read() as rx:
            atom = await rx.atoms.get(atom_id.strip().lower().lstrip("#"))
            if atom is None and len(atom_id) >= 6:
                matches = await rx.atoms.ids_with_prefix(atom_id.strip().lower().lstrip("#"))
                if len(matches) == 1:
                    atom = await rx.atoms.get(matches[0])
                elif len(matches) > 1:
                    raise InvalidInput(f"id prefix {atom_id!r} matches {len(matches)} atoms; give more characters")
        if atom is None:
            raise NotFound(f"no atom {atom_id}; `trusted-memory-admin atoms list` shows ids")
        return atom

    async def quarantine(self, *, limit: int = 200) -> list[Atom]:
        """Quarantined atoms still inside their review window."""
        return await self._atoms.list_quarantine(limit=limit)

    async def promote(self, atom_id: str) -> Atom:
        """Release a quarantined atom as trusted, human-approved memory."""
        atom = await self.atom(atom_id)
        async with self._store.write() as tx:
            # Re-read under the write lock: another process may have forgotten or promoted it since.
            current = await tx.atoms.get(atom.id)
            if current is None:
                raise NotFound(f"atom {atom.id} is gone (forgotten or expired meanwhile); nothing was approved")
            _check_may_approve(current)
            if current.status == "live" and current.source_class in ("user_said", "user_approved"):
                return current
            await PrivilegedOps(tx.conn).promote_atom(atom.id, now())
            await tx.events.append(
                "admin",
                "atom_promoted",
                f"atom:{atom.id}",
                {"from_source_class": current.source_class, "reason": current.quarantine_reason},
                owner=current.owner,
            )
            promoted = await tx.atoms.get(atom.id)
        if promoted is None:
            raise NotFound(f"atom {atom.id} is gone; nothing was approved")
        return promoted

    async def promote_edited(self, atom_id: str, text: str) -> Atom:
        """Release a quarantined atom as human-approved memory with the reviewer's corrected text."""
        atom = await self.atom(atom_id)
        edited = check_text(text.strip(), atom.type)
        if not edited:
            raise InvalidInput("the edited text is empty; write the statement to approve, or reject the atom")
        ts = now()
        async with self._store.write() as tx:
            current = await tx.atoms.get(atom.id)
            # Checked under the write lock: it may have been decided elsewhere (forgotten, expired or approved).
            if current is None or current.status != "quarantined":
                raise InvalidInput(
                    f"atom {atom.id} is not quarantined (any more); only held atoms are edited before approval"
                )
            _check_may_approve(current)
            ops = PrivilegedOps(tx.conn)
            await ops.edit_quarantined_text(atom.id, edited, dedup_digest(normalize_for_dedup(edited)), ts)
            await ops.promote_atom(atom.id, ts)
            await tx.events.append(
                "admin",
                "atom_promoted",
                f"atom:{atom.id}",
                {
                    "from_source_class": current.source_class,
                    "reason": current.quarantine_reason,
                    "edited": True,
                    "original_text": current.text,
                },
                owner=current.owner,
            )
            promoted = await tx.atoms.get(atom.id)
        if promoted is None:
            raise NotFound(f"atom {atom.id} is gone; nothing was approved")
        return promoted

    async def forget(self, atom_id: str) -> Atom:
        """Delete any atom, pinned or not."""
        atom = await self.atom(atom_id)
        return await self._atoms.forget(atom.id, actor="admin")

    async def pin(self, atom_id: str) -> Atom:
        """Pin a live atom."""
        atom = await self.atom(atom_id)
        return await self._atoms.pin(atom.id, actor="admin")

    async def unpin(self, atom_id: str) -> Atom:
        """Unpin an atom so it can be forgotten or evicted."""
        atom = await self.atom(atom_id)
        _check_may_change(atom, "unpin")
        if not atom.pinned:
            return atom
        async with self._store.write() as tx:
            await PrivilegedOps(tx.conn).unpin_atom(atom.id, now())
            await tx.events.append("admin", "atom_unpinned", f"atom:{atom.id}", {}, owner=atom.owner)
            unpinned = await tx.atoms.get(atom.id)
        assert unpinned is not None
        return unpinned

    # pending review ------------------------------------------------------------------------
    async def pending(self) -> list[PendingReview]:
        """Inferences waiting for review."""
        return await self._atoms.list_pending()

    async def _pending_item(self, review_id: str) -> PendingReview:
        review_id = review_id.strip().lower()
        async with self._store.read() as rx:
            item = await rx.pending.get(review_id)
            if item is None and len(review_id) >= 6:
                matches = [
                    p for p in await rx.pending.list(now=now(), include_expired=True) if p.id.startswith(review_id)
                ]
                item = matches[0] if len(matches) == 1 else None
        if item is None:
            raise NotFound(f"no pending review {review_id}; `trusted-memory-admin pending` lists them")
        return item

    async def pending_item(self, review_id: str) -> PendingReview:
        """One pending inference by id (an unambiguous prefix of 6+ characters also works)."""
        return await self._pending_item(review_id)

    async def confirm(self, review_id: str) -> PendingReview:
        """Apply a pending inference to the user model."""
        item = await self._pending_item(review_id)
        async with self._store.write() as tx:
            await PrivilegedOps(tx.conn).confirm_pending(item, now())
            await tx.events.append(
                "admin",
                "pending_confirmed",
                f"pending:{item.id}",
                {"field_path": item.field_path, "value": item.value},
                owner=item.owner,
            )
        return item

    async def reject(self, review_id: str) -> PendingReview:
        """Drop a pending inference."""
        item = await self._pending_item(review_id)
        return await self._atoms.reject_pending(item.id, actor="admin")

    async def user_model(self) -> dict[str, tuple[str, str, float]]:
        """Stored user-model fields (confirmed and directly applied), unvalidated."""
        async with self._store.read() as rx:
            return await rx.pending.user_model()

    async def model(self) -> UserModel:
        """The user model as `context` applies it (stored fields that fail validation are dropped)."""
        return await self._user_state.model()

    async def infer_user_state(self) -> InferenceReport:
        """Run one user-state inference now, over trusted atoms (no session messages)."""
        return await self._user_state.infer(None)

    async def preview_nudges(self) -> NudgePreview:
        """The nudges `context` would show now, without consuming any."""
        return await self._nudges.preview(await self._user_state.model())

    # housekeeping --------------------------------------------------------------------------
    async def prune(self) -> PruneReport:
        """Delete quarantined atoms and pending inferences whose review window has passed."""
        ts = now()
        async with self._store.write() as tx:
            atoms = await tx.atoms.expired_quarantine(ts)
            for atom in atoms:
                await tx.atoms.delete(atom.id)
                await tx.events.append(
                    "admin",
                    "quarantine_expired",
                    f"atom:{atom.id}",
                    {"source_class": atom.source_class, "reason": atom.quarantine_reason, "text": atom.text},
                    owner=atom.owner,
                )
            expired = [p for p in await tx.pending.list(now=ts, include_expired=True) if p.expires_at <= ts]
            for item in expired:
                await tx.pending.delete(item.id)
                await tx.events.append(
                    "admin",
                    "pending_expired",
                    f"pending:{item.id}",
                    {"field_path": item.field_path, "value": item.value},
                    owner=item.owner,
                )
        return PruneReport(len(atoms), len(expired))

    async def search(self, query: RecallQuery) -> RecallResult:
        """Hybrid recall over trusted atoms, as the agent would see it."""
        return await self._runtime.recall.search(query)

    async def prepare_reindex(self, *, full: bool) -> tuple[str, int]:
        """Adopt the configured embedding space (re-queue every live atom with `full`): (space, waiting)."""
        recall = self._runtime.recall
        await recall.adopt_space()
        if full:
            async with self._store.write() as tx:
                queued = await tx.recall.requeue_all()
                await tx.events.append("admin", "reindex_requested", None, {"queued": queued})
        async with self._store.read() as rx:
            waiting = await rx.recall.queue_size()
        return recall.embedder().space.fingerprint(), waiting

    async def embed_waiting(self, progress: Callable[[int], None] | None = None) -> int:
        """Embed every atom waiting for a vector; returns how many were embedded."""
        return await self._runtime.recall.drain_queue(progress)

    # episodes ------------------------------------------------------------------------------
    async def episodes(self, *, include_held: bool = True, limit: int = 50) -> list[Episode]:
        """Episodes, newest first (held ones included by default)."""
        return await self._episodes.listing(include_held=include_held, limit=limit)

    async def episode(self, key: str) -> Episode:
        """Any episode by id, id prefix (6+) or session id."""
        key = key.strip()
        async with self._store.read() as rx:
            episode = await rx.sessions.episode(key)
            if episode is None and len(key) >= 6:
                matches = [e for e in await rx.sessions.episodes(limit=10_000) if e.id.startswith(key.lower())]
                episode = matches[0] if len(matches) == 1 else None
        if episode is None:
            raise NotFound(f"no episode {key}; `trusted-memory-admin episodes list` shows them")
        return episode

    async def promote_episode(self, key: str) -> Episode:
        """Release a held episode into recall as human-approved."""
        episode = await self.episode(key)
        if episode.status == "live":
            return episode
        async with self._store.write() as tx:
            await PrivilegedOps(tx.conn).promote_episode(episode.id)
            await tx.events.append(
                "admin",
                "episode_promoted",
                f"episode:{episode.id}",
                {"session_id": episode.session_id, "from_source_class": episode.source_class},
                owner=episode.owner,
            )
            promoted = await tx.sessions.episode(episode.id)
        assert promoted is not None
        return promoted

    async def consolidate(self, target: str) -> ConsolidateResult:
        """Merge redundant entries of a facts target, as the operator."""
        return await self._facts.consolidate(check_target(target), actor="admin")

    async def compact(self, progress: Callable[[int], None] | None = None) -> tuple[int, int]:
        """Checkpoint, rebuild the indexes and VACUUM: (bytes on disk before, after)."""
        before = await self._store.size_bytes()
        if progress:
            progress(1)
        await self._store.compact()
        if progress:
            progress(1)
        async with self._store.write() as tx:
            await tx.events.append("admin", "store_compacted", None, {"before": before})
        after = await self._store.size_bytes()
        if progress:
            progress(1)
        return before, after

    async def audit(
        self,
        *,
        kind: str | None = None,
        actor: str | None = None,
        subject: str | None = None,
        since: float | None = None,
        limit: int = 100,
        owner: str | None = None,
    ) -> list[Event]:
        """Events matching every given filter, oldest first (the newest `limit`); a member's about their own records."""
        async with self._store.read() as rx:
            return await rx.events.list(
                kind=kind,
                actor=actor,
                subject=subject,
                since=since,
                limit=limit,
                newest=True,
                owned=True,
                owner=owner,
            )
