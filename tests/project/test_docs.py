"""The project's own reference (docs/ and README.md).

- every measure family the code registers is documented on a page of docs/;
- the examples of README.md and docs/*.md run as written from the repository
  root and give the values their comments show;
- every public name of ``irscore`` is in the API reference;
- ``mkdocs build --strict`` passes (when mkdocs and its plugins are installed);
- every relative link of README.md and docs/*.md points to an existing file;
- no page cites the private specification or a file outside the repository.
"""
from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import math
import os
import re
import shlex
import subprocess
import sys
import tokenize
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = ["index", "classic", "names", "conventions", "batch", "rocchio", "crp", "web_diversity", "user_models",
         "reliability_sensitivity", "xml", "cli", "development", "api", "performance"]


def _text(page: str) -> str:
    return (DOCS / f"{page}.md").read_text(encoding="utf-8")


def _registry(attr: str, *modules: str) -> Any:
    """``attr`` of the first of ``modules`` that defines it (the registries may
    move between modules of the core; the test follows them)."""
    for name in modules:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        if hasattr(mod, attr):
            return getattr(mod, attr)
    pytest.fail(f"no module among {modules} defines {attr}; update tests/project/test_docs.py")


_MEASURE_MODULES = ("irscore.measures", "irscore.core.measures", "irscore.core.names",
                    "irscore.core.registry", "irscore.names", "irscore.registry")


def _mentions(text: str, name: str) -> bool:
    """``name`` appears as a code span or a whole word of the page."""
    return f"`{name}" in text or re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


def test_every_page_of_the_nav_exists() -> None:
    for page in PAGES:
        assert (DOCS / f"{page}.md").is_file(), f"docs/{page}.md is missing"
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in PAGES:
        assert f"{page}.md" in nav, f"docs/{page}.md is not in the nav of mkdocs.yml"


