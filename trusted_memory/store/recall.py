"""SQL for recall: FTS5 keyword candidates, stored vectors, the embed queue, associations."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from ..errors import InvalidInput
from ..model import Atom
from ..people import owner_or_acting
from ..queries import AtomFilter
from .atoms import (
    ATOM_SELECT,
    INSERT_RETURNING_NUM,
    atom_from_row,
    atom_from_values,
    atom_to_row,
    filter_sql,
    norm_lookup,
)
from .conn import Connection
from .postgres import search as pg_search
from .vector_codec import decode_many, encode

# What ranking needs of an atom: (id, status, source class, confidence, created, last recalled, pinned).
RankFields = tuple[str, str, str, float, float, float | None, int]
_RANK_COLUMNS = "num, id, status, source_class, confidence, created_at, last_recalled_at, pinned"
# Link kinds as stored (migration 15), and the scale of stored link weights.
LINK_KINDS = ("temporal", "task", "semantic")
LINK_KIND_CODE = {kind: code for code, kind in enumerate(LINK_KINDS)}
LINK_WEIGHT_SCALE = 10000
# PostgreSQL's keyword score counts each term's documents up to this many for its idf (postgres/search.py).
KEYWORD_IDF_CAP = 5000


def stored_link(kind: str, weight: float) -> tuple[int, int]:
    """A link's (kind, weight) as its row stores them: the kind's code, the weight in ten-thousandths."""
    return LINK_KIND_CODE[kind], round(min(max(weight, 0.0), 1.0) * LINK_WEIGHT_SCALE)


def link_kind_sql(column: str = "kind") -> str:
    """SQL that reads a stored kind code back as its name."""
    return f"CASE {column} WHEN 0 THEN 'temporal' WHEN 1 THEN 'task' ELSE 'semantic' END"


def link_weight_sql(column: str = "weight") -> str:
    """SQL that reads a stored weight back as a fraction."""
    return f"{column} / {LINK_WEIGHT_SCALE}.0"


# An atom's text and the question it answers, as model.Atom.embedding_input (t: the table's name).
_EMBEDDING_INPUT = "{t}.text || COALESCE(char(10) || {t}.cue, '')"


def quote_fts(terms: Iterable[str]) -> str:
    """An FTS5 query that ORs the terms, each quoted so user text is never FTS syntax."""
    # Control characters (NUL above all) end an FTS5 string early; they carry no meaning anyway.
    cleaned = ("".join(ch for ch in term if ch.isprintable()) for term in terms)
    quoted = ['"' + term.replace('"', '""') + '"' for term in cleaned if term.strip()]
    return " OR ".join(quoted)


class RecallRepo:
    """Reads and writes of the recall structures."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        # PostgreSQL: each term's live atoms up to KEYWORD_IDF_CAP, as this read's keyword search counted them.
        self._counted: dict[str, int] = {}

    async def keyword(
        self, terms: Sequence[str], f: AtomFilter, *, now: float, limit: int, narrowed: bool = True
    ) -> list[tuple[int, float]]:
        """Live atoms matching any of the terms, best first, as (num, bm25 score ≥ 0)."""
        if self._conn.dialect == "postgres":
            return await self._keyword_postgres(terms, f, now=now, limit=limit, narrowed=narrowed)
        match = quote_fts(terms)
        if not match:
            return []
        if not narrowed:
            # The index holds live atoms only, so with no filter there is nothing to join. The `rowid`
            # tie-break (older atom first, as before) also keeps FTS5 off its own rank sorter, which
            # took a third longer than SQLite's for the same rows (0.55 vs 0.41 ms at 10k atoms).
            async with self._conn.execute(
                "SELECT rowid, -rank FROM atoms_fts WHERE atoms_fts MATCH ? ORDER BY rank, rowid LIMIT ?",
                (match, limit),
            ) as cur:
                return [(int(r[0]), float(r[1])) for r in await cur.fetchall()]
        clauses, params = filter_sql(f, now)
        where = "".join(f" AND {c}" for c in clauses)
        sql = (
            "SELECT atoms.num, -bm25(atoms_fts, 1.0, 0.4, 0.5) "
            "FROM atoms_fts JOIN atoms ON atoms.num = atoms_fts.rowid "
            f"WHERE atoms_fts MATCH ?{where} ORDER BY bm25(atoms_fts, 1.0, 0.4, 0.5) LIMIT ?"
        )
        async with self._conn.execute(sql, (match, *params, limit)) as cur:
            return [(int(r[0]), float(r[1])) for r in await cur.fetchall()]

    async def _keyword_postgres(
        self, terms: Sequence[str], f: AtomFilter, *, now: float, limit: int, narrowed: bool
    ) -> list[tuple[int, float]]:
        usable = pg_search.clean_terms(terms)
        if not usable:
            return []
        if narrowed:
            clauses, params = filter_sql(f, now)
            sql = pg_search.keyword_atoms(len(usable), "".join(f" AND {c}" for c in clauses), KEYWORD_IDF_CAP)
            bound = [*pg_search.keyword_params(usable), *params, limit]
        elif len(usable) > 1:
            sql, bound = pg_search.keyword_atoms_pruned(usable, KEYWORD_IDF_CAP, limit)
        else:
            sql = pg_search.keyword_atoms_counted(len(usable), KEYWORD_IDF_CAP)
            bound = [*pg_search.keyword_params_counted(usable), limit]
        async with self._conn.execute(sql, bound) as cur:
            rows = await cur.fetchall()
        if rows:
            counts = rows[0][2 : 2 + len(usable)]
            self._counted.update(zip(usable, (int(n) for n in counts), strict=True))
        return [(int(r[0]), float(r[1])) for r in rows]

    async def _doc_counts_postgres(self, terms: Sequence[str], cap: int) -> tuple[list[int], int]:
        async with self._conn.execute(pg_search.doc_counts(len(terms), cap), tuple(terms)) as cur:
            row = await cur.fetchone()
        values = [int(v) for v in row]
        return values[:-1], values[-1]

    async def doc_counts(self, terms: Sequence[str], cap: int) -> list[int]:
        """For each term, in how many live atoms it occurs (counted up to `cap`: past it, a term says little)."""
        if not terms:
            return []
        if self._conn.dialect == "postgres":
            usable = [pg_search.clean_terms([term]) for term in terms]
            wanted = [u[0] for u in usable if u]
            if cap <= KEYWORD_IDF_CAP and all(term in self._counted for term in wanted):
                # This read's keyword search counted them already: a count up to a larger cap, cut to this one.
                found = [min(self._counted[term], cap) for term in wanted]
            else:
                found, _ = await self._doc_counts_postgres(wanted, cap)
            it = iter(found)
            return [next(it) if u else 0 for u in usable]
        one = f"SELECT count(*) FROM (SELECT 1 FROM atoms_fts WHERE atoms_fts MATCH ? LIMIT {int(cap)})"
        counts: list[int] = []
        for term in terms:
            match = quote_fts([term])
            if not match:
                counts.append(0)
                continue
            async with self._conn.execute(one, (match,)) as cur:
                row = await cur.fetchone()
            counts.append(int(row[0]) if row else 0)
        return counts

    async def allowed_nums(self, f: AtomFilter, *, now: float) -> list[int]:
        """Nums of the atoms a filter admits (applied before any top-k cut)."""
        hint = ""
        if f.types and f.status == "live":
            # Without table statistics the planner walks atoms_status (every live atom) rather than
            # the partial index atoms_type (0.3 vs 1.9 ms for three types at 10k atoms), and it can
            # only use that index when the status is written literally.
            clauses, params = filter_sql(dataclasses.replace(f, status=None), now)
            clauses.insert(0, "atoms.status = 'live'")
            hint = " INDEXED BY atoms_type"
        else:
            clauses, params = filter_sql(f, now)
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        async with self._conn.execute(f"SELECT num FROM atoms{hint}{where}", params) as cur:
            return [int(r[0]) for r in await cur.fetchall()]

    async def rank_fields(self, nums: Sequence[int]) -> dict[int, RankFields]:
        """What ranking needs of each atom (see RankFields); missing atoms are simply absent."""
        out: dict[int, RankFields] = {}
        for start in range(0, len(nums), 500):
            chunk = list(nums[start : start + 500])
            async with self._conn.execute(
                f"SELECT {_RANK_COLUMNS} FROM atoms WHERE num IN ({', '.join('?' * len(chunk))})",
                chunk,
            ) as cur:
                # Unpacked, not indexed: a row is read whole at C speed (PostgreSQL's rows index in Python).
                for num, *fields in await cur.fetchall():
                    out[num] = tuple(fields)
        return out

    async def admitted(self, nums: Sequence[int], f: AtomFilter, *, now: float) -> set[int]:
        """Which of these atoms a filter admits (a few candidates, checked without listing all it admits)."""
        if not nums:
            return set()
        clauses, params = filter_sql(f, now)
        where = "".join(f" AND {c}" for c in clauses)
        # NOT INDEXED keeps the planner on rowid look-ups: it would rather walk atoms_status (every live atom).
        async with self._conn.execute(
            f"SELECT num FROM atoms NOT INDEXED WHERE num IN ({', '.join('?' * len(nums))}){where}",
            [*nums, *params],
        ) as cur:
            return {int(r[0]) for r in await cur.fetchall()}

    async def atoms_by_num(self, nums: Sequence[int]) -> dict[int, Atom]:
        """Atoms by num (missing ones are simply absent)."""
        out: dict[int, Atom] = {}
        for start in range(0, len(nums), 500):
            chunk = list(nums[start : start + 500])
            async with self._conn.execute(
                f"SELECT num, {ATOM_SELECT} FROM atoms WHERE num IN ({', '.join('?' * len(chunk))})",
                chunk,
            ) as cur:
                for num, *values in await cur.fetchall():
                    out[int(num)] = atom_from_values(values)
        return out

    async def num_of(self, atom_id: str) -> int | None:
        """The integer key of an atom id."""
        async with self._conn.execute("SELECT num FROM atoms WHERE id = ?", (atom_id,)) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else None

    async def touch(self, recalls: Sequence[tuple[int, float, int]]) -> None:
        """Record that these atoms were recalled: (num, last time, how many times) (feeds eviction)."""
        await self._conn.send_many(
            "UPDATE atoms SET last_recalled_at = ?, recall_count = recall_count + ? WHERE num = ?",
            [(ts, times, num) for num, ts, times in recalls],
        )

    # vectors ---------------------------------------------------------------------------------
    async def space(self) -> str:
        """The embedding space the stored vectors were last built for."""
        async with self._conn.execute("SELECT value FROM meta WHERE key = 'embedding_space'") as cur:
            row = await cur.fetchone()
        return str(row[0]) if row else ""

    async def switch_space(self, space: str) -> int:
        """Adopt a new embedding space: every live atom is queued for re-embedding."""
        await self._conn.send("UPDATE meta SET value = ? WHERE key = 'embedding_space'", (space,))
        cur = await self._conn.execute(
            "INSERT OR IGNORE INTO embed_queue(atom_num) SELECT num FROM atoms WHERE status = 'live'"
        )
        return int(cur.rowcount)

    async def insert_with_vector(self, atom: Atom, norm: str, space: str, scale: float, blob: bytes) -> tuple[int, int]:
        """Store a new live atom (AtomsRepo.insert) and its vector (put_vectors) in one round trip;
        returns its num and the vector's seq."""
        inserted, stored = await self._conn.fetch_each(
            [
                (INSERT_RETURNING_NUM, atom_to_row(atom, norm)),
                (
                    "INSERT OR REPLACE INTO vectors(atom_num, space, seq, scale, vec) "
                    "VALUES ((SELECT num FROM atoms WHERE id = ?), ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM vectors), "
                    "?, ?) RETURNING atom_num, seq",
                    (atom.id, space, scale, encode(blob)),
                ),
            ]
        )
        num, seq = int(inserted[0][0]), int(stored[0][1])
        await self._after_vectors([(num, space)])
        return num, seq

    async def _after_vectors(self, rows: Sequence[tuple[int, str]]) -> None:
        """What storing vectors implies: their atoms leave the embed queue, the first one names the space."""
        await self._conn.send_many("DELETE FROM embed_queue WHERE atom_num = ?", [(r[0],) for r in rows])
        if rows:
            # The first vector ever stored names the store's space (later changes go through switch_space).
            await self._conn.send(
                "UPDATE meta SET value = ? WHERE key = 'embedding_space' AND value = ''",
                (rows[0][1],),
            )

    async def put_vectors(self, rows: Sequence[tuple[int, str, float, bytes]]) -> int:
        """Store (num, space, scale, blob) vectors and take those atoms off the embed queue.

        Returns the seq of the last row stored (rows get consecutive seqs, after every earlier one).
        """
        if len(rows) == 1:
            # The one vector of an atom write: its seq computed and read back in the same statement.
            num, space, scale, blob = rows[0]
            async with self._conn.execute(
                "INSERT OR REPLACE INTO vectors(atom_num, space, seq, scale, vec) "
                "VALUES (?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM vectors), ?, ?) RETURNING seq",
                (num, space, scale, encode(blob)),
            ) as cur:
                row = await cur.fetchone()
            seq = int(row[0]) - 1
        else:
            async with self._conn.execute("SELECT COALESCE(MAX(seq), 0) FROM vectors") as cur:
                row = await cur.fetchone()
            seq = int(row[0]) if row else 0
            await self._conn.send_many(
                "INSERT OR REPLACE INTO vectors(atom_num, space, seq, scale, vec) VALUES (?, ?, ?, ?, ?)",
                [(num, space, seq + i + 1, scale, encode(blob)) for i, (num, space, scale, blob) in enumerate(rows)],
            )
        await self._after_vectors([(r[0], r[1]) for r in rows])
        return seq + len(rows)

    async def vectors_since(self, space: str, seq: int, limit: int = 50_000) -> list[tuple[int, int, float, bytes]]:
        """Vectors of one space stored after `seq`, as (num, seq, scale, blob), in seq order."""
        async with self._conn.execute(
            "SELECT atom_num, seq, scale, vec FROM vectors WHERE space = ? AND seq > ? ORDER BY seq LIMIT ?",
            (space, seq, limit),
        ) as cur:
            rows = await cur.fetchall()
        blobs = decode_many([bytes(r[3]) for r in rows])
        return [(int(r[0]), int(r[1]), float(r[2]), blob) for r, blob in zip(rows, blobs, strict=True)]

    async def vector_count(self, space: str) -> int:
        """How many vectors of one space are stored."""
        async with self._conn.execute("SELECT COUNT(*) FROM vectors WHERE space = ?", (space,)) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def queued(self, limit: int) -> list[tuple[int, str, str | None]]:
        """Live atoms waiting for a vector, as (num, text, the text of the memory said before it)."""
        async with self._conn.execute(
            # The text and the question it answers, as Atom.embedding_input; the context as session_context.
            f"SELECT atoms.num, {_EMBEDDING_INPUT.format(t='atoms')}, ("
            f"SELECT {_EMBEDDING_INPUT.format(t='p')} FROM atoms AS p INDEXED BY atoms_session "
            "WHERE p.session_id = atoms.session_id AND p.owner = atoms.owner AND p.status = 'live' "
            "AND p.num < atoms.num "
            "ORDER BY p.num DESC LIMIT 1) "
            "FROM embed_queue JOIN atoms ON atoms.num = embed_queue.atom_num "
            "WHERE atoms.status = 'live' LIMIT ?",
            (limit,),
        ) as cur:
            return [(int(r[0]), str(r[1]), None if r[2] is None else str(r[2])) for r in await cur.fetchall()]

    async def session_context(self, session_id: str, owner: str | None = None) -> str | None:
        """What the next memory of a session (the acting person's, or `owner`'s) is said after: the latest
        live atom's embedding input."""
        async with self._conn.execute(
            f"SELECT {_EMBEDDING_INPUT.format(t='atoms')} FROM atoms INDEXED BY atoms_session "
            "WHERE session_id = ? AND owner = ? AND status = 'live' ORDER BY num DESC LIMIT 1",
            (session_id, owner_or_acting(owner)),
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else str(row[0])

    async def before_write(
        self, norm: str, session_id: str | None, recent: int, owner: str | None = None
    ) -> tuple[Atom | None, str | None, list[int]]:
        """What an atom write reads before its insert, in one round trip: the atom it would repeat
        (AtomsRepo.find_by_norm), and its session's `recent` latest live atoms, newest first (their nums
        for links, the newest one's embedding input as its context: session_context); a session is its
        owner's (`owner`, else the acting person)."""
        statements: list[tuple[str, Iterable[object]]] = [norm_lookup(norm)]
        if session_id:
            statements.append(
                (
                    f"SELECT num, {_EMBEDDING_INPUT.format(t='atoms')} FROM atoms INDEXED BY atoms_session "
                    "WHERE session_id = ? AND owner = ? AND status = 'live' ORDER BY num DESC LIMIT ?",
                    (session_id, owner_or_acting(owner), recent),
                )
            )
        found, *tail = await self._conn.fetch_each(statements)
        rows = tail[0] if tail else []
        existing = atom_from_row(found[0]) if found else None
        return existing, (str(rows[0][1]) if rows else None), [int(r[0]) for r in rows]

    async def queue_size(self) -> int:
        """How many atoms wait for a vector."""
        async with self._conn.execute("SELECT COUNT(*) FROM embed_queue") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    # associations ----------------------------------------------------------------------------
    async def recent_in_session(
        self, session_id: str, exclude: int, limit: int = 1, owner: str | None = None
    ) -> list[int]:
        """The latest live atoms of a session, the acting person's or `owner`'s (for temporal and
        same-task links)."""
        # The session's own index, walked newest first (the planner would rather walk every live atom).
        async with self._conn.execute(
            "SELECT num FROM atoms INDEXED BY atoms_session "
            "WHERE session_id = ? AND owner = ? AND status = 'live' AND num != ? ORDER BY num DESC LIMIT ?",
            (session_id, owner_or_acting(owner), exclude, limit),
        ) as cur:
            return [int(r[0]) for r in await cur.fetchall()]

    async def link(self, rows: Sequence[tuple[int, int, str, float]]) -> None:
        """Store (src, dst, kind, weight) links; each is stored once and read from both ends."""
        unknown = {kind for _, _, kind, _ in rows} - LINK_KIND_CODE.keys()
        if unknown:
            raise InvalidInput(f"unknown link kind {sorted(unknown)}; one of {', '.join(LINK_KINDS)}")
        await self._conn.send_many(
            "INSERT OR REPLACE INTO associations(src, dst, kind, weight) VALUES (?, ?, ?, ?)",
            [(src, dst, *stored_link(kind, weight)) for src, dst, kind, weight in rows],
        )

    async def live_nums(self, nums: Sequence[int]) -> set[int]:
        """Which of these atom numbers are live atoms."""
        if not nums:
            return set()
        # NOT INDEXED keeps the planner on rowid look-ups: it would rather walk atoms_status (every live atom).
        async with self._conn.execute(
            f"SELECT num FROM atoms NOT INDEXED WHERE num IN ({', '.join('?' * len(nums))}) AND status = 'live'",
            list(nums),
        ) as cur:
            return {int(r[0]) for r in await cur.fetchall()}

    async def neighbours(self, nums: Sequence[int]) -> list[tuple[int, int, str, float, RankFields | None]]:
        """Links touching these atoms, as (this atom, the other, kind, weight, the other's rank fields).

        Links stored from these atoms come first, then links stored to them, each by (this, other, kind).
        """
        if not nums:
            return []
        marks = ", ".join("?" * len(nums))
        async with self._conn.execute(
            "SELECT l.this, l.other, l.kind, l.weight, a.id, a.status, a.source_class, a.confidence, a.created_at, "
            "a.last_recalled_at, a.pinned FROM ("
            f"SELECT 0 AS part, src AS this, dst AS other, {link_kind_sql()} AS kind, "
            f"{link_weight_sql()} AS weight "
            f"FROM associations WHERE src IN ({marks}) "
            f"UNION ALL SELECT 1, dst, src, {link_kind_sql()}, {link_weight_sql()} "
            f"FROM associations WHERE dst IN ({marks})"
            ") AS l LEFT JOIN atoms AS a ON a.num = l.other ORDER BY l.part, l.this, l.other, l.kind",
            [*nums, *nums],
        ) as cur:
            return [
                (r[0], r[1], r[2], r[3], None if r[4] is None else (r[4], r[5], r[6], r[7], r[8], r[9], r[10]))
                for r in await cur.fetchall()
            ]

    async def cached_vectors(self, space: str, hashes: Sequence[str]) -> dict[str, tuple[float, bytes]]:
        """Cached (scale, blob) vectors of these content hashes in one space."""
        out: dict[str, tuple[float, bytes]] = {}
        for start in range(0, len(hashes), 500):
            chunk = list(hashes[start : start + 500])
            async with self._conn.execute(
                "SELECT hash, scale, vec FROM embedding_cache "
                f"WHERE space = ? AND hash IN ({', '.join('?' * len(chunk))})",
                (space, *chunk),
            ) as cur:
                for row in await cur.fetchall():
                    out[str(row[0])] = (float(row[1]), bytes(row[2]))
        return out

    async def cache_vectors(self, space: str, rows: Sequence[tuple[str, float, bytes]]) -> None:
        """Remember (hash, scale, blob) vectors of remote embeddings."""
        await self._conn.send_many(
            "INSERT OR REPLACE INTO embedding_cache(hash, space, scale, vec) VALUES (?, ?, ?, ?)",
            [(h, space, scale, blob) for h, scale, blob in rows],
        )

    # consistency (doctor) ------------------------------------------------------------------
    async def fts_mismatch(self) -> tuple[list[int], list[int]]:
        """(live atoms missing from FTS, FTS rows that are not live atoms)."""
        if self._conn.dialect == "postgres":
            return [], []  # the tsvector is a generated column of the row: it cannot fall out of step
        async with self._conn.execute(
            "SELECT num FROM atoms WHERE status = 'live' AND num NOT IN (SELECT id FROM atoms_fts_docsize)"
        ) as cur:
            missing = [int(r[0]) for r in await cur.fetchall()]
        async with self._conn.execute(
            "SELECT id FROM atoms_fts_docsize WHERE id NOT IN (SELECT num FROM atoms WHERE status = 'live')"
        ) as cur:
            extra = [int(r[0]) for r in await cur.fetchall()]
        return missing, extra

    async def rebuild_fts(self) -> int:
        """Re-index live atoms only (FTS5's own 'rebuild' would index quarantined text too)."""
        if self._conn.dialect == "postgres":
            await self._conn.execute("REINDEX INDEX atoms_document")
            async with self._conn.execute(pg_search.live_atom_count()) as cur:
                row = await cur.fetchone()
            return int(row[0]) if row else 0
        await self._conn.execute("INSERT INTO atoms_fts(atoms_fts) VALUES ('delete-all')")
        cur = await self._conn.execute(
            "INSERT INTO atoms_fts(rowid, text, tags, cue) SELECT num, text, tags, cue FROM atoms WHERE status = 'live'"
        )
        return int(cur.rowcount)

    async def vector_problems(self, space: str) -> tuple[int, int, int, int]:
        """(vectors of non-live atoms, live atoms with no vector and not queued, stale queue rows, dangling links)."""
        queries = (
            "SELECT COUNT(*) FROM vectors WHERE atom_num NOT IN (SELECT num FROM atoms WHERE status = 'live')",
            (
                "SELECT COUNT(*) FROM atoms WHERE status = 'live' AND num NOT IN "
                "(SELECT atom_num FROM vectors WHERE space = ?) AND num NOT IN (SELECT atom_num FROM embed_queue)"
            ),
            "SELECT COUNT(*) FROM embed_queue WHERE atom_num NOT IN (SELECT num FROM atoms WHERE status = 'live')",
            "SELECT COUNT(*) FROM associations "
            "WHERE src NOT IN (SELECT num FROM atoms) OR dst NOT IN (SELECT num FROM atoms)",
        )
        counts = []
        for sql in queries:
            async with self._conn.execute(sql, (space,) if "?" in sql else ()) as cur:
                row = await cur.fetchone()
            counts.append(int(row[0]) if row else 0)
        return counts[0], counts[1], counts[2], counts[3]

    async def repair_vectors(self, space: str) -> int:
        """Drop vectors, queue rows and links of atoms that are gone or not live; queue unembedded live atoms."""
        changed = 0
        for sql, params in (
            ("DELETE FROM vectors WHERE atom_num NOT IN (SELECT num FROM atoms WHERE status = 'live')", ()),
            ("DELETE FROM embed_queue WHERE atom_num NOT IN (SELECT num FROM atoms WHERE status = 'live')", ()),
            (
                "DELETE FROM associations "
                "WHERE src NOT IN (SELECT num FROM atoms) OR dst NOT IN (SELECT num FROM atoms)",
                (),
            ),
            (
                (
                    "INSERT OR IGNORE INTO embed_queue(atom_num) SELECT num FROM atoms WHERE status = 'live' "
                    "AND num NOT IN (SELECT atom_num FROM vectors WHERE space = ?)"
                ),
                (space,),
            ),
        ):
            cur = await self._conn.execute(sql, params)
            changed += max(cur.rowcount, 0)
        return changed

    async def requeue_all(self) -> int:
        """Queue every live atom for re-embedding (a full reindex)."""
        cur = await self._conn.execute(
            "INSERT OR IGNORE INTO embed_queue(atom_num) SELECT num FROM atoms WHERE status = 'live'"
        )
        return int(cur.rowcount)
