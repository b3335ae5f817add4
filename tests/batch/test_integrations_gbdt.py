"""irscore's LightGBM / XGBoost metrics: equal to the libraries' built-in ndcg@k at
every boosting iteration under the documented settings, and to irscore.batch."""
import math

import numpy as np
import pytest

from irscore import batch
from irscore.integrations import scoring


def ranking_data(seed=0, n_queries=120):
    """Queries of 1-40 documents, grades 0-4 tied to a rounded feature (so early
    trees give tied scores), every 7th query without a relevant document."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, size=n_queries)
    n = int(sizes.sum())
    X = rng.normal(size=(n, 5))
    X[:, 0] = np.round(X[:, 0], 1)
    y = np.clip(np.round(X[:, 0] + rng.normal(size=n)), 0, 4).astype(int)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    for q in range(0, n_queries, 7):
        y[offsets[q]:offsets[q + 1]] = 0
    return X, y, sizes, offsets


# ---------------------------------------------------------------- LightGBM

def test_lightgbm_builtin_ndcg_every_iteration():
    lgb = pytest.importorskip("lightgbm")
    from irscore.integrations import lightgbm as il

    X, y, sizes, _ = ranking_data()
    train = lgb.Dataset(X, y, group=sizes)
    valid = lgb.Dataset(X, y, group=sizes, reference=train)
    rec = {}
    lgb.train(dict(objective="lambdarank", metric="ndcg", eval_at=[10, 3], num_leaves=4, learning_rate=0.3,
                   min_data_in_leaf=5, verbose=-1),
              train, num_boost_round=25, valid_sets=[valid], valid_names=["v"],
              feval=il.metric(["nDCG(gain=exp)@10", "nDCG(gain=exp)@3"], ties="input", empty=1),
              callbacks=[lgb.record_evaluation(rec)])
    for k in (10, 3):
        builtin = np.array(rec["v"][f"ndcg@{k}"])
        ours = np.array(rec["v"][f"nDCG(gain=exp)@{k}"])
        assert len(builtin) == len(ours) == 25
        np.testing.assert_allclose(ours, builtin, rtol=0, atol=1e-12)   # float64: summation order only
    # the settings matter: trec_eval's tie order or trec_eval's empty-query value differ
    assert len(set(np.round(builtin, 12))) > 5


def test_lightgbm_options_change_the_values_as_documented():
    lgb = pytest.importorskip("lightgbm")
    from irscore.integrations import lightgbm as il

    X, y, sizes, offsets = ranking_data(1)
    preds = np.round(X[:, 0] + 0.3 * X[:, 1], 1)
    ds = lgb.Dataset(X, y, group=sizes).construct()
    names = ["nDCG(gain=exp)@10", "AP", "P@5"]
    for ties in ("input", "trec", "average"):
        for empty in (0, 1, float("nan")):
            got = dict((n, v) for n, v, hib in il.metric(names, ties=ties, empty=empty)(preds, ds))
            ref = batch.evaluate(preds, y, names, offsets=offsets, ties=ties)
            no_rel = np.maximum.reduceat(y, offsets[:-1]) < 1
            assert no_rel.sum() >= 10
            for n in names:
                v = ref[n].copy()
                if n != "P@5":          # empty= is for the 0/0 measures; P@k is not one
                    v[no_rel] = empty
                want = np.nanmean(v)
                assert got[n] == pytest.approx(want, abs=1e-15), (n, ties, empty)
    out = il.metric("AP")(preds, ds)
    assert out[0][0] == "AP" and out[0][2] is True


def test_lightgbm_sklearn_eval_metric():
    lgb = pytest.importorskip("lightgbm")
    from irscore.integrations import lightgbm as il

    X, y, sizes, _ = ranking_data(2)
    model = lgb.LGBMRanker(n_estimators=10, num_leaves=4, learning_rate=0.3, min_child_samples=5, verbose=-1)
    model.fit(X, y, group=sizes, eval_set=[(X, y)], eval_group=[sizes], eval_at=[10],
              eval_metric=il.sklearn_metric("nDCG(gain=exp)@10", ties="input", empty=1))
    (res,) = model.evals_result_.values()
    np.testing.assert_allclose(res["nDCG(gain=exp)@10"], res["ndcg@10"], rtol=0, atol=1e-12)


def test_lightgbm_dataset_without_groups_is_refused():
    lgb = pytest.importorskip("lightgbm")
    from irscore.integrations import lightgbm as il

    X, y, _, _ = ranking_data(3, 10)
    ds = lgb.Dataset(X, y).construct()
    with pytest.raises(ValueError, match="no query groups"):
        il.metric("nDCG@10")(np.zeros(len(y)), ds)


# ---------------------------------------------------------------- XGBoost

@pytest.mark.parametrize("minus", ["", "-"])
def test_xgboost_builtin_ndcg_every_iteration(minus):
    xgb = pytest.importorskip("xgboost")
    from irscore.integrations import xgboost as ix

    X, y, sizes, _ = ranking_data(4)
    dm = xgb.DMatrix(X, y, group=sizes)
    ours = []
    metric = ix.metric("nDCG(gain=exp)@10", ties="input", empty=0 if minus else 1)

    def recording(predt, dtrain):      # XGBoost prints custom values with 6 decimals: keep them whole
        name, value = metric(predt, dtrain)
        ours.append(value)
        return name, value

    rec = {}
    xgb.train(dict(objective="rank:ndcg", eval_metric=[f"ndcg@10{minus}"], max_depth=2, eta=0.3),
              dm, num_boost_round=25, evals=[(dm, "v")], evals_result=rec, custom_metric=recording,
              verbose_eval=False)
    builtin = np.array(rec["v"][f"ndcg@10{minus}"])    # printed with 17 significant digits
    assert len(builtin) == len(ours) == 25
    np.testing.assert_allclose(ours, builtin, rtol=0, atol=1e-12)


def test_xgboost_several_measures_and_sklearn_form():
    xgb = pytest.importorskip("xgboost")
    from irscore.integrations import xgboost as ix

    X, y, sizes, offsets = ranking_data(5)
    dm = xgb.DMatrix(X, y, group=sizes)
    preds = np.round(X[:, 0], 1).astype(np.float32)
    got = ix.metric(["AP", "RR"], ties="trec")(preds, dm)
    ref = batch.evaluate(preds, y, ["AP", "RR"], offsets=offsets, ties="trec")
    assert [n for n, _ in got] == ["AP", "RR"]
    assert got[0][1] == pytest.approx(ref["AP"].mean(), abs=1e-15)

    # XGBRanker calls the metric once per query (one-document queries: 1.0 without
    # a call), then averages weighted by the query sizes (it reads get_group() as
    # weights) and prints with 6 decimals
    model = xgb.XGBRanker(n_estimators=3, max_depth=2, learning_rate=0.3,
                          eval_metric=ix.sklearn_metric("nDCG(gain=exp)@10", ties="input", empty=1))
    model.fit(X, y, group=sizes, eval_set=[(X, y)], eval_group=[sizes], verbose=False)
    reported = model.evals_result()["validation_0"]["nDCG(gain=exp)@10"][-1]
    per_query = batch.evaluate(model.predict(X), y, ["nDCG(gain=exp)@10"], offsets=offsets, ties="input")
    values = per_query["nDCG(gain=exp)@10"]
    values[np.maximum.reduceat(y, offsets[:-1]) < 1] = 1.0
    assert reported == pytest.approx(np.average(values, weights=sizes), abs=1e-6)
    assert abs(reported - values.mean()) > 1e-3


# ---------------------------------------------------------------- options

def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="unknown measure"):
        scoring.Scorer(["nDCG@10", "nope"])
    with pytest.raises(TypeError, match="empty"):
        scoring.Scorer("AP", empty="one")
    with pytest.raises(TypeError, match="offsets"):
        scoring.Scorer("AP", offsets=[0, 1])
    with pytest.raises(ValueError, match="cover"):
        scoring.offsets_from_sizes([2, 2], 5, "x")
    s = scoring.Scorer("AP", empty=math.nan)
    assert math.isnan(s(np.array([0.1, 0.2]), np.array([0, 0]), np.array([0, 2]))[0][1])
