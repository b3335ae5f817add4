"""irscore compare: JSON reports without Infinity, huge --resamples refused on one
line."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.fixture
def three_queries(tmp_path):
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(3)))
    good, bad = tmp_path / "good.run", tmp_path / "bad.run"
    good.write_text("".join(f"q{i} Q0 d{i} 1 1.0 good\nq{i} Q0 x{i} 2 0.5 good\n" for i in range(3)))
    bad.write_text("".join(f"q{i} Q0 x{i} 1 1.0 bad\nq{i} Q0 y{i} 2 0.5 bad\n" for i in range(3)))
    return q, good, bad


def test_json_report_has_no_infinity(three_queries):
    # effect sizes are +-inf when every difference is the same non-zero value
    q, good, bad = three_queries
    p = subprocess.run([sys.executable, "-m", "irscore", "compare", str(q), str(good), str(bad),
                        "-m", "P.1", "-f", "json"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr

    def refuse(token):
        raise ValueError(token)

    doc = json.loads(p.stdout, parse_constant=refuse)
    assert doc


@pytest.mark.parametrize("test", ["bootstrap", "tukey_randomized", "randomization"])
@pytest.mark.parametrize("n", ["100000000000000", "99999999999999999999999"])
def test_cli_huge_resamples_one_line(three_queries, test, n):
    q, good, bad = three_queries
    p = subprocess.run([sys.executable, "-m", "irscore", "compare", str(q), str(good), str(bad),
                        "-m", "P.1", "--test", test, "--resamples", n], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "--resamples" in p.stderr
