"""The repr of data and result objects: counts agree in number with their nouns."""
from irscore.organization import Organization, reliability_sensitivity


def test_organization_and_rs_result_reprs():
    one = Organization([[["a"]]])
    assert repr(one) == "Organization(1 topic, 1 occurrence)"
    two = Organization({"t1": [[["a", "b"]], [["c"]]], "t2": [[["a"]]]})
    assert repr(two) == "Organization(2 topics, 4 occurrences)"
    assert repr(reliability_sensitivity(one, one)).endswith("; 1 topic)")
    assert repr(reliability_sensitivity(two, two)).endswith("; 2 topics)")


def test_query_counts_in_reprs():
    import numpy as np

    from irscore import batch
    from irscore.diversity import as_diversity_qrels

    acc = batch.Accumulator(["AP"])
    acc.update(np.array([[0.2, 0.1]]), np.array([[1, 0]]))
    assert repr(acc).endswith("; 1 query)")
    acc.update(np.array([[0.2, 0.1]]), np.array([[1, 0]]))
    assert repr(acc).endswith("; 2 queries)")
    one = as_diversity_qrels([("q1", "1", "a", 1)])
    assert repr(one) == "DiversityQrels(1 query, 1 judgment)"
    two = as_diversity_qrels([("q1", "1", "a", 1), ("q2", "1", "b", 1)])
    assert repr(two) == "DiversityQrels(2 queries, 2 judgments)"
