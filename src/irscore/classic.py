"""``evaluate()``: align queries, join the run with the qrels, run the kernels,
aggregate as trec_eval does."""
from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union, overload

import numpy as np

from irscore import _ranking
from irscore.core import parallel as _parallel
from irscore.core.aggregate import summarize
from irscore.core.checks import MAX_CUTOFF
from irscore.core.data import Qrels, Run, require_pandas, tie_mode
from irscore.core.files import check_path, fields, read_text, text_lines
from irscore.core.io import as_qrels, as_run, results_frame
from irscore.core.joined import Joined, ResultCache, join
from irscore.core.measures import Measure, expand_spec, resolve
from irscore.core.plan import Output, compile_plan
from irscore.core.registry import EXTERNAL, family_values
from irscore.core.zscores import ZScores, as_zscores, standardize

#: a measure name, or a sequence of names (str or ir_measures measure objects)
MeasureNames = Union[str, Sequence[Any]]

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
                         n_judged_relevant=lambda: int((self.qrels.grades > 0).sum()),
                         trec_num_rel=out.measure.rel is None, name=out.key)


def _bogus_zeroed(m: Measure) -> bool:
    """trec_eval resets these values for a query without a ranking under -c: it
    compares the printed name with "num_ret", "utility", "rbp_resid" (so not
    "utility_2,-1,0,0" or "rbp_resid_p=0.8") and its first three letters with "unj"."""
    if m.family in ("num_ret", "unj"):
        return True
    return m.family in ("utility", "rbp_resid") and m.params is None


def _judged_by_any(qrels: Qrels, run: Run) -> Qrels:
    """The judgments with, for every query, the documents of its ranking that
    another query's judgments hold (grade 0): joined with the run, a ranked
    document is unjudged (-1) exactly when no query judged it, which is what
    Hole@k (op K_HOLE) counts."""
    judged = set(qrels._all_doc_ids())
    pooled = qrels.to_dict()
    for qid, docs in pooled.items():
        if qid in run:
            for doc in run.doc_ids(qid):
                if doc in judged and doc not in docs:
                    docs[doc] = 0
    return Qrels.from_dict(pooled)


def _pooled_ops(qrels: Qrels, run: Run, joined: Joined, kinds: np.ndarray, ops: Tuple[np.ndarray, ...],
                matrix: np.ndarray, options: Dict[str, Any]) -> None:
    """The ops that read the judgments of every query (K_HOLE), computed on the
    run joined with those (``_judged_by_any``), into their columns of matrix."""
    hole = (kinds & ~int(_ranking.OpFlag.F_JUDGED_ONLY)) == int(_ranking.OpKind.K_HOLE)
    if not hole.any():
        return
    pooled = join(_judged_by_any(qrels, run), run, **options)
    other = np.zeros((len(pooled.query_ids), matrix.shape[1]), dtype=np.float64)
    op_kind, op_level, op_col, par_off, params = ops
    _ranking.compute(pooled.rel, pooled.offsets, pooled.levels, op_kind, op_level, op_col, par_off, params, other)
    rows = {q: i for i, q in enumerate(pooled.query_ids)}
    take = np.asarray([rows[q] for q in joined.query_ids], dtype=np.int64)
    for o in np.flatnonzero(hole):
        col, width = int(op_col[o]), int(par_off[o + 1] - par_off[o])
        matrix[:, col:col + width] = other[take, col:col + width]


def run_plan(qrels: Qrels, run: Run, items: Sequence[Tuple[str, Measure]], *, relevance_level: int = 1,
             complete: bool = False, judged_only: bool = False, max_docs: Optional[int] = None,
             num_docs_in_coll: float = 0.0, n_jobs: Optional[int] = None,
             zscores: Optional[ZScores] = None) -> Evaluation:
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
    _pooled_ops(qrels, run, joined, ops[0], ops, matrix,
                dict(complete=complete, judged_only=judged_only, max_docs=max_docs, n_jobs=n_jobs))
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
    if zscores is not None:
        for out in plan.outputs:
            if out.column >= 0:
                matrix[:, out.column] = standardize(matrix[:, out.column], joined.query_ids, out.key, zscores)
    return Evaluation(joined, plan.outputs, matrix, run.run_id, qrels, complete)


