"""Inputs that are not regular files: standard input ("-"), pipes, named FIFOs,
character devices, and compressed files (gzip, bzip2, xz; zstd refused).

Streams are read once, whole, and parsed as a file is: nothing of their start is
lost, a FIFO whose writer has finished does not hang.  Each stream case runs in
a subprocess with a time limit (a hang fails the test instead of the suite)."""
import bz2
import gzip
import lzma
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import irscore
from irscore.core.files import InputFileError

LIMIT = 60


def _write_files(tmp_path):
    """A run of about 60 KiB (well over the 8 KiB a peek used to swallow) and its qrels."""
    rng = np.random.default_rng(7)
    run, qrels = [], []
    for q in range(40):
        docs = rng.permutation(400)[:120]
        for r, d in enumerate(docs):
            run.append(f"q{q} Q0 d{d} {r + 1} {1000 - r}.5 sys\n")
        for d in rng.permutation(400)[:60]:
            qrels.append(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n")
    rp, qp = tmp_path / "run.txt", tmp_path / "qrels.txt"
    rp.write_text("".join(run))
    qp.write_text("".join(qrels))
    assert rp.stat().st_size > 5 * 8192
    return qp, rp


def _cli(args, stdin=None, input=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "irscore", *map(str, args)], stdin=stdin, input=input,
                          capture_output=True, timeout=LIMIT, cwd=cwd)


def _python(code, cwd=None):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=LIMIT, cwd=cwd)


MEASURES = ["-q", "-m", "num_ret", "-m", "map", "-m", "ndcg"]


def test_cli_run_from_standard_input_dash_equals_the_file(tmp_path):
    qp, rp = _write_files(tmp_path)
    want = _cli(["eval", *MEASURES, qp, rp])
    assert want.returncode == 0, want.stderr
    got = _cli(["eval", *MEASURES, qp, "-"], input=rp.read_bytes())
    assert got.returncode == 0, got.stderr
    assert got.stdout == want.stdout


def test_cli_qrels_from_standard_input_dash_equals_the_file(tmp_path):
    qp, rp = _write_files(tmp_path)
    want = _cli(["eval", *MEASURES, qp, rp])
    got = _cli(["eval", *MEASURES, "-", rp], input=qp.read_bytes())
    assert got.returncode == 0, got.stderr
    assert got.stdout == want.stdout


def test_cli_dev_stdin_pipe_and_gzip_through_a_pipe(tmp_path):
    qp, rp = _write_files(tmp_path)
    want = _cli(["eval", *MEASURES, qp, rp]).stdout
    # /dev/stdin of a pipe: the first 8 KiB were lost to the gzip peek
    with subprocess.Popen(["cat", str(rp)], stdout=subprocess.PIPE) as cat:
        got = _cli(["eval", *MEASURES, qp, "/dev/stdin"], stdin=cat.stdout)
    assert got.returncode == 0, got.stderr
    assert got.stdout == want
    got = _cli(["eval", *MEASURES, qp, "-"], input=gzip.compress(rp.read_bytes()))
    assert got.returncode == 0, got.stderr
    assert got.stdout == want


def test_cli_process_substitution(tmp_path):
    qp, rp = _write_files(tmp_path)
    want = _cli(["eval", *MEASURES, qp, rp]).stdout
    got = subprocess.run(["bash", "-c", f'"$0" -m irscore eval {" ".join(MEASURES)} "$1" <(cat "$2")',
                          sys.executable, str(qp), str(rp)], capture_output=True, timeout=LIMIT)
    assert got.returncode == 0, got.stderr
    assert got.stdout == want


@pytest.mark.parametrize("args", [["eval", "-", "-"], ["compare", "-", "RUN", "-"], ["eval", "-Z", "-", "-", "RUN"]])
def test_cli_standard_input_named_twice_is_one_line_error(tmp_path, args):
    qp, rp = _write_files(tmp_path)
    args = [str(rp) if a == "RUN" else a for a in args]
    got = _cli(args, input=b"")
    assert got.returncode == 2
    err = got.stderr.decode()
    assert err.count("\n") == 1 and "standard input (-) given 2 times" in err and "Traceback" not in err


