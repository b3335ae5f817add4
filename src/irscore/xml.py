"""XML and focused retrieval measures (SPEC section 5).

Elements and passages are character spans ``(doc, start, end)``, half-open;
nesting is containment.  A run is a ranked list of spans per topic; the
assessments are highlighted passages (INEX 2007+, ``XmlQrels.passages``) and/or
assessed elements carrying exhaustivity and specificity (INEX 2002-2006,
``XmlQrels.elements``).

Entry points
------------
- readers: :func:`read_passage_qrels`, :func:`read_fol_run`,
  :func:`read_element_tsv`, :func:`read_inex_assessments`, :func:`read_inex_run`
- in-memory: :meth:`XmlQrels.from_passages`, :meth:`XmlQrels.from_elements`,
  :meth:`XmlRun.from_spans`
- :func:`evaluate` computes many measures in one pass (names as in the CLI:
  ``iP[0.01]``, ``MAiP``, ``nxCG@10``, ``MAep``, ``hixF@10``, ...);
  :func:`overlap`, :func:`xcg`, :func:`hixeval`, :func:`interpolated_precision`,
  :func:`inex_eval`, :func:`inex_eval_ng`, :func:`generalized_precision`,
  :func:`eprum`, :func:`t2i` are the per-family functions.

Every reading SPEC marks is a named parameter; the defaults are documented on
each function and in the README (section "XML / focused retrieval").
"""
from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, field
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import numpy as np

from . import _xml
from ._inputs import open_text, read_bytes
from .measures import running_mean

Span = Tuple[str, int, int]
Quantisation = Union[str, Callable[[np.ndarray, np.ndarray], np.ndarray], Mapping[Tuple[float, float], float]]

_I64 = np.int64
_EMPTY_I = np.zeros(0, dtype=_I64)
_EMPTY_F = np.zeros(0, dtype=np.float64)


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------


def _csr(counts: Any) -> np.ndarray:
    off = np.zeros(len(counts) + 1, dtype=_I64)
    if len(counts):
        np.cumsum(np.asarray(counts, dtype=_I64), out=off[1:])
    return off


class _DocIndex:
    """Document ids <-> integer codes."""

    def __init__(self) -> None:
        self.index: Dict[str, int] = {}
        self.names: List[str] = []

    def code(self, name: str) -> int:
        c = self.index.get(name)
        if c is None:
            c = len(self.names)
            self.index[name] = c
            self.names.append(name)
        return c


@dataclass
class XmlQrels:
    """Assessments for XML / focused retrieval.

    ``passages``: per topic, the highlighted passages, merged so that they are
    disjoint and sorted, as CSR arrays ``hl_off`` / ``hl_doc`` / ``hl_start`` /
    ``hl_end``.  ``elements``: per topic, assessed elements with normalised
    exhaustivity and specificity in [0, 1] (``el_*``; ``el_small`` marks
    INEX 2005 "too small" elements).  ``doclen[code]`` is the document length
    (-1 if unknown), ``bep[(topic, doc)]`` the best entry point.
    """

    topics: List[str]
    docs: List[str]
    doclen: np.ndarray
    hl_off: np.ndarray
    hl_doc: np.ndarray
    hl_start: np.ndarray
    hl_end: np.ndarray
    el_off: np.ndarray
    el_doc: np.ndarray
    el_start: np.ndarray
    el_end: np.ndarray
    el_exh: np.ndarray
    el_spe: np.ndarray
    el_small: np.ndarray
    bep: Dict[Tuple[str, str], int] = field(default_factory=dict)
    has_passages: bool = False
    has_elements: bool = False

    def __post_init__(self) -> None:
        self.doc_index: Dict[str, int] = {d: i for i, d in enumerate(self.docs)}
        self.topic_index: Dict[str, int] = {t: i for i, t in enumerate(self.topics)}

    # -- constructors -----------------------------------------------------
    @classmethod
    def from_passages(
        cls,
        passages: Mapping[str, Iterable[Span]],
        doclens: Optional[Mapping[str, int]] = None,
        beps: Optional[Mapping[Tuple[str, str], int]] = None,
    ) -> "XmlQrels":
        """Highlighted passages ``{topic: [(doc, start, end), ...]}`` (overlapping
        passages of one document are merged)."""
        rows = []
        dl = {str(k): int(v) for k, v in (doclens or {}).items()}
        for topic, spans in passages.items():
            for sp in spans:
                doc, start, end = _check_span(sp, f"passages[{topic!r}]")
                if doc in dl and end > dl[doc]:
                    raise ValueError(f"passages[{topic!r}]: {sp!r} ends past the length {dl[doc]} of document {doc}")
                rows.append((str(topic), doc, start, end))
        topics = list(dict.fromkeys(str(t) for t in passages))
        return _build_qrels(topics, rows, [], doclens or {}, dict(beps or {}), True, False)

    @classmethod
    def from_elements(
        cls,
        elements: Mapping[str, Iterable[Tuple[str, int, int, float, float]]],
        doclens: Optional[Mapping[str, int]] = None,
    ) -> "XmlQrels":
        """Assessed elements ``{topic: [(doc, start, end, exh, spe), ...]}`` with
        exh and spe normalised to [0, 1]; elements of a document must nest."""
        rows = []
        for topic, els in elements.items():
            for el in els:
                if len(el) != 5:
                    raise ValueError(f"elements[{topic!r}]: expected (doc, start, end, exh, spe), got {el!r}")
                doc, start, end = _check_span(el[:3], f"elements[{topic!r}]")
                exh, spe = float(el[3]), float(el[4])
                _check_grade(exh, spe, f"elements[{topic!r}] {el!r}")
                rows.append((str(topic), doc, start, end, exh, spe, False))
        topics = list(dict.fromkeys(str(t) for t in elements))
        return _build_qrels(topics, [], rows, doclens or {}, {}, False, True)

    def topic_passages(self, topic: str) -> List[Span]:
        t = self.topic_index[topic]
        sl = slice(self.hl_off[t], self.hl_off[t + 1])
        return [(self.docs[d], int(s), int(e)) for d, s, e in zip(self.hl_doc[sl], self.hl_start[sl], self.hl_end[sl])]

    def trel(self) -> np.ndarray:
        """Highlighted characters per topic (the Focused Trel)."""
        lens = self.hl_end - self.hl_start
        cs = np.concatenate([[0], np.cumsum(lens)]).astype(_I64)
        return cs[self.hl_off[1:]] - cs[self.hl_off[:-1]]


@dataclass
class XmlRun:
    """A ranked list of spans per topic (CSR ``off``), already in rank order."""

    topics: List[str]
    docs: List[str]
    off: np.ndarray
    doc: np.ndarray
    start: np.ndarray
    end: np.ndarray
    score: np.ndarray
    runid: str = "run"

    def __post_init__(self) -> None:
        self.topic_index: Dict[str, int] = {t: i for i, t in enumerate(self.topics)}

    @classmethod
    def from_spans(
        cls,
        spans: Mapping[str, Sequence[Span]],
        runid: str = "run",
        allow_overlap: bool = True,
    ) -> "XmlRun":
        """``{topic: [(doc, start, end), ...]}`` in rank order (first = rank 1)."""
        di = _DocIndex()
        topics, counts, docs, starts, ends = [], [], [], [], []
        for topic, lst in spans.items():
            topics.append(str(topic))
            counts.append(len(lst))
            for sp in lst:
                doc, s, e = _check_span(sp, f"run[{topic!r}]")
                docs.append(di.code(doc))
                starts.append(s)
                ends.append(e)
        n = len(docs)
        run = cls(
            topics,
            di.names,
            _csr(counts),
            np.asarray(docs, dtype=_I64).reshape(n),
            np.asarray(starts, dtype=_I64).reshape(n),
            np.asarray(ends, dtype=_I64).reshape(n),
            -np.arange(n, dtype=np.float64),
            runid,
        )
        if not allow_overlap:
            _check_no_overlap(run, None, None)
        return run

    def topic_spans(self, topic: str) -> List[Span]:
        t = self.topic_index[topic]
        sl = slice(self.off[t], self.off[t + 1])
        return [(self.docs[d], int(s), int(e)) for d, s, e in zip(self.doc[sl], self.start[sl], self.end[sl])]


def _check_span(sp: Any, where: str) -> Span:
    try:
        doc, start, end = sp
    except (TypeError, ValueError):
        raise TypeError(f"{where}: a span is (doc, start, end), got {sp!r}") from None
    if isinstance(start, bool) or isinstance(end, bool):
        raise TypeError(f"{where}: offsets must be integers, got {sp!r}")
    try:
        s, e = int(start), int(end)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: offsets must be integers, got {sp!r}") from None
    if s != start or e != end:
        raise TypeError(f"{where}: offsets must be integers, got {sp!r}")
    if s < 0:
        raise ValueError(f"{where}: negative start offset in {sp!r}")
    if e < s:
        raise ValueError(f"{where}: end before start (negative length) in {sp!r}")
    return str(doc), s, e


def _check_grade(exh: float, spe: float, where: str) -> None:
    if not (0.0 <= exh <= 1.0) or not (0.0 <= spe <= 1.0) or math.isnan(exh) or math.isnan(spe):
        raise ValueError(f"{where}: exhaustivity and specificity must lie in [0, 1]")


def _build_qrels(
    topics: List[str],
    hl_rows: List[Tuple[str, str, int, int]],
    el_rows: List[Tuple[str, str, int, int, float, float, bool]],
    doclens: Mapping[str, int],
    beps: Dict[Tuple[str, str], int],
    has_passages: bool,
    has_elements: bool,
    where: Optional[Dict[Tuple[str, str, int, int], str]] = None,
) -> XmlQrels:
    di = _DocIndex()
    for dname in doclens:
        di.code(str(dname))
    tindex = {t: i for i, t in enumerate(topics)}
    # passages: merge per (topic, doc)
    per: Dict[Tuple[int, int], List[Tuple[int, int]]] = {}
    for topic, doc, s, e in hl_rows:
        if e > s:
            per.setdefault((tindex[topic], di.code(doc)), []).append((s, e))
    hl: List[Tuple[int, int, int, int]] = []
    for (tk, dk), lst in per.items():
        lst.sort()
        cs, ce = lst[0]
        for ps_, pe_ in lst[1:]:
            if ps_ <= ce:
                ce = max(ce, pe_)
            else:
                hl.append((tk, dk, cs, ce))
                cs, ce = ps_, pe_
        hl.append((tk, dk, cs, ce))
    hl.sort()
    hl_arr = np.asarray(hl, dtype=_I64).reshape(len(hl), 4)
    hl_off = _csr(np.bincount(hl_arr[:, 0], minlength=len(topics)).tolist() if len(hl) else [0] * len(topics))
    # elements: sorted by (topic, doc, start, -end), must nest
    ne = len(el_rows)
    el_t = np.fromiter((tindex[r[0]] for r in el_rows), dtype=_I64, count=ne)
    el_doc = np.fromiter((di.code(r[1]) for r in el_rows), dtype=_I64, count=ne)
    el_start = np.fromiter((r[2] for r in el_rows), dtype=_I64, count=ne)
    el_end = np.fromiter((r[3] for r in el_rows), dtype=_I64, count=ne)
    el_exh = np.fromiter((r[4] for r in el_rows), dtype=np.float64, count=ne)
    el_spe = np.fromiter((r[5] for r in el_rows), dtype=np.float64, count=ne)
    el_small = np.fromiter((r[6] for r in el_rows), dtype=bool, count=ne)
    order = np.lexsort((-el_end, el_start, el_doc, el_t))
    el_t, el_doc, el_start, el_end = el_t[order], el_doc[order], el_start[order], el_end[order]
    el_exh, el_spe, el_small = el_exh[order], el_spe[order], el_small[order]
    el_off = _csr(np.bincount(el_t, minlength=len(topics)) if ne else np.zeros(len(topics), _I64))
    bi, bj, kind = _xml.check_nesting(el_off, el_doc, el_start, el_end)
    if kind:
        t = int(el_t[bi])
        d, s, e = int(el_doc[bi]), int(el_start[bi]), int(el_end[bi])
        loc = ""
        if where is not None:
            la = where.get((topics[t], di.names[d], s, e), "")
            lb = where.get((topics[t], di.names[d], int(el_start[bj]), int(el_end[bj])), "")
            locs = sorted({x for x in (la, lb) if x}, key=_loc_key)
            loc = locs[-1] if locs else ""
        if kind == 1:
            raise ValueError(
                f"{loc + ': ' if loc else ''}assessed elements must nest: "
                f"{di.names[d]} [{s},{e}) crosses [{int(el_start[bj])},{int(el_end[bj])}) (topic {topics[t]})"
            )
        raise ValueError(f"{loc + ': ' if loc else ''}element {di.names[d]} [{s},{e}) assessed twice for topic {topics[t]}")
    doclen = np.full(len(di.names), -1, dtype=_I64)
    for dname, n in doclens.items():
        doclen[di.index[str(dname)]] = int(n)
    return XmlQrels(
        topics=topics,
        docs=di.names,
        doclen=doclen,
        hl_off=hl_off,
        hl_doc=np.ascontiguousarray(hl_arr[:, 1]),
        hl_start=np.ascontiguousarray(hl_arr[:, 2]),
        hl_end=np.ascontiguousarray(hl_arr[:, 3]),
        el_off=el_off,
        el_doc=el_doc,
        el_start=el_start,
        el_end=el_end,
        el_exh=el_exh,
        el_spe=el_spe,
        el_small=el_small,
        bep=beps,
        has_passages=has_passages,
        has_elements=has_elements,
    )


