"""mypy's stubtest over every compiled module of the installed irscore package.

Every extension module of the imported irscore package (irscore._<name>.so; in a
source tree, exactly those setup.py builds: one per csrc/irscore/*.pyx and _cyutility)
must have a .pyi stub, and the stub must match what the module holds at run time; the
entries of .ci/stubtest-allowlist.txt are the Cython artefacts stubs do not declare.
Run from the repository root: python .ci/stubtest.py (CI's lint step, pre-commit).
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import pathlib
import pkgutil
import subprocess
import sys

import irscore

ALLOWLIST = pathlib.Path(__file__).with_name("stubtest-allowlist.txt")


def compiled_modules() -> dict[str, pathlib.Path]:
    """name -> file of every extension module directly in the irscore package."""
    found = {}
    for info in pkgutil.iter_modules(irscore.__path__):
        spec = importlib.util.find_spec("irscore." + info.name)
        origin = spec.origin if spec is not None else None
        if origin and origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            found[info.name] = pathlib.Path(origin)
    return dict(sorted(found.items()))


def main() -> int:
    modules = compiled_modules()
    if not modules:
        print("stubtest: no compiled module found in", irscore.__path__, file=sys.stderr)
        return 2
    names = list(modules)
    csrc = pathlib.Path(__file__).resolve().parents[1] / "csrc" / "irscore"
    if csrc.is_dir():
        # setup.py builds every csrc/irscore/<name>.pyx and the shared _cyutility: a
        # compiled module without its .pyx is a stale in-place build (skipped), and
        # a .pyx without its compiled module is an error
        built = {p.stem for p in csrc.glob("*.pyx")} | {"_cyutility"}
        stale = [n for n in names if n not in built]
        if stale:
            print("stubtest: skipped, no csrc/irscore/<name>.pyx (stale build):", ", ".join(stale))
        unbuilt = sorted(built - set(names))
        if unbuilt:
            print("stubtest: not built (run python setup.py build_ext --inplace):", ", ".join(unbuilt),
                  file=sys.stderr)
            return 1
        names = [n for n in names if n in built]
    stubs = [pathlib.Path(p) for p in irscore.__path__]
    missing = [n for n in names if not any((d / (n + ".pyi")).is_file() for d in stubs)]
    if missing:
        print("stubtest: compiled modules without a .pyi stub:", ", ".join(missing), file=sys.stderr)
        return 1
    print(f"stubtest: {len(names)} compiled modules: {' '.join(names)}")
    cmd = [sys.executable, "-m", "mypy.stubtest", "--concise", "--allowlist", str(ALLOWLIST),
           *("irscore." + n for n in names)]
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
