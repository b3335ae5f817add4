"""pytrec_eval's API on irscore's kernels.

``from irscore.compat import pytrec_eval`` in place of ``import pytrec_eval``:
``RelevanceEvaluator(qrels, measures, relevance_level=1,
judged_docs_only_flag=False).evaluate(run)`` returns ``{query_id: {measure:
value}}`` with pytrec_eval's measure expansion and output keys:

- a family name (``P``, ``ndcg_cut``, ``iprec_at_recall``, ``Rprec_mult`` ...)
  expands to trec_eval's default cutoffs (``P_5`` ... ``P_1000``);
- ``P.5,10`` / ``P_5`` give the listed cutoffs; several specs of one family are
  merged (``{'P.5', 'P_10'}`` gives ``P_5`` and ``P_10``);
- a nickname (``official``, ``set``, ``all_trec``) expands to its families;
- families with other parameters (``set_F.0.5``, ``utility.2,-1,0,0``,
  ``ndcg.1=3,2=9``) are keyed by the family name, as pytrec_eval prints them;
- ``runid`` and ``relstring`` give 0.0, ``num_q`` 1.0 and ``gm_map``/``gm_bpref``
  the natural logarithm of the per-query value, as pytrec_eval does.

Queries: a query is evaluated when it is in the run and has at least one
judgment; a run query with an empty ranking is evaluated as an empty ranking;
queries of only one side are left out; an empty run gives ``{}``.

Values are trec_eval 10's; the few measures where trec_eval 9 (pytrec_eval)
differs are listed in ``docs/switching.md``.  Names irscore knows beyond
pytrec_eval's (``nDCG@10``, ``rbp``, ``P(rel=2)@5`` ...) are accepted too and
keyed as given.
"""
from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any, Dict, Iterable, List, Mapping, Set, Tuple

import numpy as np

from irscore.classic import Evaluation, run_plan
from irscore.core.data import Qrels, Run
from irscore.core.measures import FAMILIES, ORDER, expand_spec, parse_measure, resolve

__all__ = ["RelevanceEvaluator", "supported_measures", "supported_nicknames", "compute_aggregated_measure",
           "parse_qrel", "parse_run"]

#: The measure families pytrec_eval (trec_eval 9) knows, under its names.
supported_measures: Set[str] = {
    "11pt_avg", "G", "P", "Rndcg", "Rprec", "Rprec_mult", "binG", "bpref", "gm_bpref", "gm_map", "infAP",
    "iprec_at_recall", "map", "map_cut", "ndcg", "ndcg_cut", "ndcg_rel", "num_nonrel_judged_ret", "num_q",
    "num_rel", "num_rel_ret", "num_ret", "recall", "recip_rank", "relative_P", "relstring", "runid", "set_F",
    "set_P", "set_map", "set_recall", "set_relative_P", "success", "utility",
}

#: pytrec_eval's measure sets (its ``prefs`` and ``qrels_jg`` sets need other
#: input formats and are not offered).
supported_nicknames: Dict[str, Set[str]] = {
    "official": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"},
    "set": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"},
    "all_trec": set(supported_measures),
}

_CONSTANT = {"runid": 0.0, "relstring": 0.0, "num_q": 1.0}
_LOG = ("gm_map", "gm_bpref")
# pytrec_eval's parameter syntax: family, '.' or '_', comma-separated numbers
_NUMS = r"[0-9]+(?:\.[0-9]+)?(?:,[0-9]+(?:\.[0-9]+)?)*"
_FAMILY_ORDER = sorted(supported_measures, key=len, reverse=True)


def _split(measure: str) -> Tuple[str, str]:
    """(family, parameter string) of one pytrec_eval measure spec."""
    for fam in _FAMILY_ORDER:
        if measure.startswith(fam) and len(measure) > len(fam) + 1 and measure[len(fam)] in "._":
            rest = measure[len(fam) + 1:]
            # '_' takes pytrec_eval's numbers only; '.' also trec_eval's other
            # parameters (utility.2,-1,0,0, ndcg.1=3,2=9, iprec_at_recall..10)
            if re.fullmatch(_NUMS, rest) or measure[len(fam)] == ".":
                return fam, rest
    raise ValueError(f"unsupported measure {measure}")


