"""SQL for atoms (agent-reachable operations only; trust-raising ones live in privileged.py)."""

from __future__ import annotations

import builtins
import functools
import hashlib
import json
from collections.abc import Sequence
from typing import Any

import aiosqlite

from ..model import Atom
from ..people import acting_owner, restricting_viewer
from ..queries import AtomFilter
from .conn import Connection, rows_in
from .events import keep_previews

COLUMNS = (
    "id",
    "type",
    "text",
    "norm",
    "source_class",
    "confidence",
    "importance",
    "pinned",
    "tags",
    "why",
    "how_to_apply",
    "scope",
    "project",
    "session_id",
    "turn",
    "related",
    "status",
    "quarantine_reason",
    "findings",
    "expires_at",
    "created_at",
    "updated_at",
    "last_recalled_at",
    "recall_count",
    "cue",
    "dates",
    "owner",
)


_INSERT = f"INSERT INTO atoms({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
INSERT_RETURNING_NUM = f"{_INSERT} RETURNING num"  # a new atom (atom_to_row's parameters), read back by its num
# Newest first: `list` and `texts` must return the same atoms in the same order (a replayed history
# sets created_at in the past, so num breaks ties).
_NEWEST_FIRST = "created_at DESC, num DESC"


@functools.lru_cache(maxsize=1024)
def _json_strings(value: str) -> tuple[str, ...]:
    """A stored JSON list of strings ('[]' is by far the most common: no parse for it).

    Memoised: the same few tag lists recur on row after row (a search reads its 16 hits whole).
    """
    return () if value == "[]" else tuple(json.loads(value))


# The columns an Atom is made of, in the order atom_from_values takes them.
ATOM_FIELDS = (
    "id",
    "type",
    "text",
    "source_class",
    "confidence",
    "importance",
    "pinned",
    "tags",
    "scope",
    "status",
    "created_at",
    "updated_at",
    "why",
    "how_to_apply",
    "project",
    "session_id",
    "turn",
    "related",
    "quarantine_reason",
    "findings",
    "expires_at",
    "last_recalled_at",
    "recall_count",
    "cue",
    "dates",
    "owner",
)
ATOM_SELECT = ", ".join(ATOM_FIELDS)


def atom_from_row(row: aiosqlite.Row) -> Atom:
    """Build an Atom from an atoms row read by name (`SELECT *`)."""
    return atom_from_values([row[name] for name in ATOM_FIELDS])


def atom_from_values(values: Sequence[Any]) -> Atom:
    """Build an Atom from the values of ATOM_FIELDS in that order (a row of `SELECT` ATOM_SELECT).

    Read by position, a row costs half as much as by name: each name look-up of a row compares
    names across its columns (a search reads its 16 hits this way).
    """
    (
        atom_id,
        atom_type,
        text,
        source_class,
        confidence,
        importance,
        pinned,
        tags,
        scope,
        status,
        created_at,
        updated_at,
        why,
        how_to_apply,
        project,
        session_id,
        turn,
        related,
        quarantine_reason,
        findings,
        expires_at,
        last_recalled_at,
        recall_count,
        cue,
        dates,
        owner,
    ) = values
    return Atom(
        id=atom_id,
        type=atom_type,
        text=text,
        source_class=source_class,
        confidence=confidence,
        importance=importance,
        pinned=bool(pinned),
        tags=_json_strings(tags),
        scope=scope,
        status=status,
        created_at=created_at,
        updated_at=updated_at,
        why=why,
        how_to_apply=how_to_apply,
        project=project,
        session_id=session_id,
        turn=turn,
        related=_json_strings(related),
        quarantine_reason=quarantine_reason,
        findings=findings,
        expires_at=expires_at,
        last_recalled_at=last_recalled_at,
        recall_count=recall_count,
        cue=cue,
        dates=tuple((str(p), str(d)) for p, d in json.loads(dates)) if dates else (),
        owner=owner,
    )


def norm_lookup(norm: str, owner: str | None = None) -> tuple[str, tuple[object, ...]]:
    """The statement of AtomsRepo.find_by_norm, and its parameters."""
    digest = dedup_digest(norm)
    if owner is None and restricting_viewer() is not None:
        owner = acting_owner()
    mine = " AND owner = ?" if owner is not None else ""
    return (
        # Atoms stored before the digest was kept as bytes hold it as hex text; both are looked up.
        f"SELECT * FROM atoms WHERE norm IN (?, ?){mine} ORDER BY status = 'quarantined' DESC, created_at LIMIT 1",
        (digest, digest.hex(), owner) if owner is not None else (digest, digest.hex()),
    )


