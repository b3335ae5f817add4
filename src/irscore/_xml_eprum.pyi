"""Type stub for the compiled GR / EPRUM kernel (csrc/irscore/_xml_eprum.pyx)."""
from typing import TypedDict, type_check_only

import numpy as np
import numpy.typing as npt

_I64 = npt.NDArray[np.int64]
_F64 = npt.NDArray[np.float64]

#: a span set: (off, doc, start, end), CSR over topics
_Spans = tuple[_I64, _I64, _I64, _I64]

@type_check_only
class Navigation(TypedDict):
    ndocs: int
    p_ancestor: float
    p_descendant: float
    p_sibling: float

def eprum_measures(
    run: _Spans, ideal: _Spans, ideal_gain: _F64, nav: Navigation, pairs: tuple[_I64, _F64],
    cutoffs: _I64, levels: _F64, out_gr: _F64, out_ep: _F64, out_valid: _I64,
) -> None: ...
