"""compat="inex2008": inex_eval v1.0's numbers, one hand-worked case per way the
tool differs from the published definitions (issue classes 1-5 and 7; class 6,
RePrec's Precall, is in test_xml_precall.py, class 8, the XML submission
format, in test_xml_submission.py).

Every expected value is worked out from the tool's rules (per run line, in file
order: P = relRetSize / retSize, R = relRetSize / sum of relchars, iP[floor(100 R)]
= max(., P) in floating point, levels above 100 dropped, then a running maximum
from level 100 down; AiP = (iP[0] + ... + iP[100]) / 101 summed in order;
RiC/BiC: gP[r] = (sum of the first r article scores) / r, AgP = sum of gP[r] at
relevant articles / number of relevant articles, gP[k] = gP[last rank] when
fewer than k articles were retrieved).
"""
from __future__ import annotations

import math
import warnings

import pytest

from irscore import xml as X

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

REL_A = "1 Q0 a 100 1000 0 0:100"     # article a: characters [0, 100) relevant, bep 0


def write(tmp_path, qrels, run):
    qp, rp = tmp_path / "qrels", tmp_path / "run"
    qp.write_text("".join(line + "\n" for line in qrels))
    rp.write_text("".join(line + "\n" for line in run))
    return qp, rp


def tool(tmp_path, qrels, run, names, per_query=True, **kw):
    """Read both files and evaluate, all with compat="inex2008"."""
    qp, rp = write(tmp_path, qrels, run)
    q = X.read_passage_qrels(qp, compat="inex2008")
    r = X.read_fol_run(rp, q, compat="inex2008")
    return X.evaluate(q, r, names, per_query=per_query, compat="inex2008", **kw)


def default(tmp_path, qrels, run, names, **kw):
    qp, rp = write(tmp_path, qrels, run)
    q = X.read_passage_qrels(qp)
    r = X.read_fol_run(rp, q)
    return X.evaluate(q, r, names, per_query=True, **kw)


def aip(levels):
    """AiP as the tool sums it: iP[0] + iP[1] + ... + iP[100], in order, / 101."""
    acc = 0.0
    for v in levels:
        acc += v
    return acc / 101


# -- 1. rank order -------------------------------------------------------------

def test_1_file_order_not_score_order(tmp_path):
    run = ["1 Q0 b 1 0.1 r 0 100",      # non-relevant, low score, first line
           "1 Q0 a 2 9.0 r 0 100"]      # relevant, high score, second line
    # the tool: line 1: P = 0/100, R = 0; line 2: P = 100/200, R = 1 -> iP[100] = 0.5
    # -> every level 0.5, AiP = 101 * 0.5 / 101
    r = tool(tmp_path, [REL_A], run, ["iP[0.00]", "MAiP"])
    assert r["iP[0.00]"]["1"] == 0.5
    assert r["MAiP"]["1"] == aip([0.5] * 101) == 0.5
    # the published definition ranks by score: a first, P = 1 at R = 1
    assert default(tmp_path, [REL_A], run, ["MAiP"])["MAiP"]["1"] == 1.0


# -- 2. recall-level bucketing -------------------------------------------------

def test_2_floor_of_100_R_in_floating_point(tmp_path):
    run = ["1 Q0 a 1 1 r 0 29"]
    # P = 1, R = 29/100; 100 * 0.29 = 28.999999999999996 -> level 28: iP[0..28] = 1
    assert 100 * (29 / 100) < 29
    r = tool(tmp_path, [REL_A], run, ["iP[0.28]", "iP[0.29]", "MAiP"])
    assert r["iP[0.28]"]["1"] == 1.0
    assert r["iP[0.29]"]["1"] == 0.0
    assert r["MAiP"]["1"] == aip([1.0] * 29 + [0.0] * 72) == 29 / 101
    d = default(tmp_path, [REL_A], run, ["iP[0.29]", "MAiP"])
    assert d["iP[0.29]"]["1"] == 1.0 and d["MAiP"]["1"] == pytest.approx(30 / 101)


# -- 3. gP[k] with fewer than k articles ---------------------------------------

