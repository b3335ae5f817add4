"""The priority score of R&S (Amigo, Gonzalo, Verdejo, SIGIR 2013;
docs/reliability_sensitivity.md): the weighted priority relations of side x and
the probability that each holds in the reference, per topic (``_priority``).

Complexity per topic, with N occurrences, L reference levels and m *multi* documents
(documents with more than one membership on either side; all others are *simple*):
O(N log L) for the pairs of simple documents (weighted dominance count: levels in
order, Fenwick tree over the reference levels); each multi document against the
simple ones by 2-D prefix sums over the at most (2|A|+1)(2|B|+1) rectangles where
its relation counts are constant (A, B: its levels on the two sides; read from a
dense (level, reference level) table of prefix sums when it is no bigger than the
corners, else from a sweep; a document whose grid would outgrow the topic is
scanned instead, O(N log |B|)); pairs of two multi documents by dominance sums
(_org_dominance; see "pairs of two documents with several memberships" below):
O(N log LX log LG) for two memberships on x and one on the reference when the
(level, reference level) table is small against the topic, O(N log^2 N) otherwise
and for three, one pair at a time for the rest (O(h^2) in their number h, which no
exact method beats in general under SETH: docs/reliability_sensitivity.md, "Why the
last corner stays quadratic"; both orders of a pair at once, O(k) per pair of k
memberships from one document's per-level tables when it meets enough partners;
``rs_side(pairwise=True)`` enumerates every pair, the tests' reference).
"""
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memset

from irscore._common cimport fenwick_add, fenwick_prefix
from irscore._org_core cimport (
    Topic, Work, irs_dd_value, scratch_malloc, scratch_calloc, scratch_free, _simple_ref_level,
    _count_above, _cross
)
from irscore._org_dominance cimport (
    Dom, Scratch, _dom_solve, _dom_free, _dom_points, _grid_cells, _doc_queries
)


# ---------------------------------------------------------------------------
# pairs of two documents with several memberships
# ---------------------------------------------------------------------------
# A document is *simple* (one X occurrence, at most one reference occurrence),
# *Lq* (q = 2 or 3 X occurrences, at most one reference occurrence), *K1* (one X
# occurrence, several reference ones) or *heavy* (the rest).  A document with no
# reference occurrence and no foreign tail relates to nothing (rg = 0).
#
# - K1 x K1: with one X occurrence each, rx = 1 when a is above b, and the pair
#   holds in the reference iff min G(a) < max G(b): a weighted dominance count
#   (levels in order, Fenwick tree over the reference levels), O(N log L).
# - any document a against the Lq documents b (X levels b1 <= .. <= bq, reference
#   level gb): the pair only depends on the region of each b_j among a's X levels
#   and of gb among a's reference levels, and its weight is linear in
#   (wl[b_j], fl[b_j])_j; a's sum over all Lq documents is a combination of box
#   sums over (b1, .., bq, gb), answered offline as dominance sums: divide and
#   conquer over the X coordinates (merging by the next one) and a Fenwick tree
#   over gb, O((P + Q) log^q); for q = 2 with few levels, a sweep over b1 and a
#   2-D Fenwick tree over (b2, gb) instead, O((P + Q) log LX log LG).  Lq
#   documents query the Lq population for "a above b" only (the ordered pairs),
#   L3 documents query L2 both ways, heavy and K1 documents query both
#   populations both ways unless their region grid would outgrow the population
#   (then one pair at a time).
# - heavy x heavy and heavy x K1: one pair at a time (O(h (h + k1))), both orders of
#   a pair from one merge of the two documents' level lists per side (_pair_both),
#   or, when a document meets enough partners, from its per-level tables
#   (_tab_build, O(LX + LG) once; then O(k) per partner of k memberships: _tab_pair).

cdef inline double _pair_term(Topic *t, Work *w, int32_t a, int32_t b, const int32_t *lx,
                              const int32_t *lg, int32_t tail) noexcept nogil:
    """The priority relations "a above b" of two documents, weighted, times the
    probability that they hold in the reference (min(rg, rx) / rx)."""
    cdef double W = 0.0, rx, rg
    rx = <double> _cross(t.xocc + t.xptr[a], t.kx[a], t.xocc + t.xptr[b], t.kx[b],
                         lx, t.xa, w.wl, w.fl, &W)
    if rx > 0:
        rg = <double> _count_above(t.gocc + t.gptr[a], t.kg[a], t.gocc + t.gptr[b],
                                   t.kg[b], lg, t.ga, tail, tail)
        return (rg if rg < rx else rx) / rx * W
    return 0.0


cdef inline int32_t _next_level(const int32_t *la, int32_t na, int32_t *i, const int32_t *lb,
                                int32_t nb, int32_t *j, int32_t *ca, int32_t *cb) noexcept nogil:
    """One step of a merge of two sorted level lists (one of them not yet
    exhausted): the next level l, and how many entries of each list are at l
    (ca, cb; i and j move past them)."""
    cdef int32_t l
    if j[0] >= nb or (i[0] < na and la[i[0]] < lb[j[0]]):
        l = la[i[0]]
    else:
        l = lb[j[0]]
    ca[0] = 0
    while i[0] < na and la[i[0]] == l:
        ca[0] += 1
        i[0] += 1
    cb[0] = 0
    while j[0] < nb and lb[j[0]] == l:
        cb[0] += 1
        j[0] += 1
    return l


