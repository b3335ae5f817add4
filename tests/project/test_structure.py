"""The package's layout rules, checked on the source.

The layers are stated once, in the package root's docstring (``src/irscore/__init__.py``,
"Architecture"): its **families** and **front ends** lists are read here, every other
unit (module or package directly under ``irscore``) that is not the core is a family,
and `layering_problems` checks every import of the package against them: import
statements (top level, ``if TYPE_CHECKING:``, inside functions),
``importlib.import_module("irscore.x")`` and strings naming a module
(``"irscore.x.y"``, as in a table of modules):

- the core (``irscore.core``) refers only to the core and the compiled kernels
  ``irscore._<name>``; it imports nothing it does not name;
- a family refers only to the core, the kernels and its own unit;
- no unit reaches another module through the package root (``import irscore``,
  ``from irscore import evaluate``); ``from irscore import _ranking`` (a kernel),
  ``from irscore import xml`` (a unit) and names the root defines itself
  (``__version__``) are direct.

`test_a_planted_import_fails_the_check` plants each kind of forbidden import in a copy
of the tree and sees the same function report it.

Names: a name that starts with an underscore is private to the module that
defines it; no module imports another module's ``_name``
(``from irscore.x import _helper``).  The compiled kernels are the one
exception: ``from irscore import _ranking`` imports the *module* ``_ranking``
(every ``csrc/irscore/<name>.pyx`` is built as ``irscore.<name>``).

Imports sit at the top of a module.  Function-level imports of irscore modules
are allowed only in the CLI subcommand modules (``irscore.cli.*``), which import
their family when the subcommand runs so that ``irscore eval`` does not load the
XML family.  No import cycle between modules at import time, nor between units.

No module in ``src/`` is longer than 700 lines.
"""
import ast
import functools
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Set

import pytest

import irscore

PKG = Path(irscore.__file__).resolve().parent
SRC = PKG.parent
MAX_LINES = 700
CORE = "core"
_DYNAMIC = {"import_module", "__import__"}
_MODULE_PATH = re.compile(r"irscore(\.[A-Za-z_]\w*)+(:\w+)?")


def _bullet(doc: str, title: str) -> str:
    """The text of the bullet ``- **title**: ...`` of a docstring (up to the next bullet or paragraph)."""
    m = re.search(r"^- \*\*" + re.escape(title) + r"\*\*(.*?)(?=^- |^\S|\Z)", doc, re.S | re.M)
    return m.group(1) if m else ""


class Layers:
    """The units of the package in directory ``pkg`` and their layers, as its root docstring declares them."""

    def __init__(self, pkg: Path):
        self.pkg = pkg
        self.units = {p.stem for p in pkg.glob("*.py")} | {d.name for d in pkg.iterdir() if (d / "__init__.py").is_file()}
        tree = ast.parse((pkg / "__init__.py").read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree) or ""
        named = set(re.findall(r"irscore\.(\w+)", _bullet(doc, "front ends"))) & self.units
        self.front_ends = {"__init__", "__main__"} | (named - {CORE})
        self.families = self.units - self.front_ends - {CORE}
        self.documented_families = set(re.findall(r"irscore\.(\w+)", _bullet(doc, "families"))) & self.units
        # names the root binds itself (__version__), not the ones it re-exports lazily
        self.root_names: Set[str] = set()
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            self.root_names.update(t.id for t in targets if isinstance(t, ast.Name))
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                self.root_names.add(node.name)

    def is_kernel(self, name: str) -> bool:
        return name.startswith("_") and not name.startswith("__") and name not in self.units

    def layer(self, unit: str) -> str:
        return "core" if unit == CORE else "front end" if unit in self.front_ends else "family"

    def modules(self):
        """(unit, dotted name, path) of every Python module of the package."""
        out = []
        for path in sorted(self.pkg.rglob("*.py")):
            rel = path.relative_to(self.pkg)
            parts = ["irscore", *rel.with_suffix("").parts]
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out.append((rel.parts[0].removesuffix(".py") if len(parts) > 1 else "__init__", ".".join(parts), path))
        return out


