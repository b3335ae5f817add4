"""Columnar relevance judgments (``Qrels``) and rankings (``Run``).

Both store queries as CSR offsets over flat arrays, sorted by query id (byte
order, as trec_eval).  Document ids are kept as one UTF-8 byte buffer with
per-entry start/length and a 64-bit hash, so that no Python string exists per
document: joining a run with its qrels hashes and compares bytes in native code.

- ``Qrels``: within a query, judgments sorted by document id; a repeated
  (query, doc) pair keeps its last judgment (warned once).
- ``Run``: within a query, entries in trec_eval order: score descending, then
  document id descending (the rank column of a TREC file is ignored).
"""
from __future__ import annotations

import sys
import warnings
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from irscore import _dicts, _join
from irscore.core import parallel as _parallel


def _group_sort(parsed: Mapping[str, Any], qrank: np.ndarray, nq: int, values: np.ndarray, mode: int,
                n_jobs: Optional[int] = None) -> Tuple[np.ndarray, ...]:
    """Group by query and sort each query's entries, over threads for big inputs."""
    gs = _join.GroupSort(parsed["qidx"], qrank, nq, parsed["doc_off"], parsed["doc_hash"], values,
                         parsed["doc_buf"], mode)
    threads = _parallel.n_threads(n_jobs, gs.n)
    _parallel.run(gs.sort, _parallel.ranges_by_offsets(gs.offsets, threads) if threads > 1 else [(0, nq)])
    return tuple(gs.result())


def _grouped(parsed: Mapping[str, Any], values: np.ndarray, mode: int,
             n_jobs: Optional[int] = None, keep: Optional[np.ndarray] = None) -> Tuple[np.ndarray, ...]:
    """Columns the reader already grouped by query (``offsets``; the parallel file
    reader), each query sorted in place, over threads for big inputs; with
    ``keep`` (mode 2) the repeated judgments are marked in it in the same pass."""
    offsets, start, length, hashes = (parsed["offsets"], parsed["doc_start"], parsed["doc_len"],
                                      parsed["doc_hash"])
    nq = int(offsets.shape[0]) - 1
    if mode != 3:
        threads = _parallel.n_threads(n_jobs, int(offsets[-1]))

        def sort(lo: int, hi: int) -> None:
            _join.sort_grouped(offsets, start, length, hashes, values, parsed["doc_buf"], mode, lo, hi,
                               parsed.get("ordered") if mode == 0 else None)
            if keep is not None:
                _join.dedup_sorted(offsets, start, length, parsed["doc_buf"], keep, lo, hi)

        _parallel.run(sort, _parallel.ranges_by_offsets(offsets, threads) if threads > 1 else [(0, nq)])
    return offsets, start, length, hashes, values


def _order_queries(query_ids: List[str]) -> Tuple[List[str], np.ndarray]:
    """Sorted query ids and, for each parse-order query, its sorted position."""
    order = sorted(range(len(query_ids)), key=lambda i: query_ids[i].encode("utf-8"))
    qrank = np.empty(len(query_ids), dtype=np.int64)
    qrank[np.asarray(order, dtype=np.int64)] = np.arange(len(query_ids), dtype=np.int64)
    return [query_ids[i] for i in order], qrank