@overload
def evaluate(qrels: Any, run: Any, measures: MeasureNames, *, per_query: Literal[False] = ...,
             relevance_level: int = ..., complete: bool = ..., judged_only: bool = ...,
             max_docs: Optional[int] = ..., num_docs_in_coll: float = ..., n_jobs: Optional[int] = ...,
             zscores: Any = ..., ties: str = ..., output: Literal["dict"] = ...
             ) -> Dict[str, float]: ...
@overload
def evaluate(qrels: Any, run: Any, measures: MeasureNames, *, per_query: Literal[True],
             relevance_level: int = ..., complete: bool = ..., judged_only: bool = ...,
             max_docs: Optional[int] = ..., num_docs_in_coll: float = ..., n_jobs: Optional[int] = ...,
             zscores: Any = ..., ties: str = ..., output: Literal["dict"] = ...
             ) -> Dict[str, Dict[str, float]]: ...
@overload
def evaluate(qrels: Any, run: Any, measures: MeasureNames, *, per_query: bool,
             relevance_level: int = ..., complete: bool = ..., judged_only: bool = ...,
             max_docs: Optional[int] = ..., num_docs_in_coll: float = ..., n_jobs: Optional[int] = ...,
             zscores: Any = ..., ties: str = ..., output: Literal["dict"] = ...
             ) -> Union[Dict[str, float], Dict[str, Dict[str, float]]]: ...
@overload
def evaluate(qrels: Any, run: Any, measures: MeasureNames, *, per_query: bool = ...,
             relevance_level: int = ..., complete: bool = ..., judged_only: bool = ...,
             max_docs: Optional[int] = ..., num_docs_in_coll: float = ..., n_jobs: Optional[int] = ...,
             zscores: Any = ..., ties: str = ..., output: Literal["pandas", "pandas-tidy"]
             ) -> Any: ...


