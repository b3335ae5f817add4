"""Reliability & Sensitivity for document organization (Amigó, Gonzalo, Verdejo, SIGIR 2013).

An *organization* of one topic is a list of priority levels (top first), each a list
of clusters, each a collection of document ids.  A document may occur in several
clusters and levels; each (document, cluster) membership is an *occurrence*.
Documents that are not listed form the long tail, below every level.  Ranking,
filtering and clustering are special cases.

Reliability (R) is the weighted precision of the relations a system output states
(priority: "d above d'"; relatedness: "d and d' in one cluster") against the gold
standard; Sensitivity (S) is their recall.  The definitions and the readings chosen
where the paper is garbled are ``SPEC.md`` section 4; in short:

- ranking weights (``weights="ranking"``, parameters ``n``, ``w_n``): the first ``n``
  occurrences carry the fraction ``w_n`` of the total weight; with
  ``c = (1 - w_n) n / w_n`` the occurrence at position ``i`` weighs
  ``c (1/(c+i-1) - 1/(c+i))``, occurrences of one level share their interval, and the
  long tail weighs ``c / (c + |occ|)``;
- ``weights="uniform"``: every occurrence weighs ``1/|occ|`` and there is no tail
  (filtering, flat clustering);
- relation counts follow extended BCubed: ``P(r in G) = min(|r_G|, |r_X|) / |r_X|``;
- ``foreign="tail"`` (default): a document listed on one side only is placed in the
  other side's tail, below all its levels; ``foreign="absent"`` counts every priority
  relation of such a document as wrong;
- with ``weights="uniform"`` and a single level there is no priority relation and
  R/S priority are 0 (as SPEC's filtering convention: an empty factor is 0);
- F is the harmonic mean ``2RS/(R+S)`` (0 when both are 0), computed per topic; the
  averages are arithmetic means of the per-topic values.
"""
from __future__ import annotations

