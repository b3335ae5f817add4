"""Reference implementations of the XML families now computed by native kernels:
the per-topic Python loops irscore used before (inex_eval/Precall,
inex_eval_ng, gP/MAgP, GR/EPRUM, T2I, and XCG's ep@k/gr@k), kept verbatim so
the differential tests (tests/xml/test_xml_native.py) can check that the kernels
give the same numbers to the last bit.  Not part of the package."""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from irscore import _xml_xcg
from irscore.xml.align import Aligned
from irscore.xml.context import EvalContext
from irscore.xml.ideal import element_q, quantise
from irscore.xml.inex2008 import _FAMILIES, UNKNOWN_SIZE, UNKNOWN_START, _focused, _seq_mean, _warn
from irscore.xml.model import EMPTY_F, I64, Span, XmlQrels, XmlRun
from irscore.xml.names import match_name, measure_family, point_index
from xml_precall_reference import precall_reprec, tie_groups


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


def _precall_topic(q: np.ndarray, score: np.ndarray, total: float, points: int,
                   collection_size: Optional[float], ties: bool) -> np.ndarray:
    """Precall at recall k/points, k = 1..points (Raghavan's expected search length)."""
    out = np.zeros(points)
    if total <= 0:
        return out
    # tie groups: consecutive results with equal score (the run is in rank order)
    groups: List[Tuple[float, float]] = []
    n = len(q)
    i = 0
    while i < n:
        j = i + 1
        if ties:
            while j < n and score[j] == score[i]:
                j += 1
        r = float(q[i:j].sum())
        groups.append((r, float(j - i) - r))
        i = j
    retrieved_rel = sum(g[0] for g in groups)
    if collection_size is not None:
        rest_rel = max(total - retrieved_rel, 0.0)
        rest_n = float(collection_size) - n
        if rest_n < rest_rel - 1e-9:
            raise ValueError("collection_size is smaller than the retrieved plus unretrieved relevant units")
        groups.append((rest_rel, max(rest_n - rest_rel, 0.0)))
    for k in range(1, points + 1):
        xn = total * k / points
        before_rel = 0.0
        before_non = 0.0
        for r, nr in groups:
            if before_rel + r >= xn - 1e-9 and r > 0:
                s_need = max(xn - before_rel, 0.0)
                esl_non = before_non + s_need * nr / (r + 1.0)
                out[k - 1] = xn / (xn + esl_non)
                break
            before_rel += r
            before_non += nr
    return out


Navigation = Callable[[Span, Span], float]


def _precall_reprec_topic(q: np.ndarray, score: np.ndarray, total: float, points: int,
                          collection_size: Optional[float], ties: bool) -> np.ndarray:
    """Precall at k/points, k = 1..points, in RePrec's whole-unit reading; the
    distribution is the run's tie groups plus, with ``collection_size``, the
    unretrieved rest as the final group (as :func:`_precall_topic`)."""
    if total <= 0:
        return np.zeros(points)
    groups = tie_groups(q, score, ties)
    levels = [k / points for k in range(1, points + 1)]
    got = 0.0
    for r, _ in groups:
        got += r
    if collection_size is not None:
        rest_rel = max(total - got, 0.0)
        rest_n = float(collection_size) - len(q)
        if rest_n < rest_rel - 1e-9:
            raise ValueError("collection_size is smaller than the retrieved plus unretrieved relevant units")
        return precall_reprec(groups + [(rest_rel, max(rest_n - rest_rel, 0.0))], levels)
    if abs(total - got) <= 1e-9 * total:
        return precall_reprec(groups, levels)
    return precall_reprec(groups, levels, total)


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

    def nav(res: Span, x: Span) -> float:
        if res[0] != x[0]:
            return 0.0
        if res[1] == x[1] and res[2] == x[2]:
            return 1.0
        if x[1] <= res[1] and res[2] <= x[2]:
            return float(p_ancestor)
        if res[1] <= x[1] and x[2] <= res[2]:
            return float(p_descendant)
        return float(p_sibling)

    return nav

_EXTRA_OPTIONS = {"precall_points", "collection_size", "ties", "precall", "ric_beta", "bep_distance",
                  "navigation", "eprum_points", "tolerance"}


