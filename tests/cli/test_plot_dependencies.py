"""irscore.plot without matplotlib: an error saying which extra to install."""
import builtins
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"


def test_plot_without_matplotlib(monkeypatch):
    from irscore import plot

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    for mod in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, mod)
    qrels = {"1": {"a": 1}}
    with pytest.raises(ModuleNotFoundError, match=r"irscore.plot needs matplotlib: pip install 'irscore\[plot\]'"):
        plot.crp(qrels, {"r": {"1": {"a": 1.0}}}, "1")
    from irscore import xml

    q = xml.read_passage_qrels(DATA / "xml" / "focused.qrels")
    r = xml.read_fol_run(DATA / "xml" / "focused.fol")
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'irscore\[plot\]'"):
        plot.ip_curve(q, {"r": r})
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'irscore\[plot\]'"):
        plot.ep_gr_curve(q, {"r": r})
