"""Plots (matplotlib, optional extra ``plot``; imported inside the functions).

- [`crp`][irscore.plot.crp] — CRP curves of several runs for one query, with the ideal and
  worst curves, the recall base R, each run's balance and turn-around points
  (as Fig. 1 of Angelini et al., *Cumulated Relative Position*, CLEF 2012).

The XML retrieval plots of [`irscore.plot.xml`][irscore.plot.xml] (``ep_gr_curve``,
``ip_curve``, ``ep_gr_points``, ``ip_points``) are re-exported here on first
use.

Architecture
------------
A front end: ``irscore.plot`` (this module: CRP plots) and ``irscore.plot.xml``
(XML plots) may import any family and the core.  matplotlib, an optional
dependency, is imported inside the functions that draw; ``irscore.plot.xml``
is loaded on first use of one of its names (module ``__getattr__``).
"""
from __future__ import annotations

import importlib
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from irscore.core.io import as_qrels, as_run
from irscore.crp import crp_curves, curves_from_ranked
from irscore.plot.backend import new_axes, plain
from irscore.plot.compare import differences

__all__ = ["crp", "crp_worst_curve", "differences"]

def _query_levels(qrels: Any, query: str, level: int) -> np.ndarray:
    q = qrels._index().get(query)
    if q is None:
        raise ValueError(f"query {query!r} is not in the qrels")
    grades = qrels.grades[int(qrels.offsets[q]):int(qrels.offsets[q + 1])]
    grades = grades[grades >= 0].astype(np.int64)
    return np.bincount(grades, minlength=max(level + 1, 1))[None, :].astype(np.int64)


def crp_worst_curve(levels: np.ndarray, length: int, relevance_level: int = 1) -> np.ndarray:
    """CRP curve of the worst vector: the judged pool in reverse grade order
    (non-relevant first, the highest grade last), padded with non-relevant
    documents to ``max(length, pool size, 2R)``.  ``levels``: judged documents
    per grade of one query (1-D or shape (1, n_grades)).

    Parameters
    ----------
    levels : ndarray
        Judged documents per grade of one query.
    length : int
        Minimum curve length.
    relevance_level : int, default 1
        Grades at or above it are relevant.

    Returns
    -------
    ndarray of int64
        The worst CRP curve.
    """
    lv = np.ascontiguousarray(np.atleast_2d(levels), dtype=np.int64)
    rel_grades = [g for g in range(relevance_level, lv.shape[1]) for _ in range(int(lv[0, g]))]
    R = len(rel_grades)
    M = max(int(length), int(lv.sum()), 2 * R)
    rel = np.asarray([-2] * (M - R) + rel_grades, dtype=np.int32)
    _, curve, _ = curves_from_ranked(rel, np.asarray([0, M], dtype=np.int64), lv, relevance_level=relevance_level)
    return curve


def crp(qrels: Any, runs: Union[Mapping[str, Any], Sequence[Any]], query: str, *, relevance_level: int = 1,
        unjudged: str = "nonrel", pad_to: Optional[int] = None, variant: str = "default",
        max_docs: Optional[int] = None, worst: bool = True, ax: Any = None, path: Optional[str] = None,
        title: Optional[str] = None) -> Any:
    """Draw the CRP curves of ``runs`` (``{label: run}``, or a sequence of runs
    labelled by their run ids) for ``query``.

    Also drawn: the ideal curve (0 everywhere), the worst curve (unless
    ``worst=False``), a vertical line at the recall base R, each run's balance
    point (circle, on the x axis) and turn-around point (triangle).  Options
    as [`irscore.crp_curves`][irscore.crp_curves].  Returns the matplotlib ``Axes``; ``path``
    saves the figure (PNG, SVG, PDF by extension).  Without ``ax`` the figure is
    made outside pyplot and freed with the returned ``Axes`` (``ax.figure``): a
    loop of plots leaves no figure open; pass ``ax`` to draw into a pyplot figure.

    Parameters
    ----------
    qrels : Qrels, dict, DataFrame or path
        As in [`irscore.evaluate`][irscore.evaluate].
    runs : mapping or sequence
        ``{label: run}`` or runs labelled by their run ids.
    query : str
        The query drawn.
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
    worst : bool, default True
        Draw the worst curve.
    ax : matplotlib Axes, optional
        Draw into this Axes (default: a new figure outside pyplot).
    path : str, optional
        Save the figure (PNG, SVG, PDF by extension).
    title : str, optional
        The title.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ImportError
        matplotlib is not installed.
    ValueError
        The query is not in the qrels.
    """
    q = as_qrels(qrels)
    levels = _query_levels(q, query, int(relevance_level))
    if isinstance(runs, Mapping):
        items: List[Tuple[str, Any]] = [(str(k), as_run(v)) for k, v in runs.items()]
    else:
        items = []
        for i, v in enumerate(runs):
            r = as_run(v)
            items.append((getattr(r, "run_id", None) or f"run {i + 1}", r))
    if not items:
        raise ValueError("no runs to plot")
    if ax is None:
        ax = new_axes((6, 4))
    R = int(levels[0, int(relevance_level):].sum()) if int(relevance_level) < levels.shape[1] else 0
    length = 0
    for label, run in items:
        cur = crp_curves(q, run, relevance_level=relevance_level, unjudged=unjudged, pad_to=pad_to,
                         variant=variant, max_docs=max_docs, complete=True)[query]
        ranks = np.arange(1, cur.crp.size + 1)
        line, = ax.plot(ranks, cur.crp, label=plain(label))
        length = max(length, int(cur.crp.size))
        if not np.isnan(cur.balance):
            b = int(cur.balance)
            ax.scatter([b], [cur.crp[b - 1] if b <= cur.crp.size else 0], marker="o", color=line.get_color(),
                       zorder=3)
        if not np.isnan(cur.turnaround):
            t = int(cur.turnaround)
            ax.scatter([t], [cur.crp[t - 1]], marker="v", color=line.get_color(), zorder=3)
    if worst and R:
        w = crp_worst_curve(levels, length, int(relevance_level))
        ax.plot(np.arange(1, w.size + 1), w, color="0.5", linestyle="--", label="worst")
    span = max(length, 1)
    ax.plot([1, span], [0, 0], color="k", linewidth=1.0, label="ideal")
    if R:
        ax.axvline(R, color="0.3", linestyle=":", linewidth=1.0)
        ax.annotate("R", (R, 0), textcoords="offset points", xytext=(3, 4))
    ax.set_xlabel("rank")
    ax.set_ylabel("cumulated relative position")
    ax.set_title(title if title is not None else f"CRP — query {plain(query)} (R = {R})")
    ax.legend(loc="best")
    if path is not None:
        ax.figure.savefig(path, dpi=120, bbox_inches="tight")
    return ax


def __getattr__(name: str) -> Any:
    """Re-export the public plots of [`irscore.plot.xml`][irscore.plot.xml] on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        mod = importlib.import_module("irscore.plot.xml")
    except ModuleNotFoundError as exc:
        if exc.name == "irscore.plot.xml":
            raise AttributeError(f"module 'irscore.plot' has no attribute {name!r}") from None
        raise
    if name in getattr(mod, "__all__", ()):
        value = getattr(mod, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'irscore.plot' has no attribute {name!r}")


def __dir__() -> List[str]:
    names = list(__all__)
    try:
        names += list(importlib.import_module("irscore.plot.xml").__all__)
    except ModuleNotFoundError:
        pass
    return sorted(names)
