"""Focused-retrieval measures: overlap, XCG (nxCG, ep/gr, MAep), HiXEval, interpolated
precision (iP, MAiP)."""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence, Union

import numpy as np

from irscore import _xml_focused, _xml_xcg
from irscore.xml.align import align_run, run_pass
from irscore.xml.context import EvalContext
from irscore.xml.model import EMPTY_F, EMPTY_I, I64, Quantisation, XmlQrels, XmlRun
from irscore.xml.names import level_name, match_name, measure_family, point_index


def overlap(run: XmlRun) -> Dict[str, np.ndarray]:
    """overlap(i) = size(e_i ∩ union_{j<i} e_j) / size(e_i) for every result, per
    topic (0 for empty spans).  O(n log n) per topic.

    Parameters
    ----------
    run : XmlRun
        The run, in rank order.

    Returns
    -------
    dict of str to ndarray
        Per topic, the overlap of each result with earlier ones.
    """
    if not run.topics:
        return {}
    empty = XmlQrels.from_passages({t: [] for t in run.topics})
    al = align_run(empty, run, complete=False)
    # keep the run's own topic order
    ideal = (np.zeros(len(al.topics) + 1, I64), EMPTY_I, EMPTY_I, EMPTY_I)
    ps = run_pass(al, ideal, 1.0, 1.0, EMPTY_F, False)
    with np.errstate(invalid="ignore", divide="ignore"):
        ov = np.where(ps.size > 0, ps.covered / np.maximum(ps.size, 1), 0.0)
    return {t: ov[al.run_off[k]:al.run_off[k + 1]].copy() for k, t in enumerate(al.topics)}


def xcg(qrels: XmlQrels, run: XmlRun, *, cutoffs: Sequence[int] = (5, 10, 25, 50), alpha: float = 1.0,
        quantisation: Quantisation = "auto", ideal_overlap: str = "ancestor", normalise: bool = True,
        maep_denominator: str = "ideal", points: int = 100, seen: str = "ancestor",
        complete: bool = False) -> Dict[str, Dict[str, float]]:
    """The XCG family per topic: ``XCG@k``, ``nxCG@k``, ``MAep``, ``iep[x]``.

    ``alpha``: 1 Focused (overlap costs everything), 0 Thorough (ignored).
    ``quantisation``: ``"auto"`` = generalised for element assessments,
    INEX 2006 (q = specificity) for passage assessments.  ``normalise``: cap the
    gain collected under an ideal element at its ideal gain.  ``maep_denominator``:
    ``"ideal"`` (|ideal set|, the default of docs/xml.md, XCG) or ``"gain_ranks"`` (number of ranks
    where gain was collected).  ``iep[x]`` = max ep at ranks with gr >= x on the
    grid 0, 1/points, ..., 1.  ``seen``: when a result (or, in the recursion,
    an assessed element) counts as completely seen: ``"ancestor"`` (default,
    docs/xml.md, XCG: it or an ancestor was retrieved before; text covered only by
    several descendants is then partially seen) or ``"overlap"`` (overlap = 1:
    all its text was retrieved before, by whatever results).  Topics with an empty ideal set are left out.

    Parameters
    ----------
    qrels : XmlQrels
        The assessments.
    run : XmlRun
        The run, in rank order.
    cutoffs : sequence of int
        The rank cutoffs k of the ``@k`` measures.
    alpha : float, default 1.0
        Overlap penalty (1: Focused, already seen text gains nothing; 0: Thorough).
    quantisation : str, callable or mapping
        How (exhaustivity, specificity) becomes a relevance value: a name
        (``generalised``, ``strict``, ``inex2006``, ...; ``auto`` picks one for the
        assessments), a function ``f(exh, spe)`` or a mapping ``{(exh, spe):
        value}`` (docs/xml.md, quantisation).
    ideal_overlap : {'ancestor', 'none'}, default 'ancestor'
        How the ideal recall base removes overlap (docs/xml.md, ideal recall base).
    normalise : bool, default True
        Cap the gain collected for an ideal element at its ideal gain. With passage
        assessments a result's gain is attributed to the ideal passages it touches (in
        proportion to the text of each it retrieves, new text for the alpha part), so
        nxCG, gr and MAep stay in [0, 1] whatever the results' geometry; MAep then counts
        the first rank that collects gain for a passage (docs/xml.md, XCG, "Cap").
    maep_denominator : {'ideal', 'gain_ranks'}, default 'ideal'
        MAep's denominator.
    points : int
        Number of recall intervals of the interpolated grid (0, 1/points, ..., 1).
    seen : {'ancestor', 'overlap'}, default 'ancestor'
        When a result counts as completely seen (docs/xml.md, XCG).
    complete : bool, default False
        Count every topic/query of the assessments; one without results scores 0.

    Returns
    -------
    dict of str to dict of str to float
        ``{measure name: {topic: value}}`` (topics that count for the measure).

    Raises
    ------
    ValueError, TypeError
        Bad inputs or options.
    """
    ctx = EvalContext(qrels, run, alpha=alpha, hix_alpha=1.0, quantisation=quantisation,
                   ideal_overlap=ideal_overlap, normalise=normalise, complete=complete, seen=seen)
    names = {f"XCG@{k}" for k in cutoffs} | {f"nxCG@{k}" for k in cutoffs} | {"MAep"}
    names |= {f"iep[{level_name(p, points)}]" for p in range(points + 1)}
    return compute_focused(ctx, sorted(names), maep_denominator=maep_denominator, points=points)