# ---------------------------------------------------------------------------
# readers
# ---------------------------------------------------------------------------


def _loc_key(loc: str) -> Tuple[str, int]:
    head, _, tail = loc.rpartition(":")
    return (head, int(tail)) if tail.isdigit() else (loc, 0)


def _open_text(path: Any):
    return open_text(path)


def _int(tok: str, what: str, loc: str) -> int:
    try:
        return int(tok)
    except ValueError:
        raise ValueError(f"{loc}: {what} must be an integer, got {tok!r}") from None


def read_passage_qrels(path: Any, *, check_relchars: bool = True) -> XmlQrels:
    """Read INEX 2007+ passage qrels: ``topic Q0 doc relchars doclen [bep off:len ...]``.

    ``relchars`` is the number of highlighted characters of the document (0 for
    a judged non-relevant document), ``doclen`` its length, ``bep`` the best
    entry point and each ``off:len`` a highlighted passage.  Errors name the
    file and line.  With ``check_relchars`` the passages must add up to
    ``relchars`` (after merging overlaps).
    """
    rows: List[Tuple[str, str, int, int]] = []
    doclens: Dict[str, int] = {}
    beps: Dict[Tuple[str, str], int] = {}
    topics: Dict[str, None] = {}
    seen: Dict[Tuple[str, str], str] = {}
    with _open_text(path) as fh:
        for ln, line in enumerate(fh, 1):
            toks = line.split()
            if not toks:
                continue
            loc = f"{path}:{ln}"
            if len(toks) < 5:
                raise ValueError(f"{loc}: expected 'topic Q0 doc relchars doclen [bep off:len ...]', got {line.strip()!r}")
            topic, _, doc = toks[0], toks[1], toks[2]
            relchars = _int(toks[3], "relchars", loc)
            dlen = _int(toks[4], "doclen", loc)
            if relchars < 0 or dlen < 0:
                raise ValueError(f"{loc}: negative relchars or doclen")
            if relchars > dlen:
                raise ValueError(f"{loc}: relchars {relchars} exceeds the document length {dlen}")
            if (topic, doc) in seen:
                raise ValueError(f"{loc}: document {doc} already assessed for topic {topic} at {seen[(topic, doc)]}")
            seen[(topic, doc)] = loc
            if doc in doclens and doclens[doc] != dlen:
                raise ValueError(f"{loc}: document {doc} has length {dlen} here but {doclens[doc]} before")
            doclens[doc] = dlen
            topics[topic] = None
            rest = toks[5:]
            if rest and ":" not in rest[0]:
                bep = _int(rest[0], "bep", loc)
                if bep >= 0:
                    if bep > dlen:
                        raise ValueError(f"{loc}: best entry point {bep} past the document length {dlen}")
                    beps[(topic, doc)] = bep
                rest = rest[1:]
            spans = []
            for tok in rest:
                if tok.count(":") != 1:
                    raise ValueError(f"{loc}: expected a passage 'offset:length', got {tok!r}")
                o, l = tok.split(":")
                off = _int(o, "passage offset", loc)
                length = _int(l, "passage length", loc)
                if off < 0:
                    raise ValueError(f"{loc}: negative passage offset {off}")
                if length < 0:
                    raise ValueError(f"{loc}: negative passage length {length}")
                if off + length > dlen:
                    raise ValueError(f"{loc}: passage {off}:{length} ends at {off + length}, past the document length {dlen}")
                spans.append((off, off + length))
            if check_relchars:
                tot, ce = 0, -1
                for s, e in sorted(spans):
                    if s >= ce:
                        tot += e - s
                        ce = e
                    elif e > ce:
                        tot += e - ce
                        ce = e
                if tot != relchars:
                    raise ValueError(f"{loc}: passages cover {tot} characters but relchars says {relchars} (check_relchars=False to accept)")
            for s, e in spans:
                rows.append((topic, doc, s, e))
    if not topics:
        raise ValueError(f"{path}: empty qrels file (no data lines)")
    return _build_qrels(list(topics), rows, [], doclens, beps, True, False)


def read_fol_run(
    path: Any,
    qrels: Optional[XmlQrels] = None,
    *,
    allow_overlap: bool = True,
    unknown_docs: str = "ignore",
    order: str = "trec",
) -> XmlRun:
    """Read a FOL (file-offset-length) run: ``topic Q0 doc rank rsv runid offset length``.

    ``allow_overlap=False`` declares the run non-overlapping (Focused, RiC):
    overlapping spans in a topic are then an error naming both lines.  With
    ``qrels`` given, offsets are checked against the known document lengths;
    ``unknown_docs="error"`` also rejects documents the qrels do not know
    (default ``"ignore"``: they are non-relevant text).  ``order``: ``"trec"``
    (default, SPEC §0: rsv descending, ties by document id descending, then file
    order; the rank column is ignored), ``"rank"`` (rank column ascending, ties by
    file order), ``"score"`` (rsv descending, ties by file order) or ``"input"``.
    """
    if unknown_docs not in ("ignore", "error"):
        raise ValueError(f"unknown_docs must be 'ignore' or 'error', got {unknown_docs!r}")
    if order not in ("trec", "rank", "score", "input"):
        raise ValueError(f"order must be 'trec', 'rank', 'score' or 'input', got {order!r}")
    di = _DocIndex()
    topics: Dict[str, int] = {}
    t_l, d_l, s_l, e_l, r_l, sc_l, ln_l = [], [], [], [], [], [], []
    runid = None
    doclen_of = None
    if qrels is not None:
        doclen_of = {qrels.docs[i]: int(n) for i, n in enumerate(qrels.doclen)}
    with _open_text(path) as fh:
        for ln, line in enumerate(fh, 1):
            toks = line.split()
            if not toks:
                continue
            loc = f"{path}:{ln}"
            if len(toks) != 8:
                raise ValueError(f"{loc}: expected 'topic Q0 doc rank rsv runid offset length' (8 fields), got {len(toks)}")
            topic, doc = toks[0], toks[2]
            rank = _int(toks[3], "rank", loc)
            try:
                rsv = float(toks[4])
            except ValueError:
                raise ValueError(f"{loc}: rsv must be a number, got {toks[4]!r}") from None
            off = _int(toks[6], "offset", loc)
            length = _int(toks[7], "length", loc)
            if off < 0:
                raise ValueError(f"{loc}: negative offset {off}")
            if length < 0:
                raise ValueError(f"{loc}: negative length {length}")
            if doclen_of is not None:
                n = doclen_of.get(doc)
                if n is None or n < 0:
                    if unknown_docs == "error":
                        raise ValueError(f"{loc}: unknown document {doc!r} (not in the qrels)")
                elif off + length > n:
                    raise ValueError(f"{loc}: span {off}:{length} ends at {off + length}, past the length {n} of document {doc}")
            runid = toks[5] if runid is None else runid
            t_l.append(topics.setdefault(topic, len(topics)))
            d_l.append(di.code(doc))
            s_l.append(off)
            e_l.append(off + length)
            r_l.append(rank)
            sc_l.append(rsv)
            ln_l.append(ln)
    t = np.asarray(t_l, dtype=_I64)
    if not t_l:
        raise ValueError(f"{path}: empty run file (no result lines)")
    idx = np.arange(len(t_l))
    if order == "trec":
        # document ids in byte order: rank of each document code, descending
        names = di.names
        by_name = sorted(range(len(names)), key=lambda i: names[i].encode("utf-8"))
        name_rank = np.empty(len(names), dtype=_I64)
        name_rank[np.asarray(by_name, dtype=_I64)] = np.arange(len(names), dtype=_I64)
        d_rank = name_rank[np.asarray(d_l, dtype=_I64)] if len(d_l) else np.zeros(0, dtype=_I64)
        perm = np.lexsort((idx, -d_rank, -np.asarray(sc_l, dtype=np.float64), t))
    elif order == "rank":
        perm = np.lexsort((idx, np.asarray(r_l, dtype=np.float64), t))
    elif order == "score":
        perm = np.lexsort((idx, -np.asarray(sc_l, dtype=np.float64), t))
    else:
        perm = np.lexsort((idx, t))
    run = XmlRun(
        list(topics),
        di.names,
        _csr(np.bincount(t, minlength=len(topics)).tolist() if len(t) else [0] * len(topics)),
        np.asarray(d_l, dtype=_I64)[perm],
        np.asarray(s_l, dtype=_I64)[perm],
        np.asarray(e_l, dtype=_I64)[perm],
        np.asarray(sc_l, dtype=np.float64)[perm],
        runid or "run",
    )
    if not allow_overlap:
        _check_no_overlap(run, str(path), np.asarray(ln_l, dtype=_I64)[perm])
    return run


def _check_no_overlap(run: XmlRun, path: Optional[str], lines: Optional[np.ndarray]) -> None:
    n = len(run.doc)
    if n == 0:
        return
    t = np.repeat(np.arange(len(run.topics)), np.diff(run.off))
    nonempty = run.end > run.start
    order = np.lexsort((run.start, run.doc, t))
    order = order[nonempty[order]]
    tt, dd, ss, ee = t[order], run.doc[order], run.start[order], run.end[order]
    # running maximum of end within (topic, doc) groups
    same = (tt[1:] == tt[:-1]) & (dd[1:] == dd[:-1])
    bad = np.zeros(len(order), dtype=bool)
    if len(order) > 1:
        # sorted by start: an overlap exists iff some start < max end of earlier spans
        grp = np.concatenate([[0], np.cumsum(~same)])
        # group-wise cumulative maximum of the end offsets
        big = int(ee.max()) + 1
        key = grp.astype(_I64) * big + ee
        cm = np.maximum.accumulate(key) - grp.astype(_I64) * big
        bad[1:] = same & (ss[1:] < cm[:-1])
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        i = int(order[k])
        # find the earlier span it overlaps
        j = None
        for kk in range(k - 1, -1, -1):
            if tt[kk] != tt[k] or dd[kk] != dd[k]:
                break
            if ee[kk] > ss[k]:
                j = int(order[kk])
                break
        topic = run.topics[int(t[i])]
        doc = run.docs[int(run.doc[i])]
        if path is not None and lines is not None:
            other = f" (line {int(lines[j])})" if j is not None else ""
            raise ValueError(
                f"{path}:{int(lines[i])}: span {doc} [{int(run.start[i])},{int(run.end[i])}) overlaps an earlier span"
                f"{other} of topic {topic}, but the run was declared non-overlapping"
            )
        raise ValueError(
            f"run topic {topic}: span {doc} [{int(run.start[i])},{int(run.end[i])}) overlaps another span, "
            "but the run was declared non-overlapping"
        )


