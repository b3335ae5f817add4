"""Measure names: the round trip name -> Measure -> str over every family, malformed
and huge parameters refused, documented spellings accepted, a first parse from
many threads at once."""
import subprocess
import sys

import numpy as np
import pytest

import irscore
from irscore.cli import main

QRELS = b"1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = b"1 Q0 a 1 2.0 sys\n1 Q0 b 2 1.0 sys\n2 Q0 c 1 1.0 sys\n"


def _generated_names():
    from irscore.core import measures as M

    names = []
    for fam, f in M.FAMILIES.items():
        if f.kind < 0:
            continue
        names.append(fam)
        if f.ptype == "long_cuts":
            names += [f"{fam}_7", f"{fam}.3", f"{fam}.1,7,23.4"]
        elif f.ptype == "float_cuts":
            names += [f"{fam}_0.25", f"{fam}.0.25", f"{fam}..25", f"{fam}.1"]
        elif f.ptype == "float_params":
            names += [f"{fam}.0.5" if fam != "utility" else "utility.2,-1,0,0", f"{fam}.1e0"]
        elif f.ptype == "pairs":
            names += [f"{fam}.1=3,2=9", f"{fam}.1=3,2=9,4=4.5", f"{fam}.0=.5"]
            if fam in ("rbp", "rbp_resid"):
                names += [f"{fam}.p=.5", f"{fam}.p=0.5,2=3"]
    names += ["11pt_avg.0.1,0.5", "11pt_avg..25,.5,.75", "Rprec_mult.5.0", "relstring.20"]
    for alias in ["AP", "nDCG", "DCG", "P", "R", "RR", "Success", "Judged", "IPrec", "SetP", "SetF",
                  "NumRel", "NumRelRet", "Bpref", "infAP", "Rprec", "RBP"]:
        for suffix in ["", "@5", "(rel=2)", "(rel=2)@5", "@1e1"]:
            names.append(alias + suffix)
    names += ["IPrec@0.3", "nDCG(gain=exp)@10", "nDCG(discount=jarvelin)@5", "DCG(gain=exp)",
              "nDCG(dcg='exp-log2')@3", "RBP(p=0.8)", "RBP(p=1e-1)", "RBP(rel=2,p=0.5)", "SetF(params=0.5)",
              "Rnorm(N=10)", "Pnorm(N=5,variant=x)", "CRP_loss", "CRP_balance(pad_to=20)", "P@10000000000"]
    return names


def test_name_round_trip_over_every_family():
    from irscore.core.measures import parse_measure

    accepted = 0
    for name in _generated_names():
        try:
            m = parse_measure(name)
        except ValueError:
            continue  # refused names need no round trip (refusals are tested below)
        accepted += 1
        assert parse_measure(str(m)) == m, (name, str(m))
        assert str(parse_measure(str(m))) == str(m), name
    assert accepted > 150


@pytest.mark.parametrize("name", ["ndcg.1=3,2=9", "utility.2,-1,0,0", "11pt_avg.0.1,0.5", "dcg_cut_10",
                                  "rbp.p=.5", "RBP(p=1)"])
def test_name_round_trip_reported_cases(name):
    from irscore.core.measures import parse_measure

    m = parse_measure(name)
    assert parse_measure(str(m)) == m


def test_dcg_cut_name_is_dcg():
    q = {"1": {"a": 2, "b": 1, "c": 0}}
    r = {"1": {"c": 3.0, "a": 2.0, "b": 1.0}}
    res = irscore.evaluate(q, r, ["dcg_cut_10", "DCG@10", "ndcg_cut_10"])
    assert res["dcg_cut_10"] == res["DCG@10"] == pytest.approx(2 / np.log2(3) + 1 / np.log2(4))
    assert res["ndcg_cut_10"] < 1 < res["dcg_cut_10"]


