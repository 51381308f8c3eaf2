"""Keyword search on PostgreSQL: the stored `tsvector` of each live atom and episode, GIN-indexed.

FTS5 ranks by BM25. PostgreSQL's ts_rank is not BM25, and the services read keyword scores on
BM25's scale (ranking.query_information: a match's score over the sum of its terms' IDFs). So the
score here is BM25 with one occurrence per matched term, the common case for memories of a line or
a chat turn: the sum over matched terms of idf = ln((N − n + 0.5) / (n + 0.5)) times the weight of
the best column it matched in (text 1.0, cue 0.5, tags 0.4, FTS5's weights in recall.py). Each
term is a phrase query (`phraseto_tsquery`), so user text is never tsquery syntax.

Every query a statement builds from its terms is a scalar subquery, so PostgreSQL computes it once
per statement (an InitPlan) rather than once per row it tests: a prepared statement's generic plan
would otherwise parse and stem each term again for every matching row and every column. A term's
match in one column is the term's query with that column's weight label on each lexeme
(`'climb':A`), which the stored vector answers as it is, rather than a copy of the vector filtered
to that column (`ts_filter`) for every row and term: the same matches, four times faster at 10k atoms.

Without a filter (the common search), the idf counts come from the rows the statement scores
(keyword_atoms_counted), not from a scan of each term's documents of their own.
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


# A lexeme as tsquery's text form writes it: quoted, a quote inside doubled (a regular expression, in SQL).
_LEXEME = r"'''(?:[^'']|'''')*'''"


def term_query(placeholder: str = "?") -> str:
    """One term as a tsquery, computed once per statement."""
    return f"(SELECT phraseto_tsquery('english', {placeholder}))"


def weighted_term(label: str, placeholder: str = "?") -> str:
    """One term as a tsquery matching in the column of weight `label` only, computed once per statement."""
    return (
        f"(SELECT regexp_replace(phraseto_tsquery('english', {placeholder})::text, {_LEXEME}, "
        rf"'\&:{label}', 'g')::tsquery)"
    )


def any_term(count: int) -> str:
    """A tsquery matching any of `count` terms (one ? each), computed once per statement."""
    return "(SELECT " + " || ".join("phraseto_tsquery('english', ?)" for _ in range(count)) + ")"


def idf(doc_count: int, total: int) -> float:
    """BM25's inverse document frequency, as FTS5 computes it (at least 1e-6)."""
    n_docs = max(total, doc_count, 1)
    return max(1e-6, math.log((n_docs - doc_count + 0.5) / (doc_count + 0.5)))


def term_score(weight_param: str = "?") -> str:
    """A matched term's contribution (bind: the term, then once per column, then its idf).

    A row matches one or two of a query's terms as a rule: the first test (the term anywhere)
    settles every other term in one test instead of one per column."""
    cases = " ".join(f"WHEN document @@ {weighted_term(label)} THEN {weight}" for label, weight in COLUMN_WEIGHTS)
    return f"(CASE WHEN NOT document @@ {term_query()} THEN 0 {cases} ELSE 0 END) * {weight_param}"


def _idf_sql(i: int) -> str:
    """`idf` in SQL, of term i's count in the statement's `counts` row (float8 as Python's float)."""
    n, total = f"counts.idf_n{i}", "counts.idf_total"
    return f"GREATEST(1e-6, ln((GREATEST({total}, {n}, 1) - {n} + 0.5::float8) / ({n} + 0.5::float8)))"


