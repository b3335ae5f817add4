"""irscore on Spark DataFrames: ``irscore.spark.evaluate``.

The qrels and the run are co-partitioned by query and every group of whole
queries is evaluated in one call of irscore's native kernels on an executor
(Arrow batches in, Arrow batch out); the per-query values are exactly those
of [`irscore.evaluate`][irscore.evaluate], and the summary is computed on the driver by the
function ``evaluate`` uses (trec_eval's query order, summation and ``-c``
rule).  ``import irscore`` does not import pyspark; this module imports it
when called.  See ``docs/distributed.md``.
"""
from __future__ import annotations

import functools
from typing import Any, Dict, Optional, Sequence, Tuple, Union

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

_BUCKET = "__irscore_bucket"
_COLS = ("q", "d", "v")


def evaluate(qrels: Any, run: Any, measures: Union[str, Sequence[str]], *, per_query: bool = False,
             complete: bool = False, judged_only: bool = False, max_docs: Optional[int] = None,
             relevance_level: int = 1, num_docs_in_coll: float = 0.0,
             query_col: str = "query_id", doc_col: str = "doc_id", relevance_col: str = "relevance",
             score_col: str = "score", n_partitions: Optional[int] = None, n_jobs: Optional[int] = 1) -> Any:
    """Evaluate a run held in a Spark DataFrame against qrels in another.

    ``qrels``: columns ``query_col, doc_col, relevance_col`` (integral grades);
    ``run``: ``query_col, doc_col, score_col`` (numbers).  Ids may be strings
    or integers; they are compared as strings.  ``measures`` and the options
    ``complete`` (-c), ``judged_only`` (-J), ``max_docs`` (-M),
    ``relevance_level`` (-l), ``num_docs_in_coll`` (-N) are those of
    [`irscore.evaluate`][irscore.evaluate].

    Returns ``{measure: value}``, equal to [`irscore.evaluate`][irscore.evaluate] on the
    same data, or with ``per_query=True`` a Spark DataFrame with a string
    column ``query_col`` and one double column per measure, named as asked
    (``P.5,10`` gives ``P_5`` and ``P_10``), one row per evaluated query.

    ``n_partitions``: number of query groups (hash of the query id); each is
    evaluated in one call and held in an executor's memory whole (default:
    ``spark.sql.shuffle.partitions``).  ``n_jobs``: native threads per call
    (default 1: Spark runs one task per core).
    """
    try:
        from pyspark.sql import functions as F
        from pyspark.sql import types as T
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError(f"irscore.spark needs pyspark ({exc}): pip install \"irscore[spark]\" "
                                  "(from a clone of irscore: pip install \".[spark]\")", name=exc.name) from None

    if not isinstance(per_query, bool):
        raise TypeError(f"per_query must be a bool, got {per_query!r}")
    req = make_request(measures, relevance_level=relevance_level, complete=complete, judged_only=judged_only,
                       max_docs=max_docs, num_docs_in_coll=num_docs_in_coll, n_jobs=n_jobs, summary=not per_query)
    _check_frame(qrels, "qrels", (query_col, doc_col, relevance_col), relevance_col, T)
    _check_frame(run, "run", (query_col, doc_col, score_col), score_col, T)
    if per_query:
        # the returned frame is lazy: bad values are found now, on the driver (the
        # summary's job re-raises a worker's error itself, see below)
        _check_values(qrels, "qrels", (query_col, doc_col, relevance_col), F, T)
        _check_values(run, "run", (query_col, doc_col, score_col), F, T)
    spark = qrels.sparkSession
    n = _n_groups(n_partitions, spark)
    bucket = F.pmod(F.xxhash64(F.col("q")), F.lit(n)).alias(_BUCKET)
    grade = F.col(relevance_col)
    if isinstance(qrels.schema[relevance_col].dataType, T.DecimalType):
        grade = grade.cast("double")        # checked to be integral on the executors
    # integer ids travel as 8-byte longs (cast to text on the executor, in Arrow): fewer shuffle bytes
    # than strings; the query id only when both sides have integer ids, so that both hash alike
    qtype = "bigint" if all(_integral(df, query_col, T) for df in (qrels, run)) else "string"
    q = qrels.select(F.col(query_col).cast(qtype).alias("q"), _id(qrels, doc_col, F, T).alias("d"),
                     grade.alias("v"))
    r = run.select(F.col(query_col).cast(qtype).alias("q"), _id(run, doc_col, F, T).alias("d"),
                   F.col(score_col).cast("double").alias("v"))
    q, r = q.select("*", bucket), r.select("*", bucket)
    out_query = query_col if per_query else QUERY
    schema = T.StructType([T.StructField(out_query, T.StringType(), False)] + [
        T.StructField(c, T.LongType() if c in (N_JUDGED_RELEVANT, N_DUPLICATES) else T.DoubleType(), True)
        for c in req.value_columns()])
    grouped = q.groupBy(_BUCKET).cogroup(r.groupBy(_BUCKET))
    if hasattr(grouped, "applyInArrow"):        # Spark >= 4.0: Arrow tables, no pandas
        result = grouped.applyInArrow(functools.partial(_arrow_task, req, out_query), schema)
    else:                                       # Spark 3.4, 3.5
        result = grouped.applyInPandas(functools.partial(_pandas_task, req, out_query), schema)
    if per_query:
        return result
    try:
        columns = _collect(result)
    except Exception as exc:     # noqa: BLE001 (a worker's error: re-raised as itself)
        error = _worker_error(exc)
        if error is None:
            raise
        raise error from None
    return summarize_columns(columns, req)


