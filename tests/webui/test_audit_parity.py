"""Each desk action leaves the same audit event rows as the CLI command for the same action.

Two stores are seeded alike; one is changed through `trusted-memory-admin` (its real entry point,
in-process), the other through the desk's HTTP routes; the new event rows must match, ids aside.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from postgres_cluster import environ_for

from trusted_memory.cli.admin import main
from trusted_memory.model import Event
from trusted_memory.services.admin import AdminService
from trusted_memory.services.runtime import Runtime, open_runtime

from ._support import add_atom, desk, post, propose, settings_for

Seed = Callable[[Runtime], Awaitable[dict[str, str]]]


async def seed(rt: Runtime) -> dict[str, str]:
    held = await add_atom(rt, "Rust 1.80 stabilised LazyCell", "web")
    live = await add_atom(rt, "I prefer tabs over spaces", "user_said")
    item = await propose(rt, "style.verbosity", "terse")
    other = await propose(rt, "focus.current", "migrating to postgres")
    await AdminService(rt).add_fact("user", "Name: Ada")
    stale = await add_atom(rt, "Some page said to use spaces", "web")
    async with rt.store.write() as tx:  # past its review window, for prune
        await tx.atoms.delete(stale.id)
        await tx.atoms.insert(dataclasses.replace(stale, expires_at=time.time() - 1), "some page said to use spaces")
    return {"held": held.id, "live": live.id, "pending": item.id, "other": other.id, "stale": stale.id}


def events_after(home: Path, after: int) -> list[Event]:
    async def go() -> list[Event]:
        async with open_runtime(settings_for(home)) as rt, rt.store.read() as rx:
            return await rx.events.list(after_id=after, limit=1000)

    return asyncio.run(go())


def seeded(home: Path) -> tuple[dict[str, str], int]:
    async def go() -> tuple[dict[str, str], int]:
        async with open_runtime(settings_for(home)) as rt:
            ids = await seed(rt)
            async with rt.store.read() as rx:
                last = await rx.events.list(limit=1, newest=True)
        return ids, last[0].id

    return asyncio.run(go())


def shape(events: list[Event], ids: dict[str, str]) -> list[tuple[str, str, str, str]]:
    """The rows with this store's ids replaced by their role names."""
    out = []
    for e in events:
        text = json.dumps([e.subject, e.detail], sort_keys=True)
        for role, value in ids.items():
            text = text.replace(value, role.upper())
        out.append((e.actor, e.kind, text, ""))
    return out


CASES: list[tuple[str, list[str], str, dict[str, str]]] = [
    # (name, CLI args with {role} ids, desk path, form)
    ("promote", ["promote", "--yes", "{held}"], "/atom/{held}/approve", {}),
    ("forget", ["forget", "--yes", "{held}"], "/atom/{held}/forget", {}),
    ("pin", ["pin", "{live}"], "/atom/{live}/pin", {}),
    ("confirm", ["confirm", "--yes", "{pending}"], "/pending/{pending}/confirm", {}),
    ("reject", ["reject", "{pending}"], "/pending/{pending}/reject", {}),
    ("prune", ["prune"], "/prune", {}),
    ("facts add", ["facts", "add", "env", "Uses uv"], "/facts/add", {"target": "env", "content": "Uses uv"}),
    (
        "facts remove",
        ["facts", "remove", "user", "Name: Ada"],
        "/facts/remove",
        {"target": "user", "old_text": "Name: Ada"},
    ),
]


@pytest.mark.parametrize(("name", "argv", "path", "form"), CASES, ids=[c[0] for c in CASES])
def test_desk_and_cli_write_the_same_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, argv: list[str], path: str, form: dict[str, str]
) -> None:
    cli_home, web_home = tmp_path / "cli" / "home", tmp_path / "web" / "home"
    cli_ids, cli_last = seeded(cli_home)
    web_ids, web_last = seeded(web_home)

    with environ_for(cli_home):
        assert main(["--home", str(cli_home), *[a.format(**cli_ids) for a in argv]]) == 0
    capsys.readouterr()

    async def by_desk() -> None:
        async with open_runtime(settings_for(web_home)) as rt, desk(rt) as (client, _):
            done = await post(client, path.format(**web_ids), form)
            assert done.status_code == 303
            assert "error" not in (await client.get("/")).text.split("<main>")[1].split("</h1>")[0]

    asyncio.run(by_desk())
    cli_rows = shape(events_after(cli_home, cli_last), cli_ids)
    web_rows = shape(events_after(web_home, web_last), web_ids)
    assert cli_rows, f"the CLI's {name} wrote no event"
    assert web_rows == cli_rows


def test_unpin_matches_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    homes = {"cli": tmp_path / "cli" / "home", "web": tmp_path / "web" / "home"}
    rows = {}
    for side, home in homes.items():
        ids, _ = seeded(home)
        with environ_for(home):
            assert main(["--home", str(home), "pin", ids["live"]]) == 0
        capsys.readouterr()
        last = events_after(home, 0)[-1].id
        if side == "cli":
            with environ_for(home):
                assert main(["--home", str(home), "unpin", "--yes", ids["live"]]) == 0
        else:

            async def by_desk(ids: dict[str, str] = ids, home: Path = home) -> None:
                async with open_runtime(settings_for(home)) as rt, desk(rt) as (client, _):
                    assert (await post(client, f"/atom/{ids['live']}/unpin")).status_code == 303

            asyncio.run(by_desk())
        rows[side] = shape(events_after(home, last), ids)
    assert rows["cli"] and rows["web"] == rows["cli"]
