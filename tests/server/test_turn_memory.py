"""Every user turn is kept and recallable, with its time and the question it answers (issue 13), over MCP."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from mcp import Client

pytestmark = pytest.mark.anyio


async def call(client: Client, **arguments: Any) -> Any:
    result = await client.call_tool("memory", arguments)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    return result.structured_content


async def observe(client: Client, session: str, user: str, reply: str | None = None, when: str | None = None) -> Any:
    args: dict[str, Any] = {"action": "observe", "session_id": session, "user_message": user}
    if reply:
        args["assistant_reply"] = reply
    if when:
        args["timestamp"] = when
    return await call(client, **args)


async def test_a_fact_said_in_passing_is_found_later(client: Client) -> None:
    observed = await observe(client, "c1", "ugh long shift. btw my sister just moved to Denver lol", "Long day!")
    assert "turn" in [a["type"] for a in observed["atoms"]]
    found = await call(client, action="search_atoms", query="where does my sister live now?")
    assert "Denver" in found["hits"][0]["text"] and found["hits"][0]["source_class"] == "user_said"


async def test_trivial_turns_are_not_kept_and_a_repeat_is_not_stored_twice(client: Client) -> None:
    for text in ("thanks!", "ok", "hi there", "lol ok cool"):
        observed = await observe(client, "c2", text)
        assert observed["atoms"] == [], text
    first = await observe(client, "c2", "been painting a lot lately, mostly watercolours")
    again = await observe(client, "c3", "been painting a lot lately, mostly watercolours")
    assert first["atoms"][0]["id"] == again["atoms"][0]["id"]
    listed = await call(client, action="list_atoms", types=["turn"])
    assert len(listed["atoms"]) == 1


async def test_a_short_answer_is_found_through_the_question_it_answers(client: Client) -> None:
    await observe(
        client, "c4", "I'm repainting the spare room this weekend", "Fun! Which colour did you pick in the end?"
    )
    await observe(client, "c4", "the sage green one", "Sage green is lovely.")
    found = await call(client, action="search_atoms", query="what colour did I choose for the spare room?")
    hit = next(h for h in found["hits"] if "sage green" in h["text"])
    # The assistant's words help find the answer and are shown as the assistant's, never as the user's.
    assert hit["text"] == "the sage green one"
    assert hit["in_reply_to"] == "Which colour did you pick in the end?"


async def test_replayed_history_keeps_its_dates_and_resolves_relative_time(client: Client) -> None:
    await observe(client, "c5", "went to the support group yesterday, it really helped", when="2023-05-08T14:30:00")
    found = await call(client, action="search_atoms", query="when did I go to the support group?")
    hit = found["hits"][0]
    assert hit["said"] == "2023-05-08"
    assert hit["text"].endswith("(yesterday = 2023-05-07)")
    shown = await call(client, action="view", id=hit["id"])
    assert shown["atom"]["dates"] == "yesterday = 2023-05-07" and shown["atom"]["said"] == "2023-05-08"


async def test_a_question_about_a_time_favours_what_was_said_then(client: Client) -> None:
    now = datetime.now()
    # Said in May (the May before now), and again more recently: recency alone favours the later one.
    may = datetime(now.year if now.month > 5 else now.year - 1, 5, 15, 12)
    recent = now - timedelta(days=3)
    await observe(client, "c6", "we went hiking with Dana up the coast", when=may.isoformat())
    await observe(client, "c7", "we went hiking with Dana in the hills", when=recent.isoformat())
    plain = await call(client, action="search_atoms", query="where did I go hiking with Dana?")
    assert "hills" in plain["hits"][0]["text"]
    found = await call(client, action="search_atoms", query="where did I go hiking with Dana last May?")
    assert "coast" in found["hits"][0]["text"]


async def test_a_bad_timestamp_is_refused_and_nothing_is_stored(client: Client) -> None:
    for bad in ("yesterday-ish", "2999-01-01T00:00:00", "1800-01-01"):
        result = await client.call_tool(
            "memory",
            {"action": "observe", "session_id": "c8", "user_message": "my cat is called Mochi", "timestamp": bad},
        )
        assert result.is_error and "timestamp" in result.content[0].text  # type: ignore[union-attr]
    listed = await call(client, action="list_atoms", types=["turn"])
    assert listed["atoms"] == []


async def test_turns_are_forgettable_and_counted(client: Client) -> None:
    observed = await observe(client, "c9", "my dentist is Dr Okafor on Elm Street")
    turn_id = observed["atoms"][0]["id"]
    await call(client, action="forget_atom", id=turn_id)
    found = await call(client, action="search_atoms", query="who is my dentist?")
    assert all(h["id"] != turn_id for h in found["hits"])


async def test_a_correction_supersedes_the_earlier_memory_and_both_stay_findable(client: Client) -> None:
    first = await observe(client, "c10", "the dentist appointment is on Friday at 9", when="2024-03-04T10:00:00")
    await observe(
        client, "c10", "actually the dentist appointment is on Thursday, not Friday", when="2024-03-05T10:00:00"
    )
    found = await call(client, action="search_atoms", query="when is the dentist appointment?")
    texts = [h["text"] for h in found["hits"]]
    newer = next(i for i, t in enumerate(texts) if "Thursday" in t)
    older = next(i for i, t in enumerate(texts) if t.startswith("the dentist appointment is on Friday"))
    assert newer < older
    earlier = next(a for a in first["atoms"] if a["type"] == "turn")
    shown = await call(client, action="view", id=earlier["id"])
    assert shown["atom"]["confidence"] == 0.35  # a turn's 0.7, halved: the user corrected it


async def test_a_replayed_session_ends_into_an_episode_dated_when_it_happened(client: Client) -> None:
    turns = [
        ("we finally booked the flights to Lisbon for june", "2024-03-02T19:00:00"),
        ("my brother Tiago is coming too, he lives in Porto", "2024-03-02T19:04:00"),
        ("planning three days in Sintra after the city", "2024-03-02T19:09:00"),
    ]
    for text, when in turns:
        await observe(client, "c-lisbon", text, "Sounds great!", when=when)
    ended = await call(client, action="end_session", session_id="c-lisbon")
    assert ended["episode"] is not None, ended
    assert ended["episode"]["created"].startswith("2024-03-02"), ended["episode"]
