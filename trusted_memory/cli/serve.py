"""`trusted-memory`: the server's entry point (stdio by default)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from .. import VERSION
from ..config import load_settings
from ..errors import MemoryServerError
from ..server.transports import serve
from .threads import fewer_malloc_arenas


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trusted-memory",
        description="Long-term memory for AI agents over MCP. With no command, serves stdio.",
    )
    parser.add_argument("--version", action="version", version=f"trusted-memory {VERSION}")
    commands = parser.add_subparsers(dest="command")
    serve = commands.add_parser("serve", help="serve MCP over stdio, SSE or streamable HTTP")
    serve.add_argument("--transport", choices=("stdio", "sse", "http"), help="default: stdio")
    serve.add_argument("--host", help="bind address for sse/http (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port for sse/http (default 8765)")
    serve.add_argument("--token", help="bearer token required on sse/http (or MCP_MEMORY_SERVER__TOKEN)")
    # SUPPRESS on the subcommand: its default must not reset `trusted-memory --home X serve`.
    for sub, default in ((parser, None), (serve, argparse.SUPPRESS)):
        sub.add_argument("--home", default=default, help="store folder (default ~/.mcp-memory, or MCP_MEMORY_HOME)")
        sub.add_argument("--log-level", default=default, choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, load the settings once, and serve."""
    args = _parser().parse_args(argv)
    fewer_malloc_arenas()
    overrides = {
        "home": args.home,
        "log_level": args.log_level,
        "server.transport": getattr(args, "transport", None),
        "server.host": getattr(args, "host", None),
        "server.port": getattr(args, "port", None),
        "server.token": getattr(args, "token", None),
    }
    try:
        settings = load_settings(overrides=overrides)
        # Logs go to stderr: on stdio, stdout is the protocol channel.
        logging.basicConfig(
            stream=sys.stderr, level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
        )
        serve(settings)
    except MemoryServerError as exc:
        print(f"trusted-memory: {exc.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0
