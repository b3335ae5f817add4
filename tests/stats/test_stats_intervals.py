"""Confidence intervals of one system's mean (t, bootstrap percentile, BCa)
against scipy, in compare's reports and on the command line."""
import json
import math
import subprocess
import sys

import numpy as np
import pytest

import irscore
from irscore import stats
from irscore.stats import intervals, paired

ss = pytest.importorskip("scipy.stats")


def _ap_like(rng, n):
    x = np.clip(rng.beta(0.6, 1.4, n) + rng.normal(0, 0.1, n), 0, 1)
    x[rng.random(n) < 0.2] = 0.0
    return x


def test_t_interval_equals_scipy():
    rng = np.random.default_rng(40)
    worst = 0.0
    for case in range(300):
        n = int(rng.integers(2, 300))
        x = _ap_like(rng, n) if case % 2 else rng.normal(0, 1, n)
        alpha = (0.05, 0.1, 0.01, 0.2)[case % 4]
        lo, hi = stats.mean_ci(x, "t", alpha=alpha)
        rlo, rhi = ss.t.interval(1 - alpha, n - 1, loc=x.mean(), scale=ss.sem(x))
        worst = max(worst, abs(lo - rlo), abs(hi - rhi))
    assert worst < 1e-12


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bootstrap_within_monte_carlo_error_of_scipy(method):
    """With B = 10,000 an endpoint's Monte Carlo sd is about 0.001 here; it is
    measured from 20 seeds of irscore's, and both the single-seed difference and
    the difference of the 20-seed averages must lie within 5 sd of it."""
    rng = np.random.default_rng(41)
    for n in (25, 50, 250):
        x = _ap_like(rng, n)
        ours = np.array([stats.mean_ci(x, method, n_resamples=10_000, seed=s) for s in range(20)])
        ref = np.array([tuple(ss.bootstrap((x,), np.mean, method=method, n_resamples=10_000,
                                            random_state=100 + s).confidence_interval) for s in range(20)])
        sd = np.maximum(ours.std(axis=0, ddof=1), ref.std(axis=0, ddof=1))
        assert np.all(np.abs(ours[0] - ref[0]) < 5 * math.sqrt(2) * sd)
        assert np.all(np.abs(ours.mean(axis=0) - ref.mean(axis=0)) < 5 * math.sqrt(2 / 20) * sd)
        assert np.all(sd < 0.01)


def test_bootstrap_reproducible_with_seed():
    x = _ap_like(np.random.default_rng(42), 60)
    for method in ("percentile", "bca"):
        a = stats.mean_ci(x, method, seed=7)
        assert a == stats.mean_ci(x, method, seed=7)
        assert a != stats.mean_ci(x, method, seed=8)
    lo, hi = stats.mean_ci(x, "bca", seed=None)
    assert lo < x.mean() < hi


def test_constant_values_give_the_point_interval():
    for method in ("t", "percentile", "bca"):
        assert stats.mean_ci([0.5, 0.5, 0.5], method, seed=1) == (0.5, 0.5)


def test_mean_ci_argument_errors():
    with pytest.raises(ValueError, match="method must be one of"):
        stats.mean_ci([1.0, 2.0], "normal")
    with pytest.raises(ValueError, match="values must be a 1-D array"):
        stats.mean_ci(np.ones((3, 2)))
    with pytest.raises(ValueError, match="at least 2 values"):
        stats.mean_ci([1.0])
    with pytest.raises(ValueError, match=r"values\[1\] is not finite"):
        stats.mean_ci([1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="alpha must be"):
        stats.mean_ci([1.0, 2.0], alpha=1.5)
    with pytest.raises(ValueError, match="n_resamples"):
        stats.mean_ci([1.0, 2.0], "bca", n_resamples=0)
    with pytest.raises(TypeError, match="seed"):
        stats.mean_ci([1.0, 2.0], "bca", seed="x")
    with pytest.raises(TypeError, match="values must be"):
        stats.mean_ci("0.1 0.2")


def _collection(seed=0, n_queries=30, n_docs=20, n_systems=3):
    rng = np.random.default_rng(seed)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(n_docs)} for i in range(n_queries)}
    runs = {f"s{s}": {q: {f"d{j}": float(rng.random() + 0.2 * s * (qrels[q][f"d{j}"] > 0)) for j in range(n_docs)}
                      for q in qrels} for s in range(n_systems)}
    return qrels, runs


def test_compare_mean_ci_column():
    qrels, runs = _collection()
    c = irscore.compare(qrels, runs, ["map", "P_10"], mean_ci="t")
    for m in c.measures:
        for i, s in enumerate(c.systems):
            assert tuple(c.mean_intervals[m][i]) == stats.mean_ci(c.scores[m][i], "t")
    df = c.to_pandas()
    row = df.iloc[0]
    i = c.systems.index(row["system"])
    assert (row["mean_ci_low"], row["mean_ci_high"]) == tuple(c.mean_intervals[row["measure"]][i])
    lo, hi = c.mean_intervals["map"][0]
    assert f"[{lo:.4f}, {hi:.4f}]" in c.to_text() and f"[{lo:.4f}, {hi:.4f}]" in c.to_markdown()
    assert "95% Student's t intervals" in c.description
    doc = json.loads(c.to_json())
    assert doc["mean_ci"]["method"] == "t" and doc["mean_ci"]["intervals"]["map"][c.systems[0]] == [lo, hi]
    assert c.to_csv().splitlines()[0].endswith("mean_ci_low,mean_ci_high")
    plain = irscore.compare(qrels, runs, "map")
    assert "mean_ci_low" not in plain.to_pandas().columns and plain.mean_intervals == {}