def hixeval(qrels: XmlQrels, run: XmlRun, *, cutoffs: Sequence[int] = (1, 5, 10, 25, 50), alpha: float = 1.0,
            trel: Union[str, Mapping[str, float]] = "highlighted", hix_beta: float = 1.0,
            complete: bool = False) -> Dict[str, Dict[str, float]]:
    """HiXEval P@k, R@k and F@k per topic (``hixP@k``, ``hixR@k``, ``hixF@k``).

    rval(i) = rsize if overlap 0; (1 - alpha) rsize if 1; else
    rsize - alpha * sum of rval(j) over earlier results inside e_i.
    P@k = sum rval / sum size(e_i); R@k = sum rval / Trel.  With
    ``alpha=1`` (Focused) each relevant character counts once: rval(i) is the
    highlighted text of e_i that no earlier result retrieved (the rule above
    for nested results, and also for results that cross each other, where the
    rule would count the shared text twice), so R@k <= 1.  With ``alpha < 1``
    retrieving relevant text again is rewarded by definition (``alpha=0``,
    Thorough: fully), and R@k may exceed 1 against the highlighted Trel.  ``trel``:
    ``"highlighted"`` (Focused: highlighted characters of the topic),
    ``"thorough"`` (rsize summed over every assessed element; element
    assessments) or a mapping topic -> Trel.  With element-only assessments
    (INEX 2005-06) rsize(e_i) = spe * size of the assessed element equal to
    e_i (0 for other spans).
    F is the F-beta of P and R (``hix_beta=1``: harmonic mean).

    Parameters
    ----------
    qrels : XmlQrels
        The assessments.
    run : XmlRun
        The run, in rank order.
    cutoffs : sequence of int
        The rank cutoffs k of the ``@k`` measures.
    alpha : float, default 1.0
        Overlap penalty (1: Focused, already seen text gains nothing; 0: Thorough).
    trel : {'highlighted', 'thorough'} or mapping
        HiXEval's Trel: highlighted characters (Focused), rsize over every assessed
        element (Thorough), or topic -> Trel.
    hix_beta : float, default 1.0
        The beta of the F-beta ``hixF@k``.
    complete : bool, default False
        Count every topic/query of the assessments; one without results scores 0.

    Returns
    -------
    dict of str to dict of str to float
        ``{measure name: {topic: value}}`` (topics that count for the measure).

    Raises
    ------
    ValueError, TypeError
        Bad inputs or options.
    """
    ctx = EvalContext(qrels, run, alpha=1.0, hix_alpha=alpha, quantisation="auto",
                   ideal_overlap="ancestor", normalise=False, complete=complete, use_elements=False)
    names = [f"hix{x}@{k}" for k in cutoffs for x in "PRF"]
    return compute_focused(ctx, names, trel=trel, beta=hix_beta)


def interpolated_precision(qrels: XmlQrels, run: XmlRun, *, points: int = 100, bucketing: str = "exact",
                           run_overlap: str = "novel", complete: bool = False) -> Dict[str, Dict[str, float]]:
    """INEX 2007+ Focused: ``iP[x]`` for x = 0, 1/points, ..., 1 and ``AiP``.

    P[r] = highlighted characters retrieved by rank r / characters retrieved
    by rank r; R[r] = highlighted characters retrieved / Trel; iP[x] = max P[r]
    with R[r] >= x; AiP = mean of iP over the points + 1 recall levels.
    ``run_overlap``: ``"novel"`` (default) counts text retrieved twice once
    (only the part not seen at earlier ranks counts, in both numerator and
    denominator); ``"count"`` counts every span fully (relevant text still
    once).  ``bucketing``: ``"exact"`` (R >= x tested exactly in integers) or
    ``"inex_eval"`` (level floor(points * R) in floating point, as the official
    tool).  Topics without highlighted text are left out.

    Parameters
    ----------
    qrels : XmlQrels
        The assessments.
    run : XmlRun
        The run, in rank order.
    points : int
        Number of recall intervals of the interpolated grid (0, 1/points, ..., 1).
    bucketing : {'exact', 'inex_eval'}, default 'exact'
        How recall levels are bucketed.
    run_overlap : {'novel', 'count'}, default 'novel'
        Whether text retrieved again counts again.
    complete : bool, default False
        Count every topic/query of the assessments; one without results scores 0.

    Returns
    -------
    dict of str to dict of str to float
        ``{measure name: {topic: value}}`` (topics that count for the measure).

    Raises
    ------
    ValueError, TypeError
        Bad inputs or options.
    """
    ctx = EvalContext(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation="auto", ideal_overlap="ancestor",
                   normalise=False, complete=complete, use_elements=False)
    names = [f"iP[{level_name(p, points)}]" for p in range(points + 1)] + ["AiP"]
    return compute_focused(ctx, names, points=points, bucketing=bucketing, run_overlap=run_overlap)


