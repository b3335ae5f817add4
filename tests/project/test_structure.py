"""The package's layout rules, checked on the source.

Layers (``irscore.<name>``):

- the **core**, ``irscore.core.*``: data model, readers, measure names, the
  family table, ranked lists, checks, the thread pool.  It imports only the
  core and the compiled kernels.
- the **families**: ``classic``, ``batch``, ``rocchio``, ``crp``,
  ``organization`` (package), ``xml`` (package).  A family imports the core,
  the compiled kernels and its own package, never another family.
- the **front ends**: ``cli`` (package), ``plot`` (package) and the package
  root (``__init__``, ``__main__``).  They may import any family.

Names: a name that starts with an underscore is private to the module that
defines it; no module imports another module's ``_name``
(``from irscore.x import _helper``).  The compiled kernels are the one
exception: ``from irscore import _ranking`` imports the *module* ``_ranking``
(every ``csrc/irscore/<name>.pyx`` is built as ``irscore.<name>``).

Imports sit at the top of a module.  Function-level imports are allowed only
for optional third-party packages (matplotlib, pandas, ...), the standard
library, and in the CLI subcommand modules (``irscore.cli.*``), which import
their family when the subcommand runs so that ``irscore eval`` does not load
the XML family.  The package root and ``irscore.plot`` re-export names lazily
through ``importlib`` (module ``__getattr__``), and the core's family table
names the module that computes each registered family
(:mod:`irscore.core.registry`); these are the only dynamic imports.

No module in ``src/`` is longer than 700 lines.
"""
import ast
import random
import subprocess
import sys
from pathlib import Path

import pytest

import irscore

PKG = Path(irscore.__file__).resolve().parent
SRC = PKG.parent
MAX_LINES = 700

CORE = "core"
FAMILIES = {"classic", "batch", "rocchio", "crp", "organization", "xml", "prefs"}
FRONT_ENDS = {"cli", "plot", "__init__", "__main__"}


def _modules():
    """(dotted name, path) of every Python module of the package."""
    out = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(SRC).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append((".".join(parts), path))
    return out


def _compiled():
    return sorted({p.name.split(".")[0] for p in PKG.iterdir() if p.suffix in (".so", ".pyd")})


def _top(dotted):
    """The layer unit of a module: 'core', a family, a front end."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(tree, dotted, is_package):
    """(node, imported module, imported names, at top level?) of every import."""
    top_level = {id(n) for n in tree.body}
    # imports inside `if TYPE_CHECKING:` blocks count as top level
    for n in tree.body:
        if isinstance(n, ast.If):
            top_level.update(id(x) for x in n.body)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out.append((node, a.name, [], id(node) in top_level))
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                base = dotted.split(".") if is_package else dotted.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([mod] if mod else []))
            out.append((node, mod, [a.name for a in node.names], id(node) in top_level))
    return out


def test_every_module_imports_in_a_fresh_interpreter_in_random_order():
    names = [d for d, _ in _modules() if not d.endswith("__main__")]
    names += [f"irscore.{c}" for c in _compiled()]
    for seed in range(5):
        order = names[:]
        random.Random(seed).shuffle(order)
        code = "import importlib\nfor name in %r:\n    importlib.import_module(name)\n" % (order,)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env={"PYTHONPATH": str(SRC), "PATH": ""})
        assert proc.returncode == 0, f"seed {seed}: {order}\n{proc.stderr}"


def test_layers_and_private_names():
    compiled = set(_compiled())
    problems = []
    for dotted, path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        unit = _top(dotted)
        for node, mod, names, at_top in _imports(tree, dotted, path.name == "__init__.py"):
            where = f"{path.relative_to(SRC)}:{node.lineno}"
            if not mod.startswith("irscore"):
                continue
            parts = mod.split(".")
            # what is imported: modules (irscore.x.y) and names from them
            targets = [mod] + [f"{mod}.{n}" for n in names]
            for t in targets:
                tp = t.split(".")
                if len(tp) < 2:
                    continue
                if tp[1] in compiled:
                    continue                      # a compiled kernel: a leaf module
                other = tp[1]
                if other not in FAMILIES | FRONT_ENDS | {CORE}:
                    continue                      # a name of the root package
                if unit == CORE and other != CORE:
                    problems.append(f"{where}: the core imports {t}")
                elif unit in FAMILIES and other not in (CORE, unit):
                    problems.append(f"{where}: family {unit} imports {t} (family {other})")
            for n in names:
                if n.startswith("_") and not n.endswith("__") and not (parts == ["irscore"] and n in compiled):
                    problems.append(f"{where}: imports the private name {mod}.{n}")
            if not at_top and unit != "cli":
                problems.append(f"{where}: function-level import of {mod}")
    assert problems == []


def test_no_module_over_700_lines():
    long = {str(p.relative_to(SRC)): n for _, p in _modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_every_package_documents_its_architecture():
    for init in [PKG / "__init__.py"] + sorted(PKG.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and "Architecture" in doc, f"{init.relative_to(SRC)} needs an architecture docstring"


def test_native_codes_are_defined_once_and_the_stubs_match():
    """Op/tie/error codes come from the kernels (cpdef enums of the .pxd files);
    the .pyi stubs list the same members with the same values."""
    import importlib

    for path in sorted(PKG.glob("_*.pyi")):
        module = importlib.import_module(f"irscore.{path.stem}")
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and any(ast.unparse(b) == "enum.IntEnum" for b in node.bases):
                stub = {t.targets[0].id: t.value.value for t in node.body if isinstance(t, ast.Assign)}
                native = {k: int(v) for k, v in getattr(module, node.name).__members__.items()}
                assert stub == native, f"{path.name}: {node.name}"
    native_src = "\n".join(p.read_text(encoding="utf-8") for p in (PKG.parent.parent / "csrc").rglob("*.p*"))
    assert "\nDEF " not in native_src


def test_public_api_has_numpydoc_docstrings():
    """The docs site's API reference is generated from these docstrings."""
    import importlib
    import inspect

    missing = []
    for m in ["irscore", "irscore.batch", "irscore.rocchio", "irscore.crp", "irscore.xml", "irscore.organization",
              "irscore.plot", "irscore.prefs"]:
        mod = importlib.import_module(m)
        for n in getattr(mod, "__all__", [n for n in dir(mod) if not n.startswith("_")]):
            obj = getattr(mod, n, None)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            doc = inspect.getdoc(obj) or ""
            if "Parameters\n---" not in doc and "Attributes\n---" not in doc:
                missing.append(f"{m}.{n}")
            elif inspect.isfunction(obj) and "Returns\n---" not in doc:
                missing.append(f"{m}.{n} (Returns)")
    assert missing == []
