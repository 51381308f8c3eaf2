"""Shared helpers of the benchmark scripts: machine facts, stores with seeded memories, tables."""

from __future__ import annotations

import json
import os
import platform
import random
import re
import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def machine() -> str:
    """One line naming this machine, for results tables."""
    cpu = platform.processor() or platform.machine()
    return (
        f"{platform.system()} {platform.machine()} ({cpu}), {os.cpu_count()} cores, Python {platform.python_version()}"
    )


def today() -> str:
    """The date for results tables."""
    return time.strftime("%Y-%m-%d")


def load_jsonl(path: Path) -> list[dict[str, object]]:
    """Every JSON object of a JSONL file."""
    with path.open() as fh:
        return [json.loads(line) for line in fh if line.strip()]


def backdate(db_path: Path, created: dict[str, float]) -> None:
    """Set atoms' creation times (benchmark set-up only: the product never rewrites history)."""
    conn = sqlite3.connect(db_path)
    try:
        conn.executemany(
            "UPDATE atoms SET created_at = ?, updated_at = ? WHERE id = ?",
            [(ts, ts, atom_id) for atom_id, ts in created.items()],
        )
        conn.commit()
    finally:
        conn.close()


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in row) + " |")
    return "\n".join(lines)


def percentile(values: Sequence[float], pct: float) -> float:
    """The pct-th percentile (nearest rank) of values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = max(0, min(len(ordered) - 1, round(pct / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


# --- conversational memories at scale (recall_latency.py, write_throughput.py) ----------------


def _words(text: str) -> tuple[str, ...]:
    """The words of a space-separated list."""
    return tuple(text.split())


# Person names, places and project code names that occur in benchmarks/data/recall_memories.jsonl;
# each is swapped for a random one from the pools below so every generated text is distinct.
_NAMES_IN_SET = frozenset(
    _words(
        "Sam Noor Ana Marta Dana Inês Kofi Ravi Tomás Mei Lena Lotte Greta Rui Jonas Rosa Joyce Henk "
        "Femke Sophie Priya Tom Adrian Yusuf Daan Bas Pieter Anke Leo Pedro Klara Bram Aisha Nils Beata "
        "Jesse Erik Hugo Mirjam Anne"
    )
)
_PLACES_IN_SET = frozenset(
    _words(
        "Porto Amsterdam Coimbra Lisbon Berlin Toronto Groningen Utrecht Doha Bristol Viseu Ericeira "
        "Modena Kyoto Bruges Rotterdam Lagos Bologna Florence Tokyo Seoul Madrid Ghent Chania"
    )
)
_PROJECTS_IN_SET = frozenset(_words("Atlas Beacon Halden Quillmark Tides"))
NAME_POOL = _words(
    "Aaliyah Abdul Ada Adele Agnes Ahmed Aiko Alba Alejandro Alice Amara Amir Anika Ansel Arjun Astrid "
    "Aurora Axel Bea Bilal Bjorn Camila Carlos Celine Chen Chiara Clara Dario Defne Diego Dmitri Ebba "
    "Elif Elena Emeka Emil Esme Ezra Farah Felix Fenna Finn Freya Gabriel Gaia Hana Hamza Hannah Ida "
    "Igor Ilse Imani Ingrid Isaac Ivo Jana Javier Jin Joao Julia Kai Kamal Karin Kenji Lara Lars Leila "
    "Liam Lina Lucas Luca Luna Maya Mateo Mila Milan Mina Nadia Naveen Nia Nina Oda Olga Omar Oskar "
    "Paula Petra Quinn Rafael Rania Reza Rina Rohan Ruben Sana Santiago Sara Selin Sven Tariq Tess "
    "Theo Uma Valeria Vera Viktor Wanjiru Wei Xavier Yara Yuki Zainab Zara Zeynep Zoe"
)
PLACE_POOL = _words(
    "Porto Amsterdam Lisbon Berlin Toronto Utrecht Bristol Kyoto Bruges Rotterdam Bologna Florence "
    "Tokyo Seoul Madrid Ghent Valencia Seville Lyon Marseille Manchester Edinburgh Glasgow Dublin Cork "
    "Copenhagen Stockholm Oslo Helsinki Warsaw Krakow Budapest Athens Vienna Prague Munich Hamburg "
    "Leipzig Antwerp Leiden Haarlem Nijmegen Eindhoven Milan Turin Naples Barcelona Bilbao Granada "
    "Montreal Vancouver Chicago Boston Seattle Austin Denver Portland Osaka Busan Taipei Singapore "
    "Melbourne Sydney Auckland Nairobi Lagos Accra Marrakech Istanbul Tbilisi Mumbai Bangalore"
)
PROJECT_POOL = _words(
    "Atlas Beacon Halden Quillmark Tides Orion Juniper Kestrel Lumen Meridian Nimbus Obsidian Pylon "
    "Quartz Rook Saffron Tundra Umbra Vesper Willow Zephyr Harbor Cobalt Ember Fjord Garnet"
)
_FRAMES = (
    "",
    "",
    "",
    "Just so you know, ",
    "For the record, ",
    "Note to self: ",
    "FYI: ",
    "As of this week, ",
    "Reminder: ",
    "Heads up: ",
)
_WORD_RE = re.compile(r"\d+|[A-Z][a-zà-ÿ]+")


def _vary(text: str, rng: random.Random, attempt: int) -> str:
    """One variant of a template: names, places, projects and numbers swapped at random."""

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        if word.isdigit():
            if len(word) == 4 and word[:2] in ("19", "20"):
                return str(rng.randint(1995, 2030))
            low = 10 ** (len(word) - 1) if len(word) > 1 else 1
            return str(rng.randint(low, 10 ** len(word) - 1))
        if word in _NAMES_IN_SET:
            return rng.choice(NAME_POOL)
        if word in _PLACES_IN_SET:
            return rng.choice(PLACE_POOL)
        if word in _PROJECTS_IN_SET:
            return rng.choice(PROJECT_POOL)
        return word

    out = _WORD_RE.sub(swap, text)
    frame = rng.choice(_FRAMES) if attempt < 3 else rng.choice(_FRAMES[3:])
    if frame:
        first = out.split(" ", 1)[0]
        out = frame + (first.lower() if first.lower() in _STARTERS else first) + out[len(first) :]
    if attempt >= 5:  # a template with little to swap: say when it was true
        out = out.rstrip(".") + rng.choice(_WHEN).format(
            month=rng.choice(_MONTHS),
            year=rng.randint(2015, 2026),
            day=rng.randint(1, 28),
        )
    return out


_STARTERS = frozenset(_words("my we our the a an every no always never when if for after since"))
_MONTHS = _words("January February March April May June July August September October November December")
_WHEN = (
    " (as of {month} {year}).",
    ", at least since {month} {year}.",
    " — that was in {month} {year}.",
    " (mentioned on {day} {month}).",
    ", as I said back in {year}.",
    " — still true in {month} {year}.",
)


def conversational_memories(n: int, seed: int = 7) -> Iterator[dict[str, Any]]:
    """n distinct first-person memories built from recall_memories.jsonl templates.

    Yields dicts with text, type (note when over the 300-character atom limit), tags and days_ago.
    Texts are distinct after the product's dedup normalisation, so none is rejected as a repeat.
    """
    from trusted_memory.scan import normalize_for_dedup  # after sys.path is set up above

    rng = random.Random(seed)
    templates = load_jsonl(DATA / "recall_memories.jsonl")
    seen: set[str] = set()
    made = 0
    while made < n:
        rng.shuffle(templates)
        for tpl in templates:
            if made >= n:
                return
            for attempt in range(12):
                text = (
                    str(tpl["text"])
                    if made < len(templates) and attempt == 0
                    else _vary(str(tpl["text"]), rng, attempt)
                )
                norm = normalize_for_dedup(text)
                if norm not in seen:
                    break
            else:
                continue
            seen.add(norm)
            made += 1
            kind = str(tpl["type"]) if len(text) <= 300 else "note"
            yield {
                "text": text,
                "type": kind,
                "tags": list(tpl.get("tags", ())),  # type: ignore[call-overload]
                "days_ago": rng.uniform(0, 400),
            }
