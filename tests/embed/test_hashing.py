"""Tests for the default feature-hashing embedder and the embedding-space identity."""

from __future__ import annotations

import asyncio
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from trusted_memory.embed.base import Embedder, EmbeddingSpace
from trusted_memory.embed.hashing import HashingEmbedder, hash_feature, rarity, stem, tokenize
from trusted_memory.embed.lexicon import lexicon
from trusted_memory.text import STOP_WORDS

TEXTS = [
    "I prefer pytest over unittest for every Python project.",
    "My sister Ana lives in Lisbon with her two kids.",
    "We decided to move the billing API to Go next quarter.",
    "Café Nördic on 5th street does the best flat white — Dana's favourite.",
    "",
    "the and of",  # stop words only
]

REPO_ROOT = Path(__file__).resolve().parents[2]


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


def test_space_fingerprint() -> None:
    emb = HashingEmbedder(384)
    assert emb.space == EmbeddingSpace("hash", "v4", 384)
    assert emb.space.fingerprint() == "hash:v4:384"
    # How its cosines read is not part of the identity, but the embedder states it.
    assert (emb.space.cosine_floor, emb.space.cosine_full) == (0.1, 0.6)
    assert isinstance(emb, Embedder)


@pytest.mark.parametrize("dims", [256, 384, 512, 768])
def test_dims_honoured(dims: int) -> None:
    vecs = HashingEmbedder(dims).embed_sync(TEXTS)
    assert vecs.shape == (len(TEXTS), dims)
    assert vecs.dtype == np.float32


def test_rows_normalised_and_empty_rows_zero() -> None:
    vecs = HashingEmbedder().embed_sync(TEXTS)
    norms = np.linalg.norm(vecs, axis=1)
    np.testing.assert_allclose(norms[:4], 1.0, atol=1e-5)
    assert not vecs[4].any()
    assert not vecs[5].any()


def test_empty_batch() -> None:
    assert HashingEmbedder().embed_sync([]).shape == (0, 512)


def test_deterministic_across_instances() -> None:
    a = HashingEmbedder().embed_sync(TEXTS)
    b = HashingEmbedder().embed_sync(TEXTS)
    assert a.tobytes() == b.tobytes()


def test_deterministic_across_processes() -> None:
    # A fresh interpreter has a different hash() salt; the bytes must still match exactly.
    code = (
        "import sys, json; from trusted_memory.embed.hashing import HashingEmbedder; "
        "texts = json.loads(sys.stdin.read()); "
        "sys.stdout.write(HashingEmbedder().embed_sync(texts).tobytes().hex())"
    )
    import json

    out = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(TEXTS),
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PYTHONHASHSEED": "12345"},
    ).stdout
    assert bytes.fromhex(out) == HashingEmbedder().embed_sync(TEXTS).tobytes()


def test_batch_equals_individual() -> None:
    emb = HashingEmbedder()
    batch = emb.embed_sync(TEXTS)
    for i, text in enumerate(TEXTS):
        assert emb.embed_sync([text])[0].tobytes() == batch[i].tobytes()


def test_cache_does_not_change_vectors() -> None:
    emb = HashingEmbedder()
    first = emb.embed_sync(TEXTS[::-1])
    second = emb.embed_sync(TEXTS[::-1])
    assert first.tobytes() == second.tobytes()


