"""Two people on one team store: what each one's agent may see and change (people.py, store/atoms.py).

The viewer is set here the way the server sets it for a request (people.acting_as); the HTTP tests in
tests/e2e/test_team_http.py check the same boundary through real bearer tokens.
"""

from __future__ import annotations

import pytest

from trusted_memory.errors import InvalidInput, NotFound, TrustRefused
from trusted_memory.people import Viewer, acting_as
from trusted_memory.queries import AtomFilter
from trusted_memory.services.admin import AdminService
from trusted_memory.services.agent import AgentService
from trusted_memory.services.atoms import AtomDraft
from trusted_memory.services.recall_types import RecallQuery
from trusted_memory.services.runtime import Runtime
from trusted_memory.services.wiring import build_services

pytestmark = pytest.mark.anyio

ALICE = Viewer("alice", "member", frozenset({"atlas"}), team=True)
BOB = Viewer("bob", "member", frozenset(), team=True)
CAROL = Viewer("carol", "admin", frozenset({"atlas"}), team=True)

ALICES_SECRET = "my therapist appointment moved to thursdays at four"


def said(text: str, **kw: object) -> AtomDraft:
    return AtomDraft(content=text, source="user_said", **kw)  # type: ignore[arg-type]


async def found_texts(agent: AgentService, query: str, mode: str = "hybrid") -> list[str]:
    result = await agent.search_atoms(RecallQuery(query, k=20, mode=mode))
    return [hit.atom.text for hit in result.hits]


async def test_a_private_atom_reaches_no_other_persons_agent(agent: AgentService) -> None:
    with acting_as(ALICE):
        mine = (await agent.add_atom(said(ALICES_SECRET))).atom
        assert mine.owner == "alice" and mine.scope == "user"
        assert ALICES_SECRET in await found_texts(agent, "when is the therapist appointment")
    for other in (BOB, CAROL):  # an admin's agent does not read another person's private memory either
        with acting_as(other):
            for mode in ("hybrid", "keyword", "vector"):
                assert ALICES_SECRET not in await found_texts(agent, "therapist appointment thursdays", mode)
            assert all(a.id != mine.id for a in await agent.list_atoms(AtomFilter(), limit=500))
            with pytest.raises(NotFound):
                await agent.view_atom(mine.id)
            block = await agent.context("when is my therapist appointment on thursdays?")
            assert "therapist" not in block.rendered
            with pytest.raises(NotFound):
                await agent.forget_atom(mine.id)


async def test_the_same_words_from_two_people_are_two_memories(agent: AgentService) -> None:
    with acting_as(ALICE):
        alices = (await agent.add_atom(said(ALICES_SECRET))).atom
    with acting_as(BOB):
        write = await agent.add_atom(said(ALICES_SECRET))
    # "already remembered as …" would tell Bob that Alice holds these words, and hand him her atom.
    assert write.status == "added" and write.atom.id != alices.id and write.atom.owner == "bob"


async def test_project_memory_is_shared_with_the_projects_members_only(agent: AgentService) -> None:
    with acting_as(ALICE):
        shared = (
            await agent.add_atom(said("atlas deploys go out on tuesdays after the standup", project="atlas"))
        ).atom
    assert shared.scope == "project" and shared.status == "live"
    with acting_as(CAROL):
        assert shared.text in await found_texts(agent, "when do atlas deploys go out")
        assert (await agent.view_atom(shared.id)).owner == "alice"
    with acting_as(BOB):
        assert shared.text not in await found_texts(agent, "when do atlas deploys go out")
        with pytest.raises(InvalidInput, match=r"not a member of project 'atlas'.*users grant bob atlas"):
            await agent.add_atom(said("atlas uses postgres 15", project="atlas"))


async def test_an_agents_global_write_waits_for_an_admin(agent: AgentService, admin: AdminService) -> None:
    with acting_as(ALICE):
        write = await agent.add_atom(said("the team writes commit messages in the imperative", scope="global"))
    atom = write.atom
    assert write.status == "quarantined" and atom.quarantine_reason == "team_review"
    assert "an admin approves" in write.message
    with acting_as(BOB):
        assert atom.text not in await found_texts(agent, "how does the team write commit messages")
        assert all(a.id != atom.id for a in await agent.list_quarantine(limit=500))  # her pending write is hers
    with acting_as(ALICE):
        assert [a.id for a in await agent.list_quarantine(limit=500)] == [atom.id]
    await admin.promote(atom.id)  # the operator at the admin desk
    with acting_as(BOB):
        assert atom.text in await found_texts(agent, "how does the team write commit messages")
        with pytest.raises(TrustRefused, match="alice's"):
            await agent.forget_atom(atom.id)
        with pytest.raises(TrustRefused, match="alice's"):
            await agent.pin_atom(atom.id)


