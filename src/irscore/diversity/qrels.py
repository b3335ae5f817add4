"""Diversity qrels: judgments of documents for the intents (subtopics) of a
query, ``query intent document grade``, and their pairing with a run."""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

import numpy as np

from irscore.core.data import Qrels, Run
from irscore.core.files import open_text
from irscore.core.io import as_run
from irscore.core.joined import Joined, join_tagged

__all__ = ["DiversityQrels", "IntentTables", "read_diversity_qrels", "as_diversity_qrels"]

Judgments = Dict[str, Dict[str, Dict[str, int]]]     # {query: {intent: {doc: grade}}}


@dataclass(frozen=True)
class IntentTables:
    """What the diversity kernel needs beside the grades, for the queries of a
    Joined (``Joined.extra``): the judged ranked documents of each query in
    rank order (CSR ``judged_off``: their position in the query's ranking,
    ``judged_pos``, and their row, ``judged_row``; the other ranked documents
    are unjudged), the judged rows of each query (CSR ``row_off``), the
    intents of each row (CSR ``int_off``: ``intent``, ``grade``) and the
    number of intents of each query."""

    judged_off: np.ndarray
    judged_pos: np.ndarray
    judged_row: np.ndarray
    row_off: np.ndarray
    int_off: np.ndarray
    intent: np.ndarray
    grade: np.ndarray
    n_intents: np.ndarray


class DiversityQrels(Qrels):
    """Intent-level judgments: ``{query: {intent: {document: grade}}}``.

    A [`Qrels`][irscore.core.data.Qrels] whose grades are each document's
    largest grade over the intents (so every measure of [`irscore.evaluate`][irscore.evaluate]
    works on it, as on qrels read without intents), carrying the intent
    tables: per query the judged documents (rows, in document-id descending
    order: the order that breaks ties of the ideal ranking), and per row the
    intents it is judged for with their grades.  Joined with a run (one join
    for every measure of the evaluation) it attaches `IntentTables`
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
            # intents in a canonical order (ndeval's: by number; other ids after them, by id), so
            # that every sum over a document's intents, and the ties of the greedy ideal that
            # compare such sums, do not depend on the order of the judgments
            for intent, per_doc in sorted(per_intent.items(), key=lambda item: _intent_key(str(item[0]))):
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
        # the same documents coded by their row: in the stored order of this
        # Qrels (both sort the same documents), so its grades tag each judgment
        # with its row and the one join lists the judged ranked rows
        self.rows = Qrels.from_dict({q: {doc: r for r, doc in enumerate(docs)} for q, docs in table.items()})
        if (self.rows.query_ids != self.query_ids or not np.array_equal(self.rows.offsets, self.offsets)
                or not np.array_equal(self.rows.doc_hash, self.doc_hash)):
            raise RuntimeError(f"{source}: the row table is not aligned with the judgments")
        self.row_tags = self.rows.grades
        row_off = [0]
        int_off = [0]
        intent_of: List[int] = []
        grade_of: List[int] = []
        for q in self.rows.query_ids:
            for doc in table[q]:
                for j, g in by_doc[q][doc]:
                    intent_of.append(j)
                    grade_of.append(g)
                int_off.append(len(intent_of))
            row_off.append(row_off[-1] + len(table[q]))
        self.row_off = np.asarray(row_off, dtype=np.int64)
        self.int_off = np.asarray(int_off, dtype=np.int64)
        self.intent = np.asarray(intent_of, dtype=np.int32)
        self.grade = np.asarray(grade_of, dtype=np.int32)
        self.n_intents = np.asarray([len(intents[q]) for q in self.rows.query_ids], dtype=np.int64)

    def __repr__(self) -> str:
        nq, nj = len(self.query_ids), int(self.intent.shape[0])
        return (f"DiversityQrels({nq} quer{'y' if nq == 1 else 'ies'}, "
                f"{nj} judgment{'' if nj == 1 else 's'})")

    def join_run(self, run: Any, *, complete: bool = False, judged_only: bool = False,
                 max_docs: Optional[int] = None, n_jobs: Optional[int] = None) -> Joined:
        """The Joined of ``run`` with these judgments (the core's join, one
        pass): grades as for every measure, `IntentTables` (with the
        rows of the judged ranked documents, listed by the same join) as
        ``extra``.

        Parameters
        ----------
        run : Run
            The run.
        complete, judged_only, max_docs, n_jobs
            As for `irscore.core.joined.join`.

        Returns
        -------
        Joined
        """
        r: Run = as_run(run)
        rj, (judged_off, judged_pos, judged_row) = join_tagged(
            self, r, self.row_tags, complete=complete, judged_only=judged_only, max_docs=max_docs, n_jobs=n_jobs)
        nq = len(self.query_ids)
        if len(rj.query_ids) == nq:      # every judged query is evaluated (the join keeps their order)
            sel = np.arange(nq, dtype=np.int64)
            row_off, int_off = self.row_off, self.int_off
            intent, grade = self.intent, self.grade
        else:                            # the tables of the evaluated queries
            index = {q: i for i, q in enumerate(self.query_ids)}
            sel = np.asarray([index[q] for q in rj.query_ids], dtype=np.int64)
            counts = self.row_off[sel + 1] - self.row_off[sel]
            row_off = np.zeros(sel.shape[0] + 1, dtype=np.int64)
            np.cumsum(counts, out=row_off[1:])
            picked = _ranges(self.row_off[sel], counts)
            lengths = self.int_off[picked + 1] - self.int_off[picked]
            int_off = np.zeros(picked.shape[0] + 1, dtype=np.int64)
            np.cumsum(lengths, out=int_off[1:])
            take = _ranges(self.int_off[picked], lengths)
            intent, grade = self.intent[take], self.grade[take]
        extra = IntentTables(judged_off, judged_pos, judged_row, row_off, int_off, np.ascontiguousarray(intent),
                             np.ascontiguousarray(grade), np.ascontiguousarray(self.n_intents[sel]))
        return dataclasses.replace(rj, extra=extra)


def _intent_key(intent: str) -> Tuple[int, int, str, str]:
    """Sort key of an intent id: ids of ASCII digits by their number (as
    ndeval numbers its subtopics; compared as digit strings, of any length),
    then the others by id."""
    if intent.isascii() and intent.isdigit():
        digits = intent.lstrip("0")
        return (0, len(digits), digits, intent)
    return (1, 0, intent, intent)


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
    """A [`DiversityQrels`][irscore.diversity.qrels.DiversityQrels] from itself, a path, a dict
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
