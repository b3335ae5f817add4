"""irscore.batch.Accumulator: a validation pass batch by batch, against batch.evaluate on
the concatenation of the batches (exact sums, trec_eval's running sum), merges,
checkpoints, query ids, offloading to a worker thread, and its errors."""
import math
import pickle
import sys
from fractions import Fraction

import numpy as np
import pytest

from irscore import _accumulate, batch
from irscore.batch.accumulator import exact_value
from irscore.core.aggregate import running_mean

MEASURES = ["nDCG@10", "AP", "P@10", "RR", "R@5", "Rprec", "NumRel", "gm_map"]


def exact_mean(values):
    v = np.asarray(values, dtype=np.float64)
    return float(sum(map(Fraction, v.tolist()), Fraction(0)) / len(v))


def random_batches(rng, n_batches, ragged=False):
    out = []
    for _ in range(n_batches):
        nq, m = int(rng.integers(1, 20)), int(rng.integers(1, 30))
        sc = np.round(rng.standard_normal((nq, m)), int(rng.integers(0, 3)))
        lb = rng.integers(0, 4, (nq, m)) * (rng.random((nq, m)) < 0.4)
        out.append((sc, lb))
    return out


def concat_padded(batches):
    """The batches as one dense batch padded with NaN scores (their concatenation)."""
    width = max(sc.shape[1] for sc, _ in batches)
    scs, lbs = [], []
    for sc, lb in batches:
        pad = width - sc.shape[1]
        scs.append(np.pad(sc, ((0, 0), (0, pad)), constant_values=np.nan))
        lbs.append(np.pad(lb, ((0, 0), (0, pad))))
    return np.concatenate(scs), np.concatenate(lbs)


@pytest.mark.parametrize("seed", range(8))
def test_compute_is_the_exact_mean_of_the_concatenation(seed):
    rng = np.random.default_rng(seed)
    batches = random_batches(rng, int(rng.integers(1, 12)))
    acc = batch.Accumulator(MEASURES)
    for sc, lb in batches:
        acc.update(sc, lb)
    ref = batch.evaluate(*concat_padded(batches), MEASURES)
    got = acc.compute()
    running = acc.compute(summation="running")
    for k in MEASURES:
        if k == "NumRel":
            assert got[k] == float(ref[k].sum())
            continue
        if k == "gm_map":
            logs = np.log(ref[k])
            assert got[k] == math.exp(exact_mean(logs))
            assert running[k] == math.exp(running_mean(logs))
            continue
        assert got[k] == exact_mean(ref[k]), k
        assert running[k] == running_mean(ref[k]), k      # trec_eval's running sum, bit for bit
    assert acc.n_queries == sum(sc.shape[0] for sc, _ in batches)


def test_result_does_not_depend_on_batch_boundaries_or_merge_order():
    rng = np.random.default_rng(3)
    sc = rng.standard_normal((200, 50))
    lb = rng.integers(0, 3, (200, 50))
    whole = batch.Accumulator(MEASURES)
    whole.update(sc, lb)
    for cuts in ([7, 100, 101, 150], [1, 2, 3], [199]):
        parts = np.split(np.arange(200), cuts)
        accs = []
        for p in parts:
            a = batch.Accumulator(MEASURES)
            a.update(sc[p], lb[p])
            accs.append(a)
        fwd = batch.Accumulator(MEASURES)
        for a in accs:
            fwd.merge(a)
        rev = batch.Accumulator(MEASURES)
        for a in reversed(accs):
            rev.merge(a)
        assert fwd.compute() == whole.compute() == rev.compute()
        with pytest.raises(ValueError, match="merged"):
            fwd.compute(summation="running")


