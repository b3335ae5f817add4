"""``irscore xml QRELS RUN [-q] [-m MEASURE]...`` — XML / focused retrieval measures.

QRELS is a passage qrels file (``topic Q0 doc relchars doclen [bep off:len ...]``)
or an element TSV (``topic doc start end exh spe``); RUN a FOL run
(``topic Q0 doc rank rsv runid offset length``).  Output is trec_eval's
``name<TAB>qid<TAB>value``: per topic with ``-q``, then the ``all`` lines
(mean over the topics that count for each measure).
"""
from __future__ import annotations

import argparse
import io
import sys
from typing import Any, List

from irscore.core.aggregate import running_mean
from irscore.core.files import peek

HELP = "XML / focused retrieval measures (iP/MAiP, XCG, HiXEval, inex_eval, gP, ...) of a FOL run"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qrels", metavar="QRELS", help="passage qrels or element TSV assessments")
    parser.add_argument("run", metavar="RUN", help="FOL run (topic Q0 doc rank rsv runid offset length) or an "
                        "INEX 2008+ XML submission (<inex-submission> with <fol>/<bep> results; recognised by '<')")
    parser.add_argument("-q", action="store_true", help="print per-topic values too")
    parser.add_argument("-c", action="store_true", help="average over every qrels topic (missing run topics score 0)")
    parser.add_argument("-m", dest="measures", action="append", default=None, metavar="MEASURE",
                        help="measure name, repeatable (e.g. iP[0.01] MAiP nxCG@10 MAep hixF@10); "
                             "comma-separated lists accepted")
    parser.add_argument("--qrels-format", choices=["auto", "passages", "elements"], default="auto",
                        help="QRELS is passage qrels (topic Q0 doc relchars doclen ...) or an element TSV (topic "
                             "doc start end exh spe); auto (default): Q0 in the second column means passages, "
                             "six fields elements")
    parser.add_argument("--alpha", type=float, default=1.0, help="overlap weight for XCG and HiXEval (1 Focused, 0 Thorough)")
    parser.add_argument("--quantisation", default="auto",
                        help="strict | generalised | inex2005 | inex2006 | auto (default)")
    parser.add_argument("--ideal-overlap", choices=["ancestor", "descendant"], default="ancestor",
                        help="XCG ideal set: of the best elements of the relevant paths, drop those lying under "
                             "another kept one (ancestor, default) or above one (descendant)")
    parser.add_argument("--no-normalise", action="store_true", help="do not cap XCG gain at the ideal gain")
    parser.add_argument("--seen", choices=["overlap", "ancestor"], default="ancestor",
                        help="XCG: seen = retrieved itself or an ancestor before (default, docs/xml.md) or overlap 1")
    parser.add_argument("--maep-denominator", choices=["ideal", "gain_ranks"], default="ideal",
                        help="MAep: divide the sum of ep at the ranks where gain was collected by the size of the "
                             "ideal set (ideal, default) or by the number of those ranks (gain_ranks)")
    parser.add_argument("--bucketing", choices=["exact", "inex_eval"], default="exact",
                        help="iP[x]: recall R >= x tested exactly, in integers (exact, default), or the level "
                             "floor(points * R) in floating point, as the INEX tool (inex_eval)")
    parser.add_argument("--run-overlap", choices=["novel", "count"], default="novel",
                        help="iP/AiP: text retrieved again counts once (novel, default) or its size is counted "
                             "every time, relevant text still once (count)")
    parser.add_argument("--non-overlapping", action="store_true",
                        help="declare the run non-overlapping (overlapping spans are an error)")
    parser.add_argument("--exh-max", type=float, default=1.0, help="scale of exh in an element TSV (2 for INEX 2005)")
    parser.add_argument("--trel", choices=["highlighted", "thorough"], default="highlighted",
                        help="HiXEval Trel: highlighted characters (Focused) or rsize over all elements (Thorough)")
    parser.add_argument("--ric-beta", type=float, default=0.25, help="F-beta of Relevant-in-Context article scores")
    parser.add_argument("--bep-distance", type=int, default=500, help="Best-in-Context distance n (characters)")
    parser.add_argument("--tolerance", type=int, default=500, help="T2I: consecutive non-relevant characters tolerated")
    parser.add_argument("--collection-size", type=int, default=None,
                        help="inex_eval: units in the collection (unretrieved ones form the final tie group)")
    parser.add_argument("--p-ancestor", type=float, default=0.0,
                        help="GR/EPRUM: P(result ~> an ideal element containing it)")
    parser.add_argument("--p-descendant", type=float, default=0.0,
                        help="GR/EPRUM: P(result ~> an ideal element inside it)")
    parser.add_argument("--p-sibling", type=float, default=0.0, help="GR/EPRUM: P(result ~> other ideal of its document)")
    parser.add_argument("--compat", choices=["inex2008", "reprec"], default=None,
                        help="reproduce an official tool: inex2008 = inex_eval v1.0 (INEX 2008: iP, MAiP, gP, "
                             "MAgP; files read as the tool reads them), reprec = RePrec 0.32's Precall "
                             "(inex_eval, INEX 2002-2004); with inex2008 the run is ranked in file order and "
                             "--order, --bucketing, --run-overlap do not apply")
    parser.add_argument("--order", choices=["trec", "rank", "score", "input"], default="trec",
                        help="how the run is ordered (default trec: rsv descending, ties by doc id "
                             "descending, rank column ignored)")


