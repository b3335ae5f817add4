"""Streaming accumulators: the measures of `irscore.batch` over a validation pass that
arrives batch by batch, on one process or many, with a state of fixed size.

``Accumulator.update(scores, labels, ...)`` evaluates one batch (every layout of
[`irscore.batch.evaluate`][irscore.batch.evaluate]) and adds its per-query values to the state; ``compute()``
gives ``{name: summary}``.  Per measure the state is an exact sum of the per-query
values (integer limbs, ``irscore._accumulate``), the number of values summed and
trec_eval's running double sum: it does not grow with the number of queries, two
states merge by adding them elementwise (``merge``, an all-reduce), and the exact
sum makes the result independent of how the queries were split into batches,
workers or processes.

Tensors on another device than the CPU go one of two ways (``device_path``):
``"offload"`` copies them asynchronously into (pinned) host memory and evaluates
them on a worker thread, so ``update`` does not wait for the device; ``"torch"``
computes the measures with torch operations on the tensor's device
(`irscore.batch.device`) and keeps the state there.
"""
from __future__ import annotations

import math
import os
import re
import threading
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from irscore import _accumulate
from irscore.batch import device
from irscore.batch.engine import check_empty, check_options
from irscore.batch.evaluator import Evaluator
from irscore.core.measures import FAMILIES, Measure, resolve
from irscore.core.registry import EXTERNAL

__all__ = ["Accumulator", "DEVICE_PATHS", "exact_value"]

N_LIMBS = _accumulate.N_LIMBS
_BIAS = _accumulate.BIAS
DEVICE_PATHS = ("auto", "native", "offload", "torch")
_STATE_VERSION = 1


def _agg(m: Measure) -> str:
    """How measure ``m``'s per-query values are summarised (trec_eval's rule)."""
    if m.family in FAMILIES:
        agg = FAMILIES[m.family].agg
    elif m.family in EXTERNAL:
        agg = EXTERNAL[m.family].agg
    else:   # pragma: no cover - resolve() knows no other kind
        agg = "mean"
    if agg not in ("mean", "nanmean", "sum", "num_q", "num_rel", "gm"):
        raise ValueError(f"measure {m!s} has no numeric summary")
    return agg


def exact_value(limbs: Any) -> int:
    """The exact sum held by one row of limbs, times ``2 ** BIAS``, as a Python int."""
    total = 0
    for i, x in enumerate(np.asarray(limbs, dtype=np.int64).tolist()):
        total += int(x) << (32 * i)
    return total


def _device_type(x: Any) -> Optional[str]:
    dev = getattr(x, "device", None)
    t = getattr(dev, "type", None)
    return t if isinstance(t, str) else None


