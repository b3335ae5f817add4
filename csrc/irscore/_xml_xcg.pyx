"""XCG kernels (docs/xml.md, XCG): the cap of collected gain by ideal elements or
ideal passages, XCG@k / nxCG@k / MAep / interpolated ep, ep/gr curves and
ep/gr at cutoffs.  Span sets are tuples ``(off, doc, start, end)`` and
per-topic value lists tuples ``(off, values)`` (_xml_common.pxd).  Every entry
point checks, itself, whatever could make it read or write out of bounds
(ValueError); failed allocations raise MemoryError; the GIL is released.
"""
from libc.stdlib cimport malloc, free
from libc.string cimport memset
from libc.stdint cimport int64_t
from libc.math cimport floor

from irscore._checks cimport check_len, check_min_len, check_same_len
from irscore._xml_common cimport (
    _check_ndocs, MAX_POINTS, Scratch, _csr, _spans, _out2, _check_cutoffs, span_set, lower_bound, uf_find,
    add_slots, set_bases, add_points, compress_points, _free_scratch, _first_geq, _ep_gr,
)


# ---------------------------------------------------------------------------
# cumulation
# ---------------------------------------------------------------------------


def xcg_cap(const int64_t[::1] run_off, const int64_t[::1] ideal_of,
            const double[::1] ideal_gain, double[::1] gain):
    """Cap, in place: gain collected under an ideal element never exceeds its
    ideal gain (rank order within each topic).  ``ideal_of[i]`` indexes
    ``ideal_gain`` or is -1 (not under an ideal element: left as is)."""
    cdef Py_ssize_t ntop = run_off.shape[0] - 1, t, i, k
    cdef Py_ssize_t ni = ideal_gain.shape[0]
    cdef double *rem
    cdef double g
    check_same_len(gain.shape[0], ideal_of.shape[0], "xcg_cap", "gain and ideal_of")
    _csr(run_off, gain.shape[0], "xcg_cap", "run_off")
    for i in range(run_off[0], run_off[ntop]):
        if ideal_of[i] < -1 or ideal_of[i] >= ni:
            raise ValueError(f"xcg_cap: ideal_of[{i}] = {ideal_of[i]} is not -1 or an index 0..{ni - 1}")
    rem = <double*>malloc((ni + 1) * sizeof(double))
    if rem == NULL:
        raise MemoryError()
    with nogil:
        for k in range(ni):
            rem[k] = ideal_gain[k]
        for t in range(ntop):
            for i in range(run_off[t], run_off[t + 1]):
                k = ideal_of[i]
                if k >= 0:
                    g = gain[i]
                    if g > rem[k]:
                        g = rem[k]
                    if g < 0.0:
                        g = 0.0
                    gain[i] = g
                    rem[k] -= g
    free(rem)


