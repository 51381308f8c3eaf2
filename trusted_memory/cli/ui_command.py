"""`trusted-memory-admin ui`: serve the review desk on 127.0.0.1 and print its one-time login URL."""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
import webbrowser
from typing import Any

from ..errors import InvalidInput
from ..people import check_person_name
from ..services.admin import AdminService
from ..services.admin.insights import AdminInsights

HOST = "127.0.0.1"  # never a wider address: the desk is the human gate


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError("a port is 0-65535 (0 picks a free one)")
    return value


def add_ui_command(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register `ui` on the admin CLI's subcommands."""
    sub = commands.add_parser(
        "ui",
        parents=[common],
        help="open the review desk in a browser (127.0.0.1 only)",
        description="Serve the review desk on 127.0.0.1 and print a one-time login URL; Ctrl-C stops it. "
        "With `trusted-memory-admin --as NAME ui` the desk is that person's: a member sees and decides "
        "only their own records and cannot approve team-wide (global) memory.",
    )
    sub.add_argument("--port", type=_port, default=0, help="port on 127.0.0.1 (default: a free one)")
    sub.add_argument("--no-browser", action="store_true", help="only print the URL; do not open a browser")
    sub.set_defaults(run=cmd_ui)


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:port (0 = any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this: without it a kept-alive browser connection waits ~40 ms
    # per response (Nagle against delayed ACK), measured by benchmarks/webui_pages.py.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise InvalidInput(f"cannot listen on {HOST}:{port} ({exc.strerror}); pick another --port or 0") from None
    sock.listen(64)
    sock.setblocking(False)
    return sock


async def cmd_ui(admin: AdminService, args: argparse.Namespace) -> int:
    """Serve the desk until interrupted."""
    import uvicorn  # lazy: only this command needs the HTTP server

    from ..webui import Gate, build_app

    person = check_person_name(args.as_person) if getattr(args, "as_person", None) else None
    sock = bind(args.port)
    port = int(sock.getsockname()[1])
    gate = Gate(port, person=person)
    app = build_app(admin, AdminInsights(admin.runtime), gate)
    config = uvicorn.Config(app, log_level="warning", access_log=False, server_header=False, lifespan="off")
    server = uvicorn.Server(config)
    url = gate.login_url()
    print(f"review desk: {url}", flush=True)
    whose = f"{person}'s desk (re-checked on every request)" if person else "the operator's desk (every record)"
    print(f"{whose}; the link logs in one browser, once; Ctrl-C stops the desk", file=sys.stderr, flush=True)
    if not args.no_browser and has_screen():
        await asyncio.to_thread(_open, url)
    await server.serve(sockets=[sock])
    return 0


def has_screen() -> bool:
    """True where a graphical browser can open; on a bare terminal `webbrowser` would start a text
    browser in the foreground and take over the terminal the desk prints to."""
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _open(url: str) -> None:
    try:
        webbrowser.open(url, new=2)
    except webbrowser.Error:
        pass  # no browser here: the printed URL is enough
