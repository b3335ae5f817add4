"""TREC file reading: tokenizer edge cases against a Python reference, gzip,
comments, and clear errors (file and line) for malformed input."""
import gzip
import random

import numpy as np
import pytest

import irscore
from irscore import _trec_io


def _write(tmp_path, name, text, gz=False):
    p = tmp_path / name
    if gz:
        with gzip.open(p, "wt") as f:
            f.write(text)
    else:
        p.write_text(text)
    return p


def _reference_run(text):
    """Python reference of the run format: (qid, doc, score) per data line."""
    out = []
    for line in text.split("\n"):
        toks = line.split()
        if not toks or toks[0].startswith("#"):
            continue
        out.append((toks[0], toks[2], float(toks[4])))
    return out


WS = [" ", "\t", "  ", " \t ", "\v", "\f"]


@pytest.mark.parametrize("seed", range(6))
def test_tokenizer_matches_python_split(tmp_path, seed):
    rng = random.Random(seed)
    lines = []
    for i in range(3000):
        doc = "".join(rng.choice("abcXYZ019-_#.:/") for _ in range(rng.choice([1, 5, 30, 63, 64, 65, 140])))
        doc = "d" + doc  # a doc id never starts a comment
        sep = lambda: rng.choice(WS)  # noqa: E731
        lead = rng.choice(["", "", " ", "\t"])
        trail = rng.choice(["", "", " ", "\t", " extra tokens here", "\r"])
        score = rng.choice(["1", "-2.5", "0.1234", "3e-2", "1E5", "+7.", "123456789012345678901234.5",
                            "0.000000000000000000000001", str(rng.random())])
        lines.append(f"{lead}q{rng.randint(0, 30)}{sep()}Q0{sep()}{doc}{sep()}{i}{sep()}{score}{sep()}tag{trail}")
        if rng.random() < 0.05:
            lines.append(rng.choice(["", "   ", "# a comment line", "  # indented comment"]))
    text = "\n".join(lines) + rng.choice(["", "\n"])
    p = _write(tmp_path, "run.txt", text)
    parser = _trec_io.TrecParser("run", str(p))
    data = p.read_bytes()
    # feed in odd-sized chunks so that lines straddle chunk boundaries
    pos = 0
    while pos < len(data):
        step = rng.choice([1, 7, 64, 1000, 65536])
        parser.feed(data[pos:pos + step])
        pos += step
    parsed = parser.finish()
    ref = _reference_run(text)
    qids = parsed["query_ids"]
    buf = parsed["doc_buf"].tobytes()
    off = parsed["doc_off"]
    got = [(qids[parsed["qidx"][i]], buf[off[i]:off[i + 1]].decode(), parsed["scores"][i])
           for i in range(len(parsed["qidx"]))]
    assert len(got) == len(ref)
    for (gq, gd, gs), (rq, rd, rs) in zip(got, ref):
        assert (gq, gd) == (rq, rd)
        assert gs == rs  # exact: same double as Python's float()


def test_gzip_and_plain_agree(tmp_path, ):
    text = "".join(f"q{i % 7} Q0 d{i} {i} {1.0 / (i + 1)!r} run\n" for i in range(5000))
    qtext = "".join(f"q{i % 7} 0 d{i} {(i // 3) % 3}\n" for i in range(0, 5000, 3))
    plain = irscore.evaluate(_write(tmp_path, "q", qtext), _write(tmp_path, "r", text), ["map", "P_10"])
    gz = irscore.evaluate(_write(tmp_path, "q.gz", qtext, gz=True), _write(tmp_path, "r.gz", text, gz=True),
                          ["map", "P_10"])
    assert plain == gz
    assert plain["map"] > 0


@pytest.mark.parametrize("line,msg", [
    ("q1 Q0 d1 1 0.5", "expected 6 fields"),
    ("q1 Q0 d1 1 abc run", "not a number"),
    ("q1 Q0 d1 1 nan run", "not finite"),
    ("q1 Q0 d1 1 inf run", "not finite"),
    ("q1 Q0 d1 1 1.5x run", "not a number"),
])
def test_malformed_run_line_names_file_and_line(tmp_path, line, msg):
    p = _write(tmp_path, "bad.run", "# header\nq1 Q0 d0 1 1.0 run\n\n" + line + "\n")
    with pytest.raises(ValueError, match=msg) as ei:
        irscore.read_run(p)
    assert f"{p}:4:" in str(ei.value)


@pytest.mark.parametrize("line,msg", [
    ("q1 0 d1", "expected 4 fields"),
    ("q1 0 d1 1 extra", "expected 4 fields"),
    ("q1 0 d1 x", "not an integer"),
    ("q1 0 d1 1.5", "not an integer"),
])
def test_malformed_qrels_line_names_file_and_line(tmp_path, line, msg):
    p = _write(tmp_path, "bad.qrels", "q1 0 d0 1\n" + line + "\n")
    with pytest.raises(ValueError, match=msg) as ei:
        irscore.read_qrels(p)
    assert f"{p}:2:" in str(ei.value)


