"""Measure families computed outside the trec_eval kernel (Rocchio, CRP, ...):
their names, their declared parameters and where their kernels live.

The core declares every such family here, once: each name, the keyword
parameters it accepts (:class:`Param`: name, type, default, allowed values) and
the family module that computes it.  Names are parsed (:func:`irscore.core.
measures.parse_measure`) from these declarations alone, without importing any
family.  Values are computed by :func:`family_values`, which hands the typed
parameters to the family module's ``compute_measure(joined, name, params,
level, cache)``; that module imports only the core, so the import graph has no
cycle (the core names the module, it never imports it at import time).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Tuple

import numpy as np

from irscore.core.checks import parse_bool, parse_int

if TYPE_CHECKING:  # pragma: no cover
    from irscore.core.joined import Joined, ResultCache
    from irscore.core.measures import Measure

__all__ = ["Param", "ExtFamily", "EXTERNAL", "ROCCHIO_MEASURES", "CRP_MEASURES", "CRP_SUMMARIES", "family_values"]


@dataclass(frozen=True)
class Param:
    """One keyword parameter of a measure name, e.g. ``N`` in ``Rnorm(N=1000)``.

    ``kind``: ``"int"``, ``"bool"`` or ``"choice"`` (one of ``choices``);
    ``default``: the value when the name does not give it (``None``: the
    family decides, e.g. the evaluation's relevance level); ``minimum``: the
    smallest allowed integer.
    """

    name: str
    kind: str
    default: Any = None
    choices: Tuple[str, ...] = ()
    minimum: Optional[int] = None
    doc: str = ""

    def parse(self, value: Any, where: str) -> Any:
        """The typed value of ``value`` (a string from a measure name, or a value)."""
        what = f"{where}: {self.name}"
        if self.kind == "int":
            v = parse_int(value, what)
            if self.minimum is not None and v < self.minimum:
                rule = "positive" if self.minimum == 1 else f">= {self.minimum}"
                raise ValueError(f"{what} must be {rule}, got {v}")
            return v
        if self.kind == "bool":
            return parse_bool(value, what)
        if value not in self.choices:
            raise ValueError(f"{what} must be one of {', '.join(self.choices)}; got {value!r}")
        return str(value)


@dataclass(frozen=True)
class ExtFamily:
    """A measure family computed outside the trec_eval kernel.

    ``module`` computes it (its ``compute_measure``); ``params`` are the
    keyword parameters the name may carry; ``agg``: ``"nanmean"`` (mean over
    the queries where the value is defined) or ``"mean"``; ``cutoff``: whether
    ``@k`` is allowed.
    """

    name: str
    module: str
    params: Tuple[Param, ...] = ()
    agg: str = "nanmean"
    cutoff: bool = False

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

# The core-level table: every registered family, in a fixed order.
EXTERNAL: Dict[str, ExtFamily] = {
    **{n: ExtFamily(n, "irscore.rocchio", ROCCHIO_PARAMS) for n in ROCCHIO_MEASURES},
    **{n: ExtFamily(n, "irscore.crp", CRP_PARAMS) for n in CRP_MEASURES + CRP_SUMMARIES},
}


def family_values(joined: "Joined", measure: "Measure", level: int, cache: "ResultCache") -> np.ndarray:
    """One float64 value per query of ``joined`` for a registered measure."""
    fam = EXTERNAL[measure.family]
    params = fam.parse_params(measure.extra, str(measure))
    module = importlib.import_module(fam.module)
    values = np.asarray(module.compute_measure(joined, fam.name, params, level, cache), dtype=np.float64)
    nq = len(joined.query_ids)
    if values.shape != (nq,):
        raise RuntimeError(f"measure {measure}: expected {nq} values, got shape {values.shape}")
    return values
