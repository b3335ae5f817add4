import numpy as np
from numpy.typing import NDArray

def sign_flip(
    values: NDArray[np.float64], offsets: NDArray[np.int64], n_resamples: int, seed: int,
    out_p: NDArray[np.float64], out_exact: NDArray[np.int8],
) -> None: ...
def bootstrap(
    values: NDArray[np.float64], offsets: NDArray[np.int64], n_resamples: int, seed: int,
    out_mean: NDArray[np.float64], out_t: NDArray[np.float64],
) -> None: ...
def bootstrap_count(
    values: NDArray[np.float64], offsets: NDArray[np.int64], n_resamples: int, seed: int,
    threshold: NDArray[np.float64], out_mean: NDArray[np.float64], out_count: NDArray[np.int64],
) -> None: ...
def tukey_range(
    scores: NDArray[np.float64], n_resamples: int, seed: int, out_range: NDArray[np.float64],
) -> None: ...
