"""Rocchio's normalized indices stay within their bounds: rounding is put back on
the bound, a legitimately negative Pnorm is kept."""
import numpy as np


def test_rocchio_rounding_is_put_back_on_the_bound():
    from irscore import rocchio
    # relevant at the last ranks: the worst order, Pnorm exactly 0 (was -2.2e-16)
    r = rocchio.from_arrays(np.array([[2.0, 1.0, 0.0]]), np.array([[0, 2, 2]]), N=3)
    assert r["Pnorm"][0] == 0.0 and r["Rnorm"][0] == 0.0
    rng = np.random.default_rng(0)
    for _ in range(2000):
        n = int(rng.integers(2, 8))
        s = rng.integers(0, 3, size=(1, n)).astype(float)
        y = rng.integers(0, 3, size=(1, n))
        for graded in (False, True):
            r = rocchio.from_arrays(s, y, N=n + int(rng.integers(0, 3)), graded=graded)
            for k in ("Rnorm", "Pnorm", "rank_recall", "log_precision"):
                v = r[k][0]
                assert np.isnan(v) or not (-1e-9 < v < 0.0 or v > 1.0), (k, v)
    # a legitimately negative Pnorm (tied relevant documents, README) is kept
    r = rocchio.from_arrays(np.array([[2.0, 1.0, 1.0, 1.0, 1.0]]), np.array([[0, 1, 1, 1, 1]]), N=5)
    assert r["Pnorm"][0] < -0.1