def xcg_passage_cap(tuple run, tuple ideal, const double[::1] ideal_gain, Py_ssize_t ndocs, double alpha,
                    double[::1] gain, int64_t[::1] out_first):
    """Cap with passage assessments, in place (docs/xml.md, XCG, "Cap"); span
    sets ``run`` and ``ideal`` (the ideal passages) are ``(off, doc, start, end)``.

    The gain of result i is attributed to the ideal passages it touches, in
    proportion to w_ik = (1 - alpha) h_ik + alpha n_ik, where h_ik is the text
    of passage k inside e_i and n_ik the part of it no earlier result of the
    topic retrieved; passage k keeps min(share, what is left of its ideal
    gain), so the gain collected for a passage never exceeds its ideal gain,
    whatever the results' geometry.  A result with gain but w = 0 (no
    highlighted text) keeps its gain.  out_first[i] = 1 when result i is the
    first to collect gain for some passage (or collects gain attributed to no
    passage): the ranks MAep counts.  Ideal passages must be disjoint.

    O((n + p) log(n + p)) per topic for alpha = 1 (each character is new
    once); with alpha < 1 each result also visits the passages it touches that
    still have gain to collect.
    """
    cdef const int64_t[::1] run_off, run_doc, run_start, run_end, id_off, id_doc, id_start, id_end
    cdef Py_ssize_t ntop
    cdef Py_ssize_t t, i, j, k, m, mm, nr, ni, o, p, npos, ntouch, a, b, sl, nslots
    cdef Py_ssize_t cap_pts, cap_id, cap_docs, ntab
    cdef int64_t ntot, htot, h, lo_pt, hi_pt
    cdef double g, wsum, w, share, total
    cdef int newhit
    cdef int err = 0
    cdef Scratch s
    cdef Py_ssize_t *pfirst = NULL
    cdef Py_ssize_t *plast = NULL
    cdef Py_ssize_t *pord = NULL
    cdef Py_ssize_t *prank = NULL
    cdef Py_ssize_t *nextpos = NULL
    cdef Py_ssize_t *pskip = NULL
    cdef Py_ssize_t *stamp = NULL
    cdef Py_ssize_t *touch = NULL
    cdef int64_t *accn = NULL
    cdef double *rem = NULL
    cdef char *hit = NULL
    fn = "xcg_passage_cap"
    run_off, run_doc, run_start, run_end = span_set(run, 4, fn, "run")
    id_off, id_doc, id_start, id_end = span_set(ideal, 4, fn, "ideal")
    ntop = run_off.shape[0] - 1
    _check_ndocs(ndocs, fn)
    if not (0.0 <= alpha <= 1.0):
        raise ValueError(f"{fn}: alpha must lie in [0, 1], got {alpha}")
    _csr(run_off, run_doc.shape[0], fn, "run_off", ntop)
    _csr(id_off, id_doc.shape[0], fn, "id_off", ntop)
    check_len(ideal_gain.shape[0], id_doc.shape[0], fn, "ideal_gain")
    check_len(gain.shape[0], run_doc.shape[0], fn, "gain")
    check_min_len(out_first.shape[0], run_doc.shape[0], fn, "out_first")
    ntab = _spans(run_off, run_doc, run_start, run_end, ndocs, fn, "run")
    ntab = max(ntab, _spans(id_off, id_doc, id_start, id_end, ndocs, fn, "id"))
    cap_pts = 2
    cap_id = 1
    cap_docs = 1
    for t in range(ntop):
        nr = run_off[t + 1] - run_off[t]
        ni = id_off[t + 1] - id_off[t]
        if 2 * (nr + ni) + 2 > cap_pts:
            cap_pts = 2 * (nr + ni) + 2
        if ni + 1 > cap_id:
            cap_id = ni + 1
        if nr + ni > cap_docs:
            cap_docs = nr + ni
    memset(&s, 0, sizeof(Scratch))
    s.pts = <int64_t*>malloc(cap_pts * sizeof(int64_t))
    s.tmp = <int64_t*>malloc(cap_pts * sizeof(int64_t))
    s.seglen = <int64_t*>malloc(cap_pts * sizeof(int64_t))
    s.hlpre = <int64_t*>malloc((cap_pts + 1) * sizeof(int64_t))
    s.owner = <Py_ssize_t*>malloc(cap_pts * sizeof(Py_ssize_t))
    s.nxt = <Py_ssize_t*>malloc((cap_pts + 1) * sizeof(Py_ssize_t))
    s.base = <int64_t*>malloc(cap_docs * sizeof(int64_t))
    s.maxend = <int64_t*>malloc(cap_docs * sizeof(int64_t))
    s.slotdoc = <Py_ssize_t*>malloc(cap_docs * sizeof(Py_ssize_t))
    s.slot = <Py_ssize_t*>malloc((ntab + 1) * sizeof(Py_ssize_t))
    nextpos = <Py_ssize_t*>malloc((cap_pts + 1) * sizeof(Py_ssize_t))
    pfirst = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    plast = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    pord = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    prank = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    pskip = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    stamp = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    touch = <Py_ssize_t*>malloc(cap_id * sizeof(Py_ssize_t))
    accn = <int64_t*>malloc(cap_id * sizeof(int64_t))
    rem = <double*>malloc(cap_id * sizeof(double))
    hit = <char*>malloc(cap_id)
    try:
        if (s.pts == NULL or s.tmp == NULL or s.seglen == NULL or s.hlpre == NULL or s.owner == NULL
                or s.nxt == NULL or s.base == NULL or s.maxend == NULL or s.slotdoc == NULL
                or s.slot == NULL or nextpos == NULL or pfirst == NULL or plast == NULL or pord == NULL
                or prank == NULL or pskip == NULL or stamp == NULL or touch == NULL or accn == NULL
                or rem == NULL or hit == NULL):
            raise MemoryError()
        with nogil:
            for k in range(ntab + 1):
                s.slot[k] = -1
            for t in range(ntop):
                # -- documents of the topic: slots and base offsets
                nslots = 0
                add_slots(&s, &nslots, id_doc, id_end, id_off[t], id_off[t + 1])
                add_slots(&s, &nslots, run_doc, run_end, run_off[t], run_off[t + 1])
                set_bases(&s, nslots)
                # -- endpoints, compressed into segments
                m = add_points(&s, 0, run_doc, run_start, run_end, run_off[t], run_off[t + 1])
                m = add_points(&s, m, id_doc, id_start, id_end, id_off[t], id_off[t + 1])
                mm = compress_points(&s, m)
                m = mm - 1 if mm > 0 else 0
                for k in range(m):
                    s.seglen[k] = s.pts[k + 1] - s.pts[k]
                    s.owner[k] = -1
                    s.nxt[k] = k
                s.nxt[m] = m
                # -- passages: segment ranges, owners (disjointness checked)
                ni = id_off[t + 1] - id_off[t]
                for p in range(ni):
                    j = id_off[t] + p
                    sl = s.slot[id_doc[j]]
                    a = lower_bound(s.pts, mm, s.base[sl] + id_start[j])
                    b = lower_bound(s.pts, mm, s.base[sl] + id_end[j])
                    pfirst[p] = a
                    plast[p] = b
                    rem[p] = ideal_gain[j]
                    hit[p] = 0
                    accn[p] = 0
                    stamp[p] = -1
                    prank[p] = -1
                    for k in range(a, b):
                        if s.owner[k] >= 0:
                            err = 1
                            break
                        s.owner[k] = p
                    if err:
                        break
                if err:
                    break
                s.hlpre[0] = 0
                for k in range(m):
                    s.hlpre[k + 1] = s.hlpre[k] + (s.seglen[k] if s.owner[k] >= 0 else 0)
                # passages in text order (by first segment); nextpos[k]: first
                # position whose passage starts at segment k or later
                npos = 0
                for k in range(m):
                    if s.owner[k] >= 0 and (k == 0 or s.owner[k - 1] != s.owner[k]):
                        pord[npos] = s.owner[k]
                        prank[s.owner[k]] = npos
                        npos += 1
                p = 0
                for k in range(m + 1):
                    while p < npos and pfirst[pord[p]] < k:
                        p += 1
                    nextpos[k] = p
                for p in range(npos + 1):
                    pskip[p] = p
                for p in range(npos):
                    if rem[pord[p]] <= 0.0:
                        pskip[p] = p + 1
                # -- the run, in rank order
                nr = run_off[t + 1] - run_off[t]
                for j in range(nr):
                    i = run_off[t] + j
                    sl = s.slot[run_doc[i]]
                    a = lower_bound(s.pts, mm, s.base[sl] + run_start[i])
                    b = lower_bound(s.pts, mm, s.base[sl] + run_end[i])
                    # new text of e_i, per passage (each segment is new once)
                    ntot = 0
                    ntouch = 0
                    k = uf_find(s.nxt, a)
                    while k < b:
                        o = s.owner[k]
                        if o >= 0:
                            accn[o] += s.seglen[k]
                            ntot += s.seglen[k]
                            if stamp[o] != j:
                                stamp[o] = j
                                touch[ntouch] = o
                                ntouch += 1
                        s.nxt[k] = k + 1
                        k = uf_find(s.nxt, k + 1)
                    g = gain[i]
                    out_first[i] = 0
                    if g > 0.0:
                        htot = s.hlpre[b] - s.hlpre[a] if b > a else 0
                        wsum = (1.0 - alpha) * <double> htot + alpha * <double> ntot
                        if not (wsum > 0.0):
                            out_first[i] = 1            # gain attributed to no passage: kept
                        else:
                            total = 0.0
                            newhit = 0
                            if alpha < 1.0:
                                # every passage touched that has gain left
                                p = prank[s.owner[a]] if (a < m and s.owner[a] >= 0) else nextpos[a]
                                p = uf_find(pskip, p)
                                while p < npos and pfirst[pord[p]] < b:
                                    o = pord[p]
                                    lo_pt = s.pts[a if a > pfirst[o] else pfirst[o]]
                                    hi_pt = s.pts[b if b < plast[o] else plast[o]]
                                    h = hi_pt - lo_pt if hi_pt > lo_pt else 0
                                    w = (1.0 - alpha) * <double> h + alpha * <double> accn[o]
                                    if w > 0.0:
                                        share = g * (w / wsum)
                                        if share > rem[o]:
                                            share = rem[o]
                                        if share > 0.0:
                                            rem[o] -= share
                                            total += share
                                            if not hit[o]:
                                                hit[o] = 1
                                                newhit = 1
                                        if rem[o] <= 0.0:
                                            pskip[p] = p + 1
                                    p = uf_find(pskip, p + 1)
                            else:
                                for p in range(ntouch):
                                    o = touch[p]
                                    if rem[o] > 0.0:
                                        share = g * (<double> accn[o] / wsum)
                                        if share > rem[o]:
                                            share = rem[o]
                                        if share > 0.0:
                                            rem[o] -= share
                                            total += share
                                            if not hit[o]:
                                                hit[o] = 1
                                                newhit = 1
                                        if rem[o] <= 0.0 and prank[o] >= 0:
                                            pskip[prank[o]] = prank[o] + 1
                            gain[i] = total
                            out_first[i] = newhit
                    for p in range(ntouch):
                        accn[touch[p]] = 0
                for k in range(nslots):
                    s.slot[s.slotdoc[k]] = -1
            if err:
                for k in range(ntab + 1):
                    s.slot[k] = -1
    finally:
        _free_scratch(&s)
        free(nextpos); free(pfirst); free(plast); free(pord); free(prank); free(pskip)
        free(stamp); free(touch); free(accn); free(rem); free(hit)
    if err:
        raise ValueError(f"{fn}: ideal passages of topic {t} overlap (they must be disjoint)")


