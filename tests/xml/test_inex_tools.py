"""Differential tests against the official INEX evaluation tools.

- ``INEX_EVAL_DIR``: the compiled INEX 2008 ``inex_eval`` v1.0 (a directory
  holding ``inex_eval/inex_eval.class``, or ``classes/inex_eval/inex_eval.class``;
  build it with ``javac -d classes inex_eval/*.java`` from the published
  ``inex_eval.java``, ``Topic.java``, ``Qrel.java``, ``Article.java`` and a
  ``Passage`` class holding ``int start, end``).  ``compat="inex2008"`` must
  give the tool's per-topic iP[0.00], iP[0.01], iP[0.05], iP[0.10], AiP,
  gP[1..50], AgP and their means, bit for bit, for Focused, RiC and BiC.
- ``REPREC_DIR``: RePrec 0.32's Perl modules (the directory holding
  ``RePrec.pm`` and ``RePrec/PRR.pm``, or its parent with ``lib/``).
  ``compat="reprec"`` must give ``RePrec::PRR::precision`` at every recall
  level (except where RePrec's ceiling of x N has no tolerance: x N =
  7.000000000000001 is 8 units there, 7 here; those levels are counted apart).

Cases per task: ``INEX_TOOLS_CASES`` (default 20); seed: ``INEX_TOOLS_SEED``
(default 0).  The tools are not part of
irscore; without the variables the tests skip.
"""
from __future__ import annotations

import json
import math
import os
import random
import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from irscore import xml as X
from irscore.xml.names import level_name

N_CASES = int(os.environ.get("INEX_TOOLS_CASES", "20"))
SEED = int(os.environ.get("INEX_TOOLS_SEED", "0"))
GP_CUTOFFS = [1, 2, 3, 5, 10, 25, 50]


def _inex_classpath() -> Optional[str]:
    d = os.environ.get("INEX_EVAL_DIR")
    if not d or shutil.which("java") is None:
        return None
    for cp in (Path(d), Path(d) / "classes"):
        if (cp / "inex_eval" / "inex_eval.class").is_file():
            return str(cp)
    return None


def _reprec_lib() -> Optional[str]:
    d = os.environ.get("REPREC_DIR")
    if not d or shutil.which("perl") is None:
        return None
    for lib in (Path(d), Path(d) / "lib"):
        if (lib / "RePrec" / "PRR.pm").is_file():
            return str(lib)
    return None


CP = _inex_classpath()
LIB = _reprec_lib()
needs_inex = pytest.mark.skipif(CP is None, reason="set INEX_EVAL_DIR to the compiled inex_eval v1.0 "
                                "(inex_eval/inex_eval.class) and have java on PATH")
needs_reprec = pytest.mark.skipif(LIB is None, reason="set REPREC_DIR to RePrec 0.32's Perl modules "
                                  "(RePrec/PRR.pm) and have perl on PATH")


# ---------------------------------------------------------------------------
# inex_eval v1.0
# ---------------------------------------------------------------------------

def _gaps(spans, lo, hi):
    """Sub-intervals of [lo, hi) outside ``spans``."""
    out, pos = [], lo
    for s, e in sorted(spans):
        if s > pos:
            out.append((pos, min(s, hi)))
        pos = max(pos, e)
    if pos < hi:
        out.append((pos, hi))
    return [(a, b) for a, b in out if b - a >= 3]


