"""`tools/call` of the `memory` tool served without the SDK's tool layers, answered as they would answer.

Why: a call that does next to nothing cost ~0.7 ms of server CPU against ~0.35 ms for a `ping`;
the difference is mostly the high-level server's own layers between the runner and our handler
(the request's surface validation and typed params, a `Context`, `Tool.run` with its argument
model, the result's conversion, dump and per-version sieve), each a few Python frames and pydantic
passes (benchmarks/RESULTS.md, issue 13, seventh pass). A server middleware (the SDK's documented
`ServerMiddleware`, as `NoListChanges` is) may answer a request itself with its wire dict, so this
one serves the common case and hands everything else to the SDK unchanged (`call_next`):

- another method or tool, a request before `initialize` (the SDK's gate answers it), a 2026-07-28
  connection (its results carry an envelope of their own), params other than `name` and
  `arguments` (`_meta`, `requestState`, ...), arguments that are not an object, or an `action`
  that is not a string (the SDK's argument model names the problem).

What it keeps of the SDK's path, in the SDK's words: string arguments of the non-`str` parameters
decoded as JSON (`FuncMetadata.pre_parse_json`), the parameters the schema does not name left out
of `arguments` (the body reports them), the output checked against the tool's output schema
(`FuncMetadata.convert_result`), an error's text `Error executing tool memory: <message>` (a crash:
`Error executing tool memory`, the traceback logged), and the result's wire form as the handshake
era's surface dumps it. `tests/server/test_direct_calls.py` compares the two paths byte for byte.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent
from mcp_types import methods
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

log = logging.getLogger(__name__)

# What the tool body gets: the request's context and the arguments the SDK's model would hand it.
RunTool = Callable[[ServerRequestContext[Any, Any], dict[str, Any]], Awaitable[CallToolResult]]
_PARAMS = frozenset({"name", "arguments"})


class DirectToolCalls:
    """Middleware serving `tools/call` of one tool (see the module docstring for when it steps aside)."""

    def __init__(self, tool: Tool, run: RunTool) -> None:
        self._tool = tool
        self._run = run
        self._names = tuple(tool.fn_metadata.arg_model.model_fields)
        if tool.context_kwarg is None or set(self._names) != set(tool.parameters.get("properties", {})):
            raise TypeError(f"tool {tool.name!r}: the direct path needs a context parameter and no hidden one")
        if tool.resolved_params:
            raise TypeError(f"tool {tool.name!r} has resolved parameters: leave its calls to the SDK")

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Answer a plain call of the tool; pass anything else on."""
        arguments = self._plain_call(ctx)
        if arguments is None:
            return await call_next(ctx)
        try:
            result = self._tool.fn_metadata.convert_result(await self._run(ctx, arguments))
        except MCPError:
            raise  # a protocol error, as the SDK lets it through
        except (ToolError, ResourceError) as exc:  # deliberate: its text reaches the model
            log.info("Tool %r failed: %r", self._tool.name, f"Error executing tool {self._tool.name}: {exc}")
            return _error(f"Error executing tool {self._tool.name}: {exc}")
        except Exception:
            log.exception("Tool %r raised an unexpected exception", self._tool.name)
            return _error(f"Error executing tool {self._tool.name}")
        if not isinstance(result, CallToolResult):
            raise TypeError(f"tool {self._tool.name!r} returned {type(result).__name__}")
        return wire_result(result, ctx.protocol_version)

    def _plain_call(self, ctx: ServerRequestContext[Any, Any]) -> dict[str, Any] | None:
        """The arguments as the SDK's model would pass them, or None when the SDK should serve the call."""
        params = ctx.params
        if ctx.method != "tools/call" or params is None or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return None
        if params.get("name") != self._tool.name or not params.keys() <= _PARAMS:
            return None
        if ctx.session.client_params is None:
            return None  # not initialised (or initialised without client info): the SDK's gate decides
        raw = params.get("arguments")
        if not isinstance(raw, dict) or not isinstance(raw.get("action"), str):
            return None
        given = self._tool.fn_metadata.pre_parse_json(raw)
        return {name: given.get(name) for name in self._names}


def wire_result(result: CallToolResult, version: str = "2025-11-25") -> dict[str, Any]:
    """A tool result as the SDK's surface for `version` dumps it, key order included.

    The tool's own results (plain text blocks) are written out directly; anything else takes
    the SDK's surface dump (`serialize_server_result`), whose key order differs by block type.
    """
    if result.meta is not None or not all(_plain_text(block) for block in result.content):
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return methods.serialize_server_result("tools/call", version, dumped)
    out: dict[str, Any] = {
        "content": [{"text": block.text, "type": "text"} for block in result.content],  # type: ignore[union-attr]
        "isError": result.is_error,
    }
    if result.structured_content is not None:
        out["structuredContent"] = result.structured_content
    return out


def _plain_text(block: Any) -> bool:
    return isinstance(block, TextContent) and block.annotations is None and block.meta is None


def _error(text: str) -> dict[str, Any]:
    return {"content": [{"text": text, "type": "text"}], "isError": True}
