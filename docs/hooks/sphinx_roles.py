"""MkDocs hook: a Sphinx cross-reference role in a page fails the strict build.

The API reference is rendered by mkdocstrings from Markdown docstrings; a Sphinx
role (``:func:`evaluate```) would be shown as typed.  Docstrings write
``[`evaluate`][irscore.evaluate]`` (resolved, or the strict build fails) or a
code span instead.  This hook warns, which ``mkdocs build --strict`` turns into
an error, for every role left in the rendered HTML of a page.
"""
from __future__ import annotations

import logging
import re
from typing import Any

log = logging.getLogger("mkdocs.hooks.sphinx_roles")

# a role as it renders: the role name, then the code span of its target
_ROLE = re.compile(r":(?:py:)?(class|func|mod|meth|attr|data|exc|obj|const|ref|doc|term|math):<code>([^<]*)</code>")


def on_page_content(html: str, page: Any, **kwargs: Any) -> str:
    for m in _ROLE.finditer(html):
        log.warning("%s: Sphinx role :%s:`%s` (write [`name`][full.path] or `name` in docstrings)",
                    page.file.src_uri, m.group(1), m.group(2))
    return html