class _Columns:
    """Shared storage and accessors of Qrels and Run."""

    query_ids: List[str]
    source: str
    offsets: np.ndarray
    doc_buf: np.ndarray
    doc_start: np.ndarray
    doc_len: np.ndarray
    doc_hash: np.ndarray

    def __len__(self) -> int:
        return len(self.query_ids)

    @classmethod
    def _from_encoded(cls, enc: Dict[str, Any], values: str, source: str) -> Any:
        """An object over the final columns of ``_dicts.encode_sorted``."""
        new = object.__new__(cls)
        new.source = source
        new.query_ids = enc["query_ids"]
        new.offsets = enc["offsets"]
        new.doc_buf = enc["doc_buf"]
        new.doc_start = enc["doc_start"]
        new.doc_len = enc["doc_len"]
        new.doc_hash = enc["doc_hash"]
        setattr(new, values, enc[values])
        return new

    @property
    def n_entries(self) -> int:
        return int(self.offsets[-1])

    def _index(self) -> Dict[str, int]:
        idx = self.__dict__.get("_qindex")
        if idx is None:
            idx = {q: i for i, q in enumerate(self.query_ids)}
            self.__dict__["_qindex"] = idx
        return idx

    def __contains__(self, qid: object) -> bool:
        return qid in self._index()

    def _all_doc_ids(self) -> List[str]:
        out: List[str] = []
        for q in self.query_ids:
            out.extend(self.doc_ids(q))
        return out

    def _query_column(self) -> np.ndarray:
        return np.repeat(np.asarray(self.query_ids, dtype=object), np.diff(self.offsets))

    def _subset(self, query_ids: Any, values: str) -> Any:
        """A copy holding the given queries only (CSR slices gathered; the
        document-id buffer is shared)."""
        if isinstance(query_ids, str):
            query_ids = [query_ids]
        index = self._index()
        wanted = list(dict.fromkeys(str(q) for q in query_ids))
        missing = [q for q in wanted if q not in index]
        if missing:
            raise KeyError(f"{self.source}: unknown query id(s) {missing[:5]}"
                           f"{' ...' if len(missing) > 5 else ''}")
        if not wanted:
            raise ValueError(f"{self.source}: subset of no queries")
        qs = np.sort(np.fromiter((index[q] for q in wanted), dtype=np.int64, count=len(wanted)))
        lo, lens = self.offsets[qs], np.diff(self.offsets)[qs]
        offsets = np.zeros(qs.shape[0] + 1, dtype=np.int64)
        np.cumsum(lens, out=offsets[1:])
        idx = np.repeat(lo - offsets[:-1], lens) + np.arange(int(offsets[-1]), dtype=np.int64)
        new = object.__new__(type(self))
        new.__dict__.update({k: v for k, v in self.__dict__.items() if not k.startswith("_")})  # no caches
        new.query_ids = [self.query_ids[int(q)] for q in qs]
        new.offsets = offsets
        for name in ("doc_start", "doc_len", "doc_hash", values):
            setattr(new, name, getattr(self, name)[idx])
        return new

    def doc_ids(self, qid: str) -> List[str]:
        """Document ids of one query, in stored order."""
        q = self._index()[qid]
        lo, hi = int(self.offsets[q]), int(self.offsets[q + 1])
        buf = self.doc_buf
        out: List[str] = []
        for s, n in zip(self.doc_start[lo:hi], self.doc_len[lo:hi]):
            raw = buf[int(s):int(s) + int(n)].tobytes()
            try:
                out.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                raise ValueError(f"{getattr(self, 'source', type(self).__name__)}: query {qid!r}: document id "
                                 f"{raw!r} is not UTF-8") from None
        return out


