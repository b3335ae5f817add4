"""irscore.batch.device (the batch kernel's measures as torch operations on the tensors'
device) and the Accumulator's device paths, run on CPU tensors: equal to the native
kernel to the bit in float64."""
import math
from fractions import Fraction

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from irscore import _accumulate, batch  # noqa: E402
from irscore.batch import device  # noqa: E402
from irscore.batch.accumulator import exact_value  # noqa: E402
from irscore.core.measures import resolve  # noqa: E402

MEASURES = ["nDCG@10", "AP", "P@10", "RR", "nDCG", "R@5", "Rprec", "Success@3", "DCG@5", "nDCG(gain=exp)@10",
            "AP@5", "RR@3", "NumRet", "NumRel", "NumRelRet", "P(rel=2)@5", "DCG(discount=jarvelin)@4"]


def device_values(sc, lb, names, **kw):
    keys_ms = resolve(names)
    tkw = {k: (torch.as_tensor(v) if v is not None else None) for k, v in kw.pop("layout", {}).items()}
    vals = device.evaluate(torch.as_tensor(sc), torch.as_tensor(lb), [m for _, m in keys_ms],
                           [k for k, _ in keys_ms], **tkw, **kw)
    return dict(zip([k for k, _ in keys_ms], vals))


@pytest.mark.parametrize("seed", range(40))
def test_equal_to_the_native_kernel_to_the_bit(seed):
    rng = np.random.default_rng(seed)
    nq, m = int(rng.integers(1, 30)), int(rng.integers(1, 40))
    sc = np.round(rng.standard_normal((nq, m)), int(rng.integers(0, 3)))     # many ties
    lb = rng.integers(0, 4, (nq, m)) * (rng.random((nq, m)) < 0.5)
    layout = {}
    if seed % 3 == 1:
        layout["lengths"] = rng.integers(0, m + 1, nq)
    elif seed % 3 == 2:
        layout["mask"] = rng.random((nq, m)) < 0.7
    elif seed % 2 == 0:
        sc[rng.random((nq, m)) < 0.2] = np.nan          # NaN padding
    if seed % 4 == 3 and "mask" not in layout:
        layout["n_relevant"] = (lb >= 1).sum(1) + rng.integers(0, 5, nq)
        if "lengths" in layout:
            layout["n_relevant"] = np.array([(lb[q, :layout["lengths"][q]] >= 1).sum() for q in range(nq)]) + 1
    ties = ("trec", "input")[seed % 2]
    empty = (0.0, 1.0, float("nan"))[seed % 3]
    score_dtype = (np.float64, np.float32)[seed % 5 == 4]
    sc = sc.astype(score_dtype)
    ref = batch.evaluate(sc, lb, MEASURES, ties=ties, empty=empty, **layout)
    got = device_values(sc, lb, MEASURES, ties=ties, empty=empty, layout=layout)
    for k in ref:
        assert got[k].dtype == torch.float64 and got[k].device.type == "cpu"
        np.testing.assert_array_equal(got[k].numpy(), ref[k], err_msg=k)


def test_fractional_labels_with_exponential_gain_within_an_ulp():
    # 2**label for a fractional label: torch's pow may round differently from the C library's
    rng = np.random.default_rng(1)
    sc = rng.standard_normal((50, 20))
    lb = rng.random((50, 20)) * 3 * (rng.random((50, 20)) < 0.5)
    names = ["nDCG(gain=exp)@10", "nDCG@10", "AP", "RR"]
    ref = batch.evaluate(sc, lb, names)
    got = device_values(sc, lb, names)
    for k in names:
        np.testing.assert_allclose(got[k].numpy(), ref[k], rtol=4e-16 * 4, atol=0)
        if k != "nDCG(gain=exp)@10":
            np.testing.assert_array_equal(got[k].numpy(), ref[k])


def test_accumulator_paths_agree():
    rng = np.random.default_rng(7)
    names = ["nDCG@10", "AP", "P@10", "RR", "NumRel"]
    results = {}
    for path in ("native", "offload", "torch"):
        acc = batch.Accumulator(names, device_path=path)
        for _ in range(8):
            sc = rng.standard_normal((16, 30)).astype(np.float32)
            lb = rng.integers(0, 3, (16, 30))
            acc.update(torch.as_tensor(sc), torch.as_tensor(lb))
        results[path] = acc.compute()
        rng = np.random.default_rng(7)
    assert results["native"] == results["offload"] == results["torch"]


