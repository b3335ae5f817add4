"""Fuzz target: organisation files (irscore.read_organization: TSV, JSON, flat
clustering, filtering labels; plain or gzip).

Invariant on success: Reliability & Sensitivity of the organisation against
itself and against its flat clustering are in [0, 1].
"""
from __future__ import annotations

import gzip
import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import check_unit, guarded, main, temp_file  # noqa: E402

with atheris.instrument_imports(include=["irscore"]):
    import irscore
    from irscore.organization import Organization

FORMATS = ("auto", "tsv", "json", "clusters", "labels")
SUFFIXES = ("", ".txt", ".json", ".tsv")


def test_one_input(data: bytes) -> None:
    if len(data) < 1:
        return
    mode = data[0]
    body = data[1:]
    fmt = FORMATS[mode % len(FORMATS)]
    suffix = SUFFIXES[(mode // 8) % len(SUFFIXES)]
    if mode & 0x80:
        body = gzip.compress(body, mtime=0)
        suffix += ".gz"
    org = guarded(irscore.read_organization, temp_file(body, suffix), fmt)
    if org is None:
        return
    flat = guarded(lambda: Organization({t: [[list(dict.fromkeys(d for lev in org[t] for cl in lev for d in cl))]]
                                         for t in org.topics}))
    for other, weights in ((org, "ranking"), (org, "uniform"), (flat, "ranking")):
        if other is None:
            continue
        res = guarded(irscore.reliability_sensitivity, org, other, weights=weights)
        if res is None:
            continue
        for k, v in res.items():
            check_unit(v, k)


if __name__ == "__main__":
    main(test_one_input)
