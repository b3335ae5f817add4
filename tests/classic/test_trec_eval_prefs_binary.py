"""Differential tests of ``irscore eval -R prefs`` / ``-R qrels_prefs`` against a
trec_eval 10 binary (``TREC_EVAL=/path/to/trec_eval``; skipped without it), on
random judgments: several judgment groups, groups of one sub-group (equivalence
classes) and of several (partial orders with transitive preferences), many
levels with ties, decimal levels, judged documents not retrieved, retrieved
documents not judged, score ties, queries only in the run, queries only in the
judgments (with ``-c``), ``-M``, ``-Z`` z-score files, ``-n``.  Every output line
must be identical.

The preferences of a group are generated consistent (trec_eval aborts on
contradictory ones): each group draws a hidden value per document and every
sub-group's levels are a non-decreasing function of it that is 0 exactly at 0."""
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import irscore

TREC_EVAL = os.environ.get("TREC_EVAL")
pytestmark = pytest.mark.skipif(not TREC_EVAL, reason="no trec_eval binary (set TREC_EVAL)")
ENV = {**os.environ, "PYTHONPATH": str(Path(irscore.__file__).resolve().parents[1])}


def _docs(rng, n_max=40):
    return list(dict.fromkeys(f"D{rng.randint(0, 60)}" for _ in range(rng.randint(1, n_max))))


def _run_lines(rng, qids, docs_of, seed):
    run = []
    for qid in qids:
        docs = docs_of[qid]
        scores = [round(rng.random(), rng.choice([1, 2, 4])) for _ in docs]
        for i in rng.sample(range(len(docs)), len(docs)):
            run.append(f"{qid} Q0 {docs[i]} {i} {scores[i]} tag{seed}")
    rng.shuffle(run)
    return "\n".join(run) + "\n"


def _level_text(rng, v, half):
    """The level v (halved for the whole sub-group when ``half``) in one of its spellings."""
    if not v:
        return rng.choice(["0", "0.0"])
    return f"{v / 2}" if half else rng.choice([f"{v}", f"{v}.0"])


def _prefs_query(rng, q, pool, qrels_prefs):
    lines = []
    for jg in rng.sample(["0", "1", "a", "10", "B"], k=rng.randint(1, 3)):
        p_zero = rng.choice([0.0, 0.2, 0.5, 0.8])   # more nonrelevant than relevant documents, or fewer
        hidden = {d: 0 if rng.random() < p_zero else rng.randint(1, 6) for d in pool}
        n_sub = 1 if qrels_prefs or rng.random() < 0.4 else rng.randint(2, 4)
        for jsg in rng.sample(["0", "1", "2", "x", "11"], k=n_sub):
            k = rng.choice([1, 1, 2, 3])
            half = rng.random() < 0.3
            size = rng.randint(1, len(pool)) if n_sub == 1 else rng.randint(1, min(len(pool), 8))
            for d in rng.sample(pool, k=size):
                h = hidden[d]
                v = 0 if h == 0 else (h + k - 1) // k
                text = _level_text(rng, v, half)
                lines.append(f"{q} {jg} {d} {text}" if qrels_prefs else f"{q} {jg} {jsg} {d} {text}")
    return lines


def _case(seed, tmp_path, qrels_prefs):
    rng = random.Random(seed)
    qids = sorted({str(rng.randint(1, 400)) for _ in range(rng.randint(1, 5))})
    docs_of = {q: _docs(rng) for q in qids}
    lines = []
    for q in qids:
        pool = list(dict.fromkeys(rng.sample(docs_of[q], k=rng.randint(0, len(docs_of[q])))
                                  + [f"X{i}" for i in range(rng.randint(0, 6))])) or ["X0"]
        lines += _prefs_query(rng, q, pool, qrels_prefs)
    rng.shuffle(lines)
    if rng.random() < 0.2:
        # not as the last line: trec_eval 10 reads past its buffer after a final comment line
        lines.insert(rng.randint(0, len(lines) - 1), "# a comment")
    complete = rng.random() < 0.3
    ranked = [q for q in qids if not complete or rng.random() < 0.7] or qids[:1]
    extra = [str(rng.randint(500, 600))] if rng.random() < 0.3 else []
    for q in extra:
        docs_of[q] = _docs(rng)
    (tmp_path / "p").write_text("\n".join(lines) + "\n")
    (tmp_path / "r").write_text(_run_lines(rng, ranked + extra, docs_of, seed))
    opts = ["-q", "-R", "qrels_prefs" if qrels_prefs else "prefs", "-m", "all_prefs"]
    if complete:
        opts.append("-c")
    if rng.random() < 0.3:
        opts += ["-M", str(rng.randint(1, 30))]
    return opts


def _compare(opts, files):
    te = subprocess.run([TREC_EVAL, *opts, *files], capture_output=True, text=True)
    assert te.returncode == 0, te.stderr
    me = subprocess.run([sys.executable, "-m", "irscore", "eval", *opts, *files], capture_output=True, text=True,
                        env=ENV)
    assert me.returncode == 0, me.stderr
    want, got = te.stdout.splitlines(), me.stdout.splitlines()
    assert len(got) == len(want)
    assert [(w, g) for w, g in zip(want, got) if w != g] == []
    return len(want)


@pytest.mark.parametrize("seed", range(150))
def test_prefs_like_trec_eval(tmp_path, seed):
    opts = _case(seed, tmp_path, False)
    assert _compare(opts, [str(tmp_path / "p"), str(tmp_path / "r")]) > 0


@pytest.mark.parametrize("seed", range(100))
def test_qrels_prefs_like_trec_eval(tmp_path, seed):
    opts = _case(10_000 + seed, tmp_path, True)
    assert _compare(opts, [str(tmp_path / "p"), str(tmp_path / "r")]) > 0


@pytest.mark.parametrize("seed", range(10))
def test_prefs_set_and_summary_only_like_trec_eval(tmp_path, seed):
    """The ``prefs`` set (trec_eval's default choice for preferences), no -q."""
    opts = [o for o in _case(20_000 + seed, tmp_path, seed % 2 == 1) if o != "-q"]
    opts[opts.index("all_prefs")] = "prefs"
    assert _compare(opts, [str(tmp_path / "p"), str(tmp_path / "r")]) > 0


@pytest.mark.parametrize("seed", range(10))
def test_prefs_with_zscores_like_trec_eval(tmp_path, seed):
    """-Z: every query and measure has a line (trec_eval's binary search reads past
    the end of its table for a name that sorts after every name in the file)."""
    rng = random.Random(30_000 + seed)
    opts = _case(30_000 + seed, tmp_path, seed % 2 == 1)
    qids = sorted({line.split()[0] for line in (tmp_path / "p").read_text().splitlines() if not line.startswith("#")})
    names = ["runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
             "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
             "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp"]
    lines = [f"{q} {n} {round(rng.uniform(-0.5, 3), 3)} {round(rng.uniform(0.05, 2), 3)}" for q in qids for n in names]
    (tmp_path / "z").write_text("\n".join(lines) + "\n")
    assert _compare(opts + ["-Z", str(tmp_path / "z")], [str(tmp_path / "p"), str(tmp_path / "r")]) > 0


@pytest.mark.parametrize("seed", range(5))
def test_prefs_no_summary_like_trec_eval(tmp_path, seed):
    opts = _case(40_000 + seed, tmp_path, seed % 2 == 1) + ["-n"]
    assert _compare(opts, [str(tmp_path / "p"), str(tmp_path / "r")]) > 0
