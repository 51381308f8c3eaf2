"""Salvage what rows a damaged store file still holds into a fresh store (stdlib sqlite3, sync).

Used by `trusted-memory-admin doctor --repair` when the file cannot be opened or fails SQLite's
integrity check. The damaged file is first set aside untouched (as evidence and for a manual
recovery later); rows are then read from a temporary working copy, table by table, skipping the
parts that cannot be read, and inserted into the freshly migrated store at the original path.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# Tables worth saving, in an order that never breaks a reference. meta is rebuilt by migrations.
TABLES: tuple[str, ...] = ("facts", "atoms", "pending_reviews", "user_model", "events", "event_previews")
# Columns holding JSON the rest of the code parses blindly: a damaged value would crash readers.
JSON_COLUMNS: dict[str, dict[str, type]] = {
    "facts": {"keywords": list},
    "atoms": {"tags": list, "related": list},
    "events": {"detail": dict},
}
SIDE_FILES = ("", "-wal", "-shm")
MIN_ROWID = -(2**63)
PROBE_LIMIT = 100_000  # rowids read one by one after a jump; bounds the time a huge gap costs


@dataclass(frozen=True, slots=True)
class TableSalvage:
    """What was recovered from one table."""

    table: str
    copied: int
    read_errors: int
    rejected: int
    error: str | None = None


def set_aside(path: Path) -> Path:
    """Rename the damaged file (and its WAL/SHM) to `<name>.corrupt-<timestamp>`; returns the new path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while any(Path(f"{aside}{s}").exists() for s in SIDE_FILES):
        n += 1
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    for suffix in SIDE_FILES:
        src = Path(f"{path}{suffix}")
        if src.exists():
            os.replace(src, f"{aside}{suffix}")
    return aside


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [str(r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")').fetchall()]


def _probe(conn: sqlite3.Connection, select: str, lo: int, hi: int) -> tuple[list[tuple[object, ...]], int]:
    """Rows with lo <= rowid < hi read one at a time (a span a jump passed over), and the errors hit."""
    rows: list[tuple[object, ...]] = []
    errors = 0
    for rowid in range(max(lo, 0), min(hi, max(lo, 0) + PROBE_LIMIT)):
        try:
            got = conn.execute(f"{select} WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.DatabaseError:
            errors += 1
            continue
        if got is not None:
            rows.append(tuple(got[1:]))
    return rows, errors


def _read_table(conn: sqlite3.Connection, table: str, columns: list[str]) -> tuple[list[tuple[object, ...]], int]:
    """Every readable row in rowid order, and how many read errors were stepped over."""
    names = ", ".join(f'"{c}"' for c in columns)
    select = f'SELECT rowid, {names} FROM "{table}"'
    try:
        row = conn.execute(f'SELECT max(rowid) FROM "{table}"').fetchone()
        max_rowid: int | None = int(row[0]) if row and row[0] is not None else None
    except sqlite3.DatabaseError:
        max_rowid = None
    rows: list[tuple[object, ...]] = []
    errors = 0
    start, step = MIN_ROWID, 1
    skipped_from: int | None = None  # where the span a jump passed over begins
    while True:
        try:
            for got in conn.execute(f"{select} WHERE rowid >= ? ORDER BY rowid", (start,)):
                if skipped_from is not None:
                    # The jump may have passed good rows on other pages: read that span row by row.
                    found, missed = _probe(conn, select, skipped_from, int(got[0]))
                    rows.extend(found)
                    errors += missed
                    skipped_from = None
                rows.append(tuple(got[1:]))
                start, step = int(got[0]) + 1, 1
            break
        except sqlite3.DatabaseError:
            errors += 1
            if skipped_from is None:
                skipped_from = start
            if max_rowid is None or start >= max_rowid or errors > 10_000:
                break
            # Step over the damaged span, doubling the jump so a long bad run ends in few tries.
            if start == MIN_ROWID:
                start = 1  # failed before the first row: retry from the usual first rowid
            else:
                start += step
                step *= 2
    if skipped_from is not None and max_rowid is not None:
        found, missed = _probe(conn, select, skipped_from, max_rowid + 1)
        rows.extend(found)
        errors += missed
    return rows, errors


def _sound(table: str, columns: list[str], row: tuple[object, ...]) -> bool:
    for name, kind in JSON_COLUMNS.get(table, {}).items():
        if name not in columns:
            continue
        value = row[columns.index(name)]
        try:
            if not isinstance(value, str) or not isinstance(json.loads(value), kind):
                return False
        except ValueError:
            return False
    return True


def copy_rows(damaged: Path, fresh: Path, tables: tuple[str, ...] = TABLES) -> list[TableSalvage]:
    """Copy every readable, schema-valid row of `damaged` into the migrated store at `fresh`."""
    results: list[TableSalvage] = []
    with tempfile.TemporaryDirectory(prefix="trusted-memory-salvage-") as tmp:
        # Read a copy: opening the evidence itself could checkpoint its WAL and change it.
        work = Path(tmp) / "damaged.db"
        for suffix in SIDE_FILES[:2]:
            if Path(f"{damaged}{suffix}").exists():
                shutil.copyfile(f"{damaged}{suffix}", f"{work}{suffix}")
        src = sqlite3.connect(str(work), isolation_level=None)
        dst = sqlite3.connect(str(fresh), isolation_level=None, timeout=5.0)
        try:
            dst.execute("BEGIN IMMEDIATE")
            for table in tables:
                results.append(_copy_table(src, dst, table))
            dst.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'change_counter'")
            dst.execute("COMMIT")
        except BaseException:
            if dst.in_transaction:
                dst.execute("ROLLBACK")
            raise
        finally:
            src.close()
            dst.close()
    return results


def _copy_table(src: sqlite3.Connection, dst: sqlite3.Connection, table: str) -> TableSalvage:
    try:
        have = _columns(src, table)
    except sqlite3.DatabaseError as exc:
        return TableSalvage(table, 0, 1, 0, str(exc))
    if not have:
        return TableSalvage(table, 0, 0, 0, "table missing")
    want = _columns(dst, table)
    columns = [c for c in have if c in want]
    rows, errors = _read_table(src, table, columns)
    copied = rejected = 0
    names = ", ".join(f'"{c}"' for c in columns)
    sql = f'INSERT OR IGNORE INTO "{table}"({names}) VALUES ({", ".join("?" * len(columns))})'
    for row in rows:
        if not _sound(table, columns, row):
            rejected += 1
            continue
        try:
            cur = dst.execute(sql, row)
        except sqlite3.Error:
            rejected += 1
            continue
        if cur.rowcount > 0:
            copied += 1
        else:
            rejected += 1
    return TableSalvage(table, copied, errors, rejected)