def test_cli_rs_and_xml_read_standard_input():
    from pathlib import Path
    data = Path(__file__).parent / "data"
    gold = data / "organization" / "table9_gold.tsv"
    want = _cli(["rs", gold, gold]).stdout
    got = _cli(["rs", gold, "-"], input=gold.read_bytes())
    assert got.returncode == 0, got.stderr
    assert got.stdout == want
    q, r = data / "xml" / "focused.qrels", data / "xml" / "focused.fol"
    want = _cli(["xml", q, r]).stdout
    for args, inp in (([q, "-"], r), (["-", r], q)):
        got = _cli(["xml", *args], input=inp.read_bytes())
        assert got.returncode == 0, got.stderr
        assert got.stdout == want


def test_read_run_and_read_qrels_of_dash_read_standard_input(tmp_path):
    qp, rp = _write_files(tmp_path)
    code = f"""
        import sys, irscore
        r = irscore.read_run("-")
        f = irscore.read_run({str(rp)!r})
        assert r.n_entries == f.n_entries, (r.n_entries, f.n_entries)
        assert irscore.evaluate({str(qp)!r}, r, "map") == irscore.evaluate({str(qp)!r}, f, "map")
        assert irscore.read_run("-").n_entries == f.n_entries      # read again: the same content
        print("ok")
    """
    got = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], input=rp.read_bytes(),
                         capture_output=True, timeout=LIMIT)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == b"ok\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named FIFOs")
@pytest.mark.parametrize("compressed", [False, True])
def test_named_fifo_whose_writer_finished_is_read_without_hanging(tmp_path, compressed):
    qp, rp = _write_files(tmp_path)
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    payload = tmp_path / ("run.gz" if compressed else "copy.txt")
    payload.write_bytes(gzip.compress(rp.read_bytes()) if compressed else rp.read_bytes())
    code = f"""
        import threading, irscore

        def write():
            with open({str(fifo)!r}, "wb") as f:        # one writer: writes all and closes
                f.write(open({str(payload)!r}, "rb").read())

        t = threading.Thread(target=write)
        t.start()
        r = irscore.read_run({str(fifo)!r})
        t.join()
        f = irscore.read_run({str(rp)!r})
        assert r.n_entries == f.n_entries, (r.n_entries, f.n_entries)
        assert irscore.evaluate({str(qp)!r}, r, "ndcg") == irscore.evaluate({str(qp)!r}, f, "ndcg")
        print("ok")
    """
    got = _python(code)
    assert got.returncode == 0, got.stderr
    assert got.stdout == "ok\n"


def test_character_devices_empty_and_binary():
    got = _python("""
        import irscore
        for dev, want in (("/dev/null", "empty run file"), ("/dev/zero", "binary data")):
            try:
                irscore.read_run(dev)
            except ValueError as exc:
                assert dev in str(exc) and want in str(exc), str(exc)
            else:
                raise AssertionError(dev)
        print("ok")
    """)
    assert got.returncode == 0, got.stderr
    assert got.stdout == "ok\n"


@pytest.mark.parametrize("fmt,compress", [("bzip2", bz2.compress), ("xz", lzma.compress)])
def test_bzip2_and_xz_runs_and_qrels_are_read_like_gzip(tmp_path, fmt, compress):
    qp, rp = _write_files(tmp_path)
    cr, cq = tmp_path / "run.c", tmp_path / "qrels.c"
    cr.write_bytes(compress(rp.read_bytes()))
    cq.write_bytes(compress(qp.read_bytes()))
    assert irscore.evaluate(cq, cr, ["map", "ndcg"]) == irscore.evaluate(qp, rp, ["map", "ndcg"])
    bad = tmp_path / "bad.c"
    bad.write_bytes(cr.read_bytes()[:len(cr.read_bytes()) // 2])
    with pytest.raises(InputFileError, match=rf"bad\.c: truncated or corrupt {fmt} file"):
        irscore.read_run(bad)


def test_zstd_is_refused_naming_the_format_and_file(tmp_path):
    p = tmp_path / "run.zst"
    p.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(40))
    with pytest.raises(InputFileError, match=r"run\.zst: zstd-compressed file: zstd is not supported"):
        irscore.read_run(p)
    got = _cli(["eval", p, p])
    assert got.returncode == 2 and b"zstd is not supported" in got.stderr


def test_text_starting_like_bzip2_is_still_text(tmp_path):
    p = tmp_path / "run"
    p.write_text("BZh9 Q0 d1 1 1.0 sys\n")
    assert irscore.read_run(p).n_entries == 1
