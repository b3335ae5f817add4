"""The batch evaluation: measure plans, the native batch kernel, and the trec_eval and
registered families through the ranked lists of the core."""
from __future__ import annotations

import os
import threading
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from irscore import _batch, _ranking
from irscore.batch.arrays import as_array, int_vector
from irscore.batch.layout import Layout, read_layout
from irscore.core import parallel as _parallel
from irscore.core.joined import MAX_GRADE, Joined, ResultCache, relevance_codes
from irscore.core.measures import FAMILIES, Measure, batch_op, empty_kind, resolve
from irscore.core.plan import compile_plan
from irscore.core.registry import EXTERNAL, family_values
from irscore.core.specs import op_code

TIES = ("trec", "input", "average")
# tie modes and error codes of irscore._batch.evaluate_rows: the kernel's own
# (cpdef enums of csrc/irscore/_batch.pxd); op kinds: the one op enum of the
# native measure library (csrc/irscore/_measurelib.pxd), shared with _ranking
TIE_CODES = _TIE_CODE = {"trec": int(_batch.Ties.TIES_TREC), "input": int(_batch.Ties.TIES_INPUT),
             "average": int(_batch.Ties.TIES_AVERAGE)}
_Op = _batch.OpKind
_NDCG, _DCG, _AP, _P, _R, _RR, _RPREC, _SUCCESS, _NUM_RET, _NUM_REL, _NUM_REL_RET = (
    _Op.K_NDCG, _Op.K_DCG, _Op.K_MAP, _Op.K_P, _Op.K_RECALL, _Op.K_RECIP_RANK, _Op.K_RPREC, _Op.K_SUCCESS,
    _Op.K_NUM_RET, _Op.K_NUM_REL, _Op.K_NUM_REL_RET)
_USES_R = {_AP, _R, _RPREC, _NUM_REL}

FLOAT_DEFAULT_THR = _FLOAT_DEFAULT_THR = 5e-324     # "label > 0" as label >= the smallest positive double
PARALLEL_MIN_CELLS = _PARALLEL_MIN_CELLS = 200_000  # default n_jobs: one thread below this many cells
_EMPTY_I64 = np.zeros(0, dtype=np.int64)
_EMPTY_I64_2D = np.zeros((0, 1), dtype=np.int64)

# ``empty=``: the 0/0 measures, whose value divides by the relevant documents
# ("rel") or by the ideal DCG ("gain"): core.measures.empty_kind, from each
# measure's declaration (``empty`` of irscore.core.specs)


def check_empty(empty: Any) -> float:
    """The value of ``empty=`` as a float (0, 1, nan or any finite number)."""
    if isinstance(empty, bool) or not isinstance(empty, (int, float, np.integer, np.floating)):
        raise TypeError(f"empty: expected a number (0, 1) or nan, got {empty!r}")
    value = float(empty)
    if np.isinf(value):
        raise ValueError(f"empty: expected a finite number or nan, got {empty!r}")
    return value


# ------------------------------------------------------------------ measure plans

class _Plan:
    __slots__ = ("keys", "native", "op_kind", "op_k", "op_thr", "op_gain", "op_disc", "other",
                 "uses_r_levels", "empties")

    def __init__(self) -> None:
        self.keys: List[str] = []
        self.native: List[int] = []            # index into keys of each native op
        self.other: List[Tuple[int, str, Measure]] = []
        self.uses_r_levels: set = set()
        self.empties: List[Tuple[str, str, float]] = []   # (key, "rel" | "gain", level) of the 0/0 measures
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
    op = batch_op(m)        # the declaration's batch op (None: judged_only, a parameter string, no batch op)
    if op is None:
        return None
    k = -1 if m.cutoff is None else int(m.cutoff)
    return op_code(op), k, _batch.GAIN_KINDS[m.gain], _batch.DISCOUNT_KINDS[m.discount]


def plan_for(measures: Any, float_labels: bool, level: Optional[float]) -> _Plan:
    """The (cached) plan of ``measures`` for integer or float labels at ``level``."""
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
        ek = empty_kind(m) if m.family in FAMILIES else None
        if ek is not None:
            p.empties.append((name, ek, _level_thr(m, float_labels, level)))
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

def check_options(ties: str, n_jobs: Optional[int], relevance_level: Optional[float]) -> None:
    """The options shared by [`evaluate`][irscore.batch.engine.evaluate] and [`irscore.batch.Evaluator`][irscore.batch.Evaluator]."""
    if ties not in _TIE_CODE:
        raise ValueError(f"ties: expected one of {', '.join(map(repr, TIES))}, got {ties!r}")
    _parallel.check_n_jobs(n_jobs)
    if relevance_level is not None and (isinstance(relevance_level, bool) or
                                        not isinstance(relevance_level, (int, float, np.integer, np.floating))
                                        or not np.isfinite(relevance_level)):
        raise TypeError(f"relevance_level: expected a finite number, got {relevance_level!r}")


