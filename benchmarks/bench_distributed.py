"""irscore on Spark and Dask vs Spark's RankingMetrics and single-process irscore.

Data: ``--queries`` x ``--docs`` ranked documents (default 10,000 x 1,000 =
10M rows; integer document ids, scores rounded so that ties occur) and, per
query, ``--judged`` judged documents (grades 0-3, a few outside the ranking).
Measures: MAP, nDCG@10, P@10, RR.  RankingMetrics has no RR, and its nDCG
is binary when called from Python (see docs/distributed.md): for the value
comparison, irscore's nDCG@10 of the qrels with every grade >= 1 set to 1 is
computed too (not timed).

Spark (``local[2]``, ``--driver-memory``): the qrels and run DataFrames are
built and cached first; then, timed from those DataFrames to the numbers:

- irscore: ``irscore.spark.evaluate`` (one native call per query group);
- RankingMetrics (``pyspark.mllib``): per query the ranking (score desc, doc id
  desc, as trec_eval orders ties) and the relevant documents with their grades
  (grade desc) built with Spark operations, the RDD cached, then MAP, P@10 and
  nDCG@10 (one job each, as the API computes them);
- RankingEvaluator (``pyspark.ml``, for reference: the DataFrame version,
  without Python rows): the same arrays, one ``evaluate`` per measure.

Dask (``LocalCluster`` of 1 and 2 worker processes, 1 thread each): the
frames are persisted on the cluster first; timed: ``irscore.dask.evaluate``.
Single process: ``irscore.evaluate`` on the pandas frames (its public path,
a dict per query) and on ``Qrels``/``Run`` built by :mod:`irscore.core.frames`.

Usage: ``python benchmarks/bench_distributed.py [--queries N] [--docs N]
[--engines spark,dask,local]``.  Figures on a shared machine are indicative
only; measure on an idle machine.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

MEASURES = ["map", "ndcg_cut_10", "P_10", "recip_rank"]
BINARY_NDCG = "nDCG@10 binary"


def make_data(n_queries: int, n_docs: int, n_judged: int, seed: int = 0) -> Tuple[Any, Any]:
    import pandas as pd

    rng = np.random.default_rng(seed)
    qids = np.array([f"q{i}" for i in range(n_queries)], dtype=object)
    run = pd.DataFrame({
        "query_id": np.repeat(qids, n_docs),
        "doc_id": np.tile(np.arange(n_docs, dtype=np.int64), n_queries),
        "score": np.round(rng.random(n_queries * n_docs), 3),
    })
    judged = min(n_judged, n_docs)
    outside = max(1, judged // 10)     # judged documents that are not ranked
    docs = np.concatenate([np.sort(rng.choice(n_docs, size=judged - outside, replace=False))
                           for _ in range(n_queries)]) if judged > outside else np.zeros(0, np.int64)
    extra = n_docs + rng.integers(0, 10 * n_docs, size=n_queries * outside)
    qrels = pd.DataFrame({
        "query_id": np.concatenate([np.repeat(qids, judged - outside), np.repeat(qids, outside)]),
        "doc_id": np.concatenate([docs, extra]).astype(np.int64),
        "relevance": rng.choice([0, 0, 1, 1, 2, 3], size=n_queries * judged).astype(np.int64),
    }).drop_duplicates(["query_id", "doc_id"])
    return qrels, run


def timed(fn: Callable[[], Any]) -> Tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


# ---------------------------------------------------------------- Spark

def ranking_columns(qrels: Any, run: Any) -> Any:
    """Per query: ``pred`` (doc ids by score desc, doc id desc as text), ``lab``
    (relevant doc ids, grade desc) and ``rel`` (their grades); queries judged
    and ranked, as trec_eval evaluates them."""
    from pyspark.sql import functions as F

    ranked = run.groupBy("query_id").agg(F.sort_array(F.collect_list(F.struct(
        F.col("score"), F.col("doc_id").cast("string").alias("d"), F.col("doc_id").alias("id"))),
        asc=False).alias("r")).select("query_id", F.col("r.id").alias("pred"))
    relevant = qrels.where(F.col("relevance") >= 1).groupBy("query_id").agg(F.sort_array(F.collect_list(
        F.struct(F.col("relevance"), F.col("doc_id"))), asc=False).alias("l")).select(
        "query_id", F.col("l.doc_id").alias("lab"), F.col("l.relevance").cast("array<double>").alias("rel"))
    judged = qrels.select("query_id").distinct().join(relevant, "query_id", "left").select(
        "query_id", F.coalesce("lab", F.array().cast("array<bigint>")).alias("lab"),
        F.coalesce("rel", F.array().cast("array<double>")).alias("rel"))
    return ranked.join(judged, "query_id", "inner")


def bench_spark(qrels_pd: Any, run_pd: Any, args: argparse.Namespace) -> Dict[str, Any]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    import irscore

    spark = (SparkSession.builder.master("local[2]").appName("irscore-bench")
             .config("spark.ui.enabled", "false")
             .config("spark.driver.memory", args.driver_memory)
             .config("spark.sql.shuffle.partitions", str(args.spark_partitions))
             .config("spark.sql.execution.arrow.pyspark.enabled", "true")
             .config("spark.sql.execution.arrow.maxRecordsPerBatch", "100000")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    qrels = spark.createDataFrame(qrels_pd).repartition(4).cache()
    run = spark.createDataFrame(run_pd).repartition(8).cache()
    qrels.count(), run.count()
    out: Dict[str, Any] = {}
    # warm-up on a small slice (Python workers start, modules load), not timed
    irscore.spark.evaluate(qrels.limit(1000), run.limit(1000), MEASURES)

    out["irscore"] = timed(lambda: irscore.spark.evaluate(qrels, run, MEASURES))

    def ranking_metrics() -> Dict[str, float]:
        from pyspark.mllib.evaluation import RankingMetrics

        rdd = ranking_columns(qrels, run).rdd.map(lambda r: (r.pred, r.lab, r.rel)).cache()
        m = RankingMetrics(rdd)
        res = {"map": m.meanAveragePrecision, "P_10": m.precisionAt(10), BINARY_NDCG: m.ndcgAt(10)}
        rdd.unpersist()
        return res

    out["RankingMetrics"] = timed(ranking_metrics)

    def ranking_evaluator() -> Dict[str, float]:
        from pyspark.ml.evaluation import RankingEvaluator
        from pyspark.sql import functions as F

        df = ranking_columns(qrels, run).select(F.col("pred").cast("array<double>").alias("prediction"),
                                                F.col("lab").cast("array<double>").alias("label")).cache()
        ev = RankingEvaluator(predictionCol="prediction", labelCol="label")
        res = {"map": ev.setMetricName("meanAveragePrecision").evaluate(df),
               "P_10": ev.setMetricName("precisionAtK").setK(10).evaluate(df),
               BINARY_NDCG: ev.setMetricName("ndcgAtK").setK(10).evaluate(df)}
        df.unpersist()
        return res

    out["RankingEvaluator"] = timed(ranking_evaluator)
    qrels.unpersist(), run.unpersist()
    spark.stop()
    return out


# ---------------------------------------------------------------- Dask

def bench_dask(qrels_pd: Any, run_pd: Any, workers: int, args: argparse.Namespace) -> Tuple[float, Any]:
    import logging

    import dask.dataframe as dd
    from distributed import Client, LocalCluster, wait

    import irscore

    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit=args.dask_memory) as cluster, Client(cluster) as client:
        parts = args.dask_partitions
        qrels = client.persist(dd.from_pandas(qrels_pd, npartitions=max(1, parts // 2)))
        run = client.persist(dd.from_pandas(run_pd, npartitions=parts))
        wait([qrels, run])
        irscore.dask.evaluate(qrels.partitions[0], run.partitions[0], MEASURES)   # warm-up, not timed
        return timed(lambda: irscore.dask.evaluate(qrels, run, MEASURES))


def bench_local(qrels_pd: Any, run_pd: Any) -> Dict[str, Tuple[float, Any]]:
    import irscore
    from irscore.core.frames import qrels_from_columns, run_from_columns

    out = {"evaluate(pandas frames)": timed(lambda: irscore.evaluate(qrels_pd, run_pd, MEASURES))}

    def via_columns() -> Dict[str, float]:
        q = qrels_from_columns(qrels_pd["query_id"], qrels_pd["doc_id"], qrels_pd["relevance"])
        r = run_from_columns(run_pd["query_id"], run_pd["doc_id"], run_pd["score"])
        return irscore.evaluate(q, r, MEASURES)

    out["evaluate(irscore.core.frames)"] = timed(via_columns)
    return out


def binary_ndcg(qrels_pd: Any, run_pd: Any) -> float:
    """irscore's nDCG@10 with the grades >= 1 set to 1 (RankingMetrics' reading)."""
    import irscore

    binary = qrels_pd.assign(relevance=(qrels_pd["relevance"] >= 1).astype("int64"))
    return irscore.evaluate(binary, run_pd, ["ndcg_cut_10"])["ndcg_cut_10"]


def main(argv: List[str] = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--queries", type=int, default=10_000)
    p.add_argument("--docs", type=int, default=1_000)
    p.add_argument("--judged", type=int, default=100, help="judged documents per query")
    p.add_argument("--engines", default="local,spark,dask")
    p.add_argument("--driver-memory", default="6g")
    p.add_argument("--spark-partitions", type=int, default=16)
    p.add_argument("--dask-partitions", type=int, default=8)
    p.add_argument("--dask-memory", default="4GiB", help="memory limit per Dask worker")
    p.add_argument("--dask-workers", default="1,2")
    args = p.parse_args(argv)
    engines = args.engines.split(",")
    t0 = time.perf_counter()
    qrels, run = make_data(args.queries, args.docs, args.judged)
    print(f"data: {args.queries} queries x {args.docs} docs = {len(run):,} run rows, {len(qrels):,} judgments "
          f"(built in {time.perf_counter() - t0:.1f} s)")
    rows: List[Tuple[str, float, Dict[str, float]]] = []
    if "local" in engines:
        for name, (t, res) in bench_local(qrels, run).items():
            rows.append((f"single process: {name}", t, res))
    if "dask" in engines:
        for w in [int(x) for x in args.dask_workers.split(",")]:
            t, res = bench_dask(qrels, run, w, args)
            rows.append((f"dask LocalCluster({w} worker{'s' if w > 1 else ''})", t, res))
    if "spark" in engines:
        for name, (t, res) in bench_spark(qrels, run, args).items():
            rows.append((f"spark local[2]: {name}", t, res))
    if "spark" in engines:
        rows.append(("irscore (single process, not timed): binary", float("nan"),
                     {BINARY_NDCG: binary_ndcg(qrels, run)}))
    keys = ["map", "P_10", "ndcg_cut_10", BINARY_NDCG, "recip_rank"]
    print(f"\n{'':45s} {'seconds':>8s}  " + "  ".join(f"{k:>17s}" for k in keys))
    for name, t, res in rows:
        print(f"{name:45s} {t:8.2f}  " + "  ".join(f"{res[k]:17.12f}" if k in res else f"{'-':>17s}" for k in keys))
    base = {name: t for name, t, _ in rows}
    sp, rm = base.get("spark local[2]: irscore"), base.get("spark local[2]: RankingMetrics")
    if sp and rm:
        print(f"\nRankingMetrics / irscore-on-Spark: {rm / sp:.1f}x")
    local = base.get("single process: evaluate(pandas frames)")
    for name, t in base.items():
        if local and name.startswith("dask"):
            print(f"{name} / single-process evaluate(pandas frames): {t / local:.2f}x")


if __name__ == "__main__":
    main()
