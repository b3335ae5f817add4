"""The batch kernel's measures computed with torch operations on the tensors' own device
(``Accumulator(device_path="torch")``, the torchmetrics integration): no copy to the host
and, with ``check_inputs=False``, no host synchronisation.

The arithmetic is the native kernel's, operation for operation: rows ranked by score
descending, ties by column index (descending: ``ties="trec"``; ascending: ``"input"``),
padding last; the discounts ``1 / log2(i + 2)`` and ``1 / (i + 1)`` tabulated with the C
library's ``log2`` as the kernel does; every sum a sequential prefix sum in rank order.
On CPU tensors the values are the native path's to the bit (the tests check it); a
GPU's parallel prefix sums may round differently, within a few ulps.

Supported: dense 2-D batches (``lengths``, ``mask`` or NaN padding), 1-D ``n_relevant``,
nDCG/DCG (linear or exponential gain, log2 or Jarvelin discount), AP, P, R, R-prec,
RR, Success and the counts. Other measures and layouts: ``device_path="offload"``.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from irscore import _accumulate, _batch
from irscore.batch.engine import FLOAT_DEFAULT_THR, check_options, plan_for
from irscore.core.measures import Measure

__all__ = ["DeviceState", "evaluate"]

_Op = _batch.OpKind
_GAIN_EXP = _batch.GAIN_KINDS["exp"]
_DISC_JARVELIN = _batch.DISCOUNT_KINDS["jarvelin"]
_TABLES: Dict[Tuple[Any, int, int], Any] = {}
_MAX_WIDTH = 1 << 20        # the kernel adds the first 2**20 ideal positions one by one


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:      # pragma: no cover - the torch extra
        raise ImportError("device_path='torch' needs PyTorch (pip install \".[torch]\" from a clone)") from exc
    return torch


def _table(kind: str, width: int, dev: Any) -> Any:
    """The discount of positions 0..width-1 (kind 'log2'/'jarvelin') or the rank i + 1 ('rank'),
    computed with the C library's log2 as the kernel computes them (the kernel divides by them)."""
    torch = _torch()
    key = (str(dev), width, {"log2": 0, "jarvelin": 1, "rank": 2}[kind])
    t = _TABLES.get(key)
    if t is None:
        if kind == "rank":
            vals = [float(i + 1) for i in range(width)]
        elif kind == "log2":
            vals = [math.log2(float(i + 2)) for i in range(width)]
        else:
            vals = [math.log2(float(i + 1 if i + 1 > 2 else 2)) for i in range(width)]
        t = torch.tensor(vals, dtype=torch.float64, device=dev)
        if len(_TABLES) > 64:
            _TABLES.clear()
        _TABLES[key] = t
    return t


def _as_tensor(x: Any, name: str, dev: Any) -> Any:
    torch = _torch()
    if isinstance(x, torch.Tensor):
        t = x.detach()
    else:
        try:
            t = torch.as_tensor(np.asarray(x))
        except Exception as exc:  # noqa: BLE001
            raise TypeError(f"{name}: cannot be read as a tensor ({exc})") from None
    if dev is not None and t.device != dev:
        raise ValueError(f"{name}: on device {t.device}, scores on {dev}; pass them on one device")
    return t