def _plan(measures: Iterable[str]) -> List[Tuple[str, str]]:
    """(output key, irscore measure name) pairs, in trec_eval's order."""
    if isinstance(measures, str) or not hasattr(measures, "__iter__"):
        raise TypeError(f"measures must be a collection of measure names (a set or list), not "
                        f"{'one string' if isinstance(measures, str) else type(measures).__name__}")
    wanted: List[str] = []
    for m in measures:
        if not isinstance(m, str):
            raise TypeError(f"measure names must be str, got {m!r}")
        wanted.extend(sorted(supported_nicknames[m]) if m in supported_nicknames else [m])
    params: Dict[str, List[str]] = {}
    extra: List[Tuple[str, str]] = []
    for m in wanted:
        if m in supported_measures:
            params.setdefault(m, [])
            continue
        try:
            fam, rest = _split(m)
        except ValueError:
            try:   # an irscore name pytrec_eval does not know: keyed as given
                parse_measure(m)
            except ValueError:
                raise ValueError(f"unsupported measure {m}") from None
            if (m, m) not in extra:
                extra.append((m, m))
            continue
        params.setdefault(fam, []).append(rest)
    out: List[Tuple[int, int, str, str]] = []
    for fam, plist in params.items():
        f = FAMILIES[fam]
        if fam in _CONSTANT or fam in _LOG:
            base = {"gm_map": "map", "gm_bpref": "bpref"}.get(fam, "num_q")
            out.append((ORDER[fam], 0, fam, base))
            continue
        if f.ptype in ("long_cuts", "float_cuts"):
            vals = sorted({v for p in plist for v in p.split(",")}, key=float)
            spec = fam + ("." + ",".join(vals) if vals else "")
            for i, (key, _) in enumerate(expand_spec(spec)):
                out.append((ORDER[fam], i, key, key))
            continue
        spec = fam + ("." + plist[-1] if plist else "")
        expand_spec(spec)   # checks the parameters
        out.append((ORDER[fam], 0, fam, spec))
    out.sort()
    return [(key, name) for _, _, key, name in out] + extra


class RelevanceEvaluator:
    """Evaluate runs against fixed judgments, as ``pytrec_eval.RelevanceEvaluator``."""

    def __init__(self, query_relevance: Mapping[str, Mapping[str, int]], measures: Iterable[str],
                 relevance_level: int = 1, judged_docs_only_flag: bool = False) -> None:
        if not isinstance(query_relevance, Mapping):
            raise TypeError(f"query_relevance must be a mapping {{query_id: {{doc_id: relevance}}}}, "
                            f"got {type(query_relevance).__name__}")
        self._plan = _plan(measures)
        self._names = [name for _, name in self._plan]
        self._keys = [key for key, _ in self._plan]
        self._items = resolve(list(dict.fromkeys(self._names)))   # parsed once
        self._relevance_level = int(relevance_level)
        self._judged_only = bool(judged_docs_only_flag)
        # queries without judgments are dropped, as pytrec_eval does; the judgments
        # are read once, here (later changes to the caller's dicts are not seen)
        _check_keys(query_relevance, "query_relevance", "relevance")
        judged = {q: d for q, d in query_relevance.items() if len(d) > 0}
        self._qrels = Qrels.from_dict(judged) if judged else None

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> Dict[str, Dict[str, float]]:
        """``{query_id: {measure: value}}`` for the queries of ``scores`` that have judgments."""
        if scores is None:
            return {}
        if not isinstance(scores, Mapping):
            raise TypeError(f"scores: expected a mapping {{query_id: {{doc_id: score}}}}, got {type(scores).__name__}")
        _check_keys(scores, "scores", "score")
        if not scores or self._qrels is None:
            return {}
        qrels = self._qrels
        for q, docs in scores.items():
            if q not in qrels:
                # not evaluated, but checked as pytrec_eval checks every query (its
                # "Unable to extract query/object scores"): never dropped silently
                _check_docs(docs, q)
        ranked = {q: d for q, d in scores.items() if len(d) > 0}
        empty = [q for q, d in scores.items() if len(d) == 0 and q in qrels]
        out: Dict[str, Dict[str, float]] = {}
        if any(q in qrels for q in ranked):
            out = self._rows(run_plan(qrels, Run.from_dict(ranked), self._items,
                                      relevance_level=self._relevance_level, judged_only=self._judged_only))
        if empty:
            # an empty ranking is evaluated (all measures of an empty list), as
            # pytrec_eval does: trec_eval's -c on the judgments of those queries
            sub = qrels.subset(empty)
            dummy = Run.from_dict({"\x00irscore-no-query": {"\x00": 0.0}})
            out.update(self._rows(run_plan(sub, dummy, self._items, relevance_level=self._relevance_level,
                                           complete=True, judged_only=self._judged_only)))
        # pytrec_eval gives the queries in the run's order
        if len(out) == len(scores) and list(out) == list(scores):
            return out
        return {q: out[q] for q in scores if q in out}

    def _rows(self, ev: Evaluation) -> Dict[str, Dict[str, float]]:
        """``{query_id: {key: value}}`` straight from the per-query matrix: one
        list of rows, one dict per query (keys shared, in the plan's order)."""
        by_name = {o.key: o for o in ev.outputs}
        qids = ev.joined.query_ids
        values = np.empty((len(qids), len(self._plan)), dtype=np.float64)
        for j, (key, name) in enumerate(self._plan):
            if key in _CONSTANT:
                values[:, j] = _CONSTANT[key]
            elif key in _LOG:
                values[:, j] = [math.log(max(v, 1e-5)) for v in ev.per_query(by_name[name]).tolist()]
            else:
                values[:, j] = ev.per_query(by_name[name])
        keys = self._keys
        return {q: dict(zip(keys, row)) for q, row in zip(qids, values.tolist())}


