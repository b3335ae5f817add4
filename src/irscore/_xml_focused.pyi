"""Type stub for the compiled focused retrieval kernels (csrc/irscore/_xml_focused.pyx)."""
from typing import TypedDict, type_check_only

import numpy as np
import numpy.typing as npt

_I64 = npt.NDArray[np.int64]
_F64 = npt.NDArray[np.float64]

#: a span set: (off, doc, start, end), CSR over topics
_Spans = tuple[_I64, _I64, _I64, _I64]
#: assessed elements: (off, doc, start, end, q)
_Elements = tuple[_I64, _I64, _I64, _I64, _F64]

@type_check_only
class FocusedParams(TypedDict):
    ndocs: int
    alpha_hix: float
    alpha_xcg: float
    seen_mode: int

def focused_pass(
    run: _Spans, hl: _Spans, el: _Elements, ideal: _Spans, el_rsize: _F64, params: FocusedParams,
    out_int: _I64, out_float: _F64,
) -> None: ...
def hixeval_at(run_off: _I64, rval: _F64, size: _I64, trel: _F64, cutoffs: _I64, out_p: _F64, out_r: _F64) -> None: ...
def interpolated_precision(
    run_off: _I64, rel: _I64, size: _I64, trel: _I64, npoints: int, bucketing: int, out_ip: _F64,
) -> None: ...
def check_nesting(el: _Spans) -> tuple[int, int, int]: ...
def ideal_elements(el: _Elements, rule: int, out_keep: _I64) -> None: ...
