"""Summaries over queries as trec_eval computes them: a running double sum in
the evaluation's query order, then one division."""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["running_mean", "running_sum"]


def running_sum(values: Any) -> float:
    """The values added one by one in their order, in float64, as trec_eval
    accumulates its summary (a running double sum, then one division).  numpy's
    pairwise ``sum`` can differ in the last bits, enough to flip a printed
    4th decimal when the mean sits on a rounding boundary."""
    a = np.asarray(values, dtype=np.float64).reshape(-1)
    return float(np.cumsum(a)[-1]) if a.size else 0.0


def running_mean(values: Any) -> float:
    """:func:`running_sum` divided by the number of values (NaN when empty)."""
    a = np.asarray(values, dtype=np.float64).reshape(-1)
    return running_sum(a) / a.size if a.size else float("nan")