def compute_focused(ctx: EvalContext, names: Sequence[str], *, maep_denominator: str = "ideal", points: int = 100,
             bucketing: str = "exact", run_overlap: str = "novel", trel: Union[str, Mapping[str, float]] = "highlighted",
             beta: float = 1.0, extra: Optional[Dict[str, Any]] = None) -> Dict[str, Dict[str, float]]:
    al = ctx.al
    ntop = len(al.topics)
    fam = {n: measure_family(n) for n in names}
    res: Dict[str, Dict[str, float]] = {}
    if not isinstance(points, int) or isinstance(points, bool) or points < 1:
        raise ValueError(f"points must be a positive integer, got {points!r}")
    if maep_denominator not in ("ideal", "gain_ranks"):
        raise ValueError(f"maep_denominator must be 'ideal' or 'gain_ranks', got {maep_denominator!r}")
    if bucketing not in ("exact", "inex_eval"):
        raise ValueError(f"bucketing must be 'exact' or 'inex_eval', got {bucketing!r}")
    if run_overlap not in ("novel", "count"):
        raise ValueError(f"run_overlap must be 'novel' or 'count', got {run_overlap!r}")
    has_ideal = ctx.n_ideal > 0
    has_trel = ctx.trel > 0

    def emit(name: str, values: np.ndarray, mask: np.ndarray) -> None:
        res[name] = {al.topics[t]: float(values[t]) for t in range(ntop) if mask[t]}

    # XCG family
    xcg_names = [n for n in names if fam[n] in ("xcg", "iep", "maep", "epgr")]
    if xcg_names:
        ks = sorted({int(match_name("xcg", n).group(2)) for n in names if fam[n] == "xcg"} |
                    {int(match_name("epgr", n).group(2)) for n in names if fam[n] == "epgr"} | {1})
        cut = np.asarray(ks, dtype=I64)
        o_xcg = np.zeros((ntop, len(ks)))
        o_nx = np.zeros((ntop, len(ks)))
        o_maep = np.zeros(ntop)
        o_iep = np.zeros((ntop, points + 1))
        _xml_xcg.xcg_measures((al.run_off, ctx.gain), ctx.count_rank, (ctx.ideal[0], ctx.ideal_sorted), cut, points,
                              0 if maep_denominator == "ideal" else 1, o_xcg, o_nx, o_maep, o_iep)
        for n in xcg_names:
            f = fam[n]
            if f == "xcg":
                m = match_name("xcg", n)
                c = ks.index(int(m.group(2)))
                emit(n, o_xcg[:, c] if m.group(1) == "XCG" else o_nx[:, c], has_ideal)
            elif f == "maep":
                emit(n, o_maep, has_ideal)
            elif f == "iep":
                emit(n, o_iep[:, point_index(match_name("iep", n).group(1), points, n)], has_ideal)
        ep_names = [n for n in xcg_names if fam[n] == "epgr"]
        if ep_names:
            eks = sorted({int(match_name("epgr", n).group(2)) for n in ep_names})
            o_ep = np.zeros((ntop, len(eks)))
            o_gr = np.zeros((ntop, len(eks)))
            _xml_xcg.epgr_at((al.run_off, ctx.gain), (ctx.ideal[0], ctx.ideal_sorted), np.asarray(eks, dtype=I64),
                             o_ep, o_gr)
            for n in ep_names:
                m = match_name("epgr", n)
                emit(n, (o_gr if m.group(1) == "gr" else o_ep)[:, eks.index(int(m.group(2)))], has_ideal)
    # HiXEval
    hix_names = [n for n in names if fam[n] == "hix"]
    if hix_names:
        ks = sorted({int(match_name("hix", n).group(2)) for n in hix_names})
        if isinstance(trel, str):
            if trel not in ("highlighted", "thorough"):
                raise ValueError(f"trel must be 'highlighted', 'thorough' or a mapping topic -> Trel, got {trel!r}")
            tr = _hix_trel(ctx, trel)
        elif isinstance(trel, Mapping):
            tr = np.asarray([float(trel.get(t, 0.0)) for t in al.topics], dtype=np.float64)
        else:
            raise TypeError("trel must be 'highlighted' or a mapping topic -> Trel")
        if not beta > 0:
            raise ValueError(f"beta must be positive, got {beta!r}")
        o_p = np.zeros((ntop, len(ks)))
        o_r = np.zeros((ntop, len(ks)))
        _xml_focused.hixeval_at(al.run_off, _hix_rval(ctx), ctx.ps.size, np.ascontiguousarray(tr),
                                np.asarray(ks, dtype=I64), o_p, o_r)
        b2 = beta * beta
        with np.errstate(invalid="ignore", divide="ignore"):
            o_f = np.where(o_p + o_r > 0, (1 + b2) * o_p * o_r / np.maximum(b2 * o_p + o_r, 1e-300), 0.0)
        for n in hix_names:
            m = match_name("hix", n)
            c = ks.index(int(m.group(2)))
            emit(n, {"P": o_p, "R": o_r, "F": o_f}[m.group(1)][:, c], tr > 0)
    # iP / AiP
    ip_names = [n for n in names if fam[n] in ("ip", "aip")]
    if ip_names:
        if run_overlap == "novel":
            rel = ctx.ps.novel_rel
            size = ctx.ps.size - ctx.ps.covered
        else:
            rel = ctx.ps.novel_rel
            size = ctx.ps.size
        o_ip = np.zeros((ntop, points + 1))
        _xml_focused.interpolated_precision(al.run_off, np.ascontiguousarray(rel), np.ascontiguousarray(size),
                                            ctx.trel, points, 0 if bucketing == "exact" else 1, o_ip)
        for n in ip_names:
            if fam[n] == "aip":
                emit(n, o_ip.mean(axis=1), has_trel)
            else:
                emit(n, o_ip[:, point_index(match_name("ip", n).group(1), points, n)], has_trel)
    return res


