from typing import Tuple

import numpy as np
from numpy.typing import NDArray

BOUNDSCHECK: bool

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
) -> Tuple[int, int]: ...
