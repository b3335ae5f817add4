"""``compat="inex2008"``: the numbers of the INEX 2008 evaluation tool inex_eval v1.0.

inex_eval v1.0 (Java; Focused, Relevant in Context and Best in Context of the
INEX 2008 ad hoc track) computes iP[x], AiP/MAiP, gP[k] and AgP/MAgP with rules
of its own that differ from the published definitions irscore follows by
default.  This module holds those rules, each one in one place:

- **ranking**: file order; the rank and score columns are not read;
- **recall levels**: a result is filed under level floor(100 R) computed in
  floating point (R = 29/100 falls into level 28); R > 1 is dropped;
- **gP[k] with fewer than k articles**: the value at the last article
  (score sum / number of articles), not the sum divided by k;
- **topics with results but no relevant text** count: AiP 0; AgP = 0/0 = NaN,
  so MAgP is NaN;
- **recall denominators** use the ``relchars`` column (the topic's Trel is the
  sum of relchars, an article's relevant size its relchars; a judged article
  is relevant iff relchars > 0); retrieved sizes count every result fully,
  an ``X``/``-1`` offset as 18 non-relevant characters;
- **means** are summed in the tool's order (topics as strings) and divided by
  the number of topics.

and its input leniencies (readers [`read_qrels`][irscore.read_qrels], [`read_run`][irscore.read_run]), each
reported with one warning per file.  The tool's own defects are not copied
(see ``docs/xml_compat.md``): text retrieved twice (a result inside an earlier
one), duplicate (topic, doc) judgements and overlapping judged passages count
once here.
"""
from __future__ import annotations

import bisect
import math
import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from irscore import _xml_gp
from irscore.core.files import open_text
from irscore.xml.align import Aligned
from irscore.xml.context import EvalContext
from irscore.xml.model import EMPTY_I, I64, DocIndex, XmlQrels, XmlRun, build_qrels, check_offset, csr, parse_int
from irscore.xml.names import match_name, measure_family, point_index

COMPAT = ("inex2008", "reprec")
#: size the tool gives a result with offset X or -1 (``meanPassageLength``)
UNKNOWN_SIZE = 18
#: start the tool gives a result with offset X or -1 (BiC distance = bep + 10000)
UNKNOWN_START = -10000
TOOL = "inex_eval v1.0"


def check_compat(compat: Optional[str]) -> Optional[str]:
    if compat is not None and compat not in COMPAT:
        raise ValueError(f"compat must be None, 'inex2008' or 'reprec', got {compat!r}")
    return compat


