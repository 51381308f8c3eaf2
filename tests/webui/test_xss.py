"""Stored text is data in an HTML context: every probe renders as escaped text on every page."""

from __future__ import annotations

import httpx
import markupsafe
import pytest

from trusted_memory.services.admin import AdminService
from trusted_memory.services.runtime import Runtime

from ._support import XSS_PROBES, add_atom, desk, post, propose

pytestmark = pytest.mark.anyio


async def seed_probes(rt: Runtime) -> list[str]:
    """Put each probe everywhere stored text shows; returns the ids of the atoms made."""
    ids = []
    admin = AdminService(rt)
    for n, probe in enumerate(XSS_PROBES):
        ids.append((await add_atom(rt, f"held {n}: {probe}", "web", project=f"p{n}{probe}")).id)
        ids.append((await add_atom(rt, f"live {n}: {probe}", "user_said", why=probe, how_to_apply=probe)).id)
        await propose(rt, f"extra.probe{n}", f"value {probe}", evidence=f"evidence {probe}")
        await admin.add_fact("user", f"fact {n}: {probe}")
    return ids


def escaped(text: str) -> str:
    return str(markupsafe.escape(text))


def assert_only_escaped(page: str, where: str) -> None:
    """No probe appears raw; each that appears is escaped."""
    for probe in XSS_PROBES:
        if "<" in probe or '"' in probe:
            assert probe not in page, f"raw {probe!r} on {where}"
    assert "<script>alert" not in page and "<img src=x" not in page, where
    assert 'href="javascript:' not in page.lower() and "onerror=alert" not in page.replace("onerror=alert(&#39;", ""), (
        where
    )


async def pages(client: httpx.AsyncClient, ids: list[str]) -> dict[str, str]:
    paths = [
        "/",
        "/browse",
        "/browse?status=all",
        "/browse?tab=facts",
        "/user",
        "/audit",
        "/dashboard",
        "/browse?q=held",
        "/browse?q=live+xss",
    ]
    paths += [f"/atom/{i}" for i in ids]
    out = {}
    for path in paths:
        response = await client.get(path)
        assert response.status_code == 200, path
        out[path] = response.text
    return out


async def test_every_probe_renders_as_text_everywhere(runtime: Runtime) -> None:
    ids = await seed_probes(runtime)
    async with desk(runtime) as (client, _):
        # Forgetting one keeps its text in the audit log: the log page shows it too.
        await post(client, f"/atom/{ids[1]}/forget")
        shown = await pages(client, ids[:1] + ids[2:])
    for path, page in shown.items():
        assert_only_escaped(page, path)
    desk_page = shown["/"]
    for probe in XSS_PROBES:
        assert escaped(probe) in desk_page
    assert escaped(XSS_PROBES[0]) in shown["/browse?tab=facts"]
    assert escaped(XSS_PROBES[2]) in shown["/user"]
    assert "xss-script" in shown["/audit"]


async def test_the_check_catches_an_unescaped_build(runtime: Runtime) -> None:
    # The same pages from a build with autoescape off: the assertion above must fail on them,
    # or it could not catch the bug it is there for.
    ids = await seed_probes(runtime)
    async with desk(runtime, autoescape=False) as (client, _):
        shown = await pages(client, ids)
    caught = set()
    for path, page in shown.items():
        try:
            assert_only_escaped(page, path)
        except AssertionError:
            caught.add(path)
    must = {"/", "/browse?status=all", "/browse?tab=facts", "/user", *[f"/atom/{i}" for i in ids]}
    assert must <= caught, must - caught


def test_templates_never_mark_data_safe() -> None:
    from pathlib import Path

    import trusted_memory.webui as webui

    for template in (Path(webui.__file__).parent / "templates").glob("*.html"):
        text = template.read_text()
        assert "|safe" not in text and "autoescape false" not in text and "Markup" not in text, template.name
