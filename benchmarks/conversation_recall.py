"""Evidence recall on multi-session conversations: is what the user said found again weeks later?

    python benchmarks/conversation_recall.py [--data DIR] [--modes verbatim,observe,keyword,vector,hybrid]
        [--conversations ca1,cb2] [--embedder hash|local] [--model PATH] [--dims N] [--budget-chars N]
        [--llm URL|real] [--llm-timeout-s S] [--json FILE]

--llm runs every store with a memory model (llm.provider http): an OpenAI-compatible base URL, or
`real` to start the local SmolLM2-135M server (benchmarks/llama_server.py) for the run.

The set (benchmarks/data/conversations/README.md): conversations of dated sessions of user and
assistant turns, and questions labelled with the user turns that answer them. Every run goes
through the real MCP surface: the in-memory MCP client (`mcp.Client`) over `build_server`, one
fresh temporary store per conversation and loading pipeline. Modes:

- verbatim: every user turn stored as it was said with `add_atom` (source user_said, type note,
  session_id "<conv>-s<NN>", turn = the number in the turn's id, no project); each question asked
  with `search_atoms` (k=10). A hit is mapped to its turn through the atom id that add_atom returned.
- observe: the per-turn pipeline without an LLM: per session, `observe(session_id, user_message,
  assistant_reply=<the assistant's next turn>)` for each user turn, then `end_session`. The
  turn's time is passed as `timestamp` only if the tool's input schema offers it for observe.
  Each question is asked with `search_atoms` and `search` (k=10 each), merged as described below.
- keyword, vector, hybrid: the verbatim store asked again with `recall.keyword_weight` 1.0, 0.0 and
  the product's default, set as MCP_MEMORY_RECALL__KEYWORD_WEIGHT the way recall_quality.py sets it.
  Inside the product a search's mode is `RecallQuery.mode` (hybrid / keyword / vector), but the MCP
  tool does not expose it: `search_atoms` always runs the hybrid, whose relevance is
  weight x keyword + (1 - weight) x vector, so the weight is the one switch a client has. At 1.0 a
  candidate found only by meaning scores 0 (under recall.min_score), at 0.0 one found only by
  keyword does; on 2026-12-01 both gave top-10 lists identical to mode keyword / vector for all 472
  questions of this set. hybrid is verbatim by construction and serves as a check.

Every store is loaded by one server and asked by a second one opened afterwards (the questions
come weeks later); each mode over the verbatim store asks its own copy of the store as loaded,
since questions refresh the retention of what they find. Every search asks for k=10 with
budget_chars 20,000 (the tool's maximum; --budget-chars), so the budget never cuts the list short.

Ranking. Each hit maps to a set of user turns (below). The hits are merged: the search_atoms hits
in their order, then (observe) the hits of `search` that are not an atom already listed and bring at
least one turn not yet found. A turn's rank is one more than the number of distinct turns that the
hits before it brought; the turns one hit brings share its rank (the order inside a summary means
nothing). A question is hit at rank r when its best evidence turn has rank r; MRR is the mean of 1/r
(0 for a miss). `R@10 hits` counts instead the position of the first hit naming an evidence turn in
the merged list, where every hit kept takes a place (a search_atoms hit that maps to no turn too).

Mapping a hit to turns. An atom maps to the turn it was stored for: in verbatim, through the id
add_atom returned (a repeated turn the store keeps once maps to every turn that said it); in observe,
through the (session_id, turn) the store holds for the atom (read from the file after loading, since
the tool's hits do not show them), where turn is the session's turn count when observe ran, so the
k-th observed user turn of the session (rule `turn`). An episode, a facts entry, or an atom without
a turn maps through its text (the matcher, see `TurnMatcher`): rule `span6`, it
contains 6 consecutive words of the turn; rule `content60`, it contains at least 60 % of the turn's
distinct content words, for turns with at least 4 of them. Words are compared after normalising.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import math
import os
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from _common import DATA, machine, table, today

from trusted_memory.config import Settings, load_settings

MODES = ("verbatim", "observe", "keyword", "vector", "hybrid")
# Seconds between observed turns (--pause-s): 0 replays back to back; a pause lets a memory model's
# background jobs (which settle for llm.settle_s and are superseded by the next turn) actually run.
PAUSE_S = 0.0
# The modes asked over the verbatim store, and the keyword weight each sets (None: the default).
WEIGHT_MODES: dict[str, float | None] = {"verbatim": None, "keyword": 1.0, "vector": 0.0, "hybrid": None}
KIND_ORDER = (
    "passing_fact",
    "person",
    "plan",
    "preference",
    "event",
    "temporal",
    "correction",
    "answer_to_question",
)
K = 10
CUTS = (5, 10)
DEFAULT_BUDGET = 20_000  # the tool's maximum: ten hits are never cut short by the character budget
LOCAL_DIMS = 384  # all-MiniLM-L6-v2, the local extra's default model

# --- the set -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UserTurn:
    """One user turn, with where it sits and the assistant turn that answers it."""

    id: str
    session_id: str
    number: int  # the turn number in its id ("-t07" is 7)
    time: str
    text: str
    reply: str | None


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    evidence: tuple[str, ...]
    kind: str
    asked_at: str
    answer: str


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    sessions: tuple[tuple[str, tuple[UserTurn, ...]], ...]  # (session_id, its user turns) in order
    questions: tuple[Question, ...]

    @property
    def turns(self) -> list[UserTurn]:
        return [turn for _, turns in self.sessions for turn in turns]


_TURN_NUMBER = re.compile(r"-t(\d+)$")


def parse_conversation(doc: dict[str, Any], questions: Iterable[dict[str, Any]]) -> Conversation:
    """A conversation from its JSON document and its questions (checks every evidence id)."""
    conv_id = str(doc["id"])
    sessions = []
    for session in doc["sessions"]:
        session_id = f"{conv_id}-s{int(session['session']):02d}"
        raw = session["turns"]
        users = []
        for pos, turn in enumerate(raw):
            if turn["role"] != "user":
                continue
            after = raw[pos + 1] if pos + 1 < len(raw) else None
            found = _TURN_NUMBER.search(str(turn["id"]))
            users.append(
                UserTurn(
                    id=str(turn["id"]),
                    session_id=session_id,
                    number=int(found.group(1)) if found else pos + 1,
                    time=str(turn["time"]),
                    text=str(turn["text"]),
                    reply=str(after["text"]) if after is not None and after["role"] == "assistant" else None,
                )
            )
        sessions.append((session_id, tuple(users)))
    user_ids = {t.id for _, turns in sessions for t in turns}
    parsed = []
    for q in questions:
        evidence = tuple(str(e) for e in q["evidence"])
        unknown = [e for e in evidence if e not in user_ids]
        if not evidence or unknown:
            raise ValueError(f"question {q['id']}: evidence {unknown or evidence} is not a user turn of {conv_id}")
        parsed.append(
            Question(
                id=str(q["id"]),
                question=str(q["question"]),
                evidence=evidence,
                kind=str(q["kind"]),
                asked_at=str(q.get("asked_at", "")),
                answer=str(q.get("answer", "")),
            )
        )
    return Conversation(conv_id, tuple(sessions), tuple(parsed))


def load_conversations(data: Path, only: Sequence[str] = ()) -> list[Conversation]:
    """Every `<id>.json` of a folder with its `<id>.questions.jsonl` (or only the named ones)."""
    out = []
    for path in sorted(data.glob("*.json")):
        if only and path.stem not in only:
            continue
        qpath = path.with_name(path.stem + ".questions.jsonl")
        with qpath.open() as fh:
            questions = [json.loads(line) for line in fh if line.strip()]
        out.append(parse_conversation(json.loads(path.read_text()), questions))
    missing = set(only) - {c.id for c in out}
    if missing:
        raise SystemExit(f"no conversation {', '.join(sorted(missing))} in {data}")
    return out


# --- matching a hit's text to user turns ---------------------------------------------------------

# Function words and chat filler: they carry no content, so sharing them says nothing.
STOP_WORDS = """a about above after again all also am an and any are as at be because been before being but by
    can could did do does doing dont done for from get gets got had has have having he her here hers him
    his how i id if ill im in into is isnt it its ive just like lol me mine more most my no nor not of off
    ok okay on once only or other our ours out over own really same she should so some such than that
    thats the their theirs them then there these they this those through to too under until up very
    was wasnt we were what when where which while who whom why will with would yeah yes you youre your
    yours oh um uh hmm haha omg tbh btw gonna wanna gotta kinda thanks thank ty shes hes theyre youve
    weve"""
STOP = frozenset(STOP_WORDS.split())
SPAN_WORDS = 6
CONTENT_SHARE = 0.6
MIN_CONTENT_WORDS = 4
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The normalised words of a text: NFKC, accents dropped, case folded, apostrophes removed
    (so "I'm" and "im", "Dev's" and "devs" are the same word), split at anything not a letter or digit."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    text = re.sub(r"['\u2019\u2018\u02bc`]", "", text)
    return _WORD.findall(text)


def content_word(word: str) -> str:
    """A word reduced for the content comparison: a plural or possessive -s dropped (not -ss)."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def content_words(ws: Sequence[str]) -> frozenset[str]:
    """The distinct content words: no stop word (before or after reduction), no single letter (single
    digits count)."""
    reduced = (content_word(w) for w in ws if w not in STOP and (len(w) > 1 or w.isdigit()))
    return frozenset(w for w in reduced if w not in STOP)


