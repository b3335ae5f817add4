"""irscore measures as XGBoost evaluation metrics.

``xgboost.train(params, dtrain, evals=[(dvalid, "valid")], custom_metric=metric(["nDCG@10", "AP"]))``
evaluates the validation queries (the DMatrix's ``group_ptr``, from ``qid`` or
``group``) with irscore at every iteration; ``XGBRanker(eval_metric=sklearn_metric("nDCG@10"))``
is the scikit-learn form (XGBoost calls it once per query, with one measure, and
weights the queries by their size; see [`sklearn_metric`][irscore.integrations.xgboost.sklearn_metric]).

XGBoost's built-in ``ndcg@k`` (``ndcg_exp_gain`` true by default) is reproduced
by ``metric("nDCG(gain=exp)@k", ties="input", empty=1)``; ``ndcg@k-`` (the
minus form) by ``empty=0``.  Values are the mean over queries, unweighted.
"""
from __future__ import annotations

from typing import Any, Callable, List, Tuple, Union

import numpy as np

from irscore.integrations.scoring import Measures, Scorer, measure_names

__all__ = ["metric", "sklearn_metric"]

Result = Union[Tuple[str, float], List[Tuple[str, float]]]


def metric(measures: Measures, *, empty: Any = 0.0, **batch_options: Any) -> Callable[[Any, Any], Result]:
    """A ``custom_metric(predt, dtrain)`` for ``xgboost.train`` giving
    ``(name, value)`` for one measure, ``[(name, value), ...]`` for several.

    ``empty``: the value of the 0/0 measures (nDCG, AP, R, R-prec, RR ...; not
    P@k) on a query without relevant documents, passed to the batch (0 as trec_eval,
    1 as XGBoost's ``ndcg``, nan: left out of the mean); ``batch_options``: the
    keyword options of [`irscore.batch.evaluate`][irscore.batch.evaluate]."""
    scorer = Scorer(measures, empty, **batch_options)

    def custom_metric(predt: Any, dtrain: Any) -> Result:
        labels = dtrain.get_label()
        ptr = np.asarray(dtrain.get_uint_info("group_ptr"), dtype=np.int64)
        if ptr.size < 2:
            raise ValueError("irscore metric: the DMatrix has no query groups (build it with qid= or group=)")
        if int(ptr[-1]) != len(labels):
            raise ValueError(f"irscore metric: group_ptr covers {int(ptr[-1])} rows, the DMatrix has {len(labels)}")
        out = scorer(np.asarray(predt), labels, ptr)
        return out[0] if len(out) == 1 else out

    custom_metric.__name__ = "irscore_" + "_".join(scorer.names)
    return custom_metric


def sklearn_metric(measure: Any, *, empty: Any = 0.0, **batch_options: Any) -> Callable[[Any, Any], float]:
    """A per-query ``eval_metric(y_true, y_score) -> float`` for ``XGBRanker``,
    named by its ``__name__`` (the measure); XGBRanker takes one custom metric.

    XGBoost 3.2 itself decides how the per-query values are combined: it scores
    a one-document query 1 without calling the metric, averages weighted by the
    query sizes (``get_group()`` read as weights) and prints the value with 6
    decimals.  For the unweighted mean use [`metric`][irscore.integrations.xgboost.metric] with ``xgboost.train``."""
    names = measure_names(measure)
    if len(names) != 1:
        raise ValueError("XGBRanker takes one custom metric; pass one measure")
    scorer = Scorer(names, empty, **batch_options)

    def eval_metric(y_true: Any, y_score: Any) -> float:
        y_true = np.asarray(y_true)
        return float(scorer(np.asarray(y_score), y_true, np.array([0, len(y_true)], dtype=np.int64))[0][1])

    eval_metric.__name__ = names[0]
    return eval_metric
