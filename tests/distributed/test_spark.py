"""irscore.spark.evaluate against irscore.evaluate on the same data (Spark local[2]).

Skipped, with the reason, where pyspark or a Java runtime is absent.  Marked
``spark`` (a separate CI step can select or deselect them with ``-m``).
"""
import os
import shutil
import sys

import numpy as np
import pytest

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (in the clone: pip install '.[spark]')")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

import irscore  # noqa: E402
from distributed_cases import MEASURES, OPTIONS, per_query_dict, rows  # noqa: E402

pytestmark = [pytest.mark.spark, pytest.mark.filterwarnings("ignore::FutureWarning"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning")]

QRELS_COLS = ["query_id", "doc_id", "relevance"]
RUN_COLS = ["query_id", "doc_id", "score"]


def _java() -> bool:
    home = os.environ.get("JAVA_HOME")
    return bool(shutil.which("java") or (home and os.path.exists(os.path.join(home, "bin", "java"))))


@pytest.fixture(scope="session")
def spark():
    if not _java():
        pytest.skip("no Java runtime (java on PATH or JAVA_HOME) for Spark's local mode")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("irscore-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.default.parallelism", "2")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.driver.memory", "1g")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def data():
    q, r = rows()
    return pd.DataFrame(q, columns=QRELS_COLS), pd.DataFrame(r, columns=RUN_COLS)


_LAYOUTS: dict = {}


def _layout(spark, frame: "pd.DataFrame", layout: str):
    """A Spark DataFrame of ``frame`` laid out across input partitions (cached)."""
    key = (id(frame), layout)
    if key not in _LAYOUTS:
        _LAYOUTS[key] = _make_layout(spark, frame, layout).cache()
    return _LAYOUTS[key]


def _make_layout(spark, frame: "pd.DataFrame", layout: str):
    from pyspark.sql import functions as F

    if layout == "spread":      # rows of every query spread round-robin over 5 partitions
        df = spark.createDataFrame(frame.sample(frac=1.0, random_state=3)).repartition(5)
        assert _max_per(df, "query_id", F.spark_partition_id()) > 1
        return df
    if layout == "per_query":   # one query per input partition
        groups = [list(g.itertuples(index=False, name=None)) for _, g in frame.groupby("query_id", sort=False)]
        rdd = spark.sparkContext.parallelize(groups, numSlices=len(groups)).flatMap(lambda g: g)
        df = spark.createDataFrame(rdd, spark.createDataFrame(frame.iloc[:1]).schema)
        assert _max_per(df, F.spark_partition_id(), "query_id") == 1
        return df
    assert layout == "single"   # everything in one partition
    return spark.createDataFrame(frame).coalesce(1)


def _max_per(df, key, value) -> int:
    """The largest number of distinct ``value`` for one ``key``."""
    pairs = df.select(df[key].alias("k") if isinstance(key, str) else key.alias("k"),
                      df[value].alias("v") if isinstance(value, str) else value.alias("v")).distinct()
    return pairs.groupBy("k").count().agg({"count": "max"}).first()[0]


def _check(spark_q, spark_r, q, r, measures, n_partitions, **options):
    """Per-query values and summary of irscore.spark equal irscore.evaluate's, exactly."""
    expected = irscore.evaluate(q, r, measures, per_query=True, **options)
    keys = list(expected)
    frame = irscore.spark.evaluate(spark_q, spark_r, measures, per_query=True, n_partitions=n_partitions,
                                   **options).toPandas()
    np.testing.assert_equal(per_query_dict(frame, "query_id", keys), expected)
    summary = irscore.spark.evaluate(spark_q, spark_r, measures, n_partitions=n_partitions, **options)
    np.testing.assert_equal(summary, irscore.evaluate(q, r, measures, **options))
    assert list(summary) == keys


@pytest.mark.parametrize("layout", ["spread", "per_query", "single"])
@pytest.mark.parametrize("groups", [1, 3, 64])
def test_every_measure_equals_evaluate(spark, data, layout, groups):
    q, r = data
    spark_q, spark_r = _layout(spark, q, layout), _layout(spark, r, "spread" if layout == "per_query" else layout)
    options = {"complete": True} if groups == 3 else {}
    _check(spark_q, spark_r, q, r, MEASURES, n_partitions=groups, **options)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_trec_eval_options(spark, data, options):
    q, r = data
    _check(_layout(spark, q, "spread"), _layout(spark, r, "spread"), q, r, MEASURES, n_partitions=5, **options)


def test_integer_ids_and_other_column_names(spark, data):
    q, r = data
    codes = {qid: i for i, qid in enumerate(sorted(set(q.query_id) | set(r.query_id)))}
    docs = {d: i for i, d in enumerate(sorted(set(q.doc_id) | set(r.doc_id)))}
    q2 = pd.DataFrame({"qid": q.query_id.map(codes), "docno": q.doc_id.map(docs), "label": q.relevance})
    r2 = pd.DataFrame({"qid": r.query_id.map(codes), "docno": r.doc_id.map(docs), "score": r.score})
    measures = ["map", "gm_map", "ndcg_cut_10", "P_5", "num_rel", "Rnorm(N=100)", "CRP_loss"]
    for complete in (False, True):
        frame = irscore.spark.evaluate(spark.createDataFrame(q2), spark.createDataFrame(r2), measures,
                                       per_query=True, complete=complete, query_col="qid", doc_col="docno",
                                       relevance_col="label", n_partitions=2).toPandas()
        as_text = (q2.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}).astype(
            {"query_id": str, "doc_id": str}), r2.rename(columns={"qid": "query_id", "docno": "doc_id"}).astype(
            {"query_id": str, "doc_id": str}))
        expected = irscore.evaluate(*as_text, measures, per_query=True, complete=complete)
        np.testing.assert_equal(per_query_dict(frame, "qid", list(expected)), expected)


