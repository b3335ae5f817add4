"""What the entry points accept as qrels and runs: polars and pyarrow data
(straight to the Arrow columns, no pandas), the errors for anything else,
and the spellings the documentation uses (package-root exports, lazy
submodules, irscore.spark / irscore.dask, output="pandas" without pandas)."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import irscore
from irscore.compat import ir_measures as irm
from irscore.core.io import as_qrels, as_run

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

SRC = str(Path(irscore.__file__).resolve().parents[1])
QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d1": 1, "d4": 0}, "10": {"d9": 1, "d2": 3}}
RUN = {"q1": {"d1": 0.5, "d3": 0.9, "d5": 0.1}, "q2": {"d4": 0.8, "d1": 0.3}, "10": {"d2": 0.2, "d7": 0.2}}
MEASURES = ["map", "P_5", "ndcg_cut_10", "num_ret", "num_rel", "bpref", "recip_rank"]


def _rows(d):
    return [(q, doc, v) for q, docs in d.items() for doc, v in docs.items()]


def polars_frames(qcols=("query_id", "doc_id", "relevance"), rcols=("query_id", "doc_id", "score")):
    qr = pl.DataFrame(_rows(QRELS), schema=list(qcols), orient="row")
    rn = pl.DataFrame(_rows(RUN), schema=list(rcols), orient="row")
    return qr, rn


def _forms():
    qr, rn = polars_frames()
    return {
        "polars": (qr, rn),
        "lazy": (qr.lazy(), rn.lazy()),
        "table": (qr.to_arrow(), rn.to_arrow()),
        "batch": (qr.to_arrow().to_batches()[0], rn.to_arrow().to_batches()[0]),
    }


@pytest.mark.parametrize("form", ["polars", "lazy", "table", "batch"])
def test_polars_and_arrow_inputs_give_the_values_of_the_dicts(form):
    want = irscore.evaluate(QRELS, RUN, MEASURES, per_query=True)
    q, r = _forms()[form]
    assert irscore.evaluate(q, r, MEASURES, per_query=True) == want
    assert as_qrels(q).to_dict() == QRELS
    assert as_run(r).to_dict() == RUN
    assert irscore.Qrels.from_pandas(q).to_dict() == QRELS
    assert irscore.Run.from_pandas(r, run_id="mine").run_id == "mine"
    assert irscore.Run.from_pandas(r).to_dict() == RUN


@pytest.mark.parametrize("cols", [(("qid", "docno", "label"), ("qid", "docno", "score")),       # PyTerrier
                                  (("q_id", "doc_id", "score"), ("q_id", "doc_id", "score"))])  # ranx
def test_polars_frames_with_the_peers_column_names(cols):
    q, r = polars_frames(*cols)
    want = irscore.evaluate(QRELS, RUN, MEASURES)
    assert irscore.evaluate(q, r, MEASURES) == want
    assert irscore.evaluate(q.to_arrow(), r.to_arrow(), MEASURES) == want


def test_polars_integer_and_categorical_ids_read_as_text():
    qr = pl.DataFrame({"query_id": [1, 1, 2], "doc_id": [7, 8, 7], "relevance": [1, 0, 2]})
    rn = pl.DataFrame({"query_id": [1, 1, 2], "doc_id": [8, 7, 7], "score": [2.0, 1.0, 0.5]})
    want = irscore.evaluate({"1": {"7": 1, "8": 0}, "2": {"7": 2}}, {"1": {"8": 2.0, "7": 1.0}, "2": {"7": 0.5}},
                            MEASURES, per_query=True)
    assert irscore.evaluate(qr, rn, MEASURES, per_query=True) == want
    cat = qr.with_columns(pl.col("query_id").cast(pl.String).cast(pl.Categorical))
    assert irscore.evaluate(cat, rn, MEASURES, per_query=True) == want


def test_a_lazy_frame_is_collected_once(monkeypatch):
    calls = []
    collect = pl.LazyFrame.collect

    def counting(self, *args, **kwargs):
        calls.append(1)
        return collect(self, *args, **kwargs)

    monkeypatch.setattr(pl.LazyFrame, "collect", counting)
    q, r = polars_frames()
    irscore.evaluate(q.lazy(), r.lazy(), ["map"])
    assert len(calls) == 2
    del calls[:]
    list(irm.iter_calc(["AP"], q.lazy(), r.lazy()))
    assert len(calls) == 2


NO_PANDAS = """
import sys
sys.modules["pandas"] = None          # as if pandas were not installed
import polars as pl, pyarrow as pa, irscore
from irscore.compat import ir_measures as irm
Q = {"a": {"x": 1, "y": 0}, "b": {"x": 2}}
R = {"a": {"y": 2.0, "x": 1.0}, "b": {"z": 0.5}}
R2 = {"a": {"y": -2.0, "x": -1.0}, "b": {"z": -0.5}}
def frame(d, v):
    return pl.DataFrame([(q, k, x) for q, docs in d.items() for k, x in docs.items()],
                        schema=["query_id", "doc_id", v], orient="row")
