"""Keyword search on PostgreSQL: the stored `tsvector` of each live atom and episode, GIN-indexed.

FTS5 ranks by BM25. PostgreSQL's ts_rank is not BM25, and the services read keyword scores on
BM25's scale (ranking.query_information: a match's score over the sum of its terms' IDFs). So the
score here is BM25 with one occurrence per matched term, the common case for memories of a line or
a chat turn: the sum over matched terms of idf = ln((N − n + 0.5) / (n + 0.5)) times the weight of
the best column it matched in (text 1.0, cue 0.5, tags 0.4, FTS5's weights in recall.py). Each
term is a phrase query (`phraseto_tsquery`), so user text is never tsquery syntax.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# The column weights of FTS5's bm25(atoms_fts, 1.0, 0.4, 0.5), by tsvector weight label (schema.py).
COLUMN_WEIGHTS = (("A", 1.0), ("B", 0.5), ("C", 0.4))


def clean_terms(terms: Sequence[str]) -> list[str]:
    """The terms a query may use: printable characters, not blank."""
    cleaned = ("".join(ch for ch in term if ch.isprintable()) for term in terms)
    return [term for term in cleaned if term.strip()]


def term_query(placeholder: str = "?") -> str:
    """One term as a tsquery."""
    return f"phraseto_tsquery('english', {placeholder})"


def any_term(count: int) -> str:
    """A tsquery matching any of `count` terms (one ? each)."""
    return "(" + " || ".join(term_query() for _ in range(count)) + ")"


def idf(doc_count: int, total: int) -> float:
    """BM25's inverse document frequency, as FTS5 computes it (at least 1e-6)."""
    n_docs = max(total, doc_count, 1)
    return max(1e-6, math.log((n_docs - doc_count + 0.5) / (doc_count + 0.5)))


def term_score(weight_param: str = "?") -> str:
    """A matched term's contribution (bind: the term once per column, then its idf)."""
    cases = " ".join(
        f"WHEN ts_filter(document, '{{{label.lower()}}}') @@ {term_query()} THEN {weight}"
        for label, weight in COLUMN_WEIGHTS
    )
    return f"(CASE {cases} ELSE 0 END) * {weight_param}"


def keyword_atoms(count: int, where: str) -> str:
    """Live atoms matching any of `count` terms, best first (bind: the terms, the filter's params,
    then per term: itself once per column and its idf; then the limit)."""
    score = " + ".join(term_score() for _ in range(count))
    return (
        f"SELECT num, score FROM (SELECT num, {score} AS score FROM atoms "
        f"WHERE atoms.status = 'live' AND document @@ {any_term(count)}{where}) AS matched "
        "ORDER BY score DESC, num LIMIT ?"
    )


def keyword_params(terms: Sequence[str], idfs: Sequence[float]) -> list[object]:
    """The per-term parameters of keyword_atoms' score."""
    out: list[object] = []
    for term, weight in zip(terms, idfs, strict=True):
        out.extend([term] * len(COLUMN_WEIGHTS))
        out.append(weight)
    return out


def doc_counts(count: int, cap: int) -> str:
    """For each of `count` terms, in how many live atoms it occurs, up to `cap` (one ? each), and the
    number of live atoms (the planner's estimate once the table is analysed; counted before)."""
    one = (
        "(SELECT count(*) FROM (SELECT 1 FROM atoms WHERE status = 'live' AND document @@ "
        f"{term_query()} LIMIT {int(cap)}) AS hits)"
    )
    total = (
        "(SELECT CASE WHEN reltuples >= 0 THEN reltuples::bigint "
        "ELSE (SELECT count(*) FROM atoms WHERE status = 'live') END FROM pg_class WHERE oid = 'atoms'::regclass)"
    )
    return f"SELECT {', '.join([one] * count + [total])}"


def live_atom_count() -> str:
    """How many live atoms there are, exactly."""
    return "SELECT count(*) FROM atoms WHERE status = 'live'"


def keyword_episodes(count: int, mine: bool) -> str:
    """Live episodes matching any of `count` terms, best first (bind: the terms twice, now, [owner], limit)."""
    return (
        f"SELECT id, ts_rank(document, {any_term(count)}, 1) AS score FROM episodes "
        f"WHERE status = 'live' AND document @@ {any_term(count)} "
        f"AND (expires_at IS NULL OR expires_at > ?){' AND owner = ?' if mine else ''} "
        "ORDER BY score DESC, num LIMIT ?"
    )