class Accumulator:
    """The measures of a validation pass, accumulated batch by batch.

    ``update()`` takes what [`irscore.batch.evaluate`][irscore.batch.evaluate] takes; ``compute()``
    returns ``{name: summary}`` over every query of every update: the mean for
    most measures (trec_eval's summary rule: sums for the counts, the geometric
    mean for ``gm_map``; with ``empty=nan`` the queries without relevant
    documents are left out of the 0/0 measures' means).

    The per-query values are summed exactly (a fixed-size integer accumulator per
    measure) and the mean is the exact sum divided by the count, rounded once:
    the result does not depend on the batch boundaries, on ``merge`` order or on
    the number of processes of an all-reduce.  trec_eval rounds after every
    query (a running double sum); ``compute(summation="running")`` gives that
    number for a single stream of updates (it may differ from the exact mean in
    the last bits).

    Parameters
    ----------
    measures : str or sequence of str
        Names, as for [`irscore.batch.evaluate`][irscore.batch.evaluate].
    ties, relevance_level, empty, nan_scores, n_jobs
        As for [`irscore.batch.evaluate`][irscore.batch.evaluate].
    keep_per_query : bool, default False
        Also keep every per-query value (``per_query()``); the state then grows
        with the number of queries.
    device_path : {'auto', 'native', 'offload', 'torch'}, default 'auto'
        How tensors on a device other than the CPU are evaluated: ``'offload'``
        (asynchronous copy to pinned host memory, native kernel on a worker
        thread), ``'torch'`` (torch operations on the device, state kept there),
        ``'native'`` (CPU inputs only). ``'auto'``: the native kernel for host
        arrays, ``'offload'`` for device tensors. Any path may be forced on CPU
        tensors (the tests do).

    Examples
    --------
    >>> import numpy as np
    >>> from irscore import batch
    >>> acc = batch.Accumulator(["nDCG@10", "RR"])
    >>> acc.update(np.array([[0.9, 0.1]]), np.array([[0, 1]]))
    >>> acc.update(np.array([[0.2, 0.7]]), np.array([[0, 1]]))
    >>> acc.compute()["RR"]
    0.75
    """

    def __init__(self, measures: Union[str, Sequence[str]], *, ties: str = "trec",
                 relevance_level: Optional[float] = None, empty: float = 0.0, nan_scores: Optional[str] = None,
                 keep_per_query: bool = False, n_jobs: Optional[int] = None, device_path: str = "auto") -> None:
        check_options(ties, n_jobs, relevance_level)
        if device_path not in DEVICE_PATHS:
            raise ValueError(f"device_path: expected one of {', '.join(map(repr, DEVICE_PATHS))}, "
                             f"got {device_path!r}")
        if not isinstance(keep_per_query, (bool, np.bool_)):
            raise TypeError(f"keep_per_query: expected True or False, got {keep_per_query!r}")
        self._ev = Evaluator(measures, ties=ties, relevance_level=relevance_level, empty=empty,
                             nan_scores=nan_scores, n_jobs=n_jobs)
        self.measures = self._ev.measures
        self.ties = ties
        self.relevance_level = relevance_level
        self.empty = check_empty(empty)
        self.nan_scores = nan_scores
        self.n_jobs = n_jobs
        self.keep_per_query = bool(keep_per_query)
        self.device_path = device_path
        items = resolve(self.measures)
        self.keys: List[str] = [k for k, _ in items]
        self._measures: List[Measure] = [m for _, m in items]
        self._aggs = [_agg(m) for m in self._measures]
        self._has_gm = "gm" in self._aggs
        self._skip_nan = math.isnan(self.empty) or any(a == "nanmean" for a in self._aggs)
        self._lock = threading.Lock()
        self._pool: Optional[ThreadPoolExecutor] = None
        self._pending: List[Future] = []
        self._error: Optional[BaseException] = None
        self._device: Any = None          # torch state (device path), else None
        self.reset()

    # ------------------------------------------------------------------ state

    def reset(self) -> None:
        """Forget every update (waits for the pending offloaded batches first)."""
        self._drain(raise_error=False)
        nm = len(self.keys)
        self._limbs = np.zeros((nm, N_LIMBS), dtype=np.int64)
        self._counts = np.zeros(nm, dtype=np.int64)
        self._running = np.zeros(nm, dtype=np.float64)
        self._n_queries = 0
        self._merged = False
        self._ids: Optional[set] = None
        self._per_query: List[Dict[str, np.ndarray]] = []
        self._per_query_ids: List[Any] = []
        self._device = None
        self._error = None

    @property
    def n_queries(self) -> int:
        """Queries accumulated so far (waits for pending offloaded batches)."""
        self._drain()
        self._fold_device()
        return self._n_queries

    def _options(self) -> Dict[str, Any]:
        return {"measures": list(self.keys), "ties": self.ties, "relevance_level": self.relevance_level,
                "empty": self.empty, "nan_scores": self.nan_scores, "keep_per_query": self.keep_per_query}

    def _same_options(self, other: Dict[str, Any], what: str) -> None:
        mine = self._options()
        for k, v in mine.items():
            w = other.get(k)
            same = (w == v) or (isinstance(v, float) and isinstance(w, float) and math.isnan(v) and math.isnan(w))
            if not same:
                raise ValueError(f"{what}: its {k} is {w!r}, this Accumulator's is {v!r}")

    # ---------------------------------------------------------------- updates

    def update(self, scores: Any, labels: Any, *, lengths: Any = None, offsets: Any = None, group: Any = None,
               mask: Any = None, n_relevant: Any = None, query_ids: Optional[Sequence[Any]] = None,
               check_inputs: bool = True) -> None:
        """Evaluate one batch and add its queries to the state.

        Parameters
        ----------
        scores, labels : array_like
            The batch, in any layout of [`irscore.batch.evaluate`][irscore.batch.evaluate]
            (numpy arrays, tensors on any device, JAX or other DLPack arrays).
        lengths, offsets, group, mask, n_relevant : array_like, optional
            As for [`irscore.batch.evaluate`][irscore.batch.evaluate].
        query_ids : sequence, optional
            One id per query of the batch. A query id seen before (in this
            Accumulator, or in one merged into it) is a ``ValueError``: its
            earlier value is already in the sums, which cannot forget it.
        check_inputs : bool, default True
            As for [`irscore.batch.evaluate`][irscore.batch.evaluate].

        Raises
        ------
        ValueError, TypeError
            Malformed input; an error of an earlier offloaded batch surfaces here.
        """
        if (type(scores) is np.ndarray and type(labels) is np.ndarray and self.device_path in ("auto", "native")
                and lengths is None and offsets is None and group is None and mask is None and n_relevant is None
                and query_ids is None and not self._pending and self._device is None and self._error is None):
            # a host batch in the plain dense layout: the Evaluator's one native call, then the sums
            self._add(self._ev(scores, labels, check_inputs=check_inputs), None)
            return
        self._raise_pending_error(in_update=True)
        scores, labels = _from_device_dlpack(scores), _from_device_dlpack(labels)
        kw = {"lengths": lengths, "offsets": offsets, "group": group, "mask": mask, "n_relevant": n_relevant}
        dev = _device_type(scores)
        ldev = _device_type(labels)
        if dev is not None and ldev is not None and str(scores.device) != str(labels.device):
            raise ValueError(f"labels: on device {labels.device}, scores on {scores.device}; "
                             "pass both on one device")
        for k, v in kw.items():
            kd = _device_type(v)
            if v is not None and dev is not None and kd is not None and str(v.device) != str(scores.device):
                raise ValueError(f"{k}: on device {v.device}, scores on {scores.device}; pass them on one device")
        path = self.device_path
        if path == "auto":
            path = "offload" if (dev is not None and dev != "cpu") else "native"
        if path == "native" and dev is not None and dev != "cpu":
            raise ValueError(f"scores: on device {scores.device}; device_path='native' evaluates host arrays "
                             "only (use 'offload' or 'torch')")
        ids = self._check_ids(query_ids)
        if path == "torch":
            self._update_torch(scores, labels, kw, ids, check_inputs)
        elif path == "offload":
            self._update_offload(scores, labels, kw, ids, check_inputs)
        else:
            self._drain(in_update=True)     # pending offloaded batches first: the update order holds
            self._fold_device()
            res = self._ev(scores, labels, check_inputs=check_inputs, **kw)
            self._add(res, ids)

    def _check_ids(self, query_ids: Optional[Sequence[Any]]) -> Optional[List[Any]]:
        if query_ids is None:
            return None
        if isinstance(query_ids, (str, bytes)):
            raise TypeError("query_ids: expected a sequence of ids, one per query, got a string")
        ids = list(np.asarray(query_ids).tolist()) if hasattr(query_ids, "__array__") else list(query_ids)
        try:
            distinct = set(ids)
        except TypeError as exc:
            raise TypeError(f"query_ids: every id must be hashable (a str, an int ...): {exc}") from None
        if any(i != i for i in distinct):
            raise ValueError("query_ids: NaN is not a query id (it equals nothing, itself included)")
        if len(distinct) != len(ids):
            seen: set = set()
            for i in ids:
                if i in seen:
                    raise ValueError(f"query_ids: query {i!r} appears twice in this batch")
                seen.add(i)
        with self._lock:
            known = self._ids or set()
            again = [i for i in ids if i in known]
        if again:
            raise ValueError(f"query_ids: query {again[0]!r} was evaluated in an earlier update; a query "
                             "seen again is refused (its value is already in the sums)")
        return ids

    def _add(self, res: Dict[str, np.ndarray], ids: Optional[List[Any]], reserved: bool = False) -> None:
        """Adds one batch's per-query values (host arrays) to the state (``reserved``:
        the ids were recorded when the batch was queued)."""
        values = tuple(res.values())
        if len(values) != len(self.keys):   # pragma: no cover - the Evaluator returns every key, in order
            raise RuntimeError("the evaluator's result does not match the measures")
        nq = values[0].shape[0] if values else 0
        if ids is not None and len(ids) != nq:
            raise ValueError(f"query_ids: {len(ids)} ids for a batch of {nq} queries")
        if self._has_gm:
            values = tuple(np.log(v) if a == "gm" else v for a, v in zip(self._aggs, values))
        with self._lock:
            try:
                _accumulate.add(values, self._limbs, self._running, self._counts, self._skip_nan)
            except ValueError as exc:       # refused, nothing added: name the measure and the query
                raise _named_value_error(exc, self.keys, values) from None
            self._n_queries += nq
            if ids is not None and not reserved:
                if self._ids is None:
                    self._ids = set()
                self._ids.update(ids)
            if self.keep_per_query:
                self._per_query.append({k: np.array(res[k], dtype=np.float64) for k in self.keys})
                self._per_query_ids.append(ids)

    # ---------------------------------------------------------------- offload

    def _update_offload(self, scores: Any, labels: Any, kw: Dict[str, Any], ids: Optional[List[Any]],
                        check_inputs: bool) -> None:
        event = None
        host = []
        for x in (scores, labels, *kw.values()):
            host.append(_to_host_async(x))
        dev = _device_type(scores)
        if dev == "cuda":
            import torch
            event = torch.cuda.Event()
            event.record()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="irscore-accumulator")
            _WITH_WORKER.add(self)
        sc, lb, *rest = host
        hkw = dict(zip(kw.keys(), rest))
        if ids is not None:      # reserve the ids now: a repeat in the next update is caught at once
            with self._lock:
                if self._ids is None:
                    self._ids = set()
                self._ids.update(ids)
        fut = self._pool.submit(self._offload_work, event, sc, lb, hkw, ids, check_inputs)
        self._pending.append(fut)
        if len(self._pending) > 64:     # bound the queue: the oldest must be done
            self._pending.pop(0).result()

    def _offload_work(self, event: Any, sc: Any, lb: Any, kw: Dict[str, Any], ids: Optional[List[Any]],
                      check_inputs: bool) -> None:
        # every batch on its own, as on the native path: a refused batch changes nothing
        # (its query ids are released) and the batches queued behind it still count
        try:
            if event is not None:
                event.synchronize()
            res = self._ev(sc, lb, check_inputs=check_inputs, **kw)
            self._add(res, ids, reserved=True)
        except BaseException as exc:  # noqa: BLE001 - surfaces at the next update()/compute()
            with self._lock:
                if ids is not None and self._ids is not None:
                    self._ids.difference_update(ids)
                if self._error is None:     # the first error; later ones are of the same pass
                    self._error = exc

    def _raise_pending_error(self, in_update: bool = False) -> None:
        self._pending = [f for f in self._pending if not f.done()]
        with self._lock:
            err, self._error = self._error, None
        if err is not None:
            add_note = getattr(err, "add_note", None)      # Python >= 3.11
            if add_note is not None:
                add_note("irscore: raised by a batch offloaded by an earlier update(); that batch added nothing"
                         + ("; the batch of this update() was not added either (call it again)" if in_update
                            else "; the other batches are in the state"))
            raise err

    def _drain(self, raise_error: bool = True, in_update: bool = False) -> None:
        pending, self._pending = getattr(self, "_pending", []), []
        for f in pending:
            f.result()
        if raise_error:
            self._raise_pending_error(in_update)

    # ------------------------------------------------------------ device path

    def _update_torch(self, scores: Any, labels: Any, kw: Dict[str, Any], ids: Optional[List[Any]],
                      check_inputs: bool) -> None:
        vals = self.device_values(scores, labels, check_inputs=check_inputs, **kw)
        nq = int(vals[0].shape[0]) if vals else 0
        if ids is not None and len(ids) != nq:
            raise ValueError(f"query_ids: {len(ids)} ids for a batch of {nq} queries")
        kept = None
        if self.keep_per_query:     # the values come to the host anyway: a refused batch is refused now
            kept = {k: v.detach().cpu().numpy().astype(np.float64) for k, v in zip(self.keys, vals)}
            for k, x in kept.items():
                bad = ~np.isfinite(x) & ~(np.isnan(x) & self._skip_nan)
                if bad.any():
                    i = int(np.argmax(bad))
                    raise ValueError(f"{k}: query {i} of the batch has the value {float(x[i])!r}; a per-query "
                                     "value must be finite (NaN is left out only with empty=nan)")
        dev = vals[0].device            # the scores' device (host inputs: the CPU)
        if self._device is None or self._device.device != dev:
            self._fold_device()
            self._device = device.DeviceState(len(self.keys), dev)
        self._device.add(vals, [a == "gm" for a in self._aggs], self._skip_nan)
        with self._lock:
            if ids is not None:
                if self._ids is None:
                    self._ids = set()
                self._ids.update(ids)
            if kept is not None:
                self._per_query.append(kept)
                self._per_query_ids.append(ids)

    def _fold_device(self) -> None:
        """Moves the device state (if any) into the host state: one copy."""
        st = self._device
        if st is None:
            return
        limbs, counts, nq = st.to_host()    # a refused batch raises here once; the state stays
        self._device = None
        with self._lock:
            self._limbs += limbs
            _accumulate.normalize(self._limbs)
            self._counts += counts
            self._n_queries += nq
            self._merged = True     # the device sums have no running order

    # ---------------------------------------------------------------- results

    def compute(self, summation: str = "exact") -> Dict[str, float]:
        """``{name: summary}`` over every query so far (NaN for a mean over no query).

        ``summation="exact"`` (default): the exact sum of the per-query values,
        divided by their number and rounded once.  ``"running"``: trec_eval's
        running double sum in update order (a single stream only: refused after
        ``merge``, ``load_state_dict`` of a merged state, or the torch device path).
        """
        if summation not in ("exact", "running"):
            raise ValueError(f"summation: expected 'exact' or 'running', got {summation!r}")
        self._drain()
        self._fold_device()
        if summation == "running" and self._merged:
            raise ValueError("summation='running': this state was merged (or computed on a device); only "
                             "the exact sum is defined for it")
        if summation == "running":
            return self._summaries(None, self._counts, self._n_queries, self._running)
        return self.summaries(self._limbs, self._counts, self._n_queries)

    def summaries(self, limbs: Any, counts: Any, n_queries: int, _running: Any = None) -> Dict[str, float]:
        """``{name: summary}`` of a state given as arrays (limbs, counts, number of
        queries): what ``compute()`` returns for them (a state synced by other means,
        as the torchmetrics integration's)."""
        return self._summaries(np.asarray(limbs, dtype=np.int64), np.asarray(counts), int(n_queries), _running)

    def _summaries(self, limbs: Any, counts: Any, n_queries: int, running: Any) -> Dict[str, float]:
        out: Dict[str, float] = {}
        for j, (key, agg) in enumerate(zip(self.keys, self._aggs)):
            n = int(counts[j])
            if agg == "num_q":
                out[key] = float(n_queries)
                continue
            if running is not None:
                s = float(running[j])
                if agg in ("sum", "num_rel"):
                    out[key] = s
                elif n == 0:
                    out[key] = float("nan")
                elif agg == "gm":
                    out[key] = math.exp(s / n)
                else:
                    out[key] = s / n
                continue
            total = exact_value(limbs[j])
            if agg in ("sum", "num_rel"):
                out[key] = total / (1 << _BIAS)
            elif n == 0:
                out[key] = float("nan")
            elif agg == "gm":
                out[key] = math.exp(total / (n << _BIAS))
            else:
                out[key] = total / (n << _BIAS)      # int / int: correctly rounded
        return out

    # ------------------------------------------------- the parts of an update

    @property
    def skip_nan(self) -> bool:
        """Whether NaN per-query values are left out of the sums (``empty=nan``)."""
        return self._skip_nan

    @property
    def log_measures(self) -> List[bool]:
        """Per measure: whether its sums hold logarithms (``gm_map``'s geometric mean)."""
        return [a == "gm" for a in self._aggs]

    def batch_values(self, scores: Any, labels: Any, *, check_inputs: bool = True,
                     **layout: Any) -> Tuple[np.ndarray, ...]:
        """One batch's per-query values as they are summed (host arrays, one per
        measure; logarithms for ``gm_map``), without adding them to the state."""
        res = self._ev(scores, labels, check_inputs=check_inputs, **layout)
        values = tuple(res.values())
        if self._has_gm:
            values = tuple(np.log(v) if a == "gm" else v for a, v in zip(self._aggs, values))
        return values

    def device_values(self, scores: Any, labels: Any, *, check_inputs: bool = True, **layout: Any) -> List[Any]:
        """One batch's per-query values as tensors on the scores' device (torch operations,
        `irscore.batch.device`), without adding them to the state."""
        return device.evaluate(scores, labels, self._measures, self.keys, ties=self.ties,
                               relevance_level=self.relevance_level, empty=self.empty, nan_scores=self.nan_scores,
                               check_inputs=check_inputs, **layout)

    def per_query(self) -> Dict[str, np.ndarray]:
        """``{name: per-query values in update order}`` (needs ``keep_per_query=True``)."""
        if not self.keep_per_query:
            raise ValueError("per_query(): this Accumulator keeps no per-query values "
                             "(construct it with keep_per_query=True)")
        self._drain()
        self._fold_device()
        return {k: (np.concatenate([b[k] for b in self._per_query]) if self._per_query
                    else np.zeros(0, dtype=np.float64)) for k in self.keys}

    def query_ids(self) -> Optional[List[Any]]:
        """The query ids of the kept per-query values, in order (None when not every batch had ids)."""
        if not self.keep_per_query:
            raise ValueError("query_ids(): this Accumulator keeps no per-query values "
                             "(construct it with keep_per_query=True)")
        self._drain()
        if any(ids is None for ids in self._per_query_ids):
            return None
        return [i for ids in self._per_query_ids for i in ids]

    # ----------------------------------------------------- merging, checkpoints

    def merge(self, other: "Accumulator") -> "Accumulator":
        """Adds ``other``'s queries to this state (same measures and options); returns self."""
        if not isinstance(other, Accumulator):
            raise TypeError(f"other: expected an Accumulator, got {type(other).__name__}")
        if other is self:
            raise ValueError("other: an Accumulator cannot be merged into itself")
        self._same_options(other._options(), "other")
        self._drain()
        self._fold_device()
        other._drain()
        other._fold_device()
        if self._ids and other._ids:
            both = self._ids & other._ids
            if both:
                raise ValueError(f"other: query {sorted(both, key=repr)[0]!r} is in both accumulators")
        with self._lock:
            self._limbs += other._limbs
            _accumulate.normalize(self._limbs)
            self._counts += other._counts
            self._running += other._running
            self._n_queries += other._n_queries
            self._merged = True
            if other._ids:
                self._ids = (self._ids or set()) | other._ids
            self._per_query.extend(other._per_query)
            self._per_query_ids.extend(other._per_query_ids)
        return self

    def state_dict(self) -> Dict[str, Any]:
        """The state as plain Python values (lists, ints, floats, the query ids): ``pickle``,
        JSON and ``torch.save`` take it, and ``torch.load``'s default ``weights_only=True``
        reads it back (it refuses numpy arrays)."""
        self._drain()
        self._fold_device()
        return {"version": _STATE_VERSION, **self._options(),
                "limbs": self._limbs.tolist(), "counts": self._counts.tolist(), "running": self._running.tolist(),
                "n_queries": self._n_queries, "merged": self._merged,
                "query_ids": None if self._ids is None else sorted(self._ids, key=repr),
                "per_query": [{k: np.asarray(v).tolist() for k, v in b.items()} for b in self._per_query]
                if self.keep_per_query else None,
                "per_query_ids": [None if ids is None else list(ids) for ids in self._per_query_ids]
                if self.keep_per_query else None}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Resumes from ``state_dict()``'s output (same measures and options)."""
        if not isinstance(state, dict) or state.get("version") != _STATE_VERSION:
            raise ValueError("state: not a state_dict() of this version of irscore.batch.Accumulator")
        self._same_options(state, "state")
        limbs = np.array(state["limbs"], dtype=np.int64)
        counts = np.array(state["counts"], dtype=np.int64)
        running = np.array(state["running"], dtype=np.float64)
        nm = len(self.keys)
        if limbs.shape != (nm, N_LIMBS) or counts.shape != (nm,) or running.shape != (nm,):
            raise ValueError("state: its arrays do not have this Accumulator's shapes")
        self.reset()
        _accumulate.normalize(limbs)
        self._limbs, self._counts, self._running = limbs, counts, running
        self._n_queries = int(state["n_queries"])
        self._merged = bool(state["merged"])
        self._ids = None if state.get("query_ids") is None else set(state["query_ids"])
        if self.keep_per_query:
            self._per_query = [{k: np.asarray(v, dtype=np.float64) for k, v in b.items()}
                               for b in state.get("per_query") or []]
            self._per_query_ids = list(state.get("per_query_ids") or [])

    def __repr__(self) -> str:
        return (f"Accumulator({self.measures!r}, ties={self.ties!r}, relevance_level={self.relevance_level!r}, "
                f"empty={self.empty!r}, keep_per_query={self.keep_per_query!r}, "
                f"device_path={self.device_path!r}; {self._n_queries} quer{'y' if self._n_queries == 1 else 'ies'})")

    def __getstate__(self) -> Dict[str, Any]:
        """Pickling and ``copy.deepcopy``: the state after the pending batches (no lock, no worker)."""
        self._drain(raise_error=False)
        st = self.__dict__.copy()
        for k in ("_lock", "_pool", "_pending"):
            st.pop(k, None)
        return st

    def __setstate__(self, st: Dict[str, Any]) -> None:
        self.__dict__.update(st)
        self._lock = threading.Lock()
        self._pool = None
        self._pending = []

    def __del__(self) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False)


