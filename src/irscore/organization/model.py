"""Document organizations: [`Organization`][irscore.organization.model.Organization] (priority levels of clusters per topic),
its checks, and the result type [`RSResult`][irscore.organization.model.RSResult]."""
from __future__ import annotations

import os
from typing import Any, Collection, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from irscore import _trec_io
from irscore.core.aggregate import running_mean

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


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------
class RSResult(Dict[str, float]):
    """Mean value of each measure over the topics (a ``dict`` name -> float).

    ``per_query`` maps each topic to its own ``{name: value}``; measure names are
    also readable as attributes (``result.R_priority``).

    Parameters
    ----------
    means : mapping of str to float
        Mean value of each measure over the topics.
    per_query : dict
        ``{topic: {measure: value}}``.

    Attributes
    ----------
    per_query : dict
        ``{topic: {measure: value}}``.
    """

    per_query: Dict[str, Dict[str, float]]

    def __init__(self, means: Mapping[str, float], per_query: Dict[str, Dict[str, float]]) -> None:
        super().__init__(means)
        self.per_query = per_query

    def __getattr__(self, name: str) -> float:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        inner = ", ".join("%s=%.4f" % (k, v) for k, v in self.items())
        n = len(self.per_query)
        return "RSResult(%s; %d topic%s)" % (inner, n, "" if n == 1 else "s")


def rs_result(topics: Sequence[str], columns: Dict[str, np.ndarray]) -> RSResult:
    per_topic = {
        t: {name: float(col[i]) for name, col in columns.items()} for i, t in enumerate(topics)
    }
    means = {name: running_mean(col) for name, col in columns.items()}  # a running sum, as trec_eval
    return RSResult(means, per_topic)


# ---------------------------------------------------------------------------
# the Organization type
# ---------------------------------------------------------------------------
def check_doc(doc: Any, where: str) -> DocId:
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
                docs = tuple(check_doc(d, where) for d in docs)
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

    Parameters
    ----------
    data : nested lists or mapping
        Levels of clusters of document ids (one topic), or ``{topic: levels}``.
    topic : str, optional
        The topic name of plain nested lists (default ``"1"``).
    name : str
        A label used in messages.

    Raises
    ------
    ValueError, TypeError
        Malformed levels, clusters or document ids.
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
                doc = check_doc(d, f"{name}: topic {key!r}")
                lab2[doc] = check_label(v, f"{name}: topic {key!r} document {doc!r}")
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
        t = len(self._topics)
        return f"Organization({t} topic{'' if t == 1 else 's'}, {n} occurrence{'' if n == 1 else 's'})"

    def to_dict(self) -> Dict[str, List[List[List[DocId]]]]:
        """``{topic: [[[doc, ...], ...], ...]}`` (the JSON layout)."""
        return {t: [[list(cl) for cl in lev] for lev in lv] for t, lv in self._topics.items()}

    # -- encoding for the kernels -----------------------------------------------
    def _encoded(self) -> Tuple[Dict[str, int], np.ndarray, np.ndarray, np.ndarray, np.ndarray, int,
                                Tuple[np.ndarray, np.ndarray, np.ndarray]]:
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
            # the documents' codes in order of first appearance, natively (one pass
            # over the ids' bytes instead of three dict operations per occurrence)
            buf, off, hashes = _trec_io.encode_keys(all_docs)
            codes, seen = _trec_io.intern_keys(buf, off, hashes)
            # the distinct documents' encoded keys, in code order (for _keys)
            lens = off[seen + 1] - off[seen]
            uoff = np.zeros(len(seen) + 1, dtype=np.int64)
            np.cumsum(lens, out=uoff[1:])
            ubuf = buf[np.repeat(off[seen] - uoff[:-1], lens) + np.arange(uoff[-1], dtype=np.int64)]
            size_arr = np.asarray(sizes, dtype=np.int64)
            local_cluster = np.arange(len(sizes), dtype=np.int64) - np.asarray(cl_first, dtype=np.int64)
            self._enc = (
                index,
                np.asarray(ptr, dtype=np.int64),
                codes,
                np.repeat(np.asarray(cl_level, dtype=np.int32), size_arr),
                np.repeat(local_cluster.astype(np.int32), size_arr),
                len(seen),
                (ubuf, uoff, hashes[seen]),
            )
        return self._enc  # type: ignore[return-value]

    def _keys(self) -> Tuple[Tuple[np.ndarray, np.ndarray, np.ndarray], "_trec_io.KeyIndex"]:
        """The vocabulary as a byte column (tagged UTF-8, hashes) and a hash index
        over it: aligning two organizations' documents is then one native pass."""
        if self._key_cache is None:
            cols = self._encoded()[6]
            self._key_cache = (cols, _trec_io.KeyIndex(*cols))
        return self._key_cache


def check_label(v: Any, where: str) -> int:
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)) and int(v) in (0, 1):
        return int(v)
    if isinstance(v, str) and v.strip() in ("0", "1"):
        return int(v.strip())
    raise ValueError(f"{where}: label must be 0 or 1, got {v!r}")


def as_org(x: Any, name: str) -> Organization:
    if isinstance(x, Organization):
        return x
    return Organization(x, name=name)