def test_3_gp_repeats_the_last_value(tmp_path):
    run = ["1 Q0 a 1 1 r 0 100"]
    # one article, P = R = 1: F = (1.0625 * 1 * 1) / (0.0625 * 1 + 1) = 1.0
    # gP[1] = 1/1; gP[2] and gP[5] = the value at the last rank (1 article) = 1.0
    names = ["gP_RiC@1", "gP_RiC@2", "gP_RiC@5", "MAgP_RiC"]
    r = tool(tmp_path, [REL_A], run, names)
    assert [r[n]["1"] for n in names] == [1.0, 1.0, 1.0, 1.0]
    d = default(tmp_path, [REL_A], run, names)
    assert [d[n]["1"] for n in names] == [1.0, 0.5, 0.2, 1.0]


# -- 4. a topic with results but no relevant text ------------------------------

def test_4_topic_without_relevant_text_counts(tmp_path):
    qrels = [REL_A, "2 Q0 c 0 500"]
    run = ["1 Q0 a 1 1 r 0 100", "2 Q0 c 1 1 r 0 50"]
    # topic 2: R = 0/0 = NaN -> (int) NaN = level 0 with P = 0/50 = 0 -> AiP 0;
    # MAiP = (1.0 + 0.0) / 2 over both topics
    r = tool(tmp_path, qrels, run, ["MAiP"], per_query=False)
    assert r["MAiP"] == 0.5
    assert default(tmp_path, qrels, run, ["MAiP"])["MAiP"] == {"1": 1.0}
    # RiC: topic 2 has no relevant article: AgP = 0 / 0 = NaN, so MAgP is NaN;
    # its gP[1] = 0 / 1
    pq = tool(tmp_path, qrels, run, ["MAgP_RiC", "gP_RiC@1"])
    assert pq["MAgP_RiC"]["1"] == 1.0 and math.isnan(pq["MAgP_RiC"]["2"])
    assert pq["gP_RiC@1"] == {"1": 1.0, "2": 0.0}
    means = tool(tmp_path, qrels, run, ["MAgP_RiC", "gP_RiC@1"], per_query=False)
    assert math.isnan(means["MAgP_RiC"]) and means["gP_RiC@1"] == 0.5


# -- 5. best entry point on a non-relevant line (a bug, fixed for every setting)

def test_5_bep_of_a_non_relevant_article_scores_nothing(tmp_path):
    qrels = [REL_A, "1 Q0 b 0 1000 0"]       # b: judged non-relevant, a bep column of 0
    run = ["1 Q0 b 1 1 r 0 10"]
    # b is not relevant: score 0, gP[1] = 0; a (relevant) is not retrieved: AgP = 0 / 1
    for r in (tool(tmp_path, qrels, run, ["gP_BiC@1", "MAgP_BiC"]),
              default(tmp_path, qrels, run, ["gP_BiC@1", "MAgP_BiC"])):
        assert r["gP_BiC@1"]["1"] == 0.0
        assert r["MAgP_BiC"]["1"] == 0.0
    # in memory too: a bep given for a document without highlighted text
    q = X.XmlQrels.from_passages({"1": [("a", 0, 100)]}, beps={("1", "a"): 0, ("1", "b"): 0})
    res = X.generalized_precision(q, X.XmlRun.from_spans({"1": [("b", 0, 10), ("a", 0, 10)]}),
                                  task="BiC", cutoffs=(1, 2))
    # b scores 0; a: distance 0 -> (500 - 0) / 500 = 1; gP[2] = (0 + 1) / 2; AgP = gP[2] / 1
    assert res["gP_BiC@1"]["1"] == 0.0 and res["gP_BiC@2"]["1"] == 0.5 and res["MAgP_BiC"]["1"] == 0.5


def test_5_bic_distance_rule(tmp_path):
    qrels = ["1 Q0 a 100 1000 300 300:100", "1 Q0 b 100 1000 0 0:100"]
    run = ["1 Q0 a 1 1 r 500 10", "1 Q0 b 2 1 r 499 1"]
    # a: |300 - 500| = 200 -> (500.0 - 200) / 500 = 0.6; b: 499 -> (500.0 - 499) / 500
    s_a, s_b = (500.0 - 200) / 500, (500.0 - 499) / 500
    r = tool(tmp_path, qrels, run, ["gP_BiC@1", "gP_BiC@2", "MAgP_BiC"])
    assert r["gP_BiC@1"]["1"] == s_a
    assert r["gP_BiC@2"]["1"] == (s_a + s_b) / 2
    assert r["MAgP_BiC"]["1"] == (s_a / 1 + (s_a + s_b) / 2) / 2