def test_compare_mean_ci_bootstrap_seeded():
    qrels, runs = _collection(seed=1)
    c = irscore.compare(qrels, runs, "map", mean_ci="bca", seed=5, n_resamples=2000)
    assert c.seed == 5 and c.n_resamples == 2000 and "seed 5" in c.description
    assert tuple(c.mean_intervals["map"][1]) == stats.mean_ci(c.scores["map"][1], "bca", n_resamples=2000, seed=5)
    with pytest.raises(ValueError, match="method must be one of"):
        irscore.compare(qrels, runs, "map", mean_ci="x")


def test_cli_mean_ci(tmp_path):
    qrels, runs = _collection(seed=2, n_queries=15)
    qp = tmp_path / "qrels"
    qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    paths = []
    for name, run in runs.items():
        p = tmp_path / name
        p.write_text("".join(f"{q} Q0 {d} 1 {s} {name}\n" for q, docs in run.items() for d, s in docs.items()))
        paths.append(str(p))
    out = subprocess.run([sys.executable, "-m", "irscore", "compare", str(qp), *paths, "--mean-ci", "t",
                          "-f", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    c = irscore.compare(str(qp), paths, "map", mean_ci="t")
    assert doc["mean_ci"]["intervals"]["map"] == {s: list(c.mean_intervals["map"][i])
                                                  for i, s in enumerate(c.systems)}
    bad = subprocess.run([sys.executable, "-m", "irscore", "compare", str(qp), *paths, "--mean-ci", "z"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--mean-ci" in bad.stderr


def test_mean_intervals_many_samples():
    rng = np.random.default_rng(43)
    xs = [_ap_like(rng, n) for n in (10, 30, 1)]
    out = intervals.mean_intervals(xs, "percentile", seed=3)
    assert np.isnan(out[2]).all()
    assert tuple(out[1]) == stats.mean_ci(xs[1], "percentile", seed=3)


def test_bca_counts_resample_means_that_equal_the_mean_up_to_rounding():
    """Resample means of tied scores that equal the observed mean exactly in real
    arithmetic come out of the native kernel a few ulps off it, on either side:
    the bias correction z0 must count them as ties (as scipy does with its exact
    means), so the levels equal those from the exact means."""
    x = np.array([0.0] * 45 + [1.0] * 2 + [0.5] * 3)
    rng = np.random.default_rng(43)
    exact = np.array([rng.choice(x, x.size).sum() / x.size for _ in range(2000)])
    nudged = exact * (1.0 + rng.choice([-4, -2, -1, 0, 1, 2, 4], exact.size) * np.finfo(float).eps)
    assert np.count_nonzero(nudged == x.mean()) < np.count_nonzero(exact == x.mean())
    assert paired.bca_levels(x, nudged, 0.05) == paired.bca_levels(x, exact, 0.05)


def test_bca_of_tied_scores_within_monte_carlo_error_of_scipy():
    x = np.array([0.0] * 45 + [1.0] * 2 + [0.5] * 3)
    ours = np.array([stats.mean_ci(x, "bca", n_resamples=2000, seed=s) for s in range(60)])
    ref = np.array([tuple(ss.bootstrap((x,), np.mean, method="bca", n_resamples=2000,
                                        random_state=200 + s).confidence_interval) for s in range(60)])
    se = np.sqrt((ours.var(axis=0, ddof=1) + ref.var(axis=0, ddof=1)) / 60)
    assert np.all(np.abs(ours.mean(axis=0) - ref.mean(axis=0)) < 4 * se)


def test_bca_of_huge_values_is_the_scaled_interval():
    """The BCa levels are scale-free: values near 1e120 (whose jackknife cubes
    overflow) give the levels of the values near 1, and mean_ci a finite interval."""
    x = np.array([10.0, 0.0, 3.0, 5.0, 0.2, 7.0, 1.0, 2.5])
    rng = np.random.default_rng(44)
    means = np.array([rng.choice(x, x.size).mean() for _ in range(2000)])
    levels = paired.bca_levels(x, means, 0.05)
    assert paired.bca_levels(x * 1e119, means * 1e119, 0.05) == pytest.approx(levels, rel=1e-12)
    lo, hi = stats.mean_ci(x * 1e119, "bca", seed=3)
    assert 0.0 <= lo < x.mean() * 1e119 < hi <= 10e119


def test_bootstrap_resamples_are_bounded_as_stored_values():
    # every resampled mean is kept for the quantiles: at most MAX_STORED_RESAMPLES,
    # a clear ValueError beyond (a 10**9 request was a 16 GB allocation)
    x = np.array([0.1, 0.4, 0.3])
    for method in ("percentile", "bca"):
        with pytest.raises(ValueError, match="n_resamples must be an integer in 1 .. 10,000,000"):
            stats.mean_ci(x, method, n_resamples=paired.MAX_STORED_RESAMPLES + 1, seed=1)
    assert stats.mean_ci(x, "t", n_resamples=10**9) == stats.mean_ci(x, "t")   # t ignores it
