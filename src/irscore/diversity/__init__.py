"""Intent-aware (diversity) measures of the TREC Web track's ndeval:
alpha-nDCG@k, alpha-DCG@k, ERR-IA@k, nERR-IA@k, P-IA@k, StRecall@k, NRBP,
nNRBP and AP-IA (docs/web_diversity.md).

Architecture: :mod:`irscore.diversity.qrels` holds :class:`DiversityQrels`
(judgments ``query intent document grade``; from TREC files, dicts, tuples and
DataFrames) and pairs them with a run through the core's join (each judged
document's code is its row in the query's table, so the core gives the rank
order, ties and duplicates exactly as for every other measure);
:mod:`irscore.diversity.evaluation` parses the names and calls the one-pass
kernel :mod:`irscore._diversity` once per (rel, alpha, beta) group.  These
measures need intent-level judgments, so they are evaluated by
:func:`evaluate` here, not by :func:`irscore.evaluate`.
"""
from irscore.diversity.evaluation import MEASURES, evaluate
from irscore.diversity.qrels import DiversityQrels, as_diversity_qrels, read_diversity_qrels

__all__ = ["DiversityQrels", "read_diversity_qrels", "as_diversity_qrels", "evaluate", "MEASURES"]
