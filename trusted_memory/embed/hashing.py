"""The default embedder: feature hashing over words, bigrams, char n-grams and concepts, plus meaning.

No download and no corpus fit: a text's vector depends only on the text and ``dims``, so every
process embeds the same text to the same bytes. Two parts, each L2-normalised, are joined:

- lexical (``dims - dims // 4`` wide): features hashed with keyed BLAKE2b (never Python's salted
  ``hash()``) into signed buckets, weighted sublinearly; a word and its char n-grams also by how
  rare the word is (its rank in the bundled lexicon's frequency order, see ``rarity``);
- semantic (``dims // 4`` wide, at most 128): the rank-weighted sum of the words' vectors from the
  bundled lexicon (``lexicon.py``), so "pup" and "dog" or "vacation" and "holiday" meet although
  they share no letters. Measured on benchmarks/data: vector R@10 0.41 -> 0.62. Since v4 the
  table's vectors are fitted so that this sum points where all-MiniLM-L6-v2 puts the whole text
  (``scripts/fit_lexicon.py``), not where it puts each word alone.

The cosine of two vectors is then ``(1 - SEMANTIC_SHARE) * lexical + SEMANTIC_SHARE * semantic``
(a text with no lexicon word has only its lexical part).
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..text import STOP_WORDS, stem, tokenize
from .base import EmbeddingSpace
from .lexicon import LEXICON_DIMS, lexicon

__all__ = ["HashingEmbedder", "hash_feature", "rarity", "stem", "tokenize"]

# Group weights, tuned on benchmarks/data (words carry the most meaning; char n-grams mainly
# rescue typos, inflections and compounds; concepts bridge paraphrases that share no word).
WORD_WEIGHT = 1.0
BIGRAM_WEIGHT = 0.4
CHAR_WEIGHT = 0.7
CONCEPT_WEIGHT = 0.8
CHAR_NGRAM_SIZES = (3, 4, 5)
# The semantic part's share of the cosine (tuned on the even half of benchmarks/data, checked on
# the odd half: 0.7-0.9 all land within a point; the rest stays lexical for names and exact terms).
SEMANTIC_SHARE = 0.8
MIN_SEMANTIC_DIMS = 16  # below this a meaning vector is too coarse to help: lexical only

# Bump when anything above or below changes the vectors: it is part of the fingerprint.
# v1: lexical only; v2: lexical + lexicon meaning; v3: lexical words weighted by rarity;
# v4: the lexicon's vectors fitted to sentence embeddings (same words, same composition).
_MODEL_VERSION = "v4"
# How cosines of this space read (see EmbeddingSpace): unrelated texts average ~0.10 (their shared
# meaning directions), a question and its answer ~0.36 on benchmarks/data — measured at the default
# 512 dims; narrower meaning parts spread unrelated cosines wider. Lexical only (< 64 dims): 0.
_COSINE_FLOOR = 0.1
_COSINE_FULL = 0.6
_HASH_PERSON = b"mcp-memory-hash1"  # BLAKE2b personalisation: our hashes, not anyone else's
# Memo entries per instance before a cache is dropped wholesale. A token's entries (its facts and
# its n-grams' slots, not the n-gram strings) take ~0.9 KB of RSS (2.3 KB while the strings were kept),
# so the limit bounds a long-running server's memo to ~30 MB however varied its users' words
# (benchmarks/RESULTS.md, issue 13, seventh pass); a chat's vocabulary stays under it.
# Feature slots are mostly one-off bigrams ("b:x_y") that rarely come back: at 200,000 they held
# ~12 MB after 30,000 conversational memories for no measurable CPU (benchmarks/RESULTS.md, issue 13,
# fifth pass).
_TOKEN_CACHE_LIMIT = 32_768
_SLOT_CACHE_LIMIT = 8_192

# Concept tags, used only as extra features ("k:<tag>"): each line is "tag: trigger words".
# Triggers are matched on the surface token and on its stem. Kept general: how people talk.
_CONCEPTS_SRC = """
family: family sister brother sibling mom mother dad father parent son daughter kid child baby
  grandma grandmother grandpa grandfather granny nana grandparent aunt uncle cousin niece nephew
  wife husband spouse twin stepdad stepmom stepmother stepfather relative inlaw
