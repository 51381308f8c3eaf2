"""In-process evaluator of recall fusion: every set loaded once, each ranking variant asked in seconds.

    python benchmarks/fusion_eval.py [--sets conv,ho,ho2,ho3,ho4,ho5,line,lineho] [--embedder hash|local --model DIR]
        [--dump FILE] [--cpu-passes N] [--overlap] [variant options]

Loads each conversation (every user turn stored verbatim, as conversation_recall.py's verbatim mode
does: AtomsService.add with source user_said, type note, its session and turn number) and each
one-line set (as recall_quality.py does, backdated) into its own store, then asks every question
through RecallService.search with touch=False, at the product's default weights (hybrid) and at
keyword weight 1.0 (keyword) / 0.0 (vector). A conversation question is found at rank r when its
first evidence turn is the r-th distinct turn listed (as conversation_recall.py counts it); a
one-line question when a labelled atom is at position r. Prints R@5 / R@10 / MRR per set and mode.

--cpu-passes N only times the hybrid searches (process CPU per search, N passes over every
question). --dump writes, per hybrid question, the first-stage candidates with their features and labels
(JSON lines) for offline fitting. --overlap also counts, per conversation set, the questions only one
list finds (keyword-only or vector-only top 10) and how many the hybrid gains and loses against
keyword-only.

Variant options switch one part of the ranking in this process only (module constants, nothing
saved): --semantic-share S (the `hash` meaning part's share, documents and questions),
--query-share S (questions only: stores embedded at the default), --context-weight C, --char-weight,
--concept-weight, --keyword-weight W, --weight-gain G (ranking.KEYWORD_WEIGHT_GAIN), and
--relative-vector A (A of the vector evidence read relative to the query's own vector list: its top
cosine 1, the last of the list 0).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from _common import DATA, backdate, load_jsonl
from conversation_recall import Conversation, load_conversations

from trusted_memory import ranking
from trusted_memory.config import load_settings
from trusted_memory.services.atoms import AtomDraft, AtomsService
from trusted_memory.services.recall import RecallService
from trusted_memory.services.recall_types import RecallQuery
from trusted_memory.services.runtime import Runtime, open_runtime

DAY = 86400.0
RELATIVE_VECTOR = [0.0]  # --relative-vector
SETS = {
    "conv": ("conversations", "conversations"),
    "ho": ("conversations", "conversations_heldout"),
    "ho2": ("conversations", "conversations_heldout2"),
    "ho3": ("conversations", "conversations_heldout3"),
    "ho4": ("conversations", "conversations_heldout4"),
    "ho5": ("conversations", "conversations_heldout5"),
    "ho6": ("conversations", "conversations_heldout6"),
    "ho7": ("conversations", "conversations_heldout7"),
    "ho8": ("conversations", "conversations_heldout8"),
    "ho9": ("conversations", "conversations_heldout9"),
    "line": ("line", ""),
    "lineho": ("line", "heldout"),
}


@dataclasses.dataclass
class Loaded:
    runtime: Runtime
    questions: list[tuple[str, set[str]]]  # (question, evidence ids: turn ids or memory ids)
    by_atom: dict[str, set[str]]  # atom id -> turn ids (or memory ids)
    turns: bool  # rank by distinct turns (conversations) or by position (one-line)


def settings_env(home: Path, embedder: str, model: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k.startswith("MCP_MEMORY_")}
    env["MCP_MEMORY_HOME"] = str(home)
    env["MCP_MEMORY_EMBEDDING__PROVIDER"] = embedder
    if model:
        env["MCP_MEMORY_EMBEDDING__MODEL"] = model
        env["MCP_MEMORY_EMBEDDING__DIMS"] = "384"
    return env


async def load_conversation(stack: AsyncExitStack, conv: Conversation, args: argparse.Namespace) -> Loaded:
    home = Path(tempfile.mkdtemp(prefix=f"fusion-{conv.id}-"))
    settings = load_settings(environ=settings_env(home, args.embedder, args.model), cwd=home)
    runtime = await stack.enter_async_context(open_runtime(settings))
    atoms = AtomsService(runtime.store, settings, runtime.recall)
    await runtime.recall.warm_up()
    by_atom: dict[str, set[str]] = {}
    for turn in conv.turns:
        write = await atoms.add(
            AtomDraft(
                content=turn.text, source="user_said", atom_type="note", session_id=turn.session_id, turn=turn.number
            )
        )
        if write.atom is not None and write.atom.status == "live":
            by_atom.setdefault(write.atom.id, set()).add(turn.id)
    return Loaded(runtime, [(q.question, set(q.evidence)) for q in conv.questions], by_atom, True)


async def load_line(stack: AsyncExitStack, data: Path, args: argparse.Namespace) -> Loaded:
    memories = load_jsonl(data / "recall_memories.jsonl")
    questions = load_jsonl(data / "recall_questions.jsonl")
    home = Path(tempfile.mkdtemp(prefix="fusion-line-"))
    env = settings_env(home, args.embedder, args.model)
    env.setdefault("MCP_MEMORY_EMBEDDING__DIMS", "512")
    settings = load_settings(environ=env, cwd=home)
    runtime = await stack.enter_async_context(open_runtime(settings))
    atoms = AtomsService(runtime.store, settings, runtime.recall)
    await runtime.recall.warm_up()
    ids: dict[str, str] = {}
    for memory in memories:
        write = await atoms.add(
            AtomDraft(
                content=str(memory["text"]),
                source="user_said",
                atom_type=str(memory["type"]) if len(str(memory["text"])) <= 300 else "note",
                tags=tuple(memory.get("tags", ())),  # type: ignore[arg-type]
            )
        )
        ids[str(memory["id"])] = write.atom.id
    now = time.time()
    backdate(settings.db_path, {ids[str(m["id"])]: now - float(m["days_ago"]) * DAY for m in memories})  # type: ignore[arg-type]
    by_atom = {v: {k} for k, v in ids.items()}
    qs = [(str(q["question"]), set(q["answers"])) for q in questions]  # type: ignore[arg-type]
    return Loaded(runtime, qs, by_atom, False)


def rank_of(hit_turns: Sequence[set[str]], evidence: set[str], by_turns: bool) -> int | None:
    seen: set[str] = set()
    for pos, turns in enumerate(hit_turns, start=1):
        if turns & evidence:
            return len(seen) + 1 if by_turns else pos
        seen |= turns
    return None


async def ask(loaded: Loaded, keyword_weight: float | None) -> list[int | None]:
    recall: RecallService = loaded.runtime.recall
    saved = recall.weights
    if keyword_weight is not None:
        recall.weights = dataclasses.replace(saved, keyword_weight=keyword_weight)
    try:
        ranks = []
        for question, evidence in loaded.questions:
            result = await recall.search(RecallQuery(question, k=10, budget_chars=100_000, touch=False))
            hit_turns = [loaded.by_atom.get(h.atom.id, set()) for h in result.hits]
            ranks.append(rank_of(hit_turns, evidence, loaded.turns))
        return ranks
    finally:
        recall.weights = saved


def metrics(ranks: Sequence[int | None]) -> tuple[float, float, float]:
    n = len(ranks) or 1
    r5 = sum(1 for r in ranks if r is not None and r <= 5) / n
    r10 = sum(1 for r in ranks if r is not None and r <= 10) / n
    mrr = sum(1.0 / r for r in ranks if r is not None) / n
    return r5, r10, mrr


async def load_all(stack: AsyncExitStack, names: Sequence[str], args: argparse.Namespace) -> dict[str, list[Loaded]]:
    out: dict[str, list[Loaded]] = {}
    for name in names:
        kind, folder = SETS[name]
        if kind == "conversations":
            out[name] = [await load_conversation(stack, c, args) for c in load_conversations(DATA / folder)]
        else:
            out[name] = [await load_line(stack, DATA / folder if folder else DATA, args)]
    return out


async def evaluate(stores: dict[str, list[Loaded]], modes: Sequence[str]) -> dict[str, dict[str, list[int | None]]]:
    weights = {"keyword": 1.0, "vector": 0.0, "hybrid": None}
    out: dict[str, dict[str, list[int | None]]] = {}
    for name, loaded in stores.items():
        out[name] = {}
        for mode in modes:
            ranks: list[int | None] = []
            for one in loaded:
                ranks += await ask(one, weights[mode])
            out[name][mode] = ranks
    return out


def report(results: dict[str, dict[str, list[int | None]]]) -> str:
    lines = []
    for name, by_mode in results.items():
        cells = [
            f"{mode} {m[0]:.3f}/{m[1]:.3f}/{m[2]:.3f}" for mode, m in ((k, metrics(v)) for k, v in by_mode.items())
        ]
        gap = ""
        if "keyword" in by_mode and "hybrid" in by_mode:
            gap = f"  h-k {100 * (metrics(by_mode['hybrid'])[1] - metrics(by_mode['keyword'])[1]):+.1f}"
        lines.append(f"{name:7s} n={len(next(iter(by_mode.values())))}  " + "  ".join(cells) + gap)
    return "\n".join(lines)


def overlap(results: dict[str, dict[str, list[int | None]]]) -> str:
    """Per conversation set: questions only keyword-only / only vector-only has in its top 10, and the
    hybrid's gains (found, keyword-only not) and losses (keyword-only found, the hybrid not)."""
    lines = []
    for name, by_mode in results.items():
        if SETS[name][0] != "conversations" or not {"keyword", "vector", "hybrid"} <= set(by_mode):
            continue
        top = {mode: [r is not None and r <= 10 for r in ranks] for mode, ranks in by_mode.items()}
        kw, vec, hyb = top["keyword"], top["vector"], top["hybrid"]
        n = len(kw)
        k_only = sum(k and not v for k, v in zip(kw, vec, strict=True))
        v_only = sum(v and not k for k, v in zip(kw, vec, strict=True))
        neither = sum(not k and not v for k, v in zip(kw, vec, strict=True))
        gains = sum(h and not k for k, h in zip(kw, hyb, strict=True))
        losses = sum(k and not h for k, h in zip(kw, hyb, strict=True))
        lines.append(
            f"{name:7s} n={n}  keyword-only {k_only}  vector-only {v_only}  neither {neither}  "
            f"hybrid gains {gains} losses {losses} ({100 * (gains - losses) / n:+.1f})"
        )
    return "\n".join(lines)


