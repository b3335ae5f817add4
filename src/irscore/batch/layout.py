"""The batch's layout: dense rows (``lengths``, ``mask``, NaN padding), ragged CSR
(``offsets``, ``group``) and per-query lists, all read into one flat scores array,
one flat labels array and the (start, length) of every query; the rule for
non-finite scores (``nan_scores``) and the padding-label warning."""
from __future__ import annotations

import warnings
from typing import Any, Optional, Tuple

import numpy as np

from irscore.batch.arrays import as_array, int_vector, label_array, score_array

NAN_SCORES = ("error", "padding", "last")
#: the warning of plain 2-D labels with a negative value on a scored cell
NEGATIVE_LABELS = ("labels: negative labels on scored cells and neither lengths nor mask given; "
                   "if they mark padding, pass lengths= or mask= (or NaN scores), else they count "
                   "as non-relevant candidates")


class Layout:
    """Flat scores and labels, and each query's ``starts``/``lens`` into them."""
    __slots__ = ("sc", "lb", "starts", "lens", "nq", "float_labels")

    def __init__(self, sc: np.ndarray, lb: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> None:
        self.sc, self.lb, self.starts, self.lens = sc, lb, starts, lens
        self.nq = int(starts.shape[0])
        self.float_labels = lb.dtype.kind == "f"


_DENSE: dict = {}


def dense_rows(nq: int, ncol: int) -> Tuple[np.ndarray, np.ndarray]:
    """Row starts and full lengths of a dense (nq, ncol) batch (cached, read-only)."""
    got = _DENSE.get((nq, ncol))
    if got is None:
        starts = np.arange(nq, dtype=np.int64) * ncol
        lens = np.full(nq, ncol, dtype=np.int64)
        starts.setflags(write=False)
        lens.setflags(write=False)
        if len(_DENSE) > 64:
            _DENSE.clear()
        got = _DENSE[(nq, ncol)] = (starts, lens)
    return got


def _is_nested(x: Any) -> bool:
    return bool(getattr(x, "is_nested", False)) and callable(getattr(x, "unbind", None))


def _per_query(x: Any) -> bool:
    """A list/tuple of per-query 1-D arrays (not a list of numbers or of lists of numbers
    that make a dense 2-D array) or a torch nested tensor."""
    if _is_nested(x):
        return True
    if not isinstance(x, (list, tuple)) or not x:
        return False
    first = x[0]
    if isinstance(first, (list, tuple)):        # Python lists: ragged when the rows differ in length
        return len({len(r) if isinstance(r, (list, tuple)) else -1 for r in x}) > 1
    return hasattr(first, "__array__") or hasattr(first, "__dlpack__") or hasattr(first, "detach")


def _concat(x: Any, name: str, read: Any) -> Tuple[np.ndarray, np.ndarray]:
    items = x.unbind() if _is_nested(x) else x
    parts = []
    for i, item in enumerate(items):
        a = read(item)
        if a.ndim != 1:
            raise ValueError(f"{name}[{i}]: expected a 1-D array per query, got shape {a.shape}")
        parts.append(a)
    if not parts:
        raise ValueError(f"{name}: empty batch (no queries)")
    sizes = np.fromiter((p.shape[0] for p in parts), dtype=np.int64, count=len(parts))
    off = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(sizes, out=off[1:])
    return np.concatenate(parts), off


def _offsets(off: np.ndarray, n: int, name: str, hint_group: bool) -> np.ndarray:
    if off.shape[0] < 2:
        raise ValueError(f"{name}: empty batch ({name} needs n_queries + 1 >= 2 values)")
    if off[0] != 0 or off[-1] != n:
        hint = ""
        if hint_group and off.size and off.min() >= 0 and int(off.sum()) == n:
            hint = "; these look like group sizes; pass group= (documents per query) instead"
        raise ValueError(f"{name}: must start at 0 and end at len(scores) = {n}, "
                         f"got {int(off[0])} .. {int(off[-1])}{hint}")
    d = np.diff(off)
    if d.min() < 0:
        hint = ""
        if hint_group and off.min() >= 0 and int(off.sum()) == n:
            hint = "; these look like group sizes; pass group= (documents per query) instead"
        raise ValueError(f"{name}: not increasing ({name}[{int(np.argmin(d)) + 1}] < the value before){hint}")
    return off


def read_layout(scores: Any, labels: Any, *, lengths: Any = None, offsets: Any = None, group: Any = None,
                mask: Any = None, nan_scores: Optional[str] = None, check_inputs: bool = True) -> Layout:
    """Read scores/labels in any of the batch's layouts (see [`irscore.batch`][irscore.batch])."""
    if nan_scores is not None and nan_scores not in NAN_SCORES:
        raise ValueError(f"nan_scores: expected one of {', '.join(map(repr, NAN_SCORES))}, got {nan_scores!r}")
    if group is not None and (offsets is not None or lengths is not None):
        raise ValueError("group: give the queries one way only (group sizes, offsets or lengths)")
    if mask is not None and (offsets is not None or lengths is not None or group is not None):
        raise ValueError("mask: only for 2-D scores, without lengths, offsets or group")
    explicit = lengths is not None or offsets is not None or group is not None or mask is not None
    if _per_query(scores) or _per_query(labels):
        if not (_per_query(scores) and _per_query(labels)):
            raise ValueError("labels: scores and labels must both be per-query lists (or nested tensors)")
        if explicit:
            raise ValueError("offsets: per-query lists give the queries themselves; "
                             "do not pass lengths, offsets, group or mask")
        sc, off = _concat(scores, "scores", score_array)
        lb, off_l = _concat(labels, "labels", label_array)
        if off.shape != off_l.shape or not np.array_equal(off, off_l):
            raise ValueError("labels: the per-query lists do not match scores (number of queries or sizes)")
        if sc.dtype not in (np.float32, np.float64):
            sc = sc.astype(np.float64)
        return _finish(Layout(sc, lb, off[:-1], np.diff(off)), nan_scores or "error", check_inputs, None)
    sc = score_array(scores)
    lb = label_array(labels)
    if sc.ndim == 2:
        if offsets is not None or group is not None:
            raise ValueError("offsets: only for 1-D (ragged) scores; 2-D scores use lengths or mask")
        if lb.shape != sc.shape:
            raise ValueError(f"labels: shape {lb.shape} does not match scores {sc.shape}")
        nq, ncol = sc.shape
        if nq == 0:
            raise ValueError("scores: empty batch (no queries)")
        if not sc.flags.c_contiguous:
            sc = np.ascontiguousarray(sc)
        if not lb.flags.c_contiguous:
            lb = np.ascontiguousarray(lb)
        starts, full = dense_rows(nq, ncol)
        if mask is not None:
            return _masked(sc, lb, mask, nan_scores or "error", check_inputs)
        if lengths is None:
            lay = Layout(sc.reshape(-1), lb.reshape(-1), starts, full)
            mode = nan_scores or "padding"
            if check_inputs and lb.dtype.kind in "if" and mode == "padding":
                warn_negative(lay)
            return _finish(lay, mode, check_inputs, (nq, ncol))
        lens = int_vector(lengths, "lengths", nq)
        # always checked: a length past its row would read the next query's cells
        if lens.min() < 0:
            raise ValueError(f"lengths: negative length {int(lens.min())}")
        if lens.max() > ncol:
            raise ValueError(f"lengths: length {int(lens.max())} exceeds the {ncol} columns")
        return _finish(Layout(sc.reshape(-1), lb.reshape(-1), starts, lens), nan_scores or "error",
                       check_inputs, (nq, ncol), True)
    if sc.ndim == 1:
        if lengths is not None:
            raise ValueError("lengths: only for 2-D scores; ragged input uses offsets or group")
        if mask is not None:
            raise ValueError("mask: only for 2-D scores")
        if lb.ndim != 1 or lb.shape[0] != sc.shape[0]:
            raise ValueError(f"labels: shape {lb.shape} does not match scores {sc.shape}")
        n = sc.shape[0]
        if group is not None:
            sizes = int_vector(group, "group", None)
            if sizes.size == 0:
                raise ValueError("group: empty batch (no queries)")
            if sizes.min() < 0:
                raise ValueError(f"group: negative group size {int(sizes.min())}")
            off = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
            np.cumsum(sizes, out=off[1:])
            if int(off[-1]) != n:
                raise ValueError(f"group: the group sizes add up to {int(off[-1])}, len(scores) = {n}")
        elif offsets is None:
            raise ValueError("offsets: 1-D scores are a ragged batch and need CSR offsets or group sizes "
                             "(group=; for a single query pass scores[None, :])")
        else:
            off = _offsets(int_vector(offsets, "offsets", None), n, "offsets", True)
        sc_flat = sc if sc.flags.c_contiguous else np.ascontiguousarray(sc)
        lb_flat = lb if lb.flags.c_contiguous else np.ascontiguousarray(lb)
        return _finish(Layout(sc_flat, lb_flat, off[:-1], np.diff(off)), nan_scores or "error", check_inputs, None)
    raise ValueError(f"scores: expected a 2-D (dense) or 1-D (ragged) array, got shape {sc.shape}")


def _masked(sc: np.ndarray, lb: np.ndarray, mask: Any, mode: str, check_inputs: bool) -> Layout:
    m = as_array(mask, "mask")
    if m.dtype.kind != "b":
        raise TypeError(f"mask: expected a boolean array, got dtype {m.dtype}")
    if m.shape != sc.shape:
        raise ValueError(f"mask: shape {m.shape} does not match scores {sc.shape}")
    nq, ncol = sc.shape
    lens = m.sum(axis=1, dtype=np.int64)
    starts, _ = dense_rows(nq, ncol)
    if np.array_equal(m, np.arange(ncol)[None, :] < lens[:, None]):      # a prefix mask: the lengths path
        return _finish(Layout(sc.reshape(-1), lb.reshape(-1), starts, lens), mode, check_inputs, (nq, ncol))
    idx = np.flatnonzero(m)                 # row-major: each row's candidates in column order
    off = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    return _finish(Layout(sc.reshape(-1)[idx], lb.reshape(-1)[idx], off[:-1], lens), mode, check_inputs, None)


def _finish(lay: Layout, mode: str, check_inputs: bool, dense: Optional[Tuple[int, int]],
            lengths_given: bool = False) -> Layout:
    """Apply ``nan_scores``: "padding" leaves NaN cells to the kernel (skipped), "error"
    rejects a non-finite score on a candidate, "last" ranks NaN after every score."""
    if mode == "padding":
        return lay
    sc = lay.sc
    ok = np.isfinite(sc)
    if ok.all():
        return lay
    if mode == "last":
        lay.sc = np.where(np.isnan(sc), -np.inf, sc).astype(sc.dtype, copy=False)
        return lay
    if not check_inputs:
        return lay
    bad = np.flatnonzero(~ok)
    q = np.searchsorted(lay.starts, bad, side="right") - 1
    inside = (q >= 0) & (bad < lay.starts[np.maximum(q, 0)] + lay.lens[np.maximum(q, 0)])
    if not inside.any():
        return lay
    cell = int(bad[inside][0])
    qq = int(q[inside][0])
    if dense and lengths_given:
        where = (f"[{qq}, {cell - int(lay.starts[qq])}], inside lengths[{qq}] = {int(lay.lens[qq])} "
                 "(NaN marks padding only past a row's length)")
    elif dense:
        where = f"[{qq}, {cell - int(lay.starts[qq])}], on a candidate"
    else:
        where = f"{cell} (query {qq}), on a candidate"
    raise ValueError(f"scores: non-finite score {sc[cell]} at {where}: a diverged model? "
                     "(nan_scores='padding' reads NaN as padding, 'last' ranks it last)")


def warn_negative(lay: Layout, stacklevel: int = 4) -> None:
    """Dense rows without lengths or mask whose labels hold a negative value on a scored cell:
    probably padding (-1) counted as candidates."""
    lb = lay.lb
    if lb.dtype.kind == "f":
        if not (lb < 0).any():
            return
    elif lb.size == 0 or lb.min() >= 0:
        return
    neg = (lb < 0) & ~np.isnan(lay.sc)
    if neg.any():
        warnings.warn(NEGATIVE_LABELS, UserWarning, stacklevel=stacklevel + 1)
