"""trec_eval 10's preference judgments (``-R prefs``, ``-R qrels_prefs``) and its
``prefs_*`` measures: trec_eval's own expected outputs (tests/data/trec_eval)
reproduced line for line, a hand-worked example, the Python API, bad input.
(tests/classic/test_trec_eval_prefs_binary.py compares with the binary on random cases.)"""
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import irscore
from irscore import _prefs
from irscore.prefs import PREFS_MEASURES, Prefs, evaluate_prefs, prefs_matrix, read_prefs, read_qrels_prefs

ENV = {**os.environ, "PYTHONPATH": str(Path(irscore.__file__).resolve().parents[1])}

CASES = [
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.comment.test", "prefs.results.test"]),
    ("out.test.qrels_prefs", ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"]),
]


def _cli(args, cwd=None):
    return subprocess.run([sys.executable, "-m", "irscore", "eval", *args], cwd=cwd, capture_output=True,
                          text=True, env=ENV)


@pytest.mark.parametrize("expected,args", CASES, ids=[" ".join(a) for _, a in CASES])
def test_cli_matches_trec_eval_10(trec_test_dir, expected, args):
    proc = _cli(args, trec_test_dir)
    assert proc.returncode == 0, proc.stderr
    want = (trec_test_dir / expected).read_text().splitlines()
    got = proc.stdout.splitlines()
    assert len(got) == len(want)
    assert [(w, g) for w, g in zip(want, got) if w != g] == []


@pytest.mark.parametrize("expected,args", CASES, ids=[" ".join(a) for _, a in CASES])
def test_summary_lines_without_q(trec_test_dir, expected, args):
    """Without -q: exactly the expected output's summary lines."""
    proc = _cli([a for a in args if a != "-q"], trec_test_dir)
    assert proc.returncode == 0, proc.stderr
    want = [x for x in (trec_test_dir / expected).read_text().splitlines() if x.split("\t")[1] == "all"]
    assert proc.stdout.splitlines() == want


# A hand-worked example.  Run, q1: a 5, c 4, b 4, x 3, d 2 -> trec_eval's preference
# order breaks the score tie by document id ascending: a, b, c, x, d.  Judged and
# retrieved in that order: a=0, b=1, c=2 (x, d are not judged); judged, not retrieved,
# by document id: e=3, f=4.
#   group 1 (one sub-group): a 2 > {c 1, e 1} (a tie) > b 0.  Preferences:
#     a>c (0<2 both retrieved: fulfilled), a>b (fulfilled), c>b (2>1: failed),
#     a>e (a retrieved, e not: implied fulfilled), e>b (e not retrieved: implied failed).
#     fulfilled_ret 2, possible_ret 3, fulfilled_imp 1, possible_imp 2 -> 3 of 5.
#   group 2: b 1 > {a 0, f 0}: b>a (1>0: failed, both retrieved), b>f (implied fulfilled).
#     fulfilled_ret 0, possible_ret 1, fulfilled_imp 1, possible_imp 1 -> 1 of 2.
#   num_prefs_poss 7, num_prefs_ful 4, num_prefs_ful_ret 2; simp 4/7; simp_ret 2/4;
#   simp_imp 4/7; avgjg (3/5 + 1/2)/2 = 0.55; avgjg_ret (2/3 + 0/1)/2; avgjg_imp 0.55.
#   avgjg_Rnonrel: group 1 has R = 3 relevant (a, c, e; 2 retrieved) and N = 1: R >= N, so
#     (3 + 2*(3-1)) / (5 + 3*(3-1)) = 7/11; group 2 has R = 1 < N = 2: the first R of its
#     level-0 class (a, docid rank 0) stands for the nonrelevant ones, paired with every
#     document of the group (b, a, f): a pair x,a is fulfilled when x < 0 -- none: 0/3.
#     (7/11 + 0)/2.
#   avgjg_Rnonrel_ret: group 1: R = 2 retrieved relevant, N = 1: (2 + 2*1) / (3 + 3*1) = 4/6;
#     group 2: R = 1 (b), N = 1 (a): (0 + 0) / (1 + 0) = 0.  (4/6 + 0)/2.
#   pairs over both groups: {a,b}: a>b once, b>a once -> 1/2; {a,c} 1; {b,c} 0 (all three
#     retrieved); {a,e} 1; {b,e} 0; {b,f} 1 (retrieved against not retrieved): 6 pairs,
#     pair = (1/2 + 1 + 0 + 1 + 0 + 1)/6, pair_ret = (1/2 + 1 + 0)/3, pair_imp = pair.
# q2: run p, q, r; group g, sub-group 1: p 2 > q 1; sub-group 2: q 3 > {r, s, t} 0.
#   With the transitive p>r, p>s, p>t: 7 preferences, all fulfilled (p=0, q=1, r=2
#   retrieved; s=3, t=4 not): fulfilled_ret 3 (p>q, q>r, p>r), the 4 others implied.
PREFS_TEXT = """q1 1 s a 2
q1 1 s b 0
q1 1 s e 1
q1 1 s c 1
q1 2 s b 1
q1 2 s a 0
q1 2 s f 0
q2 g 1 p 2
q2 g 1 q 1
q2 g 2 q 3
q2 g 2 r 0
q2 g 2 s 0
q2 g 2 t 0
"""
RUN = {"q1": {"a": 5.0, "c": 4.0, "b": 4.0, "x": 3.0, "d": 2.0}, "q2": {"p": 3.0, "q": 2.0, "r": 1.0}}
WANT_Q1 = {"prefs_num_prefs_poss": 7, "prefs_num_prefs_ful": 4, "prefs_num_prefs_ful_ret": 2,
           "prefs_simp": 4 / 7, "prefs_pair": 3.5 / 6, "prefs_avgjg": 0.55, "prefs_avgjg_Rnonrel": (7 / 11) / 2,
           "prefs_simp_ret": 0.5, "prefs_pair_ret": 0.5, "prefs_avgjg_ret": (2 / 3) / 2,
           "prefs_avgjg_Rnonrel_ret": (4 / 6) / 2, "prefs_simp_imp": 4 / 7, "prefs_pair_imp": 3.5 / 6,
           "prefs_avgjg_imp": 0.55}
WANT_Q2 = {m: 1.0 for m in PREFS_MEASURES} | {"prefs_num_prefs_poss": 7, "prefs_num_prefs_ful": 7,
                                              "prefs_num_prefs_ful_ret": 3}


def test_hand_worked_example(tmp_path):
    p = tmp_path / "prefs"
    p.write_text(PREFS_TEXT)
    got = evaluate_prefs(p, RUN, "all_prefs", per_query=True)
    assert list(got) == PREFS_MEASURES
    for m in PREFS_MEASURES:
        assert got[m]["q1"] == pytest.approx(WANT_Q1[m], abs=1e-12), m
        assert got[m]["q2"] == pytest.approx(WANT_Q2[m], abs=1e-12), m
    summary = evaluate_prefs(p, RUN, "all_prefs")
    for m in PREFS_MEASURES:
        both = WANT_Q1[m] + WANT_Q2[m]
        assert summary[m] == pytest.approx(both if m.startswith("prefs_num") else both / 2, abs=1e-12), m


def test_dict_input_and_sets():
    d = {"q1": {"1": {"s": {"a": 2, "b": 0, "e": 1, "c": 1}}, "2": {"s": {"b": 1, "a": 0, "f": 0}}}}
    got = evaluate_prefs(d, RUN, "prefs", per_query=True)
    assert list(got) == PREFS_MEASURES[:6]
    assert got["prefs_pair"] == {"q1": pytest.approx(3.5 / 6)}
    # qrels_prefs: {qid: {jg: {doc: level}}}; one group, so pair == simp
    q = evaluate_prefs({"q1": {"0": {"a": 2, "b": 0, "e": 1, "c": 1}}}, RUN, ["prefs_simp", "prefs_pair"],
                       format="qrels_prefs")
    assert q == {"prefs_simp": pytest.approx(3 / 5), "prefs_pair": pytest.approx(3 / 5)}


def test_complete_and_max_docs(tmp_path):
    p = tmp_path / "prefs"
    p.write_text(PREFS_TEXT + "q3 0 0 m 1\nq3 0 0 n 0\n")
    qids, m, run_id, n_dup = prefs_matrix(p, RUN)
    assert qids == ["q1", "q2"] and n_dup == 0
    qids, m, _, _ = prefs_matrix(p, RUN, complete=True)
    assert qids == ["q1", "q2", "q3"]
    # q3 has no ranking: its one preference m>n is possible but never fulfilled
    assert m[2, :3].tolist() == [1, 0, 0] and m[2, 3] == 0.0
    # -M 1: q1's ranking is a only; c and b become unretrieved judged documents
    cut = evaluate_prefs(p, RUN, ["prefs_num_prefs_ful_ret"], per_query=True, max_docs=1)
    assert cut["prefs_num_prefs_ful_ret"]["q1"] == 0


def test_qrels_prefs_reader_matches_cli(trec_test_dir):
    p = read_qrels_prefs(trec_test_dir / "qrels.test")
    assert p.query_ids == sorted(p.query_ids)
    got = evaluate_prefs(p, trec_test_dir / "results.test", "all_prefs")
    want = {x.split("\t")[0].strip(): x.split("\t")[2] for x in
            (trec_test_dir / "out.test.qrels_prefs").read_text().splitlines() if "\tall\t" in x}
    for m, v in got.items():
        assert (f"{v:.4f}" if m not in ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret")
                else str(int(v))) == want[m], m


@pytest.mark.parametrize("text,message", [
    ("q1 1 s a\n", ":1: malformed prefs line"),
    ("q1 1 s a 1\nq1 1 s b x1\n", ":2: rel_level 'x1' is not a number"),
    ("q1 1 s a 1\nq1 1 s a 0\n", ":2: document 'a' judged twice"),
    ("# only a comment\n", "empty prefs file"),
])
def test_prefs_reader_errors(tmp_path, text, message):
    p = tmp_path / "prefs"
    p.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_prefs(p)


def test_contradictions_are_errors(tmp_path):
    p = tmp_path / "prefs"
    p.write_text("q1 g 1 a 2\nq1 g 1 b 1\nq1 g 2 b 2\nq1 g 2 a 1\n")
    with pytest.raises(ValueError, match="query 'q1', judgment group 'g': contradictory"):
        evaluate_prefs(p, RUN)
    p.write_text("q1 g 1 a 2\nq1 g 1 b 0\nq1 g 2 b 1\nq1 g 2 c 0\n")
    with pytest.raises(ValueError, match="rel_level 0 in one sub-group and a positive"):
        evaluate_prefs(p, RUN)
    with pytest.raises(ValueError, match="unknown preference measure 'map'"):
        evaluate_prefs(p, RUN, "map")
    with pytest.raises(ValueError, match="no query has both"):
        evaluate_prefs({"zz": {"0": {"0": {"a": 1}}}}, RUN)


def test_cli_errors(tmp_path, trec_test_dir):
    p = tmp_path / "prefs"
    p.write_text("q1 1 s a 1\nq1 1 s b oops\n")
    r = tmp_path / "run"
    r.write_text("q1 Q0 a 1 1.0 R\n")
    for args in (["-R", "prefs", str(p), str(r)],
                 ["-R", "qrels_prefs", str(p), str(r)],
                 ["-R", "prefs", "-m", "map", "prefs.test", "prefs.results.test"]):
        proc = _cli(args, trec_test_dir)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
    assert "prefs:2: rel_level 'oops'" in _cli(["-R", "prefs", str(p), str(r)]).stderr
    assert "malformed qrels_prefs line" in _cli(["-R", "qrels_prefs", str(p), str(r)]).stderr


def test_kernel_checks_its_inputs():
    """The kernel refuses what could make it read out of bounds or miscount."""
    def args():
        return dict(q_off=np.array([0, 2], np.int64), jg=np.zeros(2, np.int64), jsg=np.zeros(2, np.int64),
                    level=np.array([1.0, 0.0]), rank=np.array([0, 1], np.int64),
                    n_judged=np.array([2], np.int64), n_judged_ret=np.array([1], np.int64),
                    out=np.zeros((1, _prefs.N_OUT)), status=np.zeros(1, np.int64), bad_jg=np.zeros(1, np.int64))
    a = args()
    _prefs.counts(**a)
    assert a["out"][0, :4].tolist() == [1, 1, 0, 1.0]
    for key, value in [("rank", np.array([0, 2], np.int64)), ("rank", np.array([0, -1], np.int64)),
                       ("q_off", np.array([0, 3], np.int64)), ("q_off", np.array([1, 2], np.int64)),
                       ("n_judged_ret", np.array([3], np.int64)), ("out", np.zeros((1, 3))),
                       ("status", np.zeros(2, np.int64)), ("level", np.array([0.0, 1.0])),
                       ("level", np.array([np.nan, 0.0])), ("jg", np.array([1, 0], np.int64)),
                       ("jsg", np.array([1, 0], np.int64)), ("n_judged", np.array([1 << 40], np.int64))]:
        a = args()
        a[key] = value
        with pytest.raises(ValueError):
            _prefs.counts(**a)
    # one document at two levels of one sub-group: reported per query, not counted
    a = args()
    a["rank"] = np.array([0, 0], np.int64)
    _prefs.counts(**a)
    assert a["status"].tolist() == [3] and a["bad_jg"].tolist() == [0] and not a["out"].any()


def test_repeated_run_entries_warn_and_keep_the_best(tmp_path):
    p = tmp_path / "prefs"
    p.write_text("q1 0 0 a 1\nq1 0 0 b 0\n")
    r = tmp_path / "run"
    r.write_text("q1 Q0 b 1 3.0 R\nq1 Q0 a 2 2.0 R\nq1 Q0 b 3 1.0 R\n")
    proc = _cli(["-q", "-R", "prefs", "-m", "prefs_simp", str(p), str(r)])
    assert proc.returncode == 0 and "repeated" in proc.stderr
    assert proc.stdout.splitlines()[0].endswith("\t0.0000")  # b (3.0) is ranked above a


def test_cli_warns_about_judged_queries_without_ranking(tmp_path):
    p = tmp_path / "qrels"
    p.write_text("q1 0 a 1\nq1 0 b 0\nq9 0 a 1\nq9 0 c 0\n")
    r = tmp_path / "run"
    r.write_text("q1 Q0 a 1 1.0 R\n")
    proc = _cli(["-R", "qrels_prefs", str(p), str(r)])
    assert proc.returncode == 0 and "1 judged query not in the run skipped" in proc.stderr and "q9" in proc.stderr
    assert "num_q                 \tall\t1" in proc.stdout
    proc = _cli(["-c", "-R", "qrels_prefs", str(p), str(r)])
    assert proc.stderr == "" and "num_q                 \tall\t2" in proc.stdout


def test_prefs_type_is_public():
    assert isinstance(read_prefs, type(evaluate_prefs)) and Prefs.from_dict({"q": {"g": {"s": {"a": 1}}}})


def test_negative_levels_warn(tmp_path):
    """The prefs and qrels_prefs formats allow only non-negative levels
    (trec_eval reads outside its arrays on negative ones): one warning per
    file or dict, naming the first place and the count; the values are
    computed with the levels as given."""
    p = tmp_path / "qrels"
    p.write_text("q1 0 a 1\nq1 0 b -1\nq1 0 c -2\nq1 0 d 0\n")
    with pytest.warns(UserWarning, match=r"qrels:2: negative rel_level \(2 judgments\).*qrels_prefs format"):
        read_qrels_prefs(p)
    q = tmp_path / "prefs"
    q.write_text("q1 g s a 1\nq1 g s b -0.5\n")
    with pytest.warns(UserWarning, match=r"prefs:2: negative rel_level \(1 judgment\)"):
        read_prefs(q)
    with pytest.warns(UserWarning, match="query 'q1' document 'b': negative rel_level"):
        Prefs.from_dict({"q1": {"g": {"a": 1, "b": -1}}}, qrels_prefs=True)
    r = tmp_path / "run"
    r.write_text("q1 Q0 a 1 1.0 R\nq1 Q0 b 2 0.5 R\n")
    proc = _cli(["-R", "qrels_prefs", str(p), str(r)])
    assert proc.returncode == 0 and "negative rel_level" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    # non-negative levels: no warning
    p.write_text("q1 0 a 1\nq1 0 b 0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_qrels_prefs(p)
