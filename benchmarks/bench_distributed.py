"""irscore on Spark and Dask vs Spark's RankingMetrics and single-process irscore.

Data: ``--queries`` x ``--docs`` ranked documents (default 10,000 x 1,000 =
10M rows; string query ids, integer document ids, scores rounded so that ties
occur) and, per query, ``--judged`` judged documents (grades 0-3, a tenth of
them outside the ranking), written once as Parquet under ``benchmarks/data/``
(``--chunk`` queries per row group) and reused.  Measures: MAP, nDCG@10, P@10,
RR.  RankingMetrics has no RR, and its nDCG is binary when called from Python
(see docs/distributed.md): for the value comparison, irscore's nDCG@10 of the
qrels with every grade >= 1 set to 1 is computed too (not timed).

Spark (``local[2]``, ``--driver-memory``): the qrels and run DataFrames are
read from Parquet and cached first; then, timed from those DataFrames to the
numbers (``--repeat`` runs of each side, every run printed, the least wall time
kept: the first run of a job also pays Spark's code generation for its plan):

- irscore: ``irscore.spark.evaluate`` (one native call per query group);
- RankingMetrics (``pyspark.mllib``), the usual way: per query the ranking
  (``collect_list`` of (score, doc id) sorted: score desc, doc id desc, as
  trec_eval orders ties) and the relevant documents (grade desc) built with
  Spark operations, joined, the (prediction, labels) RDD cached, then MAP, P@10
  and nDCG@10 (one job each, as the API computes them);
- RankingEvaluator (``pyspark.ml``, for reference: the DataFrame version,
  without Python rows): the same arrays, one ``evaluate`` per measure.

Dask (``LocalCluster`` of 1 and 2 worker processes, 1 thread each): the
frames are read from Parquet (a partition per row group) and persisted on the
cluster first; timed: ``irscore.dask.evaluate`` with the shuffle by query
(irscore's default, Dask's in-memory ``tasks`` method, and ``p2p`` set by
``dask.config``) and with ``shuffle=False`` (the row groups already hold whole
queries, alike).
Single process: ``irscore.evaluate`` on the pandas frames (its public path,
read through Arrow) and on ``Qrels``/``Run`` built from the Arrow columns by
:mod:`irscore.core.frames`.

The load average is printed around every timing.  Usage: ``python
benchmarks/bench_distributed.py [--queries N] [--docs N] [--engines
spark,dask,local]``.  Figures on a shared machine are indicative only;
measure on an idle machine.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

MEASURES = ["map", "ndcg_cut_10", "P_10", "recip_rank"]
BINARY_NDCG = "nDCG@10 binary"
DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def data_paths(args: argparse.Namespace) -> Tuple[str, str]:
    """The Parquet files of the benchmark's data (written once, then reused)."""
    tag = f"{args.queries}x{args.docs}j{args.judged}"
    return (os.path.join(DATA_DIR, f"distributed-qrels-{tag}.parquet"),
            os.path.join(DATA_DIR, f"distributed-run-{tag}.parquet"))


