"""XML measure names: the name grammar (declared in `irscore.core.specs.XML_FORMS`) and the family of each name."""
from __future__ import annotations

import re

from irscore.core.specs import XML_FORMS

# ---------------------------------------------------------------------------
# measure names and the shared computation
# ---------------------------------------------------------------------------

# family -> the regular expression of its names: declared in irscore.core.specs.XML_FORMS
_RX = {form.family: re.compile(form.pattern) for form in XML_FORMS}
_FORMS = " ".join(name for form in XML_FORMS for name in form.forms)

DEFAULT_MEASURES = ["iP[0.00]", "iP[0.01]", "iP[0.05]", "iP[0.10]", "MAiP",
                    "nxCG@5", "nxCG@10", "nxCG@25", "nxCG@50", "MAep",
                    "hixP@10", "hixR@10", "hixF@10"]


def match_name(family: str, name: str) -> "re.Match[str]":
    m = _RX[family].match(name)
    if m is None:
        raise ValueError(f"{name!r} is not a {family} measure name")
    return m


def measure_family(name: str) -> str:
    """The family of a measure name, or ValueError.

    Parameters
    ----------
    name : str
        A measure name.

    Returns
    -------
    str
        The family key of the name.

    Raises
    ------
    ValueError
        An unknown name.
    """
    for fam, rx in _RX.items():
        if rx.match(name):
            return fam
    raise ValueError(f"unknown XML measure {name!r}; known forms: {_FORMS}")


def level_name(k: int, points: int) -> str:
    """Recall level k/points as it appears in a measure name: two decimals when
    that is exact (``iP[0.01]``), otherwise enough digits to name the grid point."""
    if (100 * k) % points == 0:
        return f"{k / points:.2f}"
    return f"{k / points:.12f}".rstrip("0")


def point_index(x: str, points: int, name: str) -> int:
    try:
        v = float(x)
    except ValueError:
        raise ValueError(f"{name}: bad recall level {x!r}") from None
    k = v * points
    if not (0.0 <= v <= 1.0) or abs(k - round(k)) > 1e-6:
        raise ValueError(f"{name}: recall level {x} is not on the grid of {points} steps")
    return int(round(k))