def apply_variant(args: argparse.Namespace) -> None:
    """Switch the parts the variant options name (before the stores are loaded: what is embedded)."""
    from trusted_memory.embed import hashing
    from trusted_memory.services import recall as recall_module

    if args.semantic_share is not None:
        hashing.SEMANTIC_SHARE = args.semantic_share
    if args.char_weight is not None:
        hashing.CHAR_WEIGHT = args.char_weight
    if args.concept_weight is not None:
        hashing.CONCEPT_WEIGHT = args.concept_weight
    if args.context_weight is not None:
        recall_module.CONTEXT_WEIGHT = args.context_weight  # type: ignore[misc]
    if args.weight_gain is not None:
        ranking.KEYWORD_WEIGHT_GAIN = args.weight_gain  # type: ignore[misc]
    if args.relative_vector:
        RELATIVE_VECTOR[0] = args.relative_vector
        install_relative_vector()


def apply_query_variant(stores: dict[str, list[Loaded]], args: argparse.Namespace) -> None:
    """Switch the parts that act on questions only (after the stores are loaded)."""
    from trusted_memory.embed import hashing

    if args.query_share is not None:
        hashing.SEMANTIC_SHARE = args.query_share
    for loaded in stores.values():
        for one in loaded:
            recall = one.runtime.recall
            if args.keyword_weight is not None:
                recall.weights = dataclasses.replace(recall.weights, keyword_weight=args.keyword_weight)
            if RELATIVE_VECTOR[0]:
                fields = {f.name: getattr(recall.weights, f.name) for f in dataclasses.fields(ranking.RankWeights)}
                recall.weights = RelativeWeights(**fields)


