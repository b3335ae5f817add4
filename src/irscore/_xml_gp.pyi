"""Type stub for the compiled gP / MAgP kernels (csrc/irscore/_xml_gp.pyx)."""
from typing import TypedDict, type_check_only

import numpy as np
import numpy.typing as npt

_I64 = npt.NDArray[np.int64]
_F64 = npt.NDArray[np.float64]

#: a span set: (off, doc, start, end), CSR over topics
_Spans = tuple[_I64, _I64, _I64, _I64]

@type_check_only
class GpParams(TypedDict):
    ndocs: int
    task: int
    beta: float
    bep_distance: int

def gp_measures(
    run: tuple[_I64, _I64, _I64, _F64, _F64], hl: _Spans, bep: tuple[_I64, _I64, _I64], params: GpParams,
    cutoffs: _I64, out_gp: _F64, out_magp: _F64, out_valid: _I64,
) -> None: ...
def gp_inex2008(
    run: tuple[_I64, _I64, _I64, _I64, _I64], relevant: tuple[_I64, _I64, _I64], bep: tuple[_I64, _I64, _I64],
    params: GpParams, cutoffs: _I64, out_gp: _F64, out_agp: _F64, out_warn: _I64,
) -> None: ...
