"""``Qrels`` and ``Run`` from columns (Arrow arrays, pandas Series, NumPy
arrays) without a Python object per row.

[`Qrels.from_pandas`][irscore.core.data.Qrels.from_pandas]/[`Run.from_pandas`][irscore.core.data.Run.from_pandas] go through a dict of dicts,
about a microsecond per row.  These builders read the document ids straight
from an Arrow string column (its byte buffer and offsets), so a batch of
millions of rows -- a partition on a Spark or Dask worker -- becomes a
``Qrels``/``Run`` in a fraction of that time.  They need ``pyarrow``.

Values follow [`Qrels.from_pandas`][irscore.core.data.Qrels.from_pandas]/[`Run.from_pandas`][irscore.core.data.Run.from_pandas]: ids are
compared as strings (integer ids are cast, ``7`` -> ``"7"``); relevance must
be integral, scores finite; nulls are refused.  Unlike ``from_pandas``
(a dict, so the last of repeated judgments silently wins), repeated
(query, doc) judgments keep the last one in row order with a warning, as
[`irscore.read_qrels`][irscore.read_qrels] does, and repeated run entries reach
[`irscore.evaluate`][irscore.evaluate], which keeps the best-ranked one.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from irscore import _trec_io
from irscore.core.data import Qrels, Run, frame_columns

__all__ = ["qrels_from_columns", "run_from_columns", "empty_run", "qrels_from_frame", "run_from_frame"]

_INT32 = (-2147483648, 2147483647)


def _arrow(values: Any, what: str) -> Any:
    """One pyarrow Array (chunks combined) of ``values``."""
    import pyarrow as pa

    if not isinstance(values, (pa.Array, pa.ChunkedArray)):
        try:
            values = pa.array(values)   # a chunked array for a pyarrow-backed pandas column of several chunks
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as exc:
            raise TypeError(f"{what}: cannot read the column as an array ({exc})") from None
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if values.null_count:
        raise ValueError(f"{what}: {values.null_count} null value(s)")
    return values


def _strings(values: Any, what: str) -> Any:
    """``values`` as an Arrow large_string array (ids cast to text)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = _arrow(values, what)
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.dictionary_decode()
        t = arr.type
    if pa.types.is_floating(t):
        raise TypeError(f"{what}: ids must be strings or integers, got {t}")
    if not pa.types.is_large_string(t):
        try:
            arr = pc.cast(arr, pa.large_string())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise TypeError(f"{what}: ids must be strings or integers, got {t} ({exc})") from None
    return arr


