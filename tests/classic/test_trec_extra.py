"""trec_eval 10's optional extras: ``-Z`` z-scores, ``yaap`` and ``-R qrels_jg``
judgment groups.  trec_eval's own expected outputs (tests/data/trec_eval) must
be reproduced line for line; hand-worked examples check the definitions."""
import math
import subprocess
import sys

import numpy as np
import pytest

import irscore
from irscore.classic import evaluate_jg, read_qrels_jg
from irscore.core.zscores import MISSING_ZSCORE_VALUE, read_zscores, standardize

CASES = [
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test", "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.comments.123", "results.test"]),
]


@pytest.mark.parametrize("expected,args", CASES, ids=[" ".join(a) for _, a in CASES])
def test_cli_matches_trec_eval_10(trec_test_dir, expected, args):
    proc = subprocess.run([sys.executable, "-m", "irscore", "eval", *args], cwd=trec_test_dir,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    want = (trec_test_dir / expected).read_text().splitlines()
    got = proc.stdout.splitlines()
    assert len(got) == len(want)
    assert [(w, g) for w, g in zip(want, got) if w != g] == []


QRELS = {"q1": {"a": 1, "b": 0, "c": 1, "d": 2}, "q2": {"x": 1, "y": 0}}
RUN = {"q1": {"a": 0.9, "b": 0.8, "c": 0.7, "e": 0.6}, "q2": {"y": 0.5, "x": 0.4}}


def test_yaap_hand_worked():
    # q1: relevant a (rank 1), c (rank 3); R = 3: S = 1/1 + 2/3
    s1 = 1 + 2 / 3
    y1 = math.log((1 + s1) / (1 + 3 - s1))
    # q2: x at rank 2, R = 1: S = 1/2
    y2 = math.log((1 + 0.5) / (1 + 1 - 0.5))
    got = irscore.evaluate(QRELS, RUN, ["yaap"], per_query=True)["yaap"]
    assert got["q1"] == pytest.approx(y1, abs=1e-12) and got["q2"] == pytest.approx(y2, abs=1e-12)
    assert irscore.evaluate(QRELS, RUN, "yaap")["yaap"] == pytest.approx((y1 + y2) / 2, abs=1e-12)


def test_zscores_hand_worked(tmp_path):
    z = tmp_path / "z"
    # q1 map: AP = (1 + 2/3) / 3; q2 map: missing; q2 P_5 stddev 0 and equal mean
    z.write_text("q1 map 0.5 0.25\nq2 P_5 0.2 0\nq1 P_5 0.1 0\nq1 num_ret 3 2\n")
    ap1 = (1 + 2 / 3) / 3
    got = irscore.evaluate(QRELS, RUN, ["map", "P_5", "num_ret"], per_query=True, zscores=z)
    assert got["map"]["q1"] == pytest.approx((ap1 - 0.5) / 0.25, abs=1e-12)
    assert got["map"]["q2"] == MISSING_ZSCORE_VALUE
    assert got["P_5"]["q2"] == 0.0  # P_5 of q2 = 1/5 = mean, stddev 0
    assert got["P_5"]["q1"] == MISSING_ZSCORE_VALUE  # stddev 0, value 2/5 != 0.1
    assert got["num_ret"]["q1"] == 0.5 and got["num_ret"]["q2"] == MISSING_ZSCORE_VALUE
    summary = irscore.evaluate(QRELS, RUN, ["map", "num_ret"], zscores={"q1": {"map": (0.5, 0.25)}})
    assert summary["map"] == pytest.approx(((ap1 - 0.5) / 0.25 + MISSING_ZSCORE_VALUE) / 2, abs=1e-9)
    assert summary["num_ret"] == 2 * MISSING_ZSCORE_VALUE  # counts are summed


def test_standardize_rules():
    v = np.array([1.0, 2.0, 3.0])
    out = standardize(v, ["a", "b", "c"], "m", {"a": {"m": (0.0, 2.0)}, "b": {"m": (2.0, 0.0)},
                                                 "c": {"other": (0.0, 1.0)}})
    assert list(out) == [0.5, 0.0, MISSING_ZSCORE_VALUE]


@pytest.mark.parametrize("text,msg", [("q1 map 0.5\n", "2:|1:"), ("q1 map x 1\n", "not a number"),
                                      ("\n", "empty"), ("q1 map 1 1 extra\n", "fields")])
def test_zscore_file_errors_name_the_line(tmp_path, text, msg):
    z = tmp_path / "z"
    z.write_text(text)
    with pytest.raises(ValueError, match=msg):
        read_zscores(z)


def test_cli_bad_zscore_file_is_a_user_error(tmp_path, trec_test_dir):
    z = tmp_path / "z"
    z.write_text("q1 map\n")
    proc = subprocess.run([sys.executable, "-m", "irscore", "eval", "-Z", str(z), "qrels.test", "results.test"],
                          cwd=trec_test_dir, capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and str(z) in proc.stderr


def test_judgment_groups_hand_worked(tmp_path):
    q = tmp_path / "jg"
    # q1: group A says a, c relevant; group B says only e relevant.  q2: one group.
    q.write_text("# comment\nq1 A a 1\nq1 A c 1\nq1 A b 0\nq1 B e 1\nq1 B a 0\nq2 Z x 1\n")
    qids, names, m, _ = evaluate_jg(q, RUN, ["map_avgjg", "P_avgjg.2"])
    assert qids == ["q1", "q2"] and names == ["map_avgjg", "P_avgjg_2"]
    ap_a = (1 + 2 / 3) / 2
    ap_b = (1 / 4) / 1
    assert m[0, 0] == pytest.approx((ap_a + ap_b) / 2, abs=1e-12)
    assert m[0, 1] == pytest.approx((1 / 2 + 0 / 2) / 2, abs=1e-12)
    assert m[1, 0] == pytest.approx(0.5, abs=1e-12) and m[1, 1] == pytest.approx(0.5, abs=1e-12)


def test_qrels_jg_errors(tmp_path):
    q = tmp_path / "jg"
    q.write_text("q1 A a 1\nq1 A a 0\n")
    with pytest.raises(ValueError, match="judged twice"):
        read_qrels_jg(q)
    q.write_text("q1 A a\n")
    with pytest.raises(ValueError, match=":1: malformed"):
        read_qrels_jg(q)
    with pytest.raises(ValueError, match="unknown judgment-group measure"):
        evaluate_jg({"q1": {"A": {"a": 1}}}, RUN, ["map"])


def test_cli_jg_refuses_plain_measures(trec_test_dir):
    proc = subprocess.run([sys.executable, "-m", "irscore", "eval", "-R", "qrels_jg", "-m", "map", "qrels.123",
                           "results.test"], cwd=trec_test_dir, capture_output=True, text=True)
    assert proc.returncode == 2 and "qrels_jg" in proc.stderr and "Traceback" not in proc.stderr


def test_cli_jg_with_zscores(tmp_path, trec_test_dir):
    z = tmp_path / "z"
    z.write_text("301 map_avgjg 0.1 0.2\n302 P_avgjg_5 0.3 0\n")
    proc = subprocess.run([sys.executable, "-m", "irscore", "eval", "-q", "-R", "qrels_jg", "-m", "map_avgjg",
                           "-m", "P_avgjg.5", "-Z", str(z), "qrels.123", "results.test"],
                          cwd=trec_test_dir, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    qids, names, m, _ = evaluate_jg(trec_test_dir / "qrels.123", trec_test_dir / "results.test",
                                    ["map_avgjg", "P_avgjg.5"])
    want = {("301", "map_avgjg"): (m[0, 0] - 0.1) / 0.2, ("301", "P_avgjg_5"): MISSING_ZSCORE_VALUE,
            ("302", "P_avgjg_5"): 0.0 if m[1, 1] == 0.3 else MISSING_ZSCORE_VALUE}
    got = {}
    for line in proc.stdout.splitlines():
        name, qid, value = (x.strip() for x in line.split("\t"))
        assert name.startswith("Z")
        got[(qid, name[1:])] = value
    for key, v in want.items():
        assert got[key] == "%.4f" % v
    assert ("all", "map_avgjg") in got and ("all", "P_avgjg_5") in got
