"""What runs on a worker, and the driver's summary.

A worker receives the judgments and the ranked documents of one or more
*whole* queries (a Spark cogroup group, a Dask partition pair), builds one
[`Qrels`][irscore.Qrels] and one [`Run`][irscore.Run] from the Arrow columns
(`irscore.core.frames`, no Python object per row) and evaluates them all in
one `irscore.classic.run_plan` call -- the native kernels of
[`irscore.evaluate`][irscore.evaluate].  A query's value depends on its own judgments and
ranking only, so it is the same whichever other queries share the batch.

Two result shapes:

- values (``per_query=True``): ``query_id`` and one float64 column per measure,
  the values [`irscore.evaluate`][irscore.evaluate] gives with ``per_query=True``;
- summary input: the kernels' own columns (for ``gm_map``/``gm_bpref`` the
  logarithms that are averaged) plus each query's number of judgments with a
  grade > 0 and the batch's count of repeated run entries.  The driver puts
  the queries in trec_eval's order and summarises with
  `irscore.core.aggregate.summarize`, the function ``evaluate`` uses, so the
  summary is bit for bit the single-machine one.
"""
from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from irscore.classic import evaluate as evaluate_local
from irscore.classic import run_plan
from irscore.core.aggregate import summarize
from irscore.core.data import Qrels
from irscore.core.frames import empty_run, qrels_from_columns, run_from_columns
from irscore.core.measures import Measure, resolve
from irscore.core.plan import Output, compile_plan
from irscore.core.registry import EXTERNAL

QUERY = "query_id"
N_JUDGED_RELEVANT = "__irscore_n_judged_relevant"
N_DUPLICATES = "__irscore_n_duplicates"


@dataclass(frozen=True)
class Request:
    """An evaluation as shipped to the workers (small, picklable)."""

    items: Tuple[Tuple[str, Measure], ...]
    relevance_level: int = 1
    complete: bool = False
    judged_only: bool = False
    max_docs: Optional[int] = None
    num_docs_in_coll: float = 0.0
    n_jobs: Optional[int] = 1
    summary: bool = False      # True: the summary input, False: per-query values

    @property
    def keys(self) -> List[str]:
        return [k for k, _ in self.items]

    def value_columns(self) -> List[str]:
        """Result columns after ``query_id``, in order."""
        return self.keys + ([N_JUDGED_RELEVANT, N_DUPLICATES] if self.summary else [])


def make_request(measures: Union[str, Sequence[str]], *, relevance_level: int = 1, complete: bool = False,
                 judged_only: bool = False, max_docs: Optional[int] = None, num_docs_in_coll: float = 0.0,
                 n_jobs: Optional[int] = 1, summary: bool = False) -> Request:
    """Validate everything on the driver, before any work is shipped: the
    measure names and parameters and the options (one tiny evaluation runs
    here, so that e.g. ``Rnorm`` without ``N`` fails now, not in a task)."""
    if not isinstance(relevance_level, (int, np.integer)) or isinstance(relevance_level, bool):
        raise TypeError(f"relevance_level must be an int, got {relevance_level!r}")
    if max_docs is not None and (not isinstance(max_docs, (int, np.integer)) or isinstance(max_docs, bool)
                                 or max_docs < 0):
        raise ValueError(f"max_docs must be a non-negative integer, got {max_docs!r}")
    for name, flag in (("complete", complete), ("judged_only", judged_only)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name} must be a bool, got {flag!r}")
    items = tuple(resolve(measures))
    keys = [k for k, _ in items]
    reserved = [k for k in keys if k in (QUERY, N_JUDGED_RELEVANT, N_DUPLICATES)]
    if reserved:
        raise ValueError(f"measure name {reserved[0]!r} clashes with a result column")
    req = Request(items, int(relevance_level), bool(complete), bool(judged_only),
                  None if max_docs is None else int(max_docs), float(num_docs_in_coll), n_jobs, bool(summary))
    evaluate_local({"q": {"d": 1}}, {"q": {"d": 1.0}}, keys, relevance_level=req.relevance_level,
                    complete=req.complete, judged_only=req.judged_only, max_docs=req.max_docs,
                    num_docs_in_coll=req.num_docs_in_coll, n_jobs=1)
    return req


def _empty(req: Request) -> Dict[str, np.ndarray]:
    out: Dict[str, np.ndarray] = {QUERY: np.zeros(0, dtype=object)}
    for c in req.value_columns():
        out[c] = np.zeros(0, dtype=np.int64 if c in (N_JUDGED_RELEVANT, N_DUPLICATES) else np.float64)
    return out


