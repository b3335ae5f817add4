"""Precall: the published definition (s = xN - k) and RePrec 0.32's whole-unit
reading (``precall="reprec"`` / ``compat="reprec"``), issue class 6.

RePrec (expected values worked by hand from RePrec::PRR::precision): the tie
group g is the one completing the ceil(xN)-th whole relevant unit (fractions
carried between groups, leftover fractions form a final virtual group counted
again); k, j = relevant, non-relevant units before g; r, i = in g;
s = ceil(xN) - k; P(x) = xN / (xN + j + s i / (r + 1)).
"""
from __future__ import annotations

import pytest

from irscore import xml as X
from xml_precall_reference import precall_reprec, whole_ceil


def one_topic(units, extra=(), scores=None):
    """Element qrels and a run: ``units`` = q of each retrieved result (0 =
    unassessed), ``extra`` = q of unretrieved assessed elements."""
    els = [(f"d{i}", 0, 10, 1.0, v) for i, v in enumerate(units) if v > 0]
    els += [(f"u{i}", 0, 10, 1.0, v) for i, v in enumerate(extra)]
    q = X.XmlQrels.from_elements({"1": els})
    run = X.XmlRun.from_spans({"1": [(f"d{i}", 0, 10) for i in range(len(units))]})
    if scores is not None:
        run.score[:] = scores
    return q, run


def test_half_relevant_result():
    # one result, q = 0.5.  RePrec: no whole unit is completed by the group
    # (0.5, 0.5); the leftover forms the virtual group (1.0, 1.0) (cumulative,
    # the fractions counted again).  x = 1: xN = 0.5, ceil = 1, g = virtual,
    # k = 0.5, j = 0.5, r = 0.5, i = 0.5, s = 0.5: 0.5 / (0.5 + 0.5 + 0.5*0.5/1.5)
    q, run = one_topic([0.5])
    r = X.inex_eval(q, run, points=1, quantisation="generalised", precall="reprec")
    assert r["Precall[1.00]"]["1"] == 0.5 / (0.5 + 0.5 + 0.5 * 0.5 / 1.5)
    assert round(r["Precall[1.00]"]["1"], 4) == 0.4286
    # published: s = xN - k = 0.5 in the group (0.5, 0.5): 0.5 / (0.5 + 0.5*0.5/1.5) = 0.75
    assert X.inex_eval(q, run, points=1)["Precall[1.00]"]["1"] == pytest.approx(0.75)


def test_relevant_tied_with_non_relevant():
    # one tie group {relevant, non-relevant}: N = 1.  RePrec: every x needs
    # ceil(x) = 1 unit: s = 1, i = 1, r = 1 -> x / (x + 1/2): P(0.5) = 0.5, P(1) = 2/3
    q, run = one_topic([1.0, 0.0], scores=[1.0, 1.0])
    r = X.evaluate(q, run, ["Precall[0.50]", "Precall[1.00]", "inex_eval"], per_query=True,
                   compat="reprec", quantisation="generalised")
    assert r["Precall[0.50]"]["1"] == 0.5 / (0.5 + 0.5)
    assert r["Precall[1.00]"]["1"] == 1 / (1 + 0.5)
    expected = sum((k / 100) / (k / 100 + 1 / 2) for k in range(1, 101)) / 100
    assert r["inex_eval"]["1"] == pytest.approx(expected)
    assert round(expected, 3) == 0.454
    # published: s = x, so x / (x + x/2) = 2/3 at every level
    d = X.evaluate(q, run, ["Precall[0.50]", "inex_eval"], per_query=True)
    assert d["Precall[0.50]"]["1"] == pytest.approx(2 / 3) and d["inex_eval"]["1"] == pytest.approx(2 / 3)


def test_fractions_carried_between_groups():
    # groups (0.5), (0.5), (1): the first whole unit is completed in group 2.
    # x = 1/2 of N = 2: xN = 1, g = group 2 (index 1): k = 0.5, j = 0.5, r = 0.5,
    # i = 0.5, s = 1 - 0.5 -> 1 / (1 + 0.5 + 0.5 * 0.5 / 1.5)
    q, run = one_topic([0.5, 0.5, 1.0], scores=[3.0, 2.0, 1.0])
    r = X.inex_eval(q, run, points=2, precall="reprec")
    assert r["Precall[0.50]"]["1"] == 1 / (1 + 0.5 + 0.5 * 0.5 / 1.5)
    # x = 1: xN = 2, second unit in group 3: k = 1, j = 1, r = 1, i = 0 -> 2 / (2 + 1)
    assert r["Precall[1.00]"]["1"] == 2 / (2 + 1)


def test_float_ceiling_defect_not_copied():
    # 100 relevant units alternating with 100 non-relevant ones, x = 0.07:
    # 0.07 * 100 = 7.000000000000001; RePrec's ceil makes it 8 units
    # (P = 0.5000000000000001); the definition needs 7: j = 6 non-relevant
    # before the 7th relevant unit -> 7 / 13.
    assert 0.07 * 100 > 7 and whole_ceil(0.07 * 100) == 7
    dist = [(1.0, 0.0) if k % 2 == 0 else (0.0, 1.0) for k in range(200)]
    p = precall_reprec(dist, [0.07])[0]
    assert p == pytest.approx(7 / 13) and p != 0.5000000000000001


def test_unreached_levels_without_a_rest_group():
    # N = 2 (one unretrieved unit), no collection size: the second unit is not in
    # the distribution -> 0; the first: x = 0.5, group (1, 0) -> 1 / 1
    q, run = one_topic([1.0], extra=[1.0])
    r = X.inex_eval(q, run, points=2, precall="reprec")
    assert r["Precall[0.50]"]["1"] == 1.0 and r["Precall[1.00]"]["1"] == 0.0
    # with a collection of 10 units: the rest group (1 relevant, 8 non-relevant):
    # x = 1: k = 1, j = 0, r = 1, i = 8, s = 1 -> 2 / (2 + 0 + 8/2)
    r = X.inex_eval(q, run, points=2, precall="reprec", collection_size=10)
    assert r["Precall[1.00]"]["1"] == 2 / (2 + 8 / 2)


def test_precall_reading_is_checked():
    q, run = one_topic([1.0])
    with pytest.raises(ValueError, match="precall"):
        X.inex_eval(q, run, precall="gövert")


def test_cli_compat_reprec(capsys):
    from pathlib import Path

    from irscore.cli import main

    data = Path(__file__).resolve().parents[1] / "data" / "xml"
    q = X.read_element_tsv(data / "elements.tsv", exh_max=2)
    run = X.read_fol_run(data / "elements.fol", q)
    want = X.evaluate(q, run, ["inex_eval"], compat="reprec", collection_size=1000)["inex_eval"]
    assert want != X.evaluate(q, run, ["inex_eval"], collection_size=1000)["inex_eval"]
    assert main(["xml", "--compat", "reprec", "--exh-max", "2", "--collection-size", "1000", "-m", "inex_eval",
                 str(data / "elements.tsv"), str(data / "elements.fol")]) == 0
    rows = [tuple(x.strip() for x in ln.split("\t")) for ln in capsys.readouterr().out.splitlines()]
    assert ("inex_eval", "all", "%.4f" % want) in rows