def write_data(args: argparse.Namespace, seed: int = 0) -> Tuple[str, str]:
    """Write the qrels and the run as Parquet, ``--chunk`` queries per row group
    (the same queries in row group *i* of both files), with Arrow arrays built
    from NumPy (no Python object per row), so 10M rows fit in a few hundred MB."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    qpath, rpath = data_paths(args)
    if os.path.exists(qpath) and os.path.exists(rpath):
        return qpath, rpath
    os.makedirs(DATA_DIR, exist_ok=True)
    rng = np.random.default_rng(seed)
    n_docs, judged = args.docs, min(args.judged, args.docs)
    outside = max(1, judged // 10)     # judged documents that are not ranked
    inside = judged - outside
    qschema = pa.schema([("query_id", pa.string()), ("doc_id", pa.int64()), ("relevance", pa.int64())])
    rschema = pa.schema([("query_id", pa.string()), ("doc_id", pa.int64()), ("score", pa.float64())])
    with pq.ParquetWriter(qpath + ".tmp", qschema) as qw, pq.ParquetWriter(rpath + ".tmp", rschema) as rw:
        for lo in range(0, args.queries, args.chunk):
            nq = min(args.chunk, args.queries - lo)
            names = pa.array([f"q{i}" for i in range(lo, lo + nq)], pa.string())

            def ids(per: int) -> Any:
                idx = pa.array(np.repeat(np.arange(nq, dtype=np.int32), per))
                return pa.DictionaryArray.from_arrays(idx, names).cast(pa.string())

            run = pa.table({"query_id": ids(n_docs),
                            "doc_id": np.tile(np.arange(n_docs, dtype=np.int64), nq),
                            "score": np.round(rng.random(nq * n_docs), 3)}, schema=rschema)
            rw.write_table(run, row_group_size=len(run))
            # per query: `inside` distinct ranked documents and `outside` documents beyond the ranking
            docs = np.sort(np.argsort(rng.random((nq, n_docs)), axis=1)[:, :inside], axis=1)
            extra = n_docs + 10 * np.arange(outside) + rng.integers(0, 10, size=(nq, outside))   # distinct
            qrels = pa.table({"query_id": ids(judged),
                              "doc_id": np.concatenate([docs, extra], axis=1).ravel().astype(np.int64),
                              "relevance": rng.choice([0, 0, 1, 1, 2, 3], size=nq * judged).astype(np.int64)},
                             schema=qschema)
            qw.write_table(qrels, row_group_size=len(qrels))
    os.replace(qpath + ".tmp", qpath)
    os.replace(rpath + ".tmp", rpath)
    return qpath, rpath


def load_pandas(path: str) -> Any:
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pandas()


def load_avg() -> str:
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def tree_cpu() -> float:
    """CPU seconds (user + system) used so far by this process and its live
    descendants -- the Spark JVM and its Python workers, the Dask worker
    processes -- read from /proc (Linux; NaN elsewhere).  Less sensitive to
    the machine's load than the wall time (workers that exit in between are
    not counted: Spark reuses its Python workers, the Dask cluster lives
    across a timing)."""
    try:
        parent: Dict[int, int] = {}
        ticks: Dict[int, int] = {}
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    with open(f"/proc/{pid}/stat") as f:
                        stat = f.read()
                except OSError:
                    continue
                rest = stat[stat.rindex(")") + 2:].split()
                parent[int(pid)], ticks[int(pid)] = int(rest[1]), int(rest[11]) + int(rest[12])
    except OSError:
        return float("nan")
    children: Dict[int, List[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    total, stack = 0, [os.getpid()]
    while stack:
        pid = stack.pop()
        total += ticks.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total / os.sysconf("SC_CLK_TCK")


Timing = Tuple[float, float, Any]      # wall seconds, CPU seconds (tree_cpu), result


def timed(fn: Callable[[], Any]) -> Timing:
    c, t = tree_cpu(), time.perf_counter()
    out = fn()
    return time.perf_counter() - t, tree_cpu() - c, out


def best_of(fn: Callable[[], Any], repeat: int, label: str) -> Timing:
    """The run with the least wall time of ``repeat`` runs (each one printed:
    the first includes Spark's code generation for the job's plan)."""
    best: Optional[Timing] = None
    for k in range(max(1, repeat)):
        t = timed(fn)
        show(f"{label} (run {k + 1} of {repeat})", t)
        if best is None or t[0] < best[0]:
            best = t
    assert best is not None
    return best


def show(label: str, t: Timing) -> None:
    print(f"{label}: {t[0]:.2f} s wall, {t[1]:.2f} s CPU, {load_avg()}", flush=True)


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


def bench_spark(paths: Tuple[str, str], args: argparse.Namespace) -> Dict[str, Any]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    import irscore

    spark = (SparkSession.builder.master("local[2]").appName("irscore-bench")
             .config("spark.ui.enabled", "false")
             .config("spark.driver.memory", args.driver_memory)
             .config("spark.sql.shuffle.partitions", str(args.spark_partitions))
             .config("spark.sql.execution.arrow.pyspark.enabled", "true")
             .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(args.arrow_batch))
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    qrels = spark.read.parquet(paths[0]).repartition(4).cache()
    run = spark.read.parquet(paths[1]).repartition(8).cache()
    qrels.count(), run.count()
    out: Dict[str, Any] = {}
    # warm-up on a small slice (Python workers start, modules load), not timed
    irscore.spark.evaluate(qrels.limit(1000), run.limit(1000), MEASURES)

    print(f"spark irscore: start, {load_avg()}", flush=True)
    out["irscore"] = best_of(lambda: irscore.spark.evaluate(qrels, run, MEASURES), args.repeat, "spark irscore")

    def ranking_metrics() -> Dict[str, float]:
        from pyspark.mllib.evaluation import RankingMetrics

        # (prediction, labels) pairs: the Python wrapper passes only these two to Scala (a third
        # element, the grades, would be shipped and ignored), so they are all it is given here
        rdd = ranking_columns(qrels, run).select("pred", "lab").rdd.map(tuple).cache()
        m = RankingMetrics(rdd)
        res = {"map": m.meanAveragePrecision, "P_10": m.precisionAt(10), BINARY_NDCG: m.ndcgAt(10)}
        rdd.unpersist()
        return res

    out["RankingMetrics"] = best_of(ranking_metrics, args.repeat, "spark RankingMetrics")

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

    if args.ranking_evaluator:
        out["RankingEvaluator"] = best_of(ranking_evaluator, args.repeat, "spark RankingEvaluator")
    qrels.unpersist(), run.unpersist()
    spark.stop()
    return out


# ---------------------------------------------------------------- Dask

def bench_dask(paths: Tuple[str, str], workers: int, args: argparse.Namespace) -> Dict[str, Timing]:
    """Both frames read from Parquet (one partition per row group: the same
    queries in partition *i* of both), persisted, then timed: with the shuffle
    by query, and with ``shuffle=False`` (the frames are partitioned by query
    already)."""
    import logging

    import dask
    import dask.dataframe as dd
    from distributed import Client, LocalCluster, wait

    import irscore

    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
    out: Dict[str, Timing] = {}
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit=args.dask_memory) as cluster, Client(cluster) as client:
        qrels = client.persist(dd.read_parquet(paths[0], split_row_groups=True))
        run = client.persist(dd.read_parquet(paths[1], split_row_groups=True))
        wait([qrels, run])
        irscore.dask.evaluate(qrels.partitions[0], run.partitions[0], MEASURES)   # warm-up, not timed
        name = f"{workers} worker{'s' if workers > 1 else ''}"
        for label, shuffle, method in (("shuffle by query", True, None), ("shuffle by query, p2p", True, "p2p"),
                                       ("shuffle=False", False, None)):
            with dask.config.set({"dataframe.shuffle.method": method} if method else {}):
                t = timed(lambda: irscore.dask.evaluate(qrels, run, MEASURES, shuffle=shuffle))
            out[f"{name}, {label}"] = t
            show(f"dask {name}, {label} ({run.npartitions} partitions)", t)
    return out


def bench_local(paths: Tuple[str, str]) -> Dict[str, Timing]:
    import pyarrow.parquet as pq

    import irscore
    from irscore.core.frames import qrels_from_columns, run_from_columns

    qrels_pd, run_pd = load_pandas(paths[0]), load_pandas(paths[1])
    out = {"evaluate(pandas frames)": timed(lambda q=qrels_pd, r=run_pd: irscore.evaluate(q, r, MEASURES))}
    show("single process, evaluate(pandas frames)", out["evaluate(pandas frames)"])
    del qrels_pd, run_pd
    qt, rt = pq.read_table(paths[0]), pq.read_table(paths[1])

    def via_columns() -> Dict[str, float]:
        q = qrels_from_columns(qt["query_id"], qt["doc_id"], qt["relevance"])
        r = run_from_columns(rt["query_id"], rt["doc_id"], rt["score"])
        return irscore.evaluate(q, r, MEASURES)

    out["evaluate(Arrow columns)"] = timed(via_columns)
    show("single process, evaluate(Arrow columns)", out["evaluate(Arrow columns)"])
    return out


def binary_ndcg(paths: Tuple[str, str]) -> float:
    """irscore's nDCG@10 with the grades >= 1 set to 1 (RankingMetrics' reading)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    import irscore
    from irscore.core.frames import qrels_from_columns, run_from_columns

    qt, rt = pq.read_table(paths[0]), pq.read_table(paths[1])
    binary = pc.cast(pc.greater_equal(qt["relevance"], 1), "int64")
    q = qrels_from_columns(qt["query_id"], qt["doc_id"], binary)
    r = run_from_columns(rt["query_id"], rt["doc_id"], rt["score"])
    return irscore.evaluate(q, r, ["ndcg_cut_10"])["ndcg_cut_10"]


