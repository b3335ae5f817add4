"""Build the irscore native kernels.

Every ``csrc/irscore/<name>.pyx`` becomes the extension ``irscore.<name>``
(by convention kernel modules start with an underscore, e.g. ``_ranking``).
Shared native declarations are ``.pxd`` files beside them: ``_common.pxd``
(gain/discount, the Fenwick tree; cimported, no module of its own) and
``<name>.pxd`` (the codes a kernel exports to Python as ``cpdef enum``).
Compiler directives live here and only here.  Set ``IRSCORE_DEBUG=1`` to build
with bounds checking and initialisation checks switched on (the tests are run
in that mode too).
"""
import glob
import os
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("IRSCORE_DEBUG", "0") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": False,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "nonecheck": False,
    "embedsignature": True,
}

# Release builds carry no debug information (-g0 overrides a -g from Python's own
# CFLAGS; the linker drops what static parts bring in); IRSCORE_DEBUG=1 keeps it.
link_args = []
if sys.platform == "win32":
    compile_args = ["/O2"]
elif DEBUG:
    compile_args = ["-O1", "-g"]
else:
    compile_args = ["-O2", "-fno-strict-aliasing", "-g0"]
    if sys.platform.startswith("linux"):
        link_args = ["-Wl,--strip-all"]
    elif sys.platform == "darwin":
        link_args = ["-Wl,-S"]

# IRSCORE_ONLY=_ranking,_trec_parse builds just those modules (development aid).
ONLY = {n for n in os.environ.get("IRSCORE_ONLY", "").split(",") if n}

# Kernels are translated (Cython) and compiled (C) in parallel, one job per core;
# IRSCORE_BUILD_JOBS=1 builds them one after the other.
JOBS = int(os.environ.get("IRSCORE_BUILD_JOBS") or 0)
if JOBS < 1:
    JOBS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)

# headers and shared .pxd files: a change rebuilds every kernel (cythonize also
# follows each .pyx's cimports; this covers the C headers it cannot see)
DEPENDS = sorted(glob.glob(os.path.join("csrc", "include", "*.h"))
                 + glob.glob(os.path.join("csrc", "irscore", "*.pxd")))

extensions = []
for pyx in sorted(glob.glob(os.path.join("csrc", "irscore", "*.pyx"))):
    name = os.path.splitext(os.path.basename(pyx))[0]
    if ONLY and name not in ONLY:
        continue
    extensions.append(
        Extension(
            f"irscore.{name}",
            [pyx],
            depends=DEPENDS,
            include_dirs=[os.path.join("csrc", "include"), os.path.join("csrc", "irscore"), np.get_include()],
            extra_compile_args=compile_args,
            extra_link_args=link_args,
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"),
                           ("IRSCORE_BOUNDSCHECK", "1" if DEBUG else "0")],
        )
    )

# One copy of Cython's utility code (the memoryview type and its helpers) for
# every kernel, in ``irscore._cyutility``, instead of one per module: it halves
# the size of the compiled modules.
BUILD_DIR = os.path.join("build", "cython-debug" if DEBUG else "cython")
if not ONLY or "_cyutility" in ONLY:
    extensions.append(Extension("irscore._cyutility", [os.path.join(BUILD_DIR, "irscore", "_cyutility.c")],
                                extra_compile_args=compile_args, extra_link_args=link_args))

setup(
    ext_modules=cythonize(
        extensions,
        shared_utility_qualified_name="irscore._cyutility",
        compiler_directives=directives,
        # csrc: ``cimport irscore._common`` and each kernel's own ``irscore/<name>.pxd``
        # (cpdef enums exported to Python) resolve there; cythonize tracks the .pxd
        # dependencies of every .pyx itself.
        include_path=["csrc", os.path.join("csrc", "irscore")],
        build_dir=BUILD_DIR,
        nthreads=JOBS if JOBS > 1 else 0,
    ),
    options={"build_ext": {"parallel": JOBS}},
)