def spans(ws: Sequence[str], n: int = SPAN_WORDS) -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(ws[i : i + n]) for i in range(len(ws) - n + 1))


class TurnMatcher:
    """Which user turns a hit's text reproduces, and by which rule.

    `span6`: the text contains SPAN_WORDS consecutive normalised words of the turn (turns shorter
    than that cannot match this way). `content60`: the text holds at least CONTENT_SHARE of the
    turn's distinct content words, for turns with at least MIN_CONTENT_WORDS of them (so a turn
    like "38ish. plus bank" is never matched by a summary that happens to say "bank"). `span6` is
    tried first, so each matched turn is reported with one rule.
    """

    def __init__(self, turns: Iterable[UserTurn]) -> None:
        self._turns = []
        for turn in turns:
            ws = words(turn.text)
            self._turns.append((turn.id, spans(ws), content_words(ws)))

    def match(self, text: str) -> dict[str, str]:
        ws = words(text)
        hit_spans, hit_content = spans(ws), content_words(ws)
        found: dict[str, str] = {}
        for turn_id, turn_spans, turn_content in self._turns:
            if turn_spans and not turn_spans.isdisjoint(hit_spans):
                found[turn_id] = "span6"
            elif len(turn_content) >= MIN_CONTENT_WORDS and len(turn_content & hit_content) >= math.ceil(
                CONTENT_SHARE * len(turn_content) - 1e-9
            ):
                found[turn_id] = "content60"
        return found


