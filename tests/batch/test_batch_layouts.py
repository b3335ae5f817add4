"""irscore.batch: empty=, group=, mask=, per-query lists, nan_scores= and the padding-label warning."""
import warnings

import numpy as np
import pytest

from irscore import batch

ZERO_OVER_ZERO = ["nDCG@5", "nDCG", "AP", "R@5", "Rprec", "RR", "bpref"]
NOT_ZZ = ["P@5", "DCG@5", "Success@5", "NumRet"]


def ragged(seed, nq=40, ties=False):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 12, nq)
    n = int(sizes.sum())
    scores = rng.integers(0, 4, n).astype(float) if ties else rng.random(n)
    labels = rng.integers(0, 3, n) * (rng.random(n) < 0.4)
    off = np.concatenate(([0], np.cumsum(sizes)))
    return scores, labels, sizes, off


@pytest.mark.parametrize("empty", [1.0, float("nan"), 0.25])
def test_empty_sets_the_zero_over_zero_measures_of_queries_without_relevant(empty):
    s, lab, sizes, off = ragged(1)
    base = batch.evaluate(s, lab, ZERO_OVER_ZERO + NOT_ZZ, offsets=off)
    got = batch.evaluate(s, lab, ZERO_OVER_ZERO + NOT_ZZ, offsets=off, empty=empty)
    no_rel = np.array([not (lab[a:b] >= 1).any() for a, b in zip(off[:-1], off[1:])])
    assert 3 <= no_rel.sum() < len(no_rel)
    for name in ZERO_OVER_ZERO:
        np.testing.assert_array_equal(got[name][~no_rel], base[name][~no_rel])
        np.testing.assert_array_equal(got[name][no_rel], np.full(no_rel.sum(), empty))
        assert (base[name][no_rel] == 0).all()       # the default is trec_eval's 0
    for name in NOT_ZZ:
        np.testing.assert_array_equal(got[name], base[name])


def test_empty_with_n_relevant_follows_the_relevant_documents_not_the_candidates():
    s = np.array([[0.9, 0.5, 0.1], [0.9, 0.5, 0.1], [0.3, 0.2, 0.1]])
    lab = np.array([[0, 0, 0], [0, 0, 0], [1, 0, 0]])
    r = batch.evaluate(s, lab, ["AP", "nDCG", "RR", "R@2"], n_relevant=[0, 2, 1], empty=1)
    for name in ("AP", "nDCG", "RR", "R@2"):
        assert r[name][0] == 1.0          # no relevant document at all
        assert r[name][1] == 0.0          # two relevant documents, none retrieved: a real 0
        assert r[name][2] == 1.0
    # per-grade counts: grade 1 documents exist for query 1 only
    counts = np.array([[3, 0], [3, 2], [2, 1]])
    r2 = batch.evaluate(s, lab, ["AP", "nDCG"], n_relevant=counts, empty=float("nan"))
    assert np.isnan(r2["AP"][0]) and r2["AP"][1] == 0.0 and np.isnan(r2["nDCG"][0])


def test_empty_relevance_level_and_float32_labels():
    s = np.array([[0.3, 0.2], [0.3, 0.2]])
    lab = np.array([[1, 0], [2, 0]], dtype=np.float32)
    r = batch.evaluate(s, lab, ["AP", "P(rel=2)@1", "AP(rel=2)"], empty=7.0)
    assert list(r["AP"]) == [1.0, 1.0]
    assert list(r["AP(rel=2)"]) == [7.0, 1.0]
    assert list(r["P(rel=2)@1"]) == [0.0, 1.0]
    zero = np.zeros((2, 2), dtype=np.float32)
    assert list(batch.evaluate(s, zero, "nDCG@2", empty=1)["nDCG@2"]) == [1.0, 1.0]


@pytest.mark.parametrize("bad, exc", [("1", TypeError), (True, TypeError), (float("inf"), ValueError)])
def test_empty_bad_value(bad, exc):
    with pytest.raises(exc, match="empty"):
        batch.evaluate(np.ones((1, 2)), np.ones((1, 2), int), "AP", empty=bad)


def test_group_equals_offsets_and_sizes_as_offsets_get_a_hint():
    s, lab, sizes, off = ragged(2)
    a = batch.evaluate(s, lab, ["nDCG@5", "AP"], offsets=off)
    b = batch.evaluate(s, lab, ["nDCG@5", "AP"], group=sizes)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    with pytest.raises(ValueError, match="group sizes; pass group="):
        batch.evaluate(s, lab, "AP", offsets=sizes)
    with pytest.raises(ValueError, match="group"):
        batch.evaluate(s, lab, "AP", offsets=off, group=sizes)
    with pytest.raises(ValueError, match="group"):
        batch.evaluate(s, lab, "AP", group=sizes[:-1])
    with pytest.raises(ValueError, match="group"):
        batch.evaluate(s, lab, "AP", group=np.r_[sizes[:-1], -1, sizes[-1] + 1])