class _Notes:
    """One warning per kind of leniency: the first place and how many."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.first: Dict[str, str] = {}
        self.count: Dict[str, int] = {}

    def add(self, kind: str, where: str) -> None:
        self.first.setdefault(kind, where)
        self.count[kind] = self.count.get(kind, 0) + 1

    def emit(self, text: Mapping[str, str]) -> None:
        for kind, where in self.first.items():
            n = self.count[kind]
            warnings.warn(f"{where}: {text[kind]} ({n} {'case' if n == 1 else 'cases'} in {self.src})",
                          UserWarning, stacklevel=3)


# ---------------------------------------------------------------------------
# readers with the tool's leniencies
# ---------------------------------------------------------------------------

_QRELS_NOTES = {
    "six": f"6-field line: {TOOL} ignores everything after doclen (no best entry point, no passage); so does compat='inex2008'",
    "relchars": f"relchars differs from the characters the passages cover: {TOOL} and compat='inex2008' use relchars "
                "as the recall denominator and the passages for the retrieved relevant text",
    "doclen": "document length differs from an earlier line or a passage / entry point lies past it: the length is "
              f"not used by {TOOL}; accepted",
    "duplicate": f"document judged twice for a topic: {TOOL} counts both lines (a defect); compat='inex2008' keeps "
                 "the first",
    "overlap": f"overlapping passages on one line: {TOOL} counts the overlap twice (a defect); compat='inex2008' "
               "counts it once",
}



def read_qrels(path: Any) -> XmlQrels:
    """Passage qrels read as inex_eval v1.0 reads them (see the module doc)."""
    src = str(path)
    notes = _Notes(src)
    rows: List[Tuple[str, str, int, int]] = []
    doclens: Dict[str, int] = {}
    beps: Dict[Tuple[str, str], int] = {}
    relchars: Dict[Tuple[str, str], int] = {}
    topics: Dict[str, None] = {}
    with open_text(path, "qrels") as fh:
        for ln, line in enumerate(fh, 1):
            toks = line.split()
            if not toks:
                continue
            loc = f"{src}:{ln}"
            if len(toks) < 5:
                raise ValueError(f"{loc}: expected 'topic Q0 doc relchars doclen [bep off:len ...]', got {line.strip()!r}")
            topic, doc = toks[0], toks[2]
            rc = parse_int(toks[3], "relchars", loc)
            dlen = parse_int(toks[4], "doclen", loc)
            if rc < 0 or dlen < 0:
                raise ValueError(f"{loc}: negative relchars or doclen")
            topics[topic] = None
            if (topic, doc) in relchars:
                notes.add("duplicate", loc)
                continue
            relchars[(topic, doc)] = rc
            if doclens.get(doc, dlen) != dlen or rc > dlen:
                notes.add("doclen", loc)
            doclens.setdefault(doc, dlen)
            if len(toks) == 6:
                notes.add("six", loc)
            spans: List[Tuple[int, int]] = []
            if len(toks) >= 7:
                bep = parse_int(toks[5], "bep", loc)
                for tok in toks[6:]:
                    if tok.count(":") != 1:
                        raise ValueError(f"{loc}: expected a passage 'offset:length', got {tok!r}")
                    o, le = tok.split(":")
                    off, length = parse_int(o, "passage offset", loc), parse_int(le, "passage length", loc)
                    if off < 0 or length < 0:
                        raise ValueError(f"{loc}: negative passage offset or length in {tok!r}")
                    check_offset(off + length, "passage end", loc)
                    spans.append((off, off + length))
                if rc > 0 and bep >= 0:
                    beps[(topic, doc)] = bep
                    if bep > dlen:
                        notes.add("doclen", loc)
            if any(e > dlen for _, e in spans):
                notes.add("doclen", loc)
            union, ce = 0, -1
            for s, e in sorted(spans):
                if s < ce:
                    notes.add("overlap", loc)
                union += max(e - max(s, ce), 0)
                ce = max(ce, e)
            if union != rc and (spans or rc > 0) and len(toks) != 6:
                notes.add("relchars", loc)
            if rc > 0:  # the tool reads passages only of relevant lines
                rows.extend((topic, doc, s, e) for s, e in spans)
    notes.emit(_QRELS_NOTES)
    q = build_qrels(list(topics), rows, [], doclens, beps, True, False)
    q.relchars = relchars
    return q


_RUN_NOTES = {
    "unknown": f"offset X or -1: {TOOL} counts the result as {UNKNOWN_SIZE} non-relevant characters; so does "
               "compat='inex2008'",
    "columns": f"non-integer rank or non-numeric score: {TOOL} never reads these columns (file order is the "
               "ranking); accepted",
    "past": f"span ends past the document length: {TOOL} counts its full length as retrieved text; so does "
            "compat='inex2008'",
    "blocks": f"a topic's lines are not contiguous: {TOOL} mixes the ranks of the two topics (a defect); "
              "compat='inex2008' ranks each topic's lines in file order",
}


def read_run(path: Any, qrels: Optional[XmlQrels] = None) -> XmlRun:
    """A FOL run read as inex_eval v1.0 reads it: exactly 8 fields per line,
    ranked in file order, rank/score columns not read, offset ``X``/``-1`` =
    a result of 18 non-relevant characters (stored as an empty span at 0,
    flagged in ``unknown_offset``), spans past the document length accepted."""
    src = str(path)
    notes = _Notes(src)
    di = DocIndex()
    topics: Dict[str, int] = {}
    t_l: List[int] = []
    d_l: List[int] = []
    s_l: List[int] = []
    e_l: List[int] = []
    sc_l: List[float] = []
    u_l: List[bool] = []
    runid = None
    last_topic = None
    doclen_of = {qrels.docs[i]: int(n) for i, n in enumerate(qrels.doclen)} if qrels is not None else {}
    with open_text(path, "run") as fh:
        for ln, line in enumerate(fh, 1):
            toks = line.split()
            if not toks:
                continue
            loc = f"{src}:{ln}"
            if len(toks) != 8:
                raise ValueError(f"{loc}: expected 'topic Q0 doc rank rsv runid offset length' (8 fields), "
                                 f"got {len(toks)}")
            topic, doc = toks[0], toks[2]
            try:
                int(toks[3])
                rsv = float(toks[4])
            except ValueError:
                notes.add("columns", loc)
                rsv = math.nan
            unknown = toks[6] in ("X", "-1")
            if unknown:
                notes.add("unknown", loc)
                off = length = 0
            else:
                off = parse_int(toks[6], "offset", loc)
                length = parse_int(toks[7], "length", loc)
                if off < 0:
                    raise ValueError(f"{loc}: negative offset {off}")
                if length < 0:
                    raise ValueError(f"{loc}: negative length {length}")
                check_offset(off + length, "end offset", loc)
                n = doclen_of.get(doc, -1)
                if 0 <= n < off + length:
                    notes.add("past", loc)
            if topic in topics and topic != last_topic:
                notes.add("blocks", loc)
            last_topic = topic
            runid = toks[5] if runid is None else runid
            t_l.append(topics.setdefault(topic, len(topics)))
            d_l.append(di.code(doc))
            s_l.append(off)
            e_l.append(off + length)
            sc_l.append(rsv)
            u_l.append(unknown)
    notes.emit(_RUN_NOTES)
    t = np.asarray(t_l, dtype=I64)
    perm = np.lexsort((np.arange(len(t_l)), t))
    run = XmlRun(
        list(topics), di.names,
        csr(np.bincount(t, minlength=len(topics)).tolist() if len(t) else [0] * len(topics)),
        np.asarray(d_l, dtype=I64)[perm], np.asarray(s_l, dtype=I64)[perm], np.asarray(e_l, dtype=I64)[perm],
        np.asarray(sc_l, dtype=np.float64)[perm], runid or "run",
    )
    run.unknown_offset = np.asarray(u_l, dtype=bool)[perm]
    return run


# ---------------------------------------------------------------------------
# the tool's measures
# ---------------------------------------------------------------------------

_FAMILIES = ("ip", "aip", "gp")


def _aligned_unknown(run: XmlRun, al: Aligned) -> np.ndarray:
    """``run.unknown_offset`` in the aligned order."""
    if run.unknown_offset is None:
        return np.zeros(len(al.run_doc), dtype=bool)
    if len(run.unknown_offset) != len(run.doc):
        raise ValueError(f"run.unknown_offset has {len(run.unknown_offset)} entries for {len(run.doc)} results")
    return np.asarray(run.unknown_offset, dtype=bool)[al.run_rows]


def _relevance(qrels: XmlQrels, al: Aligned) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Relevant articles per aligned topic, CSR (off, doc code, relevant size;
    relchars > 0 only, each document once).  Without a relchars column (qrels
    built from passages) the highlighted characters of the document."""
    ntop = len(al.topics)
    if qrels.relchars:
        pos = {t: k for k, t in enumerate(al.topics)}
        rows = [(pos[t], qrels.doc_index[d], int(rc)) for (t, d), rc in qrels.relchars.items()
                if t in pos and rc > 0]
        a = np.asarray(rows, dtype=I64).reshape(-1, 3)
        t_of, doc, rs = a[:, 0], a[:, 1], a[:, 2]
    else:
        hl = al.hl
        t_hl = np.repeat(np.arange(ntop, dtype=I64), np.diff(hl[0]))
        key = t_hl * (max(al.ndocs, 1)) + hl[1]
        uk, inv = np.unique(key, return_inverse=True)
        rs = np.bincount(inv.ravel(), weights=(hl[3] - hl[2]).astype(np.float64), minlength=len(uk)).astype(I64)
        t_of, doc = uk // max(al.ndocs, 1), uk % max(al.ndocs, 1)
    order = np.argsort(t_of, kind="stable")
    off = np.zeros(ntop + 1, dtype=I64)
    np.cumsum(np.bincount(t_of, minlength=ntop), out=off[1:])
    return off, np.ascontiguousarray(doc[order], dtype=I64), np.ascontiguousarray(rs[order], dtype=I64)