def _hix_rval(ctx: EvalContext) -> np.ndarray:
    """HiXEval rval per result.

    HiXEval's rule (rsize minus alpha times the rval of the earlier results
    inside e_i) is written for nested results; for results that cross (overlap
    without one containing the other) it counts the shared relevant text twice
    and R@k can exceed 1.  With alpha = 1 (Focused: overlap not rewarded) rval
    is the relevant text of e_i that no earlier result retrieved, which is the
    rule's value for nested results and counts each relevant character once
    for crossing ones, so R@k <= 1.  With alpha < 1 overlapping relevant text
    is rewarded again by definition (alpha = 0, Thorough: fully) and the rule is
    applied as written.  Element-only assessments keep the rule (their rsize is
    the assessed element's, not highlighted text)."""
    ps = ctx.ps
    if ctx.hix_alpha == 1.0 and ctx.qrels.has_passages:
        return np.ascontiguousarray(ps.novel_rel, dtype=np.float64)
    return ps.rval


def _hix_trel(ctx: EvalContext, kind: str) -> np.ndarray:
    """HiXEval Trel per aligned topic.  ``"highlighted"`` (Focused): highlighted
    characters of the topic (passage assessments), or with element-only
    assessments the rsize of the outermost assessed elements (their roots hold
    all highlighted text of a document).  ``"thorough"``: rsize summed over
    every assessed element (needs element assessments)."""
    q = ctx.qrels
    if kind == "highlighted" and q.has_passages:
        return ctx.trel.astype(np.float64)
    if not q.has_elements:
        raise ValueError("trel='thorough' needs element assessments (rsize of every relevant element)")
    rs = q.el_spe * (q.el_end - q.el_start)
    t_of = np.repeat(np.arange(len(q.topics)), np.diff(q.el_off))
    if kind == "highlighted":
        keep = np.ones(len(rs), dtype=bool)
        if len(rs) > 1:
            same = (t_of[1:] == t_of[:-1]) & (q.el_doc[1:] == q.el_doc[:-1])
            grp = np.concatenate([[0], np.cumsum(~same)]).astype(I64)
            big = int(q.el_end.max()) + 1
            cm = np.maximum.accumulate(grp * big + q.el_end) - grp * big
            keep[1:] = ~same | (q.el_start[1:] >= cm[:-1])
        rs = np.where(keep, rs, 0.0)
    per = np.bincount(t_of, weights=rs, minlength=len(q.topics)) if len(rs) else np.zeros(len(q.topics))
    return np.ascontiguousarray(per[ctx.al.qt], dtype=np.float64)
