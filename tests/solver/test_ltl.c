// Newton's dense Hessian factor H = L' L (plugins/solver-common/solver_ltl.c): eliminating from
// the last dof to the first on the non-zeros of each row. The factor must reproduce H, keep the
// tree pattern of a dof-ancestor matrix free of fill, solve H x = b, raise pivots below the floor,
// and its rank-1 update and downdate must give the factor of the changed matrix.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "solver_internal.h"
#include "spd_matrix.h"

#define NMAX SPD_NMAX

// a dof tree: parent[i] < i (a chain of six, then branches of a few dofs each)
static void makeTree(int* parent, int n, unsigned seed) {
  for (int i = 0; i < n; i++) {
    parent[i] = i == 0 ? -1 : i < 6 ? i - 1 : (int)((rnd(&seed) + 1) * 0.5 * i);
  }
}


// symmetric positive definite A (full, row major) with the pattern of the tree: each dof coupled
// with its ancestors only (what M has, and J' D J of rows on one kinematic chain)
static void makeTreeMatrix(double* A, const int* parent, int n, unsigned seed) {
  memset(A, 0, sizeof(double) * n * n);
  for (int k = 0; k < n; k++) {
    // a row on the chain of k: its ancestors and itself
    double v[NMAX] = {0};
    for (int j = k; j >= 0; j = parent[j]) {
      v[j] = rnd(&seed);
    }
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        A[i * n + j] += v[i] * v[j];
      }
    }
    A[k * n + k] += 0.5;
  }
}


// largest |(L' L - A)[i][j]| relative to the largest |A|
static double factorError(const double* L, const double* A, int n) {
  double err = 0, scale = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = (i > j ? i : j); k < n; k++) {
        s += L[k * n + i] * L[k * n + j];
      }
      err = fmax(err, fabs(s - A[i * n + j]));
      scale = fmax(scale, fabs(A[i * n + j]));
    }
  }
  return err / scale;
}


Test(ltl, factor_reproduces_dense_and_tree_matrices) {
  for (int n = 1; n <= NMAX; n++) {
    double A[NMAX * NMAX], L[NMAX * NMAX];
    makeMatrix(A, n, 3u + (unsigned)n, 0.1);
    memcpy(L, A, sizeof(L[0]) * n * n);
    cr_expect_eq(mcs_ltlFactor(L, n, 1e-15), 0, "n %d: pivots raised", n);
    cr_expect_lt(factorError(L, A, n), 1e-13, "n %d dense: L'L differs from A", n);

    int parent[NMAX];
    makeTree(parent, n, 11u + (unsigned)n);
    makeTreeMatrix(A, parent, n, 5u + (unsigned)n);
    memcpy(L, A, sizeof(L[0]) * n * n);
    cr_expect_eq(mcs_ltlFactor(L, n, 1e-15), 0);
    cr_expect_lt(factorError(L, A, n), 1e-13, "n %d tree: L'L differs from A", n);

    // no fill: L[k][j] (j < k) is zero unless j is an ancestor of k
    for (int k = 0; k < n; k++) {
      int anc[NMAX] = {0};
      for (int j = parent[k]; j >= 0; j = parent[j]) {
        anc[j] = 1;
      }
      for (int j = 0; j < k; j++) {
        cr_expect(anc[j] || L[k * n + j] == 0, "n %d: fill at L[%d][%d] = %g", n, k, j,
                  L[k * n + j]);
      }
    }
  }
}


Test(ltl, solve_inverts_the_matrix) {
  for (int n = 1; n <= NMAX; n++) {
    double A[NMAX * NMAX], L[NMAX * NMAX], x[NMAX], b[NMAX];
    int parent[NMAX];
    makeTree(parent, n, 13u + (unsigned)n);
    makeTreeMatrix(A, parent, n, 7u + (unsigned)n);
    memcpy(L, A, sizeof(L[0]) * n * n);
    cr_assert_eq(mcs_ltlFactor(L, n, 1e-15), 0);
    unsigned seed = 9u;
    for (int i = 0; i < n; i++) {
      b[i] = x[i] = rnd(&seed);
    }
    mcs_ltlSolve(L, x, n);
    for (int i = 0; i < n; i++) {
      double r = -b[i];
      for (int j = 0; j < n; j++) {
        r += A[i * n + j] * x[j];
      }
      cr_expect_lt(fabs(r), 1e-10, "n %d: residual %g at %d", n, r, i);
    }
  }
}


Test(ltl, pivots_below_the_floor_are_raised) {
  // rank 3: n - 3 pivots vanish up to rounding and are raised to the floor
  for (int n = 5; n <= 23; n += 6) {
    double A[NMAX * NMAX], B[NMAX * 3];
    unsigned seed = 99u + (unsigned)n;
    for (int k = 0; k < n * 3; k++) {
      B[k] = rnd(&seed);
    }
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        A[i * n + j] = B[i * 3] * B[j * 3] + B[i * 3 + 1] * B[j * 3 + 1] + B[i * 3 + 2] * B[j * 3 + 2];
      }
    }
    int raised = mcs_ltlFactor(A, n, 1e-6);
    cr_expect_geq(raised, n - 3, "n %d: %d raised pivots, expected at least %d", n, raised, n - 3);
    for (int i = 0; i < n; i++) {
      cr_expect(isfinite(A[i * n + i]) && A[i * n + i] >= sqrt(1e-6) * 0.999);
    }
  }
}


Test(ltl, update_and_downdate_give_the_factor_of_the_changed_matrix) {
  for (int n = 1; n <= NMAX; n += 3) {
    double A[NMAX * NMAX], L[NMAX * NMAX], R[NMAX * NMAX], w[NMAX], v[NMAX] = {0};
    int parent[NMAX];
    makeTree(parent, n, 17u + (unsigned)n);
    makeTreeMatrix(A, parent, n, 19u + (unsigned)n);
    memcpy(L, A, sizeof(L[0]) * n * n);
    cr_assert_eq(mcs_ltlFactor(L, n, 1e-15), 0);

    // a constraint row on the chain of the last dof, added with weight 2 then removed
    unsigned seed = 23u + (unsigned)n;
    for (int j = n - 1; j >= 0; j = parent[j]) {
      v[j] = rnd(&seed);
    }
    memcpy(w, v, sizeof(w[0]) * n);
    cr_assert_eq(mcs_ltlUpdate(L, w, n, 2.0), 1);
    for (int i = 0; i < n; i++) {
      cr_expect_eq(w[i], 0, "n %d: w[%d] = %g left non-zero", n, i, w[i]);
      for (int j = 0; j < n; j++) {
        R[i * n + j] = A[i * n + j] + 2.0 * v[i] * v[j];
      }
    }
    cr_expect_lt(factorError(L, R, n), 1e-12, "n %d: update", n);
    memcpy(w, v, sizeof(w[0]) * n);
    cr_assert_eq(mcs_ltlUpdate(L, w, n, -2.0), 1);
    cr_expect_lt(factorError(L, A, n), 1e-12, "n %d: downdate", n);
  }
}


Test(ltl, downdate_to_an_indefinite_matrix_fails) {
  // A = I (n = 4); removing 2 e_0 e_0' leaves a negative pivot
  double L[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  double w[4] = {1.5, 0, 0, 0};
  cr_assert_eq(mcs_ltlFactor(L, 4, 1e-15), 0);
  cr_expect_eq(mcs_ltlUpdate(L, w, 4, -1.0), 0);
}
