"""Intent-aware (diversity) measures of the TREC Web track's ndeval:
alpha-nDCG@k, alpha-DCG@k, ERR-IA@k, nERR-IA@k, P-IA@k, StRecall@k, NRBP,
nNRBP and AP-IA (docs/web_diversity.md).

Architecture: `irscore.diversity.qrels` holds [`DiversityQrels`][irscore.diversity.DiversityQrels]
(judgments ``query intent document grade``; from TREC files, dicts, tuples and
DataFrames), a core ``Qrels`` (grades: each document's largest over the
intents) that joins a run itself (``join_run``, called by the core's join):
through the core's join on its rows (each judged document coded by its row
in the query's table, so rank order, ties and duplicates are exactly those of
every other measure) it builds the Joined and attaches the intent tables
(`IntentTables`, ``Joined.extra``).  `irscore.diversity.evaluation`
parses the names and computes them with the one-pass kernel
`irscore._diversity`; the names are registered in
`irscore.core.registry`, so [`irscore.evaluate`][irscore.evaluate] computes them too
(from the same join as every other measure) when given a DiversityQrels;
[`evaluate`][irscore.diversity.evaluate] here also reads ndeval's spellings.
"""
from irscore.diversity.evaluation import MEASURES, compute_measure, evaluate
from irscore.diversity.qrels import DiversityQrels, IntentTables, as_diversity_qrels, read_diversity_qrels

__all__ = ["DiversityQrels", "IntentTables", "read_diversity_qrels", "as_diversity_qrels", "evaluate",
           "compute_measure", "MEASURES"]
