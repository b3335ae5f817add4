"""Names and evaluation of the intent-aware measures (docs/web_diversity.md)."""
from __future__ import annotations

import re
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from irscore import _diversity
from irscore.core import parallel as _parallel
from irscore.core.checks import check_level
from irscore.core.joined import Joined, ResultCache
from irscore.core.plugins import register
from irscore.core.registry import DIVERSITY_GROUP, Param
from irscore.core.specs import DIVERSITY
from irscore.diversity.qrels import IntentTables, as_diversity_qrels

__all__ = ["MEASURES", "evaluate", "parse", "compute_measure"]

# the kernel's column of each measure: within a cutoff's block, or -1 - the whole-ranking column
_COLUMN = {"alpha_DCG": 0, "alpha_nDCG": 1, "ERR_IA": 2, "nERR_IA": 3, "P_IA": 4, "StRecall": 5,
           "NRBP": -1, "nNRBP": -2, "AP_IA": -3}
# name -> (kernel column, cutoff needed); names, spellings, cutoff rules and keywords are declared
# in irscore.core.specs.DIVERSITY
MEASURES: Dict[str, Tuple[int, bool]] = {d.name: (_COLUMN[d.name], d.cutoff == "required") for d in DIVERSITY}
ALIASES = {spelling: d.name for d in DIVERSITY for spelling in d.spellings}
_KEYWORDS = {d.name: d.keywords for d in DIVERSITY}
_PER_CUTOFF = 6
_PARAMS = {
    "alpha": Param("alpha", "float", 0.5, bounds=(-1e-300, 1.0 + 1e-12), doc="redundancy intolerance"),
    "beta": Param("beta", "float", 0.5, bounds=(-1e-300, 1.0), doc="patience (NRBP)"),
    "rel": Param("rel", "int", None, minimum=0, doc="grade from which a document is relevant to an intent"),
}
#: the largest cutoff (the kernel's int64); 2**63 itself, which a cutoff of 2**63 - 1 read as a float
#: becomes, is read as 2**63 - 1 (past the ranking a cutoff only enters the values as a double)
_MAX_CUT = 2 ** 63 - 1
#: the deepest rank of the ideal-ideal sums of alpha_DCG and ERR_IA while they still change
II_LIMIT = 1048576
_NAME = re.compile(r"^(?P<base>[^\s()@]+?)(?:\((?P<args>[^()]*)\))?(?:@(?P<cut>[0-9]+))?$")


def parse(name: str) -> Tuple[str, Optional[int], Dict[str, Any]]:
    """(measure, cutoff, params) of a diversity measure name such as
    ``alpha_nDCG(alpha=0.5)@20`` or ``nNRBP(beta=0.8)``."""
    m = _NAME.match(name.strip()) if isinstance(name, str) else None
    if not m:
        raise ValueError(f"bad diversity measure name {name!r}")
    base = ALIASES.get(m.group("base"), m.group("base"))
    if base not in MEASURES:
        raise ValueError(f"unknown diversity measure {name!r} (known: {', '.join(MEASURES)})")
    _, needs_cut = MEASURES[base]
    allowed = _KEYWORDS[base]
    params: Dict[str, Any] = {}
    for part in (m.group("args") or "").split(","):
        if not part.strip():
            continue
        k, eq, v = part.partition("=")
        k = k.strip()
        if not eq or k not in allowed:
            raise ValueError(f"measure {name!r}: parameter {part.strip()!r} is not one of {', '.join(allowed)}")
        params[k] = _PARAMS[k].parse(v.strip().strip("'\""), name)
    cut = int(m.group("cut")) if m.group("cut") is not None else None
    if needs_cut and (cut is None or cut < 1):
        raise ValueError(f"measure {name!r} needs a positive cutoff ({base}@k)")
    if not needs_cut and cut is not None:
        raise ValueError(f"measure {name!r} takes no cutoff")
    return base, cut, params


