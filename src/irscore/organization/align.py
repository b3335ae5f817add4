"""Alignment of a gold and a system organization: shared topics and the pair arrays the
native kernel reads."""
from __future__ import annotations

from typing import Any, List, Sequence, Tuple

import numpy as np

from irscore.organization.model import Organization


# ---------------------------------------------------------------------------
# pairing gold and system for the kernels
# ---------------------------------------------------------------------------
def aligned_topics(gold: Organization, system: Organization) -> List[str]:
    only_g = [t for t in gold.topics if t not in system]
    only_s = [t for t in system.topics if t not in gold]
    if only_s:
        raise ValueError(
            f"system: unknown topic(s) not in the gold standard: {', '.join(map(repr, only_s[:5]))}"
            + (" ..." if len(only_s) > 5 else "")
        )
    if only_g:
        raise ValueError(
            f"system: no organization for gold topic(s) {', '.join(map(repr, only_g[:5]))}"
            + (" ..." if len(only_g) > 5 else "")
            + " (an empty organization is not allowed)"
        )
    return gold.topics


def _reorder(enc: Tuple[Any, ...], topics: Sequence[str]) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    index, ptr, docs, levels, clusters = enc[:5]
    order = np.fromiter((index[t] for t in topics), dtype=np.int64, count=len(topics))
    if np.array_equal(order, np.arange(len(ptr) - 1)):
        return ptr, docs, levels, clusters
    starts = ptr[order]
    lens = ptr[order + 1] - starts
    new_ptr = np.zeros(len(order) + 1, dtype=np.int64)
    np.cumsum(lens, out=new_ptr[1:])
    idx = np.repeat(starts - new_ptr[:-1], lens) + np.arange(new_ptr[-1], dtype=np.int64)
    return new_ptr, docs[idx], levels[idx], clusters[idx]


def pair_arrays(gold: Organization, system: Organization, topics: Sequence[str]) -> Tuple[Any, ...]:
    genc = gold._encoded()
    senc = system._encoded()
    g_ptr, g_doc, g_lev, g_cl = _reorder(genc, topics)
    s_ptr, s_doc, s_lev, s_cl = _reorder(senc, topics)
    n_gold: int = genc[5]
    trans = gold._keys()[1].lookup(*system._keys()[0], -1)
    missing = trans < 0
    n_docs = n_gold + int(missing.sum())
    trans[missing] = np.arange(n_gold, n_docs, dtype=np.int64)
    s_doc = trans[s_doc].astype(np.int32) if len(s_doc) else s_doc
    if n_docs >= 2**31 - 1:
        raise ValueError("too many distinct documents (at most 2**31 - 2)")
    return (g_ptr, g_doc, g_lev, g_cl, s_ptr, s_doc, s_lev, s_cl, n_docs)
