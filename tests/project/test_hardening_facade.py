"""Bad input through the façade: clear errors naming the file or argument, never a
traceback or a silent wrong number (issue 9, Python side)."""
import builtins
import gzip
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import irscore
import irscore.xml as X
from irscore.cli import main
from irscore.xml import inex2008

DATA = Path(__file__).resolve().parents[1] / "data"

QRELS = b"1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = b"1 Q0 a 1 2.0 sys\n1 Q0 b 2 1.0 sys\n2 Q0 c 1 1.0 sys\n"


def _bad_variants(tmp_path, stem, good: bytes):
    """Broken copies of a good input file: (kind, path)."""
    data = good * 40
    gz = gzip.compress(data)
    out = []
    p = tmp_path / f"{stem}.trunc.gz"
    p.write_bytes(gz[: len(gz) // 2])
    out.append(("truncated gzip", p))
    bad = bytearray(gz)
    for i in range(20, min(len(bad) - 8, 60)):
        bad[i] ^= 0x55
    p = tmp_path / f"{stem}.corrupt.gz"
    p.write_bytes(bytes(bad))
    out.append(("corrupt gzip", p))
    p = tmp_path / f"{stem}.bin"
    p.write_bytes(bytes(range(256)) * 4)
    out.append(("binary", p))
    p = tmp_path / f"{stem}.latin1"
    p.write_bytes(b"\xf0\xe9" + data)  # undecodable first field (a query/topic id)
    out.append(("not UTF-8", p))
    p = tmp_path / f"{stem}.dir"
    p.mkdir()
    out.append(("directory", p))
    out.append(("missing", tmp_path / f"{stem}.missing"))
    return out


def _subcommands(tmp_path):
    """(subcommand, good files, index of the file to break, its good content)."""
    q = tmp_path / "q.txt"
    q.write_bytes(QRELS)
    r = tmp_path / "r.txt"
    r.write_bytes(RUN)
    xq = DATA / "xml" / "focused.qrels"
    xr = DATA / "xml" / "focused.fol"
    og = DATA / "organization" / "table9_gold.tsv"
    return [
        ("eval", [q, r], 0, QRELS),
        ("eval", [q, r], 1, RUN),
        ("xml", [xq, xr], 0, xq.read_bytes()),
        ("xml", [xq, xr], 1, xr.read_bytes()),
        ("rs", [og, og], 0, og.read_bytes()),
        ("rs", [og, og], 1, og.read_bytes()),
    ]


def test_cli_bad_files_one_line_exit_2(tmp_path, capsys):
    n = 0
    for cmd, files, i, good in _subcommands(tmp_path):
        where = tmp_path / f"{cmd}{i}"
        where.mkdir()
        for kind, bad in _bad_variants(where, f"f{i}", good):
            args = [str(f) for f in files]
            args[i] = str(bad)
            rc = main([cmd, *args])
            out, err = capsys.readouterr()
            what = f"irscore {cmd} with a {kind} file: {err!r}"
            assert rc == 2, what
            lines = err.strip().splitlines()
            assert len(lines) == 1, what
            assert "Traceback" not in err, what
            assert bad.name in err, what
            assert out == "", what
            n += 1
    assert n == 36


def test_cli_no_traceback_in_a_real_process(tmp_path):
    bad = tmp_path / "run.gz"
    bad.write_bytes(gzip.compress(RUN * 50)[:30])
    q = tmp_path / "q"
    q.write_bytes(QRELS)
    p = subprocess.run([sys.executable, "-m", "irscore", "eval", str(q), str(bad)], capture_output=True, text=True)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert "run.gz: truncated or corrupt gzip file" in p.stderr


def test_api_errors_name_the_file(tmp_path):
    from irscore import organization, xml

    bad = tmp_path / "t.gz"
    bad.write_bytes(gzip.compress(RUN * 50)[:30])
    with pytest.raises(ValueError, match="t.gz: truncated or corrupt gzip"):
        irscore.read_run(bad)
    with pytest.raises(ValueError, match="t.gz: truncated or corrupt gzip"):
        irscore.read_qrels(bad)
    with pytest.raises(ValueError, match="t.gz: truncated or corrupt gzip"):
        xml.read_fol_run(bad)
    with pytest.raises(ValueError, match="t.gz: truncated or corrupt gzip"):
        organization.read_organization(bad, "tsv")
    latin = tmp_path / "latin.fol"
    latin.write_bytes(b"1 Q0 d\xe91 1 1.0 r 0 10\n")
    with pytest.raises(ValueError, match=r"latin.fol: not UTF-8 text \(byte 0xe9 at offset 6, line 1\)"):
        xml.read_fol_run(latin)
    with pytest.raises(FileNotFoundError, match="nope"):
        irscore.read_run(tmp_path / "nope")


def test_deeply_nested_json_organization(tmp_path, capsys):
    p = tmp_path / "deep.json"
    p.write_text('{"t": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ValueError, match="deep.json: JSON nested too deeply"):
        irscore.read_organization(p)
    assert main(["rs", str(p), str(p)]) == 2
    err = capsys.readouterr().err
    assert "deep.json" in err and len(err.strip().splitlines()) == 1


def test_plot_without_matplotlib(monkeypatch):
    from irscore import plot

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    for mod in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, mod)
    qrels = {"1": {"a": 1}}
    with pytest.raises(ModuleNotFoundError, match=r"irscore.plot needs matplotlib: pip install 'irscore\[plot\]'"):
        plot.crp(qrels, {"r": {"1": {"a": 1.0}}}, "1")
    from irscore import xml

    q = xml.read_passage_qrels(DATA / "xml" / "focused.qrels")
    r = xml.read_fol_run(DATA / "xml" / "focused.fol")
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'irscore\[plot\]'"):
        plot.ip_curve(q, {"r": r})
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'irscore\[plot\]'"):
        plot.ep_gr_curve(q, {"r": r})


def test_read_organization_name():
    p = DATA / "organization" / "table9_gold.tsv"
    assert irscore.read_organization(p, name="gold").name == "gold"
    assert irscore.read_organization(p).name == str(p)


def test_xml_refuses_nothing_to_evaluate(tmp_path, capsys):
    from irscore import xml

    q = DATA / "xml" / "focused.qrels"
    r = DATA / "xml" / "focused.fol"
    empty = tmp_path / "empty"
    empty.write_text("\n\n")
    other = tmp_path / "other.fol"
    other.write_text("99 Q0 d1 1 1.0 myrun 0 10\n")
    for args, msg in [([q, empty], "empty: empty run file"), ([empty, r], "empty: empty qrels file"),
                      ([q, other], "no topics with both results and assessments")]:
        assert main(["xml", *map(str, args)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and msg in err and len(err.strip().splitlines()) == 1
    # the same through the API
    qr = xml.read_passage_qrels(q)
    with pytest.raises(ValueError, match="no topics with both results and assessments"):
        xml.evaluate(qr, xml.XmlRun.from_spans({"99": [("d1", 0, 10)]}), ["MAiP"])
    with pytest.raises(ValueError, match="no topics with both"):
        xml.evaluate(qr, xml.XmlRun.from_spans({}), ["MAiP"])
    with pytest.raises(ValueError, match="qrels: no assessed topics"):
        xml.evaluate(xml.XmlQrels.from_passages({}), xml.read_fol_run(r), ["MAiP"])
    # complete=True: every qrels topic scores, a missing ranking as an empty one
    res = xml.evaluate(qr, xml.XmlRun.from_spans({"99": [("d1", 0, 10)]}), ["MAiP"], per_query=True, complete=True)
    assert res["MAiP"] and set(res["MAiP"].values()) == {0.0}
    assert xml.overlap(xml.XmlRun.from_spans({})) == {}  # no topics: nothing to report, no error


# ------------------------------------------------------------------ measure names

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


def test_unencodable_ids_name_the_argument(tmp_path):
    q = {"1": {"a": 1}}
    with pytest.raises(ValueError, match=r"run: id '1\\udc80' is not encodable"):
        irscore.evaluate(q, {"1\udc80": {"a": 1.0}}, ["P@5"])
    with pytest.raises(ValueError, match=r"qrels\['1'\]: id 'a\\udc80' is not encodable"):
        irscore.evaluate({"1": {"a\udc80": 1}}, {"1": {"a": 1.0}}, ["P@5"])
    p = tmp_path / "latin.run"
    p.write_bytes(b"1 Q0 d\xe9 1 1.0 r\n")
    # the tokenizer refuses ids that are not UTF-8 when it reads the file, naming file and line
    with pytest.raises(ValueError, match=r"latin.run:1: binary or non-UTF-8 data"):
        irscore.read_run(p)


# ------------------------------------------------------------------ batch

def test_batch_nan_inside_lengths_is_an_error():
    from irscore import batch

    s = np.array([[np.nan, np.nan, np.nan], [0.3, 0.2, np.nan]])
    y = np.array([[1, 0, 2], [1, 0, 0]])
    with pytest.raises(ValueError, match=r"scores: non-finite score nan at \[0, 0\], inside lengths\[0\]"):
        batch.evaluate(s, y, ["nDCG"], lengths=[3, 2])
    with pytest.raises(ValueError, match=r"scores: non-finite score inf"):
        batch.evaluate(np.array([[0.1, np.inf]]), np.array([[1, 0]]), ["nDCG"], lengths=[2])
    # padding past a row's length, or NaN padding without lengths, stays padding
    r = batch.evaluate(s, y, ["nDCG"], lengths=[0, 2])
    assert r["nDCG"][1] == 1.0
    r = batch.evaluate(s, y, ["nDCG"])
    assert r["nDCG"][1] == 1.0
    # check_inputs=False skips this meaning check (as documented)
    batch.evaluate(s, y, ["nDCG"], lengths=[3, 2], check_inputs=False)


def test_batch_huge_cutoff_is_a_value_error():
    from irscore import batch

    s, y = np.array([[0.3, 0.2]]), np.array([[1, 0]])
    with pytest.raises(ValueError, match="too large"):
        batch.ndcg(s, y, 2 ** 63)
    with pytest.raises(ValueError, match="too large"):
        batch.evaluate(s, y, ["P@99999999999999999999"])
    assert batch.precision(s, y, 10 ** 12)[0] == 1e-12


# ------------------------------------------------------------------ duplicates, NumRel, empty runs

def _repeated(record):
    return [w for w in record if issubclass(w.category, RuntimeWarning) and "repeated" in str(w.message)]


def test_dataframe_duplicates_behave_as_files(tmp_path):
    pd = pytest.importorskip("pandas")
    rows = [("1", "a", 3.0), ("1", "b", 2.0), ("1", "a", 1.0), ("2", "c", 1.0)]
    jud = [("1", "a", 1), ("1", "b", 0), ("1", "b", 1), ("2", "c", 1)]
    rf, qf = tmp_path / "run", tmp_path / "qrels"
    rf.write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, d, s in rows))
    qf.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in jud))
    run_df = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    qrels_df = pd.DataFrame(jud, columns=["query_id", "doc_id", "relevance"])
    ms = ["P@1", "NumRet", "NumRel", "AP", "RR"]
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        from_files = irscore.evaluate(qf, rf, ms, per_query=True)
    assert len(_repeated(rec)) == 2
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        from_frames = irscore.evaluate(qrels_df, run_df, ms, per_query=True)
    assert len(_repeated(rec)) == 2  # one for the run, one for the qrels
    assert from_frames == from_files
    assert from_frames["P@1"]["1"] == 1.0 and from_frames["NumRel"]["1"] == 2.0  # a (3.0) first; b's last grade


