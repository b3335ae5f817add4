"""Property tests of Reliability & Sensitivity on random organisations: every
value in [0, 1]; swapping gold and system swaps R and S."""
from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import irscore
from irscore.organization import Organization

DOCS = [f"d{i}" for i in range(8)] + [3, 7]


@st.composite
def topics(draw):
    levels = []
    for _ in range(draw(st.integers(1, 3))):
        level = [draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=4, unique=True))
                 for _ in range(draw(st.integers(1, 3)))]
        levels.append(level)
    return levels


@st.composite
def pairs(draw):
    names = draw(st.lists(st.sampled_from(["t1", "t2", "t3"]), min_size=1, max_size=3, unique=True))
    return {t: draw(topics()) for t in names}, {t: draw(topics()) for t in names}


def _in_unit(v: float, top: float = 1.0) -> bool:
    return math.isnan(v) or 0.0 <= v <= top


# R&S values stay in [0, 1] exactly (no rounding step outside)
EPS = 0.0


@given(p=pairs(), weights=st.sampled_from(["ranking", "uniform"]), n=st.sampled_from([1, 3, 10]),
       w_n=st.sampled_from([0.5, 0.8, 0.99]), foreign=st.sampled_from(["tail", "absent"]))
def test_rs_in_unit_interval_and_symmetric(p, weights, n, w_n, foreign):
    gold, system = p
    kw = dict(weights=weights, n=n, w_n=w_n, foreign=foreign)
    a = irscore.reliability_sensitivity(gold, system, **kw)
    for k, v in a.items():
        assert -EPS <= v <= 1 + EPS or math.isnan(v), (k, v)
    for t, vals in a.per_query.items():
        for k, v in vals.items():
            assert -EPS <= v <= 1 + EPS or math.isnan(v), (t, k, v)
    b = irscore.reliability_sensitivity(system, gold, **kw)
    for rel in ("priority", "relatedness"):
        assert a[f"R_{rel}"] == pytest.approx(b[f"S_{rel}"], abs=1e-12)
        assert a[f"S_{rel}"] == pytest.approx(b[f"R_{rel}"], abs=1e-12)


@st.composite
def clusterings(draw):
    """Two overlapping clusterings of the same documents (extended BCubed's input)."""
    docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))

    def one():
        cls = [draw(st.lists(st.sampled_from(docs), min_size=1, max_size=4, unique=True))
               for _ in range(draw(st.integers(1, 4)))]
        left = [d for d in docs if not any(d in c for c in cls)]
        return cls + ([left] if left else [])

    return Organization.from_clusters(one()), Organization.from_clusters(one())


@given(c=clusterings())
def test_extended_bcubed_in_unit_interval_and_symmetric(c):
    gold, system = c
    a = irscore.extended_bcubed(gold, system)
    assert all(-EPS <= v <= 1 + EPS for v in a.values()), a
    b = irscore.extended_bcubed(system, gold)
    assert a["precision"] == pytest.approx(b["recall"], abs=1e-12)


def test_rs_rounding_stays_in_unit_interval():
    o = Organization.from_labels({str(i): (1 if i < 4 else 0) for i in range(10)})
    for weights in ("ranking", "uniform"):
        res = irscore.reliability_sensitivity(o, o, weights=weights)
        assert all(0.0 <= v <= 1.0 for v in res.values()), res
