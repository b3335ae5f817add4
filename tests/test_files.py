"""One way to open files: every reader detects gzip by its magic bytes (not
by the file name) and names the path when it cannot open it."""
import gzip
import shutil
from pathlib import Path

import pytest

import irscore
from irscore import xml as X
from irscore.core.files import open_text

DATA = Path(__file__).parent / "data"


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
