"""Kernel of trec_eval's preference measures (``-R prefs`` / ``-R qrels_prefs``;
docs/classic.md, "Preference judgments").

Input, all queries concatenated (CSR ``q_off``): one entry per judgment line,
``jg`` and ``jsg`` (judgment group and sub-group, as indices that sort as their
names do), ``level`` (the rel_level) and ``rank``, the document's *docid rank*
within its query: the judged retrieved documents are 0 .. n_judged_ret-1 in
ranking order, the judged documents not retrieved follow (n_judged_ret ..
n_judged-1).  Within a query the entries are sorted by (jg, jsg, level
descending, rank).

A judgment group with one sub-group is a set of equivalence classes (the
documents of one level): every document is preferred to every document of a
lower level; its preferences are counted by sorting (a Fenwick tree over the
docid ranks), O(n log n).  A group with several sub-groups is a partial order:
each sub-group's levels are chained through one virtual node per level
boundary (linear size), and each document's preferences are the documents it
reaches (transitive closure by one depth-first search per document: the count
of preferences is quadratic by definition).  Pair measures over several groups
sort the (pair, direction) codes of every preference.

Every entry point checks its own memory preconditions (lengths, offsets, ranks
within their query's judged count, the sort order) and raises ``ValueError``.
"""
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, calloc, realloc, free, qsort
from libc.math cimport isnan

from irscore._common cimport fenwick_add, fenwick_prefix

cdef enum:
    N_COLS = 14           # output columns, in trec_eval's ``all_prefs`` order
    ST_OK = 0
    ST_CYCLE = 1          # a group's preferences are contradictory (A > B and B > A)
    ST_ZERO_NONZERO = 2   # a document has level 0 and a positive level in one group
    ST_DUPLICATE = 3      # a document judged twice in one sub-group
    ST_MEMORY = 4

#: number of output columns of ``counts``
N_OUT = N_COLS


cdef struct Counts:
    int64_t fr, pr, fi, pi, no            # fulfilled/possible retrieved, implied; neither retrieved
    int64_t nrel, nrel_ret, nnon, nnon_ret
    int64_t rn_ful, rn_pairs, rnr_ful, rnr_pairs   # the "R nonrelevant" recounts


cdef struct Codes:
    int64_t *buf
    int64_t n, cap


cdef int cmp_i64(const void *a, const void *b) noexcept nogil:
    cdef int64_t x = (<const int64_t *> a)[0]
    cdef int64_t y = (<const int64_t *> b)[0]
    return (x > y) - (x < y)


cdef int push_code(Codes *c, int64_t v) noexcept nogil:
    cdef int64_t *nb
    cdef int64_t ncap
    if c.n == c.cap:
        ncap = c.cap * 2 if c.cap > 0 else 1024
        nb = <int64_t *> realloc(c.buf, ncap * sizeof(int64_t))
        if nb == NULL:
            return -1
        c.buf = nb
        c.cap = ncap
    c.buf[c.n] = v
    c.n += 1
    return 0


cdef inline int64_t imin(int64_t a, int64_t b) noexcept nogil:
    return a if a < b else b


