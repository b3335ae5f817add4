"""The R&S kernels' scratch cache (irs_scratch.h): blocks a call frees are reused by
the next call, so no kernel may read scratch it did not write.  In test mode every
block is cached and a reused block is filled with 0xA5 bytes first: any read of
stale or never-written scratch then changes the numbers, which must equal those of
the default mode bit for bit, and the one-pair-at-a-time reference."""
from __future__ import annotations

import random

import numpy as np
import pytest
from test_organization_pairs import TOL, both_kernels, ebc_both, overlapping_clustering, repeated_topic

from irscore import _org_core, _org_rs
from irscore._org_core import Side
from irscore.organization import Organization
from irscore.organization.align import pair_arrays


@pytest.fixture
def poisoned_cache():
    _org_core._scratch_test_mode(True)
    try:
        yield
    finally:
        _org_core._scratch_test_mode(False)


def _cases(seed: int, n: int):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        nd = rng.randint(1, 200)
        G = repeated_topic(rng, nd, rng.choice([0.0, 0.1, 0.5]), rng.randint(1, 20), 4, 8)
        X = repeated_topic(rng, nd + 10, rng.choice([0.0, 0.01, 0.1, 0.5]), rng.randint(1, 25), 4, 8)
        out.append((Organization(G), Organization(X), rng.choice([0.5, 7.5]), rng.random() < 0.3,
                    rng.random() < 0.7))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_poisoned_reuse_changes_nothing(seed):
    cases = _cases(500 + seed, 60)
    default = [both_kernels(g, x, c, u, t) for g, x, c, u, t in cases]
    _org_core._scratch_test_mode(True)
    try:
        # twice: the second pass reuses (poisoned) blocks of every size the first left
        for _ in range(2):
            for (g, x, c, u, t), (new0, ref0) in zip(cases, default):
                new, ref = both_kernels(g, x, c, u, t)
                np.testing.assert_array_equal(new, new0)
                np.testing.assert_array_equal(ref, ref0)
                np.testing.assert_allclose(new, ref, rtol=0, atol=TOL)
    finally:
        _org_core._scratch_test_mode(False)


def test_poisoned_reuse_relatedness_and_extended_bcubed(poisoned_cache):
    rng = random.Random(77)
    for _ in range(150):
        docs = ["d%d" % i for i in range(rng.randint(1, 60))]
        G = overlapping_clustering(rng, docs, rng.randint(1, 6), rng.randint(1, 4))
        X = overlapping_clustering(rng, docs, rng.randint(1, 6), rng.randint(1, 4))
        if not G or not X:
            continue
        new, ref = ebc_both(Organization(G), Organization(X))
        np.testing.assert_allclose(new, ref, rtol=0, atol=TOL)


def _big_topic(rng: random.Random, n_docs: int, repeat: float):
    return repeated_topic(rng, n_docs, repeat, 60, 200, 20)


def _rs(gold: Organization, system: Organization) -> np.ndarray:
    a = pair_arrays(gold, system, gold.topics)
    res = []
    for x, g in ((a[4:8], a[0:4]), (a[0:4], a[4:8])):
        pr, re = np.zeros(1), np.zeros(1)
        _org_rs.rs_side(Side(*x), Side(*g), a[8], pr, re, c=7.5, uniform=False, foreign_tail=True)
        res.extend([pr, re])
    return np.concatenate(res)


def test_large_blocks_reused_across_topics():
    # topics of ~100,000 occurrences: scratch blocks above the default 256 KiB
    # threshold, which are cached; a topic evaluated after another (whose blocks it
    # reuses) gives the bits it gives with fresh memory
    rng = random.Random(5)
    a = (Organization(_big_topic(rng, 60_000, 0.1)), Organization(_big_topic(rng, 70_000, 0.1)))
    b = (Organization(_big_topic(rng, 50_000, 0.05)), Organization(_big_topic(rng, 60_000, 0.2)))
    _org_core.release_scratch()
    fresh_b = _rs(*b)
    _org_core.release_scratch()
    fresh_a = _rs(*a)
    for _ in range(2):
        np.testing.assert_array_equal(_rs(*b), fresh_b)
        np.testing.assert_array_equal(_rs(*a), fresh_a)
    _org_core.release_scratch()


def test_concurrent_calls_share_the_cache(poisoned_cache):
    # the kernels release the GIL: calls on several threads take and return
    # blocks of the one cache at once; each must still get its own memory
    from concurrent.futures import ThreadPoolExecutor

    cases = _cases(900, 40)
    _org_core._scratch_test_mode(False)
    want = [both_kernels(g, x, c, u, t)[0] for g, x, c, u, t in cases]
    _org_core._scratch_test_mode(True)
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            got = list(pool.map(lambda case: both_kernels(*case)[0], cases))
            for a, b in zip(got, want):
                np.testing.assert_array_equal(a, b)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="fork() only")
def test_a_child_forked_while_threads_use_the_cache_can_still_allocate(poisoned_cache):
    """fork() while another thread held the cache's lock left the child a lock
    nobody releases: its first large allocation spun for ever (found in review;
    in test mode every block goes through the cache, so the first forks hung)."""
    import os
    import threading
    import time
    i32 = lambda a: np.asarray(a, dtype=np.int32)  # noqa: E731
    i64 = lambda a: np.asarray(a, dtype=np.int64)  # noqa: E731
    args = [i64([0, 3]), i32([0, 1, 2]), i32([0, 0, 1]), i32([0, 1, 2]),
            i64([0, 3]), i32([0, 1, 2]), i32([0, 1, 1]), i32([0, 1, 1])]

    def call():
        pr, re = np.zeros(1), np.zeros(1)
        _org_rs.rs_side(Side(*args[:4]), Side(*args[4:]), 3, pr, re, c=2.5, uniform=False, foreign_tail=True)
        return pr[0], re[0]

    want = call()
    stop = threading.Event()

    def worker():
        while not stop.is_set():
            call()

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    hung = 0
    try:
        for _ in range(40):
            pid = os.fork()
            if pid == 0:            # the child: one call, exit 0 when its values are right
                try:
                    os._exit(0 if call() == want else 3)
                except BaseException:
                    os._exit(4)
            t0 = time.monotonic()
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    assert os.waitstatus_to_exitcode(status) == 0
                    break
                if time.monotonic() - t0 > 10:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                    hung += 1
                    break
                time.sleep(0.001)
            if hung:
                break
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert hung == 0, "a forked child hung in the scratch cache"