def check_matcher() -> None:
    """The matcher's rules on known cases (runs on every start: the instrument must not drift)."""

    def turn(tid: str, text: str) -> UserTurn:
        return UserTurn(tid, "x-s01", 1, "2024-01-01T00:00:00", text, None)

    assert words("I'm at Dev’s café, OK?") == ["im", "at", "devs", "cafe", "ok"]
    assert content_words(words("tabby, shes 6 and a total menace")) == {"tabby", "6", "total", "menace"}
    m = TurnMatcher(
        [
            turn("t1", "hey so i finally went to physio today about the knee"),
            turn("t2", "38ish. plus bank"),
            turn("t3", "tabby, shes 6 and a total menace"),
            turn("t4", "ok thanks!"),
            turn("t5", "red bike, blue helmet, Lisbon"),
        ]
    )
    # Six consecutive words, whatever surrounds them, case and punctuation aside.
    assert m.match("The user finallied went to physio today about the knee.") == {"t1": "span6"}
    # Five are not enough (and 3 of its 6 content words are under 60 %).
    assert m.match("they went to physio today about it") == {}
    # 3 of the 4 content words, in any order; a plural -s is folded ("menaces" is "menace").
    assert m.match("Her cat: a tabby, age 6, a real menaces.") == {"t3": "content60"}
    assert m.match("Her cat is 6 and a menace") == {}  # 2 of 4
    assert m.match("a blue bike in lisbon") == {"t5": "content60"}  # exactly 60 %: 3 of 5
    assert m.match("a blue bike") == {}
    # Too few content words: never matched by content, and too short for a span.
    assert m.match("the bank said plus 38ish") == {}
    assert m.match("ok thanks! ok thanks!") == {}


# --- the memory tool over the in-memory MCP client -------------------------------------------------


class ToolError(RuntimeError):
    """The memory tool answered with an error."""


class Memory:
    """The `memory` tool of one server, called through the in-memory MCP client."""

    def __init__(self, client: Any) -> None:
        self._client = client

    async def call(self, action: str, **arguments: Any) -> dict[str, Any]:
        args = {"action": action, **{k: v for k, v in arguments.items() if v is not None}}
        result = await self._client.call_tool("memory", args)
        if result.is_error:
            text = " ".join(getattr(part, "text", "") for part in result.content)
            raise ToolError(f"{action}: {text}")
        return dict(result.structured_content or {})

    async def observe_takes_timestamp(self) -> bool:
        """Whether observe accepts `timestamp`: the published schema has it, and the tool's description
        lists it among observe's parameters (the schema is the union of every action's)."""
        tool = next(t for t in (await self._client.list_tools()).tools if t.name == "memory")
        if "timestamp" not in (tool.input_schema or {}).get("properties", {}):
            return False
        line = next((ln for ln in (tool.description or "").splitlines() if ln.lstrip("- ").startswith("observe(")), "")
        return not line or "timestamp" in line.partition(")")[0]


@dataclass(frozen=True, slots=True)
class RunConfig:
    embedder: str = "hash"
    model: str | None = None
    dims: int | None = None
    budget_chars: int = DEFAULT_BUDGET


def settings_for(home: Path, config: RunConfig, keyword_weight: float | None) -> Settings:
    """The product's settings for one store: the environment's MCP_MEMORY_* (so a run can vary any
    key), this store folder, the embedder asked for and the mode's keyword weight."""
    env = {k: v for k, v in os.environ.items() if k.startswith("MCP_MEMORY_")}
    env["MCP_MEMORY_HOME"] = str(home)
    env["MCP_MEMORY_EMBEDDING__PROVIDER"] = config.embedder
    if config.model:
        env["MCP_MEMORY_EMBEDDING__MODEL"] = config.model
    dims = config.dims or (LOCAL_DIMS if config.embedder == "local" else None)
    if dims:
        env["MCP_MEMORY_EMBEDDING__DIMS"] = str(dims)
    if keyword_weight is not None:
        env["MCP_MEMORY_RECALL__KEYWORD_WEIGHT"] = str(keyword_weight)
    return load_settings(environ=env, cwd=home)  # cwd: no project file from wherever this runs


