"""``irscore compare``: compare TREC runs with a paired significance test.

Every run is evaluated on all the qrels queries (a query a run did not answer
scores 0, as trec_eval -c; a run that answers none of them is named in a
warning).  Runs are named by ``--names``, else by their run ids, else (when
two share a run id) by their file names, told apart by as many directories as
needed.  Prints a table of means with significance markers and one line per
comparison (or Markdown, LaTeX, JSON, CSV).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable, Dict, List

from irscore.cli.measures import MeasureAction
from irscore.core.io import read_run
from irscore.stats.comparison import TESTS, compare
from irscore.stats.corrections import METHODS
from irscore.stats.paired import MAX_RESAMPLES

HELP = "compare runs with paired significance tests (t, Wilcoxon, sign, randomization, bootstrap, Tukey)"
FORMATS = ("text", "markdown", "latex", "html", "json", "csv")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("qrels", help="qrels file (qid iter docno rel), .gz accepted")
    p.add_argument("runs", nargs="+", metavar="RUN",
                   help="run files (at least two), named by their run ids, or by their file names when two "
                        "share a run id")
    p.add_argument("--names", action="append", default=[], metavar="A,B,...",
                   help="names of the runs, in the order of the RUN files (comma-separated, or repeated)")
    p.add_argument("-m", "--measure", action=MeasureAction, default=[], metavar="MEASURE",
                   help="measure (map, ndcg_cut_10, P.10, nDCG@10, ...); repeatable; default map; "
                        "-m help lists the names")
    p.add_argument("--baseline", default=None, metavar="NAME",
                   help="compare every run with this one (its name, or its file as given); default: every pair")
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
    p.add_argument("--effect", default="hedges_g", choices=("hedges_g", "cohen_d", "es_anova"),
                   help="effect size reported (default hedges_g; es_anova: difference / sqrt(MS_E) of the "
                        "ANOVA, with the Tukey tests)")
    p.add_argument("--ties", default="trec", choices=("trec", "input"),
                   help="order of equal scores: trec (trec_eval's: document id descending, the default) "
                        "or input (the order of each run file's lines)")
    p.add_argument("-l", "--relevance-level", type=int, default=1, metavar="LEVEL",
                   help="grades >= LEVEL are relevant (default 1)")
    p.add_argument("--format", "-f", default="text", choices=FORMATS, help="output format (default text)")


def run(args: argparse.Namespace) -> int:
    if len(args.runs) < 2:
        raise ValueError("compare needs at least two run files")
    if not 1 <= args.resamples <= MAX_RESAMPLES:
        raise ValueError(f"--resamples must be in 1 .. {MAX_RESAMPLES:,}, got {args.resamples}")
    read = [read_run(path, ties=args.ties) for path in args.runs]
    names = run_names(args.runs, args.names, [getattr(r, "run_id", None) for r in read])
    runs = dict(zip(names, read))
    baseline = args.baseline
    if baseline is not None and baseline not in runs and baseline in args.runs:
        baseline = names[args.runs.index(baseline)]      # the run's file, as given
    c = compare(args.qrels, runs, args.measure or ["map"], baseline=baseline, test=args.test,
                correction=args.correction, alpha=args.alpha, n_resamples=args.resamples, seed=args.seed,
                ci=args.ci, effect=args.effect, mean_ci=args.mean_ci, risk=args.risk,
                relevance_level=args.relevance_level, ties=args.ties)
    renderers: Dict[str, Callable[[], str]] = {
        "text": c.to_text, "markdown": c.to_markdown, "latex": c.to_latex, "html": c.to_html,
        "json": c.to_json, "csv": c.to_csv}
    for name, path in zip(names, args.runs):
        if c.query_ids and c.unanswered.get(name) == len(c.query_ids):
            print(f"irscore compare: warning: {path} answers no query of the qrels (none of its query ids is "
                  f"judged): it scores 0 on all {len(c.query_ids)} queries", file=sys.stderr)
    out = renderers[args.format]()
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0


def run_names(paths: List[str], given: List[str], run_ids: List[Any]) -> List[str]:
    """The name of each run file: ``given`` (``--names``, comma-separated or
    repeated), else its run id, else (when run ids repeat) its file name, with as
    many of its directories as tell equal file names apart."""
    if given:
        names = [n.strip() for g in given for n in g.split(",")]
        if len(names) != len(paths):
            raise ValueError(f"--names gives {len(names)} name{'s' if len(names) != 1 else ''} for "
                             f"{len(paths)} run files")
        if any(not n for n in names):
            raise ValueError(f"--names: an empty name in {','.join(given)!r}")
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"--names: {', '.join(map(repr, dup))} given twice")
        return names
    if all(run_ids) and len(set(run_ids)) == len(run_ids):
        return [str(i) for i in run_ids]
    same = sorted({p for p in paths if paths.count(p) > 1})
    if same:
        raise ValueError(f"run file {same[0]} given twice; name the runs with --names")
    parts = [os.path.normpath(os.path.abspath(p)).split(os.sep) for p in paths]
    names = []
    for i, pi in enumerate(parts):
        depth = 1
        while any(pj[-depth:] == pi[-depth:] for j, pj in enumerate(parts) if j != i) and depth < len(pi):
            depth += 1
        names.append("/".join(pi[-depth:]))
    return names
