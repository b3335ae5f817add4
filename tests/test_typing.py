"""The façade's type hints and the .pyi stubs of every compiled module are
checked by mypy; every compiled module has a stub."""
import subprocess
import sys
from pathlib import Path

import pytest

import irscore

PKG = Path(irscore.__file__).resolve().parent


def test_every_compiled_module_has_a_stub():
    compiled = {p.name.split(".")[0] for p in PKG.iterdir() if p.suffix in (".so", ".pyd")}
    assert compiled, "no compiled modules found"
    missing = sorted(m for m in compiled if not (PKG / f"{m}.pyi").exists())
    assert missing == []
    assert (PKG / "py.typed").exists()


def test_mypy_passes_on_the_package():
    pytest.importorskip("mypy")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--ignore-missing-imports",
                           str(PKG)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
