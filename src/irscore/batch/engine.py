"""The batch evaluation: measure plans, the native batch kernel, and the trec_eval and
registered families through the ranked lists of the core."""
from __future__ import annotations

import os
import threading
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from irscore import _batch, _ranking
from irscore.core import parallel as _parallel
from irscore.batch.arrays import as_array, int_vector, label_array, score_array
from irscore.core.joined import Joined, MAX_GRADE, ResultCache, rank_order, relevance_codes
from irscore.core.measures import FAMILIES, Measure, compile_plan, resolve
from irscore.core.registry import EXTERNAL, family_values


TIES = ("trec", "input", "average")
# tie modes, op kinds and error codes of irscore._batch.evaluate_rows: the
# kernel's own (cpdef enums of csrc/irscore/_batch.pxd)
_TIE_CODE = {"trec": int(_batch.Ties.TIES_TREC), "input": int(_batch.Ties.TIES_INPUT),
             "average": int(_batch.Ties.TIES_AVERAGE)}
_Op = _batch.Op
_NDCG, _DCG, _AP, _P, _R, _RR, _RPREC, _SUCCESS, _NUM_RET, _NUM_REL, _NUM_REL_RET = (
    _Op.K_NDCG, _Op.K_DCG, _Op.K_AP, _Op.K_P, _Op.K_R, _Op.K_RR, _Op.K_RPREC, _Op.K_SUCCESS,
    _Op.K_NUM_RET, _Op.K_NUM_REL, _Op.K_NUM_REL_RET)
_USES_R = {_AP, _R, _RPREC, _NUM_REL}

_FLOAT_DEFAULT_THR = 5e-324          # "label > 0" as label >= the smallest positive double
_PARALLEL_MIN_CELLS = 200_000        # default n_jobs: one thread below this many cells
_EMPTY_I64 = np.zeros(0, dtype=np.int64)
_EMPTY_I64_2D = np.zeros((0, 1), dtype=np.int64)

def _check_finite_within(sc: np.ndarray, lens: np.ndarray) -> None:
    """With explicit ``lengths`` every candidate must have a finite score: a NaN
    there is a diverged model, not padding."""
    ok = np.isfinite(sc)
    if ok.all():
        return
    bad = ~ok & (np.arange(sc.shape[1])[None, :] < lens[:, None])
    if bad.any():
        q, c = (int(x) for x in np.argwhere(bad)[0])
        raise ValueError(f"scores: non-finite score {sc[q, c]} at [{q}, {c}], inside lengths[{q}] = "
                         f"{int(lens[q])} (NaN marks padding only past a row's length)")


# ------------------------------------------------------------------ measure plans

class _Plan:
    __slots__ = ("keys", "native", "op_kind", "op_k", "op_thr", "op_gain", "op_disc", "other",
                 "uses_r_levels")

    def __init__(self) -> None:
        self.keys: List[str] = []
        self.native: List[int] = []            # index into keys of each native op
        self.other: List[Tuple[int, str, Measure]] = []
        self.uses_r_levels: set = set()
        self.op_kind: np.ndarray = np.zeros(0, dtype=np.int32)
        self.op_k: np.ndarray = np.zeros(0, dtype=np.int64)
        self.op_thr: np.ndarray = np.zeros(0, dtype=np.float64)
        self.op_gain: np.ndarray = np.zeros(0, dtype=np.int32)
        self.op_disc: np.ndarray = np.zeros(0, dtype=np.int32)


_PLANS: Dict[Any, _Plan] = {}
_PLANS_LOCK = threading.Lock()


def _new_plans_lock() -> None:          # a lock held by another thread at fork stays held in the child
    global _PLANS_LOCK
    _PLANS_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_plans_lock)


def _level_thr(m: Measure, float_labels: bool, level: Optional[float]) -> float:
    if m.rel is not None:
        return float(m.rel)
    if level is not None:
        return float(level)
    return _FLOAT_DEFAULT_THR if float_labels else 1.0


