"""irscore's measures as a ``torchmetrics.Metric``: for ``MetricCollection``, PyTorch
Lightning's ``self.log``/``log_dict`` and DDP.

The metric's states are fixed-size integer tensors (the exact sums of
[`irscore.batch.Accumulator`][irscore.batch.Accumulator], one row of limbs per measure, and the counts), all
reduced with ``dist_reduce_fx="sum"``: a DDP sync is one all-reduce of a few
hundred bytes per measure, whatever the number of queries, and the synced result
equals the single-process result exactly (the sums are exact, so the order in
which ranks are added does not matter).

Each row of ``preds``/``target`` is one query (the layouts of
[`irscore.batch.evaluate`][irscore.batch.evaluate]: ``lengths=``, ``mask=``, NaN padding; on CPU tensors
also ``offsets=``/``group=``). CPU tensors are evaluated by the native batch kernel;
tensors on another device by torch operations on that device (``device_path="torch"``),
so ``update`` neither copies to the host nor synchronises (with ``check_inputs=False``).

torchmetrics' own retrieval metrics take flat ``preds``/``target`` with an
``indexes`` tensor naming each document's query; ``update(..., indexes=...)`` takes
that form too.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Union

import numpy as np

from irscore import _accumulate
from irscore.batch import Accumulator
from irscore.batch.device import add_limbs

try:
    import torch
    from torchmetrics import Metric
except ImportError as exc:      # pragma: no cover - exercised without torch
    raise ImportError("irscore.integrations.torchmetrics needs torch and torchmetrics "
                      "(pip install torchmetrics, with a CPU or CUDA torch)") from exc

__all__ = ["RetrievalMeasures"]



class RetrievalMeasures(Metric):
    """irscore measures over a validation pass, as a torchmetrics ``Metric``.

    ``compute()`` returns ``{name: float64 scalar tensor}``.

    Parameters
    ----------
    measures : str or sequence of str
        Names, as for [`irscore.batch.evaluate`][irscore.batch.evaluate] (``"nDCG@10"``, ``"AP"``, ``"RR"`` ...).
    ties, relevance_level, empty, nan_scores
        As for [`irscore.batch.evaluate`][irscore.batch.evaluate] (``empty=`` is the value of a query
        without relevant documents: 0 as trec_eval; torchmetrics' retrieval metrics'
        ``empty_target_action="neg"`` is ``empty=0``, ``"pos"`` is ``empty=1``,
        ``"skip"`` is ``empty=float("nan")``).
    device_path : {'auto', 'torch', 'native'}, default 'auto'
        ``'auto'``: the native kernel for CPU tensors, torch operations on the device
        for the others.
    **kwargs
        torchmetrics' ``Metric`` options (``sync_on_compute``, ``dist_sync_fn`` ...).
    """

    full_state_update = False
    is_differentiable = False
    higher_is_better = True

    def __init__(self, measures: Union[str, Sequence[str]], *, ties: str = "trec",
                 relevance_level: Optional[float] = None, empty: float = 0.0, nan_scores: Optional[str] = None,
                 device_path: str = "auto", check_inputs: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if device_path not in ("auto", "torch", "native"):
            raise ValueError(f"device_path: expected 'auto', 'torch' or 'native', got {device_path!r}")
        self._acc = Accumulator(measures, ties=ties, relevance_level=relevance_level, empty=empty,
                                nan_scores=nan_scores, device_path="native")
        self._path = device_path
        self._check = bool(check_inputs)
        nm = len(self._acc.keys)
        self.add_state("limbs", default=torch.zeros((nm, _accumulate.N_LIMBS), dtype=torch.int64),
                       dist_reduce_fx="sum")
        self.add_state("counts", default=torch.zeros(nm, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("n_queries", default=torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")
        # batches refused on the device without a host synchronisation (check_inputs=False)
        self.add_state("refused", default=torch.zeros((), dtype=torch.int64), dist_reduce_fx="sum")

    def _apply(self, fn: Any, exclude_state: Sequence[str] = "") -> Any:
        """Moves the states with the module (``.to(device)``); the integer sums keep their
        dtype whatever ``set_dtype`` asks (a float limb would lose the exact sum)."""
        names = ("limbs", "counts", "n_queries", "refused")
        defaults: Dict[str, Any] = getattr(self, "_defaults", {})
        before = {k: (getattr(self, k, None), defaults.get(k)) for k in names}
        this: Any = super()._apply(fn, exclude_state)
        for k, (cur, default) in before.items():
            if cur is None:
                continue
            new = getattr(this, k)
            if new.dtype != torch.int64:
                setattr(this, k, cur.to(new.device))
            if default is not None and this._defaults[k].dtype != torch.int64:
                this._defaults[k] = default.to(this._defaults[k].device)
        return this

    @property
    def keys(self) -> Sequence[str]:
        """The measure names, in the order of ``compute()``'s dict."""
        return tuple(self._acc.keys)

    def update(self, preds: Any, target: Any, indexes: Any = None, **layout: Any) -> None:  # type: ignore[override]
        """Adds one batch: ``preds`` (scores) and ``target`` (labels) in a layout of
        [`irscore.batch.evaluate`][irscore.batch.evaluate], or flat with ``indexes`` (each document's query,
        torchmetrics' form)."""
        if indexes is not None:
            preds, target, layout = _from_indexes(preds, target, indexes, layout)
        dev = getattr(preds, "device", None)
        on_device = getattr(dev, "type", "cpu") != "cpu"
        path = self._path
        if path == "auto":
            path = "torch" if on_device else "native"
        acc = self._acc
        state_limbs: Any = getattr(self, "limbs")
        state_counts: Any = getattr(self, "counts")
        n_queries: Any = getattr(self, "n_queries")
        if path == "torch":
            vals = acc.device_values(preds, target, check_inputs=self._check, **layout)
            limbs = state_limbs if state_limbs.device == dev else state_limbs.to(dev)
            counts = state_counts if state_counts.device == dev else state_counts.to(dev)
            bad = torch.zeros((), dtype=torch.bool, device=dev)
            flag = add_limbs(limbs, counts, bad, vals, acc.log_measures, acc.skip_nan)   # refused: adds nothing
            if self._check and bool(flag.item()):
                raise ValueError("a per-query value was not finite (NaN is left out only with empty=nan)")
            if limbs is not state_limbs:
                state_limbs.copy_(limbs.to(state_limbs.device))
                state_counts.copy_(counts.to(state_counts.device))
            nq = int(vals[0].shape[0]) if vals else 0
            flag = flag.to(n_queries.device, torch.int64)
            n_queries += (1 - flag) * nq
            refused: Any = getattr(self, "refused")
            refused += flag
            return
        if on_device:
            raise ValueError(f"preds: on device {dev}; device_path='native' evaluates CPU tensors only")
        if state_limbs.device.type != "cpu":
            raise ValueError(f"preds: on the CPU, this metric's states on {state_limbs.device}; pass preds and "
                             f"target on {state_limbs.device} or move the metric to the CPU")
        values = acc.batch_values(preds, target, check_inputs=self._check, **layout)
        running = np.zeros(len(values), dtype=np.float64)
        # CPU states: the native kernel adds into their memory
        _accumulate.add(values, state_limbs.numpy(), running, state_counts.numpy(), acc.skip_nan)
        n_queries += int(values[0].shape[0]) if values else 0

    def compute(self) -> Dict[str, Any]:  # type: ignore[override]
        """``{name: summary}`` (float64 scalar tensors) over every query so far."""
        state: Any = self
        n_bad = int(state.refused.item())
        if n_bad:
            raise ValueError(f"{n_bad} batch{'es' if n_bad > 1 else ''} refused (check_inputs=False): a per-query "
                             "value was not finite (NaN is left out only with empty=nan); the sums hold the others")
        limbs = state.limbs.detach().cpu().numpy().astype(np.int64)
        _accumulate.normalize(limbs)
        sums = self._acc.summaries(limbs, state.counts.detach().cpu().numpy(), int(state.n_queries.item()))
        return {k: torch.tensor(v, dtype=torch.float64) for k, v in sums.items()}


def _from_indexes(preds: Any, target: Any, indexes: Any, layout: Dict[str, Any]) -> Any:
    """torchmetrics' flat form (``indexes``: each document's query) as the ragged layout."""
    if layout.get("offsets") is not None or layout.get("group") is not None:
        raise ValueError("indexes: give either indexes or offsets/group")
    idx = torch.as_tensor(indexes)
    if idx.dim() != 1 or tuple(idx.shape) != tuple(torch.as_tensor(preds).shape):
        raise ValueError("indexes: expected a 1-D tensor with one query index per document of preds")
    idx_cpu = idx.detach().cpu().numpy().astype(np.int64)
    order = np.argsort(idx_cpu, kind="stable")       # documents of a query keep their order
    _, counts = np.unique(idx_cpu[order], return_counts=True)
    p = torch.as_tensor(preds).detach().cpu().numpy()[order]
    t = torch.as_tensor(target).detach().cpu().numpy()[order]
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return p, t, {**layout, "offsets": offsets}
