"""Readers of every family on bad files and ids: errors naming the file (and line)
or the argument; names given to what is read."""
import gzip
from pathlib import Path

import pytest

import irscore
from irscore.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
RUN = b"1 Q0 a 1 2.0 sys\n1 Q0 b 2 1.0 sys\n2 Q0 c 1 1.0 sys\n"


def test_api_errors_name_the_file(tmp_path):
    from irscore import organization, xml

    bad = tmp_path / "t.gz"
    bad.write_bytes(gzip.compress(RUN * 50)[:30])
    with pytest.raises(ValueError, match="t.gz: truncated or corrupt gzip"):
        irscore.read_run(bad)
    with pytest.raises(ValueError, match="t.gz: truncated or corrupt gzip"):
        irscore.read_qrels(bad)
    with pytest.raises(ValueError, match="t.gz: truncated or corrupt gzip"):
        xml.read_fol_run(bad)
    with pytest.raises(ValueError, match="t.gz: truncated or corrupt gzip"):
        organization.read_organization(bad, "tsv")
    latin = tmp_path / "latin.fol"
    latin.write_bytes(b"1 Q0 d\xe91 1 1.0 r 0 10\n")
    with pytest.raises(ValueError, match=r"latin.fol: not UTF-8 text \(byte 0xe9 at offset 6, line 1\)"):
        xml.read_fol_run(latin)
    with pytest.raises(FileNotFoundError, match="nope"):
        irscore.read_run(tmp_path / "nope")


def test_deeply_nested_json_organization(tmp_path, capsys):
    p = tmp_path / "deep.json"
    p.write_text('{"t": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ValueError, match="deep.json: JSON nested too deeply"):
        irscore.read_organization(p)
    assert main(["rs", str(p), str(p)]) == 2
    err = capsys.readouterr().err
    assert "deep.json" in err and len(err.strip().splitlines()) == 1


def test_read_organization_name():
    p = DATA / "organization" / "table9_gold.tsv"
    assert irscore.read_organization(p, name="gold").name == "gold"
    assert irscore.read_organization(p).name == str(p)


def test_unencodable_ids_name_the_argument(tmp_path):
    q = {"1": {"a": 1}}
    with pytest.raises(ValueError, match=r"run: id '1\\udc80' is not encodable"):
        irscore.evaluate(q, {"1\udc80": {"a": 1.0}}, ["P@5"])
    with pytest.raises(ValueError, match=r"qrels\['1'\]: id 'a\\udc80' is not encodable"):
        irscore.evaluate({"1": {"a\udc80": 1}}, {"1": {"a": 1.0}}, ["P@5"])
    p = tmp_path / "latin.run"
    p.write_bytes(b"1 Q0 d\xe9 1 1.0 r\n")
    # the tokenizer refuses ids that are not UTF-8 when it reads the file, naming file and line
    with pytest.raises(ValueError, match=r"latin.run:1: binary or non-UTF-8 data"):
        irscore.read_run(p)
