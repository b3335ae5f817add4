import numpy as np
from numpy.typing import NDArray

def err(
    rel: NDArray[np.int32], offsets: NDArray[np.int64], levels: NDArray[np.int64], cutoff: int, max_rel: int,
    out_err: NDArray[np.float64], out_nerr: NDArray[np.float64],
) -> None: ...
def cwl(
    rel: NDArray[np.int32], offsets: NDArray[np.int64], levels: NDArray[np.int64], measure: str, T: float,
    cutoff: int, min_rel: int, max_rel: int, depth: int, out: NDArray[np.float64],
) -> None: ...
def compat(
    rel: NDArray[np.int32], offsets: NDArray[np.int64], levels: NDArray[np.int64], p: float, normalize: bool,
    out: NDArray[np.float64],
) -> None: ...