def _native(m: Measure) -> Optional[Tuple[int, int, int, int]]:
    """(kind, cutoff or -1, gain kind, discount kind) of a measure the batch kernel computes."""
    f, k = m.family, (-1 if m.cutoff is None else int(m.cutoff))
    if m.judged_only:       # the ranked-list kernels drop the unjudged candidates
        return None
    if f == "ndcg" and m.params is None:
        return _NDCG, -1, 0, 0
    if f == "ndcg_cut" and m.params is None:
        return _NDCG, k, 0, 0
    if f == "dcg" and m.params is None:
        return _DCG, -1, 0, 0
    if f == "dcg_cut":
        norm = dict(m.extra).get("normalize", "1") == "1"
        return (_NDCG if norm else _DCG), k, _batch.GAIN_KINDS[m.gain], _batch.DISCOUNT_KINDS[m.discount]
    simple = {"map": _AP, "map_cut": _AP, "P": _P, "recall": _R, "recip_rank": _RR, "Rprec": _RPREC,
              "success": _SUCCESS, "num_ret": _NUM_RET, "num_rel": _NUM_REL, "num_rel_ret": _NUM_REL_RET}
    if f in simple:
        return simple[f], k, 0, 0
    return None


def _plan(measures: Any, float_labels: bool, level: Optional[float]) -> _Plan:
    key: Any = (measures if isinstance(measures, str) else tuple(measures), float_labels, level)
    try:
        p = _PLANS.get(key)
    except TypeError:       # unhashable items: report them below
        p, key = None, None
    if p is not None:
        return p
    items = resolve(measures)
    p = _Plan()
    kinds, ks, thrs, gains, discs = [], [], [], [], []
    for i, (name, m) in enumerate(items):
        p.keys.append(name)
        nat = _native(m) if m.family in FAMILIES else None
        if nat is None:
            p.other.append((i, name, m))
            continue
        kind, k, gk, dk = nat
        p.native.append(i)
        kinds.append(kind)
        ks.append(k)
        thrs.append(_level_thr(m, float_labels, level))
        gains.append(gk)
        discs.append(dk)
        if kind in _USES_R:
            p.uses_r_levels.add(m.rel)
    p.op_kind = np.asarray(kinds, dtype=np.int32)
    p.op_k = np.asarray(ks, dtype=np.int64)
    p.op_thr = np.asarray(thrs, dtype=np.float64)
    p.op_gain = np.asarray(gains, dtype=np.int32)
    p.op_disc = np.asarray(discs, dtype=np.int32)
    if key is not None:
        with _PLANS_LOCK:
            if len(_PLANS) > 256:
                _PLANS.clear()
            _PLANS[key] = p
    return p


# ------------------------------------------------------------------ threads

def _n_threads(n_jobs: Optional[int], nq: int, cells: int) -> int:
    return max(1, min(_parallel.n_threads(n_jobs, cells, _PARALLEL_MIN_CELLS), nq))


# ------------------------------------------------------------------ evaluate