def main(argv: Optional[List[str]] = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--queries", type=int, default=10_000)
    p.add_argument("--docs", type=int, default=1_000)
    p.add_argument("--judged", type=int, default=100, help="judged documents per query")
    p.add_argument("--chunk", type=int, default=1_000, help="queries per Parquet row group (Dask partition)")
    p.add_argument("--engines", default="local,spark,dask")
    p.add_argument("--repeat", type=int, default=2,
                   help="Spark: runs of each side, the least wall time kept (every run is printed)")
    p.add_argument("--driver-memory", default="6g")
    p.add_argument("--spark-partitions", type=int, default=16, help="spark.sql.shuffle.partitions")
    p.add_argument("--arrow-batch", type=int, default=100_000,
                   help="spark.sql.execution.arrow.maxRecordsPerBatch")
    p.add_argument("--no-ranking-evaluator", dest="ranking_evaluator", action="store_false",
                   help="skip pyspark.ml's RankingEvaluator")
    p.add_argument("--dask-memory", default="4GiB", help="memory limit per Dask worker")
    p.add_argument("--dask-workers", default="1,2")
    args = p.parse_args(argv)
    engines = args.engines.split(",")
    t0 = time.perf_counter()
    paths = write_data(args)
    import pyarrow.parquet as pq

    n_run, n_qrels = pq.read_metadata(paths[1]).num_rows, pq.read_metadata(paths[0]).num_rows
    print(f"data: {args.queries} queries x {args.docs} docs = {n_run:,} run rows, {n_qrels:,} judgments "
          f"({paths[1]}, ready in {time.perf_counter() - t0:.1f} s); {os.cpu_count()} CPUs, {load_avg()}",
          flush=True)
    rows: List[Tuple[str, float, float, Dict[str, float]]] = []
    if "local" in engines:
        for name, (t, c, res) in bench_local(paths).items():
            rows.append((f"single process: {name}", t, c, res))
    if "dask" in engines:
        for w in [int(x) for x in args.dask_workers.split(",")]:
            for name, (t, c, res) in bench_dask(paths, w, args).items():
                rows.append((f"dask LocalCluster({name})", t, c, res))
    if "spark" in engines:
        for name, (t, c, res) in bench_spark(paths, args).items():
            rows.append((f"spark local[2]: {name}", t, c, res))
        rows.append(("irscore, grades>=1 set to 1 (not timed)", float("nan"), float("nan"),
                     {BINARY_NDCG: binary_ndcg(paths)}))
    keys = ["map", "P_10", "ndcg_cut_10", BINARY_NDCG, "recip_rank"]
    print(f"\n{'':56s} {'wall s':>7s} {'CPU s':>7s}  " + "  ".join(f"{k:>16s}" for k in keys))
    for name, t, c, res in rows:
        print(f"{name:56s} {t:7.2f} {c:7.2f}  "
              + "  ".join(f"{res[k]:16.12f}" if k in res else f"{'-':>16s}" for k in keys))
    wall = {name: t for name, t, _, _ in rows}
    cpu = {name: c for name, _, c, _ in rows}
    values = {name: res for name, _, _, res in rows}
    sp, rm = "spark local[2]: irscore", "spark local[2]: RankingMetrics"
    if sp in wall and rm in wall:
        print(f"\nRankingMetrics / irscore-on-Spark: {wall[rm] / wall[sp]:.1f}x wall, {cpu[rm] / cpu[sp]:.1f}x CPU")
        mine = {**values[sp], **values["irscore, grades>=1 set to 1 (not timed)"]}
        print("|RankingMetrics - irscore|: " + ", ".join(
            f"{k} {abs(values[rm][k] - mine[k]):.1e}" for k in ("map", "P_10", BINARY_NDCG)))
    local, arrow = "single process: evaluate(pandas frames)", "single process: evaluate(Arrow columns)"
    for name in wall:
        if local in wall and name.startswith("dask"):
            print(f"{name} / single-process evaluate(pandas frames): {wall[name] / wall[local]:.2f}x wall"
                  + (f"; / evaluate(Arrow columns): {wall[name] / wall[arrow]:.2f}x" if arrow in wall else ""))
    print(f"end: {load_avg()}")


if __name__ == "__main__":
    main()
