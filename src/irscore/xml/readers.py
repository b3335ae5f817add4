"""XML retrieval readers: FOL runs, passage qrels, element TSV, INEX XML assessments and
runs, document layouts."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from irscore.core.files import open_text, read_bytes
from irscore.xml import inex2008
from irscore.xml.model import (
    I64,
    DocIndex,
    Span,
    XmlQrels,
    XmlRun,
    build_qrels,
    check_no_overlap,
    check_offset,
    csr,
    parse_int,
)

# ---------------------------------------------------------------------------
# readers
# ---------------------------------------------------------------------------



def read_passage_qrels(path: Any, *, check_relchars: bool = True, compat: Optional[str] = None) -> XmlQrels:
    """Read INEX 2007+ passage qrels: ``topic Q0 doc relchars doclen [bep off:len ...]``.

    ``relchars`` is the number of highlighted characters of the document (0 for
    a judged non-relevant document), ``doclen`` its length, ``bep`` the best
    entry point and each ``off:len`` a highlighted passage.  Errors name the
    file and line.  With ``check_relchars`` the passages must add up to
    ``relchars`` (after merging overlaps).  ``compat="inex2008"`` reads the
    file as inex_eval v1.0 does (`irscore.xml.inex2008.read_qrels`:
    6-field lines, relchars differing from the passages, lengths differing
    between topics, duplicate lines accepted with one warning each).

    Parameters
    ----------
    path : str or os.PathLike
        The file (plain or gzip, detected by its magic bytes).
    check_relchars : bool, default True
        Check the relchars column against the passages.
    compat : {None, 'inex2008'}
        ``"inex2008"``: read as inex_eval v1.0 does (docs/xml_compat.md).

    Returns
    -------
    XmlQrels

    Raises
    ------
    FileNotFoundError
        The path does not exist.
    ValueError
        A malformed line (the message names the file and line).
    """
    if inex2008.check_compat(compat) == "inex2008":
        return inex2008.read_qrels(path)
    rows: List[Tuple[str, str, int, int]] = []
    doclens: Dict[str, int] = {}
    beps: Dict[Tuple[str, str], int] = {}
    topics: Dict[str, None] = {}
    seen: Dict[Tuple[str, str], str] = {}
    relchars_of: Dict[Tuple[str, str], int] = {}
    with open_text(path) as fh:
        for ln, line in enumerate(fh, 1):
            toks = line.split()
            if not toks:
                continue
            loc = f"{path}:{ln}"
            if len(toks) < 5:
                raise ValueError(f"{loc}: expected 'topic Q0 doc relchars doclen [bep off:len ...]', got {line.strip()!r}")
            topic, _, doc = toks[0], toks[1], toks[2]
            relchars = parse_int(toks[3], "relchars", loc)
            dlen = parse_int(toks[4], "doclen", loc)
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
                bep = parse_int(rest[0], "bep", loc)
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
                off = parse_int(o, "passage offset", loc)
                length = parse_int(l, "passage length", loc)
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
            relchars_of[(topic, doc)] = relchars
    if not topics:
        raise ValueError(f"{path}: empty qrels file (no data lines)")
    q = build_qrels(list(topics), rows, [], doclens, beps, True, False)
    q.relchars = relchars_of
    return q


def read_fol_run(
    path: Any,
    qrels: Optional[XmlQrels] = None,
    *,
    allow_overlap: bool = True,
    unknown_docs: str = "ignore",
    order: str = "trec",
    compat: Optional[str] = None,
) -> XmlRun:
    """Read a FOL (file-offset-length) run: ``topic Q0 doc rank rsv runid offset length``.

    ``allow_overlap=False`` declares the run non-overlapping (Focused, RiC):
    overlapping spans in a topic are then an error naming both lines.  With
    ``qrels`` given, offsets are checked against the known document lengths;
    ``unknown_docs="error"`` also rejects documents the qrels do not know
    (default ``"ignore"``: they are non-relevant text).  ``order``: ``"trec"``
    (default, docs/conventions.md, run order: rsv descending, ties by document id descending, then file
    order; the rank column is ignored), ``"rank"`` (rank column ascending, ties by
    file order), ``"score"`` (rsv descending, ties by file order) or ``"input"``.

    ``compat="inex2008"`` reads the run as inex_eval v1.0 does
    (`irscore.xml.inex2008.read_run`: file order, rank/score columns not
    read, offset ``X``/``-1``, spans past the document length).

    Parameters
    ----------
    path : str or os.PathLike
        The file (plain or gzip, detected by its magic bytes).
    qrels : XmlQrels, optional
        Assessments to check spans against.
    allow_overlap : bool, default True
        False declares the run non-overlapping.
    unknown_docs : {'ignore', 'error'}, default 'ignore'
        Documents the qrels do not know.
    order : str
        How the run is ordered (see the description above).
    compat : {None, 'inex2008'}
        ``"inex2008"``: read as inex_eval v1.0 does (docs/xml_compat.md).

    Returns
    -------
    XmlRun

    Raises
    ------
    FileNotFoundError
        The path does not exist.
    ValueError
        A malformed line (the message names the file and line).
    """
    if inex2008.check_compat(compat) == "inex2008":
        return inex2008.read_run(path, qrels)
    if unknown_docs not in ("ignore", "error"):
        raise ValueError(f"unknown_docs must be 'ignore' or 'error', got {unknown_docs!r}")
    if order not in ("trec", "rank", "score", "input"):
        raise ValueError(f"order must be 'trec', 'rank', 'score' or 'input', got {order!r}")
    di = DocIndex()
    topics: Dict[str, int] = {}
    t_l, d_l, s_l, e_l, r_l, sc_l, ln_l = [], [], [], [], [], [], []
    runid = None
    doclen_of = None
    if qrels is not None:
        doclen_of = {qrels.docs[i]: int(n) for i, n in enumerate(qrels.doclen)}
    with open_text(path) as fh:
        for ln, line in enumerate(fh, 1):
            toks = line.split()
            if not toks:
                continue
            loc = f"{path}:{ln}"
            if len(toks) != 8:
                raise ValueError(f"{loc}: expected 'topic Q0 doc rank rsv runid offset length' (8 fields), got {len(toks)}")
            topic, doc = toks[0], toks[2]
            rank = parse_int(toks[3], "rank", loc)
            try:
                rsv = float(toks[4])
            except ValueError:
                raise ValueError(f"{loc}: rsv must be a number, got {toks[4]!r}") from None
            off = parse_int(toks[6], "offset", loc)
            length = parse_int(toks[7], "length", loc)
            if off < 0:
                raise ValueError(f"{loc}: negative offset {off}")
            if length < 0:
                raise ValueError(f"{loc}: negative length {length}")
            check_offset(off + length, "end offset", loc)
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
    t = np.asarray(t_l, dtype=I64)
    if not t_l:
        raise ValueError(f"{path}: empty run file (no result lines)")
    idx = np.arange(len(t_l))
    if order == "trec":
        # document ids in byte order: rank of each document code, descending
        names = di.names
        by_name = sorted(range(len(names)), key=lambda i: names[i].encode("utf-8"))
        name_rank = np.empty(len(names), dtype=I64)
        name_rank[np.asarray(by_name, dtype=I64)] = np.arange(len(names), dtype=I64)
        d_rank = name_rank[np.asarray(d_l, dtype=I64)] if len(d_l) else np.zeros(0, dtype=I64)
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
        csr(np.bincount(t, minlength=len(topics)).tolist() if len(t) else [0] * len(topics)),
        np.asarray(d_l, dtype=I64)[perm],
        np.asarray(s_l, dtype=I64)[perm],
        np.asarray(e_l, dtype=I64)[perm],
        np.asarray(sc_l, dtype=np.float64)[perm],
        runid or "run",
    )
    if not allow_overlap:
        check_no_overlap(run, str(path), np.asarray(ln_l, dtype=I64)[perm])
    return run


def read_element_tsv(path: Any, *, exh_max: float = 1.0, spe_max: float = 1.0,
                     doclens: Optional[Mapping[str, int]] = None) -> XmlQrels:
    """Read element assessments ``topic doc start end exh spe`` (tab or space
    separated, ``#`` comments).  exh and spe are divided by ``exh_max`` /
    ``spe_max`` (e.g. ``exh_max=2`` for INEX 2005's {0,1,2}); an exh of ``?``
    marks an INEX 2005 "too small" element (exh 0, quantised to 0 by the
    INEX 2005 function).  Elements of a document must nest; errors name file
    and line.

    Parameters
    ----------
    path : str or os.PathLike
        The file (plain or gzip, detected by its magic bytes).
    exh_max : float
        The scale of exhaustivity in the file (values are divided by it).
    spe_max : float, default 1.0
        The scale of specificity in the file.
    doclens : mapping, optional
        Document lengths in characters.

    Returns
    -------
    XmlQrels

    Raises
    ------
    FileNotFoundError
        The path does not exist.
    ValueError
        A malformed line (the message names the file and line).
    """
    if not exh_max > 0 or not spe_max > 0:
        raise ValueError("exh_max and spe_max must be positive")
    rows = []
    where: Dict[Tuple[str, str, int, int], str] = {}
    topics: Dict[str, None] = {}
    with open_text(path) as fh:
        for ln, line in enumerate(fh, 1):
            line = line.split("#", 1)[0]
            toks = line.split()
            if not toks:
                continue
            loc = f"{path}:{ln}"
            if len(toks) != 6:
                raise ValueError(f"{loc}: expected 'topic doc start end exh spe' (6 fields), got {len(toks)}")
            topic, doc = toks[0], toks[1]
            s = parse_int(toks[2], "start", loc)
            e = parse_int(toks[3], "end", loc)
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
    return build_qrels(list(topics), [], rows, dict(doclens or {}), {}, False, True, where)


# -- INEX 2005-2006 XML files -------------------------------------------------

Layout = Mapping[str, Mapping[str, Tuple[int, int]]]


def norm_path(p: str) -> str:
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

    Parameters
    ----------
    sizes : mapping
        ``{doc: [(xpath, size), ...]}`` in document order.

    Returns
    -------
    dict
        ``{doc: {xpath: (start, end)}}``.

    Raises
    ------
    ValueError
        Malformed sizes.
    """
    out: Dict[str, Dict[str, Tuple[int, int]]] = {}
    for doc, lst in sizes.items():
        spans: Dict[str, Tuple[int, int]] = {}
        cursor: Dict[str, int] = {}  # parent path -> next free offset
        for path, size in lst:
            np_ = norm_path(path)
            size = check_offset(int(size), "size", f"{doc} {path}")
            if size < 0:
                raise ValueError(f"{doc} {path}: negative size {size}")
            parent = np_.rsplit("/", 1)[0]
            if parent in ("", "/"):
                start = cursor.get("", 0)
                check_offset(start + size, "end offset", f"{doc} {path}")
                cursor[""] = start + size
            else:
                if parent not in spans:
                    raise ValueError(f"{doc} {path}: parent {parent} must be listed before its children")
                pstart, pend = spans[parent]
                start = cursor.get(parent, pstart)
                if start + size > pend:
                    raise ValueError(f"{doc} {path}: children do not fit inside {parent} ({pend - pstart} characters)")
                cursor[parent] = start + size
            spans[np_] = (start, start + size)
        out[str(doc)] = spans
    return out


def _lookup(layout: Any, doc: str, path: str, loc: str) -> Tuple[int, int]:
    if callable(layout):
        sp = layout(doc, path)
        if sp is None:
            raise ValueError(f"{loc}: unknown element {path} of document {doc}")
        return _layout_span(sp, loc)
    d = layout.get(doc)
    if d is None:
        raise ValueError(f"{loc}: unknown document {doc!r} (not in the layout)")
    sp = d.get(norm_path(path))
    if sp is None:
        raise ValueError(f"{loc}: unknown element {path} of document {doc}")
    return _layout_span(sp, loc)


def _layout_span(sp: Any, loc: str) -> Tuple[int, int]:
    return check_offset(int(sp[0]), "layout start", loc), check_offset(int(sp[1]), "layout end", loc)


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
    [`layout_from_sizes`][irscore.xml.readers.layout_from_sizes]) or is a callable ``(doc, path) -> (start, end)``;
    unknown documents or paths are errors naming file and line.

    Parameters
    ----------
    path : str or os.PathLike
        The file (plain or gzip, detected by its magic bytes).
    layout : mapping or callable
        Where each element lies: ``{doc: {xpath: (start, end)}}`` (see
        [`layout_from_sizes`][irscore.xml.readers.layout_from_sizes]) or ``f(doc, xpath) -> (start, end)``.
    exh_max : float
        The scale of exhaustivity in the file (values are divided by it).

    Returns
    -------
    XmlQrels

    Raises
    ------
    FileNotFoundError
        The path does not exist.
    ValueError
        Malformed XML or an element the layout does not place.
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
    return build_qrels(list(topics), [], rows, {}, {}, False, True, where)


def read_inex_run(path: Any, layout: Any, *, order: str = "rank") -> XmlRun:
    """Read an INEX 2005/2006 XML run: ``<inex-submission run-id=..>`` holding
    ``<topic topic-id=..>`` elements of ``<result><file>..</file><path>..</path>
    <rank>..</rank> [<rsv>..</rsv>]</result>``; paths are mapped to spans with
    ``layout`` (as in [`read_inex_assessments`][irscore.xml.readers.read_inex_assessments]).  ``order``: ``"rank"``
    (default; missing ranks = position), ``"score"`` (rsv descending) or
    ``"input"``.  Errors name file and line.

    Parameters
    ----------
    path : str or os.PathLike
        The file (plain or gzip, detected by its magic bytes).
    layout : mapping or callable
        Where each element lies: ``{doc: {xpath: (start, end)}}`` (see
        [`layout_from_sizes`][irscore.xml.readers.layout_from_sizes]) or ``f(doc, xpath) -> (start, end)``.
    order : str
        How the run is ordered (see the description above).

    Returns
    -------
    XmlRun

    Raises
    ------
    FileNotFoundError
        The path does not exist.
    ValueError
        Malformed XML or an element the layout does not place.
    """
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
    run = XmlRun.from_spans(ordered, run_id=st["runid"])
    # keep the RSVs: equal RSVs form inex_eval's tie groups
    run.score = np.asarray(rsv, dtype=np.float64).reshape(len(rsv))
    return run
