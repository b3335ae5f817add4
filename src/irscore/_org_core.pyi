"""Stub for the organization kernels' shared module (csrc/irscore/_org_core.pyx): the
``Side`` arrays type and the scratch cache of _org_rs and _org_bcubed."""
import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

@disjoint_base
class Side:
    """One side of an organization as CSR arrays over its topics: ``ptr`` (int64,
    n_topics + 1 offsets), ``doc``, ``level``, ``cluster`` (int32, one per occurrence)."""

    def __init__(
        self,
        ptr: npt.NDArray[np.int64],
        doc: npt.NDArray[np.int32],
        level: npt.NDArray[np.int32],
        cluster: npt.NDArray[np.int32],
    ) -> None: ...
    @property
    def n_topics(self) -> int: ...

def release_scratch() -> None: ...
def _scratch_test_mode(on: bool) -> None: ...
