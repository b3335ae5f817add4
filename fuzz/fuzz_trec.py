"""Fuzz target: TREC qrels/run files (bytes -> file -> read_qrels / read_run).

Invariants on success: the file parsed in one piece and the same bytes fed to
the native tokenizer in two chunks split anywhere give the same columns; the
parallel reader (the file cut into 1-8 parts) gives the same object; the
object converts back to a dict; evaluating the file as its own qrels/run gives
values in [0, 1] for the bounded measures.
"""
from __future__ import annotations

import gzip
import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import check, check_unit, guarded, main, temp_file  # noqa: E402

with atheris.instrument_imports(include=["irscore"]):
    import numpy as np

    import irscore
    from irscore import _trec_io
    from irscore.core import io as _io
    from irscore.core.data import Qrels, Run

BOUNDED = ["AP", "nDCG@5", "P@3", "RR", "Rprec", "Bpref", "SetF", "R@5"]


def _columns(parsed):
    return {k: (v.tobytes() if isinstance(v, np.ndarray) else v) for k, v in parsed.items()}


def test_one_input(data: bytes) -> None:
    if len(data) < 2:
        return
    mode, split = data[0], data[1]
    body = data[2:]
    kind = "run" if mode & 1 else "qrels"
    if mode & 2:                         # sometimes a gzip file (mode & 4: truncated)
        gz = gzip.compress(body, mtime=0)
        if mode & 4:
            gz = gz[: max(2, len(gz) * split // 256)]
        path = temp_file(gz, ".gz")
    else:
        path = temp_file(body)
    reader = irscore.read_run if kind == "run" else irscore.read_qrels
    obj = guarded(reader, path)
    if obj is None or mode & 2:
        return
    # same bytes in two chunks (split anywhere) -> same columns as one chunk
    cut = len(body) * split // 256
    whole = _trec_io.TrecParser(kind, path)
    whole.feed(body)
    parts = _trec_io.TrecParser(kind, path)
    parts.feed(body[:cut])
    parts.feed(body[cut:])
    a, b = _columns(whole.finish()), _columns(parts.finish())
    check(a == b, f"chunk split at {cut} changes the parse")
    # the parallel reader, in 1-8 parts: the same object
    split_obj = guarded(lambda: (Run if kind == "run" else Qrels)(
        _io._parse_split(path, kind, split % 8 + 1), source=path))
    check(split_obj is not None and split_obj.query_ids == obj.query_ids
          and np.array_equal(split_obj.offsets, obj.offsets) and np.array_equal(split_obj.doc_hash, obj.doc_hash)
          and all(split_obj.doc_ids(q) == obj.doc_ids(q) for q in obj.query_ids)
          and np.array_equal(getattr(split_obj, "scores", split_obj.doc_len), getattr(obj, "scores", obj.doc_len))
          and np.array_equal(getattr(split_obj, "grades", split_obj.doc_len), getattr(obj, "grades", obj.doc_len)),
          f"the parallel reader ({split % 8 + 1} parts) differs from the streaming reader")
    d = guarded(obj.to_dict)
    if d is None:
        return
    if kind == "qrels":
        res = guarded(irscore.evaluate, obj, {q: {doc: 1.0 for doc in docs} for q, docs in d.items()}, BOUNDED)
    else:
        res = guarded(irscore.evaluate, {q: {doc: 1 for doc in docs} for q, docs in d.items()}, obj, BOUNDED)
    if res is not None:
        for k, v in res.items():
            check_unit(v, k)


if __name__ == "__main__":
    main(test_one_input)
