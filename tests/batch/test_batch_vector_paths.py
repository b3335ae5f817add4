"""The batch kernel's vector paths give exactly the values of its scalar ones.

Three parts of the kernel use the CPU's vector unit, chosen at run time
(``irscore._batch._simd_level()``): ranking a row by counting, for each
candidate that can count, the keys below its own (AVX-512: 8 keys a compare;
AVX2: the 32-bit score codes of 8 candidates a compare, ties ordered by
position; else one; up to 96, 96 or 8 such candidates a row); with VP2INTERSECT
too, counting 16 score codes a compare when no two candidates of the row share
one (checked on every pair of 16-code blocks); and loading a row of
float32/float64 scores with int32/int64 labels eight (AVX-512) or four (AVX2)
candidates at a time (a row with a NaN score is loaded by the scalar loop).
``_set_simd_level`` lowers the level; here every level this CPU has is compared
with the scalar level and with the general paths (``_set_fast_paths(False)``:
no counting, no vector loader, every row sorted), with ``==``, on random rows
chosen to sit on the paths' edges: row lengths around the vector widths and the
counting limits, 0 to all candidates relevant, heavy ties, a single tie placed
anywhere (inside a block, across blocks, in the tail), doubles that share their
high 32 bits (the keys' coarse code), NaN padding, negative labels, labels of
256 and more (no grade counters), both tie rules that the counting path takes,
and a gain=exp label beyond its range (the same error either way).
"""
import platform
import sys

import numpy as np
import pytest

from irscore import _batch, batch

LEVELS = _batch.SIMD_LEVELS
MAX_LEVEL = _batch._simd_level()[1]
MEASURES = ["nDCG@10", "AP", "P@10", "RR", "R@5", "Rprec", "nDCG", "AP(rel=2)", "NumRelRet", "Success@3"]


def _at_level(level, fn):
    old = _batch._set_simd_level(level)
    try:
        return fn()
    finally:
        _batch._set_simd_level(old)


def _general(fn):
    old = _batch._set_fast_paths(False)
    try:
        return fn()
    finally:
        _batch._set_fast_paths(old)


def _same(a, b, names, what):
    for k in names:
        np.testing.assert_array_equal(a[k], b[k], err_msg=f"{k} ({what})")


def _batch_of(rng, nq, ncol):
    kind = int(rng.integers(0, 4))
    if kind == 0:                       # heavy ties
        s = rng.integers(-2, 3, size=(nq, ncol)).astype(np.float64)
    elif kind == 1:                     # doubles sharing their 32 high bits
        base = rng.integers(0, 3, size=(nq, ncol)).astype(np.float64)
        s = base + rng.integers(0, 4, size=(nq, ncol)) * np.spacing(base + 1.0)
    else:
        s = rng.standard_normal((nq, ncol))
    if rng.random() < 0.3:
        s[rng.random((nq, ncol)) < 0.1] = np.nan
    # per row a share of relevant candidates from none to all
    p_rel = rng.random((nq, 1)) ** rng.choice([0.3, 1.0, 3.0])
    lab = np.where(rng.random((nq, ncol)) < p_rel, rng.integers(1, 5, size=(nq, ncol)), 0)
    if rng.random() < 0.2:
        lab = lab - rng.integers(0, 2, size=(nq, ncol))          # negative labels
    if rng.random() < 0.1:
        lab[rng.random((nq, ncol)) < 0.05] = 300                 # beyond the grade counters
    return s, lab


def test_levels_are_reported_and_can_be_lowered():
    level, top = _batch._simd_level()
    assert level == top and top in LEVELS.values()
    assert _at_level(LEVELS["scalar"], lambda: _batch._simd_level()) == (LEVELS["scalar"], top)
    assert _batch._simd_level() == (top, top)
    # a level above what the CPU has is lowered to it
    assert _at_level(99, lambda: _batch._simd_level()[0]) == top


@pytest.mark.filterwarnings("ignore:labels. negative labels")
@pytest.mark.parametrize("seed", range(8))
def test_every_level_equals_scalar_and_general(seed):
    rng = np.random.default_rng(7000 + seed)
    for _ in range(8):
        ncol = int(rng.choice([1, 3, 7, 8, 9, 15, 16, 17, 23, 24, 25, 63, 64, 65, 95, 96, 97, 100, 130, 300]))
        nq = int(rng.integers(1, 30))
        s, lab = _batch_of(rng, nq, ncol)
        ties = ["trec", "input"][int(rng.integers(0, 2))]
        for sdt in (np.float32, np.float64):
            for ldt in (np.int64, np.int32):
                sc, lb = s.astype(sdt), lab.astype(ldt)

                def ev():
                    return batch.evaluate(sc, lb, MEASURES, ties=ties, nan_scores="padding")

                def ev2():
                    return batch.Evaluator(MEASURES, ties=ties, nan_scores="padding")(sc, lb)

                want = _at_level(LEVELS["scalar"], ev)
                _same(_general(ev), want, MEASURES, "general paths")
                for name, level in LEVELS.items():
                    if level > MAX_LEVEL or level == LEVELS["scalar"]:
                        continue
                    _same(_at_level(level, ev), want, MEASURES, name)
                    _same(_at_level(level, ev2), want, MEASURES, name + ", Evaluator")


