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
- dense 2-D ``(n_queries, n_candidates)``: every cell is a candidate, except
  padding, given one of three ways: ``lengths[q]`` (the first ``lengths[q]``
  cells of row q are its candidates), ``mask`` (a boolean array of the same
  shape, True = candidate, any pattern; the candidates keep their column order,
  so the tie rules hold), or, with neither, NaN scores;
- ragged 1-D with CSR ``offsets`` (query q = ``offsets[q]:offsets[q+1]``) or
  with ``group`` sizes, LightGBM style (``offsets = [0, *cumsum(group)]``; one
  of the two, an ``offsets`` that looks like sizes says so);
- per-query lists: a list (or tuple) of 1-D arrays or tensors, one per query,
  for scores and for labels, or torch nested tensors (read with ``.unbind()``);
  they are concatenated into the ragged layout.

Non-finite scores (``nan_scores=``): ``"error"`` raises ``ValueError`` on a NaN
or infinite score on a candidate (a diverged model), ``"padding"`` reads a NaN
cell as padding, ``"last"`` ranks NaN candidates after every other one (as
-inf).  The default is ``"padding"`` for plain 2-D scores (NaN cells have
always been their padding) and ``"error"`` whenever ``lengths``, ``mask``,
``offsets``, ``group`` or per-query lists already say which cells are
candidates.  Plain 2-D labels holding a negative value on a scored cell (a -1
padding?) with neither ``lengths`` nor ``mask`` give a ``UserWarning``.

Queries without relevant documents (``empty=``)
-----------------------------------------------
The measures that divide by the number of relevant documents or by the ideal
DCG are 0/0 on a query without relevant documents: nDCG (all forms, also
``ndcg_rel``, ``Rndcg``), AP/``map_cut``, R@k, R-prec, RR, bpref, infAP,
``iprec_at_recall``, ``11pt_avg``, ``Rprec_mult``, ``set_recall``,
``set_map``, ``relative_P``.  Their value there is ``empty``: 0 by default
(trec_eval), 1 as LightGBM's and XGBoost's ``ndcg``, or nan (left out of a
``nanmean``).  "Without relevant documents" means: no candidate at the
measure's relevance level (for nDCG: no positive gain) and, with
``n_relevant``, no relevant document counted there either (a query whose
relevant documents were all missed keeps its real 0).  P@k, DCG, Success and
the counts are never 0/0 and ignore ``empty``.

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

Measures: the names of `irscore.core.measures` (``nDCG@10``, ``ndcg_cut_10``,
``AP``, ``AP@100``, ``P@10``, ``R@100``, ``RR``, ``Rprec``, ``Success@5``,
``DCG@10``, ``nDCG(gain=exp)@10``, ``NumRel`` ...).  nDCG/DCG, AP, P, R, RR,
R-prec, Success and the counts run in the batch kernel; every other trec_eval
measure (``bpref``, ``infAP``, ``iprec_at_recall_0.50`` ...) and the
registered families (Rocchio ``Rnorm``, CRP ...) are computed by the same code
as [`irscore.evaluate`][irscore.evaluate] from the ranked labels (integer labels; ties
``trec`` or ``input``).

Architecture
------------
A family: it imports the core (names, plans, ranked lists, the family table)
and the compiled kernels (``irscore._batch``, and ``irscore._ranking`` for the
trec_eval measures without a batch kernel), never another family.

- ``arrays``     reading scores, labels and integer vectors (numpy, CPU tensors)
- ``layout``     the layouts (dense, lengths, mask, offsets, group, per-query
                 lists) read into flat arrays; ``nan_scores``
- ``engine``     [`evaluate`][irscore.batch.evaluate]: plans, the native kernel, ``empty=``, the other
                 measures through the core's ranked lists and family table
- ``evaluator``  [`Evaluator`][irscore.batch.Evaluator]: names parsed and planned once, for hot loops
- ``accumulator`` [`Accumulator`][irscore.batch.Accumulator]: a validation pass batch by batch
                 (exact fixed-size sums, ``merge``, checkpoints, device tensors)
- ``device``     the batch kernel's measures as torch operations on the tensors' device
- ``shortcuts``  one function per measure ([`ndcg`][irscore.batch.ndcg], [`average_precision`][irscore.batch.average_precision] ...)
"""
from irscore.batch.accumulator import Accumulator
from irscore.batch.engine import TIES, evaluate
from irscore.batch.evaluator import Evaluator
from irscore.batch.shortcuts import (
    average_precision,
    dcg,
    ndcg,
    precision,
    r_precision,
    recall,
    reciprocal_rank,
    success,
)

__all__ = ["evaluate", "Evaluator", "Accumulator", "ndcg", "dcg", "average_precision", "precision", "recall",
           "reciprocal_rank", "r_precision", "success", "TIES"]
