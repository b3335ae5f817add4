"""``irscore eval``: trec_eval 10 compatible command line.

Same options, measure names, measure sets and output format as trec_eval.
One deliberate difference: a query in the qrels but not in the run is skipped
with a warning on stderr (trec_eval exits with an error) unless ``-c`` asks
for it to count as a query with an empty ranking.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from typing import Dict, List, Tuple

import numpy as np

from irscore.classic import evaluate_jg, run_plan
from irscore.cli.measures import MeasureAction
from irscore.cli.output import FORMATS, Writer
from irscore.core.aggregate import running_sum
from irscore.core.data import Qrels
from irscore.core.io import read_qrels, read_run
from irscore.core.measures import FAMILIES, MEASURE_SETS, ORDER, Measure, expand_spec, parse_measure
from irscore.core.names import ranx_spelling
from irscore.core.zscores import read_zscores, standardize

HELP = "evaluate a TREC run against qrels (trec_eval 10 compatible)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-q", action="store_true", help="print per-query values as well as the summary")
    p.add_argument("-c", action="store_true",
                   help="average over every qrels query (a query missing from the run scores 0)")
    p.add_argument("-J", action="store_true", help="evaluate on judged documents only")
    p.add_argument("--ties", default="trec", choices=("trec", "input"),
                   help="order of equal scores: trec (trec_eval's: document id descending, the default) "
                        "or input (the order of the run file's lines)")
    p.add_argument("-n", action="store_true", help="no summary lines (per-query only)")
    p.add_argument("-l", type=int, default=1, metavar="LEVEL",
                   help="relevance level: grades >= LEVEL are relevant (default 1)")
    p.add_argument("-M", type=int, default=None, metavar="MAXDOCS",
                   help="evaluate only the top MAXDOCS documents of each query")
    p.add_argument("-N", type=float, default=0.0, metavar="NUM_DOCS",
                   help="number of documents in the collection (for utility)")
    p.add_argument("-m", action=MeasureAction, default=[], metavar="MEASURE",
                   help="measure, set (official, all_trec, set; default official) or trec_eval measure with "
                        "parameters (P.5,10  ndcg.1=3,2=9  iprec_at_recall..10,.50), or an ir_measures-style "
                        "name (nDCG@10  P(rel=2)@5  nDCG(gain=exp)@10  AP  RR@10); repeatable; "
                        "-m help lists the names (as irscore measures does)")
    p.add_argument("--intents", action="store_true",
                   help="QRELS holds diversity judgments (qid intent docno rel, ndeval's format): the "
                        "intent-aware measures (alpha_nDCG@k, ERR_IA@k, NRBP, ...) become available; "
                        "the other measures see each document's largest grade")
    p.add_argument("-Z", default=None, metavar="ZSCORE_FILE",
                   help="standardise per-query values with the (qid measure mean stddev) lines of this "
                        "file; output names get a Z prefix")
    p.add_argument("-R", default="qrels", choices=["qrels", "qrels_jg", "prefs", "qrels_prefs"], metavar="FORMAT",
                   help="format of the judgments file: qrels (default), qrels_jg (qid jg docno rel: "
                        "judgment groups, for the measures map_avgjg, P_avgjg, Rprec_mult_avgjg), prefs "
                        "(qid jg jsg docno rel_level: preference judgments, for the prefs_* measures) or "
                        "qrels_prefs (a qrels file read as preferences, for the prefs_* measures)")
    p.add_argument("--format", default="trec", choices=FORMATS,
                   help="output: trec (trec_eval's lines, the default), csv (run_id,measure,query_id,value "
                        "rows) or json ({measure: {query_id: value}}; 'all' for the summary)")
    p.add_argument("qrels", help="qrels file (qid iter docno rel), .gz accepted")
    p.add_argument("run", help="run file (qid Q0 docno rank score run_id), .gz accepted; - for standard input")


def requested(specs: List[str]) -> List[Tuple[str, Measure]]:
    """Outputs for trec_eval -m arguments, in trec_eval's printing order."""
    if not specs:
        specs = ["official"]
    params: Dict[str, str] = {}
    marked: set = set()
    others: List[Tuple[str, Measure]] = []
    for spec in specs:
        fam, dot, par = spec.partition(".")
        if (fam in MEASURE_SETS or fam in FAMILIES) and ranx_spelling(spec) is None:     # not ranx's rbp.95
            if dot and fam not in params:
                if par == "":
                    raise ValueError(f"improper measure in parameter '{fam}'")
                params[fam] = spec
            marked.update(MEASURE_SETS.get(fam, [fam]))
        elif spec not in [k for k, _ in others]:
            # ir_measures-style names and other families (Rnorm(N=...), CRP_loss, ...)
            others.append((spec, parse_measure(spec)))
    items: List[Tuple[str, Measure]] = []
    for fam in sorted(marked, key=ORDER.__getitem__):
        items.extend(expand_spec(params.get(fam, fam)))
    return items + others


