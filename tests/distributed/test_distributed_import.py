"""``import irscore`` (and reaching irscore.spark / irscore.dask) never imports
pyspark or dask: checked in a fresh interpreter."""
import os
import subprocess
import sys
from pathlib import Path

import irscore

# the directory irscore is imported from (src/ in a checkout, site-packages for a wheel)
SRC = str(Path(irscore.__file__).resolve().parents[1])

CODE = """
import sys
import irscore
assert irscore.evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["map"]) == {"map": 1.0}
from irscore import *
import irscore.distributed
print(irscore.spark.__name__, irscore.dask.__name__, irscore.spark.evaluate.__name__)
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("pyspark", "py4j", "dask", "distributed", "pyarrow"))
print("HEAVY", heavy)
"""


def test_import_irscore_does_not_import_the_engines():
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "irscore.spark irscore.dask evaluate"
    assert lines[1] == "HEAVY []"
