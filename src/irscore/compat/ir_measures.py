"""ir_measures' API on irscore's kernels.

``iter_calc(measures, qrels, run)`` yields ``Metric(query_id, measure, value)``
(ir_measures' own namedtuple when ir_measures is installed);
``calc_aggregate(measures, qrels, run)`` returns a `Results` mapping that
answers both the measure object and its string (``res[nDCG@10]`` and
``res["nDCG@10"]``); ``calc`` returns both; ``evaluator(measures, qrels)`` keeps
the judgments for several runs.  ``register()`` adds irscore to ir_measures'
provider registry.

Inputs, as in ir_measures: measure objects (``ir_measures.nDCG@10``) or their
strings; qrels and runs as namedtuple iterators (``ir_measures.read_trec_qrels``,
``read_trec_run``, any iterable of ``Qrel(query_id, doc_id, relevance)`` /
``ScoredDoc(query_id, doc_id, score)``), DataFrames with those columns, dicts
``{query_id: {doc_id: value}}``; polars DataFrames and LazyFrames, pyarrow Tables,
ranx's and irscore's ``Qrels``/``Run`` and file paths too (through
[`irscore.as_qrels`][irscore.core.io.as_qrels] / [`as_run`][irscore.core.io.as_run]).

Conventions are ir_measures': a query of the qrels missing from the run scores
the measure's default (0) and counts in the mean; run queries without judgments
are ignored; a qrels query a dict run gives an empty ranking is evaluated as an
empty ranking (``NumQ`` counts it); an empty run gives 0 for every qrels query;
empty qrels give no per-query values and a NaN mean (sums: 0).

ir_measures measure objects are read from their parameters (not their strings),
so ``NumRet(rel=1)`` (``NumRelRet``) counts relevant retrieved documents and
``RBP`` is p=0.8.  ``Judged`` / ``Judged@k``, ``RR@k``, ``RBP(rel=k)``, gain maps
with a cutoff, gdeval's ``ERR@k`` and the C/W/L measures (``SDCG``, ``INST``,
``INSQ``, ``BPM``, ``NERR8``-``NERR11``) are handed to [`irscore.evaluate`][irscore.evaluate]
under their ir_measures strings, which it reads with ir_measures' definitions.
Measures irscore has no equal of (``RBP@k``, ``ERR`` without a cutoff,
``nDCG(dcg="exp-log2", gains=...)``, the diversity measures, which need intent
judgments that ir_measures' ``Qrel`` tuples do not carry) raise ``ValueError``
here and are left to ir_measures' other providers when irscore is registered as
a provider.
"""
from __future__ import annotations

import math
from collections import namedtuple
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, cast

from irscore.classic import evaluate
from irscore.core.data import Qrels, Run, arrow_table
from irscore.core.frames import empty_run
from irscore.core.inputs import is_rows
from irscore.core.io import as_qrels, as_run
from irscore.core.measures import ALIASES, parse_measure
from irscore.core.specs import BY_NAME

__all__ = ["Metric", "Results", "CalcResults", "iter_calc", "calc_aggregate", "calc", "evaluator", "Evaluator",
           "register", "to_irscore_name"]

try:  # ir_measures' own types when available, identical namedtuples otherwise
    from ir_measures.util import CalcResults, Metric
    _HAVE_IRM = True
except ImportError:  # pragma: no cover - exercised only without ir_measures
    Metric = namedtuple("Metric", ["query_id", "measure", "value"])  # type: ignore[misc,no-redef]
    CalcResults = namedtuple("CalcResults", ["aggregated", "per_query"])  # type: ignore[misc,no-redef]
    _HAVE_IRM = False

_SUM_FAMILIES = ("NumRet", "NumRel", "NumQ", "NumRelRet")
# families irscore.evaluate reads under their ir_measures strings with ir_measures'
# definitions (tests/compat/test_compat_ir_measures.py compares them with its providers)
_AS_NAMED = ("Judged", "SDCG", "INST", "INSQ", "BPM", "NERR8", "NERR9", "NERR10", "NERR11")


def _param(measure: Any, key: str) -> Any:
    """A parameter of an ir_measures measure (its default when not given), None
    when it has none: ir_measures marks "not provided" with a bare ``object()``."""
    try:
        value = measure[key]
    except KeyError:
        return None
    return None if type(value) is object else value


