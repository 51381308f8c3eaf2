"""SQL for sessions (buffer, notes, turns) and episodes."""

from __future__ import annotations

import builtins
import json
from collections.abc import Sequence

import aiosqlite

from ..model import Episode, Session, SessionNote
from ..people import acting_owner, acting_viewer, owner_or_acting, restricting_viewer
from .conn import Connection
from .postgres import search as pg_search
from .recall import quote_fts


def session_from_row(row: aiosqlite.Row) -> Session:
    """A Session from its row."""
    return Session(
        id=row["id"],
        project=row["project"],
        untrusted=bool(row["untrusted"]),
        untrusted_reason=row["untrusted_reason"],
        turns=row["turns"],
        started_at=row["started_at"],
        last_at=row["last_at"],
        ended_at=row["ended_at"],
        frozen_facts=row["frozen_facts"],
        resumed_turn=row["resumed_turn"],
        resume_gap_s=row["resume_gap_s"],
        resumed_from=row["resumed_from"],
        predicted=_intents(row["predicted"]),
        predicted_turn=row["predicted_turn"],
        relayed=bool(row["relayed"]),
        owner=row["owner"],
    )


def _intents(raw: str | None) -> tuple[str, ...]:
    try:
        value = json.loads(raw) if raw else []
    except ValueError:
        return ()
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _episode(row: aiosqlite.Row) -> Episode:
    return Episode(
        id=row["id"],
        session_id=row["session_id"],
        project=row["project"],
        summary=row["summary"],
        status=row["status"],
        source_class=row["source_class"],
        turns=row["turns"],
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        owner=row["owner"],
    )


def _mine(owner: str) -> bool:
    """Whether a session or episode of this owner is the acting person's to see (always, outside a team)."""
    viewer = restricting_viewer()
    return viewer is None or owner == viewer.name


# A session is (owner, id): two people's hosts picking the same id ("default", a date) each get their own.
_TOUCH = (
    "INSERT INTO sessions(id, project, started_at, last_at, owner, turns) VALUES (?, ?, ?, ?, ?, ?) "
    "ON CONFLICT(owner, id) DO UPDATE SET last_at = excluded.last_at, "
    "project = COALESCE(sessions.project, excluded.project), ended_at = NULL, "
    "turns = sessions.turns + excluded.turns RETURNING *"
)

_GET = "SELECT * FROM sessions WHERE owner = ? AND id = ?"

_LAST_TEXT = "SELECT text FROM session_turns WHERE owner = ? AND session_id = ? AND role = ? ORDER BY id DESC LIMIT 1"


