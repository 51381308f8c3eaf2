"""Admin commands over recall: search trusted atoms as the agent would, and re-embed (reindex)."""

from __future__ import annotations

import argparse

from ..queries import AtomFilter
from ..services.admin import AdminService
from ..services.recall_types import RecallQuery
from .output import Progress, counted, emit_json, table


async def cmd_atoms_search(admin: AdminService, args: argparse.Namespace) -> int:
    """Search trusted atoms with the same hybrid recall the agent uses."""
    filters = AtomFilter(types=tuple(args.type or ()), project=args.project)
    result = await admin.search(RecallQuery(args.query, k=args.k, filters=filters, budget_chars=args.budget))
    if args.json:
        emit_json(
            {
                "mode": result.mode,
                "truncated": result.truncated,
                "hits": [
                    {
                        "id": h.atom.id,
                        "type": h.atom.type,
                        "text": h.atom.text,
                        "score": h.score,
                        "relevance": h.relevance,
                        "retention": h.retention,
                        "matched": h.matched,
                    }
                    for h in result.hits
                ],
            }
        )
        return 0
    table(
        ("id", "type", "score", "matched", "text"),
        [(h.atom.id[:12], h.atom.type, f"{h.score:.3f}", h.matched, h.atom.text) for h in result.hits],
    )
    print(f"({result.mode} recall{', cut by the budget' if result.truncated else ''})")
    return 0


async def cmd_reindex(admin: AdminService, args: argparse.Namespace) -> int:
    """Embed every live atom that lacks a vector in the configured space (all of them with --full)."""
    space, waiting = await admin.prepare_reindex(full=args.full)
    bar = Progress()
    bar.start(waiting, "reindex")
    embedded = await admin.embed_waiting(bar.advance)
    bar.close()
    if args.json:
        emit_json({"space": space, "waiting": waiting, "embedded": embedded})
    else:
        print(f"embedded {embedded:,} of {counted(waiting, 'waiting atom')} into space {space}.")
    if embedded < waiting:
        print("the embedder failed part-way; recall keeps serving by keyword. Run reindex again later.")
        return 1
    return 0


async def cmd_compact(admin: AdminService, args: argparse.Namespace) -> int:
    """Checkpoint the WAL, optimise the keyword indexes and VACUUM the file."""
    bar = Progress()
    bar.start(3, "compact")
    before, after = await admin.compact(bar.advance)
    bar.close()
    if args.json:
        emit_json({"before_bytes": before, "after_bytes": after})
    else:
        print(f"compacted the store: {before:,} -> {after:,} bytes on disk.")
    return 0


def add_recall_commands(
    atoms: argparse._SubParsersAction[argparse.ArgumentParser],
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
) -> None:
    """Register `atoms search` and `reindex` on the admin parser."""
    search = atoms.add_parser("search", parents=[common], help="search trusted atoms as the agent would")
    search.add_argument("query")
    search.add_argument("--k", type=int, default=10)
    search.add_argument("--type", action="append", help="repeatable")
    search.add_argument("--project")
    search.add_argument("--budget", type=int, default=20_000, help="reply budget in characters")
    search.set_defaults(run=cmd_atoms_search)
    reindex = commands.add_parser(
        "reindex",
        parents=[common],
        help="embed atoms into the configured space",
        description="Adopt the configured embedder and embed every atom waiting for a "
        "vector; --full re-embeds all live atoms.",
    )
    reindex.add_argument("--full", action="store_true", help="re-embed every live atom")
    reindex.set_defaults(run=cmd_reindex)
    compact = commands.add_parser(
        "compact",
        parents=[common],
        help="checkpoint, rebuild indexes and VACUUM",
        description="Checkpoint the WAL, optimise the keyword indexes and VACUUM the "
        "file so freed space returns to the disk.",
    )
    compact.set_defaults(run=cmd_compact)
