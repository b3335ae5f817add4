"""Time the XML / focused retrieval measures on synthetic, heavily nested runs.

Default: 1,000 topics x 1,500 returned elements (articles, sections and
paragraphs of the same documents, in random rank order, so most results
overlap earlier ones), passage assessments with 1-3 highlighted passages in a
third of the documents.  Timed from loaded data: one ``irscore.xml.evaluate``
call computing overlap, the XCG family (nxCG@5/10/25/50, MAep), HiXEval
P/R/F@10 and iP[0.00..1.00] / MAiP together.  Also shows the scaling with the
number of topics.

``--all``: every family at once on assessments holding both the passages and
element assessments (every element of the relevant articles, random exh/spe;
with ``--elements``, of every retrieved article): iP/MAiP, the XCG family with ep/gr, HiXEval, gP/MAgP RiC and BiC,
inex_eval and inex_eval_ng, GR/EPRUM and T2I; prints the time of one
``evaluate`` call per family (each builds its own evaluation context), of the
context alone, and of the one call computing every family.

    PYTHONPATH=src python benchmarks/bench_xml.py [--topics 500,1000,2000] [--per-topic 1500] [--all]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from irscore import xml as X

MEASURES = ["nxCG@5", "nxCG@10", "nxCG@25", "nxCG@50", "MAep",
            "hixP@10", "hixR@10", "hixF@10", "iP[0.00]", "iP[0.01]", "iP[0.05]", "iP[0.10]", "MAiP"]


def doc_tree(doclen: int, nsec: int, npar: int):
    """Spans of one article: the article, its sections, their paragraphs."""
    spans = [(0, doclen)]
    sec = doclen // nsec
    for s in range(nsec):
        a = s * sec
        spans.append((a, a + sec))
        par = sec // npar
        for p in range(npar):
            spans.append((a + p * par, a + (p + 1) * par))
    return np.asarray(spans, dtype=np.int64)


def make(ntopics: int, per_topic: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    tree = doc_tree(6000, 5, 6)            # 36 elements per article
    ndoc_topic = per_topic // len(tree) + 1  # ~42 articles per topic
    ndocs = 20000
    docs = [f"doc{i}" for i in range(ndocs)]
    # run
    r_doc, r_start, r_end = [], [], []
    h_doc, h_start, h_end, h_cnt = [], [], [], []
    for t in range(ntopics):
        dsel = rng.choice(ndocs, ndoc_topic, replace=False)
        d = np.repeat(dsel, len(tree))
        sp = np.tile(tree, (ndoc_topic, 1))
        order = rng.permutation(len(d))[:per_topic]
        r_doc.append(d[order])
        r_start.append(sp[order, 0])
        r_end.append(sp[order, 1])
        rel = np.sort(dsel[: max(1, ndoc_topic // 3)])
        cnt = 0
        for dd in rel:
            k = rng.integers(1, 4)
            cuts = np.sort(rng.choice(6000, 2 * k, replace=False))
            h_doc.append(np.full(k, dd))
            h_start.append(cuts[0::2])
            h_end.append(cuts[1::2])
            cnt += k
        h_cnt.append(cnt)
    off = np.arange(ntopics + 1, dtype=np.int64) * per_topic
    run = X.XmlRun(topics=[str(t) for t in range(ntopics)], docs=docs, off=off,
                   doc=np.concatenate(r_doc).astype(np.int64), start=np.concatenate(r_start),
                   end=np.concatenate(r_end), score=np.zeros(ntopics * per_topic), run_id="bench")
    hoff = np.zeros(ntopics + 1, dtype=np.int64)
    np.cumsum(h_cnt, out=hoff[1:])
    z = np.zeros(0, dtype=np.int64)
    qrels = X.XmlQrels(topics=[str(t) for t in range(ntopics)], docs=docs,
                       doclen=np.full(ndocs, 6000, dtype=np.int64), hl_off=hoff,
                       hl_doc=np.concatenate(h_doc).astype(np.int64),
                       hl_start=np.concatenate(h_start).astype(np.int64),
                       hl_end=np.concatenate(h_end).astype(np.int64),
                       el_off=np.zeros(ntopics + 1, dtype=np.int64), el_doc=z, el_start=z, el_end=z,
                       el_exh=np.zeros(0), el_spe=np.zeros(0), el_small=np.zeros(0, dtype=bool),
                       has_passages=True)
    return qrels, run


def make_elements(run: "X.XmlRun", seed: int = 1, only: "X.XmlQrels | None" = None) -> "X.XmlQrels":
    """Element assessments (every element of every retrieved article, random
    exh/spe) for the same run: exercises the recursive XCG gain over trees.
    ``only``: assess only the articles holding passages of these qrels."""
    rng = np.random.default_rng(seed)
    tree = doc_tree(6000, 5, 6)
    order = np.lexsort((-tree[:, 1], tree[:, 0]))
    tree = tree[order]
    nt = len(run.topics)
    docs_t = [np.unique(run.doc[run.off[t]:run.off[t + 1]]) for t in range(nt)]
    if only is not None:
        docs_t = [np.unique(only.hl_doc[only.hl_off[t]:only.hl_off[t + 1]]) for t in range(nt)]
    counts = np.asarray([len(d) * len(tree) for d in docs_t], dtype=np.int64)
    off = np.zeros(nt + 1, dtype=np.int64)
    np.cumsum(counts, out=off[1:])
    el_doc = np.concatenate([np.repeat(d, len(tree)) for d in docs_t]).astype(np.int64)
    reps = int(off[-1]) // len(tree)
    el_start = np.tile(tree[:, 0], reps)
    el_end = np.tile(tree[:, 1], reps)
    n = len(el_doc)
    z = np.zeros(0, dtype=np.int64)
    return X.XmlQrels(topics=list(run.topics), docs=list(run.docs), doclen=np.full(len(run.docs), 6000, dtype=np.int64),
                      hl_off=np.zeros(nt + 1, dtype=np.int64), hl_doc=z, hl_start=z, hl_end=z,
                      el_off=off, el_doc=el_doc, el_start=el_start, el_end=el_end,
                      el_exh=rng.choice([0.0, 0.5, 1.0], n), el_spe=rng.choice([0.0, 0.25, 1.0], n),
                      el_small=np.zeros(n, dtype=bool), has_elements=True)


FAMILIES = {
    "iP/MAiP": ["iP[0.00]", "iP[0.01]", "iP[0.05]", "iP[0.10]", "MAiP"],
    "XCG (nxCG, MAep, ep/gr)": ["nxCG@5", "nxCG@10", "nxCG@25", "nxCG@50", "MAep", "ep@10", "gr@10", "ep@50", "gr@50"],
    "HiXEval": ["hixP@10", "hixR@10", "hixF@10"],
    "gP/MAgP RiC+BiC": ["gP_RiC@10", "MAgP_RiC", "gP_BiC@10", "MAgP_BiC"],
    "inex_eval": ["inex_eval", "Precall[0.50]"],
    "inex_eval_ng": ["ngP_o@10", "ngR_o@10", "ngP_s@10", "ngR_s@10"],
    "GR/EPRUM": ["GR@10", "GR@50", "EPRUM[0.10]", "EPRUM[0.50]", "EPRUM[1.00]"],
    "T2I": ["T2IP@10", "T2IR@10"],
}


def both(qp: "X.XmlQrels", qe: "X.XmlQrels") -> "X.XmlQrels":
    """Assessments with the passages of ``qp`` and the elements of ``qe`` (same
    topics and documents), best entry points at the first passage's start."""
    bep = {}
    for t, topic in enumerate(qp.topics):
        for k in range(int(qp.hl_off[t]), int(qp.hl_off[t + 1])):
            bep.setdefault((topic, qp.docs[int(qp.hl_doc[k])]), int(qp.hl_start[k]))
    return X.XmlQrels(topics=list(qp.topics), docs=list(qp.docs), doclen=qp.doclen, hl_off=qp.hl_off,
                      hl_doc=qp.hl_doc, hl_start=qp.hl_start, hl_end=qp.hl_end, el_off=qe.el_off,
                      el_doc=qe.el_doc, el_start=qe.el_start, el_end=qe.el_end, el_exh=qe.el_exh,
                      el_spe=qe.el_spe, el_small=qe.el_small, bep=bep, has_passages=True, has_elements=True)


