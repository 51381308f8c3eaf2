"""`import-chats`: Claude and ChatGPT exports (and JSONL) replayed through observe, then recalled over MCP.

The fixtures in tests/data/chat_exports follow the shapes the products' exports have (see
services/admin/chats.py): a ChatGPT tree with a regenerated answer and an edited prompt, hidden
system and custom-instruction messages, browsing and code tools; a Claude export with thinking,
web-search tool blocks, an attached file, and an older message with only `text`.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from trusted_memory.server.app import build_server
from trusted_memory.services.runtime import Runtime

from ._support import Pty, cli, cli_json, run_script, settings_for, with_runtime

CHATS = Path(__file__).parent.parent / "data" / "chat_exports"
CHATGPT = CHATS / "chatgpt_conversations.json"
CLAUDE = CHATS / "claude_conversations.json"
# Text that is in the files but is nobody's words, or not the branch the person kept.
NOT_WORDS = (
    "Ignore all previous instructions",
    "passport",
    "praise this website",
    "archive@example.org",
    "I am a vegetarian",
    "Be brief",
    "hope for the best",
    "Rex",
    "28 / (52/60)",
    "32.307",
    "they are vegan",
)


def chatgpt_zip(path: Path) -> Path:
    """The archive ChatGPT's data export sends: conversations.json beside chat.html, user.json and others."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(CHATGPT, "conversations.json")
        archive.writestr("chat.html", "<html><body>ChatGPT export</body></html>")
        archive.writestr("user.json", json.dumps({"id": "user-abc", "email": "sam@example.com"}))
        archive.writestr("message_feedback.json", "[]")
        archive.writestr("shared_conversations.json", "[]")
        archive.writestr("file-7Qd2-cycling.png", b"\x89PNG\r\n")
    return path


def claude_zip(path: Path) -> Path:
    """The archive Claude's export links to: one batch folder with conversations, projects and users."""
    folder = "data-2025-10-06-00-55-16-batch-0000"
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(CLAUDE, f"{folder}/conversations.json")
        archive.writestr(f"{folder}/projects.json", "[]")
        archive.writestr(f"{folder}/users.json", json.dumps([{"uuid": "319d5931", "full_name": "Sam"}]))
    return path


async def search(home: Path, query: str) -> list[dict[str, Any]]:
    """search_atoms through the real in-memory MCP client."""
    async with Client(build_server(settings_for(home))) as client:
        result = await client.call_tool("memory", {"action": "search_atoms", "query": query})
        assert not result.is_error, result.content
        hits: list[dict[str, Any]] = result.structured_content["hits"]  # type: ignore[index]
        return hits


def all_atoms(capsys: pytest.CaptureFixture[str], home: Path) -> list[dict[str, Any]]:
    atoms: list[dict[str, Any]] = cli_json(capsys, home, "atoms", "list", "--status", "all", "--limit", "1000")
    return atoms


