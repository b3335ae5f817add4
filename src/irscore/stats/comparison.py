"""``compare()``: evaluate several runs on one query set and test every pair
(or every run against a baseline) for significant differences.

Every run is evaluated on all the qrels queries: a query a run did not answer
scores 0, as trec_eval's ``-c`` (``irscore.evaluate(..., per_query=True,
complete=True)``).  Undefined per-query values (NaN, e.g. Rocchio's or CRP's
measures on a query without relevant documents) are dropped pairwise; every
comparison says how many queries it used and dropped.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from irscore.classic import check_ties, evaluate
from irscore.core.data import Run
from irscore.core.io import as_qrels, as_run
from irscore.stats import anova_hsd, formats, intervals, paired
from irscore.stats import risk as risk_mod
from irscore.stats.corrections import METHODS, adjust

TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey", "tukey_oneway", "tukey_randomized")
# the tests over all systems at once: they control the family-wise error themselves
FAMILYWISE = ("tukey", "tukey_oneway", "tukey_randomized")
# es_anova: (mean_i - mean_j) / sqrt(MS_E) of the ANOVA (Sakai's effect size for Tukey's HSD)
EFFECTS = ("hedges_g", "cohen_d", "es_anova")
RESAMPLING = ("randomization", "bootstrap", "tukey_randomized")


@dataclass
class Pair:
    """One comparison: ``system`` against ``vs`` on ``measure`` (diff = system - vs)."""

    measure: str
    system: str
    vs: str
    diff: float
    p: float
    p_adj: float
    ci_low: float
    ci_high: float
    cohen_d: float
    hedges_g: float
    n_queries: int
    n_dropped: int
    significant: bool
    exact: Optional[bool] = None
    urisk: Optional[float] = None
    trisk: Optional[float] = None
    trisk_p: Optional[float] = None
    es_anova: Optional[float] = None


@dataclass
class Comparison:
    """Result of [`compare`][irscore.stats.comparison.compare].  ``scores[measure]``: per-query values, shape
    (n_systems, n_queries), rows in ``systems`` order, columns in ``query_ids``
    order (NaN where undefined); ``means[measure]``: per-system means over the
    defined queries; ``pairs``: one `Pair` per (measure, comparison)."""

    systems: List[str]
    measures: List[str]
    query_ids: List[str]
    scores: Dict[str, np.ndarray]
    means: Dict[str, np.ndarray]
    pairs: List[Pair]
    test: str
    correction: str
    alpha: float
    baseline: Optional[str] = None
    n_resamples: Optional[int] = None
    seed: Optional[int] = None
    ci: str = "t"
    effect: str = "hedges_g"
    unanswered: Dict[str, int] = field(default_factory=dict)
    mean_ci: Optional[str] = None
    mean_intervals: Dict[str, np.ndarray] = field(default_factory=dict)
    risk: Optional[float] = None
    georisk: Dict[str, np.ndarray] = field(default_factory=dict)

    # ---- access -------------------------------------------------------------
    def pair(self, measure: str, system: str, vs: str) -> Pair:
        for p in self.pairs:
            if p.measure == measure and {p.system, p.vs} == {system, vs}:
                return p
        raise KeyError(f"no comparison of {system!r} and {vs!r} on {measure!r}")

    def differences(self, measure: str, system: str, vs: Optional[str] = None) -> Tuple[List[str], np.ndarray]:
        """Per-query differences ``system - vs`` on ``measure`` (``vs`` defaults
        to the baseline): (query ids, values), NaN where either is undefined."""
        if measure not in self.scores:
            raise KeyError(f"measure {measure!r} is not in the comparison (have {', '.join(self.measures)})")
        vs = vs if vs is not None else self.baseline
        if vs is None:
            raise ValueError("no baseline: name the system to compare against (vs=...)")
        for name in (system, vs):
            if name not in self.systems:
                raise KeyError(f"system {name!r} is not in the comparison (have {', '.join(self.systems)})")
        s = self.scores[measure]
        return list(self.query_ids), s[self.systems.index(system)] - s[self.systems.index(vs)]

    def effect_of(self, p: Pair) -> float:
        if self.effect == "es_anova":
            return math.nan if p.es_anova is None else p.es_anova
        return p.hedges_g if self.effect == "hedges_g" else p.cohen_d

    @property
    def description(self) -> str:
        """One sentence naming the test, correction, alpha and query set."""
        return formats.description(self)

    # ---- output -------------------------------------------------------------
    def to_pandas(self) -> Any:
        """Tidy frame, one row per comparison: system, measure, mean, vs,
        vs_mean, diff, p, p_adj, ci_low, ci_high, effect (the chosen effect
        size), cohen_d, hedges_g, n_queries, n_dropped, significant; with
        ``mean_ci``, also mean_ci_low, mean_ci_high (the system's mean); with
        ``risk``, also urisk, trisk, trisk_p, georisk (the system's); with
        a Tukey test, also es_anova."""
        import pandas as pd

        rows = []
        for p in self.pairs:
            m = self.means[p.measure]
            rows.append({
                "system": p.system, "measure": p.measure, "mean": float(m[self.systems.index(p.system)]),
                "vs": p.vs, "vs_mean": float(m[self.systems.index(p.vs)]), "diff": p.diff, "p": p.p,
                "p_adj": p.p_adj, "ci_low": p.ci_low, "ci_high": p.ci_high, "effect": self.effect_of(p),
                "cohen_d": p.cohen_d, "hedges_g": p.hedges_g, "n_queries": p.n_queries,
                "n_dropped": p.n_dropped, "significant": p.significant,
            })
            if self.mean_ci is not None:
                lo, hi = self.mean_intervals[p.measure][self.systems.index(p.system)]
                rows[-1].update(mean_ci_low=float(lo), mean_ci_high=float(hi))
            if self.risk is not None:
                rows[-1].update(urisk=p.urisk, trisk=p.trisk, trisk_p=p.trisk_p,
                                georisk=float(self.georisk[p.measure][self.systems.index(p.system)]))
        extra = ["mean_ci_low", "mean_ci_high"] if self.mean_ci is not None else []
        extra += ["urisk", "trisk", "trisk_p", "georisk"] if self.risk is not None else []
        if self.test in FAMILYWISE:
            for r, p in zip(rows, self.pairs):
                r["es_anova"] = p.es_anova
            extra.append("es_anova")
        return pd.DataFrame(rows, columns=["system", "measure", "mean", "vs", "vs_mean", "diff", "p", "p_adj",
                                           "ci_low", "ci_high", "effect", "cohen_d", "hedges_g", "n_queries",
                                           "n_dropped", "significant"] + extra)

    def to_text(self, digits: int = 4) -> str:
        return formats.to_text(self, digits)

    def to_markdown(self, digits: int = 4) -> str:
        return formats.to_markdown(self, digits)

    def to_latex(self, digits: int = 4, label: Optional[str] = None) -> str:
        return formats.to_latex(self, digits, label)

    def to_html(self, digits: int = 4) -> str:
        return formats.to_html(self, digits)

    def to_json(self, per_query: bool = False, indent: Optional[int] = 2) -> str:
        return formats.to_json(self, per_query, indent)

    def to_csv(self) -> str:
        return formats.to_csv(self)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return (f"Comparison({len(self.systems)} systems, {len(self.measures)} measures, "
                f"{len(self.query_ids)} quer{'y' if len(self.query_ids) == 1 else 'ies'}, test={self.test!r}, correction={self.correction!r})")

    def _repr_html_(self) -> str:
        return self.to_html()


# ---- inputs -------------------------------------------------------------------

def _as_qrels(qrels: Any) -> Any:
    return as_qrels(qrels)


def _as_run(run: Any, name: str, ties: str = "trec", arg: str = "run") -> Any:
    # a Run object is taken as built (its own ties); anything else through the one converter
    return run if isinstance(run, Run) else as_run(run, ties=ties, arg=arg, run_id=name)


def _named_runs(runs: Union[Mapping[str, Any], Sequence[Any]], ties: str = "trec") -> List[Tuple[str, Any]]:
    if isinstance(runs, Mapping):
        items = [(str(k), _as_run(v, str(k), ties, f"runs[{k!r}]")) for k, v in runs.items()]
    elif isinstance(runs, (str, os.PathLike)):
        raise TypeError("runs must be a mapping {name: run} or a list of runs / paths, not one path")
    else:
        items = []
        for i, v in enumerate(runs):
            r = _as_run(v, f"run{i + 1}", ties, f"runs[{i}]")
            items.append((str(getattr(r, "run_id", None) or f"run{i + 1}"), r))
    names = [n for n, _ in items]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"several runs are named {', '.join(map(repr, dup))}; pass a mapping {{name: run}} "
                         "to name them apart")
    if len(items) < 2:
        raise ValueError(f"compare needs at least two runs, got {len(items)}")
    return items


def per_query_matrix(qrels: Any, runs: Union[Mapping[str, Any], Sequence[Any]],
                     measures: Union[str, Sequence[str]], **options: Any
                     ) -> Tuple[List[str], List[str], List[str], Dict[str, np.ndarray], Dict[str, int]]:
    """Evaluate every run on every qrels query (trec_eval -c).  Returns
    (systems, measure keys, query ids, {measure: (n_systems, n_queries)},
    {system: number of qrels queries it did not answer})."""
    q = _as_qrels(qrels)
    items = _named_runs(runs, options.get("ties", "trec"))
    systems = [n for n, _ in items]
    measure_keys: List[str] = []
    query_ids: List[str] = []
    columns: Dict[str, List[np.ndarray]] = {}
    unanswered: Dict[str, int] = {}
    qset = set(getattr(q, "query_ids", []))
    for name, run in items:
        res = evaluate(q, run, measures, per_query=True, complete=True, **options)
        assert isinstance(res, dict)
        if not measure_keys:
            measure_keys = list(res)
            first = next(iter(res.values()))
            assert isinstance(first, dict)
            query_ids = list(first)
            columns = {m: [] for m in measure_keys}
        for m in measure_keys:
            per_q = res[m]
            assert isinstance(per_q, dict)
            columns[m].append(np.fromiter((per_q[qid] for qid in query_ids), dtype=np.float64,
                                          count=len(query_ids)))
        rq = getattr(run, "query_ids", None)
        unanswered[name] = len(qset - set(rq)) if rq is not None and qset else 0
    return systems, measure_keys, query_ids, {m: np.vstack(columns[m]) for m in measure_keys}, unanswered


# ---- the comparison -----------------------------------------------------------

def _check(test: str, correction: str, alpha: float, n_resamples: int, ci: Optional[str], effect: str) -> str:
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}; got {test!r}")
    if correction not in METHODS:
        raise ValueError(f"correction must be one of {', '.join(METHODS)}; got {correction!r}")
    paired.check_alpha(alpha)
    paired.check_resamples(n_resamples, stored=test in ("bootstrap", "tukey_randomized"))
    if effect not in EFFECTS:
        raise ValueError(f"effect must be one of {', '.join(map(repr, EFFECTS))}, got {effect!r}")
    if effect == "es_anova" and test not in FAMILYWISE:
        raise ValueError("effect='es_anova' (the difference over the ANOVA's sqrt(MS_E)) goes with the Tukey "
                         f"tests ({', '.join(FAMILYWISE)}), not test={test!r}")
    if test == "bootstrap":
        ci = ci or "bca"
        if ci not in ("bca", "percentile"):
            raise ValueError(f"ci must be 'bca' or 'percentile' with the bootstrap test, got {ci!r}")
        return ci
    if test in FAMILYWISE:
        return "tukey"
    if ci not in (None, "t"):
        raise ValueError(f"ci={ci!r} needs test='bootstrap' (the other paired tests give the t interval)")
    return "t"


def pairs_of(systems: Sequence[str], baseline: Optional[str]) -> List[Tuple[int, int]]:
    if baseline is None:
        k = len(systems)
        return [(i, j) for i in range(k) for j in range(i + 1, k)]
    if baseline not in systems:
        raise ValueError(f"baseline {baseline!r} is not one of the runs ({', '.join(systems)})")
    b = list(systems).index(baseline)
    return [(i, b) for i in range(len(systems)) if i != b]


def pair_tests(systems: Sequence[str], measures: Sequence[str], scores: Mapping[str, np.ndarray],
                pairs: Sequence[Tuple[int, int]], *, test: str, correction: str, alpha: float,
                n_resamples: int, seed: int, ci: str) -> List[Dict[str, Any]]:
    """Test results for every (measure, pair): dicts of the `Pair` fields."""
    diffs: List[np.ndarray] = []
    meta: List[Tuple[str, int, int, int]] = []
    for m in measures:
        S = scores[m]
        for i, j in pairs:
            d = S[i] - S[j]
            ok = ~np.isnan(d)
            diffs.append(d[ok])
            meta.append((m, i, j, int(d.size - ok.sum())))
    P = len(diffs)
    exact = np.zeros(P, dtype=bool)
    es = np.full(P, np.nan)
    lo = np.full(P, np.nan)
    hi = np.full(P, np.nan)
    if test in ("t", "wilcoxon", "sign", "randomization"):
        p, lo, hi = paired.t_test(diffs, alpha)
        if test == "wilcoxon":
            p = paired.wilcoxon_test(diffs)
        elif test == "sign":
            p = paired.sign_test(diffs)
        elif test == "randomization":
            p, exact = paired.randomization_test(diffs, n_resamples, seed)
    elif test == "bootstrap":
        p, lo, hi = paired.bootstrap_test(diffs, n_resamples, seed, alpha, ci)
    else:
        p = np.full(P, np.nan)
        k = 0
        for mi, m in enumerate(measures):
            S = scores[m]
            ok = ~np.isnan(S).any(axis=0)
            block = np.ascontiguousarray(S[:, ok].T)
            if block.shape[0] >= 2:
                if test in ("tukey", "tukey_oneway"):
                    pm, lm, hm = paired.tukey_hsd(block, alpha, blocked=test == "tukey")
                else:
                    pm, lm, hm = paired.tukey_randomized(block, n_resamples, seed + mi, alpha)
                sd = anova_hsd.standardized_differences(block, blocked=test != "tukey_oneway")
                for t, (i, j) in enumerate(pairs):
                    p[k + t], lo[k + t], hi[k + t] = pm[i, j], lm[i, j], hm[i, j]
                    es[k + t] = sd[i, j]
            for t in range(len(pairs)):
                meta[k + t] = meta[k + t][:3] + (int((~ok).sum()),)
                if block.shape[0] != len(diffs[k + t]):
                    diffs[k + t] = block[:, pairs[t][0]] - block[:, pairs[t][1]]
            k += len(pairs)
    cohen, hedges = paired.effect_sizes(diffs)
    p_adj = np.empty(P)
    for m in measures:
        idx = [t for t in range(P) if meta[t][0] == m]
        p_adj[idx] = p[idx] if test in FAMILYWISE else adjust(p[idx], correction)
    out = []
    for t, (m, i, j, dropped) in enumerate(meta):
        d = diffs[t]
        out.append(dict(measure=m, system=systems[i], vs=systems[j],
                        diff=float(d.mean()) if d.size else float("nan"), p=float(p[t]), p_adj=float(p_adj[t]),
                        ci_low=float(lo[t]), ci_high=float(hi[t]), cohen_d=float(cohen[t]),
                        hedges_g=float(hedges[t]), n_queries=int(d.size), n_dropped=dropped,
                        significant=bool(p_adj[t] < alpha),
                        exact=bool(exact[t]) if test == "randomization" else None,
                        es_anova=float(es[t]) if test in FAMILYWISE else None))
    return out


def compare(qrels: Any, runs: Union[Mapping[str, Any], Sequence[Any]], measures: Union[str, Sequence[str]], *,
            baseline: Optional[str] = None, test: str = "t", correction: str = "holm", alpha: float = 0.05,
            n_resamples: int = 10_000, seed: Optional[int] = None, ci: Optional[str] = None,
            effect: str = "hedges_g", mean_ci: Optional[str] = None, risk: Optional[float] = None,
            relevance_level: int = 1,
            judged_only: bool = False,
            max_docs: Optional[int] = None, n_jobs: Optional[int] = None, ties: str = "trec") -> Comparison:
    """Compare ``runs`` (a mapping ``{name: run}`` of anything
    [`irscore.evaluate`][irscore.evaluate] accepts, or a sequence of runs / paths named by
    their run ids) on ``measures`` with a paired significance test.

    Every run is evaluated on all the qrels queries (a query a run did not
    answer scores 0, as trec_eval -c).  With ``baseline`` every other run is
    compared with it, else every pair.  ``test``: ``t``, ``wilcoxon``,
    ``sign``, ``randomization`` (exact when 2^n <= ``n_resamples``),
    ``bootstrap`` (``ci="bca"`` or ``"percentile"``), ``tukey`` (Tukey's HSD
    with the two-way ANOVA error term, topics as blocks),
    ``tukey_oneway`` (the one-way error term, as ``scipy.stats.tukey_hsd``) or
    ``tukey_randomized`` (Carterette's, permutations within topics).  ``correction`` (``bonferroni``, ``holm``,
    ``bh``, ``none``) adjusts the p-values of each measure's family of
    comparisons; the Tukey tests control the family-wise error themselves and
    ignore it.  ``seed`` makes the resampling tests reproducible (a random
    seed is drawn and recorded when None).  Other options as ``evaluate``.

    Parameters
    ----------
    qrels : Qrels, dict, DataFrame or path
        The judgments (as [`irscore.evaluate`][irscore.evaluate]).
    runs : mapping or sequence
        ``{name: run}`` or runs/paths named by their run ids.
    measures : str or sequence of str
        Measure names.
    baseline : str, optional
        Compare every other run with this one (default: every pair).
    test : str, default 't'
        The paired test (see above; definitions in docs/stats.md).
    correction : {'holm', 'bonferroni', 'bh', 'none'}, default 'holm'
        Multiple-comparison correction per measure.
    alpha : float, default 0.05
        Significance level.
    n_resamples : int, default 10000
        Resamples of the randomization and bootstrap tests.
    seed : int, optional
        Seed of the resampling tests.
    ci : {'bca', 'percentile'}, optional
        Bootstrap interval kind.
    effect : {'hedges_g', 'cohen_d', 'es_anova'}, default 'hedges_g'
        Paired effect size; ``es_anova`` (with the Tukey tests): the mean
        difference over sqrt(MS_E) of the two-way ANOVA without replication
        (one-way for ``tukey_oneway``), as Sakai recommends with Tukey's HSD.
    mean_ci : {'t', 'percentile', 'bca'}, optional
        Add a 1 - alpha confidence interval of each system's mean per measure
        (``Comparison.mean_intervals``, columns ``mean_ci_low``/``mean_ci_high``
        of ``to_pandas``; see `irscore.stats.mean_ci`).  The bootstrap kinds
        use ``n_resamples`` and ``seed``.
    risk : float, optional
        The risk weight alpha >= 0 of risk-sensitive evaluation: adds URisk,
        TRisk and TRisk's p of every comparison (``system`` against ``vs``;
        Dinçer, Macdonald & Ounis 2014) and GeoRisk of every system among all
        (Dinçer et al. 2016; ``Comparison.georisk``).  See `irscore.stats.urisk`.
    relevance_level, judged_only, max_docs, n_jobs, ties
        As [`irscore.evaluate`][irscore.evaluate] (``ties="input"``: equal scores in the
        order of each run's dict, rows or lines).

    Returns
    -------
    Comparison
        Per pair: mean difference, interval, effect, raw and adjusted p,
        significance; ``to_pandas``/``to_markdown``/``to_latex``/``to_html``/
        ``to_json``/``to_csv``.

    Raises
    ------
    ValueError
        Bad options, unknown measures or runs.
    """
    ci = _check(test, correction, alpha, n_resamples, ci, effect)
    check_ties(ties)
    if test in FAMILYWISE:
        correction = "none"
    if mean_ci is not None:
        intervals.check_method(mean_ci)
    if risk is not None:
        risk = risk_mod.check_risk_alpha(risk)
    seed_used = paired.resolve_seed(seed) if test in RESAMPLING or mean_ci in intervals.BOOTSTRAP else None
    systems, keys, qids, scores, unanswered = per_query_matrix(
        qrels, runs, measures, relevance_level=relevance_level, judged_only=judged_only, max_docs=max_docs,
        n_jobs=n_jobs, ties=ties)
    pairs = pairs_of(systems, baseline)
    rows = pair_tests(systems, keys, scores, pairs, test=test, correction=correction, alpha=float(alpha),
                       n_resamples=int(n_resamples), seed=seed_used or 0, ci=ci)
    with np.errstate(invalid="ignore"):
        means = {m: np.array([np.nanmean(r) if np.any(~np.isnan(r)) else np.nan for r in scores[m]])
                 for m in keys}
    mean_iv = {m: intervals.mean_intervals([r[~np.isnan(r)] for r in scores[m]], mean_ci, float(alpha),
                                           int(n_resamples), (seed_used or 0) + mi)
               for mi, m in enumerate(keys)} if mean_ci is not None else {}
    georisk: Dict[str, np.ndarray] = {}
    if risk is not None:
        _add_risk(rows, systems, scores, risk)
        georisk = {m: _georisk(scores[m], risk) for m in keys}
    return Comparison(systems=systems, measures=keys, query_ids=qids, scores=scores, means=means,
                      pairs=[Pair(**r) for r in rows], test=test, correction=correction, alpha=float(alpha),
                      baseline=baseline,
                      n_resamples=int(n_resamples) if test in RESAMPLING or mean_ci in intervals.BOOTSTRAP else None,
                      seed=seed_used, ci=ci, effect=effect, unanswered=unanswered, mean_ci=mean_ci,
                      mean_intervals=mean_iv, risk=risk, georisk=georisk)


def _add_risk(rows: List[Dict[str, Any]], systems: List[str], scores: Mapping[str, np.ndarray],
              alpha: float) -> None:
    diffs = []
    for r in rows:
        S = scores[r["measure"]]
        d = S[systems.index(r["system"])] - S[systems.index(r["vs"])]
        diffs.append(d[~np.isnan(d)])
    u, t, p = risk_mod.trisk_many(diffs, alpha)
    for k, r in enumerate(rows):
        r.update(urisk=float(u[k]), trisk=float(t[k]), trisk_p=float(p[k]))


def _georisk(S: np.ndarray, alpha: float) -> np.ndarray:
    block = S[:, ~np.isnan(S).any(axis=0)].T
    if block.shape[0] == 0 or np.any(block < 0):
        return np.full(S.shape[0], np.nan)      # GeoRisk is defined for values >= 0
    return risk_mod.georisk(block, alpha)
