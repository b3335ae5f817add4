"""Drop-in replacements for the evaluation libraries people already use.

- [`irscore.compat.pytrec_eval`][irscore.compat.pytrec_eval]: ``RelevanceEvaluator(qrels, measures,
  relevance_level=, judged_docs_only_flag=)`` with ``.evaluate(run) ->
  {query_id: {measure: value}}``, pytrec_eval's measure-name expansion and output
  keys, ``supported_measures``, ``supported_nicknames``,
  ``compute_aggregated_measure``, ``parse_qrel``, ``parse_run``: replace
  ``import pytrec_eval`` with ``from irscore.compat import pytrec_eval``.
- [`irscore.compat.ir_measures`][irscore.compat.ir_measures]: ``iter_calc``, ``calc_aggregate``, ``calc``
  and ``evaluator`` with ir_measures' signatures and conventions (measure objects
  or strings; namedtuple iterators, DataFrames or dicts as input; results keyed
  by the measure object *and* its string), and ``register()``, which makes irscore
  an ir_measures provider.

Neither peer needs to be installed; when ir_measures is installed its own
``Metric`` type and measure objects are used.

Architecture
------------
A front end: each module translates a peer's calling convention (names,
input types, result shapes, conventions for empty input) onto
[`irscore.evaluate`][irscore.evaluate] and the core's name grammar, and computes nothing
itself. It imports the core and the families it translates onto (never
through the package root: see the root's docstring); the peers themselves are
imported inside functions only.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, List

if TYPE_CHECKING:
    from irscore.compat import ir_measures as ir_measures
    from irscore.compat import pytrec_eval as pytrec_eval

__all__ = ["ir_measures", "pytrec_eval"]


def __getattr__(name: str) -> Any:
    """The drop-ins as attributes (``irscore.compat.pytrec_eval`` after
    ``import irscore``), each imported on first use."""
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> List[str]:
    return sorted(__all__)
