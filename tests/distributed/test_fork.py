"""Fork safety: a child forked after a threaded call can make threaded calls.

Each scenario runs in a fresh interpreter (a subprocess with a timeout): the
parent makes a multi-threaded call (``n_jobs=2``), so the package's thread pool
exists and has live workers, then forks.  Before the pool was reset at fork, the
child inherited a pool whose workers did not exist and hung forever on its first
threaded call; here that shows as a timeout instead of a hung test run.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import irscore  # noqa: E402

# the directory irscore is imported from (src/ in a checkout, site-packages for a wheel)
SRC = Path(irscore.__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

PRELUDE = textwrap.dedent('''
    import os, sys
    import numpy as np
    import irscore
    from irscore import batch

    QRELS = {f"q{q}": {f"d{d}": (q + d) % 3 for d in range(0, 40, 3)} for q in range(16)}
    RUN = {f"q{q}": {f"d{d}": float((7 * d + q) % 23) for d in range(40)} for q in range(16)}
    SCORES = np.random.default_rng(0).random((16, 30))
    LABELS = (np.arange(16 * 30).reshape(16, 30) * 7) % 3

    def threaded_calls(_=None):
        a = irscore.evaluate(QRELS, RUN, ["AP", "nDCG@10"], per_query=True, n_jobs=2)
        b = batch.evaluate(SCORES, LABELS, ["AP", "nDCG@10"], n_jobs=2)
        return (round(sum(a["AP"].values()), 12), round(float(b["AP"].sum()), 12))

    EXPECTED = threaded_calls()       # the parent's threaded call: the pool now exists
''')


def _run(body: str, timeout: float = 120) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]))
    try:
        proc = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body)], env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:  # pragma: no cover (the regression this file guards)
        pytest.fail(f"deadlock: the forked child did not finish within {timeout} s")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_pool_map_with_fork_after_threaded_call() -> None:
    out = _run('''
        import multiprocessing as mp
        with mp.get_context("fork").Pool(2) as pool:
            got = pool.map_async(threaded_calls, range(4)).get(timeout=60)
        assert got == [EXPECTED] * 4, (got, EXPECTED)
        print("ok")
    ''')
    assert out.strip() == "ok"


def test_plain_os_fork_child_after_threaded_call() -> None:
    out = _run('''
        import signal, time
        pid = os.fork()
        if pid == 0:
            try:
                code = 0 if threaded_calls() == EXPECTED else 3
            except BaseException:
                code = 4
            os._exit(code)
        deadline = time.monotonic() + 60
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                sys.exit("child hung")
            time.sleep(0.05)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
        # the parent's pool still works after the fork
        assert threaded_calls() == EXPECTED
        print("ok")
    ''')
    assert out.strip() == "ok"


def test_torch_dataloader_fork_workers_after_threaded_call() -> None:
    pytest.importorskip("torch")
    out = _run('''
        import torch
        from torch.utils.data import DataLoader, Dataset

        class Scored(Dataset):
            def __len__(self):
                return 4
            def __getitem__(self, i):
                return torch.tensor(threaded_calls(i), dtype=torch.float64)

        loader = DataLoader(Scored(), batch_size=1, num_workers=2,
                            multiprocessing_context="fork", timeout=60)
        got = [tuple(float(v) for v in t[0]) for t in loader]
        assert got == [EXPECTED] * 4, (got, EXPECTED)
        print("ok")
    ''', timeout=180)
    assert out.strip() == "ok"


def test_one_pool_and_one_n_jobs_rule() -> None:
    import threading

    import numpy as np

    import irscore
    from irscore import batch
    from irscore.core import parallel as _parallel

    qrels = {f"q{q}": {"a": 1, "b": 0} for q in range(4)}
    run = {f"q{q}": {"a": 0.5, "b": 0.7, "c": 0.1} for q in range(4)}
    irscore.evaluate(qrels, run, ["AP"], n_jobs=2)
    batch.evaluate(np.random.default_rng(1).random((4, 5)), np.ones((4, 5), dtype=int), ["AP"], n_jobs=3)
    names = {t.name.rsplit("_", 1)[0] for t in threading.enumerate() if t.name.startswith("irscore")}
    assert names == {"irscore"}, names
    assert _parallel.pool() is _parallel.pool()
    for bad in (True, False, 0, -2, 1.5, "2"):
        with pytest.raises(ValueError, match="n_jobs"):
            irscore.evaluate(qrels, run, ["AP"], n_jobs=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="n_jobs"):
            batch.evaluate(np.ones((2, 3)), np.ones((2, 3), dtype=int), ["AP"], n_jobs=bad)  # type: ignore[arg-type]
    for good in (1, 2, -1, np.int64(2), None):
        assert irscore.evaluate(qrels, run, ["AP"], n_jobs=good) == irscore.evaluate(qrels, run, ["AP"], n_jobs=1)
