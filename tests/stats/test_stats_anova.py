"""ANOVA of a topics x systems matrix (two-way without replication, one-way) and
Tukey's HSD with the blocked and the one-way error term, against statsmodels'
``anova_lm`` and an independent computation from scipy's studentised range."""
import math

import numpy as np
import pytest

from irscore import stats
from irscore.stats import anova_hsd as anova_mod

ss = pytest.importorskip("scipy.stats")
pd = pytest.importorskip("pandas")
smf = pytest.importorskip("statsmodels.formula.api")
sm = pytest.importorskip("statsmodels.api")


def _ap_like(rng, n, k):
    """AP-like values in [0, 1] with many zeros: a topic difficulty, a system
    effect and noise, clipped below at 0."""
    topic = rng.beta(0.6, 1.4, n)[:, None]
    system = np.linspace(-0.05, 0.05, k)[None, :]
    x = topic + system + rng.normal(0, 0.12, (n, k))
    x[rng.random((n, k)) < 0.2] = 0.0
    return np.clip(x, 0.0, 1.0)


def _statsmodels(S, blocked):
    n, k = S.shape
    df = pd.DataFrame({"y": S.ravel(), "topic": np.repeat(np.arange(n), k), "system": np.tile(np.arange(k), n)})
    model = smf.ols("y ~ C(system) + C(topic)" if blocked else "y ~ C(system)", data=df).fit()
    return sm.stats.anova_lm(model)


def _cases():
    rng = np.random.default_rng(30)
    yield _ap_like(rng, 50, 8)
    yield _ap_like(rng, 25, 3)
    for _ in range(4):
        n, k = int(rng.integers(2, 40)), int(rng.integers(2, 9))
        yield rng.normal(0, 1, (n, k)) + rng.normal(0, 1, n)[:, None]


@pytest.mark.parametrize("blocked", [True, False])
def test_anova_equals_statsmodels(blocked):
    for S in _cases():
        a = stats.anova(S, blocked=blocked)
        ref = _statsmodels(S, blocked)
        row = ref.loc["C(system)"]
        assert a.F == pytest.approx(row["F"], rel=1e-10, abs=1e-10)
        assert a.p == pytest.approx(row["PR(>F)"], rel=1e-8, abs=1e-10)
        assert abs(a.p - row["PR(>F)"]) < 1e-10
        assert a.df_systems == row["df"] and a.df_error == ref.loc["Residual", "df"]
        assert a.ms_error == pytest.approx(ref.loc["Residual", "mean_sq"], rel=1e-10)
        assert a.ss_systems == pytest.approx(row["sum_sq"], rel=1e-10)
        if blocked:
            trow = ref.loc["C(topic)"]
            assert a.F_topics == pytest.approx(trow["F"], rel=1e-10)
            assert abs(a.p_topics - trow["PR(>F)"]) < 1e-10
            assert a.df_error == (S.shape[0] - 1) * (S.shape[1] - 1)
        else:
            assert math.isnan(a.F_topics)
            oneway = ss.f_oneway(*S.T)
            assert a.F == pytest.approx(oneway.statistic, rel=1e-10)
    assert "two-way" in str(stats.anova(S)) and "topics" in stats.anova(S).table()


def test_blocking_removes_topic_variance():
    """Systems that differ by a constant on every topic: the blocked F is huge,
    the one-way F is swamped by the topic variance."""
    rng = np.random.default_rng(1)
    S = rng.random(40)[:, None] + np.array([0.0, 0.02, 0.04])[None, :] + rng.normal(0, 0.005, (40, 3))
    assert stats.anova(S).p < 1e-10
    assert stats.anova(S, blocked=False).p > 0.3


def _tukey_reference(S, alpha, blocked):
    """Tukey's HSD from its definition, MS_E from statsmodels' anova_lm and the
    studentised range from scipy."""
    n, k = S.shape
    ref = _statsmodels(S, blocked)
    mse, df = ref.loc["Residual", "mean_sq"], ref.loc["Residual", "df"]
    means = S.mean(axis=0)
    diff = means[:, None] - means[None, :]
    se = math.sqrt(mse / n)
    p = ss.studentized_range.sf(np.abs(diff) / se, k, df)
    np.fill_diagonal(p, 1.0)
    half = ss.studentized_range.ppf(1 - alpha, k, df) * se
    return p, diff - half, diff + half


