"""Property tests of irscore.evaluate on random qrels/run dicts: bounded measures
in [0, 1]; results independent of n_jobs, of input order and of repetition;
identical through the dict, DataFrame and TREC-file paths."""
from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import irscore

BOUNDED = ["AP", "AP@5", "P@5", "R@5", "nDCG", "nDCG@5", "nDCG(gain=exp)@5", "nDCG(discount=jarvelin)@5",
           "RR", "Rprec", "Bpref", "infAP", "IPrec@0.5", "iprec_at_recall_0.00", "11pt_avg", "SetP", "SetR",
           "SetF", "SetAP", "Success@3", "Judged@5", "relative_P_5", "RBP(p=0.8)", "map_cut_5",
           "Rprec_mult_0.20", "P(rel=2)@5", "Rnorm", "rank_recall", "scaled_recall"]
UNBOUNDED = ["num_ret", "num_rel", "num_rel_ret", "DCG@5", "utility", "CRP_loss"]
DOCS = [f"d{i}" for i in range(12)] + ["é", "d 10"[:1] + "10x", "Z"]
SCORES = st.one_of(st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.0]), st.floats(-1e3, 1e3, allow_nan=False))


@st.composite
def collections(draw):
    nq = draw(st.integers(1, 5))
    qids = [f"q{i}" for i in range(nq)]
    qrels = {}
    for q in qids:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))
        qrels[q] = {d: draw(st.integers(-1, 3)) for d in docs}
    run = {}
    for q in qids + ["extra"]:
        if draw(st.integers(0, 4)) == 0:
            continue
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        run[q] = {d: draw(SCORES) for d in docs}
    if not any(q in run for q in qids):
        run[qids[0]] = {DOCS[0]: 1.0}
    opts = dict(relevance_level=draw(st.integers(1, 2)), complete=draw(st.booleans()),
                judged_only=draw(st.booleans()), max_docs=draw(st.sampled_from([None, 1, 3, 50])))
    return qrels, run, opts


def _eval(qrels, run, opts, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return irscore.evaluate(qrels, run, BOUNDED + UNBOUNDED, per_query=True, **opts, **kw)
        except ValueError as exc:
            return ("ValueError", str(exc).split(":")[0])


def _same(a, b) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple)
    return a.keys() == b.keys() and all(
        a[m].keys() == b[m].keys()
        and all((x == y) or (math.isnan(x) and math.isnan(y)) for x, y in zip(a[m].values(), b[m].values()))
        for m in a)


def _shuffled(d, perm):
    keys = list(d)
    order = sorted(range(len(keys)), key=lambda i: perm[i % len(perm)] * 1000 + i)
    return {keys[i]: (_shuffled(d[keys[i]], perm[1:] + perm[:1]) if isinstance(d[keys[i]], dict) else d[keys[i]])
            for i in order}


@given(c=collections())
def test_bounded_measures_in_unit_interval(c):
    qrels, run, opts = c
    res = _eval(qrels, run, opts)
    if isinstance(res, tuple):
        return
    for m in BOUNDED:
        for q, v in res[m].items():
            assert math.isnan(v) or 0.0 <= v <= 1.0, (m, q, v)
    for m in UNBOUNDED:
        assert all(not math.isinf(v) for v in res[m].values()), m


@given(c=collections(), perm=st.permutations(range(6)), n_jobs=st.sampled_from([2, 3, -1]))
def test_independent_of_n_jobs_order_and_repetition(c, perm, n_jobs):
    qrels, run, opts = c
    base = _eval(qrels, run, opts, n_jobs=1)
    assert _same(base, _eval(qrels, run, opts, n_jobs=n_jobs))
    assert _same(base, _eval(_shuffled(qrels, list(perm)), _shuffled(run, list(perm)), opts))
    assert _same(base, _eval(qrels, run, opts, n_jobs=1))


@given(c=collections(), perm=st.permutations(range(6)))
def test_dict_dataframe_and_file_paths_agree(tmp_path_factory, c, perm):
    pd = pytest.importorskip("pandas")
    qrels, run, opts = c
    base = _eval(qrels, run, opts)
    qdf = pd.DataFrame([(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
                       columns=["query_id", "doc_id", "relevance"])
    rdf = pd.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                       columns=["query_id", "doc_id", "score"])
    assert _same(base, _eval(qdf, rdf, opts))
    def shuffle(df):                                    # DataFrame row shuffle
        return df.iloc[sorted(range(len(df)), key=lambda i: (perm[i % 6], -i))]

    assert _same(base, _eval(shuffle(qdf), shuffle(rdf), opts))
    tmp = tmp_path_factory.mktemp("files")
    qp, rp = Path(tmp, "qrels.txt"), Path(tmp, "run.txt")
    qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()),
                  encoding="utf-8")
    rp.write_text("".join(f"{q} Q0 {d} {r} {s!r} tag\n" for q, docs in run.items()
                          for r, (d, s) in enumerate(docs.items(), 1)), encoding="utf-8")
    assert _same(base, _eval(str(qp), str(rp), opts))