def to_irscore_name(measure: Any) -> Tuple[str, bool]:
    """(irscore measure name, judged_only) of an ir_measures measure object with
    ir_measures' definition; ``ValueError`` when irscore has no equal measure."""
    if isinstance(measure, str):
        return measure, False
    return _Translation(measure).name_and_judged_only()


class _Translation:
    """One ir_measures measure object read as an irscore name.  The ir_measures names
    irscore declares (``irscore.core.specs``: ``P``, ``AP``, ``RR``, ``Rprec`` ...)
    follow their declaration (cutoff rule, ``rel=``); `_RULES` holds the names whose
    parameters need translating."""

    def __init__(self, measure: Any) -> None:
        name = getattr(measure, "NAME", None)
        if name is None or not hasattr(measure, "params"):
            raise TypeError(f"measures must be ir_measures measure objects or str, got {measure!r}")
        measure.validate_params()
        self.measure, self.name = measure, name
        self.judged_only = bool(self.p("judged_only")) if "judged_only" in measure.SUPPORTED_PARAMS else False
        self.cut = self.p("cutoff")
        self.rel = self.p("rel")

    def p(self, key: str) -> Any:
        return _param(self.measure, key)

    def unsupported(self, why: str) -> ValueError:
        return ValueError(f"measure {self.measure!r}: {why} (ir_measures' definition is not implemented by irscore)")

    def as_named(self) -> Tuple[str, bool]:
        """The ir_measures string, which irscore.evaluate reads as ir_measures
        defines it (per-measure judged_only included)."""
        text = str(self.measure)
        parse_measure(text)
        return text, False

    @staticmethod
    def at(base: str, args: Dict[str, Any], c: Any) -> str:
        a = ",".join(f"{k}={v}" for k, v in args.items() if v is not None)
        return base + (f"({a})" if a else "") + (f"@{c}" if c is not None else "")

    def level(self) -> Dict[str, Any]:
        rel = self.rel
        if rel is not None and (not isinstance(rel, int) or isinstance(rel, bool)):
            raise self.unsupported("rel must be an int")
        return {"rel": rel}

    def name_and_judged_only(self) -> Tuple[str, bool]:
        rule = _RULES.get(self.name)
        if rule is not None:
            return rule(self)
        if self.name in _AS_NAMED:
            return self.as_named()
        return self.declared()

    def declared(self) -> Tuple[str, bool]:
        """A name irscore declares, with ``rel=`` and the cutoff its declaration allows."""
        spec = BY_NAME.get(ALIASES.get(self.name, ""))
        if spec is None or self.name not in _DECLARED:
            raise self.unsupported(f"{self.name} is not an irscore measure")
        if spec.cutoff == "required" and self.cut is None:
            raise self.unsupported("a cutoff is required")
        cut = self.cut if spec.cutoff != "none" or spec.at_k else None
        return self.at(self.name, self.level(), cut), self.judged_only


# ir_measures' names read through their irscore declaration (the same name, rel=, judged_only, @k)
_DECLARED = ("P", "AP", "R", "Success", "RR", "Rprec", "Bpref", "infAP", "SetAP", "SetR")


def _set_p(t: _Translation) -> Tuple[str, bool]:
    return t.at("SetRelP" if t.p("relative") else "SetP", t.level(), None), t.judged_only


def _set_f(t: _Translation) -> Tuple[str, bool]:
    return t.at("SetF", dict(t.level(), params=repr(float(t.p("beta")))), None), t.judged_only


def _iprec(t: _Translation) -> Tuple[str, bool]:
    recall = t.p("recall")
    if recall is None:
        raise t.unsupported("a recall level is required")
    return t.at("IPrec", t.level(), recall), t.judged_only


def _ndcg(t: _Translation) -> Tuple[str, bool]:
    dcg = t.p("dcg")
    gains = t.p("gains")
    if gains is not None:
        # trec_eval's gain map (ndcg.level=gain,...): unlisted grades gain
        # their grade, as ir_measures maps them
        if dcg != "log2" or not all(isinstance(k, int) for k in gains):
            raise t.unsupported("gains= with dcg= or grades that are not integers")
        if t.cut is not None:
            return t.as_named()
        pairs = ",".join(f"{int(k)}={float(v)!r}" for k, v in sorted(gains.items()))
        return f"ndcg.{pairs}", t.judged_only
    gain = {"log2": None, "exp-log2": "exp"}.get(dcg, "?")
    if gain == "?":
        raise t.unsupported(f"dcg={dcg!r}")
    return t.at("nDCG", {"gain": gain}, t.cut), t.judged_only


