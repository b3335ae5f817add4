"""Renderings of a [`Comparison`][irscore.stats.comparison.Comparison]: a terminal
table, Markdown, LaTeX (booktabs), HTML, JSON and CSV.

Every rendering states the test, the correction, alpha and the query set.  The
table of means marks significant differences as IR papers do: the highest mean
of each measure in bold; against a baseline, a dagger (†) after a mean
significantly better than the baseline's and a double dagger (‡) after one
significantly worse; without a baseline every system gets a letter (a, b, ...)
and a mean carries the letters of the systems it is significantly better than.
"""
from __future__ import annotations

import csv
import html
import io
import json
import math
import string
from typing import TYPE_CHECKING, Any, Dict, List, Optional

import numpy as np

if TYPE_CHECKING:  # annotations only: comparison imports this module
    from irscore.stats.comparison import Comparison, Pair

TEST_NAMES = {
    "t": "paired Student's t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "randomization": "paired randomization test",
    "bootstrap": "paired bootstrap test",
    "tukey": "Tukey's HSD with the two-way ANOVA error term (topics as blocks)",
    "tukey_oneway": "Tukey's HSD with the one-way ANOVA error term (topics not blocked)",
    "tukey_randomized": "randomised Tukey HSD (scores permuted within topics)",
}
CORRECTION_NAMES = {"bonferroni": "Bonferroni", "holm": "Holm", "bh": "Benjamini-Hochberg", "none": "no"}

COLUMNS = ["system", "measure", "mean", "vs", "vs_mean", "diff", "p", "p_adj", "ci_low", "ci_high", "effect",
           "cohen_d", "hedges_g", "n_queries", "n_dropped", "significant"]
_LABELS = string.ascii_lowercase + string.ascii_uppercase


def labels(c: Comparison) -> Dict[str, str]:
    """Letter of each system (a, b, ..., z, A, ..., then a1, b1, ...)."""
    out = {}
    for i, s in enumerate(c.systems):
        k, r = divmod(i, len(_LABELS))
        out[s] = _LABELS[r] + (str(k) if k else "")
    return out


def markers(c: Comparison, measure: str) -> Dict[str, List[str]]:
    """Per system, the markers of its significant differences on ``measure``."""
    lab = labels(c)
    out: Dict[str, List[str]] = {s: [] for s in c.systems}
    for p in c.pairs:
        if p.measure != measure or not p.significant or not p.diff == p.diff:
            continue
        if c.baseline is not None:
            out[p.system].append("†" if p.diff > 0 else "‡")
        elif p.diff > 0:
            out[p.system].append(lab[p.vs])
        elif p.diff < 0:
            out[p.vs].append(lab[p.system])
    if c.baseline is None:
        rank = {v: i for i, v in enumerate(lab.values())}
        for s in out:
            out[s].sort(key=rank.__getitem__)
    return out


def _best(c: Comparison, measure: str) -> np.ndarray:
    m = c.means[measure]
    if np.all(np.isnan(m)):
        return np.zeros(m.shape, dtype=bool)
    return m == np.nanmax(m)


def description(c: Comparison) -> str:
    test = TEST_NAMES[c.test]
    if c.test == "randomization":
        test += f" ({c.n_resamples:,} sign flips, exact when 2^n <= {c.n_resamples:,}; seed {c.seed})"
    elif c.test in ("bootstrap", "tukey_randomized"):
        test += f" ({c.n_resamples:,} resamples; seed {c.seed})"
    if c.test in ("tukey", "tukey_oneway", "tukey_randomized"):
        corr = "family-wise error controlled by the test"
    else:
        corr = f"{CORRECTION_NAMES[c.correction]} correction per measure" if c.correction != "none" \
            else "no multiple-comparison correction"
    ci = {"t": "t", "bca": "bootstrap BCa", "percentile": "bootstrap percentile",
          "tukey": "simultaneous Tukey"}[c.ci]
    conf = 100 * (1 - c.alpha)
    missing = sum(1 for v in c.unanswered.values() if v)
    text = (f"{test}, {corr}, alpha = {c.alpha:g}; {conf:g}% {ci} intervals; "
            f"{len(c.query_ids)} quer{'y' if len(c.query_ids) == 1 else 'ies'} (every qrels query; a query a run did not answer scores 0, as "
            f"trec_eval -c")
    if missing:
        text += f"; {missing} run(s) left queries unanswered"
    dropped = sum(1 for p in c.pairs if p.n_dropped)
    if dropped:
        text += f"; undefined per-query values dropped pairwise in {dropped} comparison(s)"
    text += ")."
    if c.mean_ci is not None:
        kind = {"t": "Student's t", "percentile": "bootstrap percentile", "bca": "bootstrap BCa"}[c.mean_ci]
        text += f" Means with {conf:g}% {kind} intervals"
        text += f" ({c.n_resamples:,} resamples; seed {c.seed})." if c.mean_ci != "t" else "."
    return text


