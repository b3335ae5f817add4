"""Means are running sums in query order, as trec_eval computes them (a case where
the pairwise sum prints another 4th decimal)."""
import subprocess
import sys

import numpy as np

import irscore


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
