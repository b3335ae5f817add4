"""irscore.compare: evaluation on one query set, the tests on the evaluated
per-query values, corrections per measure, the reports, the CLI and the plot."""
import json
import math

import numpy as np
import pytest

import irscore
from irscore.cli import main
from irscore.stats.comparison import pair_tests

ss = pytest.importorskip("scipy.stats")


def _collection(seed=0, n_queries=40, n_docs=30, n_systems=4, skip=0.1):
    rng = np.random.default_rng(seed)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(n_docs)} for i in range(n_queries)}
    runs = {}
    for s in range(n_systems):
        runs[f"sys{s}"] = {q: {f"d{j}": float(rng.random() + 0.1 * s * (qrels[q][f"d{j}"] > 0))
                               for j in range(n_docs)}
                           for q in qrels if rng.random() >= skip}
    return qrels, runs


def _write(tmp_path, qrels, runs):
    qp = tmp_path / "qrels.txt"
    qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    paths = []
    for name, run in runs.items():
        p = tmp_path / f"{name}.run"
        lines = []
        for q, docs in run.items():
            for r, (d, sc) in enumerate(sorted(docs.items(), key=lambda kv: -kv[1])):
                lines.append(f"{q} Q0 {d} {r + 1} {sc:.6f} {name}\n")
        p.write_text("".join(lines))
        paths.append(str(p))
    return str(qp), paths


def test_values_match_evaluate_complete_and_scipy():
    qrels, runs = _collection()
    c = irscore.compare(qrels, runs, ["map", "P_10"], test="t", correction="holm")
    assert c.systems == list(runs) and c.measures == ["map", "P_10"]
    assert len(c.query_ids) == len(qrels)
    mt = pytest.importorskip("statsmodels.stats.multitest")
    for m in c.measures:
        per = {s: irscore.evaluate(qrels, r, m, per_query=True, complete=True)[m] for s, r in runs.items()}
        means = irscore.evaluate(qrels, runs["sys0"], m, complete=True)[m]
        assert c.means[m][0] == pytest.approx(means, abs=1e-12)
        family = [p for p in c.pairs if p.measure == m]
        assert len(family) == 6  # every pair of 4 systems
        raw = []
        for p in family:
            x = np.array([per[p.system][q] for q in c.query_ids])
            y = np.array([per[p.vs][q] for q in c.query_ids])
            ref = ss.ttest_rel(x, y)
            assert p.p == pytest.approx(ref.pvalue, abs=1e-9)
            assert p.diff == pytest.approx(float(np.mean(x - y)), abs=1e-12)
            ci = ref.confidence_interval()
            assert (p.ci_low, p.ci_high) == pytest.approx((ci.low, ci.high), abs=1e-9)
            raw.append(ref.pvalue)
        assert [p.p_adj for p in family] == pytest.approx(list(mt.multipletests(raw, method="holm")[1]), abs=1e-9)
        assert all(p.significant == (p.p_adj < 0.05) for p in family)


def test_unanswered_queries_score_zero_and_are_reported():
    qrels, runs = _collection(seed=1, skip=0.3)
    c = irscore.compare(qrels, runs, "P_5", test="sign")
    i = c.systems.index("sys1")
    missing = [k for k, q in enumerate(c.query_ids) if q not in runs["sys1"]]
    assert missing and np.all(c.scores["P_5"][i, missing] == 0.0)
    assert c.unanswered["sys1"] == len(missing)
    assert "trec_eval -c" in c.to_text() and "unanswered" in c.description


def test_run_answering_no_qrels_query():
    qrels, runs = _collection(seed=2, n_systems=2)
    runs["empty"] = {"not-a-qrels-query": {"d1": 1.0}}
    c = irscore.compare(qrels, runs, "map", baseline="empty", test="randomization", seed=3)
    assert np.all(c.scores["map"][c.systems.index("empty")] == 0.0)
    assert c.unanswered["empty"] == len(qrels)
    assert all(p.vs == "empty" and p.diff > 0 for p in c.pairs)