def dedup_digest(norm: str) -> bytes:
    """The stored dedup key: a digest of the normalised text (a second copy of the text cost ~200 bytes an atom).

    Stored as its 12 bytes (a blob): as hex it took 24 in the row and 24 in `atoms_norm`.
    """
    return hashlib.blake2b(norm.encode("utf-8"), digest_size=12).digest()


def atom_to_row(atom: Atom, norm: str) -> tuple[object, ...]:
    """The column values of an Atom, in COLUMNS order (`norm` is the normalised text; its digest is stored)."""
    return (
        atom.id,
        atom.type,
        atom.text,
        dedup_digest(norm),
        atom.source_class,
        atom.confidence,
        atom.importance,
        int(atom.pinned),
        json.dumps(list(atom.tags), ensure_ascii=False),
        atom.why,
        atom.how_to_apply,
        atom.scope,
        atom.project,
        atom.session_id,
        atom.turn,
        json.dumps(list(atom.related)),
        atom.status,
        atom.quarantine_reason,
        atom.findings,
        atom.expires_at,
        atom.created_at,
        atom.updated_at,
        atom.last_recalled_at,
        atom.recall_count,
        atom.cue,
        json.dumps([list(d) for d in atom.dates], ensure_ascii=False) if atom.dates else None,
        atom.owner,
    )


def visibility_sql(table: str = "atoms") -> tuple[str, list[object]] | None:
    """The clause that keeps a query to the atoms the acting person may see; None when nothing is hidden.

    Their own atoms, the team's live global ones, and the live project atoms of their projects
    (Viewer.sees says the same for one row).
    """
    viewer = restricting_viewer()
    if viewer is None:
        return None
    projects = sorted(viewer.projects)
    shared = f" OR {table}.scope = 'project' AND {table}.project IN ({', '.join('?' * len(projects))})"
    clause = (
        f"({table}.owner = ? OR {table}.status = 'live' AND ({table}.scope = 'global'{shared if projects else ''}))"
    )
    return clause, [viewer.name, *projects]


def filter_sql(f: AtomFilter, now: float) -> tuple[list[str], list[object]]:
    """The WHERE clauses (on table `atoms`) and parameters of a filter."""
    where, params = _where(f, now)
    return ([where.removeprefix(" WHERE ")] if where else []), params


def _where(f: AtomFilter, now: float) -> tuple[str, list[object]]:
    clauses: builtins.list[str] = []
    params: builtins.list[object] = []
    if f.status:
        clauses.append("atoms.status = ?")
        params.append(f.status)
    if f.types:
        clauses.append(f"atoms.type IN ({', '.join('?' * len(f.types))})")
        params.extend(f.types)
    if f.exclude_types:
        clauses.append(f"atoms.type NOT IN ({', '.join('?' * len(f.exclude_types))})")
        params.extend(f.exclude_types)
    for tag in f.tags:
        clauses.append("EXISTS (SELECT 1 FROM json_each(atoms.tags) WHERE json_each.value = ?)")
        params.append(tag)
    if f.project is not None:
        clauses.append("atoms.project = ?")
        params.append(f.project)
    if f.scope:
        clauses.append("atoms.scope = ?")
        params.append(f.scope)
    if f.source_class:
        clauses.append("atoms.source_class = ?")
        params.append(f.source_class)
    if f.since is not None:
        clauses.append("atoms.created_at >= ?")
        params.append(f.since)
    if f.until is not None:
        clauses.append("atoms.created_at <= ?")
        params.append(f.until)
    if not f.include_expired:
        clauses.append("(atoms.expires_at IS NULL OR atoms.expires_at > ?)")
        params.append(now)
    visible = visibility_sql()
    if visible is not None:
        clauses.append(visible[0])
        params.extend(visible[1])
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


