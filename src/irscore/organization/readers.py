"""Organization files: TSV, JSON, flat clusters and filtering labels ([`read_organization`][irscore.organization.readers.read_organization])."""
from __future__ import annotations

import json
import os
from typing import Dict, Iterator, List, Optional, Tuple

from irscore.core.files import read_text
from irscore.organization.model import Organization, PathLike

# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------
_FORMATS = ("auto", "tsv", "json", "clusters", "labels")


def _fields(line: str) -> List[str]:
    return line.rstrip("\r\n").split("\t") if "\t" in line else line.split()


def _data_lines(text: str) -> Iterator[Tuple[int, List[str]]]:
    # lines end at "\n" only (as io.StringIO(newline="\n") splits them)
    for lineno, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        yield lineno, [f.strip() for f in _fields(line)]


def read_organization(path: PathLike, format: str = "auto", *, name: Optional[str] = None) -> Organization:
    """Read an organization file.

    Formats: ``tsv`` — ``topic<TAB>level<TAB>cluster<TAB>doc``, one line per
    occurrence, level 1 = highest priority (levels are ordered numerically, gaps are
    closed; cluster ids are scoped by topic and level); ``json`` —
    ``{topic: [[[doc, ...], ...], ...]}``; ``clusters`` — flat clustering
    ``topic cluster doc``; ``labels`` — filtering labels ``topic doc 0|1``.  ``auto``
    picks json for ``.json`` files or text starting with ``{``, tsv for 4 columns;
    3-column files need an explicit ``clusters`` or ``labels``.  Fields are
    tab-separated (whitespace if a line has no tab); blank lines and ``#`` comments
    are skipped.  Errors name the file and line.

    Parameters
    ----------
    path : str or os.PathLike
        The file (plain, gzip, bzip2 or xz, detected by its magic bytes); ``"-"``
        is standard input.  It is read once, so a pipe or a named FIFO works.
    format : {'auto', 'tsv', 'json', 'clusters', 'labels'}
        The file format (see the description above).
    name : str, optional
        The result's ``.name`` (default: the path).

    Returns
    -------
    Organization

    Raises
    ------
    FileNotFoundError
        The path does not exist (the message names it).
    ValueError
        A malformed file (the message names the file and line).
    """
    if format not in _FORMATS:
        raise ValueError(f"format must be one of {', '.join(_FORMATS)}, got {format!r}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    p = os.fspath(path)
    # read once: a pipe, a FIFO or standard input ("-") cannot be read again
    text = read_text(p, "organization")
    if format == "auto":
        format = _detect(p, text)
    reader = {"json": _read_json, "tsv": _read_tsv, "clusters": _read_clusters}.get(format, _read_labels)
    org = reader(p, text)  # errors name the file
    if name is not None:
        org.name = name
    return org


def _detect(p: str, text: str) -> str:
    if p.endswith(".json") or p.endswith(".json.gz"):
        return "json"
    if text[:4096].lstrip().startswith("{"):
        return "json"
    for lineno, f in _data_lines(text):
        if len(f) == 4:
            return "tsv"
        if len(f) == 3:
            raise ValueError(
                f"{p}:{lineno}: 3 columns: pass format='clusters' (topic cluster doc; CLI --format clusters) "
                f"or format='labels' (topic doc 0|1; CLI --format labels)"
            )
        raise ValueError(f"{p}:{lineno}: expected 4 fields topic<TAB>level<TAB>cluster<TAB>doc, got {len(f)}")
    raise ValueError(f"{p}: no data lines")


def _read_json(p: str, text: str) -> Organization:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{p}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise ValueError(f"{p}: JSON nested too deeply (an organization has 3 levels: "
                         "topic -> levels -> clusters -> documents)") from None
    if not isinstance(data, dict):
        raise ValueError(f"{p}:1: expected a JSON object {{topic: [[[doc, ...], ...], ...]}}")
    try:
        return Organization(data, name=p)
    except (ValueError, TypeError) as exc:
        raise ValueError(str(exc)) from None


def _read_tsv(p: str, text: str) -> Organization:
    # topic -> level number -> cluster id -> docs (insertion ordered)
    tree: Dict[str, Dict[int, Dict[str, List[str]]]] = {}
    seen: Dict[Tuple[str, int, str, str], int] = {}
    for lineno, f in _data_lines(text):
        if len(f) != 4:
            raise ValueError(f"{p}:{lineno}: expected 4 fields topic<TAB>level<TAB>cluster<TAB>doc, got {len(f)}")
        topic, lev, cl, doc = f
        try:
            lv = int(lev)
        except ValueError:
            raise ValueError(f"{p}:{lineno}: level must be an integer >= 1, got {lev!r}") from None
        if lv < 1:
            raise ValueError(f"{p}:{lineno}: level must be an integer >= 1, got {lev!r}")
        if not topic or not cl or not doc:
            raise ValueError(f"{p}:{lineno}: empty field")
        key = (topic, lv, cl, doc)
        if key in seen:
            raise ValueError(
                f"{p}:{lineno}: topic {topic!r} level {lv} cluster {cl!r}: document {doc!r} occurs "
                f"twice in one cluster (first at line {seen[key]})"
            )
        seen[key] = lineno
        tree.setdefault(topic, {}).setdefault(lv, {}).setdefault(cl, []).append(doc)
    if not tree:
        raise ValueError(f"{p}: no data lines")
    return Organization(
        {t: [list(levs[k].values()) for k in sorted(levs)] for t, levs in tree.items()}, name=p
    )


def _read_clusters(p: str, text: str) -> Organization:
    tree: Dict[str, Dict[str, List[str]]] = {}
    seen: Dict[Tuple[str, str, str], int] = {}
    for lineno, f in _data_lines(text):
        if len(f) != 3:
            raise ValueError(f"{p}:{lineno}: expected 3 fields topic cluster doc, got {len(f)}")
        topic, cl, doc = f
        key = (topic, cl, doc)
        if key in seen:
            raise ValueError(
                f"{p}:{lineno}: topic {topic!r} cluster {cl!r}: document {doc!r} occurs twice "
                f"(first at line {seen[key]})"
            )
        seen[key] = lineno
        tree.setdefault(topic, {}).setdefault(cl, []).append(doc)
    if not tree:
        raise ValueError(f"{p}: no data lines")
    return Organization({t: [list(cls.values())] for t, cls in tree.items()}, name=p)


def _read_labels(p: str, text: str) -> Organization:
    tree: Dict[str, Dict[str, int]] = {}
    seen: Dict[Tuple[str, str], int] = {}
    for lineno, f in _data_lines(text):
        if len(f) != 3:
            raise ValueError(f"{p}:{lineno}: expected 3 fields topic doc 0|1, got {len(f)}")
        topic, doc, v = f
        if v not in ("0", "1"):
            raise ValueError(f"{p}:{lineno}: label must be 0 or 1, got {v!r}")
        if (topic, doc) in seen:
            raise ValueError(
                f"{p}:{lineno}: topic {topic!r} document {doc!r} labelled twice (first at line {seen[(topic, doc)]})"
            )
        seen[(topic, doc)] = lineno
        tree.setdefault(topic, {})[doc] = int(v)
    if not tree:
        raise ValueError(f"{p}: no data lines")
    return Organization.from_labels(tree, name=p)
