"""evaluate on unusual inputs: repeated rows of frames as of files, NumRel with
rel= and complete=, runs without any ranked document."""
import warnings

import pytest

import irscore


def _repeated(record):
    return [w for w in record if issubclass(w.category, RuntimeWarning) and "repeated" in str(w.message)]


def test_dataframe_duplicates_behave_as_files(tmp_path):
    pd = pytest.importorskip("pandas")
    rows = [("1", "a", 3.0), ("1", "b", 2.0), ("1", "a", 1.0), ("2", "c", 1.0)]
    jud = [("1", "a", 1), ("1", "b", 0), ("1", "b", 1), ("2", "c", 1)]
    rf, qf = tmp_path / "run", tmp_path / "qrels"
    rf.write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, d, s in rows))
    qf.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in jud))
    run_df = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    qrels_df = pd.DataFrame(jud, columns=["query_id", "doc_id", "relevance"])
    ms = ["P@1", "NumRet", "NumRel", "AP", "RR"]
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        from_files = irscore.evaluate(qf, rf, ms, per_query=True)
    assert len(_repeated(rec)) == 2
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        from_frames = irscore.evaluate(qrels_df, run_df, ms, per_query=True)
    assert len(_repeated(rec)) == 2  # one for the run, one for the qrels
    assert from_frames == from_files
    assert from_frames["P@1"]["1"] == 1.0 and from_frames["NumRel"]["1"] == 2.0  # a (3.0) first; b's last grade


def test_numrel_with_rel_and_complete():
    q = {"1": {"a": 1, "b": 2, "c": 0}, "2": {"d": 2}}
    r = {"1": {"a": 1.0}}
    for complete in (False, True):
        res = irscore.evaluate(q, r, ["NumRel(rel=2)", "NumRel", "num_rel"], complete=complete)
        assert res["NumRel(rel=2)"] == (2.0 if complete else 1.0)
    # the default num_rel keeps trec_eval's rule under -c: every grade > 0 of the qrels
    assert irscore.evaluate(q, r, ["num_rel"], complete=True)["num_rel"] == 3.0


def test_all_empty_dict_run_with_complete():
    q = {"1": {"a": 1}, "2": {"b": 1}}
    empty = {"1": {}, "2": {}}
    res = irscore.evaluate(q, empty, ["P@5", "AP", "num_q", "num_ret"], complete=True)
    assert res == {"P@5": 0.0, "AP": 0.0, "num_q": 2.0, "num_ret": 0.0}
    with pytest.raises(ValueError, match="no ranked documents|no queries"):
        irscore.evaluate(q, empty, ["P@5"])
    curves = irscore.crp_curves(q, empty, complete=True)
    assert set(curves) == {"1", "2"}
