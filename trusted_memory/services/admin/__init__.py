"""The admin side: what only a human, through trusted-memory-admin, may do.

Promotion, confirmation, unpinning, doctor and the lossless export/import live here, apart from
the agent-side services, so the architecture test can forbid the whole subtree to the MCP server.
Only cli/ imports this package.
"""

from __future__ import annotations

from .service import AdminService, PruneReport

__all__ = ["AdminService", "PruneReport"]
