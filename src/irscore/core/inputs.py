"""What the entry points accept as qrels and as a run, and the one converter
that turns each into a [`Qrels`][irscore.Qrels] or a [`Run`][irscore.Run].

Accepted: irscore's own objects; dicts ``{query_id: {doc_id: value}}``
(pytrec_eval's form); pandas DataFrames; polars DataFrames and LazyFrames
(a LazyFrame is collected once); pyarrow Tables and RecordBatches; ranx
``Qrels`` / ``Run`` objects; paths of TREC files.  Frames take the column
names of ir_measures (``query_id, doc_id, relevance`` / ``score``),
PyTerrier (``qid, docno, label``) or ranx (``q_id, doc_id, score``).

polars and pyarrow data go straight to the Arrow column builders of
[`irscore.core.frames`][irscore.core.frames] (no pandas, no Python object per
row); ids that are neither strings nor integers are refused there.  Neither
polars, pyarrow nor ranx is imported here: an object of theirs can only
exist when its module is loaded, so they are recognised through
``sys.modules``.  Anything else is a one-line ``TypeError`` naming the
argument, what was passed and what is accepted; a run passed as qrels (or
the reverse) is named as such.

[`irscore.core.io.as_qrels`][irscore.core.io.as_qrels] and
[`as_run`][irscore.core.io.as_run] are the public spellings (they add the
TREC file readers).
"""
from __future__ import annotations

import os
import sys
from typing import Any, Callable, Dict, Iterable, Mapping, Optional

from irscore.core.data import Qrels, Run, arrow_table, frame_columns
from irscore.core.frames import qrels_from_columns, qrels_from_frame, run_from_columns, run_from_frame

__all__ = ["ACCEPTED", "ROWS", "PATH_TYPES", "ranx_kind", "describe", "is_rows", "to_qrels", "to_run"]

#: what each argument accepts, as the error messages say it
ACCEPTED = {
    "qrels": ("a Qrels, a dict {query_id: {doc_id: relevance}}, a pandas or polars DataFrame (or polars "
              "LazyFrame), a pyarrow Table, a ranx Qrels or the path of a TREC qrels file"),
    "run": ("a Run, a dict {query_id: {doc_id: score}}, a pandas or polars DataFrame (or polars LazyFrame), "
            "a pyarrow Table, a ranx Run or the path of a TREC run file"),
}

#: what ``rows=True`` accepts too: ir_measures' readers yield such namedtuples
ROWS = {"qrels": "an iterable of Qrel namedtuples", "run": "an iterable of ScoredDoc namedtuples"}

PATH_TYPES = (str, bytes, os.PathLike)


def ranx_kind(x: Any) -> Optional[str]:
    """``"Qrels"`` or ``"Run"`` for ranx's objects, else None (ranx is not imported)."""
    rx = sys.modules.get("ranx")
    if rx is None:
        return None
    if isinstance(x, getattr(rx, "Qrels", ())):
        return "Qrels"
    if isinstance(x, getattr(rx, "Run", ())):
        return "Run"
    return None


def describe(x: Any) -> str:
    """The type of ``x`` as an error message names it (``list``, ``polars.DataFrame`` ...)."""
    t = type(x)
    module = t.__module__.split(".")[0]
    return t.__qualname__ if module == "builtins" else f"{module}.{t.__qualname__}"


def _is_frame(x: Any) -> bool:
    """A pandas-like DataFrame (columns by name)."""
    return hasattr(x, "columns") and hasattr(x, "__getitem__") and not isinstance(x, Mapping)


def _wrong_side(x: Any, arg: str, want: str) -> Optional[TypeError]:
    """The error for a run passed as qrels (``want`` "qrels") or qrels passed as a run."""
    other = "Run" if want == "qrels" else "Qrels"
    ours = isinstance(x, Run if want == "qrels" else Qrels)
    if not ours and ranx_kind(x) != other:
        return None
    what = f"{'an irscore' if ours else 'a ranx'} {other}"
    if want == "qrels":
        return TypeError(f"{arg}: got {what} (a ranking), not judgments: pass it as run, and as {arg} "
                         f"{ACCEPTED['qrels']}")
    return TypeError(f"{arg}: got {what} (judgments), not a ranking: pass it as qrels, and as {arg} "
                     f"{ACCEPTED['run']}")