class Ref(NamedTuple):
    """A reference of a module to another: ``how`` is 'import' (executed at import time),
    'typing' (under ``if TYPE_CHECKING:``), 'function' (inside a function or class body),
    'dynamic' (``importlib.import_module``; ``target`` None when not a literal) or 'string'."""

    line: int
    target: Optional[str]
    names: List[str]
    how: str


def module_references(path: Path, dotted: str) -> List[Ref]:
    """`references` of the module at ``path`` (cached by its text: the planted copies reuse it)."""
    return _references_of(path.read_text(encoding="utf-8"), dotted, path.name == "__init__.py")


@functools.lru_cache(maxsize=None)
def _references_of(text: str, dotted: str, is_package: bool) -> List[Ref]:
    return references(ast.parse(text), dotted, is_package)


def references(tree: ast.Module, dotted: str, is_package: bool) -> List[Ref]:
    where: Dict[int, str] = {}
    for n in tree.body:
        where[id(n)] = "import"
        if isinstance(n, ast.If):
            how = "typing" if ast.unparse(n.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING") else "import"
            where.update((id(x), how) for x in ast.walk(n) if x is not n)
        elif isinstance(n, ast.Try):
            where.update((id(x), "import") for x in n.body)
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    out = []
    for node in ast.walk(tree):
        how = where.get(id(node), "function")
        if isinstance(node, ast.Import):
            out += [Ref(node.lineno, a.name, [], how) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                base = dotted.split(".") if is_package else dotted.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([mod] if mod else []))
            out.append(Ref(node.lineno, mod, [a.name for a in node.names], how))
        elif isinstance(node, ast.Call):
            f = node.func
            if (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")) in _DYNAMIC:
                arg = node.args[0] if node.args else None
                literal = isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                out.append(Ref(node.lineno, arg.value if literal else None, [], "dynamic"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                and _MODULE_PATH.fullmatch(node.value):
            out.append(Ref(node.lineno, node.value.split(":")[0], [], "string"))
    # a literal argument of import_module is one reference, not also a string
    dynamic = {(r.line, r.target) for r in out if r.how == "dynamic"}
    return [r for r in out if not (r.how == "string" and (r.line, r.target) in dynamic)]


def _resolved(layers: Layers, unit: str, ref: Ref, where: str, problems: List[str]) -> List[str]:
    """The modules of irscore a reference reaches (problems for the ones it reaches through the root)."""
    if ref.target is None or not (ref.target == "irscore" or ref.target.startswith("irscore.")):
        return []
    if ref.target != "irscore":
        return [ref.target]
    if unit != "__init__":
        through = [n for n in ref.names if not (n in layers.root_names or n in layers.units or layers.is_kernel(n))]
        if not ref.names or through:
            if through:
                problems.append(f"{where}: {unit} reaches {', '.join(through)} through the package root ({ref.how})")
            else:
                problems.append(f"{where}: {unit} imports the package root (import irscore; {ref.how})")
    return [f"irscore.{n}" for n in ref.names if n in layers.units or layers.is_kernel(n)]


def layering_problems(pkg: Path) -> List[str]:
    """Every reference of the package in directory ``pkg`` that breaks the
    layering of its root docstring (see this module's docstring)."""
    layers = Layers(pkg)
    problems = []
    if layers.documented_families != layers.families:
        problems.append(f"__init__.py: the docstring lists the families {sorted(layers.documented_families)}; "
                        f"the package's are {sorted(layers.families)} (units neither core nor front end)")
    for unit, dotted, path in layers.modules():
        layer = layers.layer(unit)
        for ref in module_references(path, dotted):
            where = f"{path.relative_to(pkg.parent)}:{ref.line}"
            if ref.target is None and layer != "front end":
                who = "the core" if layer == "core" else f"family {unit}"
                problems.append(f"{where}: {who} imports a module it does not name")
            for t in _resolved(layers, unit, ref, where, problems):
                other = t.split(".")[1]
                if layers.is_kernel(other) or other not in layers.units or other in (unit, CORE):
                    continue
                what = f"{t} ({layers.layer(other)} {other}; {'by string' if ref.how == 'string' else ref.how})"
                if layer == "core":
                    problems.append(f"{where}: the core imports {what}")
                elif layer == "family":
                    problems.append(f"{where}: family {unit} imports {what}")
    return problems


def _cycles(edges: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one node (Tarjan), sorted."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def import_cycles(pkg: Path) -> List[str]:
    """Cycles among the package's modules through the imports run at import
    time, and among its units through every reference (any import, strings)."""
    layers = Layers(pkg)
    mods = {d for _, d, _ in layers.modules()}
    module_edges: Dict[str, Set[str]] = {}
    unit_edges: Dict[str, Set[str]] = {}
    for unit, dotted, path in layers.modules():
        for ref in module_references(path, dotted):
            via_root = ref.target == "irscore" and (not ref.names or any(
                not (n in layers.units or layers.is_kernel(n)) for n in ref.names))
            for t in _resolved(layers, unit, ref, "", []) + (["irscore"] if via_root else []):
                other = t.split(".")[1] if "." in t else "__init__"
                if other != unit and not layers.is_kernel(other) and other in layers.units:
                    unit_edges.setdefault(unit, set()).add(other)
                if ref.how == "import":
                    targets = [f"{t}.{n}" for n in ref.names if f"{t}.{n}" in mods] or [t]
                    module_edges.setdefault(dotted, set()).update(x for x in targets if x in mods and x != dotted)
    return [f"modules: {' <-> '.join(c)}" for c in _cycles(module_edges)] + \
           [f"units: {' <-> '.join(c)}" for c in _cycles(unit_edges)]


def _compiled():
    return sorted({p.name.split(".")[0] for p in PKG.iterdir() if p.suffix in (".so", ".pyd")})


def test_every_module_imports_in_a_fresh_interpreter_in_random_order():
    names = [d for _, d, _ in Layers(PKG).modules() if not d.endswith("__main__")]
    names += [f"irscore.{c}" for c in _compiled()]
    for seed in range(5):
        order = names[:]
        random.Random(seed).shuffle(order)
        code = "import importlib\nfor name in %r:\n    importlib.import_module(name)\n" % (order,)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env={"PYTHONPATH": str(SRC), "PATH": ""})
        assert proc.returncode == 0, f"seed {seed}: {order}\n{proc.stderr}"


def test_the_units_and_their_layers():
    layers = Layers(PKG)
    # the core and the front ends are declared; a unit of any other name is a family
    assert layers.families == layers.units - layers.front_ends - {CORE}
    assert {"classic", "batch", "rocchio", "crp", "webtrack", "usermodel", "diversity", "prefs",
            "organization", "xml"} <= layers.families
    assert {"__init__", "__main__", "cli", "plot"} <= layers.front_ends
    assert layers.documented_families == layers.families


def test_layering():
    assert layering_problems(PKG) == []


def test_no_import_cycles():
    assert import_cycles(PKG) == []


def _copy(tmp_path: Path) -> Path:
    """The package's Python modules copied to ``tmp_path/irscore``."""
    dst = tmp_path / "irscore"
    for path in PKG.rglob("*.py"):
        target = dst / path.relative_to(PKG)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return dst


# (module, code added at its end, what the check must say about that module)
PLANTED = {
    "family imports a sibling": (
        "diversity/evaluation.py", "from irscore.xml.model import XmlQrels\n",
        "family diversity imports irscore.xml.model (family xml; import)"),
    "family imports a sibling in a function": (
        "crp.py", "def _f():\n    from irscore.rocchio import compute_measure\n    return compute_measure\n",
        "family crp imports irscore.rocchio (family rocchio; function)"),
    "family imports a sibling under TYPE_CHECKING": (
        "usermodel.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from irscore.webtrack import err_values\n",
        "family usermodel imports irscore.webtrack (family webtrack; typing)"),
    "family imports a sibling through the root's module attribute": (
        "prefs.py", "from irscore import organization\n",
        "family prefs imports irscore.organization (family organization; import)"),
    "family imports a front end": (
        "batch/engine.py", "from irscore.stats import paired\n",
        "family batch imports irscore.stats (front end stats; import)"),
    "core imports a family": (
        "core/aggregate.py", "from irscore.classic import evaluate\n",
        "the core imports irscore.classic (family classic; import)"),
    "core imports a family by string": (
        "core/registry.py", '_COMPUTED_BY = {"Rnorm": "irscore.rocchio"}\n',
        "the core imports irscore.rocchio (family rocchio; by string)"),
    "core imports a family by importlib": (
        "core/registry.py", 'import importlib\n\ndef _load():\n    return importlib.import_module("irscore.crp")\n',
        "the core imports irscore.crp (family crp; dynamic)"),
    "core imports a module it does not name": (
        "core/registry.py", "import importlib\n\ndef _load(name):\n    return importlib.import_module(name)\n",
        "the core imports a module it does not name"),
    "family imports a module it does not name": (
        "organization/readers.py", "import importlib\n\ndef _load(name):\n    return importlib.import_module(name)\n",
        "family organization imports a module it does not name"),
    "core imports a front end in a function": (
        "core/io.py", "def _f():\n    import irscore.cli.eval\n    return irscore.cli.eval\n",
        "the core imports irscore.cli.eval (front end cli; function)"),
    "front end imports the package root": (
        "compat/ir_measures.py", "import irscore\n",
        "compat imports the package root (import irscore; import)"),
    "front end imports a re-exported name from the root": (
        "cli/compare.py", "from irscore import evaluate\n",
        "cli reaches evaluate through the package root (import)"),
    "family imports the package root in a function": (
        "xml/evaluation.py", "def _f():\n    import irscore\n    return irscore.evaluate\n",
        "xml imports the package root (import irscore; function)"),
}


def test_a_planted_import_fails_the_check(tmp_path):
    pkg = _copy(tmp_path)
    assert layering_problems(pkg) == []
    for case, (module, code, expected) in PLANTED.items():
        path = pkg / module
        original = path.read_text(encoding="utf-8")
        path.write_text(original + "\n\n" + code, encoding="utf-8")
        problems = layering_problems(pkg)
        path.write_text(original, encoding="utf-8")
        assert any(p.startswith(f"irscore/{module}:") and expected in p for p in problems), (case, problems)


def test_a_new_unit_is_a_family_unless_declared_a_front_end(tmp_path):
    pkg = _copy(tmp_path)
    (pkg / "newunit.py").write_text("from irscore.xml import model\n", encoding="utf-8")
    problems = layering_problems(pkg)
    assert "irscore/newunit.py:1: family newunit imports irscore.xml (family xml; import)" in problems
    assert any(p.startswith("__init__.py: the docstring lists the families") for p in problems)
    # a front end left out of the root docstring's list becomes a family, which may not import classic
    init = pkg / "__init__.py"
    (pkg / "newunit.py").unlink()
    init.write_text(init.read_text(encoding="utf-8").replace("`irscore.stats`", "the statistics"), encoding="utf-8")
    problems = layering_problems(pkg)
    assert any(p.startswith("irscore/stats/comparison.py:") and "family stats imports irscore.classic" in p
               for p in problems), problems


def test_a_planted_cycle_fails_the_cycle_check(tmp_path):
    pkg = _copy(tmp_path)
    assert import_cycles(pkg) == []
    path = pkg / "core" / "plugins.py"
    path.write_text(path.read_text(encoding="utf-8") + "\nfrom irscore.core import registry\n", encoding="utf-8")
    assert "modules: irscore.core.plugins <-> irscore.core.registry" in import_cycles(pkg)
    path = pkg / "cli" / "__init__.py"
    path.write_text(path.read_text(encoding="utf-8") + "\nimport irscore\n", encoding="utf-8")
    init = pkg / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8") + '\n_CLI = "irscore.cli"\n', encoding="utf-8")
    assert "units: __init__ <-> cli" in import_cycles(pkg)


def test_private_names_and_function_level_imports():
    layers = Layers(PKG)
    compiled = set(_compiled())
    problems = []
    for unit, dotted, path in layers.modules():
        for ref in module_references(path, dotted):
            if ref.how == "string" or ref.target is None or not ref.target.startswith("irscore"):
                continue
            where = f"{path.relative_to(SRC)}:{ref.line}"
            for n in ref.names:
                if n.startswith("_") and not n.endswith("__") and not (ref.target == "irscore" and n in compiled):
                    problems.append(f"{where}: imports the private name {ref.target}.{n}")
            if ref.how == "function" and unit != "cli":
                problems.append(f"{where}: function-level import of {ref.target}")
    assert problems == []


REGISTERED_CASES = {
    # one measure of each registered group -> the family the package root loads for it
    "Rnorm(N=10)": "irscore.rocchio",
    "CRP_loss": "irscore.crp",
    "ERR@10": "irscore.webtrack",
    "INST": "irscore.usermodel",
}


@pytest.mark.parametrize("measure, family", sorted(REGISTERED_CASES.items()))
def test_a_registered_measure_loads_only_its_family(measure, family):
    # classic imports no other family: the root's loader imports the one that computes the measure
    code = (
        "import sys\n"
        "from irscore.classic import evaluate\n"
        "q = {'q1': {'a': 1, 'b': 0, 'c': 2}}\n"
        "r = {'q1': {'a': 3.0, 'b': 2.0, 'c': 1.0, 'd': 0.5}}\n"
        f"v = evaluate(q, r, [{measure!r}])[{measure!r}]\n"
        "loaded = sorted(m for m in %r if m in sys.modules)\n"
        "print(repr(v), loaded)\n" % (sorted(set(REGISTERED_CASES.values()) | {"irscore.diversity"}),)
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    value, loaded = proc.stdout.split(" ", 1)
    assert float(value) == float(value) and loaded.strip() == repr([family])


def test_every_registered_measure_group_has_its_function():
    from irscore.core.plugins import compute_function
    from irscore.core.registry import EXTERNAL

    modules = {name: compute_function(fam.group).__module__ for name, fam in EXTERNAL.items()}
    assert {m.split(".")[1] for m in modules.values()} == {"rocchio", "crp", "webtrack", "usermodel", "diversity"}
    assert all(Layers(PKG).layer(m.split(".")[1]) == "family" for m in modules.values())


def test_no_module_over_700_lines():
    long = {str(p.relative_to(SRC)): n for _, _, p in Layers(PKG).modules()
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


def test_a_group_is_computed_by_one_family():
    import importlib

    from irscore.core import plugins

    rocchio = importlib.import_module("irscore.rocchio")
    with pytest.raises(ValueError, match="'Rocchio' are already computed by irscore.rocchio.compute_measure"):
        plugins.register("Rocchio", lambda *args: None)    # a function of another module
    assert plugins.compute_function("Rocchio") is rocchio.compute_measure

    def reloaded(*args):                                   # the same module imported again replaces its function
        return rocchio.compute_measure(*args)

    reloaded.__module__ = "irscore.rocchio"
    try:
        plugins.register("Rocchio", reloaded)
        assert plugins.compute_function("Rocchio") is reloaded
    finally:
        plugins.register("Rocchio", rocchio.compute_measure)
    assert plugins.compute_function("Rocchio") is rocchio.compute_measure
    with pytest.raises(LookupError, match="no family registered a function computing the measures 'no such group'"):
        plugins.compute_function("no such group")