def read_element_tsv(path: Any, *, exh_max: float = 1.0, spe_max: float = 1.0,
                     doclens: Optional[Mapping[str, int]] = None) -> XmlQrels:
    """Read element assessments ``topic doc start end exh spe`` (tab or space
    separated, ``#`` comments).  exh and spe are divided by ``exh_max`` /
    ``spe_max`` (e.g. ``exh_max=2`` for INEX 2005's {0,1,2}); an exh of ``?``
    marks an INEX 2005 "too small" element (exh 0, quantised to 0 by the
    INEX 2005 function).  Elements of a document must nest; errors name file
    and line."""
    if not exh_max > 0 or not spe_max > 0:
        raise ValueError("exh_max and spe_max must be positive")
    rows = []
    where: Dict[Tuple[str, str, int, int], str] = {}
    topics: Dict[str, None] = {}
    with _open_text(path) as fh:
        for ln, line in enumerate(fh, 1):
            line = line.split("#", 1)[0]
            toks = line.split()
            if not toks:
                continue
            loc = f"{path}:{ln}"
            if len(toks) != 6:
                raise ValueError(f"{loc}: expected 'topic doc start end exh spe' (6 fields), got {len(toks)}")
            topic, doc = toks[0], toks[1]
            s = _int(toks[2], "start", loc)
            e = _int(toks[3], "end", loc)
            if s < 0:
                raise ValueError(f"{loc}: negative start offset {s}")
            if e < s:
                raise ValueError(f"{loc}: end {e} before start {s} (negative length)")
            if doclens is not None and doc in doclens and e > int(doclens[doc]):
                raise ValueError(f"{loc}: element ends at {e}, past the length {doclens[doc]} of document {doc}")
            small = toks[4] == "?"
            try:
                exh = 0.0 if small else float(toks[4]) / exh_max
                spe = float(toks[5]) / spe_max
            except ValueError:
                raise ValueError(f"{loc}: exh and spe must be numbers, got {toks[4]!r} {toks[5]!r}") from None
            if not (0.0 <= exh <= 1.0 and 0.0 <= spe <= 1.0):
                raise ValueError(f"{loc}: exh/spe outside [0, {exh_max}] / [0, {spe_max}]")
            topics[topic] = None
            where[(topic, doc, s, e)] = loc
            rows.append((topic, doc, s, e, exh, spe, small))
    if not topics:
        raise ValueError(f"{path}: empty qrels file (no data lines)")
    return _build_qrels(list(topics), [], rows, dict(doclens or {}), {}, False, True, where)


# -- INEX 2005-2006 XML files -------------------------------------------------

Layout = Mapping[str, Mapping[str, Tuple[int, int]]]


def _norm_path(p: str) -> str:
    """Canonical XPath: steps without [1] are given [1], leading / kept."""
    p = p.strip()
    steps = [s for s in p.split("/") if s]
    out = []
    for s in steps:
        if not s.endswith("]"):
            s = s + "[1]"
        out.append(s)
    return "/" + "/".join(out)


def layout_from_sizes(sizes: Mapping[str, Sequence[Tuple[str, int]]]) -> Dict[str, Dict[str, Tuple[int, int]]]:
    """Map element paths to character spans from their sizes.

    ``sizes[doc]`` lists ``(path, size)`` for the elements of a document in
    document order (a parent before its children, siblings left to right).
    Reading: an element starts where its previous listed sibling ends, or at
    its parent's start when it is the first listed child; text of a parent
    that is not inside a listed child is taken to follow its children.
    Children must fit inside their parent.
    """
    out: Dict[str, Dict[str, Tuple[int, int]]] = {}
    for doc, lst in sizes.items():
        spans: Dict[str, Tuple[int, int]] = {}
        cursor: Dict[str, int] = {}  # parent path -> next free offset
        for path, size in lst:
            np_ = _norm_path(path)
            if int(size) < 0:
                raise ValueError(f"{doc} {path}: negative size {size}")
            parent = np_.rsplit("/", 1)[0]
            if parent in ("", "/"):
                start = cursor.get("", 0)
                cursor[""] = start + int(size)
            else:
                if parent not in spans:
                    raise ValueError(f"{doc} {path}: parent {parent} must be listed before its children")
                pstart, pend = spans[parent]
                start = cursor.get(parent, pstart)
                if start + int(size) > pend:
                    raise ValueError(f"{doc} {path}: children do not fit inside {parent} ({pend - pstart} characters)")
                cursor[parent] = start + int(size)
            spans[np_] = (start, start + int(size))
        out[str(doc)] = spans
    return out


def _lookup(layout: Any, doc: str, path: str, loc: str) -> Tuple[int, int]:
    if callable(layout):
        sp = layout(doc, path)
        if sp is None:
            raise ValueError(f"{loc}: unknown element {path} of document {doc}")
        return int(sp[0]), int(sp[1])
    d = layout.get(doc)
    if d is None:
        raise ValueError(f"{loc}: unknown document {doc!r} (not in the layout)")
    sp = d.get(_norm_path(path))
    if sp is None:
        raise ValueError(f"{loc}: unknown element {path} of document {doc}")
    return int(sp[0]), int(sp[1])


def _expat_walk(path: Any, start: Callable[[str, Dict[str, str], int], None],
                end: Optional[Callable[[str, str, int], None]] = None) -> None:
    """Stream an XML file through expat: ``start(tag, attrs, line)`` and
    ``end(tag, text, line)`` (text = character data directly collected since
    the matching start).  Parse errors name the file and line."""
    import xml.parsers.expat as expat

    src = str(path)
    parser = expat.ParserCreate()
    texts: List[List[str]] = []

    def _start(tag: str, attrs: Dict[str, str]) -> None:
        texts.append([])
        start(tag, attrs, parser.CurrentLineNumber)

    def _end(tag: str) -> None:
        txt = "".join(texts.pop()) if texts else ""
        if end is not None:
            end(tag, txt, parser.CurrentLineNumber)

    def _chars(data: str) -> None:
        if texts:
            texts[-1].append(data)

    parser.StartElementHandler = _start
    parser.EndElementHandler = _end
    parser.CharacterDataHandler = _chars
    try:
        parser.Parse(read_bytes(src), True)
    except expat.ExpatError as exc:
        raise ValueError(f"{src}:{exc.lineno}: not well-formed XML ({expat.ErrorString(exc.code)})") from None


def read_inex_assessments(path: Any, layout: Any, *, exh_max: float = 2.0) -> XmlQrels:
    """Read an INEX 2005/2006 XML assessment file.

    Recognised shape (tag and attribute names matched case-insensitively)::

        <assessments topic="202">
          <file file="co/2001/r7108">
            <path path="/article[1]/bdy[1]/sec[2]" exhaustivity="2" size="1200" rsize="300"/>

    exhaustivity ``?`` is "too small" (exh 0, flagged for the INEX 2005
    quantisation); exh is divided by ``exh_max`` (2: INEX 2005/2006 scale).
    Specificity is ``rsize/size`` when both are given, else a ``specificity``
    attribute in [0, 1].  ``layout`` maps ``doc -> {path: (start, end)}`` (see
    :func:`layout_from_sizes`) or is a callable ``(doc, path) -> (start, end)``;
    unknown documents or paths are errors naming file and line.
    """
    src = str(path)
    rows: List[Tuple[str, str, int, int, float, float, bool]] = []
    where: Dict[Tuple[str, str, int, int], str] = {}
    topics: Dict[str, None] = {}
    state: Dict[str, Optional[str]] = {"topic": None, "doc": None}

    def start(tag: str, attrs: Dict[str, str], line: int) -> None:
        tag = tag.lower()
        at = {k.lower(): v for k, v in attrs.items()}
        loc = f"{src}:{line}"
        if tag in ("assessments", "topic") and ("topic" in at or "id" in at):
            state["topic"] = at.get("topic", at.get("id"))
            topics[str(state["topic"])] = None
        elif tag == "file":
            state["doc"] = at.get("file") or at.get("name")
        elif tag in ("path", "element"):
            topic, doc = state["topic"], state["doc"]
            if topic is None or doc is None:
                raise ValueError(f"{loc}: <{tag}> outside <assessments topic=..> / <file file=..>")
            p = at.get("path")
            if p is None:
                raise ValueError(f"{loc}: <{tag}> without a path attribute")
            s, e = _lookup(layout, doc, p, loc)
            ex = at.get("exhaustivity", at.get("exh", "0")).strip()
            small = ex == "?"
            try:
                exh = 0.0 if small else float(ex) / exh_max
                if "rsize" in at and "size" in at:
                    size = float(at["size"])
                    spe = float(at["rsize"]) / size if size > 0 else 0.0
                else:
                    spe = float(at.get("specificity", at.get("spe", "0")))
            except ValueError:
                raise ValueError(f"{loc}: bad exhaustivity/size/rsize/specificity value") from None
            if not (0.0 <= exh <= 1.0 and 0.0 <= spe <= 1.0):
                raise ValueError(f"{loc}: exhaustivity/specificity out of range")
            where[(topic, doc, s, e)] = loc
            rows.append((topic, doc, s, e, exh, spe, small))

    _expat_walk(path, start)
    return _build_qrels(list(topics), [], rows, {}, {}, False, True, where)


def read_inex_run(path: Any, layout: Any, *, order: str = "rank") -> XmlRun:
    """Read an INEX 2005/2006 XML run: ``<inex-submission run-id=..>`` holding
    ``<topic topic-id=..>`` elements of ``<result><file>..</file><path>..</path>
    <rank>..</rank> [<rsv>..</rsv>]</result>``; paths are mapped to spans with
    ``layout`` (as in :func:`read_inex_assessments`).  ``order``: ``"rank"``
    (default; missing ranks = position), ``"score"`` (rsv descending) or
    ``"input"``.  Errors name file and line."""
    if order not in ("rank", "score", "input"):
        raise ValueError(f"order must be 'rank', 'score' or 'input', got {order!r}")
    src = str(path)
    spans: Dict[str, List[Tuple[float, float, int, Span]]] = {}
    st: Dict[str, Any] = {"topic": None, "runid": "run", "res": None}

    def start(tag: str, attrs: Dict[str, str], line: int) -> None:
        tag = tag.lower()
        if tag in ("inex-submission", "inex_submission", "submission"):
            st["runid"] = attrs.get("run-id", attrs.get("runid", attrs.get("run_id", "run")))
        elif tag == "topic":
            tid = attrs.get("topic-id", attrs.get("id"))
            if tid is None:
                raise ValueError(f"{src}:{line}: <topic> without topic-id")
            st["topic"] = tid
            spans.setdefault(tid, [])
        elif tag == "result":
            if st["topic"] is None:
                raise ValueError(f"{src}:{line}: <result> outside <topic>")
            st["res"] = {"line": line}

    def end(tag: str, text: str, line: int) -> None:
        tag = tag.lower()
        res = st["res"]
        if res is None:
            return
        if tag in ("file", "path", "rank", "rsv"):
            res[tag] = text.strip()
        elif tag == "result":
            loc = f"{src}:{res['line']}"
            if "file" not in res or "path" not in res:
                raise ValueError(f"{loc}: <result> needs <file> and <path>")
            s, e = _lookup(layout, res["file"], res["path"], loc)
            lst = spans[st["topic"]]
            k = len(lst)
            try:
                r = float(res["rank"]) if "rank" in res else float(k + 1)
                sc = float(res["rsv"]) if "rsv" in res else -r
            except ValueError:
                raise ValueError(f"{loc}: bad rank/rsv") from None
            lst.append((r, -sc, k, (res["file"], s, e)))
            st["res"] = None

    _expat_walk(path, start, end)
    ordered: Dict[str, List[Span]] = {}
    rsv: List[float] = []
    for tid, lst in spans.items():
        if order == "rank":
            lst.sort(key=lambda x: (x[0], x[2]))
        elif order == "score":
            lst.sort(key=lambda x: (x[1], x[2]))
        ordered[tid] = [x[3] for x in lst]
        rsv.extend(-x[1] for x in lst)
    run = XmlRun.from_spans(ordered, runid=st["runid"])
    # keep the RSVs: equal RSVs form inex_eval's tie groups
    run.score = np.asarray(rsv, dtype=np.float64).reshape(len(rsv))
    return run


# ---------------------------------------------------------------------------
# quantisation and the ideal recall base
# ---------------------------------------------------------------------------


