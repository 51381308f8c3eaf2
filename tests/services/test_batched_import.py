"""An import applies atoms, events, links and vectors a run at a time (transfer.BATCH records of one
kind: one look-up and one insert run each). Across several runs it lands what one record at a time
lands, record for record, and a record the store refuses in the third run leaves the store as it was.

BATCH is lowered here so a few hundred records cross several runs (a run of 2,000 needs a store of
thousands; benchmarks/migrate_scale.py runs those sizes).
"""

from __future__ import annotations

import io
import itertools
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import backdoor
import pytest
from postgres_cluster import store_env_for

from trusted_memory.config import Settings, load_settings
from trusted_memory.errors import InvalidInput
from trusted_memory.services.admin import transfer
from trusted_memory.services.admin.transfer import apply_import, export_jsonl, parse_import
from trusted_memory.services.atoms import AtomDraft, build_atom
from trusted_memory.services.runtime import Runtime, open_runtime

pytestmark = pytest.mark.anyio

T = TypeVar("T")
RUN = 40
ATOMS = 5 * RUN + 17  # six runs of atoms, of their events, of their vectors; the last one short
SUBJECTS = ("billing", "search", "deploys", "the wiki", "on-call", "the mobile app", "payments", "CI")


def settings_of(home: Path, tmp_path: Path) -> Settings:
    return load_settings(environ={"MCP_MEMORY_HOME": str(home), **store_env_for(home)}, cwd=tmp_path)


async def on_store(home: Path, tmp_path: Path, work: Callable[[Runtime], Awaitable[T]]) -> T:
    async with open_runtime(settings_of(home, tmp_path)) as runtime:
        return await work(runtime)


async def populate(rt: Runtime) -> None:
    """Atoms (some held: a web source) with their events, their vectors, and links between them."""
    async with rt.store.write() as tx:
        for i in range(ATOMS):
            source = "web" if i % 7 == 3 else "user_said"
            text = f"Memory {i}: {SUBJECTS[i % len(SUBJECTS)]} moved to region {i % 5} in week {i // 5}"
            atom, norm = build_atom(AtomDraft(text, source, atom_type="fact"), rt.settings, strict=False)
            await tx.atoms.insert(atom, norm)
            kind = "atom_added" if atom.status == "live" else "atom_quarantined"
            await tx.events.append("agent", kind, f"atom:{atom.id}", {"type": atom.type, "preview": text[:80]})
    await rt.recall.drain_queue()
    async with rt.store.read() as rx:
        nums = sorted(n for n, _, _, _ in await rx.recall.vectors_since(await rx.recall.space(), 0))
    async with rt.store.write() as tx:
        await tx.recall.link([(a, b, "semantic", 0.5) for a, b in itertools.pairwise(nums)])


async def export_text(rt: Runtime) -> str:
    out = io.StringIO()
    await export_jsonl(rt, out.write)
    return out.getvalue()


def records(text: str) -> list[dict[str, Any]]:
    """An export's records: no header, and none of the events an import appends itself (`import`)."""
    rows = [json.loads(line) for line in text.splitlines() if line.strip()][1:]
    return [r for r in rows if not (r["kind"] == "event" and r["event_kind"] == "import")]


async def import_file(rt: Runtime, path: Path) -> transfer.ImportReport:
    with path.open("rb") as fh:
        return await apply_import(rt, parse_import(fh, path.name))


