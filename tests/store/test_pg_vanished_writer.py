"""A server holding PostgreSQL's write lock whose machine vanishes: its process is stopped (SIGSTOP)
inside a write transaction, so it neither commits, nor rolls back, nor closes its connection, as a
host that lost power or network would not. Its writer session's idle-in-transaction limit
(store.idle_in_transaction_s, short here) ends the session: the lock is free, the other servers'
writes go on, its unacknowledged write is gone and its acknowledged one stays. Resumed, it learns
its write failed; it is never told the write landed.

SIGSTOP stops the process, not its kernel, which still answers TCP keepalives: so this shows the
idle-in-transaction limit at work, not the keepalives (a peer that is really gone answers neither;
store.keepalives_* bound how long the database waits for it when it is not idle in a transaction).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator

import pytest
from postgres_cluster import Cluster

from trusted_memory.config import StoreSettings
from trusted_memory.store.postgres.db import PgStore

pytestmark = [pytest.mark.anyio, pytest.mark.postgres]

IDLE_S = 3.0  # the stopped writer's session limit
# A server whose writer waits on the lock: its own lock timeout is long, so the write that goes on
# is let through by the stopped one's session ending, not by giving up.
WAITER = StoreSettings(lock_timeout_s=60.0)

# The server that vanishes: one acknowledged write, then a write transaction it sits in (the test
# stops it there), and on resuming the outcome of that write's commit.
WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from trusted_memory.config import StoreSettings
    from trusted_memory.store.postgres.db import PgStore

    async def main() -> None:
        store = await PgStore.open(sys.argv[1], limits=StoreSettings(idle_in_transaction_s=float(sys.argv[2])))
        async with store.write() as tx:
            await tx.events.append("system", "vanish-test", "acknowledged")
        print("ACKED", flush=True)
        try:
            async with store.write() as tx:
                await tx.events.append("system", "vanish-test", "unacknowledged")
                print("IN-TX", flush=True)
                await asyncio.sleep(float(sys.argv[2]) * 2)  # stopped here; on resuming the time is up
            print("COMMITTED", flush=True)
        except Exception as exc:
            print(f"FAILED {type(exc).__name__}: {exc}", flush=True)
        finally:
            await store.close()

    asyncio.run(main())
    """
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def dsn(pg_cluster: Cluster) -> Iterator[str]:
    name = pg_cluster.new_database()
    try:
        yield pg_cluster.dsn(name)
    finally:
        pg_cluster.drop_database(name)


def read_line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    assert line, proc.stderr.read() if proc.stderr else "the writer ended"
    return line


async def subjects(store: PgStore) -> list[str]:
    async with store.read() as rx:
        async with rx.conn.execute("SELECT subject FROM events WHERE kind = 'vanish-test' ORDER BY id") as cur:
            return [str(r[0]) for r in await cur.fetchall()]


async def test_a_stopped_writer_loses_the_lock_after_its_session_limit_and_only_its_unacknowledged_write(
    dsn: str,
) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, dsn, str(IDLE_S)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    other = await PgStore.open(dsn, limits=WAITER)
    try:
        assert read_line(proc) == "ACKED"
        assert read_line(proc) == "IN-TX"
        os.kill(proc.pid, signal.SIGSTOP)  # it holds the write lock, its transaction open
        stopped = time.monotonic()
        async with other.write() as tx:  # waits for the lock until the stopped writer's session ends
            await tx.events.append("system", "vanish-test", "other server")
        waited = time.monotonic() - stopped
        assert IDLE_S - 1.5 <= waited <= IDLE_S + 20, waited
        assert await subjects(other) == ["acknowledged", "other server"]
        async with other.write() as tx:  # and the writes after it go on at once
            await tx.events.append("system", "vanish-test", "other server again")

        os.kill(proc.pid, signal.SIGCONT)  # the machine comes back: its write is refused, not landed
        outcome = read_line(proc)
        assert outcome.startswith("FAILED") and "COMMITTED" not in outcome, outcome
        assert proc.wait(timeout=30) == 0
        assert await subjects(other) == ["acknowledged", "other server", "other server again"]
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)
            proc.kill()
        proc.communicate()  # reaps it and closes its pipes
        await other.close()


async def test_the_session_limits_are_the_settings(dsn: str) -> None:
    limits = StoreSettings(
        idle_in_transaction_s=1.5, lock_timeout_s=7, keepalives_idle_s=4, keepalives_interval_s=2, keepalives_count=5
    )
    store = await PgStore.open(dsn, limits=limits)
    try:
        async with store.write() as tx:
            async with tx.conn.execute(
                "SELECT current_setting('idle_in_transaction_session_timeout'), current_setting('lock_timeout'), "
                "current_setting('tcp_keepalives_idle'), current_setting('tcp_keepalives_interval'), "
                "current_setting('tcp_keepalives_count')"
            ) as cur:
                row = await cur.fetchone()
        assert tuple(row) == ("1500ms", "7s", "4", "2", "5")
    finally:
        await store.close()
