"""The order of equal scores in :func:`irscore.evaluate` and :func:`irscore.compare`
(``ties=``): ``"trec"`` (the default, trec_eval's: score descending, then doc id
descending) or ``"input"`` (score descending, equal scores in the order of the
dict's items, the frame's rows or the file's lines), on every input path.

The reference of ``"input"`` is written here from BEIR's and
sentence-transformers' documented ranking: Python's stable
``sorted(items, key=score, reverse=True)`` of a query's ``{doc: score}`` items.
"""
from __future__ import annotations

import random
from typing import Dict, List, Tuple

import numpy as np
import pytest

import irscore
from irscore.core import io as core_io
from irscore.core.data import Run

Dicts = Tuple[Dict[str, Dict[str, int]], Dict[str, Dict[str, float]]]


def tied_dicts(seed: int, n_queries: int) -> Dicts:
    """Binary qrels; runs of 1..25 documents whose scores take 3 values (many
    ties), the documents inserted in random order."""
    rng = random.Random(seed)
    qrels: Dict[str, Dict[str, int]] = {}
    run: Dict[str, Dict[str, float]] = {}
    for qi in range(n_queries):
        qid = f"q{qi}"
        docs = [f"d{j:02d}" for j in range(rng.randint(1, 25))]
        qrels[qid] = {d: rng.randint(0, 1) for d in rng.sample(docs, rng.randint(1, len(docs)))}
        ret = rng.sample(docs, rng.randint(1, len(docs)))
        run[qid] = {d: float(rng.randint(0, 2)) for d in ret}
    return qrels, run


def stable_ranking(docs: Dict[str, float]) -> List[str]:
    """BEIR's / sentence-transformers' ranking: Python's stable sort by score, descending."""
    return [d for d, _ in sorted(docs.items(), key=lambda item: item[1], reverse=True)]


def reference(qrels: Dict[str, Dict[str, int]], run: Dict[str, Dict[str, float]], k: int
              ) -> Dict[str, Dict[str, float]]:
    """MRR@k, P@k and AP (over R) per query, from the stable ranking (binary relevance)."""
    out: Dict[str, Dict[str, float]] = {"RR@%d" % k: {}, "P@%d" % k: {}, "AP": {}}
    for q, docs in run.items():
        if q not in qrels:
            continue
        rel = {d for d, g in qrels[q].items() if g >= 1}
        ranked = stable_ranking(docs)
        first = next((i for i, d in enumerate(ranked[:k]) if d in rel), None)
        out["RR@%d" % k][q] = 0.0 if first is None else 1.0 / (first + 1)
        out["P@%d" % k][q] = sum(d in rel for d in ranked[:k]) / k
        hits, s = 0, 0.0
        for i, d in enumerate(ranked):
            if d in rel:
                hits += 1
                s += hits / (i + 1)
        out["AP"][q] = s / len(rel) if rel else 0.0
    return out


NAMES = ["RR@10", "P@10", "AP"]


def test_hand_example():
    qrels = {"q": {"a": 0, "b": 1, "c": 0}}
    run = {"q": {"b": 1.0, "a": 1.0, "c": 1.0, "z": 2.0}}     # equal scores in dict order b, a, c
    assert irscore.evaluate(qrels, run, "RR", ties="input") == {"RR": 0.5}       # z, b, a, c
    assert irscore.evaluate(qrels, run, "RR", ties="trec") == {"RR": 1 / 3}      # z, c, b, a
    assert irscore.evaluate(qrels, run, "RR") == {"RR": 1 / 3}                   # the default is trec_eval's


def test_input_order_reproduces_the_stable_sort_on_dicts():
    qrels, run = tied_dicts(1, 400)
    want = reference(qrels, run, 10)
    got = irscore.evaluate(qrels, run, NAMES, per_query=True, ties="input")
    trec = irscore.evaluate(qrels, run, NAMES, per_query=True)
    differ = 0
    for name in NAMES:
        for q, v in want[name].items():
            assert got[name][q] == pytest.approx(v, abs=1e-12), (name, q, run[q])
            differ += trec[name][q] != pytest.approx(v, abs=1e-12)
    assert differ > 100          # the data has ties that the two orders break differently


def _write_run(path, run: Dict[str, Dict[str, float]]) -> None:
    """A TREC run file whose lines of different queries interleave at random,
    each query's lines in its dict's item order."""
    slots = [q for q, docs in run.items() for _ in docs]
    random.Random(0).shuffle(slots)
    items = {q: iter(docs.items()) for q, docs in run.items()}
    with open(path, "w") as f:
        for q in slots:
            d, s = next(items[q])
            f.write(f"{q} Q0 {d} 0 {s!r} tag\n")