q, r, r2 = frame(Q, "relevance"), frame(R, "score"), frame(R2, "score")
print(irscore.evaluate(q, r, ["map", "P_5"]) == irscore.evaluate(Q, R, ["map", "P_5"]))
print(irscore.evaluate(q.to_arrow(), r.lazy(), ["map"]) == irscore.evaluate(Q, R, ["map"]))
print(irscore.Qrels.from_pandas(q).to_dict() == Q, irscore.Run.from_pandas(r.lazy()).to_dict() == R)
print(dict(irm.calc_aggregate(["AP"], q, r.to_arrow())) == dict(irm.calc_aggregate(["AP"], Q, R)))
print(irscore.compare(q, {"one": r, "two": r2}, ["map"]).pairs == irscore.compare(Q, {"one": R, "two": R2}, ["map"]).pairs)
"""


def _python(code, **env):
    full = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""), **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=300)


def test_polars_and_arrow_inputs_need_no_pandas():
    out = _python(NO_PANDAS)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True"] * 6


def test_compat_ir_measures_and_compare_take_polars_and_arrow():
    q, r = polars_frames()
    want = dict(irm.calc_aggregate(["AP", "P@5", "nDCG@10"], QRELS, RUN))
    for qq, rr in ((q, r), (q.lazy(), r.to_arrow()), (q.to_arrow(), r.lazy())):
        assert dict(irm.calc_aggregate(["AP", "P@5", "nDCG@10"], qq, rr)) == want
        assert sorted(irm.iter_calc(["AP"], qq, rr)) == sorted(irm.iter_calc(["AP"], QRELS, RUN))
    empty = r.clear()
    assert dict(irm.calc_aggregate(["AP"], q, empty)) == dict(irm.calc_aggregate(["AP"], QRELS, {}))
    assert np.isnan(irm.calc_aggregate(["AP"], q.clear(), r)["AP"])
    other = {"q1": {"d1": 0.1, "d3": 0.2}, "q2": {"d1": 0.9}, "10": {"d9": 1.0}}
    want_cmp = irscore.compare(QRELS, {"a": RUN, "b": other}, ["map", "P@5"])
    got_cmp = irscore.compare(q.lazy(), {"a": r, "b": pl.DataFrame(_rows(other), schema=["query_id", "doc_id", "score"],
                                                                   orient="row").to_arrow()}, ["map", "P@5"])
    assert got_cmp.pairs == want_cmp.pairs


def test_polars_and_arrow_content_errors_name_the_argument():
    q, r = polars_frames()
    with pytest.raises(ValueError, match=r"^run: doc ids: 1 null value\(s\)$"):
        irscore.evaluate(q, r.with_columns(pl.when(pl.col("score") > 0.85).then(None).otherwise(pl.col("doc_id"))
                                           .alias("doc_id")), ["map"])
    with pytest.raises(ValueError, match=r"^run: score nan is not finite$"):
        irscore.evaluate(q, r.with_columns(pl.when(pl.col("score") > 0.85).then(float("nan"))
                                           .otherwise(pl.col("score")).alias("score")), ["map"])
    with pytest.raises(ValueError, match=r"^qrels: relevance 0.5 is not an integer$"):
        irscore.evaluate(q.with_columns(pl.col("relevance") / 4), r, ["map"])
    with pytest.raises(ValueError, match="qrels DataFrame lacks column"):
        irscore.evaluate(q.rename({"query_id": "topic"}).to_arrow(), r, ["map"])
    with pytest.raises(TypeError, match="^qrels: query ids: ids must be strings or integers, got double"):
        irscore.evaluate(q.with_columns(pl.lit(1.5).alias("query_id")), r, ["map"])
    with pytest.raises(ValueError, match=r"^qrels: no judgments$"):
        irscore.evaluate(q.clear(), r, ["map"])
    with pytest.raises(ValueError, match=r"^qrels: column 'doc_id' has 1 null value\(s\)$"):
        irscore.Qrels.from_pandas(q.with_columns(pl.when(pl.col("relevance") == 3).then(None)
                                                 .otherwise(pl.col("doc_id")).alias("doc_id")))


def test_arrow_duplicates_follow_the_file_rules():
    q = pa.table({"query_id": ["a", "a"], "doc_id": ["x", "x"], "relevance": [0, 2]})
    r = pa.table({"query_id": ["a", "a", "a"], "doc_id": ["x", "x", "y"], "score": [0.1, 0.9, 0.5]})
    with pytest.warns(RuntimeWarning, match="last one is kept"):
        assert as_qrels(q).to_dict() == {"a": {"x": 2}}
    with pytest.warns(RuntimeWarning, match="best-ranked"):
        got = irscore.evaluate({"a": {"x": 2, "y": 1}}, r, ["map"], per_query=True)
    assert got == irscore.evaluate({"a": {"x": 2, "y": 1}}, {"a": {"x": 0.9, "y": 0.5}}, ["map"], per_query=True)


# ---- anything else: one line naming the argument, the type and what is accepted

BAD = [([("q", "d", 1)], "list"), (None, "NoneType"), (42, "int"), (np.zeros(3), "numpy.ndarray"),
       ({"q", "d"}, "set")]


@pytest.mark.parametrize("bad,name", BAD)
def test_unsupported_inputs_are_a_one_line_type_error(bad, name):
    for call, arg in ((lambda: irscore.evaluate(bad, RUN, ["map"]), "qrels"),
                      (lambda: irscore.evaluate(QRELS, bad, ["map"]), "run"),
                      (lambda: as_qrels(bad), "qrels"), (lambda: as_run(bad), "run"),
                      (lambda: irscore.compare(bad, {"a": RUN, "b": RUN}, ["map"]), "qrels"),
                      (lambda: irscore.compare(QRELS, {"a": RUN, "b": bad}, ["map"]), r"runs\['b'\]"),
                      (lambda: irscore.compare(QRELS, [RUN, bad], ["map"]), r"runs\[1\]")):
        with pytest.raises(TypeError, match=rf"^{arg}: expected a (Qrels|Run), .*; got {name}$") as info:
            call()
        assert "\n" not in str(info.value)
        assert "pyarrow Table" in str(info.value) and "path" in str(info.value)


def test_compat_ir_measures_unsupported_inputs_name_the_argument():
    with pytest.raises(TypeError, match=r"^qrels: expected an iterable of Qrel namedtuples, .*; got int$"):
        irm.calc_aggregate(["AP"], 42, RUN)
    with pytest.raises(TypeError, match=r"^run: expected an iterable of ScoredDoc namedtuples, .*; got NoneType$"):
        irm.calc_aggregate(["AP"], QRELS, None)
    with pytest.raises(TypeError, match=r"^run: item 0 is not a namedtuple"):
        irm.calc_aggregate(["AP"], QRELS, [1])


def test_a_run_passed_as_qrels_and_the_reverse_are_named():
    q, r = as_qrels(QRELS), as_run(RUN)
    for call in (lambda: irscore.evaluate(r, r, ["map"]), lambda: as_qrels(r),
                 lambda: irm.calc_aggregate(["AP"], r, RUN), lambda: irscore.compare(r, {"a": r, "b": r}, ["map"])):
        with pytest.raises(TypeError, match=r"^qrels: got an irscore Run \(a ranking\), not judgments: pass it "
                                            r"as run, and as qrels a Qrels, "):
            call()
    for call in (lambda: irscore.evaluate(q, q, ["map"]), lambda: as_run(q),
                 lambda: irm.calc_aggregate(["AP"], QRELS, q)):
        with pytest.raises(TypeError, match=r"^run: got an irscore Qrels \(judgments\), not a ranking: pass it "
                                            r"as qrels, and as run a Run, "):
            call()
    with pytest.raises(TypeError, match=r"^runs\['b'\]: got an irscore Qrels \(judgments\)"):
        irscore.compare(QRELS, {"a": RUN, "b": q}, ["map"])


# ---- the documented spellings, each in a fresh interpreter

SPELLINGS = {
    "root as_qrels/as_run": "import irscore; print(irscore.as_qrels({'q': {'d': 1}}).to_dict(), "
                            "irscore.as_run({'q': {'d': 1.0}}).to_dict())",
    "from root": "from irscore import as_qrels, as_run; import irscore.core.io as io; "
                 "print(as_qrels is io.as_qrels and as_run is io.as_run)",
    "compat.pytrec_eval attribute": "import irscore; e = irscore.compat.pytrec_eval.RelevanceEvaluator("
                                    "{'q': {'d': 1}}, {'map'}); print(e.evaluate({'q': {'d': 1.0}}))",
    "compat.ir_measures attribute": "import irscore; print(dict(irscore.compat.ir_measures.calc_aggregate("
                                    "['AP'], {'q': {'d': 1}}, {'q': {'d': 1.0}})))",
    "import irscore.spark": "import sys, irscore.spark; print(irscore.spark.evaluate.__name__, 'pyspark' in sys.modules)",
    "import irscore.dask": "import sys, irscore.dask; print(irscore.dask.evaluate.__name__, 'dask' in sys.modules)",
    "irscore.spark attribute": "import irscore; print(irscore.spark.evaluate.__name__, irscore.dask.evaluate.__name__)",
    "from irscore.spark": "from irscore.spark import evaluate; from irscore.dask import evaluate as e2; "
                          "print(evaluate.__module__, e2.__module__)",
    "same module both ways": "import irscore; s = irscore.spark; import irscore.spark; print(s is irscore.spark)",
}
EXPECTED = {
    "root as_qrels/as_run": "{'q': {'d': 1}} {'q': {'d': 1.0}}",
    "from root": "True",
    "compat.pytrec_eval attribute": "{'q': {'map': 1.0}}",
    "compat.ir_measures attribute": "{AP: 1.0}",
    "import irscore.spark": "evaluate False",
    "import irscore.dask": "evaluate False",
    "irscore.spark attribute": "evaluate evaluate",
    "from irscore.spark": "irscore.distributed.spark irscore.distributed.dask",
    "same module both ways": "True",
}


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_documented_spellings_work_in_a_fresh_interpreter(name):
    out = _python(SPELLINGS[name])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == EXPECTED[name]


def test_engine_modules_without_the_engine_name_the_extra():
    code = ("import sys\nsys.modules['pyspark'] = None\nsys.modules['dask'] = None\nimport irscore.spark, irscore.dask\n"
            "for m in (irscore.spark, irscore.dask):\n"
            "    try:\n        m.evaluate(None, None, ['map'])\n"
            "    except ModuleNotFoundError as e:\n        print(e)\n")
    out = _python(code)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 2
    for line, extra in zip(lines, ("spark", "dask")):
        assert f'pip install "irscore[{extra}]"' in line and f'pip install ".[{extra}]"' in line


WITHOUT_PANDAS = """
import sys
sys.modules["pandas"] = None          # as if pandas were not installed
import irscore
from irscore.core.io import results_frame
calls = [lambda: irscore.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["map"], output="pandas"),
         lambda: irscore.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["map"], output="pandas-tidy"),
         lambda: results_frame({"map": 1.0}), lambda: irscore.as_qrels({"q": {"d": 1}}).to_pandas(),
         lambda: irscore.as_run({"q": {"d": 1.0}}).to_pandas()]
