from typing import Dict

import numpy as np
from numpy.typing import NDArray

from irscore._measurelib import OpFlag as OpFlag
from irscore._measurelib import OpKind as OpKind

BOUNDSCHECK: bool
GAIN_KINDS: Dict[str, int]
DISCOUNT_KINDS: Dict[str, int]


def compute(
    rel: NDArray[np.int32], ret_off: NDArray[np.int64], levels: NDArray[np.int64],
    op_kind: NDArray[np.int32], op_level: NDArray[np.int64], op_col: NDArray[np.int64],
    par_off: NDArray[np.int64], params: NDArray[np.float64], out: NDArray[np.float64],
    lo: int = ..., hi: int = ...,
) -> None: ...