# -- 7. inputs the tool accepts ------------------------------------------------

def kinds(record):
    return [str(w.message) for w in record]


def test_7_offset_x_or_minus_one_is_18_nonrelevant_characters(tmp_path):
    run = ["1 Q0 a 1 1 r X 0", "1 Q0 a 2 1 r -1 0", "1 Q0 a 3 1 r 0 100"]
    with pytest.warns(UserWarning) as rec:
        r = tool(tmp_path, [REL_A], run, ["iP[0.00]", "MAiP", "gP_RiC@1"])
    assert sum("offset X or -1" in m for m in kinds(rec)) == 1   # one warning for both lines
    # lines 1-2: 18 characters each, nothing relevant; line 3: P = 100 / 136 at R = 1
    p = 100 / 136
    assert r["iP[0.00]"]["1"] == p
    assert r["MAiP"]["1"] == aip([p] * 101)
    # RiC: one article, retrieved 136 characters: P = 100/136, R = 1
    f = ((1 + 0.0625) * p * 1.0) / ((0.0625 * p) + 1.0)
    assert r["gP_RiC@1"]["1"] == f
    with pytest.raises(ValueError, match="offset"):
        default(tmp_path, [REL_A], run, ["MAiP"])


def test_7_x_offset_bic_scores_zero(tmp_path):
    # the tool puts the entry point at -10000: distance bep + 10000 > 500
    r = tool(tmp_path, [REL_A], ["1 Q0 a 1 1 r X 0"], ["gP_BiC@1"])
    assert r["gP_BiC@1"]["1"] == 0.0


def test_7_span_past_the_document_length(tmp_path):
    qrels = ["1 Q0 a 10 100 90 90:10"]
    run = ["1 Q0 a 1 1 r 50 1000"]              # ends at 1050, document length 100
    with pytest.warns(UserWarning, match="past the document length"):
        r = tool(tmp_path, qrels, run, ["MAiP"])
    # the full 1000 characters count: P = 10/1000 at R = 1, every level 0.01;
    # 101 additions of 0.01 / 101 = 0.010000000000000007 (the tool's printout)
    assert r["MAiP"]["1"] == aip([10 / 1000] * 101) == 0.010000000000000007
    with pytest.raises(ValueError, match="past the length"):
        default(tmp_path, qrels, run, ["MAiP"])


def test_7_rank_and_score_columns_are_not_read(tmp_path):
    run = ["1 Q0 b first high r 0 100", "1 Q0 a 2.5 n/a r 0 100"]
    with pytest.warns(UserWarning, match="non-integer rank or non-numeric score"):
        r = tool(tmp_path, [REL_A], run, ["iP[0.00]"])
    assert r["iP[0.00]"]["1"] == 0.5           # file order: b then a, as in test 1
    with pytest.raises(ValueError, match="rank must be an integer"):
        default(tmp_path, [REL_A], run, ["MAiP"])


def test_7_relchars_is_the_recall_denominator(tmp_path):
    qrels = ["1 Q0 a 200 1000 0 0:100"]         # relchars 200, passages cover 100
    run = ["1 Q0 a 1 1 r 0 100"]
    with pytest.warns(UserWarning, match="relchars differs"):
        r = tool(tmp_path, qrels, run, ["MAiP", "iP[0.50]", "iP[0.51]", "gP_RiC@1"])
    # P = 1 at R = 100/200 -> level 50: iP[0..50] = 1
    assert r["iP[0.50]"]["1"] == 1.0 and r["iP[0.51]"]["1"] == 0.0
    assert r["MAiP"]["1"] == aip([1.0] * 51 + [0.0] * 50)
    # RiC: R = 100 / 200 (the article's relchars), P = 1
    assert r["gP_RiC@1"]["1"] == ((1 + 0.0625) * 1.0 * 0.5) / ((0.0625 * 1.0) + 0.5)
    with pytest.raises(ValueError, match="relchars"):
        default(tmp_path, qrels, run, ["MAiP"])


