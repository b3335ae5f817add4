import enum
from typing import Dict, Iterable, Optional, Tuple

import numpy as np
from numpy.typing import NDArray
from typing_extensions import disjoint_base

from irscore._measurelib import OpKind as OpKind

BOUNDSCHECK: bool
GAIN_KINDS: Dict[str, int]
DISCOUNT_KINDS: Dict[str, int]

class Ties(enum.IntEnum):
    TIES_TREC = 0
    TIES_INPUT = 1
    TIES_AVERAGE = 2

class Error(enum.IntEnum):
    E_OK = 0
    E_LABEL = 1
    E_NREL = 2
    E_EXPGAIN = 3
    E_ORDER = 4

def _set_fast_paths(on: bool) -> bool: ...

SIMD_LEVELS: Dict[str, int]

def _simd_level() -> Tuple[int, int]: ...
def _set_simd_level(level: int) -> int: ...
def _simd_level_for(features: Iterable[str]) -> int: ...

_VP2I_BUILT: bool


def evaluate_rows(
    scores: NDArray[np.float32] | NDArray[np.float64],
    labels: NDArray[np.int8] | NDArray[np.int16] | NDArray[np.int32] | NDArray[np.int64]
    | NDArray[np.uint8] | NDArray[np.float32] | NDArray[np.float64],
    starts: NDArray[np.int64], lens: NDArray[np.int64], q0: int, q1: int,
    op_kind: NDArray[np.int32], op_k: NDArray[np.int64], op_thr: NDArray[np.float64],
    op_gain: NDArray[np.int32], op_disc: NDArray[np.int32],
    tie_mode: int, default_thr: float, extra_label: float,
    nrel_mode: int, nrel1: NDArray[np.int64], nrel2: NDArray[np.int64],
    out: NDArray[np.float64],
    order_off: Optional[NDArray[np.int64]] = None, order: Optional[NDArray[np.int64]] = None,
) -> Tuple[int, int]: ...

@disjoint_base
class Kernel:
    def __init__(self, op_kind: NDArray[np.int32], op_k: NDArray[np.int64], op_thr: NDArray[np.float64],
                 op_gain: NDArray[np.int32], op_disc: NDArray[np.int32], tie_mode: int) -> None: ...
    def dense(self, scores: NDArray[np.float32] | NDArray[np.float64], labels: np.ndarray, default_thr: float,
              out: NDArray[np.float64]) -> Tuple[int, int, bool]: ...

@disjoint_base
class Dense:
    neg: bool
    def __init__(self, ki: Kernel, kf: Kernel, thr_i: float, thr_f: float, keys: Tuple[str, ...],
                 max_cells: int) -> None: ...
    def run(self, scores: object, labels: object) -> Optional[Dict[str, NDArray[np.float64]]]: ...