def _num_ret(t: _Translation) -> Tuple[str, bool]:
    return (t.at("NumRelRet", t.level(), None) if t.rel is not None else "NumRet"), False


def _rbp(t: _Translation) -> Tuple[str, bool]:
    if t.cut is not None:
        raise t.unsupported("RBP@k")
    if t.rel is not None:
        t.level()
        return f"RBP(p={float(t.p('p'))!r},rel={t.rel})", False
    return f"RBP(p={float(t.p('p'))!r})", False


def _err(t: _Translation) -> Tuple[str, bool]:
    if t.cut is None:
        raise t.unsupported("ERR without a cutoff")
    return t.as_named()


_RULES = {
    "SetP": _set_p, "SetF": _set_f, "IPrec": _iprec, "nDCG": _ndcg, "NumRet": _num_ret, "RBP": _rbp, "ERR": _err,
    "NumRel": lambda t: (t.at("NumRel", t.level(), None), False),
    "NumQ": lambda t: ("NumQ", False),
}


def _is_sum(measure: Any) -> bool:
    name = getattr(measure, "NAME", None)
    if name is not None:
        return name in _SUM_FAMILIES
    return str(measure).split("(")[0].split("@")[0] in _SUM_FAMILIES or str(measure).startswith("num_")


def _as_measures(measures: Iterable[Any]) -> List[Any]:
    if isinstance(measures, str) or hasattr(measures, "params"):
        measures = [measures]
    out: List[Any] = []
    for m in measures:
        if isinstance(m, str) and _HAVE_IRM:
            import ir_measures

            try:
                m = ir_measures.parse_measure(m)
            except (ValueError, NameError, SyntaxError, AssertionError, TypeError, KeyError):
                parse_measure(m)    # an irscore-only name: kept as a string
        if m not in out:
            out.append(m)
    if not out:
        raise ValueError("no measures requested")
    return out


# ------------------------------------------------------------------ inputs

def _empty(x: Any) -> Tuple[Any, bool]:
    """(``x`` in the form to convert, whether it holds nothing): a dict without its
    empty entries, rows read once into a list, Arrow data (a polars LazyFrame
    collected once) as a table.  No judgments or nothing ranked is not an error
    here: ir_measures gives NaN or 0."""
    if isinstance(x, Mapping):
        x = {str(q): docs for q, docs in x.items() if len(docs) > 0}
        return x, not x
    table = arrow_table(x)
    if table is not None:
        return table, not table.num_rows
    if hasattr(x, "columns") and hasattr(x, "__len__"):
        return x, not len(x)
    if is_rows(x):
        x = list(x)
        return x, not x
    return x, False


def _qrels(qrels: Any) -> Optional[Qrels]:
    """irscore Qrels (the core's converter, which reads ir_measures' ``Qrel``
    namedtuples with ``rows=True``), or None when there are no judgments."""
    x, empty = _empty(qrels)
    return None if empty else as_qrels(x, rows=True)


def _run(run: Any) -> Tuple[Optional[Run], List[str]]:
    """(irscore Run, or None when nothing is ranked; the queries of a dict
    with an empty ranking)."""
    empty_queries = [str(q) for q, docs in run.items() if len(docs) == 0] if isinstance(run, Mapping) else []
    x, empty = _empty(run)
    return (None if empty else as_run(x, rows=True)), empty_queries


# ------------------------------------------------------------------ results

class Results(Mapping):  # type: ignore[type-arg]
    """``{measure: value}`` answering the measure object and its string alike."""

    def __init__(self, items: Sequence[Tuple[Any, float]]) -> None:
        self._keys = [k for k, _ in items]
        self._by_str = {str(k): v for k, v in items}

    def __getitem__(self, key: Any) -> float:
        try:
            return self._by_str[str(key)]
        except KeyError:
            raise KeyError(key) from None

    def __iter__(self) -> Iterator[Any]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return str(key) in self._by_str

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k}: {self._by_str[str(k)]!r}" for k in self._keys) + "}"


