"""irscore on Dask DataFrames: ``irscore.dask.evaluate``.

Both frames are shuffled by query id into the same number of partitions
(hash partitioning, so partition *i* of the qrels and of the run hold the same
queries), and every partition pair is evaluated in one call of irscore's
native kernels on a worker.  The per-query values are exactly those of
[`irscore.evaluate`][irscore.evaluate], and the summary is computed on the client by the
function ``evaluate`` uses.  ``import irscore`` does not import dask; this
module imports it when called.  See ``docs/distributed.md``.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from irscore.distributed.partition import (
    N_DUPLICATES,
    N_JUDGED_RELEVANT,
    QUERY,
    Request,
    evaluate_columns,
    make_request,
    summarize_columns,
)

__all__ = ["evaluate"]

_COLS = ["q", "d", "v"]


def evaluate(qrels: Any, run: Any, measures: Union[str, Sequence[str]], *, per_query: bool = False,
             compute: bool = False, complete: bool = False, judged_only: bool = False,
             max_docs: Optional[int] = None, relevance_level: int = 1, num_docs_in_coll: float = 0.0,
             query_col: str = "query_id", doc_col: str = "doc_id", relevance_col: str = "relevance",
             score_col: str = "score", npartitions: Optional[int] = None, shuffle: bool = True,
             n_jobs: Optional[int] = 1) -> Any:
    """Evaluate a run held in a Dask DataFrame against qrels in another.

    Columns, ``measures`` and options as [`irscore.spark.evaluate`][irscore.distributed.spark.evaluate] (and
    [`irscore.evaluate`][irscore.evaluate]).  Returns ``{measure: value}``, equal to
    [`irscore.evaluate`][irscore.evaluate] on the same data (computed now, on the current
    Dask scheduler), or with ``per_query=True`` a lazy Dask DataFrame with a
    string column ``query_col`` and one float64 column per measure, named as
    asked, one row per evaluated query -- or, with ``compute=True`` as well,
    that frame computed (pandas).

    ``npartitions``: partitions after the shuffle by query (default: the
    larger input's); each is evaluated in one call and held in a worker's
    memory whole.  ``shuffle=False``: the frames are already partitioned by
    query alike (same number of partitions, partition *i* of both holding
    every row of the same queries), so they are not shuffled; a query found in
    two partitions is then an error.  The shuffle uses the method set in
    ``dask.config`` (``dataframe.shuffle.method``), else Dask's in-memory
    ``"tasks"`` shuffle (set ``"p2p"`` for data larger than the workers'
    memory).  ``n_jobs``: native threads per call.
    """
    try:
        import dask
        import dask.dataframe as dd
        import pandas as pd
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError(f"irscore.dask needs dask and pandas ({exc}): pip install \"irscore[dask]\" "
                                  "(from a clone of irscore: pip install \".[dask]\")", name=exc.name) from None

    for name, flag in (("per_query", per_query), ("compute", compute), ("shuffle", shuffle)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be a bool, got {flag!r}")
    req = make_request(measures, relevance_level=relevance_level, complete=complete, judged_only=judged_only,
                       max_docs=max_docs, num_docs_in_coll=num_docs_in_coll, n_jobs=n_jobs, summary=not per_query)
    for df, what in ((qrels, "qrels"), (run, "run")):
        if not hasattr(df, "map_partitions") or not hasattr(df, "npartitions"):
            raise TypeError(f"{what} must be a Dask DataFrame, got {type(df).__name__} "
                            "(for pandas, use irscore.evaluate)")
    # integer query ids stay int64 when both sides have them (hashed alike by the shuffle), integer doc
    # ids stay integers (cast to text on the worker, in Arrow): no Python string per row
    int_query = all(query_col in df.columns and pd.api.types.is_integer_dtype(df.dtypes[query_col])
                    for df in (qrels, run))
    q = _normalized(qrels, "qrels", (query_col, doc_col, relevance_col), int_query)
    r = _normalized(run, "run", (query_col, doc_col, score_col), int_query)
    if shuffle:
        n = _n_partitions(npartitions, max(q.npartitions, r.npartitions))
        # Dask's in-memory tasks shuffle unless one is configured: about half the CPU of p2p for data that
        # fits in the workers' memory (docs/distributed.md); configure "p2p" for larger data
        method = dask.config.get("dataframe.shuffle.method", None) or "tasks"
        q = q.shuffle(on="q", npartitions=n, shuffle_method=method)
        r = r.shuffle(on="q", npartitions=n, shuffle_method=method)
    elif q.npartitions != r.npartitions:
        raise ValueError(f"shuffle=False needs frames partitioned alike; qrels has {q.npartitions} "
                         f"partitions, run {r.npartitions}")
    out_query = query_col if per_query else QUERY
    meta = pd.DataFrame({out_query: pd.Series([], dtype=object), **{
        c: pd.Series([], dtype=np.int64 if c in (N_JUDGED_RELEVANT, N_DUPLICATES) else np.float64)
        for c in req.value_columns()}})
    result = dd.map_partitions(_task, q, r, req, out_query, meta=meta, align_dataframes=False,
                               enforce_metadata=False)
    if per_query:
        return result.compute() if compute else result
    frame = result.compute()
    return summarize_columns({c: frame[c].to_numpy() for c in frame.columns}, req)


def _normalized(df: Any, what: str, cols: Tuple[str, str, str], int_query: bool) -> Any:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ValueError(f"{what} DataFrame lacks column(s) {missing} (has {list(df.columns)}); name them "
                         "with query_col=, doc_col=, relevance_col=, score_col=")
    import pandas as pd

    value = df.dtypes[cols[2]]
    if not pd.api.types.is_numeric_dtype(value) or pd.api.types.is_complex_dtype(value):
        raise TypeError(f"{what} column {cols[2]!r} must be numeric, got {value}")

    int_doc = pd.api.types.is_integer_dtype(df.dtypes[cols[1]])
    meta = pd.DataFrame({"q": pd.Series([], dtype=np.int64 if int_query else str),
                         "d": pd.Series([], dtype=np.int64 if int_doc else str),
                         "v": pd.Series([], dtype=value)})
    return df[list(cols)].map_partitions(_rename, cols, int_query, int_doc, meta=meta, enforce_metadata=False)


def _rename(part: Any, cols: Tuple[str, str, str], int_query: bool, int_doc: bool) -> Any:
    """Fixed names; ids as text (``7`` -> ``"7"``, as irscore compares
    them) unless integers (int64, cast to text on the worker)."""
    import pandas as pd

    def ids(col: Any, integral: bool) -> Any:
        return col.astype(np.int64) if integral else col.astype(str)

    return pd.DataFrame({"q": ids(part[cols[0]], int_query), "d": ids(part[cols[1]], int_doc),
                         "v": part[cols[2]]})


def _n_partitions(npartitions: Optional[int], default: int) -> int:
    if npartitions is None:
        return max(1, default)
    if not isinstance(npartitions, int) or isinstance(npartitions, bool) or npartitions < 1:
        raise ValueError(f"npartitions must be a positive int, got {npartitions!r}")
    return npartitions


def _task(qrels: Any, run: Any, req: Request, out_query: str) -> Any:
    """Worker side: one partition pair (pandas) of whole queries."""
    import pandas as pd

    cols = evaluate_columns([qrels[c] for c in _COLS], [run[c] for c in _COLS], req)
    frame = pd.DataFrame({c: cols[c] for c in req.value_columns()})
    frame.insert(0, out_query, pd.Series(cols[QUERY], dtype=object))
    return frame
