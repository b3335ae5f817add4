"""irscore: exact, fast information-retrieval evaluation measures.

The public surface is re-exported here.  Submodules are imported lazily, on
first use of a name, so ``import irscore`` stays cheap.

Architecture
------------
This is the one statement of irscore's architecture (`irscore.core`'s docstring
and ``CONTRIBUTING.md`` point here; ``tests/project/test_structure.py`` reads
the two lists of units below and checks every import of the package against
them).  Each module or package directly under ``irscore`` is a *unit*, in one
of three layers:

- **core**: `irscore.core` (data model, TREC readers, measure names and the
  declarations of the registered measures, ranked lists (`Joined`), checks,
  the thread pool) and the compiled kernels ``irscore._<name>``
  (``csrc/irscore/<name>.pyx``, a ``.pyi`` stub beside each; shared native
  declarations in ``csrc/irscore/*.pxd``).  The core imports only the core and
  the kernels, and names no other unit, not even in a string; a kernel imports
  nothing of the package.
- **families**: each computes one kind of measures and imports only the core,
  the kernels and its own unit, never another family:
  `irscore.classic` (trec_eval's measures, [`evaluate`][irscore.evaluate]),
  [`irscore.batch`][irscore.batch] (arrays of a training loop),
  [`irscore.rocchio`][irscore.rocchio], [`irscore.crp`][irscore.crp],
  [`irscore.webtrack`][irscore.webtrack] (ERR, nERR), [`irscore.usermodel`][irscore.usermodel]
  (C/W/L, Compat), [`irscore.diversity`][irscore.diversity] (ndeval's intent-aware
  measures), [`irscore.prefs`][irscore.prefs] (trec_eval's preference judgments),
  [`irscore.organization`][irscore.organization] (Reliability & Sensitivity),
  [`irscore.xml`][irscore.xml] (XML retrieval).  A unit that the next list does
  not name is a family.
- **front ends**: they present or combine the families and may import any
  unit: the package root (this module) and `irscore.__main__`,
  `irscore.cli` (the ``irscore`` command), [`irscore.plot`][irscore.plot],
  `irscore.stats` (comparing systems over evaluated scores),
  `irscore.compat` (the pytrec_eval and ir_measures drop-ins),
  `irscore.integrations` (LightGBM, XGBoost and torchmetrics metrics),
  `irscore.distributed` with its shortcuts `irscore.spark` and `irscore.dask`
  (evaluation on Spark or Dask workers).

No unit reaches another through the package root: ``import irscore`` and
``from irscore import evaluate`` are for users; inside the package, import the
module that defines a name (``from irscore.classic import evaluate``), a
kernel as a module (``from irscore import _ranking``).

The measures that `evaluate` and ``irscore.batch.evaluate`` compute outside
the trec_eval kernel (Rocchio's indices, CRP, ERR, C/W/L, ndeval's measures)
are declared, names and parameters, in `irscore.core.registry`, so that names
parse without importing a family.  Each is computed by the function its family
registers in `irscore.core.plugins` when it is imported; the package root,
which may name families, imports that family the first time its measures are
evaluated (``_REGISTERED_GROUPS`` below).

The measure definitions are in the documentation (``docs/``, one page per
family); ``CONTRIBUTING.md`` tells how to add a measure.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Dict, List

from irscore.core import plugins as _plugins

if TYPE_CHECKING:  # the static view of the lazy exports below (no import at run time; tests/project/test_typing.py keeps it equal to _EXPORTS)
    from irscore import batch as batch
    from irscore import compat as compat
    from irscore import crp as crp
    from irscore import dask as dask
    from irscore import diversity as diversity
    from irscore import integrations as integrations
    from irscore import plot as plot
    from irscore import prefs as prefs
    from irscore import rocchio as rocchio
    from irscore import spark as spark
    from irscore import usermodel as usermodel
    from irscore import webtrack as webtrack
    from irscore import xml as xml
    from irscore.classic import evaluate as evaluate
    from irscore.core.data import Qrels as Qrels
    from irscore.core.data import Run as Run
    from irscore.core.io import as_qrels as as_qrels
    from irscore.core.io import as_run as as_run
    from irscore.core.io import read_qrels as read_qrels
    from irscore.core.io import read_run as read_run
    from irscore.core.measures import Measure as Measure
    from irscore.core.measures import parse_measure as parse_measure
    from irscore.crp import crp_curves as crp_curves
    from irscore.organization import Organization as Organization
    from irscore.organization import bcubed as bcubed
    from irscore.organization import extended_bcubed as extended_bcubed
    from irscore.organization import filtering_rs as filtering_rs
    from irscore.organization import read_organization as read_organization
    from irscore.organization import reliability_sensitivity as reliability_sensitivity
    from irscore.stats import meta as meta
    from irscore.stats.comparison import compare as compare

# The one place the version is written (pyproject.toml reads it from here).
__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: Dict[str, str] = {
    # classic ranked retrieval (trec_eval parity)
    "Qrels": "irscore.core.data",
    "Run": "irscore.core.data",
    "read_qrels": "irscore.core.io",
    "read_run": "irscore.core.io",
    # any accepted input (dict, DataFrame, pyarrow Table, ranx object, path) as a Qrels / Run
    "as_qrels": "irscore.core.io",
    "as_run": "irscore.core.io",
    "evaluate": "irscore.classic",
    "parse_measure": "irscore.core.measures",
    "Measure": "irscore.core.measures",
    # trec_eval's preference judgments (-R prefs / qrels_prefs) and prefs_* measures
    "prefs": "irscore.prefs",
    # array API for training loops
    "batch": "irscore.batch",
    # Rocchio's indices and Cumulated Relative Position
    "rocchio": "irscore.rocchio",
    "crp": "irscore.crp",
    "crp_curves": "irscore.crp",
    # TREC Web track, diversity and user-model measures
    "webtrack": "irscore.webtrack",
    "usermodel": "irscore.usermodel",
    "diversity": "irscore.diversity",
    # Reliability & Sensitivity (document organization)
    "Organization": "irscore.organization",
    "reliability_sensitivity": "irscore.organization",
    "read_organization": "irscore.organization",
    "filtering_rs": "irscore.organization",
    "bcubed": "irscore.organization",
    "extended_bcubed": "irscore.organization",
    # XML / focused retrieval
    "xml": "irscore.xml",
    # comparing systems: significance tests, reports, meta-evaluation
    "compare": "irscore.stats.comparison",
    "meta": "irscore.stats.meta",
    # plots (matplotlib optional)
    "plot": "irscore.plot",
    # drop-ins for pytrec_eval / ir_measures, GBDT eval metrics
    "compat": "irscore.compat", "integrations": "irscore.integrations",
    # distributed engines (pyspark / dask optional, imported when called)
    "spark": "irscore.spark",
    "dask": "irscore.dask",
}

__all__: List[str] = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'irscore' has no attribute {name!r}")
    module = importlib.import_module(module_name)
    value = module if module_name.endswith("." + name) else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return __all__


# The families computing the registered measures (irscore.core.registry declares them
# in groups, each group computed by the function its family registers in
# irscore.core.plugins): the core names none of them, so the package root imports
# a group's family the first time the group is evaluated.
_REGISTERED_GROUPS: Dict[str, str] = {
    "Rocchio": "irscore.rocchio",
    "CRP": "irscore.crp",
    "ERR": "irscore.webtrack",
    "user models": "irscore.usermodel",
    "intent-aware": "irscore.diversity",
}


def _load_group(group: str) -> None:
    module = _REGISTERED_GROUPS.get(group)
    if module is not None:
        importlib.import_module(module)


_plugins.set_loader(_load_group)
