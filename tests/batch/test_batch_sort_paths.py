"""The batch kernel's sorting shortcuts give exactly the values of its full sort.

The kernel sorts a query fully (a bucket pass over integer keys) unless every
measure asked is a small cutoff (its top k only: a bucket pass that keeps a
superset of the top k, then an exact sort of that); RR without a cutoff next to
small cutoffs is an O(n) scan; double scores carry only their 32 high bits in
the key and are re-sorted exactly where those collide.  Each shortcut is checked
here against the full sort on thousands of random rows with heavy ties, near
ties (doubles that differ in their last bits), NaN padding, -0.0, infinities,
every tie rule, every ``empty=`` and the layouts; the full sort's order itself
is checked against numpy's lexsort, and the measures outside the kernel are
checked to take the kernel's order (one sort per query).
"""
import numpy as np
import pytest

import irscore
from irscore import _batch, batch
from irscore.batch import engine
from irscore.core.joined import rank_order

SMALL_CUTOFFS = ["nDCG@10", "P@5", "P@10", "RR@3", "Success@2", "nDCG(gain=exp)@4", "DCG@7",
                 "AP@5", "R@8", "P(rel=2)@3", "nDCG@32"]
UNCUT_RR = ["nDCG@10", "RR", "RR(rel=2)"]
FULL = "Rprec"          # any measure that needs the whole ranking forces the full sort


def _scores(rng, kind, shape):
    if kind == "ties":          # a handful of values: heavy ties
        return rng.integers(-3, 4, size=shape).astype(np.float64) / 2
    if kind == "near":          # doubles that share their 32 high bits
        base = rng.integers(0, 4, size=shape).astype(np.float64)
        return base + rng.integers(0, 6, size=shape) * np.spacing(base + 1.0)
    if kind == "special":
        pool = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 1e308, -1e308, 5e-324, 1.0 + 2**-52])
        return rng.choice(pool, size=shape)
    return rng.normal(size=shape)


def as_dtype(s, dtype):
    with np.errstate(over="ignore"):        # 1e308 as float32: inf
        return s.astype(dtype)


def random_rows(seed, nq=400, ncol=70):
    rng = np.random.default_rng(seed)
    kind = ["ties", "near", "special", "normal"][seed % 4]
    s = _scores(rng, kind, (nq, ncol))
    ncols = rng.integers(0, ncol + 1, size=nq)
    s[np.arange(ncol)[None, :] >= ncols[:, None]] = np.nan           # padding at the end
    s[rng.random((nq, ncol)) < 0.05] = np.nan                        # and scattered
    lab = rng.integers(0, 4, size=(nq, ncol))
    lab[rng.random((nq, ncol)) < 0.5] = 0
    return s, lab


def _same(a, b, names):
    for k in names:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("ties", ["trec", "input"])
def test_top_k_shortcut_equals_full_sort(seed, ties):
    s, lab = random_rows(seed)
    for dtype in (np.float64, np.float32):
        sc = as_dtype(s, dtype)
        for names in (SMALL_CUTOFFS, UNCUT_RR):
            for empty in (0.0, 1.0, float("nan")):
                fast = batch.evaluate(sc, lab, names, ties=ties, empty=empty)
                full = batch.evaluate(sc, lab, names + [FULL], ties=ties, empty=empty)
                _same(fast, full, names)


@pytest.mark.parametrize("seed", range(4))
def test_shortcuts_in_every_layout(seed):
    s, lab = random_rows(100 + seed, nq=120, ncol=50)
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 51, size=120)
    mask = rng.random(s.shape) < 0.8
    for names in (SMALL_CUTOFFS, UNCUT_RR):
        for kw in (dict(lengths=lengths), dict(mask=mask), dict(n_relevant=(lab >= 1).sum(axis=1) + 2)):
            # NaN and infinite scores inside explicit layouts: ranked last
            fast = batch.evaluate(s, lab, names, nan_scores="last", **kw)
            full = batch.evaluate(s, lab, names + [FULL], nan_scores="last", **kw)
            _same(fast, full, names)
            ev = batch.Evaluator(names, nan_scores="last")
            _same(ev(s, lab, **kw), fast, names)


