"""The batch kernel's fast paths give exactly the values of its general paths.

``irscore._batch._set_fast_paths(False)`` makes the plans built afterwards take
the kernel's general loops only (every rank position visited one by one); with
True (the default) the kernel takes its shortcuts, e.g. AP, P@k, R@k, Success,
R-precision and RR from the list of the relevant positions gathered with the
labels, and rows with few candidates that can count are ranked by counting
instead of sorting.  Both are compared here with ``==`` (NaN equal to NaN) on thousands of
random queries: 1 to 150 candidates (n < 10 and n = 1 included), heavy ties,
NaN padding, float32 and float64 scores, integer (int8, int32, int64), float and
negative labels,
all-zero labels, several relevance levels in one plan, relevance_level 0
(label 0 relevant), few and many relevant candidates, every tie rule and
``empty=``, through ``batch.evaluate`` (the general kernel) and
``batch.Evaluator`` (the reusable dense kernel).
"""
import numpy as np
import pytest

from irscore import _batch, batch

MEASURES = ["nDCG@10", "AP", "P@10", "RR"]
MIXED = ["AP", "AP@5", "P@1", "P@3", "P(rel=2)@5", "RR", "RR@3", "RR(rel=2)", "Rprec", "R@10",
         "Success@2", "nDCG@10", "nDCG", "DCG@5", "AP(rel=2)", "NumRelRet", "NumRel", "NumRet"]
CUTOFFS = ["P@5", "RR", "nDCG@10", "AP@10", "R@3", "Success@4"]     # the top-k path


@pytest.fixture
def general_paths():
    """Run the body with the fast paths off, then restore them."""
    old = _batch._set_fast_paths(False)
    try:
        yield
    finally:
        _batch._set_fast_paths(old)


def _both(fn):
    """fn() with the fast paths on, then off."""
    old = _batch._set_fast_paths(True)
    try:
        fast = fn()
        _batch._set_fast_paths(False)
        general = fn()
    finally:
        _batch._set_fast_paths(old)
    return fast, general


def _same(a, b, names):
    for k in names:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def _random_batch(rng, nq, ncol):
    kind = rng.integers(0, 4)
    if kind == 0:               # heavy ties
        s = rng.integers(-2, 3, size=(nq, ncol)).astype(np.float64)
    elif kind == 1:             # doubles sharing their high bits
        base = rng.integers(0, 3, size=(nq, ncol)).astype(np.float64)
        s = base + rng.integers(0, 4, size=(nq, ncol)) * np.spacing(base + 1.0)
    else:
        s = rng.standard_normal((nq, ncol))
    s[rng.random((nq, ncol)) < rng.choice([0.0, 0.1, 0.5])] = np.nan      # padding
    p0 = rng.choice([0.3, 0.6, 0.95, 1.0])                                 # 1.0: all-zero labels
    lab = rng.choice(5, size=(nq, ncol), p=[p0] + [(1 - p0) / 4] * 4)
    return s, lab


def test_set_fast_paths_returns_the_previous_setting():
    old = _batch._set_fast_paths(False)
    try:
        assert _batch._set_fast_paths(True) is False
        assert _batch._set_fast_paths(True) is True
    finally:
        _batch._set_fast_paths(old)


@pytest.mark.filterwarnings("ignore:labels. negative labels")
@pytest.mark.parametrize("seed", range(12))
def test_fast_paths_equal_general_paths(seed):
    rng = np.random.default_rng(seed)
    for _ in range(6):
        ncol = int(rng.choice([1, 2, 5, 9, 10, 11, 33, 100, 150]))
        nq = int(rng.integers(1, 40))
        s, lab = _random_batch(rng, nq, ncol)
        for dtype in (np.float32, np.float64):
            sc = s.astype(dtype)
            labels = [lab, lab.astype(np.float64) - (seed % 3 == 0) * 0.5, lab.astype(np.int8),
                      lab.astype(np.int32) - (seed % 4 == 1)]
            for lb in labels:
                ties = ["trec", "input", "average"][int(rng.integers(0, 3))]
                empty = [0.0, 1.0, float("nan")][int(rng.integers(0, 3))]
                level = [None, None, 0, 2][int(rng.integers(0, 4))]     # 0: every label >= 0 relevant
                for names in (MEASURES, MIXED, CUTOFFS):
                    fast, general = _both(lambda: batch.evaluate(sc, lb, names, ties=ties, empty=empty,
                                                                 relevance_level=level, nan_scores="padding"))
                    _same(fast, general, names)
                    fast_ev, general_ev = _both(lambda: batch.Evaluator(names, ties=ties, empty=empty,
                                                                        relevance_level=level,
                                                                        nan_scores="padding")(sc, lb))
                    _same(fast_ev, general_ev, names)
                    _same(fast_ev, fast, names)


@pytest.mark.parametrize("seed", range(4))
def test_fast_paths_in_ragged_layouts_and_with_n_relevant(seed):
    rng = np.random.default_rng(100 + seed)
    s, lab = _random_batch(rng, 60, 40)
    lengths = rng.integers(0, 41, size=60)
    n_rel = (lab >= 1).sum(axis=1) + rng.integers(0, 3, size=60)
    one_level = [m for m in MIXED if "rel=" not in m]
    for kw in (dict(lengths=lengths), dict(n_relevant=n_rel), dict(lengths=lengths, relevance_level=2)):
        for names in (MEASURES, one_level):
            fast, general = _both(lambda: batch.evaluate(s, lab, names, nan_scores="padding", **kw))
            _same(fast, general, names)


def test_general_paths_fixture_restores(general_paths):
    s = np.array([[0.3, 0.2, 0.1]])
    lab = np.array([[0, 1, 1]])
    got = batch.evaluate(s, lab, ["AP", "RR", "P@2"])
    # hand-worked: relevant at ranks 2 and 3: AP = (1/2 + 2/3) / 2, RR = 1/2, P@2 = 1/2
    assert got["AP"][0] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert got["RR"][0] == 0.5 and got["P@2"][0] == 0.5
