"""Reliability & Sensitivity and its special cases: position weights,
[`reliability_sensitivity`][irscore.organization.measures.reliability_sensitivity], [`filtering_rs`][irscore.organization.measures.filtering_rs], [`bcubed`][irscore.organization.measures.bcubed],
[`extended_bcubed`][irscore.organization.measures.extended_bcubed]."""
from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Sequence, Tuple

import numpy as np

from irscore import _org_bcubed, _org_rs
from irscore._org_core import Side
from irscore.organization.align import aligned_topics, pair_arrays
from irscore.organization.model import (
    DEFAULT_TOPIC,
    DocId,
    Organization,
    OrganizationLike,
    RSResult,
    as_org,
    check_doc,
    check_label,
    rs_result,
)


# ---------------------------------------------------------------------------
# parameters
# ---------------------------------------------------------------------------
def _weight_constant(n: Any, w_n: Any) -> float:
    if isinstance(n, bool) or not isinstance(n, (int, float, np.integer, np.floating)):
        raise TypeError(f"n must be a number >= 1, got {type(n).__name__} {n!r}")
    if isinstance(w_n, bool) or not isinstance(w_n, (int, float, np.integer, np.floating)):
        raise TypeError(f"w_n must be a number in (0, 1), got {type(w_n).__name__} {w_n!r}")
    n = float(n)
    w_n = float(w_n)
    if not (n >= 1.0) or math.isinf(n):
        raise ValueError(f"n must be >= 1 (the first n occurrences carry w_n of the weight), got {n!r}")
    if not (0.0 < w_n < 1.0):
        raise ValueError(f"w_n must lie strictly between 0 and 1, got {w_n!r}")
    return (1.0 - w_n) * n / w_n


def position_weights(k: int, n: float = 10, w_n: float = 0.8) -> np.ndarray:
    """Weights of the first ``k`` positions of a ranking (one occurrence per level).

    ``c = (1 - w_n) n / w_n`` and position ``i`` weighs ``c (1/(c+i-1) - 1/(c+i))``:
    the first ``n`` positions sum to ``w_n``.

    Parameters
    ----------
    k : int
        Number of positions.
    n : float, default 10
        Ranking weights: the first n occurrences carry the fraction ``w_n`` of the
        weight.
    w_n : float, default 0.8
        That fraction.

    Returns
    -------
    ndarray of float64
        The weight of each position 1..k.

    Raises
    ------
    ValueError, TypeError
        ``n`` < 1 or ``w_n`` outside (0, 1).
    """
    c = _weight_constant(n, w_n)
    i = np.arange(1, int(k) + 1, dtype=np.float64)
    return c * (1.0 / (c + i - 1.0) - 1.0 / (c + i))


