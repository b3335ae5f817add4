"""Precall as RePrec 0.32 (N. Gövert) computes it (``compat="reprec"``), in Python: the
reference the native kernel (``precall_reprec_at``, which ``irscore.xml.inex_values``
calls) is compared with (tests/xml_reference.py,
tests/xml/test_xml_precall.py).  The package does not import it.

RePrec is the Perl implementation of Raghavan, Bollmann & Jung's PRR behind
the INEX 2002-2004 ``inex_eval``.  The published definition (irscore's
default, [`irscore.xml.inex.inex_eval`][irscore.xml.inex.inex_eval]) reads precision at recall x as

    P(x) = xN / (xN + j + s i / (r + 1)),   s = xN - k,

for the tie group in which the recall level xN is reached (k relevant and j
non-relevant units before it, r relevant and i non-relevant units in it).
RePrec counts relevance in **whole units**: the group is the one in which the
ceil(xN)-th whole relevant unit is completed, where a group's fractional
relevance is carried into the next groups (a group holding 0.5 completes no
unit; two such groups complete one), and s = ceil(xN) - k.  Fractions left
after the last group form one more, virtual group holding the leftover
fractions (counted again, as RePrec does).  The numerator and the j term keep
the fractional xN.

Where RePrec is defective this follows the definition instead:

- ceil(xN) is taken with a tolerance (RePrec's ``$NR > int $NR`` turns
  xN = 7.000000000000001, the floating-point product 0.07 * 100, into 8
  relevant units; here it is 7);
- a recall level of 0 is refused by the measure name (RePrec returns undef
  for the whole list).

Every other step is RePrec's, in its floating-point order: group sums are
summed unit by unit, the distribution's total relevance group by group, x is
the level's own value (k / points) multiplied by that total.
"""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

import numpy as np

#: relative tolerance of the whole-unit ceiling (RePrec has none)
CEIL_TOLERANCE = 1e-9


def tie_groups(q: np.ndarray, score: np.ndarray, ties: bool) -> List[Tuple[float, float]]:
    """RePrec's distribution of a ranked list: per tie group (consecutive
    equal scores, or every result when ``ties`` is false) the relevant and
    non-relevant units, each summed unit by unit."""
    groups: List[Tuple[float, float]] = []
    n = len(q)
    i = 0
    while i < n:
        j = i + 1
        if ties:
            while j < n and score[j] == score[i]:
                j += 1
        r = nr = 0.0
        for v in q[i:j]:
            r += float(v)
            nr += 1.0 - float(v)
        groups.append((r, nr))
        i = j
    return groups


def whole_ceil(x: float) -> int:
    """ceil(x) with a relative tolerance: a product meant to be an integer
    stays that integer."""
    c = math.floor(x)
    if x - c > CEIL_TOLERANCE * max(1.0, abs(x)):
        c += 1
    return int(c)


def precall_reprec(dist: Sequence[Tuple[float, float]], levels: Sequence[float],
                   total: Optional[float] = None) -> np.ndarray:
    """Precall at each recall level of ``levels`` (each in (0, 1]) for the
    distribution ``dist`` = [(relevant, non-relevant units) per tie group],
    top first, the unretrieved rest as the last group when known.

    ``total``: the recall base N when ``dist`` does not hold all of it (no
    rest group); levels needing units beyond the distribution score 0 and no
    virtual group is formed.  Default: N = the distribution's relevance.
    """
    rels = 0.0
    for r, _ in dist:
        rels += r
    complete = total is None
    n_tot = rels if complete else float(total)  # type: ignore[arg-type]
    out = np.zeros(len(levels))
    if not n_tot > 0:
        return out
    cum: List[Tuple[float, float]] = []
    rels_rank: List[int] = []
    cr = cn = part_r = part_n = 0.0
    for g, (r, nr) in enumerate(dist):
        cr += r
        cn += nr
        cum.append((cr, cn))
        whole = int(r + part_r)
        rels_rank.extend([g] * whole)
        part_r = r + part_r - whole
        whole_n = int(nr + part_n)
        part_n = nr + part_n - whole_n
    if complete and (part_r or part_n):
        # the leftover fractions: one more, virtual group (RePrec's _sortrfdata)
        cum.append((cr + part_r, cn + part_n))
        rels_rank.append(len(dist))
    for m, x in enumerate(levels):
        nr_x = x * n_tot
        need = whole_ceil(nr_x)
        if need < 1 or need > len(rels_rank):
            continue
        g = rels_rank[need - 1]
        k = cum[g - 1][0] if g else 0.0
        j = cum[g - 1][1] if g else 0.0
        i = cum[g][1] - j
        r = cum[g][0] - k
        s = need - k
        out[m] = nr_x / (nr_x + j + s * i / (r + 1.0))
    return out
