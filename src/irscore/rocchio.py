"""Rocchio's indices of the SMART system (1966): normalized recall and
precision, rank recall, log precision, scaled recall (SPEC section 2).

Measure names (usable in :func:`irscore.evaluate`, ``irscore eval -m`` and the
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

Array-level entry points (no TREC files): :func:`from_arrays` (scores and
grades per candidate, any order) and :func:`from_ranked` (the rank-ordered
relevance lists of :class:`irscore.core.joined.Joined`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from irscore import _rocchio
from irscore.core.measures import ExtFamily, Measure, register_family

if TYPE_CHECKING:  # pragma: no cover
    from irscore.classic import Joined

__all__ = ["MEASURES", "from_arrays", "from_ranked", "VARIANTS"]

MEASURES: Tuple[str, ...] = ("Rnorm", "Pnorm", "rank_recall", "log_precision", "scaled_recall")
# further outputs of from_ranked/from_arrays (the errors behind the measures)
ERRORS: Tuple[str, ...] = ("error", "error_ln", "error_max", "error_ln_max", "signed_error")
VARIANTS: Tuple[str, ...] = ("default", "smart1966")
_PARAMS = ("N", "variant", "graded", "rel")

IntArrayLike = Union[int, Sequence[int], np.ndarray]


# --------------------------------------------------------------- validation

def _parse_bool(value: Any, what: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("true", "1", "yes"):
            return True
        if v in ("false", "0", "no"):
            return False
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{what} must be True or False, got {value!r}")


def _parse_int(value: Any, what: str) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, str):
        try:
            f = float(value)
        except ValueError:
            raise ValueError(f"{what} must be an integer, got {value!r}") from None
        if not f.is_integer():
            raise ValueError(f"{what} must be an integer, got {value!r}")
        return int(f)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    raise TypeError(f"{what} must be an integer, got {value!r}")


def _check_level(level: Any) -> int:
    lv = _parse_int(level, "relevance_level")
    if lv < 0:
        raise ValueError(f"relevance_level must be >= 0, got {lv}")
    return lv


def _check_variant(variant: Any) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}; got {variant!r}")
    return str(variant)


def _as_n_docs(N: IntArrayLike, nq: int) -> np.ndarray:
    n: np.ndarray
    if np.ndim(N) == 0:
        n = np.full(nq, _parse_int(N if not isinstance(N, np.ndarray) else N.item(), "N"), dtype=np.int64)
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


def _check_ranked(rel: np.ndarray, offsets: np.ndarray, levels: np.ndarray, scores: Optional[np.ndarray]
                  ) -> Tuple[np.ndarray, Optional[np.ndarray], np.ndarray, np.ndarray]:
    rel = np.ascontiguousarray(rel, dtype=np.int32)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    levels = np.ascontiguousarray(levels, dtype=np.int64)
    if rel.ndim != 1:
        raise ValueError(f"rel must be 1-D, got shape {rel.shape}")
    if offsets.ndim != 1 or offsets.shape[0] < 1:
        raise ValueError(f"offsets must be 1-D with n_queries + 1 entries, got shape {offsets.shape}")
    nq = offsets.shape[0] - 1
    if offsets[0] != 0 or offsets[-1] != rel.shape[0] or np.any(np.diff(offsets) < 0):
        raise ValueError("offsets must start at 0, be non-decreasing and end at len(rel) "
                         f"({rel.shape[0]}); got {offsets[:3]}...{offsets[-3:]}")
    if levels.ndim != 2 or levels.shape[0] != nq or levels.shape[1] < 1:
        raise ValueError(f"levels must have shape (n_queries={nq}, max_grade + 1); got {levels.shape}")
    if levels.size and levels.min() < 0:
        raise ValueError("levels (judged documents per grade) must not be negative")
    if rel.size and (rel.max() >= levels.shape[1] or rel.min() < -2):
        raise ValueError(f"rel values must be grades 0..{levels.shape[1] - 1}, -1 (unjudged) or -2 "
                         f"(judged negative); got range [{rel.min()}, {rel.max()}]")
    if scores is not None:
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        if scores.shape != rel.shape:
            raise ValueError(f"scores must have the shape of rel {rel.shape}, got {scores.shape}")
    return rel, scores, offsets, levels


# ------------------------------------------------------------------ kernels

def from_ranked(rel: np.ndarray, scores: np.ndarray, offsets: np.ndarray, levels: np.ndarray,
                N: IntArrayLike, *, relevance_level: int = 1, graded: bool = False,
                variant: str = "default", query_ids: Optional[Sequence[str]] = None,
                check_inputs: bool = True) -> Dict[str, np.ndarray]:
    """Rocchio's indices from rank-ordered relevance lists (the arrays of
    :class:`irscore.core.joined.Joined`).

    ``rel`` (int32): grade of each retrieved document in rank order (-1 not
    judged, -2 judged negative); ``scores``: same order, non-increasing within
    a query (equal adjacent scores are a tie group); ``offsets``: CSR (query q
    is ``offsets[q]:offsets[q+1]``); ``levels`` (n_queries, max_grade + 1):
    judged documents per grade, the judged pool, retrieved or not; ``N``:
    collection size, one int or one per query.

    Returns ``{name: float64 array (n_queries,)}`` for the five measures
    (:data:`MEASURES`) and the errors behind them (:data:`ERRORS`: ``error``
    E, ``error_ln``, their worst-order maxima, ``signed_error``).  Raises
    ``ValueError`` when N is smaller than a query's retrieved documents plus
    its judged documents not retrieved.
    """
    level = _check_level(relevance_level)
    smart = _check_variant(variant) == "smart1966"
    graded = _parse_bool(graded, "graded")
    if check_inputs:
        rel, scores_c, offsets, levels = _check_ranked(rel, offsets, levels, scores)
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


TIES: Tuple[str, ...] = ("trec", "input")


def _sort_arrays(scores: Any, labels: Any, offsets: Optional[Any], ties: str = "trec"
                 ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(rel int32, scores float64, offsets, candidates per query) in rank
    order: score descending; equal scores by column descending (``trec``, as
    :mod:`irscore.batch`: the column index plays the document id) or in input
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
        order = np.lexsort((-pos if ties == "trec" else pos, -s, qidx))
        s_flat, y_flat = s[order], y[order]
    else:
        raise ValueError(f"scores must be 1-D (with offsets) or 2-D, got shape {s.shape}")
    if s_flat.size and not np.all(np.isfinite(s_flat)):
        raise ValueError("scores must be finite")
    rel = np.where(y_flat < 0, -2, y_flat).astype(np.int32)
    return rel, np.ascontiguousarray(s_flat), off, counts


def _pool(rel: np.ndarray, offsets: np.ndarray, pool: Optional[Any]) -> np.ndarray:
    nq = offsets.shape[0] - 1
    G = int(rel.max()) + 1 if rel.size and rel.max() >= 0 else 1
    qidx = np.repeat(np.arange(nq, dtype=np.int64), np.diff(offsets))
    ok = rel >= 0
    counts = np.bincount(qidx[ok] * G + rel[ok], minlength=nq * G).reshape(nq, G).astype(np.int64)
    if pool is None:
        return counts
    p = np.asarray(pool)
    if p.ndim != 2 or p.shape[0] != nq or p.dtype.kind not in "iu":
        raise ValueError(f"pool must be an integer array (n_queries={nq}, n_grades); got {p.shape} {p.dtype}")
    width = max(G, p.shape[1])
    full = np.zeros((nq, width), dtype=np.int64)
    full[:, :p.shape[1]] = p
    if np.any(full[:, :G] < counts):
        q = int(np.flatnonzero((full[:, :G] < counts).any(axis=1))[0])
        raise ValueError(f"pool[{q}] counts fewer judged documents of some grade than the candidates hold")
    return full


def from_arrays(scores: Any, labels: Any, offsets: Optional[Any] = None, *, N: Optional[IntArrayLike] = None,
                pool: Optional[Any] = None, relevance_level: int = 1, graded: bool = False,
                variant: str = "default", ties: str = "trec") -> Dict[str, np.ndarray]:
    """Rocchio's indices from scores and grades of candidate documents.

    ``scores``/``labels``: 2-D (n_queries, n_candidates; NaN scores mark
    padding) or 1-D with CSR ``offsets``, in any order (ranked here by score
    descending; Rocchio's indices do not depend on the order of ties).
    ``labels``: integer grades; every candidate counts as judged (negative:
    judged non-relevant).  ``N``: collection size per query (int or array);
    default: the number of candidates of each query.  ``pool``: optional
    (n_queries, n_grades) counts of the judged documents per grade when
    relevant documents exist outside the candidates.  ``ties`` (``trec`` or
    ``input``) only orders equal scores; the indices give them average ranks
    either way.

    Returns ``{name: float64 array (n_queries,)}``, as :func:`from_ranked`.
    """
    rel, s, off, counts = _sort_arrays(scores, labels, offsets, ties)
    levels = _pool(rel, off, pool)
    n_docs = counts if N is None else N
    return from_ranked(rel, s, off, levels, n_docs, relevance_level=relevance_level, graded=graded,
                       variant=variant, check_inputs=False)


# ---------------------------------------------------------- evaluate() hook

def _options(measure: Measure, level: int) -> Tuple[Optional[int], int, bool, str]:
    kw = dict(measure.extra)
    unknown = set(kw) - set(_PARAMS)
    if unknown:
        raise ValueError(f"measure {measure.family}: unknown parameter(s) {sorted(unknown)}")
    n = _parse_int(kw["N"], f"{measure.family}: N") if "N" in kw else None
    if n is not None and n <= 0:
        raise ValueError(f"{measure.family}: N must be positive, got {n}")
    lv = _check_level(kw["rel"]) if "rel" in kw else level
    graded = _parse_bool(kw.get("graded", "false"), f"{measure.family}: graded")
    variant = kw.get("variant", "default")
    if variant not in VARIANTS:
        raise ValueError(f"{measure.family}: variant must be one of {', '.join(VARIANTS)}; got {variant!r}")
    return n, lv, graded, variant


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


def compute_joined(joined: "Joined", *, N: Optional[IntArrayLike] = None, relevance_level: int = 1,
                   graded: bool = False, variant: str = "default") -> Dict[str, np.ndarray]:
    """All Rocchio outputs for the queries of a :class:`Joined` (one kernel
    pass; cached on the object for the other measures of the same call)."""
    if N is None:
        if joined.num_docs_in_coll:
            N = joined.num_docs_in_coll
        elif joined.n_candidates is not None:
            N = joined.n_candidates
    if N is None:
        raise ValueError("Rocchio's measures need the collection size N with TREC input, "
                         "e.g. Rnorm(N=528155), or num_docs_in_coll= (irscore eval -N); "
                         "the batch API defaults it to the number of candidates")
    key = ("rocchio", N if np.ndim(N) == 0 else id(N), relevance_level, graded, variant)
    cache = joined.__dict__.setdefault("_irscore_ext_cache", {})
    hit = cache.get(key)
    if hit is None:
        rel, scores, offsets = ranked_lists(joined)
        hit = from_ranked(rel, scores, offsets, joined.levels, N,
                          relevance_level=relevance_level, graded=graded, variant=variant,
                          query_ids=joined.query_ids)
        cache[key] = hit
    return hit


def _family(name: str) -> ExtFamily:
    def compute(joined: "Joined", measure: Measure, level: int) -> np.ndarray:
        n, lv, graded, variant = _options(measure, level)
        return compute_joined(joined, N=n, relevance_level=lv, graded=graded, variant=variant)[name]

    compute.__name__ = f"compute_{name}"
    return ExtFamily(name, compute, params=_PARAMS, agg="nanmean")


for _name in MEASURES:
    register_family(_family(_name))
del _name
