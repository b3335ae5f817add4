"""MkDocs hook: the site carries its own MathJax 3, read offline.

The formulas of the site (pymdownx.arithmatex, generic mode) are typeset by
MathJax 3.  Its files come from the PyPI package ``django-static-mathjax``
(MathJax 3.2.2, no dependencies; the ``[docs]`` extra installs it), never from
a network at build or at read time: this hook adds ``es5/tex-mml-chtml.js``
and the component directories it loads on demand (fonts, TeX extensions,
menu, accessibility) to the site under ``javascripts/mathjax/``, where
``extra_javascript`` of mkdocs.yml points.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

DEST = "javascripts/mathjax"
ENTRY = "tex-mml-chtml.js"
# the directories of es5/ the entry component loads files from at run time
PARTS = ("a11y", "adaptors", "input", "output", "sre", "ui")


def mathjax_es5() -> Path:
    """The ``es5`` directory of the installed MathJax 3 (django-static-mathjax)."""
    spec = importlib.util.find_spec("mathjax")
    hint = 'install the [docs] extra: pip install -e ".[docs]" (package django-static-mathjax)'
    if spec is None or not spec.submodule_search_locations:
        raise PluginError(f"MathJax for the site is not installed; {hint}")
    root = Path(list(spec.submodule_search_locations)[0]) / "static" / "mathjax"
    es5 = root / "es5"
    try:
        version = json.loads((root / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        version = ""
    if not (es5 / ENTRY).is_file() or not version.startswith("3."):
        raise PluginError(f"the module 'mathjax' at {root.parent} is not MathJax 3 "
                          f"(found version {version or 'unknown'}); {hint}")
    return es5


def on_files(files: Files, config: Any) -> Files:
    es5 = mathjax_es5()
    paths = [es5 / ENTRY, es5.parent / "LICENSE"]
    for part in PARTS:
        paths.extend(p for p in sorted((es5 / part).rglob("*")) if p.is_file())
    for path in paths:
        rel = "LICENSE" if path.name == "LICENSE" and path.parent == es5.parent else path.relative_to(es5).as_posix()
        files.append(File.generated(config, f"{DEST}/{rel}", abs_src_path=str(path)))
    return files
