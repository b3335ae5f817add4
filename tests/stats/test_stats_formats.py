"""Renderings of a comparison (irscore.stats.formats): escaping of names, the wording of captions."""
import re
import warnings

import irscore

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d1": 0, "d2": 1, "d3": 1}, "q3": {"d1": 1, "d2": 1, "d3": 0}}
RUNS = {"bm25|rm3": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d1": 3.0, "d2": 2.0, "d3": 1.0},
                     "q3": {"d1": 3.0, "d2": 1.0, "d3": 2.0}},
        "dense": {"q1": {"d2": 3.0, "d1": 2.0}, "q2": {"d3": 3.0, "d2": 2.0}, "q3": {"d3": 3.0, "d1": 2.0}}}

_CELL_SEP = re.compile(r"(?<!\\)\|")


def test_markdown_escapes_a_pipe_in_a_system_name():
    md = irscore.compare(QRELS, RUNS, "map", test="t").to_markdown()
    tables = [ln for ln in md.splitlines() if ln.startswith("|")]
    widths = {len(_CELL_SEP.findall(ln)) for ln in tables[:4]}       # the table of means
    assert widths == {3}, md                                      # | system | map |, on every row
    assert "bm25\\|rm3" in md
    pair_rows = [ln for ln in tables if "dense" in ln and "bm25" in ln]
    assert pair_rows and all(len(_CELL_SEP.findall(ln)) == 11 for ln in pair_rows)


def test_latex_caption_starts_its_second_sentence_with_a_capital():
    tex = irscore.compare(QRELS, RUNS, ["map", "P_2"], test="t").to_latex()
    assert "\\caption{Mean map, P\\_2. Paired Student's t-test" in tex


def test_one_query_is_singular():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = irscore.compare({"q1": QRELS["q1"]}, {k: {"q1": v["q1"]} for k, v in RUNS.items()}, "map", test="sign")
    assert "1 query (" in c.to_text() and "1 queries" not in c.to_text()
    assert "3 queries (" in irscore.compare(QRELS, RUNS, "map", test="sign").to_text()
