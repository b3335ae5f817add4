"""Summaries over queries as trec_eval computes them: a running double sum in
the evaluation's query order, then one division.

`summarize` holds trec_eval's summary rules for one measure's per-query
column; [`irscore.evaluate`][irscore.evaluate] and the distributed evaluations
(``irscore.spark``, ``irscore.dask``) both summarise through it, so a value
computed on a cluster is the one computed on one machine."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from irscore.core.measures import Family

__all__ = ["running_mean", "running_sum", "summarize"]


def running_sum(values: Any) -> float:
    """The values added one by one in their order, in float64, as trec_eval
    accumulates its summary (a running double sum, then one division).  numpy's
    pairwise ``sum`` can differ in the last bits, enough to flip a printed
    4th decimal when the mean sits on a rounding boundary."""
    a = np.asarray(values, dtype=np.float64).reshape(-1)
    return float(np.cumsum(a)[-1]) if a.size else 0.0


def running_mean(values: Any) -> float:
    """`running_sum` divided by the number of values (NaN when empty)."""
    a = np.asarray(values, dtype=np.float64).reshape(-1)
    return running_sum(a) / a.size if a.size else float("nan")


def summarize(family: "Family", column: np.ndarray, *, complete: bool,
              n_judged_relevant: Union[int, Callable[[], int]], trec_num_rel: bool = True,
              name: Optional[str] = None) -> float:
    """One measure's summary over the evaluated queries.

    ``column``: the kernel's per-query values of the evaluated queries in
    trec_eval's query order (for ``gm_map``/``gm_bpref`` the logarithms that
    are averaged).  Sums run query by query (`running_sum`).
    ``complete``: trec_eval's ``-c``.  ``n_judged_relevant``: the number of
    judgments with a grade > 0 in the whole qrels (or a function giving it):
    trec_eval's ``te_calc_avg_num_rel`` summary of ``num_rel`` under ``-c``,
    applied only when ``trec_num_rel`` (trec_eval's own ``num_rel``, not a
    parameterised ``NumRel(rel=k)``, which sums its own values).  ``name``: the
    measure's name in error messages.
    """
    f = family
    col = column
    n = col.shape[0]
    if f.agg == "mean":
        return running_sum(col) / n
    if f.agg == "nanmean":
        ok = ~np.isnan(col)
        return running_mean(col[ok])
    if f.agg == "sum":
        return running_sum(col)
    if f.agg == "num_q":
        return float(n)
    if f.agg == "num_rel":
        if complete and trec_num_rel:
            return float(n_judged_relevant() if callable(n_judged_relevant) else n_judged_relevant)
        return running_sum(col)
    if f.agg == "gm":
        return float(math.exp(running_sum(col) / n))
    raise ValueError(f"measure {name or f.name!r} has no numeric summary")