cdef int ec_group(const double[::1] level, const int64_t[::1] rank, Py_ssize_t lo, Py_ssize_t hi,
                  int64_t nj, int64_t njr, int64_t *bit, Counts *c, Codes *codes, bint want_codes) noexcept nogil:
    """One judgment group of one sub-group: equivalence classes of equal level."""
    cdef Py_ssize_t p, es, ee, ls
    cdef int64_t r, cl, higher_total = 0, higher_ret = 0, ne = 0, e = 0, m_ret = 0, k, take
    cdef double lv
    # number of classes and start of the last one
    p = lo
    ls = lo
    while p < hi:
        ls = p
        lv = level[p]
        while p < hi and level[p] == lv:
            p += 1
        ne += 1
    es = lo
    while es < hi:
        lv = level[es]
        ee = es
        while ee < hi and level[ee] == lv:
            ee += 1
        for p in range(es, ee):
            r = rank[p]
            cl = fenwick_prefix(bit, r)
            if r < njr:
                c.fr += cl
                c.pr += higher_ret - cl
                c.pi += higher_total - higher_ret
            else:
                c.fi += higher_ret
                c.no += higher_total - higher_ret
            if e <= ne - 2:
                c.rn_pairs += higher_total
                c.rn_ful += fenwick_prefix(bit, imin(r, njr))
                if r < njr:
                    c.rnr_pairs += higher_ret
                    c.rnr_ful += cl
            if lv > 0.0:
                c.nrel += 1
                if r < njr:
                    c.nrel_ret += 1
            else:
                c.nnon += 1
                if r < njr:
                    c.nnon_ret += 1
        if want_codes and es > lo:
            # every document of this class against every document of the higher ones
            for p in range(es, ee):
                for k in range(lo, es):
                    if rank[k] < rank[p]:
                        if push_code(codes, (rank[k] * nj + rank[p]) * 2) < 0:
                            return -1
                    else:
                        if push_code(codes, (rank[p] * nj + rank[k]) * 2 + 1) < 0:
                            return -1
        for p in range(es, ee):
            fenwick_add(bit, nj, rank[p], 1)
            if rank[p] < njr:
                higher_ret += 1
        higher_total += ee - es
        e += 1
        es = ee
    m_ret = higher_ret
    c.pr += c.fr
    c.pi += c.fi
    # trec_eval's recount when there are more nonrelevant than relevant documents: the
    # first R documents (in docid rank order) of the last class stand for the nonrelevant
    # ones, paired with every document of the group
    take = imin(c.nrel, hi - ls)
    for p in range(ls, ls + take):
        c.rn_ful += fenwick_prefix(bit, imin(rank[p], njr))
        c.rn_pairs += hi - lo
    take = imin(c.nrel_ret, hi - ls)
    for p in range(ls, ls + take):
        if rank[p] >= njr:
            break
        c.rnr_ful += fenwick_prefix(bit, rank[p])
        c.rnr_pairs += m_ret
    for p in range(lo, hi):
        fenwick_add(bit, nj, rank[p], -1)
    return 0


cdef struct PA:
    int64_t *doc_rank      # document node -> docid rank
    int64_t *node_of       # entry -> its document node
    int64_t *vnode         # entry -> the virtual node below its class (-1: last class of its sub-group)
    int64_t *deg           # CSR starts of the edges (n_nodes + 1)
    int64_t *adj
    int64_t *stamp
    int64_t *stack
    int64_t *sorted_r


cdef int pa_edges(const int64_t[::1] jsg, const double[::1] level, Py_ssize_t lo, Py_ssize_t hi,
                  PA *a, int64_t n_nodes, bint fill) noexcept nogil:
    """Count (``fill`` false: into deg[u + 1]) or write (``fill``: at stamp[u])
    the edges virtual node -> documents of the next class, virtual node -> next
    virtual node, document -> the virtual node below its class."""
    cdef Py_ssize_t p, q, s, t, k
    cdef int64_t u
    cdef double lv
    for p in range(lo, hi):
        if a.vnode[p - lo] >= 0:
            u = a.node_of[p - lo]
            if fill:
                a.adj[a.stamp[u]] = a.vnode[p - lo]
                a.stamp[u] += 1
            else:
                a.deg[u + 1] += 1
    p = lo
    while p < hi:
        q = p
        while q < hi and jsg[q] == jsg[p]:
            q += 1
        u = -1
        s = p
        while s < q:
            lv = level[s]
            t = s
            while t < q and level[t] == lv:
                t += 1
            if u >= 0:
                if fill:
                    for k in range(s, t):
                        a.adj[a.stamp[u]] = a.node_of[k - lo]
                        a.stamp[u] += 1
                else:
                    a.deg[u + 1] += t - s
            if t < q:
                if u >= 0:
                    if fill:
                        a.adj[a.stamp[u]] = a.vnode[s - lo]
                        a.stamp[u] += 1
                    else:
                        a.deg[u + 1] += 1
                u = a.vnode[s - lo]
            s = t
        p = q
    return 0