def gen_case(rng: random.Random, task: str) -> Dict[str, List[str]]:
    """Random qrels and run lines in the tool's formats: dozens of topics,
    some without relevant text, judged, non-relevant and unjudged articles,
    results past the document end, whole articles, X/-1 offsets, ties and
    unread rank/score columns, results nested in earlier ones (Focused, RiC;
    in non-relevant text, where the tool's double counting does not show),
    relchars differing from the passages, 6-field lines."""
    qrels: List[str] = []
    run: List[str] = []
    for tid in rng.sample(range(100, 999), rng.randint(12, 40)):
        docs = {}
        n_rel = 0 if rng.random() < 0.1 else rng.randint(1, 7)
        for di in range(n_rel + rng.randint(0 if n_rel else 1, 6)):
            name = "d%d" % rng.randint(1, 60)
            if name in docs:
                continue
            L = rng.randint(50, 3000)
            if di < n_rel:
                cuts = sorted(rng.sample(range(L), min(L, 2 * rng.randint(1, 3))))
                spans = [(cuts[k], cuts[k + 1]) for k in range(0, len(cuts) - 1, 2) if cuts[k + 1] > cuts[k]]
                spans = spans or [(0, L)]
                relchars = sum(e - s for s, e in spans)
                if rng.random() < 0.05:
                    relchars += rng.randint(-relchars + 1, 50)      # relchars differs from the passages
                bep = spans[0][0] if rng.random() < 0.8 else rng.randint(0, L - 1)
                if rng.random() < 0.04:                            # 6 fields: the tool drops field 6
                    qrels.append("%d Q0 %s %d %d %d:%d" % (tid, name, relchars, L, spans[0][0],
                                                           spans[0][1] - spans[0][0]))
                    spans, bep = [], -1
                else:
                    qrels.append("%d Q0 %s %d %d %d %s" % (tid, name, relchars, L, bep,
                                                          " ".join("%d:%d" % (s, e - s) for s, e in spans)))
                docs[name] = (L, spans, bep)
            else:
                docs[name] = (L, [], -1)
                if rng.random() < 0.1:                             # a bep on a non-relevant line
                    qrels.append("%d Q0 %s 0 %d %d %d:5" % (tid, name, L, rng.randint(0, L - 1), 0))
                else:
                    qrels.append("%d Q0 %s 0 %d" % (tid, name, L))
        if rng.random() < 0.1:
            continue                                               # a qrels topic without results
        pool = list(docs) + ["u%d" % rng.randint(1, 30) for _ in range(rng.randint(0, 4))]
        pool = list(dict.fromkeys(pool))
        rng.shuffle(pool)
        pool = pool[: rng.randint(1, len(pool))]
        lines = []
        for doc in pool:
            L, spans, bep = docs.get(doc, (rng.randint(50, 3000), [], -1))
            if task == "b":
                off = max(0, bep + rng.randint(-700, 700)) if bep >= 0 else rng.randint(0, L)
                lines.append((doc, str(bep if bep >= 0 and rng.random() < 0.2 else off), str(rng.randint(0, L))))
                continue
            k = rng.randint(1, 3)
            cuts = sorted(rng.sample(range(L + 200), 2 * k))       # may run past the document
            segs = [(cuts[2 * m], cuts[2 * m + 1]) for m in range(k)]
            if rng.random() < 0.15:
                segs = [(0, L)]
            rng.shuffle(segs)
            own = [(doc, str(s), str(e - s)) for s, e in segs]
            if rng.random() < 0.3:                                 # nested in non-relevant text
                s, e = segs[0]
                gaps = _gaps(spans, s + 1, e - 1)
                if gaps:
                    a, b = rng.choice(gaps)
                    x = rng.randint(a, b - 2)
                    own.insert(1, (doc, str(x), str(rng.randint(1, b - x))))
            lines.extend(own)
        if task == "f":                                            # interleave articles (Focused)
            keys = [ln[0] for ln in lines]
            rng.shuffle(keys)
            per: Dict[str, list] = {}
            for ln in lines:
                per.setdefault(ln[0], []).append(ln)
            lines = [per[k].pop(0) for k in keys]
        if rng.random() < 0.3:
            i = rng.randrange(len(lines))
            lines[i] = (lines[i][0], rng.choice(["X", "-1"]), "0")
        score = 100.0
        for rank, (doc, off, ln) in enumerate(lines, 1):
            if rng.random() < 0.7:
                score -= rng.choice([0.5, 1, 2.25])                # else a tie
            cols = ("r%d" % rank, "high") if rng.random() < 0.02 else (str(rank), repr(score))
            run.append("%d Q0 %s %s %s runA %s %s" % (tid, doc, cols[0], cols[1], off, ln))
    run.append("9999 Q0 zz 1 1.0 runA 0 10")                       # a topic the qrels do not know
    return {"qrels": qrels, "run": run}


def run_tool(tmp: Path, case, task: str, complete: bool, n: int, beta: float):
    (tmp / "qrels").write_text("".join(x + "\n" for x in case["qrels"]))
    (tmp / "run").write_text("".join(x + "\n" for x in case["run"]))
    cmd = ["java", "-Duser.language=en", "-Duser.country=US", "-cp", CP, "inex_eval.inex_eval",
           "-" + task, "-q"] + (["-c"] if complete else []) + ["-n", str(n), "-beta", repr(beta),
                                                               str(tmp / "qrels"), str(tmp / "run")]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "Exception" not in p.stderr, p.stderr
    out: Dict[str, Dict[str, float]] = {}
    for line in p.stdout.splitlines():
        assert not line.startswith(("ERROR", "Error")), line
        parts = line.split()
        if len(parts) == 3 and not line.startswith("<"):
            out.setdefault(parts[1], {})[parts[0]] = float(parts[2])
    return out