def test_7_one_document_two_lengths(tmp_path):
    qrels = [REL_A, "2 Q0 a 100 2000 0 0:100"]
    run = ["1 Q0 a 1 1 r 0 100", "2 Q0 a 1 1 r 0 100"]
    with pytest.warns(UserWarning, match="document length differs"):
        r = tool(tmp_path, qrels, run, ["MAiP"])
    assert r["MAiP"] == {"1": 1.0, "2": 1.0}
    with pytest.raises(ValueError, match="has length"):
        default(tmp_path, qrels, run, ["MAiP"])


def test_7_six_field_line_drops_the_passage(tmp_path):
    qrels = ["1 Q0 a 100 1000 0:100"]           # passage, no bep: the tool ignores field 6
    run = ["1 Q0 a 1 1 r 0 100"]
    with pytest.warns(UserWarning, match="6-field line"):
        r = tool(tmp_path, qrels, run, ["MAiP", "MAgP_RiC", "gP_RiC@1"])
    # a is relevant (relchars 100) but no character is highlighted: P = 0 -> AiP 0;
    # RiC: a scores 0 (no relevant text retrieved), AgP = (0 / 1) / 1 relevant article
    assert r["MAiP"]["1"] == 0.0 and r["MAgP_RiC"]["1"] == 0.0 and r["gP_RiC@1"]["1"] == 0.0
    assert default(tmp_path, qrels, run, ["MAiP"])["MAiP"]["1"] == 1.0


def test_7_warnings_once_per_kind(tmp_path):
    qrels = ["1 Q0 a 100 1000 0:100", "1 Q0 b 100 1000 0:100", "1 Q0 c 5 1000 0 0:10"]
    run = ["1 Q0 a 1 1 r X 0", "1 Q0 b 1 1 r X 0", "1 Q0 c x y r 0 10", "1 Q0 c x y r 10 10"]
    qp, rp = write(tmp_path, qrels, run)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        q = X.read_passage_qrels(qp, compat="inex2008")
        X.read_fol_run(rp, q, compat="inex2008")
    msgs = kinds(rec)
    assert len(msgs) == 4
    assert sum("6-field" in m for m in msgs) == 1 and "(2 cases" in next(m for m in msgs if "6-field" in m)
    assert sum("relchars differs" in m for m in msgs) == 1
    assert sum("offset X" in m for m in msgs) == 1 and sum("non-numeric" in m for m in msgs) == 1


# -- the tool's defects, not copied ----------------------------------------------

def test_defect_result_inside_an_earlier_one_counts_once(tmp_path):
    run = ["1 Q0 a 1 1 r 50 200", "1 Q0 a 2 1 r 60 20"]   # [60, 80) lies inside [50, 250)
    # line 1: rel 50, ret 200: P = .25 at R = .5 -> iP[50] = .25
    # line 2: the tool adds its 20 relevant characters again: P = 70/220 at R = .7
    #   (AiP 71 * (70/220) / 101); here they count once: P = 50/220 at R = .5 -> no change
    with pytest.warns(UserWarning, match="strictly inside an earlier one"):
        r = tool(tmp_path, [REL_A], run, ["MAiP"])
    assert r["MAiP"]["1"] == aip([0.25] * 51 + [0.0] * 50)
    assert r["MAiP"]["1"] != aip([70 / 220] * 71 + [0.0] * 30)


@pytest.mark.parametrize("later", ["0 100", "50 10", "40 10", "45 5"])
def test_zero_length_result_reached_by_a_later_one_warns(tmp_path, later):
    """A zero-length result at offset 50 shares no text with a later result
    whose span reaches it, but the tool rejects the run as overlapping: the
    warning says so."""
    with pytest.warns(UserWarning, match="overlap earlier results.*topic 1.*rejects"):
        tool(tmp_path, [REL_A], ["1 Q0 a 1 1 r 50 0", f"1 Q0 a 2 1 r {later}"], ["MAiP"])


