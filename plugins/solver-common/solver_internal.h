// Moduco solver plugins: small vector helpers and internal declarations (solver-common only).
#ifndef MODUCO_PLUGINS_SOLVER_COMMON_SOLVER_INTERNAL_H_
#define MODUCO_PLUGINS_SOLVER_COMMON_SOLVER_INTERNAL_H_

#include <math.h>

#include <moduco/mcplugin.h>

// dot product: blocks of four products are summed first, then added to the total (four
// independent multiplications per step of the dependent sum)
static inline mcNum mcs_dot(const mcNum* a, const mcNum* b, int n) {
  mcNum s = 0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    s += a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2] + a[i + 3] * b[i + 3];
  }
  for (; i < n; i++) {
    s += a[i] * b[i];
  }
  return s;
}


static inline void mcs_addToScl(mcNum* r, const mcNum* a, mcNum s, int n) {
  for (int i = 0; i < n; i++) {
    r[i] += s * a[i];
  }
}


static inline mcNum mcs_norm(const mcNum* a, int n) {
  return sqrt(mcs_dot(a, a, n));
}


// zone of an elliptic contact at jar (mcCNSTRSTATE_SATISFIED, _QUADRATIC or _CONE); N, T are the
// normal and tangential magnitudes in the scaled coordinates
int mcs_coneZone(const mcContact* con, const mcNum* jar, mcNum* N, mcNum* T);

// dense Cholesky of a symmetric n x n matrix in place (lower triangle); pivots below mindiag are
// raised to mindiag; return the number of raised pivots
int mcs_cholFactor(mcNum* A, int n, mcNum mindiag);

// solve (L L') x = b in place with the factor of mcs_cholFactor
void mcs_cholSolve(const mcNum* L, mcNum* x, int n);

#endif  // MODUCO_PLUGINS_SOLVER_COMMON_SOLVER_INTERNAL_H_
