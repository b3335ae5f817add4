"""TREC files the readers refuse or repair: grades past int32, a UTF-8
byte-order mark (skipped with one warning), binary data (reported as such, with
a short excerpt)."""
import warnings
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_int32_grade_limits(tmp_path):
    import irscore
    f = tmp_path / "q.txt"
    f.write_text("q1 0 d1 -2147483648\nq1 0 d2 2147483647\n")
    g = irscore.read_qrels(f).to_dict()
    assert g["q1"]["d1"] == -2147483648 and g["q1"]["d2"] == 2147483647
    for bad in ("-2147483649", "2147483648", "99999999999999999999"):
        f.write_text(f"q1 0 d1 {bad}\n")
        with pytest.raises(ValueError, match=r"q\.txt:1: relevance .* out of range"):
            irscore.read_qrels(f)
    f.write_text("q1 0 d1 1.5\n")
    with pytest.raises(ValueError, match="not an integer"):
        irscore.read_qrels(f)


def test_utf8_bom_is_skipped_with_one_warning(tmp_path):
    import irscore
    for name in ("qrels.txt", "run.txt"):
        (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + (EXAMPLES / name).read_bytes())
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = irscore.evaluate(str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), ["num_ret", "map"],
                               per_query=True)
    msgs = [str(x.message) for x in w if issubclass(x.category, UserWarning)]
    assert len(msgs) == 2 and all("byte-order mark" in m for m in msgs)
    assert any("qrels.txt" in m for m in msgs) and any("run.txt" in m for m in msgs)
    want = irscore.evaluate(str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "run.txt"), ["num_ret", "map"],
                            per_query=True)
    assert got == want


def test_binary_input_is_reported_as_such(tmp_path):
    import irscore
    rng = np.random.default_rng(5)
    junk = bytes(rng.integers(1, 256, size=400, dtype=np.uint8)).replace(b"\n", b"x")
    cases = [b"q1 Q0 d1 1 " + junk + b" r\n", b"q1 Q0 d\xff1 1 1.0 r\n", b"\x00\x01\x02 Q0 d1 1 1.0 r\n"]
    for data in cases:
        f = tmp_path / "bin.run"
        f.write_bytes(b"q1 Q0 ok 1 2.0 r\n" + data)
        with pytest.raises(ValueError) as e:
            irscore.read_run(f)
        msg = str(e.value)
        assert msg.startswith(f"{f}:2: binary or non-UTF-8 data"), msg
        assert len(msg) < len(str(f)) + 100
    # a long bad token is echoed as a short escaped excerpt
    f = tmp_path / "long.run"
    f.write_bytes(b"q1 Q0 d1 1 " + b"a" * 300 + b" r\n")
    with pytest.raises(ValueError, match="is not a number") as e:
        irscore.read_run(f)
    assert len(str(e.value)) < len(str(f)) + 80