class Qrels(_Columns):
    """Relevance judgments: ``qid -> {docid: grade}`` in columnar form.

    Parameters
    ----------
    parsed : mapping
        The columns produced by the native reader (use [`irscore.read_qrels`][irscore.read_qrels],
        [`Qrels.from_dict`][irscore.core.data.Qrels.from_dict] or [`Qrels.from_pandas`][irscore.core.data.Qrels.from_pandas] rather than this).
    source : str
        Where the data came from (for messages).
    unique : bool
        The (query, doc) pairs are known to be unique.
    n_jobs : int, optional
        Threads for the grouping.
    """

    grades: np.ndarray

    def __init__(self, parsed: Mapping[str, Any], *, source: str = "qrels", unique: bool = False,
                 n_jobs: Optional[int] = None) -> None:
        # Judgments are sorted by doc id (repeats adjacent, to keep the last);
        # input already known to be unique (dict keys) is only grouped.
        keep: Optional[np.ndarray] = None
        if "offsets" in parsed:
            query_ids = list(parsed["query_ids"])
            n = int(parsed["offsets"][-1])
            if not unique:
                keep = np.ones(n, dtype=np.bool_)
            offsets, start, length, hashes, grades = _grouped(
                parsed, parsed["grades"].astype(np.float64), 3 if unique else 2, n_jobs, keep)
        else:
            query_ids, qrank = _order_queries(list(parsed["query_ids"]))
            n = int(parsed["qidx"].shape[0])
            offsets, start, length, hashes, grades = _group_sort(
                parsed, qrank, len(query_ids), parsed["grades"].astype(np.float64), 3 if unique else 2, n_jobs)
        if n == 0:
            raise ValueError(f"{source}: no judgments")
        n_dup = 0
        if not unique:
            if keep is None:
                keep = _join.dedup_sorted(offsets, start, length, parsed["doc_buf"])
            n_dup = int(n - keep.sum())
        if n_dup:
            warnings.warn(f"{source}: {n_dup} repeated (query, doc) judgments; the last one is kept",
                          RuntimeWarning, stacklevel=3)
            owner = np.repeat(np.arange(len(query_ids)), np.diff(offsets))
            counts = np.bincount(owner[keep], minlength=len(query_ids))
            offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            start, length, hashes, grades = start[keep], length[keep], hashes[keep], grades[keep]
        self.source = source
        self.query_ids = query_ids
        self.offsets = offsets
        self.doc_buf = parsed["doc_buf"]
        self.doc_start = start
        self.doc_len = length
        self.doc_hash = hashes
        self.grades = np.ascontiguousarray(grades, dtype=np.int32)

    @classmethod
    def from_dict(cls, qrels: Mapping[str, Mapping[str, int]]) -> "Qrels":
        """From pytrec_eval's ``{qid: {docid: grade}}``."""
        enc = _encode(_plain_dict(qrels, "qrels"), False, "qrels")
        if not enc["query_ids"]:
            raise ValueError("qrels: no judgments")
        out: Qrels = cls._from_encoded(enc, "grades", "qrels")
        return out

    @classmethod
    def from_pandas(cls, df: Any) -> "Qrels":
        """From a DataFrame with ir_measures columns ``query_id, doc_id, relevance``,
        PyTerrier's ``qid, docno, label`` or ranx's ``q_id, doc_id, score``: a
        pandas or polars DataFrame, a polars LazyFrame (collected once), a
        pyarrow Table or RecordBatch (read without pandas; nulls refused)."""
        return cls.from_dict(_frame_to_dict(df, "relevance", "qrels"))

    def to_dict(self) -> Dict[str, Dict[str, int]]:
        out: Dict[str, Dict[str, int]] = {}
        for q, qid in enumerate(self.query_ids):
            lo, hi = int(self.offsets[q]), int(self.offsets[q + 1])
            out[qid] = dict(zip(self.doc_ids(qid), map(int, self.grades[lo:hi])))
        return out

    def to_pandas(self) -> Any:
        """The judgments as a DataFrame with ir_measures' columns ``query_id, doc_id,
        relevance`` (queries in stored order, documents by id).

        Returns
        -------
        pandas.DataFrame
        """
        pd = require_pandas("Qrels.to_pandas")
        return pd.DataFrame({"query_id": self._query_column(), "doc_id": self._all_doc_ids(),
                             "relevance": self.grades.astype(np.int64)})

    def subset(self, query_ids: Any) -> "Qrels":
        """The judgments of the given queries only.

        Parameters
        ----------
        query_ids : iterable of str
            The queries to keep (repeats ignored).

        Returns
        -------
        Qrels

        Raises
        ------
        KeyError
            A query id the qrels do not have.
        """
        out: Qrels = self._subset(query_ids, "grades")
        return out

    @property
    def max_grade(self) -> int:
        return int(self.grades.max()) if self.grades.size else 0

    def __repr__(self) -> str:
        return f"Qrels({len(self)} queries, {self.n_entries} judgments)"


