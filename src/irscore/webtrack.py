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
from irscore.core.plugins import register
from irscore.core.registry import WEBTRACK_GROUP

__all__ = ["compute_measure", "err_values"]

#: the largest max_rel (2**max_rel must be a finite double; the kernel's limit)
MAX_REL = 1000
#: a cutoff from which ERR and nERR equal their values without cutoff (the kernel counts at most 2**62 documents)
_WHOLE = 2 ** 62


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
        If ``cutoff`` is not a positive integer or ``max_rel`` not an
        integer in 1..1000.  (A cutoff of 2**62 or more reads whole rankings,
        as no cutoff.)
    """
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, (int, np.integer)) or cutoff < 1):
        raise ValueError(f"cutoff must be a positive integer, got {cutoff!r}")
    if isinstance(max_rel, bool) or not isinstance(max_rel, (int, np.integer)) or not 1 <= max_rel <= MAX_REL:
        raise ValueError(f"max_rel must be an integer in 1..{MAX_REL}, got {max_rel!r}")
    if cutoff is not None and cutoff >= _WHOLE:
        # no ranking or pool holds 2**62 documents: such a cutoff reads the whole ranking and the whole
        # ideal, exactly as no cutoff
        cutoff = None
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


register(WEBTRACK_GROUP, compute_measure)
