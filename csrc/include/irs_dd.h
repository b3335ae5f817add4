/* Double-double accumulation (irscore._organization's dominance sums).
 *
 * A box sum of the R&S kernel is a signed combination of prefix sums over a
 * whole population: the terms are far larger than the result and cancel, so
 * in plain doubles the rounding error grows with the population and with the
 * weights' concentration (up to 6e-9 was measured at 12,800 documents with
 * w_n = 0.995).  Here each prefix sum, each coefficient times it and the running
 * total are kept as an unevaluated sum hi + lo: additions by Knuth's TwoSum,
 * products by Dekker's TwoProduct (no fused multiply-add needed, so the same
 * bits on every CPU), about 106 bits in all.  Needs IEEE double arithmetic
 * without value-changing optimisations (no -ffast-math; x87 excess precision
 * is not used on x86-64).
 */
#ifndef IRS_DD_H
#define IRS_DD_H

typedef struct {
    double hi;
    double lo;
} irs_dd;

/* a += b */
static inline void irs_dd_add(irs_dd *a, double b)
{
    double s = a->hi + b;
    double bb = s - a->hi;
    double e = (a->hi - (s - bb)) + (b - bb);
    a->hi = s;
    a->lo += e;
}

/* a += b (both double-double) */
static inline void irs_dd_add_dd(irs_dd *a, irs_dd b)
{
    irs_dd_add(a, b.hi);
    a->lo += b.lo;
}

/* p + e == a * b exactly (Dekker; |a|, |b| well below 2^996) */
static inline void irs_two_prod(double a, double b, double *p, double *e)
{
    const double split = 134217729.0;       /* 2^27 + 1 */
    double t, ah, al, bh, bl;
    *p = a * b;
    t = split * a;
    ah = t - (t - a);
    al = a - ah;
    t = split * b;
    bh = t - (t - b);
    bl = b - bh;
    *e = ((ah * bh - *p) + ah * bl + al * bh) + al * bl;
}

/* acc += c * s */
static inline void irs_dd_mul_add(irs_dd *acc, double c, irs_dd s)
{
    double p, e;
    irs_two_prod(c, s.hi, &p, &e);
    irs_dd_add(acc, p);
    acc->lo += e + c * s.lo;
}

static inline double irs_dd_value(irs_dd a)
{
    return a.hi + a.lo;
}

#endif
