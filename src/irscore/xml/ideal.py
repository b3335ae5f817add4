"""Quantisation of (exhaustivity, specificity) and the ideal recall base."""
from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Tuple

import numpy as np

from irscore import _xml_focused
from irscore.xml.model import I64, Quantisation, XmlQrels, csr

# ---------------------------------------------------------------------------
# quantisation and the ideal recall base
# ---------------------------------------------------------------------------


def quantise(exh: np.ndarray, spe: np.ndarray, quantisation: Quantisation = "generalised",
             too_small: Optional[np.ndarray] = None) -> np.ndarray:
    """Quantised relevance q(e) in [0, 1] of normalised (exh, spe) pairs.

    ``"strict"``: 1 iff exh = spe = 1; ``"generalised"`` (``"gen"``): exh * spe;
    ``"inex2005"``: (e/2) * s with exh already normalised (e/2), "too small"
    elements 0; ``"inex2006"``: s.  A callable ``f(exh, spe) -> array`` or a
    table ``{(exh, spe): value}`` (pairs missing from the table quantise to 0)
    are used as given.

    Parameters
    ----------
    exh : ndarray
        Exhaustivity per element.
    spe : ndarray
        Specificity per element.
    quantisation : str, callable or mapping
        How (exhaustivity, specificity) becomes a relevance value: a name
        (``generalised``, ``strict``, ``inex2006``, ...; ``auto`` picks one for the
        assessments), a function ``f(exh, spe)`` or a mapping ``{(exh, spe):
        value}`` (docs/xml.md, quantisation).
    too_small : ndarray of bool, optional
        Elements assessed too small.

    Returns
    -------
    ndarray of float64
        The quantised relevance of each element.

    Raises
    ------
    ValueError
        An unknown quantisation name.
    """
    exh = np.asarray(exh, dtype=np.float64)
    spe = np.asarray(spe, dtype=np.float64)
    if isinstance(quantisation, str):
        qn = quantisation.lower()
        if qn == "strict":
            q = ((exh == 1.0) & (spe == 1.0)).astype(np.float64)
        elif qn in ("generalised", "generalized", "gen"):
            q = exh * spe
        elif qn == "inex2005":
            q = exh * spe
            if too_small is not None:
                q = np.where(too_small, 0.0, q)
        elif qn == "inex2006":
            q = spe.copy()
        else:
            raise ValueError(
                f"quantisation must be 'strict', 'generalised', 'inex2005', 'inex2006', a callable or a table, got {quantisation!r}"
            )
    elif callable(quantisation):
        q = np.asarray(quantisation(exh, spe), dtype=np.float64)
        if q.shape != exh.shape:
            raise ValueError(f"quantisation function returned shape {q.shape}, expected {exh.shape}")
    elif isinstance(quantisation, Mapping):
        table = {(float(k[0]), float(k[1])): float(v) for k, v in quantisation.items()}
        q = np.asarray([table.get((float(a), float(b)), 0.0) for a, b in zip(exh, spe)], dtype=np.float64)
    else:
        raise TypeError(f"quantisation must be a name, a callable or a mapping, got {type(quantisation).__name__}")
    if q.size and (np.isnan(q).any() or q.min() < 0.0 or q.max() > 1.0):
        raise ValueError("quantised values must lie in [0, 1]")
    return q


def ideal_recall_base(qrels: XmlQrels, quantisation: Quantisation = "generalised",
                      ideal_overlap: str = "ancestor") -> Dict[str, List[Tuple[str, int, int, float]]]:
    """The ideal set per topic as ``[(doc, start, end, q), ...]`` (gain descending).

    Element assessments: on each relevant path (root to a relevant element with
    no relevant descendant) keep the element with the highest q, ties to the
    deeper one; then remove overlap among the kept elements, keeping the
    ancestor (``ideal_overlap="ancestor"``, default) or the descendant
    (``"descendant"``).  Passage assessments: the highlighted passages, each
    with gain q(exh=1, spe=1).

    Parameters
    ----------
    qrels : XmlQrels
        The assessments.
    quantisation : str, callable or mapping
        How (exhaustivity, specificity) becomes a relevance value: a name
        (``generalised``, ``strict``, ``inex2006``, ...; ``auto`` picks one for the
        assessments), a function ``f(exh, spe)`` or a mapping ``{(exh, spe):
        value}`` (docs/xml.md, quantisation).
    ideal_overlap : {'ancestor', 'none'}, default 'ancestor'
        How the ideal recall base removes overlap (docs/xml.md, ideal recall base).

    Returns
    -------
    dict
        ``{topic: [(doc, start, end, value), ...]}``, the ideal elements by value descending.

    Raises
    ------
    ValueError
        Unknown options.
    """
    ioff, idoc, istart, iend, igain = ideal_arrays(qrels, quantisation, ideal_overlap)
    out: Dict[str, List[Tuple[str, int, int, float]]] = {}
    for t, topic in enumerate(qrels.topics):
        sl = slice(ioff[t], ioff[t + 1])
        lst = [(qrels.docs[int(d)], int(s), int(e), float(g)) for d, s, e, g in zip(idoc[sl], istart[sl], iend[sl], igain[sl])]
        lst.sort(key=lambda x: -x[3])
        out[topic] = lst
    return out


def element_q(qrels: XmlQrels, quantisation: Quantisation) -> np.ndarray:
    return quantise(qrels.el_exh, qrels.el_spe, quantisation, qrels.el_small)


def ideal_arrays(qrels: XmlQrels, quantisation: Quantisation, ideal_overlap: str):
    if ideal_overlap not in ("ancestor", "descendant"):
        raise ValueError(f"ideal_overlap must be 'ancestor' or 'descendant', got {ideal_overlap!r}")
    key = (quantisation, ideal_overlap) if isinstance(quantisation, str) else None
    cache = qrels.__dict__.setdefault("_ideal_cache", {})
    if key is not None and key in cache:
        return cache[key]
    if qrels.has_elements:
        q = element_q(qrels, quantisation)
        keep = np.zeros(len(q), dtype=I64)
        _xml_focused.ideal_elements((qrels.el_off, qrels.el_doc, qrels.el_start, qrels.el_end, np.ascontiguousarray(q)),
                                    0 if ideal_overlap == "ancestor" else 1, keep)
        rows = np.flatnonzero(keep)
        t_of = np.repeat(np.arange(len(qrels.topics)), np.diff(qrels.el_off))
        counts = np.bincount(t_of[rows], minlength=len(qrels.topics)) if len(rows) else np.zeros(len(qrels.topics), I64)
        out = (csr(counts), qrels.el_doc[rows], qrels.el_start[rows], qrels.el_end[rows], q[rows])
    else:
        one = float(quantise(np.ones(1), np.ones(1), quantisation)[0])
        n = len(qrels.hl_doc)
        out = (qrels.hl_off, qrels.hl_doc, qrels.hl_start, qrels.hl_end, np.full(n, one))
    if key is not None:
        cache[key] = out
    return out
