"""irscore.batch input handling: bad input names its argument, torch tensors,
and the kernel's own range checks."""
import numpy as np
import pytest

from irscore import _batch, batch
from irscore.batch import arrays as batch_arrays

S = np.array([[0.3, 0.2, 0.1], [0.5, 0.4, 0.6]])
L = np.array([[1, 0, 2], [0, 1, 0]])
M = ["nDCG@2", "AP", "RR"]


@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(scores=S, labels=L[:, :2]), ValueError, "labels"),
    (dict(scores=S, labels=L.ravel()), ValueError, "labels"),
    (dict(scores=S[:0], labels=L[:0]), ValueError, "empty batch"),
    (dict(scores=np.zeros(0), labels=np.zeros(0, int), offsets=[0]), ValueError, "offsets"),
    (dict(scores=S.astype(object), labels=L), TypeError, "scores"),
    (dict(scores=S, labels=L.astype(object)), TypeError, "labels"),
    (dict(scores=S.astype(complex), labels=L), TypeError, "scores"),
    (dict(scores=S, labels=np.array([["a", "b", "c"], ["d", "e", "f"]])), TypeError, "labels"),
    (dict(scores=S, labels=np.where(L == 2, np.nan, L)), ValueError, "labels"),
    (dict(scores=S, labels=np.where(L == 2, np.inf, L)), ValueError, "labels"),
    (dict(scores=S, labels=L, lengths=[3, -1]), ValueError, "lengths"),
    (dict(scores=S, labels=L, lengths=[3, 4]), ValueError, "lengths"),
    (dict(scores=S, labels=L, lengths=[3]), ValueError, "lengths"),
    (dict(scores=S, labels=L, lengths=[[3, 3]]), ValueError, "lengths"),
    (dict(scores=S, labels=L, lengths=[1.5, 2.0]), TypeError, "lengths"),
    (dict(scores=S, labels=L, offsets=[0, 3, 6]), ValueError, "offsets"),
    (dict(scores=S.ravel(), labels=L.ravel()), ValueError, "offsets"),
    (dict(scores=S.ravel(), labels=L.ravel(), offsets=[0, 4, 2, 6]), ValueError, "not increasing"),
    (dict(scores=S.ravel(), labels=L.ravel(), offsets=[0, 3, 5]), ValueError, "offsets"),
    (dict(scores=S.ravel(), labels=L.ravel(), offsets=[1, 3, 6]), ValueError, "offsets"),
    (dict(scores=S.ravel(), labels=L.ravel(), offsets=[0, 3, 7]), ValueError, "offsets"),
    (dict(scores=S.ravel(), labels=L.ravel(), offsets=[0.0, 3.5, 6.0]), TypeError, "offsets"),
    (dict(scores=S.ravel(), labels=L.ravel()[:5], offsets=[0, 3, 6]), ValueError, "labels"),
    (dict(scores=S.ravel(), labels=L.ravel(), offsets=[0, 3, 6], lengths=[3, 3]), ValueError, "lengths"),
    (dict(scores=S[None], labels=L[None]), ValueError, "scores"),
    (dict(scores=S, labels=L, ties="random"), ValueError, "ties"),
    (dict(scores=S, labels=L, n_jobs=0), ValueError, "n_jobs"),
    (dict(scores=S, labels=L, n_jobs=1.5), ValueError, "n_jobs"),
    (dict(scores=S, labels=L, n_relevant=[1]), ValueError, "n_relevant"),
    (dict(scores=S, labels=L, n_relevant=[-1, 2]), ValueError, "n_relevant"),
    (dict(scores=S, labels=L, n_relevant=[0, 1]), ValueError, "n_relevant"),
    (dict(scores=S, labels=L, n_relevant=np.ones((2, 3), dtype=int)), ValueError, "n_relevant"),
    (dict(scores=S, labels=L, n_relevant=np.ones((2, 2), dtype=int) * 5), ValueError, "labels"),
    (dict(scores=S, labels=L, n_relevant=np.ones((2, 3)) * 5), TypeError, "n_relevant"),
    (dict(scores=S, labels=L, n_relevant=np.ones((2, 3, 1), dtype=int)), ValueError, "n_relevant"),
    (dict(scores=S, labels=L, relevance_level="1"), TypeError, "relevance_level"),
])
def test_bad_input_names_the_argument(kwargs, exc, word):
    kwargs.setdefault("measures", M)
    with pytest.raises(exc, match=word):
        batch.evaluate(**kwargs)


def test_nan_label_on_padding_is_ignored():
    lab = L.astype(float)
    s = S.copy()
    s[0, 2] = np.nan
    lab[0, 2] = np.nan
    lab[1, 2] = np.nan
    r = batch.evaluate(s, lab, M, lengths=[2, 2])
    assert np.all(np.isfinite(r["AP"]))


def test_measure_errors():
    with pytest.raises(ValueError, match="unknown measure"):
        batch.evaluate(S, L, ["nDCG@x10"])
    with pytest.raises(TypeError):
        batch.evaluate(S, L, [3])
    with pytest.raises(ValueError, match="rel=2"):
        batch.evaluate(S, L, ["AP(rel=2)"], n_relevant=[2, 2])
    with pytest.raises(ValueError, match="average"):
        batch.evaluate(S, L, ["bpref"], ties="average")
    with pytest.raises(ValueError, match="integer grades"):
        batch.evaluate(S, L * 0.5, ["bpref"])
    with pytest.raises(ValueError, match="k"):
        batch.ndcg(S, L, 0)


