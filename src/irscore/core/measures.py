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

from irscore.core.checks import MAX_LEVEL, parse_bool
from irscore.core.names import atol as _atol
from irscore.core.names import canon_floats as _canon_floats
from irscore.core.names import canon_pairs as _canon_pairs
from irscore.core.names import (
    check_cutoff,
    format_gain_map,
    gain_map_pairs,
    is_gain_map,
    output_name,
    parse_gain_map,
    ranx_spelling,
    reordered,
    split_args,
)
from irscore.core.names import fmt_num as _fmt_num
from irscore.core.names import number as _number
from irscore.core.names import parse_pairs as _parse_pairs
from irscore.core.registry import EXTERNAL
from irscore.core.specs import BY_NAME, DECLARATIONS, Spec, op_code


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


# In trec_eval's te_trec_measures order (the order measures are printed in),
# derived from the declarations of irscore.core.specs.
FAMILIES: Dict[str, Family] = {
    s.name: Family(s.name, op_code(s.op), s.ptype, s.default, agg=s.agg, integer=s.integer,
                   per_query=s.per_query, summary=s.summary, level=s.level, opt_cutoff=s.cutoff == "optional")
    for s in DECLARATIONS}
# trec_eval family -> op kind of irscore._ranking.compute
K: Dict[str, int] = {name: f.kind for name, f in FAMILIES.items() if f.kind >= 0}
EXTENSIONS = frozenset(s.name for s in DECLARATIONS if s.extension)

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

# ir_measures-style and ranx names -> trec_eval family; every family is also
# reachable by its trec_eval name in the general syntax (which wins: ranx's rbp is rbp_grade
# in ranx's spelling rbp.95 only)
# (the first declaration of a name wins: nDCG is ndcg, and nDCG@k reads as ndcg_cut by ndcg's at_k)
ALIASES: Dict[str, str] = {}
for _s in DECLARATIONS:
    for _name in (_s.irm, *_s.aliases, *_s.ranx) if _s.op is not None else ():
        if _name is not None:
            ALIASES.setdefault(_name, _s.name)
ALIASES.update({s.name: s.name for s in DECLARATIONS if s.op is not None})
# trec_eval family -> the ir_measures-style name str(Measure) prints
CANONICAL_ALIAS: Dict[str, str] = {s.name: s.irm or s.name for s in DECLARATIONS if s.op is not None}


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
        ranx = _ranx_rbp(self)
        if ranx is not None:
            return ranx
        args = _keyword_args(self)
        param, p_style = _param_arg(self)
        if self.params is not None and not p_style and not args and self.cutoff is None:
            return f"{self.family}.{self.params}"  # trec_eval's -m spelling: utility.2,-1,0,0
        if param is not None:
            args.append(param)
        s = _base_name(self, p_style) + (f"({','.join(args)})" if args else "")
        if self.cutoff is not None:
            s += "@" + _fmt_num(self.cutoff)
        return s


def _p_style(m: Measure) -> bool:
    """Whether ``m``'s parameters are RBP's persistence alone, written ``p=0.5``."""
    if m.family == "rbp_grade":
        return m.params is not None
    return m.family in ("rbp", "rbp_resid") and m.params is not None and m.params.startswith("p=") \
        and "," not in m.params


def _ranx_rbp(m: Measure) -> Optional[str]:
    """ranx's spelling of ``rbp_grade`` (``rbp.95``, ``rbp.95-l2``) when it has one."""
    if m.family != "rbp_grade" or m.judged_only or (m.rel is not None and m.rel < 0):   # -lN: N >= 0
        return None
    p = m.params[2:] if m.params else ""
    if not (p.startswith("0.") and p[2:].isdigit()):
        return None
    return f"rbp.{p[2:]}" + (f"-l{m.rel}" if m.rel is not None else "")


