"""The native INEX families (GR/EPRUM, gP/MAgP, inex_eval, inex_eval_ng, T2I, ep/gr)
against the Python loops they replaced (tests/xml_reference.py): the same
numbers to the last bit (``==``), on thousands of random topics with nested and
crossing results, tied scores, empty topics and topics without relevant text."""
from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

import xml_reference as ref
from irscore import _xml_inex
from irscore import xml as X
from irscore.xml.context import EvalContext
from irscore.xml.focused import compute_focused
from irscore.xml.inex_values import compute_extra
from irscore.xml.model import build_qrels
from irscore.xml.names import measure_family

DOCS = ["a", "b", "c", "d", "e"]
GRADES = [0.0, 0.25, 0.5, 0.75, 1.0]


def _tree(rng, doc, start, end, depth, out):
    out.append((doc, start, end))
    if depth == 0 or end - start < 4:
        return
    cuts = sorted(rng.sample(range(start + 1, end), min(end - start - 1, rng.randint(1, 3))))
    bounds = [start] + cuts + [end]
    for a, b in zip(bounds[:-1], bounds[1:]):
        if rng.random() < 0.7:
            _tree(rng, doc, a, b, depth - 1, out)


def random_case(seed, ntopics=30, elements=True, passages=True):
    """Random qrels (passages and/or assessed elements, best entry points, some
    document lengths) and a run (elements of the trees, arbitrary passages,
    repeats) with tied scores; some topics have no run, no relevant text or no
    assessments at all."""
    rng = random.Random(seed)
    topics = [str(t) for t in range(ntopics)]
    hl_rows, el_rows, beps, spans = [], [], {}, {}
    doclens = {d: rng.choice([80, 100, 120]) for d in DOCS if rng.random() < 0.6}
    for t in topics:
        kind = rng.random()
        trees = {}
        for d in rng.sample(DOCS, rng.randint(1, 4)):
            els = []
            _tree(rng, d, 0, doclens.get(d, 100), 3, els)
            trees[d] = els
        if elements and kind > 0.1:
            for d, els in trees.items():
                for (dd, s, e) in els:
                    if rng.random() < 0.7:
                        el_rows.append((t, dd, s, e, rng.choice(GRADES), rng.choice(GRADES), False))
        if passages and kind > 0.2:
            for d in trees:
                if rng.random() < 0.7:
                    for _ in range(rng.randint(1, 3)):
                        s = rng.randrange(0, 90)
                        hl_rows.append((t, d, s, s + rng.randrange(0, 30)))
                    if rng.random() < 0.7:
                        beps[(t, d)] = rng.randrange(0, 100)
        if kind < 0.05:
            continue                      # no results
        res = []
        for _ in range(rng.randint(0, 40)):
            if rng.random() < 0.7:
                d = rng.choice(list(trees))
                res.append(rng.choice(trees[d]))
            else:
                d = rng.choice(DOCS)
                s = rng.randrange(0, 100)
                res.append((d, s, s + rng.randrange(0, 40)))
        spans[t] = res
    qrels = build_qrels(topics, hl_rows, el_rows, doclens, beps, passages, elements)
    run = X.XmlRun.from_spans({t: v for t, v in spans.items() if v} or {"0": [("a", 0, 10)]})
    # tied scores: a few distinct values, non-increasing in rank order
    score = np.empty(len(run.doc))
    for k in range(len(run.topics)):
        lo, hi = int(run.off[k]), int(run.off[k + 1])
        v = 100.0
        for i in range(lo, hi):
            if rng.random() < 0.5:
                v -= rng.choice([0.5, 1.0, 2.0])
            score[i] = v
    run.score = score
    return qrels, run


def _ctx(qrels, run, quantisation="auto", ideal_overlap="ancestor", complete=False, use_elements=True):
    return EvalContext(qrels, run, alpha=1.0, hix_alpha=1.0, quantisation=quantisation, ideal_overlap=ideal_overlap,
                       normalise=False, complete=complete, use_elements=use_elements)


def _same(ctx, names, options):
    fams = {n: measure_family(n) for n in names}
    try:
        want = ref.compute_extra(ctx, names, fams, dict(options))
    except ValueError as e:
        with pytest.raises(ValueError, match=str(e)[:30].replace("(", r"\(").replace("[", r"\[")):
            compute_extra(ctx, names, fams, dict(options))
        return 0
    got = compute_extra(ctx, names, fams, dict(options))
    assert set(got) == set(want)
    for n in names:
        assert list(got[n]) == list(want[n]), n
        for t in want[n]:
            a, b = got[n][t], want[n][t]
            assert a == b or (a != a and b != b), (n, t, a, b)
    return sum(len(v) for v in want.values())


