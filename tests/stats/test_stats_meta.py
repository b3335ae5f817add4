"""Meta-evaluation: Kendall's tau against scipy, tau_AP against a brute-force
reading of its definition, discriminative power and swap rates against
straightforward re-implementations."""
import itertools

import numpy as np
import pytest

import irscore
from irscore.stats import meta

ss = pytest.importorskip("scipy.stats")


def test_kendall_tau_equals_scipy():
    rng = np.random.default_rng(0)
    worst = 0.0
    for case in range(3000):
        n = int(rng.integers(2, 40))
        if case % 2:
            x = rng.random(n)
            y = x + rng.normal(0, 0.3, n)
        else:  # ties in one or both
            x = rng.integers(0, 4, n).astype(float)
            y = rng.integers(0, 4, n).astype(float)
        ours = meta.rank_correlation(x, y)
        ref = ss.kendalltau(x, y).statistic
        if np.isnan(ref):
            assert np.isnan(ours)
            continue
        worst = max(worst, abs(ours - ref))
    assert worst < 1e-12


def _tau_ap_brute(truth, est):
    """Yilmaz et al. 2008, eq. (2), read literally: for every item i below the
    top of the evaluated list, the share of the items above it there that the
    reference also ranks above it."""
    n = len(truth)
    order = sorted(range(n), key=lambda i: -est[i])
    total = 0.0
    for i in range(1, n):
        above = order[:i]
        total += sum(1 for j in above if truth[j] > truth[order[i]]) / i
    return 2.0 * total / (n - 1) - 1.0


def test_tau_ap_equals_its_definition():
    rng = np.random.default_rng(1)
    worst = 0.0
    for case in range(3000):
        n = int(rng.integers(2, 12))
        x, y = rng.permutation(n).astype(float), rng.permutation(n).astype(float)
        worst = max(worst, abs(meta.rank_correlation(x, y, "tau_ap") - _tau_ap_brute(x, y)))
        sym = meta.rank_correlation(x, y, "tau_ap_sym")
        assert sym == pytest.approx((_tau_ap_brute(x, y) + _tau_ap_brute(y, x)) / 2, abs=1e-12)
    assert worst < 1e-12


def test_tau_ap_properties_and_inputs():
    assert meta.rank_correlation([3, 2, 1], [30, 20, 10], "tau_ap") == 1.0
    assert meta.rank_correlation([3, 2, 1], [10, 20, 30], "tau_ap") == -1.0
    # a swap at the top costs more than one at the bottom (the point of tau_AP)
    truth = [5, 4, 3, 2, 1]
    top = meta.rank_correlation(truth, [4, 5, 3, 2, 1], "tau_ap")
    bottom = meta.rank_correlation(truth, [5, 4, 3, 1, 2], "tau_ap")
    assert top < bottom
    assert meta.rank_correlation(truth, [4, 5, 3, 2, 1]) == meta.rank_correlation(truth, [5, 4, 3, 1, 2])
    # orderings (names, best first) and mappings
    a, b = ["x", "y", "z", "w"], ["y", "x", "z", "w"]
    assert meta.rank_correlation(a, b, "tau_ap") == pytest.approx(
        _tau_ap_brute([4, 3, 2, 1], [3, 4, 2, 1]))
    assert meta.rank_correlation({"x": 0.3, "y": 0.2}, {"y": 0.5, "x": 0.1}) == -1.0
    with pytest.raises(ValueError, match="ties"):
        meta.rank_correlation([1, 1, 2], [1, 2, 3], "tau_ap")
    with pytest.raises(ValueError, match="method"):
        meta.rank_correlation([1, 2], [1, 2], "spearman")
    with pytest.raises(ValueError, match="same length"):
        meta.rank_correlation([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="same systems"):
        meta.rank_correlation(["a", "b"], ["a", "c"])


def test_discriminative_power_counts_significant_pairs():
    rng = np.random.default_rng(2)
    S = rng.random((7, 60)) + np.linspace(0, 0.25, 7)[:, None]
    dp = meta.discriminative_power(None, S, "m", test="t", alpha=0.05)
    ps = [ss.ttest_rel(S[i], S[j]).pvalue for i, j in itertools.combinations(range(7), 2)]
    assert dp.n_pairs == 21
    assert dp.n_significant == sum(p < 0.05 for p in ps)
    assert dp.power == pytest.approx(dp.n_significant / 21)
    assert np.allclose(dp.asl, np.sort(ps), atol=1e-9)
    assert np.all(np.diff(dp.asl) >= 0)
    sig = [abs(S[i].mean() - S[j].mean()) for (i, j), p in zip(itertools.combinations(range(7), 2), ps)
           if p < 0.05]
    assert dp.min_significant_diff == pytest.approx(min(sig))
    boot = meta.discriminative_power(None, S, "m", seed=1)  # Sakai's bootstrap, B = 1000
    assert boot.test == "bootstrap" and 0 <= boot.power <= 1


def test_discriminative_power_from_runs_drops_undefined_queries():
    rng = np.random.default_rng(3)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 2)) for j in range(20)} for i in range(25)}
    qrels["q0"] = {f"d{j}": 0 for j in range(20)}  # no relevant document: Rnorm undefined
    runs = {f"s{k}": {q: {f"d{j}": float(rng.random()) for j in range(20)} for q in qrels} for k in range(4)}
    dp = irscore.meta.discriminative_power(qrels, runs, "Rnorm(N=100)", test="t")
    assert dp.n_dropped_queries == 1 and dp.n_queries == 24 and dp.n_pairs == 6


