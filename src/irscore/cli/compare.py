"""``irscore compare``: compare TREC runs with a paired significance test.

Every run is evaluated on all the qrels queries (a query a run did not answer
scores 0, as trec_eval -c); runs are named by their run ids.  Prints a table of
means with significance markers and one line per comparison (or Markdown,
LaTeX, JSON, CSV).
"""
from __future__ import annotations

import argparse
import sys
from typing import Callable, Dict

from irscore.stats.comparison import TESTS, compare
from irscore.stats.corrections import METHODS
from irscore.stats.paired import MAX_RESAMPLES

HELP = "compare runs with paired significance tests (t, Wilcoxon, sign, randomization, bootstrap, Tukey)"
FORMATS = ("text", "markdown", "latex", "html", "json", "csv")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("qrels", help="qrels file (qid iter docno rel), .gz accepted")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run files (at least two), named by their run ids")
    p.add_argument("-m", "--measure", action="append", default=[], metavar="MEASURE",
                   help="measure (map, ndcg_cut_10, P.10, nDCG@10, ...); repeatable; default map")
    p.add_argument("--baseline", default=None, metavar="NAME",
                   help="compare every run with this one (a run id); default: every pair")
    p.add_argument("--test", "-t", default="t", choices=TESTS, help="paired test (default t)")
    p.add_argument("--correction", default="holm", choices=METHODS,
                   help="multiple-comparison correction per measure (default holm)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--resamples", type=int, default=10_000, metavar="N",
                   help="resamples of the randomization / bootstrap tests (default 10000)")
    p.add_argument("--seed", type=int, default=None, metavar="S", help="seed of the resampling tests")
    p.add_argument("--ci", default=None, choices=("bca", "percentile"),
                   help="bootstrap interval (with --test bootstrap; default bca)")
    p.add_argument("--mean-ci", default=None, choices=("t", "percentile", "bca"),
                   help="add a confidence interval of each run's mean: t, or bootstrap percentile / bca "
                        "(--resamples, --seed)")
    p.add_argument("--risk", type=float, default=None, metavar="ALPHA",
                   help="add risk-sensitive evaluation with this risk weight (>= 0): URisk, TRisk of each "
                        "comparison, GeoRisk of each run")
    p.add_argument("--effect", default="hedges_g", choices=("hedges_g", "cohen_d"),
                   help="effect size reported (default hedges_g)")
    p.add_argument("-l", "--relevance-level", type=int, default=1, metavar="LEVEL",
                   help="grades >= LEVEL are relevant (default 1)")
    p.add_argument("--format", "-f", default="text", choices=FORMATS, help="output format (default text)")


def run(args: argparse.Namespace) -> int:
    if len(args.runs) < 2:
        raise ValueError("compare needs at least two run files")
    if not 1 <= args.resamples <= MAX_RESAMPLES:
        raise ValueError(f"--resamples must be in 1 .. {MAX_RESAMPLES:,}, got {args.resamples}")
    c = compare(args.qrels, list(args.runs), args.measure or ["map"], baseline=args.baseline, test=args.test,
                correction=args.correction, alpha=args.alpha, n_resamples=args.resamples, seed=args.seed,
                ci=args.ci, effect=args.effect, mean_ci=args.mean_ci, risk=args.risk,
                relevance_level=args.relevance_level)
    renderers: Dict[str, Callable[[], str]] = {
        "text": c.to_text, "markdown": c.to_markdown, "latex": c.to_latex, "html": c.to_html,
        "json": c.to_json, "csv": c.to_csv}
    out = renderers[args.format]()
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0
