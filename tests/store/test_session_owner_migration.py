"""Migration 21 on both backends: a session is (owner, id). An old store's buffer lines, notes and
transcript take their session's owner; its sessions and episodes are kept; then another person's
session of the same id is a new one of theirs, with its own buffer, notes, turns and episode."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from postgres_cluster import Cluster

from trusted_memory.model import Episode
from trusted_memory.people import Viewer, acting_as
from trusted_memory.store.db import SqliteStore
from trusted_memory.store.migrations import MIGRATIONS
from trusted_memory.store.postgres.db import PgStore
from trusted_memory.store.postgres.schema import P019_SCHEMA, P020_EVENT_OWNERS

pytestmark = pytest.mark.anyio

ALICE = Viewer("alice", "member", team=True)
BOB = Viewer("bob", "member", team=True)

# A team's store at version 20: Alice's session "default" with its buffer, a note, a transcript turn
# and a live episode; Bob's session "s-bob" with a note.
ROWS = (
    "INSERT INTO people(name, role, token_hash, created_at) VALUES ('alice', 'member', 'h1', 0), "
    "('bob', 'member', 'h2', 0)",
    "INSERT INTO sessions(id, started_at, last_at, turns, owner) VALUES ('default', 0, 1, 3, 'alice'), "
    "('s-bob', 0, 1, 1, 'bob')",
    "INSERT INTO session_buffer(session_id, seq, line) VALUES ('default', 1, '10:00 user the offsite is in Lisbon')",
    "INSERT INTO session_notes(session_id, category, text, created_at) VALUES "
    "('default', 'decision', 'offsite in Lisbon', 0), ('s-bob', 'progress', 'bob refactored the parser', 0)",
    "INSERT INTO session_turns(session_id, role, text, ts) VALUES ('default', 'user', 'the offsite is in Lisbon', 0)",
    "INSERT INTO episodes(id, session_id, summary, status, source_class, turns, created_at, owner) VALUES "
    "('ep-alice', 'default', 'We chose Lisbon for the offsite', 'live', 'session_summary', 3, 0, 'alice')",
)


def _episode(owner: str) -> Episode:
    return Episode(
        f"ep-{owner}-2",
        "default",
        None,
        f"{owner} planned the release train",
        "live",
        "session_summary",
        3,
        1.0,
        None,
        owner,
    )


async def _check(store: Any) -> None:
    async with store.read() as rx:
        with acting_as(ALICE):
            assert await rx.sessions.buffer("default") == ["10:00 user the offsite is in Lisbon"]
            assert [n.text for n in await rx.sessions.notes("default")] == ["offsite in Lisbon"]
            assert await rx.sessions.turns("default") == [("user", "the offsite is in Lisbon")]
            found = await rx.sessions.episode("default")
            assert found is not None and found.id == "ep-alice"
            assert [i for i, _ in await rx.sessions.search_episodes(["lisbon"], 1.0, 5)] == ["ep-alice"]
        with acting_as(BOB):
            assert await rx.sessions.get("default") is None and await rx.sessions.episode("default") is None
            assert [n.text for n in await rx.sessions.notes("s-bob")] == ["bob refactored the parser"]
    # Bob's host picks the same id: a session of his own, beside Alice's, with an episode of its own.
    with acting_as(BOB):
        async with store.write() as tx:
            mine = await tx.sessions.touch("default", None, 5.0, turn=True)
            await tx.sessions.push_lines("default", ["10:05 user bob's first line"], 50)
            await tx.sessions.add_turns("default", [("user", "bob's first line")], 5.0)
            await tx.sessions.add_episode(_episode("bob"), None, None)
        assert mine.owner == "bob" and mine.turns == 1
        async with store.read() as rx:
            assert await rx.sessions.buffer("default") == ["10:05 user bob's first line"]
            assert await rx.sessions.turns("default") == [("user", "bob's first line")]
            assert await rx.sessions.notes("default") == []
            assert [e.id for e in await rx.sessions.episodes()] == ["ep-bob-2"]
    with acting_as(ALICE):
        async with store.read() as rx:
            session = await rx.sessions.get("default")
            assert session is not None and session.turns == 3 and session.owner == "alice"
            assert await rx.sessions.buffer("default") == ["10:00 user the offsite is in Lisbon"]
            assert [e.id for e in await rx.sessions.episodes()] == ["ep-alice"]


async def test_sqlite_store_of_version_20_keys_sessions_by_owner(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    await (await SqliteStore.open(path, tuple(m for m in MIGRATIONS if m.version < 21))).close()
    conn = sqlite3.connect(path)
    for statement in ROWS:
        conn.execute(statement)
    conn.commit()
    conn.close()
    store = await SqliteStore.open(path)
    try:
        await _check(store)
    finally:
        await store.close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.execute("INSERT INTO episodes_fts(episodes_fts, rank) VALUES ('integrity-check', 1)")
        owners = {
            t: conn.execute(f"SELECT DISTINCT owner FROM {t} WHERE session_id = 'default' ORDER BY owner").fetchall()
            for t in ("session_buffer", "session_notes", "session_turns")
        }
        assert owners == {
            "session_buffer": [("alice",), ("bob",)],
            "session_notes": [("alice",)],
            "session_turns": [("alice",), ("bob",)],
        }
    finally:
        conn.close()


async def test_a_one_person_store_of_version_20_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    await (await SqliteStore.open(path, tuple(m for m in MIGRATIONS if m.version < 21))).close()
    conn = sqlite3.connect(path)
    for statement in ROWS[1:]:
        conn.execute(statement.replace("'alice'", "'local'").replace("'bob'", "'local'"))
    conn.commit()
    conn.close()
    store = await SqliteStore.open(path)
    try:
        with acting_as(Viewer("local")):
            async with store.read() as rx:
                assert [n.text for n in await rx.sessions.notes("default")] == ["offsite in Lisbon"]
                assert await rx.sessions.turns("default") == [("user", "the offsite is in Lisbon")]
                found = await rx.sessions.episode("default")
                assert found is not None and found.id == "ep-alice"
        async with store.read() as rx:  # acting for nobody, as the admin's desk does
            session = await rx.sessions.get("default")
            assert session is not None and session.turns == 3
    finally:
        await store.close()


@pytest.mark.postgres
async def test_postgres_store_of_version_20_keys_sessions_by_owner(pg_cluster: Cluster) -> None:
    name = f"t_v20_{uuid.uuid4().hex[:12]}"
    pg_cluster.admin(f"CREATE DATABASE {name}")  # empty: the test template is at the latest version
    dsn = pg_cluster.dsn(name)
    try:
        await (await PgStore.open(dsn, (P019_SCHEMA, P020_EVENT_OWNERS))).close()
        with psycopg.connect(dsn, autocommit=True) as conn:
            for statement in ROWS:
                conn.execute(statement)
        store = await PgStore.open(dsn)
        try:
            await _check(store)
        finally:
            await store.close()
        with psycopg.connect(dsn, autocommit=True) as conn:
            keys = {
                r[0]
                for r in conn.execute(
                    "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'sessions'::regclass"
                )
            }
            assert "PRIMARY KEY (owner, id)" in keys
    finally:
        pg_cluster.drop_database(name)