def test_baseline_and_paths(tmp_path):
    qrels, runs = _collection(seed=3)
    qp, paths = _write(tmp_path, qrels, runs)
    c = irscore.compare(qp, paths, ["map"], baseline="sys0", test="wilcoxon", correction="bonferroni")
    assert c.systems == ["sys0", "sys1", "sys2", "sys3"]
    assert [(p.system, p.vs) for p in c.pairs] == [("sys1", "sys0"), ("sys2", "sys0"), ("sys3", "sys0")]
    assert all(p.p_adj == pytest.approx(min(1.0, 3 * p.p)) for p in c.pairs)
    with pytest.raises(ValueError, match="baseline 'nope'"):
        irscore.compare(qp, paths, ["map"], baseline="nope")
    with pytest.raises(ValueError, match="several runs are named"):
        irscore.compare(qp, [paths[0], paths[0]], ["map"])
    with pytest.raises(ValueError, match="test must be one of"):
        irscore.compare(qp, paths, ["map"], test="z")
    with pytest.raises(ValueError, match="alpha"):
        irscore.compare(qp, paths, ["map"], alpha=1.5)
    with pytest.raises(ValueError, match="at least two runs"):
        irscore.compare(qp, paths[:1], ["map"])


def test_seed_reproducible_and_recorded():
    qrels, runs = _collection(seed=4, n_queries=60)
    a = irscore.compare(qrels, runs, "map", test="randomization", seed=42, n_resamples=3000)
    b = irscore.compare(qrels, runs, "map", test="randomization", seed=42, n_resamples=3000)
    assert [p.p for p in a.pairs] == [p.p for p in b.pairs] and a.seed == 42
    r = irscore.compare(qrels, runs, "map", test="bootstrap", n_resamples=500)
    assert isinstance(r.seed, int) and str(r.seed) in r.description
    for p in r.pairs:
        assert p.ci_low <= p.diff <= p.ci_high


def test_nan_values_dropped_pairwise():
    systems = ["a", "b", "c"]
    S = np.array([[0.1, 0.5, np.nan, 0.7, 0.2, 0.9],
                  [0.2, 0.1, 0.3, np.nan, 0.1, 0.3],
                  [0.3, 0.4, 0.5, 0.6, 0.7, 0.8]])
    rows = pair_tests(systems, ["m"], {"m": S}, [(0, 1), (0, 2), (1, 2)], test="t", correction="none",
                       alpha=0.05, n_resamples=100, seed=1, ci="t")
    assert [(r["n_queries"], r["n_dropped"]) for r in rows] == [(4, 2), (5, 1), (5, 1)]
    ok = ~np.isnan(S[0] - S[1])
    assert rows[0]["p"] == pytest.approx(ss.ttest_rel(S[0, ok], S[1, ok]).pvalue, abs=1e-12)
    rows = pair_tests(systems, ["m"], {"m": S}, [(0, 1)], test="tukey_randomized", correction="none",
                       alpha=0.05, n_resamples=100, seed=1, ci="tukey")
    assert rows[0]["n_queries"] == 4 and rows[0]["n_dropped"] == 2  # listwise over all systems


def test_undefined_measure_values_in_compare():
    # q0 has no relevant document: Rocchio's Rnorm is undefined (NaN) there
    qrels, runs = _collection(seed=5, n_systems=3)
    qrels["q0"] = {d: 0 for d in qrels["q0"]}
    c = irscore.compare(qrels, runs, "Rnorm(N=1000)", test="t")
    assert all(p.n_dropped == 1 and p.n_queries == len(qrels) - 1 for p in c.pairs)
    assert "dropped pairwise" in c.description


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "randomization", "bootstrap", "tukey",
                                  "tukey_oneway", "tukey_randomized"])
def test_every_test_runs_through_compare(test):
    qrels, runs = _collection(seed=6, n_queries=30)
    c = irscore.compare(qrels, runs, ["map", "ndcg_cut_10"], test=test, seed=1, n_resamples=2000)
    assert len(c.pairs) == 12
    for p in c.pairs:
        assert 0 <= p.p <= 1 and p.p <= p.p_adj <= 1
        assert p.ci_low <= p.ci_high
    if test.startswith("tukey"):
        assert c.correction == "none" and all(p.p == p.p_adj for p in c.pairs)


def test_tukey_oneway_through_compare_equals_scipy():
    qrels, runs = _collection(seed=7, n_queries=25)
    c = irscore.compare(qrels, runs, "map", test="tukey_oneway")
    S = c.scores["map"]
    ref = ss.tukey_hsd(*S)
    for p in c.pairs:
        i, j = c.systems.index(p.system), c.systems.index(p.vs)
        assert p.p == pytest.approx(ref.pvalue[i, j], abs=1e-9)


