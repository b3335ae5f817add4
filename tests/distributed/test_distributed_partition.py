"""The worker and driver halves of irscore.spark / irscore.dask without an
engine: the queries of random data split into batches of whole queries in
random ways, each batch evaluated alone, the rows gathered in any order and
summarised, give exactly irscore.evaluate's per-query values and summary."""
import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

import irscore  # noqa: E402
from distributed_cases import MEASURES, OPTIONS, rows  # noqa: E402
from irscore.distributed.partition import QUERY, evaluate_columns, make_request, summarize_columns  # noqa: E402

SOME = ["map", "gm_map", "gm_bpref", "num_q", "num_rel", "num_ret", "num_rel_ret", "P_5", "ndcg_cut_10",
        "recip_rank", "bpref", "infAP", "Rnorm(N=300)", "Pnorm(N=300)", "CRP_loss", "CRP_recovery"]


def _random_data(rng):
    n_q = int(rng.integers(1, 25))
    qids = [f"q{i}" for i in rng.permutation(40)[:n_q]]
    qrels, run = [], []
    for q in qids:
        if rng.random() < 0.85:
            for d in rng.choice(80, size=int(rng.integers(1, 25)), replace=False):
                qrels.append((q, f"d{d}", int(rng.choice([-1, 0, 0, 1, 1, 2, 4]))))
        if rng.random() < 0.85:
            for d in rng.choice(80, size=int(rng.integers(1, 60)), replace=False):
                run.append((q, f"d{d}", float(rng.integers(0, 10))))
    if not qrels:
        qrels.append((qids[0], "d0", 1))
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))


def _distributed(q, r, measures, rng, per_query, **options):
    """Evaluate in random batches of whole queries, gather in random order."""
    req = make_request(measures, summary=not per_query, **options)
    queries = sorted(set(q.query_id) | set(r.query_id))
    n_batches = int(rng.integers(1, len(queries) + 2))
    batch_of = {qid: int(rng.integers(0, n_batches)) for qid in queries}
    parts = []
    for b in rng.permutation(n_batches):
        qb = q[q.query_id.map(batch_of) == b].sample(frac=1.0, random_state=int(b))   # any row order
        rb = r[r.query_id.map(batch_of) == b].sample(frac=1.0, random_state=int(b) + 1)
        cols = evaluate_columns([qb[c] for c in q.columns], [rb[c] for c in r.columns], req)
        parts.append(pd.DataFrame(cols))
    gathered = pd.concat(parts, ignore_index=True)
    if per_query:
        return {k: dict(zip(gathered[QUERY], map(float, gathered[k]))) for k in req.keys}
    return summarize_columns({c: gathered[c].to_numpy() for c in gathered.columns}, req)


@pytest.mark.parametrize("seed", range(60))
def test_random_batches_equal_evaluate(seed):
    rng = np.random.default_rng(seed)
    q, r = _random_data(rng)
    options = [{}, *OPTIONS][seed % (len(OPTIONS) + 1)]
    try:
        expected = irscore.evaluate(q, r, SOME, **options)
    except ValueError as exc:
        assert "no queries with both" in str(exc)
        with pytest.raises(ValueError, match="no queries with both"):
            _distributed(q, r, SOME, rng, False, **options)
        return
    np.testing.assert_equal(_distributed(q, r, SOME, rng, False, **options), expected)
    np.testing.assert_equal(_distributed(q, r, SOME, rng, True, **options),
                            irscore.evaluate(q, r, SOME, per_query=True, **options))


def test_every_measure_in_random_batches():
    rng = np.random.default_rng(1)
    q, r = (pd.DataFrame(x, columns=c) for x, c in zip(rows(), (["query_id", "doc_id", "relevance"],
                                                              ["query_id", "doc_id", "score"])))
    for options in [{}, *OPTIONS]:
        np.testing.assert_equal(_distributed(q, r, MEASURES, rng, False, **options),
                                irscore.evaluate(q, r, MEASURES, **options))
        np.testing.assert_equal(_distributed(q, r, MEASURES, rng, True, **options),
                                irscore.evaluate(q, r, MEASURES, per_query=True, **options))


def test_a_query_in_two_batches_is_an_error():
    q, r = (pd.DataFrame(x, columns=c) for x, c in zip(rows(), (["query_id", "doc_id", "relevance"],
                                                              ["query_id", "doc_id", "score"])))
    req = make_request(["map"], summary=True)
    half = len(r) // 2
    parts = [pd.DataFrame(evaluate_columns([q[c] for c in q.columns], [rp[c] for c in r.columns], req))
             for rp in (r.iloc[:half], r.iloc[half:])]
    gathered = pd.concat(parts, ignore_index=True)
    with pytest.raises(ValueError, match="not partitioned by query"):
        summarize_columns({c: gathered[c].to_numpy() for c in gathered.columns}, req)


def test_engine_task_functions_without_an_engine():
    """The Spark (Arrow and pandas) and Dask task functions give the same rows."""
    import pyarrow as pa

    from irscore.distributed import dask as idask
    from irscore.distributed import spark as ispark

    q, r = (pd.DataFrame(x, columns=c) for x, c in zip(rows(), (["q", "d", "v"], ["q", "d", "v"])))
    req = make_request(SOME, complete=True)
    arrow = ispark._arrow_task(req, "qid", pa.Table.from_pandas(q), pa.Table.from_pandas(r)).to_pandas()
    pandas = ispark._pandas_task(req, "qid", q, r)
    dask = idask._task(q, r, req, "qid")
    for frame in (pandas, dask):
        pd.testing.assert_frame_equal(frame.astype({"qid": str}), arrow.astype({"qid": str}))
    expected = irscore.evaluate(q.rename(columns={"q": "query_id", "d": "doc_id", "v": "relevance"}),
                                r.rename(columns={"q": "query_id", "d": "doc_id", "v": "score"}), SOME,
                                per_query=True, complete=True)
    np.testing.assert_equal({k: dict(zip(arrow.qid, arrow[k])) for k in SOME}, expected)