import io
import itertools
import json
import math
import os
from typing import (
    Any,
    Collection,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import numpy as np

from irscore import _trec_io
from irscore._inputs import open_text
from irscore.measures import running_mean

__all__ = [
    "Organization",
    "RSResult",
    "reliability_sensitivity",
    "read_organization",
    "filtering_rs",
    "bcubed",
    "extended_bcubed",
    "position_weights",
]

DocId = Union[str, int]
Cluster = Collection[DocId]
Levels = Sequence[Sequence[Cluster]]
OrganizationLike = Union["Organization", Levels, Mapping[Any, Levels]]
PathLike = Union[str, "os.PathLike[str]"]

#: topic name used when an organization is given as plain nested lists
DEFAULT_TOPIC = "1"

RS_MEASURES: Tuple[str, ...] = (
    "R_priority",
    "S_priority",
    "F_priority",
    "R_relatedness",
    "S_relatedness",
    "F_relatedness",
)

_Topic = Tuple[Tuple[Tuple[DocId, ...], ...], ...]


def _kernel() -> Any:
    from irscore import _organization

    return _organization


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------
class RSResult(Dict[str, float]):
    """Mean value of each measure over the topics (a ``dict`` name -> float).

    ``per_topic`` maps each topic to its own ``{name: value}``; measure names are
    also readable as attributes (``result.R_priority``).
    """

    per_topic: Dict[str, Dict[str, float]]

    def __init__(self, means: Mapping[str, float], per_topic: Dict[str, Dict[str, float]]) -> None:
        super().__init__(means)
        self.per_topic = per_topic

    def __getattr__(self, name: str) -> float:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        inner = ", ".join("%s=%.4f" % (k, v) for k, v in self.items())
        return "RSResult(%s; %d topics)" % (inner, len(self.per_topic))


def _harmonic(r: float, s: float) -> float:
    return 2.0 * r * s / (r + s) if (r + s) > 0.0 else 0.0


def _result(topics: Sequence[str], columns: Dict[str, np.ndarray]) -> RSResult:
    per_topic = {
        t: {name: float(col[i]) for name, col in columns.items()} for i, t in enumerate(topics)
    }
    means = {name: running_mean(col) for name, col in columns.items()}  # a running sum, as trec_eval
    return RSResult(means, per_topic)


# ---------------------------------------------------------------------------
# the Organization type
# ---------------------------------------------------------------------------
def _check_doc(doc: Any, where: str) -> DocId:
    if type(doc) is str or type(doc) is int:
        return doc  # type: ignore[no-any-return]
    if isinstance(doc, bool) or not isinstance(doc, (str, int, np.integer)):
        raise TypeError(f"{where}: document ids must be str or int, got {type(doc).__name__} {doc!r}")
    return int(doc) if isinstance(doc, (int, np.integer)) else str(doc)


_PLAIN_TYPES = frozenset((str, int))


def _check_topic(name: str, topic: Any, levels: Any) -> _Topic:
    if isinstance(levels, (str, bytes)) or not isinstance(levels, Sequence):
        raise TypeError(
            f"{name}: topic {topic!r} must be a list of levels (lists of clusters), "
            f"got {type(levels).__name__}"
        )
    if len(levels) == 0:
        raise ValueError(f"{name}: topic {topic!r} is an empty organization (no levels)")
    out: List[Tuple[Tuple[DocId, ...], ...]] = []
    for li, level in enumerate(levels, 1):
        if isinstance(level, (str, bytes)) or not isinstance(level, Sequence):
            raise TypeError(
                f"{name}: topic {topic!r} level {li} must be a list of clusters, "
                f"got {type(level).__name__}"
            )
        if len(level) == 0:
            raise ValueError(f"{name}: topic {topic!r} level {li} is empty")
        clusters: List[Tuple[DocId, ...]] = []
        for ci, cluster in enumerate(level, 1):
            where = f"{name}: topic {topic!r} level {li} cluster {ci}"
            if isinstance(cluster, (str, bytes)) or not isinstance(cluster, Collection):
                raise TypeError(
                    f"{where} must be a collection of document ids, got {type(cluster).__name__} "
                    f"{cluster!r} (write a singleton cluster as [doc])"
                )
            docs = tuple(cluster)
            if not _PLAIN_TYPES.issuperset(map(type, docs)):
                docs = tuple(_check_doc(d, where) for d in docs)
            if not docs:
                raise ValueError(f"{where} is empty")
            if len(set(docs)) != len(docs):
                seen = set()
                for d in docs:
                    if d in seen:
                        raise ValueError(f"{where}: document {d!r} occurs twice in one cluster")
                    seen.add(d)
            clusters.append(docs)
        out.append(tuple(clusters))
    return tuple(out)


def _topic_key(topic: Any, name: str) -> str:
    if isinstance(topic, bool) or not isinstance(topic, (str, int, np.integer)):
        raise TypeError(f"{name}: topic ids must be str or int, got {type(topic).__name__} {topic!r}")
    return str(topic)


def _looks_like_levels(data: Any) -> bool:
    return isinstance(data, Sequence) and not isinstance(data, (str, bytes))


class Organization:
    """Priority levels (top first) of clusters of document ids, per topic.

    ``Organization(levels)`` holds one topic (named ``"1"``, or ``topic=``);
    ``Organization({topic: levels, ...})`` several.  ``levels`` is a list of levels,
    each a list of clusters, each a collection (list, tuple, set) of document ids
    (``str`` or ``int``).  Documents not listed form the long tail.  Empty topics,
    levels or clusters and a document twice in one cluster are errors.
    """

    __slots__ = ("_topics", "_enc", "_key_cache", "_labels", "name")

    def __init__(
        self,
        data: OrganizationLike,
        *,
        topic: Optional[str] = None,
        name: str = "organization",
    ) -> None:
        self.name = name
        self._enc: Optional[Tuple[Any, ...]] = None
        self._key_cache: Optional[Tuple[Any, Any]] = None
        self._labels: Optional[Dict[str, Dict[DocId, int]]] = None
        if isinstance(data, Organization):
            self._topics: Dict[str, _Topic] = dict(data._topics)
            self._labels = data._labels
            return
        if isinstance(data, Mapping):
            if topic is not None:
                raise TypeError(f"{name}: topic= is only for a single organization given as lists")
            if len(data) == 0:
                raise ValueError(f"{name}: no topics")
            self._topics = {}
            for t, levels in data.items():
                key = _topic_key(t, name)
                if key in self._topics:
                    raise ValueError(f"{name}: topic {key!r} given twice")
                self._topics[key] = _check_topic(name, key, levels)
            return
        if _looks_like_levels(data):
            key = DEFAULT_TOPIC if topic is None else _topic_key(topic, name)
            self._topics = {key: _check_topic(name, key, data)}
            return
        raise TypeError(
            f"{name}: expected an Organization, a list of levels or a dict of them per topic, "
            f"got {type(data).__name__}"
        )

    # -- alternative constructors -------------------------------------------
    @classmethod
    def from_clusters(
        cls, data: Union[Sequence[Cluster], Mapping[Any, Sequence[Cluster]]], *, name: str = "clustering"
    ) -> "Organization":
        """A flat clustering (one level): a list of clusters, or a dict of them per topic."""
        if isinstance(data, Mapping):
            return cls({t: [list(cl)] for t, cl in data.items()}, name=name)
        if not _looks_like_levels(data):
            raise TypeError(f"{name}: expected a list of clusters, got {type(data).__name__}")
        return cls([list(data)], name=name)

    @classmethod
    def from_labels(
        cls, data: Union[Mapping[Any, Any], Mapping[Any, Mapping[Any, Any]]], *, name: str = "labels"
    ) -> "Organization":
        """Filtering labels ``{doc: 0|1}`` (or ``{topic: {doc: 0|1}}``).

        Positive documents form level 1, negative ones level 2, each document in its
        own cluster (a level with no document is left out)."""
        if not isinstance(data, Mapping) or not data:
            raise TypeError(f"{name}: expected a non-empty dict {{doc: 0|1}} or {{topic: {{doc: 0|1}}}}")
        first = next(iter(data.values()))
        per_topic = data if isinstance(first, Mapping) else {DEFAULT_TOPIC: data}
        levels: Dict[str, List[List[List[DocId]]]] = {}
        labels: Dict[str, Dict[DocId, int]] = {}
        for t, lab in per_topic.items():
            key = _topic_key(t, name)
            if not isinstance(lab, Mapping) or not lab:
                raise ValueError(f"{name}: topic {key!r} has no labelled document")
            lab2 = {}
            for d, v in lab.items():
                doc = _check_doc(d, f"{name}: topic {key!r}")
                lab2[doc] = _check_label(v, f"{name}: topic {key!r} document {doc!r}")
            pos = [[d] for d, v in lab2.items() if v == 1]
            neg = [[d] for d, v in lab2.items() if v == 0]
            levels[key] = [lv for lv in (pos, neg) if lv]
            labels[key] = lab2
        org = cls(levels, name=name)
        org._labels = labels
        return org

    # -- access ----------------------------------------------------------------
    @property
    def topics(self) -> List[str]:
        """Topic ids, in input order."""
        return list(self._topics)

    def __getitem__(self, topic: str) -> _Topic:
        return self._topics[topic]

    def __contains__(self, topic: object) -> bool:
        return topic in self._topics

    def __iter__(self) -> Iterator[str]:
        return iter(self._topics)

    def __len__(self) -> int:
        return len(self._topics)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Organization) and self._topics == other._topics

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        n = sum(len(cl) for lv in self._topics.values() for lev in lv for cl in lev)
        return f"Organization({len(self._topics)} topics, {n} occurrences)"

    def to_dict(self) -> Dict[str, List[List[List[DocId]]]]:
        """``{topic: [[[doc, ...], ...], ...]}`` (the JSON layout)."""
        return {t: [[list(cl) for cl in lev] for lev in lv] for t, lv in self._topics.items()}

    def n_occurrences(self, topic: str) -> int:
        return sum(len(cl) for lev in self._topics[topic] for cl in lev)

    # -- encoding for the kernels -----------------------------------------------
    def _encoded(self) -> Tuple[Dict[str, int], np.ndarray, np.ndarray, np.ndarray, np.ndarray, Dict[DocId, int], List[DocId]]:
        if self._enc is None:
            all_docs: List[DocId] = []
            extend = all_docs.extend
            sizes: List[int] = []
            cl_level: List[int] = []
            cl_first: List[int] = []  # per cluster: global index of its topic's first cluster
            ptr = [0]
            index: Dict[str, int] = {}
            for ti, (t, lv) in enumerate(self._topics.items()):
                index[t] = ti
                first = len(sizes)
                for li, lev in enumerate(lv):
                    for cl in lev:
                        extend(cl)
                    sizes.extend(map(len, lev))
                    cl_level.extend([li] * len(lev))
                cl_first.extend([first] * (len(sizes) - first))
                ptr.append(len(all_docs))
            vocab: Dict[DocId, int] = dict(zip(dict.fromkeys(all_docs), itertools.count()))
            codes = np.array(list(map(vocab.__getitem__, all_docs)), dtype=np.int32)
            size_arr = np.asarray(sizes, dtype=np.int64)
            local_cluster = np.arange(len(sizes), dtype=np.int64) - np.asarray(cl_first, dtype=np.int64)
            self._enc = (
                index,
                np.asarray(ptr, dtype=np.int64),
                codes.reshape(-1),
                np.repeat(np.asarray(cl_level, dtype=np.int32), size_arr),
                np.repeat(local_cluster.astype(np.int32), size_arr),
                vocab,
                list(vocab),
            )
        return self._enc  # type: ignore[return-value]

    def _keys(self) -> Tuple[Tuple[np.ndarray, np.ndarray, np.ndarray], "_trec_io.KeyIndex"]:
        """The vocabulary as a byte column (tagged UTF-8, hashes) and a hash index
        over it: aligning two organizations' documents is then one native pass."""
        if self._key_cache is None:
            cols = _trec_io.encode_keys(self._encoded()[6])
            self._key_cache = (cols, _trec_io.KeyIndex(*cols))
        return self._key_cache


