"""matplotlib, an optional dependency (extra ``plot``), loaded when a plot is drawn."""
from __future__ import annotations

from typing import Any

__all__ = ["MISSING_MATPLOTLIB", "pyplot"]

MISSING_MATPLOTLIB = "irscore.plot needs matplotlib: pip install 'irscore[plot]'"


def pyplot() -> Any:
    """``matplotlib.pyplot``, or a ``ModuleNotFoundError`` naming the ``plot`` extra."""
    try:
        import matplotlib.pyplot as plt
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != "matplotlib":
            raise
        raise ModuleNotFoundError(MISSING_MATPLOTLIB, name=exc.name) from None
    return plt
