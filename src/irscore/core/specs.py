"""One declaration per measure: the table every layer reads.

Each `Spec` says once, for one trec_eval family (or one of irscore's
extensions of them):

- its **names**: ``name`` (the trec_eval family, ``-m name``), ``irm`` (the
  ir_measures-style name ``str(Measure)`` prints), ``aliases`` (other
  ir_measures-style names the parser reads as this family), ``ranx`` (ranx's
  names of it: read as this family, with ranx's ``-lN`` level suffix, and
  ``NAME_burges`` for the families with a ``gain`` keyword, see
  [`ranx_spelling`][irscore.core.names.ranx_spelling]);
- its **parameters**: ``ptype`` (what ``-m name.PARAMETERS`` takes: ``none``,
  ``long_cuts`` cutoffs, ``float_cuts`` points, ``float_params`` numbers,
  ``pairs`` ``key=value``), ``default`` (the values trec_eval uses without
  them), ``keywords`` (the ``key=value`` parameters of the ir_measures-style
  name; `KEYWORDS` gives each one's type and allowed range);
- its **cutoff rule** (``cutoff``): ``none``, ``required`` (one output per
  cutoff or recall point), ``optional`` (``RR`` and ``RR@10``) or the family an
  ``@k`` turns it into (``at_k``: ``AP@10`` is ``map_cut``);
- its **value for a query without relevant documents** (``empty``): ``rel``
  and ``gain`` are 0/0 (divided by R, or by the ideal DCG; 0 by default, the
  ``empty=`` value of the batch path), ``None`` when the value is defined;
- how it **aggregates** (``agg``: ``mean``, ``sum``, ``gm``, ``num_q``,
  ``num_rel`` or ``none``), and how it is printed (``integer``, ``per_query``,
  ``summary``);
- which **native operation** computes it: ``op``, the NAME of the member of
  the kernel's op enum (``K_NDCG_CUT``; looked up in one place, `op_code`;
  ``op_params``/``op_rel`` when a parameter string or ``rel=`` selects another
  op), and ``batch``, the NAME of the op the batch kernel computes it with
  (None when the batch path does not);
- its one-line **definition** (``doc``) for ``irscore measures`` and the docs.

Derived from this table: `irscore.core.measures` (``K``, ``FAMILIES``,
``EXTENSIONS``, ``ALIASES``, ``CANONICAL_ALIAS``, the ir_measures-style parser's
keyword, cutoff and variant rules, ``str(Measure)``, ``batch_op`` and
``empty_kind``), the op of each measure (`irscore.core.plan.op_kind`), the ranx
spellings of `irscore.core.names`, the batch path's eligibility and ``empty=``
(`irscore.batch.engine`), the cutoff rule of the ir_measures names that
`irscore.compat.ir_measures` passes through, ``irscore measures`` and the names
table of ``docs/names.md`` (``irscore.cli.measures.names_table``; a test compares them).  `XML_FORMS`
and `DIVERSITY` declare the names of the XML and diversity measures, read by
`irscore.xml.names` and `irscore.diversity.evaluation`.

Adding a measure
----------------
Add one `Spec` to `DECLARATIONS` (in trec_eval's print order; extensions at the end,
with ``extension=True``) naming the kernel's op by its enum member name, and
write the kernel function (``csrc/irscore``).  ``batch=`` names the op of the
batch kernel when the batch path computes it too.  Nothing else lists measure
names: the parser, ``str()``, ``-m``, the CLI's listing and the batch path
follow; paste ``irscore.cli.measures.names_table()`` into ``docs/names.md`` ("Every measure") and
define the measure on its docs page (``tests/classic/test_specs.py`` checks the
table, the round trip and the docs).  ``ncg_cut`` (NCG@k) and ``hole`` (Hole@k)
were added this way: one entry each here, one kernel function each.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from irscore._ranking import OpKind

__all__ = ["Spec", "Keyword", "KEYWORDS", "DECLARATIONS", "BY_NAME", "op_code", "XmlForm", "XML_FORMS",
           "DiversitySpec", "DIVERSITY"]


@dataclass(frozen=True)
class Keyword:
    """A ``key=value`` parameter of ir_measures-style names: its type, default and allowed values."""

    name: str
    type: str           # int | bool | choice | float | map | params
    default: str
    allowed: str        # the allowed values, as the listing shows them
    doc: str


KEYWORDS: Dict[str, Keyword] = {k.name: k for k in [
    Keyword("rel", "int", "the evaluation's level", "INT, |rel| <= 2**62",
            "the relevance level of this measure (grades >= rel are relevant)"),
    Keyword("judged_only", "bool", "False", "True|False", "measure the ranking without its unjudged documents"),
    Keyword("gain", "choice", "linear", "linear|exp", "gain of a grade g: g, or 2^g - 1"),
    Keyword("discount", "choice", "log2", "log2|jarvelin", "discount of rank i: log2(i + 1), or Jarvelin's max(1, log2 i)"),
    Keyword("gains", "map", "{}", "{GRADE:GAIN,...}, grades and gains >= 0", "the gain of each listed grade"),
    Keyword("p", "float", "0.8 (RBP), 0.9 (rbp)", "FLOAT", "persistence: the chance of reading on"),
    Keyword("denominator", "choice", "R", "R|min_k_R", "AP@k divided by R, or by min(k, R)"),
    Keyword("params", "params", "", "the -m parameter string", "trec_eval's parameters of the family"),
]}
_ALL = ("rel", "judged_only")       # every family with a relevance level takes these
_NOREL = ("judged_only",)
_C = (5.0, 10.0, 15.0, 20.0, 30.0, 100.0, 200.0, 500.0, 1000.0)
_R = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class Spec:
    """The declaration of one measure family (see the module docstring)."""

    name: str
    op: Optional[str]               # the kernel's op enum member, None for runid/relstring
    doc: str
    op_params: Optional[str] = None  # the op of the measure with a parameter string (nDCG(gains=...)@k)
    op_rel: Optional[str] = None    # the op of the measure with rel= (binary RBP)
    ptype: str = "none"
    default: Tuple[float, ...] = ()
    n_params: Optional[int] = None  # how many numbers a float_params string must hold (utility: 4)
    cutoff: str = "none"            # none | required | optional
    at_k: Optional[str] = None      # the family NAME@k reads as (map -> map_cut)
    irm: Optional[str] = None       # ir_measures-style name printed by str(Measure); None: the name
    aliases: Tuple[str, ...] = ()
    ranx: Tuple[str, ...] = ()
    keywords: Tuple[str, ...] = _ALL
    level: bool = True              # reads a relevance level (rbp's rel= makes it binary instead)
    rel_variant: Optional[str] = None   # the family NAME(rel=L) reads as (NumRet(rel=1) is num_rel_ret)
    whole: Optional[Tuple[str, str]] = None  # (example, whole-ranking measure) named when the cutoff is missing
    empty: Optional[str] = None     # rel | gain | None
    agg: str = "mean"
    integer: bool = False
    per_query: bool = True
    summary: bool = True
    batch: Optional[str] = None     # the batch kernel's op enum member
    extension: bool = False         # not a trec_eval family

    @property
    def params(self) -> Tuple[str, ...]:
        """Its keywords, with ``params`` for the families that take a parameter string."""
        return self.keywords + (("params",) if self.ptype in ("pairs", "float_params") else ())


def _cuts(name: str, op: str, doc: str, default: Tuple[float, ...] = _C, **kw: object) -> Spec:
    return Spec(name, op, doc, ptype="long_cuts", default=default, cutoff="required", **kw)  # type: ignore[arg-type]


_DCG_KEYS = ("judged_only", "gain", "discount")
_RBP_KEYS = ("judged_only", "p")

# In trec_eval's te_trec_measures order (the order measures are printed in).
DECLARATIONS: Tuple[Spec, ...] = (
    Spec("runid", None, "the run's name (printed by irscore eval, not a number)", agg="none", per_query=False),
    Spec("num_q", "K_NUM_Q", "number of queries evaluated", irm="NumQ", keywords=_NOREL, level=False, agg="num_q",
         integer=True, per_query=False),
    Spec("num_ret", "K_NUM_RET", "documents retrieved", irm="NumRet", level=False, rel_variant="num_rel_ret", agg="sum",
         integer=True,
         batch="K_NUM_RET"),
    Spec("num_rel", "K_NUM_REL", "relevant documents (R)", irm="NumRel", agg="num_rel", integer=True,
         batch="K_NUM_REL"),
    Spec("num_rel_ret", "K_NUM_REL_RET", "relevant documents retrieved", irm="NumRelRet", agg="sum", integer=True,
         batch="K_NUM_REL_RET"),
    Spec("map", "K_MAP", "average precision: the precisions at the relevant documents retrieved, summed, over R",
         at_k="map_cut", irm="AP", aliases=("MAP",), ranx=("map",), keywords=_ALL + ("denominator",), empty="rel", batch="K_MAP"),
    Spec("gm_map", "K_GM_MAP", "geometric mean of AP over the queries", irm="GMAP", agg="gm", per_query=False),
    Spec("Rprec", "K_RPREC", "precision after R documents", aliases=("RPrec", "R-prec"), ranx=("r-precision", "r_precision"), empty="rel", batch="K_RPREC"),
    Spec("bpref", "K_BPREF", "binary preference: relevant documents ranked above judged non-relevant ones",
         irm="Bpref", aliases=("BPref",), empty="rel"),
    Spec("recip_rank", "K_RECIP_RANK", "reciprocal rank of the first relevant document (in the top k with @k)",
         cutoff="optional", irm="RR", aliases=("MRR",), ranx=("mrr",), empty="rel", batch="K_RECIP_RANK"),
    Spec("iprec_at_recall", "K_IPREC", "interpolated precision at recall level x", ptype="float_cuts", default=_R,
         cutoff="required", irm="IPrec", empty="rel"),
    _cuts("P", "K_P", "precision at k: relevant documents in the top k, over k", ranx=("precision",), whole=("P@10", "SetP"), batch="K_P"),
    Spec("relstring", None, "the grades of the first documents as characters (per query, not a number)",
         ptype="float_params", default=(10.0,), agg="none", summary=False),
    _cuts("recall", "K_RECALL", "recall at k: relevant documents in the top k, over R", irm="R",
          aliases=("Recall",), ranx=("recall",), whole=("R@100", "SetR"), empty="rel", batch="K_RECALL"),
    Spec("infAP", "K_INFAP", "inferred AP (Yilmaz and Aslam) for sampled judgments", aliases=("InfAP",),
         empty="rel"),
    Spec("gm_bpref", "K_GM_BPREF", "geometric mean of bpref over the queries", agg="gm", per_query=False),
    Spec("Rprec_mult", "K_RPREC_MULT", "precision after x times R documents", ptype="float_cuts",
         default=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), cutoff="required", empty="rel"),
    Spec("utility", "K_UTILITY", "set utility a rr + b (n - rr) + c (R - rr) + d (N + rr - n - R)",
         ptype="float_params", default=(1.0, -1.0, 0.0, 0.0), n_params=4),
    Spec("11pt_avg", "K_11PT", "interpolated precision averaged over the recall points 0, 0.1, ..., 1",
         ptype="float_params", default=_R, empty="rel"),
    Spec("binG", "K_BING", "binary gain: relevant documents discounted by log2 of their rank, normalised"),
    Spec("G", "K_G", "gain: the grades (or trec_eval's gain pairs) summed, normalised", ptype="pairs",
         keywords=_NOREL, level=False),
    Spec("dcg", "K_DCG", "discounted cumulative gain of the whole ranking (DCG@k: dcg_cut)", ptype="pairs",
         at_k="dcg_cut", irm="DCG", ranx=("dcg",), keywords=_DCG_KEYS, level=False, batch="K_DCG"),
    Spec("ideal_dcg", "K_IDEAL_DCG", "DCG of the ideal ranking", ptype="pairs", keywords=_NOREL, level=False),
    Spec("ndcg", "K_NDCG", "normalised DCG: DCG over the ideal ranking's DCG", ptype="pairs", at_k="ndcg_cut",
         irm="nDCG", aliases=("NDCG",), ranx=("ndcg",), keywords=_DCG_KEYS + ("gains",),
         level=False, empty="gain", batch="K_NDCG"),
    Spec("ndcg_rel", "K_NDCG_REL", "nDCG with the ideal ranking cut at R", ptype="pairs", keywords=_NOREL,
         level=False, empty="gain"),
    Spec("Rndcg", "K_RNDCG", "nDCG at R", ptype="pairs", empty="gain"),
    _cuts("ndcg_cut", "K_NDCG_CUT", "nDCG at k", irm="nDCG", keywords=_NOREL, level=False, empty="gain",
          op_params="K_NDCG_GAINS_CUT", batch="K_NDCG"),
    _cuts("map_cut", "K_MAP_CUT", "AP at k: the precisions at the relevant documents of the top k, over R", irm="AP",
          empty="rel", batch="K_MAP"),
    _cuts("relative_P", "K_REL_P", "relevant documents in the top k, over min(R, k)", empty="rel"),
    _cuts("success", "K_SUCCESS", "1 when a relevant document is in the top k, else 0", default=(1.0, 5.0, 10.0),
          irm="Success", ranx=("hit_rate",), batch="K_SUCCESS"),
    Spec("set_P", "K_SET_P", "set precision: relevant retrieved over retrieved", irm="SetP"),
    Spec("set_relative_P", "K_SET_REL_P", "relevant retrieved over min(retrieved, R)", aliases=("SetRelP",),
         empty="rel"),
    Spec("set_recall", "K_SET_RECALL", "set recall: relevant retrieved over R", irm="SetR", empty="rel"),
    Spec("set_map", "K_SET_MAP", "set precision times set recall", irm="SetAP", empty="rel"),
    Spec("set_F", "K_SET_F", "set F: (beta + 1) P R / (beta P + R)", ptype="float_params", default=(1.0,),
         irm="SetF"),
    Spec("num_nonrel_judged_ret", "K_NUM_NONREL_JUDGED_RET", "judged non-relevant documents retrieved",
         aliases=("NumNonRelJudgedRet",), agg="sum", integer=True),
    Spec("yaap", "K_YAAP", "yet another AP (Robertson's)"),
    Spec("rbp", "K_RBP", "rank-biased precision: (1 - p) sum of gain(i) p^(i - 1)", ptype="pairs",
         aliases=("RBP",), keywords=("rel",) + _RBP_KEYS, level=False, op_rel="K_RBP_BIN"),
    Spec("rbp_resid", "K_RBP_RESID", "RBP's residual: what the unjudged documents could add", ptype="pairs",
         keywords=_RBP_KEYS, level=False),
    _cuts("unj", "K_UNJ", "share of the top k without a judgment", default=(5.0, 10.0, 20.0), keywords=_NOREL,
          level=False),
    # irscore extensions (not trec_eval families)
    _cuts("dcg_cut", "K_DCG_CUT", "DCG at k", irm="DCG", keywords=_NOREL, level=False, extension=True,
          batch="K_DCG"),
    _cuts("judged", "K_JUDGED", "share of the top k with a judgment", default=(10.0,), keywords=_NOREL,
          level=False, extension=True),
    Spec("Judged", "K_JUDGED_RATE", "ir_measures' judgment rate: judged share of the top k (of the ranking)",
         cutoff="optional", keywords=_NOREL, level=False, extension=True),
    Spec("hits", "K_HITS", "ranx's hits: relevant documents in the top k, averaged", cutoff="optional",
         ranx=("hits",), extension=True),
    Spec("f1", "K_F1", "ranx's f1: 2 P R / (P + R) at k", cutoff="optional", ranx=("f1",), extension=True),
    _cuts("map_cut_min", "K_AP_MIN_K_R", "AP at k over min(k, R) (sentence-transformers' MAP@k)", irm="AP",
          extension=True),
    Spec("rbp_grade", "K_RBP_GRADE", "ranx's RBP: (1 - p) sum of grade(i) p^(i - 1)", ptype="pairs",
         ranx=("rbp",), keywords=_ALL + ("p",), extension=True),
    _cuts("ncg_cut", "K_NCG", "normalised cumulative gain at k: the positive grades of the top k summed, over the "
          "ideal ranking's", irm="NCG", keywords=_NOREL, level=False, empty="gain", extension=True),
    _cuts("hole", "K_HOLE", "BEIR's Hole: share of the top k (over k) that no query's judgments hold", irm="Hole",
          default=(1.0, 3.0, 5.0, 10.0, 100.0, 1000.0), keywords=_NOREL, level=False, extension=True),
)

BY_NAME: Dict[str, Spec] = {s.name: s for s in DECLARATIONS}


def op_code(member: Optional[str]) -> int:
    """The kernel's code of the op enum member ``member`` (``"K_NDCG_CUT"``); -1 for None.

    The one place that names the kernel's enum (the one op enum of the native
    measure library, which ``irscore._ranking`` and ``irscore._batch`` share): the
    op codes of every spec, ``op`` and ``batch`` alike, are looked up here."""
    if member is None:
        return -1
    return int(getattr(OpKind, member))


# ------------------------------------------------------------------ other grammars

@dataclass(frozen=True)
class XmlForm:
    """The names of one XML (INEX) measure family: a regular expression and the forms it reads."""

    family: str
    pattern: str
    forms: Tuple[str, ...]
    doc: str


XML_FORMS: Tuple[XmlForm, ...] = (
    XmlForm("xcg", r"^(XCG|nxCG|MAnxCG)@(\d+)$", ("XCG@k", "nxCG@k", "MAnxCG@k"), "cumulated gain of XML elements"),
    XmlForm("epgr", r"^(ep|gr)@(\d+)$", ("ep@k", "gr@k"), "effort-precision and gain-recall at rank k"),
    XmlForm("iep", r"^iep\[([0-9.]+)\]$", ("iep[x]",), "interpolated effort-precision at gain-recall x"),
    XmlForm("maep", r"^MAep$", ("MAep",), "mean average effort-precision"),
    XmlForm("hix", r"^hix([PRF])@(\d+)$", ("hixP@k", "hixR@k", "hixF@k"), "HiXEval precision, recall and F at k"),
    XmlForm("ip", r"^iP\[([0-9.]+)\]$", ("iP[x]",), "focused interpolated precision at recall x"),
    XmlForm("aip", r"^M?AiP$", ("AiP", "MAiP"), "(mean) average interpolated precision"),
    XmlForm("ng", r"^ng([PR])_([os])@(\d+)$", ("ngP_o@k", "ngR_o@k", "ngP_s@k", "ngR_s@k"),
            "generalised precision and recall (overlap, strict)"),
    XmlForm("precall", r"^Precall\[([0-9.]+)\]$", ("Precall[x]",), "precision at recall x (INEX 2002)"),
    XmlForm("inex_eval", r"^inex_eval$", ("inex_eval",), "inex_eval's averaged precision"),
    XmlForm("gp", r"^(gP|MAgP)_(RiC|BiC)(?:@(\d+))?$", ("gP_RiC@k", "MAgP_RiC", "gP_BiC@k", "MAgP_BiC"),
            "generalised precision of the Relevant in Context and Best in Context tasks"),
    XmlForm("gr_model", r"^GR@(\d+)$", ("GR@k",), "gain-recall of the GR model at k"),
    XmlForm("eprum", r"^EPRUM\[([0-9.]+)\]$", ("EPRUM[x]",), "EPRUM precision at recall x"),
    XmlForm("t2i", r"^T2I([PR])@(\d+)$", ("T2IP@k", "T2IR@k"), "tolerance-to-irrelevance precision and recall"),
)


@dataclass(frozen=True)
class DiversitySpec:
    """An intent-aware measure: its name, ndeval's and other spellings, cutoff rule and keywords."""

    name: str
    spellings: Tuple[str, ...]
    cutoff: str             # required | none
    keywords: Tuple[str, ...]
    doc: str
    registered: Tuple[str, ...] = ()    # other names irscore.evaluate reads it by (core.registry)