@asynccontextmanager
async def memory_server(settings: Settings) -> AsyncIterator[Memory]:
    from mcp import Client  # the SDK loads with the first store, not on --help

    from trusted_memory.server.app import build_server

    async with Client(build_server(settings)) as client:
        yield Memory(client)


def store_counts(db_path: Path) -> dict[str, int]:
    """Atoms by status and episodes, read from the file (read-only)."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        counts = {f"atoms_{status}": n for status, n in conn.execute("SELECT status, COUNT(*) FROM atoms GROUP BY 1")}
        counts["episodes"] = conn.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
    finally:
        conn.close()
    return counts


def file_bytes(db_path: Path) -> int:
    """Bytes on disk of the database with its WAL and shm files, as the store counts them."""
    return sum(p.stat().st_size for p in (Path(f"{db_path}{s}") for s in ("", "-wal", "-shm")) if p.exists())


def atom_places(db_path: Path) -> dict[str, tuple[str | None, int | None]]:
    """Each atom's (session_id, turn) as the store holds it (read-only; the tool does not show them)."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return {row[0]: (row[1], row[2]) for row in conn.execute("SELECT id, session_id, turn FROM atoms")}
    finally:
        conn.close()


# --- loading ----------------------------------------------------------------------------------------


@dataclass(slots=True)
class LoadStats:
    """What loading one conversation did."""

    calls: int = 0  # add_atom or observe calls
    ms: float = 0.0
    end_calls: int = 0  # end_session calls (observe)
    end_ms: float = 0.0
    statuses: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    size_bytes: int = 0  # the stats action's figure right after loading (database, WAL and shm)
    file_bytes: int = 0  # the same files once the loading server has closed
    counts: dict[str, int] = field(default_factory=dict)
    timestamps: bool | None = None


async def load_verbatim(memory: Memory, conv: Conversation) -> tuple[dict[str, set[str]], LoadStats]:
    """Every user turn through add_atom; returns atom id -> the turns it holds."""
    by_atom: dict[str, set[str]] = {}
    stats = LoadStats()
    for turn in conv.turns:
        started = time.perf_counter()
        try:
            out = await memory.call(
                "add_atom",
                content=turn.text,
                source="user_said",
                atom_type="note",
                session_id=turn.session_id,
                turn=turn.number,
            )
        except ToolError as exc:
            stats.errors.append(f"{turn.id}: {exc}")
            stats.statuses["error"] += 1
            continue
        finally:
            stats.ms += (time.perf_counter() - started) * 1000
            stats.calls += 1
        atom = out.get("atom")
        if atom is None:  # quarantined: reported by id only, never recalled
            stats.statuses["quarantined"] += 1
            continue
        stats.statuses[str(out["status"])] += 1
        by_atom.setdefault(str(atom["id"]), set()).add(turn.id)
    stats.size_bytes = int((await memory.call("stats"))["stats"]["size_bytes"])
    return by_atom, stats


async def load_observe(memory: Memory, conv: Conversation) -> tuple[dict[tuple[str, int], str], LoadStats]:
    """Every session through observe (+ end_session); returns (session_id, observed turn) -> turn id."""
    stats = LoadStats(timestamps=await memory.observe_takes_timestamp())
    place: dict[tuple[str, int], str] = {}
    for session_id, turns in conv.sessions:
        for turn in turns:
            started = time.perf_counter()
            try:
                out = await memory.call(
                    "observe",
                    session_id=session_id,
                    user_message=turn.text,
                    assistant_reply=turn.reply,
                    timestamp=turn.time if stats.timestamps else None,
                )
            except ToolError as exc:
                stats.errors.append(f"{turn.id}: {exc}")
                stats.statuses["error"] += 1
                continue
            finally:
                stats.ms += (time.perf_counter() - started) * 1000
                stats.calls += 1
            place[(session_id, int(out["session"]["turns"]))] = turn.id
            stats.statuses["atoms returned"] += len(out.get("atoms") or ())
            if PAUSE_S:
                await asyncio.sleep(PAUSE_S)
        if turns:
            started = time.perf_counter()
            try:
                out = await memory.call("end_session", session_id=session_id)
                stats.statuses["episode" if out.get("episode") else "no_episode"] += 1
            except ToolError as exc:
                stats.errors.append(f"end_session {session_id}: {exc}")
            stats.end_ms += (time.perf_counter() - started) * 1000
            stats.end_calls += 1
    stats.size_bytes = int((await memory.call("stats"))["stats"]["size_bytes"])
    return place, stats


# --- asking ----------------------------------------------------------------------------------------


@dataclass(slots=True)
class QuestionResult:
    mode: str
    conversation: str
    id: str
    kind: str
    question: str
    evidence: list[str]
    rank: int | None  # of the first evidence turn among the distinct turns found
    hit_position: int | None  # of the first hit that maps to an evidence turn, in the merged list
    ms: float
    evidence_rule: str | None  # the rule that mapped the first evidence hit
    hits: list[dict[str, Any]]  # kind, id, source, turns {turn id: rule}, score, matched, text
    recall_mode: str = ""  # how search_atoms says it searched: keyword when no vector evidence ran