def test_home_page_maps_every_page_and_subcommand() -> None:
    nav = re.findall(r"^\s*- (?:[^:\n]+: )?(\w+)\.md$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    assert len(nav) > 15
    home = _text("index")
    unmapped = [page for page in nav if page != "index" and f"]({page}.md)" not in home]
    assert not unmapped, f"the map of docs/index.md does not list {unmapped}"
    from irscore.cli import SUBCOMMANDS
    row = next(line for line in home.splitlines() if line.startswith("| [Command line](cli.md)"))
    missing = [name for name in SUBCOMMANDS if f"`irscore {name}`" not in row]
    assert not missing, f"the Command line row of docs/index.md does not list {missing}"


def test_every_trec_eval_family_is_on_the_classic_page() -> None:
    families: Dict[str, Any] = _registry("FAMILIES", *_MEASURE_MODULES)
    assert len(families) > 30
    text = _text("classic")
    missing = [name for name in families if not _mentions(text, name)]
    assert not missing, f"docs/classic.md does not define {missing}"


def test_every_measure_set_is_documented() -> None:
    sets: Dict[str, List[str]] = _registry("MEASURE_SETS", *_MEASURE_MODULES)
    text = _text("classic")
    for name, members in sets.items():
        assert f"`{name}`" in text, f"measure set {name!r} is not on docs/classic.md"
        for fam in members:
            assert _mentions(text, fam), f"{fam} (set {name}) is not on docs/classic.md"


def test_every_ir_measures_alias_is_on_the_names_page() -> None:
    aliases: Dict[str, str] = _registry("ALIASES", *_MEASURE_MODULES)
    text = _text("names") + _text("classic")
    missing = [a for a in aliases if not _mentions(text, a)]
    assert not missing, f"docs/names.md does not list the names {missing}"


def test_every_registered_family_has_its_page() -> None:
    # the families outside trec_eval register themselves when their module loads
    importlib.import_module("irscore.rocchio")
    importlib.import_module("irscore.crp")
    external: Dict[str, Any] = _registry("EXTERNAL", *_MEASURE_MODULES)
    assert external, "no registered measure family"
    text = _text("rocchio") + _text("crp") + _text("web_diversity") + _text("user_models")
    missing = [name for name in external if not _mentions(text, name)]
    assert not missing, f"no page of docs/ defines the registered families {missing}"
    for name in ("Rnorm", "Pnorm", "rank_recall", "log_precision", "scaled_recall"):
        assert _mentions(_text("rocchio"), name)
    for name in ("CRP_loss", "CRP_worst_loss", "CRP_recovery", "CRP_balance", "CRP_turnaround"):
        assert _mentions(_text("crp"), name)


def test_every_xml_measure_form_is_on_the_xml_page() -> None:
    from irscore import xml as X

    with pytest.raises(ValueError) as info:
        X.measure_family("no-such-measure")
    message = str(info.value)
    assert "known forms:" in message, "irscore.xml.measure_family no longer lists its forms"
    forms = message.split("known forms:", 1)[1].split()
    assert len(forms) > 20
    text = _text("xml")
    missing = [f for f in forms if not _mentions(text, f)]
    assert not missing, f"docs/xml.md does not define {missing}"
    for name in X.DEFAULT_MEASURES:
        X.measure_family(name)
        assert name in text


def test_reliability_sensitivity_outputs_are_on_their_page() -> None:
    import irscore

    result = irscore.reliability_sensitivity([[["a"], ["b"]]], [[["a", "b"]]])
    text = _text("reliability_sensitivity")
    for name in result:
        assert f"`{name}`" in text, f"{name} is not on docs/reliability_sensitivity.md"
    for fn in ("filtering_rs", "bcubed", "extended_bcubed", "read_organization"):
        assert f"{fn}(" in text


def test_batch_functions_are_on_the_batch_page() -> None:
    from irscore import batch

    text = _text("batch")
    missing = [name for name in batch.__all__ if not _mentions(text, name)]
    assert not missing, f"docs/batch.md does not mention {missing}"
    for tie in batch.TIES:
        assert f'"{tie}"' in text


def test_every_public_name_is_in_the_api_reference() -> None:
    import irscore

    text = _text("api")
    public = [n for n in irscore.__all__ if not n.startswith("_")]
    missing = [n for n in public if not re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text)]
    assert not missing, f"docs/api.md does not document {missing}"


def test_cli_options_are_on_the_cli_page() -> None:
    from irscore.cli import build_parser

    text = _text("cli")
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command, p in sub.choices.items():
        assert f"irscore {command}" in text, f"`irscore {command}` is not on docs/cli.md"
        for action in p._actions:
            for opt in action.option_strings:
                if opt in ("-h", "--help"):
                    continue
                assert f"`{opt}" in text or f" {opt} " in text or f"[{opt}" in text, \
                    f"option {opt} of `irscore {command}` is not on docs/cli.md"


# ----------------------------------------------------------------- links and text

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _markdown_files() -> List[Path]:
    return [ROOT / "README.md"] + sorted(DOCS.glob("*.md"))


def _strip_code(text: str) -> str:
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return re.sub(r"`[^`\n]*`", "", text)


