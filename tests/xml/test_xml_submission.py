"""INEX 2008+ XML submissions (<inex-submission> with <fol>/<bep> results) and the
FOL writer (issue class 8)."""
from __future__ import annotations

import io

import pytest

from irscore import xml as X
from irscore.cli import main

SUBMISSION = """<?xml version="1.0" encoding="UTF-8"?>
<inex-submission participant-id="7" run-id="p7-focused" task="Focused" query="automatic" result-type="passage">
  <topic-fields title="yes" castitle="no" description="no" narrative="no"/>
  <description>two topics</description>
  <topic topic-id="1">
    <result><file>b</file><fol offset="0" length="100"/><rsv>0.9</rsv></result>
    <result><file>a</file><fol offset="0" length="50"/><fol offset="60" length="40"/><rsv>0.8</rsv></result>
  </topic>
  <topic topic-id="2">
    <result><file>c</file><bep offset="40"/><rank>2</rank></result>
    <result><file>a</file><FOL file_offset="10" file_length="5"/><rank>1</rank></result>
  </topic>
</inex-submission>
"""
QRELS = "1 Q0 a 100 1000 0 0:100\n2 Q0 c 10 500 30 30:10\n"


def files(tmp_path):
    sp, qp = tmp_path / "run.xml", tmp_path / "qrels"
    sp.write_text(SUBMISSION)
    qp.write_text(QRELS)
    return sp, qp


def test_read_submission(tmp_path):
    sp, _ = files(tmp_path)
    run = X.read_inex_submission(sp)
    # every <fol> is a result, in file order; <bep offset=x/> is the empty span [x, x)
    assert run.topic_spans("1") == [("b", 0, 100), ("a", 0, 50), ("a", 60, 100)]
    assert run.topic_spans("2") == [("c", 40, 40), ("a", 10, 15)]
    assert list(run.score[:3]) == [0.9, 0.8, 0.8]
    # by <rank>: topic 2's results swap
    assert X.read_inex_submission(sp, order="rank").topic_spans("2") == [("a", 10, 15), ("c", 40, 40)]


def test_submission_measures(tmp_path):
    sp, qp = files(tmp_path)
    q = X.read_passage_qrels(qp)
    run = X.read_inex_submission(sp)
    # topic 1 in file order: b (100 non-relevant), then a's 50 + 40 relevant:
    # P = 90/190 at R = 0.9 -> iP[0.00] = 90/190
    assert X.evaluate(q, run, ["iP[0.00]"], per_query=True)["iP[0.00]"]["1"] == pytest.approx(90 / 190)
    # topic 2, BiC: c's entry point 40, bep 30: (500 - 10) / 500 at rank 1
    r = X.evaluate(q, run, ["gP_BiC@1"], per_query=True)
    assert r["gP_BiC@1"]["2"] == pytest.approx(490 / 500)


def test_write_fol_round_trip(tmp_path):
    sp, qp = files(tmp_path)
    run = X.read_inex_submission(sp)
    out = tmp_path / "run.fol"
    X.write_fol(run, out)
    lines = out.read_text().splitlines()
    assert lines[0] == "1 Q0 b 1 0.9 p7-focused 0 100"
    assert lines[3] == "2 Q0 c 1 2.0 p7-focused 40 0"       # no <rsv>: a decreasing score
    back = X.read_fol_run(out, order="input")
    assert all(back.topic_spans(t) == run.topic_spans(t) for t in run.topics)
    buf = io.StringIO()
    X.write_fol(run, buf, run_id="other")
    assert buf.getvalue().splitlines()[0].split()[5] == "other"
    with pytest.raises(ValueError, match="run_id"):
        X.write_fol(run, buf, run_id="two words")


def test_write_fol_keeps_unknown_offsets(tmp_path):
    qp = tmp_path / "qrels"
    qp.write_text(QRELS)
    rp = tmp_path / "run"
    rp.write_text("1 Q0 a 1 1 r X 0\n1 Q0 a 2 0.5 r 0 100\n")
    q = X.read_passage_qrels(qp, compat="inex2008")
    with pytest.warns(UserWarning):
        run = X.read_fol_run(rp, q, compat="inex2008")
    out = tmp_path / "out"
    X.write_fol(run, out)
    assert out.read_text().splitlines()[0] == "1 Q0 a 1 1.0 r -1 0"


def test_cli_reads_submissions(tmp_path, capsys):
    sp, qp = files(tmp_path)
    assert main(["xml", "-q", "-m", "iP[0.00]", str(qp), str(sp)]) == 0
    rows = [tuple(x.strip() for x in ln.split("\t")) for ln in capsys.readouterr().out.splitlines()]
    assert ("iP[0.00]", "1", "%.4f" % (90 / 190)) in rows and ("runid", "all", "p7-focused") in rows


@pytest.mark.parametrize("body, message", [
    ("<topic topic-id='1'><result><fol offset='0' length='5'/></result></topic>", "without <file>"),
    ("<topic topic-id='1'><result><file>a</file></result></topic>", "without <fol>"),
    ("<topic topic-id='1'><result><file>a</file><fol offset='-3' length='5'/></result></topic>", "negative"),
    ("<topic topic-id='1'><result><file>a</file><fol offset='x' length='5'/></result></topic>", "integer"),
    ("<topic topic-id='1'><result><file>a</file><path>/article[1]</path></result></topic>", "layout"),
    ("<topic><result><file>a</file></result></topic>", "topic-id"),
    ("<topic topic-id='1'><result><file>a</file>", "not well-formed"),
])
def test_submission_errors_name_the_line(tmp_path, body, message):
    p = tmp_path / "bad.xml"
    p.write_text("<inex-submission run-id='r'>\n" + body + "\n</inex-submission>\n")
    with pytest.raises(ValueError, match=message) as exc:
        X.read_inex_submission(p)
    assert str(p) in str(exc.value)


def test_submission_paths_with_a_layout(tmp_path):
    p = tmp_path / "el.xml"
    p.write_text("<inex-submission run-id='r'><topic topic-id='1'><result><file>a</file>"
                 "<path>/article[1]/sec[1]</path></result></topic></inex-submission>")
    run = X.read_inex_submission(p, layout={"a": {"/article[1]/sec[1]": (10, 90)}})
    assert run.topic_spans("1") == [("a", 10, 90)]
