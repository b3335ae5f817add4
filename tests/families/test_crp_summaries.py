"""MATTERS' normalised CRP curve and its sigma / tau summaries (docs/crp.md),
checked on hand-worked examples."""
import math

import numpy as np
import pytest

import irscore
from irscore import crp

QRELS = {"q": {"a": 1, "b": 1}}


def _curve(order, **kw):
    run = {"q": {d: float(len(order) - i) for i, d in enumerate(order)}}
    return irscore.crp_curves(QRELS, run, **kw)["q"]


def test_full_scale_is_the_reversed_ideal():
    # pool {a, b} (grade 1), length 5: full scale [n, n, n, r, r]
    assert crp.full_scale_rp(np.array([0, 2]), 1, 5).tolist() == [-2, -1, 0, 2, 3]
    # graded pool: one grade-2, one grade-1, one judged non-relevant; length 4
    # ideal [2, 1, 0, 0] (blocks 2:[1,1], 1:[2,2], n:[3,4]); reversed [0, 0, 1, 2]
    assert crp.full_scale_rp(np.array([1, 1, 1]), 1, 4).tolist() == [-2, -1, 1, 3]


def test_partly_late_run():
    c = _curve(["a", "x", "b", "y", "z"])
    assert c.rp.tolist() == [0, -1, 1, 0, 0]
    # full scale [-2, -1, 0, 2, 3]: f = 1 - 1/5, b = 1 - (-1)/(-3)
    f, b = 0.8, 2 / 3
    sigma = 2 * f * b / (f + b)
    assert c.sigma == pytest.approx(sigma, abs=1e-12)
    assert c.recovery == pytest.approx(2 / 3)            # balance point 3
    assert c.tau == pytest.approx((2 / 3 + sigma) / 2, abs=1e-12)
    m = _curve(["a", "x", "b", "y", "z"], variant="matters")
    assert m.recovery == 0.0 and m.tau == pytest.approx(sigma / 2, abs=1e-12)
    # full-scale CRP [-2, -3, -3, -1, 2]: mu = 2, nu = -3, nCRP = (2 CRP + 1) / 5
    assert np.allclose(c.ncrp, [0.2, -0.2, 0.2, 0.2, 0.2])


def test_ideal_and_worst_runs():
    ideal = _curve(["a", "b", "x", "y", "z"])
    assert ideal.sigma == 1.0 and ideal.tau == 1.0 and np.allclose(ideal.ncrp, 0.2)
    worst = _curve(["x", "y", "z", "a", "b"])     # the full scale itself
    assert worst.sigma == 0.0 and worst.tau == pytest.approx(0.4 / 2)
    assert worst.ncrp[1] == -1.0 and worst.ncrp[-1] == 1.0   # spans the full scale
    none = _curve(["x", "y"])                    # no relevant retrieved: MATTERS' 0
    assert none.sigma == 0.0 and none.tau == 0.0


def test_no_relevant_document_gives_nan():
    run = {"q": {"x": 2.0, "y": 1.0}}
    c = irscore.crp_curves({"q": {"x": 0}}, run)["q"]
    assert c.R == 0 and c.crp.tolist() == [0, 0]
    assert math.isnan(c.sigma) and math.isnan(c.tau) and np.isnan(c.ncrp).all()


def test_evaluate_names_match_the_curves():
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 2, "d": 1, "e": 0}, "q3": {"f": 0}}
    run = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0}, "q2": {"e": 3.0, "d": 2.0, "c": 1.0, "z": 0.5},
           "q3": {"f": 1.0}}
    curves = irscore.crp_curves(qrels, run, pad_to=6)
    got = irscore.evaluate(qrels, run, ["CRP_sigma(pad_to=6)", "CRP_tau(pad_to=6)"], per_query=True)
    for q, c in curves.items():
        for name, v in (("CRP_sigma(pad_to=6)", c.sigma), ("CRP_tau(pad_to=6)", c.tau)):
            assert (math.isnan(v) and math.isnan(got[name][q])) or got[name][q] == v
    mean = irscore.evaluate(qrels, run, "CRP_tau(pad_to=6)")["CRP_tau(pad_to=6)"]
    assert mean == pytest.approx(np.nanmean([c.tau for c in curves.values()]))
