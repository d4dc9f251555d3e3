// The dense Cholesky solve of the solvers (plugins/solver-common/solver_pgs.c, used by the QCQP of
// PGS and noslip) runs its backward pass two rows at a time. It must be bitwise the row-by-row
// substitutions and invert the factor, for every size (both parities of the pairing); the
// factor comes from the one-row formula L[i][j] = (A[i][j] - dot(L[i][0..j), L[j][0..j))) / L[j][j]
// with the dot summed in blocks of four products and then the tail (the sum mcs_dot forms).
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "solver_internal.h"
#include "spd_matrix.h"

#define NMAX SPD_NMAX

// the reference: one entry at a time, dot products summed as blocks of four then the tail
static double refDot(const double* a, const double* b, int n) {
  double s = 0;
  int k = 0;
  for (; k + 4 <= n; k += 4) {
    s += a[k] * b[k] + a[k + 1] * b[k + 1] + a[k + 2] * b[k + 2] + a[k + 3] * b[k + 3];
  }
  for (; k < n; k++) {
    s += a[k] * b[k];
  }
  return s;
}


static int refFactor(double* A, int n, double mindiag) {
  int raised = 0;
  for (int j = 0; j < n; j++) {
    double* Aj = A + j * n;
    double s = Aj[j] - refDot(Aj, Aj, j);
    if (!(s >= mindiag)) {
      s = mindiag;
      raised++;
    }
    Aj[j] = sqrt(s);
    double inv = 1 / Aj[j];
    for (int i = j + 1; i < n; i++) {
      double* Ai = A + i * n;
      Ai[j] = (Ai[j] - refDot(Ai, Aj, j)) * inv;
    }
  }
  return raised;
}


Test(dense_chol, solve_inverts_the_factor) {
  for (int n = 1; n <= NMAX; n++) {
    double A[NMAX * NMAX], L[NMAX * NMAX], x[NMAX], b[NMAX];
    makeMatrix(A, n, 5u + (unsigned)n, 1.0);
    memcpy(L, A, sizeof(double) * n * n);
    cr_assert_eq(refFactor(L, n, 1e-15), 0);
    unsigned seed = 7u;
    for (int i = 0; i < n; i++) {
      b[i] = x[i] = rnd(&seed);
    }
    mcs_cholSolve(L, x, n);

    // bitwise the one-row-at-a-time substitutions
    double y[NMAX];
    memcpy(y, b, sizeof(double) * n);
    for (int i = 0; i < n; i++) {
      y[i] = (y[i] - refDot(L + i * n, y, i)) / L[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
      y[i] /= L[i * n + i];
      for (int k = 0; k < i; k++) {
        y[k] -= L[i * n + k] * y[i];
      }
    }
    cr_expect(memcmp(x, y, sizeof(double) * n) == 0, "n %d: solve differs from one row at a time",
              n);
    for (int i = 0; i < n; i++) {
      double r = -b[i];
      for (int j = 0; j < n; j++) {
        r += A[i * n + j] * x[j];
      }
      cr_expect(fabs(r) < 1e-10, "n %d: residual %g in row %d", n, r, i);
    }
  }
}
