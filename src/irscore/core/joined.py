"""Rank-ordered relevance lists: what every measure family consumes.

`Joined` holds the relevance lists of the evaluated queries (CSR layout,
rank order); `join` builds it from a [`Qrels`][irscore.core.data.Qrels] and
a [`Run`][irscore.core.data.Run] (trec_eval's form_res_rels), `join_tagged`
also lists the judged ranked documents with a tag of their judgment (for richer qrels);
`sort_arrays` builds rank-ordered lists from score/label arrays (the
array entry points of the families); `ranked_lists` gives a Joined's
lists with the stand-in rankings of ``complete=True`` emptied;
`ResultCache` holds what several measures of one evaluation share.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Hashable, List, Optional, Tuple

import numpy as np

from irscore import _join
from irscore.core import parallel as _parallel
from irscore.core.checks import MAX_CUTOFF
from irscore.core.data import Qrels, Run

__all__ = ["MAX_GRADE", "Joined", "join", "join_tagged", "Tagged", "ranked_lists", "TIES", "sort_arrays",
           "rank_order", "relevance_codes", "judged_counts", "ResultCache"]

MAX_GRADE = 1_000_000

#: judged ranked documents with the tags of their judgments (:func:`join_tagged`):
#: (tag_off, tag_pos, tag)
Tagged = Tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True, eq=False)
class Joined:
    """Relevance lists of the evaluated queries (the input of every kernel).

    Frozen: built once by `join` (or by the batch API from arrays) and
    only read afterwards.  Results that several measures share are kept in a
    `ResultCache` owned by the evaluation, not on this object.
    """

    query_ids: List[str]        # evaluated queries, trec_eval order
    rel: np.ndarray             # int32 grades in rank order (-1 unjudged, -2 judged < 0)
    scores: np.ndarray          # float64 scores in rank order
    offsets: np.ndarray         # int64 CSR offsets, len = n_queries + 1
    levels: np.ndarray          # int64 (n_queries, max_grade + 1) judgments per grade
    missing: List[str]          # qrels queries without a ranking
    bogus: np.ndarray           # bool per evaluated query: stand-in ranking (-c)
    n_duplicates: int
    # Batch API only: per query, the number of candidates (the whole collection
    # as far as the batch knows; Rocchio's default N there).  None for TREC input.
    n_candidates: Optional[np.ndarray] = None
    # trec_eval's -N (number of documents in the collection) when given: the
    # default N of Rocchio's measures.
    num_docs_in_coll: Optional[int] = None
    # Data a richer qrels attaches for its own families (e.g. the intent tables
    # of irscore.diversity's DiversityQrels), read by those families only.
    extra: Optional[Any] = None
    # Threads the families' kernels may use (the evaluation's n_jobs: None or -1
    # all cores for large inputs; :func:`join` records it; 1 unless told).
    n_jobs: Optional[int] = 1


def join(qrels: Qrels, run: Run, *, complete: bool = False, judged_only: bool = False,
         max_docs: Optional[int] = None, n_jobs: Optional[int] = None) -> Joined:
    """Pair queries and build the relevance lists (trec_eval's form_res_rels).

    A qrels object that knows more than grades (a [`Qrels`][irscore.Qrels] subclass
    with a ``join_run(run, *, complete, judged_only, max_docs, n_jobs)``
    method, e.g. irscore.diversity's DiversityQrels) builds the Joined
    itself, attaching its data as ``Joined.extra``; one join then serves
    every family of the evaluation.
    """
    hook = getattr(qrels, "join_run", None)
    if hook is not None:
        joined: Joined = hook(run, complete=complete, judged_only=judged_only, max_docs=max_docs, n_jobs=n_jobs)
        return joined
    return _join_lists(qrels, run, None, complete, judged_only, max_docs, n_jobs)[0]


def join_tagged(qrels: Qrels, run: Run, tags: np.ndarray, *, complete: bool = False, judged_only: bool = False,
                max_docs: Optional[int] = None, n_jobs: Optional[int] = None) -> Tuple[Joined, Tagged]:
    """`join` (without the ``join_run`` hook) that also lists, in the same
    pass, the ranked documents that are in the qrels with the tag of their
    judgment (sparse: the judged documents only).

    Parameters
    ----------
    qrels : Qrels
        The judgments (its grades make the relevance lists).
    run : Run
        The run.
    tags : ndarray
        One int32 per judgment of ``qrels`` (in its stored order), e.g. the
        judgment's row in a richer qrels' own tables.
    complete, judged_only, max_docs, n_jobs
        As for `join`.

    Returns
    -------
    (Joined, (tag_off, tag_pos, tag))
        The Joined, and per query of it (CSR ``tag_off``, int64) its ranked
        documents found in the qrels, in rank order: their position in the
        query's list (``tag_pos``, int64) and their judgment's tag (int32).
    """
    t = np.ascontiguousarray(tags, dtype=np.int32)
    if t.shape != qrels.grades.shape:
        raise ValueError(f"tags must hold one entry per judgment ({qrels.grades.shape[0]}), got shape {t.shape}")
    return _join_lists(qrels, run, t, complete, judged_only, max_docs, n_jobs)


_NO_TAGS: Tagged = (np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32))


def _join_lists(qrels: Qrels, run: Run, tags: Optional[np.ndarray], complete: bool, judged_only: bool,
                max_docs: Optional[int], n_jobs: Optional[int]) -> Tuple[Joined, Tagged]:
    """The Joined, and its tagged judged documents (empty without ``tags``)."""
    if max_docs is not None and (not isinstance(max_docs, (int, np.integer)) or max_docs < 0):
        raise ValueError(f"max_docs must be a non-negative integer, got {max_docs!r}")
    if max_docs is not None and max_docs > MAX_CUTOFF:
        raise ValueError(f"max_docs {max_docs} is too large (at most 2**62)")
    max_grade = qrels.max_grade
    if max_grade > MAX_GRADE:
        raise ValueError(f"qrels grade {max_grade} is too large (at most {MAX_GRADE})")
    ridx = run._index()
    query_ids = qrels.query_ids
    pair_q: List[int] = []
    pair_r: List[int] = []
    missing: List[str] = []
    for q, qid in enumerate(query_ids):
        r = ridx.get(qid, -1)
        if r < 0:
            missing.append(qid)
            if not complete:
                continue
        pair_q.append(q)
        pair_r.append(r)
    if not pair_q:
        raise ValueError("no queries with both results and relevance judgments "
                         f"(qrels queries e.g. {qrels.query_ids[:3]}, run queries e.g. {run.query_ids[:3]})")
    j = _join.Join(
        qrels.offsets, qrels.doc_start, qrels.doc_len, qrels.doc_hash, qrels.grades, qrels.doc_buf,
        run.offsets, run.doc_start, run.doc_len, run.doc_hash, run.scores, run.doc_buf,
        np.asarray(pair_q, dtype=np.int64), np.asarray(pair_r, dtype=np.int64),
        max(max_grade, 0), -1 if max_docs is None else int(max_docs), judged_only, complete,
        bool(getattr(run, "unique", False)), tags)
    threads = _parallel.n_threads(n_jobs, run.n_entries)
    _parallel.run(j.run, _parallel.ranges(len(pair_q), threads))
    rel, sc, off, levels, n_dup = j.result()
    qids = list(query_ids) if len(pair_q) == len(query_ids) else [query_ids[q] for q in pair_q]
    return (Joined(qids, rel, sc, off, levels, missing, np.asarray(pair_r) < 0, int(n_dup), n_jobs=n_jobs),
            _NO_TAGS if tags is None else j.tags())


TIES: Tuple[str, ...] = ("trec", "input")


def sort_arrays(scores: Any, labels: Any, offsets: Optional[Any], ties: str = "trec"
                 ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(rel int32, scores float64, offsets, candidates per query) in rank
    order: score descending; equal scores by column descending (``trec``, as
    [`irscore.batch`][irscore.batch]: the column index plays the document id) or in input
    order (``input``).  2-D input: NaN scores mark padding."""
    if ties not in TIES:
        raise ValueError(f"ties must be one of {', '.join(TIES)}; got {ties!r}")
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels)
    off: np.ndarray
    if y.dtype.kind not in "iub":
        if y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
            y = y.astype(np.int64)
        else:
            raise TypeError(f"labels must be integer grades, got dtype {y.dtype}")
    if s.shape != y.shape:
        raise ValueError(f"scores and labels must have the same shape; got {s.shape} and {y.shape}")
    if s.ndim == 2:
        if offsets is not None:
            raise ValueError("offsets apply to 1-D (ragged) input only; got 2-D scores")
        nq, nd = s.shape
        valid = ~np.isnan(s)
        if ties == "trec":       # reversed columns + stable sort = column descending among ties
            order = (nd - 1) - np.argsort(-s[:, ::-1], axis=1, kind="stable")
        else:
            order = np.argsort(-s, axis=1, kind="stable")     # NaN (padding) sorts last
        s_sorted = np.take_along_axis(s, order, axis=1)
        y_sorted = np.take_along_axis(y, order, axis=1)
        counts = valid.sum(axis=1).astype(np.int64)
        off = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(counts, out=off[1:])
        keep = np.arange(nd)[None, :] < counts[:, None]
        s_flat, y_flat = s_sorted[keep], y_sorted[keep]
    elif s.ndim == 1:
        if offsets is None:
            off = np.asarray([0, s.shape[0]], dtype=np.int64)
        else:
            off = np.ascontiguousarray(offsets, dtype=np.int64)
            if off.ndim != 1 or off.shape[0] < 1 or off[0] != 0 or off[-1] != s.shape[0] or np.any(np.diff(off) < 0):
                raise ValueError(f"offsets must run from 0 to len(scores)={s.shape[0]}, non-decreasing")
        if np.isnan(s).any():
            raise ValueError("scores contain NaN (only 2-D input may mark padding with NaN)")
        nq = off.shape[0] - 1
        counts = np.diff(off)
        qidx = np.repeat(np.arange(nq, dtype=np.int64), counts)
        pos = np.arange(s.shape[0], dtype=np.int64)
        order = rank_order(qidx, s, pos, ties)
        s_flat, y_flat = s[order], y[order]
    else:
        raise ValueError(f"scores must be 1-D (with offsets) or 2-D, got shape {s.shape}")
    if s_flat.size and not np.all(np.isfinite(s_flat)):
        raise ValueError("scores must be finite")
    return relevance_codes(y_flat), np.ascontiguousarray(s_flat), off, counts


def rank_order(qidx: np.ndarray, scores: np.ndarray, position: np.ndarray, ties: str) -> np.ndarray:
    """The permutation that puts candidates in rank order: query ascending,
    score descending, equal scores by ``position`` descending (``ties="trec"``:
    the position plays trec_eval's document id) or ascending (``"input"``)."""
    return np.lexsort((-position if ties == "trec" else position, -scores, qidx))


def relevance_codes(labels: np.ndarray) -> np.ndarray:
    """int32 relevance of candidates that are all judged: the grade, or -2
    (judged negative) for a negative label."""
    return np.where(labels < 0, -2, labels).astype(np.int32)


def judged_counts(rel: np.ndarray, offsets: np.ndarray, n_relevant: Optional[Any]) -> np.ndarray:
    """Judged documents per grade of each query ``(n_queries, n_grades)``: the
    candidates' own counts, or ``n_relevant`` (checked to hold at least them)."""
    pool = n_relevant
    nq = offsets.shape[0] - 1
    G = int(rel.max()) + 1 if rel.size and rel.max() >= 0 else 1
    qidx = np.repeat(np.arange(nq, dtype=np.int64), np.diff(offsets))
    ok = rel >= 0
    counts = np.bincount(qidx[ok] * G + rel[ok], minlength=nq * G).reshape(nq, G).astype(np.int64)
    if pool is None:
        return counts
    p = np.asarray(pool)
    if p.ndim != 2 or p.shape[0] != nq or p.dtype.kind not in "iu":
        raise ValueError(f"n_relevant must be an integer array (n_queries={nq}, n_grades); got {p.shape} {p.dtype}")
    width = max(G, p.shape[1])
    full = np.zeros((nq, width), dtype=np.int64)
    full[:, :p.shape[1]] = p
    if np.any(full[:, :G] < counts):
        q = int(np.flatnonzero((full[:, :G] < counts).any(axis=1))[0])
        raise ValueError(f"n_relevant[{q}] counts fewer judged documents of some grade than the candidates hold")
    return full


def ranked_lists(joined: "Joined") -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rel, scores, offsets) of a Joined; a query without a ranking (the
    stand-in of ``complete=True``) gets an empty one."""
    bogus = getattr(joined, "bogus", None)
    if bogus is None or not np.any(bogus):
        return joined.rel, joined.scores, joined.offsets
    off = joined.offsets
    counts = np.diff(off)
    keep = np.repeat(~np.asarray(bogus, dtype=bool), counts)
    counts = np.where(bogus, 0, counts)
    new_off = np.zeros_like(off)
    np.cumsum(counts, out=new_off[1:])
    return (np.ascontiguousarray(joined.rel[keep]), np.ascontiguousarray(joined.scores[keep]), new_off)


class ResultCache:
    """Values shared by several measures of one evaluation (e.g. every Rocchio
    index comes out of one kernel pass).  Keys are hashable descriptions of
    the computation; the evaluation that owns the cache drops it when done."""

    __slots__ = ("_store",)

    def __init__(self) -> None:
        self._store: Dict[Hashable, Any] = {}

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value stored under ``key``, computed by ``compute()`` on first use."""
        try:
            return self._store[key]
        except KeyError:
            value = self._store[key] = compute()
            return value
