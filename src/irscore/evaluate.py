"""``evaluate()``: align queries, join the run with the qrels, run the kernels,
aggregate as trec_eval does."""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from irscore import _join, _parallel, _ranking
from irscore.data import Qrels, Run, as_qrels, as_run
from irscore.measures import EXTERNAL, FAMILIES, Measure, Output, compile_plan, expand_spec, parse_measure
from irscore.summary import summarize

MAX_GRADE = 1_000_000


@dataclass
class Joined:
    """Relevance lists of the evaluated queries (the input of every kernel)."""

    query_ids: List[str]        # evaluated queries, trec_eval order
    rel: np.ndarray             # int32 grades in rank order (-1 unjudged, -2 judged < 0)
    scores: np.ndarray          # float64 scores in rank order
    offsets: np.ndarray         # int64 CSR offsets, len = n_queries + 1
    levels: np.ndarray          # int64 (n_queries, max_grade + 1) judgments per grade
    missing: List[str]          # qrels queries without a ranking
    bogus: np.ndarray           # bool per evaluated query: stand-in ranking (-c)
    n_duplicates: int
    # Batch API only: per query, the number of candidates (the whole collection
    # as far as the batch knows; Rocchio's default N there).  None for TREC input.
    n_candidates: Optional[np.ndarray] = None
    # trec_eval's -N (number of documents in the collection) when given: the
    # default N of Rocchio's measures.
    num_docs_in_coll: Optional[int] = None


def join(qrels: Qrels, run: Run, *, complete: bool = False, judged_only: bool = False,
         max_docs: Optional[int] = None, n_jobs: Optional[int] = None) -> Joined:
    """Pair queries and build the relevance lists (trec_eval's form_res_rels)."""
    if max_docs is not None and (not isinstance(max_docs, (int, np.integer)) or max_docs < 0):
        raise ValueError(f"max_docs must be a non-negative integer, got {max_docs!r}")
    max_grade = qrels.max_grade
    if max_grade > MAX_GRADE:
        raise ValueError(f"qrels grade {max_grade} is too large (at most {MAX_GRADE})")
    ridx = run._index()
    pair_q: List[int] = []
    pair_r: List[int] = []
    missing: List[str] = []
    for q, qid in enumerate(qrels.query_ids):
        r = ridx.get(qid, -1)
        if r < 0:
            missing.append(qid)
            if not complete:
                continue
        pair_q.append(q)
        pair_r.append(r)
    if not pair_q:
        raise ValueError("no queries with both results and relevance judgments "
                         f"(qrels queries e.g. {qrels.query_ids[:3]}, run queries e.g. {run.query_ids[:3]})")
    j = _join.Join(
        qrels.offsets, qrels.doc_start, qrels.doc_len, qrels.doc_hash, qrels.grades, qrels.doc_buf,
        run.offsets, run.doc_start, run.doc_len, run.doc_hash, run.scores, run.doc_buf,
        np.asarray(pair_q, dtype=np.int64), np.asarray(pair_r, dtype=np.int64),
        max(max_grade, 0), -1 if max_docs is None else int(max_docs), judged_only, complete)
    threads = _parallel.n_threads(n_jobs, run.n_entries)
    _parallel.run(j.run, _parallel.ranges(len(pair_q), threads))
    rel, sc, off, levels, n_dup = j.result()
    qids = [qrels.query_ids[q] for q in pair_q]
    return Joined(qids, rel, sc, off, levels, missing, np.asarray(pair_r) < 0, int(n_dup))


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
        return summarize(out.family, self.matrix[:, out.column], complete=self.complete,
                         n_judged_relevant=lambda: int((self.qrels.grades > 0).sum()), name=out.key)


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
    plan = compile_plan(items, relevance_level, num_docs_in_coll)
    joined = join(qrels, run, complete=complete, judged_only=judged_only, max_docs=max_docs, n_jobs=n_jobs)
    if num_docs_in_coll and num_docs_in_coll > 0:
        joined.num_docs_in_coll = int(num_docs_in_coll)
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
        for k, o in enumerate(ext):
            fam = EXTERNAL[o.measure.family]
            level = relevance_level
            values = np.asarray(fam.compute(joined, o.measure, level), dtype=np.float64)
            if values.shape != (nq,):
                raise RuntimeError(f"measure {o.key}: expected {nq} values, got shape {values.shape}")
            o.column = plan.ncols + k
            cols.append(values[:, None])
        matrix = np.hstack(cols)
    return Evaluation(joined, plan.outputs, matrix, run.run_id, qrels, complete)


def resolve(measures: Union[str, Sequence[str]]) -> List[Tuple[str, Measure]]:
    """(key, Measure) for each requested name; trec_eval specs may expand."""
    if isinstance(measures, str):
        measures = [measures]
    items: List[Tuple[str, Measure]] = []
    seen = set()
    for name in measures:
        if not isinstance(name, str) and type(name).__module__.startswith("ir_measures"):
            name = str(name)  # an ir_measures measure object, e.g. nDCG@10
        if not isinstance(name, str):
            raise TypeError(f"measure names must be str, got {name!r}")
        if "." in name and name.split(".", 1)[0] in FAMILIES and not _is_single(name):
            pairs = expand_spec(name)
        else:
            pairs = [(name, parse_measure(name))]
        for key, m in pairs:
            if m.family in FAMILIES and FAMILIES[m.family].kind < 0:
                raise ValueError(f"measure {name!r} is not numeric; it is printed by `irscore eval`")
            if key not in seen:
                seen.add(key)
                items.append((key, m))
    if not items:
        raise ValueError("no measures requested")
    return items


def _is_single(name: str) -> bool:
    try:
        return len(expand_spec(name)) == 1
    except ValueError:
        return False


def evaluate(qrels: Any, run: Any, measures: Union[str, Sequence[str]], *, per_query: bool = False,
             relevance_level: int = 1, complete: bool = False, judged_only: bool = False,
             max_docs: Optional[int] = None, num_docs_in_coll: float = 0.0, n_jobs: Optional[int] = None
             ) -> Union[Dict[str, float], Dict[str, Dict[str, float]]]:
    """Evaluate ``run`` against ``qrels``.

    ``qrels``/``run``: :class:`Qrels`/:class:`Run`, pytrec_eval-style dicts,
    DataFrames (ir_measures columns) or paths of TREC files.  ``measures``: names
    (see :mod:`irscore.measures`).  Returns ``{name: mean}`` (trec_eval's
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

