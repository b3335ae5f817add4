"""trec_eval 10's own test suite: `irscore eval` must print exactly its expected
outputs (every line, every digit).  The suite's files are in tests/data/trec_eval."""
import subprocess
import sys

import pytest

CASES = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"]),
    ("out.test.meas_params", [
        "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
        "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
        "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test", "results.test"]),
]


@pytest.mark.parametrize("expected,args", CASES, ids=[" ".join(a) for _, a in CASES])
def test_cli_matches_trec_eval_10(trec_test_dir, expected, args):
    proc = subprocess.run([sys.executable, "-m", "irscore", "eval", *args], cwd=trec_test_dir,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    want = (trec_test_dir / expected).read_text().splitlines()
    got = proc.stdout.splitlines()
    assert len(got) == len(want)
    mismatches = [(w, g) for w, g in zip(want, got) if w != g]
    assert mismatches == []


def test_api_matches_trec_eval_summary(trec_test_dir):
    """evaluate() gives the same numbers as the CLI's 'all' lines (to 4 dp)."""
    import irscore

    want = {}
    for line in (trec_test_dir / "out.test.a").read_text().splitlines():
        name, qid, value = line.split("\t")
        if name.strip() != "runid":
            want[name.strip()] = float(value)
    got = irscore.evaluate(trec_test_dir / "qrels.test", trec_test_dir / "results.test", list(want))
    assert set(got) == set(want)
    for k in want:
        assert round(got[k], 4) == pytest.approx(want[k], abs=1e-9), k


def test_api_per_query_matches_trec_eval(trec_test_dir):
    import irscore

    want = {}
    for line in (trec_test_dir / "out.test.aqc").read_text().splitlines():
        name, qid, value = (x.strip() for x in line.split("\t"))
        if qid != "all" and name != "relstring":
            want.setdefault(name, {})[qid] = float(value)
    got = irscore.evaluate(trec_test_dir / "qrels.test", trec_test_dir / "results.trunc", list(want),
                           per_query=True, complete=True)
    for name, per_q in want.items():
        assert set(got[name]) == set(per_q)
        for qid, v in per_q.items():
            assert round(got[name][qid], 4) == pytest.approx(v, abs=1e-9), (name, qid)
