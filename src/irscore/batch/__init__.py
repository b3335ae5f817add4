"""Array API for training loops: many measures over a batch of queries in one call.

``evaluate(scores, labels, measures)`` takes the candidates of a batch of queries
as arrays and returns ``{name: float64 array with one value per query}``::

    >>> import numpy as np
    >>> from irscore import batch
    >>> scores = np.array([[0.9, 0.8, 0.1], [0.2, 0.7, 0.5]])
    >>> labels = np.array([[0, 2, 1], [1, 0, 0]])
    >>> r = batch.evaluate(scores, labels, ["nDCG@2", "AP", "P@1", "RR"])
    >>> r["RR"]
    array([0.5       , 0.33333333])

Input layouts
-------------
- dense 2-D ``(n_queries, n_candidates)``; rows may be padded: ``lengths[q]``
  candidates are valid in row q, or, without ``lengths``, padded cells have a
  NaN score (with ``lengths``, a NaN or infinite score inside a row's length is
  a ``ValueError``: a diverged model, not padding);
- ragged 1-D with CSR ``offsets`` (query q = ``offsets[q]:offsets[q+1]``); NaN
  scores are padding there too.

Scores may be any real dtype (float32/float64 are used as they are, without a
copy); labels any integer, bool or float dtype.  Anything numpy can view (CPU
torch tensors included, also those that require grad) is accepted; a tensor on
a GPU raises ``ValueError`` asking to move it to the CPU.

Relevance: a candidate is relevant when ``label >= level``; the level is
``relevance_level`` (or ``rel=`` in a measure name, ``P(rel=2)@5``), by default
1 for integer labels and "label > 0" for float labels.  nDCG/DCG use the label
as gain (``gain=exp``: 2**label - 1, labels below 1024, a larger one is a
``ValueError``; labels <= 0 gain nothing) and the discount log2(rank + 1), as
trec_eval.

The judged set (``n_relevant``)
-------------------------------
Without ``n_relevant`` the candidates are the whole judged set (sklearn's
convention): recall, AP and the ideal DCG only see the candidates.  trec_eval
divides by every relevant document of the query, retrieved or not; pass
``n_relevant`` to do the same:

- a 1-D integer array: the number of relevant documents of each query (at the
  evaluation's level), at least the number of relevant candidates; the
  relevant documents that are not candidates count in AP, R@k, R-prec, and in
  nDCG's ideal ranking with the grade ``relevance_level`` (1 by default);
- a 2-D integer array ``(n_queries, n_grades)``: judged documents per grade
  0..n_grades-1 (trec_eval's own information; needs integer labels below
  n_grades); every measure and level is then exactly trec_eval's.

Any count is accepted (up to 2**62): the ideal DCG adds the first 2**20
positions one by one, as trec_eval, and the positions beyond in closed form
(Euler-Maclaurin for the sum of 1/log2(i + 1), relative error ~1e-15), so a
huge ``n_relevant`` costs no more time than a small one.

Ties (``ties=``): ``"trec"`` (score descending, then column index descending,
the column index playing trec_eval's document id), ``"input"`` (column index
ascending) or ``"average"`` (the expected value over all orders of tied
candidates, McSherry & Najork 2008, exact and without enumeration; for AP,
nDCG/DCG, P@k, R@k, R-prec, RR and Success@k).

Measures: the names of :mod:`irscore.core.measures` (``nDCG@10``, ``ndcg_cut_10``,
``AP``, ``AP@100``, ``P@10``, ``R@100``, ``RR``, ``Rprec``, ``Success@5``,
``DCG@10``, ``nDCG(gain=exp)@10``, ``NumRel`` ...).  nDCG/DCG, AP, P, R, RR,
R-prec, Success and the counts run in the batch kernel; every other trec_eval
measure (``bpref``, ``infAP``, ``iprec_at_recall_0.50`` ...) and the
registered families (Rocchio ``Rnorm``, CRP ...) are computed by the same code
as :func:`irscore.evaluate` from the ranked labels (integer labels; ties
``trec`` or ``input``).

Architecture
------------
A family: it imports the core (names, plans, ranked lists, the family table)
and the compiled kernels (``irscore._batch``, and ``irscore._ranking`` for the
trec_eval measures without a batch kernel), never another family.

- ``arrays``     reading scores, labels and integer vectors (numpy, CPU tensors)
- ``engine``     :func:`evaluate`: plans, the native kernel, the other measures
                 through the core's ranked lists and family table
- ``shortcuts``  one function per measure (:func:`ndcg`, :func:`average_precision` ...)
"""
from irscore.batch.engine import TIES, evaluate
from irscore.batch.shortcuts import (average_precision, dcg, ndcg, precision, r_precision, recall,
                                     reciprocal_rank, success)

__all__ = ["evaluate", "ndcg", "dcg", "average_precision", "precision", "recall",
           "reciprocal_rank", "r_precision", "success", "TIES"]
