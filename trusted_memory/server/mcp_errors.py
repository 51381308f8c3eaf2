"""Domain errors become MCP errors here, in one place, by the error's kind.

Every handler in app.py is wrapped in `mcp_errors(surface)`; what a client sees depends on where
the error surfaced, never on a list of classes (each error class carries `kind` and `retryable`):

- a tool: a `ToolError`, so the call returns `is_error=True` for the model to read. Its text is the
  error's own message behind a stable tag, `[kind] ` or `[kind, retryable] `
  (`Error executing tool memory: [rate_limited, retryable] too many writes ...`), which `TAG` parses.
- a resource: `NotFound` is `ResourceNotFoundError` (JSON-RPC -32602, as the SDK reports an unknown
  URI). Anything else is what it is, never "not found": an `MCPError` with the message and
  `data={"kind": ..., "retryable": ...}`, code -32602 for bad input and -32603 otherwise.
- a prompt: an `MCPError` as for a resource (the SDK would hide any other exception's text).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Literal

from mcp import MCPError
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS

from ..errors import InvalidInput, MemoryServerError, NotFound

Surface = Literal["tool", "resource", "prompt"]

# What a tool error's text starts with, after the SDK's "Error executing tool <name>: ".
TAG = re.compile(r"\[(?P<kind>[a-z_]+)(?P<retryable>, retryable)?\] ")


def tagged(exc: MemoryServerError) -> str:
    """The error's message behind its `[kind]` or `[kind, retryable]` tag."""
    return f"[{exc.kind}{', retryable' if exc.retryable else ''}] {exc.message}"


def mcp_error(exc: MemoryServerError, surface: Surface) -> Exception:
    """The MCP error a client sees for a domain error raised on this surface."""
    if surface == "tool":
        return ToolError(tagged(exc))
    if surface == "resource" and isinstance(exc, NotFound):
        return ResourceNotFoundError(exc.message)
    code = INVALID_PARAMS if isinstance(exc, InvalidInput | NotFound) else INTERNAL_ERROR
    return MCPError(code=code, message=exc.message, data={"kind": exc.kind, "retryable": exc.retryable})


@asynccontextmanager
async def mcp_errors(surface: Surface) -> AsyncIterator[None]:
    """Turn domain errors into the surface's MCP errors; usable as a decorator on a handler."""
    try:
        yield
    except MemoryServerError as exc:
        raise mcp_error(exc, surface) from exc
