"""Type checking as a user of the installed package sees it: every compiled module
has a stub, ``mypy -p irscore`` passes on the package that the tests import
(installed wheel, editable install or source tree on the path), and a small typed
client of the public API (tests/typing_client.py) passes ``mypy --strict`` and runs."""
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import irscore

PKG = Path(irscore.__file__).resolve().parent
CLIENT = Path(__file__).resolve().parents[1] / "typing_client.py"


def test_every_compiled_module_has_a_stub():
    compiled = {p.name.split(".")[0] for p in PKG.iterdir() if p.suffix in (".so", ".pyd")}
    assert compiled, "no compiled modules found"
    missing = sorted(m for m in compiled if not (PKG / f"{m}.pyi").exists())
    assert missing == []
    assert (PKG / "py.typed").exists()


def _mypy(tmp_path, *args):
    # Run from an empty directory with no configuration file, so that mypy finds
    # irscore where Python finds it (site-packages, or the path of a source
    # checkout) and never a shadowing copy in the working directory.
    cmd = [sys.executable, "-m", "mypy", "--config-file", os.devnull, "--cache-dir", str(tmp_path / "cache"),
           "--no-error-summary", "-v", *args]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    parsed = [line.split("Parsing ", 1)[1].rsplit(" (", 1)[0] for line in proc.stderr.splitlines()
              if "Parsing " in line and line.endswith("(irscore)")]
    assert parsed and Path(parsed[0]).resolve() == PKG / "__init__.py", \
        f"mypy checked {parsed} instead of {PKG}"
    return proc


def test_mypy_passes_on_the_package(tmp_path):
    pytest.importorskip("mypy")
    proc = _mypy(tmp_path, "--ignore-missing-imports", "-p", "irscore")
    assert proc.returncode == 0, proc.stdout


def test_typed_client_passes_mypy_strict_and_runs(tmp_path):
    pytest.importorskip("mypy")
    client = tmp_path / "client.py"
    client.write_text(CLIENT.read_text(encoding="utf-8"), encoding="utf-8")
    # strict on the client only: irscore's own modules are followed silently
    proc = _mypy(tmp_path, "--strict", "--follow-imports=silent", str(client))
    assert proc.returncode == 0, proc.stdout
    run = subprocess.run([sys.executable, str(client)], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(irscore.__version__ + " ")


def test_lazy_exports_are_spelled_out_for_type_checkers():
    # irscore loads its public names lazily (module __getattr__), which type
    # checkers cannot see through; __init__.py imports each under TYPE_CHECKING.
    tree = ast.parse((PKG / "__init__.py").read_text(encoding="utf-8"))
    block = [n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", None) == "TYPE_CHECKING"]
    assert len(block) == 1
    seen = {}
    for node in ast.walk(block[0]):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                assert alias.asname == alias.name, "re-export as the same name"
                full = f"{node.module}.{alias.name}"   # a module re-exported: irscore.xml, irscore.distributed.spark
                seen[alias.name] = full if irscore._EXPORTS.get(alias.name) == full else node.module
    assert seen == irscore._EXPORTS


def test_typed_client_asserts_the_types_of_the_public_entry_points():
    # each entry point's inferred type is stated with assert_type (mypy --strict above
    # fails on any other): evaluate's overloads, readers and converters, compare, the
    # batch Accumulator, the statistics entry points, the XML and R&S families
    tree = ast.parse(CLIENT.read_text(encoding="utf-8"))
    asserted = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "assert_type":
            for inner in ast.walk(node.args[0]):
                if isinstance(inner, ast.Call):
                    f = inner.func
                    asserted.add(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", ""))
    want = {"evaluate", "read_qrels", "read_run", "as_qrels", "as_run", "parse_measure", "compare", "compute",
            "per_query", "t_test", "randomization_test", "mean_ci", "urisk", "anova", "reliability_sensitivity",
            "read_organization", "read_passage_qrels", "read_fol_run", "to_text"}
    assert want <= asserted, sorted(want - asserted)