def evaluate(scores: Any, labels: Any, measures: Sequence[Measure], keys: Sequence[str], *, ties: str = "trec",
             relevance_level: Optional[float] = None, empty: float = 0.0, nan_scores: Optional[str] = None,
             check_inputs: bool = True, lengths: Any = None, offsets: Any = None, group: Any = None,
             mask: Any = None, n_relevant: Any = None) -> List[Any]:
    """Per-query values of ``keys`` (float64 tensors on the scores' device), one per key.

    ``check_inputs=True`` checks non-finite scores and labels on candidates and
    ``n_relevant`` (each check synchronises with the host once)."""
    torch = _torch()
    check_options(ties, None, relevance_level)
    if ties == "average":
        raise ValueError("ties='average': not available on device_path='torch' (use 'offload')")
    if offsets is not None or group is not None:
        raise ValueError("offsets/group: device_path='torch' takes dense 2-D batches (lengths=, mask= or NaN "
                         "padding); use device_path='offload' for ragged layouts")
    if lengths is not None and mask is not None:
        raise ValueError("mask: only for 2-D scores, without lengths, offsets or group")
    sc = _as_tensor(scores, "scores", None)
    dev = sc.device
    lb = _as_tensor(labels, "labels", dev)
    if sc.dim() != 2:
        raise ValueError(f"scores: device_path='torch' takes a 2-D batch, got shape {tuple(sc.shape)}")
    if tuple(lb.shape) != tuple(sc.shape):
        raise ValueError(f"labels: shape {tuple(lb.shape)} differs from scores' {tuple(sc.shape)}")
    if not (sc.dtype.is_floating_point or sc.dtype in (torch.int8, torch.int16, torch.int32, torch.int64,
                                                       torch.uint8, torch.bool)):
        raise TypeError(f"scores: expected a real-valued tensor, got dtype {sc.dtype}")
    float_labels = bool(lb.dtype.is_floating_point)
    plan = plan_for(list(keys), float_labels, relevance_level)
    if plan.other:
        names = ", ".join(n for _, n, _ in plan.other)
        raise ValueError(f"device_path='torch' computes nDCG/DCG, AP, P, R, R-prec, RR, Success and the counts; "
                         f"not {names} (use device_path='offload')")
    if sc.dtype in (torch.int32, torch.int64):     # read as doubles, as the kernel reads them
        sc = sc.to(torch.float64)
    nq, m = int(sc.shape[0]), int(sc.shape[1])
    col = torch.arange(m, device=dev)
    layout_given = lengths is not None or mask is not None
    mode = nan_scores or ("error" if layout_given else "padding")
    valid: Optional[Any] = None         # None: every cell is a candidate
    if lengths is not None:
        ln = _as_tensor(lengths, "lengths", dev).to(torch.int64)
        if tuple(ln.shape) != (nq,):
            raise ValueError(f"lengths: expected shape ({nq},), got {tuple(ln.shape)}")
        if check_inputs and bool(((ln < 0) | (ln > m)).any()):
            raise ValueError(f"lengths: every length must be in 0..{m}")
        valid = col[None, :] < ln[:, None]
    if mask is not None:
        mk = _as_tensor(mask, "mask", dev)
        if tuple(mk.shape) != (nq, m):
            raise ValueError(f"mask: expected shape ({nq}, {m}), got {tuple(mk.shape)}")
        valid = mk.to(torch.bool) if valid is None else valid & mk.to(torch.bool)
    nan = torch.isnan(sc) if sc.dtype.is_floating_point else None
    if nan is not None and mode == "padding":
        valid = ~nan if valid is None else valid & ~nan
    elif nan is not None and mode == "error" and check_inputs:
        bad_sc = ~torch.isfinite(sc)
        if bool((bad_sc if valid is None else bad_sc & valid).any()):
            raise ValueError("scores: NaN or infinite score on a candidate (nan_scores='error')")
    # labels as the kernel reads them (doubles); integer labels compared as integers
    lb64 = lb.to(torch.float64) if float_labels else lb
    if check_inputs and float_labels:
        bad_lb = ~torch.isfinite(lb64)
        if bool((bad_lb if valid is None else bad_lb & valid).any()):
            raise ValueError("labels: NaN or infinite label on a candidate")
    nv = valid.sum(dim=1) if valid is not None else torch.full((nq,), m, dtype=torch.int64, device=dev)
    allkeys = _keys(torch, sc, valid, nan if mode == "last" else None, ties)
    order, width = _rank(torch, allkeys, sc.dtype, ties, _top_width(plan, m))
    rl = torch.gather(lb64, 1, order).to(torch.float64)
    if valid is not None:       # padding ranked last: no label
        rl.masked_fill_(~torch.gather(valid, 1, order), -math.inf)
    col = col[:width]

    def cmp_thr(thr: float) -> Any:
        """thr as compared with the labels: integer labels against ceil(thr)."""
        return thr if float_labels else int(math.ceil(thr))

    cache: Dict[Any, Any] = {}

    def rel_count(thr: float) -> Any:
        """Relevant candidates per row at thr (all candidates, ranked or not)."""
        k = ("c", thr)
        if k not in cache:
            x = lb64 >= cmp_thr(thr)
            cache[k] = (x if valid is None else x & valid).sum(dim=1)
        return cache[k]

    level_default = float(relevance_level) if relevance_level is not None else (
        FLOAT_DEFAULT_THR if float_labels else 1.0)
    nrel: Optional[Any] = None
    extra_label = 0.0
    if n_relevant is not None:
        nrel = _as_tensor(n_relevant, "n_relevant", dev)
        if nrel.dim() != 1 or int(nrel.shape[0]) != nq:
            raise ValueError(f"n_relevant: device_path='torch' takes 1-D counts of shape ({nq},), "
                             f"got {tuple(nrel.shape)} (use 'offload' for per-grade counts)")
        nrel = nrel.to(torch.int64)
        extra_label = 1.0 if (relevance_level is None and float_labels) else float(level_default)
        bad = [lv for lv in plan.uses_r_levels if lv is not None and float(lv) != level_default]
        if bad:
            raise ValueError("n_relevant: a 1-D count holds at one relevance level only; measures with "
                             f"rel={bad[0]} need per-grade counts (2-D n_relevant)")
        if check_inputs:
            have = rel_count(level_default)
            if bool((nrel < have).any()):
                raise ValueError("n_relevant: less than the number of relevant candidates of a query")

    if check_inputs and any(int(plan.op_gain[j]) == _GAIN_EXP and int(plan.op_kind[j]) in (_Op.K_NDCG, _Op.K_DCG)
                            for j in range(len(plan.native))):
        lab = lb64 if valid is None else lb64.masked_fill(~valid, 0)
        worst = max(float(lab.max().item()) if lab.numel() else 0.0, extra_label if nrel is not None else 0.0)
        if worst >= 1024.0:     # the native kernel's check and message
            raise ValueError(f"nDCG/DCG(gain=exp): label {worst:g} gives the gain 2**label - 1, beyond the "
                             "range of a double; gain=exp takes labels below 1024 (use the linear gain)")

    def total_rel(thr: float) -> Any:
        return nrel if nrel is not None else rel_count(thr)

    def top_count(thr: float, k: Any) -> Any:
        """Relevant candidates among the first min(nv, k) positions (k: int or per-row tensor)."""
        x = (rl >= thr)
        lim = torch.as_tensor(k, device=dev)
        if lim.dim() == 0:
            lim = lim.expand(nq)
        return (x & (col[None, :] < lim[:, None])).sum(dim=1)

    def gains(v: Any, gk: int) -> Any:
        pos = v > 0
        g = torch.pow(2.0, v) - 1.0 if gk == _GAIN_EXP else v
        return torch.where(pos, g, torch.zeros_like(v))

    def dcg(v: Any, k: int, gk: int, dk: int) -> Any:
        width = int(v.shape[1])
        if width == 0:
            return torch.zeros(nq, dtype=torch.float64, device=dev)
        if width > _MAX_WIDTH:
            raise ValueError(f"device_path='torch': rows of at most {_MAX_WIDTH} positions")
        t = _table("jarvelin" if dk == _DISC_JARVELIN else "log2", width, dev)
        contrib = gains(v, gk) / t[None, :]
        if 0 <= k < width:
            contrib = contrib[:, :k]
        return torch.cumsum(contrib, dim=1)[:, -1] if contrib.shape[1] else torch.zeros(
            nq, dtype=torch.float64, device=dev)

    out: Dict[str, Any] = {}
    zero = torch.zeros(nq, dtype=torch.float64, device=dev)
    for j, i in enumerate(plan.native):
        name = plan.keys[i]
        kind = int(plan.op_kind[j])
        k = int(plan.op_k[j])
        thr = float(plan.op_thr[j])
        gk, dk = int(plan.op_gain[j]), int(plan.op_disc[j])
        if kind in (_Op.K_NDCG, _Op.K_DCG):
            s_ = dcg(rl, k, gk, dk)
            if kind == _Op.K_DCG:
                out[name] = s_
                continue
            if "pos" not in cache:
                keep = lb64 > 0
                cache["pos"] = lb64 * (keep if valid is None else keep & valid)    # gains <= 0 count nothing
            pos = cache["pos"]
            ideal = (torch.topk(pos, k, dim=1).values if 0 <= k < m
                     else torch.sort(pos, dim=1, descending=True).values).to(torch.float64)
            if nrel is not None and extra_label > 0.0:
                extra = (nrel - rel_count(level_default)).clamp(min=0)
                ext_w = k if k >= 0 else int(extra.max().item()) if nq else 0
                if ext_w > _MAX_WIDTH:
                    raise ValueError(f"n_relevant: device_path='torch' builds ideal rankings of at most "
                                     f"{_MAX_WIDTH} positions; use 'offload'")
                ext = torch.arange(ext_w, device=dev)[None, :] < extra[:, None]
                ext = torch.where(ext, torch.full(ext.shape, extra_label, dtype=torch.float64, device=dev),
                                  torch.zeros(ext.shape, dtype=torch.float64, device=dev))
                ideal = torch.sort(torch.cat([ideal, ext], dim=1), dim=1, descending=True).values
            idcg = dcg(ideal, k, gk, dk)
            out[name] = torch.where(idcg > 0, s_ / torch.where(idcg > 0, idcg, torch.ones_like(idcg)), zero)
        elif kind == _Op.K_MAP:
            x = rl >= thr
            c = torch.cumsum(x.to(torch.int64), dim=1)
            contrib = (x.to(torch.int64) * c).to(torch.float64) / _table("rank", max(width, 1), dev)[None, :width]
            if 0 <= k < width:
                contrib = contrib[:, :k]
            s_ = torch.cumsum(contrib, dim=1)[:, -1] if contrib.shape[1] else zero
            R = total_rel(thr)
            out[name] = torch.where(R > 0, s_ / torch.where(R > 0, R, 1).to(torch.float64), zero)
        elif kind in (_Op.K_P, _Op.K_RECALL, _Op.K_SUCCESS):
            c = top_count(thr, k)
            if kind == _Op.K_P:
                out[name] = c.to(torch.float64) / float(k)
            elif kind == _Op.K_SUCCESS:
                out[name] = (c > 0).to(torch.float64)
            else:
                R = total_rel(thr)
                out[name] = torch.where(R > 0, c.to(torch.float64) / torch.where(R > 0, R, 1).to(torch.float64),
                                        zero)
        elif kind == _Op.K_RPREC:
            R = total_rel(thr)
            c = top_count(thr, R)
            out[name] = torch.where(R > 0, c.to(torch.float64) / torch.where(R > 0, R, 1).to(torch.float64), zero)
        elif kind == _Op.K_RECIP_RANK:
            x = rl >= thr
            if k > 0:
                x = x & (col[None, :] < k)
            anyr = x.any(dim=1)
            first = torch.argmax(x.to(torch.int8), dim=1)
            rr = torch.where(anyr, 1.0 / (first + 1).to(torch.float64), zero)
            if k <= 0 and width < m and (dev.type != "cpu" or bool((~anyr & (rel_count(thr) > 0)).any())):
                # only the top `width` are ranked: the best relevant candidate below them
                # by its key, then its rank (on the CPU, only when a row needs it)
                isrel = lb64 >= cmp_thr(thr)
                if valid is not None:
                    isrel &= valid
                best = allkeys.masked_fill(~isrel, _PAD).max(dim=1).values
                rank = (allkeys > best[:, None]).sum(dim=1) + 1
                if sc.dtype == torch.float64:
                    # float64 keys tie on equal scores: the tie rule orders the candidates
                    # of the best key; those before the first relevant one count too
                    tied = allkeys == best[:, None]
                    cols = torch.arange(m, device=dev)
                    if ties == "trec":      # column descending
                        first = torch.where(tied & isrel, cols, -1).max(dim=1).values
                        rank = rank + (tied & (cols[None, :] > first[:, None])).sum(dim=1)
                    else:
                        first = torch.where(tied & isrel, cols, m).min(dim=1).values
                        rank = rank + (tied & (cols[None, :] < first[:, None])).sum(dim=1)
                deep = ~anyr & (rel_count(thr) > 0)
                rr = torch.where(deep, 1.0 / rank.to(torch.float64), rr)
            out[name] = rr
        elif kind == _Op.K_NUM_RET:
            out[name] = nv.to(torch.float64)
        elif kind == _Op.K_NUM_REL:
            out[name] = total_rel(thr).to(torch.float64)
        elif kind == _Op.K_NUM_REL_RET:
            out[name] = rel_count(thr).to(torch.float64)
        else:   # pragma: no cover - plan_for plans no other native kind
            raise ValueError(f"measure {name!r}: no device implementation")
    if empty != 0.0 and plan.empties:
        for key_, kind_, thr_ in plan.empties:
            if kind_ == "gain":
                have = rel_count(5e-324)
                if nrel is not None:
                    have = have + nrel
            else:
                have = rel_count(float(thr_))
                if nrel is not None and float(thr_) == level_default:
                    have = torch.maximum(have, nrel)
            out[key_] = torch.where(have == 0, torch.full_like(out[key_], empty), out[key_])
    return [out[k] for k in keys]