def _fmt(x: float, digits: int) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    return f"{x:.{digits}f}"


def _fmt_p(x: float) -> str:
    if x != x:
        return "nan"
    return f"{x:.4f}" if x >= 1e-4 else f"{x:.1e}"


def _legend(c: Comparison) -> str:
    if c.baseline is not None:
        return f"† / ‡: significantly better / worse than the baseline {c.baseline}"
    return "letters: significantly better than the systems with those letters"


# ---- plain text and Markdown ----------------------------------------------------

def _grid(header: List[str], rows: List[List[str]], markdown: bool, right: Optional[List[bool]] = None) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    right = right or [False] + [True] * (len(header) - 1)

    def line(cells: List[str]) -> str:
        parts = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)]
        return ("| " + " | ".join(parts) + " |") if markdown else "  ".join(parts).rstrip()

    out = [line(header)]
    if markdown:
        out.append("|" + "|".join(("-" * (w + 1) + ":") if r else (":" + "-" * (w + 1))
                                  for w, r in zip(widths, right)) + "|")
    else:
        out.append("  ".join("-" * w for w in widths))
    out += [line(r) for r in rows]
    return "\n".join(out)


def _means_rows(c: Comparison, digits: int, bold: str = "") -> List[List[str]]:
    lab = labels(c)
    marks = {m: markers(c, m) for m in c.measures}
    best = {m: _best(c, m) for m in c.measures}
    rows = []
    for i, s in enumerate(c.systems):
        name = s + (" (baseline)" if s == c.baseline else "")
        row = [name] if c.baseline is not None else [f"{lab[s]}  {s}"]
        for m in c.measures:
            v = _fmt(float(c.means[m][i]), digits)
            if bold and best[m][i]:
                v = f"{bold}{v}{bold}"
            mk = "".join(marks[m][s])
            row.append(v + _mean_interval(c, m, i, digits) + (" " + mk if mk else ""))
        rows.append(row)
    return rows


def _mean_interval(c: Comparison, measure: str, i: int, digits: int) -> str:
    if c.mean_ci is None:
        return ""
    lo, hi = c.mean_intervals[measure][i]
    return f" [{_fmt(float(lo), digits)}, {_fmt(float(hi), digits)}]"


def _pairs_rows(c: Comparison, digits: int) -> List[List[str]]:
    rows = []
    for p in c.pairs:
        ci = f"[{_fmt(p.ci_low, digits)}, {_fmt(p.ci_high, digits)}]"
        rows.append([p.measure, p.system, p.vs, f"{p.diff:+.{digits}f}" if p.diff == p.diff else "nan", ci,
                     _fmt_p(p.p), _fmt_p(p.p_adj), _fmt(c.effect_of(p), 2),
                     str(p.n_queries) + (f" (-{p.n_dropped})" if p.n_dropped else ""),
                     "yes" if p.significant else "no"])
    return rows


_PAIR_HEADER = ["measure", "system", "vs", "diff", "CI", "p", "p_adj", "effect", "queries", "significant"]


def _effect_name(c: Comparison) -> str:
    if c.effect == "es_anova":
        design = "one-way" if c.test == "tukey_oneway" else "two-way (topics as blocks)"
        return f"difference / sqrt(MS_E) of the {design} ANOVA"
    return "Hedges' g" if c.effect == "hedges_g" else "Cohen's d"


def _risk_parts(c: Comparison, digits: int, markdown: bool) -> List[str]:
    """With ``risk``: URisk, TRisk and its p per comparison, GeoRisk per system."""
    if c.risk is None:
        return []
    rows = [[p.measure, p.system, p.vs, _fmt(_f(p.urisk), digits), _fmt(_f(p.trisk), 2), _fmt_p(_f(p.trisk_p))]
            for p in c.pairs]
    geo = [[s] + [_fmt(float(c.georisk[m][i]), digits) for m in c.measures] for i, s in enumerate(c.systems)]
    note = (f"risk-sensitive evaluation, alpha = {c.risk:g}: URisk and TRisk of system against vs "
            "(TRisk a t statistic, p two-sided; Dincer, Macdonald & Ounis 2014); GeoRisk of each system "
            "among all (Dincer et al. 2016)")
    if markdown:
        return ["", _grid(["measure", "system", "vs", "URisk", "TRisk", "p(TRisk)"], rows, True,
                          [False] * 3 + [True] * 3), "", _grid(["GeoRisk"] + c.measures, geo, True), "",
                f"*{note}.*"]
    return ["", _grid(["measure", "system", "vs", "URisk", "TRisk", "p(TRisk)"], rows, False,
                      [False] * 3 + [True] * 3), "", _grid(["GeoRisk"] + c.measures, geo, False), "  " + note]