SEEDS = range(12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("complete", [False, True])
def test_gp_native_equals_reference(seed, complete):
    qrels, run = random_case(seed, elements=seed % 3 == 0)
    ctx = _ctx(qrels, run, complete=complete, use_elements=False)
    names = ["MAgP_RiC", "gP_RiC@1", "gP_RiC@5", "gP_RiC@100", "MAgP_BiC", "gP_BiC@3", "gP_BiC@50"]
    assert _same(ctx, names, {}) > 0
    _same(ctx, names, {"ric_beta": 1.0, "bep_distance": 17})
    _same(ctx, names, {"ric_beta": 0.1, "bep_distance": 1000})


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("quantisation", ["generalised", "strict", "inex2006"])
def test_inex_eval_native_equals_reference(seed, quantisation):
    qrels, run = random_case(100 + seed, passages=seed % 2 == 0)
    ctx = _ctx(qrels, run, quantisation=quantisation, complete=seed % 3 == 0)
    names = ["inex_eval", "Precall[0.10]", "Precall[0.50]", "Precall[1.00]"]
    assert _same(ctx, names, {}) >= 0
    _same(ctx, names, {"ties": False})
    _same(ctx, ["inex_eval", "Precall[0.3]"], {"precall_points": 10, "collection_size": 500})
    _same(ctx, ["inex_eval"], {"precall_points": 7, "ties": False,
                               "collection_size": {t: 60 + 3 * k for k, t in enumerate(ctx.al.topics[::2])}})
    _same(ctx, ["inex_eval"], {"collection_size": 3})            # too small: the same error
    _same(ctx, ["inex_eval", "Precall[0.50]", "Precall[0.07]"], {"precall": "reprec"})
    _same(ctx, ["inex_eval", "Precall[0.3]"], {"precall": "reprec", "ties": False, "precall_points": 10})
    _same(ctx, ["inex_eval", "Precall[0.50]"], {"precall": "reprec", "collection_size": 500})
    _same(ctx, ["inex_eval"], {"precall": "reprec", "collection_size": 3})


@pytest.mark.parametrize("seed", SEEDS)
def test_ng_native_equals_reference(seed):
    qrels, run = random_case(200 + seed, passages=seed % 2 == 0)
    ctx = _ctx(qrels, run, quantisation="generalised", complete=seed % 2 == 1)
    names = [f"ng{x}_{v}@{k}" for v in "os" for k in (1, 3, 10, 100) for x in "PR"]
    assert _same(ctx, names, {}) > 0


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("probs", [(0.0, 0.0, 0.0), (0.5, 0.25, 0.0), (0.3, 0.6, 0.1), (1.0, 1.0, 1.0)])
def test_eprum_native_equals_reference(seed, probs):
    qrels, run = random_case(300 + seed, ntopics=20, elements=seed % 2 == 0)
    quant = ["generalised", "strict", "inex2006"][seed % 3]
    ctx = _ctx(qrels, run, quantisation=quant, ideal_overlap=["ancestor", "descendant"][seed % 2], complete=seed % 4 == 0)
    names = ["GR@1", "GR@5", "GR@100", "EPRUM[0.10]", "EPRUM[0.50]", "EPRUM[1.00]"]
    nav = X.default_navigation(*probs)
    assert _same(ctx, names, {"navigation": nav}) > 0
    _same(ctx, ["GR@2", "EPRUM[0.25]", "EPRUM[0.75]"], {"navigation": nav, "eprum_points": 4})


@pytest.mark.parametrize("seed", range(6))
def test_eprum_caller_navigation_equals_reference(seed):
    qrels, run = random_case(400 + seed, ntopics=15)
    ctx = _ctx(qrels, run)

    def nav(res, x):
        return 0.5 if res[1] <= x[1] else (1.0 if res[2] == x[2] else 0.125)

    _same(ctx, ["GR@3", "GR@20", "EPRUM[0.20]", "EPRUM[0.90]"], {"navigation": nav})


@pytest.mark.parametrize("seed", SEEDS)
def test_t2i_native_equals_reference(seed):
    qrels, run = random_case(500 + seed, elements=seed % 2 == 0)
    ctx = _ctx(qrels, run, complete=seed % 2 == 0, use_elements=False)
    names = [f"T2I{x}@{k}" for k in (1, 2, 10, 100) for x in "PR"]
    assert _same(ctx, names, {}) > 0
    for tol in (1, 7, 30, 10_000):
        _same(ctx, names, {"tolerance": tol})


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0])
def test_epgr_native_equals_reference(seed, alpha):
    qrels, run = random_case(600 + seed, elements=seed % 2 == 0)
    for normalise in (False, True):
        ctx = EvalContext(qrels, run, alpha=alpha, hix_alpha=1.0, quantisation="auto", ideal_overlap="ancestor",
                          normalise=normalise, complete=seed % 3 == 0)
        names = ["ep@1", "gr@1", "ep@5", "gr@5", "ep@100", "gr@100"]
        got = compute_focused(ctx, names)
        want = ref.epgr_values(ctx, names)
        assert got == want


