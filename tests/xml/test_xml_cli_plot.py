"""irscore xml command line and the ep/gr, iP plots."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from irscore import xml as X
from irscore.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "xml"


def test_cli_output(capsys):
    rc = main(["xml", "-q", "-m", "iP[0.01],MAiP", "-m", "nxCG@2", str(DATA / "focused.qrels"), str(DATA / "focused.fol")])
    assert rc == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [tuple(x.strip() for x in ln.split("\t")) for ln in lines]
    assert ("MAiP", "1", "%.4f" % (59 / 101)) in rows
    assert ("MAiP", "2", "%.4f" % ((100 / 900) * 51 / 101)) in rows
    assert ("runid", "all", "myrun") in rows
    mean = (59 / 101 + (100 / 900) * 51 / 101) / 2
    assert ("MAiP", "all", "%.4f" % mean) in rows
    # topic 1 nxCG@2: d1[200,400) (1, capped) + d2[0,400) (spe .25) over 2 ideal passages
    assert ("nxCG@2", "1", "0.6250") in rows
    assert lines[0].startswith("iP[0.01]              \t1\t")


def test_cli_errors(tmp_path, capsys):
    bad = tmp_path / "bad.fol"
    bad.write_text("1 Q0 d1 1 2 r 0 100\n1 Q0 d1 2 1 r 50 100\n")
    rc = main(["xml", "--non-overlapping", str(DATA / "focused.qrels"), str(bad)])
    assert rc == 2
    err = capsys.readouterr().err
    assert "bad.fol:2" in err and "non-overlapping" in err
    rc = main(["xml", "-m", "nDCG@5", str(DATA / "focused.qrels"), str(DATA / "focused.fol")])
    assert rc == 2
    assert "unknown XML measure" in capsys.readouterr().err


def test_cli_module_entry_point():
    out = subprocess.run([sys.executable, "-m", "irscore", "xml", "-m", "MAiP", str(DATA / "focused.qrels"),
                          str(DATA / "focused.fol")], capture_output=True, text=True, check=True)
    assert "MAiP" in out.stdout


def test_plots_write_png(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from irscore.plot import xml as plot_xml

    q = X.read_passage_qrels(DATA / "focused.qrels")
    run = X.read_fol_run(DATA / "focused.fol", q)
    p1, p2, p3 = tmp_path / "epgr.png", tmp_path / "ip.png", tmp_path / "epgr1.png"
    plot_xml.ep_gr_curve(q, {"myrun": run}, path=str(p1))
    plot_xml.ip_curve(q, {"myrun": run}, path=str(p2))
    plot_xml.ep_gr_curve(q, {"myrun": run}, topic="1", path=str(p3))
    for p in (p1, p2, p3):
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    x, y = plot_xml.ip_points(q, run, "1")
    assert y[0] == 1.0 and y[34] == 0.5 and y[84] == 0.0


def test_cli_element_assessments(capsys):
    rc = main(["xml", "-q", "--exh-max", "2", "--quantisation", "generalised",
               "-m", "XCG@3,nxCG@3,MAep,ngP_o@3,hixP@10",
               str(DATA / "elements.tsv"), str(DATA / "elements.fol")])
    assert rc == 0
    rows = {tuple(x.strip() for x in ln.split("\t")) for ln in capsys.readouterr().out.splitlines()}
    # hand-worked (tests/xml/test_xml.py::test_xcg_hand_worked_nested): gains .5, 0, .1, 0
    assert ("XCG@3", "1", "0.6000") in rows
    assert ("nxCG@3", "1", "%.4f" % (0.6 / 2.5)) in rows
    assert ("MAep", "1", "%.4f" % ((1 + 1 / 3) / 3)) in rows
    assert ("ngP_o@3", "1", "0.5000") in rows
    # rsize = spe * size: 300 + 0 + (500 - 300) + 0 over 2000 characters
    assert ("hixP@10", "1", "0.2500") in rows


def test_every_option_of_every_subcommand_has_help():
    import argparse

    from irscore.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    missing = [(cmd, a.option_strings or a.dest) for cmd, p in sub.choices.items() for a in p._actions
               if not a.help]
    assert not missing