def rank_of(hits: Sequence[dict[str, Any]], evidence: Iterable[str]) -> tuple[int | None, int | None, str | None]:
    """(turn rank, hit position, rule) of the first evidence turn in a merged hit list (1-based).

    A turn's rank is one more than the number of distinct turns that earlier hits brought: the turns
    one hit brings share its rank (the order inside a summary means nothing).
    """
    wanted = set(evidence)
    seen: set[str] = set()
    for pos, hit in enumerate(hits, start=1):
        rank = len(seen) + 1
        for turn_id, how in hit["turns"].items():
            if turn_id in wanted:  # the first hit that names an evidence turn is the first to bring it
                return rank, pos, how
        seen.update(hit["turns"])
    return None, None, None


def merge(first: Sequence[dict[str, Any]], then: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """`first` in its order, then the hits of `then` that are not the same atom and bring a new turn."""
    merged = list(first)
    ids = {h["id"] for h in first if h["kind"] == "atom"}
    covered = {t for h in first for t in h["turns"]}
    for hit in then:
        if hit["kind"] == "atom" and hit["id"] in ids:
            continue
        if set(hit["turns"]) - covered:
            merged.append(hit)
            covered |= set(hit["turns"])
    return merged


def ordered(found: dict[str, str], order: dict[str, int]) -> dict[str, str]:
    return dict(sorted(found.items(), key=lambda item: order[item[0]]))


class HitMapper:
    """Maps the tool's hits to user turns, by atom id or place first, by text otherwise."""

    def __init__(
        self,
        conv: Conversation,
        by_atom: dict[str, set[str]] | None = None,
        places: dict[str, tuple[str | None, int | None]] | None = None,
        observed: dict[tuple[str, int], str] | None = None,
    ) -> None:
        self._order = {t.id: i for i, t in enumerate(conv.turns)}
        self._matcher = TurnMatcher(conv.turns)
        self._by_atom = by_atom or {}
        self._places = places or {}
        self._observed = observed or {}

    def turns(self, hit: dict[str, Any]) -> dict[str, str]:
        if hit["kind"] == "atom":
            if hit["id"] in self._by_atom:
                return ordered({t: "atom_id" for t in self._by_atom[hit["id"]]}, self._order)
            session_id, turn = self._places.get(hit["id"], (None, None))
            if session_id is not None and turn is not None and (session_id, turn) in self._observed:
                return {self._observed[(session_id, turn)]: "turn"}
        return ordered(self._matcher.match(str(hit["text"])), self._order)

    def out(self, hits: Iterable[dict[str, Any]], source: str) -> list[dict[str, Any]]:
        return [
            {
                "kind": h["kind"],
                "id": h["id"],
                "source": source,
                "turns": self.turns(h),
                "score": h.get("score"),
                "matched": h.get("matched"),
                "text": h["text"],
            }
            for h in hits
        ]


async def ask(
    memory: Memory, conv: Conversation, mode: str, mapper: HitMapper, config: RunConfig
) -> list[QuestionResult]:
    results = []
    for q in conv.questions:
        started = time.perf_counter()
        found = await memory.call("search_atoms", query=q.question, k=K, budget_chars=config.budget_chars)
        wide = (
            await memory.call("search", query=q.question, k=K, budget_chars=config.budget_chars)
            if mode == "observe"
            else None
        )
        ms = (time.perf_counter() - started) * 1000
        hits = mapper.out(found.get("hits") or (), "search_atoms")
        if wide is not None:
            hits = merge(hits, mapper.out(wide.get("hits") or (), "search"))
        rank, position, rule = rank_of(hits, q.evidence)
        results.append(
            QuestionResult(
                mode,
                conv.id,
                q.id,
                q.kind,
                q.question,
                list(q.evidence),
                rank,
                position,
                ms,
                rule,
                hits,
                str(found.get("mode", "")),
            )
        )
    return results


# --- one conversation, every mode -------------------------------------------------------------------


@dataclass(slots=True)
class ConversationRun:
    results: list[QuestionResult] = field(default_factory=list)
    loads: dict[str, LoadStats] = field(default_factory=dict)  # "verbatim" / "observe" -> its load
    keyword_weights: dict[str, float] = field(default_factory=dict)
    space: str = ""


async def run_conversation(
    conv: Conversation, modes: Sequence[str], config: RunConfig, workdir: Path
) -> ConversationRun:
    """Load the conversation into fresh stores and ask its questions in every mode asked for.

    Each store is loaded by one server and asked by another, opened afterwards (the questions come
    weeks later); a mode over the verbatim store asks its own copy of the store as loaded.
    """
    run = ConversationRun()
    weight_modes = [m for m in MODES if m in modes and m in WEIGHT_MODES]
    if weight_modes:
        loaded = workdir / f"{conv.id}-loaded"
        settings = settings_for(loaded, config, None)
        async with memory_server(settings) as memory:
            by_atom, stats = await load_verbatim(memory, conv)
        stats.counts = store_counts(settings.db_path)
        stats.file_bytes = file_bytes(settings.db_path)
        run.loads["verbatim"] = stats
        run.space = embedding_space(settings)
        mapper = HitMapper(conv, by_atom=by_atom)
        for mode in weight_modes:
            home = workdir / f"{conv.id}-{mode}"
            shutil.copytree(loaded, home)  # no mode sees another's recall statistics
            settings = settings_for(home, config, WEIGHT_MODES[mode])
            run.keyword_weights[mode] = settings.recall.keyword_weight
            async with memory_server(settings) as memory:
                run.results += await ask(memory, conv, mode, mapper, config)
    if "observe" in modes:
        settings = settings_for(workdir / f"{conv.id}-observe", config, None)
        async with memory_server(settings) as memory:
            observed, stats = await load_observe(memory, conv)
        stats.counts = store_counts(settings.db_path)
        stats.file_bytes = file_bytes(settings.db_path)
        run.loads["observe"] = stats
        run.space = embedding_space(settings)
        mapper = HitMapper(conv, places=atom_places(settings.db_path), observed=observed)
        run.keyword_weights["observe"] = settings.recall.keyword_weight
        async with memory_server(settings) as memory:
            run.results += await ask(memory, conv, "observe", mapper, config)
    return run


# --- report ------------------------------------------------------------------------------------------


def metrics(ranks: Sequence[int | None]) -> tuple[float, float, float]:
    """R@5, R@10 and MRR (a miss scores 0)."""
    n = len(ranks) or 1
    r5, r10 = (sum(1 for r in ranks if r is not None and r <= cut) / n for cut in CUTS)
    return r5, r10, sum(1.0 / r for r in ranks if r is not None) / n


def cell(ranks: Sequence[int | None]) -> str:
    r5, r10, mrr = metrics(ranks)
    return f"{r5:.3f} / {r10:.3f} / {mrr:.3f}"


def describe(mode: str, weights: dict[str, float]) -> str:
    w = weights.get(mode)
    return mode if w is None else f"{mode} (kw {w:g})"


def report(
    conversations: Sequence[Conversation],
    modes: Sequence[str],
    results: Sequence[QuestionResult],
    loads: dict[str, list[LoadStats]],
    weights: dict[str, float],
    space: str,
    config: RunConfig,
) -> str:
    modes = [m for m in MODES if m in modes]
    by_mode = {m: [r for r in results if r.mode == m] for m in modes}
    n_q = sum(len(c.questions) for c in conversations)
    n_turns = sum(len(c.turns) for c in conversations)
    n_sessions = sum(len(c.sessions) for c in conversations)
    out = [
        f"Conversation recall — {len(conversations)} conversations ({', '.join(c.id for c in conversations)}), "
        f"{n_sessions} sessions, {n_turns} user turns, {n_q} questions, embedder {space}, "
        f"in-memory MCP client — {machine()}, {today()}",
        "",
    ]
    rows = []
    for mode in modes:
        rs = by_mode[mode]
        ranks = [r.rank for r in rs]
        hits10 = sum(1 for r in rs if r.hit_position is not None and r.hit_position <= K) / (len(rs) or 1)
        # Each server's first question also waits for its warm-up (numpy, the embedder's tables, the index).
        firsts = {r.conversation: r.ms for r in reversed(rs)}
        ms = [r.ms for r in rs]
        rows.append(
            (
                describe(mode, weights),
                len(rs),
                *metrics(ranks),
                hits10,
                f"{statistics.mean(ms):.2f}" if ms else "",
                f"{statistics.median(ms):.2f}" if ms else "",
                f"{statistics.mean(firsts.values()):.1f}" if firsts else "",
            )
        )
    out.append(
        table(("mode", "questions", "R@5", "R@10", "MRR", "R@10 hits", "ms/q mean", "ms/q p50", "ms 1st q"), rows)
    )
    out += ["", "Per conversation (R@5 / R@10 / MRR):", ""]
    out.append(
        table(
            ("conversation", "n", *modes),
            [
                (c.id, len(c.questions), *(cell([r.rank for r in by_mode[m] if r.conversation == c.id]) for m in modes))
                for c in conversations
            ],
        )
    )
    kinds = [k for k in KIND_ORDER if any(r.kind == k for r in results)]
    kinds += sorted({r.kind for r in results} - set(kinds))
    out += ["", "Per kind (R@5 / R@10 / MRR):", ""]
    out.append(
        table(
            ("kind", "n", *modes),
            [
                (
                    k,
                    sum(1 for c in conversations for q in c.questions if q.kind == k),
                    *(cell([r.rank for r in by_mode[m] if r.kind == k]) for m in modes),
                )
                for k in kinds
            ],
        )
    )
    load_rows = []
    for name, stats in loads.items():
        calls = sum(s.calls for s in stats)
        sizes = [s.size_bytes for s in stats]
        closed = [s.file_bytes for s in stats]
        statuses: Counter[str] = sum((s.statuses for s in stats), Counter())
        counts: Counter[str] = sum((Counter(s.counts) for s in stats), Counter())
        end_calls = sum(s.end_calls for s in stats)
        load_rows.append(
            (
                "add_atom per user turn" if name == "verbatim" else "observe per user turn, end_session per session",
                f"{calls}" + (f" + {end_calls}" if end_calls else ""),
                f"{sum(s.ms for s in stats) / (calls or 1):.2f}"
                + (f" + {sum(s.end_ms for s in stats) / end_calls:.2f}" if end_calls else ""),
                f"{statistics.mean(sizes) / 1024:,.0f}" if sizes else "",
                f"{statistics.mean(closed) / 1024:,.0f}" if closed else "",
                ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())),
                ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
            )
        )
    out += [
        "",
        "Loading (store KiB, mean per conversation: the `stats` action's size_bytes right after loading, "
        "and the same files once that server has closed):",
        "",
    ]
    out.append(table(("pipeline", "calls", "ms/call", "store KiB", "closed KiB", "results", "store holds"), load_rows))
    if "verbatim" in by_mode and "hybrid" in by_mode:
        out += ["", same_configuration(by_mode["verbatim"], by_mode["hybrid"])]
    if "observe" in by_mode:
        out += ["", observe_rules(by_mode["observe"], loads.get("observe", []))]
    degraded = Counter(r.mode for r in results if r.mode != "keyword" and r.recall_mode == "keyword")
    if degraded:
        out += [
            "",
            "WARNING: search_atoms answered by keyword alone (no vector evidence: the embedder failed or had "
            "nothing indexed) for " + ", ".join(f"{n} {mode} questions" for mode, n in sorted(degraded.items())) + ".",
        ]
    errors = [e for stats in loads.values() for s in stats for e in s.errors]
    if errors:
        out += ["", f"{len(errors)} tool errors while loading, e.g. {errors[0]}"]
    out += ["", notes(modes, config)]
    return "\n".join(out)


