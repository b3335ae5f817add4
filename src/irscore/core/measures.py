"""Measure names, parameters and aggregation rules.

Three spellings are accepted everywhere a measure is named:

- trec_eval output names: ``map``, ``P_10``, ``ndcg_cut_10``,
  ``iprec_at_recall_0.10``, ``Rprec_mult_0.20``, ``num_rel_ret`` ...
- trec_eval ``-m`` specs with parameters: ``P.5,10``, ``ndcg.1=3,2=9``,
  ``iprec_at_recall..10,.50``, ``utility.2,-1,0,0`` (one spec may expand to
  several outputs, named as trec_eval prints them);
- ir_measures-style names: ``AP``, ``P@10``, ``nDCG@10``, ``RR``, ``RR@10``,
  ``R@100``, ``P(rel=2)@5``, ``nDCG(gain=exp)@10``, ``nDCG(gains={0:0,1:1,2:3})@10``,
  ``nDCG(judged_only=True)``, ``nDCG(discount=jarvelin)@10``, ``Success@10``,
  ``IPrec@0.5``, ``Judged@10``, ``RBP``, ``RBP(rel=2)``, ``NumRet(rel=1)`` ...
  (and ranx's ``mrr@10``, ``hits@10``, ``precision@10`` ...).

A bare trec_eval family with several default outputs (``P``, ``ndcg_cut``,
``iprec_at_recall``) and a measure set (``official``) expand as trec_eval's
``-m`` does in `resolve`.

``parse_measure(name)`` gives a [`Measure`][irscore.core.measures.Measure]; ``str(m)`` is its canonical
spelling and ``parse_measure(str(m)) == m``.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple, Union

from irscore._ranking import OpKind
from irscore.core.checks import MAX_LEVEL, parse_bool
from irscore.core.names import atol as _atol
from irscore.core.names import canon_floats as _canon_floats
from irscore.core.names import canon_pairs as _canon_pairs
from irscore.core.names import fmt_num as _fmt_num
from irscore.core.names import (check_cutoff, format_gain_map, gain_map_pairs, is_gain_map, output_name,
                                parse_gain_map, ranx_spelling, reordered, split_args)
from irscore.core.names import number as _number
from irscore.core.names import parse_pairs as _parse_pairs
from irscore.core.registry import EXTERNAL

# trec_eval family -> op kind of irscore._ranking.compute (the codes are the
# kernel's own: the cpdef enum OpKind of csrc/irscore/_ranking.pxd)
K: Dict[str, int] = {
    "num_q": OpKind.K_NUM_Q, "num_ret": OpKind.K_NUM_RET, "num_rel": OpKind.K_NUM_REL,
    "num_rel_ret": OpKind.K_NUM_REL_RET, "map": OpKind.K_MAP, "gm_map": OpKind.K_GM_MAP,
    "Rprec": OpKind.K_RPREC, "bpref": OpKind.K_BPREF, "recip_rank": OpKind.K_RECIP_RANK,
    "iprec_at_recall": OpKind.K_IPREC, "P": OpKind.K_P, "recall": OpKind.K_RECALL, "infAP": OpKind.K_INFAP,
    "gm_bpref": OpKind.K_GM_BPREF, "Rprec_mult": OpKind.K_RPREC_MULT, "utility": OpKind.K_UTILITY,
    "11pt_avg": OpKind.K_11PT, "binG": OpKind.K_BING, "G": OpKind.K_G, "ndcg": OpKind.K_NDCG,
    "ndcg_rel": OpKind.K_NDCG_REL, "Rndcg": OpKind.K_RNDCG, "ndcg_cut": OpKind.K_NDCG_CUT,
    "map_cut": OpKind.K_MAP_CUT, "relative_P": OpKind.K_REL_P, "success": OpKind.K_SUCCESS,
    "set_P": OpKind.K_SET_P, "set_relative_P": OpKind.K_SET_REL_P, "set_recall": OpKind.K_SET_RECALL,
    "set_map": OpKind.K_SET_MAP, "set_F": OpKind.K_SET_F, "num_nonrel_judged_ret": OpKind.K_NUM_NONREL_JUDGED_RET,
    "rbp": OpKind.K_RBP, "rbp_resid": OpKind.K_RBP_RESID, "unj": OpKind.K_UNJ, "dcg": OpKind.K_DCG,
    "ideal_dcg": OpKind.K_IDEAL_DCG, "dcg_cut": OpKind.K_DCG_CUT, "judged": OpKind.K_JUDGED,
    "yaap": OpKind.K_YAAP,
    "Judged": OpKind.K_JUDGED_RATE, "hits": OpKind.K_HITS, "f1": OpKind.K_F1,
    "map_cut_min": OpKind.K_AP_MIN_K_R, "rbp_grade": OpKind.K_RBP_GRADE,
}
K = {name: int(kind) for name, kind in K.items()}


@dataclass(frozen=True)
class Family:
    """A trec_eval measure family (one ``m_<name>.c`` of trec_eval)."""

    name: str
    kind: int                   # op kind, -1 for runid/relstring (no kernel)
    ptype: str                  # none | long_cuts | float_cuts | float_params | pairs
    default: Tuple[float, ...] = ()
    agg: str = "mean"           # mean | sum | gm | num_q | num_rel | none
    integer: bool = False       # printed as an integer count
    per_query: bool = True      # printed with -q
    summary: bool = True        # printed in the 'all' lines
    level: bool = True          # reads a relevance level (so takes rel=)
    opt_cutoff: bool = False    # takes an optional @k (ptype none): RR@10, Judged@10, hits@10


_C = (5.0, 10.0, 15.0, 20.0, 30.0, 100.0, 200.0, 500.0, 1000.0)
_R = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

# In trec_eval's te_trec_measures order (the order measures are printed in).
FAMILIES: Dict[str, Family] = {f.name: f for f in [
    Family("runid", -1, "none", agg="none", per_query=False),
    Family("num_q", K["num_q"], "none", agg="num_q", integer=True, per_query=False, level=False),
    Family("num_ret", K["num_ret"], "none", agg="sum", integer=True, level=False),
    Family("num_rel", K["num_rel"], "none", agg="num_rel", integer=True),
    Family("num_rel_ret", K["num_rel_ret"], "none", agg="sum", integer=True),
    Family("map", K["map"], "none"),
    Family("gm_map", K["gm_map"], "none", agg="gm", per_query=False),
    Family("Rprec", K["Rprec"], "none"),
    Family("bpref", K["bpref"], "none"),
    Family("recip_rank", K["recip_rank"], "none", opt_cutoff=True),
    Family("iprec_at_recall", K["iprec_at_recall"], "float_cuts", _R),
    Family("P", K["P"], "long_cuts", _C),
    Family("relstring", -1, "float_params", (10.0,), agg="none", summary=False),
    Family("recall", K["recall"], "long_cuts", _C),
    Family("infAP", K["infAP"], "none"),
    Family("gm_bpref", K["gm_bpref"], "none", agg="gm", per_query=False),
    Family("Rprec_mult", K["Rprec_mult"], "float_cuts", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    Family("utility", K["utility"], "float_params", (1.0, -1.0, 0.0, 0.0)),
    Family("11pt_avg", K["11pt_avg"], "float_params", _R),
    Family("binG", K["binG"], "none"),
    Family("G", K["G"], "pairs", level=False),
    Family("dcg", K["dcg"], "pairs", level=False),
    Family("ideal_dcg", K["ideal_dcg"], "pairs", level=False),
    Family("ndcg", K["ndcg"], "pairs", level=False),
    Family("ndcg_rel", K["ndcg_rel"], "pairs", level=False),
    Family("Rndcg", K["Rndcg"], "pairs"),
    Family("ndcg_cut", K["ndcg_cut"], "long_cuts", _C, level=False),
    Family("map_cut", K["map_cut"], "long_cuts", _C),
    Family("relative_P", K["relative_P"], "long_cuts", _C),
    Family("success", K["success"], "long_cuts", (1.0, 5.0, 10.0)),
    Family("set_P", K["set_P"], "none"),
    Family("set_relative_P", K["set_relative_P"], "none"),
    Family("set_recall", K["set_recall"], "none"),
    Family("set_map", K["set_map"], "none"),
    Family("set_F", K["set_F"], "float_params", (1.0,)),
    Family("num_nonrel_judged_ret", K["num_nonrel_judged_ret"], "none", agg="sum", integer=True),
    Family("yaap", K["yaap"], "none"),
    Family("rbp", K["rbp"], "pairs", level=False),  # rel= makes it binary (ir_measures' RBP(rel=2))
    Family("rbp_resid", K["rbp_resid"], "pairs", level=False),
    Family("unj", K["unj"], "long_cuts", (5.0, 10.0, 20.0), level=False),
    # irscore extensions (not trec_eval families)
    Family("dcg_cut", K["dcg_cut"], "long_cuts", _C, level=False),
    Family("judged", K["judged"], "long_cuts", (10.0,), level=False),
    Family("Judged", K["Judged"], "none", level=False, opt_cutoff=True),    # ir_measures' Judged
    Family("hits", K["hits"], "none", opt_cutoff=True),                     # ranx's hits
    Family("f1", K["f1"], "none", opt_cutoff=True),                         # ranx's f1
    Family("map_cut_min", K["map_cut_min"], "long_cuts", _C),               # AP(denominator=min_k_R)@k
    Family("rbp_grade", K["rbp_grade"], "pairs"),                           # ranx's rbp.95
]}
EXTENSIONS = frozenset({"dcg_cut", "judged", "Judged", "hits", "f1", "map_cut_min", "rbp_grade"})

ORDER = {name: i for i, name in enumerate(FAMILIES)}

# Placeholder family of the outputs computed by an ExtFamily.
EXT_PSEUDO = Family("external", -2, "none", agg="nanmean")

MEASURE_SETS: Dict[str, List[str]] = {
    "official": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"],
    "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"],
    "all_trec": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
                 "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
                 "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"],
}

# trec_eval families not implemented: none (-R qrels_jg: irscore.classic.evaluate_jg;
# -R prefs / qrels_prefs: irscore.prefs)
NOT_IMPLEMENTED: List[str] = []

# ir_measures-style aliases -> trec_eval family
ALIASES: Dict[str, str] = {
    "AP": "map", "MAP": "map", "GMAP": "gm_map", "RR": "recip_rank", "MRR": "recip_rank",
    "P": "P", "R": "recall", "Recall": "recall", "nDCG": "ndcg", "NDCG": "ndcg",
    "DCG": "dcg", "Rprec": "Rprec", "RPrec": "Rprec", "R-prec": "Rprec", "Bpref": "bpref",
    "BPref": "bpref", "infAP": "infAP", "InfAP": "infAP", "NumRet": "num_ret",
    "NumRel": "num_rel", "NumRelRet": "num_rel_ret", "NumQ": "num_q",
    "NumNonRelJudgedRet": "num_nonrel_judged_ret", "Success": "success",
    "IPrec": "iprec_at_recall", "SetP": "set_P", "SetR": "set_recall", "SetF": "set_F",
    "SetAP": "set_map", "SetRelP": "set_relative_P", "Judged": "Judged", "RBP": "rbp",
    "Rprec_mult": "Rprec_mult", "binG": "binG", "G": "G", "Rndcg": "Rndcg",
    "ndcg_rel": "ndcg_rel", "relative_P": "relative_P", "11pt_avg": "11pt_avg",
    "utility": "utility", "unj": "unj", "rbp_resid": "rbp_resid",
    # ranx's metric names
    "precision": "P", "recall": "recall", "mrr": "recip_rank", "hit_rate": "success",
    "hits": "hits", "r-precision": "Rprec", "r_precision": "Rprec",
}
# every family is also reachable by its trec_eval name in the general syntax
ALIASES.update({name: name for name, f in FAMILIES.items() if f.kind >= 0 and name not in ALIASES})

CANONICAL_ALIAS = {"map": "AP", "recip_rank": "RR", "recall": "R", "ndcg": "nDCG",
                   "Rprec": "Rprec", "bpref": "Bpref", "num_ret": "NumRet", "num_rel": "NumRel",
                   "num_rel_ret": "NumRelRet", "num_q": "NumQ", "success": "Success",
                   "iprec_at_recall": "IPrec", "set_P": "SetP", "set_recall": "SetR",
                   "set_F": "SetF", "set_map": "SetAP", "Judged": "Judged", "P": "P",
                   "infAP": "infAP", "gm_map": "GMAP", "dcg": "DCG"}


@dataclass(frozen=True)
class Measure:
    """One measure with its parameters.

    ``family`` is the trec_eval family; ``cutoff`` the single cutoff/recall
    point (``@k``); ``rel`` a relevance level overriding the evaluation's;
    ``gain``/``discount`` the nDCG/DCG variants (``linear``/``exp``,
    ``log2``/``jarvelin``); ``params`` a trec_eval parameter string for the
    families that take one (``utility``, ``ndcg`` gain maps, ``rbp`` ...).

    Parameters
    ----------
    family : str
        The trec_eval family (or a registered family's name).
    cutoff : float, optional
        The single cutoff or recall point (``@k``).
    rel : int, optional
        A relevance level overriding the evaluation's (for ``rbp``: binary
        RBP at that level).
    gain, discount : str
        nDCG/DCG variants (``linear``/``exp``, ``log2``/``jarvelin``).
    params : str, optional
        trec_eval parameter string (``utility``, ``ndcg`` gain maps, ``rbp`` ...).
    extra : tuple of (str, str)
        Keyword parameters of a registered family, as written in the name
        (declared and typed in `irscore.core.registry`).
    judged_only : bool
        Compute on the ranking without its unjudged documents (ir_measures'
        ``judged_only=True``; trec_eval's ``-J`` for this measure alone).
    """

    family: str
    cutoff: Optional[float] = None
    rel: Optional[int] = None
    gain: str = "linear"
    discount: str = "log2"
    params: Optional[str] = None
    extra: Tuple[Tuple[str, str], ...] = field(default=())
    judged_only: bool = False

    def __str__(self) -> str:
        if self.family not in FAMILIES:
            kv = ",".join(f"{k}={v}" for k, v in self.extra)
            text = self.family + (f"({kv})" if kv else "")
            return text + ("@" + _fmt_num(self.cutoff) if self.cutoff is not None else "")
        base = CANONICAL_ALIAS.get(self.family, self.family)
        if self.family == "ndcg_cut":
            base = "nDCG"
        elif self.family == "dcg_cut":
            base = "nDCG" if dict(self.extra).get("normalize") == "1" else "DCG"
        elif self.family in ("map_cut", "map_cut_min"):
            base = "AP"
        rbp_p = self.family in ("rbp", "rbp_resid") and self.params is not None and \
            self.params.startswith("p=") and "," not in self.params
        if self.family == "rbp" and rbp_p:
            base = "RBP"            # ir_measures' name: p=0.8 unless given
        gain_map = self.family in ("ndcg", "ndcg_cut") and self.params is not None and is_gain_map(self.params)
        args: List[str] = []
        if self.rel is not None:
            args.append(f"rel={self.rel}")
        if self.gain != "linear":
            args.append(f"gain={self.gain}")
        if self.discount != "log2":
            args.append(f"discount={self.discount}")
        if self.judged_only:
            args.append("judged_only=True")
        if self.family == "map_cut_min":
            args.append("denominator=min_k_R")
        elif self.family == "rbp_grade":    # ranx's spelling: rbp.95, rbp.95-l2
            p = self.params[2:] if self.params else ""
            if p.startswith("0.") and p[2:].isdigit() and not self.judged_only:
                return f"rbp.{p[2:]}" + (f"-l{self.rel}" if self.rel is not None and self.rel >= 0 else "")
            rbp_p = self.params is not None
        if self.params is not None and not rbp_p and not args and self.cutoff is None:
            return f"{self.family}.{self.params}"  # trec_eval's -m spelling: utility.2,-1,0,0
        if rbp_p:
            assert self.params is not None
            if self.params != "p=0.8" or self.family == "rbp_grade":
                args.append(self.params)
        elif gain_map:
            assert self.params is not None
            args.append(f"gains={format_gain_map(self.params)}")
        elif self.params is not None:
            args.append(f"params={self.params}")
        s = base + (f"({','.join(args)})" if args else "")
        if self.cutoff is not None:
            s += "@" + _fmt_num(self.cutoff)
        return s


_IRM = re.compile(r"^(?P<base>[A-Za-z_][A-Za-z0-9_\-]*?)(?:\((?P<args>[^()]*)\))?(?:@(?P<cut>[0-9.eE+\-]+))?$")


def _all_names() -> List[str]:
    names = set(ALIASES) | set(FAMILIES) | set(EXTERNAL)
    for f in FAMILIES.values():
        if f.ptype in ("long_cuts", "float_cuts"):
            for v in f.default:
                names.add(_output_name(f, v))
    return sorted(names)


def _unknown(name: str) -> ValueError:
    close = [alt] if (alt := reordered(name, parse_measure)) else difflib.get_close_matches(name, _all_names(), n=5, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return ValueError(f"unknown measure {name!r}{hint}")


def _output_name(f: Family, v: float) -> str:
    return output_name(f.name, f.ptype, v)


def _check_cutoff(f: Family, v: float, name: str) -> float:
    return check_cutoff(v, name, documents=f.ptype == "long_cuts" or f.opt_cutoff,
                        recall=f.name == "iprec_at_recall")


def parse_measure(name: str) -> Measure:
    """Parse one single-valued measure name (trec_eval, ir_measures or ranx style;
    an ir_measures measure object is read through its ``str()``).

    Parameters
    ----------
    name : str or ir_measures measure
        A single-valued measure name.

    Returns
    -------
    Measure
        ``str(m)`` is its canonical spelling and ``parse_measure(str(m)) == m``.

    Raises
    ------
    ValueError
        An unknown name (with suggestions) or bad parameters.
    TypeError
        Neither a str nor an ir_measures measure.
    """
    if not isinstance(name, str):
        if type(name).__module__.startswith("ir_measures"):
            name = str(name)
        else:
            raise TypeError(f"measure names are str, got {name!r}")
    name = name.strip()
    ranx = ranx_spelling(name)      # rbp.95, ndcg_burges@10, precision@10-l2 ...
    if ranx is not None:
        return parse_measure(ranx)
    # 1. plain trec_eval family without parameters
    if name in FAMILIES and FAMILIES[name].ptype in ("none", "pairs", "float_params"):
        return Measure(name)
    # 2. trec_eval output name with one cutoff: P_10, iprec_at_recall_0.10
    m = re.match(r"^(.*)_([0-9]+(?:\.[0-9]*)?)$", name)
    if m and m.group(1) in FAMILIES and FAMILIES[m.group(1)].ptype in ("long_cuts", "float_cuts"):
        f = FAMILIES[m.group(1)]
        return _cut_measure(f, float(m.group(2)), name)
    # 3. trec_eval -m spec with one value: P.10, ndcg.1=3,2=9, utility.2,-1,0,0
    if "." in name and name.split(".", 1)[0] in FAMILIES:
        ms = expand_spec(name)
        if len(ms) != 1:
            raise ValueError(f"measure spec {name!r} names {len(ms)} measures; ask for them one by one "
                             f"({', '.join(n for n, _ in ms)})")
        return ms[0][1]
    # 4. ir_measures style
    m = _IRM.match(name)
    if not m or m.group("base") not in ALIASES:
        ext = _parse_external(name)
        if ext is not None:
            return ext
        raise _unknown(name)
    return _parse_irm(name, m.group("base"), m.group("args"), m.group("cut"))


def _parse_irm(name: str, base: str, args: Optional[str], cut_tok: Optional[str]) -> Measure:
    """An ir_measures/ranx-style name: ``base(key=value,...)@cutoff``."""
    fam = ALIASES[base]
    kw: Dict[str, str] = {}
    if args:
        try:
            parts = split_args(args)
        except ValueError as e:
            raise ValueError(f"measure {name!r}: {e}") from None
        for part in parts:
            if "=" not in part:
                raise ValueError(f"measure {name!r}: parameter {part!r} is not key=value")
            k, v = part.split("=", 1)
            kw[k.strip()] = v.strip()
    cut: Optional[float] = None
    if cut_tok is not None:
        try:
            cut = _number(cut_tok)
        except ValueError:
            raise ValueError(f"measure {name!r}: bad cutoff {cut_tok!r}") from None
    if "cutoff" in kw:
        tok = kw.pop("cutoff")
        try:
            cut = _number(tok)
        except ValueError:
            raise ValueError(f"measure {name!r}: bad cutoff {tok!r}") from None
    rel: Optional[int] = None
    if "rel" in kw:
        tok = kw.pop("rel")
        if not re.match(r"^[+-]?[0-9]+$", tok):
            raise ValueError(f"measure {name!r}: rel must be an integer, got {tok!r}")
        rel = int(tok)
        if abs(rel) > MAX_LEVEL:
            raise ValueError(f"measure {name!r}: rel={tok} is out of range (|rel| <= 2**62)")
        if fam == "num_ret":
            fam = "num_rel_ret"     # ir_measures: NumRet(rel=1) is NumRelRet
        elif not FAMILIES[fam].level and fam != "rbp":
            raise ValueError(f"measure {name!r}: {base} takes no rel= (it reads no relevance level)")
    judged_only = False
    if "judged_only" in kw:
        judged_only = parse_bool(kw.pop("judged_only"), f"measure {name!r}: judged_only")
    gains: Optional[Dict[int, float]] = None
    if "gains" in kw or kw.get("gain", "").startswith("{"):
        if "gains" in kw and "gain" in kw:
            raise ValueError(f"measure {name!r}: give gains= or gain=, not both")
        gains = parse_gain_map(kw.pop("gains") if "gains" in kw else kw.pop("gain"), name)
        if fam != "ndcg":
            raise ValueError(f"measure {name!r}: a gain map (gains={{...}}) applies to nDCG only")
    gain = kw.pop("gain", "linear")
    if "dcg" in kw:  # ir_measures' spelling: nDCG(dcg='exp-log2')@10
        dcg = kw.pop("dcg").strip("'\"")
        if dcg not in ("log2", "exp-log2"):
            raise ValueError(f"measure {name!r}: dcg must be 'log2' or 'exp-log2', got {dcg!r}")
        gain = "exp" if dcg == "exp-log2" else gain
    discount = kw.pop("discount", "log2")
    params = kw.pop("params", None)
    if "denominator" in kw:         # AP(denominator=min_k_R)@k: sentence-transformers' MAP@k
        den = kw.pop("denominator")
        if fam != "map" or den not in ("R", "min_k_R"):
            raise ValueError(f"measure {name!r}: denominator= is AP's, 'R' (trec_eval) or 'min_k_R'; got {den!r}")
        fam = "map_cut_min" if den == "min_k_R" else fam
    if fam in ("rbp", "rbp_resid", "rbp_grade"):
        p = kw.pop("p", None)
        if p is None and base == "RBP" and not (params and "p=" in params):
            p = "0.8"               # ir_measures' RBP: p=0.8 (trec_eval's rbp: 0.9)
        if p is not None:
            if params and "p=" in params:
                raise ValueError(f"measure {name!r}: p is given twice")
            params = f"p={p}" + (f",{params}" if params else "")
    if params is not None:
        ptype = FAMILIES[fam].ptype
        if ptype == "pairs":
            params = _canon_pairs(params, name, fam)
        elif ptype == "float_params":
            params = _canon_floats(params, name)
        else:
            raise ValueError(f"measure {name!r}: {base} takes no params")
    if kw:
        raise ValueError(f"measure {name!r}: unknown parameter(s) {sorted(kw)}")
    if gain not in ("linear", "exp"):
        raise ValueError(f"measure {name!r}: gain must be 'linear' or 'exp', got {gain!r}")
    if discount not in ("log2", "jarvelin"):
        raise ValueError(f"measure {name!r}: discount must be 'log2' or 'jarvelin', got {discount!r}")
    if fam == "rbp" and rel is not None and params is not None and \
            any(k != "p" for k, _ in _parse_pairs(params, name, fam)):
        raise ValueError(f"measure {name!r}: rel= makes RBP binary; it takes no gain pairs")
    if gains is not None:
        if gain != "linear" or discount != "log2" or params is not None:
            raise ValueError(f"measure {name!r}: a gain map takes the log2 discount only "
                             "(no gain=exp, dcg=, discount= or params=)")
        params = gain_map_pairs(gains) or None
    # cutoff variants of families
    if fam == "map" and cut is not None:
        fam = "map_cut"
    if fam in ("ndcg", "dcg"):
        if gain != "linear" or discount != "log2" or (fam == "dcg" and cut is not None):
            fam, fam_norm = "dcg_cut", fam == "ndcg"
            extra = (("normalize", "1" if fam_norm else "0"),)
            if cut is not None:
                cut = _check_cutoff(FAMILIES["dcg_cut"], cut, name)
            return Measure("dcg_cut", cutoff=cut, rel=rel, gain=gain, discount=discount, extra=extra,
                           judged_only=judged_only)
        if cut is not None:
            fam = "ndcg_cut"
    if gain != "linear" or discount != "log2":
        raise ValueError(f"measure {name!r}: gain/discount apply to nDCG and DCG only")
    f = FAMILIES[fam]
    if f.ptype in ("long_cuts", "float_cuts"):
        if cut is None:
            if fam == "P":
                raise ValueError(f"measure {name!r} needs a cutoff (P@10); for the whole ranking use SetP")
            if fam == "recall":
                raise ValueError(f"measure {name!r} needs a cutoff (R@100); for the whole ranking use SetR")
            if len(f.default) == 1:
                cut = f.default[0]
            else:
                raise ValueError(f"measure {name!r} needs a cutoff ({base}@k)")
        cut = _check_cutoff(f, cut, name)
    elif cut is not None and f.opt_cutoff:
        cut = _check_cutoff(f, cut, name)
    elif cut is not None:
        raise ValueError(f"measure {name!r} takes no cutoff")
    # dcg_cut@k (the family's own name) is DCG@k: the same Measure as DCG@k
    dcg_extra: Tuple[Tuple[str, str], ...] = (("normalize", "0"),) if fam == "dcg_cut" else ()
    return Measure(fam, cutoff=cut, rel=rel, params=params, extra=dcg_extra, judged_only=judged_only)


def expand_spec(spec: str) -> List[Tuple[str, Measure]]:
    """A trec_eval ``-m`` argument (one family, optional ``.params``) as a list of
    (trec_eval output name, Measure), in trec_eval's output order."""
    fam_name, _, params = spec.partition(".")
    if fam_name not in FAMILIES:
        raise _unknown(spec)
    f = FAMILIES[fam_name]
    has_params = "." in spec
    if has_params and params == "":
        raise ValueError(f"improper measure parameter in {spec!r}")
    if f.ptype in ("long_cuts", "float_cuts"):
        if has_params:
            vals = []
            for tok in params.split(","):
                try:
                    v = _number(tok) if f.ptype == "float_cuts" else float(_atol(tok))
                except ValueError:
                    raise ValueError(f"measure spec {spec!r}: bad cutoff {tok!r}") from None
                vals.append(v)
        else:
            vals = list(f.default)
        vals.sort()
        if f.ptype == "long_cuts" and vals[0] <= 0:
            raise ValueError(f"measure spec {spec!r}: cutoffs must be positive")
        if any(a == b for a, b in zip(vals, vals[1:])):
            raise ValueError(f"measure spec {spec!r}: duplicate cutoffs")
        return [(_output_name(f, v), _cut_measure(f, v, spec)) for v in vals]
    if f.ptype == "none":
        if has_params:
            raise ValueError(f"measure {fam_name!r} takes no parameters")
        return [(f.name, Measure(f.name))]
    if f.ptype == "float_params":
        if has_params:
            canon = _canon_floats(params, spec)
            if f.name == "utility" and len(params.split(",")) != 4:
                raise ValueError(f"measure spec {spec!r}: utility takes 4 coefficients")
            return [(f"{f.name}_{params}", Measure(f.name, params=canon))]
        return [(f.name, Measure(f.name))]
    # pairs
    if has_params:
        return [(f"{f.name}_{params}", Measure(f.name, params=_canon_pairs(params, spec, f.name)))]
    return [(f.name, Measure(f.name))]


def _cut_measure(f: Family, v: float, name: str) -> Measure:
    """The measure of a trec_eval cutoff name; ``dcg_cut_k`` is DCG (not normalised)."""
    extra = (("normalize", "0"),) if f.name == "dcg_cut" else ()
    return Measure(f.name, cutoff=_check_cutoff(f, v, name), extra=extra)


def expand_set(name: str) -> List[str]:
    """Family names of a trec_eval measure set (``official``, ``all_trec``, ``set``)."""
    return list(MEASURE_SETS[name])


def _parse_external(name: str) -> Optional[Measure]:
    m = _IRM.match(name)
    if not m:
        return None
    fam = EXTERNAL.get(m.group("base"))
    if fam is None:
        return None
    kw: List[Tuple[str, str]] = []
    if m.group("args"):
        for part in m.group("args").split(","):
            k, eq, v = part.partition("=")
            k, v = k.strip(), v.strip()
            if not eq or not k:
                raise ValueError(f"measure {name!r}: parameter {part!r} is not key=value")
            if k not in fam.param_names:
                raise ValueError(f"measure {name!r}: unknown parameter {k!r} (known: {', '.join(fam.param_names)})")
            if any(k == k0 for k0, _ in kw):
                raise ValueError(f"measure {name!r}: parameter {k!r} given twice")
            kw.append((k, v))
    fam.parse_params(kw, m.group("base"))       # typed check of the values, at parse time
    cut: Optional[float] = None
    if m.group("cut") is not None:
        if not fam.cutoff:
            raise ValueError(f"measure {name!r} takes no cutoff")
        try:
            cut = _number(m.group("cut"))
        except ValueError:
            raise ValueError(f"measure {name!r}: bad cutoff {m.group('cut')!r}") from None
        if cut != int(cut) or cut < 1:
            raise ValueError(f"measure {name!r}: the cutoff must be a positive integer")
    elif fam.cutoff_required:
        raise ValueError(f"measure {name!r} needs a cutoff ({fam.name}@k)")
    return Measure(fam.name, cutoff=cut, extra=tuple(sorted(kw)))


def resolve(measures: Union[str, Sequence[str]]) -> List[Tuple[str, Measure]]:
    """(key, Measure) for each requested name.

    As trec_eval's ``-m`` (and pytrec_eval): a measure set (``official``,
    ``all_trec``, ``set``; its non-numeric ``runid``/``relstring`` left out),
    a bare trec_eval family with cutoffs (``P``, ``ndcg_cut``, ``recall``,
    ``iprec_at_recall``, ``Rprec_mult``, ``success`` ...) and a ``-m`` spec
    with several values (``P.5,10``) expand to trec_eval's outputs, keyed by
    trec_eval's output names (``P_5``, ``P_10``).  A name of one measure
    (``map``, ``P_10``, ``P.10``, ``ndcg.1=3,2=9``, ``nDCG@10``) is keyed as
    given."""
    if isinstance(measures, str):
        measures = [measures]
    items: List[Tuple[str, Measure]] = []
    seen = set()
    for name in measures:
        if not isinstance(name, str) and type(name).__module__.startswith("ir_measures"):
            name = str(name)  # an ir_measures measure object, e.g. nDCG@10
        if not isinstance(name, str):
            raise TypeError(f"measure names must be str, got {name!r}")
        fam, dot, _ = name.partition(".")
        if name in MEASURE_SETS:
            pairs = [p for f in MEASURE_SETS[name] if FAMILIES[f].kind >= 0 for p in expand_spec(f)]
        elif name in FAMILIES and name not in EXTENSIONS and FAMILIES[name].ptype in ("long_cuts", "float_cuts"):
            pairs = expand_spec(name)
        elif dot and fam in FAMILIES and ranx_spelling(name) is None and not _is_single(name):
            pairs = expand_spec(name)
        else:
            pairs = [(name, parse_measure(name))]
        for key, m in pairs:
            if m.family in FAMILIES and FAMILIES[m.family].kind < 0:
                raise ValueError(f"measure {name!r} is not numeric; it is printed by `irscore eval`")
            if key not in seen:
                seen.add(key)
                items.append((key, m))
    if not items:
        raise ValueError("no measures requested")
    return items


def _is_single(name: str) -> bool:
    try:
        return len(expand_spec(name)) == 1
    except ValueError:
        return False