async def test_a_single_persons_store_is_unchanged(agent: AgentService) -> None:
    # No team: a global write by the one local person is live at once, as before people existed.
    write = await agent.add_atom(said("I write commit messages in the imperative", scope="global"))
    assert write.status == "added" and write.atom.owner == "local"


async def test_facts_are_each_persons_own(agent: AgentService) -> None:
    with acting_as(ALICE):
        await agent.add_fact("user", "Alice is vegetarian and allergic to peanuts", key="diet")
        assert "peanuts" in (await agent.read_facts("user")).rendered
    with acting_as(BOB):
        assert "peanuts" not in (await agent.read_facts("user")).rendered
        assert not await agent.search_facts("peanuts allergy")
        assert "peanuts" not in (await agent.context("any food allergies I should know about? peanuts?")).rendered
        # The same key is Bob's own entry, not an overwrite of Alice's.
        await agent.add_fact("user", "Bob eats everything", key="diet")
    with acting_as(ALICE):
        assert "peanuts" in (await agent.read_facts("user")).rendered
        assert "Bob eats" not in (await agent.read_facts("user")).rendered


BILLING_TURNS = [
    ("I want to migrate the billing service from MySQL to Postgres.", "I drafted a migration plan with three phases."),
    ("We decided to run both databases in parallel for a week.", "I added dual writes behind a feature flag."),
    ("The dual writes look good, let's cut over on Friday.", "I scheduled the cut-over and updated the runbook."),
]


async def test_sessions_and_episodes_are_their_owners(agent: AgentService) -> None:
    with acting_as(ALICE):
        for user, reply in BILLING_TURNS:
            await agent.observe("alice-1", user, assistant_reply=reply)
        ended = await agent.end_session("alice-1")
        assert ended.episode is not None and ended.episode.owner == "alice"
        assert await agent.search_episodes("when did we cut billing over to postgres")
    with acting_as(BOB):
        assert not await agent.search_episodes("when did we cut billing over to postgres")
        assert await agent.episodes() == []
        for key in ("alice-1", ended.episode.id):
            with pytest.raises(NotFound):
                await agent.view_episode(key)
        with pytest.raises(NotFound):
            await agent.session_notes("alice-1")
        assert await agent.return_after_break("bob-1") is None
        block = await agent.context("what did we decide about the billing database cut-over?", session_id="bob-1")
        assert "billing" not in block.rendered.lower() and "postgres" not in block.rendered.lower()
        # A session is its owner's id: Bob's turn on the same id is his own conversation, not Alice's.
        await agent.observe("alice-1", "what did we decide about billing?")
        bobs, _, _ = await agent.session_notes("alice-1")
        assert bobs.owner == "bob" and bobs.turns == 1 and bobs.ended_at is None


async def test_the_user_model_and_its_pending_guesses_are_about_one_person(
    runtime: Runtime, admin: AdminService
) -> None:
    services = build_services(runtime)
    agent = AgentService(runtime)
    with acting_as(ALICE):
        for text in ["fix the flaky test", "now the linter", "ok run it", "next: the docs", "ship it"]:
            await agent.observe("alice-st", text)
        await services.user_state.settle()
        guess = next(p for p in await agent.list_pending() if p.field_path == "style.verbosity")
        assert guess.owner == "alice"
        assert (await agent.user_model()).get("interaction_patterns.message_length") == "short"
    with acting_as(BOB):
        assert await agent.list_pending() == []
        assert (await agent.user_model()).fields == {}
        with pytest.raises(NotFound):
            await agent.reject_pending(guess.id)
    await admin.confirm(guess.id)  # the operator confirms Alice's guess: it lands in Alice's model
    with acting_as(ALICE):
        assert (await agent.user_model()).fields["style.verbosity"].confirmed
    with acting_as(BOB):
        assert (await agent.user_model()).fields == {}
        assert "verbosity" not in (await agent.context("ok what next", session_id="bob-st")).rendered


async def test_one_persons_rejected_guess_is_still_proposed_to_another(runtime: Runtime) -> None:
    services = build_services(runtime)
    agent = AgentService(runtime)
    terse = ["fix the flaky test", "now the linter", "ok run it", "next: the docs", "ship it"]
    with acting_as(ALICE):
        for text in terse:
            await agent.observe("alice-st", text)
        await services.user_state.settle()
        guess = next(p for p in await agent.list_pending() if p.field_path == "style.verbosity")
        await agent.reject_pending(guess.id)
    with acting_as(BOB):  # Bob writes the same way: Alice's "no" is about Alice, not about him
        for text in terse:
            await agent.observe("bob-st", text)
        await services.user_state.settle()
        assert (guess.field_path, guess.value) in [(p.field_path, p.value) for p in await agent.list_pending()]
    with acting_as(ALICE):  # and hers still holds for her
        for text in terse:
            await agent.observe("alice-st2", text)
        await services.user_state.settle()
        assert guess.field_path not in [p.field_path for p in await agent.list_pending()]