# A fork (a DataLoader's workers) while batches are pending: the child would inherit
# futures that no thread of its own completes and perhaps a lock held by the worker.
# The fork waits for the pending batches; the child starts without a worker.
_WITH_WORKER: "weakref.WeakSet[Accumulator]" = weakref.WeakSet()


def _before_fork() -> None:
    for acc in list(_WITH_WORKER):
        acc._drain(raise_error=False)


def _after_fork_in_child() -> None:
    for acc in list(_WITH_WORKER):
        acc._lock = threading.Lock()
        acc._pool = None
        acc._pending = []
    _WITH_WORKER.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)


def _named_value_error(exc: ValueError, keys: Sequence[str], values: Sequence[Any]) -> ValueError:
    """``_accumulate.add``'s "values[j][i] = x" error said with the measure's name."""
    m = re.match(r"values\[(\d+)\]\[(\d+)\] = (\S+):(.*)", str(exc))
    if m is None or int(m.group(1)) >= len(keys):     # pragma: no cover - add's other errors
        return exc
    return ValueError(f"{keys[int(m.group(1))]}: query {m.group(2)} of the batch has the value {m.group(3)};"
                      f"{m.group(4)}")


def _from_device_dlpack(x: Any) -> Any:
    """A DLPack array in device memory that is not a torch tensor (CuPy, JAX on a GPU)
    as a torch tensor on that device (no copy); anything else as it is."""
    if x is None or _device_type(x) is not None or not callable(getattr(x, "__dlpack_device__", None)):
        return x
    try:
        kind = int(x.__dlpack_device__()[0])
    except Exception:  # noqa: BLE001 - not a usable DLPack object: the evaluation reports it
        return x
    if kind in (1, 3):      # host memory: numpy reads it
        return x
    import torch
    return torch.from_dlpack(x)


def _to_host_async(x: Any) -> Any:
    """A host copy of a device tensor (pinned memory, non-blocking) or of a CPU
    tensor (so the caller may reuse its buffer); other inputs as they are."""
    if x is None:
        return None
    if isinstance(x, (list, tuple)):        # per-query arrays: each copied
        return [_to_host_async(v) for v in x]
    dev = _device_type(x)
    if dev is None or not callable(getattr(x, "detach", None)):
        if isinstance(x, np.ndarray):
            return x.copy()
        return x
    import torch
    t = x.detach()
    if dev == "cpu":
        return t.clone()
    out = torch.empty(t.shape, dtype=t.dtype, device="cpu", pin_memory=torch.cuda.is_available())
    out.copy_(t, non_blocking=True)
    return out