def same_configuration(first: Sequence[QuestionResult], again: Sequence[QuestionResult]) -> str:
    """How far two runs of one configuration (verbatim and hybrid) agree, and why they differ."""
    pairs = list(zip(first, again, strict=True))
    differ = [(a, b) for a, b in pairs if [h["id"] for h in a.hits] != [h["id"] for h in b.hits]]
    ties = sum(1 for a, b in differ if [h["score"] for h in a.hits] == [h["score"] for h in b.hits])
    ranks = sum(1 for a, b in pairs if a.rank != b.rank)
    return (
        f"Check: hybrid is verbatim's configuration asked again: {len(pairs) - len(differ)} of {len(pairs)} "
        f"questions got the same hits in the same order; {len(differ)} differ, {ties} of them only in the order "
        "of hits with equal (rounded) scores, such as the atoms linked to the same hit, whose order falls to "
        "retention, which the questions' own recall touches move; the rank of the first evidence turn differs "
        f"in {ranks}."
    )


def observe_rules(results: Sequence[QuestionResult], loads: Sequence[LoadStats]) -> str:
    """How the observe hits were mapped to evidence turns, by rule."""
    evidence: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    unmapped: Counter[str] = Counter()
    for r in results:
        wanted = set(r.evidence)
        for hit in r.hits:
            kinds[f"{hit['source']}/{hit['kind']}"] += 1
            if not hit["turns"]:
                unmapped[hit["kind"]] += 1
            for turn_id, rule in hit["turns"].items():
                if turn_id in wanted:
                    evidence[rule] += 1
    first = Counter(r.evidence_rule for r in results if r.evidence_rule)
    stamps = {s.timestamps for s in loads}
    passed = "yes" if stamps == {True} else "no" if stamps == {False} else "mixed"
    return "\n".join(
        [
            f"observe: turn times passed as `timestamp`: {passed} (from the tool's input schema).",
            "observe hits in the merged lists: "
            + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
            + "; mapped to no user turn: "
            + (", ".join(f"{k} {v}" for k, v in sorted(unmapped.items())) or "none")
            + ".",
            "observe hits matched to an evidence turn, by rule (turn = the atom's session and turn; span6 / "
            "content60 = the text matcher): "
            + (", ".join(f"{k} {v}" for k, v in sorted(evidence.items())) or "none")
            + "; rule of each question's first evidence hit: "
            + (", ".join(f"{k} {v}" for k, v in sorted(first.items())) or "none")
            + ".",
        ]
    )


