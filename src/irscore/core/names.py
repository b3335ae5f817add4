"""The lexical pieces of measure names: numbers, parameter lists, trec_eval's
``name=value`` pairs and ir_measures' gain maps.

`irscore.core.measures` builds the grammar of measure names from these;
every function here reads or writes one token and raises ``ValueError`` for a
malformed one (the caller adds which measure it belongs to).
"""
from __future__ import annotations

import math
import re
from typing import Callable, Dict, List, Optional, Tuple

from irscore.core.checks import MAX_CUTOFF
from irscore.core.specs import DECLARATIONS

__all__ = ["fmt_num", "number", "atol", "check_cutoff", "output_name", "split_args", "parse_pairs",
           "canon_pairs", "canon_floats", "parse_gain_map", "gain_map_pairs", "format_gain_map", "is_gain_map",
           "reordered", "ranx_spelling"]

# A number in a trec_eval -m parameter list: decimal, no junk (trec_eval's
# atof/atol would read "1O" as 1 and "5x" as 5).
_NUMBER = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
_DECIMAL = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$")
_INTEGER = re.compile(r"^[+-]?[0-9]+$")


def fmt_num(x: float) -> str:
    """A number as written in canonical names: ``10``, ``0.5``."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def number(tok: str) -> float:
    """A parameter token as a float; ValueError unless the whole token is a finite number."""
    if not _NUMBER.match(tok):
        raise ValueError(tok)
    v = float(tok)
    if not math.isfinite(v):
        raise ValueError(tok)
    return v


def atol(tok: str) -> int:
    """A long cutoff: an integer, or a decimal read up to its point as trec_eval's
    atol does (``ndcg_cut.23.4`` is 23); anything else is an error."""
    if not _DECIMAL.match(tok):
        raise ValueError(tok)
    return int(tok.split(".", 1)[0] or "0")


def check_cutoff(v: float, name: str, *, documents: bool, recall: bool = False) -> float:
    """A cutoff (``documents``: a positive whole number of documents) or a
    recall level (``recall``: in [0, 1]) of measure ``name``."""
    if not math.isfinite(v):
        raise ValueError(f"measure {name!r}: cutoff must be finite")
    if documents:
        if int(v) != v:
            raise ValueError(f"measure {name!r}: cutoff {v} must be a whole number of documents")
        if v <= 0:
            raise ValueError(f"measure {name!r}: cutoff must be positive, got {fmt_num(v)}")
        if v > MAX_CUTOFF:
            raise ValueError(f"measure {name!r}: cutoff {fmt_num(v)} is too large (at most 2**62)")
    elif recall and not 0.0 <= v <= 1.0:
        raise ValueError(f"measure {name!r}: recall level must be in [0, 1], got {v}")
    elif v < 0:
        raise ValueError(f"measure {name!r}: cutoff must not be negative")
    return float(v)


def output_name(family: str, ptype: str, v: float) -> str:
    """trec_eval's output name of one cutoff of a family: ``P_10``, ``iprec_at_recall_0.10``."""
    if ptype == "long_cuts":
        return f"{family}_{int(v)}"
    return f"{family}_{v:3.2f}"


def split_args(text: str) -> List[str]:
    """The ``key=value`` items of an argument list, split at the commas that are
    not inside braces or quotes: ``gains={0:0,2:3},judged_only=True``."""
    parts: List[str] = []
    depth, quote, start = 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced braces in {text!r}")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth or quote:
        raise ValueError(f"unbalanced {'quotes' if quote else 'braces'} in {text!r}")
    parts.append(text[start:])
    return parts


def parse_pairs(params: str, spec: str, family: str = "") -> List[Tuple[str, float]]:
    """``name=value,...`` of the G/ndcg/rbp families: names are integer grades
    (gains) or, for rbp/rbp_resid, ``p`` (persistence)."""
    out = []
    for part in params.split(","):
        k, eq, v = part.partition("=")
        if not eq or not k:
            raise ValueError(f"malformed pair parameters in {spec!r} (expected name=value,...)")
        if family == "rbp_grade" and k != "p":
            raise ValueError(f"malformed pair parameters in {spec!r}: {k!r} is not p (ranx's rbp takes no gains)")
        if not (_INTEGER.match(k) or (k == "p" and family in ("rbp", "rbp_resid", "rbp_grade", ""))):
            raise ValueError(f"malformed pair parameters in {spec!r}: {k!r} is not "
                             + ("a grade or p" if family in ("rbp", "rbp_resid") else "a grade"))
        try:
            out.append((k, number(v)))
        except ValueError:
            raise ValueError(f"malformed pair parameters in {spec!r}: {v!r} is not a number") from None
    return out


def canon_pairs(params: str, spec: str, family: str) -> str:
    return ",".join(f"{int(k) if k != 'p' else k}={fmt_num(v)}" for k, v in parse_pairs(params, spec, family))


def canon_floats(params: str, spec: str) -> str:
    vals = []
    for tok in params.split(","):
        try:
            vals.append(fmt_num(number(tok)))
        except ValueError:
            raise ValueError(f"measure spec {spec!r}: bad parameter {tok!r}") from None
    return ",".join(vals)