cdef inline double _both_orders(int64_t rab, int64_t rba, int64_t gab, int64_t gba, double wab,
                                double wba) noexcept nogil:
    """The terms of a pair in both orders from its x counts (rab: a above b), its
    reference counts and its weight sums (min(rg, rx) / rx * W each)."""
    cdef double out = 0.0
    if rab > 0:
        out += <double> (gab if gab < rab else rab) / <double> rab * wab
    if rba > 0:
        out += <double> (gba if gba < rba else rba) / <double> rba * wba
    return out


cdef inline void _merge_above(const int32_t *la, int32_t na, const int32_t *lb, int32_t nb,
                              int64_t *ab, int64_t *ba) noexcept nogil:
    """Pairs (alpha in A, beta in B) with alpha strictly above beta (ab) and with
    beta strictly above alpha (ba): one merge of the two sorted level lists."""
    cdef int32_t i = 0, j = 0, ca, cb
    cdef int64_t ua = 0, ub = 0, rab = 0, rba = 0
    while i < na or j < nb:
        _next_level(la, na, &i, lb, nb, &j, &ca, &cb)
        rab += cb * ua
        rba += ca * ub
        ua += ca
        ub += cb
    ab[0] = rab
    ba[0] = rba


cdef inline double _pair_both(Topic *t, Work *w, int32_t a, int32_t b, int32_t tail) noexcept nogil:
    """_pair_term(a, b) + _pair_term(b, a) for two distinct documents with several
    memberships, from one merge of their level lists on each side (xlv/glv: a
    document's levels in a row, ascending) instead of four walks through the
    occurrence lists; ``tail`` >= 0 stands for an empty reference list as in
    _count_above."""
    cdef const int32_t *la = t.xlv + t.xptr[a]
    cdef const int32_t *lb = t.xlv + t.xptr[b]
    cdef int32_t na = t.kx[a], nb = t.kx[b], i = 0, j = 0, l, ca, cb, _u
    cdef const int32_t *ga
    cdef const int32_t *gb
    cdef int32_t nga = t.kg[a], ngb = t.kg[b]
    cdef int64_t ua = 0, ub = 0, rab = 0, rba = 0, gab = 0, gba = 0
    cdef double fa = 0.0, sa = 0.0, fb = 0.0, sb = 0.0, wab = 0.0, wba = 0.0, wlv, flv
    # x: counts and weights of both orders (the sums of _cross, term by term)
    while i < na or j < nb:
        l = _next_level(la, na, &i, lb, nb, &j, &ca, &cb)
        wlv = w.wl[l]
        flv = w.fl[l]
        rab += cb * ua
        rba += ca * ub
        for _u in range(cb):
            wab += fa * wlv + sa * flv
        for _u in range(ca):
            wba += fb * wlv + sb * flv
        for _u in range(ca):
            fa += flv
            sa += wlv
        for _u in range(cb):
            fb += flv
            sb += wlv
        ua += ca
        ub += cb
    if rab == 0 and rba == 0:
        return 0.0
    # reference: an empty list is the tail's one virtual occurrence, or relates to nothing
    ga = t.glv + t.gptr[a]
    gb = t.glv + t.gptr[b]
    if tail < 0 and (nga == 0 or ngb == 0):
        return 0.0
    if nga == 0:
        ga = &tail
        nga = 1
    if ngb == 0:
        gb = &tail
        ngb = 1
    _merge_above(ga, nga, gb, ngb, &gab, &gba)
    return _both_orders(rab, rba, gab, gba, wab, wba)


cdef struct PairTab:
    # one document a's view of every level, for scoring a against many others:
    # per x level l, the occurrences of a strictly above and strictly below l and
    # the weights a partner's occurrence at l adds to each order
    # (wab: sum over alpha above l of fl[alpha] wl[l] + wl[alpha] fl[l]; wba: the
    # same over alpha below l, roles swapped); per reference level (tail
    # included), the reference occurrences of a above and below it.
    int32_t *xab
    int32_t *xbe
    double *wab
    double *wba
    int32_t *gab
    int32_t *gbe
    bint has_g         # a has a reference list (or the tail stands for it)


cdef inline bint _tab_worth(const Topic *t, int64_t partners) noexcept nogil:
    """Build a document's level tables (O(LX + LG)) rather than merge per pair
    when it meets enough partners to pay for them."""
    return <int64_t> t.LX + t.LG + 2 <= 4 * partners


cdef void _tab_build(Topic *t, Work *w, int32_t a, int32_t tail, PairTab *pt) noexcept nogil:
    cdef const int32_t *la = t.xlv + t.xptr[a]
    cdef const int32_t *lg = t.glv + t.gptr[a]
    cdef int32_t na = t.kx[a], ng = t.kg[a], i = 0, l, c, above = 0, LX = t.LX, LG = t.LG
    cdef double f = 0.0, s = 0.0
    # x, top down: occurrences and weight sums strictly above each level
    for l in range(LX):
        c = 0
        while i < na and la[i] == l:
            c += 1
            i += 1
        pt.xab[l] = above
        pt.xbe[l] = na - above - c
        pt.wab[l] = f * w.wl[l] + s * w.fl[l]
        above += c
        while c > 0:
            f += w.fl[l]
            s += w.wl[l]
            c -= 1
    # x, bottom up: weight sums strictly below each level
    f = 0.0
    s = 0.0
    i = na - 1
    l = LX - 1
    while l >= 0:
        c = 0
        while i >= 0 and la[i] == l:
            c += 1
            i -= 1
        pt.wba[l] = f * w.wl[l] + s * w.fl[l]
        while c > 0:
            f += w.fl[l]
            s += w.wl[l]
            c -= 1
        l -= 1
    # reference levels 0..LG (LG: the tail's virtual level)
    pt.has_g = ng > 0 or tail >= 0
    if not pt.has_g:
        return
    above = 0
    i = 0
    for l in range(LG + 1):
        c = 0
        if ng > 0:
            while i < ng and lg[i] == l:
                c += 1
                i += 1
        elif l == tail:
            c = 1
        pt.gab[l] = above
        pt.gbe[l] = (ng if ng > 0 else 1) - above - c
        above += c


