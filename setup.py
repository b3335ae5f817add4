"""Build the irscore native kernels.

Every ``csrc/irscore/<name>.pyx`` becomes the extension ``irscore.<name>``
(by convention kernel modules start with an underscore, e.g. ``_ranking``).
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
    compile_args = ["-O3", "-fno-strict-aliasing", "-g0"]
    if sys.platform.startswith("linux"):
        link_args = ["-Wl,--strip-debug"]
    elif sys.platform == "darwin":
        link_args = ["-Wl,-S"]

# IRSCORE_ONLY=_ranking,_trec_parse builds just those modules (development aid).
ONLY = {n for n in os.environ.get("IRSCORE_ONLY", "").split(",") if n}

extensions = []
for pyx in sorted(glob.glob(os.path.join("csrc", "irscore", "*.pyx"))):
    name = os.path.splitext(os.path.basename(pyx))[0]
    if ONLY and name not in ONLY:
        continue
    extensions.append(
        Extension(
            f"irscore.{name}",
            [pyx],
            include_dirs=[os.path.join("csrc", "include"), os.path.join("csrc", "irscore"), np.get_include()],
            extra_compile_args=compile_args,
            extra_link_args=link_args,
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"),
                           ("IRSCORE_BOUNDSCHECK", "1" if DEBUG else "0")],
        )
    )

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        include_path=[os.path.join("csrc", "irscore")],
        build_dir="build/cython-debug" if DEBUG else "build/cython",
    ),
)
