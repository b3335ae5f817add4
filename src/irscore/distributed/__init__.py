"""irscore on existing distributed engines: :mod:`irscore.spark` (Spark
DataFrames) and :mod:`irscore.dask` (Dask DataFrames).

Importing this package imports neither pyspark nor dask; each engine module
imports its engine when first called.  See ``docs/distributed.md``.

Architecture
------------
A front end over :mod:`irscore.classic` and the registered families:
:mod:`~irscore.distributed.partition` is what runs on a worker (a batch of
whole queries -> one :func:`irscore.classic.run_plan` call -> per-query
columns) and on the driver (the gathered columns in trec_eval's query order ->
:func:`irscore.core.aggregate.summarize`, the function ``evaluate`` uses);
:mod:`~irscore.distributed.spark` and :mod:`~irscore.distributed.dask` only
partition the engine's tables by query and ship the batches.
"""
