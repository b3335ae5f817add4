import numpy as np
from numpy.typing import NDArray

def diversity(
    rel: NDArray[np.int32], offsets: NDArray[np.int64], row_off: NDArray[np.int64], int_off: NDArray[np.int64],
    intent: NDArray[np.int32], grade: NDArray[np.int32], n_intents: NDArray[np.int64], level: int, alpha: float,
    beta: float, cutoffs: NDArray[np.int64], need_nrbp: bool, whole: bool,
    out: NDArray[np.float64],
) -> None: ...
def row_grades(
    rows: NDArray[np.int32], offsets: NDArray[np.int64], row_start: NDArray[np.int64], row_count: NDArray[np.int64],
    row_code: NDArray[np.int32], out: NDArray[np.int32],
) -> None: ...