class Evaluator:
    """Judgments and measures fixed once; ``iter_calc``/``calc_aggregate``/``calc``
    for any number of runs (ir_measures' ``Evaluator``)."""

    def __init__(self, measures: Iterable[Any], qrels: Any) -> None:
        self.measures = _as_measures(measures)
        self._names = [to_irscore_name(m) for m in self.measures]
        self._qrels = _qrels(qrels)
        self.qrel_qids = list(self._qrels.query_ids) if self._qrels is not None else []
        if isinstance(qrels, Mapping) and len(qrels) != len(self.qrel_qids):
            # a query without judgments still scores the default, as in ir_measures
            self.qrel_qids = sorted(map(str, qrels), key=lambda q: q.encode("utf-8"))

    def _columns(self, run: Any) -> Tuple[List[str], List[List[float]]]:
        """Query ids both in the run and the qrels, and one value list per
        measure.  A qrels query the run (a dict) gives an empty ranking is
        evaluated as an empty ranking, as ir_measures' providers do."""
        if self._qrels is None:
            return [], []
        r, empty = _run(run)
        qrels = self._qrels
        empty = [q for q in empty if q in qrels]
        if not empty and (r is None or not any(q in qrels for q in r.query_ids)):
            return [], []
        complete = False
        if empty:
            # trec_eval's -c on the queries ranked or given an empty ranking: the
            # others of the qrels stay out, as before
            wanted = set(empty) | (set(r.query_ids) if r is not None else set())
            qrels = qrels.subset([q for q in qrels.query_ids if q in wanted])
            r = r if r is not None else empty_run()
            complete = True
        cols: List[List[float]] = [[] for _ in self.measures]
        qids: List[str] = []
        for judged_only in (False, True):
            idx = [i for i, (_, j) in enumerate(self._names) if j == judged_only]
            if not idx:
                continue
            res = cast(Dict[str, Dict[str, float]], evaluate(
                qrels, r, [self._names[i][0] for i in idx], per_query=True, judged_only=judged_only,
                complete=complete))
            for i in idx:
                per_q = res[self._names[i][0]]
                qids = qids or list(per_q)
                cols[i] = list(per_q.values())
        return qids, cols

    def _computed(self, run: Any) -> Iterator[Any]:
        """Metrics of the queries both in the run and the qrels."""
        qids, cols = self._columns(run)
        ms = self.measures
        for q, values in zip(qids, zip(*cols)):
            for m, v in zip(ms, values):
                yield Metric(q, m, v)

    def _defaults(self, computed: List[str]) -> List[Tuple[Any, str]]:
        """(measure, query) of the qrels queries the run lacks, in ir_measures' order."""
        done = set(computed)
        missing = [q for q in self.qrel_qids if q not in done]
        return sorted(((m, q) for m in self.measures for q in missing), key=lambda t: (str(t[0]), t[1]))

    def iter_calc(self, run: Any) -> Iterator[Any]:
        """Per-query ``Metric``s; qrels queries missing from the run get the default 0."""
        qids, cols = self._columns(run)
        ms = self.measures
        for q, values in zip(qids, zip(*cols)):
            for m, v in zip(ms, values):
                yield Metric(q, m, v)
        for m, q in self._defaults(qids):
            yield Metric(q, m, float(getattr(m, "DEFAULT", 0.0)))

    def calc_aggregate(self, run: Any) -> Results:
        """``{measure: aggregate}``: mean over the qrels queries, counts summed."""
        qids, cols = self._columns(run)
        n = len(self.qrel_qids)
        agg = []
        for i, m in enumerate(self.measures):
            total = math.fsum(cols[i]) if cols else 0.0
            default = float(getattr(m, "DEFAULT", 0.0)) * (n - len(qids))
            if _is_sum(m):
                agg.append((m, total + default))
            else:
                agg.append((m, (total + default) / n if n else math.nan))
        return Results(agg)

    def calc(self, run: Any) -> Any:
        """``CalcResults(aggregated, per_query)``."""
        metrics = list(self.iter_calc(run))
        sums = [0.0] * len(self.measures)
        pos = {id(m): i for i, m in enumerate(self.measures)}
        for metric in metrics:
            sums[pos[id(metric.measure)]] += metric.value
        n = len(self.qrel_qids)
        agg = [(m, sums[i] if _is_sum(m) else (sums[i] / n if n else math.nan))
               for i, m in enumerate(self.measures)]
        return CalcResults(Results(agg), metrics)  # type: ignore[arg-type]


def evaluator(measures: Iterable[Any], qrels: Any) -> Evaluator:
    return Evaluator(measures, qrels)


