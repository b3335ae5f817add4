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
import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from irscore import _prefs
from irscore.core.aggregate import running_sum
from irscore.core.data import Run
from irscore.core.files import check_path, fields, read_text, text_lines
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
        negative = [(q, d) for q, v in lines.items() for _, _, d, lv in v if lv < 0]
        _warn_negative(negative, f"query {negative[0][0]!r} document {negative[0][1]!r}" if negative else "",
                       "qrels_prefs" if qrels_prefs else "prefs")
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
    negative: List[int] = []
    # lines end at "\n" only; fields split on ASCII white space (the qrels reader's rule)
    for lineno, line in enumerate(text_lines(read_text(name, what)), 1):
        if line.startswith("#"):
            continue
        f = fields(line)
        if len(f) != n_fields:
            raise ValueError(f"{name}:{lineno}: malformed {what} line (want '{want}', got {len(f)} fields)")
        if qrels_prefs:
            f.insert(2, "0")
        if not _NUMBER.match(f[4]):
            raise ValueError(f"{name}:{lineno}: rel_level {f[4]!r} is not a number")
        if float(f[4]) < 0:
            negative.append(lineno)
        key = (f[0], f[1], f[2], f[3])
        if key in where:
            raise ValueError(f"{name}:{lineno}: document {f[3]!r} judged twice in query {f[0]!r}, judgment group "
                             f"{f[1]!r}" + ("" if qrels_prefs else f", sub-group {f[2]!r}") + f" (first at {where[key]})")
        where[key] = f"line {lineno}"
        lines.setdefault(f[0], []).append((f[1], f[2], f[3], float(f[4])))
    if not lines:
        raise ValueError(f"{name}: empty {what} file (no data lines)")
    _warn_negative(negative, f"{name}:{negative[0]}" if negative else "", what)
    return Prefs(sorted(lines, key=_bytes_key), lines, name)


def _warn_negative(negative: List[Any], where: str, what: str) -> None:
    """One warning for negative levels: the format allows only non-negative
    ones (trec_eval reads outside its arrays on them); they are used as given."""
    if negative:
        n = len(negative)
        warnings.warn(f"{where}: negative rel_level ({n} {'judgment' if n == 1 else 'judgments'}): the {what} "
                      "format allows only non-negative levels (trec_eval's results on them are undefined); "
                      "irscore orders them as given", UserWarning, stacklevel=4)


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


def _run_docs(run: Run) -> np.ndarray:
    """The run's document ids as one fixed-width bytes array (entry order),
    gathered from the id buffer without a Python call per entry."""
    n = int(run.offsets[-1])
    width = int(run.doc_len.max()) if n else 1
    if n == 0 or width == 0:
        return np.zeros(n, dtype="S1")
    cols = np.arange(width, dtype=np.int64)
    idx = run.doc_start.astype(np.int64)[:, None] + cols[None, :]
    buf = np.asarray(run.doc_buf, dtype=np.uint8)
    mat = buf[np.minimum(idx, buf.shape[0] - 1)]
    mat[cols[None, :] >= run.doc_len.astype(np.int64)[:, None]] = 0
    return np.ascontiguousarray(mat).view(f"S{width}").reshape(n)


def _cumcount(group: np.ndarray) -> np.ndarray:
    """Position of each element within its run of equal (sorted) group values."""
    n = group.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    start = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    return np.arange(n, dtype=np.int64) - np.repeat(start, np.diff(np.r_[start, n]))


