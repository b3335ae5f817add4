"""Stub for the extended BCubed kernel (csrc/irscore/_org_bcubed.pyx)."""
import numpy as np
import numpy.typing as npt

from irscore._org_core import Side

def extended_bcubed_side(
    x: Side,
    g: Side,
    n_docs: int,
    out: npt.NDArray[np.float64],
    *,
    pairwise: bool = ...,
) -> None: ...