def _run_scores(ctx: EvalContext) -> np.ndarray:
    """The run's scores in aligned order (the evaluated topics' results)."""
    al = ctx.al
    rt = np.asarray([ctx.run.topic_index.get(t, -1) for t in al.topics], dtype=I64)
    parts = []
    for t, r in enumerate(rt):
        if r >= 0:
            parts.append(ctx.run.score[ctx.run.off[r]:ctx.run.off[r + 1]])
    return np.concatenate(parts) if parts else EMPTY_F


def _inex_eval_values(ctx: EvalContext, by_fam: Mapping[str, List[str]], options: Mapping[str, Any],
                      sls: List[slice]) -> Dict[str, Dict[str, float]]:
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
    sc = _run_scores(ctx)
    qall = element_q(ctx.qrels, ctx.quantisation)
    totals = np.asarray([qall[ctx.qrels.el_off[qt]:ctx.qrels.el_off[qt + 1]].sum() for qt in al.qt])
    pre = np.zeros((ntop, points))
    for t, sl in enumerate(sls):
        cs = cs_opt.get(al.topics[t]) if isinstance(cs_opt, Mapping) else cs_opt
        if reading == "reprec":
            pre[t] = _precall_reprec_topic(q[sl], sc[sl], float(totals[t]), points, cs, ties)
        else:
            pre[t] = _precall_topic(q[sl], sc[sl], float(totals[t]), points, cs, ties)
    mask = totals > 0
    for n in by_fam.get("precall", []):
        k = point_index(match_name("precall", n).group(1), points, n)
        if k == 0:
            raise ValueError(f"{n}: Precall is defined for recall levels above 0")
        res[n] = {al.topics[t]: float(pre[t, k - 1]) for t in range(ntop) if mask[t]}
    for n in by_fam.get("inex_eval", []):
        res[n] = {al.topics[t]: float(pre[t].mean()) for t in range(ntop) if mask[t]}
    return res


def _ng_values(ctx: EvalContext, by_fam: Mapping[str, List[str]], options: Mapping[str, Any],
               sls: List[slice]) -> Dict[str, Dict[str, float]]:
    """Inex_eval_ng precision/recall (with or without overlap)."""
    al = ctx.al
    res: Dict[str, Dict[str, float]] = {}
    if not ctx.qrels.has_elements:
        raise ValueError("inex_eval_ng needs element assessments (exhaustivity/specificity per element)")
    _, exh, spe = _retrieved_grades(ctx)
    size = ctx.ps.size.astype(np.float64)
    ov = np.where(size > 0, ctx.ps.covered / np.maximum(size, 1.0), 0.0)
    tot_exh = np.asarray([ctx.qrels.el_exh[ctx.qrels.el_off[qt]:ctx.qrels.el_off[qt + 1]].sum() for qt in al.qt])
    for n in by_fam["ng"]:
        m = match_name("ng", n)
        k = int(m.group(3))
        w = (1.0 - ov) if m.group(2) == "o" else np.ones_like(ov)
        vals = {}
        for t, sl in enumerate(sls):
            if tot_exh[t] <= 0:
                continue
            lo = sl.start
            hi = min(sl.stop, lo + k)
            if m.group(1) == "P":
                den = float((size[lo:hi] * w[lo:hi]).sum())
                vals[al.topics[t]] = float((spe[lo:hi] * size[lo:hi] * w[lo:hi]).sum()) / den if den > 0 else 0.0
            else:
                vals[al.topics[t]] = float((exh[lo:hi] * w[lo:hi]).sum()) / float(tot_exh[t])
        res[n] = vals
    return res


