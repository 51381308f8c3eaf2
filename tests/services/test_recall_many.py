"""search_many: each result equals its own search, the batch shares one embedding call, errors match."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from trusted_memory.embed.hashing import HashingEmbedder
from trusted_memory.embed.index import VectorIndex
from trusted_memory.errors import InvalidInput
from trusted_memory.queries import AtomFilter
from trusted_memory.services.atoms import AtomDraft, AtomsService
from trusted_memory.services.recall import RecallService
from trusted_memory.services.recall_types import RecallQuery, RecallResult
from trusted_memory.services.runtime import Runtime

pytestmark = pytest.mark.anyio

FIXED_NOW = 1_900_000_000.0  # one clock for both runs, so retention cannot drift between them

Memory = tuple[str, str, tuple[str, ...]]
MEMORIES: list[Memory] = [
    ("I prefer pytest over unittest for every Python project", "preference", ("code", "testing")),
    ("Run the test suite with pytest -q before every commit", "convention", ("code", "testing")),
    ("We deploy the API with Docker containers on Hetzner", "decision", ("infra",)),
    ("The deploy script lives in ops/deploy.sh", "file", ("infra", "code")),
    ("The billing service keeps failing with a connection pool timeout", "error", ("billing",)),
    ("Raise the pool size when the billing service times out", "convention", ("billing",)),
    ("My sister Ana lives in Lisbon with her husband Rui", "fact", ("family",)),
    ("My dog Biscuit is a three year old beagle", "fact", ("pets",)),
    ("Dana's birthday is on the 14th of March", "fact", ("family",)),
    ("Commit messages follow the conventional commits style", "convention", ("code",)),
    ("The ledger service stores amounts as integer cents", "decision", ("billing", "code")),
    ("ImportError: no module named psycopg2 when the worker starts", "error", ("code",)),
]


TOPICS = [
    "the release checklist",
    "the staging database",
    "our code review rota",
    "the on-call pager",
    "the team offsite",
    "the API rate limits",
    "the test fixtures",
    "the deploy freeze",
    "the billing dashboard",
    "the error budget",
]
# Enough other atoms that each query's own k (and overfetch) decides which candidates it sees.
FILLER: list[Memory] = [
    (f"Note {i}: we talked about {TOPICS[i % len(TOPICS)]} on day {i}", "note", ("misc",)) for i in range(40)
]


async def seed(runtime: Runtime) -> None:
    atoms = AtomsService(runtime.store, runtime.settings, runtime.recall)
    for i, (text, kind, tags) in enumerate(MEMORIES + FILLER):
        # Two sessions, so temporal and same-task links give the expansion something to follow.
        await atoms.add(AtomDraft(content=text, source="user_said", atom_type=kind, tags=tags, session_id=f"s-{i % 2}"))


def batch() -> list[RecallQuery]:
    """Different texts, ks, filters, budgets, modes and expansion, as the context action mixes them."""
    return [
        RecallQuery("how do I run the tests?", touch=False),
        RecallQuery("which test framework do I like?", k=3, touch=False),
        RecallQuery("billing timeout", k=4, mode="keyword", touch=False),
        RecallQuery("where do we deploy", k=5, mode="vector", touch=False),
        RecallQuery(
            "how do I run the tests?", k=3, touch=False, filters=AtomFilter(types=("convention", "file", "error"))
        ),
        RecallQuery("code conventions", k=2, touch=False, filters=AtomFilter(tags=("code",)), expand=False),
        RecallQuery("family birthdays and where they live", k=6, budget_chars=200, touch=False),
        RecallQuery(
            "service failing", k=3, mode="vector", touch=False, filters=AtomFilter(types=("error", "decision"))
        ),
    ]


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("trusted_memory.services.recall.now", lambda: FIXED_NOW)


async def one_by_one(recall: RecallService, queries: Sequence[RecallQuery]) -> list[RecallResult]:
    return [await recall.search(q) for q in queries]


async def test_each_result_equals_its_own_search(runtime: Runtime, frozen: None) -> None:
    await seed(runtime)
    queries = batch()
    alone = await one_by_one(runtime.recall, queries)
    together = await runtime.recall.search_many(queries)
    assert together == alone
    # The batch exercised what it claims to: filters held, modes differ, something was found.
    assert [r.mode for r in together] == [
        "hybrid",
        "hybrid",
        "keyword",
        "vector",
        "hybrid",
        "hybrid",
        "hybrid",
        "vector",
    ]
    assert all(r.hits for r in together)
    assert {h.atom.type for h in together[4].hits} <= {"convention", "file", "error"}
    assert all("code" in h.atom.tags for h in together[5].hits)
    assert len(together[1].hits) <= 3 and together[6].truncated
    # And in a different order, each query still gets the same answer.
    assert await runtime.recall.search_many(queries[::-1]) == alone[::-1]


async def test_a_filtered_vector_search_is_the_same_whichever_way_it_checks_the_filter(
    runtime: Runtime,
    frozen: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await seed(runtime)
    filtered = [q for q in batch() if q.filters.types or q.filters.tags]
    checked_a_few_at_a_time = await runtime.recall.search_many(filtered)
    monkeypatch.setattr("trusted_memory.services.recall.NARROW_OVERFETCH", 1)
    monkeypatch.setattr("trusted_memory.services.recall.NARROW_MAX_CHECKED", 0)  # list every admitted atom
    assert await runtime.recall.search_many(filtered) == checked_a_few_at_a_time


class CountingEmbedder(HashingEmbedder):
    """The real hashing embedder, counting its batches."""

    def __init__(self, dims: int) -> None:
        super().__init__(dims)
        self.batches: list[int] = []

    async def embed_batch(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.batches.append(len(texts))
        return await super().embed_batch(texts)


async def test_the_batch_is_embedded_in_one_call(runtime: Runtime) -> None:
    await seed(runtime)
    embedder = CountingEmbedder(runtime.settings.embedding.dims)
    recall = RecallService(runtime.store, runtime.settings, embedder)
    try:
        results = await recall.search_many(batch())
        assert embedder.batches == [7]  # the keyword-only query needs no vector
        assert [r.mode for r in results] == [q.mode for q in batch()]
    finally:
        await recall.close()


async def test_an_empty_batch_returns_nothing(runtime: Runtime) -> None:
    assert await runtime.recall.search_many([]) == []


@pytest.mark.parametrize(
    "bad",
    [
        RecallQuery("   "),
        RecallQuery("x" * 2001),
        RecallQuery("tests", k=0),
        RecallQuery("tests", k=101),
        RecallQuery("tests", mode="fuzzy"),
    ],
)
async def test_a_bad_query_fails_the_batch_as_it_fails_search(runtime: Runtime, bad: RecallQuery) -> None:
    await seed(runtime)
    with pytest.raises(InvalidInput) as alone:
        await runtime.recall.search(bad)
    with pytest.raises(InvalidInput) as together:
        await runtime.recall.search_many([RecallQuery("how do I run the tests?"), bad])
    assert str(together.value) == str(alone.value)


def test_index_batches_equal_single_searches_and_ties_go_to_the_earlier_row() -> None:
    rng = np.random.default_rng(7)
    dims, rows = 64, 3000  # more rows than one block, so blocks are exercised
    matrix = rng.standard_normal((rows, dims)).astype(np.float32)
    matrix[2000] = matrix[10]  # an exact tie, stored later
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    index = VectorIndex(dims)
    index.upsert(list(range(100, 100 + rows)), matrix)
    index.remove([105])
    queries = rng.standard_normal((5, dims)).astype(np.float32)
    queries[0] = matrix[10]
    masks = [None, index.mask(list(range(100, 1100))), None, index.mask([]), None]
    ks = [7, 40, 1, 5, 3000]
    together = index.search_many(queries, ks, masks)
    assert together == [index.search(q, k, m) for q, k, m in zip(queries, ks, masks, strict=True)]
    assert together[0][:2] == [(110, together[0][0][1]), (2100, together[0][0][1])]  # tie: earlier row first
    assert together[3] == [] and len(together[4]) == rows - 1 and 105 not in {n for n, _ in together[4]}
    assert all(100 <= n < 1100 for n, _ in together[1])
    # A filter's best k are the first k it admits of the unfiltered order.
    admitted = [(n, c) for n, c in index.search(queries[1], 400) if 100 <= n < 1100]
    assert together[1] == admitted[:40]
