"""XML retrieval data model: spans, [`XmlQrels`][irscore.xml.model.XmlQrels] (passages and/or assessed elements)
and [`XmlRun`][irscore.xml.model.XmlRun]."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from irscore import _xml_focused

Span = Tuple[str, int, int]
Quantisation = Union[str, Callable[[np.ndarray, np.ndarray], np.ndarray], Mapping[Tuple[float, float], float]]

I64 = np.int64
#: Largest character offset, length or document length accepted (2**62), so
#: that the sum of two of them still fits the kernels' 64-bit integers.
MAX_OFFSET = 2 ** 62


def check_offset(v: int, what: str, loc: str) -> int:
    """``v`` if ``|v| <= MAX_OFFSET``; else a ValueError naming ``what`` at ``loc``."""
    if not -MAX_OFFSET <= v <= MAX_OFFSET:
        raise ValueError(f"{loc}: {what} {v} is out of range (at most 2**62)")
    return v


def parse_int(tok: str, what: str, loc: str) -> int:
    """The integer ``tok`` of a file, within ``MAX_OFFSET``; errors name ``what`` and ``loc``."""
    try:
        v = int(tok)
    except ValueError:
        raise ValueError(f"{loc}: {what} must be an integer, got {tok!r}") from None
    return check_offset(v, what, loc)
EMPTY_I = np.zeros(0, dtype=I64)
EMPTY_F = np.zeros(0, dtype=np.float64)


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------


def csr(counts: Any) -> np.ndarray:
    off = np.zeros(len(counts) + 1, dtype=I64)
    if len(counts):
        np.cumsum(np.asarray(counts, dtype=I64), out=off[1:])
    return off


class DocIndex:
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
    (-1 if unknown), ``bep[(topic, doc)]`` the best entry point.  Build it
    with [`from_passages`][irscore.xml.model.XmlQrels.from_passages],
    [`from_elements`][irscore.xml.model.XmlQrels.from_elements] or a reader.

    Attributes
    ----------
    topics, docs : list of str
        Topic and document names (documents are coded by position).
    hl_* : ndarray
        Highlighted passages per topic (CSR ``hl_off``).
    el_* : ndarray
        Assessed elements per topic (CSR ``el_off``) with exhaustivity and specificity.
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
    #: ``relchars`` column of a passage qrels file per (topic, doc) (empty when
    #: built from passages; read by ``compat="inex2008"``)
    relchars: Dict[Tuple[str, str], int] = field(default_factory=dict)

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
        return build_qrels(topics, rows, [], doclens or {}, dict(beps or {}), True, False)

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
        return build_qrels(topics, [], rows, doclens or {}, {}, False, True)

    def trel(self) -> np.ndarray:
        """Highlighted characters per topic (the Focused Trel)."""
        lens = self.hl_end - self.hl_start
        cs = np.concatenate([[0], np.cumsum(lens)]).astype(I64)
        return cs[self.hl_off[1:]] - cs[self.hl_off[:-1]]


@dataclass
class XmlRun:
    """A ranked list of spans per topic (CSR ``off``), already in rank order.

    Build it with [`from_spans`][irscore.xml.model.XmlRun.from_spans] or a reader.

    Attributes
    ----------
    topics, docs : list of str
        Topic and document names.
    off : ndarray of int64
        CSR offsets of each topic's results.
    doc, start, end, score : ndarray
        Document code, span and score of each result, in rank order.
    run_id : str
        The run's name.
    """

    topics: List[str]
    docs: List[str]
    off: np.ndarray
    doc: np.ndarray
    start: np.ndarray
    end: np.ndarray
    score: np.ndarray
    run_id: str = "run"
    #: results whose offset was ``X`` or ``-1`` (read with ``compat="inex2008"``;
    #: stored as empty spans at 0), or None
    unknown_offset: Optional[np.ndarray] = None

    def __post_init__(self) -> None:
        self.topic_index: Dict[str, int] = {t: i for i, t in enumerate(self.topics)}

    @classmethod
    def from_spans(
        cls,
        spans: Mapping[str, Sequence[Span]],
        run_id: str = "run",
        allow_overlap: bool = True,
    ) -> "XmlRun":
        """``{topic: [(doc, start, end), ...]}`` in rank order (first = rank 1).

        Parameters
        ----------
        spans : mapping
            Topic -> ranked spans ``(doc, start, end)`` (half-open character offsets).
        run_id : str, default "run"
            The run's name.
        allow_overlap : bool, default True
            False declares the run non-overlapping: overlapping spans of a
            topic are then an error.

        Returns
        -------
        XmlRun

        Raises
        ------
        TypeError, ValueError
            A malformed span, or overlapping spans when ``allow_overlap=False``.
        """
        di = DocIndex()
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
            csr(counts),
            np.asarray(docs, dtype=I64).reshape(n),
            np.asarray(starts, dtype=I64).reshape(n),
            np.asarray(ends, dtype=I64).reshape(n),
            -np.arange(n, dtype=np.float64),
            run_id,
        )
        if not allow_overlap:
            check_no_overlap(run, None, None)
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
    check_offset(e, "end offset", where)
    return str(doc), s, e


def _check_grade(exh: float, spe: float, where: str) -> None:
    if not (0.0 <= exh <= 1.0) or not (0.0 <= spe <= 1.0) or math.isnan(exh) or math.isnan(spe):
        raise ValueError(f"{where}: exhaustivity and specificity must lie in [0, 1]")


def build_qrels(
    topics: List[str],
    hl_rows: List[Tuple[str, str, int, int]],
    el_rows: List[Tuple[str, str, int, int, float, float, bool]],
    doclens: Mapping[str, int],
    beps: Dict[Tuple[str, str], int],
    has_passages: bool,
    has_elements: bool,
    where: Optional[Dict[Tuple[str, str, int, int], str]] = None,
) -> XmlQrels:
    di = DocIndex()
    for dname, n in doclens.items():
        di.code(str(dname))
        check_offset(int(n), "length", f"doclens[{dname!r}]")
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
    hl_arr = np.asarray(hl, dtype=I64).reshape(len(hl), 4)
    hl_off = csr(np.bincount(hl_arr[:, 0], minlength=len(topics)).tolist() if len(hl) else [0] * len(topics))
    # elements: sorted by (topic, doc, start, -end), must nest
    ne = len(el_rows)
    el_t = np.fromiter((tindex[r[0]] for r in el_rows), dtype=I64, count=ne)
    el_doc = np.fromiter((di.code(r[1]) for r in el_rows), dtype=I64, count=ne)
    el_start = np.fromiter((r[2] for r in el_rows), dtype=I64, count=ne)
    el_end = np.fromiter((r[3] for r in el_rows), dtype=I64, count=ne)
    el_exh = np.fromiter((r[4] for r in el_rows), dtype=np.float64, count=ne)
    el_spe = np.fromiter((r[5] for r in el_rows), dtype=np.float64, count=ne)
    el_small = np.fromiter((r[6] for r in el_rows), dtype=bool, count=ne)
    order = np.lexsort((-el_end, el_start, el_doc, el_t))
    el_t, el_doc, el_start, el_end = el_t[order], el_doc[order], el_start[order], el_end[order]
    el_exh, el_spe, el_small = el_exh[order], el_spe[order], el_small[order]
    el_off = csr(np.bincount(el_t, minlength=len(topics)) if ne else np.zeros(len(topics), I64))
    bi, bj, kind = _xml_focused.check_nesting((el_off, el_doc, el_start, el_end))
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
    doclen = np.full(len(di.names), -1, dtype=I64)
    for dname, n in doclens.items():
        doclen[di.index[str(dname)]] = int(n)
    for (btopic, bdoc), bpos in beps.items():
        check_offset(int(bpos), "best entry point", f"beps[{(btopic, bdoc)!r}]")
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


def _loc_key(loc: str) -> Tuple[str, int]:
    head, _, tail = loc.rpartition(":")
    return (head, int(tail)) if tail.isdigit() else (loc, 0)


def check_no_overlap(run: XmlRun, path: Optional[str], lines: Optional[np.ndarray]) -> None:
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
        key = grp.astype(I64) * big + ee
        cm = np.maximum.accumulate(key) - grp.astype(I64) * big
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