@pytest.mark.parametrize("ties", ["trec", "input", "average"])
def test_mask_equals_each_row_evaluated_on_its_candidates(ties):
    rng = np.random.default_rng(3)
    nq, nc = 30, 9
    s = rng.integers(0, 3, (nq, nc)).astype(np.float32)        # many ties: the column order matters
    lab = rng.integers(0, 3, (nq, nc))
    mask = rng.random((nq, nc)) < 0.6
    mask[0] = False
    names = ["nDCG@3", "AP", "P@2", "RR"]
    got = batch.evaluate(s, lab, names, mask=mask, ties=ties)
    for q in range(nq):
        cols = np.flatnonzero(mask[q])
        if cols.size == 0:
            want = {n: 0.0 for n in names}
        else:
            one = batch.evaluate(s[q, cols][None], lab[q, cols][None], names, ties=ties)
            want = {n: one[n][0] for n in names}
        for n in names:
            assert got[n][q] == pytest.approx(want[n], abs=1e-12), (q, n)


def test_prefix_mask_equals_lengths_and_mask_rules():
    rng = np.random.default_rng(4)
    s, lab = rng.random((5, 6)), rng.integers(0, 2, (5, 6))
    lens = np.array([6, 0, 3, 1, 5])
    mask = np.arange(6)[None, :] < lens[:, None]
    s[~mask] = np.nan
    a = batch.evaluate(s, lab, ["AP", "nDCG@3"], lengths=lens)
    b = batch.evaluate(s, lab, ["AP", "nDCG@3"], mask=mask)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    with pytest.raises(ValueError, match="non-finite"):       # NaN on a masked-in candidate
        batch.evaluate(s, lab, "AP", mask=np.ones_like(mask))
    with pytest.raises(TypeError, match="mask"):
        batch.evaluate(s, lab, "AP", mask=mask.astype(int))
    with pytest.raises(ValueError, match="mask"):
        batch.evaluate(s, lab, "AP", mask=mask[:, :3])
    with pytest.raises(ValueError, match="mask"):
        batch.evaluate(s, lab, "AP", mask=mask, lengths=lens)


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
def test_lists_of_arrays_and_tensors():
    s, lab, sizes, off = ragged(5)
    ref = batch.evaluate(s, lab, ["nDCG@5", "AP"], offsets=off)
    sl = [s[a:b] for a, b in zip(off[:-1], off[1:])]
    ll = [lab[a:b] for a, b in zip(off[:-1], off[1:])]
    got = batch.evaluate(sl, ll, ["nDCG@5", "AP"])
    for k in ref:
        np.testing.assert_array_equal(ref[k], got[k])
    torch = pytest.importorskip("torch")
    ts = [torch.tensor(x, requires_grad=True) for x in sl]
    tl = [torch.tensor(x) for x in ll]
    got = batch.evaluate(ts, tl, ["nDCG@5", "AP"])
    for k in ref:
        np.testing.assert_array_equal(ref[k], got[k])
    nonempty = [i for i, x in enumerate(sl) if len(x)]
    nts = torch.nested.nested_tensor([torch.tensor(sl[i]) for i in nonempty])
    ntl = torch.nested.nested_tensor([torch.tensor(ll[i]) for i in nonempty])
    got = batch.evaluate(nts, ntl, ["nDCG@5", "AP"])
    for k in ref:
        np.testing.assert_array_equal(ref[k][nonempty], got[k])
    got = batch.evaluate([x.tolist() for x in sl], [x.tolist() for x in ll], ["nDCG@5", "AP"])  # Python lists
    for k in ref:
        np.testing.assert_array_equal(ref[k], got[k])
    with pytest.raises(ValueError, match="labels"):
        batch.evaluate(sl, ll[:-1], "AP")
    with pytest.raises(ValueError, match="labels"):
        batch.evaluate(sl, lab, "AP")
    with pytest.raises(ValueError, match="offsets"):
        batch.evaluate(sl, ll, "AP", offsets=off)
    with pytest.raises(ValueError, match=r"scores\[0\]"):
        batch.evaluate([np.ones((2, 2))], [np.ones((2, 2))], "AP")