def _encode_ids(arr: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(doc_buf, doc_off starting at 0, doc_hash) of a large_string array."""
    n = len(arr)
    bufs = arr.buffers()
    off = np.frombuffer(bufs[1], dtype=np.int64)[arr.offset:arr.offset + n + 1] if n else np.zeros(1, np.int64)
    lo, hi = int(off[0]), int(off[-1])
    data = np.frombuffer(bufs[2], dtype=np.uint8)[lo:hi] if (bufs[2] is not None and hi > lo) else \
        np.zeros(0, np.uint8)
    doc_buf = np.ascontiguousarray(data)
    doc_off = np.ascontiguousarray(off - lo, dtype=np.int64)
    doc_hash = _trec_io.hash_slices(doc_buf, doc_off)
    return doc_buf, doc_off, doc_hash


def _parsed(query_ids: Any, doc_ids: Any, what: str) -> Dict[str, Any]:
    import pyarrow.compute as pc

    q = _strings(query_ids, f"{what}: query ids")
    d = _strings(doc_ids, f"{what}: doc ids")
    if len(q) != len(d):
        raise ValueError(f"{what}: {len(q)} query ids but {len(d)} doc ids")
    enc = pc.dictionary_encode(q)
    qidx = np.ascontiguousarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int32)
    names: List[str] = enc.dictionary.to_pylist()
    doc_buf, doc_off, doc_hash = _encode_ids(d)
    return {"query_ids": names, "qidx": qidx, "doc_buf": doc_buf, "doc_off": doc_off, "doc_hash": doc_hash}


def _numbers(values: Any, n: int, what: str) -> np.ndarray:
    import pyarrow as pa

    if isinstance(getattr(values, "dtype", None), np.dtype) and values.dtype.kind == "f":
        values = np.asarray(values)     # a NaN of a pandas float column stays NaN (pyarrow reads it as null)
    arr = _arrow(values, what)
    if len(arr) == 0 == n:
        return np.zeros(0, dtype=np.float64)
    if not (pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type) or pa.types.is_boolean(arr.type)):
        raise TypeError(f"{what}: expected numbers, got {arr.type}")
    if len(arr) != n:
        raise ValueError(f"{what}: {len(arr)} values for {n} rows")
    return np.asarray(arr.to_numpy(zero_copy_only=False))


def qrels_from_columns(query_ids: Any, doc_ids: Any, relevance: Any, *, source: str = "qrels") -> Qrels:
    """A [`Qrels`][irscore.Qrels] from three equally long columns (at least one row)."""
    parsed = _parsed(query_ids, doc_ids, source)
    rel = _numbers(relevance, len(parsed["qidx"]), f"{source}: relevance")
    if rel.dtype.kind == "f":
        bad = ~np.isfinite(rel) | (rel != np.floor(rel))
        if bad.any():
            raise ValueError(f"{source}: relevance {float(rel[bad][0])!r} is not an integer")
    if rel.size and (rel.min() < _INT32[0] or rel.max() > _INT32[1]):
        raise ValueError(f"{source}: relevance out of the int32 range")
    parsed["grades"] = rel.astype(np.int32)
    return Qrels(parsed, source=source)


def run_from_columns(query_ids: Any, doc_ids: Any, scores: Any, *, run_id: str = "irscore",
                     source: str = "run", ties: str = "trec") -> Run:
    """A [`Run`][irscore.Run] from three equally long columns; no rows gives a run
    without queries (`empty_run`).  ``ties="input"``: equal scores in
    row order."""
    parsed = _parsed(query_ids, doc_ids, source)
    if len(parsed["qidx"]) == 0:
        return empty_run(run_id)
    sc = _numbers(scores, len(parsed["qidx"]), f"{source}: scores").astype(np.float64)
    if not np.isfinite(sc).all():
        raise ValueError(f"{source}: score {float(sc[~np.isfinite(sc)][0])!r} is not finite")
    parsed["scores"] = np.ascontiguousarray(sc)
    parsed["run_id"] = run_id
    return Run(parsed, source=source, ties=ties)


def empty_run(run_id: str = "irscore") -> Run:
    """A run without queries: with ``complete=True`` every qrels query is
    scored as trec_eval scores a query without a ranking."""
    run = Run.__new__(Run)
    run.query_ids = []
    run.offsets = np.zeros(1, dtype=np.int64)
    run.doc_buf = np.zeros(0, dtype=np.uint8)
    run.doc_start = np.zeros(0, dtype=np.int64)
    run.doc_len = np.zeros(0, dtype=np.int32)
    run.doc_hash = np.zeros(0, dtype=np.uint64)
    run.scores = np.zeros(0, dtype=np.float64)
    run.run_id = run_id
    return run


def qrels_from_frame(df: Any) -> Optional[Qrels]:
    """A [`Qrels`][irscore.Qrels] from a pandas DataFrame (the columns of
    [`Qrels.from_pandas`][irscore.core.data.Qrels.from_pandas]) through Arrow, without a Python object per
    row; None when the frame is not one this path reads exactly as
    [`Qrels.from_pandas`][irscore.core.data.Qrels.from_pandas] does (no pyarrow, no rows, ids that are neither
    strings nor integers, grades that are not integers, nulls, out-of-range
    values): then use [`Qrels.from_pandas`][irscore.core.data.Qrels.from_pandas], which reports the errors.
    A repeated (query, doc) pair keeps its last judgment, with a warning,
    as from a file."""
    out: Optional[Qrels] = _from_frame(df, "relevance", "qrels", qrels_from_columns)
    return out


def run_from_frame(df: Any, ties: str = "trec") -> Optional[Run]:
    """A [`Run`][irscore.Run] from a pandas DataFrame (the columns of
    [`Run.from_pandas`][irscore.core.data.Run.from_pandas]), as `qrels_from_frame`; None when
    [`Run.from_pandas`][irscore.core.data.Run.from_pandas] must read it.  Repeated (query, doc) entries are
    kept, as from a file: [`irscore.evaluate`][irscore.evaluate] keeps the best-ranked one
    and warns."""
    out: Optional[Run] = _from_frame(df, "score", "run", functools.partial(run_from_columns, ties=ties))
    return out


def _from_frame(df: Any, value: str, what: str, build: Callable[..., Any]) -> Any:
    """``build(query ids, doc ids, values, source=what)`` on the frame's columns, or
    None when this path cannot read the frame exactly (see `qrels_from_frame`)."""
    cols = _frame_arrays(df, value, what)
    if cols is None:
        return None
    try:
        return build(*cols, source=what)
    except (ValueError, TypeError):
        return None


def _frame_arrays(df: Any, value: str, what: str) -> Optional[Tuple[Any, Any, Any]]:
    """The (query ids, doc ids, values) columns of ``df`` when this module
    reads them as ``astype(str)`` and ``tolist()`` would, else None."""
    try:
        import pandas as pd
        import pyarrow  # noqa: F401
    except ModuleNotFoundError:
        return None
    if not isinstance(df, pd.DataFrame) or len(df) == 0:
        return None
    qcol, dcol, vcol = frame_columns(df, value, what)
    if not (_plain_ids(df[qcol], pd) and _plain_ids(df[dcol], pd)):
        return None
    dtype = df[vcol].dtype
    api = pd.api.types
    numeric = api.is_integer_dtype(dtype) or (value == "score" and api.is_float_dtype(dtype))
    if api.is_bool_dtype(dtype) or not numeric:
        return None
    return df[qcol], df[dcol], df[vcol]


def _plain_ids(col: Any, pd: Any) -> bool:
    """Integer or string ids: their text is ``str(id)``, as Arrow casts them."""
    api = pd.api.types
    dtype = col.dtype
    if api.is_bool_dtype(dtype):
        return False
    if api.is_integer_dtype(dtype) or isinstance(dtype, pd.StringDtype):
        return True
    if isinstance(dtype, pd.CategoricalDtype):
        return _plain_ids(pd.Series(dtype.categories), pd)
    if isinstance(dtype, pd.ArrowDtype):
        import pyarrow as pa

        return bool(pa.types.is_string(dtype.pyarrow_dtype) or pa.types.is_large_string(dtype.pyarrow_dtype))
    return dtype == object and api.infer_dtype(col, skipna=False) == "string"
