"""Fuzz target: the statistics (irscore.stats, irscore.meta).

Bytes -> a header (function, number of pairs, parameters drawn from pools of
valid and invalid values: n_resamples, alpha, seed, ci, correction, swap-rate
sizes) and per-pair differences drawn from a pool that makes zeros, -0.0, ties,
subnormals, values near 1e150 and 1e300, NaN and infinities likely.  Calls one
of ``t_test``, ``wilcoxon_test``, ``sign_test``, ``randomization_test``,
``bootstrap_test``, ``effect_sizes``, ``tukey_randomized``, ``adjust``,
``meta.swap_rate`` or ``meta.discriminative_power``.

Only clean errors may escape (``ValueError``, ``TypeError``).  On success:
every p-value in [0, 1] or NaN, every interval ordered; the sign test equals
``scipy.stats.binomtest``, the t-test ``scipy.stats.ttest_rel`` on moderate
values, and the corrections ``statsmodels.stats.multitest.multipletests``, when
those are installed.
"""
from __future__ import annotations

import math
import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

from _common import check, check_unit, guarded, main  # noqa: E402

try:
    import scipy.stats as ss
except ImportError:                # pragma: no cover - scipy is in the test extra
    ss = None
try:
    from statsmodels.stats.multitest import multipletests
except ImportError:                # pragma: no cover
    multipletests = None

with atheris.instrument_imports(include=["irscore"]):
    from irscore.stats import meta, paired
    from irscore.stats.corrections import adjust

FUNCS = ("t", "wilcoxon", "sign", "randomization", "bootstrap", "effect", "tukey_randomized", "adjust", "swap",
         "power")
POOL = (0.0, -0.0, 0.1, 0.2, -0.1, 0.5, 1.0, -1.0, 0.3, 1e-300, 5e-324, 1e150, -1e150, 1e300, -1e300, math.nan,
        math.inf, -math.inf, 0.1 + 1e-17, 1e-12, 2.0 ** 52, 0.7)
# small valid values only: a valid 10**9 resamples is hours of legitimate work
RESAMPLES = (1, 2, 7, 64, 300, 0, -1, 10 ** 7 + 1, 10 ** 9 + 1, 2.5, "10", True, None, np.int64(50))
ALPHAS = (0.05, 0.5, 0.999, 1e-300, 0.0, 1.0, -0.5, math.nan, "0.05", True, np.float32(0.1), 5)
SEEDS = (0, 1, 2 ** 64 + 5, -1, None, "x", 1.5, np.uint64(7))
CIS = ("bca", "percentile", "t", None, 3)
CORRECTIONS = ("holm", "bonferroni", "bh", "none", "fdr", None)
SIZES = (None, 1, 2, 5, [1, 2], [0], 2.7, [3.0], True, 10 ** 6)
WIDTHS = (0.01, 1e-300, 0.5, 0.0, -1.0, math.inf, math.nan, 1e308, "0.1")
COUNTS = (1, 5, 20, 0, -3, 10 ** 6 + 1, 10 ** 12, 2.5, "20")


def _value(b: int, k: int) -> float:
    if b < 176:
        return POOL[b % len(POOL)]
    return ((b - 176) * 0.013 + k * 0.0007) % 1.0 - 0.4      # distinct-ish moderate values