def evaluate(qrels: Any, run: Any, measures: MeasureNames, *, per_query: bool = False,
             relevance_level: int = 1, complete: bool = False, judged_only: bool = False,
             max_docs: Optional[int] = None, num_docs_in_coll: float = 0.0, n_jobs: Optional[int] = None,
             zscores: Any = None, ties: str = "trec", output: str = "dict") -> Any:
    """Evaluate ``run`` against ``qrels`` with trec_eval's measures and summary
    rules (definitions: docs/classic.md; names: docs/names.md).

    Parameters
    ----------
    qrels : Qrels, dict, DataFrame or path
        [`Qrels`][irscore.core.data.Qrels], a pytrec_eval-style dict
        ``{query: {doc: grade}}``, a DataFrame with ir_measures' columns, or
        the path of a TREC qrels file (plain or gzip).
    run : Run, dict, DataFrame or path
        The same for the run (``{query: {doc: score}}``).
    measures : str or sequence
        One measure name or a list of names: trec_eval names (``map``,
        ``P_10``), ``-m`` specs (``P.5,10``), bare trec_eval families and
        measure sets (``P``, ``ndcg_cut``, ``official``: expanded as trec_eval's
        ``-m`` and pytrec_eval do, keyed ``P_5``, ``P_10`` ...), ir_measures/ranx
        names (``nDCG@10``, ``AP``, ``RR@10``, ``nDCG(judged_only=True)``,
        ``nDCG(gains={0:0,1:1,2:3})@10``, ``mrr@10``), ir_measures measure
        objects, or the registered families (``Rnorm(N=1000)``, ``CRP_loss``).
    per_query : bool, default False
        Return ``{name: {query_id: value}}`` instead of ``{name: summary}``.
    relevance_level : int, default 1
        trec_eval's ``-l``: grades at or above it are relevant.
    complete : bool, default False
        trec_eval's ``-c``: every qrels query counts; a query without a
        ranking scores 0.
    judged_only : bool, default False
        trec_eval's ``-J``: drop unjudged documents from the rankings.
    max_docs : int, optional
        trec_eval's ``-M``: cut each ranking to this many documents.
    num_docs_in_coll : float, default 0
        trec_eval's ``-N`` (for ``utility``; the default N of Rocchio's indices).
    n_jobs : int, optional
        Threads for the native kernels: ``None`` or -1 all cores for large
        inputs (one for small ones), a positive int exactly that many; results
        do not depend on it.
    zscores : path or dict, optional
        trec_eval's ``-Z``: a z-score file (``qid measure mean stddev`` per
        line) or ``{qid: {measure: (mean, stddev)}}``; every per-query value
        ``v`` of a measure named ``measure`` becomes ``(v - mean) / stddev``
        (-1000000 when the file has no entry for it) and the summaries are
        taken over these values (docs/classic.md, "Z-scores").
    ties : {"trec", "input"}, default "trec"
        The order of equal scores within a query: trec_eval's (document id
        descending) or the input's: the order of the dict's items, the
        DataFrame's rows or the file's lines (score descending by a stable
        sort, as BEIR and sentence-transformers rank).  A [`Run`][irscore.Run] object
        holds the order it was built with (``Run.from_dict(d, ties="input")``,
        ``read_run(path, ties="input")``); another ``ties`` is an error.
    output : {"dict", "pandas", "pandas-tidy"}, default "dict"
        The form of the results: dicts (below); ``"pandas"`` a wide
        ``pandas.DataFrame``, column ``query_id`` then one float column per
        measure named as asked, one row per evaluated query (trec_eval's
        order) with ``per_query=True``, else one row whose ``query_id`` is
        ``"all"`` holding the summaries (as trec_eval prints them);
        ``"pandas-tidy"`` the long form, columns ``query_id, measure, value``,
        one row per (query, measure), by query then measure as asked (rows
        ``"all"`` for the summaries).  pandas is imported only then.

    Returns
    -------
    dict or pandas.DataFrame
        ``{name: summary}``: the arithmetic mean over the evaluated queries,
        sums for counts (``num_rel_ret`` ...), the geometric mean for
        ``gm_map``/``gm_bpref``, the mean over the queries where the value is
        defined for the registered families.  With ``per_query=True``,
        ``{name: {query_id: value}}`` (``gm_map``/``gm_bpref`` per query: the
        value whose logarithms are averaged).  The same values as a DataFrame
        with ``output="pandas"`` or ``"pandas-tidy"``.

    Raises
    ------
    ValueError
        An unknown or malformed measure name, bad option values, no query with
        both results and judgments.
    TypeError
        A measure that is neither a str nor an ir_measures object, a
        non-integer ``relevance_level``.
    FileNotFoundError
        A path that does not exist (the message names it).

    Warns
    -----
    RuntimeWarning
        Repeated (query, doc) entries in the run (the best-ranked is kept).

    Notes
    -----
    Queries present only in the run are ignored; qrels queries without a
    ranking are skipped unless ``complete``.
    """
    if not isinstance(relevance_level, (int, np.integer)) or isinstance(relevance_level, bool):
        raise TypeError(f"relevance_level must be an int, got {relevance_level!r}")
    if output not in _OUTPUTS:
        raise ValueError(f"output must be one of {', '.join(map(repr, _OUTPUTS))}; got {output!r}")
    check_ties(ties)
    items = resolve(measures)
    ev = run_plan(as_qrels(qrels), as_run(run, ties), items, relevance_level=int(relevance_level),
                  complete=complete, judged_only=judged_only, max_docs=max_docs,
                  num_docs_in_coll=num_docs_in_coll, n_jobs=n_jobs,
                  zscores=None if zscores is None else as_zscores(zscores))
    if ev.joined.n_duplicates:
        warnings.warn(f"run: {ev.joined.n_duplicates} repeated (query, doc) entries; the best-ranked "
                      "one is kept (trec_eval 10 refuses such runs)", RuntimeWarning, stacklevel=2)
    if output != "dict":
        require_pandas(f"evaluate(output={output!r})")
    res: Dict[str, Any]
    if per_query:
        qids = ev.joined.query_ids
        res = {o.key: dict(zip(qids, map(float, ev.per_query(o)))) for o in ev.outputs}
    else:
        res = {o.key: ev.aggregate(o) for o in ev.outputs}
    # the frames: the dict results through the one DataFrame builder
    return res if output == "dict" else results_frame(res, tidy=output == "pandas-tidy")


def check_ties(ties: Any) -> None:
    """A ValueError naming ``ties`` unless it is ``"trec"`` or ``"input"``."""
    if ties == "average":
        raise ValueError("ties='average' (the expected value over the orders of equal scores) is "
                         "irscore.batch's; evaluate takes ties='trec' or 'input'")
    tie_mode(ties)


#: the forms of :func:`evaluate`'s results (``output=``)
_OUTPUTS = ("dict", "pandas", "pandas-tidy")


# --- multiple judgment groups (trec_eval's -R qrels_jg) ----------------------------

#: trec_eval's judgment-group measures and the measure each one averages
JG_MEASURES: Dict[str, str] = {"map_avgjg": "map", "P_avgjg": "P", "Rprec_mult_avgjg": "Rprec_mult"}