def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@needs_inex
@pytest.mark.parametrize("task", ["f", "r", "b"])
def test_compat_inex2008_equals_inex_eval(task, tmp_path):
    ctx = {"r": "RiC", "b": "BiC"}.get(task)
    if task == "f":
        names = {"iP[0.00]": "iP[0.00]", "iP[0.01]": "iP[0.01]", "iP[0.05]": "iP[0.05]", "iP[0.10]": "iP[0.10]",
                 "AiP": "MAiP"}
    else:
        names = {"gP[%d]" % k: "gP_%s@%d" % (ctx, k) for k in GP_CUTOFFS}
        names["AgP"] = "MAgP_" + ctx
    rng = random.Random(SEED * 1000 + 2008 + ord(task))
    agree = values = 0
    for c in range(N_CASES):
        case = gen_case(rng, task)
        complete = c % 2 == 1
        n, beta = (500, 0.25) if c % 5 else (rng.choice([100, 250, 1000]), rng.choice([0.5, 1.0, 2.0]))
        tool = run_tool(tmp_path, case, task, complete, n, beta)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            q = X.read_passage_qrels(tmp_path / "qrels", compat="inex2008")
            r = X.read_fol_run(tmp_path / "run", q, compat="inex2008")
            opts = {} if task == "f" else {"ric_beta": beta, "bep_distance": n}
            pq = X.evaluate(q, r, list(names.values()), per_query=True, complete=complete, compat="inex2008", **opts)
            means = X.evaluate(q, r, list(names.values()), complete=complete, compat="inex2008", **opts)
        topics = sorted(t for t in tool if t != "all")
        for tool_name, ours in names.items():
            assert sorted(pq[ours]) == topics, (c, ours)
            for t in topics:
                values += 1
                assert same(pq[ours][t], tool[t][tool_name]), (c, t, ours, pq[ours][t], tool[t][tool_name])
                agree += 1
            mean_name = {"AiP": "MAiP", "AgP": "MAgP"}.get(tool_name, tool_name)
            values += 1
            assert same(means[ours], tool["all"][mean_name]), (c, ours, means[ours], tool["all"][mean_name])
            agree += 1
    print(f"inex_eval -{task}: {N_CASES} cases, {agree}/{values} values identical")


# ---------------------------------------------------------------------------
# RePrec 0.32
# ---------------------------------------------------------------------------

PERL_DRIVER = r"""
use strict; use warnings; use JSON::PP; require RePrec::PRR;
my $json = JSON::PP->new;
while (my $line = <STDIN>) {
  my $in = $json->decode($line);
  my @dist = map { [ $_->[0] + 0, $_->[1] + 0 ] } @{ $in->{dist} };
  my $rp = RePrec::PRR->new(\@dist);
  my @out = map { my @r = $rp->precision($_ + 0); defined $r[0] ? sprintf('%.17g', $r[0]->[1]) : undef }
            @{ $in->{points} };
  print $json->encode({ rels => sprintf('%.17g', $rp->{rels}), points => \@out }), "\n";
}
"""


def reprec(cases):
    data = "".join(json.dumps(c) + "\n" for c in cases)
    p = subprocess.run(["perl", "-I", LIB, "-e", PERL_DRIVER], input=data, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()]


def seqsum(values) -> float:
    """Left-to-right sum, as RePrec's loops (Python's sum() compensates since 3.12)."""
    acc = 0.0
    for v in values:
        acc += v
    return acc


def reprec_case(rng: random.Random):
    """Tie groups of quantised values, unretrieved assessed elements and a
    collection size (dyadic values, so that the recall base is exact), or
    non-dyadic values with every relevant element retrieved (no rest)."""
    dyadic = rng.random() < 0.7
    quant = [0.0, 0.25, 0.5, 0.75, 1.0] if dyadic else [0.0, 0.1, 0.3, 0.7, 1.0]
    groups = [[rng.choice(quant) for _ in range(rng.choice([1, 1, 1, 2, 3, 5]))] for _ in range(rng.randint(1, 15))]
    extra = [rng.choice([0.25, 0.5, 1.0]) for _ in range(rng.randint(0, 4))] if dyadic else []
    if not any(v for g in groups for v in g) and not extra:
        groups[0][0] = 1.0
    return groups, extra, dyadic


