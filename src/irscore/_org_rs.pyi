"""Stub for the Reliability & Sensitivity kernel (csrc/irscore/_org_rs.pyx)."""
import numpy as np
import numpy.typing as npt

from irscore._org_core import Side

def rs_side(
    x: Side,
    g: Side,
    n_docs: int,
    out_priority: npt.NDArray[np.float64],
    out_relatedness: npt.NDArray[np.float64],
    *,
    c: float,
    uniform: bool,
    foreign_tail: bool,
    pairwise: bool = ...,
) -> None: ...