def xcg_measures(
    tuple run, const int64_t[::1] count_rank, tuple ideal, const int64_t[::1] cutoffs, Py_ssize_t npoints,
    int maep_mode, double[:, ::1] out_xcg, double[:, ::1] out_nxcg, double[::1] out_maep, double[:, ::1] out_iep,
):
    """XCG@k, nxCG@k (for each cutoff), MAep and interpolated ep per topic.

    run: ``(run_off, gain)``, the (capped) gain of each result per topic;
    ideal: ``(id_off, ideal_sorted)``, per topic the ideal gains sorted descending.
    maep_mode: 0 -> divide by |ideal set|, 1 -> by the number of ranks with gain.
    count_rank: empty (MAep counts every rank with gain) or one flag per result
    (MAep counts a rank with gain only when its flag is set: with passage
    assessments, the first rank to collect gain for an ideal passage).
    out_iep[t, p] = max{ep[k] : gr[k] >= p / npoints} (0 if none).
    """
    cdef const int64_t[::1] run_off, id_off
    cdef const double[::1] gain, ideal_sorted
    cdef Py_ssize_t ntop, nk = cutoffs.shape[0]
    cdef Py_ssize_t t, i, n, ni, c, k, r, p, cap
    cdef double xcg, total, xci, ep, gr, acc, cnt
    cdef double *xci_arr
    cdef double pd
    cdef bint use_count = count_rank.shape[0] > 0
    run_off, gain = span_set(run, 2, "xcg_measures", "run")
    id_off, ideal_sorted = span_set(ideal, 2, "xcg_measures", "ideal")
    ntop = run_off.shape[0] - 1
    _csr(run_off, gain.shape[0], "xcg_measures", "run_off")
    if use_count and count_rank.shape[0] != gain.shape[0]:
        raise ValueError("xcg_measures: count_rank must be empty or have one flag per result")
    _csr(id_off, ideal_sorted.shape[0], "xcg_measures", "id_off", ntop)
    if npoints < 0 or npoints > MAX_POINTS:
        raise ValueError(f"xcg_measures: npoints must be in 0 .. {MAX_POINTS}, got {npoints}")
    for c in range(nk):
        if cutoffs[c] < 0:
            raise ValueError(f"xcg_measures: cutoffs must be >= 0, got {cutoffs[c]}")
    _out2(out_xcg, ntop, nk, "xcg_measures", "out_xcg")
    _out2(out_nxcg, ntop, nk, "xcg_measures", "out_nxcg")
    _out2(out_iep, ntop, npoints + 1, "xcg_measures", "out_iep")
    check_min_len(out_maep.shape[0], ntop, "xcg_measures", "out_maep")
    cap = 1
    for t in range(ntop):
        if id_off[t + 1] - id_off[t] + 1 > cap:
            cap = id_off[t + 1] - id_off[t] + 1
    xci_arr = <double*>malloc(cap * sizeof(double))
    if xci_arr == NULL:
        raise MemoryError()
    with nogil:
        for t in range(ntop):
            n = run_off[t + 1] - run_off[t]
            ni = id_off[t + 1] - id_off[t]
            xci_arr[0] = 0.0
            for k in range(ni):
                xci_arr[k + 1] = xci_arr[k] + ideal_sorted[id_off[t] + k]
            total = xci_arr[ni]
            # cutoffs
            for c in range(nk):
                k = cutoffs[c]
                r = k if k < n else n
                xcg = 0.0
                for i in range(r):
                    xcg += gain[run_off[t] + i]
                out_xcg[t, c] = xcg
                xci = xci_arr[k if k < ni else ni]
                out_nxcg[t, c] = xcg / xci if xci > 0.0 else 0.0
            for p in range(npoints + 1):
                out_iep[t, p] = 0.0
            # ep / gr at every rank
            xcg = 0.0
            acc = 0.0
            cnt = 0.0
            for r in range(n):
                xcg += gain[run_off[t] + r]
                if xcg <= 0.0 or total <= 0.0:
                    continue
                # min{i : xCI[i] >= xcg}, i in 1..ni; ni if never reached
                i = _first_geq(xci_arr, ni, xcg)
                ep = (<double>i) / (r + 1)
                gr = xcg / total
                if gain[run_off[t] + r] > 0.0 and (not use_count or count_rank[run_off[t] + r] != 0):
                    acc += ep
                    cnt += 1.0
                pd = floor(gr * npoints + 1e-12)
                if pd > npoints:
                    pd = npoints
                if not (pd >= 0.0):     # NaN or negative gains: bucket 0
                    pd = 0.0
                p = <Py_ssize_t> pd
                if ep > out_iep[t, p]:
                    out_iep[t, p] = ep
            for p in range(npoints - 1, -1, -1):
                if out_iep[t, p + 1] > out_iep[t, p]:
                    out_iep[t, p] = out_iep[t, p + 1]
            if maep_mode == 0:
                out_maep[t] = acc / ni if ni > 0 else 0.0
            else:
                out_maep[t] = acc / cnt if cnt > 0 else 0.0
    free(xci_arr)


