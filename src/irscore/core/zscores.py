"""trec_eval's ``-Z``: standardise per-query values with per-query means and
standard deviations read from a file.

The file has one line per (query, measure): ``qid measure mean stddev``,
whitespace separated, the measure named as trec_eval prints it (``map``,
``P_10``, ``iprec_at_recall_0.10``).  Each per-query value ``v`` becomes
``(v - mean) / stddev``; a zero ``stddev`` gives 0 when ``v == mean``.  A value
whose query or measure is not in the file becomes trec_eval's
``MISSING_ZSCORE_VALUE``, -1000000.  Summaries are then taken over the
standardised values with each measure's usual rule (the mean; the sum for
counts; ``gm_map``'s geometric mean over the standardised logarithms), as
trec_eval does.
"""
from __future__ import annotations

import os
from typing import Any, Dict, Mapping, Tuple, Union

import numpy as np

from irscore.core.files import check_path, fields, read_text, text_lines

__all__ = ["MISSING_ZSCORE_VALUE", "ZScores", "read_zscores", "as_zscores", "standardize"]

#: trec_eval's value for a per-query value that has no (mean, stddev) entry
MISSING_ZSCORE_VALUE = -1000000.0

#: ``{qid: {measure: (mean, stddev)}}``
ZScores = Dict[str, Dict[str, Tuple[float, float]]]


def _number(text: str, name: str, lineno: int, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{name}:{lineno}: {what} {text!r} is not a number") from None


def read_zscores(path: Union[str, "os.PathLike[str]"]) -> ZScores:
    """Read a trec_eval z-score file (``qid measure mean stddev`` per line).

    Raises ``ValueError`` naming the file and line for a line that does not
    have four fields or whose mean/stddev is not a number, and for an empty
    file; ``FileNotFoundError`` for a missing path."""
    name = check_path(path, "zscores")
    text = read_text(name)
    out: ZScores = {}
    n = 0
    # lines end at "\n" only; fields split on ASCII white space (the qrels reader's rule)
    for lineno, line in enumerate(text_lines(text), 1):
        f = fields(line)
        if not f:
            raise ValueError(f"{name}:{lineno}: malformed z-score line (empty; trec_eval refuses it)")
        if len(f) != 4:
            raise ValueError(f"{name}:{lineno}: malformed z-score line (want 'qid measure mean stddev', "
                             f"got {len(f)} fields)")
        qid, meas, mean, sd = f
        # trec_eval reads the numbers with atof(): a malformed number is refused here instead
        out.setdefault(qid, {})[meas] = (_number(mean, name, lineno, "mean"),
                                         _number(sd, name, lineno, "stddev"))
        n += 1
    if n == 0:
        raise ValueError(f"{name}: empty zscores file (no data lines)")
    return out


def as_zscores(x: Any) -> ZScores:
    """A path (read with `read_zscores`) or a mapping
    ``{qid: {measure: (mean, stddev)}}`` (checked)."""
    if isinstance(x, (str, os.PathLike)):
        return read_zscores(x)
    if not isinstance(x, Mapping):
        raise TypeError(f"zscores must be a path or a mapping {{qid: {{measure: (mean, stddev)}}}}, "
                        f"got {type(x).__name__}")
    out: ZScores = {}
    for qid, row in x.items():
        if not isinstance(row, Mapping):
            raise TypeError(f"zscores[{qid!r}] must be a mapping {{measure: (mean, stddev)}}")
        for meas, pair in row.items():
            try:
                mean, sd = (float(v) for v in pair)
            except (TypeError, ValueError):
                raise ValueError(f"zscores[{qid!r}][{meas!r}] must be a (mean, stddev) pair of numbers, "
                                 f"got {pair!r}") from None
            out.setdefault(str(qid), {})[str(meas)] = (mean, sd)
    return out


def standardize(values: np.ndarray, query_ids: Any, name: str, zscores: ZScores) -> np.ndarray:
    """One measure's per-query values (in ``query_ids`` order) standardised as
    trec_eval's ``-Z`` does (see the module's description)."""
    v = np.asarray(values, dtype=np.float64)
    out = np.empty_like(v)
    for e, qid in enumerate(query_ids):
        pair = zscores.get(qid, {}).get(name)
        if pair is None:
            out[e] = MISSING_ZSCORE_VALUE
            continue
        mean, sd = pair
        if sd:
            out[e] = (v[e] - mean) / sd
        else:
            out[e] = 0.0 if v[e] == mean else MISSING_ZSCORE_VALUE
    return out
