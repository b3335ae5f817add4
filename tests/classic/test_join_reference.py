"""The native join (one table per query for judgments and retrieved documents)
against a plain-Python reading of trec_eval's form_res_rels, on random TREC files
with repeated documents (judged and unjudged, several times), -J, -M, -c, tags
and several thread ranges."""
import random

import numpy as np
import pytest

from irscore import _join
from irscore.core import io as _io
from irscore.core.joined import join, join_tagged

pytestmark = pytest.mark.filterwarnings("ignore:.*repeated \\(query, doc\\) judgments:RuntimeWarning")


def _files(tmp_path, rng):
    nq = rng.randint(1, 6)
    qlines, rlines = [], []
    for q in range(nq):
        pool = [f"d{rng.randint(0, 40)}" for _ in range(rng.randint(1, 30))]
        if rng.random() < 0.8:
            for d in rng.sample(pool, rng.randint(1, len(pool))):
                qlines.append(f"q{q} 0 {d} {rng.choice([-1, 0, 0, 1, 2, 3])}")
            if rng.random() < 0.3:      # a repeated judgment: the last one counts
                qlines.append(qlines[-1].rsplit(" ", 1)[0] + f" {rng.randint(0, 3)}")
        if rng.random() < 0.9:
            for _ in range(rng.randint(1, 40)):     # drawn with replacement: repeats
                d = rng.choice(pool) if rng.random() < 0.7 else f"u{rng.randint(0, 10)}"
                rlines.append(f"q{q} Q0 {d} 1 {rng.choice([1.0, 2.0, 2.5, rng.random()])} r")
    if not qlines:
        qlines.append("q0 0 d0 1")
    if not rlines:
        rlines.append("q0 Q0 d0 1 1.0 r")
    (tmp_path / "q").write_text("\n".join(qlines) + "\n")
    (tmp_path / "r").write_text("\n".join(rlines) + "\n")
    return _io.read_qrels(tmp_path / "q"), _io.read_run(tmp_path / "r")


def _reference(qrels, run, complete, judged_only, max_docs):
    """(query ids, lists of grades, number of repeats, tagged (position, tag) lists)."""
    ridx = {q: i for i, q in enumerate(run.query_ids)}
    qids, lists, tags, ndup = [], [], [], 0
    for qi, qid in enumerate(qrels.query_ids):
        lo = int(qrels.offsets[qi])
        grade = {d: (int(qrels.grades[lo + k]), lo + k) for k, d in enumerate(qrels.doc_ids(qid))}
        if qid not in ridx:
            if complete:
                qids.append(qid)
                lists.append([] if judged_only or max_docs == 0 else [-1])
                tags.append([])
            continue
        seen, out, tg = set(), [], []
        for d in run.doc_ids(qid):
            if max_docs is not None and len(seen) >= max_docs:
                break
            if d in seen:
                ndup += 1
                continue
            seen.add(d)
            g, row = grade.get(d, (-1, -1))
            if judged_only and g < 0:
                continue
            if row >= 0:
                tg.append((len(out), 7 * row + 1))
            out.append(-2 if g < 0 and row >= 0 else g)
        qids.append(qid)
        lists.append(out)
        tags.append(tg)
    return qids, lists, ndup, tags


@pytest.mark.parametrize("seed", range(40))
def test_join_matches_reference(tmp_path, seed):
    rng = random.Random(seed)
    for case in range(50):
        qrels, run = _files(tmp_path, rng)
        complete, judged_only = rng.random() < 0.3, rng.random() < 0.3
        max_docs = rng.choice([None, None, 0, 1, 3, 10])
        qids, lists, ndup, tags = _reference(qrels, run, complete, judged_only, max_docs)
        if not qids:
            with pytest.raises(ValueError, match="no queries with both"):
                join(qrels, run, complete=complete, judged_only=judged_only, max_docs=max_docs)
            continue
        n_jobs = rng.choice([1, 2, 3])
        j = join(qrels, run, complete=complete, judged_only=judged_only, max_docs=max_docs, n_jobs=n_jobs)
        assert j.query_ids == qids
        got = [j.rel[j.offsets[k]:j.offsets[k + 1]].tolist() for k in range(len(qids))]
        assert got == lists, (seed, case)
        assert j.n_duplicates == ndup
        # the scores follow the kept rows
        for k, qid in enumerate(qids):
            if qid in run:
                kept = j.scores[j.offsets[k]:j.offsets[k + 1]]
                assert np.all(np.diff(kept) <= 0)
        tag_in = np.arange(qrels.grades.shape[0], dtype=np.int32) * 7 + 1
        j2, (toff, tpos, tag) = join_tagged(qrels, run, tag_in, complete=complete, judged_only=judged_only,
                                            max_docs=max_docs, n_jobs=n_jobs)
        assert [j2.rel[j2.offsets[k]:j2.offsets[k + 1]].tolist() for k in range(len(qids))] == lists
        got_tags = [list(zip(tpos[toff[k]:toff[k + 1]].tolist(), tag[toff[k]:toff[k + 1]].tolist()))
                    for k in range(len(qids))]
        assert got_tags == tags, (seed, case)


def test_join_thread_ranges_agree(tmp_path):
    rng = random.Random(7)
    qrels, run = _files(tmp_path, rng)
    pair = np.arange(len(qrels.query_ids), dtype=np.int64)
    ridx = run._index()
    pair_r = np.asarray([ridx.get(q, -1) for q in qrels.query_ids], dtype=np.int64)
    args = (qrels.offsets, qrels.doc_start, qrels.doc_len, qrels.doc_hash, qrels.grades, qrels.doc_buf,
            run.offsets, run.doc_start, run.doc_len, run.doc_hash, run.scores, run.doc_buf, pair, pair_r,
            max(qrels.max_grade, 0), -1, False, True)
    whole = _join.join(*args)
    j = _join.Join(*args)
    for lo in range(j.ne):
        j.run(lo, lo + 1)
    parts = j.result()
    for a, b in zip(whole[:4], parts[:4]):
        assert np.array_equal(a, b)
    assert whole[4] == parts[4]
