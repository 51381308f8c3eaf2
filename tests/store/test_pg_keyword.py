"""PostgreSQL keyword search: the unfiltered statements (one counts each term's documents among the
rows it scores; one leaves out the rows holding only the most frequent term when they cannot rank)
rank, score and count exactly as the statement that counts by separate scans.

A real throwaway cluster, atoms written through the service (text, tags and cue columns weighted).
"""

from __future__ import annotations

import pytest

from trusted_memory.config import Settings
from trusted_memory.services.atoms import AtomDraft, AtomsService
from trusted_memory.services.runtime import Runtime
from trusted_memory.store.postgres import search as pg_search
from trusted_memory.store.recall import KEYWORD_IDF_CAP

pytestmark = [pytest.mark.anyio, pytest.mark.postgres_only]

WORDS = ("coffee", "tea", "train", "sister", "lisbon", "garden", "piano", "chess")
QUERIES = (
    ["coffee"],
    ["coffee", "tea"],
    ["sister", "lisbon", "piano"],
    ["chess", "garden", "train", "nothingmatchesthis"],
    ["tea", "tea"],
    ["kofi's", "piano"],
    ["the", "garden"],  # a stop word: no lexeme, matches nothing
    ["nothingmatchesthis"],
    ["marmalade", "zanzibar"],
    ["zanzibar", "marmalade", "piano"],
)


async def test_the_unfiltered_statement_counts_and_scores_as_separate_counts_do(
    runtime: Runtime, settings: Settings
) -> None:
    atoms = AtomsService(runtime.store, settings, runtime.recall)
    for i in range(90):
        first, second = WORDS[i % 8], WORDS[(i * 3 + 1) % 8]
        tags = (WORDS[(i * 5 + 2) % 8],) if i % 3 == 0 else ()
        await atoms.add(
            AtomDraft(content=f"Memory {i}: the {first} and the {second} on day {i}", source="user_said", tags=tags)
        )
    await atoms.add(AtomDraft(content="Kofi's piano recital is on Friday", source="user_said"))
    # The most frequent term of a query in the text, the other only in tags (weight 0.4): rows of the
    # frequent term alone outrank the others, so leaving them out would change the result.
    for i in range(12):
        await atoms.add(AtomDraft(content=f"Breakfast {i}: toast with marmalade", source="user_said"))
    for i in range(6):
        await atoms.add(AtomDraft(content=f"Holiday plan {i} for the spring", source="user_said", tags=("zanzibar",)))
    compared = 0
    ways: set[bool] = set()
    async with runtime.store.read() as rx:
        for terms in QUERIES:
            for cap in (KEYWORD_IDF_CAP, 7):  # 7: fewer than most terms match, so the cap applies
                for limit in (1000, 5):
                    n = len(terms)
                    async with rx.conn.execute(
                        pg_search.keyword_atoms(n, "", cap), (*pg_search.keyword_params(terms), limit)
                    ) as cur:
                        separate = [tuple(r) for r in await cur.fetchall()]
                    async with rx.conn.execute(
                        pg_search.keyword_atoms_counted(n, cap), (*pg_search.keyword_params_counted(terms), limit)
                    ) as cur:
                        counted = [tuple(r) for r in await cur.fetchall()]
                    assert counted == separate, (terms, cap, limit)
                    compared += len(separate)
                    if n < 2:
                        continue
                    sql, params = pg_search.keyword_atoms_pruned(terms, cap, limit)
                    async with rx.conn.execute(sql, params) as cur:
                        rows = [tuple(r) for r in await cur.fetchall()]
                    assert [r[:-1] for r in rows] == separate, (terms, cap, limit)
                    ways.update(r[-1] for r in rows)
    assert compared > 200  # most queries matched rows
    assert ways == {True, False}  # both ways were taken: the frequent term's rows skipped, and all scored
