"""Rocchio's indices of the SMART system (1966): normalized recall and
precision, rank recall, log precision, scaled recall (definitions: docs/rocchio.md).

Measure names (usable in [`irscore.evaluate`][irscore.evaluate], ``irscore eval -m`` and the
batch API), each with the keyword parameters in parentheses:

- ``Rnorm``  1 - (sum r_i - sum i) / (n0 (N - n0))
- ``Pnorm``  1 - (sum ln r_i - sum ln i) / ln(N! / (n0! (N - n0)!))
- ``rank_recall``  sum i / sum r_i
- ``log_precision``  sum ln i / sum ln r_i  (1.0 when n0 = 1 and r_1 = 1)
- ``scaled_recall``  1 - 5 (1 - Rnorm)

Parameters: ``N`` (collection size; required with TREC input, e.g.
``Rnorm(N=528155)``; in the batch API it defaults to the number of candidates
of each query), ``variant`` (``default`` or ``smart1966``: Rnorm's
denominator n0 (N - n0 + 1) of the SMART printouts), ``graded`` (``True``:
every grade >= the relevance level is its own level, errors are per-document
positive parts normalised by the worst order), ``rel`` (relevance level of
this measure; default: ``evaluate``'s ``relevance_level``).

Ranks: tied documents (equal scores) get the average of the ranks they span;
the N - k documents not retrieved form one tie group at the bottom, rank
(k + 1 + N) / 2.  Unjudged retrieved documents are non-relevant; a query
without a ranking (``complete=True``) has k = 0.  A query with no relevant
document (n0 = 0), or whose every document is relevant (n0 = N), has no
value: NaN, left out of the mean (the summary is the mean over the queries
where the measure is defined).

Graded relevance (``graded=True``): the grades >= the relevance level are
levels L1 > L2 > ...; level k's ideal ranks are the positions after all
higher levels; the relevant documents of a level, in rank order, are paired
with its ideal ranks in order and only the positive differences count
(Rocchio's "positive differences"), for ranks (Rnorm, rank_recall) and for
log ranks (Pnorm, log_precision).  Documents of one level sharing a tie group
share their average rank and are taken as one unit (the positive part of
their summed difference), so that binary grades give exactly the binary
formulas.  Normaliser: the error of the worst order (non-relevant documents
first, then the levels from the lowest to the highest).  rank_recall =
S / (S + E) and log_precision = ln(n0!) / (ln(n0!) + E_ln) with S = sum i.
``variant="smart1966"`` adds n0 to Rnorm's denominator (E_max + n0; binary:
n0 (N - n0 + 1)).

Array-level entry points (no TREC files): [`from_arrays`][irscore.rocchio.from_arrays] (scores and
grades per candidate, any order) and [`from_ranked`][irscore.rocchio.from_ranked] (the rank-ordered
relevance lists of `irscore.core.joined.Joined`).
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from irscore import _rocchio
from irscore.core.checks import check_level, check_ranked, parse_bool, parse_int
from irscore.core.joined import Joined, ResultCache, judged_counts, ranked_lists, sort_arrays
from irscore.core.plugins import register
from irscore.core.registry import ROCCHIO_GROUP, ROCCHIO_MEASURES

__all__ = ["MEASURES", "from_arrays", "from_ranked", "VARIANTS"]

MEASURES: Tuple[str, ...] = ROCCHIO_MEASURES
# further outputs of from_ranked/from_arrays (the errors behind the measures)
ERRORS: Tuple[str, ...] = ("error", "error_ln", "error_max", "error_ln_max", "signed_error")
VARIANTS: Tuple[str, ...] = ("default", "smart1966")

IntArrayLike = Union[int, Sequence[int], np.ndarray]


# --------------------------------------------------------------- validation

def _check_variant(variant: Any) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}; got {variant!r}")
    return str(variant)


def _as_n_docs(N: IntArrayLike, nq: int) -> np.ndarray:
    n: np.ndarray
    if np.ndim(N) == 0:
        n = np.full(nq, parse_int(N if not isinstance(N, np.ndarray) else N.item(), "N"), dtype=np.int64)
    else:
        a = np.asarray(N)
        if a.shape != (nq,):
            raise ValueError(f"N must be one integer or one per query (shape ({nq},)); got shape {a.shape}")
        if a.dtype.kind not in "iu":
            if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
                a = a.astype(np.int64)
            else:
                raise TypeError(f"N must hold integers, got dtype {a.dtype}")
        n = np.ascontiguousarray(a, dtype=np.int64)
    if nq and n.min() < 0:
        raise ValueError(f"N must not be negative, got {int(n.min())}")
    return n


# ------------------------------------------------------------------ kernels

def from_ranked(rel: np.ndarray, scores: np.ndarray, offsets: np.ndarray, levels: np.ndarray,
                N: IntArrayLike, *, relevance_level: int = 1, graded: bool = False,
                variant: str = "default", query_ids: Optional[Sequence[str]] = None,
                check_inputs: bool = True) -> Dict[str, np.ndarray]:
    """Rocchio's indices from rank-ordered relevance lists (the arrays of
    `irscore.core.joined.Joined`).

    ``rel`` (int32): grade of each retrieved document in rank order (-1 not
    judged, -2 judged negative); ``scores``: same order, non-increasing within
    a query (equal adjacent scores are a tie group); ``offsets``: CSR (query q
    is ``offsets[q]:offsets[q+1]``); ``levels`` (n_queries, max_grade + 1):
    judged documents per grade, the judged pool, retrieved or not; ``N``:
    collection size, one int or one per query.

    Returns ``{name: float64 array (n_queries,)}`` for the five measures
    (`MEASURES`) and the errors behind them (`ERRORS`: ``error``
    E, ``error_ln``, their worst-order maxima, ``signed_error``).  Raises
    ``ValueError`` when N is smaller than a query's retrieved documents plus
    its judged documents not retrieved.

    Parameters
    ----------
    rel : ndarray of int32
        Grades in rank order (-1 not judged, -2 judged negative), CSR layout.
    scores : ndarray of float64
        Scores in rank order, non-increasing within a query (equal adjacent scores
        form a tie group).
    offsets : ndarray of int64
        CSR offsets: query q is ``offsets[q]:offsets[q+1]``.
    levels : ndarray of int64, shape (n_queries, max_grade + 1)
        Judged documents per grade (the judged pool, retrieved or not).
    N : int or array_like of int
        Collection size, one or one per query.
    relevance_level : int, default 1
        Grades at or above it are relevant.
    graded : bool, default False
        Graded reading (docs/rocchio.md).
    variant : str, default 'default'
        The family's variant (see its docs page).
    query_ids : sequence of str, optional
        Query names for error messages.
    check_inputs : bool, default True
        Validate the arrays (False: the caller guarantees them).

    Returns
    -------
    dict of str to ndarray
        ``{name: float64 array (n_queries,)}`` for `MEASURES` and `ERRORS`.

    Raises
    ------
    ValueError
        Malformed arrays or options, or ``N`` smaller than a query's retrieved plus judged-not-retrieved documents.
    """
    level = check_level(relevance_level)
    smart = _check_variant(variant) == "smart1966"
    graded = parse_bool(graded, "graded")
    if check_inputs:
        rel, scores_c, offsets, levels = check_ranked(rel, offsets, levels, scores)
        scores = scores_c if scores_c is not None else scores
    nq = offsets.shape[0] - 1
    n_docs = _as_n_docs(N, nq)
    need = np.empty(nq, dtype=np.int64)
    _rocchio.min_collection_size(rel, offsets, levels, need)
    bad = np.flatnonzero(n_docs < need)
    if bad.size:
        q = int(bad[0])
        qid = query_ids[q] if query_ids is not None else q
        k = int(offsets[q + 1] - offsets[q])
        raise ValueError(f"N={int(n_docs[q])} is smaller than the documents known for query {qid!r}: "
                         f"{k} retrieved + {int(need[q]) - k} judged but not retrieved = {int(need[q])}"
                         + (f" ({bad.size} queries in all)" if bad.size > 1 else ""))
    out = np.empty((nq, len(MEASURES) + len(ERRORS)), dtype=np.float64)
    _rocchio.rocchio(rel, scores, offsets, levels, n_docs, level, graded, smart, out)
    names = MEASURES + ERRORS
    return {name: out[:, i].copy() for i, name in enumerate(names)}


def from_arrays(scores: Any, labels: Any, *, offsets: Optional[Any] = None,
                N: Optional[IntArrayLike] = None, n_relevant: Optional[Any] = None, relevance_level: int = 1,
                graded: bool = False, variant: str = "default", ties: str = "trec") -> Dict[str, np.ndarray]:
    """Rocchio's indices from scores and grades of candidate documents.

    Parameters
    ----------
    scores : array_like
        2-D ``(n_queries, n_candidates)`` (NaN scores mark padding) or 1-D with
        CSR ``offsets``; any order (ranked here by score descending; Rocchio's
        indices do not depend on the order of ties).
    labels : array_like of int
        Grades, same shape; every candidate counts as judged (negative: judged
        non-relevant).
    offsets : array_like of int, optional, keyword-only
        CSR offsets of 1-D input (query q is ``offsets[q]:offsets[q+1]``).
    N : int or array_like of int, optional
        Collection size per query; default: the number of candidates of each
        query.
    n_relevant : array_like of int, optional
        ``(n_queries, n_grades)`` counts of the judged documents per grade, when
        judged documents exist outside the candidates (at least the candidates'
        own counts).
    relevance_level : int, default 1
        Grades at or above it are relevant.
    graded : bool, default False
        Graded reading (docs/rocchio.md, graded relevance).
    variant : {"default", "smart1966"}
        ``smart1966``: Rnorm's denominator n0 (N - n0 + 1) of the SMART printouts.
    ties : {"trec", "input"}
        Only orders equal scores; the indices give them average ranks either way.

    Returns
    -------
    dict of str to ndarray
        ``{name: float64 array (n_queries,)}`` as [`from_ranked`][irscore.rocchio.from_ranked].

    Raises
    ------
    ValueError, TypeError
        Malformed arrays, a bad option, or ``N`` smaller than a query's known
        documents.
    """
    rel, s, off, counts = sort_arrays(scores, labels, offsets, ties)
    levels = judged_counts(rel, off, n_relevant)
    n_docs = counts if N is None else N
    return from_ranked(rel, s, off, levels, n_docs, relevance_level=relevance_level, graded=graded,
                       variant=variant, check_inputs=False)


# ---------------------------------------------------------- evaluate() hook

def compute_joined(joined: Joined, *, N: Optional[IntArrayLike] = None, relevance_level: int = 1,
                   graded: bool = False, variant: str = "default", cache: Optional[ResultCache] = None
                   ) -> Dict[str, np.ndarray]:
    """All Rocchio outputs for the queries of a `Joined`
    (one kernel pass; kept in ``cache``, when given, for the other measures of
    the same evaluation).  ``N`` defaults to ``joined.num_docs_in_coll``, else
    to ``joined.n_candidates`` (batch input)."""
    n_key: Any = "default" if N is None else (int(N) if np.ndim(N) == 0 else None)  # type: ignore[arg-type]
    if N is None:
        if joined.num_docs_in_coll:
            N = joined.num_docs_in_coll
        elif joined.n_candidates is not None:
            N = joined.n_candidates
    if N is None:
        raise ValueError("Rocchio's measures need the collection size N with TREC input, "
                         "e.g. Rnorm(N=528155), or num_docs_in_coll= (irscore eval -N); "
                         "the batch API defaults it to the number of candidates")
    n_docs = N

    def compute() -> Dict[str, np.ndarray]:
        rel, scores, offsets = ranked_lists(joined)
        return from_ranked(rel, scores, offsets, joined.levels, n_docs,
                           relevance_level=relevance_level, graded=graded, variant=variant,
                           query_ids=joined.query_ids)

    if cache is None or n_key is None:
        return compute()
    result: Dict[str, np.ndarray] = cache.get(("rocchio", n_key, relevance_level, graded, variant), compute)
    return result


def compute_measure(joined: Joined, name: str, params: Dict[str, Any], level: int, cache: ResultCache
                    ) -> np.ndarray:
    """One Rocchio index per query of ``joined``: the hook through which
    [`irscore.evaluate`][irscore.evaluate] and [`irscore.batch.evaluate`][irscore.batch.evaluate] compute the
    names this family declares in `irscore.core.registry`.  ``params``
    are the typed parameters of the name; ``level`` the evaluation's relevance
    level (``rel=`` overrides it)."""
    lv = level if params["rel"] is None else params["rel"]
    return compute_joined(joined, N=params["N"], relevance_level=lv, graded=params["graded"],
                          variant=params["variant"], cache=cache)[name]


register(ROCCHIO_GROUP, compute_measure)