def _kernel_order(sc, lab, ties):
    """The kernel's rank order: flat indices, query by query."""
    nq, ncol = sc.shape
    flat = np.ascontiguousarray(sc).reshape(-1)
    starts = np.arange(nq, dtype=np.int64) * ncol
    lens = np.full(nq, ncol, dtype=np.int64)
    valid = ~np.isnan(sc)
    off = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(valid.sum(axis=1), out=off[1:])
    order = np.full(int(off[-1]), -1, dtype=np.int64)
    plan = engine.plan_for(("AP",), False, None)
    out = np.empty((nq, 1))
    code, _ = _batch.evaluate_rows(flat, np.ascontiguousarray(lab).reshape(-1), starts, lens, 0, nq,
                                   plan.op_kind, plan.op_k, plan.op_thr, plan.op_gain, plan.op_disc,
                                   engine.TIE_CODES[ties], 1.0, 0.0, 0, np.zeros(0, np.int64),
                                   np.zeros((0, 1), np.int64), out, off, order)
    assert code == 0
    return order


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("ties", ["trec", "input"])
def test_full_sort_is_lexsort(seed, ties):
    s, lab = random_rows(200 + seed)
    for dtype in (np.float64, np.float32):
        sc = as_dtype(s, dtype)
        got = _kernel_order(sc, lab, ties)
        q, col = np.nonzero(~np.isnan(sc))
        want = rank_order(q, sc[q, col].astype(np.float64), col, ties)
        np.testing.assert_array_equal(got, (q * sc.shape[1] + col)[want])


def test_average_ties_agree_across_dtypes_and_layouts():
    s, lab = random_rows(4)              # kind "ties": halves, exact in float32
    names = ["nDCG@10", "AP", "P@5", "RR", "Success@3", "R@4", "Rprec"]
    a = batch.evaluate(s, lab, names, ties="average")
    b = batch.evaluate(as_dtype(s, np.float32), lab, names, ties="average")
    # the "ties" rows are exact in float32: the same groups, the same values
    _same(a, b, names)
    _same(batch.Evaluator(names, ties="average")(s, lab), a, names)


def test_crowded_and_non_finite_score_ranges_sort_exactly():
    rng = np.random.default_rng(3)
    n = 300
    rows = [np.r_[np.zeros(n - 1), 1.0],                          # one bucket holds all but one
            np.r_[rng.normal(size=n - 2), np.inf, -np.inf],      # an infinite range
            np.r_[rng.normal(size=n - 2) * 1e-300, 1e300, -1e300],
            1.0 + np.arange(n) * np.spacing(1.0),                # every key's high bits equal
            np.full(n, 2.0)]
    sc = np.array(rows)
    lab = rng.integers(0, 3, size=sc.shape)
    for ties in ("trec", "input"):
        got = _kernel_order(sc, lab, ties)
        q, col = np.nonzero(~np.isnan(sc))
        want = rank_order(q, sc[q, col], col, ties)
        np.testing.assert_array_equal(got, (q * n + col)[want])
        for names in (SMALL_CUTOFFS, UNCUT_RR):
            _same(batch.evaluate(sc, lab, names, ties=ties), batch.evaluate(sc, lab, names + [FULL], ties=ties),
                  names)


def test_outside_measures_take_the_kernels_order(monkeypatch):
    """bpref and infAP with nDCG@10: one sort per query (the kernel's); no second
    sort in numpy, and the same values as the classic evaluate on the same data."""
    rng = np.random.default_rng(5)
    s = np.round(rng.normal(size=(30, 25)), 1)
    lab = rng.integers(0, 3, size=(30, 25))
    names = ["bpref", "nDCG@10", "infAP", "iprec_at_recall_0.50"]
    calls = []
    real_lexsort, real_argsort = np.lexsort, np.argsort

    def count(fn):
        def wrapped(*a, **k):
            calls.append(fn.__name__)
            return fn(*a, **k)
        return wrapped
    monkeypatch.setattr(np, "lexsort", count(real_lexsort))
    monkeypatch.setattr(np, "argsort", count(real_argsort))
    got = batch.evaluate(s, lab, names)
    monkeypatch.undo()
    assert calls == []
    qrels = {f"q{q}": {f"d{j:03d}": int(lab[q, j]) for j in range(25)} for q in range(30)}
    run = {f"q{q}": {f"d{j:03d}": float(s[q, j]) for j in range(25)} for q in range(30)}
    want = irscore.evaluate(qrels, run, names, per_query=True)
    for name in names:
        ref = np.array([want[name][f"q{q}"] for q in range(30)])
        np.testing.assert_allclose(got[name], ref, rtol=0, atol=1e-12, err_msg=name)


