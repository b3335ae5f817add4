"""One way to open files: every reader detects gzip by its magic bytes (not
by the file name) and names the path when it cannot open it."""
import gzip
import shutil
from pathlib import Path

import pytest

import irscore
from irscore import xml as X
from irscore.core.files import open_text

DATA = Path(__file__).resolve().parents[1] / "data"


def _gzip_as(src: Path, dst: Path) -> Path:
    with open(src, "rb") as f, gzip.open(dst, "wb") as g:
        shutil.copyfileobj(f, g)
    return dst


@pytest.mark.parametrize("name", ["plain_name.txt", "other.gz"])
def test_open_text_reads_gzip_by_magic_and_plain_whatever_the_name(tmp_path, name):
    p = tmp_path / name
    if name.endswith(".txt"):
        _gzip_as(DATA / "xml" / "focused.fol", p)
    else:
        shutil.copy(DATA / "xml" / "focused.fol", p)      # plain text named .gz
    with open_text(p) as fh:
        assert fh.read() == (DATA / "xml" / "focused.fol").read_text(encoding="utf-8")


def test_every_reader_reads_a_gzip_file_without_gz_suffix(tmp_path):
    org = _gzip_as(DATA / "organization" / "table9_gold.tsv", tmp_path / "gold.tsv")
    assert irscore.read_organization(org).topics == irscore.read_organization(
        DATA / "organization" / "table9_gold.tsv").topics
    fol = _gzip_as(DATA / "xml" / "focused.fol", tmp_path / "run.fol")
    a, b = X.read_fol_run(fol), X.read_fol_run(DATA / "xml" / "focused.fol")
    assert a.topics == b.topics and list(a.start) == list(b.start)
    q = _gzip_as(DATA / "xml" / "focused.qrels", tmp_path / "q.txt")
    assert X.read_passage_qrels(q).topics == X.read_passage_qrels(DATA / "xml" / "focused.qrels").topics


@pytest.mark.parametrize("reader", [irscore.read_qrels, irscore.read_organization, X.read_fol_run,
                                    X.read_passage_qrels])
def test_missing_file_error_names_the_path(tmp_path, reader):
    missing = tmp_path / "nope.txt"
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        reader(missing)


# ---------------------------------------------------------------- one line rule for every reader
# Lines end at "\n" only; fields are separated by ASCII white space (space, tab,
# \r, \v, \f): form feed and vertical tab separate fields, "\r\r\n" ends a line
# like "\n", and U+0085 / U+2028 are characters of an id, as in the qrels reader
# (and trec_eval's readers).

from irscore.classic import read_qrels_jg  # noqa: E402
from irscore.core.zscores import read_zscores  # noqa: E402
from irscore.prefs import read_prefs, read_qrels_prefs  # noqa: E402

_ODD_ID = "q\u20281\u0085"      # LINE SEPARATOR and NEXT LINE inside a query id


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8"))
    return p


@pytest.mark.parametrize("sep", ["\f", "\v", "\r", " \t"])
def test_form_feed_vertical_tab_and_cr_separate_fields_in_every_reader(tmp_path, sep):
    qrels = _write(tmp_path, "q", f"q1{sep}0{sep}d1{sep}2\nq1 0 d2 0\n")
    assert read_qrels_jg(qrels) == {"q1": {"0": {"d1": 2, "d2": 0}}}
    assert read_qrels_prefs(qrels).lines == {"q1": [("0", "0", "d1", 2.0), ("0", "0", "d2", 0.0)]}
    assert irscore.read_qrels(qrels).to_dict() == {"q1": {"d1": 2, "d2": 0}}
    prefs = _write(tmp_path, "p", f"q1{sep}a{sep}b{sep}d1{sep}1\n")
    assert read_prefs(prefs).lines == {"q1": [("a", "b", "d1", 1.0)]}
    z = _write(tmp_path, "z", f"q1{sep}map{sep}0.5{sep}0.1\n")
    assert read_zscores(z) == {"q1": {"map": (0.5, 0.1)}}


def test_cr_cr_lf_ends_a_line_in_every_reader(tmp_path):
    qrels = _write(tmp_path, "q", "q1 0 d1 1\r\r\nq2 0 d2 1\r\r\n")
    assert read_qrels_jg(qrels) == {"q1": {"0": {"d1": 1}}, "q2": {"0": {"d2": 1}}}
    assert read_qrels_prefs(qrels).query_ids == ["q1", "q2"]
    assert read_prefs(_write(tmp_path, "p", "q1 a b d1 1\r\r\nq1 a b d2 0\r\r\n")).lines["q1"][1] == \
        ("a", "b", "d2", 0.0)
    assert read_zscores(_write(tmp_path, "z", "q1 map 1 2\r\r\nq2 map 3 4\r\r\n")) == \
        {"q1": {"map": (1.0, 2.0)}, "q2": {"map": (3.0, 4.0)}}


def test_unicode_line_separators_are_part_of_an_id_as_in_the_qrels_reader(tmp_path):
    qrels = _write(tmp_path, "q", f"{_ODD_ID} 0 d\u20281 1\n")
    assert list(irscore.read_qrels(qrels).to_dict()) == [_ODD_ID]
    assert read_qrels_jg(qrels) == {_ODD_ID: {"0": {"d\u20281": 1}}}
    assert read_qrels_prefs(qrels).query_ids == [_ODD_ID]
    assert read_prefs(_write(tmp_path, "p", f"{_ODD_ID} a b d 1\n")).query_ids == [_ODD_ID]
    assert read_zscores(_write(tmp_path, "z", f"{_ODD_ID} map 1 2\n")) == {_ODD_ID: {"map": (1.0, 2.0)}}


@pytest.mark.parametrize("reader,good,bad", [
    (read_qrels_jg, "{q} 0 d 1", "q 0 d"),
    (read_qrels_prefs, "{q} 0 d 1", "q 0 d"),
    (read_prefs, "{q} a b d 1", "q a b"),
    (read_zscores, "{q} map 1 2", "q map 1"),
])
def test_error_line_numbers_count_newlines_only(tmp_path, reader, good, bad):
    # line 1 holds U+2028 and U+0085, line 2 ends in \r\r\n and has a form feed: the bad line is line 3
    text = good.format(q=_ODD_ID) + "\n" + good.format(q="q2").replace(" ", "\f", 1) + "\r\r\n" + bad + "\n"
    p = _write(tmp_path, "f", text)
    with pytest.raises(ValueError, match=r"f:3: malformed .* got 3 fields"):
        reader(p)
