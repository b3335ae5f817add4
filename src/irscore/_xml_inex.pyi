"""Type stub for the compiled INEX kernels (csrc/irscore/_xml_inex.pyx)."""
import numpy as np
import numpy.typing as npt

_I64 = npt.NDArray[np.int64]
_F64 = npt.NDArray[np.float64]

#: a span set: (off, doc, start, end), CSR over topics
_Spans = tuple[_I64, _I64, _I64, _I64]

def pairwise_sum(a: _F64) -> float: ...
def precall_published(
    run_off: _I64, q: _F64, score: _F64, total: _F64, collection_size: _F64, ties: int, npoints: int,
    out_pre: _F64, out_mean: _F64,
) -> None: ...
def ng_at(
    run_off: _I64, exh: _F64, spe: _F64, size: _F64, w: _F64, tot_exh: _F64, cutoffs: _I64, out_p: _F64, out_r: _F64,
) -> None: ...
def t2i_at(
    run: _Spans, hl: _Spans, doclen: _I64, ndocs: int, tolerance: int, cutoffs: _I64,
    out_p: _F64, out_r: _F64, out_valid: _I64,
) -> None: ...
def segment_sums(off: _I64, values: _F64, out: _F64) -> None: ...
def precall_reprec_at(
    run_off: _I64, q: _F64, score: _F64, total: _F64, collection_size: _F64, ties: int, npoints: int, out_pre: _F64,
) -> None: ...
def row_means(a: _F64, out: _F64) -> None: ...