def test_nan_scores_modes():
    s, lab, sizes, off = ragged(6)
    s = s.copy()
    s[::7] = np.nan
    with pytest.raises(ValueError, match="non-finite score"):
        batch.evaluate(s, lab, "AP", offsets=off)                 # the default with offsets: error
    pad = batch.evaluate(s, lab, "AP", offsets=off, nan_scores="padding")["AP"]
    keep = ~np.isnan(s)
    q = np.repeat(np.arange(len(sizes)), sizes)
    ref = batch.evaluate(s[keep], lab[keep], "AP",
                         group=np.bincount(q[keep], minlength=len(sizes)))["AP"]
    np.testing.assert_array_equal(pad, ref)
    last = batch.evaluate(s, lab, "AP", offsets=off, nan_scores="last")["AP"]
    np.testing.assert_array_equal(last, batch.evaluate(np.where(keep, s, -np.inf), lab, "AP", offsets=off,
                                                       nan_scores="padding")["AP"])
    # plain 2-D: NaN is padding (backward compatible); with lengths an error, inf included
    d = np.array([[0.5, np.nan, 0.1]])
    dl = np.array([[0, 1, 1]])
    assert batch.evaluate(d, dl, "AP")["AP"][0] == 0.5
    with pytest.raises(ValueError, match="non-finite"):
        batch.evaluate(d, dl, "AP", nan_scores="error")
    with pytest.raises(ValueError, match="non-finite"):
        batch.evaluate(np.array([[0.5, np.inf, 0.1]]), dl, "AP", lengths=[3])
    assert batch.evaluate(d, dl, "AP", lengths=[1])["AP"][0] == 0.0
    with pytest.raises(ValueError, match="nan_scores"):
        batch.evaluate(d, dl, "AP", nan_scores="drop")


def test_negative_labels_warn_without_lengths_or_mask():
    s = np.array([[0.5, 0.4, 0.3], [0.5, 0.4, 0.3]])
    lab = np.array([[1, 0, -1], [1, 1, 0]])
    with pytest.warns(UserWarning, match="negative labels"):
        batch.evaluate(s, lab, "AP")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        batch.evaluate(s, lab, "AP", lengths=[2, 3])
        batch.evaluate(s, lab, "AP", mask=lab >= 0)
        batch.evaluate(np.where(lab < 0, np.nan, s), lab, "AP")      # NaN-padded cells
        batch.evaluate(s, np.abs(lab), "AP")


def test_evaluator_equals_evaluate_in_every_layout():
    s, lab, sizes, off = ragged(7, ties=True)
    names = ["nDCG@5", "AP", "P@3", "RR", "bpref"]
    for opts in (dict(), dict(ties="input", empty=1.0), dict(relevance_level=2, empty=float("nan"))):
        ev = batch.Evaluator(names, **opts)
        for kw in (dict(offsets=off), dict(group=sizes)):
            a, b = batch.evaluate(s, lab, names, **kw, **opts), ev(s, lab, **kw)
            for k in names:
                np.testing.assert_array_equal(a[k], b[k])
        d, dl = s[:60].reshape(6, 10), lab[:60].reshape(6, 10)
        for kw in (dict(), dict(lengths=[10, 0, 3, 5, 9, 1]), dict(mask=dl != 1),
                   dict(n_relevant=(dl >= 1).sum(axis=1) + 1)):
            for arr in ((d, dl), (d.astype(np.float32), dl.astype(np.float64)), (d[:, ::-1], dl[:, ::-1])):
                a, b = batch.evaluate(*arr, names, **kw, **opts), ev(*arr, **kw)
                for k in names:
                    np.testing.assert_array_equal(a[k], b[k])
    assert list(ev(d, dl)) == names


def test_evaluator_checks_at_construction():
    with pytest.raises(ValueError):
        batch.Evaluator(["nDCG@10", "no_such_measure"])
    with pytest.raises(ValueError, match="ties"):
        batch.Evaluator("AP", ties="random")
    with pytest.raises(TypeError, match="empty"):
        batch.Evaluator("AP", empty="1")
    with pytest.raises(ValueError, match="nan_scores"):
        batch.Evaluator("AP", nan_scores="drop")
    ev = batch.Evaluator("AP", nan_scores="error")
    with pytest.raises(ValueError, match="non-finite"):
        ev(np.array([[np.nan, 0.2]]), np.array([[1, 0]]))
    with pytest.warns(UserWarning, match="negative labels"):
        batch.Evaluator("AP")(np.array([[0.3, 0.2]]), np.array([[1, -1]]))
    assert "Evaluator('AP'" in repr(ev)


def test_non_prefix_mask_ignores_what_it_masks_out():
    s = np.array([[np.nan, 0.2, np.inf, 0.9], [0.5, np.nan, 0.4, 0.1]])
    lab = np.array([[-1, 1, 5, 0], [1, -1, 0, 1]])
    mask = np.array([[False, True, False, True], [True, False, True, True]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = batch.evaluate(s, lab, ["AP", "RR"], mask=mask)
    assert got["AP"].tolist() == [0.5, (1 + 2 / 3) / 2]
    assert got["RR"].tolist() == [0.5, 1.0]
