"""Every Python snippet of docs/training.md runs as written (the torch ones skip without torch)."""
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "training.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_page_has_its_snippets():
    assert len(SNIPPETS) >= 3


@pytest.mark.parametrize("code", SNIPPETS, ids=[f"snippet{i}" for i in range(len(SNIPPETS))])
def test_snippet_runs(code):
    for mod in ("torch", "torchmetrics"):
        if re.search(rf"^\s*(import|from) {mod}\b", code, flags=re.M):
            pytest.importorskip(mod)
    exec(compile(code, str(DOC), "exec"), {"__name__": "snippet"})
