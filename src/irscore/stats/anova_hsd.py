"""Analysis of variance of a topics x systems score matrix and Tukey's HSD on it.

Every system is run on the same topics, so the topics are blocks: the model is
the two-way ANOVA without replication (Sakai, *Laboratory Experiments in
Information Retrieval*, Springer 2018; Carterette, ACM TOIS 2012)

    x_ts = mu + a_s + b_t + e_ts      (s: system, t: topic)

whose residual mean square MS_E = SS_E / ((k - 1)(n - 1)) is the error term of
the F test of the systems and of the blocked Tukey HSD.  The one-way reading
(topics ignored: the topic variance stays in the error) is available with
``blocked=False``; it is what ``scipy.stats.f_oneway`` / ``scipy.stats.tukey_hsd``
compute.

Pure numpy; the F distribution's tail comes from the regularised incomplete
beta function of `irscore.stats.distributions`, the studentised range of
Tukey's HSD from `irscore.stats.studentized_range`; no scipy needed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Tuple

import numpy as np

from irscore.stats import distributions as D
from irscore.stats import studentized_range
from irscore.stats.arrays import real_array


def check_alpha(alpha: Any) -> float:
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, (int, float, np.integer, np.floating)) \
            or not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    return float(alpha)


def check_scores(scores: Any, name: str = "scores") -> np.ndarray:
    """``scores`` as a C-contiguous float64 (topics x systems) array with at least
    two topics and two systems and only finite values; ValueError otherwise."""
    a = real_array(scores, name, 2, " (topics x systems)", 1e150, "; drop undefined topics first")
    if a.shape[0] < 2 or a.shape[1] < 2:
        raise ValueError(f"{name} needs at least 2 topics (rows) and 2 systems (columns), got shape {a.shape}")
    return np.ascontiguousarray(a)


def f_sf(f: float, df1: float, df2: float) -> float:
    """P(F >= f) of Snedecor's F(df1, df2) = I_{df2/(df2+df1 f)}(df2/2, df1/2)."""
    if math.isnan(f) or not df1 > 0 or not df2 > 0:
        return math.nan
    if f <= 0:
        return 1.0
    if math.isinf(f):
        return 0.0
    return float(D.betainc(df2 / 2.0, df1 / 2.0, df2 / (df2 + df1 * f)))


@dataclass(frozen=True)
class Anova:
    """Result of `anova`.  ``blocked`` (two-way without replication) or the
    one-way table; the topic rows are NaN in the one-way table."""

    blocked: bool
    n_topics: int
    n_systems: int
    ss_systems: float
    ss_topics: float
    ss_error: float
    ss_total: float
    df_systems: int
    df_topics: int
    df_error: int
    ms_systems: float
    ms_topics: float
    ms_error: float
    F: float
    p: float
    F_topics: float
    p_topics: float
    means: np.ndarray

    @property
    def design(self) -> str:
        return "two-way ANOVA without replication (systems x topics)" if self.blocked else "one-way ANOVA"

    def table(self) -> str:
        """The ANOVA table as text (source, SS, df, MS, F, p)."""
        rows = [("systems", self.ss_systems, self.df_systems, self.ms_systems, self.F, self.p)]
        if self.blocked:
            rows.append(("topics", self.ss_topics, self.df_topics, self.ms_topics, self.F_topics, self.p_topics))
        rows.append(("error", self.ss_error, self.df_error, self.ms_error, math.nan, math.nan))
        rows.append(("total", self.ss_total, self.n_topics * self.n_systems - 1, math.nan, math.nan, math.nan))
        out = [f"{self.design}: {self.n_topics} topics, {self.n_systems} systems",
               f"{'source':<8} {'SS':>12} {'df':>6} {'MS':>12} {'F':>10} {'p':>10}"]
        for name, ss, df, ms, f, p in rows:
            cells = [f"{ss:12.6g}", f"{df:6d}", "" if math.isnan(ms) else f"{ms:12.6g}",
                     "" if math.isnan(f) else f"{f:10.4f}", "" if math.isnan(p) else f"{p:10.4g}"]
            out.append(f"{name:<8} {cells[0]} {cells[1]} {cells[2]:>12} {cells[3]:>10} {cells[4]:>10}")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.table()