# ---------------------------------------------------------------------------
# Reliability & Sensitivity
# ---------------------------------------------------------------------------
def reliability_sensitivity(
    gold: OrganizationLike,
    system: OrganizationLike,
    *,
    n: float = 10,
    w_n: float = 0.8,
    weights: str = "ranking",
    foreign: str = "tail",
) -> RSResult:
    """Reliability, Sensitivity and their F for priority and relatedness relations.

    ``gold`` and ``system`` are [`Organization`][irscore.Organization] objects, or plain nested lists
    (levels -> clusters -> document ids, one topic) or dicts of those per topic; both
    sides must have the same topics.  ``n``/``w_n``: the first ``n`` occurrences carry
    the fraction ``w_n`` of the weight (``weights="ranking"``, default n=10,
    w_n=0.8 as the paper's Table 9).  ``weights="uniform"``: every occurrence weighs
    1/|occ| and there is no long tail (filtering, flat clustering).
    ``foreign="tail"`` places a document listed on one side only in the other side's
    tail; ``foreign="absent"`` counts its priority relations wrong.

    Returns an [`RSResult`][irscore.organization.RSResult]: the means of ``R_priority``, ``S_priority``,
    ``F_priority``, ``R_relatedness``, ``S_relatedness``, ``F_relatedness`` over the
    topics, and ``per_query`` values.

    Parameters
    ----------
    gold : Organization or nested lists
        The gold standard (see [`Organization`][irscore.Organization]).
    system : Organization or nested lists
        The system output, same form.
    n : float, default 10
        Ranking weights: the first n occurrences carry the fraction ``w_n`` of the
        weight.
    w_n : float, default 0.8
        That fraction.
    weights : {'ranking', 'uniform'}, default 'ranking'
        Position weights (docs/reliability_sensitivity.md).
    foreign : {'tail', 'absent'}, default 'tail'
        Documents listed on one side only: in the other side's tail, or every
        relation of theirs wrong.

    Returns
    -------
    RSResult
        Means over the topics; ``per_query`` per topic.

    Raises
    ------
    ValueError, TypeError
        Malformed organizations or options.
    """
    if weights not in ("ranking", "uniform"):
        raise ValueError(f"weights must be 'ranking' or 'uniform', got {weights!r}")
    if foreign not in ("tail", "absent"):
        raise ValueError(f"foreign must be 'tail' or 'absent', got {foreign!r}")
    uniform = weights == "uniform"
    c = _weight_constant(n, w_n)
    g = as_org(gold, "gold")
    s = as_org(system, "system")
    topics = aligned_topics(g, s)
    g_ptr, g_doc, g_lev, g_cl, s_ptr, s_doc, s_lev, s_cl, n_docs = pair_arrays(g, s, topics)
    nt = len(topics)
    r_pr = np.zeros(nt)
    r_re = np.zeros(nt)
    s_pr = np.zeros(nt)
    s_re = np.zeros(nt)
    tail = foreign == "tail"
    gs = Side(g_ptr, g_doc, g_lev, g_cl)
    ss = Side(s_ptr, s_doc, s_lev, s_cl)
    _org_rs.rs_side(ss, gs, n_docs, r_pr, r_re, c=c, uniform=uniform, foreign_tail=tail)
    _org_rs.rs_side(gs, ss, n_docs, s_pr, s_re, c=c, uniform=uniform, foreign_tail=tail)
    f_pr = _harmonic_arr(r_pr, s_pr)
    f_re = _harmonic_arr(r_re, s_re)
    return rs_result(
        topics,
        {
            "R_priority": r_pr,
            "S_priority": s_pr,
            "F_priority": f_pr,
            "R_relatedness": r_re,
            "S_relatedness": s_re,
            "F_relatedness": f_re,
        },
    )


def _harmonic_arr(r: np.ndarray, s: np.ndarray) -> np.ndarray:
    den = r + s
    out = np.zeros_like(r)
    ok = den > 0
    out[ok] = 2.0 * r[ok] * s[ok] / den[ok]
    return out


# ---------------------------------------------------------------------------
# filtering (closed form)
# ---------------------------------------------------------------------------
def _labels_per_topic(x: Any, name: str) -> Dict[str, Dict[DocId, int]]:
    if isinstance(x, Organization):
        if x._labels is not None:
            return x._labels
        out: Dict[str, Dict[DocId, int]] = {}
        for t in x.topics:
            lv = x[t]
            if len(lv) > 2 or any(len(cl) != 1 for lev in lv for cl in lev):
                raise ValueError(
                    f"{name}: topic {t!r} is not a filtering output (at most two levels of "
                    f"singleton clusters)"
                )
            if len(lv) == 1:
                raise ValueError(
                    f"{name}: topic {t!r} has a single level; build it with "
                    f"Organization.from_labels so that positive and negative are known"
                )
            lab: Dict[DocId, int] = {}
            for li, lev in enumerate(lv):
                for (d,) in lev:
                    if d in lab:
                        raise ValueError(f"{name}: topic {t!r} document {d!r} is listed twice")
                    lab[d] = 1 if li == 0 else 0
            out[t] = lab
        return out
    if isinstance(x, Mapping):
        if not x:
            raise ValueError(f"{name}: no labels")
        first = next(iter(x.values()))
        if isinstance(first, Mapping):
            return Organization.from_labels(x, name=name)._labels  # type: ignore[return-value]
        return Organization.from_labels({DEFAULT_TOPIC: x}, name=name)._labels  # type: ignore[return-value]
    if isinstance(x, (Sequence, np.ndarray)) and not isinstance(x, (str, bytes)):
        arr = list(x)
        if not arr:
            raise ValueError(f"{name}: no labels")
        return {DEFAULT_TOPIC: {i: check_label(v, f"{name}: position {i}") for i, v in enumerate(arr)}}
    raise TypeError(f"{name}: expected labels {{doc: 0|1}}, a 0/1 sequence or an Organization, got {type(x).__name__}")


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else 0.0


