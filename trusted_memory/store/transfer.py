"""SQL that only export and import need: every row of the session, episode, link, vector and nudge
tables as it is stored, and the import keys of chat exports.

The other repositories read what the live paths need (one session, its newest turns); an export
reads everything, ids and times included, and an import writes rows back as they were.

When a person acts in a team's store (`restricting_viewer()`), the reads keep to what that person
may see, in the SQL itself: their own sessions and what hangs off a session (notes, transcript
turns, nudges shown in it), their own episodes and chat-import keys, and the links and vectors
of the atoms `AtomsRepo` shows them (a link only when both its ends are). The operator (nobody
acting, or an admin) reads every row, so a backup or a migration stays lossless. A person's import
writes only under their records in the same way: notes into their own sessions, links and vectors
onto atoms they see. Import keys are each owner's own: another person's import of the same chat is
not a duplicate of theirs.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Sequence

from ..model import Episode, Session, SessionNote
from ..people import acting_owner, owner_or_acting, restricting_viewer
from .atoms import visibility_sql
from .conn import Connection, rows_in
from .recall import link_kind_sql, link_weight_sql, stored_link
from .sessions import session_from_row
from .vector_codec import decode_many

# (atom id, space, scale, int8 blob) of one stored vector.
VectorRow = tuple[str, str, float, bytes]
# (src atom id, dst atom id, kind, weight) of one association.
LinkRow = tuple[str, str, str, float]
# (id, kind, subject, session id, shown at) of one nudge shown.
NudgeRow = tuple[int, str, str, str | None, float]
# (role, text, ts) of one kept transcript turn.
TurnRow = tuple[str, str, float]

# A row hanging off a session (`session_id`) is a person's when the session is.
_OF_OWN_SESSION = "session_id IN (SELECT id FROM sessions WHERE owner = ?)"


def _own(clause: str) -> tuple[str, list[object]]:
    """`clause` (one ? for the person's name) with its parameter while a person acts; nothing otherwise."""
    viewer = restricting_viewer()
    return ("", []) if viewer is None else (clause, [viewer.name])


def _where(*terms: tuple[str, list[object]]) -> tuple[str, list[object]]:
    """A WHERE of the non-empty terms, ANDed, with their parameters in order."""
    used = [(sql, params) for sql, params in terms if sql]
    if not used:
        return "", []
    return " WHERE " + " AND ".join(sql for sql, _ in used), [p for _, params in used for p in params]


def _visible(table: str) -> tuple[str, list[object]]:
    """The atoms of `table` the acting person may see (visibility_sql), as a term for _where."""
    visible = visibility_sql(table)
    return ("", []) if visible is None else visible


class TransferRepo:
    """Whole-table reads for an export, raw inserts for an import."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    # sessions ------------------------------------------------------------------------------
    async def sessions(self) -> builtins.list[Session]:
        """Every session, oldest first (while a person acts, theirs only)."""
        where, params = _where(_own("owner = ?"))
        async with self._conn.execute(f"SELECT * FROM sessions{where} ORDER BY started_at, id", params) as cur:
            return [session_from_row(r) for r in await cur.fetchall()]

    async def transcript(self, session: Session) -> builtins.list[TurnRow]:
        """A session's kept transcript with each turn's time, oldest first (nothing of another person's session)."""
        where, params = _where(("owner = ? AND session_id = ?", [session.owner, session.id]), _own("owner = ?"))
        async with self._conn.execute(f"SELECT role, text, ts FROM session_turns{where} ORDER BY id", params) as cur:
            return [(str(r[0]), str(r[1]), float(r[2])) for r in await cur.fetchall()]

    async def insert_session(self, session: Session, buffer: Sequence[str], transcript: Sequence[TurnRow]) -> bool:
        """Insert a session with its buffer and transcript; False (nothing written) if its owner has a
        session of its id."""
        cur = await self._conn.execute(
            "INSERT OR IGNORE INTO sessions(id, project, untrusted, untrusted_reason, turns, started_at, last_at, "
            "ended_at, frozen_facts, resumed_turn, resume_gap_s, resumed_from, predicted, predicted_turn, relayed, "
            "owner) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session.id,
                session.project,
                int(session.untrusted),
                session.untrusted_reason,
                session.turns,
                session.started_at,
                session.last_at,
                session.ended_at,
                session.frozen_facts,
                session.resumed_turn,
                session.resume_gap_s,
                session.resumed_from,
                json.dumps(list(session.predicted)) if session.predicted else None,
                session.predicted_turn,
                int(session.relayed),
                session.owner,
            ),
        )
        if cur.rowcount <= 0:
            return False
        await self._conn.executemany(
            "INSERT INTO session_buffer(owner, session_id, seq, line) VALUES (?, ?, ?, ?)",
            [(session.owner, session.id, i + 1, line) for i, line in enumerate(buffer)],
        )
        await self._conn.executemany(
            "INSERT INTO session_turns(owner, session_id, role, text, ts) VALUES (?, ?, ?, ?, ?)",
            [(session.owner, session.id, role, text, ts) for role, text, ts in transcript],
        )
        return True

    async def notes(self) -> builtins.list[SessionNote]:
        """Every session note, in id order (while a person acts, those of their sessions)."""
        where, params = _where(_own("owner = ?"))
        async with self._conn.execute(f"SELECT * FROM session_notes{where} ORDER BY id", params) as cur:
            return [
                SessionNote(r["id"], r["session_id"], r["category"], r["text"], r["created_at"], r["owner"])
                for r in await cur.fetchall()
            ]

    async def insert_note(self, note: SessionNote) -> bool:
        """Insert a note under its id, or a new id when that one is taken; False if the session has its text
        (or, while a person acts, is not theirs: a file may not add to another person's session)."""
        viewer = restricting_viewer()
        if viewer is not None:
            async with self._conn.execute(
                "SELECT 1 FROM sessions WHERE owner = ? AND id = ?", (viewer.name, note.session_id)
            ) as cur:
                if await cur.fetchone() is None or note.owner != viewer.name:
                    return False
        async with self._conn.execute(
            "SELECT 1 FROM session_notes WHERE owner = ? AND session_id = ? AND text = ?",
            (note.owner, note.session_id, note.text),
        ) as cur:
            if await cur.fetchone() is not None:
                return False
        async with self._conn.execute("SELECT 1 FROM session_notes WHERE id = ?", (note.id,)) as cur:
            taken = await cur.fetchone() is not None
        # A taken id gets the next one: named as NULL, PostgreSQL's identity column would refuse it.
        row = (note.owner, note.session_id, note.category, note.text, note.created_at)
        await self._conn.execute(
            "INSERT INTO session_notes(owner, session_id, category, text, created_at) VALUES (?, ?, ?, ?, ?)"
            if taken
            else "INSERT INTO session_notes(id, owner, session_id, category, text, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            row if taken else (note.id, *row),
        )
        return True

    # episodes ------------------------------------------------------------------------------
    async def episodes(self) -> builtins.list[tuple[Episode, float | None, bytes | None]]:
        """Every episode with its vector (scale, blob), oldest first (while a person acts, theirs only)."""
        where, params = _where(_own("owner = ?"))
        async with self._conn.execute(f"SELECT * FROM episodes{where} ORDER BY num", params) as cur:
            rows = await cur.fetchall()
        return [
            (
                Episode(
                    r["id"],
                    r["session_id"],
                    r["project"],
                    r["summary"],
                    r["status"],
                    r["source_class"],
                    r["turns"],
                    r["created_at"],
                    r["expires_at"],
                    r["owner"],
                ),
                r["scale"],
                None if r["vec"] is None else bytes(r["vec"]),
            )
            for r in rows
        ]

    async def has_episode(self, episode: Episode) -> bool:
        """Whether an episode with this id, or one of its owner's session of this id, is stored."""
        async with self._conn.execute(
            "SELECT 1 FROM episodes WHERE id = ? OR (owner = ? AND session_id = ?) LIMIT 1",
            (episode.id, episode.owner, episode.session_id),
        ) as cur:
            return await cur.fetchone() is not None

    # associations --------------------------------------------------------------------------
    async def links(self) -> builtins.list[LinkRow]:
        """Every association, by the atom ids at both ends (while a person acts, of atoms they see at both)."""
        where, params = _where(_visible("s"), _visible("d"))
        async with self._conn.execute(
            f"SELECT s.id, d.id, {link_kind_sql('a.kind')}, {link_weight_sql('a.weight')} "
            f"FROM associations a JOIN atoms s ON s.num = a.src JOIN atoms d ON d.num = a.dst{where} "
            "ORDER BY s.id, d.id, a.kind",
            params,
        ) as cur:
            return [(str(r[0]), str(r[1]), str(r[2]), float(r[3])) for r in await cur.fetchall()]

    async def insert_link(self, link: LinkRow) -> bool | None:
        """Store a link between two atoms; None if either atom is missing, False if already stored."""
        src, dst, kind, weight = link
        async with self._conn.execute(
            "SELECT (SELECT num FROM atoms WHERE id = ?), (SELECT num FROM atoms WHERE id = ?)", (src, dst)
        ) as cur:
            row = await cur.fetchone()
        if row is None or row[0] is None or row[1] is None:
            return None
        cur = await self._conn.execute(
            "INSERT OR IGNORE INTO associations(src, dst, kind, weight) VALUES (?, ?, ?, ?)",
            (row[0], row[1], *stored_link(kind, weight)),
        )
        return bool(cur.rowcount > 0)

    async def atom_nums(self, atom_ids: Sequence[str]) -> dict[str, int]:
        """The num of each of these atoms that is stored (and the acting person sees), by id."""
        rows = await rows_in(
            self._conn,
            "SELECT id, num, owner, scope, project, status FROM atoms WHERE id IN ({keys})",
            sorted(set(atom_ids)),
        )
        viewer = restricting_viewer()
        return {
            str(r[0]): int(r[1]) for r in rows if viewer is None or viewer.sees(str(r[2]), str(r[3]), r[4], str(r[5]))
        }

    async def insert_links(self, links: Sequence[tuple[int, int, str, float]]) -> int:
        """Store (src num, dst num, kind, weight) links in one statement run; how many were new."""
        if not links:
            return 0
        cur = await self._conn.executemany(
            "INSERT OR IGNORE INTO associations(src, dst, kind, weight) VALUES (?, ?, ?, ?)",
            [(src, dst, *stored_link(kind, weight)) for src, dst, kind, weight in links],
        )
        return max(int(cur.rowcount), 0)

    # vectors -------------------------------------------------------------------------------
    async def vectors(self) -> builtins.list[VectorRow]:
        """Every settled atom vector, by atom id, in the order they were stored.

        A vector whose atom waits on the embed queue is stale (the memory before it in its session
        changed): it is left out, so the importing store queues that atom and embeds it afresh.
        While a person acts, only the vectors of atoms they see.
        """
        where, params = _where(("v.atom_num NOT IN (SELECT atom_num FROM embed_queue)", []), _visible("atoms"))
        async with self._conn.execute(
            f"SELECT atoms.id, v.space, v.scale, v.vec FROM vectors v JOIN atoms ON atoms.num = v.atom_num{where} "
            "ORDER BY v.seq",
            params,
        ) as cur:
            rows = await cur.fetchall()
        blobs = decode_many([bytes(r[3]) for r in rows])  # a file carries the dense int8 bytes, as ever
        return [(str(r[0]), str(r[1]), float(r[2]), blob) for r, blob in zip(rows, blobs, strict=True)]

    async def vector_target(self, atom_id: str) -> tuple[int, bool] | None:
        """(num, has a vector already) of a live atom, or None when the atom is missing or not live."""
        async with self._conn.execute(
            "SELECT num, EXISTS(SELECT 1 FROM vectors WHERE atom_num = atoms.num) FROM atoms "
            "WHERE id = ? AND status = 'live'",
            (atom_id,),
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else (int(row[0]), bool(row[1]))

    async def vector_targets(self, atom_ids: Sequence[str]) -> dict[str, tuple[int, bool]]:
        """vector_target of many atoms at once: (num, has a vector already) of each live one, by id."""
        rows = await rows_in(
            self._conn,
            "SELECT id, num, EXISTS(SELECT 1 FROM vectors WHERE atom_num = atoms.num), owner FROM atoms "
            "WHERE status = 'live' AND id IN ({keys})",
            sorted(set(atom_ids)),
        )
        # A person's file gives vectors to their own atoms only.
        viewer = restricting_viewer()
        return {str(r[0]): (int(r[1]), bool(r[2])) for r in rows if viewer is None or str(r[3]) == viewer.name}

    # nudges --------------------------------------------------------------------------------
    async def nudges(self) -> builtins.list[NudgeRow]:
        """Every nudge shown, in id order.

        While a person acts, those shown in their sessions: a nudge has no owner of its own, and its
        subject quotes the user model it came from, so one shown outside any session is nobody's to take.
        """
        where, params = _where(_own(_OF_OWN_SESSION))
        async with self._conn.execute(
            f"SELECT id, kind, subject, session_id, shown_at FROM nudges_shown{where} ORDER BY id", params
        ) as cur:
            return [(int(r[0]), str(r[1]), str(r[2]), r[3], float(r[4])) for r in await cur.fetchall()]

    async def insert_nudge(self, row: NudgeRow) -> bool:
        """Log a shown nudge under its id (a new one when taken); False if the same showing is logged."""
        nudge_id, kind, subject, session_id, shown_at = row
        async with self._conn.execute(
            "SELECT 1 FROM nudges_shown WHERE kind = ? AND subject = ? AND shown_at = ?", (kind, subject, shown_at)
        ) as cur:
            if await cur.fetchone() is not None:
                return False
        async with self._conn.execute("SELECT 1 FROM nudges_shown WHERE id = ?", (nudge_id,)) as cur:
            taken = await cur.fetchone() is not None
        values = (kind, subject, session_id, shown_at)
        await self._conn.execute(  # a taken id gets the next one, as a note's does
            "INSERT INTO nudges_shown(kind, subject, session_id, shown_at) VALUES (?, ?, ?, ?)"
            if taken
            else "INSERT INTO nudges_shown(id, kind, subject, session_id, shown_at) VALUES (?, ?, ?, ?, ?)",
            values if taken else (nudge_id, *values),
        )
        return True

    # chat import keys ----------------------------------------------------------------------
    async def import_keys(self) -> builtins.list[tuple[str, str, float, str]]:
        """Every (key, session id, imported at, owner) of chat imports, in key order (a person: their own)."""
        where, params = _where(_own("owner = ?"))
        async with self._conn.execute(
            f"SELECT key, session_id, imported_at, owner FROM chat_imports{where} ORDER BY owner, key", params
        ) as cur:
            return [(str(r[0]), str(r[1]), float(r[2]), str(r[3])) for r in await cur.fetchall()]

    async def known_keys(self, keys: Sequence[str]) -> set[str]:
        """Which of these import keys the acting person (the implicit owner, for nobody) has recorded."""
        found: set[str] = set()
        owner = acting_owner()
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            async with self._conn.execute(
                f"SELECT key FROM chat_imports WHERE owner = ? AND key IN ({', '.join('?' * len(chunk))})",
                (owner, *chunk),
            ) as cur:
                found.update(str(r[0]) for r in await cur.fetchall())
        return found

    async def record_keys(self, rows: Sequence[tuple[str, str, float]], *, owner: str | None = None) -> int:
        """Record (key, session id, imported at) rows of `owner` (the acting person); how many were new."""
        who = owner_or_acting(owner)
        added = 0
        for key, session_id, imported_at in rows:
            cur = await self._conn.execute(
                "INSERT OR IGNORE INTO chat_imports(owner, key, session_id, imported_at) VALUES (?, ?, ?, ?)",
                (who, key, session_id, imported_at),
            )
            added += max(cur.rowcount, 0)
        return added