def quantise(exh: np.ndarray, spe: np.ndarray, quantisation: Quantisation = "generalised",
             too_small: Optional[np.ndarray] = None) -> np.ndarray:
    """Quantised relevance q(e) in [0, 1] of normalised (exh, spe) pairs.

    ``"strict"``: 1 iff exh = spe = 1; ``"generalised"`` (``"gen"``): exh * spe;
    ``"inex2005"``: (e/2) * s with exh already normalised (e/2), "too small"
    elements 0; ``"inex2006"``: s.  A callable ``f(exh, spe) -> array`` or a
    table ``{(exh, spe): value}`` (pairs missing from the table quantise to 0)
    are used as given.
    """
    exh = np.asarray(exh, dtype=np.float64)
    spe = np.asarray(spe, dtype=np.float64)
    if isinstance(quantisation, str):
        qn = quantisation.lower()
        if qn == "strict":
            q = ((exh == 1.0) & (spe == 1.0)).astype(np.float64)
        elif qn in ("generalised", "generalized", "gen"):
            q = exh * spe
        elif qn == "inex2005":
            q = exh * spe
            if too_small is not None:
                q = np.where(too_small, 0.0, q)
        elif qn == "inex2006":
            q = spe.copy()
        else:
            raise ValueError(
                f"quantisation must be 'strict', 'generalised', 'inex2005', 'inex2006', a callable or a table, got {quantisation!r}"
            )
    elif callable(quantisation):
        q = np.asarray(quantisation(exh, spe), dtype=np.float64)
        if q.shape != exh.shape:
            raise ValueError(f"quantisation function returned shape {q.shape}, expected {exh.shape}")
    elif isinstance(quantisation, Mapping):
        table = {(float(k[0]), float(k[1])): float(v) for k, v in quantisation.items()}
        q = np.asarray([table.get((float(a), float(b)), 0.0) for a, b in zip(exh, spe)], dtype=np.float64)
    else:
        raise TypeError(f"quantisation must be a name, a callable or a mapping, got {type(quantisation).__name__}")
    if q.size and (np.isnan(q).any() or q.min() < 0.0 or q.max() > 1.0):
        raise ValueError("quantised values must lie in [0, 1]")
    return q


def ideal_recall_base(qrels: XmlQrels, quantisation: Quantisation = "generalised",
                      ideal_overlap: str = "ancestor") -> Dict[str, List[Tuple[str, int, int, float]]]:
    """The ideal set per topic as ``[(doc, start, end, q), ...]`` (gain descending).

    Element assessments: on each relevant path (root to a relevant element with
    no relevant descendant) keep the element with the highest q, ties to the
    deeper one; then remove overlap among the kept elements, keeping the
    ancestor (``ideal_overlap="ancestor"``, default) or the descendant
    (``"descendant"``).  Passage assessments: the highlighted passages, each
    with gain q(exh=1, spe=1).
    """
    ioff, idoc, istart, iend, igain = _ideal_arrays(qrels, quantisation, ideal_overlap)
    out: Dict[str, List[Tuple[str, int, int, float]]] = {}
    for t, topic in enumerate(qrels.topics):
        sl = slice(ioff[t], ioff[t + 1])
        lst = [(qrels.docs[int(d)], int(s), int(e), float(g)) for d, s, e, g in zip(idoc[sl], istart[sl], iend[sl], igain[sl])]
        lst.sort(key=lambda x: -x[3])
        out[topic] = lst
    return out


def _element_q(qrels: XmlQrels, quantisation: Quantisation) -> np.ndarray:
    return quantise(qrels.el_exh, qrels.el_spe, quantisation, qrels.el_small)


def _ideal_arrays(qrels: XmlQrels, quantisation: Quantisation, ideal_overlap: str):
    if ideal_overlap not in ("ancestor", "descendant"):
        raise ValueError(f"ideal_overlap must be 'ancestor' or 'descendant', got {ideal_overlap!r}")
    key = (quantisation, ideal_overlap) if isinstance(quantisation, str) else None
    cache = qrels.__dict__.setdefault("_ideal_cache", {})
    if key is not None and key in cache:
        return cache[key]
    if qrels.has_elements:
        q = _element_q(qrels, quantisation)
        keep = np.zeros(len(q), dtype=_I64)
        _xml.ideal_elements(qrels.el_off, qrels.el_doc, qrels.el_start, qrels.el_end,
                            np.ascontiguousarray(q), 0 if ideal_overlap == "ancestor" else 1, keep)
        rows = np.flatnonzero(keep)
        t_of = np.repeat(np.arange(len(qrels.topics)), np.diff(qrels.el_off))
        counts = np.bincount(t_of[rows], minlength=len(qrels.topics)) if len(rows) else np.zeros(len(qrels.topics), _I64)
        out = (_csr(counts), qrels.el_doc[rows], qrels.el_start[rows], qrels.el_end[rows], q[rows])
    else:
        one = float(quantise(np.ones(1), np.ones(1), quantisation)[0])
        n = len(qrels.hl_doc)
        out = (qrels.hl_off, qrels.hl_doc, qrels.hl_start, qrels.hl_end, np.full(n, one))
    if key is not None:
        cache[key] = out
    return out


# ---------------------------------------------------------------------------
# alignment and the one pass
# ---------------------------------------------------------------------------


@dataclass
class _Aligned:
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


def _gather(off: np.ndarray, sel: np.ndarray, *arrays: np.ndarray):
    """Concatenate CSR slices ``sel`` of ``arrays``; returns (new_off, rows, *arrays)."""
    lo = off[sel]
    hi = off[sel + 1]
    counts = hi - lo
    new_off = _csr(counts.tolist())
    total = int(new_off[-1])
    rows: np.ndarray = _EMPTY_I
    if total:
        rows = np.repeat(lo - new_off[:-1], counts) + np.arange(total, dtype=_I64)
    return (new_off, rows) + tuple(np.ascontiguousarray(a[rows]) for a in arrays)


def _align(qrels: XmlQrels, run: XmlRun, complete: bool) -> _Aligned:
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
    topics.sort(key=_topic_key)
    qt = np.asarray([qrels.topic_index[t] for t in topics], dtype=_I64)
    # run rows of each aligned topic (missing topic -> empty)
    rt = np.asarray([run.topic_index.get(t, -1) for t in topics], dtype=_I64)
    has = rt >= 0
    lo = np.zeros(len(rt), dtype=_I64)
    hi = np.zeros(len(rt), dtype=_I64)
    lo[has] = run.off[rt[has]]
    hi[has] = run.off[rt[has] + 1]
    counts = hi - lo
    run_off = _csr(counts.tolist())
    total = int(run_off[-1])
    rows = (np.repeat(lo - run_off[:-1], counts) + np.arange(total, dtype=_I64)) if total else _EMPTY_I
    # translate run document codes into the qrels space (unknown -> new codes)
    trans = np.empty(len(run.docs), dtype=_I64)
    nq = len(qrels.docs)
    extra = nq
    for i, d in enumerate(run.docs):
        c = qrels.doc_index.get(d)
        if c is None:
            c = extra
            extra += 1
        trans[i] = c
    run_doc = trans[run.doc[rows]] if total else _EMPTY_I
    hl = _gather(qrels.hl_off, qt, qrels.hl_doc, qrels.hl_start, qrels.hl_end)
    el = _gather(qrels.el_off, qt, qrels.el_doc, qrels.el_start, qrels.el_end)
    return _Aligned(
        topics=topics,
        run_off=run_off,
        run_doc=np.ascontiguousarray(run_doc, dtype=_I64),
        run_start=np.ascontiguousarray(run.start[rows]),
        run_end=np.ascontiguousarray(run.end[rows]),
        hl=(hl[0], hl[2], hl[3], hl[4]),
        el=(el[0], el[2], el[3], el[4], el[1]),
        el_rows=el[1],
        ndocs=extra,
        qt=qt,
    )


def _topic_key(t: str):
    return (0, int(t), t) if t.isdigit() else (1, 0, t)


@dataclass
class _Pass:
    size: np.ndarray
    covered: np.ndarray
    contained: np.ndarray
    rsize: np.ndarray
    novel_rel: np.ndarray
    rval: np.ndarray
    tree_w: np.ndarray
    match: np.ndarray
    ideal_of: np.ndarray


def _run_pass(al: _Aligned, ideal: Tuple[np.ndarray, ...], alpha_hix: float, alpha_xcg: float,
              el_q: np.ndarray, use_elements: bool, seen: str = "ancestor",
              el_rsize: np.ndarray = _EMPTY_F) -> _Pass:
    n = len(al.run_doc)
    out = _Pass(
        size=np.empty(n, _I64), covered=np.empty(n, _I64), contained=np.empty(n, _I64), rsize=np.empty(n, _I64),
        novel_rel=np.empty(n, _I64), rval=np.empty(n), tree_w=np.empty(n),
        match=np.empty(n, _I64), ideal_of=np.empty(n, _I64),
    )
    ntop = len(al.topics)
    if use_elements:
        el_off, el_doc, el_start, el_end, _ = al.el
    else:
        el_off, el_doc, el_start, el_end, el_q = np.zeros(ntop + 1, _I64), _EMPTY_I, _EMPTY_I, _EMPTY_I, _EMPTY_F
        el_rsize = _EMPTY_F
    _check_key_range(al, ideal[0], el_off)
    _xml.focused_pass(
        al.run_off, al.run_doc, al.run_start, al.run_end,
        al.hl[0], al.hl[1], al.hl[2], al.hl[3],
        el_off, el_doc, el_start, el_end, np.ascontiguousarray(el_q, dtype=np.float64),
        np.ascontiguousarray(el_rsize, dtype=np.float64),
        ideal[0], ideal[1], ideal[2], ideal[3],
        al.ndocs, float(alpha_hix), float(alpha_xcg), 0 if seen == "overlap" else 1,
        out.size, out.covered, out.contained, out.rsize, out.novel_rel, out.rval, out.tree_w, out.match, out.ideal_of,
    )
    return out


def _check_key_range(al: _Aligned, id_off: np.ndarray, el_off: np.ndarray) -> None:
    n = (np.diff(al.run_off) + np.diff(al.hl[0]) + np.diff(el_off) + np.diff(id_off)).astype(np.float64)
    if n.size:
        m = 2.0 * n + 3.0
        worst = float(np.max(m * m * (np.maximum(np.diff(al.run_off), np.diff(el_off)) + 1.0)))
        if worst >= 2.0 ** 62:
            raise ValueError("a topic has too many spans for the 64-bit sort keys (about 10^6 per topic at most)")


# ---------------------------------------------------------------------------
# per-family functions
# ---------------------------------------------------------------------------


def _validate_alpha(alpha: float, name: str = "alpha") -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)):
        raise TypeError(f"{name} must be a number in [0, 1], got {alpha!r}")
    a = float(alpha)
    if not 0.0 <= a <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {alpha!r}")
    return a


def overlap(run: XmlRun) -> Dict[str, np.ndarray]:
    """overlap(i) = size(e_i ∩ union_{j<i} e_j) / size(e_i) for every result, per
    topic (0 for empty spans).  O(n log n) per topic."""
    if not run.topics:
        return {}
    empty = XmlQrels.from_passages({t: [] for t in run.topics})
    al = _align(empty, run, complete=False)
    # keep the run's own topic order
    ideal = (np.zeros(len(al.topics) + 1, _I64), _EMPTY_I, _EMPTY_I, _EMPTY_I)
    ps = _run_pass(al, ideal, 1.0, 1.0, _EMPTY_F, False)
    with np.errstate(invalid="ignore", divide="ignore"):
        ov = np.where(ps.size > 0, ps.covered / np.maximum(ps.size, 1), 0.0)
    return {t: ov[al.run_off[k]:al.run_off[k + 1]].copy() for k, t in enumerate(al.topics)}


