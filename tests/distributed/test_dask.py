"""irscore.dask.evaluate against irscore.evaluate on the same data (a Dask
LocalCluster of 2 worker processes, 1 thread each).

Skipped, with the reason, where dask[distributed] is absent.  Marked ``dask``.
"""
import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe", reason="dask is not installed (in the clone: pip install '.[dask]')")
distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (in the clone: pip install '.[dask]')")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

import irscore  # noqa: E402
from distributed_cases import MEASURES, OPTIONS, per_query_dict, rows  # noqa: E402

pytestmark = [pytest.mark.dask]

SOME = ["map", "gm_map", "num_rel", "num_ret", "ndcg_cut_10", "Rnorm(N=200)", "CRP_recovery"]
QRELS_COLS = ["query_id", "doc_id", "relevance"]
RUN_COLS = ["query_id", "doc_id", "score"]


@pytest.fixture(scope="module")
def client():
    import logging

    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, memory_limit="1GiB")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def data():
    q, r = rows()
    return pd.DataFrame(q, columns=QRELS_COLS), pd.DataFrame(r, columns=RUN_COLS)


def _per_query_parts(frame, queries):
    return [frame[frame.query_id == qid] for qid in queries]


def _layout(frame, layout: str):
    """A Dask DataFrame of ``frame`` laid out across input partitions."""
    if layout == "spread":      # rows of every query spread over 5 partitions
        shuffled = frame.sample(frac=1.0, random_state=3).reset_index(drop=True)
        df = dd.from_pandas(shuffled, npartitions=5, sort=False)
        owners = [set(p.query_id) for p in df.partitions]
        assert any(sum(qid in o for o in owners) > 1 for qid in frame.query_id)
        return df
    if layout == "per_query":   # one query per input partition
        parts = _per_query_parts(frame, list(dict.fromkeys(frame.query_id)))
        df = dd.concat([dd.from_pandas(p, npartitions=1, sort=False) for p in parts])
        assert df.npartitions == len(parts)
        return df
    assert layout == "single"   # everything in one partition
    return dd.from_pandas(frame, npartitions=1, sort=False)


def _check(dq, dr, q, r, measures, npartitions=None, **options):
    expected = irscore.evaluate(q, r, measures, per_query=True, **options)
    keys = list(expected)
    lazy = irscore.dask.evaluate(dq, dr, measures, per_query=True, npartitions=npartitions, **options)
    assert isinstance(lazy, dd.DataFrame)
    np.testing.assert_equal(per_query_dict(lazy.compute(), "query_id", keys), expected)
    summary = irscore.dask.evaluate(dq, dr, measures, npartitions=npartitions, **options)
    np.testing.assert_equal(summary, irscore.evaluate(q, r, measures, **options))
    assert list(summary) == keys


@pytest.mark.parametrize("layout", ["spread", "per_query", "single"])
@pytest.mark.parametrize("parts", [1, 3, 16])
def test_every_measure_equals_evaluate(client, data, layout, parts):
    q, r = data
    options = {"complete": True} if parts == 3 else {}
    _check(_layout(q, layout), _layout(r, layout), q, r, MEASURES, npartitions=parts, **options)


@pytest.mark.parametrize("method", [None, "p2p", "tasks"])
def test_the_configured_shuffle_method(client, data, method):
    """irscore's default (tasks) and a method set in dask.config give the
    same values; the configured one is the one used."""
    import dask

    q, r = data
    seen = []
    original = dd.DataFrame.shuffle

    def spy(self, *args, **kwargs):
        seen.append(kwargs.get("shuffle_method"))
        return original(self, *args, **kwargs)

    with dask.config.set({"dataframe.shuffle.method": method}), pytest.MonkeyPatch.context() as mp:
        mp.setattr(dd.DataFrame, "shuffle", spy)
        _check(_layout(q, "spread"), _layout(r, "spread"), q, r, SOME, npartitions=4)
    assert set(seen) == {method or "tasks"}


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_trec_eval_options(client, data, options):
    q, r = data
    _check(_layout(q, "spread"), _layout(r, "spread"), q, r, MEASURES, npartitions=4, **options)


