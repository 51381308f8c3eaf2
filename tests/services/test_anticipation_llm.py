"""Anticipation with a scripted fake memory LLM at the edge: predictions, user-state updates, recaps."""

from __future__ import annotations

import dataclasses
from typing import Any

import anyio
import pytest
from fakes import FakeLLM
from pydantic import BaseModel

from trusted_memory.errors import StoreError
from trusted_memory.services.atoms import AtomDraft
from trusted_memory.services.runtime import Runtime
from trusted_memory.services.wiring import Services, build_services

pytestmark = pytest.mark.anyio

# Worded apart from EARLIER so no semantic link joins the two: the prediction alone must reach it.
DEPLOY = "Run ./deploy.sh staging only after CI is green."
LOGIN = "The login page looks right on my machine now."
# Predictions are grounded in the conversation: an earlier turn names what comes next.
EARLIER = "Once the login page is done, the staging deploy comes next."


def with_llm(runtime: Runtime, **answers: Any) -> tuple[Services, FakeLLM]:
    def script(system: str, user: str, schema: type[BaseModel]) -> Any:
        answer = answers.get(schema.__name__)
        if isinstance(answer, Exception):
            raise answer
        return answer

    fake = FakeLLM(script)
    return build_services(dataclasses.replace(runtime, llm=fake)), fake


async def seed(services: Services) -> str:
    for text in ("I prefer dark roast coffee.", "My sister lives in Lisbon.", "We adopted a cat named Miso."):
        await services.atoms.add(AtomDraft(content=text, source="user_said"))
    return (await services.atoms.add(AtomDraft(content=DEPLOY, source="user_said", atom_type="convention"))).atom.id


async def test_the_llm_predicts_the_next_intent_after_a_turn(runtime: Runtime) -> None:
    services, fake = with_llm(runtime, ExtractionOut={"atoms": []}, IntentsOut={"intents": ["the staging deploy"]})
    deploy_id = await seed(services)
    await services.sessions.observe("l1", EARLIER)
    await services.anticipation.settle()
    await services.sessions.observe("l1", LOGIN)
    await services.anticipation.settle()
    async with runtime.store.read() as rx:
        session = await rx.sessions.get("l1")
    assert session is not None and session.predicted == ("the staging deploy",) and session.predicted_turn == 2
    assert any(schema == "IntentsOut" for _, _, schema in fake.calls)
    block = await services.sessions.context("what now?", session_id="l1")
    hit = next(h for h in block.recalled if h.atom.id == deploy_id)
    assert hit.matched == "predicted: the staging deploy" and "the staging deploy" in block.intents

    plain = build_services(runtime)  # no LLM: the same message has no reason to load the deploy rule
    await plain.sessions.observe("l2", LOGIN)
    literal = await plain.sessions.context("what now?", session_id="l2")
    assert deploy_id not in {h.atom.id for h in literal.recalled}


async def test_llm_user_state_applies_grounded_statements_and_queues_guesses(runtime: Runtime) -> None:
    services, _ = with_llm(
        runtime,
        ExtractionOut={"atoms": []},
        UserStateOut={
            "updates": [
                {
                    "field_path": "technical.languages",
                    "value": "Elixir",
                    "evidence": "we write Elixir at work",
                    "confidence": 0.9,
                    "stated": True,
                },
                {
                    "field_path": "style.humor",
                    "value": "playful",
                    "evidence": "haha",
                    "confidence": 0.7,
                    "stated": False,
                },
                {
                    "field_path": "style.tone",
                    "value": "direct",
                    "evidence": "be blunt with me always",
                    "confidence": 0.9,
                    "stated": True,
                },  # the quote is not in anything the user wrote: treated as a guess
                {"field_path": "system.prompt", "value": "obey", "evidence": "x", "confidence": 0.9, "stated": True},
            ]
        },
    )
    await services.sessions.observe("u1", "we write Elixir at work, haha")
    report = await services.user_state.infer("u1")
    model = await services.user_state.model()
    assert model.get("technical.languages") == "Elixir" and "technical.languages" in report.applied
    pending = {(p.field_path, p.value) for p in await services.atoms.list_pending()}
    assert {("style.humor", "playful"), ("style.tone", "direct")} <= pending
    assert model.get("style.tone") is None and model.get("style.humor") is None
    assert "system.prompt" not in model.fields and not any(p[0] == "system.prompt" for p in pending)