def filtering_rs(gold: Any, system: Any) -> RSResult:
    """Reliability and Sensitivity of a binary filtering output (closed form).

    R = TP/(TP+FP) * TN/(TN+FN) and S = TP/(TP+FN) * TN/(TN+FP), a factor with an
    empty denominator counting 0; F = 2RS/(R+S).  This equals the generic measure
    with uniform weights on two levels of singletons.  ``gold``/``system``:
    ``{doc: 0|1}``, ``{topic: {doc: 0|1}}``, two aligned 0/1 sequences, or
    organizations read with ``format="labels"``.  Both sides must label the same
    documents.  Returns an [`RSResult`][irscore.organization.RSResult] with keys ``R``, ``S``, ``F``.

    Parameters
    ----------
    gold : mapping or Organization
        Gold labels (see the description above).
    system : mapping or Organization
        System labels, same form.

    Returns
    -------
    RSResult

    Raises
    ------
    ValueError, TypeError
        Malformed input.
    """
    g = _labels_per_topic(gold, "gold")
    s = _labels_per_topic(system, "system")
    only_s = [t for t in s if t not in g]
    if only_s:
        raise ValueError(f"system: unknown topic(s) not in the gold standard: {', '.join(map(repr, only_s[:5]))}")
    only_g = [t for t in g if t not in s]
    if only_g:
        raise ValueError(f"system: no labels for gold topic(s) {', '.join(map(repr, only_g[:5]))}")
    topics = list(g)
    R = np.zeros(len(topics))
    S = np.zeros(len(topics))
    for i, t in enumerate(topics):
        gt, st = g[t], s[t]
        for d in st:
            if d not in gt:
                raise ValueError(f"system: topic {t!r} document {d!r} has no gold label")
        tp = fp = fn = tn = 0
        for d, gl in gt.items():
            if d not in st:
                raise ValueError(f"system: topic {t!r} document {d!r} is not labelled")
            sl = st[d]
            if sl and gl:
                tp += 1
            elif sl:
                fp += 1
            elif gl:
                fn += 1
            else:
                tn += 1
        R[i] = _ratio(tp, tp + fp) * _ratio(tn, tn + fn)
        S[i] = _ratio(tp, tp + fn) * _ratio(tn, tn + fp)
    return rs_result(topics, {"R": R, "S": S, "F": _harmonic_arr(R, S)})


# ---------------------------------------------------------------------------
# clustering: BCubed
# ---------------------------------------------------------------------------
def _as_clustering(x: Any, name: str) -> Organization:
    if isinstance(x, Organization):
        # levels are ignored: every cluster of every level, in one level
        return Organization({t: [[cl for lev in lv for cl in lev]] for t, lv in x._topics.items()}, name=name)
    if isinstance(x, Mapping) and x and all(isinstance(v, (set, frozenset)) for v in x.values()):
        # the bcubed package's layout: {item: set of cluster labels}
        clusters: Dict[Any, List[DocId]] = {}
        for d, labels in x.items():
            doc = check_doc(d, name)
            if not labels:
                raise ValueError(f"{name}: document {doc!r} has no cluster")
            for lab in labels:
                clusters.setdefault(lab, []).append(doc)
        return Organization.from_clusters(list(clusters.values()), name=name)
    return Organization.from_clusters(x, name=name)


def _same_documents(g: Organization, s: Organization, topics: Sequence[str]) -> None:
    for t in topics:
        gd = {d for lev in g[t] for cl in lev for d in cl}
        sd = {d for lev in s[t] for cl in lev for d in cl}
        if gd != sd:
            extra = sorted(map(repr, sd - gd))[:3]
            if extra:
                raise ValueError(f"system: topic {t!r} document {extra[0]} is not in the gold clustering")
            missing = sorted(map(repr, gd - sd))[:3]
            raise ValueError(f"system: topic {t!r} document {missing[0]} of the gold clustering is not clustered")


