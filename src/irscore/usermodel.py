"""User-model measures of cwl_eval's C/W/L framework (INST, INSQ, BPM, SDCG,
NERR8-11)
and Clarke et al.'s compatibility measure (Compat).

A C/W/L measure is the expected gain per inspected document of a user who,
after position i, continues with probability C_i: W_i (the share of attention
position i gets) is proportional to prod_{j<i} C_j.  Gains are the grades
scaled to [0, 1] by ``min_rel``/``max_rel``.  Compat is the rank-biased overlap
of the ranking with the ideal ranking the qrels allow.  Definitions,
parameters and the differences from the reference tools:
docs/user_models.md.  Names are declared in `irscore.core.registry`;
values come from the one-pass kernels of `irscore._usermodel` through
`compute_measure`.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np

from irscore import _usermodel
from irscore.core.joined import Joined, ResultCache, ranked_lists
from irscore.core.plugins import register
from irscore.core.registry import USERMODEL_GROUP

__all__ = ["compute_measure", "cwl_values", "compat_values", "CWL_MEASURES"]

#: the most positions of a C/W/L model (``depth``): the sums run over every position (past the
#: ranking until they stop changing), so the work per query grows with it
MAX_DEPTH = 10_000_000
#: the largest |min_rel|, |max_rel| (their difference stays within the kernel's int64)
_MAX_GRADE = 2 ** 62

CWL_MEASURES = ("INST", "INSQ", "BPM", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11")


def cwl_values(joined: Joined, measure: str, *, T: float = 1.0, cutoff: Optional[int] = None, min_rel: int = 0,
               max_rel: Optional[int] = None, depth: int = 1000) -> np.ndarray:
    """One C/W/L measure per query of ``joined`` (docs/user_models.md).

    Parameters
    ----------
    joined : Joined
        The rank-ordered relevance lists.
    measure : str
        ``"INST"``, ``"INSQ"``, ``"BPM"``, ``"SDCG"``, ``"NERR8"``,
        ``"NERR9"``, ``"NERR10"`` or ``"NERR11"``.
    T : float
        Total gain the user wants (INST, INSQ, BPM, NERR11); NERR10's
        persistence.
    cutoff : int, optional
        Documents the user is willing to inspect (BPM, SDCG, NERR8, NERR9:
        required).
    min_rel, max_rel : int
        Grades of gain 0 and 1 (clipped in between, linear); ``max_rel``
        defaults to the largest grade of the qrels (at least 1).
    depth : int
        Positions of the model (cwl_eval: 1000; the ranking is cut or padded
        with gain 0), at most ``MAX_DEPTH`` (10**7).

    Returns
    -------
    ndarray
        float64 value per query.

    Raises
    ------
    ValueError
        For an unknown measure or parameters out of range.
    """
    if measure not in CWL_MEASURES:
        raise ValueError(f"measure must be one of {', '.join(CWL_MEASURES)}; got {measure!r}")
    if measure in ("BPM", "SDCG", "NERR8", "NERR9") and cutoff is None:
        raise ValueError(f"{measure} needs a cutoff")
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"{measure}: depth must be an integer in 1..{MAX_DEPTH}, got {depth!r}")
    if cutoff is not None:
        if isinstance(cutoff, bool) or not isinstance(cutoff, (int, np.integer)) or cutoff < 1:
            raise ValueError(f"{measure}: cutoff must be a positive integer, got {cutoff!r}")
        # the model reads the cutoff only as "position i < cutoff" for i <= depth: past depth + 1 it
        # changes nothing
        cutoff = min(int(cutoff), int(depth) + 1)
    for name, v in (("min_rel", min_rel), ("max_rel", max_rel)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer)) or abs(v) > _MAX_GRADE):
            raise ValueError(f"{measure}: {name} must be an integer in -2**62..2**62, got {v!r}")
    hi = max(joined.levels.shape[1] - 1, 1) if max_rel is None else int(max_rel)
    if hi <= min_rel:
        raise ValueError(f"max_rel ({hi}) must exceed min_rel ({min_rel})")
    rel, _, off = ranked_lists(joined)
    out = np.zeros(off.shape[0] - 1, dtype=np.float64)
    _usermodel.cwl(rel, off, joined.levels, measure, float(T), 0 if cutoff is None else int(cutoff),
                   int(min_rel), hi, int(depth), out)
    return out


def compat_values(joined: Joined, *, p: float = 0.95, normalize: bool = True) -> np.ndarray:
    """Compatibility with the ideal ranking per query of ``joined``
    (docs/user_models.md).

    Parameters
    ----------
    joined : Joined
        The rank-ordered relevance lists.
    p : float
        Persistence of rank-biased overlap, in (0, 1).
    normalize : bool
        Divide by the ideal ranking's own overlap (1 for a perfect ranking).

    Returns
    -------
    ndarray
        float64 value per query (0 without a document of positive grade).

    Raises
    ------
    ValueError
        If ``p`` is outside (0, 1).
    """
    rel, _, off = ranked_lists(joined)
    out = np.zeros(off.shape[0] - 1, dtype=np.float64)
    _usermodel.compat(rel, off, joined.levels, float(p), bool(normalize), out)
    return out


def compute_measure(joined: Joined, name: str, params: Dict[str, Any], level: int, cache: ResultCache
                    ) -> np.ndarray:
    """A C/W/L measure or Compat per query of ``joined``: the hook of
    [`irscore.evaluate`][irscore.evaluate] and [`irscore.batch.evaluate`][irscore.batch.evaluate] for the names
    declared in `irscore.core.registry` (``level`` is not used)."""
    if name == "Compat":
        return compat_values(joined, p=params["p"], normalize=params["normalize"])
    T = params["p"] if name == "NERR10" else params.get("T", 1.0)
    return cwl_values(joined, name, T=T, cutoff=params.get("cutoff"),
                      min_rel=params["min_rel"], max_rel=params["max_rel"], depth=params["depth"])


register(USERMODEL_GROUP, compute_measure)
