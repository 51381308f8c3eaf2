"""Recall quality on the project's own conversational set: recall@1/5/10 and MRR per method.

    python benchmarks/recall_quality.py [--no-tags] [--dims 512]

Memories are stored through the real AtomsService (scan, trust, FTS, vectors), backdated to their
`days_ago`, then every question is asked through RecallService.search in keyword-only,
vector-only and hybrid mode. An answer counts as found at rank r if any labelled atom is there.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from _common import DATA, backdate, load_jsonl, machine, table, today

from trusted_memory.config import load_settings
from trusted_memory.services.atoms import AtomDraft, AtomsService
from trusted_memory.services.recall_types import RecallQuery
from trusted_memory.services.runtime import open_runtime

DAY = 86400.0


async def evaluate(args: argparse.Namespace) -> str:
    data = args.data or DATA
    memories = load_jsonl(data / "recall_memories.jsonl")
    questions = load_jsonl(data / "recall_questions.jsonl")
    home = Path(tempfile.mkdtemp(prefix="trusted-memory-recall-"))
    env = {
        **{k: v for k, v in os.environ.items() if k.startswith("MCP_MEMORY_")},
        "MCP_MEMORY_HOME": str(home),
        "MCP_MEMORY_EMBEDDING__DIMS": str(args.dims),
    }
    if args.keyword_weight is not None:
        env["MCP_MEMORY_RECALL__KEYWORD_WEIGHT"] = str(args.keyword_weight)
    if args.relevance_weight is not None:
        env["MCP_MEMORY_RECALL__RELEVANCE_WEIGHT"] = str(args.relevance_weight)
    if args.half != "all":
        # Tune on one half, check on the other: the parity of the question's position.
        questions = questions[(0 if args.half == "even" else 1) :: 2]
    settings = load_settings(environ=env, cwd=home)
    ids: dict[str, str] = {}
    async with open_runtime(settings) as runtime:
        atoms = AtomsService(runtime.store, settings, runtime.recall)
        await runtime.recall.warm_up()
        space = runtime.recall.embedder().space.fingerprint()
        for memory in memories:
            write = await atoms.add(
                AtomDraft(
                    content=str(memory["text"]),
                    source="user_said",
                    atom_type=str(memory["type"]) if len(str(memory["text"])) <= 300 else "note",
                    tags=() if args.no_tags else tuple(memory.get("tags", ())),  # type: ignore[arg-type]
                )
            )
            ids[str(memory["id"])] = write.atom.id
        now = time.time()
        backdate(settings.db_path, {ids[str(m["id"])]: now - float(m["days_ago"]) * DAY for m in memories})  # type: ignore[arg-type]
        by_atom = {v: k for k, v in ids.items()}
        rows = []
        for mode in ("keyword", "vector", "hybrid"):
            ranks: list[int | None] = []
            kinds: dict[str, list[int | None]] = {}
            started = time.perf_counter()
            for q in questions:
                result = await runtime.recall.search(
                    RecallQuery(
                        str(q["question"]),
                        k=10,
                        mode=mode,
                        budget_chars=100_000,
                        expand=not args.no_expand,
                        touch=False,  # questions must not refresh their answers' retention for the next ones
                    )
                )
                found = [by_atom.get(h.atom.id) for h in result.hits]
                answers = set(q["answers"])  # type: ignore[arg-type]
                rank = next((i + 1 for i, mid in enumerate(found) if mid in answers), None)
                ranks.append(rank)
                kinds.setdefault(str(q["kind"]), []).append(rank)
            elapsed = (time.perf_counter() - started) / len(questions) * 1000
            rows.append((mode, *_metrics(ranks), f"{elapsed:.2f}"))
            if args.by_kind:
                for kind, kr in sorted(kinds.items()):
                    rows.append((f"  {mode}/{kind} (n={len(kr)})", *_metrics(kr), ""))
    header = (
        f"Recall quality — {len(memories)} memories, {len(questions)} questions"
        f"{'' if args.half == 'all' else f' ({args.half} half)'}, embedder {space}"
        f"{', no tags' if args.no_tags else ''} — {machine()}, {today()}\n\n"
    )
    return header + table(("method", "R@1", "R@5", "R@10", "MRR", "ms/query"), rows)


def _metrics(ranks: list[int | None]) -> tuple[float, float, float, float]:
    n = len(ranks) or 1
    at = lambda k: sum(1 for r in ranks if r is not None and r <= k) / n  # noqa: E731
    mrr = sum(1.0 / r for r in ranks if r is not None) / n
    return at(1), at(5), at(10), mrr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-tags", action="store_true", help="store memories without their tags")
    parser.add_argument("--no-expand", action="store_true", help="no one-hop association expansion")
    parser.add_argument("--by-kind", action="store_true", help="also break results down by question kind")
    parser.add_argument("--dims", type=int, default=512)
    parser.add_argument("--keyword-weight", type=float)
    parser.add_argument("--relevance-weight", type=float)
    parser.add_argument(
        "--data",
        type=Path,
        help="folder with recall_memories.jsonl and recall_questions.jsonl "
        "(default benchmarks/data); the same format, e.g. a held-out set",
    )
    parser.add_argument(
        "--half",
        choices=("all", "even", "odd"),
        default="all",
        help="only the questions at even or odd positions (tune on one, check on the other)",
    )
    print(asyncio.run(evaluate(parser.parse_args())))


if __name__ == "__main__":
    main()