def test_single_string_measure_and_empty_rows():
    r = batch.evaluate(S, L, "AP", lengths=[0, 0])
    assert list(r) == ["AP"]
    np.testing.assert_array_equal(r["AP"], [0.0, 0.0])
    r = batch.evaluate(np.zeros((2, 0)), np.zeros((2, 0), int), ["P@5", "nDCG", "RR"])
    assert all(np.array_equal(v, [0.0, 0.0]) for v in r.values())


def _kernel_args(nq, nops=1):
    return (np.full(nops, int(_batch.OpKind.K_NDCG), np.int32), np.full(nops, 5, np.int64), np.ones(nops), np.zeros(nops, np.int32),
            np.zeros(nops, np.int32), 0, 1.0, 0.0, 0, np.zeros(0, np.int64), np.zeros((0, 1), np.int64),
            np.zeros((nq, nops)))


def test_kernel_refuses_op_kinds_it_does_not_compute():
    """The batch kernel takes the one op enum's codes and refuses the kinds only the join-based kernel computes."""
    s = np.zeros(6)
    lab = np.zeros(6, np.int64)
    args = list(_kernel_args(2))
    for kind in (_batch.OpKind.K_NUM_Q, _batch.OpKind.K_BPREF, -1, 10**6):
        args[0] = np.array([int(kind)], np.int32)
        with pytest.raises(ValueError, match="op kind"):
            _batch.evaluate_rows(s, lab, np.array([0, 3]), np.array([3, 3]), 0, 2, *args)


def test_kernel_refuses_out_of_range_rows():
    s = np.zeros(6)
    lab = np.zeros(6, np.int64)
    ok = _batch.evaluate_rows(s, lab, np.array([0, 3]), np.array([3, 3]), 0, 2, *_kernel_args(2))
    assert ok == (0, -1)
    for starts, lens in (([0, 4], [3, 3]), ([0, -1], [3, 3]), ([0, 3], [3, -2]), ([0, 3], [3, 2**62])):
        with pytest.raises(ValueError, match="out of range"):
            _batch.evaluate_rows(s, lab, np.array(starts), np.array(lens), 0, 2, *_kernel_args(2))
    with pytest.raises(ValueError, match="row range"):
        _batch.evaluate_rows(s, lab, np.array([0, 3]), np.array([3, 3]), 0, 3, *_kernel_args(2))
    with pytest.raises(ValueError, match="shapes"):
        _batch.evaluate_rows(s, lab[:5], np.array([0, 3]), np.array([3, 3]), 0, 2, *_kernel_args(2))


def test_check_inputs_false_still_guards_memory():
    s = np.zeros((2, 3))
    with pytest.raises(ValueError):
        batch.evaluate(s, np.zeros((2, 3), int), M, lengths=[3, 9], check_inputs=False)
    with pytest.raises(ValueError):
        batch.evaluate(s.ravel(), np.zeros(6, int), M, offsets=[0, 9, 6], check_inputs=False)


# ------------------------------------------------------------------ torch

def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(0)
    s = torch.randn(16, 50, generator=g, requires_grad=True)
    lab = torch.randint(0, 3, (16, 50), generator=g)
    want = batch.evaluate(s.detach().numpy(), lab.numpy(), M)
    got = batch.evaluate(s, lab, M)
    for m in M:
        np.testing.assert_array_equal(got[m], want[m])
    # float32 CPU tensors are viewed, not copied
    t = s.detach()
    assert np.shares_memory(batch_arrays.score_array(t), t.numpy())
    # bool and half tensors, lengths as a tensor, ragged offsets as a tensor
    got = batch.evaluate(s.detach().half(), lab > 0, ["AP"], lengths=torch.full((16,), 50))
    assert got["AP"].shape == (16,)
    flat = batch.evaluate(s.detach().reshape(-1), lab.reshape(-1), M, offsets=torch.arange(0, 801, 50))
    for m in M:
        np.testing.assert_array_equal(flat[m], want[m])


def test_torch_bfloat16_and_dlpack_only_objects():
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(1)
    s = torch.randn(8, 20, generator=g)
    lab = torch.randint(0, 3, (8, 20), generator=g)
    want = batch.evaluate(s.bfloat16().float().numpy(), lab.numpy(), M)
    got = batch.evaluate(s.bfloat16(), lab, M)
    for m in M:
        np.testing.assert_array_equal(got[m], want[m])

    class OnlyDLPack:        # an array type numpy reads through DLPack alone
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, **kw):
            return self.t.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    got = batch.evaluate(OnlyDLPack(s), OnlyDLPack(lab), M)
    want = batch.evaluate(s.numpy(), lab.numpy(), M)
    for m in M:
        np.testing.assert_array_equal(got[m], want[m])

    class OnGPU(OnlyDLPack):
        def __dlpack_device__(self):
            return (2, 0)        # kDLCUDA

    with pytest.raises(ValueError, match="scores.*host"):
        batch.evaluate(OnGPU(s), lab, M)


def test_torch_tensor_off_cpu_is_refused():
    torch = pytest.importorskip("torch")
    s = torch.empty((2, 3), device="meta")
    with pytest.raises(ValueError, match="move it"):
        batch.evaluate(s, L, M)
    with pytest.raises(ValueError, match="labels.*move it"):
        batch.evaluate(S, torch.empty((2, 3), device="meta"), M)
