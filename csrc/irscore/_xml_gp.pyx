"""gP / MAgP kernels (docs/xml.md, gP): generalised precision over articles
ranked by their first result, RiC (F-beta of the article's retrieved text) and
BiC (distance to the best entry point), as irscore defines them and as
inex_eval v1.0 computes them (compat="inex2008").  Every entry point checks,
itself, whatever could make it read or write out of bounds (ValueError); the
GIL is released.
"""
from libc.stdlib cimport malloc, free
from libc.string cimport memset
from libc.stdint cimport int64_t, uint64_t
from libc.math cimport NAN

from irscore._checks cimport check_len, check_same_len
from irscore._xml_common cimport (
    _check_ndocs,
    _csr, _spans, _doc_codes, _max_ranked, _out1, _out1d, _out2, _check_cutoffs, span_set, np_sum, _abs_diff,
)


cdef struct GpTables:
    # per document code (ntab + 1 entries): topic stamps of the relevant articles,
    # the ranked articles and the best entry points; the article's rank; its
    # relevant size; its best entry point
    Py_ssize_t *rstamp
    Py_ssize_t *dstamp
    Py_ssize_t *bstamp
    Py_ssize_t *dpos
    int64_t *relc
    int64_t *bep
    # per ranked article (cap entries): its document code and first result's start
    Py_ssize_t *order
    int64_t *entry


cdef int gp_tables_alloc(GpTables *tb, Py_ssize_t ntab, Py_ssize_t cap) except -1:
    """Allocate the tables (every stamp -1); MemoryError leaves them to gp_tables_free."""
    cdef Py_ssize_t d
    tb.rstamp = <Py_ssize_t*>malloc((ntab + 1) * sizeof(Py_ssize_t))
    tb.dstamp = <Py_ssize_t*>malloc((ntab + 1) * sizeof(Py_ssize_t))
    tb.bstamp = <Py_ssize_t*>malloc((ntab + 1) * sizeof(Py_ssize_t))
    tb.dpos = <Py_ssize_t*>malloc((ntab + 1) * sizeof(Py_ssize_t))
    tb.relc = <int64_t*>malloc((ntab + 1) * sizeof(int64_t))
    tb.bep = <int64_t*>malloc((ntab + 1) * sizeof(int64_t))
    tb.order = <Py_ssize_t*>malloc(cap * sizeof(Py_ssize_t))
    tb.entry = <int64_t*>malloc(cap * sizeof(int64_t))
    if (tb.rstamp == NULL or tb.dstamp == NULL or tb.bstamp == NULL or tb.dpos == NULL or tb.relc == NULL
            or tb.bep == NULL or tb.order == NULL or tb.entry == NULL):
        raise MemoryError()
    for d in range(ntab + 1):
        tb.rstamp[d] = -1
        tb.dstamp[d] = -1
        tb.bstamp[d] = -1
    return 0


cdef void gp_tables_free(GpTables *tb) noexcept:
    free(tb.rstamp); free(tb.dstamp); free(tb.bstamp); free(tb.dpos); free(tb.relc); free(tb.bep)
    free(tb.order); free(tb.entry)


cdef struct GpParams:
    Py_ssize_t ndocs        # document codes are 0..ndocs-1
    int task                # 0: RiC (F-beta of the retrieved text), 1: BiC (best entry point)
    double beta             # RiC's beta
    int64_t bep_distance    # BiC: distance at which an entry point scores 0


cdef int _gp_args(const int64_t[::1] run_off, const int64_t[::1] run_doc, const int64_t[::1] bep_off,
                  const int64_t[::1] bep_doc, const int64_t[::1] bep_pos, const GpParams *params,
                  const int64_t[::1] cutoffs, double[:, ::1] out_gp, double[::1] out_agp, str fn) except -1:
    """The checks both gP kernels make of the arguments they share."""
    cdef Py_ssize_t ndocs = params.ndocs
    cdef int task = params.task
    cdef double beta = params.beta
    cdef int64_t bep_distance = params.bep_distance
    _check_ndocs(ndocs, fn)
    if task != 0 and task != 1:
        raise ValueError(f"{fn}: task must be 0 (RiC) or 1 (BiC)")
    if not beta > 0.0 or bep_distance <= 0:
        raise ValueError(f"{fn}: beta and bep_distance must be positive")
    _csr(run_off, run_doc.shape[0], fn, "run_off")
    _csr(bep_off, bep_doc.shape[0], fn, "bep_off", run_off.shape[0] - 1)
    check_same_len(bep_doc.shape[0], bep_pos.shape[0], fn, "bep_doc and bep_pos")
    _check_cutoffs(cutoffs, fn)
    _out2(out_gp, run_off.shape[0] - 1, cutoffs.shape[0], fn, "out_gp")
    _out1d(out_agp, run_off.shape[0] - 1, fn, "out_agp")
    return 0


