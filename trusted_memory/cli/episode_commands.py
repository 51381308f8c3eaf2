"""Admin commands over episodes and facts consolidation."""

from __future__ import annotations

import argparse
import dataclasses

from ..model import TARGETS, Episode
from ..services.admin import AdminService
from .gate import cancelled, confirm, for_person, require_person
from .output import age, emit_json, fields, iso, safe, say, table

HELD = "HELD: this session touched indirect content (web, MCP, sub-agents); its summary is not recalled until approved."


def _show(episode: Episode) -> None:
    if episode.status != "live":
        say(HELD)
    fields(
        [
            ("id", episode.id),
            ("session", episode.session_id),
            ("status", episode.status),
            ("source", episode.source_class),
            ("turns", episode.turns),
            ("created", iso(episode.created_at)),
            ("project", episode.project or ""),
        ]
    )
    print()
    say(episode.summary)


async def cmd_episodes_list(admin: AdminService, args: argparse.Namespace) -> int:
    """List episodes, newest first, held ones marked."""
    episodes = await admin.episodes(include_held=True, limit=args.limit)
    if args.json:
        emit_json([dataclasses.asdict(e) for e in episodes])
        return 0
    table(
        ("id", "status", "turns", "age", "session", "summary"),
        [(e.id[:12], e.status, e.turns, age(e.created_at), e.session_id, safe(e.summary)) for e in episodes],
        flexible=("session", "summary"),
    )
    return 0


async def cmd_episodes_show(admin: AdminService, args: argparse.Namespace) -> int:
    """Every field of one episode."""
    episode = await admin.episode(args.id)
    if args.json:
        emit_json(dataclasses.asdict(episode))
    else:
        _show(episode)
    return 0


async def cmd_episodes_promote(admin: AdminService, args: argparse.Namespace) -> int:
    """Release a held episode into recall (asks first)."""
    require_person(args, "episodes promote")
    episode = await admin.episode(args.id)
    if episode.status == "live":
        print(f"episode {episode.id} is already recalled; nothing changed.")
        return 0
    if not args.yes:
        with for_person(args):
            _show(episode)
            if not confirm(args, f"Release episode {episode.id[:12]} into recall?"):
                return cancelled()
    promoted = await admin.promote_episode(episode.id)
    if args.json:
        emit_json(dataclasses.asdict(promoted))
    else:
        print(f"promoted episode {promoted.id}: live, source {promoted.source_class}.")
    return 0


async def cmd_consolidate(admin: AdminService, args: argparse.Namespace) -> int:
    """Merge redundant facts entries (the memory LLM if configured, else restatement merges)."""
    results = [await admin.consolidate(t) for t in ([args.target] if args.target else TARGETS)]
    if args.json:
        emit_json([dataclasses.asdict(r) for r in results])
    else:
        for r in results:
            print(f"{r.target}: {r.message}")
    return 0


def add_episode_commands(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
    gated: argparse.ArgumentParser,
) -> None:
    """Register `episodes list|show|promote` and `consolidate` on the admin parser."""
    episodes = commands.add_parser("episodes", parents=[common], help="list, show or promote session episodes")
    sub = episodes.add_subparsers(dest="episodes_command", required=True, metavar="list|show|promote")
    listing = sub.add_parser("list", parents=[common], help="episodes, newest first")
    listing.add_argument("--limit", type=int, default=50)
    listing.set_defaults(run=cmd_episodes_list)
    show = sub.add_parser("show", parents=[common], help="one episode")
    show.add_argument("id", help="episode id (or 6+ character prefix) or session id")
    show.set_defaults(run=cmd_episodes_show)
    promote = sub.add_parser("promote", parents=[common, gated], help="release a held episode into recall")
    promote.add_argument("id")
    promote.set_defaults(run=cmd_episodes_promote)
    consolidate = commands.add_parser("consolidate", parents=[common], help="merge redundant facts entries")
    consolidate.add_argument("target", nargs="?", choices=TARGETS)
    consolidate.set_defaults(run=cmd_consolidate)
