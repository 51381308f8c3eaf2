"""Export the store as lossless JSONL (the native format described in services/admin/transfer.py).

The operator (nobody acting, or an admin at the CLI) exports the whole store, every person's
records with their owners, so a backup or a migration loses nothing. A member of a team's store
(`--as NAME export`) exports what they may see: the atoms their agent sees (their own, and the live
shared project and global ones), the links and vectors of those atoms only, and of everything else
their own: facts, pending inferences, user-model fields, sessions with their buffers, transcripts,
notes, nudges and chat-import keys, episodes, and their own events, those of their user model
and of records since deleted included (store/events.py::owned_events_sql). Each read applies that
view in the store's SQL.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping

from ...model import Event
from ...queries import AtomFilter
from ...store.base import now
from ..runtime import Runtime
from .transfer_records import (
    FORMAT,
    NATIVE_KINDS,
    VERSION,
    ExportReport,
    ImportKey,
    Link,
    Nudge,
    ProgressSink,
    UserModelField,
    encode_blob,
)

PAGE = 1000


def _plain(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


def to_record(kind: str, value: object) -> dict[str, object]:
    """The export record of a domain value: `kind` first, then every dataclass field."""
    rename = {"kind": "event_kind"} if isinstance(value, Event) else {}
    body = {rename.get(f.name, f.name): _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}  # type: ignore[arg-type]
    return {"kind": kind, **body}


def dumps(record: Mapping[str, object]) -> str:
    """One JSONL line."""
    # ASCII escapes keep hidden or bidi characters of quarantined text visible, and inert,
    # when someone reads the file in a terminal or an editor.
    return json.dumps(record, ensure_ascii=True, separators=(",", ":"))


async def export_jsonl(
    runtime: Runtime,
    write: Callable[[str], object],
    progress: ProgressSink | None = None,
) -> ExportReport:
    """Write every record the acting person may see (the operator: the whole store) as JSONL lines,
    each ending in a newline, through `write`."""
    store = runtime.store
    counts = dict.fromkeys(NATIVE_KINDS, 0)
    everything = AtomFilter(status=None, include_expired=True)
    ts = now()
    # One read snapshot: the file is consistent even while servers keep writing.
    async with store.read() as rx:
        schema = await rx.schema_version()
        facts = await rx.facts.list()
        pending = await rx.pending.list(now=ts, include_expired=True)
        model = await rx.pending.model_fields_seen()
        n_atoms = await rx.atoms.count(everything, now=ts)
        n_events = await rx.events.count(owned=True)
        space = await rx.recall.space()
        sessions = await rx.transfer.sessions()
        notes = await rx.transfer.notes()
        episodes = await rx.transfer.episodes()
        links = await rx.transfer.links()
        vectors = await rx.transfer.vectors()
        nudges = await rx.transfer.nudges()
        keys = await rx.transfer.import_keys()
        if progress:
            small = len(sessions) + len(notes) + len(episodes) + len(links) + len(vectors) + len(nudges) + len(keys)
            progress.start(len(facts) + n_atoms + len(pending) + len(model) + n_events + small, "export")

        def emit(kind: str, record: Mapping[str, object]) -> None:
            write(dumps(record) + "\n")
            counts[kind] += 1
            if progress:
                progress.advance()

        write(
            dumps(
                {
                    "kind": "header",
                    "format": FORMAT,
                    "version": VERSION,
                    "schema_version": schema,
                    "exported_at": ts,
                    "embedding_space": space,
                }
            )
            + "\n"
        )
        for entry in facts:
            emit("fact", to_record("fact", entry))
        offset = 0
        while batch := await rx.atoms.list(everything, now=ts, limit=PAGE, offset=offset, newest_first=False):
            for atom in batch:
                emit("atom", to_record("atom", atom))
            offset += len(batch)
        for item in pending:
            emit("pending", to_record("pending", item))
        for owner, path, value, source_class, updated_at, evidence in model:
            field = UserModelField(path, value, source_class, updated_at, evidence, owner)
            emit("user_model", to_record("user_model", field))
        for session in sessions:
            buffer = await rx.sessions.buffer(session.id, owner=session.owner)
            transcript = [list(turn) for turn in await rx.transfer.transcript(session)]
            emit("session", {**to_record("session", session), "buffer": buffer, "transcript": transcript})
        for note in notes:
            emit("session_note", to_record("session_note", note))
        for episode, scale, blob in episodes:
            emit("episode", {**to_record("episode", episode), "scale": scale, "vec": encode_blob(blob)})
        for src, dst, link_kind, weight in links:
            emit("association", to_record("association", Link(src, dst, link_kind, weight)))
        for atom_id, vec_space, scale, blob in vectors:
            emit(
                "vector",
                {"kind": "vector", "atom_id": atom_id, "space": vec_space, "scale": scale, "vec": encode_blob(blob)},
            )
        for row in nudges:
            emit("nudge", to_record("nudge", Nudge(*row)))
        for key in keys:
            emit("import_key", to_record("import_key", ImportKey(*key)))
        after = 0
        while events := await rx.events.list(after_id=after, limit=PAGE, owned=True):
            for event in events:
                emit("event", to_record("event", event))
            after = events[-1].id
    if progress:
        progress.close()
    return ExportReport(counts, schema, ts)