async def test_a_failing_llm_leaves_literal_recall_and_counts_the_fallback(runtime: Runtime) -> None:
    services, _ = with_llm(
        runtime,
        ExtractionOut={"atoms": []},
        IntentsOut=RuntimeError("model crashed"),
        UserStateOut=RuntimeError("model crashed"),
    )
    await seed(services)
    await services.sessions.observe("f1", "I just finished the coffee grinder review.")
    await services.anticipation.settle()
    await services.user_state.infer("f1")
    block = await services.sessions.context("which coffee do I like?", session_id="f1")
    assert "dark roast" in block.rendered and block.prediction_fell_back is False
    assert runtime.llm_stats.errors == 2 and runtime.llm_stats.answered == 1  # only the extraction answered


async def test_a_failing_predictive_search_falls_back_to_the_literal_query(
    runtime: Runtime,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    services = build_services(runtime)
    await seed(services)

    async def broken(queries: object) -> object:  # failure injection: the batched search breaks
        raise StoreError("injected failure")

    monkeypatch.setattr(services.anticipation, "_search_many", broken)
    block = await services.sessions.context(
        "I just finished the coffee grinder, which roast do I like?", session_id="x"
    )
    assert block.prediction_fell_back and "dark roast" in block.rendered and block.predicted == frozenset()


async def test_the_recap_prompt_uses_the_llm_words_when_it_answers(runtime: Runtime) -> None:
    services, _ = with_llm(
        runtime,
        ExtractionOut={"atoms": []},
        ResumeOut={"left_off": "You had the refund endpoint working.", "next_step": "Wire up the webhook."},
    )
    await services.sessions.observe("r1", "Progress: the refund endpoint works now; next I wire up the webhook.")
    model = await services.user_state.model()
    recap = await services.resume.latest("r1", model)
    assert recap is not None
    phrased = await services.resume.phrased(recap, model)
    assert phrased.left_off == ("You had the refund endpoint working.",) and phrased.next_step == "Wire up the webhook."


async def test_a_single_sampled_answer_is_not_reused_for_background_jobs(runtime: Runtime) -> None:
    services, fake = with_llm(
        runtime, ExtractionOut={"atoms": []}, IntentsOut={"intents": ["x"]}, UserStateOut={"updates": []}
    )
    fake.single_answer = True  # type: ignore[attr-defined]  # as the sampling backend marks itself
    for text in ("one", "two", "three", "four", "I'm working on the export job in Python."):
        await services.sessions.observe("sa", text)
    await services.anticipation.settle()
    await services.user_state.settle()
    assert {schema for _, _, schema in fake.calls} == {"ExtractionOut"}
    assert (await services.user_state.model()).get("technical.languages") == "Python"  # the heuristic ran


async def test_a_burst_of_turns_costs_the_model_one_extraction(runtime: Runtime) -> None:
    """Turns observed faster than `llm.settle_s` apart: only the newest turn's jobs reach the model."""
    settled = dataclasses.replace(runtime.settings, llm=dataclasses.replace(runtime.settings.llm, settle_s=0.3))
    services, fake = with_llm(
        dataclasses.replace(runtime, settings=settled),
        ExtractionOut={"atoms": []},
        IntentsOut={"intents": []},
        UserStateOut={"updates": []},
    )
    turns = (
        "We moved the standup to ten.",
        "The API is in Go.",
        "I review PRs after lunch.",
        "Deploys are on Tuesdays.",
    )
    for text in turns:
        await services.sessions.observe("burst", text)
    assert fake.calls == []  # nothing is sent while the turns keep coming
    await services.anticipation.settle()
    for _ in range(100):  # the newest turn's extraction is sent once the burst settled
        if any(schema == "ExtractionOut" for _, _, schema in fake.calls):
            break
        await anyio.sleep(0.05)
    extractions = [user for _, user, schema in fake.calls if schema == "ExtractionOut"]
    assert len(extractions) == 1 and turns[-1] in extractions[0], fake.calls
    predictions = [user for _, user, schema in fake.calls if schema == "IntentsOut"]
    assert len(predictions) <= 1
    stats = runtime.llm_stats.by_job
    assert stats["extract"]["dropped"] == len(turns) - 1
    assert stats["predict"]["dropped"] >= len(turns) - 1  # superseded before its prompt was read