JG_ORDER = ["runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"]


def _requested_jg(specs: List[str]) -> List[str]:
    """The -m arguments of a -R qrels_jg evaluation as families/specs in
    trec_eval's order (the first parameters given for a family win)."""
    chosen: Dict[str, str] = {}
    for spec in specs or ["qrels_jg"]:
        fam, dot, par = spec.partition(".")
        names = JG_ORDER if fam == "qrels_jg" else [fam]
        for name in names:
            if name not in JG_ORDER:
                raise ValueError(f"measure {spec!r} cannot be computed from -R qrels_jg judgments "
                                 f"(measures: {', '.join(JG_ORDER)}, or the set qrels_jg)")
            if dot and name == fam and par == "":
                raise ValueError(f"improper measure in parameter '{fam}'")
            if name not in chosen or (dot and name == fam and "." not in chosen[name]):
                chosen[name] = spec if name == fam else name
    return [chosen[n] for n in JG_ORDER if n in chosen]


def _run_jg(args: argparse.Namespace) -> int:
    specs = _requested_jg(args.m)
    measures = [s for s in specs if s.partition(".")[0] not in ("runid", "num_q")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qids, names, matrix, run_id = evaluate_jg(args.qrels, read_run(args.run, ties=args.ties), measures,
                                                  relevance_level=args.l, complete=args.c,
                                                  judged_only=args.J, max_docs=args.M)
    z = ""
    if args.Z is not None:
        zscores = read_zscores(args.Z)
        z = "Z"
        for c, n in enumerate(names):
            matrix[:, c] = standardize(matrix[:, c], qids, n, zscores)
    out = Writer(args.format, run_id, sys.stdout)
    if args.q:
        for e, qid in enumerate(qids):
            for c, n in enumerate(names):
                out.add(n, qid, float(matrix[e, c]), prefix=z)
    if not args.n:
        for s in specs:
            if s == "runid":
                out.add("runid", "all", run_id)
            elif s == "num_q":
                out.add("num_q", "all", len(qids), integer=not z, prefix=z)
        for c, n in enumerate(names):
            out.add(n, "all", running_sum(matrix[:, c]) / len(qids), prefix=z)
    out.close()
    return 0


def _requested_prefs(specs: List[str], fmt: str) -> List[str]:
    """The -m arguments of a -R prefs / qrels_prefs evaluation as names in
    trec_eval's order (default: the set ``prefs``)."""
    from irscore.prefs import PREFS_MEASURES, PREFS_SETS
    order = ["runid", "num_q"] + PREFS_MEASURES
    chosen = set()
    for spec in specs or ["prefs"]:
        fam, dot, par = spec.partition(".")
        names = PREFS_SETS.get(fam, [fam])
        if any(n not in order for n in names):
            raise ValueError(f"measure {spec!r} cannot be computed from -R {fmt} judgments "
                             f"(measures: {', '.join(PREFS_MEASURES)}, or the sets prefs, all_prefs)")
        if dot and par == "":
            raise ValueError(f"improper measure in parameter '{fam}'")
        chosen.update(names)
    return [n for n in order if n in chosen]


def _run_prefs(args: argparse.Namespace) -> int:
    from irscore.prefs import COUNTS, PREFS_MEASURES, prefs_matrix, read_prefs, read_qrels_prefs, summary
    names = _requested_prefs(args.m, args.R)
    judgments = read_prefs(args.qrels) if args.R == "prefs" else read_qrels_prefs(args.qrels)
    qids, matrix, run_id, n_dup = prefs_matrix(judgments, read_run(args.run, ties=args.ties), complete=args.c,
                                               max_docs=args.M)
    evaluated = set(qids)
    missing = [q for q in judgments.query_ids if q not in evaluated]
    if missing:
        print(f"irscore eval: warning: {len(missing)} judged quer{'y' if len(missing) == 1 else 'ies'} "
              f"not in the run skipped (trec_eval would stop; use -c to count them): "
              f"{', '.join(missing[:10])}{' ...' if len(missing) > 10 else ''}", file=sys.stderr)
    if n_dup:
        print(f"irscore eval: warning: {n_dup} repeated (query, doc) run entries; "
              "the best-ranked one is kept (trec_eval would stop)", file=sys.stderr)
    measures = [(n, PREFS_MEASURES.index(n)) for n in names if n in PREFS_MEASURES]
    z = ""
    if args.Z is not None:
        zscores = read_zscores(args.Z)
        z = "Z"
        for n, c in measures:
            matrix[:, c] = standardize(matrix[:, c], qids, n, zscores)
    out = Writer(args.format, run_id, sys.stdout)
    if args.q:
        for e, qid in enumerate(qids):
            for n, c in measures:
                out.add(n, qid, float(matrix[e, c]), integer=n in COUNTS and not z, prefix=z)
    if not args.n:
        for n in names:
            if n == "runid":
                out.add("runid", "all", run_id)
            elif n == "num_q":
                out.add("num_q", "all", len(qids), integer=not z, prefix=z)
        for n, c in measures:
            out.add(n, "all", summary(n, matrix[:, c]), integer=n in COUNTS and not z, prefix=z)
    out.close()
    return 0


def _relstring(rel: np.ndarray, length: int) -> str:
    chars = []
    for r in map(int, rel[:max(length, 0)]):
        if r > 9:
            chars.append(">")
        elif r >= 0:
            chars.append(str(r))
        elif r == -1:
            chars.append("-")
        elif r == -2:
            chars.append(".")
        else:
            chars.append("<")
    return "'" + "".join(chars) + "'"


def run(args: argparse.Namespace) -> int:
    if args.M is not None and args.M < 0:
        raise ValueError(f"-M must be non-negative, got {args.M}")
    if args.R == "qrels_jg":
        return _run_jg(args)
    if args.R in ("prefs", "qrels_prefs"):
        return _run_prefs(args)
    items = requested(args.m)
    qrels: Qrels
    if args.intents:
        from irscore.diversity import read_diversity_qrels
        qrels = read_diversity_qrels(args.qrels)
    else:
        qrels = read_qrels(args.qrels)
    run_ = read_run(args.run, ties=args.ties)
    zscores = read_zscores(args.Z) if args.Z is not None else None
    z = "Z" if zscores is not None else ""
    numeric = [(k, m) for k, m in items if m.family not in FAMILIES or FAMILIES[m.family].kind >= 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = run_plan(qrels, run_, numeric, relevance_level=args.l, complete=args.c,
                      judged_only=args.J, max_docs=args.M, num_docs_in_coll=args.N,
                      zscores=zscores)
    j = ev.joined
    if j.missing and not args.c:
        print(f"irscore eval: warning: {len(j.missing)} qrels quer{'y' if len(j.missing) == 1 else 'ies'} "
              f"not in the run skipped (trec_eval would stop; use -c to count them): "
              f"{', '.join(j.missing[:10])}{' ...' if len(j.missing) > 10 else ''}", file=sys.stderr)
    if j.n_duplicates:
        print(f"irscore eval: warning: {j.n_duplicates} repeated (query, doc) run entries; "
              "the best-ranked one is kept (trec_eval would stop)", file=sys.stderr)
    by_key = {o.key: o for o in ev.outputs}
    out = Writer(args.format, ev.run_id, sys.stdout)
    if args.q:
        for e, qid in enumerate(j.query_ids):
            for key, m in items:
                f = by_key[key].family if key in by_key else FAMILIES[m.family]
                if not f.per_query:
                    continue
                if f.name == "relstring":
                    n = int(float(m.params)) if m.params else 10
                    rel = j.rel[j.offsets[e]:j.offsets[e + 1]]
                    # -c's stand-in ranking (one unjudged document): trec_eval clears the string of
                    # plain ``relstring`` only; ``relstring.N`` keeps its '-' (docs/conventions.md)
                    out.add(key, qid, "''" if j.bogus[e] and key == "relstring" else _relstring(rel, n))
                    continue
                o = by_key[key]
                out.add(key, qid, float(ev.matrix[e, o.column]), integer=f.integer and not z, prefix=z)
    if not args.n:
        for key, m in items:
            f = by_key[key].family if key in by_key else FAMILIES[m.family]
            if not f.summary:
                continue
            if f.name == "runid":
                out.add("runid", "all", ev.run_id)
                continue
            out.add(key, "all", ev.aggregate(by_key[key]), integer=f.integer and not z, prefix=z)
    out.close()
    return 0