def _pairs(body: bytes, n_pairs: int):
    """Split ``body`` into ``n_pairs`` arrays of differences."""
    if not body:
        return [np.zeros(0) for _ in range(n_pairs)]
    out = []
    step = max(1, len(body) // n_pairs)
    for i in range(n_pairs):
        chunk = body[i * step:(i + 1) * step] if i < n_pairs - 1 else body[i * step:]
        out.append(np.array([_value(b, k) for k, b in enumerate(chunk[:60])], dtype=np.float64))
    return out


def _moderate(d: np.ndarray) -> bool:
    a = np.abs(d)
    return d.size >= 2 and bool(np.all(np.isfinite(d))) and bool(np.all((a == 0) | ((a > 1e-6) & (a < 1e6))))


def _check_p(p, what: str) -> None:
    for x in np.asarray(p, dtype=float).ravel():
        check_unit(x, what)


def _check_ci(lo, hi, what: str) -> None:
    for a, b in zip(np.asarray(lo, float).ravel(), np.asarray(hi, float).ravel()):
        if not (math.isnan(a) or math.isnan(b)):
            check(a <= b, f"{what}: interval ({a!r}, {b!r}) is not ordered")


def _against_scipy(func: str, diffs, p) -> None:
    if ss is None:
        return
    for d, pv in zip(diffs, p):
        if not np.all(np.isfinite(d)):
            continue
        if func == "sign":
            k, m = int((d > 0).sum()), int((d != 0).sum())
            if m:
                ref = float(ss.binomtest(k, m, 0.5).pvalue)
                check(abs(pv - ref) <= 1e-12 * max(ref, 1e-300) + 1e-300, f"sign test {pv!r} != scipy {ref!r}")
        elif func == "t" and _moderate(d) and np.std(d) > 1e-6 * np.abs(d).max():
            ref = float(ss.ttest_rel(d, np.zeros_like(d)).pvalue)
            check(abs(pv - ref) <= 1e-9 * ref + 1e-14, f"t-test {pv!r} != scipy {ref!r}")


def test_one_input(data: bytes) -> None:
    if len(data) < 6:
        return
    h, body = data[:6], data[6:]
    func = FUNCS[h[0] % len(FUNCS)]
    n_pairs = 1 + h[1] % 4
    n_res = RESAMPLES[h[2] % len(RESAMPLES)]
    alpha = ALPHAS[h[3] % len(ALPHAS)]
    seed = SEEDS[h[4] % len(SEEDS)]
    extra = h[5]
    diffs = _pairs(body, n_pairs)
    if func in ("t", "wilcoxon", "sign"):
        fn = {"t": lambda: paired.t_test(diffs, alpha)[0], "wilcoxon": lambda: paired.wilcoxon_test(diffs),
              "sign": lambda: paired.sign_test(diffs)}[func]
        p = guarded(fn)
        if p is not None:
            _check_p(p, func)
            _against_scipy(func, diffs, p)
        if func == "t":
            res = guarded(paired.t_test, diffs, alpha)
            if res is not None:
                _check_ci(res[1], res[2], "t interval")
    elif func == "randomization":
        res = guarded(paired.randomization_test, diffs, n_res, seed)
        if res is not None:
            _check_p(res[0], "randomization p")
    elif func == "bootstrap":
        res = guarded(paired.bootstrap_test, diffs, n_res, seed, alpha, CIS[extra % len(CIS)])
        if res is not None:
            _check_p(res[0], "bootstrap p")
            _check_ci(res[1], res[2], "bootstrap interval")
    elif func == "effect":
        guarded(paired.effect_sizes, diffs)
    elif func == "tukey_randomized":
        k = 2 + extra % 4
        flat = np.concatenate(diffs) if diffs else np.zeros(0)
        scores = flat[: (flat.size // k) * k].reshape(-1, k) if extra & 0x40 else flat
        res = guarded(paired.tukey_randomized, scores, n_res, seed, alpha)
        if res is not None:
            _check_p(res[0], "tukey_randomized p")
            _check_ci(res[1], res[2], "tukey_randomized interval")
    elif func == "adjust":
        p = np.concatenate(diffs) if diffs else np.zeros(0)
        method = CORRECTIONS[extra % len(CORRECTIONS)]
        out = guarded(adjust, p, method)
        if out is not None:
            _check_p(out, f"adjust {method}")
            check(not np.any(np.signbit(out[~np.isnan(out)])), "adjust returned a negative zero")
            ok = ~np.isnan(p)
            if multipletests is not None and ok.any() and method in ("holm", "bonferroni", "bh"):
                ref = multipletests(p[ok], method={"bh": "fdr_bh"}.get(method, method))[1]
                check(bool(np.allclose(out[ok], ref, rtol=1e-12, atol=1e-15)),
                      f"adjust {method} {out[ok]!r} != statsmodels {ref!r}")
    else:
        k = 2 + extra % 4
        flat = np.concatenate(diffs) if diffs else np.zeros(0)
        scores = flat[: (flat.size // k) * k].reshape(k, -1)
        if func == "swap":
            res = guarded(meta.swap_rate, None, scores, "m", topic_set_sizes=SIZES[h[3] % len(SIZES)],
                          n_trials=COUNTS[h[2] % len(COUNTS)], bin_width=WIDTHS[extra % len(WIDTHS)],
                          n_bins=COUNTS[h[4] % len(COUNTS)], seed=1)
            for r in res or ():
                check(int(r.n_swaps.sum()) <= int(r.n_pairs.sum()), "more swaps than observations")
                check_unit(r.overall, "swap rate")
        else:
            res = guarded(meta.discriminative_power, None, scores, "m",
                          test=("t", "sign", "wilcoxon", "randomization", "bootstrap")[extra % 5],
                          alpha=alpha, n_resamples=n_res, seed=1)
            if res is not None:
                check_unit(res.power, "discriminative power")
                _check_p(res.asl, "ASL")


if __name__ == "__main__":
    main(test_one_input)