def test_repeated_run_entries_keep_the_best_ranked_with_a_warning(spark, data):
    # as irscore.read_run: the best-ranked entry is kept, whatever the row order
    # (a dict -- Run.from_dict/from_pandas -- keeps the last row instead)
    q, r = data
    r2 = pd.concat([r.iloc[:3].assign(score=-1.0), r, r.iloc[3:6].assign(score=-2.0)], ignore_index=True)
    with pytest.warns(RuntimeWarning, match="6 repeated"):
        got = irscore.spark.evaluate(spark.createDataFrame(q), spark.createDataFrame(r2.sample(frac=1.0, random_state=5)),
                                     ["map", "num_ret"], n_partitions=3)
    assert got == irscore.evaluate(q, r, ["map", "num_ret"])


def test_errors_before_any_job(spark, data):
    q, r = data
    sq, sr = spark.createDataFrame(q), spark.createDataFrame(r)
    with pytest.raises(ValueError, match="unknown measure"):
        irscore.spark.evaluate(sq, sr, ["mapp"])
    with pytest.raises(ValueError, match="collection size N"):
        irscore.spark.evaluate(sq, sr, ["Rnorm"])
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['label'\]"):
        irscore.spark.evaluate(sq, sr, ["map"], relevance_col="label")
    with pytest.raises(TypeError, match="must be numeric"):
        irscore.spark.evaluate(sq.withColumn("relevance", sq.relevance.cast("string")), sr, ["map"])
    with pytest.raises(TypeError, match="must be a Spark DataFrame"):
        irscore.spark.evaluate(q, sr, ["map"])
    with pytest.raises(ValueError, match="n_partitions"):
        irscore.spark.evaluate(sq, sr, ["map"], n_partitions=0)
    with pytest.raises(ValueError, match="max_docs"):
        irscore.spark.evaluate(sq, sr, ["map"], max_docs=-1)


def test_no_common_query(spark, data):
    q, r = data
    only = r[r.query_id.isin(["q15", "q16"])]
    with pytest.raises(ValueError, match="no queries with both"):
        irscore.spark.evaluate(spark.createDataFrame(q), spark.createDataFrame(only), ["map"], n_partitions=2)
    # -c: every judged query counts, scored as without a ranking
    got = irscore.spark.evaluate(spark.createDataFrame(q), spark.createDataFrame(only), ["map", "num_q", "num_rel"],
                                 complete=True, n_partitions=2)
    assert got == irscore.evaluate(q, only, ["map", "num_q", "num_rel"], complete=True)


