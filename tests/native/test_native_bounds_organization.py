"""The Reliability & Sensitivity and extended BCubed kernels check their
arguments: each precondition of each entry point, violated on its own, is a
ValueError, with the pairwise enumeration as with the default one (valid
arguments recorded from façade calls, tests/kernel_calls.py)."""
import numpy as np
import pytest

from kernel_calls import ENTRY_POINTS, _call, _with, entry_point_tests, recorded

i32, i64, u64, f64, u8 = np.int32, np.int64, np.uint64, np.float64, np.uint8

# (entry point, {argument: bad value}) -> ValueError
VIOLATIONS = [
    # _org_rs, _org_bcubed
    ("_org_rs.rs_side", dict(n_docs=1)),
    ("_org_rs.rs_side", dict(n_docs=-1)),
    ("_org_rs.rs_side", dict(n_docs=1 << 40)),
    ("_org_rs.rs_side", dict(x_level=np.zeros(0, i32))),
    ("_org_rs.rs_side", dict(g_ptr=np.zeros(1, i64))),
    ("_org_rs.rs_side", dict(x_ptr=np.array([0, 1 << 40], i64))),
    ("_org_rs.rs_side", dict(out_priority=np.zeros(0))),
    ("_org_rs.rs_side", dict(out_relatedness=np.zeros(0))),
    ("_org_bcubed.extended_bcubed_side", dict(n_docs=0)),
    ("_org_bcubed.extended_bcubed_side", dict(g_cluster=np.zeros(0, i32))),
    ("_org_bcubed.extended_bcubed_side", dict(out=np.zeros(0))),
]


test_entry_point_valid_call, test_entry_point_rejects = entry_point_tests(("_org_rs.", "_org_bcubed."), VIOLATIONS)


@pytest.mark.parametrize("name,changes", [(n, c) for n, c in VIOLATIONS if n.startswith(("_org_rs.", "_org_bcubed."))],
                         ids=lambda c: c if isinstance(c, str) else "-".join(c))
def test_organization_pairwise_switch_checks_the_same(name, changes):
    # pairwise=True, the tests' reference enumeration, passes the same checks
    with pytest.raises(ValueError):
        _call(name, _with(name, **changes) + [True])


def test_organization_repeated_documents_garbage_levels_rejected():
    # the dominance sums over documents with several memberships read levels and
    # clusters as indices: a level past the topic's, a negative one, or a cluster
    # shared by two levels is rejected before any of them is read
    base = recorded("_org_rs.rs_side")
    names = ENTRY_POINTS["_org_rs.rs_side"]
    for side in ("x", "g"):
        for field, value in ((f"{side}_level", 1 << 30), (f"{side}_level", -1), (f"{side}_cluster", -7)):
            arr = base[names.index(field)].copy()
            arr[-1] = value
            for pairwise in (False, True):
                with pytest.raises(ValueError):
                    _call("_org_rs.rs_side", _with("_org_rs.rs_side", **{field: arr}) + [pairwise])
    # a valid call both ways gives the same numbers to rounding
    outs = []
    for pairwise in (False, True):
        args = _with("_org_rs.rs_side", out_priority=np.zeros(len(base[-2])),
                     out_relatedness=np.zeros(len(base[-1])))
        _call("_org_rs.rs_side", args + [pairwise])
        outs.append(args[-2].copy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=0, atol=1e-13)


def test_organization_unsorted_levels_and_duplicates_rejected():
    base = recorded("_org_rs.rs_side")
    names = ENTRY_POINTS["_org_rs.rs_side"]
    lev = base[names.index("x_level")].copy()
    lev[-1] += 5                                   # a jump: levels not consecutive
    with pytest.raises(ValueError, match="sorted"):
        _call("_org_rs.rs_side", _with("_org_rs.rs_side", x_level=lev))
    doc = base[names.index("x_doc")].copy()
    cl = base[names.index("x_cluster")]
    i = int(np.flatnonzero(np.diff(cl) == 0)[0])   # two occurrences in one cluster
    doc[i + 1] = doc[i]
    with pytest.raises(ValueError, match="twice"):
        _call("_org_rs.rs_side", _with("_org_rs.rs_side", x_doc=doc))


def test_organization_duplicates_in_large_and_small_clusters():
    # a cluster's first 64 occurrences are checked in a small hash set, the rest
    # with a table: a repeated document anywhere in a cluster (both within the
    # first 64, across, and beyond) is a ValueError; the same documents in
    # different clusters are not
    rng = np.random.default_rng(11)
    for size in (3, 16, 64, 65, 150):
        for _ in range(30):
            docs = rng.permutation(2000)[:size].astype(i32)
            dup = rng.random() < 0.6
            if dup:
                i, j = sorted(rng.choice(size, 2, replace=False))
                docs[j] = docs[i]
            # topic 0: one cluster of `size`; topic 1: its documents again, in two levels
            x_doc = np.concatenate([docs, docs[::-1]]).astype(i32)
            x_lev = np.concatenate([np.zeros(size, i32), (np.arange(size) >= size // 2).astype(i32)])
            x_cl = x_lev.copy()
            x_ptr = np.array([0, size, 2 * size], i64)
            g_doc = np.array([0, 1], i32)
            g_ptr = np.array([0, 1, 2], i64)
            g_z = np.zeros(2, i32)
            args = (x_ptr, x_doc, x_lev, x_cl, g_ptr, g_doc, g_z, g_z, 2000, 2.5, False, True,
                    np.zeros(2), np.zeros(2))
            if dup:
                with pytest.raises(ValueError, match="twice in one cluster of x topic 0"):
                    _call("_org_rs.rs_side", list(args))
            else:
                _call("_org_rs.rs_side", list(args))


def test_organization_nan_weight_is_not_a_memory_error():
    # a NaN score used to be the signal of a failed allocation; a NaN weighting
    # constant is now refused as such, before anything is computed
    out = np.zeros(len(recorded("_org_rs.rs_side")[-1]))
    args = _with("_org_rs.rs_side", c=float("nan"), out_priority=out, uniform=False)
    with pytest.raises(ValueError, match="weighting constant"):
        _call("_org_rs.rs_side", args)