def notes(modes: Sequence[str], config: RunConfig) -> str:
    lines = [
        "Notes:",
        f"- Every search asks for k={K} with budget_chars={config.budget_chars:,}, so the character budget "
        "does not cut the list short. Each store is loaded by one server and asked by another; questions do "
        "refresh the retention of what they find (the tool has no way not to), so every mode asks its own "
        "copy of the store as loaded.",
        "- Ranks are over distinct user turns in hit order (see the script's docstring); `R@10 hits` counts "
        "hit positions in the merged list instead. ms/q is the wall time of a question's tool calls through "
        "the in-memory client (observe: search_atoms + search); `ms 1st q` is the mean of each server's first "
        "question, which also waits for the server's warm-up.",
        "- The product's clock is the real clock: memories are dated when they were loaded, and relative time "
        'in questions ("last May") resolves against today, not against the question\'s asked_at; the '
        "product offers no way to set its clock.",
    ]
    if any(m in modes for m in ("keyword", "vector", "hybrid")):
        lines.append(
            "- keyword / vector / hybrid: the verbatim store with recall.keyword_weight 1.0 / 0.0 / default "
            "(MCP_MEMORY_RECALL__KEYWORD_WEIGHT), the one switch the MCP tool has; at 1.0 a candidate found "
            "only by meaning scores 0 (below recall.min_score), at 0.0 one found only by keyword does, which "
            "ranks as the product's internal keyword / vector modes do."
        )
    return "\n".join(lines)


