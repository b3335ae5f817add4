"""INEX measures: inex_eval, inex_eval_ng, generalised precision (gP/MAgP), EPRUM, T2I."""
from __future__ import annotations

from typing import Dict, Mapping, Optional, Sequence, Union

from irscore.xml.context import EvalContext
from irscore.xml.inex_values import Navigation, compute_extra
from irscore.xml.model import Quantisation, XmlQrels, XmlRun
from irscore.xml.names import level_name, measure_family

# ---------------------------------------------------------------------------
# inex_eval, inex_eval_ng, gP/MAgP, GR/EPRUM, T2I
# ---------------------------------------------------------------------------


def inex_eval(qrels: XmlQrels, run: XmlRun, *, quantisation: Quantisation = "generalised", points: int = 100,
              collection_size: Optional[Union[int, Mapping[str, int]]] = None, ties: bool = True,
              complete: bool = False, precall: str = "published") -> Dict[str, Dict[str, float]]:
    """inex_eval (INEX 2002-2004): ``Precall[x]`` at x = 1/points .. 1 and their
    mean ``inex_eval``, per topic.

    Each result contributes q(e) expected relevant and 1 - q(e) non-relevant
    units (q of the assessed element it equals; 0 if unassessed).  N = sum of
    q over the topic's assessed elements.  Precision at recall x from
    Raghavan's expected search length with ties (``ties=True``: equal RSV =
    one group, the run order otherwise): P(x) = xN / (xN + j + s i / (r + 1)).
    ``collection_size`` (int or topic -> int): the unretrieved units form one
    final tie group of that many units; ``None`` (default): recall levels the
    run does not reach score 0.

    Parameters
    ----------
    qrels : XmlQrels
        The assessments.
    run : XmlRun
        The run, in rank order.
    quantisation : str, callable or mapping
        How (exhaustivity, specificity) becomes a relevance value: a name
        (``generalised``, ``strict``, ``inex2006``, ...; ``auto`` picks one for the
        assessments), a function ``f(exh, spe)`` or a mapping ``{(exh, spe):
        value}`` (docs/xml.md, quantisation).
    points : int
        Recall grid size.
    collection_size : int or mapping, optional
        Units in the collection (per topic when a mapping); the unretrieved ones
        form the final tie group.
    ties : bool, default True
        Expected precision over tied RSVs.
    complete : bool, default False
        Count every topic/query of the assessments; one without results scores 0.
    precall : {'published', 'reprec'}, default 'published'
        The reading of Precall: ``"published"`` (s = xN - k) or ``"reprec"``
        (RePrec 0.32's whole relevant units;
        ``compat="reprec"`` in [`irscore.xml.evaluate`][irscore.xml.evaluate]; docs/xml_compat.md).

    Returns
    -------
    dict of str to dict of str to float
        ``{measure name: {topic: value}}`` (topics that count for the measure).

    Raises
    ------
    ValueError, TypeError
        Bad inputs or options.
    """
    ctx = EvalContext(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation=quantisation, ideal_overlap="ancestor",
                   normalise=False, complete=complete)
    names = [f"Precall[{level_name(k, points)}]" for k in range(1, points + 1)] + ["inex_eval"]
    return compute_extra(ctx, names, {n: measure_family(n) for n in names},
                          {"precall_points": points, "collection_size": collection_size, "ties": ties,
                           "precall": precall})


def inex_eval_ng(qrels: XmlQrels, run: XmlRun, *, cutoffs: Sequence[int] = (5, 10, 25, 50),
                 complete: bool = False) -> Dict[str, Dict[str, float]]:
    """inex_eval_ng (INEX 2003) per topic: ``ngP_o@k``, ``ngR_o@k`` (overlap
    penalised) and ``ngP_s@k``, ``ngR_s@k`` (overlap := 0).

    P(k) = sum spe size (1 - overlap) / sum size (1 - overlap);
    R(k) = sum exh (1 - overlap) / sum of exh over every assessed element.
    Needs element assessments.

    Parameters
    ----------
    qrels : XmlQrels
        The assessments.
    run : XmlRun
        The run, in rank order.
    cutoffs : sequence of int
        The rank cutoffs k of the ``@k`` measures.
    complete : bool, default False
        Count every topic/query of the assessments; one without results scores 0.

    Returns
    -------
    dict of str to dict of str to float
        ``{measure name: {topic: value}}`` (topics that count for the measure).

    Raises
    ------
    ValueError, TypeError
        Bad inputs or options.
    """
    ctx = EvalContext(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation="generalised", ideal_overlap="ancestor",
                   normalise=False, complete=complete)
    names = [f"ng{x}_{v}@{k}" for v in "os" for k in cutoffs for x in "PR"]
    return compute_extra(ctx, names, {n: measure_family(n) for n in names}, {})


