"""Ctrl-C (SIGINT) during long native calls: honoured within a bound, and the
process evaluates correctly afterwards.

Each case runs in a subprocess: a timer thread sends SIGINT to the process a
second into a call that would run for several seconds; the child measures the
time from the signal to the KeyboardInterrupt, then makes a correct call.  The
bound is generous for a loaded machine (the checks come every few
milliseconds of work); a call that ignored the signal until it returned would
take seconds."""
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

LIMIT = 300
BOUND = 0.5     # seconds from SIGINT to KeyboardInterrupt

_HARNESS = """
    import os, signal, sys, threading, time
    import numpy as np
    import irscore

    def interrupted(call, after=1.0):
        sent = []

        def fire():
            time.sleep(after)
            sent.append(time.perf_counter())
            os.kill(os.getpid(), signal.SIGINT)

        t = threading.Thread(target=fire, daemon=True)
        t.start()
        t0 = time.perf_counter()
        try:
            while time.perf_counter() - t0 < 60:
                call()
                if sent:
                    break
        except KeyboardInterrupt:
            latency = time.perf_counter() - sent[0]
            t.join()
            return latency
        raise AssertionError(f"no KeyboardInterrupt (one call took {time.perf_counter() - t0:.2f} s)")
"""


def _child(body, *args):
    code = textwrap.dedent(_HARNESS) + textwrap.dedent(body)
    got = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                         timeout=LIMIT)
    assert got.returncode == 0, got.stderr[-3000:]
    print(got.stdout)
    return got.stdout


def _latency(out):
    line = [x for x in out.splitlines() if x.startswith("latency ")][-1]
    return float(line.split()[1])


@pytest.mark.slow
def test_sigint_during_a_large_read_is_honoured(tmp_path):
    path = tmp_path / "run.txt"
    out = _child("""
        path = sys.argv[1]
        with open(path, "w") as f:                 # 3M lines, ~100 MiB: read in parts from a memory map
            for b in range(300):
                f.write("".join(f"q{(b * 10000 + i) // 1000} Q0 doc{i} {i % 1000 + 1} {1.0 / (i + 1)!r} run\\n"
                                for i in range(10000)))
        small = path + ".small"
        with open(small, "w") as f:
            f.write("q1 Q0 a 1 2.0 r\\nq1 Q0 b 2 1.0 r\\n")
        t0 = time.perf_counter()
        n = irscore.read_run(path).n_entries
        print("read", time.perf_counter() - t0)
        print("latency", interrupted(lambda: irscore.read_run(path), after=0.3))
        assert irscore.read_run(path).n_entries == n == 3_000_000
        assert irscore.evaluate({"q1": {"a": 1}}, small, "P@1") == {"P@1": 1.0}
        print("ok")
    """, path)
    assert out.endswith("ok\n"), out
    assert _latency(out) < BOUND, out


def test_sigint_during_a_large_batch_call_is_honoured():
    out = _child("""
        from irscore import batch
        rng = np.random.default_rng(0)
        scores = rng.random((20000, 1000))
        labels = rng.integers(0, 4, size=(20000, 1000))
        t0 = time.perf_counter()
        batch.evaluate(scores, labels, ["nDCG@10", "AP"], n_jobs=1)
        print("call", time.perf_counter() - t0)
        print("latency", interrupted(lambda: batch.evaluate(scores, labels, ["nDCG@10", "AP"], n_jobs=1)))
        for n_jobs in (1, 2):
            print("latency", interrupted(lambda: batch.evaluate(scores, labels, ["nDCG@10", "AP"], n_jobs=n_jobs),
                                         after=0.2))
        got = batch.evaluate(scores[:3], labels[:3], ["P@1"])["P@1"]
        want = [float(labels[q, np.argmax(scores[q])] >= 1) for q in range(3)]
        assert got.tolist() == want, (got, want)
        ev = batch.Evaluator(["nDCG@10"])
        print("latency", interrupted(lambda: ev(scores, labels), after=0.2))
        assert ev(scores[:3], labels[:3])["nDCG@10"].shape == (3,)
        print("ok")
    """)
    assert out.endswith("ok\n"), out
    lat = [float(x.split()[1]) for x in out.splitlines() if x.startswith("latency ")]
    assert len(lat) == 4 and max(lat) < BOUND, out


def test_a_python_sigint_handler_still_runs_and_no_handler_is_left_behind():
    out = _child("""
        import signal
        from irscore import batch
        seen = []

        def handler(sig, frame):
            seen.append(sig)
            raise KeyboardInterrupt("mine")

        signal.signal(signal.SIGINT, handler)
        rng = np.random.default_rng(0)
        scores = rng.random((20000, 1000))
        labels = rng.integers(0, 4, size=(20000, 1000))
        lat = interrupted(lambda: batch.evaluate(scores, labels, ["nDCG@10", "AP"], n_jobs=1), after=0.2)
        assert seen == [signal.SIGINT], seen
        assert signal.getsignal(signal.SIGINT) is handler
        # after the call, SIGINT goes straight to the Python handler again
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt as exc:
            assert str(exc) == "mine"
        assert seen == [signal.SIGINT] * 2, seen
        print("latency", lat)
        print("ok")
    """)
    assert out.endswith("ok\n"), out
    assert _latency(out) < BOUND, out