def _xcg_gains(qrels: XmlQrels, al: _Aligned, ps: _Pass, alpha: float, quantisation: Quantisation,
               el_q: np.ndarray, normalise: bool, ideal_gain: np.ndarray, seen: str = "ancestor") -> np.ndarray:
    size = ps.size.astype(np.float64)
    safe = np.maximum(size, 1.0)
    full = (ps.covered >= ps.size) if seen == "overlap" else (ps.contained > 0)
    if qrels.has_elements:
        matched = ps.match >= 0
        r = np.where(matched, el_q[np.maximum(ps.match, 0)] if len(el_q) else 0.0, 0.0)
        partial = ps.tree_w / safe
        # a result that is not an assessed element (an arbitrary passage) is
        # valued through the assessed elements inside it, seen or not
        r_unseen = np.where(matched, r, partial)
        w = np.where(ps.covered == 0, r_unseen, np.where(full, 0.0, partial))
        gain = (1.0 - alpha) * r + alpha * w
        # SPEC: an unseen result gains r(e_i) whatever alpha; for a passage that
        # is not an assessed element, r(e_i) is the value of the elements inside it
        gain = np.where((ps.covered == 0) & ~matched, partial, gain)
    else:
        spe = np.where(size > 0, ps.rsize / safe, 0.0)
        exh = (ps.rsize > 0).astype(np.float64)
        r = quantise(exh, spe, quantisation)
        partial = ps.novel_rel / safe
        w = np.where(ps.covered == 0, r, np.where(full, 0.0, partial))
        gain = (1.0 - alpha) * r + alpha * w
    gain = np.where(size > 0, gain, 0.0)
    gain = np.ascontiguousarray(gain, dtype=np.float64)
    if normalise:
        _xml.xcg_cap(al.run_off, ps.ideal_of, np.ascontiguousarray(ideal_gain, dtype=np.float64), gain)
    return gain


def _sorted_ideal(ideal: Tuple[np.ndarray, ...], gains: np.ndarray) -> np.ndarray:
    off = ideal[0]
    t = np.repeat(np.arange(len(off) - 1), np.diff(off))
    order = np.lexsort((-gains, t))
    return np.ascontiguousarray(gains[order])


class _Context:
    """Everything one evaluation needs, computed once."""

    def __init__(self, qrels: XmlQrels, run: XmlRun, *, alpha: float, hix_alpha: float,
                 quantisation: Quantisation, ideal_overlap: str, normalise: bool, complete: bool,
                 use_elements: bool = True, seen: str = "ancestor") -> None:
        if not isinstance(qrels, XmlQrels):
            raise TypeError(f"qrels must be an XmlQrels, got {type(qrels).__name__}")
        if not isinstance(run, XmlRun):
            raise TypeError(f"run must be an XmlRun, got {type(run).__name__}")
        self.qrels, self.run = qrels, run
        self.alpha = _validate_alpha(alpha)
        if seen not in ("overlap", "ancestor"):
            raise ValueError(f"seen must be 'overlap' or 'ancestor', got {seen!r}")
        self.hix_alpha = _validate_alpha(hix_alpha, "hix_alpha")
        if quantisation == "auto":
            quantisation = "generalised" if qrels.has_elements else "inex2006"
        self.quantisation = quantisation
        self.al = _align(qrels, run, complete)
        full_ideal = _ideal_arrays(qrels, quantisation, ideal_overlap)
        g = _gather(full_ideal[0], self.al.qt, full_ideal[1], full_ideal[2], full_ideal[3], full_ideal[4])
        self.ideal = (g[0], g[2], g[3], g[4])
        self.ideal_gain = g[5]
        self.el_q_aligned = _element_q(qrels, quantisation)[self.al.el_rows] if qrels.has_elements else _EMPTY_F
        # element-only assessments (INEX 2005-06): HiXEval's rsize of a result is
        # the rsize (= spe * size) of the assessed element it equals
        only_el = qrels.has_elements and not qrels.has_passages
        el_rsize = (qrels.el_spe * (qrels.el_end - qrels.el_start))[self.al.el_rows] if only_el else _EMPTY_F
        self.ps = _run_pass(self.al, self.ideal, self.hix_alpha, self.alpha, self.el_q_aligned,
                            qrels.has_elements and (use_elements or only_el), seen, el_rsize)
        # match indexes the aligned el arrays; ideal_of indexes the aligned ideal arrays
        self.gain = _xcg_gains(qrels, self.al, self.ps, self.alpha, quantisation, self.el_q_aligned,
                               normalise, self.ideal_gain, seen)
        self.ideal_sorted = _sorted_ideal(self.ideal, self.ideal_gain)
        trel = qrels.trel()
        self.trel = np.ascontiguousarray(trel[self.al.qt], dtype=_I64) if len(self.al.qt) else _EMPTY_I
        self.n_ideal = np.diff(self.ideal[0])


def _as_cutoffs(ks: Iterable[int]) -> np.ndarray:
    out = []
    for k in ks:
        if isinstance(k, bool) or int(k) != k or int(k) < 1:
            raise ValueError(f"cutoffs must be positive integers, got {k!r}")
        out.append(int(k))
    return np.asarray(out, dtype=_I64)


def xcg(qrels: XmlQrels, run: XmlRun, *, cutoffs: Sequence[int] = (5, 10, 25, 50), alpha: float = 1.0,
        quantisation: Quantisation = "auto", ideal_overlap: str = "ancestor", normalise: bool = True,
        maep_denominator: str = "ideal", points: int = 100, seen: str = "ancestor",
        complete: bool = False) -> Dict[str, Dict[str, float]]:
    """The XCG family per topic: ``XCG@k``, ``nxCG@k``, ``MAep``, ``iep[x]``.

    ``alpha``: 1 Focused (overlap costs everything), 0 Thorough (ignored).
    ``quantisation``: ``"auto"`` = generalised for element assessments,
    INEX 2006 (q = specificity) for passage assessments.  ``normalise``: cap the
    gain collected under an ideal element at its ideal gain.  ``maep_denominator``:
    ``"ideal"`` (|ideal set|, SPEC default) or ``"gain_ranks"`` (number of ranks
    where gain was collected).  ``iep[x]`` = max ep at ranks with gr >= x on the
    grid 0, 1/points, ..., 1.  ``seen``: when a result (or, in the recursion,
    an assessed element) counts as completely seen: ``"ancestor"`` (default,
    SPEC's rule: it or an ancestor was retrieved before; text covered only by
    several descendants is then partially seen) or ``"overlap"`` (overlap = 1:
    all its text was retrieved before, by whatever results).  Topics with an empty ideal set are left out.
    """
    ctx = _Context(qrels, run, alpha=alpha, hix_alpha=1.0, quantisation=quantisation,
                   ideal_overlap=ideal_overlap, normalise=normalise, complete=complete, seen=seen)
    names = {f"XCG@{k}" for k in cutoffs} | {f"nxCG@{k}" for k in cutoffs} | {"MAep"}
    names |= {f"iep[{_level(p, points)}]" for p in range(points + 1)}
    return _compute(ctx, sorted(names), maep_denominator=maep_denominator, points=points)


def hixeval(qrels: XmlQrels, run: XmlRun, *, cutoffs: Sequence[int] = (1, 5, 10, 25, 50), alpha: float = 1.0,
            trel: Union[str, Mapping[str, float]] = "highlighted", beta: float = 1.0,
            complete: bool = False) -> Dict[str, Dict[str, float]]:
    """HiXEval P@k, R@k and F@k per topic (``hixP@k``, ``hixR@k``, ``hixF@k``).

    rval(i) = rsize if overlap 0; (1 - alpha) rsize if 1; else
    rsize - alpha * sum of rval(j) over earlier results inside e_i.
    P@k = sum rval / sum size(e_i); R@k = sum rval / Trel.  With
    ``alpha=1`` (Focused) each relevant character counts once: rval(i) is the
    highlighted text of e_i that no earlier result retrieved (the rule above
    for nested results, and also for results that cross each other, where the
    rule would count the shared text twice), so R@k <= 1.  With ``alpha < 1``
    retrieving relevant text again is rewarded by definition (``alpha=0``,
    Thorough: fully), and R@k may exceed 1 against the highlighted Trel.  ``trel``:
    ``"highlighted"`` (Focused: highlighted characters of the topic),
    ``"thorough"`` (rsize summed over every assessed element; element
    assessments) or a mapping topic -> Trel.  With element-only assessments
    (INEX 2005-06) rsize(e_i) = spe * size of the assessed element equal to
    e_i (0 for other spans).
    F is the F-beta of P and R (``beta=1``: harmonic mean).
    """
    ctx = _Context(qrels, run, alpha=1.0, hix_alpha=alpha, quantisation="auto",
                   ideal_overlap="ancestor", normalise=False, complete=complete, use_elements=False)
    names = [f"hix{x}@{k}" for k in cutoffs for x in "PRF"]
    return _compute(ctx, names, trel=trel, beta=beta)


def interpolated_precision(qrels: XmlQrels, run: XmlRun, *, points: int = 100, bucketing: str = "exact",
                           run_overlap: str = "novel", complete: bool = False) -> Dict[str, Dict[str, float]]:
    """INEX 2007+ Focused: ``iP[x]`` for x = 0, 1/points, ..., 1 and ``AiP``.

    P[r] = highlighted characters retrieved by rank r / characters retrieved
    by rank r; R[r] = highlighted characters retrieved / Trel; iP[x] = max P[r]
    with R[r] >= x; AiP = mean of iP over the points + 1 recall levels.
    ``run_overlap``: ``"novel"`` (default) counts text retrieved twice once
    (only the part not seen at earlier ranks counts, in both numerator and
    denominator); ``"count"`` counts every span fully (relevant text still
    once).  ``bucketing``: ``"exact"`` (R >= x tested exactly in integers) or
    ``"inex_eval"`` (level floor(points * R) in floating point, as the official
    tool).  Topics without highlighted text are left out.
    """
    ctx = _Context(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation="auto", ideal_overlap="ancestor",
                   normalise=False, complete=complete, use_elements=False)
    names = [f"iP[{_level(p, points)}]" for p in range(points + 1)] + ["AiP"]
    return _compute(ctx, names, points=points, bucketing=bucketing, run_overlap=run_overlap)


# ---------------------------------------------------------------------------
# measure names and the shared computation
# ---------------------------------------------------------------------------

_RX = {
    "xcg": re.compile(r"^(XCG|nxCG|MAnxCG)@(\d+)$"),
    "epgr": re.compile(r"^(ep|gr)@(\d+)$"),
    "iep": re.compile(r"^iep\[([0-9.]+)\]$"),
    "maep": re.compile(r"^MAep$"),
    "hix": re.compile(r"^hix([PRF])@(\d+)$"),
    "ip": re.compile(r"^iP\[([0-9.]+)\]$"),
    "aip": re.compile(r"^M?AiP$"),
    "ng": re.compile(r"^ng([PR])_([os])@(\d+)$"),
    "precall": re.compile(r"^Precall\[([0-9.]+)\]$"),
    "inex_eval": re.compile(r"^inex_eval$"),
    "gp": re.compile(r"^(gP|MAgP)_(RiC|BiC)(?:@(\d+))?$"),
    "gr_model": re.compile(r"^GR@(\d+)$"),
    "eprum": re.compile(r"^EPRUM\[([0-9.]+)\]$"),
    "t2i": re.compile(r"^T2I([PR])@(\d+)$"),
}

DEFAULT_MEASURES = ["iP[0.00]", "iP[0.01]", "iP[0.05]", "iP[0.10]", "MAiP",
                    "nxCG@5", "nxCG@10", "nxCG@25", "nxCG@50", "MAep",
                    "hixP@10", "hixR@10", "hixF@10"]


def _match(family: str, name: str) -> "re.Match[str]":
    m = _RX[family].match(name)
    if m is None:
        raise ValueError(f"{name!r} is not a {family} measure name")
    return m


def measure_family(name: str) -> str:
    """The family of a measure name, or ValueError."""
    for fam, rx in _RX.items():
        if rx.match(name):
            return fam
    raise ValueError(
        f"unknown XML measure {name!r}; known forms: XCG@k nxCG@k MAnxCG@k ep@k gr@k iep[x] MAep "
        "hixP@k hixR@k hixF@k iP[x] AiP MAiP ngP_o@k ngR_o@k ngP_s@k ngR_s@k Precall[x] inex_eval "
        "gP_RiC@k MAgP_RiC gP_BiC@k MAgP_BiC GR@k EPRUM[x] T2IP@k T2IR@k"
    )


def _level(k: int, points: int) -> str:
    """Recall level k/points as it appears in a measure name: two decimals when
    that is exact (``iP[0.01]``), otherwise enough digits to name the grid point."""
    if (100 * k) % points == 0:
        return f"{k / points:.2f}"
    return f"{k / points:.12f}".rstrip("0")


