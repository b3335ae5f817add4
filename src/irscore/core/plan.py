"""Compilation of measures into kernel ops: `compile_plan` turns
(key, [`Measure`][irscore.core.measures.Measure]) pairs into the op arrays of
``irscore._ranking.compute`` (one op per measure), `op_params` and
`op_kind` give one measure's op."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Sequence, Tuple

from irscore._ranking import DISCOUNT_KINDS, GAIN_KINDS, OpFlag
from irscore.core.checks import MAX_LEVEL
from irscore.core.measures import EXT_PSEUDO, FAMILIES, Family, Measure
from irscore.core.names import parse_pairs as _parse_pairs
from irscore.core.specs import BY_NAME, op_code

__all__ = ["Output", "Plan", "op_params", "op_kind", "compile_plan"]


@dataclass
class Output:
    key: str            # result key
    family: Family
    column: int         # column in the kernel output (-1: none)
    measure: Measure


@dataclass
class Plan:
    kinds: List[int] = field(default_factory=list)
    levels: List[int] = field(default_factory=list)
    cols: List[int] = field(default_factory=list)
    par_off: List[int] = field(default_factory=lambda: [0])
    params: List[float] = field(default_factory=list)
    outputs: List[Output] = field(default_factory=list)
    ncols: int = 0


def op_params(m: Measure, num_docs_in_coll: float) -> Tuple[List[float], int]:
    """Kernel parameters and output width of one single-valued measure."""
    f = FAMILIES[m.family]
    if m.family == "dcg_cut":
        norm = float(dict(m.extra).get("normalize", "1"))
        k = m.cutoff if m.cutoff is not None else float(2 ** 62)
        return [norm, float(GAIN_KINDS[m.gain]), float(DISCOUNT_KINDS[m.discount]), k], 1
    if f.name == "ndcg_cut" and m.params:       # nDCG(gains={...})@k: [k, grade, gain, ...]
        assert m.cutoff is not None
        return [m.cutoff] + [v for k, g in _parse_pairs(m.params, str(m), "ndcg") for v in (float(k), g)], 1
    if f.ptype in ("long_cuts", "float_cuts"):
        assert m.cutoff is not None
        return [m.cutoff], 1
    if f.opt_cutoff:
        return ([m.cutoff] if m.cutoff is not None else []), 1
    if f.name == "utility":
        vals = [float(x) for x in m.params.split(",")] if m.params else list(f.default)
        return vals + [float(num_docs_in_coll)], 1
    if f.name == "11pt_avg":
        vals = sorted(float(x) for x in m.params.split(",")) if m.params else list(f.default)
        return vals, 1
    if f.name == "set_F":
        vals = [float(m.params.split(",")[0])] if m.params else list(f.default)
        return vals, 1
    if f.ptype == "pairs":
        pairs = _parse_pairs(m.params, str(m), f.name) if m.params else []
        p = 0.9
        flat: List[float] = []
        for pname, pval in pairs:
            if pname == "p":
                p = pval
                continue
            if re.match(r"^[+-]?[0-9]+$", pname):
                flat += [float(int(pname)), pval]
        if f.name in ("rbp", "rbp_resid", "rbp_grade"):
            if not 0.0 <= p < 1.0:
                raise ValueError(f"measure {m}: persistence p must be in [0, 1)")
            return ([p] + flat) if f.name == "rbp" and m.rel is None else [p], 1
        return flat, 1
    return [], 1


def op_kind(m: Measure) -> int:
    """The kernel op kind of one single-valued measure of a trec_eval family."""
    spec = BY_NAME[m.family]
    kind = FAMILIES[m.family].kind
    if m.params and spec.op_params is not None:     # nDCG(gains={...})@k
        kind = op_code(spec.op_params)
    elif m.rel is not None and spec.op_rel is not None:     # RBP(rel=2): binary
        kind = op_code(spec.op_rel)
    if m.judged_only:
        kind |= int(OpFlag.F_JUDGED_ONLY)
    return kind


def compile_plan(measures: Sequence[Tuple[str, Measure]], level: int, num_docs_in_coll: float) -> Plan:
    """Kernel ops for (key, measure) pairs; one op per measure."""
    plan = Plan()
    for key, m in measures:
        if m.family not in FAMILIES:
            plan.outputs.append(Output(key, EXT_PSEUDO, -1, m))
            continue
        f = FAMILIES[m.family]
        if f.kind < 0:
            plan.outputs.append(Output(key, f, -1, m))
            continue
        params, width = op_params(m, num_docs_in_coll)
        lv = level if m.rel is None else m.rel
        if abs(lv) > MAX_LEVEL:
            raise ValueError(f"relevance level {lv} of measure {key!r} is out of range (|level| <= 2**62)")
        plan.kinds.append(op_kind(m))
        plan.levels.append(level if m.rel is None else m.rel)
        plan.cols.append(plan.ncols)
        plan.params.extend(params)
        plan.par_off.append(len(plan.params))
        plan.outputs.append(Output(key, f, plan.ncols, m))
        plan.ncols += width
    return plan