cdef int pa_count(const int64_t[::1] jsg, const double[::1] level, const int64_t[::1] rank,
                  Py_ssize_t lo, Py_ssize_t hi, int64_t nj, int64_t njr, int64_t *loc, double *relarr,
                  PA *a, Counts *c, Codes *codes, bint want_codes) noexcept nogil:
    cdef Py_ssize_t m = hi - lo, p, q, s, t
    cdef int64_t d = 0, nv = 0, n_nodes, r, i, j, u, v, seen0, k, fd, fd2
    cdef double lv
    cdef bint di, dj
    # document nodes and levels (trec_eval keeps the level last assigned in sort order)
    for p in range(lo, hi):
        r = rank[p]
        if (relarr[r] > 0.0 and level[p] == 0.0) or (relarr[r] == 0.0 and level[p] > 0.0):
            return ST_ZERO_NONZERO
        relarr[r] = level[p]
        if loc[r] < 0:
            loc[r] = d
            a.doc_rank[d] = r
            d += 1
        a.node_of[p - lo] = loc[r]
    # virtual nodes: one below each class but the last of each sub-group
    p = lo
    while p < hi:
        q = p
        while q < hi and jsg[q] == jsg[p]:
            q += 1
        s = p
        while s < q:
            lv = level[s]
            t = s
            while t < q and level[t] == lv:
                t += 1
            for u in range(s, t):
                a.vnode[u - lo] = (d + nv) if t < q else -1
            if t < q:
                nv += 1
            s = t
        p = q
    n_nodes = d + nv           # <= 2 m
    for u in range(n_nodes + 1):
        a.deg[u] = 0
    pa_edges(jsg, level, lo, hi, a, n_nodes, False)
    for u in range(n_nodes):
        a.deg[u + 1] += a.deg[u]
    if a.deg[n_nodes] > 3 * m:
        return ST_MEMORY      # cannot happen: at most 3 edges per entry
    for u in range(n_nodes):
        a.stamp[u] = a.deg[u]
    pa_edges(jsg, level, lo, hi, a, n_nodes, True)
    # relevant / nonrelevant documents, and trec_eval's cut points of the recounts:
    # the (R+1)-th document of level 0 in docid rank order (among all, among retrieved)
    for k in range(d):
        a.sorted_r[k] = a.doc_rank[k]
    qsort(a.sorted_r, d, sizeof(int64_t), cmp_i64)
    for k in range(d):
        r = a.sorted_r[k]
        if relarr[r] > 0.0:
            c.nrel += 1
            if r < njr:
                c.nrel_ret += 1
        elif relarr[r] == 0.0:
            c.nnon += 1
            if r < njr:
                c.nnon_ret += 1
    fd = nj
    fd2 = njr
    seen0 = 0
    for k in range(d):
        if relarr[a.sorted_r[k]] == 0.0:
            seen0 += 1
            if seen0 == c.nrel + 1:
                fd = a.sorted_r[k]
                break
    seen0 = 0
    for k in range(d):
        if a.sorted_r[k] >= njr:
            break
        if relarr[a.sorted_r[k]] == 0.0:
            seen0 += 1
            if seen0 == c.nrel + 1:
                fd2 = a.sorted_r[k]
                break
    # one depth-first search per document
    for u in range(n_nodes):
        a.stamp[u] = -1
    for s in range(d):
        i = a.doc_rank[s]
        di = i >= fd and relarr[i] == 0.0
        t = 0
        for k in range(a.deg[s], a.deg[s + 1]):
            v = a.adj[k]
            if a.stamp[v] != s:
                a.stamp[v] = s
                a.stack[t] = v
                t += 1
        while t > 0:
            t -= 1
            u = a.stack[t]
            if u < d:
                if u == s:
                    return ST_CYCLE
                j = a.doc_rank[u]
                if i < njr:
                    if j < njr:
                        if i < j:
                            c.fr += 1
                        else:
                            c.pr += 1
                    else:
                        c.fi += 1
                elif j < njr:
                    c.pi += 1
                else:
                    c.no += 1
                dj = j >= fd and relarr[j] == 0.0
                if not di and not dj:
                    c.rn_pairs += 1
                    if i < j and i < njr:
                        c.rn_ful += 1
                if i < njr and j < njr and not (i >= fd2 and relarr[i] == 0.0) \
                        and not (j >= fd2 and relarr[j] == 0.0):
                    c.rnr_pairs += 1
                    if i < j:
                        c.rnr_ful += 1
                if want_codes:
                    if push_code(codes, (i * nj + j) * 2 if i < j else (j * nj + i) * 2 + 1) < 0:
                        return ST_MEMORY
            for k in range(a.deg[u], a.deg[u + 1]):
                v = a.adj[k]
                if a.stamp[v] != s:
                    a.stamp[v] = s
                    a.stack[t] = v
                    t += 1
    c.pr += c.fr
    c.pi += c.fi
    return ST_OK


