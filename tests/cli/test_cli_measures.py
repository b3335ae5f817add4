"""irscore measures: every declared measure listed with its definition; --family shows
one family's parameters (from its declaration in irscore.core.specs)."""
import subprocess
import sys

import pytest

from irscore.core.specs import DECLARATIONS, KEYWORDS, XML_FORMS


def _irscore(*args):
    return subprocess.run([sys.executable, "-m", "irscore", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def listing():
    p = _irscore("measures")
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_every_declared_measure_is_listed_with_its_definition(listing):
    lines = listing.splitlines()
    for spec in DECLARATIONS:
        at = lines.index(spec.name)
        assert lines[at + 1].strip() == spec.doc, spec.name


def test_every_xml_form_is_listed(listing):
    for form in XML_FORMS:
        assert f"    {' '.join(form.forms)}: {form.doc}" in listing


@pytest.mark.parametrize("family,name", [("ndcg", "ndcg"), ("nDCG", "ndcg"), ("P", "P"), ("RBP", "rbp"),
                                         ("utility", "utility")])
def test_family_shows_its_parameters_and_definition(family, name):
    p = _irscore("measures", "--family", family)
    assert p.returncode == 0, p.stderr
    spec = next(s for s in DECLARATIONS if s.name == name)
    lines = p.stdout.splitlines()
    assert lines[0] == name and lines[1].strip() == spec.doc
    assert f"native op: {spec.op}" in p.stdout
    keys = [ln.strip() for ln in lines[lines.index("    keywords:") + 1:]]
    assert [k.split("=", 1)[0] for k in keys] == list(spec.params)
    for k in keys:
        key = k.split("=", 1)[0]
        assert KEYWORDS[key].doc in k and KEYWORDS[key].allowed in k


def test_family_ndcg_names_its_cutoff_variant_and_batch_op():
    p = _irscore("measures", "--family", "ndcg")
    assert "NAME@k is ndcg_cut" in p.stdout and "batch path: K_NDCG" in p.stdout
    assert "gain=linear|exp" in p.stdout and "0/0" in p.stdout