def _f(x: Optional[float]) -> float:
    return math.nan if x is None else float(x)


def to_text(c: Comparison, digits: int = 4) -> str:
    head = ["system"] + c.measures
    parts = [description(c), "", _grid(head, _means_rows(c, digits), False), "  " + _legend(c), "",
             _grid(_PAIR_HEADER, _pairs_rows(c, digits), False, [False] * 3 + [True] * 7),
             f"  effect: {_effect_name(c)}"] + _risk_parts(c, digits, False)
    return "\n".join(parts) + "\n"


def _md_cells(rows: List[List[str]]) -> List[List[str]]:
    """Table cells with ``|`` escaped (a system or measure name may hold one)."""
    return [[x.replace("|", "\\|") for x in r] for r in rows]


def to_markdown(c: Comparison, digits: int = 4) -> str:
    head = ["system"] + c.measures
    parts = [_grid(_md_cells([head])[0], _md_cells(_means_rows(c, digits, bold="**")), True), "",
             f"*{description(c)} Best mean in bold; {_legend(c)}.*", "",
             _grid(_PAIR_HEADER, _md_cells(_pairs_rows(c, digits)), True, [False] * 3 + [True] * 7), "",
             f"*effect: {_effect_name(c)}.*"] + _risk_parts(c, digits, True)
    return "\n".join(parts) + "\n"


# ---- LaTeX ------------------------------------------------------------------------

_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def tex_escape(s: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in s)