def _beps(qrels: XmlQrels, al: Aligned) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best entry points per aligned topic, CSR (off, doc code, offset)."""
    pos = {t: k for k, t in enumerate(al.topics)}
    rows = [(pos[t], qrels.doc_index[d], int(v)) for (t, d), v in qrels.bep.items()
            if t in pos and d in qrels.doc_index]
    a = np.asarray(rows, dtype=I64).reshape(-1, 3)
    order = np.argsort(a[:, 0], kind="stable")
    off = np.zeros(len(al.topics) + 1, dtype=I64)
    np.cumsum(np.bincount(a[:, 0], minlength=len(al.topics)), out=off[1:])
    return off, np.ascontiguousarray(a[order, 1]), np.ascontiguousarray(a[order, 2])


def _warn(kind: str, where: str) -> None:
    text = {
        "overlap": f"results overlap earlier results of their article ({where}): {TOOL} rejects such a run, except "
                   "a result strictly inside an earlier one, whose relevant text it counts twice (a defect); "
                   "compat='inex2008' counts relevant text once and every result's size fully",
        "interleaved": f"an article's results are not contiguous ({where}): {TOOL} rejects the run for RiC/BiC; "
                       "compat='inex2008' ranks the article at its first result",
        "multiple": f"several results for one article ({where}): {TOOL} rejects the run for BiC; "
                    "compat='inex2008' uses the first one as the entry point",
    }[kind]
    warnings.warn(text, UserWarning, stacklevel=4)


def _first_overlap(covered: np.ndarray, al: Aligned, unknown: np.ndarray) -> int:
    """The first aligned result that overlaps an earlier result of its
    article in the tool's sense, or -1: it shares text with one
    (``covered > 0``), or it reaches a zero-length result listed before it
    (offset within or at an end of the later result), which shares no text
    but which the tool rejects as overlapping all the same."""
    hits = np.flatnonzero(covered > 0)
    first = int(hits[0]) if len(hits) else -1
    start, end = al.run_start, al.run_end
    zero = np.flatnonzero((end == start) & ~unknown)
    if not len(zero):
        return first
    topic = np.repeat(np.arange(len(al.run_off) - 1, dtype=I64), np.diff(al.run_off))
    key = topic * max(al.ndocs, 1) + al.run_doc
    groups = np.unique(key[zero])
    sel = np.flatnonzero(np.isin(key, groups) & ~unknown)
    sel = sel[np.lexsort((sel, key[sel]))]       # by article, then in ranking order
    bounds = np.flatnonzero(np.diff(key[sel])) + 1
    for g in np.split(sel, bounds):
        # from the last result up: the union of the later results' closed spans
        # [start, end] as sorted disjoint intervals; a zero-length result at p
        # inside it is reached by a later result
        lo: List[int] = []
        hi: List[int] = []
        for i in g[::-1].tolist():
            a, b = int(start[i]), int(end[i])
            if a == b:
                j = bisect.bisect_right(lo, a) - 1
                if j >= 0 and hi[j] >= a:        # (the later result is in the same topic)
                    first = i if first < 0 else min(first, i)
                continue
            j = bisect.bisect_left(hi, a)        # the first interval that may touch [a, b]
            k = bisect.bisect_right(lo, b)
            if j < k:
                a, b = min(a, lo[j]), max(b, hi[k - 1])
            lo[j:k] = [a]
            hi[j:k] = [b]
    return first


def _seq_mean(values: Sequence[float]) -> float:
    """Sum in the given order, then divide (Java's loop; NaN for no values)."""
    acc = 0.0
    for v in values:
        acc += v
    return acc / len(values) if len(values) else math.nan


def _focused(rel: np.ndarray, size: np.ndarray, off: np.ndarray, trel: np.ndarray) -> np.ndarray:
    """iP[0..100] per topic: level floor(100 R) in floating point, R > 1
    dropped, running maximum from the top level down."""
    ntop = len(off) - 1
    ip = np.zeros((ntop, 101))
    n = len(rel)
    if n:
        tix = np.repeat(np.arange(ntop), np.diff(off))
        cr = np.cumsum(rel)
        cs = np.cumsum(size)
        base_r = np.concatenate([[0], cr])[off[:-1]]
        base_s = np.concatenate([[0], cs])[off[:-1]]
        cr = cr - base_r[tix]
        cs = cs - base_s[tix]
        with np.errstate(invalid="ignore", divide="ignore"):
            p = cr.astype(np.float64) / cs.astype(np.float64)
            r = cr.astype(np.float64) / trel[tix].astype(np.float64)
            lv = np.floor(100.0 * r)
        lv = np.where(np.isnan(lv), 0.0, lv)
        ok = (lv >= 0) & (lv <= 100) & ~np.isnan(p)
        np.maximum.at(ip, (tix[ok], lv[ok].astype(I64)), p[ok])
    return np.maximum.accumulate(ip[:, ::-1], axis=1)[:, ::-1]


def evaluate(qrels: XmlQrels, run: XmlRun, names: Sequence[str], *, per_query: bool = False,
             complete: bool = False, beta_ric: float = 0.25, bep_distance: int = 500,
             points: int = 100) -> Dict[str, Any]:
    """iP[x], AiP/MAiP, gP_RiC@k, MAgP_RiC, gP_BiC@k, MAgP_BiC as inex_eval
    v1.0 computes them (per topic with ``per_query``, else the tool's means)."""
    fams = {n: measure_family(n) for n in names}
    bad = [n for n in names if fams[n] not in _FAMILIES]
    if bad:
        raise ValueError(f"compat='inex2008' computes iP[x], MAiP, gP_RiC@k, MAgP_RiC, gP_BiC@k and MAgP_BiC "
                         f"(inex_eval v1.0's measures), not {bad}")
    if points != 100:
        raise ValueError("compat='inex2008' uses inex_eval v1.0's 101 recall levels (points=100)")
    if not beta_ric > 0:
        raise ValueError(f"beta must be positive, got {beta_ric!r}")
    if isinstance(bep_distance, bool) or not isinstance(bep_distance, (int, np.integer)) or bep_distance <= 0:
        raise ValueError(f"bep_distance must be a positive integer, got {bep_distance!r}")
    ctx = EvalContext(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation="auto", ideal_overlap="ancestor",
                      normalise=False, complete=complete, use_elements=False, allow_unknown=True)
    al, ps = ctx.al, ctx.ps
    unknown = _aligned_unknown(run, al)
    rels = _relevance(qrels, al)
    # retrieved sizes count fully (X/-1: 18 characters); relevant text counts once
    size = np.where(unknown, UNKNOWN_SIZE, ps.size).astype(I64)
    rel = np.where(unknown, 0, ps.novel_rel).astype(I64)
    first = _first_overlap(ps.covered, al, unknown)
    if first >= 0:
        k = int(np.searchsorted(al.run_off, first, side="right")) - 1
        _warn("overlap", f"topic {al.topics[k]}")
    per: Dict[str, Dict[str, float]] = {}
    topics = al.topics
    if any(fams[n] in ("ip", "aip") for n in names):
        trel = np.bincount(np.repeat(np.arange(len(topics)), np.diff(rels[0])), weights=rels[2].astype(np.float64),
                           minlength=len(topics)).astype(I64) if len(topics) else np.zeros(0, I64)
        ip = _focused(rel, size, al.run_off, trel)
        aip = np.cumsum(ip, axis=1)[:, -1] / 101 if len(topics) else np.zeros(0)
        for n in names:
            if fams[n] == "aip":
                per[n] = {t: float(aip[k]) for k, t in enumerate(topics)}
            elif fams[n] == "ip":
                c = point_index(match_name("ip", n).group(1), 100, n)
                per[n] = {t: float(ip[k, c]) for k, t in enumerate(topics)}
    entry = np.where(unknown, UNKNOWN_START, al.run_start).astype(I64)
    for task in ("RiC", "BiC"):
        tn = [n for n in names if fams[n] == "gp" and match_name("gp", n).group(2) == task]
        if not tn:
            continue
        for n in tn:
            m = match_name("gp", n)
            if m.group(1) != "MAgP" and m.group(3) is None:
                raise ValueError(f"{n}: gP needs a cutoff, e.g. gP_{task}@10")
        ks = sorted({int(match_name("gp", n).group(3)) for n in tn if match_name("gp", n).group(1) != "MAgP"})
        bep = _beps(qrels, al) if task == "BiC" else (np.zeros(len(topics) + 1, I64), EMPTY_I, EMPTY_I)
        o_gp = np.zeros((len(topics), len(ks)))
        o_agp = np.zeros(len(topics))
        warn_at = np.zeros(2, dtype=I64)
        _xml_gp.gp_inex2008((al.run_off, al.run_doc, entry, size, rel), (rels[0], rels[1], rels[2]),
                            (bep[0], bep[1], bep[2]),
                            {"ndocs": al.ndocs, "task": 0 if task == "RiC" else 1, "beta": float(beta_ric),
                             "bep_distance": int(bep_distance)},
                            np.asarray(ks, dtype=I64), o_gp, o_agp, warn_at)
        for kind, k in sorted([("interleaved", int(warn_at[0])), ("multiple", int(warn_at[1]))], key=lambda x: x[1]):
            if k >= 0:
                _warn(kind, f"topic {topics[k]}")
        for n in tn:
            m = match_name("gp", n)
            vals = o_agp if m.group(1) == "MAgP" else o_gp[:, ks.index(int(m.group(3)))]
            per[n] = {t: float(vals[k]) for k, t in enumerate(topics)}
    if per_query:
        return {n: per[n] for n in names}
    order = sorted(topics)  # the tool sums topics in string order
    return {n: _seq_mean([per[n][t] for t in order]) for n in names}