class AtomsRepo:
    """Rows of the atoms table."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def insert(self, atom: Atom, norm: str) -> int:
        """Store a new atom; returns its num."""
        async with self._conn.execute(INSERT_RETURNING_NUM, atom_to_row(atom, norm)) as cur:
            row = await cur.fetchone()
        return int(row[0])

    async def insert_raw(self, atom: Atom, norm: str) -> bool:
        """Insert an atom with its original id (import); False if that id already exists."""
        cur = await self._conn.execute(
            f"INSERT OR IGNORE INTO atoms({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
            atom_to_row(atom, norm),
        )
        return bool(cur.rowcount > 0)

    async def insert_raw_many(self, rows: Sequence[tuple[Atom, str]]) -> int:
        """Insert (atom, norm) rows with their original ids in one statement run (import); how many were new."""
        if not rows:
            return 0
        cur = await self._conn.executemany(
            f"INSERT OR IGNORE INTO atoms({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
            [atom_to_row(atom, norm) for atom, norm in rows],
        )
        return max(int(cur.rowcount), 0)

    async def present(self, atom_ids: Sequence[str]) -> set[str]:
        """Which of these atom ids are stored (any status, any owner: an import's look-up)."""
        rows = await rows_in(self._conn, "SELECT id FROM atoms WHERE id IN ({keys})", atom_ids)
        return {str(r[0]) for r in rows}

    async def norm_owners(self, norms: Sequence[str]) -> builtins.list[tuple[str, str, str]]:
        """(norm, owner, id) of every stored atom whose normalised text is one of `norms` (an import's
        dedup of many atoms at once: find_by_norm of each, without a round trip each)."""
        by_key: dict[object, str] = {}
        for norm in norms:
            digest = dedup_digest(norm)
            by_key[digest] = norm
            by_key[digest.hex()] = norm  # the hex text of atoms stored before the digest was kept as bytes
        out: builtins.list[tuple[str, str, str]] = []
        for r in await rows_in(self._conn, "SELECT norm, owner, id FROM atoms WHERE norm IN ({keys})", list(by_key)):
            stored = r[0] if isinstance(r[0], str) else bytes(r[0])
            if stored in by_key:
                out.append((by_key[stored], str(r[1]), str(r[2])))
        return out

    async def get(self, atom_id: str) -> Atom | None:
        """The atom with this id, live or quarantined; None also when the acting person may not see it."""
        async with self._conn.execute("SELECT * FROM atoms WHERE id = ?", (atom_id,)) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        viewer = restricting_viewer()
        if viewer is not None and not viewer.sees(row["owner"], row["scope"], row["project"], row["status"]):
            return None
        return atom_from_row(row)

    async def find_by_norm(self, norm: str, *, owner: str | None = None) -> Atom | None:
        """The acting person's oldest atom whose normalised text equals `norm` (quarantined ones first).

        In a team's store only the writer's own atoms count: another person's private memory of the same
        words is theirs, and answering "already remembered" would tell the writer it exists. An import
        names the owner of the record it brings.
        """
        async with self._conn.execute(*norm_lookup(norm, owner)) as cur:
            row = await cur.fetchone()
        return atom_from_row(row) if row else None

    async def list(
        self, f: AtomFilter, *, now: float, limit: int = 50, offset: int = 0, newest_first: bool = True
    ) -> builtins.list[Atom]:
        """Atoms matching the filter: newest first, or else in the order they were stored.

        Stored order (not creation time, which a replayed history sets in the past) is what an export
        must keep: a memory's vector mixes in the one stored before it in its session.
        """
        where, params = _where(f, now)
        order = _NEWEST_FIRST if newest_first else "num"
        async with self._conn.execute(
            f"SELECT * FROM atoms{where} ORDER BY {order} LIMIT ? OFFSET ?",
            (*params, limit, offset),
        ) as cur:
            return [atom_from_row(r) for r in await cur.fetchall()]

    async def texts(self, f: AtomFilter, *, now: float, limit: int = 50) -> builtins.list[tuple[str, str]]:
        """(text, source_class) of the atoms `list` returns newest first, in its order.

        For a caller that reads only the words and their trust (the user model's inference, every
        few turns): building 60 whole atoms cost ~0.9 ms at 10k atoms, these two columns ~0.1.
        """
        where, params = _where(f, now)
        async with self._conn.execute(
            f"SELECT text, source_class FROM atoms{where} ORDER BY {_NEWEST_FIRST} LIMIT ?",
            (*params, limit),
        ) as cur:
            return [(str(r[0]), str(r[1])) for r in await cur.fetchall()]

    async def count(self, f: AtomFilter, *, now: float) -> int:
        """How many atoms match the filter."""
        where, params = _where(f, now)
        async with self._conn.execute(f"SELECT COUNT(*) FROM atoms{where}", params) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def set_pinned(self, atom_id: str, ts: float) -> None:
        """Pin an atom (never evicted, always considered)."""
        await self._conn.send("UPDATE atoms SET pinned = 1, updated_at = ? WHERE id = ?", (ts, atom_id))

    async def set_confidence(self, atom_id: str, confidence: float) -> None:
        """Lower (or set) how sure a memory is; its timestamps stay, so only its weight in ranking changes."""
        await self._conn.send("UPDATE atoms SET confidence = ? WHERE id = ?", (confidence, atom_id))

    async def set_related(self, atom_id: str, related: Sequence[str]) -> None:
        """Rewrite an atom's related ids (repair); its timestamps stay, so ranking is unchanged."""
        await self._conn.send("UPDATE atoms SET related = ? WHERE id = ?", (json.dumps(list(related)), atom_id))

    async def delete(self, atom_id: str) -> None:
        """Remove an atom (its events keep their preview of it)."""
        await self.delete_many([atom_id])

    async def expired_quarantine(self, now: float) -> builtins.list[Atom]:
        """Quarantined atoms whose review window has passed (the acting person's own, in a team's store)."""
        viewer = restricting_viewer()
        async with self._conn.execute(
            "SELECT * FROM atoms WHERE status = 'quarantined' AND expires_at IS NOT NULL AND expires_at <= ?"
            + (" AND owner = ?" if viewer is not None else ""),
            (now, viewer.name) if viewer is not None else (now,),
        ) as cur:
            return [atom_from_row(r) for r in await cur.fetchall()]

    async def ids_with_prefix(self, prefix: str) -> builtins.list[str]:
        """Atom ids starting with `prefix` (a range walk of the id index; ids are lower-case hex)."""
        async with self._conn.execute(
            "SELECT id FROM atoms WHERE id >= ? AND id < ?",
            (prefix, prefix + "~"),
        ) as cur:
            return [str(r[0]) for r in await cur.fetchall()]

    async def eviction_candidates(
        self,
    ) -> builtins.list[tuple[int, str, str, float, float, float | None, float | None, str]]:
        """Atoms that may be evicted: all of the quarantine, and live atoms neither pinned nor critical.

        A quarantined atom is never protected: anyone can declare `critical` on untrusted text.
        Rows: (num, id, status, confidence, created, last recalled, expires, owner).
        """
        async with self._conn.execute(
            "SELECT num, id, status, confidence, created_at, last_recalled_at, expires_at, owner FROM atoms "
            "WHERE status = 'quarantined' OR (pinned = 0 AND importance != 'critical')"
        ) as cur:
            return [
                (int(r[0]), str(r[1]), str(r[2]), float(r[3]), float(r[4]), r[5], r[6], str(r[7]))
                for r in await cur.fetchall()
            ]

    async def protected_usage(self) -> tuple[int, int]:
        """(count, characters of text, why and how_to_apply) of the live atoms eviction never takes."""
        async with self._conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(length(text) + length(COALESCE(why, '')) "
            "+ length(COALESCE(how_to_apply, ''))), 0) FROM atoms "
            "WHERE status = 'live' AND (pinned = 1 OR importance = 'critical')"
        ) as cur:
            row = await cur.fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    async def delete_many(self, atom_ids: Sequence[str]) -> None:
        """Remove atoms (forget, eviction); their events keep their preview of them."""
        texts: builtins.list[tuple[str, str]] = []
        for i in range(0, len(atom_ids), 500):
            part = list(atom_ids[i : i + 500])
            sql = f"SELECT id, text FROM atoms WHERE id IN ({', '.join('?' * len(part))})"
            async with self._conn.execute(sql, part) as cur:
                texts += [(str(r[0]), str(r[1])) for r in await cur.fetchall()]
        await keep_previews(self._conn, texts)
        await self._conn.send_many("DELETE FROM atoms WHERE id = ?", [(i,) for i in atom_ids])

    async def ids_of_turn(self, session_id: str, turn: int, owner: str) -> set[str]:
        """Ids of the atoms formed from one turn of `owner`'s session (the session index narrows it)."""
        async with self._conn.execute(
            "SELECT id FROM atoms WHERE session_id = ? AND owner = ? AND turn = ?", (session_id, owner, turn)
        ) as cur:
            return {str(row[0]) for row in await cur.fetchall()}

    async def index_rows(self, limit: int) -> builtins.list[tuple[str, str, tuple[str, ...], str, str | None]]:
        """Pointer rows for the memory index: (id, text, tags, scope, project) of live atoms, pinned and
        important first, then newest."""
        rows: builtins.list[tuple[str, str, tuple[str, ...], str, str | None]] = []
        visible = visibility_sql()
        extra, extra_params = (f" AND {visible[0]}", visible[1]) if visible else ("", [])
        # Two index walks (the salient partial index, then recency) instead of sorting every atom.
        for sql in (
            "SELECT id, text, tags, scope, project FROM atoms INDEXED BY atoms_salient WHERE status = 'live' "
            f"AND (pinned = 1 OR importance IN ('critical', 'high')){extra} ORDER BY created_at DESC LIMIT ?",
            f"SELECT id, text, tags, scope, project FROM atoms WHERE status = 'live'{extra} "
            "ORDER BY created_at DESC LIMIT ?",
        ):
            async with self._conn.execute(sql, (*extra_params, limit)) as cur:
                for r in await cur.fetchall():
                    if len(rows) < limit and all(r[0] != seen[0] for seen in rows):
                        rows.append((str(r[0]), str(r[1]), tuple(json.loads(r[2])), str(r[3]), r[4]))
        return rows