def _unsupported(x: Any, arg: str, want: str, rows: bool = False) -> TypeError:
    return TypeError(f"{arg}: expected {ROWS[want] + ', ' if rows else ''}{ACCEPTED[want]}; got {describe(x)}")


def is_rows(x: Any) -> bool:
    """An iterable that is none of the other accepted forms: read as rows
    (namedtuples with fields ``query_id, doc_id`` and the value) when ``rows=True``."""
    return (hasattr(x, "__iter__") and not isinstance(x, (Mapping, Qrels, Run) + PATH_TYPES)
            and not hasattr(x, "columns") and ranx_kind(x) is None and arrow_table(x) is None)


def _rows_to_dict(rows: Iterable[Any], value: str, arg: str) -> Dict[str, Dict[str, Any]]:
    out: Dict[str, Dict[str, Any]] = {}
    for n, row in enumerate(rows):
        try:
            q, d, v = row.query_id, row.doc_id, getattr(row, value)
        except AttributeError:
            raise TypeError(f"{arg}: item {n} is not a namedtuple with fields query_id, doc_id, {value} "
                            f"(got {row!r})") from None
        out.setdefault(str(q), {})[str(d)] = v
    return out


def to_qrels(x: Any, read: Callable[[Any], Qrels], *, arg: str = "qrels", rows: bool = False) -> Qrels:
    """``x`` as a [`Qrels`][irscore.Qrels]; ``read`` reads a path; ``arg``: the
    argument's name in messages; ``rows``: an iterable of ``Qrel`` namedtuples
    (``query_id, doc_id, relevance``) is accepted too."""
    if isinstance(x, Qrels):
        return x
    if isinstance(x, Mapping):
        return Qrels.from_dict(x)
    if isinstance(x, PATH_TYPES):
        return read(x)
    wrong = _wrong_side(x, arg, "qrels")
    if wrong is not None:
        raise wrong
    if ranx_kind(x) == "Qrels":
        return Qrels.from_dict(x.to_dict())
    table = arrow_table(x)
    if table is not None:
        q, d, v = frame_columns(table, "relevance", arg)
        return qrels_from_columns(table.column(q), table.column(d), table.column(v), source=arg)
    if _is_frame(x):
        fast = qrels_from_frame(x)
        return fast if fast is not None else Qrels.from_pandas(x)
    if rows and is_rows(x):
        return Qrels.from_dict(_rows_to_dict(x, "relevance", arg))
    raise _unsupported(x, arg, "qrels", rows)


def to_run(x: Any, read: Callable[..., Run], *, arg: str = "run", run_id: Optional[str] = None,
           rows: bool = False, **kw: Any) -> Run:
    """``x`` as a [`Run`][irscore.Run]; ``read`` reads a path; ``run_id``: the
    name of a run built from data that carries none (a ranx Run keeps its
    ``name``); ``rows``: an iterable of ``ScoredDoc`` namedtuples (``query_id,
    doc_id, score``) is accepted too; ``kw``: options of the run builders (``ties``)."""
    if isinstance(x, Run):
        return x
    rid = "irscore" if run_id is None else str(run_id)
    if isinstance(x, Mapping):
        return Run.from_dict(x, run_id=rid, **kw)
    if isinstance(x, PATH_TYPES):
        return read(x, **kw)
    wrong = _wrong_side(x, arg, "run")
    if wrong is not None:
        raise wrong
    if ranx_kind(x) == "Run":
        return Run.from_dict(x.to_dict(), run_id=str(getattr(x, "name", None) or rid), **kw)
    table = arrow_table(x)
    if table is not None:
        q, d, v = frame_columns(table, "score", arg)
        return run_from_columns(table.column(q), table.column(d), table.column(v), run_id=rid, source=arg, **kw)
    if _is_frame(x):
        fast = run_from_frame(x, **kw)
        if fast is not None:
            fast.run_id = rid
            return fast
        return Run.from_pandas(x, run_id=rid, **kw)
    if rows and is_rows(x):
        return Run.from_dict(_rows_to_dict(x, "score", arg), run_id=rid, **kw)
    raise _unsupported(x, arg, "run", rows)