def evaluate_columns(qrels: Sequence[Any], run: Sequence[Any], req: Request) -> Dict[str, np.ndarray]:
    """Evaluate the whole queries of one batch.

    ``qrels``: (query ids, doc ids, relevance) columns, ``run``: (query ids,
    doc ids, scores) columns -- Arrow arrays, pandas Series or NumPy arrays.
    Returns ``{column: array}``: ``query_id`` (object array of str) and
    ``req.value_columns()``; no rows when no query of the batch is evaluated.
    """
    if len(qrels[0]) == 0:
        return _empty(req)          # run-only queries are never evaluated
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # repeated judgments: reported by the driver
        q = qrels_from_columns(*qrels)
    r = run_from_columns(*run) if len(run[0]) else empty_run()
    if not req.complete and not set(q.query_ids).intersection(r.query_ids):
        return _empty(req)
    ev = run_plan(q, r, list(req.items), relevance_level=req.relevance_level, complete=req.complete,
                  judged_only=req.judged_only, max_docs=req.max_docs, num_docs_in_coll=req.num_docs_in_coll,
                  n_jobs=req.n_jobs)
    qids = ev.joined.query_ids
    out: Dict[str, np.ndarray] = {QUERY: np.asarray(qids, dtype=object)}
    for o in ev.outputs:
        out[o.key] = np.ascontiguousarray(ev.matrix[:, o.column] if req.summary else ev.per_query(o),
                                          dtype=np.float64)
    if req.summary:
        out[N_JUDGED_RELEVANT] = _judged_relevant(q, qids)
        dups = np.zeros(len(qids), dtype=np.int64)
        if len(qids):
            dups[0] = ev.joined.n_duplicates
        out[N_DUPLICATES] = dups
    return out


def _judged_relevant(q: Qrels, qids: List[str]) -> np.ndarray:
    """Per evaluated query, its judgments with a grade > 0."""
    pos = (q.grades > 0).astype(np.int64)
    per_query = np.add.reduceat(pos, q.offsets[:-1]) if pos.size else np.zeros(len(q.query_ids), np.int64)
    per_query[np.diff(q.offsets) == 0] = 0
    idx = q._index()
    return np.asarray([per_query[idx[qid]] for qid in qids], dtype=np.int64)


def summarize_columns(columns: Dict[str, Any], req: Request) -> Dict[str, float]:
    """The driver's summary of the gathered summary-input columns (all the
    evaluated queries, any order): ``{measure: value}`` as
    [`irscore.evaluate`][irscore.evaluate] returns."""
    qids = [str(x) for x in list(columns[QUERY])]
    if not qids:
        raise ValueError("no queries with both results and relevance judgments")
    if len(set(qids)) != len(qids):
        dup = next(x for x, c in Counter(qids).items() if c > 1)
        raise ValueError(f"query {dup!r} was evaluated in two batches: the inputs are not partitioned "
                         "by query (every row of a query must reach the same batch)")
    order = np.asarray(sorted(range(len(qids)), key=lambda i: qids[i].encode("utf-8")), dtype=np.int64)
    n_dup = int(np.asarray(columns[N_DUPLICATES], dtype=np.int64).sum())
    if n_dup:
        warnings.warn(f"run: {n_dup} repeated (query, doc) entries; the best-ranked "
                      "one is kept (trec_eval 10 refuses such runs)", RuntimeWarning, stacklevel=3)
    n_rel = int(np.asarray(columns[N_JUDGED_RELEVANT], dtype=np.int64).sum())
    outputs = _layout(req)
    width = max([o.column for o in outputs] + [-1]) + 1
    matrix = np.zeros((len(qids), width), dtype=np.float64)
    for o in outputs:
        matrix[:, o.column] = np.asarray(columns[o.key], dtype=np.float64)[order]
    return {o.key: summarize(o.family, matrix[:, o.column], complete=req.complete, n_judged_relevant=n_rel,
                             trec_num_rel=o.measure.rel is None, name=o.key) for o in outputs}


def _layout(req: Request) -> List[Output]:
    """The outputs with the columns `irscore.classic.run_plan` gives
    them (kernel columns, then one per external measure)."""
    plan = compile_plan(list(req.items), req.relevance_level, req.num_docs_in_coll)
    k = 0
    for o in plan.outputs:
        if o.measure.family in EXTERNAL:
            o.column = plan.ncols + k
            k += 1
    return plan.outputs
