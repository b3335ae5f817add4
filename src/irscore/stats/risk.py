"""Risk-sensitive evaluation: URisk and TRisk against a baseline (Dinçer,
Macdonald & Ounis, *Hypothesis testing for the risk-sensitive evaluation of
retrieval systems*, SIGIR 2014) and GeoRisk over a set of systems (Dinçer,
Macdonald & Ounis, *Risk-sensitive evaluation and learning to rank using
multiple baselines*, SIGIR 2016).

For a system r and a baseline b on c topics, δ_q = r_q - b_q and

    z_q = δ_q              if δ_q >= 0   (a win or a tie)
    z_q = (1 + α) δ_q      if δ_q < 0    (a loss costs 1 + α times as much)

URisk_α = (1/c) Σ_q z_q; TRisk_α = URisk_α / SE, SE =
s_z / √c, s_z the sample standard deviation of the z_q: the one-sample t
statistic of the z_q, so p = P(|T_{c-1}| >= |TRisk|).  TRisk > 0: fewer losses
than the α-weighted wins; |TRisk| > about 2 (c large): significant at 0.05.

GeoRisk of system i among the systems of a topics x systems matrix x (values
>= 0): S_i = Σ_q x_qi, T_q = Σ_i x_qi, N = Σ x; e_qi = S_i T_q / N (the value
expected if topics and systems were independent, as in a chi-squared test);
z_qi = (x_qi - e_qi) / √e_qi; ZRisk_i = Σ_q [z_qi if z_qi >= 0 else (1 + α) z_qi];
GeoRisk_i = √( (S_i / c) Φ(ZRisk_i / c) ), Φ the standard normal distribution
function: the geometric mean of the mean effectiveness and of a measure of its
risk across topics relative to the other systems.  A term with e_qi = 0 (a topic
or a system with only zeros) is 0.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Tuple, Union

import numpy as np

from irscore.stats import distributions as D
from irscore.stats.arrays import real_array


def check_risk_alpha(alpha: Any) -> float:
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, (int, float, np.integer, np.floating)) \
            or not (0.0 <= float(alpha) < math.inf):
        raise ValueError(f"alpha (the risk weight of losses) must be a finite number >= 0, got {alpha!r}")
    return float(alpha)


def _vector(x: Any, name: str) -> np.ndarray:
    return real_array(x, name, 1, " (one value per topic)", 1e300, "; drop undefined topics first")


def _pair(scores: Any, baseline: Any) -> np.ndarray:
    r, b = _vector(scores, "scores"), _vector(baseline, "baseline")
    if r.shape != b.shape:
        raise ValueError(f"scores and baseline must have one value per topic each, got {r.size} and {b.size}")
    if r.size == 0:
        raise ValueError("scores and baseline are empty: no topic to evaluate")
    return r - b


def risk_terms(delta: np.ndarray, alpha: float) -> np.ndarray:
    """z_q: the differences with each loss multiplied by 1 + alpha."""
    return np.where(delta < 0, (1.0 + alpha) * delta, delta)


def urisk(scores: Any, baseline: Any, alpha: float = 1.0, per_query: bool = False
          ) -> Union[float, np.ndarray]:
    """URisk_alpha of ``scores`` against ``baseline`` (per-topic values, same
    topics in the same order): the mean of the differences with every loss
    weighted by 1 + ``alpha`` (alpha >= 0; 0 gives the mean difference).
    ``per_query=True`` returns the per-topic terms z_q instead (their mean is
    URisk)."""
    alpha = check_risk_alpha(alpha)
    z = risk_terms(_pair(scores, baseline), alpha)
    return z if per_query else float(z.mean())


@dataclass(frozen=True)
class TRisk:
    """The result of `trisk`: the t statistic ``trisk``, its two-sided ``p``
    (Student's t with ``df`` = c - 1), ``urisk`` and its standard error ``se``."""

    trisk: float
    p: float
    urisk: float
    se: float
    df: int


def trisk(scores: Any, baseline: Any, alpha: float = 1.0) -> TRisk:
    """TRisk_alpha (Dinçer, Macdonald & Ounis, SIGIR 2014): URisk_alpha divided by
    its standard error s_z / sqrt(c), a paired t statistic with c - 1 degrees of
    freedom; p its two-sided p-value.  Needs two topics (p and TRisk NaN with
    one).  All z_q equal: TRisk = ±inf (p = 0), or NaN when they are all 0
    (p = 1)."""
    alpha = check_risk_alpha(alpha)
    z = risk_terms(_pair(scores, baseline), alpha)
    return _trisk_of_terms(z)


def _trisk_of_terms(z: np.ndarray, with_p: bool = True) -> TRisk:
    c = z.size
    u = float(z.mean())
    if c < 2:
        return TRisk(math.nan, math.nan, u, math.nan, 0)
    se = float(z.std(ddof=1)) / math.sqrt(c)
    if se <= 1e-15 * max(float(np.abs(z).max()), 1e-300):
        if u == 0.0:
            return TRisk(math.nan, 1.0, u, 0.0, c - 1)
        return TRisk(math.copysign(math.inf, u), 0.0, u, 0.0, c - 1)
    t = u / se
    return TRisk(t, float(D.t_two_sided(t, c - 1)) if with_p else math.nan, u, se, c - 1)


def trisk_many(diffs: Any, alpha: float) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(urisk, trisk, p) for a sequence of difference vectors (one per pair);
    the same values as `trisk` on each, its t tails in one vectorised call."""
    alpha = check_risk_alpha(alpha)
    P = len(diffs)
    u, t, p = np.full(P, np.nan), np.full(P, np.nan), np.full(P, np.nan)
    df = np.zeros(P)
    for i, d in enumerate(diffs):
        d = np.asarray(d, dtype=np.float64)
        if d.size:
            r = _trisk_of_terms(risk_terms(d, alpha), with_p=False)
            u[i], t[i], p[i], df[i] = r.urisk, r.trisk, r.p, r.df
    finite = np.isfinite(t) & (df > 0)
    if finite.any():
        p[finite] = D.t_two_sided(t[finite], df[finite])
    return u, t, p


def _matrix(scores: Any) -> np.ndarray:
    if isinstance(scores, (str, bytes)):
        raise TypeError("scores must be a 2-D array of numbers (topics x systems), got a string")
    try:
        x = np.array(scores, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"scores must be a 2-D array of numbers (topics x systems): {exc}") from None
    if x.ndim != 2:
        raise ValueError(f"scores must be a 2-D array (topics x systems), got shape {x.shape}")
    if x.shape[0] < 1 or x.shape[1] < 2:
        raise ValueError(f"scores needs at least 1 topic and 2 systems, got shape {x.shape}")
    bad = ~np.isfinite(x) | (x < 0) | (x > 1e150)
    if bad.any():
        t, s = np.argwhere(bad)[0]
        raise ValueError(f"scores[{t}, {s}] = {x[t, s]}: GeoRisk needs finite values >= 0 "
                         "(effectiveness scores); drop undefined topics first")
    return x


def zrisk_terms(scores: Any, alpha: float = 1.0) -> np.ndarray:
    """The per-topic terms of ZRisk (topics x systems): z_qi = (x_qi - e_qi) /
    sqrt(e_qi), losses (z < 0) multiplied by 1 + alpha; 0 where e_qi = 0."""
    alpha = check_risk_alpha(alpha)
    x = _matrix(scores)
    S = x.sum(axis=0)
    T = x.sum(axis=1)
    N = float(S.sum())
    if N == 0.0:
        return np.zeros_like(x)
    e = np.outer(T, S) / N
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(e > 0, (x - e) / np.sqrt(np.where(e > 0, e, 1.0)), 0.0)
    return risk_terms(z, alpha)


def georisk(scores: Any, alpha: float = 1.0, per_query: bool = False) -> np.ndarray:
    """GeoRisk_alpha of every system (column) of a (topics x systems) matrix of
    effectiveness values >= 0 (Dinçer, Macdonald & Ounis, SIGIR 2016): one value
    per system, higher is better (effective and not risky relative to the other
    systems).  ``per_query=True`` returns the ZRisk terms (topics x systems)
    instead; their column sums are ZRisk."""
    z = zrisk_terms(scores, alpha)
    if per_query:
        return z
    x = _matrix(scores)
    c = x.shape[0]
    phi = np.array([D.normal_cdf(float(v) / c) for v in z.sum(axis=0)])
    return np.sqrt(x.sum(axis=0) / c * phi)
