/* Sums of the DCG discount over long runs of positions (static inline, no state).
 *
 * irs_inv_log2_sum(y0, y1) = sum_{y = y0}^{y1 - 1} 1 / log2(y), 2 <= y0 <= y1,
 * in time independent of y1 - y0: Euler-Maclaurin,
 *   sum_{y0}^{y1-1} g = int_{y0}^{y1} g + (g(y0) - g(y1)) / 2 + (g'(y1) - g'(y0)) / 12 + R,
 * with g(y) = ln 2 / ln y, g'(y) = -ln 2 / (y ln^2 y) and |R| <= (|g'''(y0)| + |g'''(y1)|) / 720
 * (below 1e-20 for y0 >= 2^16).  The integral is a 10-point Gauss-Legendre rule
 * on each piece [a, 2a] (positive terms only, no cancellation; 1/ln y is
 * nearly linear on such a piece), so the relative error is a few units in the
 * last place.  The kernels add the first positions one by one, as trec_eval
 * does, and use this only for the positions beyond (IRS_DISC_EXACT); the ideal
 * DCG of 2^62 relevant documents then costs microseconds instead of forever.
 */
#ifndef IRS_DISC_H
#define IRS_DISC_H

#include <stdint.h>
#include <math.h>

/* positions summed term by term before the closed form takes over */
#define IRS_DISC_EXACT ((int64_t)1 << 20)

static const double irs_gl_x[5] = {0.14887433898163122, 0.4333953941292472, 0.6794095682990244,
                                   0.8650633666889845, 0.9739065285171717};
static const double irs_gl_w[5] = {0.2955242247147528, 0.2692667193099965, 0.219086362515982,
                                   0.1494513491505804, 0.06667134430868814};

static inline double irs_inv_ln_integral(double a, double b)
{
    /* int_a^b dy / ln y, 2 <= a <= b */
    double total = 0.0;
    while (a < b) {
        double e = 2.0 * a < b ? 2.0 * a : b;
        double mid = 0.5 * (a + e), half = 0.5 * (e - a), s = 0.0;
        int j;
        for (j = 0; j < 5; j++)
            s += irs_gl_w[j] * (1.0 / log(mid - half * irs_gl_x[j]) + 1.0 / log(mid + half * irs_gl_x[j]));
        total += half * s;
        a = e;
    }
    return total;
}

static inline double irs_inv_log2_sum(int64_t y0, int64_t y1)
{
    const double ln2 = 0.6931471805599453;
    double a = (double)y0, b = (double)y1, la, lb;
    if (y1 <= y0)
        return 0.0;
    la = log(a);
    lb = log(b);
    return ln2 * irs_inv_ln_integral(a, b) + 0.5 * (ln2 / la - ln2 / lb)
           + (ln2 / (a * la * la) - ln2 / (b * lb * lb)) / 12.0;
}

#endif
