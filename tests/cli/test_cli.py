"""The `irscore` command line: `irscore eval` behaviour that differs from trec_eval on purpose, its
errors and output formats, usage errors of every subcommand, the measure listing."""
import re
import subprocess
import sys
from pathlib import Path

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


# ----------------------------------------------------------------- usage errors of every subcommand

SUBCOMMAND_ARGS = {"eval": ["q", "r"], "rs": ["g", "s"], "xml": ["q", "r"], "compare": ["q", "a", "b"]}


def _irscore(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "irscore", *map(str, args)], input=stdin,
                          capture_output=True, text=True)


@pytest.mark.parametrize("command", sorted(SUBCOMMAND_ARGS))
@pytest.mark.parametrize("where", ["before", "after"])
def test_unknown_option_is_reported_by_the_subcommand(command, where):
    positional = SUBCOMMAND_ARGS[command]
    args = ["-x", *positional] if where == "before" else [*positional, "-x"]
    p = _irscore(command, *args)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == f"irscore {command}: error: unrecognized arguments: -x (see irscore {command} -h)\n"


def test_unknown_option_with_a_value_does_not_blame_the_files():
    p = _irscore("eval", "--bogus", "csv", "q", "r")
    assert p.returncode == 2
    assert p.stderr == "irscore eval: error: unrecognized arguments: --bogus (see irscore eval -h)\n"


# ----------------------------------------------------------------- measure names

def test_measure_help_lists_every_declared_name():
    from irscore.core.measures import ALIASES, FAMILIES, MEASURE_SETS
    from irscore.core.registry import EXTERNAL

    for argv in (["eval", "-m", "help"], ["eval", "-m", "help", "q", "r"], ["measures"], ["compare", "-m", "help"]):
        p = _irscore(*argv)
        assert p.returncode == 0, p.stderr
        words = set(re.split(r"[\s,()\[\]@|:]+", p.stdout))
        missing = [n for n in [*FAMILIES, *ALIASES, *EXTERNAL, *MEASURE_SETS] if n not in words]
        assert not missing, f"{argv}: not listed: {missing}"
        # a registered family's declared parameters are listed with it
        for name, fam in EXTERNAL.items():
            line = next(ln for ln in p.stdout.splitlines() if ln.strip().startswith(f"names: {name}["))
            assert all(f"{param}=" in line for param in fam.param_names), line


def test_measure_listing_knows_every_keyword_of_the_parser():
    # the keywords of ir_measures-style names are read in core/measures.py's parser;
    # a keyword added there must be probed by the listing (or declared unlisted)
    import irscore.core.measures as measures
    from irscore.cli.measures import _KEYWORDS, UNLISTED_KEYWORDS

    source = Path(measures.__file__).read_text(encoding="utf-8")
    parsed = set(re.findall(r'kw\.pop\("(\w+)"', source)) | set(re.findall(r'"(\w+)" in kw\b', source))
    assert parsed and parsed == {k for k, _, _ in _KEYWORDS} | set(UNLISTED_KEYWORDS)


def test_measures_family():
    p = _irscore("measures", "--family", "ndcg")
    assert p.returncode == 0, p.stderr
    assert "nDCG" in p.stdout and "ndcg_cut" not in p.stdout.split()[:1] and "bpref" not in p.stdout
    assert "gain=" in p.stdout
    p = _irscore("measures", "--family", "alpha_nDCG")
    assert p.returncode == 0 and "alpha=" in p.stdout and "map" not in p.stdout.split()
    p = _irscore("measures", "--family", "nDGC")
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "nDCG" in p.stderr


def test_eval_help_says_the_default_set_and_the_name_styles():
    p = _irscore("eval", "-h")
    text = " ".join(p.stdout.split())
    assert "official" in text and "default" in text and "nDCG@10" in text and "-m help" in text


def test_cutoff_before_parameters_gets_a_suggestion(files):
    q, r = files
    p = _run("-m", "nDCG@10(gain=exp)", q, r)
    assert p.returncode == 2
    assert "did you mean nDCG(gain=exp)@10?" in p.stderr
    from irscore.core.measures import parse_measure

    with pytest.raises(ValueError, match=r"did you mean P\(rel=2\)@5\?"):
        parse_measure("P@5(rel=2)")


# ----------------------------------------------------------------- --format

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DECLARATIONS = ["map", "P.5,10", "nDCG@10", "num_rel", "num_q", "runid"]


def _python_values(per_query):
    import irscore

    return irscore.evaluate(str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "run.txt"),
                            [s for s in DECLARATIONS if s not in ("runid", "num_q")], per_query=per_query)