_PAD = -(1 << 63)          # the key of padding cells (float64 scores): below every candidate's
_CUT_KINDS = {_Op.K_NDCG, _Op.K_DCG, _Op.K_MAP, _Op.K_P, _Op.K_RECALL, _Op.K_SUCCESS}


def _top_width(plan: Any, m: int) -> int:
    """How many ranked positions the plan reads: the largest cutoff when every
    measure has one (RR and the counts need none), else the whole row."""
    need = 0
    for j in range(len(plan.native)):
        kind, k = int(plan.op_kind[j]), int(plan.op_k[j])
        if kind in _CUT_KINDS:
            if k < 0:
                return m
            need = max(need, k)
        elif kind == _Op.K_RPREC:
            return m
        elif kind == _Op.K_RECIP_RANK and k > 0:
            need = max(need, k)
    return min(m, max(need, 1))


def _keys(torch: Any, sc: Any, valid: Optional[Any], nan_last: Optional[Any], ties: str) -> Any:
    """int64 sort keys, larger first, in the kernel's order: score descending, then the
    tie rule; NaN candidates (``nan_scores='last'``) below every other candidate, padding
    lowest.  Scores narrower than float64 get unique keys (the float32 bits above the tie
    rank), so an unstable sort or a top-k is exact; float64 keys tie on equal scores."""
    m = int(sc.shape[1])
    if sc.dtype == torch.float64:
        b = (sc + 0.0).view(torch.int64)                                       # -0.0 -> +0.0
        key = b ^ ((b >> 63) & 0x7FFFFFFFFFFFFFFF)                             # order-preserving
        if nan_last is not None:
            key = torch.where(nan_last, _PAD + 1, key)
        if valid is not None:
            key = key.masked_fill(~valid, _PAD)
        return key
    # float32 and narrower: the order-preserving 32 bits (NaN and padding set in the
    # 32-bit domain, below -inf's), then the tie rank in the low 32 bits
    f = (sc.to(torch.float32) + 0.0).view(torch.int32)
    f = f ^ ((f >> 31) & 0x7FFFFFFF)
    low32 = -(1 << 31)
    if nan_last is not None:
        f = torch.where(nan_last, low32 + 1, f)
    if valid is not None:
        f = torch.where(valid, f, low32)
    col = torch.arange(m, device=sc.device, dtype=torch.int64)
    tie = col if ties == "trec" else (m - 1 - col)                             # higher first on a tie
    return (f.to(torch.int64) << 32) | tie


