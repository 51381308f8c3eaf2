"""The review desk in a real browser: Debian's Chromium driven by Playwright, against the installed `ui`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from ._support import (
    XSS_PROBES,
    add_atom,
    admin_view,
    audit_kinds,
    child_env,
    propose,
    running_ui,
    script,
)

pytestmark = [pytest.mark.browser, pytest.mark.anyio]


async def logged_in(browser: Any, url: str) -> Any:
    """A fresh browser context logged in with the URL's token; returns its page (on the desk)."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    await page.goto(url)
    assert page.url.endswith("/"), page.url
    return page


async def mcp(home: Path, **arguments: Any) -> Any:
    """One call of the `memory` tool on the installed `trusted-memory` over stdio (its own process)."""
    server = StdioServerParameters(command=str(script("trusted-memory")), env=child_env(home))
    async with Client(server) as client:
        return (await client.call_tool("memory", arguments)).structured_content


async def test_the_token_logs_in_once(browser: Any, home: Path) -> None:
    with running_ui(home) as url:
        page = await logged_in(browser, url)
        assert await page.locator("h1").inner_text() == "Review desk"
        cookies = await page.context.cookies()
        (cookie,) = cookies
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert await page.evaluate("document.cookie") == ""  # HttpOnly: no script can read it
        stranger = await (await browser.new_context()).new_page()
        response = await stranger.goto(url)
        assert response is not None and response.status == 403
        assert "spent or wrong" in await stranger.locator("h1").inner_text()
        response = await stranger.goto(url.split("/login")[0] + "/")
        assert response is not None and response.status == 401


async def test_approve_on_the_desk_then_recalled_over_mcp_by_another_process(browser: Any, home: Path) -> None:
    added = await mcp(home, action="add_atom", content="The quarterly review moved to Thursday", source="web")
    assert added["status"] == "quarantined"
    atom_id = added["notice"].split()[-1]
    assert atom_id not in str(await mcp(home, action="search_atoms", query="quarterly review Thursday"))
    with running_ui(home) as url:
        page = await logged_in(browser, url)
        card = page.locator("[data-card]").first
        assert "The quarterly review moved to Thursday" in await card.inner_text()
        assert "web" in await card.inner_text()
        await card.focus()
        await page.keyboard.press("a")  # the desk's shortcut for approve
        await page.wait_for_selector(".flash.ok")
        assert "approved atom" in await page.locator(".flash.ok").inner_text()
        assert "The quarantine is empty." in await page.content()
    found = await mcp(home, action="search_atoms", query="when is the quarterly review?")
    assert found["hits"][0]["id"] == atom_id
    assert await audit_kinds(home, f"atom:{atom_id}") == ["atom_quarantined", "atom_promoted"]


async def test_edit_then_approve_with_the_keyboard(browser: Any, home: Path) -> None:
    atom = await add_atom(home, "Rust 1.80 stabilised LazyCel", "web")
    with running_ui(home) as url:
        page = await logged_in(browser, url)
        await page.locator("[data-card]").first.focus()
        await page.keyboard.press("e")
        area = page.locator("details[data-edit] textarea").first
        assert await area.evaluate("el => el === document.activeElement")
        await area.fill("Rust 1.80 stabilised LazyCell")
        await page.get_by_role("button", name="Approve edited text").click()
        await page.wait_for_selector(".flash.ok")
    stored = await admin_view(home, atom.id)
    assert stored is not None and stored.text == "Rust 1.80 stabilised LazyCell" and stored.status == "live"


async def test_skip_moves_on_without_deciding(browser: Any, home: Path) -> None:
    first = await add_atom(home, "A page said spaces", "web")
    await add_atom(home, "Another page said tabs", "web")
    with running_ui(home) as url:
        page = await logged_in(browser, url)
        await page.locator("[data-card]").first.focus()
        await page.keyboard.press("s")
        assert await page.locator("#card-2").evaluate("el => el === document.activeElement")
        assert "skipped" in (await page.locator("#card-1").get_attribute("class") or "")
    assert await admin_view(home, first.id) is not None


async def test_reject_a_pending_inference(browser: Any, home: Path) -> None:
    item = await propose(home, "current_focus.project", "migrating to postgres", evidence="mentioned the migration")
    with running_ui(home) as url:
        page = await logged_in(browser, url)
        await page.get_by_role("link", name="User model").click()
        row = page.locator(f"#pending-{item.id}")
        assert "mentioned the migration" in await row.inner_text()
        await row.get_by_role("button", name="Reject").click()
        await page.wait_for_selector(".flash.ok")
        assert "rejected current_focus.project" in await page.locator(".flash.ok").inner_text()
        assert await page.locator(f"#pending-{item.id}").count() == 0
    assert await audit_kinds(home, f"pending:{item.id}") == ["pending_added", "pending_rejected"]


async def test_search_then_forget(browser: Any, home: Path) -> None:
    keep = await add_atom(home, "I prefer dark mode in every editor", "user_said")
    gone = await add_atom(home, "The deploy script runs on Fridays", "user_said")
    with running_ui(home) as url:
        page = await logged_in(browser, url)
        await page.get_by_role("link", name="Browse & search").click()
        await page.keyboard.press("/")
        await page.keyboard.type("when does the deploy script run")
        await page.keyboard.press("Enter")
        await page.wait_for_selector("table.list")
        first = page.locator("table.list tbody tr").first
        assert "deploy script runs on Fridays" in await first.inner_text()
        await first.get_by_role("link").click()
        page.once("dialog", lambda dialog: dialog.accept())
        await page.get_by_role("button", name="Forget").click()
        await page.wait_for_selector(".flash.ok")
        assert "forgot atom" in await page.locator(".flash.ok").inner_text()
    assert await admin_view(home, gone.id) is None and await admin_view(home, keep.id) is not None


async def test_every_xss_probe_renders_as_text(browser: Any, home: Path) -> None:
    ids = []
    for n, probe in enumerate(XSS_PROBES):
        ids.append((await add_atom(home, f"held {n}: {probe}", "web", project=f"p{n}{probe}")).id)
        ids.append((await add_atom(home, f"live {n}: {probe}", "user_said", why=probe)).id)
        await propose(home, f"profile.probe{n}", f"value {probe}", evidence=f"evidence {probe}")
    with running_ui(home) as url:
        page = await logged_in(browser, url)
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        base = url.split("/login")[0]
        for path in ["/", "/browse?status=all", "/user", "/browse?q=live", *[f"/atom/{i}" for i in ids]]:
            await page.goto(base + path)
            text = await page.locator("main").inner_text()
            assert any(probe in text for probe in XSS_PROBES), path  # shown, as text
            assert await page.locator("main img").count() == 0, path
            assert await page.locator("main script").count() == 0, path
            assert await page.locator("main a[href^='javascript' i]").count() == 0, path
        await page.goto(base + "/")
        shown = await page.locator("main").inner_text()
        for probe in XSS_PROBES:
            assert probe in shown  # the exact characters, as text
        # Clicking the text that looks like a link goes nowhere.
        await page.get_by_text("docs</a>", exact=False).first.click()
        assert page.url == base + "/"
        assert dialogs == [], dialogs