def evaluate(scores: Any, labels: Any, measures: Union[str, Sequence[str]], *,
             lengths: Any = None, offsets: Any = None, group: Any = None, mask: Any = None,
             n_relevant: Any = None, ties: str = "trec", relevance_level: Optional[float] = None,
             empty: float = 0.0, nan_scores: Optional[str] = None,
             check_inputs: bool = True, n_jobs: Optional[int] = None) -> Dict[str, np.ndarray]:
    """Evaluate every query of a batch; ``{name as asked: float64 array (n_queries,)}``.

    The queries come as dense 2-D rows (all columns, or ``lengths``, or ``mask``,
    or NaN-score padding), as 1-D ragged arrays (``offsets`` or ``group``), or as
    per-query lists of 1-D arrays / tensors (or torch nested tensors); see the
    module documentation.

    Parameters
    ----------
    scores : array_like
        Scores, 2-D ``(n_queries, n_candidates)``, 1-D with ``offsets`` or
        ``group``, or a list of 1-D arrays (one per query) / a nested tensor.
    labels : array_like
        Relevance labels, same layout as ``scores``.
    measures : str or sequence of str
        One name or a list (names of `irscore.core.measures` and the registered
        families).
    lengths : array_like of int, optional, keyword-only
        Valid candidates of each row of 2-D input (a prefix of the row).
    offsets : array_like of int, optional, keyword-only
        CSR offsets of 1-D input (``n_queries + 1`` increasing integers from 0 to
        ``len(scores)``).
    group : array_like of int, optional, keyword-only
        Group sizes of 1-D input, LightGBM style (documents per query, in order):
        the same as ``offsets=[0, *cumsum(group)]``.
    mask : array_like of bool, optional, keyword-only
        Same shape as 2-D ``scores``; True marks a candidate (any pattern; the
        candidates keep their column order, so the tie rules hold).
    n_relevant : array_like of int, optional
        The judged set: 1-D relevant documents per query, or 2-D judged documents
        per grade (see the module documentation).
    ties : {'trec', 'input', 'average'}, default 'trec'
        Order of equal scores, or the expected value over their orders.
    relevance_level : float, optional
        Label threshold of relevance (default 1 for integer labels, label > 0 for
        float labels).
    empty : float, default 0.0
        The value of the 0/0 measures (see the module documentation) on a query
        without relevant documents: 0 (trec_eval), 1 (LightGBM's and XGBoost's
        ndcg) or nan (leave the query out of a ``nanmean``).
    nan_scores : {'error', 'padding', 'last'}, optional
        A NaN score on a candidate: ``'error'`` raises ``ValueError`` (NaN and
        infinite scores), ``'padding'`` drops the cell, ``'last'`` ranks it after
        every other candidate.  Default: ``'padding'`` for plain 2-D scores (NaN
        cells are padding), ``'error'`` whenever ``lengths``, ``mask``,
        ``offsets``, ``group`` or per-query lists say which cells are candidates.
    check_inputs : bool, default True
        False skips the checks that only protect the meaning of the result (the
        per-grade ``n_relevant`` counts, non-finite scores on candidates, the
        negative-label warning); the memory-safety checks always run.
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
        Malformed arrays (a GPU tensor included), unknown measures, bad options,
        a non-finite score on a candidate (``nan_scores='error'``).

    Warns
    -----
    UserWarning
        Plain 2-D labels with a negative value on a scored cell and neither
        ``lengths`` nor ``mask``: padding (-1) counted as candidates?
    """
    check_options(ties, n_jobs, relevance_level)
    empty_value = check_empty(empty)
    lay = read_layout(scores, labels, lengths=lengths, offsets=offsets, group=group, mask=mask,
                      nan_scores=nan_scores, check_inputs=check_inputs)
    plan = plan_for(measures, lay.float_labels, relevance_level)
    return run(plan, lay, n_relevant, ties, relevance_level, empty_value, check_inputs, n_jobs)


