"""Kernel of the intent-aware (diversity) measures of ndeval (docs/web_diversity.md):
alpha-DCG@k, alpha-nDCG@k, ERR-IA@k, nERR-IA@k, P-IA@k, StRecall@k, NRBP,
nNRBP and AP-IA.

Input: the judged documents of each query ("rows", CSR ``row_off`` over
queries; within a query in document-id descending order, the order that
breaks ties of the ideal ranking), the intents each row is judged for (CSR
``int_off`` over rows: ``intent`` index within the query, ``grade``), the
number of intents of each query, and each ranking: its length (CSR
``offsets``) and its judged documents in rank order (CSR ``judged_off``:
position in the ranking ``judged_pos``, row index within the query
``judged_row``; every other position is unjudged).  A document is relevant to
an intent when its grade there is >= ``level``.

One pass over each ranking computes every measure; the ideal ranking is
ndeval's greedy one (at each rank the document adding the most novelty-
discounted gain, ties to the row order), built to the depth the requested
measures need.  Every entry point checks its own memory preconditions.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, malloc, free
from libc.math cimport log, ceil, NAN

# columns per cutoff, then the three whole-ranking measures
cdef enum:
    K_ADCG = 0
    K_ANDCG = 1
    K_ERRIA = 2
    K_NERRIA = 3
    K_PIA = 4
    K_STREC = 5
    PER_CUTOFF = 6
    W_NRBP = 0
    W_NNRBP = 1
    W_APIA = 2
    N_WHOLE = 3


cdef void ideal_pass(int64_t r0, int64_t nrows, int64_t M, const int64_t[::1] int_off,
                     const int32_t[::1] intent, const int32_t[::1] grade, int64_t level, double alpha,
                     double beta, int64_t depth, const int64_t *cut, Py_ssize_t ncut, double *gain,
                     int64_t *ghead, int64_t *gtail, uint64_t *gmask, int64_t *nxt,
                     double *dcg_at, double *err_at, double *nrbp, const double *disc_tab,
                     int64_t ntab) noexcept nogil:
    """The greedy ideal ranking of one query to ``depth``: its DCG and ERR
    sums at each cutoff and its NRBP sum (before NRBP's constant factor).

    Only rows relevant to some intent are candidates (the others add
    nothing).  Rows relevant to the same set of intents always add the same
    gain, so with at most 64 intents they form one group (a list of rows in
    increasing order; the group offers its first unused row, the lowest, as
    ties require); at each rank the group of the largest gain (ties: the
    lowest row) gives its row.  Once no candidate adds gain the rest of the
    ideal adds nothing.  With one intent every candidate is in the one
    group: its rows are taken in order, found as they are needed (the rows
    past the ideal's depth are not read)."""
    cdef int64_t pos, r, a, g, best_g, ng = 0, cursor = 0
    cdef uint64_t mask
    cdef double s, best_s, dcg = 0.0, err = 0.0, decay = 1.0
    cdef Py_ssize_t ci = 0
    cdef bint merge = M <= 64
    cdef bint single = M == 1
    nrbp[0] = 0.0
    for r in range(0 if single else nrows):
        mask = 0
        s = 0.0
        for a in range(int_off[r0 + r], int_off[r0 + r + 1]):
            if grade[a] >= level:
                s = 1.0
                if merge:
                    mask |= (<uint64_t> 1) << intent[a]
        if s == 0.0:
            continue
        nxt[r] = -1
        g = ng
        if merge:
            for g in range(ng + 1):
                if g == ng or gmask[g] == mask:
                    break
        if g == ng:
            gmask[g] = mask
            ghead[g] = r
            ng += 1
        else:
            nxt[gtail[g]] = r
        gtail[g] = r
    for pos in range(depth):
        if single:                  # the next candidate row, its gain
            r = -1
            while cursor < nrows and r < 0:
                for a in range(int_off[r0 + cursor], int_off[r0 + cursor + 1]):
                    if grade[a] >= level:
                        r = cursor
                        break
                cursor += 1
            if r < 0:
                break
            best_s = 0.0
            for a in range(int_off[r0 + r], int_off[r0 + r + 1]):
                if grade[a] >= level:
                    best_s += gain[intent[a]]
            if best_s <= 0.0:
                break
        else:
            best_g = -1
            best_s = -1.0
            for g in range(ng):
                r = ghead[g]
                if r < 0:
                    continue
                s = 0.0
                for a in range(int_off[r0 + r], int_off[r0 + r + 1]):
                    if grade[a] >= level:
                        s += gain[intent[a]]
                if s > best_s or (s == best_s and r < ghead[best_g]):
                    best_s = s
                    best_g = g
            if best_g < 0 or best_s <= 0.0:
                break
            r = ghead[best_g]
            ghead[best_g] = nxt[r]
        for a in range(int_off[r0 + r], int_off[r0 + r + 1]):
            if grade[a] >= level:
                gain[intent[a]] *= 1.0 - alpha
        dcg += best_s * (disc_tab[pos] if pos < ntab else log(2.0) / log(<double> pos + 2.0))
        err += best_s / <double> (pos + 1)
        nrbp[0] += best_s * decay
        decay *= beta
        while ci < ncut and cut[ci] == pos + 1:
            dcg_at[ci] = dcg
            err_at[ci] = err
            ci += 1
    while ci < ncut:
        dcg_at[ci] = dcg
        err_at[ci] = err
        ci += 1


cdef inline void cutoff_values(double[:, ::1] out, Py_ssize_t q, Py_ssize_t ci, int64_t k, double dcg, double err,
                               int64_t pairs, int64_t covered, int64_t Ma, const double *idcg, const double *ierr,
                               const double *ii, Py_ssize_t ncut) noexcept nogil:
    """The six measures at cutoff ``k`` (the ``ci``-th) from the sums over the
    ranking's first ``k`` documents; ``ii``: the ideal-ideal DCG sums at each
    cutoff, then the ERR sums."""
    out[q, PER_CUTOFF * ci + K_ADCG] = dcg / ii[ci]
    out[q, PER_CUTOFF * ci + K_ANDCG] = dcg / idcg[ci] if dcg != 0.0 else 0.0
    out[q, PER_CUTOFF * ci + K_ERRIA] = err / ii[ncut + ci]
    out[q, PER_CUTOFF * ci + K_NERRIA] = err / ierr[ci] if err != 0.0 else 0.0
    out[q, PER_CUTOFF * ci + K_PIA] = <double> pairs / (<double> k * <double> Ma)
    out[q, PER_CUTOFF * ci + K_STREC] = <double> covered / <double> Ma


#: the deepest rank to which the ideal-ideal sums of alpha-DCG@k and ERR-IA@k are
#: summed while they still change (with alpha > 0 they stop changing in double
#: precision after about 37 / alpha ranks; with alpha = 0 never)
cdef int64_t II_LIMIT = 1048576


cdef void ideal_ideal(int64_t Ma, double alpha, const int64_t *cut, Py_ssize_t ncut, const double *disc_tab,
                      int64_t ntab, double *iid, double *iie) noexcept nogil:
    """The ideal-ideal DCG and ERR sums (gain ``Ma (1 - alpha)**(r - 1)`` at
    rank r) at each cutoff, summed rank by rank as ndeval sums them.  The
    terms never increase, so once one leaves both sums unchanged every later
    one does: the sums are final there, and the work ends (for any cutoff).
    A cutoff past ``II_LIMIT`` whose sums still change there gets NaN."""
    cdef double g = <double> Ma, d = 0.0, e = 0.0, t_d, t_e, disc
    cdef int64_t k = 0, kend = cut[ncut - 1]
    cdef Py_ssize_t ci = 0
    cdef bint final = False
    if kend > II_LIMIT:
        kend = II_LIMIT
    while True:
        disc = disc_tab[k] if k < ntab else log(2.0) / log(<double> k + 2.0)
        t_d = g * disc
        t_e = g / <double> (k + 1)
        if d + t_d == d and e + t_e == e:
            final = True
            break
        if k >= kend:
            break
        d += t_d
        e += t_e
        g *= 1.0 - alpha
        k += 1
        while ci < ncut and cut[ci] == k:
            iid[ci] = d
            iie[ci] = e
            ci += 1
    while ci < ncut:
        iid[ci] = d if final else NAN
        iie[ci] = e if final else NAN
        ci += 1


def diversity(const int64_t[::1] offsets, const int64_t[::1] judged_off, const int64_t[::1] judged_pos,
              const int32_t[::1] judged_row, const int64_t[::1] row_off,
              const int64_t[::1] int_off, const int32_t[::1] intent, const int32_t[::1] grade,
              const int64_t[::1] n_intents, int64_t level, double alpha, double beta,
              const int64_t[::1] cutoffs, bint need_nrbp, bint whole, double[:, ::1] out,
              int64_t q_lo=0, int64_t q_hi=-1):
    """Fill ``out[q]`` (q in ``[q_lo, q_hi)``, all queries when ``q_hi < 0``;
    disjoint ranges may run in several threads) with, for each cutoff k of ``cutoffs`` (increasing):
    alpha-DCG@k, alpha-nDCG@k, ERR-IA@k, nERR-IA@k, P-IA@k, StRecall@k; then
    NRBP, nNRBP, AP-IA.  A query without a relevant (intent, document) pair
    scores 0 everywhere.  ``need_nrbp``: build the ideal ranking deep enough
    for nNRBP (else only to the largest cutoff); ``whole``: scan the whole
    ranking for NRBP, nNRBP and AP-IA (else they are NaN and the scan stops
    at the largest cutoff).  The work is bounded by the rankings and the
    judgments, not by the cutoffs: past the end of a ranking the measures
    keep their values (alpha-DCG@k and ERR-IA@k: over the ideal-ideal sums
    to k, computed once per number of intents and stopped where they stop
    changing; NaN for a cutoff past ``II_LIMIT`` where they still change,
    which only a tiny alpha allows)."""
    cdef Py_ssize_t nq, q, i, ci
    cdef Py_ssize_t ncut = cutoffs.shape[0]
    cdef int64_t nrows_all, r0, nrows, M, Ma, lo, n, row, a, j, k, p, pend, depth, nrbp_depth
    cdef int64_t maxM = 1, maxR = 1, bad = -1, bad_intent = -1, pairs, covered
    cdef double s, dcg, err, decay, nrbp, ideal_nrbp, norm, disc
    cdef int64_t kmax
    cdef double *gain
    cdef double *ap
    cdef int64_t *cnt
    cdef int64_t *nrel
    cdef double *idcg
    cdef double *ierr
    cdef int64_t *ghead
    cdef int64_t *gtail
    cdef int64_t *nxt
    cdef uint64_t *gmask
    cdef double *base
    cdef double *disc_tab = NULL
    cdef double *ii_tab = NULL
    cdef char *ii_done = NULL
    cdef int64_t ntab
    if offsets.shape[0] < 1 or row_off.shape[0] != offsets.shape[0] or judged_off.shape[0] != offsets.shape[0]:
        raise ValueError("offsets, judged_off and row_off must all hold n_queries + 1 entries")
    nq = offsets.shape[0] - 1
    if n_intents.shape[0] != nq:
        raise ValueError(f"n_intents must have n_queries={nq} entries")
    if out.shape[0] != nq or out.shape[1] != PER_CUTOFF * ncut + N_WHOLE:
        raise ValueError(f"out must have shape ({nq}, {PER_CUTOFF * ncut + N_WHOLE})")
    if offsets[0] != 0 or row_off[0] != 0 or row_off[nq] < 0 or row_off[nq] >= int_off.shape[0]:
        raise ValueError("offsets must start at 0; row_off must start at 0 and end within int_off")
    if judged_off[0] != 0 or judged_off[nq] > judged_pos.shape[0] or judged_pos.shape[0] != judged_row.shape[0]:
        raise ValueError("judged_off must start at 0 and end within judged_pos (and judged_row, of equal length)")
    nrows_all = row_off[nq]
    if int_off[0] != 0 or int_off[nrows_all] > intent.shape[0] or intent.shape[0] != grade.shape[0]:
        raise ValueError("int_off must start at 0 and end within intent (and grade, of equal length)")
    if q_hi < 0:
        q_hi = nq
    if q_lo < 0 or q_lo > q_hi or q_hi > nq:
        raise ValueError(f"bad query range [{q_lo}, {q_hi}) of {nq} queries")
    for ci in range(ncut):
        if cutoffs[ci] < 1 or (ci > 0 and cutoffs[ci] <= cutoffs[ci - 1]):
            raise ValueError("cutoffs must be positive and increasing")
    if not (0.0 <= alpha <= 1.0) or not (0.0 <= beta < 1.0):
        raise ValueError(f"alpha must be in [0, 1] and beta in [0, 1); got {alpha}, {beta}")
    for q in range(nq):
        if offsets[q + 1] < offsets[q] or row_off[q + 1] < row_off[q] or judged_off[q + 1] < judged_off[q]:
            raise ValueError("offsets, judged_off and row_off must be non-decreasing")
        M = n_intents[q]
        nrows = row_off[q + 1] - row_off[q]
        if M < 0 or M > 2147483647:       # intents are int32 indices
            raise ValueError("n_intents must be in 0..2**31 - 1")
        if M > maxM:
            maxM = M
        if nrows > maxR:
            maxR = nrows
    # the intents of the rows of the range (row_off is non-decreasing and ends within int_off)
    for i in range(row_off[q_lo], row_off[q_hi]):
        if int_off[i + 1] < int_off[i] or int_off[i] < 0 or int_off[i + 1] > intent.shape[0]:
            raise ValueError("int_off must be non-decreasing and within intent")
    nrbp_depth = 1
    if need_nrbp and beta > 0.0:
        nrbp_depth = <int64_t> ceil(log(1e-20) / log(beta)) + 1
    base = <double *> malloc((3 * maxM + 2 * (ncut + 1)) * sizeof(double) + (2 * maxM + 3 * maxR) * sizeof(int64_t)
                             + maxR * sizeof(uint64_t))
    # log(2) / log(k + 2), the DCG discount of rank k + 1, for the ranks both
    # passes read (the same expression: the same bits as computing it in place)
    ntab = cutoffs[ncut - 1] if ncut else 0
    if nrbp_depth > ntab:
        ntab = nrbp_depth
    if ntab > maxR and ntab > (cutoffs[ncut - 1] if ncut else 0):
        ntab = maxR
    if ntab > 65536:
        ntab = 65536
    disc_tab = <double *> malloc((ntab + 1) * sizeof(double))
    # the ideal-ideal sums at each cutoff for each number of intents (0..maxM), computed when first needed
    ii_tab = <double *> malloc((2 * ncut * (maxM + 1) + 1) * sizeof(double))
    ii_done = <char *> calloc(maxM + 1, sizeof(char))
    if base == NULL or disc_tab == NULL or ii_tab == NULL or ii_done == NULL:
        free(base)
        free(disc_tab)
        free(ii_tab)
        free(ii_done)
        raise MemoryError()
    for k in range(ntab):
        disc_tab[k] = log(2.0) / log(<double> k + 2.0)
    gain = base
    ap = gain + maxM
    idcg = ap + maxM
    ierr = idcg + ncut + 1
    cnt = <int64_t *> (ierr + ncut + 1 + maxM)
    nrel = cnt + maxM
    ghead = nrel + maxM
    gtail = ghead + maxR
    nxt = gtail + maxR
    gmask = <uint64_t *> (nxt + maxR)
    try:
        with nogil:
            for q in range(q_lo, q_hi):
                r0 = row_off[q]
                nrows = row_off[q + 1] - r0
                M = n_intents[q]
                for j in range(M):
                    nrel[j] = 0
                    cnt[j] = 0
                    ap[j] = 0.0
                    gain[j] = 1.0
                for a in range(int_off[r0], int_off[r0 + nrows]):
                    j = intent[a]
                    if j < 0 or j >= M:         # checked where read
                        bad_intent = a
                        break
                    nrel[j] += grade[a] >= level
                if bad_intent >= 0:
                    break
                Ma = 0
                for j in range(M):
                    if nrel[j] > 0:
                        Ma += 1
                for ci in range(PER_CUTOFF * ncut + N_WHOLE):
                    out[q, ci] = 0.0
                if Ma == 0:
                    continue
                # the ideal ranking (greedy), to the depth the measures need
                depth = cutoffs[ncut - 1] if ncut else 0
                if nrbp_depth > depth:
                    depth = nrbp_depth
                if depth > nrows:
                    depth = nrows
                ideal_pass(r0, nrows, M, int_off, intent, grade, level, alpha, beta, depth,
                           &cutoffs[0] if ncut else NULL, ncut, gain, ghead, gtail, gmask, nxt,
                           idcg, ierr, &ideal_nrbp, disc_tab, ntab)
                for j in range(M):
                    gain[j] = 1.0
                # the ranking
                lo = offsets[q]
                n = offsets[q + 1] - lo
                dcg = 0.0
                err = 0.0
                nrbp = 0.0
                decay = 1.0
                pairs = 0
                covered = 0
                if ncut and not ii_done[Ma]:
                    ideal_ideal(Ma, alpha, &cutoffs[0], ncut, disc_tab, ntab, ii_tab + 2 * ncut * Ma,
                                ii_tab + 2 * ncut * Ma + ncut)
                    ii_done[Ma] = 1
                ci = 0
                k = 0
                p = judged_off[q]
                pend = judged_off[q + 1]
                kmax = cutoffs[ncut - 1] if ncut else 0
                while k < n and (whole or k < kmax):     # the ranking, no further
                    s = 0.0
                    if k < n and p < pend and judged_pos[p] == k:
                        row = judged_row[p]
                        p += 1
                        if row >= 0:
                            if row >= nrows:        # checked where read (the scan may stop early)
                                bad = p - 1
                                break
                            for a in range(int_off[r0 + row], int_off[r0 + row + 1]):
                                if grade[a] >= level:
                                    j = intent[a]
                                    s += gain[j]
                                    gain[j] *= 1.0 - alpha
                                    if cnt[j] == 0:
                                        covered += 1
                                    cnt[j] += 1
                                    pairs += 1
                                    ap[j] += <double> cnt[j] / <double> (k + 1)
                    nrbp += s * decay
                    decay *= beta
                    if k < kmax:        # the cutoff measures: only to the largest cutoff
                        disc = disc_tab[k] if k < ntab else log(2.0) / log(<double> k + 2.0)
                        dcg += s * disc
                        err += s / <double> (k + 1)
                    k += 1
                    while ci < ncut and cutoffs[ci] == k:
                        cutoff_values(out, q, ci, k, dcg, err, pairs, covered, Ma, idcg, ierr,
                                      ii_tab + 2 * ncut * Ma, ncut)
                        ci += 1
                if bad >= 0:
                    break
                while ci < ncut:        # cutoffs past the ranking: nothing more is gained
                    cutoff_values(out, q, ci, cutoffs[ci], dcg, err, pairs, covered, Ma, idcg, ierr,
                                  ii_tab + 2 * ncut * Ma, ncut)
                    ci += 1
                if not whole:
                    for ci in range(N_WHOLE):
                        out[q, PER_CUTOFF * ncut + ci] = NAN
                    continue
                norm = (1.0 - (1.0 - alpha) * beta) / <double> Ma
                out[q, PER_CUTOFF * ncut + W_NRBP] = nrbp * norm
                if need_nrbp:
                    out[q, PER_CUTOFF * ncut + W_NNRBP] = nrbp / ideal_nrbp if ideal_nrbp > 0.0 else 0.0
                else:
                    out[q, PER_CUTOFF * ncut + W_NNRBP] = NAN
                s = 0.0
                for j in range(M):
                    if nrel[j] > 0:
                        s += ap[j] / <double> nrel[j]
                out[q, PER_CUTOFF * ncut + W_APIA] = s / <double> Ma
    finally:
        free(base)
        free(disc_tab)
        free(ii_tab)
        free(ii_done)
    if bad_intent >= 0:
        raise ValueError(f"intent {intent[bad_intent]} (judgment {bad_intent}) outside its query's "
                         f"0..n_intents - 1")
    if bad >= 0:
        raise ValueError(f"row {judged_row[bad]} (judged entry {bad}) beyond its query's judged documents")