def test_bad_values_name_the_column(spark, data):
    q, r = data
    bad = q.assign(relevance=q.relevance.astype(float))
    bad.loc[0, "relevance"] = 1.5
    with pytest.raises(ValueError, match=r"^qrels: relevance 1.5 is not an integer$"):
        irscore.spark.evaluate(spark.createDataFrame(bad), spark.createDataFrame(r), ["map"], n_partitions=2)
    with pytest.raises(ValueError, match=r"relevance 1.5 is not an integer$"):
        irscore.evaluate(bad, r, ["map"])        # the single-process path (it names the query and doc)


def _one_line(info):
    text = str(info.value)
    assert "\n" not in text and "Traceback" not in text and "java" not in text.lower()


def test_input_errors_are_one_line_value_errors_checked_on_the_driver(spark, data):
    """A NaN or infinite score, a null id, a fractional grade: the ValueError
    of the single-process path, raised by a worker and re-raised as itself
    (summary), or found by an aggregate on the driver (per_query=True: the
    frame it returns is lazy)."""
    from pyspark.sql import functions as F

    q, r = data
    sq, sr = spark.createDataFrame(q), spark.createDataFrame(r)
    first = F.col("doc_id") == r.doc_id.iloc[0]
    nan = sr.withColumn("score", F.when(first, F.lit(float("nan"))).otherwise(F.col("score")))
    inf = sr.withColumn("score", F.when(first, F.lit(float("-inf"))).otherwise(F.col("score")))
    null_doc = sr.withColumn("doc_id", F.when(first, F.lit(None)).otherwise(F.col("doc_id")))
    null_query = sq.withColumn("query_id", F.when(F.col("doc_id") == q.doc_id.iloc[0], F.lit(None))
                               .otherwise(F.col("query_id")))
    for per_query in (False, True):
        for qq, rr, message in ((sq, nan, r"^run: score nan is not finite$"),
                                (sq, inf, r"^run: score -inf is not finite$"),
                                (sq, null_doc, r"^run: doc ids: \d+ null value\(s\)$"),
                                (null_query, sr, r"^qrels: query ids: \d+ null value\(s\)$")):
            with pytest.raises(ValueError, match=message) as info:
                irscore.spark.evaluate(qq, rr, ["map"], per_query=per_query, n_partitions=2)
            _one_line(info)
    with pytest.raises(ValueError, match="is not finite"):
        irscore.evaluate(q, nan.toPandas(), ["map"])        # the single-process path refuses it too


def test_a_worker_error_is_reraised_as_itself(spark, data):
    """An error only a worker finds (a grade beyond int32) comes back as the
    worker's one-line ValueError, not pyspark's PythonException."""
    q, r = data
    big = q.assign(relevance=q.relevance.astype("int64"))
    big.loc[0, "relevance"] = 2 ** 40
    with pytest.raises(ValueError, match=r"^qrels: relevance out of the int32 range$") as info:
        irscore.spark.evaluate(spark.createDataFrame(big), spark.createDataFrame(r), ["map"], n_partitions=2)
    _one_line(info)


def test_decimal_and_float_grades(spark, data):
    q, r = data
    sq = spark.createDataFrame(q)
    got_dec = irscore.spark.evaluate(sq.withColumn("relevance", sq.relevance.cast("decimal(10,0)")),
                                     spark.createDataFrame(r), ["map", "ndcg", "num_rel"], n_partitions=2)
    got_dbl = irscore.spark.evaluate(sq.withColumn("relevance", sq.relevance.cast("double")),
                                     spark.createDataFrame(r), ["map", "ndcg", "num_rel"], n_partitions=2)
    expected = irscore.evaluate(q, r, ["map", "ndcg", "num_rel"])
    assert got_dec == expected
    assert got_dbl == expected
