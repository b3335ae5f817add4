"""DataFrames: PyTerrier and ranx column names, to_pandas, subset, results_frame."""
import warnings

import numpy as np
import pytest

import irscore
from irscore.core.data import Qrels, Run
from irscore.core.io import as_qrels, as_run, results_frame

pd = pytest.importorskip("pandas")

QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d1": 1, "d4": 0}, "q3": {"d9": 1}}
RUN = {"q1": {"d1": 0.5, "d3": 0.9, "d5": 0.1}, "q2": {"d4": 0.8, "d1": 0.3}, "q3": {"d2": 0.2}}
MEASURES = ["nDCG@3", "AP", "P@2"]


def frames(qcol, dcol, rcol, scol):
    qr = pd.DataFrame([(q, d, r) for q, ds in QRELS.items() for d, r in ds.items()], columns=[qcol, dcol, rcol])
    rn = pd.DataFrame([(q, d, s) for q, ds in RUN.items() for d, s in ds.items()], columns=[qcol, dcol, scol])
    return qr, rn


@pytest.mark.parametrize("cols", [("query_id", "doc_id", "relevance", "score"),     # ir_measures
                                  ("qid", "docno", "label", "score"),               # PyTerrier
                                  ("q_id", "doc_id", "score", "score")])            # ranx
def test_column_names_of_the_peers_give_the_same_values(cols):
    want = irscore.evaluate(QRELS, RUN, MEASURES, per_query=True)
    qr, rn = frames(*cols)
    if cols[0] == "qid":
        rn["rank"] = [3, 1, 2, 2, 1, 1]     # PyTerrier's rank: ignored (the order is the score's)
        rn["query"] = "text"
    for q, r in ((Qrels.from_pandas(qr), Run.from_pandas(rn)), (as_qrels(qr), as_run(rn)), (qr, rn)):
        got = irscore.evaluate(q, r, MEASURES, per_query=True)
        assert {str(k): v for k, v in got.items()} == {str(k): v for k, v in want.items()}


def test_ambiguous_or_missing_columns():
    qr, rn = frames("qid", "docno", "label", "score")
    with pytest.raises(ValueError, match="query id"):
        Run.from_pandas(rn.rename(columns={"qid": "topic"}))
    both = rn.assign(query_id=rn["qid"])
    with pytest.raises(ValueError, match="several query id columns"):
        Run.from_pandas(both)
    with pytest.raises(ValueError, match="value"):
        Qrels.from_pandas(qr.drop(columns=["label"]))


def test_duplicates_in_frames_follow_the_file_rules():
    rn = pd.DataFrame({"qid": ["q1", "q1", "q1"], "docno": ["d1", "d1", "d3"], "score": [0.1, 0.9, 0.5]})
    with pytest.warns(RuntimeWarning, match="best-ranked"):
        r = Run.from_pandas(rn)
    assert r.to_dict() == {"q1": {"d1": 0.9, "d3": 0.5}}
    qr = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d1"], "label": [0, 2]})
    with pytest.warns(RuntimeWarning, match="last one is kept"):
        q = Qrels.from_pandas(qr)
    assert q.to_dict() == {"q1": {"d1": 2}}


def test_to_pandas_round_trips():
    q, r = Qrels.from_dict(QRELS), Run.from_dict(RUN)
    qf, rf = q.to_pandas(), r.to_pandas()
    assert list(qf.columns) == ["query_id", "doc_id", "relevance"]
    assert list(rf.columns) == ["query_id", "doc_id", "score"]
    assert len(qf) == sum(map(len, QRELS.values())) and len(rf) == sum(map(len, RUN.values()))
    assert Qrels.from_pandas(qf).to_dict() == QRELS
    assert Run.from_pandas(rf).to_dict() == RUN
    assert rf[rf.query_id == "q1"].doc_id.tolist() == ["d3", "d1", "d5"]     # rank order