@pytest.mark.parametrize("split", [False, True])
def test_input_order_of_a_file_is_its_lines(tmp_path, monkeypatch, split):
    qrels, run = tied_dicts(2, 300)
    path = tmp_path / "run.txt"
    _write_run(path, run)
    if split:        # the parallel reader of big files, on this small one
        monkeypatch.setattr(core_io, "_SPLIT_MIN", 1)
    got = irscore.evaluate(qrels, str(path), NAMES, per_query=True, ties="input")
    assert got == irscore.evaluate(qrels, run, NAMES, per_query=True, ties="input")
    assert got != irscore.evaluate(qrels, str(path), NAMES, per_query=True)
    assert irscore.read_run(str(path), ties="input").ties == "input"


def test_input_order_of_a_frame_is_its_rows():
    pd = pytest.importorskip("pandas")
    qrels, run = tied_dicts(3, 200)
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    df = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    want = irscore.evaluate(qrels, run, NAMES, per_query=True, ties="input")
    assert irscore.evaluate(qrels, df, NAMES, per_query=True, ties="input") == want
    assert irscore.evaluate(qrels, Run.from_pandas(df, ties="input"), NAMES, per_query=True, ties="input") == want


def test_run_objects_keep_their_order():
    qrels, run = tied_dicts(4, 50)
    r_in = Run.from_dict(run, ties="input")
    assert irscore.evaluate(qrels, r_in, NAMES, ties="input") == irscore.evaluate(qrels, run, NAMES, ties="input")
    with pytest.raises(ValueError, match="ties='trec'.*'input' order"):
        irscore.evaluate(qrels, r_in, NAMES)
    with pytest.raises(ValueError, match="ties='input'.*'trec' order.*build the Run with ties='input'"):
        irscore.evaluate(qrels, Run.from_dict(run), NAMES, ties="input")


@pytest.mark.parametrize("bad,msg", [("average", "irscore.batch"), ("Input", "'trec' or 'input'"),
                                     (None, "'trec' or 'input'")])
def test_bad_ties(bad, msg):
    with pytest.raises(ValueError, match=msg):
        irscore.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, "AP", ties=bad)
    with pytest.raises(ValueError, match=msg):
        irscore.compare({"q": {"a": 1}}, {"x": {"q": {"a": 1.0}}, "y": {"q": {"a": 2.0}}}, "AP", ties=bad)
    if bad is not None:
        with pytest.raises(ValueError, match="'trec' or 'input'"):
            Run.from_dict({"q": {"a": 1.0}}, ties=bad)


def test_compare_passes_ties_through(tmp_path):
    qrels, run = tied_dicts(5, 120)
    other = {q: {d: s + (0.5 if d.endswith("3") else 0.0) for d, s in docs.items()} for q, docs in run.items()}
    path = tmp_path / "other.txt"
    _write_run(path, other)
    for ties in ("trec", "input"):
        cmp = irscore.compare(qrels, {"a": run, "b": str(path)}, NAMES, ties=ties)
        for name in NAMES:
            for i, r in enumerate((run, other)):
                per_q = irscore.evaluate(qrels, r, name, per_query=True, complete=True, ties=ties)[name]
                assert np.allclose(cmp.scores[name][i], [per_q[q] for q in cmp.query_ids], atol=1e-12)
    assert not np.allclose(irscore.compare(qrels, {"a": run, "b": other}, "AP", ties="input").scores["AP"],
                           irscore.compare(qrels, {"a": run, "b": other}, "AP").scores["AP"])


def test_cli_ties_option(tmp_path, capsys):
    from irscore.cli import main
    qrels, run = tied_dicts(6, 80)
    qf, rf, rf2 = tmp_path / "qrels", tmp_path / "run", tmp_path / "run2"
    qf.write_text("".join(f"{q} 0 {d} {g}\n" for q, ds in qrels.items() for d, g in ds.items()))
    _write_run(rf, run)
    other = {q: {d: s + (0.5 if d.endswith("3") else 0.0) for d, s in docs.items()} for q, docs in run.items()}
    _write_run(rf2, other)
    for ties in ("trec", "input"):
        assert main(["eval", "--ties", ties, "-m", "map", "-m", "RR@10", str(qf), str(rf)]) == 0
        out = {line.split()[0]: float(line.split()[2]) for line in capsys.readouterr().out.splitlines()}
        want = irscore.evaluate(qrels, run, ["map", "RR@10"], ties=ties)
        assert out["map"] == pytest.approx(want["map"], abs=1e-4)
        assert out["RR@10"] == pytest.approx(want["RR@10"], abs=1e-4)
        assert main(["compare", "--ties", ties, "-m", "AP", "--format", "json", str(qf), str(rf), str(rf2)]) == 0
        capsys.readouterr()
    assert irscore.evaluate(qrels, run, "map", ties="input") != irscore.evaluate(qrels, run, "map")
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--ties", "average", str(qf), str(rf)])
    assert exc.value.code == 2
    assert "--ties" in capsys.readouterr().err