child: son daughter kid child baby toddler niece nephew newborn teenager boy girl
partner: wife husband spouse partner boyfriend girlfriend fiance fiancee married marriage
  wedding anniversary engaged engagement
friend: friend buddy pal mate bestie roommate flatmate neighbor
colleague: colleague coworker teammate manager boss lead cto ceo intern team report
  supervisor
pet: pet dog puppy pup cat kitten hamster parrot rabbit bunny goldfish tortoise turtle vet
  leash breed labrador retriever terrier poodle beagle tabby spaniel collie dachshund corgi
residence: live living moved move home house apartment flat city town neighborhood address
  based relocate relocated suburb downtown where
place: where city town country lisbon porto madrid barcelona valencia seville paris lyon
  marseille london manchester bristol berlin munich hamburg amsterdam rotterdam brussels rome
  milan florence naples venice vienna prague dublin cork edinburgh glasgow copenhagen stockholm
  oslo helsinki reykjavik warsaw krakow budapest athens istanbul tokyo kyoto osaka seoul busan
  beijing shanghai taipei singapore bangkok hanoi bali sydney melbourne brisbane auckland
  toronto vancouver montreal chicago boston seattle austin denver portland york brooklyn
  francisco oakland angeles miami atlanta dallas houston phoenix philadelphia nashville mexico
  bogota lima santiago buenos rio cairo marrakech nairobi lagos cape mumbai delhi bangalore
  portugal spain france germany italy japan canada ireland scotland england britain usa
  america brazil argentina chile peru colombia india china korea vietnam thailand indonesia
  australia zealand greece netherlands belgium sweden norway denmark finland iceland poland
  austria switzerland croatia morocco egypt kenya turkey
date: when date day week month year january february march april may june july august
  september october november december jan feb mar apr jun jul aug sep sept oct nov dec monday
  tuesday wednesday thursday friday saturday sunday weekend tomorrow yesterday today tonight
birthday: birthday bday born birth turns turning age old cake
schedule: schedule calendar appointment meeting standup weekly daily monthly every routine
  usually morning evening afternoon night
deadline: deadline due launch release milestone sprint quarter eta cutoff submit
travel: travel trip vacation holiday flight fly visit abroad tour backpacking itinerary
  hotel airbnb passport visa journey getaway honeymoon sabbatical
food: food eat meal dinner lunch breakfast brunch cook cooking recipe restaurant cuisine dish
  snack taste italian japanese thai indian mexican chinese korean vietnamese french greek
  lebanese ethiopian ramen sushi pizza pasta curry taco tacos burrito pho noodle dumpling
  burger steak salad soup bbq barbecue chocolate dessert spicy
diet: vegetarian vegan pescatarian gluten dairy lactose allergy allergic intolerant
  intolerance keto diet peanut shellfish nut celiac meat
drink: coffee espresso latte cappuccino flat tea matcha beer wine cocktail whisky whiskey
  juice soda drink alcohol sober
cafe: cafe coffee bakery bar pub bistro brewery diner
music: music song band album playlist listen concert gig jazz rock pop classical hiphop rap
  metal indie folk techno spotify vinyl guitar piano drums violin sing singer choir
exercise: exercise workout gym run running jog marathon cycle cycling bike swim swimming
  yoga pilates climb climbing bouldering hike hiking tennis football soccer basketball ski
  skiing surf surfing fitness training sport sports
health: health doctor dentist physio therapist therapy medication meds pill prescription
  sick ill injury surgery symptom migraine headache knee asthma diabetes blood pressure
  insomnia diagnosed hospital clinic checkup allergy