cdef inline double _tab_pair(const Topic *t, const PairTab *pt, int32_t b, int32_t tail) noexcept nogil:
    """_pair_both(a, b) from a's tables (the same sums; each order's weights in
    the order of b's occurrences)."""
    cdef const int32_t *lb = t.xlv + t.xptr[b]
    cdef const int32_t *gb
    cdef int32_t nb = t.kx[b], ngb = t.kg[b], j, l
    cdef int64_t rab = 0, rba = 0, gab = 0, gba = 0
    cdef double wab = 0.0, wba = 0.0
    if not pt.has_g:
        return 0.0
    for j in range(nb):
        l = lb[j]
        rab += pt.xab[l]
        rba += pt.xbe[l]
        wab += pt.wab[l]
        wba += pt.wba[l]
    if rab == 0 and rba == 0:
        return 0.0
    if ngb == 0:
        if tail < 0:
            return 0.0
        gab = pt.gab[tail]
        gba = pt.gbe[tail]
    else:
        gb = t.glv + t.gptr[b]
        for j in range(ngb):
            gab += pt.gab[gb[j]]
            gba += pt.gbe[gb[j]]
    return _both_orders(rab, rba, gab, gba, wab, wba)

cdef double _multi_pairs(Topic *t, Work *w, const int32_t *lx,
                         const int32_t *lg, bint foreign_tail) noexcept nogil:
    """Sum of the priority terms of every (ordered) pair of two documents with several
    memberships, each way (see above).  Sets ``w.oom`` (and returns 0) if memory runs
    out."""
    cdef int32_t k, a, l, tail = t.LG if foreign_tail else -1, LG = t.LG
    cdef int32_t maxkx = 3, maxkg = 1, size = t.LG + 1, q, qd
    cdef int64_t i, j, start, nhv = 0, nk1 = 0, ncell, maxcell, xa = t.xa
    cdef int64_t nl[4]
    cdef double acc = 0.0, F, G
    cdef int32_t *lq[4]
    cdef int32_t *hv = NULL
    cdef int32_t *k1 = NULL
    cdef char *grid_ok = NULL
    cdef Dom dm
    cdef Scratch sc
    cdef PairTab pt
    cdef bint tabs_ok, by_tab
    cdef int rc = 0
    memset(&dm, 0, sizeof(Dom))
    memset(&pt, 0, sizeof(PairTab))
    tabs_ok = False
    memset(&sc, 0, sizeof(Scratch))
    nl[2] = 0
    nl[3] = 0
    lq[2] = <int32_t *> scratch_malloc((t.D + 1) * sizeof(int32_t))
    lq[3] = <int32_t *> scratch_malloc((t.D + 1) * sizeof(int32_t))
    hv = <int32_t *> scratch_malloc((t.D + 1) * sizeof(int32_t))
    k1 = <int32_t *> scratch_malloc((t.D + 1) * sizeof(int32_t))
    grid_ok = <char *> scratch_malloc((t.D + 1) * sizeof(char))
    if lq[2] == NULL or lq[3] == NULL or hv == NULL or k1 == NULL or grid_ok == NULL:
        rc = -1
    if rc == 0:
        for k in range(t.D):
            if t.kx[k] == 0 or (t.kx[k] == 1 and t.kg[k] <= 1):
                continue  # absent from x, or simple
            if t.kg[k] == 0 and not foreign_tail:
                continue  # relates to nothing in the reference
            if (t.kx[k] == 2 or t.kx[k] == 3) and t.kg[k] <= 1:
                lq[t.kx[k]][nl[t.kx[k]]] = k
                nl[t.kx[k]] += 1
            elif t.kx[k] == 1:
                k1[nk1] = k
                nk1 += 1
            else:
                hv[nhv] = k
                nhv += 1
            if t.kx[k] > maxkx:
                maxkx = t.kx[k]
            if t.kg[k] > maxkg:
                maxkg = t.kg[k]
        # the level tables of _tab_build (LX + 1 and LG + 2 entries), for the heavy
        # and K1 documents only (without them, pairs are merged one by one)
        if nhv + nk1 > 0:
            pt.xab = <int32_t *> scratch_malloc((t.LX + 1) * sizeof(int32_t))
            pt.xbe = <int32_t *> scratch_malloc((t.LX + 1) * sizeof(int32_t))
            pt.wab = <double *> scratch_malloc((t.LX + 1) * sizeof(double))
            pt.wba = <double *> scratch_malloc((t.LX + 1) * sizeof(double))
            pt.gab = <int32_t *> scratch_malloc((t.LG + 2) * sizeof(int32_t))
            pt.gbe = <int32_t *> scratch_malloc((t.LG + 2) * sizeof(int32_t))
            tabs_ok = (pt.xab != NULL and pt.xbe != NULL and pt.wab != NULL and pt.wba != NULL
                       and pt.gab != NULL and pt.gbe != NULL)
        # --- K1 x K1: weighted dominance count -------------------------------
        if nk1 > 1:
            for i in range(size + 1):
                w.fen_f[i] = 0.0
                w.fen_g[i] = 0.0
            i = xa
            while i < t.xb:
                l = lx[i]
                start = i
                while i < t.xb and lx[i] == l:
                    k = t.xk[i - xa]
                    if t.kx[k] == 1 and t.kg[k] >= 2:
                        q = t.glv[t.gptr[k] + t.kg[k] - 1]
                        F = fenwick_prefix(w.fen_f, q)
                        G = fenwick_prefix(w.fen_g, q)
                        acc += w.wl[l] * F + w.fl[l] * G
                    i += 1
                for j in range(start, i):
                    k = t.xk[j - xa]
                    if t.kx[k] == 1 and t.kg[k] >= 2:
                        q = t.gl1[k]
                        fenwick_add(w.fen_f, size, q, w.fl[l])
                        fenwick_add(w.fen_g, size, q, w.wl[l])
        # --- heavy x heavy, heavy x K1: one pair at a time ----------------------
        for i in range(nhv):
            a = hv[i]
            acc += _pair_term(t, w, a, a, lx, lg, tail)
            if tabs_ok and _tab_worth(t, nhv - i - 1 + nk1):
                _tab_build(t, w, a, tail, &pt)
                for j in range(i + 1, nhv):
                    acc += _tab_pair(t, &pt, hv[j], tail)
                for j in range(nk1):
                    acc += _tab_pair(t, &pt, k1[j], tail)
            else:
                for j in range(i + 1, nhv):
                    acc += _pair_both(t, w, a, hv[j], tail)
                for j in range(nk1):
                    acc += _pair_both(t, w, a, k1[j], tail)
    # --- scratch of the region grids ------------------------------------------------
    if rc == 0 and nl[2] + nl[3] > 0:
        sc.xv = <int32_t *> scratch_malloc((maxkx + 2) * sizeof(int32_t))
        sc.th = <int32_t *> scratch_malloc((maxkx + 2) * sizeof(int32_t))
        sc.xc = <double *> scratch_malloc(6 * (maxkx + 2) * sizeof(double))
        sc.gv = <int32_t *> scratch_malloc((maxkg + 2) * sizeof(int32_t))
        sc.gt = <int32_t *> scratch_malloc((maxkg + 2) * sizeof(int32_t))
        sc.gc = <double *> scratch_malloc(2 * (maxkg + 2) * sizeof(double))
        if (sc.xv == NULL or sc.th == NULL or sc.xc == NULL or sc.gv == NULL or sc.gt == NULL
                or sc.gc == NULL):
            rc = -1
        else:
            sc.xf = sc.xc + (maxkx + 2)
            sc.xw = sc.xc + 2 * (maxkx + 2)
            sc.rr = sc.xc + 3 * (maxkx + 2)
            sc.sf = sc.xc + 4 * (maxkx + 2)
            sc.sw = sc.xc + 5 * (maxkx + 2)
            sc.ss = sc.gc + (maxkg + 2)
    # --- every document against the L2 then the L3 population --------------------
    for qd in range(2, 4):
        if rc != 0 or nl[qd] == 0:
            continue
        # the queries: Lq documents "a above b" (ordered pairs within the
        # population), L3 documents against L2 both ways, heavy and K1 documents
        # both ways, or one pair at a time where that is cheaper: with the
        # level tables a pair costs about a quarter of a grid cell's dominance
        # query, so the grid is taken when it has at most a quarter as many
        # cells as the population has documents (without the tables, when its
        # cells do not outnumber the population four times)
        maxcell = 5 * 5 * 3 if qd == 2 else 5 * 5 * 5 * 3
        by_tab = tabs_ok and _tab_worth(t, nl[qd])
        for i in range(nhv + nk1):
            k = hv[i] if i < nhv else k1[i - nhv]
            ncell = _grid_cells(t, k, qd, lx, lg)
            grid_ok[k] = 4 * ncell <= nl[qd] if by_tab else ncell <= 4 * nl[qd] + 64
            if not grid_ok[k]:
                if by_tab:
                    _tab_build(t, w, k, tail, &pt)
                    for j in range(nl[qd]):
                        acc += _tab_pair(t, &pt, lq[qd][j], tail)
                else:
                    for j in range(nl[qd]):
                        acc += _pair_both(t, w, k, lq[qd][j], tail)
            elif ncell > maxcell:
                maxcell = ncell
        sc.grid = <double *> scratch_malloc(2 * qd * maxcell * sizeof(double))
        if sc.grid == NULL or _dom_points(&dm, t, w, lq[qd], nl[qd], qd, lx, lg) != 0:
            rc = -1
        if rc == 0:
            for i in range(nl[qd]):
                if _doc_queries(&dm, t, w, lq[qd][i], False, lx, lg, &sc) != 0:
                    rc = -1
                    break
        if rc == 0 and qd == 2:
            for i in range(nl[3]):
                if _doc_queries(&dm, t, w, lq[3][i], True, lx, lg, &sc) != 0:
                    rc = -1
                    break
        if rc == 0:
            for i in range(nhv + nk1):
                k = hv[i] if i < nhv else k1[i - nhv]
                if grid_ok[k] and _doc_queries(&dm, t, w, k, True, lx, lg, &sc) != 0:
                    rc = -1
                    break
        if rc == 0:
            rc = _dom_solve(&dm, t.LX, LG)
            acc += irs_dd_value(dm.acc)
        _dom_free(&dm)
        memset(&dm, 0, sizeof(Dom))
        scratch_free(sc.grid)
        sc.grid = NULL
    scratch_free(lq[2]); scratch_free(lq[3]); scratch_free(hv); scratch_free(k1); scratch_free(grid_ok)
    scratch_free(pt.xab); scratch_free(pt.xbe); scratch_free(pt.wab); scratch_free(pt.wba)
    scratch_free(pt.gab); scratch_free(pt.gbe)
    scratch_free(sc.xv); scratch_free(sc.th); scratch_free(sc.xc)
    scratch_free(sc.gv); scratch_free(sc.gt); scratch_free(sc.gc)
    if rc != 0:
        w.oom = 1
        return 0.0
    return acc