def test_subset_equals_the_dicts_restricted():
    q, r = Qrels.from_dict(QRELS), Run.from_dict(RUN)
    keep = ["q3", "q1", "q3"]
    qs, rs = q.subset(keep), r.subset(keep)
    assert qs.query_ids == rs.query_ids == ["q1", "q3"]
    assert qs.to_dict() == {k: QRELS[k] for k in ("q1", "q3")}
    assert rs.to_dict() == {k: RUN[k] for k in ("q1", "q3")}
    assert "q2" not in qs and "q2" in q
    want = irscore.evaluate({k: QRELS[k] for k in ("q1", "q3")}, {k: RUN[k] for k in ("q1", "q3")}, MEASURES,
                            per_query=True)
    got = irscore.evaluate(qs, rs, MEASURES, per_query=True)
    assert {str(k): v for k, v in got.items()} == {str(k): v for k, v in want.items()}
    with pytest.raises(KeyError, match="q9"):
        q.subset(["q1", "q9"])
    with pytest.raises(ValueError, match="no queries"):
        r.subset([])


def test_results_frame_wide_and_tidy():
    res = irscore.evaluate(QRELS, RUN, MEASURES, per_query=True)
    wide = results_frame(res)
    assert list(wide.columns) == ["query_id"] + MEASURES
    for m in MEASURES:
        for qid, v in zip(wide.query_id, wide[m]):
            assert v == res[m][qid]
    tidy = results_frame(res, tidy=True)
    assert list(tidy.columns) == ["query_id", "measure", "value"]
    assert len(tidy) == sum(len(res[m]) for m in MEASURES)
    for qid, m, v in tidy.itertuples(index=False):
        assert res[m][qid] == v
    mean = results_frame(irscore.evaluate(QRELS, RUN, MEASURES))
    assert mean.query_id.tolist() == ["all"] and mean["AP"][0] == irscore.evaluate(QRELS, RUN, "AP")["AP"]
    from irscore import batch
    b = batch.evaluate(np.array([[0.3, 0.2], [0.1, 0.5]]), np.array([[1, 0], [1, 0]]), ["AP", "RR"])
    bw = results_frame(b)
    assert bw.query_id.tolist() == [0, 1] and bw["RR"].tolist() == b["RR"].tolist()
    with pytest.raises(TypeError, match="results"):
        results_frame({"AP": "x"})


@pytest.mark.parametrize("measures", [MEASURES, ["P", "gm_map", "num_rel_ret"], "AP"])
def test_evaluate_output_pandas_wide_and_tidy(measures):
    """evaluate(output=...) gives the dict results' values, wide or tidy; the
    default output is unchanged."""
    res = irscore.evaluate(QRELS, RUN, measures, per_query=True)
    assert irscore.evaluate(QRELS, RUN, measures, per_query=True, output="dict") == res
    names = list(res)
    qids = list(next(iter(res.values())))
    wide = irscore.evaluate(QRELS, RUN, measures, per_query=True, output="pandas")
    assert list(wide.columns) == ["query_id"] + names
    assert wide.query_id.tolist() == qids
    for m in names:
        assert wide[m].dtype == np.float64
        assert wide[m].tolist() == [res[m][q] for q in qids]
    tidy = irscore.evaluate(QRELS, RUN, measures, per_query=True, output="pandas-tidy")
    assert list(tidy.columns) == ["query_id", "measure", "value"]
    assert [tuple(r) for r in tidy.itertuples(index=False)] == [(q, m, res[m][q]) for q in qids for m in names]
    # summaries: one row "all", as trec_eval prints them, and the same long form
    mean = irscore.evaluate(QRELS, RUN, measures)
    agg = irscore.evaluate(QRELS, RUN, measures, output="pandas")
    assert agg.query_id.tolist() == ["all"] and list(agg.columns) == ["query_id"] + list(mean)
    assert [agg[m][0] for m in mean] == list(mean.values())
    agg_tidy = irscore.evaluate(QRELS, RUN, measures, output="pandas-tidy")
    assert [tuple(r) for r in agg_tidy.itertuples(index=False)] == [("all", m, v) for m, v in mean.items()]
    # the frames agree with results_frame on the dict results
    pd.testing.assert_frame_equal(wide, results_frame(res), check_dtype=False)
    pd.testing.assert_frame_equal(tidy, results_frame(res, tidy=True), check_dtype=False)


