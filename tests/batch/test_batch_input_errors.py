"""The batch API's meaning checks: non-finite scores inside the lengths, cutoffs too
large."""
import numpy as np
import pytest


def test_batch_nan_inside_lengths_is_an_error():
    from irscore import batch

    s = np.array([[np.nan, np.nan, np.nan], [0.3, 0.2, np.nan]])
    y = np.array([[1, 0, 2], [1, 0, 0]])
    with pytest.raises(ValueError, match=r"scores: non-finite score nan at \[0, 0\], inside lengths\[0\]"):
        batch.evaluate(s, y, ["nDCG"], lengths=[3, 2])
    with pytest.raises(ValueError, match=r"scores: non-finite score inf"):
        batch.evaluate(np.array([[0.1, np.inf]]), np.array([[1, 0]]), ["nDCG"], lengths=[2])
    # padding past a row's length, or NaN padding without lengths, stays padding
    r = batch.evaluate(s, y, ["nDCG"], lengths=[0, 2])
    assert r["nDCG"][1] == 1.0
    r = batch.evaluate(s, y, ["nDCG"])
    assert r["nDCG"][1] == 1.0
    # check_inputs=False skips this meaning check (as documented)
    batch.evaluate(s, y, ["nDCG"], lengths=[3, 2], check_inputs=False)


def test_batch_huge_cutoff_is_a_value_error():
    from irscore import batch

    s, y = np.array([[0.3, 0.2]]), np.array([[1, 0]])
    with pytest.raises(ValueError, match="too large"):
        batch.ndcg(s, y, 2 ** 63)
    with pytest.raises(ValueError, match="too large"):
        batch.evaluate(s, y, ["P@99999999999999999999"])
    assert batch.precision(s, y, 10 ** 12)[0] == 1e-12