def iter_calc(measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Any]:
    """Per-query values as ir_measures' ``Metric(query_id, measure, value)``.

    Parameters
    ----------
    measures : iterable of ir_measures measure objects or str
        The measures, e.g. ``[nDCG@10, "AP"]``.
    qrels : namedtuple iterator, DataFrame, pyarrow Table, dict, Qrels, ranx Qrels or path
        Judgments (``Qrel(query_id, doc_id, relevance, iteration)`` tuples as
        ir_measures' readers give them, ``query_id, doc_id, relevance`` columns,
        ``{qid: {doc: grade}}``, a pandas or polars DataFrame or LazyFrame, a
        pyarrow Table, a ranx Qrels or a TREC qrels file).
    run : namedtuple iterator, DataFrame, pyarrow Table, dict, Run, ranx Run or path
        Scored documents (``ScoredDoc(query_id, doc_id, score)`` tuples, columns,
        ``{qid: {doc: score}}`` or a TREC run file).

    Returns
    -------
    iterator of Metric
        One ``Metric(query_id, measure, value)`` per query and measure; qrels
        queries missing from the run get the measure's default (0), as in
        ir_measures.
    """
    return Evaluator(measures, qrels).iter_calc(run)


def calc_aggregate(measures: Iterable[Any], qrels: Any, run: Any) -> Results:
    """``{measure: aggregate}`` as ``ir_measures.calc_aggregate``.

    Parameters
    ----------
    measures : iterable of ir_measures measure objects or str
        The measures.
    qrels : namedtuple iterator, DataFrame, pyarrow Table, dict, Qrels, ranx Qrels or path
        Judgments (as [`iter_calc`][irscore.compat.ir_measures.iter_calc]).
    run : namedtuple iterator, DataFrame, pyarrow Table, dict, Run, ranx Run or path
        Scored documents (as [`iter_calc`][irscore.compat.ir_measures.iter_calc]).

    Returns
    -------
    Results
        A mapping keyed by each measure object and by its string
        (``res[nDCG@10] == res["nDCG@10"]``): the mean over the qrels queries
        (a query missing from the run scores 0), counts summed; an empty run
        gives 0, empty qrels NaN, as ir_measures.
    """
    return Evaluator(measures, qrels).calc_aggregate(run)


def calc(measures: Iterable[Any], qrels: Any, run: Any) -> Any:
    """``CalcResults(aggregated, per_query)`` as ``ir_measures.calc``."""
    return Evaluator(measures, qrels).calc(run)


# ------------------------------------------------------------------ provider

def _provider_class() -> Any:
    from ir_measures import providers

    class IrscoreProvider(providers.Provider):  # type: ignore[misc]
        """irscore: trec_eval 10 measures (and irscore's own) computed by native kernels."""

        NAME = "irscore"

        def supports(self, measure: Any) -> bool:
            try:
                to_irscore_name(measure)
            except (ValueError, TypeError, AssertionError):
                return False
            return True

        def _evaluator(self, measures: Any, qrels: Any) -> Any:
            return _ProviderEvaluator(list(measures), qrels)

    class _ProviderEvaluator(providers.Evaluator):  # type: ignore[misc]
        def __init__(self, measures: List[Any], qrels: Any) -> None:
            self._inner = Evaluator(measures, qrels)
            super().__init__(self._inner.measures, set(self._inner.qrel_qids))

        def _iter_calc(self, run: Any) -> Iterator[Any]:
            return self._inner._computed(run)

    return IrscoreProvider


_PROVIDER: Any = None


def register(default: bool = False) -> Any:
    """Add irscore to ir_measures' provider registry (ir_measures 0.4 has no
    entry-point group for providers, only ``ir_measures.providers.register``) and
    return the provider.  Afterwards ``ir_measures.providers.registry["irscore"]``
    and ``ir_measures.irscore`` evaluate with irscore
    (``ir_measures.irscore.calc_aggregate(measures, qrels, run)``), and the
    ``ir_measures`` command line accepts ``--provider irscore`` in this process.
    ``default=True`` also puts irscore first in ``ir_measures.DefaultPipeline``,
    so plain ``ir_measures.calc_aggregate`` uses it for the measures it supports.
    Idempotent."""
    global _PROVIDER
    import ir_measures

    if _PROVIDER is None:
        _PROVIDER = ir_measures.providers.register(_provider_class()())
    ir_measures.providers.registry["irscore"] = _PROVIDER
    setattr(ir_measures, "irscore", _PROVIDER)
    if default:
        chain = ir_measures.DefaultPipeline.providers
        if _PROVIDER not in chain:
            chain.insert(0, _PROVIDER)
    return _PROVIDER