for call in calls:
    try:
        call()
    except ModuleNotFoundError as exc:
        print(exc.name, "|", exc)
"""


def test_pandas_output_without_pandas_names_the_extra():
    out = _python(WITHOUT_PANDAS)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 5
    for line in lines:
        assert line.startswith("pandas | ")
        assert 'pip install "irscore[pandas]"' in line and 'pip install ".[pandas]"' in line
    assert "output='pandas'" in lines[0] and "output='pandas-tidy'" in lines[1]


def test_without_polars_loaded_nothing_imports_it():
    out = _python("import sys, irscore\nirscore.evaluate({'q': {'d': 1}}, {'q': {'d': 1.0}}, ['map'])\n"
                  "print(sorted(m for m in ('polars', 'ranx', 'pyarrow') if m in sys.modules))")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"



def test_rows_of_namedtuples_with_rows_true():
    """as_qrels / as_run(rows=True) read an iterable of namedtuples (ir_measures'
    Qrel / ScoredDoc, as its readers yield them, a generator read once); without
    rows=True such an iterable is refused like any other unsupported input."""
    from collections import namedtuple

    Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance"])
    ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])
    qrows = [Qrel(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    rrows = [ScoredDoc(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    want = irscore.evaluate(QRELS, RUN, ["map", "P@2"], per_query=True)
    got = irscore.evaluate(as_qrels(iter(qrows), rows=True), as_run((r for r in rrows), rows=True),
                           ["map", "P@2"], per_query=True)
    assert got == want
    assert as_run(rrows, rows=True, run_id="mine").run_id == "mine"
    with pytest.raises(TypeError, match=r"^qrels: expected a Qrels, .*; got list$"):
        as_qrels(qrows)
    with pytest.raises(TypeError, match=r"^run: expected an iterable of ScoredDoc namedtuples, a Run, .*; got int$"):
        as_run(3, rows=True)
    with pytest.raises(TypeError, match=r"^judgments: item 1 is not a namedtuple with fields query_id, doc_id, "
                                        r"relevance"):
        as_qrels([qrows[0], ("q", "d", 1)], rows=True, arg="judgments")