QUERY_COSINES: list[tuple[float, float] | None] = [None]  # the scored query's vector list: (last, top)


@dataclasses.dataclass(frozen=True, slots=True)
class RelativeWeights(ranking.RankWeights):
    """--relative-vector: vector evidence partly read against the query's own vector list."""

    def vector_part(self, cosine: float) -> float:
        absolute = ranking.vector_part(cosine, self.cosine_floor, self.cosine_full)
        span = QUERY_COSINES[0]
        if span is None or cosine <= 0 or span[1] <= span[0]:
            return absolute
        relative = max(0.0, min(1.0, (cosine - span[0]) / (span[1] - span[0])))
        return RELATIVE_VECTOR[0] * relative + (1.0 - RELATIVE_VECTOR[0]) * absolute


def install_relative_vector() -> None:
    original = RecallService._score

    def _score(self: RecallService, plan: Any, candidates: Any, fields: Any, ts: float) -> Any:
        weight = plan.keyword_weight(self.weights.keyword_weight)
        cosines = sorted((c.cosine for c in plan.candidates.values() if c.cosine > 0), reverse=True)
        fused = 0.0 < weight < 1.0 and len(cosines) >= 2
        QUERY_COSINES[0] = (cosines[-1], cosines[0]) if fused else None
        try:
            return original(self, plan, candidates, fields, ts)
        finally:
            QUERY_COSINES[0] = None

    RecallService._score = _score  # type: ignore[method-assign]


