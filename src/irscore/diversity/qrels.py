"""Diversity qrels: judgments of documents for the intents (subtopics) of a
query, ``query intent document grade``, and their pairing with a run."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

import numpy as np

from irscore import _diversity
from irscore.core.data import Qrels, Run
from irscore.core.files import open_text
from irscore.core.io import as_run
from irscore.core.joined import Joined, join

__all__ = ["DiversityQrels", "IntentTables", "read_diversity_qrels", "as_diversity_qrels"]

Judgments = Dict[str, Dict[str, Dict[str, int]]]     # {query: {intent: {doc: grade}}}


@dataclass(frozen=True)
class IntentTables:
    """What the diversity kernel needs beside the grades, for the queries of a
    Joined (``Joined.extra``): each ranked document's row (``rows``, -1
    unjudged; same layout as ``Joined.rel``), the judged rows of each query
    (CSR ``row_off``), the intents of each row (CSR ``int_off``: ``intent``,
    ``grade``) and the number of intents of each query."""

    rows: np.ndarray
    row_off: np.ndarray
    int_off: np.ndarray
    intent: np.ndarray
    grade: np.ndarray
    n_intents: np.ndarray


class DiversityQrels(Qrels):
    """Intent-level judgments: ``{query: {intent: {document: grade}}}``.

    A :class:`~irscore.core.data.Qrels` whose grades are each document's
    largest grade over the intents (so every measure of :func:`irscore.evaluate`
    works on it, as on qrels read without intents), carrying the intent
    tables: per query the judged documents (rows, in document-id descending
    order: the order that breaks ties of the ideal ranking), and per row the
    intents it is judged for with their grades.  Joined with a run (one join
    for every measure of the evaluation) it attaches :class:`IntentTables`
    to the Joined.

    Parameters
    ----------
    judgments : mapping
        ``{query_id: {intent: {doc_id: grade}}}`` (ids are str, grades int).
    source : str
        Where the judgments come from (named in error messages).

    Raises
    ------
    TypeError, ValueError
        For ids that are not strings or grades that are not integers, or no
        judgment at all.
    """

    def __init__(self, judgments: Mapping[str, Mapping[str, Mapping[str, int]]], *, source: str = "qrels") -> None:
        by_doc: Dict[str, Dict[str, List[Tuple[int, int]]]] = {}
        intents: Dict[str, List[str]] = {}
        for qid, per_intent in judgments.items():
            if not isinstance(qid, str):
                raise TypeError(f"{source}: query ids must be str, got {qid!r}")
            docs = by_doc.setdefault(qid, {})
            names = intents.setdefault(qid, [])
            for intent, per_doc in per_intent.items():
                j = len(names)
                names.append(str(intent))
                for doc, grade in per_doc.items():
                    if not isinstance(doc, str):
                        raise TypeError(f"{source}: query {qid}: document ids must be str, got {doc!r}")
                    if isinstance(grade, bool) or not isinstance(grade, (int, np.integer)):
                        raise ValueError(f"{source}: query {qid} intent {intent} doc {doc}: grade {grade!r} "
                                         "is not an integer")
                    docs.setdefault(doc, []).append((j, int(grade)))
        table = {q: sorted(d, reverse=True) for q, d in by_doc.items() if d}
        if not table:
            raise ValueError(f"{source}: no judgments")
        # the Qrels this object is: each document's largest grade over the intents
        # (built by Qrels.from_dict, whose columns it takes over)
        classic = Qrels.from_dict({q: {doc: max(g for _, g in by_doc[q][doc]) for doc in docs}
                                   for q, docs in table.items()})
        self.__dict__.update(vars(classic))
        self.source = source
        self.intents = intents
        # the same documents coded by their row (the join then gives each ranked row)
        self.rows = Qrels.from_dict({q: {doc: r for r, doc in enumerate(docs)} for q, docs in table.items()})
        row_off = [0]
        int_off = [0]
        intent_of: List[int] = []
        grade_of: List[int] = []
        best: List[int] = []
        for q in self.rows.query_ids:
            for doc in table[q]:
                for j, g in by_doc[q][doc]:
                    intent_of.append(j)
                    grade_of.append(g)
                int_off.append(len(intent_of))
                best.append(max(g for _, g in by_doc[q][doc]))
            row_off.append(row_off[-1] + len(table[q]))
        self.row_off = np.asarray(row_off, dtype=np.int64)
        self.int_off = np.asarray(int_off, dtype=np.int64)
        self.intent = np.asarray(intent_of, dtype=np.int32)
        self.grade = np.asarray(grade_of, dtype=np.int32)
        self.n_intents = np.asarray([len(intents[q]) for q in self.rows.query_ids], dtype=np.int64)
        # per row: its classic relevance code (grade, -2 when negative)
        b = np.asarray(best, dtype=np.int64)
        self.row_code = np.where(b < 0, -2, b).astype(np.int32)
        # the judged pool per grade of each query (Joined.levels)
        nq, G = len(self.rows.query_ids), max(self.max_grade, 0) + 1
        owner = np.repeat(np.arange(nq, dtype=np.int64), np.diff(self.row_off))
        ok = self.row_code >= 0
        self.levels = np.bincount(owner[ok] * G + self.row_code[ok], minlength=nq * G).reshape(nq, G).astype(np.int64)

    def __repr__(self) -> str:
        return f"DiversityQrels({len(self.query_ids)} queries, {self.intent.shape[0]} judgments)"

    def join_run(self, run: Any, *, complete: bool = False, judged_only: bool = False,
                 max_docs: Optional[int] = None, n_jobs: Optional[int] = None) -> Joined:
        """The Joined of ``run`` with these judgments (the core's join, through
        the rows): grades as for every measure, :class:`IntentTables` as
        ``extra``.

        Parameters
        ----------
        run : Run
            The run.
        complete, judged_only, max_docs, n_jobs
            As for :func:`irscore.core.joined.join`.

        Returns
        -------
        Joined
        """
        r: Run = as_run(run)
        rj = join(self.rows, r, complete=complete, judged_only=judged_only, max_docs=max_docs, n_jobs=n_jobs)
        index = {q: i for i, q in enumerate(self.rows.query_ids)}
        sel = np.asarray([index[q] for q in rj.query_ids], dtype=np.int64)
        counts = self.row_off[sel + 1] - self.row_off[sel]
        if sel.shape[0] == len(self.rows.query_ids):         # every judged query is ranked (sel is 0..n-1)
            row_off, int_off = self.row_off, self.int_off
            intent, grade = self.intent, self.grade
        else:                                                # the tables of the evaluated queries
            row_off = np.zeros(sel.shape[0] + 1, dtype=np.int64)
            np.cumsum(counts, out=row_off[1:])
            picked = _ranges(self.row_off[sel], counts)
            lengths = self.int_off[picked + 1] - self.int_off[picked]
            int_off = np.zeros(picked.shape[0] + 1, dtype=np.int64)
            np.cumsum(lengths, out=int_off[1:])
            take = _ranges(self.int_off[picked], lengths)
            intent, grade = self.intent[take], self.grade[take]
        # grades of the ranked documents, and the judged pool per grade of each query
        rel = np.empty(rj.rel.shape[0], dtype=np.int32)
        _diversity.row_grades(rj.rel, rj.offsets, np.ascontiguousarray(self.row_off[sel]), counts,
                              self.row_code, rel)
        levels = np.ascontiguousarray(self.levels[sel])
        extra = IntentTables(rj.rel, row_off, int_off, np.ascontiguousarray(intent), np.ascontiguousarray(grade),
                             np.ascontiguousarray(self.n_intents[sel]))
        return Joined(rj.query_ids, rel, rj.scores, rj.offsets, levels, rj.missing, rj.bogus, rj.n_duplicates,
                      extra=extra)


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenation of ``range(s, s + c)`` for each (s, c)."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(counts)
    shift = np.repeat(starts - (ends - counts), counts)
    return np.arange(total, dtype=np.int64) + shift


def _add(out: Judgments, qid: Any, intent: Any, doc: Any, grade: Any, where: str) -> None:
    try:
        g = int(grade)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: grade {grade!r} is not an integer") from None
    if g != grade and str(g) != str(grade).strip():
        raise ValueError(f"{where}: grade {grade!r} is not an integer")
    out.setdefault(str(qid), {}).setdefault(str(intent), {})[str(doc)] = g


def read_diversity_qrels(path: "os.PathLike[str] | str") -> DiversityQrels:
    """Read diversity qrels ``query intent document grade`` (ndeval's format:
    the second column is the intent, not trec_eval's unused iteration).

    Parameters
    ----------
    path : str or os.PathLike
        The file (plain or gzip).

    Returns
    -------
    DiversityQrels

    Raises
    ------
    ValueError
        A malformed line (the message names the file and line).
    """
    out: Judgments = {}
    with open_text(path) as f:
        for n, line in enumerate(f, start=1):
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if len(parts) != 4:
                raise ValueError(f"{os.fspath(path)}:{n}: expected 'query intent document grade', got {line.strip()!r}")
            _add(out, parts[0], parts[1], parts[2], parts[3], f"{os.fspath(path)}:{n}")
    return DiversityQrels(out, source=os.fspath(path))


_INTENT_COLUMNS = ("intent", "iteration", "subtopic", "subtopic_id")


def as_diversity_qrels(x: Any) -> DiversityQrels:
    """A :class:`DiversityQrels` from itself, a path, a dict
    ``{query: {intent: {doc: grade}}}``, an iterable of ``(query, intent, doc,
    grade)`` tuples or a DataFrame with columns ``query_id``, the intent
    (``intent``, ``iteration``, ``subtopic`` or ``subtopic_id``), ``doc_id``,
    ``relevance``.

    Parameters
    ----------
    x : DiversityQrels, str, os.PathLike, dict, iterable or DataFrame
        The judgments.

    Returns
    -------
    DiversityQrels

    Raises
    ------
    TypeError, ValueError
        For input of another kind or malformed values.
    """
    if isinstance(x, DiversityQrels):
        return x
    if isinstance(x, (str, os.PathLike)):
        return read_diversity_qrels(x)
    if isinstance(x, Mapping):
        return DiversityQrels(x, source="dict")
    if hasattr(x, "columns"):
        cols = list(x.columns)
        intent_col = next((c for c in _INTENT_COLUMNS if c in cols), None)
        missing = [c for c in ("query_id", "doc_id", "relevance") if c not in cols]
        if intent_col is None or missing:
            raise ValueError("a diversity qrels DataFrame needs the columns query_id, intent (or iteration, "
                             f"subtopic, subtopic_id), doc_id, relevance; got {cols}")
        out: Judgments = {}
        for i, (q, t, d, g) in enumerate(zip(x["query_id"], x[intent_col], x["doc_id"], x["relevance"])):
            _add(out, q, t, d, g, f"DataFrame row {i}")
        return DiversityQrels(out, source="DataFrame")
    if isinstance(x, Iterable):
        out = {}
        for i, item in enumerate(x):
            if len(item) != 4:
                raise ValueError(f"judgment {i}: expected (query, intent, doc, grade), got {item!r}")
            q, t, d, g = item
            _add(out, q, t, d, g, f"judgment {i}")
        return DiversityQrels(out, source="judgments")
    raise TypeError(f"cannot read diversity qrels from {type(x).__name__}")
