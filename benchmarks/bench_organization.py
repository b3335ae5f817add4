"""Timing of Reliability & Sensitivity (irscore.reliability_sensitivity).

1. One topic over 100 levels, the doubling scaling from 25,000 to 800,000
   occurrences with 0%, 1% and 10% repeated documents (target: doubling costs at
   most 2.2x; sizes timed round-robin, the minimum of --rounds rounds kept, the
   load average printed: on a shared machine the figures must be re-measured idle).
2. 10,000 topics of 200 ranked documents in 20 levels with clusters (target < 2 s).
3. With ``--heavy``: one topic where most documents have several memberships (50%
   and 75% of the occurrences repeat a document), 5,000 to 40,000 occurrences: the
   pairs of documents with four or more memberships are scored one pair at a time,
   so this grows faster than the occurrences (no target; measured to show it).

Times are for ``reliability_sensitivity`` on prebuilt ``Organization`` objects
(R and S, priority and relatedness: two kernel calls) — the first call includes the
one-off encoding of the organizations, the best of the following calls does not;
building the organizations from Python lists is timed apart.  No peer exists for the
generic measure (see the README), so there are no ratios here.

Run: ``PYTHONPATH=src python benchmarks/bench_organization.py [--quick] [--heavy]``
"""
from __future__ import annotations

import argparse
import os
import time
from typing import List, Tuple

import numpy as np

from irscore import _org_rs
from irscore._org_core import Side
from irscore.organization import Organization, reliability_sensitivity
from irscore.organization.align import pair_arrays


