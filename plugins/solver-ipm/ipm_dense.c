// Moduco plugin "ipm": dense LU with partial pivoting (Newton systems and the local blocks).
#include <math.h>

#include "ipm.h"


int ipm_factorLU(mcNum* A, int* piv, int n) {
  for (int k = 0; k < n; k++) {
    // pivot: largest magnitude in column k (first one on ties: deterministic)
    int p = k;
    mcNum best = fabs(A[(size_t)k * n + k]);
    for (int i = k + 1; i < n; i++) {
      mcNum v = fabs(A[(size_t)i * n + k]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    piv[k] = p;
    if (!(best > 0) || !isfinite(best)) {
      return 0;
    }
    if (p != k) {
      for (int j = 0; j < n; j++) {
        mcNum t = A[(size_t)k * n + j];
        A[(size_t)k * n + j] = A[(size_t)p * n + j];
        A[(size_t)p * n + j] = t;
      }
    }

    // eliminate below the pivot
    mcNum inv = 1 / A[(size_t)k * n + k];
    for (int i = k + 1; i < n; i++) {
      mcNum* Ai = A + (size_t)i * n;
      mcNum l = Ai[k] * inv;
      Ai[k] = l;
      if (l != 0) {
        const mcNum* Ak = A + (size_t)k * n;
        for (int j = k + 1; j < n; j++) {
          Ai[j] -= l * Ak[j];
        }
      }
    }
  }
  return 1;
}


void ipm_solveLU(const mcNum* A, const int* piv, mcNum* x, int n) {
  // permute and forward-substitute (unit lower)
  for (int k = 0; k < n; k++) {
    if (piv[k] != k) {
      mcNum t = x[k];
      x[k] = x[piv[k]];
      x[piv[k]] = t;
    }
  }
  for (int i = 1; i < n; i++) {
    const mcNum* Ai = A + (size_t)i * n;
    mcNum s = x[i];
    for (int j = 0; j < i; j++) {
      s -= Ai[j] * x[j];
    }
    x[i] = s;
  }

  // back-substitute (upper)
  for (int i = n - 1; i >= 0; i--) {
    const mcNum* Ai = A + (size_t)i * n;
    mcNum s = x[i];
    for (int j = i + 1; j < n; j++) {
      s -= Ai[j] * x[j];
    }
    x[i] = s / Ai[i];
  }
}
