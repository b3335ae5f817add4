"""The evaluation context: everything one evaluation needs, computed once (alignment, ideal
sets, gains)."""
from __future__ import annotations

from typing import Tuple

import numpy as np

from irscore import _xml_xcg
from irscore.xml.align import Aligned, Pass, align_run, gather, run_pass
from irscore.xml.ideal import element_q, ideal_arrays, quantise
from irscore.xml.model import EMPTY_F, EMPTY_I, I64, Quantisation, XmlQrels, XmlRun

# ---------------------------------------------------------------------------
# per-family functions
# ---------------------------------------------------------------------------


def _validate_alpha(alpha: float, name: str = "alpha") -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)):
        raise TypeError(f"{name} must be a number in [0, 1], got {alpha!r}")
    a = float(alpha)
    if not 0.0 <= a <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {alpha!r}")
    return a


def _xcg_gains(qrels: XmlQrels, al: Aligned, ps: Pass, alpha: float, quantisation: Quantisation,
               el_q: np.ndarray, normalise: bool, ideal: Tuple[np.ndarray, ...], ideal_gain: np.ndarray,
               seen: str = "ancestor") -> Tuple[np.ndarray, np.ndarray]:
    """XCG gain per result, capped when ``normalise``, and the flags of the ranks MAep
    counts (empty: every rank with gain; docs/xml.md, XCG, "Readings chosen")."""
    size = ps.size.astype(np.float64)
    safe = np.maximum(size, 1.0)
    full = (ps.covered >= ps.size) if seen == "overlap" else (ps.contained > 0)
    if qrels.has_elements:
        matched = ps.match >= 0
        r = np.where(matched, el_q[np.maximum(ps.match, 0)] if len(el_q) else 0.0, 0.0)
        partial = ps.tree_w / safe
        # a result that is not an assessed element (an arbitrary passage) is
        # valued through the assessed elements inside it, seen or not
        r_unseen = np.where(matched, r, partial)
        w = np.where(ps.covered == 0, r_unseen, np.where(full, 0.0, partial))
        gain = (1.0 - alpha) * r + alpha * w
        # docs/xml.md, XCG: an unseen result gains r(e_i) whatever alpha; for a passage that
        # is not an assessed element, r(e_i) is the value of the elements inside it
        gain = np.where((ps.covered == 0) & ~matched, partial, gain)
    else:
        spe = np.where(size > 0, ps.rsize / safe, 0.0)
        exh = (ps.rsize > 0).astype(np.float64)
        r = quantise(exh, spe, quantisation)
        partial = ps.novel_rel / safe
        w = np.where(ps.covered == 0, r, np.where(full, 0.0, partial))
        gain = (1.0 - alpha) * r + alpha * w
    gain = np.where(size > 0, gain, 0.0)
    gain = np.ascontiguousarray(gain, dtype=np.float64)
    first = EMPTY_I
    if normalise and qrels.has_elements:
        _xml_xcg.xcg_cap(al.run_off, ps.ideal_of, np.ascontiguousarray(ideal_gain, dtype=np.float64), gain)
    elif normalise:
        # passage assessments: a result's gain goes to the ideal passages it touches, in
        # proportion to the text of each it retrieves (new text for the alpha part), each
        # passage capped at its ideal gain; MAep counts the first rank to gain on a passage
        first = np.zeros(len(gain), I64)
        _xml_xcg.xcg_passage_cap((al.run_off, al.run_doc, al.run_start, al.run_end),
                                 (ideal[0], ideal[1], ideal[2], ideal[3]),
                                 np.ascontiguousarray(ideal_gain, dtype=np.float64), al.ndocs, float(alpha),
                                 gain, first)
    return gain, first


def _sorted_ideal(ideal: Tuple[np.ndarray, ...], gains: np.ndarray) -> np.ndarray:
    off = ideal[0]
    t = np.repeat(np.arange(len(off) - 1), np.diff(off))
    order = np.lexsort((-gains, t))
    return np.ascontiguousarray(gains[order])


class EvalContext:
    """Everything one evaluation needs, computed once."""

    def __init__(self, qrels: XmlQrels, run: XmlRun, *, alpha: float, hix_alpha: float,
                 quantisation: Quantisation, ideal_overlap: str, normalise: bool, complete: bool,
                 use_elements: bool = True, seen: str = "ancestor", allow_unknown: bool = False) -> None:
        if not isinstance(qrels, XmlQrels):
            raise TypeError(f"qrels must be an XmlQrels, got {type(qrels).__name__}")
        if not isinstance(run, XmlRun):
            raise TypeError(f"run must be an XmlRun, got {type(run).__name__}")
        if not allow_unknown and run.unknown_offset is not None and run.unknown_offset.any():
            raise ValueError("the run has results with offset X or -1 (unknown passages); only "
                             "compat='inex2008' evaluates them (as inex_eval v1.0: 18 non-relevant characters)")
        self.qrels, self.run = qrels, run
        self.alpha = _validate_alpha(alpha)
        if seen not in ("overlap", "ancestor"):
            raise ValueError(f"seen must be 'overlap' or 'ancestor', got {seen!r}")
        self.hix_alpha = _validate_alpha(hix_alpha, "hix_alpha")
        if quantisation == "auto":
            quantisation = "generalised" if qrels.has_elements else "inex2006"
        self.quantisation = quantisation
        self.al = align_run(qrels, run, complete)
        full_ideal = ideal_arrays(qrels, quantisation, ideal_overlap)
        g = gather(full_ideal[0], self.al.qt, full_ideal[1], full_ideal[2], full_ideal[3], full_ideal[4])
        self.ideal = (g[0], g[2], g[3], g[4])
        self.ideal_gain = g[5]
        self.el_q_aligned = element_q(qrels, quantisation)[self.al.el_rows] if qrels.has_elements else EMPTY_F
        # element-only assessments (INEX 2005-06): HiXEval's rsize of a result is
        # the rsize (= spe * size) of the assessed element it equals
        only_el = qrels.has_elements and not qrels.has_passages
        el_rsize = (qrels.el_spe * (qrels.el_end - qrels.el_start))[self.al.el_rows] if only_el else EMPTY_F
        self.ps = run_pass(self.al, self.ideal, self.hix_alpha, self.alpha, self.el_q_aligned,
                            qrels.has_elements and (use_elements or only_el), seen, el_rsize)
        # match indexes the aligned el arrays; ideal_of indexes the aligned ideal arrays
        self.gain, self.count_rank = _xcg_gains(qrels, self.al, self.ps, self.alpha, quantisation,
                                                self.el_q_aligned, normalise, self.ideal, self.ideal_gain, seen)
        self.ideal_sorted = _sorted_ideal(self.ideal, self.ideal_gain)
        trel = qrels.trel()
        self.trel = np.ascontiguousarray(trel[self.al.qt], dtype=I64) if len(self.al.qt) else EMPTY_I
        self.n_ideal = np.diff(self.ideal[0])

