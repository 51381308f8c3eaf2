"""host_events: which submitted prompts the user did not type, and which tool calls bring in outside content."""

from __future__ import annotations

import pytest

from trusted_memory.services.host_events import classify_tool, machine_prompt, prompt_digest


@pytest.mark.parametrize(
    ("prompt", "relayed"),
    [
        ("<task-notification>\n<task-id>1</task-id>\n<status>completed</status>\n</task-notification>", True),
        ("  \n<TASK-NOTIFICATION><summary>done</summary></TASK-NOTIFICATION>", True),
        ('<agent-message from="reviewer">ship it</agent-message>', True),
        ("<session-message>from another session</session-message>", True),
        ("<command-name>/model</command-name>\n<command-message>model</command-message>", False),
        ("<local-command-stdout>Set model to opus</local-command-stdout>", False),
        ("<local-command-caveat>Caveat: …</local-command-caveat>", False),
        ("<system-reminder>The user opened a file</system-reminder>", False),
        ("This session is being continued from a previous conversation that ran out of context.", False),
        ("[Request interrupted by user for tool use]", False),
    ],
)
def test_host_generated_prompts_are_recognised(prompt: str, relayed: bool) -> None:
    found = machine_prompt(prompt)
    assert found is not None and found.relayed is relayed


@pytest.mark.parametrize(
    "prompt",
    [
        "I prefer pytest over unittest",
        "/deploy staging",  # a slash command the user typed arrives as typed
        "why does <task-notification> show up in my transcript?",
        "Please continue; this session is being continued tomorrow",
    ],
)
def test_typed_prompts_are_the_users(prompt: str) -> None:
    assert machine_prompt(prompt) is None


def test_a_scheduled_prompt_is_recognised_whatever_its_spacing_and_case() -> None:
    assert prompt_digest("Check the build\n") == prompt_digest("  check   the BUILD")
    assert prompt_digest("check the build") != prompt_digest("check the builds")


@pytest.mark.parametrize(
    ("name", "tool_input", "own", "kind"),
    [
        ("mcp__trusted-memory__memory", {"action": "search"}, ("trusted-memory",), None),
        ("mcp__trusted_memory__memory", {"action": "search"}, ("trusted memory",), None),  # the host's "_"
        ("mcp__plugin_mem_trusted-memory__memory", {"action": "add"}, ("trusted-memory",), None),
        ("mcp__trusted-memory__memory", {"action": "list_quarantine"}, ("trusted-memory",), "mcp"),
        ("mcp__trusted-memory__other", {}, ("trusted-memory",), "mcp"),
        ("mcp__evil__memory", {"action": "search"}, ("trusted-memory",), "mcp"),
        ("Agent", {"prompt": "look"}, (), "subagent"),
        ("Task", {"prompt": "look"}, (), "subagent"),
        ("WebFetch", {"url": "https://example.com"}, (), "fetch"),
    ],
)
def test_tool_calls_are_classified(name: str, tool_input: dict[str, object], own: tuple[str, ...], kind: str) -> None:
    call = classify_tool(name, tool_input, own)
    assert call.kind == kind and call.report is (kind is not None) and call.scheduled is None


def test_local_tools_are_not_reported_and_unknown_ones_are() -> None:
    assert not classify_tool("TaskCreate", {"subject": "x"}).matters
    assert not classify_tool("TodoWrite", {"todos": []}).matters
    unknown = classify_tool("NotebookRead", {"file_path": "/etc/passwd"})
    assert unknown.report and unknown.path == "/etc/passwd"  # the session's own rules judge it


def test_scheduling_tools_carry_their_prompt() -> None:
    call = classify_tool("CronCreate", {"cron": "*/5 * * * *", "prompt": "check the build", "recurring": True})
    assert call.scheduled == "check the build" and not call.report
    assert classify_tool("ScheduleWakeup", {"prompt": " "}).scheduled is None