def _rank(torch: Any, key: Any, dtype: Any, ties: str, width: int) -> Tuple[Any, int]:
    """The column order of the first ``width`` ranked positions of each row, and width."""
    m = int(key.shape[1])
    if dtype != torch.float64:      # unique keys
        if width < m:
            return torch.topk(key, width, dim=1).indices, width
        return torch.sort(key, dim=1, descending=True).indices, m
    # float64 keys tie on equal scores. On the CPU (where a check costs no device
    # synchronisation) a top-k suffices when no two of the first width + 1 keys of
    # any row are equal; else a stable sort of the columns in tie order
    if width < m and key.device.type == "cpu":
        top = torch.topk(key, width + 1, dim=1)
        if not bool((top.values[:, 1:] == top.values[:, :-1]).any()):
            return top.indices[:, :width], width
    col = torch.arange(m, device=key.device)
    base = torch.flip(col, [0]) if ties == "trec" else col
    order = base[torch.sort(key[:, base], dim=1, descending=True, stable=True).indices]
    return order, m


class DeviceState:
    """Exact sums kept on a device: the limbs of ``irscore._accumulate``, added with
    integer tensor operations (exact, order-free), without host synchronisation.
    A batch with a non-finite per-query value adds nothing; ``to_host`` reports it."""

    def __init__(self, n_measures: int, dev: Any) -> None:
        torch = _torch()
        self.device = dev
        self.limbs = torch.zeros((n_measures, _accumulate.N_LIMBS), dtype=torch.int64, device=dev)
        self.counts = torch.zeros(n_measures, dtype=torch.int64, device=dev)
        self.queries = torch.zeros((), dtype=torch.int64, device=dev)
        self.refused = torch.zeros((), dtype=torch.int64, device=dev)

    def add(self, values: Sequence[Any], is_log: Sequence[bool], skip_nan: bool) -> None:
        torch = _torch()
        bad = torch.zeros((), dtype=torch.bool, device=self.device)
        flag = add_limbs(self.limbs, self.counts, bad, values, is_log, skip_nan)
        nq = int(values[0].shape[0]) if len(values) else 0
        self.queries += (~flag).to(torch.int64) * nq
        self.refused += flag.to(torch.int64)

    def to_host(self) -> Tuple[np.ndarray, np.ndarray, int]:
        """The state as host arrays (limbs normalised, counts, queries); raises once if a
        batch was refused since the last call (the state stays, without that batch)."""
        n_bad = int(self.refused.item())
        if n_bad:
            self.refused.zero_()
            raise ValueError(f"{n_bad} batch{'es' if n_bad > 1 else ''} refused on the device: a per-query value "
                             "was not finite (NaN is left out only with empty=nan); the other batches are kept")
        limbs = self.limbs.cpu().numpy().astype(np.int64)
        _accumulate.normalize(limbs)
        return limbs, self.counts.cpu().numpy().astype(np.int64), int(self.queries.item())


