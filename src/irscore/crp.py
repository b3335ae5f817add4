"""Cumulated Relative Position (Angelini, Ferro, Järvelin et al., CLEF 2012;
definitions: docs/crp.md).

The ideal vector is the judged pool sorted by grade (highest first), padded
with non-relevant documents; grade g occupies the block [min(g), max(g)]
(first and last position of g in it), the non-relevant documents the block
[R + 1, ...).  A document of grade g at rank j has the relative position
RP(j) = j - min(g) if it comes too early (negative), j - max(g) if too late
(positive), 0 inside its block; CRP(j) = RP(1) + ... + RP(j).

Scalars (measure names for [`irscore.evaluate`][irscore.evaluate] and ``irscore eval -m``):

- ``CRP_loss``        CRP@R, the loss value (NaN when the curve is shorter than R)
- ``CRP_worst_loss``  CRP of the worst vector at R, = -R (R + 1) / 2
- ``CRP_recovery``    rho = R / b_r, 0 when the curve never reaches 0 at or after R
- ``CRP_balance``     b_r = first rank j >= R with CRP(j) >= 0 (NaN if none)
- ``CRP_turnaround``  first rank of the minimum of the curve
- ``CRP_sigma``       MATTERS' space ratio (`summaries`)
- ``CRP_tau``         MATTERS' twist, (rho + sigma) / 2

Parameters: ``variant`` (``default``, or ``matters``: the MATTERS toolkit rule
for the balance point, the last rank before the first sign change of CRP > 0,
at least R, rho = 0 when the curve touches 0 and stays there, 1 for a curve of
zeros), ``unjudged`` (``nonrel``: unjudged retrieved documents are
non-relevant; ``condensed``: they are removed first), ``pad_to`` (the list is
padded with non-relevant documents to this length; longer lists are kept
whole, cut them with ``max_docs``), ``rel`` (relevance level; default:
``evaluate``'s ``relevance_level``).

Grades: every grade >= the relevance level is a relevance degree of its own
(graded throughout); judged documents below it, documents judged with a
negative grade and (with ``nonrel``) unjudged ones are non-relevant.  R is the
number of judged documents with a grade >= the level; a query with R = 0 has
no values (NaN, left out of the means).  Ties: the run order (trec_eval's:
score descending, then document id descending; in [`from_arrays`][irscore.crp.from_arrays]
column descending, or input order with ``ties="input"``).

Curves: [`crp_curves`][irscore.crp.crp_curves] (TREC input) and [`from_arrays`][irscore.crp.from_arrays] /
[`curves_from_ranked`][irscore.crp.curves_from_ranked] (arrays).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from irscore import _crp
from irscore.core.checks import check_level, check_ranked, parse_int
from irscore.core.io import as_qrels, as_run
from irscore.core.joined import Joined, ResultCache, join, judged_counts, ranked_lists, sort_arrays
from irscore.core.plugins import register
from irscore.core.registry import CRP_GROUP, CRP_MEASURES, CRP_SUMMARIES

__all__ = ["MEASURES", "SUMMARIES", "CRPCurve", "full_scale_rp", "summaries", "crp_curves", "from_arrays", "curves_from_arrays", "from_ranked",
           "curves_from_ranked"]

MEASURES: Tuple[str, ...] = CRP_MEASURES
#: MATTERS' summaries of a curve: the space ratio sigma and the twist tau
SUMMARIES: Tuple[str, ...] = CRP_SUMMARIES
VARIANTS: Tuple[str, ...] = ("default", "matters")
#: the most positions ``pad_to`` may add to the curves of one call, over all queries
#: (each position is an RP, a CRP and an nCRP value: 24 bytes, 480 MB at the limit)
MAX_PADDING = 20_000_000
UNJUDGED: Tuple[str, ...] = ("nonrel", "condensed")


@dataclass(frozen=True)
class CRPCurve:
    """One query's relative positions and CRP curve, with its scalars.

    Attributes
    ----------
    rp, crp : ndarray of int64
        RP(j) and CRP(j) for j = 1..len.
    R : int
        Recall base (judged documents with grade >= the level).
    loss, worst_loss, recovery, balance, turnaround : float
        The scalars (docs/crp.md).
    sigma, tau : float
        MATTERS' space ratio and twist (`summaries`).
    ncrp : ndarray of float64
        The normalised curve nCRP(j) (`summaries`).
    """

    rp: np.ndarray          # int64, RP(j) for j = 1..len
    crp: np.ndarray         # int64, CRP(j)
    R: int                  # recall base (judged documents with grade >= level)
    loss: float             # CRP@R
    worst_loss: float       # -R (R + 1) / 2
    recovery: float         # rho
    balance: float          # b_r (NaN if none)
    turnaround: float       # first rank of the minimum
    sigma: float = float("nan")   # MATTERS' space ratio
    tau: float = float("nan")     # MATTERS' twist, (rho + sigma) / 2
    ncrp: Optional[np.ndarray] = None  # float64, the normalised curve nCRP(j)


def _check_options(unjudged: str, pad_to: Optional[Any], variant: str) -> Tuple[bool, int, bool]:
    if unjudged not in UNJUDGED:
        raise ValueError(f"unjudged must be one of {', '.join(UNJUDGED)}; got {unjudged!r}")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}; got {variant!r}")
    pad = 0 if pad_to is None else parse_int(pad_to, "pad_to")
    if pad < 0:
        raise ValueError(f"pad_to must not be negative, got {pad}")
    return unjudged == "condensed", pad, variant == "matters"


def from_ranked(rel: np.ndarray, offsets: np.ndarray, levels: np.ndarray, *, relevance_level: int = 1,
                unjudged: str = "nonrel", pad_to: Optional[int] = None, variant: str = "default",
                check_inputs: bool = True) -> Dict[str, np.ndarray]:
    """CRP scalars from rank-ordered relevance lists (the arrays of
    `irscore.core.joined.Joined`: ``rel`` int32 grades in rank order, -1
    unjudged, -2 judged negative; CSR ``offsets``; ``levels`` (n_queries,
    max_grade + 1) judged documents per grade).  Returns ``{name: float64
    array (n_queries,)}`` for `MEASURES`.

    Parameters
    ----------
    rel : ndarray of int32
        Grades in rank order (-1 not judged, -2 judged negative), CSR layout.
    offsets : ndarray of int64
        CSR offsets: query q is ``offsets[q]:offsets[q+1]``.
    levels : ndarray of int64, shape (n_queries, max_grade + 1)
        Judged documents per grade (the judged pool, retrieved or not).
    relevance_level : int, default 1
        Grades at or above it are relevant.
    unjudged : {'nonrel', 'condensed'}, default 'nonrel'
        Unjudged documents are non-relevant, or are removed (condensed list).
    pad_to : int, optional
        Pad each ranking with non-relevant documents to this length.
    variant : str, default 'default'
        The family's variant (see its docs page).
    check_inputs : bool, default True
        Validate the arrays (False: the caller guarantees them).

    Returns
    -------
    dict of str to ndarray
        ``{name: float64 array (n_queries,)}`` for `MEASURES`.

    Raises
    ------
    ValueError
        Malformed arrays or options.
    """
    level = check_level(relevance_level)
    condensed, pad, matters = _check_options(unjudged, pad_to, variant)
    if check_inputs:
        rel, _, offsets, levels = check_ranked(rel, offsets, levels, None)
    nq = offsets.shape[0] - 1
    out = np.empty((nq, len(MEASURES)), dtype=np.float64)
    _crp.scalars(rel, offsets, levels, level, condensed, pad, matters, out)
    return {name: out[:, i].copy() for i, name in enumerate(MEASURES)}


def curves_from_ranked(rel: np.ndarray, offsets: np.ndarray, levels: np.ndarray, *, relevance_level: int = 1,
                       unjudged: str = "nonrel", pad_to: Optional[int] = None, check_inputs: bool = True
                       ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """RP and CRP of every query as flat int64 arrays with CSR offsets:
    query q's curve is ``crp[curve_offsets[q]:curve_offsets[q + 1]]``.
    Returns ``(rp, crp, curve_offsets)``.

    Parameters
    ----------
    rel : ndarray of int32
        Grades in rank order (-1 not judged, -2 judged negative), CSR layout.
    offsets : ndarray of int64
        CSR offsets: query q is ``offsets[q]:offsets[q+1]``.
    levels : ndarray of int64, shape (n_queries, max_grade + 1)
        Judged documents per grade (the judged pool, retrieved or not).
    relevance_level : int, default 1
        Grades at or above it are relevant.
    unjudged : {'nonrel', 'condensed'}, default 'nonrel'
        Unjudged documents are non-relevant, or are removed (condensed list).
    pad_to : int, optional
        Pad each ranking with non-relevant documents to this length.
    check_inputs : bool, default True
        Validate the arrays (False: the caller guarantees them).

    Returns
    -------
    tuple of ndarray
        ``(rp, crp, curve_offsets)``: flat int64 arrays, query q's curve is ``crp[curve_offsets[q]:curve_offsets[q + 1]]``.

    Raises
    ------
    ValueError
        Malformed arrays or options.
    """
    level = check_level(relevance_level)
    condensed, pad, _ = _check_options(unjudged, pad_to, "default")
    if check_inputs:
        rel, _, offsets, levels = check_ranked(rel, offsets, levels, None)
    nq = offsets.shape[0] - 1
    lengths = np.empty(nq, dtype=np.int64)
    _crp.curve_lengths(rel, offsets, condensed, pad, lengths)
    if pad:
        ranked = np.empty(nq, dtype=np.int64)
        _crp.curve_lengths(rel, offsets, condensed, 0, ranked)
        added = int((lengths - ranked).sum())
        if added > MAX_PADDING:
            raise ValueError(f"pad_to={pad:,} would add {added:,} padding positions to the {nq:,} curves; "
                             f"at most {MAX_PADDING:,} in all (cut the padding, or compute the scalars, "
                             "which need no curves)")
    out_off = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(lengths, out=out_off[1:])
    rp = np.empty(int(out_off[-1]), dtype=np.int64)
    crp = np.empty(int(out_off[-1]), dtype=np.int64)
    _crp.curves(rel, offsets, levels, level, condensed, out_off, rp, crp)
    return rp, crp, out_off


def _split(rel: np.ndarray, offsets: np.ndarray, levels: np.ndarray, query_ids: Sequence[Any], level: int,
           unjudged: str, pad_to: Optional[int], variant: str) -> Dict[Any, CRPCurve]:
    sc = from_ranked(rel, offsets, levels, relevance_level=level, unjudged=unjudged, pad_to=pad_to,
                     variant=variant, check_inputs=False)
    rp, crp, off = curves_from_ranked(rel, offsets, levels, relevance_level=level, unjudged=unjudged,
                                      pad_to=pad_to, check_inputs=False)
    R = levels[:, level:].sum(axis=1) if level < levels.shape[1] else np.zeros(levels.shape[0], dtype=np.int64)
    res: Dict[Any, CRPCurve] = {}
    for q, qid in enumerate(query_ids):
        a, b = int(off[q]), int(off[q + 1])
        n_rel_ret = int((rel[offsets[q]:offsets[q + 1]] >= level).sum())
        sigma, tau, ncrp = summaries(rp[a:b], levels[q], level, n_rel_ret, float(sc["CRP_recovery"][q]))
        res[qid] = CRPCurve(rp[a:b], crp[a:b], int(R[q]), float(sc["CRP_loss"][q]), float(sc["CRP_worst_loss"][q]),
                            float(sc["CRP_recovery"][q]), float(sc["CRP_balance"][q]), float(sc["CRP_turnaround"][q]),
                            sigma, tau, ncrp)
    return res


def full_scale_rp(levels_row: np.ndarray, level: int, length: int) -> np.ndarray:
    """RP of MATTERS' *full-scale* vector of one query: the ideal vector (the
    judged pool by grade, highest first, padded with non-relevant documents to
    ``length``, at least the pool's size) in reverse order, i.e. the pool's
    worst ordering; its CRP spans the widest range a curve of that length can.

    Parameters
    ----------
    levels_row : ndarray of int64
        The query's judged documents per grade (grades 0, 1, ...).
    level : int
        Grades at or above it are relevant (each its own degree).
    length : int
        The curve's length.

    Returns
    -------
    ndarray of int64
        RP_f(j) for j = 1..max(length, pool size).
    """
    counts = np.asarray(levels_row, dtype=np.int64)
    rel_counts = counts[level:][::-1] if level < counts.shape[0] else counts[:0]
    R = int(rel_counts.sum())
    n = max(int(length), int(counts.sum()))
    ends = np.cumsum(rel_counts)              # last ideal position of each degree, highest first
    starts = ends - rel_counts + 1            # first ideal position
    lo = np.concatenate([np.repeat(starts, rel_counts), np.full(n - R, R + 1, dtype=np.int64)])
    hi = np.concatenate([np.repeat(ends, rel_counts), np.full(n - R, n, dtype=np.int64)])
    lo, hi = lo[::-1], hi[::-1]               # the reversed ideal: its blocks at each position
    pos = np.arange(1, n + 1, dtype=np.int64)
    return np.where(pos < lo, pos - lo, np.where(pos > hi, pos - hi, 0))


def summaries(rp: np.ndarray, levels_row: np.ndarray, level: int, n_rel_ret: int, rho: float
              ) -> Tuple[float, float, np.ndarray]:
    """MATTERS' summaries of one curve (``twist.m``): ``(sigma, tau, ncrp)``.

    With RP the run's relative positions and RP_f those of the full-scale
    vector (`full_scale_rp`): forward space ratio f = 1 - sum(RP > 0) /
    sum(RP_f > 0), backward b = 1 - sum(RP < 0) / sum(RP_f < 0),
    sigma = 2 f b / (f + b); tau = (rho + sigma) / 2 with ``rho`` the recovery
    value.  A run without a relevant retrieved document has sigma = tau = 0.
    nCRP(j) = (2 CRP(j) - mu - nu) / (mu - nu), mu and nu the maximum and the
    minimum of the full-scale CRP: -1 at the bottom of the full scale, +1 at its
    top.  R = 0: sigma, tau and every nCRP(j) are NaN (MATTERS' convention);
    f = b = 0 (the run is the full-scale vector) gives sigma = 0, where MATTERS
    computes 0/0; other 0/0 cases (a full scale without positive or negative RP,
    e.g. a pool that is all one grade and fills the curve) are NaN, as in
    MATTERS.

    Parameters
    ----------
    rp : ndarray of int64
        The run's relative positions RP(1..len).
    levels_row : ndarray of int64
        The query's judged documents per grade.
    level : int
        Relevance level.
    n_rel_ret : int
        Relevant documents retrieved.
    rho : float
        The recovery value (of the chosen variant).

    Returns
    -------
    tuple
        ``(sigma, tau, ncrp)``: two floats and the float64 normalised curve.
    """
    rp = np.asarray(rp, dtype=np.int64)
    counts = np.asarray(levels_row, dtype=np.int64)
    R = int(counts[level:].sum()) if level < counts.shape[0] else 0
    nan = float("nan")
    if R == 0:
        return nan, nan, np.full(rp.shape[0], nan)
    fs = full_scale_rp(counts, level, rp.shape[0])
    cfs = np.cumsum(fs)
    mu, nu = float(cfs.max()), float(cfs.min())
    with np.errstate(divide="ignore", invalid="ignore"):
        ncrp = (2.0 * np.cumsum(rp) - mu - nu) / (mu - nu) if mu != nu else np.full(rp.shape[0], nan)
    if n_rel_ret == 0:
        return 0.0, 0.0, ncrp
    fpos, fneg = float(fs[fs > 0].sum()), float(fs[fs < 0].sum())
    f = 1.0 - float(rp[rp > 0].sum()) / fpos if fpos else nan
    b = 1.0 - float(rp[rp < 0].sum()) / fneg if fneg else nan
    # f = b = 0 (the run is the full scale itself): the harmonic mean of two zeros, 0
    # (MATTERS computes 0/0 = NaN there)
    sigma = 2.0 * f * b / (f + b) if f + b != 0 else (0.0 if f == 0 and b == 0 else nan)
    return sigma, (rho + sigma) / 2.0, ncrp


def crp_curves(qrels: Any, run: Any, *, relevance_level: int = 1, unjudged: str = "nonrel",
               pad_to: Optional[int] = None, variant: str = "default", max_docs: Optional[int] = None,
               complete: bool = False) -> Dict[str, CRPCurve]:
    """Per query (``{query_id: CRPCurve}``, trec_eval's query order) the RP
    vector, the CRP curve (int64 NumPy arrays, rank 1 first) and the scalars.

    ``qrels``/``run``: as [`irscore.evaluate`][irscore.evaluate] (objects, dicts, paths).
    ``max_docs`` cuts each ranking (trec_eval ``-M``); ``complete`` (``-c``)
    adds qrels queries without a ranking as empty rankings (empty curves
    unless ``pad_to``).

    Parameters
    ----------
    qrels : Qrels, dict, DataFrame or path
        As in [`irscore.evaluate`][irscore.evaluate].
    run : Run, dict, DataFrame or path
        As in [`irscore.evaluate`][irscore.evaluate].
    relevance_level : int, default 1
        Grades at or above it are relevant.
    unjudged : {'nonrel', 'condensed'}, default 'nonrel'
        Unjudged documents are non-relevant, or are removed (condensed list).
    pad_to : int, optional
        Pad each ranking with non-relevant documents to this length.
    variant : str, default 'default'
        The family's variant (see its docs page).
    max_docs : int, optional
        Cut each ranking to this many documents (trec_eval ``-M``).
    complete : bool, default False
        Count every topic/query of the assessments; one without results scores 0.

    Returns
    -------
    dict of str to CRPCurve
        Per query (trec_eval's query order).

    Raises
    ------
    ValueError
        Bad options or inputs.
    """
    level = check_level(relevance_level)
    _check_options(unjudged, pad_to, variant)
    j = join(as_qrels(qrels), as_run(run), complete=complete, max_docs=max_docs)
    rel, _, offsets = ranked_lists(j)
    return _split(rel, offsets, j.levels, j.query_ids, level, unjudged, pad_to, variant)


_ARRAYS_DOC = """
    Parameters
    ----------
    scores : array_like
        2-D ``(n_queries, n_candidates)`` (NaN scores mark padding) or 1-D with
        CSR ``offsets``; ranked here by score descending, equal scores by column
        descending (``ties="trec"``, as [`irscore.batch`][irscore.batch]) or in input order
        (``ties="input"``).
    labels : array_like of int
        Grades, same shape; every candidate counts as judged (negative labels:
        judged non-relevant).
    offsets : array_like of int, optional, keyword-only
        CSR offsets of 1-D input.
    n_relevant : array_like of int, optional
        ``(n_queries, n_grades)`` counts of the judged documents per grade when
        some lie outside the candidates.
    relevance_level : int, default 1
        Grades at or above it are relevant.
    pad_to : int, optional
        Pad each ranking with non-relevant documents to this length.
    variant : {"default", "matters"}
        The CRP variant (docs/crp.md).
    ties : {"trec", "input"}
        Order of equal scores.
"""


def from_arrays(scores: Any, labels: Any, *, offsets: Optional[Any] = None,
                n_relevant: Optional[Any] = None, relevance_level: int = 1, pad_to: Optional[int] = None,
                variant: str = "default", ties: str = "trec") -> Dict[str, np.ndarray]:
    """CRP scalars from scores and grades of candidate documents (no TREC files).
    {params}
    Returns
    -------
    dict of str to ndarray
        ``{{name: float64 array (n_queries,)}}`` for `MEASURES`.

    Raises
    ------
    ValueError, TypeError
        Malformed arrays or a bad option.
    """
    rel, _, off, _ = sort_arrays(scores, labels, offsets, ties)
    levels = judged_counts(rel, off, n_relevant)
    return from_ranked(rel, off, levels, relevance_level=relevance_level, pad_to=pad_to, variant=variant,
                       check_inputs=False)


def curves_from_arrays(scores: Any, labels: Any, *, offsets: Optional[Any] = None, n_relevant: Optional[Any] = None,
                       relevance_level: int = 1, pad_to: Optional[int] = None, variant: str = "default",
                       ties: str = "trec") -> List[CRPCurve]:
    """CRP curves (one [`CRPCurve`][irscore.crp.CRPCurve] per query, RP and CRP vectors with the
    scalars) from scores and grades of candidate documents.
    {params}
    Returns
    -------
    list of CRPCurve
        One per query, in input order.

    Raises
    ------
    ValueError, TypeError
        Malformed arrays or a bad option.
    """
    rel, _, off, _ = sort_arrays(scores, labels, offsets, ties)
    levels = judged_counts(rel, off, n_relevant)
    level = check_level(relevance_level)
    return list(_split(rel, off, levels, range(off.shape[0] - 1), level, "nonrel", pad_to, variant).values())


from_arrays.__doc__ = (from_arrays.__doc__ or "").format(params=_ARRAYS_DOC)
curves_from_arrays.__doc__ = (curves_from_arrays.__doc__ or "").format(params=_ARRAYS_DOC)


# ---------------------------------------------------------- evaluate() hook

def compute_joined(joined: Joined, *, relevance_level: int = 1, unjudged: str = "nonrel",
                   pad_to: Optional[int] = None, variant: str = "default", cache: Optional[ResultCache] = None
                   ) -> Dict[str, np.ndarray]:
    """All CRP scalars for the queries of a `Joined`
    (one kernel pass; kept in ``cache``, when given, for the other measures of
    the same evaluation)."""
    def compute() -> Dict[str, np.ndarray]:
        rel, _, offsets = ranked_lists(joined)
        return from_ranked(rel, offsets, joined.levels, relevance_level=relevance_level,
                           unjudged=unjudged, pad_to=pad_to, variant=variant)

    if cache is None:
        return compute()
    result: Dict[str, np.ndarray] = cache.get(("crp", relevance_level, unjudged, pad_to or 0, variant), compute)
    return result


def compute_measure(joined: Joined, name: str, params: Dict[str, Any], level: int, cache: ResultCache
                    ) -> np.ndarray:
    """One CRP scalar per query of ``joined``: the hook through which
    [`irscore.evaluate`][irscore.evaluate] and [`irscore.batch.evaluate`][irscore.batch.evaluate] compute the
    names this family declares in `irscore.core.registry`."""
    lv = level if params["rel"] is None else params["rel"]
    if name in SUMMARIES:
        rel, _, offsets = ranked_lists(joined)
        curves = _split(rel, offsets, joined.levels, list(range(len(joined.query_ids))), lv, params["unjudged"],
                        params["pad_to"], params["variant"])
        return np.array([getattr(curves[q], name[4:]) for q in range(len(joined.query_ids))], dtype=np.float64)
    return compute_joined(joined, relevance_level=lv, unjudged=params["unjudged"], pad_to=params["pad_to"],
                          variant=params["variant"], cache=cache)[name]


register(CRP_GROUP, compute_measure)
