// Moduco solver tests: deterministic pseudo-random numbers and dense symmetric matrices for the
// tests of the dense factorizations (test_dense_chol, test_ltl).
#ifndef MODUCO_TESTS_SOLVER_SPD_MATRIX_H_
#define MODUCO_TESTS_SOLVER_SPD_MATRIX_H_

#define SPD_NMAX 40

// deterministic pseudo-random numbers in [-1, 1)
static double rnd(unsigned* s) {
  *s = *s * 1664525u + 1013904223u;
  return (double)(*s >> 8) / (double)(1u << 23) - 1;
}


// A = B B' + shift I (symmetric; positive definite for shift > 0), row major, n <= SPD_NMAX
static void makeMatrix(double* A, int n, unsigned seed, double shift) {
  double B[SPD_NMAX * SPD_NMAX];
  for (int k = 0; k < n * n; k++) {
    B[k] = rnd(&seed);
  }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double s = i == j ? shift : 0;
      for (int k = 0; k < n; k++) {
        s += B[i * n + k] * B[j * n + k];
      }
      A[i * n + j] = s;
    }
  }
}

#endif  // MODUCO_TESTS_SOLVER_SPD_MATRIX_H_