def _clusterings(gold: Any, system: Any) -> Tuple[List[str], Tuple[Any, ...]]:
    """Both flat clusterings as aligned kernel arrays (same documents required)."""
    g = _as_clustering(gold, "gold")
    s = _as_clustering(system, "system")
    topics = aligned_topics(g, s)
    _same_documents(g, s, topics)
    return topics, pair_arrays(g, s, topics)


def bcubed(gold: Any, system: Any) -> RSResult:
    """BCubed precision, recall and F of a flat clustering.

    ``gold``/``system``: a list of clusters (collections of document ids), a dict of
    them per topic, the ``bcubed`` package's ``{item: set of cluster labels}``, or an
    [`Organization`][irscore.Organization] (all clusters of all levels).  Both
    sides must cluster the same documents.  Without overlap this is the classic
    BCubed (Bagga & Baldwin); with overlapping clusters it is the paper's
    per-occurrence variant (each membership counts as a separate item) — i.e.
    Reliability/Sensitivity of relatedness with uniform weights.  For Amigó et al.
    2009's extended BCubed see [`extended_bcubed`][irscore.organization.measures.extended_bcubed].  Keys: ``precision``,
    ``recall``, ``F``.

    Parameters
    ----------
    gold : Organization or nested lists
        The gold standard (see [`Organization`][irscore.Organization]).
    system : Organization or nested lists
        The system output, same form.

    Returns
    -------
    RSResult

    Raises
    ------
    ValueError, TypeError
        Malformed input, or the two sides cover different documents.
    """
    topics, (g_ptr, g_doc, g_lev, g_cl, s_ptr, s_doc, s_lev, s_cl, n_docs) = _clusterings(gold, system)
    nt = len(topics)
    pr = np.zeros(nt)
    P = np.zeros(nt)
    R = np.zeros(nt)
    gs = Side(g_ptr, g_doc, g_lev, g_cl)
    ss = Side(s_ptr, s_doc, s_lev, s_cl)
    _org_rs.rs_side(ss, gs, n_docs, pr, P, c=1.0, uniform=True, foreign_tail=True)
    _org_rs.rs_side(gs, ss, n_docs, pr, R, c=1.0, uniform=True, foreign_tail=True)
    return rs_result(topics, {"precision": P, "recall": R, "F": _harmonic_arr(P, R)})


def extended_bcubed(gold: Any, system: Any) -> RSResult:
    """Extended BCubed (Amigó, Gonzalo, Artiles, Verdejo 2009) for overlapping clusterings.

    P = avg_d avg_{e sharing a cluster with d} min(|C(d)&C(e)|, |L(d)&L(e)|) / |C(d)&C(e)|
    (C: system clusters, L: gold classes; e includes d itself), recall symmetric.
    Same inputs as [`bcubed`][irscore.organization.measures.bcubed].  Keys: ``precision``, ``recall``, ``F``.

    Parameters
    ----------
    gold : Organization or nested lists
        The gold standard (see [`Organization`][irscore.Organization]).
    system : Organization or nested lists
        The system output, same form.

    Returns
    -------
    RSResult

    Raises
    ------
    ValueError, TypeError
        Malformed input, or the two sides cover different documents.
    """
    topics, (g_ptr, g_doc, g_lev, g_cl, s_ptr, s_doc, s_lev, s_cl, n_docs) = _clusterings(gold, system)
    nt = len(topics)
    P = np.zeros(nt)
    R = np.zeros(nt)
    gs = Side(g_ptr, g_doc, g_lev, g_cl)
    ss = Side(s_ptr, s_doc, s_lev, s_cl)
    _org_bcubed.extended_bcubed_side(ss, gs, n_docs, P)
    _org_bcubed.extended_bcubed_side(gs, ss, n_docs, R)
    return rs_result(topics, {"precision": P, "recall": R, "F": _harmonic_arr(P, R)})