def _check_label(v: Any, where: str) -> int:
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)) and int(v) in (0, 1):
        return int(v)
    if isinstance(v, str) and v.strip() in ("0", "1"):
        return int(v.strip())
    raise ValueError(f"{where}: label must be 0 or 1, got {v!r}")


def _as_org(x: Any, name: str) -> Organization:
    if isinstance(x, Organization):
        return x
    return Organization(x, name=name)


# ---------------------------------------------------------------------------
# pairing gold and system for the kernels
# ---------------------------------------------------------------------------
def _aligned_topics(gold: Organization, system: Organization) -> List[str]:
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


def _pair_arrays(gold: Organization, system: Organization, topics: Sequence[str]) -> Tuple[Any, ...]:
    genc = gold._encoded()
    senc = system._encoded()
    g_ptr, g_doc, g_lev, g_cl = _reorder(genc, topics)
    s_ptr, s_doc, s_lev, s_cl = _reorder(senc, topics)
    gvocab: Dict[DocId, int] = genc[5]
    svocab_list: List[DocId] = senc[6]
    trans = gold._keys()[1].lookup(*system._keys()[0], -1)
    missing = trans < 0
    n_docs = len(gvocab) + int(missing.sum())
    trans[missing] = np.arange(len(gvocab), n_docs, dtype=np.int64)
    s_doc = trans[s_doc].astype(np.int32) if len(s_doc) else s_doc
    if n_docs >= 2**31 - 1:
        raise ValueError("too many distinct documents (at most 2**31 - 2)")
    return (g_ptr, g_doc, g_lev, g_cl, s_ptr, s_doc, s_lev, s_cl, n_docs)


