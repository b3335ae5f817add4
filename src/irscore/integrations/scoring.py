"""Shared by the GBDT metrics: evaluate ragged query groups (``empty=`` passed to the batch), average."""
from __future__ import annotations

import math
from typing import Any, List, Sequence, Tuple, Union

import numpy as np

from irscore import batch
from irscore.core.measures import parse_measure

Measures = Union[str, Any, Sequence[Any]]


def measure_names(measures: Measures) -> List[str]:
    """The names asked for (ir_measures objects by their string), each once."""
    if isinstance(measures, str) or not isinstance(measures, Sequence):
        measures = [measures]
    names: List[str] = []
    for m in measures:
        name = m if isinstance(m, str) else str(m)
        parse_measure(name)     # an unknown name fails now, not at the first iteration
        if name not in names:
            names.append(name)
    if not names:
        raise ValueError("no measures requested")
    return names


def check_empty(empty: Any) -> float:
    try:
        value = float(empty)
    except (TypeError, ValueError):
        raise TypeError(f"empty must be a number (0, 1) or nan, got {empty!r}") from None
    if math.isinf(value):
        raise ValueError(f"empty must be finite or nan, got {empty!r}")
    return value


class Scorer:
    """Mean of each measure over ragged queries (CSR ``offsets``)."""

    def __init__(self, measures: Measures, empty: Any = 0.0, **options: Any) -> None:
        if {"offsets", "lengths", "group", "mask"} & set(options):
            raise TypeError("the query groups come from the training library's data; "
                            "do not pass offsets/lengths/group/mask")
        self.names = measure_names(measures)
        self.empty = check_empty(empty)
        self.options = options

    def per_query(self, scores: Any, labels: Any, offsets: np.ndarray) -> List[np.ndarray]:
        scores = np.asarray(scores)
        if scores.ndim != 1:
            raise ValueError(f"predictions must be 1-D (one score per document), got shape {scores.shape}")
        labels = np.asarray(labels)
        res = batch.evaluate(scores, labels, self.names, offsets=offsets, empty=self.empty, **self.options)
        out = [np.asarray(res[n], dtype=np.float64) for n in self.names]
        return out

    def __call__(self, scores: Any, labels: Any, offsets: np.ndarray) -> List[Tuple[str, float]]:
        out = []
        for name, values in zip(self.names, self.per_query(scores, labels, offsets)):
            ok = ~np.isnan(values)
            out.append((name, float(values[ok].mean()) if ok.any() else float("nan")))
        return out


def offsets_from_sizes(sizes: Any, n: int, what: str) -> np.ndarray:
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.ndim != 1 or (sizes < 0).any():
        raise ValueError(f"{what}: query group sizes must be a 1-D array of non-negative counts")
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    if int(offsets[-1]) != n:
        raise ValueError(f"{what}: the query groups cover {int(offsets[-1])} documents, the predictions {n}")
    return offsets
