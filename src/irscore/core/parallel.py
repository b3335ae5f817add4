"""Running a GIL-releasing kernel over disjoint index ranges in threads."""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple

if TYPE_CHECKING:
    import numpy as np

_pool: Optional[ThreadPoolExecutor] = None
_lock = threading.Lock()


def cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined]
    except AttributeError:  # pragma: no cover (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def n_threads(n_jobs: Optional[int], work: int, min_work: int = 200_000) -> int:
    """Threads to use: ``n_jobs`` if given (-1 or None = all cores for big work)."""
    if n_jobs is not None and n_jobs > 0:
        return n_jobs
    if n_jobs is not None and n_jobs != -1:
        raise ValueError(f"n_jobs must be a positive int, -1 or None, got {n_jobs!r}")
    return cpu_count() if work >= min_work else 1


def ranges(n: int, parts: int, weights: Optional[List[int]] = None) -> List[Tuple[int, int]]:
    """Split [0, n) into at most ``parts`` contiguous ranges of similar weight."""
    parts = max(1, min(parts, n))
    if parts == 1:
        return [(0, n)]
    bounds = [0]
    if weights is None:
        bounds += [n * k // parts for k in range(1, parts)]
    else:
        total = sum(weights)
        acc, k = 0, 1
        for i, w in enumerate(weights):
            acc += w
            if k < parts and acc >= total * k / parts:
                bounds.append(i + 1)
                k += 1
    bounds.append(n)
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def ranges_by_offsets(offsets: "np.ndarray", parts: int) -> List[Tuple[int, int]]:
    """Split the rows of CSR ``offsets`` into ``parts`` ranges of similar size."""
    import numpy as np

    nrows = len(offsets) - 1
    parts = max(1, min(parts, nrows))
    if parts == 1:
        return [(0, nrows)]
    total = int(offsets[-1])
    cuts = np.searchsorted(offsets, [total * k // parts for k in range(1, parts)], side="left")
    bounds = [0] + sorted(set(int(c) for c in cuts if 0 < c < nrows)) + [nrows]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def run(fn: Callable[[int, int], object], spans: List[Tuple[int, int]]) -> None:
    """Call ``fn(lo, hi)`` for every span: the first in this thread, the rest in a pool."""
    global _pool
    if len(spans) == 1:
        fn(*spans[0])
        return
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(2, cpu_count()), thread_name_prefix="irscore")
    futures = [_pool.submit(fn, lo, hi) for lo, hi in spans[1:]]
    fn(*spans[0])
    for f in futures:
        f.result()