def evaluate(scores: Any, labels: Any, measures: Union[str, Sequence[str]], *,
             lengths: Any = None, offsets: Any = None, n_relevant: Any = None,
             ties: str = "trec", relevance_level: Optional[float] = None,
             check_inputs: bool = True, n_jobs: Optional[int] = None) -> Dict[str, np.ndarray]:
    """Evaluate every query of a batch; ``{name as asked: float64 array (n_queries,)}``.

    ``scores``/``labels``: 2-D ``(n_queries, n_candidates)`` (``lengths`` or
    NaN scores mark padding; with ``lengths`` the scores inside each row's
    length must be finite) or 1-D with CSR ``offsets`` (``n_queries + 1``
    increasing integers, ``offsets[0] == 0``, ``offsets[-1] == len(scores)``).
    ``n_relevant``: see the module documentation (default: the candidates are
    the judged set).  ``ties``: ``"trec"``, ``"input"`` or ``"average"``.
    ``relevance_level``: label threshold of relevance (default 1 for integer
    labels, label > 0 for float labels).  ``check_inputs=False`` skips the
    checks that only protect the meaning of the result (the per-grade
    ``n_relevant`` counts against the candidates, finite scores inside
    ``lengths``); the ones that protect memory
    always run, and the kernel checks every row's range again.
    ``n_jobs``: threads (default: all cores for batches of at least 200,000
    candidates, else one); results do not depend on it.

    Parameters
    ----------
    scores : array_like
        Scores, 2-D ``(n_queries, n_candidates)`` or 1-D with ``offsets``.
    labels : array_like
        Relevance labels, same shape as ``scores``.
    measures : str or sequence of str
        One name or a list (names of :mod:`irscore.core.measures` and the registered
        families).
    lengths : array_like of int, optional, keyword-only
        Valid candidates of each row of 2-D input.
    offsets : array_like of int, optional, keyword-only
        CSR offsets of 1-D input.
    n_relevant : array_like of int, optional
        The judged set: 1-D relevant documents per query, or 2-D judged documents
        per grade (see the module documentation).
    ties : {'trec', 'input', 'average'}, default 'trec'
        Order of equal scores, or the expected value over their orders.
    relevance_level : float, optional
        Label threshold of relevance (default 1 for integer labels, label > 0 for
        float labels).
    check_inputs : bool, default True
        False skips the checks that only protect the meaning of the result (the
        memory-safety checks always run).
    n_jobs : int, optional
        Threads: a positive integer exactly that many, -1 all cores, ``None`` all
        cores for batches of at least 200,000 candidates (else one); results do
        not depend on it.

    Returns
    -------
    dict of str to ndarray
        ``{name as asked: float64 array (n_queries,)}``.

    Raises
    ------
    ValueError, TypeError
        Malformed arrays (a GPU tensor included), unknown measures, bad options.
    """
    if ties not in _TIE_CODE:
        raise ValueError(f"ties: expected one of {', '.join(map(repr, TIES))}, got {ties!r}")
    _parallel.check_n_jobs(n_jobs)
    if relevance_level is not None and (isinstance(relevance_level, bool) or
                                        not isinstance(relevance_level, (int, float, np.integer, np.floating))
                                        or not np.isfinite(relevance_level)):
        raise TypeError(f"relevance_level: expected a finite number, got {relevance_level!r}")
    sc = score_array(scores)
    lb = label_array(labels)
    if sc.ndim == 2:
        if offsets is not None:
            raise ValueError("offsets: only for 1-D (ragged) scores; 2-D scores use lengths")
        if lb.shape != sc.shape:
            raise ValueError(f"labels: shape {lb.shape} does not match scores {sc.shape}")
        nq, ncol = sc.shape
        if nq == 0:
            raise ValueError("scores: empty batch (no queries)")
        if not sc.flags.c_contiguous:
            sc = np.ascontiguousarray(sc)
        if not lb.flags.c_contiguous:
            lb = np.ascontiguousarray(lb)
        starts, full = _dense_rows(nq, ncol)
        if lengths is None:
            lens = full
        else:
            lens = int_vector(lengths, "lengths", nq)
            # always checked: a length past its row would read the next query's cells
            if lens.min() < 0:
                raise ValueError(f"lengths: negative length {int(lens.min())}")
            if lens.max() > ncol:
                raise ValueError(f"lengths: length {int(lens.max())} exceeds the {ncol} columns")
            if check_inputs:
                _check_finite_within(sc, lens)
        sc_flat: np.ndarray = sc.reshape(-1)
        lb_flat: np.ndarray = lb.reshape(-1)
    elif sc.ndim == 1:
        if offsets is None:
            raise ValueError("offsets: 1-D scores are a ragged batch and need CSR offsets "
                             "(for a single query pass scores[None, :])")
        if lengths is not None:
            raise ValueError("lengths: only for 2-D scores; ragged input uses offsets")
        if lb.ndim != 1 or lb.shape[0] != sc.shape[0]:
            raise ValueError(f"labels: shape {lb.shape} does not match scores {sc.shape}")
        off = int_vector(offsets, "offsets", None)
        if off.shape[0] < 2:
            raise ValueError("offsets: empty batch (offsets needs n_queries + 1 >= 2 values)")
        if off[0] != 0 or off[-1] != sc.shape[0]:
            raise ValueError(f"offsets: must start at 0 and end at len(scores) = {sc.shape[0]}, "
                             f"got {int(off[0])} .. {int(off[-1])}")
        d = np.diff(off)
        if d.min() < 0:
            raise ValueError(f"offsets: not increasing (offsets[{int(np.argmin(d)) + 1}] < the value before)")
        nq = off.shape[0] - 1
        starts = off[:-1]
        lens = d
        sc_flat = sc if sc.flags.c_contiguous else np.ascontiguousarray(sc)
        lb_flat = lb if lb.flags.c_contiguous else np.ascontiguousarray(lb)
    else:
        raise ValueError(f"scores: expected a 2-D (dense) or 1-D (ragged) array, got shape {sc.shape}")

    float_labels = lb.dtype.kind == "f"
    plan = _plan(measures, float_labels, relevance_level)
    if relevance_level is not None:
        level_default = float(relevance_level)
    else:
        level_default = _FLOAT_DEFAULT_THR if float_labels else 1.0

    # n_relevant
    nrel_mode = 0
    nrel1: np.ndarray = _EMPTY_I64
    nrel2: np.ndarray = _EMPTY_I64_2D
    extra_label = 0.0
    if n_relevant is not None:
        nr = as_array(n_relevant, "n_relevant")
        if nr.ndim == 1:
            nrel1 = int_vector(nr, "n_relevant", nq)
            if nrel1.size and nrel1.min() < 0:
                raise ValueError("n_relevant: negative count")
            nrel_mode = 1
            extra_label = 1.0 if (relevance_level is None and float_labels) else float(level_default)
            bad = [lv for lv in plan.uses_r_levels if lv is not None and float(lv) != level_default]
            if bad:
                raise ValueError("n_relevant: a 1-D count holds at one relevance level only; measures with "
                                 f"rel={bad[0]} need per-grade counts (2-D n_relevant)")
        elif nr.ndim == 2:
            if nr.shape[0] != nq or nr.shape[1] < 1:
                raise ValueError(f"n_relevant: expected shape ({nq}, n_grades), got {nr.shape}")
            if nr.dtype.kind not in "iu":
                raise TypeError(f"n_relevant: expected an integer array, got dtype {nr.dtype}")
            nrel2 = np.ascontiguousarray(nr, dtype=np.int64)
            if nrel2.min() < 0:
                raise ValueError("n_relevant: negative count")
            nrel_mode = 2
            if check_inputs:
                _check_grade_counts(sc_flat, lb_flat, starts, lens, nrel2)
        else:
            raise ValueError(f"n_relevant: expected a 1-D or 2-D array, got shape {nr.shape}")

    out: Dict[str, np.ndarray] = {}
    if plan.native:
        res = np.empty((nq, len(plan.native)), dtype=np.float64)
        nt = _n_threads(n_jobs, nq, int(sc_flat.shape[0]))
        args = (plan.op_kind, plan.op_k, plan.op_thr, plan.op_gain, plan.op_disc, _TIE_CODE[ties],
                level_default, extra_label, nrel_mode, nrel1, nrel2, res)
        results = _parallel.run(lambda lo, hi: _batch.evaluate_rows(sc_flat, lb_flat, starts, lens, lo, hi, *args),
                                _parallel.ranges(nq, nt))
        for code, row in results:
            if code == _batch.Error.E_LABEL:
                raise ValueError(f"labels: NaN or infinite label at a scored position of query {row}")
            if code == _batch.Error.E_NREL:
                raise ValueError(f"n_relevant: n_relevant[{row}] = {int(nrel1[row])} is less than the "
                                 f"number of relevant candidates of query {row}")
        for j, i in enumerate(plan.native):
            out[plan.keys[i]] = res[:, j]
    if plan.other:
        if ties == "average":
            names = ", ".join(n for _, n, _ in plan.other)
            raise ValueError(f"ties='average' is available for AP, nDCG/DCG, P, R, R-prec, RR and Success; "
                             f"not for {names}")
        vals = _other_measures(plan, sc_flat, lb_flat, starts, lens, nq, ties, relevance_level,
                               float_labels, nrel_mode, nrel1, nrel2)
        out.update(vals)
    return {k: out[k] for k in plan.keys}


