"""``evaluate()``: align queries, join the run with the qrels, run the kernels,
aggregate as trec_eval does."""
from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from irscore import _ranking
from irscore.core import parallel as _parallel
from irscore.core.aggregate import running_mean, running_sum
from irscore.core.checks import MAX_CUTOFF
from irscore.core.data import Qrels, Run
from irscore.core.io import as_qrels, as_run
from irscore.core.joined import Joined, ResultCache, join
from irscore.core.measures import Measure, Output, compile_plan, resolve
from irscore.core.registry import EXTERNAL, family_values


@dataclass
class Evaluation:
    """Per-query values (``matrix[e, column]``) plus what aggregation needs."""

    joined: Joined
    outputs: List[Output]
    matrix: np.ndarray
    run_id: str
    qrels: Qrels
    complete: bool

    def per_query(self, out: Output) -> np.ndarray:
        v = self.matrix[:, out.column].copy()
        if out.family.agg == "gm":
            v = np.exp(v)
        return v

    def aggregate(self, out: Output) -> float:
        f = out.family
        col = self.matrix[:, out.column]
        n = col.shape[0]
        # sums run query by query in trec_eval's query order (running_sum)
        if f.agg == "mean":
            return running_sum(col) / n
        if f.agg == "nanmean":
            ok = ~np.isnan(col)
            return running_mean(col[ok])
        if f.agg == "sum":
            return running_sum(col)
        if f.agg == "num_q":
            return float(n)
        if f.agg == "num_rel":
            # trec_eval's te_calc_avg_num_rel rule, for its own num_rel only
            if self.complete and out.measure.rel is None:
                return float((self.qrels.grades > 0).sum())
            return running_sum(col)
        if f.agg == "gm":
            return float(math.exp(running_sum(col) / n))
        raise ValueError(f"measure {out.key!r} has no numeric summary")


def _bogus_zeroed(m: Measure) -> bool:
    """trec_eval resets these values for a query without a ranking under -c: it
    compares the printed name with "num_ret", "utility", "rbp_resid" (so not
    "utility_2,-1,0,0" or "rbp_resid_p=0.8") and its first three letters with "unj"."""
    if m.family in ("num_ret", "unj"):
        return True
    return m.family in ("utility", "rbp_resid") and m.params is None


def run_plan(qrels: Qrels, run: Run, items: Sequence[Tuple[str, Measure]], *, relevance_level: int = 1,
             complete: bool = False, judged_only: bool = False, max_docs: Optional[int] = None,
             num_docs_in_coll: float = 0.0, n_jobs: Optional[int] = None) -> Evaluation:
    if not isinstance(num_docs_in_coll, (int, float, np.integer, np.floating)) or isinstance(num_docs_in_coll, bool) \
            or not 0 <= num_docs_in_coll <= MAX_CUTOFF:
        raise ValueError(f"num_docs_in_coll must be a number in [0, 2**62], got {num_docs_in_coll!r}")
    plan = compile_plan(items, relevance_level, num_docs_in_coll)
    joined = join(qrels, run, complete=complete, judged_only=judged_only, max_docs=max_docs, n_jobs=n_jobs)
    if num_docs_in_coll and num_docs_in_coll > 0:
        joined = dataclasses.replace(joined, num_docs_in_coll=int(num_docs_in_coll))
    nq = len(joined.query_ids)
    matrix = np.zeros((nq, plan.ncols), dtype=np.float64)
    ops = (np.asarray(plan.kinds, dtype=np.int32), np.asarray(plan.levels, dtype=np.int64),
           np.asarray(plan.cols, dtype=np.int64), np.asarray(plan.par_off, dtype=np.int64),
           np.asarray(plan.params, dtype=np.float64))

    def compute(lo: int, hi: int) -> None:
        _ranking.compute(joined.rel, joined.offsets, joined.levels, *ops, matrix, lo, hi)

    threads = _parallel.n_threads(n_jobs, int(joined.offsets[-1]) * max(1, len(plan.kinds)))
    _parallel.run(compute, _parallel.ranges_by_offsets(joined.offsets, threads))
    if complete and joined.bogus.any():
        for out in plan.outputs:
            if out.column >= 0 and _bogus_zeroed(out.measure):
                matrix[joined.bogus, out.column] = 0.0
    ext = [o for o in plan.outputs if o.measure.family in EXTERNAL]
    if ext:
        cols: List[np.ndarray] = [matrix]
        cache = ResultCache()
        for k, o in enumerate(ext):
            values = family_values(joined, o.measure, relevance_level, cache)
            o.column = plan.ncols + k
            cols.append(values[:, None])
        matrix = np.hstack(cols)
    return Evaluation(joined, plan.outputs, matrix, run.run_id, qrels, complete)


def evaluate(qrels: Any, run: Any, measures: Union[str, Sequence[str]], *, per_query: bool = False,
             relevance_level: int = 1, complete: bool = False, judged_only: bool = False,
             max_docs: Optional[int] = None, num_docs_in_coll: float = 0.0, n_jobs: Optional[int] = None
             ) -> Union[Dict[str, float], Dict[str, Dict[str, float]]]:
    """Evaluate ``run`` against ``qrels``.

    ``qrels``/``run``: :class:`Qrels`/:class:`Run`, pytrec_eval-style dicts,
    DataFrames (ir_measures columns) or paths of TREC files.  ``measures``: names
    (see :mod:`irscore.core.measures`).  Returns ``{name: mean}`` (trec_eval's
    summary rules: arithmetic mean over the evaluated queries, sums for counts,
    geometric mean for ``gm_map``/``gm_bpref``) or, with ``per_query=True``,
    ``{name: {query_id: value}}``.

    Options mirror trec_eval: ``relevance_level`` (-l), ``complete`` (-c: every
    qrels query counts, a query without a ranking scores 0), ``judged_only``
    (-J), ``max_docs`` (-M), ``num_docs_in_coll`` (-N, for ``utility``).
    ``n_jobs``: threads for the native kernels (default: all cores for large
    inputs, one for small ones; results do not depend on it).

    Per query, ``gm_map``/``gm_bpref`` give the value whose logarithms are
    averaged (AP or bpref floored at trec_eval's 0.00001); counts such as
    ``num_rel_ret`` are summed in the summary, not averaged.
    Queries present only in the run are ignored; qrels queries without a ranking
    are skipped unless ``complete``.
    """
    if not isinstance(relevance_level, (int, np.integer)) or isinstance(relevance_level, bool):
        raise TypeError(f"relevance_level must be an int, got {relevance_level!r}")
    items = resolve(measures)
    ev = run_plan(as_qrels(qrels), as_run(run), items, relevance_level=int(relevance_level),
                  complete=complete, judged_only=judged_only, max_docs=max_docs,
                  num_docs_in_coll=num_docs_in_coll, n_jobs=n_jobs)
    if ev.joined.n_duplicates:
        warnings.warn(f"run: {ev.joined.n_duplicates} repeated (query, doc) entries; the best-ranked "
                      "one is kept (trec_eval 10 refuses such runs)", RuntimeWarning, stacklevel=2)
    if per_query:
        qids = ev.joined.query_ids
        return {o.key: dict(zip(qids, map(float, ev.per_query(o)))) for o in ev.outputs}
    return {o.key: ev.aggregate(o) for o in ev.outputs}