def _gp_values(ctx: EvalContext, by_fam: Mapping[str, List[str]], options: Mapping[str, Any],
               sls: List[slice]) -> Dict[str, Dict[str, float]]:
    """Generalized precision gP/MAgP (RiC, BiC)."""
    al = ctx.al
    res: Dict[str, Dict[str, float]] = {}
    beta = float(options.get("ric_beta", 0.25))
    nbep = options.get("bep_distance", 500)
    if not beta > 0:
        raise ValueError(f"beta must be positive, got {beta!r}")
    if isinstance(nbep, bool) or not isinstance(nbep, (int, np.integer)) or nbep <= 0:
        raise ValueError(f"bep_distance must be a positive integer, got {nbep!r}")
    novel = (ctx.ps.size - ctx.ps.covered).astype(np.float64)
    nrel = ctx.ps.novel_rel.astype(np.float64)
    hl_lens = ctx.al.hl
    for task in ("RiC", "BiC"):
        tn = [n for n in by_fam["gp"] if match_name("gp", n).group(2) == task]
        if not tn:
            continue
        per: Dict[str, Dict[str, float]] = {n: {} for n in tn}
        for t, sl in enumerate(sls):
            topic = al.topics[t]
            # relevant articles: highlighted characters per document
            h0, h1 = int(hl_lens[0][t]), int(hl_lens[0][t + 1])
            rel_chars: Dict[int, int] = {}
            for d, s, e in zip(hl_lens[1][h0:h1], hl_lens[2][h0:h1], hl_lens[3][h0:h1]):
                rel_chars[int(d)] = rel_chars.get(int(d), 0) + int(e - s)
            nrel_docs = len(rel_chars)
            if nrel_docs == 0:
                continue
            order: List[int] = []
            ret: Dict[int, float] = {}
            relret: Dict[int, float] = {}
            entry: Dict[int, int] = {}
            for i in range(sl.start, sl.stop):
                d = int(al.run_doc[i])
                if d not in ret:
                    order.append(d)
                    ret[d] = 0.0
                    relret[d] = 0.0
                    entry[d] = int(al.run_start[i])
                ret[d] += novel[i]
                relret[d] += nrel[i]
            scores_d: List[float] = []
            for d in order:
                if task == "RiC":
                    rc = rel_chars.get(d, 0)
                    if rc == 0 or ret[d] <= 0 or relret[d] <= 0:
                        scores_d.append(0.0)
                        continue
                    p = relret[d] / ret[d]
                    r = relret[d] / rc
                    b2 = beta * beta
                    scores_d.append((1 + b2) * p * r / (b2 * p + r))
                else:
                    docname = ctx.qrels.docs[d] if d < len(ctx.qrels.docs) else None
                    bep = ctx.qrels.bep.get((topic, docname)) if docname is not None else None
                    # best entry points exist only for relevant articles
                    if bep is None or d not in rel_chars:
                        scores_d.append(0.0)
                        continue
                    dist = abs(entry[d] - bep)
                    scores_d.append(float((nbep - dist) / nbep) if dist < nbep else 0.0)
            sc_arr = np.asarray(scores_d, dtype=np.float64)
            gp = np.cumsum(sc_arr) / np.arange(1, len(sc_arr) + 1) if len(sc_arr) else sc_arr
            isrel = np.asarray([d in rel_chars for d in order], dtype=bool)
            for n in tn:
                m = match_name("gp", n)
                if m.group(1) == "MAgP":
                    per[n][topic] = float(gp[isrel].sum()) / nrel_docs
                else:
                    if m.group(3) is None:
                        raise ValueError(f"{n}: gP needs a cutoff, e.g. gP_{task}@10")
                    k = int(m.group(3))
                    per[n][topic] = float(sc_arr[:k].sum()) / k
        res.update(per)
    return res