def test_memo_stays_bounded_and_never_changes_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    import trusted_memory.embed.hashing as hashing

    # Many distinct words and bigrams (as names, numbers and typos make them), past small limits.
    texts = [f"{t} visit{i} with friend{i % 7} on day{i % 13}" for i in range(40) for t in TEXTS[:4]]
    expected = HashingEmbedder(512).embed_sync(texts)  # default limits: nothing is dropped here
    monkeypatch.setattr(hashing, "_TOKEN_CACHE_LIMIT", 16)
    monkeypatch.setattr(hashing, "_SLOT_CACHE_LIMIT", 8)
    small = HashingEmbedder(512)
    seen = {"tokens": 0, "slots": 0, "grams": 0}
    rows = []
    for text in texts:
        rows.append(small.embed_sync([text])[0])
        seen["tokens"] = max(seen["tokens"], len(small._tokens))
        seen["slots"] = max(seen["slots"], len(small._slots))
        seen["grams"] = max(seen["grams"], len(small._gram_slots))
    assert seen == {"tokens": 16, "slots": 8, "grams": 16}  # each filled up to its limit, never past it
    assert np.array_equal(np.stack(rows), expected)  # bit-identical however often the memo was dropped


def test_embed_batch_matches_sync() -> None:
    emb = HashingEmbedder()
    got = asyncio.run(emb.embed_batch(TEXTS))
    assert got.tobytes() == emb.embed_sync(TEXTS).tobytes()


def test_vector_is_hash_of_features() -> None:
    # features() is the documented pre-hash view: hashing it by hand must give the lexical part
    # (the first dims - dims // 4 components, up to the share the meaning part takes).
    emb = HashingEmbedder(256)
    lexical = 256 - 256 // 4
    for text in TEXTS[:4]:
        expected = np.zeros(lexical)
        for feat, weight in emb.features(text).items():
            h = hash_feature(feat)
            expected[h % lexical] += (-1.0 if h >> 63 else 1.0) * weight
        expected /= np.linalg.norm(expected)
        got = emb.embed_sync([text])[0][:lexical].astype(np.float64)
        np.testing.assert_allclose(got / np.linalg.norm(got), expected, atol=1e-6)


def test_meaning_part_joins_words_that_share_no_letters() -> None:
    emb = HashingEmbedder()
    pup, dog, car = emb.embed_sync(["our new pup", "our new dog", "our new car"])
    assert _cos(pup, dog) > _cos(pup, car)
    vacation, holiday, invoice = emb.embed_sync(["my vacation", "my holiday", "my invoice"])
    assert _cos(vacation, holiday) > _cos(vacation, invoice)
    # Without the lexicon (v1, lexical only) neither pair would meet at all beyond "our new"/"my".
    assert _cos(vacation, holiday) > 0.5


def test_text_without_lexicon_words_is_lexical_only() -> None:
    emb = HashingEmbedder(256)
    vec = emb.embed_sync(["Zqxv Wvbrt"])[0]
    assert not vec[256 - 64 :].any()  # no meaning part: nothing the lexicon knows
    assert float(np.linalg.norm(vec)) == pytest.approx(1.0, abs=1e-5)


def test_small_dims_drop_the_meaning_part() -> None:
    # Below 64 dims a meaning part would be under 16 wide: the vector is lexical only.
    emb = HashingEmbedder(48)
    assert emb.space.cosine_floor == 0.0  # lexical cosines of unrelated texts sit near 0
    vec = emb.embed_sync(["our new pup"])[0]
    lexical = np.zeros(48)
    for feat, weight in emb.features("our new pup").items():
        h = hash_feature(feat)
        lexical[h % 48] += (-1.0 if h >> 63 else 1.0) * weight
    np.testing.assert_allclose(vec, lexical / np.linalg.norm(lexical), atol=1e-6)
    code = (
        "import sys, trusted_memory.embed.hashing as h, trusted_memory.embed.lexicon as lx; "
        "h.HashingEmbedder(48).embed_sync(['our new pup']); sys.exit(0 if lx._LOADED is None else 1)"
    )
    # ...and never reads the word table it would not use.
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO_ROOT, env={"PYTHONPATH": str(REPO_ROOT)})


