"""The word table: each of its words finds its own row, and no other text finds one."""

from __future__ import annotations

from importlib import resources

import numpy as np

from trusted_memory.embed.lexicon import Lexicon


def table_words() -> list[str]:
    with resources.files("trusted_memory.embed").joinpath("data", "lexicon.npz").open("rb") as fh:
        with np.load(fh, allow_pickle=False) as data:
            return str(data["words"]).split("\n")


def test_every_word_finds_its_own_row() -> None:
    words = table_words()
    table = Lexicon.load()
    assert [table.row(word) for word in words] == list(range(len(words)))


def test_other_texts_find_no_row() -> None:
    words = table_words()
    known = {word: i for i, word in enumerate(words)}
    table = Lexicon.load()
    # Near misses of every kind: longer, shorter, joined across the stored separator, empty.
    probes = [w + "x" for w in words[:3000]] + [w[:-1] for w in words[:3000]]
    probes += [f"{words[0]}\n{words[1]}", "", "\n", "zzqqxv"]
    assert [table.row(p) for p in probes] == [known.get(p) for p in probes]
    assert table.rows(["zzqqxv", words[5], words[5], ""]) == [5, 5]  # repeats count again


def test_a_small_table_keeps_its_order() -> None:
    table = Lexicon(["beta", "alpha", "gamma"], np.zeros((3, 4), dtype=np.int8))
    assert table.rows(["gamma", "alpha", "delta", "beta"]) == [2, 1, 0]