async def test_an_import_of_several_runs_lands_what_one_record_at_a_time_lands(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with open_runtime(settings) as source:
        await populate(source)
        first = await export_text(source)
    dump = tmp_path / "dump.jsonl"
    # The file also brings what only a look-up of the store and of the run so far catches: an atom,
    # an event and a vector twice (the copy in a later run), and a link to an atom that is not there.
    lines = first.splitlines()
    atom_line = next(line for line in lines if '"kind":"atom"' in line)
    event_line = next(line for line in lines if '"kind":"event"' in line)
    vector_line = next(line for line in lines if '"kind":"vector"' in line)
    link = json.loads(next(line for line in lines if '"kind":"association"' in line))
    stray = json.dumps({**link, "dst": "0" * 32})
    dump.write_text("\n".join([*lines, atom_line, event_line, vector_line, stray]) + "\n")
    kinds = [json.loads(line)["kind"] for line in lines[1:]]
    assert all(kinds.count(k) > 4 * RUN for k in ("atom", "event", "vector", "association"))

    monkeypatch.setattr(transfer, "BATCH", RUN)
    batched = await on_store(tmp_path / "batched", tmp_path, lambda rt: import_file(rt, dump))
    monkeypatch.setattr(transfer, "BATCH", 1)
    single = await on_store(tmp_path / "single", tmp_path, lambda rt: import_file(rt, dump))

    assert batched.added == single.added and batched.skipped == single.skipped
    assert batched.quarantined == single.quarantined and batched.renumbered == single.renumbered
    assert batched.added["atom"] == ATOMS and batched.skipped["atom"] == 1
    assert batched.skipped["event"] == batched.skipped["vector"] == batched.skipped["association"] == 1
    assert batched.added["vector"] == sum(1 for k in kinds if k == "vector")
    got = records(await on_store(tmp_path / "batched", tmp_path, export_text))
    assert got == records(await on_store(tmp_path / "single", tmp_path, export_text))
    # Every atom, vector and link as the source holds it; every event as an import records it.
    source_rows = records(first)
    assert [r for r in got if r["kind"] != "event"] == [r for r in source_rows if r["kind"] != "event"]
    events = [r for r in got if r["kind"] == "event"]
    assert [(e["id"], e["ts"], e["detail"]["kind"]) for e in events] == [
        (e["id"], e["ts"], e["event_kind"]) for e in source_rows if e["kind"] == "event"
    ]

    # The same file again changes nothing: every record is found in the store, run by run.
    monkeypatch.setattr(transfer, "BATCH", RUN)
    again = await on_store(tmp_path / "batched", tmp_path, lambda rt: import_file(rt, dump))
    assert not {k: n for k, n in again.added.items() if n}
    assert records(await on_store(tmp_path / "batched", tmp_path, export_text)) == got


def refuse_atom(home: Path, atom_id: str) -> None:
    """A rule of the target store the import's validation does not know: it refuses one atom's row."""
    if store_env_for(home):
        backdoor.execute(
            home,
            "CREATE FUNCTION refuse_one() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"IF NEW.id = '{atom_id}' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$",
        )
        backdoor.execute(
            home, "CREATE TRIGGER refuse_one BEFORE INSERT ON atoms FOR EACH ROW EXECUTE FUNCTION refuse_one()"
        )
    else:
        backdoor.execute(
            home,
            f"CREATE TRIGGER refuse_one BEFORE INSERT ON atoms WHEN NEW.id = '{atom_id}' "
            "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
        )


async def test_a_record_refused_in_the_third_run_leaves_the_store_as_it_was(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with open_runtime(settings) as source:
        await populate(source)
        dump = tmp_path / "dump.jsonl"
        dump.write_text(await export_text(source))
    atom_ids = [r["id"] for r in records(dump.read_text()) if r["kind"] == "atom"]
    target = tmp_path / "target"

    async def before(rt: Runtime) -> str:
        async with rt.store.write() as tx:
            await tx.facts.insert("user", "Name is Sam", key="name", pinned=False, keywords=(), ts=1.0)
            await tx.events.append("admin", "fact_added", "fact:1", {"note": "there before the import"})
        return await export_text(rt)

    held = await on_store(target, tmp_path, before)
    refuse_atom(target, atom_ids[2 * RUN + 5])  # the sixth atom of the third run
    monkeypatch.setattr(transfer, "BATCH", RUN)
    with pytest.raises(InvalidInput) as refused:
        await on_store(target, tmp_path, lambda rt: import_file(rt, dump))
    # The runs before it (every event, two runs of atoms) went in the same transaction: all rolled back.
    message = refused.value.message
    assert "refused by the test" in message and "nothing was imported" in message and "atom records" in message
    assert records(await on_store(target, tmp_path, export_text)) == records(held)
    assert backdoor.query(target, "SELECT COUNT(*) FROM atoms")[0][0] == 0
    assert backdoor.query(target, "SELECT COUNT(*) FROM embed_queue")[0][0] == 0