def one_topic(n_occ: int, n_levels: int, rng: np.random.Generator, multi: float) -> Tuple[list, list]:
    """A system and a gold organization of one topic.

    System: ``n_occ`` occurrences in ``n_levels`` levels, clusters of 1-20 documents;
    a fraction ``multi`` of the occurrences repeat a document already used (overlap).
    Gold: 70% of the system's documents plus 20% others, in n_levels/2 levels."""
    n_docs = int(n_occ * (1 - multi))
    docs = np.arange(n_docs)
    extra = rng.integers(0, n_docs, n_occ - n_docs)
    seq = np.concatenate([docs, extra])
    rng.shuffle(seq)
    system = _levels_from(seq, n_levels, rng)
    gold_docs = np.concatenate(
        [rng.choice(n_docs, int(0.7 * n_docs), replace=False), np.arange(n_docs, n_docs + n_docs // 5)]
    )
    rng.shuffle(gold_docs)
    gold = _levels_from(gold_docs, max(1, n_levels // 2), rng)
    return gold, system


def _levels_from(seq: np.ndarray, n_levels: int, rng: np.random.Generator) -> list:
    bounds = np.linspace(0, len(seq), n_levels + 1).astype(int)
    levels: List[list] = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        level = []
        i = a
        while i < b:
            k = int(rng.integers(1, 21))
            chunk = ["d%d" % d for d in dict.fromkeys(seq[i:min(b, i + k)].tolist())]
            level.append(chunk)
            i += k
        levels.append(level)
    return levels


def timed(fn, repeat: int) -> Tuple[float, float]:
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return first, best


def bench_one_topic(quick: bool, rounds: int) -> None:
    """Doubling scaling of one topic with 0%, 1% and 10% repeated documents, 25k to
    800k occurrences (target: each doubling costs at most 2.2x)."""
    sizes = [25_000, 50_000, 100_000] if quick else [25_000, 50_000, 100_000, 200_000, 400_000, 800_000]
    print("one topic, 100 levels, clusters of 1-20 documents, n=30, w_n=0.8")
    _scaling(sizes, (0.0, 0.01, 0.10), rounds)


def bench_heavy(quick: bool, rounds: int) -> None:
    """Doubling scaling of one topic where most documents have several memberships
    (50% and 75% of the occurrences repeat a document: about 2 and 4 memberships
    per document).  Pairs of two documents with four or more memberships, or with
    several on both sides, are scored one pair at a time, so this grows faster
    than the occurrences (no target; shown so the quadratic corner is measured)."""
    sizes = [5_000, 10_000, 20_000] if quick else [5_000, 10_000, 20_000, 40_000]
    print("one topic, many memberships per document (100 levels, clusters of 1-20, n=30, w_n=0.8)")
    _scaling(sizes, (0.5, 0.75), rounds)


def _scaling(sizes: List[int], multis: Tuple[float, ...], rounds: int) -> None:
    """For each fraction of repeated documents, the sizes are timed round-robin
    (``rounds`` rounds, each size once per round, the minimum kept), so a load
    change on a shared machine hits every size alike."""
    print("  (rs: the whole call; kernels: the two kernel calls alone, on aligned arrays;")
    print("   minimum over %d interleaved rounds; load average before: %s)" % (rounds, _load()))
    c = (1 - 0.8) * 30 / 0.8
    for multi in multis:
        rng = np.random.default_rng(0)
        cases = []
        for n_occ in sizes:
            gold_l, sys_l = one_topic(n_occ, 100, rng, multi)
            t0 = time.perf_counter()
            gold, system = Organization(gold_l), Organization(sys_l)
            build = time.perf_counter() - t0
            t0 = time.perf_counter()
            reliability_sensitivity(gold, system, n=30, w_n=0.8)
            first = time.perf_counter() - t0
            cases.append((n_occ, gold, system, pair_arrays(gold, system, gold.topics), build, first))
        best_rs = [float("inf")] * len(cases)
        best_k = [float("inf")] * len(cases)
        for _ in range(rounds):
            for i, (n_occ, gold, system, a, _, _) in enumerate(cases):
                o1, o2 = np.zeros(1), np.zeros(1)
                gs, ss = Side(*a[0:4]), Side(*a[4:8])
                t0 = time.perf_counter()
                reliability_sensitivity(gold, system, n=30, w_n=0.8)
                best_rs[i] = min(best_rs[i], time.perf_counter() - t0)
                t0 = time.perf_counter()
                _org_rs.rs_side(ss, gs, a[8], o1, o2, c=c, uniform=False, foreign_tail=True)
                _org_rs.rs_side(gs, ss, a[8], o1, o2, c=c, uniform=False, foreign_tail=True)
                best_k[i] = min(best_k[i], time.perf_counter() - t0)
        for i, (n_occ, _, _, _, build, first) in enumerate(cases):
            ratio = "" if i == 0 else "  doubling: rs x%.2f, kernels x%.2f" % (
                best_rs[i] / best_rs[i - 1], best_k[i] / best_k[i - 1])
            print(
                "  %7d occurrences, %4.1f%% repeated documents: rs %.3f s, kernels %.3f s "
                "(first call %.3f s, build from lists %.3f s)%s"
                % (n_occ, 100 * multi, best_rs[i], best_k[i], first, build, ratio)
            )
    print("  load average after: %s" % _load())


def _load() -> str:
    try:
        return " ".join("%.2f" % v for v in os.getloadavg())
    except OSError:  # not available on this platform
        return "n/a"


def bench_many_topics(quick: bool) -> None:
    rng = np.random.default_rng(1)
    n_topics = 2_000 if quick else 10_000
    gold_d, sys_d = {}, {}
    for t in range(n_topics):
        ranked = rng.permutation(400)[:200]
        sys_d["q%d" % t] = _levels_from(ranked, 20, rng)
        rel = rng.permutation(400)[:60]
        gold_d["q%d" % t] = _levels_from(rel, 3, rng)
    t0 = time.perf_counter()
    gold, system = Organization(gold_d), Organization(sys_d)
    build = time.perf_counter() - t0
    first, best = timed(lambda: reliability_sensitivity(gold, system), 3)
    print(
        "%d topics x 200 ranked documents in 20 levels (clusters of 1-20), gold 60 documents "
        "in 3 levels: rs %.3f s (first call with encoding %.3f s; building the organizations "
        "from lists %.3f s)" % (n_topics, best, first, build)
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (the minimum is kept)")
    ap.add_argument("--scaling-only", action="store_true", help="only the one-topic doubling scaling")
    ap.add_argument("--heavy", action="store_true",
                    help="also the scaling of a topic where most documents have several memberships")
    args = ap.parse_args()
    bench_one_topic(args.quick, args.rounds)
    if args.heavy:
        bench_heavy(args.quick, args.rounds)
    if args.scaling_only:
        return
    bench_many_topics(args.quick)


if __name__ == "__main__":
    main()