def test_every_layout_of_batch_evaluate():
    rng = np.random.default_rng(5)
    sc = rng.standard_normal((6, 8))
    lb = rng.integers(0, 3, (6, 8))
    lengths = np.array([8, 3, 0, 5, 8, 1])
    mask = np.arange(8)[None, :] < lengths[:, None]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    flat_sc = np.concatenate([sc[q, :lengths[q]] for q in range(6)])
    flat_lb = np.concatenate([lb[q, :lengths[q]] for q in range(6)])
    nrel = (lb >= 1).sum(axis=1) + 2
    ref = batch.evaluate(sc, lb, MEASURES, lengths=lengths)
    for kw, args in [({"lengths": lengths}, (sc, lb)), ({"mask": mask}, (sc, lb)),
                     ({"offsets": offsets}, (flat_sc, flat_lb)), ({"group": lengths}, (flat_sc, flat_lb)),
                     ({}, ([sc[q, :lengths[q]] for q in range(6)], [lb[q, :lengths[q]] for q in range(6)]))]:
        acc = batch.Accumulator(MEASURES, keep_per_query=True)
        acc.update(*args, **kw)
        got = acc.per_query()
        for k in MEASURES:
            np.testing.assert_array_equal(got[k], ref[k])
    acc = batch.Accumulator(["AP", "nDCG"])
    acc.update(sc, lb, n_relevant=nrel)
    ref = batch.evaluate(sc, lb, ["AP", "nDCG"], n_relevant=nrel)
    assert acc.compute() == {k: exact_mean(v) for k, v in ref.items()}


def test_empty_nan_leaves_queries_without_relevant_documents_out():
    sc = np.array([[0.3, 0.2], [0.9, 0.1], [0.5, 0.4]])
    lb = np.array([[0, 1], [0, 0], [1, 0]])
    acc = batch.Accumulator(["AP", "P@1"], empty=float("nan"))
    acc.update(sc[:2], lb[:2])
    acc.update(sc[2:], lb[2:])
    got = acc.compute()
    assert got["AP"] == (0.5 + 1.0) / 2         # the second query has no relevant document
    assert got["P@1"] == 1 / 3                  # P is never 0/0: every query counts
    acc0 = batch.Accumulator(["AP"])
    acc0.update(sc, lb)
    assert acc0.compute()["AP"] == 1.5 / 3


def test_a_mean_over_no_query_is_nan():
    acc = batch.Accumulator(["AP", "NumRel"])
    got = acc.compute()
    assert math.isnan(got["AP"]) and got["NumRel"] == 0.0
    assert acc.n_queries == 0


def test_checkpoint_resumes_a_validation_pass():
    rng = np.random.default_rng(9)
    batches = random_batches(rng, 10)
    whole = batch.Accumulator(MEASURES, keep_per_query=True)
    for sc, lb in batches:
        whole.update(sc, lb)
    first = batch.Accumulator(MEASURES, keep_per_query=True)
    for sc, lb in batches[:4]:
        first.update(sc, lb)
    state = pickle.loads(pickle.dumps(first.state_dict()))
    resumed = batch.Accumulator(MEASURES, keep_per_query=True)
    resumed.load_state_dict(state)
    for sc, lb in batches[4:]:
        resumed.update(sc, lb)
    assert resumed.compute() == whole.compute()
    assert resumed.compute(summation="running") == whole.compute(summation="running")
    for k in MEASURES:
        np.testing.assert_array_equal(resumed.per_query()[k], whole.per_query()[k])
    with pytest.raises(ValueError, match="measures"):
        batch.Accumulator(["AP"], keep_per_query=True).load_state_dict(state)
    with pytest.raises(ValueError, match="ties"):
        batch.Accumulator(MEASURES, keep_per_query=True, ties="input").load_state_dict(state)
    with pytest.raises(ValueError, match="state_dict"):
        resumed.load_state_dict({"limbs": 1})


def test_state_is_fixed_size():
    rng = np.random.default_rng(1)
    acc = batch.Accumulator(["nDCG@10", "AP", "RR"])
    sizes = set()
    for _ in range(50):
        acc.update(rng.standard_normal((64, 20)), rng.integers(0, 2, (64, 20)))
        st = acc.state_dict()
        sizes.add(sum(np.asarray(st[k]).size for k in ("limbs", "counts", "running")))
    assert len(sizes) == 1 and sizes.pop() == 3 * (_accumulate.N_LIMBS + 2)
    assert acc.n_queries == 3200