def keyword_atoms(count: int, where: str, cap: int) -> str:
    """Live atoms matching any of `count` terms, best first, each term weighed by its idf over its
    documents counted up to `cap` (doc_counts' counts, in the same statement: one round trip).
    Each row also carries those counts (columns 2 onwards), which RecallRepo.doc_counts reuses.
    Bind keyword_params(terms), then the filter's params, then the limit."""
    score = " + ".join(term_score(_idf_sql(i)) for i in range(count))
    counted = ", ".join([*(f"{_count_sql(cap)} AS idf_n{i}" for i in range(count)), f"{_TOTAL_SQL} AS idf_total"])
    carried = "".join(f", counts.idf_n{i}" for i in range(count))
    # OFFSET 0 keeps the counts' row a row: pulled up into the query, each of idf's three uses of a
    # count became a count of its own (three scans of the term's documents instead of one).
    return (
        f"SELECT * FROM (SELECT num, {score} AS score{carried} FROM atoms, (SELECT {counted} OFFSET 0) AS counts "
        f"WHERE atoms.status = 'live' AND document @@ {any_term(count)}{where}) AS matched "
        "ORDER BY score DESC, num LIMIT ?"
    )


def keyword_atoms_counted(count: int, cap: int) -> str:
    """keyword_atoms without a filter, its idf counts taken from the rows it scores.

    With no filter, the rows matching any term hold every row each term's count would visit. So
    each row's matches are tested once (term by term, column by column, as term_score does), and a
    term's count is how many of those rows it matched, up to `cap`: the same counts and scores,
    without a scan of the table per term (at 100k atoms a term matches up to thousands of rows).
    Bind keyword_params_counted(terms), then the limit."""
    flags = ", ".join(_best_column(i) for i in range(count))
    counted = ", ".join(
        [*(f"LEAST(count(*) FILTER (WHERE w{i} >= 0), {int(cap)}) AS idf_n{i}" for i in range(count)), "idf_total"]
    )
    idfs = ", ".join(f"{_idf_sql(i)} AS idf{i}" for i in range(count))
    # The sum in term order and the same types as keyword_atoms' (the scores are the same to the bit).
    score = " + ".join(f"GREATEST(flags.w{i}, 0) * idfs.idf{i}" for i in range(count))
    carried = "".join(f", idfs.idf_n{i}" for i in range(count))
    return (
        f"WITH flags AS MATERIALIZED (SELECT num, {flags} FROM atoms "
        f"WHERE atoms.status = 'live' AND document @@ {any_term(count)}), "
        f"idfs AS (SELECT counts.*, {idfs} FROM (SELECT {counted} FROM flags, "
        f"(SELECT {_TOTAL_SQL} AS idf_total) AS total GROUP BY idf_total) AS counts) "
        f"SELECT num, {score} AS score{carried} FROM flags, idfs ORDER BY score DESC, num LIMIT ?"
    )