def _check_frame(df: Any, what: str, cols: Tuple[str, ...], value_col: str, T: Any) -> None:
    if not hasattr(df, "groupBy") or not hasattr(df, "schema"):
        raise TypeError(f"{what} must be a Spark DataFrame, got {type(df).__name__}")
    names = df.columns
    missing = [c for c in cols if c not in names]
    if missing:
        raise ValueError(f"{what} DataFrame lacks column(s) {missing} (has {names}); name them with "
                         "query_col=, doc_col=, relevance_col=, score_col=")
    dtype = df.schema[value_col].dataType
    if not isinstance(dtype, T.NumericType):
        raise TypeError(f"{what} column {value_col!r} must be numeric, got {dtype.simpleString()}")


def _check_values(df: Any, what: str, cols: Tuple[str, str, str], F: Any, T: Any) -> None:
    """On the driver, one aggregate job: nulls in the three columns, and a
    score that is not finite (run) or a grade that is not an integer (qrels);
    the errors the single-process path (and a worker) raises, in its words."""
    value = F.col(cols[2]).cast("double")
    if what == "run":
        bad = F.isnan(value) | (F.abs(value) == float("inf"))
    else:
        bad = F.isnan(value) | (F.abs(value) == float("inf")) | (value != F.floor(value))
    exprs = [F.sum(F.col(c).isNull().cast("long")).alias(f"n{i}") for i, c in enumerate(cols)]
    exprs.append(F.first(F.when(F.col(cols[2]).isNotNull() & bad, value), ignorenulls=True).alias("bad"))
    row = df.agg(*exprs).first()
    roles = ("query ids", "doc ids", "scores" if what == "run" else "relevance")
    for i, role in enumerate(roles):
        if row[f"n{i}"]:
            raise ValueError(f"{what}: {role}: {row[f'n{i}']} null value(s)")
    if row["bad"] is not None:
        raise ValueError(f"run: score {row['bad']!r} is not finite" if what == "run"
                         else f"qrels: relevance {row['bad']!r} is not an integer")


def _worker_error(exc: BaseException) -> Optional[BaseException]:
    """A ValueError/TypeError raised in a Python worker (pyspark wraps it in a
    PythonException under the worker's traceback) as itself: its last line."""
    try:
        from pyspark.errors import PythonException
    except ImportError:       # pragma: no cover (Spark < 3.4)
        return None
    if not isinstance(exc, PythonException):
        return None
    for line in reversed(str(exc).splitlines()):
        for kind in (ValueError, TypeError):
            prefix = kind.__name__ + ": "
            if line.startswith(prefix):
                return kind(line[len(prefix):])
    return None


def _integral(df: Any, col: str, T: Any) -> bool:
    return isinstance(df.schema[col].dataType, T.IntegralType)


def _id(df: Any, col: str, F: Any, T: Any) -> Any:
    return F.col(col).cast("bigint" if _integral(df, col, T) else "string")


def _n_groups(n_partitions: Optional[int], spark: Any) -> int:
    if n_partitions is None:
        return max(1, int(spark.conf.get("spark.sql.shuffle.partitions")))
    if not isinstance(n_partitions, int) or isinstance(n_partitions, bool) or n_partitions < 1:
        raise ValueError(f"n_partitions must be a positive int, got {n_partitions!r}")
    return n_partitions


def _columns(table: Any, names: Sequence[str]) -> Tuple[Any, ...]:
    return tuple(table[c] for c in names)


def _arrow_task(req: Request, out_query: str, qrels: Any, run: Any) -> Any:
    """Executor side (Spark >= 4): one group's qrels and run as Arrow tables."""
    import pyarrow as pa

    cols = evaluate_columns(_columns(qrels, _COLS), _columns(run, _COLS), req)
    arrays = [pa.array(cols[QUERY].tolist(), type=pa.string())]
    arrays += [pa.array(cols[c]) for c in req.value_columns()]
    return pa.Table.from_arrays(arrays, names=[out_query] + req.value_columns())


def _pandas_task(req: Request, out_query: str, qrels: Any, run: Any) -> Any:
    """Executor side (Spark 3.4, 3.5): one group as pandas DataFrames."""
    import pandas as pd

    cols = evaluate_columns(_columns(qrels, _COLS), _columns(run, _COLS), req)
    frame = pd.DataFrame({c: cols[c] for c in req.value_columns()})
    frame.insert(0, out_query, cols[QUERY])
    return frame


def _collect(result: Any) -> Dict[str, Any]:
    """The per-query summary input, gathered on the driver (one row per query)."""
    if hasattr(result, "toArrow"):
        table = result.toArrow()
        return {c: table[c].to_numpy(zero_copy_only=False) for c in table.column_names}
    frame = result.toPandas()
    return {c: frame[c].to_numpy() for c in frame.columns}