def test_pairwise_sum_is_numpy_sum():
    rng = np.random.default_rng(7)
    for n in list(range(0, 300)) + [1000, 4097, 20_000, 100_003]:
        a = rng.random(n) * 10.0 ** rng.integers(-6, 6, n)
        assert _xml_inex.pairwise_sum(a) == a.sum()


def test_eprum_too_many_sums_is_the_same_error():
    # 24 ideal elements of distinct gains all half-discovered: 2**24 sums
    els = {"1": [("a", 100 * k, 100 * k + 1 + k, 1.0, 1.0 / (k + 2) ** 0.5) for k in range(24)]}
    q = X.XmlQrels.from_elements(els)
    run = X.XmlRun.from_spans({"1": [("a", 0, 3000)]})
    ctx = _ctx(q, run, quantisation="generalised")
    with pytest.raises(ValueError, match="too many distinct gain sums"):
        compute_extra(ctx, ["EPRUM[0.50]"], {"EPRUM[0.50]": "eprum"},
                      {"navigation": X.default_navigation(p_descendant=0.5)})


def _warned(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn()
    return out, sorted(str(x.message) for x in w)


@pytest.mark.parametrize("seed", SEEDS)
def test_gp_inex2008_native_equals_reference(seed):
    qrels, run = random_case(700 + seed, elements=False)
    rng = random.Random(seed)
    if seed % 3 == 1:      # a relchars column (as read by compat="inex2008"), not always the passages' sizes
        qrels.relchars = {(t, d): rng.choice([0, 5, 40]) for t in qrels.topics for d in DOCS if rng.random() < 0.4}
    if seed % 2:
        run.unknown_offset = np.asarray([rng.random() < 0.1 for _ in range(len(run.doc))])
    names = ["MAgP_RiC", "gP_RiC@1", "gP_RiC@5", "gP_RiC@100", "MAgP_BiC", "gP_BiC@3", "gP_BiC@50", "MAiP", "iP[0.01]"]
    for opts in ({}, {"beta_ric": 1.0, "bep_distance": 17}):
        for complete in (False, True):
            try:
                want, wmsg = _warned(lambda: ref.inex2008_evaluate(qrels, run, names, per_query=True,
                                                                   complete=complete, **opts))
            except ZeroDivisionError:
                with pytest.raises(ZeroDivisionError):
                    _warned(lambda: X.inex2008.evaluate(qrels, run, names, per_query=True, complete=complete,
                                                        **opts))
                continue
            got, gmsg = _warned(lambda: X.inex2008.evaluate(qrels, run, names, per_query=True, complete=complete,
                                                            **opts))
            assert gmsg == wmsg
            for n in names:
                assert list(got[n]) == list(want[n])
                for t in want[n]:
                    a, b = got[n][t], want[n][t]
                    assert a == b or (a != a and b != b), (n, t, a, b)
            mg, _ = _warned(lambda: X.inex2008.evaluate(qrels, run, names, complete=complete, **opts))
            mw, _ = _warned(lambda: ref.inex2008_evaluate(qrels, run, names, complete=complete, **opts))
            assert all(mg[n] == mw[n] or (mg[n] != mg[n] and mw[n] != mw[n]) for n in names)


@pytest.mark.slow
def test_thousands_of_topics_every_family():
    """One large random case (2,000 topics) through every family at once."""
    qrels, run = random_case(999, ntopics=2000)
    ctx = _ctx(qrels, run, quantisation="generalised", complete=True)
    names = ["MAgP_RiC", "gP_RiC@5", "MAgP_BiC", "gP_BiC@5", "inex_eval", "Precall[0.20]", "ngP_o@5", "ngR_s@10",
             "GR@5", "EPRUM[0.50]", "EPRUM[1.00]", "T2IP@5", "T2IR@10"]
    assert _same(ctx, names, {}) > 10_000
    assert _same(ctx, ["inex_eval", "GR@3", "EPRUM[0.30]"],
                 {"precall": "reprec", "navigation": X.default_navigation(0.25, 0.5, 0.0)}) > 3_000
    names = ["ep@5", "gr@5", "ep@50"]
    assert compute_focused(ctx, names) == ref.epgr_values(ctx, names)
