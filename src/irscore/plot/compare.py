"""Plot of a comparison (matplotlib, optional extra ``plot``; imported inside
the function): the sorted per-query differences of two systems."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from irscore.plot.backend import new_axes, plain

__all__ = ["differences"]


def differences(comparison: Any, measure: str, system: Optional[str] = None, vs: Optional[str] = None, *,
                ax: Any = None, path: Optional[str] = None, title: Optional[str] = None) -> Any:
    """Bar plot of the per-query differences ``system - vs`` on ``measure``
    (from an [`irscore.compare`][irscore.compare] result), sorted from the largest gain to
    the largest loss, with the mean difference as a horizontal line.
    ``system``/``vs`` default to the first comparison of ``measure`` (with a
    baseline: the first run against it).  Undefined queries are left out.
    Returns the matplotlib ``Axes``; ``path`` saves the figure.  Without ``ax``
    the figure is made outside pyplot and freed with the ``Axes`` (``ax.figure``).

    Parameters
    ----------
    comparison : Comparison
        The result of [`irscore.compare`][irscore.compare].
    measure : str
        The measure to plot.
    system, vs : str, optional
        The pair (default: the first comparison of ``measure``).
    ax : matplotlib Axes, optional
        Where to draw (a new figure by default).
    path : str, optional
        Save the figure there (PNG, SVG, PDF by extension).
    title : str, optional
        The plot's title.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if system is None or vs is None:
        first = next((p for p in comparison.pairs if p.measure == measure), None)
        if first is None:
            raise ValueError(f"measure {measure!r} is not in the comparison")
        system = first.system if system is None else system
        vs = first.vs if vs is None else vs
    _, d = comparison.differences(measure, system, vs)
    d = np.sort(d[~np.isnan(d)])[::-1]
    if ax is None:
        ax = new_axes((7, 3.5))
    x = np.arange(1, d.size + 1)
    colors = np.where(d > 0, "tab:blue", np.where(d < 0, "tab:red", "0.6"))
    ax.bar(x, d, width=1.0, color=list(colors), linewidth=0)
    ax.axhline(0.0, color="k", linewidth=0.8)
    if d.size:
        ax.axhline(float(d.mean()), color="0.3", linestyle="--", linewidth=1.0,
                   label=f"mean {float(d.mean()):+.4f}")
        ax.legend(loc="upper right")
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    ax.set_xlabel(f"queries, sorted ({wins} better, {losses} worse, {d.size - wins - losses} tied)")
    ax.set_ylabel(plain(f"{measure}: {system} - {vs}"))
    ax.set_title(title if title is not None else plain(f"{system} vs {vs} on {measure}"))
    ax.set_xlim(0.5, max(d.size, 1) + 0.5)
    if path is not None:
        ax.figure.savefig(path, dpi=120, bbox_inches="tight")
    return ax
