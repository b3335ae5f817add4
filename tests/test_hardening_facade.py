"""Bad input through the façade: clear errors naming the file or argument, never a
traceback or a silent wrong number (issue 9, Python side)."""
import builtins
import gzip
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import irscore
from irscore.cli import main

DATA = Path(__file__).parent / "data"

QRELS = b"1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = b"1 Q0 a 1 2.0 sys\n1 Q0 b 2 1.0 sys\n2 Q0 c 1 1.0 sys\n"


def _bad_variants(tmp_path, stem, good: bytes):
    """Broken copies of a good input file: (kind, path)."""
    data = good * 40
    gz = gzip.compress(data)
    out = []
    p = tmp_path / f"{stem}.trunc.gz"
    p.write_bytes(gz[: len(gz) // 2])
    out.append(("truncated gzip", p))
    bad = bytearray(gz)
    for i in range(20, min(len(bad) - 8, 60)):
        bad[i] ^= 0x55
    p = tmp_path / f"{stem}.corrupt.gz"
    p.write_bytes(bytes(bad))
    out.append(("corrupt gzip", p))
    p = tmp_path / f"{stem}.bin"
    p.write_bytes(bytes(range(256)) * 4)
    out.append(("binary", p))
    p = tmp_path / f"{stem}.latin1"
    p.write_bytes(b"\xf0\xe9" + data)  # undecodable first field (a query/topic id)
    out.append(("not UTF-8", p))
    p = tmp_path / f"{stem}.dir"
    p.mkdir()
    out.append(("directory", p))
    out.append(("missing", tmp_path / f"{stem}.missing"))
    return out


def _subcommands(tmp_path):
    """(subcommand, good files, index of the file to break, its good content)."""
    q = tmp_path / "q.txt"
    q.write_bytes(QRELS)
    r = tmp_path / "r.txt"
    r.write_bytes(RUN)
    xq = DATA / "xml" / "focused.qrels"
    xr = DATA / "xml" / "focused.fol"
    og = DATA / "organization" / "table9_gold.tsv"
    return [
        ("eval", [q, r], 0, QRELS),
        ("eval", [q, r], 1, RUN),
        ("xml", [xq, xr], 0, xq.read_bytes()),
        ("xml", [xq, xr], 1, xr.read_bytes()),
        ("rs", [og, og], 0, og.read_bytes()),
        ("rs", [og, og], 1, og.read_bytes()),
    ]


def test_cli_bad_files_one_line_exit_2(tmp_path, capsys):
    n = 0
    for cmd, files, i, good in _subcommands(tmp_path):
        where = tmp_path / f"{cmd}{i}"
        where.mkdir()
        for kind, bad in _bad_variants(where, f"f{i}", good):
            args = [str(f) for f in files]
            args[i] = str(bad)
            rc = main([cmd, *args])
            out, err = capsys.readouterr()
            what = f"irscore {cmd} with a {kind} file: {err!r}"
            assert rc == 2, what
            lines = err.strip().splitlines()
            assert len(lines) == 1, what
            assert "Traceback" not in err, what
            assert bad.name in err, what
            assert out == "", what
            n += 1
    assert n == 36


def test_cli_no_traceback_in_a_real_process(tmp_path):
    bad = tmp_path / "run.gz"
    bad.write_bytes(gzip.compress(RUN * 50)[:30])
    q = tmp_path / "q"
    q.write_bytes(QRELS)
    p = subprocess.run([sys.executable, "-m", "irscore", "eval", str(q), str(bad)], capture_output=True, text=True)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert "run.gz: truncated or corrupt gzip file" in p.stderr


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


def test_plot_without_matplotlib(monkeypatch):
    from irscore import plot

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    for mod in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, mod)
    qrels = {"1": {"a": 1}}
    with pytest.raises(ModuleNotFoundError, match=r"irscore.plot needs matplotlib: pip install 'irscore\[plot\]'"):
        plot.crp(qrels, {"r": {"1": {"a": 1.0}}}, "1")
    from irscore import xml

    q = xml.read_passage_qrels(DATA / "xml" / "focused.qrels")
    r = xml.read_fol_run(DATA / "xml" / "focused.fol")
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'irscore\[plot\]'"):
        plot.ip_curve(q, {"r": r})
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'irscore\[plot\]'"):
        plot.ep_gr_curve(q, {"r": r})


def test_read_organization_name():
    p = DATA / "organization" / "table9_gold.tsv"
    assert irscore.read_organization(p, name="gold").name == "gold"
    assert irscore.read_organization(p).name == str(p)