def test_query_seen_again_is_refused():
    sc = np.array([[0.3, 0.2], [0.9, 0.1]])
    lb = np.array([[0, 1], [1, 0]])
    acc = batch.Accumulator(["AP"])
    acc.update(sc, lb, query_ids=["q1", "q2"])
    with pytest.raises(ValueError, match="'q2' was evaluated in an earlier update"):
        acc.update(sc, lb, query_ids=["q3", "q2"])
    assert acc.n_queries == 2                       # the refused batch added nothing
    with pytest.raises(ValueError, match="appears twice"):
        acc.update(sc, lb, query_ids=["q4", "q4"])
    with pytest.raises(ValueError, match="2 ids for a batch of 1"):
        acc.update(sc[:1], lb[:1], query_ids=["q5", "q6"])
    other = batch.Accumulator(["AP"])
    other.update(sc, lb, query_ids=["q1", "q9"])
    with pytest.raises(ValueError, match="'q1' is in both"):
        acc.merge(other)


def test_per_query_values_and_ids_in_update_order():
    sc = np.array([[0.3, 0.2], [0.9, 0.1], [0.1, 0.2]])
    lb = np.array([[0, 1], [1, 0], [1, 1]])
    acc = batch.Accumulator(["RR"], keep_per_query=True)
    acc.update(sc[:2], lb[:2], query_ids=["a", "b"])
    acc.update(sc[2:], lb[2:], query_ids=["c"])
    np.testing.assert_array_equal(acc.per_query()["RR"], [0.5, 1.0, 1.0])
    assert acc.query_ids() == ["a", "b", "c"]
    with pytest.raises(ValueError, match="keep_per_query"):
        batch.Accumulator(["RR"]).per_query()


def test_reset_forgets_everything():
    acc = batch.Accumulator(["RR"])
    acc.update(np.array([[0.1, 0.9]]), np.array([[1, 0]]), query_ids=["q"])
    acc.reset()
    assert acc.n_queries == 0 and math.isnan(acc.compute()["RR"])
    acc.update(np.array([[0.1, 0.9]]), np.array([[0, 1]]), query_ids=["q"])   # the id is free again
    assert acc.compute()["RR"] == 1.0


def test_bad_input_is_a_clear_error_and_changes_nothing():
    acc = batch.Accumulator(["AP"])
    acc.update(np.array([[0.3, 0.2]]), np.array([[0, 1]]))
    with pytest.raises(ValueError, match="non-finite score"):
        acc.update(np.array([[np.nan, 0.2]]), np.array([[0, 1]]), lengths=[2])
    with pytest.raises(ValueError, match="unknown measure|not a measure|measure"):
        batch.Accumulator(["nDCG@x"])
    with pytest.raises(ValueError, match="device_path"):
        batch.Accumulator(["AP"], device_path="gpu")
    with pytest.raises(ValueError, match="summation"):
        acc.compute(summation="kahan")
    with pytest.raises(TypeError, match="Accumulator"):
        acc.merge({"AP": 1})
    with pytest.raises(ValueError, match="measures"):
        acc.merge(batch.Accumulator(["RR"]))
    assert acc.n_queries == 1 and acc.compute()["AP"] == 0.5


def test_offloaded_batches_equal_the_native_path_and_errors_surface_later():
    rng = np.random.default_rng(2)
    batches = random_batches(rng, 6)
    native = batch.Accumulator(MEASURES)
    off = batch.Accumulator(MEASURES, device_path="offload")
    for sc, lb in batches:
        native.update(sc, lb)
        off.update(sc, lb)
    assert off.compute() == native.compute()
    assert off.compute(summation="running") == native.compute(summation="running")
    # the caller may overwrite its buffers after update(): the batch was copied
    sc, lb = batches[0]
    off2 = batch.Accumulator(["AP"], device_path="offload")
    buf = sc.copy()
    off2.update(buf, lb)
    buf[:] = 0.0
    assert off2.compute()["AP"] == exact_mean(batch.evaluate(sc, lb, ["AP"])["AP"])
    # an error on the worker thread surfaces at the next update() or at compute()
    bad = np.array([[np.nan, 0.2]])
    off3 = batch.Accumulator(["AP"], device_path="offload")
    off3.update(bad, np.array([[0, 1]]), lengths=[2])
    with pytest.raises(ValueError, match="non-finite score"):
        off3.compute()
    off3.update(bad, np.array([[0, 1]]), lengths=[2])
    off3._drain(raise_error=False)      # the worker has failed by now
    with pytest.raises(ValueError, match="non-finite score") as info:
        off3.update(np.array([[0.3, 0.2]]), np.array([[0, 1]]))
    if sys.version_info >= (3, 11):
        assert "this update() was not added either" in "".join(info.value.__notes__)
    assert off3.n_queries == 0