def test_order_output_is_checked():
    sc = np.array([0.3, np.nan, 0.2])
    lab = np.array([1, 0, 0])
    plan = engine.plan_for(("AP",), False, None)
    args = (sc, lab, np.array([0], np.int64), np.array([3], np.int64), 0, 1, plan.op_kind, plan.op_k,
            plan.op_thr, plan.op_gain, plan.op_disc, 0, 1.0, 0.0, 0, np.zeros(0, np.int64),
            np.zeros((0, 1), np.int64), np.empty((1, 1)))
    order = np.empty(2, np.int64)
    _batch.evaluate_rows(*args, np.array([0, 2], np.int64), order)
    assert order.tolist() == [0, 2]
    with pytest.raises(ValueError, match="order_off does not match"):
        _batch.evaluate_rows(*args, np.array([0, 1], np.int64), order)        # 2 valid candidates, not 1
    with pytest.raises(ValueError, match="out of range"):
        _batch.evaluate_rows(*args, np.array([0, 3], np.int64), order)        # past the order array
    with pytest.raises(ValueError, match="go together"):
        _batch.evaluate_rows(*args, np.array([0, 2], np.int64), None)


def test_dense_kernel_takes_only_plain_dense_batches():
    plan = engine.plan_for(("nDCG@10", "AP", "RR"), False, None)
    k = _batch.Kernel(plan.op_kind, plan.op_k, plan.op_thr, plan.op_gain, plan.op_disc, 0)
    s = np.random.default_rng(0).normal(size=(4, 6))
    lab = (s > 0).astype(np.int64)
    out = np.empty((3, 4))
    assert k.dense(s, lab, 1.0, out)[0] == 0
    want = batch.evaluate(s, lab, ["nDCG@10", "AP", "RR"])
    np.testing.assert_array_equal(out, np.array(list(want.values())))
    # not a plain dense batch: -1, nothing computed
    for bad_s, bad_l in ((s[:, ::2], lab[:, ::2]), (s.T, lab.T), (s.astype(np.int64), lab), (s, lab.astype(np.uint16)),
                         (s[0], lab[0]), (s, lab[:3]), (s.astype(">f8"), lab), (s, lab.astype(bool))):
        assert k.dense(bad_s, bad_l, 1.0, np.empty((3, bad_s.shape[0])))[0] == -1
    for bad_out in (np.empty((3, 5)), np.empty((4, 3)), np.empty((3, 4), np.float32), np.empty((4, 3)).T,
                    np.empty(12)):
        with pytest.raises(ValueError, match="out"):
            k.dense(s, lab, 1.0, bad_out)
    ro = np.empty((3, 4))
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="out"):
        k.dense(s, lab, 1.0, ro)
    # out sharing memory with the input: refused (rows would be overwritten before they are ranked)
    buf = np.random.default_rng(1).normal(size=24)
    s3, out3 = buf[:12].reshape(3, 4), buf[3:12].reshape(3, 3)            # out inside the scores
    with pytest.raises(ValueError, match="share memory"):
        k.dense(s3, (s3 > 0).astype(np.int64), 1.0, out3)
    lab3 = (buf[:12] > 0).astype(np.float64)                               # out overlapping the labels' end
    with pytest.raises(ValueError, match="share memory"):
        k.dense(s[:3], lab3.reshape(3, 4), 1.0, lab3[3:12].reshape(3, 3))
    assert k.dense(s3, (s3 > 0).astype(np.int64), 1.0, buf[12:21].reshape(3, 3))[0] == 0   # adjacent: fine
    # a plan without ops walks no rows, however many there are
    k0 = _batch.Kernel(*(np.empty(0, a.dtype) for a in (plan.op_kind, plan.op_k, plan.op_thr, plan.op_gain,
                                                          plan.op_disc)), 0)
    n = 1 << 40
    assert k0.dense(np.empty((n, 0)), np.empty((n, 0), np.int64), 1.0, np.empty((0, n))) == (0, -1, False)
    with pytest.raises(TypeError):
        k.dense([[1.0]], [[1]], 1.0, np.empty((3, 1)))
    with pytest.raises(ValueError):
        _batch.Kernel(np.array([99], np.int32), plan.op_k[:1], plan.op_thr[:1], plan.op_gain[:1], plan.op_disc[:1], 0)
    with pytest.raises(ValueError):
        _batch.Kernel(plan.op_kind, plan.op_k, plan.op_thr, plan.op_gain, plan.op_disc, 7)
    with pytest.raises(ValueError):
        _batch.Kernel(plan.op_kind, plan.op_k[:2], plan.op_thr, plan.op_gain, plan.op_disc, 0)
    # a NaN label on a candidate: its code and row; the exp gain's range: an error
    lab_f = lab.astype(np.float64)
    lab_f[2, 3] = np.nan
    assert k.dense(s, lab_f, 1.0, out)[:2] == (1, 2)
    pe = engine.plan_for(("nDCG(gain=exp)@3",), False, None)
    ke = _batch.Kernel(pe.op_kind, pe.op_k, pe.op_thr, pe.op_gain, pe.op_disc, 0)
    with pytest.raises(ValueError, match="gain=exp.*1024"):
        ke.dense(s, lab * 1024, 1.0, np.empty((1, 4)))


