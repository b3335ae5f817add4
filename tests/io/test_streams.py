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
from pathlib import Path

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
    data = Path(__file__).resolve().parents[1] / "data"
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


# ---------------------------------------------------------------------------
# every command and reader that takes a path: a named FIFO, "-" and process
# substitution give what the regular file gives
# ---------------------------------------------------------------------------
DATA = Path(__file__).resolve().parents[1] / "data"
ORG, XMLD, TE = DATA / "organization", DATA / "xml", DATA / "trec_eval"

SUBMISSION = """<?xml version="1.0" encoding="UTF-8"?>
<inex-submission participant-id="7" run-id="p7-focused" task="Focused" query="automatic" result-type="passage">
  <topic topic-id="1">
    <result><file>d1</file><fol offset="200" length="200"/><rsv>0.9</rsv></result>
    <result><file>d2</file><fol offset="0" length="50"/><fol offset="60" length="40"/><rsv>0.8</rsv></result>
  </topic>
</inex-submission>
"""


def _submission(tmp_path):
    p = tmp_path / "run.xml"
    p.write_text(SUBMISSION)
    return p


# the arguments of a command, its input files as paths (each given through a FIFO, "-", <(...))
COMMANDS = {
    "rs_tsv": ["rs", ORG / "table9_gold.tsv", ORG / "table9_gold.tsv"],
    "rs_json_by_content": ["rs", "-q", ORG / "table9_gold.tsv", ORG / "table9_system4.json"],
    "rs_clusters": ["rs", "--format", "clusters", ORG / "clusters_gold.txt", ORG / "clusters_system.txt"],
    "rs_labels": ["rs", "--uniform", "--format", "labels", ORG / "labels_gold.txt", ORG / "labels_system.txt"],
    "xml_passages": ["xml", "-q", XMLD / "focused.qrels", XMLD / "focused.fol"],
    "xml_inex2008": ["xml", "--compat", "inex2008", XMLD / "focused.qrels", XMLD / "focused.fol"],
    "xml_elements": ["xml", "--exh-max", "2", XMLD / "elements.tsv", XMLD / "elements.fol"],
    "xml_submission": ["xml", XMLD / "focused.qrels", _submission],
    "eval_intents": ["eval", "-q", "--intents", "-m", "alpha_nDCG@10", TE / "qrels.test", TE / "results.test"],
    "eval_prefs": ["eval", "-R", "prefs", TE / "prefs.test", TE / "prefs.results.test"],
    "eval_qrels_prefs": ["eval", "-R", "qrels_prefs", TE / "qrels.test", TE / "results.test"],
    "eval_qrels_jg": ["eval", "-R", "qrels_jg", TE / "qrels.test", TE / "results.test"],
    "eval_zscores": ["eval", "-m", "map", "-Z", TE / "zscores_file", TE / "qrels.test", TE / "results.test"],
    "eval_trec": ["eval", "-q", "-m", "map", "-m", "ndcg_cut", TE / "qrels.test", TE / "results.test"],
    "compare": ["compare", "--names", "A,B", "-m", "map", TE / "qrels.test", TE / "results.test",
                TE / "results.trunc"],
}

