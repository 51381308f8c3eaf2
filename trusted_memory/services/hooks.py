"""The trusted capture path: host hooks hand the server the user's real prompt, never via the model.

A hook runs as a command the host starts with the prompt it is about to send; what the hook passes
here is the user's own text, so it is recorded as `user_said` even in strict mode, with actor
`system`. Everything an agent relays through MCP stays agent-declared.

A prompt the host generated itself (host_events.py) is not observed; one that carries another
agent's output marks the session untrusted. Scheduled prompts carry no marker, so the hook
remembers the ones it sees scheduled (a digest, in the audit log) and recognises them when they
fire, in any session: a durable cron job outlives the session that created it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..store.base import Reader
from .episodes import EndResult
from .host_events import MachinePrompt, ToolCall, machine_prompt, prompt_digest
from .runtime import Runtime
from .session import ObserveResult, ToolEvent, check_session_id
from .wiring import build_services

SCHEDULED_EVENT = "prompt_scheduled"
MAX_SCHEDULED_LOOKUP = 500


@dataclass(frozen=True, slots=True)
class PromptResult:
    """What the prompt hook did: the observed turn (None when the prompt was skipped) and the block."""

    observed: ObserveResult | None
    skipped: MachinePrompt | None
    block: str


class HostHooks:
    """What a host hook may do: observe the real prompt, print context, note replies and tools, end."""

    def __init__(self, runtime: Runtime) -> None:
        self._store = runtime.store
        self._sessions = build_services(runtime).sessions

    async def start(self, session_id: str, project: str | None) -> str:
        """The block for a session start (Claude Code's SessionStart): facts and where they left off."""
        return await self._sessions.session_start(session_id, project)

    async def prompt(self, session_id: str, prompt: str, project: str | None) -> PromptResult:
        """Render the block for the prompt, then observe the prompt as the user's own words (unless the
        host made it up).

        The block comes first so that it does not echo the prompt: the model has the prompt already,
        and neither its buffer line nor the memories just formed from it belong in the block."""
        skipped = machine_prompt(prompt)
        if skipped is None and await self._was_scheduled(prompt):
            skipped = MachinePrompt("the prompt of a scheduled task", relayed=False)
        block = await self._sessions.context(prompt, session_id=session_id, project=project)
        observed = None
        if skipped is None:
            observed = await self._sessions.observe(
                session_id, prompt, project=project, actor="system", trusted_path=True
            )
        elif skipped.relayed:
            await self._sessions.mark_untrusted(session_id, [ToolEvent(skipped.reason, kind="subagent")], project)
        return PromptResult(observed, skipped, block.rendered)

    async def scheduled(self, session_id: str, prompts: Iterable[str], via: str) -> int:
        """Remember prompts the host will submit by itself later (cron jobs, wake-ups); returns how many are new."""
        digests = {prompt_digest(p) for p in prompts if p.strip()}
        if not digests:
            return 0
        subject = f"session:{check_session_id(session_id)}"
        async with self._store.write() as tx:
            new = sorted(digests - await _known_digests(tx))
            for digest in new:
                await tx.events.record("system", SCHEDULED_EVENT, subject, {"digest": digest, "via": via})
        return len(new)

    async def reply(self, session_id: str, reply: str) -> None:
        """Record the assistant's reply of the current turn."""
        await self._sessions.record_reply(session_id, reply)

    async def tool(self, session_id: str, call: ToolCall, project: str | None) -> str | None:
        """Note a tool call; web, MCP and sub-agent content mark the session untrusted."""
        if call.scheduled is not None:
            await self.scheduled(session_id, [call.scheduled], via=call.tool)
        if not call.report:
            return None
        event = ToolEvent(call.tool, kind=call.kind, url=call.url, path=call.path, server=call.server)
        return await self._sessions.mark_untrusted(session_id, [event], project)

    async def end(self, session_id: str) -> EndResult:
        """Summarise and close the session."""
        return await self._sessions.end_session(session_id, actor="system")

    async def _was_scheduled(self, prompt: str) -> bool:
        async with self._store.read() as rx:
            return prompt_digest(prompt) in await _known_digests(rx)


async def _known_digests(rx: Reader) -> set[str]:
    events = await rx.events.list(kind=SCHEDULED_EVENT, limit=MAX_SCHEDULED_LOOKUP, newest=True)
    return {str(e.detail.get("digest")) for e in events}
