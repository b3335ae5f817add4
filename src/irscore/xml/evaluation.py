"""``evaluate``: many XML measures of every family in one pass."""
from __future__ import annotations

from typing import Any, Dict, Literal, Mapping, Optional, Sequence, Union, overload

from irscore.core.aggregate import running_mean
from irscore.xml import inex2008
from irscore.xml.context import EvalContext
from irscore.xml.focused import compute_focused
from irscore.xml.inex_values import Navigation, compute_extra
from irscore.xml.model import Quantisation, XmlQrels, XmlRun
from irscore.xml.names import DEFAULT_MEASURES, measure_family


def _summary(name: str, per_topic: Mapping[str, float]) -> float:
    if not per_topic:
        return 0.0
    return running_mean(list(per_topic.values()))  # a running sum, as trec_eval


@overload
def evaluate(qrels: XmlQrels, run: XmlRun, measures: Union[str, Sequence[str], None] = ..., *,
             per_query: Literal[False] = ..., **kwargs: Any) -> Dict[str, float]: ...
@overload
def evaluate(qrels: XmlQrels, run: XmlRun, measures: Union[str, Sequence[str], None] = ..., *,
             per_query: Literal[True], **kwargs: Any) -> Dict[str, Dict[str, float]]: ...
@overload
def evaluate(qrels: XmlQrels, run: XmlRun, measures: Union[str, Sequence[str], None] = ..., *,
             per_query: bool, **kwargs: Any) -> Union[Dict[str, float], Dict[str, Dict[str, float]]]: ...


def evaluate(
    qrels: XmlQrels,
    run: XmlRun,
    measures: Union[str, Sequence[str], None] = None,
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
    hix_beta: float = 1.0,
    seen: str = "ancestor",
    complete: bool = False,
    ric_beta: Optional[float] = None,
    bep_distance: Optional[int] = None,
    tolerance: Optional[int] = None,
    navigation: Optional[Navigation] = None,
    eprum_points: Optional[int] = None,
    collection_size: Optional[Union[int, Mapping[str, int]]] = None,
    precall_points: Optional[int] = None,
    ties: Optional[bool] = None,
    compat: Optional[str] = None,
    **unknown: Any,
) -> Union[Dict[str, float], Dict[str, Dict[str, float]]]:
    """Compute many XML measures in one pass.

    Parameters
    ----------
    qrels : XmlQrels
        The assessments.
    run : XmlRun
        The run.
    measures : str or sequence of str, optional
        Measure names as in the CLI (``iP[0.01]``, ``MAiP``, ``nxCG@10``,
        ``MAep``, ``hixF@10``, ``MAgP_RiC``, ``GR@5``, ``T2IP@10`` ...);
        default `DEFAULT_MEASURES`.
    per_query : bool, default False
        Return the value of every counted topic instead of the mean.
    alpha, hix_alpha : float
        XCG's overlap penalty (1: Focused, 0: Thorough) and HiXEval's
        (``hix_alpha`` defaults to ``alpha``).
    quantisation, ideal_overlap, normalise, maep_denominator, points, bucketing, run_overlap, seen
        The readings of XCG and interpolated precision (docs/xml.md, "Readings
        chosen"); as in [`xcg`][irscore.xml.xcg] and [`interpolated_precision`][irscore.xml.interpolated_precision].
    trel : {"highlighted", "thorough"} or mapping, default "highlighted"
        HiXEval's Trel (see [`hixeval`][irscore.xml.hixeval]).
    hix_beta : float, default 1.0
        The beta of HiXEval's F-beta (``hixF@k``).
    complete : bool, default False
        Count every qrels topic (a topic without results scores 0).
    ric_beta : float, optional
        The beta of the Relevant-in-Context article score (gP/MAgP RiC;
        default 0.25).
    bep_distance : int, optional
        Best-in-Context distance n in characters (default 500).
    tolerance : int, optional
        T2I's tolerated consecutive non-relevant characters (default 500).
    navigation : callable, optional
        GR/EPRUM navigation model (default [`default_navigation`][irscore.xml.default_navigation]).
    eprum_points : int, optional
        EPRUM recall grid (default 10).
    collection_size : int or mapping, optional
        inex_eval: units in the collection (per topic when a mapping).
    precall_points : int, optional
        inex_eval's recall grid (default 100).
    ties : bool, optional
        inex_eval: expected precision over tied RSVs (default True).
    compat : {None, 'inex2008', 'reprec'}
        ``None``: the published definitions. ``"inex2008"``: iP, MAiP, gP and
        MAgP exactly as inex_eval v1.0 (INEX 2008) computes them (read the files
        with the same ``compat``; `irscore.xml.inex2008`). ``"reprec"``:
        ``Precall[x]``/``inex_eval`` as RePrec 0.32 (whole relevant units).
        docs/xml_compat.md says which setting reproduces which tool.

    Returns
    -------
    dict
        ``{name: mean over counted topics}`` or, with ``per_query=True``,
        ``{name: {topic: value}}``.  A topic counts if it is in the qrels and
        the run (``complete=True``: every qrels topic) and has relevant material
        for the measure (highlighted text for HiXEval/iP/gP, an ideal element
        for XCG/GR/EPRUM, an assessed exhaustive element for inex_eval_ng).

    Raises
    ------
    ValueError
        An unknown measure name or a bad option value.
    TypeError
        ``qrels``/``run`` of the wrong type, an unknown option, or an option of
        a family none of ``measures`` belongs to.
    """
    if isinstance(measures, str):
        measures = [measures]
    names = list(measures) if measures is not None else list(DEFAULT_MEASURES)
    given = dict(ric_beta=ric_beta, bep_distance=bep_distance, tolerance=tolerance, navigation=navigation,
                 eprum_points=eprum_points, collection_size=collection_size, precall_points=precall_points,
                 ties=ties)
    options: Dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    options.update(unknown)          # reported as unexpected options below
    if inex2008.check_compat(compat) == "inex2008":
        extra = options.keys() - {"ric_beta", "bep_distance"}
        if extra:
            raise TypeError(f"unexpected options {sorted(extra)!r} with compat='inex2008'")
        gp = {("beta_ric" if k == "ric_beta" else k): v for k, v in options.items()}
        return inex2008.evaluate(qrels, run, names, per_query=per_query, complete=complete, points=points, **gp)
    fams = {n: measure_family(n) for n in names}
    ctx = EvalContext(qrels, run, alpha=alpha, hix_alpha=alpha if hix_alpha is None else hix_alpha,
                      quantisation=quantisation, ideal_overlap=ideal_overlap, normalise=normalise,
                      complete=complete, seen=seen)
    core = [n for n in names if fams[n] in ("xcg", "iep", "maep", "epgr", "hix", "ip", "aip")]
    res = compute_focused(ctx, core, maep_denominator=maep_denominator, points=points, bucketing=bucketing,
                          run_overlap=run_overlap, trel=trel, beta=hix_beta) if core else {}
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