@pytest.mark.parametrize("path", _markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_to_existing_files(path: Path) -> None:
    text = _strip_code(path.read_text(encoding="utf-8"))
    bad = []
    for target in _LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # URL or same-page anchor
        file_part = target.split("#", 1)[0]
        if not (path.parent / file_part).exists():
            bad.append(target)
    assert not bad, f"{path.name}: links to missing files {bad}"


def test_readme_links_into_the_docs() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in ("classic", "batch", "rocchio", "crp", "reliability_sensitivity", "xml", "cli"):
        assert f"docs/{page}.md" in text, f"README.md does not link docs/{page}.md"


def test_no_page_cites_files_outside_the_repository() -> None:
    files = [ROOT / "README.md", ROOT / "mkdocs.yml"] + [p for p in DOCS.rglob("*") if p.is_file()]
    for path in files:
        text = path.read_text(encoding="utf-8")
        for word in ("SPEC", "../shared", "/work/"):
            assert word not in text, f"{path.relative_to(ROOT)} mentions {word!r}"


_FENCE = re.compile(r"^(?P<indent>[ \t>]*)(?P<fence>`{3,}|~{3,})(?P<rest>.*)$")


def _fence_problems(text: str) -> List[str]:
    """Code fences of ``text`` that do not close: one still open at the end, or a
    line of the block's fence characters followed by text (it reads as the end of
    the block but Markdown keeps it, and everything after it, inside the block)."""
    problems: List[str] = []
    opened: Optional[Tuple[int, str]] = None
    for n, line in enumerate(text.splitlines(), 1):
        m = _FENCE.match(line)
        if opened is None:
            if m and not (m["fence"][0] == "`" and "`" in m["rest"]):   # ```x``` is inline code
                opened = (n, m["fence"])
            continue
        if m and m["fence"][0] == opened[1][0] and len(m["fence"]) >= len(opened[1]):
            if m["rest"].strip():
                problems.append(f"line {n} ({line.strip()[:30]!r}...) does not close the block of line "
                                f"{opened[0]}: text follows the fence")
            else:
                opened = None
    if opened is not None:
        problems.append(f"the block opened on line {opened[0]} never closes")
    return problems


def test_fence_check_finds_unclosed_blocks() -> None:
    assert _fence_problems("a\n```python\nx = 1\n```\n\n- item\n\n    ~~~text\n    y\n    ~~~\n") == []
    assert _fence_problems("````md\n```python\n```\n````\n") == []
    assert _fence_problems("```python\nx = 1\n``` More text.\n\n```python\ny\n```\n")[0].startswith("line 3 ")
    assert _fence_problems("1. step\n\n    ```sh\n    run\n") == ["the block opened on line 3 never closes"]
    assert len(_fence_problems("~~~\nx\n```\n")) == 1


@pytest.mark.parametrize("path", _markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_code_fence_closes(path: Path) -> None:
    problems = _fence_problems(path.read_text(encoding="utf-8"))
    assert not problems, f"{path.relative_to(ROOT)}: " + "; ".join(problems)


# Sphinx cross-reference roles: the API reference (mkdocstrings, numpy style, Markdown)
# shows them as typed; write [`Run`][irscore.core.data.Run] (resolved by the strict
# build) or a code span `Run` instead.
_SPHINX_ROLE = re.compile(r":(?:py:)?(?:class|func|mod|meth|attr|data|exc|obj|const|ref|doc|term|math):`")


def test_docstrings_use_no_sphinx_roles() -> None:
    hits = []
    for path in sorted((ROOT / "src" / "irscore").rglob("*.py*")):
        if path.suffix not in (".py", ".pyi"):
            continue
        with tokenize.open(path) as f:
            for tok in tokenize.generate_tokens(f.readline):
                if tok.type == tokenize.STRING:
                    for m in _SPHINX_ROLE.finditer(tok.string):
                        line = tok.start[0] + tok.string.count("\n", 0, m.start())
                        hits.append(f"{path.relative_to(ROOT)}:{line}")
    assert not hits, f"Sphinx roles in docstrings (the API reference shows them raw): {hits}"


def test_install_commands_work_from_a_clone() -> None:
    """irscore is not on a package index: the pages say ``pip install ".[extra]"``
    (from a clone), never ``pip install "irscore[extra]"``."""
    hits = [f"{p.relative_to(ROOT)}:{n}" for p in _markdown_files()
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if "irscore[" in line]
    assert not hits, f"install commands that need irscore on an index: {hits}"


def test_ci_builds_the_docs_with_the_docs_extra() -> None:
    if not (ROOT / ".ci" / "run").exists():
        pytest.skip("no .ci/run (not a checkout of the repository)")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "mkdocs build --strict" in ci
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r"^docs = \[(.*)\]$", pyproject, re.M), "pyproject.toml has no [docs] extra"
    # CI installs what it needs from the project's own extras, never by hand (its
    # extras function installs an extra's packages without rebuilding the project)
    assert re.search(r'pip install [^\n]*-e "\.\[[^\]]*\bdocs\b[^\]]*\]"', ci) or \
        re.search(r"^extras [^\n]*\bdocs\b", ci, re.M), ".ci/run does not install the [docs] extra"


def test_ci_runs_the_readme_test_command() -> None:
    if not (ROOT / ".ci" / "run").exists():
        pytest.skip("no .ci/run (not a checkout of the repository)")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"\*\*Run the tests\*\*.*?```bash\n(.*?)\n```", readme, re.S)
    assert m, "README.md has no test command (a bash block after **Run the tests**)"
    command = m.group(1).strip()
    assert "pytest" in command
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci, f".ci/run does not run the README's test command {command!r} on a line of its own"


