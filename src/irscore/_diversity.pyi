import numpy as np
from numpy.typing import NDArray

def diversity(
    offsets: NDArray[np.int64], judged_off: NDArray[np.int64], judged_pos: NDArray[np.int64],
    judged_row: NDArray[np.int32], row_off: NDArray[np.int64], int_off: NDArray[np.int64],
    intent: NDArray[np.int32], grade: NDArray[np.int32], n_intents: NDArray[np.int64], level: int, alpha: float,
    beta: float, cutoffs: NDArray[np.int64], need_nrbp: bool, whole: bool,
    out: NDArray[np.float64], q_lo: int = ..., q_hi: int = ...,
) -> None: ...