# the CLI in a subprocess, each argument "FIFO:<path>" given through a named FIFO written
# by one writer that writes it all and closes (a daemon thread: a reader that opens the
# FIFO a second time waits for ever, and the time limit fails the test)
FIFO_CLI = """
import os, sys, threading
from irscore.cli import main

def feed(fifo, src):
    with open(fifo, "wb") as f, open(src, "rb") as s:
        f.write(s.read())

args = sys.argv[2:]
for i, a in enumerate(args):
    if a.startswith("FIFO:"):
        fifo = os.path.join(sys.argv[1], f"in{i}.fifo")
        os.mkfifo(fifo)
        threading.Thread(target=feed, args=(fifo, a[5:]), daemon=True).start()
        args[i] = fifo
sys.exit(main(args))
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named FIFOs")
@pytest.mark.parametrize("case", sorted(COMMANDS))
def test_cli_inputs_through_fifos_stdin_and_process_substitution(tmp_path, case):
    argv = [a(tmp_path) if callable(a) else a for a in COMMANDS[case]]
    files = [i for i, a in enumerate(argv) if isinstance(a, Path)]
    argv = [str(a) for a in argv]
    want = _cli(argv)
    assert want.returncode == 0, want.stderr
    assert want.stdout
    # every file through a named FIFO whose writer finishes
    fifos = [f"FIFO:{a}" if i in files else a for i, a in enumerate(argv)]
    got = subprocess.run([sys.executable, "-c", FIFO_CLI, str(tmp_path), *fifos], capture_output=True,
                         timeout=LIMIT)
    assert (got.returncode, got.stdout, got.stderr) == (0, want.stdout, want.stderr)
    # each file in turn from standard input
    for i in files:
        args = [*argv[:i], "-", *argv[i + 1:]]
        got = _cli(args, input=Path(argv[i]).read_bytes())
        assert (got.returncode, got.stdout, got.stderr) == (0, want.stdout, want.stderr), args
    # every file through process substitution (/dev/fd/N: anonymous pipes)
    script = " ".join(f'<(cat "${k}")' if k - 1 in files else f'"${k}"' for k in range(1, len(argv) + 1))
    got = subprocess.run(["bash", "-c", f'"$0" -m irscore {script}', sys.executable, *argv], capture_output=True,
                         timeout=LIMIT)
    assert (got.returncode, got.stdout, got.stderr) == (0, want.stdout, want.stderr)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named FIFOs")
def test_readers_of_a_named_fifo_read_it_once_and_equal_the_file(tmp_path):
    """The Python readers of every family, each through a named FIFO (one writer that
    finishes) and from the regular file: equal results."""
    layout_sizes = {"art": [("/article[1]", 300), ("/article[1]/sec[1]", 100), ("/article[1]/sec[2]", 200)]}
    (tmp_path / "a.xml").write_text(
        '<?xml version="1.0"?>\n<assessments topic="7">\n  <file file="art">\n'
        '    <path path="/article[1]" exhaustivity="1" size="300" rsize="150"/>\n'
        '    <path path="/article[1]/sec[1]" exhaustivity="2" size="100" rsize="100"/>\n'
        '  </file>\n</assessments>\n')
    (tmp_path / "r.xml").write_text(
        '<inex-submission run-id="R1">\n<topic topic-id="7">\n'
        ' <result><file>art</file><path>/article[1]/sec[1]</path><rank>1</rank></result>\n'
        ' <result><file>art</file><path>/article[1]</path><rank>2</rank></result>\n'
        '</topic></inex-submission>\n')
    _submission(tmp_path)
    code = f"""
        import dataclasses, os, threading
        import numpy as np
        from irscore import xml as X
        from irscore.organization import read_organization
        from irscore.prefs import read_prefs, read_qrels_prefs
        from irscore.core.zscores import read_zscores
        from irscore.classic import read_qrels_jg
        from irscore.diversity import read_diversity_qrels

        tmp = {str(tmp_path)!r}
        layout = X.layout_from_sizes({layout_sizes!r})
        cases = [
            (lambda p: read_organization(p), {str(ORG / "table9_gold.tsv")!r}),
            (lambda p: read_organization(p), {str(ORG / "table9_system4.json")!r}),
            (lambda p: read_organization(p, "json"), {str(ORG / "table9_system4.json")!r}),
            (lambda p: read_organization(p, "clusters"), {str(ORG / "clusters_gold.txt")!r}),
            (lambda p: read_organization(p, "labels"), {str(ORG / "labels_gold.txt")!r}),
            (lambda p: X.read_passage_qrels(p), {str(XMLD / "focused.qrels")!r}),
            (lambda p: X.read_fol_run(p), {str(XMLD / "focused.fol")!r}),
            (lambda p: X.read_element_tsv(p, exh_max=2), {str(XMLD / "elements.tsv")!r}),
            (lambda p: X.read_inex_assessments(p, layout), os.path.join(tmp, "a.xml")),
            (lambda p: X.read_inex_run(p, layout), os.path.join(tmp, "r.xml")),
            (lambda p: X.read_inex_submission(p), os.path.join(tmp, "run.xml")),
            (lambda p: X.inex2008.read_qrels(p), {str(XMLD / "focused.qrels")!r}),
            (lambda p: X.inex2008.read_run(p), {str(XMLD / "focused.fol")!r}),
            (lambda p: read_prefs(p), {str(TE / "prefs.test")!r}),
            (lambda p: read_qrels_prefs(p), {str(TE / "qrels.test")!r}),
            (lambda p: read_qrels_jg(p), {str(TE / "qrels.test")!r}),
            (lambda p: read_zscores(p), {str(TE / "zscores_file")!r}),
            (lambda p: read_diversity_qrels(p), {str(TE / "qrels.test")!r}),
        ]

        def fingerprint(x):
            if hasattr(x, "int_off"):       # DiversityQrels: the grades and the intent tables
                return x.to_dict(), x.int_off.tolist(), x.intent.tolist(), x.grade.tolist()
            if hasattr(x, "to_dict"):
                return x.to_dict()
            if dataclasses.is_dataclass(x):
                return {{f.name: fingerprint(getattr(x, f.name)) for f in dataclasses.fields(x) if f.name != "source"}}
            if isinstance(x, np.ndarray):
                return x.tolist()
            if isinstance(x, dict):
                return {{k: fingerprint(v) for k, v in x.items()}}
            return x

        def feed(fifo, src):
            with open(fifo, "wb") as f, open(src, "rb") as s:
                f.write(s.read())

        for i, (read, src) in enumerate(cases):
            fifo = os.path.join(tmp, f"case{{i}}.fifo")
            os.mkfifo(fifo)
            threading.Thread(target=feed, args=(fifo, src), daemon=True).start()
            got = fingerprint(read(fifo))
            want = fingerprint(read(src))
            assert want and got == want, (i, src, got, want)
        print("ok", len(cases))
    """
    got = _python(code)
    assert got.returncode == 0, got.stderr
    assert got.stdout == "ok 18\n"