@pytest.mark.parametrize("run", [["1 Q0 a 1 1 r 50 0", "1 Q0 a 2 1 r 60 10"],     # not reaching it
                                 ["1 Q0 a 1 1 r 50 0", "1 Q0 a 2 1 r 50 0"],      # another zero-length one
                                 ["1 Q0 a 1 1 r 50 0", "1 Q0 b 2 1 r 0 100"],     # another article
                                 ["1 Q0 a 1 1 r 0 100", "1 Q0 a 2 1 r 50 0"]])    # inside an earlier one
def test_zero_length_result_without_overlap_does_not_warn(tmp_path, run):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tool(tmp_path, [REL_A, "1 Q0 b 0 1000"], run, ["MAiP"])


def test_defect_duplicate_judgement_counts_once(tmp_path):
    # the tool appends the passages twice: rSize 200 for 100 characters, iP = 2.0
    with pytest.warns(UserWarning, match="judged twice"):
        r = tool(tmp_path, [REL_A, REL_A], ["1 Q0 a 1 1 r 0 100"], ["iP[0.00]"])
    assert r["iP[0.00]"]["1"] == 1.0


def test_defect_overlapping_passages_count_once(tmp_path):
    # passages [0, 100) and [50, 150): union 150 = relchars.  The tool counts
    # [50, 100) twice: rSize 200 > 150 retrieved, R = 200/150 -> level 133,
    # dropped: AiP 0.  Here: P = 1 at R = 1, AiP 1.
    with pytest.warns(UserWarning, match="overlapping passages"):
        r = tool(tmp_path, ["1 Q0 a 150 1000 0 0:100 50:100"], ["1 Q0 a 1 1 r 0 150"], ["MAiP"])
    assert r["MAiP"]["1"] == 1.0


def test_compat_is_checked(tmp_path):
    qp, rp = write(tmp_path, [REL_A], ["1 Q0 a 1 1 r 0 100"])
    with pytest.raises(ValueError, match="compat"):
        X.read_passage_qrels(qp, compat="inex2009")
    q = X.read_passage_qrels(qp, compat="inex2008")
    r = X.read_fol_run(rp, q, compat="inex2008")
    with pytest.raises(ValueError, match="inex_eval v1.0's measures"):
        X.evaluate(q, r, ["nxCG@10"], compat="inex2008")
    with pytest.raises(ValueError, match="101 recall levels"):
        X.evaluate(q, r, ["MAiP"], compat="inex2008", points=10)


def test_cli_compat(tmp_path, capsys):
    from irscore.cli import main

    qrels = [REL_A, "2 Q0 c 0 500"]
    run = ["1 Q0 b 1 0.1 r X 0", "1 Q0 a 2 9.0 r 0 100", "2 Q0 c 1 1 r 0 50"]
    qp, rp = write(tmp_path, qrels, run)
    assert main(["xml", "--compat", "inex2008", "-q", "-m", "MAiP,MAgP_RiC", str(qp), str(rp)]) == 0
    out, err = capsys.readouterr()
    rows = [tuple(x.strip() for x in ln.split("\t")) for ln in out.splitlines()]
    # topic 1: the X line (18 characters) first, then a: P = 100/118 at R = 1
    assert ("MAiP", "1", "%.4f" % aip([100 / 118] * 101)) in rows
    assert ("MAiP", "2", "0.0000") in rows and ("MAgP_RiC", "2", "nan") in rows
    assert ("MAgP_RiC", "all", "nan") in rows
    assert err.count("warning: ") == 1 and "offset X or -1" in err
    assert main(["xml", "--compat", "inex2008", "-m", "nxCG@5", str(qp), str(rp)]) == 2


def test_unknown_offsets_need_compat(tmp_path):
    qp, rp = write(tmp_path, [REL_A], ["1 Q0 a 1 1 r X 0", "1 Q0 a 2 1 r 0 100"])
    q = X.read_passage_qrels(qp, compat="inex2008")
    r = X.read_fol_run(rp, q, compat="inex2008")
    with pytest.raises(ValueError, match="offset X or -1"):
        X.evaluate(q, r, ["MAiP"])
    r.unknown_offset = r.unknown_offset[:1]
    with pytest.raises(ValueError, match="unknown_offset has 1 entries for 2 results"):
        X.evaluate(q, r, ["MAiP"], compat="inex2008")