cdef int pa_group(const int64_t[::1] jsg, const double[::1] level, const int64_t[::1] rank,
                  Py_ssize_t lo, Py_ssize_t hi, int64_t nj, int64_t njr, int64_t *loc, double *relarr,
                  Counts *c, Codes *codes, bint want_codes) noexcept nogil:
    """One judgment group of several sub-groups: the transitive closure of the
    sub-groups' level orders.  Returns a status code."""
    cdef Py_ssize_t m = hi - lo, p
    cdef PA a
    cdef int status
    a.doc_rank = <int64_t *> malloc((m + 1) * sizeof(int64_t))
    a.node_of = <int64_t *> malloc((m + 1) * sizeof(int64_t))
    a.vnode = <int64_t *> malloc((m + 1) * sizeof(int64_t))
    a.deg = <int64_t *> malloc((2 * m + 2) * sizeof(int64_t))
    a.adj = <int64_t *> malloc((3 * m + 1) * sizeof(int64_t))
    a.stamp = <int64_t *> malloc((2 * m + 1) * sizeof(int64_t))
    a.stack = <int64_t *> malloc((2 * m + 1) * sizeof(int64_t))
    a.sorted_r = <int64_t *> malloc((m + 1) * sizeof(int64_t))
    if (a.doc_rank == NULL or a.node_of == NULL or a.vnode == NULL or a.deg == NULL or a.adj == NULL
            or a.stamp == NULL or a.stack == NULL or a.sorted_r == NULL):
        status = ST_MEMORY
    else:
        status = pa_count(jsg, level, rank, lo, hi, nj, njr, loc, relarr, &a, c, codes, want_codes)
    for p in range(lo, hi):
        loc[rank[p]] = -1
        relarr[rank[p]] = -1.0
    free(a.doc_rank)
    free(a.node_of)
    free(a.vnode)
    free(a.deg)
    free(a.adj)
    free(a.stamp)
    free(a.stack)
    free(a.sorted_r)
    return status


cdef void pair_measures(Codes *codes, int64_t nj, int64_t njr, double *pair, double *pair_ret,
                        double *pair_imp) noexcept nogil:
    """trec_eval's prefs_pair, _ret, _imp from the sorted (pair, direction)
    codes of every group's preferences: each document pair scores the share of
    its preferences that the ranking fulfils, in trec_eval's summation order
    (both retrieved, row by row; then retrieved against not retrieved)."""
    cdef int64_t g, h, key, a, b, c0, c1, n_all = 0, n_ret = 0, n_imp = 0, pass_
    cdef double s = 0.0, s_rr = 0.0
    qsort(codes.buf, codes.n, sizeof(int64_t), cmp_i64)
    for pass_ in range(2):
        g = 0
        while g < codes.n:
            key = codes.buf[g] >> 1
            c0 = 0
            c1 = 0
            h = g
            while h < codes.n and (codes.buf[h] >> 1) == key:
                if codes.buf[h] & 1:
                    c1 += 1
                else:
                    c0 += 1
                h += 1
            a = key // nj
            b = key % nj
            if pass_ == 0:
                n_all += 1
                if b < njr:
                    n_ret += 1
                    n_imp += 1
                    s += <double> c0 / <double> (c0 + c1)
                elif a < njr:
                    n_imp += 1
            elif a < njr <= b:
                s += <double> c0 / <double> (c0 + c1)
            g = h
        if pass_ == 0:
            s_rr = s
    pair[0] = s / <double> n_all if n_all else 0.0
    pair_imp[0] = s / <double> n_imp if n_imp else 0.0
    pair_ret[0] = s_rr / <double> n_ret if n_ret else 0.0


