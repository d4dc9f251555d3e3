// Moduco core: joint-space inertia in the tree-sparse layout.
//
// Row i of qM starts at dof_Madr[i] and holds M(i,i), M(i,parent(i)), M(i,parent(parent(i))), ...
// up to the root of the dof tree. The factorization M = L'DL is computed in place in the same
// layout ("reverse" order, from the leaves up), which has no fill-in.
#include <moduco/moduco.h>

#include "engine/engine.h"
#include "engine/parallel_stages.h"
#include "math/math.h"


void mc_crb(const mcModel* m, mcData* d) {
  int nv = m->nv, nbody = m->nbody;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;
  mcNum* crb = d->crb;
  mcNum* M = d->qM;

  // composite inertias: body inertias summed over subtrees (the world stays zero)
  mcu_copy(crb, d->cinert, 10 * nbody);
  for (int i = nbody - 1; i > 0; i--) {
    int p = m->body_parentid[i];
    if (p > 0) {
      mcu_addTo(crb + 10 * p, crb + 10 * i, 10);
    }
  }

  // each row: force of the composite body moved along dof i, projected on the ancestor dofs;
  // a simple body (dof_simplenum: no child, inertial frame on the body frame, joints through its
  // origin along orthogonal axes, hanging from the world) has a diagonal block, whose
  // off-diagonal entries are zero but for rounding: they are stored as exact zeros
  for (int i = 0; i < nv; i++) {
    mcNum f[6];
    mcu_mulInertVec(f, crb + 10 * m->dof_bodyid[i], d->cdof + 6 * i);
    int adr = Madr[i];
    M[adr] = m->dof_armature[i] + mcu_dot6(f, d->cdof + 6 * i);
    int simple = m->dof_simplenum[i] > 0;
    for (int j = parent[i]; j >= 0; j = parent[j]) {
      M[++adr] = simple ? 0 : mcu_dot6(f, d->cdof + 6 * j);
    }
  }
  mc_tendonArmatureM(m, d);
}


// may the rows of simple dofs (dof_simplenum > 0) be skipped in d->qM and its factor d->qLD?
// mc_crb stores their off-diagonal entries as exact zeros and the factorization keeps them; only
// tendon armature adds to them. Skipping a zero row saves the walk up the parents; the products
// with zero it leaves out change nothing but the sign of a zero sum (or a non-finite operand,
// which a finite zero would turn into NaN)
int mci_simpleRowsZero(const mcModel* m) {
  return !m->ntendon || !mc_tendonArmatureAny(m);
}


// two doubles at any 8-byte aligned address (GCC/Clang vector extension)
typedef double mciPair __attribute__((vector_size(16), aligned(8), may_alias));


// r -= t * a over n entries (distinct rows of qLD: no overlap). The rows are short (the depth of
// the dof tree), so pairs of entries in a plain loop without a vectorized loop's set-up and
// remainder code; each entry gets the same single product and difference either way
static inline void axpyNeg(mcNum* restrict r, const mcNum* restrict a, mcNum t, int n) {
  mciPair tt = {t, t};
  int j = 0;
  for (; j + 2 <= n; j += 2) {
    *(mciPair*)(r + j) -= tt * *(const mciPair*)(a + j);
  }
  if (j < n) {
    r[j] -= t * a[j];
  }
}


// L'DL of the rows k0 .. k1-1 (whole trees) of LD in place; d (nullable) receives a warning for
// a non-positive pivot; skipSimple as in solveRange
static inline __attribute__((always_inline)) void factorRange(const mcModel* m, mcData* d,
                                                              mcNum* LD, mcNum* diagInv, int k0,
                                                              int k1, const int skipSimple) {
  int nv = m->nv;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;

  // eliminate dofs from the leaves up
  for (int k = k1 - 1; k >= k0; k--) {
    int kk = Madr[k];

    // guard the pivot
    if (LD[kk] < mcMINVAL) {
      if (d) {
        mc_warning(d, mcWARN_INERTIA, k);
      }
      LD[kk] = mcMINVAL;
    }
    mcNum invD = 1 / LD[kk];

    // length of row k (k and its ancestors; rows are stored one after the other); a row without
    // off-diagonal entries (simple bodies, roots) updates nothing
    if (skipSimple && m->dof_simplenum[k]) {
      continue;
    }
    int len = (k + 1 < nv ? Madr[k + 1] : m->nM) - kk;
    int off = 1;
    while (off < len && LD[kk + off] == 0) {
      off++;
    }
    if (off == len) {
      continue;
    }

    // update every ancestor row i with the outer product of row k: the ancestors of i (i
    // included) are both the whole row i and the tail of row k from i's entry on, so the update
    // is one contiguous axpy of their count
    int ki = kk + 1;
    for (int i = parent[k]; i >= 0; i = parent[i], ki++) {
      mcNum t = LD[ki] * invD;
      axpyNeg(LD + Madr[i], LD + ki, t, len - (ki - kk));
      LD[ki] = t;
    }
  }

  // inverse of the diagonal
  for (int i = k0; i < k1; i++) {
    diagInv[i] = 1 / LD[Madr[i]];
  }
}


void mci_factorRange(const mcModel* m, mcData* d, mcNum* LD, mcNum* diagInv, int k0, int k1) {
  factorRange(m, d, LD, diagInv, k0, k1, 0);
}


// L'DL in place; d (nullable) receives a warning for a non-positive pivot; skipSimple as in
// solveRange
static inline __attribute__((always_inline)) void factorSparse(const mcModel* m, mcData* d,
                                                               const mcNum* M, mcNum* LD,
                                                               mcNum* diagInv,
                                                               const int skipSimple) {
  if (LD != M) {
    mcu_copy(LD, M, m->nM);
  }
  factorRange(m, d, LD, diagInv, 0, m->nv, skipSimple);
}