def test_already_partitioned_by_query(client, data):
    q, r = data
    queries = sorted(set(q.query_id) | set(r.query_id))
    dq = dd.concat([dd.from_pandas(p, npartitions=1, sort=False) for p in _per_query_parts(q, queries)])
    dr = dd.concat([dd.from_pandas(p, npartitions=1, sort=False) for p in _per_query_parts(r, queries)])
    for complete, measures in ((False, MEASURES), (True, SOME)):
        got = irscore.dask.evaluate(dq, dr, measures, per_query=True, compute=True, shuffle=False,
                                    complete=complete)
        expected = irscore.evaluate(q, r, measures, per_query=True, complete=complete)
        np.testing.assert_equal(per_query_dict(got, "query_id", list(expected)), expected)
        np.testing.assert_equal(irscore.dask.evaluate(dq, dr, measures, shuffle=False, complete=complete),
                                irscore.evaluate(q, r, measures, complete=complete))
    # frames that are not partitioned by query: a query met twice is an error
    with pytest.raises(ValueError, match="not partitioned by query"):
        irscore.dask.evaluate(_layout(q, "spread"), _layout(r, "spread"), ["map"], shuffle=False)
    with pytest.raises(ValueError, match="partitioned alike"):
        irscore.dask.evaluate(dq, _layout(r, "spread"), ["map"], shuffle=False)


def test_integer_ids_and_other_column_names(client, data):
    q, r = data
    codes = {qid: i for i, qid in enumerate(sorted(set(q.query_id) | set(r.query_id)))}
    docs = {d: i for i, d in enumerate(sorted(set(q.doc_id) | set(r.doc_id)))}
    q2 = pd.DataFrame({"qid": q.query_id.map(codes), "docno": q.doc_id.map(docs), "label": q.relevance})
    r2 = pd.DataFrame({"qid": r.query_id.map(codes), "docno": r.doc_id.map(docs), "score": r.score})
    measures = SOME
    got = irscore.dask.evaluate(dd.from_pandas(q2, npartitions=3), dd.from_pandas(r2, npartitions=2), measures,
                                per_query=True, compute=True, query_col="qid", doc_col="docno",
                                relevance_col="label", complete=True)
    as_text = (q2.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}).astype(
        {"query_id": str, "doc_id": str}), r2.rename(columns={"qid": "query_id", "docno": "doc_id"}).astype(
        {"query_id": str, "doc_id": str}))
    expected = irscore.evaluate(*as_text, measures, per_query=True, complete=True)
    np.testing.assert_equal(per_query_dict(got, "qid", list(expected)), expected)


def test_errors_before_any_work(client, data):
    q, r = data
    dq, dr = dd.from_pandas(q, npartitions=2), dd.from_pandas(r, npartitions=2)
    with pytest.raises(ValueError, match="unknown measure"):
        irscore.dask.evaluate(dq, dr, ["mapp"])
    with pytest.raises(ValueError, match="collection size N"):
        irscore.dask.evaluate(dq, dr, ["Rnorm"])
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['label'\]"):
        irscore.dask.evaluate(dq, dr, ["map"], relevance_col="label")
    with pytest.raises(TypeError, match="must be numeric"):
        irscore.dask.evaluate(dq.assign(relevance=dq.relevance.astype(str)), dr, ["map"])
    with pytest.raises(TypeError, match="must be a Dask DataFrame"):
        irscore.dask.evaluate(q, dr, ["map"])
    with pytest.raises(ValueError, match="npartitions"):
        irscore.dask.evaluate(dq, dr, ["map"], npartitions=0)
    with pytest.raises(TypeError, match="relevance_level"):
        irscore.dask.evaluate(dq, dr, ["map"], relevance_level="2")


def test_no_common_query(client, data):
    q, r = data
    only = r[r.query_id.isin(["q15", "q16"])]
    dq, do = dd.from_pandas(q, npartitions=2), dd.from_pandas(only, npartitions=2)
    with pytest.raises(ValueError, match="no queries with both"):
        irscore.dask.evaluate(dq, do, ["map"])
    got = irscore.dask.evaluate(dq, do, ["map", "num_q", "num_rel"], complete=True)
    assert got == irscore.evaluate(q, only, ["map", "num_q", "num_rel"], complete=True)


def test_input_errors_are_one_line_value_errors(client, data):
    """A NaN score, a null doc id, a fractional grade: the worker's ValueError
    comes back as itself (one line, naming the column's role), as from the
    single-process path."""
    q, r = data
    nan = r.assign(score=r.score.where(r.index != 0, np.nan))
    null_doc = r.assign(doc_id=r.doc_id.astype(object).where(r.index != 0, None))
    frac = q.assign(relevance=q.relevance.astype(float).where(q.index != 0, 1.5))
    for qq, rr, message in ((q, nan, r"^run: score nan is not finite$"),
                            (q, null_doc, r"^run: doc ids: 1 null value\(s\)$"),
                            (frac, r, r"^qrels: relevance 1.5 is not an integer$")):
        with pytest.raises(ValueError, match=message) as info:
            irscore.dask.evaluate(dd.from_pandas(qq, npartitions=2), dd.from_pandas(rr, npartitions=2), ["map"])
        assert "\n" not in str(info.value)
