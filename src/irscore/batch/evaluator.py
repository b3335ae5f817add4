"""A reusable batch evaluator for hot loops: the measure names are parsed and planned
once, and a plain dense batch goes straight to a native kernel that keeps its plan and
scratch buffers across calls, so a call costs the kernel plus about a microsecond of
Python."""
from __future__ import annotations

import warnings
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from irscore import _batch
from irscore.batch.arrays import as_array
from irscore.batch.engine import (
    FLOAT_DEFAULT_THR,
    PARALLEL_MIN_CELLS,
    TIE_CODES,
    check_empty,
    check_options,
    plan_for,
    run,
)
from irscore.batch.layout import NAN_SCORES, NEGATIVE_LABELS, read_layout

# (kernel, relevance threshold, measure names) of a plan the dense kernel runs alone


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
        One name or a list, as for [`irscore.batch.evaluate`][irscore.batch.evaluate].
    ties : {'trec', 'input', 'average'}, default 'trec'
        Order of equal scores, or the expected value over their orders.
    relevance_level : float, optional
        Label threshold of relevance (default 1 for integer labels, label > 0
        for float labels).
    empty : float, default 0.0
        The value of the 0/0 measures on a query without relevant documents
        (0 trec_eval, 1 LightGBM/XGBoost, nan).
    nan_scores : {'error', 'padding', 'last'}, optional
        Non-finite scores on candidates (default as [`irscore.batch.evaluate`][irscore.batch.evaluate]).
    n_jobs : int, optional
        Threads, as for [`irscore.batch.evaluate`][irscore.batch.evaluate].

    Examples
    --------
    >>> import numpy as np
    >>> from irscore import batch
    >>> ev = batch.Evaluator(["nDCG@10", "AP"])
    >>> ev(np.array([[0.9, 0.1]]), np.array([[0, 1]]))["AP"]
    array([0.5])
    """

    __slots__ = ("measures", "ties", "relevance_level", "empty", "nan_scores", "n_jobs", "_plans", "_fast",
                 "_fast_cells")

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
        # the dense fast path: every measure in the batch kernel, no empty= rewrite,
        # NaN scores as padding, one thread (n_jobs=None: below the parallel threshold)
        self._fast: Optional[_batch.Dense] = None
        self._fast_cells = PARALLEL_MIN_CELLS if n_jobs is None else (1 << 62 if n_jobs == 1 else 0)
        plans = self._plans
        if (all(p.native and not p.other and not (self.empty != 0.0 and p.empties) for p in plans.values())
                and nan_scores in (None, "padding") and self._fast_cells > 0):
            pi, pf = plans[False], plans[True]
            thr_i = float(relevance_level) if relevance_level is not None else 1.0
            thr_f = float(relevance_level) if relevance_level is not None else FLOAT_DEFAULT_THR
            assert tuple(pi.keys) == tuple(pf.keys)
            self._fast = _batch.Dense(
                _batch.Kernel(pi.op_kind, pi.op_k, pi.op_thr, pi.op_gain, pi.op_disc, TIE_CODES[ties]),
                _batch.Kernel(pf.op_kind, pf.op_k, pf.op_thr, pf.op_gain, pf.op_disc, TIE_CODES[ties]),
                thr_i, thr_f, tuple(pi.keys), self._fast_cells)

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        # rebuilt from the options (the native kernel holds buffers, not state)
        return (_rebuild, (self.measures, self.ties, self.relevance_level, self.empty, self.nan_scores,
                           self.n_jobs))

    def __repr__(self) -> str:
        return (f"Evaluator({self.measures!r}, ties={self.ties!r}, relevance_level={self.relevance_level!r}, "
                f"empty={self.empty!r}, nan_scores={self.nan_scores!r}, n_jobs={self.n_jobs!r})")

    def __call__(self, scores: Any, labels: Any, *, lengths: Any = None, offsets: Any = None,
                 group: Any = None, mask: Any = None, n_relevant: Any = None,
                 check_inputs: bool = True) -> Dict[str, np.ndarray]:
        """Evaluate one batch; the arguments are those of [`irscore.batch.evaluate`][irscore.batch.evaluate].

        Parameters
        ----------
        scores, labels : array_like
            The batch, in any layout of [`irscore.batch.evaluate`][irscore.batch.evaluate].
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
        fast = self._fast
        if (fast is not None and lengths is None and offsets is None and group is None and mask is None
                and n_relevant is None and not isinstance(scores, (list, tuple))
                and not getattr(scores, "is_nested", False)):
            # a plain dense batch: one native call (which checks the arrays
            # itself; None: not a plain dense batch, the general path reads it)
            if type(scores) is not np.ndarray:
                scores = as_array(scores, "scores")
            if type(labels) is not np.ndarray:
                labels = as_array(labels, "labels")
            res = fast.run(scores, labels)
            if res is not None:
                if check_inputs and fast.neg:
                    warnings.warn(NEGATIVE_LABELS, UserWarning, stacklevel=2)
                return res
        lay = read_layout(scores, labels, lengths=lengths, offsets=offsets, group=group, mask=mask,
                          nan_scores=self.nan_scores, check_inputs=check_inputs)
        return run(self._plans[lay.float_labels], lay, n_relevant, self.ties, self.relevance_level,
                   self.empty, check_inputs, self.n_jobs)


def _rebuild(measures: Any, ties: str, relevance_level: Optional[float], empty: float,
             nan_scores: Optional[str], n_jobs: Optional[int]) -> Evaluator:
    return Evaluator(measures, ties=ties, relevance_level=relevance_level, empty=empty, nan_scores=nan_scores,
                     n_jobs=n_jobs)
