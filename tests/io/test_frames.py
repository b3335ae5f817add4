"""Qrels/Run from columns (irscore.core.frames) against the dict-based builders."""
import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")

import irscore  # noqa: E402
from irscore import Qrels, Run  # noqa: E402
from irscore.core.frames import empty_run, qrels_from_columns, run_from_columns  # noqa: E402

MEASURES = ["map", "gm_map", "ndcg_cut_10", "P_5", "recip_rank", "bpref", "num_rel", "num_rel_ret",
            "num_ret", "infAP", "Rnorm(N=60)", "CRP_loss"]


def _frames(seed: int, int_ids: bool = False):
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(int(rng.integers(1, 12))):
        for d in rng.choice(50, size=int(rng.integers(1, 30)), replace=False):
            rows.append((q if int_ids else f"q{q:02d}", int(d) if int_ids else f"d{d}",
                         float(rng.integers(0, 6))))       # many ties
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    rows = []
    for q in range(int(rng.integers(1, 12))):
        for d in rng.choice(50, size=int(rng.integers(1, 20)), replace=False):
            rows.append((q if int_ids else f"q{q:02d}", int(d) if int_ids else f"d{d}", int(rng.integers(-1, 4))))
    qrels = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])
    return qrels, run


@pytest.mark.parametrize("seed", range(30))
def test_same_values_as_from_pandas(seed):
    qrels, run = _frames(seed, int_ids=seed % 3 == 0)
    q1 = qrels_from_columns(qrels["query_id"], qrels["doc_id"], qrels["relevance"])
    r1 = run_from_columns(run["query_id"], run["doc_id"], run["score"])
    q2, r2 = Qrels.from_pandas(qrels), Run.from_pandas(run)
    assert q1.to_dict() == q2.to_dict()
    assert r1.to_dict() == r2.to_dict()
    assert r1.query_ids == r2.query_ids
    for complete in (False, True):
        try:
            expected = irscore.evaluate(q2, r2, MEASURES, per_query=True, complete=complete)
        except ValueError:
            with pytest.raises(ValueError):
                irscore.evaluate(q1, r1, MEASURES, per_query=True, complete=complete)
            continue
        got = irscore.evaluate(q1, r1, MEASURES, per_query=True, complete=complete)
        np.testing.assert_equal(got, expected)


def test_arrow_slices_chunks_and_dictionaries():
    qrels, run = _frames(3)
    t = pa.Table.from_pandas(run).slice(5)
    chunked = pa.chunked_array([t["doc_id"].combine_chunks().slice(0, 10), t["doc_id"].combine_chunks().slice(10)])
    r1 = run_from_columns(t["query_id"].dictionary_encode(), chunked, t["score"])
    assert r1.to_dict() == Run.from_pandas(run.iloc[5:]).to_dict()



def test_pandas_columns_backed_by_chunked_arrow_arrays():
    # a pyarrow-backed pandas column made of several chunks (e.g. a Dask partition concatenated from
    # Parquet row groups) converts to a chunked array, which is combined like a pyarrow one
    qrels, run = _frames(4)
    half = len(run) // 2

    def chunked(col):
        dtype = "string[pyarrow]" if col.dtype.kind in "OT" or str(col.dtype).startswith("str") else col.dtype
        return pd.concat([col.iloc[:half].astype(dtype), col.iloc[half:].astype(dtype)], ignore_index=True)

    cols = [chunked(run[c]) for c in ("query_id", "doc_id", "score")]
    assert isinstance(pa.array(cols[0]), pa.ChunkedArray) and pa.array(cols[0]).num_chunks == 2
    assert run_from_columns(*cols).to_dict() == Run.from_pandas(run).to_dict()


def test_bad_columns():
    with pytest.raises(ValueError, match="null"):
        run_from_columns(["q"], [None], [1.0])
    with pytest.raises(ValueError, match="not finite"):
        run_from_columns(["q"], ["d"], [float("nan")])
    with pytest.raises(ValueError, match="not an integer"):
        qrels_from_columns(["q"], ["d"], [1.5])
    with pytest.raises(TypeError, match="expected numbers"):
        qrels_from_columns(["q"], ["d"], ["1"])
    with pytest.raises(TypeError, match="ids must be strings or integers"):
        qrels_from_columns([1.0], ["d"], [1])
    with pytest.raises(ValueError, match="2 query ids but 1 doc ids"):
        qrels_from_columns(["q", "q"], ["d"], [1])
    with pytest.raises(ValueError, match="no judgments"):
        qrels_from_columns([], [], [])


def test_repeated_judgments_keep_the_last_with_a_warning():
    with pytest.warns(RuntimeWarning, match="repeated"):
        q = qrels_from_columns(["q", "q"], ["d", "d"], [0, 2])
    assert q.to_dict() == {"q": {"d": 2}}


def test_empty_run_scores_every_query_as_missing():
    qrels, run = _frames(4)
    q = Qrels.from_pandas(qrels)
    got = irscore.evaluate(q, empty_run(), MEASURES[:9], per_query=True, complete=True)
    expected = irscore.evaluate(q, Run.from_dict({"not a qrels query": {"d": 1.0}}), MEASURES[:9],
                                per_query=True, complete=True)
    assert got == expected
    assert len(run_from_columns([], [], []).query_ids) == 0
