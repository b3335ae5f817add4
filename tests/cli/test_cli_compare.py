"""`irscore compare` on the command line: naming the runs, runs that answer no query."""
import subprocess
import sys

import pytest

from irscore.cli import main


@pytest.fixture
def collection(tmp_path):
    q = tmp_path / "qrels"
    q.write_text("".join(f"{i} 0 d{j} {int((i + j) % 3 == 0)}\n" for i in range(1, 7) for j in range(6)))
    runs = []
    for k, (sub, tag) in enumerate([("x", "same"), ("y", "same"), ("z", "other")]):
        (tmp_path / sub).mkdir()
        p = tmp_path / sub / ("run.txt" if k < 2 else "third.txt")
        p.write_text("".join(f"{i} Q0 d{(j + k) % 6} {j + 1} {10 - j} {tag}\n" for i in range(1, 7) for j in range(6)))
        runs.append(p)
    return q, runs


def _compare(*args):
    return subprocess.run([sys.executable, "-m", "irscore", "compare", *map(str, args)],
                          capture_output=True, text=True)


def _means(out):
    import json

    return json.loads(out)["means"]["map"]


def test_runs_sharing_a_run_id_are_named_by_file(collection):
    q, (a, b, c) = collection
    p = _compare("-f", "json", q, a, b, c)
    assert p.returncode == 0, p.stderr
    # equal file names told apart by their directories; the other run keeps its file name
    assert list(_means(p.stdout)) == ["x/run.txt", "y/run.txt", "third.txt"]
    for baseline in ("y/run.txt", str(b)):       # its name, or its file as given
        p2 = _compare("-f", "json", "--baseline", baseline, q, a, b, c)
        assert p2.returncode == 0, p2.stderr
        import json

        assert json.loads(p2.stdout)["baseline"] == "y/run.txt"
    # distinct run ids still name the runs
    p3 = _compare("-f", "json", q, a, c)
    assert list(_means(p3.stdout)) == ["same", "other"]
    import irscore

    assert _means(p.stdout)["y/run.txt"] == irscore.evaluate(str(q), str(b), "map", complete=True)["map"]


def test_names_option(collection):
    q, (a, b, c) = collection
    p = _compare("-f", "json", "--names", "bm25,dense", "--names", "mix", "--baseline", "bm25", q, a, b, c)
    assert p.returncode == 0, p.stderr
    assert list(_means(p.stdout)) == ["bm25", "dense", "mix"]
    for names, msg in [("a,b", "3 run files"), ("a,a,b", "twice"), ("a,,b", "empty")]:
        p = _compare("--names", names, q, a, b, c)
        assert p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "--names" in p.stderr and msg in p.stderr


def test_the_same_file_twice_is_an_error(collection):
    q, (a, _, _) = collection
    p = _compare(q, a, a)
    assert p.returncode == 2 and "twice" in p.stderr and "--names" in p.stderr
    assert _compare("--names", "one,two", q, a, a).returncode == 0


def test_a_run_that_answers_no_query_is_named_in_a_warning(collection, tmp_path, capsys):
    q, (a, _, c) = collection
    stray = tmp_path / "stray.run"
    stray.write_text("99 Q0 d1 1 1.0 stray\n")
    assert main(["compare", str(q), str(a), str(stray)]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "warning" in err and str(stray) in err and "no query" in err
    assert main(["compare", str(q), str(a), str(c)]) == 0
    assert capsys.readouterr().err == ""
