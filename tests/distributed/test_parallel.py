"""The package's thread pool (irscore.core.parallel)."""
import os
import subprocess
import sys
from pathlib import Path

import irscore
from irscore.core import parallel

SRC = str(Path(irscore.__file__).resolve().parents[1])

DAEMON_AT_EXIT = """
import sys, threading, time
import irscore
Q = {f"q{i}": {f"d{j}": j % 3 for j in range(30)} for i in range(40)}
R = {f"q{i}": {f"d{j}": float((j * 7) % 11) for j in range(50)} for i in range(40)}
started = threading.Event()
def loop():
    while True:
        try:
            irscore.evaluate(Q, R, ["map", "ndcg_cut_10"], n_jobs=2)
        except BaseException as exc:    # reported at once: the interpreter is going away
            sys.stderr.write("ERROR %r\\n" % (exc,))
            sys.stderr.flush()
            raise
        started.set()
threading.Thread(target=loop, daemon=True).start()
started.wait(60)
time.sleep(0.05)
"""


def test_a_daemon_thread_evaluating_at_interpreter_exit():
    """The main thread exits while a daemon thread evaluates on two threads:
    the pool refuses new work then, and what it refuses runs in the calling
    thread (it raised "cannot schedule new futures after shutdown" in about
    2 of 3 runs)."""
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for _ in range(6):
        out = subprocess.run([sys.executable, "-c", DAEMON_AT_EXIT], capture_output=True, text=True, env=env,
                             timeout=120)
        assert out.returncode == 0, out.stderr
        assert "ERROR" not in out.stderr and "Traceback" not in out.stderr and "Exception" not in out.stderr, \
            out.stderr


def test_spans_the_pool_refuses_run_in_the_calling_thread(monkeypatch):
    class Closed:
        def submit(self, *args):
            raise RuntimeError("cannot schedule new futures after interpreter shutdown")

    monkeypatch.setattr(parallel, "pool", lambda: Closed())
    assert parallel.run(lambda lo, hi: (lo, hi), [(0, 1), (1, 3), (3, 4)]) == [(0, 1), (1, 3), (3, 4)]