def test_numrel_with_rel_and_complete():
    q = {"1": {"a": 1, "b": 2, "c": 0}, "2": {"d": 2}}
    r = {"1": {"a": 1.0}}
    for complete in (False, True):
        res = irscore.evaluate(q, r, ["NumRel(rel=2)", "NumRel", "num_rel"], complete=complete)
        assert res["NumRel(rel=2)"] == (2.0 if complete else 1.0)
    # the default num_rel keeps trec_eval's rule under -c: every grade > 0 of the qrels
    assert irscore.evaluate(q, r, ["num_rel"], complete=True)["num_rel"] == 3.0


def test_all_empty_dict_run_with_complete():
    q = {"1": {"a": 1}, "2": {"b": 1}}
    empty = {"1": {}, "2": {}}
    res = irscore.evaluate(q, empty, ["P@5", "AP", "num_q", "num_ret"], complete=True)
    assert res == {"P@5": 0.0, "AP": 0.0, "num_q": 2.0, "num_ret": 0.0}
    with pytest.raises(ValueError, match="no ranked documents|no queries"):
        irscore.evaluate(q, empty, ["P@5"])
    curves = irscore.crp_curves(q, empty, complete=True)
    assert set(curves) == {"1", "2"}


# ------------------------------------------------------------------ thread race

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


