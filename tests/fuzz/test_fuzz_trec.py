"""Property tests of the TREC qrels/run reader (random bytes, random well-formed files)."""
from __future__ import annotations

import gzip
import re
import warnings
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import irscore

ID_CHARS = st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zs", "Zl", "Zp", "Co", "Cn"),
                         exclude_characters="#\ufeff\x85")
IDS = st.text(ID_CHARS, min_size=1, max_size=8)
SEP = st.sampled_from([" ", "\t", "  ", " \t "])
EOL = st.sampled_from(["\n", "\r\n", " \n", "\t\n"])
SCORES = st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=64),
                   st.integers(-10**6, 10**6).map(float), st.sampled_from([0.0, -0.0, 1.0, 0.5]))


def _write(tmp: Path, name: str, data: bytes, gz: bool = False) -> Path:
    p = tmp / (name + (".gz" if gz else ""))
    p.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    return p


def _check_error(exc: Exception, path: Path, n_lines: int) -> None:
    msg = str(exc)
    assert msg.startswith(str(path)), msg
    m = re.match(re.escape(str(path)) + r":(\d+):", msg)
    if m:  # a line error names a line of the file
        assert 1 <= int(m.group(1)) <= n_lines + 1, msg


@given(data=st.binary(max_size=400), kind=st.sampled_from(["qrels", "run"]))
def test_random_bytes_parse_or_value_error_naming_the_file(tmp_path_factory, data, kind):
    path = _write(tmp_path_factory.mktemp("b"), f"in.{kind}", data)
    reader = irscore.read_run if kind == "run" else irscore.read_qrels
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            obj = reader(path)
        except ValueError as exc:
            _check_error(exc, path, data.count(b"\n") + 1)
            return
    assert obj.n_entries >= 1


@st.composite
def qrels_files(draw):
    rows = draw(st.lists(st.tuples(IDS, IDS, st.integers(-3, 12)), min_size=1, max_size=30))
    lines, expect = [], {}
    for q, d, g in rows:
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from(["", "# a comment", "   "])) + "\n")
        it = draw(st.sampled_from(["0", "Q0", "iter"]))
        lines.append(draw(SEP).join([q, it, d, str(g)]) + draw(EOL))
        expect.setdefault(q, {})[d] = g          # a repeated judgment: the last one is kept
    return "".join(lines).encode("utf-8"), expect, len(rows)


@st.composite
def run_files(draw):
    rows = draw(st.lists(st.tuples(IDS, IDS, SCORES), min_size=1, max_size=30, unique_by=lambda r: (r[0], r[1])))
    lines, expect = [], {}
    for rank, (q, d, s) in enumerate(rows, 1):
        lines.append(draw(SEP).join([q, "Q0", d, str(rank), repr(s), "tag"]) + draw(EOL))
        expect.setdefault(q, {})[d] = s
    return "".join(lines).encode("utf-8"), expect


@given(f=qrels_files(), gz=st.booleans())
def test_well_formed_qrels_round_trip(tmp_path_factory, f, gz):
    data, expect, n = f
    path = _write(tmp_path_factory.mktemp("q"), "q.txt", data, gz)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        q = irscore.read_qrels(path)
    assert q.to_dict() == expect
    n_dup = n - sum(len(v) for v in expect.values())
    assert (n_dup > 0) == any("repeated" in str(x.message) for x in w)
    # written back and read again: the same judgments
    again = "".join(f"{qid} 0 {d} {g}\n" for qid, docs in expect.items() for d, g in docs.items())
    assert irscore.read_qrels(_write(tmp_path_factory.mktemp("q2"), "q2.txt", again.encode())).to_dict() == expect


@given(f=run_files(), gz=st.booleans())
def test_well_formed_run_round_trip(tmp_path_factory, f, gz):
    data, expect = f
    path = _write(tmp_path_factory.mktemp("r"), "r.txt", data, gz)
    run = irscore.read_run(path)
    assert run.to_dict() == expect
    assert run.run_id == "tag"
    # the stored order is trec_eval's: score descending, then document id descending (bytes)
    for qid in run.query_ids:
        docs = run.doc_ids(qid)
        key = [(-expect[qid][d], [-b for b in d.encode()]) for d in docs]
        assert key == sorted(key)


def test_run_to_dict_keeps_the_best_ranked_duplicate(tmp_path):
    # found by the round-trip property: a repeated (query, doc) in a run file is
    # evaluated with its best-ranked entry, and to_dict() must give that entry too
    p = _write(tmp_path, "dup.run", b"1 Q0 d1 1 2.0 r\n1 Q0 d1 2 3.0 r\n1 Q0 d2 3 1.0 r\n")
    run = irscore.read_run(p)
    assert run.to_dict() == {"1": {"d1": 3.0, "d2": 1.0}}
    qrels = {"1": {"d1": 1, "d2": 1}}
    with pytest.warns(RuntimeWarning, match="repeated"):
        from_file = irscore.evaluate(qrels, run, ["AP", "RR"], per_query=True)
    assert irscore.evaluate(qrels, run.to_dict(), ["AP", "RR"], per_query=True) == from_file


def test_utf8_bom_is_not_part_of_the_first_query_id(tmp_path):
    p = _write(tmp_path, "bom.run", "\ufeff1 Q0 d1 1 1.0 r\n1 Q0 d2 2 0.5 r\n".encode())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = irscore.read_run(p)
    assert run.query_ids == ["1"]


@pytest.mark.parametrize("reader", [irscore.read_run, irscore.read_qrels])
def test_truncated_gzip_is_a_value_error_naming_the_file(tmp_path, reader):
    gz = gzip.compress(b"1 Q0 d1 1 1.0 r\n" * 200, mtime=0)
    p = tmp_path / "t.gz"
    p.write_bytes(gz[: len(gz) // 2])
    with pytest.raises((ValueError, OSError), match="t.gz"):
        reader(p)


def test_binary_input_gives_a_short_message(tmp_path):
    p = _write(tmp_path, "bin.run", b"1 Q0 d1 1 " + bytes(range(0x80, 0x100)) * 3 + b" r\n")
    with pytest.raises(ValueError) as info:
        irscore.read_run(p)
    assert "\ufffd" not in str(info.value) and len(str(info.value)) < 150, str(info.value)