# ---------------------------------------------------------------------------
# parameters
# ---------------------------------------------------------------------------
def _weight_constant(n: Any, w_n: Any) -> float:
    if isinstance(n, bool) or not isinstance(n, (int, float, np.integer, np.floating)):
        raise TypeError(f"n must be a number >= 1, got {type(n).__name__} {n!r}")
    if isinstance(w_n, bool) or not isinstance(w_n, (int, float, np.integer, np.floating)):
        raise TypeError(f"w_n must be a number in (0, 1), got {type(w_n).__name__} {w_n!r}")
    n = float(n)
    w_n = float(w_n)
    if not (n >= 1.0) or math.isinf(n):
        raise ValueError(f"n must be >= 1 (the first n occurrences carry w_n of the weight), got {n!r}")
    if not (0.0 < w_n < 1.0):
        raise ValueError(f"w_n must lie strictly between 0 and 1, got {w_n!r}")
    return (1.0 - w_n) * n / w_n


def position_weights(k: int, n: float = 10, w_n: float = 0.8) -> np.ndarray:
    """Weights of the first ``k`` positions of a ranking (one occurrence per level).

    ``c = (1 - w_n) n / w_n`` and position ``i`` weighs ``c (1/(c+i-1) - 1/(c+i))``:
    the first ``n`` positions sum to ``w_n``."""
    c = _weight_constant(n, w_n)
    i = np.arange(1, int(k) + 1, dtype=np.float64)
    return c * (1.0 / (c + i - 1.0) - 1.0 / (c + i))


