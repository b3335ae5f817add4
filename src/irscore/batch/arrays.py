"""Reading the batch's arrays: numpy arrays, CPU tensors (torch, DLPack) and anything numpy
can view, as scores, labels and integer vectors, without a copy when the dtype allows."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

_SCORE_OK = (np.dtype(np.float32), np.dtype(np.float64))
_LABEL_OK = tuple(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8,
                                        np.float32, np.float64))


# ------------------------------------------------------------------ conversion

def as_array(x: Any, name: str) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x
    dev = getattr(x, "device", None)
    dev_type = getattr(dev, "type", None)
    if isinstance(dev_type, str) and dev_type != "cpu":
        raise ValueError(f"{name}: the tensor is on device {dev!s}; irscore computes on the CPU, "
                         f"move it first (e.g. {name}.detach().cpu())")
    dl_device = getattr(x, "__dlpack_device__", None)
    if callable(dl_device) and dev_type is None:
        try:
            kind = int(dl_device()[0])
        except Exception:  # noqa: BLE001 - not a usable DLPack object; numpy decides below
            kind = 1
        if kind not in (1, 3):      # kDLCPU, kDLCUDAHost (host memory)
            raise ValueError(f"{name}: the array is not in host memory (DLPack device type {kind}); "
                             "irscore computes on the CPU, copy it to the host first")
    detach = getattr(x, "detach", None)
    if callable(detach):
        if getattr(x, "requires_grad", True) is not False:
            x = detach()
        if str(getattr(x, "dtype", "")) == "torch.bfloat16":     # numpy has no bfloat16: one copy
            x = x.float()
        to_numpy = getattr(x, "numpy", None)
        if callable(to_numpy) and dev_type == "cpu":
            try:                    # a CPU tensor's own view: cheaper than the array protocol
                a = to_numpy()
            except Exception:  # noqa: BLE001 - e.g. a conjugate view; the array protocol decides below
                pass
            else:
                if isinstance(a, np.ndarray):
                    return a
    if not hasattr(x, "__array__") and hasattr(x, "__dlpack__"):
        try:
            return np.from_dlpack(x)
        except Exception as exc:  # noqa: BLE001
            raise TypeError(f"{name}: cannot be read through DLPack ({exc})") from None
    try:
        a = np.asarray(x)
    except Exception as exc:  # noqa: BLE001 - report what numpy said
        raise TypeError(f"{name}: cannot be read as a numpy array ({exc})") from None
    return a


def score_array(x: Any) -> np.ndarray:
    a = as_array(x, "scores")
    dt = a.dtype
    if dt not in _SCORE_OK:
        if dt.kind == "f" or dt.kind in "iub":
            a = a.astype(np.float32 if dt == np.float16 else np.float64)
        else:
            raise TypeError(f"scores: expected a real-valued array, got dtype {dt}")
    return a


def label_array(x: Any) -> np.ndarray:
    a = as_array(x, "labels")
    dt = a.dtype
    if dt in _LABEL_OK:
        return a
    if dt.kind == "b":
        return a.view(np.uint8)
    if dt == np.float16:
        return a.astype(np.float32)
    if dt.kind == "u":
        if dt.itemsize == 8 and a.size and int(a.max()) > np.iinfo(np.int64).max:
            raise ValueError("labels: values above 2**63 - 1")
        return a.astype(np.int32 if dt.itemsize == 2 else np.int64)
    if dt.kind == "f":   # longdouble
        return a.astype(np.float64)
    raise TypeError(f"labels: expected an integer, bool or float array, got dtype {dt}")


def int_vector(x: Any, name: str, n: Optional[int]) -> np.ndarray:
    a = as_array(x, name)
    if a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and a.size and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
            pass
        elif a.dtype.kind == "f" and a.size == 0:
            pass
        else:
            raise TypeError(f"{name}: expected an integer array, got dtype {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {a.shape}")
    if n is not None and a.shape[0] != n:
        raise ValueError(f"{name}: expected {n} values (one per query), got {a.shape[0]}")
    if a.dtype.kind == "u" and a.dtype.itemsize == 8 and a.size and int(a.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{name}: values too large")
    return np.ascontiguousarray(a, dtype=np.int64)