def test_swap_rate_equals_brute_force():
    rng = np.random.default_rng(4)
    S = rng.random((5, 30)) + np.linspace(0, 0.1, 5)[:, None]
    res = meta.swap_rate(None, S, "m", topic_set_sizes=[5, 15], n_trials=50, seed=7, bin_width=0.02, n_bins=5)
    # the same topic splits, then the definition pair by pair
    g = np.random.default_rng(7)
    for r, n in zip(res, [5, 15]):
        perm = np.argsort(g.random((50, 30)), axis=1)
        pairs = np.zeros(5, dtype=int)
        swaps = np.zeros(5, dtype=int)
        for t in range(50):
            a, b = perm[t, :n], perm[t, n:2 * n]
            for i, j in itertools.combinations(range(5), 2):
                d1 = S[i, a].mean() - S[j, a].mean()
                d2 = S[i, b].mean() - S[j, b].mean()
                k = min(int(abs(d1) / 0.02), 4)
                pairs[k] += 1
                swaps[k] += (d1 > 0 and d2 < 0) or (d1 < 0 and d2 > 0)
        assert r.topic_set_size == n and r.n_pairs.tolist() == pairs.tolist()
        assert r.n_swaps.tolist() == swaps.tolist()
        assert r.overall == pytest.approx(swaps.sum() / pairs.sum())


def test_swap_rate_no_swaps_when_one_system_dominates():
    S = np.vstack([np.full(20, 0.5), np.full(20, 0.2)]) + np.linspace(0, 0.01, 20)
    (r,) = meta.swap_rate(None, S, "m", topic_set_sizes=10, n_trials=100, seed=0)
    assert r.n_swaps.sum() == 0 and r.n_pairs.sum() == 100
    with pytest.raises(ValueError, match="half"):
        meta.swap_rate(None, S, "m", topic_set_sizes=11)


@pytest.mark.parametrize("kwargs,name", [
    (dict(alpha="0.05"), "alpha"), (dict(alpha=1.0), "alpha"), (dict(n_resamples=0), "n_resamples"),
    (dict(n_resamples=10 ** 10), "n_resamples"), (dict(n_resamples=2.5), "n_resamples"),
])
def test_discriminative_power_names_a_bad_argument(kwargs, name):
    # found in review: alpha="0.05" raised "'<' not supported between 'int' and 'str'"
    S = np.random.default_rng(2).random((3, 10))
    with pytest.raises(ValueError, match=name):
        meta.discriminative_power(None, S, "m", seed=1, **kwargs)


@pytest.mark.parametrize("kwargs,name", [
    (dict(n_trials="10"), "n_trials"), (dict(n_trials=10.5), "n_trials"), (dict(n_trials=0), "n_trials"),
    (dict(topic_set_sizes=[2.7]), "topic_set_sizes"), (dict(topic_set_sizes=["3"]), "topic_set_sizes"),
    (dict(bin_width=None), "bin_width"), (dict(bin_width=0.0), "bin_width"),
])
def test_swap_rate_names_a_bad_argument(kwargs, name):
    # found in review: n_trials="10" raised a TypeError, topic_set_sizes=[2.7] was read as 2
    S = np.random.default_rng(4).random((3, 20))
    with pytest.raises(ValueError, match=name):
        meta.swap_rate(None, S, "m", seed=1, **kwargs)
