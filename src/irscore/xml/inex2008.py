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

and its input leniencies (readers :func:`read_qrels`, :func:`read_run`), each
reported with one warning per file.  The tool's own defects are not copied
(see ``docs/xml_compat.md``): text retrieved twice (a result inside an earlier
one), duplicate (topic, doc) judgements and overlapping judged passages count
once here.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from irscore.core.files import open_text
from irscore.xml.align import Aligned
from irscore.xml.context import EvalContext
from irscore.xml.model import DocIndex, I64, XmlQrels, XmlRun, build_qrels, csr
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


def _int(tok: str, what: str, loc: str) -> int:
    try:
        return int(tok)
    except ValueError:
        raise ValueError(f"{loc}: {what} must be an integer, got {tok!r}") from None


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
            rc = _int(toks[3], "relchars", loc)
            dlen = _int(toks[4], "doclen", loc)
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
                bep = _int(toks[5], "bep", loc)
                for tok in toks[6:]:
                    if tok.count(":") != 1:
                        raise ValueError(f"{loc}: expected a passage 'offset:length', got {tok!r}")
                    o, le = tok.split(":")
                    off, length = _int(o, "passage offset", loc), _int(le, "passage length", loc)
                    if off < 0 or length < 0:
                        raise ValueError(f"{loc}: negative passage offset or length in {tok!r}")
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
                off = _int(toks[6], "offset", loc)
                length = _int(toks[7], "length", loc)
                if off < 0:
                    raise ValueError(f"{loc}: negative offset {off}")
                if length < 0:
                    raise ValueError(f"{loc}: negative length {length}")
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
    out = np.zeros(len(al.run_doc), dtype=bool)
    if run.unknown_offset is None:
        return out
    if len(run.unknown_offset) != len(run.doc):
        raise ValueError(f"run.unknown_offset has {len(run.unknown_offset)} entries for {len(run.doc)} results")
    for k, topic in enumerate(al.topics):
        r = run.topic_index.get(topic)
        if r is not None:
            out[al.run_off[k]:al.run_off[k + 1]] = run.unknown_offset[run.off[r]:run.off[r + 1]]
    return out


def _relevance(qrels: XmlQrels, al: Aligned) -> List[Dict[int, int]]:
    """Per aligned topic: qrels doc code -> relevant size (relchars > 0 only).
    Without a relchars column (qrels built from passages) the highlighted
    characters of the document."""
    out: List[Dict[int, int]] = [{} for _ in al.topics]
    pos = {t: k for k, t in enumerate(al.topics)}
    if qrels.relchars:
        for (topic, doc), rc in qrels.relchars.items():
            k = pos.get(topic)
            if k is not None and rc > 0:
                out[k][qrels.doc_index[doc]] = rc
        return out
    hl = al.hl
    for k in range(len(al.topics)):
        for i in range(int(hl[0][k]), int(hl[0][k + 1])):
            d = int(hl[1][i])
            out[k][d] = out[k].get(d, 0) + int(hl[3][i] - hl[2][i])
    return out


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


def _context_scores(task: str, ctx: EvalContext, rels: List[Dict[int, int]], rel: np.ndarray,
                    size: np.ndarray, unknown: np.ndarray, beta: float, nbep: int) -> List[Tuple[List[float], List[bool]]]:
    """Per aligned topic: article scores in rank order and whether each
    article is relevant (RiC: F-beta; BiC: best-entry-point distance)."""
    al = ctx.al
    out = []
    warned = set()
    b2 = beta * beta
    for k, topic in enumerate(al.topics):
        lo, hi = int(al.run_off[k]), int(al.run_off[k + 1])
        order: List[int] = []
        ret: Dict[int, int] = {}
        relret: Dict[int, int] = {}
        entry: Dict[int, int] = {}
        prev = -1
        for i in range(lo, hi):
            d = int(al.run_doc[i])
            if d not in ret:
                order.append(d)
                ret[d], relret[d] = 0, 0
                entry[d] = UNKNOWN_START if unknown[i] else int(al.run_start[i])
            elif d != prev and "interleaved" not in warned:
                warned.add("interleaved")
                _warn("interleaved", f"topic {topic}")
            elif d == prev and task == "BiC" and "multiple" not in warned:
                warned.add("multiple")
                _warn("multiple", f"topic {topic}")
            prev = d
            ret[d] += int(size[i])
            relret[d] += int(rel[i])
        scores: List[float] = []
        for d in order:
            rc = rels[k].get(d, 0)
            sc = 0.0
            if task == "RiC":
                if relret[d] > 0:
                    p = relret[d] / ret[d]
                    r = relret[d] / rc
                    sc = ((1 + b2) * p * r) / ((b2 * p) + r)
            else:
                docname = ctx.qrels.docs[d] if d < len(ctx.qrels.docs) else None
                bep = ctx.qrels.bep.get((topic, docname)) if docname is not None and rc > 0 else None
                if bep is not None and bep > -1:
                    dist = abs(bep - entry[d])
                    if not dist > nbep:
                        sc = (float(nbep) - dist) / nbep
            scores.append(sc)
        out.append((scores, [rels[k].get(d, 0) > 0 for d in order]))
    return out


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
    if np.any(ps.covered > 0):
        i = int(np.flatnonzero(ps.covered > 0)[0])
        k = int(np.searchsorted(al.run_off, i, side="right")) - 1
        _warn("overlap", f"topic {al.topics[k]}")
    per: Dict[str, Dict[str, float]] = {}
    topics = al.topics
    if any(fams[n] in ("ip", "aip") for n in names):
        trel = np.asarray([sum(r.values()) for r in rels], dtype=I64)
        ip = _focused(rel, size, al.run_off, trel)
        aip = np.cumsum(ip, axis=1)[:, -1] / 101 if len(topics) else np.zeros(0)
        for n in names:
            if fams[n] == "aip":
                per[n] = {t: float(aip[k]) for k, t in enumerate(topics)}
            elif fams[n] == "ip":
                c = point_index(match_name("ip", n).group(1), 100, n)
                per[n] = {t: float(ip[k, c]) for k, t in enumerate(topics)}
    for task in ("RiC", "BiC"):
        tn = [n for n in names if fams[n] == "gp" and match_name("gp", n).group(2) == task]
        if not tn:
            continue
        scored = _context_scores(task, ctx, rels, rel, size, unknown, beta_ric, int(bep_distance))
        gps: List[List[float]] = []
        agp: List[float] = []
        for k, (scores, isrel) in enumerate(scored):
            s, sum_gp, g = 0.0, 0.0, []
            for r, (sc, rv) in enumerate(zip(scores, isrel), 1):
                s += sc
                g.append(s / r)
                if rv:
                    sum_gp += s / r
            gps.append(g)
            nrel = len(rels[k])
            agp.append(sum_gp / nrel if nrel else math.nan)
        for n in tn:
            m = match_name("gp", n)
            if m.group(1) == "MAgP":
                per[n] = {t: agp[k] for k, t in enumerate(topics)}
            else:
                if m.group(3) is None:
                    raise ValueError(f"{n}: gP needs a cutoff, e.g. gP_{task}@10")
                c = int(m.group(3))
                per[n] = {t: (g[min(c, len(g)) - 1] if g else 0.0) for t, g in zip(topics, gps)}
    if per_query:
        return {n: per[n] for n in names}
    order = sorted(topics)  # the tool sums topics in string order
    return {n: _seq_mean([per[n][t] for t in order]) for n in names}
