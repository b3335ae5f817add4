"""Per-topic values of the INEX families (inex_eval/Precall, inex_eval_ng, gP/MAgP,
GR/EPRUM, T2I): one function per family behind the dispatch table
`EXTRA_FAMILIES`, and the navigation model of GR/EPRUM."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Sequence, Tuple

import numpy as np

from irscore import _xml_eprum, _xml_gp, _xml_inex
from irscore.xml.context import EvalContext
from irscore.xml.ideal import quantise
from irscore.xml.model import EMPTY_F, EMPTY_I, I64, Span
from irscore.xml.names import match_name, point_index


def _topic_slices(off: np.ndarray) -> List[slice]:
    return [slice(int(off[t]), int(off[t + 1])) for t in range(len(off) - 1)]


def _retrieved_grades(ctx: EvalContext) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, exh, spe) of every retrieved span: the assessed element it equals
    (element assessments; unassessed spans are 0) or, for passage
    assessments, spe = highlighted fraction and exh = 1 if any highlighted."""
    ps = ctx.ps
    if ctx.qrels.has_elements:
        m = ps.match
        ok = m >= 0
        rows = ctx.al.el_rows[np.maximum(m, 0)] if len(ctx.al.el_rows) else np.zeros(len(m), I64)
        exh = np.where(ok, ctx.qrels.el_exh[rows] if len(ctx.qrels.el_exh) else 0.0, 0.0)
        spe = np.where(ok, ctx.qrels.el_spe[rows] if len(ctx.qrels.el_spe) else 0.0, 0.0)
        q = np.where(ok, ctx.el_q_aligned[np.maximum(m, 0)] if len(ctx.el_q_aligned) else 0.0, 0.0)
        return q, exh, spe
    size = ps.size.astype(np.float64)
    spe = np.where(size > 0, ps.rsize / np.maximum(size, 1.0), 0.0)
    exh = (ps.rsize > 0).astype(np.float64)
    return quantise(exh, spe, ctx.quantisation), exh, spe


Navigation = Callable[[Span, Span], float]


class _DefaultNavigation:
    """The default navigation model ([`default_navigation`][irscore.xml.inex_values.default_navigation]); the kernel
    computes it natively from its three probabilities."""

    def __init__(self, p_ancestor: float, p_descendant: float, p_sibling: float) -> None:
        self.p_ancestor = float(p_ancestor)
        self.p_descendant = float(p_descendant)
        self.p_sibling = float(p_sibling)

    def __call__(self, res: Span, x: Span) -> float:
        if res[0] != x[0]:
            return 0.0
        if res[1] == x[1] and res[2] == x[2]:
            return 1.0
        if x[1] <= res[1] and res[2] <= x[2]:
            return self.p_ancestor
        if res[1] <= x[1] and x[2] <= res[2]:
            return self.p_descendant
        return self.p_sibling


def default_navigation(p_ancestor: float = 0.0, p_descendant: float = 0.0, p_sibling: float = 0.0) -> Navigation:
    """The default user model P(j ~> x) for GR/EPRUM, by the relation of the
    ideal element x to the result at rank j: 1 when x is the result itself;
    ``p_ancestor`` when x is an ancestor of the result (contains it: the user
    navigates up); ``p_descendant`` when x lies inside the result (the user
    navigates down); ``p_sibling`` for any other x of the same document; 0
    across documents.

    Parameters
    ----------
    p_ancestor : float
        P(result ~> an ideal element containing it).
    p_descendant : float
        P(result ~> an ideal element inside it).
    p_sibling : float
        P(result ~> another ideal element of its document).

    Returns
    -------
    callable
        ``nav(result_span, ideal_span) -> probability``.

    Raises
    ------
    ValueError
        A probability outside [0, 1].
    """
    for v, nm in ((p_ancestor, "p_ancestor"), (p_descendant, "p_descendant"), (p_sibling, "p_sibling")):
        if not 0.0 <= float(v) <= 1.0:
            raise ValueError(f"{nm} must lie in [0, 1], got {v!r}")

    return _DefaultNavigation(p_ancestor, p_descendant, p_sibling)


_EXTRA_OPTIONS = {"precall_points", "collection_size", "ties", "precall", "ric_beta", "bep_distance",
                  "navigation", "eprum_points", "tolerance"}


def _cutoff_list(names: Sequence[str], fam: str, group: int) -> List[int]:
    return sorted({int(match_name(fam, n).group(group)) for n in names})


def _valid_dict(topics: Sequence[str], values: np.ndarray, mask: np.ndarray) -> Dict[str, float]:
    return {topics[t]: float(values[t]) for t in np.flatnonzero(mask).tolist()}