def test_reports():
    qrels, runs = _collection(seed=8, n_queries=50)
    runs["sys3"] = {q: {d: s + 5 * (qrels[q][d] > 0) for d, s in docs.items()} for q, docs in runs["sys3"].items()}
    c = irscore.compare(qrels, runs, ["map", "P_10"], test="t")
    best = int(np.argmax(c.means["map"]))
    assert c.systems[best] == "sys3"
    tex = c.to_latex(label="tab:cmp")
    assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex
    assert r"\textbf{%.4f}" % c.means["map"][best] in tex
    assert "Paired Student's t-test" in tex and "Holm correction" in tex and r"$\alpha$ = 0.05" in tex
    assert r"\label{tab:cmp}" in tex and "sys3" in tex
    # sys3 is significantly better than the others: letters a, b, c after its means
    assert r"$^{\mathrm{a}\mathrm{b}\mathrm{c}}$" in tex
    md = c.to_markdown()
    assert "**%.4f** abc" % c.means["map"][best] in md
    doc = json.loads(c.to_json(per_query=True))
    assert doc["test"] == "t" and doc["queries"]["complete"] is True and len(doc["comparisons"]) == 12
    assert len(doc["per_query"]["map"]["sys0"]) == 50
    df = c.to_pandas()
    assert list(df.columns[:10]) == ["system", "measure", "mean", "vs", "vs_mean", "diff", "p", "p_adj",
                                     "ci_low", "ci_high"][:4] + ["vs_mean", "diff", "p", "p_adj", "ci_low", "ci_high"]
    for col in ("effect", "cohen_d", "hedges_g", "significant"):
        assert col in df.columns
    assert np.allclose(df["effect"], df["hedges_g"])
    csv_lines = c.to_csv().splitlines()
    assert csv_lines[0].startswith("system,measure,mean,vs") and len(csv_lines) == 13
    html = c.to_html()
    assert "<b>" in html and "<sup>abc</sup>" in html and "<caption>" in html
    b = irscore.compare(qrels, runs, "map", baseline="sys0", effect="cohen_d")
    assert "$^{\\dagger}$" in b.to_latex() and "†" in b.to_text()
    assert np.allclose(b.to_pandas()["effect"], b.to_pandas()["cohen_d"])
    q, d = b.differences("map", "sys3")
    assert len(q) == 50 and d.mean() == pytest.approx(b.pair("map", "sys3", "sys0").diff)


def test_cli(tmp_path, capsys):
    qrels, runs = _collection(seed=9)
    qp, paths = _write(tmp_path, qrels, runs)
    assert main(["compare", qp, *paths, "-m", "map", "-m", "P_10", "--test", "randomization", "--seed", "1",
                 "--resamples", "2000"]) == 0
    out = capsys.readouterr().out
    assert "paired randomization test" in out and "sys3" in out and "P_10" in out
    for fmt in ("markdown", "latex", "json", "csv", "html"):
        assert main(["compare", qp, *paths, "-m", "map", "--format", fmt, "--baseline", "sys0"]) == 0
        out = capsys.readouterr().out
        if fmt == "json":
            assert json.loads(out)["baseline"] == "sys0"
    assert main(["compare", qp, *paths, "--baseline", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "baseline 'nope'" in err and "Traceback" not in err
    assert main(["compare", qp, *paths, "-m", "nosuchmeasure"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["compare", qp, paths[0]]) == 2
    assert main(["compare", qp, paths[0], str(tmp_path / "missing.run")]) == 2
    assert "missing.run" in capsys.readouterr().err


def test_plot_differences_png(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    qrels, runs = _collection(seed=10)
    c = irscore.compare(qrels, runs, "map", baseline="sys0")
    path = tmp_path / "diff.png"
    ax = irscore.plot.differences(c, "map", "sys2", path=str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    heights = [b.get_height() for b in ax.patches]
    _, d = c.differences("map", "sys2")
    assert heights == pytest.approx(sorted(d, reverse=True))
    with pytest.raises(ValueError, match="not in the comparison"):
        irscore.plot.differences(c, "ndcg")
    assert math.isfinite(c.pairs[0].hedges_g)
