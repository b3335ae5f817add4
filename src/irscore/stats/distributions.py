"""Null distributions of the paired tests: Student's t (regularised incomplete
beta function by Lentz's continued fraction), the standard normal, the
symmetric binomial and the exact distribution of Wilcoxon's signed-rank
statistic.  Vectorised numpy / exact integer arithmetic; no scipy needed.

The studentised range distribution (classical Tukey HSD) is taken from scipy,
an optional dependency, imported by `studentized_range_sf`.
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from statistics import NormalDist
from typing import Any, Tuple

import numpy as np

_NORMAL = NormalDist()


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz;
    Press et al., Numerical Recipes, section 6.4)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) >= tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) >= tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) >= tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) >= tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) >= tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def _betainc1(a: float, b: float, x: float) -> float:
    if math.isnan(a) or math.isnan(b) or math.isnan(x):
        return math.nan
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


_betainc_v = np.vectorize(_betainc1, otypes=[float])


def betainc(a: Any, b: Any, x: Any) -> np.ndarray:
    """Regularised incomplete beta function I_x(a, b) (a, b > 0, 0 <= x <= 1)."""
    return np.asarray(_betainc_v(a, b, x), dtype=float)


def t_two_sided(t: Any, df: Any) -> np.ndarray:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom
    (= I_{df/(df+t^2)}(df/2, 1/2)); NaN where df <= 0 or t is NaN."""
    t = np.asarray(t, float)
    df = np.broadcast_to(np.asarray(df, float), t.shape)
    out = np.full(t.shape, np.nan)
    ok = (df > 0) & ~np.isnan(t)
    inf = ok & np.isinf(t)
    out[inf] = 0.0
    fin = ok & ~np.isinf(t)
    if fin.any():
        tt, dd = t[fin], df[fin]
        out[fin] = np.minimum(1.0, betainc(dd / 2.0, 0.5, dd / (dd + tt * tt)))
    return out


@lru_cache(maxsize=256)
def t_critical(df: float, alpha: float) -> float:
    """The t with P(|T| >= t) = alpha (two-sided critical value), by bisection."""
    if not df > 0:
        return math.nan
    lo, hi = 0.0, 1.0
    def p2(t: float) -> float:
        return _betainc1(df / 2.0, 0.5, df / (df + t * t))

    while p2(hi) > alpha:
        hi *= 2.0
        if hi > 1e300:
            return math.inf
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if p2(mid) > alpha:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * hi:
            break
    return 0.5 * (lo + hi)


def normal_two_sided(z: Any) -> np.ndarray:
    """P(|Z| >= |z|) for the standard normal."""
    z = np.asarray(z, float)
    f = np.vectorize(lambda v: math.erfc(abs(v) / math.sqrt(2.0)) if not math.isnan(v) else math.nan,
                     otypes=[float])
    return f(z) if z.size else z.copy()


def normal_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def normal_ppf(p: float) -> float:
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    return _NORMAL.inv_cdf(p)


def _stirlerr_small() -> Tuple[float, ...]:
    """stirlerr(n) = ln n! - (n + 1/2) ln n + n - ln sqrt(2 pi) for n = 1..15, in
    40-digit decimal arithmetic (a float evaluation of the formula loses ~1e-14 to
    cancellation)."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 50
        pi = Decimal("3.14159265358979323846264338327950288419716939937510")
        half_ln_2pi = (2 * pi).ln() / 2
        out = [0.0]
        for n in range(1, 16):
            dn = Decimal(n)
            v = Decimal(math.factorial(n)).ln() - (dn + Decimal("0.5")) * dn.ln() + dn - half_ln_2pi
            out.append(float(v))
    return tuple(out)


_STIRLERR = _stirlerr_small()


def _stirlerr(n: int) -> float:
    """The error of Stirling's formula in ln n! (Loader 2000, "Fast and accurate
    computation of binomial probabilities"): its asymptotic series past 15."""
    if n <= 15:
        return _STIRLERR[n]
    nn = float(n) * float(n)
    s0, s1, s2, s3, s4 = 1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188
    if n > 500:
        return (s0 - s1 / nn) / n
    if n > 80:
        return (s0 - (s1 - s2 / nn) / nn) / n
    if n > 35:
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


_LD = np.longdouble     # 64-bit significand on x86-64 Linux (double elsewhere on some platforms)