def read_qrels_jg(path: Any) -> Dict[str, Dict[str, Dict[str, int]]]:
    """Read trec_eval's ``qrels_jg`` file: ``qid jg docno rel`` per line, the
    second column naming the judgment group (a set of judgments, e.g. one
    assessor's); lines starting with ``#`` are comments.  Returns
    ``{qid: {jg: {docno: rel}}}``.  A malformed line, a non-integer grade and a
    document judged twice within one group raise ``ValueError`` naming the file
    and line (trec_eval refuses them too)."""
    name = check_path(path, "qrels_jg")
    out: Dict[str, Dict[str, Dict[str, int]]] = {}
    for lineno, line in enumerate(text_lines(read_text(name, "qrels_jg")), 1):
        if line.startswith("#"):
            continue
        f = fields(line)
        if len(f) != 4:
            raise ValueError(f"{name}:{lineno}: malformed qrels_jg line (want 'qid jg docno rel', "
                             f"got {len(f)} fields)")
        try:
            rel = int(f[3])
        except ValueError:
            raise ValueError(f"{name}:{lineno}: relevance {f[3]!r} is not an integer") from None
        group = out.setdefault(f[0], {}).setdefault(f[1], {})
        if f[2] in group:
            raise ValueError(f"{name}:{lineno}: document {f[2]!r} judged twice in query {f[0]!r}, "
                             f"judgment group {f[1]!r}")
        group[f[2]] = rel
    if not out:
        raise ValueError(f"{name}: empty qrels_jg file (no data lines)")
    return out


def jg_items(specs: Sequence[str]) -> List[Tuple[str, str, Measure]]:
    """(output name, base output name, base Measure) of judgment-group measure
    specs (``map_avgjg``, ``P_avgjg.5,10``, ``Rprec_mult_avgjg``), in order."""
    out: List[Tuple[str, str, Measure]] = []
    for spec in specs:
        fam, dot, par = spec.partition(".")
        base = JG_MEASURES.get(fam)
        if base is None:
            raise ValueError(f"unknown judgment-group measure {spec!r} (known: {', '.join(JG_MEASURES)})")
        for key, m in expand_spec(base + dot + par):
            out.append((fam + key[len(base):], key, m))
    return out


def evaluate_jg(qrels_jg: Any, run: Any, specs: Sequence[str], *, relevance_level: int = 1,
                complete: bool = False, judged_only: bool = False, max_docs: Optional[int] = None,
                n_jobs: Optional[int] = None) -> Tuple[List[str], List[str], np.ndarray, str]:
    """trec_eval's judgment-group measures: each measure is computed against
    every judgment group of a query separately (the group's judgments as the
    qrels) and averaged over the query's groups.  Returns (query ids, output
    names, per-query matrix, run id); used by [`evaluate`][irscore.classic.evaluate] and ``irscore
    eval -R qrels_jg``."""
    groups = read_qrels_jg(qrels_jg) if not isinstance(qrels_jg, dict) else qrels_jg
    items = jg_items(specs)
    base = [(k, m) for _, k, m in items]
    run_ = as_run(run)
    n_groups = max(len(g) for g in groups.values())
    in_run = set(run_.query_ids)
    qids: List[str] = []
    sums: Dict[str, np.ndarray] = {}
    for k in range(n_groups):
        # the k-th group (in trec_eval's strcmp order of group names) of every query that has one
        sub = {q: g[sorted(g)[k]] for q, g in groups.items() if len(g) > k}
        if k and not complete and not in_run.intersection(sub):
            continue
        ev = run_plan(Qrels.from_dict(sub), run_, base, relevance_level=relevance_level, complete=complete,
                      judged_only=judged_only, max_docs=max_docs, n_jobs=n_jobs)
        cols = [o.column for o in ev.outputs]
        if k == 0:
            qids = list(ev.joined.query_ids)
        for e, q in enumerate(ev.joined.query_ids):
            row = ev.matrix[e, cols]
            if q in sums:
                sums[q] = sums[q] + row
            else:
                sums[q] = row.copy()
    matrix = np.zeros((len(qids), len(items)))
    for e, q in enumerate(qids):
        n = len(groups[q]) if q in groups else 1
        matrix[e] = sums[q] / n if n > 1 else sums[q]
    return qids, [name for name, _, _ in items], matrix, run_.run_id