def embedding_space(settings: Settings) -> str:
    """The fingerprint of the embedding space these settings name (builds the embedder, loads nothing)."""
    from trusted_memory.services.recall_types import build_embedder

    return build_embedder(settings).space.fingerprint()


async def evaluate(args: argparse.Namespace) -> str:
    global PAUSE_S
    PAUSE_S = args.pause_s
    config = RunConfig(args.embedder, args.model, args.dims, args.budget_chars)
    if config.embedder == "local" and importlib.util.find_spec("sentence_transformers") is None:
        return (
            f"Conversation recall — embedder local skipped: sentence-transformers is not installed "
            f"(pip install 'trusted-memory[local]') — {machine()}, {today()}"
        )
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = set(modes) - set(MODES)
    if unknown:
        raise SystemExit(f"unknown mode {', '.join(sorted(unknown))}; choose from {', '.join(MODES)}")
    only = [c.strip() for c in args.conversations.split(",") if c.strip()] if args.conversations else []
    conversations = load_conversations(args.data, only)
    if not conversations:
        raise SystemExit(f"no conversations in {args.data}")
    results: list[QuestionResult] = []
    loads: dict[str, list[LoadStats]] = {}
    weights: dict[str, float] = {}
    spaces: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="trusted-memory-conv-") as tmp:
        for conv in conversations:
            started = time.perf_counter()
            run = await run_conversation(conv, modes, config, Path(tmp))
            results += run.results
            for name, stats in run.loads.items():
                loads.setdefault(name, []).append(stats)
            weights.update(run.keyword_weights)
            spaces.add(run.space)
            print(f"{conv.id}: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    space = ", ".join(sorted(spaces))
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "machine": machine(),
                    "date": today(),
                    "embedder": space,
                    "modes": modes,
                    "keyword_weights": weights,
                    "timestamps_passed": sorted({bool(s.timestamps) for s in loads.get("observe", [])}),
                    "loads": {k: [{**asdict(s), "statuses": dict(s.statuses)} for s in v] for k, v in loads.items()},
                    "results": [asdict(r) for r in results],
                },
                indent=1,
            )
        )
    return report(conversations, modes, results, loads, weights, space, config)


def main() -> None:
    check_matcher()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA / "conversations",
        help="folder of <id>.json + <id>.questions.jsonl (default benchmarks/data/conversations; "
        "the held-out sets are benchmarks/data/conversations_heldout, conversations_heldout2, "
        "conversations_heldout3, conversations_heldout4, conversations_heldout5, conversations_heldout6, "
        "conversations_heldout7, conversations_heldout8 and conversations_heldout9)",
    )
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}")
    parser.add_argument("--conversations", help="comma-separated conversation ids (default all)")
    parser.add_argument("--embedder", choices=("hash", "local"), default="hash")
    parser.add_argument("--model", help="embedding.model for --embedder local (a name or a folder)")
    parser.add_argument("--dims", type=int, help=f"embedding.dims (default: the product's; {LOCAL_DIMS} for local)")
    parser.add_argument("--budget-chars", type=int, default=DEFAULT_BUDGET, help="budget_chars of every search")
    parser.add_argument("--json", type=Path, help="write the raw per-question results here")
    parser.add_argument("--llm", help="memory model: an OpenAI-compatible base URL, or `real` (local SmolLM2)")
    parser.add_argument("--llm-timeout-s", type=float, default=20.0, help="llm.timeout_s with --llm")
    parser.add_argument("--pause-s", type=float, default=0.0, help="seconds between observed turns (observe mode)")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        if args.llm:
            url = args.llm
            if url == "real":
                from llama_server import configured, llama_server

                found = configured()
                if found is None:
                    raise SystemExit("--llm real: set TRUSTED_MEMORY_LLM_PYTHON and TRUSTED_MEMORY_LLM_GGUF")
                url = stack.enter_context(llama_server(*found))
            # settings_for passes every MCP_MEMORY_* variable on to each store's settings.
            os.environ.update(
                {
                    "MCP_MEMORY_LLM__PROVIDER": "http",
                    "MCP_MEMORY_LLM__BASE_URL": url,
                    "MCP_MEMORY_LLM__MODEL": "smollm2",
                    "MCP_MEMORY_LLM__TIMEOUT_S": str(args.llm_timeout_s),
                    "MCP_MEMORY_LLM__MAX_TOKENS": "256",
                    "MCP_MEMORY_LLM__TEMPERATURE": "0",
                }
            )
        print(asyncio.run(evaluate(args)))


if __name__ == "__main__":
    main()
