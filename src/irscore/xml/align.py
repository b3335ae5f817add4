"""Alignment of a run with the assessments and the one native pass over it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Tuple

import numpy as np

from irscore import _xml_focused
from irscore.xml.model import EMPTY_F, EMPTY_I, I64, XmlQrels, XmlRun, csr

# ---------------------------------------------------------------------------
# alignment and the one pass
# ---------------------------------------------------------------------------


@dataclass
class Aligned:
    topics: List[str]
    run_off: np.ndarray
    run_doc: np.ndarray
    run_start: np.ndarray
    run_end: np.ndarray
    hl: Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    el: Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    el_rows: np.ndarray
    ndocs: int
    qt: np.ndarray  # qrels topic index per aligned topic
    run_rows: np.ndarray = field(default_factory=lambda: EMPTY_I)  # row of the run (XmlRun arrays) of each aligned result


def gather(off: np.ndarray, sel: np.ndarray, *arrays: np.ndarray):
    """Concatenate CSR slices ``sel`` of ``arrays``; returns (new_off, rows, *arrays)."""
    lo = off[sel]
    hi = off[sel + 1]
    counts = hi - lo
    new_off = csr(counts.tolist())
    total = int(new_off[-1])
    rows: np.ndarray = EMPTY_I
    if total:
        rows = np.repeat(lo - new_off[:-1], counts) + np.arange(total, dtype=I64)
    return (new_off, rows) + tuple(np.ascontiguousarray(a[rows]) for a in arrays)


def align_run(qrels: XmlQrels, run: XmlRun, complete: bool) -> Aligned:
    if not isinstance(qrels, XmlQrels):
        raise TypeError(f"qrels must be an XmlQrels, got {type(qrels).__name__}")
    if not isinstance(run, XmlRun):
        raise TypeError(f"run must be an XmlRun, got {type(run).__name__}")
    # as `irscore eval`: nothing to evaluate is an error, not a row of zeros
    if len(qrels.topics) == 0:
        raise ValueError("qrels: no assessed topics")
    if complete:
        topics = list(qrels.topics)
    else:
        topics = [t for t in qrels.topics if t in run.topic_index]
        if not topics:
            raise ValueError("no topics with both results and assessments (qrels topics e.g. "
                             f"{list(qrels.topics)[:3]}, run topics e.g. {list(run.topics)[:3]})")
    topics.sort(key=topic_key)
    qt = np.asarray([qrels.topic_index[t] for t in topics], dtype=I64)
    # run rows of each aligned topic (missing topic -> empty)
    rt = np.asarray([run.topic_index.get(t, -1) for t in topics], dtype=I64)
    has = rt >= 0
    lo = np.zeros(len(rt), dtype=I64)
    hi = np.zeros(len(rt), dtype=I64)
    lo[has] = run.off[rt[has]]
    hi[has] = run.off[rt[has] + 1]
    counts = hi - lo
    run_off = csr(counts.tolist())
    total = int(run_off[-1])
    rows = (np.repeat(lo - run_off[:-1], counts) + np.arange(total, dtype=I64)) if total else EMPTY_I
    # translate run document codes into the qrels space (unknown -> new codes)
    trans = np.empty(len(run.docs), dtype=I64)
    nq = len(qrels.docs)
    extra = nq
    for i, d in enumerate(run.docs):
        c = qrels.doc_index.get(d)
        if c is None:
            c = extra
            extra += 1
        trans[i] = c
    run_doc = trans[run.doc[rows]] if total else EMPTY_I
    hl = gather(qrels.hl_off, qt, qrels.hl_doc, qrels.hl_start, qrels.hl_end)
    el = gather(qrels.el_off, qt, qrels.el_doc, qrels.el_start, qrels.el_end)
    return Aligned(
        topics=topics,
        run_off=run_off,
        run_doc=np.ascontiguousarray(run_doc, dtype=I64),
        run_start=np.ascontiguousarray(run.start[rows]),
        run_end=np.ascontiguousarray(run.end[rows]),
        hl=(hl[0], hl[2], hl[3], hl[4]),
        el=(el[0], el[2], el[3], el[4], el[1]),
        el_rows=el[1],
        ndocs=extra,
        qt=qt,
        run_rows=rows,
    )


def topic_key(t: str):
    return (0, int(t), t) if t.isdigit() else (1, 0, t)


@dataclass
class Pass:
    size: np.ndarray
    covered: np.ndarray
    contained: np.ndarray
    rsize: np.ndarray
    novel_rel: np.ndarray
    rval: np.ndarray
    tree_w: np.ndarray
    match: np.ndarray
    ideal_of: np.ndarray


def run_pass(al: Aligned, ideal: Tuple[np.ndarray, ...], alpha_hix: float, alpha_xcg: float,
              el_q: np.ndarray, use_elements: bool, seen: str = "ancestor",
              el_rsize: np.ndarray = EMPTY_F) -> Pass:
    n = len(al.run_doc)
    out_int = np.empty((7, n), I64)
    out_float = np.empty((2, n))
    ntop = len(al.topics)
    if use_elements:
        el_off, el_doc, el_start, el_end, _ = al.el
    else:
        el_off, el_doc, el_start, el_end, el_q = np.zeros(ntop + 1, I64), EMPTY_I, EMPTY_I, EMPTY_I, EMPTY_F
        el_rsize = EMPTY_F
    _check_key_range(al, ideal[0], el_off)
    _xml_focused.focused_pass(
        (al.run_off, al.run_doc, al.run_start, al.run_end), (al.hl[0], al.hl[1], al.hl[2], al.hl[3]),
        (el_off, el_doc, el_start, el_end, np.ascontiguousarray(el_q, dtype=np.float64)),
        (ideal[0], ideal[1], ideal[2], ideal[3]),
        np.ascontiguousarray(el_rsize, dtype=np.float64),
        {"ndocs": al.ndocs, "alpha_hix": float(alpha_hix), "alpha_xcg": float(alpha_xcg),
         "seen_mode": 0 if seen == "overlap" else 1},
        out_int, out_float,
    )
    return Pass(size=out_int[0], covered=out_int[1], contained=out_int[2], rsize=out_int[3], novel_rel=out_int[4],
                rval=out_float[0], tree_w=out_float[1], match=out_int[5], ideal_of=out_int[6])


def _check_key_range(al: Aligned, id_off: np.ndarray, el_off: np.ndarray) -> None:
    n = (np.diff(al.run_off) + np.diff(al.hl[0]) + np.diff(el_off) + np.diff(id_off)).astype(np.float64)
    if n.size:
        m = 2.0 * n + 3.0
        worst = float(np.max(m * m * (np.maximum(np.diff(al.run_off), np.diff(el_off)) + 1.0)))
        if worst >= 2.0 ** 62:
            raise ValueError("a topic has too many spans for the 64-bit sort keys (about 10^6 per topic at most)")