@pytest.mark.parametrize("spec", ["P.1O", "ndcg_cut.1O", "P.5x", "P.5,", "P.5,,10", "recall. 5", "P.1e1",
                                  "iprec_at_recall..1x", "iprec_at_recall.inf", "Rprec_mult.nan",
                                  "utility.2,-1,0,0x", "utility.1,inf,0,0", "11pt_avg.0.5_0", "set_F.1f",
                                  "ndcg.1=3x", "ndcg.x=3", "ndcg.1=inf", "rbp. p=0.5", "rbp.p=0.5x",
                                  "rbp.q=0.5", "P(rel=2x)@5", "P@5x", "P(params=3)@5", "Rnorm(N=10)@x"])
def test_malformed_parameters_are_refused(spec, tmp_path):
    from irscore.core.measures import parse_measure

    with pytest.raises(ValueError, match="spec|measure|pair"):
        parse_measure(spec)
    # the CLI refuses it with exit 2 instead of printing another measure
    q = tmp_path / "q"
    q.write_bytes(QRELS)
    r = tmp_path / "r"
    r.write_bytes(RUN)
    if spec.split(".")[0] in ("P", "ndcg_cut"):
        assert main(["eval", "-m", spec, str(q), str(r)]) == 2


def test_documented_float_forms_still_accepted():
    from irscore.cli.eval import requested

    keys = sorted(k for k, _ in requested(["iprec_at_recall..10,.50", "Rprec_mult.5.0,0.2", "ndcg.1=3,2=9,4=4.5",
                                     "utility.2,-1,0,0", "11pt_avg..25,.5,.75", "ndcg_cut.10,20,23.4"]))
    assert keys == sorted(["iprec_at_recall_0.10", "iprec_at_recall_0.50", "utility_2,-1,0,0", "11pt_avg_.25,.5,.75",
                    "ndcg_1=3,2=9,4=4.5", "Rprec_mult_0.20", "Rprec_mult_5.00", "ndcg_cut_10", "ndcg_cut_20",
                    "ndcg_cut_23"])


def test_huge_parameters_are_value_errors():
    q = {"1": {"a": 1, "b": 0}}
    r = {"1": {"a": 2.0, "b": 1.0}}
    with pytest.raises(ValueError, match="cutoff .* too large"):
        irscore.evaluate(q, r, ["P@99999999999999999999"])
    with pytest.raises(ValueError, match="rel="):
        irscore.evaluate(q, r, ["P(rel=1000000000000000000000)@5"])
    with pytest.raises(ValueError, match="relevance level"):
        irscore.evaluate(q, r, ["P@5"], relevance_level=10 ** 21)
    with pytest.raises(ValueError, match="run"):
        irscore.evaluate(q, {"1": {"a": 10 ** 400, "b": 1.0}}, ["P@5"])
    # a cutoff longer than any ranking is exact
    assert irscore.evaluate(q, r, ["P@1000000000000"])["P@1000000000000"] == 1e-12


def test_a_parameter_given_twice_is_an_error():
    # 'rank_recall(rel=0.5,rel=0)' would parse (the last value checked) but print
    # both, and the round trip would fail
    from irscore.core.measures import parse_measure

    with pytest.raises(ValueError, match="given twice"):
        parse_measure("rank_recall(rel=0.5,rel=0)")
    with pytest.raises(ValueError, match="given twice"):
        parse_measure("Rnorm(N=10,N=20)")


_RACE = """
import threading, irscore
barrier = threading.Barrier(8)
errors = []
def work():
    barrier.wait()
    try:
        for name in ("Rnorm(N=10)", "CRP_loss", "Pnorm(N=5)"):
            irscore.parse_measure(name)
    except Exception as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print(len(errors), errors[:1])
"""


def test_first_parse_of_registered_families_from_threads():
    procs = [subprocess.Popen([sys.executable, "-c", _RACE], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(8)]
    outs = [p.communicate(timeout=120) for p in procs]
    for (out, err), p in zip(outs, procs):
        assert p.returncode == 0, err
        assert out.startswith("0 "), out
