"""Running a GIL-releasing kernel over disjoint index ranges in threads.

One thread pool serves the whole package, created on first use.  A child made by
``fork`` inherits the parent's pool object but none of its worker threads (and
possibly its lock held), so the pool is dropped in the child at fork and made
afresh there on first use: a forked worker (``multiprocessing`` with fork,
PyTorch ``DataLoader`` workers) can make threaded calls.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, List, Optional, Tuple, TypeVar

import numpy as np

T = TypeVar("T")

_pool: Optional[ThreadPoolExecutor] = None
_lock = threading.Lock()


def _reset_after_fork() -> None:
    global _pool, _lock
    _pool = None
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined]
    except (AttributeError, OSError):  # pragma: no cover (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def check_n_jobs(n_jobs: Any) -> None:
    """``n_jobs`` is a positive integer, -1 (all cores) or None (bool is refused)."""
    if n_jobs is None:
        return
    if (not isinstance(n_jobs, (int, np.integer)) or isinstance(n_jobs, (bool, np.bool_))
            or n_jobs == 0 or n_jobs < -1):
        raise ValueError(f"n_jobs: expected a positive integer, -1 (all cores) or None, got {n_jobs!r}")


def n_threads(n_jobs: Optional[int], work: int, min_work: int = 200_000) -> int:
    """Threads to use: ``n_jobs`` if given (-1 = all cores; None = all cores for big work)."""
    check_n_jobs(n_jobs)
    if n_jobs is None:
        return cpu_count() if work >= min_work else 1
    return cpu_count() if n_jobs == -1 else int(n_jobs)


def pool() -> ThreadPoolExecutor:
    """The package's thread pool (created on first use, in each process)."""
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(2, cpu_count()), thread_name_prefix="irscore")
        return _pool


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


def ranges_by_offsets(offsets: np.ndarray, parts: int) -> List[Tuple[int, int]]:
    """Split the rows of CSR ``offsets`` into ``parts`` ranges of similar size."""
    nrows = len(offsets) - 1
    parts = max(1, min(parts, nrows))
    if parts == 1:
        return [(0, nrows)]
    total = int(offsets[-1])
    cuts = np.searchsorted(offsets, [total * k // parts for k in range(1, parts)], side="left")
    bounds = [0] + sorted(set(int(c) for c in cuts if 0 < c < nrows)) + [nrows]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def run(fn: Callable[[int, int], T], spans: List[Tuple[int, int]]) -> List[T]:
    """Call ``fn(lo, hi)`` for every span: the first in this thread, the rest in the
    pool.  Returns the results in span order; waits for every span before raising.
    When the pool takes no more work (the interpreter is exiting: a daemon
    thread still evaluating), the spans it refused run in this thread."""
    if len(spans) == 1:
        return [fn(*spans[0])]
    ex = pool()
    futures: List[Future[T]] = []
    for lo, hi in spans[1:]:
        try:
            futures.append(ex.submit(fn, lo, hi))
        except RuntimeError:        # "cannot schedule new futures after (interpreter) shutdown"
            break
    inline = spans[1 + len(futures):]
    try:
        first = fn(*spans[0])
        rest = [fn(lo, hi) for lo, hi in inline]
    finally:
        for f in futures:
            f.exception()       # wait, whatever happened in this thread
    return [first] + [f.result() for f in futures] + rest