def keyword_atoms_pruned(terms: Sequence[str], cap: int, limit: int) -> tuple[str, list[object]]:
    """keyword_atoms without a filter, for two terms or more: the statement and its parameters.

    The term with the most documents (at 100k atoms often thousands: 'days', 'based') scores a row
    that holds only it at most its idf (column weight 1.0 at best). So the rows holding any other
    term are scored first; when the `limit`-th best of them scores more than that bound, no row of
    the frequent term alone can enter the result, and its rows are never tested term by term (their
    count is a count, by the index). Otherwise every matching row is scored, as keyword_atoms does.
    Either way the rows, scores (to the bit) and counts are keyword_atoms'; a last column says
    which way it went (`pruned`).
    """
    count = len(terms)
    params: list[object] = []
    counted = ", ".join([*(f"{_count_sql(cap)} AS idf_n{i}" for i in range(count)), f"{_TOTAL_SQL} AS idf_total"])
    params += terms
    idfs = ", ".join(f"{_idf_sql(i)} AS idf{i}" for i in range(count))
    most = "GREATEST(" + ", ".join(f"counts.idf_n{i}" for i in range(count)) + ")"
    frequent = "CASE " + " ".join(f"WHEN counts.idf_n{i} = {most} THEN {i}" for i in range(count)) + " END AS frequent"
    bound = "CASE x.frequent " + " ".join(f"WHEN {i} THEN x.idf{i}" for i in range(count)) + " END AS bound"
    flags = ", ".join(_best_column(i) for i in range(count))
    flag_params = [term for term in terms for _ in range(1 + len(COLUMN_WEIGHTS))]
    params += flag_params
    branches = []
    for i in range(count):
        others = [j for j in range(count) if j != i]
        branches.append(f"WHEN {i} THEN " + " || ".join("phraseto_tsquery('english', ?)" for _ in others))
        params += [terms[j] for j in others]
    rest = "(SELECT CASE idfs.frequent " + " ".join(branches) + " END FROM idfs)"
    params.append(limit)  # rest_top
    params.append(limit)  # enough
    params += flag_params
    params += terms  # any_term of the fallback
    params.append(limit)
    score = " + ".join(f"GREATEST(r.w{i}, 0) * idfs.idf{i}" for i in range(count))
    carried = "".join(f", idfs.idf_n{i}" for i in range(count))
    sql = (
        f"WITH counts AS (SELECT {counted} OFFSET 0), "
        f"idfs AS (SELECT x.*, {bound} FROM (SELECT counts.*, {idfs}, {frequent} FROM counts) AS x), "
        f"rest AS MATERIALIZED (SELECT num, {flags} FROM atoms WHERE atoms.status = 'live' AND document @@ {rest}), "
        f"rest_top AS MATERIALIZED (SELECT r.num, {score} AS score FROM rest AS r, idfs "
        "ORDER BY score DESC, r.num LIMIT ?), "
        "enough AS (SELECT count(*) >= ? AND COALESCE(min(score) > (SELECT bound FROM idfs), false) AS ok "
        "FROM rest_top), "
        f"every AS (SELECT num, {flags} FROM atoms WHERE atoms.status = 'live' AND document @@ {any_term(count)} "
        "AND NOT (SELECT ok FROM enough)) "
        f"SELECT s.num, s.score{carried}, (SELECT ok FROM enough) AS pruned FROM (SELECT num, score FROM rest_top "
        "WHERE (SELECT ok FROM enough) "
        f"UNION ALL SELECT r.num, {score} FROM every AS r, idfs) AS s, idfs ORDER BY s.score DESC, s.num LIMIT ?"
    )
    return sql, params


def keyword_params_counted(terms: Sequence[str]) -> list[object]:
    """keyword_atoms_counted's parameters before the limit: each term once and once per column, then
    each once for the match."""
    return [*(term for term in terms for _ in range(1 + len(COLUMN_WEIGHTS))), *terms]


def _best_column(i: int) -> str:
    """Term i's weight in a row: that of the best column it occurs in (0 in none), -1 if it is absent."""
    cases = " ".join(f"WHEN document @@ {weighted_term(label)} THEN {weight}" for label, weight in COLUMN_WEIGHTS)
    return f"CASE WHEN NOT document @@ {term_query()} THEN -1 {cases} ELSE 0 END AS w{i}"


def keyword_params(terms: Sequence[str]) -> list[object]:
    """keyword_atoms' parameters before the filter's: each term once and once per column, each once
    for its count, each once for the match."""
    return [*(term for term in terms for _ in range(1 + len(COLUMN_WEIGHTS))), *terms, *terms]


def doc_counts(count: int, cap: int) -> str:
    """For each of `count` terms, in how many live atoms it occurs, up to `cap` (one ? each), and the
    number of live atoms (the planner's estimate once the table is analysed; counted before)."""
    return f"SELECT {', '.join([_count_sql(cap)] * count + [_TOTAL_SQL])}"


def _count_sql(cap: int) -> str:
    """In how many live atoms one term (one ?) occurs, up to `cap`."""
    return (
        "(SELECT count(*) FROM (SELECT 1 FROM atoms WHERE status = 'live' AND document @@ "
        f"{term_query()} LIMIT {int(cap)}) AS hits)"
    )


# The number of live atoms: the planner's estimate once the table is analysed, counted before.
_TOTAL_SQL = (
    "(SELECT CASE WHEN reltuples >= 0 THEN reltuples::bigint "
    "ELSE (SELECT count(*) FROM atoms WHERE status = 'live') END FROM pg_class WHERE oid = 'atoms'::regclass)"
)


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