def test_evaluator_reuses_its_buffers_across_shapes_and_threads():
    from concurrent.futures import ThreadPoolExecutor
    ev = batch.Evaluator(["nDCG@10", "AP", "P@10", "RR"])
    rng = np.random.default_rng(1)
    batches = [(rng.normal(size=(int(rng.integers(1, 9)), int(rng.integers(0, 120)))).astype(dt),
                rng.integers(0, 3, size=(0, 0)))
               for dt in (np.float32, np.float64) for _ in range(20)]
    batches = [(s, rng.integers(0, 3, size=s.shape)) for s, _ in batches]
    want = [batch.evaluate(s, lab, ev.measures) for s, lab in batches]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda b: ev(*b), batches * 5))
    for i, g in enumerate(got):
        _same(g, want[i % len(batches)], ev.measures)


def test_outside_measures_alone_check_n_relevant_like_the_kernel():
    s, lab = np.array([[0.9, 0.1]]), np.array([[1, 1]])
    for names in (["bpref"], ["bpref", "AP"]):
        with pytest.raises(ValueError, match=r"n_relevant\[0\] = 1 is less"):
            batch.evaluate(s, lab, names, n_relevant=[1])
    # R = 3, both retrieved relevant documents with no judged non-relevant above: bpref = 2/3
    assert batch.evaluate(s, lab, ["bpref"], n_relevant=[3])["bpref"][0] == pytest.approx(2 / 3)


def test_evaluator_pickles_and_copies():
    import copy
    import pickle
    s, lab = np.array([[0.3, 0.2, 0.9]]), np.array([[0, 1, 2]])
    for opts in (dict(), dict(ties="input", empty=1.0), dict(relevance_level=2, n_jobs=1)):
        ev = batch.Evaluator(["nDCG@10", "AP"], **opts)
        for other in (pickle.loads(pickle.dumps(ev)), copy.deepcopy(ev), copy.copy(ev)):
            assert repr(other) == repr(ev)
            _same(other(s, lab), ev(s, lab), ["nDCG@10", "AP"])


def test_an_error_leaves_nothing_behind_in_the_evaluators_buffers():
    # a NaN label (or an n_relevant below the relevant candidates, or a label too
    # large for gain=exp) stops the rows after load_row counted the grades of the
    # failing row; the next call reused those counts as its own ideal DCG
    # (nDCG 0.35 instead of 0.66 here)
    s = np.array([[0.9, 0.5, 0.1]])
    lab = np.array([[0.0, 3.0, 1.0]])
    for names, bad in ((["nDCG@10", "AP"], np.array([[3.0, 3.0, np.nan]])),
                       (["nDCG(gain=exp)@10"], np.array([[3.0, 3.0, 2000.0]]))):
        ev = batch.Evaluator(names)
        want = batch.evaluate(s, lab, names)
        with pytest.raises(ValueError):
            ev(s, bad)
        _same(ev(s, lab), want, names)
        _same(ev(s, lab.astype(np.float64)), want, names)
    plan = engine.plan_for(("nDCG@10",), False, None)
    k = _batch.Kernel(plan.op_kind, plan.op_k, plan.op_thr, plan.op_gain, plan.op_disc, 0)
    out = np.empty((1, 1))
    assert k.dense(s, np.array([[3.0, 3.0, np.nan]]), 1.0, out)[0] == 1
    assert k.dense(s, lab, 1.0, out)[0] == 0
    np.testing.assert_array_equal(out[0], batch.evaluate(s, lab, ["nDCG@10"])["nDCG@10"])
