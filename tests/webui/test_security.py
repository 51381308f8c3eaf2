"""The desk's door, over HTTP against the real app: token, cookie, CSRF, Host, Origin, CSP, no CORS."""

from __future__ import annotations

import pytest

from trusted_memory.model import Atom
from trusted_memory.services.runtime import Runtime
from trusted_memory.webui.app import POSTS

from ._support import ORIGIN, add_atom, csrf_of, desk, post

pytestmark = pytest.mark.anyio


async def runtime_atom(rt: Runtime, atom_id: str) -> Atom:
    async with rt.store.read() as rx:
        atom = await rx.atoms.get(atom_id)
    assert atom is not None
    return atom


async def test_without_the_token_every_page_is_refused(runtime: Runtime) -> None:
    async with desk(runtime, login=False) as (client, _):
        for path in ("/", "/browse", "/dashboard", "/user", "/audit", "/atom/abc"):
            response = await client.get(path)
            assert response.status_code == 401, path
            assert "trusted-memory-admin ui" in response.text


async def test_the_token_logs_in_once_with_a_strict_httponly_cookie(runtime: Runtime) -> None:
    async with desk(runtime, login=False) as (client, gate):
        wrong = await client.get("/login?token=not-the-token")
        assert wrong.status_code == 403 and "set-cookie" not in wrong.headers
        first = await client.get(f"/login?token={gate.token}")
        assert first.status_code == 303
        cookie = first.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
        assert (await client.get("/")).status_code == 200
    async with desk(runtime, login=False) as (other, _):
        # Another app's gate has its own token: this one's spent token means nothing there.
        again = await other.get(f"/login?token={gate.token}")
        assert again.status_code == 403
    assert gate.used


async def test_a_spent_token_opens_no_second_session(runtime: Runtime) -> None:
    async with desk(runtime) as (client, gate):
        client.cookies.clear()
        again = await client.get(f"/login?token={gate.token}")
        assert again.status_code == 403 and "set-cookie" not in again.headers
        assert (await client.get("/")).status_code == 401
        assert len(gate.sessions) == 1


async def test_a_forged_cookie_is_no_session(runtime: Runtime) -> None:
    async with desk(runtime, login=False) as (client, gate):
        client.cookies.set(gate.cookie_name, "guessed")
        assert (await client.get("/")).status_code == 401


async def test_every_post_route_needs_the_csrf_token(runtime: Runtime) -> None:
    atom = await add_atom(runtime, "Rust 1.80 stabilised LazyCell", "web")
    async with desk(runtime) as (client, _):
        for path, _run in POSTS:
            url = path.replace("{atom_id}", atom.id).replace("{review_id}", "x").replace("{key}", "x")
            for data in ({}, {"csrf": "wrong"}):
                response = await client.post(url, data=data, headers=ORIGIN)
                assert response.status_code == 403, (url, data)
                assert "CSRF" in response.text
    still = await runtime_atom(runtime, atom.id)
    assert still.status == "quarantined"


async def test_the_right_csrf_token_from_the_own_origin_acts(runtime: Runtime) -> None:
    atom = await add_atom(runtime, "Rust 1.80 stabilised LazyCell", "web")
    async with desk(runtime) as (client, _):
        done = await post(client, f"/atom/{atom.id}/approve", {"next": "/"})
        assert done.status_code == 303 and done.headers["location"] == "/"
        assert "approved atom" in (await client.get("/")).text
    assert (await runtime_atom(runtime, atom.id)).status == "live"


@pytest.mark.parametrize("origin", [None, "http://evil.example", "null", "http://127.0.0.1:1"])
async def test_a_post_from_another_origin_is_refused_even_with_the_token(runtime: Runtime, origin: str | None) -> None:
    atom = await add_atom(runtime, "Rust 1.80 stabilised LazyCell", "web")
    async with desk(runtime) as (client, _):
        token = csrf_of((await client.get("/")).text)
        headers = {"origin": origin} if origin else {}
        response = await client.post(f"/atom/{atom.id}/approve", data={"csrf": token}, headers=headers)
        assert response.status_code == 403
    assert (await runtime_atom(runtime, atom.id)).status == "quarantined"


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.1:9", "0.0.0.0:8765"])
async def test_a_foreign_host_header_is_refused(runtime: Runtime, host: str) -> None:
    async with desk(runtime) as (client, _):
        response = await client.get("/", headers={"host": host})
        assert response.status_code == 421
        assert (await client.get("/", headers={"host": "localhost:8765"})).status_code == 200


async def test_headers_set_a_strict_csp_and_no_cors(runtime: Runtime) -> None:
    async with desk(runtime) as (client, _):
        for path in ("/", "/dashboard", "/static/desk.js", "/login?token=x"):
            response = await client.get(path, headers={"origin": "http://evil.example"})
            csp = response.headers["content-security-policy"]
            assert "script-src 'self'" in csp and "default-src 'none'" in csp and "unsafe-inline" not in csp
            assert "frame-ancestors 'none'" in csp
            assert not any(h.lower().startswith("access-control-") for h in response.headers), path
            assert response.headers["x-content-type-options"] == "nosniff"
        preflight = await client.request("OPTIONS", "/atom/x/approve", headers={"origin": "http://evil.example"})
        assert preflight.status_code == 405
        assert not any(h.lower().startswith("access-control-") for h in preflight.headers)


async def test_pages_carry_no_inline_script(runtime: Runtime) -> None:
    async with desk(runtime) as (client, _):
        for path in ("/", "/browse", "/browse?tab=facts", "/dashboard", "/user", "/audit"):
            html = (await client.get(path)).text
            assert "<script>" not in html and " on" + "click=" not in html and "style=" not in html, path
            assert '<script src="/static/desk.js" defer></script>' in html


async def test_a_redirect_never_leaves_the_desk(runtime: Runtime) -> None:
    atom = await add_atom(runtime, "Rust 1.80 stabilised LazyCell", "web")
    async with desk(runtime) as (client, _):
        for target in ("https://evil.example/", "//evil.example", "/\\evil.example"):
            done = await post(client, f"/atom/{atom.id}/pin", {"next": target})
            assert done.headers["location"] == "/", target


async def test_an_oversized_or_unsized_change_is_refused(runtime: Runtime) -> None:
    atom = await add_atom(runtime, "Rust 1.80 stabilised LazyCell", "web")
    async with desk(runtime) as (client, _):
        token = csrf_of((await client.get("/")).text)
        big = await client.post(
            f"/atom/{atom.id}/approve-edited", data={"csrf": token, "text": "x" * 600_000}, headers=ORIGIN
        )
        assert big.status_code == 413

        async def chunks():  # type: ignore[no-untyped-def]
            yield f"csrf={token}".encode()

        unsized = await client.post(f"/atom/{atom.id}/approve", content=chunks(), headers=ORIGIN)
        assert unsized.status_code == 413
    assert (await runtime_atom(runtime, atom.id)).status == "quarantined"