cdef double _priority(Topic *t, Work *w, const int32_t[::1] x_doc, const int32_t[::1] x_level,
                      const int32_t[::1] g_level, bint uniform, bint foreign_tail,
                      double Wt, double Wr, bint pairwise) noexcept nogil:
    cdef int64_t i, j, start, xa = t.xa
    cdef int32_t l, k, beta, a, b, tail_a, size = t.LG + 1, nm, qi, qj
    cdef double acc = 0.0, F, G, pt
    cdef const int32_t *lxp = &x_level[0]
    cdef const int32_t *lgp = &g_level[0] if g_level.shape[0] > 0 else NULL
    # --- pairs of simple documents: weighted dominance count -------------------
    for k in range(size + 1):
        w.fen_f[k] = 0.0
        w.fen_g[k] = 0.0
    i = xa
    while i < t.xb:
        l = x_level[i]
        start = i
        while i < t.xb and x_level[i] == l:
            beta = _simple_ref_level(t, t.xk[i - xa], foreign_tail)
            if beta >= 0:
                F = fenwick_prefix(w.fen_f + 1, beta)
                G = fenwick_prefix(w.fen_g + 1, beta)
                acc += w.wl[l] * F + w.fl[l] * G
            i += 1
        for j in range(start, i):
            beta = _simple_ref_level(t, t.xk[j - xa], foreign_tail)
            if beta >= 0:
                fenwick_add(w.fen_f + 1, size, beta, w.fl[l])
                fenwick_add(w.fen_g + 1, size, beta, w.wl[l])
    # --- pairs of two documents with several memberships ----------------------
    nm = 0
    for k in range(t.D):
        if t.kx[k] > 0 and not (t.kx[k] == 1 and t.kg[k] <= 1):
            w.multi[nm] = k
            nm += 1
    tail_a = t.LG if foreign_tail else -1
    if pairwise:
        # the former quadratic enumeration, one document pair at a time (kept as
        # the tests' reference)
        for qi in range(nm):
            a = w.multi[qi]
            for qj in range(qi, nm):
                b = w.multi[qj]
                # a above b (for a == b: the document's own occurrences on two levels)
                acc += _pair_term(t, w, a, b, lxp, lgp, tail_a)
                if a != b:
                    acc += _pair_term(t, w, b, a, lxp, lgp, tail_a)
    elif nm > 0 and t.LX > 1:
        # (on a single level no two occurrences are in a priority relation)
        acc += _multi_pairs(t, w, lxp, lgp, foreign_tail)
    # --- a document with several memberships against the simple ones ----------
    if nm > 0:
        acc += _multi_simple(t, w, x_doc, x_level, g_level, foreign_tail)
    # --- relations with the long tail -----------------------------------------
    if Wt > 0.0:
        for i in range(xa, t.xb):
            k = t.xk[i - xa]
            l = x_level[i]
            pt = <double> (t.kg[k] if t.kg[k] < t.kx[k] else t.kx[k]) / <double> t.kx[k]
            acc += pt * (w.fl[l] * Wt + w.wl[l] * Wt / Wr)
    return acc


