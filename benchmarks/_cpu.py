"""The CPU a benchmark ran on, printed next to its figures.

``describe()``: the CPU's model name, the vector level the batch kernel uses
and the highest this CPU has (``irscore._batch._simd_level()``; a level lowered
with ``--simd`` shows here), and which of the vector features the kernels look
for the CPU reports (Linux: /proc/cpuinfo).  The TREC reader's tokenizer uses
SSE2 on every x86-64 CPU.
"""
from __future__ import annotations

import platform

FEATURES = ("sse4_2", "avx2", "popcnt", "avx512f", "avx512dq", "avx512vl", "avx512cd", "avx512_vp2intersect")


def _cpuinfo():
    model, flags = platform.processor() or platform.machine(), set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and ":" in line:
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and ":" in line:
                    flags = set(line.split(":", 1)[1].split())
                if flags and model:
                    break
    except OSError:
        pass
    return model, flags


def describe() -> str:
    from irscore import _batch
    names = {v: k for k, v in _batch.SIMD_LEVELS.items()}
    level, top = _batch._simd_level()
    model, flags = _cpuinfo()
    have = " ".join(f for f in FEATURES if f in flags) or "(flags unknown)"
    return f"CPU: {model}; batch vector level {names[level]} (this CPU: {names[top]}); CPU flags: {have}"
