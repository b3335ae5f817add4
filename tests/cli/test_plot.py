"""irscore.plot: figures are not left open, names are printed literally."""
import warnings
from pathlib import Path

import pytest

import irscore
from irscore import xml as X

plt = pytest.importorskip("matplotlib.pyplot")

XML = Path(__file__).resolve().parents[1] / "data" / "xml"
QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2, "d4": 0}, "q2": {"d1": 0, "d2": 1, "d3": 1, "d4": 0},
         "q3": {"d1": 1, "d2": 1, "d3": 0, "d4": 0}}
ODD = r"a$\q$"          # mathtext that does not parse


def _run(order):
    return {q: {d: float(len(order) - i) for i, d in enumerate(order)} for q in QRELS}


def _plots(names):
    """One call of each plot function, runs named ``names`` (two of them)."""
    from irscore.plot import xml as plot_xml

    a, b = names
    runs = {a: _run(["d1", "d2", "d3", "d4"]), b: _run(["d4", "d3", "d2", "d1"])}
    c = irscore.compare(QRELS, runs, "map", test="sign")
    xq = X.read_passage_qrels(XML / "focused.qrels")
    xr = X.read_fol_run(XML / "focused.fol", xq)
    return {
        "crp": lambda **kw: irscore.plot.crp(QRELS, runs, "q1", **kw),
        "differences": lambda **kw: irscore.plot.differences(c, "map", **kw),
        "ep_gr_curve": lambda **kw: plot_xml.ep_gr_curve(xq, {a: xr, b: xr}, **kw),
        "ip_curve": lambda **kw: plot_xml.ip_curve(xq, {a: xr, b: xr}, topic="1", **kw),
    }


@pytest.mark.parametrize("name", ["crp", "differences", "ep_gr_curve", "ip_curve"])
def test_a_loop_of_plots_leaves_no_figure_open(name, tmp_path):
    plot = _plots(("x", "y"))[name]
    before = list(plt.get_fignums())
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # pyplot warns when more than 20 figures are open
        for i in range(30):
            ax = plot(path=str(tmp_path / f"{i}.png") if i == 1 else None)
            assert ax.figure is not None
    assert plt.get_fignums() == before
    assert (tmp_path / "1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("name", ["crp", "differences", "ep_gr_curve", "ip_curve"])
def test_a_given_axes_is_drawn_into(name):
    fig, ax = plt.subplots()
    try:
        assert _plots(("x", "y"))[name](ax=ax) is ax and ax.lines
    finally:
        plt.close(fig)


@pytest.mark.parametrize("name", ["crp", "differences", "ep_gr_curve", "ip_curve"])
@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_a_dollar_in_a_name_is_printed_literally(name, suffix, tmp_path):
    path = tmp_path / f"plot.{suffix}"
    ax = _plots((ODD, "b$"))[name](path=str(path))
    assert path.stat().st_size > 0
    texts = [t.get_text() for t in ax.get_legend().get_texts()] if ax.get_legend() else []
    shown = texts + [ax.get_title(), ax.get_ylabel()]
    assert any(ODD.replace("$", r"\$") in t for t in shown)
