"""Random garbage handed to every compiled entry point (tests/kernel_calls.py):
only clean exceptions or results; in a child process, so that a crash fails a
test instead of killing pytest."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from irscore import _diversity
from kernel_calls import _diversity_args, _join_args, _tagged_join, run_garbage

i32 = np.int32


def test_tagged_join_and_new_kernels_accept_their_valid_arguments():
    toff, tpos, tag = _tagged_join(*(_join_args() + [True, False, np.array([5, 7], i32)]))
    # the run ranks a (tag 5), b (tag 7), then an unjudged document
    assert toff.tolist() == [0, 2] and tpos.tolist() == [0, 1] and tag.tolist() == [5, 7]
    args, _ = _diversity_args()
    _diversity.diversity(*args)
    assert args[-1][0, 1] > 0


def test_garbage_in_process():
    assert run_garbage(0, 30) > 0


def test_garbage_in_subprocess():
    """Many seeded iterations in a child process: a crash (segfault, abort)
    fails this test instead of killing pytest."""
    here = str(Path(__file__).resolve().parents[1])   # tests/, where kernel_calls.py is
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {here!r})
        import kernel_calls as t
        n = 0
        for seed in range(1, 9):
            n += t.run_garbage(seed, 40)
        print(n)
    """)
    env = dict(os.environ)
    import irscore  # the same irscore as this test (src/ in a checkout, site-packages for a wheel)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [here, str(Path(irscore.__file__).resolve().parents[1]),
                                                    env.get("PYTHONPATH", "")] if p)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, f"garbage run died with {r.returncode}:\n{r.stderr[-3000:]}"
    assert int(r.stdout.split()[-1]) > 1000
