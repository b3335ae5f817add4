"""Measure families computed outside the trec_eval kernel (Rocchio, CRP, ...):
their names and their declared parameters.

The core declares every such family here, once: each name, the keyword
parameters it accepts (`Param`: name, type, default, allowed values),
how it aggregates and whether it takes a cutoff.  Names are parsed
([`parse_measure`][irscore.core.measures.parse_measure]) from these declarations alone, without importing any
family.  Values are computed by `family_values`, which hands the typed
parameters to the function that the family computing the measure's *group*
registered in `irscore.core.plugins` (``compute_measure(joined,
name, params, level, cache)``).  The core never names the family that computes
a group, not even as a string: the families register themselves.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Tuple

import numpy as np

from irscore.core.checks import parse_bool, parse_int
from irscore.core.plugins import compute_function
from irscore.core.specs import DIVERSITY

if TYPE_CHECKING:  # pragma: no cover
    from irscore.core.joined import Joined, ResultCache
    from irscore.core.measures import Measure

__all__ = ["Param", "ExtFamily", "EXTERNAL", "ROCCHIO_MEASURES", "CRP_MEASURES", "CRP_SUMMARIES", "family_values",
           "ROCCHIO_GROUP", "CRP_GROUP", "WEBTRACK_GROUP", "USERMODEL_GROUP", "DIVERSITY_GROUP"]


@dataclass(frozen=True)
class Param:
    """One keyword parameter of a measure name, e.g. ``N`` in ``Rnorm(N=1000)``.

    ``kind``: ``"int"``, ``"float"``, ``"bool"`` or ``"choice"`` (one of ``choices``);
    ``default``: the value when the name does not give it (``None``: the
    family decides, e.g. the evaluation's relevance level); ``minimum``: the
    smallest allowed integer; ``bounds``: the open interval a float lies in.
    """

    name: str
    kind: str
    default: Any = None
    choices: Tuple[str, ...] = ()
    minimum: Optional[int] = None
    doc: str = ""
    bounds: Tuple[float, float] = (0.0, float("inf"))

    def parse(self, value: Any, where: str) -> Any:
        """The typed value of ``value`` (a string from a measure name, or a value)."""
        what = f"{where}: {self.name}"
        if self.kind == "int":
            v = parse_int(value, what)
            if self.minimum is not None and v < self.minimum:
                rule = "positive" if self.minimum == 1 else f">= {self.minimum}"
                raise ValueError(f"{what} must be {rule}, got {v}")
            return v
        if self.kind == "float":
            try:
                x = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"{what} must be a number, got {value!r}") from None
            lo, hi = self.bounds
            if not (lo < x < hi):
                raise ValueError(f"{what} must lie in ({lo:g}, {hi:g}), got {x!r}")
            return x
        if self.kind == "bool":
            return parse_bool(value, what)
        if value not in self.choices:
            raise ValueError(f"{what} must be one of {', '.join(self.choices)}; got {value!r}")
        return str(value)


@dataclass(frozen=True)
class ExtFamily:
    """A measure family computed outside the trec_eval kernel.

    ``group``: the measures one registered function computes
    (`irscore.core.plugins`); ``params`` are the
    keyword parameters the name may carry; ``agg``: ``"nanmean"`` (mean over
    the queries where the value is defined) or ``"mean"``; ``cutoff``: whether
    ``@k`` is allowed.
    """

    name: str
    group: str
    params: Tuple[Param, ...] = ()
    agg: str = "nanmean"
    cutoff: bool = False
    cutoff_required: bool = False

    @property
    def param_names(self) -> Tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def parse_params(self, pairs: Sequence[Tuple[str, Any]], where: Optional[str] = None) -> Dict[str, Any]:
        """Every declared parameter with its typed value (defaults filled in)."""
        where = where or self.name
        given = dict(pairs)
        unknown = sorted(set(given) - set(self.param_names))
        if unknown:
            raise ValueError(f"measure {where}: unknown parameter(s) {unknown} (known: {', '.join(self.param_names)})")
        return {p.name: (p.parse(given[p.name], where) if p.name in given else p.default) for p in self.params}


_REL = Param("rel", "int", None, minimum=0, doc="relevance level of this measure (default: the evaluation's)")

ROCCHIO_MEASURES: Tuple[str, ...] = ("Rnorm", "Pnorm", "rank_recall", "log_precision", "scaled_recall")
ROCCHIO_PARAMS: Tuple[Param, ...] = (
    Param("N", "int", None, minimum=1, doc="collection size"),
    Param("variant", "choice", "default", ("default", "smart1966")),
    Param("graded", "bool", False),
    _REL,
)
CRP_MEASURES: Tuple[str, ...] = ("CRP_loss", "CRP_worst_loss", "CRP_recovery", "CRP_balance", "CRP_turnaround")
# computed from the curves (MATTERS' sigma and tau summaries), not by the scalar kernel
CRP_SUMMARIES: Tuple[str, ...] = ("CRP_sigma", "CRP_tau")
CRP_PARAMS: Tuple[Param, ...] = (
    Param("variant", "choice", "default", ("default", "matters")),
    Param("unjudged", "choice", "nonrel", ("nonrel", "condensed")),
    Param("pad_to", "int", None, minimum=0),
    _REL,
)

# TREC Web track (gdeval) cascade measures: docs/web_diversity.md
WEBTRACK_MEASURES: Tuple[str, ...] = ("ERR", "nERR")
WEBTRACK_PARAMS: Tuple[Param, ...] = (
    Param("max_rel", "int", 4, minimum=1, doc="largest grade of the scale (gdeval: 4)"),
)
# C/W/L user models (cwl_eval) and compatibility: docs/user_models.md
_MIN_REL = Param("min_rel", "int", 0, minimum=0, doc="grade of gain 0")
_MAX_REL = Param("max_rel", "int", None, minimum=1, doc="grade of gain 1 (default: the largest judged grade)")
_DEPTH = Param("depth", "int", 1000, minimum=1, doc="positions of the C/W/L model (cwl_eval: 1000)")
_T = Param("T", "float", 1.0, doc="total gain the user wants")
USERMODEL_PARAMS: Dict[str, Tuple[Param, ...]] = {
    "INST": (_T, _MIN_REL, _MAX_REL, _DEPTH),
    "INSQ": (_T, _MIN_REL, _MAX_REL, _DEPTH),
    "BPM": (_T, _MIN_REL, _MAX_REL, _DEPTH),
    "SDCG": (_MIN_REL, _MAX_REL, _DEPTH),
    "NERR8": (_MIN_REL, _MAX_REL, _DEPTH),
    "NERR9": (_MIN_REL, _MAX_REL, _DEPTH),
    "NERR10": (Param("p", "float", 0.9, bounds=(0.0, 1.0), doc="persistence"), _MIN_REL, _MAX_REL, _DEPTH),
    "NERR11": (_T, _MIN_REL, _MAX_REL, _DEPTH),
    "Compat": (Param("p", "float", 0.95, bounds=(0.0, 1.0), doc="persistence"),
               Param("normalize", "bool", True)),
}

_CUT = ("BPM", "SDCG", "NERR8", "NERR9")
# ndeval's intent-aware measures (need a DiversityQrels): docs/web_diversity.md
_ALPHA = Param("alpha", "float", 0.5, bounds=(-1e-300, 1.0 + 1e-12), doc="redundancy intolerance")
_BETA = Param("beta", "float", 0.5, bounds=(-1e-300, 1.0), doc="patience (NRBP)")
# the intent-aware measures by their cutoff rule (declared in irscore.core.specs.DIVERSITY, with
# the names irscore.evaluate reads besides its own: MAP_IA, ir_measures' name of AP_IA)
DIVERSITY_CUTOFF_MEASURES: Tuple[str, ...] = tuple(n for d in DIVERSITY if d.cutoff == "required"
                                                   for n in (d.name, *d.registered))
DIVERSITY_WHOLE_MEASURES: Tuple[str, ...] = tuple(n for d in DIVERSITY if d.cutoff == "none"
                                                  for n in (d.name, *d.registered))

# The groups: the measures one registered function computes (irscore.core.plugins)
ROCCHIO_GROUP = "Rocchio"
CRP_GROUP = "CRP"
WEBTRACK_GROUP = "ERR"
USERMODEL_GROUP = "user models"
DIVERSITY_GROUP = "intent-aware"

# The core-level table: every registered family, in a fixed order.
EXTERNAL: Dict[str, ExtFamily] = {
    **{n: ExtFamily(n, ROCCHIO_GROUP, ROCCHIO_PARAMS) for n in ROCCHIO_MEASURES},
    **{n: ExtFamily(n, CRP_GROUP, CRP_PARAMS) for n in CRP_MEASURES + CRP_SUMMARIES},
    **{n: ExtFamily(n, WEBTRACK_GROUP, WEBTRACK_PARAMS, cutoff=True) for n in WEBTRACK_MEASURES},
    **{n: ExtFamily(n, USERMODEL_GROUP, ps, cutoff=n in _CUT, cutoff_required=n in _CUT)
       for n, ps in USERMODEL_PARAMS.items()},
    **{n: ExtFamily(n, DIVERSITY_GROUP, (_ALPHA, _REL), agg="mean", cutoff=True, cutoff_required=True)
       for n in DIVERSITY_CUTOFF_MEASURES},
    **{n: ExtFamily(n, DIVERSITY_GROUP, (_ALPHA, _BETA, _REL) if "NRBP" in n else (_REL,), agg="mean")
       for n in DIVERSITY_WHOLE_MEASURES},
}


def family_values(joined: "Joined", measure: "Measure", level: int, cache: "ResultCache") -> np.ndarray:
    """One float64 value per query of ``joined`` for a registered measure."""
    fam = EXTERNAL[measure.family]
    params = fam.parse_params(measure.extra, str(measure))
    if fam.cutoff:
        params["cutoff"] = None if measure.cutoff is None else int(measure.cutoff)
    compute = compute_function(fam.group)
    values = np.asarray(compute(joined, fam.name, params, level, cache), dtype=np.float64)
    nq = len(joined.query_ids)
    if values.shape != (nq,):
        raise RuntimeError(f"measure {measure}: expected {nq} values, got shape {values.shape}")
    return values
