"""The human's review desk in a browser: `trusted-memory-admin ui` serves it on 127.0.0.1.

The MCP server never imports this package (tests/test_architecture.py): nothing here is
reachable from the agent's tools. Every decision is an AdminService call, audited like the CLI.
"""

from __future__ import annotations

from .app import build_app
from .security import Gate

__all__ = ["Gate", "build_app"]