class Run(_Columns):
    """A ranking per query: ``qid -> {docid: score}`` in columnar form, each
    query's entries stored in trec_eval order (score desc, doc id desc).

    Parameters
    ----------
    parsed : mapping
        The columns produced by the native reader (use [`irscore.read_run`][irscore.read_run],
        [`Run.from_dict`][irscore.core.data.Run.from_dict] or [`Run.from_pandas`][irscore.core.data.Run.from_pandas] rather than this).
    source : str
        Where the data came from (for messages).
    n_jobs : int, optional
        Threads for the grouping.
    ties : {"trec", "input"}, default "trec"
        The order of equal scores within a query: trec_eval's (doc id
        descending) or the input's (the order of the file's lines, the
        frame's rows, the dict's items: a stable sort by score).
    """

    scores: np.ndarray
    run_id: str
    #: no (query, doc) pair repeats (a run built from dicts): the join skips its
    #: duplicate check
    unique: bool = False
    #: the order of equal scores: "trec" (doc id descending) or "input"
    ties: str = "trec"

    def __init__(self, parsed: Mapping[str, Any], *, source: str = "run", n_jobs: Optional[int] = None,
                 allow_empty: bool = False, ties: str = "trec") -> None:
        mode = tie_mode(ties)
        if "offsets" in parsed:
            query_ids = list(parsed["query_ids"])
            n = int(parsed["offsets"][-1])
        else:
            query_ids, qrank = _order_queries(list(parsed["query_ids"]))
            n = int(parsed["qidx"].shape[0])
        if n == 0 and not allow_empty:
            raise ValueError(f"{source}: no ranked documents")
        if "offsets" in parsed:
            offsets, start, length, hashes, scores = _grouped(parsed, parsed["scores"], mode, n_jobs)
        else:
            offsets, start, length, hashes, scores = _group_sort(
                parsed, qrank, len(query_ids), parsed["scores"], mode, n_jobs)
        if mode:
            self.ties = ties
        self.source = source
        self.query_ids = query_ids
        self.offsets = offsets
        self.doc_buf = parsed["doc_buf"]
        self.doc_start = start
        self.doc_len = length
        self.doc_hash = hashes
        self.scores = scores
        self.run_id = str(parsed.get("run_id", "irscore"))

    @classmethod
    def from_dict(cls, run: Mapping[str, Mapping[str, float]], run_id: str = "irscore", *,
                  ties: str = "trec") -> "Run":
        """From pytrec_eval's ``{qid: {docid: score}}`` (``ties="input"``: equal
        scores in the dict's order)."""
        # a dict whose queries are all empty is a run of empty rankings: evaluate
        # refuses it unless complete=True makes every qrels query count
        mode = tie_mode(ties)
        out: Run = cls._from_encoded(_encode(_plain_dict(run, "run"), True, "run", mode), "scores", "run")
        if mode:
            out.ties = ties
        out.run_id = str(run_id)
        out.unique = True    # dict keys: no repeated (query, doc) entry
        return out

    @classmethod
    def from_pandas(cls, df: Any, run_id: str = "irscore", *, ties: str = "trec") -> "Run":
        """From a DataFrame with ir_measures columns ``query_id, doc_id, score``,
        PyTerrier's ``qid, docno, score`` (its ``rank`` is ignored: the order is the
        score's) or ranx's ``q_id, doc_id, score``: pandas, polars (a LazyFrame is
        collected once) or pyarrow (read without pandas; nulls refused)."""
        return cls.from_dict(_frame_to_dict(df, "score", "run"), run_id=run_id, ties=ties)

    def to_dict(self) -> Dict[str, Dict[str, float]]:
        out: Dict[str, Dict[str, float]] = {}
        for q, qid in enumerate(self.query_ids):
            lo, hi = int(self.offsets[q]), int(self.offsets[q + 1])
            # entries are in rank order: a repeated document keeps its best-ranked
            # entry, the one evaluate() uses
            docs: Dict[str, float] = {}
            for d, s in zip(self.doc_ids(qid), self.scores[lo:hi].tolist()):
                docs.setdefault(d, s)
            out[qid] = docs
        return out

    def to_pandas(self) -> Any:
        """The run as a DataFrame with ir_measures' columns ``query_id, doc_id,
        score`` (queries in stored order, each ranking in trec_eval's order; a
        repeated document appears as stored).

        Returns
        -------
        pandas.DataFrame
        """
        pd = require_pandas("Run.to_pandas")
        return pd.DataFrame({"query_id": self._query_column(), "doc_id": self._all_doc_ids(),
                             "score": np.asarray(self.scores, dtype=np.float64)})

    def subset(self, query_ids: Any) -> "Run":
        """The rankings of the given queries only.

        Parameters
        ----------
        query_ids : iterable of str
            The queries to keep (repeats ignored).

        Returns
        -------
        Run

        Raises
        ------
        KeyError
            A query id the run does not have.
        """
        out: Run = self._subset(query_ids, "scores")
        return out

    def __repr__(self) -> str:
        return f"Run({self.run_id!r}: {len(self)} queries, {self.n_entries} documents)"


def _plain_dict(d: Mapping[str, Any], what: str) -> Dict[str, Any]:
    if isinstance(d, dict) and all(type(v) is dict for v in d.values()):
        return d
    if not isinstance(d, Mapping):
        raise TypeError(f"{what} must be a mapping {{query_id: {{doc_id: value}}}}, got {type(d).__name__}")
    out: Dict[str, Any] = {}
    for k, v in d.items():
        if not isinstance(v, Mapping):
            raise TypeError(f"{what}[{k!r}] must be a mapping {{doc_id: value}}, got {type(v).__name__}")
        out[k] = dict(v)
    return out


def tie_mode(ties: Any) -> int:
    """The sort mode of a run's ``ties`` option: 0 ``"trec"``, 1 ``"input"``."""
    if ties == "trec":
        return 0
    if ties == "input":
        return 1
    raise ValueError(f"ties must be 'trec' or 'input', got {ties!r}")


def _encode(d: Dict[str, Any], is_run: bool, what: str, order: int = 0) -> Dict[str, Any]:
    """``_dicts.encode_sorted`` with errors naming the argument and the entry."""
    for q in d:
        _check_id(q, what)
    try:
        return _dicts.encode_sorted(d, is_run, what, order)
    except (UnicodeError, OverflowError) as exc:
        for q, docs in d.items():
            for doc, v in docs.items():
                _check_id(doc, f"{what}[{q!r}]")
                if isinstance(v, int):
                    try:
                        float(v)
                    except OverflowError:
                        raise ValueError(f"{what}[{q!r}][{doc!r}]: value out of the float64 range") from None
        raise ValueError(f"{what}: {exc}") from None