# ------------------------------------------------------------------ trec_eval's running sum

def _boundary_case():
    """Per-query P_200 hits of 60 queries (sum 1191: mean exactly 0.09925) whose
    running sum and numpy's pairwise sum print different 4th decimals."""
    rng = np.random.default_rng(2024)
    for _ in range(100_000):
        k = np.bincount(rng.integers(0, 60, 1191), minlength=60)
        if k.max() > 200:
            continue
        v = k / 200.0
        seq = 0.0
        for x in v:
            seq += x
        if f"{seq / 60:.4f}" != f"{v.sum() / 60:.4f}":
            return k, seq / 60, v.sum() / 60
    raise AssertionError("no boundary case found")


def test_means_are_running_sums_as_trec_eval(tmp_path):
    k, seq_mean, pairwise_mean = _boundary_case()
    assert f"{seq_mean:.4f}" != f"{pairwise_mean:.4f}"
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    ql, rl = [], []
    for i, hits in enumerate(k):
        qid = f"q{i:02d}"  # byte order = index order, trec_eval's query order
        for d in range(200):
            rl.append(f"{qid} Q0 d{d:03d} {d + 1} {1000 - d} r\n")
            ql.append(f"{qid} 0 d{d:03d} {1 if d < hits else 0}\n")
    qrels.write_text("".join(ql))
    run.write_text("".join(rl))
    res = irscore.evaluate(qrels, run, ["P_200"])
    assert res["P_200"] == seq_mean
    p = subprocess.run([sys.executable, "-m", "irscore", "eval", "-m", "P.200", str(qrels), str(run)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["P_200", "all", f"{seq_mean:.4f}"]
    # the same rule for the other aggregates
    from irscore.core.aggregate import running_mean, running_sum

    v = list(np.random.default_rng(1).random(1000))
    acc = 0.0
    for x in v:
        acc += x
    assert running_sum(v) == acc and running_mean(v) == acc / 1000


# ------------------------------------------------------------------ XML recall with overlapping results

def test_hixeval_focused_counts_each_relevant_character_once():
    from irscore import xml

    q = xml.XmlQrels.from_passages({"1": [("d", 0, 100)]}, {"d": 200})
    r = xml.XmlRun.from_spans({"1": [("d", 0, 60), ("d", 40, 100)]})
    res = xml.evaluate(q, r, ["hixR@2", "hixP@2", "hixR@1"])
    assert res["hixR@2"] == 1.0          # was 1.2: characters 40-60 counted twice
    assert res["hixP@2"] == 100 / 120    # 100 relevant characters read out of 120
    assert res["hixR@1"] == 0.6
    # random overlapping runs: R@k is the share of highlighted characters retrieved
    rng = np.random.default_rng(5)
    for _ in range(200):
        hl = []
        for d in ("x", "y"):
            s = int(rng.integers(0, 60))
            hl.append((d, s, s + int(rng.integers(1, 40))))
        spans = []
        for _ in range(int(rng.integers(1, 8))):
            s = int(rng.integers(0, 99))
            spans.append((str(rng.choice(["x", "y"])), s, int(rng.integers(s + 1, 101))))
        qq = xml.XmlQrels.from_passages({"1": hl}, {"x": 100, "y": 100})
        rr = xml.XmlRun.from_spans({"1": spans})
        got = xml.hixeval(qq, rr, cutoffs=(1, 3, 8))
        want_chars = {(d, c) for d, s, e in hl for c in range(s, e)}
        for k in (1, 3, 8):
            seen = {(d, c) for d, s, e in spans[:k] for c in range(s, e)}
            assert got[f"hixR@{k}"]["1"] == pytest.approx(len(seen & want_chars) / len(want_chars), abs=1e-12)
            assert got[f"hixR@{k}"]["1"] <= 1.0


def test_cli_huge_options_are_one_line_errors(tmp_path, capsys):
    q = tmp_path / "q"
    q.write_bytes(QRELS)
    r = tmp_path / "r"
    r.write_bytes(RUN)
    for opt, msg in [(["-M", "99999999999999999999999"], "max_docs"), (["-N", "1e400"], "num_docs_in_coll"),
                     (["-l", "99999999999999999999999"], "relevance level"),
                     (["-m", "P.99999999999999999999"], "too large")]:
        assert main(["eval", *opt, str(q), str(r)]) == 2
        err = capsys.readouterr().err
        assert msg in err and len(err.strip().splitlines()) == 1


def test_cli_warnings_are_one_line(tmp_path):
    fol = tmp_path / "bom.fol"
    fol.write_bytes(b"\xef\xbb\xbf" + (DATA / "xml" / "focused.fol").read_bytes())
    p = subprocess.run([sys.executable, "-m", "irscore", "xml", "-m", "MAiP", str(DATA / "xml" / "focused.qrels"),
                        str(fol)], capture_output=True, text=True)
    assert p.returncode == 0
    assert p.stderr.splitlines() == [f"irscore xml: warning: {fol}: UTF-8 byte-order mark at the start ignored"]
    plain = subprocess.run([sys.executable, "-m", "irscore", "xml", "-m", "MAiP", str(DATA / "xml" / "focused.qrels"),
                            str(DATA / "xml" / "focused.fol")], capture_output=True, text=True)
    assert plain.stdout == p.stdout


def test_a_parameter_given_twice_is_an_error():
    # found by tests/fuzz: 'rank_recall(rel=0.5,rel=0)' parsed (the last value
    # checked) but printed both, so the round trip failed
    from irscore.core.measures import parse_measure

    with pytest.raises(ValueError, match="given twice"):
        parse_measure("rank_recall(rel=0.5,rel=0)")
    with pytest.raises(ValueError, match="given twice"):
        parse_measure("Rnorm(N=10,N=20)")


_HUGE = 2 ** 63
_HALF = 2 ** 62


@pytest.mark.parametrize(
    "reader, text, what",
    [
        ("read_passage_qrels", f"1 Q0 d 0 {_HUGE}\n", "doclen"),
        ("read_passage_qrels", f"1 Q0 d 0 10 {_HUGE}:1\n", "passage offset"),
        ("read_passage_qrels", f"1 Q0 d 0 10 0:{-_HUGE}\n", "passage length"),
        ("read_fol_run", f"1 Q0 d 1 1.0 r {_HALF} {_HALF}\n", "end offset"),
        ("read_fol_run", f"1 Q0 d {_HUGE} 1.0 r 0 1\n", "rank"),
        ("read_element_tsv", f"1 d 0 {_HUGE} 1 1\n", "end"),
    ],
)
def test_xml_readers_refuse_offsets_past_int64(tmp_path, reader, text, what):
    # Found by the XML fuzz target: a document length of 2**63 used to raise
    # OverflowError from numpy instead of a ValueError naming the line.
    p = tmp_path / "f.txt"
    p.write_text(text)
    with pytest.raises(ValueError, match=rf"f.txt:1: {what} -?\d+ is out of range"):
        getattr(X, reader)(p)


def test_xml_inex2008_reader_refuses_offsets_past_int64(tmp_path):
    p = tmp_path / "q.txt"
    p.write_text(f"1 Q0 d 5 10 0 {_HALF}:{_HALF}\n")
    with pytest.raises(ValueError, match=r"q.txt:1: passage end \d+ is out of range"):
        inex2008.read_qrels(p)


@pytest.mark.parametrize(
    "build",
    [
        lambda X: X.XmlRun.from_spans({"1": [("d", 0, _HUGE)]}),
        lambda X: X.XmlQrels.from_passages({"1": [("d", 0, 1)]}, doclens={"d": _HUGE}),
        lambda X: X.XmlQrels.from_elements({"1": [("d", 0, _HUGE, 1.0, 1.0)]}),
        lambda X: X.layout_from_sizes({"d": [("/article[1]", _HUGE)]}),
    ],
)
def test_xml_constructors_refuse_offsets_past_int64(build):
    with pytest.raises(ValueError, match=r"is out of range \(at most 2\*\*62\)"):
        build(X)
