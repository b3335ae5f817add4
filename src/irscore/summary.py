"""The summary of a measure over queries (trec_eval's rules), from its
per-query column.

:func:`irscore.evaluate` and the distributed evaluations (``irscore.spark``,
``irscore.dask``) both summarise through :func:`summarize`, so that a value
computed on a cluster is the one computed on one machine.
"""
from __future__ import annotations

import math
from typing import Callable, Optional, Union

import numpy as np

from irscore.measures import Family

__all__ = ["summarize"]


def summarize(family: Family, column: np.ndarray, *, complete: bool,
              n_judged_relevant: Union[int, Callable[[], int]], name: Optional[str] = None) -> float:
    """One measure's summary.

    ``column``: the kernel's per-query values of the evaluated queries in
    trec_eval's query order (for ``gm_map``/``gm_bpref`` the logarithms that
    are averaged).  ``complete``: trec_eval's ``-c``.  ``n_judged_relevant``:
    the number of judgments with a grade > 0 in the whole qrels (or a function
    giving it), ``num_rel``'s summary under ``-c``.  ``name``: the measure's
    name in error messages.
    """
    f = family
    col = column
    n = col.shape[0]
    if f.agg == "mean":
        return float(col.sum() / n)
    if f.agg == "nanmean":
        ok = ~np.isnan(col)
        return float(col[ok].mean()) if ok.any() else float("nan")
    if f.agg == "sum":
        return float(col.sum())
    if f.agg == "num_q":
        return float(n)
    if f.agg == "num_rel":
        if complete:
            return float(n_judged_relevant() if callable(n_judged_relevant) else n_judged_relevant)
        return float(col.sum())
    if f.agg == "gm":
        return float(math.exp(col.sum() / n))
    raise ValueError(f"measure {name or f.name!r} has no numeric summary")
