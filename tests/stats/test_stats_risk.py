"""Risk-sensitive evaluation (URisk, TRisk, GeoRisk): hand-worked examples from
the definitions of Dinçer, Macdonald & Ounis (SIGIR 2014, 2016), an independent
loop implementation, scipy for TRisk's p, compare's reports and the CLI."""
import json
import math
import subprocess
import sys

import numpy as np
import pytest

import irscore
from irscore import stats

ss = pytest.importorskip("scipy.stats")


def _phi(z):
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


# ---- independent implementation: plain loops over the definitions -------------

def _urisk_ref(r, b, alpha):
    wins = sum(x - y for x, y in zip(r, b) if x > y)
    losses = sum(y - x for x, y in zip(r, b) if x < y)
    return (wins - (1 + alpha) * losses) / len(r)


def _trisk_ref(r, b, alpha):
    z = [(x - y) if x >= y else (1 + alpha) * (x - y) for x, y in zip(r, b)]
    c = len(z)
    m = sum(z) / c
    sd = math.sqrt(sum((v - m) ** 2 for v in z) / (c - 1))
    return m / (sd / math.sqrt(c))


def _georisk_ref(x, alpha):
    c, k = len(x), len(x[0])
    S = [sum(x[q][i] for q in range(c)) for i in range(k)]
    T = [sum(x[q]) for q in range(c)]
    N = sum(T)
    out = []
    for i in range(k):
        zr = 0.0
        for q in range(c):
            e = S[i] * T[q] / N
            if e == 0:
                continue
            z = (x[q][i] - e) / math.sqrt(e)
            zr += z if z >= 0 else (1 + alpha) * z
        out.append(math.sqrt(S[i] / c * _phi(zr / c)))
    return out


# ---- hand-worked examples ----------------------------------------------------

def test_urisk_trisk_hand_worked():
    """r = (0.5, 0.2, 0.4, 0.1), b = (0.3, 0.3, 0.4, 0.3), alpha = 1:
    deltas (0.2, -0.1, 0, -0.2); z = (0.2, -0.2, 0, -0.4); URisk = -0.4 / 4 = -0.1.
    z - mean = (0.3, -0.1, 0.1, -0.3): sum of squares 0.2, s_z^2 = 0.2 / 3,
    SE = sqrt(0.2 / 12), TRisk = -0.1 / sqrt(1 / 60) = -sqrt(0.6)."""
    r, b = [0.5, 0.2, 0.4, 0.1], [0.3, 0.3, 0.4, 0.3]
    assert stats.urisk(r, b, alpha=1) == pytest.approx(-0.1, abs=1e-15)
    assert np.allclose(stats.urisk(r, b, alpha=1, per_query=True), [0.2, -0.2, 0.0, -0.4], atol=1e-15)
    t = stats.trisk(r, b, alpha=1)
    assert t.trisk == pytest.approx(-math.sqrt(0.6), rel=1e-12)
    assert t.se == pytest.approx(math.sqrt(0.2 / 12), rel=1e-12) and t.df == 3 and t.urisk == t.trisk * t.se
    assert t.p == pytest.approx(2 * ss.t.sf(math.sqrt(0.6), 3), rel=1e-10)
    # alpha = 0: the mean difference, TRisk = the paired t statistic
    assert stats.urisk(r, b, alpha=0) == pytest.approx(np.mean(np.subtract(r, b)), abs=1e-15)
    ref = ss.ttest_rel(r, b)
    t0 = stats.trisk(r, b, alpha=0)
    assert t0.trisk == pytest.approx(ref.statistic, rel=1e-12) and t0.p == pytest.approx(ref.pvalue, rel=1e-10)


def test_georisk_hand_worked():
    """x = [[0.4, 0.2], [0.2, 0.2]] (topics x systems), alpha = 1: S = (0.6, 0.4),
    T = (0.6, 0.4), N = 1; e = [[0.36, 0.24], [0.24, 0.16]];
    z = [[0.04/0.6, -0.04/sqrt(0.24)], [-0.04/sqrt(0.24), 0.04/0.4]];
    ZRisk_1 = 0.04/0.6 - 2 * 0.04/sqrt(0.24), ZRisk_2 = -2 * 0.04/sqrt(0.24) + 0.1;
    GeoRisk_i = sqrt(S_i / 2 * Phi(ZRisk_i / 2))."""
    x = [[0.4, 0.2], [0.2, 0.2]]
    z1 = 0.04 / 0.6 - 2 * 0.04 / math.sqrt(0.24)
    z2 = -2 * 0.04 / math.sqrt(0.24) + 0.1
    g = stats.georisk(x, alpha=1)
    assert g[0] == pytest.approx(math.sqrt(0.3 * _phi(z1 / 2)), rel=1e-12)
    assert g[1] == pytest.approx(math.sqrt(0.2 * _phi(z2 / 2)), rel=1e-12)
    terms = stats.georisk(x, alpha=1, per_query=True)
    assert terms.sum(axis=0) == pytest.approx([z1, z2], rel=1e-12)
    assert terms[0, 1] == pytest.approx(-2 * 0.04 / math.sqrt(0.24), rel=1e-12)


