"""Type stub for the compiled XCG kernels (csrc/irscore/_xml_xcg.pyx)."""
import numpy as np
import numpy.typing as npt

_I64 = npt.NDArray[np.int64]
_F64 = npt.NDArray[np.float64]

#: a span set: (off, doc, start, end), CSR over topics
_Spans = tuple[_I64, _I64, _I64, _I64]
#: values per topic: (off, values), CSR over topics
_Values = tuple[_I64, _F64]

def xcg_cap(run_off: _I64, ideal_of: _I64, ideal_gain: _F64, gain: _F64) -> None: ...
def xcg_passage_cap(
    run: _Spans, ideal: _Spans, ideal_gain: _F64, ndocs: int, alpha: float, gain: _F64, out_first: _I64,
) -> None: ...
def xcg_measures(
    run: _Values, count_rank: _I64, ideal: _Values, cutoffs: _I64, npoints: int, maep_mode: int,
    out_xcg: _F64, out_nxcg: _F64, out_maep: _F64, out_iep: _F64,
) -> None: ...
def ep_gr_curve(gain: _F64, ideal_sorted: _F64, out_ep: _F64, out_gr: _F64) -> None: ...
def epgr_at(run: _Values, ideal: _Values, cutoffs: _I64, out_ep: _F64, out_gr: _F64) -> None: ...