@pytest.mark.parametrize("blocked", [True, False])
def test_tukey_hsd_equals_studentized_range_computation(blocked):
    rng = np.random.default_rng(31)
    cases = [_ap_like(rng, 50, 8), _ap_like(rng, 20, 4), rng.random((6, 3))]
    for S, alpha in zip(cases, (0.05, 0.1, 0.01)):
        p, lo, hi = stats.tukey_hsd(S, alpha=alpha, blocked=blocked)
        rp, rlo, rhi = _tukey_reference(S, alpha, blocked)
        assert np.max(np.abs(p - rp)) < 1e-8
        assert np.max(np.abs(lo - rlo)) < 1e-8 and np.max(np.abs(hi - rhi)) < 1e-8


def test_tukey_hsd_default_is_blocked_and_one_way_equals_scipy():
    rng = np.random.default_rng(32)
    S = _ap_like(rng, 30, 4)
    p_b, _, _ = stats.tukey_hsd(S)
    p_1, lo_1, hi_1 = stats.tukey_hsd(S, blocked=False)
    ref = ss.tukey_hsd(*S.T)
    off = ~np.eye(4, dtype=bool)
    assert np.max(np.abs(p_1 - ref.pvalue)[off]) < 1e-9
    assert np.max(np.abs(lo_1 - ref.confidence_interval(0.95).low)[off]) < 1e-9
    assert not np.allclose(p_b, p_1)


def test_tukey_hsd_argument_errors():
    S = np.random.default_rng(3).random((10, 3))
    with pytest.raises(ValueError, match=r"scores must be a 2-D array \(topics x systems\), got shape \(5,\)"):
        stats.tukey_hsd(np.ones(5))
    with pytest.raises(ValueError, match=r"alpha must be a number in \(0, 1\), got 5"):
        stats.tukey_hsd(S, alpha=5)
    with pytest.raises(ValueError, match="at least 2 topics"):
        stats.tukey_hsd([[1.0, 2.0]])
    with pytest.raises(ValueError, match="at least 2 topics"):
        stats.tukey_hsd(np.ones((5, 1)))
    with pytest.raises(ValueError, match=r"scores\[1, 0\] is not finite"):
        stats.tukey_hsd([[1.0, 2.0], [np.nan, 3.0]])
    with pytest.raises(ValueError, match="2-D array of numbers"):
        stats.tukey_hsd([["a", "b"], ["c", "d"]])
    with pytest.raises(TypeError, match="blocked"):
        stats.anova(S, blocked="yes")


def test_tukey_hsd_two_topics_two_systems():
    """The smallest valid input.  [[1, 2], [3, 4]]: system 2 is better by exactly
    1 on both topics, so the blocked residual is 0: p = 0 and the interval is
    the point -1 (no error variance); the one-way reading has df 2."""
    p, lo, hi = stats.tukey_hsd([[1, 2], [3, 4]])
    assert p[0, 1] == 0.0 and lo[0, 1] == hi[0, 1] == -1.0 and p[0, 0] == 1.0
    a = stats.anova([[1, 2], [3, 4]])
    assert a.df_error == 1 and math.isinf(a.F) and a.p == 0.0
    p1, lo1, hi1 = stats.tukey_hsd([[1, 2], [3, 4]], blocked=False)
    ref = ss.tukey_hsd([1, 3], [2, 4])
    assert p1[0, 1] == pytest.approx(ref.pvalue[0, 1], abs=1e-9)
    S = np.array([[1.0, 2.0], [3.0, 3.5]])      # residual not 0: finite everything
    p, lo, hi = stats.tukey_hsd(S)
    rp, rlo, rhi = _tukey_reference(S, 0.05, True)
    assert abs(p[0, 1] - rp[0, 1]) < 1e-8 and abs(lo[0, 1] - rlo[0, 1]) < 1e-8