def _eval_example(*extra):
    args = [a for s in DECLARATIONS for a in ("-m", s)]
    p = _run(*extra, *args, EXAMPLES / "qrels.txt", EXAMPLES / "run.txt")
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.mark.parametrize("per_query", [False, True])
def test_format_csv_equals_the_python_api(per_query):
    import csv
    import io

    text = _eval_example("--format", "csv", *(["-q"] if per_query else []))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == ["run_id", "measure", "query_id", "value"]
    assert {r["run_id"] for r in rows} == {"example"} or len({r["run_id"] for r in rows}) == 1
    got = {}
    for r in rows:
        got.setdefault(r["measure"], {})[r["query_id"]] = r["value"]
    means = _python_values(False)
    per = _python_values(True) if per_query else {}
    for m, mean in means.items():
        assert float(got[m]["all"]) == mean          # full precision, not %.4f
        if per_query:
            assert {q: float(v) for q, v in got[m].items() if q != "all"} == per[m]
        else:
            assert list(got[m]) == ["all"]
    assert got["num_q"]["all"] == str(len(_python_values(True)["map"]))
    assert "runid" not in got                        # the run id is a column


@pytest.mark.parametrize("per_query", [False, True])
def test_format_json_equals_the_python_api(per_query):
    import json

    doc = json.loads(_eval_example("--format", "json", *(["-q"] if per_query else [])))
    means = _python_values(False)
    per = _python_values(True) if per_query else {}
    for m, mean in means.items():
        assert doc[m]["all"] == mean
        if per_query:
            assert {q: v for q, v in doc[m].items() if q != "all"} == per[m]
    assert isinstance(doc["num_q"]["all"], int) and doc["runid"]["all"] == _trec_runid()


def _trec_runid():
    line = next(ln for ln in _eval_example().splitlines() if ln.startswith("runid"))
    return line.split("\t")[2]


def test_format_trec_is_the_default():
    assert _eval_example("--format", "trec", "-q") == _eval_example("-q")


def test_format_json_and_csv_with_undefined_values_and_no_summary(files):
    import json

    q, r = files
    p = _run("--format", "json", "-q", "-n", "-m", "Rnorm(N=10)", "-m", "map", q, r)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert "all" not in doc["map"] and doc["map"]["1"] == 1.0
    p = _run("--format", "csv", "-q", "-m", "map", "-m", "relstring", q, r)
    assert "sys,relstring,1,'10'" in p.stdout.splitlines()


def test_format_csv_other_judgment_formats(tmp_path):
    import csv
    import io

    data = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
    p = _run("--format", "csv", "-q", "-R", "prefs", "-m", "prefs_simp", data / "prefs.test",
             data / "prefs.results.test")
    assert p.returncode == 0, p.stderr
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    assert rows and {r["measure"] for r in rows} == {"prefs_simp"} and rows[-1]["query_id"] == "all"


_BLAS_PROBE = """
import json, os, sys
from irscore.cli import main
code = main(['eval', '-m', 'map', sys.argv[1], sys.argv[2]])
from threadpoolctl import threadpool_info
blas = sorted({i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas'})
print(json.dumps([code, blas, os.environ.get('OPENBLAS_NUM_THREADS')]))
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "cpu_count") or (__import__("os").cpu_count() or 1) < 2,
                    reason="one core: OpenBLAS starts no worker thread anyway")
def test_eval_loads_numpys_blas_with_one_thread_and_leaves_the_environment(files):
    # irscore eval calls no BLAS routine; OpenBLAS' worker threads would only spin
    # on the reader's cores.  A user's own OPENBLAS_NUM_THREADS is kept.
    pytest.importorskip("threadpoolctl")
    import json
    import os
    q, r = files
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    p = subprocess.run([sys.executable, "-c", _BLAS_PROBE, str(q), str(r)], env=env, capture_output=True, text=True)
    code, blas, var = json.loads(p.stdout.splitlines()[-1])
    assert code == 0 and var is None
    if not blas:
        pytest.skip("numpy's BLAS is not one threadpoolctl knows")
    assert blas == [1]
    env["OPENBLAS_NUM_THREADS"] = "2"
    p = subprocess.run([sys.executable, "-c", _BLAS_PROBE, str(q), str(r)], env=env, capture_output=True, text=True)
    code, blas, var = json.loads(p.stdout.splitlines()[-1])
    assert code == 0 and var == "2" and blas == [2]


def test_eval_imports_no_other_subcommands_family(files):
    # `irscore compare` names the statistics' tests in its options: building
    # every subcommand's parser imported irscore.stats for `irscore eval` too
    q, r = files
    probe = ("import sys\nfrom irscore.cli import main\ncode = main(['eval', '-m', 'map', sys.argv[1], sys.argv[2]])\n"
             "print(code, 'irscore.stats' in sys.modules, 'irscore.xml' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", probe, str(q), str(r)], capture_output=True, text=True)
    assert p.stdout.splitlines()[-1] == "0 False False"
    # an unknown subcommand still lists them all
    p = subprocess.run([sys.executable, "-m", "irscore", "evl"], capture_output=True, text=True)
    assert p.returncode == 2 and "eval" in p.stderr and "compare" in p.stderr