class SessionsRepo:
    """Rows of sessions, their buffer, notes and turns, and episodes."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    # sessions ------------------------------------------------------------------------------
    async def get(self, session_id: str, *, owner: str | None = None) -> Session | None:
        """The acting person's session of this id (or `owner`'s). Work acting for nobody (the admin's
        desk) finds any person's, the implicit owner's first: that is every session of a one-person store."""
        if owner is None and acting_viewer() is None:
            sql = "SELECT * FROM sessions WHERE id = ? ORDER BY owner <> 'local', last_at DESC LIMIT 1"
            params: tuple[str, ...] = (session_id,)
        else:
            sql, params = _GET, (owner_or_acting(owner), session_id)
        async with self._conn.execute(sql, params) as cur:
            row = await cur.fetchone()
        if row is None or not _mine(row["owner"]):
            return None
        return session_from_row(row)

    async def owners(self, session_id: str) -> builtins.list[str]:
        """Who holds a session of this id (the implicit owner first, then by name)."""
        async with self._conn.execute(
            "SELECT owner FROM sessions WHERE id = ? ORDER BY owner <> 'local', owner", (session_id,)
        ) as cur:
            return [str(r[0]) for r in await cur.fetchall()]

    async def touch(self, session_id: str, project: str | None, ts: float, *, turn: bool) -> Session:
        """Create the acting person's session on first sight; count a turn; remember the project once known."""
        # One statement, read back by RETURNING: a round trip each on PostgreSQL, where it was three.
        async with self._conn.execute(_TOUCH, (session_id, project, ts, ts, acting_owner(), int(turn))) as cur:
            row = await cur.fetchone()
        return session_from_row(row)

    async def open_turn(
        self, session_id: str, project: str | None, ts: float
    ) -> tuple[Session | None, Session, str | None]:
        """`touch` for a turn, in one round trip with what the turn reads: the session as it was (None
        if new), as touched, and its latest assistant words (`last_text`)."""
        owner = acting_owner()
        before, after, reply = await self._conn.fetch_each(
            [
                (_GET, (owner, session_id)),
                (_TOUCH, (session_id, project, ts, ts, owner, 1)),
                (_LAST_TEXT, (owner, session_id, "assistant")),
            ]
        )
        session = session_from_row(after[0])
        previous = session_from_row(before[0]) if before else None
        return previous, session, (str(reply[0][0]) if reply else None)

    async def idle(self, before: float, limit: int) -> builtins.list[Session]:
        """Sessions never ended whose last activity was before `before`, oldest first."""
        async with self._conn.execute(
            "SELECT * FROM sessions WHERE ended_at IS NULL AND last_at < ? ORDER BY last_at LIMIT ?",
            (before, limit),
        ) as cur:
            return [session_from_row(r) for r in await cur.fetchall()]

    async def latest_other(self, session_id: str, *, project: str | None = None) -> Session | None:
        """The most recently active session other than the acting person's of this id (of this project,
        when one is given)."""
        mine = "(owner <> ? OR id <> ?)"
        where, params = (
            (f"{mine} AND project = ?", (acting_owner(), session_id, project))
            if project
            else (
                mine,
                (acting_owner(), session_id),
            )
        )
        if restricting_viewer() is not None:
            where, params = f"{where} AND owner = ?", (*params, acting_owner())
        async with self._conn.execute(
            f"SELECT * FROM sessions WHERE {where} ORDER BY last_at DESC LIMIT 1",
            params,
        ) as cur:
            row = await cur.fetchone()
        return session_from_row(row) if row else None

    async def mark_resumed(
        self, session_id: str, *, turn: int, gap_s: float, source: str, owner: str | None = None
    ) -> None:
        """Remember that this turn came after a break, and whose state to recap."""
        await self._conn.send(
            "UPDATE sessions SET resumed_turn = ?, resume_gap_s = ?, resumed_from = ? WHERE owner = ? AND id = ?",
            (turn, gap_s, source, owner_or_acting(owner), session_id),
        )

    async def set_predicted(
        self, session_id: str, intents: Sequence[str], turn: int, *, owner: str | None = None
    ) -> None:
        """Store the follow-up intents predicted after `turn` (the next context uses them)."""
        await self._conn.send(
            "UPDATE sessions SET predicted = ?, predicted_turn = ? WHERE owner = ? AND id = ?",
            (json.dumps(list(intents)), turn, owner_or_acting(owner), session_id),
        )

    async def user_lines(self, session_id: str, limit: int, *, owner: str | None = None) -> builtins.list[str]:
        """The newest kept user messages of a session, oldest first."""
        async with self._conn.execute(
            "SELECT text FROM session_turns WHERE owner = ? AND session_id = ? AND role = 'user' "
            "ORDER BY id DESC LIMIT ?",
            (owner_or_acting(owner), session_id, limit),
        ) as cur:
            return [str(r[0]) for r in await cur.fetchall()][::-1]

    async def recent_turns(
        self, session_id: str, limit: int, *, owner: str | None = None
    ) -> builtins.list[tuple[str, str]]:
        """The newest kept (role, text) turns of a session, oldest first."""
        async with self._conn.execute(
            "SELECT role, text FROM session_turns WHERE owner = ? AND session_id = ? ORDER BY id DESC LIMIT ?",
            (owner_or_acting(owner), session_id, limit),
        ) as cur:
            return [(str(r[0]), str(r[1])) for r in await cur.fetchall()][::-1]

    async def last_text(self, session_id: str, role: str, *, owner: str | None = None) -> str | None:
        """The session's latest kept message of one role (the question a short answer replies to)."""
        async with self._conn.execute(_LAST_TEXT, (owner_or_acting(owner), session_id, role)) as cur:
            row = await cur.fetchone()
        return None if row is None else str(row[0])

    async def mark_untrusted(self, session_id: str, reason: str, *, owner: str | None = None) -> None:
        """Sticky: once a session touched indirect content, it stays untrusted."""
        await self._conn.send(
            "UPDATE sessions SET untrusted = 1, untrusted_reason = COALESCE(untrusted_reason, ?) "
            "WHERE owner = ? AND id = ?",
            (reason, owner_or_acting(owner), session_id),
        )

    async def mark_relayed(self, session_id: str, *, owner: str | None = None) -> None:
        """Sticky, like untrusted: once the agent relayed a turn, nothing from the session is the user's own."""
        await self._conn.send(
            "UPDATE sessions SET relayed = 1 WHERE owner = ? AND id = ?", (owner_or_acting(owner), session_id)
        )

    async def freeze_facts(self, session_id: str, rendered: str, *, owner: str | None = None) -> None:
        """Keep the facts block the session first saw (so the host's prompt prefix stays stable)."""
        await self._conn.send(
            "UPDATE sessions SET frozen_facts = ? WHERE owner = ? AND id = ? AND frozen_facts IS NULL",
            (rendered, owner_or_acting(owner), session_id),
        )

    async def end(self, session_id: str, ts: float, *, owner: str | None = None) -> None:
        """Mark a session ended and drop its transcript."""
        key = (owner_or_acting(owner), session_id)
        await self._conn.send("UPDATE sessions SET ended_at = ? WHERE owner = ? AND id = ?", (ts, *key))
        await self._conn.send("DELETE FROM session_turns WHERE owner = ? AND session_id = ?", key)

    async def list(self, limit: int = 50) -> builtins.list[Session]:
        """The most recently active sessions."""
        mine = restricting_viewer() is not None
        async with self._conn.execute(
            f"SELECT * FROM sessions{' WHERE owner = ?' if mine else ''} ORDER BY last_at DESC LIMIT ?",
            (acting_owner(), limit) if mine else (limit,),
        ) as cur:
            return [session_from_row(r) for r in await cur.fetchall()]

    # buffer --------------------------------------------------------------------------------
    async def push_lines(self, session_id: str, lines: Sequence[str], keep: int, *, owner: str | None = None) -> None:
        """Append buffer lines, keeping only the newest `keep` (a ring)."""
        who = owner_or_acting(owner)
        # Each line's seq follows the session's latest, computed where it is stored: nothing is read back.
        await self._conn.send_many(
            "INSERT INTO session_buffer(owner, session_id, seq, line) "
            "SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ? FROM session_buffer WHERE owner = ? AND session_id = ?",
            [(who, session_id, line, who, session_id) for line in lines],
        )
        await self._conn.send(
            "DELETE FROM session_buffer WHERE owner = ? AND session_id = ? AND seq <= "
            "(SELECT MAX(seq) FROM session_buffer WHERE owner = ? AND session_id = ?) - ?",
            (who, session_id, who, session_id, keep),
        )

    async def buffer(self, session_id: str, *, owner: str | None = None) -> builtins.list[str]:
        """The buffer lines, oldest first."""
        async with self._conn.execute(
            "SELECT line FROM session_buffer WHERE owner = ? AND session_id = ? ORDER BY seq",
            (owner_or_acting(owner), session_id),
        ) as cur:
            return [str(r[0]) for r in await cur.fetchall()]

    # notes ---------------------------------------------------------------------------------
    async def add_notes(
        self,
        session_id: str,
        notes: Sequence[tuple[str, str]],
        ts: float,
        *,
        max_notes: int,
        max_chars: int,
        owner: str | None = None,
    ) -> int:
        """Add (category, text) notes (a text the session already has is ignored), then evict the oldest
        over either cap."""
        who = owner_or_acting(owner)
        # Duplicates are found here, among the session's few notes (at most `max_notes`), rather than
        # by a UNIQUE (session_id, text) index, which copied every note's text (~50 bytes a turn).
        seen = {n.text for n in await self.notes(session_id, owner=who)} if notes else set()
        fresh: builtins.list[tuple[str, str]] = []
        for category, text in notes:
            if text not in seen:
                seen.add(text)
                fresh.append((category, text))
        if not fresh:
            return 0  # nothing added, nothing to evict: the caps held after the last addition
        await self._conn.send_many(
            "INSERT INTO session_notes(owner, session_id, category, text, created_at) VALUES (?, ?, ?, ?, ?)",
            [(who, session_id, category, text, ts) for category, text in fresh],
        )
        added = len(fresh)
        notes_now = await self.notes(session_id, owner=who)
        total = sum(len(n.text) for n in notes_now)
        drop: builtins.list[int] = []
        for note in notes_now:
            if len(notes_now) - len(drop) <= max_notes and total <= max_chars:
                break
            drop.append(note.id)
            total -= len(note.text)
        await self._conn.send_many("DELETE FROM session_notes WHERE id = ?", [(i,) for i in drop])
        return added

    async def notes(self, session_id: str, *, owner: str | None = None) -> builtins.list[SessionNote]:
        """The notes of a session, oldest first."""
        async with self._conn.execute(
            "SELECT * FROM session_notes WHERE owner = ? AND session_id = ? ORDER BY id",
            (owner_or_acting(owner), session_id),
        ) as cur:
            return [
                SessionNote(r["id"], r["session_id"], r["category"], r["text"], r["created_at"])
                for r in await cur.fetchall()
            ]

    # turns ---------------------------------------------------------------------------------
    async def add_turns(
        self, session_id: str, turns: Sequence[tuple[str, str]], ts: float, *, keep: int = 200, owner: str | None = None
    ) -> None:
        """Keep the session's transcript (user and assistant text) for its episode; the first turns always stay."""
        who = owner_or_acting(owner)
        await self._conn.send_many(
            "INSERT INTO session_turns(owner, session_id, role, text, ts) VALUES (?, ?, ?, ?, ?)",
            [(who, session_id, role, text, ts) for role, text in turns],
        )
        await self._conn.send(
            "DELETE FROM session_turns WHERE owner = ? AND session_id = ? AND id NOT IN ("
            " SELECT id FROM session_turns WHERE owner = ? AND session_id = ? ORDER BY id LIMIT 10) AND id NOT IN ("
            " SELECT id FROM session_turns WHERE owner = ? AND session_id = ? ORDER BY id DESC LIMIT ?)",
            (who, session_id, who, session_id, who, session_id, keep - 10),
        )

    async def turns(self, session_id: str, *, owner: str | None = None) -> builtins.list[tuple[str, str]]:
        """The kept transcript, oldest first, as (role, text)."""
        async with self._conn.execute(
            "SELECT role, text FROM session_turns WHERE owner = ? AND session_id = ? ORDER BY id",
            (owner_or_acting(owner), session_id),
        ) as cur:
            return [(str(r[0]), str(r[1])) for r in await cur.fetchall()]

    # episodes ------------------------------------------------------------------------------
    async def add_episode(self, episode: Episode, scale: float | None, vec: bytes | None) -> None:
        """Store an episode with its vector."""
        await self._conn.send(
            "INSERT INTO episodes(id, session_id, project, summary, status, source_class, turns, created_at, "
            "expires_at, scale, vec, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                episode.id,
                episode.session_id,
                episode.project,
                episode.summary,
                episode.status,
                episode.source_class,
                episode.turns,
                episode.created_at,
                episode.expires_at,
                scale,
                vec,
                episode.owner,
            ),
        )

    async def episode(self, key: str, *, owner: str | None = None) -> Episode | None:
        """An episode by its id, or the episode of the acting person's (or `owner`'s) session of that id.
        Acting for nobody, a session id finds any person's, the implicit owner's first."""
        if owner is None and acting_viewer() is None:
            sql = (
                "SELECT * FROM episodes WHERE id = ? OR session_id = ? "
                "ORDER BY id <> ?, owner <> 'local', created_at DESC LIMIT 1"
            )
            params: tuple[str, ...] = (key, key, key)
        else:
            sql = "SELECT * FROM episodes WHERE id = ? OR (owner = ? AND session_id = ?) ORDER BY id <> ? LIMIT 1"
            params = (key, owner_or_acting(owner), key, key)
        async with self._conn.execute(sql, params) as cur:
            row = await cur.fetchone()
        return _episode(row) if row and _mine(row["owner"]) else None

    async def episodes(
        self, *, status: str | None = None, limit: int = 50, now: float | None = None
    ) -> builtins.list[Episode]:
        """Episodes, newest first (unexpired ones when `now` is given)."""
        clauses: builtins.list[str] = []
        params: builtins.list[object] = []
        if status:
            clauses.append("status = ?")
            params.append(status)
        if now is not None:
            clauses.append("(expires_at IS NULL OR expires_at > ?)")
            params.append(now)
        if restricting_viewer() is not None:
            clauses.append("owner = ?")
            params.append(acting_owner())
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        async with self._conn.execute(
            f"SELECT * FROM episodes{where} ORDER BY created_at DESC LIMIT ?",
            (*params, limit),
        ) as cur:
            return [_episode(r) for r in await cur.fetchall()]

    async def episode_vectors(self) -> builtins.list[tuple[str, float, bytes]]:
        """(id, scale, blob) of every episode with a vector (for near-duplicate checks and recall)."""
        mine = restricting_viewer() is not None
        async with self._conn.execute(
            f"SELECT id, scale, vec FROM episodes WHERE vec IS NOT NULL{' AND owner = ?' if mine else ''}",
            (acting_owner(),) if mine else (),
        ) as cur:
            return [(str(r[0]), float(r[1]), bytes(r[2])) for r in await cur.fetchall()]

    async def search_episodes(self, terms: Sequence[str], now: float, limit: int) -> builtins.list[tuple[str, float]]:
        """Live episodes matching any term, as (id, bm25 score ≥ 0; ts_rank on PostgreSQL)."""
        mine = restricting_viewer() is not None
        if self._conn.dialect == "postgres":
            usable = pg_search.clean_terms(terms)
            if not usable:
                return []
            async with self._conn.execute(
                pg_search.keyword_episodes(len(usable), mine),
                (*usable, *usable, now, *([acting_owner()] if mine else []), limit),
            ) as cur:
                return [(str(r[0]), float(r[1])) for r in await cur.fetchall()]
        match = quote_fts(terms)
        if not match:
            return []
        async with self._conn.execute(
            "SELECT episodes.id, -bm25(episodes_fts) FROM episodes_fts "
            "JOIN episodes ON episodes.num = episodes_fts.rowid "
            "WHERE episodes_fts MATCH ? AND episodes.status = 'live' "
            "AND (episodes.expires_at IS NULL OR episodes.expires_at > ?)"
            f"{' AND episodes.owner = ?' if mine else ''} ORDER BY bm25(episodes_fts) LIMIT ?",
            (match, now, acting_owner(), limit) if mine else (match, now, limit),
        ) as cur:
            return [(str(r[0]), float(r[1])) for r in await cur.fetchall()]

    async def evict_episodes(self, keep: int, now: float) -> builtins.list[Episode]:
        """Delete expired episodes and the oldest beyond `keep`, held ones first; returns what was deleted.

        Held first: an untrusted session's episode (which any agent can produce, strict mode
        included) must never push a live one out of memory.
        """
        async with self._conn.execute(
            "SELECT * FROM episodes WHERE (expires_at IS NOT NULL AND expires_at <= ?) OR num NOT IN "
            "(SELECT num FROM episodes ORDER BY status = 'live' DESC, created_at DESC LIMIT ?)",
            (now, keep),
        ) as cur:
            gone = [_episode(r) for r in await cur.fetchall()]
        await self._conn.send_many("DELETE FROM episodes WHERE id = ?", [(e.id,) for e in gone])
        return gone