def test_exp_gain_beyond_its_range_is_the_same_error_at_every_level():
    s = np.array([[0.5, 0.25, 0.75]], dtype=np.float32)
    lab = np.array([[0, 1024, 1]], dtype=np.int64)
    for level in range(MAX_LEVEL + 1):
        for fast in (True, False):
            old = _batch._set_fast_paths(fast)
            try:
                with pytest.raises(ValueError, match="1024"):
                    _at_level(level, lambda: batch.evaluate(s, lab, ["nDCG(gain=exp)@10"]))
            finally:
                _batch._set_fast_paths(old)


def test_counting_limits_hand_worked():
    # 65 relevant candidates of 70 (beyond every counting limit) and 3 of 70:
    # AP by hand; the same at every level
    n = 70
    s = -np.arange(n, dtype=np.float32)[None, :]          # rank = column
    lab_many = np.ones((1, n), dtype=np.int64)
    lab_many[0, [3, 10, 20, 40, 69]] = 0
    lab_few = np.zeros((1, n), dtype=np.int64)
    lab_few[0, [1, 4, 60]] = 2
    def ap(lab):
        rel = np.flatnonzero(lab[0] > 0)
        return np.sum(np.arange(1, rel.size + 1) / (rel + 1)) / rel.size
    for level in range(MAX_LEVEL + 1):
        for lab in (lab_many, lab_few):
            got = _at_level(level, lambda: batch.evaluate(s, lab, ["AP", "RR", "P@5"]))
            assert got["AP"][0] == pytest.approx(ap(lab), rel=1e-15)
            assert got["RR"][0] == 1.0 / (np.flatnonzero(lab[0] > 0)[0] + 1)
            assert got["P@5"][0] == np.count_nonzero(lab[0, :5] > 0) / 5


@pytest.mark.parametrize("seed", range(4))
def test_a_single_tie_anywhere_in_the_row(seed):
    # distinct scores but for one pair of equal ones, the pair placed anywhere:
    # in one 16-code block, across two, in the tail block; every level must
    # order the pair by the tie rule, as the scalar level does
    rng = np.random.default_rng(9100 + seed)
    for ncol in (17, 33, 40, 100, 129, 250):
        nq = 24
        s = np.empty((nq, ncol))
        for q in range(nq):
            s[q] = rng.permutation(ncol) + rng.random() * 0.5
            a, b = rng.choice(ncol, size=2, replace=False)
            s[q, b] = s[q, a]
        lab = (rng.random((nq, ncol)) < 0.4) * rng.integers(1, 4, size=(nq, ncol))
        for sdt in (np.float32, np.float64):
            sc = s.astype(sdt)
            for ties in ("trec", "input"):
                def ev():
                    return batch.evaluate(sc, lab, MEASURES, ties=ties)
                want = _at_level(LEVELS["scalar"], ev)
                _same(_general(ev), want, MEASURES, "general paths")
                for name, level in LEVELS.items():
                    if 0 < level <= MAX_LEVEL:
                        _same(_at_level(level, ev), want, MEASURES, f"{name}, {ncol} columns, {ties}")


@pytest.mark.filterwarnings("ignore:labels. negative labels")
def test_int64_labels_beyond_a_doubles_precision_are_converted_alike_at_every_level():
    # the vector loaders convert int64 labels to double themselves (AVX2 has no
    # such instruction): rounded once, as the scalar loop's conversion rounds,
    # up to the extremes of int64; nDCG and DCG read the labels' values
    big = np.array([2 ** 53 + 1, 2 ** 53 + 3, 2 ** 62 + 2 ** 9 + 1, 2 ** 63 - 1, -(2 ** 63), -(2 ** 53) - 1,
                    2 ** 60 + 12345, 2 ** 52 + 1, 2 ** 48 - 1, -(2 ** 48) + 1, 0, 1, 3], dtype=np.int64)
    rng = np.random.default_rng(9200)
    names = ["nDCG", "DCG@5", "nDCG@10", "AP", "RR"]
    for ncol in (1, 3, 4, 5, 8, 37, 100):
        lab = rng.choice(big, size=(7, ncol))
        s = rng.standard_normal((7, ncol))
        for sdt in (np.float32, np.float64):
            sc = s.astype(sdt)

            def ev():
                return batch.evaluate(sc, lab, names)
            want = _at_level(LEVELS["scalar"], ev)
            _same(_general(ev), want, names, "general paths")
            for name, level in LEVELS.items():
                if 0 < level <= MAX_LEVEL:
                    _same(_at_level(level, ev), want, names, f"{name}, {ncol} columns")


