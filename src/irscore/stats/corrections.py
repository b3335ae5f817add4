"""Multiple-comparison corrections of a family of p-values.

- ``bonferroni``: min(1, m p_i).
- ``holm``: Holm's step-down (1979): with p_(1) <= ... <= p_(m),
  p_adj_(i) = min(1, max_{j <= i} (m - j + 1) p_(j)).
- ``bh``: Benjamini & Hochberg's (1995) step-up false discovery rate:
  p_adj_(i) = min(1, min_{j >= i} m p_(j) / j).
- ``none``: unchanged.

NaN p-values (undefined tests) are left out of the family and stay NaN; m is
the number of defined p-values.  Identical to
``statsmodels.stats.multitest.multipletests`` (``bonferroni``, ``holm``,
``fdr_bh``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

METHODS = ("bonferroni", "holm", "bh", "none")


def adjust(p: Any, method: str = "holm") -> np.ndarray:
    """Adjusted p-values of the family ``p`` (any shape) by ``method``."""
    if method not in METHODS:
        raise ValueError(f"correction must be one of {', '.join(METHODS)}; got {method!r}")
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    flat = p.ravel()
    ok = ~np.isnan(flat)
    pv = flat[ok]
    if pv.size and (pv.min() < 0 or pv.max() > 1):
        raise ValueError("p-values must lie in [0, 1]")
    m = pv.size
    if method == "none" or m == 0:
        adj = pv.copy()
    elif method == "bonferroni":
        adj = np.minimum(1.0, pv * m)
    else:
        order = np.argsort(pv, kind="mergesort")
        s = pv[order]
        if method == "holm":
            a = np.maximum.accumulate((m - np.arange(m)) * s)
        else:  # bh
            a = np.minimum.accumulate((m * s / np.arange(1, m + 1))[::-1])[::-1]
        adj = np.empty(m)
        adj[order] = np.minimum(1.0, a)
    res = out.ravel()
    res[ok] = adj + 0.0        # -0.0 + 0.0 is +0.0: a p-value has no sign
    return res.reshape(p.shape)