def _eprum_values(ctx: EvalContext, by_fam: Mapping[str, List[str]], options: Mapping[str, Any],
                  sls: List[slice]) -> Dict[str, Dict[str, float]]:
    """GR and EPRUM under a navigation model."""
    al = ctx.al
    res: Dict[str, Dict[str, float]] = {}
    nav = options.get("navigation") or default_navigation()
    if not callable(nav):
        raise TypeError("navigation must be a callable (result_span, ideal_span) -> probability")
    epts = int(options.get("eprum_points", 10))
    ideal = ctx.ideal
    docs = ctx.qrels.docs
    gr_names = by_fam.get("gr_model", [])
    ep_names = by_fam.get("eprum", [])
    for n in gr_names + ep_names:
        res[n] = {}
    for t, sl in enumerate(sls):
        i0, i1 = int(ideal[0][t]), int(ideal[0][t + 1])
        if i1 == i0:
            continue
        xs = [(docs[int(ideal[1][k])], int(ideal[2][k]), int(ideal[3][k])) for k in range(i0, i1)]
        g = ctx.ideal_gain[i0:i1].astype(np.float64)
        G = float(g.sum())
        if G <= 0:
            continue
        by_doc: Dict[str, List[int]] = {}
        for k, x in enumerate(xs):
            by_doc.setdefault(x[0], []).append(k)
        n_r = sl.stop - sl.start
        # F[j, x] = P(x seen by rank j+1)
        notseen = np.ones(len(xs))
        F = np.zeros((n_r, len(xs)))
        for j in range(n_r):
            i = sl.start + j
            dcode = int(al.run_doc[i])
            dname = docs[dcode] if dcode < len(docs) else None
            if dname is not None and dname in by_doc:
                res_span = (dname, int(al.run_start[i]), int(al.run_end[i]))
                for k in by_doc[dname]:
                    p = float(nav(res_span, xs[k]))
                    if not 0.0 <= p <= 1.0:
                        raise ValueError(f"navigation returned {p!r}, not a probability")
                    notseen[k] *= (1.0 - p)
            F[j] = 1.0 - notseen
        topic = al.topics[t]
        for n in gr_names:
            k = int(match_name("gr_model", n).group(1))
            row = F[min(k, n_r) - 1] if n_r else np.zeros(len(xs))
            res[n][topic] = float((row * g).sum() / G)
        if ep_names:
            gs = np.sort(g)[::-1]
            xci = np.cumsum(gs)
            for n in ep_names:
                lvl = point_index(match_name("eprum", n).group(1), epts, n) / epts
                if lvl <= 0:
                    raise ValueError(f"{n}: EPRUM is defined for recall levels above 0")
                need = lvl * G * (1 - 1e-12)
                mstar = int(np.searchsorted(xci, need, side="left")) + 1
                prev = 0.0
                acc = 0.0
                for j in range(n_r):
                    cdf = _prob_at_least(F[j], g, need)
                    acc += (cdf - prev) * mstar / (j + 1)
                    prev = cdf
                res[n][topic] = acc
    return res