# -- gP / MAgP (RiC, BiC) ---------------------------------------------------


def gp_measures(tuple run, tuple hl, tuple bep, GpParams params, const int64_t[::1] cutoffs,
                double[:, ::1] out_gp, double[::1] out_magp, int64_t[::1] out_valid):
    """Generalised precision per topic (docs/xml.md, gP): articles ranked by their
    first result; ``run = (run_off, run_doc, run_start, novel, novel_rel)``;
    ``hl`` the highlighted passages ``(off, doc, start, end)``; ``bep = (bep_off,
    bep_doc, bep_pos)`` the best entry points per topic; ``params`` a GpParams
    (``{"ndocs", "task", "beta", "bep_distance"}``).  ``task`` 0 (RiC: F-beta of
    the article's retrieved text, ``novel``/``novel_rel`` per result) or 1 (BiC:
    distance of the article's first result's start to its best entry point).
    out_gp[t, c] = gP@cutoffs[c]; out_magp[t] = AgP; out_valid[t] = 1 when the
    topic has a relevant article (an article with highlighted text)."""
    cdef const int64_t[::1] run_off, run_doc, run_start, hl_off, hl_doc, hl_start, hl_end, bep_off, bep_doc, bep_pos
    cdef const double[::1] novel, novel_rel
    cdef Py_ssize_t ndocs = params.ndocs
    cdef int task = params.task
    cdef double beta = params.beta
    cdef int64_t bep_distance = params.bep_distance
    cdef Py_ssize_t ntop, nk = cutoffs.shape[0]
    cdef Py_ssize_t t, c, i, j, d, na, nrel, cap, r, ntab
    cdef uint64_t ud
    cdef double p, rr, b2 = beta * beta, cum
    cdef GpTables tb
    cdef double *ret = NULL
    cdef double *relret = NULL
    cdef double *sc = NULL
    cdef double *gsel = NULL
    fn = "gp_measures"
    run_off, run_doc, run_start, novel, novel_rel = span_set(run, 5, fn, "run")
    hl_off, hl_doc, hl_start, hl_end = span_set(hl, 4, fn, "hl")
    bep_off, bep_doc, bep_pos = span_set(bep, 3, fn, "bep")
    ntop = run_off.shape[0] - 1
    _gp_args(run_off, run_doc, bep_off, bep_doc, bep_pos, &params, cutoffs, out_gp, out_magp, fn)
    _csr(hl_off, hl_doc.shape[0], fn, "hl_off", ntop)
    check_len(run_start.shape[0], run_doc.shape[0], fn, "run_start")
    check_len(novel.shape[0], run_doc.shape[0], fn, "novel")
    check_len(novel_rel.shape[0], run_doc.shape[0], fn, "novel_rel")
    ntab = _spans(hl_off, hl_doc, hl_start, hl_end, ndocs, fn, "hl")
    ntab = _doc_codes(run_doc, ndocs, fn, "run_doc", ntab)
    ntab = _doc_codes(bep_doc, ndocs, fn, "bep_doc", ntab)     # the tables only need the codes in use
    _out1(out_valid, ntop, fn, "out_valid")
    cap = _max_ranked(run_off)
    memset(&tb, 0, sizeof(GpTables))
    ret = <double*>malloc(cap * sizeof(double))
    relret = <double*>malloc(cap * sizeof(double))
    sc = <double*>malloc(cap * sizeof(double))
    gsel = <double*>malloc(cap * sizeof(double))
    try:
        gp_tables_alloc(&tb, ntab, cap)
        if ret == NULL or relret == NULL or sc == NULL or gsel == NULL:
            raise MemoryError()
        with nogil:
            for t in range(ntop):
                # relevant articles: highlighted characters per document
                nrel = 0
                for j in range(hl_off[t], hl_off[t + 1]):
                    d = hl_doc[j]
                    if tb.rstamp[d] != t:
                        tb.rstamp[d] = t
                        tb.relc[d] = 0
                        nrel += 1
                    tb.relc[d] += hl_end[j] - hl_start[j]
                out_valid[t] = 1 if nrel > 0 else 0
                if nrel == 0:
                    continue
                for j in range(bep_off[t], bep_off[t + 1]):
                    tb.bstamp[bep_doc[j]] = t
                    tb.bep[bep_doc[j]] = bep_pos[j]
                # articles in the order of their first result
                na = 0
                for i in range(run_off[t], run_off[t + 1]):
                    d = run_doc[i]
                    if tb.dstamp[d] != t:
                        tb.dstamp[d] = t
                        tb.dpos[d] = na
                        tb.order[na] = d
                        ret[na] = 0.0
                        relret[na] = 0.0
                        tb.entry[na] = run_start[i]
                        na += 1
                    ret[tb.dpos[d]] += novel[i]
                    relret[tb.dpos[d]] += novel_rel[i]
                for j in range(na):
                    d = tb.order[j]
                    if task == 0:
                        if tb.rstamp[d] != t or tb.relc[d] == 0 or ret[j] <= 0.0 or relret[j] <= 0.0:
                            sc[j] = 0.0
                            continue
                        p = relret[j] / ret[j]
                        rr = relret[j] / (<double> tb.relc[d])
                        sc[j] = (1 + b2) * p * rr / (b2 * p + rr)
                    else:
                        if tb.bstamp[d] != t or tb.rstamp[d] != t:
                            sc[j] = 0.0
                            continue
                        ud = _abs_diff(tb.entry[j], tb.bep[d])
                        sc[j] = ((<double> (bep_distance - <int64_t> ud)) / (<double> bep_distance)
                                 if ud < <uint64_t> bep_distance else 0.0)
                # AgP: gP[r] = cumulated score / r at the relevant articles' ranks
                cum = 0.0
                r = 0
                for j in range(na):
                    cum = sc[j] if j == 0 else cum + sc[j]
                    if tb.rstamp[tb.order[j]] == t:
                        gsel[r] = cum / (j + 1)
                        r += 1
                out_magp[t] = np_sum(gsel, r) / nrel
                for c in range(nk):
                    out_gp[t, c] = np_sum(sc, cutoffs[c] if cutoffs[c] < na else na) / cutoffs[c]
    finally:
        gp_tables_free(&tb)
        free(ret); free(relret); free(sc); free(gsel)


