"""Reading the statistics' inputs: per-topic vectors and (topics x systems) matrices
of finite numbers, with errors that name the argument and the offending entry."""
from __future__ import annotations

from typing import Any

import numpy as np


def real_array(x: Any, name: str, ndim: int, shape_hint: str, limit: float, why: str = "") -> np.ndarray:
    """``x`` as a float64 array of ``ndim`` dimensions whose entries are finite and at
    most ``limit`` in magnitude (beyond, squares or sums would overflow).  TypeError
    for a string, ValueError naming ``name`` and the first bad entry otherwise;
    ``shape_hint`` describes the expected shape, ``why`` ends the bad-entry message."""
    what = f"a {ndim}-D array of numbers"
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be {what}{shape_hint}, got a string")
    try:
        a = np.array(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be {what}{shape_hint}: {exc}") from None
    if a.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array{shape_hint}, got shape {a.shape}")
    if a.size:
        bad = ~np.isfinite(a) | (np.abs(np.where(np.isfinite(a), a, 0.0)) > limit)
        if bad.any():
            at = tuple(int(i) for i in np.argwhere(bad)[0])
            where = ", ".join(map(str, at))
            raise ValueError(f"{name}[{where}] is not finite (or beyond {limit:g} in magnitude): {a[at]}{why}")
    return a