def _keyword_args(m: Measure) -> List[str]:
    """The keyword arguments of ``str(m)`` other than its parameter string."""
    args: List[str] = []
    if m.rel is not None:
        args.append(f"rel={m.rel}")
    if m.gain != "linear":
        args.append(f"gain={m.gain}")
    if m.discount != "log2":
        args.append(f"discount={m.discount}")
    if m.judged_only:
        args.append("judged_only=True")
    if m.family == "map_cut_min":
        args.append("denominator=min_k_R")
    return args


def _reads_back(m: Measure) -> bool:
    """Whether ``m.params`` written as ``gains=`` reads back as the same pairs (a
    trec_eval spelling may map one grade twice, which ``gains=`` refuses)."""
    if m.params is None:
        return False
    try:
        return gain_map_pairs(parse_gain_map(format_gain_map(m.params), str(m.family))) == m.params
    except ValueError:
        return False


def _param_arg(m: Measure) -> Tuple[Optional[str], bool]:
    """(the argument spelling ``m.params``, or None; whether it is RBP's ``p=``)."""
    if _p_style(m):
        keep = m.params != "p=0.8" or m.family != "rbp"   # ir_measures' RBP: p=0.8 unless given (rbp_resid: 0.9)
        return (m.params if keep else None), True
    if m.params is None:
        return None, False
    if "gains" in BY_NAME[m.family].keywords or m.family == "ndcg_cut":
        # a gain map reads back as these pairs (it drops a grade mapped to itself: 0=0 stays params=)
        if is_gain_map(m.params) and _reads_back(m):
            return f"gains={format_gain_map(m.params)}", False
    return f"params={m.params}", False


def _base_name(m: Measure, p_style: bool) -> str:
    """The ir_measures-style name of ``m``'s family (``nDCG`` for a normalised dcg_cut, ``RBP`` for rbp(p=...))."""
    if m.family == "dcg_cut":
        return "nDCG" if dict(m.extra).get("normalize") == "1" else "DCG"
    if m.family == "rbp" and p_style:
        return "RBP"
    return CANONICAL_ALIAS.get(m.family, m.family)


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


@dataclass
class _Name:
    """An ir_measures-style name while it is read: its keywords are taken one by one."""

    name: str
    base: str
    fam: str
    kw: Dict[str, str]
    cut: Optional[float] = None
    rel: Optional[int] = None
    judged_only: bool = False
    gains: Optional[Dict[int, float]] = None
    gain: str = "linear"
    discount: str = "log2"
    params: Optional[str] = None

    def error(self, text: str) -> ValueError:
        return ValueError(f"measure {self.name!r}{text}")

    @property
    def spec(self) -> Spec:
        return BY_NAME[self.fam]


# AP's denominator= values: the family each reads as (None: AP itself)
_DENOMINATORS = {"R": None, "min_k_R": "map_cut_min"}


def _parse_irm(name: str, base: str, args: Optional[str], cut_tok: Optional[str]) -> Measure:
    """An ir_measures/ranx-style name: ``base(key=value,...)@cutoff``; the keywords
    each family takes, its cutoff rule and the families a keyword or a cutoff
    turns it into are read from its declaration (`irscore.core.specs`)."""
    st = _Name(name, base, ALIASES[base], _keywords(name, args))
    if cut_tok is not None:
        st.cut = _cutoff_token(st, cut_tok)
    if "cutoff" in st.kw:
        st.cut = _cutoff_token(st, st.kw.pop("cutoff"))
    for take in (_take_rel, _take_judged_only, _take_gains, _take_gain, _take_denominator, _take_p, _take_params):
        take(st)
    if st.kw:
        raise st.error(f": unknown parameter(s) {sorted(st.kw)}")
    _check_gain(st)
    return _measure_of(st)


def _keywords(name: str, args: Optional[str]) -> Dict[str, str]:
    kw: Dict[str, str] = {}
    if not args:
        return kw
    try:
        parts = split_args(args)
    except ValueError as e:
        raise ValueError(f"measure {name!r}: {e}") from None
    for part in parts:
        if "=" not in part:
            raise ValueError(f"measure {name!r}: parameter {part!r} is not key=value")
        k, v = part.split("=", 1)
        kw[k.strip()] = v.strip()
    return kw