def add_limbs(limbs: Any, counts: Any, bad: Any, values: Sequence[Any], is_log: Sequence[bool],
              skip_nan: bool) -> Any:
    """Adds per-measure value tensors to integer limbs exactly (in place, on their device).

    Each finite double v is m * 2**(e - 53) with an integer |m| < 2**53 (``frexp``):
    its two 32-bit halves, shifted to the bit position of 2**(e - 53), are added to
    three consecutive limbs; then one carry step keeps every limb below 2**33.
    A call with a non-finite value (NaN too, unless ``skip_nan``) adds nothing, as
    the native ``_accumulate.add`` refuses it: ``bad`` is or-ed with that, and the
    call's own flag (a 0-d bool tensor, no host synchronisation) is returned."""
    torch = _torch()
    nl = int(limbs.shape[1])
    flat = limbs.view(-1)
    mask32 = (1 << 32) - 1
    chunk = 1 << 28         # a limb gains < 2**34 per value: a carry step after each chunk
    prepared = []
    refuse = torch.zeros((), dtype=torch.bool, device=limbs.device)
    for j, v in enumerate(values):
        v = v.to(torch.float64)
        if is_log[j]:
            v = torch.log(v)
        fin = torch.isfinite(v)
        refuse = refuse | ((~fin & ~torch.isnan(v)).any() if skip_nan else (~fin).any())
        prepared.append((v, fin))
    bad |= refuse
    keep = (~refuse).to(torch.int64)
    for j, (v, fin) in enumerate(prepared):
        for a in range(0, int(v.shape[0]), chunk):
            if a:
                _carry(limbs)
            part, ok = v[a:a + chunk], fin[a:a + chunk]
            counts[j] += ok.sum() * keep
            part = torch.where(ok, part, torch.zeros_like(part))
            mant, ex = torch.frexp(part)
            mi = (mant * 9007199254740992.0).to(torch.int64) * keep     # * 2**53: exact
            sign = torch.where(mi < 0, -1, 1).to(torch.int64)
            u = mi.abs()
            p = ex.to(torch.int64) - 53 + _accumulate.BIAS
            idx = (p >> 5) + j * nl
            sh = p & 31
            lo = (u & mask32) << sh                      # < 2**63
            hi = (u >> 32) << sh                         # < 2**53
            contrib = torch.cat([(lo & mask32) * sign, ((lo >> 32) + (hi & mask32)) * sign, (hi >> 32) * sign])
            flat.index_add_(0, torch.cat([idx, idx + 1, idx + 2]), contrib)
    _carry(limbs)
    return refuse


def _carry(limbs: Any) -> None:
    """One carry step: limbs stay bounded (|limb| < 2**33), the value unchanged."""
    c = limbs >> 32
    c[:, -1] = 0
    limbs -= c << 32
    limbs[:, 1:] += c[:, :-1]