@pytest.mark.parametrize("seed", range(3))
def test_rows_of_up_to_all_countable_candidates_at_every_level(seed):
    # how many of a row's candidates can count decides between counting and
    # sorting (96 at most with AVX-512 and AVX2) and, with AVX2, how many
    # sweeps of 48 the counting takes and which span each vector of 8 covers:
    # each number of them from 0 to the whole row, with distinct, tied and NaN
    # (padding) scores, both tie rules
    rng = np.random.default_rng(9300 + seed)
    for ncol in (9, 47, 49, 100, 130):
        counts = sorted({c for c in (0, 1, 7, 8, 9, 16, 17, 40, 47, 48, 49, 56, 95, 96, 97, ncol - 1, ncol)
                         if 0 <= c <= ncol})
        nq = len(counts)
        lab = np.zeros((nq, ncol), dtype=np.int64)
        for q, c in enumerate(counts):
            lab[q, rng.choice(ncol, size=c, replace=False)] = rng.integers(1, 5, size=c)
        for kind in ("distinct", "tied", "nan"):
            if kind == "tied":
                s = rng.integers(-3, 4, size=(nq, ncol)).astype(np.float64)
            else:
                s = rng.standard_normal((nq, ncol))
            if kind == "nan":
                s[rng.random((nq, ncol)) < 0.1] = np.nan
            for sdt in (np.float32, np.float64):
                sc = s.astype(sdt)
                for ties in ("trec", "input"):
                    def ev():
                        return batch.evaluate(sc, lab, MEASURES, ties=ties, nan_scores="padding")
                    want = _at_level(LEVELS["scalar"], ev)
                    _same(_general(ev), want, MEASURES, "general paths")
                    for name, level in LEVELS.items():
                        if 0 < level <= MAX_LEVEL:
                            _same(_at_level(level, ev), want, MEASURES, f"{name}, {ncol} columns, {kind}, {ties}")


def test_the_level_chosen_for_each_kind_of_cpu():
    """The choice itself, for CPUs other than this one: AVX-512 needs F, DQ and VL
    (the row loader uses DQ conversions and VL masked compares) and POPCNT;
    VP2INTERSECT adds CD; an AVX-512 CPU without VP2INTERSECT keeps AVX-512."""
    full = {"avx512f", "avx512dq", "avx512vl", "avx512cd", "avx512vp2intersect", "avx2", "popcnt"}
    top = LEVELS["avx512_vp2intersect"] if _batch._VP2I_BUILT else LEVELS["avx512"]
    cases = [
        (full, top),
        (full - {"avx512vp2intersect"}, LEVELS["avx512"]),                   # Ice Lake, Sapphire Rapids, Zen 4
        (full - {"avx512cd"}, LEVELS["avx512"]),
        (full - {"avx512dq"}, LEVELS["avx2"]),                              # Knights Landing: F and CD only
        (full - {"avx512vl"}, LEVELS["avx2"]),
        (full - {"avx512f"}, LEVELS["avx2"]),
        ({"avx2", "popcnt"}, LEVELS["avx2"]),
        ({"avx2"}, LEVELS["scalar"]),
        ({"popcnt"}, LEVELS["scalar"]),
        (set(), LEVELS["scalar"]),
        (full - {"popcnt"}, LEVELS["scalar"]),
    ]
    for features, want in cases:
        assert _batch._simd_level_for(features) == want, sorted(features)


@pytest.mark.skipif(not (sys.platform.startswith("linux") and platform.machine() == "x86_64"),
                    reason="reads the CPU's features from /proc/cpuinfo (Linux, x86-64)")
def test_the_level_detected_is_the_one_chosen_for_this_cpus_features():
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    names = {"avx512_vp2intersect": "avx512vp2intersect"}       # the kernel's spelling -> the compiler's
    features = {names.get(x, x) for x in flags}
    assert MAX_LEVEL == _batch._simd_level_for(features), sorted(features & {
        "avx512f", "avx512dq", "avx512vl", "avx512cd", "avx512vp2intersect", "avx2", "popcnt"})