def _cutoff_token(st: _Name, tok: str) -> float:
    try:
        return _number(tok)
    except ValueError:
        raise st.error(f": bad cutoff {tok!r}") from None


def _take_rel(st: _Name) -> None:
    tok = st.kw.pop("rel", None)
    if tok is None:
        return
    if not re.match(r"^[+-]?[0-9]+$", tok):
        raise st.error(f": rel must be an integer, got {tok!r}")
    st.rel = int(tok)
    if abs(st.rel) > MAX_LEVEL:
        raise st.error(f": rel={tok} is out of range (|rel| <= 2**62)")
    if st.spec.rel_variant is not None:
        st.fam = st.spec.rel_variant     # ir_measures: NumRet(rel=1) is NumRelRet
    elif "rel" not in st.spec.keywords:
        raise st.error(f": {st.base} takes no rel= (it reads no relevance level)")


def _take_judged_only(st: _Name) -> None:
    if "judged_only" in st.kw:
        st.judged_only = parse_bool(st.kw.pop("judged_only"), f"measure {st.name!r}: judged_only")


def _take_gains(st: _Name) -> None:
    kw = st.kw
    if "gains" in kw or kw.get("gain", "").startswith("{"):
        if "gains" in kw and "gain" in kw:
            raise st.error(": give gains= or gain=, not both")
        st.gains = parse_gain_map(kw.pop("gains") if "gains" in kw else kw.pop("gain"), st.name)
        if "gains" not in st.spec.keywords:
            raise st.error(": a gain map (gains={...}) applies to nDCG only")


def _take_gain(st: _Name) -> None:
    st.gain = st.kw.pop("gain", "linear")
    if "dcg" in st.kw:  # ir_measures' spelling: nDCG(dcg='exp-log2')@10
        dcg = st.kw.pop("dcg").strip("'\"")
        if dcg not in ("log2", "exp-log2"):
            raise st.error(f": dcg must be 'log2' or 'exp-log2', got {dcg!r}")
        st.gain = "exp" if dcg == "exp-log2" else st.gain
    st.discount = st.kw.pop("discount", "log2")
    st.params = st.kw.pop("params", None)


def _take_denominator(st: _Name) -> None:
    if "denominator" not in st.kw:     # AP(denominator=min_k_R)@k: sentence-transformers' MAP@k
        return
    den = st.kw.pop("denominator")
    if "denominator" not in st.spec.keywords or den not in _DENOMINATORS:
        raise st.error(f": denominator= is AP's, 'R' (trec_eval) or 'min_k_R'; got {den!r}")
    st.fam = _DENOMINATORS[den] or st.fam


def _take_p(st: _Name) -> None:
    if "p" not in st.spec.keywords:
        return
    params = st.params
    p = st.kw.pop("p", None)
    if p is None and st.base == "RBP" and not (params and "p=" in params):
        p = "0.8"               # ir_measures' RBP: p=0.8 (trec_eval's rbp: 0.9)
    if p is not None:
        if params and "p=" in params:
            raise st.error(": p is given twice")
        st.params = f"p={p}" + (f",{params}" if params else "")


def _take_params(st: _Name) -> None:
    if st.params is None:
        return
    ptype = st.spec.ptype
    if ptype == "pairs":
        st.params = _canon_pairs(st.params, st.name, st.fam)
    elif ptype == "float_params":
        st.params = _canon_floats(st.params, st.name)
        n = st.spec.n_params
        if n is not None and len(st.params.split(",")) != n:   # utility(params=2) would fail in the kernel
            raise st.error(f": {st.fam} takes {n} coefficients"
                           f" (as a -m spec: {st.fam}.{','.join(_fmt_num(v) for v in st.spec.default)})")
    else:
        raise st.error(f": {st.base} takes no params")