def _inex_eval_values(ctx: EvalContext, by_fam: Mapping[str, List[str]], options: Mapping[str, Any]
                      ) -> Dict[str, Dict[str, float]]:
    """Inex_eval and Precall[x] (element runs)."""
    al = ctx.al
    ntop = len(al.topics)
    res: Dict[str, Dict[str, float]] = {}
    if not ctx.qrels.has_elements:
        raise ValueError("inex_eval needs element assessments (exhaustivity/specificity per element)")
    points = int(options.get("precall_points", 100))
    if points < 1:
        raise ValueError("precall_points must be a positive integer")
    cs_opt = options.get("collection_size")
    ties = bool(options.get("ties", True))
    reading = options.get("precall", "published")
    if reading not in ("published", "reprec"):
        raise ValueError(f"precall must be 'published' or 'reprec', got {reading!r}")
    q, _, _ = _retrieved_grades(ctx)
    q = np.ascontiguousarray(q, dtype=np.float64)
    sc = np.ascontiguousarray(ctx.run.score[al.run_rows], dtype=np.float64) if len(al.run_rows) else EMPTY_F
    totals = np.empty(ntop)
    _xml_inex.segment_sums(al.el[0], np.ascontiguousarray(ctx.el_q_aligned, dtype=np.float64), totals)
    pre = np.zeros((ntop, points))
    mean = np.zeros(ntop)
    if isinstance(cs_opt, Mapping):
        cs_arr = np.asarray([float(cs_opt[t]) if cs_opt.get(t) is not None else np.nan for t in al.topics])
    else:
        cs_arr = np.full(ntop, np.nan if cs_opt is None else float(cs_opt))
    if reading == "reprec":
        _xml_inex.precall_reprec_at(al.run_off, q, sc, totals, cs_arr, int(ties), points, pre)
        _xml_inex.row_means(pre, mean)
    else:
        _xml_inex.precall_published(al.run_off, q, sc, totals, cs_arr, int(ties), points, pre, mean)
    mask = totals > 0
    for n in by_fam.get("precall", []):
        k = point_index(match_name("precall", n).group(1), points, n)
        if k == 0:
            raise ValueError(f"{n}: Precall is defined for recall levels above 0")
        res[n] = _valid_dict(al.topics, pre[:, k - 1], mask)
    for n in by_fam.get("inex_eval", []):
        res[n] = _valid_dict(al.topics, mean, mask)
    return res


def _ng_values(ctx: EvalContext, by_fam: Mapping[str, List[str]], options: Mapping[str, Any]
                  ) -> Dict[str, Dict[str, float]]:
    """Inex_eval_ng precision/recall (with or without overlap)."""
    al = ctx.al
    ntop = len(al.topics)
    res: Dict[str, Dict[str, float]] = {}
    if not ctx.qrels.has_elements:
        raise ValueError("inex_eval_ng needs element assessments (exhaustivity/specificity per element)")
    _, exh, spe = _retrieved_grades(ctx)
    size = ctx.ps.size.astype(np.float64)
    ov = np.where(size > 0, ctx.ps.covered / np.maximum(size, 1.0), 0.0)
    tot_exh = np.empty(ntop)
    el_exh = ctx.qrels.el_exh[al.el_rows] if len(al.el_rows) else EMPTY_F
    _xml_inex.segment_sums(al.el[0], np.ascontiguousarray(el_exh, dtype=np.float64), tot_exh)
    names = by_fam["ng"]
    ks = _cutoff_list(names, "ng", 3)
    cut = np.asarray(ks, dtype=I64)
    out = {}
    for v in {match_name("ng", n).group(2) for n in names}:
        w = (1.0 - ov) if v == "o" else np.ones_like(ov)
        o_p = np.zeros((ntop, len(ks)))
        o_r = np.zeros((ntop, len(ks)))
        _xml_inex.ng_at(al.run_off, np.ascontiguousarray(exh, dtype=np.float64), np.ascontiguousarray(spe, dtype=np.float64),
                   np.ascontiguousarray(size), np.ascontiguousarray(w, dtype=np.float64), tot_exh, cut, o_p, o_r)
        out[v] = (o_p, o_r)
    mask = tot_exh > 0
    for n in names:
        m = match_name("ng", n)
        o_p, o_r = out[m.group(2)]
        res[n] = _valid_dict(al.topics, (o_p if m.group(1) == "P" else o_r)[:, ks.index(int(m.group(3)))], mask)
    return res