def best_of(repeat: int, fn) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run_all(nt: int, per_topic: int, repeat: int, every_article: bool) -> None:
    qp, run = make(nt, per_topic)
    q = both(qp, make_elements(run, only=None if every_article else qp))
    print(f"every family: {nt} topics x {per_topic} results, {len(q.el_doc)} assessed elements, "
          f"{len(q.hl_doc)} passages (best of {repeat})")
    print(f"  {'context alone (nxCG@10)':<28} {best_of(repeat, lambda: X.evaluate(q, run, ['nxCG@10'])):7.3f} s")
    for fam, names in FAMILIES.items():
        print(f"  {fam:<28} {best_of(repeat, lambda: X.evaluate(q, run, names)):7.3f} s")
    names = [n for v in FAMILIES.values() for n in v]
    print(f"  {'ALL in one call':<28} {best_of(repeat, lambda: X.evaluate(q, run, names)):7.3f} s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--topics", default="500,1000,2000")
    ap.add_argument("--per-topic", type=int, default=1500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--elements", action="store_true",
                    help="also time XCG over element assessments (recursive gain over element trees)")
    ap.add_argument("--all", action="store_true",
                    help="every family at once (passages + element assessments), per-family times")
    args = ap.parse_args()
    if args.all:
        for nt in [int(x) for x in args.topics.split(",")]:
            run_all(nt, args.per_topic, args.repeat, args.elements)
        return
    print(f"{'topics':>7} {'results':>10} {'best (s)':>9} {'per 1M results (s)':>19}")
    for nt in [int(x) for x in args.topics.split(",")]:
        qrels, run = make(nt, args.per_topic)
        ov = X.overlap(X.XmlRun(run.topics[:1], run.docs, run.off[:2], run.doc, run.start, run.end, run.score))
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            res = X.evaluate(qrels, run, MEASURES)
            best = min(best, time.perf_counter() - t0)
        n = nt * args.per_topic
        print(f"{nt:>7} {n:>10} {best:>9.3f} {best / n * 1e6:>19.3f}")
    print("mean overlap of topic 0:", round(float(np.mean(ov['0'])), 3))
    print({k: round(v, 4) for k, v in res.items()})
    if args.elements:
        qe = make_elements(run)
        names = ["nxCG@5", "nxCG@10", "nxCG@25", "nxCG@50", "MAep"]
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            res = X.evaluate(qe, run, names)
            best = min(best, time.perf_counter() - t0)
        print(f"element assessments ({len(qe.el_doc)} elements), XCG family over {len(run.doc)} results: "
              f"best {best:.3f} s")
        print({k: round(v, 4) for k, v in res.items()})


if __name__ == "__main__":
    main()
