"""``irscore rs``: Reliability & Sensitivity of a document organization against a gold standard."""
from __future__ import annotations

import argparse
import sys
from typing import Optional, TextIO

from irscore.core.report import format_line

HELP = "Reliability & Sensitivity of document organizations (ranking + clustering + filtering)"

DEFAULT_N = 10
DEFAULT_W_N = 0.8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("gold", metavar="GOLD", help="gold standard organization file")
    parser.add_argument("system", metavar="SYSTEM", help="system organization file")
    parser.add_argument("-q", action="store_true", help="print per-topic values before the 'all' lines")
    parser.add_argument(
        "--n", type=float, default=None, metavar="N",
        help="the first N occurrences carry W of the weight (default %d)" % DEFAULT_N,
    )
    parser.add_argument(
        "--w-n", type=float, default=None, metavar="W", dest="w_n",
        help="weight share of the first N occurrences, in (0, 1) (default %g)" % DEFAULT_W_N,
    )
    parser.add_argument(
        "--uniform", action="store_true",
        help="uniform weights, no long tail (filtering, flat clustering); excludes --n/--w-n",
    )
    parser.add_argument(
        "--foreign", choices=("tail", "absent"), default="tail",
        help="a document listed on one side only: in the other side's tail (default) or all its relations wrong",
    )
    parser.add_argument(
        "--format", choices=("auto", "tsv", "json", "clusters", "labels"), default="auto",
        help="input format of both files (default: auto: .json or 4-column TSV topic level cluster doc)",
    )


def run(args: argparse.Namespace, out: Optional[TextIO] = None) -> int:
    from irscore.organization import RS_MEASURES, read_organization, reliability_sensitivity

    out = out or sys.stdout
    if args.uniform and (args.n is not None or args.w_n is not None):
        raise ValueError("--uniform excludes --n and --w-n")
    n = DEFAULT_N if args.n is None else args.n
    w_n = DEFAULT_W_N if args.w_n is None else args.w_n
    gold = read_organization(args.gold, args.format)
    system = read_organization(args.system, args.format)
    result = reliability_sensitivity(
        gold, system, n=n, w_n=w_n, weights="uniform" if args.uniform else "ranking", foreign=args.foreign
    )
    lines = []
    if args.q:
        for topic, values in result.per_query.items():
            for name in RS_MEASURES:
                lines.append(format_line(name, topic, values[name]))
    for name in RS_MEASURES:
        lines.append(format_line(name, "all", result[name]))
    out.write("\n".join(lines) + "\n")
    return 0
