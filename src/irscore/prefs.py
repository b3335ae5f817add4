"""trec_eval's preference judgments (``-R prefs``, ``-R qrels_prefs``) and its
``prefs_*`` measures (definitions: docs/classic.md, "Preference judgments").

A *prefs* file has one line per judgment, ``qid jg jsg docno rel_level``: within
a judgment sub-group (``jsg``) of a judgment group (``jg``) every document is
preferred to every document of a lower ``rel_level``; the sub-groups of a group
combine into one partial order (with its transitive preferences), different
groups may disagree.  A *qrels_prefs* file is an ordinary qrels file read as
preferences: ``qid jg docno rel_level``, one sub-group per group.  Levels are
numbers; 0 means nonrelevant.

The counting is native (``irscore._prefs``); this module reads the files, ranks
each query's judged documents as trec_eval does (retrieved ones in ranking
order, score descending and ties by document id ascending, then the others by
document id) and sums the per-query values as trec_eval does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from irscore import _prefs
from irscore.core.aggregate import running_sum
from irscore.core.data import Run
from irscore.core.files import check_path, read_text
from irscore.core.io import as_run

__all__ = ["PREFS_MEASURES", "PREFS_SETS", "Prefs", "read_prefs", "read_qrels_prefs", "evaluate_prefs",
           "prefs_matrix"]

#: trec_eval's preference measures, in its order (``all_prefs``)
PREFS_MEASURES: List[str] = [
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp"]

#: the measures that are counts (summed over queries, printed as integers)
COUNTS = frozenset(PREFS_MEASURES[:3])

#: trec_eval's measure sets of preference measures (``runid`` and ``num_q`` included)
PREFS_SETS: Dict[str, List[str]] = {
    "prefs": ["runid", "num_q"] + PREFS_MEASURES[:6],
    "all_prefs": ["runid", "num_q"] + PREFS_MEASURES,
}

_STATUS = {1: "contradictory preferences (a document preferred to another and that one to it)",
           2: "a document with rel_level 0 in one sub-group and a positive rel_level in another",
           3: "a document judged twice in one judgment sub-group"}

# a decimal number as C's atof reads it (no hex, inf or nan)
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")


@dataclass
class Prefs:
    """Preference judgments: for each query, its lines (judgment group,
    sub-group, document id, level).

    Attributes
    ----------
    query_ids : list of str
        The queries, in trec_eval's order (byte order of the ids).
    lines : dict
        ``{qid: [(jg, jsg, docno, level), ...]}``.
    source : str
        Where the judgments came from (for messages).
    """

    query_ids: List[str]
    lines: Dict[str, List[Tuple[str, str, str, float]]]
    source: str = "prefs"

    @classmethod
    def from_dict(cls, prefs: Mapping[str, Mapping[str, Any]], *, qrels_prefs: bool = False) -> "Prefs":
        """Build from ``{qid: {jg: {jsg: {docno: level}}}}`` (or, with
        ``qrels_prefs``, ``{qid: {jg: {docno: level}}}``, one sub-group per
        group).

        Parameters
        ----------
        prefs : mapping
            The nested judgments.
        qrels_prefs : bool, default False
            Read the mapping as qrels (no sub-group level).

        Returns
        -------
        Prefs
        """
        lines: Dict[str, List[Tuple[str, str, str, float]]] = {}
        for qid, groups in prefs.items():
            out = lines.setdefault(str(qid), [])
            for jg, sub in groups.items():
                subs = {"0": sub} if qrels_prefs else sub
                for jsg, docs in subs.items():
                    for doc, lv in docs.items():
                        out.append((str(jg), str(jsg), str(doc), _level(lv, f"query {qid!r} document {doc!r}")))
        lines = {q: v for q, v in lines.items() if v}
        if not lines:
            raise ValueError("prefs: no judgments")
        return cls(sorted(lines, key=_bytes_key), lines, "prefs")


def _bytes_key(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


def _level(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{where}: rel_level {value!r} is not a number")
    v = float(value)
    if not np.isfinite(v):
        raise ValueError(f"{where}: rel_level {value!r} is not finite")
    return v


def _read(path: Any, qrels_prefs: bool) -> Prefs:
    what = "qrels_prefs" if qrels_prefs else "prefs"
    want = "qid jg docno rel_level" if qrels_prefs else "qid jg jsg docno rel_level"
    n_fields = 4 if qrels_prefs else 5
    name = check_path(path, what)
    lines: Dict[str, List[Tuple[str, str, str, float]]] = {}
    where: Dict[Tuple[str, str, str, str], str] = {}
    for lineno, line in enumerate(read_text(name, what).splitlines(), 1):
        if line.startswith("#"):
            continue
        f = line.split()
        if len(f) != n_fields:
            raise ValueError(f"{name}:{lineno}: malformed {what} line (want '{want}', got {len(f)} fields)")
        if qrels_prefs:
            f.insert(2, "0")
        if not _NUMBER.match(f[4]):
            raise ValueError(f"{name}:{lineno}: rel_level {f[4]!r} is not a number")
        key = (f[0], f[1], f[2], f[3])
        if key in where:
            raise ValueError(f"{name}:{lineno}: document {f[3]!r} judged twice in query {f[0]!r}, judgment group "
                             f"{f[1]!r}" + ("" if qrels_prefs else f", sub-group {f[2]!r}") + f" (first at {where[key]})")
        where[key] = f"line {lineno}"
        lines.setdefault(f[0], []).append((f[1], f[2], f[3], float(f[4])))
    if not lines:
        raise ValueError(f"{name}: empty {what} file (no data lines)")
    return Prefs(sorted(lines, key=_bytes_key), lines, name)


def read_prefs(path: Any) -> Prefs:
    """Read trec_eval's ``prefs`` file (``qid jg jsg docno rel_level`` per line;
    lines starting with ``#`` are comments).

    Parameters
    ----------
    path : str or path-like
        The file (plain or gzip).

    Returns
    -------
    Prefs

    Raises
    ------
    ValueError
        A line without exactly 5 fields, a level that is not a number, a
        document judged twice in one sub-group (the message names file and line).
    """
    return _read(path, False)


def read_qrels_prefs(path: Any) -> Prefs:
    """Read a qrels file as preferences (trec_eval's ``-R qrels_prefs``): ``qid
    jg docno rel_level``, the second column naming the judgment group, one
    sub-group per group.

    Parameters
    ----------
    path : str or path-like
        The file (plain or gzip).

    Returns
    -------
    Prefs

    Raises
    ------
    ValueError
        A line without exactly 4 fields, a level that is not a number, a
        document judged twice in one group (the message names file and line).
    """
    return _read(path, True)


def _as_prefs(prefs: Any, format: str) -> Prefs:
    if format not in ("prefs", "qrels_prefs"):
        raise ValueError(f"format must be 'prefs' or 'qrels_prefs', got {format!r}")
    if isinstance(prefs, Prefs):
        return prefs
    if isinstance(prefs, Mapping):
        return Prefs.from_dict(prefs, qrels_prefs=format == "qrels_prefs")
    return _read(prefs, format == "qrels_prefs")


def _ranked_docs(run: Run, index: Dict[str, int], qid: str, max_docs: Optional[int]) -> Tuple[List[str], int]:
    """The query's documents in trec_eval's preference order (score descending,
    ties by document id ascending), each once, cut to ``max_docs``; and the
    number of repeated entries dropped."""
    q = index.get(qid)
    if q is None:
        return [], 0
    docs = run.doc_ids(qid)
    scores = run.scores[int(run.offsets[q]):int(run.offsets[q + 1])].tolist()
    order = sorted(range(len(docs)), key=lambda i: (-scores[i], _bytes_key(docs[i])))
    seen = set()
    out: List[str] = []
    for i in order:
        if docs[i] not in seen:
            seen.add(docs[i])
            out.append(docs[i])
    n_dup = len(docs) - len(out)
    if max_docs is not None:
        out = out[:max_docs]
    return out, n_dup


def prefs_matrix(prefs: Any, run: Any, *, format: Literal["prefs", "qrels_prefs"] = "prefs",
                 complete: bool = False, max_docs: Optional[int] = None
                 ) -> Tuple[List[str], np.ndarray, str, int]:
    """The 14 preference measures of every evaluated query.

    Parameters
    ----------
    prefs : Prefs, dict or path
        The judgments (see :func:`evaluate_prefs`).
    run : Run, dict, DataFrame or path
        The rankings.
    format : {"prefs", "qrels_prefs"}
        How a path or dict is read.
    complete : bool, default False
        Evaluate every query of the judgments (a query without a ranking has an
        empty one), as trec_eval's ``-c``.
    max_docs : int, optional
        Cut each ranking to this many documents (``-M``).

    Returns
    -------
    tuple
        (query ids, matrix ``[query, measure]`` in :data:`PREFS_MEASURES` order,
        run id, number of repeated run entries dropped).
    """
    p = _as_prefs(prefs, format)
    run_ = as_run(run)
    if max_docs is not None and (isinstance(max_docs, bool) or not isinstance(max_docs, (int, np.integer))
                                 or max_docs < 0):
        raise ValueError(f"max_docs must be a non-negative int, got {max_docs!r}")
    index = {q: i for i, q in enumerate(run_.query_ids)}
    qids = [q for q in p.query_ids if complete or q in index]
    if not qids:
        raise ValueError("no query has both preference judgments and a ranking")
    q_off = [0]
    cols: Dict[str, List[Any]] = {"jg": [], "jsg": [], "level": [], "rank": []}
    n_judged: List[int] = []
    n_ret: List[int] = []
    n_dup = 0
    group_names: List[List[str]] = []
    for qid in qids:
        lines = p.lines[qid]
        judged = sorted({d for _, _, d, _ in lines}, key=_bytes_key)
        ranked, dup = _ranked_docs(run_, index, qid, max_docs)
        n_dup += dup
        jset = set(judged)
        rank_of = {d: r for r, d in enumerate(x for x in ranked if x in jset)}
        njr = len(rank_of)
        for d in judged:
            if d not in rank_of:
                rank_of[d] = len(rank_of)
        jg_names = sorted({g for g, _, _, _ in lines}, key=_bytes_key)
        jsg_names = sorted({s for _, s, _, _ in lines}, key=_bytes_key)
        jg_i = {g: i for i, g in enumerate(jg_names)}
        jsg_i = {s: i for i, s in enumerate(jsg_names)}
        jg_a = np.fromiter((jg_i[g] for g, _, _, _ in lines), np.int64, len(lines))
        jsg_a = np.fromiter((jsg_i[s] for _, s, _, _ in lines), np.int64, len(lines))
        lv_a = np.fromiter((lv for _, _, _, lv in lines), np.float64, len(lines))
        rk_a = np.fromiter((rank_of[d] for _, _, d, _ in lines), np.int64, len(lines))
        order = np.lexsort((rk_a, -lv_a, jsg_a, jg_a))
        for k, a in (("jg", jg_a), ("jsg", jsg_a), ("level", lv_a), ("rank", rk_a)):
            cols[k].append(a[order])
        q_off.append(q_off[-1] + len(lines))
        n_judged.append(len(judged))
        n_ret.append(njr)
        group_names.append(jg_names)
    nq = len(qids)
    out = np.zeros((nq, _prefs.N_OUT), dtype=np.float64)
    status = np.zeros(nq, dtype=np.int64)
    bad = np.zeros(nq, dtype=np.int64)
    _prefs.counts(np.asarray(q_off, np.int64), np.concatenate(cols["jg"]), np.concatenate(cols["jsg"]),
                  np.concatenate(cols["level"]), np.concatenate(cols["rank"]), np.asarray(n_judged, np.int64),
                  np.asarray(n_ret, np.int64), out, status, bad)
    for e in np.flatnonzero(status):
        qid = qids[int(e)]
        jg = group_names[int(e)][int(bad[e])]
        raise ValueError(f"{p.source}: query {qid!r}, judgment group {jg!r}: {_STATUS[int(status[e])]}")
    return qids, out, run_.run_id, n_dup


def _selected(measures: Union[str, Sequence[str]]) -> List[str]:
    """Measure names (sets expanded) in trec_eval's order, without runid/num_q."""
    names = [measures] if isinstance(measures, str) else list(measures)
    chosen = set()
    for m in names:
        if not isinstance(m, str):
            raise TypeError(f"a measure name must be a str, got {m!r}")
        if m in PREFS_SETS:
            chosen.update(PREFS_SETS[m][2:])
        elif m in PREFS_MEASURES:
            chosen.add(m)
        elif m not in ("runid", "num_q"):
            raise ValueError(f"unknown preference measure {m!r} (measures: {', '.join(PREFS_MEASURES)}; "
                             f"sets: {', '.join(PREFS_SETS)})")
    return [m for m in PREFS_MEASURES if m in chosen]


def summary(name: str, column: np.ndarray) -> float:
    """trec_eval's summary of one preference measure's per-query column: the
    sum for the counts, else the running sum divided by the number of queries."""
    total = running_sum(column)
    return total if name in COUNTS else total / len(column)


def evaluate_prefs(prefs: Any, run: Any, measures: Union[str, Sequence[str]] = "prefs", *,
                   format: Literal["prefs", "qrels_prefs"] = "prefs", per_query: bool = False,
                   complete: bool = False, max_docs: Optional[int] = None
                   ) -> Union[Dict[str, float], Dict[str, Dict[str, float]]]:
    """Evaluate ``run`` with trec_eval's preference measures.

    Parameters
    ----------
    prefs : Prefs, dict or path
        The judgments: a :class:`Prefs`, the path of a ``prefs`` file (``qid jg
        jsg docno rel_level``) or, with ``format="qrels_prefs"``, of a qrels
        file read as preferences (``qid jg docno rel_level``); or a dict
        ``{qid: {jg: {jsg: {docno: level}}}}`` (``{qid: {jg: {docno: level}}}``
        with ``format="qrels_prefs"``).
    run : Run, dict, DataFrame or path
        The rankings (as for :func:`irscore.evaluate`).
    measures : str or sequence of str, default "prefs"
        Measure names (:data:`PREFS_MEASURES`) and sets (``prefs``,
        ``all_prefs``); results come in trec_eval's order.
    format : {"prefs", "qrels_prefs"}, default "prefs"
        How a path or dict given as ``prefs`` is read.
    per_query : bool, default False
        Return ``{name: {query_id: value}}`` instead of ``{name: summary}``.
    complete : bool, default False
        trec_eval's ``-c``: every judged query counts, one without a ranking
        has an empty one.
    max_docs : int, optional
        trec_eval's ``-M``: cut each ranking to this many documents.

    Returns
    -------
    dict
        ``{name: summary}``: the sum over queries for the counts
        (``prefs_num_prefs_*``), the mean for the others; or the per-query
        values.

    Raises
    ------
    ValueError
        Malformed judgments (naming file and line), contradictory preferences
        within a judgment group, an unknown measure, no query with both
        judgments and a ranking.
    """
    names = _selected(measures)
    qids, matrix, _, _ = prefs_matrix(prefs, run, format=format, complete=complete, max_docs=max_docs)
    cols = {m: matrix[:, PREFS_MEASURES.index(m)] for m in names}
    if per_query:
        return {m: dict(zip(qids, map(float, c))) for m, c in cols.items()}
    return {m: summary(m, c) for m, c in cols.items()}