def _point_index(x: str, points: int, name: str) -> int:
    try:
        v = float(x)
    except ValueError:
        raise ValueError(f"{name}: bad recall level {x!r}") from None
    k = v * points
    if not (0.0 <= v <= 1.0) or abs(k - round(k)) > 1e-6:
        raise ValueError(f"{name}: recall level {x} is not on the grid of {points} steps")
    return int(round(k))


def _compute(ctx: _Context, names: Sequence[str], *, maep_denominator: str = "ideal", points: int = 100,
             bucketing: str = "exact", run_overlap: str = "novel", trel: Union[str, Mapping[str, float]] = "highlighted",
             beta: float = 1.0, extra: Optional[Dict[str, Any]] = None) -> Dict[str, Dict[str, float]]:
    al = ctx.al
    ntop = len(al.topics)
    fam = {n: measure_family(n) for n in names}
    res: Dict[str, Dict[str, float]] = {}
    if not isinstance(points, int) or isinstance(points, bool) or points < 1:
        raise ValueError(f"points must be a positive integer, got {points!r}")
    if maep_denominator not in ("ideal", "gain_ranks"):
        raise ValueError(f"maep_denominator must be 'ideal' or 'gain_ranks', got {maep_denominator!r}")
    if bucketing not in ("exact", "inex_eval"):
        raise ValueError(f"bucketing must be 'exact' or 'inex_eval', got {bucketing!r}")
    if run_overlap not in ("novel", "count"):
        raise ValueError(f"run_overlap must be 'novel' or 'count', got {run_overlap!r}")
    has_ideal = ctx.n_ideal > 0
    has_trel = ctx.trel > 0

    def emit(name: str, values: np.ndarray, mask: np.ndarray) -> None:
        res[name] = {al.topics[t]: float(values[t]) for t in range(ntop) if mask[t]}

    # XCG family
    xcg_names = [n for n in names if fam[n] in ("xcg", "iep", "maep", "epgr")]
    if xcg_names:
        ks = sorted({int(_match("xcg", n).group(2)) for n in names if fam[n] == "xcg"} |
                    {int(_match("epgr", n).group(2)) for n in names if fam[n] == "epgr"} | {1})
        cut = np.asarray(ks, dtype=_I64)
        o_xcg = np.zeros((ntop, len(ks)))
        o_nx = np.zeros((ntop, len(ks)))
        o_maep = np.zeros(ntop)
        o_iep = np.zeros((ntop, points + 1))
        _xml.xcg_measures(al.run_off, ctx.gain, ctx.ideal[0], ctx.ideal_sorted, cut, points,
                          0 if maep_denominator == "ideal" else 1, o_xcg, o_nx, o_maep, o_iep)
        for n in xcg_names:
            f = fam[n]
            if f == "xcg":
                m = _match("xcg", n)
                c = ks.index(int(m.group(2)))
                emit(n, o_xcg[:, c] if m.group(1) == "XCG" else o_nx[:, c], has_ideal)
            elif f == "maep":
                emit(n, o_maep, has_ideal)
            elif f == "iep":
                emit(n, o_iep[:, _point_index(_match("iep", n).group(1), points, n)], has_ideal)
            elif f == "epgr":
                m = _match("epgr", n)
                k = int(m.group(2))
                vals = np.zeros(ntop)
                for t in range(ntop):
                    lo, hi = al.run_off[t], al.run_off[t + 1]
                    g = ctx.gain[lo:hi]
                    isl = ctx.ideal_sorted[ctx.ideal[0][t]:ctx.ideal[0][t + 1]]
                    ep = np.zeros(len(g))
                    gr = np.zeros(len(g))
                    if len(g):
                        _xml.ep_gr_curve(np.ascontiguousarray(g), np.ascontiguousarray(isl), ep, gr)
                    r = min(k, len(g))
                    if r == 0:
                        continue
                    if m.group(1) == "gr":
                        vals[t] = gr[r - 1]
                    else:
                        # beyond the run the cumulated gain stays, effort grows
                        vals[t] = ep[r - 1] * r / k if k > len(g) else ep[r - 1]
                emit(n, vals, has_ideal)
    # HiXEval
    hix_names = [n for n in names if fam[n] == "hix"]
    if hix_names:
        ks = sorted({int(_match("hix", n).group(2)) for n in hix_names})
        if isinstance(trel, str):
            if trel not in ("highlighted", "thorough"):
                raise ValueError(f"trel must be 'highlighted', 'thorough' or a mapping topic -> Trel, got {trel!r}")
            tr = _hix_trel(ctx, trel)
        elif isinstance(trel, Mapping):
            tr = np.asarray([float(trel.get(t, 0.0)) for t in al.topics], dtype=np.float64)
        else:
            raise TypeError("trel must be 'highlighted' or a mapping topic -> Trel")
        if not beta > 0:
            raise ValueError(f"beta must be positive, got {beta!r}")
        o_p = np.zeros((ntop, len(ks)))
        o_r = np.zeros((ntop, len(ks)))
        _xml.hixeval_at(al.run_off, _hix_rval(ctx), ctx.ps.size, np.ascontiguousarray(tr),
                        np.asarray(ks, dtype=_I64), o_p, o_r)
        b2 = beta * beta
        with np.errstate(invalid="ignore", divide="ignore"):
            o_f = np.where(o_p + o_r > 0, (1 + b2) * o_p * o_r / np.maximum(b2 * o_p + o_r, 1e-300), 0.0)
        for n in hix_names:
            m = _match("hix", n)
            c = ks.index(int(m.group(2)))
            emit(n, {"P": o_p, "R": o_r, "F": o_f}[m.group(1)][:, c], tr > 0)
    # iP / AiP
    ip_names = [n for n in names if fam[n] in ("ip", "aip")]
    if ip_names:
        if run_overlap == "novel":
            rel = ctx.ps.novel_rel
            size = ctx.ps.size - ctx.ps.covered
        else:
            rel = ctx.ps.novel_rel
            size = ctx.ps.size
        o_ip = np.zeros((ntop, points + 1))
        _xml.interpolated_precision(al.run_off, np.ascontiguousarray(rel), np.ascontiguousarray(size),
                                    ctx.trel, points, 0 if bucketing == "exact" else 1, o_ip)
        for n in ip_names:
            if fam[n] == "aip":
                emit(n, o_ip.mean(axis=1), has_trel)
            else:
                emit(n, o_ip[:, _point_index(_match("ip", n).group(1), points, n)], has_trel)
    return res


def _hix_rval(ctx: _Context) -> np.ndarray:
    """HiXEval rval per result.

    HiXEval's rule (rsize minus alpha times the rval of the earlier results
    inside e_i) is written for nested results; for results that cross (overlap
    without one containing the other) it counts the shared relevant text twice
    and R@k can exceed 1.  With alpha = 1 (Focused: overlap not rewarded) rval
    is the relevant text of e_i that no earlier result retrieved, which is the
    rule's value for nested results and counts each relevant character once
    for crossing ones, so R@k <= 1.  With alpha < 1 overlapping relevant text
    is rewarded again by definition (alpha = 0, Thorough: fully) and the rule is
    applied as written.  Element-only assessments keep the rule (their rsize is
    the assessed element's, not highlighted text)."""
    ps = ctx.ps
    if ctx.hix_alpha == 1.0 and ctx.qrels.has_passages:
        return np.ascontiguousarray(ps.novel_rel, dtype=np.float64)
    return ps.rval


def _hix_trel(ctx: _Context, kind: str) -> np.ndarray:
    """HiXEval Trel per aligned topic.  ``"highlighted"`` (Focused): highlighted
    characters of the topic (passage assessments), or with element-only
    assessments the rsize of the outermost assessed elements (their roots hold
    all highlighted text of a document).  ``"thorough"``: rsize summed over
    every assessed element (needs element assessments)."""
    q = ctx.qrels
    if kind == "highlighted" and q.has_passages:
        return ctx.trel.astype(np.float64)
    if not q.has_elements:
        raise ValueError("trel='thorough' needs element assessments (rsize of every relevant element)")
    rs = q.el_spe * (q.el_end - q.el_start)
    t_of = np.repeat(np.arange(len(q.topics)), np.diff(q.el_off))
    if kind == "highlighted":
        keep = np.ones(len(rs), dtype=bool)
        if len(rs) > 1:
            same = (t_of[1:] == t_of[:-1]) & (q.el_doc[1:] == q.el_doc[:-1])
            grp = np.concatenate([[0], np.cumsum(~same)]).astype(_I64)
            big = int(q.el_end.max()) + 1
            cm = np.maximum.accumulate(grp * big + q.el_end) - grp * big
            keep[1:] = ~same | (q.el_start[1:] >= cm[:-1])
        rs = np.where(keep, rs, 0.0)
    per = np.bincount(t_of, weights=rs, minlength=len(q.topics)) if len(rs) else np.zeros(len(q.topics))
    return np.ascontiguousarray(per[ctx.al.qt], dtype=np.float64)


def _summary(name: str, per_topic: Mapping[str, float]) -> float:
    if not per_topic:
        return 0.0
    return running_mean(list(per_topic.values()))  # a running sum, as trec_eval


def evaluate(
    qrels: XmlQrels,
    run: XmlRun,
    measures: Optional[Sequence[str]] = None,
    *,
    per_query: bool = False,
    alpha: float = 1.0,
    hix_alpha: Optional[float] = None,
    quantisation: Quantisation = "auto",
    ideal_overlap: str = "ancestor",
    normalise: bool = True,
    maep_denominator: str = "ideal",
    points: int = 100,
    bucketing: str = "exact",
    run_overlap: str = "novel",
    trel: Union[str, Mapping[str, float]] = "highlighted",
    beta: float = 1.0,
    seen: str = "ancestor",
    complete: bool = False,
    **options: Any,
) -> Dict[str, Any]:
    """Compute many XML measures in one pass.

    ``measures``: names as in the CLI (default :data:`DEFAULT_MEASURES`).
    Returns ``{name: mean over counted topics}`` or, with ``per_query=True``,
    ``{name: {topic: value}}``.  A topic counts if it is in the qrels and the
    run (``complete=True``: every qrels topic, a missing run scores 0) and has
    relevant material for the measure (highlighted text for HiXEval/iP/gP, an
    ideal element for XCG/GR/EPRUM, an assessed exhaustive element for
    inex_eval_ng).  ``hix_alpha`` defaults to ``alpha``.  Options of the
    other families (``beta_ric``, ``bep_distance``, ``tolerance``, ``navigation``,
    ``collection_size``, ``precall_points``) are passed through ``options``.
    """
    names = list(measures) if measures is not None else list(DEFAULT_MEASURES)
    if isinstance(measures, str):
        raise TypeError("measures must be a list of names, not a string")
    fams = {n: measure_family(n) for n in names}
    ctx = _Context(qrels, run, alpha=alpha, hix_alpha=alpha if hix_alpha is None else hix_alpha,
                   quantisation=quantisation, ideal_overlap=ideal_overlap, normalise=normalise,
                   complete=complete, seen=seen)
    core = [n for n in names if fams[n] in ("xcg", "iep", "maep", "epgr", "hix", "ip", "aip")]
    res = _compute(ctx, core, maep_denominator=maep_denominator, points=points, bucketing=bucketing,
                   run_overlap=run_overlap, trel=trel, beta=beta) if core else {}
    rest = [n for n in names if n not in res]
    if rest:
        res.update(_compute_extra(ctx, rest, fams, options))
    elif options:
        raise TypeError(f"unexpected options {sorted(options)!r}")
    if per_query:
        return {n: res[n] for n in names}
    return {n: _summary(n, res[n]) for n in names}


# ---------------------------------------------------------------------------
# inex_eval, inex_eval_ng, gP/MAgP, GR/EPRUM, T2I
# ---------------------------------------------------------------------------


def _topic_slices(off: np.ndarray) -> List[slice]:
    return [slice(int(off[t]), int(off[t + 1])) for t in range(len(off) - 1)]