def test_against_independent_implementation():
    rng = np.random.default_rng(50)
    for case in range(50):
        c, k = int(rng.integers(2, 80)), int(rng.integers(2, 9))
        x = np.clip(rng.beta(0.7, 1.3, (c, 1)) + rng.normal(0, 0.15, (c, k)), 0, 1)
        x[rng.random((c, k)) < 0.15] = 0.0
        alpha = float((0, 1, 5, 10, 2.5)[case % 5])
        g = stats.georisk(x, alpha)
        assert np.allclose(g, _georisk_ref(x.tolist(), alpha), rtol=1e-12, atol=1e-15)
        r, b = x[:, 0], x[:, 1]
        assert stats.urisk(r, b, alpha) == pytest.approx(_urisk_ref(r, b, alpha), abs=1e-14)
        if np.std(r - b) > 0:
            assert stats.trisk(r, b, alpha).trisk == pytest.approx(_trisk_ref(r, b, alpha), rel=1e-10)


def test_risk_edge_cases():
    t = stats.trisk([0.5, 0.5], [0.5, 0.5])
    assert math.isnan(t.trisk) and t.p == 1.0 and t.urisk == 0.0
    t = stats.trisk([0.6, 0.7], [0.5, 0.6])          # every z equal and positive
    assert t.trisk == math.inf and t.p == 0.0
    t = stats.trisk([0.6], [0.5])
    assert math.isnan(t.trisk) and math.isnan(t.p) and t.urisk == pytest.approx(0.1)
    # a topic all zeros and a system all zeros add nothing to ZRisk (e = 0)
    g = stats.georisk([[0.0, 0.0, 0.0], [0.5, 0.3, 0.0], [0.2, 0.4, 0.0]])
    assert g[2] == 0.0 and np.all(np.isfinite(g))
    assert np.all(stats.georisk(np.zeros((3, 2))) == 0.0)


def test_risk_argument_errors():
    with pytest.raises(ValueError, match="alpha .* >= 0"):
        stats.urisk([0.1, 0.2], [0.2, 0.1], alpha=-1)
    with pytest.raises(ValueError, match="alpha"):
        stats.trisk([0.1, 0.2], [0.2, 0.1], alpha="1")
    with pytest.raises(ValueError, match="one value per topic each, got 2 and 3"):
        stats.urisk([0.1, 0.2], [0.2, 0.1, 0.3])
    with pytest.raises(ValueError, match=r"baseline\[1\] is not finite"):
        stats.urisk([0.1, 0.2], [0.2, np.nan])
    with pytest.raises(ValueError, match="empty"):
        stats.urisk([], [])
    with pytest.raises(ValueError, match="2-D array"):
        stats.georisk([0.1, 0.2])
    with pytest.raises(ValueError, match=r"scores\[0, 1\] = -0.1: GeoRisk needs finite values >= 0"):
        stats.georisk([[0.1, -0.1], [0.2, 0.3]])
    with pytest.raises(ValueError, match="at least 1 topic and 2 systems"):
        stats.georisk([[0.1], [0.2]])


def _collection(seed=0, n_queries=30, n_docs=20, n_systems=3):
    rng = np.random.default_rng(seed)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(n_docs)} for i in range(n_queries)}
    runs = {f"s{s}": {q: {f"d{j}": float(rng.random() + 0.15 * s * (qrels[q][f"d{j}"] > 0)) for j in range(n_docs)}
                      for q in qrels} for s in range(n_systems)}
    return qrels, runs


def test_compare_risk():
    qrels, runs = _collection()
    c = irscore.compare(qrels, runs, ["map", "P_10"], baseline="s0", risk=5)
    for p in c.pairs:
        S = c.scores[p.measure]
        r, b = S[c.systems.index(p.system)], S[c.systems.index(p.vs)]
        assert p.urisk == pytest.approx(_urisk_ref(r, b, 5), abs=1e-14)
        t = stats.trisk(r, b, 5)
        assert p.trisk == t.trisk and p.trisk_p == t.p
    for m in c.measures:
        assert np.allclose(c.georisk[m], stats.georisk(c.scores[m].T, 5), rtol=1e-14)
    text = c.to_text()
    assert "URisk" in text and "GeoRisk" in text and "alpha = 5" in text
    df = c.to_pandas()
    assert {"urisk", "trisk", "trisk_p", "georisk"} <= set(df.columns)
    doc = json.loads(c.to_json())
    assert doc["risk"]["alpha"] == 5 and set(doc["risk"]["georisk"]["map"]) == set(c.systems)
    assert "urisk" in doc["comparisons"][0]
    assert c.to_csv().splitlines()[0].endswith("urisk,trisk,trisk_p,georisk")
    assert "URisk" not in irscore.compare(qrels, runs, "map").to_text()
    with pytest.raises(ValueError, match="alpha .* >= 0"):
        irscore.compare(qrels, runs, "map", risk=-2)


def test_cli_risk(tmp_path):
    qrels, runs = _collection(seed=3, n_queries=12)
    qp = tmp_path / "qrels"
    qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    paths = []
    for name, run in runs.items():
        p = tmp_path / name
        p.write_text("".join(f"{q} Q0 {d} 1 {s} {name}\n" for q, docs in run.items() for d, s in docs.items()))
        paths.append(str(p))
    out = subprocess.run([sys.executable, "-m", "irscore", "compare", str(qp), *paths, "--risk", "1",
                          "--baseline", "s0", "-f", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    c = irscore.compare(str(qp), paths, "map", baseline="s0", risk=1)
    assert doc["risk"]["georisk"]["map"] == {s: float(c.georisk["map"][i]) for i, s in enumerate(c.systems)}
    bad = subprocess.run([sys.executable, "-m", "irscore", "compare", str(qp), *paths, "--risk", "-1"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "alpha" in bad.stderr and "Traceback" not in bad.stderr