cdef inline bint _use_grid(int32_t kx, int32_t kg, int32_t nx) noexcept nogil:
    """Rectangle decomposition for a multi document unless its grid would outgrow a scan."""
    cdef int64_t cells = (2 * <int64_t> kx + 2) * (2 * <int64_t> (kg if kg > 0 else 1) + 2)
    return cells <= 64 or cells <= nx // 4


cdef inline int32_t _count_lt(const int32_t *occ, int32_t n, const int32_t *level, int64_t base,
                              int32_t y, bint strict) noexcept nogil:
    """Entries of a sorted occurrence list on a level < y (strict) or <= y."""
    cdef int32_t lo = 0, hi = n, mid, v
    while lo < hi:
        mid = (lo + hi) >> 1
        v = level[base + occ[mid]]
        if v < y or (not strict and v == y):
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef double _multi_simple_direct(Topic *t, Work *w, int32_t k, const int32_t[::1] x_doc,
                                 const int32_t[::1] x_level, const int32_t[::1] g_level,
                                 bint foreign_tail) noexcept nogil:
    """The pairs of one multi document with every simple one, by a scan (O(N log k))."""
    cdef int64_t xa = t.xa, ga = t.ga, pos
    cdef int32_t na = t.kx[k], ng_ = t.kg[k], LG = t.LG, ia = 0, ib = 0, x, y, v, _v
    cdef const int32_t *ax = t.xocc + t.xptr[k]
    cdef const int32_t *bg = t.gocc + t.gptr[k]
    cdef const int32_t *lx = &x_level[0]
    cdef const int32_t *lg = NULL
    cdef double acc = 0.0, sf_all = 0.0, sw_all = 0.0, sfl = 0.0, swl = 0.0, sfe, swe
    cdef double cxl, cxg, cgl, cgg, pbel, pabo
    if t.ng > 0:
        lg = &g_level[0]
    for ia in range(na):
        v = lx[xa + ax[ia]]
        sf_all += w.fl[v]
        sw_all += w.wl[v]
    ia = 0
    for pos in range(xa, t.xb):
        y = _simple_ref_level(t, t.xk[pos - xa], foreign_tail)
        if y < 0:
            continue
        x = lx[pos]
        while ia < na and lx[xa + ax[ia]] < x:
            v = lx[xa + ax[ia]]
            sfl += w.fl[v]
            swl += w.wl[v]
            ia += 1
        if ib < ia:
            ib = ia
        sfe = 0.0
        swe = 0.0
        while ib < na and lx[xa + ax[ib]] == x:
            ib += 1
        for _v in range(ia, ib):
            sfe += w.fl[x]
            swe += w.wl[x]
        cxl = ia
        cxg = na - ib
        if ng_ > 0:
            cgl = _count_lt(bg, ng_, lg, ga, y, True)
            cgg = ng_ - _count_lt(bg, ng_, lg, ga, y, False)
        else:
            cgl = 1.0 if LG < y else 0.0
            cgg = 1.0 if LG > y else 0.0
        pbel = (cgl if cgl < cxl else cxl) / cxl if cxl > 0 else 0.0
        pabo = (cgg if cgg < cxg else cxg) / cxg if cxg > 0 else 0.0
        acc += pbel * (sfl * w.wl[x] + swl * w.fl[x])
        acc += pabo * ((sf_all - sfl - sfe) * w.wl[x] + (sw_all - swl - swe) * w.fl[x])
    return acc