DUMPED: list[dict[str, Any]] = []


def install_dump() -> None:
    """Record every hybrid plan's scored candidates (all of them, not only the top k) as it is answered."""
    from trusted_memory.services import recall as recall_module

    recall_module.COLLAPSE_SPARE = 200  # type: ignore[attr-defined]
    original = RecallService._result

    def _result(self: RecallService, plan: Any, atoms: dict[int, Any]) -> Any:
        cands = plan.candidates
        kw_order = sorted((n for n in cands if cands[n].keyword > 0), key=lambda n: -cands[n].keyword)
        vec_order = sorted((n for n in cands if cands[n].cosine > 0), key=lambda n: -cands[n].cosine)
        kw_rank = {n: i + 1 for i, n in enumerate(kw_order)}
        vec_rank = {n: i + 1 for i, n in enumerate(vec_order)}
        rows = []
        for item in plan.scored:
            atom = atoms.get(item.num)
            if atom is None:
                continue
            c = cands.get(item.num)
            rows.append(
                {
                    "id": atom.id,
                    "score": item.score,
                    "rel": item.relevance,
                    "ret": item.retention,
                    "kw": c.keyword if c else 0.0,
                    "cos": c.cosine if c else 0.0,
                    "link": item.linked != "",
                    "kw_rank": kw_rank.get(item.num, 0),
                    "vec_rank": vec_rank.get(item.num, 0),
                    "len": len(atom.text),
                    "conf": atom.confidence,
                }
            )
        DUMPED.append(
            {
                "query": plan.text,
                "best_kw": plan.best_keyword,
                "info": plan.information,
                "w": plan.keyword_weight(self.weights.keyword_weight),
                "n_terms": len(plan.terms),
                "rows": rows,
            }
        )
        return original(self, plan, atoms)

    RecallService._result = _result  # type: ignore[method-assign]


async def main_async(args: argparse.Namespace) -> None:
    apply_variant(args)
    async with AsyncExitStack() as stack:
        stores = await load_all(stack, args.sets.split(","), args)
        apply_query_variant(stores, args)
        if args.dump:
            install_dump()
            out = []
            for name, loaded in stores.items():
                for one in loaded:
                    DUMPED.clear()
                    await ask(one, None)
                    for (_question, evidence), plan in zip(one.questions, DUMPED, strict=True):
                        for row in plan["rows"]:
                            row["turns"] = sorted(one.by_atom.get(row.pop("id"), set()))
                        out.append({"set": name, "evidence": sorted(evidence), "turn_rank": one.turns, **plan})
            Path(args.dump).write_text("\n".join(json.dumps(o) for o in out))
            return
        if args.cpu_passes:
            # CPU of this process per hybrid search (all sets' questions), minimum over the passes.
            per_search = []
            for _ in range(args.cpu_passes):
                started = time.process_time()
                asked = 0
                for loaded in stores.values():
                    for one in loaded:
                        asked += len(await ask(one, None))
                per_search.append((time.process_time() - started) / asked * 1e6)
            print(
                f"hybrid search CPU, µs per search over {asked} questions: min {min(per_search):.0f}, "
                f"passes {' '.join(f'{x:.0f}' for x in per_search)}"
            )
            return
        results = await evaluate(stores, args.modes.split(","))
        print(report(results))
        if args.overlap:
            print(overlap(results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default="conv,ho,ho2,ho3,ho4,ho5,line,lineho")
    parser.add_argument("--modes", default="keyword,vector,hybrid")
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--model")
    parser.add_argument("--cpu-passes", type=int, default=0, help="only time the hybrid searches, this many passes")
    parser.add_argument("--dump", help="write the hybrid's scored candidates and labels here (JSON lines)")
    parser.add_argument("--overlap", action="store_true", help="count what only one list finds, gains and losses")
    for name in ("semantic-share", "query-share", "context-weight", "char-weight", "concept-weight"):
        parser.add_argument(f"--{name}", type=float)
    parser.add_argument("--keyword-weight", type=float)
    parser.add_argument("--weight-gain", type=float)
    parser.add_argument("--relative-vector", type=float, default=0.0)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