@needs_reprec
def test_compat_reprec_equals_reprec():
    rng = random.Random(SEED * 1000 + 2002)
    cases, ours = [], []
    for c in range(10 * N_CASES):
        groups, extra, with_rest = reprec_case(rng)
        points = rng.choice([10, 100])
        els, spans, scores = [], [], []
        for gi, g in enumerate(groups):
            for v in g:
                d = "d%d" % len(spans)
                if v > 0:
                    els.append((d, 0, 10, 1.0, v))
                spans.append((d, 0, 10))
                scores.append(100.0 - gi)
        els += [("u%d" % k, 0, 10, 1.0, v) for k, v in enumerate(extra)]
        q = X.XmlQrels.from_elements({"1": els})
        run = X.XmlRun.from_spans({"1": spans})
        run.score[:] = scores
        names = ["Precall[%s]" % level_name(k, points) for k in range(1, points + 1)]
        opts = {"collection_size": len(spans) + len(extra) + rng.randint(0, 40)} if with_rest else {}
        res = X.evaluate(q, run, names, per_query=True, compat="reprec", quantisation="generalised",
                         precall_points=points, **opts)
        ours.append([res[n]["1"] for n in names])
        dist = [[seqsum(g), seqsum([1 - v for v in g])] for g in groups]
        if with_rest:   # the unretrieved rest as the final tie group
            got = seqsum([r_ for r_, _ in dist])
            total = seqsum([v for *_, v in els])   # exact: dyadic values
            rest = max(total - got, 0.0)
            dist.append([rest, max(opts["collection_size"] - len(spans) - rest, 0.0)])
        cases.append({"dist": dist, "points": [k / points for k in range(1, points + 1)]})
    agree = levels = defect = 0
    for case, out, mine in zip(cases, reprec(cases), ours):
        rels = float(out["rels"])
        for x, theirs, m in zip(case["points"], out["points"], mine):
            nr = x * rels
            if nr > int(nr) and abs(nr - round(nr)) < 1e-9 * max(1.0, nr):
                defect += 1   # RePrec's ceiling without tolerance
                continue
            levels += 1
            assert m == float(theirs), (case, x, m, theirs)
            agree += 1
    print(f"RePrec: {len(cases)} cases, {agree}/{levels} recall levels identical, "
          f"{defect} levels at RePrec's float-ceiling defect left out")
    assert agree > 0


@needs_inex
@pytest.mark.parametrize("task, run, warning", [
    ("f", ["1 Q0 a 1 1 r 0 100", "1 Q0 a 2 1 r 50 100"], "rejects such a run"),       # overlap
    ("r", ["1 Q0 a 1 1 r 0 10", "1 Q0 b 2 1 r 0 10", "1 Q0 a 3 1 r 20 10"], "not contiguous"),
    ("b", ["1 Q0 a 1 1 r 0 10", "1 Q0 a 2 1 r 20 10"], "several results for one article"),
])
def test_runs_the_tool_rejects_are_flagged(task, run, warning, tmp_path):
    """The tool prints an error and no numbers; compat="inex2008" evaluates
    the run and warns that the tool rejects it."""
    (tmp_path / "qrels").write_text("1 Q0 a 100 1000 0 0:100\n1 Q0 b 0 1000\n")
    (tmp_path / "run").write_text("".join(x + "\n" for x in run))
    cmd = ["java", "-Duser.language=en", "-Duser.country=US", "-cp", CP, "inex_eval.inex_eval", "-" + task, "-q",
           str(tmp_path / "qrels"), str(tmp_path / "run")]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120).stdout
    assert any(line.startswith(("ERROR", "Error")) for line in out.splitlines()), out
    assert not any(line.split()[:2] == ["num_q", "all"] for line in out.splitlines() if line.strip())
    q = X.read_passage_qrels(tmp_path / "qrels", compat="inex2008")
    r = X.read_fol_run(tmp_path / "run", q, compat="inex2008")
    name = {"f": "MAiP", "r": "MAgP_RiC", "b": "MAgP_BiC"}[task]
    with pytest.warns(UserWarning, match=warning):
        X.evaluate(q, r, [name], compat="inex2008")