_DENSE: Dict[Tuple[int, int], Tuple[np.ndarray, np.ndarray]] = {}


def _dense_rows(nq: int, ncol: int) -> Tuple[np.ndarray, np.ndarray]:
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


def _check_grade_counts(sc: np.ndarray, lb: np.ndarray, starts: np.ndarray, lens: np.ndarray,
                        counts: np.ndarray) -> None:
    q, idx = _valid_cells(sc, starts, lens)
    lab = lb[idx]
    if lab.dtype.kind == "f":
        if not np.all(lab == np.round(lab)):
            raise ValueError("labels: per-grade n_relevant needs integer labels")
    G = counts.shape[1]
    lab = lab.astype(np.int64)
    pos = lab >= 0
    if pos.any() and lab[pos].max() >= G:
        raise ValueError(f"labels: grade {int(lab[pos].max())} has no column in n_relevant (n_grades = {G})")
    have = np.bincount(q[pos] * G + lab[pos], minlength=counts.size).reshape(counts.shape)
    if np.any(have > counts):
        qq, gg = np.argwhere(have > counts)[0]
        raise ValueError(f"n_relevant: query {qq} has {have[qq, gg]} candidates of grade {gg} but "
                         f"n_relevant[{qq}, {gg}] = {counts[qq, gg]}")