def _check_keys(d: Mapping[str, Mapping[str, float]], arg: str, value: str) -> None:
    """str query ids and a mapping per query, as pytrec_eval requires (it raises
    TypeError "Expected string as key" / "Unable to extract query/object
    scores"): an integer id is refused, never dropped."""
    for q, docs in d.items():
        if not isinstance(q, str):
            raise TypeError(f"{arg}: query id {q!r} is {type(q).__name__}, expected str (pytrec_eval takes "
                            f"string ids only; convert them, e.g. {{str(q): ...}})")
        if not isinstance(docs, Mapping):
            raise TypeError(f"{arg}[{q!r}]: expected a mapping {{doc_id: {value}}}, got {type(docs).__name__}")


def _check_docs(docs: Mapping[Any, Any], q: str) -> None:
    """A query's {doc_id: score}: str ids and real scores (pytrec_eval's own check)."""
    for doc, score in docs.items():
        if not isinstance(doc, str):
            raise TypeError(f"scores[{q!r}]: document id {doc!r} is {type(doc).__name__}, expected str "
                            "(pytrec_eval takes string ids only)")
        if isinstance(score, bool) or not isinstance(score, (int, float, np.integer, np.floating)):
            raise TypeError(f"scores[{q!r}][{doc!r}]: score {score!r} is {type(score).__name__}, expected a number")


def compute_aggregated_measure(measure: str, values: Iterable[float]) -> float:
    """Aggregate per-query values as pytrec_eval does: ``num_*`` are summed,
    ``gm_*`` (per-query logarithms) give exp(mean), the others the mean."""
    vals = [float(v) for v in values]
    if measure.startswith("num_"):
        return float(math.fsum(vals))
    if measure.startswith("gm_"):
        return math.exp(math.fsum(vals) / len(vals)) if vals else float("nan")
    return math.fsum(vals) / len(vals) if vals else float("nan")


def parse_run(f_run: Iterable[str]) -> Dict[str, Dict[str, float]]:
    """Lines ``qid Q0 docno rank score tag`` as ``{qid: {docno: score}}`` (pytrec_eval's reader)."""
    run: Dict[str, Dict[str, float]] = defaultdict(dict)
    for n, line in enumerate(f_run, 1):
        parts = line.strip().split()
        if len(parts) != 6:
            raise ValueError(f"run line {n}: expected 6 fields (qid Q0 docno rank score tag), got {len(parts)}")
        qid, _, doc, _, score, _ = parts
        if doc in run[qid]:
            raise ValueError(f"run line {n}: document {doc!r} repeated for query {qid!r}")
        run[qid][doc] = float(score)
    return run


def parse_qrel(f_qrel: Iterable[str]) -> Dict[str, Dict[str, int]]:
    """Lines ``qid iter docno rel`` as ``{qid: {docno: rel}}`` (pytrec_eval's reader)."""
    qrel: Dict[str, Dict[str, int]] = defaultdict(dict)
    for n, line in enumerate(f_qrel, 1):
        parts = line.strip().split()
        if len(parts) != 4:
            raise ValueError(f"qrels line {n}: expected 4 fields (qid iter docno rel), got {len(parts)}")
        qid, _, doc, rel = parts
        if doc in qrel[qid]:
            raise ValueError(f"qrels line {n}: document {doc!r} judged twice for query {qid!r}")
        qrel[qid][doc] = int(rel)
    return qrel