class DLPackOnly:
    """An array that only speaks DLPack (as JAX and CuPy arrays do, besides numpy's protocol)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kw):
        return self._a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_dlpack_arrays_are_read():
    rng = np.random.default_rng(4)
    sc = rng.standard_normal((5, 7))
    lb = rng.integers(0, 3, (5, 7))
    ref = batch.evaluate(sc, lb, ["nDCG@5", "AP"])
    got = batch.evaluate(DLPackOnly(sc), DLPackOnly(lb), ["nDCG@5", "AP"])
    for k in ref:
        np.testing.assert_array_equal(got[k], ref[k])
    acc = batch.Accumulator(["nDCG@5", "AP"])
    acc.update(DLPackOnly(sc), DLPackOnly(lb))
    assert acc.compute() == {k: exact_mean(v) for k, v in ref.items()}


def test_jax_arrays_are_read():
    jnp = pytest.importorskip("jax.numpy")
    rng = np.random.default_rng(6)
    sc = rng.standard_normal((5, 7)).astype(np.float32)
    lb = rng.integers(0, 3, (5, 7)).astype(np.int32)
    ref = batch.evaluate(sc, lb, ["nDCG@5", "AP"])
    got = batch.evaluate(jnp.asarray(sc), jnp.asarray(lb), ["nDCG@5", "AP"])
    for k in ref:
        np.testing.assert_array_equal(got[k], ref[k])
    acc = batch.Accumulator(["nDCG@5", "AP"])
    acc.update(jnp.asarray(sc[:2]), jnp.asarray(lb[:2]))
    acc.update(jnp.asarray(sc[2:]), jnp.asarray(lb[2:]), lengths=jnp.asarray([7, 7, 7]))
    assert acc.compute() == {k: exact_mean(v) for k, v in ref.items()}


def test_exact_sums_of_extreme_values():
    rng = np.random.default_rng(8)
    specials = [5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308,
                1.0, -1.0, 0.1, 1e-300, 0.0, -0.0]
    for trial in range(200):
        n = int(rng.integers(0, 40))
        v = np.where(rng.random(n) < 0.3, rng.choice(specials, n),
                     rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n))
        limbs = np.zeros((1, _accumulate.N_LIMBS), dtype=np.int64)
        counts = np.zeros(1, dtype=np.int64)
        running = np.zeros(1)
        cut = n // 3
        _accumulate.add((v[:cut],), limbs, running, counts, False)
        _accumulate.add((v[cut:],), limbs, running, counts, False)
        assert Fraction(exact_value(limbs[0]), 1 << _accumulate.BIAS) == sum(map(Fraction, v.tolist()), Fraction(0))
        assert counts[0] == n
    with pytest.raises(ValueError, match=r"values\[0\]\[1\] = inf"):
        _accumulate.add((np.array([1.0, np.inf]),), limbs, running, counts, False)
    with pytest.raises(ValueError, match="shape"):
        _accumulate.add((np.array([1.0]),), np.zeros((2, 3), dtype=np.int64), running, counts, False)
    with pytest.raises(ValueError, match="columns"):
        _accumulate.normalize(np.zeros((1, 3), dtype=np.int64))


def test_a_failed_offloaded_batch_changes_nothing_and_the_next_ones_count():
    # batches queued behind a failing one are evaluated (as on the native path, a refused
    # batch changes nothing); the failed batch's query ids are free again
    import threading
    from concurrent.futures import ThreadPoolExecutor
    sc = np.array([[0.9, 0.1], [0.2, 0.7]])
    lb = np.array([[0, 1], [1, 0]])
    bad = np.array([[0.0, 1.0], [np.nan, 0.0]])
    off = batch.Accumulator(["AP", "RR"], device_path="offload")
    off._pool = ThreadPoolExecutor(max_workers=1)
    gate = threading.Event()
    off._pool.submit(gate.wait)             # hold the worker: both batches are queued
    off.update(sc, bad, query_ids=["a", "b"])
    off.update(sc, lb, query_ids=["c", "d"])
    gate.set()
    with pytest.raises(ValueError, match="NaN or infinite label"):
        off.compute()
    native = batch.Accumulator(["AP", "RR"])
    native.update(sc, lb)
    assert off.n_queries == 2 and off.compute() == native.compute()
    off.update(sc, lb, query_ids=["a", "b"])        # the refused batch's ids were released
    with pytest.raises(ValueError, match="query 'c'"):
        off.update(sc, lb, query_ids=["c"])
    assert off.n_queries == 4
    # query_ids of the wrong length: refused, ids released
    off2 = batch.Accumulator(["AP"], device_path="offload")
    off2.update(sc, lb, query_ids=["x"])
    with pytest.raises(ValueError, match="query_ids: 1 ids for a batch of 2"):
        off2.compute()
    off2.update(sc, lb, query_ids=["x", "y"])
    assert off2.n_queries == 2


@pytest.mark.parametrize("path", ["native", "offload"])
def test_pickle_and_deepcopy_keep_the_state(path):
    import copy
    rng = np.random.default_rng(5)
    batches = random_batches(rng, 4)
    acc = batch.Accumulator(MEASURES, device_path=path, keep_per_query=True)
    for i, (sc, lb) in enumerate(batches[:3]):
        acc.update(sc, lb, query_ids=[f"{i}-{q}" for q in range(sc.shape[0])])
    for other in (pickle.loads(pickle.dumps(acc)), copy.deepcopy(acc)):
        assert other.compute() == acc.compute()
        assert other.compute(summation="running") == acc.compute(summation="running")
        assert other.query_ids() == acc.query_ids()
        sc, lb = batches[3]
        other.update(sc, lb)            # independent of acc, and usable (lock, worker)
        assert other.n_queries == acc.n_queries + sc.shape[0]
        with pytest.raises(ValueError, match="query '0-0'"):
            other.update(sc[:1], lb[:1], query_ids=["0-0"])


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="os.fork")
def test_fork_and_exit_with_pending_offloaded_batches_do_not_hang():
    # a DataLoader's workers fork while batches are pending: the fork waits for them, the
    # child has its own (idle) worker; a process may exit with batches pending
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent("""
        import os, sys
        import numpy as np
        from irscore import batch
        rng = np.random.default_rng(0)
        sc, lb = rng.standard_normal((64, 200)), rng.integers(0, 3, (64, 200))
        acc = batch.Accumulator(["nDCG@10", "AP"], device_path="offload")
        for _ in range(100):
            acc.update(sc, lb)
        if sys.argv[1] == "fork":
            pid = os.fork()
            if pid == 0:
                acc.update(sc, lb)
                os._exit(0 if acc.n_queries == 101 * 64 else 3)
            _, status = os.waitpid(pid, 0)
            assert os.waitstatus_to_exitcode(status) == 0
            acc.update(sc, lb)
            assert acc.n_queries == 101 * 64
    """)
    for mode in ("fork", "exit"):
        proc = subprocess.run([sys.executable, "-c", code, mode], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]


def test_query_ids_that_cannot_be_ids_are_named():
    sc = np.array([[0.9, 0.1], [0.3, 0.2]])
    lb = np.array([[0, 1], [1, 0]])
    acc = batch.Accumulator(["AP"])
    with pytest.raises(TypeError, match="query_ids: .*hashable"):
        acc.update(sc, lb, query_ids=[[1], [2]])
    with pytest.raises(ValueError, match="query_ids: NaN"):
        acc.update(sc, lb, query_ids=[float("nan"), float("nan")])
    with pytest.raises(ValueError, match="query_ids: NaN"):
        acc.update(sc, lb, query_ids=np.array([1.0, np.nan]))
    assert acc.n_queries == 0
    acc.update(sc, lb, query_ids=np.array([1, 2]))
    with pytest.raises(ValueError, match="query 2"):
        acc.update(sc[:1], lb[:1], query_ids=[2])


def test_checkpoint_through_torch_save_and_a_default_torch_load(tmp_path):
    # torch.load reads with weights_only=True by default (torch >= 2.6): plain values only
    torch = pytest.importorskip("torch")
    import json
    rng = np.random.default_rng(12)
    batches = random_batches(rng, 5)
    acc = batch.Accumulator(MEASURES, keep_per_query=True)
    for i, (sc, lb) in enumerate(batches[:3]):
        acc.update(sc, lb, query_ids=[f"{i}/{q}" for q in range(sc.shape[0])])
    acc.update(*batches[3])
    torch.save({"validation": acc.state_dict()}, tmp_path / "ckpt.pt")
    for state in (torch.load(tmp_path / "ckpt.pt")["validation"], json.loads(json.dumps(acc.state_dict()))):
        resumed = batch.Accumulator(MEASURES, keep_per_query=True)
        resumed.load_state_dict(state)
        assert resumed.compute() == acc.compute()
        assert resumed.compute(summation="running") == acc.compute(summation="running")
        assert resumed.query_ids() is None and resumed.n_queries == acc.n_queries
        for k in MEASURES:
            np.testing.assert_array_equal(resumed.per_query()[k], acc.per_query()[k])
        with pytest.raises(ValueError, match="query '0/0'"):
            resumed.update(*batches[4], query_ids=["0/0"] + [f"x{q}" for q in range(1, batches[4][0].shape[0])])


def test_a_non_finite_per_query_value_names_the_measure_and_the_query():
    # labels near the largest double: the DCG overflows, nDCG is inf/inf
    sc = np.array([[0.9, 0.1, 0.5], [0.3, 0.2, 0.1]])
    lb = np.array([[0.0, 1.0, 2.0], [1e308, 1e308, 1e308]])
    acc = batch.Accumulator(["AP", "nDCG@10"])
    with pytest.raises(ValueError, match=r"nDCG@10: query 1 of the batch has the value nan"):
        acc.update(sc, lb)
    assert acc.n_queries == 0


@pytest.mark.parametrize("path", ["native", "offload"])
def test_per_query_lists_are_read_and_copied(path):
    import threading
    from concurrent.futures import ThreadPoolExecutor
    s1, s2 = np.array([0.9, 0.1, 0.5]), np.array([0.3, 0.2])
    l1, l2 = np.array([0, 1, 0]), np.array([1, 0])
    want = batch.evaluate([s1, s2], [l1, l2], ["AP", "RR"])
    acc = batch.Accumulator(["AP", "RR"], device_path=path)
    gate = threading.Event()
    if path == "offload":
        acc._pool = ThreadPoolExecutor(max_workers=1)
        acc._pool.submit(gate.wait)         # the batch waits on the worker ...
    acc.update([s1, s2], [l1, l2])
    s1[:] = [0.0, 1.0, 0.0]                 # ... while the caller reuses its buffers
    gate.set()
    assert acc.compute() == {k: exact_mean(v) for k, v in want.items()}


def test_host_batches_after_pending_offloaded_ones_keep_the_update_order():
    # device_path='auto' offloads device tensors and evaluates host arrays at once: a host
    # batch waits for the pending ones, so per-query values and the running sum follow
    # the update order
    import threading
    from concurrent.futures import ThreadPoolExecutor
    rng = np.random.default_rng(13)
    batches = random_batches(rng, 2)
    acc = batch.Accumulator(["AP", "RR"], keep_per_query=True, device_path="offload")
    acc._pool = ThreadPoolExecutor(max_workers=1)
    gate = threading.Event()
    acc._pool.submit(gate.wait)
    acc.update(*batches[0])                 # offloaded, pending
    acc.device_path = "auto"                # as for a host array next to device tensors
    threading.Timer(0.3, gate.set).start()
    acc.update(*batches[1])                 # native
    ref = batch.Accumulator(["AP", "RR"], keep_per_query=True)
    for sc, lb in batches:
        ref.update(sc, lb)
    for k in ("AP", "RR"):
        np.testing.assert_array_equal(acc.per_query()[k], ref.per_query()[k])
    assert acc.compute(summation="running") == ref.compute(summation="running")
