"""ranx ``Qrels``/``Run`` objects as qrels and runs: evaluate, as_qrels/as_run,
compare (the run's ``name``) and the ir_measures drop-in.  ranx (numba) is in
the ``[peers]`` extra, not ``[test]``: its first use compiles for about a
minute; these tests skip without it."""
import pytest

import irscore
from irscore.compat import ir_measures as irm
from irscore.core.io import as_qrels, as_run

ranx = pytest.importorskip("ranx")

QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d1": 1, "d4": 0}, "10": {"d9": 1, "d2": 3}}
RUN = {"q1": {"d1": 0.5, "d3": 0.9, "d5": 0.1}, "q2": {"d4": 0.8, "d1": 0.3}, "10": {"d2": 0.2, "d7": 0.25}}
OTHER = {"q1": {"d1": 0.1, "d3": 0.2}, "q2": {"d1": 0.9}, "10": {"d9": 1.0}}
MEASURES = ["map", "P_5", "ndcg_cut_10", "num_ret", "num_rel", "recip_rank"]


@pytest.fixture(scope="module")
def objects():
    return ranx.Qrels(QRELS), ranx.Run(RUN, name="bm25"), ranx.Run(OTHER, name="dense")


def test_ranx_objects_give_the_values_of_the_dicts(objects):
    q, r, _ = objects
    assert irscore.evaluate(q, r, MEASURES, per_query=True) == irscore.evaluate(QRELS, RUN, MEASURES, per_query=True)
    assert as_qrels(q).to_dict() == QRELS
    run = as_run(r)
    assert run.to_dict() == RUN and run.run_id == "bm25"
    assert dict(irm.calc_aggregate(["AP", "nDCG@10"], q, r)) == dict(irm.calc_aggregate(["AP", "nDCG@10"], QRELS, RUN))


def test_ranx_metrics_agree(objects):
    """The same numbers as ranx's own evaluate (an independent implementation)."""
    q, r, _ = objects
    got = irscore.evaluate(q, r, ["ndcg_cut_10", "map"])
    want = ranx.evaluate(q, r, ["ndcg@10", "map"])
    assert got["ndcg_cut_10"] == pytest.approx(want["ndcg@10"], abs=1e-12)
    assert got["map"] == pytest.approx(want["map"], abs=1e-12)


def test_compare_names_ranx_runs_by_their_name(objects):
    q, r, o = objects
    got = irscore.compare(q, [r, o], ["map", "P@5"])
    assert got.systems == ["bm25", "dense"]
    want = irscore.compare(QRELS, {"bm25": RUN, "dense": OTHER}, ["map", "P@5"])
    assert got.pairs == want.pairs
    assert irscore.compare(q, {"a": r, "b": o}, ["map"]).systems == ["a", "b"]


def test_ranx_run_as_qrels_and_the_reverse_are_named(objects):
    q, r, _ = objects
    with pytest.raises(TypeError, match=r"^qrels: got a ranx Run \(a ranking\), not judgments"):
        irscore.evaluate(r, r, ["map"])
    with pytest.raises(TypeError, match=r"^run: got a ranx Qrels \(judgments\), not a ranking"):
        irscore.evaluate(q, q, ["map"])
    with pytest.raises(TypeError, match=r"^runs\[1\]: got a ranx Qrels"):
        irscore.compare(q, [r, q], ["map"])
    with pytest.raises(TypeError, match=r"^qrels: got a ranx Run"):
        irm.calc_aggregate(["AP"], r, RUN)