def test_docs_ship_in_the_sdist() -> None:
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    assert re.search(r"^recursive-include docs ", manifest, re.M), "MANIFEST.in does not ship docs/"
    assert re.search(r"^include .*mkdocs\.yml", manifest, re.M), "MANIFEST.in does not ship mkdocs.yml"


# ----------------------------------------------------------------- the site builds

def _have(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built by ``mkdocs build --strict`` (skip without the [docs] extra)."""
    if not _have("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        pytest.skip("mkdocs, mkdocs-material or mkdocstrings[python] not installed (extra [docs])")
    out = tmp_path_factory.mktemp("docs") / "site"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([_IMPORTED_FROM, env.get("PYTHONPATH", "")])
    env["NO_MKDOCS_2_WARNING"] = "1"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml"), "-d", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return out


def test_mkdocs_build_strict(site: Path) -> None:
    for page in PAGES:
        assert (site / ("" if page == "index" else page) / "index.html").is_file(), page
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    # the API reference is generated: signatures of pure-Python objects of every family
    # (module paths may move inside a family's package; the object names stay)
    for name in ("evaluate", "parse_measure", "read_qrels", "Qrels", "batch.evaluate", "rocchio.from_arrays",
                 "crp.crp_curves", "reliability_sensitivity", "xml.interpolated_precision", "xml.evaluate"):
        assert re.search(rf'id="irscore(\.\w+)*\.{re.escape(name)}"', api), \
            f"{name} is not in the generated API reference"
    xml = (site / "xml" / "index.html").read_text(encoding="utf-8")
    assert xml.count('class="arithmatex"') > 20 and xml.count("<table>") >= 4


def test_site_carries_its_own_mathjax(site: Path) -> None:
    """Pages with formulas load MathJax from files of the site (offline), never a CDN."""
    pages = [p for p in site.rglob("*.html") if 'class="arithmatex"' in p.read_text(encoding="utf-8")]
    assert len(pages) > 5
    for page in pages:
        scripts = re.findall(r'<script[^>]*\bsrc="([^"]+)"', page.read_text(encoding="utf-8"))
        remote = [s for s in scripts if re.match(r"^([a-z]+:)?//", s)]
        assert not remote, f"{page.relative_to(site)} loads scripts from the network: {remote}"
        missing = [s for s in scripts if not (page.parent / s.split("?")[0]).resolve().is_file()]
        assert not missing, f"{page.relative_to(site)} loads scripts the site lacks: {missing}"
        assert any(s.endswith("mathjax/tex-mml-chtml.js") for s in scripts), page.relative_to(site)
    mathjax = site / "javascripts" / "mathjax"
    # what tex-mml-chtml.js loads at run time: its fonts, and TeX packages on demand
    assert len(list((mathjax / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))) > 10
    assert (mathjax / "input" / "tex" / "extensions" / "ams.js").is_file()
    assert 'VERSION="3.' in (mathjax / "tex-mml-chtml.js").read_text(encoding="utf-8"), "not MathJax 3"


def test_built_site_cites_no_private_specification(site: Path) -> None:
    hits = sorted(str(p.relative_to(site)) for p in site.rglob("*.html") if "SPEC" in p.read_text(encoding="utf-8"))
    if hits and any("SPEC" in p.read_text(encoding="utf-8") for p in (ROOT / "src").rglob("*.py")):
        pytest.xfail(f"docstrings in src/ still cite SPEC, rendered into {hits}")
    assert not hits, f"the built site cites SPEC in {hits}"


# ----------------------------------------------------------------- examples run

_SKIP_BLOCK = ("model(", "plot.", "import torch")   # sketches needing a model, matplotlib output files


def _blocks(path: Path, lang: str) -> List[str]:
    return re.findall(rf"```{lang}\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def _shown(lines: List[str], last: int) -> Optional[str]:
    """The value a comment shows for the statement ending on ``lines[last]``: its
    end-of-line comment, or else the comment line right below it (with the
    continuation lines of a bracket left open); None for prose."""
    k = last + 1
    if "#" in lines[last]:
        text = lines[last].split("#", 1)[1].strip()
    elif k < len(lines) and lines[k].lstrip().startswith("#"):
        text = lines[k].lstrip()[1:].strip()
        k += 1
    else:
        return None

    def unbalanced(t: str) -> bool:
        return sum(t.count(c) for c in "{[(") > sum(t.count(c) for c in "}])")

    while k < len(lines) and lines[k].lstrip().startswith("#") and unbalanced(text):
        text += " " + lines[k].lstrip()[1:].strip()
        k += 1
    if re.match(r"^-?[0-9]", text):
        # numbers: "-3.0, -3.0, 0.4" followed by nothing or by prose in parentheses
        m = re.match(r"^-?[0-9.]+(?:,\s*-?[0-9.]+)*", text)
        assert m is not None
        rest = text[m.end():]
        return m.group(0) if rest == "" or re.match(r"^\s+\(", rest) else None
    if not re.match(r"^(\{|\[|\(|array\()", text):
        return None
    return text


def _literal(text: str) -> Tuple[bool, Any]:
    """The longest prefix of ``text`` ending at a bracket or number that
    evaluates as a value (what follows it is prose such as "(rounded here)")."""
    ends = [m.end() for m in re.finditer(r"[\]\})0-9]", text)]
    for end in reversed(ends):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return True, eval(text[:end], {"__builtins__": {}}, {"array": np.array, "nan": math.nan})
        except Exception:
            continue
    return False, None


def _close(got: Any, shown: Any) -> bool:
    if isinstance(shown, dict):
        return isinstance(got, dict) and all(k in got and _close(got[k], v) for k, v in shown.items())
    if isinstance(shown, (list, tuple, np.ndarray)) or isinstance(got, (list, tuple, np.ndarray)):
        try:
            g = np.asarray(got, dtype=float)
            e = np.asarray(shown, dtype=float)
        except (TypeError, ValueError):
            return isinstance(got, (list, tuple)) and len(got) == len(shown) and all(map(_close, got, shown))
        return g.shape == e.shape and bool(np.allclose(g, e, rtol=0, atol=6e-5, equal_nan=True))
    if isinstance(shown, (int, float)) and isinstance(got, (int, float, np.number)):
        return math.isclose(float(got), float(shown), rel_tol=0, abs_tol=6e-5) or \
            (math.isnan(float(got)) and math.isnan(float(shown)))
    return bool(got == shown)


def _run_python(code: str, where: str) -> List[str]:
    """Run a block statement by statement; check every value a comment shows."""
    lines = code.splitlines()
    ns: Dict[str, Any] = {"__name__": "__docs_example__"}
    checked = []
    for node in ast.parse(code).body:
        src = ast.get_source_segment(code, node) or ""
        if isinstance(node, ast.Expr):
            value = eval(compile(ast.Expression(node.value), where, "eval"), ns)
            shown = _shown(lines, (node.end_lineno or node.lineno) - 1)
            if shown is not None:
                ok, expected = _literal(shown)
                if ok:
                    assert _close(value, expected), f"{where}: `{src}` gives {value!r}, the example shows {shown}"
                    checked.append(src)
        else:
            exec(compile(ast.Module([node], type_ignores=[]), where, "exec"), ns)
    return checked


# docs/switching.md's snippets import the peers (ranx, torchmetrics, xgboost ...) and
# register irscore as an ir_measures provider: tests/compat/test_compat_docs.py runs them,
# each skipped when its peer is absent, and undoes the registration.
_OWN_RUNNER = {"switching.md"}

# the directory irscore is imported from (src/ in a checkout, site-packages for a wheel):
# subprocesses must import the same irscore, never the sdist's uncompiled src/
_IMPORTED_FROM = str(Path(importlib.import_module("irscore").__file__).resolve().parents[1])


def _example_files() -> List[Path]:
    return [ROOT / "README.md"] + sorted(p for p in DOCS.glob("*.md") if p.name not in _OWN_RUNNER)


@pytest.mark.parametrize("path", _example_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_python_examples_run_and_show_their_values(path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    text = path.read_text(encoding="utf-8")
    for i, code in enumerate(_blocks(path, "python")):
        if any(s in code for s in _SKIP_BLOCK):
            continue
        _run_python(code, f"{path.name} example {i + 1}")
        # a block followed by a ```text block shows what it prints
        after = text.split(code, 1)[1]
        m = re.match(r"```\s*```text\n(.*?)```", after, re.S)
        out = capsys.readouterr().out
        if m:
            assert out.strip() == m.group(1).strip(), f"{path.name} example {i + 1} prints\n{out}"


def test_readme_examples_check_values() -> None:
    # the value checker above is not vacuous on the README: it compares these
    checked: List[str] = []
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        for i, code in enumerate(_blocks(ROOT / "README.md", "python")):
            checked += _run_python(code, f"README.md example {i + 1}")
    finally:
        os.chdir(cwd)
    assert len(checked) >= 6, checked


_RAN: set = set()


def _commands(path: Path) -> List[List[str]]:
    out = []
    for code in _blocks(path, "bash"):
        for cmd in code.replace("\\\n", " ").splitlines():
            cmd = cmd.split("  #", 1)[0].strip()
            if cmd.startswith("irscore "):
                out.append(shlex.split(cmd)[1:])
    return out


@pytest.mark.parametrize("path", [ROOT / "README.md", DOCS / "cli.md", DOCS / "rocchio.md",
                                  DOCS / "reliability_sensitivity.md", DOCS / "xml.md"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_command_examples_run(path: Path) -> None:
    commands = _commands(path)
    assert commands, f"{path.name} has no irscore command example"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([_IMPORTED_FROM, env.get("PYTHONPATH", "")])
    for args in commands:
        if "-" in args[-1:] or tuple(args) in _RAN:
            continue  # reads standard input, or already run for another page
        _RAN.add(tuple(args))
        proc = subprocess.run([sys.executable, "-m", "irscore", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"irscore {' '.join(args)}: {proc.stderr}"
        assert "\tall\t" in proc.stdout


def test_ir_measures_registry_is_explained() -> None:
    """Every measure of ir_measures' registry is computed by irscore (by its
    name, with a cutoff where it needs one) or explained on
    docs/web_diversity.md."""
    irm = pytest.importorskip("ir_measures")
    from irscore import diversity
    from irscore.core.measures import resolve

    text = _text("web_diversity")
    section = text[text.index("ir_measures 0.4's registry"):]
    unexplained = []
    for name in sorted(irm.measures.registry):
        known = False
        for cand in (name, f"{name}@5", f"{name}@0.5"):
            for check in (lambda c: resolve([c]), diversity.evaluation.parse):
                try:
                    check(cand)
                    known = True
                except ValueError:
                    pass
        if not known and f"`{name}" not in section:
            unexplained.append(name)
    assert not unexplained, f"ir_measures measures neither offered nor explained: {unexplained}"
