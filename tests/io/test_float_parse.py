"""The reader's number parser (Clinger's fast path, Eisel-Lemire, strtod) gives
exactly Python's ``float()`` -- the correctly rounded double -- on random,
adversarial and near-half-way decimal strings.

``IRSCORE_FLOAT_CASES`` sets the number of random strings per family (default
40,000; the change that added Eisel-Lemire was checked with 2,000,000)."""
from __future__ import annotations

import math
import os
import random
import struct
from decimal import Decimal, getcontext

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irscore import _trec_io

N = int(os.environ.get("IRSCORE_FLOAT_CASES", "40000"))
getcontext().prec = 1200


def _parse(strings):
    """Scores parsed by the native reader, in file order."""
    text = "".join(f"q Q0 d{i} 1 {s} r\n" for i, s in enumerate(strings))
    p = _trec_io.TrecParser("run", "<floats>")
    p.feed(text.encode())
    return p.finish()["scores"]


def _check(strings):
    strings = [s for s in strings if math.isfinite(float(s))]
    got = _parse(strings)
    want = np.array([float(s) for s in strings])
    bad = np.flatnonzero(got.view(np.uint64) != want.view(np.uint64))   # bits: -0.0, exact
    assert bad.size == 0, [(strings[i], got[i], want[i]) for i in bad[:5]]


def _random_double(rng):
    while True:
        x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if math.isfinite(x):
            return x


def test_shortest_and_formatted_random_doubles():
    rng = random.Random(1)
    strings = []
    for _ in range(N):
        x = _random_double(rng)
        strings.append(repr(x))
        strings.append(f"{x:.{rng.randint(0, 20)}e}")
        y = rng.random() * 10 ** rng.randint(-8, 12)
        strings.append(repr(y))
        strings.append(f"{y:.{rng.randint(0, 20)}f}")
    _check(strings)


def test_random_digit_strings_with_exponents():
    rng = random.Random(2)
    strings = []
    for _ in range(4 * N):
        nd = rng.choice([1, 2, 5, 15, 16, 17, 18, 19, 19, 19, 20, 21, 25])
        digits = "".join(rng.choice("0123456789") for _ in range(nd))
        cut = rng.randint(0, nd)
        s = digits[:cut] + ("." if cut < nd or rng.random() < 0.3 else "") + digits[cut:]
        if s == ".":
            s = "0"
        if rng.random() < 0.7:
            s += rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.randint(0, 340))
        strings.append(rng.choice(["", "-", "+"]) + s)
    _check(strings)


def _near_halfway(x: float) -> list:
    """Decimal strings at, just below and just above the midpoint between x and
    the next double up, with 16 to 19 significant digits and in full."""
    up = math.nextafter(x, math.inf)
    if not math.isfinite(up):
        return []
    mid = (Decimal(x) + Decimal(up)) / 2
    out = [format(mid, "e")]                           # the exact midpoint (long)
    for nd in (16, 17, 18, 19):
        q = format(mid, f".{nd - 1}e")
        out.append(q)
        m, e = q.split("e")
        digits = m.replace(".", "").lstrip("-")
        last = int(digits)
        for d in (-1, 1):
            v = str(last + d)
            out.append(f"{v[0]}.{v[1:]}e{int(e) + len(v) - len(digits)}")
    return out


def test_near_halfway_cases():
    rng = random.Random(3)
    strings = []
    for _ in range(N // 4):
        strings += _near_halfway(abs(_random_double(rng)))
        strings += _near_halfway(rng.random() * 10 ** rng.randint(-30, 30))
    # exactly half-way integers of up to 19 digits: (2^53 + odd) * 2^s rounds to even
    for s in range(0, 11):
        for j in range(1, 400, 2):
            v = (2 ** 53 + j) * 2 ** s
            strings += [str(v), str(v) + ".0", f"{v}e0", f"{v}0e-1", str(v + 1), str(v - 1)]
    _check(strings)


def test_extremes_subnormals_and_odd_spellings():
    strings = ["0", "-0", "0.0", "-0.0", "0e0", "0e-400", "-0e400", "00000.00000", "1", "-1", "+1", ".5",
               "5.", "1e308", "1.7976931348623157e308", "1.7976931348623158e308", "2.2250738585072014e-308",
               "2.2250738585072011e-308", "4.9e-324", "5e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
               "1e-400", "9007199254740993", "9007199254740992.5", "18014398509481985", "0.1", "0.3",
               "1e22", "1e23", "123456789012345678901234567890", "0." + "0" * 30 + "1", "1" + "0" * 30,
               "9.999999999999999e22", "8.98846567431158e307", "7.2057594037927933e16",
               "3.0540412215102145e-270", "1.00000000000000011102230246251565404236316680908203125",
               "1.00000000000000011102230246251565404236316680908203124",
               "1.00000000000000011102230246251565404236316680908203126"]
    strings += ["1e" + str(e) for e in range(-330, 310)]
    strings += ["12345678901234567e" + str(e) for e in range(-345, 295)]
    strings += ["9999999999999999999e" + str(e) for e in range(-345, 290)]
    _check(strings)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=50),
       st.integers(0, 25))
def test_hypothesis_floats_in_several_spellings(xs, p):
    _check([repr(x) for x in xs] + [f"{x:.{p}e}" for x in xs] + [f"{x:.{p}g}" for x in xs])


@settings(max_examples=300, deadline=None)
@given(st.from_regex(r"\A[+-]?([0-9]{1,22}(\.[0-9]{0,22})?|\.[0-9]{1,22})([eE][+-]?[0-9]{1,3})?\Z"))
def test_hypothesis_decimal_strings(s):
    _check([s])


def test_short_tokens_accepted_and_refused_like_float():
    """Tokens of up to 17 characters (the reader's short fast path) over the
    characters of decimals: every one ``float()`` reads gives its exact double,
    every other one is refused as not a number, including signs, dots and
    digits in the wrong places and 15/16-digit significands around 2**53."""
    rng = random.Random(17)
    alphabet = "0123456789" * 3 + ".-+eE"
    tokens = {"1.", ".5", "-0.0", "+0", "-.0", "007.50", "999999999999999", "9999999999999999",
              "9007199254740993", "900719925474099.3", "-900719925474099.5", "1.2.3", ".", "-", "+",
              "--1", "1-", "+-1", "1..", "..1", "1.e", "1e", "e1", ".e1", "12345678901234.56"}
    while len(tokens) < 6000:
        tokens.add("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 17))))
    good, bad = [], []
    for t in sorted(tokens):
        try:
            float(t)
        except ValueError:
            bad.append(t)
        else:
            good.append(t)
    assert len(good) > 1000 and len(bad) > 1000
    _check(good)
    for t in bad:
        p = _trec_io.TrecParser("run", "<floats>")
        try:
            p.feed(f"q Q0 d 1 {t} r\n".encode())
            p.finish()
        except ValueError as exc:
            assert "is not a number" in str(exc), (t, str(exc))
        else:
            raise AssertionError(f"{t!r} was read as a number")