def test_empty_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match="empty"):
        irscore.read_run(_write(tmp_path, "empty", "# only a comment\n\n"))
    with pytest.raises(ValueError, match="empty"):
        irscore.read_qrels(_write(tmp_path, "empty2", ""))
    with pytest.raises(FileNotFoundError):
        irscore.read_run(tmp_path / "nope")


def test_duplicates_warn_and_resolve(tmp_path):
    q = _write(tmp_path, "q", "1 0 a 1\n1 0 b 0\n1 0 a 0\n")  # (1, a) judged twice: last (0) kept
    with pytest.warns(RuntimeWarning, match="repeated"):
        qr = irscore.read_qrels(q)
    assert qr.to_dict() == {"1": {"a": 0, "b": 0}}
    r = _write(tmp_path, "r", "1 Q0 a 1 0.9 x\n1 Q0 b 2 0.8 x\n1 Q0 a 3 0.1 x\n")
    qrels = {"1": {"a": 1, "b": 0}}
    with pytest.warns(RuntimeWarning, match="repeated"):
        res = irscore.evaluate(qrels, r, ["num_ret", "map"])
    assert res == {"num_ret": 2.0, "map": 1.0}


def test_no_overlap_is_an_error():
    with pytest.raises(ValueError, match="no queries with both"):
        irscore.evaluate({"1": {"a": 1}}, {"2": {"a": 1.0}}, ["map"])


def test_query_ids_and_docs_are_unicode(tmp_path):
    r = _write(tmp_path, "r", "κ1 Q0 δοc 1 1 x\nκ1 Q0 b 2 0.5 x\n")
    q = _write(tmp_path, "q", "κ1 0 δοc 1\n")
    run = irscore.read_run(r)
    assert run.doc_ids("κ1") == ["δοc", "b"]
    assert irscore.evaluate(q, r, ["map"]) == {"map": 1.0}


def test_read_only_and_roundtrip_dicts():
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"x": 1}}
    run = {"q1": {"a": 0.5, "b": 0.7, "c": 0.5}, "q2": {"x": 1.0, "y": 2.0}}
    qr, rn = irscore.Qrels.from_dict(qrels), irscore.Run.from_dict(run)
    assert qr.to_dict() == qrels
    # trec order: score desc, ties by doc id desc (c before a)
    assert rn.doc_ids("q1") == ["b", "c", "a"]
    assert rn.to_dict() == {"q1": {"b": 0.7, "c": 0.5, "a": 0.5}, "q2": {"y": 2.0, "x": 1.0}}
    for arr in (rn.scores, rn.doc_start, qr.grades):
        arr.setflags(write=False)
    assert irscore.evaluate(qr, rn, ["P_1"], per_query=True) == {"P_1": {"q1": 0.0, "q2": 0.0}}


def test_pandas_frames():
    pd = pytest.importorskip("pandas")
    qdf = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
    rdf = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "score": [0.1, 0.9, 1.0]})
    res = irscore.evaluate(qdf, rdf, ["map", "RR"], per_query=True)
    assert res == {"map": {"1": 0.5, "2": 1.0}, "RR": {"1": 0.5, "2": 1.0}}
    with pytest.raises(ValueError, match="lacks column"):
        irscore.Qrels.from_pandas(qdf.rename(columns={"relevance": "rel"}))


@pytest.mark.parametrize("bad,exc", [
    ({"q": {"d": float("nan")}}, ValueError),
    ({"q": {"d": "high"}}, TypeError),
    ({"q": [("d", 1.0)]}, TypeError),
    ({1: {"d": 1.0}}, TypeError),
    ([("q", "d", 1.0)], TypeError),
])
def test_bad_run_dicts(bad, exc):
    with pytest.raises(exc):
        irscore.Run.from_dict(bad)


@pytest.mark.parametrize("bad,exc", [
    ({"q": {"d": 1.5}}, ValueError),
    ({"q": {"d": "1"}}, TypeError),
    ({"q": {"d": 2 ** 40}}, ValueError),
])
def test_bad_qrels_dicts(bad, exc):
    with pytest.raises(exc):
        irscore.Qrels.from_dict(bad)


def test_numpy_scalars_accepted():
    qrels = {"q": {"a": np.int64(1), "b": np.int32(0)}}
    run = {"q": {"a": np.float32(0.5), "b": np.float64(0.7)}}
    assert irscore.evaluate(qrels, run, ["map"]) == {"map": 0.5}


def test_queries_without_documents_are_absent():
    qrels = {"1": {"a": 1}, "2": {}, "3": {"c": 1}}
    run = {"1": {"a": 1.0}, "3": {}}
    assert irscore.Qrels.from_dict(qrels).query_ids == ["1", "3"]
    assert irscore.Run.from_dict(run).query_ids == ["1"]
    assert irscore.evaluate(qrels, run, ["map", "num_q"]) == {"map": 1.0, "num_q": 1.0}
    assert irscore.evaluate(qrels, run, ["map", "num_q"], complete=True) == {"map": 0.5, "num_q": 2.0}
    # a dict run of empty rankings only: nothing to evaluate unless complete=True
    assert irscore.Run.from_dict({"1": {}}).n_entries == 0
    with pytest.raises(ValueError, match="no queries with both"):
        irscore.evaluate(qrels, {"1": {}}, ["map"])
    assert irscore.evaluate(qrels, {"1": {}}, ["map", "num_q"], complete=True) == {"map": 0.0, "num_q": 2.0}