# ---------------------------------------------------------------------------
# Reliability & Sensitivity
# ---------------------------------------------------------------------------
def reliability_sensitivity(
    gold: OrganizationLike,
    system: OrganizationLike,
    *,
    n: float = 10,
    w_n: float = 0.8,
    weights: str = "ranking",
    foreign: str = "tail",
) -> RSResult:
    """Reliability, Sensitivity and their F for priority and relatedness relations.

    ``gold`` and ``system`` are :class:`Organization` objects, or plain nested lists
    (levels -> clusters -> document ids, one topic) or dicts of those per topic; both
    sides must have the same topics.  ``n``/``w_n``: the first ``n`` occurrences carry
    the fraction ``w_n`` of the weight (``weights="ranking"``, default n=10,
    w_n=0.8 as the paper's Table 9).  ``weights="uniform"``: every occurrence weighs
    1/|occ| and there is no long tail (filtering, flat clustering).
    ``foreign="tail"`` places a document listed on one side only in the other side's
    tail; ``foreign="absent"`` counts its priority relations wrong.

    Returns an :class:`RSResult`: the means of ``R_priority``, ``S_priority``,
    ``F_priority``, ``R_relatedness``, ``S_relatedness``, ``F_relatedness`` over the
    topics, and ``per_topic`` values.
    """
    if weights not in ("ranking", "uniform"):
        raise ValueError(f"weights must be 'ranking' or 'uniform', got {weights!r}")
    if foreign not in ("tail", "absent"):
        raise ValueError(f"foreign must be 'tail' or 'absent', got {foreign!r}")
    uniform = weights == "uniform"
    c = _weight_constant(n, w_n)
    g = _as_org(gold, "gold")
    s = _as_org(system, "system")
    topics = _aligned_topics(g, s)
    g_ptr, g_doc, g_lev, g_cl, s_ptr, s_doc, s_lev, s_cl, n_docs = _pair_arrays(g, s, topics)
    nt = len(topics)
    k = _kernel()
    r_pr = np.zeros(nt)
    r_re = np.zeros(nt)
    s_pr = np.zeros(nt)
    s_re = np.zeros(nt)
    tail = foreign == "tail"
    k.rs_side(s_ptr, s_doc, s_lev, s_cl, g_ptr, g_doc, g_lev, g_cl, n_docs, c, uniform, tail, r_pr, r_re)
    k.rs_side(g_ptr, g_doc, g_lev, g_cl, s_ptr, s_doc, s_lev, s_cl, n_docs, c, uniform, tail, s_pr, s_re)
    f_pr = _harmonic_arr(r_pr, s_pr)
    f_re = _harmonic_arr(r_re, s_re)
    return _result(
        topics,
        {
            "R_priority": r_pr,
            "S_priority": s_pr,
            "F_priority": f_pr,
            "R_relatedness": r_re,
            "S_relatedness": s_re,
            "F_relatedness": f_re,
        },
    )


def _harmonic_arr(r: np.ndarray, s: np.ndarray) -> np.ndarray:
    den = r + s
    out = np.zeros_like(r)
    ok = den > 0
    out[ok] = 2.0 * r[ok] * s[ok] / den[ok]
    return out


# ---------------------------------------------------------------------------
# filtering (closed form)
# ---------------------------------------------------------------------------
def _labels_per_topic(x: Any, name: str) -> Dict[str, Dict[DocId, int]]:
    if isinstance(x, Organization):
        if x._labels is not None:
            return x._labels
        out: Dict[str, Dict[DocId, int]] = {}
        for t in x.topics:
            lv = x[t]
            if len(lv) > 2 or any(len(cl) != 1 for lev in lv for cl in lev):
                raise ValueError(
                    f"{name}: topic {t!r} is not a filtering output (at most two levels of "
                    f"singleton clusters)"
                )
            if len(lv) == 1:
                raise ValueError(
                    f"{name}: topic {t!r} has a single level; build it with "
                    f"Organization.from_labels so that positive and negative are known"
                )
            lab: Dict[DocId, int] = {}
            for li, lev in enumerate(lv):
                for (d,) in lev:
                    if d in lab:
                        raise ValueError(f"{name}: topic {t!r} document {d!r} is listed twice")
                    lab[d] = 1 if li == 0 else 0
            out[t] = lab
        return out
    if isinstance(x, Mapping):
        if not x:
            raise ValueError(f"{name}: no labels")
        first = next(iter(x.values()))
        if isinstance(first, Mapping):
            return Organization.from_labels(x, name=name)._labels  # type: ignore[return-value]
        return Organization.from_labels({DEFAULT_TOPIC: x}, name=name)._labels  # type: ignore[return-value]
    if isinstance(x, (Sequence, np.ndarray)) and not isinstance(x, (str, bytes)):
        arr = list(x)
        if not arr:
            raise ValueError(f"{name}: no labels")
        return {DEFAULT_TOPIC: {i: _check_label(v, f"{name}: position {i}") for i, v in enumerate(arr)}}
    raise TypeError(f"{name}: expected labels {{doc: 0|1}}, a 0/1 sequence or an Organization, got {type(x).__name__}")


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else 0.0