def generalized_precision(qrels: XmlQrels, run: XmlRun, *, task: str = "RiC", cutoffs: Sequence[int] = (5, 10, 25, 50),
                          ric_beta: float = 0.25, bep_distance: int = 500,
                          complete: bool = False) -> Dict[str, Dict[str, float]]:
    """Relevant-in-Context / Best-in-Context (INEX 2007+): ``gP_<task>@k`` and
    ``MAgP_<task>`` (per topic: AgP).

    Articles are ranked by their first result.  RiC: an article scores the
    F-beta (``ric_beta=0.25``) of the character precision and recall of all its
    retrieved text.  BiC: the entry point is the start of the article's first
    result; score = 1 - |x - bep| / n if closer than n = ``bep_distance``
    characters to the best entry point, else 0.  gP[r] = mean score of the
    first r articles; AgP = sum of gP[r] at relevant articles / number of
    relevant articles (articles with highlighted text).

    Parameters
    ----------
    qrels : XmlQrels
        The assessments.
    run : XmlRun
        The run, in rank order.
    task : {'RiC', 'BiC'}, default 'RiC'
        Relevant-in-Context or Best-in-Context.
    cutoffs : sequence of int
        The rank cutoffs k of the ``@k`` measures.
    ric_beta : float, default 0.25
        The beta of the Relevant-in-Context article score.
    bep_distance : int, default 500
        Best-in-Context distance n in characters.
    complete : bool, default False
        Count every topic/query of the assessments; one without results scores 0.

    Returns
    -------
    dict of str to dict of str to float
        ``{measure name: {topic: value}}`` (topics that count for the measure).

    Raises
    ------
    ValueError, TypeError
        Bad inputs or options.
    """
    if task not in ("RiC", "BiC"):
        raise ValueError(f"task must be 'RiC' or 'BiC', got {task!r}")
    ctx = EvalContext(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation="auto", ideal_overlap="ancestor",
                   normalise=False, complete=complete, use_elements=False)
    names = [f"gP_{task}@{k}" for k in cutoffs] + [f"MAgP_{task}"]
    return compute_extra(ctx, names, {n: measure_family(n) for n in names},
                         {"ric_beta": ric_beta, "bep_distance": bep_distance})


def eprum(qrels: XmlQrels, run: XmlRun, *, navigation: Optional[Navigation] = None,
          cutoffs: Sequence[int] = (5, 10, 25, 50), points: int = 10, quantisation: Quantisation = "auto",
          ideal_overlap: str = "ancestor", complete: bool = False) -> Dict[str, Dict[str, float]]:
    """GR and EPRUM with a caller-given navigation model ``navigation(result,
    ideal) -> P(j ~> x)`` (default [`default_navigation`][irscore.xml.default_navigation]): ``GR@k`` and
    ``EPRUM[x]`` for x = 1/points .. 1, per topic.

    P(x seen by k) = 1 - prod_{j<=k} (1 - P(j ~> x)); GR(k) = sum g(x)
    P(x seen by k) / sum g(x) over the ideal set.  EPRUM precision at recall l:
    E[m*(l) / K(l)] where m*(l) = min{i : xCI[i] >= l sum g} (the ideal list)
    and K(l) the first rank at which the discovered ideal gain reaches
    l sum g (infinite, i.e. ratio 0, if never); the expectation is exact, by
    dynamic programming over the independent discovery events.

    Parameters
    ----------
    qrels : XmlQrels
        The assessments.
    run : XmlRun
        The run, in rank order.
    navigation : callable, optional
        ``nav(result_span, ideal_span) -> probability`` (default
        [`default_navigation`][irscore.xml.default_navigation]).
    cutoffs : sequence of int
        The rank cutoffs k of the ``@k`` measures.
    points : int
        Recall grid size.
    quantisation : str, callable or mapping
        How (exhaustivity, specificity) becomes a relevance value: a name
        (``generalised``, ``strict``, ``inex2006``, ...; ``auto`` picks one for the
        assessments), a function ``f(exh, spe)`` or a mapping ``{(exh, spe):
        value}`` (docs/xml.md, quantisation).
    ideal_overlap : {'ancestor', 'none'}, default 'ancestor'
        How the ideal recall base removes overlap (docs/xml.md, ideal recall base).
    complete : bool, default False
        Count every topic/query of the assessments; one without results scores 0.

    Returns
    -------
    dict of str to dict of str to float
        ``{measure name: {topic: value}}`` (topics that count for the measure).

    Raises
    ------
    ValueError, TypeError
        Bad inputs or options.
    """
    ctx = EvalContext(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation=quantisation, ideal_overlap=ideal_overlap,
                   normalise=False, complete=complete)
    names = [f"GR@{k}" for k in cutoffs] + [f"EPRUM[{level_name(k, points)}]" for k in range(1, points + 1)]
    return compute_extra(ctx, names, {n: measure_family(n) for n in names},
                          {"navigation": navigation, "eprum_points": points})


def t2i(qrels: XmlQrels, run: XmlRun, *, tolerance: int = 500, cutoffs: Sequence[int] = (5, 10, 25, 50),
        complete: bool = False) -> Dict[str, Dict[str, float]]:
    """Tolerance to irrelevance (de Vries, Kazai & Lalmas 2004), as
    docs/xml.md, T2I operationalises it: for each result in rank order the user starts reading
    at its start offset and reads forward through the document until
    ``tolerance`` consecutive non-relevant characters have been read (those
    included) or the document ends (the document length from the qrels; the
    span's end when unknown).  gain = highlighted characters read for the
    first time; effort = characters read (re-reading counts).
    ``T2IP@k`` = cumulated gain / cumulated effort, ``T2IR@k`` = cumulated
    gain / Trel.

    Parameters
    ----------
    qrels : XmlQrels
        The assessments.
    run : XmlRun
        The run, in rank order.
    tolerance : int, default 500
        Consecutive non-relevant characters tolerated before the reader stops.
    cutoffs : sequence of int
        The rank cutoffs k of the ``@k`` measures.
    complete : bool, default False
        Count every topic/query of the assessments; one without results scores 0.

    Returns
    -------
    dict of str to dict of str to float
        ``{measure name: {topic: value}}`` (topics that count for the measure).

    Raises
    ------
    ValueError, TypeError
        Bad inputs or options.
    """
    ctx = EvalContext(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation="auto", ideal_overlap="ancestor",
                   normalise=False, complete=complete, use_elements=False)
    names = [f"T2I{x}@{k}" for k in cutoffs for x in "PR"]
    return compute_extra(ctx, names, {n: measure_family(n) for n in names}, {"tolerance": tolerance})
