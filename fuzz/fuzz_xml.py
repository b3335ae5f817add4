"""Fuzz target: XML retrieval readers (irscore.xml: passage qrels, FOL runs,
element TSV, INEX XML assessments and runs).

The input is split in two at a byte chosen by the input: the first part is
read as assessments, the second as a run.  Invariants when both parse: the
precision-type measures of :func:`irscore.xml.evaluate` are in [0, 1], and so
are the recall-type ones for runs without overlapping results.
"""
from __future__ import annotations

import os
import sys
import zlib

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import check, check_unit, guarded, main, temp_file  # noqa: E402

with atheris.instrument_imports(include=["irscore"]):
    from irscore import xml as X
    from irscore.xml.readers import norm_path

LAYOUT = X.layout_from_sizes({
    "art": [("/article[1]", 300), ("/article[1]/sec[1]", 100), ("/article[1]/sec[2]", 200)],
    "a": [("/article[1]", 1000), ("/article[1]/bdy[1]", 600), ("/article[1]/bdy[1]/sec[1]", 200)],
})


def layout(doc: str, path: str):
    """Known documents from LAYOUT; any other path gets a span derived from its name."""
    sp = LAYOUT.get(doc, {}).get(norm_path(path))
    if sp is not None:
        return sp
    h = zlib.crc32(f"{doc}\0{path}".encode("utf-8", "surrogatepass"))
    start = h % 997
    return (start, start + 1 + (h >> 12) % 500)


PRECISION = ["hixP@5", "iP[0.00]", "iP[0.10]", "MAiP"]
RECALL = ["hixR@5", "hixF@5", "nxCG@5", "MAep"]


def _qrels(kind: int, path: str):
    if kind == 0:
        return guarded(X.read_passage_qrels, path)
    if kind == 1:
        return guarded(X.read_passage_qrels, path, check_relchars=False)
    if kind == 2:
        return guarded(X.read_element_tsv, path, exh_max=2)
    return guarded(X.read_inex_assessments, path, layout)


def _run(kind: int, path: str, qrels):
    if kind == 0:
        return guarded(X.read_fol_run, path, qrels)
    if kind == 1:
        return guarded(X.read_fol_run, path, None, allow_overlap=False)
    if kind == 2:
        return guarded(X.read_fol_run, path, None, order="input")
    return guarded(X.read_inex_run, path, layout)


def _overlaps(run) -> bool:
    for t in range(len(run.topics)):
        sl = slice(int(run.off[t]), int(run.off[t + 1]))
        spans = sorted(zip(run.doc[sl].tolist(), run.start[sl].tolist(), run.end[sl].tolist()))
        for (d1, _, e1), (d2, s2, _) in zip(spans, spans[1:]):
            if d1 == d2 and s2 < e1:
                return True
    return False


def test_one_input(data: bytes) -> None:
    if len(data) < 2:
        return
    mode, split = data[0], data[1]
    body = data[2:]
    cut = len(body) * split // 256
    qk, rk = mode & 3, (mode >> 2) & 3
    qrels = _qrels(qk, temp_file(body[:cut], ".qrels"))
    run = _run(rk, temp_file(body[cut:], ".run"), qrels if mode & 16 else None)
    if qrels is None or run is None:
        return
    names = PRECISION + (RECALL if qrels.has_passages and not _overlaps(run) else [])
    if not qrels.has_passages:
        names = ["nxCG@5", "MAep"]
    res = guarded(X.evaluate, qrels, run, names, per_query=True)
    if res is None:
        return
    for name, per_topic in res.items():
        for t, v in per_topic.items():
            if name.startswith(("nxCG", "MAep")) and float(v) > 1:
                check(False, f"{name}[{t}] = {v!r} outside [0, 1]",
                      "nxCG/MAep above 1 when a result crosses a highlighted passage's boundary "
                      "(tests/fuzz/test_fuzz_xml.py::test_crossing_result_keeps_xcg_at_most_one)")
                continue
            check_unit(v, f"{name}[{t}]")


if __name__ == "__main__":
    main(test_one_input)
