"""INEX 2008+ XML submissions (passage results as file-offset-length) and FOL output.

Shape read (INEX 2008-2010 ad hoc track submissions, as described in the track
guidelines; tag and attribute names matched case-insensitively)::

    <inex-submission participant-id=".." run-id="myrun" task="Focused" ...>
      <topic-fields .. /> <description>..</description>     (ignored)
      <topic topic-id="544">
        <result>
          <file>12345</file>
          <fol offset="300" length="120"/>   one or more passages of the file
          <rank>1</rank> <rsv>0.93</rsv>     both optional
        </result>
        <result> <file>678</file> <bep offset="40"/> </result>   (Best in Context)
        <result> <file>91</file> <path>/article[1]/sec[2]</path> </result>   (needs a layout)

Each ``<fol>`` is one result span ``[offset, offset + length)`` of the file, in
document order within its ``<result>``; a ``<bep offset=x/>`` is a
Best-in-Context entry point, stored as the empty span ``[x, x)``; a ``<path>``
is an element, mapped to its span by ``layout`` (as
[`irscore.xml.read_inex_run`][irscore.xml.read_inex_run]).  ``file_offset``/``file_length`` are
accepted as attribute names too.
"""
from __future__ import annotations

import math
import os
from typing import IO, Any, Dict, List, Optional, Tuple

import numpy as np

from irscore.core.files import open_binary, peek
from irscore.xml.model import Span, XmlRun, check_offset


def _attr(at: Dict[str, str], *names: str) -> Optional[str]:
    for n in names:
        if n in at:
            return at[n]
    return None


def _offset(value: Optional[str], what: str, loc: str) -> int:
    if value is None:
        raise ValueError(f"{loc}: <{what.split()[0]}> without {what.split()[1]}")
    try:
        v = int(value.strip())
    except ValueError:
        raise ValueError(f"{loc}: {what} must be an integer, got {value!r}") from None
    if v < 0:
        raise ValueError(f"{loc}: negative {what} {v}")
    return check_offset(v, what, loc)


def read_inex_submission(path: Any, *, layout: Any = None, order: str = "input") -> XmlRun:
    """Read an INEX 2008+ XML submission (see the module doc) as an
    [`XmlRun`][irscore.xml.XmlRun].  ``order``: ``"input"`` (default: results in file
    order, as the INEX tools rank them), ``"rank"`` (``<rank>`` ascending,
    ties in file order; results without one keep their position) or
    ``"score"`` (``<rsv>`` descending, ties in file order).  ``layout`` maps
    ``doc -> {path: (start, end)}`` or is a callable ``(doc, path)``; needed
    only for ``<path>`` results.  Errors name the file and line.

    Parameters
    ----------
    path : str or os.PathLike
        The submission (plain or gzip).
    layout : mapping or callable, optional
        Element spans of ``<path>`` results (not needed for ``<fol>`` results).
    order : {'input', 'rank', 'score'}, default 'input'
        How the results are ranked within a topic.

    Returns
    -------
    XmlRun

    Raises
    ------
    ValueError
        Malformed XML or a bad result (the message names the file and line).
    """
    if order not in ("input", "rank", "score"):
        raise ValueError(f"order must be 'input', 'rank' or 'score', got {order!r}")
    import xml.parsers.expat as expat

    src = os.fspath(path) if not isinstance(path, str) else path
    parser = expat.ParserCreate()
    per: Dict[str, List[Tuple[float, float, int, Span]]] = {}
    st: Dict[str, Any] = {"topic": None, "run_id": "run", "res": None, "text": [], "n": 0}

    def start(tag: str, attrs: Dict[str, str]) -> None:
        tag = tag.lower()
        at = {k.lower(): v for k, v in attrs.items()}
        loc = f"{src}:{parser.CurrentLineNumber}"
        st["text"] = []
        if tag in ("inex-submission", "inex_submission"):
            st["run_id"] = _attr(at, "run-id", "run_id", "runid") or "run"
        elif tag == "topic" and st["res"] is None:
            tid = _attr(at, "topic-id", "topic_id", "id")
            if tid is None:
                raise ValueError(f"{loc}: <topic> without topic-id")
            st["topic"] = tid.strip()
            per.setdefault(st["topic"], [])
        elif tag == "result":
            if st["topic"] is None:
                raise ValueError(f"{loc}: <result> outside <topic>")
            st["res"] = {"loc": loc, "spans": []}
        elif st["res"] is not None and tag == "fol":
            off = _offset(_attr(at, "offset", "file_offset"), "fol offset", loc)
            length = _offset(_attr(at, "length", "file_length"), "fol length", loc)
            st["res"]["spans"].append(("fol", off, off + length, loc))
        elif st["res"] is not None and tag == "bep":
            off = _offset(_attr(at, "offset", "file_offset"), "bep offset", loc)
            st["res"]["spans"].append(("bep", off, off, loc))

    def chars(data: str) -> None:
        st["text"].append(data)

    def end(tag: str) -> None:
        tag = tag.lower()
        res = st["res"]
        text = "".join(st["text"]).strip()
        st["text"] = []
        if res is None:
            return
        if tag in ("file", "rank", "rsv"):
            res[tag] = text
        elif tag == "path":
            res["spans"].append(("path", text, None, f"{src}:{parser.CurrentLineNumber}"))
        elif tag == "result":
            _finish(res, per[st["topic"]], layout, st)
            st["res"] = None

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    with open_binary(src, "run") as fh:
        try:
            parser.ParseFile(fh)
        except expat.ExpatError as exc:
            raise ValueError(f"{src}:{exc.lineno}: not well-formed XML ({expat.ErrorString(exc.code)})") from None
    ordered: Dict[str, List[Span]] = {}
    scores: List[float] = []
    for tid, lst in per.items():
        if order == "rank":
            lst.sort(key=lambda x: (x[0], x[2]))
        elif order == "score":
            lst.sort(key=lambda x: (-x[1] if not math.isnan(x[1]) else math.inf, x[2]))
        ordered[tid] = [x[3] for x in lst]
        scores.extend(x[1] for x in lst)
    run = XmlRun.from_spans(ordered, st["run_id"])
    run.score = np.asarray(scores, dtype=np.float64).reshape(len(scores))
    return run


