"""Fuzz target: the batch kernel's paths against each other (irscore.batch).

Bytes -> a small batch: a header (rows, columns, score and label dtypes, tie
rule, measure set, vector level) and then the cells, each score drawn from a
pool that makes ties, near ties (doubles sharing their high 32 bits), -0.0,
infinities and NaN padding likely, each label from a small range with negative
and large grades and int64 labels beyond 2**53.  Invariants: ``batch.evaluate``
and ``batch.Evaluator`` give exactly (``==``, NaN equal to NaN) the values of
the general paths
(``_set_fast_paths(False)``: no counting, no vector loader, every row sorted) at
every vector level this CPU has (``_set_simd_level``), or all raise a clean
error; nothing crashes.
"""
from __future__ import annotations

import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import check, guarded, main  # noqa: E402

with atheris.instrument_imports(include=["irscore"]):
    import numpy as np

    from irscore import _batch, batch

MEASURE_SETS = (
    ["nDCG@10", "AP", "P@10", "RR"],
    ["nDCG@10"],
    ["P@5", "RR@3", "Success@2"],
    ["AP", "R@5", "Rprec", "NumRelRet", "nDCG", "AP(rel=2)"],
    ["nDCG(gain=exp)@4", "DCG@7", "P(rel=2)@3"],
)
POOL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, np.inf, -np.inf, np.nan, 1.0 + 2 ** -40, 1.0 + 2 ** -52,
                 3.0, 1e-300, -1e300])
LEVELS = sorted(v for v in _batch.SIMD_LEVELS.values() if v <= _batch._simd_level()[1])


def _batch_from(data: bytes):
    if len(data) < 6:
        return None
    h = data[:6]
    nq = 1 + h[0] % 6
    ncol = 1 + h[1] % 140
    sdt = np.float32 if h[2] & 1 else np.float64
    ldt = (np.int64, np.int32, np.float64, np.int8)[(h[2] >> 1) & 3]
    ties = ("trec", "input")[(h[2] >> 3) & 1]
    names = MEASURE_SETS[h[3] % len(MEASURE_SETS)]
    body = np.frombuffer(data[6:], dtype=np.uint8)
    cells = nq * ncol
    if body.size == 0:
        return None
    body = np.resize(body, 2 * cells)           # repeats the bytes given, deterministically
    sb, lb = body[:cells].astype(np.int64), body[cells:].astype(np.int64)
    # a score: a pool value (ties, specials) or a distinct-ish value per cell
    distinct = (np.arange(cells) * 0.37 + (h[4] % 7)) % 11.0
    s = np.where(sb < 160, POOL[sb % POOL.size], distinct + (sb % 3) * 1e-9)
    lab = (lb % 7) - (lb >= 240) * 2 + (lb == 239) * 300
    # int64 labels a double cannot hold (the vector loaders convert them themselves)
    lab = np.where(lb == 238, 2 ** 53 + 1, np.where(lb == 237, -(2 ** 62) - 3, lab))
    with np.errstate(over="ignore"):           # -1e300 as float32 is -inf, meant
        return (s.reshape(nq, ncol).astype(sdt), lab.reshape(nq, ncol).astype(ldt), names, ties)


def _run(fn):
    res = guarded(fn)
    return res


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)


def test_one_input(data: bytes) -> None:
    made = _batch_from(data)
    if made is None:
        return
    s, lab, names, ties = made

    def ev():
        return batch.evaluate(s, lab, names, ties=ties, nan_scores="padding")

    def ev2():
        return batch.Evaluator(names, ties=ties, nan_scores="padding")(s, lab)

    old_fast = _batch._set_fast_paths(False)
    old_level = _batch._simd_level()[0]
    try:
        want = _run(ev)
        _batch._set_fast_paths(True)
        for level in LEVELS:
            _batch._set_simd_level(level)
            for f, what in ((ev, "evaluate"), (ev2, "Evaluator")):
                got = _run(f)
                check(_same(got, want), f"{what} at vector level {level} differs from the general paths: "
                                        f"{names} ties={ties} shape={s.shape} {s.dtype}/{lab.dtype}")
    finally:
        _batch._set_fast_paths(old_fast)
        _batch._set_simd_level(old_level)


if __name__ == "__main__":
    main(test_one_input)
