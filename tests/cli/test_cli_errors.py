"""The command line on bad input: one line on stderr, exit 2, no traceback, for
every subcommand and kind of broken file, huge options; warnings on one line."""
import gzip
import subprocess
import sys
from pathlib import Path

from irscore.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
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


def test_cli_huge_options_are_one_line_errors(tmp_path, capsys):
    q = tmp_path / "q"
    q.write_bytes(QRELS)
    r = tmp_path / "r"
    r.write_bytes(RUN)
    for opt, msg in [(["-M", "99999999999999999999999"], "max_docs"), (["-N", "1e400"], "num_docs_in_coll"),
                     (["-l", "99999999999999999999999"], "relevance level"),
                     (["-m", "P.99999999999999999999"], "too large")]:
        assert main(["eval", *opt, str(q), str(r)]) == 2
        err = capsys.readouterr().err
        assert msg in err and len(err.strip().splitlines()) == 1


def test_cli_warnings_are_one_line(tmp_path):
    fol = tmp_path / "bom.fol"
    fol.write_bytes(b"\xef\xbb\xbf" + (DATA / "xml" / "focused.fol").read_bytes())
    p = subprocess.run([sys.executable, "-m", "irscore", "xml", "-m", "MAiP", str(DATA / "xml" / "focused.qrels"),
                        str(fol)], capture_output=True, text=True)
    assert p.returncode == 0
    assert p.stderr.splitlines() == [f"irscore xml: warning: {fol}: UTF-8 byte-order mark at the start ignored"]
    plain = subprocess.run([sys.executable, "-m", "irscore", "xml", "-m", "MAiP", str(DATA / "xml" / "focused.qrels"),
                            str(DATA / "xml" / "focused.fol")], capture_output=True, text=True)
    assert plain.stdout == p.stdout