def test_evaluate_output_is_checked():
    with pytest.raises(ValueError, match="output must be one of 'dict', 'pandas', 'pandas-tidy'"):
        irscore.evaluate(QRELS, RUN, MEASURES, output="frame")


def _random_frames(rng, ids):
    n_q = int(rng.integers(1, 12))
    qrels, run = [], []
    for q in range(n_q):
        for d in rng.choice(40, size=int(rng.integers(1, 15))):          # repeats possible
            qrels.append((q, d, int(rng.choice([-1, 0, 1, 2]))))
        for d in rng.choice(40, size=int(rng.integers(0, 30))):
            run.append((q, d, float(rng.integers(0, 6)) / 2))
    qr = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    rn = pd.DataFrame(run or [(0, 0, 1.0)], columns=["query_id", "doc_id", "score"])
    for frame in (qr, rn):
        for col in ("query_id", "doc_id"):
            if ids == "str":
                frame[col] = [f"x{v}" for v in frame[col]]
            elif ids == "object":
                frame[col] = pd.Series([f"x{v}" for v in frame[col]], dtype=object)
            elif ids == "arrow":
                frame[col] = pd.Series([f"x{v}" for v in frame[col]], dtype="string[pyarrow]")
            elif ids == "category":
                frame[col] = pd.Series([f"x{v}" for v in frame[col]], dtype="category")
            elif ids == "int32":
                frame[col] = frame[col].astype(np.int32)
            elif ids == "float":       # read as text by astype(str): "1.0" (the dict path)
                frame[col] = frame[col].astype(np.float64)
    return qr, rn


@pytest.mark.parametrize("ids", ["str", "object", "arrow", "category", "int32", "int", "float"])
@pytest.mark.parametrize("seed", range(8))
def test_frames_through_arrow_equal_the_dict_path(ids, seed):
    """evaluate() on DataFrames (read through Arrow when the dtypes allow)
    gives the values of Qrels/Run.from_pandas (a dict per query), repeated
    judgments and run entries included, and warns about them."""
    rng = np.random.default_rng(seed)
    qr, rn = _random_frames(rng, ids)
    from irscore.core.frames import qrels_from_frame, run_from_frame
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert (qrels_from_frame(qr) is None) == (run_from_frame(rn) is None) == (ids == "float")
    measures = ["map", "P_5", "ndcg_cut_10", "num_ret", "num_rel", "bpref", "recip_rank"]
    with warnings.catch_warnings(record=True) as slow_warnings:
        warnings.simplefilter("always")
        want = irscore.evaluate(Qrels.from_pandas(qr), Run.from_pandas(rn), measures, per_query=True)
    with warnings.catch_warnings(record=True) as fast_warnings:
        warnings.simplefilter("always")
        got = irscore.evaluate(qr, rn, measures, per_query=True)
    assert got == want
    for what in ("repeated (query, doc) judgments", "best-ranked"):
        assert any(what in str(w.message) for w in slow_warnings) == any(what in str(w.message)
                                                                         for w in fast_warnings)


def test_frames_the_arrow_path_declines():
    from irscore.core.frames import qrels_from_frame, run_from_frame

    qr = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "relevance": [1, 0]})
    rn = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [0.5, 0.2]})
    assert qrels_from_frame(qr) is not None and run_from_frame(rn) is not None
    assert qrels_from_frame(qr.iloc[:0]) is None                               # no rows
    assert qrels_from_frame(qr.assign(relevance=[1.0, 0.0])) is None           # float grades
    assert run_from_frame(rn.assign(score=[0.5, np.nan])) is None              # NaN: from_pandas reports it
    assert run_from_frame(rn.assign(doc_id=[True, False])) is None             # str(True) is "True"
    assert run_from_frame(rn.assign(doc_id=["d1", 2])) is None                 # mixed objects
    assert run_from_frame(rn.assign(doc_id=["d1", None])) is None              # null
    with pytest.raises(ValueError, match="query id"):                          # the columns: as from_pandas
        run_from_frame(rn.rename(columns={"query_id": "topic"}))
