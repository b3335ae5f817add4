import numpy as np
from numpy.typing import NDArray

def curve_lengths(
    rel: NDArray[np.int32], offsets: NDArray[np.int64], condensed: bool, pad_to: int, out: NDArray[np.int64],
) -> None: ...
def curves(
    rel: NDArray[np.int32], offsets: NDArray[np.int64], levels: NDArray[np.int64], level: int,
    condensed: bool, out_off: NDArray[np.int64], rp: NDArray[np.int64], crp: NDArray[np.int64],
) -> None: ...
def scalars(
    rel: NDArray[np.int32], offsets: NDArray[np.int64], levels: NDArray[np.int64], level: int,
    condensed: bool, pad_to: int, matters: bool, out: NDArray[np.float64],
) -> None: ...
