"""Shared helpers of the atheris fuzz targets (see fuzz/README.md).

A target calls the code under test inside :func:`guarded`: the clean outcomes
(success, ``ValueError``, ``TypeError``, an ``OSError`` subclass, a
``UserWarning`` raised as an error) return; anything else propagates and
atheris reports it as a finding, with the input saved as a crash file.

``KNOWN`` lists findings already filed whose fixes are still pending (none
today: the issue-9 findings are fixed); they are tolerated so that a run goes
on past them, and counted.  Set ``IRSCORE_FUZZ_STRICT=1`` to make them
findings again; delete each entry once its fix is merged.
"""
from __future__ import annotations

import atexit
import os
import random
import re
import sys
import tempfile
import warnings
from collections import Counter
from typing import Any, Callable, List, Tuple, Type

CLEAN: Tuple[Type[BaseException], ...] = (ValueError, TypeError, OSError, UserWarning)

# (exception type, regex on "Type: message", what it is) -- issue 9 items fixed elsewhere
KNOWN: List[Tuple[Type[BaseException], str, str]] = []
STRICT = os.environ.get("IRSCORE_FUZZ_STRICT", "") not in ("", "0")
_known_hits: Counter = Counter()
_calls = [0]

def guarded(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """Run ``fn``; return its value, or None on a clean error."""
    _calls[0] += 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kw)
        except CLEAN:
            return None
        except Exception as exc:  # noqa: BLE001 (a finding unless known)
            if not STRICT:
                text = f"{type(exc).__name__}: {exc}"
                for typ, rx, what in KNOWN:
                    if isinstance(exc, typ) and re.search(rx, text):
                        if not _known_hits[what]:
                            sys.stderr.write(f"irscore fuzz: tolerating known finding ({what}): {text[:200]}\n")
                        _known_hits[what] += 1
                        return None
            raise


def check(cond: bool, message: str, known: str = "") -> None:
    """An invariant of a successful call (a failed one is a finding); ``known``
    names the issue-9 item a failure belongs to, when it does."""
    if cond:
        return
    if known and not STRICT:
        if not _known_hits[known]:
            sys.stderr.write(f"irscore fuzz: tolerating known finding ({known}): {message[:200]}\n")
        _known_hits[known] += 1
        return
    raise AssertionError(message)


def in_unit(x: float) -> bool:
    return x != x or 0.0 <= x <= 1.0   # NaN means "undefined here", allowed


def check_unit(x: float, what: str) -> None:
    """``x`` in [0, 1] (or NaN); a value outside by rounding only is issue 9's clamping item."""
    x = float(x)
    check(in_unit(x), f"{what} = {x!r} outside [0, 1]",
          "values outside [0, 1] by rounding: clamp (issue 9)" if -1e-9 <= x <= 1 + 1e-9 else "")


_TMP = tempfile.mkdtemp(prefix="irscore-fuzz-")


def temp_file(data: bytes, suffix: str = "") -> str:
    """Write ``data`` to a scratch file (reused from input to input)."""
    path = os.path.join(_TMP, "input" + suffix)
    with open(path, "wb") as fh:
        fh.write(data)
    return path


@atexit.register
def _cleanup() -> None:
    import shutil

    shutil.rmtree(_TMP, ignore_errors=True)


def _mutate(rng: random.Random, data: bytes, pool: List[bytes], tokens: List[bytes], max_len: int) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        pos = rng.randint(0, len(b))
        if op == 0 and b:                                   # flip a bit
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1:                                       # insert random bytes
            b[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 2 and b:                                 # delete a run
            del b[pos:pos + rng.randint(1, 16)]
        elif op == 3 and b:                                 # duplicate a run
            j = rng.randrange(len(b))
            b[pos:pos] = b[j:j + rng.randint(1, 64)]
        elif op == 4 and pool:                              # splice another input
            other = rng.choice(pool)
            j = rng.randint(0, len(other))
            b[pos:] = other[j:]
        elif op == 5 and tokens:                            # insert a dictionary token
            b[pos:pos] = rng.choice(tokens)
        elif op == 6 and b:                                 # set a byte to an interesting value
            b[rng.randrange(len(b))] = rng.choice(b"\x00\x01\x7f\x80\xff\t\n\r 0-.#{}[]\"")
    return bytes(b[:max_len])


def _mutation_loop(test_one_input: Callable[[bytes], None], argv: List[str]) -> None:
    """Coverage-free fuzzing: random mutations of the corpus inputs.

    Used for builds whose sanitizer runtime takes over libFuzzer's coverage
    hooks (gcc's AddressSanitizer): libFuzzer then sees no coverage and would
    mutate an empty input only.  Same command line as libFuzzer (corpus
    directories, ``-runs=``, ``-max_total_time=``, ``-dict=``, ``-seed=``,
    ``-artifact_prefix=``); prints libFuzzer's final ``stat::`` lines."""
    import time
    import traceback

    opts = {a.split("=", 1)[0][1:]: a.split("=", 1)[1] for a in argv if a.startswith("-") and "=" in a}
    dirs = [a for a in argv if not a.startswith("-")]
    pool: List[bytes] = []
    for d in dirs:
        if os.path.isdir(d):
            for name in sorted(os.listdir(d)):
                path = os.path.join(d, name)
                if os.path.isfile(path):
                    with open(path, "rb") as fh:
                        pool.append(fh.read())
    tokens: List[bytes] = []
    if "dict" in opts:
        with open(opts["dict"], "rb") as fh:
            for line in fh:
                line = line.strip()
                if line.startswith(b'"') and line.endswith(b'"'):
                    tokens.append(line[1:-1].replace(b'\\"', b'"').replace(b"\\\\", b"\\"))
    rng = random.Random(int(opts.get("seed", "0")) or None)
    runs = int(opts.get("runs", "-1"))
    deadline = time.monotonic() + float(opts.get("max_total_time", "inf"))
    max_len = int(opts.get("max_len", "4096"))
    n = 0
    data = b""
    try:
        for data in pool:                                   # the corpus itself first
            test_one_input(data)
            n += 1
        while (runs < 0 or n < runs) and time.monotonic() < deadline:
            data = _mutate(rng, rng.choice(pool) if pool else b"", pool, tokens, max_len)
            test_one_input(data)
            n += 1
            if n % 10000 == 0:
                sys.stderr.write(f"#{n}\tmutation-only\n")
    except Exception:
        traceback.print_exc()
        prefix = opts.get("artifact_prefix", "./")
        crash = prefix + "crash-mutation-" + str(n)
        with open(crash, "wb") as fh:
            fh.write(data)
        sys.stderr.write(f"==ERROR: uncaught exception; input written to {crash}\n"
                         f"stat::number_of_executed_units: {n}\n")
        sys.stderr.flush()
        os._exit(77)
    sys.stderr.write(f"Done {n} runs (mutation-only)\nstat::number_of_executed_units: {n}\n")


def main(test_one_input: Callable[[bytes], None]) -> None:
    if os.environ.get("IRSCORE_FUZZ_MUTATION_ONLY", "") not in ("", "0"):
        _mutation_loop(test_one_input, sys.argv[1:])
        return
    import atheris

    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