void mc_factorI(const mcModel* m, const mcNum* M, mcNum* qLD, mcNum* qLDiagInv) {
  factorSparse(m, NULL, M, qLD, qLDiagInv, 0);
}


void mc_factorM(const mcModel* m, mcData* d) {
  // factor, then the square roots used by the constraint solvers
  if (mci_simpleRowsZero(m)) {
    factorSparse(m, d, d->qM, d->qLD, d->qLDiagInv, 1);
  } else {
    factorSparse(m, d, d->qM, d->qLD, d->qLDiagInv, 0);
  }
  for (int i = 0; i < m->nv; i++) {
    d->qLDiagSqrtInv[i] = sqrt(d->qLDiagInv[i]);
  }
}


// x <- inv(L'DL) x for n vectors over the rows k0 .. k1-1 (whole trees); skipSimple (a literal,
// so that each use compiles its own loops): the rows of simple dofs are zero off the diagonal
// (simpleRowsZero)
static inline __attribute__((always_inline)) void solveRange(const mcModel* m, mcNum* x, int n,
                                                             const mcNum* qLD,
                                                             const mcNum* qLDiagInv, int k0,
                                                             int k1, const int skipSimple) {
  int nv = m->nv;
  const int* simple = m->dof_simplenum;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;

  for (int c = 0; c < n; c++, x += nv) {
    // x <- inv(L') x: leaves up, push each solved entry into its ancestors
    for (int k = k1 - 1; k >= k0; k--) {
      mcNum xk = x[k];
      if (xk == 0 || (skipSimple && simple[k])) {
        continue;
      }
      int adr = Madr[k] + 1;
      for (int i = parent[k]; i >= 0; i = parent[i]) {
        x[i] -= qLD[adr++] * xk;
      }
    }

    // x <- inv(D) x
    for (int i = k0; i < k1; i++) {
      x[i] *= qLDiagInv[i];
    }

    // x <- inv(L) x: root down, pull from the ancestors
    for (int k = k0; k < k1; k++) {
      if (skipSimple && simple[k]) {
        k += simple[k] - 1;  // the whole run (runs lie within one tree)
        continue;
      }
      int adr = Madr[k] + 1;
      mcNum s = 0;
      for (int i = parent[k]; i >= 0; i = parent[i]) {
        s += qLD[adr++] * x[i];
      }
      x[k] -= s;
    }
  }
}


void mci_solveLDRange(const mcModel* m, mcNum* x, int n, const mcNum* qLD,
                      const mcNum* qLDiagInv, int k0, int k1, int skipSimple) {
  if (skipSimple) {
    solveRange(m, x, n, qLD, qLDiagInv, k0, k1, 1);
  } else {
    solveRange(m, x, n, qLD, qLDiagInv, k0, k1, 0);
  }
}


void mc_solveLD(const mcModel* m, mcNum* x, int n, const mcNum* qLD, const mcNum* qLDiagInv) {
  solveRange(m, x, n, qLD, qLDiagInv, 0, m->nv, 0);
}


void mc_solveM(const mcModel* m, mcData* d, mcNum* x, const mcNum* y, int n) {
  if (x != y) {
    mcu_copy(x, y, m->nv * n);
  }
  if (mci_simpleRowsZero(m)) {
    solveRange(m, x, n, d->qLD, d->qLDiagInv, 0, m->nv, 1);
  } else {
    solveRange(m, x, n, d->qLD, d->qLDiagInv, 0, m->nv, 0);
  }
}


// res += (M - diag M) vec: the off-diagonal entries act on both triangles; skipSimple as in
// solveLD
static inline __attribute__((always_inline)) void mulOffDiagonal(const mcModel* m,
                                                                 const mcNum* M, mcNum* res,
                                                                 const mcNum* vec,
                                                                 const int skipSimple) {
  int nv = m->nv;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;
  const int* simple = m->dof_simplenum;
  for (int i = 0; i < nv; i++) {
    if (skipSimple && simple[i]) {
      i += simple[i] - 1;  // the whole run
      continue;
    }
    int adr = Madr[i] + 1;
    mcNum vi = vec[i], s = 0;
    for (int j = parent[i]; j >= 0; j = parent[j], adr++) {
      s += M[adr] * vec[j];
      res[j] += M[adr] * vi;
    }
    res[i] += s;
  }
}


void mc_mulM(const mcModel* m, const mcData* d, mcNum* res, const mcNum* vec) {
  const int* Madr = m->dof_Madr;
  const mcNum* M = d->qM;

  // diagonal, then the rest
  for (int i = 0; i < m->nv; i++) {
    res[i] = M[Madr[i]] * vec[i];
  }
  if (mci_simpleRowsZero(m)) {
    mulOffDiagonal(m, M, res, vec, 1);
  } else {
    mulOffDiagonal(m, M, res, vec, 0);
  }
}


void mc_fullM(const mcModel* m, mcNum* dst, const mcNum* M) {
  int nv = m->nv;
  const int* parent = m->dof_parentid;
  const int* Madr = m->dof_Madr;

  // scatter each sparse row and its transpose
  mcu_zero(dst, nv * nv);
  for (int i = 0; i < nv; i++) {
    int adr = Madr[i];
    dst[i * nv + i] = M[adr++];
    for (int j = parent[i]; j >= 0; j = parent[j], adr++) {
      dst[i * nv + j] = M[adr];
      dst[j * nv + i] = M[adr];
    }
  }
}
