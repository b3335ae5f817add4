"""Output of ``irscore eval`` in its three formats (``--format trec|csv|json``).

Each value is one record (measure, query id or ``all``, value), added in
trec_eval's printing order:

- ``trec``: trec_eval's lines (`irscore.core.report.format_line`), written
  in blocks as they come;
- ``csv``: a header ``run_id,measure,query_id,value`` and one row per record,
  values at full precision (``repr``), counts as integers, an undefined value
  ``nan``; the ``runid`` record is the ``run_id`` column, not a row;
- ``json``: one object ``{measure: {query_id: value}}`` (``"all"`` for the
  summary), counts as integers, an undefined or infinite value ``null``.
"""
from __future__ import annotations

import csv
import json
import math
from typing import Any, Dict, List, TextIO

from irscore.core.report import Value, format_line

FORMATS = ("trec", "csv", "json")
CSV_HEADER = ["run_id", "measure", "query_id", "value"]


class Writer:
    """Collects the records of one evaluation and writes them to ``out`` in ``fmt``."""

    def __init__(self, fmt: str, run_id: str, out: TextIO) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
        self.fmt, self.run_id, self.out = fmt, run_id, out
        self._lines: List[str] = []
        self._doc: Dict[str, Dict[str, Any]] = {}
        self._csv = csv.writer(out, lineterminator="\n") if fmt == "csv" else None
        if self._csv is not None:
            self._csv.writerow(CSV_HEADER)

    def add(self, name: str, qid: str, value: Value, *, integer: bool = False, prefix: str = "") -> None:
        """One record; ``prefix`` goes before the name (``Z`` of standardised values)."""
        if self.fmt == "trec":
            self._lines.append(prefix + format_line(name, qid, value, integer=integer))
            if len(self._lines) > 4096:
                self._flush()
        elif self._csv is not None:
            if name != "runid":
                self._csv.writerow([self.run_id, prefix + name, qid, _text(value, integer)])
        else:
            self._doc.setdefault(prefix + name, {})[qid] = _json(value, integer)

    def _flush(self) -> None:
        if self._lines:
            self.out.write("\n".join(self._lines) + "\n")
            self._lines = []

    def close(self) -> None:
        """Write what is left (the JSON document) and flush."""
        if self.fmt == "trec":
            self._flush()
        elif self.fmt == "json":
            json.dump(self._doc, self.out, indent=1, ensure_ascii=False, allow_nan=False)
            self.out.write("\n")
        self.out.flush()


def _text(value: Value, integer: bool) -> str:
    if isinstance(value, str):
        return value
    if integer and math.isfinite(value):
        return str(int(value))
    return repr(float(value))


def _json(value: Value, integer: bool) -> Any:
    if isinstance(value, str):
        return value
    x = float(value)
    if not math.isfinite(x):
        return None
    return int(x) if integer else x
