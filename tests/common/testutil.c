// Moduco tests: small reference routines shared by several suites.
#include "testutil.h"

#include <math.h>

void tu_denseSolve(int n, double* A, double* b, double* x) {
  // forward elimination, swapping in the largest pivot of each column
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++) {
      if (fabs(A[r*n + c]) > fabs(A[p*n + c])) {
        p = r;
      }
    }
    for (int k = 0; k < n; k++) {
      double t = A[c*n + k];
      A[c*n + k] = A[p*n + k];
      A[p*n + k] = t;
    }
    double t = b[c];
    b[c] = b[p];
    b[p] = t;
    for (int r = c + 1; r < n; r++) {
      double f = A[r*n + c] / A[c*n + c];
      for (int k = c; k < n; k++) {
        A[r*n + k] -= f * A[c*n + k];
      }
      b[r] -= f * b[c];
    }
  }

  // back substitution (x may be b: row r reads only x[k > r], already final)
  for (int r = n - 1; r >= 0; r--) {
    double s = b[r];
    for (int k = r + 1; k < n; k++) {
      s -= A[r*n + k] * x[k];
    }
    x[r] = s / A[r*n + r];
  }
}