def _t2i_values(ctx: EvalContext, by_fam: Mapping[str, List[str]], options: Mapping[str, Any],
                sls: List[slice]) -> Dict[str, Dict[str, float]]:
    """T2I precision/recall (tolerance to irrelevance)."""
    al = ctx.al
    res: Dict[str, Dict[str, float]] = {}
    tol = options.get("tolerance", 500)
    if isinstance(tol, bool) or not isinstance(tol, (int, np.integer)) or tol <= 0:
        raise ValueError(f"tolerance must be a positive integer, got {tol!r}")
    tn = by_fam["t2i"]
    for n in tn:
        res[n] = {}
    hl = ctx.al.hl
    for t, sl in enumerate(sls):
        h0, h1 = int(hl[0][t]), int(hl[0][t + 1])
        trel = int((hl[3][h0:h1] - hl[2][h0:h1]).sum())
        if trel <= 0:
            continue
        per_doc: Dict[int, List[Tuple[int, int]]] = {}
        for d, s, e in zip(hl[1][h0:h1], hl[2][h0:h1], hl[3][h0:h1]):
            per_doc.setdefault(int(d), []).append((int(s), int(e)))
        read: Dict[int, List[Tuple[int, int]]] = {}
        gains, efforts = [], []
        for i in range(sl.start, sl.stop):
            d = int(al.run_doc[i])
            s = int(al.run_start[i])
            dl = int(ctx.qrels.doclen[d]) if d < len(ctx.qrels.doclen) and ctx.qrels.doclen[d] >= 0 else int(al.run_end[i])
            stop = _t2i_stop(per_doc.get(d, []), s, dl, int(tol))
            new = _add_read(read.setdefault(d, []), s, stop, per_doc.get(d, []))
            gains.append(new)
            efforts.append(stop - s)
        cg = np.cumsum(gains)
        ce = np.cumsum(efforts)
        for n in tn:
            m = match_name("t2i", n)
            k = min(int(m.group(2)), len(cg))
            if k == 0:
                res[n][al.topics[t]] = 0.0
            elif m.group(1) == "P":
                res[n][al.topics[t]] = float(cg[k - 1] / ce[k - 1]) if ce[k - 1] > 0 else 0.0
            else:
                res[n][al.topics[t]] = float(cg[k - 1] / trel)
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
    key), one function per family (:data:`EXTRA_FAMILIES`)."""
    bad = set(options) - _EXTRA_OPTIONS
    if bad:
        raise TypeError(f"unexpected options {sorted(bad)!r}")
    sls = _topic_slices(ctx.al.run_off)
    res: Dict[str, Dict[str, float]] = {}
    by_fam: Dict[str, List[str]] = {}
    for n in names:
        by_fam.setdefault(fams[n], []).append(n)
    for keys, compute in EXTRA_FAMILIES:
        if any(k in by_fam for k in keys):
            res.update(compute(ctx, by_fam, options, sls))
    missing = [n for n in names if n not in res]
    if missing:
        raise ValueError(f"measures not computed: {missing}")
    return res


def _prob_at_least(p: np.ndarray, g: np.ndarray, need: float) -> float:
    """P(sum_x g_x B_x >= need) for independent Bernoulli(p_x): exact dynamic
    programming over the reachable sums (rounded to 1e-12)."""
    dist: Dict[float, float] = {0.0: 1.0}
    for px, gx in zip(p, g):
        if px <= 0.0 or gx <= 0.0:
            continue
        nd: Dict[float, float] = {}
        for v, pr in dist.items():
            nd[v] = nd.get(v, 0.0) + pr * (1.0 - px)
            w = round(v + gx, 12)
            nd[w] = nd.get(w, 0.0) + pr * px
        dist = nd
        if len(dist) > 2_000_000:
            raise ValueError("EPRUM: too many distinct gain sums for the exact computation")
    return float(sum(pr for v, pr in dist.items() if v >= need))


def _t2i_stop(hl: List[Tuple[int, int]], start: int, doclen: int, tol: int) -> int:
    """Position after the last character read from ``start``."""
    pos = start
    for s, e in sorted(hl):
        if e <= pos:
            continue
        gap = max(s - pos, 0)
        if gap >= tol:
            return min(pos + tol, doclen)
        pos = max(pos, e)
        if pos >= doclen:
            return doclen
    return min(pos + tol, doclen) if doclen > pos else max(doclen, start)


def _add_read(read: List[Tuple[int, int]], s: int, e: int, hl: List[Tuple[int, int]]) -> int:
    """Highlighted characters of [s, e) not read before; records [s, e) as read."""
    if e <= s:
        return 0
    new = 0
    for hs, he in hl:
        a, b = max(hs, s), min(he, e)
        if b <= a:
            continue
        covered = 0
        for rs, re_ in read:
            x, y = max(rs, a), min(re_, b)
            if y > x:
                covered += y - x
        new += (b - a) - covered
    # merge [s, e) into the read intervals (kept disjoint)
    merged = []
    ns, ne = s, e
    for rs, re_ in read:
        if re_ < ns or rs > ne:
            merged.append((rs, re_))
        else:
            ns, ne = min(ns, rs), max(ne, re_)
    merged.append((ns, ne))
    merged.sort()
    read[:] = merged
    return new


def epgr_values(ctx: EvalContext, names: Sequence[str]) -> Dict[str, Dict[str, float]]:
    """ep@k and gr@k per topic with ideal elements (the former loop of
    irscore.xml.focused.compute_focused)."""
    al = ctx.al
    ntop = len(al.topics)
    res: Dict[str, Dict[str, float]] = {}
    has_ideal = ctx.n_ideal > 0
    for n in names:
        m = match_name("epgr", n)
        k = int(m.group(2))
        vals = np.zeros(ntop)
        for t in range(ntop):
            lo, hi = al.run_off[t], al.run_off[t + 1]
            g = ctx.gain[lo:hi]
            isl = ctx.ideal_sorted[ctx.ideal[0][t]:ctx.ideal[0][t + 1]]
            ep = np.zeros(len(g))
            gr = np.zeros(len(g))
            if len(g):
                _xml_xcg.ep_gr_curve(np.ascontiguousarray(g), np.ascontiguousarray(isl), ep, gr)
            r = min(k, len(g))
            if r == 0:
                continue
            if m.group(1) == "gr":
                vals[t] = gr[r - 1]
            else:
                vals[t] = ep[r - 1] * r / k if k > len(g) else ep[r - 1]
        res[n] = {al.topics[t]: float(vals[t]) for t in range(ntop) if has_ideal[t]}
    return res


# --- compat="inex2008": gP/MAgP as inex_eval v1.0 (the former irscore.xml.inex2008 loops) ---


def _inex2008_aligned_unknown(run: XmlRun, al: Aligned) -> np.ndarray:
    """``run.unknown_offset`` in the aligned order."""
    out = np.zeros(len(al.run_doc), dtype=bool)
    if run.unknown_offset is None:
        return out
    if len(run.unknown_offset) != len(run.doc):
        raise ValueError(f"run.unknown_offset has {len(run.unknown_offset)} entries for {len(run.doc)} results")
    for k, topic in enumerate(al.topics):
        r = run.topic_index.get(topic)
        if r is not None:
            out[al.run_off[k]:al.run_off[k + 1]] = run.unknown_offset[run.off[r]:run.off[r + 1]]
    return out


def _inex2008_relevance(qrels: XmlQrels, al: Aligned) -> List[Dict[int, int]]:
    """Per aligned topic: qrels doc code -> relevant size (relchars > 0 only).
    Without a relchars column (qrels built from passages) the highlighted
    characters of the document."""
    out: List[Dict[int, int]] = [{} for _ in al.topics]
    pos = {t: k for k, t in enumerate(al.topics)}
    if qrels.relchars:
        for (topic, doc), rc in qrels.relchars.items():
            k = pos.get(topic)
            if k is not None and rc > 0:
                out[k][qrels.doc_index[doc]] = rc
        return out
    hl = al.hl
    for k in range(len(al.topics)):
        for i in range(int(hl[0][k]), int(hl[0][k + 1])):
            d = int(hl[1][i])
            out[k][d] = out[k].get(d, 0) + int(hl[3][i] - hl[2][i])
    return out


def _inex2008_context_scores(task: str, ctx: EvalContext, rels: List[Dict[int, int]], rel: np.ndarray,
                    size: np.ndarray, unknown: np.ndarray, beta: float, nbep: int) -> List[Tuple[List[float], List[bool]]]:
    """Per aligned topic: article scores in rank order and whether each
    article is relevant (RiC: F-beta; BiC: best-entry-point distance)."""
    al = ctx.al
    out = []
    warned = set()
    b2 = beta * beta
    for k, topic in enumerate(al.topics):
        lo, hi = int(al.run_off[k]), int(al.run_off[k + 1])
        order: List[int] = []
        ret: Dict[int, int] = {}
        relret: Dict[int, int] = {}
        entry: Dict[int, int] = {}
        prev = -1
        for i in range(lo, hi):
            d = int(al.run_doc[i])
            if d not in ret:
                order.append(d)
                ret[d], relret[d] = 0, 0
                entry[d] = UNKNOWN_START if unknown[i] else int(al.run_start[i])
            elif d != prev and "interleaved" not in warned:
                warned.add("interleaved")
                _warn("interleaved", f"topic {topic}")
            elif d == prev and task == "BiC" and "multiple" not in warned:
                warned.add("multiple")
                _warn("multiple", f"topic {topic}")
            prev = d
            ret[d] += int(size[i])
            relret[d] += int(rel[i])
        scores: List[float] = []
        for d in order:
            rc = rels[k].get(d, 0)
            sc = 0.0
            if task == "RiC":
                if relret[d] > 0:
                    p = relret[d] / ret[d]
                    r = relret[d] / rc
                    sc = ((1 + b2) * p * r) / ((b2 * p) + r)
            else:
                docname = ctx.qrels.docs[d] if d < len(ctx.qrels.docs) else None
                bep = ctx.qrels.bep.get((topic, docname)) if docname is not None and rc > 0 else None
                if bep is not None and bep > -1:
                    dist = abs(bep - entry[d])
                    if not dist > nbep:
                        sc = (float(nbep) - dist) / nbep
            scores.append(sc)
        out.append((scores, [rels[k].get(d, 0) > 0 for d in order]))
    return out


def inex2008_evaluate(qrels: XmlQrels, run: XmlRun, names: Sequence[str], *, per_query: bool = False,
             complete: bool = False, beta_ric: float = 0.25, bep_distance: int = 500,
             points: int = 100) -> Dict[str, Any]:
    """iP[x], AiP/MAiP, gP_RiC@k, MAgP_RiC, gP_BiC@k, MAgP_BiC as inex_eval
    v1.0 computes them (per topic with ``per_query``, else the tool's means)."""
    fams = {n: measure_family(n) for n in names}
    bad = [n for n in names if fams[n] not in _FAMILIES]
    if bad:
        raise ValueError(f"compat='inex2008' computes iP[x], MAiP, gP_RiC@k, MAgP_RiC, gP_BiC@k and MAgP_BiC "
                         f"(inex_eval v1.0's measures), not {bad}")
    if points != 100:
        raise ValueError("compat='inex2008' uses inex_eval v1.0's 101 recall levels (points=100)")
    if not beta_ric > 0:
        raise ValueError(f"beta must be positive, got {beta_ric!r}")
    if isinstance(bep_distance, bool) or not isinstance(bep_distance, (int, np.integer)) or bep_distance <= 0:
        raise ValueError(f"bep_distance must be a positive integer, got {bep_distance!r}")
    ctx = EvalContext(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation="auto", ideal_overlap="ancestor",
                      normalise=False, complete=complete, use_elements=False, allow_unknown=True)
    al, ps = ctx.al, ctx.ps
    unknown = _inex2008_aligned_unknown(run, al)
    rels = _inex2008_relevance(qrels, al)
    # retrieved sizes count fully (X/-1: 18 characters); relevant text counts once
    size = np.where(unknown, UNKNOWN_SIZE, ps.size).astype(I64)
    rel = np.where(unknown, 0, ps.novel_rel).astype(I64)
    if np.any(ps.covered > 0):
        i = int(np.flatnonzero(ps.covered > 0)[0])
        k = int(np.searchsorted(al.run_off, i, side="right")) - 1
        _warn("overlap", f"topic {al.topics[k]}")
    per: Dict[str, Dict[str, float]] = {}
    topics = al.topics
    if any(fams[n] in ("ip", "aip") for n in names):
        trel = np.asarray([sum(r.values()) for r in rels], dtype=I64)
        ip = _focused(rel, size, al.run_off, trel)
        aip = np.cumsum(ip, axis=1)[:, -1] / 101 if len(topics) else np.zeros(0)
        for n in names:
            if fams[n] == "aip":
                per[n] = {t: float(aip[k]) for k, t in enumerate(topics)}
            elif fams[n] == "ip":
                c = point_index(match_name("ip", n).group(1), 100, n)
                per[n] = {t: float(ip[k, c]) for k, t in enumerate(topics)}
    for task in ("RiC", "BiC"):
        tn = [n for n in names if fams[n] == "gp" and match_name("gp", n).group(2) == task]
        if not tn:
            continue
        scored = _inex2008_context_scores(task, ctx, rels, rel, size, unknown, beta_ric, int(bep_distance))
        gps: List[List[float]] = []
        agp: List[float] = []
        for k, (scores, isrel) in enumerate(scored):
            s, sum_gp, g = 0.0, 0.0, []
            for r, (sc, rv) in enumerate(zip(scores, isrel), 1):
                s += sc
                g.append(s / r)
                if rv:
                    sum_gp += s / r
            gps.append(g)
            nrel = len(rels[k])
            agp.append(sum_gp / nrel if nrel else math.nan)
        for n in tn:
            m = match_name("gp", n)
            if m.group(1) == "MAgP":
                per[n] = {t: agp[k] for k, t in enumerate(topics)}
            else:
                if m.group(3) is None:
                    raise ValueError(f"{n}: gP needs a cutoff, e.g. gP_{task}@10")
                c = int(m.group(3))
                per[n] = {t: (g[min(c, len(g)) - 1] if g else 0.0) for t, g in zip(topics, gps)}
    if per_query:
        return {n: per[n] for n in names}
    order = sorted(topics)  # the tool sums topics in string order
    return {n: _seq_mean([per[n][t] for t in order]) for n in names}
