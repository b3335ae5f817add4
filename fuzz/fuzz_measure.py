"""Fuzz target: measure names (irscore.parse_measure, trec_eval -m specs).

Invariants: a name either raises a clean error or gives ``m`` with
``parse_measure(str(m)) == m``; a parsed measure evaluates on a small fixed
qrels/run (and in the batch API where it runs there) without an unclean error,
and a measure of a bounded family gives a value in [0, 1].
"""
from __future__ import annotations

import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import check, check_unit, guarded, main  # noqa: E402

with atheris.instrument_imports(include=["irscore"]):
    import numpy as np

    import irscore
    from irscore import batch
    from irscore.core.measures import expand_spec, parse_measure

QRELS = irscore.Qrels.from_dict({"q1": {"a": 2, "b": 0, "c": 1, "x": 1}, "q2": {"a": 1, "d": 3}})
RUN = irscore.Run.from_dict({"q1": {"a": 0.9, "b": 0.8, "c": 0.8, "e": 0.1}, "q2": {"d": 0.5, "a": 0.4, "f": 0.3}})
SCORES = np.array([[0.9, 0.8, 0.8, 0.1], [0.5, 0.4, 0.3, np.nan]])
LABELS = np.array([[2, 0, 1, 0], [3, 1, 0, 0]])
BOUNDED = {"map", "P", "recall", "ndcg", "ndcg_cut", "Rprec", "bpref", "recip_rank", "iprec_at_recall",
           "set_P", "set_recall", "set_map", "success", "judged", "11pt_avg", "map_cut", "relative_P",
           "set_relative_P", "infAP", "Rprec_mult", "binG", "Rnorm", "Pnorm", "rank_recall",
           "log_precision", "scaled_recall"}


def test_one_input(data: bytes) -> None:
    name = data[:200].decode("utf-8", "surrogateescape")    # invalid bytes become lone surrogates
    guarded(expand_spec, name)
    m = guarded(parse_measure, name)
    if m is None:
        return
    again = guarded(parse_measure, str(m))
    check(again == m, f"round trip: {name!r} -> {str(m)!r} -> {again!r}",
          "parse_measure(str(m)) != m for trec_eval parameter specs (issue 9)"
          if m.params is not None or m.family == "dcg_cut" else "")
    res = guarded(irscore.evaluate, QRELS, RUN, [name], per_query=True)
    if res is not None and m.family in BOUNDED and not m.params:
        for v in next(iter(res.values())).values():
            check_unit(v, name)
    guarded(batch.evaluate, SCORES, LABELS, [name])


if __name__ == "__main__":
    main(test_one_input)