def test_lexicon_is_not_loaded_on_import() -> None:
    # Start-up imports the embedder module; the ~4 MB table waits for the background warm-up.
    code = (
        "import sys; import trusted_memory.embed.hashing as h, trusted_memory.embed.lexicon as lx; "
        "e = h.HashingEmbedder(); assert lx._LOADED is None; "
        "e.warm_up(); sys.exit(0 if lx._LOADED is not None else 1)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO_ROOT, env={"PYTHONPATH": str(REPO_ROOT)})


def test_features_groups() -> None:
    feats = HashingEmbedder().features("My sisters love running marathons")
    assert "w:sister" in feats and "w:run" in feats
    assert "b:sister_lov" in feats
    assert "c:#sis" in feats and "c:ters#" in feats
    assert "k:family" in feats and "k:exercise" in feats
    assert "w:my" not in feats  # stop words give no word features
    # Words outweigh bigrams, which outweigh a single char n-gram.
    assert feats["w:sister"] > feats["b:sister_lov"] > feats["c:#sis"]


def test_sublinear_term_weight() -> None:
    emb = HashingEmbedder()
    once, thrice = emb.features("docker")["w:docker"], emb.features("docker docker docker")["w:docker"]
    assert thrice == pytest.approx(once * (1.0 + np.log(3)))


def test_rare_words_weigh_more_than_common_ones() -> None:
    """v3: a word's feature (and its char n-grams) carries its rarity, the log of its rank in the
    lexicon's frequency order over the log of the table's size; a word the table lacks weighs 1."""
    table = lexicon()
    first, coach = table.row("first"), table.row("coach")
    assert first is not None and coach is not None and first < coach
    assert rarity(None, len(table)) == 1.0
    assert rarity(first, len(table)) < rarity(coach, len(table)) < 1.0
    assert rarity(0, len(table)) == pytest.approx(math.log(2.0) / math.log(len(table) + 2.0))
    feats = HashingEmbedder().features("first coach zqxv")
    assert feats["w:first"] < feats["w:coach"] < feats["w:zqxv"] == 1.0
    grams = HashingEmbedder().features("first")
    assert sum(w * w for k, w in grams.items() if k.startswith("c:")) == pytest.approx(
        (0.7 * rarity(first, len(table))) ** 2
    )
    # So a question's rare word decides which turn it is nearest, not the common words it shares.
    emb = HashingEmbedder()
    question, rare_match, common_match = emb.embed_sync(
        [
            "which problem was my first 7a",
            "I SENT A 7A. sunday, at nordwand, the orange one",
            "did my first easy session last week, only jugs",
        ]
    )
    assert _cos(question, rare_match) > _cos(question, common_match)
    assert emb.space.fingerprint() == "hash:v4:512"  # new weights or a new table are a new space: stores re-embed


def test_rarity_is_the_same_in_every_process() -> None:
    # The table's order is package data, so a word's rarity (and every vector) is too.
    code = (
        "from trusted_memory.embed.hashing import HashingEmbedder; "
        "print(HashingEmbedder().embed_sync(['which problem was my first 7a'])[0].tobytes().hex())"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            check=True,
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            env={"PYTHONPATH": str(REPO_ROOT), "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(runs) == 1


def test_tokenize_folds_case_accents_and_possessives() -> None:
    assert tokenize("Dana's CAFÉ, naïve ﬁle") == ["dana", "cafe", "naive", "file"]
    assert tokenize("snake_case x") == ["snake", "case"]


@pytest.mark.parametrize(
    ("forms", "expected"),
    [
        (["run", "runs", "running"], "run"),
        (["move", "moves", "moved", "moving"], "mov"),
        (["prefer", "prefers", "preferred"], "prefer"),
        (["sister", "sisters"], "sister"),
        (["family", "families"], "family"),
        (["test", "tests", "testing", "tested"], "test"),
    ],
)
def test_stem_conflates_inflections(forms: list[str], expected: str) -> None:
    assert {stem(f) for f in forms} == {expected}


@pytest.mark.parametrize(
    ("anchor", "related", "unrelated"),
    [
        (
            "I prefer pytest over unittest",
            "which test framework do I like",
            "my sister lives in Lisbon",
        ),
        (
            "My sister Ana lives in Lisbon",
            "where does my sister live these days?",
            "we deploy the API with docker on kubernetes",
        ),
        (
            "We ship the backend with Docker containers on Kubernetes",
            "how do we deploy the service?",
            "my dog Biscuit hates the vet",
        ),
        (
            "I switched from Vim to VS Code last spring",
            "what editor am I using now?",
            "Dana's birthday is on the 14th of March",
        ),
        (
            "Dana was born on 14 March",
            "when is Dana's birthday?",
            "I take the train to work every morning",
        ),
        # Paraphrases sharing no content word: only the meaning part can join these.
        (
            "My older sister Ana lives in Lisbon with her husband",
            "where is my big sibling based these days?",
            "I take the train to work every morning",
        ),
        (
            "Our dog Biscuit is a five-year-old beagle",
            "what breed is our pup?",
            "we moved the billing service to Go",
        ),
        (
            "Mom has taken up watercolour painting",
            "what creative hobby did my mother start?",
            "the standup is at 9:45 every day",
        ),
    ],
)
def test_paraphrase_beats_unrelated(anchor: str, related: str, unrelated: str) -> None:
    a, r, u = HashingEmbedder().embed_sync([anchor, related, unrelated])
    assert _cos(a, r) > _cos(a, u)


def test_rejects_tiny_dims() -> None:
    with pytest.raises(ValueError):
        HashingEmbedder(1)


def test_base_module_does_not_import_numpy() -> None:
    code = "import sys; import trusted_memory.embed.base; sys.exit(1 if 'numpy' in sys.modules else 0)"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO_ROOT, env={"PYTHONPATH": str(REPO_ROOT)})


def test_the_meaning_part_holds_four_fifths_of_the_cosine_of_known_words() -> None:
    """What the seventh pass's diagnosis (benchmarks/RESULTS.md, issue 13) rests on: for texts whose
    content words the table all knows, the cosine is (1 − 0.8) × the hashed part's cosine + 0.8 × the
    meaning part's, so a rare word two chat turns share ("timetable") moves it by at most a fifth, and
    which turns the vector list holds is decided by the averaged word meanings."""
    emb = HashingEmbedder()
    question, turn = "who is taking over the timetable now", "jess will take over the timetable and the script"
    table = lexicon()
    for text in (question, turn):
        content = [t for t in tokenize(text) if t not in STOP_WORDS]
        assert all(table.rows((t, stem(t))) for t in content), content
    q, t = emb.embed_sync([question, turn])
    lexical = 512 - 128
    lex_q, lex_t, sem_q, sem_t = q[:lexical], t[:lexical], q[lexical:], t[lexical:]
    lex_cos = _cos(lex_q, lex_t) / float(np.linalg.norm(lex_q) * np.linalg.norm(lex_t))
    sem_cos = _cos(sem_q, sem_t) / float(np.linalg.norm(sem_q) * np.linalg.norm(sem_t))
    assert float(np.linalg.norm(sem_q)) ** 2 == pytest.approx(0.8, abs=1e-4)
    assert _cos(q, t) == pytest.approx(0.2 * lex_cos + 0.8 * sem_cos, abs=1e-4)


def test_the_token_memo_holds_no_ngram_strings() -> None:
    # A long-running server meets tens of thousands of distinct words; its memo holds a token's
    # facts and slots. With the n-gram strings kept as well a token took ~2.5 KB; now ~1 KB.
    import random
    import string
    import tracemalloc

    rng = random.Random(11)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(9)) for _ in range(3000)]
    emb = HashingEmbedder(512)
    emb.embed_sync(["warm the lexicon and the code paths"])
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(0, len(words), 10):
            emb.embed_sync([" ".join(words[i : i + 10])])
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    tokens = len(emb._tokens)
    assert tokens >= 2900
    assert held / tokens < 1200, f"{held / tokens:.0f} bytes a token"
