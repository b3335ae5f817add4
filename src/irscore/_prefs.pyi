import numpy as np
from numpy.typing import NDArray

N_OUT: int

def counts(
    q_off: NDArray[np.int64], jg: NDArray[np.int64], jsg: NDArray[np.int64], level: NDArray[np.float64],
    rank: NDArray[np.int64], n_judged: NDArray[np.int64], n_judged_ret: NDArray[np.int64],
    out: NDArray[np.float64], status: NDArray[np.int64], bad_jg: NDArray[np.int64],
) -> None: ...
