"""The encoder of nested dicts (``_dicts.encode_sorted``): its columns, and
values whose conversion mutates the dicts being walked (a clean RuntimeError,
or every key exactly once)."""
import numpy as np
import pytest

from irscore import _dicts, _trec_io

# the dict encoder (``_dicts``)
ENCODERS = [_dicts.encode_sorted]


class _ClearsDict:
    """A value whose conversion empties the dict that holds it (freeing the
    keys the encoder had borrowed)."""

    def __init__(self, d):
        self.d = d

    def __float__(self):
        self.d.clear()
        return 1.0

    def __index__(self):
        self.d.clear()
        return 1

    __int__ = __index__


@pytest.mark.parametrize("encode", ENCODERS)
@pytest.mark.parametrize("is_run", [True, False])
def test_encode_sorted_value_that_clears_its_dict(is_run, encode):
    for i in range(50):
        docs = {}
        docs["doc-" + "x" * 60 + str(i)] = _ClearsDict(docs)
        docs["other-" + str(i)] = 2.0 if is_run else 1
        with pytest.raises(RuntimeError, match="changed size"):
            encode({"q": docs}, is_run)


@pytest.mark.parametrize("is_run", [True, False])
def test_encode_sorted_value_that_grows_its_dict(is_run):
    """A conversion that adds entries to the dict being walked: the preallocated
    block of the query must not be overrun."""
    class Grows:
        def __init__(self, d):
            self.d = d

        def __float__(self):
            for j in range(100):
                self.d[f"n{j}"] = 1.0 if is_run else 1
            return 1.0

        __index__ = __int__ = lambda self: int(self.__float__())

    for i in range(20):
        docs = {}
        docs["a" + str(i)] = 2.0 if is_run else 1
        docs["doc" + str(i)] = Grows(docs)
        with pytest.raises(RuntimeError, match="changed size"):
            _dicts.encode_sorted({"q": docs, "p": {"x": 1.0}}, is_run)


@pytest.mark.parametrize("is_run", [True, False])
def test_encode_sorted_value_that_reorders_its_dict_keeps_every_key_once(is_run):
    """A conversion that re-inserts a key and forces a resize, leaving the size as
    it was (found in review: the walk then gave one id twice and skipped another,
    and the run was still marked unique)."""
    seen = []

    class Value(float):
        def __float__(self):
            self._mutate()
            return float.__float__(self)

        def __index__(self):
            self._mutate()
            return int(float.__float__(self))

        __int__ = __index__

        def _mutate(self):
            if not seen:
                seen.append(1)
                d = data["q"]
                d["a"] = d.pop("a")
                for i in range(64):
                    d[f"bulk{i}"] = 0
                for i in range(64):
                    del d[f"bulk{i}"]

    one = (lambda v: float(v)) if is_run else (lambda v: int(v))
    data = {"q": {"a": one(3), "b": Value(2.0), "c": one(1), "d": one(0)}}
    enc = _dicts.encode_sorted(data, is_run)
    buf = enc["doc_buf"].tobytes()
    docs = [buf[s:s + n].decode() for s, n in zip(enc["doc_start"].tolist(), enc["doc_len"].tolist())]
    assert seen and sorted(docs) == ["a", "b", "c", "d"]
    values = dict(zip(docs, (enc["scores"] if is_run else enc["grades"]).tolist()))
    assert values == {"a": 3, "b": 2, "c": 1, "d": 0}


def test_encode_sorted_random_mutations_never_repeat_a_key():
    """Conversions that mutate the dicts at random: a clean RuntimeError, or every
    key of a query exactly once with its value."""
    rng = np.random.default_rng(7)
    outcomes = {"error": 0, "ok": 0}
    for case in range(300):
        data = {}

        class Value(float):
            def __float__(self):
                d = data[rng.choice(sorted(data))]
                op = rng.integers(4)
                keys = list(d)
                if op == 0 and keys:
                    k = keys[rng.integers(len(keys))]
                    d[k] = d.pop(k)
                elif op == 1:
                    for i in range(int(rng.integers(1, 80))):
                        d[f"t{i}"] = 0.5
                    for i in range(int(rng.integers(0, 80))):
                        d.pop(f"t{i}", None)
                elif op == 2 and keys:
                    del d[keys[rng.integers(len(keys))]]
                return float.__float__(self)

        for q in range(int(rng.integers(1, 4))):
            data[f"q{q}"] = {f"d{j}": (Value(j) if rng.random() < 0.2 else float(j))
                             for j in range(int(rng.integers(1, 30)))}
        try:
            enc = _dicts.encode_sorted(data, True)
        except RuntimeError as e:
            assert "changed size" in str(e)
            outcomes["error"] += 1
            continue
        outcomes["ok"] += 1
        buf = enc["doc_buf"].tobytes()
        off = enc["offsets"].tolist()
        for qi in range(len(enc["query_ids"])):
            docs = [buf[s:s + n].decode() for s, n in zip(enc["doc_start"][off[qi]:off[qi + 1]].tolist(),
                                                          enc["doc_len"][off[qi]:off[qi + 1]].tolist())]
            assert len(docs) == len(set(docs))
            for d, v in zip(docs, enc["scores"][off[qi]:off[qi + 1]].tolist()):
                assert d.startswith("t") and v == 0.5 or float(d[1:]) == v
    assert outcomes["error"] and outcomes["ok"]


def test_encode_sorted_columns():
    """Queries in byte order, each run block in trec order (score desc, doc id
    desc), judgments in dict order, ids as UTF-8 spans."""
    enc = _dicts.encode_sorted({"q2": {"b": 1.0, "a": 1.0, "c": 3.0}, "q10": {"é": 0.5}, "q0": {}}, True)
    assert enc["query_ids"] == ["q10", "q2"]
    assert enc["offsets"].tolist() == [0, 1, 4]
    buf = enc["doc_buf"].tobytes()
    docs = [buf[s:s + n].decode() for s, n in zip(enc["doc_start"].tolist(), enc["doc_len"].tolist())]
    assert docs == ["é", "c", "b", "a"] and enc["scores"].tolist() == [0.5, 3.0, 1.0, 1.0]
    assert enc["doc_hash"].tolist() == _trec_io.hash_strings(docs).tolist()
    q = _dicts.encode_sorted({"b": {"y": 2, "x": -1}, "a": {"z": 0}}, False, "qrels")
    assert q["query_ids"] == ["a", "b"] and q["grades"].tolist() == [0, 2, -1]


@pytest.mark.parametrize("encode", ENCODERS)
def test_encode_sorted_value_that_grows_another_query(encode):
    later = {"a": 1.0}

    class Grows:
        def __float__(self):
            for j in range(100):
                later[f"n{j}"] = 1.0
            return 1.0

    with pytest.raises(RuntimeError, match="changed size"):
        encode({"q1": {"x": Grows()}, "q2": later}, True)
