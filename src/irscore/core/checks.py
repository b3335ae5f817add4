"""Input checks shared by the families: parameter values and rank-ordered
relevance lists.  Errors name the argument."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

# Largest cutoff / document count / relevance level accepted (exact as a float64
# and in int64).
MAX_CUTOFF = 2 ** 62
MAX_LEVEL = 2 ** 62

__all__ = ["parse_bool", "parse_int", "check_level", "check_ranked"]


def parse_bool(value: Any, what: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("true", "1", "yes"):
            return True
        if v in ("false", "0", "no"):
            return False
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{what} must be True or False, got {value!r}")


def parse_int(value: Any, what: str) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, str):
        try:
            f = float(value)
        except ValueError:
            raise ValueError(f"{what} must be an integer, got {value!r}") from None
        if not f.is_integer():
            raise ValueError(f"{what} must be an integer, got {value!r}")
        return int(f)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    raise TypeError(f"{what} must be an integer, got {value!r}")


def check_level(level: Any) -> int:
    lv = parse_int(level, "relevance_level")
    if lv < 0:
        raise ValueError(f"relevance_level must be >= 0, got {lv}")
    return lv


def check_ranked(rel: np.ndarray, offsets: np.ndarray, levels: np.ndarray, scores: Optional[np.ndarray]
                  ) -> Tuple[np.ndarray, Optional[np.ndarray], np.ndarray, np.ndarray]:
    rel = np.ascontiguousarray(rel, dtype=np.int32)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    levels = np.ascontiguousarray(levels, dtype=np.int64)
    if rel.ndim != 1:
        raise ValueError(f"rel must be 1-D, got shape {rel.shape}")
    if offsets.ndim != 1 or offsets.shape[0] < 1:
        raise ValueError(f"offsets must be 1-D with n_queries + 1 entries, got shape {offsets.shape}")
    nq = offsets.shape[0] - 1
    if offsets[0] != 0 or offsets[-1] != rel.shape[0] or np.any(np.diff(offsets) < 0):
        raise ValueError("offsets must start at 0, be non-decreasing and end at len(rel) "
                         f"({rel.shape[0]}); got {offsets[:3]}...{offsets[-3:]}")
    if levels.ndim != 2 or levels.shape[0] != nq or levels.shape[1] < 1:
        raise ValueError(f"levels must have shape (n_queries={nq}, max_grade + 1); got {levels.shape}")
    if levels.size and levels.min() < 0:
        raise ValueError("levels (judged documents per grade) must not be negative")
    if rel.size and (rel.max() >= levels.shape[1] or rel.min() < -2):
        raise ValueError(f"rel values must be grades 0..{levels.shape[1] - 1}, -1 (unjudged) or -2 "
                         f"(judged negative); got range [{rel.min()}, {rel.max()}]")
    if scores is not None:
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        if scores.shape != rel.shape:
            raise ValueError(f"scores must have the shape of rel {rel.shape}, got {scores.shape}")
    return rel, scores, offsets, levels
