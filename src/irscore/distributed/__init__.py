"""irscore on existing distributed engines: :mod:`irscore.spark` (Spark
DataFrames) and :mod:`irscore.dask` (Dask DataFrames).

Importing this package imports neither pyspark nor dask; each engine module
imports its engine when first called.  See ``docs/distributed.md``.
"""
