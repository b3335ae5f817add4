"""Comparing systems: paired significance tests, comparison reports and
meta-evaluation of measures.

Architecture (each layer imports only the ones above it and irscore's public
API: ``evaluate``, ``read_qrels``, ``read_run``, ``Qrels``, ``Run``):

- `irscore.stats.distributions` -- null distributions (Student's t,
  normal, binomial, exact signed-rank; the studentised range from scipy).
- `irscore.stats.paired` -- the tests over many system pairs at once
  (``t``, ``wilcoxon``, ``sign``, ``randomization``, ``bootstrap``, ``tukey``,
  ``tukey_randomized``), effect sizes; the resampling loops run in the native
  kernel ``irscore._stats`` (xoshiro256** streams, all pairs in one nogil call).
- `irscore.stats.anova_hsd` -- two-way ANOVA without replication (topics as
  blocks) and one-way ANOVA; Tukey's HSD with either error term.
- `irscore.stats.intervals` -- confidence intervals of a system's mean (t,
  bootstrap percentile and BCa).
- `irscore.stats.risk` -- risk-sensitive evaluation: URisk, TRisk, GeoRisk.
- `irscore.stats.topicset` -- topic-set-size design and power (Sakai 2016).
- `irscore.stats.qpp_evaluation` -- evaluation of query performance
  predictors: correlations with intervals, sMARE, Steiger's test.
- `irscore.stats.corrections` -- Bonferroni, Holm, Benjamini-Hochberg.
- [`irscore.stats.comparison`][irscore.stats.comparison] -- [`compare`][irscore.stats.compare] (evaluate the runs on one
  query set, test, correct) and its [`Comparison`][irscore.stats.Comparison] result;
  `irscore.stats.formats` renders it (text, Markdown, LaTeX, HTML, JSON,
  CSV).
- [`irscore.stats.meta`][irscore.stats.meta] -- meta-evaluation of measures: discriminative
  power (Sakai 2006), rank correlations (Kendall's tau, tau_AP), swap rates
  (Voorhees & Buckley 2002).

``irscore.compare`` and ``irscore.meta`` are the entry points; the
definitions, formulas and references are in ``docs/stats.md``.
"""
from __future__ import annotations

from irscore.stats.anova_hsd import Anova, anova, standardized_differences
from irscore.stats.comparison import Comparison, Pair, compare
from irscore.stats.corrections import adjust
from irscore.stats.intervals import mean_ci
from irscore.stats.paired import (
    bootstrap_test,
    effect_sizes,
    randomization_test,
    sign_test,
    t_test,
    tukey_hsd,
    tukey_randomized,
    wilcoxon_test,
)
from irscore.stats.qpp_evaluation import QPPEvaluation, compare_predictors, qpp
from irscore.stats.qpp_evaluation import correlation as qpp_correlation
from irscore.stats.risk import TRisk, georisk, trisk, urisk
from irscore.stats.topicset import (
    AchievedPower,
    achieved_power,
    expected_ci_width,
    power_anova,
    power_t_test,
    topics_for_anova,
    topics_for_ci,
    topics_for_t_test,
    variance_estimate,
)

__all__ = ["AchievedPower", "Anova", "Comparison", "Pair", "QPPEvaluation", "TRisk", "achieved_power", "adjust",
           "anova", "bootstrap_test", "compare", "compare_predictors", "effect_sizes", "expected_ci_width", "georisk",
           "mean_ci", "power_anova", "power_t_test", "qpp", "qpp_correlation", "randomization_test", "sign_test",
           "standardized_differences", "t_test", "topics_for_anova", "topics_for_ci", "topics_for_t_test", "trisk",
           "tukey_hsd", "tukey_randomized", "urisk", "variance_estimate", "wilcoxon_test"]
