import numpy as np
from numpy.typing import NDArray

def min_collection_size(
    rel: NDArray[np.int32], offsets: NDArray[np.int64], levels: NDArray[np.int64], out: NDArray[np.int64],
) -> None: ...
def rocchio(
    rel: NDArray[np.int32], scores: NDArray[np.float64], offsets: NDArray[np.int64],
    levels: NDArray[np.int64], n_docs: NDArray[np.int64], level: int, graded: bool, smart1966: bool,
    out: NDArray[np.float64],
) -> None: ...
