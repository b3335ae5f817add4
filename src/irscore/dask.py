"""``irscore.dask``: evaluate runs held in Dask DataFrames (the spelling of
``docs/distributed.md``; the code is [`irscore.distributed.dask`][irscore.distributed.dask]).

Importing this module does not import dask; [`evaluate`][irscore.dask.evaluate]
imports it when called and, without it, raises ``ModuleNotFoundError``
naming the ``[dask]`` extra.
"""
from __future__ import annotations

from irscore.distributed.dask import evaluate

__all__ = ["evaluate"]
