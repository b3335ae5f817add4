"""One function per measure (``ndcg``, ``average_precision``, ...): shortcuts to
[`irscore.batch.evaluate`][irscore.batch.evaluate]."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from irscore.batch.engine import evaluate

# ------------------------------------------------------------------ one function per measure

def _cut(name: str, k: Optional[int]) -> str:
    if k is None:
        return name
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k <= 0:
        raise ValueError(f"k: expected a positive integer, got {k!r}")
    return f"{name}@{int(k)}"


def ndcg(scores: Any, labels: Any, k: Optional[int] = None, *, gain: str = "linear", **kw: Any) -> np.ndarray:
    """nDCG@k per query (whole ranking when k is None); ``gain="exp"`` for 2**label - 1.

    Parameters
    ----------
    scores : array_like
        Scores, 2-D ``(n_queries, n_candidates)`` or 1-D with ``offsets``.
    labels : array_like
        Relevance labels, same shape as ``scores``.
    k : int, optional
        Rank cutoff (None: the whole ranking).
    gain : {'linear', 'exp'}, default 'linear'
        Gain of a grade: the grade, or 2**grade - 1.
    **kw
        Options of [`evaluate`][irscore.batch.evaluate] (``lengths``, ``offsets``, ``n_relevant``,
        ``ties``, ``relevance_level``, ``n_jobs`` ...).

    Returns
    -------
    ndarray of float64
        nDCG@k of each query.

    Raises
    ------
    ValueError, TypeError
        As [`evaluate`][irscore.batch.evaluate].
    """
    name = _cut("nDCG" if gain == "linear" else f"nDCG(gain={gain})", k)
    return evaluate(scores, labels, [name], **kw)[name]


def dcg(scores: Any, labels: Any, k: Optional[int] = None, *, gain: str = "linear", **kw: Any) -> np.ndarray:
    """DCG@k per query (whole ranking when k is None).

    Parameters
    ----------
    scores : array_like
        Scores, 2-D ``(n_queries, n_candidates)`` or 1-D with ``offsets``.
    labels : array_like
        Relevance labels, same shape as ``scores``.
    k : int, optional
        Rank cutoff (None: the whole ranking).
    gain : {'linear', 'exp'}, default 'linear'
        Gain of a grade: the grade, or 2**grade - 1.
    **kw
        Options of [`evaluate`][irscore.batch.evaluate] (``lengths``, ``offsets``, ``n_relevant``,
        ``ties``, ``relevance_level``, ``n_jobs`` ...).

    Returns
    -------
    ndarray of float64
        DCG@k of each query.

    Raises
    ------
    ValueError, TypeError
        As [`evaluate`][irscore.batch.evaluate].
    """
    name = _cut("DCG" if gain == "linear" else f"DCG(gain={gain})", k)
    return evaluate(scores, labels, [name], **kw)[name]


def average_precision(scores: Any, labels: Any, k: Optional[int] = None, **kw: Any) -> np.ndarray:
    """AP per query (AP@k, trec_eval's map_cut, when k is given).

    Parameters
    ----------
    scores : array_like
        Scores, 2-D ``(n_queries, n_candidates)`` or 1-D with ``offsets``.
    labels : array_like
        Relevance labels, same shape as ``scores``.
    k : int, optional
        Rank cutoff (None: the whole ranking).
    **kw
        Options of [`evaluate`][irscore.batch.evaluate] (``lengths``, ``offsets``, ``n_relevant``,
        ``ties``, ``relevance_level``, ``n_jobs`` ...).

    Returns
    -------
    ndarray of float64
        AP (AP@k) of each query.

    Raises
    ------
    ValueError, TypeError
        As [`evaluate`][irscore.batch.evaluate].
    """
    name = _cut("AP", k)
    return evaluate(scores, labels, [name], **kw)[name]


def precision(scores: Any, labels: Any, k: int, **kw: Any) -> np.ndarray:
    """P@k per query (k fixed even when a query has fewer candidates).

    Parameters
    ----------
    scores : array_like
        Scores, 2-D ``(n_queries, n_candidates)`` or 1-D with ``offsets``.
    labels : array_like
        Relevance labels, same shape as ``scores``.
    k : int
        Rank cutoff.
    **kw
        Options of [`evaluate`][irscore.batch.evaluate] (``lengths``, ``offsets``, ``n_relevant``,
        ``ties``, ``relevance_level``, ``n_jobs`` ...).

    Returns
    -------
    ndarray of float64
        P@k of each query.

    Raises
    ------
    ValueError, TypeError
        As [`evaluate`][irscore.batch.evaluate].
    """
    name = _cut("P", k)
    return evaluate(scores, labels, [name], **kw)[name]


def recall(scores: Any, labels: Any, k: int, **kw: Any) -> np.ndarray:
    """R@k per query.

    Parameters
    ----------
    scores : array_like
        Scores, 2-D ``(n_queries, n_candidates)`` or 1-D with ``offsets``.
    labels : array_like
        Relevance labels, same shape as ``scores``.
    k : int
        Rank cutoff.
    **kw
        Options of [`evaluate`][irscore.batch.evaluate] (``lengths``, ``offsets``, ``n_relevant``,
        ``ties``, ``relevance_level``, ``n_jobs`` ...).

    Returns
    -------
    ndarray of float64
        R@k of each query.

    Raises
    ------
    ValueError, TypeError
        As [`evaluate`][irscore.batch.evaluate].
    """
    name = _cut("R", k)
    return evaluate(scores, labels, [name], **kw)[name]


def success(scores: Any, labels: Any, k: int, **kw: Any) -> np.ndarray:
    """Success@k per query: 1 if a relevant candidate is in the top k.

    Parameters
    ----------
    scores : array_like
        Scores, 2-D ``(n_queries, n_candidates)`` or 1-D with ``offsets``.
    labels : array_like
        Relevance labels, same shape as ``scores``.
    k : int
        Rank cutoff.
    **kw
        Options of [`evaluate`][irscore.batch.evaluate] (``lengths``, ``offsets``, ``n_relevant``,
        ``ties``, ``relevance_level``, ``n_jobs`` ...).

    Returns
    -------
    ndarray of float64
        Success@k of each query.

    Raises
    ------
    ValueError, TypeError
        As [`evaluate`][irscore.batch.evaluate].
    """
    name = _cut("Success", k)
    return evaluate(scores, labels, [name], **kw)[name]


def reciprocal_rank(scores: Any, labels: Any, k: Optional[int] = None, **kw: Any) -> np.ndarray:
    """RR (RR@k) per query: 1 / rank of the first relevant candidate (0 if none,
    or if it is below rank k).

    Parameters
    ----------
    scores : array_like
        Scores, 2-D ``(n_queries, n_candidates)`` or 1-D with ``offsets``.
    labels : array_like
        Relevance labels, same shape as ``scores``.
    k : int, optional
        Rank cutoff (MS MARCO's MRR@10 is the mean of ``k=10``); the whole
        ranking by default.
    **kw
        Options of [`evaluate`][irscore.batch.evaluate] (``lengths``, ``offsets``, ``n_relevant``,
        ``ties``, ``relevance_level``, ``n_jobs`` ...).

    Returns
    -------
    ndarray of float64
        RR of each query.

    Raises
    ------
    ValueError, TypeError
        As [`evaluate`][irscore.batch.evaluate].
    """
    name = _cut("RR", k)
    return evaluate(scores, labels, [name], **kw)[name]


def r_precision(scores: Any, labels: Any, **kw: Any) -> np.ndarray:
    """R-precision per query: precision at rank R (R = number of relevant).

    Parameters
    ----------
    scores : array_like
        Scores, 2-D ``(n_queries, n_candidates)`` or 1-D with ``offsets``.
    labels : array_like
        Relevance labels, same shape as ``scores``.
    **kw
        Options of [`evaluate`][irscore.batch.evaluate] (``lengths``, ``offsets``, ``n_relevant``,
        ``ties``, ``relevance_level``, ``n_jobs`` ...).

    Returns
    -------
    ndarray of float64
        R-precision of each query.

    Raises
    ------
    ValueError, TypeError
        As [`evaluate`][irscore.batch.evaluate].
    """
    return evaluate(scores, labels, ["Rprec"], **kw)["Rprec"]
