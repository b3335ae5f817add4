"""irscore on existing distributed engines: [`irscore.spark`][irscore.spark] (Spark
DataFrames) and [`irscore.dask`][irscore.dask] (Dask DataFrames).

Importing this package imports neither pyspark nor dask; each engine module
imports its engine when first called.  See ``docs/distributed.md``.

Architecture
------------
A front end over `irscore.classic` and the registered families:
`partition` is what runs on a worker (a batch of
whole queries -> one `irscore.classic.run_plan` call -> per-query
columns) and on the driver (the gathered columns in trec_eval's query order ->
`irscore.core.aggregate.summarize`, the function ``evaluate`` uses);
[`spark`][irscore.distributed.spark] and [`dask`][irscore.distributed.dask] only
partition the engine's tables by query and ship the batches.
"""
