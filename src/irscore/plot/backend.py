"""matplotlib, an optional dependency (extra ``plot``), loaded when a plot is drawn.

A plot function given no ``ax`` draws on a new figure made by `new_axes`:
a ``matplotlib.figure.Figure`` that pyplot does not know, so it is freed with
the returned ``Axes`` (no figure is left open, however many plots a loop draws,
and pyplot never warns about too many open figures).  Text taken from the data
(run, system, measure and query names) goes through `plain`, so a ``$``
in a name is printed, not read as mathtext."""
from __future__ import annotations

from typing import Any, Tuple

__all__ = ["MISSING_MATPLOTLIB", "pyplot", "new_axes", "plain"]

MISSING_MATPLOTLIB = ("irscore.plot needs matplotlib: pip install 'irscore[plot]' "
                      "(from a clone of irscore: pip install '.[plot]')")


def new_axes(figsize: Tuple[float, float]) -> Any:
    """The ``Axes`` of a new figure outside pyplot (freed with the ``Axes``; show it with
    ``ax.figure`` in a notebook, or pass an ``ax`` of ``plt.subplots()`` to the plot
    function for a pyplot window)."""
    try:
        from matplotlib.figure import Figure
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != "matplotlib":
            raise
        raise ModuleNotFoundError(MISSING_MATPLOTLIB, name=exc.name) from None
    return Figure(figsize=figsize).subplots()


def plain(text: object) -> str:
    """``text`` as matplotlib prints it literally: ``$`` escaped (no mathtext)."""
    return str(text).replace("$", r"\$")


def pyplot() -> Any:
    """``matplotlib.pyplot``, or a ``ModuleNotFoundError`` naming the ``plot`` extra."""
    try:
        import matplotlib.pyplot as plt
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != "matplotlib":
            raise
        raise ModuleNotFoundError(MISSING_MATPLOTLIB, name=exc.name) from None
    return plt