def anova(scores: Any, blocked: bool = True) -> Anova:
    """ANOVA of a (topics x systems) score matrix.

    ``blocked=True`` (default): two-way ANOVA without replication, systems x
    topics (every system on every topic; topics are blocks), as statsmodels'
    ``anova_lm(ols("y ~ C(system) + C(topic)"))``:
    SS_A = n Σ_s (x̄_s - x̄)², SS_B = k Σ_t (x̄_t - x̄)², SS_E = SS_T - SS_A - SS_B,
    df (k - 1), (n - 1), (k - 1)(n - 1); F = MS_A / MS_E, p = P(F_{k-1, (k-1)(n-1)} >= F).
    ``blocked=False``: one-way ANOVA over the systems (topics ignored), df_error =
    k (n - 1), as ``scipy.stats.f_oneway`` on the columns.

    ``scores``: at least 2 topics and 2 systems, finite values (drop undefined
    topics first).  When MS_E is 0 (no residual variation), F is +inf (p = 0)
    if the systems differ, NaN if they do not.
    """
    if not isinstance(blocked, (bool, np.bool_)):
        raise TypeError(f"blocked must be True or False, got {blocked!r}")
    x = check_scores(scores)
    n, k = x.shape
    grand = float(x.mean())
    sys_means = x.mean(axis=0)
    top_means = x.mean(axis=1)
    ss_total = float(np.sum((x - grand) ** 2))
    ss_a = float(n * np.sum((sys_means - grand) ** 2))
    df_a = k - 1
    if blocked:
        ss_b = float(k * np.sum((top_means - grand) ** 2))
        resid = x - sys_means[None, :] - top_means[:, None] + grand
        ss_e = float(np.sum(resid ** 2))      # direct sum: no cancellation of SS_T - SS_A - SS_B
        df_b, df_e = n - 1, (k - 1) * (n - 1)
    else:
        ss_b, df_b = math.nan, 0
        ss_e = float(np.sum((x - sys_means[None, :]) ** 2))
        df_e = k * (n - 1)
    ms_a, ms_e = ss_a / df_a, ss_e / df_e
    ms_b = ss_b / df_b if blocked else math.nan
    F, Fb = _ratio(ms_a, ms_e, ss_total), _ratio(ms_b, ms_e, ss_total) if blocked else math.nan
    return Anova(blocked=bool(blocked), n_topics=n, n_systems=k, ss_systems=ss_a, ss_topics=ss_b, ss_error=ss_e,
                 ss_total=ss_total, df_systems=df_a, df_topics=df_b, df_error=df_e, ms_systems=ms_a,
                 ms_topics=ms_b, ms_error=ms_e, F=F, p=f_sf(F, df_a, df_e), F_topics=Fb,
                 p_topics=f_sf(Fb, df_b, df_e) if blocked else math.nan, means=sys_means)


def _ratio(ms: float, ms_e: float, ss_total: float) -> float:
    # MS_E is "0" when it is at rounding level of the total variation
    if ms_e <= 1e-28 * max(ss_total, 1e-300):
        return math.inf if ms > 1e-28 * max(ss_total, 1e-300) else math.nan
    return ms / ms_e


def tukey(scores: Any, alpha: float = 0.05, blocked: bool = True
          ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, Anova]:
    """Tukey's HSD on a (topics x systems) matrix: (p, ci_low, ci_high, anova).

    Matrices indexed [i, j] for mean_i - mean_j.  The error term is the ANOVA's
    MS_E with its df (blocked: (k - 1)(n - 1); one-way: k (n - 1));
    q_ij = |x̄_i - x̄_j| / sqrt(MS_E / n), p_ij = P(Q_{k, df} >= q_ij) (studentised
    range, `irscore.stats.studentized_range`: within 1e-11 of scipy's), simultaneous interval x̄_i - x̄_j ± q_{1-alpha; k, df} sqrt(MS_E / n).
    With MS_E = 0: p = 0 where the means differ, 1 where they are equal, and the
    intervals are the points x̄_i - x̄_j.
    """
    alpha = check_alpha(alpha)
    a = anova(scores, blocked=blocked)
    k, n = a.n_systems, a.n_topics
    diff = a.means[:, None] - a.means[None, :]
    if not (math.isinf(a.F) or math.isnan(a.F)):
        se = math.sqrt(a.ms_error / n)
        q = np.abs(diff) / se
        p = studentized_range.sf(q, k, a.df_error)
        p = np.clip(p, 0.0, 1.0)
        np.fill_diagonal(p, 1.0)
        half = studentized_range.ppf(1.0 - alpha, k, a.df_error) * se
    else:
        p = np.where(np.abs(diff) > 0, 0.0, 1.0)
        half = 0.0
    return p, diff - half, diff + half, a


def standardized_differences(scores: Any, blocked: bool = True) -> np.ndarray:
    """Effect sizes of every pair of systems for the ANOVA / Tukey HSD:
    (x̄_i - x̄_j) / sqrt(MS_E), MS_E the residual mean square of the two-way
    ANOVA without replication (the effect size Sakai recommends with the
    blocked Tukey HSD: *Laboratory Experiments in Information Retrieval*,
    Springer 2018) or, with ``blocked=False``, of the one-way ANOVA.  Matrix
    [i, j]; ±inf (0 on equal means) when MS_E = 0."""
    a = anova(scores, blocked=blocked)
    diff = a.means[:, None] - a.means[None, :]
    if math.isinf(a.F) or math.isnan(a.F):
        return np.where(diff == 0, 0.0, np.sign(diff) * np.inf)
    return diff / math.sqrt(a.ms_error)
