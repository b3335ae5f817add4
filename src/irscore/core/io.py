"""Reading TREC qrels and run files (plain or ``.gz``) into columnar objects.

Files are streamed in chunks through the native tokenizer (``irscore._trec_io``),
plain files of 16 MiB or more parsed in parts on all cores (``irscore._trec_io_split``);
no Python object is created per line.  Errors name the file and line.
"""
from __future__ import annotations

import mmap
import os
import queue
import threading
from typing import IO, Any, Dict, List, Mapping, Optional, Union

import numpy as np

from irscore import _trec_io, _trec_io_split
from irscore.core import parallel as _parallel
from irscore.core.data import Qrels, Run, require_pandas, tie_mode
from irscore.core.files import GZIP_ERRORS, InputFileError, gzip_error, open_source
from irscore.core.inputs import to_qrels, to_run

__all__ = ["read_qrels", "read_run", "as_qrels", "as_run", "results_frame", "InputFileError"]

PathLike = Union[str, "os.PathLike[str]"]

_CHUNK = 1 << 24
# plain files at least this big are parsed in parts, on all cores, from a memory map
_SPLIT_MIN = 1 << 24


def _parse_split(name: str, kind: str, parts: int, data: Any = None) -> Dict[str, Any]:
    """A plain file parsed in ``parts`` pieces on the package's threads, from a
    memory map whose parsed pages are released as it goes (or from ``data``, a
    stream's content already in memory), straight into columns grouped by query."""
    spans = [(k, k + 1) for k in range(parts)]

    def parse(data: Any, release: bool) -> Dict[str, Any]:
        sp = _trec_io_split.SplitParser(kind, name, data, parts, release=release)
        try:
            _parallel.run(lambda k, _: sp.count(k), spans)
            sp.layout()
            _parallel.run(lambda k, _: sp.parse(k), spans)
            sp.close_gaps()
            _parallel.run(lambda k, _: sp.shift_starts(k, parts), spans)
            out: Dict[str, Any] = sp.finish()
        finally:
            sp.close()      # the map's export ends here, also when an error is on its way
        return out

    if data is not None:
        return parse(data, False)
    with open(name, "rb") as fm:
        before = os.fstat(fm.fileno())
        if before.st_size == 0:
            return parse(b"", False)          # an empty file cannot be mapped
        with mmap.mmap(fm.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            mview = memoryview(mm)
            try:
                out = parse(mview, True)
            except ValueError:
                _check_unchanged(fm.fileno(), before, name)     # a change explains the error
                raise
            finally:
                mview.release()
        _check_unchanged(fm.fileno(), before, name)
        return out


def _check_unchanged(fd: int, before: os.stat_result, name: str) -> None:
    """A file that another program truncated, extended or rewrote while it was
    read (its size or modification time moved) is an error: what was read may
    mix the old and the new content."""
    now = os.fstat(fd)
    if (now.st_size, now.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        raise InputFileError(name, f"the file changed while it was read (size {before.st_size} -> {now.st_size} "
                                   f"bytes; rewritten or truncated by another program?)")


def _parse(path: PathLike, kind: str) -> Dict[str, Any]:
    # "-" is standard input, as trec_eval reads a run named "-"; pipes, FIFOs and
    # devices are read whole first (files.open_source), then parsed as a file is
    src = open_source(path, kind)
    name = src.name
    if src.compression is None and src.data is not None:
        if len(src.data) >= _SPLIT_MIN:
            return _finish_split(_parse_split(name, kind, _parallel.cpu_count(), src.data), name, kind)
        parser = _trec_io.TrecParser(kind, name)
        parser.feed(src.data)
        return _finish(parser, name, kind)
    if src.compression is None and src.size >= _SPLIT_MIN:
        return _finish_split(_parse_split(name, kind, _parallel.cpu_count()), name, kind)
    parser = _trec_io.TrecParser(kind, name)
    if src.compression is not None:
        with src.open() as f:
            _feed_pipelined(f, parser, name)
        return _finish(parser, name, kind)
    buf = bytearray(_CHUNK)
    view = memoryview(buf)
    first = True
    with src.open() as f:
        before = os.fstat(f.fileno())
        try:
            while True:
                n = f.readinto(buf)  # type: ignore[attr-defined]
                if not n:
                    break
                parser.feed(view[:n])
                if first:
                    first = False
                    if n == _CHUNK:
                        parser.reserve(src.size)
            parsed = _finish(parser, name, kind)
        except ValueError:
            _check_unchanged(f.fileno(), before, name)      # a change explains the error
            raise
        _check_unchanged(f.fileno(), before, name)
    return parsed


def _feed_pipelined(f: IO[bytes], parser: Any, name: str) -> None:
    """Feed a gzip stream to the parser, the next chunk decompressed in a thread
    of its own while this one is parsed (zlib and the parser both release the
    GIL; not the package's pool, whose workers a caller may be waiting on).  Chunks are parsed in file order, so the first error in the file
    is the one raised; a truncated or corrupt stream is reported when the parse
    reaches it."""
    chunks: "queue.Queue[Any]" = queue.Queue(maxsize=2)
    stop = threading.Event()

    def produce() -> None:
        while not stop.is_set():
            try:
                item: Any = f.read(_CHUNK)
            except GZIP_ERRORS as exc:
                item = gzip_error(name, exc)
            except BaseException as exc:  # noqa: BLE001 (handed to the consumer)
                item = exc
            while not stop.is_set():
                try:
                    chunks.put(item, timeout=0.05)
                    break
                except queue.Full:
                    continue
            if not isinstance(item, bytes) or not item:
                return

    producer = threading.Thread(target=produce, name="irscore-gunzip", daemon=True)
    producer.start()
    try:
        while True:
            item = chunks.get()
            if isinstance(item, BaseException):
                raise item
            if not item:
                break
            parser.feed(item)
    finally:
        stop.set()
        producer.join()     # the producer has stopped before the file is closed


def _finish(parser: Any, name: str, kind: str) -> Dict[str, Any]:
    parsed: Dict[str, Any] = parser.finish()
    if parsed["qidx"].shape[0] == 0:
        raise ValueError(f"{name}: empty {kind} file (no data lines)")
    return parsed


def _finish_split(parsed: Dict[str, Any], name: str, kind: str) -> Dict[str, Any]:
    if int(parsed["offsets"][-1]) == 0:
        raise ValueError(f"{name}: empty {kind} file (no data lines)")
    return parsed


def read_qrels(path: PathLike) -> Qrels:
    """Read TREC qrels ``qid iter docno rel`` (whitespace separated, ``#`` comments).

    Parameters
    ----------
    path : str or os.PathLike
        The file (plain or gzip, detected by its magic bytes).

    Returns
    -------
    Qrels

    Raises
    ------
    FileNotFoundError, IsADirectoryError
        The path is not a file (the message names it).
    ValueError
        A malformed line (the message names the file and line).
    """
    return Qrels(_parse(path, "qrels"), source=os.fspath(path))


def read_run(path: PathLike, *, ties: str = "trec") -> Run:
    """Read a TREC run ``qid Q0 docno rank score run_id`` (extra fields ignored);
    ``"-"`` reads standard input, as trec_eval does.

    Parameters
    ----------
    path : str or os.PathLike
        The file (plain or gzip, detected by its magic bytes).
    ties : {"trec", "input"}, default "trec"
        Equal scores of a query ranked by doc id descending (trec_eval) or in
        the order of their lines (the rank column is ignored either way).

    Returns
    -------
    Run

    Raises
    ------
    FileNotFoundError, IsADirectoryError
        The path is not a file (the message names it).
    ValueError
        A malformed line (the message names the file and line).
    """
    tie_mode(ties)      # checked before the file is read
    return Run(_parse(path, "run"), source=os.fspath(path), ties=ties)


def as_qrels(x: Any, *, arg: str = "qrels", rows: bool = False) -> Qrels:
    """Judgments in any accepted form as a [`Qrels`][irscore.Qrels].

    Parameters
    ----------
    x : Qrels, dict, DataFrame, pyarrow Table, ranx Qrels or path
        A `Qrels`; ``{query_id: {doc_id: relevance}}``; a pandas or polars
        DataFrame or polars LazyFrame (collected once) or a pyarrow Table or
        RecordBatch with the columns ``query_id, doc_id, relevance``
        (PyTerrier's ``qid, docno, label`` and ranx's ``q_id, doc_id, score``
        too); a ranx ``Qrels``; the path of a TREC qrels file.
    arg : str, default "qrels"
        The argument's name in error messages.
    rows : bool, default False
        Also accept an iterable of namedtuples with the fields ``query_id,
        doc_id, relevance`` (ir_measures' ``Qrel``, as its readers yield them).

    Returns
    -------
    Qrels

    Raises
    ------
    TypeError
        Anything else (the message names ``arg``, the type passed and what is
        accepted; a run passed as qrels is named as such).
    ValueError
        Malformed content (missing columns, nulls, grades that are not integers ...).
    """
    return to_qrels(x, read_qrels, arg=arg, rows=rows)


def as_run(x: Any, ties: Optional[str] = None, *, arg: str = "run", run_id: Optional[str] = None,
           rows: bool = False) -> Run:
    """A ranking in any accepted form as a [`Run`][irscore.Run].

    Parameters
    ----------
    x : Run, dict, DataFrame, pyarrow Table, ranx Run or path
        A `Run`; ``{query_id: {doc_id: score}}``; a pandas or polars
        DataFrame or polars LazyFrame (collected once) or a pyarrow Table or
        RecordBatch with the columns ``query_id, doc_id, score`` (PyTerrier's
        ``qid, docno`` and ranx's ``q_id`` too); a ranx ``Run``; the path of a
        TREC run file.
    ties : {"trec", "input"}, optional
        The order of equal scores (``"trec"``, the default: doc id descending;
        ``"input"``: the input's order).  A Run object keeps the order it was
        built with: given ``ties``, it must be that one.
    arg : str, default "run"
        The argument's name in error messages.
    run_id : str, optional
        The name of a run built from a dict or a frame (default
        ``"irscore"``); a ranx Run keeps its ``name``, a file its tag.
    rows : bool, default False
        Also accept an iterable of namedtuples with the fields ``query_id,
        doc_id, score`` (ir_measures' ``ScoredDoc``, as its readers yield them).

    Returns
    -------
    Run

    Raises
    ------
    TypeError
        Anything else (the message names ``arg``, the type passed and what is
        accepted; qrels passed as a run are named as such).
    ValueError
        Malformed content (missing columns, nulls, scores that are not finite ...).
    """
    if isinstance(x, Run):
        if ties is not None and x.ties != ties:
            tie_mode(ties)
            raise ValueError(f"{arg}: ties={ties!r}, but the Run object holds equal scores in {x.ties!r} "
                             f"order; pass the dict, DataFrame or file, or build the Run with ties={ties!r}")
        return x
    return to_run(x, read_run, arg=arg, run_id=run_id, rows=rows, ties="trec" if ties is None else ties)


def results_frame(results: Mapping[Any, Any], tidy: bool = False) -> Any:
    """Evaluation results as a pandas DataFrame.

    Takes what [`irscore.evaluate`][irscore.evaluate] returns (``{measure: {query_id: value}}``
    with ``per_query=True``, ``{measure: summary}`` without) or what
    [`irscore.batch.evaluate`][irscore.batch.evaluate] returns (``{measure: array}``, the queries
    numbered 0, 1, ...).  Measure keys are written as strings (ir_measures
    objects by their name).

    Parameters
    ----------
    results : mapping
        ``{measure: {query_id: value}}``, ``{measure: value}`` or
        ``{measure: array}``.
    tidy : bool, default False
        False: wide, one row per query (``query_id`` and one column per
        measure; a summary is one row with ``query_id`` ``"all"``, as
        trec_eval prints it).  True: long, columns ``query_id, measure, value``
        (ir_measures' ``iter_calc`` order: by query, then measure as asked).

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    TypeError
        A value that is neither a number, a mapping nor a 1-D array.
    """
    pd = require_pandas("results_frame")
    names = [str(k) for k in results]
    per_query: Dict[str, Dict[Any, Any]] = {}
    for name, v in zip(names, results.values()):
        if isinstance(v, Mapping):
            per_query[name] = dict(v)
        elif isinstance(v, np.ndarray) and v.ndim == 1:
            per_query[name] = dict(enumerate(v.tolist()))
        elif isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            per_query[name] = {"all": v}
        else:
            raise TypeError(f"results[{name!r}]: expected a number, a mapping or a 1-D array, "
                            f"got {type(v).__name__}")
    qids: List[Any] = list(dict.fromkeys(q for d in per_query.values() for q in d))
    if tidy:
        rows = [(q, n, per_query[n][q]) for q in qids for n in names if q in per_query[n]]
        return pd.DataFrame(rows, columns=["query_id", "measure", "value"])
    frame = pd.DataFrame({"query_id": qids})
    for n in names:
        d = per_query[n]
        frame[n] = [d.get(q, float("nan")) for q in qids]
    return frame