def to_latex(c: Comparison, digits: int = 4, label: Optional[str] = None) -> str:
    lab = labels(c)
    marks = {m: markers(c, m) for m in c.measures}
    best = {m: _best(c, m) for m in c.measures}
    tex_mark = {"†": r"\dagger", "‡": r"\ddagger"}
    lines = [r"\begin{table}[t]", r"\centering"]
    desc = tex_escape(description(c).replace("2^n <= ", "\x00")).replace("\x00", r"$2^n \le$ ")
    if c.baseline is not None:
        legend = (r"$^{\dagger}$/$^{\ddagger}$: significantly better/worse than the baseline "
                  + tex_escape(c.baseline))
    else:
        legend = "superscript letters: significantly better than the systems with those letters"
    lines.append(r"\caption{Mean " + ", ".join(tex_escape(m) for m in c.measures) + ". "
                 + (desc[:1].upper() + desc[1:]).replace("alpha", r"$\alpha$") + " Best value per measure in bold; " + legend + ".}")
    if label:
        lines.append(r"\label{" + label + "}")
    first = "l" if c.baseline is not None else "ll"
    lines.append(r"\begin{tabular}{" + first + "r" * len(c.measures) + "}")
    lines.append(r"\toprule")
    lead = "System" if c.baseline is not None else " & System"
    lines.append(lead + " & " + " & ".join(tex_escape(m) for m in c.measures) + r" \\")
    lines.append(r"\midrule")
    for i, s in enumerate(c.systems):
        cells = []
        for m in c.measures:
            v = _fmt(float(c.means[m][i]), digits)
            if best[m][i]:
                v = r"\textbf{" + v + "}"
            mk = marks[m][s]
            if mk:
                sup = "".join(tex_mark.get(x, r"\mathrm{" + x + "}") for x in mk)
                v += "$^{" + sup + "}$"
            cells.append(v)
        name = tex_escape(s)
        lead = name if c.baseline is not None else f"{lab[s]} & {name}"
        lines.append(lead + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


# ---- HTML ---------------------------------------------------------------------------

def to_html(c: Comparison, digits: int = 4) -> str:
    e = html.escape
    marks = {m: markers(c, m) for m in c.measures}
    best = {m: _best(c, m) for m in c.measures}
    lab = labels(c)
    out = ['<table class="irscore-comparison">',
           f"<caption>{e(description(c))} Best mean in bold; {e(_legend(c))}.</caption>",
           "<thead><tr><th>system</th>" + "".join(f"<th>{e(m)}</th>" for m in c.measures) + "</tr></thead>",
           "<tbody>"]
    for i, s in enumerate(c.systems):
        name = e(s) if c.baseline is not None else f"{lab[s]}&nbsp;{e(s)}"
        if s == c.baseline:
            name += " (baseline)"
        cells = []
        for m in c.measures:
            v = e(_fmt(float(c.means[m][i]), digits))
            if best[m][i]:
                v = f"<b>{v}</b>"
            v += e(_mean_interval(c, m, i, digits))
            if marks[m][s]:
                v += "<sup>" + e("".join(marks[m][s])) + "</sup>"
            cells.append(f"<td>{v}</td>")
        out.append(f"<tr><th>{name}</th>" + "".join(cells) + "</tr>")
    out += ["</tbody>", "</table>", '<table class="irscore-pairs">',
            "<thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in _PAIR_HEADER) + "</tr></thead>", "<tbody>"]
    for r in _pairs_rows(c, digits):
        out.append("<tr>" + "".join(f"<td>{e(x)}</td>" for x in r) + "</tr>")
    out += ["</tbody>", "</table>"]
    return "\n".join(out) + "\n"


# ---- JSON and CSV -------------------------------------------------------------------

def _num(x: Any) -> Any:
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (float, np.floating)):
        return float(x) if math.isfinite(float(x)) else None     # JSON has no NaN nor Infinity
    if isinstance(x, (int, np.integer)):
        return int(x)
    return x


def pair_record(c: Comparison, p: Pair) -> Dict[str, Any]:
    m = c.means[p.measure]
    rec = {"system": p.system, "measure": p.measure, "mean": m[c.systems.index(p.system)], "vs": p.vs,
           "vs_mean": m[c.systems.index(p.vs)], "diff": p.diff, "p": p.p, "p_adj": p.p_adj,
           "ci_low": p.ci_low, "ci_high": p.ci_high, "effect": c.effect_of(p), "cohen_d": p.cohen_d,
           "hedges_g": p.hedges_g, "n_queries": p.n_queries, "n_dropped": p.n_dropped,
           "significant": p.significant}
    if c.risk is not None:
        rec.update(urisk=p.urisk, trisk=p.trisk, trisk_p=p.trisk_p,
                   georisk=c.georisk[p.measure][c.systems.index(p.system)])
    if p.es_anova is not None:
        rec["es_anova"] = p.es_anova
    return {k: _num(v) for k, v in rec.items()}


def to_json(c: Comparison, per_query: bool = False, indent: Optional[int] = 2) -> str:
    doc: Dict[str, Any] = {
        "test": c.test, "correction": c.correction, "alpha": c.alpha, "n_resamples": c.n_resamples,
        "seed": c.seed, "ci": c.ci, "effect": c.effect, "baseline": c.baseline,
        "description": description(c),
        "queries": {"n_queries": len(c.query_ids), "complete": True,
                    "note": "every qrels query; a query a run did not answer scores 0 (trec_eval -c)",
                    "unanswered": c.unanswered},
        "systems": c.systems, "measures": c.measures,
        "means": {m: {s: _num(c.means[m][i]) for i, s in enumerate(c.systems)} for m in c.measures},
        "comparisons": [pair_record(c, p) for p in c.pairs],
    }
    if c.mean_ci is not None:
        doc["mean_ci"] = {"method": c.mean_ci, "intervals": {
            m: {s: [_num(v) for v in c.mean_intervals[m][i]] for i, s in enumerate(c.systems)} for m in c.measures}}
    if c.risk is not None:
        doc["risk"] = {"alpha": c.risk, "georisk": {
            m: {s: _num(c.georisk[m][i]) for i, s in enumerate(c.systems)} for m in c.measures}}
    if per_query:
        doc["query_ids"] = c.query_ids
        doc["per_query"] = {m: {s: [_num(v) for v in c.scores[m][i]] for i, s in enumerate(c.systems)}
                            for m in c.measures}
    return json.dumps(doc, indent=indent, ensure_ascii=False)


def to_csv(c: Comparison) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    extra = ["mean_ci_low", "mean_ci_high"] if c.mean_ci is not None else []
    extra += ["urisk", "trisk", "trisk_p", "georisk"] if c.risk is not None else []
    extra += ["es_anova"] if c.test in ("tukey", "tukey_oneway", "tukey_randomized") else []
    w.writerow(COLUMNS + extra)
    for p in c.pairs:
        rec = pair_record(c, p)
        if c.mean_ci is not None:
            lo, hi = c.mean_intervals[p.measure][c.systems.index(p.system)]
            rec.update(mean_ci_low=_num(lo), mean_ci_high=_num(hi))
        w.writerow(["" if rec[k] is None else rec[k] for k in COLUMNS + extra])
    return buf.getvalue()
