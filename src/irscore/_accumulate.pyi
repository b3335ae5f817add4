import numpy as np
from numpy.typing import NDArray

N_LIMBS: int
BIAS: int

def add(
    values: tuple[NDArray[np.float64], ...], limbs: NDArray[np.int64], running: NDArray[np.float64],
    counts: NDArray[np.int64], skip_nan: bool,
) -> None: ...
def normalize(limbs: NDArray[np.int64]) -> None: ...