def prefs_matrix(prefs: Any, run: Any, *, format: Literal["prefs", "qrels_prefs"] = "prefs",
                 complete: bool = False, max_docs: Optional[int] = None
                 ) -> Tuple[List[str], np.ndarray, str, int]:
    """The 14 preference measures of every evaluated query.

    Parameters
    ----------
    prefs : Prefs, dict or path
        The judgments (see [`evaluate_prefs`][irscore.prefs.evaluate_prefs]).
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
        (query ids, matrix ``[query, measure]`` in [`PREFS_MEASURES`][irscore.prefs.PREFS_MEASURES] order,
        run id, number of repeated run entries dropped).
    """
    p = _as_prefs(prefs, format)
    run_ = as_run(run)
    if max_docs is not None and (isinstance(max_docs, bool) or not isinstance(max_docs, (int, np.integer))
                                 or max_docs < 0):
        raise ValueError(f"max_docs must be a non-negative int, got {max_docs!r}")
    in_run = set(run_.query_ids)
    qids = [q for q in p.query_ids if complete or q in in_run]
    if not qids:
        raise ValueError("no query has both preference judgments and a ranking")
    nq = len(qids)
    pos = {q: e for e, q in enumerate(qids)}
    # the judgments, one entry per line, by evaluated query
    counts = np.fromiter((len(p.lines[q]) for q in qids), np.int64, nq)
    flat = [t for q in qids for t in p.lines[q]]
    jg_s, jsg_s, doc_s, lv = zip(*flat)
    e_q = np.repeat(np.arange(nq, dtype=np.int64), counts)
    jg_names, e_jg = np.unique(np.array(jg_s), return_inverse=True)
    _, e_jsg = np.unique(np.array(jsg_s), return_inverse=True)
    e_lv = np.asarray(lv, dtype=np.float64)
    e_doc = np.char.encode(np.array(doc_s), "utf-8", "surrogateescape")
    # the run's entries of the evaluated queries
    r_q = np.repeat(np.array([pos.get(q, -1) for q in run_.query_ids], dtype=np.int64), np.diff(run_.offsets))
    r_doc = _run_docs(run_)
    r_score = np.asarray(run_.scores, dtype=np.float64)
    keep = r_q >= 0
    r_q, r_doc, r_score = r_q[keep], r_doc[keep], r_score[keep]
    # one document numbering for both, in byte order of the ids
    _, ids = np.unique(np.concatenate([e_doc.astype(np.bytes_), r_doc.astype(np.bytes_)]), return_inverse=True)
    ids = ids.astype(np.int64)
    n_ids = int(ids.max()) + 1
    e_id, r_id = ids[:e_doc.shape[0]], ids[e_doc.shape[0]:]
    # trec_eval's preference order: score descending, ties by document id ascending;
    # a repeated document keeps its first (best) place; then -M
    order = np.lexsort((r_id, -r_score, r_q))
    r_q, r_id = r_q[order], r_id[order]
    r_key = r_q * n_ids + r_id
    _, first = np.unique(r_key, return_index=True)
    n_dup = int(r_key.shape[0] - first.shape[0])
    kept = np.zeros(r_key.shape[0], dtype=bool)
    kept[first] = True
    r_q, r_key = r_q[kept], r_key[kept]
    if max_docs is not None:
        inside = _cumcount(r_q) < max_docs
        r_q, r_key = r_q[inside], r_key[inside]
    # docid ranks: judged retrieved documents in ranking order, then the other judged ones by id
    j_key = np.unique(e_q * n_ids + e_id)
    j_q = j_key // n_ids
    ret = np.isin(r_key, j_key)
    rr_q, rr_key = r_q[ret], r_key[ret]
    n_ret = np.bincount(rr_q, minlength=nq).astype(np.int64)
    n_judged = np.bincount(j_q, minlength=nq).astype(np.int64)
    rank_of = np.empty(j_key.shape[0], dtype=np.int64)
    rank_of[np.searchsorted(j_key, rr_key)] = _cumcount(rr_q)
    unret = ~np.isin(j_key, rr_key)
    rank_of[unret] = n_ret[j_q[unret]] + _cumcount(j_q[unret])
    e_rank = rank_of[np.searchsorted(j_key, e_q * n_ids + e_id)]
    srt = np.lexsort((e_rank, -e_lv, e_jsg, e_jg, e_q))
    q_off = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(counts, out=q_off[1:])
    out = np.zeros((nq, _prefs.N_OUT), dtype=np.float64)
    status = np.zeros(nq, dtype=np.int64)
    bad = np.zeros(nq, dtype=np.int64)
    _prefs.counts(q_off, np.ascontiguousarray(e_jg[srt], dtype=np.int64),
                  np.ascontiguousarray(e_jsg[srt], dtype=np.int64), np.ascontiguousarray(e_lv[srt]),
                  np.ascontiguousarray(e_rank[srt]), n_judged, n_ret, out, status, bad)
    for e in np.flatnonzero(status):
        raise ValueError(f"{p.source}: query {qids[int(e)]!r}, judgment group {str(jg_names[int(bad[e])])!r}: "
                         f"{_STATUS[int(status[e])]}")
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
        The judgments: a [`Prefs`][irscore.prefs.Prefs], the path of a ``prefs`` file (``qid jg
        jsg docno rel_level``) or, with ``format="qrels_prefs"``, of a qrels
        file read as preferences (``qid jg docno rel_level``); or a dict
        ``{qid: {jg: {jsg: {docno: level}}}}`` (``{qid: {jg: {docno: level}}}``
        with ``format="qrels_prefs"``).
    run : Run, dict, DataFrame or path
        The rankings (as for [`irscore.evaluate`][irscore.evaluate]).
    measures : str or sequence of str, default "prefs"
        Measure names ([`PREFS_MEASURES`][irscore.prefs.PREFS_MEASURES]) and sets (``prefs``,
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