def _retrieved_grades(ctx: _Context) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, exh, spe) of every retrieved span: the assessed element it equals
    (element assessments; unassessed spans are 0) or, for passage
    assessments, spe = highlighted fraction and exh = 1 if any highlighted."""
    ps = ctx.ps
    if ctx.qrels.has_elements:
        m = ps.match
        ok = m >= 0
        rows = ctx.al.el_rows[np.maximum(m, 0)] if len(ctx.al.el_rows) else np.zeros(len(m), _I64)
        exh = np.where(ok, ctx.qrels.el_exh[rows] if len(ctx.qrels.el_exh) else 0.0, 0.0)
        spe = np.where(ok, ctx.qrels.el_spe[rows] if len(ctx.qrels.el_spe) else 0.0, 0.0)
        q = np.where(ok, ctx.el_q_aligned[np.maximum(m, 0)] if len(ctx.el_q_aligned) else 0.0, 0.0)
        return q, exh, spe
    size = ps.size.astype(np.float64)
    spe = np.where(size > 0, ps.rsize / np.maximum(size, 1.0), 0.0)
    exh = (ps.rsize > 0).astype(np.float64)
    return quantise(exh, spe, ctx.quantisation), exh, spe


def _precall_topic(q: np.ndarray, score: np.ndarray, total: float, points: int,
                   collection_size: Optional[float], ties: bool) -> np.ndarray:
    """Precall at recall k/points, k = 1..points (Raghavan's expected search length)."""
    out = np.zeros(points)
    if total <= 0:
        return out
    # tie groups: consecutive results with equal score (the run is in rank order)
    groups: List[Tuple[float, float]] = []
    n = len(q)
    i = 0
    while i < n:
        j = i + 1
        if ties:
            while j < n and score[j] == score[i]:
                j += 1
        r = float(q[i:j].sum())
        groups.append((r, float(j - i) - r))
        i = j
    retrieved_rel = sum(g[0] for g in groups)
    if collection_size is not None:
        rest_rel = max(total - retrieved_rel, 0.0)
        rest_n = float(collection_size) - n
        if rest_n < rest_rel - 1e-9:
            raise ValueError("collection_size is smaller than the retrieved plus unretrieved relevant units")
        groups.append((rest_rel, max(rest_n - rest_rel, 0.0)))
    for k in range(1, points + 1):
        xn = total * k / points
        before_rel = 0.0
        before_non = 0.0
        for r, nr in groups:
            if before_rel + r >= xn - 1e-9 and r > 0:
                s_need = max(xn - before_rel, 0.0)
                esl_non = before_non + s_need * nr / (r + 1.0)
                out[k - 1] = xn / (xn + esl_non)
                break
            before_rel += r
            before_non += nr
    return out


def inex_eval(qrels: XmlQrels, run: XmlRun, *, quantisation: Quantisation = "generalised", points: int = 100,
              collection_size: Optional[Union[int, Mapping[str, int]]] = None, ties: bool = True,
              complete: bool = False) -> Dict[str, Dict[str, float]]:
    """inex_eval (INEX 2002-2004): ``Precall[x]`` at x = 1/points .. 1 and their
    mean ``inex_eval``, per topic.

    Each result contributes q(e) expected relevant and 1 - q(e) non-relevant
    units (q of the assessed element it equals; 0 if unassessed).  N = sum of
    q over the topic's assessed elements.  Precision at recall x from
    Raghavan's expected search length with ties (``ties=True``: equal RSV =
    one group, the run order otherwise): P(x) = xN / (xN + j + s i / (r + 1)).
    ``collection_size`` (int or topic -> int): the unretrieved units form one
    final tie group of that many units; ``None`` (default): recall levels the
    run does not reach score 0.
    """
    ctx = _Context(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation=quantisation, ideal_overlap="ancestor",
                   normalise=False, complete=complete)
    names = [f"Precall[{_level(k, points)}]" for k in range(1, points + 1)] + ["inex_eval"]
    return _compute_extra(ctx, names, {n: measure_family(n) for n in names},
                          {"precall_points": points, "collection_size": collection_size, "ties": ties})


def inex_eval_ng(qrels: XmlQrels, run: XmlRun, *, cutoffs: Sequence[int] = (5, 10, 25, 50),
                 complete: bool = False) -> Dict[str, Dict[str, float]]:
    """inex_eval_ng (INEX 2003) per topic: ``ngP_o@k``, ``ngR_o@k`` (overlap
    penalised) and ``ngP_s@k``, ``ngR_s@k`` (overlap := 0).

    P(k) = sum spe size (1 - overlap) / sum size (1 - overlap);
    R(k) = sum exh (1 - overlap) / sum of exh over every assessed element.
    Needs element assessments.
    """
    ctx = _Context(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation="generalised", ideal_overlap="ancestor",
                   normalise=False, complete=complete)
    names = [f"ng{x}_{v}@{k}" for v in "os" for k in cutoffs for x in "PR"]
    return _compute_extra(ctx, names, {n: measure_family(n) for n in names}, {})


def generalized_precision(qrels: XmlQrels, run: XmlRun, *, task: str = "RiC", cutoffs: Sequence[int] = (5, 10, 25, 50),
                          beta: float = 0.25, bep_distance: int = 500, complete: bool = False) -> Dict[str, Dict[str, float]]:
    """Relevant-in-Context / Best-in-Context (INEX 2007+): ``gP_<task>@k`` and
    ``MAgP_<task>`` (per topic: AgP).

    Articles are ranked by their first result.  RiC: an article scores the
    F-beta (``beta=0.25``) of the character precision and recall of all its
    retrieved text.  BiC: the entry point is the start of the article's first
    result; score = 1 - |x - bep| / n if closer than n = ``bep_distance``
    characters to the best entry point, else 0.  gP[r] = mean score of the
    first r articles; AgP = sum of gP[r] at relevant articles / number of
    relevant articles (articles with highlighted text).
    """
    if task not in ("RiC", "BiC"):
        raise ValueError(f"task must be 'RiC' or 'BiC', got {task!r}")
    ctx = _Context(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation="auto", ideal_overlap="ancestor",
                   normalise=False, complete=complete, use_elements=False)
    names = [f"gP_{task}@{k}" for k in cutoffs] + [f"MAgP_{task}"]
    return _compute_extra(ctx, names, {n: measure_family(n) for n in names},
                          {"beta_ric": beta, "bep_distance": bep_distance})


Navigation = Callable[[Span, Span], float]


def default_navigation(p_ancestor: float = 0.0, p_descendant: float = 0.0, p_sibling: float = 0.0) -> Navigation:
    """The default user model P(j ~> x) for GR/EPRUM, by the relation of the
    ideal element x to the result at rank j: 1 when x is the result itself;
    ``p_ancestor`` when x is an ancestor of the result (contains it: the user
    navigates up); ``p_descendant`` when x lies inside the result (the user
    navigates down); ``p_sibling`` for any other x of the same document; 0
    across documents."""
    for v, nm in ((p_ancestor, "p_ancestor"), (p_descendant, "p_descendant"), (p_sibling, "p_sibling")):
        if not 0.0 <= float(v) <= 1.0:
            raise ValueError(f"{nm} must lie in [0, 1], got {v!r}")

    def nav(res: Span, x: Span) -> float:
        if res[0] != x[0]:
            return 0.0
        if res[1] == x[1] and res[2] == x[2]:
            return 1.0
        if x[1] <= res[1] and res[2] <= x[2]:
            return float(p_ancestor)
        if res[1] <= x[1] and x[2] <= res[2]:
            return float(p_descendant)
        return float(p_sibling)

    return nav


def eprum(qrels: XmlQrels, run: XmlRun, *, navigation: Optional[Navigation] = None,
          cutoffs: Sequence[int] = (5, 10, 25, 50), points: int = 10, quantisation: Quantisation = "auto",
          ideal_overlap: str = "ancestor", complete: bool = False) -> Dict[str, Dict[str, float]]:
    """GR and EPRUM with a caller-given navigation model ``navigation(result,
    ideal) -> P(j ~> x)`` (default :func:`default_navigation`): ``GR@k`` and
    ``EPRUM[x]`` for x = 1/points .. 1, per topic.

    P(x seen by k) = 1 - prod_{j<=k} (1 - P(j ~> x)); GR(k) = sum g(x)
    P(x seen by k) / sum g(x) over the ideal set.  EPRUM precision at recall l:
    E[m*(l) / K(l)] where m*(l) = min{i : xCI[i] >= l sum g} (the ideal list)
    and K(l) the first rank at which the discovered ideal gain reaches
    l sum g (infinite, i.e. ratio 0, if never); the expectation is exact, by
    dynamic programming over the independent discovery events.
    """
    ctx = _Context(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation=quantisation, ideal_overlap=ideal_overlap,
                   normalise=False, complete=complete)
    names = [f"GR@{k}" for k in cutoffs] + [f"EPRUM[{_level(k, points)}]" for k in range(1, points + 1)]
    return _compute_extra(ctx, names, {n: measure_family(n) for n in names},
                          {"navigation": navigation, "eprum_points": points})


def t2i(qrels: XmlQrels, run: XmlRun, *, tolerance: int = 500, cutoffs: Sequence[int] = (5, 10, 25, 50),
        complete: bool = False) -> Dict[str, Dict[str, float]]:
    """Tolerance to irrelevance (de Vries, Kazai & Lalmas 2004), as SPEC
    operationalises it: for each result in rank order the user starts reading
    at its start offset and reads forward through the document until
    ``tolerance`` consecutive non-relevant characters have been read (those
    included) or the document ends (the document length from the qrels; the
    span's end when unknown).  gain = highlighted characters read for the
    first time; effort = characters read (re-reading counts).
    ``T2IP@k`` = cumulated gain / cumulated effort, ``T2IR@k`` = cumulated
    gain / Trel.
    """
    ctx = _Context(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation="auto", ideal_overlap="ancestor",
                   normalise=False, complete=complete, use_elements=False)
    names = [f"T2I{x}@{k}" for k in cutoffs for x in "PR"]
    return _compute_extra(ctx, names, {n: measure_family(n) for n in names}, {"tolerance": tolerance})


_EXTRA_OPTIONS = {"precall_points", "collection_size", "ties", "beta_ric", "bep_distance",
                  "navigation", "eprum_points", "tolerance"}


def _compute_extra(ctx: _Context, names: Sequence[str], fams: Mapping[str, str],
                   options: Mapping[str, Any]) -> Dict[str, Dict[str, float]]:
    bad = set(options) - _EXTRA_OPTIONS
    if bad:
        raise TypeError(f"unexpected options {sorted(bad)!r}")
    al = ctx.al
    ntop = len(al.topics)
    sls = _topic_slices(al.run_off)
    res: Dict[str, Dict[str, float]] = {}
    by_fam: Dict[str, List[str]] = {}
    for n in names:
        by_fam.setdefault(fams[n], []).append(n)
    run_score = None

    def scores() -> np.ndarray:
        rt = np.asarray([ctx.run.topic_index.get(t, -1) for t in al.topics], dtype=_I64)
        parts = []
        for t, r in enumerate(rt):
            if r >= 0:
                parts.append(ctx.run.score[ctx.run.off[r]:ctx.run.off[r + 1]])
        return np.concatenate(parts) if parts else _EMPTY_F

    # -- inex_eval ------------------------------------------------------------
    if "precall" in by_fam or "inex_eval" in by_fam:
        if not ctx.qrels.has_elements:
            raise ValueError("inex_eval needs element assessments (exhaustivity/specificity per element)")
        points = int(options.get("precall_points", 100))
        if points < 1:
            raise ValueError("precall_points must be a positive integer")
        cs_opt = options.get("collection_size")
        ties = bool(options.get("ties", True))
        q, _, _ = _retrieved_grades(ctx)
        sc = scores()
        qall = _element_q(ctx.qrels, ctx.quantisation)
        totals = np.asarray([qall[ctx.qrels.el_off[qt]:ctx.qrels.el_off[qt + 1]].sum() for qt in al.qt])
        pre = np.zeros((ntop, points))
        for t, sl in enumerate(sls):
            cs = cs_opt.get(al.topics[t]) if isinstance(cs_opt, Mapping) else cs_opt
            pre[t] = _precall_topic(q[sl], sc[sl], float(totals[t]), points, cs, ties)
        mask = totals > 0
        for n in by_fam.get("precall", []):
            k = _point_index(_match("precall", n).group(1), points, n)
            if k == 0:
                raise ValueError(f"{n}: Precall is defined for recall levels above 0")
            res[n] = {al.topics[t]: float(pre[t, k - 1]) for t in range(ntop) if mask[t]}
        for n in by_fam.get("inex_eval", []):
            res[n] = {al.topics[t]: float(pre[t].mean()) for t in range(ntop) if mask[t]}
    # -- inex_eval_ng -----------------------------------------------------------
    if "ng" in by_fam:
        if not ctx.qrels.has_elements:
            raise ValueError("inex_eval_ng needs element assessments (exhaustivity/specificity per element)")
        _, exh, spe = _retrieved_grades(ctx)
        size = ctx.ps.size.astype(np.float64)
        ov = np.where(size > 0, ctx.ps.covered / np.maximum(size, 1.0), 0.0)
        tot_exh = np.asarray([ctx.qrels.el_exh[ctx.qrels.el_off[qt]:ctx.qrels.el_off[qt + 1]].sum() for qt in al.qt])
        for n in by_fam["ng"]:
            m = _match("ng", n)
            k = int(m.group(3))
            w = (1.0 - ov) if m.group(2) == "o" else np.ones_like(ov)
            vals = {}
            for t, sl in enumerate(sls):
                if tot_exh[t] <= 0:
                    continue
                lo = sl.start
                hi = min(sl.stop, lo + k)
                if m.group(1) == "P":
                    den = float((size[lo:hi] * w[lo:hi]).sum())
                    vals[al.topics[t]] = float((spe[lo:hi] * size[lo:hi] * w[lo:hi]).sum()) / den if den > 0 else 0.0
                else:
                    vals[al.topics[t]] = float((exh[lo:hi] * w[lo:hi]).sum()) / float(tot_exh[t])
            res[n] = vals
    # -- gP / MAgP ------------------------------------------------------------
    if "gp" in by_fam:
        beta = float(options.get("beta_ric", 0.25))
        nbep = options.get("bep_distance", 500)
        if not beta > 0:
            raise ValueError(f"beta must be positive, got {beta!r}")
        if isinstance(nbep, bool) or not isinstance(nbep, (int, np.integer)) or nbep <= 0:
            raise ValueError(f"bep_distance must be a positive integer, got {nbep!r}")
        novel = (ctx.ps.size - ctx.ps.covered).astype(np.float64)
        nrel = ctx.ps.novel_rel.astype(np.float64)
        hl_lens = ctx.al.hl
        for task in ("RiC", "BiC"):
            tn = [n for n in by_fam["gp"] if _match("gp", n).group(2) == task]
            if not tn:
                continue
            per: Dict[str, Dict[str, float]] = {n: {} for n in tn}
            for t, sl in enumerate(sls):
                topic = al.topics[t]
                # relevant articles: highlighted characters per document
                h0, h1 = int(hl_lens[0][t]), int(hl_lens[0][t + 1])
                rel_chars: Dict[int, int] = {}
                for d, s, e in zip(hl_lens[1][h0:h1], hl_lens[2][h0:h1], hl_lens[3][h0:h1]):
                    rel_chars[int(d)] = rel_chars.get(int(d), 0) + int(e - s)
                nrel_docs = len(rel_chars)
                if nrel_docs == 0:
                    continue
                order: List[int] = []
                ret: Dict[int, float] = {}
                relret: Dict[int, float] = {}
                entry: Dict[int, int] = {}
                for i in range(sl.start, sl.stop):
                    d = int(al.run_doc[i])
                    if d not in ret:
                        order.append(d)
                        ret[d] = 0.0
                        relret[d] = 0.0
                        entry[d] = int(al.run_start[i])
                    ret[d] += novel[i]
                    relret[d] += nrel[i]
                scores_d: List[float] = []
                for d in order:
                    if task == "RiC":
                        rc = rel_chars.get(d, 0)
                        if rc == 0 or ret[d] <= 0 or relret[d] <= 0:
                            scores_d.append(0.0)
                            continue
                        p = relret[d] / ret[d]
                        r = relret[d] / rc
                        b2 = beta * beta
                        scores_d.append((1 + b2) * p * r / (b2 * p + r))
                    else:
                        docname = ctx.qrels.docs[d] if d < len(ctx.qrels.docs) else None
                        bep = ctx.qrels.bep.get((topic, docname)) if docname is not None else None
                        if bep is None:
                            scores_d.append(0.0)
                            continue
                        dist = abs(entry[d] - bep)
                        scores_d.append(float(1.0 - dist / nbep) if dist < nbep else 0.0)
                sc_arr = np.asarray(scores_d, dtype=np.float64)
                gp = np.cumsum(sc_arr) / np.arange(1, len(sc_arr) + 1) if len(sc_arr) else sc_arr
                isrel = np.asarray([d in rel_chars for d in order], dtype=bool)
                for n in tn:
                    m = _match("gp", n)
                    if m.group(1) == "MAgP":
                        per[n][topic] = float(gp[isrel].sum()) / nrel_docs
                    else:
                        if m.group(3) is None:
                            raise ValueError(f"{n}: gP needs a cutoff, e.g. gP_{task}@10")
                        k = int(m.group(3))
                        per[n][topic] = float(sc_arr[:k].sum()) / k
            res.update(per)
    # -- GR / EPRUM ---------------------------------------------------------------
    if "gr_model" in by_fam or "eprum" in by_fam:
        nav = options.get("navigation") or default_navigation()
        if not callable(nav):
            raise TypeError("navigation must be a callable (result_span, ideal_span) -> probability")
        epts = int(options.get("eprum_points", 10))
        ideal = ctx.ideal
        docs = ctx.qrels.docs
        gr_names = by_fam.get("gr_model", [])
        ep_names = by_fam.get("eprum", [])
        for n in gr_names + ep_names:
            res[n] = {}
        for t, sl in enumerate(sls):
            i0, i1 = int(ideal[0][t]), int(ideal[0][t + 1])
            if i1 == i0:
                continue
            xs = [(docs[int(ideal[1][k])], int(ideal[2][k]), int(ideal[3][k])) for k in range(i0, i1)]
            g = ctx.ideal_gain[i0:i1].astype(np.float64)
            G = float(g.sum())
            if G <= 0:
                continue
            by_doc: Dict[str, List[int]] = {}
            for k, x in enumerate(xs):
                by_doc.setdefault(x[0], []).append(k)
            n_r = sl.stop - sl.start
            # F[j, x] = P(x seen by rank j+1)
            notseen = np.ones(len(xs))
            F = np.zeros((n_r, len(xs)))
            for j in range(n_r):
                i = sl.start + j
                dcode = int(al.run_doc[i])
                dname = docs[dcode] if dcode < len(docs) else None
                if dname is not None and dname in by_doc:
                    res_span = (dname, int(al.run_start[i]), int(al.run_end[i]))
                    for k in by_doc[dname]:
                        p = float(nav(res_span, xs[k]))
                        if not 0.0 <= p <= 1.0:
                            raise ValueError(f"navigation returned {p!r}, not a probability")
                        notseen[k] *= (1.0 - p)
                F[j] = 1.0 - notseen
            topic = al.topics[t]
            for n in gr_names:
                k = int(_match("gr_model", n).group(1))
                row = F[min(k, n_r) - 1] if n_r else np.zeros(len(xs))
                res[n][topic] = float((row * g).sum() / G)
            if ep_names:
                gs = np.sort(g)[::-1]
                xci = np.cumsum(gs)
                for n in ep_names:
                    lvl = _point_index(_match("eprum", n).group(1), epts, n) / epts
                    if lvl <= 0:
                        raise ValueError(f"{n}: EPRUM is defined for recall levels above 0")
                    need = lvl * G * (1 - 1e-12)
                    mstar = int(np.searchsorted(xci, need, side="left")) + 1
                    prev = 0.0
                    acc = 0.0
                    for j in range(n_r):
                        cdf = _prob_at_least(F[j], g, need)
                        acc += (cdf - prev) * mstar / (j + 1)
                        prev = cdf
                    res[n][topic] = acc
    # -- T2I ------------------------------------------------------------------
    if "t2i" in by_fam:
        tol = options.get("tolerance", 500)
        if isinstance(tol, bool) or not isinstance(tol, (int, np.integer)) or tol <= 0:
            raise ValueError(f"tolerance must be a positive integer, got {tol!r}")
        tn = by_fam["t2i"]
        for n in tn:
            res[n] = {}
        hl = ctx.al.hl
        for t, sl in enumerate(sls):
            h0, h1 = int(hl[0][t]), int(hl[0][t + 1])
            trel = int((hl[3][h0:h1] - hl[2][h0:h1]).sum())
            if trel <= 0:
                continue
            per_doc: Dict[int, List[Tuple[int, int]]] = {}
            for d, s, e in zip(hl[1][h0:h1], hl[2][h0:h1], hl[3][h0:h1]):
                per_doc.setdefault(int(d), []).append((int(s), int(e)))
            read: Dict[int, List[Tuple[int, int]]] = {}
            gains, efforts = [], []
            for i in range(sl.start, sl.stop):
                d = int(al.run_doc[i])
                s = int(al.run_start[i])
                dl = int(ctx.qrels.doclen[d]) if d < len(ctx.qrels.doclen) and ctx.qrels.doclen[d] >= 0 else int(al.run_end[i])
                stop = _t2i_stop(per_doc.get(d, []), s, dl, int(tol))
                new = _add_read(read.setdefault(d, []), s, stop, per_doc.get(d, []))
                gains.append(new)
                efforts.append(stop - s)
            cg = np.cumsum(gains)
            ce = np.cumsum(efforts)
            for n in tn:
                m = _match("t2i", n)
                k = min(int(m.group(2)), len(cg))
                if k == 0:
                    res[n][al.topics[t]] = 0.0
                elif m.group(1) == "P":
                    res[n][al.topics[t]] = float(cg[k - 1] / ce[k - 1]) if ce[k - 1] > 0 else 0.0
                else:
                    res[n][al.topics[t]] = float(cg[k - 1] / trel)
    missing = [n for n in names if n not in res]
    if missing:
        raise ValueError(f"measures not computed: {missing}")
    return res


def _prob_at_least(p: np.ndarray, g: np.ndarray, need: float) -> float:
    """P(sum_x g_x B_x >= need) for independent Bernoulli(p_x): exact dynamic
    programming over the reachable sums (rounded to 1e-12)."""
    dist: Dict[float, float] = {0.0: 1.0}
    for px, gx in zip(p, g):
        if px <= 0.0 or gx <= 0.0:
            continue
        nd: Dict[float, float] = {}
        for v, pr in dist.items():
            nd[v] = nd.get(v, 0.0) + pr * (1.0 - px)
            w = round(v + gx, 12)
            nd[w] = nd.get(w, 0.0) + pr * px
        dist = nd
        if len(dist) > 2_000_000:
            raise ValueError("EPRUM: too many distinct gain sums for the exact computation")
    return float(sum(pr for v, pr in dist.items() if v >= need))


def _t2i_stop(hl: List[Tuple[int, int]], start: int, doclen: int, tol: int) -> int:
    """Position after the last character read from ``start``."""
    pos = start
    for s, e in sorted(hl):
        if e <= pos:
            continue
        gap = max(s - pos, 0)
        if gap >= tol:
            return min(pos + tol, doclen)
        pos = max(pos, e)
        if pos >= doclen:
            return doclen
    return min(pos + tol, doclen) if doclen > pos else max(doclen, start)


def _add_read(read: List[Tuple[int, int]], s: int, e: int, hl: List[Tuple[int, int]]) -> int:
    """Highlighted characters of [s, e) not read before; records [s, e) as read."""
    if e <= s:
        return 0
    new = 0
    for hs, he in hl:
        a, b = max(hs, s), min(he, e)
        if b <= a:
            continue
        covered = 0
        for rs, re_ in read:
            x, y = max(rs, a), min(re_, b)
            if y > x:
                covered += y - x
        new += (b - a) - covered
    # merge [s, e) into the read intervals (kept disjoint)
    merged = []
    ns, ne = s, e
    for rs, re_ in read:
        if re_ < ns or rs > ne:
            merged.append((rs, re_))
        else:
            ns, ne = min(ns, rs), max(ne, re_)
    merged.append((ns, ne))
    merged.sort()
    read[:] = merged
    return new
