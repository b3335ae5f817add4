"""`irscore eval` behaviour that differs from trec_eval on purpose, and its errors."""
import subprocess
import sys

import pytest


def _run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "irscore", "eval", *map(str, args)], input=stdin,
                          capture_output=True, text=True)


@pytest.fixture
def files(tmp_path):
    q = tmp_path / "qrels"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    r = tmp_path / "run"
    r.write_text("1 Q0 a 1 2.0 sys\n1 Q0 b 2 1.0 sys\n")
    return q, r


def test_missing_query_is_skipped_with_a_warning(files):
    q, r = files
    p = _run("-m", "map", "-m", "num_q", q, r)
    assert p.returncode == 0
    assert "1 qrels query not in the run skipped" in p.stderr and ": 2" in p.stderr
    assert p.stdout.split() == ["num_q", "all", "1", "map", "all", "1.0000"]  # trec_eval's order
    # -c counts it, as trec_eval does
    p = _run("-c", "-m", "map", "-m", "num_q", q, r)
    assert p.stdout.split() == ["num_q", "all", "2", "map", "all", "0.5000"]
    assert p.stderr == ""


@pytest.mark.parametrize("spec,name,missing", [("relstring", "relstring", "''"),
                                               ("relstring.20", "relstring_20", "'-'"),
                                               ("relstring.1", "relstring_1", "'-'"),
                                               ("relstring.0", "relstring_0", "''")])
def test_complete_stand_in_ranking_in_relstring(files, spec, name, missing):
    """-c evaluates a query missing from the run on trec_eval's stand-in
    ranking (one unjudged document): trec_eval 10 clears plain ``relstring``
    for it but not ``relstring.N``, which shows the stand-in as '-' (the
    expected lines are trec_eval 10's output on these files)."""
    q, r = files
    p = _run("-c", "-q", "-m", spec, q, r)
    assert p.returncode == 0, p.stderr
    first = "''" if spec == "relstring.0" else ("'1'" if spec == "relstring.1" else "'10'")
    assert [line.split() for line in p.stdout.splitlines()] == [[name, "1", first], [name, "2", missing]]


def test_per_query_lines_and_runid(files):
    q, r = files
    p = _run("-q", "-c", "-m", "P.1", "-m", "runid", q, r)
    assert p.stdout.splitlines() == ["P_1                   \t1\t1.0000", "P_1                   \t2\t0.0000",
                                     "runid                 \tall\tsys", "P_1                   \tall\t0.5000"]


@pytest.mark.parametrize("args,msg", [
    (["-m", "P@0"], "cutoff must be positive"),
    (["-m", "nosuchmeasure"], "unknown measure"),
    (["-M", "-1"], "-M must be non-negative"),
])
def test_errors_exit_2_with_a_message(files, args, msg):
    q, r = files
    p = _run(*args, q, r)
    assert p.returncode == 2
    assert msg in p.stderr
    assert p.stdout == ""


@pytest.mark.parametrize("args", [["-M", "1.5"], ["-l", "x"], ["--bogus"], ["-m"], []])
def test_usage_errors_are_one_line(files, args):
    # argparse printed its usage block before the error (found in review)
    q, r = files
    p = _run(*args, *([q, r] if args else []))
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.splitlines()) == 1 and "error:" in p.stderr and "Traceback" not in p.stderr


def test_missing_file(tmp_path, files):
    q, _ = files
    p = _run(q, tmp_path / "nope")
    assert p.returncode == 2 and "not found" in p.stderr
