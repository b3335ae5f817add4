"""Cumulated Relative Position (docs/crp.md): the (check) examples, an
independent reference built from the ideal vector, invariants, the MATTERS
variant, unjudged documents, padding, the TREC / array / batch paths, bad
input and the plot."""
import math

import numpy as np
import pytest

import irscore
from irscore import crp

SCALARS = ("CRP_loss", "CRP_worst_loss", "CRP_recovery", "CRP_balance", "CRP_turnaround")


# ------------------------------------------------------------ reference

def ref_rp(grades, pool, level=1, condensed=False, pad_to=0):
    """RP straight from the definition: build the ideal vector (judged pool by
    grade, padded with non-relevant documents) and look each grade up in it.
    ``grades`` in rank order: int grade, None unjudged, -2 judged negative."""
    seq = [g for g in grades if not (g is None and condensed)]
    cls = [g if (g is not None and g >= level) else 0 for g in seq]   # 0 = non-relevant
    L = max(len(cls), pad_to)
    cls += [0] * (L - len(cls))
    ideal = sorted((g if g >= level else 0 for g, c in pool.items() for _ in range(c)), reverse=True)
    ideal += [0] * (L - len(ideal))
    R = sum(1 for g in ideal if g > 0)
    rp = []
    for j, g in enumerate(cls, start=1):
        if g == 0:
            lo, hi = R + 1, max(len(ideal), R + 1)
        else:
            lo = ideal.index(g) + 1
            hi = len(ideal) - ideal[::-1].index(g)
        rp.append(j - lo if j < lo else (j - hi if j > hi else 0))
    return np.asarray(rp, dtype=np.int64), R


def ref_scalars(curve, R, matters=False):
    L = len(curve)
    loss = float(curve[R - 1]) if L >= R else math.nan
    turn = float(np.argmin(curve) + 1) if L else math.nan
    if matters:
        x = np.where(curve > 0, 1, -1)
        ch = np.flatnonzero(np.diff(x))
        if L == 0:
            bal = math.nan
        elif ch.size:
            bal = float(max(R, ch[0] + 1))
        elif np.all(curve == 0):
            bal = float(R)
        else:
            bal = math.nan
    else:
        ok = [j for j in range(R, L + 1) if curve[j - 1] >= 0]
        bal = float(ok[0]) if ok else math.nan
    rho = 0.0 if math.isnan(bal) else R / bal
    return [loss, -R * (R + 1) / 2, rho, bal, turn]


def random_case(rng, k, n_extra, max_grade=3):
    grades = []
    for _ in range(k):
        u = rng.random()
        grades.append(None if u < 0.2 else (-2 if u < 0.25 else int(rng.integers(0, max_grade + 1))))
    pool = {g: 0 for g in range(max_grade + 1)}
    for g in grades:
        if g is not None and g >= 0:
            pool[g] += 1
    for _ in range(n_extra):
        pool[int(rng.integers(0, max_grade + 1))] += 1
    return grades, pool


def arrays(cases):
    rel, off, lv = [], [0], []
    G = 1 + max(max(p) for _, p in cases)
    for grades, pool in cases:
        rel += [-1 if g is None else g for g in grades]
        off.append(len(rel))
        row = [0] * G
        for g, c in pool.items():
            row[g] = c
        lv.append(row)
    return np.asarray(rel, dtype=np.int32), np.asarray(off, dtype=np.int64), np.asarray(lv, dtype=np.int64)


def trec_pair(runs, relevant):
    """qrels/run dicts for binary examples: runs = {qid: [doc, ...]} in rank order."""
    qrels = {q: {d: 1 for d in relevant} for q in runs}
    run = {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in runs.items()}
    return qrels, run


# ------------------------------------------------------- documented (check) examples