sleep: sleep bed nap insomnia wake alarm tired
reading: book read reading novel author kindle audiobook library
media: movie film show series watch netflix tv episode cinema podcast documentary
hobby: hobby hobbies painting photography gardening garden knitting chess woodworking pottery
  baking drawing sewing crochet lego puzzle boardgame
finance: money budget salary pay rent mortgage loan savings save invest investment stock
  stocks crypto bank tax taxes expense expenses spend spending bill bills debt pension
  retirement insurance price cost afford euro euros dollar dollars pound income
employer: job work works working employer company firm startup office career position role
  hired hire promotion promoted quit resign layoff interview offer contract freelance client
  employed
education: school university college degree course class study studying exam thesis phd
  masters bachelor teacher student lecture semester
transport: car drive driving commute bus train subway metro tram uber taxi parking bike
programming_language: language python javascript typescript java go golang rust ruby php
  kotlin swift scala elixir haskell cpp csharp clojure lua perl julia dart ocaml zig
test_framework: test tests testing tester pytest unittest jest mocha vitest junit rspec
  cypress playwright selenium hypothesis tdd coverage nose doctest
editor: editor ide vim neovim nvim emacs vscode sublime intellij pycharm webstorm jetbrains
  helix zed nano keybindings
deploy: deploy deployment deploying release ship docker container kubernetes k8s helm heroku
  vercel netlify render aws gcp azure ecs lambda terraform ansible pipeline staging
  production prod hosting hosted cluster rollout rollback
database: database db postgres postgresql mysql sqlite mongo mongodb redis dynamodb cassandra
  elasticsearch sql query schema migration migrations table index orm
vcs: git github gitlab bitbucket branch commit merge rebase pr review
frontend: react vue angular svelte nextjs css html tailwind frontend ui component webpack vite
backend: api backend server endpoint rest graphql grpc django flask fastapi rails express
  spring laravel microservice service
machine: laptop macbook mac linux ubuntu windows fedora desktop terminal shell zsh bash fish
  dotfiles
code_style: formatter format formatting lint linter black ruff prettier eslint flake8 isort
  style indent indentation tabs spaces convention naming camelcase docstring typing mypy
error: error bug crash exception traceback fail failing failure broken timeout flaky issue
  fix segfault panic oom leak warning
preference: prefer preference favorite like love enjoy fan hate dislike rather
decision: decide decided decision chose choose agreed agree settle settled switch switched
  migrate pick picked
goal: goal want wish hope plan aim dream someday eventually learn resolution target
season: summer winter spring autumn fall season weather
communication: email slack call phone text message whatsapp zoom signal
home: home house apartment garden kitchen room bedroom renovation landlord lease
event: wedding party celebration anniversary graduation funeral reunion festival
shopping: buy purchase order shop shopping store amazon
gift: gift present gifts surprise
docs: docs documentation wiki link url readme guide manual reference spec
file: file path folder directory config dotfile yaml json toml env
security: password secret key token credential auth login ssh vpn
"""


def _parse_concepts(src: str) -> dict[str, tuple[str, ...]]:
    """Parse the concept table into trigger word -> concept tags (stems included)."""
    out: dict[str, list[str]] = {}
    tag = ""
    for line in src.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            tag, _, line = line.partition(":")
        for word in line.split():
            for key in {word, stem(word)}:
                tags = out.setdefault(key, [])
                if tag not in tags:
                    tags.append(tag)
    return {k: tuple(v) for k, v in out.items()}


def hash_feature(feature: str) -> int:
    """Return the stable unsigned 64-bit hash of one feature string."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8, person=_HASH_PERSON).digest()
    return int.from_bytes(digest, "little")


def _char_ngrams(token: str) -> list[str]:
    """Character n-grams of ``#token#`` (word-boundary marked), sizes 3 to 5."""
    padded = f"#{token}#"
    return [padded[i : i + n] for n in CHAR_NGRAM_SIZES for i in range(len(padded) - n + 1)]