def filtering_rs(gold: Any, system: Any) -> RSResult:
    """Reliability and Sensitivity of a binary filtering output (closed form).

    R = TP/(TP+FP) * TN/(TN+FN) and S = TP/(TP+FN) * TN/(TN+FP), a factor with an
    empty denominator counting 0; F = 2RS/(R+S).  This equals the generic measure
    with uniform weights on two levels of singletons.  ``gold``/``system``:
    ``{doc: 0|1}``, ``{topic: {doc: 0|1}}``, two aligned 0/1 sequences, or
    organizations read with ``format="labels"``.  Both sides must label the same
    documents.  Returns an :class:`RSResult` with keys ``R``, ``S``, ``F``.
    """
    g = _labels_per_topic(gold, "gold")
    s = _labels_per_topic(system, "system")
    only_s = [t for t in s if t not in g]
    if only_s:
        raise ValueError(f"system: unknown topic(s) not in the gold standard: {', '.join(map(repr, only_s[:5]))}")
    only_g = [t for t in g if t not in s]
    if only_g:
        raise ValueError(f"system: no labels for gold topic(s) {', '.join(map(repr, only_g[:5]))}")
    topics = list(g)
    R = np.zeros(len(topics))
    S = np.zeros(len(topics))
    for i, t in enumerate(topics):
        gt, st = g[t], s[t]
        for d in st:
            if d not in gt:
                raise ValueError(f"system: topic {t!r} document {d!r} has no gold label")
        tp = fp = fn = tn = 0
        for d, gl in gt.items():
            if d not in st:
                raise ValueError(f"system: topic {t!r} document {d!r} is not labelled")
            sl = st[d]
            if sl and gl:
                tp += 1
            elif sl:
                fp += 1
            elif gl:
                fn += 1
            else:
                tn += 1
        R[i] = _ratio(tp, tp + fp) * _ratio(tn, tn + fn)
        S[i] = _ratio(tp, tp + fn) * _ratio(tn, tn + fp)
    return _result(topics, {"R": R, "S": S, "F": _harmonic_arr(R, S)})


# ---------------------------------------------------------------------------
# clustering: BCubed
# ---------------------------------------------------------------------------
def _as_clustering(x: Any, name: str) -> Organization:
    if isinstance(x, Organization):
        # levels are ignored: every cluster of every level, in one level
        return Organization({t: [[cl for lev in lv for cl in lev]] for t, lv in x._topics.items()}, name=name)
    if isinstance(x, Mapping) and x and all(isinstance(v, (set, frozenset)) for v in x.values()):
        # the bcubed package's layout: {item: set of cluster labels}
        clusters: Dict[Any, List[DocId]] = {}
        for d, labels in x.items():
            doc = _check_doc(d, name)
            if not labels:
                raise ValueError(f"{name}: document {doc!r} has no cluster")
            for lab in labels:
                clusters.setdefault(lab, []).append(doc)
        return Organization.from_clusters(list(clusters.values()), name=name)
    return Organization.from_clusters(x, name=name)


def _same_documents(g: Organization, s: Organization, topics: Sequence[str]) -> None:
    for t in topics:
        gd = {d for lev in g[t] for cl in lev for d in cl}
        sd = {d for lev in s[t] for cl in lev for d in cl}
        if gd != sd:
            extra = sorted(map(repr, sd - gd))[:3]
            if extra:
                raise ValueError(f"system: topic {t!r} document {extra[0]} is not in the gold clustering")
            missing = sorted(map(repr, gd - sd))[:3]
            raise ValueError(f"system: topic {t!r} document {missing[0]} of the gold clustering is not clustered")


def _clusterings(gold: Any, system: Any) -> Tuple[List[str], Tuple[Any, ...]]:
    """Both flat clusterings as aligned kernel arrays (same documents required)."""
    g = _as_clustering(gold, "gold")
    s = _as_clustering(system, "system")
    topics = _aligned_topics(g, s)
    _same_documents(g, s, topics)
    return topics, _pair_arrays(g, s, topics)