def _bd0(x: float, m: float) -> Any:
    """x ln(x / m) + m - x without cancellation (Loader 2000): a series in
    v = (x - m) / (x + m) when x is near m, else the formula; in long double
    (the value reaches hundreds where p is tiny, and exp() turns its absolute
    error into a relative one: in double that alone costs ~1e-12)."""
    lx, lm = _LD(x), _LD(m)
    if abs(x - m) < 0.1 * (x + m):
        v = (lx - lm) / (lx + lm)
        s = (lx - lm) * v
        ej = 2 * lx * v
        v2 = v * v
        for j in range(1, 1000):
            ej *= v2
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                break
            s = s1
        return s
    return lx * np.log1p((lx - lm) / lm) + (lm - lx)


def binom_half_pmf(k: int, n: int) -> float:
    """P(X = k) for X ~ Bin(n, 1/2), to a few ulps where long double is wider
    than double (Loader's saddle-point form: no lgamma differences, whose
    absolute error grows with n)."""
    if k < 0 or k > n:
        return 0.0
    if k == 0 or k == n:
        return math.ldexp(1.0, -n)
    half = 0.5 * n
    lc = (_LD(_stirlerr(n)) - _LD(_stirlerr(k)) - _LD(_stirlerr(n - k))
          - _bd0(float(k), half) - _bd0(float(n - k), half))
    lf = _LD(math.log(2.0 * math.pi)) + np.log(_LD(k)) + np.log1p(-_LD(k) / _LD(n))
    return float(np.exp(lc - _LD(0.5) * lf))


def sign_test_p(n_pos: int, n: int) -> float:
    """Two-sided exact sign test: min(1, 2 P(X <= min(k, n - k))), X ~ Bin(n, 1/2)
    (= scipy.stats.binomtest(k, n, 0.5).pvalue); 1 when n = 0.

    Floating point in O(min(k, n - k)) operations: P(X = k) by Loader's
    saddle-point formula, the lower tail as P(X = k) (1 + r_k + r_k r_{k-1} + ...),
    r_i = i / (n - i + 1) < 1.  Relative error below 1e-12 for n up to 10^6
    (measured against exact fractions and scipy: docs/stats.md); p-values below
    about 1e-308 underflow to subnormals or 0."""
    if n == 0:
        return 1.0
    k = min(n_pos, n - n_pos)
    if 2 * k == n:
        return 1.0
    pk = binom_half_pmf(k, n)
    if k == 0 or pk == 0.0:
        return min(1.0, 2.0 * pk)
    # the terms fall at least geometrically once r_i < 1/2 and like a Gaussian
    # before: add them in chunks until one is below 1e-20 of the sum
    total, last, top = 1.0, 1.0, k
    while top > 0:
        i = np.arange(top, max(top - 4096, 0), -1, dtype=np.float64)
        terms = last * np.cumprod(i / (n - i + 1.0))
        total += float(terms.sum())
        last = float(terms[-1])
        top -= i.size
        if last < 1e-20 * total:
            break
    return min(1.0, 2.0 * pk * total)


@lru_cache(maxsize=64)
def _wilcoxon_counts(n: int) -> Tuple[int, ...]:
    """Number of subsets of {1..n} with each sum 0..n(n+1)/2 (exact integers)."""
    counts = [1] + [0] * (n * (n + 1) // 2)
    top = 0
    for k in range(1, n + 1):
        top += k
        for s in range(top, k - 1, -1):
            counts[s] += counts[s - k]
    return tuple(counts)


def wilcoxon_exact_p(r_plus: float, n: int) -> float:
    """Two-sided p of the exact signed-rank null distribution of n untied
    non-zero differences: 2 min(P(W >= floor r), P(W <= ceil r)), capped at 1."""
    counts = _wilcoxon_counts(n)
    total = 1 << n
    lo, hi = math.floor(r_plus), math.ceil(r_plus)
    sf = sum(counts[max(lo, 0):])
    cdf = sum(counts[:max(hi + 1, 0)])
    return min(1.0, float(Fraction(2 * min(sf, cdf), total)))


def studentized_range_sf(q: Any, k: int, df: float) -> np.ndarray:
    """P(Q >= q) of the studentised range (needs scipy)."""
    try:
        from scipy.stats import studentized_range
    except ImportError as exc:  # pragma: no cover - scipy is in the test extra
        raise ImportError("the 'tukey' test needs scipy (pip install scipy)") from exc
    return np.asarray(studentized_range.sf(q, k, df), dtype=float)
