"""Evaluation metrics for gradient-boosting rankers, computed by irscore's batch kernel.

- [`irscore.integrations.lightgbm`][irscore.integrations.lightgbm]: ``metric(measures, **options)`` gives a
  ``feval(preds, eval_data)`` for ``lightgbm.train``; ``sklearn_metric`` the
  ``eval_metric(y_true, y_pred, weight, group)`` of ``LGBMRanker.fit``.
- [`irscore.integrations.xgboost`][irscore.integrations.xgboost]: ``metric(measures, **options)`` gives a
  ``custom_metric(predt, dtrain)`` for ``xgboost.train`` (queries from the
  DMatrix's ``group_ptr``); ``sklearn_metric`` the per-query ``eval_metric`` of
  ``XGBRanker``.

Options: ``empty=`` the value of a query without relevant documents (0, trec_eval's
convention and the default; 1 as LightGBM's and XGBoost's ``ndcg``; ``nan`` leaves
such queries out of the mean) and the keyword options of
[`irscore.batch.evaluate`][irscore.batch.evaluate] (``ties=``, ``relevance_level=``, ``n_jobs=`` ...).
Neither library is imported by this package.

Architecture
------------
A front end over [`irscore.batch`][irscore.batch]: `scoring`
holds the one ``Scorer`` (measure names parsed once, group sizes turned into
CSR offsets, the ``empty=`` rule) that the LightGBM and XGBoost modules wrap in
each library's callback signature.
"""