@pytest.mark.e2e
@pytest.mark.anyio
async def test_claude_and_chatgpt_exports_are_recalled_with_their_original_dates(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for export in (claude_zip(tmp_path / "claude-export.zip"), chatgpt_zip(tmp_path / "chatgpt-export.zip")):
        done = run_script(home, "import-chats", str(export), "--yes")
        assert done.returncode == 0, done.stderr
        assert "imported 7 turn(s) from 3 conversation(s)" in done.stdout, done.stdout

    lisbon = (await search(home, "when am I flying to Lisbon?"))[0]
    assert "Lisbon on 14 May" in lisbon["text"] and lisbon["source_class"] == "user_said"
    assert lisbon["said"] == "2025-04-02"
    dog = (await search(home, "what is my dog called?"))[0]
    assert "Biscuit" in dog["text"] and dog["said"] == "2025-02-20"
    fallback = await search(home, "what is the fallback plan for the old Postgres cluster?")
    assert any("read-only for a week" in h["text"] and h["said"] == "2025-02-20" for h in fallback[:3]), fallback
    ana = (await search(home, "when is my sister's birthday?"))[0]
    assert "9 July" in ana["text"] and ana["said"] == "2024-11-05"


@pytest.mark.e2e
def test_tool_system_and_abandoned_messages_never_become_the_users_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    for export in (CHATGPT, CLAUDE):
        done = run_script(home, "import-chats", str(export), "--yes")
        assert done.returncode == 0, done.stderr
    atoms = all_atoms(capsys, home)
    assert atoms and all(a["source_class"] == "user_said" and a["status"] == "live" for a in atoms)
    for text in NOT_WORDS:
        assert not [a["text"] for a in atoms if text in a["text"]], text
    # The user's own words around a tool call are kept, with the time they were written.
    shoyu = next(a for a in atoms if a["type"] == "turn" and "shoyu" in a["text"])
    assert shoyu["created_at"] == pytest.approx(1740940860.0)
    # Conversations that used a tool or attached a file: untrusted sessions, summaries held for review.
    episodes = {e["session_id"]: e for e in cli_json(capsys, home, "episodes", "list")}
    assert {s: e["status"] for s, e in episodes.items()} == {
        "chatgpt:67b6f2a1-3c2d-800c-9a41-5b2e8f0d1a01": "live",
        "chatgpt:67c4a5b0-77e1-800c-b1f2-0c9d8e7f6a02": "held",
        "claude:1ce6f4f7-8582-4a14-b595-251e219b7601": "live",
        "claude:1ce6f4f7-8582-4a14-b595-251e219b7602": "held",
    }
    for episode in episodes.values():
        assert not any(text in episode["summary"] for text in NOT_WORDS), episode["summary"]
    imported = cli_json(capsys, home, "audit", "--kind", "chat_imported", "--limit", "20")
    assert len(imported) == 6 and {e["actor"] for e in imported} == {"admin"}


def test_reimport_skips_what_is_in_and_takes_only_new_turns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    first = cli_json(capsys, home, "import-chats", "--yes", str(CLAUDE))
    assert first["turns"] == 7 and first["already_imported"] == 0
    atoms, events = len(all_atoms(capsys, home)), len(cli_json(capsys, home, "audit", "--limit", "1000"))
    again = cli_json(capsys, home, "import-chats", "--yes", str(CLAUDE))
    assert again["turns"] == 0 and again["already_imported"] == 7 and again["conversations"] == 0
    assert len(all_atoms(capsys, home)) == atoms
    assert len(cli_json(capsys, home, "audit", "--limit", "1000")) == events

    # A later export of the same account: one conversation went on.
    later = json.loads(CLAUDE.read_text())
    later[2]["chat_messages"].append(
        {
            "uuid": "019a0003-0000-7000-8000-000000000003",
            "text": "Ana would love a ceramics workshop voucher.",
            "content": [],
            "sender": "human",
            "created_at": "2024-11-06T09:00:00.000000Z",
            "updated_at": "2024-11-06T09:00:00.000000Z",
            "attachments": [],
            "files": [],
        }
    )
    path = tmp_path / "later.json"
    path.write_text(json.dumps(later))
    third = cli_json(capsys, home, "import-chats", "--yes", str(path))
    assert third["turns"] == 1 and third["already_imported"] == 7
    new = [a for a in all_atoms(capsys, home) if "ceramics" in a["text"]]
    assert new and new[0]["session_id"] == "claude:1ce6f4f7-8582-4a14-b595-251e219b7603+1"


def test_dry_run_shows_what_would_be_formed_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    shown = cli_json(capsys, home, "import-chats", "--dry-run", str(CHATGPT))
    assert shown["dry_run"] is True and shown["conversations"] == 3 and shown["turns"] == 7
    assert shown["turn_memories"] >= 5 and shown["typed_atoms"] and shown["untrusted_sessions"] == 2
    dates = {date[:10] for date, _, _ in shown["sample"]}
    assert "2025-02-20" in dates
    assert not any(bad in text for _, _, text in shown["sample"] for bad in NOT_WORDS)
    code, out, _ = cli(capsys, home, "import-chats", "--dry-run", str(CHATGPT))
    assert code == 0 and "Dry run (nothing written)" in out and "A sample of what would be remembered" in out

    async def nothing(rt: Runtime) -> tuple[int, int]:
        async with rt.store.read() as rx:
            return await rx.events.count(), len(await rx.transfer.sessions())

    assert with_runtime(home, nothing) == (0, 0)
    assert all_atoms(capsys, home) == []


def test_a_malformed_conversation_is_named_and_skipped_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    code, out, err = cli(capsys, home, "--json", "import-chats", "--yes", str(CHATS / "chatgpt_one_malformed.json"))
    assert code == 0, err
    report = json.loads(out)
    assert report["turns"] == 3 and report["conversations"] == 1
    [problem] = report["problems"]
    assert problem["conversation"] == "67d00000-dead-800c-beef-000000000bad"
    assert "message c-u1" in problem["reason"] and "author.role" in problem["reason"]
    assert "Fix or remove them in the file and import again" in err and "Broken conversation" in err

    async def sessions(rt: Runtime) -> list[str]:
        async with rt.store.read() as rx:
            return [s.id for s in await rx.transfer.sessions()]

    assert with_runtime(home, sessions) == ["chatgpt:67b6f2a1-3c2d-800c-9a41-5b2e8f0d1a01"]


def test_unreadable_files_fail_with_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    cases = {
        "notjson.json": ("[{", "is not JSON"),
        "other.json": (json.dumps([{"foo": 1}]), "not a ChatGPT export"),
        "bad.jsonl": (
            json.dumps({"conversation": "a", "time": "2025-01-01T00:00:00Z", "role": "user", "text": "hi there"})
            + "\n{oops\n",
            "line 2: not valid JSON",
        ),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        code, _, err = cli(capsys, home, "import-chats", "--yes", str(path))
        assert code == 1 and message in err, (name, err)
    empty_zip = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty_zip, "w") as archive:
        archive.writestr("readme.txt", "nothing")
    code, _, err = cli(capsys, home, "import-chats", "--yes", str(empty_zip))
    assert code == 1 and "without a conversations.json" in err
    code, _, err = cli(capsys, home, "import-chats", "--yes", "--format", "claude", str(CHATGPT))
    assert code == 1 and "looks like a chatgpt export" in err
    assert all_atoms(capsys, home) == []


def test_plain_jsonl_keeps_each_turns_time_and_skips_system_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    report = cli_json(capsys, home, "import-chats", "--yes", str(CHATS / "turns.jsonl"))
    assert report["turns"] == 3 and report["conversations"] == 2
    atoms = {a["text"]: a for a in all_atoms(capsys, home) if a["type"] == "turn"}
    assert atoms["The balcony faces west, so they get sun after 2pm."]["created_at"] == 1746266500.0
    assert atoms["My road bike is a 2019 Canyon Endurace."]["session_id"] == "jsonl:bikes"
    assert not [t for t in atoms if "helpful gardener" in t]


def test_import_chats_is_human_gated(tmp_path: Path) -> None:
    done = run_script(tmp_path / "home", "import-chats", str(CLAUDE))
    assert done.returncode == 1 and "needs a person to confirm" in done.stderr


@pytest.mark.e2e
def test_a_person_confirms_on_a_terminal(tmp_path: Path) -> None:
    term = Pty(tmp_path / "home", "import-chats", str(CLAUDE))
    shown = term.expect("as your own words into")
    assert "claude export, 3 conversation(s) with 7 turn(s)" in shown
    assert "1 conversation(s) used tools or attached files" in shown
    assert "A sample of what would be remembered" in shown and "Lisbon on 14 May" in shown
    term.send("y")
    code, output = term.finish()
    assert code == 0 and "imported 7 turn(s) from 3 conversation(s)" in output, output


@pytest.mark.e2e
def test_a_title_that_looks_like_markup_is_shown_as_text_on_a_terminal(tmp_path: Path) -> None:
    chats = tmp_path / "turns.jsonl"
    lines = [
        {
            "conversation": "[/] [link=https://evil.example]click[/link] :smile:",
            "time": f"2025-03-0{i}T10:00:00",
            "role": role,
            "text": text,
        }
        for i, (role, text) in enumerate(
            [
                ("user", "my cat Mochi turned six today"),
                ("assistant", "Happy birthday Mochi!"),
                ("user", "she got a new scratching post"),
                ("assistant", "Lucky cat."),
            ],
            start=1,
        )
    ]
    chats.write_text("".join(json.dumps(line) + "\n" for line in lines))
    term = Pty(tmp_path / "home", "import-chats", "--yes", str(chats))
    code, output = term.finish()
    assert code == 0 and "imported 2 turn(s)" in output, output
    assert "MarkupError" not in output
