"""Stub for the compiled Reliability & Sensitivity kernels (csrc/irscore/_organization.pyx)."""
import numpy as np
import numpy.typing as npt

def rs_side(
    x_ptr: npt.NDArray[np.int64],
    x_doc: npt.NDArray[np.int32],
    x_level: npt.NDArray[np.int32],
    x_cluster: npt.NDArray[np.int32],
    g_ptr: npt.NDArray[np.int64],
    g_doc: npt.NDArray[np.int32],
    g_level: npt.NDArray[np.int32],
    g_cluster: npt.NDArray[np.int32],
    n_docs: int,
    c: float,
    uniform: bool,
    foreign_tail: bool,
    out_priority: npt.NDArray[np.float64],
    out_relatedness: npt.NDArray[np.float64],
    pairwise: bool = ...,
) -> None: ...
def extended_bcubed_side(
    x_ptr: npt.NDArray[np.int64],
    x_doc: npt.NDArray[np.int32],
    x_cluster: npt.NDArray[np.int32],
    g_ptr: npt.NDArray[np.int64],
    g_doc: npt.NDArray[np.int32],
    g_cluster: npt.NDArray[np.int32],
    n_docs: int,
    out: npt.NDArray[np.float64],
    pairwise: bool = ...,
) -> None: ...
def release_scratch() -> None: ...
def _scratch_test_mode(on: bool) -> None: ...