def test_standardized_differences():
    rng = np.random.default_rng(4)
    S = _ap_like(rng, 30, 4)
    a = stats.anova(S)
    es = stats.standardized_differences(S)
    m = S.mean(axis=0)
    assert es[1, 3] == pytest.approx((m[1] - m[3]) / math.sqrt(a.ms_error), rel=1e-12)
    assert np.allclose(es, -es.T)
    es1 = stats.standardized_differences(S, blocked=False)
    assert np.all(np.abs(es1) <= np.abs(es) + 1e-15)    # the one-way MS_E holds the topic variance too


def test_f_sf_equals_scipy():
    for f, d1, d2 in [(0.5, 3, 10), (2.7, 7, 343), (40.0, 1, 1), (1e-3, 9, 2000)]:
        assert anova_mod.f_sf(f, d1, d2) == pytest.approx(ss.f.sf(f, d1, d2), rel=1e-10, abs=1e-15)


def test_compare_tukey_is_blocked_and_says_so():
    import irscore
    rng = np.random.default_rng(33)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(20)} for i in range(30)}
    runs = {f"s{s}": {q: {f"d{j}": float(rng.random() + 0.2 * s * (qrels[q][f"d{j}"] > 0)) for j in range(20)}
                      for q in qrels} for s in range(3)}
    c = irscore.compare(qrels, runs, "map", test="tukey")
    S = c.scores["map"].T
    p, lo, hi = stats.tukey_hsd(S)
    for pr in c.pairs:
        i, j = c.systems.index(pr.system), c.systems.index(pr.vs)
        assert pr.p == p[i, j] and pr.ci_low == lo[i, j] and pr.ci_high == hi[i, j]
    assert "two-way ANOVA error term (topics as blocks)" in c.description
    c1 = irscore.compare(qrels, runs, "map", test="tukey_oneway")
    assert "one-way ANOVA error term" in c1.description
    p1, _, _ = stats.tukey_hsd(S, blocked=False)
    assert c1.pairs[0].p == p1[c.systems.index(c1.pairs[0].system), c.systems.index(c1.pairs[0].vs)]
    assert "within topics" in irscore.compare(qrels, runs, "map", test="tukey_randomized", seed=1,
                                              n_resamples=200).description


def test_studentized_range_equals_scipy():
    """irscore's studentised range (numpy quadrature) against scipy's
    (numerical integration by quad): sf to 1e-10 absolute, ppf to 1e-10
    relative, over k = 2..150 and df = 1..10,000."""
    from irscore.stats import studentized_range as SR
    q = np.array([0.05, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 10.0, 20.0])
    worst_sf = worst_ppf = 0.0
    for k in (2, 3, 5, 10, 60, 150):
        for df in (1, 2, 9, 30, 2241, 10000):
            worst_sf = max(worst_sf, float(np.max(np.abs(SR.sf(q, k, df) - ss.studentized_range.sf(q, k, df)))))
        for df in (2, 30, 2241):
            ref = ss.studentized_range.ppf(0.95, k, df)
            worst_ppf = max(worst_ppf, abs(SR.ppf(0.95, k, df) - ref) / ref)
    assert worst_sf < 1e-10 and worst_ppf < 1e-10


def test_studentized_range_two_means_is_the_t_distribution():
    """With k = 2, Q = sqrt(2) |T|: an oracle independent of scipy's studentised
    range (scipy's t distribution)."""
    from irscore.stats import studentized_range as SR
    q = np.array([0.01, 0.3, 1.0, 2.5, 4.0, 8.0, 15.0])
    for df in (1, 3, 17, 250, 5000, 10 ** 6):
        assert np.max(np.abs(SR.sf(q, 2, df) - 2 * ss.t.sf(q / math.sqrt(2), df))) < 1e-12
    assert SR.sf([0.0, -1.0, np.inf, np.nan], 4, 10)[:3].tolist() == [1.0, 1.0, 0.0]
    assert math.isnan(SR.sf([np.nan], 4, 10)[0])
    with pytest.raises(ValueError, match="k .* must be an integer in 2 .. 1000"):
        SR.sf(1.0, 1, 10)
    with pytest.raises(ValueError, match="df must be a number"):
        SR.sf(1.0, 3, 0.5)
    with pytest.raises(ValueError, match=r"p must be in \(0, 1\)"):
        SR.ppf(1.0, 3, 10)