def test_seed_examples():
    runs = {"1": ["a", "b", "x", "y"], "2": ["x", "a", "b", "y"], "3": ["x", "y", "z", "a", "b"]}
    qrels, run = trec_pair(runs, ["a", "b"])
    curves = irscore.crp_curves(qrels, run)
    assert curves["1"].crp.tolist() == [0, 0, 0, 0]
    assert curves["2"].crp.tolist() == [-2, -2, -1, -1]
    assert curves["3"].crp.tolist() == [-2, -3, -3, -1, 2]
    assert curves["3"].rp.tolist() == [-2, -1, 0, 2, 3]
    pq = irscore.evaluate(qrels, run, list(SCALARS) + ["CRP_recovery(variant=matters)"], per_query=True)
    assert pq["CRP_recovery"] == {"1": 1.0, "2": 0.0, "3": 0.4}
    assert pq["CRP_recovery(variant=matters)"]["3"] == 0.5
    assert pq["CRP_loss"]["2"] == -2 and pq["CRP_loss"]["3"] == -3
    assert pq["CRP_turnaround"]["3"] == 2
    assert pq["CRP_balance"]["3"] == 5 and math.isnan(pq["CRP_balance"]["2"])
    assert pq["CRP_worst_loss"] == {"1": -3.0, "2": -3.0, "3": -3.0}
    for q, c in curves.items():
        assert [c.loss, c.worst_loss, c.recovery, c.balance, c.turnaround] == \
            pytest.approx([pq[n][q] for n in SCALARS], nan_ok=True)


def test_matters_touching_zero():
    # relevant {a, b}: run [a, x, b] -> CRP [0, -1, 0]: reaches 0 at rank 3 and stays
    qrels, run = trec_pair({"1": ["a", "x", "b"]}, ["a", "b"])
    res = irscore.evaluate(qrels, run, ["CRP_recovery", "CRP_balance", "CRP_recovery(variant=matters)",
                                        "CRP_balance(variant=matters)"])
    assert res["CRP_recovery"] == pytest.approx(2 / 3) and res["CRP_balance"] == 3
    assert res["CRP_recovery(variant=matters)"] == 0.0
    assert math.isnan(res["CRP_balance(variant=matters)"])


# ------------------------------------------- reference and invariants

@pytest.mark.parametrize("condensed", [False, True])
def test_curves_and_scalars_match_reference(condensed):
    rng = np.random.default_rng(11 + condensed)
    cases = []
    for _ in range(300):
        cases.append(random_case(rng, int(rng.integers(0, 30)), int(rng.integers(0, 10))))
    rel, off, lv = arrays(cases)
    unj = "condensed" if condensed else "nonrel"
    for level in (1, 2):
        for pad in (0, 25):
            rp, cv, coff = crp.curves_from_ranked(rel, off, lv, relevance_level=level, unjudged=unj, pad_to=pad)
            sc = {v: crp.from_ranked(rel, off, lv, relevance_level=level, unjudged=unj, pad_to=pad, variant=v)
                  for v in ("default", "matters")}
            for q, (grades, pool) in enumerate(cases):
                exp_rp, R = ref_rp(grades, pool, level, condensed, pad)
                got_rp = rp[coff[q]:coff[q + 1]]
                np.testing.assert_array_equal(got_rp, exp_rp)
                np.testing.assert_array_equal(cv[coff[q]:coff[q + 1]], np.cumsum(exp_rp))
                for v in ("default", "matters"):
                    got = [sc[v][n][q] for n in SCALARS]
                    if R == 0:
                        assert all(math.isnan(x) for x in got)
                        continue
                    exp = ref_scalars(np.cumsum(exp_rp), R, v == "matters")
                    np.testing.assert_allclose(got, exp, rtol=1e-15, err_msg=f"{v} {grades} {pool}")


def test_ideal_run_is_all_zeros():
    rng = np.random.default_rng(13)
    cases = []
    for _ in range(100):
        pool = {g: int(rng.integers(0, 6)) for g in range(4)}
        pool[int(rng.integers(1, 4))] += 1
        grades = sorted((g for g, c in pool.items() for _ in range(c)), reverse=True)
        cases.append((grades + [None] * int(rng.integers(0, 5)), pool))
    rel, off, lv = arrays(cases)
    rp, cv, _ = crp.curves_from_ranked(rel, off, lv)
    assert not cv.any() and not rp.any()
    sc = crp.from_ranked(rel, off, lv)
    R = lv[:, 1:].sum(axis=1)
    np.testing.assert_array_equal(sc["CRP_recovery"], 1.0)
    np.testing.assert_array_equal(sc["CRP_balance"], R)
    np.testing.assert_array_equal(sc["CRP_loss"], 0.0)
    np.testing.assert_array_equal(crp.from_ranked(rel, off, lv, variant="matters")["CRP_recovery"], 1.0)