def run(plan: _Plan, lay: Layout, n_relevant: Any, ties: str, relevance_level: Optional[float],
        empty: float, check_inputs: bool, n_jobs: Optional[int]) -> Dict[str, np.ndarray]:
    """A planned evaluation of a read layout (the part of [`evaluate`][irscore.batch.engine.evaluate] after parsing)."""
    sc_flat, lb_flat, starts, lens, nq = lay.sc, lay.lb, lay.starts, lay.lens, lay.nq
    float_labels = lay.float_labels
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
    if plan.other and ties == "average":
        names = ", ".join(n for _, n, _ in plan.other)
        raise ValueError(f"ties='average' is available for AP, nDCG/DCG, P, R, R-prec, RR and Success; "
                         f"not for {names}")
    # the measures outside the batch kernel take the kernel's rank order: each
    # query is sorted once, whatever the mix of measures
    ranked: Optional[Tuple[np.ndarray, np.ndarray]] = None
    order_args: Tuple[Any, ...] = ()
    if plan.other:
        q_valid, idx_valid = _valid_cells(sc_flat, starts, lens)
        order_off = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(np.bincount(q_valid, minlength=nq), out=order_off[1:])
        ranked = (q_valid, np.empty(idx_valid.shape[0], dtype=np.int64))
        order_args = (order_off, ranked[1])
    if plan.native or plan.other:
        res = np.empty((nq, len(plan.native)), dtype=np.float64)
        cells = int(sc_flat.shape[0])
        nt = 1 if (n_jobs is None and cells < _PARALLEL_MIN_CELLS) or n_jobs == 1 else _n_threads(n_jobs, nq, cells)
        args = (plan.op_kind, plan.op_k, plan.op_thr, plan.op_gain, plan.op_disc, _TIE_CODE[ties],
                level_default, extra_label, nrel_mode, nrel1, nrel2, res) + order_args
        if nt == 1:
            results = [_batch.evaluate_rows(sc_flat, lb_flat, starts, lens, 0, nq, *args)]
        else:
            results = _parallel.run(lambda lo, hi: _batch.evaluate_rows(sc_flat, lb_flat, starts, lens, lo, hi,
                                                                        *args),
                                    _parallel.ranges(nq, nt))
        for code, row in results:
            if code == _batch.Error.E_LABEL:
                raise ValueError(f"labels: NaN or infinite label at a scored position of query {row}")
            if code == _batch.Error.E_NREL:
                raise ValueError(f"n_relevant: n_relevant[{row}] = {int(nrel1[row])} is less than the "
                                 f"number of relevant candidates of query {row}")
        for j, i in enumerate(plan.native):
            out[plan.keys[i]] = res[:, j]
    if ranked is not None:
        out.update(_other_measures(plan, sc_flat, lb_flat, ranked, nq, relevance_level, float_labels, nrel_mode,
                                   nrel1, nrel2))
    if empty != 0.0 and plan.empties:
        _apply_empty(out, plan, lay, empty, level_default, nrel_mode, nrel1, nrel2)
    return {k: out[k] for k in plan.keys}


def _apply_empty(out: Dict[str, np.ndarray], plan: _Plan, lay: Layout, empty: float, level_default: float,
                 nrel_mode: int, nrel1: np.ndarray, nrel2: np.ndarray) -> None:
    """Set the 0/0 measures of the queries without relevant documents to ``empty``."""
    ends = lay.starts + lay.lens
    padding = np.isnan(lay.sc)
    lb = lay.lb
    cache: Dict[Tuple[str, float], np.ndarray] = {}

    def candidates(flag: np.ndarray) -> np.ndarray:
        cs = np.zeros(flag.shape[0] + 1, dtype=np.int64)
        np.cumsum(flag & ~padding, out=cs[1:])
        return cs[ends] - cs[lay.starts]

    for key, kind, thr in plan.empties:
        none = cache.get((kind, thr))
        if none is None:
            if kind == "gain":          # the ideal DCG is 0: no document with a positive gain
                have = candidates(lb > 0)
                if nrel_mode == 1:
                    have = have + nrel1
                elif nrel_mode == 2:
                    have = nrel2[:, 1:].sum(axis=1)
            else:                       # no relevant document at the measure's level
                if nrel_mode == 2:
                    g0 = max(int(np.ceil(thr)), 0)
                    have = nrel2[:, g0:].sum(axis=1)
                else:
                    have = candidates(lb >= np.float64(thr))   # float32 labels: compare in float64
                    if nrel_mode == 1:
                        have = np.maximum(have, nrel1) if thr == level_default else have
            none = cache[(kind, thr)] = have == 0
        if none.any():
            v = out[key] = out[key].copy()
            v[none] = empty


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


def _other_measures(plan: _Plan, sc: np.ndarray, lb: np.ndarray, ranked: Tuple[np.ndarray, np.ndarray],
                    nq: int, relevance_level: Optional[float], float_labels: bool,
                    nrel_mode: int, nrel1: np.ndarray, nrel2: np.ndarray) -> Dict[str, np.ndarray]:
    """trec_eval families without a batch kernel and registered families: ranked
    relevance lists (irscore.core.joined.Joined) through the same code as evaluate().
    ``ranked``: the query of every valid candidate (ascending) and the flat
    indices of the candidates in the batch kernel's rank order."""
    level = 1 if relevance_level is None else relevance_level
    if float(level) != int(level):
        raise ValueError(f"relevance_level: {plan.other[0][1]} needs an integer level, got {level}")
    level = int(level)
    q, idx = ranked
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
    s = sc[idx].astype(np.float64)
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
