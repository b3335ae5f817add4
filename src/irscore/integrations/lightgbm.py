"""irscore measures as LightGBM evaluation metrics.

``lightgbm.train(params, train_set, valid_sets=[valid], feval=metric(["nDCG@10", "AP"]))``
evaluates the validation queries (the Dataset's ``group``) with irscore at every
iteration; ``LGBMRanker().fit(..., eval_metric=sklearn_metric(["nDCG@10"]))`` is
the scikit-learn form (LightGBM passes ``y_true, y_pred, weight, group``).

LightGBM's built-in ``ndcg@k`` is reproduced exactly by
``metric("nDCG(gain=exp)@k", ties="input", empty=1)`` (LightGBM's default
``label_gain`` is 2**label - 1, ties keep the data order, a query without a
relevant document scores 1); values are the mean over queries, unweighted.
"""
from __future__ import annotations

from typing import Any, Callable, List, Tuple

import numpy as np

from irscore.integrations.scoring import Measures, Scorer, offsets_from_sizes

__all__ = ["metric", "sklearn_metric"]

Result = List[Tuple[str, float, bool]]


def metric(measures: Measures, *, empty: Any = 0.0, **batch_options: Any) -> Callable[[Any, Any], Result]:
    """A ``feval(preds, eval_data)`` for ``lightgbm.train`` giving
    ``[(name, value, True), ...]`` (higher is better), one per measure.

    ``empty``: the value of the 0/0 measures (nDCG, AP, R, R-prec, RR ...; not
    P@k) on a query without relevant documents, passed to the batch (0 as trec_eval,
    1 as LightGBM, nan: left out of the mean); ``batch_options``: the keyword
    options of [`irscore.batch.evaluate`][irscore.batch.evaluate] (``ties=``, ``relevance_level=``,
    ``n_jobs=`` ...)."""
    scorer = Scorer(measures, empty, **batch_options)

    def feval(preds: Any, eval_data: Any) -> Result:
        labels = eval_data.get_label()
        group = eval_data.get_group()
        if group is None:
            raise ValueError("irscore metric: the LightGBM Dataset has no query groups "
                             "(build it with group=[documents per query])")
        offsets = offsets_from_sizes(group, len(labels), "LightGBM Dataset")
        return [(name, value, True) for name, value in scorer(np.asarray(preds), labels, offsets)]

    feval.__name__ = "irscore_" + "_".join(scorer.names)
    return feval


def sklearn_metric(measures: Measures, *, empty: Any = 0.0,
                   **batch_options: Any) -> Callable[[Any, Any, Any, Any], Result]:
    """An ``eval_metric(y_true, y_pred, weight, group)`` for ``LGBMRanker.fit``
    (LightGBM passes the group sizes as the fourth argument)."""
    scorer = Scorer(measures, empty, **batch_options)

    def eval_metric(y_true: Any, y_pred: Any, weight: Any, group: Any) -> Result:
        if group is None:
            raise ValueError("irscore metric: no query groups (fit LGBMRanker with eval_group=)")
        offsets = offsets_from_sizes(group, len(y_true), "LGBMRanker eval set")
        return [(name, value, True) for name, value in scorer(np.asarray(y_pred), np.asarray(y_true), offsets)]

    return eval_metric
