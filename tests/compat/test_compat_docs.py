"""Every Python snippet of docs/switching.md runs (and asserts its agreement with
the peer); a snippet whose peer is not installed is skipped."""
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "switching.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
PEERS = {"pytrec_eval", "ir_measures", "ranx", "sklearn", "torch", "torchmetrics", "lightgbm", "xgboost", "pandas"}


def test_every_peer_section_has_a_snippet():
    assert len(SNIPPETS) >= 8


@pytest.mark.parametrize("code", SNIPPETS, ids=[f"snippet{i}" for i in range(len(SNIPPETS))])
def test_snippet_runs(code, monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    for mod in sorted(PEERS):
        if re.search(rf"^\s*(import|from) {mod}\b", code, flags=re.M):
            pytest.importorskip(mod)
    ns = {"__name__": "snippet"}
    try:
        exec(compile(code, str(DOC), "exec"), ns)
    finally:
        from irscore.compat import ir_measures as compat
        if compat._PROVIDER is not None:
            import ir_measures
            if compat._PROVIDER in ir_measures.DefaultPipeline.providers:
                ir_measures.DefaultPipeline.providers.remove(compat._PROVIDER)
