"""irscore: exact, fast information-retrieval evaluation measures.

The public surface is re-exported here.  Submodules are imported lazily, on
first use of a name, so ``import irscore`` stays cheap.
"""
from __future__ import annotations

import importlib
from typing import Any, Dict, List

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: Dict[str, str] = {
    # classic ranked retrieval (trec_eval parity)
    "Qrels": "irscore.data",
    "Run": "irscore.data",
    "read_qrels": "irscore.io",
    "read_run": "irscore.io",
    "parse_measure": "irscore.measures",
    "Measure": "irscore.measures",
    # array API for training loops
    "batch": "irscore.batch",
    # Rocchio's indices and Cumulated Relative Position
    "rocchio": "irscore.rocchio",
    "crp": "irscore.crp",
    "crp_curves": "irscore.crp",
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
}

__all__: List[str] = sorted(list(_EXPORTS) + ["evaluate"]) + ["__version__"]

# The function shadows its module's name, so bind it eagerly: a later
# ``import irscore.evaluate`` then finds the module loaded and leaves it.
from irscore.evaluate import evaluate  # noqa: E402


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
