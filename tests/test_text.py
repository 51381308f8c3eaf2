"""Tests for the text helpers' memos."""

from __future__ import annotations

from trusted_memory.text import content_words


def test_memoised_word_sets_share_one_copy_of_each_word() -> None:
    # The memo holds thousands of word sets of the same few thousand words: each word once.
    first = content_words("my sister moved to denver in spring")
    second = content_words("we drove to denver with my sister")
    assert first & second == {"sister", "denver"}
    shared = {id(w) for w in first} & {id(w) for w in second}
    assert len(shared) == 2
    assert content_words("Denver, again!") == frozenset({"denver"})  # "again" is a stop word
