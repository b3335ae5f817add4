"""Ctrl-C during the resampling tests: SIGINT one second into a long
randomization test, bootstrap or randomised Tukey HSD raises KeyboardInterrupt
within about a second, and the same process then computes a small test
correctly.  Each case runs in a child process with a time limit."""
import itertools
import os
import select
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT to a child process needs POSIX")

CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    import irscore
    from irscore.stats import paired
    rng = np.random.default_rng(0)
    case = sys.argv[1]
    if case == "compare":
        qrels = {str(q): {"a": 1, "b": 0} for q in range(300)}
        runs = {name: {str(q): {"a": float(rng.random()), "b": float(rng.random())} for q in range(300)}
                for name in ("x", "y")}
    print("start", flush=True)
    t = time.perf_counter()
    try:
        if case == "compare":
            irscore.compare(qrels, runs, "P_1", test="randomization", n_resamples=10 ** 9, seed=1)
        elif case == "randomization":
            paired.randomization_test([rng.normal(size=300)], n_resamples=10 ** 9, seed=1)
        elif case == "exact":      # 2^29 sign vectors per pair, eight pairs
            paired.randomization_test([rng.normal(size=29) for _ in range(8)], n_resamples=10 ** 9, seed=1)
        elif case == "bootstrap":
            paired.bootstrap_test([rng.normal(size=20000)], n_resamples=10 ** 7, seed=1)
        elif case == "tukey_randomized":
            paired.tukey_randomized(rng.random((2000, 20)), n_resamples=10 ** 7, seed=1)
        print("finished", time.perf_counter() - t, flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    p, exact = paired.randomization_test([np.array([1.0, 2.0, 3.0, -1.0])], n_resamples=100, seed=1)
    pb, lo, hi = paired.bootstrap_test([np.array([0.1, 0.3, 0.2, 0.4, 0.1])], n_resamples=200, seed=2, ci="percentile")
    print("after", repr(float(p[0])), bool(exact[0]), repr(float(lo[0])), repr(float(hi[0])), flush=True)
""")


def _exact_p(d):
    obs = abs(sum(d))
    hits = sum(abs(sum(s * x for s, x in zip(signs, d))) >= obs - 1e-12
               for signs in itertools.product((1, -1), repeat=len(d)))
    return hits / 2 ** len(d)


@pytest.mark.parametrize("case", ["compare", "randomization", "exact", "bootstrap", "tukey_randomized"])
def test_sigint_interrupts_a_long_resampling_test(case):
    proc = subprocess.Popen([sys.executable, "-c", CHILD, case], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "start"
        time.sleep(1.0)
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        ready, _, _ = select.select([proc.stdout], [], [], 20.0)    # the time limit
        latency = time.perf_counter() - sent
        line = proc.stdout.readline().strip() if ready else "(still running 20 s after SIGINT)"
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert line == "interrupted", (line, err)
    assert latency < 1.0, f"KeyboardInterrupt {latency:.2f} s after SIGINT"
    assert proc.returncode == 0, err
    words = rest.split()
    assert words[0] == "after"
    assert float(words[1]) == _exact_p([1.0, 2.0, 3.0, -1.0]) and words[2] == "True"
    lo, hi = float(words[3]), float(words[4])
    assert 0.1 <= lo <= 0.22 <= hi <= 0.4          # a percentile interval of the mean 0.22