def _ngram_count(token: str) -> int:
    """len(_char_ngrams(token)), without building them."""
    return sum(max(0, len(token) + 3 - n) for n in CHAR_NGRAM_SIZES)


_CONCEPTS = _parse_concepts(_CONCEPTS_SRC)


@dataclass(frozen=True, slots=True)
class _Token:
    """Per-token facts that depend only on the token, memoised across texts."""

    stem: str | None  # None for stop words: no word/bigram features
    concepts: tuple[str, ...]
    meaning: int | None  # lexicon row of the word (or of its stem); None for stop and unknown words
    grams: int  # how many char n-grams (their strings are rebuilt when needed: see _char_ngrams)
    gram_weight: float  # weight of each char n-gram: its n-grams have norm CHAR_WEIGHT × rarity
    rarity: float  # weight of its word feature (see rarity)


def rarity(row: int | None, words: int) -> float:
    """How much a word says, 0-1: log of its frequency rank over the log of the table's size.

    Chat questions share common words ("first", "time", "home") with many turns and a rare one
    ("7a", "Bev", "coach") with the answer. With every word at full weight the hashed part rated
    the common-word matches as high as BM25 rates the rare one low, and pulled them over the
    evidence in the fused list. A word the table does not know (a name, an identifier, a typo) is
    rare: 1. Measured (benchmarks/RESULTS.md, issue 13, sixth pass): vector R@10 up on all five
    conversation sets and both one-line sets, the hybrid never lower. Squaring it, weighting
    bigrams by it too, or raising unknown words to 1.5 traded one set against another.
    """
    if row is None:
        return 1.0
    return min(1.0, math.log(row + 2.0) / math.log(words + 2.0))


def _stem_rarity(infos: Sequence[_Token]) -> dict[str, float]:
    """Each stem's rarity (the rarest spelling of it in the text: "run" and "running" share one)."""
    out: dict[str, float] = {}
    for info in infos:
        if info.stem is not None and info.rarity > out.get(info.stem, -1.0):
            out[info.stem] = info.rarity
    return out


def _analyse(token: str, *, meaning: bool) -> _Token:
    """Compute the memoisable features of one token."""
    is_stop = token in STOP_WORDS
    s = None if is_stop else stem(token)
    concepts = _CONCEPTS.get(token) or (_CONCEPTS.get(s, ()) if s else ())
    # Stop words get no char n-grams either: measured on benchmarks/data, they only add noise.
    # Short numbers ("10", "3") have no useful sub-structure.
    # Only their count is kept: the strings were ~40 % of the memo's bytes, and the slots they hash
    # to are memoised per token (HashingEmbedder._grams).
    grams = 0 if is_stop or (token.isdigit() and len(token) < 4) else _ngram_count(token)
    row = None
    rare = 1.0
    if meaning and s is not None:
        table = lexicon()
        found = table.rows((token, s))
        row = found[0] if found else None
        rare = rarity(row, len(table))
    weight = CHAR_WEIGHT * rare / math.sqrt(grams) if grams else 0.0
    return _Token(s, concepts, row, grams, weight, rare)


