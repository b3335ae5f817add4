"""Plots for the XML / focused retrieval measures (matplotlib, optional extra ``plot``).

- [`ep_gr_curve`][irscore.plot.xml.ep_gr_curve] — effort-precision against gain-recall (XCG family),
- [`ip_curve`][irscore.plot.xml.ip_curve] — interpolated precision iP[x] against recall x (INEX 2007+).

Both return the matplotlib ``Axes``; pass ``ax`` to draw into an existing one
and ``path`` to save the figure (without ``ax``, on a new figure outside pyplot,
freed with the ``Axes``).  matplotlib is imported inside the functions.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional, Tuple

import numpy as np

from irscore import _xml_xcg
from irscore import xml as X
from irscore.plot.backend import new_axes, plain
from irscore.xml.context import EvalContext


def ep_gr_points(qrels: "X.XmlQrels", run: "X.XmlRun", topic: Optional[str] = None, **xcg_options: Any
                 ) -> Tuple[np.ndarray, np.ndarray]:
    """(gr, ep) at every rank of one topic, or, with ``topic=None``, the
    interpolated ep averaged over topics on the grid gr = 0, 0.01, ..., 1."""
    if topic is None:
        points = int(xcg_options.pop("points", 100))
        res = X.xcg(qrels, run, cutoffs=(1,), points=points, **xcg_options)
        grid = np.arange(points + 1) / points
        ep = np.asarray([np.mean(list(res[f"iep[{p / points:.2f}]"].values()) or [0.0]) for p in range(points + 1)])
        return grid, ep
    ctx = EvalContext(qrels, run, alpha=xcg_options.get("alpha", 1.0), hix_alpha=1.0,
                      quantisation=xcg_options.get("quantisation", "auto"),
                      ideal_overlap=xcg_options.get("ideal_overlap", "ancestor"),
                      normalise=xcg_options.get("normalise", True), complete=False)
    if topic not in ctx.al.topics:
        raise ValueError(f"topic {topic!r} is not in both the qrels and the run")
    t = ctx.al.topics.index(topic)
    lo, hi = int(ctx.al.run_off[t]), int(ctx.al.run_off[t + 1])
    gain = np.ascontiguousarray(ctx.gain[lo:hi])
    ideal = np.ascontiguousarray(ctx.ideal_sorted[ctx.ideal[0][t]:ctx.ideal[0][t + 1]])
    ep = np.zeros(hi - lo)
    gr = np.zeros(hi - lo)
    if hi > lo:
        _xml_xcg.ep_gr_curve(gain, ideal, ep, gr)
    return gr, ep


def ep_gr_curve(qrels: "X.XmlQrels", runs: Mapping[str, "X.XmlRun"], topic: Optional[str] = None, *,
                ax: Any = None, path: Optional[str] = None, **xcg_options: Any) -> Any:
    """Plot ep/gr curves, one line per run (``runs``: label -> XmlRun)."""
    if ax is None:
        ax = new_axes((5, 4))
    for label, run in runs.items():
        gr, ep = ep_gr_points(qrels, run, topic, **dict(xcg_options))
        ax.plot(gr, ep, label=plain(label), drawstyle="steps-post" if topic is None else "default")
    ax.set_xlabel("gain-recall (gr)")
    ax.set_ylabel("effort-precision (ep)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    ax.set_title("ep/gr" + (f" — topic {plain(topic)}" if topic else " (mean interpolated)"))
    ax.legend(loc="best")
    if path is not None:
        ax.figure.savefig(path, dpi=120, bbox_inches="tight")
    return ax


def ip_points(qrels: "X.XmlQrels", run: "X.XmlRun", topic: Optional[str] = None, *, points: int = 100,
              **ip_options: Any) -> Tuple[np.ndarray, np.ndarray]:
    """(x, iP[x]) for one topic or the mean over topics."""
    res = X.interpolated_precision(qrels, run, points=points, **ip_options)
    grid = np.arange(points + 1) / points
    keys = [f"iP[{p / points:.2f}]" for p in range(points + 1)]
    if topic is None:
        vals = np.asarray([np.mean(list(res[k].values()) or [0.0]) for k in keys])
    else:
        if topic not in res[keys[0]]:
            raise ValueError(f"topic {topic!r} has no iP values (not in both files, or no highlighted text)")
        vals = np.asarray([res[k][topic] for k in keys])
    return grid, vals


def ip_curve(qrels: "X.XmlQrels", runs: Mapping[str, "X.XmlRun"], topic: Optional[str] = None, *,
             ax: Any = None, path: Optional[str] = None, points: int = 100, **ip_options: Any) -> Any:
    """Plot interpolated precision iP[x] against recall, one line per run."""
    if ax is None:
        ax = new_axes((5, 4))
    for label, run in runs.items():
        x, y = ip_points(qrels, run, topic, points=points, **ip_options)
        ax.plot(x, y, label=plain(label))
    ax.set_xlabel("recall (characters)")
    ax.set_ylabel("interpolated precision iP")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    ax.set_title("iP" + (f" — topic {plain(topic)}" if topic else " (mean over topics)"))
    ax.legend(loc="best")
    if path is not None:
        ax.figure.savefig(path, dpi=120, bbox_inches="tight")
    return ax


__all__ = ["ep_gr_curve", "ip_curve", "ep_gr_points", "ip_points"]