def test_worst_vector_loss():
    """CRP at R of the worst vector (judged pool in reverse grade order, padded
    to max(N, pool, 2R)) is the worst loss -R(R+1)/2."""
    rng = np.random.default_rng(14)
    for _ in range(50):
        pool = {g: int(rng.integers(0, 8)) for g in range(4)}
        pool[3] += 1
        R = pool[1] + pool[2] + pool[3]
        n = int(rng.integers(1, 40))
        M = max(n, sum(pool.values()), 2 * R)
        worst = [0] * (M - R) + sorted((g for g in (1, 2, 3) for _ in range(pool[g])))
        rp, R2 = ref_rp(worst, pool)
        assert R2 == R and int(np.cumsum(rp)[R - 1]) == -R * (R + 1) // 2
        grades, _ = random_case(rng, n, 0)
        rel, off, lv = arrays([(grades, pool)])
        # the worst loss does not depend on the run, and no run loses more at R
        sc = crp.from_ranked(rel, off, lv, pad_to=R)
        assert sc["CRP_worst_loss"][0] == -R * (R + 1) / 2
        assert sc["CRP_loss"][0] >= sc["CRP_worst_loss"][0]


def test_binary_invariants():
    rng = np.random.default_rng(15)
    cases = [random_case(rng, int(rng.integers(1, 60)), int(rng.integers(1, 10)), max_grade=1) for _ in range(300)]
    rel, off, lv = arrays(cases)
    _, cv, coff = crp.curves_from_ranked(rel, off, lv)
    sc = crp.from_ranked(rel, off, lv)
    checked = 0
    for q in range(len(cases)):
        R = int(lv[q, 1])
        c = cv[coff[q]:coff[q + 1]]
        if R == 0:
            continue
        checked += 1
        assert np.all(c[:R] <= 0)
        assert np.all(np.diff(c[R - 1:]) >= 0)
        assert 0.0 <= sc["CRP_recovery"][q] <= 1.0
        assert sc["CRP_turnaround"][q] <= max(R, 1) or c.size < R
    assert checked > 250


def test_graded_curve_non_decreasing_after_R():
    rng = np.random.default_rng(16)
    cases = [random_case(rng, int(rng.integers(1, 60)), int(rng.integers(1, 10))) for _ in range(200)]
    rel, off, lv = arrays(cases)
    _, cv, coff = crp.curves_from_ranked(rel, off, lv)
    rho = crp.from_ranked(rel, off, lv)["CRP_recovery"]
    for q in range(len(cases)):
        R = int(lv[q, 1:].sum())
        c = cv[coff[q]:coff[q + 1]]
        if R:
            assert np.all(np.diff(c[R - 1:]) >= 0)
            assert 0.0 <= rho[q] <= 1.0


# --------------------------------------------------- options and edges

def test_unjudged_condensed_and_padding():
    qrels = {"1": {"a": 1, "b": 1, "c": 1, "n": 0}}
    run = {"1": {"u": 4.0, "a": 3.0, "n": 2.0, "b": 1.0}}
    cur = irscore.crp_curves(qrels, run)["1"]
    assert cur.rp.tolist() == [-3, 0, -1, 1] and math.isnan(cur.loss) is False
    cond = irscore.crp_curves(qrels, run, unjudged="condensed")["1"]
    assert cond.rp.tolist() == [0, -2, 0]          # u removed: [a, n, b]; judged n stays
    assert cond.crp.tolist() == [0, -2, -2] and cond.loss == -2.0
    assert math.isnan(cond.balance) and cond.recovery == 0.0     # c is never retrieved
    short = {"1": {"a": 1.0}}
    cs = irscore.crp_curves(qrels, short)["1"]
    assert cs.crp.tolist() == [0] and math.isnan(cs.loss) and cs.recovery == 0.0
    padded = irscore.crp_curves(qrels, short, pad_to=5)["1"]
    assert padded.crp.tolist() == [0, -2, -3, -3, -3]
    assert padded.loss == -3.0
    res = irscore.evaluate(qrels, short, ["CRP_loss", "CRP_loss(pad_to=5)"])
    assert math.isnan(res["CRP_loss"]) and res["CRP_loss(pad_to=5)"] == -3.0