class HashingEmbedder:
    """Deterministic, dependency-light embedder: signed feature hashing, sublinear tf, L2 norm."""

    def __init__(self, dims: int = 512) -> None:
        """Create an embedder producing ``dims``-dimensional vectors (e.g. 256/384/512/768)."""
        if dims < 2:
            raise ValueError(f"dims must be >= 2, got {dims}")
        self._dims = dims
        semantic = min(LEXICON_DIMS, dims // 4)
        self._semantic_dims = semantic if semantic >= MIN_SEMANTIC_DIMS else 0
        self._lexical_dims = dims - self._semantic_dims
        floor = _COSINE_FLOOR if self._semantic_dims else 0.0
        self._space = EmbeddingSpace("hash", _MODEL_VERSION, dims, floor, _COSINE_FULL)
        self._tokens: dict[str, _Token] = {}
        # feature -> (bucket, sign); for char n-grams per token: (buckets, signed weights).
        self._slots: dict[str, tuple[int, float]] = {}
        self._gram_slots: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]] = {}

    @property
    def space(self) -> EmbeddingSpace:
        """The embedding space: ``hash:v4:<dims>``."""
        return self._space

    @property
    def dims(self) -> int:
        """Vector width."""
        return self._dims

    def warm_up(self) -> None:
        """Read the word table now (~80 ms), so the first search does not wait for it."""
        if self._semantic_dims:
            lexicon()

    def _token(self, token: str) -> _Token:
        info = self._tokens.get(token)
        if info is None:
            if len(self._tokens) >= _TOKEN_CACHE_LIMIT:
                self._tokens.clear()
            info = self._tokens[token] = _analyse(token, meaning=self._semantic_dims > 0)
        return info

    def _slot(self, feature: str) -> tuple[int, float]:
        slot = self._slots.get(feature)
        if slot is None:
            h = hash_feature(feature)
            # The sign comes from the top bit, independent of the bucket (low bits mod dims),
            # so colliding features cancel on average instead of piling up.
            slot = (h % self._lexical_dims, -1.0 if h >> 63 else 1.0)
            if len(self._slots) >= _SLOT_CACHE_LIMIT:
                self._slots.clear()
            self._slots[feature] = slot
        return slot

    def _grams(self, token: str, info: _Token) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        cached = self._gram_slots.get(token)
        if cached is None:
            slots = [self._slot("c:" + g) for g in _char_ngrams(token)]
            idx = np.fromiter((s[0] for s in slots), dtype=np.int64, count=len(slots))
            val = np.fromiter((s[1] for s in slots), dtype=np.float64, count=len(slots))
            cached = (idx, val * info.gram_weight)
            if len(self._gram_slots) >= _TOKEN_CACHE_LIMIT:
                self._gram_slots.clear()
            self._gram_slots[token] = cached
        return cached

    def features(self, text: str) -> dict[str, float]:
        """Return feature -> weight before hashing ("w:", "b:", "c:", "k:" prefixes)."""
        out: dict[str, float] = {}
        tokens = tokenize(text)
        infos = [self._token(t) for t in tokens]
        stems = [i.stem for i in infos if i.stem is not None]
        rare = _stem_rarity(infos)
        for s, c in Counter(stems).items():
            out["w:" + s] = WORD_WEIGHT * rare[s] * (1.0 + math.log(c))
        for bg, c in Counter(itertools.pairwise(stems)).items():
            out[f"b:{bg[0]}_{bg[1]}"] = BIGRAM_WEIGHT * (1.0 + math.log(c))
        for k, c in Counter(k for i in infos for k in i.concepts).items():
            out["k:" + k] = CONCEPT_WEIGHT * (1.0 + math.log(c))
        for tok, c in Counter(tokens).items():
            info = self._token(tok)
            for g in _char_ngrams(tok) if info.grams else ():
                key = "c:" + g
                out[key] = out.get(key, 0.0) + info.gram_weight * (1.0 + math.log(c))
        return out

    def _text_parts(
        self,
        tokens: list[str],
        infos: list[_Token],
        idx_parts: list[npt.NDArray[np.int64]],
        val_parts: list[npt.NDArray[np.float64]],
    ) -> int:
        """Append one text's (bucket, signed weight) arrays; return how many entries were added."""
        if not tokens:
            return 0
        stems = [i.stem for i in infos if i.stem is not None]
        idx: list[int] = []
        val: list[float] = []
        slot = self._slot
        rare = _stem_rarity(infos)
        for feat, c in Counter(stems).items():
            bucket, sign = slot("w:" + feat)
            idx.append(bucket)
            val.append(sign * WORD_WEIGHT * rare[feat] * (1.0 + math.log(c)))
        for prefix, weight, counts in (
            ("b:", BIGRAM_WEIGHT, Counter(f"{a}_{b}" for a, b in itertools.pairwise(stems))),
            ("k:", CONCEPT_WEIGHT, Counter(k for i in infos for k in i.concepts)),
        ):
            for feat, c in counts.items():
                bucket, sign = slot(prefix + feat)
                idx.append(bucket)
                val.append(sign * weight * (1.0 + math.log(c)) if c > 1 else sign * weight)
        n = len(idx)
        idx_parts.append(np.array(idx, dtype=np.int64))
        val_parts.append(np.array(val, dtype=np.float64))
        info_of = dict(zip(tokens, infos, strict=True))
        for tok, c in Counter(tokens).items():
            info = info_of[tok]
            if info.grams:
                gi, gv = self._grams(tok, info)
                idx_parts.append(gi)
                val_parts.append(gv * (1.0 + math.log(c)) if c > 1 else gv)
                n += len(gi)
        return n

    def embed_sync(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` into L2-normalised float32 rows of shape ``(len(texts), dims)``."""
        tokens = [tokenize(text) for text in texts]
        infos = [[self._token(t) for t in toks] for toks in tokens]
        lexical = self._lexical(tokens, infos)
        if not self._semantic_dims:
            return lexical.astype(np.float32)
        table = lexicon()
        semantic = np.zeros((len(texts), self._semantic_dims), dtype=np.float64)
        share = np.zeros((len(texts), 1), dtype=np.float64)
        for row, text_infos in enumerate(infos):
            content = [info for info in text_infos if info.stem is not None]
            rows = [info.meaning for info in content if info.meaning is not None]
            if rows:
                semantic[row] = table.embed_rows(rows, self._semantic_dims)
                # The meaning part speaks for the words the lexicon knows, no more: a text of
                # identifiers and names ("pytest over unittest") stays mostly lexical.
                share[row] = SEMANTIC_SHARE * len(rows) / len(content)
        joined = np.hstack([lexical * np.sqrt(1.0 - share), semantic * np.sqrt(share)])
        # Both parts are unit length (or zero), so rows already are unit length (or zero).
        return joined.astype(np.float32)

    def _lexical(self, tokens: list[list[str]], infos: list[list[_Token]]) -> npt.NDArray[np.float64]:
        """The hashed part: L2-normalised float64 rows of shape ``(len(texts), lexical dims)``."""
        n_texts = len(tokens)
        idx_parts: list[npt.NDArray[np.int64]] = []
        val_parts: list[npt.NDArray[np.float64]] = []
        counts = np.empty(n_texts, dtype=np.int64)
        for row in range(n_texts):
            counts[row] = self._text_parts(tokens[row], infos[row], idx_parts, val_parts)
        idx = np.concatenate(idx_parts) if idx_parts else np.zeros(0, dtype=np.int64)
        if not idx.size:
            return np.zeros((n_texts, self._lexical_dims), dtype=np.float64)
        val = np.concatenate(val_parts)
        # One bincount over flat (row * dims + bucket) positions sums every feature of the
        # batch at once; float64 accumulation keeps results independent of batch composition.
        width = self._lexical_dims
        flat_idx = idx if n_texts == 1 else np.repeat(np.arange(n_texts, dtype=np.int64), counts) * width + idx
        flat = np.bincount(flat_idx, weights=val, minlength=n_texts * width)
        mat: npt.NDArray[np.float64] = flat.reshape(n_texts, width).astype(np.float64, copy=False)
        norms = np.sqrt(np.einsum("ij,ij->i", mat, mat))[:, None]
        # Empty (or fully cancelled) rows stay zero instead of becoming NaN.
        np.divide(mat, norms, out=mat, where=norms > 0)
        return mat

    async def embed_batch(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` (see ``embed_sync``); CPU-bound and fast, so no thread hop."""
        return self.embed_sync(texts)
