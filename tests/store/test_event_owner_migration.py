"""Migration 20 on both backends: old events get the owner of their subject while it is stored, else
the implicit owner; old chat-import keys their session's owner; the append-only log stays append-only;
a person's event query is served by the owner index."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from postgres_cluster import Cluster

from trusted_memory.people import Viewer, acting_as
from trusted_memory.store.db import SqliteStore
from trusted_memory.store.migrations import MIGRATIONS
from trusted_memory.store.postgres.db import PgStore
from trusted_memory.store.postgres.schema import P019_SCHEMA

pytestmark = pytest.mark.anyio

# A store at version 19 as a team left it: Bob's atom and session, Alice's fact and guess, an atom
# since deleted, a user-model field's event, a rejected guess of Bob's (its detail names him), and
# the store's own event.
ROWS = (
    "INSERT INTO people(name, role, token_hash, created_at) VALUES ('alice', 'member', 'h1', 0), "
    "('bob', 'member', 'h2', 0)",
    "INSERT INTO atoms(id, type, text, norm, source_class, confidence, importance, scope, status, created_at, "
    "updated_at, owner) VALUES ('b0b', 'note', 'bob text', {norm}, 'user_said', 1, 'medium', 'user', 'live', 0, 0, "
    "'bob')",
    "INSERT INTO sessions(id, started_at, last_at, owner) VALUES ('s-bob', 0, 0, 'bob')",
    "INSERT INTO facts(target, content, created_at, updated_at, owner) VALUES ('user', 'alice fact', 0, 0, 'alice')",
    "INSERT INTO pending_reviews(id, owner, field_path, value, confidence, created_at, updated_at, expires_at) "
    "VALUES ('p-alice', 'alice', 'style.tone', 'dry', 0.5, 0, 0, 9e9)",
    "INSERT INTO chat_imports(key, session_id, imported_at) VALUES ('k1', 's-bob', 1), ('k2', 'gone', 2)",
    "INSERT INTO events(id, ts, actor, kind, subject, detail) VALUES "
    "(1, 1, 'agent', 'atom_added', 'atom:b0b', '{}'), "
    "(2, 2, 'agent', 'turn_observed', 'session:s-bob', '{}'), "
    "(3, 3, 'agent', 'fact_added', 'fact:1', '{}'), "
    "(4, 4, 'agent', 'pending_added', 'pending:p-alice', '{}'), "
    "(5, 5, 'agent', 'atom_forgotten', 'atom:deleted', '{}'), "
    "(6, 6, 'system', 'user_model_updated', 'user_model:style.tone', '{}'), "
    "(7, 7, 'agent', 'pending_rejected', 'pending:gone', '{\"owner\": \"bob\"}'), "
    "(8, 8, 'admin', 'store_compacted', NULL, '{}')",
)
EXPECTED = {1: "bob", 2: "bob", 3: "alice", 4: "alice", 5: "local", 6: "local", 7: "bob", 8: "local"}


async def _check(store: Any) -> None:
    async with store.read() as rx:
        owners = {e.id: e.owner for e in await rx.events.list(limit=100)}
        assert owners == EXPECTED
        with acting_as(Viewer("bob", "member", team=True)):
            assert [e.id for e in await rx.events.list(owned=True)] == [1, 2, 7]
            assert await rx.events.count(owned=True) == 3
            assert await rx.events.count("pending_rejected", owned=True) == 1
            assert [k for k, *_ in await rx.transfer.import_keys()] == ["k1"]
            assert await rx.transfer.known_keys(["k1", "k2"]) == {"k1"}
        with acting_as(Viewer("alice", "member", team=True)):
            assert [e.id for e in await rx.events.list(owned=True)] == [3, 4]
            assert await rx.transfer.known_keys(["k1", "k2"]) == set()
        assert {(k, owner) for k, _, _, owner in await rx.transfer.import_keys()} == {("k1", "bob"), ("k2", "local")}
    # A new event is the acting person's; a key another person holds is not a duplicate of theirs.
    with acting_as(Viewer("alice", "member", team=True)):
        async with store.write() as tx:
            await tx.events.append("agent", "atom_added", "atom:b0b", {})
            assert await tx.transfer.record_keys([("k1", "s-alice", 3.0)]) == 1
    async with store.read() as rx:
        assert (await rx.events.list(newest=True, limit=1))[0].owner == "alice"


async def test_sqlite_store_of_version_19_gets_owners(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    await (await SqliteStore.open(path, tuple(m for m in MIGRATIONS if m.version < 20))).close()
    conn = sqlite3.connect(path)
    for statement in ROWS:
        conn.execute(statement.replace("{norm}", "'bob text'"))
    conn.commit()
    conn.close()
    store = await SqliteStore.open(path)
    try:
        await _check(store)
    finally:
        await store.close()
    conn = sqlite3.connect(path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute("UPDATE events SET owner = 'alice' WHERE id = 1")
        # The person's query names the index's condition, so SQLite takes the owner index.
        plan = " ".join(
            str(r[-1])
            for r in conn.execute(
                "EXPLAIN QUERY PLAN SELECT COUNT(*) FROM events WHERE events.owner = ? AND events.owner <> 'local'",
                ("bob",),
            )
        )
        assert "events_owner" in plan, plan
    finally:
        conn.close()


@pytest.mark.postgres
async def test_postgres_store_of_version_19_gets_owners(pg_cluster: Cluster) -> None:
    name = f"t_v19_{uuid.uuid4().hex[:12]}"
    pg_cluster.admin(f"CREATE DATABASE {name}")  # empty: the test template is at the latest version
    dsn = pg_cluster.dsn(name)
    try:
        await (await PgStore.open(dsn, (P019_SCHEMA,))).close()
        with psycopg.connect(dsn, autocommit=True) as conn:
            for statement in ROWS:
                conn.execute(statement.replace("{norm}", "'\\x00'::bytea"))
            conn.execute("SELECT setval(pg_get_serial_sequence('events', 'id'), 8)")  # the ids given above
        store = await PgStore.open(dsn)
        try:
            await _check(store)
        finally:
            await store.close()
        with psycopg.connect(dsn, autocommit=True) as conn:
            with pytest.raises(psycopg.Error, match="append-only"):
                conn.execute("UPDATE events SET owner = 'alice' WHERE id = 1")
            indexes = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'events'")}
            assert "events_owner" in indexes
    finally:
        pg_cluster.drop_database(name)
