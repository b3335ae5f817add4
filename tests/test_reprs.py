"""The repr of data and result objects: counts agree in number with their nouns."""
from irscore.organization import Organization, reliability_sensitivity


def test_organization_and_rs_result_reprs():
    one = Organization([[["a"]]])
    assert repr(one) == "Organization(1 topic, 1 occurrence)"
    two = Organization({"t1": [[["a", "b"]], [["c"]]], "t2": [[["a"]]]})
    assert repr(two) == "Organization(2 topics, 4 occurrences)"
    assert repr(reliability_sensitivity(one, one)).endswith("; 1 topic)")
    assert repr(reliability_sensitivity(two, two)).endswith("; 2 topics)")
