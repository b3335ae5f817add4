"""Fuzz target: the drop-ins ``irscore.compat.pytrec_eval`` and
``irscore.compat.ir_measures``.

The input chooses qrels and run dicts whose ids, values and nesting are
sometimes of the wrong type (integers, bytes, None, floats as ids; NaN,
infinities, strings, huge integers, booleans as values; a query's ranking that
is not a mapping) and a set of measure names.

Invariants: only a clean ``ValueError``/``TypeError`` escapes either drop-in
(`guarded`); on well-formed input (string ids, integer grades, scores on a grid
that single precision holds exactly, no empty ranking: pytrec_eval reads
uninitialised memory there) the pytrec_eval drop-in gives pytrec_eval's keys
and values (trec_eval 9's interpolated recall points excepted, see
docs/switching.md), and the ir_measures drop-in's per-query values equal the
pytrec_eval drop-in's for the same measures.

pytrec_eval itself is never given a query whose judgments are all negative
(`pytrec_eval_defined`): its trec_eval 9.0.8 (``te_form_res_rels``) sizes a
query's relevance levels from the largest grade and keeps them in static
variables from call to call, so such a query is computed from an earlier call's
counts.  Seen: ``te_calc_ndcg`` looping for 30 s to minutes (the evaluation of
``{"q1": {"c": -1}}`` with ``ndcg`` after one of ``{"q1": {"a": 3, "b": 1, "c": 0,
"d": 3}}``, whatever irscore build), or a segmentation fault for grades of -2.
The drop-in treats such a query as one without relevant documents.
"""
from __future__ import annotations

import math
import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import check, guarded, main  # noqa: E402

with atheris.instrument_imports(include=["irscore"]):
    from irscore.compat import ir_measures as irm
    from irscore.compat import pytrec_eval as shim

try:
    import pytrec_eval
except ImportError:     # the invariants against pytrec_eval are skipped
    pytrec_eval = None

# (usual values, wrong ones): a wrong one is drawn one time in eight
QIDS = (["q0", "q1", "q2", "q3"], [7, b"q1", None, 2.5])
DOCS = (["a", "b", "c", "d", "e", "é", ""], [3, b"a", None])
GRADES = ([0, 1, 2, 3, -1], [1.5, "1", True, None, 10 ** 20, float("nan")])
SCORES = ([-2.0, -0.5, 0.0, 0.25, 0.5, 1.0, 3.75, 2], [float("nan"), float("inf"), "x", None, 10 ** 400, True])
NOT_A_MAPPING = [1, [("a", 1)], "abc", None]
MEASURES = (["map", "P", "P_5", "P.5,10", "ndcg_cut_10", "recip_rank", "bpref", "num_ret", "num_rel",
             "num_rel_ret", "num_q", "Rprec", "set_F", "success_1", "infAP", "ndcg", "official", "gm_map",
             "iprec_at_recall", "relstring", "runid", "utility.2,-1,0,0", "ndcg.1=3,2=9", "nDCG@10"],
            ["nope", "P.x", "", "P_", 5])
# the same measures under ir_measures' names and pytrec_eval's keys
PAIRS = [("AP", "map"), ("P@5", "P_5"), ("nDCG@10", "ndcg_cut_10"), ("RR", "recip_rank"), ("Rprec", "Rprec")]
TREC_EVAL_9 = ("iprec_at_recall", "11pt_avg")
# read as trec_eval reads them, which pytrec_eval cannot (docs/switching.md), or irscore's own
NOT_PYTREC_EVAL = {"utility.2,-1,0,0", "ndcg.1=3,2=9", "nDCG@10"}


def _pick(fdp: "atheris.FuzzedDataProvider", choices: tuple) -> object:
    usual, wrong = choices
    return fdp.PickValueInList(wrong if fdp.ConsumeIntInRange(0, 7) == 0 else usual)


def _dicts(fdp: "atheris.FuzzedDataProvider", values: tuple) -> dict:
    out: dict = {}
    for _ in range(fdp.ConsumeIntInRange(0, 4)):
        q = _pick(fdp, QIDS)
        if fdp.ConsumeIntInRange(0, 15) == 0:
            out[q] = fdp.PickValueInList(NOT_A_MAPPING)
            continue
        out[q] = {_pick(fdp, DOCS): _pick(fdp, values) for _ in range(fdp.ConsumeIntInRange(0, 6))}
    return out


def pytrec_eval_defined(qrels: dict) -> bool:
    """pytrec_eval's values are defined for these judgments: no query judged
    with negative grades only (see the module's docstring)."""
    return all(any(v >= 0 for v in docs.values()) for docs in qrels.values() if docs)


def _well_formed(qrels: dict, run: dict) -> bool:
    def ok(d: dict, number: tuple) -> bool:
        return all(isinstance(q, str) and isinstance(docs, dict)
                   and all(isinstance(k, str) and type(v) in number and (not isinstance(v, float) or math.isfinite(v))
                           and abs(v) < 1e6 for k, v in docs.items())
                   for q, docs in d.items())
    return ok(qrels, (int,)) and ok(run, (int, float)) and all(run.values())


def _equal(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= 1e-9 or (math.isnan(a) and math.isnan(b))


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    qrels = _dicts(fdp, GRADES)
    run = _dicts(fdp, SCORES)
    measures = {_pick(fdp, MEASURES) for _ in range(fdp.ConsumeIntInRange(1, 3))}
    ev = guarded(shim.RelevanceEvaluator, qrels, measures)
    ours = guarded(ev.evaluate, run) if ev is not None else None
    names = [m for m, _ in PAIRS]
    agg = guarded(irm.calc_aggregate, names, qrels, run)
    per = guarded(lambda: list(irm.iter_calc(names, qrels, run)))
    if not _well_formed(qrels, run):
        return
    if ours is not None and pytrec_eval is not None and not measures & NOT_PYTREC_EVAL \
            and pytrec_eval_defined(qrels):
        theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        check(list(ours) == list(theirs), f"queries {list(ours)} != pytrec_eval's {list(theirs)}")
        for q in theirs:
            check(set(ours[q]) == set(theirs[q]), f"{q}: keys {sorted(ours[q])} != {sorted(theirs[q])}")
            for k, v in theirs[q].items():
                if not k.startswith(TREC_EVAL_9):
                    check(_equal(ours[q][k], v), f"{q} {k}: {ours[q][k]!r} != pytrec_eval's {v!r}")
    if per is None or agg is None:
        return
    ref = guarded(shim.RelevanceEvaluator(qrels, {k for _, k in PAIRS}).evaluate, run) if any(
        qrels.values()) else {}
    check(ref is not None, "the pytrec_eval drop-in refused what the ir_measures drop-in took")
    by = {(m.query_id, str(m.measure)): m.value for m in per}
    for q, row in (ref or {}).items():
        for name, key in PAIRS:
            check(_equal(by[(q, name)], row[key]), f"{q} {name}: {by[(q, name)]!r} != {key} {row[key]!r}")


if __name__ == "__main__":
    main(test_one_input)