def bcubed(gold: Any, system: Any) -> RSResult:
    """BCubed precision, recall and F of a flat clustering.

    ``gold``/``system``: a list of clusters (collections of document ids), a dict of
    them per topic, the ``bcubed`` package's ``{item: set of cluster labels}``, or an
    :class:`Organization` (all clusters of all levels).  Both
    sides must cluster the same documents.  Without overlap this is the classic
    BCubed (Bagga & Baldwin); with overlapping clusters it is the paper's
    per-occurrence variant (each membership counts as a separate item) — i.e.
    Reliability/Sensitivity of relatedness with uniform weights.  For Amigó et al.
    2009's extended BCubed see :func:`extended_bcubed`.  Keys: ``precision``,
    ``recall``, ``F``.
    """
    topics, (g_ptr, g_doc, g_lev, g_cl, s_ptr, s_doc, s_lev, s_cl, n_docs) = _clusterings(gold, system)
    nt = len(topics)
    k = _kernel()
    pr = np.zeros(nt)
    P = np.zeros(nt)
    R = np.zeros(nt)
    k.rs_side(s_ptr, s_doc, s_lev, s_cl, g_ptr, g_doc, g_lev, g_cl, n_docs, 1.0, True, True, pr, P)
    k.rs_side(g_ptr, g_doc, g_lev, g_cl, s_ptr, s_doc, s_lev, s_cl, n_docs, 1.0, True, True, pr, R)
    return _result(topics, {"precision": P, "recall": R, "F": _harmonic_arr(P, R)})


def extended_bcubed(gold: Any, system: Any) -> RSResult:
    """Extended BCubed (Amigó, Gonzalo, Artiles, Verdejo 2009) for overlapping clusterings.

    P = avg_d avg_{e sharing a cluster with d} min(|C(d)&C(e)|, |L(d)&L(e)|) / |C(d)&C(e)|
    (C: system clusters, L: gold classes; e includes d itself), recall symmetric.
    Same inputs as :func:`bcubed`.  Keys: ``precision``, ``recall``, ``F``.
    """
    topics, (g_ptr, g_doc, g_lev, g_cl, s_ptr, s_doc, s_lev, s_cl, n_docs) = _clusterings(gold, system)
    nt = len(topics)
    k = _kernel()
    P = np.zeros(nt)
    R = np.zeros(nt)
    k.extended_bcubed_side(s_ptr, s_doc, s_cl, g_ptr, g_doc, g_cl, n_docs, P)
    k.extended_bcubed_side(g_ptr, g_doc, g_cl, s_ptr, s_doc, s_cl, n_docs, R)
    return _result(topics, {"precision": P, "recall": R, "F": _harmonic_arr(P, R)})


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------
_FORMATS = ("auto", "tsv", "json", "clusters", "labels")


def _open_text(path: PathLike) -> io.TextIOBase:
    return open_text(path, "organization")


def _fields(line: str) -> List[str]:
    return line.rstrip("\r\n").split("\t") if "\t" in line else line.split()


def _data_lines(path: PathLike) -> Iterator[Tuple[int, List[str]]]:
    with _open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            yield lineno, [f.strip() for f in _fields(line)]