def ep_gr_curve(const double[::1] gain, const double[::1] ideal_sorted,
                double[::1] out_ep, double[::1] out_gr):
    """ep[k] and gr[k] at every rank of one topic (for plots)."""
    cdef Py_ssize_t n = gain.shape[0], ni = ideal_sorted.shape[0]
    cdef double *xci
    check_min_len(out_ep.shape[0], n, "ep_gr_curve", "out_ep")
    check_min_len(out_gr.shape[0], n, "ep_gr_curve", "out_gr")
    xci = <double*>malloc((ni + 1) * sizeof(double))
    if xci == NULL:
        raise MemoryError()
    if n > 0:
        with nogil:
            _ep_gr(&gain[0], n, &ideal_sorted[0] if ni > 0 else NULL, ni, xci, &out_ep[0], &out_gr[0])
    free(xci)


# -- ep/gr at cutoffs -------------------------------------------------------


def epgr_at(tuple run, tuple ideal, const int64_t[::1] cutoffs, double[:, ::1] out_ep, double[:, ::1] out_gr):
    """ep@k and gr@k per topic (docs/xml.md, XCG), ``run = (run_off, gain)``,
    ``ideal = (id_off, ideal_sorted)`` as :func:`xcg_measures`: gr at rank min(k, n); ep at
    rank min(k, n), times n / k when the run is shorter than k (the gain
    stays, the effort grows); 0 for a topic without results."""
    cdef const int64_t[::1] run_off, id_off
    cdef const double[::1] gain, ideal_sorted
    cdef Py_ssize_t ntop, nk = cutoffs.shape[0]
    cdef Py_ssize_t t, c, n, ni, r, cap_n = 1, cap_i = 1
    cdef double *xci = NULL
    cdef double *ep = NULL
    cdef double *gr = NULL
    fn = "epgr_at"
    run_off, gain = span_set(run, 2, fn, "run")
    id_off, ideal_sorted = span_set(ideal, 2, fn, "ideal")
    ntop = run_off.shape[0] - 1
    _csr(run_off, gain.shape[0], fn, "run_off")
    _csr(id_off, ideal_sorted.shape[0], fn, "id_off", ntop)
    _check_cutoffs(cutoffs, fn)
    _out2(out_ep, ntop, nk, fn, "out_ep")
    _out2(out_gr, ntop, nk, fn, "out_gr")
    for t in range(ntop):
        if run_off[t + 1] - run_off[t] > cap_n:
            cap_n = run_off[t + 1] - run_off[t]
        if id_off[t + 1] - id_off[t] + 1 > cap_i:
            cap_i = id_off[t + 1] - id_off[t] + 1
    xci = <double*>malloc(cap_i * sizeof(double))
    ep = <double*>malloc(cap_n * sizeof(double))
    gr = <double*>malloc(cap_n * sizeof(double))
    try:
        if xci == NULL or ep == NULL or gr == NULL:
            raise MemoryError()
        with nogil:
            for t in range(ntop):
                n = run_off[t + 1] - run_off[t]
                ni = id_off[t + 1] - id_off[t]
                if n > 0:
                    _ep_gr(&gain[run_off[t]], n, &ideal_sorted[id_off[t]] if ni > 0 else NULL, ni, xci, ep, gr)
                for c in range(nk):
                    r = cutoffs[c] if cutoffs[c] < n else n
                    if r == 0:
                        out_ep[t, c] = 0.0
                        out_gr[t, c] = 0.0
                        continue
                    out_gr[t, c] = gr[r - 1]
                    out_ep[t, c] = ep[r - 1] * r / cutoffs[c] if cutoffs[c] > n else ep[r - 1]
    finally:
        free(xci)
        free(ep)
        free(gr)
