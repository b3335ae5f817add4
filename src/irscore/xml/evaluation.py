"""``evaluate``: many XML measures of every family in one pass."""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence, Union

import numpy as np

from irscore.xml import inex2008
from irscore.xml.context import EvalContext
from irscore.xml.focused import compute_focused
from irscore.xml.inex import compute_extra
from irscore.xml.model import Quantisation, XmlQrels, XmlRun
from irscore.xml.names import DEFAULT_MEASURES, measure_family


def _summary(name: str, per_topic: Mapping[str, float]) -> float:
    if not per_topic:
        return 0.0
    return float(np.mean(list(per_topic.values())))


def evaluate(
    qrels: XmlQrels,
    run: XmlRun,
    measures: Optional[Sequence[str]] = None,
    *,
    per_query: bool = False,
    alpha: float = 1.0,
    hix_alpha: Optional[float] = None,
    quantisation: Quantisation = "auto",
    ideal_overlap: str = "ancestor",
    normalise: bool = True,
    maep_denominator: str = "ideal",
    points: int = 100,
    bucketing: str = "exact",
    run_overlap: str = "novel",
    trel: Union[str, Mapping[str, float]] = "highlighted",
    beta: float = 1.0,
    seen: str = "ancestor",
    complete: bool = False,
    compat: Optional[str] = None,
    **options: Any,
) -> Dict[str, Any]:
    """Compute many XML measures in one pass.

    ``measures``: names as in the CLI (default :data:`DEFAULT_MEASURES`).
    Returns ``{name: mean over counted topics}`` or, with ``per_query=True``,
    ``{name: {topic: value}}``.  A topic counts if it is in the qrels and the
    run (``complete=True``: every qrels topic, a missing run scores 0) and has
    relevant material for the measure (highlighted text for HiXEval/iP/gP, an
    ideal element for XCG/GR/EPRUM, an assessed exhaustive element for
    inex_eval_ng).  ``hix_alpha`` defaults to ``alpha``.  Options of the
    other families (``beta_ric``, ``bep_distance``, ``tolerance``, ``navigation``,
    ``collection_size``, ``precall_points``) are passed through ``options``.

    ``compat``: ``None`` (the published definitions), ``"inex2008"`` (iP,
    MAiP, gP, MAgP exactly as inex_eval v1.0, INEX 2008: read the files with
    the same ``compat``; see :mod:`irscore.xml.inex2008`) or ``"reprec"``
    (``Precall[x]``/``inex_eval`` as RePrec 0.32: whole relevant units).
    """
    if isinstance(measures, str):
        raise TypeError("measures must be a list of names, not a string")
    names = list(measures) if measures is not None else list(DEFAULT_MEASURES)
    if inex2008.check_compat(compat) == "inex2008":
        if options.keys() - {"beta_ric", "bep_distance"}:
            raise TypeError(f"unexpected options {sorted(options.keys() - {'beta_ric', 'bep_distance'})!r}")
        return inex2008.evaluate(qrels, run, names, per_query=per_query, complete=complete, points=points,
                                 **options)
    fams = {n: measure_family(n) for n in names}
    ctx = EvalContext(qrels, run, alpha=alpha, hix_alpha=alpha if hix_alpha is None else hix_alpha,
                   quantisation=quantisation, ideal_overlap=ideal_overlap, normalise=normalise,
                   complete=complete, seen=seen)
    core = [n for n in names if fams[n] in ("xcg", "iep", "maep", "epgr", "hix", "ip", "aip")]
    res = compute_focused(ctx, core, maep_denominator=maep_denominator, points=points, bucketing=bucketing,
                   run_overlap=run_overlap, trel=trel, beta=beta) if core else {}
    rest = [n for n in names if n not in res]
    if compat == "reprec" and any(fams[n] in ("precall", "inex_eval") for n in rest):
        options = {**options, "precall": "reprec"}
    if rest:
        res.update(compute_extra(ctx, rest, fams, options))
    elif options:
        raise TypeError(f"unexpected options {sorted(options)!r}")
    if per_query:
        return {n: res[n] for n in names}
    return {n: _summary(n, res[n]) for n in names}
