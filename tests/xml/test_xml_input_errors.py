"""XML retrieval on bad input: nothing to evaluate, offsets past int64 in readers
and constructors; errors naming the file and line."""
from pathlib import Path

import pytest

import irscore.xml as X
from irscore.cli import main
from irscore.xml import inex2008

DATA = Path(__file__).resolve().parents[1] / "data"
_HUGE = 2 ** 63
_HALF = 2 ** 62


def test_xml_refuses_nothing_to_evaluate(tmp_path, capsys):
    from irscore import xml

    q = DATA / "xml" / "focused.qrels"
    r = DATA / "xml" / "focused.fol"
    empty = tmp_path / "empty"
    empty.write_text("\n\n")
    other = tmp_path / "other.fol"
    other.write_text("99 Q0 d1 1 1.0 myrun 0 10\n")
    for args, msg in [([q, empty], "empty: empty run file"), ([empty, r], "empty: empty qrels file"),
                      ([q, other], "no topics with both results and assessments")]:
        assert main(["xml", *map(str, args)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and msg in err and len(err.strip().splitlines()) == 1
    # the same through the API
    qr = xml.read_passage_qrels(q)
    with pytest.raises(ValueError, match="no topics with both results and assessments"):
        xml.evaluate(qr, xml.XmlRun.from_spans({"99": [("d1", 0, 10)]}), ["MAiP"])
    with pytest.raises(ValueError, match="no topics with both"):
        xml.evaluate(qr, xml.XmlRun.from_spans({}), ["MAiP"])
    with pytest.raises(ValueError, match="qrels: no assessed topics"):
        xml.evaluate(xml.XmlQrels.from_passages({}), xml.read_fol_run(r), ["MAiP"])
    # complete=True: every qrels topic scores, a missing ranking as an empty one
    res = xml.evaluate(qr, xml.XmlRun.from_spans({"99": [("d1", 0, 10)]}), ["MAiP"], per_query=True, complete=True)
    assert res["MAiP"] and set(res["MAiP"].values()) == {0.0}
    assert xml.overlap(xml.XmlRun.from_spans({})) == {}  # no topics: nothing to report, no error


@pytest.mark.parametrize(
    "reader, text, what",
    [
        ("read_passage_qrels", f"1 Q0 d 0 {_HUGE}\n", "doclen"),
        ("read_passage_qrels", f"1 Q0 d 0 10 {_HUGE}:1\n", "passage offset"),
        ("read_passage_qrels", f"1 Q0 d 0 10 0:{-_HUGE}\n", "passage length"),
        ("read_fol_run", f"1 Q0 d 1 1.0 r {_HALF} {_HALF}\n", "end offset"),
        ("read_fol_run", f"1 Q0 d {_HUGE} 1.0 r 0 1\n", "rank"),
        ("read_element_tsv", f"1 d 0 {_HUGE} 1 1\n", "end"),
    ],
)
def test_xml_readers_refuse_offsets_past_int64(tmp_path, reader, text, what):
    # a document length of 2**63 must be a ValueError naming the line, not
    # numpy's OverflowError
    p = tmp_path / "f.txt"
    p.write_text(text)
    with pytest.raises(ValueError, match=rf"f.txt:1: {what} -?\d+ is out of range"):
        getattr(X, reader)(p)


def test_xml_inex2008_reader_refuses_offsets_past_int64(tmp_path):
    p = tmp_path / "q.txt"
    p.write_text(f"1 Q0 d 5 10 0 {_HALF}:{_HALF}\n")
    with pytest.raises(ValueError, match=r"q.txt:1: passage end \d+ is out of range"):
        inex2008.read_qrels(p)


@pytest.mark.parametrize(
    "build",
    [
        lambda X: X.XmlRun.from_spans({"1": [("d", 0, _HUGE)]}),
        lambda X: X.XmlQrels.from_passages({"1": [("d", 0, 1)]}, doclens={"d": _HUGE}),
        lambda X: X.XmlQrels.from_elements({"1": [("d", 0, _HUGE, 1.0, 1.0)]}),
        lambda X: X.layout_from_sizes({"d": [("/article[1]", _HUGE)]}),
    ],
)
def test_xml_constructors_refuse_offsets_past_int64(build):
    with pytest.raises(ValueError, match=r"is out of range \(at most 2\*\*62\)"):
        build(X)
