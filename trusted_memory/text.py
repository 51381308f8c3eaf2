"""Word-level text handling shared by keyword recall and the hashing embedder. Pure, no numpy."""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

__all__ = ["STOP_WORDS", "content_terms", "content_words", "fold", "negated", "preview", "stem", "tokenize"]

# Word tokens: runs of letters/digits (underscore splits, so snake_case yields both parts),
# optionally with one apostrophe part ("dana's", "don't").
_TOKEN_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)?")

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "can't",
        "cannot",
        "could",
        "couldn't",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "hadn't",
        "has",
        "hasn't",
        "have",
        "haven't",
        "having",
        "he",
        "he'd",
        "he'll",
        "he's",
        "her",
        "here",
        "here's",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "how's",
        "i",
        "i'd",
        "i'll",
        "i'm",
        "i've",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "let's",
        "me",
        "more",
        "most",
        "mustn't",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "shan't",
        "she",
        "she'd",
        "she'll",
        "she's",
        "should",
        "shouldn't",
        "so",
        "some",
        "such",
        "than",
        "that",
        "that's",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "there's",
        "these",
        "they",
        "they'd",
        "they'll",
        "they're",
        "they've",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "wasn't",
        "we",
        "we'd",
        "we'll",
        "we're",
        "we've",
        "were",
        "weren't",
        "what",
        "what's",
        "when",
        "when's",
        "where",
        "where's",
        "which",
        "while",
        "who",
        "who's",
        "whom",
        "why",
        "why's",
        "will",
        "with",
        "won't",
        "would",
        "wouldn't",
        "you",
        "you'd",
        "you'll",
        "you're",
        "you've",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "again",
        "ago",
        "already",
        "anyway",
        "just",
        "really",
        "actually",
        "basically",
        "maybe",
        "perhaps",
        "probably",
        "still",
        "yet",
        "ok",
        "okay",
        "yeah",
        "yes",
        "hey",
        "please",
        "thanks",
        "thank",
        "im",
        "ive",
        "id",
        "dont",
        "doesnt",
        "didnt",
        "isnt",
        "wasnt",
        "cant",
        "wont",
        "whats",
        "wheres",
        "whens",
        "whos",
        "thats",
        "theres",
        "remember",
        "recall",
        "remind",
        "mention",
        "mentioned",
        "say",
        "said",
        "tell",
        "told",
        "know",
        "think",
        "thing",
        "things",
        "stuff",
        "something",
        "anything",
        "got",
        "get",
        "gets",
        "one",
        "ones",
        "lot",
        "lots",
        "kind",
        "sort",
        "bit",
        "way",
        "much",
        "many",
        "every",
    ]
)

# Irregular forms the suffix stripper cannot reach.
_IRREGULAR = {
    "went": "go",
    "gone": "go",
    "goes": "go",
    "bought": "buy",
    "ate": "eat",
    "eaten": "eat",
    "children": "child",
    "kids": "kid",
    "people": "person",
    "men": "man",
    "women": "woman",
    "wives": "wife",
    "lives": "live",
    "knives": "knife",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "taught": "teach",
    "thought": "think",
    "brought": "bring",
    "made": "make",
    "met": "meet",
    "felt": "feel",
    "kept": "keep",
    "ran": "run",
    "began": "begin",
    "begun": "begin",
    "flew": "fly",
    "flown": "fly",
    "flies": "fly",
    "drove": "drive",
    "driven": "drive",
    "wrote": "write",
    "written": "write",
    "chose": "choose",
    "chosen": "choose",
    "spoke": "speak",
    "spoken": "speak",
    "gave": "give",
    "given": "give",
    "found": "find",
    "took": "take",
    "taken": "take",
    "saw": "see",
    "seen": "see",
    "paid": "pay",
    "sold": "sell",
    "won": "win",
    "lost": "lose",
    "left": "leave",
    "slept": "sleep",
    "built": "build",
    "sent": "send",
    "spent": "spend",
    "broke": "break",
    "broken": "break",
    "fell": "fall",
    "fallen": "fall",
    "grew": "grow",
    "grown": "grow",
    "knew": "know",
    "known": "know",
    "held": "hold",
    "better": "good",
    "best": "good",
    "worse": "bad",
    "worst": "bad",
    "favourite": "favorite",
    "colour": "color",
    "neighbour": "neighbor",
    "mum": "mom",
    "mommy": "mom",
    "daddy": "dad",
}