def _check_id(key: Any, what: str) -> None:
    if isinstance(key, str):
        try:
            key.encode("utf-8")
        except UnicodeError:
            raise ValueError(f"{what}: id {key!r} is not encodable as UTF-8 (lone surrogate)") from None


# the column names of ir_measures, PyTerrier and ranx, in that order of preference
_QUERY_COLS = ("query_id", "qid", "q_id")
_DOC_COLS = ("doc_id", "docno")
_VALUE_COLS = {"relevance": ("relevance", "label", "score"), "score": ("score",)}


def arrow_table(x: Any) -> Any:
    """``x`` as a ``pyarrow.Table`` when it is a polars DataFrame or LazyFrame
    (collected once), a pyarrow Table or RecordBatch; None for anything else.
    Neither polars nor pyarrow is imported here: an object of theirs exists
    only when its module is loaded."""
    pl = sys.modules.get("polars")
    if pl is not None:
        if isinstance(x, pl.LazyFrame):
            x = x.collect()
        if isinstance(x, pl.DataFrame):
            return x.to_arrow()
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        if isinstance(x, pa.Table):
            return x
        if isinstance(x, pa.RecordBatch):
            return pa.Table.from_batches([x])
    return None


def require_pandas(what: str) -> Any:
    """The pandas module, or a ModuleNotFoundError naming the extra that installs it."""
    try:
        import pandas
    except ModuleNotFoundError:
        raise ModuleNotFoundError(f'{what} needs pandas, which is not installed: pip install "irscore[pandas]" '
                                  '(from a clone of irscore: pip install ".[pandas]")', name="pandas") from None
    return pandas


def _column_names(df: Any) -> List[str]:
    names = getattr(df, "column_names", None)     # a pyarrow Table (its .columns are the arrays)
    return list(names) if names is not None else list(getattr(df, "columns", []))


def _column(df: Any, names: Tuple[str, ...], what: str, role: str) -> str:
    cols = _column_names(df)
    have = [c for c in names if c in cols]
    if not have:
        raise ValueError(f"{what} DataFrame lacks column(s) for the {role}; expected one of {list(names)}")
    if len(have) > 1 and role != "value":
        raise ValueError(f"{what} DataFrame has several {role} columns {have}; keep one")
    return have[0]


def frame_columns(df: Any, value_col: str, what: str) -> Tuple[str, str, str]:
    """The (query id, doc id, value) column names of a qrels (``value_col``
    ``"relevance"``) or run (``"score"``) DataFrame: ir_measures', PyTerrier's
    or ranx's; a clear ValueError when missing or ambiguous."""
    return (_column(df, _QUERY_COLS, what, "query id"), _column(df, _DOC_COLS, what, "document id"),
            _column(df, _VALUE_COLS[value_col], what, "value"))


def _arrow_lists(table: Any, cols: Tuple[str, str, str], what: str) -> Tuple[List[str], List[str], List[Any]]:
    """The (query ids as text, doc ids as text, values) of a pyarrow Table's columns."""
    out = []
    for c in cols:
        col = table.column(c)
        if col.null_count:
            raise ValueError(f"{what}: column {c!r} has {col.null_count} null value(s)")
        out.append(col.to_pylist())
    return [str(q) for q in out[0]], [str(d) for d in out[1]], out[2]


def _frame_to_dict(df: Any, value_col: str, what: str) -> Dict[str, Dict[str, Any]]:
    table = arrow_table(df)
    if table is not None:
        df = table
    qcol, dcol, vcol = frame_columns(df, value_col, what)
    out: Dict[str, Dict[str, Any]] = {}
    n_dup = 0
    best = what == "run"
    if table is not None:
        columns = _arrow_lists(table, (qcol, dcol, vcol), what)
    else:
        columns = (df[qcol].astype(str).tolist(), df[dcol].astype(str).tolist(), df[vcol].tolist())
    for q, d, v in zip(*columns):
        docs = out.setdefault(q, {})
        if d in docs:
            # as from a file: a run keeps the best-ranked entry, qrels the last judgment
            n_dup += 1
            try:
                if best and not v > docs[d]:
                    continue
            except TypeError:
                pass  # not a number: reported when the values are encoded
        docs[d] = v
    if n_dup:
        if best:
            msg = f"run: {n_dup} repeated (query, doc) entries; the best-ranked one is kept"
        else:
            msg = f"qrels: {n_dup} repeated (query, doc) judgments; the last one is kept"
        warnings.warn(msg, RuntimeWarning, stacklevel=4)
    return out