def test_studentized_range_quantile_far_in_the_tail():
    """Small alpha with few degrees of freedom puts the quantile far out (k = 2,
    df = 1, 1 - 1e-9: 9.0e8 = sqrt(2) t_{1 - 5e-10, 1}); it is found, not inf."""
    from irscore.stats import studentized_range as SR
    for p, df in ((1e-9, 1), (1e-9, 2), (1e-7, 1), (1e-11, 3)):
        ref = math.sqrt(2) * ss.t.isf(p / 2, df)
        assert SR.ppf(1 - p, 2, df) == pytest.approx(ref, rel=1e-6)
    p, lo, hi = stats.tukey_hsd(np.array([[0.1, 0.5], [0.3, 0.2]]), alpha=1e-9)
    assert np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))

def test_compare_tukey_effect_is_the_anova_standardized_difference(tmp_path):
    import json
    import subprocess
    import sys

    import irscore
    rng = np.random.default_rng(34)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(20)} for i in range(25)}
    runs = {f"s{s}": {q: {f"d{j}": float(rng.random() + 0.2 * s * (qrels[q][f"d{j}"] > 0)) for j in range(20)}
                      for q in qrels} for s in range(3)}
    for test, blocked in (("tukey", True), ("tukey_oneway", False), ("tukey_randomized", True)):
        c = irscore.compare(qrels, runs, "map", test=test, effect="es_anova", seed=1, n_resamples=200)
        sd = stats.standardized_differences(c.scores["map"].T, blocked=blocked)
        for pr in c.pairs:
            i, j = c.systems.index(pr.system), c.systems.index(pr.vs)
            assert pr.es_anova == sd[i, j] and c.effect_of(pr) == sd[i, j]
        df = c.to_pandas()
        assert list(df["es_anova"]) == list(df["effect"])
        assert c.to_csv().splitlines()[0].endswith(",es_anova")
        assert "sqrt(MS_E)" in c.to_text()
    assert "es_anova" not in irscore.compare(qrels, runs, "map").to_pandas().columns
    with pytest.raises(ValueError, match="es_anova.*goes with the Tukey tests"):
        irscore.compare(qrels, runs, "map", test="t", effect="es_anova")
    qp = tmp_path / "qrels"
    qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    paths = []
    for name, run in runs.items():
        p = tmp_path / name
        p.write_text("".join(f"{q} Q0 {d} 1 {s} {name}\n" for q, docs in run.items() for d, s in docs.items()))
        paths.append(str(p))
    out = subprocess.run([sys.executable, "-m", "irscore", "compare", str(qp), *paths, "--test", "tukey",
                          "--effect", "es_anova", "-f", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)["comparisons"][0]
    assert rec["effect"] == rec["es_anova"]


def test_anova_equals_a_published_two_way_table():
    """A published two-factor-without-replication example (the Igor Pro manual's
    StatsANOVA2NRTest, 6 rows x 4 columns): SS total 36.5039 (df 23), columns
    11.2881 (df 3, MS 3.7627, F 14.427), rows 21.3036 (df 5, MS 4.26072,
    F 16.3364), remainder 3.91216 (df 15, MS 0.260811); rows are topics,
    columns systems here."""
    x = np.array([[4.04, 5.08, 2.83, 3.06], [4.91, 4.68, 3.17, 2.71], [2.94, 1.9, 1.61, 2.02],
                  [5.95, 5.26, 4.85, 4.45], [3.9, 4.85, 2.69, 2.93], [5.72, 5.14, 4.39, 3.29]])
    a = stats.anova(x)
    assert round(a.ss_total, 4) == 36.5039 and round(a.ss_systems, 4) == 11.2881
    assert round(a.ms_systems, 4) == 3.7627 and round(a.F, 3) == 14.427
    assert round(a.ss_topics, 4) == 21.3036 and round(a.F_topics, 4) == 16.3364
    assert round(a.ss_error, 5) == 3.91216 and round(a.ms_error, 6) == 0.260811
    assert (a.df_systems, a.df_topics, a.df_error) == (3, 5, 15)