def _bep_arrays(ctx: EvalContext) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best entry points as CSR arrays over the aligned topics: (off, doc code, offset)."""
    al = ctx.al
    tix = {t: k for k, t in enumerate(al.topics)}
    didx = ctx.qrels.doc_index
    rows = [(tix[t], didx[d], int(v)) for (t, d), v in ctx.qrels.bep.items() if t in tix and d in didx]
    rows.sort(key=lambda r: r[0])
    a = np.asarray(rows, dtype=I64).reshape(-1, 3)
    off = np.zeros(len(al.topics) + 1, dtype=I64)
    np.cumsum(np.bincount(a[:, 0], minlength=len(al.topics)), out=off[1:])
    return off, np.ascontiguousarray(a[:, 1]), np.ascontiguousarray(a[:, 2])


def _gp_values(ctx: EvalContext, by_fam: Mapping[str, List[str]], options: Mapping[str, Any]
                  ) -> Dict[str, Dict[str, float]]:
    """Generalized precision gP/MAgP (RiC, BiC)."""
    al = ctx.al
    ntop = len(al.topics)
    res: Dict[str, Dict[str, float]] = {}
    beta = float(options.get("ric_beta", 0.25))
    nbep = options.get("bep_distance", 500)
    if not beta > 0:
        raise ValueError(f"beta must be positive, got {beta!r}")
    if isinstance(nbep, bool) or not isinstance(nbep, (int, np.integer)) or nbep <= 0:
        raise ValueError(f"bep_distance must be a positive integer, got {nbep!r}")
    novel = np.ascontiguousarray((ctx.ps.size - ctx.ps.covered).astype(np.float64))
    nrel = np.ascontiguousarray(ctx.ps.novel_rel.astype(np.float64))
    hl = al.hl
    z = np.zeros(ntop + 1, dtype=I64)
    for task in ("RiC", "BiC"):
        tn = [n for n in by_fam["gp"] if match_name("gp", n).group(2) == task]
        if not tn:
            continue
        for n in tn:
            m = match_name("gp", n)
            if m.group(1) != "MAgP" and m.group(3) is None:
                raise ValueError(f"{n}: gP needs a cutoff, e.g. gP_{task}@10")
        ks = sorted({int(match_name("gp", n).group(3)) for n in tn if match_name("gp", n).group(1) != "MAgP"})
        bep = _bep_arrays(ctx) if task == "BiC" else (z, EMPTY_I, EMPTY_I)
        o_gp = np.zeros((ntop, len(ks)))
        o_magp = np.zeros(ntop)
        valid = np.zeros(ntop, dtype=I64)
        _xml_gp.gp_measures((al.run_off, al.run_doc, al.run_start, novel, nrel), (hl[0], hl[1], hl[2], hl[3]),
                            (bep[0], bep[1], bep[2]),
                            {"ndocs": al.ndocs, "task": 0 if task == "RiC" else 1, "beta": beta,
                             "bep_distance": int(nbep)},
                            np.asarray(ks, dtype=I64), o_gp, o_magp, valid)
        mask = valid > 0
        for n in tn:
            m = match_name("gp", n)
            vals = o_magp if m.group(1) == "MAgP" else o_gp[:, ks.index(int(m.group(3)))]
            res[n] = _valid_dict(al.topics, vals, mask)
    return res


def _navigation_pairs(ctx: EvalContext, nav: Navigation) -> Tuple[np.ndarray, np.ndarray]:
    """A caller's navigation model: its probability for every (result, ideal
    element of the result's document) pair, per result in the ideal elements'
    order (CSR over the aligned results)."""
    al = ctx.al
    ideal = ctx.ideal
    docs = ctx.qrels.docs
    counts = np.zeros(len(al.run_doc), dtype=I64)
    probs: List[float] = []
    for t, sl in enumerate(_topic_slices(al.run_off)):
        i0, i1 = int(ideal[0][t]), int(ideal[0][t + 1])
        if i1 == i0:
            continue
        by_doc: Dict[int, List[Tuple[str, int, int]]] = {}
        for k in range(i0, i1):
            d = int(ideal[1][k])
            by_doc.setdefault(d, []).append((docs[d], int(ideal[2][k]), int(ideal[3][k])))
        for i in range(sl.start, sl.stop):
            xs = by_doc.get(int(al.run_doc[i]))
            if not xs:
                continue
            res_span = (xs[0][0], int(al.run_start[i]), int(al.run_end[i]))
            for x in xs:
                p = float(nav(res_span, x))
                if not 0.0 <= p <= 1.0:
                    raise ValueError(f"navigation returned {p!r}, not a probability")
                probs.append(p)
            counts[i] = len(xs)
    off = np.zeros(len(al.run_doc) + 1, dtype=I64)
    np.cumsum(counts, out=off[1:])
    return off, np.asarray(probs, dtype=np.float64)


def _eprum_values(ctx: EvalContext, by_fam: Mapping[str, List[str]], options: Mapping[str, Any]
                  ) -> Dict[str, Dict[str, float]]:
    """GR and EPRUM under a navigation model."""
    al = ctx.al
    ntop = len(al.topics)
    res: Dict[str, Dict[str, float]] = {}
    nav = options.get("navigation") or default_navigation()
    if not callable(nav):
        raise TypeError("navigation must be a callable (result_span, ideal_span) -> probability")
    epts = int(options.get("eprum_points", 10))
    gr_names = by_fam.get("gr_model", [])
    ep_names = by_fam.get("eprum", [])
    ks = sorted({int(match_name("gr_model", n).group(1)) for n in gr_names})
    lv = []
    for n in ep_names:
        lvl = point_index(match_name("eprum", n).group(1), epts, n) / epts
        if lvl <= 0:
            raise ValueError(f"{n}: EPRUM is defined for recall levels above 0")
        lv.append(lvl)
    if isinstance(nav, _DefaultNavigation):
        probs = (nav.p_ancestor, nav.p_descendant, nav.p_sibling)
        pair_off, pair_p = EMPTY_I, EMPTY_F
    else:
        probs = (0.0, 0.0, 0.0)
        pair_off, pair_p = _navigation_pairs(ctx, nav)
    ideal = ctx.ideal
    o_gr = np.zeros((ntop, len(ks)))
    o_ep = np.zeros((ntop, len(lv)))
    valid = np.zeros(ntop, dtype=I64)
    _xml_eprum.eprum_measures((al.run_off, al.run_doc, al.run_start, al.run_end),
                              (ideal[0], ideal[1], ideal[2], ideal[3]),
                              np.ascontiguousarray(ctx.ideal_gain, dtype=np.float64),
                              {"ndocs": len(ctx.qrels.docs), "p_ancestor": probs[0], "p_descendant": probs[1],
                               "p_sibling": probs[2]},
                              (pair_off, pair_p),
                              np.asarray(ks, dtype=I64), np.asarray(lv, dtype=np.float64), o_gr, o_ep, valid)
    mask = valid > 0
    for n in gr_names:
        res[n] = _valid_dict(al.topics, o_gr[:, ks.index(int(match_name("gr_model", n).group(1)))], mask)
    for c, n in enumerate(ep_names):
        res[n] = _valid_dict(al.topics, o_ep[:, c], mask)
    return res


def _t2i_values(ctx: EvalContext, by_fam: Mapping[str, List[str]], options: Mapping[str, Any]
                  ) -> Dict[str, Dict[str, float]]:
    """T2I precision/recall (tolerance to irrelevance)."""
    al = ctx.al
    ntop = len(al.topics)
    res: Dict[str, Dict[str, float]] = {}
    tol = options.get("tolerance", 500)
    if isinstance(tol, bool) or not isinstance(tol, (int, np.integer)) or tol <= 0:
        raise ValueError(f"tolerance must be a positive integer, got {tol!r}")
    tn = by_fam["t2i"]
    ks = _cutoff_list(tn, "t2i", 2)
    o_p = np.zeros((ntop, len(ks)))
    o_r = np.zeros((ntop, len(ks)))
    valid = np.zeros(ntop, dtype=I64)
    hl = al.hl
    _xml_inex.t2i_at((al.run_off, al.run_doc, al.run_start, al.run_end), (hl[0], hl[1], hl[2], hl[3]),
                     np.ascontiguousarray(ctx.qrels.doclen, dtype=I64), al.ndocs, int(tol), np.asarray(ks, dtype=I64),
                     o_p, o_r, valid)
    mask = valid > 0
    for n in tn:
        m = match_name("t2i", n)
        res[n] = _valid_dict(al.topics, (o_p if m.group(1) == "P" else o_r)[:, ks.index(int(m.group(2)))], mask)
    return res


# family keys of :func:`irscore.xml.names.measure_family` -> the function computing them
EXTRA_FAMILIES: Tuple[Tuple[Tuple[str, ...], Callable[..., Dict[str, Dict[str, float]]]], ...] = (
    (("precall", "inex_eval"), _inex_eval_values),
    (("ng",), _ng_values),
    (("gp",), _gp_values),
    (("gr_model", "eprum"), _eprum_values),
    (("t2i",), _t2i_values),
)


def compute_extra(ctx: EvalContext, names: Sequence[str], fams: Mapping[str, str],
                  options: Mapping[str, Any]) -> Dict[str, Dict[str, float]]:
    """Values of the INEX-family measures ``names`` (``fams``: name -> family
    key), one function per family (`EXTRA_FAMILIES`)."""
    bad = set(options) - _EXTRA_OPTIONS
    if bad:
        raise TypeError(f"unexpected options {sorted(bad)!r}")
    res: Dict[str, Dict[str, float]] = {}
    by_fam: Dict[str, List[str]] = {}
    for n in names:
        by_fam.setdefault(fams[n], []).append(n)
    for keys, compute in EXTRA_FAMILIES:
        if any(k in by_fam for k in keys):
            res.update(compute(ctx, by_fam, options))
    missing = [n for n in names if n not in res]
    if missing:
        raise ValueError(f"measures not computed: {missing}")
    return res