cdef void _simple_table(Topic *t, Work *w, const int32_t *lx, bint foreign_tail,
                        double *P) noexcept nogil:
    """P[x][y] (row stride LG + 2, two values per cell): the wl and fl sums of the
    simple documents on an X level < x with reference level < y (the foreign tail
    at LG), for x in 0..LX and y in 0..LG+1; P is zeroed by the caller.  The
    occurrences are counted per (level, reference level), then summed."""
    cdef int64_t YS = <int64_t> t.LG + 2, pos, row, prev
    cdef int32_t beta, x, y
    cdef double cf
    # counts (in P's fl slot of row x + 1) of the simple documents on level x
    for pos in range(t.xa, t.xb):
        beta = _simple_ref_level(t, t.xk[pos - t.xa], foreign_tail)
        if beta >= 0:
            P[2 * ((lx[pos] + 1) * YS + beta + 1) + 1] += 1.0
    for x in range(t.LX):
        row = (<int64_t> x + 1) * YS
        prev = <int64_t> x * YS
        cf = 0.0
        for y in range(1, t.LG + 2):
            # cf: the documents of level x with reference level < y
            cf += P[2 * (row + y) + 1]
            P[2 * (row + y)] = P[2 * (prev + y)] + w.wl[x] * cf
            P[2 * (row + y) + 1] = P[2 * (prev + y) + 1] + w.fl[x] * cf
    return


