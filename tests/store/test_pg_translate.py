"""The SQLite-dialect statements the repositories write, as PostgreSQL receives them (no server needed)."""

from __future__ import annotations

import psycopg
import pytest

from trusted_memory.dsn import redacted
from trusted_memory.errors import StoreBusy, StoreError
from trusted_memory.store.postgres.conn import explicit_key_table, translate
from trusted_memory.store.postgres.db import map_pg_errors


@pytest.mark.parametrize(
    ("sqlite", "postgres"),
    [
        ("SELECT num FROM atoms WHERE id = ?", "SELECT num FROM atoms WHERE id = %s"),
        # A literal ? or % inside a string is text, not a placeholder.
        ("SELECT '?', x FROM t WHERE y LIKE '%a' AND z = ?", "SELECT '?', x FROM t WHERE y LIKE '%%a' AND z = %s"),
        (
            "INSERT OR IGNORE INTO embed_queue(atom_num) VALUES (?)",
            "INSERT INTO embed_queue(atom_num) VALUES (%s) ON CONFLICT DO NOTHING",
        ),
        (
            "INSERT OR REPLACE INTO vectors(atom_num, space, seq, scale, vec) VALUES (?, ?, ?, ?, ?)",
            "INSERT INTO vectors(atom_num, space, seq, scale, vec) VALUES (%s, %s, %s, %s, %s) ON CONFLICT (atom_num) "
            "DO UPDATE SET space = EXCLUDED.space, seq = EXCLUDED.seq, scale = EXCLUDED.scale, vec = EXCLUDED.vec",
        ),
        # The conflict clause goes before a RETURNING, where PostgreSQL's grammar has it.
        (
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, (SELECT 1)) RETURNING value",
            "INSERT INTO meta(key, value) VALUES (%s, (SELECT 1)) ON CONFLICT (key) "
            "DO UPDATE SET value = EXCLUDED.value "
            "RETURNING value",
        ),
        (
            "INSERT OR IGNORE INTO embed_queue(atom_num) VALUES (?) RETURNING atom_num",
            "INSERT INTO embed_queue(atom_num) VALUES (%s) ON CONFLICT DO NOTHING RETURNING atom_num",
        ),
        (
            "SELECT num FROM atoms INDEXED BY atoms_session WHERE session_id = ?",
            "SELECT num FROM atoms WHERE session_id = %s",
        ),
        ("SELECT num FROM atoms NOT INDEXED WHERE num IN (?)", "SELECT num FROM atoms WHERE num IN (%s)"),
        (
            "SELECT text || COALESCE(char(10) || cue, '') FROM atoms",
            "SELECT text || COALESCE(chr(10) || cue, '') FROM atoms",
        ),
        ("SELECT json_extract(detail, '$.findings') FROM events", "SELECT (detail::jsonb ->> 'findings') FROM events"),
        ("SELECT CAST(ts / ? AS INTEGER) AS day FROM events", "SELECT floor(ts / %s)::bigint AS day FROM events"),
        (
            "SELECT 1 WHERE EXISTS (SELECT 1 FROM json_each(atoms.tags) WHERE json_each.value = ?)",
            "SELECT 1 WHERE jsonb_exists(atoms.tags::jsonb, %s)",
        ),
        (
            "UPDATE pending_reviews SET confidence = MAX(confidence, ?) WHERE id = ?",
            "UPDATE pending_reviews SET confidence = GREATEST(confidence, %s) WHERE id = %s",
        ),
    ],
)
def test_each_sqlite_form_has_its_postgres_form(sqlite: str, postgres: str) -> None:
    assert translate(sqlite) == postgres


def test_an_import_that_sets_keys_moves_the_identity_on() -> None:
    assert explicit_key_table("INSERT OR IGNORE INTO events(id, ts, actor) VALUES (?, ?, ?)") == "events"
    assert explicit_key_table("INSERT INTO events(ts, actor) VALUES (?, ?)") is None


@pytest.mark.parametrize(
    ("dsn", "shown"),
    [
        ("postgresql://bob:s3cret@db.example:5433/memory", "postgresql://bob@db.example:5433/memory"),
        ("host=10.0.0.5 port=5432 user=memory password='a b' dbname=team", "postgresql://memory@10.0.0.5:5432/team"),
        ("postgres://db/team", "postgresql://db/team"),
    ],
)
def test_a_connection_string_is_shown_without_its_password(dsn: str, shown: str) -> None:
    assert redacted(dsn) == shown and "s3cret" not in redacted(dsn)


@pytest.mark.parametrize(
    ("error", "kind", "says"),
    [
        (psycopg.errors.DeadlockDetected("deadlock detected"), StoreBusy, "rolled back a write transaction"),
        (psycopg.errors.SerializationFailure("could not serialize access"), StoreBusy, "rolled back"),
        (psycopg.errors.LockNotAvailable("lock timeout"), StoreBusy, "stayed busy"),
        (psycopg.OperationalError("server closed the connection unexpectedly"), StoreError, "is unreachable"),
    ],
)
def test_postgres_errors_become_the_stores_own(error: psycopg.Error, kind: type[StoreError], says: str) -> None:
    """A deadlock or serialization failure is a retryable rollback, not an unreachable server."""
    with pytest.raises(kind) as raised, map_pg_errors("db"):
        raise error
    assert says in str(raised.value) and str(error) in str(raised.value)
    assert (kind is StoreBusy) == raised.value.retryable