def test_run_from_standard_input(tmp_path):
    import subprocess
    import sys

    q = _write(tmp_path, "q", "1 0 a 1\n1 0 b 0\n")
    run = "1 Q0 b 1 2.0 r\n1 Q0 a 2 1.0 r\n"
    proc = subprocess.run([sys.executable, "-m", "irscore", "eval", "-m", "map", str(q), "-"],
                          input=run, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["map", "all", "0.5000"]


@pytest.mark.parametrize("seed", range(4))
def test_dicts_and_files_give_the_same_columns(tmp_path, seed):
    """Run/Qrels.from_dict (the native dict encoder, which sorts each ranking
    itself) store exactly what the file reader stores for the same data: query
    order, trec order within a query (ties on score broken by doc id
    descending), ids, hashes and values."""
    rng = random.Random(seed)
    alphabet = "abAB01é中-_"
    run, qrels = {}, {}
    for q in rng.sample(range(1000), 40):
        qid = rng.choice(["q", "Q", "é", "10", ""]) + str(q)
        docs = {}
        for _ in range(rng.choice([1, 2, 5, 50, 300])):
            doc = "".join(rng.choice(alphabet) for _ in range(rng.choice([1, 2, 8, 20])))
            docs[doc] = float(rng.choice([0.5, 1.0, 2.0, rng.random(), -rng.random(), round(rng.random(), 1)]))
        run[qid] = docs
        qrels[qid] = {d: rng.randint(-1, 3) for d in rng.sample(sorted(docs), min(len(docs), 7))}
        qrels[qid]["unretrieved" + str(q)] = 1
    rp, qp = tmp_path / "run.txt", tmp_path / "qrels.txt"
    rp.write_text("".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, ds in run.items() for d, s in ds.items()),
                  encoding="utf-8")
    qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, ds in qrels.items() for d, g in ds.items()), encoding="utf-8")
    for from_dict, from_file, values in ((irscore.Run.from_dict(run), irscore.read_run(rp), "scores"),
                                         (irscore.Qrels.from_dict(qrels), irscore.read_qrels(qp), "grades")):
        assert from_dict.query_ids == from_file.query_ids
        assert from_dict.offsets.tolist() == from_file.offsets.tolist()
        for q in from_dict.query_ids:
            if values == "scores":
                assert from_dict.doc_ids(q) == from_file.doc_ids(q)
            else:   # judgments: the file's are sorted by doc id, the dict's keep dict order
                assert sorted(from_dict.doc_ids(q)) == sorted(from_file.doc_ids(q))
        if values == "scores":
            assert from_dict.scores.tolist() == from_file.scores.tolist()
            assert from_dict.doc_hash.tolist() == from_file.doc_hash.tolist()
            assert from_dict.unique and not from_file.unique
        assert from_dict.to_dict() == from_file.to_dict()
    names = ["map", "ndcg_cut_10", "P_5", "recip_rank", "num_rel_ret", "bpref"]
    for kw in ({}, {"judged_only": True}, {"max_docs": 3}, {"complete": True}):
        assert irscore.evaluate(qrels, run, names, per_query=True, **kw) == \
            irscore.evaluate(qp, rp, names, per_query=True, **kw)


@pytest.mark.parametrize("where", ["qid", "docid", "tag"])
def test_text_check_at_every_line_length_and_buffer_position(where):
    """The tokenizer's ASCII test (taken from the same loads as its white-space
    mask) decides between the fast path and the exact UTF-8 check of the ids:
    an invalid byte in an id is refused, valid UTF-8 is kept, whatever the line
    length (one or several 64-byte windows) and whether the line ends the
    buffer (read byte by byte) or not; a non-UTF-8 run tag is not an id."""
    for pad in range(0, 150, 7):
        for last in (False, True):
            for bad in (True, False):
                ch = b"\xe9" if bad else "é".encode()
                qid = b"q" + (b"x" * pad + ch if where == "qid" else b"")
                doc = b"d" + (b"x" * pad + ch if where == "docid" else b"")
                tag = b"r" + (b"x" * pad + ch if where == "tag" else b"")
                line = b" ".join([qid, b"Q0", doc, b"1", b"1.5", tag]) + b"\n"
                other = b"q Q0 other 2 0.5 r\n"
                data = line if last else line + other * 3
                p = _trec_io.TrecParser("run", "<text>")
                if bad and where != "tag":
                    with pytest.raises(ValueError, match="<text>:1: binary or non-UTF-8 data"):
                        p.feed(data)
                        p.finish()
                    continue
                p.feed(data)
                out = p.finish()
                assert out["query_ids"][0] == qid.decode("utf-8", "replace")
                assert bytes(out["doc_buf"][:out["doc_off"][1]]) == doc