def _finish(res: Dict[str, Any], out: List[Tuple[float, float, int, Span]], layout: Any,
            st: Dict[str, Any]) -> None:
    loc = res["loc"]
    doc = res.get("file")
    if not doc:
        raise ValueError(f"{loc}: <result> without <file>")
    if not res["spans"]:
        raise ValueError(f"{loc}: <result> without <fol>, <bep> or <path>")
    try:
        rank = float(res["rank"]) if "rank" in res else math.nan
        rsv = float(res["rsv"]) if "rsv" in res else math.nan
    except ValueError:
        raise ValueError(f"{loc}: <rank>/<rsv> must be numbers") from None
    for kind, a, b, where in res["spans"]:
        if kind == "path":
            if layout is None:
                raise ValueError(f"{where}: <path> results need a layout (doc -> {{path: (start, end)}})")
            sp = layout(doc, a) if callable(layout) else layout.get(doc, {}).get(a)
            if sp is None:
                raise ValueError(f"{where}: unknown element {a} of document {doc}")
            a, b = check_offset(int(sp[0]), "layout start", where), check_offset(int(sp[1]), "layout end", where)
        n = st["n"]
        st["n"] = n + 1
        key = rank if not math.isnan(rank) else float(len(out) + 1)
        out.append((key, rsv, n, (doc, a, b)))


def write_fol(run: XmlRun, path: Any, *, run_id: Optional[str] = None) -> None:
    """Write ``run`` as a FOL file, the INEX 2008 tool's run format:
    ``topic Q0 doc rank rsv run_id offset length``, one line per result, each
    topic's results contiguous and in rank order (the tool ranks by file
    order), rank = position, rsv = the result's score (a decreasing sequence
    when the score is unknown).  Results read with offset ``X``/``-1`` are
    written back as ``-1``.  ``path``: a file name or a text stream.

    Parameters
    ----------
    run : XmlRun
        The run, in rank order.
    path : str, os.PathLike or text stream
        Where to write.
    run_id : str, optional
        The run id column (default: ``run.run_id``).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        A run id with white space or an empty one.
    """
    rid = run_id if run_id is not None else run.run_id
    if not rid or any(c.isspace() for c in rid):
        raise ValueError(f"run_id must be a non-empty word without white space, got {rid!r}")
    unknown = run.unknown_offset

    def lines() -> List[str]:
        out = []
        for t, topic in enumerate(run.topics):
            lo, hi = int(run.off[t]), int(run.off[t + 1])
            for r, i in enumerate(range(lo, hi), 1):
                sc = float(run.score[i])
                rsv = repr(sc) if math.isfinite(sc) else repr(float(hi - lo - r + 1))
                if unknown is not None and unknown[i]:
                    off, length = "-1", "0"
                else:
                    off, length = str(int(run.start[i])), str(int(run.end[i] - run.start[i]))
                out.append(f"{topic} Q0 {run.docs[int(run.doc[i])]} {r} {rsv} {rid} {off} {length}\n")
        return out

    if hasattr(path, "write"):
        stream: IO[str] = path
        stream.writelines(lines())
        return
    with open(os.fspath(path), "w", encoding="utf-8") as fh:
        fh.writelines(lines())


def looks_like_xml(path: Any) -> bool:
    """Whether the file's first non-blank character is ``<`` (an XML run)."""
    # peek: a stream ("-", a pipe) is kept for the read that follows
    head = peek(path, 512, "run").lstrip(b"\xef\xbb\xbf \t\r\n")
    return head[:1] == b"<"