# -- gP / MAgP as inex_eval v1.0 computes them (compat="inex2008") ------------


def gp_inex2008(tuple run, tuple relevant, tuple bep, GpParams params, const int64_t[::1] cutoffs,
                double[:, ::1] out_gp, double[::1] out_agp, int64_t[::1] out_warn):
    """gP@k and AgP per topic as inex_eval v1.0 (irscore.xml.inex2008): ``run =
    (run_off, run_doc, entry_pos, size, rel)``, articles ranked by their first
    result (``entry_pos``: its start), ``size``/``rel`` per result summed per
    article; ``relevant = (rel_off, rel_doc, rel_size)``, relevant articles and
    their relevant size per topic (each document once per topic, size > 0);
    ``bep = (bep_off, bep_doc, bep_pos)`` best entry points; ``params`` as
    :func:`gp_measures`.  gP@k = cumulated score / rank at rank min(k, n) (0
    without results); AgP = sum of gP at the relevant articles / their number
    (NaN without any).  out_warn[0] / out_warn[1]: the first topic whose
    article results are interleaved / (BiC) repeated, or -1."""
    cdef const int64_t[::1] run_off, run_doc, entry_pos, size, rel, rel_off, rel_doc, rel_size
    cdef const int64_t[::1] bep_off, bep_doc, bep_pos
    cdef int task = params.task
    cdef double beta = params.beta
    cdef int64_t bep_distance = params.bep_distance
    cdef Py_ssize_t ndocs = params.ndocs
    cdef Py_ssize_t ntop, nk = cutoffs.shape[0]
    cdef Py_ssize_t t, c, i, j, d, na, nrel, cap, r, ntab, prev
    cdef int64_t rc
    cdef uint64_t ud
    cdef double p, rr, b2 = beta * beta, s, sum_gp
    cdef int err = 0
    cdef GpTables tb
    cdef int64_t *ret = NULL
    cdef int64_t *relret = NULL
    cdef double *g = NULL
    fn = "gp_inex2008"
    run_off, run_doc, entry_pos, size, rel = span_set(run, 5, fn, "run")
    rel_off, rel_doc, rel_size = span_set(relevant, 3, fn, "relevant")
    bep_off, bep_doc, bep_pos = span_set(bep, 3, fn, "bep")
    ntop = run_off.shape[0] - 1
    _gp_args(run_off, run_doc, bep_off, bep_doc, bep_pos, &params, cutoffs, out_gp, out_agp, fn)
    _csr(rel_off, rel_doc.shape[0], fn, "rel_off", ntop)
    check_len(entry_pos.shape[0], run_doc.shape[0], fn, "entry_pos")
    check_len(size.shape[0], run_doc.shape[0], fn, "size")
    check_len(rel.shape[0], run_doc.shape[0], fn, "rel")
    check_same_len(rel_doc.shape[0], rel_size.shape[0], fn, "rel_doc and rel_size")
    ntab = _doc_codes(run_doc, ndocs, fn, "run_doc", 0)
    ntab = _doc_codes(rel_doc, ndocs, fn, "rel_doc", ntab)
    ntab = _doc_codes(bep_doc, ndocs, fn, "bep_doc", ntab)
    _out1(out_warn, 2, fn, "out_warn")
    cap = _max_ranked(run_off)
    memset(&tb, 0, sizeof(GpTables))
    ret = <int64_t*>malloc(cap * sizeof(int64_t))
    relret = <int64_t*>malloc(cap * sizeof(int64_t))
    g = <double*>malloc(cap * sizeof(double))
    try:
        gp_tables_alloc(&tb, ntab, cap)
        if ret == NULL or relret == NULL or g == NULL:
            raise MemoryError()
        with nogil:
            out_warn[0] = -1
            out_warn[1] = -1
            for t in range(ntop):
                nrel = 0
                for j in range(rel_off[t], rel_off[t + 1]):
                    d = rel_doc[j]
                    if tb.rstamp[d] != t:
                        nrel += 1
                    tb.rstamp[d] = t
                    tb.relc[d] = rel_size[j]
                for j in range(bep_off[t], bep_off[t + 1]):
                    tb.bstamp[bep_doc[j]] = t
                    tb.bep[bep_doc[j]] = bep_pos[j]
                na = 0
                prev = -1
                for i in range(run_off[t], run_off[t + 1]):
                    d = run_doc[i]
                    if tb.dstamp[d] != t:
                        tb.dstamp[d] = t
                        tb.dpos[d] = na
                        tb.order[na] = d
                        ret[na] = 0
                        relret[na] = 0
                        tb.entry[na] = entry_pos[i]
                        na += 1
                    elif d != prev:
                        if out_warn[0] < 0:
                            out_warn[0] = t
                    elif task == 1 and out_warn[1] < 0:
                        out_warn[1] = t
                    prev = d
                    ret[tb.dpos[d]] += size[i]
                    relret[tb.dpos[d]] += rel[i]
                s = 0.0
                sum_gp = 0.0
                for j in range(na):
                    d = tb.order[j]
                    rc = tb.relc[d] if tb.rstamp[d] == t else 0
                    p = 0.0         # the article's score
                    if task == 0:
                        if relret[j] > 0:
                            if rc == 0 or ret[j] == 0:
                                err = 1
                                break
                            rr = (<double> relret[j]) / (<double> rc)
                            p = (<double> relret[j]) / (<double> ret[j])
                            p = ((1 + b2) * p * rr) / ((b2 * p) + rr)
                    elif rc > 0 and tb.bstamp[d] == t and tb.bep[d] > -1:
                        ud = _abs_diff(tb.bep[d], tb.entry[j])
                        if ud <= <uint64_t> bep_distance:
                            p = ((<double> bep_distance) - <double> ud) / bep_distance
                    s += p
                    g[j] = s / (j + 1)
                    if rc > 0:
                        sum_gp += s / (j + 1)
                if err:
                    break
                out_agp[t] = sum_gp / nrel if nrel else NAN
                for c in range(nk):
                    r = cutoffs[c] if cutoffs[c] < na else na
                    out_gp[t, c] = g[r - 1] if r > 0 else 0.0
        if err:
            raise ZeroDivisionError("division by zero")
    finally:
        gp_tables_free(&tb)
        free(ret); free(relret); free(g)