# Words ending in -er/-ly/-ed/-ing whose ending is not a suffix; stripping would merge them
# with unrelated words (sister → sist, family → fami, bed → b).
_KEEP = frozenset(
    [
        "sister",
        "brother",
        "mother",
        "father",
        "daughter",
        "water",
        "after",
        "never",
        "ever",
        "other",
        "over",
        "under",
        "number",
        "summer",
        "winter",
        "september",
        "october",
        "november",
        "december",
        "computer",
        "paper",
        "power",
        "river",
        "center",
        "centre",
        "finger",
        "butter",
        "dinner",
        "corner",
        "career",
        "danger",
        "cancer",
        "printer",
        "server",
        "docker",
        "container",
        "letter",
        "matter",
        "order",
        "answer",
        "member",
        "folder",
        "filter",
        "poster",
        "player",
        "partner",
        "manager",
        "player",
        "master",
        "monster",
        "weather",
        "together",
        "tower",
        "flower",
        "silver",
        "soccer",
        "burger",
        "dumpster",
        "ginger",
        "pepper",
        "lobster",
        "oyster",
        "prefer",
        "offer",
        "refer",
        "consider",
        "remember",
        "gather",
        "wonder",
        "bother",
        "cover",
        "deliver",
        "discover",
        "enter",
        "register",
        "trigger",
        "family",
        "italy",
        "july",
        "only",
        "early",
        "daily",
        "reply",
        "supply",
        "apply",
        "belly",
        "jelly",
        "holy",
        "ugly",
        "july",
        "bed",
        "red",
        "shed",
        "need",
        "seed",
        "speed",
        "feed",
        "wed",
        "ted",
        "fred",
        "sled",
        "weed",
        "bleed",
        "breed",
        "thing",
        "king",
        "ring",
        "sing",
        "wing",
        "spring",
        "string",
        "morning",
        "evening",
        "ceiling",
        "wedding",
        "pudding",
        "sibling",
        "nothing",
        "something",
        "everything",
        "anything",
        "building",
        "meeting",
        "ping",
        "ding",
        "bring",
        "swing",
        "sling",
        "news",
        "series",
        "species",
        "analysis",
        "bus",
        "gas",
        "yes",
        "plus",
        "us",
        "this",
        "his",
        "is",
        "was",
        "has",
        "does",
        "always",
        "perhaps",
        "kubernetes",
        "ios",
        "macos",
        "aws",
        "postgres",
        "redis",
        "jenkins",
        "paris",
        "athens",
        "texas",
    ]
)


def _undouble(word: str) -> str:
    """Undo consonant doubling before a suffix (running → run), but not ll/ss/zz/ff."""
    if len(word) >= 3 and word[-1] == word[-2] and word[-1] not in "aeiouylsfz":
        return word[:-1]
    return word


def stem(word: str) -> str:
    """Return a conservative stem: plurals, -ing, -ed, -ly, -er and a final -e are stripped."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or word in _KEEP or not word.isalpha():
        return word
    w = word
    # Plurals first, so "runners" → "runner" → "run".
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        w = w[:-1]
    if w in _KEEP:
        return w
    if w.endswith("ing") and len(w) >= 6:
        w = _undouble(w[:-3])
    elif w.endswith("ed") and len(w) >= 5:
        w = _undouble(w[:-2])
    elif w.endswith("ly") and len(w) >= 6:
        w = w[:-2]
    elif w.endswith("er") and len(w) >= 6:
        w = _undouble(w[:-2])
    if w in _KEEP:
        return w
    # Drop a final -e so move/moves/moved/moving all meet at "mov".
    if w.endswith("e") and len(w) >= 4:
        w = w[:-1]
    return w


def fold(text: str) -> str:
    """Case-fold, NFKC-normalise and strip accents so "Café" and "cafe" match."""
    text = text.replace("\u2019", "'").casefold()
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return unicodedata.normalize("NFKC", text)


def _clean_token(tok: str) -> str:
    """Drop possessive 's and inner apostrophes ("dana's" → "dana", "don't" → "dont")."""
    if "'" not in tok:
        return tok
    if tok.endswith("'s") and tok not in STOP_WORDS:
        return tok[:-2]
    return tok.replace("'", "") if tok not in STOP_WORDS else tok


def tokenize(text: str) -> list[str]:
    """Split ``text`` into folded word tokens (stop words included, single letters dropped)."""
    return [_clean_token(t) for t in _TOKEN_RE.findall(fold(text)) if len(t) > 1 or t.isdigit()]


# Words that turn a statement around. They are stop words, so word sets and the embedder's
# features cannot tell "I eat meat" from "I don't eat meat": merges and duplicate checks ask this.
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|neither|nor|cannot|without"
    r"|(?:do|does|did|is|are|was|were|ca|wo|sha|have|has|had|could|should|would|might|must|need|ai)n'?t)\b",
    re.IGNORECASE,
)
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u00b4": "'"})


@functools.lru_cache(maxsize=8192)
def negated(text: str) -> bool:
    """Whether a text contains a negation ("not", "never", "no", "don't", "can't" …)."""
    return _NEGATION.search(text.translate(_APOSTROPHES)) is not None


@functools.lru_cache(maxsize=8192)
def content_words(text: str) -> frozenset[str]:
    """The set of a text's content words (memoised: recall sees the same atoms query after query)."""
    # Interned: the memo's 8,192 sets share a few thousand words, so one copy of each word serves
    # them all (a full memo of chat turns held ~100,000 word strings, ~5 MB, for ~4,000 words).
    return frozenset(sys.intern(token) for token in tokenize(text) if token not in STOP_WORDS)


def content_terms(text: str) -> list[str]:
    """The meaningful words of a text, in order, without stop words or repeats."""
    seen: list[str] = []
    for token in tokenize(text):
        if token not in STOP_WORDS and token not in seen:
            seen.append(token)
    return seen


def preview(text: str, limit: int) -> str:
    """A one-line preview of `text`: whitespace runs as one space, cut to `limit` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