def counts(const int64_t[::1] q_off, const int64_t[::1] jg, const int64_t[::1] jsg,
           const double[::1] level, const int64_t[::1] rank, const int64_t[::1] n_judged,
           const int64_t[::1] n_judged_ret, double[:, ::1] out, int64_t[::1] status, int64_t[::1] bad_jg):
    """trec_eval's 14 preference measures of every query (columns in
    ``all_prefs`` order: prefs_num_prefs_poss, _ful, _ful_ret, simp, pair,
    avgjg, avgjg_Rnonrel, simp_ret, pair_ret, avgjg_ret, avgjg_Rnonrel_ret,
    simp_imp, pair_imp, avgjg_imp).  ``status[q]``: 0, or 1 contradictory
    preferences in a group, 2 a document with level 0 and a positive level in
    one group, 3 a document twice in one sub-group (``bad_jg[q]``: the group's
    index); that query's values are then not computed."""
    cdef Py_ssize_t n = jg.shape[0], nq, q, p, lo, hi, g0, g1, t
    cdef int64_t nj, njr, max_nj = 0, block = 0, n_jgs, k
    cdef int64_t *bit = NULL
    cdef int64_t *loc = NULL
    cdef int64_t *dup = NULL
    cdef double *relarr = NULL
    cdef Codes codes
    cdef Counts c
    cdef int64_t t_poss, t_ful, t_fr, t_pr, t_imp_f, t_imp_p, R, N, nf, npo
    cdef double s_avg, s_ret, s_imp, s_rn, s_rnr, pair, pair_ret, pair_imp
    cdef int st
    cdef bint ec, mem_error = False
    if q_off.shape[0] < 1:
        raise ValueError("q_off must hold at least one entry")
    nq = q_off.shape[0] - 1
    if q_off[0] != 0 or q_off[nq] != n:
        raise ValueError(f"q_off must start at 0 and end at the number of entries ({n})")
    if jsg.shape[0] != n or level.shape[0] != n or rank.shape[0] != n:
        raise ValueError("jg, jsg, level and rank must have the same length")
    if n_judged.shape[0] != nq or n_judged_ret.shape[0] != nq or status.shape[0] != nq or bad_jg.shape[0] != nq:
        raise ValueError(f"n_judged, n_judged_ret, status and bad_jg must have n_queries={nq} entries")
    if out.shape[0] != nq or out.shape[1] != N_COLS:
        raise ValueError(f"out must have shape ({nq}, {N_COLS})")
    for q in range(nq):
        lo = q_off[q]
        hi = q_off[q + 1]
        if hi < lo:
            raise ValueError("q_off must be non-decreasing")
        nj = n_judged[q]
        njr = n_judged_ret[q]
        if njr < 0 or njr > nj or nj > hi - lo or nj > (1 << 31):
            raise ValueError(f"query {q}: need 0 <= n_judged_ret <= n_judged <= its number of entries "
                             "(every judged document has an entry) and n_judged <= 2**31")
        if nj > max_nj:
            max_nj = nj
        for p in range(lo, hi):
            if rank[p] < 0 or rank[p] >= nj:
                raise ValueError(f"entry {p}: rank {rank[p]} outside [0, n_judged={nj})")
            if jg[p] < 0 or jsg[p] < 0 or isnan(level[p]):
                raise ValueError(f"entry {p}: negative group index or NaN level")
            if p > lo:
                if jg[p] < jg[p - 1] or (jg[p] == jg[p - 1] and (jsg[p] < jsg[p - 1] or (
                        jsg[p] == jsg[p - 1] and (level[p] > level[p - 1] or (
                            level[p] == level[p - 1] and rank[p] <= rank[p - 1]))))):
                    raise ValueError(f"entry {p}: entries must be sorted by (jg, jsg, level descending, rank) "
                                     "without repeats")
    codes.buf = NULL
    codes.n = 0
    codes.cap = 0
    bit = <int64_t *> calloc(max_nj + 1, sizeof(int64_t))
    loc = <int64_t *> malloc((max_nj + 1) * sizeof(int64_t))
    dup = <int64_t *> malloc((max_nj + 1) * sizeof(int64_t))
    relarr = <double *> malloc((max_nj + 1) * sizeof(double))
    if bit == NULL or loc == NULL or dup == NULL or relarr == NULL:
        free(bit)
        free(loc)
        free(dup)
        free(relarr)
        raise MemoryError()
    with nogil:
        for k in range(max_nj + 1):
            loc[k] = -1
            dup[k] = -1
            relarr[k] = -1.0
        for q in range(nq):
            lo = q_off[q]
            hi = q_off[q + 1]
            nj = n_judged[q]
            njr = n_judged_ret[q]
            status[q] = ST_OK
            bad_jg[q] = -1
            for t in range(N_COLS):
                out[q, t] = 0.0
            # a document twice in one sub-group
            p = lo
            while p < hi and status[q] == ST_OK:
                g0 = p
                block += 1
                while p < hi and jg[p] == jg[g0] and jsg[p] == jsg[g0]:
                    if dup[rank[p]] == block:
                        status[q] = ST_DUPLICATE
                        bad_jg[q] = jg[g0]
                    dup[rank[p]] = block
                    p += 1
            if status[q] != ST_OK:
                continue
            n_jgs = 0
            p = lo
            while p < hi:
                g0 = p
                while p < hi and jg[p] == jg[g0]:
                    p += 1
                n_jgs += 1
            codes.n = 0
            t_poss = t_ful = t_fr = t_pr = t_imp_f = t_imp_p = 0
            s_avg = s_ret = s_imp = s_rn = s_rnr = 0.0
            g0 = lo
            while g0 < hi:
                g1 = g0
                ec = True
                while g1 < hi and jg[g1] == jg[g0]:
                    if jsg[g1] != jsg[g0]:
                        ec = False
                    g1 += 1
                c = Counts(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                if ec:
                    st = ST_MEMORY if ec_group(level, rank, g0, g1, nj, njr, bit, &c, &codes, n_jgs > 1) < 0 \
                        else ST_OK
                else:
                    st = pa_group(jsg, level, rank, g0, g1, nj, njr, loc, relarr, &c, &codes, n_jgs > 1)
                if st != ST_OK:
                    status[q] = st
                    bad_jg[q] = jg[g0]
                    if st == ST_MEMORY:
                        mem_error = True
                    break
                t_poss += c.pr + c.pi + c.no
                t_ful += c.fr + c.fi
                t_fr += c.fr
                t_pr += c.pr
                t_imp_f += c.fr + c.fi
                t_imp_p += c.pr + c.pi
                if c.pr + c.pi + c.no:
                    s_avg += <double> (c.fr + c.fi) / <double> (c.pr + c.pi + c.no)
                if c.pr:
                    s_ret += <double> c.fr / <double> c.pr
                if c.pr + c.pi:
                    s_imp += <double> (c.fr + c.fi) / <double> (c.pr + c.pi)
                R = c.nrel
                N = c.nnon
                if R >= N:
                    nf = c.fr + c.fi + c.nrel_ret * (R - N)
                    npo = c.pr + c.pi + c.no + c.nrel * (R - N)
                    s_rn += <double> nf / <double> npo
                else:
                    s_rn += <double> c.rn_ful / <double> c.rn_pairs
                R = c.nrel_ret
                N = c.nnon_ret
                if R >= N:
                    nf = c.fr + c.nrel_ret * (R - N)
                    npo = c.pr + c.nrel * (R - N)
                    s_rnr += <double> nf / <double> npo
                else:
                    s_rnr += <double> c.rnr_ful / <double> c.rnr_pairs
                g0 = g1
            if status[q] != ST_OK:
                if mem_error:
                    break
                continue
            out[q, 0] = <double> t_poss
            out[q, 1] = <double> t_ful
            out[q, 2] = <double> t_fr
            out[q, 3] = <double> t_ful / <double> t_poss if t_poss else 0.0
            out[q, 5] = s_avg / <double> n_jgs if s_avg > 0.0 else 0.0
            out[q, 6] = s_rn / <double> n_jgs if s_rn > 0.0 else 0.0
            out[q, 7] = <double> t_fr / <double> t_pr if t_pr else 0.0
            out[q, 9] = s_ret / <double> n_jgs if s_ret > 0.0 else 0.0
            out[q, 10] = s_rnr / <double> n_jgs if s_rnr > 0.0 else 0.0
            out[q, 11] = <double> t_imp_f / <double> t_imp_p if t_imp_p else 0.0
            out[q, 13] = s_imp / <double> n_jgs if s_imp > 0.0 else 0.0
            if n_jgs > 1:
                pair_measures(&codes, nj, njr, &pair, &pair_ret, &pair_imp)
                out[q, 4] = pair
                out[q, 8] = pair_ret
                out[q, 12] = pair_imp
            else:
                # one group: every preference is its own document pair (trec_eval's sum of
                # ones over the pairs is the count of fulfilled preferences)
                out[q, 4] = out[q, 3]
                out[q, 8] = out[q, 7]
                out[q, 12] = out[q, 11]
    free(bit)
    free(loc)
    free(dup)
    free(relarr)
    free(codes.buf)
    if mem_error:
        raise MemoryError()
