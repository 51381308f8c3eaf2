"""import-chats speed: turns per second and CPU time per turn of the installed admin command.

    python benchmarks/import_chats.py --conversations 200 --turns 15

Writes a synthetic ChatGPT `conversations.json` (seeded; every conversation a `mapping` tree
with a regenerated answer, a hidden system node, user turns with assistant replies, one in ten
conversations with a browsing tool call), then runs the installed `trusted-memory-admin` on it:

1. `import-chats --dry-run` (read, parse, walk the trees, run the extraction rules; no writes):
   the floor, measured in the same run.
2. `import-chats --yes` into an empty store: every turn through observe, each conversation ended.
3. the same command again: every turn is skipped by its import key.

CPU is the child's user + system time from the kernel (`os.wait4` rusage, all threads), so
start-up is included; turns/s is the command's own figure (replay only) and the wall time of the
whole command. No server runs: the admin command does the work in its own process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine, table, today

BIN = Path(sys.executable).parent
SUBJECTS = ["billing service", "mobile app", "data pipeline", "garden", "kitchen", "bike", "trip", "thesis", "band"]
PLACES = ["Lisbon", "Kyoto", "Zurich", "Porto", "Oslo", "Denver", "Graz", "Lyon", "Accra", "Hanoi"]
PEOPLE = ["Ana", "Dana", "Sam", "Priya", "Kofi", "Mei", "Lars", "Ines"]
TEMPLATES = [
    "I decided we move the {s} to {p} next month.",
    "My friend {n} lives in {p} and visits every spring.",
    "I prefer short answers when we talk about the {s}.",
    "Can you help me plan the {s} for {n}?",
    "We are using Postgres 16 for the {s}, and {n} owns the migration.",
    "The {s} deadline is Friday, so I will work late on Thursday.",
    "I'm flying to {p} on the 14th for a conference about the {s}.",
    "What do you think about rewriting the {s} in Rust?",
    "{n} said the {s} is over budget by twenty percent.",
    "ok thanks",
    "I always take the train to {p} instead of flying.",
    "Remind me that {n}'s birthday is in June.",
]


def synthetic_export(conversations: int, turns: int, seed: int = 7) -> list[dict[str, Any]]:
    """A ChatGPT export of `conversations` conversations with `turns` user turns each."""
    rng = random.Random(seed)
    start = time.time() - 400 * 86400
    out = []
    for c in range(conversations):
        ts = start + c * 3 * 3600
        mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None, "children": ["sys"]}}
        mapping["sys"] = {
            "id": "sys",
            "parent": "root",
            "children": [],
            "message": {
                "id": "sys",
                "author": {"role": "system", "name": None, "metadata": {}},
                "create_time": None,
                "content": {"content_type": "text", "parts": [""]},
                "metadata": {"is_visually_hidden_from_conversation": True},
                "recipient": "all",
            },
        }
        parent = "sys"
        browsing = c % 10 == 0
        for t in range(turns):
            text = rng.choice(TEMPLATES).format(s=rng.choice(SUBJECTS), p=rng.choice(PLACES), n=rng.choice(PEOPLE))
            ts += rng.uniform(20, 300)
            nodes = [(f"u{t}", "user", text, "all")]
            if browsing and t == 0:
                nodes.append((f"call{t}", "assistant", "search", "web.run"))
                nodes.append((f"tool{t}", "tool", "page text", "all"))
            nodes.append((f"a{t}", "assistant", f"Noted about {text.split()[-1]} Anything else on that?", "all"))
            for node_id, role, words, recipient in nodes:
                ts += rng.uniform(1, 20)
                mapping[parent]["children"].append(node_id)
                mapping[node_id] = {
                    "id": node_id,
                    "parent": parent,
                    "children": [],
                    "message": {
                        "id": node_id,
                        "author": {"role": role, "name": "web.run" if role == "tool" else None, "metadata": {}},
                        "create_time": ts,
                        "content": {"content_type": "text", "parts": [words]},
                        "metadata": {},
                        "recipient": recipient,
                    },
                }
                parent = node_id
            if t == 0:
                # A regenerated first answer: an abandoned branch beside the kept one.
                mapping[f"u{t}"]["children"].append("old")
                mapping["old"] = {
                    "id": "old",
                    "parent": f"u{t}",
                    "children": [],
                    "message": {
                        "id": "old",
                        "author": {"role": "assistant", "name": None, "metadata": {}},
                        "create_time": ts,
                        "content": {"content_type": "text", "parts": ["an answer that was regenerated"]},
                        "metadata": {},
                        "recipient": "all",
                    },
                }
        out.append(
            {
                "id": f"bench-{c:05d}",
                "title": f"Conversation {c}",
                "create_time": start + c * 3 * 3600,
                "update_time": ts,
                "current_node": parent,
                "mapping": mapping,
            }
        )
    return out


def run(home: Path, *args: str) -> tuple[float, float, str]:
    """(wall s, CPU s, stdout) of one admin command."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home.parent), "MCP_MEMORY_HOME": str(home)}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [str(BIN / "trusted-memory-admin"), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    out, err = proc.communicate()
    wall = time.perf_counter() - started
    # communicate() reaped the child; its rusage is what RUSAGE_CHILDREN gained.
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {err}")
    return wall, _child_cpu(), out


_LAST_CPU = [0.0]


def _child_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = usage.ru_utime + usage.ru_stime
    spent, _LAST_CPU[0] = total - _LAST_CPU[0], total
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--turns", type=int, default=15)
    args = parser.parse_args()
    _child_cpu()
    with tempfile.TemporaryDirectory() as tmp:
        export = Path(tmp) / "conversations.json"
        export.write_text(json.dumps(synthetic_export(args.conversations, args.turns)))
        home = Path(tmp) / "store"
        dry_wall, dry_cpu, _ = run(home, "--json", "import-chats", "--dry-run", str(export))
        wall, cpu, out = run(home, "--json", "import-chats", "--yes", str(export))
        report = json.loads(out)
        again_wall, again_cpu, again = run(home, "--json", "import-chats", "--yes", str(export))
        skipped = json.loads(again)["already_imported"]
        size = sum(p.stat().st_size for p in home.iterdir() if re.match(r"memory\.db", p.name))
    n = report["turns"]
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"{machine()}; {today()}; {args.conversations} conversations x {args.turns} turns = {n} turns")
    print(f"load average at the end: {load} (wall times include waiting for a core; CPU times do not)")
    print(
        table(
            ("phase", "turns", "wall s", "CPU s", "CPU ms/turn", "turns/s (wall)", "turns/s (replay)"),
            [
                ("dry run (floor: read, parse, rules)", n, dry_wall, dry_cpu, 1000 * dry_cpu / n, n / dry_wall, ""),
                (
                    "import (observe + end_session)",
                    n,
                    wall,
                    cpu,
                    1000 * cpu / n,
                    n / wall,
                    f"{n / report['seconds']:.1f}",
                ),
                ("re-import (all skipped by key)", skipped, again_wall, again_cpu, "", skipped / again_wall, ""),
            ],
        )
    )
    print(
        f"memories: {report['atoms']}; episodes {report['episodes_live']} live, {report['episodes_held']} held; "
        f"store {size / 1e6:.1f} MB"
    )


if __name__ == "__main__":
    main()
