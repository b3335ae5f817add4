"""The TREC Web track's cascade measures (gdeval): ERR@k and nERR@k.

ERR (Chapelle et al. 2009) is the expected reciprocal rank at which a user
who scans the ranking top-down stops, satisfied by a document of grade g with
probability (2**g - 1) / 2**max_rel; nERR divides it by the ERR of the ideal
ranking.  gdeval's nDCG@k is irscore's ``nDCG(gain=exp)@k``.  Definitions,
parameters and gdeval's conventions: docs/web_diversity.md.  Names are
declared in `irscore.core.registry`; values come from the one-pass
kernel `irscore._usermodel.err` through `compute_measure`.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np

from irscore import _usermodel
from irscore.core.joined import Joined, ResultCache, ranked_lists

__all__ = ["compute_measure", "err_values"]


def err_values(joined: Joined, *, cutoff: Optional[int] = None, max_rel: int = 4
               ) -> Tuple[np.ndarray, np.ndarray]:
    """ERR and nERR of every query of ``joined`` (docs/web_diversity.md).

    Parameters
    ----------
    joined : Joined
        The rank-ordered relevance lists (`irscore.core.joined.join`).
    cutoff : int, optional
        Only the first ``cutoff`` documents count (all when None).
    max_rel : int
        The largest grade of the scale (gdeval's 4); larger grades count as it.

    Returns
    -------
    (ndarray, ndarray)
        ERR per query, and nERR per query (NaN without a relevant document).

    Raises
    ------
    ValueError
        If ``cutoff`` or ``max_rel`` is not a positive integer.
    """
    if cutoff is not None and (not isinstance(cutoff, (int, np.integer)) or cutoff < 1):
        raise ValueError(f"cutoff must be a positive integer, got {cutoff!r}")
    if not isinstance(max_rel, (int, np.integer)) or max_rel < 1:
        raise ValueError(f"max_rel must be a positive integer, got {max_rel!r}")
    rel, _, off = ranked_lists(joined)
    nq = off.shape[0] - 1
    e = np.zeros(nq, dtype=np.float64)
    n = np.zeros(nq, dtype=np.float64)
    _usermodel.err(rel, off, joined.levels, -1 if cutoff is None else int(cutoff), int(max_rel), e, n)
    return e, n


def compute_measure(joined: Joined, name: str, params: Dict[str, Any], level: int, cache: ResultCache
                    ) -> np.ndarray:
    """ERR or nERR per query of ``joined``: the hook of [`irscore.evaluate`][irscore.evaluate]
    and [`irscore.batch.evaluate`][irscore.batch.evaluate] for the names declared in
    `irscore.core.registry` (``level`` is not used: the grades are)."""
    key = ("webtrack.err", params["cutoff"], params["max_rel"])
    e, n = cache.get(key, lambda: err_values(joined, cutoff=params["cutoff"], max_rel=params["max_rel"]))
    return e if name == "ERR" else n