def _values(joined: Joined, base: str, cut: Optional[int], level: int, alpha: float, beta: float,
            cache: Optional[ResultCache]) -> np.ndarray:
    """One measure per query of ``joined`` (which must carry IntentTables):
    one kernel call per (level, alpha, beta, cutoff), shared through ``cache``."""
    t = joined.extra
    if not isinstance(t, IntentTables):
        raise ValueError(f"{base} needs intent-level judgments: evaluate against a DiversityQrels "
                         "(irscore.diversity.read_diversity_qrels / as_diversity_qrels; irscore eval --intents)")
    whole = cut is None
    level = min(int(level), 2 ** 31)     # grades are int32: every level above their range selects nothing
    if cut is not None and cut > _MAX_CUT:
        if cut != _MAX_CUT + 1:
            raise ValueError(f"{base}@{cut}: the cutoff must be at most 2**63 - 1, got {cut}")
        cut = _MAX_CUT

    def compute() -> np.ndarray:
        offsets = joined.offsets
        if np.any(joined.bogus):        # complete=True's stand-in rankings: empty (they hold no judged document)
            lengths = np.where(joined.bogus, 0, np.diff(offsets))
            offsets = np.zeros_like(offsets)
            np.cumsum(lengths, out=offsets[1:])
        cutoffs = np.asarray([] if cut is None else [cut], dtype=np.int64)
        out = np.zeros((offsets.shape[0] - 1, _PER_CUTOFF * cutoffs.shape[0] + 3), dtype=np.float64)

        def part(lo: int, hi: int) -> None:
            _diversity.diversity(offsets, t.judged_off, t.judged_pos, t.judged_row, t.row_off, t.int_off, t.intent,
                                 t.grade, t.n_intents, int(level), float(alpha), float(beta), cutoffs, whole, whole,
                                 out, lo, hi)
        # queries split by their judged rows (the work of the kernel)
        threads = _parallel.n_threads(joined.n_jobs, int(t.int_off[-1]) + int(t.judged_off[-1]))
        _parallel.run(part, _parallel.ranges_by_offsets(t.row_off, threads))
        return out

    key = ("diversity", level, alpha, beta, cut)
    out = compute() if cache is None else cache.get(key, compute)
    col, _ = MEASURES[base]
    values = out[:, col] if cut is not None else out[:, -1 - col]
    if base in ("alpha_DCG", "ERR_IA") and np.isnan(values).any():
        raise ValueError(f"{base}(alpha={alpha})@{cut}: its ideal-ideal normaliser still changes at rank "
                         f"{II_LIMIT} (alpha={alpha} is too small for the cutoff {cut}); use a cutoff of at most "
                         f"{II_LIMIT} or a larger alpha")
    return values


def compute_measure(joined: Joined, name: str, params: Dict[str, Any], level: int, cache: ResultCache
                    ) -> np.ndarray:
    """An intent-aware measure per query of ``joined``: the hook of
    [`irscore.evaluate`][irscore.evaluate] for the names declared in
    `irscore.core.registry` (the qrels must be a DiversityQrels)."""
    lv = level if params.get("rel") is None else params["rel"]
    base = "AP_IA" if name == "MAP_IA" else name
    return _values(joined, base, params.get("cutoff"), lv, params.get("alpha", 0.5), params.get("beta", 0.5), cache)


register(DIVERSITY_GROUP, compute_measure)


def evaluate(qrels: Any, run: Any, measures: Union[str, Sequence[str]], *, per_query: bool = False,
             relevance_level: int = 1) -> Union[Dict[str, float], Dict[str, Dict[str, float]]]:
    """Evaluate ``run`` against intent-level ``qrels`` with ndeval's measures.

    The same measures are available in [`irscore.evaluate`][irscore.evaluate] when its
    qrels are a [`DiversityQrels`][irscore.diversity.DiversityQrels] (then with every other measure, from
    one join); this function also reads the other qrels forms and ndeval's
    spellings (``alpha-nDCG@20``, ``strec@10``, ``α_nDCG@20``).

    Parameters
    ----------
    qrels : DiversityQrels, path, dict, iterable or DataFrame
        ``query intent document grade`` judgments ([`as_diversity_qrels`][irscore.diversity.evaluation.as_diversity_qrels]).
    run : Run, path, dict or DataFrame
        The ranking (as for [`irscore.evaluate`][irscore.evaluate]; rank order: score
        descending, equal scores by document id descending).
    measures : str or sequence of str
        Names: ``alpha_nDCG@k``, ``alpha_DCG@k``, ``ERR_IA@k``, ``nERR_IA@k``,
        ``P_IA@k``, ``StRecall@k``, ``NRBP``, ``nNRBP``, ``AP_IA``, with the
        parameters ``alpha`` (default 0.5), ``beta`` (NRBP, nNRBP; 0.5) and
        ``rel``.
    per_query : bool
        Return ``{name: {query_id: value}}`` instead of the means.
    relevance_level : int
        Grade from which a document is relevant to an intent (``rel=``
        overrides it per measure).

    Returns
    -------
    dict
        ``{name: mean}`` over the queries both judged and ranked, or the
        per-query values.

    Raises
    ------
    ValueError
        For an unknown name, bad parameters or no query in common.
    """
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names:
        raise ValueError("measures must name at least one measure")
    check_level(relevance_level)
    parsed = [(n, *parse(n)) for n in names]
    joined = as_diversity_qrels(qrels).join_run(run)
    cache = ResultCache()
    values: Dict[str, np.ndarray] = {}
    for name, base, cut, params in parsed:
        rel = params.get("rel")
        values[name] = _values(joined, base, cut, relevance_level if rel is None else rel,
                               params.get("alpha", 0.5), params.get("beta", 0.5), cache)
    if per_query:
        return {n: dict(zip(joined.query_ids, (float(x) for x in v))) for n, v in values.items()}
    return {n: float(np.mean(v)) for n, v in values.items()}
