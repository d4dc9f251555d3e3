// Moduco solver plugins: small vector helpers and internal declarations (solver-common only).
#ifndef MODUCO_PLUGINS_SOLVER_COMMON_SOLVER_INTERNAL_H_
#define MODUCO_PLUGINS_SOLVER_COMMON_SOLVER_INTERNAL_H_

#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <moduco/mcplugin.h>

// dot product: blocks of four products are summed first, then added to the total (four
// independent multiplications per step of the dependent sum). With SSE2 two blocks are summed
// side by side in the two lanes (the same additions in the same order: the same result)
static inline mcNum mcs_dot(const mcNum* a, const mcNum* b, int n) {
  mcNum s = 0;
  int i = 0;
#ifdef __SSE2__
  for (; i + 8 <= n; i += 8) {
    __m128d p01 = _mm_mul_pd(_mm_loadu_pd(a + i), _mm_loadu_pd(b + i));
    __m128d p23 = _mm_mul_pd(_mm_loadu_pd(a + i + 2), _mm_loadu_pd(b + i + 2));
    __m128d q01 = _mm_mul_pd(_mm_loadu_pd(a + i + 4), _mm_loadu_pd(b + i + 4));
    __m128d q23 = _mm_mul_pd(_mm_loadu_pd(a + i + 6), _mm_loadu_pd(b + i + 6));
    __m128d t = _mm_add_pd(_mm_unpacklo_pd(p01, q01), _mm_unpackhi_pd(p01, q01));
    t = _mm_add_pd(t, _mm_unpacklo_pd(p23, q23));
    t = _mm_add_pd(t, _mm_unpackhi_pd(p23, q23));
    s += _mm_cvtsd_f64(t);
    s += _mm_cvtsd_f64(_mm_unpackhi_pd(t, t));
  }
#endif
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

// mcs_constraintUpdate where rows ineq .. nefc - 1 are all scalar inequalities (limits,
// frictionless and pyramidal contacts): those in a loop of their own (bitwise the same result)
mcNum mcs_constraintUpdateIneq(const mcModel* m, mcData* d, const mcNum* jar, int flg_hessian,
                               int ineq);

// solve (L L') x = b in place with a dense Cholesky factor L (lower triangle, row major;
// solver_pgs.c)
void mcs_cholSolve(const mcNum* L, mcNum* x, int n);

// Newton's dense Hessian as H = L' L, eliminating from the last dof to the first on the non-zeros
// of each row (solver_ltl.c): factor the lower triangle of the n x n row-major H in place
// (pivots below mindiag raised to mindiag; return their number), solve (L' L) x = b in place,
// and the rank-1 update (sigma > 0) or downdate (sigma < 0) to the factor
// of L' L + sigma w w' (w is left zero; return 0 when a downdated pivot falls below mcMINVAL)
int mcs_ltlFactor(mcNum* H, int n, mcNum mindiag);
void mcs_ltlSolve(const mcNum* L, mcNum* x, int n);
int mcs_ltlUpdate(mcNum* L, mcNum* w, int n, mcNum sigma);

// shared by PGS (plugins/solver-pgs) and noslip (solver_pgs.c):
// one elliptic contact block at row adr of the dense AR (row stride ld): ray step, then the QCQP
// on the slice (friction only if frictiononly); return the change of the dual cost (0 when the
// old force is kept)
mcNum mcs_ellipticUpdate(const mcNum* AR, int ld, const mcNum* b, mcNum* f, int adr, int dim,
                         const mcContact* con, int nefc, int frictiononly);

// qfrc_constraint = J' efc_force, qacc = qacc_smooth + inv(M) qfrc_constraint, states from the
// dual forces, warmstart (what mcs_finish writes, with J' f computed once)
void mcs_dualFinish(const mcpHost* host, const mcModel* m, mcData* d);

#endif  // MODUCO_PLUGINS_SOLVER_COMMON_SOLVER_INTERNAL_H_
