"""Shared data and measure lists of tests/distributed/test_spark.py and tests/distributed/test_dask.py."""
from typing import Dict, List, Tuple

import numpy as np

from irscore.core.measures import MEASURE_SETS, expand_spec

# every trec_eval measure of all_trec with its default parameters, the
# irscore extensions, Rocchio's indices and CRP
MEASURES: List[str] = [key for fam in MEASURE_SETS["all_trec"] if fam not in ("runid", "relstring")
                       for key, _ in expand_spec(fam)]
MEASURES += ["P.3,7", "ndcg.1=3,2=9", "rbp.p=0.5", "utility.2,-1,0,0", "nDCG(gain=exp)@10",
             "nDCG(discount=jarvelin)@5", "DCG@10", "Judged@10", "P(rel=2)@5", "AP@20",
             "Rnorm(N=200)", "Pnorm(N=200)", "rank_recall(N=200)", "log_precision(N=200)",
             "scaled_recall(N=200)", "Rnorm(N=200,graded=true)", "Rnorm(N=200,variant=smart1966)",
             "CRP_loss", "CRP_worst_loss", "CRP_recovery", "CRP_balance", "CRP_turnaround",
             "CRP_recovery(variant=matters)", "CRP_loss(unjudged=condensed,pad_to=40)"]

# option sets: trec_eval's -c, -J, -M, -l, -N
OPTIONS: List[Dict[str, object]] = [
    {"complete": True},
    {"judged_only": True},
    {"max_docs": 7},
    {"relevance_level": 2},
    {"complete": True, "judged_only": True, "max_docs": 12, "relevance_level": 0},
    {"num_docs_in_coll": 150.0},
]


def rows(seed: int = 7) -> Tuple[List[tuple], List[tuple]]:
    """(qrels rows, run rows): 14 judged queries, 13 ranked ones (10 both),
    graded and negative grades, tied scores, non-ASCII ids, query ids whose
    byte order is not their numeric order, one query without relevant
    documents, one ranking of a single document."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(55)] + ["dé", "d\u00e9x", "Z", "a-long-document-identifier-0001"]
    qids = ["q1", "q2", "q10", "q11", "q3", "Q4", "q5", "q6", "q7", "q8é", "q9", "q12", "q13", "q14", "q15", "q16"]
    judged, ranked = qids[:14], qids[4:]       # q1..q11: judged only; q15, q16: ranked only
    qrels = []
    for q in judged:
        for d in rng.choice(len(docs), size=int(rng.integers(3, 30)), replace=False):
            grade = 0 if q == "q6" else int(rng.choice([-1, 0, 0, 1, 1, 2, 3]))
            qrels.append((q, docs[d], grade))
    run = []
    for q in ranked:
        depth = 1 if q == "q7" else int(rng.integers(5, 45))
        for d in rng.choice(len(docs), size=min(depth, len(docs)), replace=False):
            run.append((q, docs[d], float(rng.integers(0, 8)) / 2))    # many ties
    return qrels, run


def per_query_dict(frame, query_col: str, keys: List[str]) -> Dict[str, Dict[str, float]]:
    """{measure: {query_id: value}} from a pandas per-query frame."""
    assert list(frame.columns) == [query_col] + keys
    qs = [str(x) for x in frame[query_col]]
    assert len(set(qs)) == len(qs)
    return {k: dict(zip(qs, map(float, frame[k]))) for k in keys}