def read_organization(path: PathLike, format: str = "auto", *, name: Optional[str] = None) -> Organization:
    """Read an organization file.

    Formats: ``tsv`` — ``topic<TAB>level<TAB>cluster<TAB>doc``, one line per
    occurrence, level 1 = highest priority (levels are ordered numerically, gaps are
    closed; cluster ids are scoped by topic and level); ``json`` —
    ``{topic: [[[doc, ...], ...], ...]}``; ``clusters`` — flat clustering
    ``topic cluster doc``; ``labels`` — filtering labels ``topic doc 0|1``.  ``auto``
    picks json for ``.json`` files or text starting with ``{``, tsv for 4 columns;
    3-column files need an explicit ``clusters`` or ``labels``.  Fields are
    tab-separated (whitespace if a line has no tab); blank lines and ``#`` comments
    are skipped.  Errors name the file and line.  ``name``: the result's ``.name``
    (default: the path).
    """
    if format not in _FORMATS:
        raise ValueError(f"format must be one of {', '.join(_FORMATS)}, got {format!r}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    p = os.fspath(path)
    if format == "auto":
        format = _detect(p)
    reader = {"json": _read_json, "tsv": _read_tsv, "clusters": _read_clusters}.get(format, _read_labels)
    org = reader(p, p)  # errors name the file
    if name is not None:
        org.name = name
    return org


def _detect(p: str) -> str:
    if p.endswith(".json") or p.endswith(".json.gz"):
        return "json"
    with _open_text(p) as fh:
        head = fh.read(4096)
    if head.lstrip().startswith("{"):
        return "json"
    for lineno, f in _data_lines(p):
        if len(f) == 4:
            return "tsv"
        if len(f) == 3:
            raise ValueError(
                f"{p}:{lineno}: 3 columns: pass format='clusters' (topic cluster doc; CLI --format clusters) "
                f"or format='labels' (topic doc 0|1; CLI --format labels)"
            )
        raise ValueError(f"{p}:{lineno}: expected 4 fields topic<TAB>level<TAB>cluster<TAB>doc, got {len(f)}")
    raise ValueError(f"{p}: no data lines")


def _read_json(p: str, label: str) -> Organization:
    with _open_text(p) as fh:
        try:
            data = json.load(fh)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{p}:{exc.lineno}: invalid JSON: {exc.msg}") from None
        except RecursionError:
            raise ValueError(f"{p}: JSON nested too deeply (an organization has 3 levels: "
                             "topic -> levels -> clusters -> documents)") from None
    if not isinstance(data, dict):
        raise ValueError(f"{p}:1: expected a JSON object {{topic: [[[doc, ...], ...], ...]}}")
    try:
        return Organization(data, name=p)
    except (ValueError, TypeError) as exc:
        raise ValueError(str(exc)) from None


def _read_tsv(p: str, label: str) -> Organization:
    # topic -> level number -> cluster id -> docs (insertion ordered)
    tree: Dict[str, Dict[int, Dict[str, List[str]]]] = {}
    seen: Dict[Tuple[str, int, str, str], int] = {}
    for lineno, f in _data_lines(p):
        if len(f) != 4:
            raise ValueError(f"{p}:{lineno}: expected 4 fields topic<TAB>level<TAB>cluster<TAB>doc, got {len(f)}")
        topic, lev, cl, doc = f
        try:
            lv = int(lev)
        except ValueError:
            raise ValueError(f"{p}:{lineno}: level must be an integer >= 1, got {lev!r}") from None
        if lv < 1:
            raise ValueError(f"{p}:{lineno}: level must be an integer >= 1, got {lev!r}")
        if not topic or not cl or not doc:
            raise ValueError(f"{p}:{lineno}: empty field")
        key = (topic, lv, cl, doc)
        if key in seen:
            raise ValueError(
                f"{p}:{lineno}: topic {topic!r} level {lv} cluster {cl!r}: document {doc!r} occurs "
                f"twice in one cluster (first at line {seen[key]})"
            )
        seen[key] = lineno
        tree.setdefault(topic, {}).setdefault(lv, {}).setdefault(cl, []).append(doc)
    if not tree:
        raise ValueError(f"{p}: no data lines")
    return Organization(
        {t: [list(levs[k].values()) for k in sorted(levs)] for t, levs in tree.items()}, name=p
    )


def _read_clusters(p: str, label: str) -> Organization:
    tree: Dict[str, Dict[str, List[str]]] = {}
    seen: Dict[Tuple[str, str, str], int] = {}
    for lineno, f in _data_lines(p):
        if len(f) != 3:
            raise ValueError(f"{p}:{lineno}: expected 3 fields topic cluster doc, got {len(f)}")
        topic, cl, doc = f
        key = (topic, cl, doc)
        if key in seen:
            raise ValueError(
                f"{p}:{lineno}: topic {topic!r} cluster {cl!r}: document {doc!r} occurs twice "
                f"(first at line {seen[key]})"
            )
        seen[key] = lineno
        tree.setdefault(topic, {}).setdefault(cl, []).append(doc)
    if not tree:
        raise ValueError(f"{p}: no data lines")
    return Organization({t: [list(cls.values())] for t, cls in tree.items()}, name=p)


def _read_labels(p: str, label: str) -> Organization:
    tree: Dict[str, Dict[str, int]] = {}
    seen: Dict[Tuple[str, str], int] = {}
    for lineno, f in _data_lines(p):
        if len(f) != 3:
            raise ValueError(f"{p}:{lineno}: expected 3 fields topic doc 0|1, got {len(f)}")
        topic, doc, v = f
        if v not in ("0", "1"):
            raise ValueError(f"{p}:{lineno}: label must be 0 or 1, got {v!r}")
        if (topic, doc) in seen:
            raise ValueError(
                f"{p}:{lineno}: topic {topic!r} document {doc!r} labelled twice (first at line {seen[(topic, doc)]})"
            )
        seen[(topic, doc)] = lineno
        tree.setdefault(topic, {})[doc] = int(v)
    if not tree:
        raise ValueError(f"{p}: no data lines")
    return Organization.from_labels(tree, name=p)
