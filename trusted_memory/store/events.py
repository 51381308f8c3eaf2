"""The append-only audit log.

An `atom_added` event carries an 80-character preview of the atom's text. While the atom exists
that preview is its own text's, so it is not stored twice (~100 bytes an observed turn): the row
is marked `derived_preview = 1` and the preview is rebuilt from the atom on every read. Before an
atom's text goes (forget, eviction) its preview is kept in `event_previews`, so a reader sees the
same event before and after. Live atoms' text never changes, and a stored preview is only left out
when rebuilding it gives the same string, so every event reads back exactly as it was appended.
"""

from __future__ import annotations

import builtins
import json
import time
from collections.abc import Mapping, Sequence

import aiosqlite

from ..model import Actor, Event
from ..people import LOCAL, acting_owner, owner_or_acting, restricting_viewer
from ..text import preview
from .conn import Connection, rows_in

ATOM_PREVIEW_CHARS = 80
# The kinds every observed turn appends, left out of the partial index events_kind (migration 18).
PER_TURN_KINDS = ("turn_observed", "atom_added")
_RARE = "kind NOT IN ('turn_observed', 'atom_added')"  # exactly the index's condition, so SQLite uses it
_DERIVED_KIND = "atom_added"
_ATOM_SUBJECT = "atom:"
_CHUNK = 500  # ids per IN (...) look-up
_INSERT = "INSERT INTO events(ts, actor, kind, subject, detail, derived_preview, owner) VALUES (?, ?, ?, ?, ?, ?, ?)"
_INSERT_RAW = (
    "INSERT OR IGNORE INTO events(id, ts, actor, kind, subject, detail, derived_preview, owner) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def kind_sql(kinds: Sequence[str]) -> str:
    """The WHERE term for events of these kinds (one ? each), naming the kind index's condition when it holds."""
    term = "kind = ?" if len(kinds) == 1 else f"kind IN ({', '.join('?' * len(kinds))})"
    return term if any(k in PER_TURN_KINDS for k in kinds) else f"{term} AND {_RARE}"


def subject_sql() -> str:
    """The WHERE term for events of one subject (bind it twice): the index of subjects' last 12
    characters narrows, the whole subject decides (`+` keeps SQLite on that index)."""
    return "substr(subject, -12) IS substr(?, -12) AND +subject IS ?"


# The implicit owner's events are most of a single person's store and no person's query: the owner
# index leaves them out (migration 20), and a person's query names the same condition to use it.
_NOT_LOCAL = f"events.owner <> '{LOCAL}'"


def owned_events_sql(*, indexed: bool = True) -> tuple[str, list[object]] | None:
    """The clause keeping events (table `events`) to the acting person's own; None when nothing is hidden.

    Every event names its owner (migration 20): the person it was written for, or the owner of the
    record an admin or the store's own work acted on. An event of another person, or of the store
    itself (compaction, reindex, people), is not the person's. `indexed=False` leaves out the owner
    index's condition, for a query that reads in id order: the newest 100 are found sooner walking
    ids back than by sorting all of the person's events.
    """
    viewer = restricting_viewer()
    if viewer is None:
        return None
    if viewer.name == LOCAL or not indexed:
        return "events.owner = ?", [viewer.name]
    return f"events.owner = ? AND {_NOT_LOCAL}", [viewer.name]


def _dumps(detail: Mapping[str, object]) -> str:
    return json.dumps(dict(detail), ensure_ascii=False, sort_keys=True)


def same_key(event: Event) -> tuple[object, ...]:
    """What find_same compares: time, actor, kind, subject and detail (not the id)."""
    return (event.ts, event.actor, event.kind, event.subject, _dumps(event.detail))


def _derived_atom(kind: str, subject: str | None, detail: Mapping[str, object]) -> str | None:
    """The atom id whose text an event's preview may be rebuilt from, or None."""
    if kind != _DERIVED_KIND or not subject or not subject.startswith(_ATOM_SUBJECT):
        return None
    return subject[len(_ATOM_SUBJECT) :] if isinstance(detail.get("preview"), str) else None


def _event(row: aiosqlite.Row, previews: Mapping[int, str]) -> Event:
    detail = json.loads(row["detail"])
    if row["derived_preview"] and row["id"] in previews:
        detail["preview"] = previews[row["id"]]
    return Event(
        id=row["id"],
        ts=row["ts"],
        actor=row["actor"],
        kind=row["kind"],
        subject=row["subject"],
        detail=detail,
        owner=row["owner"],
    )


async def keep_previews(conn: Connection, atoms: Sequence[tuple[str, str]]) -> None:
    """Before (id, text) atoms are deleted: keep the previews their `atom_added` events rebuild from them."""
    rows = [(preview(text, ATOM_PREVIEW_CHARS), f"{_ATOM_SUBJECT}{atom_id}") for atom_id, text in atoms]
    await conn.send_many(
        "INSERT OR IGNORE INTO event_previews(event_id, preview) SELECT id, ? FROM events "
        f"WHERE {subject_sql()} AND kind = '{_DERIVED_KIND}' AND derived_preview = 1",
        [(text, subject, subject) for text, subject in rows],
    )


class EventsRepo:
    """SQL for the events table."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def append(
        self,
        actor: Actor,
        kind: str,
        subject: str | None = None,
        detail: Mapping[str, object] | None = None,
        ts: float | None = None,
        *,
        atom_text: str | None = None,
        owner: str | None = None,
    ) -> int:
        """Record one event; returns its id.

        `atom_text` is the text of the subject atom as this transaction wrote it, when the caller
        has it at hand (it is read back otherwise). `owner` is whose event it is: the acting person's
        unless given (an act on another person's record passes that record's owner).
        """
        row_values = await self._row(actor, kind, subject, detail, ts, atom_text, owner)
        async with self._conn.execute(f"{_INSERT} RETURNING id", row_values) as cur:
            row = await cur.fetchone()
        return int(row[0])

    async def record(
        self,
        actor: Actor,
        kind: str,
        subject: str | None = None,
        detail: Mapping[str, object] | None = None,
        ts: float | None = None,
        *,
        atom_text: str | None = None,
        owner: str | None = None,
    ) -> None:
        """`append` for a caller that needs no id: on PostgreSQL's writer, no round trip of its own."""
        await self._conn.send(_INSERT, await self._row(actor, kind, subject, detail, ts, atom_text, owner))

    async def _row(
        self,
        actor: Actor,
        kind: str,
        subject: str | None,
        detail: Mapping[str, object] | None,
        ts: float | None,
        atom_text: str | None,
        owner: str | None,
    ) -> tuple[object, ...]:
        """The values of one new event's row, in _INSERT's order."""
        stored, derived = await self._stored_detail(kind, subject, detail or {}, atom_text)
        who = owner_or_acting(owner)
        return (time.time() if ts is None else ts, actor, kind, subject, _dumps(stored), derived, who)

    async def insert_raw(self, event: Event) -> bool:
        """Insert an event with its original id (import); False if that id already exists."""
        stored, derived = await self._stored_detail(event.kind, event.subject, event.detail)
        cur = await self._conn.execute(
            _INSERT_RAW,
            (event.id, event.ts, event.actor, event.kind, event.subject, _dumps(stored), derived, event.owner),
        )
        return bool(cur.rowcount > 0)

    async def insert_raw_many(self, events: Sequence[Event]) -> int:
        """Insert events with their original ids in one statement run (import); how many were new."""
        rows = []
        for event in events:
            stored, derived = await self._stored_detail(event.kind, event.subject, event.detail)
            rows.append(
                (event.id, event.ts, event.actor, event.kind, event.subject, _dumps(stored), derived, event.owner)
            )
        if not rows:
            return 0
        cur = await self._conn.executemany(_INSERT_RAW, rows)
        return max(int(cur.rowcount), 0)

    async def _stored_detail(
        self, kind: str, subject: str | None, detail: Mapping[str, object], atom_text: str | None = None
    ) -> tuple[Mapping[str, object], int | None]:
        """(detail as stored, derived_preview): the preview is left out when the atom's text rebuilds it."""
        atom_id = _derived_atom(kind, subject, detail)
        if atom_id is None:
            return detail, None
        text = atom_text
        if text is None:
            async with self._conn.execute("SELECT text FROM atoms WHERE id = ?", (atom_id,)) as cur:
                row = await cur.fetchone()
            text = None if row is None else str(row[0])
        if text is None or preview(text, ATOM_PREVIEW_CHARS) != detail["preview"]:
            return detail, None
        return {k: v for k, v in detail.items() if k != "preview"}, 1

    async def _events(self, rows: Sequence[aiosqlite.Row]) -> builtins.list[Event]:
        """Events of rows, previews rebuilt: from the atom while it exists, else as kept when it went."""
        derived = {int(r["id"]): str(r["subject"])[len(_ATOM_SUBJECT) :] for r in rows if r["derived_preview"]}
        previews: dict[int, str] = {}
        if derived:
            texts: dict[str, str] = {}
            ids = sorted(set(derived.values()))
            for i in range(0, len(ids), _CHUNK):
                part = ids[i : i + _CHUNK]
                sql = f"SELECT id, text FROM atoms WHERE id IN ({', '.join('?' * len(part))})"
                async with self._conn.execute(sql, part) as cur:
                    texts.update({str(r[0]): str(r[1]) for r in await cur.fetchall()})
            previews = {eid: preview(texts[aid], ATOM_PREVIEW_CHARS) for eid, aid in derived.items() if aid in texts}
            gone = sorted(eid for eid in derived if eid not in previews)
            for i in range(0, len(gone), _CHUNK):
                eids = gone[i : i + _CHUNK]
                sql = f"SELECT event_id, preview FROM event_previews WHERE event_id IN ({', '.join('?' * len(eids))})"
                async with self._conn.execute(sql, eids) as cur:
                    previews.update({int(r[0]): str(r[1]) for r in await cur.fetchall()})
        return [_event(r, previews) for r in rows]

    async def get(self, event_id: int) -> Event | None:
        """One event by id."""
        async with self._conn.execute("SELECT * FROM events WHERE id = ?", (event_id,)) as cur:
            row = await cur.fetchone()
        return (await self._events([row]))[0] if row else None

    async def get_many(self, event_ids: Sequence[int]) -> dict[int, Event]:
        """The stored events of these ids, by id."""
        rows = await rows_in(self._conn, "SELECT * FROM events WHERE id IN ({keys})", sorted(set(event_ids)))
        return {e.id: e for e in await self._events(rows)}

    async def same_keys(self, events: Sequence[Event]) -> set[tuple[object, ...]]:
        """The `same_key` of every stored event that find_same would match to one of `events` (import
        dedup of many events at once): the candidates are read by subject, or by time when there is none."""
        suffix = "right(subject, 12)" if self._conn.dialect == "postgres" else "substr(subject, -12)"
        subjects = sorted({e.subject[-12:] for e in events if e.subject})
        times = sorted({e.ts for e in events if not e.subject})
        rows: builtins.list[aiosqlite.Row] = []
        for sql, keys in (
            (f"SELECT * FROM events WHERE {suffix} IN", subjects),
            ("SELECT * FROM events WHERE (subject IS NULL OR subject = '') AND ts IN", times),
        ):
            for i in range(0, len(keys), _CHUNK):
                part = keys[i : i + _CHUNK]
                async with self._conn.execute(f"{sql} ({', '.join('?' * len(part))})", part) as cur:
                    rows.extend(await cur.fetchall())
        return {same_key(e) for e in await self._events(rows)}

    async def find_same(self, event: Event) -> int | None:
        """The id of an event with the same time, actor, kind, subject and detail (import dedup)."""
        forms = [_dumps(event.detail)]
        if _derived_atom(event.kind, event.subject, event.detail) is not None:
            forms.append(_dumps({k: v for k, v in event.detail.items() if k != "preview"}))
        async with self._conn.execute(
            f"SELECT * FROM events WHERE {kind_sql([event.kind])} AND ts = ? AND actor = ? AND {subject_sql()} "
            f"AND detail IN ({', '.join('?' * len(forms))})",
            (event.kind, event.ts, event.actor, event.subject, event.subject, *forms),
        ) as cur:
            rows = await cur.fetchall()
        # A row without its preview is the same event only if the preview it rebuilds is this one.
        same = [e.id for e in await self._events(rows) if e.detail == event.detail]
        return same[0] if same else None

    async def list(
        self,
        *,
        kind: str | None = None,
        actor: str | None = None,
        subject: str | None = None,
        since: float | None = None,
        limit: int = 100,
        after_id: int = 0,
        newest: bool = False,
        owned: bool = False,
        owner: str | None = None,
    ) -> builtins.list[Event]:
        """Events matching every given filter, oldest first (with `newest`, the last `limit` of them).

        With `owned`, in a team's store, only the acting person's own events (owned_events_sql); with
        `owner`, only that person's (a session id names one session per person, so its subject does not).
        """
        clauses: builtins.list[str] = ["id > ?"]
        params: builtins.list[object] = [after_id]
        # By owner and kind the owner index serves; otherwise the ids (or the subject index) do.
        mine = owned_events_sql(indexed=bool(kind) and not subject) if owned else None
        if mine is not None:
            clauses.append(mine[0])
            params.extend(mine[1])
        if kind:
            clauses.append(kind_sql([kind]))
            params.append(kind)
        if actor:
            clauses.append("actor = ?")
            params.append(actor)
        if owner is not None:
            clauses.append("owner = ?")
            params.append(owner)
        if subject:
            clauses.append(subject_sql())
            params += [subject, subject]
        if since is not None:
            clauses.append("ts >= ?")
            params.append(since)
        order = "DESC" if newest else "ASC"
        sql = f"SELECT * FROM events WHERE {' AND '.join(clauses)} ORDER BY id {order} LIMIT ?"
        async with self._conn.execute(sql, (*params, limit)) as cur:
            events = await self._events(await cur.fetchall())
        return events[::-1] if newest else events

    async def count(self, kind: str | None = None, *, owned: bool = False) -> int:
        """How many events there are (of one kind); with `owned`, the acting person's own only."""
        clauses: builtins.list[str] = [kind_sql([kind])] if kind else []
        params: builtins.list[object] = [kind] if kind else []
        mine = owned_events_sql() if owned else None
        if mine is not None:
            clauses.append(mine[0])
            params.extend(mine[1])
        sql = "SELECT COUNT(*) FROM events" + (f" WHERE {' AND '.join(clauses)}" if clauses else "")
        async with self._conn.execute(sql, params) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def rejected_inferences(self) -> set[tuple[str, str]]:
        """(field_path, value) of every inference about the acting person that was rejected.

        A rejection recorded before guesses had owners counts as the implicit owner's.
        """
        async with self._conn.execute(
            "SELECT json_extract(detail, '$.field_path'), json_extract(detail, '$.value') FROM events "
            f"WHERE {kind_sql(['pending_rejected'])} AND COALESCE(json_extract(detail, '$.owner'), ?) = ?",
            ("pending_rejected", LOCAL, acting_owner()),
        ) as cur:
            return {(str(r[0]), str(r[1])) for r in await cur.fetchall() if r[0] is not None}
