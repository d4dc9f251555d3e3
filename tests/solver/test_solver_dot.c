// mcs_dot (plugins/solver-common/solver_internal.h) sums two blocks of four products per SSE2
// step where SSE2 is there. Its result must be bitwise the plain formula the solvers were written
// against, s += ((a0 b0 + a1 b1) + a2 b2) + a3 b3 per block of four, then the tail term by term,
// for every length (all remainders of both blockings) and for values of mixed magnitude and sign,
// zeros and signed zeros included.
#include <criterion/criterion.h>
#include <string.h>

#include "solver_internal.h"

#define NMAX 48

// deterministic pseudo-random numbers of mixed magnitude: [-1, 1) scaled by 2^(-20..20), with
// exact zeros and negative zeros now and then
static double rnd(unsigned* s) {
  *s = *s * 1664525u + 1013904223u;
  unsigned r = *s >> 8;
  if (r % 13 == 0) {
    return r % 2 ? 0.0 : -0.0;
  }
  double v = (double)(r & 0xffff) / 32768.0 - 1;
  return ldexp(v, (int)(r >> 16) % 41 - 20);
}


// the reference: blocks of four in one expression, then the tail
static double plainDot(const double* a, const double* b, int n) {
  double s = 0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    s += a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2] + a[i + 3] * b[i + 3];
  }
  for (; i < n; i++) {
    s += a[i] * b[i];
  }
  return s;
}


Test(solver_dot, bitwise_plain_formula_every_length) {
  unsigned seed = 12345;
  double a[NMAX + 1], b[NMAX + 1];
  for (int trial = 0; trial < 200; trial++) {
    for (int n = 0; n <= NMAX; n++) {
      for (int k = 0; k < n; k++) {
        a[k] = rnd(&seed);
        b[k] = rnd(&seed);
      }

      // unaligned starts too (the SSE2 loads are unaligned)
      for (int off = 0; off < 2 && off <= NMAX - n; off++) {
        double x[NMAX + 1], y[NMAX + 1];
        memcpy(x + off, a, sizeof(double) * n);
        memcpy(y + off, b, sizeof(double) * n);
        double got = mcs_dot(x + off, y + off, n), want = plainDot(a, b, n);
        cr_assert(memcmp(&got, &want, sizeof(double)) == 0,
                  "n %d trial %d offset %d: %.17g against %.17g", n, trial, off, got, want);
      }
    }
  }
}

