"""The table of measure declarations (irscore.core.specs) and what is derived from it:
the name parser and str(Measure) (round trip), the -m outputs, the ranx names, the
batch path's eligibility, the docs' names table and the XML grammar."""
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irscore._ranking import OpKind
from irscore.cli.measures import names_table
from irscore.core import specs as S
from irscore.core.measures import (
    ALIASES,
    CANONICAL_ALIAS,
    FAMILIES,
    K,
    batch_op,
    empty_kind,
    expand_spec,
    parse_measure,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"
CLASSIC = [s for s in S.DECLARATIONS if s.op is not None]
_CUT_PTYPES = ("long_cuts", "float_cuts")


def test_every_family_is_declared_once_in_print_order():
    names = [s.name for s in S.DECLARATIONS]
    assert len(names) == len(set(names))
    assert list(FAMILIES) == names
    assert K == {s.name: int(getattr(OpKind, s.op)) for s in CLASSIC}


@pytest.mark.parametrize("spec", S.DECLARATIONS, ids=lambda s: s.name)
def test_declaration_is_consistent(spec):
    assert spec.doc and "\n" not in spec.doc
    assert (spec.cutoff == "required") == (spec.ptype in _CUT_PTYPES)
    assert spec.cutoff in ("none", "required", "optional")
    assert set(spec.keywords) <= set(S.KEYWORDS) and "judged_only" in spec.keywords or spec.op is None
    # rel= is the relevance level of the families that read one; rbp's makes it binary, NumRet's is NumRelRet
    assert ("rel" in spec.keywords) == (spec.level or spec.name == "rbp" or spec.rel_variant is not None) \
        or spec.op is None
    assert spec.empty in (None, "rel", "gain")
    for member in (spec.op, spec.batch):
        if member is not None:
            assert S.op_code(member) == int(getattr(OpKind, member))
    if spec.at_k is not None:
        assert S.BY_NAME[spec.at_k].cutoff == "required"


@pytest.mark.parametrize("spec", CLASSIC, ids=lambda s: s.name)
def test_every_declared_name_parses_to_its_family(spec):
    for name in (spec.irm or spec.name, *spec.aliases, *spec.ranx, spec.name):
        fam = ALIASES[name]
        # a name is its family's, or the family's whose @k this is (nDCG: ndcg, nDCG@k: ndcg_cut)
        assert fam == spec.name or S.BY_NAME[fam].at_k == spec.name or spec.name == "map_cut_min" \
            or name == fam, name
        if fam != spec.name:
            continue
        if spec.cutoff == "required" and len(spec.default) != 1:
            with pytest.raises(ValueError, match="needs a cutoff"):
                parse_measure(name)
        else:
            assert parse_measure(name).family == spec.name
    assert CANONICAL_ALIAS[spec.name] == (spec.irm or spec.name)


@pytest.mark.parametrize("spec", CLASSIC, ids=lambda s: s.name)
def test_trec_eval_outputs_round_trip(spec):
    for key, m in expand_spec(spec.name):
        assert parse_measure(str(m)) == m
        if spec.cutoff == "required":
            assert parse_measure(key) == m          # the output name P_10 is the same measure
        assert m.family == spec.name


def _float_token(draw, lo, hi):
    return str(draw(st.integers(lo, hi)) / 100)


@st.composite
def _names(draw):
    """A valid ir_measures-style name of a declared family with random valid parameters."""
    spec = draw(st.sampled_from(CLASSIC))
    base = draw(st.sampled_from([n for n in (spec.irm or spec.name, *spec.aliases, spec.name)
                                 if ALIASES[n] == spec.name]))
    if base[0].isdigit():       # 11pt_avg: not an identifier, so only its trec_eval spellings
        return base + (f".{_float_token(draw, 0, 100)}" if draw(st.booleans()) else "")
    if spec.n_params is not None and draw(st.booleans()):     # several numbers: a -m spec (utility.2,-1,0,0)
        return spec.name + "." + ",".join(_float_token(draw, -300, 300) for _ in range(spec.n_params))
    args = []
    keys = [k for k in spec.keywords if draw(st.booleans())]
    if "gains" in keys:      # a gain map takes neither gain= nor discount=
        keys = [k for k in keys if k not in ("gain", "discount")]
        grades = draw(st.dictionaries(st.integers(0, 4), st.integers(0, 9), min_size=1, max_size=3))
        args.append("gains={" + ",".join(f"{g}:{v}" for g, v in grades.items()) + "}")
    if "rel" in keys:
        args.append(f"rel={draw(st.integers(-2, 5))}")
    if "judged_only" in keys:
        args.append(f"judged_only={draw(st.sampled_from(['True', 'False']))}")
    if "gain" in keys:
        args.append(f"gain={draw(st.sampled_from(['linear', 'exp']))}")
    if "discount" in keys:
        args.append(f"discount={draw(st.sampled_from(['log2', 'jarvelin']))}")
    if "p" in keys:
        args.append(f"p={_float_token(draw, 1, 99)}")
    if spec.ptype == "float_params" and spec.n_params is None and draw(st.booleans()):
        args.append(f"params={_float_token(draw, -300, 300)}")
    if spec.ptype == "pairs" and "p" not in spec.keywords and "gains" not in keys and draw(st.booleans()):
        args.append(f"params={draw(st.integers(0, 4))}={_float_token(draw, 0, 900)}")
    cut = None
    if spec.cutoff == "required" or (spec.cutoff == "optional" or spec.at_k) and draw(st.booleans()):
        cut = _float_token(draw, 0, 100) if spec.ptype == "float_cuts" else str(draw(st.integers(1, 10 ** 6)))
    if "denominator" in keys:
        den = draw(st.sampled_from(["R", "min_k_R"]))
        args.append(f"denominator={den}")
        cut = cut if cut is not None or den == "R" else str(draw(st.integers(1, 1000)))
    return base + (f"({','.join(args)})" if args else "") + (f"@{cut}" if cut is not None else "")


@settings(max_examples=400, deadline=None)
@given(_names())
def test_parse_of_str_is_the_measure(name):
    m = parse_measure(name)
    assert parse_measure(str(m)) == m, (name, str(m))
    assert str(parse_measure(str(m))) == str(m)


def test_the_generator_reaches_every_family():
    seen = set()

    @settings(max_examples=600, deadline=None, derandomize=True)
    @given(_names())
    def collect(name):
        seen.add(parse_measure(name).family)
    collect()
    assert {s.name for s in CLASSIC} - seen <= {"dcg"}    # DCG with a gain, discount or cutoff is dcg_cut


@pytest.mark.parametrize("name,op,empty", [
    ("nDCG@10", "K_NDCG", "gain"), ("nDCG", "K_NDCG", "gain"), ("DCG@5", "K_DCG", None),
    ("nDCG(gain=exp,discount=jarvelin)@5", "K_NDCG", "gain"), ("AP@100", "K_MAP", "rel"), ("RR", "K_RECIP_RANK", "rel"),
    ("R@10", "K_RECALL", "rel"), ("P@5", "K_P", None), ("NumRet", "K_NUM_RET", None),
    ("nDCG(judged_only=True)@10", None, "gain"), ("ndcg.1=3", None, "gain"), ("bpref", None, "rel"),
    ("SetP", None, None), ("Judged@10", None, None),
])
def test_batch_eligibility_and_empty_value_come_from_the_declarations(name, op, empty):
    m = parse_measure(name)
    assert batch_op(m) == op
    assert empty_kind(m) == empty


def test_docs_names_table_is_the_declarations():
    text = (DOCS / "names.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- names-table:start[^\n]*\n(.*?)<!-- names-table:end -->", text, re.S)
    assert m, "docs/names.md has no generated names table"
    assert m.group(1) == names_table(), \
        "docs/names.md's table differs from irscore.cli.measures.names_table(): paste the new table"


def test_every_declared_measure_is_in_the_docs_table():
    table = names_table()
    for spec in CLASSIC:
        assert f"| `{spec.name}` |" in table
        for name in (*spec.aliases, *spec.ranx):
            assert f"`{name}`" in table


@pytest.mark.parametrize("form", S.XML_FORMS, ids=lambda f: f.family)
def test_xml_forms_are_the_grammar_of_the_xml_names(form):
    from irscore.xml.names import measure_family

    for example in form.forms:
        name = example.replace("@k", "@10").replace("[x]", "[0.10]")
        assert re.match(form.pattern, name), name
        assert measure_family(name) == form.family
    with pytest.raises(ValueError) as info:
        measure_family("no-such-measure")
    assert " ".join(form.forms) in str(info.value)


def test_a_parameter_string_holds_the_declared_count_of_numbers():
    # utility(params=2) was accepted and failed in the kernel ("needs at least 5 parameters")
    with pytest.raises(ValueError, match=r"utility\(params=2\)': utility takes 4 coefficients"):
        parse_measure("utility(params=2)")
    with pytest.raises(ValueError, match="utility takes 4 coefficients"):
        parse_measure("utility.2,-1")
    assert str(parse_measure("utility.2,-1,0,0")) == "utility.2,-1,0,0"


@pytest.mark.parametrize("spec", S.DIVERSITY, ids=lambda d: d.name)
def test_diversity_names_are_read_from_their_declarations(spec):
    from irscore.diversity.evaluation import MEASURES, parse

    cut = "@20" if spec.cutoff == "required" else ""
    for name in (spec.name, *spec.spellings):
        base, k, params = parse(f"{name}({','.join(f'{p}=0.5' if p != 'rel' else 'rel=1' for p in spec.keywords)}){cut}")
        assert base == spec.name and k == (20 if cut else None) and set(params) == set(spec.keywords)
    assert MEASURES[spec.name][1] == (spec.cutoff == "required")
    with pytest.raises(ValueError, match="is not one of " + ", ".join(spec.keywords) + "$"):
        parse(f"{spec.name}(gamma=1){cut}")


@pytest.mark.parametrize("name,op", [
    ("nDCG(gains={2:3})@10", "K_NDCG_GAINS_CUT"), ("nDCG@10", "K_NDCG_CUT"), ("RBP(rel=2)", "K_RBP_BIN"),
    ("RBP", "K_RBP"), ("rbp_resid", "K_RBP_RESID"), ("AP(denominator=min_k_R)@5", "K_AP_MIN_K_R"),
])
def test_the_kernel_op_is_the_declared_one(name, op):
    from irscore.core.plan import op_kind

    assert op_kind(parse_measure(name)) == int(getattr(OpKind, op))


def test_ranx_rbp_with_a_negative_level_keeps_it():
    # ranx's -lN takes N >= 0: rbp_grade(rel=-1,p=0.5) printed as rbp.5, which lost rel=-1
    m = parse_measure("rbp_grade(rel=-1,p=0.5)")
    assert str(m) == "rbp_grade(rel=-1,p=0.5)"
    assert parse_measure(str(m)) == m
    assert str(parse_measure("rbp.95-l2")) == "rbp.95-l2"


def test_a_gain_pair_of_a_grade_to_itself_keeps_its_spelling():
    # nDCG(judged_only=True,params=0=0) printed as nDCG(judged_only=True,gains={0:0}), which reads as no pairs
    m = parse_measure("nDCG(judged_only=True,params=0=0)")
    assert parse_measure(str(m)) == m
    assert str(parse_measure("nDCG(judged_only=True,gains={0:0,2:3})")) == "nDCG(judged_only=True,gains={2:3})"


def test_rbp_resid_keeps_its_persistence():
    # rbp_resid(p=0.8) printed as rbp_resid, which is p = 0.9 (only ir_measures' RBP defaults to 0.8)
    m = parse_measure("rbp_resid(judged_only=True,p=0.8)")
    assert str(m) == "rbp_resid(judged_only=True,p=0.8)" and parse_measure(str(m)) == m
    assert str(parse_measure("RBP(p=0.8)")) == "RBP"


def test_a_gain_map_naming_a_grade_twice_keeps_its_trec_eval_spelling():
    # trec_eval's ndcg.2=3,2=9 maps grade 2 twice (the last pair wins there);
    # gains= refuses that, so str() keeps the params= spelling, which reads back
    m = parse_measure("ndcg.2=3,2=9")
    assert str(m) == "ndcg.2=3,2=9"
    assert parse_measure(str(m)) == m