def _detect(path: str) -> str:
    # peek: a stream ("-", a pipe) is kept for the read that follows
    with io.StringIO(peek(path, 1 << 16, "qrels").decode("utf-8", "replace")) as fh:
        for line in fh:
            toks = line.split("#", 1)[0].split()
            if not toks:
                continue
            if len(toks) >= 5 and toks[1] == "Q0":
                return "passages"
            if len(toks) == 6:
                return "elements"
            raise ValueError(f"{path}: cannot tell the qrels format from its first line; use --qrels-format")
    return "passages"


def run(args: Any) -> int:
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = _run(args)
    seen = set()
    for w in caught:
        msg = str(w.message)
        if msg not in seen:
            seen.add(msg)
            print(f"irscore xml: warning: {msg}", file=sys.stderr)
    return code


def _run(args: Any) -> int:
    from irscore import xml as X
    from irscore.core.report import format_line
    from irscore.xml.align import topic_key

    fmt = args.qrels_format
    if fmt == "auto":
        fmt = _detect(args.qrels)
    tool = getattr(args, "compat", None)
    if tool == "inex2008" and fmt != "passages":
        raise ValueError("--compat inex2008 needs passage qrels (topic Q0 doc relchars doclen [bep off:len ...])")
    if fmt == "passages":
        qrels = X.read_passage_qrels(args.qrels, compat="inex2008" if tool == "inex2008" else None)
    else:
        qrels = X.read_element_tsv(args.qrels, exh_max=args.exh_max)
    from irscore.xml.submission import looks_like_xml

    if looks_like_xml(args.run):
        run_ = X.read_inex_submission(args.run)
    elif tool == "inex2008":
        run_ = X.read_fol_run(args.run, qrels, compat="inex2008")
    else:
        run_ = X.read_fol_run(args.run, qrels, allow_overlap=not args.non_overlapping, order=args.order)
    names: List[str] = []
    for m in args.measures or []:
        names.extend(x for x in m.split(",") if x)
    if not names and tool == "inex2008":
        names = ["iP[0.00]", "iP[0.01]", "iP[0.05]", "iP[0.10]", "MAiP"]
    if not names:
        names = list(X.DEFAULT_MEASURES) if qrels.has_passages else [
            "nxCG@5", "nxCG@10", "nxCG@25", "nxCG@50", "MAep", "hixP@10", "hixR@10", "hixF@10"]
    fams = {X.measure_family(n) for n in names}
    options: dict = {}
    if fams & {"precall", "inex_eval"} and args.collection_size is not None:
        options["collection_size"] = args.collection_size
    if "gp" in fams:
        options["ric_beta"] = args.ric_beta
        options["bep_distance"] = args.bep_distance
    if "t2i" in fams:
        options["tolerance"] = args.tolerance
    if fams & {"gr_model", "eprum"}:
        options["navigation"] = X.default_navigation(args.p_ancestor, args.p_descendant, args.p_sibling)
    if tool == "inex2008":
        gp = {k: options[k] for k in ("ric_beta", "bep_distance") if k in options}
        res = X.evaluate(qrels, run_, names, per_query=True, complete=args.c, compat=tool, **gp)
        means = X.evaluate(qrels, run_, names, complete=args.c, compat=tool, **gp)
    else:
        res = X.evaluate(qrels, run_, names, per_query=True, alpha=args.alpha, quantisation=args.quantisation,
                         ideal_overlap=args.ideal_overlap, normalise=not args.no_normalise,
                         maep_denominator=args.maep_denominator, bucketing=args.bucketing,
                         run_overlap=args.run_overlap, seen=args.seen, trel=args.trel, complete=args.c,
                         compat=tool, **options)
        means = {n: (running_mean(list(res[n].values())) if res[n] else 0.0) for n in names}
    out = sys.stdout
    if args.q:
        topics = sorted({t for n in names for t in res[n]}, key=topic_key)
        for t in topics:
            for n in names:
                if t in res[n]:
                    out.write(format_line(n, t, res[n][t]) + "\n")
    out.write(format_line("runid", "all", run_.run_id) + "\n")
    for n in names:
        out.write(format_line(n, "all", means[n]) + "\n")
    out.write(format_line("num_q", "all", len({t for n in names for t in res[n]}), integer=True) + "\n")
    return 0
