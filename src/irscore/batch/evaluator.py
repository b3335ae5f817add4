"""A reusable batch evaluator for hot loops: the measure names are parsed and planned
once, so a call costs the native kernel plus a few microseconds of Python."""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Union

import numpy as np

from irscore.batch.engine import check_empty, check_options, plan_for, run
from irscore.batch.layout import NAN_SCORES, Layout, dense_rows, read_layout, warn_negative

_SCORE_OK = (np.dtype(np.float32), np.dtype(np.float64))
_LABEL_OK = tuple(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8,
                                        np.float32, np.float64))


class Evaluator:
    """Evaluate batches of queries with a fixed set of measures and options.

    ``Evaluator(measures, ...)(scores, labels)`` returns what
    ``irscore.batch.evaluate(scores, labels, measures, ...)`` returns; the
    names are parsed and the kernel's plan is built once (one plan per label
    kind, integer or float), so a call in a training loop costs the kernel plus
    microseconds.

    Parameters
    ----------
    measures : str or sequence of str
        One name or a list, as for :func:`irscore.batch.evaluate`.
    ties : {'trec', 'input', 'average'}, default 'trec'
        Order of equal scores, or the expected value over their orders.
    relevance_level : float, optional
        Label threshold of relevance (default 1 for integer labels, label > 0
        for float labels).
    empty : float, default 0.0
        The value of the 0/0 measures on a query without relevant documents
        (0 trec_eval, 1 LightGBM/XGBoost, nan).
    nan_scores : {'error', 'padding', 'last'}, optional
        Non-finite scores on candidates (default as :func:`irscore.batch.evaluate`).
    n_jobs : int, optional
        Threads, as for :func:`irscore.batch.evaluate`.

    Examples
    --------
    >>> import numpy as np
    >>> from irscore import batch
    >>> ev = batch.Evaluator(["nDCG@10", "AP"])
    >>> ev(np.array([[0.9, 0.1]]), np.array([[0, 1]]))["AP"]
    array([0.5])
    """

    __slots__ = ("measures", "ties", "relevance_level", "empty", "nan_scores", "n_jobs", "_plans")

    def __init__(self, measures: Union[str, Sequence[str]], *, ties: str = "trec",
                 relevance_level: Optional[float] = None, empty: float = 0.0,
                 nan_scores: Optional[str] = None, n_jobs: Optional[int] = None) -> None:
        check_options(ties, n_jobs, relevance_level)
        if nan_scores is not None and nan_scores not in NAN_SCORES:
            raise ValueError(f"nan_scores: expected one of {', '.join(map(repr, NAN_SCORES))}, "
                             f"got {nan_scores!r}")
        self.measures = measures if isinstance(measures, str) else tuple(measures)
        self.ties = ties
        self.relevance_level = relevance_level
        self.empty = check_empty(empty)
        self.nan_scores = nan_scores
        self.n_jobs = n_jobs
        # both plans now: an unknown name fails here, and a call never parses
        self._plans = {False: plan_for(self.measures, False, relevance_level),
                       True: plan_for(self.measures, True, relevance_level)}

    def __repr__(self) -> str:
        return (f"Evaluator({self.measures!r}, ties={self.ties!r}, relevance_level={self.relevance_level!r}, "
                f"empty={self.empty!r}, nan_scores={self.nan_scores!r}, n_jobs={self.n_jobs!r})")

    def __call__(self, scores: Any, labels: Any, *, lengths: Any = None, offsets: Any = None,
                 group: Any = None, mask: Any = None, n_relevant: Any = None,
                 check_inputs: bool = True) -> Dict[str, np.ndarray]:
        """Evaluate one batch; the arguments are those of :func:`irscore.batch.evaluate`.

        Parameters
        ----------
        scores, labels : array_like
            The batch, in any layout of :func:`irscore.batch.evaluate`.
        lengths, offsets, group, mask : array_like, optional
            How the queries are laid out (at most one).
        n_relevant : array_like of int, optional
            The judged set (1-D or per-grade 2-D counts).
        check_inputs : bool, default True
            False skips the checks that only protect the meaning of the result.

        Returns
        -------
        dict of str to ndarray
            ``{name as asked: float64 array (n_queries,)}``.
        """
        lay = None
        # the common case, plain contiguous 2-D numpy arrays, without the general reader
        if (lengths is None and offsets is None and group is None and mask is None
                and type(scores) is np.ndarray and type(labels) is np.ndarray and scores.ndim == 2
                and scores.shape == labels.shape and scores.shape[0] > 0
                and scores.dtype in _SCORE_OK and labels.dtype in _LABEL_OK
                and scores.flags.c_contiguous and labels.flags.c_contiguous
                and self.nan_scores in (None, "padding")):
            starts, full = dense_rows(scores.shape[0], scores.shape[1])
            lay = Layout(scores.reshape(-1), labels.reshape(-1), starts, full)
            if check_inputs and labels.dtype.kind != "u":
                warn_negative(lay, 3)
        if lay is None:
            lay = read_layout(scores, labels, lengths=lengths, offsets=offsets, group=group, mask=mask,
                              nan_scores=self.nan_scores, check_inputs=check_inputs)
        return run(self._plans[lay.float_labels], lay, n_relevant, self.ties, self.relevance_level,
                   self.empty, check_inputs, self.n_jobs)