cdef double _multi_simple(Topic *t, Work *w, const int32_t[::1] x_doc, const int32_t[::1] x_level,
                          const int32_t[::1] g_level, bint foreign_tail) noexcept nogil:
    """Priority pairs (occurrence of a multi document, occurrence of a simple one).

    For a multi document a with X levels A and reference levels B, the pair with a
    simple document b at (x', y') only depends on the rank of x' among A and of y'
    among B: the plane is cut into at most (2|A|+1)(2|B|+1) rectangles of constant
    coefficient, and the weights of the simple documents inside each rectangle are
    2-D prefix sums, answered offline: queries sorted by x', a sweep over the X
    levels inserting the simple documents into a Fenwick tree over y'.
    Sets ``w.oom`` (and returns 0) if memory runs out."""
    cdef int32_t LX = t.LX, LG = t.LG, size = t.LG + 1
    cdef int64_t xa = t.xa, pos
    cdef int32_t k, s, nmd = 0, i, j, q, K, J, v, last, beta, x, y, kg_eff
    cdef int64_t nxb_tot = 0, ngb_tot = 0, grid_tot = 0
    cdef int32_t *mdoc = NULL
    cdef int64_t *xb_ptr = NULL
    cdef int64_t *gb_ptr = NULL
    cdef int64_t *grid_ptr = NULL
    cdef int32_t *xbv = NULL
    cdef int32_t *gbv = NULL
    cdef double *grid = NULL
    cdef int64_t *q_ptr = NULL
    cdef int32_t *q_slot = NULL
    cdef int32_t *q_idx = NULL
    cdef int64_t *q_fill = NULL
    cdef double acc = 0.0, Sw, Sf, sfl, swl, sfg, swg, sf_all, sw_all
    cdef double cxl, cxg, cgl, cgg, pbel, pabo, coefW, coefF
    cdef int32_t ia, ib, ja, jb, na, ng_
    cdef int64_t cell, row0, row1, YS = <int64_t> LG + 2, c00, c01, c10, c11
    cdef double *P = NULL
    cdef bint dense
    cdef const int32_t *lx = &x_level[0]
    for k in range(t.D):
        if t.kx[k] == 0 or (t.kx[k] == 1 and t.kg[k] <= 1):
            continue
        if t.kg[k] == 0 and not foreign_tail:
            continue  # every relation of an absent document is wrong
        if not _use_grid(t.kx[k], t.kg[k], t.nx):
            acc += _multi_simple_direct(t, w, k, x_doc, x_level, g_level, foreign_tail)
            continue
        nmd += 1
        nxb_tot += 2 * t.kx[k] + 2
        ngb_tot += 2 * (t.kg[k] if t.kg[k] > 0 else 1) + 2
        grid_tot += 2 * (2 * t.kx[k] + 2) * (2 * (t.kg[k] if t.kg[k] > 0 else 1) + 2)
    if nmd == 0:
        return acc
    # the prefix sums at the corners: a dense (LX + 1) x (LG + 2) table when it is
    # no bigger than the corners themselves (read in any order, it stays in cache),
    # else the corners' values one by one from a sweep (grid)
    dense = (<int64_t> LX + 1) * YS <= grid_tot + 2 * <int64_t> t.nx
    mdoc = <int32_t *> scratch_malloc(nmd * sizeof(int32_t))
    xb_ptr = <int64_t *> scratch_malloc((nmd + 1) * sizeof(int64_t))
    gb_ptr = <int64_t *> scratch_malloc((nmd + 1) * sizeof(int64_t))
    grid_ptr = <int64_t *> scratch_malloc((nmd + 1) * sizeof(int64_t))
    xbv = <int32_t *> scratch_malloc(nxb_tot * sizeof(int32_t))
    gbv = <int32_t *> scratch_malloc(ngb_tot * sizeof(int32_t))
    q_ptr = <int64_t *> scratch_calloc(LX + 2, sizeof(int64_t))
    if dense:
        P = <double *> scratch_calloc(2 * (<int64_t> LX + 1) * YS, sizeof(double))
    else:
        q_fill = <int64_t *> scratch_malloc((LX + 2) * sizeof(int64_t))
        grid = <double *> scratch_malloc(grid_tot * sizeof(double))
        q_slot = <int32_t *> scratch_malloc(nxb_tot * sizeof(int32_t))
        q_idx = <int32_t *> scratch_malloc(nxb_tot * sizeof(int32_t))
    if (mdoc == NULL or xb_ptr == NULL or gb_ptr == NULL or grid_ptr == NULL or xbv == NULL
            or gbv == NULL or q_ptr == NULL or (dense and P == NULL)
            or (not dense and (q_fill == NULL or grid == NULL or q_slot == NULL or q_idx == NULL))):
        scratch_free(mdoc); scratch_free(xb_ptr); scratch_free(gb_ptr); scratch_free(grid_ptr)
        scratch_free(xbv); scratch_free(gbv)
        scratch_free(grid); scratch_free(q_ptr); scratch_free(q_fill); scratch_free(q_slot); scratch_free(q_idx)
        scratch_free(P)
        w.oom = 1
        return 0.0
    # boundaries: X buckets [b_i, b_i+1) over levels 0..LX, reference buckets over 0..LG+1
    s = 0
    xb_ptr[0] = 0
    gb_ptr[0] = 0
    grid_ptr[0] = 0
    for k in range(t.D):
        if t.kx[k] == 0 or (t.kx[k] == 1 and t.kg[k] <= 1):
            continue
        if t.kg[k] == 0 and not foreign_tail:
            continue
        if not _use_grid(t.kx[k], t.kg[k], t.nx):
            continue
        mdoc[s] = k
        K = 0
        pos = xb_ptr[s]
        xbv[pos] = 0
        last = 0
        for i in range(t.kx[k]):
            v = t.xlv[t.xptr[k] + i]
            if v > last:
                K += 1
                xbv[pos + K] = v
                last = v
            if v + 1 > last:
                K += 1
                xbv[pos + K] = v + 1
                last = v + 1
        if LX > last:
            K += 1
            xbv[pos + K] = LX
        xb_ptr[s + 1] = pos + K + 1
        J = 0
        pos = gb_ptr[s]
        gbv[pos] = 0
        last = 0
        kg_eff = t.kg[k] if t.kg[k] > 0 else 1
        for i in range(kg_eff):
            v = t.glv[t.gptr[k] + i] if t.kg[k] > 0 else LG
            if v > last:
                J += 1
                gbv[pos + J] = v
                last = v
            if v + 1 > last:
                J += 1
                gbv[pos + J] = v + 1
                last = v + 1
        if LG + 1 > last:
            J += 1
            gbv[pos + J] = LG + 1
        gb_ptr[s + 1] = pos + J + 1
        grid_ptr[s + 1] = grid_ptr[s] + 2 * (K + 1) * (J + 1)
        for i in range(K + 1):
            q_ptr[xbv[xb_ptr[s] + i] + 1] += 1
        s += 1
    if dense:
        _simple_table(t, w, lx, foreign_tail, P)
    else:
        for x in range(LX + 1):
            q_ptr[x + 1] += q_ptr[x]
        for x in range(LX + 1):
            q_fill[x] = q_ptr[x]
        for s in range(nmd):
            for i in range(<int32_t> (xb_ptr[s + 1] - xb_ptr[s])):
                x = xbv[xb_ptr[s] + i]
                q_slot[q_fill[x]] = s
                q_idx[q_fill[x]] = i
                q_fill[x] += 1
        # sweep over the X levels
        for k in range(size + 1):
            w.fen_f[k] = 0.0
            w.fen_g[k] = 0.0
        pos = xa
        for x in range(LX + 1):
            for q in range(<int32_t> q_ptr[x], <int32_t> q_ptr[x + 1]):
                s = q_slot[q]
                i = q_idx[q]
                J = <int32_t> (gb_ptr[s + 1] - gb_ptr[s])
                for j in range(J):
                    y = gbv[gb_ptr[s] + j]
                    cell = grid_ptr[s] + 2 * (<int64_t> i * J + j)
                    grid[cell] = fenwick_prefix(w.fen_g + 1, y)
                    grid[cell + 1] = fenwick_prefix(w.fen_f + 1, y)
            while pos < t.xb and lx[pos] == x:
                beta = _simple_ref_level(t, t.xk[pos - xa], foreign_tail)
                if beta >= 0:
                    fenwick_add(w.fen_f + 1, size, beta, w.fl[x])
                    fenwick_add(w.fen_g + 1, size, beta, w.wl[x])
                pos += 1
    # rectangles
    for s in range(nmd):
        k = mdoc[s]
        na = t.kx[k]
        ng_ = t.kg[k]
        K = <int32_t> (xb_ptr[s + 1] - xb_ptr[s]) - 1
        J = <int32_t> (gb_ptr[s + 1] - gb_ptr[s]) - 1
        sf_all = 0.0
        sw_all = 0.0
        for i in range(na):
            v = t.xlv[t.xptr[k] + i]
            sf_all += w.fl[v]
            sw_all += w.wl[v]
        ia = 0
        sfl = 0.0
        swl = 0.0
        for i in range(K):
            x = xbv[xb_ptr[s] + i]
            # occurrences of k strictly above x, and at x
            while ia < na and t.xlv[t.xptr[k] + ia] < x:
                v = t.xlv[t.xptr[k] + ia]
                sfl += w.fl[v]
                swl += w.wl[v]
                ia += 1
            ib = ia
            sfg = sf_all - sfl
            swg = sw_all - swl
            while ib < na and t.xlv[t.xptr[k] + ib] == x:
                v = t.xlv[t.xptr[k] + ib]
                sfg -= w.fl[v]
                swg -= w.wl[v]
                ib += 1
            cxl = ia
            cxg = na - ib
            ja = 0
            for j in range(J):
                y = gbv[gb_ptr[s] + j]
                if ng_ > 0:
                    while ja < ng_ and t.glv[t.gptr[k] + ja] < y:
                        ja += 1
                    jb = ja
                    while jb < ng_ and t.glv[t.gptr[k] + jb] == y:
                        jb += 1
                    cgl = ja
                    cgg = ng_ - jb
                else:  # in the reference's tail: one virtual occurrence at LG
                    cgl = 1.0 if LG < y else 0.0
                    cgg = 1.0 if LG > y else 0.0
                pbel = (cgl if cgl < cxl else cxl) / cxl if cxl > 0 else 0.0
                pabo = (cgg if cgg < cxg else cxg) / cxg if cxg > 0 else 0.0
                coefW = pbel * sfl + pabo * sfg
                coefF = pbel * swl + pabo * swg
                if coefW == 0.0 and coefF == 0.0:
                    continue
                if dense:
                    c00 = 2 * (xbv[xb_ptr[s] + i] * YS + gbv[gb_ptr[s] + j])
                    c01 = 2 * (xbv[xb_ptr[s] + i] * YS + gbv[gb_ptr[s] + j + 1])
                    c10 = 2 * (xbv[xb_ptr[s] + i + 1] * YS + gbv[gb_ptr[s] + j])
                    c11 = 2 * (xbv[xb_ptr[s] + i + 1] * YS + gbv[gb_ptr[s] + j + 1])
                    Sw = P[c11] - P[c01] - P[c10] + P[c00]
                    Sf = P[c11 + 1] - P[c01 + 1] - P[c10 + 1] + P[c00 + 1]
                else:
                    row0 = grid_ptr[s] + 2 * (<int64_t> i * (J + 1) + j)
                    row1 = row0 + 2 * (<int64_t> (J + 1))
                    Sw = grid[row1 + 2] - grid[row0 + 2] - grid[row1] + grid[row0]
                    Sf = grid[row1 + 3] - grid[row0 + 3] - grid[row1 + 1] + grid[row0 + 1]
                acc += coefW * Sw + coefF * Sf
    scratch_free(mdoc); scratch_free(xb_ptr); scratch_free(gb_ptr); scratch_free(grid_ptr)
    scratch_free(xbv); scratch_free(gbv)
    scratch_free(grid); scratch_free(q_ptr); scratch_free(q_fill); scratch_free(q_slot); scratch_free(q_idx)
    scratch_free(P)
    return acc