def _check_gain(st: _Name) -> None:
    if st.gain not in ("linear", "exp"):
        raise st.error(f": gain must be 'linear' or 'exp', got {st.gain!r}")
    if st.discount not in ("log2", "jarvelin"):
        raise st.error(f": discount must be 'log2' or 'jarvelin', got {st.discount!r}")
    if st.fam == "rbp" and st.rel is not None and st.params is not None and \
            any(k != "p" for k, _ in _parse_pairs(st.params, st.name, st.fam)):
        raise st.error(": rel= makes RBP binary; it takes no gain pairs")
    if st.gains is not None:
        if st.gain != "linear" or st.discount != "log2" or st.params is not None:
            raise st.error(": a gain map takes the log2 discount only (no gain=exp, dcg=, discount= or params=)")
        st.params = gain_map_pairs(st.gains) or None


def _measure_of(st: _Name) -> Measure:
    """The Measure of a name whose keywords are read: its cutoff variant and cutoff rule."""
    if "gain" in st.spec.keywords:
        m = _dcg_variant(st)
        if m is not None:
            return m
    elif st.gain != "linear" or st.discount != "log2":
        raise st.error(": gain/discount apply to nDCG and DCG only")
    if st.cut is not None and st.spec.at_k is not None:
        st.fam = st.spec.at_k           # AP@k is map_cut, nDCG@k ndcg_cut
    spec, cut = st.spec, st.cut
    f = FAMILIES[st.fam]
    if spec.cutoff == "required":
        if cut is None:
            if spec.whole is not None:
                raise st.error(f" needs a cutoff ({spec.whole[0]}); for the whole ranking use {spec.whole[1]}")
            if len(f.default) != 1:
                raise st.error(f" needs a cutoff ({st.base}@k)")
            cut = f.default[0]
        cut = _check_cutoff(f, cut, st.name)
    elif cut is not None and spec.cutoff == "optional":
        cut = _check_cutoff(f, cut, st.name)
    elif cut is not None:
        raise st.error(" takes no cutoff")
    # dcg_cut@k (the family's own name) is DCG@k: the same Measure as DCG@k
    dcg_extra: Tuple[Tuple[str, str], ...] = (("normalize", "0"),) if st.fam == "dcg_cut" else ()
    return Measure(st.fam, cutoff=cut, rel=st.rel, params=st.params, extra=dcg_extra, judged_only=st.judged_only)


def _dcg_variant(st: _Name) -> Optional[Measure]:
    """nDCG and DCG with gain=, discount= (and DCG@k) are dcg_cut, normalised for nDCG."""
    if st.gain == "linear" and st.discount == "log2" and not (st.fam == "dcg" and st.cut is not None):
        return None
    extra = (("normalize", "1" if st.fam == "ndcg" else "0"),)
    cut = _check_cutoff(FAMILIES["dcg_cut"], st.cut, st.name) if st.cut is not None else None
    return Measure("dcg_cut", cutoff=cut, rel=st.rel, gain=st.gain, discount=st.discount, extra=extra,
                   judged_only=st.judged_only)


def batch_op(m: Measure) -> Optional[str]:
    """The op enum member (`irscore.core.specs.op_code`) with which the batch
    kernel computes ``m``, None when the batch path does not (its spec has no
    ``batch`` op, a parameter string, or ``judged_only``)."""
    spec = BY_NAME.get(m.family)
    if spec is None or spec.batch is None or m.judged_only:
        return None
    if m.family == "dcg_cut":       # DCG@k and nDCG@k with any gain and discount
        return "K_NDCG" if dict(m.extra).get("normalize", "1") == "1" else "K_DCG"
    return spec.batch if m.params is None else None


def empty_kind(m: Measure) -> Optional[str]:
    """"rel", "gain" or None: how a query without relevant documents makes ``m``
    0/0 (its spec's ``empty``; a normalised dcg_cut divides by the ideal DCG)."""
    spec = BY_NAME.get(m.family)
    if spec is None:
        return None
    if m.family == "dcg_cut":
        return "gain" if dict(m.extra).get("normalize", "1") == "1" else None
    return spec.empty


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
            n = BY_NAME[f.name].n_params
            if n is not None and len(params.split(",")) != n:
                raise ValueError(f"measure spec {spec!r}: {f.name} takes {n} coefficients")
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
