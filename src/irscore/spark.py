"""``irscore.spark``: evaluate runs held in Spark DataFrames (the spelling of
``docs/distributed.md``; the code is [`irscore.distributed.spark`][irscore.distributed.spark]).

Importing this module does not import pyspark; [`evaluate`][irscore.spark.evaluate]
imports it when called and, without it, raises ``ModuleNotFoundError``
naming the ``[spark]`` extra.
"""
from __future__ import annotations

from irscore.distributed.spark import evaluate

__all__ = ["evaluate"]
