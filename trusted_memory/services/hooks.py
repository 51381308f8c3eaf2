"""The trusted capture path: host hooks hand the server the user's real prompt, never via the model.

A hook runs as a command the host starts with the prompt it is about to send; what the hook passes
here is the user's own text, so it is recorded as `user_said` even in strict mode, with actor
`system`. Everything an agent relays through MCP stays agent-declared.
"""

from __future__ import annotations

from .episodes import EndResult
from .runtime import Runtime
from .session import ObserveResult, ToolEvent
from .wiring import build_services


class HostHooks:
    """What a host hook may do: observe the real prompt, print context, note replies and tools, end."""

    def __init__(self, runtime: Runtime) -> None:
        self._sessions = build_services(runtime).sessions

    async def prompt(self, session_id: str, prompt: str, project: str | None) -> tuple[ObserveResult, str]:
        """Observe the user's prompt as their own words, and render the memory block for it."""
        observed = await self._sessions.observe(session_id, prompt, project=project, actor="system", trusted_path=True)
        block = await self._sessions.context(prompt, session_id=session_id, project=project)
        return observed, block.rendered

    async def reply(self, session_id: str, reply: str) -> None:
        """Record the assistant's reply of the current turn."""
        await self._sessions.record_reply(session_id, reply)

    async def tool(self, session_id: str, event: ToolEvent, project: str | None) -> str | None:
        """Note a tool call; web, MCP and sub-agent content mark the session untrusted."""
        return await self._sessions.mark_untrusted(session_id, [event], project)

    async def end(self, session_id: str) -> EndResult:
        """Summarise and close the session."""
        return await self._sessions.end_session(session_id, actor="system")
