"""`trusted-memory-admin users …`: the people of a team's store and their bearer tokens."""

from __future__ import annotations

import argparse
from typing import Any

from ..people import ROLES, Person
from ..services.admin import AdminService
from ..services.admin.people import PeopleAdmin
from .output import emit_json, iso, say, table


def _row(person: Person) -> dict[str, object]:
    return {
        "name": person.name,
        "role": person.role,
        "projects": list(person.projects),
        "created": iso(person.created_at),
        "revoked": iso(person.revoked_at) if person.revoked_at else None,
    }


async def cmd_users_add(admin: AdminService, args: argparse.Namespace) -> int:
    """Add a person and print their token, once."""
    person, token = await PeopleAdmin(admin.runtime.store).add(args.name, args.role, tuple(args.project or ()))
    if args.json:
        emit_json({**_row(person), "token": token})
        return 0
    say(f"added {person.name} ({person.role}; projects: {', '.join(person.projects) or 'none'}).")
    say(f"token: {token}")
    say(
        "This is the only time the token is shown: only its hash is stored. The person's host sends it on "
        "every request as the header `Authorization: Bearer <token>`. Servers started before this store had "
        "people run without tokens: restart them so they require one."
    )
    return 0


async def cmd_users_list(admin: AdminService, args: argparse.Namespace) -> int:
    """Everyone, with role, projects and whether their token is revoked (never the token)."""
    people = await PeopleAdmin(admin.runtime.store).list()
    if args.json:
        emit_json([_row(p) for p in people])
        return 0
    if not people:
        say("no people: this store has one implicit owner (add a person with `trusted-memory-admin users add NAME`).")
        return 0
    table(
        ("name", "role", "projects", "created", "revoked"),
        [
            (p.name, p.role, ", ".join(p.projects), iso(p.created_at), iso(p.revoked_at) if p.revoked_at else "")
            for p in people
        ],
        flexible=("projects",),
    )
    return 0


async def cmd_users_revoke(admin: AdminService, args: argparse.Namespace) -> int:
    """Refuse a person's token from their next request on."""
    person = await PeopleAdmin(admin.runtime.store).revoke(args.name)
    if args.json:
        emit_json(_row(person))
    else:
        say(f"revoked {person.name}'s token: their next request gets 401. Their memories stay theirs.")
    return 0


async def cmd_users_grant(admin: AdminService, args: argparse.Namespace) -> int:
    """Make a person a member of a project (or, with ungrant, take them off)."""
    remove = args.users_command == "ungrant"
    person = await PeopleAdmin(admin.runtime.store).grant(args.name, args.project, remove=remove)
    if args.json:
        emit_json(_row(person))
    else:
        say(f"{person.name}'s projects: {', '.join(person.projects) or 'none'}.")
    return 0


def add_people_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    """Register `users` and its subcommands on the admin CLI."""
    users = commands.add_parser(
        "users", parents=[common], help="the people of a team's store and their bearer tokens (HTTP)"
    )
    sub = users.add_subparsers(dest="users_command", required=True, metavar="add|list|revoke|grant|ungrant")
    add = sub.add_parser("add", parents=[common], help="add a person and print their token once")
    add.add_argument("name", help="1-40 of a-z, 0-9, '.', '_', '-', starting with a letter")
    add.add_argument("--role", choices=ROLES, default="member", help="admins approve team-wide memory")
    add.add_argument("--project", action="append", help="a project they are a member of (repeatable)")
    add.set_defaults(run=cmd_users_add)
    sub.add_parser("list", parents=[common], help="everyone, never a token").set_defaults(run=cmd_users_list)
    revoke = sub.add_parser("revoke", parents=[common], help="refuse a person's token from now on")
    revoke.add_argument("name")
    revoke.set_defaults(run=cmd_users_revoke)
    for verb, text in (("grant", "make a person a member of a project"), ("ungrant", "take a person off a project")):
        one = sub.add_parser(verb, parents=[common], help=text)
        one.add_argument("name")
        one.add_argument("project")
        one.set_defaults(run=cmd_users_grant)