def test_padding_is_bounded_for_curves_and_free_for_scalars():
    qrels = {"1": {"a": 1, "b": 1, "c": 1}, "2": {"x": 1}}
    short = {"1": {"a": 1.0}, "2": {"y": 1.0}}
    # curves: the padding is materialised, so its total is bounded (a MemoryError before)
    with pytest.raises(ValueError, match=r"pad_to=1,000,000,000 .* at most 20,000,000"):
        irscore.crp_curves(qrels, short, pad_to=10 ** 9)
    with pytest.raises(ValueError, match="pad_to"):
        irscore.evaluate(qrels, short, ["CRP_sigma(pad_to=1000000000)"])
    with pytest.raises(ValueError, match="pad_to"):
        crp.curves_from_arrays(np.array([[1.0, 0.5]]), np.array([[1, 0]]), pad_to=crp.MAX_PADDING + 3)
    # the scalars need no curve: padding past R costs nothing
    res = irscore.evaluate(qrels, short, ["CRP_loss(pad_to=1000000000)"], per_query=True)
    assert res["CRP_loss(pad_to=1000000000)"] == {"1": -3.0, "2": -1.0}


def test_relevance_level_and_negative_grades():
    qrels = {"1": {"a": 2, "b": 1, "c": -1, "d": 0}}
    run = {"1": {"b": 4.0, "a": 3.0, "c": 2.0, "d": 1.0}}
    c1 = irscore.crp_curves(qrels, run)["1"]
    assert c1.R == 2 and c1.rp.tolist() == [-1, 1, 0, 0]      # ideal [a(2), b(1), ...]
    c2 = irscore.crp_curves(qrels, run, relevance_level=2)["1"]
    assert c2.R == 1 and c2.rp.tolist() == [-1, 1, 0, 0]      # b is non-relevant now
    res = irscore.evaluate(qrels, run, ["CRP_loss(rel=2)"], relevance_level=1)
    assert res["CRP_loss(rel=2)"] == -1.0


def test_no_relevant_and_empty_rankings():
    qrels = {"a": {"d1": 1, "d2": 1}, "b": {"d1": 0}, "c": {"d1": 1}}
    run = {"a": {"d1": 2.0, "d2": 1.0}, "b": {"d1": 1.0}}
    pq = irscore.evaluate(qrels, run, list(SCALARS), per_query=True, complete=True)
    assert all(math.isnan(pq[n]["b"]) for n in SCALARS)
    # c has no ranking: an empty curve
    assert math.isnan(pq["CRP_loss"]["c"]) and pq["CRP_recovery"]["c"] == 0.0
    assert math.isnan(pq["CRP_turnaround"]["c"])
    means = irscore.evaluate(qrels, run, ["CRP_recovery"], complete=True)
    assert means["CRP_recovery"] == pytest.approx((1.0 + 0.0) / 2)       # b left out
    assert irscore.crp_curves(qrels, run, complete=True)["c"].crp.size == 0


# --------------------------------------------------------------- paths

def test_trec_array_and_batch_paths_agree():
    rng = np.random.default_rng(17)
    qrels, run, S, Y = {}, {}, [], []
    for q in range(30):
        qid = f"q{q:02d}"
        s = rng.permutation(40).astype(float)     # distinct scores: one order everywhere
        y = rng.integers(0, 4, 40)
        y[rng.integers(40)] = 2
        qrels[qid] = {f"d{i}": int(y[i]) for i in range(40)}
        run[qid] = {f"d{i}": float(s[i]) for i in range(40)}
        S.append(s)
        Y.append(y)
    S, Y = np.asarray(S), np.asarray(Y)
    for opts in ("", "(variant=matters)", "(pad_to=60)"):
        names = [n + opts for n in SCALARS]
        pq = irscore.evaluate(qrels, run, names, per_query=True)
        kw = {"variant": "matters"} if "matters" in opts else ({"pad_to": 60} if "pad" in opts else {})
        arr = crp.from_arrays(S, Y, **kw)
        for n in SCALARS:
            np.testing.assert_array_equal(arr[n], [pq[n + opts][q] for q in sorted(qrels)])
    curves = crp.curves_from_arrays(S, Y)
    trec = irscore.crp_curves(qrels, run)
    for q, qid in enumerate(sorted(qrels)):
        np.testing.assert_array_equal(curves[q].crp, trec[qid].crp)
    batch = pytest.importorskip("irscore.batch")
    b = batch.evaluate(S, Y, list(SCALARS))
    a = crp.from_arrays(S, Y)
    for n in SCALARS:
        np.testing.assert_array_equal(b[n], a[n])


