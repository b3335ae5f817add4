"""Stub for the organization kernels' shared module (csrc/irscore/_org_core.pyx): the
``Side`` arrays type and the scratch cache of _org_rs and _org_bcubed."""
from typing import Any

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
    # the arrays, read-only (typed memoryviews: numpy.asarray gives the array)
    @property
    def ptr(self) -> Any: ...
    @property
    def doc(self) -> Any: ...
    @property
    def level(self) -> Any: ...
    @property
    def cluster(self) -> Any: ...
    @property
    def n_topics(self) -> int: ...

def release_scratch() -> None: ...
def _scratch_test_mode(on: bool) -> None: ...