def test_device_limbs_are_exact():
    rng = np.random.default_rng(3)
    for trial in range(50):
        n = int(rng.integers(0, 60))
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
        v[rng.random(n) < 0.1] = 5e-324
        limbs = torch.zeros((1, _accumulate.N_LIMBS), dtype=torch.int64)
        counts = torch.zeros(1, dtype=torch.int64)
        bad = torch.zeros((), dtype=torch.bool)
        device.add_limbs(limbs, counts, bad, [torch.as_tensor(v)], [False], False)
        device.add_limbs(limbs, counts, bad, [torch.as_tensor(-v[: n // 2])], [False], False)
        host = limbs.numpy().copy()
        _accumulate.normalize(host)
        want = sum(map(Fraction, v.tolist()), Fraction(0)) - sum(map(Fraction, v[: n // 2].tolist()), Fraction(0))
        assert Fraction(exact_value(host[0]), 1 << _accumulate.BIAS) == want
        assert int(counts[0]) == n + n // 2 and not bool(bad)


def test_what_the_device_path_does_not_take_is_named():
    sc = torch.rand(3, 4)
    lb = torch.randint(0, 2, (3, 4))
    ms = resolve(["AP"])
    with pytest.raises(ValueError, match="offsets/group"):
        device.evaluate(sc.reshape(-1), lb.reshape(-1), [ms[0][1]], ["AP"], offsets=torch.tensor([0, 4, 8, 12]))
    with pytest.raises(ValueError, match="average"):
        device.evaluate(sc, lb, [ms[0][1]], ["AP"], ties="average")
    bp = resolve(["bpref"])
    with pytest.raises(ValueError, match="bpref"):
        device.evaluate(sc, lb, [bp[0][1]], ["bpref"])
    with pytest.raises(ValueError, match="shape"):
        device.evaluate(sc, lb[:2], [ms[0][1]], ["AP"])
    with pytest.raises(ValueError, match="non-finite|NaN or infinite"):
        device.evaluate(torch.tensor([[math.nan, 1.0]]), torch.tensor([[0, 1]]), [ms[0][1]], ["AP"],
                        lengths=torch.tensor([2]))


def test_tensors_on_two_devices_are_refused():
    acc = batch.Accumulator(["AP"])
    with pytest.raises(ValueError, match="labels: on device meta"):
        acc.update(torch.rand(2, 3), torch.zeros(2, 3, device="meta"))
    acc_native = batch.Accumulator(["AP"], device_path="native")
    with pytest.raises(ValueError, match="device_path='native'"):
        acc_native.update(torch.rand(2, 3, device="meta"), torch.zeros(2, 3, device="meta"))


@pytest.mark.parametrize("seed", range(24))
def test_top_k_ranking_when_every_measure_has_a_cutoff(seed):
    # float32 scores have unique keys (score bits above the tie rank): the device path then
    # ranks only the top k; RR without a cutoff finds a relevant candidate below them by key
    rng = np.random.default_rng(100 + seed)
    nq, m = int(rng.integers(1, 40)), int(rng.integers(1, 60))
    sc = np.round(rng.standard_normal((nq, m)), int(rng.integers(0, 2) if seed % 5 else 12))
    sc = sc.astype(np.float32 if seed % 2 else np.float64)     # float64: a top-k when no key ties
    lb = rng.integers(0, 3, (nq, m)) * (rng.random((nq, m)) < 0.15)
    if seed % 6 == 0:           # -inf scores are candidates (NaN cells padding here)
        sc[rng.random((nq, m)) < 0.1] = -np.inf
    if seed % 4 == 1:
        sc[0, 0] = -0.0
        if m > 1:
            sc[0, 1] = 0.0
    layout, nan_scores = {}, None
    if seed % 2:
        layout["lengths"] = rng.integers(0, m + 1, nq)
    else:
        sc[rng.random((nq, m)) < 0.1] = np.nan
        nan_scores = ("padding", "last")[seed % 4 == 2]
    names = ["nDCG@3", "P@5", "RR", "RR@2", "R@4", "AP@3", "Success@1", "DCG@2", "NumRelRet"]
    ties = ("trec", "input")[seed % 3 == 1]
    ref = batch.evaluate(sc, lb, names, ties=ties, nan_scores=nan_scores, **layout)
    got = device_values(sc, lb, names, ties=ties, nan_scores=nan_scores, layout=layout)
    for k in names:
        np.testing.assert_array_equal(got[k].numpy(), ref[k], err_msg=k)


def test_a_refused_batch_on_the_device_path_changes_nothing():
    # 2**2000 - 1 overflows: both paths refuse the labels at update(); unchecked, the device
    # path (no host synchronisation) gets NaN values and refuses the batch at the next
    # compute(), once, keeping the other batches
    rng = np.random.default_rng(3)
    sc = rng.standard_normal((6, 8))
    lb = rng.integers(0, 3, (6, 8))
    names = ["nDCG(gain=exp)@5", "AP"]
    native = batch.Accumulator(names)
    native.update(sc, lb)
    with pytest.raises(ValueError, match="gain=exp takes labels below 1024"):
        native.update(sc, lb * 2000.0)
    dev = batch.Accumulator(names, device_path="torch")
    dev.update(torch.as_tensor(sc), torch.as_tensor(lb))
    with pytest.raises(ValueError, match="gain=exp takes labels below 1024"):
        dev.update(torch.as_tensor(sc), torch.as_tensor(lb * 2000.0))
    dev.update(torch.as_tensor(sc), torch.as_tensor(lb * 2000.0), check_inputs=False)
    with pytest.raises(ValueError, match="not finite"):
        dev.compute()
    assert dev.n_queries == 6 and dev.compute() == native.compute()
    dev.update(torch.as_tensor(sc), torch.as_tensor(lb))
    native.update(sc, lb)
    assert dev.compute() == native.compute()
    # add_limbs: a call with a non-finite value adds nothing, returns its own flag
    limbs = torch.zeros((2, _accumulate.N_LIMBS), dtype=torch.int64)
    counts = torch.zeros(2, dtype=torch.int64)
    bad = torch.zeros((), dtype=torch.bool)
    flag = device.add_limbs(limbs, counts, bad, [torch.tensor([1.0, 2.0]), torch.tensor([math.inf, 1.0])],
                            [False, False], False)
    assert bool(flag) and bool(bad) and not limbs.any() and not counts.any()
    flag = device.add_limbs(limbs, counts, bad, [torch.tensor([1.0]), torch.tensor([math.nan])], [False, False],
                            True)
    assert not bool(flag) and counts.tolist() == [1, 0]


def test_lengths_and_mask_together_are_refused_as_on_the_native_path():
    sc = torch.tensor([[1.0, 2.0, 3.0]])
    lb = torch.tensor([[0, 1, 0]])
    ms = resolve(["AP"])
    with pytest.raises(ValueError, match="mask"):
        batch.evaluate(sc.numpy(), lb.numpy(), ["AP"], lengths=[2], mask=[[True, False, True]])
    with pytest.raises(ValueError, match="mask"):
        device.evaluate(sc, lb, [ms[0][1]], ["AP"], lengths=torch.tensor([2]),
                        mask=torch.tensor([[True, False, True]]))


def test_device_path_takes_host_inputs():
    # numpy arrays and nested lists are read as CPU tensors, as batch.evaluate reads them
    rng = np.random.default_rng(8)
    sc, lb = rng.standard_normal((5, 7)), rng.integers(0, 3, (5, 7))
    native = batch.Accumulator(["nDCG@5", "AP"])
    native.update(sc, lb)
    for s_, l_ in ((sc, lb), (sc.tolist(), lb.tolist())):
        acc = batch.Accumulator(["nDCG@5", "AP"], device_path="torch")
        acc.update(s_, l_)
        assert acc.compute() == native.compute()


def test_keep_per_query_on_the_device_path_refuses_a_non_finite_batch_at_once():
    sc = np.array([[0.9, 0.1, 0.5], [0.3, 0.2, 0.1]])
    lb = np.array([[0.0, 1.0, 2.0], [1e308, 1e308, 1e308]])     # DCG overflows: nDCG is nan
    acc = batch.Accumulator(["AP", "nDCG@10"], device_path="torch", keep_per_query=True)
    with pytest.raises(ValueError, match="nDCG@10: query 1 of the batch has the value nan"):
        acc.update(torch.as_tensor(sc), torch.as_tensor(lb), query_ids=["a", "b"])
    assert acc.n_queries == 0 and acc.per_query()["AP"].size == 0
    acc.update(torch.as_tensor(sc[:1]), torch.as_tensor(lb[:1]), query_ids=["b"])   # "b" is free
    assert acc.query_ids() == ["b"] and acc.n_queries == 1


@pytest.mark.parametrize("ties", ["trec", "input"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_rr_below_the_top_k_follows_the_tie_rule(ties, dtype):
    # P@1 ranks one position (a top-k); RR's first relevant candidate lies below it, tied
    # with a non-relevant one: its rank depends on the tie rule
    sc = np.array([[3, 1, 1, 0], [1, 1, 5, 1], [1, 1, 5, 0]], dtype=dtype)
    lb = np.array([[0, 1, 0, 0], [1, 0, 0, 1], [0, 1, 0, 0]])
    names = ["P@1", "RR"]
    for q in range(3):      # one row at a time: a tie within the top k + 1 of any row sorts the batch
        got = device_values(sc[q:q + 1], lb[q:q + 1], names, ties=ties)
        want = batch.evaluate(sc[q:q + 1], lb[q:q + 1], names, ties=ties)
        for k in names:
            np.testing.assert_array_equal(got[k].numpy(), want[k], err_msg=f"{k}, row {q}")