def test_ties_and_readonly():
    s = np.asarray([[1.0, 1.0, 0.5]])
    y = np.asarray([[0, 1, 0]])
    # trec ties: the later column first -> relevant at rank 1
    assert crp.from_arrays(s, y)["CRP_loss"][0] == 0.0
    assert crp.from_arrays(s, y, ties="input")["CRP_loss"][0] == -1.0
    rel = np.asarray([0, 1, 0], dtype=np.int32)
    off = np.asarray([0, 3], dtype=np.int64)
    lv = np.asarray([[2, 1]], dtype=np.int64)
    for a in (rel, off, lv):
        a.setflags(write=False)
    assert crp.from_ranked(rel, off, lv)["CRP_balance"][0] == 2.0
    assert crp.curves_from_ranked(rel, off, lv)[1].tolist() == [-1, 0, 0]


# ------------------------------------------------------------ bad input

@pytest.mark.parametrize("name, message", [
    ("CRP_loss(variant=fast)", "variant"),
    ("CRP_recovery(unjudged=skip)", "unjudged"),
    ("CRP_balance(pad_to=-1)", "pad_to"),
    ("CRP_balance(pad_to=1.5)", "integer"),
    ("CRP_turnaround(N=5)", "unknown parameter"),
    ("CRP_loss@10", "cutoff"),
])
def test_bad_parameters(name, message):
    qrels, run = trec_pair({"1": ["a", "x"]}, ["a"])
    with pytest.raises(ValueError, match=message):
        irscore.evaluate(qrels, run, [name])


def test_bad_arrays():
    with pytest.raises(ValueError, match="rel values"):
        crp.from_ranked(np.asarray([7], dtype=np.int32), np.asarray([0, 1]), np.asarray([[0, 1]]))
    with pytest.raises(ValueError, match="offsets"):
        crp.curves_from_ranked(np.asarray([1], dtype=np.int32), np.asarray([0, 2]), np.asarray([[0, 1]]))
    with pytest.raises(ValueError, match="unjudged"):
        irscore.crp_curves({"1": {"a": 1}}, {"1": {"a": 1.0}}, unjudged="drop")
    with pytest.raises(ValueError, match="n_relevant"):
        crp.from_arrays(np.asarray([[1.0, 0.0]]), np.asarray([[1, 1]]), n_relevant=np.asarray([[0, 1]]))


# ---------------------------------------------------------------- plot

def test_plot_writes_png(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from irscore import plot

    qrels = {"1": {"a": 2, "b": 1, "c": 1, "n": 0}}
    runs = {"good": {"1": {"a": 3.0, "b": 2.0, "c": 1.0}},
            "bad": {"1": {"x": 5.0, "y": 4.0, "n": 3.0, "c": 2.0, "a": 1.0}}}
    path = tmp_path / "crp.png"
    ax = plot.crp(qrels, runs, "1", path=str(path), pad_to=8)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    labels = [line.get_label() for line in ax.get_lines()]
    assert "good" in labels and "bad" in labels and "ideal" in labels and "worst" in labels
    # the curve drawn is the one crp_curves computes
    bad = next(line for line in ax.get_lines() if line.get_label() == "bad")
    assert list(bad.get_ydata()) == irscore.crp_curves(qrels, runs["bad"], pad_to=8)["1"].crp.tolist()
    with pytest.raises(ValueError, match="query"):
        plot.crp(qrels, runs, "nope")


def test_plot_reexports_xml_plots():
    from irscore import plot

    try:
        import irscore.plot.xml as px
    except ImportError:
        with pytest.raises(AttributeError):
            _ = plot.ip_curve
        return
    assert plot.ip_curve is px.ip_curve and plot.ep_gr_curve is px.ep_gr_curve
    with pytest.raises(AttributeError):
        _ = plot.no_such_plot
