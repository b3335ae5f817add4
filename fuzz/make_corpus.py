"""Rebuild the seed corpora ``fuzz/corpus/<target>/`` from examples/ and tests/data/.

Each seed starts with the control bytes its target reads first (see the
``test_one_input`` of each ``fuzz_<target>.py``), followed by file content.
Run from anywhere: ``python fuzz/make_corpus.py``.
"""
from __future__ import annotations

import gzip
import hashlib
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
EX = REPO / "examples"
DATA = REPO / "tests" / "data"
CORPUS = HERE / "corpus"


def _head(path: Path, lines: int) -> bytes:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return b"".join(raw.splitlines(keepends=True)[:lines])


def _split_seed(mode: int, first: bytes, second: bytes) -> bytes:
    """mode, split byte, then first + second with ``len(body) * split // 256 == len(first)``
    (the first part padded with blank lines until some split byte lands exactly)."""
    for pad in range(0, 512):
        a = first + b"\n" * pad
        body = a + second
        for split in range(256):
            if len(body) * split // 256 == len(a):
                return bytes([mode, split]) + body
    raise RuntimeError("no split")


def build() -> dict:
    seeds: dict = {"trec": [], "organization": [], "xml": [], "measure": [], "batch": [], "stats": []}
    qrels, run = EX / "qrels.txt", EX / "run.txt"
    for n in (1, 3, 40):
        seeds["trec"].append(bytes([0, 128]) + _head(qrels, n))
        seeds["trec"].append(bytes([1, 128]) + _head(run, n))
    seeds["trec"].append(bytes([2, 128]) + _head(qrels, 20))           # gzip
    seeds["trec"].append(bytes([3, 128]) + _head(run, 20))
    seeds["trec"].append(bytes([1, 77]) + b"# comment\n1 Q0 d1 1 1.5 r\r\n1 Q0 d2 2 -inf r\n")
    seeds["trec"].append(bytes([0, 30]) + b"1 0 d1 1\n1 0 d2 -2147483648\n2 0 d\xc3\xa9 3\n")

    org = DATA / "organization"
    # mode: format index (auto tsv json clusters labels) + 8 * suffix index ("", .txt, .json, .tsv)
    seeds["organization"] += [
        bytes([1]) + (org / "table9_gold.tsv").read_bytes(),
        bytes([0 + 8 * 3]) + (org / "table9_gold.tsv").read_bytes(),
        bytes([2 + 8 * 2]) + (org / "table9_system4.json").read_bytes(),
        bytes([0]) + (org / "table9_system4.json").read_bytes(),
        bytes([3]) + (org / "clusters_gold.txt").read_bytes(),
        bytes([3]) + (org / "clusters_system.txt").read_bytes(),
        bytes([4]) + (org / "labels_gold.txt").read_bytes(),
        bytes([4 + 0x80]) + (org / "labels_system.txt").read_bytes(),
    ]

    xml = DATA / "xml"
    inex_q = (b'<?xml version="1.0"?>\n<assessments topic="7">\n  <file file="art">\n'
              b'    <path path="/article[1]" exhaustivity="1" size="300" rsize="150"/>\n'
              b'    <path path="/article[1]/sec[1]" exhaustivity="2" size="100" rsize="100"/>\n'
              b'    <path path="/article/sec[2]" exhaustivity="?" size="200" rsize="40"/>\n'
              b'  </file>\n</assessments>\n')
    inex_r = (b'<inex-submission run-id="R1">\n<topic topic-id="7">\n'
              b' <result><file>art</file><path>/article[1]/sec[1]</path><rank>1</rank><rsv>2.5</rsv></result>\n'
              b' <result><file>art</file><path>/article[1]</path><rank>2</rank></result>\n'
              b'</topic></inex-submission>\n')
    fol_e = (xml / "elements.fol").read_bytes()
    # mode: qrels reader (0 passage, 1 passage unchecked, 2 element tsv, 3 INEX xml)
    #       + 4 * run reader (0 fol+qrels, 1 fol no overlap, 2 fol input order, 3 INEX xml) + 16 (pass qrels)
    seeds["xml"] += [
        _split_seed(0 + 4 * 0 + 16, (xml / "focused.qrels").read_bytes(), (xml / "focused.fol").read_bytes()),
        _split_seed(1 + 4 * 1, (xml / "focused.qrels").read_bytes(), (xml / "focused.fol").read_bytes()),
        _split_seed(2 + 4 * 2, (xml / "elements.tsv").read_bytes(), fol_e),
        _split_seed(3 + 4 * 3, inex_q, inex_r),
        _split_seed(2 + 4 * 3, (xml / "elements.tsv").read_bytes(), inex_r),
    ]

    names = ["map", "P_10", "P.5", "ndcg_cut.10", "iprec_at_recall_0.10", "Rprec_mult_0.20", "num_rel_ret",
             "ndcg.1=3,2=9", "utility.2,-1,0,0", "11pt_avg.0.1,0.5", "rbp.p=0.5", "AP", "AP@100", "P@10",
             "R@100", "RR", "nDCG@10", "nDCG(gain=exp)@10", "nDCG(discount=jarvelin)@10", "DCG@5",
             "P(rel=2)@5", "RBP(p=0.8)", "IPrec@0.5", "Success@5", "Judged@10", "SetF", "Bpref",
             "Rnorm(N=1000)", "Pnorm", "CRP_loss(variant=matters)", "nDCG(dcg='exp-log2')@10",
             "ndcg@10", "map@100", "precision@10", "hit_rate@5", "r-precision", "relative_P_5", "set_F.0.5"]
    for nm in names:
        seeds["measure"].append(nm.encode())

    # batch: header (rows, columns, dtypes | ties, measure set, offset, spare), then cell bytes
    for rows, cols, kinds, mset, body in ((3, 99, 0b0000, 0, bytes(range(256))),      # 100 columns, float64/int64
                                          (5, 15, 0b0001, 1, bytes(range(0, 256, 3))),  # 16, float32
                                          (1, 63, 0b1011, 2, bytes(range(160, 256))),   # 64, distinct scores
                                          (2, 7, 0b0101, 3, bytes([0, 8, 8, 200, 239, 240, 1] * 9)),
                                          (4, 129, 0b1111, 4, bytes(range(255, -1, -1)))):
        seeds["batch"].append(bytes([rows - 1, cols, kinds, mset, 3, 0]) + body)

    # stats: header (function, pairs, n_resamples, alpha, seed, extra: see fuzz_stats.py), then
    # one byte per difference (< 176: a pool value; else a distinct moderate value)
    seeds["stats"] = []
    moderate = bytes(range(176, 256, 3))
    mixed = bytes([0, 1, 2, 3, 4, 5, 6, 7, 8, 200, 210, 220, 230, 240, 250, 11, 12, 1, 0, 2])
    for func in range(10):
        seeds["stats"].append(bytes([func, 1, 4, 0, 1, 0]) + moderate)
        seeds["stats"].append(bytes([func, 3, 3, 0, 0, 0x41]) + mixed * 3)
    return seeds


def main() -> None:
    for target, blobs in build().items():
        d = CORPUS / target
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        for blob in blobs:
            (d / hashlib.sha1(blob).hexdigest()).write_bytes(blob)
        print(f"{target}: {len(blobs)} seeds")


if __name__ == "__main__":
    main()
