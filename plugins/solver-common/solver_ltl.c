// Moduco solver plugins: dense Hessian of Newton factored as H = L' L (L lower triangular, row
// major, the lower triangle of H overwritten), eliminating the dofs from the last to the first.
//
// Dof parents come before their children, so in this order M's tree pattern (a dof couples only
// with its ancestors) has no fill, and a constraint row (the dofs of one or two kinematic chains)
// adds fill only where it couples two branches. Each elimination step works on the non-zeros of
// its row only, so the cost follows the pattern of H instead of nv^3 / 6 (humanoid: about a third),
// on the same dense storage.
#include <math.h>

#include "solver_internal.h"


// two doubles of a row (any 8-byte alignment): the products and differences of both lanes are
// those of the scalar code, lane by lane
#if defined(__GNUC__)
typedef double Pair __attribute__((vector_size(16), aligned(8), may_alias));
#endif

// r -= t * a over n entries of two distinct rows; the rows are short (a dof's ancestors), so
// pairs without the alias checks and peeling of an auto-vectorized loop
static inline void axpyNeg(mcNum* restrict r, const mcNum* restrict a, mcNum t, int n) {
  int j = 0;
#if defined(__GNUC__)
  Pair tt = {t, t};
  for (; j + 2 <= n; j += 2) {
    *(Pair*)(r + j) -= tt * *(const Pair*)(a + j);
  }
#endif
  for (; j < n; j++) {
    r[j] -= t * a[j];
  }
}


int mcs_ltlFactor(mcNum* H, int n, mcNum mindiag) {
  int raised = 0;
  for (int k = n - 1; k >= 0; k--) {
    mcNum* Hk = H + (size_t)k * n;
    mcNum s = Hk[k];
    if (!(s >= mindiag)) {
      s = mindiag;
      raised++;
    }
    mcNum lkk = sqrt(s), inv = 1 / lkk;
    Hk[k] = lkk;

    // the row from its first non-zero: the zeros among its entries stay zero and add nothing
    // below (a zero product leaves an entry as it is), so whole ranges are plain loops
    int first = 0;
    while (first < k && Hk[first] == 0) {
      first++;
    }
    for (int j = first; j < k; j++) {
      Hk[j] *= inv;
    }

    // rows i of the non-zeros: H[i][j] -= L[k][i] L[k][j] for j <= i
    for (int i = first; i < k; i++) {
      mcNum lki = Hk[i];
      if (lki != 0) {
        mcNum* Hi = H + (size_t)i * n;
        axpyNeg(Hi + first, Hk + first, lki, i - first);
        Hi[i] -= lki * lki;
      }
    }
  }
  return raised;
}


void mcs_ltlSolve(const mcNum* L, mcNum* x, int n) {
  // L' y = b, from the last row up (each solved entry is removed from those before it)
  for (int k = n - 1; k >= 0; k--) {
    const mcNum* Lk = L + (size_t)k * n;
    mcNum y = x[k] / Lk[k];
    x[k] = y;
    if (y != 0) {
      for (int j = 0; j < k; j++) {
        x[j] -= Lk[j] * y;
      }
    }
  }

  // L x = y, from the first row down
  for (int k = 0; k < n; k++) {
    const mcNum* Lk = L + (size_t)k * n;
    x[k] = (x[k] - mcs_dot(Lk, x, k)) / Lk[k];
  }
}


int mcs_ltlUpdate(mcNum* L, mcNum* w, int n, mcNum sigma) {
  // rotate row by row from the last non-zero of w; a row whose entry of w is zero at its turn is
  // left as it is (its rotation is the identity), so the walk goes to the next non-zero
  int k = n - 1;
  while (k >= 0 && w[k] == 0) {
    k--;
  }
  while (k >= 0) {
    mcNum* Lk = L + (size_t)k * n;
    mcNum lkk = Lk[k], wk = w[k];
    mcNum r2 = lkk * lkk + sigma * wk * wk;
    if (!(r2 >= mcMINVAL)) {
      return 0;
    }
    mcNum r = sqrt(r2), c = r / lkk, s = wk / lkk;
    Lk[k] = r;
    w[k] = 0;
    int next = -1;
    for (int j = 0; j < k; j++) {
      Lk[j] = (Lk[j] + sigma * s * w[j]) / c;
      w[j] = c * w[j] - s * Lk[j];
      if (w[j] != 0) {
        next = j;
      }
    }
    k = next;
  }
  return 1;
}