def _valid_cells(sc: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(query, flat index) of every non-padding cell, in query then column order."""
    nq = starts.shape[0]
    q = np.repeat(np.arange(nq, dtype=np.int64), lens)
    first = np.repeat(starts - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
    idx = first + np.arange(q.shape[0], dtype=np.int64)
    keep = ~np.isnan(sc[idx])
    return q[keep], idx[keep]


def _other_measures(plan: _Plan, sc: np.ndarray, lb: np.ndarray, starts: np.ndarray, lens: np.ndarray,
                    nq: int, ties: str, relevance_level: Optional[float], float_labels: bool,
                    nrel_mode: int, nrel1: np.ndarray, nrel2: np.ndarray) -> Dict[str, np.ndarray]:
    """trec_eval families without a batch kernel and registered families: ranked
    relevance lists (irscore.core.joined.Joined) through the same code as evaluate()."""
    level = 1 if relevance_level is None else relevance_level
    if float(level) != int(level):
        raise ValueError(f"relevance_level: {plan.other[0][1]} needs an integer level, got {level}")
    level = int(level)
    q, idx = _valid_cells(sc, starts, lens)
    lab = lb[idx]
    if float_labels:
        if not np.all(np.isfinite(lab)):
            raise ValueError("labels: NaN or infinite label at a scored position")
        if not np.all(lab == np.round(lab)):
            names = ", ".join(n for _, n, _ in plan.other)
            raise ValueError(f"labels: {names} need integer grades; got non-integer float labels")
    lab = lab.astype(np.int64)
    if lab.size and lab.max() > MAX_GRADE:
        raise ValueError(f"labels: grade {int(lab.max())} is too large (at most {MAX_GRADE})")
    col = idx - np.repeat(starts, np.bincount(q, minlength=nq))
    s = sc[idx].astype(np.float64)
    order = rank_order(q, s, col, ties)
    q, lab, s = q[order], lab[order], s[order]
    rel = relevance_codes(lab)
    counts = np.bincount(q, minlength=nq).astype(np.int64)
    off = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(counts, out=off[1:])
    if nrel_mode == 2:
        levels = nrel2.copy()
    else:
        G = max(int(lab.max()) if lab.size else 0, level if nrel_mode == 1 else 0, 0) + 1
        pos = lab >= 0
        levels = np.bincount(q[pos] * G + lab[pos], minlength=nq * G).reshape(nq, G).astype(np.int64)
        if nrel_mode == 1:
            have = levels[:, max(level, 0):].sum(axis=1)
            levels[:, max(level, 0)] += np.maximum(nrel1 - have, 0)
    # Rocchio's default collection size: the candidates, plus the judged
    # documents that n_relevant places outside them
    judged_in = np.bincount(q[lab >= 0], minlength=nq).astype(np.int64)
    n_coll = counts + np.maximum(levels.sum(axis=1) - judged_in, 0)
    joined = Joined([str(i) for i in range(nq)], rel, s, off, np.ascontiguousarray(levels), [],
                    np.zeros(nq, dtype=bool), 0, n_coll)
    items = [(name, m) for _, name, m in plan.other]
    cplan = compile_plan(items, level, 0.0)
    result: Dict[str, np.ndarray] = {}
    if cplan.ncols:
        matrix = np.zeros((nq, cplan.ncols), dtype=np.float64)
        _ranking.compute(joined.rel, joined.offsets, joined.levels,
                         np.asarray(cplan.kinds, dtype=np.int32), np.asarray(cplan.levels, dtype=np.int64),
                         np.asarray(cplan.cols, dtype=np.int64), np.asarray(cplan.par_off, dtype=np.int64),
                         np.asarray(cplan.params, dtype=np.float64), matrix)
    cache = ResultCache()
    for o in cplan.outputs:
        if o.measure.family in EXTERNAL:
            v = family_values(joined, o.measure, level, cache)
            result[o.key] = np.ascontiguousarray(v)
        elif o.column >= 0:
            v = matrix[:, o.column].copy()
            if o.family.agg == "gm":
                v = np.exp(v)
            result[o.key] = v
        else:
            raise ValueError(f"measure {o.key!r} is not numeric")
    return result
