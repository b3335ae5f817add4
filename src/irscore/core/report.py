"""trec_eval-style text output shared by every ``irscore`` subcommand.

A line is ``printf("%-22s\\t%s\\t%.4f")``: the measure name padded to 22
characters, a tab, the query id (or ``all``), a tab, the value.  Counts are
printed as integers and string-valued measures (``runid``, ``relstring``) as
they are.
"""
from __future__ import annotations

import math
from typing import Union

Value = Union[float, int, str]


def format_line(name: str, qid: str, value: Value, *, integer: bool = False) -> str:
    """Return one output line (without the newline)."""
    if isinstance(value, str):
        text = value
    elif integer:
        text = "%d" % int(value)
    elif isinstance(value, float) and math.isnan(value):
        text = "nan"
    else:
        text = "%6.4f" % value
    return "%-22s\t%s\t%s" % (name, qid, text)