def parse_gain_map(text: str, where: str) -> Dict[int, float]:
    """ir_measures' gain map ``{grade: gain, ...}`` (``{0:0,1:1,2:3}``): grades are
    non-negative integers, gains non-negative finite numbers.  Entries that map
    a grade to itself are dropped (they change nothing, and ir_measures prints
    the map without them)."""
    t = text.strip()
    if len(t) < 2 or t[0] != "{" or t[-1] != "}":
        raise ValueError(f"measure {where!r}: gains must be a map {{grade: gain, ...}}, got {text!r}")
    body = t[1:-1].strip()
    out: Dict[int, float] = {}
    for item in body.split(",") if body else []:
        k, colon, v = item.partition(":")
        k, v = k.strip(), v.strip()
        if not colon or not _INTEGER.match(k):
            raise ValueError(f"measure {where!r}: gain map entry {item.strip()!r} is not grade:gain")
        grade = int(k)
        if grade < 0:
            raise ValueError(f"measure {where!r}: gain map grades must be >= 0, got {grade}")
        try:
            gain = number(v)
        except ValueError:
            raise ValueError(f"measure {where!r}: gain {v!r} of grade {grade} is not a number") from None
        if gain < 0:
            raise ValueError(f"measure {where!r}: gains must be >= 0, got {fmt_num(gain)} for grade {grade}")
        if grade in out:
            raise ValueError(f"measure {where!r}: grade {grade} appears twice in the gain map")
        out[grade] = gain
    return {g: v for g, v in sorted(out.items()) if v != g}


def gain_map_pairs(gains: Dict[int, float]) -> str:
    """A gain map as trec_eval's ``ndcg`` pair parameters (``2=3``)."""
    return ",".join(f"{g}={fmt_num(v)}" for g, v in sorted(gains.items()))


def format_gain_map(pairs: str) -> str:
    """trec_eval pair parameters (``2=3``) as ir_measures' gain map (``{2:3}``)."""
    return "{" + ",".join(f"{k}:{fmt_num(v)}" for k, v in parse_pairs(pairs, pairs, "ndcg")) + "}"


def is_gain_map(params: str) -> bool:
    """Whether trec_eval gain pairs can be spelled as ir_measures' ``gains=`` map
    (every grade and gain >= 0)."""
    try:
        pairs = parse_pairs(params, params, "ndcg")
    except ValueError:
        return False
    return all(int(k) >= 0 and v >= 0 for k, v in pairs)


_CUT_FIRST = re.compile(r"^(?P<base>[A-Za-z_][A-Za-z0-9_\-]*)@(?P<cut>[^()@]+)\((?P<args>[^()]*)\)$")


def reordered(name: str, parse: Callable[[str], object]) -> Optional[str]:
    """``nDCG(gain=exp)@10`` for ``nDCG@10(gain=exp)`` (the cutoff written before the
    parameters), when ``parse`` accepts it; None otherwise.  For the "did you mean"
    of an unknown measure name."""
    m = _CUT_FIRST.match(name.strip())
    if not m:
        return None
    alt = f"{m.group('base')}({m.group('args')})@{m.group('cut')}"
    try:
        parse(alt)
    except (ValueError, TypeError):
        return None
    return alt


# ranx's metric names and irscore's names of the same measures
# (each measure's ``ranx`` names in irscore.core.specs; NAME_burges: the exponential gain)
_RANX = {r + suffix: s.irm or s.name for s in DECLARATIONS for r in s.ranx
         for suffix in (("", "_burges") if "gain" in s.keywords else ("",))}
_RANX_NAME = re.compile(r"^(?P<m>[a-z][a-z0-9_]*|r-precision)(?:(?P<sep>[.@])(?P<k>[0-9]+))?(?:-l(?P<l>[0-9]+))?$")
_GAINS = tuple(r + suffix for s in DECLARATIONS if "gain" in s.keywords for r in s.ranx for suffix in ("", "_burges"))


def ranx_spelling(name: str) -> Optional[str]:
    """irscore's spelling of a ranx metric name that irscore's grammar would not
    read as ranx does: ``rbp.95`` (RBP with p = 0.95, the grades as gains),
    ``ndcg_burges@10``/``dcg_burges@10`` (gain 2^rel - 1) and any name with
    ranx's relevance-level suffix ``-lN`` (``precision@10-l2`` is ``P(rel=2)@10``;
    ``ndcg@10-l2`` is nDCG@10 with the grades below 2 gaining 0); None for
    every other name (``precision@10`` and the like are irscore names too)."""
    m = _RANX_NAME.match(name)
    if m is None or m.group("m") not in _RANX:
        return None
    metric, sep, k, lvl = m.group("m"), m.group("sep"), m.group("k"), m.group("l")
    if metric == "rbp" and sep != ".":
        return None     # trec_eval's rbp; ranx's rbp@95 is not read (rbp@10 would look like a cutoff)
    if metric != "rbp" and (sep == "." or (lvl is None and "burges" not in metric)):
        return None
    args = [f"p=0.{k}"] if metric == "rbp" else []
    if "burges" in metric:
        args.append("gain=exp")
    level = None if lvl is None else int(lvl)
    if level is not None and metric in _GAINS:
        if level >= 2 and metric != "ndcg":
            raise ValueError(f"measure {name!r}: ranx's -l{level} on {metric} (grades below {level} gain 0) "
                             "is not available; nDCG(gains={...})@k gives linear gains of any grade")
        if level > 100:
            raise ValueError(f"measure {name!r}: relevance level {level} is too large for ndcg (at most 100)")
        if level >= 2:
            args.append("gains={" + ",".join(f"{g}:0" for g in range(1, level)) + "}")
    elif level is not None:
        args.append(f"rel={level}")
    text = _RANX[metric] + (f"({','.join(args)})" if args else "")
    return text + (f"@{k}" if k is not None and metric != "rbp" else "")