_DIV = ("alpha", "rel")
DIVERSITY: Tuple[DiversitySpec, ...] = (
    DiversitySpec("alpha_DCG", ("α_DCG", "alpha-DCG"), "required", _DIV, "DCG with redundancy-discounted intent gains"),
    DiversitySpec("alpha_nDCG", ("α_nDCG", "alpha-nDCG"), "required", _DIV, "alpha-DCG over the ideal's"),
    DiversitySpec("ERR_IA", ("ERR-IA",), "required", _DIV, "intent-aware expected reciprocal rank"),
    DiversitySpec("nERR_IA", ("nERR-IA",), "required", _DIV, "ERR-IA over the ideal's"),
    DiversitySpec("P_IA", ("P-IA",), "required", _DIV, "intent-aware precision at k"),
    DiversitySpec("StRecall", ("strec",), "required", _DIV, "subtopic recall: share of the intents covered in the top k"),
    DiversitySpec("NRBP", (), "none", _DIV + ("beta",), "novelty- and rank-biased precision"),
    DiversitySpec("nNRBP", (), "none", _DIV + ("beta",), "NRBP over the ideal's"),
    DiversitySpec("AP_IA", ("MAP_IA", "MAP-IA"), "none", _DIV, "intent-aware average precision",
                  registered=("MAP_IA",)),
)
